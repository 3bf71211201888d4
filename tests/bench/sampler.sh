#!/usr/bin/env bash
# What does one sample of sshperf-sampler cost? Samples a stand-in server
# (a shell with N sleeping children, like a listener with N sessions) as
# the kit does, one `once` run per sample, and prints the CPU of those
# runs (their own, from the shell's `times`: start-up included), and per
# process the difference to a stand-in without children.
#
#   tests/bench/sampler.sh [samples [children]]
#
# Defaults: 200 samples, 20 children. Prints key=value lines:
# sampler_samples, sampler_processes, sampler_self_cpu_ms,
# sampler_cpu_us_per_sample, sampler_cpu_us_per_process, sampler_wall_ms.
# A sample reads three small /proc files per process (stat, children,
# smaps_rollup): its cost grows with the processes and the syscall speed.
set -eu

kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
sampler="${BUILD_DIR:-$kit_dir/build}/sshperf-sampler"
samples=${1:-200}
children=${2:-20}

if [ ! -x "$sampler" ]; then
	printf '%s: not built; run make first\n' "$sampler" >&2
	exit 2
fi
tree=""
cleanup () {
	[ -z "$tree" ] || kill -TERM "$tree" 2>/dev/null || true
	tree=""
}
trap cleanup EXIT

# The stand-in: children that sleep until their parent is told to stop
# (none: a sleep alone).
stand_in () {
	if [ "$1" -eq 0 ]; then
		sleep 600 &
	else
		bash -c 'trap "kill \$(jobs -p) 2>/dev/null; exit 0" TERM
			for i in $(seq 1 "$1"); do sleep 600 & done
			wait' bench-tree "$1" &
	fi
	tree=$!
	# Wait (with a deadline) until every child is there.
	for _ in $(seq 1 200); do
		n=$("$sampler" -p "$tree" once 2>/dev/null | sed -n 's/^processes=//p')
		[ "${n:-0}" -ge $(($1 + 1)) ] && break
		sleep 0.01
	done
}

# CPU in ms of $1 once runs against the stand-in: the children's line of
# `times` in a shell of its own, which runs nothing else.
cpu_ms () {
	(
		for _ in $(seq 1 "$1"); do "$sampler" -p "$tree" once >/dev/null; done
		times
	) | awk 'NR == 2 {
		for (i = 1; i <= 2; i++) { split($i, t, /[ms]/); ms += (t[1] * 60 + t[2]) * 1000 }
		printf "%.3f", ms }'
}

stand_in 0
base=$(cpu_ms "$samples")
cleanup
stand_in "$children"
processes=$("$sampler" -p "$tree" once | sed -n 's/^processes=//p')
start=$(date +%s%N)
cpu=$(cpu_ms "$samples")
end=$(date +%s%N)
printf 'sampler_samples=%s\n' "$samples"
printf 'sampler_processes=%s\n' "$processes"
printf 'sampler_self_cpu_ms=%s\n' "$cpu"
printf 'sampler_cpu_us_per_sample=%s\n' "$(awk -v c="$cpu" -v n="$samples" 'BEGIN { printf "%.1f", c * 1000 / n }')"
printf 'sampler_cpu_us_per_process=%s\n' "$(awk -v c="$cpu" -v b="$base" -v n="$samples" -v k="$children" 'BEGIN { printf "%.1f", (c - b) * 1000 / n / k }')"
printf 'sampler_wall_ms=%s\n' "$(( (end - start) / 1000000 ))"
