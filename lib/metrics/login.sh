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
		capture_summary login login
	else
		result_set login timeline_note "$CAPTURE_NOTE"
	fi

	ok=$(tsv_select "$tsv" status | grep -cx ok || true)
	failed=$(tsv_select "$tsv" status | grep -cvx ok || true)
	# The helper stops after NO_ANSWER_STOP logins in a row without an answer.
	not_run=$((SETTING[LOGIN_SAMPLES] - ok - failed))
	[ "$not_run" -le 0 ] ||
		stopped="; stopped after $NO_ANSWER_STOP logins in a row got no answer within ${SETTING[LOGIN_TIMEOUT]}s, the other $not_run were not run"
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
	p95=$(result_get login total_p95)
	result_verdict login "$p95" "<=" "${SETTING[TARGET_LOGIN_P95_MS]}" ms "p95 of the complete login"
	if [ "$ok" -eq 0 ]; then
		result_status login FAIL "no login succeeded; first error: $(tsv_select "$tsv" status error | awk -F'\t' '$1 != "ok" { print $2; exit }')$stopped"
	elif [ "$failed" -gt 0 ]; then
		result_status login FAIL "$failed of ${SETTING[LOGIN_SAMPLES]} logins failed$stopped"
	fi
	p50=$(result_get login total_p50)
	result_set login summary "p50 ${p50:--} ms, p95 ${p95:--} ms over $ok logins ($failed failed), target p95 <= ${SETTING[TARGET_LOGIN_P95_MS]} ms"
}
