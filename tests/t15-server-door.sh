#!/usr/bin/env bash
# lib/server.sh, the one door to what the test server runs: its sshd -T
# reader on recorded outputs of OpenSSH 9.2 (Debian 12, keys in lower
# case) and 10.5p1 (keys in CamelCase), its cache, and the report's PAM
# stack line, which follows UsePAM in both. Needs no root and no server:
# SSHD is a stand-in that prints a recorded sshd -T output and counts its
# calls, so the door's own code (run, cache, read) is what is tested.
. "$(dirname "$0")/lib/harness.sh"
PROG=t15
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"
# shellcheck source=lib/server.sh
. "$KIT_DIR/lib/server.sh"
# shellcheck source=lib/serverconfig.sh
. "$KIT_DIR/lib/serverconfig.sh"

D="$TEST_DIR/data"
# Read inside the test bodies (eval).
export LOWER="$D/sshd-T-debian12.txt"
export CAMEL="$D/sshd-T-openssh105.txt"

# stand_in FIXTURE: this test's state folder, config and an "sshd" that
# prints FIXTURE for -T (and notes each call in calls).
stand_in () {
	rm -rf state && mkdir state && : >calls &&
	printf 'Port 11022\n' >config &&
	cat >sshd <<-EOF &&
		#!/bin/sh
		echo "\$*" >>"$PWD/calls"
		[ "\$1" = -T ] && exec cat "$PWD/fixture"
		exit 1
	EOF
	chmod +x sshd &&
	cp "$1" fixture &&
	STATE_DIR=$PWD/state SERVER_ENV=$PWD/state/server.env SSHD=$PWD/sshd SSHD_CONFIG=$PWD/config &&
	SETTING[TEST_USER]=sshperf
}

test_expect 'the fixtures are what they claim: lower case from 9.2, CamelCase from 10.5p1' '
	test_grep -x "usepam yes" "$LOWER" && test_grep ! "^UsePAM" "$LOWER" &&
	test_grep -x "UsePAM yes" "$CAMEL" && test_grep ! "^usepam" "$CAMEL"
'

test_expect 'server_effective_read: any case of the key, in both outputs' '
	for f in "$LOWER" "$CAMEL"; do
		[ "$(server_effective_read usepam <"$f")" = yes ] &&
		[ "$(server_effective_read UsePAM <"$f")" = yes ] &&
		[ "$(server_effective_read MAXSTARTUPS <"$f")" = 10:30:100 ] &&
		[ "$(server_effective_read passwordauthentication <"$f")" = yes ] || { echo "in $f"; return 1; }
	done
'

test_expect 'server_effective_read: every value of a key that has several, whole' '
	server_effective_read acceptenv <"$LOWER" >got &&
	printf "LANG\nLC_*\n" >want && test_cmp want got &&
	[ "$(server_effective_read subsystem <"$CAMEL" | cut -d" " -f1)" = sftp ] &&
	[ -z "$(server_effective_read nosuchoption <"$CAMEL")" ]
'

test_expect 'server_effective KEY FILE reads a recorded output' '
	[ "$(server_effective LogLevel "$CAMEL")" = VERBOSE ] &&
	[ "$(server_effective persourcepenalties "$CAMEL")" = no ]
'

test_expect 'server_effective runs sshd -T for the test user from CLIENT_SOURCE, once per configuration' '
	stand_in "$CAMEL" &&
	[ "$(server_effective usepam)" = yes ] &&
	[ "$(server_effective maxstartups)" = 10:30:100 ] &&
	[ "$(wc -l <calls)" -eq 1 ] &&
	test_grep -x -- "-T -f $PWD/config -C user=sshperf,addr=$CLIENT_SOURCE,host=localhost" calls &&
	printf "UseDNS yes\n" >>config && sed "s/^UsePAM yes/UsePAM no/" "$CAMEL" >fixture &&
	[ "$(server_effective usepam)" = no ] &&
	[ "$(wc -l <calls)" -eq 2 ]
'

test_expect 'server_effective_dump: status 1 when sshd -T fails; nothing cached' '
	stand_in "$CAMEL" && rm fixture &&
	! server_effective_dump "$SSHD_CONFIG" >out 2>/dev/null &&
	[ ! -e state/effective.txt ] && [ -z "$(server_effective usepam)" ]
'

test_expect 'the PAM stack line follows UsePAM in 9.2 and 10.x output alike' '
	for f in "$LOWER" "$CAMEL"; do
		stand_in "$f" &&
		pam_stack_text >pam &&
		grep -q "^service sshd (/etc/pam.d/sshd): auth" pam || { echo "from $f:"; cat pam; return 1; }
		sed "s/^usepam yes/usepam no/; s/^UsePAM yes/UsePAM no/" "$f" >fixture && echo >>config &&
		[ "$(pam_stack_text)" = "none (UsePAM no)" ] || { echo "UsePAM no from $f: $(pam_stack_text)"; return 1; }
	done
'

test_expect 'the report environment keys through the door, lower case and CamelCase alike' '
	server_effective_kv <"$CAMEL" >camel && server_effective_kv <"$LOWER" >lower &&
	test_grep -x "sshd_usepam=yes" camel && test_grep -x "sshd_usepam=yes" lower &&
	test_grep -x "sshd_maxstartups=10:30:100" camel && test_grep -x "sshd_maxstartups=10:30:100" lower
'

test_done
