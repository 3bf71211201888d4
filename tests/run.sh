#!/usr/bin/env bash
# Runs every C unit test (build/test_*) and every shell test file (tests/t*.sh),
# or only the files given as arguments, and ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2

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

passed=0 failed=0 skipped=0
log=$(mktemp "${TMPDIR:-/tmp}/sshperf-run.XXXXXX")
trap 'rm -f "$log"' EXIT

if [ "$#" -gt 0 ]; then
	files=("$@")
else
	files=()
	for f in build/test_*; do [ -x "$f" ] && files+=("$f"); done
	for f in tests/t[0-9]*.sh; do [ -f "$f" ] && files+=("$f"); done
fi

for f in "${files[@]}"; do
	start=$(date +%s)
	printf '# === %s\n' "$f"
	case "$f" in
	*.sh) timeout --kill-after=10 "${TEST_FILE_TIMEOUT:-900}" bash "$f" ;;
	*) timeout --kill-after=10 "${TEST_FILE_TIMEOUT:-900}" "$f" ;;
	esac >"$log" 2>&1
	rc=$?
	cat "$log"
	p=$(grep -c '^ok ' "$log" | tr -d ' ')
	s=$(grep -c '^ok .*# SKIP' "$log" | tr -d ' ')
	n=$(grep -c '^not ok ' "$log" | tr -d ' ')
	p=$((p - s))
	if [ "$rc" -ne 0 ] && [ "$n" -eq 0 ]; then
		printf 'not ok - %s exited with status %d outside a test\n' "$f" "$rc"
		n=1
	fi
	passed=$((passed + p)) failed=$((failed + n)) skipped=$((skipped + s))
	printf '# %s: %d passed, %d failed, %d skipped in %ds\n' "$f" "$p" "$n" "$s" "$(( $(date +%s) - start ))"
done

printf '%d passed, %d failed, %d skipped\n' "$passed" "$failed" "$skipped"
[ "$failed" -eq 0 ]
