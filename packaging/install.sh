#!/bin/sh
# packaging/install.sh HELPER...: installs the kit from a built source tree
# into the installed layout (called by `make install`, which passes the
# built helpers and these variables):
#
#   DESTDIR        staging root (empty: the real system)
#   LIBEXECDIR     the helpers go to LIBEXECDIR/sshd-perf-kit
#   DATADIR        the scripts, lib/, templates/, units/, docs/, ansible/ go to
#                  DATADIR/sshd-perf-kit
#   SYSCONFDIR     settings.conf goes to SYSCONFDIR/sshd-perf-kit
#   LOCALSTATEDIR  LOCALSTATEDIR/lib/sshd-perf-kit/results holds the runs
#
# Files are picked by folder, not by a list, so a new metric, report
# section or helper is installed without a change here. A file keeps its
# execute bit (0755) or gets 0644. lib/paths.sh is written here, with the
# installed locations, and never taken from the source tree.
set -eu

: "${DESTDIR=}" "${LIBEXECDIR:?}" "${DATADIR:?}" "${SYSCONFDIR:?}" "${LOCALSTATEDIR:?}"
if [ ! -f start-ssh.sh ] || [ ! -d lib ]; then echo "install.sh: run it from the top of the source tree (make install)" >&2; exit 2; fi

name=sshd-perf-kit
libexec="$LIBEXECDIR/$name"
data="$DATADIR/$name"
etc="$SYSCONFDIR/$name"
var="$LOCALSTATEDIR/lib/$name"

# copy SRC DEST: one file, 0755 when the source is executable, else 0644.
# A script starting "#!/usr/bin/env bash" (or sh) gets "#!/bin/bash": an
# installed program must not depend on the caller's PATH for its
# interpreter (Fedora's rule; its rpmbuild would rewrite it the same way).
copy () {
	if [ -x "$1" ]; then mode=0755; else mode=0644; fi
	install -D -m "$mode" "$1" "$DESTDIR$2"
	case $(head -n 1 "$1") in
	'#!/usr/bin/env bash' | '#!/usr/bin/env sh')
		sed -i '1s|^#!/usr/bin/env \(.*\)$|#!/bin/\1|' "$DESTDIR$2" ;;
	esac
}

# The helpers the Makefile built (build/sshperf-*).
[ "$#" -gt 0 ] || { echo "install.sh: no helpers given; run make install" >&2; exit 2; }
install -d -m 0755 "$DESTDIR$libexec"
for h in "$@"; do
	install -m 0755 "$h" "$DESTDIR$libexec/$(basename "$h")"
done

# Scripts and every file below lib/, templates/, units/, docs/ and ansible/
# (the role and playbook for fleet runs), except editor leftovers and a
# stray lib/paths.sh.
install -d -m 0755 "$DESTDIR$data"
copy start-ssh.sh "$data/start-ssh.sh"
copy test-ssh.sh "$data/test-ssh.sh"
find lib templates units docs ansible -type f \
	! -path lib/paths.sh ! -name '*~' ! -name '*.swp' ! -name '*.orig' ! -name '*.rej' |
	sort | while IFS= read -r f; do
		copy "$f" "$data/$f"
	done
# Folders made by install -D get the umask's mode; make them 0755.
find "$DESTDIR$data" -type d -exec chmod 0755 {} +

cat >"$DESTDIR$data/lib/paths.sh" <<EOF
# shellcheck shell=bash disable=SC2034
# Written by make install: where this installed copy of the kit keeps its
# helpers, settings and results (lib/common.sh reads it).
HELPER_DIR=$libexec
SETTINGS_FILE_DEFAULT=$etc/settings.conf
RESULTS_DIR_DEFAULT=$var/results
STATE_PARENT=$var
EOF
chmod 0644 "$DESTDIR$data/lib/paths.sh"

# Settings: kept by the package manager when the administrator changed them.
install -d -m 0755 "$DESTDIR$etc"
install -m 0644 settings.conf "$DESTDIR$etc/settings.conf"

# Results live next to the kit's run-time state folder (state/, made and
# removed by start-ssh.sh).
install -d -m 0755 "$DESTDIR$var" "$DESTDIR$var/results"
