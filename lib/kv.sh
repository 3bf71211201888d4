# shellcheck shell=bash
# key=value files (data/NAME.env, run.env, environment.env): one reader.
#
#   kv_get FILE KEY      the value of KEY, the last line wins; nothing (and
#                        status 0) when the file or the key is missing.
#                        Reads the file each time: for files still written.
#   kv_set FILE KEY VAL  sets KEY: appends one line, so the last line wins
#                        for every reader (kv_get, kv_load; results.json
#                        lists a key where it first appears, with its last
#                        value).
#   kv_load FILE         reads FILE once into the cache (no process).
#   kv_load_run RUN...   kv_load of every RUN/data/*.env.
#   kv_cached FILE KEY   as kv_get, from the cache (loaded on first use):
#                        for a finished run, whose files no longer change.
#                        Load the files in the main shell before the
#                        $(...) calls, so that every subshell has them.

[ -z "${KV_SH_SOURCED:-}" ] || return 0
KV_SH_SOURCED=1

kv_get () {
	[ -f "$1" ] || return 0
	sed -n "s/^$2=//p" "$1" | tail -n 1
}

kv_set () {
	printf '%s=%s\n' "$2" "$3" >>"$1"
}

declare -gA KV_CACHE=() KV_LOADED=()

kv_load () {
	local line
	KV_LOADED[$1]=1
	[ -f "$1" ] || return 0
	while IFS= read -r line || [ -n "$line" ]; do
		case $line in *=*) KV_CACHE["$1|${line%%=*}"]=${line#*=} ;; esac
	done <"$1"
}

# kv_load_run RUN...: every data/*.env of finished runs into the cache.
kv_load_run () {
	local run f
	for run in "$@"; do
		for f in "$run"/data/*.env; do kv_load "$f"; done
	done
}

kv_cached () {
	[ -n "${KV_LOADED[$1]:-}" ] || kv_load "$1"
	[ -z "${KV_CACHE[$1|$2]+set}" ] || printf '%s\n' "${KV_CACHE[$1|$2]}"
}
