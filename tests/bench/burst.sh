#!/usr/bin/env bash
# The burst releaser's own floor: how close together sshperf-burst releases
# its clients, with no ssh and no sshd. Each client is sshperf-gate alone
# (-N: it connects and closes instead of handing the socket to ssh) against
# a plain loopback listener; then the connect poller's achieved interval
# (tests/bench/poller.sh).
#
#   tests/bench/burst.sh [rounds [steps...]]
#
# Defaults: 3 rounds of 5, 20 and 100 clients. Prints key=value lines:
# spread_N_p50_ms, spread_N_max_ms (release to the last TCP connect),
# woke_N_p50_ms (release to the last gate awake), ready_N_p50_ms, and the
# poller_* lines. The goal is a spread of 5 ms or less for 100 clients on
# 2 cores. On a shared host, cap its processes as the tests do:
#   bash -c 'echo $$ >/sys/fs/cgroup/pids/sshperf-tests/cgroup.procs; exec tests/bench/burst.sh'
set -eu

kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
build="${BUILD_DIR:-$kit_dir/build}"
rounds=${1:-3}
shift || true
steps=${*:-5 20 100}

for b in sshperf-burst sshperf-gate sshperf-summary; do
	[ -x "$build/$b" ] || { printf '%s/%s: not built; run make first\n' "$build" "$b" >&2; exit 2; }
done
command -v python3 >/dev/null || { printf 'python3 is needed for the plain listener\n' >&2; exit 2; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-bench.XXXXXX")
listener=""
cleanup () {
	if [ -n "$listener" ]; then
		kill "$listener" 2>/dev/null || true
		wait "$listener" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT

# A listener that accepts and closes; its port in $tmp/port.
python3 -c '
import socket, sys
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(4096)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept()
    c.close()
' "$tmp/port" &
listener=$!
deadline=$(( $(date +%s) + 10 ))
until [ -s "$tmp/port" ]; do
	[ "$(date +%s)" -lt "$deadline" ] || { printf 'the listener did not start\n' >&2; exit 1; }
	sleep 0.01
done
port=$(cat "$tmp/port")

value () {
	sed -n "s/^$2=//p" "$1"
}
for n in $steps; do
	: >"$tmp/spread" && : >"$tmp/woke" && : >"$tmp/ready"
	for r in $(seq 1 "$rounds"); do
		"$build/sshperf-burst" -n "$n" -s "$tmp/s" -w 30 -t 30 -- \
			"$build/sshperf-gate" -N 127.0.0.1 "$port" >"$tmp/rows" 2>"$tmp/err" ||
			{ printf 'burst of %s (round %s) failed: %s\n' "$n" "$r" "$(tail -n 1 "$tmp/err")" >&2; exit 1; }
		value "$tmp/s" release_spread_ms >>"$tmp/spread"
		value "$tmp/s" woke_spread_ms >>"$tmp/woke"
		value "$tmp/s" ready_ms >>"$tmp/ready"
	done
	printf 'spread_%s_p50_ms=%s\n' "$n" "$("$build/sshperf-summary" "$tmp/spread" | sed -n 's/^p50=//p')"
	printf 'spread_%s_max_ms=%s\n' "$n" "$("$build/sshperf-summary" "$tmp/spread" | sed -n 's/^max=//p')"
	printf 'woke_%s_p50_ms=%s\n' "$n" "$("$build/sshperf-summary" "$tmp/woke" | sed -n 's/^p50=//p')"
	printf 'ready_%s_p50_ms=%s\n' "$n" "$("$build/sshperf-summary" "$tmp/ready" | sed -n 's/^p50=//p')"
done
printf 'rounds=%s\n' "$rounds"
"$kit_dir/tests/bench/poller.sh"
