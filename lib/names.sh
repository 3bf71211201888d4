# shellcheck shell=bash disable=SC2034
# (SC2034: the names below are used by the scripts that source this file.)
# The names the kit owns on this host, one set per instance (the setting
# KIT_INSTANCE, docs/instances.md). lib/common.sh sets them for the
# instance in use; the tests' harness sets them for the tests' own
# instance. Nothing else spells these names: every part uses the
# variables.
#
# The default instance (empty name) keeps the names the kit always had;
# instance NAME adds -NAME to each of them, so no name of one instance is
# a name, a prefix glob or a pattern of another's (ssh_host_perftest_*_key
# does not match ssh_host_perftest-NAME_rsa_key).

# kit_names INSTANCE: sets the names for INSTANCE (empty: the default).
# STATE_BASE is the folder of the default instance's state
# (/var/lib/sshd-perf-kit, or the installed copy's from lib/paths.sh).
# What the config file of every instance starts with: an sshd whose
# command line has it is one of the kit's, of whichever instance.
KIT_CONFIG_PREFIX=/etc/ssh/sshd_config_perf_test

kit_names () {
	local s=${1:+-$1}
	INSTANCE_NAME=$1
	STATE_PARENT=${STATE_BASE:-/var/lib/sshd-perf-kit}$s
	STATE_DIR="$STATE_PARENT/state"
	MANIFEST="$STATE_DIR/created"
	SERVER_ENV="$STATE_DIR/server.env"
	CLIENT_DIR="$STATE_DIR/client"
	CLIENT_CONFIG="$CLIENT_DIR/ssh_config"
	PASSWORD_FILE="$STATE_DIR/password"
	SSHD_CONFIG=$KIT_CONFIG_PREFIX$s
	HOSTKEY_PREFIX=/etc/ssh/ssh_host_perftest${s}_
	UNIT_NAME=sshd-perf-test$s.service
	UNIT_FILE=/etc/systemd/system/$UNIT_NAME
	PID_FILE=/run/sshd-perf-test$s.pid
	# In /run, which only root may write to: /run/lock is world-writable on
	# Debian, and a file there could be planted by any user.
	LOCK_FILE=/run/sshd-perf-kit$s.lock
	# Host alias of the test server in the kit's client configuration
	# (also ALIAS-rsa and ALIAS-password).
	HOST_ALIAS=sshperf-test$s
	# The cgroup of a directly started test server (lib/server.sh).
	CGROUP_NAME=/sshd-perf-test$s
	# test-ssh.sh's temporary folder of a run, in TMPDIR: NAME.XXXXXX.
	RUN_TMP_NAME=sshperf-kit-run$s
	# The test hosts at a distance (lib/wire.sh): the router namespace
	# that holds the wire, the test host the clients run in, and the veth
	# devices between them (at most 15 characters: spw, the instance's
	# number, a letter), h the kit's end in the host's namespace.
	WIRE_NS=sshperf-wire$s
	TESTHOST_NS=sshperf-testhost$s
	local tag=spw0
	[ -z "$1" ] || tag=spw$(instance_port_offset "$1")
	WIRE_DEV_HOST=${tag}h
	WIRE_DEV_RIN=${tag}a
	WIRE_DEV_ROUT=${tag}b
	WIRE_DEV_CLIENT=${tag}c
}

# instance_port_offset NAME: N from 1 to 999, the same for the same name
# on every host: instance NAME's port is TEST_PORT + N unless TEST_PORT is
# given for it (lib/common.sh load_settings).
instance_port_offset () {
	local sum
	sum=$(printf '%s' "$1" | cksum | cut -d' ' -f1)
	printf '%s\n' "$((sum % 999 + 1))"
}

# lock_free: waits at most LOCK_FREE_SECONDS until no kit command of
# this instance holds its lock (take_lock, lib/common.sh); 1 when one
# still does. For an exit path that cleans up after kit commands it ran:
# a signal ends its wait for them at once while they still end what they
# began (each step with a deadline), and a cleanup that finds the lock
# held refuses and leaves the test server running.
LOCK_FREE_SECONDS=30
lock_free () {
	[ -n "${LOCK_FILE:-}" ] && [ -e "$LOCK_FILE" ] || return 0
	flock -w "$LOCK_FREE_SECONDS" "$LOCK_FILE" true 2>/dev/null
}
