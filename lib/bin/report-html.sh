#!/usr/bin/env bash
# report-html.sh FILE.md [FILE.html]: the HTML twin of a report the kit
# wrote in its markdown subset (docs/report-format.md): one file with the
# style sheet (lib/report/report.css) and the charts (charts/NAME.svg next to
# FILE.md) inline, nothing outside it. Written next to FILE.md unless
# FILE.html is given. lib/bin/render.sh and test-ssh.sh --compare call it;
# the markdown is the one source of the content, this only changes its
# form. A line outside the subset is named on stderr (and the status is 1),
# the document is written all the same.
set -eu
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
md=${1:?usage: report-html.sh FILE.md [FILE.html]}
html=${2:-${md%.md}.html}
[ -f "$md" ] || { printf 'report-html.sh: %s: no such file\n' "$md" >&2; exit 2; }
title=$(sed -n 's/^# //p' "$md" | head -n 1)
rc=0
awk -v dir="$(dirname "$md")" -v css="$KIT_DIR/lib/report/report.css" -v src="$md" \
	-v title="${title:-sshd-perf-kit report}" -f "$KIT_DIR/lib/report/html.awk" "$md" >"$html.tmp" || rc=$?
if [ -s "$html.tmp" ]; then
	mv -f "$html.tmp" "$html"
else
	rm -f "$html.tmp"
	printf 'report-html.sh: writing %s failed\n' "$html" >&2
	exit 2
fi
exit "$rc"
