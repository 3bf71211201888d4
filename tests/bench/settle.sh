# shellcheck shell=bash
# Sourced by the benches that make runs one after another (stability.sh,
# real-changes.sh): wait for the machine to calm down before each run.
# A login-only run made straight after a full run measured login p95
# 340-405 ms where the full runs had measured 304-327 ms, and a run
# started at a load average of 23 (right after a burst of 100 clients)
# was slower in every phase of the login. Neither was sshd.
#
# Calm is the CPUs' busy share over SETTLE_WINDOW (2) seconds of
# /proc/stat, not the load average, which remembers a burst for minutes
# after it ended. SETTLE_BUSY_PCT (25): the share to wait for (0 or no:
# do not wait); SETTLE_SECONDS (120): the deadline; a run starts after it
# even when the machine is still busier, and the line it prints says so.

# settle_check: exit 2 with one line when a setting is not a number.
settle_check () {
	case ${SETTLE_BUSY_PCT:-25} in
	no) ;;
	*) printf '%s' "${SETTLE_BUSY_PCT:-25}" | grep -qxE '[0-9]+(\.[0-9]+)?' ||
		{ echo "settle: SETTLE_BUSY_PCT must be a percentage (0 or no: do not wait), not '$SETTLE_BUSY_PCT'" >&2; exit 2; } ;;
	esac
	case ${SETTLE_SECONDS:-120} in
	'' | *[!0-9]*) echo "settle: SETTLE_SECONDS must be a whole number of seconds, not '$SETTLE_SECONDS'" >&2; exit 2 ;;
	esac
	case ${SETTLE_WINDOW:-2} in
	'' | 0 | *[!0-9]*) echo "settle: SETTLE_WINDOW must be a whole number of seconds of at least 1, not '$SETTLE_WINDOW'" >&2; exit 2 ;;
	esac
}

# settle_busy: the CPUs' busy share (all cores, steal counted as busy)
# over the next SETTLE_WINDOW seconds, in percent.
settle_busy () {
	local a b
	a=$(awk '$1 == "cpu" { print; exit }' /proc/stat)
	sleep "${SETTLE_WINDOW:-2}"
	b=$(awk '$1 == "cpu" { print; exit }' /proc/stat)
	printf '%s\n%s\n' "$a" "$b" | awk '
		{ t = 0; for (i = 2; i <= NF; i++) t += $i; tot[NR] = t; idle[NR] = $5 + $6 }
		END { d = tot[2] - tot[1]; printf "%.0f", (d > 0 ? 100 * (1 - (idle[2] - idle[1]) / d) : 0) }'
}

# settle LABEL: wait until the CPUs are at most SETTLE_BUSY_PCT busy, up to
# SETTLE_SECONDS; prints one line to stderr with the share and the wait.
settle () {
	local want=${SETTLE_BUSY_PCT:-25} start now busy
	[ "$want" != no ] && awk -v w="$want" 'BEGIN { exit !(w > 0) }' || return 0
	start=$(date +%s)
	busy=$(settle_busy)
	now=$(date +%s)
	while [ "$busy" -gt "${want%.*}" ]; do
		if [ $((now - start)) -ge "${SETTLE_SECONDS:-120}" ]; then
			printf '# %s: the CPUs are still %s %% busy after %d s (waited for %s %%): it starts anyway\n' "$1" "$busy" "$((now - start))" "$want" >&2
			return 0
		fi
		busy=$(settle_busy)
		now=$(date +%s)
	done
	printf '# %s: CPUs %s %% busy, after %d s (waited for %s %% or less)\n' "$1" "$busy" "$((now - start))" "$want" >&2
}
