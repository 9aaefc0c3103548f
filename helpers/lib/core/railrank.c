// SPDX-License-Identifier: Apache-2.0
#include <limits.h>

#include "core/railrank.h"

#define RANK_KEYS 7

/* A candidate's rank, compared key by key, lower first (railrank.h). */
static void rank_of(const struct rail_cand *c, long k[RANK_KEYS])
{
	k[0] = c->hinted ? 0 : 1;
	k[1] = c->siblings;
	k[2] = c->near;
	k[3] = -c->shared;
	k[4] = c->off_node;
	k[5] = c->rail >= 0 ? 0 : 1;
	k[6] = c->rail >= 0 ? c->rail : 0;
}

static int rank_cmp(const long a[RANK_KEYS], const long b[RANK_KEYS])
{
	int i;

	for (i = 0; i < RANK_KEYS; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

enum pci_near rail_beside(const struct rail_cand *c, size_t n)
{
	enum pci_near best = PCI_NEAR_NONE;
	int fewest = INT_MAX;
	size_t i;

	for (i = 0; i < n; i++)
		if (c[i].siblings < fewest)
			fewest = c[i].siblings;
	for (i = 0; i < n; i++)
		if (c[i].siblings == fewest && c[i].near < best)
			best = c[i].near;
	return best;
}

long rail_choose(const struct rail_cand *c, size_t n, bool required,
		 enum pci_near want)
{
	long best = -1, kb[RANK_KEYS], k[RANK_KEYS];
	size_t i;

	for (i = 0; i < n; i++) {
		if (!c[i].has_free || (required && c[i].near > want))
			continue;
		rank_of(&c[i], k);
		if (best >= 0 && rank_cmp(k, kb) >= 0)
			continue;
		best = (long)i;
		rank_of(&c[i], kb);
	}
	return best;
}

int rail_pair(size_t k, size_t n, size_t g)
{
	if (!g || !n || k >= n)
		return -1;
	return (int)(k * g / n);
}
