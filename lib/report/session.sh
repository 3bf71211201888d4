# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `session`; sourced by lib/bin/render.sh.

report_session () {
	local cell_1 cell_2 cell_3 cell_4 cell_5 cell_6
	local n p50 login speedup
	n=${D[session|n]-}
	p50=${D[session|p50]-}
	login=${D[session|login_p50]-}
	speedup=${D[session|speedup]-}
	printf 'One command run through a connection that is already logged in (`ControlMaster`): ssh opens only a new channel on it; there is no TCP connect, key exchange or authentication. '
	printf 'One master connection was opened, then `ssh sshperf-test true` ran %s times through it, one after another, each timed from start to exit. ' "${D[session|runs]-}"
	printf 'A command that had not found the master would have failed (the commands had no way to log in themselves), so every timed command went through it.\n\n'
	printf '| | n | failed | p50 | p95 | p99 | max |\n|---|---:|---:|---:|---:|---:|---:|\n'
	ms_to cell_1 "$p50"
	ms_to cell_2 "${D[session|p95]-}"
	n_note_to cell_3 "${n:-0}" p95
	ms_to cell_4 "${D[session|p99]-}"
	n_note_to cell_5 "${n:-0}" p99
	ms_to cell_6 "${D[session|max]-}"
	printf '| Command over the open connection | %s | %s | %s | %s%s | %s%s | %s |\n' "${n:-0}" "${D[session|failed]-}" \
		"$cell_1" "$cell_2" "$cell_3" \
		"$cell_4" "$cell_5" "$cell_6"
	ms_to cell_1 "$login"
	printf '| Full login, for comparison (%s) | %s | | %s | | | |\n\n' "${D[session|login_source]-}" "${D[session|login_n]-}" "$cell_1"
	if [ -n "$speedup" ]; then
		printf 'At p50 a command over the open connection was **%sx faster** than a full login.' "$speedup"
	fi
	printf ' The master connection was %s at the end and was closed with `ssh -O exit`.\n' \
		"$( [ "${D[session|master_survived]-}" = yes ] && printf 'still the same' || printf '**not** the same (it ended or was replaced during the test)')"

	part body
	printf '\n**How to read this result:**\n\n'
	awk -v p50="${p50:--1}" -v login="${login:-0}" -v speedup="${speedup:-0}" -v failed="${D[session|failed]-}" 'BEGIN {
		if (p50 < 0) {
			print "- No command ran through the master: see `raw/session-master.txt` and `raw/session-errors.txt`."
			exit
		}
		if (failed > 0)
			print "- Some commands failed: `raw/session-errors.txt` has their messages. With many parallel users of one connection the usual cause is `MaxSessions` (10 by default): `channel N: open failed`."
		if (speedup >= 3)

			printf "- %.0f ms instead of %.0f ms: re-using the connection saves most of the login." \
				" What is left is the new channel, the PAM session on the server and starting `true`" \
				" through the user'"'"'s shell.\n", p50, login
		else if (speedup > 0)

			printf "- Only %.1fx faster than a login: the part re-use cannot save (PAM session, the" \
				" user'"'"'s shell start-up) dominates here. Look at the PAM session modules and the" \
				" shell'"'"'s start-up files.\n", speedup
		if (p50 > 100)
			printf "- Over 100 ms for a command on an open connection is slow: a PAM session module (`pam_systemd`, `pam_sss`, `pam_exec`) or a start-up script of the shell is likely waiting for something.\n"
	}'

	part advice
	prose <<-'EOF'

	**What to change:** use connection re-use in clients that run many commands (Ansible does by
	default): `ControlMaster auto`, `ControlPath ~/.ssh/cm-%%C`, `ControlPersist 10m` in
	`~/.ssh/config`. When many sessions share one connection, raise `MaxSessions` on the server.
	To make each command itself faster, keep the PAM session stack and the user's shell start-up
	short.

	EOF
}
