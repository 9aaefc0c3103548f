/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Which VM an event of OpenNebula's hook manager names (design decision
 * 12: an event's run reads only the VMs it changed), from the arguments
 * the hook templates give (templates/hooks/; with ARGUMENTS_STDIN they
 * come on standard input):
 *   vm-state <base64 of the VM's XML>    a VM state hook ($TEMPLATE):
 *                                        <VM><ID>42</ID>... -> VM 42
 *   vm-nic <base64 of the call's XML>    a NIC hot-plug's API hook ($API):
 *       <CALL_INFO><RESULT>1</RESULT><PARAMETERS>
 *       <PARAMETER><POSITION>1</POSITION>...(the session)...</PARAMETER>
 *       <PARAMETER><POSITION>2</POSITION><TYPE>IN</TYPE><VALUE>42</VALUE>
 *       </PARAMETER>... -> VM 42
 *   vm-new                               one.vm.allocate, template
 *                                        instantiate: a VM above every
 *                                        one listed before
 *   anything else, or nothing            every VM (host, network, cluster
 *                                        hooks, a run by hand or cron)
 * The XML goes through the XML gate (core/xml.h). oned does not escape the
 * tenant's template text a call carries (parameter 3 of one.vm.attachnic),
 * so only the call's second PARAMETER is read, which comes before any
 * tenant text: a fake parameter inside or after that text changes nothing.
 * Whatever cannot be read (not base64, not XML, another element, an ID
 * that is no number) is "every VM", never an error: reading more is safe.
 */
#ifndef ONEIB_HOOKEVENT_H
#define ONEIB_HOOKEVENT_H

#include <stddef.h>

enum hook_event_kind {
	HOOK_EVENT_ALL, /* every VM */
	HOOK_EVENT_NEW, /* the VMs made since the last listing */
	HOOK_EVENT_VM, /* that VM (and the VMs made since) */
};

struct hook_event {
	enum hook_event_kind kind;
	int vm; /* HOOK_EVENT_VM */
};

/* The event text ("vm-state PD9...", whitespace anywhere in the base64). */
struct hook_event hook_event_read(const char *text, size_t len);

#endif
