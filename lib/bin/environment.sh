#!/usr/bin/env bash
# Prints the facts about this host and the test server that a reader of the
# report needs to judge the numbers, as key=value lines.
set -u
PROG=environment.sh
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"
# shellcheck source=lib/server.sh
. "$KIT_DIR/lib/server.sh"

# kv KEY VALUE: one line, the value's line ends and tabs as spaces and
# its trailing spaces cut. In the shell: some 70 keys a run, and three
# processes each were a second and a half of every test-ssh.sh.
kv () {
	local v=${2//$'\n'/ }
	v=${v//$'\t'/ }
	printf '%s=%s\n' "$1" "${v%"${v##*[! ]}"}"
}

# shellcheck source=/dev/null
os=$( (. /etc/os-release && printf '%s' "${PRETTY_NAME:-$NAME}") 2>/dev/null)
kv host "$(uname -n)"
kv os "${os:-unknown}"
kv kernel "$(uname -r)"
kv arch "$(uname -m)"
kv cpu_model "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)"
kv cores "$(nproc)"
kv aes_ni "$(grep -qw aes /proc/cpuinfo && echo yes || echo no)"
# MB = 10^6 bytes, as everywhere in the report (/proc counts KiB).
kv ram_mb "$(awk '/^MemTotal:/ { printf "%d", $2 * 1024 / 1e6 }' /proc/meminfo)"
kv ram_available_mb "$(awk '/^MemAvailable:/ { printf "%d", $2 * 1024 / 1e6 }' /proc/meminfo)"
# The build under test (the one the server was set up with): server and
# clients from the same build. No settings are loaded here (SETTING is
# empty): test-ssh.sh has already refused an OPENSSH_PREFIX that names
# another build.
find_server_tools
kv openssh_server "$("$SSHD" -V 2>&1 | grep -o 'OpenSSH_[^ ,]*' | head -n 1)"
kv openssh_client "$("$SSH" -V 2>&1 | head -n 1)"
kv openssh_build "$OPENSSH_BUILD"
kv openssh_prefix "${OPENSSH_BUILD_PREFIX:-}"
# What tells two builds of one version apart (Red Hat's patched 8.7p1
# and upstream's): the package release where a package installed sshd,
# else what the build says of itself (ssh -V in full; with the prefix).
pkg=$(openssh_package "$SSHD")
kv openssh_package "${pkg:-none}"
# A build of one's own may say what it is in PREFIX/openssh-release, one
# line ("openssh 8.7p1-34.el9_3.3 (Red Hat's sources)", as
# tests/openssh/build-rhel9.sh writes it): no package knows it, and its
# ssh -V names the upstream version only.
if [ -n "${OPENSSH_BUILD_PREFIX:-}" ] && [ -f "$OPENSSH_BUILD_PREFIX/openssh-release" ]; then
	kv openssh_origin "$(head -n 1 "$OPENSSH_BUILD_PREFIX/openssh-release" | tr -d '`|')"
fi
kv openssh_sshd "$SSHD"
kv openssh_ssh "$SSH"
# Which processes serve one connection (they follow from the programs
# the build installed, which start-ssh.sh checked): the listener's
# child, from 9.8 sshd-session, from 10.0 also sshd-auth before the login.
libexec=$(dirname "$SFTP_SERVER")
model="sshd (one forked child per connection)"
if [ -x "$libexec/sshd-auth" ] && [ -x "$libexec/sshd-session" ] && version_ge 10.0 "$(openssh_version "$SSHD")"; then
	model="sshd listener, sshd-session per connection, sshd-auth until the login"
elif [ -x "$libexec/sshd-session" ] && version_ge 9.8 "$(openssh_version "$SSHD")"; then
	model="sshd listener, sshd-session per connection"
fi
kv openssh_process_model "$model"
kv openssl "$(openssl version 2>/dev/null || echo 'not installed (command openssl missing)')"
if command -v update-crypto-policies >/dev/null 2>&1; then
	kv crypto_policy "$(update-crypto-policies --show 2>/dev/null)"
else
	kv crypto_policy "none (no update-crypto-policies on this host)"
fi
kv fips "$( [ "$(cat /proc/sys/crypto/fips_enabled 2>/dev/null)" = 1 ] && echo enabled || echo disabled)"
# Whether this host has a way out (a default route, IPv4 or IPv6; the
# kernel's tables, no command needed): without one it is offline, where a
# client's GSSAPI/Kerberos lookups wait for time-outs (the guide's offline
# section). IPv6's unreachable default on lo does not count.
kv default_route "$(awk 'FILENAME ~ /ipv6/ { if ($1 ~ /^0+$/ && $2 == "00" && $10 != "lo") f = 1; next }
	FNR > 1 && $2 == "00000000" && $8 == "00000000" { f = 1 } END { print f ? "yes" : "no" }' /proc/net/route /proc/net/ipv6_route 2>/dev/null)"
selinux_mode=$(helper selinux mode 2>/dev/null | sed -n 's/^mode=//p')
kv selinux "$selinux_mode"
kv service_mode "$(server_get MODE)"
# The unit of the instance in use (docs/instances.md): the report names it.
kv service_unit "$UNIT_NAME"
kv server_pid "$(server_pid)"
# The SELinux domain the test sshd runs in (the real sshd runs as sshd_t):
# the type of its process context, with SELinux on.
if [ "$selinux_mode" = enforcing ] || [ "$selinux_mode" = permissive ]; then
	pid=$(server_pid)
	[ -z "$pid" ] || kv server_domain "$(tr -d '\0' 2>/dev/null <"/proc/$pid/attr/current" | cut -d: -f3)"
fi
kv test_port "$(server_get PORT)"
kv test_user "$(server_get USER)"

# How the test server was set up (start-ssh.sh keeps it in server.env).
kv server_config "$(server_get SERVER_CONFIG)"
kv server_options "$(server_get SSHD_OPTIONS)"
kv test_user_existing "$(server_get EXISTING)"
kv test_user_source "$(server_get USER_SOURCE)"
kv pam_stack "$(server_get PAM_STACK)"
if [ "$(server_get EXISTING)" = yes ]; then
	kv test_user_password "$(server_get PASSWORD)"
	kv test_user_sftp_dir "$(server_get SFTP_DIR)"
fi
if [ "$(server_get SERVER_CONFIG)" = host ]; then
	kv real_config "$(server_get REAL_CONFIG) (found through $(server_get REAL_CONFIG_FROM))"
	n=0
	while IFS= read -r line; do
		n=$((n + 1))
		# Fields: option ;; real configuration ;; test server ;; why.
		kv "override_$n" "$(printf '%s' "$line" | sed 's/\t/ ;; /g')"
	done <"$STATE_DIR/overrides.tsv" 2>/dev/null
fi

# The effective settings of the test server that matter for performance,
# and the real server's (realsshd_*, for the same user and address) with
# either SERVER_CONFIG: the report sets this host's real values next to
# the test server's. Nothing of the real server when its configuration
# cannot be read (sshd -T of it fails).
server_effective_dump "$SSHD_CONFIG" 2>/dev/null | server_effective_kv
real=$(server_get REAL_CONFIG)
if [ -n "$real" ] && [ -r "$real" ]; then
	[ "$(server_get SERVER_CONFIG)" = host ] || kv real_sshd_config "$real (found through $(server_get REAL_CONFIG_FROM))"
	server_effective_dump "$real" 2>/dev/null |
		server_effective_kv | sed 's/^sshd_/realsshd_/'
fi
