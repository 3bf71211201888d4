# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `interactive`; sourced by lib/bin/render.sh.

report_interactive () {
	local cell_1 cell_2 cell_3 cell_4 cell_5 cell_6
	local c n label main p50 p99 max lost
	main=${D[interactive|main_client]-}

	prose "${D[interactive|${main}_count]-}" "${D[interactive|${main}_rate]-}" <<-'EOF'
	The time from sending one keystroke until it is back on the client - what a user typing into a
	remote shell feels. One session runs `cat` in a terminal (PTY) on the server; %s single letters
	were sent at %s per second, and each echo is timed from the moment its letter was **due** to be
	sent, so a pause anywhere also shows in the letters queued behind it. Times in ms. Client and
	server share this machine, so there is no network in these figures.

	EOF
	printf '| Client | n | lost | p50 | p95 | p99 | max | login |\n|---|---:|---:|---:|---:|---:|---:|---|\n'
	for c in libssh ssh; do
		[ -n "${D[interactive|${c}_exit]-}" ] || continue
		n=${D[interactive|${c}_n]-}
		case $c in
		libssh) label='libssh (in the timer; PTY set to `stty raw -echo`, `cat` writes each letter back)' ;;
		ssh) label='`ssh -tt` (the real client, in a raw terminal)' ;;
		esac
		[ "$c" != "$main" ] || label="**$label**"
		ms_to cell_1 "${D[interactive|${c}_p50]-}"
		ms_to cell_2 "${D[interactive|${c}_p95]-}"
		n_note_to cell_3 "${n:-0}" p95
		ms_to cell_4 "${D[interactive|${c}_p99]-}"
		n_note_to cell_5 "${n:-0}" p99
		ms_to cell_6 "${D[interactive|${c}_max]-}"
		printf '| %s | %s | %s | %s | %s%s | %s%s | %s | %s |\n' "$label" "${n:-0}" "${D[interactive|${c}_lost]-}" \
			"$cell_1" "$cell_2" "$cell_3" \
			"$cell_4" "$cell_5" "$cell_6" \
			"$(interactive_login_text "$c")"
	done
	printf '\nThe verdict uses the %s figure. n counts the echoes that were timed; `lost` counts the letters that never came back, which makes the test fail. ' "$main"
	interactive_clients_note "$main"
	if [ -n "${D[interactive|libssh_kex]-}" ]; then
		printf 'Negotiated by libssh: key exchange `%s`, cipher `%s`; the host key was checked against the kit'"'"'s pinned key.' \
			"${D[interactive|libssh_kex]-}" "${D[interactive|libssh_cipher_out]-}"
	fi
	printf '\n\nDuring the test the %s CPUs were %s%% busy (the echo clients included), %s%% stolen by a hypervisor: CPU time from /proc/stat over the test, which the warning uses.\n' \
		"${D[interactive|cores]-}" "${D[interactive|cpu_busy_pct]-}" "${D[interactive|cpu_steal_pct]-}"

	part body
	printf '\n**How to read this result:**\n\n'
	p50=${D[interactive|${main}_p50]-}
	p99=${D[interactive|${main}_p99]-}
	max=${D[interactive|${main}_max]-}
	lost=${D[interactive|${main}_lost]-}
	awk -v p50="${p50:--1}" -v p99="${p99:--1}" -v max="${max:--1}" -v lost="${lost:-0}" \
		-v busy="${D[interactive|busy]-}" -v lsp50="${D[interactive|libssh_p50]-}" -v sshp50="${D[interactive|ssh_p50]-}" 'BEGIN {
		if (p50 < 0) {
			print "- No echo was timed: the session did not start (see `raw/interactive-errors.txt`)."
			exit
		}
		if (lost > 0)
			printf "- %d letters never came back: the session broke or hung (see `raw/interactive-errors.txt`); that alone is a failure.\n", lost
		if (p50 < 1)
			printf "- %.2f ms at p50 is sshd'"'"'s own delay on this machine: unnoticeable. Over a network, add the round-trip time that `ping` shows.\n", p50
		else if (p50 < 20)
			printf "- %.1f ms at p50 is more than sshd usually needs on one machine (well under 1 ms): the CPUs were probably busy, or sshd waits for something per keystroke.\n", p50
		else
			printf "- %.0f ms at p50 is slow for a local echo: something delays every keystroke - CPU starvation, or a slow disk the session writes to.\n", p50
		if (max >= 100)
			printf "- The slowest letter took %.0f ms: users notice pauses from about 100 ms. Single spikes like this usually mean the server or its disk was busy for a moment.\n", max
		else if (p99 > 5 * p50 && p99 > 2)
			printf "- p99 (%.1f ms) is far above p50: occasional spikes, not a slow path - typically other work on the CPUs%s.\n", p99, (busy == "yes" ? ", and the machine was busy during the test" : "")
		else
			print "- The spread is narrow: no keystroke waited noticeably longer than the others."
		if (lsp50 != "" && sshp50 != "")
			printf "- The real ssh client adds %.2f ms at p50 over libssh (%.3f vs %.3f ms): its own terminal handling; both go through the same sshd.\n", sshp50 - lsp50, sshp50, lsp50
	}'

	part advice
	prose <<-'EOF'

	**What to change when it is slow:** keep the server from running out of CPU (see the `cpu`
	test and the load); look for disk waits (shell history, audit or session logging to a slow
	disk). sshd already turns off Nagle (`TCP_NODELAY`) for interactive sessions; on slow
	networks, the remaining delay is the round-trip time, which only a client that echoes locally
	(mosh, not part of RHEL) hides.

	EOF
}

# interactive_clients_note MAIN: which clients were timed and why the
# verdict is on MAIN's figure; for a run without the ssh client, that it
# was left out and how to add it.
interactive_clients_note () {
	if [ -n "${D[interactive|libssh_exit]-}" ] && [ -n "${D[interactive|ssh_exit]-}" ]; then
		prose -n <<-'EOF'
		Both clients were timed through the same sshd (`ECHO_CLIENT=both`): the libssh timer sends
		and reads each letter in its own process, so its figure is sshd's own delay; the real `ssh`
		client adds its own terminal handling, which is what a user of `ssh` feels. The verdict is on
		the first, so that it judges the server, not the client.
		EOF
		printf ' '
	elif [ "$1" = libssh ] && [ -n "${D[interactive|libssh_exit]-}" ]; then
		prose -n <<-'EOF'
		The real `ssh` client was not timed (`ECHO_CLIENT=libssh`), only the libssh timer, whose
		figure is sshd's own delay; `ECHO_CLIENT=both` adds the real client's figure beside it (one
		more session, a few seconds).
		EOF
		printf ' '
	fi
}

# How the client logged in, in a few words.
interactive_login_text () {
	local cell_1 cell_2
	case $1 in
	libssh)
		ms_to cell_1 "${D[interactive|libssh_connect_ms]-}"
		ms_to cell_2 "${D[interactive|libssh_auth_ms]-}"
		printf 'connect %s ms, auth %s ms' "$cell_1" "$cell_2" ;;
	ssh)
		ms_to cell_1 "${D[interactive|ssh_ready_ms]-}"
		printf 'first echo after %s ms' "$cell_1" ;;
	esac
}
