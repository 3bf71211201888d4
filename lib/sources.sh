# shellcheck shell=bash disable=SC2034
# (SC2034: the addresses below are used by the scripts that source this file.)
# The loopback addresses the kit's test clients connect from. The test
# server listens on 127.0.0.1 only; on Linux all of 127.0.0.0/8 is local,
# so a client may bind any of it and connect there, with nothing to
# configure. OpenSSH 9.8's per-source limits (PerSourcePenalties,
# PerSourceMaxStartups; IPv4 sources counted per /32 by default,
# PerSourceNetBlockSize) then see the clients as the kit means them: so
# the kit leaves those limits as configured instead of switching them off.
#
#   127.0.0.1        the kit's probes (the connect poller) and nothing
#                    that logs in
#   CLIENT_SOURCE    every ssh run through the kit's client config
#                    (BindAddress): the logins of the login, rate, session,
#                    transfer and sftp tests; and the "addr" of sshd -T
#                    (server_sshd_T), so that its Match blocks apply as
#                    for those clients
#   BURST_ONE_SOURCE the burst's one-source steps: all clients from one
#                    address, as an Ansible controller or a NAT
#   BURST_MANY_FIRST the burst's many-source steps, a fleet: each client an
#                    address of its own, new ones at every step
CLIENT_SOURCE=127.0.0.2
BURST_ONE_SOURCE=127.0.0.3
BURST_MANY_FIRST=127.1.0.1

# source_plus ADDR N: the IPv4 address N after ADDR.
source_plus () {
	awk -v a="$1" -v n="$2" 'BEGIN {
		split(a, o, ".")
		v = ((o[1] * 256 + o[2]) * 256 + o[3]) * 256 + o[4] + n
		printf "%d.%d.%d.%d\n", int(v / 16777216) % 256, int(v / 65536) % 256, int(v / 256) % 256, v % 256
	}'
}
