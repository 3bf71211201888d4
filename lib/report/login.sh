# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `login`; sourced by lib/bin/render.sh.

report_login () {
	local cell_1 cell_2 cell_3 cell_4 cell_5 cell_6
	local n p50 kex auth session total phase label ends
	n=${D[login|total_n]-}
	printf 'One complete non-interactive login (`ssh sshperf-test true`): connect, key exchange, authentication, run `true`, log out. '
	if [ "${D[login|stages]-}" -gt 1 ] 2>/dev/null; then
		printf '%s logins one after another (`LOGIN_SAMPLES=%s`, then more in %s stages in all, because the p95'"'"'s interval held the target); %s succeeded, %s failed. ' \
			"$(( ${D[login|ok]-} + ${D[login|failed]-} ))" "${D[login|samples]-}" "${D[login|stages]-}" "${D[login|ok]-}" "${D[login|failed]-}"
	else
		printf '%s logins one after another; %s succeeded, %s failed. ' "${D[login|samples]-}" "${D[login|ok]-}" "${D[login|failed]-}"
	fi
	printf 'Times in ms, from the moment `ssh` was started; each phase ends at the `ssh -v` line named.\n\n'
	printf '| Phase | Ends when ssh -v prints | n | p50 | p95 | p99 | max |\n|---|---|---:|---:|---:|---:|---:|\n'
	for phase in connect greeting kex auth session total; do
		case $phase in
		connect) label="1. TCP connect"; ends="Connection established" ;;
		greeting) label="2. Greeting"; ends="Remote protocol version" ;;
		kex) label="3. Key exchange"
			[ "${D[login|kex_algorithm]-}" = - ] || [ -z "${D[login|kex_algorithm]-}" ] ||
				label="3. Key exchange (\`${D[login|kex_algorithm]-}\`, host key \`${D[login|hostkey_algorithm]-}\`)"
			ends="SSH2_MSG_NEWKEYS received" ;;
		auth) label="4. Authentication"; ends="Authenticated to" ;;
		session) label="5. Session"; ends="(ssh exits)" ;;
		total) label="**Total**"; ends="" ;;
		esac
		n=${D[login|${phase}_n]-}
		ms_to cell_1 "${D[login|${phase}_p50]-}"
		ms_to cell_2 "${D[login|${phase}_p95]-}"
		n_note_to cell_3 "${n:-0}" p95
		ms_to cell_4 "${D[login|${phase}_p99]-}"
		n_note_to cell_5 "${n:-0}" p99
		ms_to cell_6 "${D[login|${phase}_max]-}"
		printf '| %s | %s | %s | %s | %s%s | %s%s | %s |\n' "$label" "$ends" "${n:-0}" \
			"$cell_1" "$cell_2" "$cell_3" \
			"$cell_4" "$cell_5" "$cell_6"
	done
	login_gssapi_note
	login_whose
	part body
	printf '\n**How to read this result:**\n\n'
	p50=${D[login|total_p50]-}
	kex=${D[login|kex_p50]-}
	auth=${D[login|auth_p50]-}
	session=${D[login|session_p50]-}
	total=${p50:-0}
	awk -v total="$total" -v kex="${kex:-0}" -v kex95="${D[login|kex_p95]-}" -v auth="${auth:-0}" -v session="${session:-0}" \
		-v failed="${D[login|failed]-}" -v timeline="${D[login|timeline]-}" -v rhel="$(login_on_rhel)" \
		-v os="${KV_CACHE[$DATA_DIR/environment.env|os]-}" -v pam="$(login_pam_modules)" -v netpam="$(login_pam_modules network)" \
		-v wait="${D[login|tcp_wait_p50]-}" -v waits="${D[login|tcp_waits]-}" -v n="${D[login|total_n]-}" \
		-v kex_s="${D[login|kex_server_p50]-}" -v kex_c="${D[login|kex_client_p50]-}" 'BEGIN {
		if (failed > 0)
			print "- Some logins failed: their messages are in `raw/login-samples.tsv` (column error) and `raw/login-transcripts/`. A failed login is never left out of the count."
		if (total >= 4500 && (total % 5000 < 600 || total % 5000 > 4400))
			printf "- The login takes close to a multiple of 5 s: typically a DNS or network time-out (`UseDNS`, GSSAPI/Kerberos%s). See the guide, section on offline networks.\n", \
				netpam != "" ? ", the PAM modules of this stack that ask the network: " netpam : ""
		else if (auth > 1000 || session > 1000)
			printf "- Authentication or session takes over 1 s: a time-out in DNS, GSSAPI or PAM%s.\n", \
				pam != "" ? " (this stack holds " pam ")" : ""
		# The specification gives 100-300 ms for a RHEL 9 login: a claim
		# about this host only on RHEL, else a reference.
		ref = (rhel == "yes") ? "" : sprintf(" (a reference only: this host runs %s, not RHEL)", os != "" ? os : "another system")
		if (total <= 300 && rhel == "yes")
			printf "- %.0f ms at p50 is a normal login time for RHEL 9 (100-300 ms on a LAN; here without network round trips).\n", total
		else if (total <= 300)
			printf "- %.0f ms at p50, within the 100-300 ms the specification gives for a RHEL 9 login%s.\n", total, ref
		else
			printf "- %.0f ms at p50 is over the 100-300 ms the specification gives for a RHEL 9 login%s: %s where it goes.\n", \
				total, ref, timeline == "yes" ? "the phase and whose-time tables of its details show" : "the phase table of its details shows"
		# Key exchange over 100 ms: whose turn it was, from the packets.
		slow = kex > 100 || kex95 > 100
		if (timeline == "yes" && kex_s != "" && kex_c != "") {
			printf "- Of the key exchange (%.0f ms at p50%s), sshd had the turn for %.1f ms and the client for %.1f ms", \
				kex, kex95 != "" ? sprintf(", %.0f ms at p95", kex95) : "", kex_s, kex_c
			if (slow && kex_s >= kex_c)
				print ": over 100 ms, and most of it is sshd'"'"'s: a slow CPU for its public-key work, or a heavy method (a large Diffie-Hellman group, a post-quantum hybrid, an RSA 4096 host key)."
			else if (slow)
				print ": over 100 ms in all, but most of it is the client'"'"'s own public-key work (it shares this CPU with sshd), not the server'"'"'s."
			else if (kex_c > 2 * kex_s)
				print ": most of it is the client'"'"'s own public-key work (it shares this CPU with sshd), not the server'"'"'s."
			else
				print "."
		} else if (slow)
			printf "- The key exchange takes %.0f ms (p50): a slow CPU for the public-key work, or a" \
				" heavy method (a large Diffie-Hellman group, post-quantum hybrids such as" \
				" sntrup761x25519, RSA 4096 host keys). Client and server share the CPU here, and" \
				" without a timeline the kit cannot tell whose share it is.\n", kex
		# A phase of about 40 ms that does nothing: the measured TCP waits.
		if (timeline == "yes" && wait > 0)
			printf "- %.1f ms of the login (p50; in %d of %d logins) is TCP waiting, not work: a small" \
				" segment held back by Nagle until the other side'"'"'s delayed ACK (40 ms on Linux)." \
				" Neither sshd nor the client can do anything about it without TCP_NODELAY.\n", wait, waits, n
		else if (timeline == "yes")
			printf "- No TCP wait in the logins'"'"' packets (p50 0 ms; %d of %d logins had one).\n", waits, n
		else if ((auth >= 38 && auth <= 48) || (session >= 38 && session <= 48))
			print "- A phase of about 40 ms is usually not work but TCP waiting: Nagle on one side, delayed ACK (40 ms on Linux) on the other. Without a timeline the kit cannot show it."
	}'

	part advice
	prose <<-'EOF'

	**What to change when it is slow:** re-use connections (ControlMaster/ControlPersist, the
	`session` test) - that removes the connect, key exchange and authentication entirely; keep
	`UseDNS no`; set `GSSAPIAuthentication no` on clients where Kerberos is not used; keep the PAM
	stack local and fast (no slow `pam_exec` or motd scripts).

	EOF
}

# login_on_rhel: "yes" when the report's host runs RHEL or a rebuild of it.
login_on_rhel () {
	case ${KV_CACHE[$DATA_DIR/environment.env|os]-} in
	*"Red Hat"* | *AlmaLinux* | *Rocky* | *CentOS*) echo yes ;;
	*) echo no ;;
	esac
}

# login_pam_modules [network]: the modules of the test server's PAM stack
# (every type; environment.env's pam_stack) as a markdown list, each once;
# with "network", only those that ask a server over the network. Empty
# when the run has no stack recorded or PAM is off.
login_pam_modules () {
	get "$DATA_DIR/environment.env" pam_stack | sed -n 's/^[^:]*: //p' | tr ';' '\n' |
		awk -v net="${1:-}" '{ for (i = 2; i <= NF; i++) if (!($i in seen)) { seen[$i] = 1
			if (net == "" || $i ~ /^pam_(sss|ldap|krb5|winbind|radius|tacplus|mysql|pgsql)$/) l = l (l == "" ? "" : ", ") "`" $i "`" } }
		END { printf "%s", l }'
}

# login_whose: whose time the logins were, from their packets (the
# timeline of lib/capture.sh); one line why when there is none, nothing
# for a run made before the kit had it.
login_whose () {
	local cell_1 cell_2 cell_3 cell_4 cell_5
	local part
	case ${D[login|timeline]-} in
	yes) ;;
	no) printf '\nNo timeline of whose time the logins were: %s.\n' "${D[login|timeline_note]-}"; return 0 ;;
	*) return 0 ;;
	esac
	prose "${D[login|server_n]-}"  <<-'EOF'

	**Whose time.** From the logins' packets on `lo` (`raw/login-parts.tsv`, %s logins): every gap
	between two messages belongs to the side that sent the next one, or is a TCP wait when a segment
	left only once the other side's delayed ACK came ([metrics.md](metrics.md), "Whose time"). The parts of
	one login add up to its total; each cell is the p50 over the logins, so a column's cells need not
	add up to its p50 total. The chart of the median login below (`login-waterfall.svg`) draws its
	phases one after the other, each split into sshd's turns, the client's and TCP waits (within a
	phase each side's turns are summed). sshd's turns in authentication hold a wait of its own: it
	finishes no authentication request sooner than a time it derives from the user name, its host
	keys and its configuration file, 5 to 9.3 ms, doubled until that is past the request's work. A
	slower check therefore grows them in such steps, not by its own length, and any edit of the
	configuration can move them by a step ([metrics.md](metrics.md), "Whose time").

	| Part | whole login, p50 | p95 | key exchange | authentication | session |
	|---|---:|---:|---:|---:|---:|
	EOF
	for part in server client tcp_wait rest; do
		ms_to cell_1 "${D[login|${part}_p50]-}"
		ms_to cell_2 "${D[login|${part}_p95]-}"
		ms_to cell_3 "${D[login|kex_${part}_p50]-}"
		ms_to cell_4 "${D[login|auth_${part}_p50]-}"
		ms_to cell_5 "${D[login|session_${part}_p50]-}"
		printf '| %s | %s | %s | %s | %s | %s |\n' "$(whose_label "$part")" "$cell_1" \
			"$cell_2" "$cell_3" \
			"$cell_4" "$cell_5"
	done
	whose_notes login "" login
	login_pad
}

# login_pad: what sshd's padding of the key's two requests took in this
# run (lib/capture.sh capture_pad); nothing for a run made before the kit
# measured it.
login_pad () {
	local cell_1 cell_2
	local n=${D[login|pad_n]-}
	[ -n "$n" ] || return 0
	if [ "$n" -eq 0 ]; then
		printf '\n**sshd'"'"'s padding.** No login showed the key'"'"'s query, its answer, the signed request and the success in its packets.\n'
		return 0
	fi
	ms_to cell_1 "${D[login|pad_pair_p50]-}"
	ms_to cell_2 "${D[login|pad_query_p50]-}"
	prose "$cell_1" "$n" "$cell_2" <<-'EOF'

	**sshd's padding.** A key login's last two requests, the key's query and the signed request,
	took %s ms at p50 from the query to sshd's success (`raw/login-pad.tsv`, %s key logins): two
	padded requests and sshd's work to accept the login. Of it, sshd's work on the query took %s ms
	before it answered; the rest of that request is its wait. A new base time (any edit of the
	configuration, new host keys) moves this time by a step, which `--compare` shows under the
	configuration differences ([metrics.md](metrics.md), "Comparing runs").
	EOF
}

# login_gssapi_note: whether the kit's client tried GSSAPI and what the try
# cost (lib/metrics/login.sh measures the client as configured); on an
# offline host (no default route) the guide's warning about GSSAPI
# time-outs. Nothing for a run made before the kit recorded it.
login_gssapi_note () {
	local cell_1 cell_2
	local client tried kept all
	client=${D[login|client_gssapi]-}
	[ -n "$client" ] || return 0
	tried=${D[login|gssapi_tried]-}
	if [ "${tried:-0}" -gt 0 ]; then
		ms_to cell_1 "${D[login|gssapi_p50]-}"
		ms_to cell_2 "${D[login|gssapi_max]-}"
		# The logins whose `ssh -v` the kit kept, not all the test made
		# (issue 46, case 9): said when they differ.
		kept=${D[login|gssapi_logins]-} all=${D[login|total_n]-}
		if [ -z "$all" ] || [ "$all" = "$kept" ]; then kept="$kept logins"
		else kept="the $kept logins whose \`ssh -v\` the kit kept (of the $all the test made)"; fi
		prose "$tried" "$kept" "$cell_1" "$cell_2" "${D[login|gssapi_n]-}" <<-'EOF'

		**GSSAPI.** The kit's client is measured as it is configured, with `GSSAPIAuthentication yes`
		(RHEL's client sets it in `ssh_config.d/50-redhat.conf`), so %s of %s tried
		`gssapi-with-mic` before the key. The try took %s ms at p50 (max %s ms, n = %s) of the
		authentication phase: from `Next authentication method: gssapi-with-mic` to the next method
		in `ssh -v`, per login in `raw/login-gssapi.tsv`. Without a Kerberos ticket it fails locally;
		`GSSAPIAuthentication no` on clients that do not use Kerberos saves it.
		EOF
	elif [ "$client" = yes ]; then
		printf '\n**GSSAPI.** The kit'"'"'s client has `GSSAPIAuthentication yes`, but no login tried `gssapi-with-mic`: the server did not offer it (or this ssh is built without GSSAPI).\n'
	else
		prose <<-'EOF' "$client"

		**GSSAPI.** The kit's client does not try GSSAPI: its configuration has `GSSAPIAuthentication
		%s`. A RHEL client as shipped has it on and would try `gssapi-with-mic` before the key on every
		login.
		EOF
	fi
	[ "${tried:-0}" -gt 0 ] && [ "${KV_CACHE[$DATA_DIR/environment.env|default_route]-}" = no ] || return 0
	prose <<-'EOF'

	⚠ **This host is offline** (no default route) **and the client tries GSSAPI on every login.** On
	an offline network a client with `GSSAPIAuthentication yes` can wait for Kerberos and DNS
	look-ups that never get an answer: every login then waits exactly 5, 10 or 30 s before the
	key or the password prompt. Set `GSSAPIAuthentication no` on the clients where Kerberos is
	not used, or give them a working DNS and KDC (the guide, section "SSH on an offline network").
	EOF
}
