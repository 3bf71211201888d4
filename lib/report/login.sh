# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `login`; sourced by lib/render.sh.

report_login () {
	local n p50 kex auth session total phase label ends
	n=$(t login total_n)
	printf 'One complete non-interactive login (`ssh sshperf-test true`): connect, key exchange, authentication, run `true`, log out. '
	printf '%s logins one after another; %s succeeded, %s failed. Times in ms, from the moment `ssh` was started; each phase ends at the `ssh -v` line named.\n\n' \
		"$(t login samples)" "$(t login ok)" "$(t login failed)"
	printf '| Phase | Ends when ssh -v prints | n | p50 | p95 | p99 | max |\n|---|---|---:|---:|---:|---:|---:|\n'
	for phase in connect greeting kex auth session total; do
		case $phase in
		connect) label="1. TCP connect"; ends="Connection established" ;;
		greeting) label="2. Greeting"; ends="Remote protocol version" ;;
		kex) label="3. Key exchange"
			[ "$(t login kex_algorithm)" = - ] || [ -z "$(t login kex_algorithm)" ] ||
				label="3. Key exchange (\`$(t login kex_algorithm)\`, host key \`$(t login hostkey_algorithm)\`)"
			ends="SSH2_MSG_NEWKEYS received" ;;
		auth) label="4. Authentication"; ends="Authenticated to" ;;
		session) label="5. Session"; ends="(ssh exits)" ;;
		total) label="**Total**"; ends="" ;;
		esac
		n=$(t login "${phase}_n")
		printf '| %s | %s | %s | %s | %s%s | %s%s | %s |\n' "$label" "$ends" "${n:-0}" \
			"$(ms "$(t login "${phase}_p50")")" "$(ms "$(t login "${phase}_p95")")" "$(n_note "${n:-0}" p95)" \
			"$(ms "$(t login "${phase}_p99")")" "$(n_note "${n:-0}" p99)" "$(ms "$(t login "${phase}_max")")"
	done
	printf '\n**How to read this result:**\n\n'
	p50=$(t login total_p50)
	kex=$(t login kex_p50)
	auth=$(t login auth_p50)
	session=$(t login session_p50)
	total=${p50:-0}
	awk -v total="$total" -v kex="${kex:-0}" -v auth="${auth:-0}" -v session="${session:-0}" \
		-v failed="$(t login failed)" 'BEGIN {
		if (failed > 0)
			print "- Some logins failed: their messages are in `raw/login-samples.tsv` (column error) and `raw/login-transcripts/`. A failed login is never left out of the count."
		if (total >= 4500 && (total % 5000 < 600 || total % 5000 > 4400))
			print "- The login takes close to a multiple of 5 s: typically a DNS or network time-out (`UseDNS`, GSSAPI/Kerberos, SSSD). See the guide, section on offline networks."
		else if (auth > 1000 || session > 1000)
			print "- Authentication or session takes over 1 s: a time-out in PAM (SSSD, LDAP, `pam_faillock`), DNS or GSSAPI."
		else if (total <= 300)
			printf "- %.0f ms at p50 is a normal login time for RHEL 9 (100-300 ms on a LAN; here without network round trips).\n", total
		else
			printf "- %.0f ms at p50 is slower than the usual 100-300 ms: look at which phase dominates below.\n", total
		if (kex > 100)

			printf "- The key exchange takes %.0f ms (p50): a slow CPU for the public-key work, or a" \
				" heavy method (a large Diffie-Hellman group, post-quantum hybrids such as" \
				" sntrup761x25519, RSA 4096 host keys). Client and server share the CPU here.\n", kex
		if ((auth >= 38 && auth <= 48) || (session >= 38 && session <= 48))
			print "- A phase of about 40 ms is usually not work but TCP waiting: Nagle on one side, delayed ACK (40 ms on Linux) on the other. It is why an SSH login rarely takes under about 100 ms."
	}'

	prose <<-'EOF'

	**What to change when it is slow:** re-use connections (ControlMaster/ControlPersist, the
	`session` test) - that removes the connect, key exchange and authentication entirely; keep
	`UseDNS no`; set `GSSAPIAuthentication no` on clients where Kerberos is not used; keep the PAM
	stack local and fast (no slow `pam_exec` or motd scripts).

	EOF
}
