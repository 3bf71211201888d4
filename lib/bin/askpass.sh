#!/bin/sh
# SSH_ASKPASS program for the test user's password: ssh runs it (as root,
# like the rest of the kit) with SSH_ASKPASS_REQUIRE=force and reads the
# password from its stdout. The password never appears in an argument
# list or an environment variable; it stays in the root-only state file,
# whose path (PASSWORD_FILE of the instance, lib/names.sh) the caller
# passes in SSHPERF_PASSWORD_FILE; without it, the default instance's.
exec cat "${SSHPERF_PASSWORD_FILE:-/var/lib/sshd-perf-kit/state/password}"
