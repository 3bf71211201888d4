#!/usr/bin/env bash
# How often can the connect poller try? Runs sshperf-connect against a
# closed loopback port for a while and prints the interval it achieved.
#
#   tests/bench/poller.sh [interval_us [duration_ms [port]]]
#
# Defaults: 1000 us, 1000 ms, port 9 (discard, closed on most machines).
# Prints key=value lines: poller_target_us, poller_interval_us,
# poller_attempts, poller_duration_ms. Exit 2 when the port is not closed.
set -eu

kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
poller="${BUILD_DIR:-$kit_dir/build}/sshperf-connect"
interval_us=${1:-1000}
duration_ms=${2:-1000}
port=${3:-9}

if [ ! -x "$poller" ]; then
	printf '%s: not built; run make first\n' "$poller" >&2
	exit 2
fi

rc=0
out=$("$poller" -i "$interval_us" -t "$duration_ms" 127.0.0.1 "$port") || rc=$?
value () {
	printf '%s\n' "$out" | sed -n "s/^$1=//p"
}
if [ "$rc" -ne 1 ] || [ "$(value last_error)" != "Connection refused" ]; then
	printf 'port %s on 127.0.0.1 is not closed (poller exit %s: %s); pass a closed port\n' \
	    "$port" "$rc" "$(value last_error)" >&2
	exit 2
fi
printf 'poller_target_us=%s\n' "$interval_us"
printf 'poller_interval_us=%s\n' "$(value interval_us)"
printf 'poller_attempts=%s\n' "$(value attempts)"
printf 'poller_duration_ms=%s\n' "$duration_ms"
