#!/usr/bin/env bash
# Prints the facts about this host and the test server that a reader of the
# report needs to judge the numbers, as key=value lines.
set -u
PROG=environment.sh
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"

kv () {
	printf '%s=%s\n' "$1" "$(printf '%s' "$2" | tr '\n\t' '  ' | sed 's/  *$//')"
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
kv openssh_server "$(sshd -V 2>&1 | grep -o 'OpenSSH_[^ ,]*' | head -n 1)"
kv openssh_client "$(ssh -V 2>&1 | head -n 1)"
kv openssl "$(openssl version 2>/dev/null || echo 'not installed (command openssl missing)')"
if command -v update-crypto-policies >/dev/null 2>&1; then
	kv crypto_policy "$(update-crypto-policies --show 2>/dev/null)"
else
	kv crypto_policy "none (no update-crypto-policies on this host)"
fi
kv fips "$( [ "$(cat /proc/sys/crypto/fips_enabled 2>/dev/null)" = 1 ] && echo enabled || echo disabled)"
kv selinux "$(helper selinux mode 2>/dev/null | sed -n 's/^mode=//p')"
kv service_mode "$(server_get MODE)"
kv server_pid "$(server_pid)"
kv test_port "$(server_get PORT)"
kv test_user "$(server_get USER)"

# The effective settings of the test server that matter for performance.
user=$(server_get USER)
"$(command -v sshd)" -T -f "$SSHD_CONFIG" -C "user=${user:-root},addr=127.0.0.1,host=localhost" 2>/dev/null |
	awk '$1 ~ /^(ciphers|macs|kexalgorithms|hostkeyalgorithms|pubkeyacceptedalgorithms|maxstartups|maxsessions|logingracetime|usepam|usedns|gssapiauthentication|persourcepenalties|compression|clientaliveinterval|authorizedkeyscommand)$/ {
		k = $1; $1 = ""; sub(/^ /, ""); print "sshd_" k "=" $0 }'
