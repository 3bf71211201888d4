# shellcheck shell=bash
# SVG charts of a run, drawn by the kit itself (bash and awk; no network, no
# extra package), their figures rounded as the tables' (lib/units.sh).
# Sourced by lib/bin/render.sh: charts_write RUN_DIR draws every
# chart whose data exists into RUN_DIR/charts/, chart_links NAME prints the
# markdown image links of the charts that belong to the report section NAME.
#
# Three generic drawings, each reading TSV on stdin (a header line, then
# rows; an empty cell or "-" is a missing value and is not drawn):
#   svg_bars OUT TITLE UNIT     label, series...  horizontal grouped bars
#   svg_stacked OUT TITLE UNIT  label, part...    horizontal stacked bars
#   svg_lines OUT TITLE XLABEL YLABEL [UNIT]  x, series...  lines with points
#     (REF_SERIES="2 3": those series are references: dashed, no labels)
#
# The charts and the data they read (a chart whose data is absent is not
# drawn); the tables and their columns are declared in docs/data.md:
#   login-phases.svg     data/login.env  PHASE_p50 (connect greeting kex auth session), total_p50 at the end
#   login-waterfall.svg  raw/login-parts.tsv (sample phase whose ms) of the
#                        median login by raw/login-samples.tsv's total_ms
#                        (sample status total_ms)
#   NAME-latency.svg     data/NAME.env   p50 p90 p95 p99 max of the test's main
#                        latency (login: total_*, session: p*, interactive:
#                        libssh_* and ssh_*; auth: ed25519_*, rsa_*,
#                        password_*; rate: the first PREFIXp50 key with
#                        a matching PREFIXp95)
#   shell-parts.svg      data/shell.env  part_login_p50 part_session_p50
#                        part_shell_p50 (and floor_part_*), whole_ready_p50
#                        and floor_ready_p50 at the end; shell-latency.svg:
#                        whole_ready_* and floor_ready_*
#   burst-accepted.svg   raw/burst-steps.tsv, columns clients and ok, next to
#                        the MaxStartups model (lib/maxstartups.sh)
#   transfer-ciphers.svg raw/transfer-runs.tsv, columns cipher, direction,
#                        mbs; raw/transfer-ceiling.tsv, columns cipher, mbs, mac_timed
#   rate-sweep-achieved.svg, rate-sweep-latency.svg
#                        raw/rate-sweep.tsv, columns offered_per_s,
#                        achieved_per_s, p50_ms, p95_ms
#   distance-figures.svg raw/wire.tsv, columns rtt_ms, login_ms_p50,
#                        keyecho_ms_p50, connect_ms_p50
#   distance-maxstartups.svg
#                        raw/wire-maxstartups.tsv, columns rtt_ms,
#                        predicted_per_s
#   memory-sessions.svg  data/memory.env rest_pss_kb, open_pss_kb (drawn in
#                        MB, 10^6 bytes, like the table),
#                        sessions_open (concurrent-memory.svg: the same keys
#                        of data/probe-hold.env, without a memory test)

# shellcheck source=lib/maxstartups.sh
. "$KIT_DIR/lib/maxstartups.sh"
# shellcheck source=lib/units.sh
. "$KIT_DIR/lib/units.sh"

CHART_PALETTE="#4477aa #ee6677 #228833 #ccbb44 #66ccee #aa3377 #bbbbbb"

# The awk functions every drawing shares: escaping, number format, ticks.
CHART_AWK='
function esc(s) {
	gsub(/&/, "\\&amp;", s); gsub(/</, "\\&lt;", s); gsub(/>/, "\\&gt;", s)
	gsub(/"/, "\\&quot;", s); gsub(/\047/, "\\&#39;", s)
	return s
}
function num(s) { return s ~ /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/ }
# A value as printed on a chart: the decimals of its unit (dec, from
# unit_decimals, lib/units.sh), as the tables of the report print it
# (612.0 ms, not 612); fmt3 without a unit.
function fmt(v) {
	if (dec != "") return sprintf("%." dec "f", v)
	return fmt3(v)
}
# 3 significant digits, a whole number as one: a value on the axis (the
# offered rate of a step, a round-trip setting).
function fmt3(v,   a) {
	a = v < 0 ? -v : v
	if (v == int(v)) return sprintf("%d", v)
	if (a >= 100) return sprintf("%.0f", v)
	if (a >= 10) return sprintf("%.1f", v)
	if (a >= 1) return sprintf("%.2f", v)
	return sprintf("%.3f", v)
}
# An axis tick: no needless decimals.
function tick(t) { return (t == int(t)) ? sprintf("%d", t) : sprintf("%g", t) }
# A "nice" axis end and step (1, 2, 2.5 or 5 times a power of ten).
function nicestep(max,   raw, p, m) {
	if (max <= 0) return 1
	raw = max / 5
	p = 1
	while (p * 10 <= raw) p *= 10
	while (p > raw) p /= 10
	m = raw / p
	if (m <= 1) return p
	if (m <= 2) return 2 * p
	if (m <= 2.5) return 2.5 * p
	if (m <= 5) return 5 * p
	return 10 * p
}
function head(w, h, title) {
	printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">\n", w, h, w, h
	printf "<title>%s</title>\n", esc(title)
	printf "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", w, h
	printf "<text x=\"%d\" y=\"20\" font-size=\"14\" font-weight=\"bold\">%s</text>\n", 10, esc(title)
}
function legend(x, y, n, names,   i) {
	for (i = 1; i <= n; i++) {
		printf "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", x, y - 10, COLOR[(i - 1) % NCOLOR + 1]
		printf "<text x=\"%d\" y=\"%d\">%s</text>\n", x + 16, y, esc(names[i])
		x += 28 + 7 * length(names[i])
	}
}
# hframe NR LABELS BH GAP MAX NS NAMES: the frame of a chart of NR
# horizontal bars of height BH, GAP apart, labelled LABELS[1..NR], on an
# axis from 0 to MAX (rounded up to a step) in unit: the title, the
# legend of NS parts NAMES, the grid and the axis label. Sets the
# geometry the bars use: left, plotw, top, end, y0, y1.
function hframe(nr, labels, bh, gap, max, ns, names,   r, lw, t, x) {
	lw = 0
	for (r = 1; r <= nr; r++) if (length(labels[r]) > lw) lw = length(labels[r])
	left = 20 + 7 * lw; right = 70; plotw = 640 - left - right
	top = 54; h = top + nr * (bh + gap) + 40
	step = nicestep(max); end = step * int(max / step + 0.999999); if (end < max) end += step
	head(640, h, title)
	legend(10, 42, ns, names)
	y0 = top; y1 = top + nr * (bh + gap)
	for (t = 0; t <= end + step / 1e6; t += step) {
		x = left + plotw * t / end
		printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dddddd\"/>", x, y0, x, y1
		printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\">%s</text>\n", x, y1 + 14, tick(t)
	}
	printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\">%s</text>\n", left + plotw / 2, y1 + 32, esc(unit)
}
BEGIN {
	FS = "\t"
	NCOLOR = split(palette, COLOR, " ")
}
'

# svg_bars OUT TITLE UNIT: horizontal bars, one group per row, one bar per
# series (column); the value is written at the end of each bar.
svg_bars () {
	awk -v title="$2" -v unit="$3" -v dec="$(unit_decimals "$3")" -v palette="$CHART_PALETTE" "$CHART_AWK"'
	NR == 1 { ns = NF - 1; for (i = 2; i <= NF; i++) series[i - 1] = $i; next }
	NF >= 2 {
		nr++; label[nr] = $1
		for (i = 2; i <= ns + 1; i++) {
			v[nr, i - 1] = $i
			if (num($i) && $i + 0 > max) max = $i + 0
			if (num($i)) have++
		}
	}
	END {
		if (!have) exit 1
		lw = 0
		for (r = 1; r <= nr; r++) if (length(label[r]) > lw) lw = length(label[r])
		left = 20 + 7 * lw; right = 70; plotw = 640 - left - right
		bh = 16; gap = 10; top = (ns > 1) ? 54 : 36
		h = top + nr * (ns * bh + gap) + 40
		step = nicestep(max); end = step * int(max / step + 0.999999); if (end < max) end += step
		if (end <= 0) end = 1
		head(640, h, title)
		if (ns > 1) legend(10, 42, ns, series)
		y0 = top; y1 = top + nr * (ns * bh + gap)
		for (t = 0; t <= end + step / 1e6; t += step) {
			x = left + plotw * t / end
			printf "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#dddddd\"/>", x, y0, x, y1
			printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\">%s</text>\n", x, y1 + 14, tick(t)
		}
		printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\">%s</text>\n", left + plotw / 2, y1 + 32, esc(unit)
		y = top
		for (r = 1; r <= nr; r++) {
			printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", left - 6, y + ns * bh / 2 + 4, esc(label[r])
			for (s = 1; s <= ns; s++) {
				val = v[r, s]
				if (num(val)) {
					bw = plotw * val / end
					printf "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s %s: %s %s</title></rect>", left, y, bw, bh - 2, COLOR[(s - 1) % NCOLOR + 1], esc(label[r]), esc(series[s]), fmt(val), esc(unit)
					printf "<text x=\"%.1f\" y=\"%d\">%s</text>\n", left + bw + 4, y + bh - 5, fmt(val)
				}
				y += bh
			}
			y += gap
		}
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", left, y0, left, y1
		print "</svg>"
	}' >"$1.tmp" || { rm -f "$1.tmp"; return 1; }
	mv -f "$1.tmp" "$1"
}

# svg_stacked OUT TITLE UNIT: one horizontal bar per row, its parts stacked
# in the order of the columns; the part's value inside it when it fits,
# the total at the end: the sum of the parts, or, with a last column named
# "=NAME", that column's value (a total measured on its own, such as a p50
# of the whole, which the parts' p50s need not add up to).
svg_stacked () {
	awk -v title="$2" -v unit="$3" -v dec="$(unit_decimals "$3")" -v palette="$CHART_PALETTE" "$CHART_AWK"'
	NR == 1 {
		ns = NF - 1; for (i = 2; i <= NF; i++) part[i - 1] = $i
		if ($NF ~ /^=/) { given = 1; ns-- }
		next
	}
	NF >= 2 {
		nr++; label[nr] = $1; sum = 0
		for (i = 2; i <= ns + 1; i++) { v[nr, i - 1] = $i; if (num($i)) { sum += $i; have++ } }
		total[nr] = sum
		if (given && num($(ns + 2))) total[nr] = $(ns + 2)
		if (sum > max) max = sum
		if (total[nr] > max) max = total[nr]
	}
	END {
		if (!have || max <= 0) exit 1
		bh = 28; gap = 12
		hframe(nr, label, bh, gap, max, ns, part)
		y = top
		for (r = 1; r <= nr; r++) {
			printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 6, y + bh / 2 + 4, esc(label[r])
			x = left
			for (s = 1; s <= ns; s++) {
				val = v[r, s]
				if (!num(val)) continue
				bw = plotw * val / end
				printf "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\" stroke=\"#ffffff\"><title>%s: %s %s</title></rect>", x, y, bw, bh, COLOR[(s - 1) % NCOLOR + 1], esc(part[s]), fmt(val), esc(unit)
				if (bw >= 7 * length(fmt(val)) + 4)
					printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#ffffff\">%s</text>", x + bw / 2, y + bh / 2 + 4, fmt(val)
				printf "\n"
				x += bw
			}
			printf "<text x=\"%.1f\" y=\"%d\" font-weight=\"bold\">%s</text>\n", x + 4, y + bh / 2 + 4, fmt(total[r])
			y += bh + gap
		}
		print "</svg>"
	}' >"$1.tmp" || { rm -f "$1.tmp"; return 1; }
	mv -f "$1.tmp" "$1"
}

# svg_waterfall OUT TITLE UNIT: a waterfall, one horizontal bar per row
# in the order given (time order), each starting where the bars above it
# ended: columns label, then "@start" (the row's start on the axis), then
# the parts, stacked in the order of the columns. The row's length at its
# end; each part's value in its tooltip ("LABEL, PART: VALUE UNIT").
svg_waterfall () {
	awk -v title="$2" -v unit="$3" -v dec="$(unit_decimals "$3")" -v palette="$CHART_PALETTE" "$CHART_AWK"'
	NR == 1 { ns = NF - 2; for (i = 3; i <= NF; i++) part[i - 2] = $i; next }
	NF >= 3 && num($2) {
		nr++; label[nr] = $1; start[nr] = $2 + 0; sum = 0
		for (i = 3; i <= ns + 2; i++) { v[nr, i - 2] = $i; if (num($i)) { sum += $i; have++ } }
		len[nr] = sum
		if (start[nr] + sum > max) max = start[nr] + sum
	}
	END {
		if (!have || max <= 0) exit 1
		bh = 20; gap = 8
		hframe(nr, label, bh, gap, max, ns, part)
		y = top
		for (r = 1; r <= nr; r++) {
			printf "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n", left - 6, y + bh / 2 + 4, esc(label[r])
			x = left + plotw * start[r] / end
			for (s = 1; s <= ns; s++) {
				val = v[r, s]
				if (!num(val)) continue
				bw = plotw * val / end
				printf "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"><title>%s, %s: %s %s</title></rect>\n", x, y, bw, bh, COLOR[(s - 1) % NCOLOR + 1], esc(label[r]), esc(part[s]), fmt(val), esc(unit)
				x += bw
			}
			printf "<text x=\"%.1f\" y=\"%d\">%s</text>\n", x + 4, y + bh / 2 + 4, fmt(len[r])
			y += bh + gap
		}
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", left, y0, left, y1
		print "</svg>"
	}' >"$1.tmp" || { rm -f "$1.tmp"; return 1; }
	mv -f "$1.tmp" "$1"
}

# svg_lines OUT TITLE XLABEL YLABEL [UNIT]: one line per series (column)
# over the numeric x of the first column, each point marked and labelled;
# the points' figures rounded for UNIT (unit_decimals), by default the
# label's own words (a label that is a unit, as "ms").
svg_lines () {
	awk -v title="$2" -v xlabel="$3" -v ylabel="$4" -v dec="$(unit_decimals "${5:-$4}")" -v refs=" ${REF_SERIES:-} " -v palette="$CHART_PALETTE" "$CHART_AWK"'
	NR == 1 { ns = NF - 1; for (i = 2; i <= NF; i++) series[i - 1] = $i; next }
	num($1) {
		nr++; xv[nr] = $1 + 0; if ($1 + 0 > xmax) xmax = $1 + 0
		for (i = 2; i <= ns + 1; i++) {
			v[nr, i - 1] = $i
			if (num($i)) { have++; if ($i + 0 > ymax) ymax = $i + 0 }
		}
	}
	END {
		if (!have) exit 1
		left = 60; right = 30; top = 54; ph = 240; pw = 640 - left - right
		h = top + ph + 50
		ystep = nicestep(ymax); yend = ystep * int(ymax / ystep + 0.999999); if (yend < ymax) yend += ystep
		if (yend <= 0) yend = 1
		xstep = nicestep(xmax); xend = xstep * int(xmax / xstep + 0.999999); if (xend < xmax) xend += xstep
		if (xend <= 0) xend = 1
		head(640, h, title)
		legend(10, 42, ns, series)
		for (t = 0; t <= yend + ystep / 1e6; t += ystep) {
			y = top + ph - ph * t / yend
			printf "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#dddddd\"/>", left, y, left + pw, y
			printf "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\" fill=\"#555555\">%s</text>\n", left - 4, y + 4, tick(t)
		}
		for (t = 0; t <= xend + xstep / 1e6; t += xstep) {
			x = left + pw * t / xend
			printf "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\">%s</text>\n", x, top + ph + 14, tick(t)
		}
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>", left, top + ph, left + pw, top + ph
		printf "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333333\"/>\n", left, top, left, top + ph
		printf "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\">%s</text>\n", left + pw / 2, top + ph + 34, esc(xlabel)
		printf "<text x=\"14\" y=\"%d\" text-anchor=\"middle\" fill=\"#555555\" transform=\"rotate(-90 14 %d)\">%s</text>\n", top + ph / 2, top + ph / 2, esc(ylabel)
		for (s = 1; s <= ns; s++) {
			c = COLOR[(s - 1) % NCOLOR + 1]; pts = ""
			ref = index(refs, " " s " ") > 0
			for (r = 1; r <= nr; r++) if (num(v[r, s]))
				pts = pts sprintf("%.1f,%.1f ", left + pw * xv[r] / xend, top + ph - ph * v[r, s] / yend)
			if (pts != "") printf "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>\n", pts, c, ref ? " stroke-dasharray=\"6 4\"" : ""
			for (r = 1; r <= nr; r++) if (num(v[r, s])) {
				x = left + pw * xv[r] / xend; y = top + ph - ph * v[r, s] / yend
				printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"><title>%s at %s: %s</title></circle>", x, y, c, esc(series[s]), fmt3(xv[r]), fmt(v[r, s])
				if (!ref) printf "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"10\" fill=\"%s\">%s</text>", x, (s % 2 == 1) ? y - 7 : y + 15, c, fmt(v[r, s])
				printf "\n"
			}
		}
		print "</svg>"
	}' >"$1.tmp" || { rm -f "$1.tmp"; return 1; }
	mv -f "$1.tmp" "$1"
}

# ---- Reading the run's data ----------------------------------------------

# chart_get FILE KEY
chart_get () {
	kv_cached "$1" "$2"
}

# chart_get_to VAR FILE KEY: chart_get into VAR; chart_has FILE KEY: true
# when the key has a value. Without a $(...): a fork of the renderer's
# shell per cell of a chart.
chart_get_to () {
	kv_cached_to "$@"
}

chart_has () {
	local v
	kv_cached_to v "$1" "$2"
	[ -n "$v" ]
}

# Tables are read by column name: tsv_select (lib/data.sh).

# latency_prefix ENV TEST: the key prefix of the test's main latency.
latency_prefix () {
	local env=$1 p
	for p in total_ echo_ command_ rtt_ login_ latency_ ""; do
		if chart_has "$env" "${p}p50" && chart_has "$env" "${p}p95"; then
			printf '%s' "$p"
			return 0
		fi
	done
	# Any PREFIXp50 with a PREFIXp95 next to it.
	# shellcheck disable=SC2013 # the prefixes are single words
	for p in $(sed -n 's/^\([A-Za-z0-9_]*_\)p50=.*/\1/p' "$env"); do
		if chart_has "$env" "${p}p95"; then
			printf '%s' "$p"
			return 0
		fi
	done
	return 1
}

# The number at the bar's end is the complete login's p50 (total_p50), the
# table's Total, not the sum of the phase p50s, which need not equal it.
chart_login_phases () {
	local env="$1/data/login.env" out="$1/charts/login-phases.svg" ph v row head="login"
	chart_get_to v "$env" total_n
	row="p50 of $v logins"
	[ -f "$env" ] && chart_has "$env" kex_p50 || return 0
	for ph in connect greeting kex auth session; do
		chart_get_to v "$env" "${ph}_p50"
		head="$head	$ph"
		row="$row	${v:--}"
	done
	chart_get_to v "$env" total_p50
	head="$head	=total"
	row="$row	${v:--}"
	printf '%s\n%s\n' "$head" "$row" | svg_stacked "$out" "Login phases: p50 of each phase; at the end the p50 of the complete login (ms)" "ms"
}

# The time to a usable shell in its parts (data/shell.env): p50 of the
# login, the session and the shell with its start files, for the whole
# login and for the floor, each with the p50 of its whole time at the end.
chart_shell_parts () {
	local env="$1/data/shell.env" out="$1/charts/shell-parts.svg" kind p row v whole head="login"
	[ -f "$env" ] && chart_has "$env" part_login_p50 || return 0
	for p in login session shell; do head="$head	$p"; done
	printf '%s\t=total\n' "$head" >"$out.tsv"
	for kind in "" floor_; do
		if [ -z "$kind" ]; then row="with the start files" whole=whole
		else row="floor: start files skipped" whole=floor
		fi
		for p in login session shell; do
			chart_get_to v "$env" "${kind}part_${p}_p50"
			row="$row	${v:--}"
		done
		chart_get_to v "$env" "${whole}_ready_p50"
		printf '%s\t%s\n' "$row" "${v:--}" >>"$out.tsv"
	done
	svg_stacked "$out" "Time to a usable shell: p50 of each part; at the end the p50 of the whole time (ms)" "ms" <"$out.tsv"
	rm -f "$out.tsv"
}

# The median login's waterfall (raw/login-parts.tsv, raw/login-samples.tsv):
# of the ok logins with a timeline, the one whose total is their p50 (the
# nearest rank, as sshperf-summary takes it); one bar per phase in time
# order, each starting where the one before ended, its length the phase's
# time split into sshd's turns, the client's and TCP waits (summed within
# the phase: the packets give each gap to a side, the table keeps one sum
# per phase and side); a last bar for the rest, what no packet covered,
# when that is not zero.
chart_login_waterfall () {
	local run=$1 out="$1/charts/login-waterfall.svg" rows data meta med
	rows=$({
		tsv_select "$run/raw/login-samples.tsv" sample status total_ms | sed 's/^/L\t/'
		tsv_select "$run/raw/login-parts.tsv" sample phase whose ms | sed 's/^/P\t/'
	} 2>/dev/null)
	# The p50 of the totals of the ok logins with a timeline (lib/stats.sh).
	med=$(printf '%s\n' "$rows" | awk -F'\t' '
		$1 == "L" { if ($3 == "ok") total[$2] = $4; next }
		$1 == "P" { parts[$2] = 1 }
		END { for (s in parts) if (s in total) print total[s] }' | stats_median)
	[ -n "$med" ] || return 0
	data=$(printf '%s\n' "$rows" | awk -F'\t' -v med="$med" '
		$1 == "L" { if ($3 == "ok") total[$2] = $4; next }
		$1 == "P" { v[$2, $3, $4] += $5; parts[$2] = 1 }
		END {
			# The login whose total is the p50: the first by number of
			# those with that total.
			for (t in parts) if (t in total) {
				n++
				if (total[t] + 0 == med + 0 && (s == "" || t + 0 < s + 0)) s = t
			}
			if (s == "") exit 1
			printf "#\t%s\t%d\t%.0f\n", s, n, total[s]
			split("connect greeting kex auth session", ph, " ")
			split("1. TCP connect|2. Greeting|3. Key exchange|4. Authentication|5. Session", label, "|")
			split("server client tcp_wait", side, " ")
			for (k = 1; k <= 5; k++) for (w = 1; w <= 3; w++) sum += v[s, ph[k], side[w]]
			# Rounding of the 15 3-decimal cells is no rest (lib/capture.sh).
			rest = total[s] - sum
			if (rest < 0.01) rest = 0
			printf "phase\t@start\tsshd\tclient\tTCP wait%s\n", rest ? "\trest" : ""
			at = 0
			for (k = 1; k <= 5; k++) {
				a = v[s, ph[k], "server"] + 0; b = v[s, ph[k], "client"] + 0; c = v[s, ph[k], "tcp_wait"] + 0
				printf "%s\t%.3f\t%.3f\t%.3f\t%.3f%s\n", label[k], at, a, b, c, rest ? "\t-" : ""
				at += a + b + c
			}
			if (rest) printf "rest (no packet)\t%.3f\t-\t-\t-\t%.3f\n", at, rest
		}') || return 0
	meta=$(printf '%s\n' "$data" | head -n 1)
	# shellcheck disable=SC2086 # four words: #, sample, n, total
	set -- $meta
	printf '%s\n' "$data" | tail -n +2 | svg_waterfall "$out" "Median login ($4 ms, sample $2 of $3): whose time, phase by phase" "ms"
}

# chart_latency RUN NAME [PREFIX:LABEL...]: the percentiles of the test's
# latency keys PREFIXp50 ... PREFIXmax, one series per prefix present
# (without prefixes: the first that latency_prefix finds).
chart_latency () {
	local run=$1 name=$2 env="$1/data/$2.env" spec p label head="percentile" k v n="" title
	local -a prefixes=() labels=()
	shift 2
	[ -f "$env" ] || return 0
	if [ "$#" -eq 0 ]; then
		p=$(latency_prefix "$env") || return 0
		label=${p%_}
		set -- "$p:${label:-$name}"
	fi
	for spec in "$@"; do
		p=${spec%%:*}
		chart_has "$env" "${p}p50" || continue
		prefixes+=("$p")
		labels+=("${spec#*:}")
		head="$head	${spec#*:}"
		[ -n "$n" ] || chart_get_to n "$env" "${p}n"
	done
	[ "${#prefixes[@]}" -gt 0 ] || return 0
	case $name in
	auth) title="Login by authentication method" ;;
	rate) title="Login time under load" ;;
	*) title=${METRIC_TITLE[$name]:-$name} ;;
	esac
	[ "${#prefixes[@]}" -eq 1 ] || n=""
	{
		printf '%s\n' "$head"
		for k in p50 p90 p95 p99 max; do
			printf '%s' "$k"
			for p in "${prefixes[@]}"; do
				chart_get_to v "$env" "${p}$k"
				printf '\t%s' "${v:--}"
			done
			printf '\n'
		done
	} | svg_bars "$run/charts/$name-latency.svg" "$title: percentiles (ms${n:+, n = $n})" "ms"
}

chart_burst () {
	local run=$1 data spec steps
	data=$(tsv_select "$run/raw/burst-steps.tsv" clients ok |
		awk -F'\t' '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { a[$1] = $2 } END { for (k in a) print k "\t" a[k] }' | sort -n) || true
	[ -n "$data" ] || return 0
	spec=$(maxstartups_of_run "$run")
	steps=$(printf '%s\n' "$data" | awk -F'\t' '{ print $1 }' | tr '\n' ' ')
	{
		printf 'clients\tlogged in (measured)\tall clients\tMaxStartups %s (expected)\n' "${spec:-?}"
		join -t "$(printf '\t')" -a 1 <(printf '%s\n' "$data" | sort -k1,1) \
			<(maxstartups_expected "$spec" "$steps" | sort -k1,1) | sort -n |
			awk -F'\t' -v OFS='\t' '{ print $1, $2, $1, $3 }'
	} | REF_SERIES="2 3" svg_lines "$run/charts/burst-accepted.svg" "Burst: clients logged in when released at once" "clients released at once" "clients logged in" clients
}

# One bar group per cipher: a bar per direction, and the cipher's ceiling;
# no ceiling where OpenSSL could not time the cipher's MAC (mac_timed no):
# the table marks that one "not timed (too high)", and the chart draws
# only what the table stands by (issue 46, case 13).
chart_transfer () {
	local run=$1 rows ceil
	rows=$(tsv_select "$run/raw/transfer-runs.tsv" cipher direction mbs) || return 0
	ceil=$(tsv_select "$run/raw/transfer-ceiling.tsv" cipher mbs mac_timed) || ceil=""
	{
		printf '%s\n' "$ceil" | sed 's/^/C\t/'
		printf '%s\n' "$rows" | sed 's/^/T\t/'
	} | awk -F'\t' '
	$1 == "C" && $2 != "" { if ($4 != "no") ceil[$2] = $3; next }
	$1 == "T" && $2 != "" {
		c = $2; if (!(c in seen)) { seen[c] = 1; order[++n] = c }
		d = $3; if (!(d in dseen)) { dseen[d] = 1; dirs[++nd] = d }
		v[c, d] = $4
	}
	END {
		printf "cipher"; for (j = 1; j <= nd; j++) printf "\t%s", dirs[j]
		printf "\tsingle-core ceiling (OpenSSL)\n"
		for (i = 1; i <= n; i++) {
			c = order[i]; printf "%s", c
			for (j = 1; j <= nd; j++) printf "\t%s", v[c, dirs[j]]
			printf "\t%s\n", (c in ceil) ? ceil[c] : ""
		}
	}' | svg_bars "$run/charts/transfer-ciphers.svg" "Transfer per cipher, next to the cipher's ceiling" "MB/s"
}

# At rest and with every session open: the memory test's keys, else those
# of the concurrent test's hold (then the chart belongs to concurrent).
chart_memory () {
	local run=$1 data="" out env rest open sessions
	out="$run/charts/memory-sessions.svg"
	for env in "$run/data/memory.env" "$run/data/probe-hold.env"; do
		chart_get_to rest "$env" rest_pss_kb
		chart_get_to open "$env" open_pss_kb
		chart_get_to sessions "$env" sessions_open
		if is_number "$rest" && is_number "$open" && is_number "$sessions"; then
			data=$(awk -v r="$rest" -v o="$open" -v s="$sessions" 'BEGIN {
				printf "0\t%.1f\n%d\t%.1f\n", r * 1024 / 1e6, s, o * 1024 / 1e6 }')
			break
		fi
	done
	[ -f "$run/data/memory.env" ] || out="$run/charts/concurrent-memory.svg"
	[ -n "$data" ] || return 0
	{
		printf 'sessions\tPSS of the test server (MB)\n'
		printf '%s\n' "$data" | sort -n
	} | svg_lines "$out" "Memory of the test server vs open sessions" "open sessions" "MB (PSS, 10^6 bytes)"
}

# The rate test's open-loop sweep (raw/rate-sweep.tsv): the achieved rate
# against the offered one (the offered rate itself as a dashed reference,
# where a server that keeps up lies), and the login latency p50 / p95
# against the offered rate, next to TARGET_LOGIN_P95_MS.
chart_rate_sweep () {
	local run=$1 f="$1/raw/rate-sweep.tsv" target
	tsv_select "$f" offered_per_s achieved_per_s p50_ms p95_ms >/dev/null || return 0
	{
		printf 'offered\tachieved logins/s\toffered (keeping up)\n'
		tsv_select "$f" offered_per_s achieved_per_s offered_per_s
	} | REF_SERIES=2 svg_lines "$run/charts/rate-sweep-achieved.svg" "Login capacity: achieved vs offered logins/s" "offered logins/s" "achieved logins/s"
	chart_get_to target "$run/data/settings.env" TARGET_LOGIN_P95_MS
	target=${target//\'/}
	{
		printf 'offered\tp50 ms\tp95 ms\tTARGET_LOGIN_P95_MS\n'
		tsv_select "$f" offered_per_s p50_ms p95_ms | awk -F'\t' -v OFS='\t' -v t="${target:--}" '{ print $0, t }'
	} | REF_SERIES=3 svg_lines "$run/charts/rate-sweep-latency.svg" "Login latency vs offered logins/s (from the due time of each login)" "offered logins/s" "ms"
}

# The figures against the round-trip time, for the section "At your
# users' distance": from raw/wire.tsv the login p50, the keystroke echo
# p50 and the wire's own TCP connect p50 (distance-figures.svg); from
# raw/wire-maxstartups.tsv the arrival rate where MaxStartups begins to
# refuse (distance-maxstartups.svg). Each point is a cell of its table.
chart_distance () {
	local run=$1 f="$1/raw/wire.tsv" m="$1/raw/wire-maxstartups.tsv"
	if tsv_select "$f" rtt_ms >/dev/null 2>&1; then
		{
			printf 'RTT\tlogin p50 ms\tkeystroke echo p50 ms\twire: TCP connect p50 ms\n'
			tsv_select "$f" rtt_ms login_ms_p50 keyecho_ms_p50 connect_ms_p50
		} | svg_lines "$run/charts/distance-figures.svg" "Login and keystroke echo vs round-trip time" "RTT setting, ms" "ms"
	fi
	tsv_select "$m" rtt_ms >/dev/null 2>&1 || return 0
	{
		printf 'RTT\tlogins/s where MaxStartups begins to refuse\n'
		tsv_select "$m" rtt_ms predicted_per_s
	} | svg_lines "$run/charts/distance-maxstartups.svg" "Arrival rate where MaxStartups begins to refuse vs round-trip time" "RTT setting, ms" "logins/s"
}

# charts_write RUN_DIR: draws every chart that has data; a chart that cannot
# be drawn is left out, never a reason to fail the report.
charts_write () {
	local run=$1 name
	mkdir -p "$run/charts"
	rm -f "$run/charts/"*.svg
	chart_login_phases "$run" || true
	chart_login_waterfall "$run" || true
	chart_latency "$run" login "total_:login" || true
	chart_latency "$run" session ":command over the open connection" || true
	chart_latency "$run" interactive "libssh_:libssh client" "ssh_:ssh client" || true
	chart_latency "$run" auth "ed25519_:ed25519 key" "rsa_:RSA key" "password_:password" || true
	chart_latency "$run" rate || true
	chart_shell_parts "$run" || true
	chart_latency "$run" shell "whole_ready_:time to a usable shell" "floor_ready_:floor, start files skipped" || true
	chart_rate_sweep "$run" || true
	chart_burst "$run" || true
	chart_transfer "$run" || true
	chart_memory "$run" || true
	chart_distance "$run" || true
	rmdir "$run/charts" 2>/dev/null || true
}

# chart_links NAME: markdown image links of the section's charts.
chart_links () {
	local f title
	for f in "$RUN_DIR/charts/$1"-*.svg; do
		[ -f "$f" ] || continue
		chart_title title "$f"
		printf '![%s](charts/%s)\n\n' "$title" "${f##*/}"
	done
}

# chart_title VAR SVG: VAR gets the text of the chart's title, the first
# line that ends in "<title>TEXT</title>" (the second line of a chart);
# read by the shell, not sed and head, once per chart of the report.
chart_title () {
	local line
	printf -v "$1" ''
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in
		*'<title>'*'</title>')
			line=${line%'</title>'}
			printf -v "$1" '%s' "${line##*'<title>'}"
			return 0 ;;
		esac
	done <"$2"
}
