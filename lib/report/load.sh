# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report of a load run on the target (issue 47, docs/load-hosts.md):
# load-report.md from the merge's data/load-merge.env and
# raw/load-merge-hosts.tsv (lib/bin/load-merge.sh, docs/data.md), every
# figure rounded by `fig` (lib/report/units.sh). Sourced by
# lib/bin/load-merge.sh; needs lib/data.sh and lib/report/units.sh.

# load_fig UNIT KEY: KEY of the merge's data rounded for UNIT, with the
# unit; "-" when there is none.
load_fig () {
	local v
	fig v "$1" "$(kv_get "$LOAD_MERGE_ENV" "$2")"
	if [ "$v" = - ]; then printf -- '-'; else printf '%s %s' "$v" "$1"; fi
}

# report_load_merge RUN: the report, on stdout.
report_load_merge () {
	local run=$1 host addr st tests off unc ok acc lps p50 p95 bc bok bref bpen apart spread alive wide
	local a b c n_ e f g hosts_ran
	LOAD_MERGE_ENV="$run/data/load-merge.env"
	printf '# Load run on %s\n\n' "$(kv_get "$run/data/watch.env" target_host)"
	local head='The test server of this machine (port %s, user %s, MaxStartups %s) was loaded by %s load host(s) '
	head+='(`test-ssh.sh --load`) and watched by itself over the load (`test-ssh.sh --load-watch`, %s s of samples); '
	head+='every figure here is a measurement of that run, none is computed from another machine. Status: **%s**%s.\n\n'
	# The hosts that ran, "N of M" when the play could not run some.
	hosts_ran=$(kv_get "$LOAD_MERGE_ENV" hosts_n)
	n_=$(kv_get "$LOAD_MERGE_ENV" hosts_failed_n)
	if [[ ${n_:-0} =~ ^[1-9][0-9]*$ && $hosts_ran =~ ^[0-9]+$ ]]; then hosts_ran="$((hosts_ran - n_)) of $hosts_ran"; fi
	# shellcheck disable=SC2059 # the format is the text above
	printf "$head" \
		"$(kv_get "$run/data/watch.env" port)" "$(kv_get "$run/data/watch.env" user)" "$(kv_get "$LOAD_MERGE_ENV" max_startups)" \
		"$hosts_ran" "$(load_fig s window_s | cut -d' ' -f1)" "$(kv_get "$LOAD_MERGE_ENV" status)" \
		"$(r=$(kv_get "$LOAD_MERGE_ENV" reason); [ -z "$r" ] || printf ' (partial: %s)' "$r")"
	# Each load host the play could not run, by its failed.env.
	for host in $(kv_get "$LOAD_MERGE_ENV" hosts_failed); do
		a=$(kv_get "$run/hosts/$host/failed.env" reason) b=$(kv_get "$run/hosts/$host/failed.env" task)
		printf -- '- %s did not complete: %s%s\n' "$host" "${a:-no reason in its failed.env}" "${b:+ (task: $b)}"
	done
	[ -z "$(kv_get "$LOAD_MERGE_ENV" hosts_failed)" ] ||
		printf '\nNo figure below counts them (their rows say NOT_RUN).\n\n'
	printf '## The target\n\n| Figure | Value |\n|---|---|\n'
	printf '| logins/s of the closed loops, all hosts, in their common window of %s | %s |\n' "$(load_fig s rate_overlap_s)" "$(load_fig logins/s rate_logins_per_s)"
	printf '| sshd'"'"'s share of the target'"'"'s %s CPUs from the sample before that window to the one after it (%s) | %s |\n' \
		"$(kv_get "$LOAD_MERGE_ENV" cores)" "$(load_fig s rate_sshd_cpu_s)" "$(load_fig % rate_sshd_cpu_pct)"
	printf '| sshd CPU per login (its CPU over the window / the logins its log accepted) | %s |\n' "$(load_fig ms sshd_cpu_ms_per_login)"
	printf '| sshd CPU over the whole window, share of the CPUs | %s, %s |\n' "$(load_fig ms sshd_cpu_ms)" "$(load_fig % sshd_cpu_pct)"
	printf '| the machine busy over the window | %s |\n' "$(load_fig % machine_busy_pct)"
	printf '| the rest of the machine'"'"'s CPU per login (busy less sshd, over the same logins: systemd, logind and journald for each session, and any other work) | %s |\n' \
		"$(load_fig ms other_cpu_ms_per_login)"
	fig a ms "$(kv_get "$LOAD_MERGE_ENV" rate_login_p50)"
	fig b ms "$(kv_get "$LOAD_MERGE_ENV" rate_login_p95)"
	fig c ms "$(kv_get "$LOAD_MERGE_ENV" rate_login_p99)"
	fig n_ count "$(kv_get "$LOAD_MERGE_ENV" rate_login_n)"
	printf '| login time under load, every host'"'"'s logins (n = %s): p50 / p95 / p99 | %s / %s / %s ms |\n' "$n_" "$a" "$b" "$c"
	fig a ms "$(kv_get "$LOAD_MERGE_ENV" login_total_p50)"
	fig b ms "$(kv_get "$LOAD_MERGE_ENV" login_total_p95)"
	fig n_ count "$(kv_get "$LOAD_MERGE_ENV" login_total_n)"
	printf '| login time, one at a time (login test, n = %s): p50 / p95 | %s / %s ms |\n' "$n_" "$a" "$b"
	fig a count "$(kv_get "$LOAD_MERGE_ENV" logins_ok)"
	fig b count "$(kv_get "$LOAD_MERGE_ENV" logins_accepted)"
	printf '| logins: by the hosts'"'"' counts / in sshd'"'"'s log | %s / %s (%s) |\n' "$a" "$b" \
		"$(case $(kv_get "$LOAD_MERGE_ENV" logins_agree) in yes) echo 'each host agrees' ;; no) echo 'a host disagrees: see below' ;; *) echo 'no load host ran' ;; esac)"
	fig a sessions "$(kv_get "$LOAD_MERGE_ENV" peak_sessions)"
	fig b MB "$(awk -v k="$(kv_get "$LOAD_MERGE_ENV" per_session_kb)" 'BEGIN { if (k == "" || k == "-") print "-"; else printf "%.4f", k * 1024 / 1e6 }')"
	printf '| memory per session (PSS, at the most sessions open: %s) | %s MB |\n' "$a" "$b"
	fig a count "$(kv_get "$LOAD_MERGE_ENV" startups_max)"
	fig b count "$(kv_get "$LOAD_MERGE_ENV" startups_mean)"
	printf '| unauthenticated connections (the listener'"'"'s title): max / mean | %s / %s |\n' "$a" "$b"
	fig a count "$(kv_get "$LOAD_MERGE_ENV" drops_maxstartups)"
	fig b count "$(kv_get "$LOAD_MERGE_ENV" drops_other)"
	fig c count "$(kv_get "$LOAD_MERGE_ENV" drops_ratelimited)"
	printf '| sshd'"'"'s log: drops by MaxStartups / for another reason (penalties) / rate-limited | %s / %s / %s |\n' "$a" "$b" "$c"
	printf '| the watch covered the load (its first sample before the first host'"'"'s start, its last after the last end) | %s |\n\n' \
		"$(kv_get "$LOAD_MERGE_ENV" window_covers)"
	if [ "$(kv_get "$LOAD_MERGE_ENV" rate_hosts)" = 0 ]; then
		printf 'No capacity shown: no load host ran rate.\n\n'
	elif [ "$(kv_get "$LOAD_MERGE_ENV" rate_logins_per_s)" = - ]; then
		# A host whose earlier test (burst) ended late starts its loop
		# after another's has ended.
		printf 'No capacity shown: the hosts'"'"' closed loops did not run at the same time (no common window). '
		printf 'Run rate first, or alone, on every host.\n\n'
	else
		printf 'The capacity shown: %s of the closed loops with sshd at %s of this machine'"'"'s CPUs.\n\n' \
			"$(load_fig logins/s rate_logins_per_s)" "$(load_fig % rate_sshd_cpu_pct)"
	fi
	printf '## The load hosts\n\n'
	printf '| Host | address | status | clock offset | logins (own / sshd'"'"'s log) | logins/s | login p50 / p95 '
	printf '| burst: clients, ok, refused (log), penalty | release apart | release spread | sessions alive |\n'
	printf '|---|---|---|---|---|---|---|---|---|---|---|\n'
	while IFS=$'\t' read -r host addr st tests off unc ok acc lps p50 p95 bc bok bref bpen apart spread alive; do
		fig a ms "$off"; fig b ms "$unc"; fig c logins/s "$lps"; fig n_ ms "$p50"; fig e ms "$p95"
		fig f ms "$apart"; fig g ms "$spread"
		printf '| %s | %s | %s (%s) | %s +/- %s ms | %s / %s | %s | %s / %s ms | %s, %s, %s, %s | %s ms | %s ms | %s |\n' \
			"$host" "$addr" "$st" "$tests" "$a" "$b" "$ok" "$acc" "$c" "$n_" "$e" "$bc" "$bok" "$bref" "$bpen" "$f" "$g" "$alive"
	done < <(tsv_select "$run/raw/load-merge-hosts.tsv" host address status tests clock_offset_ms clock_uncertainty_ms logins_ok \
		logins_accepted rate_logins_per_s rate_login_p50 rate_login_p95 burst_clients burst_ok burst_refused burst_penalty \
		burst_release_apart_ms burst_release_spread_ms concurrent_alive)
	wide=$(kv_get "$LOAD_MERGE_ENV" burst_releases_wide)
	printf '\n'
	case $wide in
	yes) printf '**The burst releases were %s apart by the target'"'"'s clock, more than %s ms**: the hosts'"'"' bursts did not meet at the target as one.\n' \
		"$(load_fig ms burst_releases_apart_ms)" "$(kv_get "$LOAD_MERGE_ENV" burst_releases_goal_ms)" ;;
	no) printf 'The burst releases were %s apart by the target'"'"'s clock, within %s ms.\n' \
		"$(load_fig ms burst_releases_apart_ms)" "$(kv_get "$LOAD_MERGE_ENV" burst_releases_goal_ms)" ;;
	esac
	printf '\nData: `data/load-merge.env`, `raw/load-merge-hosts.tsv`, the watch'"'"'s `data/watch.env` and `raw/watch-*`, each host'"'"'s run in `hosts/NAME/` (docs/data.md).\n'
}
