#!/usr/bin/env bash
# The wire's own cost (sshperf-wire, lib/wire.sh), in three namespaces of
# its own (client, wire, server; none is the host's, so the host is not
# touched and its addresses cannot collide), set up as the kit sets up a
# test host: each packet held in the wire's PREROUTING.
#   - the path without the wire (no rule): its echo p50/p99, the floor;
#   - per setting (0, 1, 20 ms round trip): the one-byte echo's p50 and
#     p99 (N echoes) and what the wire adds to the setting (the jitter);
#   - the ceiling: MB sent through one TCP connection across a 0 ms wire,
#     in MB/s, and the helper's CPU per packet and per MB (getrusage over
#     its packets and bytes), beside the same transfer without the wire.
# No assertion: a busy machine shows in the figures (load_before/after).
#
#   tests/bench/wire.sh [echoes] [MB]     defaults 200 and 500
set -eu
kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
build="${BUILD_DIR:-$kit_dir/build}"
echoes=${1:-200}
mb=${2:-500}
for h in sshperf-wire sshperf-wireprobe; do
	[ -x "$build/$h" ] || { printf '%s/%s: not built; run make first\n' "$build" "$h" >&2; exit 2; }
done
if [ "$(id -u)" -ne 0 ] || ! command -v iptables >/dev/null || ! unshare --net true 2>/dev/null; then
	printf 'wire_bench=skipped (needs root, iptables and network namespaces)\n'
	exit 0
fi

tag=$$
c=sshperf-bench-c$tag w=sshperf-bench-w$tag s=sshperf-bench-s$tag
tmp=$(mktemp -d)
helper=""
cleanup () {
	[ -z "$helper" ] || kill "$helper" 2>/dev/null || true
	for ns in "$c" "$w" "$s"; do
		[ -e "/run/netns/$ns" ] || continue
		for p in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$p" 2>/dev/null || true; done
		ip netns del "$ns"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for ns in "$c" "$w" "$s"; do ip netns add "$ns"; ip -n "$ns" link set lo up; done
ip -n "$c" link add "wb${tag}c" type veth peer name "wb${tag}x" netns "$w"
ip -n "$s" link add "wb${tag}s" type veth peer name "wb${tag}y" netns "$w"
ip -n "$c" addr add 198.18.255.6/30 dev "wb${tag}c"
ip -n "$w" addr add 198.18.255.5/30 dev "wb${tag}x"
ip -n "$w" addr add 198.18.255.2/30 dev "wb${tag}y"
ip -n "$s" addr add 198.18.255.1/30 dev "wb${tag}s"
for l in "$c wb${tag}c" "$w wb${tag}x" "$w wb${tag}y" "$s wb${tag}s"; do
	# shellcheck disable=SC2086 # namespace and device
	set -- $l
	ip -n "$1" link set "$2" up
done
ip netns exec "$w" sysctl -q -w net.ipv4.ip_forward=1
ip -n "$c" route add default via 198.18.255.5
ip -n "$s" route add default via 198.18.255.2

ip netns exec "$s" "$build/sshperf-wireprobe" -l 198.18.255.1 -p 7001 -t 900 >"$tmp/echo" 2>&1 &
ip netns exec "$s" "$build/sshperf-wireprobe" -l 198.18.255.1 -p 7002 -k -t 900 >"$tmp/sink" 2>&1 &
for _ in $(seq 1 200); do
	grep -q '^ready=1' "$tmp/echo" && grep -q '^ready=1' "$tmp/sink" && break
	sleep 0.05
done

# wire_on MS: sshperf-wire holding MS/2 each way, and the rules.
wire_on () {
	ip netns exec "$w" "$build/sshperf-wire" -q 7 -d "$(awk -v r="$1" 'BEGIN { print r / 2 }')" -t 900 >"$tmp/helper" 2>&1 &
	helper=$!
	for _ in $(seq 1 100); do grep -q '^ready=1' "$tmp/helper" && break; sleep 0.05; done
	ip netns exec "$w" iptables -t mangle -A PREROUTING -i "wb${tag}x" -j NFQUEUE --queue-num 7
	ip netns exec "$w" iptables -t mangle -A PREROUTING -i "wb${tag}y" -j NFQUEUE --queue-num 7
}
wire_off () {
	ip netns exec "$w" iptables -t mangle -F PREROUTING
	kill "$helper"
	wait "$helper" || true
	helper=""
}
get () { sed -n "s/^$1=//p" "$2"; }

printf 'load_before=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
ip netns exec "$c" "$build/sshperf-wireprobe" -n "$echoes" -p 7001 198.18.255.1 >"$tmp/probe"
printf 'no_wire_echo_ms_p50=%s\nno_wire_echo_ms_p99=%s\nno_wire_echo_n=%s\n' \
	"$(get echo_ms_p50 "$tmp/probe")" "$(get echo_ms_p99 "$tmp/probe")" "$(get echo_ms_n "$tmp/probe")"
for rtt in 0 1 20; do
	wire_on "$rtt"
	ip netns exec "$c" "$build/sshperf-wireprobe" -n "$echoes" -p 7001 198.18.255.1 >"$tmp/probe"
	wire_off
	p50=$(get echo_ms_p50 "$tmp/probe") p99=$(get echo_ms_p99 "$tmp/probe")
	printf 'rtt_%s_connect_ms_p50=%s\nrtt_%s_echo_ms_p50=%s\nrtt_%s_echo_ms_p99=%s\nrtt_%s_echo_n=%s\n' \
		"$rtt" "$(get connect_ms_p50 "$tmp/probe")" "$rtt" "$p50" "$rtt" "$p99" "$rtt" "$(get echo_ms_n "$tmp/probe")"
	printf 'rtt_%s_added_ms_p50=%s\nrtt_%s_added_ms_p99=%s\nrtt_%s_realtime=%s\n' \
		"$rtt" "$(awk -v a="$p50" -v r="$rtt" 'BEGIN { printf "%.3f", a - r }')" \
		"$rtt" "$(awk -v a="$p99" -v r="$rtt" 'BEGIN { printf "%.3f", a - r }')" \
		"$rtt" "$(get realtime "$tmp/helper")"
done

bytes=$((mb * 1000000))
ip netns exec "$c" "$build/sshperf-wireprobe" -b "$bytes" -p 7002 -t 300 198.18.255.1 >"$tmp/bulk"
printf 'no_wire_bulk_mbs=%s\n' "$(get bulk_mbs "$tmp/bulk")"
wire_on 0
ip netns exec "$c" "$build/sshperf-wireprobe" -b "$bytes" -p 7002 -t 300 198.18.255.1 >"$tmp/bulk"
wire_off
packets=$(get packets "$tmp/helper") cpu=$(get cpu_ms "$tmp/helper") wbytes=$(get bytes "$tmp/helper")
printf 'ceiling_mbs=%s\nceiling_seconds=%s\nceiling_packets=%s\nceiling_wire_bytes=%s\nwire_cpu_ms=%s\n' \
	"$(get bulk_mbs "$tmp/bulk")" "$(get bulk_seconds "$tmp/bulk")" "$packets" "$wbytes" "$cpu"
printf 'wire_cpu_us_per_packet=%s\nwire_cpu_ms_per_mb=%s\nwire_bytes_per_packet=%s\n' \
	"$(awk -v c="$cpu" -v p="$packets" 'BEGIN { if (p > 0) printf "%.2f", c * 1000 / p; else print "-" }')" \
	"$(awk -v c="$cpu" -v b="$wbytes" 'BEGIN { if (b > 0) printf "%.3f", c / (b / 1e6); else print "-" }')" \
	"$(awk -v p="$packets" -v b="$wbytes" 'BEGIN { if (p > 0) printf "%.0f", b / p; else print "-" }')"
printf 'load_after=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
