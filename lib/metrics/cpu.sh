# shellcheck shell=bash
# cpu: sshd CPU time per login (user and system) and the client's CPU per
# login, from this run's rate test or from a short rate run of its own;
# sshd CPU per GB from the transfer test when it ran or can be asked.

# shellcheck source=lib/metrics/rate.sh
. "$KIT_DIR/lib/metrics/rate.sh"

CPU_RATE_SECONDS=5

about_cpu () {
	printf 'sshd CPU per login (from rate, else a %s s rate run) and per GB (from transfer) (up to %s s)\n' \
		"$CPU_RATE_SECONDS" "$((CPU_RATE_SECONDS + 3))"
}

# Copies the per-GB keys of transfer into cpu; "no" when there are none.
cpu_per_gb () {
	local out key
	if [ -n "$(result_get transfer cpu_sshd_s_per_gb)" ]; then
		result_set cpu per_gb_from "the transfer test of this run"
		for key in cpu_sshd_s_per_gb cpu_client_s_per_gb; do
			result_set cpu "$key" "$(result_get transfer "$key")"
		done
		return 0
	fi
	if [ -f "$KIT_DIR/lib/metrics/transfer.sh" ]; then
		# shellcheck source=/dev/null
		. "$KIT_DIR/lib/metrics/transfer.sh"
		if declare -F transfer_cpu_per_gb >/dev/null; then
			out=$(transfer_cpu_per_gb 2>>"$RAW_DIR/cpu-errors.txt") || true
			printf '%s\n' "$out" >"$RAW_DIR/cpu-per-gb.env"
			for key in cpu_sshd_s_per_gb cpu_client_s_per_gb; do
				result_set cpu "$key" "$(printf '%s\n' "$out" | sed -n "s/^$key=//p" | tail -n 1)"
			done
			if [ -n "$(result_get cpu cpu_sshd_s_per_gb)" ]; then
				result_set cpu per_gb_from "one default-cipher transfer run by this test"
				return 0
			fi
		fi
	fi
	result_set cpu per_gb_from "not measured (transfer not available)"
	return 1
}

measure_cpu () {
	local src=rate per_login per_gb="" fail="" key
	if [ "$(result_get rate status)" = "" ] || [ -z "$(result_get rate sshd_cpu_ms_per_login)" ]; then
		src=cpu-rate
		if ! rate_run cpu-rate "$RATE_WORKERS" "$CPU_RATE_SECONDS"; then
			result_set cpu status ERROR
			result_set cpu reason "the short rate run for the CPU figure failed (raw/cpu-rate-driver-errors.txt)"
			return 1
		fi
		result_set cpu login_from "a ${CPU_RATE_SECONDS} s rate run of its own ($RATE_WORKERS clients)"
	else
		result_set cpu login_from "the rate test of this run"
	fi
	for key in ok failed logins_per_s sshd_cpu_ms_per_login sshd_user_ms_per_login sshd_system_ms_per_login \
		client_cpu_ms_per_login cpu_source cpu_total_from cpu_split_from sshd_unit_cpu_ms sshd_session_cpu_ms \
		capacity_logins_per_s cores generator_limited sshd_manager_cpu_ms sshd_manager_ms_per_login manager_cpu_lost; do
		result_set cpu "$key" "$(result_get "$src" "$key")"
	done
	per_login=$(result_get cpu sshd_cpu_ms_per_login)
	cpu_per_gb && per_gb=$(result_get cpu cpu_sshd_s_per_gb)
	# Cores needed for 20 logins/s and 500 MB/s with this host's figures.
	result_set cpu cores_for_example "$(awk -v l="${per_login:-0}" -v g="${per_gb:-0}" \
		'BEGIN { printf "%.2f", 20 * l / 1000 + 500 * g / 1000 }')"
	result_set cpu figure "${per_login:--}"
	result_set cpu unit "ms"
	result_set cpu figure_label "sshd CPU per login"
	result_set cpu target "$TARGET_CPU_MS_PER_LOGIN"
	result_set cpu target_op "<="
	if [ -z "$per_login" ] || [ "$(result_get cpu ok)" = 0 ]; then
		result_set cpu status FAIL
		result_set cpu reason "no login succeeded, so there is no CPU per login"
		return 0
	fi
	[ "$(verdict "$per_login" "<=" "$TARGET_CPU_MS_PER_LOGIN")" = PASS ] ||
		fail="sshd used $per_login ms CPU per login, above $TARGET_CPU_MS_PER_LOGIN ms"
	if [ -n "$per_gb" ] && [ "$(verdict "$per_gb" "<=" "$TARGET_CPU_S_PER_GB")" != PASS ]; then
		fail="${fail:+$fail; }sshd used $per_gb s CPU per GB, above $TARGET_CPU_S_PER_GB s"
	fi
	if [ -n "$fail" ]; then
		result_set cpu status FAIL
		result_set cpu reason "$fail"
	else
		result_set cpu status PASS
	fi
	result_set cpu summary "sshd $per_login ms per login (user $(result_get cpu sshd_user_ms_per_login), system $(result_get cpu sshd_system_ms_per_login)), client $(result_get cpu client_cpu_ms_per_login) ms; per GB: ${per_gb:-not measured}${per_gb:+ s}"
}
