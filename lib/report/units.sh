# shellcheck shell=bash
# The report's figures: fig and unit_decimals (lib/units.sh, one rule per
# unit, docs/data.md "Rounding"), MemAvailable in MB and a test's headline
# by its unit; sourced by lib/bin/render.sh.

# shellcheck source=lib/units.sh
. "$KIT_DIR/lib/units.sh"

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
