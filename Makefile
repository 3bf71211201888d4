# sshd-perf-kit: build the C helpers, run the tests, install.
# Honours CC, CFLAGS, CPPFLAGS, LDFLAGS (from the environment too, as
# rpm's %set_build_flags exports them), DESTDIR, PREFIX, SBINDIR,
# LIBEXECDIR, DATADIR, MANDIR, DOCDIR, BASHCOMPDIR, SYSCONFDIR,
# LOCALSTATEDIR, VERSION.

CC         ?= cc
CFLAGS     ?= -O2 -g
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr
SBINDIR       ?= $(PREFIX)/sbin
LIBEXECDIR    ?= $(PREFIX)/libexec
DATADIR       ?= $(PREFIX)/share
MANDIR        ?= $(DATADIR)/man
DOCDIR        ?= $(DATADIR)/doc/sshd-perf-kit
BASHCOMPDIR   ?= $(DATADIR)/bash-completion/completions
SYSCONFDIR    ?= /etc
LOCALSTATEDIR ?= /var
B          := build

# The kit's version is kept in one place, Version: of the spec; the
# helpers' --version, the scripts and the man pages take it from there
# (the spec's %build passes it again as VERSION=%{version}).
VERSION    ?= $(shell sed -n 's/^Version:[[:space:]]*//p' sshd-perf-kit.spec)
# The release: the spec's Release: (rpmbuild passes %{release}, with the
# dist tag; a plain make install has the number alone).
RELEASE    ?= $(shell sed -n 's/^Release:[[:space:]]*//p' sshd-perf-kit.spec | sed 's/%{?dist}//')

KIT_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Ihelpers -DKIT_VERSION='"$(VERSION)"'

# Every helpers/NAME.c except the shared modules becomes build/sshperf-NAME.
SHARED     := helpers/common.c helpers/stats.c helpers/proc.c
SHARED_OBJS := $(patsubst helpers/%.c,$(B)/%.o,$(SHARED))
HELPERS    := $(patsubst helpers/%.c,$(B)/sshperf-%,$(filter-out $(SHARED),$(wildcard helpers/*.c)))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/%,$(wildcard tests/unit/test_*.c))

# Libraries per helper (pkg-config names); a helper without a line needs none.
PC_seport   := libsemanage libselinux
PC_selinux  := libselinux
PC_unit     := libsystemd
PC_sampler  := libsystemd
PC_echo     := libssh
PC_sweep    := libssh
PC_ceiling  := libcrypto
PC_passgen  := libcrypto
# The wire's delay speaks nfnetlink_queue with libmnl alone, as the
# kernel's selftest nf_queue.c does (LGPL; libnetfilter_queue is GPL).
PC_wire     := libmnl

pc_cflags = $(if $(PC_$(1)),$(shell $(PKG_CONFIG) --cflags $(PC_$(1))))
pc_libs   = $(if $(PC_$(1)),$(shell $(PKG_CONFIG) --libs $(PC_$(1)))) $(LIBS_$(1))

# Other link flags per helper: the sweep runs one login per thread.
LIBS_sweep := -pthread
# crypt(3) for the cost of one password hash check (libxcrypt, in every
# RHEL 9 and Debian base system: pam_unix links it too).
LIBS_hashcost := -lcrypt

all: $(HELPERS) man

# The man pages, generated: sshd-perf-kit(8) from its source with the
# version and the installed paths filled in, sshd-perf-kit.conf(5) from
# settings.conf and lib/settings.schema (man/mkconf5.sh refuses a setting
# that is in one but not the other, or has no description).
MAN_PAGES := $(B)/man/sshd-perf-kit.8 $(B)/man/sshd-perf-kit.conf.5
MAN_SUBST := VERSION='$(VERSION)' SBINDIR='$(SBINDIR)' LIBEXECDIR='$(LIBEXECDIR)' \
	DATADIR='$(DATADIR)' DOCDIR='$(DOCDIR)' SYSCONFDIR='$(SYSCONFDIR)' \
	LOCALSTATEDIR='$(LOCALSTATEDIR)'
man: $(MAN_PAGES)

$(B)/man:
	mkdir -p $(B)/man

$(B)/man/sshd-perf-kit.8: man/sshd-perf-kit.8.in man/mkconf5.sh sshd-perf-kit.spec | $(B)/man
	$(MAN_SUBST) man/mkconf5.sh --subst man/sshd-perf-kit.8.in >$@.tmp && mv -f $@.tmp $@

$(B)/man/sshd-perf-kit.conf.5: settings.conf lib/settings.schema man/mkconf5.sh sshd-perf-kit.spec \
    $(B)/sshperf-settings $(wildcard lib/metrics/*.sh) | $(B)/man
	$(MAN_SUBST) SETTINGS_HELPER=$(B)/sshperf-settings METRICS_DIR=lib/metrics \
	    man/mkconf5.sh settings.conf lib/settings.schema >$@.tmp && mv -f $@.tmp $@

$(B):
	mkdir -p $(B)

# common.o carries the version (--version): rebuilt when the spec changes.
$(B)/common.o: sshd-perf-kit.spec

$(B)/%.o: helpers/%.c helpers/common.h helpers/stats.h helpers/proc.h | $(B)
	$(CC) $(KIT_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/sshperf-%: helpers/%.c $(SHARED_OBJS) helpers/common.h helpers/stats.h helpers/proc.h | $(B)
	$(CC) $(KIT_CFLAGS) $(call pc_cflags,$*) $(CPPFLAGS) $(CFLAGS) -o $@ $< \
	    $(SHARED_OBJS) $(LDFLAGS) $(call pc_libs,$*) -lm

# A unit test tests/unit/test_NAME.c may #include helpers/NAME.c; it links
# with the libraries of the helper it is named after.
$(B)/test_%: tests/unit/test_%.c sshd-perf-kit.spec $(SHARED_OBJS) $(wildcard helpers/*.c helpers/*.h tests/unit/*.h tests/bench/*.c) | $(B)
	$(CC) $(KIT_CFLAGS) $(call pc_cflags,$*) $(CPPFLAGS) $(CFLAGS) -o $@ $< \
	    $(SHARED_OBJS) $(LDFLAGS) $(call pc_libs,$*) -lm

unit-tests: $(UNIT_TESTS)

check: all unit-tests
	tests/run.sh

# The kit against every upstream OpenSSH release in OPENSSH_SOURCES
# (default ../shared/vendor/openssh next to the clone) and Red Hat's 8.7p1
# from RHEL_OPENSSH_SOURCES (default ../shared/vendor/rhel9-openssh), each
# built once into OPENSSH_CACHE (default /var/cache/sshd-perf-kit-ci/openssh).
# With an empty cache the four builds take most of 15 minutes on 2 cores:
# 40 minutes before run.sh gives up on it (its "# run.sh timeout" line).
# Then the RHEL build under systemd in a booted container
# (tests/openssh/systemd-rhel9.sh: Type=notify, READY, reload, audit).
check-openssh: all
	tests/run.sh tests/openssh/matrix.sh tests/openssh/systemd-rhel9.sh

# The Ansible role and playbook against booted systemd containers (minutes).
# A busy machine makes it slow: 30 minutes before run.sh gives up on it
# (its "# run.sh timeout" line).
# check-loadtest.sh (ansible/loadtest.yml) pins its containers to the two
# CPUs: one file at a time.
check-fleet: all
	TEST_LANES=1 tests/run.sh tests/check-fleet.sh tests/check-loadtest.sh

# The benchmarks' own fixtures (tests/bench/NAME.c -> build/bench-NAME),
# such as the plain TCP echo server the echo timer's floor is measured
# against; not installed.
BENCH_FIXTURES := $(patsubst tests/bench/%.c,$(B)/bench-%,$(wildcard tests/bench/*.c))

$(B)/bench-%: tests/bench/%.c $(SHARED_OBJS) helpers/common.h | $(B)
	$(CC) $(KIT_CFLAGS) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(SHARED_OBJS) $(LDFLAGS) -lm

bench: all $(BENCH_FIXTURES)
	tests/bench/run.sh

# STABILITY_RUNS (5) identical runs against the set-up test server: the
# spread of every figure, the verdicts seen, --compare's answer per pair,
# the CPU per login beside the machine's speed, a borderline target;
# then (unless STABILITY_REAL=no) REAL_RUNS (5) rounds of real changes on
# an instance of their own: does --compare find them 5 times in 5. Each
# ends with a verdict line per criterion of issue 27; the exit status is
# 1 when one is not met; 2 (bad input, no test server), and the real
# changes are not started. STABILITY_QUICK=yes: short runs, for a try.
stability: all
	rc=0; tests/bench/stability.sh || rc=$$?; [ $$rc -ne 2 ] || exit 2; \
	if [ "$${STABILITY_REAL:-yes}" != no ]; then tests/bench/real-changes.sh || rc=$$?; fi; \
	exit $$rc

# Every unit-test program STRESS_RUNS (20) times beside STRESS_LOAD (4)
# busy loops, and once under nice -n 19: failures per program.
stress-unit: all unit-tests
	tests/stress-unit.sh

# SOAK_CYCLES (10 here, 3 in check) start / test / cleanup cycles in a row.
SOAK_CYCLES ?= 10
soak: all
	SOAK_CYCLES=$(SOAK_CYCLES) tests/run.sh tests/t94-soak.sh

clean:
	rm -rf $(B)

# The installed layout (docs/install.md): the command in SBINDIR, programs
# and their shell libraries in LIBEXECDIR/sshd-perf-kit, templates, schemas
# and the unit in DATADIR/sshd-perf-kit, settings in SYSCONFDIR/sshd-perf-kit,
# man pages, completion and docs where the system looks for them.
install: all
	DESTDIR='$(DESTDIR)' SBINDIR='$(SBINDIR)' LIBEXECDIR='$(LIBEXECDIR)' \
	    DATADIR='$(DATADIR)' MANDIR='$(MANDIR)' DOCDIR='$(DOCDIR)' \
	    BASHCOMPDIR='$(BASHCOMPDIR)' SYSCONFDIR='$(SYSCONFDIR)' \
	    LOCALSTATEDIR='$(LOCALSTATEDIR)' VERSION='$(VERSION)' RELEASE='$(RELEASE)' \
	    packaging/install.sh $(HELPERS)

# Source tarball of the tracked files (as committed in HEAD) and
# the source and binary RPM built from it; --nodeps where rpm does not
# manage the system's packages (Debian).
DIST        = $(B)/sshd-perf-kit-$(VERSION).tar.gz
RPM_TOPDIR ?= $(CURDIR)/$(B)/rpm

dist: | $(B)
	packaging/dist.sh sshd-perf-kit-$(VERSION) $(DIST)

rpm: dist
	packaging/rpm.sh $(DIST) $(RPM_TOPDIR)

# Keep the shared objects between runs instead of rebuilding them each time.
.SECONDARY:

.PHONY: all man check check-openssh check-fleet bench stability stress-unit soak clean unit-tests install dist rpm
