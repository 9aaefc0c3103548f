// SPDX-License-Identifier: Apache-2.0
/*
 * runstat: run a command N times and print its wall time (median, p99, min)
 * and peak resident memory (largest ru_maxrss of any run), for make bench.
 *
 *   runstat 50 oneib-discover --format=json
 *   -> runs=50 median_ms=3.412 p99_ms=4.020 min_ms=3.150 max_rss_kb=3960
 *
 * stdout of the command goes to /dev/null; a failing run aborts the bench.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	long n, i, maxrss = 0;
	double *t;
	char *end;

	if (argc < 3) {
		fprintf(stderr, "usage: runstat N command [args...]\n");
		return 2;
	}
	n = strtol(argv[1], &end, 10);
	if (*end || n < 1 || n > 100000) {
		fprintf(stderr, "runstat: bad count '%s'\n", argv[1]);
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	for (i = 0; i < n; i++) {
		struct rusage ru;
		double t0 = now_ms();
		int status;
		pid_t pid = fork();

		if (pid < 0) {
			perror("runstat: fork");
			return 1;
		}
		if (pid == 0) {
			int fd = open("/dev/null", O_WRONLY);

			if (fd >= 0)
				dup2(fd, 1);
			execvp(argv[2], argv + 2);
			fprintf(stderr, "runstat: %s: %s\n", argv[2],
				strerror(errno));
			_exit(127);
		}
		if (wait4(pid, &status, 0, &ru) < 0) {
			perror("runstat: wait4");
			return 1;
		}
		t[i] = now_ms() - t0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			fprintf(stderr, "runstat: %s failed (status %d)\n",
				argv[2], status);
			return 1;
		}
		if (ru.ru_maxrss > maxrss)
			maxrss = ru.ru_maxrss;
	}
	qsort(t, (size_t)n, sizeof(*t), cmp_double);
	printf("runs=%ld median_ms=%.3f p99_ms=%.3f min_ms=%.3f "
	       "max_rss_kb=%ld\n",
	       n, t[n / 2], t[(n * 99) / 100 < n ? (n * 99) / 100 : n - 1],
	       t[0], maxrss);
	free(t);
	return 0;
}
