#!/usr/bin/env bash
# What the administrator sets is what sshd runs: every option of the kit's
# own template (templates/sshd_config_perf_test.in) that SSHD_OPTIONS may
# set shows with the administrator's value in the test server's sshd -T,
# whether sshd keeps the first value of it or the last (MaxStartups);
# options that add up keep the kit's entry too; a line that cannot take
# effect is refused (exit 2, the line and what sshd runs instead, nothing
# changed); a failed login check names its cause. On this host, without
# systemd.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"

TEMPLATE="$KIT_DIR/templates/sshd_config_perf_test.in"
export TEMPLATE

host_kit_test 'SSHD_OPTIONS in effect'
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

host_snapshot_save

# effective: the test server's sshd -T (sshd itself through the kit's
# door, server_sshd_T, not the kit's cached reader).
effective () {
	"$TEST_DIR/lib/sshd-T.sh" "$SSHD_CONFIG" "$TEST_USER"
}

# other_value OPTION: an SSHD_OPTIONS line that sets OPTION to another value
# than the template's, as sshd -T prints it back; "kit" for the options the
# kit keeps (refused in SSHD_OPTIONS); "login" for the ones whose other
# value makes the start's login fail (tested on their own below).
other_value () {
	case ${1,,} in
	port | listenaddress | addressfamily | pidfile | allowusers) echo kit ;;
	pubkeyauthentication | usepam) echo login ;;
	permitrootlogin) echo "PermitRootLogin forced-commands-only" ;;
	passwordauthentication) echo "PasswordAuthentication no" ;;
	kbdinteractiveauthentication) echo "KbdInteractiveAuthentication yes" ;;
	maxstartups) echo "MaxStartups 100:30:200" ;;
	subsystem) echo "Subsystem t16 /bin/true" ;;
	loglevel) echo "LogLevel INFO" ;;
	syslogfacility) echo "SyslogFacility LOCAL0" ;;
	authorizedkeysfile) echo "AuthorizedKeysFile .ssh/authorized_keys .ssh/t16_keys" ;;
	gssapiauthentication) echo "GSSAPIAuthentication no" ;;
	gssapicleanupcredentials) echo "GSSAPICleanupCredentials yes" ;;
	x11forwarding) echo "X11Forwarding no" ;;
	printmotd) echo "PrintMotd yes" ;;
	usedns) echo "UseDNS yes" ;;
	*) return 1 ;;
	esac
}

# The template's options, one per line (placeholder-only lines excluded).
template_options () {
	sed -n 's/^\([A-Z][A-Za-z0-9]*\)[[:space:]=].*/\1/p' "$TEMPLATE" | sort -u
}

# missing_other_values: the template's options without an entry above.
missing_other_values () {
	local o
	template_options | while read -r o; do other_value "$o" >/dev/null || echo "$o"; done
}

# settable_lines: the other-value lines of every option the administrator
# may set and the start's login survives.
settable_lines () {
	local o v
	template_options | while read -r o; do
		v=$(other_value "$o")
		case $v in kit | login) continue ;; esac
		printf '%s\n' "$v"
	done
}

# lines_missing T FILE: the lines of FILE that sshd -T output T lacks
# (keys in any case), each with what T has for that key.
lines_missing () {
	local line
	while read -r line; do
		grep -qix -- "$line" "$1" || printf 'lacks "%s", has: %s\n' "$line" "$(grep -i "^${line%% *} " "$1" | paste -sd';' -)"
	done <"$2"
}

# kit_options_refused: each option the kit keeps, in SSHD_OPTIONS, is
# refused with exit 2; prints what was not.
kit_options_refused () {
	local o rc
	template_options | while read -r o; do
		[ "$(other_value "$o")" = kit ] || continue
		rc=0
		SSHD_OPTIONS="$o 1" "$KIT_DIR/start-ssh.sh" >/dev/null 2>"$TEST_TMP/kit.err" || rc=$?
		[ "$rc" = 2 ] && grep -q "SSHD_OPTIONS: \"$o 1\" cannot be used" "$TEST_TMP/kit.err" ||
			echo "$o: exit $rc, $(cat "$TEST_TMP/kit.err")"
	done
}

test_expect 'every option of the template has an other value here (a new one must be added)' '
	template_options >opts && [ "$(wc -l <opts)" -ge 15 ] &&
	missing_other_values >missing && test_cmp /dev/null missing
'

test_expect 'a line that cannot take effect is refused before anything on the host changes' '
	expect_status 2 env SSHD_OPTIONS="MaxStartups 5:30:50; MaxStartups 6:30:60" "$KIT_DIR/start-ssh.sh" &&
	test_grep "SSHD_OPTIONS: \"MaxStartups 5:30:50\" does not take effect: sshd -T of the test server says \"maxstartups 6:30:60\"" "$TEST_TMP/out" &&
	host_unchanged
'

test_expect 'MaxStartups in SSHD_OPTIONS wins over MAX_STARTUPS (sshd keeps its last value), and says so' '
	SSHD_OPTIONS="MaxStartups 100:30:200" "$KIT_DIR/start-ssh.sh" >out 2>&1 &&
	test_grep "SSHD_OPTIONS \"MaxStartups 100:30:200\" replaces \"MaxStartups 10:30:100\" of the kit" out &&
	effective >T && test_grep -ix "maxstartups 100:30:200" T &&
	test_grep "^# sshd-perf-kit: SSHD_OPTIONS sets maxstartups .*: MaxStartups 10:30:100" "$SSHD_CONFIG"
'

# The MaxStartups that won is the one the burst test measures with: a
# burst of 3 clients is enough for its data and report (about 5 s).
test_expect 'with that MaxStartups from SSHD_OPTIONS, burst'"'"'s data and report name 100:30:200' '
	rc=0; SSHD_OPTIONS="MaxStartups 100:30:200" BURST_STEPS=3 RESULTS_DIR="$TEST_TMP/results" \
		"$KIT_DIR/test-ssh.sh" -q burst >burst.out 2>&1 || rc=$?
	test_verdict_exit "$rc" burst.out &&
	run=$(dirname "$(tail -n 1 burst.out)") &&
	test_kv "$run/data/burst.env" max_startups 100:30:200 &&
	test_kv "$run/data/environment.env" sshd_maxstartups 100:30:200 &&
	test_grep -F "This server runs with \`MaxStartups 100:30:200\`." "$run/report.md" &&
	test_grep -F "(MaxStartups 100:30:200)" "$run/report.md" &&
	test_grep -F "| \`MaxStartups\` | \`10:30:100\` | \`100:30:200\` |" "$run/report.md" &&
	test_grep ! -F "MaxStartups 10:30:100\`" "$run/report.md"
'

# AcceptEnv adds up: each line's names must be among the server's, not
# equal to them, so two lines of it are both in effect (two MaxStartups
# lines are refused above), and the session gets both variables.
test_expect 'AcceptEnv in SSHD_OPTIONS, two lines: both in sshd -T, and the variables reach the session' '
	SSHD_OPTIONS="AcceptEnv T16_ONE; AcceptEnv T16_TWO" "$KIT_DIR/start-ssh.sh" >out 2>&1 &&
	effective >T && grep -i "^acceptenv " T | sort >accept &&
	printf "acceptenv T16_ONE\nacceptenv T16_TWO\n" >want && test_cmp want accept &&
	ssh -F "$STATE_DIR/client/ssh_config" -o "SetEnv T16_ONE=one T16_TWO=two T16_OTHER=x" $HOST_ALIAS \
		"echo \"\$T16_ONE \$T16_TWO \${T16_OTHER:-unset}\"" >env.out &&
	test_eq "$(cat env.out)" "one two unset"
'

test_expect 'Subsystem sftp in SSHD_OPTIONS replaces the kit'"'"'s one (sshd takes one Subsystem of a name), and sftp uses it' '
	SSHD_OPTIONS="Subsystem sftp internal-sftp" "$KIT_DIR/start-ssh.sh" >out 2>&1 &&
	test_grep "SSHD_OPTIONS \"Subsystem sftp internal-sftp\" replaces \"Subsystem sftp .*\" of the kit.s template" out &&
	effective >T && grep -i "^subsystem sftp " T >sftp &&
	test_eq "$(tr "[:upper:]" "[:lower:]" <sftp)" "subsystem sftp internal-sftp" &&
	test_grep "^# sshd-perf-kit: SSHD_OPTIONS sets subsystem sftp and sshd takes one Subsystem of a name: Subsystem sftp " "$SSHD_CONFIG" &&
	echo pwd | sftp -q -b - -F "$STATE_DIR/client/ssh_config" $HOST_ALIAS >sftp.out 2>&1
'

test_expect 'SERVER_CONFIG=host: Subsystem sftp in SSHD_OPTIONS replaces the host'"'"'s one' '
	SERVER_CONFIG=host SSHD_OPTIONS="Subsystem sftp internal-sftp" "$KIT_DIR/start-ssh.sh" >out 2>&1 &&
	effective >T && grep -i "^subsystem sftp " T >sftp &&
	test_eq "$(tr "[:upper:]" "[:lower:]" <sftp)" "subsystem sftp internal-sftp"
'

test_expect 'every template option the administrator may set: the administrator'"'"'s value is what sshd runs' '
	settable_lines >want && [ "$(wc -l <want)" -ge 12 ] &&
	SSHD_OPTIONS="$(paste -sd";" want | sed "s/;/; /g")" "$KIT_DIR/start-ssh.sh" >out 2>&1 &&
	effective >T && lines_missing T want >missing && test_cmp /dev/null missing &&
	test_grep -ix "subsystem sftp .*" T &&
	[ "$(ssh -F "$STATE_DIR/client/ssh_config" $HOST_ALIAS id -un)" = "$TEST_USER" ]
'

test_expect 'the kit'"'"'s own options are refused in SSHD_OPTIONS, nothing changes' '
	host_snapshot_save before2 &&
	kit_options_refused >notrefused && test_cmp /dev/null notrefused &&
	host_unchanged before2
'

test_expect 'a refused line leaves the running server and its config as they were' '
	"$KIT_DIR/start-ssh.sh" -q && "$KIT_DIR/start-ssh.sh" status >st1 &&
	host_snapshot_save before3 &&
	expect_status 2 env SSHD_OPTIONS="MaxSessions 5; MaxSessions 7" "$KIT_DIR/start-ssh.sh" &&
	test_grep "SSHD_OPTIONS: \"MaxSessions 7\" does not take effect: sshd -T of the test server says \"maxsessions 5\"" "$TEST_TMP/out" &&
	[ "$(grep -c . "$TEST_TMP/out")" -eq 1 ] &&
	host_unchanged before3 &&
	{ "$KIT_DIR/start-ssh.sh" status >st2 || true; } && test_cmp st1 st2
'

# password_login: one login to the test server with the kit's password
# file, as the auth test logs in (its -password host: the password
# method only, askpass.sh prints the file); its status is ssh's.
password_login () {
	SSH_ASKPASS="$KIT_DIR/lib/bin/askpass.sh" SSH_ASKPASS_REQUIRE=force SSHPERF_PASSWORD_FILE="$STATE_DIR/password" \
		timeout 30 ssh -F "$STATE_DIR/client/ssh_config" "$HOST_ALIAS-password" true </dev/null
}

# OpenSSH without PAM refuses an account whose password field starts
# with "!" for every method (auth.c allowed_user): the kit's lock is "*"
# then, which no password matches.
test_expect 'UsePAM no: the kit'"'"'s user logs in with its key; its password field is "*", no password works' '
	SSHD_OPTIONS="UsePAM no" "$KIT_DIR/start-ssh.sh" >out 2>&1 &&
	effective >T && test_grep -ix "usepam no" T &&
	test_eq "$(getent shadow "$TEST_USER" | cut -d: -f2)" "*" &&
	[ "$(ssh -F "$STATE_DIR/client/ssh_config" $HOST_ALIAS id -un </dev/null)" = "$TEST_USER" ] &&
	! password_login 2>pw.err && test_grep "Permission denied" pw.err &&
	# The same login works once the password is set: the check above
	# can fail.
	printf "%s:%s\n" "$TEST_USER" "$(cat "$STATE_DIR/password")" | chpasswd &&
	test_when_finished "usermod -p \"*\" \"$TEST_USER\"" &&
	password_login
'

test_expect 'UsePAM no: test-ssh.sh login auth: key and password logins all succeed, "*" again after it' '
	rc=0; SSHD_OPTIONS="UsePAM no" LOGIN_SAMPLES=3 RESULTS_DIR="$TEST_TMP/results" \
		"$KIT_DIR/test-ssh.sh" -q login auth >auth.out 2>&1 || rc=$?
	test_verdict_exit "$rc" auth.out &&
	run=$(dirname "$(tail -n 1 auth.out)") &&
	test_kv "$run/data/environment.env" sshd_usepam no &&
	test_kv "$run/data/login.env" failed 0 &&
	for m in ed25519 rsa password; do test_kv "$run/data/auth.env" ${m}_ok 3 || return 1; done &&
	test_kv "$run/data/auth.env" password_locked_after yes &&
	test_eq "$(getent shadow "$TEST_USER" | cut -d: -f2)" "*" &&
	! password_login 2>/dev/null &&
	test_grep -F "right after puts \`*\` in its place in \`/etc/shadow\`" "$run/report.md"
'

# With PAM either form is a lock that leaves key logins in ("*" stays
# until the auth test sets the password and locks it with "!").
test_expect 'back to UsePAM yes: key logins work, no password does' '
	"$KIT_DIR/start-ssh.sh" -q >out 2>&1 &&
	effective >T && test_grep -ix "usepam yes" T &&
	[ "$(ssh -F "$STATE_DIR/client/ssh_config" $HOST_ALIAS id -un </dev/null)" = "$TEST_USER" ] &&
	! password_login 2>pw.err && test_grep "Permission denied" pw.err
'

# one_line_refusal OPTIONS PATTERN: the start with SSHD_OPTIONS=OPTIONS
# exits 2 with one line that matches PATTERN (grep -F), and changes
# nothing (the running server and its config included).
one_line_refusal () {
	{ "$KIT_DIR/start-ssh.sh" status >st1 || true; } && host_snapshot_save refusal &&
	expect_status 2 env SSHD_OPTIONS="$1" "$KIT_DIR/start-ssh.sh" &&
	test_eq "$(grep -c . "$TEST_TMP/out")" 1 &&
	test_grep -F "$2" "$TEST_TMP/out" &&
	host_unchanged refusal &&
	{ "$KIT_DIR/start-ssh.sh" status >st2 || true; } && test_cmp st1 st2
}

test_expect 'AuthenticationMethods publickey,password and PubkeyAuthentication no: exit 2, one line naming it, nothing changed' '
	one_line_refusal "AuthenticationMethods publickey,password" \
		"SSHD_OPTIONS: \"AuthenticationMethods publickey,password\" keeps the kit'"'"'s clients out: no list of it is \"publickey\" alone" &&
	one_line_refusal "MaxAuthTries 6; PubkeyAuthentication no" \
		"SSHD_OPTIONS: \"PubkeyAuthentication no\" keeps the kit'"'"'s clients out: sshd takes no key at all" &&
	# A list that a key alone passes is taken.
	SSHD_OPTIONS="AuthenticationMethods publickey,password publickey" "$KIT_DIR/start-ssh.sh" -q &&
	effective >T && test_grep -ix "authenticationmethods publickey,password publickey" T
'

test_expect 'an option that sshd'"'"'s log names at the failed login check: exit 2 naming it, the first start removed' '
	"$KIT_DIR/start-ssh.sh" -q cleanup && host_unchanged &&
	expect_status 2 env SSHD_OPTIONS="PubkeyAcceptedAlgorithms rsa-sha2-512" "$KIT_DIR/start-ssh.sh" &&
	test_grep "^start-ssh.sh: SSHD_OPTIONS: \"PubkeyAcceptedAlgorithms rsa-sha2-512\" keeps the kit.s clients out: its login check as $TEST_USER failed and sshd logged: .*PubkeyAcceptedAlgorithms" "$TEST_TMP/out" &&
	host_unchanged
'

# An account of the host is never changed: locked ("!") it cannot log in
# to an sshd without PAM, which is said before anything is done.
test_expect 'TEST_USER_EXISTING=yes, a locked account, UsePAM no: exit 2, one line, nothing changed' '
	other=$TEST_USER-lk && ! getent passwd "$other" >/dev/null &&
	useradd --no-create-home --shell /bin/bash "$other" &&
	test_when_finished "userdel \"$other\"" &&
	usermod -p "!\$6\$abc\$def" "$other" &&
	host_snapshot_save locked &&
	expect_status 2 env TEST_USER="$other" TEST_USER_EXISTING=yes SSHD_OPTIONS="UsePAM no" "$KIT_DIR/start-ssh.sh" &&
	test_eq "$(grep -c . "$TEST_TMP/out")" 1 &&
	test_grep -F "TEST_USER_EXISTING=yes: the account $other is locked (" "$TEST_TMP/out" &&
	test_grep -F "the test server runs with UsePAM no, where sshd refuses a locked account for every method, keys too" "$TEST_TMP/out" &&
	host_unchanged locked
'

test_expect 'ForceCommand /bin/false: the login check names sshd'"'"'s forced command' '
	expect_status 1 env SSHD_OPTIONS="ForceCommand /bin/false" "$KIT_DIR/start-ssh.sh" &&
	test_grep "a login as $TEST_USER failed: ssh exited 1 and printed nothing; sshd logged: Starting session: forced-command (config) .*/bin/false" "$TEST_TMP/out"
'

test_expect 'SERVER_CONFIG=host: SSHD_OPTIONS MaxStartups wins, every host line kept is what the real server runs' '
	SERVER_CONFIG=host SSHD_OPTIONS="MaxStartups 100:30:200" "$KIT_DIR/start-ssh.sh" >out 2>&1 &&
	effective >T && test_grep -ix "maxstartups 100:30:200" T &&
	[ "$(ssh -F "$STATE_DIR/client/ssh_config" $HOST_ALIAS id -un)" = "$TEST_USER" ]
'

# With SERVER_CONFIG=host every host line the kit keeps must give the
# test server what the real server's sshd -T says. A build installed
# elsewhere than it was configured for (a copied prefix, make install
# DESTDIR=...) reads a relative Include from its compiled-in folder
# (Debian's sshd: /etc/ssh), while the kit reads it from the folder of
# the build's sshd_config: the host line the kit found there is not what
# the real server runs, and the start refuses it before anything changes.
test_expect 'SERVER_CONFIG=host: a host line that does not take effect in the test server is refused, exit 2, nothing changed' '
	p=$TEST_TMP/relocated && mkdir -p "$p/sbin" "$p/bin" "$p/libexec" "$p/etc/ssh" &&
	for f in sshd ssh sftp ssh-keygen; do
		case $f in sshd) d=sbin ;; *) d=bin ;; esac
		ln -s "$(command -v "$f")" "$p/$d/$f" || return 1
	done &&
	for f in /usr/libexec/openssh/sftp-server /usr/lib/openssh/sftp-server; do
		[ ! -x "$f" ] || { ln -s "$f" "$p/libexec/sftp-server"; break; }
	done &&
	[ ! -e /etc/ssh/t16-site.conf ] &&
	ssh-keygen -q -t ed25519 -N "" -f "$p/etc/ssh/host_ed25519_key" &&
	printf "HostKey %s\nInclude t16-site.conf\nUsePAM yes\n" "$p/etc/ssh/host_ed25519_key" >"$p/etc/ssh/sshd_config" &&
	printf "MaxAuthTries 3\n" >"$p/etc/ssh/t16-site.conf" &&
	{ "$KIT_DIR/start-ssh.sh" status >st1 || true; } && host_snapshot_save before4 &&
	expect_status 2 env SERVER_CONFIG=host OPENSSH_PREFIX="$p" "$KIT_DIR/start-ssh.sh" &&
	[ "$(grep -c . "$TEST_TMP/out")" -eq 1 ] &&
	test_grep -F "SERVER_CONFIG=host: \"MaxAuthTries 3\" ($p/etc/ssh/t16-site.conf) does not take effect in the test server: its sshd -T says \"maxauthtries 3\" where the real server'"'"'s says \"maxauthtries 6\"" "$TEST_TMP/out" &&
	host_unchanged before4 &&
	{ "$KIT_DIR/start-ssh.sh" status >st2 || true; } && test_cmp st1 st2
'

test_expect 'cleanup: the host is as before' '
	"$KIT_DIR/start-ssh.sh" -q cleanup &&
	host_unchanged
'

test_done
