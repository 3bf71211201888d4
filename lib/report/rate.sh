# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `rate`; sourced by lib/bin/render.sh.

# manager_cpu_note TEST: the share of the test user's systemd --user
# manager in the CPU per login, when systemd runs one.
manager_cpu_note () {
	local m
	m=${D[$1|sshd_manager_cpu_ms]-}
	case $m in '' | -) ;; *)

		prose -n "$m" "${D[$1|sshd_manager_ms_per_login]-}" <<-'EOF'
		. Of it, %s ms (%s ms per login) is the test user's own systemd manager (`user@UID.service`:
		`systemd --user` and `(sd-pam)`), which logind starts at a user's first session and keeps
		for all of that user's sessions: a cost per user rather than per login, paid again only
		when it had stopped between logins
		EOF
		;;
	esac
	[ "${D[$1|manager_cpu_lost]-}" != yes ] ||
		printf '. The test user'"'"'s systemd manager stopped during the run, so its share cannot be told apart'
}

report_rate () {
	local n mode lower per_s cpu cpu_user cpu_system
	mode=${KV_CACHE[$DATA_DIR/environment.env|service_mode]-}
	rate_report_capacity
	printf '### The specification'"'"'s closed-loop figure\n\n'
	n=${D[rate|login_n]-}
	printf '%s clients (`RATE_WORKERS`) each ran `ssh sshperf-test true` again and again for %s s. ' \
		"${D[rate|workers]-}" "$(t rate duration_s | cut -d. -f1)"
	printf 'A login counts when `ssh` exited 0; failed logins are counted and listed, never dropped. The rate is ok logins divided by the wall time until the last login ended.\n\n'
	printf '| Figure | Value |\n|---|---:|\n'
	fig per_s logins/s "${D[rate|logins_per_s]-}"
	fig cpu ms "${D[rate|sshd_cpu_ms_per_login]-}"
	fig cpu_user ms "${D[rate|sshd_user_ms_per_login]-}"
	fig cpu_system ms "${D[rate|sshd_system_ms_per_login]-}"
	printf '| Complete logins per second | %s |\n' "$per_s"
	printf '| Logins ok / failed | %s / %s |\n' "${D[rate|ok]-}" "${D[rate|failed]-}"
	printf '| Login time under load p50 / p95%s / p99%s (ms, n=%s) | %s / %s / %s |\n' "$(n_note "${n:-0}" p95)" "$(n_note "${n:-0}" p99)" \
		"${n:-0}" "$(ms "${D[rate|login_p50]-}")" "$(ms "${D[rate|login_p95]-}")" "$(ms "${D[rate|login_p99]-}")"
	printf '| sshd CPU per login with the ssh client'"'"'s key exchange (%s) | %s ms (%s user + %s system) |\n' "$(t rate ssh_kex | sed 's/^$/-/')" "$cpu" \
		"$cpu_user" "$cpu_system"
	printf '| ssh client CPU per login | %s ms |\n' "${D[rate|client_cpu_ms_per_login]-}"
	printf '| CPU used by the clients / by the whole machine | %s %% / %s %% |\n\n' "${D[rate|client_cpu_pct]-}" "${D[rate|machine_busy_pct]-}"
	printf 'sshd CPU: %s (total from %s, user/system from %s)' "${D[rate|cpu_source]-}" "${D[rate|cpu_total_from]-}" "${D[rate|cpu_split_from]-}"
	if [ "$mode" = systemd ]; then
		printf '; with systemd it is the unit plus the test user'"'"'s `user-UID.slice` (%s ms of %s ms), where pam_systemd moves the sessions' \
			"${D[rate|sshd_session_cpu_ms]-}" "${D[rate|sshd_cpu_ms]-}"
	elif [ "${D[rate|cpu_source]-}" = cgroup ]; then
		printf '; without systemd it is the cgroup start-ssh.sh put the listener in, which every connection and session inherits'
	fi
	manager_cpu_note rate
	lower=""
	[ "${D[rate|cpu_source]-}" != proc ] || lower=$(prose <<-'EOF'
	Read from /proc it is a **lower bound**: at the end of a session sshd's per-connection monitor
	can exit before it collects the session process, which is then collected by init and its CPU
	time leaves the listener's tree.
	EOF
	)
	prose "${lower:+ $lower}" <<-'EOF'
	. It includes the processes that ended during the run and the `true` each login ran.%s

	EOF
	# Its readings are of the closed-loop table, in the details with it;
	# the body has the specification's reading of the knee.
	printf '**How to read this result:**\n\n'
	awk -v rate="${D[rate|logins_per_s]-}" -v workers="${D[rate|workers]-}" -v p50="${D[rate|login_p50]-}" \
		-v failed="${D[rate|failed]-}" -v gen="${D[rate|generator_limited]-}" \
		-v lp50="$(compared rate login total_p50)" -v raw="$(t rate loginload_raw | sed 's|^$|raw/rate|')" 'BEGIN {
		if (p50 > 0)

			printf "- With %d clients that each wait for their own login, the rate can only be about" \
				" clients / login time = %d / %.3f s = %.1f logins/s; measured %.1f. It is a statement" \
				" about login time under parallel load, not the ceiling of the server: that is the" \
				" knee above.\n", workers, workers, p50 / 1000, workers / (p50 / 1000), rate
		if (lp50 > 0 && p50 > 0)

			printf "- A login took %.0f ms at p50 under load against %.0f ms one at a time (`login`):" \
				" %s.\n", p50, lp50, (p50 > 2 * lp50) ? "the logins queue for CPU, so the server (or" \
				" the clients on the same machine) is near its limit" : "parallel logins hardly slow" \
				" each other down"
		if (gen == "yes")
			print "- The ssh clients and sshd share this machine and it was (nearly) fully busy: the clients, not sshd, set this figure. The verdict uses the knee."
		if (failed > 0)

			print "- Logins failed under load: see `" raw "-errors.txt`. `Exceeded MaxStartups` or" \
				" `Connection reset` means more logins arrived at once than `MaxStartups` lets" \
				" through; time-outs mean the server was overloaded."
	}'

	# (The command is an argument: tests/t03-settings-door.sh reads a
	# setting's name after && in code as a variable set.)
	part body
	part advice
	prose '`MAX_STARTUPS=100:30:200 ./start-ssh.sh && RATE_WORKERS=64 ./test-ssh.sh rate`' <<-'EOF'

	**What to change when it is poor:** fewer logins (ControlMaster/ControlPersist for repeated
	commands); a lighter PAM session stack (no slow `pam_exec`, motd or lastlog scripts); raise
	`MaxStartups` if many logins come at once; to measure a higher closed-loop rate raise both:
	%s.

	EOF
}

# td TEST KEY: a key of a test's data file, "-" when it has none.
td () {
	local v
	v=${D[$1|$2]-}
	printf '%s' "${v:--}"
}

# The measured login capacity: the open-loop sweep and its knee.
rate_report_capacity () {
	local knee driver each capacity differs cpu_ssh cpu_drv
	fig knee logins/s "${D[rate|knee_per_s]-}"
	# sshd CPU per login at the two key exchanges, as every section prints them.
	fig cpu_ssh ms "${D[rate|sshd_cpu_ms_per_login]-}"
	fig cpu_drv ms "${D[rate|sweep_sshd_cpu_ms_per_login]-}"
	driver=${D[rate|sweep_driver]-}
	[ -n "$driver" ] || return 0
	printf '### Login capacity (open-loop sweep)\n\n'
	if [ "$driver" = libssh ]; then
		each=$(prose <<-'EOF'
		Each login is the complete one of `ssh sshperf-test true`: key exchange, host key check
		against the pinned key, public key authentication, exec `true`, its exit status, close; in
		one process of the kit (`sshperf-sweep`), with the algorithms the system's ssh client
		offers (`ssh -G`).
		EOF
		)
	else
		each='Each login runs `ssh sshperf-test true`.'
	fi
	prose "$driver" "${D[rate|sweep_step_seconds]-}" \
		"$([ -n "${D[rate|sweep_step_min_logins]-}" ] && printf ' (longer at low rates, so that every step has at least %s logins for its p95)' "${D[rate|sweep_step_min_logins]-}")" \
		"$(rate_sweep_steps_text)" "${D[rate|sweep_threads]-}" "$each" "$(get "$DATA_DIR/settings.env" TARGET_LOGIN_P95_MS | tr -d "'")" <<-'EOF'
	The %s driver offered logins at a fixed rate, %s s per step%s; %s.
	A login is due at its time whether or not the earlier ones have ended, and its latency counts
	from that time, so a server that falls behind shows as latency and as an achieved rate below
	the offered one. At most %s logins were in flight (the `MaxStartups` start value). %s The knee
	is the last step where the achieved rate stayed at 95 %% of the offered one or more, no login
	failed and p95 stayed within `TARGET_LOGIN_P95_MS` (%s ms).

	EOF
	printf '| Figure | Value |\n|---|---:|\n'

	if [ -n "${D[rate|knee_step]-}" ]; then capacity=$knee; else capacity="below $(td rate break_offered_per_s)"; fi
	printf '| **Capacity (the knee)**, the headline: %s driver, key exchange `%s` | **%s logins/s** at p95 %s ms, sshd %s %% of all CPUs |\n' \
		"$driver" "$(if [ "$driver" = libssh ]; then td rate libssh_kex; else td rate ssh_kex; fi)" \
		"$capacity" "$(ms "${D[rate|knee_p95_ms]-}")" "$(td rate knee_sshd_cpu_pct)"
	if [ -n "${D[rate|break_offered_per_s]-}" ]; then
		printf '| The step that broke | %s offered: %s; sshd %s %%, the driver %s %%, the machine %s %% busy |\n' \
			"${D[rate|break_offered_per_s]-}" "${D[rate|break_why]-}" "${D[rate|break_sshd_cpu_pct]-}" "${D[rate|break_client_cpu_pct]-}" "${D[rate|break_machine_busy_pct]-}"
	else
		printf '| The step that broke | none within %s steps: the capacity is at least the knee |\n' "${D[rate|sweep_steps]-}"
	fi
	if [ -n "${D[rate|knee_repeat_good]-}${D[rate|break_repeat_good]-}" ]; then
		printf '| The two steps nearest the knee, once more | %s; %s |\n' \
			"$(case ${D[rate|knee_repeat_good]-} in
				yes) printf 'the knee'"'"'s %s offered kept up again (%s achieved)' "${D[rate|knee_offered_per_s]-}" "${D[rate|knee_repeat_per_s]-}" ;;
				no) printf 'the knee'"'"'s %s offered broke this time (%s achieved)' "${D[rate|knee_offered_per_s]-}" "${D[rate|knee_repeat_per_s]-}" ;;
				*) printf 'the knee'"'"'s step not run again' ;;
			esac)" \
			"$(case ${D[rate|break_repeat_good]-} in
				no) printf '%s offered broke again (%s achieved)' "${D[rate|break_offered_per_s]-}" "${D[rate|break_repeat_per_s]-}" ;;
				yes) printf '%s offered kept up this time (%s achieved)' "${D[rate|break_offered_per_s]-}" "${D[rate|break_repeat_per_s]-}" ;;
				*) printf 'the step that broke not run again' ;;
			esac)"
	fi
	printf '| sshd CPU per login (%s key exchange) | %s ms |\n' "$(if [ "$driver" = libssh ]; then t rate libssh_kex; else t rate ssh_kex; fi)" "$cpu_drv"

	printf '| CPU bound at this key exchange: %s cores x 1000 / %s ms | %s logins/s (the knee is %s %% of it) |\n' \
		"${KV_CACHE[$DATA_DIR/environment.env|cores]-}" "$cpu_drv" "$(td rate cpu_bound_per_s)" "$(td rate knee_of_cpu_bound_pct)"
	if [ "$(td rate knee_clients_kex_per_s)" != - ]; then
		printf '| **Capacity at the clients'"'"' key exchange** (`%s`), scaled: the knee %s x %s ms / %s ms sshd CPU per login | **%s logins/s** |\n' \
			"$(td rate ssh_kex)" "$knee" "$cpu_drv" "$cpu_ssh" "${D[rate|knee_clients_kex_per_s]-}"
	fi
	if [ "$(td rate capacity_logins_per_s)" != - ]; then
		printf '| CPU bound at the clients'"'"' key exchange: %s cores x 1000 / %s ms (the closed-loop run) | %s logins/s |\n' \
			"${KV_CACHE[$DATA_DIR/environment.env|cores]-}" "$cpu_ssh" "${D[rate|capacity_logins_per_s]-}"
	fi
	printf '| Driver CPU per login (%s) | %s ms |\n\n' "$driver" "$(td rate sweep_client_cpu_ms_per_login)"
	if [ "$driver" = libssh ]; then
		differs=""
		[ "${D[rate|kex_differs]-}" != yes ] ||
			differs=$(prose "$(td rate ssh_kex)" "$(td rate libssh_kex)" \
				"$cpu_ssh" "$cpu_drv" <<-'EOF'
			**libssh cannot do the client's key exchange `%s`** and used `%s`; sshd's CPU per login
			with the real client's key exchange is in the closed-loop table below (%s ms against %s
			ms here). The capacity at the clients' key exchange above is the knee scaled by that
			ratio: it assumes that the knee is set by sshd's CPU, as the sshd share at the step that
			broke tells.
			EOF
			)
		prose "$(td rate libssh_kex)" "$(td rate libssh_cipher)" "$(td rate libssh_mac)" "$(td rate libssh_hostkey)" \
			"$(td rate ssh_kex)" "$(td rate ssh_cipher)" "$(td rate ssh_mac | sed 's/<implicit>/implicit (AEAD cipher)/')" \
			"$(td rate ssh_hostkey)" "${differs:+ $differs}" <<-'EOF'
		Negotiated by the driver: key exchange `%s`, cipher `%s`, MAC `%s`, host key `%s`. The
		system's ssh client negotiated `%s`, `%s`, `%s`, `%s`.%s

		EOF
		prose <<-'EOF'
		**Why the headline is the libssh driver's knee:** the `ssh` client starts one process per
		login, with CPU of its own (per login in the closed-loop table below); on the machine it
		shares with sshd, the clients run out of CPU before sshd does, so a sweep with them would
		measure the clients (`RATE_CLIENT=ssh` runs it all the same). The driver makes the same
		complete login in one process with a fraction of that CPU, so its knee is sshd's.

		EOF
	fi
	printf '| Offered /s | Achieved /s | ok | failed | p50 ms | p95 ms | sshd CPU %% | driver CPU %% | machine busy %% |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n'
	{ tsv_select "$RUN_DIR/raw/rate-sweep.tsv" offered_per_s achieved_per_s ok failed p50_ms p95_ms sshd_cpu_pct client_cpu_pct machine_busy_pct || true; } | sed 's/\t/ | /g; s/^/| /; s/$/ |/'
	printf '\n'
}

# What the sweep's steps were, from raw/rate-sweep.tsv in step order: the
# steps that rose above every earlier one (by a quarter), then the steps
# that halved the gap between the knee and the step that broke, then the
# knee's and the broken step's rates once more (their steps in
# knee_repeat_step, break_repeat_step). Not a fixed sentence: a sweep
# with refinement steps did not only rise.
rate_sweep_steps_text () {
	{ tsv_select "$RUN_DIR/raw/rate-sweep.tsv" step offered_per_s 2>/dev/null || true; } | sort -n -k1,1 |
		awk -F'\t' -v kr="${D[rate|knee_repeat_step]-}" -v br="${D[rate|break_repeat_step]-}" '
		$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9.]+$/ {
			if ($1 == kr || $1 == br) { rep++; reps = reps (reps == "" ? "" : " and ") $2; next }
			if (n == 0 || $2 + 0 > top) { top = $2 + 0; up++; last = $1; if (up == 1) first = $2 }
			else { ref++; refs = refs (refs == "" ? "" : ", ") $2 }
			n++
		}
		END {
			if (n == 0) { printf "rising from step to step"; exit }
			printf "%d step%s rising by a quarter each from %s logins/s", up, up == 1 ? "" : "s", first
			if (ref > 0)
				printf ", then %d step%s that halved the gap between the last step that kept up and the first that broke (%s logins/s offered)", ref, ref == 1 ? "" : "s", refs
			if (rep > 0)
				printf ", then the %s nearest the knee once more (%s logins/s offered), for the interval of the knee", rep == 1 ? "step" : "two steps", reps
		}'
}

# The specification's example beside the knee: its 55 logins/s come from
# 8 clients in a closed loop, which is not the knee's kind of figure; the
# summary says so and gives this run's closed loop beside it (issue 46,
# case 15). The registry's text when the closed loop has no figure.
reference_rate () {
	local ref=${METRIC_REFERENCE[rate]} per_s clients
	fig per_s logins/s "${D[rate|logins_per_s]-}"
	[ "$per_s" != - ] || { printf '%s' "$ref"; return 0; }
	clients=""
	[ "${D[rate|workers]-}" = 8 ] || clients=" with ${D[rate|workers]-} clients"
	clients="with 8 clients (a closed loop: this run's made $per_s/s$clients);"
	printf '%s' "${ref/with 8 clients;/$clients}"
}
