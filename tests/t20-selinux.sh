#!/usr/bin/env bash
# SELinux: sshperf-seport labels the test port ssh_port_t in a throwaway
# policy root (never in the machine's store), sshperf-selinux reports the
# mode and skips restorecon where SELinux is off.
# shellcheck source-path=SCRIPTDIR
# shellcheck disable=SC2016 # test bodies are single-quoted: test_expect evals them
set -u
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/sepolicy-root.sh
. "$TEST_DIR/lib/sepolicy-root.sh"

SEPORT=$BUILD_DIR/sshperf-seport
# shellcheck disable=SC2034 # used in the test bodies
SELINUX_HELPER=$BUILD_DIR/sshperf-selinux
ROOT=$TEST_TMP/selinux-root
PORT=11022

# A checksum of every file of the machine's own SELinux configuration and
# store, names included: the tests must leave it as it was.
machine_selinux_sum () {
	local dir
	local -a dirs=()
	for dir in /var/lib/selinux /etc/selinux; do
		[ -d "$dir" ] && dirs+=("$dir")
	done
	if [ "${#dirs[@]}" -eq 0 ]; then
		printf 'none\n'
		return 0
	fi
	find "${dirs[@]}" -type f -print0 | sort -z | xargs -0r sha256sum |
		sha256sum
}

# sshperf-seport on the throwaway root; stdout to out, stderr to err.
seport () {
	"$SEPORT" -r "$ROOT" -s default "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err"
}

# Expect exit status $1 and stdout $2 from sshperf-seport ARGS...
seport_expect () {
	local want_rc=$1 want_out=$2 rc=0
	shift 2
	seport "$@" || rc=$?
	printf '%s\n' "$want_out" >"$TEST_TMP/expected"
	if [ "$rc" -ne "$want_rc" ]; then
		printf 'sshperf-seport %s: exit %d, expected %d\n' "$*" "$rc" "$want_rc"
		cat "$TEST_TMP/out" "$TEST_TMP/err"
		return 1
	fi
	test_cmp "$TEST_TMP/expected" "$TEST_TMP/out"
}

# A usage error: exit 2, nothing on stdout, one line on stderr.
seport_usage_error () {
	local rc=0
	"$SEPORT" "$@" >"$TEST_TMP/out" 2>"$TEST_TMP/err" || rc=$?
	cat "$TEST_TMP/err"
	[ "$rc" -eq 2 ] && [ ! -s "$TEST_TMP/out" ] &&
		[ "$(wc -l <"$TEST_TMP/err")" -eq 1 ]
}

# The store's local port customisations, as libsemanage wrote them.
# shellcheck disable=SC2034 # used in the test bodies
ports_local=$ROOT/var/lib/selinux/default/active/ports.local

# shellcheck disable=SC2034 # used in the test bodies
machine_sum_before=$(machine_selinux_sum)

test_expect 'helpers are built' '
	[ -x "$SEPORT" ] && [ -x "$SELINUX_HELPER" ]
'

if [ -e /sys/fs/selinux/enforce ]; then
	test_skip 'mode is disabled without SELinux' 'SELinux is on in this kernel'
	test_skip 'restorecon is skipped without SELinux' 'SELinux is on in this kernel'
else
	test_expect 'mode is disabled without SELinux' '
		"$SELINUX_HELPER" mode >"$TEST_TMP/out" &&
		printf "mode=disabled\n" >"$TEST_TMP/expected" &&
		test_cmp "$TEST_TMP/expected" "$TEST_TMP/out"
	'
	test_expect 'restorecon is skipped without SELinux' '
		"$SELINUX_HELPER" restorecon "$TEST_TMP" /etc/hostname >"$TEST_TMP/out" &&
		printf "restorecon=skipped reason=selinux-disabled\n" >"$TEST_TMP/expected" &&
		test_cmp "$TEST_TMP/expected" "$TEST_TMP/out"
	'
fi

test_expect 'restorecon names a missing path and fails' '
	expect_status 1 "$SELINUX_HELPER" restorecon /etc/hostname "$TEST_TMP/missing" &&
	test_grep "$TEST_TMP/missing" "$TEST_TMP/out"
'

test_expect 'context prints one context= line' '
	"$SELINUX_HELPER" context /etc/hostname >"$TEST_TMP/out" &&
	[ "$(wc -l <"$TEST_TMP/out")" -eq 1 ] &&
	test_grep -E "^context=(none|[a-z_]+:[a-z_]+:[a-z_]+)" "$TEST_TMP/out" &&
	expect_status 1 "$SELINUX_HELPER" context "$TEST_TMP/missing"
'

test_expect 'sshperf-selinux usage errors exit 2' '
	expect_status 2 "$SELINUX_HELPER" &&
	expect_status 2 "$SELINUX_HELPER" relabel /etc &&
	expect_status 2 "$SELINUX_HELPER" restorecon &&
	expect_status 2 "$SELINUX_HELPER" mode extra
'

test_expect 'seport usage errors exit 2 with one line' '
	seport_usage_error query 0 &&
	seport_usage_error query 70000 &&
	seport_usage_error query abc &&
	seport_usage_error frob "$PORT" &&
	seport_usage_error add &&
	seport_usage_error -x query "$PORT"
'

test_expect 'seport: a root without a store is a setup error' '
	mkdir -p "$TEST_TMP/empty-root" &&
	expect_status 2 "$SEPORT" -r "$TEST_TMP/empty-root" -s default query "$PORT" &&
	test_grep "no SELinux policy store" "$TEST_TMP/out"
'

if ! sepolicy_root "$ROOT"; then
	test_skip 'seport on a throwaway policy root' "$SEPOLICY_ROOT_ERROR"
else
	test_expect "query $PORT: unreserved, no local entry" '
		seport_expect 0 "port=$PORT proto=tcp type=unreserved_port_t local=no" query "$PORT"
	'
	test_expect "add $PORT: added" '
		seport_expect 0 "added=yes" add "$PORT" &&
		test_grep -x "portcon tcp $PORT system_u:object_r:ssh_port_t:s0" "$ports_local"
	'
	test_expect "add $PORT again: already ssh_port_t" '
		seport_expect 0 "added=no reason=already-ssh_port_t" add "$PORT"
	'
	test_expect "query $PORT: ssh_port_t, local" '
		seport_expect 0 "port=$PORT proto=tcp type=ssh_port_t local=yes" query "$PORT"
	'
	test_expect "delete $PORT: deleted" '
		seport_expect 0 "deleted=yes" delete "$PORT" &&
		test_grep ! "portcon tcp $PORT " "$ports_local"
	'
	test_expect "delete $PORT again: not local, still exit 0" '
		seport_expect 0 "deleted=no reason=not-local" delete "$PORT"
	'
	test_expect "query $PORT: back to unreserved" '
		seport_expect 0 "port=$PORT proto=tcp type=unreserved_port_t local=no" query "$PORT"
	'
	test_expect 'add 22: the policy already has ssh_port_t' '
		seport_expect 0 "added=no reason=already-ssh_port_t" add 22 &&
		seport_expect 0 "port=22 proto=tcp type=ssh_port_t local=no" query 22
	'
	test_expect 'add 80: refused, http_port_t belongs to the web server' '
		rc=0 &&
		{ seport add 80 || rc=$?; } &&
		cat "$TEST_TMP/out" "$TEST_TMP/err" &&
		[ "$rc" -eq 1 ] && [ ! -s "$TEST_TMP/out" ] &&
		[ "$(wc -l <"$TEST_TMP/err")" -eq 1 ] &&
		test_grep "port 80 is already labelled http_port_t by the policy; choose another TEST_PORT" "$TEST_TMP/err" &&
		seport_expect 0 "port=80 proto=tcp type=http_port_t local=no" query 80
	'
fi

test_expect "the machine's own SELinux files are unchanged" '
	[ "$(machine_selinux_sum)" = "$machine_sum_before" ]
'

test_done
