# shellcheck shell=bash
# The load mode's burst (lib/bin/load.sh): the client side of one step of
# the burst test (lib/metrics/burst.sh) from a load host. LOAD_BURST_CLIENTS
# ssh clients are started and held at the barrier (sshperf-gate as their
# ProxyCommand), then released at the same moment by sshperf-burst, each
# timed from the release, into raw/burst-load.tsv (the columns of the
# burst test's raw/burst-step-N.tsv: every client's outcome and the local
# address and port of its connection, by which the target classifies it
# against sshd's log, burst_classify) and raw/burst-load.env (the
# releaser's summary). When it is the first test of a run with
# --start-at, the release is the common start by the target's clock:
# LOAD_RELEASE_AT_NS, this host's wall clock corrected by the measured
# offset (lib/bin/load.sh). The classification is the target's: only its
# log says which refusals were MaxStartups'.

# A release spread (release to the last client's TCP connect) over this
# is flagged: the burst test's goal (BURST_SPREAD_GOAL_MS there).
LOAD_BURST_SPREAD_GOAL_MS=5

about_load_burst () {
	local when=""
	[ -z "${LOAD_RELEASE_AT_NS:-}" ] || when=", at the common start by the target's clock"
	printf '%s ssh clients held at a barrier and released at the same moment%s\n' "$LOAD_BURST_CLIENTS" "$when"
}

# load_burst CONFIG: the burst through the client configuration CONFIG;
# its counts, release spread and release moment into data/load.env as
# burst_*. False when the releaser did not run.
load_burst () {
	local n=$LOAD_BURST_CLIENTS base="$RAW_DIR/burst-load" spread offset_ns released wide k
	local -a at=()
	[ -z "${LOAD_RELEASE_AT_NS:-}" ] || at=(-R "$LOAD_RELEASE_AT_NS")
	# As the burst test: 60 s for the clients to be ready, and their
	# deadline after the release grows with their number.
	helper burst -H -n "$n" -g "$HELPER_DIR/sshperf-gate" "${at[@]}" -s "$base.env" -w 60 \
		-t "$((SETTING[LOGIN_TIMEOUT] + n / 2))" -- "$SSH" -F "$1" "$LOAD_ALIAS" true \
		>"$base.tsv" 2>"$base-errors.txt" || true
	[ -s "$base.env" ] || return 1
	load_set burst_clients "$n"
	load_set burst_ready "$(kv_get "$base.env" ready)"
	load_set burst_connected "$(kv_get "$base.env" connected)"
	load_set burst_ok "$(kv_get "$base.env" ok)"
	load_set burst_refused "$(kv_get "$base.env" refused)"
	# Failures other than a refusal, by the clients' own messages; the
	# target's log may yet call some of them refusals.
	load_set burst_failed "$(( $(kv_get "$base.env" failed) + $(kv_get "$base.env" timeout) ))"
	load_set burst_timeout "$(kv_get "$base.env" timeout)"
	load_set burst_not_run "$((n - $(kv_get "$base.env" ready)))"
	for k in release_spread_ms woke_spread_ms connect_p50_ms done_max_ms ready_ms release_wall_ns release_at_wall_ns release_late_ms; do
		load_set "burst_$k" "$(kv_get "$base.env" "$k")"
	done
	# The release by the target's clock, so that the target can put the
	# load hosts' releases side by side.
	released=$(kv_get "$base.env" release_wall_ns)
	offset_ns=$(awk -v o="$(kv_get "$LOAD_ENV" clock_offset_ms)" 'BEGIN { printf "%.0f", o * 1e6 }')
	load_set burst_release_target_wall_ns "$((released + offset_ns))"
	spread=$(kv_get "$base.env" release_spread_ms)
	load_set burst_spread_goal_ms "$LOAD_BURST_SPREAD_GOAL_MS"
	case $spread in
	'' | -) wide=- ;;
	*) wide=$(awk -v s="$spread" -v g="$LOAD_BURST_SPREAD_GOAL_MS" 'BEGIN { print (s > g) ? "yes" : "no" }') ;;
	esac
	load_set burst_spread_wide "$wide"
	[ "$wide" != yes ] ||
		warn "burst: the $n clients reached the target over $spread ms, more than the ${LOAD_BURST_SPREAD_GOAL_MS} ms goal: a gentler burst than a real one (burst_spread_wide=yes in data/load.env)"
}
