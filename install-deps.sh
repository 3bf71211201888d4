#!/bin/sh
# install-deps.sh [--tests]: installs what sshd-perf-kit needs from a source
# checkout - OpenSSH server and clients, a C compiler and the libraries of
# the helpers - with dnf (RHEL, AlmaLinux) or apt-get (Debian). With --tests
# also what the test suite uses. Installs only what is missing.
set -eu

tests=""
case ${1:-} in
--tests) tests=1 ;;
"") ;;
-h | --help) sed -n '2,5s/^# //p' "$0"; exit 0 ;;
*) echo "install-deps.sh: unknown argument $1; use --tests or nothing" >&2; exit 2 ;;
esac
[ "$(id -u)" -eq 0 ] || { echo "install-deps.sh: must run as root (it installs packages); run: sudo $0 $*" >&2; exit 2; }

if command -v dnf >/dev/null 2>&1; then
	pkgs="openssh-server openssh-clients openssl gcc make pkgconf-pkg-config libssh-devel openssl-devel libselinux-devel libsemanage-devel systemd-devel libxcrypt-devel libmnl-devel kernel-headers iproute iptables-nft"
	# pam-devel, zlib-devel: make check-openssh builds upstream OpenSSH releases;
	# autoconf, audit-libs-devel, krb5-devel, libfido2-devel, libedit-devel,
	# p11-kit-devel: and Red Hat's 8.7p1 with the spec's configure flags;
	# ansible-core (and on Debian ansible-lint): make check-fleet;
	# setools: sesearch and seinfo ask SELinux policies (t21).
	[ -z "$tests" ] || pkgs="$pkgs rpm-build rpmlint policycoreutils setools-console perl util-linux procps-ng iproute libxml2 pam-devel zlib-devel autoconf audit-libs-devel krb5-devel libfido2-devel libedit-devel p11-kit-devel ansible-core"
	missing=""
	for p in $pkgs; do rpm -q "$p" >/dev/null 2>&1 || missing="$missing $p"; done
	# shellcheck disable=SC2086 # a list of package names
	[ -z "$missing" ] || dnf install -y $missing
elif command -v apt-get >/dev/null 2>&1; then
	# libmnl, the kernel headers, iproute2 and iptables: the wire of the test
	# hosts at a distance (sshperf-wire, NETWORK_RTT_MS).
	pkgs="openssh-server openssh-client openssl gcc make pkg-config libssh-dev libssl-dev libselinux1-dev libsemanage-dev libsystemd-dev libcrypt-dev libmnl-dev linux-libc-dev iproute2 iptables"
	# libpam0g-dev, zlib1g-dev: make check-openssh builds upstream OpenSSH releases;
	# autoconf, libaudit-dev, libkrb5-dev, libfido2-dev, libedit-dev,
	# p11-kit-modules: and Red Hat's 8.7p1 with the spec's configure flags;
	# ansible-core (and on Debian ansible-lint): make check-fleet;
	# setools: sesearch and seinfo ask SELinux policies (t21);
	# python3-jsonschema validates results.json against its schema (t57,
	# t80; RHEL 9's 3.2 knows no draft 2020-12, so there the tests' own
	# strict check, tests/lib/results-check.py, stands alone);
	# chromium, poppler-utils: t81 opens report.html in a headless browser
	# and reads the PDF it prints (pdftotext).
	# The shellcheck package: t18 checks every shell file with it (on RHEL
	# it is in EPEL only, so the dnf list above leaves it out and t18 skips).
	[ -z "$tests" ] || pkgs="$pkgs python3-jsonschema chromium poppler-utils shellcheck debootstrap systemd-container rpm rpmlint policycoreutils semodule-utils setools perl util-linux procps iproute2 libxml2-utils libpam0g-dev zlib1g-dev autoconf libaudit-dev libkrb5-dev libfido2-dev libedit-dev libp11-kit-dev p11-kit-modules ansible-core ansible-lint"
	missing=""
	for p in $pkgs; do
		dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		apt-get update -qq
		# Installing openssh-server must not start a second real sshd
		# on a machine without one: policy-rc.d says no to service starts.
		if [ ! -e /usr/sbin/policy-rc.d ]; then
			printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
			chmod 0755 /usr/sbin/policy-rc.d
			trap 'rm -f /usr/sbin/policy-rc.d' EXIT
		fi
		# shellcheck disable=SC2086 # a list of package names
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing
	fi
else
	echo "install-deps.sh: neither dnf nor apt-get found; install by hand: OpenSSH server and clients, gcc, make, pkg-config and the development files of libssh, OpenSSL, libselinux, libsemanage, libsystemd, libxcrypt and libmnl" >&2
	exit 2
fi
echo "install-deps.sh: everything needed is installed"
