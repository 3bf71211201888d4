#!/usr/bin/env bash
# Build Red Hat's OpenSSH 8.7p1 for RHEL 9 into the build cache, once.
# Usage: tests/openssh/build-rhel9.sh RHEL_SOURCES TARBALL SHA256
# RHEL_SOURCES holds the package sources (SPECS/openssh.spec, SOURCES/)
# and RHEL's configuration files (config/); TARBALL is upstream's
# openssh-8.7p1.tar.gz, which must have SHA256. Prints two prefixes on
# stdout, "PREFIX" and "PREFIX-fips": the build with RHEL's files and the
# DEFAULT crypto policy, and the same programs (symbolic links) with their
# own etc/ in which the policy back-ends are FIPS's.
#
# What the spec does, on Debian: every OpenSSH patch of %prep in its
# order (the pam_ssh_agent_auth patches 300-399 do not touch sshd),
# autoconf, configure with the spec's flags (paths below the prefix; on
# Debian, Kerberos is in /usr and gssapi.h in /usr/include/gssapi), make,
# make install-nokeys. RHEL's OpenSSL ships <openssl/fips.h> (the FIPS
# patch includes it) and Debian's does not: a private one defines
# FIPS_mode() the way OpenSSL 3 answers it. Then RHEL's files, with their
# paths moved below the prefix:
#   etc/ssh/sshd_config, etc/ssh/sshd_config.d/50-redhat.conf (it
#   includes the crypto policy), etc/ssh/ssh_config with
#   ssh_config.d/50-redhat.conf, etc/crypto-policies/back-ends/
#   open{ssh,sshserver}.config -> share/crypto-policies/POLICY/*.txt, and
#   etc/pam.d/sshd, RHEL's PAM service file with password-auth and
#   postlogin mapped to Debian's common-* files.
# And PREFIX/openssh-release (in both prefixes), the build's own line for
# the report: "openssh VERSION-RELEASE (Red Hat's sources)", from the
# spec's Version and Release, with the dist tag of the RHEL release the
# sources were published for (RHEL_OPENSSH_DIST, default .el9_3: their
# README has 8.7p1-34.el9_3.3), which the spec leaves to the build root:
# the kit cannot ask rpm -qf about a build from sources, and ssh -V says
# OpenSSH_8.7p1 as upstream's does.
#
# The cache key is the sha256 of everything the build reads: the
# tarball's sha256, every file of RHEL_SOURCES and this script. A new
# patch or config file is a new build.
set -u
rhel=$1 tarball=$2 want=$3
cache=${OPENSSH_CACHE:-/var/cache/sshd-perf-kit-ci/openssh}
here=$(cd "$(dirname "$0")" && pwd)
die () { echo "build-rhel9.sh: $*" >&2; exit 1; }

for f in SPECS/openssh.spec config/sshd_config config/sshd_config.d-50-redhat.conf config/ssh_config \
	config/ssh_config.d-50-redhat.conf config/sshd.pam config/crypto-policies-DEFAULT-opensshserver.config \
	config/crypto-policies-DEFAULT-openssh.config config/crypto-policies-FIPS-opensshserver.config \
	config/crypto-policies-FIPS-openssh.config; do
	[ -f "$rhel/$f" ] || die "$rhel/$f is missing (RHEL_SOURCES must hold RHEL's openssh package sources and config files)"
done
got=$(sha256sum "$tarball" | cut -d' ' -f1) || exit 1
[ "$got" = "$want" ] || die "$tarball: sha256 $got, the sources' README says $want"
key=$( {
	echo "$want"
	(cd "$rhel" && find SPECS SOURCES config -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
	sha256sum <"$here/build-rhel9.sh"
} | sha256sum | cut -d' ' -f1)
dir=$cache/$key prefix=$cache/$key/prefix
if [ -f "$dir/done" ]; then
	printf '%s\n%s\n' "$prefix" "$prefix-fips"
	exit 0
fi
mkdir -p "$dir" || exit 1
exec 9>"$dir/lock"
flock 9
[ -f "$dir/done" ] && { printf '%s\n%s\n' "$prefix" "$prefix-fips"; exit 0; }

# The patches in %prep order: "NUMBER FILE".
series () {
	awk '/^Patch[0-9]+:/ { n = $1; sub(/^Patch/, "", n); sub(/:$/, "", n); f[n] = $2; next }
		/^%prep/ { prep = 1; next }
		/^%build/ { prep = 0 }
		prep && /^%patch/ {
			if ($1 ~ /^%patch[0-9]+$/) { n = $1; sub(/^%patch/, "", n) }
			else if ($1 == "%patch" && $2 == "-P") n = $3
			else next
			if (n + 0 >= 300 && n + 0 < 400) next
			print n, f[n]
		}' "$1"
}

build () {
	local src=$dir/src n f p release
	rm -rf "$src" "$dir/build" "$dir/compat" "$prefix" "$prefix-fips"
	mkdir -p "$src" "$dir/build" "$dir/compat/openssl" || return 1
	tar -xzf "$tarball" -C "$src" --strip-components=1 || return 1
	series "$rhel/SPECS/openssh.spec" >"$dir/series"
	[ "$(wc -l <"$dir/series")" -gt 0 ] || { echo "no patches in the spec's %prep"; return 1; }
	# The tarball is a git archive, without the preformatted man pages
	# one hunk of the redhat patch changes: that hunk is left out.
	awk '/^diff / { skip = ($0 ~ /sshd_config\.0/) } !skip' "$rhel/SOURCES/openssh-7.7p1-redhat.patch" >"$dir/redhat.patch"
	(
		cd "$src" || exit 1
		while read -r n f; do
			p=$rhel/SOURCES/$f
			[ "$f" != openssh-7.7p1-redhat.patch ] || p=$dir/redhat.patch
			echo "patch $n $f"
			patch -p1 -s -f --fuzz=2 <"$p" || { echo "patch $n ($f) does not apply"; exit 1; }
		done <"$dir/series"
		autoconf && autoheader
	) || return 1
	printf '%s\n' '#ifndef OPENSSL_FIPS_H' '# define OPENSSL_FIPS_H' '# include <openssl/evp.h>' \
		'# define FIPS_mode() EVP_default_properties_is_fips_enabled(NULL)' '#endif' >"$dir/compat/openssl/fips.h"
	(
		cd "$dir/build" || exit 1
		# RHEL's %optflags without the compiler specs files of
		# redhat-rpm-config (annobin) and without LTO (minutes on 2
		# cores); the spec adds -fvisibility=hidden -fpic.
		CPPFLAGS="-I$dir/compat -I/usr/include/gssapi" \
		CFLAGS="-O2 -g -pipe -Wall -Werror=format-security -Wp,-D_FORTIFY_SOURCE=2 -fexceptions -fstack-protector-strong -fasynchronous-unwind-tables -fstack-clash-protection -fcf-protection -fvisibility=hidden -fpic" \
		LDFLAGS="-Wl,-z,relro -Wl,--as-needed -Wl,-z,now -pie -z relro -z now" \
		"$src/configure" --prefix="$prefix" --sysconfdir="$prefix/etc/ssh" \
			--libexecdir="$prefix/libexec/openssh" --datadir="$prefix/share/openssh" \
			--with-default-path=/usr/local/bin:/usr/bin:/usr/local/sbin:/usr/sbin \
			--with-superuser-path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin \
			--with-privsep-path="$prefix/empty.sshd" --with-pid-dir="$prefix/run" --with-privsep-user=sshd \
			--disable-strip --without-zlib-version-check --with-ssl-engine --with-ipaddr-display \
			--with-pie=no --without-hardening --with-systemd --with-default-pkcs11-provider=yes \
			--with-security-key-builtin=yes --with-pam --with-selinux --with-audit=linux \
			--with-sandbox=seccomp_filter --with-kerberos5=/usr --with-libedit &&
		nice make -j"${OPENSSH_BUILD_JOBS:-2}" &&
		make install-nokeys
	) || return 1
	install_rhel_files "$prefix" DEFAULT || return 1
	# Host keys, as sshd-keygen makes them at the first start on RHEL
	# (sshd -T of the build's own configuration needs them; the test
	# server has its own).
	for f in rsa ecdsa ed25519; do
		"$prefix/bin/ssh-keygen" -q -t "$f" -N '' -C '' -f "$prefix/etc/ssh/ssh_host_${f}_key" || return 1
	done
	mkdir -p "$prefix/empty.sshd" "$prefix/run" && chmod 0711 "$prefix/empty.sshd"
	release=$(spec_release "$rhel/SPECS/openssh.spec" "${RHEL_OPENSSH_DIST-.el9_3}") || return 1
	printf "openssh %s (Red Hat's sources)\n" "$release" >"$prefix/openssh-release"
	# The FIPS variant: the same programs, its own etc/.
	mkdir -p "$prefix-fips" || return 1
	for f in bin sbin libexec share empty.sshd run openssh-release; do
		ln -s "$prefix/$f" "$prefix-fips/$f" || return 1
	done
	install_rhel_files "$prefix-fips" FIPS
}

# spec_release SPEC DIST: the main package's VERSION-RELEASE, its
# %{name} and %global macros expanded, %{?dist} as DIST.
spec_release () {
	awk -v dist="$2" '
		function expand(s,   m, k) {
			while (match(s, /%\{\??[A-Za-z0-9_]+\}/)) {
				k = substr(s, RSTART + 2, RLENGTH - 3); sub(/^\?/, "", k)
				m = (k == "dist") ? dist : (k in mac) ? mac[k] : ""
				s = substr(s, 1, RSTART - 1) m substr(s, RSTART + RLENGTH)
			}
			return s
		}
		$1 == "%global" || $1 == "%define" { mac[$2] = $3; next }
		$1 == "Version:" && v == "" { v = expand($2) }
		$1 == "Release:" && r == "" { r = expand($2) }
		END { if (v == "" || r == "") exit 1; print v "-" r }' "$1"
}

# install_rhel_files PREFIX POLICY: RHEL's configuration below PREFIX,
# with the crypto policy POLICY in force.
install_rhel_files () {
	local p=$1 pol pam=$1/etc/pam.d/sshd
	mkdir -p "$p/etc/ssh/sshd_config.d" "$p/etc/ssh/ssh_config.d" "$p/etc/crypto-policies/back-ends" "$p/etc/pam.d" || return 1
	sed -e "s|^Include /etc/ssh/|Include $p/etc/ssh/|" \
		-e "s|^\(Subsystem[[:space:]]*sftp[[:space:]]*\).*|\1$p/libexec/openssh/sftp-server|" \
		"$rhel/config/sshd_config" >"$p/etc/ssh/sshd_config"
	sed "s|/etc/crypto-policies/|$p/etc/crypto-policies/|" "$rhel/config/sshd_config.d-50-redhat.conf" >"$p/etc/ssh/sshd_config.d/50-redhat.conf"
	sed "s|^Include /etc/ssh/|Include $p/etc/ssh/|" "$rhel/config/ssh_config" >"$p/etc/ssh/ssh_config"
	sed "s|/etc/crypto-policies/|$p/etc/crypto-policies/|" "$rhel/config/ssh_config.d-50-redhat.conf" >"$p/etc/ssh/ssh_config.d/50-redhat.conf"
	chmod 0600 "$p/etc/ssh/sshd_config" "$p/etc/ssh/sshd_config.d/50-redhat.conf"
	# As crypto-policies lays them out: the back-ends are links to the
	# policy in force.
	for pol in DEFAULT FIPS; do
		mkdir -p "$prefix/share/crypto-policies/$pol" || return 1
		install -m 0644 "$rhel/config/crypto-policies-$pol-opensshserver.config" "$prefix/share/crypto-policies/$pol/opensshserver.txt"
		install -m 0644 "$rhel/config/crypto-policies-$pol-openssh.config" "$prefix/share/crypto-policies/$pol/openssh.txt"
	done
	ln -sfn "$prefix/share/crypto-policies/$2/opensshserver.txt" "$p/etc/crypto-policies/back-ends/opensshserver.config"
	ln -sfn "$prefix/share/crypto-policies/$2/openssh.txt" "$p/etc/crypto-policies/back-ends/openssh.config"
	echo "$2" >"$p/etc/crypto-policies/config"
	# RHEL's authselect files password-auth and postlogin do not exist on
	# Debian: password-auth is common-auth / -account / -password /
	# -session by type, postlogin (lastlog and umask, session only on
	# RHEL) is common-session-noninteractive's place.
	{
		echo "# RHEL 9's /etc/pam.d/sshd (openssh-server), installed by tests/openssh/build-rhel9.sh"
		echo "# with RHEL's password-auth and postlogin mapped to Debian's common-* files."
		awk '$1 ~ /^(auth|account|password|session)$/ && ($2 == "include" || $2 == "substack") {
			if ($3 == "password-auth") {
				m = ($1 == "auth") ? "common-auth" : ($1 == "account") ? "common-account" : ($1 == "password") ? "common-password" : "common-session"
				print "# RHEL: " $0; print $1 "\t" $2 "\t" m; next
			}
			if ($3 == "postlogin") {
				print "# RHEL: " $0
				if ($1 == "session") print $1 "\t" $2 "\tcommon-session-noninteractive"
				else print "# (RHEL'"'"'s postlogin has no " $1 " rules)"
				next
			}
		}
		{ print }' "$rhel/config/sshd.pam"
	} >"$pam"
}

if ! build >"$dir/build.log" 2>&1; then
	echo "build-rhel9.sh: building Red Hat's 8.7p1 failed, see $dir/build.log" >&2
	tail -n 5 "$dir/build.log" >&2
	exit 1
fi
rm -rf "$dir/src" "$dir/build"
touch "$dir/done"
printf '%s\n%s\n' "$prefix" "$prefix-fips"
