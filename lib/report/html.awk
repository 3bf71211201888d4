# report-html.awk: the kit's markdown subset (docs/report-format.md) as one
# self-contained HTML document. Run by lib/bin/report-html.sh:
#   awk -v dir=RUN_DIR -v css=CSS_FILE -v src=NAME -v title=TITLE \
#       -f report-html.awk FILE.md
# dir: where charts/NAME.svg are read from (the run folder); css: the
# style sheet put inline; src: the file's name in messages; title: the
# document's title (its first # heading). Every line
# outside the subset is named on stderr ("FILE:LINE: ..."), and the exit
# status is then 1; the document is written all the same.
# POSIX awk only (gawk on RHEL, mawk on Debian).

function warn(msg) {
	printf "%s:%d: %s (docs/report-format.md)\n", src, NR, msg > "/dev/stderr"
	bad = 1
}

# esc S: text for HTML; an entity (&lt; &#39; ...) stays as written.
function esc(s,    out, i) {
	out = ""
	while ((i = index(s, "&")) > 0) {
		out = out substr(s, 1, i - 1)
		s = substr(s, i)
		if (match(s, /^&(#[0-9]+|#x[0-9a-fA-F]+|[a-zA-Z]+);/)) {
			out = out substr(s, 1, RLENGTH)
			s = substr(s, RLENGTH + 1)
		} else {
			out = out "&amp;"
			s = substr(s, 2)
		}
	}
	s = out s
	gsub(/</, "\\&lt;", s)
	gsub(/>/, "\\&gt;", s)
	gsub(/"/, "\\&quot;", s)
	return s
}

# href T: a link target. A relative link to a report (report.md,
# compare-*.md) goes to its HTML twin; a target with a scheme or an
# absolute path is outside the subset (the document must stand alone).
function href(t) {
	if (t ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/ || t ~ /^\//)
		warn("link to " t ": only #anchors and paths relative to the run folder")
	else if (t ~ /(^|\/)(report|compare-[^\/]*)\.md$/)
		sub(/\.md$/, ".html", t)
	return esc(t)
}

# inl S: the inline markup of a line or a cell: `code`, **bold**, *em*,
# [text](target), backslash escapes; everything else is text.
function inl(s,    out, c, j, rest, t, u) {
	out = ""
	while (s != "") {
		if (!match(s, /[\\`*\[!]/)) { out = out esc(s); break }
		out = out esc(substr(s, 1, RSTART - 1))
		s = substr(s, RSTART)
		c = substr(s, 1, 1)
		rest = substr(s, 2)
		if (c == "\\" && rest != "" && index("\\`*_[]()#+-.!|<>&", substr(rest, 1, 1))) {
			out = out esc(substr(rest, 1, 1))
			s = substr(rest, 2)
		} else if (c == "`") {
			j = index(rest, "`")
			if (j == 0) { warn("a code span without its closing backtick"); out = out "`"; s = rest; continue }
			# A long list (algorithms, paths) may break after , and /.
			t = esc(substr(rest, 1, j - 1))
			gsub(/[,\/]/, "&<wbr>", t)
			out = out "<code>" t "</code>"
			s = substr(rest, j + 1)
		} else if (substr(s, 1, 2) == "**") {
			j = index(substr(s, 3), "**")
			if (j < 2) { warn("** without its closing **"); out = out "**"; s = substr(s, 3); continue }
			out = out "<strong>" inl(substr(s, 3, j - 1)) "</strong>"
			s = substr(s, j + 4)
		} else if (c == "*") {
			# *em*: opens before a non-space, closes after one;
			# any other * is a plain star (p99*, "marked *").
			j = index(rest, "*")
			if (rest ~ /^[^ *]/ && j > 1 && substr(rest, j - 1, 1) != " ") {
				out = out "<em>" inl(substr(rest, 1, j - 1)) "</em>"
				s = substr(rest, j + 1)
			} else {
				out = out "*"
				s = rest
			}
		} else if (c == "[") {
			j = index(rest, "](")
			u = substr(rest, j + 2)
			if (j == 0 || index(u, ")") == 0) { out = out "["; s = rest; continue }
			t = substr(u, 1, index(u, ")") - 1)
			if (t ~ /[ <>]/) warn("a link target with a space or <>: " t)
			out = out "<a href=\"" href(t) "\">" inl(substr(rest, 1, j - 1)) "</a>"
			s = substr(u, index(u, ")") + 1)
		} else if (c == "!" && substr(rest, 1, 1) == "[") {
			warn("an image inside a line: a chart goes on a line of its own")
			out = out "!"
			s = rest
		} else {
			out = out esc(c)
			s = rest
		}
	}
	return out
}

# plain S: the text of a heading for its id and the title (no markup).
function plain(s) {
	gsub(/[`*]/, "", s)
	gsub(/\[|\]\([^)]*\)/, "", s)
	return s
}

function slug(s,    base, n) {
	s = tolower(plain(s))
	gsub(/[^a-z0-9]+/, "-", s)
	gsub(/^-+|-+$/, "", s)
	if (s == "") s = "section"
	base = s
	n = 1
	while (s in used) s = base "-" (++n)
	used[s] = 1
	return s
}

# mark S: the verdict words in bold get a class, for their colour.
function mark(s) {
	gsub(/<strong>PASS/, "<strong class=\"pass\">PASS", s)
	gsub(/<strong>FAIL/, "<strong class=\"fail\">FAIL", s)
	gsub(/<strong>ERROR/, "<strong class=\"warn\">ERROR", s)
	gsub(/<strong>INCONCLUSIVE/, "<strong class=\"warn\">INCONCLUSIVE", s)
	gsub(/<strong>INTERRUPTED/, "<strong class=\"warn\">INTERRUPTED", s)
	gsub(/<strong>SKIPPED/, "<strong class=\"warn\">SKIPPED", s)
	return s
}

# cells ROW ARR: the cells of a table row (| a | b |) into ARR[1..n];
# \| is a pipe inside a cell.
function cells(row, arr,    n, i) {
	gsub(/\\\|/, "\001", row)
	sub(/^\|/, "", row)
	sub(/\|[ \t]*$/, "", row)
	n = split(row, arr, "|")
	for (i = 1; i <= n; i++) {
		gsub(/\001/, "\\|", arr[i])
		sub(/^[ \t]+/, "", arr[i])
		sub(/[ \t]+$/, "", arr[i])
	}
	return n
}

function close_block() {
	if (block == "p") print "</p>"
	else if (block == "ul") print "</ul>"
	else if (block == "table") print "</tbody></table>"
	block = ""
}

# anchor_out: an anchor line not followed by a heading keeps its place.
function anchor_out() {
	if (pending_id != "") { print "<a id=\"" pending_id "\"></a>"; pending_id = "" }
}

# The title, the sign-off table and the summary (all up to the second
# ## heading) are the first page; every later ## heading opens a section
# of its own, which print starts on a new page.
function section_open() {
	print "</section>"
	print "<section class=\"part\">"
}

function chart(alt, file,    path, line, n) {
	path = dir "/" file
	n = 0
	print "<figure class=\"chart\">"
	while ((getline line < path) > 0) {
		if (line ~ /^<\?xml/ || line ~ /^<!DOCTYPE/) continue
		print line
		n++
	}
	close(path)
	if (n == 0) {
		warn("the chart " file " is not in the run folder")
		print "<p class=\"missing\">Chart " esc(file) " is missing.</p>"
	}
	print "<figcaption>" inl(alt) "</figcaption></figure>"
}

function table_start(    i, n, al, hc, any) {
	# rows[1] the header, rows[2] the delimiter.
	n = cells(trow[2], al)
	ncols = cells(trow[1], hc)
	if (n != ncols) warn("the delimiter row has " n " cells, the header " ncols)
	for (i = 1; i <= ncols; i++) {
		align[i] = ""
		if (al[i] ~ /^:-+:$/) align[i] = " class=\"c\""
		else if (al[i] ~ /^-+:$/) align[i] = " class=\"r\""
		else if (al[i] !~ /^:?-+$/) warn("a delimiter cell other than ---, :---, ---:, :---:")
	}
	any = 0
	for (i = 1; i <= ncols; i++) if (hc[i] != "") any = 1
	printf "<table%s>", any ? "" : " class=\"kv\""
	if (any) {
		printf "<thead><tr>"
		for (i = 1; i <= ncols; i++) printf "<th%s>%s</th>", align[i], mark(inl(hc[i]))
		printf "</tr></thead>"
	}
	print "<tbody>"
}

function table_row(row,    c, n, i) {
	n = cells(row, c)
	if (n != ncols) warn("a table row with " n " cells, its header has " ncols)
	printf "<tr>"
	for (i = 1; i <= ncols; i++) printf "<td%s>%s</td>", align[i], mark(inl(i in c ? c[i] : ""))
	print "</tr>"
	delete c
}

function emit_head(    line) {
	print "<!DOCTYPE html>"
	print "<html lang=\"en\">"
	print "<head>"
	print "<meta charset=\"utf-8\">"
	print "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
	print "<title>" esc(title) "</title>"
	print "<style>"
	while ((getline line < css) > 0) print line
	close(css)
	print "</style>"
	print "</head>"
	print "<body>"
	print "<section class=\"first\">"
}

BEGIN {
	block = ""; pending_id = ""; h2 = 0; bad = 0; fence = 0; ntrow = 0; det = 0; summary_next = 0
	emit_head()
}

{
	sub(/\r$/, "")
	line = $0
	if (fence) {
		if (line ~ /^```[ \t]*$/) { print "</pre>"; fence = 0; next }
		print esc(line)
		next
	}
	# A table's header and delimiter are needed before its first cell.
	if (ntrow == 1) {
		if (line ~ /^\|/) {
			trow[2] = line
			if (line !~ /^\|([ \t]*:?-+:?[ \t]*\|)+[ \t]*$/) warn("a table without its delimiter row (|---|---|) under the header")
			table_start()
			block = "table"
			ntrow = 2
			next
		}
		warn("a table of one row: a table needs a header and a delimiter row")
		ntrow = 0
	}
}

line ~ /^```[a-z]*[ \t]*$/ {
	close_block(); anchor_out()
	printf "<pre>"
	fence = 1
	next
}

line ~ /^[ \t]*$/ { close_block(); next }

line ~ /^<a id="[A-Za-z0-9_-]+"><\/a>[ \t]*$/ {
	close_block()
	anchor_out()
	pending_id = line
	sub(/^<a id="/, "", pending_id)
	sub(/".*/, "", pending_id)
	used[pending_id] = 1
	next
}

# <details> and </details>, each on a line of its own: a part the reader
# opens when wanted (the Details part of report.md: each metric's
# analysis). The heading that comes first in it is its <summary>, what
# shows while it is closed; an anchor line before <details> names that
# heading. Printing shows it open (report.css).
line ~ /^<details>[ \t]*$/ {
	close_block()
	if (det) warn("<details> inside <details>: close the first one")
	else { print "<details>"; det = 1; summary_next = 1 }
	next
}

line ~ /^<\/details>[ \t]*$/ {
	close_block(); anchor_out()
	if (!det) warn("</details> without its <details>")
	else { print "</details>"; det = 0; summary_next = 0 }
	next
}

line ~ /^##?#?#? / {
	close_block()
	level = index(line, " ") - 1
	text = substr(line, level + 2)
	if (det && level <= 2) { warn("a ## heading inside <details>: close it first"); print "</details>"; det = 0; summary_next = 0 }
	if (level == 2 && ++h2 >= 2) section_open()
	id = pending_id != "" ? pending_id : slug(text)
	pending_id = ""
	if (summary_next) printf "<summary>"
	printf "<h%d id=\"%s\">%s</h%d>", level, id, mark(inl(text)), level
	if (summary_next) printf "</summary>"
	printf "\n"
	summary_next = 0
	next
}

line ~ /^!\[[^]]*\]\(charts\/[A-Za-z0-9._-]+\.svg\)[ \t]*$/ {
	close_block(); anchor_out()
	alt = substr(line, 3, index(line, "](") - 3)
	file = substr(line, index(line, "](") + 2)
	sub(/\)[ \t]*$/, "", file)
	chart(alt, file)
	next
}

line ~ /^\|/ {
	if (block == "table") { table_row(line); next }
	close_block(); anchor_out()
	trow[1] = line
	ntrow = 1
	next
}

line ~ /^- / {
	if (block != "ul") { close_block(); anchor_out(); print "<ul>"; block = "ul" }
	print "<li>" mark(inl(substr(line, 3))) "</li>"
	next
}

{
	# Up to 3 spaces before text are still text; 4 or a tab are code.
	if (line ~ /^( ? ? ?)([\t]|    |>|[*+] |[0-9]+[.)] |---|==|<|#)/)
		warn("a line that markdown reads as something else than text: " substr(line, 1, 40))
	# Markdown would carry on the item or the table with it.
	if (block == "ul") warn("text right after a list item: a blank line must come between")
	if (block == "table") warn("text right after a table: a blank line must come between")
	if (block == "table" || block == "ul") close_block()
	if (block != "p") { anchor_out(); printf "<p>"; block = "p" } else printf "\n"
	sub(/^ +/, "", line)
	printf "%s", mark(inl(line))
}

END {
	if (ntrow == 1) warn("a table of one row at the end")
	if (fence) { print "</pre>"; warn("a code block without its closing ```") }
	close_block()
	anchor_out()
	if (det) { print "</details>"; warn("<details> without its </details> at the end") }
	print "</section>"
	print "</body>"
	print "</html>"
	exit bad
}
