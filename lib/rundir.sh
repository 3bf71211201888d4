# shellcheck shell=bash
# The run folder: test-ssh.sh's runs and the load mode's (lib/bin/load.sh)
# are made the same way, in RESULTS_DIR, with raw/ and data/.

# make_run_dir: creates RESULTS_DIR/<date-time> with raw/ and data/ (a
# new one, never reused) and prints its path; one line and exit 2 when
# it cannot.
make_run_dir () {
	local stamp dir n=1
	if [ ! -d "${SETTING[RESULTS_DIR]}" ]; then
		[ -d "$(dirname "${SETTING[RESULTS_DIR]}")" ] ||
			die "RESULTS_DIR=${SETTING[RESULTS_DIR]}: its parent folder does not exist; create it or set RESULTS_DIR to an existing folder"
		mkdir -m 0755 "${SETTING[RESULTS_DIR]}" 2>/dev/null || die "RESULTS_DIR=${SETTING[RESULTS_DIR]} cannot be created; set RESULTS_DIR to a writable folder"
	fi
	[ -w "${SETTING[RESULTS_DIR]}" ] || die "RESULTS_DIR=${SETTING[RESULTS_DIR]} is not writable; set RESULTS_DIR to a writable folder"
	stamp=$(date +%Y-%m-%d_%H%M%S)
	dir="${SETTING[RESULTS_DIR]}/$stamp"
	while [ -e "$dir" ]; do
		n=$((n + 1))
		dir="${SETTING[RESULTS_DIR]}/$stamp-$n"
	done
	mkdir -m 0755 "$dir" "$dir/raw" "$dir/data" 2>/dev/null ||
		die "cannot create $dir (file system full or read-only?); free space there or set RESULTS_DIR to a writable folder"
	printf '%s\n' "$dir"
}

# run_provenance ENV: which kit made the run, appended to the run's ENV
# file (kit_version and kit_release, and in a source checkout kit_commit:
# results.json's "kit", the report's header), and every setting in use
# into DATA_DIR/settings.env. A run of test-ssh.sh, a load host's run and
# the target's watch record it the same way.
run_provenance () {
	local commit
	{
		printf 'kit_version=%s\nkit_release=%s\n' "$KIT_VERSION" "$KIT_RELEASE"
		commit=$(kit_commit)
		[ -z "$commit" ] || printf 'kit_commit=%s\n' "$commit"
	} >>"$1"
	helper settings -s "$SCHEMA_FILE" -f "$SETTINGS_FILE" >"$DATA_DIR/settings.env"
}
