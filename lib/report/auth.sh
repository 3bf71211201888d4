# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `auth`; sourced by lib/bin/render.sh.

report_auth () {
	local cell_1 cell_2 cell_3 cell_4 cell_5
	local m label n locked lockcmd base base_p50 readings
	# One baseline for every difference the section shows: the fastest
	# method's p50, the one the verdict's gap (gap_p50_ms) is taken from,
	# so that the table and the verdict say the same figure (issue 28: the
	# verdict had 40.8 ms against RSA, the table +40.0 against ed25519).
	base=${D[auth|gap_fast]-}
	case $base in ed25519 | rsa | password) ;; *) base=ed25519 ;; esac
	base_p50=${D[auth|${base}_p50]-}
	prose "${D[auth|samples]-}" <<-'EOF'
	The same login (`ssh sshperf-test true`) %s times with each method, one after another.
	Times in ms from the start of `ssh` to its exit; the authentication phase runs from the end
	of the key exchange to `Authenticated to`. The method column is what `ssh -v` reported for
	each login.

	EOF
	printf '| Method | Used (checked) | ok / failed | n | p50 | p95 | max | p50 vs %s (the fastest) | auth phase p50 |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n' "$base"
	for m in ed25519 rsa password; do
		case $m in
		ed25519)
			label="ed25519 key"
			[ "${D[auth|default_key_type]-}" != ecdsa ] || label="ECDSA key (FIPS mode refuses ed25519)"
			;;
		rsa) label="RSA 3072 key" ;;
		password) label="password (PAM)" ;;
		esac
		if [ "${D[auth|${m}_status]-}" = SKIPPED ]; then
			printf '| %s | SKIPPED: %s | - | - | - | - | - | - | - |\n' "$label" "${D[auth|${m}_reason]-}"
			continue
		fi
		n=${D[auth|${m}_n]-}
		ms_to cell_1 "${D[auth|${m}_p50]-}"
		ms_to cell_2 "${D[auth|${m}_p95]-}"
		n_note_to cell_3 "${n:-0}" p95
		ms_to cell_4 "${D[auth|${m}_max]-}"
		ms_to cell_5 "${D[auth|${m}_authphase_p50]-}"
		printf '| %s | %s%s | %s / %s | %s | %s | %s%s | %s | %s | %s |\n' "$label" "${D[auth|${m}_method]-}" \
			"$( [ "${D[auth|${m}_wrong_method]-}" = 0 ] || printf ', **%s other**' "${D[auth|${m}_wrong_method]-}")" \
			"${D[auth|${m}_ok]-}" "${D[auth|${m}_failed]-}" "${n:-0}" "$cell_1" \
			"$cell_2" "$cell_3" "$cell_4" \
			"$(awk -v a="${D[auth|${m}_p50]-}" -v b="$base_p50" -v same="$( [ "$m" = "$base" ] && echo 1)" \
				'BEGIN { if (same) print "-"; else if (a == "" || b == "") print "-"; else printf "%+.1f", a - b }')" \
			"$cell_5"
	done
	# How the kit locks it depends on whether the test server uses PAM
	# (lib/common.sh, password_lock).
	if [ "${D[environment|sshd_usepam]-}" = no ]; then
		lockcmd="usermod -p '*' ${D[settings|TEST_USER]-}"
	else
		lockcmd="usermod -L ${D[settings|TEST_USER]-}"
	fi
	case ${D[auth|password_locked_after]-} in
	yes) locked=' Locked again after this run: checked.' ;;
	no) locked=$(printf ' **Locking it again after this run failed: run `%s`.**' "$lockcmd") ;;
	*) locked='' ;;
	esac
	if [ "${D[environment|sshd_usepam]-}" = no ]; then
		prose "$locked" <<-'EOF'

		The password of the test user is valid only during the password logins of this test: the kit
		sets it just before them and right after puts `*` in its place in `/etc/shadow` (no hash, so
		no password matches), also when the test is interrupted or fails. The test server runs with
		`UsePAM no`, and without PAM sshd refuses an account locked with `!` for keys too; `*` is not
		such a lock. The rest of the time no sshd of this host, the real one included, accepts a
		password for it; key logins are not affected.%s
		EOF
	else
		prose "$locked" <<-'EOF'

		The password of the test user is valid only during the password logins of this test: the kit
		sets it just before them and locks the account's password (`!` in `/etc/shadow`) right after,
		also when the test is interrupted or fails. The rest of the time no sshd of this host, the real
		one included, accepts a password for it; key logins are not affected.%s
		EOF
	fi
	auth_whose
	part body
	# The heading only over readings: with a password gap alone, the
	# specification's reading below says it, and this part has none.
	readings=$({ awk -v e="${D[auth|ed25519_p50]-}" -v r="${D[auth|rsa_p50]-}" -v p="${D[auth|password_p50]-}" 'BEGIN {
		if (e == "" || r == "" || p == "") { print "- A method has no successful login, so the methods cannot be compared."; exit }
		if (p - e <= 20 && r - e <= 20)
			printf "- The three methods are within %.0f ms of each other: the usual picture with local accounts.\n", (p - e > r - e ? p - e : r - e)
		if (p - e >= 1800)
			print "- About 2 s more points to a failed first attempt and `pam_faildelay`, or a network time-out in PAM."
		if (r - e > 20)
			printf "- RSA is %.0f ms slower than ed25519: RSA signing is costly for the client; sshd only verifies.\n", r - e
	}'
	auth_password_gap
	auth_gap_interval_line; })
	[ -z "$readings" ] || printf '\n**How to read this result:**\n\n%s\n' "$readings"
	part advice
	prose <<-'EOF'

	**What to change when it is poor:** use ed25519 keys for people and automation; with central
	accounts let SSSD cache credentials (`cache_credentials = True`) so a slow or absent directory
	does not slow every password login; keep the PAM stack short.

	EOF
}

# auth_gap_interval_line: how sure the judged gap is; nothing for a run
# made before the gap had an interval.
auth_gap_interval_line () {
	local lo hi judged shift hash centre
	lo=${D[auth|gap_judged_lo_ms]-} hi=${D[auth|gap_judged_hi_ms]-}
	[ -n "$lo" ] || return 0
	case $lo in -) lo="?" ;; esac
	case $hi in '' | -) hi="?" ;; esac
	# Two estimates of one gap, each named for what it is (issue 46, case
	# 1): the p50s' difference the section judges, and the shift whose
	# interval it is, less the hash check when the rest is judged.
	if [ "${D[auth|gap_judged]-}" = rest ]; then judged=${D[auth|gap_rest_ms]-}; else judged=${D[auth|gap_p50_ms]-}; fi
	fig judged ms "$judged"
	fig shift ms "${D[auth|gap_shift_ms]-}"
	hash="" centre=$shift
	if [ "${D[auth|gap_judged]-}" = rest ] && [ "$shift" != - ]; then
		fig hash ms "${D[auth|gap_hash_ms]-}"
		fig centre ms "$(awk -v s="${D[auth|gap_shift_ms]-}" -v h="${D[auth|gap_hash_ms]-}" 'BEGIN { print s - h }')"
		hash=", less the hash check $hash ms: $centre ms"
	fi
	prose <<-'EOF' \
		"${D[auth|gap_target]-}" "$judged" "$lo" "$hi" \
		"${D[auth|gap_slow]-}" "$(if [ "${D[auth|gap_judged]-}" = rest ]; then t auth gap_password_fast; else t auth gap_fast; fi)" \
		"$shift" "$hash"
	- The gap judged against `TARGET_AUTH_GAP_MS=%s` is %s ms as the difference of the p50s; its 95
	%% interval, %s-%s ms, is that of the Hodges-Lehmann shift of the %s logins against the %s
	ones (the median of all their differences, %s ms%s) with Moses' interval; the target is judged
	on that interval (PASS when all of it is within the target).
	EOF
	[ -n "${D[auth|gap_step_lo_ms]-}" ] || return 0
	prose <<-'EOF' \
		"${D[auth|gap_slow]-}" "${D[auth|gap_step_lo_ms]-}" "${D[auth|gap_step_hi_ms]-}" \
		"${D[auth|gap_verdict_lo_ms]-}" "${D[auth|gap_verdict_hi_ms]-}"
	- sshd's padding put the authentication of the %s logins on two steps ("Two steps" above): with
	all of them on the lower step the gap would be %s ms, on the upper %s ms. Which step most logins
	land on moves between identical runs, so the target is judged on %s to %s ms, the interval and
	both steps together.
	EOF
}

# auth_whose: whose time each method's logins were (lib/capture.sh), next
# to the method table; nothing for a run made before the kit had it.
auth_whose () {
	local cell_1 cell_2 cell_3 cell_4 cell_5 cell_6 cell_7
	local m any="" label
	for m in ed25519 rsa password; do [ "${D[auth|${m}_timeline]-}" != yes ] || any=yes; done
	[ -n "$any" ] || return 0
	prose <<-'EOF'

	**Whose time.** From each method's packets on `lo` (`raw/auth-METHOD-parts.tsv`; [metrics.md](metrics.md),
	"Whose time"): p50 over the method's logins of sshd's turns, the client's turns and TCP waits,
	whole login and authentication phase; the rest is what no packet gives to a side.

	| Method | sshd's turns | client's turns | TCP waits | rest | auth phase: sshd | client | TCP waits |
	|---|---:|---:|---:|---:|---:|---:|---:|
	EOF
	for m in ed25519 rsa password; do
		case $m in ed25519) label="${D[auth|default_key_type]-} key" ;; rsa) label="RSA key" ;; password) label=password ;; esac
		if [ "${D[auth|${m}_timeline]-}" != yes ]; then
			[ -z "${D[auth|${m}_timeline_note]-}" ] || printf '| %s | no timeline: %s | | | | | | |\n' "$label" "${D[auth|${m}_timeline_note]-}"
			continue
		fi
		ms_to cell_1 "${D[auth|${m}_server_p50]-}"
		ms_to cell_2 "${D[auth|${m}_client_p50]-}"
		ms_to cell_3 "${D[auth|${m}_tcp_wait_p50]-}"
		ms_to cell_4 "${D[auth|${m}_rest_p50]-}"
		ms_to cell_5 "${D[auth|${m}_auth_server_p50]-}"
		ms_to cell_6 "${D[auth|${m}_auth_client_p50]-}"
		ms_to cell_7 "${D[auth|${m}_auth_tcp_wait_p50]-}"
		printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$label" "$cell_1" \
			"$cell_2" "$cell_3" "$cell_4" \
			"$cell_5" "$cell_6" \
			"$cell_7"
	done
	for m in ed25519 rsa password; do whose_notes auth "$m" "auth-$m"; done
	for m in ed25519 rsa password; do auth_levels "$m"; done
}

# auth_levels METHOD: sshd's authentication turns of METHOD on two steps
# of its padding (lib/capture.sh capture_levels), and what that means.
auth_levels () {
	local cell_1 cell_2
	[ "${D[auth|${1}_auth_server_levels]-}" = 2 ] || return 0
	local k="auth|${1}_auth_server"
	ms_to cell_1 "${D[${k}_low_p50]-}"
	ms_to cell_2 "${D[${k}_high_p50]-}"
	prose <<-'EOF' \
		"$1" "$1" "${D[${k}_low_n]-}" "$cell_1" "${D[${k}_high_n]-}" "$cell_2" \
		"${D[${k}_step_ms]-}" "$1" "$( [ "$1" != password ] || printf ' and the password gap')" \
		"$( [ "$1" != password ] || printf ' A faster check (a cheaper hash, fewer PAM modules) moves the work off the step.')"

	**Two steps (%s).** sshd's turns in the authentication phase of the %s logins came at two
	levels: %s logins about %s ms, %s about %s ms, one step of %s ms apart
	(`raw/auth-%s-whose.tsv`). sshd pads every authentication request: it answers only once a time
	of its own has passed, a base time of 5 to 9.3 ms (from the user, its host keys and its
	configuration text) doubled until it covers the request's work. Work that takes about as long as
	one such step lands on it or on the next, and the share on the upper step follows the machine's
	speed: between identical runs it can move this method's p50%s by the whole step. It is sshd's
	own defence against timing attacks, not a slowness to fix.%s
	EOF
}

# auth_password_gap: the password gap as the hash check (the host's
# policy) plus the rest, each with its figure; the PAM modules named are
# this stack's own.
auth_password_gap () {
	local cell_1
	local gap fast mods cpu
	gap=${D[auth|gap_password_ms]-} fast=${D[auth|gap_password_fast]-} mods=${D[auth|pam_auth_modules]-}
	# A run from before the split, or no gap worth splitting.
	[ -n "$gap" ] && [ "$(awk -v g="$gap" 'BEGIN { print (g > 5) }')" = 1 ] || return 0
	if [ -z "${D[auth|gap_hash_ms]-}" ]; then
		printf -- '- The password login is %s ms slower than the %s key at p50. %s; so the gap cannot be split into the hash check and the rest, and `TARGET_AUTH_GAP_MS` is judged on all of it.%s\n' \
			"$gap" "$fast" "$(t auth password_hash_note | sed 's/^t/T/')" \
			"$( [ -z "$mods" ] || printf ' The PAM auth stack of the test server holds %s.' "$(printf '%s' "$mods" | sed 's/\([^ ]*\)/`\1`/g; s/ /, /g')")"
		return 0
	fi
	ms_to cell_1 "${D[auth|gap_hash_ms]-}"
	printf -- '- The password login is %s ms slower than the %s key at p50: **%s ms** for checking the password hash and **%s ms** of the rest.\n' \
		"$gap" "$fast" "$cell_1" "${D[auth|gap_rest_ms]-}"
	cpu=""
	[ -z "${D[auth|password_hash_check_cpu_ms]-}" ] ||
		cpu=$(printf ' in wall time, of it %s ms of CPU time' "${D[auth|password_hash_check_cpu_ms]-}")
	prose <<-'EOF' \
		"${D[auth|password_hash]-}" "${D[auth|password_hash_params]-}" "${D[auth|gap_hash_ms]-}" "$cpu" \
		"${D[auth|password_hash_checks]-}" "${D[auth|password_hash_policy]-}"
	- The hash check: one check of the test user's %s hash (%s) takes %s ms on this host%s (p50 of
	%s checks of a throwaway phrase with the account's own setting, `sshperf-hashcost`); pam_unix
	pays it once per password login. It is host policy, not slowness: %s.
	EOF
	if [ -n "${D[auth|gap_server_ms]-}" ]; then
		prose <<-'EOF' \
			"$fast" "${D[auth|gap_server_ms]-}" "${D[auth|gap_hash_ms]-}" "${D[auth|gap_pam_ms]-}" \
			"$(printf '%s' "${mods:-none}" | sed 's/\([^ ]*\)/`\1`/g; s/ /, /g')" "${D[auth|gap_client_ms]-}" "${D[auth|gap_tcp_wait_ms]-}"
		- The rest, from the packets (differences of p50s with the %s logins, so they need not add up):
		sshd's turns %+.1f ms, of which the hash check is %s ms, leaving **%s ms** for the other PAM
		modules and sshd (this stack: %s); the client's turns %+.1f ms (ssh starting `askpass.sh` and
		answering the prompt); TCP waits %+.1f ms.
		EOF
	else
		printf -- '- The rest: the other PAM modules (this stack: %s), the client starting `askpass.sh`, and TCP; no timeline splits it here.\n' \
			"$(printf '%s' "${mods:-none}" | sed 's/\([^ ]*\)/`\1`/g; s/ /, /g')"
	fi
	if [ "${D[auth|gap_judged]-}" = rest ]; then
		printf -- '- `TARGET_AUTH_GAP_MS=%s` is judged on the rest (%s ms): the hash check is what the host asks of every password login, whatever the test server does.\n' \
			"${D[auth|gap_target]-}" "${D[auth|gap_rest_ms]-}"
	else
		printf -- '- `TARGET_AUTH_GAP_MS=%s` is judged on the gap between the slowest method (%s) and the fastest, %s ms.\n' \
			"${D[auth|gap_target]-}" "${D[auth|gap_slow]-}" "${D[auth|gap_p50_ms]-}"
	fi
}
