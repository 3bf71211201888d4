#!/usr/bin/env bash
# sshperf-settings: every kind of setting, the file's syntax, environment
# overrides; each bad value gives one line naming the setting, exit 2.
. "$(dirname "$0")/lib/harness.sh"

S="$BUILD_DIR/sshperf-settings"
schema="$KIT_DIR/lib/settings.schema"
conf="$KIT_DIR/settings.conf"

settings () {
	"$S" -s "$schema" -f "${SETTINGS:-$conf}"
}

# bad NAME VALUE: the value is refused with one line naming NAME, exit 2.
bad () {
	local rc=0
	env "$1=$2" "$S" -s "$schema" -f "$conf" >"$TEST_TMP/o" 2>"$TEST_TMP/e" || rc=$?
	[ "$rc" -eq 2 ] || { echo "exit $rc for $1=$2"; return 1; }
	[ ! -s "$TEST_TMP/o" ] || { echo "printed settings for $1=$2"; return 1; }
	[ "$(wc -l <"$TEST_TMP/e")" -eq 1 ] || { cat "$TEST_TMP/e"; return 1; }
	test_grep "$1" "$TEST_TMP/e" || { cat "$TEST_TMP/e"; return 1; }
}

test_expect 'the shipped settings.conf is valid and sets every schema name' '
	settings >"$TEST_TMP/all" &&
	for n in $(grep -v "^#" "$schema" | cut -d" " -f1); do grep -q "^$n=" "$TEST_TMP/all" || { echo "missing $n"; return 1; }; done &&
	test_grep -x "TEST_PORT='"'"'11022'"'"'" "$TEST_TMP/all" &&
	test_grep -x "BURST_STEPS='"'"'5 10 20 50 100'"'"'" "$TEST_TMP/all"
'

test_expect 'an environment variable overrides the file and is named' '
	LOGIN_SAMPLES=5 settings >"$TEST_TMP/all" &&
	test_grep -x "LOGIN_SAMPLES='"'"'5'"'"'" "$TEST_TMP/all" &&
	test_grep -x "SETTINGS_FROM_ENV='"'"'LOGIN_SAMPLES'"'"'" "$TEST_TMP/all"
'

test_expect 'OPENSSH_PREFIX: empty or an absolute path without .., nothing else' '
	OPENSSH_PREFIX= settings >empty && test_grep -x "OPENSSH_PREFIX='"'"''"'"'" empty &&
	OPENSSH_PREFIX=/opt/openssh-9.9p1 settings >abs && test_grep -x "OPENSSH_PREFIX='"'"'/opt/openssh-9.9p1'"'"'" abs &&
	bad OPENSSH_PREFIX opt/openssh && bad OPENSSH_PREFIX /opt/../etc && bad OPENSSH_PREFIX /opt/x/.. &&
	bad OPENSSH_PREFIX "/opt/a b" && bad OPENSSH_PREFIX "/opt/\$(id)"
'

test_expect 'whole numbers: letters, zero, negative, empty, too large' '
	bad LOGIN_SAMPLES abc && bad LOGIN_SAMPLES 0 && bad LOGIN_SAMPLES -1 &&
	bad LOGIN_SAMPLES "" && bad LOGIN_SAMPLES 99999999999999999999 &&
	bad DURATION 1.5 && bad RATE_WORKERS " 8"
'

test_expect 'numbers with decimals: words and negatives are refused, 0.5 is fine' '
	bad TARGET_LOGIN_P95_MS fast && bad TARGET_LOGIN_P95_MS -3 &&
	TARGET_ECHO_P99_MS=0.5 settings >/dev/null
'

test_expect 'ports: privileged, out of range, not a number' '
	bad TEST_PORT 22 && bad TEST_PORT 80 && bad TEST_PORT 70000 && bad TEST_PORT 11o22 &&
	TEST_PORT=2222 settings >/dev/null
'

test_expect 'MAX_STARTUPS needs start:rate:full' '
	bad MAX_STARTUPS 10:30 && bad MAX_STARTUPS a:b:c && bad MAX_STARTUPS 10 &&
	bad MAX_STARTUPS 100:30:10 && bad MAX_STARTUPS 10:130:100 && bad MAX_STARTUPS 10:30:100: &&
	MAX_STARTUPS=100:30:200 settings >/dev/null
'

test_expect 'TEST_USER: root and odd names are refused' '
	bad TEST_USER root && bad TEST_USER "Bad User" && bad TEST_USER 1abc && bad TEST_USER "a;b"
'

test_expect 'lists, words and folders' '
	bad BURST_STEPS "5 3" && bad BURST_STEPS "5 x" && bad BURST_STEPS "" &&
	bad ECHO_CLIENT telnet && bad RATE_CLIENT putty && bad RATE_STEP_SECONDS 0 && bad RESULTS_DIR "/tmp/\$(id)" && bad TRANSFER_CIPHERS "AES;rm" &&
	RESULTS_DIR=/tmp/r TRANSFER_CIPHERS="aes128-ctr aes256-gcm@openssh.com" settings >/dev/null
'

test_expect 'SSHD_OPTIONS: quotes, $ and backslashes refused; newlines kept as ;' '
	bad SSHD_OPTIONS "Banner '"'"'/x'"'"'" && bad SSHD_OPTIONS "UseDNS \$(id)" && bad SSHD_OPTIONS "UseDNS yes\\" &&
	SSHD_OPTIONS="UseDNS yes
MaxSessions 20" settings >two && test_grep -x "SSHD_OPTIONS='"'"'UseDNS yes;MaxSessions 20'"'"'" two &&
	bad SERVER_CONFIG other && bad TEST_USER_EXISTING maybe
'

test_expect 'a line that is not NAME=value is refused with its line number' '
	printf "TEST_PORT=11022\nhello there\n" >"$TEST_TMP/s.conf" &&
	SETTINGS="$TEST_TMP/s.conf" expect_status 2 settings &&
	test_grep "line 2" "$TEST_TMP/out"
'

test_expect 'an unknown name, a repeated name and an unquoted space are refused' '
	printf "TEST_PROT=1\n" >"$TEST_TMP/s.conf" &&
	SETTINGS="$TEST_TMP/s.conf" expect_status 2 settings && test_grep "unknown setting" "$TEST_TMP/out" &&
	printf "TEST_PORT=1\nTEST_PORT=2\n" >"$TEST_TMP/s.conf" &&
	SETTINGS="$TEST_TMP/s.conf" expect_status 2 settings && test_grep "second time" "$TEST_TMP/out" &&
	printf "BURST_STEPS=5 10\n" >"$TEST_TMP/s.conf" &&
	SETTINGS="$TEST_TMP/s.conf" expect_status 2 settings && test_grep "double quotes" "$TEST_TMP/out"
'

test_expect 'a setting missing from the file is named' '
	grep -v "^LOGIN_SAMPLES=" "$conf" >"$TEST_TMP/s.conf" &&
	SETTINGS="$TEST_TMP/s.conf" expect_status 2 settings && test_grep "LOGIN_SAMPLES is missing" "$TEST_TMP/out"
'

test_expect 'every helper answers --help with its usage on stdout, exit 0' '
	for h in "$BUILD_DIR"/sshperf-*; do
		"$h" --help >o 2>e || { echo "$h: exit $?"; return 1; }
		test_grep "^usage: $(basename "$h")" o || { echo "$h: no usage on stdout"; cat o e; return 1; }
		[ ! -s e ] || { echo "$h: wrote to stderr"; return 1; }
	done
'

test_expect 'the Ansible role: its variables and checks are what settings.conf and the schema give' '
	"$KIT_DIR/packaging/ansible-vars.sh" --check >"$TEST_TMP/out" 2>&1 || { cat "$TEST_TMP/out"; return 1; }
'

test_done
