// SPDX-License-Identifier: Apache-2.0
/* PCI addresses and P_Keys: the strings that reach root-run helpers. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/pci.h"
#include "core/pkey.h"

static void pci_good(void **state)
{
	struct pci_addr a;
	char buf[PCI_ADDR_STRLEN];

	(void)state;
	assert_int_equal(pci_addr_parse("0000:3b:00.2", &a), 0);
	assert_int_equal(a.domain, 0);
	assert_int_equal(a.bus, 0x3b);
	assert_int_equal(a.slot, 0);
	assert_int_equal(a.func, 2);
	assert_int_equal(pci_addr_parse("ABCD:FF:1F.7", &a), 0);
	pci_addr_fmt(&a, buf);
	assert_string_equal(buf, "abcd:ff:1f.7");
}

static void pci_bad(void **state)
{
	static const char *const bad[] = {
		"3b:00.2",	 "0000:3b:00.8",  "0000:3b:20.0",  "0000:3b:00",
		"0000:3b:00.2 ", "0000-3b:00.2",  "0000:3b:0g.2",  "",
		"../../etc/x",	 "0000:3b:00.2/", "0000:3b:00.02",
	};
	struct pci_addr a = { 1, 2, 3, 4 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(pci_addr_parse(bad[i], &a), -EINVAL);
	assert_int_equal(pci_addr_parse(NULL, &a), -EINVAL);
	assert_int_equal(a.domain, 1);
}

static void pci_order(void **state)
{
	struct pci_addr a, b;

	(void)state;
	pci_addr_parse("0000:3b:00.7", &a);
	pci_addr_parse("0000:3b:01.0", &b);
	assert_true(pci_addr_cmp(&a, &b) < 0);
	assert_true(pci_addr_cmp(&b, &a) > 0);
	assert_int_equal(pci_addr_cmp(&a, &a), 0);
	pci_addr_parse("0001:00:00.0", &b);
	assert_true(pci_addr_cmp(&a, &b) < 0);
}

static void pkey_forms(void **state)
{
	char buf[PKEY_STRLEN];
	struct pkey p;

	(void)state;
	assert_int_equal(pkey_parse("0x8101", &p), 0);
	assert_int_equal(p.raw, 0x8101);
	assert_int_equal(pkey_base(p), 0x0101);
	assert_true(pkey_is_full(p));
	assert_int_equal(pkey_parse("257", &p), 0);
	assert_int_equal(p.raw, 0x0101);
	assert_false(pkey_is_full(p));
	pkey_fmt(p, buf);
	assert_string_equal(buf, "0x0101");
	assert_int_equal(pkey_parse("0XFFFF", &p), 0);
	assert_int_equal(p.raw, 0xffff);
}

static void pkey_rejects(void **state)
{
	struct pkey p = { 42 };

	(void)state;
	assert_int_equal(pkey_parse("0x10000", &p), -ERANGE);
	assert_int_equal(pkey_parse("65536", &p), -ERANGE);
	assert_int_equal(pkey_parse("", &p), -EINVAL);
	assert_int_equal(pkey_parse("0x", &p), -EINVAL);
	assert_int_equal(pkey_parse("-1", &p), -EINVAL);
	assert_int_equal(pkey_parse("0x81 01", &p), -EINVAL);
	assert_int_equal(pkey_parse("12a", &p), -EINVAL);
	assert_int_equal(pkey_parse(NULL, &p), -EINVAL);
	assert_int_equal(p.raw, 42);
}

static void pkey_tenant(void **state)
{
	(void)state;
	assert_true(pkey_tenant_ok((struct pkey){ 0x0001 }));
	assert_true(pkey_tenant_ok((struct pkey){ 0x7ffe }));
	assert_true(pkey_tenant_ok((struct pkey){ 0x8101 }));
	assert_false(pkey_tenant_ok((struct pkey){ 0x7fff }));
	assert_false(pkey_tenant_ok((struct pkey){ 0xffff }));
	assert_false(pkey_tenant_ok((struct pkey){ 0x0000 }));
	assert_false(pkey_tenant_ok((struct pkey){ 0x8000 }));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(pci_good),	cmocka_unit_test(pci_bad),
		cmocka_unit_test(pci_order),	cmocka_unit_test(pkey_forms),
		cmocka_unit_test(pkey_rejects), cmocka_unit_test(pkey_tenant),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
