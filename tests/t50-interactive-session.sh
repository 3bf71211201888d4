#!/usr/bin/env bash
# interactive and session on the real test server with small settings:
# report rows with numbers and verdicts, both echo clients, no ssh master
# left behind, a wrong pinned host key refused by sshperf-echo, and the
# host exactly as before after cleanup.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"

host_kit_test 'interactive and session'
STATE=$STATE_DIR
CLIENT="$STATE/client"
export CLIENT
# ECHO_CLIENT is left at its default, both: the real ssh client is timed
# in a default run too.
unset ECHO_CLIENT
export ECHO_COUNT=50 SESSION_COMMANDS=10 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"

test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

host_snapshot_save

# last ENV KEY: the value of KEY in a data file (the last line wins).
last () {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

# staged ENV BASE PCT: how many samples a staged test took: BASE, or
# when its interval held the target, the count of the last stage taken
# from the plan fixed in advance (stage_plan BASE PCT, lib/measure.sh).
staged () {
	local stages
	stages=$(last "$1" stages)
	if [ "${stages:-1}" -gt 1 ]; then
		(. "$KIT_DIR/lib/measure.sh" && stage_plan "$2" "$3") | cut -d " " -f "$stages"
	else
		echo "$2"
	fi
}

# Processes started with the session test's control path.
control_path_processes () {
	local p
	for p in /proc/[0-9]*; do
		tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -qF "ControlPath=$STATE/cm-" && echo "${p#/proc/}"
	done
	return 0
}

test_expect 'start the test server' '
	"$KIT_DIR/start-ssh.sh" -q >"$TEST_TMP/start.out" 2>&1
'

test_expect 'test-ssh.sh interactive session writes both rows with numbers and verdicts' '
	rc=0; "$KIT_DIR/test-ssh.sh" interactive session >"$TEST_TMP/t.out" 2>&1 || rc=$? &&
	test_verdict_exit "$rc" "$TEST_TMP/t.out" &&
	report=$(tail -n 1 "$TEST_TMP/t.out") && [ -f "$report" ] &&
	echo "$report" >"$TEST_TMP/report-path" &&
	data=$(dirname "$report")/data &&
	{ grep -E "^\| 7 \| \[Command over an open connection\]\(#session\) \(\`session\`\) \| [0-9.]+ ms .*n=$(staged "$data/session.env" 10 95)\).*\*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$report" &&
	  grep -E "^\| 8 \| \[Keystroke echo\]\(#interactive\) \(\`interactive\`\) \| [0-9.]+ ms .*libssh, n=$(staged "$data/interactive.env" 50 99)\).*\*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$report" ||
	  { cat "$TEST_TMP/t.out"; grep "^| [78] |" "$report"; false; }; }
'

# The libssh client is the one judged: its keystrokes may go on in the
# stages while its p99's interval holds the target; ssh -tt types 50.
test_expect 'interactive: both clients timed all their keystrokes, none lost, kex and cipher named' '
	data=$(dirname "$(cat "$TEST_TMP/report-path")")/data/interactive.env &&
	n=$(staged "$data" 50 99) &&
	test_eq "$(last "$data" libssh_n)" "$n" && test_eq "$(last "$data" ssh_n)" 50 &&
	test_eq "$(last "$data" libssh_lost)" 0 && test_eq "$(last "$data" ssh_lost)" 0 &&
	test_grep -x "libssh_echo_bytes=1" "$data" && test_grep -x "ssh_echo_bytes=1" "$data" &&
	test_grep -E "^libssh_kex=[a-z0-9@.-]+$" "$data" && test_grep -E "^libssh_cipher_out=[a-z0-9@.-]+$" "$data" &&
	report=$(cat "$TEST_TMP/report-path") &&
	test_grep -E "^\| \*\*libssh .*\| $n \| 0 \| [0-9.]+ \|" "$report" &&
	test_grep -E "^\| \`ssh -tt\` .*\| 50 \| 0 \| [0-9.]+ \|" "$report" &&
	test_eq "$(tail -n +2 "$(dirname "$report")/raw/interactive-libssh.tsv" | wc -l)" "$n" &&
	test_grep "Both clients were timed through the same sshd (\`ECHO_CLIENT=both\`)" "$report"
'

# "The machine was busy" rests on the CPU time of the test itself
# (/proc/stat over the echo run), never on the load average.
test_expect 'interactive: busy follows the CPU time sampled over the test, not the load average' '
	data=$(dirname "$(cat "$TEST_TMP/report-path")")/data/interactive.env &&
	busy=$(sed -n "s/^cpu_busy_pct=//p" "$data") && idle=$(sed -n "s/^cpu_idle_pct=//p" "$data") &&
	steal=$(sed -n "s/^cpu_steal_pct=//p" "$data") &&
	[ -n "$busy" ] && [ -n "$idle" ] && [ -n "$steal" ] &&
	if [ "$idle" -lt 50 ] || [ "$steal" -ge 5 ]; then want=yes; else want=no; fi &&
	test_grep -x "busy=$want" "$data" &&
	test_grep ! "^warning=.*load average" "$data"
'

test_expect 'session: 10 commands over the master (more in stages), compared with a login' '
	data=$(dirname "$(cat "$TEST_TMP/report-path")")/data/session.env &&
	n=$(staged "$data" 10 95) &&
	test_eq "$(last "$data" runs)" "$n" && test_eq "$(last "$data" ok)" "$n" && test_eq "$(last "$data" failed)" 0 &&
	test_grep -x "master_survived=yes" "$data" && test_grep -E "^speedup=[0-9.]+$" "$data" &&
	test_grep -E "^login_p50=[0-9.]+$" "$data"
'

test_expect 'no ssh master or client with the control path is left' '
	[ "$(control_path_processes | wc -l)" -eq 0 ] &&
	! ls "$STATE"/cm-* 2>/dev/null
'

test_expect 'sshperf-echo refuses a known_hosts with a wrong key for the server' '
	awk "{ print \$1, \"ssh-ed25519\", \"AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl\"; exit }" \
		"$CLIENT/known_hosts" >"$TEST_TMP/wrong_known_hosts" &&
	expect_status 1 "$BUILD_DIR/sshperf-echo" -m libssh -h 127.0.0.1 -p $TEST_PORT -u $TEST_USER \
		-k "$CLIENT/id_ed25519" -K "$TEST_TMP/wrong_known_hosts" -n 5 &&
	test_grep "refusing to log in: host key of \[127.0.0.1\]:$TEST_PORT" "$TEST_TMP/out" &&
	test_grep ! "^auth_ms=" "$TEST_TMP/out"
'

test_expect 'sshperf-echo refuses a known_hosts without the server' '
	: >"$TEST_TMP/empty_known_hosts" &&
	expect_status 1 "$BUILD_DIR/sshperf-echo" -m libssh -h 127.0.0.1 -p $TEST_PORT -u $TEST_USER \
		-k "$CLIENT/id_ed25519" -K "$TEST_TMP/empty_known_hosts" -n 5 &&
	test_grep "refusing to log in" "$TEST_TMP/out"
'

test_expect 'sshperf-echo with the pinned key logs in and times every echo' '
	"$BUILD_DIR/sshperf-echo" -m libssh -h 127.0.0.1 -p $TEST_PORT -u $TEST_USER \
		-k "$CLIENT/id_ed25519" -K "$CLIENT/known_hosts" -n 20 -r 200 >"$TEST_TMP/ok.out" &&
	test_grep -x "n=20" "$TEST_TMP/ok.out" && test_grep -x "lost=0" "$TEST_TMP/ok.out"
'

test_expect 'a master that cannot log in makes session FAIL with the reason' '
	mv "$CLIENT/id_ed25519" "$CLIENT/id_ed25519.away" &&
	{ rc=0; "$KIT_DIR/test-ssh.sh" session >"$TEST_TMP/f.out" 2>&1 || rc=$?; } &&
	mv "$CLIENT/id_ed25519.away" "$CLIENT/id_ed25519" &&
	[ "$rc" -eq 1 ] &&
	report=$(tail -n 1 "$TEST_TMP/f.out") &&
	test_grep -x "status=FAIL" "$(dirname "$report")/data/session.env" &&
	test_grep "^reason=the master connection did not come up" "$(dirname "$report")/data/session.env" &&
	[ "$(control_path_processes | wc -l)" -eq 0 ]
'

test_expect 'cleanup: the host is as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	no_kit_processes &&
	host_unchanged
'

test_done
