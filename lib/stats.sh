# shellcheck shell=bash
# The shell's door to the kit's statistics engine, sshperf-rank
# (helpers/rank.c; its outputs in docs/data.md, "The statistics engine").
# Percentiles, medians, intervals, the staged-sample plan and the
# two-level split are computed there and nowhere else: the shell keeps
# the words (t08s-stats-guard keeps the arithmetic out of lib/).
#
#   stats_rank_bin       the path of sshperf-rank, chosen as for stats_rank.
#   stats_rank ARGS...   runs sshperf-rank: HELPER_DIR's when lib/common.sh
#                        set it, else an installed copy's (lib/paths.sh),
#                        else the checkout's build/.
#   stats_median         the median (nearest rank, one of the numbers) of
#                        the numbers on stdin, one a line; nothing when
#                        there are none.
#   levels_of PREFIX     whether the numbers on stdin (ms, one a line) sit
#                        at two levels (sshperf-rank levels): PREFIXlevels=
#                        1, 2 or - (fewer than 4 numbers), then always
#                        PREFIXlow_n, _low_p50, _high_n, _high_p50 and
#                        _step_ms (empty unless 2).

# stats_rank_bin: the path of sshperf-rank (the installed helpers, or the
# checkout's build/), for a caller that feeds it from awk.
stats_rank_bin () {
	local d=${HELPER_DIR:-} kit
	kit=${KIT_DIR:-${BASH_SOURCE[0]%/lib/*}}
	if [ -z "$d" ] && [ -f "$kit/lib/paths.sh" ]; then
		# shellcheck source=/dev/null
		d=$(. "$kit/lib/paths.sh" && printf '%s' "${HELPER_DIR:-}")
	fi
	printf '%s' "${d:-$kit/build}/sshperf-rank"
}

stats_rank () {
	"$(stats_rank_bin)" "$@"
}

stats_median () {
	stats_rank percentile -q 50 | sed -n 's/^p50=//p'
}

levels_of () {
	stats_rank levels -p "$1"
}
