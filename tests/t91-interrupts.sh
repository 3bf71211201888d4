#!/usr/bin/env bash
# Interrupts (host, without systemd): SIGTERM or SIGINT to test-ssh.sh in
# the middle of burst, concurrent, transfer, startup and reload, and to
# start-ssh.sh during a first start and during cleanup. Afterwards: the
# script ended within seconds, nothing it started is left running, the
# report is written with the interrupted test marked INTERRUPTED and the
# completed one kept, the test server runs (or is cleanly removed), and
# the next run works without repair.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'interrupts' direct
STATE=$STATE_DIR
CFG="$STATE/client/ssh_config"
export CFG STATE RESULTS_DIR="$TEST_TMP/results"
# Small settings: the interrupt comes early in each test anyway.
export LOGIN_SAMPLES=2 BURST_STEPS="20 40" CONCURRENT_SESSIONS=20 CONCURRENT_LOGIN_PARALLEL=4 \
	TRANSFER_MB=2000 TRANSFER_CIPHERS='' STARTUP_ROUNDS=10 RELOAD_SESSIONS=10
mkdir -p "$RESULTS_DIR"

test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

# A background command that gets SIGINT (a non-interactive shell's
# background jobs ignore it unless job control is on).
spawn () {
	set -m
	"$@" </dev/null >"$TEST_TMP/run.out" 2>&1 &
	runner=$!
	set +m
	test_when_finished '[ -z "$runner" ] || kill -KILL "$runner" 2>/dev/null || :'
}

# The interrupt point: the test's line is on the console and a process
# whose program matches $2 runs below the script.
at_point () {
	local p
	grep -q "^test-ssh.sh: $1: " "$TEST_TMP/run.out" || return 1
	for p in $(tree "$runner" | cut -d' ' -f1); do
		# shellcheck disable=SC2254 # $2 is a glob pattern
		case $(readlink "/proc/$p/exe" 2>/dev/null) in $2) return 0 ;; esac
	done
	return 1
}

# interrupt TEST SIGNAL EXE_PATTERN: test-ssh.sh login TEST, SIGNAL at the
# interrupt point, then every check.
interrupt () {
	local name=$1 sig=$2 pattern=$3 t0 rc run
	spawn "$KIT_DIR/test-ssh.sh" login "$name"
	waits_for 60 at_point "$name" "$pattern" || { cat "$TEST_TMP/run.out"; return 1; }
	tree "$runner" >"$TEST_TMP/tree"
	t0=$(date +%s)
	kill -s "$sig" "$runner"
	# A safety net against a hang, not a bound: beside five other runs of
	# the tests, SIGTERM during startup took 84 s to end before the kit
	# waited for its processes (the job's own cleanup starts the server
	# again, S + 20 s at most, then the report is written).
	waits_for 240 eval '! kill -0 "$runner" 2>/dev/null || [ "$(awk "{ sub(/.*\\) /, \"\"); print \$1 }" /proc/$runner/stat)" = Z ]' || return 1
	# What of it still runs, taken at once: test-ssh.sh waits for every
	# process it started before it exits, so there is no grace.
	left_of "$TEST_TMP/tree" >"$TEST_TMP/left"
	kit_clients >"$TEST_TMP/clients"
	rc=0; wait "$runner" || rc=$?
	runner=""
	echo "exit $rc after $(( $(date +%s) - t0 )) s"; cat "$TEST_TMP/run.out"
	# How soon it ends depends on the machine (startup starts the server
	# again first); that it did not run to its end shows in its status,
	# INTERRUPTED, checked below. No time bound: a busy machine broke one
	# of 15 s (18 s and 29 s beside other work).
	[ "$rc" -eq 130 ] &&
	test_cmp /dev/null "$TEST_TMP/left" &&
	test_cmp /dev/null "$TEST_TMP/clients" &&
	test_grep "interrupted; partial report" "$TEST_TMP/run.out" &&
	# Its temporary folder (FIFOs, copies) is gone with it.
	! ls -d "${TMPDIR:-/tmp}/$RUN_TMP_NAME".* 2>/dev/null &&
	run=$(dirname "$(grep -o "/[^ ]*/report.md" "$TEST_TMP/run.out")") &&
	[ -f "$run/report.md" ] &&
	test_grep -x "interrupted=yes" "$run/data/run.env" &&
	test_grep -x "status=INTERRUPTED" "$run/data/$name.env" &&
	test_grep -xE "status=(PASS|FAIL|INCONCLUSIVE)" "$run/data/login.env" &&
	test_grep "INTERRUPTED" "$run/report.md" &&
	test_grep -E "\(\`login\`\) \| [0-9.]+ ms .*\*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$run/report.md" &&
	# The test server runs and takes logins.
	[ "$(kit_processes | wc -l)" -ge 1 ] &&
	"$KIT_DIR/start-ssh.sh" status >/dev/null &&
	timeout 30 ssh -F "$CFG" "$HOST_ALIAS" true </dev/null
}

host_snapshot_save

test_expect 'start the test server' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null
'

# A signal ignored when a shell starts cannot be trapped in it, nor in
# anything it starts: run in the background of a non-interactive shell
# (`t91 &` from a script), this test and every test-ssh.sh below it ignore
# SIGINT, and the SIGINT checks could only fail. SIGINT is bit 2 of SigIgn.
sig_ign=0
while read -r key value; do [ "$key" != SigIgn: ] || sig_ign=$value; done <"/proc/$$/status"
if (((16#$sig_ign & 2) != 0)); then
	INT_SKIP="SIGINT is ignored in this test's process (started in the background of a script?), so no script below it can trap it"
else
	INT_SKIP=""
fi

int_test () {
	if [ -n "$INT_SKIP" ]; then test_skip "$1" "$INT_SKIP"; else test_expect "$1" "$2"; fi
}

int_test 'SIGINT during burst' '
	interrupt burst INT "*/ssh"
'

test_expect 'SIGTERM during concurrent' '
	interrupt concurrent TERM "*/ssh"
'

test_expect 'SIGTERM during transfer' '
	interrupt transfer TERM "*/ssh"
'

test_expect 'SIGTERM during startup (between a stop and a start)' '
	interrupt startup TERM "*/sshperf-connect"
'

int_test 'SIGINT during reload' '
	interrupt reload INT "*/ssh"
'

test_expect 'the next run works without repair' '
	rc=0; "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/next.out" 2>&1 || rc=$? &&
	# 0 PASS, 1 FAIL, 3 INCONCLUSIVE: each is a complete run.
	test_verdict_exit "$rc" "$TEST_TMP/next.out" && [ -f "$(tail -n 1 "$TEST_TMP/next.out")" ]
'

# The listener is stopped (SIGSTOP) first, so the cleanup's SIGTERM to it
# stays pending and its wait for the listener to end lasts until the
# signal reaches the cleanup: the cleanup is certainly between its first
# step and its last when it is signalled, however fast or slow the machine.
listener () {
	"$KIT_DIR/start-ssh.sh" status | sed -n 's/^pid=\([0-9][0-9]*\)$/\1/p'
}

# term_pending PID: SIGTERM (15) waits in the process's shared pending set.
term_pending () {
	local set
	set=$(awk '/^ShdPnd:/ { print $2 }' "/proc/$1/status" 2>/dev/null) && [ -n "$set" ] &&
		(( 0x$set & 0x4000 ))
}

test_expect 'SIGTERM during cleanup: the cleanup finishes, then exit 130' '
	l=$(listener) && [ -n "$l" ] &&
	kill -STOP "$l" && test_when_finished "kill -CONT $l 2>/dev/null || :" &&
	spawn "$KIT_DIR/start-ssh.sh" cleanup &&
	waits_for 60 term_pending "$l" &&
	kill -TERM "$runner" && kill -CONT "$l" &&
	rc=0 && { wait "$runner" || rc=$?; } && runner= &&
	cat "$TEST_TMP/run.out" && echo "exit $rc" &&
	[ "$rc" -eq 130 ] &&
	no_kit_processes && host_unchanged
'

# A first start interrupted: early (files made) and late (sshd running,
# login not yet checked). Either way the host is as before.
start_interrupted () {
	local rc=0
	spawn "$KIT_DIR/start-ssh.sh"
	waits_for 60 "$@" || return 1
	kill -TERM "$runner" 2>/dev/null || echo "the start ended before the signal"
	wait "$runner" || rc=$?
	runner=""
	cat "$TEST_TMP/run.out"; echo "exit $rc"
	[ "$rc" -eq 143 ] || [ "$rc" -eq 130 ] || { echo "the start was not interrupted (exit $rc)"; [ "$rc" -eq 0 ] && "$KIT_DIR/start-ssh.sh" -q cleanup; }
	no_kit_processes && host_unchanged
}

test_expect 'SIGTERM during a first start (its files made): the host is as before' '
	start_interrupted test -e $SSHD_CONFIG
'

test_expect 'SIGTERM during a first start (sshd running): no server left, host as before' '
	start_interrupted eval "[ \"\$(kit_processes | wc -l)\" -ge 1 ]"
'

test_expect 'after it all, start and cleanup work' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null && "$KIT_DIR/start-ssh.sh" -q cleanup &&
	host_unchanged
'

test_done
