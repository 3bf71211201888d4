# shellcheck shell=bash disable=SC2016
# (SC2016: backticks are markdown.)
# Comparing runs, the report: `test-ssh.sh --compare A B` as markdown, one
# row per metric with its decision in words (lib/compare/words.sh), and
# the decisions themselves as a table (compare-RUN.tsv, docs/data.md).
# Sourced by lib/compare.sh.

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

# The decisions' table (docs/data.md, compare-RUN.tsv): judge_decide's
# keys, one row per metric it judged.
COMPARE_COLUMNS="test word rule how unit p shift shift_lo shift_hi median_a median_b n_a n_b near near_pct threshold floor noise whole part own_moved own_p own_shift own_shift_lo own_shift_hi own_median_a own_near_pct over_moved over_p over_shift over_shift_lo over_shift_hi over_median_a over_near_pct outside_moved phase change_pct intervals apart gap_pct"

# compare_report A B [TSV]: the comparison report (markdown) of two runs
# on stdout; with TSV, the decisions of its Significant column written
# there as a table (COMPARE_COLUMNS).
compare_report () {
	local a="$1" b="$2" tsv="${3:-}" name ea eb fa fb unit label change judged dir sa sb note data line
	local ba bb
	local -A cmp_row
	[ -z "$tsv" ] || tsv_header "$COMPARE_COLUMNS" >"$tsv" || return 1
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
		data=$(judge_decide "$a" "$b" "$name")
		judged=""
		if [ -n "$data" ]; then
			judged=$(printf '%s\n' "$data" | judge_text)
			if [ -n "$tsv" ]; then
				cmp_row=()
				# shellcheck disable=SC2034 # tsv_row reads it by name
				while IFS= read -r line; do cmp_row[${line%%=*}]=${line#*=}; done <<<"$data"
				tsv_row cmp_row "$COMPARE_COLUMNS" >>"$tsv"
			fi
		fi
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
	compare_distances "$a" "$b"	# the figures at each distance (lib/compare/distance.sh)
}
