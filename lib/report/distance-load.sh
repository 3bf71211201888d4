# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's part "MaxStartups, rate and burst at a distance", after the
# section "At your users' distance": from raw/wire-maxstartups.tsv and
# raw/wire-load.tsv (lib/wire-load.sh, docs/data.md), with the charts
# distance-*.svg (lib/charts.sh). Sourced by lib/bin/render.sh. Nothing
# when the run had no distance above 0 (no chart either).

# distance_load_cell VALUE [UNIT]: VALUE, or "-" when there is none.
distance_load_cell () {
	if [ -z "$1" ] || [ "$1" = - ] || [ "$1" = nan ]; then printf '%s' -; else printf '%s%s' "$1" "${2:-}"; fi
}

# distance_pointer: the report's first table, the row after "What it is
# not": where the run measured its users' networks, or how to.
distance_pointer () {
	local rtts=""
	[ ! -f "$RUN_DIR/raw/wire.tsv" ] ||
		rtts=$(tsv_select "$RUN_DIR/raw/wire.tsv" rtt_ms | awk '$1 + 0 > 0' | paste -sd, - | sed 's/,/, /g')
	if [ -n "$rtts" ]; then
		printf 'measured at %s ms round-trip time too, from a test host across a wire (the verdicts stay at 0): [At your users'"'"' distance](#distance)' "$rtts"
	else
		# One printed line: the first page holds the sign-off block and the
		# whole summary (t81).
		printf 'not measured, loopback only: `NETWORK_RTT_MS="0 20 100"` measures across a wire ([metrics.md](metrics.md), 10)'
	fi
}

report_distance_load () {
	local ms="$RUN_DIR/raw/wire-maxstartups.tsv" steps="$RUN_DIR/raw/wire-load.tsv"
	local rtt spec begin auth pred below bdrops above adrops outcome test step clients off ach ok failed drops smax sp50 smean status note
	# A run with distances but without these steps: its chart alone.
	[ -f "$ms" ] || { chart_links distance; return 0; }
	prose <<-'EOF'
	<a id="distance-maxstartups"></a>

	### MaxStartups, rate and burst at a distance

	sshd counts a connection against `MaxStartups` from its accept until it has authenticated, and
	shows the count in its listener's process title (`[listener] 3 of 10-100 startups`); the kit
	sampled it every 10 ms through each step below (`sshperf-startups`). At a distance each login
	stays unauthenticated for several round trips, so the same arrival rate keeps more connections
	in that state. By Little's law the connections in flight are the arrival rate times the time
	to authenticate, so `MaxStartups` begins to refuse at its start value divided by that time.
	The time is measured at each distance: the count over a first, slow rate step, divided by the
	logins that reached sshd. A second step then offered 1.5 times the predicted rate, where the
	kit's clients can offer it on this machine, and sshd's own log counted the connections it
	dropped for `MaxStartups` in each step (`drop connection ... past MaxStartups`). The clients are
	the real `ssh` on the test host, across the wire (open loop, `sshperf-sweep`: each login due at
	its time, whether or not the earlier ones have ended); the bursts are the burst test's
	(`sshperf-burst`, the clients released at once), with its steps up to 20 clients.

	| RTT setting | MaxStartups | time unauthenticated per login | refusals begin at | slow step: logins/s, drops | step above: logins/s, drops | outcome |
	|---|---|---|---|---|---|---|
	EOF
	while IFS=$'\t' read -r rtt spec begin auth pred below bdrops above adrops outcome; do
		printf '| %s ms | %s | %s | %s | %s, %s | %s, %s | %s |\n' "$rtt" "$(distance_load_cell "$spec")" \
			"$(distance_load_cell "$auth" ' ms')" "$(distance_load_cell "$pred" ' logins/s')" \
			"$(distance_load_cell "$below")" "$(distance_load_cell "$bdrops")" \
			"$(distance_load_cell "$above")" "$(distance_load_cell "$adrops")" "$(distance_load_cell "$outcome")"
	done < <(tsv_select "$ms" rtt_ms max_startups begin auth_ms predicted_per_s below_per_s below_drops \
		above_per_s above_drops outcome)
	printf '\n'
	while IFS=$'\t' read -r rtt spec begin pred; do
		case $pred in '' | -) continue ;; esac
		printf -- '- At %s ms, %s logins/s keep %s connections unauthenticated: MaxStartups %s begins to refuse.\n' \
			"$rtt" "$pred" "$begin" "$spec"
	done < <(tsv_select "$ms" rtt_ms max_startups begin predicted_per_s)
	printf '\n'
	if [ -f "$steps" ]; then
		prose <<-'EOF'
		| RTT setting | step | clients | offered / achieved logins/s | logged in | failed | MaxStartups drops (sshd's log) | unauthenticated max / p50 / mean | time unauthenticated per login | status |
		|---|---|---:|---|---:|---:|---:|---|---:|---|
		EOF
		while IFS=$'\t' read -r rtt test step clients off ach ok failed drops smax sp50 smean auth status note; do
			printf '| %s ms | %s %s | %s | %s / %s | %s | %s | %s | %s / %s / %s | %s | %s |\n' "$rtt" "$test" "$step" \
				"$(distance_load_cell "$clients")" "$(distance_load_cell "$off")" "$(distance_load_cell "$ach")" \
				"$(distance_load_cell "$ok")" "$(distance_load_cell "$failed")" "$(distance_load_cell "$drops")" \
				"$(distance_load_cell "$smax")" "$(distance_load_cell "$sp50")" "$(distance_load_cell "$smean")" \
				"$(distance_load_cell "$auth" ' ms')" \
				"$status$([ -z "$note" ] || [ "$note" = - ] || printf ': %s' "$note")"
		done < <(tsv_select "$steps" rtt_ms test step clients offered_per_s achieved_per_s ok failed log_drops \
			startups_max startups_p50 startups_mean auth_ms status note)
		printf '\n'
	fi
	chart_links distance
	printf 'Raw: `raw/wire-maxstartups.tsv`, `raw/wire-load.tsv`, and per step `raw/wire-RTT-rate-N-*` and `raw/wire-RTT-burst-N*`'
	printf ' (the logins, the listener'"'"'s count every 10 ms, the driver'"'"'s figures).\n\n'
}
