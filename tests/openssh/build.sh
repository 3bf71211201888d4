#!/usr/bin/env bash
# Build one upstream OpenSSH tarball into the build cache, once.
# Usage: tests/openssh/build.sh TARBALL SHA256
# Prints the installation prefix on stdout. The cache
# ($OPENSSH_CACHE, default /var/cache/sshd-perf-kit-ci/openssh) lives
# outside the clone, keyed by the tarball's sha256, so the next run on
# the same machine finds the build and does not make it again.
# Flags as in the sources' README: PAM, privsep user sshd, and the
# privsep dir, pid dir and sysconfdir inside the prefix.
set -u
tarball=$1 want=$2
cache=${OPENSSH_CACHE:-/var/cache/sshd-perf-kit-ci/openssh}
got=$(sha256sum "$tarball" | cut -d' ' -f1) || exit 1
if [ "$got" != "$want" ]; then
	echo "build.sh: $tarball: sha256 $got, the sources' README says $want" >&2
	exit 1
fi
dir=$cache/$want prefix=$cache/$want/prefix
if [ -f "$dir/done" ]; then
	echo "$prefix"
	exit 0
fi
mkdir -p "$dir" || exit 1
# One builder per tarball at a time (CI and a developer may share the cache).
exec 9>"$dir/lock"
flock 9
if [ ! -f "$dir/done" ]; then
	rm -rf "$dir/src" "$dir/build" "$prefix"
	mkdir -p "$dir/src" "$dir/build" || exit 1
	tar -xzf "$tarball" -C "$dir/src" --strip-components=1 || exit 1
	(
		cd "$dir/build" || exit 1
		"$dir/src/configure" --prefix="$prefix" --sysconfdir="$prefix/etc" \
		    --with-pam --with-privsep-path="$prefix/empty" \
		    --with-pid-dir="$prefix/run" --with-privsep-user=sshd &&
		nice make -j"${OPENSSH_BUILD_JOBS:-2}" &&
		make install-nokeys
	) >"$dir/build.log" 2>&1 || {
		echo "build.sh: building $tarball failed, see $dir/build.log" >&2
		tail -n 5 "$dir/build.log" >&2
		exit 1
	}
	mkdir -p "$prefix/empty" "$prefix/run" && chmod 0755 "$prefix/empty"
	rm -rf "$dir/src" "$dir/build"
	touch "$dir/done"
fi
echo "$prefix"
