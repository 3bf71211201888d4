#!/usr/bin/env bash
# The test server's whole life cycle on this machine (without systemd):
# start, logins, status, idempotent start, restart on a changed setting,
# stop, test-ssh.sh login, cleanup - and the host exactly as before.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"

host_kit_test 'life cycle'
STATE=$STATE_DIR
CFG="$STATE/client/ssh_config"
export CFG
export LOGIN_SAMPLES=3 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"

test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

host_snapshot_save

test_expect 'start sets up and starts the test server' '
	"$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 &&
	test_grep "test server running" "$TEST_TMP/start.out" &&
	[ "$(kit_processes | wc -l)" -ge 1 ]
'

test_expect 'key logins work with the ed25519 and the RSA key' '
	[ "$(ssh -F "$CFG" $HOST_ALIAS id -un)" = $TEST_USER ] &&
	[ "$(ssh -F "$CFG" $HOST_ALIAS-rsa id -un)" = $TEST_USER ]
'

# Valid only during the auth test's password logins (t41 runs them).
test_expect 'the password is locked after start: a password login is refused' '
	case $(getent shadow $TEST_USER | cut -d: -f2) in "!"*) ;; *) return 1 ;; esac &&
	! SSH_ASKPASS="$KIT_DIR/lib/bin/askpass.sh" SSH_ASKPASS_REQUIRE=force SSHPERF_PASSWORD_FILE="$STATE/password" \
		timeout 30 ssh -F "$CFG" $HOST_ALIAS-password id -un </dev/null 2>"$TEST_TMP/pw.err" &&
	test_grep "Permission denied" "$TEST_TMP/pw.err"
'

test_expect 'the server listens on 127.0.0.1:TEST_PORT only' '
	hex=$(printf %04X "$TEST_PORT") &&
	awk -v p=":$hex" "\$4 == \"0A\" && substr(\$2, length(\$2) - 4) == p { print \$2 }" /proc/net/tcp /proc/net/tcp6 >"$TEST_TMP/l" &&
	echo "0100007F:$hex" >"$TEST_TMP/want" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/l"
'

test_expect 'root and other users cannot log in' '
	! ssh -F "$CFG" -o User=root $HOST_ALIAS true 2>/dev/null &&
	! ssh -F "$CFG" -o User=nobody $HOST_ALIAS true 2>/dev/null
'

test_expect 'secrets are root-only' '
	[ "$(stat -c %a "$STATE")" = 700 ] &&
	[ "$(stat -c %a "$STATE/password")" = 600 ] &&
	[ "$(stat -c %a "$STATE/client/id_ed25519")" = 600 ] &&
	[ "$(wc -c <"$STATE/password")" -ge 21 ] &&
	id -Gn $TEST_USER >"$TEST_TMP/groups" && test_grep ! -wE "root|sudo|wheel|adm" "$TEST_TMP/groups"
'

test_expect 'status says running, direct mode, exit 0' '
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st" &&
	test_grep -x "state=running" "$TEST_TMP/st" && test_grep "^mode=direct" "$TEST_TMP/st" &&
	test_grep -x "address=127.0.0.1:$TEST_PORT" "$TEST_TMP/st"
'

test_expect 'start again changes nothing: same server, keys and password' '
	pid=$(sed -n "s/^pid=//p" "$TEST_TMP/st") &&
	sum=$(cat ${HOSTKEY_PREFIX}*_key "$STATE/password" "$STATE/client/id_ed25519" | sha256sum) &&
	"$KIT_DIR/start-ssh.sh" >/dev/null &&
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st2" &&
	test_grep -x "pid=$pid" "$TEST_TMP/st2" &&
	[ "$(cat ${HOSTKEY_PREFIX}*_key "$STATE/password" "$STATE/client/id_ed25519" | sha256sum)" = "$sum" ] &&
	[ "$(kit_processes | wc -l)" -eq 1 ]
'

test_expect 'a changed setting is applied with a restart' '
	pid=$(sed -n "s/^pid=//p" "$TEST_TMP/st") &&
	MAX_STARTUPS=20:30:100 "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/o" &&
	test_grep "restarting" "$TEST_TMP/o" &&
	"$TEST_DIR/lib/sshd-T.sh" "$SSHD_CONFIG" "$TEST_USER" >"$TEST_TMP/T" && test_grep -ix "maxstartups 20:30:100" "$TEST_TMP/T" &&
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st3" && test_grep ! -x "pid=$pid" "$TEST_TMP/st3" &&
	"$KIT_DIR/start-ssh.sh" >/dev/null && [ "$(kit_processes | wc -l)" -eq 1 ]
'

test_expect 'stop stops only the test server; status then exits 3' '
	"$KIT_DIR/start-ssh.sh" stop >/dev/null &&
	no_kit_processes &&
	expect_status 3 "$KIT_DIR/start-ssh.sh" status &&
	test_grep -x "state=stopped" "$TEST_TMP/out"
'

test_expect 'test-ssh.sh refuses to run while the server is stopped' '
	expect_status 2 "$KIT_DIR/test-ssh.sh" login &&
	test_grep "run ./start-ssh.sh first" "$TEST_TMP/out"
'

test_expect 'start after stop brings it back' '
	"$KIT_DIR/start-ssh.sh" >/dev/null && ssh -F "$CFG" $HOST_ALIAS true
'

test_expect 'test-ssh.sh login writes a report with the login row and a verdict' '
	rc=0; "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/t.out" 2>&1 || rc=$?
	test_verdict_exit "$rc" "$TEST_TMP/t.out" &&
	report=$(tail -n 1 "$TEST_TMP/t.out") && [ -f "$report" ] &&
	grep -E "^\| 2 \| \[Login time\]\(#login\) \(\`login\`\) \| [0-9.]+ ms .*\*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$report" &&
	# LOGIN_SAMPLES=3, then the fixed stages up to 4x while the interval
	# holds the target (LOGIN_SAMPLES=12 at most).
	rows=$(tail -n +2 "$(dirname "$report")/raw/login-samples.tsv" | wc -l) &&
	{ [ "$rows" -ge 3 ] && [ "$rows" -le 12 ] || { echo "login-samples.tsv has $rows rows, not 3-12"; false; }; } &&
	test_grep "^| 4. Authentication |" "$report" &&
	test_grep "^| Crypto policy |" "$report"
'

test_expect 'test-ssh.sh prints one line per test start and end, the report path last' '
	test_grep "^test-ssh.sh: login: 3 logins" "$TEST_TMP/t.out" &&
	test_grep -E "^test-ssh.sh: login: p50 .* -> (PASS|FAIL|INCONCLUSIVE)$" "$TEST_TMP/t.out" &&
	tail -n 1 "$TEST_TMP/t.out" >"$TEST_TMP/seen" && test_grep "/report.md$" "$TEST_TMP/seen"
'

test_expect 'cleanup removes everything: the host is as before' '
	"$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c.out" &&
	test_grep "removed user $TEST_USER" "$TEST_TMP/c.out" &&
	! getent passwd $TEST_USER && no_kit_processes &&
	host_unchanged
'

test_expect 'cleanup again is a no-op' '
	"$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c2.out" &&
	test_grep "nothing to clean up" "$TEST_TMP/c2.out" &&
	host_unchanged
'

# tests/lib/interrupted-caller.sh: a caller of test-ssh.sh that cleans up
# on its way out; a signal interrupts it while test-ssh.sh holds the lock.
test_expect 'an interrupted caller of test-ssh.sh cleans up all: it waits for the lock first' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	before=$(cat "$LOCK_FILE.pid") &&
	runs_before=$(find "$RESULTS_DIR" -path "*/data/environment.env" | wc -l) &&
	{ KIT_DIR=$KIT_DIR setsid bash "$TEST_DIR/lib/interrupted-caller.sh" "$TEST_TMP/interrupted.out" & } && pid=$! &&
	holder="" && n=0 &&
	while [ $n -lt 60 ]; do
		holder=$(cat "$LOCK_FILE.pid" 2>/dev/null) &&
		[ "$holder" != "$before" ] && kill -0 "$holder" 2>/dev/null && break
		holder="" && n=$((n + 1)) && sleep 1
	done &&
	echo "test-ssh.sh holds the lock: pid ${holder:-none after 60 s}" &&
	[ -n "$holder" ] &&
	# Its interrupt trap (the partial report, made with the lock held) is
	# set just before it writes data/environment.env: a TERM before that
	# would end it at once and free the lock.
	n=0 && while [ "$(find "$RESULTS_DIR" -path "*/data/environment.env" | wc -l)" -le "$runs_before" ] && [ $n -lt 60 ]; do
		n=$((n + 1)) && sleep 1
	done &&
	echo "its run has begun: ${n} s" && [ $n -lt 60 ] &&
	kill -TERM -- -"$pid" &&
	n=0 && while kill -0 "$pid" 2>/dev/null && [ $n -lt 90 ]; do n=$((n + 1)) && sleep 1; done &&
	! kill -0 "$pid" 2>/dev/null &&
	cat "$TEST_TMP/interrupted.out" &&
	test_grep "removed user $TEST_USER" "$TEST_TMP/interrupted.out" &&
	[ ! -d "$STATE_DIR" ] && no_kit_processes &&
	host_unchanged
'

test_done
