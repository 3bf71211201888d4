#!/usr/bin/env bash
# How long does report.html take? Writes the HTML twin of the largest
# stored report (every recorded run of tests/data/runs rendered first,
# into a scratch copy) N times with lib/bin/report-html.sh, as lib/bin/render.sh
# does after report.md, and prints key=value lines: html_runs,
# html_md_lines, html_bytes, html_ms_p50, html_ms_max (wall time of one
# write, process start included). The goal is well under a second; no
# timed assertion (docs/testing.md).
#
#   tests/bench/html.sh [runs]
set -eu

kit_dir=$(cd "$(dirname "$0")/../.." && pwd)
runs=${1:-20}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sshperf-bench-html.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -R "$kit_dir/tests/data/runs/." "$tmp/"
best="" lines=0
for r in "$tmp"/*/; do
	r=${r%/}
	"$kit_dir/lib/bin/render.sh" "$r" >/dev/null 2>&1 || continue
	n=$(wc -l <"$r/report.md")
	[ "$n" -le "$lines" ] || { lines=$n; best=$r; }
done
[ -n "$best" ] || { echo "html.sh: no stored run rendered" >&2; exit 2; }
for _ in $(seq "$runs"); do
	a=$(date +%s%N)
	"$kit_dir/lib/bin/report-html.sh" "$best/report.md" "$tmp/out.html" 2>/dev/null || true
	b=$(date +%s%N)
	echo $(( (b - a) / 1000 ))
done >"$tmp/us"
sort -n "$tmp/us" | awk -v n="$runs" -v lines="$lines" -v bytes="$(wc -c <"$tmp/out.html")" '
	{ v[NR] = $1 }
	END {
		printf "html_runs=%d\nhtml_md_lines=%d\nhtml_bytes=%d\n", n, lines, bytes
		printf "html_ms_p50=%.1f\nhtml_ms_max=%.1f\n", v[int((NR + 1) / 2)] / 1000, v[NR] / 1000
	}'
