# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `startup`; sourced by lib/bin/render.sh.

report_startup () {
	local n gn mode
	n=${D[startup|first_login_n]-}
	gn=${D[startup|greeting_n]-}
	mode=${D[startup|mode]-}

	prose "${D[startup|rounds]-}" "${mode:-?} mode" \
		"$([ "$mode" = systemd ] && echo 'the StartUnit call to systemd' || echo 'just before sshd was run')" \
		"${D[startup|poll_interval_us]-}" "${D[startup|ok]-}" "${D[startup|rounds]-}" \
		"$(startup_poll_note "${D[startup|poll_interval_us]-}")" <<-'EOF'
	The test server was stopped and started %s times (%s). Time zero is the moment the start was
	issued (%s). A small program tried to connect every %s µs from before that moment and recorded
	when the server first sent its greeting; right after it, one complete login (`ssh sshperf-test
	true`) was made. %s of %s rounds ended with a working login.%s

	EOF
	printf '| Time after the start command | n | min | p50 | max |\n|---|---:|---:|---:|---:|\n'
	printf '| First greeting (the server accepts connections) | %s | %s | %s | %s |\n' "${gn:-0}" \
		"$(ms "${D[startup|greeting_min]-}")" "$(ms "${D[startup|greeting_p50]-}")" "$(ms "${D[startup|greeting_max]-}")"
	printf '| First complete login | %s | %s | %s | %s |\n\n' "${n:-0}" \
		"$(ms "${D[startup|first_login_min]-}")" "$(ms "${D[startup|first_login_p50]-}")" "$(ms "${D[startup|first_login_max]-}")"
	printf 'Times in ms; every round is in `raw/startup-rounds.tsv` (a failed round is listed there with its message and counted above as not ok).\n\n'
	startup_whose_table
	part body
	printf '**How to read this result:**\n\n'
	awk -v g="${D[startup|greeting_max]-}" -v l="${D[startup|first_login_max]-}" -v lp="${D[startup|first_login_p50]-}" \
		-v gp="${D[startup|greeting_p50]-}" -v failed="${D[startup|failed]-}" -v ok="${D[startup|ok]-}" -v unit="$(unit_text)" 'BEGIN {
		if (ok == 0)

			print "- No round ended with a login: the server never answered or the login failed." \
				" Check the configuration with `sshd -t -f /etc/ssh/sshd_config_perf_test` and the" \
				" server log (`journalctl -u " unit "`, or `sshd.log` in the state" \
				" folder)."
		else {
			if (failed > 0)
				printf "- %d round(s) failed; see the message column in the raw file.\n", failed
			if (g != "" && g != "-" && g + 0 < 50)
				printf "- The greeting came after %.0f ms at most: sshd has no warm-up; it reads its configuration and keys and listens.\n", g
			else if (g != "" && g != "-")
				printf "- The greeting took up to %.0f ms: slower than the usual tens of ms. Slow `Include` files, a busy or slow disk, or (systemd) dependencies of the unit are the usual causes.\n", g
			if (l != "" && l != "-" && l + 0 > 1000)
				printf "- The first login took over 1 s (max %.0f ms): look at the server log for time-outs (DNS, `AuthorizedKeysCommand`, PAM modules that contact a network service).\n", l
			else if (lp != "" && lp != "-" && gp != "" && gp != "-")

				printf "- The first login ended %.0f ms after the start (p50), %.0f ms after the" \
					" greeting: the time of one ordinary login (compare the login test). A login" \
					" right after a start costs nothing extra.\n", lp, lp - gp
		}
	}'

	part advice
	prose <<-'EOF'

	**What to change when it is slow:** there is seldom anything to tune here. What matters more is
	that stopping or restarting sshd does not end open sessions (`KillMode=process` in the unit),
	so a restart over SSH is safe as long as the new configuration passes `sshd -t` first. The
	first start after installation can take seconds once, while the host keys are generated.

	EOF
}

# startup_poll_note MICROSECONDS: why the poller tried more often than the
# specification's every 5 ms, when it did; nothing otherwise.
startup_poll_note () {
	case $1 in '' | *[!0-9]*) return 0 ;; esac
	[ "$1" -lt 5000 ] || return 0
	prose -n "$(awk -v u="$1" 'BEGIN { printf "%g", u / 1000 }')" <<-'EOF'
	 The specification tries every 5 ms; the kit tries every %s ms, because a finer poll finds the
	moment the port first answers: every 5 ms, the greeting could be seen up to 5 ms late, a third
	of the specification's example greeting (15 ms).
	EOF
}

# startup_whose_table: whose time the first logins were (lib/capture.sh);
# one line why when there is none, nothing for a run from before.
startup_whose_table () {
	case ${D[startup|timeline]-} in
	yes) ;;
	no) printf 'No timeline of whose time the first logins were: %s.\n\n' "${D[startup|timeline_note]-}"; return 0 ;;
	*) return 0 ;;
	esac
	prose "${D[startup|server_n]-}" <<-'EOF'
	**Whose time.** From the first logins' packets on `lo` (%s logins; the tables startup-parts and
	startup-whose in `raw/`; [metrics.md](metrics.md), "Whose time"), p50 over the logins:

	| Part | whole login | key exchange | authentication | session |
	|---|---:|---:|---:|---:|
	EOF
	whose_rows startup
	whose_notes startup "" startup
	printf '\n'
}
