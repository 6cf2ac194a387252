#!/bin/sh
# deliverable.sh — the report a consultant hands over (issue 15): the PDF of the LSI case and of
# the migration pair (pages, text extractable by pdftotext with the summary and local time on page
# one, charts drawn per pdftoppm, no path of this machine), --require-pdf without Chromium (exit 4)
# and without it (warning, HTML still written), the xlsx workbook read back (zipfile + sheet XML:
# findings and real Excel date-times), and hostile text in every new field (title, customer,
# prepared-by, an SVG logo with a script) inert in HTML, PDF and xlsx; the PDF's JSON attached
# (pdfdetach) and said, no internal path or tag in its text.
# Usage: sh tests/deliverable.sh [IOPSY-BINARY]   (Chromium and poppler-utils: make deps-test)
BIN=${1:-./iopsy}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
SRC=$(pwd)
pass=0
fail=0
skip=0
ok() { pass=$((pass + 1)); echo "ok:   $1"; }
nok() { fail=$((fail + 1)); echo "FAIL: $1"; }
skipped() { skip=$((skip + 1)); echo "skip: $1"; }
W=$(mktemp -d "${TMPDIR:-/tmp}/iopsy-deliv.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 1' INT TERM

CHROME=""
for c in chromium chromium-browser google-chrome; do
	command -v "$c" >/dev/null 2>&1 && CHROME=$c && break
done
HAVE_POPPLER=1
command -v pdftotext >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 || HAVE_POPPLER=0

# the captures are given relative to the working directory, as a consultant types them
cp -r "$SRC/samples/lsi-guest-queue-cap" "$SRC/samples/migration" "$SRC/samples/healthy" "$W/"
cd "$W" || exit 1

# ---- PDF ----
if [ -z "$CHROME" ]; then
	skipped "PDF tests: Chromium is not installed (Debian package chromium; make deps-test installs it)"
elif [ "$HAVE_POPPLER" = 0 ]; then
	skipped "PDF tests: pdftotext/pdftoppm missing (Debian package poppler-utils; make deps-test installs it)"
else
	"$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz lsi-guest-queue-cap/perfmon.csv.gz --customer "Contoso Ltd" \
		--prepared-by "Example Consulting" --pdf lsi.pdf --require-pdf --text /dev/null 2>lsi.err
	rc=$?
	pages=$(pdfinfo lsi.pdf 2>/dev/null | sed -n 's/^Pages: *//p')
	if [ $rc -eq 0 ] && [ "$(head -c 5 lsi.pdf)" = "%PDF-" ] && [ "${pages:-0}" -ge 4 ]; then
		ok "analyze --pdf: $pages pages"
	else
		nok "analyze --pdf exited $rc, ${pages:-no} pages: $(head -3 lsi.err)"
	fi
	pdftotext -f 1 -l 1 -layout lsi.pdf p1.txt 2>/dev/null
	if grep -q "Summary" p1.txt && grep -q "Recommended actions" p1.txt && grep -q "PVSCSI" p1.txt &&
		grep -q "local time" p1.txt && grep -q "Contoso Ltd" p1.txt; then
		ok "PDF page 1: summary, the PVSCSI action, local time, the customer"
	else
		nok "PDF page 1 lacks the summary or the action: $(head -c 300 p1.txt)"
	fi
	pdftotext lsi.pdf all.txt 2>/dev/null
	if ! grep -q "$W" all.txt && ! grep -q "/tmp/" all.txt; then
		ok "PDF names no absolute path of this machine"
	else
		nok "PDF shows an absolute path: $(grep -m1 -e "$W" -e /tmp/ all.txt)"
	fi
	# the PDF keeps its fixed charts: no Explore section (issue 39), nor its entry in the contents
	if ! grep -q -i -e "explore" -e "Reset zoom" -e "New chart" -e "log scale" all.txt; then
		ok "PDF: no Explore section (the HTML's interactive charts)"
	else
		nok "PDF shows the Explore section: $(grep -m1 -i -e explore -e 'Reset zoom' -e 'New chart' all.txt)"
	fi
	# issue 37: the PDF carries the analysis's JSON as a real file attachment (pdfdetach), the bytes
	# --json writes, and says so; nothing is said to be embedded in it; no internal path or tag
	"$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz lsi-guest-queue-cap/perfmon.csv.gz --json lsi.json \
		--text /dev/null 2>/dev/null
	mkdir att
	if [ "$(pdfdetach -list lsi.pdf 2>/dev/null | sed -n 's/^1: //p')" = analysis.json ] &&
		pdfdetach -saveall -o att lsi.pdf 2>/dev/null && cmp -s att/analysis.json lsi.json &&
		grep -q "attached to this PDF" all.txt && ! grep -qi "embedded" all.txt; then
		ok "PDF: the analysis JSON is attached (pdfdetach: analysis.json, the --json bytes), said, nothing 'embedded'"
	else
		nok "PDF: no attached analysis.json equal to --json, or a claim: $(pdfdetach -list lsi.pdf 2>&1 | head -2) $(grep -i -m1 -e embedded -e attached all.txt)"
	fi
	if ! grep -q -e "doc/" -e "src/" -e "\[seed\]" -e "\[vmw" -e "\[ms\]" -e "\[pal\]" -e "\[derived\]" -e "iopsy rules" all.txt; then
		ok "PDF text names no project path (doc/, src/) and no internal tag ([seed], [vmw ...])"
	else
		nok "PDF text: $(grep -m1 -e "doc/" -e "src/" -e "\[seed\]" -e "\[vmw" -e "\[ms\]" -e "\[pal\]" -e "\[derived\]" all.txt)"
	fi
	# the table of contents (issue 25): on page 1, its entries links in the PDF, the headings bookmarks
	if grep -q "Contents" p1.txt && grep -q "Evidence and charts" p1.txt && grep -q "Disks and LUNs" p1.txt &&
		grep -q "Appendix" p1.txt && grep -aq "/Outlines" lsi.pdf && [ "$(grep -ao "/Dest" lsi.pdf | wc -l)" -ge 8 ]; then
		ok "PDF: a table of contents on page 1 with links, and bookmarks"
	else
		nok "PDF: no table of contents on page 1, or no links or bookmarks in the PDF"
	fi
	# no mostly-empty page (issue 25): on every page but the last the content reaches past 55 % of
	# the page (the healthy sample had pages 2 and 7 ending at 37 % and 18 %)
	"$BIN" analyze -q healthy/esxtop.csv.gz healthy/perfmon.csv.gz --pdf healthy.pdf --require-pdf --text /dev/null 2>healthy.err
	empty=x
	for f in lsi.pdf healthy.pdf; do
		rm -f fill-*.png
		pdftoppm -r 20 -png $f fill >/dev/null 2>&1
		empty=$(python3 - fill-*.png <<'EOF'
import sys, zlib, struct
# prints the pages (but the last) whose content ends above 55 % of the page (footer band ignored)
bad = []
files = sys.argv[1:]
for k, f in enumerate(files[:-1]):
    d = open(f, 'rb').read()
    w, h, bd, ct = struct.unpack('>IIBB', d[16:26])
    i, idat = 8, b''
    while i < len(d):
        n, t = struct.unpack('>I4s', d[i:i + 8])
        if t == b'IDAT':
            idat += d[i + 8:i + 8 + n]
        i += 12 + n
    raw = zlib.decompress(idat)
    bpp = 3 if ct == 2 else 4
    stride = w * bpp + 1
    prev = bytearray(w * bpp)
    last = 0
    for y in range(h):
        ft = raw[y * stride]
        line = bytearray(raw[y * stride + 1:(y + 1) * stride])
        for x in range(len(line)):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if ft == 1: line[x] = (line[x] + a) & 255
            elif ft == 2: line[x] = (line[x] + b) & 255
            elif ft == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif ft == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if y < h * 0.93 and min(line) < 200:
            last = y
    if last < h * 0.55:
        bad.append('%d (%d%%)' % (k + 1, 100 * last // h))
print(' '.join(bad))
EOF
)
		[ -n "$empty" ] && { empty="$f: pages $empty"; break; }
	done
	rm -f fill-*.png
	if [ -z "$empty" ]; then
		ok "PDF: no mostly-empty page (lsi-guest-queue-cap, healthy)"
	else
		nok "PDF: mostly-empty pages, $empty"
	fi
	# a chart page: coloured pixels of the first series (style.gp c1) in the rendered page
	found=0
	n=1
	while [ $n -le "${pages:-0}" ] && [ $found = 0 ]; do
		if pdftotext -f $n -l $n lsi.pdf - 2>/dev/null | grep -q "Figure 1\."; then
			pdftoppm -f $n -l $n -r 50 -png lsi.pdf chart >/dev/null 2>&1
			png=$(ls chart*.png 2>/dev/null | head -1)
			if [ -n "$png" ] && python3 - "$png" <<'EOF'
import sys, zlib, struct
d = open(sys.argv[1], 'rb').read()
w, h, bd, ct = struct.unpack('>IIBB', d[16:26])
i, idat = 8, b''
while i < len(d):
    n, t = struct.unpack('>I4s', d[i:i + 8])
    if t == b'IDAT':
        idat += d[i + 8:i + 8 + n]
    i += 12 + n
raw = zlib.decompress(idat)
bpp = 3 if ct == 2 else 4
stride = w * bpp + 1
# undo the PNG filters enough to count strongly coloured (non-grey) pixels
prev = bytearray(w * bpp)
blue = 0
for y in range(h):
    f = raw[y * stride]
    line = bytearray(raw[y * stride + 1:(y + 1) * stride])
    for x in range(len(line)):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, w * bpp, bpp):
        r, g, bl = line[x], line[x + 1], line[x + 2]
        if bl > 120 and bl - r > 60:
            blue += 1
    prev = line
sys.exit(0 if blue > 200 else 1)
EOF
			then
				found=1
			fi
		fi
		n=$((n + 1))
	done
	if [ $found = 1 ]; then
		ok "PDF: the first chart is drawn (blue series pixels on its page)"
	else
		nok "PDF: no drawn chart found"
	fi
	# the compare report of the migration pair
	"$BIN" compare -q --before migration/before/esxtop.csv.gz migration/before/perfmon.csv.gz \
		--after migration/after/esxtop.csv.gz migration/after/perfmon.csv.gz --pdf mig.pdf --paper letter \
		--require-pdf --text /dev/null 2>mig.err
	rc=$?
	pdftotext -f 1 -l 1 mig.pdf m1.txt 2>/dev/null
	size=$(pdfinfo mig.pdf 2>/dev/null | sed -n 's/^Page size: *//p')
	if [ $rc -eq 0 ] && grep -q "Improved" m1.txt && grep -q "local time" m1.txt && echo "$size" | grep -q "612 x 792"; then
		ok "compare --pdf --paper letter: page 1 says Improved, in local time ($size)"
	else
		nok "compare --pdf exited $rc, page size '$size': $(head -c 300 m1.txt) $(head -3 mig.err)"
	fi
	# issue 35: the compare PDF a customer reads: at most 10 pages; page 1 the outcome with the work
	# done and "keep the change" as the first action; a repeated reason said once per table (a
	# footnote), not in every cell
	mpages=$(pdfinfo mig.pdf 2>/dev/null | sed -n 's/^Pages: *//p')
	pdftotext mig.pdf mall.txt 2>/dev/null
	reasons=$(grep -o "loads do not overlap" mall.txt | wc -l)
	first=$(grep -A2 "Recommended actions" m1.txt | tr '\n' ' ')
	if [ "${mpages:-99}" -le 10 ] && grep -q "the IO" m1.txt && echo "$first" | grep -q "Keep the change" &&
		[ "$reasons" -le 4 ]; then
		ok "compare PDF: $mpages pages, page 1 says the work done and keeps the change first; a repeated reason $reasons times"
	else
		nok "compare PDF: ${mpages:-no} pages (<= 10), first action '$first', the overlap reason $reasons times"
	fi
	# issue 37: the comparison's PDF carries its JSON as an attachment, the bytes --json writes
	"$BIN" compare -q --before migration/before/esxtop.csv.gz migration/before/perfmon.csv.gz \
		--after migration/after/esxtop.csv.gz migration/after/perfmon.csv.gz --json mig.json --text /dev/null 2>/dev/null
	mkdir matt
	if [ "$(pdfdetach -list mig.pdf 2>/dev/null | sed -n 's/^1: //p')" = comparison.json ] &&
		pdfdetach -saveall -o matt mig.pdf 2>/dev/null && cmp -s matt/comparison.json mig.json &&
		grep -q "attached to this PDF" mall.txt && ! grep -qi "embedded" mall.txt &&
		! grep -q -e "doc/" -e "src/" -e "\[seed\]" -e "\[vmw" -e "iopsy rules" -e "--json" -e "--xlsx" mall.txt; then
		ok "compare PDF: comparison.json attached (the --json bytes) and said; no 'embedded', no internal path or tag"
	else
		nok "compare PDF: no attached comparison.json equal to --json, or a claim or path: $(pdfdetach -list mig.pdf 2>&1 | head -2)"
	fi
	# --title is the PDF's Title (the HTML's <title>), as text: not its escaped form
	"$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz --title 'Q3 <review> & "more"' --pdf ti.pdf \
		--require-pdf --text /dev/null 2>ti.err
	title=$(pdfinfo ti.pdf 2>/dev/null | sed -n 's/^Title: *//p')
	if [ "$title" = 'Q3 <review> & "more"' ]; then
		ok "--title is the PDF's title metadata"
	else
		nok "PDF title metadata is '$title', not the --title: $(head -3 ti.err)"
	fi
	# every page has the running footer: the title, the report's date and "Page N of M"
	pages=$(pdfinfo ti.pdf 2>/dev/null | sed -n 's/^Pages: *//p')
	pdftotext -f 2 -l 2 ti.pdf t2.txt 2>/dev/null
	if [ -n "$pages" ] && grep -q "Page 2 of $pages" t2.txt && grep -q 'Q3 <review> & "more"' t2.txt && grep -q "UTC" t2.txt; then
		ok "PDF pages carry the running footer (title, date, page 2 of $pages)"
	else
		nok "PDF page 2 has no running footer: $(tail -5 t2.txt 2>/dev/null)"
	fi
fi

# a PDF the JSON cannot be attached to (its catalog has a name dictionary already): the PDF is made
# again from an edition that claims no attachment, and a warning says so (issue 37). The stand-in
# "Chromium" writes the HTML it was given into a minimal PDF (as a comment) with such a catalog.
if command -v python3 >/dev/null 2>&1; then
	cat >fake-chromium <<'PY'
#!/usr/bin/env python3
import sys
out = [a.split("=", 1)[1] for a in sys.argv if a.startswith("--print-to-pdf=")][0]
html = open([a for a in sys.argv if a.startswith("file://")][0][7:], "rb").read()
b = b"%PDF-1.4\n%" + html.replace(b"\n", b"\n%") + b"\n"
o1 = len(b); b += b"1 0 obj\n<</Type /Catalog /Pages 2 0 R /Names 3 0 R>>\nendobj\n"
o2 = len(b); b += b"2 0 obj\n<</Type /Pages /Kids [] /Count 0>>\nendobj\n"
o3 = len(b); b += b"3 0 obj\n<<>>\nendobj\n"
x = len(b)
b += b"xref\n0 4\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % o for o in (o1, o2, o3))
b += b"trailer\n<</Size 4 /Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % x
open(out, "wb").write(b)
PY
	chmod +x fake-chromium
	IOPSY_CHROMIUM=$W/fake-chromium "$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz --pdf fk.pdf --text /dev/null 2>fk.err
	rc=$?
	if [ $rc -eq 0 ] && [ -s fk.pdf ] && grep -q "the PDF carries no JSON" fk.err && grep -aq "Made by iopsy" fk.pdf &&
		! grep -aq "attached to this PDF" fk.pdf && ! grep -aq "EmbeddedFile" fk.pdf; then
		ok "a PDF that cannot take the JSON: made again without the claim, a warning says why"
	else
		nok "PDF without its attachment: exit $rc, claim $(grep -ac "attached to this PDF" fk.pdf) time(s): $(head -2 fk.err)"
	fi
fi

# without Chromium: a warning and the HTML, or exit 4 with --require-pdf
IOPSY_CHROMIUM=/nonexistent/chromium "$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz --html n.html --pdf n.pdf \
	--text /dev/null 2>n.err
rc=$?
if [ $rc -eq 0 ] && [ -s n.html ] && [ ! -e n.pdf ] && grep -q "warning: no PDF: Chromium was not found" n.err; then
	ok "no Chromium: HTML written, no PDF, a warning says why"
else
	nok "no Chromium: rc $rc, $(ls n.* 2>/dev/null | tr '\n' ' ') $(cat n.err)"
fi
IOPSY_CHROMIUM=/nonexistent/chromium "$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz --pdf r.pdf --require-pdf \
	--text /dev/null 2>r.err
rc=$?
if [ $rc -eq 4 ] && [ ! -e r.pdf ] && grep -q "require-pdf" r.err; then
	ok "no Chromium with --require-pdf: exit 4, no PDF"
else
	nok "no Chromium with --require-pdf: rc $rc $(cat r.err)"
fi

# ---- xlsx ----
"$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz lsi-guest-queue-cap/perfmon.csv.gz --xlsx lsi.xlsx --text /dev/null \
	2>x.err
rc=$?
if [ $rc -ne 0 ] && grep -q "without libxlsxwriter" x.err; then
	nok "xlsx: this iopsy was built without libxlsxwriter (make deps installs libxlsxwriter-dev)"
elif python3 - lsi.xlsx <<'EOF'
import re, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
wb = z.read('xl/workbook.xml').decode()
names = re.findall(r'<sheet name="([^"]+)"', wb)
need = ['Summary', 'Captures', 'Findings', 'Evidence', 'Entities', 'Series F1']
missing = [n for n in need if n not in names]
if missing:
    sys.exit('sheets missing: %s (have %s)' % (missing, names))
strings = re.findall(r'<t[^>]*>([^<]*)</t>', z.read('xl/sharedStrings.xml').decode())
if 'queue.guest_vscsi_cap' not in strings or 'guest queue at the vSCSI per-disk limit' not in strings:
    sys.exit('the findings sheet does not name the LSI finding')
sheet = names.index('Findings') + 1
x = z.read('xl/worksheets/sheet%d.xml' % sheet).decode()
# H2: the first finding's start, an Excel serial (days since 1899-12-30) with a date style
m = re.search(r'<c r="H2" s="(\d+)"[^>]*><v>([0-9.]+)</v>', x)
if not m:
    sys.exit('no start time in H2')
serial = float(m.group(2))
unix = (serial - 25569) * 86400
if abs(unix - 1785157439) > 2:  # 2026-07-27T13:03:59Z
    sys.exit('H2 is %r, not 2026-07-27 13:03:59' % serial)
styles = z.read('xl/styles.xml').decode()
if 'yyyy-mm-dd hh:mm:ss' not in styles:
    sys.exit('no date-time number format')
# local time beside it (UTC-07:00 from the perfmon header)
m = re.search(r'<c r="J2" s="\d+"[^>]*><v>([0-9.]+)</v>', x)
if not m or abs((float(m.group(1)) - serial) * 24 + 7) > 0.01:
    sys.exit('J2 is not the local time (UTC-07:00)')
EOF
then
	ok "xlsx: sheets, the LSI finding and its start as an Excel date-time (UTC and local)"
else
	nok "xlsx workbook (rc $rc): $(cat x.err)"
fi
"$BIN" compare -q --before migration/before/perfmon.csv.gz --after migration/after/perfmon.csv.gz --xlsx mig.xlsx \
	--text /dev/null 2>/dev/null
if python3 -c 'import zipfile,sys; n=zipfile.ZipFile(sys.argv[1]).read("xl/workbook.xml").decode(); sys.exit(0 if "Comparisons" in n and "Findings diff" in n else 1)' mig.xlsx 2>/dev/null; then
	ok "compare --xlsx: comparisons and findings diff"
else
	nok "compare --xlsx"
fi

# ---- hostile text in the new fields ----
# (the report's script elements: the analysis's JSON, and the Explore section's data, uPlot and
# explorer, whose two inline scripts start their lines)
EVIL='<script>alert(1)</script><img src=x onerror=alert(2)>"'"'"'`touch PWNED`$(touch PWNED)'
cat >evil.svg <<'EOF'
<svg xmlns="http://www.w3.org/2000/svg" width="40" height="20" onload="alert(4)"><script>alert(5)</script><rect width="40" height="20" fill="#1f3a5f"/></svg>
EOF
"$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz lsi-guest-queue-cap/perfmon.csv.gz --title "$EVIL" --customer "$EVIL" \
	--prepared-by "$EVIL" --logo evil.svg --html evil.html --xlsx evil.xlsx --text /dev/null 2>evil.err
rc=$?
if [ $rc -eq 0 ] && ! grep -q '<script>alert' evil.html && ! grep -q '<img src=x' evil.html &&
	grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' evil.html && [ ! -e PWNED ] &&
	[ "$(grep -c '<script' evil.html)" = 4 ] && [ "$(grep -c '<script>' evil.html)" = 2 ] &&
	grep -q '<img class="logo" alt="" src="data:image/svg+xml;base64,' evil.html; then
	ok "hostile title/customer/prepared-by escaped in HTML; the SVG logo only as an <img> data URI"
else
	nok "hostile fields in HTML (rc $rc): $(cat evil.err)"
fi
if python3 - evil.xlsx "$EVIL" <<'EOF'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
for n in z.namelist():
    d = z.read(n).decode('utf-8', 'replace')
    if '<script>' in d or '<img src' in d:
        sys.exit('raw markup in ' + n)
s = z.read('xl/sharedStrings.xml').decode()
if '&lt;script&gt;alert(1)&lt;/script&gt;' not in s:
    sys.exit('the title is not kept as text')
for n in z.namelist():
    if n.startswith('xl/worksheets/') and '<f>' in z.read(n).decode():
        sys.exit('a formula in ' + n)
EOF
then
	ok "hostile fields in xlsx: text cells, no formula"
else
	nok "hostile fields in xlsx"
fi
if [ -n "$CHROME" ] && [ "$HAVE_POPPLER" = 1 ]; then
	"$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz --title "$EVIL" --customer "$EVIL" --logo evil.svg --pdf evil.pdf \
		--require-pdf --text /dev/null 2>/dev/null
	if [ -s evil.pdf ] && pdftotext -f 1 -l 1 evil.pdf - 2>/dev/null | grep -q '<script>alert(1)</script>' && [ ! -e PWNED ]; then
		ok "hostile fields in PDF: shown as text"
	else
		nok "hostile fields in PDF"
	fi
fi
# a logo that is too large or not an image is refused before anything is written
head -c 600000 /dev/zero >big.png
"$BIN" analyze -q lsi-guest-queue-cap/esxtop.csv.gz --logo big.png --html big.html 2>big.err
rc=$?
if [ $rc -eq 2 ] && [ ! -e big.html ] && grep -q "more than 512 KiB" big.err; then
	ok "a logo over 512 KiB is refused (exit 2)"
else
	nok "big logo: rc $rc $(cat big.err)"
fi

# ---- batch: the manifest's engagement keys, report.pdf per set, attached instead of the HTML ----
mkdir -p b
cat >b/sets.ini <<EOF
[set lsi case]
files = ../lsi-guest-queue-cap/*.csv.gz
customer = $EVIL
prepared-by = Example Consulting
title = Weekly storage review
logo = ../evil.svg
EOF
"$BIN" batch b/sets.ini --out b/out --pdf --quiet --eml b/eml --mail-to ops@example.com --mail-from iopsy@example.com \
	>/dev/null 2>b.err
rc=$?
set_html=$(ls b/out/*/report.html 2>/dev/null | head -1)
if [ -n "$set_html" ] && grep -q 'Weekly storage review' "$set_html" && grep -q '&lt;script&gt;alert(1)' "$set_html" &&
	! grep -q '<script>alert' "$set_html" && ! grep -q "$W" "$set_html" && grep -q 'src="data:image/svg+xml;base64,' "$set_html"; then
	ok "batch: manifest title, customer, logo on the set's report, escaped, base names only"
else
	nok "batch: engagement keys (rc $rc): $(head -3 b.err)"
fi
if [ -n "$CHROME" ]; then
	set_pdf=$(ls b/out/*/report.pdf 2>/dev/null | head -1)
	if [ -n "$set_pdf" ] && grep -q 'Content-Type: application/pdf' b/eml/*.eml && grep -q 'report.pdf' b/eml/*.eml &&
		! grep -q 'filename="[^"]*-report.html"' b/eml/*.eml; then
		ok "batch: report.pdf per set, attached to the mail instead of the HTML"
	else
		nok "batch: no report.pdf or not attached (rc $rc): $(ls b/out/*/ 2>/dev/null | tr '\n' ' ')"
	fi
fi

echo "deliverable: $pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
