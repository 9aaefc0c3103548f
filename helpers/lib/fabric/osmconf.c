// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/conffile.h"
#include "core/log.h"
#include "core/strbuf.h"
#include "fabric/osmconf.h"

#define WORD_MAX OSMCONF_PATH_MAX

/* opensm's strtoul(v, NULL, 0), refusing what it would read as 0 by
 * accident: "0x3c", "60" and "074" are numbers, "sixty" is not. */
static int number(const char *v, unsigned long long max,
		  unsigned long long *out)
{
	char *end;

	errno = 0;
	*out = strtoull(v, &end, 0);
	if (!*v || *end || errno || *out > max || v[0] == '-')
		return -EINVAL;
	return 0;
}

/* The first two words of a line: "qos TRUE # on" -> "qos", "TRUE". */
static void words(const char *s, size_t len, char *name, char *value)
{
	size_t i = 0, n;

	name[0] = value[0] = '\0';
	for (n = 0; n < 2; n++) {
		char *w = n ? value : name;
		size_t k = 0;

		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		while (i < len && s[i] != ' ' && s[i] != '\t') {
			if (k + 1 < WORD_MAX)
				w[k++] = s[i];
			i++;
		}
		w[k] = '\0';
	}
}

int osmconf_parse(const char *text, size_t len, struct osm_conf *out, char *err,
		  size_t errlen)
{
	const char *s = text, *end = text + len;
	int line = 0;

	memset(out, 0, sizeof(*out));
	out->found = true;
	out->virt_enabled = -1;
	snprintf(out->policy_file, sizeof(out->policy_file), "%s",
		 OSMCONF_POLICY_DEFAULT);
	while (s < end) {
		const char *eol = memchr(s, '\n', (size_t)(end - s));
		char name[WORD_MAX], value[WORD_MAX];
		unsigned long long v;

		if (!eol)
			eol = end;
		line++;
		words(s, (size_t)(eol - s), name, value);
		s = eol + 1;
		if (!name[0] || name[0] == '#')
			continue;
		if (!strcmp(name, "qos")) {
			out->qos = !strcmp(value, "TRUE");
			continue;
		}
		if (!strcmp(name, "allow_both_pkeys")) {
			out->allow_both_pkeys = !strcmp(value, "TRUE");
			continue;
		}
		if (!strcmp(name, "qos_policy_file")) {
			snprintf(out->policy_file, sizeof(out->policy_file),
				 "%s", value);
			continue;
		}
		if (!strcmp(name, "m_key")) {
			if (number(value, UINT64_MAX, &v))
				goto bad;
			out->m_key = v;
		} else if (!strcmp(name, "m_key_protection_level")) {
			if (number(value, 255, &v))
				goto bad;
			/* osm_subn_verify_config: more than 3 is 2 */
			out->m_key_protection = v > 3 ? 2 : (int)v;
		} else if (!strcmp(name, "m_key_lease_period")) {
			if (number(value, 65535, &v))
				goto bad;
			out->m_key_lease = (unsigned)v;
		} else if (!strcmp(name, "virt_enabled")) {
			if (number(value, 255, &v))
				goto bad;
			out->virt_enabled = (int)v;
		}
		continue;
	bad:
		err_set(err, errlen, "line %d: %s '%s' is not a number", line,
			name, str_sanitize(value).s);
		return -EINVAL;
	}
	return 0;
}

int osmconf_read(const char *path, struct osm_conf *out, char *err,
		 size_t errlen)
{
	struct strbuf sb = STRBUF_INIT;
	char why[256] = "";
	int r = sb_read_file(&sb, path, CONFFILE_MAX);

	if (r == -ENOENT) {
		memset(out, 0, sizeof(*out));
		out->virt_enabled = -1;
		snprintf(out->policy_file, sizeof(out->policy_file), "%s",
			 OSMCONF_POLICY_DEFAULT);
		return 0;
	}
	if (r)
		err_set(err, errlen, "%s: %s", path, strerror(-r));
	else if ((r = osmconf_parse(sb.buf, sb.len, out, why, sizeof(why))))
		err_set(err, errlen, "%s %s", path, why);
	sb_release(&sb);
	return r;
}
