#!/usr/bin/env bash
# Golden reports: every recorded run of tests/data/runs rendered by
# lib/render.sh must give report.md and results.json exactly as stored in
# tests/data/golden (the kit's folder written as @KIT_DIR@). A change to
# the renderer, the registry or a report section that alters a report
# shows here line by line; when the change is meant, write the new
# golden files with GOLDEN_UPDATE=1 tests/run.sh tests/t81-golden.sh and
# commit them with the change. Needs no root.
. "$(dirname "$0")/lib/harness.sh"
export LC_ALL=C.UTF-8
GOLDEN="$TEST_DIR/data/golden"

# rendered RUN FILE: FILE of the recorded RUN rendered afresh, normalised.
rendered () {
	local run=$1 file=$2
	if [ ! -f "$TEST_TMP/runs/$run/report.md" ]; then
		mkdir -p "$TEST_TMP/runs" && cp -R "$TEST_DIR/data/runs/$run" "$TEST_TMP/runs/" &&
			rm -f "$TEST_TMP/runs/$run/report.md" "$TEST_TMP/runs/$run/results.json" &&
			"$KIT_DIR/lib/render.sh" "$TEST_TMP/runs/$run" "" >/dev/null || return 1
	fi
	sed "s#$KIT_DIR#@KIT_DIR@#g" "$TEST_TMP/runs/$run/$file"
}

for dir in "$TEST_DIR"/data/runs/*/; do
	run=$(basename "$dir")
	for file in report.md results.json; do
		if [ -n "${GOLDEN_UPDATE:-}" ]; then
			mkdir -p "$GOLDEN/$run"
			rendered "$run" "$file" >"$GOLDEN/$run/$file"
		fi
		test_expect "$run: $file is the golden one" '
			[ -s "$GOLDEN/'"$run/$file"'" ] || { echo "no golden file; write it with GOLDEN_UPDATE=1"; exit 1; }
			rendered "'"$run"'" "'"$file"'" >got &&
			test_cmp "$GOLDEN/'"$run/$file"'" got
		'
	done
done

test_done
