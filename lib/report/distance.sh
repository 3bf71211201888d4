# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section "At your users' distance", from raw/wire.tsv
# (lib/wire.sh, docs/data.md); sourced by lib/bin/render.sh. Nothing when the
# run had no distance above 0 (NETWORK_RTT_MS=0, the default).

# distance_cell VALUE [UNIT]: VALUE, or "-" when there is none.
distance_cell () {
	if [ -z "$1" ] || [ "$1" = - ] || [ "$1" = nan ]; then printf '%s' -; else printf '%s%s' "$1" "${2:-}"; fi
}

# distance_rt TIME LOW HIGH PACKETS LESS_WAITS WAIT BASE_WAIT: the round
# trips per login, from the time (with its 95 % interval when the run has
# one) and from the packets; and the time's without the TCP waits, with
# the waits across the wire and over loopback, when the run has them.
distance_rt () {
	printf '%s' "$(distance_cell "$1")"
	[ "$2" = - ] || [ "$3" = - ] || printf ' (95 %% %s to %s)' "$2" "$3"
	printf ' / %s' "$(distance_cell "$4")"
	[ "$5" = - ] || [ -z "$5" ] || printf '; time without the TCP waits %s (waits %s ms a login across the wire, %s over loopback)' "$5" "$6" "$7"
}

# distance_sftp FPS BOUND RT CHECK FILES KB: the sftp cell: files/s and the
# bound the round trips per file allow, or why there is no figure.
distance_sftp () {
	if [ -n "$4" ] && [ "$4" != - ] && [ "$4" != ok ]; then
		printf 'none: %s' "$4"
	elif [ -z "$1" ] || [ "$1" = - ]; then
		printf -- -
	else
		printf '%s files/s' "$1"
		[ -z "$2" ] || [ "$2" = - ] || printf ' (bound %s: %s round trips a file)' "$2" "$(distance_cell "$3")"
		printf ', %s x %s KB' "$5" "$6"
	fi
}

# distance_xfer MBS MB BOUND_MBS BOUND WINDOW FLIGHT CHECK PARTS_P50: the
# transfer cell: MB/s of how many MiB, its parts' median, the bound that
# applied and the window.
distance_xfer () {
	if [ -n "$7" ] && [ "$7" != - ] && [ "$7" != ok ]; then
		printf 'none: %s' "$7"
	elif [ -z "$1" ] || [ "$1" = - ]; then
		printf -- -
	else
		printf '%s MB/s (%s MiB; parts'"'"' median %s)' "$1" "$2" "$(distance_cell "$8")"
		case $4 in
		window) printf '; bound %s MB/s: the channel window %s bytes / RTT' "$3" "$5" ;;
		cipher) printf '; bound %s MB/s: the cipher, as at 0' "$3" ;;
		esac
		[ -z "$6" ] || [ "$6" = - ] || printf '; at most %s bytes sent in one RTT' "$6"
	fi
}

report_distance () {
	local table="$RUN_DIR/raw/wire.tsv" rtt mbit loss trim cn cp50 en ep50 ep99 helper ln lp50 rt rtlo rthi rtp kn kp50 kp99 \
		sf skb sfps srt sbound scheck xmb xmbs xp50 xwin xflight xbmbs xbound xcheck status warning
	[ -f "$table" ] || return 0
	printf '<a id="distance"></a>\n\n## At your users'"'"' distance\n\n'
	prose <<-'EOF'
	The clients ran again from a test host of the kit's own (a network namespace), across a
	wire with the round-trip time of `NETWORK_RTT_MS` (held by `sshperf-wire` on the receiving
	side of each direction; [metrics.md](metrics.md), section 10). Before each distance the
	wire itself was measured: TCP connects (one round trip each) and one-byte echoes from the
	test host to the test server's end of the wire. The wire's own cost (each packet's trip to
	`sshperf-wire` and back, its wake-ups) comes on top of what it holds: where a connect took
	longer than the setting, the wire held that much less and was measured again ("held ... ms
	less"; the first measurement in `raw/wire-N-probe.env.untrimmed`). The logins are `ssh HOST true`, one after
	another, timed from the start of ssh to its exit; at 0 from this host over loopback. Round
	trips per login, two ways: from the time, what the distance added to a login (the shift of
	the logins across the wire against as many over loopback, half taken just before and half
	just after them so that both see the same load; Hodges-Lehmann, with its 95 % interval) /
	RTT; and from the packets, the turns of each login's connection on the wire (a turn: data
	in one direction that answers data in the other), half their number, the median over the
	logins. The time counts what TCP's delayed ACKs hold a login up (a small segment that
	Nagle holds back until the other side's ACK, which that side delays by about 40 ms), the
	turns do not: where a login across the wire meets more such waits than one over loopback,
	the time gives more round trips than the packets, and the table gives the time's figure
	without the waits as well (the waits from the packets, both ways). The verdicts above are given at 0 only. The wire is not a real network: no network
	card, no switch or router queues, and its packets cross the same CPUs as the server and
	the clients. The keystroke echo is the interactive test's (`ssh -tt HOST cat`, ECHO_RATE
	keystrokes a second, each timed from its scheduled send), beside the wire's own one-byte
	echo. A turn is data that answers the other side's, or data that TCP held back until the
	other side's ACK arrived (Nagle). The sftp files are small files up in one `sftp -b` run
	(`put DIR/*`), timed from its first command to its exit; their round trips a file are the
	turns of that run minus those of an sftp run that only logs in, divided by the files, and
	the bound is 1000 / (round trips a file x RTT) files/s. The transfer is one upload through
	ssh with the default cipher, as the transfer test does (its size in the table, TRANSFER_MB
	but at most 128 MB); its bound is the lower of the cipher's speed (the same upload at 0,
	its parts' median) and the channel window the server gave the client (ssh's own log) /
	RTT: the sender may have no more than the window unacknowledged by the other end's SSH.
	EOF
	printf '\n| RTT setting | wire: TCP connect p50 (n) | wire: one-byte echo p50 / p99 (n) | wire helper | login p50 (n) '
	printf '| round trips per login: time / packets | keystroke echo p50 / p99 (n) | sftp small files | transfer up | status |\n'
	printf '|---|---|---|---|---|---|---|---|---|---|\n'
	while IFS=$'\t' read -r rtt mbit loss trim cn cp50 en ep50 ep99 helper ln lp50 rt rtlo rthi rtp wait bwait rtw kn kp50 kp99 \
		sf skb sfps srt sbound scheck xmb xmbs xp50 xwin xflight xbmbs xbound xcheck status warning; do
		printf '| %s ms%s%s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$rtt" \
			"$([ "$mbit" = none ] || [ "$mbit" = - ] || printf ', %s Mbit/s' "$mbit")" \
			"$([ "$loss" = 0 ] || [ "$loss" = - ] || printf ', %s %% loss' "$loss")" \
			"$( [ "$rtt" = 0 ] && printf 'loopback, no wire' || printf '%s (%s)%s' "$(distance_cell "$cp50" ' ms')" "$(distance_cell "$cn")" \
				"$([ -z "$trim" ] || [ "$trim" = - ] || printf '; held %s ms less' "$trim")")" \
			"$( [ "$rtt" = 0 ] && printf -- - || printf '%s / %s (%s)' "$(distance_cell "$ep50" ' ms')" "$(distance_cell "$ep99" ' ms')" "$(distance_cell "$en")")" \
			"$(distance_cell "$helper")" \
			"$(distance_cell "$lp50" ' ms') ($(distance_cell "$ln"))" \
			"$(distance_rt "$rt" "$rtlo" "$rthi" "$rtp" "$rtw" "$wait" "$bwait")" \
			"$(distance_cell "$kp50" ' ms') / $(distance_cell "$kp99" ' ms') ($(distance_cell "$kn"))" \
			"$(distance_sftp "$sfps" "$sbound" "$srt" "$scheck" "$sf" "$skb")" \
			"$(distance_xfer "$xmbs" "$xmb" "$xbmbs" "$xbound" "$xwin" "$xflight" "$xcheck" "$xp50")" \
			"$status$([ -z "$warning" ] || [ "$warning" = - ] || printf ': %s' "$warning")"
	done < <(TSV_ABSENT=- tsv_select "$table" rtt_ms mbit loss_pct wire_trim_ms connect_n connect_ms_p50 echo_n echo_ms_p50 \
		echo_ms_p99 helper login_n login_ms_p50 login_round_trips login_round_trips_low login_round_trips_high login_rt_packets \
		login_wait_ms login_base_wait_ms login_rt_less_waits keyecho_n keyecho_ms_p50 keyecho_ms_p99 sftp_files sftp_file_kb sftp_files_per_s sftp_rt_per_file sftp_bound_files_per_s sftp_check \
		xfer_mb xfer_mbs xfer_mbs_parts_p50 xfer_window_bytes xfer_flight_bytes xfer_bound_mbs xfer_bound xfer_check status warning)
	printf '\nRaw: `raw/wire.tsv`, `raw/wire-*` (the packets of each distance: `raw/wire-N-packets.tsv`).'
	printf ' Rate and burst at a distance are in the next part; the phases of a login and the other tests ran at 0 only.\n\n'
}
