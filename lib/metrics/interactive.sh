# shellcheck shell=bash
# interactive: keystroke echo. ECHO_COUNT single bytes at ECHO_RATE per
# second through one session running cat in a PTY; each echo is timed from
# the byte's scheduled send time (sshperf-echo). ECHO_CLIENT says which
# client: libssh (in the helper), ssh (the real client in a PTY) or both.

about_interactive () {
	local clients=1
	[ "${SETTING[ECHO_CLIENT]}" != both ] || clients=2
	printf '%s keystrokes at %s per second through %s, echo timed (about %s s)\n' \
		"${SETTING[ECHO_COUNT]}" "${SETTING[ECHO_RATE]}" "$(interactive_clients | sed 's/ / and /')" \
		"$(( clients * (SETTING[ECHO_COUNT] / SETTING[ECHO_RATE] + 1) ))"
}

interactive_clients () {
	case ${SETTING[ECHO_CLIENT]} in
	both) printf 'libssh ssh' ;;
	*) printf '%s' "${SETTING[ECHO_CLIENT]}" ;;
	esac
}

# interactive_echo CLIENT N TSV ENV: one timed run of N keystrokes
# through CLIENT, every keystroke into TSV, the helper's key=value lines
# into ENV. Returns the helper's exit status.
interactive_echo () {
	local client=$1 n=$2 tsv=$3 out=$4 rc=0 limit
	# The helper has its own deadlines; this one only guards against a hang.
	limit=$(( n / SETTING[ECHO_RATE] + 2 * SETTING[LOGIN_TIMEOUT] + 30 ))
	case $client in
	libssh)
		timeout --kill-after=5 "$limit" "$HELPER_DIR/sshperf-echo" -m libssh \
			-h 127.0.0.1 -p "${SETTING[TEST_PORT]}" -u "${SETTING[TEST_USER]}" \
			-k "$DEFAULT_KEY" -K "$CLIENT_DIR/known_hosts" \
			-r "${SETTING[ECHO_RATE]}" -n "$n" -t "${SETTING[LOGIN_TIMEOUT]}" \
			-o "$tsv" >"$out" 2>>"$RAW_DIR/interactive-errors.txt" || rc=$?
		;;
	ssh)
		timeout --kill-after=5 "$limit" "$HELPER_DIR/sshperf-echo" -m ssh \
			-r "${SETTING[ECHO_RATE]}" -n "$n" -t "${SETTING[LOGIN_TIMEOUT]}" \
			-o "$tsv" \
			-- "$SSH" -tt -F "$CLIENT_CONFIG" "$HOST_ALIAS" cat \
			>"$out" 2>>"$RAW_DIR/interactive-errors.txt" || rc=$?
		;;
	esac
	return "$rc"
}

# interactive_run CLIENT: one timed run; its key=value lines become
# CLIENT_KEY in the data file. Returns the helper's exit status.
interactive_run () {
	local client=$1 out="$RAW_DIR/interactive-$1.env" rc=0 key value
	interactive_echo "$client" "${SETTING[ECHO_COUNT]}" "$RAW_DIR/interactive-$client.tsv" "$out" || rc=$?
	while IFS='=' read -r key value; do
		[ -n "$key" ] && result_set interactive "${client}_$key" "$value"
	done <"$out"
	result_set interactive "${client}_exit" "$rc"
	return "$rc"
}

# interactive_staged CLIENT: the p99's interval, and more keystrokes
# through CLIENT (one new session a stage) in the stages of stage_plan
# (lib/measure.sh) while it holds the target, appended to its raw table
# (numbered on); its counts and percentiles over all of them. No stage
# after a lost keystroke or a failed run.
interactive_staged () {
	local client=$1 tsv="$RAW_DIR/interactive-$1.tsv" part="$TMPDIR/interactive-$1-stage.tsv"
	local env want stage=0 have more key rc
	for want in $(stage_plan "${SETTING[ECHO_COUNT]}" 99); do
		if [ "$stage" -gt 0 ]; then
			result_interval_holds interactive "<=" "${SETTING[TARGET_ECHO_P99_MS]}" || break
			have=$(( $(wc -l <"$tsv") - 1 ))
			more=$(( want - have ))
			[ "$more" -gt 0 ] || continue
			if [ "$(result_get interactive "${client}_exit")" != 0 ] || [ "$(result_get interactive "${client}_lost")" != 0 ]; then
				break
			fi
			progress_step "interactive: the p99's interval holds the target; $more more keystrokes through $client (stage $((stage + 1)))"
			rc=0
			env="$RAW_DIR/interactive-$client-stage$((stage + 1)).env"
			interactive_echo "$client" "$more" "$part" "$env" || rc=$?
			tsv_renumber seq "$have" <"$part" >>"$tsv"
			rm -f "$part"
			for key in count sent lost mismatched; do
				result_set interactive "${client}_$key" "$(( $(result_get interactive "${client}_$key") + $(kv_get "$env" "$key") ))"
			done
			result_set interactive "${client}_exit" "$rc"
			helper summary -c echo_ms -p "${client}_" "$tsv" >>"$DATA_DIR/interactive.env"
		fi
		stage=$((stage + 1))
		result_interval_order interactive "$tsv" echo_ms 99
	done
	result_set interactive stages "$stage"
	result_set interactive samples_final "$(result_get interactive "${client}_n")"
}

# A value of the data file, "-" when missing.
interactive_value () {
	local v
	v=$(result_get interactive "$1")
	printf '%s' "${v:--}"
}

measure_interactive () {
	local client main cores load busy idle steal before after
	local rc p99 lost n err note=""
	: >"$RAW_DIR/interactive-errors.txt"
	cores=$(nproc)
	load=$(cut -d' ' -f1 /proc/loadavg)
	# The verdict is on libssh's figure, or on ssh's when only ssh ran.
	main=libssh
	[ "${SETTING[ECHO_CLIENT]}" != ssh ] || main=ssh
	result_set interactive main_client "$main"
	# "The machine was busy" is decided on the CPU time of the test's own
	# stretch (its echo clients and stages included), not on the load
	# average, which still carries the test before (issue 28: a warning
	# at 1 % busy).
	before=$(machine_cpu_jiffies)
	for client in $(interactive_clients); do
		progress_step "interactive: timing the echo through $client"
		interactive_run "$client" || true
	done
	# More keystrokes while the p99's interval holds the target.
	interactive_staged "$main"
	after=$(machine_cpu_jiffies)
	read -r busy steal <<<"$(machine_busy_between "$before" "$after")"
	idle=$(( 100 - busy - steal ))
	result_set interactive cores "$cores"
	result_set interactive load_before "$load"
	result_set interactive cpu_busy_pct "$busy"
	result_set interactive cpu_steal_pct "$steal"
	result_set interactive cpu_idle_pct "$idle"
	if [ "$idle" -lt 50 ]; then
		note="the CPUs were ${busy}% busy during the test"
	fi
	if [ "$steal" -ge 5 ]; then
		note="${note:+$note; }${steal}% of the CPU time was stolen by the hypervisor"
	fi
	if [ -n "$note" ]; then
		result_set interactive busy yes
		result_warn interactive "the machine was busy ($note): spikes in the echo time may come from other work, not from sshd"
	else
		result_set interactive busy no
	fi

	rc=$(result_get interactive "${main}_exit")
	p99=$(result_get interactive "${main}_p99")
	lost=$(result_get interactive "${main}_lost")
	n=$(result_get interactive "${main}_n")
	result_verdict interactive "$p99" "<=" "${SETTING[TARGET_ECHO_P99_MS]}" ms "p99 of the echo through $main, n=${n:-0}" \
		"p99 $(figs ms "$p99") ms is above the target of ${SETTING[TARGET_ECHO_P99_MS]} ms" \
		"Keep the server from running out of CPU (the cpu and warnings sections say whether it did) and look at what it writes to disk per keystroke (shell history, logging); raise TARGET_ECHO_P99_MS only if this echo is acceptable for your users"
	result_noise_hint interactive ECHO_COUNT "$(noise_samples "${n:-0}" "$(result_or_dash interactive figure_lo)" \
		"$(result_or_dash interactive figure_hi)" "${p99:-0}" "${SETTING[TARGET_ECHO_P99_MS]}")"
	err=$(grep -v '^$' "$RAW_DIR/interactive-errors.txt" | tail -n 1)
	if [ -z "$n" ] || [ "$n" = 0 ]; then
		result_status interactive FAIL "no echo was timed through $main: ${err:-the helper exited with status $rc}" \
			"Read raw/interactive-errors.txt for why no session echoed, fix it, and rerun ./test-ssh.sh interactive"
	elif [ "${lost:-0}" -gt 0 ]; then
		result_status interactive FAIL "$lost of $(result_get interactive "${main}_count") keystrokes never came back through $main" \
			"Find what ended or stalled the session (raw/interactive-errors.txt, the server's log) and rerun ./test-ssh.sh interactive"
	fi
	local s="" c
	for c in $(interactive_clients); do
		s="${s:+$s; }$c p50 $(interactive_value "${c}_p50") ms, p99 $(interactive_value "${c}_p99") ms, n=$(interactive_value "${c}_n"), lost $(interactive_value "${c}_lost")"
	done
	result_set interactive summary "$s; target p99 <= ${SETTING[TARGET_ECHO_P99_MS]} ms"
}
