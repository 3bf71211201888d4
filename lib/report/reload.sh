# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `reload`; sourced by lib/bin/render.sh.

report_reload () {
	local n alive login greeting
	n=${D[reload|sessions]-}
	alive=${D[reload|alive]-}
	login=${D[reload|login_ms]-}
	greeting=${D[reload|greeting_ms]-}

	prose "$n" <<-'EOF'
	%s sessions (each running `cat`) were opened, then the test server was reloaded the way an
	administrator applies a configuration change: `sshd -t` first, then `systemctl reload`
	(ReloadUnit) or `SIGHUP` to the listener. Times are from the moment of the reload.

	EOF
	if [ "${D[reload|refused]-}" = yes ]; then

		prose "$( [ "${D[reload|still_serving]-}" = yes ] && printf 'kept serving with its old configuration' || printf 'did not answer afterwards' )" <<-'EOF'
		**The reload was refused:** `sshd -t` rejected the configuration, so the server was not
		reloaded (a reload with a broken configuration would stop the listener). The server %s. Fix
		the configuration and run the test again.

		EOF
		printf '| | |\n|---|---|\n| Open sessions still alive | %s of %s |\n\n' "${alive:-0}" "$n"
		return 0
	fi
	printf '| After the reload | ms | n |\n|---|---:|---:|\n'
	printf '| A new connection gets the greeting | %s | 1 |\n' "$(ms "$greeting")"
	printf '| A complete new login works (`ssh sshperf-test true`) | %s | 1 (%s tries) |\n\n' "$(ms "$login")" "${D[reload|login_attempts]-}"
	printf '| Open sessions | |\n|---|---|\n| Survived the reload (own line echoed afterwards) | **%s of %s** |\n| Listener pid just before / after the reload | %s / %s |\n\n' \
		"${alive:-0}" "$n" "${D[reload|pid_before]-}" "${D[reload|pid_after]-}"
	reload_pid_note
	printf 'Each time is one measurement (n = 1): a reload is an event, not a stream; run the test again to see the spread.\n\n'
	reload_whose_table
	part body
	printf '**How to read this result:**\n\n'
	awk -v g="${greeting:-}" -v l="${login:-}" -v alive="${alive:-0}" -v n="$n" 'BEGIN {
		if (alive == n)
			print "- Every open session survived: each belongs to its own sshd processes, which a reload of the listener does not touch."
		else

			printf "- %d of %d sessions did not survive. A reload alone does not end sessions;" \
				" something else did (a restart instead of a reload, `KillMode` other than `process`," \
				" the OOM killer). See `raw/reload-ssh-errors.txt`.\n", n - alive, n
		if (g != "" && g != "-")

			printf "- New connections were answered again after %.0f ms: sshd started its own program" \
				" again, read the configuration and host keys and opened a new listening socket." \
				" Connections that arrive in that gap are refused and must be retried by the" \
				" client.\n", g
		if (l != "" && l != "-" && g != "" && g != "-")
			printf "- The first complete login worked %.0f ms after the reload, about one login time after the greeting: users notice a reload only if they connect in that moment.\n", l
	}'

	part advice
	prose <<-'EOF'

	**Be careful with reloads:** a configuration that `sshd -t` rejects stops the listener at the
	reload (systemd restarts it only after `RestartSec=42s` on RHEL), so always run `sshd -t &&
	systemctl reload sshd`. This test does the same and refuses to reload a rejected
	configuration.

	EOF
}

# Why the Environment's listener pid may differ from the one here: that
# one is taken at the start of the run, and a test that stops and starts
# the server on purpose (startup) gives the listener a new pid.
reload_pid_note () {
	local first m by=""
	first=${KV_CACHE[$DATA_DIR/environment.env|server_pid]-}
	[ -n "$first" ] && [ -n "${D[reload|pid_before]-}" ] && [ "$first" != "${D[reload|pid_before]-}" ] || return 0
	for m in ${KV_CACHE[$DATA_DIR/run.env|tests]-}; do
		case ",${METRIC_NEEDS[$m]:-}," in *,restarts-server,*) by="$by${by:+, }\`$m\`" ;; esac
	done
	printf 'The Environment section'"'"'s listener pid (%s) is the one at the start of the run; the server was started again since%s, so the listener the reload found had pid %s.\n\n' \
		"$first" "${by:+ (by $by, which restarts it on purpose)}" "${D[reload|pid_before]-}"
}

# reload_whose_table: whose time the login that worked after the reload
# was (lib/capture.sh); one line why when there is none, nothing for a
# run from before.
reload_whose_table () {
	local n
	case ${D[reload|timeline]-} in
	yes) ;;
	no) printf 'No timeline of whose time the new login was: %s.\n\n' "${D[reload|timeline_note]-}"; return 0 ;;
	*) return 0 ;;
	esac
	n=${D[reload|server_n]-}
	if [ "${n:-0}" -eq 0 ]; then
		printf 'No whose time: no login worked after the reload.\n\n'
		return 0
	fi
	prose "$n" "${D[reload|login_attempts]-}" <<-'EOF'
	**Whose time.** The login that worked after the reload, split by its packets on `lo` ([metrics.md](metrics.md),
	"Whose time"; the tables reload-logins, reload-parts and reload-whose in `raw/`). It rests on
	%s login, the one that worked (tries: %s; a try the server refused carries no login): each cell
	is that login's own time, not a spread. It is the first login the re-executed sshd served:

	| Part | whole login | key exchange | authentication | session |
	|---|---:|---:|---:|---:|
	EOF
	whose_rows reload
	printf '\n'
	[ "${D[reload|whose_mismatched]-}" = 0 ] || [ -z "${D[reload|whose_mismatched]-}" ] ||
		prose <<-'EOF' "${D[reload|whose_mismatched]-}"
		The parts of %s login(s) miss the login's total by more than 2 %%: their packets were not all
		seen; `raw/reload-whose.tsv` has each login's parts.

		EOF
}
