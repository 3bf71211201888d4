# shellcheck shell=bash
# Repeated runs (REPEAT=N, docs/data.md "The headline figure, its
# interval, its parts, its repeats"): the rounds of one run and the one
# figure per test they give. Sourced by test-ssh.sh.
#
#   repeat_round_dir K   RUN_DIR/rounds/K: round K's own data/ and raw/,
#                        made with the run's description files
#                        (run.env, environment.env, settings.env) copied in
#   repeat_combine TEST... the run's data/TEST.env from the rounds: the data
#                        file of the round whose figure is the median
#                        (the first such; its details, its raw files
#                        copied to raw/), with figure = the median of the
#                        measured rounds (nearest rank, so one round's
#                        figure: of 4, the 2nd smallest) and its 95 %
#                        interval from order statistics, both from
#                        sshperf-rank interval, figure_n = the rounds
#                        measured, figure_method = repeat, the verdict
#                        judged again on that median (repeat_judge) and
#                        verdict_from saying how; and
#                        raw/repeat-figures.tsv, every round's figure.

# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

# raw/repeat-figures.tsv: one row per round and test.
REPEAT_FIGURES_COLUMNS="round test figure figure_lo figure_hi status"

repeat_round_dir () {
	local dir="$RUN_DIR/rounds/$1" f
	mkdir -p "$dir/data" "$dir/raw" || return 1
	for f in run.env environment.env settings.env; do
		[ ! -f "$RUN_DIR/data/$f" ] || cp "$RUN_DIR/data/$f" "$dir/data/$f"
	done
	printf '%s\n' "$dir"
}

# repeat_table: raw/repeat-figures.tsv of the rounds made so far.
repeat_table () {
	local k t env
	declare -A row
	{
		tsv_header "$REPEAT_FIGURES_COLUMNS"
		for k in $(repeat_rounds); do
			for t in "$@"; do
				env="$RUN_DIR/rounds/$k/data/$t.env"
				[ -f "$env" ] || continue
				# shellcheck disable=SC2034 # read by tsv_row
				row=([round]="$k" [test]="$t" [figure]="$(kv_get "$env" figure)"
					[figure_lo]="$(kv_get "$env" figure_lo)" [figure_hi]="$(kv_get "$env" figure_hi)"
					[status]="$(kv_get "$env" status)")
				tsv_row row "$REPEAT_FIGURES_COLUMNS"
			done
		done
	} >"$RUN_DIR/raw/repeat-figures.tsv"
}

# repeat_rounds: the round numbers there are, in order.
repeat_rounds () {
	local d
	for d in "$RUN_DIR"/rounds/*/; do
		[ -d "$d" ] || continue
		d=${d%/}
		printf '%s\n' "${d##*/}"
	done | sort -n
}

repeat_combine () {
	local t figs median pick env lo hi n k out
	repeat_table "$@"
	for t in "$@"; do
		# The measured rounds' figures: "round figure" lines.
		figs=$(tsv_select "$RUN_DIR/raw/repeat-figures.tsv" round test figure status |
			awk -F'\t' -v t="$t" '$2 == t && $4 ~ /^(PASS|FAIL|INCONCLUSIVE)$/ &&
				$3 ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ { print $1, $3 }')
		if [ -z "$figs" ]; then
			# Nothing measured: the last round's result says why.
			pick=$(tsv_select "$RUN_DIR/raw/repeat-figures.tsv" round test |
				awk -F'\t' -v t="$t" '$2 == t { k = $1 } END { print k }')
			[ -z "$pick" ] || repeat_take "$t" "$pick"
			continue
		fi
		# The median and its interval, by the kit's one definition
		# (nearest rank: one of the rounds' figures).
		out=$(printf '%s\n' "$figs" | awk '{ print $2 }' | stats_rank interval)
		median=$(printf '%s\n' "$out" | sed -n 's/^p50=//p')
		pick=$(printf '%s\n' "$figs" | awk -v m="$median" '
			{ d = $2 - m; if (d < 0) d = -d; if (best == "" || d < bd) { best = $1; bd = d } }
			END { print best }')
		repeat_take "$t" "$pick"
		env="$DATA_DIR/$t.env"
		lo=$(printf '%s\n' "$out" | sed -n 's/^p50_lo=//p')
		hi=$(printf '%s\n' "$out" | sed -n 's/^p50_hi=//p')
		n=$(printf '%s\n' "$figs" | wc -l)
		kv_set "$env" figure "$median"
		kv_set "$env" figure_lo "${lo:--}"
		kv_set "$env" figure_hi "${hi:--}"
		kv_set "$env" figure_n "$n"
		kv_set "$env" figure_method repeat
		if [ -z "$lo" ] || [ -z "$hi" ]; then
			kv_set "$env" figure_interval_note "$n rounds are too few for a 95 % interval of their median (it needs 6)"
		fi
		repeat_judge "$t" "$n" "${lo:--}" "${hi:--}"
		k=$(printf '%s\n' "$figs" | awk '{ printf "%s%s", (NR > 1 ? ", " : ""), $2 }')
		kv_set "$env" summary "median of $n rounds ($k $(kv_get "$env" unit); verdicts $(repeat_verdicts "$t")), details of round $pick: $(kv_get "$env" summary)"
	done
}

# repeat_take TEST K: round K's data file of TEST (and the probes' it
# used) and its raw files become the run's.
repeat_take () {
	local t=$1 dir="$RUN_DIR/rounds/$2" f p
	cp "$dir/data/$t.env" "$DATA_DIR/$t.env"
	for p in ${METRIC_USES[$t]//,/ }; do
		[ "$p" != - ] || continue
		[ ! -f "$dir/data/probe-$p.env" ] || cp "$dir/data/probe-$p.env" "$DATA_DIR/"
		for f in "$dir/raw/probe-$p-"* "$dir/raw/probe-$p."*; do
			[ ! -e "$f" ] || cp -R "$f" "$RAW_DIR/"
		done
	done
	for f in "$dir/raw/$t-"* "$dir/raw/$t."*; do
		[ ! -e "$f" ] || cp -R "$f" "$RAW_DIR/"
	done
}

# repeat_verdicts TEST: "PASS 4, FAIL 1": the rounds' verdicts counted.
repeat_verdicts () {
	tsv_select "$RUN_DIR/raw/repeat-figures.tsv" test status |
		awk -F'\t' -v t="$1" '$1 == t { if (!($2 in c)) o[++n] = $2; c[$2]++ }
			END { for (i = 1; i <= n; i++) printf "%s%s %d", (i > 1 ? ", " : ""), o[i], c[o[i]] }'
}

# round_basis K TEST: "figure" when round K's verdict of TEST is what its
# own figure (its interval, when it had one) gives against the target, as
# result_verdict decides it; "other" when something else decided it (a
# failed login, a second target, a driver that ran out of CPU, an ERROR).
round_basis () {
	local env="$RUN_DIR/rounds/$1/data/$2.env" status fig lo hi want
	status=$(kv_get "$env" status)
	fig=$(kv_get "$env" figure) lo=$(kv_get "$env" figure_lo) hi=$(kv_get "$env" figure_hi)
	if [ -z "$fig" ] || [ "$fig" = - ] || { [ "${lo:--}" = - ] && [ "${hi:--}" = - ]; } ||
		[ "$(kv_get "$env" figure_method)" = model ]; then
		want=$(verdict "$fig" "$(kv_get "$env" target_op)" "$(kv_get "$env" target)")
	else
		want=$(interval_verdict "${lo:--}" "${hi:--}" "$(kv_get "$env" target_op)" "$(kv_get "$env" target)" "$(verdict_margin)")
		case $want in HOLDS | NEAR) want=INCONCLUSIVE ;; esac
	fi
	if [ "$status" = "$want" ]; then printf figure; else printf other; fi
}

# repeat_judge TEST N LO HI: the run's verdict of TEST from its N measured
# rounds, in data/TEST.env (status, reason, verdict_from):
# - a round that FAILed or was an ERROR for another reason than its
#   figure decides it (a failure is never hidden behind a median);
# - else with both bounds of the median's 95 % interval (6 rounds or
#   more), the interval against the target, as result_verdict judges one
#   run but without its margin (VERDICT_MARGIN_PCT: the rounds hold the
#   run-to-run noise it stands for): PASS, FAIL, or INCONCLUSIVE when it
#   holds the target;
# - else there is no interval: the rounds' own verdicts when they all
#   agree, INCONCLUSIVE when they do not.
repeat_judge () {
	local t=$1 n=$2 lo=$3 hi=$4 env="$DATA_DIR/$1.env" k s target op unit median status reason from more action=""
	target=$(kv_get "$env" target) op=$(kv_get "$env" target_op) unit=$(kv_get "$env" unit)
	case $op in '<=' | '>=') ;; *) return 0 ;; esac
	for s in FAIL ERROR; do
		for k in $(repeat_rounds); do
			[ "$(kv_get "$RUN_DIR/rounds/$k/data/$t.env" status)" = "$s" ] || continue
			[ "$(round_basis "$k" "$t")" = other ] || continue
			kv_set "$env" status "$s"
			kv_set "$env" reason "round $k: $(kv_get "$RUN_DIR/rounds/$k/data/$t.env" reason)"
			kv_set "$env" action "$(kv_get "$RUN_DIR/rounds/$k/data/$t.env" action)"
			kv_set "$env" verdict_from "round $k's $s for another reason than its figure; a failure in any round is the run's"
			return 0
		done
	done
	median=$(kv_get "$env" figure)
	if [ "$lo" != - ] && [ "$hi" != - ]; then
		status=$(interval_verdict "$lo" "$hi" "$op" "$target")
		from="the 95 % interval of the median of $n rounds ($lo-$hi $unit) against the target"
		case $status in
		PASS) reason="" ;;
		FAIL) reason="the 95 % interval of the median of $n rounds, $lo-$hi $unit, is $([ "$op" = '<=' ] && echo above || echo below) the target $target $unit"
			action=$(repeat_round_action "$t") ;;
		*)
			status=INCONCLUSIVE
			more=$(noise_samples "$n" "$lo" "$hi" "$median" "$target" 0)
			reason="within the noise of the target (interval $lo-$hi of the median of $n rounds, target $target); $(
				if [ "$more" -le 20 ]; then printf 'REPEAT=%s would decide it' "$more"
				else printf 'even REPEAT=20, the most, may not decide it'; fi)"
			if [ "$more" -le 20 ]; then action=$(noise_action REPEAT "$more")
			else action="Accept the figure as on the target: even 20 runs, the most, may not tell it from the target"; fi
			;;
		esac
	else
		status=$(tsv_select "$RUN_DIR/raw/repeat-figures.tsv" test status |
			awk -F'\t' -v t="$t" '$1 == t && $2 ~ /^(PASS|FAIL|INCONCLUSIVE)$/ { s[$2] = 1 }
				END { n = 0; for (k in s) { n++; v = k } print (n == 1 ? v : "mixed") }')
		from="$n rounds are too few for a 95 % interval of their median (it needs 6)"
		if [ "$status" = mixed ]; then
			status=INCONCLUSIVE
			reason="the $n rounds disagree ($(repeat_verdicts "$t")), and $n rounds are too few for a 95 % interval of their median; REPEAT=6 would give one"
			action=$(noise_action REPEAT 6)
			from="$from: the rounds' own verdicts, which disagree"
		else
			reason=$(kv_get "$env" reason)
			[ "$status" = PASS ] && reason="" || reason="every one of the $n rounds: $reason"
			[ "$status" = PASS ] || action=$(repeat_round_action "$t")
			from="$from: the rounds' own verdicts, which agree"
		fi
	fi
	kv_set "$env" status "$status"
	kv_set "$env" reason "$reason"
	kv_set "$env" action "$action"
	kv_set "$env" verdict_from "$from"
}

# repeat_round_action TEST: the action the last round that recorded one
# gave TEST (the rounds measure the same thing: their actions agree).
repeat_round_action () {
	local k a="" b
	for k in $(repeat_rounds); do
		b=$(kv_get "$RUN_DIR/rounds/$k/data/$1.env" action)
		[ -z "$b" ] || a=$b
	done
	printf '%s' "$a"
}
