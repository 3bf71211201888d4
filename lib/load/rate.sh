# shellcheck shell=bash
# The load mode's rate (lib/bin/load.sh): the client side of the rate
# test's closed loop (lib/probes/loginload.sh) from a load host.
# RATE_WORKERS ssh clients log in again and again for DURATION seconds
# (sshperf-rate), every login's start, end and outcome in
# raw/rate-logins.tsv. The open-loop sweep of the rate test is not run:
# its steps are decided by the target's CPU, which only the target sees.

about_load_rate () {
	printf '%s ssh clients logging in again and again for %s s\n' "${SETTING[RATE_WORKERS]}" "${SETTING[DURATION]}"
}

# load_rate CONFIG: the closed loop through the client configuration
# CONFIG; the driver's keys (ok and failed among them) into
# data/load.env as rate_*. False when the driver did not run.
load_rate () {
	local tsv="$RAW_DIR/rate-logins.tsv" driver="$RAW_DIR/rate-driver.env"
	helper rate -w "${SETTING[RATE_WORKERS]}" -d "${SETTING[DURATION]}" -t "${SETTING[LOGIN_TIMEOUT]}" -o "$tsv" \
		-- "$SSH" -F "$1" "$LOAD_ALIAS" true >"$driver" 2>"$RAW_DIR/rate-driver-errors.txt" || true
	[ -s "$driver" ] || return 1
	sed 's/^/rate_/' "$driver" >>"$LOAD_ENV"
	helper summary -c login_ms -w status=ok -p rate_login_ "$tsv" >>"$LOAD_ENV"
}
