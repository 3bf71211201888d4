# shellcheck shell=bash
# login: LOGIN_SAMPLES complete logins one after another, each split into
# the five phases (TCP connect, greeting, key exchange, authentication,
# session) from the time stamps of ssh -v's lines.

about_login () {
	printf '%s logins one after another with ssh -v, timed per phase (about %s s)\n' \
		"${SETTING[LOGIN_SAMPLES]}" "$(( (SETTING[LOGIN_SAMPLES] * 4 + 9) / 10 ))"
}

# login_negotiated PREFIX: the most frequent word after PREFIX in the
# transcripts' ssh -v lines, or "-".
login_negotiated () {
	local v
	v=$(grep -ho "$1[^ ]*" "$RAW_DIR"/login-transcripts/* 2>/dev/null | sed "s/^$1//" |
		sort | uniq -c | sort -rn | awk 'NR == 1 { print $2 }')
	printf '%s\n' "${v:--}"
}

# login_more MORE HAVE TSV: MORE logins appended to TSV, numbered on
# from HAVE.
login_more () {
	helper login -H -n "$1" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" \
		-- "$SSH" -v -F "$CLIENT_CONFIG" "$HOST_ALIAS" true 2>>"$RAW_DIR/login-errors.txt" |
		tsv_renumber sample "$2" >>"$3" || true
}

# login_staged TSV: the p95's interval, and more logins appended to TSV
# (numbered on) in the stages of stage_plan (lib/measure.sh) while it
# holds the target; the phase figures over all of them. With a timeline,
# each stage's logins are captured as the first were and the whose parts
# are made again over all logins; a stage whose capture fails ends that,
# and whose_note says on how many logins the parts rest.
login_staged () {
	local tsv=$1 want stage=0 have more col whose=""
	[ "$(result_get login timeline)" = yes ] || whose=no
	for want in $(stage_plan "${SETTING[LOGIN_SAMPLES]}" 95); do
		have=$(( $(wc -l <"$tsv") - 1 ))
		more=$(( want - have ))
		if [ "$stage" -gt 0 ]; then
			result_interval_holds login "<=" "${SETTING[TARGET_LOGIN_P95_MS]}" || break
			[ "$more" -gt 0 ] || continue
			[ "$(tsv_select "$tsv" status | grep -cvx ok || true)" -eq 0 ] || break
			progress_step "login: the p95's interval holds the target; $more more logins (stage $((stage + 1)))"
			if [ -n "$whose" ]; then
				login_more "$more" "$have" "$tsv"
			elif capture_stage login $(( more * SETTING[LOGIN_TIMEOUT] + 30 )) login_more "$more" "$have" "$tsv" &&
				capture_parts login "$tsv"; then
				capture_summary login login "$tsv"
			else
				whose=no
				result_set login whose_note "the whose parts rest on the first $have logins: those of stage $((stage + 1)) were not split ($CAPTURE_NOTE)"
			fi
			for col in connect greeting kex auth session total; do
				helper summary -c "${col}_ms" -w status=ok -p "${col}_" "$tsv" >>"$DATA_DIR/login.env"
			done
		fi
		stage=$((stage + 1))
		result_interval_order login "$tsv" total_ms 95
	done
	result_set login stages "$stage"
	result_set login samples_final "$(tsv_select "$tsv" status | grep -cx ok || true)"
}

# GSSAPI on the client: RHEL's ssh_config.d/50-redhat.conf turns it on,
# so a RHEL client tries gssapi-with-mic before the key on every login.
# The kit measures the client as configured (the system's ssh_config, or
# a build's own): it does not pin GSSAPI off. Per login, from its
# transcript: whether it tried gssapi-with-mic, and the ms from "Next
# authentication method: gssapi-with-mic" to the next method (or to
# "Authenticated to"), the part of the authentication phase it took.
LOGIN_GSSAPI_COLUMNS="sample tried gssapi_ms"
login_gssapi () {
	local tsv="$RAW_DIR/login-gssapi.tsv" f n
	{
		tsv_header "$LOGIN_GSSAPI_COLUMNS"
		for f in "$RAW_DIR"/login-transcripts/login-*.txt; do
			[ -f "$f" ] || continue
			n=${f##*/login-}
			# A transcript line: the ns since the start, a tab, the line.
			awk -v s="${n%.txt}" '
				t0 == "" && index($0, "Next authentication method: gssapi-with-mic") { t0 = $1; next }
				t0 != "" && end == "" && (index($0, "Next authentication method: ") || index($0, "Authenticated to ")) { end = $1 }
				END { if (t0 == "") print s "\tno\t-"; else if (end == "") print s "\tyes\t-"; else printf "%s\tyes\t%.3f\n", s, (end - t0) / 1e6 }' "$f"
		done | sort -n
	} >"$tsv"
	result_set login client_gssapi "$("$SSH" -G -F "$CLIENT_CONFIG" "$HOST_ALIAS" 2>/dev/null |
		awk 'tolower($1) == "gssapiauthentication" { print $2; exit }')"
	result_set login gssapi_logins "$(tsv_select "$tsv" tried | grep -c . || true)"
	result_set login gssapi_tried "$(tsv_select "$tsv" tried | grep -cx yes || true)"
	helper summary -c gssapi_ms -p gssapi_ "$tsv" >>"$DATA_DIR/login.env"
}

measure_login () {
	local tsv="$RAW_DIR/login-samples.tsv" ok failed not_run col p50 p95 stopped="" timeline=no
	mkdir -p "$RAW_DIR/login-transcripts"
	# The timeline's capture runs around the logins only (lib/capture.sh):
	# raw/login-packets.tsv, raw/login-parts.tsv and raw/login-whose.tsv.
	capture_start login $(( SETTING[LOGIN_SAMPLES] * SETTING[LOGIN_TIMEOUT] + 30 )) && timeline=yes
	helper login -H -n "${SETTING[LOGIN_SAMPLES]}" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" -T "$RAW_DIR/login-transcripts" \
		-- "$SSH" -v -F "$CLIENT_CONFIG" "$HOST_ALIAS" true >"$tsv" 2>"$RAW_DIR/login-errors.txt" || true
	if [ "$timeline" = yes ]; then
		at_exit_pop
		capture_parts login "$tsv" || timeline=no
	fi
	result_set login timeline "$timeline"
	if [ "$timeline" = yes ]; then
		capture_summary login login "$tsv"
	else
		result_set login timeline_note "$CAPTURE_NOTE"
	fi

	ok=$(tsv_select "$tsv" status | grep -cx ok || true)
	failed=$(tsv_select "$tsv" status | grep -cvx ok || true)
	# The helper stops after NO_ANSWER_STOP logins in a row without an answer.
	not_run=$((SETTING[LOGIN_SAMPLES] - ok - failed))
	[ "$not_run" -le 0 ] ||
		stopped="; stopped after $NO_ANSWER_STOP logins in a row got no answer within ${SETTING[LOGIN_TIMEOUT]}s, the other $not_run were not run"
	login_gssapi
	result_set login samples "${SETTING[LOGIN_SAMPLES]}"
	result_set login ok "$ok"
	result_set login failed "$failed"
	result_set login not_run "$not_run"
	for col in connect greeting kex auth session total; do
		helper summary -c "${col}_ms" -w status=ok -p "${col}_" "$tsv" >>"$DATA_DIR/login.env"
	done
	# What was negotiated (ssh -v: "kex: algorithm: NAME"): the default
	# key exchange differs between OpenSSH versions, and it is most of
	# the key exchange phase. The most frequent one; all of them listed.
	result_set login kex_algorithm "$(login_negotiated "kex: algorithm: ")"
	result_set login hostkey_algorithm "$(login_negotiated "kex: host key algorithm: ")"
	result_set login kex_algorithms_seen "$(grep -ho "kex: algorithm: [^ ]*" "$RAW_DIR"/login-transcripts/* 2>/dev/null |
		sed 's/^kex: algorithm: //' | sort -u | paste -sd, -)"
	login_staged "$tsv"
	# Every login split must add up (lib/capture.sh); sshd's padding of
	# the key's two requests, from the same packets (raw/login-pad.tsv).
	if [ "$timeline" != no ]; then
		capture_check login login
		capture_pad login login "$tsv"
	fi
	ok=$(tsv_select "$tsv" status | grep -cx ok || true)
	failed=$(tsv_select "$tsv" status | grep -cvx ok || true)
	result_set login ok "$ok"
	result_set login failed "$failed"
	p95=$(result_get login total_p95)
	result_verdict login "$p95" "<=" "${SETTING[TARGET_LOGIN_P95_MS]}" ms "p95 of the complete login" \
		"p95 $(figs ms "$p95") ms is above the target of ${SETTING[TARGET_LOGIN_P95_MS]} ms" \
		"Find the slow phase in the section's table and follow its reading (key exchange: the CPU and the algorithms; authentication or session over 1 s: DNS, GSSAPI or PAM time-outs), or raise TARGET_LOGIN_P95_MS if this login time is acceptable for your use"
	result_noise_hint login LOGIN_SAMPLES "$(noise_samples "$(result_get login samples_final)" \
		"$(result_or_dash login figure_lo)" "$(result_or_dash login figure_hi)" "${p95:-0}" "${SETTING[TARGET_LOGIN_P95_MS]}")"
	if [ "$ok" -eq 0 ]; then
		result_status login FAIL "no login succeeded; first error: $(tsv_select "$tsv" status error | awk -F'\t' '$1 != "ok" { print $2; exit }')$stopped" \
			"Log in by hand as the tests do (ssh -v -F with the kit's client config) to see why it fails, fix it, and rerun ./test-ssh.sh login"
	elif [ "$failed" -gt 0 ]; then
		result_status login FAIL "$failed of $((ok + failed + not_run)) logins failed$stopped" \
			"Read why in raw/login-errors.txt and the server's log (a time-out, MaxStartups, a PAM refusal), fix it, and rerun ./test-ssh.sh login"
	fi
	p50=$(result_get login total_p50)
	result_set login summary "p50 ${p50:--} ms, p95 ${p95:--} ms over $ok logins ($failed failed), target p95 <= ${SETTING[TARGET_LOGIN_P95_MS]} ms"
}
