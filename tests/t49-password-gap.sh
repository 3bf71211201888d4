#!/usr/bin/env bash
# The password gap of `auth`, split: one check of the account's own hash
# (its scheme as /etc/shadow holds it, and where that policy comes from)
# plus the rest, TARGET_AUTH_GAP_MS judged on the rest, the report naming
# only modules of this host's PAM stack. Once with the kit's own account
# (its password set by chpasswd through PAM: yescrypt on Debian 12), once
# with an existing account whose password this test sets with
# `chpasswd -c SHA512` (sha512crypt, RHEL 9's default), for this test only.
# On this host, as root, with the real sshd and ssh.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/whose.sh"

host_kit_test 'password gap'
export LOGIN_SAMPLES=5 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"
# Named after the instance's user: another lane's host snapshot leaves it out.
OTHER=${TEST_USER}pw
export OTHER
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'
host_snapshot_save

# v FILE KEY
v () {
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

# scheme_in_shadow USER: the scheme of USER's hash, from its prefix.
scheme_in_shadow () {
	case $(getent shadow "$1" | cut -d: -f2 | sed 's/^!*//') in
	'$y$'*) echo yescrypt ;;
	'$6$'*) echo sha512crypt ;;
	'$5$'*) echo sha256crypt ;;
	*) echo other ;;
	esac
}

# auth_run: test-ssh.sh auth; its run folder in $TEST_TMP/run.
auth_run () {
	"$KIT_DIR/test-ssh.sh" auth >"$TEST_TMP/run.out" 2>&1 || true
	dirname "$(tail -n 1 "$TEST_TMP/run.out")" >"$TEST_TMP/run"
	[ -f "$(cat "$TEST_TMP/run")/data/auth.env" ] && return 0
	cat "$TEST_TMP/run.out"
	return 1
}

# gap_side FIGURE LO HI TARGET: where the judged gap is against its
# target: over (all of the interval, or the figure without one, above
# it), within (all at or below it) or holds (the interval holds it).
gap_side () {
	awk -v f="$1" -v lo="$2" -v hi="$3" -v t="$4" -v m="$(sed -n 's/^VERDICT_MARGIN_PCT=//p' "$KIT_DIR/settings.conf")" 'BEGIN {
		if (lo == "-" && hi == "-") { print (f > t) ? "over" : "within"; exit }
		if (lo != "-" && lo > t * (1 + m / 100)) { print "over"; exit }
		if (hi != "-" && hi <= t * (1 - m / 100)) { print "within"; exit }
		print "holds" }'
}

# split_checks ENV REPORT: the gap is the hash check plus the rest; the
# rest is what the verdict judged; only this stack's modules are named.
split_checks () {
	local env=$1 report=$2 gap hash rest mods
	# A password login as fast as the fastest key (a cheap hash on a quiet
	# machine): no gap of its own to split; the whole gap is judged, and
	# the hash check is still measured as the host's policy.
	if [ "$(v "$env" gap_slow)" != password ] && [ -z "$(v "$env" gap_password_fast)" ]; then
		test_kv "$env" gap_judged whole && test -n "$(v "$env" password_hash_check_ms)" &&
			test_eq "$(v "$env" gap_hash_ms)" ""
		return
	fi
	if [ "$(v "$env" gap_slow)" = password ]; then test_kv "$env" gap_judged rest || return 1; fi
	gap=$(v "$env" gap_password_ms) && hash=$(v "$env" gap_hash_ms) && rest=$(v "$env" gap_rest_ms) &&
	test_eq "$hash" "$(v "$env" password_hash_check_ms)" || return 1
	if ! awk -v g="$gap" -v h="$hash" -v r="$rest" 'BEGIN { d = g - h - r; exit !(d < 0.11 && d > -0.11) }'; then
		echo "gap $gap ms is not hash $hash + rest $rest"
		return 1
	fi
	# The rest is judged on its interval (the Hodges-Lehmann shift of
	# the password logins against the fastest key's, less the hash
	# check), widened to both steps when sshd's padding put the password
	# logins on two (gap_verdict_lo_ms, _hi_ms): FAIL only when all of it
	# is over the target by more than VERDICT_MARGIN_PCT, nothing when all
	# of it is within by that much, "within the noise" when it holds the
	# target or its margin; without an interval, on the figure. The
	# words on the steps are part of the "within the noise" reason, so
	# they are looked for where that reason is written.
	if [ "$(v "$env" gap_judged)" = rest ]; then
		case $(gap_side "$rest" "$(v "$env" gap_verdict_lo_ms)" "$(v "$env" gap_verdict_hi_ms)" "$(v "$env" gap_target)") in
		over) test_grep "and $rest ms more, over TARGET_AUTH_GAP_MS" "$env" ;;
		within) test_grep ! "over TARGET_AUTH_GAP_MS" "$env" ;;
		holds)
			test_grep ! "over TARGET_AUTH_GAP_MS" "$env" &&
			if [ "$(v "$env" status)" != FAIL ]; then
				test_grep -E "the gap between the methods(, judged on [^:]*)?: within the (run-to-run )?noise of the target" "$env" &&
				if [ -n "$(v "$env" gap_step_lo_ms)" ]; then
					test_grep "judged on its interval and on both steps of sshd's padding of the password logins" "$env"
				fi
			fi ;;
		esac || return 1
	fi
	# A gap of 5 ms or less is none worth splitting: the report has no
	# paragraph on it. A cheap hash (sha512crypt, 3 ms) on a loaded
	# machine can leave the password login that close to the fastest key.
	# (The CI run of 244dc49 failed this test on the sha512crypt account
	# without its output; this is the one way found for it to fail there.)
	if awk -v g="$gap" 'BEGIN { exit !(g <= 5) }'; then
		echo "a gap of $gap ms: no paragraph on it"
		test_grep ! "^- The password login is" "$report"
		return
	fi
	if [ "$(v "$env" gap_judged)" = rest ]; then test_grep "judged on the rest ($rest ms)" "$report" || return 1; fi
	test_grep "ms\*\* for checking the password hash" "$report" &&
	mods=$(v "$env" pam_auth_modules) &&
	grep -A4 "^- The password login is" "$report" >"$TEST_TMP/gap.md" &&
	for m in sss ldap krb5 faillock; do
		case " $mods " in *" pam_$m "*) continue ;; esac
		test_grep ! -i "$m" "$TEST_TMP/gap.md" || return 1
	done &&
	for m in $mods; do test_grep "\`$m\`" "$TEST_TMP/gap.md" || return 1; done
}

# The first run takes the slowest method's second stage (a target far
# above any login: the p95 interval of 5 logins holds it, and 20 give it
# no upper bound): its 15 more logins are captured and split as the
# first 5 were.
test_expect 'the kit'"'"'s account: the gap split, the policy named; the staged logins split too' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	TARGET_AUTH_P95_MS=600000 auth_run && run=$(cat "$TEST_TMP/run") &&
	slow=$(v "$run/data/auth.env" slowest) &&
	test_kv "$run/data/auth.env" stages 2 &&
	test_kv "$run/data/auth.env" "${slow}_ok" 20 &&
	whose_adds_up "$run" "auth-$slow" "auth-$slow.tsv" 20 &&
	test_kv "$run/data/auth.env" "${slow}_whose_mismatched" 0 &&
	test_kv "$run/data/auth.env" "${slow}_server_n" 20 &&
	test_grep ! "^${slow}_whose_note=" "$run/data/auth.env" &&
	want=$(scheme_in_shadow "$TEST_USER") &&
	test_kv "$run/data/auth.env" password_hash "$want" &&
	src=$(v "$run/data/auth.env" password_hash_source) &&
	case $src in pam | login.defs) ;; *) echo "source $src"; false ;; esac &&
	echo "$want: one check $(v "$run/data/auth.env" gap_hash_ms) ms ($(v "$run/data/auth.env" password_hash_check_cpu_ms) ms CPU), gap $(v "$run/data/auth.env" gap_p50_ms) ms, rest $(v "$run/data/auth.env" gap_rest_ms) ms; policy: $(v "$run/data/auth.env" password_hash_policy)" &&
	split_checks "$run/data/auth.env" "$run/report.md" &&
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null
'

test_expect 'an existing account with a sha512crypt hash: the gap split, the hash the account'"'"'s own' '
	useradd --create-home --shell /bin/sh "$OTHER" &&
	test_when_finished "userdel -r $OTHER 2>/dev/null; rm -f $TEST_TMP/other.pw" &&
	pw=$(head -c 18 /dev/urandom | base64 | tr -d "/+=") &&
	printf "%s:%s\n" "$OTHER" "$pw" | chpasswd -c SHA512 &&
	install -m 0600 /dev/null "$TEST_TMP/other.pw" && printf "%s\n" "$pw" >"$TEST_TMP/other.pw" &&
	test_eq "$(scheme_in_shadow "$OTHER")" sha512crypt &&
	export TEST_USER=$OTHER TEST_USER_EXISTING=yes TEST_PASSWORD_FILE=$TEST_TMP/other.pw &&
	test_when_finished "\"$KIT_DIR/start-ssh.sh\" -q cleanup >/dev/null 2>&1" &&
	"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
	auth_run && run=$(cat "$TEST_TMP/run") &&
	test_kv "$run/data/auth.env" password_hash sha512crypt &&
	test_kv "$run/data/auth.env" password_hash_source account &&
	echo "sha512crypt: one check $(v "$run/data/auth.env" gap_hash_ms) ms ($(v "$run/data/auth.env" password_hash_check_cpu_ms) ms CPU), gap $(v "$run/data/auth.env" gap_p50_ms) ms, rest $(v "$run/data/auth.env" gap_rest_ms) ms" &&
	split_checks "$run/data/auth.env" "$run/report.md" &&
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null
'

test_expect 'the host is as before after cleanup' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged
'

test_done
