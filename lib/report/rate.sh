# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `rate`; sourced by lib/render.sh.

# manager_cpu_note TEST: the share of the test user's systemd --user
# manager in the CPU per login, when systemd runs one.
manager_cpu_note () {
	local m
	m=$(t "$1" sshd_manager_cpu_ms)
	case $m in '' | -) ;; *)
		printf '. Of it, %s ms (%s ms per login) is the test user'"'"'s own systemd manager (`user@UID.service`: `systemd --user` and `(sd-pam)`), which logind starts at a user'"'"'s first session and keeps for all of that user'"'"'s sessions: a cost per user rather than per login, paid again only when it had stopped between logins' \
			"$m" "$(t "$1" sshd_manager_ms_per_login)" ;;
	esac
	[ "$(t "$1" manager_cpu_lost)" != yes ] ||
		printf '. The test user'"'"'s systemd manager stopped during the run, so its share cannot be told apart'
}

report_rate () {
	local n
	n=$(t rate login_n)
	printf '%s clients (`RATE_WORKERS`) each ran `ssh sshperf-test true` again and again for %s s. ' \
		"$(t rate workers)" "$(t rate duration_s | cut -d. -f1)"
	printf 'A login counts when `ssh` exited 0; failed logins are counted and listed, never dropped. The rate is ok logins divided by the wall time until the last login ended.\n\n'
	printf '| Figure | Value |\n|---|---:|\n'
	printf '| Complete logins per second | %s |\n' "$(t rate logins_per_s)"
	printf '| Logins ok / failed | %s / %s |\n' "$(t rate ok)" "$(t rate failed)"
	printf '| Login time under load p50 / p95%s / p99%s (ms, n=%s) | %s / %s / %s |\n' "$(n_note "${n:-0}" p95)" "$(n_note "${n:-0}" p99)" \
		"${n:-0}" "$(ms "$(t rate login_p50)")" "$(ms "$(t rate login_p95)")" "$(ms "$(t rate login_p99)")"
	printf '| sshd CPU per login (user + system) | %s ms (%s + %s) |\n' "$(t rate sshd_cpu_ms_per_login)" \
		"$(t rate sshd_user_ms_per_login)" "$(t rate sshd_system_ms_per_login)"
	printf '| ssh client CPU per login | %s ms |\n' "$(t rate client_cpu_ms_per_login)"
	printf '| Capacity for sshd alone (%s cores x 1000 / CPU ms per login) | about %s logins/s |\n' "$(t rate cores)" "$(t rate capacity_logins_per_s)"
	printf '| CPU used by the clients / by the whole machine | %s %% / %s %% |\n\n' "$(t rate client_cpu_pct)" "$(t rate machine_busy_pct)"
	printf 'sshd CPU: %s (total from %s, user/system from %s)' "$(t rate cpu_source)" "$(t rate cpu_total_from)" "$(t rate cpu_split_from)"
	[ "$(t rate cpu_source)" = cgroup ] && printf '; with systemd it is the unit plus the test user'"'"'s `user-UID.slice` (%s ms of %s ms), where pam_systemd moves the sessions' \
		"$(t rate sshd_session_cpu_ms)" "$(t rate sshd_cpu_ms)"
	manager_cpu_note rate
	printf '. It includes the processes that ended during the run and the `true` each login ran.'
	[ "$(t rate cpu_source)" != proc ] || printf ' Without systemd it is a **lower bound**: at the end of a session sshd'"'"'s per-connection monitor can exit before it collects the session process, which is then collected by init and its CPU time leaves the listener'"'"'s tree.'
	printf '\n\n'
	printf '**How to read this result:**\n\n'
	awk -v rate="$(t rate logins_per_s)" -v workers="$(t rate workers)" -v p50="$(t rate login_p50)" \
		-v failed="$(t rate failed)" -v cap="$(t rate capacity_logins_per_s)" -v gen="$(t rate generator_limited)" \
		-v lp50="$(get "$DATA_DIR/login.env" total_p50)" 'BEGIN {
		if (p50 > 0)
			printf "- With %d clients that each wait for their own login, the rate can only be about clients / login time = %d / %.3f s = %.0f logins/s; measured %.1f. It is a statement about login time under parallel load, not the ceiling of the server.\n", workers, workers, p50 / 1000, workers / (p50 / 1000), rate
		if (lp50 > 0 && p50 > 0)
			printf "- A login took %.0f ms at p50 under load against %.0f ms one at a time (`login`): %s.\n", p50, lp50, (p50 > 2 * lp50) ? "the logins queue for CPU, so the server (or the clients on the same machine) is near its limit" : "parallel logins hardly slow each other down"
		if (cap > 0)
			printf "- The CPU figure says this machine could do about %.0f logins/s for sshd alone if nothing else ran; in real use the clients are on other machines.\n", cap
		if (gen == "yes")
			print "- The clients and sshd share this machine and it was (nearly) fully busy: the load generator, not sshd, set the limit. Compare the CPU per login instead of the rate, or run the clients elsewhere."
		if (failed > 0)
			print "- Logins failed under load: see `raw/rate-errors.txt`. `Exceeded MaxStartups` or `Connection reset` means more logins arrived at once than `MaxStartups` lets through; time-outs mean the server was overloaded."
	}'
	printf '\n**What to change when it is poor:** fewer logins (ControlMaster/ControlPersist for repeated commands); a lighter PAM session stack (no slow `pam_exec`, motd or lastlog scripts); raise `MaxStartups` if many logins come at once; to measure a higher rate raise both: `MAX_STARTUPS=100:30:200 ./start-ssh.sh && RATE_WORKERS=32 ./test-ssh.sh rate`.\n\n'
}
