#!/usr/bin/env bash
# Runs every C unit test (build/test_*) and every shell test file (tests/t*.sh),
# or only the files given as arguments, and ends with "N passed, N failed".
#
# Lanes: TEST_LANES files (default 2) run at the same time. Each lane is
# its own instance of the test server (docs/instances.md: TEST_INSTANCE
# check, side, third, fourth), so host tests of two lanes share no name,
# port, user or lock, and a host snapshot leaves the other lanes' names
# out (TEST_LANE_INSTANCES, tests/lib/snapshot.sh). A lane takes the next
# file from one queue; the files that take longest go first (LONG_FIRST),
# so the lanes end near the same time. A file's output is printed whole
# when it ends. TEST_LANES=1 runs one file after another, as instance
# TEST_INSTANCE (check). TEST_OTHER_INSTANCES names the instances of
# other runs of the tests on this machine (a second worktree's run with
# its own TEST_INSTANCE): their names are left out of this run's host
# snapshots and process checks as another lane's are.
#
# A file's deadline: TEST_FILE_TIMEOUT seconds (900), or what a line
# "# run.sh timeout: N" near its top declares (a build, a fleet). A file
# with the line "# run.sh alone" near its top runs while no other lane
# runs a file: it uses names that are no lane's (t13: the default
# instance, an administrator's).
set -u
cd "$(dirname "$0")/.." || exit 2

lanes=${TEST_LANES:-2}
case $lanes in
1 | 2 | 3 | 4) ;;
*) echo "TEST_LANES=$lanes: the number of test files run at once must be 1 to 4; unset it for 2" >&2; exit 2 ;;
esac

# A safety net: a test that forks without end must not take the machine
# with it. Root ignores RLIMIT_NPROC, so the whole run goes into a pids
# cgroup (v1 or v2) capped at TEST_PIDS_MAX processes, where available.
cap_pids () {
	local max=${TEST_PIDS_MAX:-6000} dir
	for dir in /sys/fs/cgroup/pids/sshperf-tests /sys/fs/cgroup/sshperf-tests; do
		[ -d "$(dirname "$dir")" ] || continue
		if [ "$dir" = /sys/fs/cgroup/sshperf-tests ] &&
			! grep -qw pids /sys/fs/cgroup/cgroup.subtree_control 2>/dev/null; then
			continue
		fi
		mkdir -p "$dir" 2>/dev/null || continue
		echo "$max" >"$dir/pids.max" 2>/dev/null || continue
		echo $$ >"$dir/cgroup.procs" 2>/dev/null || continue
		printf '# processes capped at %s (%s)\n' "$max" "$dir"
		return 0
	done
	printf '# no pids cgroup: processes are not capped\n'
}
cap_pids

work=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-run.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT

if [ "$#" -gt 0 ]; then
	files=("$@")
else
	files=()
	for f in build/test_*; do [ -x "$f" ] && files+=("$f"); done
	for f in tests/t[0-9]*.sh; do [ -f "$f" ] && files+=("$f"); done
	# TEST_ALSO: more files after these (CI adds make check-openssh's).
	for f in ${TEST_ALSO:-}; do files+=("$f"); done
fi

# The files that took longest on a 2-core machine (CI, 2026-12): started
# first, each lane's last file is a short one.
LONG_FIRST="tests/openssh/matrix.sh tests/t80-render.sh tests/t93-hangs.sh
tests/t57-order.sh tests/t58-compare-real.sh tests/t91-interrupts.sh
tests/t70-rpm.sh tests/t81-html-browser.sh tests/t82-render-full.sh
tests/t92-faults.sh tests/t94-soak.sh tests/t18-shellcheck.sh"
declare -A long=()
for f in $LONG_FIRST; do long[$f]=1; done
{
	for f in $LONG_FIRST; do
		for g in "${files[@]}"; do [ "$g" != "$f" ] || printf '%s\n' "$f"; done
	done
	for g in "${files[@]}"; do [ -n "${long[$g]:-}" ] || printf '%s\n' "$g"; done
} >"$work/queue"
: >"$work/taken"
: >"$work/tally"

names=(check side third fourth)
[ "$lanes" -gt 1 ] || names[0]=${TEST_INSTANCE:-check}
TEST_LANE_INSTANCES="${names[*]:0:$lanes}${TEST_OTHER_INSTANCES:+ $TEST_OTHER_INSTANCES}"
export TEST_LANE_INSTANCES

# next_file: the next file of the queue, taken once by one lane; nothing
# when the queue is done.
next_file () {
	local n f
	{
		flock 9
		n=$(wc -l <"$work/taken")
		f=$(sed -n "$((n + 1))p" "$work/queue")
		[ -z "$f" ] || printf '%s\n' "$f" >>"$work/taken"
	} 9>"$work/queue.lock"
	printf '%s' "$f"
}

# timeout_of FILE: its deadline in seconds.
timeout_of () {
	local t=""
	case $1 in *.sh) t=$(sed -n '1,40s/^# run\.sh timeout: \([0-9][0-9]*\)$/\1/p' "$1" | head -n 1) ;; esac
	printf '%s\n' "${t:-${TEST_FILE_TIMEOUT:-900}}"
}

# alone FILE: the file declares that it runs with no other lane busy.
alone () {
	case $1 in *.sh) sed -n '1,40p' "$1" | grep -qx '# run\.sh alone' ;; *) return 1 ;; esac
}

# failures_of FILE LOG: each "not ok" line of the file with the lines
# that follow it up to the next test (at most 20), for the recap at the
# end: a long run's output may be cut where CI shows it.
failures_of () {
	printf '# --- %s\n' "$1"
	awk '/^(not )?ok / { shown = 0; on = /^not ok / }
		on && shown < 21 { print; shown++ }' "$2"
}

# run_lane N: runs files from the queue as instance names[N - 1]. Every
# file runs holding the lanes' lock: shared, or exclusive for a file
# that runs alone. The gate keeps the other lanes from taking the shared
# lock again while such a file waits for theirs to end.
run_lane () {
	local f log="$work/lane$1.log" start rc p s n
	export TEST_INSTANCE=${names[$1 - 1]}
	exec 7>"$work/lanes.lock" 8>"$work/gate.lock"
	while f=$(next_file) && [ -n "$f" ]; do
		flock 8
		if alone "$f"; then
			flock -x 7
		else
			flock -s 7
			flock -u 8
		fi
		start=$(date +%s)
		case "$f" in
		*.sh) timeout --kill-after=10 "$(timeout_of "$f")" bash "$f" ;;
		*) timeout --kill-after=10 "$(timeout_of "$f")" "$f" ;;
		esac >"$log" 2>&1 </dev/null 7>&- 8>&-
		rc=$?
		flock -u 7
		flock -u 8
		p=$(grep -c '^ok ' "$log" | tr -d ' ')
		s=$(grep -c '^ok .*# SKIP' "$log" | tr -d ' ')
		n=$(grep -c '^not ok ' "$log" | tr -d ' ')
		p=$((p - s))
		if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then
			printf 'not ok - %s exited with status %d outside a test\n' "$f" "$rc" >>"$log"
			n=1
		fi
		{
			flock 9
			printf '# === %s\n' "$f"
			cat "$log"
			printf '# %s: %d passed, %d failed, %d skipped in %ds\n' "$f" "$p" "$n" "$s" "$(( $(date +%s) - start ))"
			printf '%d %d %d\n' "$p" "$n" "$s" >>"$work/tally"
			[ "$n" -eq 0 ] || failures_of "$f" "$log" >>"$work/failures"
		} 9>"$work/out.lock"
	done
}

[ "$lanes" -eq 1 ] || printf '# %d lanes, instances %s\n' "$lanes" "$TEST_LANE_INSTANCES"
pids=()
for ((k = 2; k <= lanes; k++)); do
	run_lane "$k" &
	pids+=("$!")
done
run_lane 1
for pid in "${pids[@]}"; do wait "$pid"; done

if [ -s "$work/failures" ]; then
	echo '# the failures again, each with what it printed:'
	cat "$work/failures"
fi
awk '{ p += $1; f += $2; s += $3 } END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }' "$work/tally"
