#!/usr/bin/env bash
# concurrent and memory on the real test server with small settings: all
# sessions alive, a positive PSS per session, no client left, and the host
# exactly as before after cleanup.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"

export CONCURRENT_SESSIONS=20 CONCURRENT_LOGIN_PARALLEL=4 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"

host_kit_test 'concurrent and memory'
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

host_snapshot_save

# The ssh clients of the holder: pids from its TSV that still run ssh.
clients_running () {
	local pid
	awk -F'\t' 'NR > 1 && $2 > 0 { print $2 }' "$1" | while read -r pid; do
		case $(readlink "/proc/$pid/exe" 2>/dev/null) in */ssh) echo "$pid" ;; esac
	done
}

test_expect 'start the test server' '
	"$KIT_DIR/start-ssh.sh" -q
'

test_expect 'test-ssh.sh concurrent memory runs both and writes a report' '
	rc=0; "$KIT_DIR/test-ssh.sh" concurrent memory >"$TEST_TMP/t.out" 2>&1 || rc=$? &&
	cat "$TEST_TMP/t.out" && test_verdict_exit "$rc" "$TEST_TMP/t.out" &&
	report=$(tail -n 1 "$TEST_TMP/t.out") && [ -f "$report" ] &&
	dirname "$report" >"$TEST_TMP/run"
'
RUN=$(cat "$TEST_TMP/run" 2>/dev/null || echo /nonexistent)
get () { sed -n "s/^$2=//p" "$RUN/data/$1.env" | tail -n 1; }

test_expect 'concurrent: all 20 sessions opened and alive, PASS' '
	test_eq "$(get concurrent opened)" 20 && test_eq "$(get concurrent alive)" 20 &&
	test_eq "$(get concurrent dead)" 0 && test_eq "$(get concurrent status)" PASS &&
	[ "$(tail -n +2 "$RUN/raw/probe-hold-sessions.tsv" | wc -l)" -eq 20 ] &&
	[ "$(awk -F"\t" "NR > 1 && \$5 == 1" "$RUN/raw/probe-hold-sessions.tsv" | wc -l)" -eq 20 ]
'

test_expect 'concurrent: every session closed, no client left' '
	test_eq "$(get concurrent clients_left)" 0 && test_eq "$(get concurrent children_left)" 0 &&
	[ -z "$(clients_running "$RUN/raw/probe-hold-sessions.tsv")" ] &&
	[ "$(kit_processes | wc -l)" -eq 1 ]
'

test_expect 'concurrent: the limits are recorded and none was reached' '
	test_eq "$(get concurrent limit)" none && [ -n "$(get concurrent limit_nproc)" ] &&
	[ -n "$(get concurrent mem_available_mb_before)" ]
'

test_expect 'memory: the samples of the one shared hold; PSS per session > 0' '
	test_eq "$(get memory source)" hold && [ "$(grep -c "^test-ssh.sh: probe hold:" "$TEST_TMP/t.out")" -eq 1 ] &&
	test_eq "$(sed -n "s/^status=//p" "$RUN/data/probe-hold.env")" ok && test_eq "$(get memory sessions_open)" 20 &&
	awk -v p="$(get memory per_session_kb)" "BEGIN { exit !(p > 0) }" &&
	[ "$(get memory open_pss_kb)" -gt "$(get memory rest_pss_kb)" ] &&
	case $(get memory status) in PASS | FAIL) ;; *) false ;; esac
'

test_expect 'memory: one session has 3 or more processes and RSS above PSS' '
	[ "$(get memory one_processes)" -ge 2 ] &&
	[ "$(get memory one_rss_kb)" -gt "$(get memory one_pss_kb)" ] &&
	test_grep "^pid	comm	pss_kb	rss_kb" "$RUN/raw/probe-hold-memory-one-session.tsv"
'

test_expect 'the report has both sections with their figures' '
	test_grep "^## Concurrent sessions (\`concurrent\`): PASS" "$RUN/report.md" &&
	test_grep "^| \*\*Alive at the end\*\* | \*\*20\*\* |" "$RUN/report.md" &&
	test_grep "^## Memory (\`memory\`): " "$RUN/report.md" &&
	test_grep "^| \*\*Per session\*\*" "$RUN/report.md"
'

test_expect 'memory alone runs the hold itself' '
	rc=0; CONCURRENT_SESSIONS=5 "$KIT_DIR/test-ssh.sh" memory >"$TEST_TMP/m.out" 2>&1 || rc=$? &&
	cat "$TEST_TMP/m.out" && test_verdict_exit "$rc" "$TEST_TMP/m.out" &&
	run=$(dirname "$(tail -n 1 "$TEST_TMP/m.out")") &&
	test_grep -x "source=hold" "$run/data/memory.env" &&
	test_grep -x "sessions_open=5" "$run/data/memory.env" &&
	[ ! -f "$run/data/concurrent.env" ] &&
	[ -z "$(clients_running "$run/raw/probe-hold-sessions.tsv")" ]
'

test_expect 'cleanup leaves the host as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup &&
	no_kit_processes &&
	host_unchanged
'

test_done
