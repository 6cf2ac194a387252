#!/bin/sh
# view.sh — `iopsy view`: the page's structure (one CSP that allows no request, one JSON data
# element that JSON.parse reads, the vendored assets current), hostile names inert (no '<' of a
# name outside the JSON, none inside it either: \u003c), the downsampling keeps a 4 s stall's
# peak within --budget, dropped series said, and the CLI's conventions (exit codes, -o -, did
# you mean), and analyze --html's Explore section (its CSP, its data, --no-explore without it).
# Usage: sh tests/view.sh [IOPSY-BINARY]   (needs python3)
BIN=${1:-./iopsy}
case $BIN in /*) ;; *) BIN=$(pwd)/$BIN ;; esac
cd "$(dirname "$0")/.." || exit 2
pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok:   $1"; }
nok() { fail=$((fail + 1)); echo "FAIL: $1"; }
T=$(mktemp -d "${TMPDIR:-/tmp}/iopsy-view.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

if python3 reports/vendor/embed.py --check; then ok "reports/view_assets.c matches reports/vendor and view_app.*"
else nok "reports/view_assets.c is stale"; fi

# page FILE [EXPECT...]: the page's structure, checked by python3; prints a line of facts
page() {
	python3 - "$@" <<'PYEOF'
import base64, hashlib, json, re, sys
p = open(sys.argv[1], encoding='utf-8').read()
m = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', p)
assert m, 'no CSP'
csp = m.group(1)
assert "default-src 'none'" in csp and 'unsafe' not in csp and 'http' not in csp, csp
assert p.count('Content-Security-Policy') == 1
data = re.findall(r'<script type="application/json" id="iopsy-data">(.*?)</script>', p, re.S)
assert len(data) == 1, 'data elements: %d' % len(data)
assert '<' not in data[0], "a raw '<' inside the JSON"
d = json.loads(data[0])
# every inline script is allowed by its hash, and there is no other
scripts = re.findall(r'<script>(.*?)</script>', p, re.S)
assert len(scripts) == 2
for s in scripts:
    h = "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
    assert h in csp, 'a script not in the CSP'
styles = re.findall(r'<style>(.*?)</style>', p, re.S)
h = "'sha256-" + base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode() + "'"
assert len(styles) == 1 and h in csp, 'the style not in the CSP'
assert 'src=' not in re.sub(r'<script type="application/json".*?</script>|<script>.*?</script>', '', p, flags=re.S)
outside = p.replace(data[0], '')
names = [s['o'] + s['k'] + s['i'] for s in d['series']] + [f['title'] + f['ent'] for f in d['findings']] + \
    [c['file'] for c in d['caps']]
for n in names:
    if '<' in n and n in outside:
        raise SystemExit('a name with < outside the JSON: %r' % n)
for s in d['series']:
    c = d['caps'][s['c']]
    assert len(s['lo']) == len(c['t']) and ('hi' in s) == (c['per'] > 1)
    assert len(c['t']) <= d['buckets']
mx = max((max([v for v in s.get('hi', s['lo']) if v is not None] or [0]) for s in d['series']), default=0)
print('series=%d dropped=%d findings=%d buckets=%d per=%s max=%g' % (len(d['series']), d['dropped'],
      len(d['findings']), max(len(c['t']) for c in d['caps']), ','.join(str(c['per']) for c in d['caps']), mx))
ev = 0
for f in d['findings']:
    ev += any(s.get('m') in f['ev'] and s.get('e') == f['ent'] for s in d['series'])
print('evidence_linked=%d' % ev)
print('links=%d' % len([l for l in d['links'] if l['k'] in ('path', 'device', 'vm', 'vdisk', 'guest')]))
for n in names:
    if 'alert(1)' in n:
        print('hostile-name-kept')
PYEOF
}

# ---- a sample: structure, findings, exit 0 ----
S=samples/lsi-guest-queue-cap
if "$BIN" view -q "$S/esxtop.csv.gz" "$S/perfmon.csv.gz" -o "$T/s.html" 2>"$T/err"; then
	if f=$(page "$T/s.html") && echo "$f" | grep -q 'findings=[1-9]' && echo "$f" | grep -q 'evidence_linked=[1-9]' &&
		echo "$f" | grep -q 'links=[1-9]'; then
		ok "sample page: $(echo $f)"
	else nok "sample page: $f"; fi
else nok "view of $S: exit $? $(head -2 "$T/err")"; fi

# ---- hostile names (those of tests/hostile.sh) stay text ----
HDR='"(PDH-CSV 4.0) (UTC)(0)"'
{ printf '%s' "$HDR"
  printf ',"\\\\h</script><script>alert(1)</script>\\Physical Disk SCSI Device(naa.1)\\Average Driver MilliSec/Command"'
  printf ',"\\\\h\\Physical Disk SCSI Device(naa.1%s; system(""touch PWNED""); %s`touch PWNED`)\\Commands/sec"' "'" "'"
  printf ',"\\\\h\\LogicalDisk(</script><img src=x onerror=alert(1)>&amp;)\\Avg. Disk sec/Read"'
  printf ',"\\\\h\\Physical Disk SCSI Device(\033[2J\033]0;owned\007)\\Commands/sec",\n'
  for s in 00 05 10 15 20 25 30 35; do printf '"07/27/2026 13:10:%s","40","900","0.9","900",\n' $s; done; } >"$T/evil.csv"
if "$BIN" view -q "$T/evil.csv" --match . -o "$T/evil.html" 2>"$T/err"; then
	if f=$(page "$T/evil.html") && echo "$f" | grep -q hostile-name-kept && ! grep -q '<img' "$T/evil.html" &&
		! grep -q '<script>alert' "$T/evil.html" && ! grep -q "$(printf '\033')" "$T/evil.html"; then
		ok "hostile names inert: $(echo "$f" | head -1)"
	else nok "hostile names: $f"; fi
else nok "view of hostile names: exit $?: $(head -2 "$T/err")"; fi

# ---- a 4 s stall in an hour at 2 s survives the downsampling ----
awk 'BEGIN { printf "\"(PDH-CSV 4.0) (UTC)(0)\""
	for (c = 0; c < 20; c++) printf ",\"\\\\\\\\h\\\\LogicalDisk(D%d:)\\\\Avg. Disk sec/Transfer\"", c
	printf "\n"
	for (r = 0; r < 1800; r++) {
		s = r * 2; printf "\"07/27/2026 %02d:%02d:%02d.000\"", 13 + int(s / 3600), int(s / 60) % 60, s % 60
		for (c = 0; c < 20; c++) printf ",\"%s\"", (c == 7 && (r == 1001 || r == 1002)) ? "4.0" : "0.002"
		printf "\n" } }' >"$T/stall.csv"
if "$BIN" view -q --no-analysis "$T/stall.csv" --budget 4000 -o "$T/stall.html" 2>"$T/err"; then
	f=$(page "$T/stall.html")
	# 4000 / 2 / 20 = 100 buckets: 1800 rows merge into 57 buckets of 32 rows; the peak is 4000 ms
	if echo "$f" | grep -q 'series=20 dropped=0' && echo "$f" | grep -q 'max=4000' &&
		[ "$(echo "$f" | sed -n 's/.*buckets=\([0-9]*\).*/\1/p')" -le 100 ]; then ok "stall kept: $(echo $f)"
	else nok "stall: $f"; fi
else nok "view of the stall: exit $?"; fi
if "$BIN" view -q --no-analysis "$T/stall.csv" --budget 1280 -o "$T/drop.html" 2>"$T/err" &&
	grep -q "10 of 20 series dropped" "$T/err" && [ -n "$(page "$T/drop.html" | grep "series=10 dropped=10")" ]; then
	ok "series dropped to fit the budget are said"
else nok "dropped series: $(cat "$T/err")"; fi

# a few series keep every sample of a day at 5 s (17,280 rows fit the 32,768 buckets)
awk 'BEGIN { printf "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\\\\\h\\\\LogicalDisk(D:)\\\\Avg. Disk sec/Read\"\n"
	for (r = 0; r < 17280; r++) { s = r * 5
		printf "\"07/27/2026 %02d:%02d:%02d\",\"0.00%d\"\n", int(s / 3600), int(s / 60) % 60, s % 60, r % 9 } }' >"$T/day.csv"
if "$BIN" view -q --no-analysis "$T/day.csv" -o "$T/day.html" 2>"$T/err" && f=$(page "$T/day.html") &&
	echo "$f" | grep -q 'buckets=17280 per=1 '; then ok "a day at 5 s of one series: every sample kept"
else nok "a day of one series: $f $(cat "$T/err")"; fi

# ---- analyze --html: the Explore section, the same explorer in the report ----
# report R.html RN.html: R's section (one CSP whose script-src is the two scripts' hashes, nothing
# unsafe; the explorer's data escaped, its series and findings) and RN (--no-explore) = R without
# the section, its style, its script-src and its entry in the contents, byte for byte
report() {
	python3 - "$@" <<'PYEOF'
import base64, hashlib, json, re, sys
p, pn = open(sys.argv[1], encoding='utf-8').read(), open(sys.argv[2], encoding='utf-8').read()
csp = re.findall(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', p)
assert len(csp) == 1 and "default-src 'none'" in csp[0] and 'unsafe-eval' not in csp[0], csp
ss = re.search(r"script-src ([^;]*)", csp[0]).group(1)
assert 'unsafe' not in ss and 'http' not in ss, ss
scripts = re.findall(r'<script>(.*?)</script>', p, re.S)
assert len(scripts) == 2, len(scripts)
for s in scripts:
    h = "'sha256-" + base64.b64encode(hashlib.sha256(s.encode()).digest()).decode() + "'"
    assert h in ss.split(), 'a script not allowed by its hash'
assert len(ss.split()) == 2
vd = re.findall(r'<script type="application/json" id="iopsy-view-data">(.*?)</script>', p, re.S)
assert len(vd) == 1 and '<' not in vd[0] and len(re.findall(r'id="iopsy-data"', p)) == 1
d = json.loads(vd[0])
assert d['embed'] is True and d['series'] and d['findings'], 'no series or findings'
for s in d['series']:
    assert len(s['lo']) == len(d['caps'][s['c']]['t'])
ev = sum(any(s.get('m') in f['ev'] and s.get('e') == f['ent'] for s in d['series']) for f in d['findings'])
assert ev > 0, 'no finding has its evidence series'
assert p.count('<section id="explore">') == 1 and '<a href="#explore">' in p
cut = re.sub(r"; script-src [^;\"]*", '', p, count=1)
cut = re.sub(r'<style>[^<]*#v-root[^<]*</style>\n', '', cut, count=1)
cut = re.sub(r'<section id="explore">.*?</script>\n</section>\n', '', cut, count=1, flags=re.S)
cut = re.sub(r'<a href="#explore">Explore</a>', '', cut, count=1)
assert 'v-root' not in pn and '<script>' not in pn and 'script-src' not in pn
if cut != pn:
    import difflib
    sys.exit('--no-explore is not the report without the section: ' +
             ''.join(list(difflib.unified_diff(pn.splitlines(1), cut.splitlines(1)))[:12]))
print('series=%d findings=%d evidence_linked=%d bytes=%d no_explore_bytes=%d' % (len(d['series']),
      len(d['findings']), ev, len(p.encode()), len(pn.encode())))
PYEOF
}
export SOURCE_DATE_EPOCH=1700000000
if IOPSY_GNUPLOT=/nonexistent "$BIN" analyze -q "$S/esxtop.csv.gz" "$S/perfmon.csv.gz" --text /dev/null --html "$T/r.html" \
	2>"$T/err" && IOPSY_GNUPLOT=/nonexistent "$BIN" analyze -q --no-explore "$S/esxtop.csv.gz" "$S/perfmon.csv.gz" \
	--text /dev/null --html "$T/rn.html" 2>>"$T/err" && f=$(report "$T/r.html" "$T/rn.html"); then
	ok "analyze --html: the Explore section, its scripts allowed by hash; --no-explore leaves the rest as it is: $f"
else nok "analyze --html's Explore section: $f $(head -3 "$T/err")"; fi
unset SOURCE_DATE_EPOCH

# ---- the CLI's conventions ----
code() { "$BIN" "$@" >"$T/out" 2>"$T/err"; echo $?; }
[ "$(code view -q --no-analysis "$T/stall.csv" -o -)" = 0 ] && grep -q '^<!DOCTYPE html>' "$T/out" &&
	ok "-o - writes stdout" || nok "-o -"
[ "$(code view --buget 5 "$T/stall.csv")" = 2 ] && grep -q 'did you mean --budget' "$T/err" && ok "did you mean" ||
	nok "did you mean: $(cat "$T/err")"
[ "$(code view --budget 7 "$T/stall.csv")" = 2 ] && ok "bad --budget: exit 2" || nok "bad --budget"
[ "$(code view --match 'nothing-like-this' "$T/stall.csv" -o "$T/n.html")" = 2 ] && [ ! -e "$T/n.html" ] &&
	ok "no column matches: exit 2, no page" || nok "no match: $(cat "$T/err")"
[ "$(code view "$T/absent.csv" -o "$T/n.html")" = 3 ] && [ ! -e "$T/n.html" ] && ok "unreadable capture: exit 3" ||
	nok "unreadable: $(cat "$T/err")"
[ "$(code view -q --no-analysis "$T/stall.csv" "$T/absent.csv" -o "$T/p.html")" = 3 ] && [ -s "$T/p.html" ] &&
	ok "one unreadable capture of two: the page of the other, exit 3" || nok "partial: $(cat "$T/err")"
[ "$(code view "$T/stall.csv" -o "$T/stall.csv")" = 2 ] && ok "-o over the input: refused" || nok "-o over input"
"$BIN" view - -o "$T/stdin.html" <"$T/stall.csv" 2>"$T/err" && [ -s "$T/stdin.html" ] && grep -q 'cannot be read twice' "$T/err" &&
	ok "stdin: the page, and why it has no findings" || nok "stdin: $(cat "$T/err")"
[ "$(code view --help)" = 0 ] && grep -q -e '--budget' "$T/out" && ok "--help" || nok "--help"

echo "view: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
