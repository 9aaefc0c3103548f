/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The answer of oned's XML-RPC API (OpenNebula's one.* calls, what the
 * Ruby CLI reads) to one call, as the front-end hook gets it from curl:
 *
 *   <?xml version="1.0"?><methodResponse><params><param><value><array>
 *   <data><value><boolean>1</boolean></value>
 *   <value><string>&lt;VM_POOL&gt;&lt;VM&gt;...</string></value>
 *   <value><int>0</int></value>...</data></array></value></param></params>
 *   </methodResponse>
 *
 * The first value says whether the call succeeded; the second is the
 * document asked for (a pool listing, tens of megabytes at 10,000 VMs),
 * or the ID a call changed, or, on failure, oned's message. onerpc_string
 * copies that string, unescaped, streamed: the hook hands the pool to the
 * renderer as `onevm list -x` would have printed it, without the Ruby
 * CLI's parse and reprint (seconds at that size).
 *
 * Read as oned (xmlrpc-c) and the XML-RPC specification write it: tags
 * without attributes, whitespace between them, the string as <string> (or
 * <string/>; an ID as <i4> or <int>), its text escaped with &lt; &gt; &amp; &quot; &apos; and
 * character references. A <fault> answer (no such method) is a failure.
 */
#ifndef ONEIB_ONERPC_H
#define ONEIB_ONERPC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/strbuf.h"

/*
 * The request: a method with the session (oneadmin's "user:password", as
 * the CLI sends ONE_AUTH's text) first, then its arguments, as the CLI's
 * client writes them:
 *   <?xml version="1.0"?><methodCall><methodName>one.vm.update</methodName>
 *   <params><param><value><string>oneadmin:s&amp;cr</string></value></param>
 *   <param><value><int>42</int></value></param>...</params></methodCall>
 * Strings are escaped (&amp; &lt; &gt;); a string holding a character XML
 * 1.0 cannot carry (a control character but tab, LF and CR) is refused
 * with -EINVAL, so nothing is ever sent that oned would read otherwise.
 */
enum onerpc_type { ONERPC_INT, ONERPC_BOOL, ONERPC_STRING };
struct onerpc_arg {
	enum onerpc_type type;
	long i; /* INT, BOOL (0 or 1) */
	const char *s; /* STRING, s_len bytes */
	size_t s_len;
};
int onerpc_request(struct strbuf *out, const char *method, const char *session,
		   const struct onerpc_arg *args, size_t n);

/*
 * The string of a successful answer from in to out. 0; -EINVAL with one
 * line in err when the call failed ("oned: " and its message, e.g.
 *   oned: [one.vmpool.infoextended] User couldn't be authenticated, aborting call.
 * ) or the answer is not one (what is wrong, and at which byte); -EIO when
 * reading or writing failed. After an error, out holds a part at most.
 */
int onerpc_string(FILE *in, FILE *out, char *err, size_t errlen);

#endif
