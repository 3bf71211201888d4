#!/bin/sh
# packaging/dist.sh TOPDIR TARBALL: writes TARBALL (.tar.gz) with every file
# git tracks, as it is in the work tree, below the folder TOPDIR/ - the
# source of `make rpm`. Untracked files (build/, results/, a colleague's
# unfinished helper) are never in it.
set -eu
[ "$#" -eq 2 ] || { echo "usage: packaging/dist.sh TOPDIR TARBALL" >&2; exit 2; }
top=$1 out=$2
command -v git >/dev/null 2>&1 || { echo "dist.sh: git is needed to list the tracked files" >&2; exit 2; }
cd "$(git rev-parse --show-toplevel)" || exit 2
list=$(mktemp "${TMPDIR:-/tmp}/sshperf-dist.XXXXXX")
trap 'rm -f "$list" "$out.tmp"' EXIT
# A tracked file deleted in the work tree is left out, not an error.
git ls-files -z | tr '\0' '\n' | while IFS= read -r f; do
	if [ -e "$f" ]; then printf '%s\n' "$f"; fi
done | LC_ALL=C sort >"$list"
tar --create --gzip --file "$out.tmp" --files-from "$list" --no-recursion \
	--owner=0 --group=0 --numeric-owner --transform "s,^,$top/,"
mv -f "$out.tmp" "$out"
printf '%s\n' "$out"
