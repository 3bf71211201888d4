#!/usr/bin/env bash
# reload on the real test server: sessions survive, a new login comes
# back; a config that sshd -t rejects is not reloaded and the server keeps
# serving with the same pid; the config file is restored byte for byte.
# The login that worked after the reload is split into whose time it was,
# and its parts add up to its total.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/whose.sh"

host_kit_test 'reload'
# shellcheck disable=SC2034 # used in the test bodies
STATE=$STATE_DIR
# shellcheck disable=SC2034 # in a test_atexit command
CONFIG=$SSHD_CONFIG
export RELOAD_SESSIONS=5 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"

# The config is put back first (from the copy) when a test broke it.
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'
test_atexit '[ -f "$TEST_TMP/config.orig" ] && [ -f "$CONFIG" ] && cat "$TEST_TMP/config.orig" >"$CONFIG"'

host_snapshot_save

# run_reload NAME: test-ssh.sh reload; the run folder into $TEST_TMP/NAME.
run_reload () {
	"$KIT_DIR/test-ssh.sh" reload >"$TEST_TMP/$1.out" 2>&1
	rc=$?
	cat "$TEST_TMP/$1.out"
	test_verdict_exit "$rc" "$TEST_TMP/$1.out" || return 1
	dirname "$(tail -n 1 "$TEST_TMP/$1.out")" >"$TEST_TMP/$1"
}
get () { sed -n "s/^$3=//p" "$(cat "$TEST_TMP/$1")/data/$2.env" | tail -n 1; }

test_expect 'start the test server' '
	"$KIT_DIR/start-ssh.sh" -q &&
	"$KIT_DIR/start-ssh.sh" status | sed -n "s/^pid=//p" >"$TEST_TMP/pid" && [ -s "$TEST_TMP/pid" ]
'

test_expect 'reload: all 5 sessions survive, a new login comes back' '
	run_reload good &&
	test_eq "$(get good reload refused)" no &&
	test_eq "$(get good reload alive)" 5 && test_eq "$(get good reload dead)" 0 &&
	test_eq "$(get good reload clients_left)" 0 &&
	awk -v g="$(get good reload greeting_ms)" -v l="$(get good reload login_ms)" \
		"BEGIN { exit !(g > 0 && l >= g) }" &&
	test_eq "$(get good reload socket_replaced)" yes &&
	case $(get good reload status) in PASS | FAIL) ;; *) false ;; esac &&
	test_grep "^| Survived the reload (own line echoed afterwards) | \*\*5 of 5\*\* |" "$(cat "$TEST_TMP/good")/report.md"
'

# The tries before the one that worked (refused while sshd re-executed)
# are in the login table but are no login of the packets.
test_expect 'whose time of the new login: the parts exist and add up to its total within 2 %' '
	run=$(cat "$TEST_TMP/good") &&
	test_eq "$(get good reload timeline)" yes &&
	test_eq "$(get good reload server_n)" 1 &&
	test_eq "$(get good reload whose_mismatched)" 0 &&
	test_eq "$(($(wc -l <"$run/raw/reload-logins.tsv") - 1))" "$(get good reload login_attempts)" &&
	whose_adds_up "$run" reload reload-logins.tsv 1 &&
	for k in server client tcp_wait rest kex_server auth_server session_server; do
		[ -n "$(get good reload "${k}_p50")" ] || { echo "no ${k}_p50"; return 1; }
	done &&
	test_grep "^| sshd.s turns | [0-9.]* | [0-9.]* | [0-9.]* | [0-9.]* |\$" "$run/report.md" &&
	test_grep -F "It rests on 1 login, the one that worked (tries: $(get good reload login_attempts);" "$run/report.md" &&
	test_grep "\"whose\": \[" "$run/results.json" &&
	if command -v python3 >/dev/null 2>&1; then
		python3 "$TEST_DIR/lib/results-check.py" "$KIT_DIR/docs/results.schema.json" "$run"
	fi
'

test_expect 'after the reload the server still serves, with its pid' '
	ssh -F "$STATE/client/ssh_config" $HOST_ALIAS true &&
	{ "$KIT_DIR/start-ssh.sh" status || true; } >st && test_grep -x "pid=$(cat "$TEST_TMP/pid")" st
'

test_expect 'a config that sshd -t rejects is not reloaded' '
	cp -p "$CONFIG" "$TEST_TMP/config.orig" &&
	sha256sum "$CONFIG" >"$TEST_TMP/config.sum" &&
	printf "ThisIsNotAnOption yes\n" >>"$CONFIG" &&
	! sshd -t -f "$CONFIG" 2>/dev/null &&
	run_reload broken &&
	test_eq "$(get broken reload refused)" yes &&
	test_eq "$(get broken reload status)" ERROR &&
	get broken reload reason >reason && test_grep "sshd -t rejects $CONFIG" reason &&
	test_eq "$(get broken reload still_serving)" yes &&
	test_eq "$(get broken reload alive)" 5 &&
	test_grep "The reload was refused" "$(cat "$TEST_TMP/broken")/report.md"
'

test_expect 'the server kept serving with the same pid' '
	"$KIT_DIR/build/sshperf-connect" -t 5000 127.0.0.1 $TEST_PORT >/dev/null &&
	ssh -F "$STATE/client/ssh_config" $HOST_ALIAS true &&
	{ "$KIT_DIR/start-ssh.sh" status || true; } >st && test_grep -x "pid=$(cat "$TEST_TMP/pid")" st
'

test_expect 'the config is restored byte for byte' '
	cat "$TEST_TMP/config.orig" >"$CONFIG" && rm -f "$TEST_TMP/config.orig" &&
	sha256sum -c "$TEST_TMP/config.sum" && sshd -t -f "$CONFIG"
'

test_expect 'cleanup leaves the host as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup &&
	no_kit_processes &&
	host_unchanged
'

test_done
