#!/usr/bin/env bash
# run.sh timeout: 1800
# `shellcheck -x` of every shell file of the kit (docs/style.md rule 6):
# a finding of severity warning or error fails, each printed as
# FILE:LINE:COL with its SC number; style and info notes do not. An
# exception is written on its line (# shellcheck disable=SCnnnn # why).
# Skipped, with the reason, where shellcheck is not installed
# (install-deps.sh --tests installs it on Debian; RHEL 9 has it only in
# EPEL). Needs no root and no server.
#
# One shellcheck per file, two at a time: -x follows every file a file
# sources, so one file takes from 1 s to 100 s (t21, which sources most
# of lib/) on a busy 2-core machine; all 150 took 17 minutes there at a
# load of 15 beside other tests (2026-12), hence the deadline above.
. "$(dirname "$0")/lib/harness.sh"

# shell_files: the kit's shell files, relative to KIT_DIR: every *.sh and
# every file whose first line is a sh or bash #! or a "# shellcheck
# shell=" line; not the recorded runs (tests/data), build/ or .git.
shell_files () {
	(cd "$KIT_DIR" &&
		find . \( -path ./.git -o -path ./build -o -path ./tests/data \) -prune -o -type f -print |
		sed "s|^\./||" | sort |
		while IFS= read -r f; do
			case $f in
			*.sh) printf '%s\n' "$f" ;;
			*)
				case $(head -n 1 "$f" 2>/dev/null | tr -d '\0') in
				'#!'*sh | '#!'*bash* | '#!'*/sh\ * | '# shellcheck shell='*) printf '%s\n' "$f" ;;
				esac ;;
			esac
		done)
}

# check FILE...: shellcheck -x of each FILE (relative to the current
# folder, which its source= lines are too), warnings and errors only,
# one line per finding.
check () {
	printf '%s\0' "$@" | xargs -0 -r -n 1 -P 2 shellcheck -x -S warning -f gcc 2>&1 || :
}

if ! command -v shellcheck >/dev/null 2>&1; then
	test_skip 'shellcheck -x of every shell file' "shellcheck is not installed (install-deps.sh --tests installs it on Debian; on RHEL 9 it is in EPEL: dnf install ShellCheck)"
	test_done
	exit 0
fi

test_expect 'the file list has the programs without .sh and leaves out the recorded runs' '
	shell_files >files &&
	test_grep -x sshd-perf-kit files &&
	test_grep -x test-ssh.sh files &&
	test_grep -x lib/data.sh files &&
	test_grep -x tests/t18-shellcheck.sh files &&
	test_grep ! "^tests/data/" files &&
	test_grep ! "^build/" files
'

test_expect 'a planted warning and error fail the check, with the file and line; an info note does not' '
	q_to_tab >planted.sh <<-\EOF &&
	#!/usr/bin/env bash
	unused=1
	for f in $(ls); do printf "%s\n" "$f"; done
	printf "%s\n" $1
	EOF
	check planted.sh >found &&
	test_grep "^planted.sh:2:1: warning: .*\[SC2034\]" found &&
	test_grep "^planted.sh:3:10: error: .*\[SC2045\]" found &&
	test_grep ! "^planted.sh:4:" found
'

test_expect 'every shell file of the kit is shellcheck -x clean (warnings and errors)' '
	shell_files >files &&
	echo "# $(wc -l <files) files" &&
	(cd "$KIT_DIR" && check $(cat "$TEST_TMP/files")) >found &&
	test_cmp /dev/null found
'

test_done
