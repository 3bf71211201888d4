#!/usr/bin/env bash
# sshd-T.sh CONFIG USER [OPENSSH_PREFIX]: sshd -T of CONFIG for USER, asked
# through the kit's own door (server_sshd_T, lib/server.sh): from the
# address the test clients connect from (CLIENT_SOURCE, lib/sources.sh),
# so that a test reads the Match context the kit reads. The sshd is the
# system's, or OPENSSH_PREFIX's (argument, else the environment's).
KIT_DIR=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
PROG=sshd-T.sh
# shellcheck source=lib/common.sh
. "$KIT_DIR/lib/common.sh"
# shellcheck source=lib/server.sh
. "$KIT_DIR/lib/server.sh"
[ "$#" -ge 2 ] || { echo "usage: sshd-T.sh CONFIG USER [OPENSSH_PREFIX]" >&2; exit 2; }
find_tools "${3-${OPENSSH_PREFIX-}}"
server_sshd_T "$1" "$2"
