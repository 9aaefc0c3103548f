// SPDX-License-Identifier: Apache-2.0
/*
 * oneib-vf: one SR-IOV InfiniBand VF per IB NIC of a VM, recorded in the
 * host's lease ledger, and the domain XML that hands those VFs to the VM.
 *
 *   oneib-vf deploy --vm 42 --vm-xml <dir>/vm.xml < deployment.0 > new.xml
 *       lease a VF for every NIC with VN_MAD "ib" (the same VF again when
 *       the NIC already holds one) and print the domain XML with those
 *       NICs turned into PCI hostdevs; nothing changes when it fails
 *   oneib-vf release --vm 42        the VM's leases, once no domain holds them
 *       [--nic N | --vm-xml FILE --mac MAC]   only that NIC's
 *       [--domain-gone]   right after the stock shutdown/cancel ended
 *       the VM's domain: libvirt is not asked (deploy stays the gate)
 *   oneib-vf lease --vm 42 --vm-xml FILE [--nic N | --mac MAC] [--reserve]
 *       [--rails 0=3,1=5]
 *       a VF for each InfiniBand NIC (or that one), programmed; with
 *       --reserve set aside for a migration and not programmed; with
 *       --rails each NIC on the rail it had, where this host has it.
 *       Prints "<VF> <hostdev XML>" per NIC, the device virsh
 *       attach-device takes
 *   oneib-vf rails --vm 42
 *       the rail each NIC's lease here is on, "0=3,1=5", for --rails
 *   oneib-vf hostdevs --vm 42 [--nic N | --vm-xml FILE --mac MAC]
 *       [--held | --not-held]   the same lines for the VM's leases, those
 *       its domain holds (with any IB VF it holds without one), or not
 *   oneib-vf list [--format=table|json]
 *   oneib-vf reconcile [--grace 600]
 *       bring the ledger in line with libvirt after crashes; a lease a
 *       live action may still use stays (its VM's domain is here, the
 *       action that took it runs, or less than --grace seconds passed on
 *       the boot clock); --grace 0 is refused
 *
 * FILE: OpenNebula's VM XML or the action data of a driver action; "-" is
 * standard input. --mac names the NIC a hot-plug action is about (the one
 * marked ATTACH="YES" in FILE); a NIC that is not InfiniBand is nothing to
 * list or release (exit 0, nothing printed), and cannot be leased.
 *
 * Common options: --ledger DIR (/var/lib/one/ib), --connect URI (libvirt,
 * default $LIBVIRT_URI as kvmrc sets it, else qemu:///system), --owner PID
 * (the action the leases taken are for: the kvm-ib script that runs
 * oneib-vf; reconcile never takes them while it runs), --rail-map MAP
 * (ONEIB_RAIL_MAP: rails by leaf switch, host/rails.h).
 *
 * A VF is chosen among ACTIVE InfiniBand ports (or the IB_PF/IB_PORT the
 * network pins) whose VFs can get their GUIDs (the port-ready rule of
 * lib/host/hca.h), by lib/host/placement.h: a rail the NIC's siblings on
 * its network do not hold (IB_RAILS), beside the GPU it pairs with
 * (IB_AFFINITY), on the NUMA node of the VM's pinned vCPUs, lowest rail
 * and free VF index first; a VF any libvirt domain holds is never chosen.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/guid.h"
#include "core/json.h"
#include "host/lease.h"
#include "host/leasing.h"
#include "core/command.h"
#include "core/log.h"
#include "host/onexml.h"
#include "host/rails.h"
#include "core/pkey.h"
#include "core/strbuf.h"

#define ERRLEN 512
#define XML_MAX (16 << 20) /* a deployment file is a few kB */

struct ctx {
	struct leasing_cfg cfg;
	const char *vm_xml;
	const char *format;
	const char *mac;
	int vmid;
	int nic_id; /* --nic, -1 when not given */
	bool reserve;
	enum leasing_which which;
	bool domain_gone;
	struct rail_hint *hints; /* --rails */
	size_t nhints;
};

static int cmd_deploy(int argc, char **argv, void *arg)
{
	const struct ctx *c = arg;

	(void)argc;
	(void)argv;
	struct strbuf dom = STRBUF_INIT, vmx = STRBUF_INIT, out = STRBUF_INIT;
	struct one_vm vm = { 0 };
	char err[ERRLEN] = "";
	int r;

	if (c->vmid < 0 || !c->vm_xml) {
		log_msg("deploy needs --vm ID and --vm-xml FILE");
		return 2;
	}
	r = sb_read(&dom, stdin, XML_MAX);
	if (r) {
		log_msg("VM %d: cannot read the domain XML on stdin: %s",
			c->vmid, strerror(-r));
		goto out;
	}
	r = sb_read_file(&vmx, c->vm_xml, XML_MAX);
	if (r) {
		log_msg("VM %d: cannot read %s: %s", c->vmid, c->vm_xml,
			strerror(-r));
		goto out;
	}
	r = onexml_parse_vm(sb_str(&vmx), vmx.len, &vm, err, sizeof(err));
	if (r)
		goto fail;
	if (vm.id != c->vmid) {
		snprintf(err, sizeof(err), "%s describes VM %d, not VM %d",
			 c->vm_xml, vm.id, c->vmid);
		r = -EINVAL;
		goto fail;
	}
	if (vm.n == 0) {
		/* No InfiniBand NIC: the stock deploy gets its XML as is. */
		fwrite(sb_str(&dom), 1, dom.len, stdout);
		goto out;
	}
	r = leasing_deploy(&c->cfg, &vm, sb_str(&dom), dom.len, &out, err,
			   sizeof(err));
	if (r)
		goto fail;
	if (fwrite(sb_str(&out), 1, out.len, stdout) != out.len ||
	    fflush(stdout)) {
		/* The caller releases on failure; the lease is committed. */
		snprintf(err, sizeof(err), "VM %d: cannot write the domain XML",
			 c->vmid);
		r = -EIO;
		goto fail;
	}
	goto out;
fail:
	log_msg("%s", err[0] ? err : strerror(-r));
out:
	one_vm_free(&vm);
	sb_release(&dom);
	sb_release(&vmx);
	sb_release(&out);
	return r ? 1 : 0;
}

/* --vm-xml FILE ("-": standard input) parsed; it must describe VM --vm. */
static int read_vm(const struct ctx *c, struct one_vm *vm, char *err,
		   size_t errlen)
{
	struct strbuf x = STRBUF_INIT;
	bool in = !strcmp(c->vm_xml, "-");
	int r;

	r = in ? sb_read(&x, stdin, XML_MAX)
	       : sb_read_file(&x, c->vm_xml, XML_MAX);
	if (r) {
		snprintf(err, errlen, "VM %d: cannot read %s: %s", c->vmid,
			 in ? "the VM XML on stdin" : c->vm_xml, strerror(-r));
		sb_release(&x);
		return r;
	}
	r = onexml_parse_vm(sb_str(&x), x.len, vm, err, errlen);
	sb_release(&x);
	if (!r && vm->id != c->vmid) {
		snprintf(err, errlen, "%s describes VM %d, not VM %d",
			 in ? "the VM XML on stdin" : c->vm_xml, vm->id,
			 c->vmid);
		one_vm_free(vm);
		r = -EINVAL;
	}
	return r;
}

/* which_nic's answer when --mac names a NIC that is not InfiniBand. */
#define NOT_IB (-2)

/*
 * The NIC the command is about: --nic, the IB NIC --mac names in --vm-xml,
 * or every NIC (LEASING_ALL_NICS); NOT_IB, with the reason in err, when
 * --mac names no InfiniBand NIC. vm stays empty without --mac.
 */
static int which_nic(const struct ctx *c, struct one_vm *vm, int *nic_id,
		     char *err, size_t errlen)
{
	uint64_t mac;
	long i;
	int r;

	*nic_id = c->nic_id >= 0 ? c->nic_id : LEASING_ALL_NICS;
	if (!c->mac)
		return 0;
	if (mac_parse(c->mac, &mac)) {
		snprintf(err, errlen, "--mac: '%s' is not a MAC address",
			 str_sanitize(c->mac).s);
		return -EINVAL;
	}
	r = read_vm(c, vm, err, errlen);
	if (r)
		return r;
	i = onexml_nic_by_mac(vm, mac);
	if (i < 0) {
		char shown[MAC_STRLEN];

		mac_fmt(mac, shown);
		snprintf(err, errlen, "VM %d: no InfiniBand NIC with MAC %s",
			 c->vmid, shown);
		*nic_id = NOT_IB;
		return 0;
	}
	*nic_id = vm->nics[i].nic_id;
	return 0;
}

/* --nic and --mac exclude each other; --mac needs --vm-xml. */
static bool selection_ok(const struct ctx *c, const char *cmd)
{
	if (c->mac && c->nic_id >= 0) {
		log_msg("%s: --nic and --mac exclude each other", cmd);
		return false;
	}
	if (c->mac && !c->vm_xml) {
		log_msg("%s: --mac needs --vm-xml FILE", cmd);
		return false;
	}
	return true;
}

static int cmd_lease(int argc, char **argv, void *arg)
{
	const struct ctx *c = arg;

	(void)argc;
	(void)argv;
	struct strbuf out = STRBUF_INIT;
	struct one_vm vm = { 0 };
	char err[ERRLEN] = "";
	int nic_id, r;

	if (c->vmid < 0 || !c->vm_xml) {
		log_msg("lease needs --vm ID and --vm-xml FILE");
		return 2;
	}
	if (!selection_ok(c, "lease"))
		return 2;
	r = c->mac ? which_nic(c, &vm, &nic_id, err, sizeof(err))
		   : read_vm(c, &vm, err, sizeof(err));
	if (!r && !c->mac)
		nic_id = c->nic_id >= 0 ? c->nic_id : LEASING_ALL_NICS;
	if (!r && nic_id == NOT_IB)
		r = -ENOENT; /* err says which */
	if (!r)
		r = leasing_lease(&c->cfg, &vm, nic_id, c->reserve, c->hints,
				  c->nhints, &out, err, sizeof(err));
	if (!r && (fwrite(sb_str(&out), 1, out.len, stdout) != out.len ||
		   fflush(stdout))) {
		/* Committed: the caller releases on failure. */
		snprintf(err, sizeof(err), "VM %d: cannot write the output",
			 c->vmid);
		r = -EIO;
	}
	if (r)
		log_msg("%s", err[0] ? err : strerror(-r));
	one_vm_free(&vm);
	sb_release(&out);
	return r ? 1 : 0;
}

static int cmd_rails(int argc, char **argv, void *arg)
{
	const struct ctx *c = arg;
	struct strbuf out = STRBUF_INIT;
	char err[ERRLEN] = "";
	int r;

	(void)argc;
	(void)argv;
	if (c->vmid < 0) {
		log_msg("rails needs --vm ID");
		return 2;
	}
	r = leasing_rails(&c->cfg, c->vmid, &out, err, sizeof(err));
	if (!r)
		printf("%s\n", sb_str(&out));
	else
		log_msg("%s", err[0] ? err : strerror(-r));
	sb_release(&out);
	return r ? 1 : 0;
}

static int cmd_hostdevs(int argc, char **argv, void *arg)
{
	const struct ctx *c = arg;
	struct strbuf out = STRBUF_INIT;
	struct one_vm vm = { 0 };
	char err[ERRLEN] = "";
	int nic_id, r;

	(void)argc;
	(void)argv;
	if (c->vmid < 0) {
		log_msg("hostdevs needs --vm ID");
		return 2;
	}
	if (!selection_ok(c, "hostdevs"))
		return 2;
	r = which_nic(c, &vm, &nic_id, err, sizeof(err));
	if (!r && nic_id == NOT_IB) {
		one_vm_free(&vm);
		return 0; /* not InfiniBand: no VF of ours */
	}
	/* the VM's NICs and GPUs, for the VFs beside their GPUs */
	if (!r && !c->mac && c->vm_xml)
		r = read_vm(c, &vm, err, sizeof(err));
	if (!r)
		r = leasing_hostdevs(&c->cfg, c->vmid, nic_id, c->which,
				     c->vm_xml ? &vm : NULL, &out, err,
				     sizeof(err));
	one_vm_free(&vm);
	if (!r)
		fwrite(sb_str(&out), 1, out.len, stdout);
	if (r)
		log_msg("%s", err[0] ? err : strerror(-r));
	sb_release(&out);
	return r ? 1 : 0;
}

static int cmd_release(int argc, char **argv, void *arg)
{
	const struct ctx *c = arg;

	(void)argc;
	(void)argv;
	struct leasing_counts n;
	struct one_vm vm = { 0 };
	char err[ERRLEN] = "";
	int nic_id, r;

	if (c->vmid < 0) {
		log_msg("release needs --vm ID");
		return 2;
	}
	if (!selection_ok(c, "release"))
		return 2;
	r = which_nic(c, &vm, &nic_id, err, sizeof(err));
	one_vm_free(&vm);
	if (r) {
		log_msg("%s", err[0] ? err : strerror(-r));
		return 1;
	}
	if (nic_id == NOT_IB) {
		printf("%s, nothing to release\n", err);
		return 0;
	}
	r = leasing_release_nic(&c->cfg, c->vmid, nic_id, c->domain_gone, &n,
				err, sizeof(err));
	if (r) {
		log_msg("VM %d: %s", c->vmid, err[0] ? err : strerror(-r));
		return 1;
	}
	if (n.released || n.kept)
		printf("VM %d: released %d VF(s)%s\n", c->vmid, n.released,
		       n.kept ? ", kept the ones in use" : "");
	else
		printf("VM %d: no VF leased, nothing to release\n", c->vmid);
	return 0;
}

static int cmd_reconcile(int argc, char **argv, void *arg)
{
	const struct ctx *c = arg;

	(void)argc;
	(void)argv;
	struct strbuf report = STRBUF_INIT;
	struct leasing_counts n;
	struct lease_clock now;
	char err[ERRLEN] = "";
	int r;

	lease_clock_now(&now);
	r = leasing_reconcile(&c->cfg, &now, &report, &n, err, sizeof(err));
	fputs(sb_str(&report), stdout);
	sb_release(&report);
	if (r) {
		log_msg("reconcile: %s", err[0] ? err : strerror(-r));
		return 1;
	}
	printf("reconcile: %d kept, %d released, %d adopted\n", n.kept,
	       n.released, n.adopted);
	return 0;
}

static int cmd_list(int argc, char **argv, void *arg)
{
	const struct ctx *c = arg;

	(void)argc;
	(void)argv;
	char err[ERRLEN] = "", vf[PCI_ADDR_STRLEN], pf[PCI_ADDR_STRLEN];
	char mac[MAC_STRLEN], guid[GUID_STRLEN], pk[PKEY_STRLEN];
	char of[GUID_DESC_LEN];
	struct ledger l = { .lock_fd = -1 };
	bool json = c->format && !strcmp(c->format, "json");
	struct json w;
	size_t i;
	int r;

	if (c->format && !json && strcmp(c->format, "table")) {
		log_msg("unknown format '%s' (table, json)", c->format);
		return 2;
	}
	r = ledger_read(&l, c->cfg.ledger_dir, err, sizeof(err));
	if (r) {
		log_msg("%s", err);
		return 1;
	}
	if (json) {
		json_init(&w, stdout);
		json_obj(&w, NULL);
		json_int(&w, "version", 1);
		json_arr(&w, "leases");
	} else {
		printf("%-13s %-13s %-4s %-6s %-4s %-17s %-18s %-16s %-6s %s\n",
		       "VF", "PF", "PORT", "VM", "NIC", "MAC", "GUID",
		       "GUID OF", "PKEY", "SINCE/DOMAIN");
	}
	for (i = 0; i < l.n; i++) {
		const struct lease *x = &l.v[i];
		bool adopted = x->vmid < 0;

		pci_addr_fmt(&x->vf, vf);
		pci_addr_fmt(&x->pf, pf);
		mac_fmt(x->mac, mac);
		guid_fmt_hex(x->guid, guid);
		guid_describe(x->guid, of);
		pkey_fmt(x->pkey, pk);
		if (json) {
			json_obj(&w, NULL);
			json_str(&w, "vf", vf);
			json_str(&w, "pf", pf);
			json_int(&w, "port", x->port);
			json_int_or_null(&w, "vm", x->vmid);
			json_int_or_null(&w, "nic", x->nic_id);
			json_str_or_null(&w, "mac", adopted ? NULL : mac);
			json_str_or_null(&w, "guid", adopted ? NULL : guid);
			json_str_or_null(&w, "guid_of", adopted ? NULL : of);
			json_str_or_null(&w, "pkey", adopted ? NULL : pk);
			json_int(&w, "since", x->since);
			json_str_or_null(&w, "domain", x->domain);
			json_bool(&w, "reserved", x->reserved);
			json_end(&w);
		} else if (adopted) {
			printf("%-13s %-13s %-4d %-6s %-4s %-17s %-18s %-16s "
			       "%-6s %s\n",
			       vf, pf, x->port, "-", "-", "-", "-", "-", "-",
			       x->domain);
		} else {
			time_t t = (time_t)x->since;
			struct tm tm;
			char when[32] = "?";

			if (gmtime_r(&t, &tm))
				strftime(when, sizeof(when),
					 "%Y-%m-%dT%H:%M:%SZ", &tm);
			printf("%-13s %-13s %-4d %-6d %-4d %-17s %-18s %-16s "
			       "%-6s %s%s\n",
			       vf, pf, x->port, x->vmid, x->nic_id, mac, guid,
			       of, pk, when, x->reserved ? " reserved" : "");
		}
	}
	if (json) {
		json_end(&w);
		json_end(&w);
	}
	ledger_close(&l);
	return 0;
}

static const struct command commands[] = {
	{ "deploy", cmd_deploy, "--vm ID --vm-xml FILE < domain.xml" },
	{ "release", cmd_release,
	  "--vm ID [--nic N | --vm-xml FILE --mac MAC] [--domain-gone]" },
	{ "lease", cmd_lease,
	  "--vm ID --vm-xml FILE [--nic N | --mac MAC] [--reserve]\n"
	  "[--rails NIC=RAIL,...]" },
	{ "rails", cmd_rails, "--vm ID" },
	{ "hostdevs", cmd_hostdevs,
	  "--vm ID [--nic N | --vm-xml FILE --mac MAC] [--held | --not-held]" },
	{ "list", cmd_list, "[--format=table|json]" },
	{ "reconcile", cmd_reconcile, "[--grace SECONDS]" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(*commands))

static const char more[] = "options: --ledger DIR, --connect URI, --pkey-cmd "
			   "COMMAND, --owner PID,\n"
			   "         --rail-map MAP (ONEIB_RAIL_MAP),\n"
			   "         --cloud-id N (0-255, the same on every "
			   "host and the partitions renderer)\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "vm", required_argument, NULL, 'v' },
		{ "vm-xml", required_argument, NULL, 'x' },
		{ "ledger", required_argument, NULL, 'l' },
		{ "connect", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "grace", required_argument, NULL, 'g' },
		{ "pkey-cmd", required_argument, NULL, 'k' },
		{ "cloud-id", required_argument, NULL, 'C' },
		{ "owner", required_argument, NULL, 'O' },
		{ "nic", required_argument, NULL, 'n' },
		{ "mac", required_argument, NULL, 'm' },
		{ "reserve", no_argument, NULL, 'R' },
		{ "held", no_argument, NULL, 'H' },
		{ "not-held", no_argument, NULL, 'N' },
		{ "domain-gone", no_argument, NULL, 'G' },
		{ "rails", required_argument, NULL, 'r' },
		{ "rail-map", required_argument, NULL, 'M' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *uri = getenv("LIBVIRT_URI");
	struct ctx c = {
		.cfg.ledger_dir = "/var/lib/one/ib",
		.cfg.uri = uri && *uri ? uri : "qemu:///system",
		.cfg.grace = 600,
		.vmid = -1,
		.nic_id = -1,
		.which = LEASING_LEASED,
	};
	const char *rails = NULL, *rail_map = NULL;
	struct rail_map map = { 0 };
	const struct command *cmd;
	char err[ERRLEN];
	int o, grace, owner, rc;

	o = command_help(argc, argv, "oneib-vf", commands, NCOMMANDS, more);
	if (o >= 0)
		return o;
	cmd = command_find(commands, NCOMMANDS, argv[1]);
	if (!cmd)
		return 2;
	optind = 2;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'v':
			if (opt_int("--vm", optarg, 0, INT_MAX,
				    "a non-negative number", &c.vmid))
				return 2;
			break;
		case 'n':
			if (opt_int("--nic", optarg, 0, INT_MAX,
				    "a non-negative number", &c.nic_id))
				return 2;
			break;
		case 'g':
			if (opt_int("--grace", optarg, 0, INT_MAX,
				    "a number of seconds", &grace))
				return 2;
			if (grace == 0) {
				/* every lease between its lease and its
				 * domain would be fair game */
				log_msg("--grace 0: a lease needs time to "
					"reach its domain; at least 1 second "
					"(default 600)");
				return 2;
			}
			c.cfg.grace = grace;
			break;
		case 'O':
			if (opt_int("--owner", optarg, 1, INT_MAX,
				    "a process ID", &owner))
				return 2;
			if (proc_id_of(owner, &c.cfg.owner)) {
				log_msg("--owner %d: no such process", owner);
				return 2;
			}
			break;
		case 'm':
			c.mac = optarg;
			break;
		case 'R':
			c.reserve = true;
			break;
		case 'H':
			c.which = LEASING_HELD;
			break;
		case 'N':
			c.which = LEASING_NOT_HELD;
			break;
		case 'x':
			c.vm_xml = optarg;
			break;
		case 'l':
			c.cfg.ledger_dir = optarg;
			break;
		case 'c':
			c.cfg.uri = optarg;
			break;
		case 'f':
			c.format = optarg;
			break;
		case 'k':
			c.cfg.pkey_cmd = optarg;
			break;
		case 'C':
			if (cloud_id_parse(optarg, &c.cfg.cloud_id)) {
				log_msg("--cloud-id: '%s' is not a number "
					"0-255",
					optarg);
				return 2;
			}
			break;
		case 'G':
			c.domain_gone = true;
			break;
		case 'r':
			rails = optarg;
			break;
		case 'M':
			rail_map = optarg;
			break;
		case 'h':
			command_usage(stdout, "oneib-vf", commands, NCOMMANDS,
				      more);
			return 0;
		default:
			command_usage(stderr, "oneib-vf", commands, NCOMMANDS,
				      more);
			return 2;
		}
	}
	if (optind != argc) {
		log_msg("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	/* Parsed after the other options, which may return early. */
	if (rails &&
	    rail_hints_parse(rails, &c.hints, &c.nhints, err, sizeof(err))) {
		log_msg("%s", err);
		return 2;
	}
	if (rail_map && rail_map_parse(rail_map, &map, err, sizeof(err))) {
		log_msg("--rail-map: %s", err);
		free(c.hints);
		return 2;
	}
	c.cfg.rail_map = &map;
	rc = cmd->run(argc, argv, &c);
	free(c.hints);
	rail_map_free(&map);
	return rc;
}
