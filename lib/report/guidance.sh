# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The specification's guidance, applied to this run; sourced by
# lib/bin/render.sh, which prints these sections after the capacity one:
#   report_uses      "What this means for your use": the uses of spec 6,
#                    each with what this run's figures say about it
#   report_settings  the sshd settings of spec 7: RHEL 9's default, the
#                    test server's value and, where it differs, this
#                    host's real sshd (sshd -T of both, environment.env)
#   report_offline   the offline-network risks of spec 8 this run saw;
#                    each is a function offline_risk_NAME printing table
#                    rows, so another file can add its own (the client's
#                    GSSAPI attempts are such a risk, kept elsewhere)
#   report_limits    "Limits of this test": spec 9, for this run
#   report_relations "How the metrics relate in this run": spec 5
#   guidance_for     in each test's section, the readings of spec 4.x
#                    that apply to this run (lib/report/guidance.tab)
# The readings of spec 4.1-4.13, 5, 7 and 8 are data: guidance.tab, one
# row each with the condition on this run's figures under which it
# applies, evaluated once per report by guidance.awk (guidance_load).
# Every figure is read from the tests' data files as they are; a test
# that did not run gives "not measured", never a guess.

# guidance_store: the figures the readings are judged on, one a line,
# "TEST.KEY<TAB>VALUE": every key of the run's data files (settings.env's
# without their quotes), and what the tables add: burst's refusals
# (refused_max, refused_steps "3 of 20, 15 of 50", refused_first, from
# raw/burst-steps.tsv) and transfer's fastest cipher (fastest_cipher,
# fastest_mbs, fastest_aes_mbs: by each cipher's slower direction, from
# raw/transfer-runs.tsv).
guidance_store () {
	local k
	for k in "${!D[@]}"; do
		printf '%s.%s\t%s\n' "${k%%|*}" "${k#*|}" "${D[$k]}"
	done | sed "/^settings\./ s/'//g"
	{ tsv_select "$RUN_DIR/raw/burst-steps.tsv" clients refused 2>/dev/null || true; } | awk -F'\t' '
		$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { n++
			if ($2 > max) max = $2
			if ($2 > 0) { list = list sep $2 " of " $1; sep = ", "; if (first == "") first = $1 } }
		END { if (n) printf "burst.refused_max\t%d\nburst.refused_steps\t%s\nburst.refused_first\t%s\n", max, list, first }'
	{ tsv_select "$RUN_DIR/raw/transfer-runs.tsv" cipher status mbs 2>/dev/null || true; } | awk -F'\t' '
		$2 == "ok" && $3 ~ /^[0-9.]+$/ { if (!($1 in low) || $3 + 0 < low[$1]) low[$1] = $3 + 0 }
		END { for (c in low) {
				if (best == "" || low[c] > low[best]) best = c
				if (c ~ /^aes.*gcm/ && low[c] > aes) aes = low[c] }
			if (best != "") printf "transfer.fastest_cipher\t%s\ntransfer.fastest_mbs\t%s\n", best, low[best]
			if (aes > 0) printf "transfer.fastest_aes_mbs\t%s\n", aes }'
}

# guidance_load: GUIDANCE, the readings of lib/report/guidance.tab that
# hold on this run, "SECTION<TAB>METRIC<TAB>ADVICE" each, in the table's
# order; GUIDANCE_CONCERN[METRIC] set when a reading of concern (column
# concern) holds for METRIC. Once per report, in the renderer's main
# shell.
GUIDANCE=()
declare -A GUIDANCE_CONCERN=()
guidance_load () {
	local line
	GUIDANCE=()
	GUIDANCE_CONCERN=()
	while IFS= read -r line; do
		case $line in
		concern$'\t'*)
			# shellcheck disable=SC2034 # read by lib/bin/render.sh (sections)
			GUIDANCE_CONCERN[${line#concern$'\t'}]=1 ;;
		*) GUIDANCE+=("$line") ;;
		esac
	done < <(awk -F'\t' -f "$KIT_DIR/lib/report/guidance.awk" <(guidance_store) "$KIT_DIR/lib/report/guidance.tab")
}

# guidance_rows METRIC [SECTION]: the advice of the readings for METRIC
# (- for the report's own sections, then of SECTION only), one a line.
guidance_rows () {
	local line rest
	for line in "${GUIDANCE[@]}"; do
		rest=${line#*$'\t'}
		[ "${rest%%$'\t'*}" = "$1" ] || continue
		[ -z "${2:-}" ] || [ "${line%%$'\t'*}" = "$2" ] || continue
		printf '%s\n' "${rest#*$'\t'}"
	done
}

# guidance_for METRIC: in a test's section, the specification's readings
# that apply to this run's figures, as a list.
guidance_for () {
	local rows="" sec line rest
	# In this shell, no $(guidance_rows) and sed: it runs for every section.
	for line in "${GUIDANCE[@]}"; do
		rest=${line#*$'\t'}
		[ "${rest%%$'\t'*}" = "$1" ] || continue
		rows+=${rest#*$'\t'}$'\n'
	done
	# As a $(...) would have them: without the line ends at the end.
	rows=${rows%"${rows##*[!$'\n']}"}
	[ -n "$rows" ] || return 0
	for line in "${GUIDANCE[@]}"; do
		case $line in *$'\t'"$1"$'\t'*) sec=${line%%$'\t'*}; break ;; esac
	done
	printf "**The specification's reading of this run** (its section %s, in the kit's words):\n\n" "$sec"
	printf -- '- %s\n' "${rows//$'\n'/$'\n'- }"
	printf '\n'
}

# g_fig VAR TEST: VAR gets "FIGURE UNIT" of a test that has a figure,
# else nothing. Into a variable, not printed: a $(...) is a fork of the
# renderer's shell, and these helpers run for every cell of the tables.
g_fig () {
	figure_fig "$1" "$2"
}

# g_ran TEST: true when TEST has a result in this run.
g_ran () {
	[ -f "$DATA_DIR/$1.env" ] && [ -n "${D[$1|status]-}" ]
}

# The burst steps as "clients ok" lines, smallest first.
g_burst_steps () {
	{ tsv_select "$RUN_DIR/raw/burst-steps.tsv" clients ok 2>/dev/null || true; } |
		awk -F'\t' '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/' | sort -n -k1,1
}

# g_burst_texts ARRAY WANT...: ARRAY[WANT] gets what the burst says for
# WANT clients at once, for every WANT in one pass over the steps (one
# pipeline for the table, not one per cell).
# shellcheck disable=SC2034 # g_burst_to is the caller's array
g_burst_texts () {
	local -n g_burst_to=$1
	local ms want line
	shift
	g_burst_to=()
	if ! g_ran burst; then
		for want in "$@"; do g_burst_to[$want]='not measured (`burst` did not run)'; done
		return 0
	fi
	ms=${KV_CACHE[$DATA_DIR/environment.env|sshd_maxstartups]-}
	[ -n "$ms" ] || { ms=${KV_CACHE[$DATA_DIR/settings.env|MAX_STARTUPS]-}; ms=${ms//\'/}; }
	# One line per WANT, in their order; a text has no line end of its own.
	while IFS= read -r line; do
		g_burst_to[$1]=$line
		shift
	done < <(g_burst_steps | awk -F'\t' -v wants="$*" -v ms="${ms:-?}" '
		{ step[++n] = $0 }
		END {
			nw = split(wants, w, " ")
			for (i = 1; i <= nw; i++) { burst_text(w[i] + 0); printf "\n" }
		}
		function burst_text(want,    j, f, allok, lost, lostok, at, atok) {
			for (j = 1; j <= n; j++) {
				split(step[j], f, "\t")
				f[1] += 0; f[2] += 0	# numbers, as the fields they were
				if (f[2] == f[1]) allok = f[1]
				if (f[2] < f[1] && !lost) { lost = f[1]; lostok = f[2] }
				if (f[1] >= want && !at) { at = f[1]; atok = f[2] }
			}
			if (at && atok == at)
				printf "%d of %d released at once logged in: enough for %d at once", atok, at, want
			else if (lost) {
				printf "burst lost clients from %d at once (%d of %d logged in", lost, lostok, lost
				if (at && at != lost) printf "; %d of %d at %d", atok, at, at
				printf "); with `MaxStartups %s` raise its first value to at least %d", ms, want
			} else if (allok)
				printf "all clients logged in up to %d at once, the largest step; %d at once was not tried", allok, want
			else
				printf "no burst step has a result"
		}')
}

# g_rate_text VAR NEED: VAR gets the measured login capacity against NEED
# logins/s (NEED a whole number).
g_rate_text () {
	local -n g_rate_to=$1
	local need=$2 knee knee_t cpu
	knee=${D[rate|figure]-}
	case $knee in
	'' | -)
		if [ -n "${D[rate|status]-}" ]; then g_rate_to="login capacity not measured (\`rate\` ${D[rate|status]-})"
		else g_rate_to='login capacity not measured (`rate` did not run)'; fi
		return 0 ;;
	esac
	fig knee_t logins/s "$knee"
	if g_at_least "$knee" "$need"; then
		g_rate_to="capacity $knee_t logins/s (the \`rate\` knee): enough for about $need per second"
	else
		g_rate_to="capacity $knee_t logins/s (the \`rate\` knee): **below** about $need per second"
	fi
	g_fig cpu cpu
	[ -z "$cpu" ] || g_rate_to+="; sshd CPU per login $cpu"
}

# g_at_least FIGURE N: whether FIGURE >= N, N a whole number; a plain
# decimal FIGURE is compared by its whole part (the same for a whole N),
# anything else as awk compares it.
g_at_least () {
	if [[ $1 =~ ^[0-9]{1,15}(\.[0-9]*)?$ ]]; then
		[ "$((10#${1%%.*}))" -ge "$2" ]
	else
		awk -v k="$1" -v n="$2" 'BEGIN { exit !(k >= n) }'
	fi
}

report_uses () {
	local login reload reload_fig conc mem echo echo_cell xfer sftp sess cpu_rate
	local -A burst rate
	g_fig login login
	reload=${D[reload|status]-}
	g_fig reload_fig reload
	g_fig sess session
	g_fig conc concurrent
	mem=${D[memory|per_session_mb]-}
	[ -z "$mem" ] || fig mem MB "$mem"
	g_fig echo interactive
	echo_cell='echo not measured'
	[ -z "$echo" ] || echo_cell="keystroke echo $echo (p99)"
	g_fig xfer transfer
	g_fig sftp sftp
	g_burst_texts burst 50 300
	g_rate_text cpu_rate 17
	rate[17]=$cpu_rate
	g_rate_text cpu_rate 50
	rate[50]=$cpu_rate
	printf '## What this means for your use\n\n'
	prose <<-'EOF'
	The uses the specification gives as examples for an offline company network (its section 6),
	each with what this run measured for it. The figures are this machine's, with clients on
	the same machine (see "Limits of this test").

	EOF
	printf '| Use of the server | Needs | What this run says |\n|---|---|---|\n'
	printf '| Normal server, admins log in | a few logins per hour, < 20 sessions | login %s%s; reload %s%s |\n' \
		"${login:-not measured}" "${login:+ (${D[login|figure_label]-}, ${D[login|status]-})}" \
		"${reload:-not measured}" "${reload_fig:+ (${D[reload|figure_label]-}: $reload_fig)}"
	printf '| Ansible target, 50 forks | bursts of 50 logins | %s |\n' "${burst[50]}"
	printf '| Monitoring over SSH (1000 checks every 60 s) | about 17 logins per second | %s%s |\n' "${rate[17]}" \
		"${sess:+; with ControlPersist a check is a command over an open connection: $sess (p95)}"
	printf '| Jump host for 300 users | bursts at 9:00, 300 long sessions | %s; %s; %s; %s |\n' \
		"${burst[300]}" \
		"${conc:-sessions not measured}${conc:+ (\`concurrent\`, ${D[concurrent|figure_label]-})}" \
		"$( [ -n "$mem" ] && [ "$mem" != - ] && awk -v m="$mem" 'BEGIN {
			printf "300 sessions need about %.0f MB for sshd (%s MB each), plus the users'"'"' programs", 300 * m, m }' ||
			printf 'memory not measured')" \
		"$echo_cell"
	printf '| SFTP server for backups, 1 Gbit/s | 100 MB/s and more, a few logins | %s |\n' \
		"$(awk -v x="${xfer%% *}" -v s="${sftp%% *}" 'BEGIN {
			if (x != "") printf "one connection %s MB/s (`transfer`, %s)", x, (x >= 100 ? "enough" : "**below 100 MB/s**")
			else printf "transfer not measured"
			if (s != "") printf "; SFTP %s MB/s (%s)", s, (s >= 100 ? "enough" : "**below 100 MB/s**")
			printf "; the disk is not part of these figures"
		}')"
	printf '| Build or CI host, git over SSH | 5-50 logins per second, many short | %s; %s |\n\n' "${rate[50]}" "${burst[50]}"
}

# g_val VAR KEY: VAR gets the test server's sshd -T value of KEY ("-"
# when unknown).
g_val () {
	local v=${KV_CACHE[$DATA_DIR/environment.env|sshd_$2]-}
	printf -v "$1" '%s' "${v:--}"
}

# g_real VAR KEY: VAR gets this host's real sshd value of KEY when it
# differs from the test server's; "same" when equal; "-" when the real
# one is unknown.
g_real () {
	local v=${KV_CACHE[$DATA_DIR/environment.env|realsshd_$2]-} test
	g_val test "$2"
	if [ -z "$v" ]; then printf -v "$1" -- '-'
	elif [ "$v" = "$test" ]; then printf -v "$1" 'same'
	else printf -v "$1" '**`%s`**' "$v"
	fi
}

# g_pam_cell VAR TYPE: g_pam as a table cell.
g_pam_cell () {
	local m
	g_pam m "$2"
	if [ -n "$m" ]; then printf -v "$1" '`%s`' "$m"; else printf -v "$1" 'not recorded'; fi
}

# g_pam VAR TYPE: VAR gets the modules of one PAM stack type, from
# pam_stack ("service sshd (/etc/pam.d/sshd): auth pam_unix ...; account
# ..."): the words after the first "TYPE " of its ;-separated parts.
g_pam () {
	local s=${KV_CACHE[$DATA_DIR/environment.env|pam_stack]-} part
	printf -v "$1" ''
	# Without the service's name: up to its first ":" when a space follows.
	case $s in *:*)
		part=${s#*:}
		case $part in ' '*) s=${part# } ;; esac ;;
	esac
	while [ -n "$s" ]; do
		part=${s%%;*}
		part=${part#"${part%%[! ]*}"}
		case $part in "$2 "*) printf -v "$1" '%s' "${part#"$2 "}"; return 0 ;; esac
		[[ $s == *';'* ]] || break
		s=${s#*;}
	done
}

# g_pam_words VAR TYPE... : VAR gets the modules of the PAM stack types,
# space-separated, with a space on either end (for a " MODULE " match).
g_pam_words () {
	local -n g_pam_to=$1
	local type m
	shift
	g_pam_to=" "
	for type in "$@"; do
		g_pam m "$type"
		g_pam_to+="$m "
	done
}

# g_pam_pick VAR WORDS MODULE...: VAR gets the MODULEs (given in sorted
# order) that are words of WORDS (g_pam_words), space-separated.
g_pam_pick () {
	local -n g_pick_to=$1
	local words=$2 m
	shift 2
	g_pick_to=""
	for m in "$@"; do
		case $words in *" $m "*) g_pick_to+="${g_pick_to:+ }$m" ;; esac
	done
}

report_settings () {
	local k row real_note=""
	[ -n "${KV_CACHE[$DATA_DIR/environment.env|sshd_maxstartups]-}" ] || return 0
	grep -q '^realsshd_' "$DATA_DIR/environment.env" 2>/dev/null ||
		real_note=" This host's real sshd could not be asked (\`sshd -T\` of its configuration), so its column is empty."
	printf '## sshd settings that affect performance\n\n'
	prose "$real_note" <<-'EOF'
	The settings the specification names (its section 7), with RHEL 9's default, the value the
	test server ran with and this host's real sshd (`sshd -T` of its configuration for the test
	user from 127.0.0.1; "same" when it equals the test server's, bold when it differs). Check a
	change with `sshd -t` before a reload.%s

	EOF
	printf '| Setting | RHEL 9 default | Test server | Real sshd | Effect | When to change |\n|---|---|---|---|---|---|\n'
	local val real rest
	while IFS='|' read -r k row; do
		g_val val "${k,,}"
		g_real real "${k,,}"
		# Every row has three fields: default|effect|when.
		rest=${row#*|}
		printf '| `%s` | %s | `%s` | %s | %s |\n' "$k" "${row%%|*}" "$val" "$real" "${rest/|/ | }"
	done <<-'EOF'
	MaxStartups|`10:30:100`|logins in progress before sshd refuses new ones at random|automation and jump hosts: `100:30:200`
	LoginGraceTime|`120`|seconds a connection may take to log in, holding a MaxStartups slot|`30` on exposed servers
	MaxSessions|`10`|sessions over one multiplexed (ControlMaster) connection|clients that multiplex heavily
	UseDNS|`no`|a reverse DNS lookup of every client|keep `no`, above all offline
	GSSAPIAuthentication|`yes`|Kerberos logins; DNS and KDC lookups that can time out|`no` where Kerberos is not used
	UsePAM|`yes`|account checks, limits, SELinux, logind, through PAM|keep `yes` on RHEL; keep the modules fast
	PrintMotd|`no`|sshd printing /etc/motd itself (pam_motd does it on RHEL)|leave `no`; see the PAM session stack below
	Ciphers|crypto policy|CPU per byte|change the crypto policy (`update-crypto-policies`), not sshd_config
	KexAlgorithms|crypto policy|CPU per login|the same: the crypto policy
	Compression|`yes` (if the client asks)|CPU against bytes|keep; clients should not use `-C` on a LAN
	ClientAliveInterval|`0`|finding dead clients|`300` with many long sessions
	AuthorizedKeysCommand|not set (`none`)|an external key lookup (e.g. SSSD) at every key login|make sure it is fast and cached
	EOF
	local p_session p_auth p_account
	g_pam_cell p_session session
	g_pam_cell p_auth auth
	g_pam_cell p_account account
	prose <<-'EOF' "$p_session"
	| PAM `session` stack | `pam_motd` among others | %s | - | modules run once per login after
	authentication: motd scripts (`/etc/motd.d`), `pam_systemd`, `pam_lastlog` | avoid slow motd
	scripts and modules that reach the network |
	EOF
	prose <<-'EOF' "$p_auth" "$p_account"
	| PAM `auth` / `account` stacks | `password-auth`: pam_unix, pam_sss, pam_faillock | %s / %s | - |
	password checks, account checks | with central accounts: SSSD `cache_credentials`, short
	time-outs |

	EOF
	prose <<-'EOF'
	On RHEL 9 the crypto policy's include overrides `Ciphers` and `KexAlgorithms` in
	`sshd_config`; the full `sshd -T` values are in the Environment section.

	EOF
	guidance_rows - 7 | sed 's/$/\n/'
}

# ---- Offline-network risks (spec 8) -------------------------------------
# offline_risk_NAME: table rows (| What this run saw | Why it matters
# offline | Fix |) for one risk, nothing when the run did not see it.

offline_risk_usedns () {
	local who="" k
	for k in sshd realsshd; do
		[ "${KV_CACHE[$DATA_DIR/environment.env|${k}_usedns]-}" = yes ] || continue
		who="$who${who:+ and }$( [ "$k" = sshd ] && printf 'the test server' || printf "this host's real sshd")"
	done
	[ -n "$who" ] || return 0
	prose <<-'EOF' "$who"
	| `UseDNS yes` in %s | sshd looks up the name of every client; without a reachable DNS server
	each login waits for the time-out after authentication | `UseDNS no` (the RHEL 9 default) |
	EOF
}

offline_risk_pam_directory () {
	local mods
	local words
	g_pam_words words auth account
	g_pam_pick mods "$words" pam_krb5 pam_ldap pam_sss pam_winbind
	[ -n "$mods" ] || return 0
	prose <<-'EOF' "$mods"
	| PAM asks a directory (`%s`) | when SSSD, LDAP or Kerberos cannot reach its server, logins wait
	for its time-outs | SSSD `cache_credentials = True`, short time-outs; fix the directory server |
	EOF
}

offline_risk_pam_session () {
	local mods
	local words
	g_pam_words words session
	g_pam_pick mods "$words" pam_exec pam_mkhomedir pam_motd
	[ -n "$mods" ] || return 0
	prose <<-'EOF' "$mods"
	| PAM session modules that run scripts or make homes (`%s`) | a motd or pam_exec script that
	reaches the network delays every login; this test measures them only as far as a non-interactive
	login runs them | keep `/etc/motd.d` and pam_exec scripts local and fast |
	EOF
}

offline_risk_faillock () {
	local words
	g_pam_words words auth account
	case $words in *' pam_faillock '*) ;; *) return 0 ;; esac
	prose <<-'EOF'
	| `pam_faillock` in the PAM stack | failed attempts lock the account for a while; automation
	with a wrong key or password locks itself out | watch `faillock --user USER`; use keys for
	automation |
	EOF
}

offline_risk_refusals () {
	local refused
	refused=$({ tsv_select "$RUN_DIR/raw/burst-steps.tsv" clients refused 2>/dev/null || true; } |
		awk -F'\t' '$2 ~ /^[0-9]+$/ && $2 > 0 { printf "%s%d of %d", sep, $2, $1; sep = ", " }')
	[ -n "$refused" ] || return 0
	prose <<-'EOF' "$refused"
	| `MaxStartups` refused clients in `burst` (%s at once) | the clients see
	`kex_exchange_identification` errors, which look like a network fault | raise `MaxStartups`
	(section 4.5 of the specification, the `burst` section above) |
	EOF
}

offline_risk_akc () {
	local v
	v=${KV_CACHE[$DATA_DIR/environment.env|sshd_authorizedkeyscommand]-}
	[ -n "$v" ] && [ "$v" != none ] || return 0
	printf '| `AuthorizedKeysCommand %s` | an external program looks up the keys at every key login; when it needs the network it waits for its time-outs | make sure it is fast and caches |\n' "$v"
}

offline_risk_fips () {
	case ${KV_CACHE[$DATA_DIR/environment.env|fips]-}:${KV_CACHE[$DATA_DIR/environment.env|crypto_policy]-} in
	yes:* | enabled:* | *:FIPS*) ;;
	*) return 0 ;;
	esac
	prose <<-'EOF'
	| FIPS mode / the `FIPS` crypto policy | chacha20-poly1305 and curve25519 are not allowed:
	logins and transfers use the other algorithms (see `login` and `transfer`) | nothing to fix;
	expected with FIPS |
	EOF
}

report_offline () {
	local f rows=""
	for f in $(declare -F | awk '$3 ~ /^offline_risk_/ { print $3 }'); do
		rows="$rows$("$f")"
		[ -z "$rows" ] || [ "${rows: -1}" = $'\n' ] || rows="$rows"$'\n'
	done
	printf '## Risks on an offline network\n\n'
	prose <<-'EOF'
	On a network without Internet most slow logins are time-outs of something that tries to reach
	a server that is not there (the specification's section 8). What this run saw of them:

	EOF
	if [ -z "$rows" ]; then
		printf 'None of the risks the kit looks for (UseDNS, PAM modules that ask a directory or run scripts, pam_faillock, MaxStartups refusals, AuthorizedKeysCommand, FIPS) was seen in this run.\n\n'
		offline_symptoms
		return 0
	fi
	printf '| What this run saw | Why it matters offline | Fix |\n|---|---|---|\n%s\n' "$rows"
	offline_symptoms
	prose <<-'EOF'
	Also useful offline: hand out `ssh_known_hosts` (or SSH certificates) with your configuration
	management, and run an NTP server inside the network if you use SSH certificates or Kerberos.

	EOF
}

# offline_symptoms: the waits of the specification's section 8 that this
# run's figures show (lib/report/guidance.tab), or that none did.
offline_symptoms () {
	local rows
	rows=$(guidance_rows - 8)
	if [ -z "$rows" ]; then
		printf 'None of the waits the specification names for an offline network (5, 10 or 30 s before authentication ends,'
		printf ' over 1 s in the authentication or after it, over 1 s before the shell prompt) shows in this run'"'"'s figures.\n\n'
		return 0
	fi
	printf 'The waits of an offline network that this run'"'"'s figures show (the specification'"'"'s section 8):\n\n'
	printf '%s\n' "$rows" | sed 's/^/- /'
	printf '\n'
}

# report_relations: the specification's section 5 for this run.
report_relations () {
	local rows
	rows=$(guidance_rows - 5)
	[ -n "$rows" ] || return 0
	printf '## How the metrics relate in this run\n\n'
	printf '%s\n' "$rows" | sed 's/^/- /'
	printf '\n'
}

report_limits () {
	local env="$DATA_DIR/environment.env" user mode
	if [ "${KV_CACHE[$env|test_user_existing]-}" = yes ]; then
		user=$(printf 'the existing account `%s` (NSS source `%s`): its directory lookups, if any, are in the figures' "${KV_CACHE[$env|test_user]-}" "${KV_CACHE[$env|test_user_source]-}")
	else
		user=$(prose -n "${KV_CACHE[$env|test_user]-}" <<-'EOF'
		a local user the kit created (`%s` in `/etc/passwd`): with SSSD, LDAP or Kerberos users
		authentication and session take longer; test with such an account (`TEST_USER`,
		`TEST_USER_EXISTING=yes`)
		EOF
		)
	fi
	case ${KV_CACHE[$env|service_mode]-} in
	systemd) mode="run by systemd as \`$(unit_text)\`, a copy of the real \`sshd.service\`" ;;
	direct) mode='started directly, without systemd (as in a container): what systemd adds to the real server (its cgroup, its unit) is not in the figures' ;;
	*) mode='unknown' ;;
	esac
	printf '## Limits of this test\n\n'
	printf -- '- **Clients and server share one machine** (%s cores): both sides encrypt on the same CPUs, and the load generator takes CPU that sshd would otherwise have.\n' "${KV_CACHE[$env|cores]-}"
	prose <<-'EOF' "${KV_CACHE[$env|test_port]-}"
	- **Loopback, no network** (127.0.0.1:%s): a real login adds the network's round trip several
	times (about 6-8 per login), and the delayed-ACK waits of the login phases can look different
	across a real network.
	EOF
	printf -- '- **The test user**: %s.\n' "$user"
	if [ -f "$DATA_DIR/shell.env" ]; then
		prose <<-'EOF'
		- **One login shell test**: only `shell` opens a login shell on a terminal, on this machine;
		the other tests run `true` or `cat`, without `/etc/profile`, `~/.bash_profile` or a terminal.
		Its split per start file covers bash only.
		EOF
	else
		prose <<-'EOF'
		- **Non-interactive sessions**: the tests run `true` or `cat`, not a login shell;
		`/etc/profile`, `~/.bash_profile` and motd scripts are not measured (`ssh -t HOST exit` shows
		them by hand).
		EOF
	fi
	printf -- '- **This OpenSSH**: %s%s; other versions differ a little in CPU and memory per session (OpenSSH 9.8 and later start a separate `sshd-session` per connection).\n' \
		"${KV_CACHE[$env|openssh_server]-}" "$( [ -z "${KV_CACHE[$env|openssh_process_model]-}" ] || printf ' (%s)' "${KV_CACHE[$env|openssh_process_model]-}")"
	printf -- '- **The test server, not the real one**: a second sshd on its own port with its own host keys, %s; the real sshd and its load were not measured.\n\n' "$mode"
}
