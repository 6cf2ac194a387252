#!/bin/sh
# view.sh — `iopsy view` at size (issue 39): page size and the time headless Chromium takes to
# open the page and draw its first chart, for
#   1. a 1-hour capture at 2 s with 2,000 storage series (200 SCSI devices x 10 counters);
#   2. a 24-hour capture at 5 s (bench/gen_esxtop.c's esxtop mix, COLS columns) with the default
#      selection;
# and the library measurement: uPlot drawing 100 series x 5,000 points.
# Usage: sh bench/view.sh [IOPSY-BINARY] [COLS]   (needs python3 and chromium; about 3 minutes)
BIN=${1:-./iopsy}
COLS=${2:-2000}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
SRC=$(cd "$(dirname "$0")/.." && pwd)
CHROME=$(command -v chromium || command -v chromium-browser || command -v google-chrome) || {
	echo "view bench: chromium not found" >&2
	exit 2
}
W=$(mktemp -d "${TMPDIR:-/tmp}/iopsy-viewbench.XXXXXX") || exit 1
trap 'rm -rf "$W"' EXIT

# draw_ms PAGE: milliseconds from navigation start until the first chart is drawn (uPlot draws in a
# microtask after the page's script: a timeout after it sees the canvas drawn), with the CSP in force (the probe's hash added to it);
# median of 3 runs
draw_ms() {
	for run in 1 2 3; do
		python3 - "$1" "$W/p.html" <<'PYEOF'
import base64, hashlib, sys
p = open(sys.argv[1]).read()
js = ("setTimeout(function () {"
      "var c = document.querySelector('.chart canvas'), e = document.createElement('pre');"
      "e.textContent = 'DRAWN ' + Math.round(performance.now()) + ' canvas=' + (c ? c.width : 0) + ' END';"
      "document.body.appendChild(e); }, 0);")
h = "'sha256-" + base64.b64encode(hashlib.sha256(js.encode()).digest()).decode() + "'"
p = p.replace("script-src ", "script-src " + h + " ", 1).replace("</body>", "<script>" + js + "</script></body>")
open(sys.argv[2], 'w').write(p)
PYEOF
		prof=$(mktemp -d "$W/prof.XXXXXX")
		timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
			--window-size=1280,1000 --virtual-time-budget=30000 --dump-dom "file://$W/p.html" 2>/dev/null |
			sed -n 's/.*DRAWN \([0-9]*\) canvas=[1-9][0-9]* END.*/\1/p'
		rm -rf "$prof"
	done | sort -n | sed -n 2p
}

# facts PAGE: the series the page holds, dropped, buckets per series and rows per bucket
facts() {
	python3 - "$1" <<'PYEOF'
import json, re, sys
p = open(sys.argv[1]).read()
d = json.loads(re.search(r'id="iopsy-data">(.*?)</script>', p, re.S).group(1))
print('series: %d kept of %d matched (%d dropped), %d findings, %s buckets of %s rows' % (
    d['kept'], d['matched'], d['dropped'], len(d['findings']), '/'.join(str(len(c['t'])) for c in d['caps']),
    '/'.join(str(c['per']) for c in d['caps'])))
PYEOF
}

echo "== 1. one hour at 2 s, 2,000 storage series"
python3 - "$W/hour.csv" <<'PYEOF'
import random, sys
random.seed(39)
ctr = ['Average Driver MilliSec/Command', 'Average Kernel MilliSec/Command', 'Average Guest MilliSec/Command',
       'Average Queue MilliSec/Command', 'Active Commands', 'Queued Commands', 'Queue Depth', 'Commands/sec',
       'Reads/sec', 'MBytes Read/sec']
cols = ['"\\\\esx01\\Physical Disk SCSI Device(naa.6000%012x)\\%s"' % (d, c) for d in range(200) for c in ctr]
with open(sys.argv[1], 'w') as f:
    f.write('"(PDH-CSV 4.0) (UTC)(0)",' + ','.join(cols) + '\n')
    for r in range(1800):
        s = r * 2
        row = ['"07/27/2026 %02d:%02d:%02d"' % (13 + s // 3600, (s // 60) % 60, s % 60)]
        for d in range(200):
            stall = d == 17 and r in (900, 901)  # a 4 s stall on one LUN
            davg = 4000.0 if stall else random.uniform(1, 6)
            v = [davg, random.uniform(0, 0.5), davg + 0.3, random.uniform(0, 0.2), random.randint(0, 32),
                 random.randint(0, 4), 64, random.uniform(100, 3000), random.uniform(50, 1500), random.uniform(1, 90)]
            row += ['"%.2f"' % x for x in v]
        f.write(','.join(row) + '\n')
PYEOF
ls -l "$W/hour.csv" | awk '{printf "capture: %.1f MB\n", $5 / 1e6}'
/usr/bin/time -f "view: %e s, %M KB peak" "$BIN" view -q "$W/hour.csv" --match . -o "$W/hour.html" 2>&1 | tail -1
ls -l "$W/hour.html" | awk '{printf "page: %.2f MB\n", $5 / 1e6}'
facts "$W/hour.html"
echo "open and draw: $(draw_ms "$W/hour.html") ms"

echo "== 2. 24 hours at 5 s, $COLS esxtop columns, the default selection"
cc -std=c11 -O2 -o "$W/gen" "$SRC/bench/gen_esxtop.c" || exit 2
"$W/gen" "$COLS" 17280 39 -o "$W/day.csv"
ls -l "$W/day.csv" | awk '{printf "capture: %.1f MB\n", $5 / 1e6}'
/usr/bin/time -f "view: %e s, %M KB peak" "$BIN" view -q "$W/day.csv" -o "$W/day.html" 2>&1 | tail -2
ls -l "$W/day.html" | awk '{printf "page: %.2f MB\n", $5 / 1e6}'
facts "$W/day.html"
echo "open and draw: $(draw_ms "$W/day.html") ms"

echo "== 3. uPlot: 100 series x 5,000 points"
{
	printf '<!DOCTYPE html><html><head><meta charset="utf-8"><style>'
	cat "$SRC/reports/vendor/uplot/uPlot.min.css"
	printf '</style></head><body><div id="c"></div><script>'
	cat "$SRC/reports/vendor/uplot/uPlot.iife.min.js"
	cat <<'JSEOF'
</script><script>
var N = 5000, S = 100, x = [], d = [x], s = [{}], seed = 1;
function rnd() { seed = (seed * 16807) % 2147483647; return seed / 2147483647; }
for (var i = 0; i < N; i++) x.push(1785157200 + i * 2);
for (var k = 0; k < S; k++) {
  var y = [], v = 10;
  for (var i = 0; i < N; i++) { v += rnd() - 0.5; y.push(v); }
  d.push(y); s.push({ stroke: 'hsl(' + (k * 37 % 360) + ',70%,45%)', width: 1, points: { show: false } });
}
var t0 = performance.now();
var u = new uPlot({ width: 1200, height: 400, series: s, legend: { show: false } }, d, document.getElementById('c'));
setTimeout(function () {
  var t1 = performance.now();
  u.setScale('x', { min: x[1000], max: x[2000] });
  setTimeout(function () {
    var e = document.createElement('pre');
    e.textContent = 'DRAWN ' + Math.round(t1 - t0) + ' zoom=' + Math.round(performance.now() - t1) + ' END';
    document.body.appendChild(e);
  }, 0);
}, 0);
</script></body></html>
JSEOF
} >"$W/lib.html"
for run in 1 2 3; do
	prof=$(mktemp -d "$W/prof.XXXXXX")
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --user-data-dir="$prof" \
		--window-size=1280,1000 --virtual-time-budget=30000 --dump-dom "file://$W/lib.html" 2>/dev/null |
		sed -n 's/.*DRAWN \([0-9]*\) zoom=\([0-9]*\) END.*/\1 \2/p'
	rm -rf "$prof"
done | sort -n | sed -n 2p | awk '{print "uPlot 100 x 5,000: construct and draw " $1 " ms, a zoom redraw " $2 " ms"}'
