#!/usr/bin/env bash
# lib/ciphers.sh on recorded outputs: the ciphers both the test server
# (sshd -T, after the crypto policy) and the client (ssh -G / ssh -Q)
# allow, the default one marked, the MAC a CTR cipher gets, and
# TRANSFER_CIPHERS that name a cipher one side refuses.
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/ciphers.sh
. "$KIT_DIR/lib/ciphers.sh"

D="$TEST_DIR/data"
export D

# common SERVER CLIENT_G CLIENT_Q: the table as one line, "name*" = default.
common () {
	ciphers_common "$D/sshd-T-$1.txt" "$D/ssh-G-$2.txt" "$D/ssh-Q-$3.txt" |
		awk -F'\t' '{ printf "%s%s%s", sep, $1, ($2 == "default" ? "*" : ""); sep = " " } END { print "" }'
}

test_expect 'Debian 12: the six default ciphers, chacha20-poly1305 the default' '
	echo "chacha20-poly1305@openssh.com* aes128-ctr aes192-ctr aes256-ctr aes128-gcm@openssh.com aes256-gcm@openssh.com" >want &&
	common debian12 debian12 debian12 >got &&
	test_cmp want got
'

test_expect 'RHEL 9 DEFAULT policy on both sides: the policy list, aes256-gcm the default' '
	echo "aes256-gcm@openssh.com* chacha20-poly1305@openssh.com aes256-ctr aes128-gcm@openssh.com aes128-ctr" >want &&
	common rhel9-default rhel9-default rhel9 >got &&
	test_cmp want got
'

test_expect 'client -Q knows CBC and 3DES, but -G (its policy) does not offer them: not listed' '
	{ common rhel9-default rhel9-default rhel9 || true; } >got && test_grep ! cbc got
'

test_expect 'server in FIPS policy, Debian client: no chacha20, the default moves to aes128-ctr' '
	echo "aes128-ctr* aes256-ctr aes128-gcm@openssh.com aes256-gcm@openssh.com" >want &&
	common rhel9-fips debian12 debian12 >got &&
	test_cmp want got &&
	test_eq "$(ciphers_default "$D/sshd-T-rhel9-fips.txt" "$D/ssh-G-debian12.txt" "$D/ssh-Q-debian12.txt")" aes128-ctr
'

test_expect 'server allows more than the client offers: the client decides (aes192-ctr dropped)' '
	echo "aes256-gcm@openssh.com* chacha20-poly1305@openssh.com aes256-ctr aes128-gcm@openssh.com aes128-ctr" >want &&
	common debian12 rhel9-default rhel9 >got &&
	test_cmp want got
'

test_expect 'exactly one default in every combination' '
	for s in debian12 rhel9-default rhel9-fips; do
		for c in debian12 rhel9-default; do
			q=debian12; [ "$c" = debian12 ] || q=rhel9
			n=$(ciphers_common "$D/sshd-T-$s.txt" "$D/ssh-G-$c.txt" "$D/ssh-Q-$q.txt" | grep -c "	default\$")
			[ "$n" -eq 1 ] || { echo "$s/$c: $n defaults"; return 1; }
		done
	done
'

test_expect 'the MAC for CTR: UMAC on Debian, hmac-sha2-256-etm under RHEL policies' '
	test_eq "$(ciphers_mac "$D/sshd-T-debian12.txt" "$D/ssh-G-debian12.txt")" umac-64-etm@openssh.com &&
	test_eq "$(ciphers_mac "$D/sshd-T-rhel9-default.txt" "$D/ssh-G-rhel9-default.txt")" hmac-sha2-256-etm@openssh.com &&
	test_eq "$(ciphers_mac "$D/sshd-T-rhel9-fips.txt" "$D/ssh-G-debian12.txt")" hmac-sha2-256-etm@openssh.com
'

test_expect 'TRANSFER_CIPHERS empty: every common cipher' '
	ciphers_select "" "$D/sshd-T-rhel9-default.txt" "$D/ssh-G-rhel9-default.txt" "$D/ssh-Q-rhel9.txt" >got &&
	[ "$(wc -l <got)" -eq 5 ]
'

test_expect 'TRANSFER_CIPHERS keeps its order and the default mark' '
	q_to_tab >want <<-\EOF &&
	aes128-ctrQ-
	aes256-gcm@openssh.comQdefault
	EOF
	ciphers_select "aes128-ctr aes256-gcm@openssh.com" "$D/sshd-T-rhel9-default.txt" \
		"$D/ssh-G-rhel9-default.txt" "$D/ssh-Q-rhel9.txt" >got &&
	test_cmp want got
'

test_expect 'TRANSFER_CIPHERS with a cipher the server refuses: one line naming it and the server' '
	! ciphers_select "aes128-ctr chacha20-poly1305@openssh.com" "$D/sshd-T-rhel9-fips.txt" \
		"$D/ssh-G-debian12.txt" "$D/ssh-Q-debian12.txt" >out 2>err &&
	[ ! -s out ] && [ "$(wc -l <err)" -eq 1 ] &&
	test_grep "^TRANSFER_CIPHERS: chacha20-poly1305@openssh.com is not allowed by the test server" err
'

test_expect 'TRANSFER_CIPHERS with a cipher only the client refuses: names the client' '
	! ciphers_select "aes192-ctr" "$D/sshd-T-debian12.txt" "$D/ssh-G-rhel9-default.txt" "$D/ssh-Q-rhel9.txt" 2>err &&
	test_grep "^TRANSFER_CIPHERS: aes192-ctr is not allowed by the client" err
'

test_expect 'no cipher in common: refused with both lists' '
	printf "ciphers aes128-cbc\n" >t.txt &&
	! ciphers_select "" t.txt "$D/ssh-G-debian12.txt" "$D/ssh-Q-debian12.txt" 2>err &&
	test_grep "no cipher in common (server: aes128-cbc; client: chacha20" err
'

# ciphers_check: test-ssh.sh's check of TRANSFER_CIPHERS before a run.
test_expect 'check: names every side allows pass, nothing printed' '
	ciphers_check "aes128-ctr chacha20-poly1305@openssh.com" "$D/sshd-T-debian12.txt" \
		"$D/ssh-G-debian12.txt" "$D/ssh-Q-debian12.txt" >out &&
	[ ! -s out ]
'

test_expect 'check: an unknown and a disallowed name, one line naming both and the usable ones' '
	! ciphers_check "rot13 aes128-ctr aes128-cbc" "$D/sshd-T-debian12.txt" \
		"$D/ssh-G-debian12.txt" "$D/ssh-Q-debian12.txt" >out &&
	cat out && [ "$(wc -l <out)" -eq 1 ] &&
	test_grep "rot13 unknown to this ssh (not in ssh -Q cipher); aes128-cbc not allowed by the test server" out &&
	test_grep ! "aes128-ctr unknown\|aes128-ctr not" out &&
	test_grep "usable here: chacha20-poly1305@openssh.com aes128-ctr aes192-ctr aes256-ctr aes128-gcm@openssh.com aes256-gcm@openssh.com (" out
'

test_expect 'check: a name the client policy does not offer; without ssh -G, ssh -Q decides' '
	! ciphers_check "aes192-ctr" "$D/sshd-T-debian12.txt" "$D/ssh-G-rhel9-default.txt" "$D/ssh-Q-rhel9.txt" >out &&
	test_grep "aes192-ctr not offered by the client" out &&
	ciphers_check "aes192-ctr" "$D/sshd-T-debian12.txt" /dev/null "$D/ssh-Q-rhel9.txt"
'

test_expect 'check: OpenSSH 10 prints sshd -T keys in CamelCase; read the same' '
	sed "s/^ciphers /Ciphers /" "$D/sshd-T-rhel9-fips.txt" >camel.txt &&
	test_grep "^Ciphers aes256-gcm" camel.txt &&
	ciphers_check "aes128-ctr" camel.txt "$D/ssh-G-debian12.txt" "$D/ssh-Q-debian12.txt" &&
	! ciphers_check "chacha20-poly1305@openssh.com" camel.txt "$D/ssh-G-debian12.txt" "$D/ssh-Q-debian12.txt" >out &&
	test_grep "chacha20-poly1305@openssh.com not allowed by the test server" out
'

test_expect 'OpenSSH 10.5p1 (sshd -T in CamelCase, recorded): the six default ciphers, chacha20-poly1305 the default' '
	test_grep "^Ciphers " "$D/sshd-T-openssh105.txt" &&
	echo "chacha20-poly1305@openssh.com* aes128-gcm@openssh.com aes256-gcm@openssh.com aes128-ctr aes192-ctr aes256-ctr" >want &&
	common openssh105 openssh105 openssh105 >got &&
	test_cmp want got &&
	test_eq "$(ciphers_mac "$D/sshd-T-openssh105.txt" "$D/ssh-G-openssh105.txt")" umac-64-etm@openssh.com &&
	ciphers_select aes256-ctr "$D/sshd-T-openssh105.txt" "$D/ssh-G-openssh105.txt" "$D/ssh-Q-openssh105.txt" >got &&
	echo "aes256-ctrQ-" | q_to_tab >want && test_cmp want got
'

test_expect 'ssh -G in CamelCase too: the same table as in lower case' '
	awk "{ \$1 = toupper(substr(\$1, 1, 1)) substr(\$1, 2); print }" "$D/ssh-G-openssh105.txt" >ssh-G-camel.txt &&
	test_grep "^Ciphers " ssh-G-camel.txt &&
	ciphers_common "$D/sshd-T-openssh105.txt" ssh-G-camel.txt "$D/ssh-Q-openssh105.txt" >got &&
	ciphers_common "$D/sshd-T-openssh105.txt" "$D/ssh-G-openssh105.txt" "$D/ssh-Q-openssh105.txt" >want &&
	test_cmp want got && [ "$(wc -l <got)" -eq 6 ] &&
	test_eq "$(ciphers_mac "$D/sshd-T-openssh105.txt" ssh-G-camel.txt)" umac-64-etm@openssh.com
'

test_expect 'the report environment keys from sshd -T, lower case and CamelCase alike' '
	sshd_effective_kv <"$D/sshd-T-openssh105.txt" >camel &&
	test_grep -x "sshd_maxstartups=10:30:100" camel &&
	test_grep "^sshd_kexalgorithms=mlkem768x25519-sha256," camel &&
	test_grep -x "sshd_persourcepenalties=no" camel &&
	test_grep -x "sshd_loglevel=VERBOSE" camel &&
	sshd_effective_kv <"$D/sshd-T-debian12.txt" >lower &&
	test_grep "^sshd_ciphers=" lower && test_grep "^sshd_maxstartups=" lower
'

test_done
