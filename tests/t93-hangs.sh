#!/usr/bin/env bash
# Hangs (host, without systemd): every test against a test server that
# accepts TCP connections but never answers (its listener stopped with
# SIGSTOP). Each run must end by itself within the longest time that
# docs/deadlines.md gives for these settings (plus a margin: a safety net
# against a hang, not a timing assertion), fail with a reason, leave
# nothing behind, and the server must take a login again after SIGCONT.
# The time each test took is printed as a comment, for the reader.
# A run of 13 hung tests: 853 s beside make stress-unit (2026-12).
# run.sh timeout: 1800
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'hangs' direct
STATE=$STATE_DIR
CFG="$STATE/client/ssh_config"
export CFG STATE RESULTS_DIR="$TEST_TMP/results"
# Small sizes; LOGIN_TIMEOUT also for start-ssh.sh, so that ssh's own
# ConnectTimeout in the client config is the same as the kit's deadline.
export LOGIN_TIMEOUT=2 SERVER_START_TIMEOUT=10 LOGIN_SAMPLES=5 STARTUP_ROUNDS=2 \
	DURATION=2 RATE_WORKERS=2 BURST_STEPS="2 4" CONCURRENT_SESSIONS=8 \
	CONCURRENT_LOGIN_PARALLEL=2 SESSION_COMMANDS=5 ECHO_COUNT=20 ECHO_RATE=100 \
	ECHO_CLIENT=both TRANSFER_MB=1 CEILING_SECONDS=0.1 SFTP_FILE_MB=1 \
	SFTP_SMALL_FILES=5 SFTP_SMALL_FILE_KB=1 RELOAD_SESSIONS=4
mkdir -p "$RESULTS_DIR"

test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

listener () {
	"$KIT_DIR/start-ssh.sh" status | sed -n 's/^pid=\([0-9][0-9]*\)$/\1/p'
}

# worst TEST: docs/deadlines.md's longest run against a hung server, in
# whole seconds, for the settings above (T = C = LOGIN_TIMEOUT, K = 3).
worst () {
	local t=$LOGIN_TIMEOUT s=$SERVER_START_TIMEOUT k=3 p=$CONCURRENT_LOGIN_PARALLEL first
	first=${BURST_STEPS%% *}
	# ceil(min(n, k) / p) rounds of logins that time out
	rounds () { local n=$(( $1 < k ? $1 : k )); echo $(( (n + p - 1) / p )); }
	case $1 in
	startup) echo $(( STARTUP_ROUNDS * (17 + s + t) + s )) ;;
	login) echo $(( (LOGIN_SAMPLES < k ? LOGIN_SAMPLES : k) * (t + 2) )) ;;
	auth) echo $(( 3 * (LOGIN_SAMPLES < k ? LOGIN_SAMPLES : k) * (t + 2) )) ;;
	rate) echo $(( DURATION + t + 12 )) ;;
	burst) echo $(( 60 + t + first / 2 + 2 )) ;;
	concurrent) echo $(( $(rounds "$CONCURRENT_SESSIONS") * t + t + 2 )) ;;
	session) echo $(( t + 2 )) ;;
	interactive) echo $(( (t + 1) + (t + 4) )) ;;
	transfer) echo $(( 3 * t + 1 )) ;;
	# the local files: a few seconds at most for these sizes
	sftp) echo $(( t + 5 )) ;;
	cpu) echo $(( DURATION + t + 12 + 2 * t )) ;;
	memory) echo $(( $(rounds "$CONCURRENT_SESSIONS") * t )) ;;
	reload) echo $(( $(rounds "$RELOAD_SESSIONS") * t )) ;;
	esac
}
# What test-ssh.sh adds around a test (settings, environment, report),
# and room for a busy machine. The report alone took 37 s to render at a
# load of 10 (CI beside make stress-unit, 2026-12), where 30 s of margin
# ended six runs that were on their way out.
MARGIN=75

# Keeps the process tree of the runner up to date (for nothing_left).
watch_tree () {
	while kill -0 "$runner" 2>/dev/null; do
		tree "$runner" >>"$TEST_TMP/tree"
		sleep 0.2
	done
}

# Nothing the run started is left: no process of its tree (the test
# server aside: startup starts a new one), no client of the kit.
nothing_left () {
	local pid
	pid=$(listener)
	{ waits_for 60 eval 'left_of "$TEST_TMP/tree" | grep -v "^${pid:-none} " >"$TEST_TMP/left"; [ ! -s "$TEST_TMP/left" ]' || true; } &&
	test_cmp /dev/null "$TEST_TMP/left" &&
	kit_clients >"$TEST_TMP/clients" && test_cmp /dev/null "$TEST_TMP/clients"
}

# hung TEST: runs test-ssh.sh TEST with the listener stopped, waits for it
# at most worst + MARGIN seconds, then lets the listener go on. Sets rc
# (the run's exit status, or "hung"), run (its folder) and data (its data
# file); TEST_TMP/took-TEST holds the seconds it took.
hung () {
	local name=$1 limit t0 t1 frozen
	limit=$(( $(worst "$name") + MARGIN ))
	: >"$TEST_TMP/tree"
	frozen=$(listener)
	[ -n "$frozen" ] || { echo "no listener"; return 1; }
	test_when_finished "kill -CONT $frozen 2>/dev/null || :"
	kill -STOP "$frozen"
	t0=$(date +%s.%N)
	"$KIT_DIR/test-ssh.sh" "$name" </dev/null >"$TEST_TMP/run.out" 2>&1 &
	runner=$!
	test_when_finished '[ -z "$runner" ] || kill -KILL "$runner" 2>/dev/null || :'
	watch_tree &
	watcher=$!
	rc=hung
	if waits_for "$limit" eval '! kill -0 "$runner" 2>/dev/null'; then
		rc=0; wait "$runner" || rc=$?
	else
		# Ended the way an administrator would; the test fails anyway.
		kill -TERM "$runner"
		waits_for 60 eval '! kill -0 "$runner" 2>/dev/null' || kill -KILL "$runner"
		wait "$runner" || true
	fi
	t1=$(date +%s.%N)
	runner=""
	wait "$watcher" || true
	kill -CONT "$frozen" 2>/dev/null || true
	cat "$TEST_TMP/run.out"
	run=$(dirname "$(tail -n 1 "$TEST_TMP/run.out")")
	data="$run/data/$name.env"
	awk -v a="$t0" -v b="$t1" -v l="$limit" -v rc="$rc" -v st="$(sed -n 's/^status=//p' "$data" 2>/dev/null)" \
		'BEGIN { printf "%.1f s, exit %s, %s (safety deadline %d s)\n", b - a, rc, st == "" ? "no status" : st, l }' \
		>"$TEST_TMP/took-$name"
	[ "$rc" != hung ] || { echo "$name did not end within $limit s"; return 1; }
	[ -f "$run/report.md" ]
}

# gone PID: the process has ended (a zombie counts as ended).
gone () {
	[ ! -d "/proc/$1" ] || [ "$(awk '{ sub(/.*\) /, ""); print $1 }' "/proc/$1/stat" 2>/dev/null)" = Z ]
}

# failed_with_reason: the data file says FAIL or ERROR, with a reason.
failed_with_reason () {
	test_grep -xE "status=(FAIL|ERROR)" "$data" &&
	test_grep -E "^reason=.+" "$data"
}

# The server takes a complete login (after SIGCONT; after startup, the
# new server does).
login_works () {
	[ -n "$(listener)" ] && timeout 30 ssh -F "$CFG" "$HOST_ALIAS" true </dev/null
}

took () {
	[ ! -f "$TEST_TMP/took-$1" ] || printf '# %s against a hung server: %s\n' "$1" "$(cat "$TEST_TMP/took-$1")"
}

host_snapshot_save

test_expect 'start the test server' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null && [ -n "$(listener)" ] && login_works
'

# startup stops the server and starts it again: the stop sends SIGTERM,
# which waits while the listener is stopped, and SIGKILL after 10 s; the
# new listener answers, so the test may well PASS (exit 0). The hung
# listener must be gone and a new one in its place.
test_expect 'startup with the listener stopped: kills it, starts a new one, ends by itself' '
	before=$(listener) &&
	hung startup &&
	test_verdict_exit "$rc" "$TEST_TMP/run.out" &&
	test_grep -xE "status=(PASS|FAIL|INCONCLUSIVE|ERROR)" "$data" &&
	{ grep -qx "status=PASS" "$data" || test_grep -E "^reason=.+" "$data"; } &&
	after=$(listener) && [ -n "$after" ] && [ "$after" != "$before" ] &&
	gone "$before" &&
	nothing_left && login_works
'
took startup

# stopped_note TEST: the part of the reason that says a test stopped
# waiting after K silences (docs/deadlines.md, "The K rule"), for the tests
# where these settings reach it; nothing for the others.
stopped_note () {
	case $1 in
	login) echo 'stopped after 3 logins in a row got no answer within 2s, the other 2 were not run' ;;
	auth) echo 'of them not run: each method stops after 3 logins in a row got no answer' ;;
	burst) echo 'no client of the 2-client step got an answer (each one timed out), so the steps of 4 clients were not run' ;;
	concurrent | memory) echo 'the holder stopped after 3 logins in a row got no answer within 2s, 4 sessions were not started' ;;
	transfer) echo 'ciphers were not measured' ;;
	esac
}

for name in login auth rate burst concurrent session interactive transfer sftp cpu memory reload; do
	test_expect "$name with the listener stopped: ends by itself, fails with a reason, nothing left" '
		hung '"$name"' &&
		[ "$rc" -eq 1 ] &&
		failed_with_reason &&
		note=$(stopped_note '"$name"') &&
		{ [ -z "$note" ] || test_grep -F -- "$note" "$data"; } &&
		nothing_left && login_works
	'
	took "$name"
done

test_expect 'cleanup removes everything: the host is as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged
'

test_done
