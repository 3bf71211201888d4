#!/usr/bin/env bash
# run.sh alone
# Instances (KIT_INSTANCE, docs/instances.md): with the administrator's
# test server set up (the default instance; started here when there is
# none, used as it is when there is one), a host test file runs its own
# instance and runs every test, and afterwards the administrator's test
# server still answers, with the same pid and the same files. A second
# named instance gets every name with -NAME, its port and user derived.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"

# The default instance's names (the harness's until host_kit_test).
# shellcheck disable=SC2034 # used in the test bodies
ADMIN_STATE=$STATE_DIR ADMIN_CLIENT=$CLIENT_CONFIG ADMIN_ALIAS=$HOST_ALIAS
ADMIN_SSHD_CONFIG=$SSHD_CONFIG ADMIN_UNIT_FILE=$UNIT_FILE
host_kit_test 'instances'
export LOGIN_SAMPLES=3 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"

# admin CMD...: a kit command as the administrator runs it (the default
# instance: none of the tests' instance settings).
admin () {
	env -u KIT_INSTANCE -u TEST_PORT -u TEST_USER "$@"
}
# second CMD...: a command of the instance "second", port and user derived.
second () {
	env -u TEST_PORT -u TEST_USER KIT_INSTANCE=second "$@"
}
# The administrator's files: the state folder's listing (without the
# direct mode's sshd.log, which its logins add to), its record of what it
# created and of the running server, the config and the unit.
admin_files () {
	find "$ADMIN_STATE" -xdev -type f ! -name sshd.log -printf '%p %m %s\n' | sort
	sha256sum "$ADMIN_STATE/created" "$ADMIN_STATE/server.env" "$ADMIN_SSHD_CONFIG"
	[ ! -f "$ADMIN_UNIT_FILE" ] || sha256sum "$ADMIN_UNIT_FILE"
}

started_admin=""
if [ -d "$ADMIN_STATE" ]; then
	echo "# the default instance is set up on this host: used as it is"
else
	started_admin=1
fi
test_atexit 'second "$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1
	[ -z "$started_admin" ] || admin "$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

# The host before the administrator's server, when this test starts it.
[ -z "$started_admin" ] || (kit_names ""; TEST_PORT=11022 host_snapshot) >"$TEST_TMP/before"

test_expect 'the administrator s test server (the default instance) runs' '
	admin "$KIT_DIR/start-ssh.sh" -q &&
	admin "$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/admin.st" &&
	test_grep -x "instance=(default)" "$TEST_TMP/admin.st" &&
	test_grep -x "state_dir=$ADMIN_STATE" "$TEST_TMP/admin.st" &&
	pid=$(sed -n "s/^pid=//p" "$TEST_TMP/admin.st") && [ "$pid" -gt 0 ] &&
	echo "$pid" >"$TEST_TMP/admin.pid" &&
	admin_files >"$TEST_TMP/admin.files"
'

test_expect 'a host test file runs all its tests next to it, as its own instance' '
	rc=0; bash "$TEST_DIR/t10-lifecycle.sh" >"$TEST_TMP/t10.out" 2>&1 || rc=$?
	cat "$TEST_TMP/t10.out" &&
	[ "$rc" -eq 0 ] &&
	test_grep -x "# passed=[1-9][0-9]* failed=0 skipped=0" "$TEST_TMP/t10.out" &&
	test_grep ! "# SKIP" "$TEST_TMP/t10.out"
'

test_expect 'the administrator s test server still answers, same pid, same files' '
	admin "$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/admin.st2" &&
	test_grep -x "state=running" "$TEST_TMP/admin.st2" &&
	test_grep -x "pid=$(cat "$TEST_TMP/admin.pid")" "$TEST_TMP/admin.st2" &&
	admin timeout 30 ssh -F "$ADMIN_CLIENT" "$ADMIN_ALIAS" true </dev/null &&
	admin_files >"$TEST_TMP/admin.files2" &&
	test_cmp "$TEST_TMP/admin.files" "$TEST_TMP/admin.files2"
'

test_expect 'instance second: every name with -second, port TEST_PORT + N, user TEST_USER-second' '
	n=$(instance_port_offset second) &&
	second "$KIT_DIR/start-ssh.sh" -q &&
	second "$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/second.st" &&
	cat "$TEST_TMP/second.st" &&
	test_grep -x "instance=second" "$TEST_TMP/second.st" &&
	test_grep -x "address=127.0.0.1:$((11022 + n))" "$TEST_TMP/second.st" &&
	test_grep -x "user=sshperf-second" "$TEST_TMP/second.st" &&
	test_grep -x "config=/etc/ssh/sshd_config_perf_test-second" "$TEST_TMP/second.st" &&
	test_grep -x "state_dir=/var/lib/sshd-perf-kit-second/state" "$TEST_TMP/second.st" &&
	test_grep -x "client_config=/var/lib/sshd-perf-kit-second/state/client/ssh_config" "$TEST_TMP/second.st" &&
	ls /etc/ssh/ssh_host_perftest-second_*_key >/dev/null &&
	[ "$(second timeout 30 ssh -F /var/lib/sshd-perf-kit-second/state/client/ssh_config sshperf-test-second id -un </dev/null)" = sshperf-second ]
'

# xbhz and second have the same port offset (cksum of the name % 999).
test_expect 'an instance whose port is another instance'"'"'s is refused, naming that one, nothing changed' '
	test_eq "$(instance_port_offset xbhz)" "$(instance_port_offset second)" &&
	expect_status 2 env -u TEST_PORT -u TEST_USER KIT_INSTANCE=xbhz "$KIT_DIR/start-ssh.sh" &&
	test_eq "$(grep -c . "$TEST_TMP/out")" 1 &&
	test_grep "TEST_PORT=$((11022 + $(instance_port_offset second))) is the port of the kit.s instance second (its state: /var/lib/sshd-perf-kit-second/state); two instances never share a port: give this one its own, TEST_PORT=port KIT_INSTANCE=xbhz" "$TEST_TMP/out" &&
	[ ! -e /var/lib/sshd-perf-kit-xbhz ] && ! getent passwd sshperf-xbhz &&
	env -u TEST_PORT -u TEST_USER KIT_INSTANCE=xbhz "$KIT_DIR/start-ssh.sh" -q cleanup
'

# Debian's sshd needs /run/sshd, which the instance that found it missing
# created and recorded. Here the folder is there (the servers above run),
# so instance second is made its recorder: its cleanup must keep it while
# the administrator's server runs, and that server must still log in.
test_expect 'a cleanup keeps /run/sshd, which another instance s server needs: that server still takes a login' '
	if [ ! -d /run/sshd ]; then echo "# no /run/sshd: this sshd needs none"; exit 0; fi &&
	m=/var/lib/sshd-perf-kit-second/state/created &&
	{ grep -qx "dir /run/sshd" "$m" || echo "dir /run/sshd" >>"$m"; } &&
	second "$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c.out" &&
	test_grep "^start-ssh.sh: kept /run/sshd: the test server of another instance (pid [0-9]*) needs it$" "$TEST_TMP/c.out" &&
	[ -d /run/sshd ] &&
	admin timeout 30 ssh -F "$ADMIN_CLIENT" "$ADMIN_ALIAS" true </dev/null &&
	second "$KIT_DIR/start-ssh.sh" -q
'

test_expect 'stop and cleanup of instance second leave the administrator s server alone' '
	second "$KIT_DIR/start-ssh.sh" -q stop &&
	admin "$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/admin.st3" &&
	test_grep -x "pid=$(cat "$TEST_TMP/admin.pid")" "$TEST_TMP/admin.st3" &&
	second "$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c.out" &&
	test_grep "removed user sshperf-second" "$TEST_TMP/c.out" &&
	[ ! -e /var/lib/sshd-perf-kit-second ] && ! getent passwd sshperf-second &&
	! ls /etc/ssh/ssh_host_perftest-second_* 2>/dev/null &&
	admin "$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/admin.st4" &&
	test_grep -x "pid=$(cat "$TEST_TMP/admin.pid")" "$TEST_TMP/admin.st4" &&
	admin_files >"$TEST_TMP/admin.files3" &&
	test_cmp "$TEST_TMP/admin.files" "$TEST_TMP/admin.files3"
'

if [ -n "$started_admin" ]; then
	test_expect 'the administrator s server, started by this test, is cleaned up: the host is as before' '
		admin "$KIT_DIR/start-ssh.sh" -q cleanup &&
		(kit_names ""; TEST_PORT=11022 host_snapshot) >"$TEST_TMP/after" &&
		test_cmp "$TEST_TMP/before" "$TEST_TMP/after"
	'
fi

test_done
