// SPDX-License-Identifier: Apache-2.0
/*
 * sysfs value readers (kernel formats and ibsim's newline-less files), port
 * state strings, and the two output writers (JSON, OpenNebula templates).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "unit.h"

#include "host/hca.h"
#include "core/json.h"
#include "core/onetmpl.h"
#include "core/sysfs.h"

static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/oneib-unit-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return unit_rm_tree(dir) == 0 ? 0 : -1;
}

static const char *put(const char *name, const char *content)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(content, f);
	fclose(f);
	return path;
}

static void read_numbers(void **state)
{
	long v;

	(void)state;
	assert_int_equal(sysfs_read_long(put("vendor", "0x15b3\n"), &v), 0);
	assert_int_equal(v, 0x15b3);
	assert_int_equal(sysfs_read_long(put("numa", "-1\n"), &v), 0);
	assert_int_equal(v, -1);
	/* ibsim writes no trailing newline */
	assert_int_equal(sysfs_read_long(put("lid", "0x1"), &v), 0);
	assert_int_equal(v, 1);
	v = 99;
	assert_int_equal(sysfs_read_long(put("g", "garbage\n"), &v), -EINVAL);
	assert_int_equal(sysfs_read_long(put("e", ""), &v), -EINVAL);
	assert_int_equal(sysfs_read_long(put("t", "12 3\n"), &v), -EINVAL);
	assert_int_equal(v, 99);
	assert_int_equal(sysfs_read_long("/nonexistent/oneib", &v), -ENOENT);
}

static void read_strings(void **state)
{
	char buf[8];

	(void)state;
	assert_int_equal(
		sysfs_read_str(put("s", "4: ACTIVE\n"), buf, sizeof(buf)), 0);
	/* cut to the buffer, never overflowing it */
	assert_string_equal(buf, "4: ACTI");
	assert_int_equal(sysfs_read_str(put("s2", "IB"), buf, sizeof(buf)), 0);
	assert_string_equal(buf, "IB");
}

static void link_names(void **state)
{
	char path[128], buf[32], small[4];

	(void)state;
	snprintf(path, sizeof(path), "%s/driver", dir);
	assert_int_equal(symlink("../../../bus/pci/drivers/vfio-pci", path), 0);
	assert_int_equal(sysfs_link_name(path, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "vfio-pci");
	assert_int_equal(sysfs_link_name(path, small, sizeof(small)),
			 -ENAMETOOLONG);
	snprintf(path, sizeof(path), "%s/nolink", dir);
	assert_int_equal(sysfs_link_name(path, buf, sizeof(buf)), -ENOENT);
}

static void port_states(void **state)
{
	(void)state;
	assert_int_equal(ib_state_parse("4: ACTIVE"), 4);
	assert_int_equal(ib_state_parse("1: DOWN"), 1);
	assert_int_equal(ib_state_parse("0: NOP"), 0);
	assert_int_equal(ib_state_parse("banana"), -EINVAL);
	assert_int_equal(ib_state_parse("4: DOWN"), -EINVAL);
	assert_int_equal(ib_state_parse("4:ACTIVE"), -EINVAL);
	assert_int_equal(ib_state_parse("9: ACTIVE"), -EINVAL);
	assert_string_equal(ib_state_name(4), "ACTIVE");
	assert_null(ib_state_name(6));
	assert_null(ib_state_name(-1));
	assert_string_equal(ib_phys_state_name(5), "LinkUp");
	assert_string_equal(ib_phys_state_name(7), "Phy Test");
	assert_null(ib_phys_state_name(0));
}

static void usable(void **state)
{
	struct ib_port p = { .state = 4, .link_layer = "InfiniBand" };
	struct vf vf = { .driver = "vfio-pci" };

	(void)state;
	assert_true(ib_port_usable(&p));
	p.state = 2;
	assert_false(ib_port_usable(&p));
	p.state = 4;
	snprintf(p.link_layer, sizeof(p.link_layer), "Ethernet");
	assert_false(ib_port_usable(&p));
	assert_true(vf_assignable(&vf));
	vf.driver[0] = '\0';
	assert_true(vf_assignable(&vf));
	snprintf(vf.driver, sizeof(vf.driver), "mlx5_core");
	assert_false(vf_assignable(&vf));
}

static char *capture(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f);
	fclose(f);
	return buf;
}

static void write_json(FILE *f)
{
	struct json w;

	json_init(&w, f);
	json_obj(&w, NULL);
	json_int(&w, "version", 1);
	json_str(&w, "s", "a\"b\\c\nd\x01");
	json_str_or_null(&w, "empty", "");
	json_int_or_null(&w, "numa", -1);
	json_arr(&w, "list");
	json_int(&w, NULL, 1);
	json_obj(&w, NULL);
	json_end(&w);
	json_end(&w);
	json_end(&w);
}

static void json_output(void **state)
{
	char *s = capture(write_json);

	(void)state;
	assert_string_equal(s, "{\"version\":1,\"s\":"
			       "\"a\\\"b\\\\c\\nd\\u0001\","
			       "\"empty\":null,\"numa\":null,\"list\":[1,{}]}"
			       "\n");
	free(s);
}

static void write_tmpl(FILE *f)
{
	struct tmpl_vec v;

	tmpl_attr(f, "IB_SRIOV", "YES");
	tmpl_attr_long(f, "IB_VFS_FREE", 14);
	tmpl_vec_begin(&v, f, "IB_PF");
	tmpl_vec_add(&v, "ADDRESS", "0000:3b:00.0");
	tmpl_vec_add_long(&v, "PORT", 1);
	tmpl_vec_add(&v, "EVIL", "x\", Y=\"1\nZ=\\");
	tmpl_vec_end(&v);
}

static void tmpl_output(void **state)
{
	char *s = capture(write_tmpl);

	(void)state;
	assert_string_equal(s, "IB_SRIOV=\"YES\"\n"
			       "IB_VFS_FREE=14\n"
			       "IB_PF=[ ADDRESS=\"0000:3b:00.0\", PORT=\"1\", "
			       "EVIL=\"x\\\", Y=\\\"1 Z=\\ \" ]\n");
	free(s);
}

/*
 * How OpenNebula reads a quoted value back (one: template_parser.l,
 * template_syntax.y), restated: a line holding "]]>" after the '=' is a
 * CDATA token that fails the whole template (-1); otherwise the flex rule
 * "\"([^\"]|\\\")*\"" takes the longest match, which ends at the first
 * quote not preceded by a backslash (or at the last quote of the input
 * when there is none such), and \" becomes ". *end: just past the value.
 */
static int one_read_value(const char *q, char *out, size_t len,
			  const char **end)
{
	const char *p, *close = NULL, *nl = strchr(q, '\n');
	size_t n = 0;

	if (nl ? memmem(q, (size_t)(nl - q), "]]>", 3) : strstr(q, "]]>"))
		return -1;
	assert_true(*q == '"');
	for (p = q + 1; *p; p++) {
		if (*p != '"')
			continue;
		close = p;
		if (p[-1] != '\\')
			break;
	}
	assert_non_null(close);
	for (p = q + 1; p < close && n + 1 < len; p++) {
		if (*p == '\\' && p + 1 < close && p[1] == '"')
			continue; /* \" -> " */
		out[n++] = *p;
	}
	out[n] = '\0';
	*end = close + 1;
	return 0;
}

static const char *nasty;

static void write_nasty(FILE *f)
{
	struct tmpl_vec v;

	tmpl_attr(f, "IB_ERROR", nasty);
	tmpl_vec_begin(&v, f, "IB_PF_FREE");
	tmpl_vec_add(&v, "ADDRESS", nasty);
	tmpl_vec_add_long(&v, "PORT", 1);
	tmpl_vec_end(&v);
	tmpl_attr_long(f, "IB_VFS_FREE", 0);
}

/* Whatever a value holds, OpenNebula reads back that value, and the
 * attributes after it stay attributes. */
static void tmpl_reads_back(void **state)
{
	static const struct {
		const char *in, *back;
	} cases[] = {
		{ "plain", "plain" },
		{ "", "" },
		{ "a\"b", "a\"b" },
		{ "ends in \"", "ends in \"" },
		{ "ends in \\", "ends in \\ " },
		{ "two \\\\", "two \\\\ " },
		{ "back\\slash\\\"q", "back\\slash\\\"q" },
		{ "ledger x line 3: bad mac '\\\"]]>'", "ledger x line 3: bad "
							"mac '\\\"]] >'" },
		{ "]]>]]>", "]] >]] >" },
		{ "a\nB=\"1\r\x01\x7f", "a B=\"1   " },
	};
	char back[256];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *e, *q;
		char *s;

		nasty = cases[i].in;
		s = capture(write_nasty);
		assert_int_equal(strncmp(s, "IB_ERROR=", 9), 0);
		assert_int_equal(one_read_value(s + 9, back, sizeof(back), &e),
				 0);
		assert_string_equal(back, cases[i].back);
		assert_int_equal(*e, '\n');
		q = strstr(e, "ADDRESS=");
		assert_non_null(q);
		assert_int_equal(one_read_value(q + 8, back, sizeof(back), &e),
				 0);
		assert_string_equal(back, cases[i].back);
		assert_string_equal(e, ", PORT=\"1\" ]\nIB_VFS_FREE=0\n");
		free(s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(read_numbers),
		cmocka_unit_test(read_strings),
		cmocka_unit_test(link_names),
		cmocka_unit_test(port_states),
		cmocka_unit_test(usable),
		cmocka_unit_test(json_output),
		cmocka_unit_test(tmpl_output),
		cmocka_unit_test(tmpl_reads_back),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
