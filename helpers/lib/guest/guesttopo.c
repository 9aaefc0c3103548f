// SPDX-License-Identifier: Apache-2.0
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>

#include "core/guid.h"
#include "core/topomap.h"
#include "guest/guesttopo.h"

int guest_topology(const struct context *c, struct strbuf *out, char *err,
		   size_t errlen)
{
	const char *v = context_get(c, "ONEIB_TOPOLOGY");
	char g[GUID_STRLEN], ip[INET_ADDRSTRLEN];
	struct topo_entry *e = NULL;
	size_t n = 0, i;
	int r;

	if (!v || !*v)
		return -ENOENT; /* "": the front-end took its map back */
	r = topomap_parse(v, &e, &n, err, errlen);
	if (r)
		return r;
	r = sb_adds(out, "# oneib-context: the leaf switch of each VM of this "
			 "virtual cluster\n"
			 "# (ONEIB_TOPOLOGY of the context): IPv4 address, "
			 "leaf "
			 "switch GUID\n");
	for (i = 0; !r && i < n; i++) {
		struct in_addr a = { .s_addr = htonl(e[i].ip) };

		inet_ntop(AF_INET, &a, ip, sizeof(ip));
		guid_fmt_hex(e[i].leaf, g);
		r = sb_addf(out, "%s %s\n", ip, g);
	}
	free(e);
	return r;
}
