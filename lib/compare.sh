# shellcheck shell=bash disable=SC2015,SC2016
# (SC2015: `A && B || continue` is meant; SC2016: backticks are markdown.)
# Comparing runs: which way is better for a metric, the change between two
# runs, the previous run on the same host, and the comparison report of
# `test-ssh.sh --compare A B`. Sourced by lib/bin/render.sh, lib/bin/results-json.sh
# and test-ssh.sh. Reads only the data files of the runs (RUN/data/*.env).

# The metrics, their order and directions: lib/metrics.tab.
# shellcheck source=lib/registry.sh
. "$KIT_DIR/lib/registry.sh"

# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

# not_run_reason RUN_ENV: why the selected tests without a result did not
# run (runs before the key existed: interrupted=yes), or nothing.
not_run_reason () {
	local why
	why=$(kv_get "$1" not_run_reason)
	if [ -z "$why" ] && [ "$(kv_get "$1" interrupted)" = yes ]; then
		why="the run was interrupted before it"
	fi
	printf '%s' "$why"
}

# metric_direction RUN_DIR TEST -> "lower" or "higher" (which way is better).
# The test's own `direction` key wins; else its target_op ("<=": lower is
# better, ">=": higher); else the registry's (lib/metrics.tab).
metric_direction () {
	local env="$1/data/$2.env" d
	d=$(kv_get "$env" direction)
	case $d in lower | higher) printf '%s' "$d"; return ;; esac
	case $(kv_get "$env" target_op) in
	'<=') printf lower; return ;;
	'>=') printf higher; return ;;
	esac
	printf '%s' "${METRIC_DIRECTION[$2]:-lower}"
}

# is_number VALUE: a plain decimal number (what the tests write).
is_number () {
	printf '%s' "$1" | grep -Eqx -- '-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?'
}

# metric_change OLD NEW DIRECTION -> "-4.1 % (better)", "0.0 % (same)", or
# nothing when the two cannot be compared (a figure missing or OLD is 0).
metric_change () {
	is_number "$1" && is_number "$2" || return 0
	awk -v a="$1" -v b="$2" -v dir="$3" 'BEGIN {
		if (a + 0 == 0) exit
		pct = (b - a) / a * 100
		s = sprintf("%+.1f", pct)
		if (s == "+0.0" || s == "-0.0") { print "0.0 % (same)"; exit }
		better = (dir == "higher") ? (b > a) : (b < a)
		printf "%s %% (%s)\n", s, better ? "better" : "worse"
	}'
}

# is_measured STATUS: true when the test's figure was measured (PASS, FAIL,
# INCONCLUSIVE), so it can be compared.
is_measured () {
	case $1 in PASS | FAIL | INCONCLUSIVE) return 0 ;; *) return 1 ;; esac
}

# test_change OLD_RUN NEW_RUN TEST -> the change of TEST's main figure, or
# nothing when it cannot be compared (not measured in one of the runs, not
# PASS/FAIL/INCONCLUSIVE, or in a different unit). An INCONCLUSIVE figure
# was measured like any other; only its verdict could not be decided.
test_change () {
	local a="$1/data/$3.env" b="$2/data/$3.env" s
	[ -f "$a" ] && [ -f "$b" ] || return 0
	for s in "$(kv_get "$a" status)" "$(kv_get "$b" status)"; do
		case $s in PASS | FAIL | INCONCLUSIVE) ;; *) return 0 ;; esac
	done
	[ "$(kv_get "$a" unit)" = "$(kv_get "$b" unit)" ] || return 0
	metric_change "$(kv_get "$a" figure)" "$(kv_get "$b" figure)" "$(metric_direction "$2" "$3")"
}

# The practical threshold: a change smaller than this share of A's figure
# (or of the median of A's samples) is "no significant change" whatever
# the test says (docs/metrics.md, "Is it a change or noise"). One for
# every metric: the registry (lib/metrics.tab) is the only list of them.
# And a floor for times: a shift of less than COMPARE_FLOOR_MS of a
# figure in ms is no change whatever its share. The echo of `interactive`
# takes half a millisecond here; its median moved by 0.1-0.46 ms (22-88 %)
# between identical runs (make stability), which no one at a terminal
# notices and a VM's scheduler alone explains.
COMPARE_THRESHOLD_PCT=10
COMPARE_FLOOR_MS=1
compare_threshold () {
	printf '%s' "$COMPARE_THRESHOLD_PCT"
}

# run_noise_text: the registry's between-run noise in words ("rate 60 %,
# transfer 30 %"), for the reports.
run_noise_text () {
	local n out=""
	for n in $METRICS; do
		case ${METRIC_NOISE[$n]:-} in '' | -) continue ;; esac
		out="${out:+$out, }$n ${METRIC_NOISE[$n]} %"
	done
	printf '%s' "${out:-none}"
}

# compare_threshold_text: the threshold in words, for the reports.
compare_threshold_text () {
	printf '%s %%, and %s ms for a time' "$COMPARE_THRESHOLD_PCT" "$COMPARE_FLOOR_MS"
}

# The interval methods (figure_method) that say how steady one run was,
# not how far two runs of one setup land apart: the CPU windows of one
# closed-loop run, the parts of one transfer, the sweep steps of one run.
# Two such intervals apart are no evidence of a change between runs (the
# machine's own speed moves a whole run: docs/metrics.md, "cpu"); the
# rounds of repeated runs (REPEAT) test_judge judges with the rank test.
COMPARE_ONE_RUN_METHODS="windows chunks steps"

# one_run_method RUN TEST: the figure's method when it is one of those.
one_run_method () {
	local m
	m=$(kv_get "$1/data/$2.env" figure_method)
	case " $COMPARE_ONE_RUN_METHODS " in *" $m "*) [ -n "$m" ] && printf '%s' "$m" ;; esac
}

# run_noise OLD_RUN NEW_RUN TEST: the between-run noise of TEST's figure
# in % (the registry's noise column: the largest change make stability
# saw between identical single runs, lib/metrics.tab) when one of the
# two runs is a single run (not REPEAT's median of rounds, which holds
# that noise itself); nothing when the registry has none for TEST.
run_noise () {
	local n=${METRIC_NOISE[$3]:-}
	case $n in '' | - | *[!0-9]*) return 0 ;; esac
	if [ "$(kv_get "$1/data/$3.env" figure_method)" = repeat ] && [ "$(kv_get "$2/data/$3.env" figure_method)" = repeat ]; then
		return 0
	fi
	printf '%s' "$n"
}

# The repeated rounds on both sides that let the rank test of the rounds'
# figures reach p < 0.05 at all (4 and 4 can, 3 and 3 cannot).
COMPARE_ROUNDS_NEEDED=5

# rank_helper: the path of sshperf-rank: HELPER_DIR when lib/common.sh set
# it, else an installed copy's (lib/paths.sh), else the checkout's build/.
rank_helper () {
	local d=${HELPER_DIR:-}
	if [ -z "$d" ] && [ -f "$KIT_DIR/lib/paths.sh" ]; then
		# shellcheck source=/dev/null
		d=$(. "$KIT_DIR/lib/paths.sh" && printf '%s' "${HELPER_DIR:-}")
	fi
	printf '%s/sshperf-rank' "${d:-$KIT_DIR/build}"
}

# judge_samples RUN TEST: the figure's own samples (figure_samples, "raw/
# FILE.tsv COLUMN", rows whose status is ok when the table has one), one
# per line; of every round of a repeated run (rounds/K/raw). Nothing when
# the run has none.
judge_samples () {
	local spec file col f
	spec=$(kv_get "$1/data/$2.env" figure_samples)
	[ -n "$spec" ] && [ "$spec" != - ] || return 0
	file=${spec%% *}
	col=${spec#* }
	[ "$file" != "$spec" ] || return 0
	run_files "$1" "$2" "$file" | while IFS= read -r f; do judge_column "$f" "$col"; done
}

# run_files RUN TEST FILE: the paths of FILE (relative to a run folder)
# that TEST's figure rests on, one per line: of every round of a
# repeated run (figure_method repeat), else of RUN itself.
run_files () {
	local d
	if [ "$(kv_get "$1/data/$2.env" figure_method)" = repeat ] && [ -d "$1/rounds" ]; then
		for d in "$1"/rounds/*/; do printf '%s\n' "$d$3"; done
	else
		printf '%s\n' "$1/$3"
	fi
}

# COMPARE_NEAR_AWK: awk's near_end(LO, HI), the near end of a shift's
# 95 % interval (sshperf-rank compare's shift_lo, shift_hi): the least
# change the samples allow, 0 when the interval holds 0 or is not known.
# Shared by test_judge and judge_whose.
COMPARE_NEAR_AWK='function near_end(lo, hi) { if (lo == "" || hi == "") return 0; if (lo + 0 > 0) return lo + 0; if (hi + 0 < 0) return hi + 0; return 0 }'

# judge_column FILE COLUMN: COLUMN's numbers, of the rows that are ok.
judge_column () {
	if tsv_select "$1" status >/dev/null 2>&1; then
		tsv_select "$1" status "$2" | awk -F'\t' '$1 == "ok" && $2 != "-" && $2 != "" { print $2 }'
	else
		tsv_select "$1" "$2" | grep -v '^-\?$'
	fi
}

# round_figures RUN TEST: the figures of TEST in each round of a repeated
# run (raw/repeat-figures.tsv), one per line; nothing for a single run.
round_figures () {
	[ -f "$1/raw/repeat-figures.tsv" ] || return 0
	tsv_select "$1/raw/repeat-figures.tsv" test figure status |
		awk -F'\t' -v t="$2" '$1 == t && $3 ~ /^(PASS|FAIL|INCONCLUSIVE)$/ && $2 ~ /^-?[0-9.]+([eE][-+]?[0-9]+)?$/ { print $2 }'
}

# same_build A B: true when two runs measured the same OpenSSH build from
# the same prefix (compare_report's first line says so when not).
same_build () {
	[ "$(cmp_build "$1")" = "$(cmp_build "$2")" ] &&
		[ "$(kv_get "$1/data/environment.env" openssh_prefix)" = "$(kv_get "$2/data/environment.env" openssh_prefix)" ]
}

# same_setup A B: whether two runs measured one setup: the same OpenSSH
# build, prefix and client, and no configuration difference
# (config_difference_lines). Says "yes" or "no".
same_setup () {
	if same_build "$1" "$2" &&
		[ "$(kv_get "$1/data/environment.env" openssh_client)" = "$(kv_get "$2/data/environment.env" openssh_client)" ] &&
		[ -z "$(config_difference_lines "$1" "$2")" ]; then
		printf yes
	else
		printf no
	fi
}

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

# judge_whose OLD_RUN NEW_RUN TEST TMPDIR THRESHOLD PHRASE SIGN WORD:
# the answer for a rank test of whole logins (PHRASE) whose p is below
# 0.05, with its shift's sign SIGN (+ or -) and WORD (better, worse).
# Between runs of one setup (same_setup) whose logins were split by whose
# time (whose_file, at least COMPARE_WHOSE_MIN a side), two more rank
# tests on the same logins decide instead of the whole logins' near end,
# each needing a shift of SIGN with the near end of its 95 % interval
# past THRESHOLD:
# - sshd's own part (server_ms; for a time also COMPARE_FLOOR_MS): a
#   login that moved in the client's part or in the TCP waits is no
#   change of sshd;
# - sshd's part over the client's (server_ms / client_ms): the client
#   runs the same code on the same CPUs in the same seconds, so when both
#   moved alike the machine's speed did, as the cpu test's client rule
#   says of CPU per login.
# A change in sshd (a slower step, a delay of its own) grows sshd's part
# and not the client's, and passes both: "significantly WORD", even when
# the whole logins' near end is under THRESHOLD (their client part and
# TCP waits move between runs; make stability saw a 50 ms delay in sshd
# come out at +23 ms of whole logins). When one does not pass: "no
# significant change" naming that part. Otherwise (other setups, too few
# split logins) PHRASE as it is.
judge_whose () {
	local part why="" own="" where steps
	if [ "$(same_setup "$1" "$2")" != yes ]; then
		whose_caution "$@"
		return 0
	fi
	for part in server_ms ratio; do
		why=$(whose_part "$1" "$2" "$3" "$4" "$5" "$part" "$7")
		case $why in
		unknown) printf '%s\n' "$6"; return 0 ;;
		yes\ *) [ "$part" != server_ms ] || own=${why#yes }; continue ;;
		esac
		case $6 in
		significantly*)
			printf '%s\n' "$6" | awk -v why="$why" -v th="$5" -v part="$part" '{
				sub(/^significantly (better|worse) \(/, ""); sub(/\)$/, "")
				other = sub(/^other /, "", why); sub(/^no /, "", why)
				printf "no significant change (%s, %s: %s; %s)\n", why, \
					other ? "past the threshold " th " % but the other way than the whole logins" : "its near end less than the threshold " th " %", \
					part == "ratio" ? (other ? "the client'"'"'s part, on the same CPUs in the same seconds, moved more than sshd'"'"'s, so the machine or the client did, not sshd" : \
						"the client, on the same CPUs in the same seconds, moved with sshd, so the machine did, not sshd") : \
					"the change is the client'"'"'s or the TCP waits'"'"', not sshd'"'"'s", $0 }' ;;
		*) printf '%s\n' "$6" ;;
		esac
		return 0
	done
	# Both moved. Unless sshd's padding steps account for it, that is
	# sshd, not the machine: significant, with the reason.
	steps=$(whose_steps "$1" "$2" "$3" "$4" "$5" "$7")
	if [ -n "$steps" ]; then
		printf '%s\n' "$6" | awk -v steps="$steps" '{
			sub(/^(significantly (better|worse)|no significant change) \(/, ""); sub(/\)$/, "")
			printf "no significant change (%s; %s)\n", steps, $0 }'
		return 0
	fi
	where=$(whose_phase "$1" "$2" "$3" "$4" "$7")
	[ -z "$where" ] || own="$own; $where"
	case $6 in
	significantly*)
		printf '%s\n' "$6" | awk -v own="$own" -v why="${why#yes }" '{ sub(/\)$/, "; " own "; " why ", past the threshold: sshd, not the machine)"); print }' ;;
	*)
		printf '%s\n' "$6" | awk -v own="$own" -v why="${why#yes }" -v word="$8" '{
			sub(/^no significant change \(/, ""); sub(/\)$/, "")
			printf "significantly %s (%s, not met by the whole logins, whose client part and TCP waits move between runs, but by sshd'"'"'s: %s; %s, past the threshold: sshd, not the machine)\n", word, $0, own, why }' ;;
	esac
}

# whose_part OLD_RUN NEW_RUN TEST TMPDIR THRESHOLD PART SIGN: the rank
# test of PART (server_ms, or ratio: sshd's part over the client's) of
# the split logins of both runs, as one line: "yes WHAT" when it moved
# past THRESHOLD on the side SIGN, "other WHAT" when past it the other
# way, "no WHAT" when not past it, WHAT saying by how much; "unknown"
# when a side has fewer than COMPARE_WHOSE_MIN split logins or the test
# gives no interval.
whose_part () {
	local out
	whose_column "$1" "$3" "$6" >"$4/wa"
	whose_column "$2" "$3" "$6" >"$4/wb"
	if [ "$(wc -l <"$4/wa")" -lt "$COMPARE_WHOSE_MIN" ] || [ "$(wc -l <"$4/wb")" -lt "$COMPARE_WHOSE_MIN" ]; then
		printf 'unknown\n'
		return 0
	fi
	out=$("$(rank_helper)" compare "$4/wa" "$4/wb" 2>/dev/null)
	printf '%s\n' "$out" | awk -F= -v th="$5" -v part="$6" -v sign="$7" -v floor="$COMPARE_FLOOR_MS" "$COMPARE_NEAR_AWK"'
		{ v[$1] = substr($0, length($1) + 2) }
		END {
			base = v["p50_a"] + 0
			if (v["shift_lo"] == "" || v["shift_hi"] == "" || base <= 0) { print "unknown"; exit }
			near = near_end(v["shift_lo"], v["shift_hi"])
			npct = near / base * 100
			past = (v["p"] + 0 < 0.05) && (npct >= th || npct <= -th) && \
				(part == "ratio" || near >= floor + 0 || near <= -floor)
			# Past the threshold on the side of the whole logins, or the other way.
			moved = !past ? "no" : ((sign == "+" ? near > 0 : near < 0) ? "yes" : "other")
			what = part == "ratio" ? "sshd'"'"'s part over the ssh client'"'"'s" : \
				part == "server_ms" ? "sshd'"'"'s own part" : "sshd'"'"'s turns outside authentication"
			printf "%s %s of the same logins moved %+.1f %% (95 %% %+.1f to %+.1f %%, median %.4g and %.4g, n %d and %d)", \
				moved, what, v["shift"] / base * 100, v["shift_lo"] / base * 100, v["shift_hi"] / base * 100, \
				v["p50_a"], v["p50_b"], v["n_a"], v["n_b"]
			if (part != "ratio")
				printf ", by %+.4g ms (95 %% %+.4g to %+.4g ms)", v["shift"], v["shift_lo"], v["shift_hi"]
			printf "\n"
		}'
}

# whose_steps OLD_RUN NEW_RUN TEST TMPDIR THRESHOLD SIGN: for a row of
# one setup whose sshd part moved, whether sshd's padding accounts for
# it: the authentication turns of both runs' split logins together sit
# on two steps (levels_of, lib/data.sh; at least COMPARE_WHOSE_MIN
# logins a side), each run has logins on each step, the steps
# are one doubling apart at most (the upper less than twice the lower),
# and sshd's turns outside authentication did not move
# past THRESHOLD on the side SIGN (whose_part). sshd answers an
# authentication request at its base time doubled until past the work,
# so work near a step lands on it or on the next, and the share on the
# upper step follows a few per cent of the machine's speed (make
# stability: 20 of 120 password logins on the upper step in one run, 69
# of 72 in the next, with the fixed loop 9 % faster in the first). Prints
# the row's reason then, nothing otherwise.
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
			print v["low_p50"], v["high_p50"], ua + 0, na, ub + 0, nb
		}')
	[ -n "$out" ] || return 0
	rest=$(whose_part "$1" "$2" "$3" "$4" "$5" server_outside_auth_ms "$6")
	case $rest in no\ *) ;; *) return 0 ;; esac
	printf '%s\n' "$out" | awk -v rest="${rest#* }" '
		{
			printf "sshd'"'"'s padding: the authentication turns of both runs sat on the same two steps, about %s and %s ms, %d of %d logins on the upper one against %d of %d; which step a login lands on follows the machine'"'"'s speed as much as sshd'"'"'s work, so this is no evidence of a change in sshd (a change of a few ms in its authentication work would look the same: REPEAT on both sides, docs/metrics.md); %s, not past the threshold\n", \
				$1, $2, $3, $4, $5, $6, rest
		}'
}

# The phases of a login in a whose-time split (lib/capture.sh), in order.
WHOSE_PHASES="connect greeting kex auth session"

# whose_phase OLD_RUN NEW_RUN TEST TMPDIR SIGN: where sshd's part moved,
# for a significant row (judge_whose between runs of one setup once
# sshd's own part moved, whose_caution between setups): the phase
# (WHOSE_PHASES) whose sshd turns have the largest shift on the side SIGN
# by the same rank test, as "sshd's turns moved most in PHASE: X ms (95 %
# a to b ms)". A change in sshd is in one step of the login (a slower
# AuthorizedKeysCommand in auth, PAM's session modules in session), while
# the machine's speed moves every phase a little. Only a phase whose
# interval is on the side SIGN, 0 outside it, counts: a larger shift that
# its own interval does not bear out names no phase. Nothing when the
# split has no phases or none moved that way.
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
			printf "sshd'"'"'s turns moved most in %s: %+.4g ms (95 %% %+.4g to %+.4g ms)\n", f[1], f[2], f[3], f[4]
		}'
}

# whose_caution OLD_RUN NEW_RUN TEST TMPDIR THRESHOLD PHRASE SIGN WORD:
# judge_whose's answer between two setups. The setup changed, so the
# client's part may rightly change with it (another cipher, MAC or key
# exchange is work on both ends) and it cannot clear a change as the
# machine's; PHRASE stands. But a significant PHRASE says what sshd's
# part over the client's did: when it did not move past THRESHOLD with
# the whole logins, a caution that the client slowed (or sped up) with
# sshd as when the machine's speed changed between the runs, which for a
# setting that leaves the client's work alone (a Banner, a log level, a
# delay in sshd) is the machine, not the setting.
whose_caution () {
	local why where
	case $6 in significantly*) ;; *) printf '%s\n' "$6"; return 0 ;; esac
	why=$(whose_part "$1" "$2" "$3" "$4" "$5" ratio "$7")
	[ "$why" != unknown ] || { printf '%s\n' "$6"; return 0; }
	where=$(whose_phase "$1" "$2" "$3" "$4" "$7")
	where=${where:+; $where}
	case $why in
	yes\ *) printf '%s\n' "$6" | awk -v why="${why#yes }" -v where="$where" '{ sub(/\)$/, where "; " why ", past the threshold: sshd, not the machine)"); print }' ;;
	*)
		printf '%s\n' "$6" | awk -v why="${why#* }" -v th="$5" -v where="$where" '{
			sub(/\)$/, where "; caution: " why ", not past the threshold " th " %: the ssh client, unchanged, moved with sshd, as when the machine'"'"'s speed changed between the runs; unless the setting changes the client'"'"'s work too (Ciphers, MACs, KexAlgorithms, the crypto policy), compare each setup with itself first, docs/try-a-change.md)"); print }' ;;
	esac
}

# test_judge OLD_RUN NEW_RUN TEST -> whether TEST's figure changed beyond
# the noise, as one phrase: "significantly better (...)", "significantly
# worse (...)", "no significant change (...)" or "not judged: ...". Nothing
# when test_change has no figure to compare. Two tests, by what the runs
# hold:
# - the figure's own samples in both runs (figure_samples; of every round
#   of a repeated run), or else the rounds' figures of two repeated runs:
#   the rank test (sshperf-rank compare, Mann-Whitney U) with the
#   Hodges-Lehmann shift B - A and its 95 % interval; a significant
#   answer between runs of one setup whose logins were split by whose
#   time stands only when sshd's own part and its part over the
#   client's moved too (judge_whose); between single runs of a figure
#   with a between-run noise (run_noise: samples flat within a run whose
#   level moves between runs, session), the threshold for the near end is
#   that noise when it is larger;
# - else the two 95 % intervals (figure_lo, figure_hi): apart or not;
#   between single runs of a figure with a between-run noise (run_noise:
#   its interval describes one run only, COMPARE_ONE_RUN_METHODS, or it
#   has none), that noise is its practical threshold: a change within it
#   is "no significant change"; one past it is significant when the two
#   intervals are apart by at least that much, or when there are none;
#   for cpu between runs of one setup (same_setup) a change past it is
#   still no change when sshd's CPU per login over the clients'
#   (sshd_per_client_cpu) changed by less than the threshold: the
#   clients, in the same seconds on the same CPUs, moved with it, so the
#   machine did; a one-run interval with no noise declared: "not
#   judged"; no interval: "not judged"; in both cases "no significant
#   change" when the figures changed by less than the threshold, which
#   no interval could make significant; and a row on burst's model
#   ranges says that identical settings give identical ranges.
# Significant only when the test says so (p < 0.05; the intervals apart)
# and all of the change's interval is beyond the threshold
# (compare_threshold): the near end of the shift's 95 % interval, or the
# gap between the two intervals, is at least the threshold. A rank test
# on the samples of two single runs sees the samples' noise but not how
# far identical runs land apart (login: up to 12 %, make stability); its
# point estimate past 10 % was no evidence of a change, its near end is.
test_judge () {
	local a="$1/data/$3.env" b="$2/data/$3.env" dir th unit tmp out how one model="" same=no noise phrase sign
	[ -n "$(test_change "$1" "$2" "$3")" ] || return 0
	dir=$(metric_direction "$2" "$3")
	th=$(compare_threshold "$3")
	unit=$(kv_get "$b" unit)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-judge.XXXXXX") || return 0
	judge_samples "$1" "$3" >"$tmp/a"
	judge_samples "$2" "$3" >"$tmp/b"
	how="rank test of the samples"
	if [ ! -s "$tmp/a" ] || [ ! -s "$tmp/b" ]; then
		round_figures "$1" "$3" >"$tmp/a"
		round_figures "$2" "$3" >"$tmp/b"
		how="rank test of the rounds' figures"
	fi
	if [ "$(wc -l <"$tmp/a")" -ge 2 ] && [ "$(wc -l <"$tmp/b")" -ge 2 ]; then
		out=$("$(rank_helper)" compare "$tmp/a" "$tmp/b" 2>/dev/null)
		noise=$(run_noise "$1" "$2" "$3")
		[ -z "$noise" ] || [ "$noise" -le "$th" ] || th=$noise
		phrase=$(printf '%s\n' "$out" | awk -F= -v dir="$dir" -v th="$th" -v unit="$unit" -v how="$how" -v floor="$COMPARE_FLOOR_MS" \
			-v noise="$noise" -v rounds="$COMPARE_ROUNDS_NEEDED" "$COMPARE_NEAR_AWK"'
			{ v[$1] = substr($0, length($1) + 2) }
			END {
				if (v["p"] == "" || v["shift"] == "") { printf "too few samples: not judged\n"; exit }
				base = v["p50_a"] + 0
				pct = base != 0 ? v["shift"] / base * 100 : 0
				# The near end of the shift interval: the least change the
				# samples allow (0 when the interval holds 0).
				known = v["shift_lo"] != "" && v["shift_hi"] != ""
				near = near_end(v["shift_lo"], v["shift_hi"])
				npct = base != 0 ? near / base * 100 : 0
				small = unit == "ms" && near < floor + 0 && near > -floor
				sig = (v["p"] + 0 < 0.05) && (npct >= th || npct <= -th) && !small
				ci = !known ? "95 % interval not known" : \
					sprintf("95 %% %+.4g to %+.4g (at least %+.1f %%)", v["shift_lo"], v["shift_hi"], npct)
				detail = sprintf("%s: shift %+.4g %s (%+.1f %% of the median), %s, p %.2g, n %d and %d; threshold %s %%%s%s for all of the interval", \
					how, v["shift"], unit, pct, ci, v["p"], v["n_a"], v["n_b"], th, \
					noise != "" && noise + 0 == th + 0 ? sprintf(" (the between-run noise of single runs, lib/metrics.tab; REPEAT=%d on both sides judges smaller changes)", rounds) : "", \
					unit == "ms" ? sprintf(" and %s ms", floor) : "")
				if (!sig) { printf "no significant change (%s)\n", detail; exit }
				better = (dir == "higher") ? (v["shift"] > 0) : (v["shift"] < 0)
				printf "significantly %s (%s)\n", better ? "better" : "worse", detail
			}')
		# A rank test with p below 0.05: the whole logins' sign and word,
		# for judge_whose (its part may decide where their near end did not).
		sign=$(printf '%s\n' "$out" | awk -F= -v dir="$dir" '
			{ v[$1] = $2 }
			END { if (v["p"] == "" || v["shift"] == "" || v["p"] + 0 >= 0.05 || v["shift"] + 0 == 0) exit
				s = v["shift"] + 0 > 0; print (s ? "+" : "-") " " (((dir == "higher") == s) ? "better" : "worse") }')
		if [ -n "$sign" ]; then
			judge_whose "$1" "$2" "$3" "$tmp" "$th" "$phrase" "${sign% *}" "${sign#* }"
		else
			printf '%s\n' "$phrase"
		fi
		rm -rf "$tmp"
		return 0
	fi
	rm -rf "$tmp"
	one=$(one_run_method "$1" "$3")
	[ -n "$one" ] || one=$(one_run_method "$2" "$3")
	[ "$(kv_get "$a" figure_method)" != model ] && [ "$(kv_get "$b" figure_method)" != model ] || model=yes
	[ "$3" != cpu ] || same=$(same_setup "$1" "$2")
	noise=$(run_noise "$1" "$2" "$3")
	awk -v noise="$noise" -v alo="$(kv_get "$a" figure_lo)" -v ahi="$(kv_get "$a" figure_hi)" \
		-v blo="$(kv_get "$b" figure_lo)" -v bhi="$(kv_get "$b" figure_hi)" \
		-v fa="$(kv_get "$a" figure)" -v fb="$(kv_get "$b" figure)" -v dir="$dir" -v th="$th" \
		-v one="$one" -v model="$model" -v rounds="$COMPARE_ROUNDS_NEEDED" -v unit="$unit" -v floor="$COMPARE_FLOOR_MS" \
		-v ra="$(kv_get "$a" sshd_per_client_cpu)" -v rb="$(kv_get "$b" sshd_per_client_cpu)" \
		-v ca="$(kv_get "$a" client_cpu_ms_per_login)" -v cb="$(kv_get "$b" client_cpu_ms_per_login)" -v same="$same" '
		function num(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
		BEGIN {
			# A change of the figures smaller than the threshold is no
			# significant change whatever the intervals: significance
			# needs all of the change past the threshold.
			chg = fa + 0 != 0 ? (fb - fa) / fa * 100 : 0
			under = (chg < th && chg > -th) || (unit == "ms" && fb - fa < floor + 0 && fa - fb < floor + 0)
			below = sprintf("the change %+.1f %% is below the threshold %s %%%s", chg, th, unit == "ms" ? sprintf(" or %s ms", floor) : "")
			have = num(alo) && num(blo) && num(ahi) && num(bhi)
			apart = have && ((bhi + 0 < alo + 0) || (blo + 0 > ahi + 0))
			# The gap between the two intervals: the least change they
			# allow, as a share of A'"'"'s figure.
			gap = !have ? 0 : ((blo + 0 > ahi + 0) ? blo - ahi : ((bhi + 0 < alo + 0) ? bhi - alo : 0))
			pct = fa + 0 != 0 ? gap / fa * 100 : 0
			if (noise != "" && num(fa) && num(fb)) {
				# Single runs of a figure whose interval cannot tell runs
				# apart: the between-run noise is the threshold.
				detail = !have ? "no interval" : sprintf("intervals %s-%s and %s-%s %s", alo, ahi, blo, bhi, \
					apart ? sprintf("apart by %.4g (%+.1f %%)", gap < 0 ? -gap : gap, pct) : "overlap")
				rule = sprintf("between-run noise of single runs %s %% (lib/metrics.tab, measured by make stability; REPEAT=%d on both sides judges smaller changes)", noise, rounds)
				if ((chg < noise && chg > -noise) || under) {
					printf "no significant change (the change %+.1f %% is within the %s; %s)\n", chg, rule, detail
					exit
				}
				if (same == "yes" && num(ra) && num(rb) && ra + 0 > 0 && num(ca) && num(cb) && ca + 0 > 0) {
					rchg = (rb - ra) / ra * 100
					if (rchg < th && rchg > -th) {
						printf "no significant change (the change %+.1f %% is past the %s, but the ssh clients'"'"' CPU per login in the same seconds moved %+.1f %% with it and sshd'"'"'s over theirs only %+.1f %% (%s to %s), less than the threshold %s %%: the machine, not sshd; %s)\n", \
							chg, rule, (cb - ca) / ca * 100, rchg, ra, rb, th, detail
						exit
					}
				}
				if (have && (!apart || (pct < noise && pct > -noise))) {
					printf "no significant change (the change %+.1f %% is past the %s, but the gap between the intervals is not; %s)\n", chg, rule, detail
					exit
				}
				better = (dir == "higher") ? (fb > fa) : (fb < fa)
				printf "significantly %s (the change %+.1f %% is past the %s%s; %s)\n", better ? "better" : "worse", chg, rule, \
					have ? ", and so is the gap between the intervals" : "", detail
				exit
			}
			if (!have) {
				# One-sided intervals (too few samples for the upper
				# bound) cannot show two figures apart.
				if (under && num(fa) && num(fb)) printf "no significant change (%s; no interval)\n", below
				else print "no interval: not judged"
				exit
			}
			detail = sprintf("intervals %s-%s and %s-%s %s; threshold %s %%%s for the gap between them", alo, ahi, blo, bhi, \
				apart ? sprintf("apart by %.4g (%+.1f %%)", gap < 0 ? -gap : gap, pct) : "overlap", th, unit == "ms" ? sprintf(" and %s ms", floor) : "")
			small = unit == "ms" && gap < floor + 0 && gap > -floor
			if (one != "" && under) { printf "no significant change (%s; %s)\n", below, detail; exit }
			if (one != "") {
				printf "single runs: not judged (%s, from each run'"'"'s %s: how steady that run was, not how far two runs of one setup land apart; REPEAT=%d on both sides compares the rounds'"'"' figures)\n", \
					detail, one == "windows" ? "CPU windows" : (one == "chunks" ? "transfer parts" : "sweep steps"), rounds
				exit
			}
			if (model == "yes")
				detail = detail "; the ranges are the MaxStartups model'"'"'s for each run'"'"'s setting, so identical settings give the same range: this row tells settings apart, not runs"
			if (!apart || small || (pct < th && pct > -th)) { printf "no significant change (%s)\n", detail; exit }
			better = (dir == "higher") ? (fb > fa) : (fb < fa)
			printf "significantly %s (%s)\n", better ? "better" : "worse", detail
		}'
}

# judge_word JUDGED: the answer of a test_judge phrase alone, for
# results.json and the stability bench: "significantly better",
# "significantly worse", "no significant change", "not judged", or
# nothing for an empty phrase.
judge_word () {
	case $1 in
	'') ;;
	"significantly better"*) printf 'significantly better' ;;
	"significantly worse"*) printf 'significantly worse' ;;
	"no significant change"*) printf 'no significant change' ;;
	*) printf 'not judged' ;;
	esac
}

# previous_run RUN_DIR -> the newest earlier run in the same results folder
# that was rendered (has results.json) on the same host; nothing if none.
# Run folders are named by date and time, so name order is time order.
previous_run () {
	local run parent name host d best=""
	run=$(cd "$1" && pwd)
	parent=$(dirname "$run")
	name=$(basename "$run")
	host=$(kv_get "$run/data/environment.env" host)
	[ -n "$host" ] || return 0
	for d in "$parent"/*/; do
		d=${d%/}
		[ -f "$d/results.json" ] && [ -f "$d/data/run.env" ] || continue
		# Earlier than this run (C collation: byte order).
		[[ "$(basename "$d")" < "$name" ]] || continue
		[ "$(kv_get "$d/data/environment.env" host)" = "$host" ] || continue
		best=$d
	done
	[ -z "$best" ] || printf '%s\n' "$best"
}

# cmp_build RUN: the OpenSSH build of a run as the comparison names it:
# its ssh -V, with what the build says of itself (openssh_origin: Red
# Hat's 8.7p1 and upstream's print the same version) or its package.
cmp_build () {
	local e="$1/data/environment.env" b o k
	b=$(kv_get "$e" openssh_build)
	[ -n "$b" ] || b=$(kv_get "$e" openssh_server)
	o=$(kv_get "$e" openssh_origin) k=$(kv_get "$e" openssh_package)
	case $k in '' | none) k="" ;; esac
	b=${b:-unknown}
	if [ -n "$o" ]; then
		printf '%s (%s)' "$b" "$o"
	elif [ -n "$k" ]; then
		printf '%s (package %s)' "$b" "$k"
	else
		printf '%s' "$b"
	fi
}

# cmp_prefix RUN: the OPENSSH_PREFIX of a run, or "the system OpenSSH".
cmp_prefix () {
	local p
	p=$(kv_get "$1/data/environment.env" openssh_prefix)
	printf '%s' "${p:-the system OpenSSH}"
}

# cmp_load RUN: the 1-minute load average when the run started and ended
# ("1.54, 11.41"): a significant change between runs of which one had
# the machine busy may be the machine's, not the setting's.
cmp_load () {
	local b e
	b=$(kv_get "$1/data/run.env" load_before)
	e=$(kv_get "$1/data/run.env" load_after)
	printf '%s, %s' "${b%% *}" "${e%% *}"
}

# config_difference_lines A B: what differs in the test server's
# configuration between two runs (its effective sshd -T settings,
# SSHD_OPTIONS, where its configuration and its user came from), one
# markdown list item each; nothing when they are the same.
config_difference_lines () {
	local ea="$1/data/environment.env" eb="$2/data/environment.env" k va vb
	for k in $( { sed -n 's/^\(sshd_[^=]*\)=.*/\1/p' "$ea" "$eb" 2>/dev/null | sort -u; } |
		cat <(printf '%s\n' server_config server_options test_user test_user_existing test_user_source pam_stack crypto_policy openssh_server) -); do
		va=$(kv_get "$ea" "$k")
		vb=$(kv_get "$eb" "$k")
		[ "$va" != "$vb" ] || continue
		case $k in
		server_options) printf -- '- SSHD_OPTIONS: `%s` -> `%s`\n' "${va:-none}" "${vb:-none}" ;;
		sshd_*) printf -- '- `%s`: `%s` -> `%s`\n' "${k#sshd_}" "${va:--}" "${vb:--}" ;;
		*) printf -- '- %s: %s -> %s\n' "$k" "${va:--}" "${vb:--}" ;;
		esac
	done
}

# compare_pad A B [same]: what sshd's padding of a key login's two
# requests took in each run (login.env pad_pair_p50; lib/capture.sh
# capture_pad), when both measured it: any edit of the configuration, or
# new host keys, gives sshd another base time, and the login and auth
# rows then hold that step whatever the setting does. With "same" (one
# configuration) only when it moved by COMPARE_PAD_MOVED_MS or more.
COMPARE_PAD_MOVED_MS=2
compare_pad () {
	local pa pb
	pa=$(kv_get "$1/data/login.env" pad_pair_p50)
	pb=$(kv_get "$2/data/login.env" pad_pair_p50)
	[ -n "$pa" ] && [ -n "$pb" ] || return 0
	awk -v pa="$pa" -v pb="$pb" -v same="${3:-}" -v moved="$COMPARE_PAD_MOVED_MS" 'BEGIN {
		what = sprintf("sshd'"'"'s padding of a key login'"'"'s two requests (login, p50 from the key'"'"'s query to the success): %.1f ms -> %.1f ms (%+.1f ms)", pa, pb, pb - pa)
		if (same == "") {
			printf "\n%s. Any edit of the configuration gives sshd another base time for it, so this part of a change of `login` or `auth` can come from the edit alone, not from what the setting does (docs/try-a-change.md).\n", what
			exit
		}
		if (pb - pa < moved && pa - pb < moved) exit
		printf "\nThe same configuration, but %s. sshd derives its base time from its host keys too: new ones (a cleanup, then a new start) move it by a step with nothing else changed, and so can `login` and `auth` (docs/try-a-change.md).\n", what
	}'
}

# config_differences A B: those differences as the report's section.
config_differences () {
	local lines
	lines=$(config_difference_lines "$1" "$2")
	printf '## Configuration differences\n\n'
	if [ -n "$lines" ]; then
		printf '%s\n' "$lines"
		compare_pad "$1" "$2"
	else
		printf 'None: both runs measured the same test server configuration (effective `sshd -T` settings, SSHD_OPTIONS, user).\n'
		compare_pad "$1" "$2" same
	fi
}

# compare_report A B: the comparison report (markdown) of two runs on stdout.
compare_report () {
	local a="$1" b="$2" name ea eb fa fb unit label change judged dir sa sb note
	local ba bb
	ba=$(cmp_build "$a") bb=$(cmp_build "$b")
	# Runs of two OpenSSH builds compare the builds as much as the
	# settings: the first line says so.
	if ! same_build "$a" "$b"; then
		printf '# Comparison of two sshd-perf-kit runs of different OpenSSH builds: %s (A) and %s (B)\n' "${ba:-unknown}" "${bb:-unknown}"
	else
		printf '# Comparison of two sshd-perf-kit runs\n'
	fi
	cat <<EOF

| | A (before) | B (after) |
|---|---|---|
| Run | \`$(basename "$a")\` | \`$(basename "$b")\` |
| Host | $(kv_get "$a/data/environment.env" host) | $(kv_get "$b/data/environment.env" host) |
| Tested | $(kv_get "$a/data/run.env" started_local) | $(kv_get "$b/data/run.env" started_local) |
| OpenSSH server | $ba | $bb |
| OpenSSH prefix | $(cmp_prefix "$a") | $(cmp_prefix "$b") |
| Verdict | $(kv_get "$a/data/verdict.env" verdict) | $(kv_get "$b/data/verdict.env" verdict) |
| Machine load (1 min) at start, at end | $(cmp_load "$a") | $(cmp_load "$b") |

$(config_differences "$a" "$b")

Change = (B - A) / A of each metric's main figure; better or worse follows
the metric's direction (for times and CPU lower is better, for rates,
speeds and sessions higher is better). Significant says whether the change
is more than the noise of the two runs: the rank test of the figure's own
samples (Mann-Whitney U, p < 0.05, with the Hodges-Lehmann shift B - A and
its 95 % interval), of the rounds' figures of two repeated runs, or else
whether the two figures' 95 % intervals are apart; and all of the change's
interval beyond the metric's threshold (of A's figure: $(compare_threshold_text)):
the near end of the shift's interval, or the gap between the two intervals,
at least that far from no change. Identical runs of one setup land up to
about 12 % apart on a busy VM, which the samples of one run cannot show;
requiring the whole interval past the threshold keeps that drift from being
called a change. A figure whose interval describes one run only (CPU
windows, the parts of one transfer, sweep steps), or that has none, has a
threshold of its own between single runs: the largest change identical
runs of one setup showed in \`make stability\` ($(run_noise_text)). A
change within it is no significant change; REPEAT on both sides judges
smaller ones with the rounds. Anything short of these rules is "no
significant change", whatever the Change column says. A significant change
between runs with very different machine loads (the table above) may be
the machine's, not the configuration's.

| Metric | Figure | A | B | Change | Significant | Better is | Verdict A | Verdict B |
|---|---|---:|---:|---|---|---|---|---|
EOF
	for name in $METRICS; do
		ea="$a/data/$name.env"
		eb="$b/data/$name.env"
		[ -f "$ea" ] || [ -f "$eb" ] || continue
		fa=$(kv_get "$ea" figure)
		fb=$(kv_get "$eb" figure)
		unit=$(kv_get "$eb" unit)
		[ -n "$unit" ] || unit=$(kv_get "$ea" unit)
		label=$(kv_get "$eb" figure_label)
		[ -n "$label" ] || label=$(kv_get "$ea" figure_label)
		sa=$(kv_get "$ea" status)
		sb=$(kv_get "$eb" status)
		dir=$(metric_direction "$b" "$name")
		[ -f "$eb" ] || dir=$(metric_direction "$a" "$name")
		change=$(test_change "$a" "$b" "$name")
		judged=$(test_judge "$a" "$b" "$name")
		note=""
		if [ -z "$change" ]; then
			if [ ! -f "$ea" ]; then note="not measured in A"
			elif [ ! -f "$eb" ]; then note="not measured in B"
			elif ! is_measured "$sa"; then note="not compared: ${sa:-no status} in A"
			elif ! is_measured "$sb"; then note="not compared: ${sb:-no status} in B"
			elif [ "$(kv_get "$ea" unit)" != "$(kv_get "$eb" unit)" ]; then note="different units"
			else note="-"
			fi
			change=$note
		fi
		printf '| `%s` | %s (%s) | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "${label:--}" "${unit:--}" \
			"${fa:--}" "${fb:--}" "$change" "${judged:--}" "$dir" "${sa:--}" "${sb:--}"
	done
	cat <<EOF

A metric that was not PASS, FAIL or INCONCLUSIVE in both runs (skipped,
interrupted, no result), or whose unit differs between the runs, is not
compared.
EOF
}
