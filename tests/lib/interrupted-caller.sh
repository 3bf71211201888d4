#!/bin/bash
# A caller of test-ssh.sh that cleans up on its way out, as
# tests/bench/real-changes.sh and the harness do, for t10 to interrupt
# while test-ssh.sh holds the instance lock. It is a script of its own, not
# part of a test file: a test file's one cleanup is test_atexit (t01).
#
#   KIT_DIR=... KIT_INSTANCE=... interrupted-caller.sh OUT
#
# OUT receives what "start-ssh.sh cleanup" printed on the way out.
out_file=${1:?usage: interrupted-caller.sh OUT}
# shellcheck source=lib/names.sh
. "$KIT_DIR/lib/names.sh"
kit_names "$KIT_INSTANCE"
trap 'lock_free; "$KIT_DIR/start-ssh.sh" cleanup >"$out_file" 2>&1' EXIT
trap 'exit 130' TERM
LOGIN_SAMPLES=500 "$KIT_DIR/test-ssh.sh" -q login >/dev/null 2>&1
