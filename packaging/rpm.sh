#!/bin/sh
# packaging/rpm.sh TARBALL TOPDIR: builds the source and binary RPM from
# the tarball alone (rpmbuild -ta reads sshd-perf-kit.spec inside it) in
# the rpmbuild tree TOPDIR, and prints the paths of the packages. Where
# rpm does not manage the system's packages (Debian), the build
# requirements cannot be checked by rpm: --nodeps.
set -eu
[ "$#" -eq 2 ] || { echo "usage: packaging/rpm.sh TARBALL TOPDIR" >&2; exit 2; }
tarball=$1 top=$2
command -v rpmbuild >/dev/null 2>&1 ||
	{ echo "rpm.sh: rpmbuild not found; install it: dnf install rpm-build (Debian: apt-get install rpm)" >&2; exit 2; }
nodeps=""
rpm -q --quiet rpm 2>/dev/null || nodeps=--nodeps
mkdir -p "$top/BUILD" "$top/BUILDROOT" "$top/RPMS" "$top/SOURCES" "$top/SPECS" "$top/SRPMS"
log="$top/rpmbuild.log"
# rpmbuild looks for Source0 (NAME-VERSION.tar.gz) in _sourcedir: keep a
# copy there, so the tarball may come from anywhere.
src="$top/SOURCES/$(basename "$tarball")"
[ "$(cd "$(dirname "$tarball")" && pwd -P)" = "$(cd "$top/SOURCES" && pwd -P)" ] ||
	cp -f "$tarball" "$src"
# Debian's brp-compress uses bash's read -d under /bin/sh (dash) and
# compresses nothing; run it with bash there, so the man pages are
# compressed as Fedora's build does.
brp=""
if [ -n "$nodeps" ] && [ -x /usr/lib/rpm/brp-compress ] && command -v bash >/dev/null 2>&1; then
	brp="bash %{_rpmconfigdir}/brp-compress %{?_prefix}"
fi
# The caller's make flags (make -s rpm, -j, -n) are not the package's:
# the build runs with none, and its log shows every compiler call.
# shellcheck disable=SC2086 # $nodeps is empty or one option
if ! env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	rpmbuild $nodeps --define "_topdir $top" --define "_sourcedir $top/SOURCES" \
	${brp:+--define "__brp_compress $brp"} -ta "$src" >"$log" 2>&1; then
	tail -n 30 "$log" >&2
	echo "rpm.sh: rpmbuild failed; the whole log is $log" >&2
	exit 1
fi
sed -n 's/^Wrote: //p' "$log"
