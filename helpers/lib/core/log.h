/* SPDX-License-Identifier: Apache-2.0 */
/*
 * One-line diagnostics on stderr, prefixed with the program name:
 *   oneib-discover: /sys/bus/pci/devices/0000:3b:00.0/numa_node: not a number: 'garbage'
 * Only main() decides the exit status; these functions never exit.
 */
#ifndef ONEIB_LOG_H
#define ONEIB_LOG_H

#include <stddef.h>

#if defined(__GNUC__)
#define ONEIB_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define ONEIB_PRINTF(a, b)
#endif

void log_msg(const char *fmt, ...) ONEIB_PRINTF(1, 2);

/*
 * One line into a caller's error buffer (the "char *err, size_t errlen"
 * pair of the lib's functions); a longer one is cut, never split. NULL or
 * zero-length buffers are allowed.
 */
void err_set(char *err, size_t errlen, const char *fmt, ...) ONEIB_PRINTF(3, 4);

/*
 * "0".."2147483647", decimal digits only (no sign, blank or 0x): OpenNebula
 * IDs and numbers in its XML. -EINVAL, or -ERANGE past INT_MAX.
 */
int dec_parse_int(const char *s, int *out);

/*
 * A main's numeric option: ARG in dec_parse_int's form and LO..HI, into
 * *out. Otherwise *out is left alone, one line names the option, the value
 * and WHAT it must be (the range too, unless HI is INT_MAX):
 *   oneib-context: --wait '-1': not a number of seconds (0-3600)
 * and the result is -EINVAL.
 */
int opt_int(const char *opt, const char *arg, int lo, int hi, const char *what,
	    int *out);

/* "0".."9", "a".."f", "A".."F" -> 0..15; anything else -> -1 */
int hex_digit(char c);

/*
 * A value quoted in an error line: bytes outside printable ASCII become '?'
 * and the copy is cut at 64 characters (marked "..."), so "x'\n<VM>" cannot
 * start a second line or flood the log. Returned by value, to be used inside
 * the call that prints it:
 *   errf(err, len, "malformed MAC '%s'", str_sanitize(v).s);
 */
#define SANITIZE_MAX 68
struct san_str {
	char s[SANITIZE_MAX];
};
struct san_str str_sanitize(const char *in);

#endif
