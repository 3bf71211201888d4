#!/usr/bin/env bash
# The kit on a host with systemd as PID 1, for real: inside a booted Debian
# 12 container, start installs sshd-perf-test.service and starts it through
# sd-bus, logins work, test-ssh.sh login runs, cleanup leaves the host as it
# was - and the container's own ssh.service keeps its MainPID and keeps
# accepting logins throughout.
# shellcheck disable=SC2034 # names used only inside the eval'd test bodies
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/container.sh
. "$TEST_DIR/lib/container.sh"

container_test 'the kit under systemd' t31

STATE=/var/lib/sshd-perf-kit/state
CFG="$STATE/client/ssh_config"
# In the container: run a command with the test's settings.
ct () {
	container_exec env LOGIN_SAMPLES=3 RESULTS_DIR="$TEST_TMP/results" "$@"
}
snapshot () {
	ct bash -c ". '$TEST_DIR/lib/snapshot.sh' && host_snapshot"
}
ssh_main_pid () {
	ct systemctl show -p MainPID --value ssh.service
}
mkdir -p "$TEST_TMP/results"
snapshot >"$TEST_TMP/before"
main_pid=$(ssh_main_pid)

test_expect 'the container runs its own ssh.service and accepts logins' '
	[ "${main_pid:-0}" -gt 0 ] && container_ssh true
'

test_expect 'start installs the unit and starts it through sd-bus' '
	ct "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 &&
	test_grep "installed /etc/systemd/system/sshd-perf-test.service" "$TEST_TMP/start.out" &&
	test_grep "unit sshd-perf-test.service" "$TEST_TMP/start.out" &&
	test_eq "$(ct systemctl is-active sshd-perf-test.service)" active &&
	[ "$(ct systemctl is-enabled sshd-perf-test.service 2>/dev/null || true)" != enabled ]
'

test_expect 'the unit is RHEL-like: sshd -t first, KillMode=process, its own config' '
	ct systemctl cat sshd-perf-test.service >"$TEST_TMP/unit" &&
	test_grep "^ExecStartPre=.*sshd -t -f /etc/ssh/sshd_config_perf_test" "$TEST_TMP/unit" &&
	test_grep "^KillMode=process" "$TEST_TMP/unit" &&
	test_grep ! "EnvironmentFile\|sshd-keygen" "$TEST_TMP/unit"
'

# A crashed test server must not come back in a new cgroup mid-run.
test_expect 'the unit is never restarted by systemd (Restart=no)' '
	test_grep -x "Restart=no" "$TEST_TMP/unit" && test_grep ! "^RestartSec=" "$TEST_TMP/unit" &&
	test_eq "$(ct systemctl show -p Restart --value sshd-perf-test.service)" no
'

# The password is valid only during the auth test (t33 checks it there).
test_expect 'key logins work, the locked password does not; the session lands in the user slice' '
	test_eq "$(ct ssh -F "$CFG" sshperf-test id -un)" sshperf &&
	test_eq "$(ct ssh -F "$CFG" sshperf-test-rsa id -un)" sshperf &&
	! ct env SSH_ASKPASS="$KIT_DIR/lib/bin/askpass.sh" SSH_ASKPASS_REQUIRE=force ssh -F "$CFG" sshperf-test-password id -un </dev/null &&
	ct ssh -F "$CFG" sshperf-test cat /proc/self/cgroup >"$TEST_TMP/cgroup" &&
	test_grep "user.slice/user-" "$TEST_TMP/cgroup"
'

test_expect 'status: running under systemd' '
	ct "$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st" &&
	test_grep "^mode=systemd" "$TEST_TMP/st" && test_grep -x "state=running" "$TEST_TMP/st"
'

test_expect 'start again is idempotent: same MainPID' '
	pid=$(ct systemctl show -p MainPID --value sshd-perf-test.service) &&
	ct "$KIT_DIR/start-ssh.sh" -q &&
	test_eq "$(ct systemctl show -p MainPID --value sshd-perf-test.service)" "$pid"
'

test_expect 'stop and start through the unit' '
	ct "$KIT_DIR/start-ssh.sh" stop >/dev/null &&
	test_eq "$(ct systemctl is-active sshd-perf-test.service || true)" inactive &&
	ct "$KIT_DIR/start-ssh.sh" -q &&
	test_eq "$(ct systemctl is-active sshd-perf-test.service)" active
'

test_expect 'test-ssh.sh login runs and writes its report' '
	rc=0; ct "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/t.out" 2>&1 || rc=$? &&
	test_verdict_exit "$rc" "$TEST_TMP/t.out" &&
	report=$(tail -n 1 "$TEST_TMP/t.out") && [ -f "$report" ] &&
	test_grep -E "^\| 2 \| \[Login time\].*\*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$report" &&
	test_grep "run by systemd as sshd-perf-test.service" "$report"
'

test_expect 'the container s own sshd kept its MainPID and accepts logins' '
	test_eq "$(ssh_main_pid)" "$main_pid" && container_ssh true
'

test_expect 'cleanup ends the sessions and removes everything' '
	ct "$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c.out" &&
	test_grep "removed /etc/systemd/system/sshd-perf-test.service" "$TEST_TMP/c.out" &&
	test_grep "daemon-reload" "$TEST_TMP/c.out" &&
	! ct getent passwd sshperf &&
	test_eq "$(ct systemctl show -p LoadState --value sshd-perf-test.service)" not-found &&
	snapshot >"$TEST_TMP/after" &&
	test_cmp "$TEST_TMP/before" "$TEST_TMP/after"
'

test_expect 'the container s own sshd is untouched after cleanup' '
	test_eq "$(ssh_main_pid)" "$main_pid" && container_ssh true
'

test_done
