# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's "Capacity of this server" section: what this host can carry,
# computed from this run's own figures; sourced by lib/bin/render.sh.

report_capacity () {
	local env="$DATA_DIR/environment.env" cores ms_login per_gb mem_mb avail avail_from fit spec start mbs bound knee cores_ex rows=0
	cores=${KV_CACHE[$env|cores]-}
	# The memory section's figure (MB = 10^6 bytes, just before the
	# sessions opened), so the report gives one available-RAM figure;
	# the environment's (MiB at the start of the run) only without it.
	# With it, the sessions that fit are the memory section's own count
	# (from kB, not from the rounded MB figures), so the two agree.
	avail=${D[memory|available_mb]-}
	avail_from="available before the sessions opened (memory section)"
	fit=${D[memory|sessions_fit]-}
	if [ -z "$avail" ] || [ "$avail" = - ]; then
		fit=""
		avail=${KV_CACHE[$env|ram_available_mb]-}
		avail_from="available at the start of the run"
	fi
	# The CPU bound: the closed-loop run's figure (lib/probes/loginload.sh),
	# the same string as in the cpu and rate sections.
	ms_login=${D[cpu|sshd_cpu_ms_per_login]-}
	bound=${D[cpu|capacity_logins_per_s]-}
	if [ -z "$ms_login" ]; then
		ms_login=${D[rate|sshd_cpu_ms_per_login]-}
		bound=${D[rate|capacity_logins_per_s]-}
	fi
	fig ms_login ms "$ms_login"
	[ "$ms_login" != - ] || ms_login=""
	fig knee logins/s "${D[rate|knee_per_s]-}"
	# The cpu section's own sizing figure when it has one, with its digits.
	fig cores_ex cores "${D[cpu|cores_for_example]-}"
	per_gb=${D[cpu|cpu_sshd_s_per_gb]-}
	[ -n "$per_gb" ] && [ "$per_gb" != - ] || per_gb=${D[transfer|cpu_sshd_s_per_gb]-}
	[ "$cores_ex" != - ] || [ -z "$ms_login" ] ||
		cores_ex=$(awk -v m="$ms_login" -v g="$per_gb" 'BEGIN { printf "%.1f", 20 * m / 1000 + 500 * g / 1000 }')
	mem_mb=${D[memory|per_session_mb]-}
	[ -z "$mem_mb" ] || fig mem_mb MB "$mem_mb"
	spec=${KV_CACHE[$env|sshd_maxstartups]-}
	start=$(maxstartups_parse "$spec" | cut -d' ' -f1)
	mbs=${D[transfer|figure]-}

	printf '## Capacity of this server\n\n'

	prose "${cores:-?}" <<-'EOF'
	Rough limits of this host for SSH alone, computed from this run's figures (%s cores). Real
	clients add network round trips, and the users' own programs need CPU and memory too.

	EOF
	printf '| What | Estimate | From |\n|---|---:|---|\n'
	if [ -n "${D[rate|knee_step]-}" ]; then
		printf '| Complete logins per second, measured | %s | the knee of the `rate` sweep (p95 %s ms, %s driver) |\n' \
			"$knee" "$(ms "${D[rate|knee_p95_ms]-}")" "${D[rate|sweep_driver]-}"
		rows=$((rows + 1))
	fi
	if [ -n "${D[rate|knee_clients_kex_per_s]-}" ] && [ "${D[rate|knee_clients_kex_per_s]-}" != - ]; then
		printf '| Complete logins per second at the clients'"'"' key exchange (`%s`) | %s | the knee %s x %s ms / %s ms sshd CPU per login (the `rate` section) |\n' \
			"${D[rate|ssh_kex]-}" "${D[rate|knee_clients_kex_per_s]-}" "$knee" "$(ms "${D[rate|sweep_sshd_cpu_ms_per_login]-}")" "$ms_login"
		rows=$((rows + 1))
	fi
	if [ -n "$bound" ] && [ "$bound" != - ] && [ -n "$ms_login" ] && [ "$ms_login" != - ]; then
		printf '| Complete logins per second (all cores busy with logins) | about %s | %s cores x 1000 / %s ms sshd CPU per login |\n' \
			"$bound" "$cores" "$ms_login"
		rows=$((rows + 1))
	fi
	if [ -n "$start" ]; then
		printf '| Clients that may log in at the same moment without refusals | %s | `MaxStartups %s` (its first value) |\n' "$start" "$spec"
		rows=$((rows + 1))
	fi
	if [ -n "$mem_mb" ] && [ "$mem_mb" != - ] && [ -n "$avail" ]; then
		printf '| Open sessions that fit into the free memory | about %s | %s MB %s / %s MB PSS per session (without the users'"'"' programs) |\n' \
			"${fit:-$(awk -v a="$avail" -v m="$mem_mb" 'BEGIN { if (m > 0) printf "%d", a / m; else print "-" }')}" "$avail" "$avail_from" "$mem_mb"
		rows=$((rows + 1))
	fi
	if [ -n "$mbs" ] && [ "$mbs" != - ]; then
		printf '| Data through one connection | %s MB/s | the slower direction of the default cipher (`%s`); parallel connections use more cores |\n' "$mbs" "${D[transfer|default_cipher]-}"
		rows=$((rows + 1))
	fi
	if [ -n "$ms_login" ] && [ "$ms_login" != - ] && [ -n "$per_gb" ] && [ "$per_gb" != - ]; then
		printf '| Cores for 20 logins/s and 500 MB/s | about %s | 20 x %s ms + 500 MB/s x %s s per GB / 1000 |\n' \
			"$cores_ex" "$ms_login" "$per_gb"
		rows=$((rows + 1))
	fi
	[ "$rows" -gt 0 ] || printf '| (none: run `cpu`, `memory` and `transfer` for these figures) | - | - |\n'
	printf '\n'
}
