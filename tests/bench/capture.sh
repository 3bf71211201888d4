#!/usr/bin/env bash
# What the login timeline costs (lib/capture.sh): logins with the kit's
# client against the running test server, with sshperf-capture recording
# and without, alternating login by login (so both see the same host; the
# recorder starts and stops around each of its logins, outside the login's
# clock), and then:
#   capture_cpu_ms_per_login   the recorder's own CPU time (schedstat, ns)
#                              over its logins, its start and end included,
#                              per login
#   turns_cpu_ms_per_login     `sshperf-capture turns` on them, per login
#   p50_on_ms, p50_off_ms      the login's p50 (sshperf-login total_ms)
#   p50_change_pct             (on - off) / off; goal: under 1 %
#   logins_on, logins_off      ok logins in each set
# Needs root and a test server (./start-ssh.sh; KIT_INSTANCE names
# another instance's); without one it says so and exits 0.
#
#   tests/bench/capture.sh [logins_per_set]    default 30
# BENCH_BLOCK=N alternates blocks of N logins instead.
#
# On a shared machine the p50s are noisy; the load average is printed
# with them. No timed assertions.
set -u
kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD_DIR:-$kit_dir/build}
per_set=${1:-30}
block=${BENCH_BLOCK:-1}
if [ "$(id -u)" -ne 0 ]; then
	printf '# capture bench skipped: needs root\n'
	exit 0
fi
if ! "$kit_dir/start-ssh.sh" status >/dev/null 2>&1; then
	printf '# capture bench skipped: no test server running (./start-ssh.sh first)\n'
	exit 0
fi
# shellcheck source=lib/names.sh
. "$kit_dir/lib/names.sh"
kit_names "${KIT_INSTANCE:-}"
port=$(sed -n 's/^PORT=//p' "$SERVER_ENV" | tail -n 1)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-bench-capture.XXXXXX")
rec=""
cleanup () {
	[ -z "$rec" ] || kill -TERM "$rec" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
printf 'load_before=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"

# cpu_ms PID: the CPU time of a live process so far, in ms (its
# schedstat: ns on a CPU; the tick-counted stat would round it to 10 ms).
cpu_ms () {
	awk '{ printf "%.3f", $1 / 1e6 }' "/proc/$1/schedstat"
}

# logins FILE: one block of logins, appended to FILE (one header).
logins () {
	"$build/sshperf-login" -H -n "$block" -t 30 -- ssh -v -F "$CLIENT_CONFIG" "$HOST_ALIAS" true >"$tmp/block.tsv" 2>>"$tmp/errors"
	[ -s "$1" ] || head -n 1 "$tmp/block.tsv" >"$1"
	tail -n +2 "$tmp/block.tsv" >>"$1"
}

rec_cpu=0 turns_cpu=0 k=0
for _ in $(seq 1 $((per_set / block))); do
	logins "$tmp/off.tsv"
	k=$((k + 1))
	"$build/sshperf-capture" record -p "$port" -i lo -d 600 -o "$tmp/packets-$k.tsv" >/dev/null 2>>"$tmp/errors" &
	rec=$!
	for _ in $(seq 1 500); do [ -s "$tmp/packets-$k.tsv" ] && break; sleep 0.01; done
	: >"$tmp/on-$k.tsv"
	logins "$tmp/on-$k.tsv"
	rec_cpu=$(awk -v a="$rec_cpu" -v b="$(cpu_ms "$rec")" 'BEGIN { print a + b }')
	kill -TERM "$rec"
	wait "$rec" 2>/dev/null
	rec=""
	# The turns of this block, timed by the shell's children times.
	t=$( ( "$build/sshperf-capture" turns -p "$port" "$tmp/packets-$k.tsv" "$tmp/on-$k.tsv" >/dev/null 2>>"$tmp/errors"; times ) |
		awk 'NR == 2 { for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); ms += (t[1] * 60 + t[2]) * 1000 } printf "%.3f", ms }')
	turns_cpu=$(awk -v a="$turns_cpu" -v b="$t" 'BEGIN { print a + b }')
	[ -s "$tmp/on.tsv" ] || head -n 1 "$tmp/on-$k.tsv" >"$tmp/on.tsv"
	tail -n +2 "$tmp/on-$k.tsv" >>"$tmp/on.tsv"
done

p50 () {
	"$build/sshperf-summary" -c total_ms -w status=ok -p x_ "$1" | sed -n "s/^x_$2=//p"
}
on_n=$(p50 "$tmp/on.tsv" n) off_n=$(p50 "$tmp/off.tsv" n)
on=$(p50 "$tmp/on.tsv" p50) off=$(p50 "$tmp/off.tsv" p50)
printf 'logins_on=%s\nlogins_off=%s\n' "${on_n:-0}" "${off_n:-0}"
printf 'capture_cpu_ms_per_login=%s\n' "$(awk -v c="$rec_cpu" -v n="${on_n:-0}" 'BEGIN { if (n > 0) printf "%.3f", c / n; else print "-" }')"
printf 'turns_cpu_ms_per_login=%s\n' "$(awk -v c="$turns_cpu" -v n="${on_n:-0}" 'BEGIN { if (n > 0) printf "%.3f", c / n; else print "-" }')"
printf 'p50_on_ms=%s\np50_off_ms=%s\n' "${on:--}" "${off:--}"
printf 'p50_change_pct=%s\n' "$(awk -v a="$on" -v b="$off" 'BEGIN { if (a == "" || b == "") print "-"; else printf "%+.2f", (a - b) * 100 / b }')"
printf 'goal_pct=1\n'
printf 'load_after=%s\n' "$(cut -d' ' -f1-3 /proc/loadavg)"
[ ! -s "$tmp/errors" ] || { printf '# errors:\n'; sed 's/^/#   /' "$tmp/errors" | head -n 5; }
