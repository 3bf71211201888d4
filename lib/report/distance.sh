# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section "At your users' distance", from raw/wire.tsv
# (lib/wire.sh, docs/data.md); sourced by lib/bin/render.sh. Nothing when the
# run had no distance above 0 (NETWORK_RTT_MS=0, the default).

# distance_cell VALUE [UNIT]: VALUE, or "-" when there is none.
distance_cell () {
	if [ -z "$1" ] || [ "$1" = - ] || [ "$1" = nan ]; then printf '%s' -; else printf '%s%s' "$1" "${2:-}"; fi
}

report_distance () {
	local table="$RUN_DIR/raw/wire.tsv" rtt mbit loss cn cp50 en ep50 ep99 helper ln lp50 rt kn kp50 kp99 status warning
	[ -f "$table" ] || return 0
	printf '<a id="distance"></a>\n\n## At your users'"'"' distance\n\n'
	printf 'The clients ran again from a test host of the kit'"'"'s own (a network namespace), across a wire with the round-trip time of `NETWORK_RTT_MS`'
	printf ' (held by `sshperf-wire` on the receiving side of each direction; [metrics.md](metrics.md), section 10).'
	printf ' Before each distance the wire itself was measured: TCP connects (one round trip each) and one-byte echoes from the test host to the test server'"'"'s end of the wire.'
	printf ' The logins are `ssh HOST true`, one after another, timed from the start of ssh to its exit; at 0 from this host over loopback.'
	printf ' Round trips per login = (login p50 at the distance - login p50 at 0) / RTT.'
	printf ' The verdicts above are given at 0 only. The wire is not a real network: no network card, no switch or router queues, and its packets cross the same CPUs as the server and the clients.'
	printf ' The keystroke echo is the interactive test'"'"'s (`ssh -tt HOST cat`, ECHO_RATE keystrokes a second, each timed from its scheduled send), beside the wire'"'"'s own one-byte echo.'
	printf '\n\n| RTT setting | wire: TCP connect p50 (n) | wire: one-byte echo p50 / p99 (n) | wire helper | login p50 (n) | round trips per login | keystroke echo p50 / p99 (n) | status |\n'
	printf '|---|---|---|---|---|---|---|---|\n'
	while IFS=$'\t' read -r rtt mbit loss cn cp50 en ep50 ep99 helper ln lp50 rt kn kp50 kp99 status warning; do
		printf '| %s ms%s%s | %s | %s | %s | %s | %s | %s | %s |\n' "$rtt" \
			"$([ "$mbit" = none ] || [ "$mbit" = - ] || printf ', %s Mbit/s' "$mbit")" \
			"$([ "$loss" = 0 ] || [ "$loss" = - ] || printf ', %s %% loss' "$loss")" \
			"$( [ "$rtt" = 0 ] && printf 'loopback, no wire' || printf '%s (%s)' "$(distance_cell "$cp50" ' ms')" "$(distance_cell "$cn")")" \
			"$( [ "$rtt" = 0 ] && printf -- - || printf '%s / %s (%s)' "$(distance_cell "$ep50" ' ms')" "$(distance_cell "$ep99" ' ms')" "$(distance_cell "$en")")" \
			"$(distance_cell "$helper")" \
			"$(distance_cell "$lp50" ' ms') ($(distance_cell "$ln"))" \
			"$(distance_cell "$rt")" \
			"$(distance_cell "$kp50" ' ms') / $(distance_cell "$kp99" ' ms') ($(distance_cell "$kn"))" \
			"$status$([ -z "$warning" ] || [ "$warning" = - ] || printf ': %s' "$warning")"
	done < <(tsv_select "$table" rtt_ms mbit loss_pct connect_n connect_ms_p50 echo_n echo_ms_p50 \
		echo_ms_p99 helper login_n login_ms_p50 login_round_trips keyecho_n keyecho_ms_p50 \
		keyecho_ms_p99 status warning)
	printf '\nRaw: `raw/wire.tsv`, `raw/wire-*`. The tests other than these logins and keystrokes (sftp, transfer, rate, burst) ran at 0 only.\n\n'
}
