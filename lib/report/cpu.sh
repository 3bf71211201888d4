# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `cpu`; sourced by lib/bin/render.sh.

report_cpu () {
	local gb login user system client cores_ex alone
	gb=${D[cpu|cpu_sshd_s_per_gb]-}
	[ "$gb" != - ] || gb=""
	# The figures as every section prints them (lib/report/units.sh).
	fig login ms "${D[cpu|sshd_cpu_ms_per_login]-}"
	fig user ms "${D[cpu|sshd_user_ms_per_login]-}"
	fig system ms "${D[cpu|sshd_system_ms_per_login]-}"
	fig client ms "${D[cpu|client_cpu_ms_per_login]-}"
	fig cores_ex cores "${D[cpu|cores_for_example]-}"
	# The bulk measurement's login-only connection, whose cost the per-GB
	# figures leave out (the transfer section names it too).
	fig alone ms "${D[probe-bulk|cpu_login_sshd_ms]-}"

	prose "${D[cpu|cpu_source]-}" "${D[cpu|login_from]-}" "${D[cpu|ok]-}" "${D[cpu|per_gb_from]-}" <<-'EOF'
	CPU time of the test server: the listener, the per-connection processes, the session and the
	command each login ran, including processes that ended during the measurement (source: %s).
	Per login from %s (%s ok logins); per GB from %s.

	EOF

	[ "${D[cpu|cpu_source]-}" != proc ] || prose <<-'EOF'
	Without systemd the per-login figure is a lower bound: a session process that sshd's monitor
	leaves behind at the end is collected by init, and its CPU is not counted.

	EOF
	printf '| Figure | Value | Target |\n|---|---:|---|\n'
	printf '| sshd CPU per login (user + system) | %s ms (%s + %s) | <= %s ms |\n' "$login" \
		"$user" "$system" "$(get "$DATA_DIR/settings.env" TARGET_CPU_MS_PER_LOGIN | tr -d "'")"
	case ${D[cpu|figure_lo]-} in '' | -) ;; *)
		printf '| its 95 %% interval over the run'"'"'s %s windows (`raw/probe-loginload-windows.tsv`) | %s - %s ms | - |\n' \
			"${D[cpu|figure_n]-}" "${D[cpu|figure_lo]-}" "${D[cpu|figure_hi]-}" ;;
	esac
	case ${D[cpu|window_busy_pct]-} in '' | -) ;; *)
		# The closed loop's own shares (rate section, warnings) are of
		# another span and source: named beside these, so that two
		# figures of the clients' and the machine's CPU are not read as
		# one (issue 46, case 5).
		local other=""
		[ -z "${D[probe-loginload|client_cpu_pct]-}" ] ||
			other="; the \`rate\` section's ${D[probe-loginload|client_cpu_pct]-} % (clients) and ${D[probe-loginload|machine_busy_pct]-} % (machine) are over the closed loop's whole run"
		printf '| the CPUs meanwhile (all cores, `/proc/stat`, over the windows%s): busy / sshd / its clients / other processes / steal | %s %% / %s %% / %s %% / %s %% / %s %% | - |\n' \
			"$other" "${D[cpu|window_busy_pct]-}" "${D[cpu|window_sshd_pct]-}" "${D[cpu|window_client_pct]-}" "${D[cpu|window_other_pct]-}" "${D[cpu|window_steal_pct]-}" ;;
	esac
	case ${D[cpu|speed_spawn_us]-} in '' | -) ;; *)
		prose <<-'EOF' \
			"${D[cpu|speed_spawns]-}" "${D[cpu|speed_spawn_us_before]-}" "${D[cpu|speed_spawn_us_after]-}" "${D[cpu|speed_spawn_spread]-}" \
			"${D[cpu|speed_loop_ms_before]-}" "${D[cpu|speed_loop_ms_after]-}" "${D[cpu|speed_loop_spread]-}"
		| the machine's speed right before and right after (`sshperf-speed`, the CPU time of a fixed
		work): one start of `/bin/true` (the mean of %s); a fixed integer loop | %s / %s us (%sx); %s /
		%s ms (%sx) | - |
		EOF
		prose <<-'EOF' \
			"${D[cpu|speed_spawn_us]-}" "${D[cpu|sshd_cpu_per_login_spawns]-}"
		| sshd CPU per login in starts of `/bin/true`: the figure over the CPU time of one start (%s us,
		before and after together), a login's cost in the machine's current speed; a login moves less
		with that speed than a start does, so this is no steadier between runs ([metrics.md](metrics.md), `cpu`);
		the headline stays the ms above | %s | - |
		EOF
		;;
	esac
	case ${D[cpu|sshd_manager_cpu_ms]-} in '' | -) ;; *)
		printf '| of it: the test user'"'"'s systemd manager (`user@UID.service`, once per user) | %s ms (%s ms in all) | - |\n' \
			"${D[cpu|sshd_manager_ms_per_login]-}" "${D[cpu|sshd_manager_cpu_ms]-}" ;;
	esac
	printf '| ssh client CPU per login | %s ms | - |\n' "$client"
	case ${D[cpu|sshd_per_client_cpu]-} in '' | -) ;; *)
		prose <<-'EOF' \
			"${D[cpu|sshd_per_client_cpu]-}"
		| sshd CPU per login over the client's: the two ran in the same seconds on the same CPUs, so a
		machine that is slower or busier for this work moves both and leaves this ratio; a change in
		sshd moves it ([metrics.md](metrics.md), `cpu`) | %s | - |
		EOF
		;;
	esac
	if [ -n "$gb" ]; then
		printf '| sshd CPU per GB (default cipher) | %s s | <= %s s |\n' "$gb" "$(get "$DATA_DIR/settings.env" TARGET_CPU_S_PER_GB | tr -d "'")"
		printf '| ssh client CPU per GB | %s s | - |\n' "${D[cpu|cpu_client_s_per_gb]-}"
		[ "$alone" = - ] || printf '| sshd CPU of one login-only connection, alone (left out of the per-GB figures; not the CPU per login above, which is a mean over %s logins under load) | %s ms | - |\n' \
			"${D[cpu|ok]-}" "$alone"
	else
		printf '| sshd CPU per GB | %s | - |\n' "$(t cpu per_gb_from | sed 's/^$/not measured/')"
	fi
	printf '\n**Sizing with these figures:** cores needed ≈ logins/s x CPU per login + MB/s x CPU per GB / 1000. '
	printf 'For 20 logins/s and 500 MB/s on this host: 20 x %s ms + 500 x %s s / 1000 ≈ **%s cores**%s.\n\n' \
		"$login" "${gb:-0}" "$cores_ex" "$( [ -n "$gb" ] || printf ' (logins only; the per-GB part was not measured)')"
	part body
	printf '**How to read this result:**\n\n'
	awk -v l="$login" -v c="${D[cpu|client_cpu_ms_per_login]-}" -v cores="${D[cpu|cores]-}" \
		-v bound="${D[cpu|capacity_logins_per_s]-}" \
		-v to_details="${PART_MARK}details@@" -v to_body="${PART_MARK}body@@" 'BEGIN {
		if (l == "") exit
		if (bound != "" && bound != "-")
			printf "- %s ms per login means these %d cores carry about %s logins/s when they do nothing else (%d x 1000 / %s).\n", l, cores, bound, cores, l
		if (l > 100)
			print "- Over 100 ms is a lot for a login: look at the PAM session stack (motd, lastlog, `pam_exec`), a heavy key exchange, or a slow CPU (no AES-NI, a crypto library built for the wrong CPU)."
		else
			print "- A login costs far more than its cryptography: sshd starts several processes, runs PAM and writes the login records."
		# The CPU of the client, not of sshd: in the details.
		printf "\n%s\n", to_details
		if (c > 0)
			printf "- The client used %.0f ms per login; in real use that is on the users'"'"' machines, here it shared the CPU with sshd.\n", c
		printf "\n%s\n", to_body
	}'
	part advice
	printf '\n**What to change when it is poor:** re-use connections so fewer logins are needed; trim PAM session modules; prefer AES-GCM for bulk data.\n\n'
}
