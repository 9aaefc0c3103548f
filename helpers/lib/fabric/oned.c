// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/child.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "fabric/oned.h"

#define SESSION_MAX 4096 /* "user:password", or a token */

/* A regular file at dir/name: its path in buf. */
static bool file_in(const char *dir, const char *name, char *buf, size_t len)
{
	struct stat st;
	int n;

	if (!dir || !*dir)
		return false;
	n = snprintf(buf, len, "%s/%s", dir, name);
	return n > 0 && (size_t)n < len && !stat(buf, &st) &&
	       S_ISREG(st.st_mode);
}

/* The first line's text of path, trailing blanks dropped, into sb. */
static int read_trimmed(const char *path, struct strbuf *sb, size_t max)
{
	int r = sb_read_file(sb, path, max);

	while (!r && sb->len && strchr(" \t\r\n", sb->buf[sb->len - 1]))
		sb->buf[--sb->len] = '\0';
	return r;
}

int oned_locate(struct oned *o, const struct oned_where *w, unsigned timeout,
		const struct scratch *tmp, char *err, size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char dirs[2][PATH_MAX], path[PATH_MAX];
	const char *found = NULL;
	int i, r, n = 0;

	memset(o, 0, sizeof(*o));
	o->timeout = timeout;
	o->tmp = tmp;
	o->curl = "curl";
	if (w->home && *w->home &&
	    (size_t)snprintf(dirs[n], sizeof(dirs[n]), "%s/.one", w->home) <
		    sizeof(dirs[n]))
		n++;
	snprintf(dirs[n++], sizeof(dirs[0]), "%s/.one", w->var);
	if (w->one_xmlrpc && *w->one_xmlrpc) {
		r = snprintf(o->endpoint, sizeof(o->endpoint), "%s",
			     w->one_xmlrpc);
		if (r < 0 || (size_t)r >= sizeof(o->endpoint)) {
			err_set(err, errlen, "ONE_XMLRPC: too long");
			return -ENAMETOOLONG;
		}
	}
	for (i = 0; i < n && !o->endpoint[0]; i++) {
		if (!file_in(dirs[i], "one_endpoint", path, sizeof(path)))
			continue;
		r = read_trimmed(path, &sb, sizeof(o->endpoint) - 1);
		if (r) {
			err_set(err, errlen, "cannot read %.200s: %s", path,
				strerror(-r));
			sb_release(&sb);
			return r;
		}
		memcpy(o->endpoint, sb.buf, sb.len + 1);
		sb_reset(&sb);
	}
	if (!o->endpoint[0])
		strcpy(o->endpoint, "http://localhost:2633/RPC2");
	/* trailing blanks of ONE_XMLRPC too, as the CLI strips them */
	for (r = (int)strlen(o->endpoint);
	     r > 0 && strchr(" \t\r\n", o->endpoint[r - 1]); r--)
		o->endpoint[r - 1] = '\0';

	if (w->one_auth && *w->one_auth) {
		struct stat st;

		if (!stat(w->one_auth, &st) && S_ISREG(st.st_mode))
			found = w->one_auth;
	}
	for (i = 0; i < n && !found; i++)
		if (file_in(dirs[i], "one_auth", o->auth_file,
			    sizeof(o->auth_file)))
			found = o->auth_file;
	if (!found) {
		err_set(err, errlen,
			"no ONE_AUTH file (ONE_AUTH, ~/.one/one_auth): the "
			"secret oned's calls need");
		return -ENOENT;
	}
	if (found != o->auth_file)
		snprintf(o->auth_file, sizeof(o->auth_file), "%s", found);
	r = read_trimmed(o->auth_file, &sb, SESSION_MAX);
	if (r) {
		err_set(err, errlen, "cannot read %.200s: %s", o->auth_file,
			strerror(-r));
		sb_release(&sb);
		return r;
	}
	o->session = sb.buf ? sb.buf : strdup("");
	return o->session ? 0 : -ENOMEM;
}

void oned_free(struct oned *o)
{
	if (o->session) {
		explicit_bzero(o->session, strlen(o->session));
		free(o->session);
	}
	o->session = NULL;
}

/* The request into an anonymous memory file (curl's stdin), rewound. */
static int body_file(const struct strbuf *body)
{
	int fd = memfd_create("request", MFD_CLOEXEC);
	size_t at = 0;

	if (fd < 0)
		return -errno;
	while (at < body->len) {
		ssize_t w = write(fd, body->buf + at, body->len - at);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			int r = w < 0 ? -errno : -EIO;

			close(fd);
			return r;
		}
		at += (size_t)w;
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	return fd;
}

int oned_call(const struct oned *o, const char *name, const char *method,
	      const struct onerpc_arg *args, size_t n, FILE *out, char *err,
	      size_t errlen)
{
	const char *argv[] = { o->curl,
			       "-sS",
			       "-f",
			       "-H",
			       "Content-Type: text/xml",
			       "--data-binary",
			       "@-",
			       o->endpoint,
			       NULL };
	struct strbuf body = STRBUF_INIT;
	struct child c = { .argv = argv, .timeout = o->timeout };
	char why[512] = "";
	FILE *answer = NULL;
	int in = -1, r;

	r = onerpc_request(&body, method, o->session, args, n);
	if (r) {
		err_set(err, errlen, "%s: %s", name,
			r == -EINVAL ? "a value XML cannot carry"
				     : strerror(-r));
		goto out;
	}
	in = body_file(&body);
	explicit_bzero(body.buf, body.len);
	answer = scratch_open(o->tmp, "answer.xml", "w+");
	if (in < 0 || !answer) {
		r = in < 0 ? in : -errno;
		err_set(err, errlen, "%s: %s", name, strerror(-r));
		goto out;
	}
	c.in_fd = in;
	c.out_fd = fileno(answer);
	r = child_run_named(&c, name, NULL, err, errlen);
	if (r)
		goto out;
	rewind(answer);
	r = onerpc_string(answer, out, why, sizeof(why));
	if (r == -EINVAL && !strncmp(why, "oned: ", 6))
		err_set(err, errlen, "%s failed: %s", name, why);
	else if (r)
		err_set(err, errlen, "%s: %s", name, why);
	else if (fflush(out) || ferror(out)) {
		r = -EIO;
		err_set(err, errlen, "%s: cannot write its answer", name);
	}
out:
	if (answer)
		fclose(answer);
	if (in >= 0)
		close(in);
	sb_release(&body);
	return r;
}
