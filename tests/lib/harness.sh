# shellcheck shell=bash
# Test harness in the manner of git's t/ and bats: each test is a short
# chain of commands; it passes when the chain succeeds.
#
#   . "$(dirname "$0")/lib/harness.sh"
#   test_expect 'what it checks' '
#       cmd1 &&
#       test_grep "^ok" out
#   '
#   test_skip 'what it would check' 'why it cannot run here'
#   test_done
#
# Each test prints "ok N - name", "not ok N - name" or "ok N - name # SKIP why";
# test_done prints "# passed=P failed=F skipped=S" and exits 1 if any failed.
# A failing test's output (stdout and stderr) is shown indented.
#
# A test body runs in a subshell of its own, in $TEST_TMP, with set -e. It
# never exits: in a loop, `|| return 1` ends the test (as in git's t/).
#
# The checks say what they saw when they fail:
#   test_cmp EXPECTED ACTUAL    the files are the same; else their diff
#   test_grep [!] [OPTIONS] PATTERN FILE
#                               a line of FILE matches (with !: none does);
#                               else what it looked for, and FILE (or the
#                               lines that matched)
#   test_eq ACTUAL EXPECTED     two strings are equal; else both
#   test_kv FILE KEY EXPECTED   FILE's KEY=value line (the last one) has
#                               that value; else the value and FILE
#   expect_status N CMD...      CMD exits N; its output in $TEST_TMP/out
# Fixtures:
#   q_to_tab                    stdin to stdout, every Q a tab: a table as
#                               a here-doc (q_to_tab <<-EOF ... EOF >t.tsv)
# Cleanup, run however the test or the file ends:
#   test_when_finished CMD      in a test body: CMD runs after this test,
#                               newest first, also when it failed; a CMD
#                               that fails fails the test
#   test_atexit CMD             CMD runs when the test file ends (its last
#                               line, exit, INT or TERM), newest first,
#                               in the file's shell: a test server, a
#                               container. The harness's EXIT trap runs
#                               them; a test file sets no EXIT trap.
# tests/lib/snapshot.sh has host_snapshot_save and host_unchanged.

TEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KIT_DIR=$(cd "$TEST_DIR/.." && pwd)
BUILD_DIR="$KIT_DIR/build"
export TEST_DIR KIT_DIR BUILD_DIR
# A report line outside the markdown subset fails the rendering under the
# tests (lib/bin/render.sh), instead of a warning on stderr nobody reads.
SSHPERF_REPORT_STRICT=1
export SSHPERF_REPORT_STRICT

test_count=0
test_passed=0
test_failed=0
test_skipped=0
test_name_prefix="$(basename "$0" .sh)"

# A scratch folder per test file, removed at the end.
TEST_TMP=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-test.XXXXXX")
export TEST_TMP

# The one EXIT trap of a test file. The test_atexit commands are in a file,
# so that a test body (a subshell) can add one. Only the file's own shell
# runs them: a subshell or a background command that a signal ends before
# its exec has a copy of the trap (lib/atexit.sh says more).
test_owner_=$BASHPID
test_atexit_file_="$TEST_TMP/.atexit"
test_exit_ () {
	local rc=$? i cmds=()
	[ "$BASHPID" = "$test_owner_" ] || return 0
	trap : INT TERM
	set +e
	# A signal ended the file's wait for a kit command at once, while the
	# command still ends what it began: wait for it, or the cleanup below
	# finds the lock held, refuses, and leaves the test server running.
	[ "${KIT_INSTANCE:-}" != "$TEST_INSTANCE" ] || lock_free
	if [ -f "$test_atexit_file_" ]; then
		mapfile -d '' -t cmds <"$test_atexit_file_"
		for ((i = ${#cmds[@]} - 1; i >= 0; i--)); do
			eval "${cmds[i]}"
		done
	fi
	rm -rf "$TEST_TMP"
	exit "$rc"
}
trap test_exit_ EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

test_atexit () {
	printf '%s\0' "$*" >>"$test_atexit_file_"
}

# test_when_finished CMD: only in a test body, and not in a subshell of it
# (a pipeline's loop, a $(...)), where it would be lost.
test_when_finished () {
	if [ -z "${test_body_pid_:-}" ] || [ "$BASHPID" != "$test_body_pid_" ]; then
		echo "test_when_finished: a bug in the test: only in a test body, not in a subshell of it: $*"
		return 1
	fi
	test_cleanup_+=("$*")
}

# The test body's EXIT trap: its cleanups, newest first.
test_cleanup_run_ () {
	local rc=$? i
	[ "$BASHPID" = "$test_body_pid_" ] || return 0
	set +e
	for ((i = ${#test_cleanup_[@]} - 1; i >= 0; i--)); do
		if ! eval "${test_cleanup_[i]}"; then
			echo "test_when_finished: the cleanup failed: ${test_cleanup_[i]}"
			[ "$rc" -ne 0 ] || rc=1
		fi
	done
	exit "$rc"
}

# Runs a test body: in a function, so that `return 1` ends it; without
# positional parameters, as at the top of a file.
test_body_ () {
	local test_body_text_=$1
	shift
	eval "$test_body_text_"
}

test_expect () {
	local name=$1 body=$2 out rc
	test_count=$((test_count + 1))
	out="$TEST_TMP/.out.$test_count"
	(
		test_body_pid_=$BASHPID test_cleanup_=()
		trap test_cleanup_run_ EXIT
		trap 'exit 130' INT
		trap 'exit 143' TERM
		set -e
		cd "$TEST_TMP"
		test_body_ "$body"
	) >"$out" 2>&1 </dev/null
	rc=$?
	if [ "$rc" -eq 0 ]; then
		test_passed=$((test_passed + 1))
		printf 'ok %d - %s: %s\n' "$test_count" "$test_name_prefix" "$name"
	else
		test_failed=$((test_failed + 1))
		printf 'not ok %d - %s: %s (exit %d)\n' "$test_count" "$test_name_prefix" "$name" "$rc"
		sed -e 's/^/#    /' "$out" | tail -n 60
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

# test_cmp EXPECTED ACTUAL: on a difference, the diff (- expected,
# + actual); a missing file is named.
test_cmp () {
	local f
	if [ "$#" -ne 2 ]; then
		echo "test_cmp: a bug in the test: test_cmp EXPECTED ACTUAL, not: $*"
		return 1
	fi
	for f in "$1" "$2"; do
		[ -f "$f" ] || [ "$f" = /dev/null ] || { echo "test_cmp: no file $f"; return 1; }
	done
	diff -u --label "expected $1" --label "actual $2" "$1" "$2" && return 0
	echo "test_cmp: $2 is not $1 (above: - expected, + actual)"
	return 1
}

# test_show_file_ FILE: FILE indented, its first 40 lines.
test_show_file_ () {
	local n
	if [ ! -s "$1" ]; then
		echo "  ($1 is empty)"
		return 0
	fi
	n=$(wc -l <"$1")
	echo "  $1 ($n lines):"
	head -n 40 "$1" | sed -e 's/^/  | /'
	[ "$n" -le 40 ] || echo "  | ... ($((n - 40)) more lines)"
}

# The words of a command, each in quotes, for a message.
test_words_ () {
	local w out=""
	for w in "$@"; do out="$out '$w'"; done
	printf '%s' "${out# }"
}

test_grep () {
	local invert="" file rc=0
	if [ "${1:-}" = '!' ]; then
		invert=1
		shift
	fi
	if [ "$#" -lt 2 ]; then
		echo "test_grep: a bug in the test: test_grep [!] [OPTIONS] PATTERN FILE, not: $*"
		return 1
	fi
	file=${!#}
	if [ ! -f "$file" ]; then
		echo "test_grep: no file $file (looked for: grep $(test_words_ "$@"))"
		return 1
	fi
	grep "$@" >/dev/null || rc=$?
	if [ "$rc" -gt 1 ]; then
		echo "test_grep: grep failed (exit $rc): grep $(test_words_ "$@")"
		return 1
	fi
	if [ -z "$invert" ]; then
		[ "$rc" -ne 0 ] || return 0
		echo "test_grep: no line matches: grep $(test_words_ "$@")"
		test_show_file_ "$file"
	else
		[ "$rc" -eq 0 ] || return 0
		echo "test_grep: lines match, and none should: grep $(test_words_ "$@")"
		grep -n "$@" | head -n 20 | sed -e 's/^/  | /'
	fi
	return 1
}

test_eq () {
	if [ "$#" -ne 2 ]; then
		echo "test_eq: a bug in the test: test_eq ACTUAL EXPECTED, not $# words: $(test_words_ "$@")"
		return 1
	fi
	[ "$1" = "$2" ] && return 0
	echo "test_eq: got '$1', expected '$2'"
	return 1
}

# verbose CMD...: CMD, which fails with the command and its exit status
# (git's verbose), for a check that says nothing of its own (test -x,
# [ A = B ], rpm -V's silence).
verbose () {
	local rc=0
	"$@" || rc=$?
	[ "$rc" -ne 0 ] || return 0
	echo "verbose: command failed (exit $rc): $(test_words_ "$@")"
	return 1
}

# test_verdict_exit RC [OUTPUT]: RC is the exit status of a complete
# test-ssh.sh run, whatever its verdict: 0 (PASS), 1 (FAIL) or 3
# (INCONCLUSIVE, which a loaded machine may bring). Else it fails with
# the status and the last 20 lines of OUTPUT, the run's console.
test_verdict_exit () {
	case $1 in 0 | 1 | 3) return 0 ;; esac
	echo "test_verdict_exit: test-ssh.sh exited ${1:-(no status)}, not 0, 1 or 3 (a verdict)${2:+; the end of $2:}"
	if [ -n "${2:-}" ]; then
		if [ -f "$2" ]; then tail -n 20 "$2" | sed -e 's/^/  | /'; else echo "  (no file $2)"; fi
	fi
	return 1
}

# auth_logins RUN_DIR METHOD SAMPLES: how many logins the auth test of the
# run RUN_DIR made with METHOD (ed25519, rsa, password): SAMPLES, its
# LOGIN_SAMPLES; or, for the method its stages added to (staged_method:
# the slowest p95's interval held the target, as a loaded machine brings
# about), the count of the last stage taken (stages), from the plan fixed
# in advance (stage_plan, lib/measure.sh).
auth_logins () {
	local env="$1/data/auth.env" staged stages
	staged=$(sed -n 's/^staged_method=//p' "$env" 2>/dev/null | tail -n 1)
	stages=$(sed -n 's/^stages=//p' "$env" 2>/dev/null | tail -n 1)
	if [ "$2" = "$staged" ] && [ "${stages:-1}" -gt 1 ]; then
		(. "$KIT_DIR/lib/measure.sh" && stage_plan "$3" 95) | cut -d " " -f "$stages"
	else
		echo "$3"
	fi
}

# test_kv FILE KEY EXPECTED: the value of FILE's last "KEY=" line.
test_kv () {
	local got
	if [ "$#" -ne 3 ]; then
		echo "test_kv: a bug in the test: test_kv FILE KEY EXPECTED, not: $(test_words_ "$@")"
		return 1
	fi
	if [ ! -f "$1" ]; then
		echo "test_kv: no file $1 (looked for $2=$3)"
		return 1
	fi
	if ! grep -q "^$2=" "$1"; then
		echo "test_kv: $1 has no line $2=... (expected $2=$3)"
		test_show_file_ "$1"
		return 1
	fi
	got=$(sed -n "s/^$2=//p" "$1" | tail -n 1)
	[ "$got" = "$3" ] && return 0
	echo "test_kv: $1: $2 is '$got', expected '$3'"
	test_show_file_ "$1"
	return 1
}

# q_to_tab: a fixture with a tab for every Q (git's t/ writes them so).
q_to_tab () {
	tr Q '\t'
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
TEST_INSTANCE=${TEST_INSTANCE:-check}
# shellcheck source=lib/names.sh
. "$KIT_DIR/lib/names.sh"
kit_names ""

# test_ancestor_ PID: PID is this shell's parent, or its parent's, ...
test_ancestor_ () {
	local p=$$
	while [ -n "$p" ] && [ "$p" -gt 1 ]; do
		# The parent's pid comes after the name in (), which may hold spaces.
		p=$(sed -n 's/.*) [^ ]* \([0-9]*\) .*/\1/p' "/proc/$p/stat" 2>/dev/null)
		[ "$p" != "$1" ] || return 0
	done
	return 1
}

# test_claim_: this test file holds its instance while it runs. A second
# run of the tests on the same machine (another make check, a file run by
# hand) would otherwise take the instance's server for one "left from an
# earlier run" and clean it up under the first run's tests. The claim is
# the file /run/lock/sshperf-INSTANCE.tests: the pid and command line of
# the file that holds it (a pid reused by another program is no claim),
# removed when the file ends; a file that another test file runs (t13
# runs t10) leaves its caller's claim alone. Says which run holds it, and
# fails.
test_claim_ () {
	local claim="/run/lock/sshperf-$TEST_INSTANCE.tests" pid="" what="" me
	[ -d /run/lock ] || claim="/run/sshperf-$TEST_INSTANCE.tests"
	me=$(tr '\0' ' ' </proc/$$/cmdline 2>/dev/null)
	[ ! -f "$claim" ] || read -r pid what <"$claim" || true
	if [ -n "$pid" ] && [ "$pid" != "$$" ] && [ -n "$what" ] &&
		[ "$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | sed 's/ *$//')" = "$what" ]; then
		# A test file that runs another (t13 runs t10): the claim is
		# the caller's, and stays its.
		! test_ancestor_ "$pid" || return 0
		printf 'not ok - the test instance %s is in use by another run of the tests on this machine (pid %s: %s); run one at a time, or this one with another TEST_INSTANCE\n' \
			"$TEST_INSTANCE" "$pid" "$what"
		return 1
	fi
	printf '%s %s\n' "$$" "${me% }" >"$claim"
	test_atexit "rm -f '$claim'"
}

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
	test_claim_ || exit 1
	if [ -d "$STATE_DIR" ]; then
		printf '# %s is left from an earlier run of the tests: cleaning it up\n' "$STATE_DIR"
		"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1 || true
	fi
}
