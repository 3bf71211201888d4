#!/bin/sh
# SSH_ASKPASS program for the test user's password: ssh runs it (as root,
# like the rest of the kit) with SSH_ASKPASS_REQUIRE=force and reads the
# password from its stdout. The password never appears in an argument
# list or an environment variable; it stays in the root-only state file.
exec cat /var/lib/sshd-perf-kit/state/password
