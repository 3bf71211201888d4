# shellcheck shell=bash disable=SC2016
# (SC2016: the awk programs are in single quotes on purpose.)
# Comparing runs, the decision: whether a test's figure changed between
# two runs beyond the noise, as data (judge_decide: key=value lines,
# docs/data.md "compare-RUN.tsv"), never as a sentence; the sentence is
# written from that data in one place, lib/compare/words.sh. Sourced by
# lib/compare.sh.

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
# Shared by judge_rank and whose_part.
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

# judge_get DATA KEY: KEY's value in a decision (DATA: key=value lines,
# the last of a key wins), or nothing.
judge_get () {
	printf '%s\n' "$1" | awk -v k="$2" 'index($0, k "=") == 1 { v = substr($0, length(k) + 2); f = 1 } END { if (f) print v }'
}

# judge_decide OLD_RUN NEW_RUN TEST: whether TEST's figure changed beyond
# the noise, as key=value lines (the keys of docs/data.md,
# "compare-RUN.tsv"; a key given again is overridden, the last wins):
# word (better, worse, unchanged, unjudged), the rule that decided and
# the numbers it decided on. Nothing when test_change has no figure to
# compare. Two tests, by what the runs hold:
# - the figure's own samples in both runs (figure_samples; of every round
#   of a repeated run), or else the rounds' figures of two repeated runs:
#   the rank test (judge_rank); a rank test with p below 0.05 between
#   runs whose logins were split by whose time goes on to judge_whose
#   (lib/compare/whose.sh), which may decide instead;
# - else the two 95 % intervals (judge_intervals).
# Significant only when the test says so (p < 0.05; the intervals apart)
# and all of the change's interval is beyond the threshold
# (compare_threshold): the near end of the shift's 95 % interval, or the
# gap between the two intervals, is at least the threshold. A rank test
# on the samples of two single runs sees the samples' noise but not how
# far identical runs land apart (login: up to 12 %, make stability); its
# point estimate past 10 % was no evidence of a change, its near end is.
judge_decide () {
	local b="$2/data/$3.env" dir th unit tmp how noise data
	[ -n "$(test_change "$1" "$2" "$3")" ] || return 0
	dir=$(metric_direction "$2" "$3")
	th=$(compare_threshold "$3")
	unit=$(kv_get "$b" unit)
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-judge.XXXXXX") || return 0
	judge_samples "$1" "$3" >"$tmp/a"
	judge_samples "$2" "$3" >"$tmp/b"
	how=samples
	if [ ! -s "$tmp/a" ] || [ ! -s "$tmp/b" ]; then
		round_figures "$1" "$3" >"$tmp/a"
		round_figures "$2" "$3" >"$tmp/b"
		how=rounds
	fi
	printf 'test=%s\ndirection=%s\nunit=%s\nfloor=%s\n' "$3" "$dir" "$unit" "$COMPARE_FLOOR_MS"
	if [ "$(wc -l <"$tmp/a")" -ge 2 ] && [ "$(wc -l <"$tmp/b")" -ge 2 ]; then
		noise=$(run_noise "$1" "$2" "$3")
		[ -z "$noise" ] || [ "$noise" -le "$th" ] || th=$noise
		data=$("$(rank_helper)" compare "$tmp/a" "$tmp/b" 2>/dev/null | judge_rank "$dir" "$th" "$unit" "$how" "$noise")
		printf '%s\n' "$data"
		case $(judge_get "$data" sign) in
		+ | -) judge_whose "$1" "$2" "$3" "$tmp" "$th" "$(judge_get "$data" sign)" "$(judge_get "$data" whole)" "$(judge_get "$data" toward)" ;;
		esac
	else
		judge_intervals "$1" "$2" "$3" "$dir" "$th" "$unit"
	fi
	rm -rf "$tmp"
}

# judge_rank DIRECTION THRESHOLD UNIT HOW NOISE: the decision of a rank
# test (sshperf-rank compare's key=value lines on stdin: Mann-Whitney U,
# the Hodges-Lehmann shift B - A and its 95 % interval), as key=value
# lines. Significant (whole=yes, word better or worse) when p < 0.05 and
# the near end of the shift's interval (near, near_pct of A's median) is
# at least THRESHOLD % and, for a time, COMPARE_FLOOR_MS; sign (+ or -)
# when p < 0.05 and the shift is not 0, for judge_whose.
judge_rank () {
	awk -F= -v dir="$1" -v th="$2" -v unit="$3" -v how="$4" -v noise="$5" -v floor="$COMPARE_FLOOR_MS" "$COMPARE_NEAR_AWK"'
		{ v[$1] = substr($0, length($1) + 2) }
		END {
			printf "rule=rank\nhow=%s\nthreshold=%s\nnoise=%s\n", how, th, noise
			if (v["p"] == "" || v["shift"] == "") { printf "rule=too-few\nword=unjudged\n"; exit }
			base = v["p50_a"] + 0
			near = near_end(v["shift_lo"], v["shift_hi"])
			npct = base != 0 ? near / base * 100 : 0
			small = unit == "ms" && near < floor + 0 && near > -floor
			sig = (v["p"] + 0 < 0.05) && (npct >= th || npct <= -th) && !small
			toward = ((dir == "higher") ? (v["shift"] > 0) : (v["shift"] < 0)) ? "better" : "worse"
			printf "p=%s\nshift=%s\nshift_lo=%s\nshift_hi=%s\nmedian_a=%s\nmedian_b=%s\nn_a=%s\nn_b=%s\n", \
				v["p"], v["shift"], v["shift_lo"], v["shift_hi"], v["p50_a"], v["p50_b"], v["n_a"], v["n_b"]
			printf "near=%.17g\nnear_pct=%.17g\nwhole=%s\ntoward=%s\nword=%s\n", near, npct, sig ? "yes" : "no", toward, sig ? toward : "unchanged"
			if (v["p"] + 0 < 0.05 && v["shift"] + 0 != 0) printf "sign=%s\n", (v["shift"] + 0 > 0) ? "+" : "-"
		}'
}

# judge_intervals OLD_RUN NEW_RUN TEST DIRECTION THRESHOLD UNIT: the
# decision on the two 95 % intervals (figure_lo, figure_hi), as key=value
# lines. Between single runs of a figure with a between-run noise
# (run_noise: its interval describes one run only,
# COMPARE_ONE_RUN_METHODS, or it has none), that noise is its practical
# threshold: a change within it is unchanged (rule noise-within); one past
# it is significant (noise-past) when the two intervals are apart by at
# least that much (else noise-gap), or when there are none; for a metric
# with a client column in the registry (lib/metrics.tab: sshd's figure
# over the ssh clients' in the same seconds) between runs of one setup
# (same_setup) a change past it is still unchanged (noise-machine) when
# that ratio changed by less than the threshold: the clients, on the
# same CPUs, moved with it, so the machine did. Otherwise a one-run
# interval with no noise declared is unjudged (one-run), so is no
# interval (no-interval); both are unchanged (one-run-under,
# no-interval-under) when the figures changed by less than the
# threshold, which no interval could make significant; else the
# intervals apart by at least the threshold (rule intervals), model=yes
# for burst's model ranges (identical settings give identical ranges).
judge_intervals () {
	local a="$1/data/$3.env" b="$2/data/$3.env" one model="" same=no noise keys ra="" rb="" ca="" cb=""
	one=$(one_run_method "$1" "$3")
	[ -n "$one" ] || one=$(one_run_method "$2" "$3")
	[ "$(kv_get "$a" figure_method)" != model ] && [ "$(kv_get "$b" figure_method)" != model ] || model=yes
	keys=$(client_keys "$3")
	if [ -n "$keys" ]; then
		same=$(same_setup "$1" "$2")
		ra=$(kv_get "$a" "${keys% *}") rb=$(kv_get "$b" "${keys% *}")
		ca=$(kv_get "$a" "${keys#* }") cb=$(kv_get "$b" "${keys#* }")
	fi
	noise=$(run_noise "$1" "$2" "$3")
	awk -v noise="$noise" -v alo="$(kv_get "$a" figure_lo)" -v ahi="$(kv_get "$a" figure_hi)" \
		-v blo="$(kv_get "$b" figure_lo)" -v bhi="$(kv_get "$b" figure_hi)" \
		-v fa="$(kv_get "$a" figure)" -v fb="$(kv_get "$b" figure)" -v dir="$4" -v th="$5" \
		-v one="$one" -v model="$model" -v unit="$6" -v floor="$COMPARE_FLOOR_MS" \
		-v ra="$ra" -v rb="$rb" -v ca="$ca" -v cb="$cb" -v same="$same" '
		function num(x) { return x ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
		function say(rule, word) { printf "rule=%s\nword=%s\n", rule, word; exit }
		BEGIN {
			better = ((dir == "higher") ? (fb > fa) : (fb < fa)) ? "better" : "worse"
			# A change of the figures smaller than the threshold is no
			# significant change whatever the intervals: significance
			# needs all of the change past the threshold.
			chg = fa + 0 != 0 ? (fb - fa) / fa * 100 : 0
			under = (chg < th && chg > -th) || (unit == "ms" && fb - fa < floor + 0 && fa - fb < floor + 0)
			have = num(alo) && num(blo) && num(ahi) && num(bhi)
			apart = have && ((bhi + 0 < alo + 0) || (blo + 0 > ahi + 0))
			# The gap between the two intervals: the least change they
			# allow, as a share of A'"'"'s figure.
			gap = !have ? 0 : ((blo + 0 > ahi + 0) ? blo - ahi : ((bhi + 0 < alo + 0) ? bhi - alo : 0))
			pct = fa + 0 != 0 ? gap / fa * 100 : 0
			printf "threshold=%s\nnoise=%s\none=%s\nmodel=%s\nfigure_a=%s\nfigure_b=%s\nchange_pct=%.17g\n", th, noise, one, model, fa, fb, chg
			printf "lo_a=%s\nhi_a=%s\nlo_b=%s\nhi_b=%s\nintervals=%s\napart=%s\ngap=%.17g\ngap_pct=%.17g\n", \
				alo, ahi, blo, bhi, have ? "yes" : "no", apart ? "yes" : "no", gap, pct
			if (noise != "" && num(fa) && num(fb)) {
				# Single runs of a figure whose interval cannot tell runs
				# apart: the between-run noise is the threshold.
				if ((chg < noise && chg > -noise) || under) say("noise-within", "unchanged")
				if (same == "yes" && num(ra) && num(rb) && ra + 0 > 0 && num(ca) && num(cb) && ca + 0 > 0) {
					rchg = (rb - ra) / ra * 100
					printf "ratio_a=%s\nratio_b=%s\nratio_change_pct=%.17g\nclient_change_pct=%.17g\n", ra, rb, rchg, (cb - ca) / ca * 100
					if (rchg < th && rchg > -th) say("noise-machine", "unchanged")
				}
				if (have && (!apart || (pct < noise && pct > -noise))) say("noise-gap", "unchanged")
				say("noise-past", better)
			}
			if (!have) {
				# One-sided intervals (too few samples for the upper
				# bound) cannot show two figures apart.
				if (under && num(fa) && num(fb)) say("no-interval-under", "unchanged")
				say("no-interval", "unjudged")
			}
			small = unit == "ms" && gap < floor + 0 && gap > -floor
			if (one != "" && under) say("one-run-under", "unchanged")
			if (one != "") say("one-run", "unjudged")
			if (!apart || small || (pct < th && pct > -th)) say("intervals", "unchanged")
			say("intervals", better)
		}'
}

# test_judge OLD_RUN NEW_RUN TEST: the decision in words (judge_text), one
# line, for the reports; nothing when there is none.
test_judge () {
	local data
	data=$(judge_decide "$1" "$2" "$3")
	[ -z "$data" ] || printf '%s\n' "$data" | judge_text
}
