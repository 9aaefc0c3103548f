// SPDX-License-Identifier: Apache-2.0
/*
 * Which VM a hook manager event names (fabric/hookevent.h): the state
 * hook's VM, the NIC hot-plug call's second parameter (never a parameter a
 * tenant's text fakes), a new VM, and every VM for whatever it cannot read.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fabric/hookevent.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			  "0123456789+/";

/* "KIND " and the base64 of xml, a line break every 76 characters (as
 * base64(1) writes it, and oned does not: both must read) */
static char *event(const char *kind, const char *xml)
{
	size_t n = strlen(xml), i, o;
	char *s = malloc(strlen(kind) + 2 + n / 3 * 4 + n / 57 * 2 + 8);

	assert_non_null(s);
	o = (size_t)sprintf(s, "%s ", kind);
	for (i = 0; i < n; i += 3) {
		unsigned v = (unsigned)(unsigned char)xml[i] << 16;
		size_t k = n - i;

		if (k > 1)
			v |= (unsigned)(unsigned char)xml[i + 1] << 8;
		if (k > 2)
			v |= (unsigned char)xml[i + 2];
		s[o++] = b64[v >> 18 & 63];
		s[o++] = b64[v >> 12 & 63];
		s[o++] = k > 1 ? b64[v >> 6 & 63] : '=';
		s[o++] = k > 2 ? b64[v & 63] : '=';
		if (i % 57 == 54)
			s[o++] = '\n';
	}
	s[o] = '\0';
	return s;
}

static struct hook_event read_ev(const char *kind, const char *xml)
{
	char *s = event(kind, xml);
	struct hook_event ev = hook_event_read(s, strlen(s));

	free(s);
	return ev;
}

static struct hook_event read_text(const char *s)
{
	return hook_event_read(s, strlen(s));
}

#define CALL(p2, rest)                                                         \
	"<CALL_INFO><RESULT>1</RESULT><PARAMETERS><PARAMETER><POSITION>1"      \
	"</POSITION><TYPE>IN</TYPE><VALUE>****</VALUE></PARAMETER>" p2 rest    \
	"</PARAMETERS><EXTRA/></CALL_INFO>"
#define P2(id)                                                                 \
	"<PARAMETER><POSITION>2</POSITION><TYPE>IN</TYPE><VALUE>" id "</"      \
								     "VALUE><" \
								     "/PARAME" \
								     "TER>"
#define FAKE P2("42")

static void state_hook(void **state)
{
	struct hook_event ev;

	(void)state;
	ev = read_ev("vm-state", "<VM>\n  <ID>44</ID>\n  <UID>0</UID>"
				 "<NAME>x</NAME><TEMPLATE><ID>7</ID>"
				 "</TEMPLATE></VM>");
	assert_int_equal(ev.kind, HOOK_EVENT_VM);
	assert_int_equal(ev.vm, 44);
	ev = read_ev("  vm-state", "<VM><ID>0</ID></VM>");
	assert_int_equal(ev.kind, HOOK_EVENT_VM);
	assert_int_equal(ev.vm, 0);
}

static void nic_hook(void **state)
{
	struct hook_event ev;

	(void)state;
	ev = read_ev("vm-nic", CALL(P2("45"), "<PARAMETER><POSITION>3</"
					      "POSITION><TYPE>"
					      "IN</"
					      "TYPE><VALUE>NIC=[NAME=\"" FAKE
					      "\"]</VALUE></"
					      "PARAMETER><PARAMETER>"
					      "<POSITION>4</"
					      "POSITION><TYPE>OUT</TYPE>"
					      "<VALUE>" FAKE "</VALUE></"
							     "PARAMETER>"));
	assert_int_equal(ev.kind, HOOK_EVENT_VM);
	assert_int_equal(ev.vm, 45);
	/* a tenant's text that closes the parameter and adds one: still
	 * the second */
	ev = read_ev("vm-nic", CALL(P2("45"), "<PARAMETER><POSITION>3</"
					      "POSITION><TYPE>IN</TYPE><VALUE>"
					      "x</VALUE></PARAMETER>" FAKE));
	assert_int_equal(ev.vm, 45);
}

static void new_and_every_vm(void **state)
{
	(void)state;
	assert_int_equal(read_text("vm-new").kind, HOOK_EVENT_NEW);
	assert_int_equal(read_text("vm-new\n").kind, HOOK_EVENT_NEW);
	assert_int_equal(read_text("").kind, HOOK_EVENT_ALL);
	assert_int_equal(read_text("vm-newer").kind, HOOK_EVENT_ALL);
	assert_int_equal(read_text("vm-moved PFZNPjwvVk0+").kind,
			 HOOK_EVENT_ALL);
}

/* What it cannot read: every VM, never an error. */
static void unreadable_is_every_vm(void **state)
{
	static const char *const bad_state[] = {
		"<HOST><ID>3</ID></HOST>",
		"<VM><ID>3</ID><ID>4</ID></VM>",
		"<VM><ID>-3</ID></VM>",
		"<VM><ID>1234567890</ID></VM>",
		"<VM><ID>0x10</ID></VM>",
		"<VM><NAME>x</NAME></VM>",
		"<VM><ID>3</ID>", /* cut short */
		"<!DOCTYPE VM [<!ENTITY x \"3\">]><VM><ID>&x;</ID></VM>",
	};
	static const char *const bad_call[] = {
		CALL(P2("abc"), ""),
		CALL("<PARAMETER><POSITION>3</POSITION><TYPE>IN</TYPE><VALUE>"
		     "45</VALUE></PARAMETER>",
		     ""),
		CALL("<PARAMETER><POSITION>2</POSITION><TYPE>OUT</TYPE><VALUE>"
		     "45</VALUE></PARAMETER>",
		     ""),
		"<CALL_INFO><RESULT>1</RESULT></CALL_INFO>",
		"<VM><ID>45</ID></VM>",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad_state) / sizeof(*bad_state); i++)
		assert_int_equal(read_ev("vm-state", bad_state[i]).kind,
				 HOOK_EVENT_ALL);
	for (i = 0; i < sizeof(bad_call) / sizeof(*bad_call); i++)
		assert_int_equal(read_ev("vm-nic", bad_call[i]).kind,
				 HOOK_EVENT_ALL);
	assert_int_equal(read_text("vm-state not*base64").kind, HOOK_EVENT_ALL);
	assert_int_equal(read_text("vm-state").kind, HOOK_EVENT_ALL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(state_hook),
		cmocka_unit_test(nic_hook),
		cmocka_unit_test(new_and_every_vm),
		cmocka_unit_test(unreadable_is_every_vm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
