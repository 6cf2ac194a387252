#!/bin/sh
# shard.sh — `iopsy batch --shard K/N` and `--finish` against one-machine runs, with the SQLite
# history: twelve simulator sets (a broken one, a before/after pair, two names that sanitise
# alike) over two weeks (trends), three shards run one after the other and at once; the shard
# of each set (FNV-1a 64 of its key mod N, computed here independently); a shard that never
# ran and one killed with SIGKILL while it runs (their sets failed: no result); records of
# another run refused; a finish step run twice (one run in the history); usage errors; the
# Kubernetes manifests' fields (tests/k8s_manifest.py) and the Slurm scripts' syntax.
# Usage: sh tests/shard.sh BIN     Prints "shard: N passed, M failed".
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=${BATCH_PYTHON:-/usr/bin/python3}
W=$(mktemp -d /tmp/iopsy-shardtest-XXXXXX)
trap 'rm -rf "$W"' EXIT INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "shard: FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
. "$SRC/tests/simsets.sh"

IN=$W/in
sim_sets "$BIN" "$IN" 12
run_one() { "$BIN" batch "$IN" --out "$W/$1" --history "$W/$1.sqlite" --run-id "$2" -j 2 -q 2>>"$W/err"; }
run_shards() { # OUT RUN_ID [parallel]
	for k in 0 1 2; do
		if [ "${3:-}" = parallel ]; then
			"$BIN" batch "$IN" --out "$W/$1" --history "$W/$1.sqlite" --shard "$k/3" --run-id "$2" -j 1 -q 2>>"$W/err" &
		else
			"$BIN" batch "$IN" --out "$W/$1" --history "$W/$1.sqlite" --shard "$k/3" --run-id "$2" -j 2 -q 2>>"$W/err" \
				|| bad "shard $k/3 of $2 exited $?"
		fi
	done
	wait
}
finish() { "$BIN" batch "$IN" --out "$W/$1" --history "$W/$1.sqlite" --finish --run-id "$2" -q 2>>"$W/err"; }
cmp_runs() { _a=$1 _b=$2; shift 2; $PY "$SRC/tests/shardcmp.py" "$W/$_a" "$W/$_a.sqlite" "$W/$_b" "$W/$_b.sqlite" "$@"; }

# week 1: one machine, shards one after the other, shards at once
run_one one w1; rc=$?
check "one-machine run exits 3 (the broken set), got $rc" '[ $rc -eq 3 ]'
run_shards seq w1
finish seq w1; rc=$?
check "finish exits as the one-machine run (3), got $rc" '[ $rc -eq 3 ]'
check "week 1: three shards + finish = one machine (summary, index, history rows)" 'cmp_runs one seq >"$W/cmp" 2>&1 || { cat "$W/cmp"; false; }'
run_shards par w1 parallel
finish par w1
check "week 1: three shards at once + finish = one machine" 'cmp_runs one par >"$W/cmp" 2>&1 || { cat "$W/cmp"; false; }'
check "the run marker names the run and its shards" 'grep -q "^run-id w1$" "$W/seq/.run" && grep -q "^shards 3$" "$W/seq/.run"'
check "each shard left its end marker" '[ -f "$W/seq/.shard-0-of-3" ] && [ -f "$W/seq/.shard-1-of-3" ] && [ -f "$W/seq/.shard-2-of-3" ]'
cp "$W/seq.sqlite" "$W/typo.sqlite"
"$BIN" batch "$IN" --out "$W/seq" --history "$W/typo.sqlite" --finish --run-id w1x -q 2>"$W/typo.err"; rc=$?
check "a finish step with another run's id (a typo) is refused, exit 2, nothing recorded, got $rc" \
	'[ $rc -eq 2 ] && grep -q "belongs to run w1, not w1x" "$W/typo.err" && cmp -s "$W/seq.sqlite" "$W/typo.sqlite"'

# the documented assignment: FNV-1a 64 of the key, mod N; every set in exactly one shard
"$BIN" batch "$IN" --out "$W/only1" --history "$W/only1.sqlite" --shard 1/3 --run-id a1 -q 2>>"$W/err"
check "shard 1/3 analysed exactly its sets (FNV-1a 64 of the key mod 3)" '$PY - "$W/seq/summary.json" "$W/only1" <<EOF
import json, os, sys
def fnv(s):
    h = 0xcbf29ce484222325
    for c in s.encode():
        h = ((h ^ c) * 0x100000001b3) % (1 << 64)
    return h
keys = [x["dir"] for x in json.load(open(sys.argv[1]))["sets"]]
assert fnv("") == 0xcbf29ce484222325 and fnv("a") == 0xaf63dc4c8601ec8c, "FNV-1a 64 test vectors"
assert "dup_set" in keys and "dup_set-b08b0d62" in keys, keys
mine = sorted(k for k in keys if fnv(k) % 3 == 1)
done = sorted(d for d in os.listdir(sys.argv[2]) if os.path.exists(os.path.join(sys.argv[2], d, ".result")))
assert mine == done, (mine, done)
shards = [sum(1 for k in keys if fnv(k) % 3 == s) for s in range(3)]
assert sum(shards) == len(keys) == 12 and min(shards) > 0, shards
EOF'
check "a shard writes no index, summary, history or mail" '[ ! -e "$W/only1/index.html" ] && [ ! -e "$W/only1/summary.json" ] && [ ! -e "$W/only1.sqlite" ] && [ ! -e "$W/only1/mail" ]'

# week 2: one set changed (findings resolved), same folders reused: trends must agree too
rm -rf "$IN/01-lsi-guest-queue-cap"
"$BIN" simulate --scenario pvscsi-after --out "$IN/01-lsi-guest-queue-cap" --seed 2 --duration 600 --interval 5 --gzip >/dev/null 2>&1
run_one one w2
run_shards seq w2
finish seq w2
check "week 2 (trends against week 1): three shards + finish = one machine" 'cmp_runs one seq >"$W/cmp" 2>&1 || { cat "$W/cmp"; false; }'
check "week 2 shows resolved findings" '$PY -c "import json,sys; s=json.load(open(sys.argv[1])); assert any(x[\"trend\"][\"resolved\"] for x in s[\"sets\"])" "$W/seq/summary.json"'

# week 3: shard 1 never runs; in the same folder every set of shard 1 holds week 2's record
run_one one w3
"$BIN" batch "$IN" --out "$W/seq" --history "$W/seq.sqlite" --shard 0/3 --run-id w3 -q 2>>"$W/err"
"$BIN" batch "$IN" --out "$W/seq" --history "$W/seq.sqlite" --shard 2/3 --run-id w3 -q 2>>"$W/err"
finish seq w3 2>"$W/fin3.err"; rc=$?
check "finish with a shard missing exits 3, got $rc" '[ $rc -eq 3 ]'
miss=$($PY - "$W/seq/summary.json" <<'EOF'
import json, sys
def fnv(s):
    h = 0xcbf29ce484222325
    for c in s.encode():
        h = ((h ^ c) * 0x100000001b3) % (1 << 64)
    return h
print(" ".join(x["dir"] for x in json.load(open(sys.argv[1]))["sets"] if fnv(x["dir"]) % 3 == 1))
EOF
)
# shellcheck disable=SC2086
check "week 3: shard 1's sets are 'failed: no result' (week 2's records refused), the rest = one machine" \
	'cmp_runs one seq --expect-failed $miss >"$W/cmp" 2>&1 || { cat "$W/cmp"; false; }'
check "the missing sets' error names their shard" 'grep -q "its shard 1/3 did not finish" "$W/seq/summary.json"'
check "a set without a result of this run keeps no report of an earlier run" '$PY - "$W/seq" $miss <<EOF
import json, os, sys
s = {x["dir"]: x for x in json.load(open(os.path.join(sys.argv[1], "summary.json")))["sets"]}
for d in sys.argv[2:]:
    assert s[d]["report_html"] is None and not os.path.exists(os.path.join(sys.argv[1], d, "report.html")), d
    assert not os.path.exists(os.path.join(sys.argv[1], d, ".result")), d
EOF'
# the missing shard run late, then the finish again: complete, and one run in the history
"$BIN" batch "$IN" --out "$W/seq" --history "$W/seq.sqlite" --shard 1/3 --run-id w3 -q 2>>"$W/err"
finish seq w3
check "week 3 after shard 1 ran late and a second finish: = one machine, the run recorded once" \
	'cmp_runs one seq >"$W/cmp" 2>&1 || { cat "$W/cmp"; false; }'
check "the history holds three runs with their run ids" '[ "$(sqlite3 "$W/seq.sqlite" "SELECT group_concat(run_key) FROM runs")" = "w1,w2,w3" ]'

# a shard killed (SIGKILL) while it runs: the sets it finished count, the others are failed
"$BIN" batch "$IN" --out "$W/kill" --history "$W/kill.sqlite" --shard 0/1 --run-id k1 -j 1 -q 2>>"$W/err" &
kpid=$!
i=0
while [ -z "$(find "$W/kill" -name .result 2>/dev/null | head -1)" ] && [ $i -lt 300 ]; do i=$((i + 1)); sleep 0.02; done
kill -9 $kpid 2>/dev/null
wait $kpid 2>/dev/null
sleep 0.3 # its worker gets SIGTERM when its parent dies
finish kill k1 2>"$W/kill.err"; rc=$?
check "finish after a killed shard exits 3, got $rc" '[ $rc -eq 3 ]'
check "the killed shard's unfinished sets are failed: no result, every set is listed" '$PY - "$W/kill/summary.json" <<EOF
import json, sys
s = json.load(open(sys.argv[1]))["sets"]
assert len(s) == 12, len(s)
nores = [x for x in s if x["status"] == "failed" and x["error"].startswith("no result of run k1: its shard 0/1 did not finish")]
done = [x for x in s if x["status"] != "failed" or not x["error"].startswith("no result")]
assert nores and done, (len(nores), len(done))
EOF'
check "no end marker for the killed shard" '[ ! -e "$W/kill/.shard-0-of-1" ]'

# ======== issue 28 ========
# -- a shard of another run id never takes over a folder whose run has not finished: refused
#    (exit 2), and that run's finish step still finds every report
"$BIN" batch "$IN" --out "$W/take" --history "$W/take.sqlite" --shard 0/2 --run-id ra -j 2 -q 2>>"$W/err"
"$BIN" batch "$IN" --out "$W/take" --history "$W/take.sqlite" --shard 1/2 --run-id ra -j 2 -q 2>>"$W/err"
"$BIN" batch "$IN" --out "$W/take" --history "$W/take.sqlite" --shard 0/3 --run-id rb -q 2>"$W/take.err"; rc=$?
check "a shard of run rb in run ra's unfinished folder is refused (exit 2), got $rc: $(head -c 300 "$W/take.err")" \
	'[ $rc -eq 2 ] && grep -q "belongs to run ra .*which has not finished" "$W/take.err" && grep -q "^run-id ra$" "$W/take/.run"'
finish take ra; rc=$?
check "...run ra's finish step then reports every set as its shards left it (exit 3: the broken set), got $rc" \
	'[ $rc -eq 3 ] && [ "$($PY -c "import json,sys; print(sum(1 for x in json.load(open(sys.argv[1]))[\"sets\"] if x[\"report_html\"]))" "$W/take/summary.json")" -ge 10 ] && ! grep -q "no result of run" "$W/take/summary.json"'
check "...and marks the run finished" 'grep -q "^finished " "$W/take/.run"'
"$BIN" batch "$IN" --out "$W/take" --history "$W/take.sqlite" --shard 0/1 --run-id rb -q 2>"$W/take2.err"; rc=$?
check "a finished run's folder is taken by the next run's shard (exit 0), got $rc" '[ $rc -eq 0 ] && grep -q "^run-id rb$" "$W/take/.run"'
# -- a finish step counts a record only when the set's input is the one its shard read: a set
#    whose files changed after its shard ran is failed with the reason, the others count
"$BIN" batch "$IN" --out "$W/dig" --history "$W/dig.sqlite" --shard 0/1 --run-id d1 -j 2 -q 2>>"$W/err"
f=$(ls "$IN/00-healthy"/* | head -1)
cp -p "$f" "$W/saved"
printf '\n' >>"$f"
finish dig d1 2>"$W/dig.err"; rc=$?
cp -p "$W/saved" "$f"
check "finish after a set's file changed: exit 3, got $rc" '[ $rc -eq 3 ]'
check "...that set is failed with the reason, in the summary and the index" '$PY - "$W/dig/summary.json" <<EOF
import json, sys
s = {x["dir"]: x for x in json.load(open(sys.argv[1]))["sets"]}
e = s["00-healthy"]
assert e["status"] == "failed" and "read another input than this finish step" in e["error"], e
assert s["01-lsi-guest-queue-cap"]["status"] == "ok", s["01-lsi-guest-queue-cap"]
EOF' && grep -q "read another input than this finish step" "$W/dig/index.html"
check "...and the history records it failed" '[ "$(sqlite3 "$W/dig.sqlite" "SELECT status FROM sets WHERE key = '"'00-healthy'"'")" = failed ]'

# usage errors and a run of another shape
u() { "$BIN" batch "$IN" --out "$W/u" "$@" >/dev/null 2>"$W/u.err"; echo $?; }
check "--shard 3/3 is refused (exit 2)" '[ "$(u --shard 3/3 --run-id x)" = 2 ] && grep -q "K from 0 to N-1" "$W/u.err"'
check "--shard 1 is refused" '[ "$(u --shard 1 --run-id x)" = 2 ]'
check "--shard without --run-id is refused" '[ "$(u --shard 0/2)" = 2 ] && grep -q "needs --run-id" "$W/u.err"'
check "--finish without --run-id is refused" '[ "$(u --finish)" = 2 ]'
check "--shard with --finish is refused" '[ "$(u --shard 0/2 --finish --run-id x)" = 2 ]'
check "a run id with a space or a leading dash is refused" '[ "$(u --run-id "a b")" = 2 ] && [ "$(u --run-id -x)" = 2 ]'
check "a shard of a run started with another N is refused" '[ "$(u --shard 0/3 --run-id w3 --out "$W/seq")" = 2 ] || [ "$("$BIN" batch "$IN" --out "$W/seq" --shard 0/4 --run-id w3 -q 2>"$W/u.err"; echo $?)" = 2 ]'
check "--history with a password in the URI is refused (exit 2)" '[ "$(u --history "postgresql://u:secret@db.example.com/iopsy")" = 2 ] && grep -q "PGPASSFILE" "$W/u.err"'
check "--history with password= is refused" '[ "$(u --history "postgresql://db.example.com/iopsy?password=secret")" = 2 ]'
check "iopsy history --db with a password is refused" '"$BIN" history --db "postgres://u:pw@h/db" >/dev/null 2>&1; [ $? -eq 2 ]'
check "no set folder was made by a refused run" '[ ! -d "$W/u" ]'
run_one seq w4
check "a one-machine run removes a sharded run's markers" '[ ! -e "$W/seq/.run" ] && [ -z "$(ls -a "$W/seq" | grep "^\.shard-")" ]'
check "no temporary files left" '[ -z "$(find "$W" -name "*.tmp.*")" ]'
check "no unexpected messages" '! grep -v -e "^iopsy batch: set [^ ]* failed: " -e "^iopsy batch: set [^ ]* partial: " "$W/err"' || cat "$W/err"

# the Kubernetes manifests and the Slurm scripts
check "contrib/kubernetes: the Indexed Job and the finish Job have the fields the run needs" \
	'$PY "$SRC/tests/k8s_manifest.py" "$SRC/contrib/kubernetes"'
check "contrib/slurm scripts are valid sh" 'for f in "$SRC"/contrib/slurm/*.sh "$SRC"/contrib/slurm/*.sbatch "$SRC"/contrib/kubernetes/*.sh; do sh -n "$f" || exit 1; done'

echo "shard: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
