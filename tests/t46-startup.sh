#!/usr/bin/env bash
# The startup test on the real test server: 2 stop/start rounds, each with
# a greeting and a first login timed from the start; the server runs again
# afterwards, also when the run is stopped in the middle; report row;
# cleanup leaves the host as before; whose time the first logins were,
# their parts adding up to each login's total.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/whose.sh"

host_kit_test 'startup'
STATE=$STATE_DIR
CFG="$STATE/client/ssh_config"
export CFG RESULTS_DIR="$TEST_TMP/results" STARTUP_ROUNDS=2
mkdir -p "$RESULTS_DIR"

test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

host_snapshot_save

test_expect 'start the test server' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null && [ "$(kit_processes | wc -l)" -ge 1 ]
'

test_expect 'test-ssh.sh startup: 2 rounds, greeting before the first login, both timed' '
	"$KIT_DIR/test-ssh.sh" startup >"$TEST_TMP/t.out" 2>&1 &&
	dirname "$(tail -n 1 "$TEST_TMP/t.out")" >"$TEST_TMP/run" &&
	tsv=$(cat "$TEST_TMP/run")/raw/startup-rounds.tsv &&
	[ "$(awk -F"\t" "NR > 1 && \$2 == \"ok\" && \$5 == \"yes\" && \$3 > 0 && \$4 > \$3" "$tsv" | wc -l)" -eq 2 ] &&
	test_grep -E "^test-ssh.sh: startup: greeting p50 [0-9.]+ ms; first login p50 [0-9.]+ ms, max [0-9.]+ ms over 2 of 2 restarts.* -> PASS$" "$TEST_TMP/t.out"
'

test_expect 'whose time of the 2 first logins: the parts exist and add up to each total within 2 %' '
	run=$(cat "$TEST_TMP/run") &&
	env=$run/data/startup.env &&
	test_kv "$env" timeline yes &&
	test_kv "$env" server_n 2 &&
	whose_adds_up "$run" startup startup-logins.tsv 2 &&
	test_grep "^| sshd.s turns | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* |\$" "$run/report.md"
'

test_expect 'the server runs again afterwards and takes logins' '
	[ "$(kit_processes | wc -l)" -ge 1 ] &&
	timeout 30 ssh -F "$CFG" $HOST_ALIAS true
'

test_expect 'the report has the startup row and the two figures' '
	r=$(cat "$TEST_TMP/run")/report.md &&
	test_grep -E "^\| 1 \| \[Startup time\]\(#startup\) \(\`startup\`\) \| [0-9.]+ ms .*\*\*PASS\*\*" "$r" &&
	test_grep -E "^\| First greeting \(the server accepts connections\) \| 2 \|" "$r" &&
	test_grep -E "^\| First complete login \| 2 \|" "$r" &&
	test_kv "$(cat "$TEST_TMP/run")/data/startup.env" poll_interval_us 1000 &&
	test_grep "The specification tries every 5 ms; the kit tries every 1 ms, because a finer poll finds the moment the port first answers" "$r"
'

# Stopped (TERM) in the middle of a round: the test server must run again.
test_expect 'a run stopped in the middle leaves the server running' '
	ls "$RESULTS_DIR" >runs.before || return 1
	STARTUP_ROUNDS=20 "$KIT_DIR/test-ssh.sh" startup >"$TEST_TMP/i.out" 2>&1 &
	pid=$! &&
	deadline=$(( $(date +%s) + 60 )) &&
	# The first round is done when its row is in the new run'"'"'s raw file.
	until new=$(ls "$RESULTS_DIR" | grep -vxFf runs.before | head -n 1) && [ -n "$new" ] &&
		[ "$(cat "$RESULTS_DIR/$new/raw/startup-rounds.tsv" 2>/dev/null | wc -l)" -ge 2 ]; do
		[ "$(date +%s)" -lt "$deadline" ] || { kill "$pid"; return 1; }
		sleep 0.05
	done &&
	kill -TERM "$pid" && rc=0 && { wait "$pid" || rc=$?; } &&
	{ [ "$rc" -eq 130 ] || { echo "exit $rc"; cat "$TEST_TMP/i.out"; false; }; } &&
	test_grep "interrupted; partial report" "$TEST_TMP/i.out" &&
	[ "$(kit_processes | wc -l)" -ge 1 ] &&
	timeout 30 ssh -F "$CFG" $HOST_ALIAS true
'

test_expect 'cleanup: the host is as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	no_kit_processes &&
	host_unchanged
'

test_done
