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

test_expect 'cases 2 and 5: the password gap and the closed loop.s CPU shares, one figure each' '
	figures 2-password-gap 5-cpu-shares
'

test_expect 'memory per session: one figure, in hundredths of MB, wherever printed' '
	figures memory-per-session
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

# Case 14: the burst's model printed as "[model 10.0-10.0, P(10)=0.983]",
# like a measured interval. The stored run is older than the model: a
# copy with its keys (as lib/metrics/burst.sh writes them).
test_expect 'case 14: what the MaxStartups model expects is said in words, in whole clients' '
	cp -R "$RUN" model &&
	printf "%s\n" figure_lo=10 figure_hi=10 figure_n=5 figure_method=model figure_probability=0.983 >>model/data/burst.env &&
	"$KIT_DIR/lib/bin/render.sh" "$TEST_TMP/model" >out 2>err &&
	test_cmp /dev/null err &&
	test_grep -F "| 10 clients (the MaxStartups model expects 10; this result 98.3 % likely) (most clients" model/report.md &&
	test_grep -F "**Figure:** 10 clients (the MaxStartups model expects 10; this result 98.3 % likely)" model/report.md &&
	test_grep ! -F "[model" model/report.md
'

test_done
