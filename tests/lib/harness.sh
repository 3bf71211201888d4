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

# host_kit_test WHAT [direct]: the test file runs the kit on this host;
# skips all of it (and exits) unless run as root with sshd installed and
# no test server set up, and with "direct" also unless systemd is not PID
# 1 (the t3x files run the kit under systemd, in a container).
host_kit_test () {
	local why="" state=/var/lib/sshd-perf-kit/state
	if [ "$(id -u)" -ne 0 ] || ! command -v sshd >/dev/null; then
		why='needs root and openssh-server'
	elif [ -d "$state" ]; then
		why="a test server is set up on this host ($state); run ./start-ssh.sh cleanup first"
	elif [ "${2:-}" = direct ] && [ -d /run/systemd/system ]; then
		why='written for a host without systemd (direct mode); the t3x files run the kit under systemd'
	fi
	[ -n "$why" ] || return 0
	test_skip "$1" "$why"
	test_done
	exit 0
}
