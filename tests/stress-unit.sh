#!/usr/bin/env bash
# make stress-unit: every C unit-test program (build/test_*) STRESS_RUNS
# times (20) while STRESS_LOAD busy loops (4) run beside it, then once more
# under nice -n 19 with the same load. Prints the failures per program and
# ends with "N passed, N failed" (one count per run). A program that fails
# here depends on the machine being idle: a race or a timing bound.
set -u
cd "$(dirname "$0")/.." || exit 2

runs=${STRESS_RUNS:-20}
load=${STRESS_LOAD:-4}
per_run=${STRESS_TIMEOUT:-300}
case $runs$load$per_run in *[!0-9]*) echo "stress-unit: STRESS_RUNS, STRESS_LOAD and STRESS_TIMEOUT must be whole numbers" >&2; exit 2 ;; esac

programs=()
for f in build/test_*; do [ -x "$f" ] && programs+=("$f"); done
[ "${#programs[@]}" -gt 0 ] || { echo "stress-unit: no build/test_* programs; run make unit-tests first" >&2; exit 2; }

# The busy loops are this script's own children, ended by their pids.
busy=()
stop_load () {
	local pid
	for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
	for pid in "${busy[@]}"; do wait "$pid" 2>/dev/null; done
	busy=()
}
trap 'stop_load; rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-stress.XXXXXX") || exit 2
for _ in $(seq 1 "$load"); do
	( while :; do :; done ) &
	busy+=("$!")
done
printf '# %d busy loops beside %d runs of each program, then one run under nice -n 19\n' "$load" "$runs"

passed=0 failed=0
for prog in "${programs[@]}"; do
	fails=0
	for i in $(seq 1 $((runs + 1))); do
		nice_cmd=()
		[ "$i" -le "$runs" ] || nice_cmd=(nice -n 19)
		rc=0
		# Its scratch folders go to a TMPDIR of its own, removed after
		# it: a run killed at its deadline cannot clean up itself.
		mkdir "$tmp/run" || exit 2
		TMPDIR="$tmp/run" timeout --kill-after=10 "$per_run" "${nice_cmd[@]}" "$prog" >"$tmp/out" 2>&1 || rc=$?
		rm -rf "$tmp/run"
		if [ "$rc" -eq 0 ] && ! grep -q '^not ok' "$tmp/out"; then
			passed=$((passed + 1))
		else
			failed=$((failed + 1)) fails=$((fails + 1))
			printf '# %s run %d%s failed:\n' "$prog" "$i" "${nice_cmd[*]:+ (${nice_cmd[*]})}"
			grep -E '^(not ok|# )' "$tmp/out" | sed 's/^/#   /' | head -n 20
			# Say why when no test line does: the deadline, or the status.
			case $rc in
			0) ;;
			124 | 137) printf '#   not finished after %d s (STRESS_TIMEOUT): %d of its tests had run%s\n' \
				"$per_run" "$(grep -c '^\(not \)\?ok ' "$tmp/out")" \
				"${nice_cmd[*]:+; under nice -n 19 beside $load busy loops a program gets little CPU}" ;;
			*) printf '#   exit status %d; its last line: %s\n' "$rc" "$(tail -n 1 "$tmp/out")" ;;
			esac
		fi
	done
	printf '# %s: %d of %d runs failed\n' "$prog" "$fails" $((runs + 1))
done
stop_load
printf '%d passed, %d failed\n' "$passed" "$failed"
[ "$failed" -eq 0 ]
