/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the cmocka unit tests (include after <cmocka.h>).
 */
#ifndef ONEIB_UNIT_H
#define ONEIB_UNIT_H

#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * tests/unit/data/<name> ("partitions/vms.xml" for a subdirectory), found
 * beside this header whatever the current directory, NUL-terminated.
 */
static inline char *unit_read_data(const char *name, size_t *len)
{
	char path[512];
	const char *slash = strrchr(__FILE__, '/');
	int dirlen = slash ? (int)(slash - __FILE__) : 1;
	char *buf;
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%.*s/data/%s", dirlen,
		 slash ? __FILE__ : ".", name);
	f = fopen(path, "rb");
	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	assert_true(n > 0);
	rewind(f);
	buf = malloc((size_t)n + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	buf[n] = '\0';
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* A netlink message iproute2 sent, captured once and kept as a fixture. */
struct unit_capture {
	uint8_t bytes[256];
	size_t len;
	uint32_t seq;
	int ifindex;
};

/*
 * tests/fixtures/netlink/<name>: "#" comment lines, one of them
 * "# seq S ifindex I", then the message in hex. At least a netlink header.
 */
static inline void unit_load_capture(const char *name, struct unit_capture *c)
{
	const char *slash = strrchr(__FILE__, '/');
	int dirlen = slash ? (int)(slash - __FILE__) : 1;
	char path[512], line[256];
	unsigned long seq;
	int idx, seen = 0;
	FILE *f;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%.*s/../fixtures/netlink/%s", dirlen,
		 slash ? __FILE__ : ".", name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		const char *p = line;
		unsigned int b;
		int n;

		if (line[0] == '#') {
			if (sscanf(line, "# seq %lu ifindex %d", &seq, &idx) ==
			    2) {
				c->seq = (uint32_t)seq;
				c->ifindex = idx;
				seen = 1;
			}
			continue;
		}
		while (sscanf(p, "%2x%n", &b, &n) == 1) {
			assert_true(c->len < sizeof(c->bytes));
			c->bytes[c->len++] = (uint8_t)b;
			p += n;
		}
	}
	fclose(f);
	assert_true(seen);
	assert_true(c->len >= 16); /* sizeof(struct nlmsghdr) */
}

static inline int unit_rm_one(const char *path, const struct stat *st, int type,
			      struct FTW *ftw)
{
	(void)st;
	(void)type;
	(void)ftw;
	return remove(path);
}

/* rm -rf of a test's own mkdtemp directory, without a shell. */
static inline int unit_rm_tree(const char *dir)
{
	return nftw(dir, unit_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

#endif
