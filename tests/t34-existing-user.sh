#!/usr/bin/env bash
# Measuring what a host really runs, inside a booted Debian 12 container:
# SSHD_OPTIONS good and bad (bad ones named, exit 2, nothing changed), an
# existing local account (TEST_USER_EXISTING=yes) whose passwd and shadow
# lines, home and ~/.ssh are exactly as before after cleanup, and
# SERVER_CONFIG=host on a host with a drop-in of its own (UseDNS yes in
# sshd_config.d/), which must show in the test server's sshd -T.
# shellcheck disable=SC2034,SC2016 # names used only inside the eval'd test bodies; $ in single quotes is for them
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/container.sh
. "$TEST_DIR/lib/container.sh"

container_test 'existing user, SSHD_OPTIONS, SERVER_CONFIG=host' t34

STATE=/var/lib/sshd-perf-kit/state
CFG="$STATE/client/ssh_config"
# A test run on a busy machine can outlast container_exec's default.
CONTAINER_EXEC_TIMEOUT=300
ct () {
	container_exec env LOGIN_SAMPLES=3 RESULTS_DIR="$TEST_TMP/results" "$@"
}
snapshot () {
	ct bash -c ". '$TEST_DIR/lib/snapshot.sh' && host_snapshot"
}
# The account as the administrator left it: passwd and shadow lines, every
# file of the home with owner, mode, size, time and checksum.
account () {
	ct bash -c "getent passwd $1; getent shadow $1; find /home/$1 -printf '%p %y %m %u %g %s %T@\n' | sort;
		find /home/$1 -type f -exec sha256sum {} + | sort"
}
mkdir -p "$TEST_TMP/results"

# The administrator's account: a home, a key of its own, a password.
ct useradd --create-home --shell /bin/bash alice
ct bash -c 'install -d -m 0700 -o alice -g alice /home/alice/.ssh &&
	echo "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIMx1nVd5Qf7g9Lh1kz6Jb3vF2W0m3xH1q8kz0w0w0w0w alice@laptop" >/home/alice/.ssh/authorized_keys &&
	chown alice:alice /home/alice/.ssh/authorized_keys && chmod 0600 /home/alice/.ssh/authorized_keys &&
	echo "alice:Alice-pw-4711" | chpasswd &&
	install -m 0600 /dev/null /root/alice.pw && echo Alice-pw-4711 >/root/alice.pw'
account alice >"$TEST_TMP/alice.before"
snapshot >"$TEST_TMP/before"

test_expect 'SSHD_OPTIONS: a must-have of the kit is refused with the reason, nothing changes' '
	expect_status 2 ct env SSHD_OPTIONS="UseDNS yes; Port 2222" "$KIT_DIR/start-ssh.sh" &&
	test_grep "SSHD_OPTIONS: \"Port 2222\" cannot be used: the test server listens on 127.0.0.1" "$TEST_TMP/out" &&
	expect_status 2 ct env SSHD_OPTIONS="AllowUsers root" "$KIT_DIR/start-ssh.sh" &&
	test_grep "\"AllowUsers root\" cannot be used: only the test user" "$TEST_TMP/out" &&
	snapshot >"$TEST_TMP/now" && test_cmp "$TEST_TMP/before" "$TEST_TMP/now"
'

test_expect 'SSHD_OPTIONS: a line sshd -t rejects is named, exit 2, nothing changes' '
	expect_status 2 ct env SSHD_OPTIONS="UseDNS yes; NoSuchOption 1" "$KIT_DIR/start-ssh.sh" &&
	[ "$(wc -l <"$TEST_TMP/out")" = 1 ] &&
	test_grep "SSHD_OPTIONS: sshd -t rejects \"NoSuchOption 1\"" "$TEST_TMP/out" &&
	expect_status 2 ct env SSHD_OPTIONS="MaxSessions lots" "$KIT_DIR/start-ssh.sh" &&
	test_grep "rejects \"MaxSessions lots\"" "$TEST_TMP/out" &&
	expect_status 2 ct env SSHD_OPTIONS="Match User x" "$KIT_DIR/start-ssh.sh" &&
	test_grep "global options only" "$TEST_TMP/out" &&
	snapshot >"$TEST_TMP/now" && test_cmp "$TEST_TMP/before" "$TEST_TMP/now"
'

test_expect 'TEST_USER_EXISTING: a missing account or a readable password file is refused' '
	expect_status 2 ct env TEST_USER=nobodyhere TEST_USER_EXISTING=yes "$KIT_DIR/start-ssh.sh" &&
	test_grep "finds no such account" "$TEST_TMP/out" &&
	ct chmod 0644 /root/alice.pw &&
	expect_status 2 ct env TEST_USER=alice TEST_USER_EXISTING=yes TEST_PASSWORD_FILE=/root/alice.pw "$KIT_DIR/start-ssh.sh" &&
	test_grep "has mode 644: other users could read it" "$TEST_TMP/out" &&
	ct chmod 0600 /root/alice.pw &&
	expect_status 2 ct env TEST_USER=alice "$KIT_DIR/start-ssh.sh" &&
	test_grep "TEST_USER_EXISTING=yes to test that account" "$TEST_TMP/out" &&
	snapshot >"$TEST_TMP/now" && test_cmp "$TEST_TMP/before" "$TEST_TMP/now"
'

EXIST="TEST_USER=alice TEST_USER_EXISTING=yes TEST_PASSWORD_FILE=/root/alice.pw"
test_expect 'an existing local account with SSHD_OPTIONS: start, key and password logins' '
	ct env $EXIST SSHD_OPTIONS="UseDNS yes; MaxSessions 7" "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 &&
	test_grep "using the existing account alice" "$TEST_TMP/start.out" &&
	ct "$TEST_DIR/lib/sshd-T.sh" /etc/ssh/sshd_config_perf_test alice >"$TEST_TMP/T" &&
	test_grep -ix "usedns yes" "$TEST_TMP/T" && test_grep -ix "maxsessions 7" "$TEST_TMP/T" &&
	test_grep -ix "authorizedkeysfile /var/lib/sshd-perf-kit/.ssh/%u" "$TEST_TMP/T" &&
	[ "$(ct ssh -F "$CFG" sshperf-test id -un)" = alice ] &&
	[ "$(ct env SSH_ASKPASS="$KIT_DIR/lib/bin/askpass.sh" SSH_ASKPASS_REQUIRE=force ssh -F "$CFG" sshperf-test-password id -un </dev/null)" = alice ]
'

test_expect 'the kit measures login and auth as alice; the report says where the account came from' '
	rc=0; ct env $EXIST SSHD_OPTIONS="UseDNS yes; MaxSessions 7" "$KIT_DIR/test-ssh.sh" login auth >"$TEST_TMP/t.out" 2>&1 || rc=$?
	test_verdict_exit "$rc" "$TEST_TMP/t.out" &&
	report=$(tail -n 1 "$TEST_TMP/t.out") && cp "$report" "$TEST_TMP/report-local.md" &&
	cp "$(dirname "$report")/results.json" "$TEST_TMP/results-local.json" &&
	test_grep "an existing account (NSS source \`files\`)" "$report" &&
	test_grep "| SSHD_OPTIONS | \`UseDNS yes; MaxSessions 7\` |" "$report" &&
	test_grep "PAM stack | service sshd (/etc/pam.d/sshd): auth pam_unix" "$report" &&
	test_grep "\"server_options\": \"UseDNS yes; MaxSessions 7\"" "$(dirname "$report")/results.json" &&
	test_grep -E "^\| password \(PAM\) \| password \| $(auth_logins "${report%/*}" password 3) / 0 " "$report"
'

test_expect 'cleanup: alice, her home and ~/.ssh are exactly as before; the host too' '
	ct "$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c.out" &&
	test_grep ! "removed user" "$TEST_TMP/c.out" &&
	account alice >"$TEST_TMP/alice.after" &&
	test_cmp "$TEST_TMP/alice.before" "$TEST_TMP/alice.after" &&
	snapshot >"$TEST_TMP/now" && test_cmp "$TEST_TMP/before" "$TEST_TMP/now"
'

test_expect 'without TEST_PASSWORD_FILE the password method is SKIPPED with the reason' '
	ct env TEST_USER=alice TEST_USER_EXISTING=yes "$KIT_DIR/start-ssh.sh" -q &&
	rc=0; ct env TEST_USER=alice TEST_USER_EXISTING=yes LOGIN_SAMPLES=3 "$KIT_DIR/test-ssh.sh" auth >"$TEST_TMP/t.out" 2>&1 || rc=$?
	test_verdict_exit "$rc" "$TEST_TMP/t.out" &&
	report=$(tail -n 1 "$TEST_TMP/t.out") &&
	test_grep "| password (PAM) | SKIPPED: the kit does not know the password of the existing account alice" "$report" &&
	test_grep -E "^\| ed25519 key \| publickey \(ED25519\) \| $(auth_logins "${report%/*}" ed25519 3) / 0 " "$report" &&
	ct "$KIT_DIR/start-ssh.sh" -q cleanup &&
	account alice >"$TEST_TMP/alice.after" && test_cmp "$TEST_TMP/alice.before" "$TEST_TMP/alice.after"
'

test_expect 'sftp of an account whose home is not writable goes to a folder of the kit, removed at cleanup' '
	ct chmod 0555 /home/alice &&
	account alice >"$TEST_TMP/alice.ro" &&
	ct env TEST_USER=alice TEST_USER_EXISTING=yes "$KIT_DIR/start-ssh.sh" -q &&
	rc=0; ct env TEST_USER=alice TEST_USER_EXISTING=yes SFTP_FILE_MB=2 SFTP_SMALL_FILES=5 "$KIT_DIR/test-ssh.sh" sftp >"$TEST_TMP/t.out" 2>&1 || rc=$?
	test_verdict_exit "$rc" "$TEST_TMP/t.out" &&
	report=$(tail -n 1 "$TEST_TMP/t.out") &&
	test_grep -E "^## SFTP \(\`sftp\`\): (PASS|FAIL|INCONCLUSIVE)" "$report" &&
	test_grep "the files went to the kit.s folder /var/lib/sshd-perf-kit/sftp/alice, because the home /home/alice of alice is not writable by it" "$report" &&
	ct "$KIT_DIR/start-ssh.sh" -q cleanup &&
	! ct test -e /var/lib/sshd-perf-kit &&
	account alice >"$TEST_TMP/alice.after" && test_cmp "$TEST_TMP/alice.ro" "$TEST_TMP/alice.after" &&
	ct chmod 0755 /home/alice
'

# The host's own drop-in: the real sshd reads it, so the test server must.
ct bash -c 'printf "UseDNS yes\nMaxAuthTries 4\nPort 22\nDenyUsers mallory\nMaxStartups 20:30:100\n" >/etc/ssh/sshd_config.d/10-site.conf'
ct bash -c 'find /etc/ssh -type f -exec sha256sum {} + | sort' >"$TEST_TMP/etcssh.before"
snapshot >"$TEST_TMP/before-host"

test_expect 'SERVER_CONFIG=host: the drop-in shows in the test server sshd -T; the overrides are named' '
	ct env SERVER_CONFIG=host "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 &&
	ct "$TEST_DIR/lib/sshd-T.sh" /etc/ssh/sshd_config_perf_test sshperf >"$TEST_TMP/T" &&
	test_grep -ix "usedns yes" "$TEST_TMP/T" && test_grep -ix "maxauthtries 4" "$TEST_TMP/T" &&
	test_grep -ix "port 11022" "$TEST_TMP/T" && test_grep -ix "listenaddress 127.0.0.1:11022" "$TEST_TMP/T" &&
	test_grep ! -i "^hostkey /etc/ssh/ssh_host_ed25519_key" "$TEST_TMP/T" &&
	ct cat /etc/ssh/sshd_config_perf_test >"$TEST_TMP/seen" && test_grep "^# ---- from /etc/ssh/sshd_config.d/10-site.conf" "$TEST_TMP/seen" &&
	[ "$(ct ssh -F "$CFG" sshperf-test id -un)" = sshperf ]
'

test_expect 'SERVER_CONFIG=host: the report shows sshd -T of both servers and every override' '
	rc=0; ct env SERVER_CONFIG=host LOGIN_SAMPLES=3 "$KIT_DIR/test-ssh.sh" login >"$TEST_TMP/t.out" 2>&1 || rc=$?
	test_verdict_exit "$rc" "$TEST_TMP/t.out" &&
	report=$(tail -n 1 "$TEST_TMP/t.out") && cp "$report" "$TEST_TMP/report-host.md" &&
	test_grep "| Setting | Test server | Real server |" "$report" &&
	test_grep "| \`usedns\` | \`yes\` | \`yes\` |" "$report" &&
	test_grep "this host.s own (\`SERVER_CONFIG=host\`): /etc/ssh/sshd_config" "$report" &&
	test_grep "^| \`port\` | \`Port 22 (/etc/ssh/sshd_config.d/10-site.conf)\` | \`Port 11022\` | the test server listens on 127.0.0.1:11022 only" "$report" &&
	test_grep "^| \`denyusers\` | \`DenyUsers mallory (/etc/ssh/sshd_config.d/10-site.conf)\` | \`AllowUsers sshperf\` | only the test user" "$report"
'

test_expect 'SERVER_CONFIG=host: an SSHD_OPTIONS MaxStartups wins over the host'"'"'s later one (sshd keeps the last), named as an override' '
	ct env SERVER_CONFIG=host SSHD_OPTIONS="MaxStartups 100:30:200" "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 &&
	test_grep "SSHD_OPTIONS \"MaxStartups 100:30:200\" replaces \"MaxStartups 20:30:100\" of /etc/ssh/sshd_config.d/10-site.conf" "$TEST_TMP/start.out" &&
	ct "$TEST_DIR/lib/sshd-T.sh" /etc/ssh/sshd_config_perf_test sshperf >"$TEST_TMP/T" &&
	test_grep -ix "maxstartups 100:30:200" "$TEST_TMP/T" && test_grep -ix "maxauthtries 4" "$TEST_TMP/T" &&
	ct cat /var/lib/sshd-perf-kit/state/overrides.tsv >"$TEST_TMP/seen" &&
	test_grep "^maxstartups	MaxStartups 20:30:100 (/etc/ssh/sshd_config.d/10-site.conf)	MaxStartups 100:30:200	set by SSHD_OPTIONS" "$TEST_TMP/seen"
'

test_expect 'SERVER_CONFIG=host: the real files were read, never written; cleanup leaves the host as it was' '
	ct bash -c "find /etc/ssh -type f ! -name sshd_config_perf_test ! -name \"ssh_host_perftest_*\" -exec sha256sum {} + | sort" >"$TEST_TMP/etcssh.now" &&
	test_cmp "$TEST_TMP/etcssh.before" "$TEST_TMP/etcssh.now" &&
	ct "$KIT_DIR/start-ssh.sh" -q cleanup &&
	snapshot >"$TEST_TMP/now" && test_cmp "$TEST_TMP/before-host" "$TEST_TMP/now"
'

test_expect '--compare lists the configuration differences above the figures' '
	a=$(ls -d "$TEST_TMP"/results/*/ | sed -n 1p) && b=$(ls -d "$TEST_TMP"/results/*/ | sed -n 2p) &&
	out=$("$KIT_DIR/test-ssh.sh" --compare "$a" "$b") &&
	test_grep "^## Configuration differences" "$out" &&
	test_grep "^- \`usedns\`: \`yes\` -> \`no\`" "$out" &&
	test_grep "^- SSHD_OPTIONS: \`UseDNS yes; MaxSessions 7\` -> \`none\`" "$out" &&
	test_grep "^- \`maxsessions\`: \`7\` -> \`10\`" "$out" &&
	[ "$(grep -n "^## Configuration differences" "$out" | cut -d: -f1)" -lt "$(grep -n "^| Metric |" "$out" | cut -d: -f1)" ]
'

test_done
