# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `concurrent`; sourced by lib/bin/render.sh.

report_concurrent () {
	local cell_1 cell_2 cell_3 cell_4 cell_5 cell_6
	local n alive opened dead failed limit raw
	n=${D[concurrent|sessions]-}
	alive=${D[concurrent|alive]-}
	opened=${D[concurrent|opened]-}
	dead=${D[concurrent|dead]-}
	failed=${D[concurrent|failed]-}
	limit=${D[concurrent|limit]-}
	# The hold's raw files (runs before the probes: raw/concurrent-*).
	raw=${D[concurrent|hold_raw]-}
	raw=${raw:-raw/concurrent}
	printf '%s sessions were opened and kept open at the same time, at most %s logging in at once (so `MaxStartups` never refused one). ' \
		"$n" "${D[concurrent|parallel]-}"
	printf 'Each session runs `cat` on the server. With all of them open, a line of its own was sent through every session: a session counts as alive only when exactly that line came back.\n\n'
	printf '| | Sessions |\n|---|---:|\n'
	printf '| Asked for | %s |\n| Opened (logged in, first line echoed) | %s |\n| Did not open | %s |\n' \
		"$n" "${opened:-0}" "${D[concurrent|open_failed]-}"
	printf '| Opened, but dead at the check | %s |\n| **Alive at the end** | **%s** |\n' "${dead:-0}" "${alive:-0}"
	printf '| ssh clients left after closing | %s |\n\n' "${D[concurrent|clients_left]-}"

	ms_to cell_1 "${D[concurrent|open_wall_ms]-}"
	ms_to cell_2 "${D[concurrent|open_ms_p50]-}"
	ms_to cell_3 "${D[concurrent|open_ms_p95]-}"
	n_note_to cell_4 "${D[concurrent|open_ms_n]-}" p95
	ms_to cell_5 "${D[concurrent|open_ms_max]-}"
	ms_to cell_6 "${D[concurrent|check_ms]-}"
	prose "$cell_1" "$cell_2" \
		"$cell_3" "$cell_4" \
		"$cell_5" "${D[concurrent|open_ms_n]-}" "$cell_6" <<-'EOF'
	Opening took %s ms in all; one session from the start of `ssh` to its first echoed line:
	p50 %s ms, p95 %s%s ms, max %s ms (n=%s, the login included). The alive check took %s ms for
	all sessions.

	EOF

	printf 'The limits that decide how many sessions fit (as a session of `%s` sees them, and on the host):\n\n' "${KV_CACHE[$DATA_DIR/environment.env|test_user]-}"
	printf '| Limit | Value | Used with all sessions open |\n|---|---|---|\n'
	printf '| Processes per user (`ulimit -u`; nproc lines in: %s) | %s | %s tasks of the test user (%s before) |\n' \
		"$( [ -n "${D[concurrent|limit_nproc_files]-}" ] && printf '`%s`' "${D[concurrent|limit_nproc_files]-}" || printf 'none')" \
		"${D[concurrent|limit_nproc]-}" "${D[concurrent|user_tasks_open]-}" "${D[concurrent|user_tasks_before]-}"
	printf '| `TasksMax` of the user'"'"'s slice (systemd) | %s | same |\n' "${D[concurrent|limit_tasksmax]-}"
	# (Runs from before these figures were kept: no row.) The figure
	# before the sessions is the one the memory section prints: the
	# shared measurement's KiB, in whole MB (fig_mb_of_kb); the probe's
	# own MB figure of an older run was cut, not rounded, from another read.
	local before
	fig_mb_of_kb before "${D[probe-hold|mem_available_kb]-}"
	[ "$before" != - ] || before=${D[concurrent|mem_available_mb_before]-}
	[ -z "${D[concurrent|mem_available_mb_before]-}" ] ||
		printf '| Memory (MemAvailable) | %s MB before | %s MB left |\n' \
			"$before" "${D[concurrent|mem_available_mb_open]-}"
	printf '| Open files per process (`ulimit -n`: session / server) | %s / %s | |\n\n' \
		"${D[concurrent|limit_nofile]-}" "${D[concurrent|limit_server_nofile]-}"

	part body
	printf '**How to read this result:**\n\n'
	if [ "${failed:-0}" -eq 0 ]; then

		prose "$n" <<-'EOF'
		- Every session opened and still carried data at the end: this server holds %s sessions at
		once. A session stays open for as long as the client keeps it; nothing here times them out.
		EOF
		# The arithmetic of the limits table, with it in the details.
		part details
		awk -v tasks="${D[concurrent|user_tasks_open]-}" -v before="${D[concurrent|user_tasks_before]-}" \
			-v nproc="${D[concurrent|limit_nproc]-}" -v pidmax="${D[concurrent|limit_pid_max]-}" -v n="$n" \
			-v all="${D[probe-hold|one_processes]-}" 'BEGIN {
			per = (n > 0) ? (tasks - before) / n : 0
			if (per <= 0 || nproc !~ /^[0-9]+$/)
				exit
			# The test user counts its own processes; the memory table counts
			# a session whole, with its privileged sshd (root): say both.
			whose = "its unprivileged sshd and `cat`"
			if (all ~ /^[0-9]+$/)
				whose = whose "; with its privileged sshd, which runs as root, " all " in all, as the memory section counts one session"
			if (pidmax ~ /^[0-9]+$/ && pidmax + 0 < nproc + 0)

				printf "- Each session cost about %.1f processes of the test user (%s)." \
					" `ulimit -u` (%d) is above the whole machine'"'"'s `kernel.pid_max` (%d), so the" \
					" latter is the ceiling: about %d such sessions if nothing else ran. A real login" \
					" shell adds processes per user.\n", per, whose, nproc, pidmax, pidmax / per
			else

				printf "- Each session cost about %.1f processes of the test user (%s);" \
					" with `ulimit -u` = %d, about %d such sessions fit before the process limit is" \
					" reached. A real login shell adds processes per user.\n", per, whose, nproc, nproc / per
		}'
		part body
	else

		prose "$failed" "$n" "${D[concurrent|limit_text]-}" "$raw" "$raw" <<-'EOF'
		- %s of %s sessions failed. Probable cause: **%s**. The messages of each failed session are
		in `%s-ssh-errors.txt`, the server's own log of the run in `%s-sshd-log.txt`.
		EOF
		case $limit in
		processes | tasksmax)

			prose <<-'EOF'
			- `fork: Resource temporarily unavailable` means the test user may start no more
			processes. Raise `nproc` for the users concerned (a file in `/etc/security/limits.d/`;
			RHEL ships `20-nproc.conf` with 4096), or on systemd hosts `UserTasksMax` / `TasksMax=`
			of `user-UID.slice`.
			EOF
			;;
		memory)
			printf -- '- The machine ran out of memory: the kernel refused allocations or the OOM killer ended sessions (`journalctl -k`). See the memory test for what one session costs.\n' ;;
		fds)
			printf -- '- A process ran out of file descriptors: raise `LimitNOFILE=` of the sshd unit or `nofile` in `/etc/security/limits.d/`.\n' ;;
		maxstartups)

			prose "${D[concurrent|parallel]-}" <<-'EOF'
			- Logins were refused as "too many unauthenticated connections" although only %s logged
			in at once: `MaxStartups` is lower than that, or slow logins piled up.
			EOF
			;;
		slow)
			printf -- '- Logins took longer than `LOGIN_TIMEOUT`: the machine was overloaded while opening; the burst and rate tests tell how many logins it takes.\n' ;;
		esac
		[ "${dead:-0}" -eq 0 ] ||

			prose "$dead" <<-'EOF'
			- %s sessions opened and then stopped working: something ended them while they were
			held (OOM killer, a restart of the user's slice, `ClientAliveInterval` with an
			unresponsive client).
			EOF
	fi
	[ "${D[concurrent|clients_left]-}" = 0 ] ||
		printf -- '- Some `ssh` clients did not end when their session was closed; the holder ended them.\n'

	part advice
	prose <<-'EOF'

	**What to change when sessions fail:** raise the limit that was reached (its table is in the details). `MaxSessions`
	is not it: it limits only sessions multiplexed over one connection, not users or connections.

	EOF
}
