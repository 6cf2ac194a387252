#!/bin/sh
# browser.sh — renders iopsy's HTML reports in a real browser (headless Chromium): the charts are
# in the DOM and visible, the page does not overflow, nothing is logged on the console (its only
# scripts are the Explore section's, and its CSP would report any blocked fetch or script), hostile names from a capture stay
# text, the screenshot is not blank and the report prints to a multi-page PDF. `iopsy view`'s page
# (section 4) runs a script: it is driven by tests/browser/view_probe.js with the CSP in force, and so is
# the Explore section of analyze --html's report (section 5, on the report of section 1).
# Usage: sh tests/browser.sh [IOPSY-BINARY]   (needs Debian's chromium package)
BIN=${1:-./iopsy}
SRCDIR=$(cd "$(dirname "$0")/.." && pwd)
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok:   $1"; }
nok() { fail=$((fail + 1)); echo "FAIL: $1"; }
finish() {
	echo "browser: $pass passed, $fail failed"
	[ "$fail" -eq 0 ]
	exit $?
}

CHROME=""
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null 2>&1; then
		CHROME=$(command -v "$c")
		break
	fi
done
if [ -z "$CHROME" ]; then
	nok "chromium is not installed (Debian package: chromium)"
	finish
fi
if [ ! -x "$BIN" ]; then
	nok "no iopsy binary at $BIN"
	finish
fi

W=$(mktemp -d "${TMPDIR:-/tmp}/iopsy-browser.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT
trap 'exit 1' INT TERM

# chrome OUT ERR ARGS... : one headless run with a fresh profile; stdout and stderr to files.
chrome() {
	out=$1
	err=$2
	shift 2
	prof=$(mktemp -d "$W/profile.XXXXXX")
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--disable-extensions --hide-scrollbars --user-data-dir="$prof" "$@" >"$out" 2>"$err"
	rc=$?
	rm -rf "$prof"
	return $rc
}

# console_clean NAME URL: the page logs nothing on the console (errors, CSP refusals, ...).
console_clean() {
	chrome "$W/dom.out" "$W/console.err" --enable-logging=stderr --v=0 --window-size=1280,1000 --dump-dom "$2"
	if grep 'CONSOLE' "$W/console.err" >"$W/console.lines"; then
		nok "$1: console messages: $(head -3 "$W/console.lines")"
	else
		ok "$1: no console messages"
	fi
}

# probe NAME FILE: a copy of the report with its CSP removed and a measuring script appended;
# prints "charts=N visible=N overflow=0|1 tiers=N scripts=N imgs=N" from the live DOM.
probe() {
	sed -e 's/<meta http-equiv="Content-Security-Policy"[^>]*>//' "$2" >"$W/probe.html"
	cat >>"$W/probe.html" <<'EOF'
<script>
(function () {
  var figs = document.querySelectorAll('figure.chart svg'), vis = 0;
  for (var i = 0; i < figs.length; i++) {
    var r = figs[i].getBoundingClientRect(), cs = getComputedStyle(figs[i]);
    var drawn = 0, ps = figs[i].querySelectorAll('path');
    for (var k = 0; k < ps.length; k++) if ((ps[k].getAttribute('d') || '').length > 20) drawn++;
    if (r.width >= 300 && r.height >= 150 && cs.display !== 'none' && cs.visibility !== 'hidden' && drawn >= 3) vis++;
  }
  var p = document.createElement('pre');
  p.id = 'probe';
  p.textContent = 'PROBE charts=' + figs.length + ' visible=' + vis +
    ' overflow=' + (document.documentElement.scrollWidth > window.innerWidth + 1 ? 1 : 0) +
    ' tiers=' + document.querySelectorAll('.tier').length +
    ' scripts=' + (document.querySelectorAll('script').length - 1) +
    ' imgs=' + document.querySelectorAll('img').length +
    ' svgs_outside_charts=' + (document.querySelectorAll('svg').length - figs.length) + ' END';
  document.body.appendChild(p);
})();
</script>
EOF
	chrome "$W/probe.out" "$W/probe.err" --window-size=1280,1000 --dump-dom "file://$W/probe.html"
	sed -n 's/.*PROBE \(.*\) END.*/\1/p' "$W/probe.out"
}

field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p"; }

# png_ok FILE [RRGGBB]: a 1280 px wide PNG whose top 900 rows are not one flat colour (and, with
# RRGGBB, contain at least 150 pixels of that colour); python3's zlib decodes it. Without python3
# only the signature and size are checked.
png_ok() {
	if command -v python3 >/dev/null 2>&1; then
		python3 - "$1" "${2:-}" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
want = bytes.fromhex(sys.argv[2]) if sys.argv[2] else None
if d[:8] != b'\x89PNG\r\n\x1a\n':
    sys.exit('not a PNG')
w, h, depth, ctype = struct.unpack('>IIBB', d[16:26])
if depth != 8 or ctype not in (2, 6):
    sys.exit('unexpected PNG type %d/%d' % (depth, ctype))
pos, idat = 8, b''
while pos < len(d):
    n, t = struct.unpack('>I4s', d[pos:pos + 8])
    if t == b'IDAT':
        idat += d[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = 3 if ctype == 2 else 4
stride = w * bpp + 1
prev = bytearray(w * bpp)
colours, hits = set(), 0
for y in range(min(h, 900)):
    f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
    if f == 2:
        line = bytearray((x + p) & 255 for x, p in zip(line, prev))
    elif f:
        for i in range(len(line)):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            else:
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, w * bpp, bpp):
        px = bytes(line[x:x + 3])
        if y % 5 == 0:
            colours.add(px)
        if px == want:
            hits += 1
    prev = line
if w != 1280 or len(colours) < 20:
    sys.exit('blank or wrong size: %dx%d, %d colours' % (w, h, len(colours)))
if want is not None and hits < 150:
    sys.exit('only %d pixels of #%s' % (hits, sys.argv[2]))
print('%dx%d, %d colours%s' % (w, h, len(colours), ', %d chart-line pixels' % hits if want else ''))
EOF
	else
		[ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '211PNG' ] && [ "$(wc -c <"$1")" -gt 30000 ]
	fi
}

# grey_apart FILE RRGGBB RRGGBB: a greyscale PNG in which both colours' greys (CSS grayscale():
# 0.2126 R + 0.7152 G + 0.0722 B) cover at least 150 pixels each, at least 40 levels apart.
grey_apart() {
	command -v python3 >/dev/null 2>&1 || { echo "no python3"; return 0; }
	python3 - "$1" "$2" "$3" <<'EOF'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
w, h, depth, ctype = struct.unpack('>IIBB', d[16:26])
pos, idat = 8, b''
while pos < len(d):
    n, t = struct.unpack('>I4s', d[pos:pos + 8])
    if t == b'IDAT':
        idat += d[pos + 8:pos + 8 + n]
    pos += 12 + n
raw = zlib.decompress(idat)
bpp = 3 if ctype == 2 else 4
stride = w * bpp + 1
prev = bytearray(w * bpp)
def grey(hexc):
    r, g, b = bytes.fromhex(hexc)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b
levels = [grey(sys.argv[2]), grey(sys.argv[3])]
hits = [0, 0]
for y in range(h):
    f, line = raw[y * stride], bytearray(raw[y * stride + 1:(y + 1) * stride])
    for i in range(len(line)):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
        if f == 1: line[i] = (line[i] + a) & 255
        elif f == 2: line[i] = (line[i] + b) & 255
        elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    prev = line
    for x in range(0, len(line), bpp):
        r, g, b = line[x], line[x + 1], line[x + 2]
        if abs(r - g) > 3 or abs(g - b) > 3:
            continue
        for k in range(2):
            if abs(r - levels[k]) <= 4:
                hits[k] += 1
msg = 'greys %.0f and %.0f: %d and %d pixels' % (levels[0], levels[1], hits[0], hits[1])
if abs(levels[0] - levels[1]) < 40 or min(hits) < 150:
    sys.exit(msg)
print(msg)
EOF
}

# charts_only FILE OUT: a copy of a report showing only its charts section (to look at pixels).
charts_only() {
	sed -e 's#</head>#<style>header.top,nav.toc,main>section:not(\#details):not(\#charts){display:none}</style></head>#' "$1" >"$2"
}

# ---- 1. a simulated incident: the LSI Logic SAS guest queue cap ----
if "$BIN" simulate --scenario lsi-guest-queue-cap --out "$W/sim" >/dev/null 2>"$W/sim.err"; then
	ok "simulate lsi-guest-queue-cap"
else
	nok "simulate lsi-guest-queue-cap: $(cat "$W/sim.err")"
	finish
fi
"$BIN" analyze -q "$W/sim/esxtop.csv" "$W/sim/perfmon.csv" --html "$W/report.html" --require-charts \
	>/dev/null 2>"$W/an.err"
rc=$?
if [ $rc -eq 0 ] && [ -s "$W/report.html" ]; then
	ok "analyze --html --require-charts wrote the report"
else
	nok "analyze --html exited $rc: $(cat "$W/an.err")"
	finish
fi
findings=$(grep -c '<article class="finding"' "$W/report.html")
figures=$(grep -c '<figure class="chart"' "$W/report.html")

chrome "$W/dom.html" "$W/dom.err" --window-size=1280,1000 --dump-dom "file://$W/report.html"
svgs=$(grep -o '<svg' "$W/dom.html" | wc -l)
if [ "$findings" -gt 0 ] && [ "$figures" -eq "$findings" ] && [ "$svgs" -eq "$figures" ]; then
	ok "DOM: $svgs inline SVG charts for $findings findings"
else
	nok "DOM: $svgs SVGs in $figures figures for $findings findings"
fi
if grep -q '<script type="application/json" id="iopsy-data">{"schema_version":3' "$W/dom.html"; then
	ok "DOM: analysis JSON embedded"
else
	nok "DOM: no embedded analysis JSON"
fi

r=$(probe report "$W/report.html")
if [ -n "$r" ] && [ "$(field "$r" visible)" = "$(field "$r" charts)" ] && [ "$(field "$r" charts)" -eq "$figures" ]; then
	ok "charts visible: $r"
else
	nok "charts not all visible: ${r:-no probe result}"
fi
if [ "$(field "$r" overflow)" = 0 ] && [ "$(field "$r" tiers)" -ge 5 ]; then
	ok "layout: no horizontal overflow at 1280 px, IO stack drawn ($(field "$r" tiers) layers)"
else
	nok "layout: ${r:-no probe result}"
fi

console_clean report "file://$W/report.html"

chrome "$W/shot.out" "$W/shot.err" --window-size=1280,2400 --screenshot="$W/report.png" "file://$W/report.html"
if [ -s "$W/report.png" ] && msg=$(png_ok "$W/report.png"); then
	ok "screenshot rendered ($msg)"
else
	nok "screenshot blank or missing: $msg"
fi
# the first chart's lines in pixels: gnuplot's first series colour (style.gp c1 = #1f5fa8)
charts_only "$W/report.html" "$W/charts.html"
chrome "$W/cshot.out" "$W/cshot.err" --window-size=1280,1000 --screenshot="$W/charts.png" "file://$W/charts.html"
if [ -s "$W/charts.png" ] && msg=$(png_ok "$W/charts.png" 1f5fa8); then
	ok "chart lines drawn on screen ($msg)"
else
	nok "chart lines not on screen: $msg"
fi
chrome "$W/pdf.out" "$W/pdf.err" --no-pdf-header-footer --print-to-pdf="$W/report.pdf" "file://$W/report.html"
pages=$(grep -a -c '/Type /Page\b' "$W/report.pdf" 2>/dev/null)
if [ "$(head -c 5 "$W/report.pdf" 2>/dev/null)" = "%PDF-" ] && [ "${pages:-0}" -ge 3 ]; then
	ok "printed to PDF ($pages pages)"
else
	nok "PDF not written or too short (${pages:-0} pages)"
fi

# ---- 2. hostile names in the captures ----
mkdir -p "$W/evil"
# the guest's machine name and a drive, the VM's name: markup, quotes, backquotes, a command
sed -e '1s/\\\\SQL01\\/\\\\EVIL<\/script><img src=x onerror=alert(1)>""'"'"'`id`\\/g' \
	-e '1s/(D:)/(D:<\/script><script>alert(2)<\/script>`system(""touch PWNED"")`)/g' \
	"$W/sim/perfmon.csv" >"$W/evil/perfmon.csv"
sed -e '1s/SQL01/SQL01<\/script><svg onload=alert(3)>""'"'"'`$(touch PWNED)`/g' "$W/sim/esxtop.csv" >"$W/evil/esxtop.csv"
(cd "$W/evil" && "$BIN" analyze -q esxtop.csv perfmon.csv --html evil.html >/dev/null 2>evil.err)
if [ -s "$W/evil/evil.html" ] && grep -q 'EVIL&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;&quot;&#39;`id`' "$W/evil/evil.html"; then
	ok "hostile names: report written, names escaped"
else
	nok "hostile names: report missing or names not escaped"
fi
r=$(probe evil "$W/evil/evil.html")
# scripts: the analysis's JSON, and the Explore section's data, uPlot and explorer
if [ "$(field "$r" scripts)" = 4 ] && [ "$(field "$r" imgs)" = 0 ] && [ "$(field "$r" svgs_outside_charts)" = 0 ]; then
	ok "hostile names: no element injected into the DOM ($r)"
else
	nok "hostile names: injected elements: ${r:-no probe result}"
fi
chrome "$W/evil.dom" "$W/evil.err" --dump-dom "file://$W/evil/evil.html"
if grep -q 'onload=alert' "$W/evil.dom" && ! grep -q '<svg onload' "$W/evil.dom"; then
	ok "hostile names: shown as text in the rendered page"
else
	nok "hostile names: not shown as text"
fi
console_clean "hostile names" "file://$W/evil/evil.html"
if ls "$W"/evil/PWNED "$W"/PWNED PWNED >/dev/null 2>&1; then
	nok "hostile names: a command in a name was run"
else
	ok "hostile names: no command in a name was run"
fi

# ---- 3. no gnuplot ----
IOPSY_GNUPLOT=/nonexistent/gnuplot "$BIN" analyze -q "$W/sim/esxtop.csv" "$W/sim/perfmon.csv" \
	--html "$W/nogp.html" >/dev/null 2>"$W/nogp.err"
if [ $? -eq 0 ] && grep -q 'Charts are not included' "$W/nogp.html" && ! grep -q '<svg' "$W/nogp.html" &&
	grep -q 'gnuplot was not found' "$W/nogp.err"; then
	ok "without gnuplot: report without charts, and it says so"
else
	nok "without gnuplot: $(cat "$W/nogp.err")"
fi
console_clean "without gnuplot" "file://$W/nogp.html"
IOPSY_GNUPLOT=/nonexistent/gnuplot "$BIN" analyze -q "$W/sim/esxtop.csv" --html "$W/req.html" --require-charts \
	>/dev/null 2>&1
rc=$?
if [ $rc -eq 4 ] && [ ! -e "$W/req.html" ]; then
	ok "without gnuplot: --require-charts exits 4 and writes nothing"
else
	nok "without gnuplot: --require-charts exited $rc"
fi

# ---- 4. compare --html (when the compare command is built in) ----
if "$BIN" compare --help >/dev/null 2>&1 && "$BIN" compare --help 2>&1 | grep -q -- '--html'; then
	if "$BIN" simulate --scenario migration --out "$W/mig" >/dev/null 2>&1 &&
		"$BIN" compare -q --before "$W/mig/before/esxtop.csv" "$W/mig/before/perfmon.csv" \
			"$W/mig/before/vscsistats.csv" --after "$W/mig/after/esxtop.csv" "$W/mig/after/perfmon.csv" \
			"$W/mig/after/vscsistats.csv" --html "$W/cmp.html" \
			>/dev/null 2>"$W/cmp.err"; then
		ok "compare --html wrote the report"
	else
		nok "compare --html: $(cat "$W/cmp.err")"
	fi
	if [ -s "$W/cmp.html" ]; then
		cfig=$(grep -c '<figure class="chart"' "$W/cmp.html")
		r=$(probe compare "$W/cmp.html")
		if [ "$cfig" -ge 3 ] && [ "$(field "$r" visible)" = "$cfig" ] && [ "$(field "$r" overflow)" = 0 ]; then
			ok "compare: $cfig charts visible ($r)"
		else
			nok "compare: $cfig charts, probe: ${r:-none}"
		fi
		# issue 40: each side's vscsiStats drawn as bar charts among them (visible, no overflow above)
		hfig=$(grep -c '<figcaption>Figure [0-9]*\. VM SQL01 scsi0:[0-9]*: outstanding IOs when an IO' "$W/cmp.html")
		if [ "$hfig" -ge 1 ]; then
			ok "compare: $hfig vscsiStats outstanding-IO histogram chart(s)"
		else
			nok "compare: no vscsiStats histogram chart"
		fi
		console_clean compare "file://$W/cmp.html"
		chrome "$W/cshot.out" "$W/cshot.err" --window-size=1280,2400 --screenshot="$W/cmp.png" "file://$W/cmp.html"
		if [ -s "$W/cmp.png" ] && msg=$(png_ok "$W/cmp.png"); then
			ok "compare: screenshot rendered ($msg)"
		else
			nok "compare: screenshot blank or missing: $msg"
		fi
		charts_only "$W/cmp.html" "$W/cmpcharts.html"
		chrome "$W/ccshot.out" "$W/ccshot.err" --window-size=1280,1000 --screenshot="$W/cmpcharts.png" \
			"file://$W/cmpcharts.html"
		if [ -s "$W/cmpcharts.png" ] && msg=$(png_ok "$W/cmpcharts.png" 08306b); then
			ok "compare: after-side lines drawn on screen ($msg)"
		else
			nok "compare: chart lines not on screen: $msg"
		fi
		if [ -s "$W/cmpcharts.png" ] && msg=$(png_ok "$W/cmpcharts.png" d55e00); then
			ok "compare: before-side lines drawn on screen ($msg)"
		else
			nok "compare: before-side lines not on screen: $msg"
		fi
		# in greyscale (a black-and-white printer) the two sides stay two different greys
		sed -e 's#</head>#<style>html{filter:grayscale(1)}</style></head>#' "$W/cmpcharts.html" >"$W/cmpgrey.html"
		chrome "$W/cgshot.out" "$W/cgshot.err" --window-size=1280,1000 --screenshot="$W/cmpgrey.png" \
			"file://$W/cmpgrey.html"
		if [ -s "$W/cmpgrey.png" ] && msg=$(grey_apart "$W/cmpgrey.png" d55e00 08306b); then
			ok "compare: before and after apart in greyscale ($msg)"
		else
			nok "compare: before and after not apart in greyscale: $msg"
		fi
		# the report leads with the summary, whose headline is the outcome, and the verdict (its outcome
		# word) is in the first screenful; its headline repeats the summary's first sentence, and
		# a comparison with two recommended actions (the bottleneck moved down) puts it below the fold
		sed -e 's/<meta http-equiv="Content-Security-Policy"[^>]*>//' "$W/cmp.html" >"$W/cmpprobe.html"
		cat >>"$W/cmpprobe.html" <<'EOF'
<script>
(function () {
  var s = document.querySelector('main section'), o = document.querySelector('#summary .headline'),
      h = document.querySelector('#verdict .outcome'), p = document.createElement('pre');
  p.textContent = 'LEAD first=' + (s ? s.id : '') + ' outcome=' + (o ? o.textContent.split(' ')[0] : '') +
    ' bottom=' + (h ? Math.round(h.getBoundingClientRect().bottom) : -1) + ' END';
  document.body.appendChild(p);
})();
</script>
EOF
		chrome "$W/lead.out" "$W/lead.err" --window-size=1280,1000 --dump-dom "file://$W/cmpprobe.html"
		lead=$(sed -n 's/.*LEAD \(.*\) END.*/\1/p' "$W/lead.out")
		if [ "$(field "$lead" first)" = summary ] && [ "$(field "$lead" outcome)" = Improved ] &&
			[ "$(field "$lead" bottom)" -gt 0 ] && [ "$(field "$lead" bottom)" -le 1000 ]; then
			ok "compare: the report leads with the outcome, and the verdict starts in the first screenful ($lead)"
		else
			nok "compare: the outcome does not lead: ${lead:-none}"
		fi
	fi
else
	echo "skip: 'iopsy compare' has no --html option in this build"
fi

# ---- 4. iopsy view: the explorer page, with its CSP in force ----
# view_probe FILE: the page with tests/browser/view_probe.js appended and its hash added to the
# page's script-src (the CSP stays in force); prints the probe's "VIEWPROBE ... END" facts: a
# search selects counters, a leaf adds one, a drag zooms every chart, the cursor readout shows
# local time and UTC, a finding's click opens its series.
view_probe() {
	python3 - "$1" "$SRCDIR/tests/browser/view_probe.js" "$W/viewprobe.html" <<'PYEOF'
import base64, hashlib, sys
p, js = open(sys.argv[1]).read(), open(sys.argv[2]).read()
h = "'sha256-" + base64.b64encode(hashlib.sha256(js.encode()).digest()).decode() + "'"
p = p.replace("script-src ", "script-src " + h + " ", 1).replace("</body>", "<script>" + js + "</script></body>")
open(sys.argv[3], 'w').write(p)
PYEOF
	chrome "$W/vp.out" "$W/vp.err" --enable-logging=stderr --v=0 --window-size=1280,1000 \
		--virtual-time-budget=10000 --dump-dom "file://$W/viewprobe.html"
	if grep 'CONSOLE' "$W/vp.err" >"$W/vp.lines"; then
		echo "console: $(head -3 "$W/vp.lines")"
	fi
	sed -n 's/.*VIEWPROBE \([a-z].*\) END.*/\1/p' "$W/vp.out"
}
if [ -s "$W/sim/esxtop.csv" ] && "$BIN" view -q "$W/sim/esxtop.csv" "$W/sim/perfmon.csv" -o "$W/view.html" 2>"$W/view.err"; then
	console_clean "view" "file://$W/view.html"
	r=$(view_probe "$W/view.html")
	share=$(field "$r" range_share)
	case $r in
	console:*) nok "view: the probe logged: $r" ;;
	*)
		if [ "$(field "$r" matched)" -gt 0 ] && [ "$(field "$r" leaf)" = 1 ] && [ "$(field "$r" series_in_chart)" -ge 1 ] &&
			[ "$share" = 0.25 ] && echo "$(field "$r" readout)" | grep -q '^20[0-9-]*_[0-9:]*_.*|_20[0-9-]*_[0-9:]*_UTC$' &&
			[ "$(field "$r" nafter)" -gt "$(field "$r" nbefore)" ] && [ "$(field "$r" finding_series)" -ge 1 ] &&
			[ "$(field "$r" evidence)" -ge 1 ] && [ "$(field "$r" preset_charts)" = 2 ] &&
			[ "$(field "$r" iopaths)" -ge 1 ] && [ "$(field "$r" device_filter)" -ge 1 ] && [ "$(field "$r" line_px)" -ge 100 ]; then
			ok "view: search, add, drag-zoom (range x$share), readout, a finding opens its evidence, a LUN preset two charts, the IO path tree filters ($r)"
		else
			nok "view: ${r:-no probe output}"
		fi
		;;
	esac
	chrome "$W/vshot.out" "$W/vshot.err" --window-size=1280,1000 --virtual-time-budget=5000 \
		--screenshot="$W/view.png" "file://$W/view.html"
	if [ -s "$W/view.png" ] && msg=$(png_ok "$W/view.png" 0969da); then
		ok "view: screenshot with a drawn line ($msg)"
	else
		nok "view: screenshot blank or no line: $msg"
	fi
else
	nok "view: no page ($(head -2 "$W/view.err" 2>/dev/null))"
fi
if [ -s "$W/evil/esxtop.csv" ] && (cd "$W/evil" && "$BIN" view -q esxtop.csv perfmon.csv -o view.html 2>view.err); then
	console_clean "view of hostile names" "file://$W/evil/view.html"
	chrome "$W/ve.out" "$W/ve.err" --window-size=1280,1000 --virtual-time-budget=5000 --dump-dom "file://$W/evil/view.html"
	if grep -q '<img\|<svg onload\|<script>alert' "$W/ve.out" || ! grep -q 'data-ready="1"' "$W/ve.out"; then
		nok "view of hostile names: markup from a name in the live DOM, or the page did not start"
	else
		ok "view of hostile names: the live DOM has no element from a name"
	fi
else
	nok "view of hostile names: no page"
fi

# ---- 5. analyze --html's Explore section: the same explorer in the report of section 1, its CSP
#         in force (its scripts allowed by their hashes), driven by the same probe ----
if [ -s "$W/report.html" ] && grep -q '<section id="explore">' "$W/report.html"; then
	r=$(view_probe "$W/report.html")
	share=$(field "$r" range_share)
	case $r in
	console:*) nok "report's Explore section: the probe logged: $r" ;;
	*)
		if [ "$(field "$r" matched)" -gt 0 ] && [ "$(field "$r" leaf)" = 1 ] && [ "$(field "$r" series_in_chart)" -ge 1 ] &&
			[ "$share" = 0.25 ] && echo "$(field "$r" readout)" | grep -q '_UTC$' &&
			[ "$(field "$r" nafter)" -gt "$(field "$r" nbefore)" ] && [ "$(field "$r" evidence)" -ge 1 ] &&
			[ "$(field "$r" preset_charts)" = 2 ] && [ "$(field "$r" iopaths)" -ge 1 ] && [ "$(field "$r" line_px)" -ge 100 ]; then
			ok "report's Explore section: a line drawn, search, add, drag-zoom (x$share), readout, a finding opens its evidence, a LUN's IO stack ($r)"
		else
			nok "report's Explore section: ${r:-no probe output}"
		fi
		;;
	esac
else
	nok "report's Explore section: not in analyze --html's report"
fi

# keep the pictures for a person to look at
if [ -n "$IOPSY_BROWSER_KEEP" ]; then
	mkdir -p "$IOPSY_BROWSER_KEEP" && cp "$W"/*.png "$W"/*.pdf "$W"/*.html "$IOPSY_BROWSER_KEEP"/ 2>/dev/null
fi
finish
