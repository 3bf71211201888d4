#!/usr/bin/env bash
# Red Hat's 8.7p1 (tests/openssh/build-rhel9.sh, the matrix's RHEL 9
# build) as the test server under systemd, inside a booted Debian 12
# container (tests/lib/container.sh), as on a RHEL 9 host:
#   - start-ssh.sh writes Type=notify for it (the build links libsystemd
#     and sends READY=1), and the unit becomes active only because
#     systemd received READY: a Type=notify unit whose READY never comes
#     stays "activating" until its start times out;
#   - a key login works, and test-ssh.sh reload measures a reload of it:
#     this build sends READY=1 again after its re-exec (seen in systemd's
#     debug log, after sshd's "Received SIGHUP; restarting") and never
#     RELOADING=1, so systemd's reload job ends when ExecReload's kill has
#     run, and the kit times the new greeting, not the job;
#   - the audit patch: each connection writes Linux audit records; a
#     write that fails for another reason than "no audit in this kernel"
#     or EPERM ends the connection's sshd ("linux_audit_write_entry
#     failed"). What the container gives (the container has no
#     CAP_AUDIT_WRITE in a network namespace of its own) is recorded, and
#     the test server must go on serving.
# Part of make check-openssh, after the matrix has built (or found) the
# RHEL build in OPENSSH_CACHE; skipped with the reason when its sources
# ($RHEL_OPENSSH_SOURCES, $OPENSSH_SOURCES) are missing.
# shellcheck disable=SC2016 # test bodies are single-quoted: the harness evals them
# shellcheck disable=SC2034 # names used only inside the eval'd test bodies
. "$(dirname "$0")/../lib/harness.sh"
# shellcheck source=../lib/container.sh
. "$TEST_DIR/lib/container.sh"

SOURCES=${OPENSSH_SOURCES:-$KIT_DIR/../shared/vendor/openssh}
RHEL_SOURCES=${RHEL_OPENSSH_SOURCES:-$KIT_DIR/../shared/vendor/rhel9-openssh}
sum=$(grep -Eo '^ *[0-9a-f]{64} +openssh-8\.7p1\.tar\.gz' "$SOURCES/README.md" 2>/dev/null | awk '{ print $1; exit }')
if [ ! -f "$RHEL_SOURCES/SPECS/openssh.spec" ] || [ ! -f "$SOURCES/openssh-8.7p1.tar.gz" ] || [ -z "$sum" ]; then
	test_skip 'RHEL 9 8.7p1 under systemd' "no RHEL openssh sources ($RHEL_SOURCES/SPECS/openssh.spec) or no upstream 8.7p1 tarball with its sha256 ($SOURCES/README.md)"
	test_done
	exit 0
fi
prefix=$("$TEST_DIR/openssh/build-rhel9.sh" "$RHEL_SOURCES" "$SOURCES/openssh-8.7p1.tar.gz" "$sum" 2>"$TEST_TMP/build.err" | head -n 1)
if [ -z "$prefix" ] || [ ! -x "$prefix/sbin/sshd" ]; then
	test_expect 'the RHEL 9 build is there (build-rhel9.sh)' 'tail -n 5 "$TEST_TMP/build.err"; false'
	test_done
	exit 0
fi
# The build's paths are compiled in: the container sees it where the host does.
export CONTAINER_BINDS="$prefix"
container_test 'RHEL 9 8.7p1 under systemd' t36

UNIT=sshd-perf-test.service
CFG=/var/lib/sshd-perf-kit/state/client/ssh_config
mkdir -p "$TEST_TMP/results"
ct () {
	container_exec env OPENSSH_PREFIX="$prefix" LOGIN_SAMPLES=3 RELOAD_SESSIONS=3 \
		RESULTS_DIR="$TEST_TMP/results" "$@"
}
show () {
	ct systemctl show -p "$1" --value "$UNIT"
}

test_expect 'the RHEL build runs in the container (its libraries are there)' '
	{ ct "$prefix/sbin/sshd" -V >"$TEST_TMP/version" 2>&1 || true; } &&
	test_grep "OpenSSH_8.7p1" "$TEST_TMP/version"
'

test_expect 'start: Type=notify for this build, and the unit is active: systemd got READY=1' '
	ct "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 || { cat "$TEST_TMP/start.out"; false; } &&
	ct systemctl cat "$UNIT" >"$TEST_TMP/unit" &&
	test_grep -x "Type=notify" "$TEST_TMP/unit" &&
	test_grep "^ExecStart=$prefix/sbin/sshd -D" "$TEST_TMP/unit" &&
	test_eq "$(show Type)" notify &&
	test_eq "$(show ActiveState)/$(show SubState)" active/running &&
	start=$(show ExecMainStartTimestampMonotonic) && ready=$(show ActiveEnterTimestampMonotonic) &&
	[ "${start:-0}" -gt 0 ] && [ "${ready:-0}" -ge "$start" ] &&
	echo "# READY=1 reached systemd $(( (ready - start) / 1000 )) ms after sshd started" >>"$TEST_TMP/found" &&
	test_eq "$(show MainPID)" "$(ct "$KIT_DIR/start-ssh.sh" status | sed -n "s/^pid=//p")"
'

test_expect 'a key login works through the RHEL build s client' '
	test_eq "$(ct "$prefix/bin/ssh" -F "$CFG" sshperf-test id -un)" sshperf
'

test_expect 'the audit records: the server goes on serving, and the kit says what the kernel gave' '
	ct journalctl -b --no-pager -o cat -u "$UNIT" >"$TEST_TMP/journal" &&
	if grep -q "linux_audit_write_entry failed" "$TEST_TMP/journal"; then
		echo "# audit: a write failed, the server went on: $(grep -m 1 linux_audit "$TEST_TMP/journal")" >>"$TEST_TMP/found"
	else
		echo "# audit: no failed write in the unit s log ($(grep -ci audit "$TEST_TMP/journal") lines name audit)" >>"$TEST_TMP/found"
	fi &&
	test_eq "$(ct "$prefix/bin/ssh" -F "$CFG" sshperf-test echo again)" again &&
	test_eq "$(show ActiveState)" active
'

# systemd logs each notification it gets only at debug level: raised
# for the reload (the container is thrown away), the journal from a
# cursor taken before it shows whether this build's re-exec (same PID:
# sshd execs itself on SIGHUP) sent READY=1 again.
test_expect 'reload: the same MainPID; after sshd'"'"'s re-exec systemd got READY=1 from it again (its debug log); the new login timed; no RELOADING' '
	pid=$(show MainPID) &&
	cursor=$(ct journalctl -n 0 --show-cursor --no-pager | sed -n "s/^-- cursor: //p") && [ -n "$cursor" ] &&
	ct systemd-analyze log-level debug &&
	rc=0; ct "$KIT_DIR/test-ssh.sh" -q reload >"$TEST_TMP/reload.out" 2>&1 || rc=$?
	ct systemd-analyze log-level info &&
	# 0 PASS, 1 FAIL, 3 INCONCLUSIVE: a complete run.
	{ [ "$rc" -le 1 ] || [ "$rc" -eq 3 ] || { cat "$TEST_TMP/reload.out"; false; }; } &&
	run=$(find "$TEST_TMP/results" -mindepth 1 -maxdepth 1 -type d | head -n 1) &&
	env_file="$run/data/reload.env" && test -f "$env_file" &&
	status=$(sed -n "s/^status=//p" "$env_file" | tail -n 1) &&
	case $status in PASS | FAIL | INCONCLUSIVE) ;; *) echo "reload status: $status"; false ;; esac &&
	test_eq "$(show MainPID)" "$pid" &&
	test_eq "$(show ActiveState)/$(show SubState)" active/running &&
	ct journalctl --after-cursor="$cursor" --no-pager -o cat -u "$UNIT" >"$TEST_TMP/reload.journal" &&
	test_grep "Received SIGHUP; restarting" "$TEST_TMP/reload.journal" &&
	hup=$(grep -n "Received SIGHUP; restarting" "$TEST_TMP/reload.journal" | head -n 1 | cut -d: -f1) &&
	tail -n +"$hup" "$TEST_TMP/reload.journal" >"$TEST_TMP/after-hup" &&
	test_grep -E "notification message from PID $pid \(.*READY=1" "$TEST_TMP/after-hup" &&
	test_grep ! "RELOADING=1" "$TEST_TMP/reload.journal" &&
	echo "# reload: $status, $(sed -n "s/^summary=//p" "$env_file" | tail -n 1)" >>"$TEST_TMP/found" &&
	echo "# reload: systemd: $(grep -m 1 -E "notification message from PID $pid \(.*READY=1" "$TEST_TMP/after-hup")" >>"$TEST_TMP/found"
'

test_expect 'cleanup removes the unit' '
	ct "$KIT_DIR/start-ssh.sh" -q cleanup &&
	! ct test -e "/etc/systemd/system/$UNIT"
'
# What this build and container gave (timings, audit, reload).
cat "$TEST_TMP/found" 2>/dev/null
test_done
