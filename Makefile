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
ROLES       ?= frontend node sm

CC      ?= cc
PKGS    := libvirt libxml-2.0 libpci libibumad
# libvirt is compiled against but not linked: virt.c loads it when a scan
# needs it (linking it costs every run ~12 ms before main).
LINK_PKGS := libxml-2.0 libpci libibumad
CFLAGS  ?= -O2 -g
XCFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -Wformat=2 \
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

# Debian 12 packages: build, tests, and the simulated cloud's real parts.
DEB_PKGS := gcc make pkg-config libc6-dev libvirt-dev libxml2-dev libpci-dev \
            pci.ids libibumad-dev libibverbs-dev libcmocka-dev cppcheck \
            valgrind jq libvirt-daemon libvirt-clients opensm ibsim-utils \
            libumad2sim0 infiniband-diags iproute2 util-linux procps sudo \
            libvirt-daemon-driver-qemu qemu-system-x86 clang libclang-rt-14-dev \
            strace shellcheck debhelper dpkg-dev fakeroot lintian mmdebstrap \
            libxml2-utils \
            $(ONE_BUILD_PKGS) $(ONE_RUN_PKGS)

B       := build
LIB_SRC := $(wildcard helpers/lib/*.c)
TOOLS   := oneib-discover oneib-vf oneib-vnet oneib-pkey oneib-partitions \
           oneib-partitions-install oneib-context
UNIT    := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
FUZZ    := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))

pkg_cflags = $(shell pkg-config --cflags $(PKGS))
pkg_libs   = $(shell pkg-config --libs $(LINK_PKGS))
# The sanitized tools keep libvirt linked: ASan's XDR interceptors look up
# libtirpc's functions once, at startup, and a libvirt dlopen'ed later
# would call through NULL (virt.c's dlopen then finds it loaded).
san_libs   = -Wl,--no-as-needed $(shell pkg-config --libs libvirt) -Wl,--as-needed
# The guest's oneib-context links only what a guest image has: libc and
# libibverbs (its objects in liboneib.a use nothing else; t0500 checks).
GUEST_LIBS := -libverbs

.PHONY: all deps check demo bench install install-guest uninstall clean format \
        one-apps deb _check unit-build asan-build fuzz-build cppcheck shellcheck

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
# The library is compiled once per flavour (plain, ASan+UBSan, fuzz) and
# every tool, unit test and fuzzer links against it; -MMD tracks headers.

OBJ_PLAIN := $(patsubst helpers/%.c,$(B)/obj/%.o,$(LIB_SRC))
OBJ_ASAN  := $(patsubst helpers/%.c,$(B)/asan/obj/%.o,$(LIB_SRC))
OBJ_FUZZ  := $(patsubst helpers/%.c,$(B)/fuzz/obj/%.o,$(LIB_SRC))
FUZZFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -Wshadow -g -O1 \
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

$(B)/lib/liboneib.a: $(OBJ_PLAIN)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/asan/lib/liboneib.a: $(OBJ_ASAN)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/fuzz/lib/liboneib.a: $(OBJ_FUZZ)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/bin/oneib-context: $(B)/obj/oneib-context.o $(B)/lib/liboneib.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(GUEST_LIBS)

$(B)/bin/%: $(B)/obj/%.o $(B)/lib/liboneib.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(pkg_libs)

$(B)/asan/bin/oneib-context: $(B)/asan/obj/oneib-context.o $(B)/asan/lib/liboneib.a
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(GUEST_LIBS)

$(B)/asan/bin/%: $(B)/asan/obj/%.o $(B)/asan/lib/liboneib.a
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(pkg_libs) $(san_libs)

# The root installer of partitions.conf links none of libxml2, libvirt,
# libpci, libibumad: what it needs of the library only uses libc, and the
# link fails the day it does not (design decision 6).
$(B)/bin/oneib-partitions-install: $(B)/obj/oneib-partitions-install.o $(B)/lib/liboneib.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

$(B)/asan/bin/oneib-partitions-install: $(B)/asan/obj/oneib-partitions-install.o $(B)/asan/lib/liboneib.a
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^

# Unit tests: one cmocka binary per tests/unit/test_*.c, plain and sanitized.
$(B)/obj/tests/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) $(pkg_cflags) -Ihelpers -MMD -MP -c -o $@ $<

$(B)/tests/%: $(B)/obj/tests/%.o $(B)/lib/liboneib.a
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(pkg_libs) $(GUEST_LIBS) -lcmocka

$(B)/asan/obj/tests/%.o: tests/unit/%.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(SANFLAGS) $(pkg_cflags) -Ihelpers -MMD -MP -c -o $@ $<

$(B)/asan/tests/%: $(B)/asan/obj/tests/%.o $(B)/asan/lib/liboneib.a
	@mkdir -p $(dir $@)
	$(CC) $(SANFLAGS) $(LDFLAGS) -o $@ $^ $(pkg_libs) $(GUEST_LIBS) -lcmocka

# libFuzzer targets for every parser that sees untrusted text (clang only).
$(B)/fuzz/obj/tests/%.o: tests/fuzz/%.c
	@mkdir -p $(dir $@)
	clang $(FUZZFLAGS) $(pkg_cflags) -Ihelpers -MMD -MP -c -o $@ $<

$(B)/fuzz/%: $(B)/fuzz/obj/tests/%.o $(B)/fuzz/lib/liboneib.a
	@mkdir -p $(dir $@)
	clang -g -fsanitize=fuzzer,address,undefined $(LDFLAGS) -o $@ $^ \
		$(pkg_libs) $(GUEST_LIBS)

-include $(wildcard $(B)/obj/*.d $(B)/obj/*/*.d $(B)/asan/obj/*.d \
	$(B)/asan/obj/*/*.d $(B)/fuzz/obj/*/*.d)

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
# See INSTALL, "Guest images".
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

check: deps
	@$(MAKE) --no-print-directory -j$$(nproc) _check

_check: all unit-build asan-build fuzz-build deb
	rm -rf $(B)/destdir
	$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(B)/destdir
	$(MAKE) --no-print-directory install-guest DESTDIR=$(CURDIR)/$(B)/destdir
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
	remotes/vmm/kvm-ib/oneib.sh)

shellcheck:
	shellcheck -x -S warning $(SHELL_SCRIPTS)

cppcheck:
	cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,style,performance,portability \
		--inline-suppr --suppress=missingIncludeSystem -I helpers helpers

demo: deps
	@$(MAKE) --no-print-directory all
	rm -rf $(B)/destdir
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(B)/destdir
	@$(MAKE) --no-print-directory install-guest DESTDIR=$(CURDIR)/$(B)/destdir
	sh tests/demo.sh

$(B)/bench/runstat: tests/bench/runstat.c
	@mkdir -p $(dir $@)
	$(CC) $(XCFLAGS) $(CFLAGS) -o $@ $<

bench: deps
	@$(MAKE) --no-print-directory all $(B)/bench/runstat
	rm -rf $(B)/destdir
	@$(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(B)/destdir
	sh tests/bench/run.sh

format:
	clang-format -i helpers/*.c helpers/lib/*.[ch] tests/unit/*.c tests/bench/*.c

clean:
	rm -rf $(B)
.SECONDARY:
