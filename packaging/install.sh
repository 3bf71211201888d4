#!/bin/sh
# packaging/install.sh HELPER...: installs the kit from a built source tree
# into the installed layout (docs/install.md; called by `make install`,
# which passes the built helpers and these variables):
#
#   DESTDIR        staging root (empty: the real system)
#   SBINDIR        SBINDIR/sshd-perf-kit, the command (a link into LIBEXECDIR)
#   LIBEXECDIR     LIBEXECDIR/sshd-perf-kit: the programs (the command,
#                  start-ssh.sh, test-ssh.sh, the C helpers) and their shell
#                  libraries (lib/)
#   DATADIR        DATADIR/sshd-perf-kit: what the programs read, not run:
#                  templates/, units/, selinux/ (the SELinux expectations),
#                  settings.schema, results.schema.json,
#                  ansible/ (the role and playbook for fleet runs)
#   MANDIR         MANDIR/man8/sshd-perf-kit.8, MANDIR/man5/sshd-perf-kit.conf.5
#                  (built by make into build/man)
#   BASHCOMPDIR    BASHCOMPDIR/sshd-perf-kit, the bash completion
#   DOCDIR         README.md and docs/ (the package marks them %doc);
#                  empty: not installed
#   SYSCONFDIR     settings.conf goes to SYSCONFDIR/sshd-perf-kit
#   LOCALSTATEDIR  LOCALSTATEDIR/lib/sshd-perf-kit/results holds the runs
#   VERSION        the kit's version, written into lib/paths.sh
#   RELEASE        its package release (the spec's %{release}, 1.el9), too
#
# Files are picked by folder, not by a list, so a new metric, report
# section or helper is installed without a change here. A file keeps its
# execute bit (0755) or gets 0644, and its time stamp (install -p). lib/paths.sh
# is written here, with the installed locations, and never taken from the
# source tree.
set -eu

: "${DESTDIR=}" "${SBINDIR:?}" "${LIBEXECDIR:?}" "${DATADIR:?}" "${MANDIR:?}" "${BASHCOMPDIR:?}"
: "${DOCDIR=}" "${SYSCONFDIR:?}" "${LOCALSTATEDIR:?}" "${VERSION:?}" "${RELEASE:?}"
if [ ! -f start-ssh.sh ] || [ ! -d lib ]; then echo "install.sh: run it from the top of the source tree (make install)" >&2; exit 2; fi
for f in build/man/sshd-perf-kit.8 build/man/sshd-perf-kit.conf.5; do
	[ -f "$f" ] || { echo "install.sh: $f is not built; run make install" >&2; exit 2; }
done

name=sshd-perf-kit
libexec="$LIBEXECDIR/$name"
data="$DATADIR/$name"
etc="$SYSCONFDIR/$name"
var="$LOCALSTATEDIR/lib/$name"

# copy SRC DEST: one file, 0755 when the source is executable, else 0644.
# A script starting "#!/usr/bin/env bash" (or sh) gets "#!/bin/bash": an
# installed program must not depend on the caller's PATH for its
# interpreter (Fedora's rule; its rpmbuild would rewrite it the same way).
# The time stamp stays that of the source (also after the rewrite).
copy () {
	if [ -x "$1" ]; then mode=0755; else mode=0644; fi
	install -p -D -m "$mode" "$1" "$DESTDIR$2"
	case $(head -n 1 "$1") in
	'#!/usr/bin/env bash' | '#!/usr/bin/env sh')
		sed -i '1s|^#!/usr/bin/env \(.*\)$|#!/bin/\1|' "$DESTDIR$2"
		touch -r "$1" "$DESTDIR$2" ;;
	esac
}

# The helpers the Makefile built (build/sshperf-*).
[ "$#" -gt 0 ] || { echo "install.sh: no helpers given; run make install" >&2; exit 2; }
install -d -m 0755 "$DESTDIR$libexec"
for h in "$@"; do
	install -p -m 0755 "$h" "$DESTDIR$libexec/$(basename "$h")"
done

# The programs and every shell file below lib/, except editor leftovers
# and a stray lib/paths.sh.
copy sshd-perf-kit "$libexec/sshd-perf-kit"
copy start-ssh.sh "$libexec/start-ssh.sh"
copy test-ssh.sh "$libexec/test-ssh.sh"
find lib -type f -name '*.sh' ! -path lib/paths.sh | sort | while IFS= read -r f; do
	copy "$f" "$libexec/$f"
done

# What they read: templates, the unit, the SELinux expectations, the two
# schemas, the Ansible role.
find templates units selinux ansible -type f ! -name '*~' ! -name '*.swp' ! -name '*.orig' ! -name '*.rej' |
	sort | while IFS= read -r f; do
		copy "$f" "$data/$f"
	done
copy lib/settings.schema "$data/settings.schema"
copy lib/metrics.tab "$libexec/lib/metrics.tab"
# report.html's writer and style sheet (lib/bin/report-html.sh reads them
# from lib/report/).
copy lib/report/html.awk "$libexec/lib/report/html.awk"
copy lib/report/report.css "$libexec/lib/report/report.css"
# The readings of the specification and their evaluator
# (lib/report/guidance.sh reads them from lib/report/).
copy lib/report/guidance.awk "$libexec/lib/report/guidance.awk"
copy lib/report/guidance.tab "$libexec/lib/report/guidance.tab"
# The docs every report carries in its run folder (lib/bin/render.sh):
# those of DOCDIR where the docs are installed (one copy: rpmlint counts
# a second as waste), else a folder of their own.
if [ -n "$DOCDIR" ]; then
	report_docs=$DOCDIR/docs
else
	report_docs=$data/report-docs
	copy docs/glossary.md "$report_docs/glossary.md"
	copy docs/metrics.md "$report_docs/metrics.md"
fi
copy docs/results.schema.json "$data/results.schema.json"

cat >"$DESTDIR$libexec/lib/paths.sh" <<EOF
# shellcheck shell=bash disable=SC2034
# Written by make install: where this installed copy of the kit keeps its
# helpers, data, settings and results, and its version (lib/common.sh and
# lib/bin/results-json.sh read it).
HELPER_DIR=$libexec
SCHEMA_FILE=$data/settings.schema
RESULTS_SCHEMA=$data/results.schema.json
TEMPLATE_DIR=$data/templates
UNIT_DIR=$data/units
SELINUX_DIR=$data/selinux
REPORT_DOCS_DIR=$report_docs
SETTINGS_FILE_DEFAULT=$etc/settings.conf
RESULTS_DIR_DEFAULT=$var/results
STATE_PARENT=$var
KIT_VERSION=$VERSION
KIT_RELEASE=$RELEASE
EOF
chmod 0644 "$DESTDIR$libexec/lib/paths.sh"

# The command on PATH: a relative link to the program in libexec (the
# program finds its folder through the link).
install -d -m 0755 "$DESTDIR$SBINDIR"
ln -sfn "$(realpath -m --relative-to="$SBINDIR" "$libexec/sshd-perf-kit")" "$DESTDIR$SBINDIR/sshd-perf-kit"

# Man pages and completion.
install -p -D -m 0644 build/man/sshd-perf-kit.8 "$DESTDIR$MANDIR/man8/sshd-perf-kit.8"
install -p -D -m 0644 build/man/sshd-perf-kit.conf.5 "$DESTDIR$MANDIR/man5/sshd-perf-kit.conf.5"
install -p -D -m 0644 completion/sshd-perf-kit "$DESTDIR$BASHCOMPDIR/sshd-perf-kit"

# Documentation: README.md and docs/, as in the source tree (README's links
# to docs/ keep working).
if [ -n "$DOCDIR" ]; then
	copy README.md "$DOCDIR/README.md"
	find docs -type f | sort | while IFS= read -r f; do
		copy "$f" "$DOCDIR/$f"
	done
fi

# Folders made by install -D get the umask's mode; make them 0755.
for d in "$DESTDIR$libexec" "$DESTDIR$data" ${DOCDIR:+"$DESTDIR$DOCDIR"}; do
	find "$d" -type d -exec chmod 0755 {} +
done

# Settings: kept by the package manager when the administrator changed them.
install -d -m 0755 "$DESTDIR$etc"
install -p -m 0644 settings.conf "$DESTDIR$etc/settings.conf"

# Results live next to the kit's run-time state folder (state/, made and
# removed by start-ssh.sh).
install -d -m 0755 "$DESTDIR$var" "$DESTDIR$var/results"
