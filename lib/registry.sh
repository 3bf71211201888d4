# shellcheck shell=bash disable=SC2034 # the arrays are read by the parts that source this
# The metric registry: lib/metrics.tab read once into
#   METRICS                  the names, in order, separated by spaces
#   METRIC_TITLE[name]       the report's heading
#   METRIC_DIRECTION[name]   lower or higher (which way is better)
#   METRIC_USES[name]        the probes it measures with (lib/probes/), comma list or -
#   METRIC_COMPARES[name]    the tests its report section compares with, comma list or -
#   METRIC_NEEDS[name]       what test-ssh.sh does for it (restarts-server, password,
#                            precheck), comma list or -; metric_needs NAME WHAT asks
#   METRIC_NOISE[name]       the between-run noise of single runs, in %, or -
#   METRIC_CLIENT[name]      RATIO,CLIENT: the keys of sshd's figure over the ssh
#                            clients' and of theirs (data/NAME.env), or -
#   METRIC_REFERENCE[name]   the specification's example
# Sourced by lib/compare.sh (and with it by every part that lists,
# titles or compares metrics); needs KIT_DIR.

declare -gA METRIC_TITLE=() METRIC_DIRECTION=() METRIC_USES=() METRIC_COMPARES=() METRIC_NEEDS=() METRIC_NOISE=() METRIC_CLIENT=() METRIC_REFERENCE=()
METRICS=""

registry_load () {
	local file="$KIT_DIR/lib/metrics.tab" name direction uses compares needs noise client title reference
	[ -r "$file" ] || { printf '%s: the metric registry %s is missing; reinstall the kit\n' "${0##*/}" "$file" >&2; return 2; }
	while IFS=$'\t' read -r name direction uses compares needs noise client title reference; do
		case $name in '' | '#'* | name) continue ;; esac
		METRICS="${METRICS:+$METRICS }$name"
		METRIC_DIRECTION[$name]=$direction
		METRIC_USES[$name]=$uses
		METRIC_COMPARES[$name]=$compares
		METRIC_NEEDS[$name]=$needs
		METRIC_NOISE[$name]=$noise
		METRIC_CLIENT[$name]=$client
		METRIC_TITLE[$name]=$title
		METRIC_REFERENCE[$name]=$reference
	done <"$file"
}

# metric_needs NAME WHAT: true when the registry's needs column of NAME
# lists WHAT (restarts-server, password or precheck).
metric_needs () {
	case ",${METRIC_NEEDS[$1]:-}," in *",$2,"*) return 0 ;; *) return 1 ;; esac
}

registry_load || exit 2
