#!/usr/bin/env bash
# Faults (host, without systemd): the test server killed in the middle of
# a test, a server that hangs (stopped with SIGSTOP), the test user's
# process limit reached during concurrent, and a file system that runs
# full during sftp. Each time the run ends by itself with the fault named
# in the report, the tests after a lost server are marked as not run,
# nothing the run started is left, and the kit works again afterwards.
# The deadlines waited for here are safety nets against a hang, not
# measurements.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'faults' direct
STATE=$STATE_DIR
CFG="$STATE/client/ssh_config"
# shellcheck disable=SC2034 # in the test bodies
LIMITS=/etc/security/limits.d/sshperf-t92-test.conf
export CFG STATE RESULTS_DIR="$TEST_TMP/results"
export LOGIN_SAMPLES=3 DURATION=20 SESSION_COMMANDS=20
mkdir -p "$RESULTS_DIR"

test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

listener () {
	"$KIT_DIR/start-ssh.sh" status | sed -n 's/^pid=\([0-9][0-9]*\)$/\1/p'
}

# run_bg ARGS...: test-ssh.sh ARGS in the background, output in run.out;
# killed after the test unless finished saw it end.
run_bg () {
	"$KIT_DIR/test-ssh.sh" "$@" </dev/null >"$TEST_TMP/run.out" 2>&1 &
	runner=$!
	test_when_finished '[ -z "$runner" ] || kill -KILL "$runner" 2>/dev/null || :'
}

# finished SECONDS: the background run ended within the safety deadline;
# its exit status in $rc, its run folder in $run. What of it still runs
# is taken at once, when test-ssh.sh has returned (for nothing_left):
# the kit waits for its processes itself before it exits, so no grace.
finished () {
	waits_for "$1" eval '! kill -0 "$runner" 2>/dev/null' || { cat "$TEST_TMP/run.out"; return 1; }
	left_of "$TEST_TMP/tree" >"$TEST_TMP/left"
	kit_clients >"$TEST_TMP/clients"
	rc=0; wait "$runner" || rc=$?
	runner=""
	cat "$TEST_TMP/run.out"
	run=$(dirname "$(tail -n 1 "$TEST_TMP/run.out")")
	[ -f "$run/report.md" ]
}

# Nothing the run started was left when test-ssh.sh returned (finished
# took it then): no process of its tree, no client.
nothing_left () {
	test_cmp /dev/null "$TEST_TMP/left" &&
	test_cmp /dev/null "$TEST_TMP/clients" &&
	! ls -d "${TMPDIR:-/tmp}/$RUN_TMP_NAME".* 2>/dev/null
}

# Keeps the process tree of the runner up to date (for nothing_left).
watch_tree () {
	while kill -0 "$runner" 2>/dev/null; do
		tree "$runner" >>"$TEST_TMP/tree"
		sleep 0.2
	done
}

host_snapshot_save

test_expect 'start the test server' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null && [ -n "$(listener)" ]
'

test_expect 'server killed during rate: rate ERROR naming it, the rest not run, nothing left' '
	: >"$TEST_TMP/tree" &&
	run_bg rate session login && { watch_tree & watcher=$!; } &&
	waits_for 60 grep -q "^test-ssh.sh: rate: " "$TEST_TMP/run.out" &&
	sleep 2 && pid=$(listener) && [ -n "$pid" ] &&
	kill -KILL "$pid" &&
	finished 60 && wait "$watcher" &&
	[ "$rc" -eq 1 ] &&
	test_grep -x "status=ERROR" "$run/data/rate.env" &&
	test_grep "^reason=the test server (sshd pid $pid) ended during this test" "$run/data/rate.env" &&
	test_grep "^test-ssh.sh: rate: the test server (sshd pid $pid) ended during this test.* -> ERROR$" "$TEST_TMP/run.out" &&
	[ ! -f "$run/data/session.env" ] && [ ! -f "$run/data/login.env" ] &&
	test_grep -F "| SKIPPED: not run, the test server ended during \`rate\` |" "$run/report.md" &&
	[ "$(grep -c "SKIPPED: not run, the test server ended during" "$run/report.md")" -eq 2 ] &&
	test_grep "\"status\": \"SKIPPED\"" "$run/results.json" &&
	test_grep "the test server ended during" "$run/results.json" &&
	test_grep "^| \*\*Verdict\*\* | \*\*FAIL\*\*" "$run/report.md" &&
	nothing_left
'

test_expect 'start-ssh.sh brings the killed server back; a run works again' '
	! "$KIT_DIR/start-ssh.sh" status >/dev/null &&
	"$KIT_DIR/start-ssh.sh" -q >/dev/null && [ -n "$(listener)" ] &&
	rc=0; "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/again.out" 2>&1 || rc=$? &&
	test_verdict_exit "$rc" "$TEST_TMP/again.out" && test_grep -E "^status=(PASS|FAIL|INCONCLUSIVE)" "$(dirname "$(tail -n 1 "$TEST_TMP/again.out")")/data/login.env"
'

test_expect 'a server that hangs (SIGSTOP): login ends at LOGIN_TIMEOUT with the failures named' '
	: >"$TEST_TMP/tree" &&
	frozen=$(listener) && kill -STOP "$frozen" &&
	test_when_finished "kill -CONT $frozen 2>/dev/null || :" &&
	LOGIN_TIMEOUT=3 run_bg login && { watch_tree & watcher=$!; } &&
	finished 120 && wait "$watcher" &&
	kill -CONT "$frozen" &&
	[ "$rc" -eq 1 ] &&
	test_grep -xE "status=(FAIL|ERROR)" "$run/data/login.env" &&
	test_grep "^reason=no login succeeded; first error: no answer before the deadline, waiting for the server.s greeting" "$run/data/login.env" &&
	test_grep "^summary=p50 - ms, p95 - ms over 0 logins (3 failed)" "$run/data/login.env" &&
	nothing_left
'

test_expect 'after SIGCONT the same server takes logins again' '
	[ -n "$(listener)" ] && timeout 30 ssh -F "$CFG" $HOST_ALIAS true </dev/null
'

test_expect 'process limit of the test user during concurrent: reported as that limit, no hang' '
	test_when_finished "rm -f \"\$LIMITS\"" &&
	printf "$TEST_USER hard nproc 16\n$TEST_USER soft nproc 16\n" >"$LIMITS" &&
	: >"$TEST_TMP/tree" &&
	CONCURRENT_SESSIONS=30 CONCURRENT_LOGIN_PARALLEL=4 run_bg concurrent && { watch_tree & watcher=$!; } &&
	finished 300 && wait "$watcher" &&
	rm -f "$LIMITS" &&
	[ "$rc" -eq 1 ] &&
	test_grep -x "status=FAIL" "$run/data/concurrent.env" &&
	test_grep -x "limit=processes" "$run/data/concurrent.env" &&
	test_grep -x "limit_nproc=16" "$run/data/concurrent.env" &&
	test_grep "processes per user: ulimit -u is 16" "$run/report.md" &&
	[ -s "$run/raw/probe-hold-ssh-errors.txt" ] &&
	nothing_left
'

# 16 inodes: the 40 small files run out of them (the large file is one
# file, one inode).
test_expect 'a file system that runs full during sftp: FAIL with the error, its files removed' '
	home=$(getent passwd $TEST_USER | cut -d: -f6) && [ -d "$home" ] &&
	cp -a "$home/." "$TEST_TMP/home-copy" &&
	mount -t tmpfs -o size=64m,nr_inodes=16,mode=0700 t92-full "$home" &&
	test_when_finished "umount \"$home\" 2>/dev/null || :" &&
	cp -a "$TEST_TMP/home-copy/." "$home/" && chown $TEST_USER: "$home" &&
	ls -A "$home" >"$TEST_TMP/home-before" &&
	: >"$TEST_TMP/tree" &&
	SFTP_FILE_MB=4 SFTP_SMALL_FILES=40 SFTP_SMALL_FILE_KB=4 run_bg sftp && { watch_tree & watcher=$!; } &&
	finished 300 && wait "$watcher" &&
	ls -A "$home" >"$TEST_TMP/home-after" &&
	umount "$home" &&
	[ "$rc" -eq 1 ] &&
	test_grep -xE "status=(FAIL|ERROR)" "$run/data/sftp.env" &&
	test_grep -E "^reason=.*(large file up|small files): sftp failed \(exit 1\): .*: Failure; the file system of the test user.s home .* is full \(.* 0 inodes free\)" "$run/data/sftp.env" &&
	test_cmp "$TEST_TMP/home-before" "$TEST_TMP/home-after" &&
	nothing_left
'

test_expect 'cleanup removes everything: the host is as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged
'

test_done
