#!/bin/sh
# batch.sh — end-to-end test of `iopsy batch`: eleven simulated capture sets (one broken, one
# before/after pair, one with a hostile name), delivered to a real SMTP server on 127.0.0.1
# (Debian's python3-aiosmtpd) and parsed back with Python's email package; history over three
# runs (unchanged, then one set changed: new and resolved findings); .eml output; exit codes.
# Usage: sh tests/batch.sh BIN     Prints "batch: N passed, M failed".
# Env: BATCH_SLOW=1 when BIN is slow (valgrind, tests/valgrind.sh): time limits are 8 times as
# long, and the cases that measure memory or limit address space are left out.
set -u
# the PDF of every set would start Chromium for each of the ~100 sets below (minutes on two
# cores): these cases check the HTML path; tests/deliverable.sh checks a set's report.pdf and its
# mail attachment
IOPSY_CHROMIUM=/nonexistent/chromium
export IOPSY_CHROMIUM
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
PY=${BATCH_PYTHON:-/usr/bin/python3}
W=$(mktemp -d /tmp/iopsy-batchtest-XXXXXX)
SMTP_PID=
cleanup() { [ -n "$SMTP_PID" ] && kill "$SMTP_PID" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "batch: FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

IN=$W/in
mkdir -p "$IN"
sim() { "$BIN" simulate --scenario "$1" --out "$2" --seed "${3:-3}" --duration 600 --interval 5 --gzip >/dev/null 2>&1; }
sim healthy "$IN/01-healthy"
sim lsi-guest-queue-cap "$IN/02-lsi"
sim device-queue-overcommit "$IN/03-devq"
sim backend-saturated "$IN/04-backend"
sim adaptive-queue-depth "$IN/05-aqd"
sim dsnro-cap "$IN/06-dsnro"
sim misaligned-partition "$IN/07-align"
sim migration "$IN/08-migration"
# the healthy host without its guest: nothing found, but guest-side queueing is not seen (not clean)
sim healthy "$IN/09-hostonly"
rm -f "$IN/09-hostonly"/perfmon*
# a hostile set name: quotes, markup, a shell substitution and CR/LF trying to add a header
EVIL=$(printf 'evil"<b>$(touch %s)\r\nBcc: victim@example.org' "$W/pwned")
sim healthy "$IN/$EVIL"
# a broken set: a capture cut in its header
mkdir -p "$IN/10-broken"
printf '"(PDH-CSV 4.0) (UTC)(0)","\\\\esx01\\Physical Disk SCSI Device(naa.1)\\Commands/sec",\n"07/27/2026 13:00:00","1' >"$IN/10-broken/esxtop.csv"
printf 'this is a damaged file\0\0\0' >"$IN/10-broken/perfmon.csv"

OUT=$W/out
MBOX=$W/mbox
PORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
$PY -m aiosmtpd -n -l "127.0.0.1:$PORT" -c aiosmtpd.handlers.Mailbox "$MBOX" >"$W/smtpd.log" 2>&1 &
SMTP_PID=$!
i=0
while ! $PY -c "import socket; socket.create_connection(('127.0.0.1',$PORT),1)" 2>/dev/null; do
	i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.2
done

"$BIN" batch "$IN" --out "$OUT" -j 2 --smtp "smtp://127.0.0.1:$PORT" --mail-to ops@example.com,dba@example.com \
	--mail-from iopsy@example.com --subject "Weekly storage" 2>"$W/run1.err"
rc=$?
check "first run exits 3 (a set failed), got $rc" '[ $rc -eq 3 ]'
check "index.html written" '[ -s "$OUT/index.html" ]'
check "summary.json written" '[ -s "$OUT/summary.json" ]'
check "eleven set folders" '[ $(find "$OUT" -mindepth 1 -maxdepth 1 -type d ! -name mail | wc -l) -eq 11 ]'
check "no pwned file (no shell ever saw a set name)" '[ ! -e "$W/pwned" ]'
check "no temporary files left" '[ -z "$(find "$OUT" -name "*.tmp.*")" ]'
$PY - "$OUT" <<'PYEOF' || bad "summary/index content"
import json, sys, os, sqlite3
out = sys.argv[1]
s = json.load(open(os.path.join(out, "summary.json")))
sets = {x["dir"]: x for x in s["sets"]}
assert s["schema_version"] == 1 and len(sets) == 11, sets.keys()
assert sets["10-broken"]["status"] == "failed" and sets["10-broken"]["error"], sets["10-broken"]
assert s["sets"][0]["state"] == "failed", "failed sets come first"
assert sets["08-migration"]["kind"] == "compare"
# issue 24: a before/after set carries its comparison's outcome and headline; an analysis none
assert sets["08-migration"]["outcome"] == "improved", sets["08-migration"]
assert sets["08-migration"]["headline"].startswith("Improved: "), sets["08-migration"]["headline"]
assert sets["02-lsi"]["outcome"] is None and sets["02-lsi"]["headline"] is None
assert any(f["kind"] == "queue.guest_vscsi_cap" for f in sets["02-lsi"]["top_findings"])
assert sets["01-healthy"]["state"] == "clean" and sets["01-healthy"]["not_assessed"] is None
assert sets["09-hostonly"]["state"] == "incomplete", sets["09-hostonly"]
assert sets["09-hostonly"]["findings"] == 0 and "guest" in sets["09-hostonly"]["not_assessed"]
evil = [x for x in s["sets"] if x["name"].startswith("evil")][0]
assert "/" not in evil["dir"] and "\n" not in evil["dir"] and "\r" not in evil["dir"], evil["dir"]
for x in s["sets"]:
    if x["status"] != "failed":
        for f in ("report_html", "report_json"):
            assert os.path.getsize(os.path.join(out, x[f])) > 0, x[f]
        json.load(open(os.path.join(out, x["report_json"])))
# issue 40: the vscsiStats file beside the captures is found by the formats' probes and read with
# its set: the LSI set's analysis and the migration's comparison have their histograms
for k in ("02-lsi", "08-migration"):
    r = json.load(open(os.path.join(out, sets[k]["report_json"])))
    assert r.get("vscsi_histograms"), (k, sorted(r.keys()))
mig = json.load(open(os.path.join(out, sets["08-migration"]["report_json"])))
assert "took effect" in json.dumps(mig["vscsi_histograms"]), mig["vscsi_histograms"][:2]
idx = open(os.path.join(out, "index.html"), encoding="utf-8").read()
assert "10-broken" in idx or "10-broken".replace("-", "&#45;") in idx
assert "<b>" not in idx and "$(touch" in idx.replace("&#36;", "$"), "hostile name escaped"
db = sqlite3.connect(os.path.join(out, "history.sqlite"))
assert db.execute("PRAGMA user_version").fetchone()[0] == 6
assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
assert db.execute("SELECT COUNT(*) FROM sets").fetchone()[0] == 11
assert db.execute("SELECT COUNT(*) FROM stats").fetchone()[0] > 10
assert db.execute("SELECT COUNT(*) FROM findings WHERE set_key='02-lsi'").fetchone()[0] >= 1
assert db.execute("SELECT outcome FROM sets WHERE key='08-migration'").fetchone()[0] == "improved"
assert db.execute("SELECT outcome FROM sets WHERE key='02-lsi'").fetchone()[0] is None
import re
row = [r for r in idx.split("<tr>") if "08-migration" in r][0]
assert re.search(r'background:#15803d">improved</span>', row), row[:600]
PYEOF
ok
# the mail that arrived
i=0
while [ -z "$(ls "$MBOX/new" 2>/dev/null)" ] && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.2; done
$PY - "$MBOX" <<'PYEOF' || bad "mail content"
import mailbox, sys, email.policy
msgs = [m for m in mailbox.Maildir(sys.argv[1], factory=None, create=False)]
assert len(msgs) == 1, len(msgs)
raw = msgs[0].as_bytes()
m = email.message_from_bytes(raw, policy=email.policy.default)
assert m["Subject"].startswith("Weekly storage: 11 sets"), m["Subject"]
assert "Bcc" not in m and m["To"] == "ops@example.com, dba@example.com", (m["To"], m.get("Bcc"))
assert m.get_content_type() == "multipart/mixed"
related = m.get_payload()[0]
assert related.get_content_type() == "multipart/related"
alt = related.get_payload()[0]
assert [p.get_content_type() for p in alt.get_payload()] == ["text/plain", "text/html"]
html = alt.get_payload()[1].get_content()
text = alt.get_payload()[0].get_content()
assert "10-broken" in text or "broken" in text
images = {p["Content-ID"].strip("<>"): p for p in related.get_payload()[1:]}
import re
cids = re.findall(r'src="cid:([^"]+)"', html)
for c in cids:
    assert c in images and images[c].get_content_type() == "image/png" and images[c].get_content()[:4] == b"\x89PNG", c
atts = [p for p in m.iter_attachments()]
names = sorted(p.get_filename() for p in atts)
assert len(names) == 10 and all(n.endswith("-report.html") for n in names), names
assert all(p.get_content().lstrip().lower().startswith("<!doctype html") for p in atts)
print("mail: %d inline chart(s), %d attachment(s)" % (len(cids), len(names)))
PYEOF
ok

# second run over the same input: unchanged since last run
"$BIN" batch "$IN" --out "$OUT" -j 2 --eml "$W/eml" --mail-to ops@example.com 2>"$W/run2.err"
rc=$?
check "second run exits 3 again, got $rc" '[ $rc -eq 3 ]'
check "eml written instead of sending" '[ -s "$W/eml/index.eml" ]'
$PY - "$OUT" <<'PYEOF' || bad "unchanged trend"
import json, sys, os, sqlite3
out = sys.argv[1]
s = json.load(open(os.path.join(out, "summary.json")))
sets = {x["dir"]: x for x in s["sets"]}
t = sets["02-lsi"]["trend"]
assert t["previous_run"] and t["new"] == 0 and t["resolved"] == 0 and t["still_present"] >= 1, t
r = json.load(open(os.path.join(out, "02-lsi", "report.json")))
assert all(f["trend"] == "unchanged" for f in r["trend"]["figures"]), [f for f in r["trend"]["figures"] if f["trend"] != "unchanged"]
assert "unchanged since last run" in open(os.path.join(out, "index.html")).read()
db = sqlite3.connect(os.path.join(out, "history.sqlite"))
assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 2
PYEOF
ok

# third run: set 02 is now the PVSCSI day (its guest findings are resolved) and set 01 has
# become a device-queue over-commit (new findings); delivered through a sendmail-like program
rm -rf "$IN/02-lsi" "$IN/01-healthy"
sim pvscsi-after "$IN/02-lsi"
sim device-queue-overcommit "$IN/01-healthy"
cat >"$W/fake-sendmail" <<'SHEOF'
#!/bin/sh
printf '%s\n' "$@" >"$FAKE_SENDMAIL_OUT.args"
cat >"$FAKE_SENDMAIL_OUT.msg"
SHEOF
chmod +x "$W/fake-sendmail"
FAKE_SENDMAIL_OUT=$W/sent "$BIN" batch "$IN" --out "$OUT" -j 2 --quiet --sendmail "$W/fake-sendmail -oi" \
	--mail-to ops@example.com 2>"$W/run3.err"
check "sendmail got the recipient as an argument" 'grep -qx "ops@example.com" "$W/sent.args" && grep -qx -- "-oi" "$W/sent.args"'
check "sendmail got the message on stdin" 'grep -q "^Content-Type: multipart/mixed" "$W/sent.msg"'
$PY - "$OUT" <<'PYEOF' || bad "changed set trend"
import json, sys, os
out = sys.argv[1]
s = json.load(open(os.path.join(out, "summary.json")))
sets = {x["dir"]: x for x in s["sets"]}
t = sets["02-lsi"]["trend"]
assert t["resolved"] >= 1 and t["still_present"] == 0, t
txt = open(os.path.join(out, "02-lsi", "report.txt")).read()
assert "resolved: queue.guest_vscsi_cap" in txt, txt[-800:]
t1 = sets["01-healthy"]["trend"]
assert t1["new"] >= 1, t1
assert "new: queue.device_saturated" in open(os.path.join(out, "01-healthy", "report.txt")).read()
assert "(new)" in open(os.path.join(out, "index.html")).read()
PYEOF
ok
"$BIN" history --db "$OUT/history.sqlite" --set 02-lsi >"$W/hist.txt" 2>&1
check "history lists three runs of the set" '[ $(grep -c " 02-lsi " "$W/hist.txt") -eq 3 ]'

# issue 35: a set that only partly loaded is counted "1 partial" in the mail subject, not "0
# failed"; the next run, with the set whole, says its state changed (partial -> ...) in the
# summary, the index and the mail's plain-text part, not "unchanged"
P=$W/partial
mkdir -p "$P/in/sql"
cp "$IN/02-lsi/perfmon.csv.gz" "$P/in/sql/"
printf '"(PDH-CSV 4.0) (UTC)(0)","\\\\esx01\\Physical Disk SCSI Device(naa.1)\\Commands/sec",\n"07/27/2026 13:00:00","1' >"$P/in/sql/esxtop.csv"
"$BIN" batch "$P/in" --out "$P/out" --quiet --eml "$P/eml1" --mail-to ops@example.com 2>"$P/err1"
subj=$(grep -m1 "^Subject:" "$P/eml1/index.eml")
check "a partial set is counted in the subject: $subj" 'echo "$subj" | grep -q "1 partial" && ! echo "$subj" | grep -q "0 failed"'
rm "$P/in/sql/esxtop.csv"
cp "$IN/02-lsi/esxtop.csv.gz" "$P/in/sql/"
"$BIN" batch "$P/in" --out "$P/out" --quiet --eml "$P/eml2" --mail-to ops@example.com 2>"$P/err2"
$PY - "$P/out" "$P/eml2/index.eml" <<'PYEOF' || bad "state change in the trend"
import json, sys, os, email, email.policy
out = sys.argv[1]
s = json.load(open(os.path.join(out, "summary.json")))
t = s["sets"][0]["trend"]
assert t["state_was"] == "partial" and t["state_now"] not in (None, "partial"), t
idx = open(os.path.join(out, "index.html")).read()
assert "state partial &rarr; " in idx and "unchanged since last run" not in idx, idx[-1500:]
m = email.message_from_bytes(open(sys.argv[2], "rb").read(), policy=email.policy.default)
text = [p for p in m.walk() if p.get_content_type() == "text/plain"][0].get_content()
assert "trend: " in text and "state partial -> " + t["state_now"] in text, text
assert "state: partial -> " in open(os.path.join(out, "sql", "report.txt")).read()
PYEOF
ok

# a failing SMTP server: the message is kept as .eml, the reports are not lost
"$BIN" batch "$IN" --out "$W/out2" -j 2 --quiet --smtp "smtp://127.0.0.1:1" --mail-to ops@example.com 2>"$W/run4.err"
rc=$?
check "undeliverable mail exits 4, got $rc" '[ $rc -eq 4 ]'
check "undeliverable mail kept" '[ -s "$W/out2/mail/index.eml" ] && [ -s "$W/out2/index.html" ]'
check "delivery failure reported" 'grep -q "mail not delivered" "$W/run4.err"'

# usage errors
"$BIN" batch "$IN" 2>/dev/null; rc=$?
check "missing --out is a usage error" '[ $rc -eq 2 ]'
"$BIN" batch "$IN" --out "$W/o3" --mail-to 'x@y.z
Bcc: v@w' 2>/dev/null; rc=$?
check "an address with CR/LF is refused" '[ $rc -eq 2 ]'

# ======== issue 14: never a stale result, never a hang, bounded ========
# Each case below failed on the batch before that issue; the figures quoted are in doc/limits.md.
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR"
ASAN=$(ldd "$BIN" 2>/dev/null | grep -c libasan)
SLOW=${BATCH_SLOW:-0}
[ "$SLOW" = 1 ] && ASAN=1 # (no ulimit -v, no RSS figures either)
F=1; [ "$SLOW" = 1 ] && F=8 # time limits scale
sim healthy "$W/c-clean"
CRIT=$IN/03-devq
no_scratch() { [ -z "$(ls -A "$TMPDIR")" ]; }
# none of the pids in FILE still runs (a killed orphan may stay a zombie until its new parent
# reaps it: that counts as gone)
running() { _st=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$_st" ] && [ "${_st#Z}" = "$_st" ]; }
all_gone() {
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		_left=0
		for _p in $(cat "$1"); do running "$_p" && _left=$((_left + 1)); done
		[ $_left -eq 0 ] && return 0
		sleep 0.2
	done
	return 1
}
summary() { # OUT SETDIR FIELD: a field of one set in OUT/summary.json
	$PY -c 'import json,sys; s=json.load(open(sys.argv[1]+"/summary.json")); x=[x for x in s["sets"] if x["dir"]==sys.argv[2]][0]; print(x[sys.argv[3]])' "$1" "$2" "$3" 2>/dev/null
}

# -- a worker that dies before its result (out of memory under ulimit -v) fails its set: last
#    run's result in the folder is not reported as this run's
if [ "$ASAN" = 0 ]; then
	S=$W/stale
	mkdir -p "$S/in/sql"
	cp "$CRIT"/* "$S/in/sql/"
	"$BIN" batch "$S/in" --out "$S/out" -j 1 --quiet 2>/dev/null
	n1=$(summary "$S/out" sql findings)
	# 4,000 devices need ~90 MB to analyse; the parent fits in 50 MB of address space, the worker not
	awk 'BEGIN { n = 4000; printf "\"(PDH-CSV 4.0) (UTC)(0)\""
		for (i = 0; i < n; i++) printf ",\"\\\\esx01\\Physical Disk SCSI Device(naa.%08d)\\Commands/sec\",\"\\\\esx01\\Physical Disk SCSI Device(naa.%08d)\\Average Driver MilliSec/Command\"", i, i
		printf "\n"; for (r = 0; r < 6; r++) { printf "\"07/27/2026 13:10:%02d\"", r * 5; for (i = 0; i < n; i++) printf ",\"900\",\"40\""; printf "\n" } }' >"$S/in/sql/big.csv"
	(ulimit -v 50000; exec "$BIN" batch "$S/in" --out "$S/out" -j 1 --quiet) 2>"$S/err"
	rc=$?
	check "a worker out of memory fails its set (exit 4), got $rc; last run had $n1 findings: $(head -c 300 "$S/err")" '[ $rc -eq 4 ]'
	check "...its status is failed, not last run's" '[ "$(summary "$S/out" sql status)" = failed ]'
	check "...and the history records it failed" '[ "$(sqlite3 "$S/out/history.sqlite" "SELECT status FROM sets ORDER BY run_id DESC LIMIT 1")" = failed ]'
else
	echo "batch: note: ulimit -v cannot run under ASan; the stale-result case is covered by check_batch.c"
fi

# -- a clean set with its own recipients (no chart.png): deliver() freed an uninitialised pointer
#    (ASan and valgrind see it; the run must also just work)
S=$W/nochart
mkdir -p "$S/caps"
cp "$W/c-clean"/* "$S/caps/"
printf '[set clean one]\nfiles = caps/*\nmail-to = dba@example.com\n[set broken]\nfiles = nothing-*.csv\nmail-to = ops@example.com\n' >"$S/manifest"
"$BIN" batch "$S/manifest" --out "$S/out" --eml "$S/eml" --quiet 2>"$S/err"
rc=$?
check "per-set mail of a set without chart.png: exit 3 (a set failed), got $rc: $(head -c 300 "$S/err")" '[ $rc -eq 3 ]'
check "...both messages written" '[ -s "$S/eml/set-clean_one.eml" ] && [ -s "$S/eml/set-broken.eml" ]'

# -- a --sendmail that never reads its input, or never exits: the run gives up at the mail
#    deadline and keeps the .eml
S=$W/stuck
mkdir -p "$S/in"
cp -r "$CRIT" "$S/in/crit"
printf '#!/bin/sh\necho $$ >>"%s"\nexec sleep 600\n' "$S/pids" >"$S/noread"
printf '#!/bin/sh\necho $$ >>"%s"\ncat >/dev/null\nexec sleep 600\n' "$S/pids" >"$S/noexit"
chmod +x "$S/noread" "$S/noexit"
for prog in noread noexit; do
	t0=$(date +%s)
	timeout 120 "$BIN" batch "$S/in" --out "$S/out-$prog" --quiet --sendmail "$S/$prog" --mail-to ops@example.com \
		--mail-timeout 4 2>"$S/$prog.err"
	rc=$? secs=$(($(date +%s) - t0))
	check "a sendmail that $prog: exit 4 within the deadline, got $rc after $secs s: $(head -c 300 "$S/$prog.err")" \
		'[ $rc -eq 4 ] && [ $secs -le $((15 * F)) ]'
	check "...the message is kept" '[ -s "$S/out-$prog/mail/index.eml" ] && grep -q "mail not delivered" "$S/$prog.err"'
done
check "...and no sendmail is left running" '[ "$(wc -l <"$S/pids")" -eq 2 ] && all_gone "$S/pids"'

# -- option injection: a recipient starting with '-' is refused (command line and manifest), and
#    the recipients follow "--" in sendmail's argv; --mail-from is always checked
"$BIN" batch "$S/in" --out "$W/o4" --mail-to '-oQ/tmp/x@example.com' 2>"$W/inj.err"; rc=$?
check "a recipient starting with '-' is refused, got $rc" '[ $rc -eq 2 ]'
S=$W/inject
mkdir -p "$S/caps"
cp "$W/c-clean"/* "$S/caps/"
printf '[set one]\nfiles = caps/*\nmail-to = -X/tmp/iopsy-injected@example.com, dba@example.com\n' >"$S/manifest"
FAKE_SENDMAIL_OUT=$S/sent "$BIN" batch "$S/manifest" --out "$S/out" --quiet --sendmail "$W/fake-sendmail -oi" 2>"$S/err"
check "a manifest recipient starting with '-' is ignored with a message" 'grep -q "not a plain mail address" "$S/err" && ! grep -q -- "-X/tmp" "$S/sent.args"'
check "...'--' comes before the recipients: $(tr '\n' ' ' <"$S/sent.args")" '[ "$(tr "\n" " " <"$S/sent.args")" = "-oi -- dba@example.com " ]'
FAKE_SENDMAIL_OUT=$S/sent2 "$BIN" batch "$S/manifest" --out "$S/out2" --quiet --sendmail "$W/fake-sendmail" --mail-from 'a@b.c
Bcc: victim@example.org' 2>/dev/null; rc=$?
check "--mail-from with CR/LF is refused when recipients come from a manifest only, got $rc" '[ $rc -eq 2 ] && [ ! -e "$S/sent2.msg" ]'

# -- two sets of the same name (a folder sql01/ and a loose sql01.csv; [set X] twice): both are
#    recorded, keyed by their unique folder names
S=$W/dup
mkdir -p "$S/in/sql01"
cp "$W/c-clean"/* "$S/in/sql01/"
cp "$W/c-clean/esxtop.csv.gz" "$S/in/sql01.csv.gz"
"$BIN" batch "$S/in" --out "$S/out" --quiet 2>"$S/err"
check "a folder and a loose file of the same name are both recorded: $(head -c 300 "$S/err")" \
	'[ "$(sqlite3 "$S/out/history.sqlite" "SELECT group_concat(key, \" \") FROM (SELECT key FROM sets ORDER BY key)")" = "sql01 sql01-65362f84" ]'
printf '[set X]\nfiles = in/sql01/*\nno-explore = yes\n[set X]\nfiles = in/sql01.csv.gz\n' >"$S/manifest"
"$BIN" batch "$S/manifest" --out "$S/mout" --quiet 2>"$S/merr"
check "[set X] twice: both recorded" '[ "$(sqlite3 "$S/mout/history.sqlite" "SELECT COUNT(*) FROM sets")" = 2 ]'
check "the manifest's no-explore = yes: that set's report.html has no Explore section, the other's has it" \
	'! grep -q "<section id=\"explore\">" "$S/mout/X/report.html" && grep -q "id=\"iopsy-data\"" "$S/mout/X/report.html" &&
	grep -q "<section id=\"explore\">" "$S"/mout/X-*/report.html'

# -- customer folders named index.html and summary.json cannot block the run's index and summary
S=$W/names
mkdir -p "$S/in/index.html" "$S/in/summary.json"
cp "$W/c-clean"/* "$S/in/index.html/"
cp "$W/c-clean"/* "$S/in/summary.json/"
"$BIN" batch "$S/in" --out "$S/out" --quiet 2>"$S/err"; rc=$?
check "sets named index.html and summary.json: exit 0, got $rc: $(head -c 300 "$S/err")" '[ $rc -eq 0 ]'
check "...the index and summary are files, the sets elsewhere" '[ -f "$S/out/index.html" ] && $PY -c "import json,sys; s=json.load(open(sys.argv[1])); assert sorted(x[\"dir\"] for x in s[\"sets\"]) == [\"index.html-2\", \"summary.json-2\"]" "$S/out/summary.json"'

# -- rerun into the same --out: last run's chart.png and report.html do not stay for a set that
#    is now failed, and are not mailed
S=$W/rerun
mkdir -p "$S/in/sql"
cp "$CRIT"/* "$S/in/sql/"
"$BIN" batch "$S/in" --out "$S/out" --quiet 2>/dev/null
had=$(ls "$S/out/sql")
rm "$S/in/sql"/*
printf 'this is not a capture\0\0' >"$S/in/sql/esxtop.csv"
"$BIN" batch "$S/in" --out "$S/out" --quiet --eml "$S/eml" --mail-to ops@example.com 2>/dev/null
check "a set now failed keeps no chart.png or report.html of last run (had: $(echo $had))" \
	'[ ! -e "$S/out/sql/chart.png" ] && [ ! -e "$S/out/sql/report.html" ] && [ ! -e "$S/out/sql/report.json" ]'
check "...and the mail attaches neither" '! grep -q "sql-report.html" "$S/eml/index.eml" && ! grep -q "image/png" "$S/eml/index.eml"'
check "...and the summary links no report" '[ "$(summary "$S/out" sql report_html)" = None ]'

# -- a report that cannot be written is a system error (exit 4), not a failed set (3)
S=$W/unwritable
mkdir -p "$S/in/sql" "$S/out/sql/report.html"
cp "$W/c-clean"/* "$S/in/sql/"
"$BIN" batch "$S/in" --out "$S/out" --quiet 2>"$S/err"; rc=$?
check "a report that cannot be written exits 4, got $rc" '[ $rc -eq 4 ] && grep -q "report.html" "$S/err"'

# -- FIFOs and device files in a set folder are listed as not used (and never opened)
S=$W/fifo
mkdir -p "$S/in/sql"
cp "$W/c-clean"/* "$S/in/sql/"
mkfifo "$S/in/sql/pipe.csv"
ln -s /dev/zero "$S/in/sql/zero.csv"
printf '[set m]\nfiles = in/sql/*\n' >"$S/manifest"
timeout 60 "$BIN" batch "$S/in" --out "$S/out" --quiet 2>"$S/err"; rc=$?
timeout 60 "$BIN" batch "$S/manifest" --out "$S/mout" --quiet 2>"$S/merr"; rc2=$?
check "a FIFO and a device in a set: run ends, exit 0/0, got $rc/$rc2" '[ $rc -eq 0 ] && [ $rc2 -eq 0 ]'
check "...both listed as not used" 'grep -q "not used: pipe.csv (a FIFO" "$S/out/index.html" && grep -q "not used: zero.csv (a character device" "$S/out/index.html" && grep -q "not used: pipe.csv" "$S/mout/index.html"'

# -- escape codes and invalid UTF-8 from file names never reach the terminal raw
S=$W/esc
mkdir -p "$S/in/$(printf 'evil\033[2J\377')"
printf 'not a capture\0\0' >"$S/in/$(printf 'evil\033[2J\377')/$(printf 'x\033]0;owned\007\376.csv')"
cp "$W/c-clean/esxtop.csv.gz" "$S/in/$(printf 'evil\033[2J\377')/"
printf '[set e]\nfiles = in/*/*.gz\n%s = 1\n' "$(printf 'k\033[31m')" >"$S/manifest"
"$BIN" batch "$S/in" --out "$S/out" 2>"$S/err"
"$BIN" batch "$S/manifest" --out "$S/mout" 2>>"$S/err"
check "no raw escape or invalid byte on stderr" '[ -s "$S/err" ] && [ "$(tr -d "\033\007\377\376" <"$S/err" | wc -c)" = "$(wc -c <"$S/err")" ]'

# -- history errors are said once, not once per set and again for every set before it
S=$W/histerr
"$BIN" batch "$IN" --out "$S" -j 2 --quiet 2>/dev/null
sqlite3 "$S/history.sqlite" 'DROP TABLE stats'
"$BIN" batch "$IN" --out "$S" -j 2 --quiet 2>"$W/histerr.err"
n=$(grep -c 'no such table' "$W/histerr.err")
check "a broken history is reported once per kind of failure, not per set ($n lines)" '[ $n -ge 1 ] && [ $n -le 2 ]'

# -- credentials over a plain smtp:// URL without STARTTLS are warned about
IOPSY_SMTP_USER=u IOPSY_SMTP_PASSWORD=p "$BIN" batch "$W/dup/in" --out "$W/cred" --quiet --smtp "smtp://127.0.0.1:$PORT" \
	--mail-to ops@example.com 2>"$W/cred.err"
check "credentials over plain smtp:// are warned about" 'grep -q "warning: IOPSY_SMTP_USER is set" "$W/cred.err"'

# -- an SMTP server that never answers the final dot: every message of the run is given up at one
#    total deadline, each kept as .eml
cat >"$W/silent.py" <<'SILENT'
import socket, sys, threading, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True)
def serve(c):
    f = c.makefile("rb"); c.sendall(b"220 silent ESMTP\r\n"); data = False
    while True:
        l = f.readline()
        if not l: return
        if data:
            if l == b".\r\n": time.sleep(3600)
            continue
        u = l.upper()
        if u.startswith((b"EHLO", b"HELO")): c.sendall(b"250-silent\r\n250 8BITMIME\r\n")
        elif u.startswith(b"DATA"): c.sendall(b"354 go\r\n"); data = True
        else: c.sendall(b"250 ok\r\n")
while True:
    c, _ = s.accept(); threading.Thread(target=serve, args=(c,), daemon=True).start()
SILENT
$PY "$W/silent.py" >"$W/silent.port" &
SILENT_PID=$!
i=0; while [ ! -s "$W/silent.port" ] && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
SPORT=$(cat "$W/silent.port")
S=$W/silent
mkdir -p "$S/caps"
cp "$W/c-clean"/* "$S/caps/"
printf '[set a]\nfiles = caps/*\nmail-to = a@example.com\n[set b]\nfiles = caps/*\nmail-to = b@example.com\n' >"$S/manifest"
t0=$(date +%s)
timeout 200 "$BIN" batch "$S/manifest" --out "$S/out" --quiet --smtp "smtp://127.0.0.1:$SPORT" --mail-to ops@example.com \
	--mail-timeout 5 2>"$S/err"
rc=$? secs=$(($(date +%s) - t0))
kill $SILENT_PID 2>/dev/null
check "a silent SMTP server: three messages given up at one 5 s deadline (exit 4), got $rc after $secs s" '[ $rc -eq 4 ] && [ $secs -le $((15 * F)) ]'
check "...all three kept as .eml" '[ -s "$S/out/mail/index.eml" ] && [ -s "$S/out/mail/set-a.eml" ] && [ -s "$S/out/mail/set-b.eml" ]'

# -- a set whose charts never finish (a gnuplot that hangs) is stopped at --set-timeout
cat >"$W/slow-gnuplot" <<SLOW
#!/bin/sh
echo \$\$ >>"$W/gnuplot.pids"
exec sleep 300
SLOW
chmod +x "$W/slow-gnuplot"
S=$W/slowset
mkdir -p "$S/in"
cp -r "$CRIT" "$S/in/crit"
t0=$(date +%s)
IOPSY_GNUPLOT=$W/slow-gnuplot timeout 120 "$BIN" batch "$S/in" --out "$S/out" --quiet --set-timeout 3 2>"$S/err"
rc=$? secs=$(($(date +%s) - t0))
check "a set past --set-timeout is stopped and failed: exit 3, got $rc after $secs s" '[ $rc -eq 3 ] && [ $secs -le $((15 * F)) ] && grep -q "did not finish within 3 s" "$S/err"'
check "...its gnuplot is gone, its temporary folder too" 'all_gone "$W/gnuplot.pids" && no_scratch'

# -- a signal to the batch process alone reaches every worker and its gnuplot; temporary folders
#    and half-written outputs go
for sig in TERM INT; do
	: >"$W/gnuplot.pids"
	S=$W/sig-$sig
	mkdir -p "$S/in"
	cp -r "$CRIT" "$S/in/a"
	cp -r "$CRIT" "$S/in/b"
	IOPSY_GNUPLOT=$W/slow-gnuplot "$BIN" batch "$S/in" --out "$S/out" -j 2 --quiet 2>"$S/err" &
	bp=$!
	i=0; while [ "$(wc -l <"$W/gnuplot.pids")" -lt 2 ] && [ $i -lt $((100 * F)) ]; do i=$((i + 1)); sleep 0.1; done
	t0=$(date +%s)
	kill -$sig $bp
	wait $bp; rc=$?
	secs=$(($(date +%s) - t0))
	check "SIG$sig to the batch alone: it ends by the signal (exit $rc, $secs s), its workers' gnuplot too" \
		'[ $rc -gt 128 ] && [ $secs -le $((5 * F)) ] && [ "$(wc -l <"$W/gnuplot.pids")" -eq 2 ] && all_gone "$W/gnuplot.pids"'
	check "...no worker left, no temporary folder, no half-written output" \
		'! pgrep -f "batch $S/in" >/dev/null && no_scratch && [ -z "$(find "$S/out" -name "*.tmp.*")" ]'
	for p in $(cat "$W/gnuplot.pids"); do kill -9 $p 2>/dev/null; done
done

# -- the mail has a size budget: past it reports are linked (--report-url) or named by path,
#    never cut; and the batch's memory does not grow with the number of sets
S=$W/many
mkdir -p "$S/in"
NMANY=24; [ "$SLOW" = 1 ] && NMANY=8
for k in $(seq 1 $NMANY); do cp -r "$CRIT" "$S/in/set$k"; done
# (a report is ~450 KB with its Explore section, ~600 KB in base64: 1500K takes one or two)
"$BIN" batch "$S/in" --out "$S/out" -j 2 --quiet --eml "$S/eml" --mail-to ops@example.com --mail-max-size 1500K 2>"$S/err"
"$BIN" batch "$S/in" --out "$S/out2" -j 2 --quiet --eml "$S/eml2" --mail-to ops@example.com --mail-max-size 1500K \
	--report-url https://reports.example.com/2026-W48 2>>"$S/err"
$PY - "$S" "$NMANY" <<'PYEOF2' || bad "mail size budget"
import email, email.policy, os, sys
S, N = sys.argv[1], int(sys.argv[2])
for eml, linked in (("eml", False), ("eml2", True)):
    raw = open(os.path.join(S, eml, "index.eml"), "rb").read()
    assert len(raw) <= 1500 * 1024, (eml, len(raw))
    m = email.message_from_bytes(raw, policy=email.policy.default)
    atts = [p.get_filename() for p in m.iter_attachments()]
    assert 0 < len(atts) < N, atts
    text = m.get_body(preferencelist=("plain",)).get_content()
    assert "%d of %d reports are attached" % (len(atts), N) in text, text[:300]
    for k in range(1, N + 1):
        if "set%d-report.html" % k in atts:
            continue
        if linked:
            assert "https://reports.example.com/2026-W48/set%d/report.html" % k in text, k
        else:
            assert os.path.join(S, "out", "set%d" % k, "report.html") in text, k
print("mail: %d of %d reports attached within 1500 KiB" % (len(atts), N))
PYEOF2
ok
if [ -x /usr/bin/time ] && [ "$ASAN" = 0 ]; then
	# 60 small sets mail 4.7 MB of reports: the message is streamed from the files into its .eml,
	# so the batch holds one piece of one report, whatever the number of sets
	mkdir -p "$S/few" "$S/lots"
	for k in 1 2 3; do cp -r "$W/c-clean" "$S/few/set$k"; done
	for k in $(seq 1 60); do cp -r "$W/c-clean" "$S/lots/set$k"; done
	# (a budget of 64M: a healthy report charts its busy disks and LUNs, ~200 KB each)
	/usr/bin/time -f %M -o "$S/rss-few" "$BIN" batch "$S/few" --out "$S/o-few" -j 2 --quiet --eml "$S/e-few" --mail-to ops@example.com \
		--mail-max-size 64M 2>/dev/null
	rc1=$?
	/usr/bin/time -f %M -o "$S/rss-lots" "$BIN" batch "$S/lots" --out "$S/o-lots" -j 2 --quiet --eml "$S/e-lots" --mail-to ops@example.com \
		--mail-max-size 64M 2>/dev/null
	rc2=$?
	few=$(tail -1 "$S/rss-few") lots=$(tail -1 "$S/rss-lots")
	check "peak RSS of 60 sets ($lots KB) within 3 MB of 3 sets ($few KB), exit $rc1/$rc2" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ] && [ $lots -le $((few + 3072)) ]'
	check "...and the 60 reports are all in the mail" '[ $(grep -c "filename=\"set[0-9]*-report.html\"" "$S/e-lots/index.eml") -eq 60 ]'
fi

# -- a set's memory budget: past --set-memory the captures not read yet are listed, the set is
#    partial, the worker stays near the budget
S=$W/budget
mkdir -p "$S/in/big"
# 150 hosts' captures (copies of one with the host renamed: the same host's files would be merged
# as one capture continued, their repeated rows skipped)
zcat "$W/c-clean/esxtop.csv.gz" >"$S/one.csv"
for k in $(seq 1 150); do sed "1s/esx01\.lab\.local/esx$k.lab.local/g" "$S/one.csv" | gzip -1 >"$S/in/big/esx$k.csv.gz"; done
/usr/bin/time -f %M -o "$S/rss" "$BIN" batch "$S/in" --out "$S/out" --quiet --set-memory 64 2>"$S/err"; rc=$?
rss=$(tail -1 "$S/rss" 2>/dev/null || echo 0)
check "150 captures past a 64 MB set budget: exit 3 (partial), got $rc" '[ $rc -eq 3 ] && [ "$(summary "$S/out" big status)" = partial ]'
check "...the rest listed as not read" 'grep -q "not read: the set reached its memory budget (64 MiB" "$S/out/index.html"'
if [ "$ASAN" = 0 ]; then
	check "...peak RSS $rss KB near the budget" '[ "$rss" -le $((64 * 1024 + 60000)) ]'
fi
check "no temporary folder left by any run" 'no_scratch'

# ======== issue 28 ========
# -- a rerun under the same run id is the same run: it compares with the run before it, never
#    with its own first attempt
S=$W/rerun28
mkdir -p "$S/in"
cp -r "$CRIT" "$S/in/crit"
prev_of() { $PY -c "import json,sys; print(json.load(open(sys.argv[1]))['sets'][0]['trend']['previous_run'])" "$1/summary.json"; }
started_of() { $PY -c "import json,sys; print(json.load(open(sys.argv[1]))['started'])" "$1/summary.json"; }
"$BIN" batch "$S/in" --out "$S/out" --run-id W1 -q 2>"$S/err"
"$BIN" batch "$S/in" --out "$S/out" --run-id W1 -q 2>>"$S/err"
check "a rerun of the first week under its run id is still a first run (previous: $(prev_of "$S/out"))" \
	'[ "$(prev_of "$S/out")" = None ] && grep -q "first run of this set" "$S/out/crit/report.txt"'
w1=$(started_of "$S/out")
"$BIN" batch "$S/in" --out "$S/out" --run-id W2 -q 2>>"$S/err"
"$BIN" batch "$S/in" --out "$S/out" --run-id W2 -q 2>>"$S/err"
check "a rerun of week 2 under its run id compares with week 1 ($w1), not itself ($(prev_of "$S/out"))" \
	'[ "$(prev_of "$S/out")" = "$w1" ] && grep -q "still present" "$S/out/crit/report.txt"'
# -- issue 38: a run id names one run. Week 2 (other files) under week 1's run id used to replace
#    week 1 silently and report week 2 as a first run: refused (exit 2) before anything runs,
#    week 1 kept; the same input again under its run id is still recorded again.
mkdir -p "$S/in2"
cp -r "$W/c-clean" "$S/in2/crit"
"$BIN" batch "$S/in2" --out "$S/w2" --history "$S/out/history.sqlite" --run-id W1 -q 2>"$S/ids.err"; rc=$?
check "week 2 under week 1's run id: refused (exit 2), week 1 kept, nothing run, got $rc: $(head -c 200 "$S/ids.err")" \
	'[ $rc -eq 2 ] && grep -q "run id W1 is the run of .* whose input was other files" "$S/ids.err" && [ "$(sqlite3 "$S/out/history.sqlite" "SELECT COUNT(*) FROM runs")" = 2 ] && [ "$(sqlite3 "$S/out/history.sqlite" "SELECT s.worst FROM sets s JOIN runs r ON r.id = s.run_id WHERE r.run_key = \"W1\"")" = critical ] && [ ! -e "$S/w2/index.html" ]'
"$BIN" batch "$S/in" --out "$S/out" --run-id W1 -q 2>"$S/ids.err"; rc=$?
check "the same input under its run id is recorded again, got $rc" '[ $rc -eq 0 ] && [ "$(sqlite3 "$S/out/history.sqlite" "SELECT COUNT(*) FROM runs")" = 2 ]'
# -- a history that cannot be read: every report says the trend is unavailable, never "first run"
echo "not a database" >"$S/bad.sqlite"
"$BIN" batch "$S/in" --out "$S/bad" --history "$S/bad.sqlite" -q 2>"$S/bad.err"; rc=$?
check "an unreadable history: exit 4, the trend unavailable in report, index and summary, got $rc" \
	'[ $rc -eq 4 ] && grep -q "trend unavailable" "$S/bad/crit/report.txt" && grep -q "Trend unavailable" "$S/bad/crit/report.html" && grep -q "trend unavailable" "$S/bad/index.html" && ! grep -q "first run" "$S/bad/crit/report.txt" "$S/bad/index.html" && $PY -c "import json,sys; t=json.load(open(sys.argv[1]))[\"sets\"][0][\"trend\"]; assert t[\"unavailable\"] is True and t[\"new\"] == 0, t" "$S/bad/summary.json"'
# -- one run per output folder: a second run (or a shard, or a finish step) on a folder a run
#    is working in is refused with exit 4 and writes nothing; the first run is unharmed
cat >"$W/gp-slow3" <<SLOW3
#!/bin/sh
sleep 3
exit 1
SLOW3
chmod +x "$W/gp-slow3"
S=$W/lock
mkdir -p "$S/in1" "$S/in2"
cp -r "$CRIT" "$S/in1/a"
cp -r "$W/c-clean" "$S/in2/b"
IOPSY_GNUPLOT=$W/gp-slow3 "$BIN" batch "$S/in1" --out "$S/out" -q 2>"$S/a.err" &
ap=$!
i=0; while [ ! -e "$S/out/.lock" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
sleep 0.3
"$BIN" batch "$S/in2" --out "$S/out" -q 2>"$S/b.err"; rcb=$?
"$BIN" batch "$S/in2" --out "$S/out" --shard 0/1 --run-id x -q 2>"$S/c.err"; rcc=$?
"$BIN" batch "$S/in2" --out "$S/out" --finish --run-id x -q 2>"$S/d.err"; rcd=$?
wait $ap; rca=$?
check "a second run on a folder in use is refused: exit 4, got $rcb: $(head -c 300 "$S/b.err")" \
	'[ $rcb -eq 4 ] && grep -q "is in use by another iopsy batch run (pid [0-9]* on " "$S/b.err"'
check "...so are a shard and a finish step (exit 4), got $rcc/$rcd" '[ $rcc -eq 4 ] && [ $rcd -eq 4 ]'
check "...and the first run is unharmed: exit 0, only its set in its index, got $rca" \
	'[ $rca -eq 0 ] && [ ! -d "$S/out/b" ] && $PY -c "import json,sys; s=json.load(open(sys.argv[1])); assert [x[\"dir\"] for x in s[\"sets\"]] == [\"a\"]" "$S/out/summary.json"'
"$BIN" batch "$S/in2" --out "$S/out" -q 2>"$S/e.err"; rc=$?
check "once it has ended the folder takes the next run, got $rc" '[ $rc -eq 0 ]'

# -- a manifest saved with a BOM, or as UTF-16, runs its sets; a '[Set X]' or '[set]' line fails
#    a set of its own, visibly (index, summary), never dropped
S=$W/manifest28
mkdir -p "$S"
cp -r "$W/c-clean" "$S/caps"
printf '\357\273\277[set bom one]\nfiles = caps/*.csv.gz\n[Set SQL02]\nfiles = caps/*.csv.gz\n[set]\nfiles = caps/*.csv.gz\n' >"$S/m.ini"
"$BIN" batch "$S/m.ini" --out "$S/out" -q 2>"$S/err"; rc=$?
check "a manifest with a BOM and two bad section lines: exit 3, three sets, errors at LINE:COL, got $rc: $(head -c 300 "$S/err")" \
	'[ $rc -eq 3 ] && grep -q "m.ini:3:1: error: expected .\[set NAME\]" "$S/err" && grep -q "m.ini:5:1: error" "$S/err" && $PY -c "
import json, sys
s = {x[\"name\"]: x for x in json.load(open(sys.argv[1]))[\"sets\"]}
assert sorted(s) == [\"SQL02\", \"bom one\", \"manifest line 5\"], sorted(s)
assert s[\"bom one\"][\"status\"] == \"ok\", s[\"bom one\"]
assert s[\"SQL02\"][\"status\"] == \"failed\" and \"is not .[set NAME].\".replace(\".\", \"\x27\") in s[\"SQL02\"][\"error\"], s[\"SQL02\"]
" "$S/out/summary.json" && grep -q "SQL02" "$S/out/index.html"'
$PY -c "import sys; open(sys.argv[2], 'wb').write(open(sys.argv[1], encoding='utf-8-sig').read().encode('utf-16'))" "$S/m.ini" "$S/m16.ini"
"$BIN" batch "$S/m16.ini" --out "$S/out16" -q 2>"$S/err16"; rc=$?
check "...the same manifest in UTF-16: the same three sets, got $rc" \
	'[ $rc -eq 3 ] && [ "$($PY -c "import json,sys; print(len(json.load(open(sys.argv[1]))[\"sets\"]))" "$S/out16/summary.json")" = 3 ]'
# -- a password (or any user info) in the --smtp URL is refused, and never printed
"$BIN" batch "$S/m.ini" --out "$S/smtp" --smtp "smtp://ops:s3cr3t-pw@127.0.0.1:25" --mail-to a@example.com -q 2>"$S/smtp.err"; rc=$?
check "--smtp with a password in the URL is refused (exit 2) without echoing it, got $rc" \
	'[ $rc -eq 2 ] && grep -q "IOPSY_SMTP_PASSWORD" "$S/smtp.err" && ! grep -q "s3cr3t" "$S/smtp.err" && [ ! -d "$S/smtp" ]'

# -- a Chromium that hangs (and its helper) is in the worker's group: stopped with it at
#    --set-timeout, and its temporary folder (with the customer's report) goes too
cat >"$W/hung-chromium" <<HUNGC
#!/bin/sh
echo \$\$ >>"$W/chromium.pids"
sleep 300 &
echo \$! >>"$W/chromium.pids"
wait
HUNGC
chmod +x "$W/hung-chromium"
: >"$W/chromium.pids"
S=$W/pdf28
mkdir -p "$S/in"
cp -r "$W/c-clean" "$S/in/a"
t0=$(date +%s)
IOPSY_CHROMIUM=$W/hung-chromium timeout 120 "$BIN" batch "$S/in" --out "$S/out" --pdf --set-timeout 4 -q 2>"$S/err"; rc=$?
secs=$(($(date +%s) - t0))
check "a hung Chromium: the set is stopped at --set-timeout 4 (exit 3 after $secs s), got $rc" \
	'[ $rc -eq 3 ] && [ $secs -le $((20 * F)) ] && grep -q "did not finish within 4 s" "$S/err"'
check "...Chromium and its helper are gone ($(tr "\n" " " <"$W/chromium.pids")), no temporary folder is left" \
	'[ "$(wc -l <"$W/chromium.pids")" -eq 2 ] && all_gone "$W/chromium.pids" && no_scratch'

# -- SIGKILL leaves the run's scratch folder; the next run removes it (its owner is dead) and
#    keeps a live run's
S=$W/stale28
mkdir -p "$S/in"
cp -r "$W/c-clean" "$S/in/a"
IOPSY_GNUPLOT=$W/gp-slow3 "$BIN" batch "$S/in" --out "$S/out" -q 2>/dev/null &
kp=$!
i=0; while [ -z "$(ls "$TMPDIR" | grep '^iopsy-batch-')" ] && [ $i -lt 100 ]; do i=$((i + 1)); sleep 0.05; done
sleep 0.3
kill -9 $kp; wait $kp 2>/dev/null
sleep 0.5
left=$(ls "$TMPDIR" | grep -c '^iopsy-batch-')
mkdir -p "$TMPDIR/iopsy-batch-live"
echo "$$ $(cut -d' ' -f22 /proc/$$/stat) $(hostname)" >"$TMPDIR/iopsy-batch-live/.owner"
"$BIN" batch "$S/in" --out "$S/out2" -q 2>"$S/err"; rc=$?
check "a SIGKILLed run's scratch folder ($left left) is removed by the next run, a live one's kept, got $rc" \
	'[ $rc -eq 0 ] && [ "$left" -ge 1 ] && [ "$(ls "$TMPDIR")" = iopsy-batch-live ]'
rm -rf "$TMPDIR/iopsy-batch-live"

# -- a disk map of 100,000 lines (every line naming what the captures do not hold, 50,000 pairs
#    on one virtual disk) is checked in linear time: before, ~33 s of pairwise comparisons
S=$W/map28
mkdir -p "$S/in/a"
cp "$W/c-clean"/*.csv.gz "$S/in/a/"
$PY -c "
import sys
with open(sys.argv[1], 'w') as f:
    for i in range(100000):
        f.write('GUEST%d\\\\D: = VM%d:scsi0:1\n' % (i, i // 2))
" "$S/in/a/big.map"
t0=$(date +%s)
timeout 120 "$BIN" batch "$S/in" --out "$S/out" -q 2>"$S/err"; rc=$?
secs=$(($(date +%s) - t0))
# (issue 38: --max-warnings caps what the map says; its 250,000 warnings are counted in one note)
check "a 100,000-line disk map is checked in $secs s (at most $((12 * F))), exit $rc" \
	'[ $rc -eq 0 ] && [ $secs -le $((12 * F)) ] && grep -q "both map to virtual disk" "$S/out/a/messages.txt" && grep -q "249980 more warnings of this map suppressed" "$S/out/a/messages.txt" && [ "$(wc -l <"$S/out/a/messages.txt")" -le 30 ]'

# -- a FIFO given as a companion file (--rules, --map, --partitions, --vmkernel-log, --logo, or a
#    manifest's rules / logo) is refused at once, never opened: it would wait for a writer
S=$W/fifo28
mkdir -p "$S/caps"
cp "$W/c-clean"/*.csv.gz "$S/caps/"
mkfifo "$S/ff"
hung=""
for o in --rules --map --partitions --vmkernel-log --logo; do
	timeout 20 "$BIN" analyze "$S/caps/esxtop.csv.gz" $o "$S/ff" -q >/dev/null 2>"$S/e"; rc=$?
	{ [ $rc -eq 124 ] || ! grep -q "a FIFO, not a regular file" "$S/e"; } && hung="$hung $o($rc)"
done
check "analyze with a FIFO as each companion file ends at once, saying so (hung or silent:$hung)" '[ -z "$hung" ]'
printf '[set f]\nfiles = caps/*.csv.gz\nrules = ff\n[set g]\nfiles = caps/*.csv.gz\nlogo = ff\n' >"$S/m.ini"
timeout 60 "$BIN" batch "$S/m.ini" --out "$S/out" -q --set-timeout 30 2>"$S/err"; rc=$?
check "a manifest naming a FIFO as rules and logo: the run ends (exit 3), got $rc" \
	'[ $rc -eq 3 ] && grep -q "a FIFO" "$S/out/f/messages.txt" "$S/out/index.html" && ! grep -q "did not finish within" "$S/err"'

# -- extract: an output file is the whole export or none (an Excel re-save whose rows share one
#    time stamp fails after the first rows)
S=$W/extract28
mkdir -p "$S"
{ printf '(PDH-CSV 4.0) (Pacific Standard Time)(480),\\\\SQL01\\Memory\\Available MBytes\n'
  for m in 40 41 42; do printf '3/26/2015 22:%s,1\n' $m; done
  for k in 1 2 3; do printf '3/26/2015 22:43,2\n'; done; } >"$S/xl.csv"
"$BIN" extract "$S/xl.csv" --match Memory -o "$S/out.csv" 2>"$S/err"; rc=$?
check "extract failing after some rows: exit 3, no output file, said so, got $rc" \
	'[ $rc -eq 3 ] && [ ! -e "$S/out.csv" ] && grep -q "not written: the input failed after 5 rows" "$S/err" && [ -z "$(ls "$S" | grep tmp)" ]'
EVILF=$(printf '%s/x\033]0;pwned\007.csv' "$S")
cp "$S/xl.csv" "$EVILF"
"$BIN" extract "$EVILF" --match "$(printf 'no\033thing')" 2>"$S/err2"; rc=$?
check "extract's messages never put escape bytes from names on the terminal, got $rc" \
	'[ $rc -eq 2 ] && grep -q "no column of" "$S/err2" && [ "$(tr -d "\033\007" <"$S/err2" | wc -c)" = "$(wc -c <"$S/err2")" ]'

# -- set keys are stable: a set called "dup set" appearing beside last week's "dup_set" takes
#    neither its key nor its trend; and a history of schema 3 gets the keys of today
S=$W/keys28
mkdir -p "$S/in"
cp -r "$CRIT" "$S/in/dup_set"
"$BIN" batch "$S/in" --out "$S/out" -q 2>"$S/err"
cp -r "$W/c-clean" "$S/in/dup set"
"$BIN" batch "$S/in" --out "$S/out" -q 2>>"$S/err"
check "week 2 with a colliding name: dup_set keeps its key and trend, 'dup set' is a first run under its own key" '$PY - "$S/out/summary.json" <<EOF
import json, sys
s = {x["name"]: x for x in json.load(open(sys.argv[1]))["sets"]}
assert s["dup_set"]["dir"] == "dup_set" and s["dup_set"]["trend"]["previous_run"], s["dup_set"]
assert s["dup set"]["dir"] == "dup_set-b08b0d62" and s["dup set"]["trend"]["previous_run"] is None, s["dup set"]
EOF'
sqlite3 "$S/old.sqlite" "CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT NOT NULL, input TEXT NOT NULL, tool_version TEXT NOT NULL, run_key TEXT);
CREATE UNIQUE INDEX runs_by_key ON runs(run_key);
CREATE TABLE sets(run_id INTEGER NOT NULL REFERENCES runs(id), key TEXT NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, error TEXT, capture_start TEXT, capture_end TEXT, worst TEXT, findings INTEGER NOT NULL, verdict TEXT, PRIMARY KEY(run_id, key));
CREATE INDEX sets_by_key ON sets(key, run_id);
CREATE TABLE stats(run_id INTEGER NOT NULL, set_key TEXT NOT NULL, layer TEXT NOT NULL, entity TEXT NOT NULL, host TEXT NOT NULL, metric TEXT NOT NULL, p50 REAL, p95 REAL, p99 REAL, max REAL, mean REAL, samples BIGINT);
CREATE TABLE findings(run_id INTEGER NOT NULL, set_key TEXT NOT NULL, kind TEXT NOT NULL, severity TEXT NOT NULL, layer TEXT NOT NULL, entity TEXT NOT NULL, host TEXT NOT NULL, start TEXT, \"end\" TEXT, summary TEXT);
INSERT INTO runs VALUES(1, '2026-11-22T06:00:00Z', '/in', 'x', NULL);
INSERT INTO sets VALUES(1, 'dup_set', 'dup set', 'ok', NULL, NULL, NULL, 'critical', 1, 'v');
INSERT INTO sets VALUES(1, 'dup_set-2', 'dup_set', 'ok', NULL, NULL, NULL, NULL, 0, 'v');
INSERT INTO findings VALUES(1, 'dup_set', 'latency.device', 'critical', 'device', 'naa.1', 'h', '2026-11-22T06:00:00Z', '2026-11-22T06:10:00Z', 's');
PRAGMA user_version = 3;"
"$BIN" history --db "$S/old.sqlite" --set "dup set" >"$S/old.txt" 2>&1; rc=$?
check "a schema-3 history is migrated to 6 with the keys of today, its findings with them, got $rc" \
	'[ $rc -eq 0 ] && grep -q "^schema version 6" "$S/old.txt" && grep -q "latency.device" "$S/old.txt" && [ "$(sqlite3 "$S/old.sqlite" "SELECT group_concat(name || \"=\" || key, \",\") FROM (SELECT * FROM sets ORDER BY name)")" = "dup set=dup_set-b08b0d62,dup_set=dup_set" ] && [ "$(sqlite3 "$S/old.sqlite" "SELECT set_key FROM findings")" = dup_set-b08b0d62 ]'

# -- bidi controls in a set name never reach the index or a subject raw
S=$W/bidi28
mkdir -p "$S/in"
cp -r "$W/c-clean" "$S/in/$(printf 'sql\342\200\256lmth.exe')"
"$BIN" batch "$S/in" --out "$S/out" --eml "$S/eml" --mail-to a@example.com -q 2>"$S/err"; rc=$?
check "a set name with U+202E: exit 0, the index shows U+FFFD instead, got $rc" \
	'[ $rc -eq 0 ] && ! grep -q "$(printf "\342\200\256")" "$S/out/index.html" && grep -q "$(printf "sql\357\277\275lmth")" "$S/out/index.html"'

# -- issue 38: a run never writes into its input. --out at INPUT, in a set folder, --eml or
# --history there, or a manifest's set read from inside --out: refused with exit 2 before anything
# is written; the customer's report.txt and messages.txt and the listed files stay as they were.
S=$W/overwrite38
mkdir -p "$S/in/sql01"
cp "$W/c-clean"/* "$S/in/sql01/"
printf 'the customer\n' >"$S/in/sql01/report.txt"
printf 'theirs\n' >"$S/in/sql01/messages.txt"
sum0=$(cat "$S/in/sql01"/* | cksum)
for args in "--out $S/in" "--out $S/in/sql01" "--out $S/in/../in/new" "--out $S/o1 --eml $S/in/sql01/eml" \
	"--out $S/o2 --history $S/in/h.sqlite"; do
	# shellcheck disable=SC2086
	"$BIN" batch "$S/in" $args -q 2>"$S/err"; rc=$?
	check "batch $args: refused (exit 2, 'never writes into its input'), nothing written, got $rc" \
		'[ $rc -eq 2 ] && grep -q "never writes into its input" "$S/err" && [ "$(cat "$S/in/sql01"/* | cksum)" = "$sum0" ] && [ ! -e "$S/in/index.html" ] && [ ! -e "$S/in/h.sqlite" ] && [ ! -e "$S/in/sql01/eml" ]'
done
mkdir -p "$S/out/sql01"
cp "$W/c-clean"/* "$S/out/sql01/"
printf '[set sql01]\nfiles = out/sql01/*\n' >"$S/manifest"
"$BIN" batch "$S/manifest" --out "$S/out" -q 2>"$S/err"; rc=$?
check "a manifest's set read from inside --out: refused, its files kept, got $rc" \
	'[ $rc -eq 2 ] && grep -q "inside --out" "$S/err" && [ "$(ls "$S/out/sql01" | wc -l)" = "$(ls "$W/c-clean" | wc -l)" ]'
"$BIN" batch "$S/manifest" --out "$S/o3" --history "$S/manifest" -q 2>"$S/err"; rc=$?
check "--history at the manifest: refused, got $rc" '[ $rc -eq 2 ] && grep -q "is the manifest" "$S/err"'
# the index's temporaries a killed run left are reclaimed by the next run (issue 38, Low)
mkdir -p "$S/o4"
: >"$S/o4/index.html.tmp.Ab12Cd"
: >"$S/o4/summary.json.tmp.Zz99yY"
"$BIN" batch "$S/in" --out "$S/o4" -q 2>"$S/err"; rc=$?
check "an --out beside INPUT still runs, an earlier run's index temporaries removed, got $rc" \
	'[ $rc -eq 0 ] && [ -s "$S/o4/index.html" ] && [ -z "$(find "$S/o4" -name "*.tmp.*")" ]'

echo "batch: $pass passed, $fail failed"
[ $fail -eq 0 ]
