/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What `verify` needs of opensm's own configuration file (opensm -F FILE,
 * by default /etc/opensm/opensm.conf), read as opensm reads it
 * (osm_subnet.c, osm_subn_parse_conf_file): "name value" lines, the value
 * the first word after the name, '#' lines comments, a later line over an
 * earlier one, names it does not know ignored:
 *
 *   qos TRUE                      -> .qos = true: opensm honours each
 *                                    partition's sl=; anything but "TRUE"
 *                                    is FALSE, and then it gives every
 *                                    path SL 0 (osm_prtn_config.c)
 *   m_key 0x00000000deadbeef      -> .m_key, the one M_Key opensm sets on
 *                                    every port (0: none)
 *   m_key_protection_level 2      -> 0..3 (more is read as 2)
 *   m_key_lease_period 60         -> seconds
 *   allow_both_pkeys TRUE         -> .allow_both_pkeys: a member "both"
 *                                    holds the key full and limited; else
 *                                    full only (read at opensm's start only)
 *   virt_enabled 2                -> NVIDIA's opensm manages virtual ports
 *                                    (ConnectX-4+ VFs); upstream has no
 *                                    such option
 *   qos_policy_file /etc/opensm/qos-policy.conf
 *                                 -> .policy_file (that is the default):
 *                                    read at opensm's start only, its
 *                                    contents at every heavy sweep
 *
 * A name left out keeps opensm's default when it starts; a running opensm
 * re-reads the file at SIGHUP but takes a value only when it changed, so a
 * line removed leaves the old value in force: the SA's answers are the
 * truth, the file says what it should be.
 */
#ifndef ONEIB_OSMCONF_H
#define ONEIB_OSMCONF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OSMCONF_DEFAULT "/etc/opensm/opensm.conf"
#define OSMCONF_POLICY_DEFAULT "/etc/opensm/qos-policy.conf"
#define OSMCONF_PATH_MAX 256

struct osm_conf {
	bool found; /* the file was there (else opensm's defaults) */
	bool qos;
	bool allow_both_pkeys;
	uint64_t m_key;
	int m_key_protection; /* 0..3 */
	unsigned m_key_lease; /* seconds */
	int virt_enabled; /* -1: not given */
	char policy_file[OSMCONF_PATH_MAX]; /* qos_policy_file */
};

/* The text of the file into *out (opensm's defaults where it says
 * nothing). 0, or -EINVAL with "line N: m_key 'x' is not a number". */
int osmconf_parse(const char *text, size_t len, struct osm_conf *out, char *err,
		  size_t errlen);

/* The file at path: a missing file is opensm's defaults (found false). */
int osmconf_read(const char *path, struct osm_conf *out, char *err,
		 size_t errlen);

#endif
