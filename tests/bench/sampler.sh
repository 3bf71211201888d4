#!/usr/bin/env bash
# What does one sample of sshperf-sampler cost? Samples a stand-in server
# (a shell with N sleeping children, like a listener with N sessions)
# every millisecond and prints the sampler's own CPU per sample, from its
# own rusage.
#
#   tests/bench/sampler.sh [samples [children]]
#
# Defaults: 1000 samples, 20 children. Prints key=value lines:
# sampler_samples, sampler_processes, sampler_self_cpu_ms,
# sampler_cpu_us_per_sample, sampler_cpu_us_per_process, sampler_wall_ms.
# A sample reads three small /proc files per process (stat, children,
# smaps_rollup): its cost grows with the processes and the syscall speed.
set -eu

kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
sampler="${BUILD_DIR:-$kit_dir/build}/sshperf-sampler"
samples=${1:-1000}
children=${2:-20}

if [ ! -x "$sampler" ]; then
	printf '%s: not built; run make first\n' "$sampler" >&2
	exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-bench.XXXXXX")
tree=""
cleanup () {
	[ -z "$tree" ] || kill -TERM "$tree" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT

# The stand-in: children that sleep until their parent is told to stop.
bash -c 'trap "kill \$(jobs -p) 2>/dev/null; exit 0" TERM
	for i in $(seq 1 "$1"); do sleep 600 & done
	wait' bench-tree "$children" &
tree=$!
# Wait (with a deadline) until every child is there.
for _ in $(seq 1 200); do
	n=$("$sampler" -p "$tree" once | sed -n 's/^processes=//p')
	[ "${n:-0}" -ge $((children + 1)) ] && break
	sleep 0.01
done

start=$(date +%s%N)
out=$("$sampler" -p "$tree" -i 1 -n "$samples" -o "$tmp/s.csv" run)
end=$(date +%s%N)
value () {
	printf '%s\n' "$out" | sed -n "s/^$1=//p"
}
printf 'sampler_samples=%s\n' "$(value samples)"
printf 'sampler_processes=%s\n' "$(tail -n 1 "$tmp/s.csv" | cut -d, -f10)"
printf 'sampler_self_cpu_ms=%s\n' "$(value self_cpu_ms)"
printf 'sampler_cpu_us_per_sample=%s\n' "$(value self_cpu_us_per_sample)"
printf 'sampler_cpu_us_per_process=%s\n' "$(awk -v c="$(value self_cpu_us_per_sample)" -v n="$children" 'BEGIN { printf "%.1f", c / (n + 1) }')"
printf 'sampler_wall_ms=%s\n' "$(( (end - start) / 1000000 ))"
