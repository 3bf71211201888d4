# sshd-perf-kit: build the C helpers, run the tests, install.
# Honours CC, CFLAGS, CPPFLAGS, LDFLAGS, DESTDIR, PREFIX, LIBEXECDIR,
# DATADIR, SYSCONFDIR, LOCALSTATEDIR.

CC         ?= cc
CFLAGS     ?= -O2 -g
PKG_CONFIG ?= pkg-config
PREFIX     ?= /usr
LIBEXECDIR    ?= $(PREFIX)/libexec
DATADIR       ?= $(PREFIX)/share
SYSCONFDIR    ?= /etc
LOCALSTATEDIR ?= /var
B          := build

KIT_CFLAGS := -std=c11 -D_GNU_SOURCE -Wall -Wextra -Ihelpers

# Every helpers/NAME.c except the shared modules becomes build/sshperf-NAME.
SHARED     := helpers/common.c helpers/stats.c
HELPERS    := $(patsubst helpers/%.c,$(B)/sshperf-%,$(filter-out $(SHARED),$(wildcard helpers/*.c)))
UNIT_TESTS := $(patsubst tests/unit/%.c,$(B)/%,$(wildcard tests/unit/test_*.c))

# Libraries per helper (pkg-config names); a helper without a line needs none.
PC_seport   := libsemanage libselinux
PC_selinux  := libselinux
PC_unit     := libsystemd
PC_sampler  := libsystemd
PC_echo     := libssh
PC_ceiling  := libcrypto
PC_passgen  := libcrypto

pc_cflags = $(if $(PC_$(1)),$(shell $(PKG_CONFIG) --cflags $(PC_$(1))))
pc_libs   = $(if $(PC_$(1)),$(shell $(PKG_CONFIG) --libs $(PC_$(1))))

all: $(HELPERS)

$(B):
	mkdir -p $(B)

$(B)/%.o: helpers/%.c helpers/common.h helpers/stats.h | $(B)
	$(CC) $(KIT_CFLAGS) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(B)/sshperf-%: helpers/%.c $(B)/common.o $(B)/stats.o helpers/common.h helpers/stats.h | $(B)
	$(CC) $(KIT_CFLAGS) $(call pc_cflags,$*) $(CPPFLAGS) $(CFLAGS) -o $@ $< \
	    $(B)/common.o $(B)/stats.o $(LDFLAGS) $(call pc_libs,$*) -lm

# A unit test tests/unit/test_NAME.c may #include helpers/NAME.c; it links
# with the libraries of the helper it is named after.
$(B)/test_%: tests/unit/test_%.c $(B)/common.o $(B)/stats.o $(wildcard helpers/*.c) | $(B)
	$(CC) $(KIT_CFLAGS) $(call pc_cflags,$*) $(CPPFLAGS) $(CFLAGS) -o $@ $< \
	    $(B)/common.o $(B)/stats.o $(LDFLAGS) $(call pc_libs,$*) -lm

unit-tests: $(UNIT_TESTS)

check: all unit-tests
	tests/run.sh

# The Ansible role and playbook against booted systemd containers (minutes).
# A busy machine makes it slow: 30 minutes before run.sh gives up on it.
check-fleet: all
	TEST_FILE_TIMEOUT=$${TEST_FILE_TIMEOUT:-1800} tests/run.sh tests/check-fleet.sh

bench: all
	tests/bench/run.sh

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

# The installed layout (docs/install.md): helpers in LIBEXECDIR/sshd-perf-kit,
# the rest in DATADIR/sshd-perf-kit, settings in SYSCONFDIR/sshd-perf-kit.
install: all
	DESTDIR='$(DESTDIR)' LIBEXECDIR='$(LIBEXECDIR)' DATADIR='$(DATADIR)' \
	    SYSCONFDIR='$(SYSCONFDIR)' LOCALSTATEDIR='$(LOCALSTATEDIR)' \
	    packaging/install.sh $(HELPERS)

# Source tarball of the tracked files (as committed in HEAD) and
# the source and binary RPM built from it; --nodeps where rpm does not
# manage the system's packages (Debian).
VERSION     = $(shell sed -n 's/^Version:[[:space:]]*//p' sshd-perf-kit.spec)
DIST        = $(B)/sshd-perf-kit-$(VERSION).tar.gz
RPM_TOPDIR ?= $(CURDIR)/$(B)/rpm

dist: | $(B)
	packaging/dist.sh sshd-perf-kit-$(VERSION) $(DIST)

rpm: dist
	packaging/rpm.sh $(DIST) $(RPM_TOPDIR)

# Keep the shared objects between runs instead of rebuilding them each time.
.SECONDARY:

.PHONY: all check check-fleet bench stress-unit soak clean unit-tests install dist rpm
