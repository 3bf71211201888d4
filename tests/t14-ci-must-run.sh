#!/usr/bin/env bash
# CI must run every host test file (.ci/must-run, docs/testing.md): one
# that skipped, or did not run, is a failure of .ci/run, with the reason.
# Reads fixtures written here; needs no root and no test server.
. "$(dirname "$0")/lib/harness.sh"

# A make check log in which every host test file ran all its tests.
all_ran () {
	local f
	grep -l '^host_kit_test ' "$KIT_DIR"/tests/t[0-9]*.sh | while IFS= read -r f; do
		f=tests/${f##*/}
		printf '# === %s\nok 1 - %s: x\n# %s: 1 passed, 0 failed, 0 skipped in 1s\n' "$f" "$(basename "$f" .sh)" "$f"
	done
}

test_expect 'every host test file ran all its tests: exit 0, no output' '
	all_ran >log && [ "$(grep -c "^# tests/" log)" -ge 10 ] &&
	"$KIT_DIR/.ci/must-run" log >out &&
	test_cmp /dev/null out
'

test_expect 'a host test file that skipped: exit 1, one line with the file and the reason' '
	all_ran | sed "/^# === tests\/t10-lifecycle.sh/,/skipped in/ {
		s/^ok 1 - t10-lifecycle: x\$/ok 1 - t10-lifecycle: life cycle # SKIP needs root and openssh-server/
		s/1 passed, 0 failed, 0 skipped/0 passed, 0 failed, 1 skipped/ }" >log &&
	test_grep "# SKIP" log &&
	rc=0 && "$KIT_DIR/.ci/must-run" log >out || rc=$?
	[ "$rc" -eq 1 ] && cat out &&
	echo "not ok - tests/t10-lifecycle.sh skipped 1 tests; CI must run it (.ci/must-run): needs root and openssh-server" >want &&
	test_cmp want out
'

test_expect 'a host test file that did not run at all: exit 1' '
	all_ran | grep -v "t11-badinput" >log &&
	rc=0 && "$KIT_DIR/.ci/must-run" log >out || rc=$?
	[ "$rc" -eq 1 ] && cat out &&
	echo "not ok - tests/t11-badinput.sh did not run; CI must run it (.ci/must-run)" >want &&
	test_cmp want out
'

test_expect '.ci/run fails the run and counts what .ci/must-run found' '
	test_grep "\.ci/must-run \"\$check_log\"" "$KIT_DIR/.ci/run" &&
	test_grep "grep -c .^not ok. \"\$must\"" "$KIT_DIR/.ci/run"
'

test_done
