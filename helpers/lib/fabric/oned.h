/* SPDX-License-Identifier: Apache-2.0 */
/*
 * oned's XML-RPC API, called as OpenNebula's CLI calls it, for the
 * front-end's run (fabric/sync.h): found as the CLI's client (OCA) finds
 * it, the endpoint
 *   ONE_XMLRPC, else ~/.one/one_endpoint, else /var/lib/one/.one/one_endpoint,
 *   else http://localhost:2633/RPC2
 * and the session, oneadmin's "user:password":
 *   the file ONE_AUTH names (when it is one), else ~/.one/one_auth, else
 *   /var/lib/one/.one/one_auth
 * (trailing blanks and newlines dropped). Each call is one request
 * (fabric/onerpc.h) sent by curl, as a child bounded by the run's timeout
 * (core/child.h), its body, the secret in it, on curl's standard input
 * from a file in the run's private scratch directory: never in argv, the
 * environment, or a file another user can read. curl, not libcurl or
 * xmlrpc-c, because the front-end package already depends on it and no
 * library is added to oneib-partitions for a few calls a run. The answer
 * (tens of megabytes for a pool at 10,000 VMs) goes to a scratch file,
 * and its document is copied out of it, unescaped, streamed
 * (onerpc_string).
 *
 * A failed call is one line naming it (the caller's name for it), e.g.
 *   one.vmpool.infoextended failed (exit 7): curl: (7) Failed to connect to localhost port 2633 after 0 ms: Couldn't connect to server
 *   one.vmpool.infoextended failed: oned: [one.vmpool.infoextended] User couldn't be authenticated, aborting call.
 *   one.hostpool.info timed out after 300 s: no error output
 */
#ifndef ONEIB_ONED_H
#define ONEIB_ONED_H

#include <limits.h>
#include <stddef.h>
#include <stdio.h>

#include "core/scratch.h"
#include "fabric/onerpc.h"

/* Where the CLI would look, as main reads it from the environment. */
struct oned_where {
	const char *one_xmlrpc; /* ONE_XMLRPC, or NULL */
	const char *one_auth; /* ONE_AUTH, or NULL */
	const char *home; /* HOME, or NULL */
	const char *var; /* "/var/lib/one": oneadmin's home */
};

struct oned {
	char endpoint[1024];
	char *session; /* malloc'd */
	char auth_file[PATH_MAX]; /* where the session was read */
	unsigned timeout; /* seconds each call may take, > 0 */
	const struct scratch *tmp;
	const char *curl; /* "curl" */
};

/*
 * Finds oned and reads the session. 0, or -errno with one line in err:
 *   no ONE_AUTH file (ONE_AUTH, ~/.one/one_auth): the secret oned's calls need
 *   cannot read /var/lib/one/.one/one_auth: Permission denied
 */
int oned_locate(struct oned *o, const struct oned_where *w, unsigned timeout,
		const struct scratch *tmp, char *err, size_t errlen);
/* The session wiped and freed; safe twice. */
void oned_free(struct oned *o);

/*
 * METHOD with the session and args; the document its answer carries (a
 * listing, an ID) written to out. name names the call in err ("one.vm.update
 * 42"). 0, or -EINVAL (oned refused, or its answer is not one), -EIO,
 * -ETIMEDOUT, -ENOMEM with one line in err.
 */
int oned_call(const struct oned *o, const char *name, const char *method,
	      const struct onerpc_arg *args, size_t n, FILE *out, char *err,
	      size_t errlen);

#endif
