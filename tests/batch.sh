#!/bin/sh
# batch.sh — end-to-end test of `iopsy batch`: ten simulated capture sets (one broken, one
# before/after pair, one with a hostile name), delivered to a real SMTP server on 127.0.0.1
# (Debian's python3-aiosmtpd) and parsed back with Python's email package; history over three
# runs (unchanged, then one set changed: new and resolved findings); .eml output; exit codes.
# Usage: sh tests/batch.sh BIN     Prints "batch: N passed, M failed".
set -u
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
check "ten set folders" '[ $(find "$OUT" -mindepth 1 -maxdepth 1 -type d ! -name mail | wc -l) -eq 10 ]'
check "no pwned file (no shell ever saw a set name)" '[ ! -e "$W/pwned" ]'
check "no temporary files left" '[ -z "$(find "$OUT" -name "*.tmp.*")" ]'
$PY - "$OUT" <<'PYEOF' || bad "summary/index content"
import json, sys, os, sqlite3
out = sys.argv[1]
s = json.load(open(os.path.join(out, "summary.json")))
sets = {x["dir"]: x for x in s["sets"]}
assert s["schema_version"] == 1 and len(sets) == 10, sets.keys()
assert sets["10-broken"]["status"] == "failed" and sets["10-broken"]["error"], sets["10-broken"]
assert s["sets"][0]["state"] == "failed", "failed sets come first"
assert sets["08-migration"]["kind"] == "compare"
assert any(f["kind"] == "queue.guest_vscsi_cap" for f in sets["02-lsi"]["top_findings"])
assert sets["01-healthy"]["state"] == "clean"
evil = [x for x in s["sets"] if x["name"].startswith("evil")][0]
assert "/" not in evil["dir"] and "\n" not in evil["dir"] and "\r" not in evil["dir"], evil["dir"]
for x in s["sets"]:
    if x["status"] != "failed":
        for f in ("report_html", "report_json"):
            assert os.path.getsize(os.path.join(out, x[f])) > 0, x[f]
        json.load(open(os.path.join(out, x["report_json"])))
idx = open(os.path.join(out, "index.html"), encoding="utf-8").read()
assert "10-broken" in idx or "10-broken".replace("-", "&#45;") in idx
assert "<b>" not in idx and "$(touch" in idx.replace("&#36;", "$"), "hostile name escaped"
db = sqlite3.connect(os.path.join(out, "history.sqlite"))
assert db.execute("PRAGMA user_version").fetchone()[0] == 1
assert db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 1
assert db.execute("SELECT COUNT(*) FROM sets").fetchone()[0] == 10
assert db.execute("SELECT COUNT(*) FROM stats").fetchone()[0] > 10
assert db.execute("SELECT COUNT(*) FROM findings WHERE set_name='02-lsi'").fetchone()[0] >= 1
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
assert m["Subject"].startswith("Weekly storage: 10 sets"), m["Subject"]
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
assert len(names) == 9 and all(n.endswith("-report.html") for n in names), names
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

echo "batch: $pass passed, $fail failed"
[ $fail -eq 0 ]
