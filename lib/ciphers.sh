# shellcheck shell=bash
# Which ciphers a transfer test can use: those both the test server and
# the client allow, in the client's order of preference, the default one
# marked. Pure functions on recorded outputs (tests/t60-ciphers.sh feeds
# them files), plus ciphers_record, which makes those files on this host.
#
# The files:
#   sshd-T.txt  sshd -T -f CONFIG -C user=...,addr=CLIENT_SOURCE,host=localhost
#               (the server's effective settings, after the crypto policy)
#   ssh-G.txt   ssh -G -F CLIENT_CONFIG ALIAS (the client's effective
#               settings; on RHEL its crypto policy arrives through the
#               included /etc/ssh/ssh_config, so -G is what ssh will offer)
#   ssh-Q.txt   ssh -Q cipher (what the client program can do at all)
#
# sshd -T comes through the door, lib/server.sh (server_effective_dump).

# shellcheck source=lib/server.sh
. "$KIT_DIR/lib/server.sh"

# ciphers_field FILE KEY: the comma list after "KEY " in FILE, one per line.
# The key in any case: OpenSSH 10 prints "Ciphers ...", older ones "ciphers ...".
ciphers_field () {
	awk -v k="$2" 'tolower($1) == k { n = split($2, a, ","); for (i = 1; i <= n; i++) print a[i]; exit }' "$1"
}

# The client's offer: ssh -G's list, each of which ssh -Q knows; without
# a ciphers line in -G (never seen), ssh -Q's whole list.
ciphers_client () {
	local g=$1 q=$2
	if grep -qi '^ciphers ' "$g"; then
		ciphers_field "$g" ciphers | grep -vxF -e '' | awk 'NR == FNR { q[$0] = 1; next } q[$0]' "$q" -
	else
		grep -v '^#' "$q"
	fi
}

# ciphers_common SSHD_T SSH_G SSH_Q: "CIPHER<TAB>default" or "CIPHER<TAB>-"
# per line, in the client's order. The default is what SSH negotiates:
# the first of the client's list that the server also has.
ciphers_common () {
	local t=$1 g=$2 q=$3
	ciphers_client "$g" "$q" |
		awk 'NR == FNR { s[$0] = 1; next } s[$0] { print $0 "\t" (found++ ? "-" : "default") }' \
			<(ciphers_field "$t" ciphers) -
}

# ciphers_default SSHD_T SSH_G SSH_Q: the negotiated cipher, or nothing.
ciphers_default () {
	ciphers_common "$@" | awk -F'\t' '$2 == "default" { print $1 }'
}

# ciphers_mac SSHD_T SSH_G: the MAC negotiated with a cipher that needs
# one (CTR, CBC): the first of the client's list that the server has.
ciphers_mac () {
	awk 'NR == FNR { s[$0] = 1; next } s[$0] { print; exit }' \
		<(ciphers_field "$1" macs) <(ciphers_field "$2" macs)
}

# ciphers_select WANTED SSHD_T SSH_G SSH_Q: the ciphers to measure, one
# "CIPHER<TAB>default|-" per line: all common ones when WANTED is empty,
# else WANTED in its order. A wanted cipher that the server or the client
# does not allow is bad input: one line saying which and why on stderr,
# status 1.
ciphers_select () {
	local wanted=$1 t=$2 g=$3 q=$4 common c
	common=$(ciphers_common "$t" "$g" "$q")
	if [ -z "$wanted" ]; then
		[ -n "$common" ] || { printf 'the test server and the client have no cipher in common (server: %s; client: %s)\n' \
			"$(ciphers_field "$t" ciphers | paste -sd, -)" "$(ciphers_client "$g" "$q" | paste -sd, -)" >&2; return 1; }
		printf '%s\n' "$common"
		return 0
	fi
	for c in $wanted; do
		if ! ciphers_field "$t" ciphers | grep -qxF -- "$c"; then
			printf 'TRANSFER_CIPHERS: %s is not allowed by the test server (its effective ciphers, after the crypto policy: %s)\n' \
				"$c" "$(ciphers_field "$t" ciphers | paste -sd, -)" >&2
			return 1
		fi
		if ! ciphers_client "$g" "$q" | grep -qxF -- "$c"; then
			printf 'TRANSFER_CIPHERS: %s is not allowed by the client (ssh -G ciphers, after its crypto policy: %s)\n' \
				"$c" "$(ciphers_client "$g" "$q" | paste -sd, -)" >&2
			return 1
		fi
	done
	for c in $wanted; do
		printf '%s\n' "$common" | awk -F'\t' -v c="$c" '$1 == c { print; exit }'
	done
}

# ciphers_record DIR: writes DIR/sshd-T.txt, ssh-G.txt and ssh-Q.txt from
# this host's test server config and client (needs $SSHD $SSH
# $SSHD_CONFIG $CLIENT_CONFIG $HOST_ALIAS ${SETTING[TEST_USER]}). Status 1
# with a line on stderr when sshd -T fails.
ciphers_record () {
	local dir=$1
	if ! server_effective_dump "$SSHD_CONFIG" >"$dir/sshd-T.txt" 2>"$dir/sshd-T.err"; then
		printf 'sshd -T -f %s failed: %s\n' "$SSHD_CONFIG" "$(tail -n 1 "$dir/sshd-T.err")" >&2
		return 1
	fi
	"$SSH" -G -F "$CLIENT_CONFIG" "$HOST_ALIAS" >"$dir/ssh-G.txt" 2>/dev/null || : >"$dir/ssh-G.txt"
	"$SSH" -Q cipher >"$dir/ssh-Q.txt"
}

# ciphers_check WANTED SSHD_T SSH_G SSH_Q: test-ssh.sh's check of
# TRANSFER_CIPHERS before a run starts. True when every name in WANTED is
# known to the client program (ssh -Q), allowed by the test server
# (sshd -T) and offered by the client (ssh -G; an empty file: all of
# ssh -Q). Else one line on stdout naming each name that is not, and why,
# with the names that would do, and status 1. Keys are read in any case:
# OpenSSH 10's sshd -T prints them in CamelCase ("Ciphers").
ciphers_check () {
	awk -v wanted="$1" '
		FILENAME == ARGV[1] { if (tolower($1) == "ciphers") { n = split($2, a, ","); for (i = 1; i <= n; i++) srv[a[i]] = 1 }; next }
		FILENAME == ARGV[2] { if (tolower($1) == "ciphers") { hasg = 1; n = split($2, a, ","); for (i = 1; i <= n; i++) { cli[a[i]] = 1; gorder[++ng] = a[i] } }; next }
		/^[^#]/ && NF { known[$1] = 1; qorder[++nq] = $1 }
		END {
			n = split(wanted, w, " ")
			for (i = 1; i <= n; i++) {
				c = w[i]
				if (!(c in known)) why = "unknown to this ssh (not in ssh -Q cipher)"
				else if (!(c in srv)) why = "not allowed by the test server (sshd -T, after the crypto policy)"
				else if (hasg && !(c in cli)) why = "not offered by the client (ssh -G, after its crypto policy)"
				else continue
				bad = bad sep c " " why
				sep = "; "
			}
			if (bad == "") exit 0
			if (hasg) { for (i = 1; i <= ng; i++) if ((gorder[i] in known) && (gorder[i] in srv)) use = use (use == "" ? "" : " ") gorder[i] }
			else { for (i = 1; i <= nq; i++) if (qorder[i] in srv) use = use (use == "" ? "" : " ") qorder[i] }
			printf "setting TRANSFER_CIPHERS=\"%s\" names ciphers the transfer test cannot use: %s; usable here: %s (or leave TRANSFER_CIPHERS empty for all of them)\n", wanted, bad, (use == "" ? "none" : use)
			exit 1
		}' "$2" "$3" "$4"
}

# sshd_effective_kv < SSHD_T: the effective sshd settings that matter for
# performance, as sshd_KEY=value lines (server_effective_kv, lib/server.sh;
# kept under this name for its callers).
sshd_effective_kv () {
	server_effective_kv
}
