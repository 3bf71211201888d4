#!/usr/bin/env bash
# A directory user for real, inside a booted Debian 12 container with
# OpenLDAP and SSSD (CONTAINER_VARIANT=ldap): slapd on the container's
# loopback holds one user with a password; SSSD's LDAP provider gives it
# to NSS and PAM (pam_sss). The kit with TEST_USER_EXISTING=yes measures
# login and auth for that user (ed25519 key, password through pam_sss),
# next to a local account; then slapd stops and the same is measured with
# SSSD offline. The account and its home are the same after cleanup.
# The figures are printed as TAP comments (# figures ...).
# shellcheck disable=SC2034,SC2016 # names used only inside the eval'd test bodies; $ in single quotes is for them
. "$(dirname "$0")/lib/harness.sh"
# shellcheck source=lib/container.sh
. "$TEST_DIR/lib/container.sh"

CONTAINER_VARIANT=ldap
container_test 'a directory user through SSSD' t35

SAMPLES=${T35_SAMPLES:-5}
# A run of login and auth takes 4 x SAMPLES logins; on a busy machine a
# login can take seconds: more than container_exec's default deadline.
CONTAINER_EXEC_TIMEOUT=400
ct () {
	container_exec env LOGIN_SAMPLES="$SAMPLES" RESULTS_DIR="$TEST_TMP/results" "$@"
}
snapshot () {
	ct bash -c ". '$TEST_DIR/lib/snapshot.sh' && host_snapshot"
}
account () {
	ct bash -c "getent passwd $1; find /home/$1 -printf '%p %y %m %u %g %s %T@\n' | sort;
		find /home/$1 -type f -exec sha256sum {} + | sort"
}
# figures RUN_DIR LABEL: the run's login and auth figures as a TAP comment.
figures () {
	local d="$1/data"
	printf '# figures %s: login p50 %s p95 %s ms (n=%s); auth p50 ed25519 %s, rsa %s, password %s ms; password ok/failed %s/%s\n' "$2" \
		"$(sed -n 's/^total_p50=//p' "$d/login.env" | tail -n 1)" "$(sed -n 's/^total_p95=//p' "$d/login.env" | tail -n 1)" \
		"$(sed -n 's/^total_n=//p' "$d/login.env" | tail -n 1)" \
		"$(sed -n 's/^ed25519_p50=//p' "$d/auth.env" | tail -n 1)" "$(sed -n 's/^rsa_p50=//p' "$d/auth.env" | tail -n 1)" \
		"$(sed -n 's/^password_p50=//p' "$d/auth.env" | tail -n 1)" "$(sed -n 's/^password_ok=//p' "$d/auth.env" | tail -n 1)" \
		"$(sed -n 's/^password_failed=//p' "$d/auth.env" | tail -n 1)"
}
mkdir -p "$TEST_TMP/results"


# ---- The directory: slapd with one user, SSSD in front of it --------------
cat >"$TEST_TMP/slapd.conf" <<'EOF'
include /etc/ldap/schema/core.schema
include /etc/ldap/schema/cosine.schema
include /etc/ldap/schema/nis.schema
include /etc/ldap/schema/inetorgperson.schema
modulepath /usr/lib/ldap
moduleload back_mdb
pidfile /var/lib/ldap-t35/slapd.pid
database mdb
suffix "dc=example,dc=test"
rootdn "cn=admin,dc=example,dc=test"
rootpw t35-admin-secret
directory /var/lib/ldap-t35
access to attrs=userPassword by anonymous auth by self write by * none
access to * by * read
EOF
cat >"$TEST_TMP/sssd.conf" <<'EOF'
[sssd]
services = nss, pam
domains = test

[pam]
offline_credentials_expiration = 0

[domain/test]
id_provider = ldap
auth_provider = ldap
ldap_uri = ldap://127.0.0.1
ldap_search_base = dc=example,dc=test
ldap_auth_disable_tls_never_use_in_production = true
ldap_tls_reqcert = never
cache_credentials = true
ldap_network_timeout = 3
ldap_opt_timeout = 3
EOF
LUCY_PW=Lucy-dir-pw-0815
ct bash -c "set -e
	pw=\$(slappasswd -s '$LUCY_PW')
	cat >'$TEST_TMP/data.ldif' <<EOF
dn: dc=example,dc=test
objectClass: dcObject
objectClass: organization
o: Example
dc: example

dn: ou=people,dc=example,dc=test
objectClass: organizationalUnit
ou: people

dn: ou=groups,dc=example,dc=test
objectClass: organizationalUnit
ou: groups

dn: cn=ldapusers,ou=groups,dc=example,dc=test
objectClass: posixGroup
cn: ldapusers
gidNumber: 5001

dn: uid=lucy,ou=people,dc=example,dc=test
objectClass: inetOrgPerson
objectClass: posixAccount
objectClass: shadowAccount
uid: lucy
cn: Lucy Directory
sn: Directory
uidNumber: 5001
gidNumber: 5001
homeDirectory: /home/lucy
loginShell: /bin/bash
userPassword: \$pw
EOF
	# The package's own slapd (started at boot) gives way to the test's.
	systemctl stop slapd
	install -d -o openldap -g openldap /var/lib/ldap-t35
	# slapd runs as openldap: its configuration must be readable to it
	# (TEST_TMP is root's alone).
	install -m 0644 '$TEST_TMP/slapd.conf' /etc/ldap/t35-slapd.conf
	slapadd -f /etc/ldap/t35-slapd.conf -l '$TEST_TMP/data.ldif' >/dev/null 2>&1
	chown -R openldap:openldap /var/lib/ldap-t35
	systemd-run --quiet --unit=t35-slapd /usr/sbin/slapd -d 0 -h ldap://127.0.0.1/ -f /etc/ldap/t35-slapd.conf -u openldap -g openldap
	for i in \$(seq 100); do
		ldapsearch -x -H ldap://127.0.0.1 -b dc=example,dc=test uid=lucy >/dev/null 2>&1 && break
		sleep 0.2
	done
	install -m 0600 '$TEST_TMP/sssd.conf' /etc/sssd/sssd.conf
	systemctl restart sssd
	# The home the administrator made for the directory user.
	install -d -m 0750 -o 5001 -g 5001 /home/lucy
	printf 'export EDITOR=vi\n' >/home/lucy/.profile && chown 5001:5001 /home/lucy/.profile
	install -m 0600 /dev/null /root/lucy.pw && echo '$LUCY_PW' >/root/lucy.pw
	# A local account to compare with.
	useradd --create-home --shell /bin/bash bob
	echo 'bob:Bob-local-pw-1' | chpasswd
	install -m 0600 /dev/null /root/bob.pw && echo Bob-local-pw-1 >/root/bob.pw
" >"$TEST_TMP/setup.out" 2>&1 || { echo "# the directory setup failed:"; sed 's/^/#    /' "$TEST_TMP/setup.out"; }

test_expect 'slapd answers on the loopback and SSSD gives lucy to NSS (source sss)' '
	container_wait 30 ct ldapsearch -x -H ldap://127.0.0.1 -b dc=example,dc=test uid=lucy uidNumber >"$TEST_TMP/ls" 2>/dev/null &&
	test_grep "uidNumber: 5001" "$TEST_TMP/ls" &&
	container_wait 30 ct getent passwd lucy &&
	ct getent -s sss passwd lucy >"$TEST_TMP/pw" && test_grep "^lucy:\*:5001:5001:" "$TEST_TMP/pw" &&
	! ct getent -s files passwd lucy
'
account lucy >"$TEST_TMP/lucy.before"
snapshot >"$TEST_TMP/before"

LUCY="TEST_USER=lucy TEST_USER_EXISTING=yes TEST_PASSWORD_FILE=/root/lucy.pw"
BOB="TEST_USER=bob TEST_USER_EXISTING=yes TEST_PASSWORD_FILE=/root/bob.pw"

test_expect 'the local account bob: login and auth (for comparison)' '
	ct env $BOB "$KIT_DIR/start-ssh.sh" -q &&
	rc=0; ct env $BOB "$KIT_DIR/test-ssh.sh" login auth >"$TEST_TMP/t.out" 2>&1 || rc=$?
	test_verdict_exit "$rc" "$TEST_TMP/t.out" && report=$(tail -n 1 "$TEST_TMP/t.out") &&
	echo "$(dirname "$report")" >"$TEST_TMP/run-bob" &&
	test_grep "an existing account (NSS source \`files\`)" "$report" &&
	test_grep -E "^\| password \(PAM\) \| password \| $(auth_logins "${report%/*}" password "$SAMPLES") / 0 " "$report" &&
	ct "$KIT_DIR/start-ssh.sh" -q cleanup
'

test_expect 'the directory user lucy, slapd up: key and password (pam_sss) logins, measured' '
	ct env $LUCY "$KIT_DIR/start-ssh.sh" >"$TEST_TMP/start.out" 2>&1 &&
	test_grep "from NSS source sss" "$TEST_TMP/start.out" &&
	rc=0; ct env $LUCY "$KIT_DIR/test-ssh.sh" login auth >"$TEST_TMP/t.out" 2>&1 || rc=$?
	test_verdict_exit "$rc" "$TEST_TMP/t.out" && report=$(tail -n 1 "$TEST_TMP/t.out") &&
	echo "$(dirname "$report")" >"$TEST_TMP/run-lucy-up" && cp "$report" "$TEST_TMP/report-lucy-up.md" &&
	test_grep "an existing account (NSS source \`sss\`)" "$report" &&
	test_grep -E "PAM stack \| service sshd \(/etc/pam.d/sshd\): auth [a-z_ ]*pam_sss" "$report" &&
	test_grep -E "^\| ed25519 key \| publickey \(ED25519\) \| $(auth_logins "${report%/*}" ed25519 "$SAMPLES") / 0 " "$report" &&
	test_grep -E "^\| password \(PAM\) \| password \| $(auth_logins "${report%/*}" password "$SAMPLES") / 0 " "$report"
'

test_expect 'slapd stopped: SSSD is offline; key logins work from its cache, password logins are measured' '
	ct systemctl stop t35-slapd &&
	! ct ldapsearch -x -H ldap://127.0.0.1 -b dc=example,dc=test uid=lucy >/dev/null 2>&1 &&
	rc=0; ct env $LUCY "$KIT_DIR/test-ssh.sh" login auth >"$TEST_TMP/t.out" 2>&1 || rc=$?
	test_verdict_exit "$rc" "$TEST_TMP/t.out" && report=$(tail -n 1 "$TEST_TMP/t.out") &&
	echo "$(dirname "$report")" >"$TEST_TMP/run-lucy-down" && cp "$report" "$TEST_TMP/report-lucy-down.md" &&
	test_grep -E "^\| ed25519 key \| publickey \(ED25519\) \| $(auth_logins "${report%/*}" ed25519 "$SAMPLES") / 0 " "$report" &&
	test_grep -E "^\| password \(PAM\) \| password \| [0-9]+ / [0-9]+ " "$report"
'

test_expect 'cleanup: lucy and her home are as before; the container is as before' '
	ct "$KIT_DIR/start-ssh.sh" cleanup >"$TEST_TMP/c.out" &&
	ct systemd-run --quiet --unit=t35-slapd-again /usr/sbin/slapd -d 0 -h ldap://127.0.0.1/ -f /etc/ldap/t35-slapd.conf -u openldap -g openldap &&
	container_wait 30 ct ldapsearch -x -H ldap://127.0.0.1 -b dc=example,dc=test uid=lucy >/dev/null 2>&1 &&
	test_grep ! "removed user" "$TEST_TMP/c.out" &&
	account lucy >"$TEST_TMP/lucy.after" &&
	test_cmp "$TEST_TMP/lucy.before" "$TEST_TMP/lucy.after" &&
	snapshot >"$TEST_TMP/now" && test_cmp "$TEST_TMP/before" "$TEST_TMP/now"
'

for r in bob lucy-up lucy-down; do
	[ -s "$TEST_TMP/run-$r" ] && figures "$(cat "$TEST_TMP/run-$r")" "$r (LOGIN_SAMPLES=$SAMPLES)"
done
if [ -n "${T35_KEEP:-}" ]; then
	mkdir -p "$T35_KEEP" && cp -r "$TEST_TMP/results" "$TEST_TMP"/report-*.md "$T35_KEEP/" 2>/dev/null
fi
test_done
