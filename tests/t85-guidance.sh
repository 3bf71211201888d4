#!/usr/bin/env bash
# The specification's readings as data (lib/report/guidance.tab, judged
# by lib/report/guidance.awk on the run's figures): a reading is in the
# report when its condition holds on the run, and not when it does not.
# Renders copies of the stored full run (tests/data/fullrun) whose data
# files are changed here: a slow key exchange, an RSA login much slower
# than ed25519, a password login much slower, MaxStartups refusals, a
# FIPS policy, a login that waits 5 s; and the same run with none of
# them. Needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"

FULL=2026-12-02_131316
cp -R "$TEST_DIR/data/fullrun/$FULL" "$TEST_TMP/stored"

# variant NAME KEY=VALUE...: a copy of the stored run with keys set, as
# FILE.KEY=VALUE (data/FILE.env); "refusals=0" makes every burst step
# log in all its clients. Rendered; its report in NAME/report.md.
variant () {
	local name=$1 kv file
	shift
	rm -rf "${TEST_TMP:?}/${name:?}" && cp -R "$TEST_TMP/stored" "$TEST_TMP/$name" || return 1
	for kv in "$@"; do
		case $kv in
		refusals=0)
			awk -F'\t' -v OFS='\t' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; print; next }
				{ $c["ok"] = $c["clients"]; $c["refused"] = 0; print }' \
				"$TEST_TMP/stored/raw/burst-steps.tsv" >"$TEST_TMP/$name/raw/burst-steps.tsv" || return 1 ;;
		*) file=${kv%%.*}
			printf '%s\n' "${kv#*.}" >>"$TEST_TMP/$name/data/$file.env" || return 1 ;;
		esac
	done
	"$KIT_DIR/lib/bin/render.sh" "$TEST_TMP/$name" >"$TEST_TMP/$name.out" 2>&1 ||
		{ cat "$TEST_TMP/$name.out"; return 1; }
}

# The readings the variants force, as the report words them.
KEX_SLOW='over 100 ms, and most of it is sshd'
RSA_SLOW='RSA key logins are 60.0 ms slower than ed25519 at p50: that is the client'
PASSWORD_SLOW='Password logins are 114.0 ms slower than key logins at p50: the extra is PAM'
REFUSED='MaxStartups `10:30:100` refused clients as soon as more came at once than its first value (3 of 20, 15 of 50, 45 of 100)'
FIPS='This host runs in FIPS mode (crypto policy FIPS): chacha20-poly1305 and curve25519 are not allowed'
POLICY='the crypto policy (FIPS) sets `Ciphers` and `KexAlgorithms` for sshd, overriding sshd_config: change them with `update-crypto-policies --set POLICY`'
WAIT5='Logins wait about 5, 10 or 30 s before authentication ends'
export KEX_SLOW RSA_SLOW PASSWORD_SLOW REFUSED FIPS POLICY WAIT5

test_expect 'forced: each reading is in the report, in its place' '
	variant forced login.kex_p50=150.0 login.kex_p95=180.0 login.kex_server_p50=120.0 login.kex_client_p50=30.0 \
		auth.rsa_diff_p50=+60.0 auth.password_diff_p50=+114.0 \
		environment.fips=enabled environment.crypto_policy=FIPS login.auth_p50=5010.0 &&
	r=forced/report.md &&
	test_grep -F "$KEX_SLOW" "$r" &&
	test_grep -F -- "- $RSA_SLOW" "$r" &&
	test_grep -F -- "- $PASSWORD_SLOW" "$r" &&
	test_grep -F -- "- $REFUSED" "$r" &&
	test_grep -F -- "- $FIPS" "$r" &&
	test_grep -F "$POLICY" "$r" &&
	test_grep -F -- "- $WAIT5 (key exchange 150 ms, authentication 5010 ms at p50)" "$r" &&
	sed -n "/^<a id=\"auth\"><\/a>/,/^<a id=\"rate\"><\/a>/p" "$r" >auth-section &&
	test_grep -F "$RSA_SLOW" auth-section &&
	test_grep "^\*\*The specification.s reading of this run\*\* (its section 4.3" auth-section &&
	sed -n "/^## Risks on an offline network/,/^## sshd settings/p" "$r" >offline &&
	test_grep -F "$WAIT5" offline
'

test_expect 'none of them holds: no such reading in the report' '
	variant calm login.kex_p50=20.0 login.kex_p95=30.0 login.kex_server_p50=10.0 login.kex_client_p50=10.0 \
		auth.rsa_diff_p50=+1.0 auth.password_diff_p50=+2.0 refusals=0 \
		environment.fips=disabled "environment.crypto_policy=none (no update-crypto-policies on this host)" &&
	r=calm/report.md &&
	for s in "$KEX_SLOW" "$RSA_SLOW" "Password logins are" "MaxStartups \`10:30:100\` refused" "This host runs in FIPS mode" \
		"update-crypto-policies --set" "$WAIT5"; do
		test_grep ! -F "$s" "$r" || return 1
	done &&
	test_grep -F -- "- Normal for local users: the three methods are within a few ms of each other" "$r" &&
	test_grep -F -- "- No client was refused up to 10 at once." "$r" &&
	test_grep -F "None of the waits the specification names for an offline network" "$r"
'

test_expect 'section 5: how the metrics relate, from this run.s figures' '
	r=calm/report.md &&
	sed -n "/^## How the metrics relate in this run/,/^## /p" "$r" >relations &&
	test_grep -F -- "- Login time and rate: 8 clients that each wait for their own login of 937 ms (p50, under that load) can make about 8.5 logins/s; this run" relations &&
	test_grep -F "closed loop made 8.3/s. More clients raise it until the CPU is full (the knee, 24.9/s)" relations &&
	test_grep -F -- "- Re-using a connection changes everything: a command over an open connection took 16.3 ms against 348.7 ms" relations
'

# The evaluator: a figure the run lacks makes a condition false; a
# condition that is not an expression is named, with its line.
test_expect 'the evaluator: no figure, no reading; a broken condition is named' '
	printf "a.x\t5\nb.s\tFIPS\n" >store &&
	q_to_tab >table <<-\EOF &&
	sectionQmetricQwhenQadvice
	1QaQa.x > 4 && b.s ~ "^FI"QX is {a.x * 2:1}
	2QaQa.missing > 4 || a.x > 4QNot shown
	3QaQnear(a.x, 5.2) && !(a.x == 6)QNear
	EOF
	awk -F"\t" -f "$KIT_DIR/lib/report/guidance.awk" store table >got &&
	printf "1\ta\tX is 10.0\n3\ta\tNear\n" >want &&
	test_cmp want got &&
	printf "4\ta\ta.x >> 2\tBroken\n" >>table &&
	! awk -F"\t" -f "$KIT_DIR/lib/report/guidance.awk" store table >got 2>err &&
	test_grep -F "line 5: an unexpected > in: a.x >> 2" err
'

test_done
