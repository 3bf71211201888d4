#!/usr/bin/env bash
# Verdicts against the interval on the real test server: login, session
# and interactive record the 95 % interval of their figure (order
# statistics of their raw samples), the report shows it, and borderline
# targets (each set to the figure just measured) give INCONCLUSIVE for
# noise or a verdict decided after the extra stages, never a PASS that
# its own interval does not back; the host as before.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

host_kit_test 'login session interactive with intervals'
export LOGIN_SAMPLES=8 SESSION_COMMANDS=40 ECHO_COUNT=100 ECHO_RATE=200 RESULTS_DIR="$TEST_TMP/results"
mkdir -p "$RESULTS_DIR"

test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

host_snapshot_save

# v FILE KEY: a key of a data file.
v () {
	kv_get "$1" "$2"
}

test_expect 'the test server starts' '
	"$KIT_DIR/start-ssh.sh" -q >/dev/null
'

test_expect 'test-ssh.sh login session interactive writes a report' '
	{ "$KIT_DIR/test-ssh.sh" login session interactive >"$TEST_TMP/run.out" 2>&1 || true; } &&
	run=$(dirname "$(tail -n 1 "$TEST_TMP/run.out")") &&
	[ -f "$run/report.md" ] && printf "%s\n" "$run" >"$TEST_TMP/run"
'
RUN=$(cat "$TEST_TMP/run" 2>/dev/null || echo /nonexistent)
export RUN

# Each interval comes from its own raw samples: the bounds are samples of
# the named column, lo <= figure (<= hi when there is one), and n is the
# count of samples.
test_expect 'the intervals are in data/*.env, taken from the raw samples they name' '
	for t in login session interactive; do
		f="$RUN/data/$t.env"
		test_eq "$(v "$f" figure_method)" order &&
		set -- $(v "$f" figure_samples) &&
		[ -f "$RUN/$1" ] &&
		lo=$(v "$f" figure_lo) hi=$(v "$f" figure_hi) fig=$(v "$f" figure) n=$(v "$f" figure_n) &&
		[ "$n" -ge 8 ] &&
		tsv_select "$RUN/$1" "$2" | awk -v lo="$lo" "\$1 + 0 == lo + 0 { f = 1 } END { exit !f }" ||
			{ echo "$t: figure_lo $lo is not a sample of $*"; return 1; }
		awk -v lo="$lo" -v hi="$hi" -v f="$fig" "BEGIN { exit !(lo + 0 <= f + 0 && (hi == \"-\" || f + 0 <= hi + 0)) }" ||
			{ echo "$t: $lo <= $fig <= $hi does not hold"; return 1; }
		[ "$hi" != - ] || [ -n "$(v "$f" figure_interval_note)" ] || { echo "$t: no upper bound and no note"; return 1; }
	done &&
	test_eq "$(v "$RUN/data/login.env" samples_final)" "$(awk -F"\t" "NR > 1 && \$2 == \"ok\"" "$RUN/raw/login-samples.tsv" | wc -l)"
'

test_expect 'the summary shows the interval next to each figure' '
	grep -E "^\| [0-9]+ \| \[Login time\]\(#login\) \(\`login\`\) \| [0-9.]+ ms \[[0-9.]+-([0-9.]+|\?), n=[0-9]+\] " "$RUN/report.md" &&
	grep -E "\(\`session\`\) \| [0-9.]+ ms \[[0-9.]+-([0-9.]+|\?), n=[0-9]+\] " "$RUN/report.md" &&
	grep -E "^\*\*Figure:\*\* [0-9.]+ ms, 95 % interval \[" "$RUN/report.md"
'

# The figures just measured as the targets: the interval holds them, so
# the stages run (login 8, then 32 = 4x LOGIN_SAMPLES, the cap; session
# 40, 80, 160 commands; interactive 100, 368, 400 keystrokes); then
# either the interval left the target (a decided verdict that the
# interval backs) or INCONCLUSIVE with the reason naming the interval and
# the setting. One run for the three.
test_expect 'borderline targets: stages, then INCONCLUSIVE or a verdict its interval backs' '
	t=$(v "$RUN/data/login.env" figure) ts=$(v "$RUN/data/session.env" figure) ti=$(v "$RUN/data/interactive.env" figure) &&
	m=$(sed -n "s/^VERDICT_MARGIN_PCT=//p" "$KIT_DIR/settings.conf") && [ -n "$m" ] &&
	rc=0; TARGET_LOGIN_P95_MS=$t TARGET_SESSION_P95_MS=$ts TARGET_ECHO_P99_MS=$ti \
		"$KIT_DIR/test-ssh.sh" -q login session interactive >"$TEST_TMP/border.out" 2>&1 || rc=$? &&
	dir="$(dirname "$(tail -n 1 "$TEST_TMP/border.out")")/data" &&
	printf "%s\n" "$dir" >"$TEST_TMP/border" &&
	for c in "login $t 8 32 LOGIN_SAMPLES" "session $ts 40 160 SESSION_COMMANDS" "interactive $ti 100 400 ECHO_COUNT"; do
		set -- $c &&
		f="$dir/$1.env" &&
		s=$(v "$f" status) lo=$(v "$f" figure_lo) hi=$(v "$f" figure_hi) &&
		stages=$(v "$f" stages) final=$(v "$f" samples_final) &&
		echo "$1, target $2: $s, interval $lo-$hi, $stages stages, $final samples" &&
		[ "$stages" -ge 1 ] && [ "$stages" -le 3 ] && [ "$final" -ge "$3" ] && [ "$final" -le "$4" ] &&
		# One stage only when the first interval already left the target:
		# beyond the margin (FAIL) or within it (the run-to-run noise; a
		# slower machine than the run that set the target).
		{ [ "$s" = FAIL ] || [ "$stages" -ge 2 ] || { v "$f" reason >reason && test_grep "^within the run-to-run noise" reason; }; } &&
		test_eq "$(v "$f" figure_n)" "$final" || return 1
		# With VERDICT_MARGIN_PCT (m): PASS and FAIL need the interval
		# m % clear of the target too; closer is the run-to-run noise.
		case $s in
		INCONCLUSIVE)
			{ test_eq "$final" "$4" &&
			  v "$f" reason | grep -E "^within the noise of the target \(interval [0-9.]+-([0-9.]+|no upper bound), target $2\); ($5=[0-9]+ would decide it|($5=[0-9]+ would be needed to decide it, [0-9]+ times the setting, more than one run should take: )?REPEAT=6 would judge the median of 6 runs instead)$"; } ||
			v "$f" reason | grep -E "^within the run-to-run noise of the target \(interval (no lower bound|[0-9.]+)-([0-9.]+|no upper bound), target $2: one run decides only when its interval is also $m % clear of the target, [0-9.]+-[0-9.]+, VERDICT_MARGIN_PCT\); ($5=[0-9]+ would decide it|($5=[0-9]+ would be needed to decide it, [0-9]+ times the setting, more than one run should take: )?REPEAT=6 would judge the median of 6 runs instead)$" ;;
		PASS) [ "$hi" != - ] && awk -v h="$hi" -v t="$2" -v m="$m" "BEGIN { exit !(h <= t * (1 - m / 100)) }" ;;
		FAIL) awk -v l="$lo" -v t="$2" -v m="$m" "BEGIN { exit !(l > t * (1 + m / 100)) }" || { v "$f" reason >reason && test_grep ! "is above the target" reason; } ;;
		*) echo "status $s"; false ;;
		esac || return 1
	done
'

# A FAIL's reason says the figure as the report prints it (one rounding
# per unit, lib/units.sh), not with the 3 decimals of the data.
test_expect 'a target far below the figure: FAIL, its reason with the figure in tenths, as the report' '
	rc=0; TARGET_LOGIN_P95_MS=1 TARGET_SESSION_P95_MS=1 \
		"$KIT_DIR/test-ssh.sh" -q login session >"$TEST_TMP/low.out" 2>&1 || rc=$? &&
	test_eq "$rc" 1 &&
	run=$(dirname "$(tail -n 1 "$TEST_TMP/low.out")") &&
	for t in login session; do
		test_kv "$run/data/$t.env" status FAIL &&
		p95=$(printf "%.1f" "$(v "$run/data/$t.env" figure)") &&
		test_eq "$(v "$run/data/$t.env" reason)" "p95 $p95 ms is above the target of 1 ms" &&
		test_grep -F "(seen: p95 $p95 ms is above the target of 1 ms)" "$run/report.md" || return 1
	done
'

# The stages append to the same raw table, numbered on (session from 1,
# the echo from 0), and the figure and its interval are over all of it.
test_expect 'the staged samples are in the raw tables the intervals name' '
	dir=$(cat "$TEST_TMP/border") &&
	for c in "session raw/session-commands.tsv seq $SESSION_COMMANDS" "interactive raw/interactive-libssh.tsv seq $ECHO_COUNT"; do
		set -- $c &&
		f="$dir/$1.env" &&
		tsv="$(dirname "$dir")/$2" &&
		n=$(( $(wc -l <"$tsv") - 1 )) &&
		echo "$1: $n rows in $2, $(v "$f" stages) stages, $(v "$f" samples_final) samples" &&
		test_eq "$(tsv_select "$tsv" "$3" | sort -n | uniq | wc -l)" "$n" &&
		test_eq "$(tsv_select "$tsv" "$3" | sort -n | sed -n "1p;\$p" | paste -sd" " | awk "{ print \$2 - \$1 + 1 }")" "$n" &&
		{ [ "$(v "$f" stages)" -le 1 ] || [ "$(v "$f" samples_final)" -gt "$4" ] ||
			{ echo "$1: $(v "$f" stages) stages but no more samples than the first stage ($4)"; false; }; } || return 1
	done
'

test_expect 'the host is as before after cleanup' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged
'

test_done
