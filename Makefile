# one-ib: SR-IOV InfiniBand for OpenNebula KVM clouds.
#
#   make            build every helper into build/bin
#   make check      unit tests (plain and ASan+UBSan), fuzzers, cppcheck,
#                   shellcheck, e2e tests (side by side), the Debian packages,
#                   and one-ib under the real OpenNebula 6.10.0 and 7.0.0
#                   front-ends (tests/one) when ../shared/third-party has
#                   their sources (built once per machine, outside the tree)
#   make demo       the simulated cloud, end to end
#   make bench      speed and memory figures
#   make stress     the randomized life cycle, long (STRESS_SEED, STRESS_SECONDS)
#   make fuzz       every fuzzer, long (FUZZ_SECONDS each, 300; check: 5)
#   make install    DESTDIR, REMOTES_DIR, PREFIX honoured (drivers/files.list)
#   make install-guest  oneib-context and its hooks, for guest images (DESTDIR)
#   make deb        Debian packages one-ib-{frontend,node,sm,guest} into build/deb
#   make deps       install the Debian packages the above need (root)

PREFIX      ?= /usr
REMOTES_DIR ?= /var/lib/one/remotes
DATADIR     ?= $(PREFIX)/share/one-ib
SBINDIR     ?= $(PREFIX)/sbin
UDEVDIR     ?= /usr/lib/udev
UNITDIR     ?= /usr/lib/systemd/system
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
DESTDIR     ?=
ROLES       ?= frontend node sm doc

CC      ?= cc
PKGS    := libvirt libxml-2.0 libpci libibumad
# libvirt is compiled against but not linked: virt.c loads it when a scan
# needs it (linking it costs every run ~12 ms before main).
LINK_PKGS := libxml-2.0 libpci libibumad
CFLAGS  ?= -O2 -g
XCFLAGS := -std=c11 -D_GNU_SOURCE -Ihelpers/lib -Wall -Wextra -Werror -Wshadow -Wformat=2 \
           -Wno-format-nonliteral -fstack-protector-strong -D_FORTIFY_SOURCE=2
SANFLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer \
            -fno-sanitize-recover=all

# The real OpenNebula front-end of the tests (tests/lib/one-build.sh, one.sh;
# ../shared/docs/reference/real-opennebula.md): what building OpenNebula
# 6.10/7.0 from source needs, and what its packages would pull in to run
# it: the Ruby gems of the CLI, drivers and hook manager (all from Debian),
# rsync (every host monitoring starts with rsync of the remotes), pciutils
# (the pci probe), qemu-utils (qemu-img), genisoimage (the context CD),
# ssh (oned reaches the hosts as oneadmin), git (an older one-ib for the
# upgrade test), xz-utils (the sources).
ONE_BUILD_PKGS := scons g++ libxmlrpc-c++8-dev libxmlrpc-core-c3-dev \
            libcurl4-openssl-dev libsqlite3-dev libssl-dev zlib1g-dev xz-utils git
ONE_RUN_PKGS := ruby ruby-xmlrpc ruby-nokogiri ruby-treetop ruby-parse-cron \
            ruby-ffi-rzmq libzmq5 ruby-sqlite3 rsync pciutils qemu-utils \
            genisoimage openssh-server openssh-client

# Debian 12 packages: build, tests, and the simulated cloud's real parts;
# gdb: a test that times out shows where its libvirtds wait (test-lib.sh);
# linux-image-amd64, busybox-static and cpio: the guest booted under QEMU
# to read its own PCIe tree (tests/lib/guestboot.sh).
# faketime: a hook run with its clock ahead (t0416).
DEB_PKGS := gdb gcc make pkg-config libc6-dev libvirt-dev libxml2-dev libpci-dev \
            pci.ids libibumad-dev libibverbs-dev libcmocka-dev cppcheck \
            valgrind jq libvirt-daemon libvirt-clients opensm ibsim-utils \
            libumad2sim0 infiniband-diags iproute2 util-linux procps sudo \
            libvirt-daemon-driver-qemu qemu-system-x86 clang libclang-rt-14-dev \
            strace shellcheck debhelper dpkg-dev fakeroot lintian mmdebstrap \
            libxml2-utils curl python3 faketime linux-image-amd64 busybox-static cpio \
            $(ONE_BUILD_PKGS) $(ONE_RUN_PKGS)

B       := build
TOOLS   := oneib-discover oneib-vf oneib-vnet oneib-pkey oneib-peer \
           oneib-partitions oneib-partitions-install oneib-context
UNIT    := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
FUZZ    := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))

pkg_cflags = $(shell pkg-config --cflags $(PKGS))
pkg_libs   = $(shell pkg-config --libs $(LINK_PKGS))
# The sanitized tools keep libvirt linked: ASan's XDR interceptors look up
# libtirpc's functions once, at startup, and a libvirt dlopen'ed later
# would call through NULL (virt.c's dlopen then finds it loaded).
san_libs   = -Wl,--no-as-needed $(shell pkg-config --libs libvirt) -Wl,--as-needed
GUEST_LIBS := -libverbs -libumad

# What each tool may link: the library folders (an archive before those it
# uses) and the shared libraries it needs, and why. A tool whose code
# reaches further does not link; tests/house-rules.sh (make check) names
# the include or the library that broke the rule (design decision 14).
#   oneib-pkey               root: libc only. sysfs, rtnetlink and the
#                            parsers of its arguments (design decision 6)
#   oneib-partitions-install root: libc only. opensm's grammar, an atomic
#                            file, a signal or a child (design decision 6)
#   oneib-peer               root, read only: libc, libibumad (the two
#                            SMPs it sends one hop out of a port; umad
#                            is root's only). Not in oneib-pkey, which
#                            stays libc only (design decision 6)
#   oneib-context            guest: libc, libibverbs (the VF's own P_Key
#                            table), libibumad (the SA's answer of the SL
#                            of its partition, from the VF's own port),
#                            what a guest image with rdma-core has
#   oneib-vf                 host: libxml2 (VM and domain XML), libibumad
#                            (hca_discover, for the VFs a domain holds);
#                            libvirt is dlopen'ed when a command asks it
#   oneib-discover           host: libibumad (ports, P_Keys, GIDs), libpci
#                            (pci.ids names for the table and JSON)
#   oneib-partitions         fabric: libxml2 (the pool listings), libibumad
#                            (verify's directed-route SMPs)
#   oneib-vnet               fabric: libxml2 (the VNET and its pool);
#                            root's partitions grammar (the static file's
#                            reserved keys, read as the renderer reads them)
# Unit tests and fuzzers link every folder and every library.
ROOMS := core host root fabric guest
rooms_oneib-pkey               := root core
rooms_oneib-partitions-install := root core
rooms_oneib-peer               := root core
rooms_oneib-context            := guest core
rooms_oneib-vf                 := host root core
rooms_oneib-discover           := host root core
rooms_oneib-partitions         := fabric root core
rooms_oneib-vnet               := fabric root core
ALL_ROOMS                      := fabric host guest root core
libs_oneib-context        = $(GUEST_LIBS)
libs_oneib-peer           = $(shell pkg-config --libs libibumad)
libs_oneib-vf             = $(shell pkg-config --libs libxml-2.0 libibumad)
libs_oneib-discover       = $(shell pkg-config --libs libpci libibumad)
libs_oneib-partitions     = $(shell pkg-config --libs libxml-2.0 libibumad)
libs_oneib-vnet           = $(shell pkg-config --libs libxml-2.0)
san_libs_oneib-vf         = $(san_libs)
san_libs_oneib-discover   = $(san_libs)
san_libs_oneib-partitions = $(san_libs)
san_libs_oneib-vnet       = $(san_libs)
# build/<flavour>/lib/lib<room>.a of a list of rooms
archives = $(addprefix $(1)/lib/lib,$(addsuffix .a,$(2)))

.PHONY: all deps check demo bench stress fuzz install install-guest uninstall clean format \
        one-apps deb _check _check-build unit-build asan-build fuzz-build cppcheck shellcheck \
        house-rules docs

all: $(addprefix $(B)/bin/,$(TOOLS))

deps:
	@missing=$$(for p in $(DEB_PKGS); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q '^install ok installed' || echo $$p; done); \
	if [ -z "$$missing" ]; then exit 0; fi; \
	cmd="apt-get install -y --no-install-recommends $$(echo $$missing)"; \
	if [ "$$(id -u)" != 0 ]; then \
		echo "make deps: missing Debian packages; as root run: apt-get update && $$cmd" >&2; \
		exit 1; \
	fi; \
	echo "make deps: apt-get update && $$cmd"; \
	DEBIAN_FRONTEND=noninteractive apt-get update -q && \
	DEBIAN_FRONTEND=noninteractive $$cmd

# --- build -------------------------------------------------------------------
# The library is compiled once per flavour (plain, ASan+UBSan, fuzz) into
# one archive per folder; every tool links the folders it may use (above),
# every unit test and fuzzer all of them; -MMD tracks headers.

LIB_OBJ    = $(patsubst helpers/%.c,$(1)/obj/%.o,$(wildcard helpers/lib/$(2)/*.c))
FUZZFLAGS := -std=c11 -D_GNU_SOURCE -Ihelpers/lib -Wall -Wextra -Werror -Wshadow -g -O1 \
             -fsanitize=fuzzer-no-link,address,undefined

$(B)/obj/%.o: helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) $(pkg_cflags) -MMD -MP -c -o $@ $<

$(B)/asan/obj/%.o: helpers/%.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(SANFLAGS) $(pkg_cflags) -MMD -MP -c -o $@ $<

$(B)/fuzz/obj/%.o: helpers/%.c
	@mkdir -p $(dir $@)
	clang $(FUZZFLAGS) $(pkg_cflags) -MMD -MP -c -o $@ $<

define room_archives
$(B)/lib/lib$(1).a: $(call LIB_OBJ,$(B),$(1))
$(B)/asan/lib/lib$(1).a: $(call LIB_OBJ,$(B)/asan,$(1))
$(B)/fuzz/lib/lib$(1).a: $(call LIB_OBJ,$(B)/fuzz,$(1))
endef
$(foreach r,$(ROOMS),$(eval $(call room_archives,$(r))))

$(B)/lib/lib%.a:
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/asan/lib/lib%.a:
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/fuzz/lib/lib%.a:
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

.SECONDEXPANSION:
$(B)/bin/%: $(B)/obj/%.o $$(call archives,$(B),$$(rooms_$$*))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(libs_$*)

$(B)/asan/bin/%: $(B)/asan/obj/%.o $$(call archives,$(B)/asan,$$(rooms_$$*))
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(libs_$*) $(san_libs_$*)

# Unit tests: one cmocka binary per tests/unit/test_*.c, plain and sanitized.
$(B)/obj/tests/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) $(pkg_cflags) -MMD -MP -c -o $@ $<

$(B)/tests/%: $(B)/obj/tests/%.o $(call archives,$(B),$(ALL_ROOMS))
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(pkg_libs) $(GUEST_LIBS) -lcmocka

$(B)/asan/obj/tests/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(SANFLAGS) $(pkg_cflags) -MMD -MP -c -o $@ $<

$(B)/asan/tests/%: $(B)/asan/obj/tests/%.o $(call archives,$(B)/asan,$(ALL_ROOMS))
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(pkg_libs) $(GUEST_LIBS) -lcmocka

# libFuzzer targets for every parser that sees untrusted text (clang only).
$(B)/fuzz/obj/tests/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	clang $(FUZZFLAGS) $(pkg_cflags) -MMD -MP -c -o $@ $<

$(B)/fuzz/%: $(B)/fuzz/obj/tests/%.o $(call archives,$(B)/fuzz,$(ALL_ROOMS))
	@mkdir -p $(dir $@)
	clang -g -fsanitize=fuzzer,address,undefined $(LDFLAGS) -o $@ $^ \
		$(pkg_libs) $(GUEST_LIBS)

-include $(wildcard $(B)/obj/*.d $(B)/obj/*/*.d $(B)/obj/*/*/*.d \
	$(B)/asan/obj/*.d $(B)/asan/obj/*/*.d $(B)/asan/obj/*/*/*.d \
	$(B)/fuzz/obj/*/*.d $(B)/fuzz/obj/*/*/*.d)

unit-build: $(addprefix $(B)/tests/,$(UNIT))
fuzz-build: $(addprefix $(B)/fuzz/,$(FUZZ))
asan-build: $(addprefix $(B)/asan/tests/,$(UNIT)) $(addprefix $(B)/asan/bin/,$(TOOLS))

# --- install -----------------------------------------------------------------

# Where each file goes is drivers/files.list, read by install.sh and by the
# Debian packages alike. Everything under REMOTES_DIR is copied to every host
# by `onehost sync` (rsync -L: symlinks arrive as files), so the helpers the
# drivers run live inside it.
INSTALL_DIRS = --destdir "$(DESTDIR)" --remotes "$(REMOTES_DIR)" \
	--datadir "$(DATADIR)" --sbindir "$(SBINDIR)" --bindir "$(BINDIR)" \
	--udevdir "$(UDEVDIR)" --unitdir "$(UNITDIR)" --mandir "$(MANDIR)" \
	--build $(B)/bin
INSTALL_ARGS = $(foreach r,$(ROLES),--role $(r)) $(INSTALL_DIRS)

install: all
	sh drivers/install.sh $(INSTALL_ARGS)

# Inside a guest image (no OpenNebula there): the binary, one-context's hook,
# the udev rule and the unit it starts (role guest of drivers/files.list).
# See one-ib-guest(7).
install-guest: $(B)/bin/oneib-context
	sh drivers/install.sh --role guest $(INSTALL_DIRS)

uninstall:
	sh drivers/install.sh --uninstall $(INSTALL_ARGS)

# Debian packages, built from a copy of the tree (dpkg-buildpackage writes
# next to its source directory and cleans it), with Debian's build flags.
deb:
	rm -rf $(B)/deb && mkdir -p $(B)/deb/src
	tar --exclude=./build --exclude=./.git -cf - . | tar -C $(B)/deb/src -xf -
	cd $(B)/deb/src && dpkg-buildpackage -us -uc -b -j$$(nproc) >../build.log 2>&1 || \
		{ tail -n 40 ../build.log >&2; exit 1; }
	lintian --fail-on error,warning $(B)/deb/*.changes >$(B)/deb/lintian.log 2>&1 || \
		{ grep -v '^running with root' $(B)/deb/lintian.log >&2; exit 1; }

# --- tests -------------------------------------------------------------------

# make check times its setup (the Debian packages, then the build) into
# $(B)/check-phases, which tests/run.sh prints with the rest of where the
# time went.
check:
	@mkdir -p $(B) && t=$$(date +%s) && \
	$(MAKE) --no-print-directory deps && \
	echo "deps $$(($$(date +%s) - t))" >$(B)/check-phases && t=$$(date +%s) && \
	$(MAKE) --no-print-directory -j$$(nproc) _check-build && \
	echo "build $$(($$(date +%s) - t))" >>$(B)/check-phases && \
	ONEIB_CHECK_PHASES=$(B)/check-phases bash tests/run.sh

_check-build: all unit-build asan-build fuzz-build deb
	rm -rf $(B)/destdir
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(B)/destdir
	$(MAKE) --no-print-directory install-guest DESTDIR=$(CURDIR)/$(B)/destdir

_check: _check-build
	bash tests/run.sh

# one-apps' one-context at the pinned tag, for t0508 where
# ../shared/third-party/one-apps-7.0.0.tar.xz is absent (needs git and the
# network; never part of check; then ONEIB_ONE_APPS=build/one-apps).
ONE_APPS_TAG := v7.0.0
one-apps:
	rm -rf $(B)/one-apps
	git clone --quiet --depth 1 --branch $(ONE_APPS_TAG) \
		https://github.com/OpenNebula/one-apps $(B)/one-apps

# Every shell script we ship or test with (sh and bash shebangs).
SHELL_SCRIPTS = $(sort $(shell grep -rlE '^\#!(/usr)?/bin/(env )?(ba)?sh' drivers remotes \
	guest tests debian .ci 2>/dev/null | grep -v '\.md$$') $(wildcard tests/lib/*.sh) \
	remotes/vmm/kvm-ib/oneib.sh remotes/ib/helpers.sh)

shellcheck:
	bash tests/shellcheck.sh $(SHELL_SCRIPTS)

# The house rules (design decision 14): guest/ and root/ include only
# core/ (fabric/ also root's partitions grammar), and every tool needs only
# the shared libraries it may (the table above).
house-rules: all
	bash tests/house-rules.sh --src helpers --bin $(B)/bin

# The pages against the code (tests/docs.sh): one-ib.conf(5) names every
# setting the code reads and no other, every page a message names exists
# and ships, no message quotes INSTALL by section, every message of
# one-ib-troubleshooting(7) is the code's, every page renders clean.
docs:
	bash tests/docs.sh

cppcheck:
	cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,style,performance,portability \
		--inline-suppr --suppress=missingIncludeSystem -I helpers/lib helpers

demo: deps
	@$(MAKE) --no-print-directory all
	rm -rf $(B)/destdir
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(B)/destdir
	@$(MAKE) --no-print-directory install-guest DESTDIR=$(CURDIR)/$(B)/destdir
	sh tests/demo.sh

# Every fuzzer for FUZZ_SECONDS (make check runs each for 5 s: a smoke
# test of the parsers, not a hunt).
fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	FUZZ_SECONDS=$${FUZZ_SECONDS:-300} bash tests/run.sh fuzz_

# The randomized life cycle on two simulated hosts (tests/lib/stress.sh),
# long: every step, kill, refusal and violation printed, then the counts.
# make check runs the same for about a minute (t0620, seed 1).
STRESS_SEED    ?= 1
STRESS_SECONDS ?= 600
stress: deps
	@$(MAKE) --no-print-directory all
	STRESS_SEED=$(STRESS_SEED) STRESS_SECONDS=$(STRESS_SECONDS) STRESS_STEPS=1 \
		bash tests/e2e/t0620-lifecycle-stress.sh

$(B)/bench/runstat: tests/bench/runstat.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) -o $@ $<

# The SL plan's own time (b41): the fabric model without the XML around it.
$(B)/bench/slplanbench: tests/bench/slplanbench.c $(call archives,$(B),fabric root core)
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) $(pkg_cflags) -o $@ $^ $(libs_oneib-partitions)

# The placement decision's own time (b21): 8 GPUs x 8 NICs, 8 x 127 VFs.
$(B)/bench/placebench: tests/bench/placebench.c $(call archives,$(B),host root core)
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) $(pkg_cflags) -o $@ $^ $(libs_oneib-vf)

# The front-end run's steps one at a time (b42, b43, the demo).
$(B)/bench/poolbench: tests/bench/poolbench.c $(call archives,$(B),fabric root core)
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) $(pkg_cflags) -o $@ $^ $(libs_oneib-partitions)

bench: deps
	@$(MAKE) --no-print-directory all $(B)/bench/runstat $(B)/bench/slplanbench \
		$(B)/bench/placebench $(B)/bench/poolbench
	rm -rf $(B)/destdir
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(B)/destdir
	sh tests/bench/run.sh

format:
	clang-format -i helpers/*.c helpers/lib/*/*.[ch] tests/unit/*.c tests/bench/*.c

clean:
	rm -rf $(B)
.SECONDARY:
