#!/usr/bin/env bash
# report.html of a full run (all 14 tests, on the real test server with
# small settings and lax targets, as t57) opened by a real browser,
# Debian's chromium, headless and without a network (its own empty
# network namespace): the DOM has the 14 summary rows and the 14
# sections, every chart is an inline <svg> with something plotted, no
# element refers to anything outside the document and the run folder,
# every #anchor and every relative link resolves. A PDF printed from it
# has the sign-off block and the whole summary (its 14 rows and notes) on
# page 1, the body from page 2 on, and the Details part and each metric's
# details on pages of their own, closed on screen, printed open (pdftotext). A screenshot of the first page
# is kept: the path is printed (build/test-artifacts/t81 unless
# TEST_ARTIFACTS is set).
#
# FULL_RUN=DIR uses a copy of a stored full run instead (rendered again,
# no test server, no root); otherwise the file needs root and sshd and
# runs under the host lock like every test that starts a server.
. "$(dirname "$0")/lib/harness.sh"
. "$KIT_DIR/lib/registry.sh"

CHROMIUM=""
for c in chromium chromium-browser; do
	command -v "$c" >/dev/null 2>&1 && { CHROMIUM=$(command -v "$c"); break; }
done
if [ -z "$CHROMIUM" ]; then
	test_skip 'report.html in a headless browser' 'no chromium (apt-get install chromium; install-deps.sh --tests)'
	test_done
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1; then
	test_skip 'report.html in a headless browser' 'no python3 to read the DOM'
	test_done
	exit 0
fi
ART=${TEST_ARTIFACTS:-$KIT_DIR/build/test-artifacts}/t81
mkdir -p "$ART"
export CHROMIUM ART

if [ -n "${FULL_RUN:-}" ]; then
	RUN="$TEST_TMP/run"
	test_expect 'a copy of the stored full run renders' '
		[ -f "$FULL_RUN/data/run.env" ] &&
		cp -R "$FULL_RUN" "$RUN" && chmod -R u+w "$RUN" &&
		"$KIT_DIR/lib/bin/render.sh" "$RUN" &&
		test -s "$RUN/report.html"
	'
else
	export RESULTS_DIR="$TEST_TMP/results" STARTUP_ROUNDS=1 LOGIN_SAMPLES=3 \
		RATE_WORKERS=2 DURATION=2 RATE_STEP_SECONDS=1 BURST_STEPS="5 20" \
		CONCURRENT_SESSIONS=6 CONCURRENT_LOGIN_PARALLEL=3 SESSION_COMMANDS=10 \
		ECHO_COUNT=20 ECHO_RATE=100 TRANSFER_MB=4 CEILING_SECONDS=0.1 \
		SFTP_FILE_MB=2 SFTP_SMALL_FILES=10 RELOAD_SESSIONS=2 SHELL_SAMPLES=3 TARGET_SHELL_P95_MS=600000 \
		TARGET_STARTUP_MS=600000 TARGET_GREETING_MS=600000 TARGET_LOGIN_P95_MS=5000 \
		TARGET_AUTH_P95_MS=600000 TARGET_AUTH_GAP_MS=600000 TARGET_RATE_MIN=0 \
		TARGET_BURST_MIN=0 TARGET_MEMORY_PER_SESSION_MB=100000 TARGET_SESSION_P95_MS=600000 \
		TARGET_ECHO_P99_MS=600000 TARGET_TRANSFER_MBS=0 TARGET_SFTP_MBS=0 \
		TARGET_SFTP_FILES_PER_S=0 TARGET_CPU_MS_PER_LOGIN=1000000 TARGET_CPU_S_PER_GB=1000000 \
		TARGET_RELOAD_MS=600000
	mkdir -p "$RESULTS_DIR"
	host_kit_test 'report.html of a full run in a headless browser'
	test_atexit '"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1'
	test_expect 'a full run of all 14 tests writes report.html' '
		"$KIT_DIR/start-ssh.sh" -q &&
		rc=0; "$KIT_DIR/test-ssh.sh" -q >run.out 2>&1 || rc=$?
		cat run.out
		case $rc in 0 | 1 | 3) ;; *) echo "test-ssh.sh exit $rc"; return 1 ;; esac
		d=$(dirname "$(tail -n 1 run.out)") &&
		test -s "$d/report.html" && printf "%s\n" "$d" >"$TEST_TMP/run-dir"
	'
	RUN=$(cat "$TEST_TMP/run-dir" 2>/dev/null || echo /nonexistent)
	"$KIT_DIR/start-ssh.sh" -q cleanup >/dev/null 2>&1 || true
fi
export RUN

# browser ARGS...: chromium, headless, in an empty network namespace
# (no interface but a down loopback) when unshare works here, with its own
# profile; its console noise to browser.err.
browser () {
	local net=()
	unshare -n true 2>/dev/null && net=(unshare -n)
	timeout 120 "${net[@]}" "$CHROMIUM" --headless --no-sandbox --disable-gpu \
		--user-data-dir="$TEST_TMP/profile" --no-first-run --disable-background-networking \
		--disable-extensions --proxy-server=127.0.0.1:9 "$@" 2>>"$TEST_TMP/browser.err"
}

test_expect 'the browser reads report.html (--dump-dom)' '
	browser --dump-dom "file://$RUN/report.html" >"$TEST_TMP/dom.html" &&
	test_grep "</html>" "$TEST_TMP/dom.html"
'

# The DOM as the browser built it, read back: rows, sections, charts,
# references, anchors. A failure names what it found.
test_expect 'DOM: 14 summary rows, 14 sections, inline charts with a plot, nothing outside, anchors resolve' '
	python3 - "$TEST_TMP/dom.html" "$RUN" "$METRICS" "$(ls "$RUN"/charts/*.svg | wc -l)" <<-\EOF
	import os, re, sys
	from html.parser import HTMLParser
	dom, run, metrics, ncharts = sys.argv[1], os.path.realpath(sys.argv[2]), sys.argv[3].split(), int(sys.argv[4])
	bad = []
	class P(HTMLParser):
	    def __init__(s):
	        super().__init__(); s.ids = []; s.refs = []; s.stack = []; s.h2 = []
	        s.summary = False; s.rows = 0; s.in_tbody = False; s.svgs = []; s.cur = None; s.text = ""
	    def handle_starttag(s, tag, attrs):
	        a = dict(attrs)
	        if "id" in a: s.ids.append(a["id"])
	        for k in ("src", "href", "xlink:href", "data", "action", "poster", "srcset"):
	            if k in a: s.refs.append((tag, k, a[k]))
	        if tag in ("script", "link", "img", "iframe", "object", "embed", "base"):
	            bad.append("element <%s> %s" % (tag, a))
	        if "style" in a and "url(" in a["style"]: bad.append("style url() in <%s>" % tag)
	        if tag == "h2": s.h2.append(a.get("id", "")); s.text = ""
	        if tag == "tbody" and s.summary: s.in_tbody = True
	        if tag == "tr" and s.in_tbody: s.rows += 1
	        if tag == "svg": s.cur = {"rect": 0, "plot": 0}
	        if s.cur is not None:
	            if tag == "rect" and float(a.get("width", "0") or 0) > 0 and float(a.get("height", "0") or 0) > 0: s.cur["rect"] += 1
	            if tag in ("polyline", "circle", "path", "line") : s.cur["plot"] += 1
	    def handle_endtag(s, tag):
	        if tag == "h2": s.summary = (s.text.strip() == "Summary")
	        if tag == "tbody": s.in_tbody = False; s.summary = False
	        if tag == "svg" and s.cur is not None:
	            s.svgs.append(s.cur); s.cur = None
	    def handle_data(s, d): s.text += d
	p = P(); p.feed(open(dom, encoding="utf-8").read())
	if p.rows != 14: bad.append("summary rows: %d, not 14" % p.rows)
	missing = [m for m in metrics if m not in p.h2]
	if len(metrics) != 14 or missing: bad.append("sections: %d metrics, missing %s" % (len(metrics), missing))
	if len(p.svgs) != ncharts or ncharts == 0: bad.append("inline svg: %d, charts/*.svg: %d" % (len(p.svgs), ncharts))
	# Something plotted: a bar besides the background, or a line/point.
	for i, v in enumerate(p.svgs):
	    if v["rect"] < 2 and v["plot"] == 0: bad.append("svg %d has no plot: %s" % (i + 1, v))
	dup = sorted(set(x for x in p.ids if p.ids.count(x) > 1))
	if dup: bad.append("duplicate ids: %s" % dup)
	for tag, k, v in p.refs:
	    if v.startswith("#"):
	        if v[1:] not in p.ids: bad.append("anchor %s has no id" % v)
	        continue
	    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", v) or v.startswith("/"):
	        bad.append("<%s %s=%s> is outside the document" % (tag, k, v)); continue
	    path = os.path.realpath(os.path.join(run, v.split("#")[0]))
	    if not (path == run or path.startswith(run + os.sep)):
	        bad.append("<%s %s=%s> is outside the run folder" % (tag, k, v))
	    elif not os.path.exists(path):
	        bad.append("<%s %s=%s>: no such file in the run folder" % (tag, k, v))
	print("rows=%d sections=%d svgs=%d ids=%d refs=%d" % (p.rows, len(p.h2), len(p.svgs), len(p.ids), len(p.refs)))
	for b in bad: print(b)
	sys.exit(1 if bad else 0)
	EOF
'

if command -v pdftotext >/dev/null 2>&1; then
	test_expect 'the printed PDF: the sign-off block and the summary on page 1, the body from page 2, the Details part and each metric'"'"'s details on a page of their own, open' '
		browser --no-pdf-header-footer --print-to-pdf="$TEST_TMP/report.pdf" "file://$RUN/report.html" >/dev/null &&
		pdftotext -layout -f 1 -l 1 "$TEST_TMP/report.pdf" page1.txt &&
		for w in Verdict "What was tested" "What it is not" Kit "OpenSSH build" "Accepted by"; do
			test_grep "$w" page1.txt || return 1
		done &&
		for m in $METRICS; do
			test_grep "($m)" page1.txt || return 1
		done &&
		test_grep "also a copy here" page1.txt &&
		pdftotext "$TEST_TMP/report.pdf" all.txt &&
		# The details, closed on screen, print open: each ends with its
		# line on the raw samples.
		n=$(grep -c "^<details>\$" "$RUN/report.md") && test "$n" -gt 0 &&
		test "$(grep -cE "^(Raw samples:|No raw samples)" all.txt)" = "$n" &&
		# The first line of each page (pages are split by form feeds).
		awk "BEGIN { RS = \"\\f\" } { n = split(\$0, l, \"\\n\"); for (i = 1; i <= n; i++) if (l[i] != \"\") { print l[i]; break } }" all.txt >firsts.txt &&
		# The body reads on from page 2; the Details part and each
		# metric'"'"'s details start a page (report.css).
		first=${METRICS%% *} &&
		grep -qF "${METRIC_TITLE[$first]} ($first)" firsts.txt ||
			{ echo "the body (its first section, $first) does not start page 2; first lines of the pages:"; cat firsts.txt; return 1; }
		grep -qx "Details" firsts.txt ||
			{ echo "the Details part does not start a page; first lines of the pages:"; cat firsts.txt; return 1; }
		for m in $METRICS; do
			grep -qF "${METRIC_TITLE[$m]} ($m): details" firsts.txt ||
				{ echo "the details of $m do not start a page; first lines of the pages:"; cat firsts.txt; return 1; }
		done &&
		pages=$(grep -c . firsts.txt) && echo "# the printed report: $pages pages"
	'
else
	test_skip 'the printed PDF has every section' 'no pdftotext (poppler-utils)'
fi

test_expect 'a screenshot of the first page is kept' '
	rm -f "$ART/report-first-page.png" &&
	browser --hide-scrollbars --window-size=1000,1400 --screenshot="$ART/report-first-page.png" "file://$RUN/report.html" >/dev/null &&
	test "$(head -c 8 "$ART/report-first-page.png" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a &&
	test "$(wc -c <"$ART/report-first-page.png")" -gt 20000
'
[ ! -f "$ART/report-first-page.png" ] || printf '# screenshot of the first page: %s\n' "$ART/report-first-page.png"

test_done
