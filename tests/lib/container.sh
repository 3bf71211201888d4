# shellcheck shell=bash
# A booted systemd for the tests, in a systemd-nspawn container (PLATFORM.md 7).
#
#   . "$TEST_DIR/lib/container.sh"
#   container_root || skip...            # cached Debian 12 root, built once
#   container_start t30 || skip...       # boots a copy; sets CONTAINER_PID
#   test_atexit container_stop           # tests/lib/harness.sh
#   container_exec systemctl is-active ssh.service
#   container_ssh true                   # root login to the container's sshd
#   container_wait 20 container_exec test -e /run/x   # poll with a deadline
#   container_stop
#
# The cached root lives outside the repo in $CONTAINER_CACHE/bookworm and is
# never written by a container: container_start boots it with
# --volatile=overlay, so every change inside lands in a tmpfs that vanishes
# at power-off, and every boot starts from the same state. The container has its own network namespace
# (--private-network: only lo), so its ssh.service on :22 and a test server
# on 127.0.0.1:11022 are private to it. Bind-mounted read-write at the same
# path as on the host: $KIT_DIR (so build/ helpers run inside unchanged),
# $TEST_TMP when set, and every path in $CONTAINER_BINDS (space-separated).
#
# CONTAINER_VARIANT=ldap boots a second cached root instead,
# $CONTAINER_CACHE/bookworm-ldap: the root above plus
# CONTAINER_VARIANT_PACKAGES_ldap (slapd and SSSD for the directory tests,
# t34), built once from a copy of the first root with apt-get, under a lock
# of its own. The shared root and its package list stay as they are, so
# nothing else is rebuilt.
#
# Settings (environment): CONTAINER_CACHE, CONTAINER_MIRROR,
# CONTAINER_BOOT_TIMEOUT (s, 120), CONTAINER_STOP_TIMEOUT (s, 60),
# CONTAINER_EXEC_TIMEOUT (s, 300: a guard against a hang, not a speed
# bound), CONTAINER_BINDS.
# CONTAINER_UNIFIED=0 boots it with cgroup v1 (hybrid) instead of v2.
# Set by container_start: CONTAINER_PID (the container's systemd, PID 1
# inside), CONTAINER_NSPAWN_PID, CONTAINER_ROOT (/proc/PID/root: the
# container's files seen from the host), CONTAINER_LOG (nspawn's and the
# container console's output). CONTAINER_SSH_KEY is root's private key
# inside the container (its public key is root's authorized_keys there).
# On failure the functions return non-zero with one line on stderr saying why.

CONTAINER_CACHE=${CONTAINER_CACHE:-/var/cache/sshd-perf-kit-tests}
CONTAINER_MIRROR=${CONTAINER_MIRROR:-http://deb.debian.org/debian}
CONTAINER_SUITE=bookworm
# Besides the PLATFORM.md 7 set: the libraries the kit's helpers link with
# (so host-built binaries run inside), passwd for useradd/userdel/chpasswd,
# rpm for the package test (t70).
# bash, coreutils, util-linux, findutils, sed, mawk, grep are in minbase.
CONTAINER_PACKAGES=systemd,systemd-sysv,dbus,openssh-server,openssh-client,libpam-systemd,iproute2,procps,libssh-4,libsemanage2,libselinux1,libsystemd0,libssl3,openssl,passwd,rpm
CONTAINER_SSH_KEY=/root/.ssh/id_sshperf_container
# The variants: extra Debian packages on top of the shared root (for tests
# only). ldap: a real OpenLDAP server and SSSD with its LDAP provider.
# shellcheck disable=SC2034 # read by name in container_root
CONTAINER_VARIANT_PACKAGES_ldap="slapd ldap-utils sssd-ldap sssd-tools libnss-sss libpam-sss"
KIT_DIR=${KIT_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}

container_log_ () {
	printf 'container: %s\n' "$*" >&2
}

# container_wait SECONDS CMD...: run CMD every 0.1 s until it succeeds;
# fails when SECONDS have passed.
container_wait () {
	local deadline=$(( $(date +%s) + $1 ))
	shift
	until "$@"; do
		[ "$(date +%s)" -lt "$deadline" ] || return 1
		sleep 0.1
	done
}

container_build_ () {
	local root=$1 new="$1.new"
	rm -rf --one-file-system "$new" "$root" "$root.complete"
	container_log_ "building $root with debootstrap (about 70-120 s)"
	if ! debootstrap --variant=minbase --include="$CONTAINER_PACKAGES" \
	    "$CONTAINER_SUITE" "$new" "$CONTAINER_MIRROR" >"$root.build.log" 2>&1; then
		container_log_ "debootstrap failed, see $root.build.log"
		rm -rf --one-file-system "$new"
		return 1
	fi
	# openssh-server's postinst normally makes both; make sure.
	if [ ! -e "$new/etc/ssh/ssh_host_ed25519_key" ]; then
		chroot "$new" ssh-keygen -A >>"$root.build.log" 2>&1 || return 1
	fi
	if [ ! -e "$new/etc/systemd/system/multi-user.target.wants/ssh.service" ]; then
		systemctl --root="$new" enable ssh.service >>"$root.build.log" 2>&1 || return 1
	fi
	# Nothing in the container needs a login prompt; the console stays quiet.
	systemctl --root="$new" mask console-getty.service getty@tty1.service \
	    >>"$root.build.log" 2>&1 || return 1
	printf 'sshperf-test\n' >"$new/etc/hostname"
	rm -rf "$new/var/cache/apt/archives/"*.deb "$new/var/lib/apt/lists/"*
	mv "$new" "$root" || return 1
	rm -f "$CONTAINER_CACHE/id_sshperf_container" "$CONTAINER_CACHE/id_sshperf_container.pub"
	ssh-keygen -q -t ed25519 -N '' -C sshperf-container-test \
	    -f "$CONTAINER_CACHE/id_sshperf_container" || return 1
	# Written last: its presence means the root above is complete.
	printf '%s\n' "$CONTAINER_PACKAGES" >"$root.complete"
}

# container_build_variant_ BASE ROOT PACKAGES: ROOT is a copy of BASE with
# PACKAGES installed by apt-get in a chroot (their services not started).
container_build_variant_ () {
	local base=$1 root=$2 pkgs=$3 new="$2.new" rc=0 base_lock
	rm -rf --one-file-system "$new" "$root" "$root.complete"
	container_log_ "building $root from $base with apt-get ($pkgs)"
	# The shared root must not change while it is copied.
	exec {base_lock}>"$CONTAINER_CACHE/.lock"
	flock -w 600 "$base_lock" && cp -a "$base" "$new" || rc=1
	exec {base_lock}>&-
	[ "$rc" -eq 0 ] || { container_log_ "copying $base failed"; rm -rf --one-file-system "$new"; return 1; }
	# No service starts in the chroot.
	printf '#!/bin/sh\nexit 101\n' >"$new/usr/sbin/policy-rc.d"
	chmod 0755 "$new/usr/sbin/policy-rc.d"
	printf 'deb %s %s main\n' "$CONTAINER_MIRROR" "$CONTAINER_SUITE" >"$new/etc/apt/sources.list"
	cp /etc/resolv.conf "$new/etc/resolv.conf" 2>/dev/null || true
	{
		# shellcheck disable=SC2086 # a list of packages
		chroot "$new" apt-get update &&
		chroot "$new" env DEBIAN_FRONTEND=noninteractive apt-get install -y \
		    --no-install-recommends $pkgs
	} >"$root.build.log" 2>&1 || rc=1
	rm -f "$new/usr/sbin/policy-rc.d"
	if [ "$rc" -ne 0 ]; then
		container_log_ "apt-get failed, see $root.build.log"
		rm -rf --one-file-system "$new"
		return 1
	fi
	rm -rf "$new/var/cache/apt/archives/"*.deb "$new/var/lib/apt/lists/"*
	mv "$new" "$root" || return 1
	printf '%s\n' "$pkgs" >"$root.complete"
}

# The root container_start boots: the shared one, or a variant's.
container_root_dir_ () {
	printf '%s/%s%s\n' "$CONTAINER_CACHE" "$CONTAINER_SUITE" "${CONTAINER_VARIANT:+-$CONTAINER_VARIANT}"
}

# Make sure the cached root exists and is complete; build it if not. With
# CONTAINER_VARIANT, the variant's root too (the shared one first).
container_root () {
	local root="$CONTAINER_CACHE/$CONTAINER_SUITE" lock rc=0 pkgs vroot
	if [ -n "${CONTAINER_VARIANT:-}" ]; then
		pkgs=CONTAINER_VARIANT_PACKAGES_$CONTAINER_VARIANT
		pkgs=${!pkgs:-}
		[ -n "$pkgs" ] || { container_log_ "unknown CONTAINER_VARIANT=$CONTAINER_VARIANT"; return 1; }
		CONTAINER_VARIANT="" container_root || return 1
		vroot=$(container_root_dir_)
		exec {lock}>"$CONTAINER_CACHE/.lock-$CONTAINER_VARIANT"
		flock -w 900 "$lock" || { exec {lock}>&-; container_log_ "cache $vroot is locked"; return 1; }
		if [ "$(cat "$vroot.complete" 2>/dev/null)" != "$pkgs" ]; then
			container_build_variant_ "$root" "$vroot" "$pkgs" || rc=1
		fi
		exec {lock}>&-
		return "$rc"
	fi
	command -v debootstrap >/dev/null || { container_log_ "debootstrap is not installed"; return 1; }
	command -v systemd-nspawn >/dev/null || { container_log_ "systemd-nspawn is not installed (package systemd-container)"; return 1; }
	mkdir -p "$CONTAINER_CACHE/machines" || return 1
	exec {lock}>"$CONTAINER_CACHE/.lock"
	flock -w 600 "$lock" || { exec {lock}>&-; container_log_ "cache is locked"; return 1; }
	if [ "$(cat "$root.complete" 2>/dev/null)" != "$CONTAINER_PACKAGES" ] ||
	    [ ! -s "$CONTAINER_CACHE/id_sshperf_container" ]; then
		container_build_ "$root" || rc=1
	fi
	exec {lock}>&-
	return "$rc"
}

container_systemd_pid_ () {
	local pid
	pid=$(pgrep -P "$CONTAINER_NSPAWN_PID" -x systemd) || return 1
	CONTAINER_PID=$pid
}

container_manager_up_ () {
	nsenter -t "$CONTAINER_PID" -a -- test -S /run/systemd/private 2>/dev/null
}

container_nspawn_gone_ () {
	! kill -0 "$CONTAINER_NSPAWN_PID" 2>/dev/null
}

# Boot the cached root (overlaid, see above) as machine NAME in the background.
container_start () {
	local name=${1:?container_start NAME} state bind binds root
	local run="$CONTAINER_CACHE/machines/$1"
	root=$(container_root_dir_)
	[ -z "${CONTAINER_NSPAWN_PID:-}" ] || { container_log_ "a container is already running"; return 1; }
	container_root || return 1
	CONTAINER_LOG="$run.log"
	# Root logs in with a key the tests control and trusts the host key.
	printf '127.0.0.1,localhost %s\n' "$(cut -d' ' -f1,2 "$root/etc/ssh/ssh_host_ed25519_key.pub")" \
	    >"$run.known_hosts" || return 1

	# --volatile=overlay: the cached root is the read-only lower layer of an
	# overlayfs whose upper layer is a tmpfs that vanishes with the container
	# (a copy of the root took 10 s here; this takes none).
	binds=("--bind=$KIT_DIR"
	    "--bind-ro=$CONTAINER_CACHE/id_sshperf_container:$CONTAINER_SSH_KEY"
	    "--bind-ro=$CONTAINER_CACHE/id_sshperf_container.pub:/root/.ssh/authorized_keys"
	    "--bind-ro=$run.known_hosts:/root/.ssh/known_hosts")
	if [ -n "${TEST_TMP:-}" ]; then binds+=("--bind=$TEST_TMP"); fi
	for bind in ${CONTAINER_BINDS:-}; do binds+=("--bind=$bind"); done
	# cgroup v2 inside (as on RHEL 9) unless CONTAINER_UNIFIED=0: only then
	# does the container's systemd see CPUUsageNSec on a cgroup v1 host.
	SYSTEMD_NSPAWN_UNIFIED_HIERARCHY=${CONTAINER_UNIFIED:-1} systemd-nspawn \
	    --quiet -D "$root" --volatile=overlay --machine="$name" --boot \
	    --register=no --keep-unit --private-network --console=read-only \
	    "${binds[@]}" </dev/null >"$CONTAINER_LOG" 2>&1 &
	CONTAINER_NSPAWN_PID=$!
	export CONTAINER_PID CONTAINER_NSPAWN_PID CONTAINER_LOG

	if ! container_wait "${CONTAINER_BOOT_TIMEOUT:-120}" container_systemd_pid_ ||
	    ! container_wait "${CONTAINER_BOOT_TIMEOUT:-120}" container_manager_up_; then
		container_log_ "no systemd inside nspawn $CONTAINER_NSPAWN_PID, see $CONTAINER_LOG"
		tail -n 5 "$CONTAINER_LOG" >&2
		container_stop
		return 1
	fi
	state=$(timeout "${CONTAINER_BOOT_TIMEOUT:-120}" nsenter -t "$CONTAINER_PID" -a -- \
	    systemctl is-system-running --wait 2>&1)
	case "$state" in
	running|degraded) ;;
	*)
		container_log_ "container $name did not boot (state: ${state:-timeout}), see $CONTAINER_LOG"
		container_stop
		return 1
		;;
	esac
	if [ "$state" = degraded ]; then
		container_exec systemctl --failed --no-legend >>"$CONTAINER_LOG" 2>&1 || true
	fi
	if ! container_exec ip -o link show lo | grep -q '<[^>]*UP'; then
		container_exec ip link set lo up || { container_stop; return 1; }
	fi
	CONTAINER_ROOT=/proc/$CONTAINER_PID/root
	export CONTAINER_ROOT
}

# Run a command in all the container's namespaces, with a timeout.
# The deadline is kept inside the container: a timeout(1) outside would
# end only nsenter, and the command would run on in the container (a
# test-ssh.sh that goes on holding the kit's lock, say). The outer one is
# a safety net in case the inner one cannot run.
container_exec () {
	local secs=${CONTAINER_EXEC_TIMEOUT:-300}
	timeout --kill-after=5 "$((secs + 15))" \
	    nsenter -t "${CONTAINER_PID:?no container}" -a -- \
	    timeout --kill-after=5 "$secs" "$@"
}

# Log in as root to the container's own sshd (port 22 on its loopback).
container_ssh () {
	container_exec ssh -o BatchMode=yes -o ConnectTimeout=10 \
	    -i "$CONTAINER_SSH_KEY" root@127.0.0.1 "$@"
}

# Power off the container (its writable layer goes with it). Safe to call
# twice and from a trap; kills only the processes container_start recorded.
container_stop () {
	local rc=0
	[ -n "${CONTAINER_NSPAWN_PID:-}" ] || return 0
	if ! container_nspawn_gone_; then
		if [ -n "${CONTAINER_PID:-}" ]; then
			kill -s SIGRTMIN+4 "$CONTAINER_PID" 2>/dev/null || true
		else
			# Not booted yet: nspawn shuts down what it started.
			kill -s TERM "$CONTAINER_NSPAWN_PID" 2>/dev/null || true
		fi
		if ! container_wait "${CONTAINER_STOP_TIMEOUT:-60}" container_nspawn_gone_; then
			container_log_ "container did not power off; killing its init and nspawn"
			# Killing the init of the container's PID namespace ends all of it.
			if [ -n "${CONTAINER_PID:-}" ]; then kill -s KILL "$CONTAINER_PID" 2>/dev/null || true; fi
			kill -s KILL "$CONTAINER_NSPAWN_PID" 2>/dev/null || true
			container_wait 10 container_nspawn_gone_ || rc=1
		fi
	fi
	wait "$CONTAINER_NSPAWN_PID" 2>/dev/null || true
	CONTAINER_PID="" CONTAINER_NSPAWN_PID="" CONTAINER_ROOT=""
	return "$rc"
}

# container_test WHAT NAME: a test file that runs inside a booted
# container NAME: stops it (and removes $TEST_TMP) at the exit, and skips
# all of the file (and exits) when not root, when there is no container
# root or when the container does not boot.
container_test () {
	local what=$1 why=""
	test_atexit container_stop
	if [ "$(id -u)" -ne 0 ]; then
		why='needs root'
	elif ! container_root 2>"$TEST_TMP/container.err"; then
		why="no container root: $(tail -n 1 "$TEST_TMP/container.err")"
	elif ! container_start "$2" 2>"$TEST_TMP/container.err"; then
		why="container did not boot: $(tail -n 1 "$TEST_TMP/container.err")"
	fi
	[ -n "$why" ] || return 0
	test_skip "$what" "$why"
	test_done
	exit 0
}
