# shellcheck shell=bash
# auth: LOGIN_SAMPLES logins with each method (ed25519 key, RSA 3072 key,
# password through lib/bin/askpass.sh), timed per phase by sshperf-login; the
# method each login really used is read from its ssh -v transcript.

about_auth () {
	printf '%s logins each with the ed25519 key, the RSA key and the password (about %s s)\n' \
		"${SETTING[LOGIN_SAMPLES]}" "$(( (SETTING[LOGIN_SAMPLES] * 12 + 9) / 10 ))"
}

# auth_method_run NAME ALIAS WANT_METHOD KEY_TYPE: one series of logins.
# auth_hash_cost: the scheme of the test user's password hash in
# /etc/shadow (yescrypt, sha512crypt, ...; - when there is none to read,
# as for a directory user), its cost parameter, and what one check of it
# costs on this host (sshperf-hashcost: crypt(3) of a throwaway phrase
# with the account's own setting, p50 of 21, in wall time, which the gap
# is split with, and in CPU time). pam_unix computes that hash
# once per password login, and some schemes are slow on purpose. Only the
# scheme, its parameters and the timing are kept, never the hash.
auth_hash_cost () {
	local out="$RAW_DIR/auth-password-hash.env" scheme
	helper hashcost "${SETTING[TEST_USER]}" >"$out" 2>>"$RAW_DIR/auth-errors.txt" || true
	scheme=$(kv_get "$out" scheme)
	case $(kv_get "$out" readable):$scheme in yes:none | no:* | :*) scheme=- ;; esac
	result_set auth password_hash "$scheme"
	result_set auth password_hash_params "$(kv_get "$out" params)"
	result_set auth password_hash_check_ms "$(kv_get "$out" check_ms_p50)"
	result_set auth password_hash_check_cpu_ms "$(kv_get "$out" check_cpu_ms_p50)"
	result_set auth password_hash_checks "$(kv_get "$out" check_ms_n)"
	if [ "$scheme" = - ]; then
		result_set auth password_hash_note "the kit may not read the password hash of ${SETTING[TEST_USER]} (no shadow entry it can read: $(test_user_is_kits && echo "the kit's account" || echo "an existing account, from $(server_get USER_SOURCE)"))"
	else
		auth_hash_policy "$scheme"
	fi
}

# auth_scheme_name WORD: the crypt(3) scheme of a pam_unix option or an
# ENCRYPT_METHOD value, as sshperf-hashcost names it; empty for others.
auth_scheme_name () {
	case ${1,,} in
	yescrypt) echo yescrypt ;;
	gost_yescrypt | gost-yescrypt) echo gost-yescrypt ;;
	sha512) echo sha512crypt ;;
	sha256) echo sha256crypt ;;
	md5) echo md5crypt ;;
	blowfish | bcrypt) echo bcrypt ;;
	des | bigcrypt) echo descrypt ;;
	esac
}

# auth_hash_policy SCHEME: where the scheme and cost of the test user's
# hash come from (password_hash_source: pam, login.defs or account;
# password_hash_policy: the setting, its file and value). The kit sets its
# own account's password with chpasswd, which hashes through PAM: the
# scheme option of pam_unix in chpasswd's password stack, else
# ENCRYPT_METHOD of /etc/login.defs (with YESCRYPT_COST_FACTOR or
# SHA_CRYPT_MIN_ROUNDS). An existing account's hash, or one that does not
# match that policy, is the account's own.
auth_hash_policy () {
	local scheme=$1 file="" line opt want="" rounds="" src policy defs=/etc/login.defs
	if ! test_user_is_kits; then
		result_set auth password_hash_source account
		result_set auth password_hash_policy "the account's own entry in the shadow database (an existing account: its password was set outside the kit)"
		return 0
	fi
	line=$(pam_lines chpasswd password | awk -F'\t' '$2 ~ /^pam_unix( |$)/ { print; exit }')
	if [ -n "$line" ]; then
		file=${line%%$'\t'*}
		for opt in ${line#*$'\t'}; do
			case $opt in
			rounds=*) rounds=$opt ;;
			*) [ -n "$want" ] || want=$(auth_scheme_name "$opt") ;;
			esac
		done
	fi
	if [ -n "$want" ]; then
		src=pam
		policy="pam_unix's options in $file (the password stack chpasswd uses): ${line#*$'\t'pam_unix }"
	else
		src=login.defs
		opt=$(awk '$1 == "ENCRYPT_METHOD" { v = $2 } END { print v }' "$defs" 2>/dev/null)
		want=$(auth_scheme_name "${opt:-DES}")
		case $want in
		yescrypt | gost-yescrypt) rounds=$(awk '$1 == "YESCRYPT_COST_FACTOR" { v = $2 } END { print v }' "$defs" 2>/dev/null)
			rounds="YESCRYPT_COST_FACTOR ${rounds:-unset (default 5)}" ;;
		sha512crypt | sha256crypt) rounds=$(awk '$1 == "SHA_CRYPT_MIN_ROUNDS" { v = $2 } END { print v }' "$defs" 2>/dev/null)
			rounds="SHA_CRYPT_MIN_ROUNDS ${rounds:-unset (default 5000)}" ;;
		*) rounds="" ;;
		esac
		policy="ENCRYPT_METHOD ${opt:-unset}${rounds:+, $rounds} in $defs (pam_unix of chpasswd's password stack names no scheme)"
	fi
	if [ "$want" != "$scheme" ]; then
		policy="the account's own entry: its hash is $scheme, while new passwords get ${want:-another scheme} from $policy"
		src=account
	fi
	result_set auth password_hash_source "$src"
	result_set auth password_hash_policy "$policy"
}

# The reason of a gap over TARGET_AUTH_GAP_MS.
auth_gap_reason () {
	local slow fast gap
	slow=$(result_get auth gap_slow) fast=$(result_get auth gap_fast) gap=$(result_get auth gap_p50_ms)
	if [ "$(result_get auth gap_judged)" = rest ]; then
		printf '%s is %s ms slower than %s at p50: the hash check %s ms (%s, the host'"'"'s policy) and %s ms more, over TARGET_AUTH_GAP_MS=%s ms (PAM modules %s, askpass, TCP)' \
			"$slow" "$gap" "$fast" "$(result_get auth gap_hash_ms)" "$(result_get auth password_hash)" "$(result_get auth gap_rest_ms)" \
			"${SETTING[TARGET_AUTH_GAP_MS]}" "$(result_get auth pam_auth_modules)"
	else
		printf '%s is %s ms slower than %s at p50, over TARGET_AUTH_GAP_MS=%s ms (%s)' "$slow" "$gap" "$fast" \
			"${SETTING[TARGET_AUTH_GAP_MS]}" "$(case $slow in
				password) printf 'the PAM stack (%s) and the password hash%s' "$(result_get auth pam_auth_modules)" \
					"$( [ -z "$(result_get auth password_hash_note)" ] || printf '; %s, so the whole gap is judged' "$(result_get auth password_hash_note)")" ;;
				rsa) printf 'RSA signing is slow for the client' ;;
				*) printf 'a slow client for its key' ;;
				esac)"
	fi
	auth_levels_reason "$slow"
}

# auth_p95_action METHOD: what to do when METHOD's p95 is over
# TARGET_AUTH_P95_MS.
auth_p95_action () {
	case $1 in
	password) printf 'Use keys for people and automation, or make password logins faster (the PAM auth stack of the section below; SSSD cache_credentials for central accounts); raise TARGET_AUTH_P95_MS only if this time is acceptable for your users' ;;
	rsa) printf 'Use ed25519 keys where you can (signing with RSA is the client'"'"'s work), or raise TARGET_AUTH_P95_MS if your clients must use RSA and this time is acceptable' ;;
	*) printf 'Find the slow phase in the login section (key exchange, authentication or session) and follow its reading, or raise TARGET_AUTH_P95_MS if this time is acceptable' ;;
	esac
}

# auth_gap_action: what to do when the gap is over TARGET_AUTH_GAP_MS.
auth_gap_action () {
	case $(result_get auth gap_slow) in
	password) if [ "$(result_get auth gap_judged)" = rest ]; then
			printf 'Look for the slow module in the PAM auth stack named below (the hash check is already taken out); raise TARGET_AUTH_GAP_MS only if this stack is what your users get anyway'
		else
			printf 'Make the PAM auth stack faster (SSSD cache_credentials, short time-outs) or choose a cheaper password hash, or raise TARGET_AUTH_GAP_MS if the hash cost is what you chose on purpose'
		fi ;;
	rsa) printf 'Accept it if your clients use RSA keys: signing with RSA is work of the client, not of sshd; or move them to ed25519 keys' ;;
	*) printf 'Look at the client of the slower key (its CPU, its agent), not at sshd' ;;
	esac
}

# auth_gap_noise_action: what to do when the gap holds its target. With
# sshd's padding on two steps (auth_gap_steps): accept it when it is that
# padding, which the setup does not decide; else more password logins.
auth_gap_noise_action () {
	local n
	n=$(noise_samples "$(result_or_dash auth "$(result_get auth gap_slow)_n")" "$(result_or_dash auth gap_judged_lo_ms)" \
		"$(result_or_dash auth gap_judged_hi_ms)" "$(auth_gap_judged_ms)" "${SETTING[TARGET_AUTH_GAP_MS]}")
	case $n in '' | *[!0-9]* | 0) n="" ;; esac
	if [ -n "$(result_get auth gap_step_lo_ms)" ]; then
		printf 'Accept it when the gap is on the target only through sshd'"'"'s padding: sshd answers no authentication request before a minimum time of its own, doubled until the request fits (so that answer times do not tell which user names exist), and whether a login lands on its lower or upper step (%s or %s ms of gap here) follows the machine'"'"'s speed, not your setup; or rerun with %s to narrow the interval' \
			"$(result_get auth gap_step_lo_ms)" "$(result_get auth gap_step_hi_ms)" \
			"$( [ -n "$n" ] && printf 'LOGIN_SAMPLES=%s (REPEAT=6 if both steps still hold the target)' "$n" || printf 'REPEAT=6, the median of 6 runs')"
	elif [ -n "$n" ]; then
		noise_action LOGIN_SAMPLES "$n"
	else
		noise_action
	fi
}

# auth_levels_reason METHOD: when sshd's turns in METHOD's authentication
# came at two levels (capture_levels), what that does to the gap.
auth_levels_reason () {
	[ "$(result_get auth "$1_auth_server_levels")" = 2 ] || return 0
	printf '; sshd'"'"'s padding: the authentication of %s of %s %s logins took one step of %s ms more (%s ms against %s), and the share on the upper step moves between identical runs, so the gap can move by that step' \
		"$(result_get auth "$1_auth_server_high_n")" \
		"$(( $(result_get auth "$1_auth_server_low_n") + $(result_get auth "$1_auth_server_high_n") ))" "$1" \
		"$(result_get auth "$1_auth_server_step_ms")" "$(result_get auth "$1_auth_server_high_p50")" \
		"$(result_get auth "$1_auth_server_low_p50")"
}

# auth_logins NAME ALIAS DIR TSV: the series' logins, and whose time they
# were from their packets (lib/capture.sh: raw/auth-NAME-packets.tsv,
# -parts.tsv, -whose.tsv; keys NAME_server_p50 ... NAME_timeline).
auth_logins () {
	local name=$1 alias=$2 dir=$3 tsv=$4 timeline=no
	capture_start "auth-$name" $(( SETTING[LOGIN_SAMPLES] * SETTING[LOGIN_TIMEOUT] + 30 )) && timeline=yes
	helper login -H -n "${SETTING[LOGIN_SAMPLES]}" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" -T "$dir" \
		-- "$SSH" -v -F "$CLIENT_CONFIG" "$alias" true >"$tsv" 2>>"$RAW_DIR/auth-errors.txt" || true
	if [ "$timeline" = yes ]; then
		at_exit_pop
		capture_parts "auth-$name" "$tsv" || timeline=no
	fi
	result_set auth "${name}_timeline" "$timeline"
	if [ "$timeline" = yes ]; then
		capture_summary "auth-$name" auth "$tsv" "$name"
	else
		result_set auth "${name}_timeline_note" "$CAPTURE_NOTE"
	fi
}

auth_method_run () {
	local name=$1 alias=$2 want=$3 keytype=$4 tsv dir ok failed wrong
	tsv="$RAW_DIR/auth-$name.tsv"
	dir="$RAW_DIR/auth-transcripts/$name"
	mkdir -p "$dir"
	if [ "$name" = password ]; then
		# The account's password is valid only for this series: set
		# here, locked again right after, also when a signal ends the
		# job (its at_exit list); test-ssh.sh locks it again after
		# every test, for a job it had to KILL.
		at_exit password_lock
		password_unlock ||
			printf 'setting the password of %s with chpasswd failed; every password login will fail\n' "${SETTING[TEST_USER]}" >>"$RAW_DIR/auth-errors.txt"
		auth_hash_cost
		# The password stays in the root-only state file: ssh runs
		# askpass.sh, which prints it; argv and environment hold only
		# the program's path and the file's.
		SSH_ASKPASS="$KIT_DIR/lib/bin/askpass.sh" SSH_ASKPASS_REQUIRE=force SSHPERF_PASSWORD_FILE="$PASSWORD_FILE" \
			auth_logins "$name" "$alias" "$dir" "$tsv"
		at_exit_pop
		result_set auth password_locked_after "$(password_locked && echo yes || echo no)"
	else
		auth_logins "$name" "$alias" "$dir" "$tsv"
	fi
	ok=$(tsv_select "$tsv" status | grep -cx ok || true)
	# Logins not run (the helper stopped after NO_ANSWER_STOP without an
	# answer) count as failed.
	failed=$((SETTING[LOGIN_SAMPLES] - ok))
	result_set auth "${name}_not_run" "$((SETTING[LOGIN_SAMPLES] - $(awk 'NR > 1' "$tsv" | wc -l)))"
	# Every ok login must have used the method (and key type) asked for.
	wrong=$(tsv_select "$tsv" status method | awk -F'\t' -v m="$want" '$1 == "ok" && $2 != m' | wc -l)
	if [ -n "$keytype" ]; then
		wrong=$((wrong + $(grep -L "Server accepts key: .* $keytype " "$dir"/login-*.txt 2>/dev/null | wc -l)))
	fi
	result_set auth "${name}_ok" "$ok"
	result_set auth "${name}_failed" "$failed"
	result_set auth "${name}_wrong_method" "$wrong"
	result_set auth "${name}_method" "$want${keytype:+ ($keytype)}"
	helper summary -c total_ms -w status=ok -p "${name}_" "$tsv" >>"$DATA_DIR/auth.env"
	helper summary -c auth_ms -w status=ok -p "${name}_authphase_" "$tsv" >>"$DATA_DIR/auth.env"
}

# The gap between the slowest and the fastest method's p50: gap_p50_ms,
# gap_slow, gap_fast, gap_target.
auth_gap () {
	local m p50 line
	line=$(for m in ed25519 rsa password; do
		p50=$(result_get auth "${m}_p50")
		[ -z "$p50" ] || printf '%s %s\n' "$p50" "$m"
	done | sort -n | awk 'NR == 1 { lo = $1; f = $2 } { hi = $1; s = $2 } END { if (NR >= 2) printf "%.1f %s %s", hi - lo, s, f }')
	[ -n "$line" ] || return 0
	# shellcheck disable=SC2086 # three words
	set -- $line
	result_set auth gap_p50_ms "$1"
	result_set auth gap_slow "$2"
	result_set auth gap_fast "$3"
	result_set auth gap_target "${SETTING[TARGET_AUTH_GAP_MS]}"
}

# auth_gap_split: the password's gap to the fastest method (gap_password_ms)
# split into the hash check (one crypt(3) of the account's hash, the host's
# policy: gap_hash_ms) and the rest (gap_rest_ms: PAM's other modules,
# sshd, askpass, TCP); with both series' timelines the rest's parts, as
# differences of p50s: sshd's turns beyond the hash check (gap_pam_ms),
# the client's (gap_client_ms: askpass.sh, reading the prompt), TCP waits
# (gap_tcp_wait_ms). gap_judged says what TARGET_AUTH_GAP_MS is judged
# on: rest when the password is the slowest method and its hash was
# read, else whole (the gap between the slowest and the fastest).
auth_gap_split () {
	auth_gap_parts
	if [ "$(result_get auth gap_slow)" = password ] && [ -n "$(result_get auth gap_hash_ms)" ]; then
		result_set auth gap_judged rest
	else
		result_set auth gap_judged whole
	fi
}

auth_gap_parts () {
	local fast="" lo="" m p50 hash part a b
	p50=$(result_get auth password_p50)
	[ -n "$p50" ] && [ -n "$(result_get auth gap_p50_ms)" ] || return 0
	for m in ed25519 rsa password; do
		a=$(result_get auth "${m}_p50")
		[ -n "$a" ] || continue
		if [ -z "$lo" ] || awk -v a="$a" -v b="$lo" 'BEGIN { exit !(a < b) }'; then lo=$a fast=$m; fi
	done
	[ "$fast" != password ] || return 0
	result_set auth gap_password_fast "$fast"
	result_set auth gap_password_ms "$(awk -v a="$p50" -v b="$lo" 'BEGIN { printf "%.1f", a - b }')"
	hash=$(result_get auth password_hash_check_ms)
	[ -n "$hash" ] || return 0
	result_set auth gap_hash_ms "$hash"
	result_set auth gap_rest_ms "$(awk -v g="$(result_get auth gap_password_ms)" -v h="$hash" 'BEGIN { printf "%.1f", g - h }')"
	[ "$(result_get auth password_timeline)" = yes ] && [ "$(result_get auth "${fast}_timeline")" = yes ] || return 0
	for part in server client tcp_wait; do
		a=$(result_get auth "password_${part}_p50") b=$(result_get auth "${fast}_${part}_p50")
		result_set auth "gap_${part}_ms" "$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.1f", a - b }')"
	done
	result_set auth gap_pam_ms "$(awk -v s="$(result_get auth gap_server_ms)" -v h="$hash" 'BEGIN { printf "%.1f", s - h }')"
}

# The gap TARGET_AUTH_GAP_MS is judged on: the rest when the hash check
# is known, else the whole gap.
auth_gap_judged_ms () {
	if [ "$(result_get auth gap_judged)" = rest ]; then
		result_get auth gap_rest_ms
	else
		result_get auth gap_p50_ms
	fi
}

# auth_gap_interval: the 95 % interval of the gap TARGET_AUTH_GAP_MS is
# judged on. The two methods' logins are two independent samples, not
# pairs, so the interval is that of the Hodges-Lehmann shift of the
# slower method's logins against the faster one's (sshperf-rank compare:
# Moses' ranks of all the differences), less the hash check when the
# rest is judged: gap_shift_ms (the shift itself), gap_judged_lo_ms,
# gap_judged_hi_ms (- when too few logins for one).
auth_gap_interval () {
	local slow fast out lo hi shift hash=0
	slow=$(result_get auth gap_slow) fast=$(result_get auth gap_fast)
	[ -n "$slow" ] && [ -n "$fast" ] || return 0
	if [ "$(result_get auth gap_judged)" = rest ]; then
		fast=$(result_get auth gap_password_fast)
		hash=$(result_get auth gap_hash_ms)
	fi
	tsv_select "$RAW_DIR/auth-$fast.tsv" total_ms status | awk -F'\t' '$2 == "ok" { print $1 }' >"$TMPDIR/auth-gap-fast.txt"
	tsv_select "$RAW_DIR/auth-$slow.tsv" total_ms status | awk -F'\t' '$2 == "ok" { print $1 }' >"$TMPDIR/auth-gap-slow.txt"
	out=$(stats_rank compare "$TMPDIR/auth-gap-fast.txt" "$TMPDIR/auth-gap-slow.txt") || out=""
	rm -f "$TMPDIR/auth-gap-fast.txt" "$TMPDIR/auth-gap-slow.txt"
	shift=$(printf '%s\n' "$out" | sed -n 's/^shift=//p')
	lo=$(printf '%s\n' "$out" | sed -n 's/^shift_lo=//p')
	hi=$(printf '%s\n' "$out" | sed -n 's/^shift_hi=//p')
	result_set auth gap_shift_ms "${shift:--}"
	result_set auth gap_judged_lo_ms "$(awk -v v="$lo" -v h="$hash" 'BEGIN { if (v == "") print "-"; else printf "%.1f", v - h }')"
	result_set auth gap_judged_hi_ms "$(awk -v v="$hi" -v h="$hash" 'BEGIN { if (v == "") print "-"; else printf "%.1f", v - h }')"
}

# auth_gap_steps: what the gap is judged on (gap_verdict_lo_ms,
# gap_verdict_hi_ms): its interval, and when sshd's padding put the
# slower method's authentication on two steps (capture_levels), the gap
# as it would be with all of that method's logins on the lower step and
# on the upper one too (gap_step_lo_ms, gap_step_hi_ms; empty otherwise,
# so that every run has the keys). Which step most
# logins land on follows the machine's speed from run to run, not the
# server's setup, so a target between the two is not decided by one run
# (docs/metrics.md, auth: "Two steps").
auth_gap_steps () {
	local slow lo hi a="" b=""
	lo=$(result_or_dash auth gap_judged_lo_ms) hi=$(result_or_dash auth gap_judged_hi_ms)
	slow=$(result_get auth gap_slow)
	if [ -n "$slow" ] && [ "$(result_get auth "${slow}_auth_server_levels")" = 2 ] &&
		[ -n "$(result_get auth "${slow}_auth_server_p50")" ]; then
		read -r a b lo hi < <(awk -v g="$(auth_gap_judged_ms)" -v lo="$lo" -v hi="$hi" \
			-v m="$(result_get auth "${slow}_auth_server_p50")" -v l="$(result_get auth "${slow}_auth_server_low_p50")" \
			-v h="$(result_get auth "${slow}_auth_server_high_p50")" 'BEGIN {
				a = g - (m - l); b = g + (h - m)
				printf "%.1f %.1f %s %s\n", a, b, (lo == "-" || a < lo + 0) ? sprintf("%.1f", a) : lo,
					(hi == "-" || b > hi + 0) ? sprintf("%.1f", b) : hi
			}')
	fi
	result_set auth gap_step_lo_ms "$a"
	result_set auth gap_step_hi_ms "$b"
	result_set auth gap_verdict_lo_ms "$lo"
	result_set auth gap_verdict_hi_ms "$hi"
}

# auth_gap_judge: TARGET_AUTH_GAP_MS judged on the gap (auth_gap_steps
# first), with its reason and its action (tests/t84-verdict-actions.sh
# calls it on a stored run's keys).
auth_gap_judge () {
	result_second auth "<=" "${SETTING[TARGET_AUTH_GAP_MS]}" "$(auth_gap_judged_ms)" "$(result_or_dash auth gap_verdict_lo_ms)" \
		"$(result_or_dash auth gap_verdict_hi_ms)" "the gap between the methods$(auth_gap_steps_what)" "$(auth_gap_reason)" \
		"$(auth_gap_action)" "$(auth_gap_noise_action)"
}

# auth_gap_steps_what: the verdict's words for a gap judged across two
# steps of sshd's padding; nothing otherwise.
auth_gap_steps_what () {
	[ -n "$(result_get auth gap_step_lo_ms)" ] || return 0
	printf ', judged on its interval and on both steps of sshd'"'"'s padding of the %s logins (the gap with all of them on the lower step %s ms, on the upper %s ms)' \
		"$(result_get auth gap_slow)" "$(result_get auth gap_step_lo_ms)" "$(result_get auth gap_step_hi_ms)"
}

# Why the password method cannot be measured, or nothing.
auth_password_skip_reason () {
	local pa
	if [ "$(server_get PASSWORD)" = none ]; then
		printf 'the kit does not know the password of the existing account %s: name a root-only file holding it in TEST_PASSWORD_FILE and run ./start-ssh.sh again' "${SETTING[TEST_USER]}"
		return 0
	fi
	pa=$(server_effective passwordauthentication)
	if [ "$pa" = no ]; then
		printf 'the test server does not allow password logins (PasswordAuthentication no%s)' \
			"$([ "$(server_get SERVER_CONFIG)" != host ] || printf ", from this host's own configuration")"
	fi
	return 0
}

# auth_slowest METHODS: "METHOD P95" of the method with the highest p95.
auth_slowest () {
	local m p95
	for m in $1; do
		p95=$(result_get auth "${m}_p95")
		[ -z "$p95" ] || printf '%s %s\n' "$p95" "$m"
	done | sort -g | awk 'END { if (NR) print $2, $1 }'
}

AUTH_STAGED_FAILED=0

# auth_more MORE HAVE TSV ALIAS: MORE logins through ALIAS appended to
# TSV, numbered on from HAVE.
auth_more () {
	helper login -H -n "$1" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" \
		-- "$SSH" -v -F "$CLIENT_CONFIG" "$4" true 2>>"$RAW_DIR/auth-errors.txt" |
		tsv_renumber sample "$2" >>"$3" || true
}

# auth_more_whose METHOD MORE HAVE TSV ALIAS: auth_more, captured as the
# method's first logins were when they have a timeline, its whose parts
# made again over all its logins (capture_stage, lib/capture.sh). The
# first stage that cannot be split ends that (AUTH_WHOSE=no), and
# METHOD_whose_note says on how many logins the parts rest.
AUTH_WHOSE=""
auth_more_whose () {
	local m=$1
	shift
	if [ "$(result_get auth "${m}_timeline")" != yes ] || [ "$AUTH_WHOSE" = no ]; then
		auth_more "$@"
	elif capture_stage "auth-$m" $(( $1 * SETTING[LOGIN_TIMEOUT] + 30 )) auth_more "$@" &&
		capture_parts "auth-$m" "$3"; then
		capture_summary "auth-$m" auth "$3" "$m"
	else
		AUTH_WHOSE=no
		result_set auth "${m}_whose_note" "the whose parts rest on the first $2 logins: the later ones were not split ($CAPTURE_NOTE)"
	fi
}

# auth_staged METHOD ALIAS: the slowest method's p95 interval, and more
# logins of it in the stages of stage_plan while the interval holds the
# target. The password method's account is unlocked for each stage and
# locked again after it, as for its first series.
auth_staged () {
	local m=$1 tsv="$RAW_DIR/auth-$1.tsv" want stage=0 have more
	for want in $(stage_plan "${SETTING[LOGIN_SAMPLES]}" 95); do
		if [ "$stage" -gt 0 ]; then
			[ -n "$2" ] || break
			result_interval_holds auth "<=" "${SETTING[TARGET_AUTH_P95_MS]}" || break
			[ "$(tsv_select "$tsv" status | grep -cvx ok || true)" -eq 0 ] || break
			have=$(( $(wc -l <"$tsv") - 1 ))
			more=$(( want - have ))
			[ "$more" -gt 0 ] || continue
			progress_step "auth: the $m p95's interval holds the target; $more more logins (stage $((stage + 1)))"
			if [ "$m" = password ]; then
				# As in auth_method_run: valid for this stage only.
				at_exit password_lock
				password_unlock || { at_exit_pop; break; }
				SSH_ASKPASS="$KIT_DIR/lib/bin/askpass.sh" SSH_ASKPASS_REQUIRE=force SSHPERF_PASSWORD_FILE="$PASSWORD_FILE" \
					auth_more_whose "$m" "$more" "$have" "$tsv" "$2"
				at_exit_pop
			else
				auth_more_whose "$m" "$more" "$have" "$tsv" "$2"
			fi
			helper summary -c total_ms -w status=ok -p "${m}_" "$tsv" >>"$DATA_DIR/auth.env"
			helper summary -c auth_ms -w status=ok -p "${m}_authphase_" "$tsv" >>"$DATA_DIR/auth.env"
		fi
		stage=$((stage + 1))
		result_interval_order auth "$tsv" total_ms 95
	done
	result_set auth stages "$stage"
	result_set auth staged_method "$m"
	result_set auth samples_final "$(tsv_select "$tsv" status | grep -cx ok || true)"
	if [ "$stage" -gt 1 ]; then
		# The staged logins count like the first ones.
		AUTH_STAGED_FAILED=$(( $(tsv_select "$tsv" status | grep -cvx ok || true) - $(result_get auth "${m}_failed") ))
		result_set auth "${m}_ok" "$(tsv_select "$tsv" status | grep -cx ok || true)"
		result_set auth "${m}_failed" "$(tsv_select "$tsv" status | grep -cvx ok || true)"
	fi
}

measure_auth () {
	local m slowest="" slowest_p95=0 p95 failed=0 wrong=0 first_error not_run=0
	local methods="ed25519 rsa" pw_why
	: >"$RAW_DIR/auth-errors.txt"
	# The modules of the test server's PAM auth stack (start-ssh.sh read
	# them: lib/pam.sh), to name in a reading of the password gap.
	result_set auth pam_auth_modules "$(server_get PAM_STACK | sed -n 's/.*: auth \([^;]*\);.*/\1/p')"
	# Under FIPS the default key is ECDSA (result keys keep the name ed25519).
	auth_method_run ed25519 "$HOST_ALIAS" publickey "${DEFAULT_KEY_TYPE^^}"
	result_set auth default_key_type "$DEFAULT_KEY_TYPE"
	auth_method_run rsa "$HOST_ALIAS-rsa" publickey RSA
	pw_why=$(auth_password_skip_reason)
	if [ -z "$pw_why" ]; then
		auth_method_run password "$HOST_ALIAS-password" password ""
		methods="$methods password"
	else
		result_set auth password_status SKIPPED
		result_set auth password_reason "$pw_why"
		result_warn auth "the password method was skipped: $pw_why"
	fi
	result_set auth methods "$methods"
	result_set auth samples "${SETTING[LOGIN_SAMPLES]}"
	for m in $methods; do
		failed=$((failed + $(result_get auth "${m}_failed")))
		not_run=$((not_run + $(result_get auth "${m}_not_run")))
		wrong=$((wrong + $(result_get auth "${m}_wrong_method")))
		p95=$(result_get auth "${m}_p95")
		if [ -n "$p95" ] && awk -v a="$p95" -v b="$slowest_p95" 'BEGIN { exit !(a >= b) }'; then
			slowest=$m slowest_p95=$p95
		fi
		[ "$m" = ed25519 ] && continue
		result_set auth "${m}_diff_p50" "$(awk -v a="$(result_get auth "${m}_p50")" -v b="$(result_get auth ed25519_p50)" \
			'BEGIN { if (a == "" || b == "") print "-"; else printf "%.1f", a - b }')"
	done
	if [ -n "$slowest" ]; then
		case $slowest in
		ed25519) auth_staged "$slowest" "$HOST_ALIAS" ;;
		rsa) auth_staged "$slowest" "$HOST_ALIAS-rsa" ;;
		password) auth_staged "$slowest" "$HOST_ALIAS-password" ;;
		esac
		# More logins may have moved the slowest method's p95 below
		# another's: the figure is the slowest one after the stages.
		read -r slowest slowest_p95 < <(auth_slowest "$methods")
		failed=$((failed + ${AUTH_STAGED_FAILED:-0}))
		[ "$(result_get auth stages)" -le 1 ] || result_interval_order auth "$RAW_DIR/auth-$slowest.tsv" total_ms 95
	fi
	# Every login split must add up, and sshd's padding may have put its
	# authentication turns on two steps (lib/capture.sh).
	for m in $methods; do
		[ "$(result_get auth "${m}_timeline")" != yes ] || { capture_check "auth-$m" auth "$m"; capture_levels "auth-$m" auth "$m"; }
	done
	result_set auth slowest "${slowest:--}"
	result_verdict auth "${slowest:+$slowest_p95}" "<=" "${SETTING[TARGET_AUTH_P95_MS]}" ms \
		"p95 of the slowest method${slowest:+ ($slowest)}" \
		"$slowest p95 $(figs ms "$slowest_p95") ms is above the target of ${SETTING[TARGET_AUTH_P95_MS]} ms" "$(auth_p95_action "$slowest")"
	result_noise_hint auth LOGIN_SAMPLES "$(noise_samples "$(result_or_dash auth figure_n)" "$(result_or_dash auth figure_lo)" \
		"$(result_or_dash auth figure_hi)" "${slowest_p95:-0}" "${SETTING[TARGET_AUTH_P95_MS]}")"
	if [ "$failed" -gt 0 ]; then
		first_error=$(for m in $methods; do tsv_select "$RAW_DIR/auth-$m.tsv" status error; done | awk -F'\t' '$1 != "ok" { print $2; exit }')
		result_status auth FAIL "$failed of $((SETTING[LOGIN_SAMPLES] * $(echo "$methods" | wc -w))) logins failed (first error: ${first_error:-none recorded})$(
			[ "$not_run" -eq 0 ] || printf '; %s of them not run: each method stops after %s logins in a row got no answer within %ss' \
				"$not_run" "$NO_ANSWER_STOP" "${SETTING[LOGIN_TIMEOUT]}")" \
			"Find why the logins failed (raw/auth-errors.txt, the server's log) and fix it, then rerun ./test-ssh.sh auth"
	elif [ "$wrong" -gt 0 ]; then
		result_status auth FAIL "$wrong logins did not use the method they were meant to test (see the method column in raw/auth-*.tsv)" \
			"Check that the test server offers each method on its own (PubkeyAuthentication, PasswordAuthentication, AuthenticationMethods in its sshd -T), then rerun ./test-ssh.sh auth"
	else
		# The methods should be within a few ms of each other: the gap
		# between the slowest and the fastest p50.
		# The gap is judged on its interval, as the figure is.
		auth_gap
		auth_gap_split
		auth_gap_interval
		auth_gap_steps
		auth_gap_judge
	fi
	[ -n "$(result_get auth gap_p50_ms)" ] || { auth_gap; auth_gap_split; }
	result_set auth summary "p50 ed25519 $(result_or_dash auth ed25519_p50) ms, RSA $(result_or_dash auth rsa_p50) ms, password $([ -z "$pw_why" ] && printf '%s ms' "$(result_or_dash auth password_p50)" || printf 'skipped') (gap $(result_or_dash auth gap_p50_ms) ms); slowest p95 ${slowest_p95:--} ms ($failed failed)"
}
