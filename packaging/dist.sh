#!/bin/sh
# packaging/dist.sh TOPDIR TARBALL: writes TARBALL (.tar.gz) with the files
# git tracks as committed in HEAD, below the folder TOPDIR/ - the source of
# `make rpm`. Untracked and uncommitted changes (build/, results/, work in
# progress in a shared tree) are never in it: commit first.
set -eu
[ "$#" -eq 2 ] || { echo "usage: packaging/dist.sh TOPDIR TARBALL" >&2; exit 2; }
top=$1 out=$2
command -v git >/dev/null 2>&1 || { echo "dist.sh: git is needed to list the tracked files" >&2; exit 2; }
git rev-parse --verify -q HEAD >/dev/null || { echo "dist.sh: not in a git checkout with a commit" >&2; exit 2; }
case $out in /*) ;; *) out="$PWD/$out" ;; esac
mkdir -p "$(dirname "$out")"
trap 'rm -f "$out.tmp"' EXIT
(cd "$(git rev-parse --show-toplevel)" &&
	git archive --format=tar.gz --prefix="$top/" -o "$out.tmp" HEAD)
mv -f "$out.tmp" "$out"
if [ -n "$(git status --porcelain --untracked-files=no 2>/dev/null)" ]; then
	echo "dist.sh: note: uncommitted changes to tracked files are not in $out" >&2
fi
printf '%s\n' "$out"
