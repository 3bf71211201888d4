# shellcheck shell=bash
# How a figure is rounded: one rule per unit (docs/data.md, "Rounding"),
# so that every place that writes a quantity for a reader (the report,
# and the reasons and warnings the tests write into their data) prints
# the same digits of it; tests/t87-figures.sh checks the report by the
# same rule. Sourced by lib/common.sh and lib/report/units.sh.

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

# figs UNIT VALUE: fig's figure on standard output, for a sentence.
figs () {
	local f
	fig f "$1" "$2"
	printf '%s' "$f"
}
