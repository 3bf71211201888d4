# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `memory`; sourced by lib/bin/render.sh.

# kB (KiB, as /proc counts) to MB (10^6 bytes), one decimal.
memory_kb_mb () {
	case $1 in
	'' | -) printf -- '-' ;;
	*) awk -v k="$1" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }' ;;
	esac
}

report_memory () {
	local n per src listener mgr has_mgr raw e500 e500_users mgr_note sampled reason
	n=${D[memory|sessions_open]-}
	per=${D[memory|per_session_mb]-}
	[ -z "$per" ] || fig per MB "$per"
	listener=${D[memory|listener_mb]-}
	# Runs from before the split: all of the at-rest figure.
	[ -n "$listener" ] || listener=$(memory_kb_mb "${D[memory|rest_pss_kb]-}")
	mgr=${D[memory|manager_kb]-}
	# Manager rows only where one ran (systemd, the user's manager up).
	has_mgr=$(( $(t memory rest_manager_processes | grep -x '[0-9]*' || echo 0) + $(t memory open_manager_processes | grep -x '[0-9]*' || echo 0) ))
	src=${D[memory|source]-}
	# Where the per-process rows are: the hold's (runs before the probes:
	# raw/memory-*).
	raw=${D[memory|hold_raw]-}
	raw=${raw:+$raw-memory}
	raw=${raw:-raw/memory}
	# No sample at all (the hold's sessions never opened, the server was
	# gone): nothing to tabulate; the summary row has the reason.
	if [ -z "${D[memory|rest_pss_kb]-}" ] && [ -z "${D[memory|open_pss_kb]-}" ]; then
		reason=${D[memory|reason]-}
		printf 'No memory sample was taken in this run (%s), so there is nothing to show here.\n\n' \
			"${reason:-no reason recorded}"
		return 0
	fi
	mgr_note=""
	[ "$has_mgr" = 0 ] || mgr_note=$(prose <<-'EOF'
	Under systemd the test user's slice also holds that user's own systemd manager; the rows
	marked with a dash split the figures by whose the processes are (told apart by pid and cgroup).
	EOF
	)
	if [ "$src" = hold ]; then
		sampled=$(prose "${n:-0}" <<-'EOF'
		Sampled during the run's shared hold of sessions (the measurement `hold`, whose sessions
		`concurrent` checks): once before its sessions were opened, once with all %s open.
		EOF
		)
	elif [ "$src" = concurrent ]; then
		printf -v sampled 'Sampled during the `concurrent` test: once before its sessions were opened, once with all %s open.' "${n:-0}"
	else
		printf -v sampled 'Sampled once before and once with %s sessions open (held by this test).' "${n:-0}"
	fi
	prose "${mgr_note:+$mgr_note }" "$sampled" <<-'EOF'
	Memory of the test server: the listener, every per-connection sshd process and the commands
	the sessions run (here `cat`), summed as PSS from `/proc/PID/smaps_rollup`. %s%s

	EOF
	printf '| | Processes | PSS (MB) | RSS (MB) |\n|---|---:|---:|---:|\n'
	printf '| At rest (before the sessions) | %s | %s | %s |\n' "${D[memory|rest_processes]-}" \
		"$(memory_kb_mb "${D[memory|rest_pss_kb]-}")" "$(memory_kb_mb "${D[memory|rest_rss_kb]-}")"
	if [ -n "${D[memory|rest_listener_pss_kb]-}" ]; then
		printf '| - at rest: the listener | %s | %s | %s |\n' "${D[memory|rest_listener_processes]-}" \
			"$(memory_kb_mb "${D[memory|rest_listener_pss_kb]-}")" "$(memory_kb_mb "${D[memory|rest_listener_rss_kb]-}")"
		[ "$has_mgr" = 0 ] ||
			printf '| - at rest: the test user'"'"'s systemd manager (`user@UID.service`) | %s | %s | %s |\n' "${D[memory|rest_manager_processes]-}" \
				"$(memory_kb_mb "${D[memory|rest_manager_pss_kb]-}")" "$(memory_kb_mb "${D[memory|rest_manager_rss_kb]-}")"
		printf '| - at rest: anything else still running | %s | %s | %s |\n' "${D[memory|rest_other_processes]-}" \
			"$(memory_kb_mb "${D[memory|rest_other_pss_kb]-}")" "$(memory_kb_mb "${D[memory|rest_other_rss_kb]-}")"
	fi
	printf '| With %s sessions open | %s | %s | %s |\n' "${n:-0}" "${D[memory|open_processes]-}" \
		"$(memory_kb_mb "${D[memory|open_pss_kb]-}")" "$(memory_kb_mb "${D[memory|open_rss_kb]-}")"
	[ "$has_mgr" = 0 ] ||
		printf '| - open: the test user'"'"'s systemd manager | %s | %s | %s |\n' "${D[memory|open_manager_processes]-}" \
			"$(memory_kb_mb "${D[memory|open_manager_pss_kb]-}")" "$(memory_kb_mb "${D[memory|open_manager_rss_kb]-}")"
	printf '| **Per session** ((open - at rest, without the manager) / %s) | | **%s** | |\n' "${n:-0}" "${per:--}"
	printf '| One session alone (its sshd processes and `cat`) | %s | %s | %s |\n\n' "${D[memory|one_processes]-}" \
		"$(memory_kb_mb "${D[memory|one_pss_kb]-}")" "$(memory_kb_mb "${D[memory|one_rss_kb]-}")"
	printf 'MB are 10^6 bytes. n = 1 sample at rest and 1 with the sessions open; memory changes slowly, so one sample each is enough, but other logins at the same moment would be counted in.\n\n'


	prose "$(memory_kb_mb "${D[memory|one_rss_kb]-}")" "$(memory_kb_mb "${D[memory|one_pss_kb]-}")" \
		"$(memory_kb_mb "${D[memory|open_rss_kb]-}")" "$(memory_kb_mb "${D[memory|open_pss_kb]-}")" <<-'EOF'
	**Why PSS:** RSS counts every shared page (the sshd program, libc, OpenSSL) in full for each
	process that maps it. One session alone has an RSS of %s MB but a PSS of %s MB; adding up the
	RSS of all processes gives %s MB with the sessions open, far more than the memory really used
	(PSS %s MB). PSS gives each process its share of the shared pages, so the sum is the real
	total.

	EOF

	# Runs from before the estimates were kept have none: no empty figure.
	e500=${D[memory|estimate_500_mb]-}
	e500_users=${D[memory|estimate_500_users_mb]-}
	part body
	printf '**How to read this result:**\n\n'
	printf -- '- The listener alone uses %s MB. Each open session adds %s MB: the session'"'"'s privileged sshd, its unprivileged sshd and a small command.\n' "${listener:--}" "${per:--}"
	# The estimates' arithmetic (the specification's reading has the
	# figure for 500 sessions) and what the tables show: in the details.
	part details
	if [ "${mgr:-0}" != 0 ]; then

		prose "${D[memory|manager_mb]-}" <<-'EOF'
		- The test user's own systemd manager (`systemd --user` and `(sd-pam)`, %s MB) is not the
		server's: logind starts one per user at the first session, shares it among all of that
		user's sessions and stops it some seconds after the last one. It counts once per user, not
		per session.
		EOF

		prose "${listener:--}" "${D[memory|manager_mb]-}" "${per:--}" "${e500:--}" "${e500_users:--}" <<-'EOF'
		- For N sessions of one user: about %s MB + %s MB + N x %s MB; for 500 sessions about
		**%s MB**. 500 users with one session each bring a manager each: about %s MB. Neither counts
		what the users run (a login shell adds a few MB per session, editors and tools more).
		EOF
	else
		printf -- '- For N sessions: about %s MB + N x %s MB%s, not counting what the users run (a login shell adds a few MB per session, editors and tools more).\n' \
			"${listener:--}" "${per:--}" "${e500:+; for 500 sessions about **$e500 MB**}"
	fi
	awk -v o="${D[memory|rest_other_pss_kb]-}" -v mb="${D[memory|rest_other_mb]-}" -v raw="$raw" 'BEGIN {
		if (o + 0 > 0)

			printf "- %s MB at rest belonged neither to the listener nor to the manager (a session of" \
				" an earlier test still closing, or a process its sessions left behind); it is not in" \
				" the estimates. The per-process rows are in `%s-rest.tsv`.\n", mb, raw
	}'
	# A run from before these figures were kept has neither: no line.
	awk -v a="${D[memory|available_mb]-}" -v n="${D[memory|sessions_fit]-}" 'BEGIN {
		if (a != "" && a != "-" && n != "" && n != "-")
			printf "- With %s MB available before the test, about %s such sessions would fit in memory; with a shell and programs per user, divide by the real per-user size instead.\n", a, n
	}'
	part body
	awk -v per="${per:-0}" -v raw="$raw" 'BEGIN {
		if (per + 0 > 6)

			print "- More than about 3 MB per session is unusual for sshd itself: look for PAM modules" \
				" that stay in the session (`pam_systemd`, `pam_sss`) or a large environment; the" \
				" per-process rows are in `" raw "-one-session.tsv`."
	}'

	part advice
	prose <<-'EOF'

	**What to change when it is high:** there is little to tune in sshd itself; plan RAM for the
	sessions you expect plus the users' programs. Connection sharing (`ControlMaster`) saves a
	whole session's processes for each extra command from the same client.

	EOF
}
