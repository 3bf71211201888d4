#!/usr/bin/env bash
# The echo timer's own floor: sshperf-echo against a plain loopback TCP
# echo server (the fixture tests/bench/echo-server.c, no SSH), and - when
# a test server is running - against the test server over libssh and through ssh -tt.
#
#   tests/bench/echo.sh [count [rate]]
#
# Defaults: 500 bytes at 100 per second. Prints key=value lines:
# tcp_p50_ms, tcp_p99_ms, and libssh_p50_ms, libssh_p99_ms, ssh_p50_ms,
# ssh_p99_ms (or ssh_server=not running and how to start one). Run the
# SSH part as root, under the shared lock on a shared host:
#   flock /run/lock/sshperf-dev.lock sh -c './start-ssh.sh -q && tests/bench/echo.sh; ./start-ssh.sh -q cleanup'
set -eu

kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
echo_bin="${BUILD_DIR:-$kit_dir/build}/sshperf-echo"
server_bin="${BUILD_DIR:-$kit_dir/build}/bench-echo-server"
count=${1:-500}
rate=${2:-100}
client=/var/lib/sshd-perf-kit/state/client
port=11022

for bin in "$echo_bin" "$server_bin"; do
	if [ ! -x "$bin" ]; then
		printf '%s: not built; run make bench\n' "$bin" >&2
		exit 2
	fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-bench.XXXXXX")
server_pid=""
cleanup () {
	if [ -n "$server_pid" ]; then
		kill "$server_pid" 2>/dev/null || true
		wait "$server_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# value FILE KEY
value () {
	sed -n "s/^$2=//p" "$1"
}

# The floor: a plain TCP echo server on a free loopback port.
"$server_bin" -h 127.0.0.1 -p 0 >"$tmp/server.out" 2>&1 </dev/null &
server_pid=$!
deadline=$(( $(date +%s) + 5 ))
while ! grep -q '^port=' "$tmp/server.out"; do
	if [ "$(date +%s)" -ge "$deadline" ] || ! kill -0 "$server_pid" 2>/dev/null; then
		printf 'the TCP echo server did not start: %s\n' "$(cat "$tmp/server.out")" >&2
		exit 2
	fi
	sleep 0.01
done
"$echo_bin" -m tcp -h 127.0.0.1 -p "$(value "$tmp/server.out" port)" -n "$count" -r "$rate" >"$tmp/tcp.out"
printf 'count=%s\nrate=%s\n' "$count" "$rate"
printf 'tcp_p50_ms=%s\ntcp_p99_ms=%s\ntcp_lost=%s\n' "$(value "$tmp/tcp.out" p50)" \
	"$(value "$tmp/tcp.out" p99)" "$(value "$tmp/tcp.out" lost)"

# Over SSH: only when the kit's test server is running and readable.
if [ ! -r "$client/known_hosts" ] || ! "${BUILD_DIR:-$kit_dir/build}/sshperf-connect" -t 1000 127.0.0.1 "$port" >/dev/null 2>&1; then
	printf 'ssh_server=not running\n'
	printf 'for the SSH figures run as root: ./start-ssh.sh -q && tests/bench/echo.sh; ./start-ssh.sh -q cleanup\n' >&2
	exit 0
fi
"$echo_bin" -m libssh -h 127.0.0.1 -p "$port" -u sshperf -k "$client/id_ed25519" \
	-K "$client/known_hosts" -n "$count" -r "$rate" >"$tmp/libssh.out"
printf 'libssh_p50_ms=%s\nlibssh_p99_ms=%s\nlibssh_lost=%s\nlibssh_kex=%s\nlibssh_cipher=%s\n' \
	"$(value "$tmp/libssh.out" p50)" "$(value "$tmp/libssh.out" p99)" "$(value "$tmp/libssh.out" lost)" \
	"$(value "$tmp/libssh.out" kex)" "$(value "$tmp/libssh.out" cipher_out)"
"$echo_bin" -m ssh -n "$count" -r "$rate" -- ssh -tt -F "$client/ssh_config" sshperf-test cat >"$tmp/ssh.out"
printf 'ssh_p50_ms=%s\nssh_p99_ms=%s\nssh_lost=%s\n' "$(value "$tmp/ssh.out" p50)" \
	"$(value "$tmp/ssh.out" p99)" "$(value "$tmp/ssh.out" lost)"
