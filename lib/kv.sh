# shellcheck shell=bash
# The key=value readers moved into lib/data.sh, the one door to data
# files; this name stays for scripts that still source it.
# shellcheck source=lib/data.sh
. "$KIT_DIR/lib/data.sh"
