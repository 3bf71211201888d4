#!/usr/bin/env bash
# The test server's whole life cycle on this machine (without systemd):
# start, logins, status, idempotent start, restart on a changed setting,
# stop, test-ssh.sh login, cleanup - and the host exactly as before.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"

STATE=/var/lib/sshd-perf-kit/state
CFG="$STATE/client/ssh_config"
export CFG
export LOGIN_SAMPLES=3 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"

host_kit_test 'life cycle'
trap '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1; rm -rf "$TEST_TMP"' EXIT

host_snapshot >"$TEST_TMP/before"

test_expect 'start sets up and starts the test server' '
	"$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 &&
	grep -q "test server running" "$TEST_TMP/start.out" &&
	[ "$(kit_processes | wc -l)" -ge 1 ]
'

test_expect 'key logins work with the ed25519 and the RSA key' '
	[ "$(ssh -F "$CFG" sshperf-test id -un)" = sshperf ] &&
	[ "$(ssh -F "$CFG" sshperf-test-rsa id -un)" = sshperf ]
'

# Valid only during the auth test's password logins (t41 runs them).
test_expect 'the password is locked after start: a password login is refused' '
	case $(getent shadow sshperf | cut -d: -f2) in "!"*) ;; *) exit 1 ;; esac &&
	! SSH_ASKPASS="$KIT_DIR/lib/askpass.sh" SSH_ASKPASS_REQUIRE=force \
		timeout 30 ssh -F "$CFG" sshperf-test-password id -un </dev/null 2>"$TEST_TMP/pw.err" &&
	grep -q "Permission denied" "$TEST_TMP/pw.err"
'

test_expect 'the server listens on 127.0.0.1:11022 only' '
	awk "\$4 == \"0A\" && \$2 ~ /:2B0E\$/ { print \$2 }" /proc/net/tcp /proc/net/tcp6 >"$TEST_TMP/l" &&
	echo "0100007F:2B0E" >"$TEST_TMP/want" &&
	test_cmp "$TEST_TMP/want" "$TEST_TMP/l"
'

test_expect 'root and other users cannot log in' '
	! ssh -F "$CFG" -o User=root sshperf-test true 2>/dev/null &&
	! ssh -F "$CFG" -o User=nobody sshperf-test true 2>/dev/null
'

test_expect 'secrets are root-only' '
	[ "$(stat -c %a "$STATE")" = 700 ] &&
	[ "$(stat -c %a "$STATE/password")" = 600 ] &&
	[ "$(stat -c %a "$STATE/client/id_ed25519")" = 600 ] &&
	[ "$(wc -c <"$STATE/password")" -ge 21 ] &&
	! id -Gn sshperf | grep -qwE "root|sudo|wheel|adm"
'

test_expect 'status says running, direct mode, exit 0' '
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st" &&
	grep -qx "state=running" "$TEST_TMP/st" && grep -q "^mode=direct" "$TEST_TMP/st" &&
	grep -qx "address=127.0.0.1:11022" "$TEST_TMP/st"
'

test_expect 'start again changes nothing: same server, keys and password' '
	pid=$(sed -n "s/^pid=//p" "$TEST_TMP/st") &&
	sum=$(cat /etc/ssh/ssh_host_perftest_*_key "$STATE/password" "$STATE/client/id_ed25519" | sha256sum) &&
	"$KIT_DIR/start-ssh.sh" >/dev/null &&
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st2" &&
	grep -qx "pid=$pid" "$TEST_TMP/st2" &&
	[ "$(cat /etc/ssh/ssh_host_perftest_*_key "$STATE/password" "$STATE/client/id_ed25519" | sha256sum)" = "$sum" ] &&
	[ "$(kit_processes | wc -l)" -eq 1 ]
'

test_expect 'a changed setting is applied with a restart' '
	pid=$(sed -n "s/^pid=//p" "$TEST_TMP/st") &&
	MAX_STARTUPS=20:30:100 "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/o" &&
	grep -q "restarting" "$TEST_TMP/o" &&
	sshd -T -f /etc/ssh/sshd_config_perf_test -C user=sshperf,addr=127.0.0.1,host=localhost | grep -qix "maxstartups 20:30:100" &&
	"$KIT_DIR/start-ssh.sh" status >"$TEST_TMP/st3" && ! grep -qx "pid=$pid" "$TEST_TMP/st3" &&
	"$KIT_DIR/start-ssh.sh" >/dev/null && [ "$(kit_processes | wc -l)" -eq 1 ]
'

test_expect 'stop stops only the test server; status then exits 3' '
	"$KIT_DIR/start-ssh.sh" stop >/dev/null &&
	[ "$(kit_processes | wc -l)" -eq 0 ] &&
	expect_status 3 "$KIT_DIR/start-ssh.sh" status &&
	grep -qx "state=stopped" "$TEST_TMP/out"
'

test_expect 'test-ssh.sh refuses to run while the server is stopped' '
	expect_status 2 "$KIT_DIR/test-ssh.sh" login &&
	grep -q "run ./start-ssh.sh first" "$TEST_TMP/out"
'

test_expect 'start after stop brings it back' '
	"$KIT_DIR/start-ssh.sh" >/dev/null && ssh -F "$CFG" sshperf-test true
'

test_expect 'test-ssh.sh login writes a report with the login row and a verdict' '
	rc=0; "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/t.out" 2>&1 || rc=$?
	{ [ "$rc" -le 1 ] || [ "$rc" -eq 3 ]; } &&
	report=$(tail -n 1 "$TEST_TMP/t.out") && [ -f "$report" ] &&
	grep -E "^\| 2 \| \[Login time\]\(#login\) \(\`login\`\) \| [0-9.]+ ms .*\*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$report" &&
	[ "$(tail -n +2 "$(dirname "$report")/raw/login-samples.tsv" | wc -l)" -eq 3 ] &&
	grep -q "^| 4. Authentication |" "$report" &&
	grep -q "^| Crypto policy |" "$report"
'

test_expect 'test-ssh.sh prints one line per test start and end, the report path last' '
	grep -q "^test-ssh.sh: login: 3 logins" "$TEST_TMP/t.out" &&
	grep -qE "^test-ssh.sh: login: p50 .* -> (PASS|FAIL|INCONCLUSIVE)$" "$TEST_TMP/t.out" &&
	tail -n 1 "$TEST_TMP/t.out" | grep -q "/report.md$"
'

test_expect 'cleanup removes everything: the host is as before' '
	"$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c.out" &&
	grep -q "removed user sshperf" "$TEST_TMP/c.out" &&
	! getent passwd sshperf && [ "$(kit_processes | wc -l)" -eq 0 ] &&
	host_snapshot >"$TEST_TMP/after" &&
	test_cmp "$TEST_TMP/before" "$TEST_TMP/after"
'

test_expect 'cleanup again is a no-op' '
	"$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c2.out" &&
	grep -q "nothing to clean up" "$TEST_TMP/c2.out" &&
	host_snapshot >"$TEST_TMP/after2" && test_cmp "$TEST_TMP/before" "$TEST_TMP/after2"
'

test_done
