# shellcheck shell=bash disable=SC2015,SC2016
# (SC2015: `A && B || continue` is meant; SC2016: the awk programs are in
# single quotes on purpose.)
# Comparing runs, whose time: for a rank test of whole logins with p below
# 0.05, whether the change is sshd's, by the whose-time split of the same
# logins (lib/capture.sh), as more key=value lines of the decision
# (judge_decide, lib/compare/rules.sh; keys in docs/data.md,
# "compare-RUN.tsv"). Sourced by lib/compare.sh.

# whose_file RUN TEST: the whose-time split of the logins TEST's figure
# rests on, by the naming of lib/capture.sh: raw/X.tsv (figure_samples)
# has its split in raw/X-whose.tsv, raw/login-samples.tsv in
# raw/login-whose.tsv. Nothing when the figure names no samples.
whose_file () {
	local spec base
	spec=$(kv_get "$1/data/$2.env" figure_samples)
	base=${spec%% *}
	case $base in raw/*.tsv) ;; *) return 0 ;; esac
	base=${base%.tsv}
	printf '%s-whose.tsv' "${base%-samples}"
}

# whose_column RUN TEST COLUMN: COLUMN of each split login (whose_file;
# of every round of a repeated run), one per line; with COLUMN "ratio",
# sshd's time over the client's (server_ms / client_ms, logins whose
# client part is above 0). Any other column of the split, such as
# auth_server_ms, as it is; server_outside_auth_ms: sshd's turns less
# those of the authentication phase.
whose_column () {
	local f
	f=$(whose_file "$1" "$2")
	[ -n "$f" ] || return 0
	run_files "$1" "$2" "$f" | while IFS= read -r f; do whose_rows "$f" "$3"; done
}

whose_rows () {
	[ -f "$1" ] || return 0
	case $2 in
	server_ms | client_ms | ratio)
		tsv_select "$1" server_ms client_ms 2>/dev/null |
			awk -F'\t' -v c="$2" '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ {
				if (c == "ratio") { if ($2 + 0 > 0) printf "%.6f\n", $1 / $2 }
				else print (c == "server_ms") ? $1 : $2 }' ;;
	server_outside_auth_ms)
		tsv_select "$1" server_ms auth_server_ms 2>/dev/null |
			awk -F'\t' '$1 ~ /^[0-9.]+$/ && $2 ~ /^[0-9.]+$/ { printf "%.3f\n", $1 - $2 }' ;;
	*) tsv_select "$1" "$2" 2>/dev/null | awk '/^[0-9.]+$/' ;;
	esac
}

# The logins with a whose-time split each side needs before judge_whose
# weighs sshd's part.
COMPARE_WHOSE_MIN=10

# judge_whose OLD_RUN NEW_RUN TEST TMPDIR THRESHOLD SIGN WHOLE TOWARD:
# for a rank test of whole logins whose p is below 0.05, with its
# shift's sign SIGN (+ or -), WHOLE (yes when the whole logins passed the
# rank rule) and TOWARD (better or worse, what the shift means), more
# lines of the decision. Between runs of one setup (same_setup) whose
# logins were split by whose time (whose_file, at least
# COMPARE_WHOSE_MIN a side), two more rank tests on the same logins
# decide instead of the whole logins' near end, each needing a shift of
# SIGN with the near end of its 95 % interval past THRESHOLD:
# - sshd's own part (own_*: server_ms; for a time also COMPARE_FLOOR_MS):
#   a login that moved in the client's part or in the TCP waits is no
#   change of sshd;
# - sshd's part over the client's (over_*: server_ms / client_ms): the
#   client runs the same code on the same CPUs in the same seconds, so
#   when both moved alike the machine's speed did, as the cpu test's
#   client rule says of CPU per login.
# A change in sshd (a slower step, a delay of its own) grows sshd's part
# and not the client's, and passes both: rule whose-own, word TOWARD,
# even when the whole logins' near end is under THRESHOLD (their client
# part and TCP waits move between runs; make stability saw a 50 ms delay
# in sshd come out at +23 ms of whole logins), unless sshd's padding
# steps account for it (whose-steps, unchanged). When one part does not
# pass, a significant answer of the whole logins becomes unchanged
# (whose-part, naming that part). Otherwise (too few split logins) the
# rank test's answer stands; between other setups, whose_caution.
judge_whose () {
	local pre d steps
	if [ "$(same_setup "$1" "$2")" != yes ]; then
		whose_caution "$@"
		return 0
	fi
	for pre in own over; do
		d=$(whose_part "$1" "$2" "$3" "$4" "$5" "$pre" "$6")
		printf '%s\n' "$d"
		case $(judge_get "$d" "${pre}_moved") in
		unknown) return 0 ;;
		yes) continue ;;
		esac
		[ "$7" != yes ] || printf 'rule=whose-part\npart=%s\nword=unchanged\n' "$pre"
		return 0
	done
	# Both moved. Unless sshd's padding steps account for it, that is
	# sshd, not the machine: significant, with the reason.
	steps=$(whose_steps "$1" "$2" "$3" "$4" "$5" "$6")
	if [ -n "$steps" ]; then
		printf '%s\nrule=whose-steps\nword=unchanged\n' "$steps"
		return 0
	fi
	whose_phase "$1" "$2" "$3" "$4" "$6"
	printf 'rule=whose-own\nword=%s\n' "$8"
}

# whose_part OLD_RUN NEW_RUN TEST TMPDIR THRESHOLD PART SIGN: the rank
# test of PART of the split logins of both runs (own: server_ms, over:
# sshd's part over the client's, outside: sshd's turns outside
# authentication), as key=value lines PART_KEY: PART_moved is yes when it
# moved past THRESHOLD (and, but for over, COMPARE_FLOOR_MS) on the side
# SIGN, other when past it the other way, no when not past it, unknown
# when a side has fewer than COMPARE_WHOSE_MIN split logins or the test
# gives no interval; then its p, shift, interval, medians and counts.
whose_part () {
	local col
	case $6 in own) col=server_ms ;; over) col=ratio ;; *) col=server_outside_auth_ms ;; esac
	whose_column "$1" "$3" "$col" >"$4/wa"
	whose_column "$2" "$3" "$col" >"$4/wb"
	if [ "$(wc -l <"$4/wa")" -lt "$COMPARE_WHOSE_MIN" ] || [ "$(wc -l <"$4/wb")" -lt "$COMPARE_WHOSE_MIN" ]; then
		printf '%s_moved=unknown\n' "$6"
		return 0
	fi
	"$(rank_helper)" compare "$4/wa" "$4/wb" 2>/dev/null |
		awk -F= -v th="$5" -v pre="$6" -v sign="$7" -v floor="$COMPARE_FLOOR_MS" "$COMPARE_NEAR_AWK"'
		{ v[$1] = substr($0, length($1) + 2) }
		END {
			base = v["p50_a"] + 0
			if (v["shift_lo"] == "" || v["shift_hi"] == "" || base <= 0) { printf "%s_moved=unknown\n", pre; exit }
			near = near_end(v["shift_lo"], v["shift_hi"])
			npct = near / base * 100
			past = (v["p"] + 0 < 0.05) && (npct >= th || npct <= -th) && \
				(pre == "over" || near >= floor + 0 || near <= -floor)
			# Past the threshold on the side of the whole logins, or the other way.
			moved = !past ? "no" : ((sign == "+" ? near > 0 : near < 0) ? "yes" : "other")
			printf "%s_moved=%s\n%s_p=%s\n%s_shift=%s\n%s_shift_lo=%s\n%s_shift_hi=%s\n", pre, moved, pre, v["p"], pre, v["shift"], pre, v["shift_lo"], pre, v["shift_hi"]
			printf "%s_median_a=%s\n%s_median_b=%s\n%s_n_a=%s\n%s_n_b=%s\n%s_near_pct=%.17g\n", pre, v["p50_a"], pre, v["p50_b"], pre, v["n_a"], pre, v["n_b"], pre, npct
		}'
}

# whose_steps OLD_RUN NEW_RUN TEST TMPDIR THRESHOLD SIGN: for a row of
# one setup whose sshd part moved, whether sshd's padding accounts for
# it: the authentication turns of both runs' split logins together sit
# on two steps (levels_of, lib/data.sh; at least COMPARE_WHOSE_MIN
# logins a side), each run has logins on each step, the steps
# are one doubling apart at most (the upper less than twice the lower),
# and sshd's turns outside authentication did not move
# past THRESHOLD on the side SIGN (whose_part outside). sshd answers an
# authentication request at its base time doubled until past the work,
# so work near a step lands on it or on the next, and the share on the
# upper step follows a few per cent of the machine's speed (make
# stability: 20 of 120 password logins on the upper step in one run, 69
# of 72 in the next, with the fixed loop 9 % faster in the first). Prints
# the steps (steps_*) and the outside part (outside_*) then, nothing
# otherwise.
whose_steps () {
	local out rest
	whose_column "$1" "$3" auth_server_ms >"$4/sa"
	whose_column "$2" "$3" auth_server_ms >"$4/sb"
	if [ "$(wc -l <"$4/sa")" -lt "$COMPARE_WHOSE_MIN" ] || [ "$(wc -l <"$4/sb")" -lt "$COMPARE_WHOSE_MIN" ]; then
		return 0
	fi
	out=$(cat "$4/sa" "$4/sb" | levels_of "")
	case $out in levels=2*) ;; *) return 0 ;; esac
	# Each run on both steps, and one doubling apart at most: a delay of
	# sshd's own moves every login up by several steps at once.
	out=$(printf '%s\n' "$out" | awk -F= -v a="$4/sa" -v b="$4/sb" '
		{ v[$1] = $2 }
		END {
			mid = (v["low_p50"] + v["high_p50"]) / 2
			while ((getline x < a) > 0) { na++; if (x + 0 > mid) ua++ }
			while ((getline x < b) > 0) { nb++; if (x + 0 > mid) ub++ }
			if (ua < 1 || na - ua < 1 || ub < 1 || nb - ub < 1 || v["step_ms"] > v["low_p50"]) exit
			printf "steps_low=%s\nsteps_high=%s\nsteps_up_a=%d\nsteps_n_a=%d\nsteps_up_b=%d\nsteps_n_b=%d\n", v["low_p50"], v["high_p50"], ua, na, ub, nb
		}')
	[ -n "$out" ] || return 0
	rest=$(whose_part "$1" "$2" "$3" "$4" "$5" outside "$6")
	[ "$(judge_get "$rest" outside_moved)" = no ] || return 0
	printf '%s\n%s\n' "$out" "$rest"
}

# The phases of a login in a whose-time split (lib/capture.sh), in order.
WHOSE_PHASES="connect greeting kex auth session"

# whose_phase OLD_RUN NEW_RUN TEST TMPDIR SIGN: where sshd's part moved,
# for a significant row (judge_whose between runs of one setup once
# sshd's own part moved, whose_caution between setups): the phase
# (WHOSE_PHASES) whose sshd turns have the largest shift on the side SIGN
# by the same rank test, as phase, phase_shift, phase_shift_lo and
# phase_shift_hi (ms). A change in sshd is in one step of the login (a
# slower AuthorizedKeysCommand in auth, PAM's session modules in
# session), while the machine's speed moves every phase a little. Only a
# phase whose interval is on the side SIGN, 0 outside it, counts: a
# larger shift that its own interval does not bear out names no phase.
# Nothing when the split has no phases or none moved that way.
whose_phase () {
	local ph
	for ph in $WHOSE_PHASES; do
		whose_column "$1" "$3" "${ph}_server_ms" >"$4/wa"
		whose_column "$2" "$3" "${ph}_server_ms" >"$4/wb"
		[ -s "$4/wa" ] && [ -s "$4/wb" ] || continue
		"$(rank_helper)" compare "$4/wa" "$4/wb" 2>/dev/null |
			awk -F= -v ph="$ph" '{ v[$1] = substr($0, length($1) + 2) }
				END { if (v["shift_lo"] != "" && v["shift_hi"] != "") print ph, v["shift"], v["shift_lo"], v["shift_hi"] }'
	done | awk -v sign="$5" '
		{ s = sign == "+" ? $2 : -$2; near = sign == "+" ? $3 : -$4
		  if (s > 0 && near > 0 && s > best) { best = s; line = $0 } }
		END {
			if (line == "") exit
			split(line, f, " ")
			printf "phase=%s\nphase_shift=%s\nphase_shift_lo=%s\nphase_shift_hi=%s\n", f[1], f[2], f[3], f[4]
		}'
}

# whose_caution OLD_RUN NEW_RUN TEST TMPDIR THRESHOLD SIGN WHOLE: the
# whose-time lines between two setups. The setup changed, so the
# client's part may rightly change with it (another cipher, MAC or key
# exchange is work on both ends) and it cannot clear a change as the
# machine's; the rank test's answer stands. But a significant one (WHOLE
# yes) says what sshd's part over the client's did (over_*, rule
# whose-caution): when it did not move past THRESHOLD with the whole
# logins, the words caution that the client slowed (or sped up) with
# sshd as when the machine's speed changed between the runs, which for a
# setting that leaves the client's work alone (a Banner, a log level, a
# delay in sshd) is the machine, not the setting.
whose_caution () {
	local d
	[ "$7" = yes ] || return 0
	d=$(whose_part "$1" "$2" "$3" "$4" "$5" over "$6")
	printf '%s\n' "$d"
	[ "$(judge_get "$d" over_moved)" != unknown ] || return 0
	whose_phase "$1" "$2" "$3" "$4" "$6"
	printf 'rule=whose-caution\n'
}
