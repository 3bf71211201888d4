# shellcheck shell=bash disable=SC2016
# (SC2016: backticks in the strings are markdown.)
# The report's section for `auth`; sourced by lib/render.sh.

report_auth () {
	local m label n locked base base_p50
	# One baseline for every difference the section shows: the fastest
	# method's p50, the one the verdict's gap (gap_p50_ms) is taken from,
	# so that the table and the verdict say the same figure (issue 28: the
	# verdict had 40.8 ms against RSA, the table +40.0 against ed25519).
	base=$(t auth gap_fast)
	case $base in ed25519 | rsa | password) ;; *) base=ed25519 ;; esac
	base_p50=$(t auth "${base}_p50")
	prose "$(t auth samples)" <<-'EOF'
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
			[ "$(t auth default_key_type)" != ecdsa ] || label="ECDSA key (FIPS mode refuses ed25519)"
			;;
		rsa) label="RSA 3072 key" ;;
		password) label="password (PAM)" ;;
		esac
		if [ "$(t auth "${m}_status")" = SKIPPED ]; then
			printf '| %s | SKIPPED: %s | - | - | - | - | - | - | - |\n' "$label" "$(t auth "${m}_reason")"
			continue
		fi
		n=$(t auth "${m}_n")
		printf '| %s | %s%s | %s / %s | %s | %s | %s%s | %s | %s | %s |\n' "$label" "$(t auth "${m}_method")" \
			"$( [ "$(t auth "${m}_wrong_method")" = 0 ] || printf ', **%s other**' "$(t auth "${m}_wrong_method")")" \
			"$(t auth "${m}_ok")" "$(t auth "${m}_failed")" "${n:-0}" "$(ms "$(t auth "${m}_p50")")" \
			"$(ms "$(t auth "${m}_p95")")" "$(n_note "${n:-0}" p95)" "$(ms "$(t auth "${m}_max")")" \
			"$(awk -v a="$(t auth "${m}_p50")" -v b="$base_p50" -v same="$( [ "$m" = "$base" ] && echo 1)" \
				'BEGIN { if (same) print "-"; else if (a == "" || b == "") print "-"; else printf "%+.1f", a - b }')" \
			"$(ms "$(t auth "${m}_authphase_p50")")"
	done
	case $(t auth password_locked_after) in
	yes) locked=' Locked again after this run: checked.' ;;
	no) locked=$(printf ' **Locking it again after this run failed: run `usermod -L %s`.**' "$(t settings TEST_USER)") ;;
	*) locked='' ;;
	esac
	prose "$locked" <<-'EOF'

	The password of the test user is valid only during the password logins of this test: the kit
	sets it just before them and locks the account's password (`!` in `/etc/shadow`) right after,
	also when the test is interrupted or fails. The rest of the time no sshd of this host, the real
	one included, accepts a password for it; key logins are not affected.%s
	EOF
	printf '\n**How to read this result:**\n\n'
	awk -v e="$(t auth ed25519_p50)" -v r="$(t auth rsa_p50)" -v p="$(t auth password_p50)" -v h="$(t auth password_hash)" \
		-v c="$(t auth password_hash_check_ms)" -v cn="$(t auth password_hash_checks)" \
		-v cp="$(t auth password_hash_params)" -v f="$base_p50" -v fast="$base" 'BEGIN {
		if (e == "" || r == "" || p == "") { print "- A method has no successful login, so the methods cannot be compared."; exit }
		if (p - e <= 20 && r - e <= 20)
			printf "- The three methods are within %.0f ms of each other: the usual picture with local accounts.\n", (p - e > r - e ? p - e : r - e)
		if (p - e > 20)
			printf "- The password login is %.1f ms slower at p50 than %s, the fastest method: that time is spent in PAM (`password-auth`: SSSD, LDAP, Kerberos, `pam_faillock`).\n", p - f, fast
		if (p - e >= 1800)
			print "- About 2 s more points to a failed first attempt and `pam_faildelay`, or a network time-out in PAM."
		if (p - e > 20 && (h == "yescrypt" || h == "gost-yescrypt" || h == "scrypt" || h == "bcrypt"))
			printf "- The test user'"'"'s password is stored as a %s hash (`/etc/shadow`). pam_unix checks" \
				" a password by computing that hash, and %s is made to cost time on purpose (against" \
				" guessing), so part of the gap is that deliberate cost, paid once per password login." \
				" Which scheme new passwords get is set by `ENCRYPT_METHOD` in `/etc/login.defs` and the" \
				" `pam_unix` line of the password stack (RHEL 9 uses `sha512crypt` unless configured" \
				" otherwise).\n", h, h
		else if (p - e > 20 && h != "" && h != "-")
			printf "- The test user'"'"'s password is stored as a %s hash (`/etc/shadow`), a fast one to check: the gap is elsewhere in the PAM stack.\n", h
		if (c != "")
			printf "- One check of this %s hash (%s) costs %.1f ms on this host: p50 of %d checks of a" \
				" throwaway phrase with the account'"'"'s own setting (`sshperf-hashcost`); pam_unix pays" \
				" it once per password login, so that much of the gap is the host'"'"'s hash policy.\n", h, cp, c, cn
		if (r - e > 20)
			printf "- RSA is %.0f ms slower than ed25519: RSA signing is costly for the client; sshd only verifies.\n", r - e
	}'
	prose <<-'EOF'

	**What to change when it is poor:** use ed25519 keys for people and automation; with central
	accounts let SSSD cache credentials (`cache_credentials = True`) so a slow or absent directory
	does not slow every password login; keep the PAM stack short.

	EOF
}
