#!/usr/bin/env bash
# One figure per quantity (issue 46, item 3): the stored full run
# (tests/data/fullrun, as t82 uses it) rendered once, then every figure
# of tests/data/figures.tab and the headline figure of every test (the
# summary's Result column and each section's Result line) read from
# report.md and report.html and checked against results.json, rounded by
# the one rule of its unit (docs/data.md, "Rounding";
# tests/lib/figures-check.py); and the charts against the tables.
# Each check names the case of the issue it holds to. Needs no root and
# no test server.
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"

FULL=2026-12-02_131316
RUN="$TEST_TMP/results/$FULL"
mkdir -p "$TEST_TMP/results"
cp -R "$TEST_DIR/data/fullrun/$FULL" "$RUN"
TAB=$TEST_DIR/data/figures.tab

# figures CASE...: the problems of those cases, none when all hold.
figures () {
	python3 "$TEST_DIR/lib/figures-check.py" "$RUN" "$TAB" "$@" >problems || true
	test_cmp /dev/null problems
}

test_expect 'the stored full run renders without a message' '
	"$KIT_DIR/lib/bin/render.sh" "$RUN" >out 2>err &&
	test_cmp /dev/null err &&
	test -s "$RUN/report.md" && test -s "$RUN/report.html" && test -s "$RUN/results.json"
'

test_expect 'the checker finds a figure that is not its key, rounded by its unit' '
	cp -R "$RUN" planted &&
	sed -i "s/^| Memory (MemAvailable) | [0-9]* MB before/| Memory (MemAvailable) | 24782 MB before/" planted/report.md &&
	sed -i "s/\*\*Result:\*\* [0-9.]* ms (p95 of the complete login)/**Result:** 401.403 ms (p95 of the complete login)/" planted/report.md &&
	! python3 "$TEST_DIR/lib/figures-check.py" planted "$TAB" sweep 6-memavailable >found &&
	test_grep -F "report.md: 6-memavailable: prints 24782 for tests.memory.mem_available_kb; results.json has 24202020, which rounds to 24783" found &&
	test_grep -F "report.md: sweep (Result line, ms): prints 401.403 for tests.login.figure; results.json has 401.403, which rounds to 401.4" found &&
	test_grep ! "report.html" found
'

test_expect 'sweep (case 4): the summary and every Result line print the headline figure by its unit' '
	figures sweep
'

test_expect 'case 6: one MemAvailable before the sessions, from its KiB, in whole MB' '
	figures 6-memavailable
'

test_expect 'case 7: the cores for 20 logins/s and 500 MB/s, one figure in cpu and capacity' '
	figures 7-cores
'

test_expect 'case 11: the processes per session of the test user and of the session in all' '
	figures 11-processes
'

test_expect 'case 12: the login-only connection.s sshd CPU, said in the cpu section beside the per-login figure' '
	figures 12-login-only
'

test_expect 'case 15: the specification.s 55 logins/s with 8 clients beside this run.s closed loop' '
	figures 15-reference
'

test_expect 'the knee, the closed loop and sshd CPU per login: one figure each wherever printed' '
	figures rate-knee closed-loop cpu-per-login
'

test_expect 'case 2 (consistent in the stored run) and the closed loop.s CPU shares: one figure each' '
	figures 2-password-gap 5-cpu-shares
'

test_expect 'memory per session: one figure, in hundredths of MB, wherever printed' '
	figures memory-per-session
'

test_expect 'sftp: the time per small file, in tenths of ms wherever printed' '
	figures sftp-ms-per-file
'

# The charts printed their own rounding (3 significant digits: 152 where
# the table has 152.4) and the raw figure in their bars' titles.
test_expect 'the charts: every value in the units of the tables, the login chart.s bars the login.s percentiles' '
	figures charts
'

# Case 13: the chart drew the ceilings of ciphers whose MAC OpenSSL could
# not time, that the table marks "not timed (too high)".
test_expect 'case 13: transfer-ciphers.svg draws no ceiling the table marks not timed' '
	tsv_select "$RUN/raw/transfer-ceiling.tsv" cipher mac_timed | awk -F"\t" "\$2 == \"no\" { print \$1 }" >untimed &&
	test -s untimed &&
	while read -r c; do
		test_grep -F "| \`$c\` |" "$RUN/report.md" &&
		test_grep ! -F "<title>$c single-core ceiling" "$RUN/charts/transfer-ciphers.svg" || return 1
	done <untimed &&
	test_grep -F "<title>chacha20-poly1305@openssh.com single-core ceiling (OpenSSL): 1749.6 MB/s</title>" "$RUN/charts/transfer-ciphers.svg"
'

# Cases 14, 1 and 3, on one copy of the stored run with the keys of a
# newer kit, as lib/metrics/burst.sh and lib/metrics/auth.sh write them
# (the stored run is older than both), rendered once:
# - 14: the burst's model printed as "[model 10.0-10.0, P(10)=0.983]",
#   like a measured interval;
# - 1: the rest of the password gap was called "the Hodges-Lehmann shift
#   ... 39.241 ms, less the hash check 11.328 ms" but printed as 28.4 ms,
#   the p50s' difference (the shift less the check is 27.9);
# - 3: the glossary named the p50 difference alone where the verdict is
#   judged on the interval;
# - 9: "30 of 30 logins tried" GSSAPI, of a test that made 72 logins;
# - 8: transfer said "One run (n = 1)" where the summary said n=16;
# - 5: the CPU shares over the windows (cpu) and over the closed loop
#   (rate, warnings) side by side with nothing to tell them apart.
test_expect 'a copy with the model.s, the password gap.s, GSSAPI.s, the transfer interval.s and the CPU windows keys renders without a message' '
	cp -R "$RUN" newer &&
	printf "%s\n" figure_lo=10 figure_hi=10 figure_n=5 figure_method=model figure_probability=0.983 >>newer/data/burst.env &&
	printf "%s\n" gap_judged=rest gap_password_ms=39.7 gap_password_fast=ed25519 gap_hash_ms=11.328 gap_rest_ms=28.4 \
		gap_shift_ms=39.241 gap_judged_lo_ms=2.5 gap_judged_hi_ms=28.9 gap_slow=password gap_fast=ed25519 gap_target=20 \
		gap_p50_ms=39.7 >>newer/data/auth.env &&
	printf "%s\n" client_gssapi=yes gssapi_logins=30 gssapi_tried=30 gssapi_n=30 gssapi_p50=2.1 gssapi_max=4.0 total_n=72 >>newer/data/login.env &&
	printf "%s\n" figure_lo=150.1 figure_hi=154.9 figure_n=16 figure_method=chunks >>newer/data/transfer.env &&
	printf "%s\n" window_busy_pct=97.7 window_sshd_pct=25.0 window_client_pct=67.2 window_other_pct=5.5 window_steal_pct=0.0 >>newer/data/cpu.env &&
	"$KIT_DIR/lib/bin/render.sh" "$TEST_TMP/newer" >out 2>err &&
	test_cmp /dev/null err
'

test_expect 'case 14: what the MaxStartups model expects is said in words, in whole clients' '
	test_grep -F "| 10 clients (the MaxStartups model expects 10; this result 98.3 % likely) (most clients" newer/report.md &&
	test_grep -F "**Figure:** 10 clients (the MaxStartups model expects 10; this result 98.3 % likely)" newer/report.md &&
	test_grep ! -F "[model" newer/report.md
'

test_expect 'cases 1 and 3: the judged gap and the shift of its interval, each named; the glossary says what is judged' '
	test_grep -F "is 28.4 ms as the difference of the p50s; its 95 % interval, 2.5-28.9 ms, is that of the Hodges-Lehmann shift" newer/report.md &&
	test_grep -F "(the median of all their differences, 39.2 ms, less the hash check 11.3 ms: 27.9 ms)" newer/report.md &&
	sed -n "/^\*\*auth gap\.\*\*/,/^\$/p" newer/glossary.md >entry &&
	test_grep -F "p50 minus the fastest one" entry &&
	test_grep -F "judged on the gap" entry && test_grep -F "95 % interval" entry
'

test_expect 'case 9: the GSSAPI tries counted of the logins the kit kept, beside the logins the test made' '
	test_grep -F "so 30 of the 30 logins whose \`ssh -v\` the kit kept (of the 72 the test made) tried \`gssapi-with-mic\`" newer/report.md
'

test_expect 'case 8: the transfer.s one run per cipher and the n of its headline.s interval, said together' '
	test_grep -F "| 152.4 MB/s [150.1-154.9, n=16] (chacha20" newer/report.md &&
	test_grep -F "One run (n = 1) per cipher and direction. The headline'"'"'s 95 % interval (n = 16 in the summary) comes from the 16 parts of its one copy" newer/report.md
'

# Case 10: "p95 needs 20" in the summary's note against "it needs at
# least 72" in the login section: two counts, for two purposes.
test_expect 'case 10: the summary.s note says what its sample counts are for' '
	test_grep -F "Figures marked * rest on too few samples to state that percentile (p95 needs 20, p99 needs 100); a 95 % interval around one needs more" "$RUN/report.md"
'

test_expect 'case 5: the CPU shares over the windows named beside the closed loop.s, which the rate section and the warning print' '
	test_grep -F "over the windows; the \`rate\` section" newer/report.md &&
	test_grep -F "63.3 % (clients) and 99.8 % (machine) are over the closed loop" newer/report.md &&
	figures 5-cpu-shares
'

test_done
