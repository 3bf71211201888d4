# shellcheck shell=bash
# The load mode's login (lib/bin/load.sh): the client side of the login
# test (lib/metrics/login.sh) from a load host. LOGIN_SAMPLES complete
# logins one after another with ssh -v, each timed per phase by
# sshperf-login, into the login test's own table, raw/login-samples.tsv,
# with its transcripts and errors. No stages, no packet capture: those
# need the test server on this host. The target's side of the figures
# (its CPU, its log) is the target's to record.

about_load_login () {
	printf '%s logins one after another with ssh -v, timed per phase\n' "${SETTING[LOGIN_SAMPLES]}"
}

# load_login CONFIG: the logins through the client configuration CONFIG;
# the counts and the total's statistics into data/load.env as login_*.
# False when the driver did not run.
load_login () {
	local tsv="$RAW_DIR/login-samples.tsv" ok failed
	mkdir -p "$RAW_DIR/login-transcripts"
	helper login -H -n "${SETTING[LOGIN_SAMPLES]}" -t "${SETTING[LOGIN_TIMEOUT]}" -g "$NO_ANSWER_STOP" -T "$RAW_DIR/login-transcripts" \
		-- "$SSH" -v -F "$1" "$LOAD_ALIAS" true >"$tsv" 2>"$RAW_DIR/login-errors.txt" || true
	[ -s "$tsv" ] || return 1
	ok=$(tsv_select "$tsv" status | grep -cx ok || true)
	failed=$(tsv_select "$tsv" status | grep -cvx ok || true)
	load_set login_samples "${SETTING[LOGIN_SAMPLES]}"
	load_set login_ok "$ok"
	load_set login_failed "$failed"
	# The helper stops after NO_ANSWER_STOP logins in a row without an
	# answer: the rest were not run.
	load_set login_not_run "$((SETTING[LOGIN_SAMPLES] - ok - failed))"
	helper summary -c total_ms -w status=ok -p login_total_ "$tsv" >>"$LOAD_ENV"
}
