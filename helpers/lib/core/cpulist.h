/* SPDX-License-Identifier: Apache-2.0 */
/*
 * CPU lists, the kernel's and libvirt's text for a set of host CPUs, as a
 * bitmap: bit c of bits[c / 64] is CPU c. Read from a domain's <vcpupin
 * cpuset='...'>, a NUMA node's cpulist in sysfs and an OpenNebula VM's
 * NUMA_NODE/CPUS ("0,1,2,3").
 */
#ifndef ONEIB_CPULIST_H
#define ONEIB_CPULIST_H

#include <stdbool.h>
#include <stdint.h>

#define CPULIST_MAX 1024
#define CPULIST_WORDS (CPULIST_MAX / 64)

/*
 * The kernel's and libvirt's CPU list: "0-3,8,10-11" (also
 * /sys/devices/system/node/node0/cpulist, without its '\n'). With
 * allow_excl, "^N" removes N from what the items before it set, as libvirt
 * reads "0-7,^3". Blanks around items are allowed; "" is the empty set (a
 * node without CPUs). -EINVAL on anything else, -ERANGE for a CPU >= 1024;
 * bits is written only on success.
 */
int cpulist_parse(const char *s, uint64_t bits[CPULIST_WORDS], bool allow_excl);

#endif
