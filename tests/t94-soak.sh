#!/usr/bin/env bash
# Soak (host, without systemd): SOAK_CYCLES full cycles (default 3 in
# `make check`; `make soak` runs 10) of start, a quick test run and
# cleanup, one after another. After every cycle the host snapshot equals
# the one before the first, nothing of the kit still runs, no file was
# left in the kit's TMPDIR or /run, and the cycle's report and results.json
# are complete. A leak that grows a little per cycle shows here, where
# one cycle (t10) would not see it.
. "$(dirname "$0")/lib/harness.sh"
. "$TEST_DIR/lib/snapshot.sh"
. "$TEST_DIR/lib/procs.sh"

host_kit_test 'soak'
STATE=$STATE_DIR
CFG="$STATE/client/ssh_config"
CYCLES=${SOAK_CYCLES:-3}
TESTS="login auth session"
export RESULTS_DIR="$TEST_TMP/results" LOGIN_SAMPLES=3 SESSION_COMMANDS=10
mkdir -p "$RESULTS_DIR"

case $CYCLES in
'' | *[!0-9]* | 0) printf 'SOAK_CYCLES=%s: give a whole number of cycles, 1 or more\n' "$CYCLES" >&2; exit 2 ;;
esac
test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'

# Where the kit leaves temporary files. The kit's commands get a TMPDIR of
# their own, which must be empty after every cycle: the kit makes every
# temporary folder or file with mktemp under TMPDIR. Of the shared
# folders /run is compared whole (nothing but the kit changes it during
# a cycle); /tmp and /var/tmp are not, since the machine's other work (a
# compiler, another test runner, a render test of a second checkout)
# makes and removes files there at any time. Listed before sorting:
# sort's own temporary file is not the kit's.
KIT_TMP=$TEST_TMP/kit-tmp
mkdir -p "$KIT_TMP"
export TMPDIR=$KIT_TMP
# With other lanes of tests/run.sh beside this file, their instances' pid
# files and locks are theirs (without_other_lanes_), and so is Debian's
# /run/sshd, which any instance's start may create and a cleanup remove
# when no other instance's server needs it (docs/instances.md).
scratch () {
	find "$KIT_TMP" /run -mindepth 1 -maxdepth 1 -printf '%p\n' >"$TEST_TMP/.scratch" 2>/dev/null
	if [ "$(echo "${TEST_LANE_INSTANCES:-}" | wc -w)" -gt 1 ]; then
		without_other_lanes_ paths <"$TEST_TMP/.scratch" | grep -vx /run/sshd >"$TEST_TMP/.scratch2" || true
		mv "$TEST_TMP/.scratch2" "$TEST_TMP/.scratch"
	fi
	sort "$TEST_TMP/.scratch"
}

# What of the kit still runs: its server, its clients, its helpers
# (build/sshperf-*; a unit test program beside it is not the kit).
kit_left () {
	kit_processes
	kit_clients
	local p
	for p in /proc/[0-9]*; do
		case $(readlink "$p/exe" 2>/dev/null) in
		"$KIT_DIR"/build/sshperf-*) other_lane "${p#/proc/}" || echo "${p#/proc/} $(tr '\0' ' ' <"$p/cmdline" 2>/dev/null)" ;;
		esac
	done
	return 0
}

# The run's report and results.json are complete for the tests asked for:
# each has a verdict, INCONCLUSIVE included (a small sample count may not
# decide a figure near its target; docs/metrics.md).
report_complete () {
	local run=$1 t st
	for t in $TESTS; do
		test_grep -E "\(\`$t\`\) \| .* \| \*\*(PASS|FAIL|INCONCLUSIVE)\*\*" "$run/report.md" || { echo "no row with a verdict for $t"; return 1; }
		st=$(sed -n "s/^status=//p" "$run/data/$t.env" | tail -n 1)
		case $st in PASS | FAIL | INCONCLUSIVE) ;; *) echo "no verdict for $t in data/$t.env (its last status: ${st:-none})"; return 1 ;; esac
	done
	test_grep '^## Warnings' "$run/report.md" &&
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
for t in sys.argv[2].split():
    assert d["tests"][t]["status"] in ("PASS", "FAIL", "INCONCLUSIVE"), t' "$run/results.json" "$TESTS"
}

host_snapshot_save
scratch >"$TEST_TMP/scratch-before"

cycle=0
while [ "$cycle" -lt "$CYCLES" ]; do
	cycle=$((cycle + 1))
	test_expect "cycle $cycle of $CYCLES: start, test-ssh.sh $TESTS, cleanup; report complete" '
		"$KIT_DIR/start-ssh.sh" -q >/dev/null &&
		rc=0 && "$KIT_DIR/test-ssh.sh" -q $TESTS >"$TEST_TMP/run.out" 2>&1 || rc=$? &&
		test_verdict_exit "$rc" "$TEST_TMP/run.out" &&
		report_complete "$(dirname "$(tail -n 1 "$TEST_TMP/run.out")")" &&
		"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null
	'
	test_expect "cycle $cycle of $CYCLES: host as before, nothing of the kit running, no file left" '
		host_unchanged &&
		{ waits_for 60 eval "kit_left >\"\$TEST_TMP/left\"; [ ! -s \"\$TEST_TMP/left\" ]" || true; } &&
		test_cmp /dev/null "$TEST_TMP/left" &&
		scratch >"$TEST_TMP/scratch-after" &&
		test_cmp "$TEST_TMP/scratch-before" "$TEST_TMP/scratch-after"
	'
	# For the reader, not a bound: the host's process count and free memory.
	printf '# after cycle %d: %d processes, MemAvailable %s kB\n' "$cycle" \
		"$(find /proc -maxdepth 1 -name '[0-9]*' | wc -l)" "$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)"
done

test_expect "every cycle wrote its own run folder ($CYCLES)" '
	[ "$(find "$RESULTS_DIR" -mindepth 2 -maxdepth 2 -name report.md | wc -l)" -eq "$CYCLES" ]
'

test_done
