#!/usr/bin/env bash
# Runs every C unit test (build/test_*) and every shell test file (tests/t*.sh),
# or only the files given as arguments, and ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 2

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
