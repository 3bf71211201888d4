# shellcheck shell=bash
# How the report rounds a figure: one rule per unit (docs/data.md,
# "Rounding"), so that every place that prints a quantity prints the same
# digits of it, and the test of the figures (tests/t87-figures.sh) checks
# them against results.json by the same rule; sourced by lib/bin/render.sh.

# unit_decimals UNIT: the decimals a figure in UNIT gets: a tenth for
# times (ms), rates (MB/s, logins/s, files/s), shares (%) and cores;
# hundredths for memory per session (MB); none for counts (clients,
# sessions, processes, MB of MemAvailable, which fig_mb_of_kb rounds).
unit_decimals () {
	case $1 in
	MB) printf 2 ;;
	clients | sessions | processes | count) printf 0 ;;
	*) printf 1 ;;
	esac
}

# fig VAR UNIT VALUE [LO HI]: VALUE rounded for UNIT into VAR; "-" when
# missing, as it came when not a number. With a 95 % interval LO-HI, no
# finer than its width supports: the last digit a tenth of the width at
# most (an interval 20 ms wide: whole ms), never finer than the unit's.
fig () {
	local d
	case $3 in
	'' | -) printf -v "$1" -- '-'; return 0 ;;
	*[!0-9.+-]* | *.*.*) printf -v "$1" '%s' "$3"; return 0 ;;
	esac
	d=$(unit_decimals "$2")
	if [[ ${4:-} =~ ^-?[0-9.]+$ && ${5:-} =~ ^-?[0-9.]+$ ]]; then
		d=$(awk -v lo="$4" -v hi="$5" -v d="$d" 'BEGIN { w = hi - lo; if (w < 0) w = -w
			if (w > 0) { k = 0; while (k < d && w < 10 * 10 ^ -k) k++; d = k }; print d }')
	fi
	printf -v "$1" "%.${d}f" "$3"
}

# fig_mb_of_kb VAR KB: a memory figure the kernel gives in KiB
# (MemAvailable), as whole MB of 10^6 bytes.
fig_mb_of_kb () {
	case $2 in
	'' | - | *[!0-9]*) printf -v "$1" -- '-' ;;
	*) printf -v "$1" '%.0f' "$(($2 * 1024))e-6" ;;
	esac
}

# figure_fig VAR TEST: TEST's headline figure (data/TEST.env figure) by
# its unit and interval, "FIGURE UNIT"; nothing without a figure.
figure_fig () {
	local v=${D[$2|figure]-} lo=${D[$2|figure_lo]-} hi=${D[$2|figure_hi]-}
	case $v in '' | -) printf -v "$1" ''; return 0 ;; esac
	# A model's "interval" is no measurement's spread (burst): the
	# unit's own digits.
	[ "${D[$2|figure_method]-}" != model ] || lo="" hi=""
	fig "$1" "${D[$2|unit]-}" "$v" "$lo" "$hi"
	printf -v "$1" '%s %s' "${!1}" "${D[$2|unit]-}"
}
