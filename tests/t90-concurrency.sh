#!/usr/bin/env bash
# Concurrent runs: while test-ssh.sh runs, a second test-ssh.sh, start,
# stop and cleanup each refuse with one line and exit 2, and change
# nothing; status (read-only) still answers. A run killed with SIGKILL
# leaves no lock behind: the next command works at once.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'concurrent runs'
STATE=$STATE_DIR
LOCK=$LOCK_FILE
CFG="$STATE/client/ssh_config"
export CFG LOCK RESULTS_DIR="$TEST_TMP/results" LOGIN_SAMPLES=2
mkdir -p "$RESULTS_DIR"

runner=""
# Ends the first run and everything it started (by recorded pid).
end_runner () {
	[ -n "$runner" ] || return 0
	kill -TERM "$runner" 2>/dev/null
	wait "$runner" 2>/dev/null
	runner=""
}
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'
test_atexit end_runner

# refused CMD...: exit 2 and one line naming the lock.
refused () {
	local rc=0
	"$@" >"$TEST_TMP/o" 2>"$TEST_TMP/e" || rc=$?
	[ "$rc" -eq 2 ] || { echo "exit $rc from: $*"; cat "$TEST_TMP/o" "$TEST_TMP/e"; return 1; }
	[ "$(wc -l <"$TEST_TMP/e")" -eq 1 ] || { echo "not one line:"; cat "$TEST_TMP/e"; return 1; }
	test_grep "another sshd-perf-kit command is running (lock $LOCK held by pid $runner); wait for it to finish" "$TEST_TMP/e" ||
		{ echo "unexpected message:"; cat "$TEST_TMP/e"; return 1; }
}

test_expect 'start the test server' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st0"
'

# The first run: many logins, so that it is busy during the whole test.
LOGIN_SAMPLES=400 "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/first.out" 2>&1 &
runner=$!

test_expect 'the first test-ssh.sh takes the lock' '
	deadline=$(( $(date +%s) + 30 )) &&
	until [ "$(cat "$LOCK.pid" 2>/dev/null)" = "$runner" ] && grep -q "^test-ssh.sh: login: 400 logins" "$TEST_TMP/first.out"; do
		[ "$(date +%s)" -lt "$deadline" ] || { cat "$TEST_TMP/first.out"; return 1; }
		sleep 0.05
	done
'

test_expect 'a second test-ssh.sh refuses with one line, exit 2' '
	refused "$KIT_DIR/test-ssh.sh" login &&
	[ "$(ls "$RESULTS_DIR" | wc -l)" -eq 1 ]
'

test_expect 'start, stop and cleanup refuse while a test runs; the server is untouched' '
	refused "$KIT_DIR/start-ssh.sh" &&
	refused "$KIT_DIR/start-ssh.sh" stop &&
	refused "$KIT_DIR/start-ssh.sh" cleanup &&
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st1" &&
	test_cmp "$TEST_TMP/st0" "$TEST_TMP/st1" && [ -d "$STATE" ]
'

test_expect 'status is read-only and answers during a run' '
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st2" && test_grep -x "state=running" "$TEST_TMP/st2"
'

test_expect 'the first run is still running and unharmed' '
	kill -0 "$runner" && test_grep ! "interrupted" "$TEST_TMP/first.out"
'

test_expect 'a run killed with SIGKILL leaves no lock: the next command works at once' '
	tree "$runner" >"$TEST_TMP/tree" &&
	kill -KILL "$runner" && { wait "$runner" 2>/dev/null; true; } &&
	rc=0; LOGIN_SAMPLES=2 "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/next.out" 2>&1 || rc=$? &&
	test_verdict_exit "$rc" "$TEST_TMP/next.out" &&
	[ -f "$(tail -n 1 "$TEST_TMP/next.out")" ] &&
	# The killed run could not remove its temporary folder; the next did.
	! ls -d "${TMPDIR:-/tmp}/$RUN_TMP_NAME".* 2>/dev/null &&
	"$KIT_DIR/start-ssh.sh" -q stop && "$KIT_DIR/start-ssh.sh" -q
'
# What the killed run left (its helper keeps logging in until its own end).
runner=""
# shellcheck disable=SC2046 # a list of pids
kill -TERM $(cut -d" " -f1 "$TEST_TMP/tree") 2>/dev/null

test_expect 'two runs started at the same moment: one runs, the other refuses' '
	"$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/a.out" 2>&1 & a=$!
	"$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/b.out" 2>&1 & b=$!
	ra=0; wait "$a" || ra=$?
	rb=0; wait "$b" || rb=$?
	echo "exits: $ra $rb" &&
	{ { { [ "$ra" -le 1 ] || [ "$ra" -eq 3 ]; } && [ "$rb" -eq 2 ] && test_grep "another sshd-perf-kit command is running" "$TEST_TMP/b.out"; } ||
	  { { [ "$rb" -le 1 ] || [ "$rb" -eq 3 ]; } && [ "$ra" -eq 2 ] && test_grep "another sshd-perf-kit command is running" "$TEST_TMP/a.out"; }; }
'

test_expect 'cleanup after it all: the lock is gone' '
	"$KIT_DIR/start-ssh.sh" -q cleanup && [ ! -e "$LOCK" ] && [ ! -e "$LOCK.pid" ] &&
	no_kit_processes
'

test_done
