# shellcheck shell=bash
# Comparing runs, the metric's side: which way is better, the change of a
# figure between two runs, the thresholds and the registry's between-run
# noise and client columns (lib/metrics.tab). Sourced by lib/compare.sh.

# metric_direction RUN_DIR TEST -> "lower" or "higher" (which way is better).
# The test's own `direction` key wins; else its target_op ("<=": lower is
# better, ">=": higher); else the registry's (lib/metrics.tab).
metric_direction () {
	local metric_direction_d
	metric_direction_to metric_direction_d "$@"
	printf '%s' "$metric_direction_d"
}

# metric_direction_to VAR RUN_DIR TEST: metric_direction into VAR (no
# $(...), a fork).
metric_direction_to () {
	local md_env="$2/data/$3.env" md_d md_op
	kv_read md_d "$md_env" direction
	case $md_d in lower | higher) printf -v "$1" '%s' "$md_d"; return ;; esac
	kv_read md_op "$md_env" target_op
	case $md_op in
	'<=') printf -v "$1" lower; return ;;
	'>=') printf -v "$1" higher; return ;;
	esac
	printf -v "$1" '%s' "${METRIC_DIRECTION[$3]:-lower}"
}

# is_number VALUE: a plain decimal number (what the tests write).
is_number () {
	local re='^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$'
	# In the shell (no fork) for one line; grep takes each line of more.
	case $1 in
	*$'\n'*) printf '%s' "$1" | grep -Eqx -- '-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?' ;;
	*) [[ $1 =~ $re ]] ;;
	esac
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
# shellcheck disable=SC2034 # read by lib/compare/words.sh
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

# client_keys TEST: the two keys of TEST's data file the registry's
# client column names ("RATIO CLIENT": sshd's figure over the ssh
# clients' in the same seconds, and the clients' own), or nothing.
client_keys () {
	local k=${METRIC_CLIENT[$1]:-}
	case $k in '' | - | *,*,* | ,* | *,) return 0 ;; *,*) printf '%s %s' "${k%,*}" "${k#*,}" ;; esac
}
