#!/usr/bin/env bash
# Verdicts against the interval on the real test server: login, session
# and interactive record the 95 % interval of their figure (order
# statistics of their raw samples), the report shows it, and a borderline
# target (TARGET_LOGIN_P95_MS set to the p95 just measured) gives
# INCONCLUSIVE for noise or a verdict decided after the extra stages,
# never a PASS that its own interval does not back; the host as before.
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

# The p95 just measured as the target: the interval holds it, so the
# stages run (8, then 32 = 4x LOGIN_SAMPLES, the cap); then either the interval left the
# target (a decided verdict that the interval backs) or INCONCLUSIVE
# with the reason naming the interval and the sample count.
test_expect 'a borderline login target: stages, then INCONCLUSIVE or a verdict its interval backs' '
	t=$(v "$RUN/data/login.env" figure) &&
	rc=0; TARGET_LOGIN_P95_MS=$t "$KIT_DIR/test-ssh.sh" -q login >"$TEST_TMP/border.out" 2>&1 || rc=$? &&
	f="$(dirname "$(tail -n 1 "$TEST_TMP/border.out")")/data/login.env" &&
	s=$(v "$f" status) lo=$(v "$f" figure_lo) hi=$(v "$f" figure_hi) &&
	stages=$(v "$f" stages) final=$(v "$f" samples_final) &&
	echo "target $t: $s, interval $lo-$hi, $stages stages, $final samples" &&
	[ "$stages" -ge 1 ] && [ "$stages" -le 3 ] && [ "$final" -ge 8 ] && [ "$final" -le 32 ] &&
	{ [ "$s" = FAIL ] || [ "$stages" -ge 2 ]; } &&
	test_eq "$(v "$f" figure_n)" "$final" &&
	case $s in
	INCONCLUSIVE)
		test_eq "$final" 32 &&
		v "$f" reason | grep -E "^within the noise of the target \(interval [0-9.]+-([0-9.]+|no upper bound), target $t\); LOGIN_SAMPLES=[0-9]+ would decide it$" ;;
	PASS) [ "$hi" != - ] && awk -v h="$hi" -v t="$t" "BEGIN { exit !(h <= t) }" ;;
	FAIL) awk -v l="$lo" -v t="$t" "BEGIN { exit !(l > t) }" ;;
	*) echo "status $s"; false ;;
	esac
'

test_expect 'the host is as before after cleanup' '
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null &&
	host_unchanged
'

test_done
