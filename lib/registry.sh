# shellcheck shell=bash disable=SC2034 # the arrays are read by the parts that source this
# The metric registry: lib/metrics.tab read once into
#   METRICS                  the names, in order, separated by spaces
#   METRIC_TITLE[name]       the report's heading
#   METRIC_DIRECTION[name]   lower or higher (which way is better)
#   METRIC_USES[name]        the probes it measures with (lib/probes/), comma list or -
#   METRIC_COMPARES[name]    the tests its report section compares with, comma list or -
#   METRIC_REFERENCE[name]   the specification's example
# Sourced by lib/compare.sh (and with it by every part that lists,
# titles or compares metrics); needs KIT_DIR.

declare -gA METRIC_TITLE=() METRIC_DIRECTION=() METRIC_USES=() METRIC_COMPARES=() METRIC_REFERENCE=()
METRICS=""

registry_load () {
	local file="$KIT_DIR/lib/metrics.tab" name direction uses compares title reference
	[ -r "$file" ] || { printf '%s: the metric registry %s is missing; reinstall the kit\n' "${0##*/}" "$file" >&2; return 2; }
	while IFS=$'\t' read -r name direction uses compares title reference; do
		case $name in '' | '#'* | name) continue ;; esac
		METRICS="${METRICS:+$METRICS }$name"
		METRIC_DIRECTION[$name]=$direction
		METRIC_USES[$name]=$uses
		METRIC_COMPARES[$name]=$compares
		METRIC_TITLE[$name]=$title
		METRIC_REFERENCE[$name]=$reference
	done <"$file"
}

registry_load || exit 2
