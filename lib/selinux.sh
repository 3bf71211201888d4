# shellcheck shell=bash
# The kit's SELinux expectations (selinux/expectations.tsv, format in
# docs/data.md) filled in with this kit's paths, and the label check that
# start-ssh.sh runs after restorecon on an SELinux host. Sourced after
# lib/common.sh and lib/serverconfig.sh (the paths); tests source it too,
# so that the table is read one way only.

SELINUX_TABLE="$SELINUX_DIR/expectations.tsv"
# Its columns (docs/data.md); a row's cells are read by these names.
SELINUX_COLUMNS="kind path type labelled_by domain class perms why"
# Where the check looks for the AVC denial of a file (the tests point it
# at a file of their own).
SELINUX_AUDIT_LOG=${SSHPERF_AUDIT_LOG:-/var/log/audit/audit.log}

# selinux_rows HOME PORT SSHD: the table's rows (no comment, no header),
# with every @NAME@ replaced: the kit's paths from lib/common.sh and
# lib/serverconfig.sh, the test user's home, the test port, the sshd
# program. A placeholder left over is the kit's own bug.
selinux_rows () {
	local home=$1 port=$2 sshd=$3 line
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in '#'* | '' | kind$'\t'*) continue ;; esac
		line=${line//@SSHD_CONFIG@/$SSHD_CONFIG}
		line=${line//@HOSTKEY_PREFIX@/$HOSTKEY_PREFIX}
		line=${line//@UNIT_FILE@/$UNIT_FILE}
		line=${line//@PID_FILE@/$PID_FILE}
		line=${line//@AUTHKEYS_DIR@/$AUTHKEYS_DIR}
		line=${line//@SFTP_PARENT@/$SFTP_PARENT}
		line=${line//@STATE_PARENT@/$STATE_PARENT}
		line=${line//@HOME@/$home}
		line=${line//@TEST_PORT@/$port}
		line=${line//@SSHD@/$sshd}
		case $line in *@[A-Z]*@*) die "$SELINUX_TABLE: no value for a placeholder in: $line" ;; esac
		printf '%s\n' "$line"
	done <"$SELINUX_TABLE"
}

# selinux_row ROWS KIND PATH: the first of the filled-in ROWS whose kind
# is KIND (a folder the kit removes whole, "tree", is a dir) and whose
# pattern matches PATH; nothing when none does.
selinux_row () {
	local kind=$2 path=$3 k p rest
	[ "$kind" != tree ] || kind=dir
	while IFS=$'\t' read -r k p rest; do
		# shellcheck disable=SC2053 # the table's path is a pattern
		if [ "$k" = "$kind" ] && [[ $path == $p ]]; then
			printf '%s\t%s\t%s\n' "$k" "$p" "$rest"
			return 0
		fi
	done <<<"$1"
	return 0
}

# selinux_kit_paths OWN_HOME: "kind path" of every file and folder the
# kit made that its table covers: the state record (lib/common.sh
# MANIFEST) and, when OWN_HOME is the home of the kit's own user, ~/.ssh
# and its keys (the user's line in the record stands for them). Empty for
# an existing account: its home is not the kit's.
selinux_kit_paths () {
	local home=$1
	[ -f "$MANIFEST" ] || return 0
	awk '$1 == "file" || $1 == "dir" || $1 == "tree" { print $1, substr($0, length($1) + 2) }' "$MANIFEST"
	if [ -n "$home" ]; then
		printf 'dir %s\nfile %s\n' "$home/.ssh" "$home/.ssh/authorized_keys"
	fi
}

# selinux_avc PATH: the newest AVC denial in the audit log that names the
# file PATH (by its name), or nothing.
selinux_avc () {
	[ -r "$SELINUX_AUDIT_LOG" ] || return 0
	grep -F 'avc:  denied' "$SELINUX_AUDIT_LOG" 2>/dev/null |
		grep -F "name=\"$(basename "$1")\"" | tail -n 1 || true
}

# selinux_check_labels OWN_HOME PORT SSHD: every file and folder the kit made
# has the type its table row needs (sshperf-selinux check; -f
# SELINUX_FILE_CONTEXTS when set, else the host's file contexts). A wrong
# label stops the start with one line: the path, the type it has, the one
# it needs and why, how to fix it, and the AVC denial if the audit log has
# one. Files the table does not cover, or that are labelled otherwise
# than by file contexts (the pid file, the cgroup), are not checked here.
selinux_check_labels () {
	local rows kind path row want how dom perms why line out
	local -a pairs=() fcopt=()
	local -A need=()
	rows=$(selinux_rows "$@")
	while read -r kind path; do
		[ -e "$path" ] || continue
		row=$(selinux_row "$rows" "$kind" "$path")
		[ -n "$row" ] || continue
		want=$(tsv_cell "$SELINUX_COLUMNS" "$row" type)
		how=$(tsv_cell "$SELINUX_COLUMNS" "$row" labelled_by)
		dom=$(tsv_cell "$SELINUX_COLUMNS" "$row" domain)
		perms=$(tsv_cell "$SELINUX_COLUMNS" "$row" perms)
		why=$(tsv_cell "$SELINUX_COLUMNS" "$row" why)
		if [ "$how" != file_contexts ] || [ "$want" = - ]; then
			continue
		fi
		pairs+=("$path" "$want")
		need[$path]="$dom needs $want to use it ($perms: $why)"
	done < <(selinux_kit_paths "$1")
	[ "${#pairs[@]}" -gt 0 ] || return 0
	[ -z "${SELINUX_FILE_CONTEXTS:-}" ] || fcopt=(-f "$SELINUX_FILE_CONTEXTS")
	out=$(helper selinux "${fcopt[@]}" check "${pairs[@]}") && return 0
	line=$(printf '%s\n' "$out" | grep -m 1 ' ok=no$') ||
		die "SELinux: the label check failed: $out"
	path=$(printf '%s\n' "$line" | sed 's/^path=\(.*\) has=.*/\1/')
	line=${line#"path=$path "}
	local has policy
	has=$(printf '%s\n' "$line" | sed -n 's/^has=\([^ ]*\).*/\1/p')
	policy=$(printf '%s\n' "$line" | sed -n 's/.* policy=\([^ ]*\).*/\1/p')
	want=$(printf '%s\n' "$line" | sed -n 's/.* want=\([^ ]*\).*/\1/p')
	if [ "$policy" = "$want" ]; then
		how="restorecon did not set it: run restorecon -v $path, and check that its file system keeps labels (mount option context=)"
	elif [ "$policy" = none ] || [ "$policy" = unknown ]; then
		how="no file context of the policy matches it; fix: semanage fcontext -a -t $want '$path' && restorecon -v $path"
	else
		how="the policy's file contexts give it $policy (a local rule? semanage fcontext -l -C); fix: semanage fcontext -a -t $want '$path' && restorecon -v $path"
	fi
	line=$(selinux_avc "$path")
	die "SELinux: $path is labelled $has, ${need[$path]}; $how${line:+; audit log: $line}"
}
