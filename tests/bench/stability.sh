#!/usr/bin/env bash
# make stability: how steady the kit's figures are. STABILITY_RUNS (5)
# identical runs of STABILITY_TESTS (every test) one after another against
# the test server that is set up (./start-ssh.sh first), with the
# settings of settings.conf and the environment. Prints, per metric: each
# run's figure, the spread (max / min), the verdicts seen, and how many of
# the pairs of runs `--compare` called a significant change; and per
# metric and pair, --compare's answer (its Significant column: a rank
# test or the two intervals, and the practical threshold; lib/compare.sh
# test_judge). Minutes, not part of make check; no assertions.
# The runs stay in STABILITY_DIR (a new temporary folder unless set).
# STABILITY_REUSE=yes makes no runs: it judges the runs already in
# STABILITY_DIR (1/, 2/, ...) again, with this kit's --compare (no root,
# no test server).
set -u
cd "$(dirname "$0")/../.." || exit 2
runs=${STABILITY_RUNS:-5}
tests=${STABILITY_TESTS:-}
case $runs in '' | *[!0-9]* | 0 | 1) echo "stability: STABILITY_RUNS must be a number of at least 2, not '$runs'" >&2; exit 2 ;; esac
reuse=${STABILITY_REUSE:-no}
if [ "$reuse" = yes ]; then
	[ -d "${STABILITY_DIR:-}/1" ] || { echo "stability: STABILITY_REUSE=yes needs STABILITY_DIR with the runs (1/, 2/, ...)" >&2; exit 2; }
else
	./start-ssh.sh status 2>/dev/null | grep -qx 'state=running' ||
		{ echo "stability: no test server runs (KIT_INSTANCE=${KIT_INSTANCE:-}); run ./start-ssh.sh first" >&2; exit 2; }
fi
dir=${STABILITY_DIR:-$(mktemp -d "${TMPDIR:-/tmp}/sshperf-stability.XXXXXX")}
mkdir -p "$dir"
if [ "$reuse" = yes ]; then
	printf '# the %s runs in %s, judged again\n' "$runs" "$dir"
else
	printf '# %s runs of %s in %s\n' "$runs" "${tests:-every test}" "$dir"
fi
list=()
for i in $(seq 1 "$runs"); do
	if [ "$reuse" = yes ]; then
		run=$(find "$dir/$i" -mindepth 1 -maxdepth 1 -type d | head -n 1)
		[ -n "$run" ] || { echo "stability: $dir/$i holds no run folder" >&2; exit 2; }
		list+=("$run")
		continue
	fi
	start=$(date +%s)
	# Each run in a results folder of its own: its one run folder.
	mkdir -p "$dir/$i"
	# shellcheck disable=SC2086 # a list of test names
	RESULTS_DIR="$dir/$i" ./test-ssh.sh -q $tests >"$dir/console-$i.txt" 2>&1
	rc=$?
	run=$(find "$dir/$i" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	[ -n "$run" ] || { echo "stability: run $i left no run folder (exit $rc; $dir/console-$i.txt)" >&2; exit 1; }
	list+=("$run")
	printf '# run %d: %s, exit %d, %d s\n' "$i" "$(basename "$run")" "$rc" "$(( $(date +%s) - start ))"
done

# The figures and verdicts, one row per metric and run (lib/kv.sh: the last
# value of a key wins).
table="$dir/figures.tsv"
printf 'metric\trun\tfigure\tunit\tstatus\n' >"$table"
for i in "${!list[@]}"; do
	for env in "${list[$i]}"/data/*.env; do
		name=$(basename "$env" .env)
		if ! grep -q '^status=' "$env" || ! grep -q '^figure=' "$env"; then continue; fi
		awk -F= -v m="$name" -v r="$((i + 1))" '
			{ v[$1] = substr($0, length($1) + 2) }
			END { printf "%s\t%s\t%s\t%s\t%s\n", m, r, v["figure"], v["unit"], v["status"] }' "$env"
	done
done >>"$table"

# --compare of every pair: its Change and Significant columns per metric.
changes="$dir/changes.tsv"
printf 'metric\tpair\tchange\tsignificant\n' >"$changes"
for ((i = 0; i < ${#list[@]}; i++)); do
	for ((j = i + 1; j < ${#list[@]}; j++)); do
		out=$(./test-ssh.sh --compare "${list[$i]}" "${list[$j]}" 2>/dev/null | tail -n 1)
		[ -f "$out" ] || continue
		awk -F'|' -v pair="$((i + 1))-$((j + 1))" '
			/^\| `[a-z]+` \|/ { m = $2; gsub(/[ `]/, "", m); c = $6; gsub(/^ +| +$/, "", c)
				j = $7; gsub(/^ +| +$/, "", j)
				printf "%s\t%s\t%s\t%s\n", m, pair, c, j }' "$out"
	done
done >>"$changes"

printf '\n| metric | figures | unit | max / min | verdicts | pairs called a change | not judged | Change better/worse (the answer before the Significant column) |\n|---|---|---|---:|---|---:|---:|---:|\n'
awk -F'\t' '
	FNR == 1 { next }
	FILENAME == ARGV[1] {
		if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
		fig[$1] = fig[$1] (fig[$1] == "" ? "" : ", ") ($3 == "" ? "-" : $3)
		unit[$1] = $4
		if ($3 != "" && $3 != "-") {
			if (!($1 in lo) || $3 + 0 < lo[$1]) lo[$1] = $3 + 0
			if (!($1 in hi) || $3 + 0 > hi[$1]) hi[$1] = $3 + 0
		}
		if (index(" " st[$1] " ", " " $5 " ") == 0) st[$1] = st[$1] (st[$1] == "" ? "" : " ") $5
		next
	}
	{
		pairs[$1]++
		# Only "significantly better/worse" is a change; a row without
		# the Significant column (a kit before it) counts its Change.
		if ($4 == "" ? ($3 ~ /better|worse/) : ($4 ~ /^significantly/)) called[$1]++
		if ($4 ~ /not judged/) unjudged[$1]++
		if ($3 ~ /better|worse/) before[$1]++
	}
	END {
		for (i = 1; i <= n; i++) {
			m = order[i]
			spread = (m in lo && lo[m] > 0) ? sprintf("%.2f", hi[m] / lo[m]) : "-"
			printf "| %s | %s | %s | %s | %s | %d of %d | %d | %d |\n", m, fig[m], unit[m], spread, st[m], called[m] + 0, pairs[m] + 0, unjudged[m] + 0, before[m] + 0
			tc += called[m]; tp += pairs[m]; tu += unjudged[m]; tb += before[m]
		}
		printf "\n(pair, metric) cells called a change: %d of %d (%.0f %%); not judged (no interval): %d; Change better/worse: %d\n", tc, tp, tp ? 100 * tc / tp : 0, tu, tb
	}' "$table" "$changes"
printf '\nPer pair: %s\n' "$changes"
