# shellcheck shell=bash
# cpu: sshd CPU time per login (user and system) and the client's CPU per
# login, from the probe loginload (the closed-loop login run rate uses
# too); sshd CPU per GB from the probe bulk (the default cipher's upload
# transfer uses too). Both run once per run, whichever test needs them
# first (test-ssh.sh, lib/metrics.tab).

about_cpu () {
	printf 'sshd CPU per login (the closed-loop login run, %s s) and per GB (the default-cipher upload, %s MiB)\n' \
		"${SETTING[DURATION]}" "${SETTING[TRANSFER_MB]}"
}

# Copies the per-GB keys of the bulk probe into cpu; "no" when it has none.
cpu_per_gb () {
	local probe="$DATA_DIR/probe-bulk.env" key value
	for key in cpu_sshd_s_per_gb cpu_client_s_per_gb; do
		result_set cpu "$key" "$(kv_get "$probe" "$key")"
	done
	value=$(result_get cpu cpu_sshd_s_per_gb)
	if [ -n "$value" ] && [ "$value" != - ]; then
		result_set cpu per_gb_from "the default cipher's upload of this run ($(kv_get "$probe" cipher), $(( $(kv_get "$probe" bytes) / 1048576 )) MiB)"
		return 0
	fi
	result_set cpu per_gb_from "not measured ($(kv_get "$probe" cpu_note | sed 's/^$/the default cipher'"'"'s upload gave no figure/'))"
	return 1
}

measure_cpu () {
	local probe="$DATA_DIR/probe-loginload.env" per_login per_gb="" key val
	result_set cpu login_from "the closed-loop login run of this run ($(kv_get "$probe" workers) clients, $(kv_get "$probe" duration_s | cut -d. -f1) s)"
	for key in ok failed logins_per_s sshd_cpu_ms_per_login sshd_user_ms_per_login sshd_system_ms_per_login \
		client_cpu_ms_per_login cpu_source cpu_total_from cpu_split_from sshd_unit_cpu_ms sshd_session_cpu_ms \
		capacity_logins_per_s cores generator_limited sshd_manager_cpu_ms sshd_manager_ms_per_login manager_cpu_lost \
		cpu_windows sshd_cpu_ms_per_login_sd window_busy_pct window_steal_pct window_sshd_pct window_client_pct window_other_pct \
		speed_spawns speed_spawn_us_before speed_spawn_us_after speed_spawn_us speed_spawn_spread \
		speed_loop_ms_before speed_loop_ms_after speed_loop_ms speed_loop_spread sshd_cpu_per_login_spawns \
		sshd_per_client_cpu; do
		# A key the probe did not write (no systemd manager, say) is
		# not known: "-", as everywhere, not an empty value.
		val=$(kv_get "$probe" "$key")
		result_set cpu "$key" "${val:--}"
	done
	per_login=$(result_get cpu sshd_cpu_ms_per_login)
	cpu_per_gb && per_gb=$(result_get cpu cpu_sshd_s_per_gb)
	# Cores needed for 20 logins/s and 500 MB/s with this host's figures.
	result_set cpu cores_for_example "$(awk -v l="${per_login:-0}" -v g="${per_gb:-0}" \
		'BEGIN { printf "%.2f", 20 * l / 1000 + 500 * g / 1000 }')"
	# The interval from the run's windows (lib/probes/loginload.sh), before
	# the verdict so that the verdict on the interval finds it.
	result_interval cpu "$(kv_get "$probe" sshd_cpu_ms_per_login_lo)" \
		"$(kv_get "$probe" sshd_cpu_ms_per_login_hi)" "$(kv_get "$probe" cpu_windows)" windows
	result_verdict cpu "$per_login" "<=" "${SETTING[TARGET_CPU_MS_PER_LOGIN]}" ms "sshd CPU per login" \
		"sshd used $(figs ms "$per_login") ms CPU per login, above ${SETTING[TARGET_CPU_MS_PER_LOGIN]} ms" \
		"Make each login lighter (the PAM session modules: pam_motd scripts, pam_lastlog, pam_exec hooks) or need fewer logins (ControlPersist); raise TARGET_CPU_MS_PER_LOGIN if the capacity section shows enough logins per second for your use"
	if [ -z "$per_login" ] || [ "$(result_get cpu ok)" = 0 ]; then
		result_status cpu FAIL "no login succeeded, so there is no CPU per login" \
			"Find why the logins of the rate test failed (raw/probe-loginload-errors.txt) and rerun ./test-ssh.sh cpu"
		return 0
	fi
	if [ -n "$per_gb" ] && [ "$(verdict "$per_gb" "<=" "${SETTING[TARGET_CPU_S_PER_GB]}")" != PASS ]; then
		result_fail cpu "sshd used $(figs s "$per_gb") s CPU per GB, above ${SETTING[TARGET_CPU_S_PER_GB]} s" \
			"Use an AES-GCM cipher on CPUs with AES-NI (the transfer section shows each cipher), or raise TARGET_CPU_S_PER_GB if this machine has no AES-NI"
	fi
	result_set cpu summary "sshd $per_login ms per login (user $(result_get cpu sshd_user_ms_per_login), system $(result_get cpu sshd_system_ms_per_login)), client $(result_get cpu client_cpu_ms_per_login) ms; per GB: ${per_gb:-not measured}${per_gb:+ s}"
}
