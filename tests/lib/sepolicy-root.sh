# shellcheck shell=bash
# A throwaway SELinux policy root for tests, so that no test ever writes the
# machine's own store (/var/lib/selinux, /etc/selinux).
#
#   . "$TEST_DIR/lib/sepolicy-root.sh"
#   sepolicy_root "$TEST_TMP/selinux-root" || test_skip ... "$SEPOLICY_ROOT_ERROR"
#   sshperf-seport -r "$TEST_TMP/selinux-root" -s default add 11022
#
# sepolicy_root DIR makes DIR a private, writable copy of a policy root
# holding the store "default" of Debian's selinux-policy-default, usable
# with semanage_set_root(DIR). The root is built once into a cache outside
# the repository and copied for every call, so the cache stays clean:
#
#   1. the package is fetched with `apt-get download` (not installed: its
#      postinst would build the machine's own store under /var/lib/selinux),
#   2. unpacked with `dpkg-deb -x` into a staging root,
#   3. every module the package lists in .modules is installed into that
#      root with `semodule -p ROOT -s default -n`, as the package's postinst
#      does for the machine (-n: never load a policy),
#   4. the staging root replaces the cache, with a stamp file saying it is
#      complete; a cache without the stamp or the store's files is rebuilt.
#
# Building takes about 30 s, copying the cache under a second.
# Returns 1 with the reason in SEPOLICY_ROOT_ERROR when the root cannot be
# made (no network, tools missing).
#
# SEPOLICY_CACHE_DIR overrides the cache folder
# (default /var/cache/sshd-perf-kit-tests).

SEPOLICY_PACKAGE=selinux-policy-default
SEPOLICY_STORE=default
SEPOLICY_ROOT_ERROR=

# Say what is happening on stderr, as a TAP comment.
sepolicy_note () {
	printf '# sepolicy-root: %s\n' "$*" >&2
}

sepolicy_fail () {
	SEPOLICY_ROOT_ERROR=$*
	return 1
}

# Is the cached root complete? The stamp is written last, after the store's
# own files, so a build that died half way is never taken for a good one.
sepolicy_cache_ok () {
	local root=$1
	[ -f "$root/.sshperf-sepolicy-root" ] &&
	[ -f "$root/var/lib/selinux/$SEPOLICY_STORE/active/policy.kern" ] &&
	compgen -G "$root/etc/selinux/$SEPOLICY_STORE/policy/policy.*" >/dev/null
}

# Find the package's .deb in folder $1, fetching it if needed; its path
# goes to sepolicy_deb (not printed: a $(...) subshell would lose the
# reason of a failure).
sepolicy_find_deb () {
	local dir=$1 deb
	sepolicy_deb=
	for deb in "$dir/${SEPOLICY_PACKAGE}"_*.deb; do
		[ -f "$deb" ] && sepolicy_deb=$deb
	done
	[ -n "$sepolicy_deb" ]
}

sepolicy_fetch_deb () {
	local dir=$1 out
	sepolicy_find_deb "$dir" && return 0
	command -v apt-get >/dev/null ||
		sepolicy_fail "apt-get not found: cannot fetch $SEPOLICY_PACKAGE" ||
		return 1
	# The sandbox user _apt may not write to our cache folder: fetch as root.
	if ! out=$(cd "$dir" && apt-get -q -o APT::Sandbox::User=root \
	    download "$SEPOLICY_PACKAGE" 2>&1); then
		sepolicy_note "apt-get download failed; running apt-get update once"
		apt-get -q update >/dev/null 2>&1 || true
		if ! out=$(cd "$dir" && apt-get -q -o APT::Sandbox::User=root \
		    download "$SEPOLICY_PACKAGE" 2>&1); then
			sepolicy_fail "cannot fetch $SEPOLICY_PACKAGE with apt-get download: $(printf '%s\n' "$out" | tail -n 1)"
			return 1
		fi
	fi
	sepolicy_find_deb "$dir" ||
		sepolicy_fail "apt-get download left no $SEPOLICY_PACKAGE .deb in $dir"
}

# Build the cached root at $1 from the package (the caller holds the lock).
sepolicy_build () {
	local root=$1 base deb staging module out start sepolicy_deb
	local -a installs=()
	base=$(dirname "$root")
	start=$(date +%s)
	command -v dpkg-deb >/dev/null ||
		sepolicy_fail "dpkg-deb not found" || return 1
	command -v semodule >/dev/null ||
		sepolicy_fail "semodule not found (package policycoreutils)" ||
		return 1
	mkdir -p "$base/selinux-deb" ||
		sepolicy_fail "cannot create $base/selinux-deb" || return 1
	sepolicy_fetch_deb "$base/selinux-deb" || return 1
	deb=$sepolicy_deb

	sepolicy_note "building a throwaway policy root in $root from $(basename "$deb") (about 30 s)"
	staging=$(mktemp -d "$root.new.XXXXXX") ||
		sepolicy_fail "cannot create a staging folder next to $root" ||
		return 1
	if ! out=$(dpkg-deb -x "$deb" "$staging" 2>&1); then
		rm -rf "$staging"
		sepolicy_fail "dpkg-deb -x $deb: $out"
		return 1
	fi
	# libsemanage reads ROOT/etc/selinux/semanage.conf. No home directory
	# contexts: genhomedircon would read the machine's users, which have
	# nothing to do with ports and only add warnings.
	printf '%s\n' '# Throwaway root for sshd-perf-kit tests; never active.' \
	    'module-store = direct' 'expand-check = 0' \
	    'disable-genhomedircon = true' \
	    >"$staging/etc/selinux/semanage.conf"
	while read -r module; do
		[ -n "$module" ] || continue
		installs+=(-i "$staging/usr/share/selinux/$SEPOLICY_STORE/$module.pp.bz2")
	done <"$staging/usr/share/selinux/$SEPOLICY_STORE/.modules"
	if [ "${#installs[@]}" -eq 0 ]; then
		rm -rf "$staging"
		sepolicy_fail "$deb lists no policy modules"
		return 1
	fi
	if ! out=$(semodule -p "$staging" -s "$SEPOLICY_STORE" -n -X 100 \
	    "${installs[@]}" 2>&1); then
		rm -rf "$staging"
		sepolicy_fail "semodule -p $staging failed: $(printf '%s\n' "$out" | tail -n 1)"
		return 1
	fi
	# The module packages are in the store now; the root needs no /usr.
	rm -rf "${staging:?}/usr"
	basename "$deb" >"$staging/.sshperf-sepolicy-root"
	rm -rf "$root"
	mv "$staging" "$root" ||
		sepolicy_fail "cannot move $staging to $root" || return 1
	sepolicy_note "built $root in $(( $(date +%s) - start )) s"
}

# sepolicy_root DIR: make DIR (created if absent) a fresh copy of the cached
# throwaway policy root, building the cache first when needed.
sepolicy_root () {
	local dest=$1 base cache lockfd rc=0
	base=${SEPOLICY_CACHE_DIR:-/var/cache/sshd-perf-kit-tests}
	cache=$base/selinux-root
	# shellcheck disable=SC2034 # read by the caller
	SEPOLICY_ROOT_ERROR=
	mkdir -p "$base" ||
		sepolicy_fail "cannot create the cache folder $base" || return 1

	# One builder at a time; others wait for it and then reuse its root.
	exec {lockfd}>"$base/.selinux-root.lock" ||
		sepolicy_fail "cannot open $base/.selinux-root.lock" || return 1
	if ! flock -w 600 "$lockfd"; then
		exec {lockfd}>&-
		sepolicy_fail "timed out waiting for another build of $cache"
		return 1
	fi
	if ! sepolicy_cache_ok "$cache"; then
		[ ! -e "$cache" ] ||
			sepolicy_note "cached root $cache is incomplete; rebuilding"
		sepolicy_build "$cache" || rc=1
	fi
	if [ "$rc" -eq 0 ]; then
		if ! { mkdir -p "$dest" && cp -a "$cache/." "$dest/"; }; then
			sepolicy_fail "cannot copy $cache to $dest"
			rc=1
		fi
	fi
	exec {lockfd}>&-
	return "$rc"
}
