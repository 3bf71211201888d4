# shellcheck shell=bash
# Test harness in the manner of git's t/ and bats: each test is a short
# chain of commands; it passes when the chain succeeds.
#
#   . "$(dirname "$0")/lib/harness.sh"
#   test_expect 'what it checks' '
#       cmd1 &&
#       cmd2
#   '
#   test_skip 'what it would check' 'why it cannot run here'
#   test_done
#
# Each test prints "ok N - name", "not ok N - name" or "ok N - name # SKIP why";
# test_done prints "# passed=P failed=F skipped=S" and exits 1 if any failed.
# A failing test's output (stdout and stderr) is shown indented.

TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KIT_DIR=$(cd "$TEST_DIR/.." && pwd)
BUILD_DIR="$KIT_DIR/build"
export TEST_DIR KIT_DIR BUILD_DIR

test_count=0
test_passed=0
test_failed=0
test_skipped=0
test_name_prefix="$(basename "$0" .sh)"

# A scratch folder per test file, removed at the end.
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-test.XXXXXX")
export TEST_TMP
trap 'rm -rf "$TEST_TMP"' EXIT

test_expect () {
	local name=$1 body=$2 out rc
	test_count=$((test_count + 1))
	out="$TEST_TMP/.out.$test_count"
	( set -e; cd "$TEST_TMP"; eval "$body" ) >"$out" 2>&1 </dev/null
	rc=$?
	if [ "$rc" -eq 0 ]; then
		test_passed=$((test_passed + 1))
		printf 'ok %d - %s: %s\n' "$test_count" "$test_name_prefix" "$name"
	else
		test_failed=$((test_failed + 1))
		printf 'not ok %d - %s: %s (exit %d)\n' "$test_count" "$test_name_prefix" "$name" "$rc"
		sed -e 's/^/#    /' "$out" | tail -n 40
	fi
	if [ -n "${TEST_VERBOSE:-}" ]; then sed -e 's/^/#  | /' "$out"; fi
	rm -f "$out"
	return 0
}

test_skip () {
	test_count=$((test_count + 1))
	test_skipped=$((test_skipped + 1))
	printf 'ok %d - %s: %s # SKIP %s\n' "$test_count" "$test_name_prefix" "$1" "$2"
}

# Compare expected and actual files; on a difference show it.
test_cmp () {
	diff -u "$1" "$2"
}

# Run a command, expect exit status $1; its output goes to $TEST_TMP/out.
expect_status () {
	local want=$1 rc=0
	shift
	"$@" >"$TEST_TMP/out" 2>&1 || rc=$?
	if [ "$rc" -ne "$want" ]; then
		printf 'expected exit %s, got %s from: %s\n' "$want" "$rc" "$*"
		cat "$TEST_TMP/out"
		return 1
	fi
}

test_done () {
	printf '# passed=%d failed=%d skipped=%d\n' "$test_passed" "$test_failed" "$test_skipped"
	[ "$test_failed" -eq 0 ]
}

# The tests' own instance of the test server (KIT_INSTANCE, docs/instances.md):
# a host test runs the kit under these names, port and user, next to an
# administrator's set-up test server, which it never touches. Its names
# are the kit's own (lib/names.sh); until host_kit_test they are the
# default instance's (what a test container holds).
TEST_INSTANCE=check
# shellcheck source=lib/names.sh
. "$KIT_DIR/lib/names.sh"
kit_names ""

# host_kit_test WHAT [direct]: the test file runs the kit on this host, as
# the instance TEST_INSTANCE: KIT_INSTANCE, TEST_PORT and TEST_USER are
# exported and the names (STATE_DIR, SSHD_CONFIG, UNIT_NAME, ...) set for
# it; what an earlier, killed run of the tests left of that instance is
# cleaned up. Skips all of the file (and exits) only where it cannot run:
# not root, no sshd, or with "direct" a host whose PID 1 is systemd (the
# t3x files run the kit under systemd, in a container).
host_kit_test () {
	local why=""
	if [ "$(id -u)" -ne 0 ] || ! command -v sshd >/dev/null; then
		why='needs root and openssh-server'
	elif [ "${2:-}" = direct ] && [ -d /run/systemd/system ]; then
		why='written for a host without systemd (direct mode); the t3x files run the kit under systemd'
	fi
	if [ -n "$why" ]; then
		test_skip "$1" "$why"
		test_done
		exit 0
	fi
	kit_names "$TEST_INSTANCE"
	KIT_INSTANCE=$TEST_INSTANCE
	TEST_PORT=$((11022 + $(instance_port_offset "$TEST_INSTANCE")))
	TEST_USER=sshperf-$TEST_INSTANCE
	export KIT_INSTANCE TEST_PORT TEST_USER
	if [ -d "$STATE_DIR" ]; then
		printf '# %s is left from an earlier run of the tests: cleaning it up\n' "$STATE_DIR"
		"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1 || true
	fi
}
