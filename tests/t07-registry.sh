#!/usr/bin/env bash
# The metric registry (lib/metrics.tab, read by lib/registry.sh): one
# line per metric, each with its measure and report file and nothing
# else listing them; the report's summary takes its order, titles and
# references from it, and --compare its directions. Needs no root.
. "$(dirname "$0")/lib/harness.sh"
export LC_ALL=C.UTF-8
TAB="$KIT_DIR/lib/metrics.tab"

# The registry's rows without comments and header: name direction uses compares needs noise client title reference.
rows () {
	awk -F'\t' '!/^#/ && NF && $1 != "name"' "$TAB"
}

test_expect 'every line has 9 tab-separated fields, a known direction, known probes, known tests to compare, known needs, a noise that is a percentage or - and a client of two keys or -' '
	[ "$(rows | wc -l)" -eq 14 ] &&
	rows | awk -F"\t" "NF != 9 || (\$6 != \"-\" && \$6 !~ /^[1-9][0-9]*\$/) || (\$7 != \"-\" && \$7 !~ /^[a-z0-9_]+,[a-z0-9_]+\$/) || (\$2 != \"lower\" && \$2 != \"higher\") { print; bad = 1 } END { exit bad }" &&
	names=" $(rows | cut -f1 | tr "\n" " ")" &&
	rows | cut -f3 | tr "," "\n" | grep -vx -- - | while read -r u; do
		[ -f "$KIT_DIR/lib/probes/$u.sh" ] || { echo "unknown probe $u"; return 1; }
	done &&
	rows | cut -f4 | tr "," "\n" | grep -vx -- - | while read -r u; do
		case $names in *" $u "*) ;; *) echo "unknown test to compare $u"; return 1 ;; esac
	done &&
	rows | cut -f5 | tr "," "\n" | grep -vx -- - | while read -r u; do
		case $u in restarts-server | password | precheck | distance-rate | distance-burst) ;; *) echo "unknown need $u"; return 1 ;; esac
	done
'

test_expect 'the header is the one docs/data.md declares' '
	grep -x "name	direction	uses	compares	needs	noise	client	title	reference" "$TAB" &&
	sed -n "/^### lib\/metrics.tab\$/,/^## [A-Z]/p" "$KIT_DIR/docs/data.md" | grep -A1 "^...tab\$" | tail -n 1 >doc &&
	echo "name direction uses compares needs noise client title reference" >want && test_cmp want doc
'

# test-ssh.sh does what a metric needs from the registry, never by name:
# no branch for one metric, and each precheck the registry names exists.
test_expect 'test-ssh.sh has no branch for a single metric; every precheck exists' '
	names=$(rows | cut -f1 | paste -sd"|" -) &&
	! grep -nE "(\"|[ (*])($names)(\"|[ )*])" "$KIT_DIR/test-ssh.sh" | grep -v "^[0-9]*:[[:space:]]*#" &&
	rows | awk -F"\t" "\$5 ~ /(^|,)precheck(,|\$)/ { print \$1 }" | while read -r n; do
		grep -q "^precheck_$n () {" "$KIT_DIR/lib/metrics/$n.sh" || { echo "$n: no precheck_$n"; return 1; }
	done
'

test_expect 'each probe defines about_probe_NAME and probe_NAME and is used by a test' '
	for f in "$KIT_DIR"/lib/probes/*.sh; do
		n=$(basename "$f" .sh) &&
		test_grep "^about_probe_$n () {" "$f" && test_grep "^probe_$n () {" "$f" &&
		rows | cut -f3 | tr "," "\n" | grep -qx "$n" || { echo "$f"; return 1; }
	done
'

# No sideways reads: a test sources no other test, reads no other test s
# data (result_get OTHER, data/OTHER.env) and only the outputs of the
# probes it names; a report section reads another test (`t OTHER`, or
# the run's data table `D[OTHER|KEY]` of lib/bin/render.sh) only through
# `compared`, for the tests its compares column lists.
test_expect 'no test reads another test; each reads only the probes it names' '
	names=$(rows | cut -f1) &&
	rows | while IFS="	" read -r n _ uses _; do
		f="$KIT_DIR/lib/metrics/$n.sh"
		! grep -n "lib/metrics/" "$f" || { echo "$n sources a test"; return 1; }
		for o in $names; do
			[ "$o" != "$n" ] || continue
			! grep -nE "result_(get|set|or_dash|import) $o |DATA_DIR/$o\.env|data/$o\.env" "$f" || { echo "$n reads $o"; return 1; }
		done
		for p in $(grep -o "probe-[a-z]*" "$f" | sort -u); do
			case ",$uses," in *",${p#probe-},"*) ;; *) echo "$n reads $p, not in its uses"; return 1 ;; esac
		done
	done
'

test_expect 'a report section reads another test only as its compares column says' '
	names=$(rows | cut -f1) &&
	rows | while IFS="	" read -r n _ _ compares _; do
		f="$KIT_DIR/lib/report/$n.sh"
		for o in $names; do
			[ "$o" != "$n" ] || continue
			! grep -nE "\<t $o |\<D\[$o[|]|DATA_DIR/$o\.env" "$f" || { echo "$n reads $o unseen"; return 1; }
			if grep -qE "compared $n $o " "$f"; then
				case ",$compares," in *",$o,"*) ;; *) echo "$n compares $o, not in its compares"; return 1 ;; esac
			fi
		done
	done
'

test_expect 'each metric has lib/metrics/NAME.sh and lib/report/NAME.sh, and each measure file a line' '
	rows | cut -f1 | while read -r n; do
		[ -f "$KIT_DIR/lib/metrics/$n.sh" ] && [ -f "$KIT_DIR/lib/report/$n.sh" ] || { echo "$n: a file is missing"; return 1; }
	done &&
	for f in "$KIT_DIR"/lib/metrics/*.sh; do
		n=$(basename "$f" .sh)
		rows | cut -f1 | grep -qx "$n" || { echo "$f is not in the registry"; return 1; }
	done
'

test_expect 'no other part of the kit writes the list of metrics out' '
	! grep -rnE "startup[[:space:]]+login[[:space:]]+auth[[:space:]]+rate" \
		"$KIT_DIR/lib" "$KIT_DIR/test-ssh.sh" "$KIT_DIR/start-ssh.sh" "$KIT_DIR/sshd-perf-kit"
'

test_expect 'registry.sh loads the names in order, titles, directions, needs, noise, client keys and references' '
	out=$(KIT_DIR="$KIT_DIR" bash -c ". \"\$KIT_DIR/lib/registry.sh\"; printf \"%s\n\" \"\$METRICS\";
		for n in \$METRICS; do printf \"%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n\" \"\$n\" \"\${METRIC_DIRECTION[\$n]}\" \"\${METRIC_USES[\$n]}\" \"\${METRIC_COMPARES[\$n]}\" \"\${METRIC_NEEDS[\$n]}\" \"\${METRIC_NOISE[\$n]}\" \"\${METRIC_CLIENT[\$n]}\" \"\${METRIC_TITLE[\$n]}\" \"\${METRIC_REFERENCE[\$n]}\"; done") &&
	[ "$(printf "%s\n" "$out" | head -n 1)" = "$(rows | cut -f1 | tr "\n" " " | sed "s/ \$//")" ] &&
	printf "%s\n" "$out" | tail -n +2 >loaded && rows >want && test_cmp want loaded
'

test_expect 'a missing registry is one line and exit 2' '
	mkdir -p kit/lib && cp "$KIT_DIR/lib/registry.sh" kit/lib/ &&
	rc=0; KIT_DIR=$PWD/kit bash -c ". kit/lib/registry.sh" 2>err || rc=$? &&
	[ "$rc" -eq 2 ] && [ "$(wc -l <err)" -eq 1 ] && test_grep "metric registry .*metrics.tab is missing" err
'

# The golden report (tests/t80-render.sh keeps it equal to what the
# renderer writes for that recorded run).
test_expect 'the report lists the metrics in the registry order, with its titles and references' '
	r="$TEST_DIR/data/golden/2026-03-02_101500/report.md" &&
	grep -E "^\| [0-9]+ \| .*\(\`[a-z]+\`\) \| " "$r" | awk -F" \\\\| " "{ print \$2 }" | sed -E "s/^\[([^]]*)\]\(#[a-z]+\) \(\`([a-z]+)\`\)\$/\2\t\1/; s/^([^(]*) \(\`([a-z]+)\`\)\$/\2\t\1/" >got &&
	rows | cut -f1,8 >want && test_cmp want got &&
	rows | cut -f9 | while IFS= read -r ref; do grep -qF -- "| $ref |" "$r" || { echo "no reference: $ref"; return 1; }; done
'

test_expect 'the direction of a metric without a target is the registry s' '
	KIT_DIR="$KIT_DIR" bash -c ". \"\$KIT_DIR/lib/compare.sh\"; mkdir -p r/data; for n in \$METRICS; do printf \"%s %s\n\" \$n \$(metric_direction r \$n); done" >got &&
	rows | cut -f1,2 | tr "\t" " " >want && test_cmp want got
'

# The metric API (lib/measure.sh): the verdict keys come from
# result_verdict, result_status, result_fail and result_warn, so every
# test writes them the same way.
test_expect 'result_verdict, result_status, result_fail and result_warn write the verdict keys' '
	mkdir data &&
	DATA_DIR=$PWD/data bash -c ". \"$KIT_DIR/lib/data.sh\"; . \"$KIT_DIR/lib/measure.sh\"
		result_verdict over 250 \"<=\" 200 ms \"p95 of a login\" \"p95 over the target\"
		result_fail over \"the greeting too\"
		result_warn over \"busy\"; result_warn over \"slow clock\"
		result_verdict under 150 \"<=\" 200 ms \"p95 of a login\" \"p95 over the target\"
		result_verdict none \"\" \">=\" 10 MB/s \"slower direction\"
		result_status none SKIPPED \"no disk space\"" &&
	for t in over under none; do
		for k in figure unit figure_label target target_op status reason warning; do
			printf "%s %s=%s\n" "$t" "$k" "$(DATA_DIR=$PWD/data bash -c ". \"$KIT_DIR/lib/data.sh\"; kv_get data/$t.env $k")"
		done
	done >got &&
	cat >want <<-\EOF &&
	over figure=250
	over unit=ms
	over figure_label=p95 of a login
	over target=200
	over target_op=<=
	over status=FAIL
	over reason=p95 over the target; the greeting too
	over warning=busy; slow clock
	under figure=150
	under unit=ms
	under figure_label=p95 of a login
	under target=200
	under target_op=<=
	under status=PASS
	under reason=
	under warning=
	none figure=-
	none unit=MB/s
	none figure_label=slower direction
	none target=10
	none target_op=>=
	none status=SKIPPED
	none reason=no disk space
	none warning=
	EOF
	test_cmp want got
'

test_expect 'no test writes its status, reason or warning but through the metric API' '
	! grep -nE "result_set [a-z]+ (status|reason|warning) " "$KIT_DIR"/lib/metrics/*.sh
'

# Verdicts against the interval (result_interval, then result_verdict):
# real login p95 intervals from a default run, wholly below, wholly above
# and holding a target of 300 ms; a bound missing reaches to the end.
api () {
	DATA_DIR=$PWD/data HELPER_DIR="$KIT_DIR/build" bash -c ". \"$KIT_DIR/lib/data.sh\"
		helper () { local n=\$1; shift; \"\$HELPER_DIR/sshperf-\$n\" \"\$@\"; }
		. \"$KIT_DIR/lib/measure.sh\"; $1"
}
verdict_of () {
	printf "%s %s=%s\n" "$1" status "$(kv_get_t "$1" status)"
	printf "%s %s=%s\n" "$1" reason "$(kv_get_t "$1" reason)"
}
kv_get_t () {
	DATA_DIR=$PWD/data bash -c ". \"$KIT_DIR/lib/data.sh\"; kv_get data/$1.env $2"
}

test_expect 'result_verdict judges the interval: wholly below, wholly above, holding the target' '
	mkdir -p data &&
	api "result_interval below 229.1 251.0 120 order
		result_verdict below 240.4 \"<=\" 300 ms \"p95\" \"over\"
		result_interval above 378.1 412.9 30 order
		result_verdict above 401.4 \"<=\" 300 ms \"p95\" \"p95 over the target\"
		result_interval holds 288.0 312.5 120 order
		result_verdict holds 301.2 \"<=\" 300 ms \"p95\" \"over\"
		result_noise_hint holds LOGIN_SAMPLES \$(noise_samples 120 288.0 312.5 301.2 300)
		result_interval nohi 251.2 - 30 order
		result_verdict nohi 262.5 \"<=\" 300 ms \"p95\" \"over\"
		result_interval rate 41.0 47.5 6 steps
		result_verdict rate 44.1 \">=\" 45 logins/s \"knee\" \"under\"
		result_interval burst 10 10 5 model
		result_verdict burst 5 \">=\" 10 clients \"all in\" \"fewer\"" &&
	for t in below above holds nohi rate burst; do verdict_of $t; done >got &&
	cat >want <<-\EOF &&
	below status=PASS
	below reason=
	above status=FAIL
	above reason=p95 over the target
	holds status=INCONCLUSIVE
	holds reason=within the noise of the target (interval 288.0-312.5, target 300); LOGIN_SAMPLES=15007 would decide it
	nohi status=INCONCLUSIVE
	nohi reason=within the noise of the target (interval 251.2-no upper bound, target 300)
	rate status=INCONCLUSIVE
	rate reason=within the noise of the target (interval 41.0-47.5, target 45)
	burst status=FAIL
	burst reason=fewer
	EOF
	test_cmp want got
'

# VERDICT_MARGIN_PCT: one run decides only when its interval also clears
# the target by that share; closer is INCONCLUSIVE, with what would decide
# it: more samples when the figure is outside the margin, else REPEAT.
test_expect 'result_verdict with VERDICT_MARGIN_PCT: clear of the margin, within it, holding the target' '
	mkdir -p data &&
	api "declare -A SETTING=([VERDICT_MARGIN_PCT]=5)
		result_interval clear 270.0 284.9 120 order
		result_verdict clear 278.0 \"<=\" 300 ms \"p95\" \"over\"
		result_interval near 290.0 299.0 120 order
		result_verdict near 295.0 \"<=\" 300 ms \"p95\" \"over\"
		result_noise_hint near LOGIN_SAMPLES \$(noise_samples 120 290.0 299.0 295.0 300)
		result_interval farther 272.0 296.0 120 order
		result_verdict farther 280.0 \"<=\" 300 ms \"p95\" \"over\"
		result_noise_hint farther LOGIN_SAMPLES \$(noise_samples 120 272.0 296.0 280.0 300)
		result_interval over 306.0 330.0 120 order
		result_verdict over 320.0 \"<=\" 300 ms \"p95\" \"over\"
		result_interval fail 316.0 330.0 120 order
		result_verdict fail 320.0 \"<=\" 300 ms \"p95\" \"over\"
		result_interval rate 47.0 50.0 6 steps
		result_verdict rate 48.0 \">=\" 45 logins/s \"knee\" \"under\"" &&
	for t in clear near farther over fail rate; do verdict_of $t; done >got &&
	cat >want <<-\EOF &&
	clear status=PASS
	clear reason=
	near status=INCONCLUSIVE
	near reason=within the run-to-run noise of the target (interval 290.0-299.0, target 300: one run decides only when its interval is also 5 % clear of the target, 285-315, VERDICT_MARGIN_PCT); REPEAT=6 would judge the median of 6 runs instead
	farther status=INCONCLUSIVE
	farther reason=within the run-to-run noise of the target (interval 272.0-296.0, target 300: one run decides only when its interval is also 5 % clear of the target, 285-315, VERDICT_MARGIN_PCT); LOGIN_SAMPLES=830 would decide it
	over status=INCONCLUSIVE
	over reason=within the run-to-run noise of the target (interval 306.0-330.0, target 300: one run decides only when its interval is also 5 % clear of the target, 285-315, VERDICT_MARGIN_PCT)
	fail status=FAIL
	fail reason=over
	rate status=INCONCLUSIVE
	rate reason=within the run-to-run noise of the target (interval 47.0-50.0, target 45: one run decides only when its interval is also 5 % clear of the target, 42.75-47.25, VERDICT_MARGIN_PCT)
	EOF
	test_cmp want got
'

# What more samples would take is proposed only within NOISE_HINT_CAP
# times the setting: past it, repeated runs.
test_expect 'result_noise_hint: SETTING=N within 10 times the setting, REPEAT beyond it' '
	mkdir -p data &&
	api "declare -A SETTING=([LOGIN_SAMPLES]=30 [SFTP_FILE_MB]=1024)
		result_interval near 288.0 312.5 120 order
		result_verdict near 301.2 \"<=\" 300 ms \"p95\" \"over\"
		result_noise_hint near LOGIN_SAMPLES 300
		result_interval far 288.0 312.5 120 order
		result_verdict far 301.2 \"<=\" 300 ms \"p95\" \"over\"
		result_noise_hint far LOGIN_SAMPLES 301
		result_interval big 88.2 2038.2 16 chunks
		result_verdict big 174.5 \">=\" 100 MB/s \"slower direction\" \"under\"
		result_noise_hint big SFTP_FILE_MB 70196" &&
	for t in near far big; do verdict_of $t | sed -n "s/^[a-z]* reason=.*; //p"; done >got &&
	cat >want <<-\EOF &&
	LOGIN_SAMPLES=300 would decide it
	LOGIN_SAMPLES=301 would be needed to decide it, 10 times the setting, more than one run should take: REPEAT=6 would judge the median of 6 runs instead
	SFTP_FILE_MB=70196 would be needed to decide it, 68 times the setting, more than one run should take: REPEAT=6 would judge the median of 6 runs instead
	EOF
	test_cmp want got
'

test_expect 'result_interval_order: the ranks of sshperf-rank, and a note when n is too small for a bound' '
	mkdir -p data &&
	{ printf "sample\tstatus\ttotal_ms\n"; for i in $(seq 1 30); do printf "%d\tok\t%d\n" $i $((200 + i)); done
	  printf "31\tfailed\t9999\n"; } >s30.tsv &&
	{ printf "sample\tstatus\ttotal_ms\n"; for i in $(seq 1 120); do printf "%d\tok\t%d\n" $i $((200 + i)); done; } >s120.tsv &&
	api "result_interval_order a s30.tsv total_ms 95; result_interval_order b s120.tsv total_ms 95" &&
	for t in a b; do for k in figure_lo figure_hi figure_n figure_method figure_samples figure_interval_note; do
		printf "%s %s=%s\n" $t $k "$(kv_get_t $t $k)"; done; done >got &&
	cat >want <<-\EOF &&
	a figure_lo=226
	a figure_hi=-
	a figure_n=30
	a figure_method=order
	a figure_samples=raw/s30.tsv total_ms
	a figure_interval_note=30 samples are too few for a 95 % upper bound of the p95 (it needs at least 72)
	b figure_lo=309
	b figure_hi=319
	b figure_n=120
	b figure_method=order
	b figure_samples=raw/s120.tsv total_ms
	b figure_interval_note=
	EOF
	test_cmp want got
'

test_expect 'stage_plan: 1x, then 2x or the fewest samples with both bounds, then the cap of 4x' '
	mkdir -p data &&
	api "stage_plan 30 95; stage_plan 3 95; stage_plan 200 95; stage_plan 100 99" >got &&
	printf "30 72 120\n3 12\n200 400 800\n100 368 400\n" >want && test_cmp want got
'

test_expect 'the interval keys are written only through result_interval' '
	! grep -nE "result_set [a-z]+ (figure_lo|figure_hi|figure_n|figure_method|figure_samples|figure_interval_note) " "$KIT_DIR"/lib/metrics/*.sh
'

test_done
