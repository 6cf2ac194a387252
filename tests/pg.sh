#!/bin/sh
# pg.sh — the PostgreSQL history against a throwaway cluster (tests/pgtmp.sh: initdb and pg_ctl
# as an unprivileged user, socket in a temporary folder, the password in a PGPASSFILE):
# one-machine and sharded runs of the same sets into two databases over two weeks give the
# same history rows and summaries; the schema is made by the same migrations (a version-1
# database is migrated with its keys); three shards and `iopsy history` opening an empty
# database at once; two finish steps of two runs recording at once into one database (held at
# the same point by a lock, so they really overlap) both record whole; two finish steps of one
# run at once record it once; a wrong password and an unreachable server fail clearly (exit 4)
# and a password in the URI is refused (exit 2). Skipped, saying so, when PostgreSQL is not
# installed. Usage: sh tests/pg.sh BIN     Prints "pg: N passed, M failed".
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=${BATCH_PYTHON:-/usr/bin/python3}
. "$SRC/tests/pgtmp.sh"
. "$SRC/tests/simsets.sh"
if "$BIN" history --db "postgresql:///x?host=/nonexistent" 2>&1 | grep -q "built without PostgreSQL"; then
	echo "pg: SKIP: this iopsy was built without libpq (install libpq-dev and rebuild): the PostgreSQL history is not tested"
	exit 0
fi
W=$(mktemp -d /tmp/iopsy-pgtest-XXXXXX)
trap 'pg_stop; [ -n "${KEEP:-}" ] || rm -rf "$W"' EXIT INT TERM
if ! pg_start; then
	echo "pg: SKIP: $PG_WHY: the PostgreSQL history is not tested"
	exit 0
fi
PATH=$PG_BIN:$PATH
export PATH
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "pg: FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

for db in one sharded conc same fresh old; do pg_createdb "$db"; done
IN=$W/in
sim_sets "$BIN" "$IN" 10
run_one() { "$BIN" batch "$IN" --out "$W/$1" --history "$(pg_uri one)" --run-id "$2" -j 2 -q 2>>"$W/err"; }
run_sharded() {
	for k in 0 1 2; do
		"$BIN" batch "$IN" --out "$W/$1" --history "$(pg_uri sharded)" --shard "$k/3" --run-id "$2" -j 1 -q 2>>"$W/err" &
	done
	wait
	"$BIN" batch "$IN" --out "$W/$1" --history "$(pg_uri sharded)" --finish --run-id "$2" -q 2>>"$W/err"
}

# week 1, on empty databases: the shards migrate the schema at once
run_one one w1; rc=$?
check "one-machine run with a PostgreSQL history exits 3 (the broken set), got $rc" '[ $rc -eq 3 ]'
run_sharded sh w1; rc=$?
check "the finish step exits 3 too, got $rc" '[ $rc -eq 3 ]'
check "week 1: three shards at once + finish = one machine (summary, index, history rows)" \
	'$PY "$SRC/tests/shardcmp.py" "$W/one" "$(pg_uri one)" "$W/sh" "$(pg_uri sharded)" >"$W/cmp" 2>&1 || { cat "$W/cmp"; false; }'
check "schema version 6 in iopsy_schema" '[ "$(pg_psql sharded -At -c "SELECT version FROM iopsy_schema")" = 6 ]'
check "the figures are 8-byte floats" '[ "$(pg_psql sharded -At -c "SELECT data_type FROM information_schema.columns WHERE table_name = '"'stats'"' AND column_name = '"'p95'"'")" = "double precision" ]'
# week 2: one set changed
rm -rf "$IN/01-lsi-guest-queue-cap"
"$BIN" simulate --scenario pvscsi-after --out "$IN/01-lsi-guest-queue-cap" --seed 2 --duration 600 --interval 5 --gzip >/dev/null 2>&1
run_one one w2
run_sharded sh w2
check "week 2 (trends read from PostgreSQL): three shards + finish = one machine" \
	'$PY "$SRC/tests/shardcmp.py" "$W/one" "$(pg_uri one)" "$W/sh" "$(pg_uri sharded)" >"$W/cmp" 2>&1 || { cat "$W/cmp"; false; }'
check "week 2 has resolved findings" '$PY -c "import json,sys; s=json.load(open(sys.argv[1])); assert any(x[\"trend\"][\"resolved\"] for x in s[\"sets\"])" "$W/sh/summary.json"'
"$BIN" history --db "$(pg_uri sharded)" >"$W/hist.txt" 2>&1; rc=$?
check "iopsy history --db postgresql://... lists both runs, got $rc" '[ $rc -eq 0 ] && grep -q "^schema version 6" "$W/hist.txt" && [ "$(grep -c " w2$" "$W/hist.txt")" -eq 10 ] && [ "$(grep -c " w1$" "$W/hist.txt")" -eq 10 ]'
"$BIN" history --db "$(pg_uri sharded)" --set "dup set" >"$W/hist-pg.txt" 2>&1
"$BIN" history --db "$(pg_uri one)" --set "dup set" >"$W/hist-one.txt" 2>&1
check "iopsy history --set reads the same from both databases (apart from start times)" \
	'[ "$(sed "s/20[0-9-]*T[0-9:]*Z//g" "$W/hist-pg.txt")" = "$(sed "s/20[0-9-]*T[0-9:]*Z//g" "$W/hist-one.txt")" ] && grep -q "key figures per run" "$W/hist-pg.txt"'

# three shards and a reader opening one empty database at the same moment: one migrates
for k in 0 1 2; do
	"$BIN" batch "$IN" --out "$W/fresh" --history "$(pg_uri fresh)" --shard "$k/3" --run-id f1 -j 1 -q 2>>"$W/fresh.err" &
done
"$BIN" history --db "$(pg_uri fresh)" >/dev/null 2>>"$W/fresh.err" &
wait
check "concurrent migrations of an empty database: no error, version 6 once" \
	'! grep -v "^iopsy batch: set [^ ]* failed: " "$W/fresh.err" && [ "$(pg_psql fresh -At -c "SELECT count(*) || '"' '"' || max(version) FROM iopsy_schema")" = "1 6" ]' || cat "$W/fresh.err"

# two finish steps of two runs (two consultants) recording into one database at once
for r in a b; do
	for k in 0 1; do "$BIN" batch "$IN" --out "$W/c$r" --history "$(pg_uri conc)" --shard "$k/2" --run-id "c$r" -j 2 -q 2>/dev/null; done
done
pg_psql conc -c "SELECT 1" >/dev/null
# hold both at their first write: a third session locks the runs table until they both wait
pg_psql conc -c "BEGIN; LOCK TABLE runs IN EXCLUSIVE MODE; SELECT pg_sleep(8); COMMIT;" >/dev/null 2>&1 &
sleep 0.5
for r in a b; do
	"$BIN" batch "$IN" --out "$W/c$r" --history "$(pg_uri conc)" --finish --run-id "c$r" -q 2>>"$W/conc.err" &
done
i=0 waiting=0
while [ "$waiting" != 2 ] && [ $i -lt 30 ]; do
	sleep 0.2; i=$((i + 1))
	waiting=$(pg_psql conc -At -c "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'iopsy' AND wait_event_type = 'Lock'")
done
wait
check "both finish steps were waiting at once (2 sessions in a lock wait, got $waiting)" '[ "$waiting" = 2 ]'
check "two runs recorded at once: both whole (10 sets each)" \
	'[ "$(pg_psql conc -At -c "SELECT string_agg(r.run_key || '"'='"' || (SELECT count(*) FROM sets s WHERE s.run_id = r.id), '"','"' ORDER BY r.run_key) FROM runs r")" = "ca=10,cb=10" ]'
check "each run's figures and findings recorded" \
	'[ "$(pg_psql conc -At -c "SELECT count(DISTINCT run_id) FROM stats")" = 2 ] && [ "$(pg_psql conc -At -c "SELECT count(DISTINCT run_id) FROM findings")" = 2 ]'
check "no error from the concurrent finish steps" '! grep -v "^iopsy batch: set [^ ]* failed: " "$W/conc.err"' || cat "$W/conc.err"

# two finish steps of the same run at once (two copies of its folder: one folder takes one finish
# step at a time, issue 28): recorded once, whole
for k in 0 1; do "$BIN" batch "$IN" --out "$W/same" --history "$(pg_uri same)" --shard "$k/2" --run-id s1 -q 2>/dev/null; done
cp -a "$W/same" "$W/same2"
pg_psql same -c "SELECT 1" >/dev/null
"$BIN" history --db "$(pg_uri same)" >/dev/null 2>&1 # the schema first, outside the lock
pg_psql same -c "BEGIN; LOCK TABLE runs IN EXCLUSIVE MODE; SELECT pg_sleep(2); COMMIT;" >/dev/null 2>&1 &
sleep 0.5
"$BIN" batch "$IN" --out "$W/same" --history "$(pg_uri same)" --finish --run-id s1 -q 2>>"$W/same.err" &
"$BIN" batch "$IN" --out "$W/same2" --history "$(pg_uri same)" --finish --run-id s1 -q 2>>"$W/same.err" &
sleep 0.5
"$BIN" batch "$IN" --out "$W/same" --history "$(pg_uri same)" --finish --run-id s1 -q 2>"$W/same3.err"; rc=$?
wait
check "a third finish step on a folder whose finish step is running is refused (exit 4), got $rc" \
	'[ $rc -eq 4 ] && grep -q "is in use by another iopsy batch run (pid [0-9]* on .* run id s1)" "$W/same3.err"' 
check "one run id finished twice at once: one run, its sets once" \
	'[ "$(pg_psql same -At -c "SELECT count(*) FROM runs")" = 1 ] && [ "$(pg_psql same -At -c "SELECT count(*) FROM sets")" = 10 ]'
check "... with its figures once" \
	'[ "$(pg_psql same -At -c "SELECT count(*) FROM (SELECT 1 FROM stats GROUP BY run_id, set_key, layer, entity, host, metric HAVING count(*) > 1) x")" = 0 ] && [ "$(pg_psql same -At -c "SELECT count(*) > 0 FROM stats")" = t ]'
check "... and without an error" '! grep -v "^iopsy batch: set [^ ]* failed: " "$W/same.err"' || cat "$W/same.err"

# a version-1 history (sets keyed by name) is migrated with the keys of today
pg_psql old -c "CREATE TABLE runs(id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, started TEXT NOT NULL, input TEXT NOT NULL, tool_version TEXT NOT NULL);
CREATE TABLE sets(run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL, status TEXT NOT NULL, error TEXT, capture_start TEXT, capture_end TEXT, worst TEXT, findings INTEGER NOT NULL, verdict TEXT, PRIMARY KEY(run_id, name));
CREATE TABLE stats(run_id INTEGER NOT NULL, set_name TEXT NOT NULL, layer TEXT NOT NULL, entity TEXT NOT NULL, host TEXT NOT NULL, metric TEXT NOT NULL, p50 DOUBLE PRECISION, p95 DOUBLE PRECISION, p99 DOUBLE PRECISION, max DOUBLE PRECISION, mean DOUBLE PRECISION, samples BIGINT);
CREATE TABLE findings(run_id INTEGER NOT NULL, set_name TEXT NOT NULL, kind TEXT NOT NULL, severity TEXT NOT NULL, layer TEXT NOT NULL, entity TEXT NOT NULL, host TEXT NOT NULL, start TEXT, \"end\" TEXT, summary TEXT);
CREATE TABLE iopsy_schema(version INTEGER NOT NULL); INSERT INTO iopsy_schema VALUES(1);
INSERT INTO runs(started, input, tool_version) VALUES('2026-11-22T06:00:00Z', '/in', 'x');
INSERT INTO sets VALUES(1, 'dup set', 'ok', NULL, NULL, NULL, 'critical', 1, 'v');
INSERT INTO findings VALUES(1, 'dup set', 'latency.device', 'critical', 'device', 'naa.1', 'h', '2026-11-22T06:00:00Z', '2026-11-22T06:10:00Z', 's');" >/dev/null
"$BIN" history --db "$(pg_uri old)" --set dup_set >"$W/old.txt" 2>&1; rc=$?
check "a version-1 database is migrated to 5 and read by its new keys, got $rc" \
	'[ $rc -eq 0 ] && grep -q "^schema version 6" "$W/old.txt" && grep -q "latency.device" "$W/old.txt" && [ "$(pg_psql old -At -c "SELECT key FROM sets")" = dup_set ]'
"$BIN" batch "$IN" --out "$W/old" --history "$(pg_uri old)" -q 2>/dev/null
check "the migrated database takes the next run, whose dup set has last week's finding resolved" \
	'$PY -c "import json,sys; s={x[\"name\"]: x for x in json.load(open(sys.argv[1]))[\"sets\"]}; assert s[\"dup set\"][\"trend\"][\"resolved\"] == 1 and s[\"dup_set\"][\"trend\"][\"previous_run\"] is None, (s[\"dup set\"][\"trend\"], s[\"dup_set\"][\"trend\"])" "$W/old/summary.json"'

# credentials and errors
printf '%s:*:*:iopsy:wrong\n' "$PG_DIR" >"$W/badpass"
chmod 600 "$W/badpass"
PGPASSFILE=$W/badpass "$BIN" batch "$IN" --out "$W/bad" --history "$(pg_uri one)" -q 2>"$W/bad.err"; rc=$?
check "a wrong password: exit 4 with the server's reason, the run still writes its index, got $rc" \
	'[ $rc -eq 4 ] && grep -q "history: cannot open postgresql://" "$W/bad.err" && grep -q "password authentication failed" "$W/bad.err" && [ -s "$W/bad/index.html" ]'
"$BIN" history --db "postgresql:///one?host=$W/nothing-here&user=iopsy" >/dev/null 2>"$W/nohost.err"; rc=$?
check "no server there: iopsy history exits 3 with libpq's reason, got $rc" '[ $rc -eq 3 ] && grep -q "No such file\|could not connect\|connection to server" "$W/nohost.err"'
"$BIN" batch "$IN" --out "$W/pw" --history "postgresql://iopsy:$(cat "$PG_DIR/pw")@/one?host=$PG_DIR" -q 2>"$W/pw.err"; rc=$?
check "the right password in the URI is still refused (exit 2), nothing written, got $rc" '[ $rc -eq 2 ] && [ ! -d "$W/pw" ] && grep -q "holds a password" "$W/pw.err"'
# ======== issue 28: deadlines on the history, one retry on a lost connection ========
trend_of() { $PY -c "import json,sys; s=json.load(open(sys.argv[1])); print(' '.join(sorted(set(('unavailable' if x['trend']['unavailable'] else 'prev' if x['trend']['previous_run'] else 'first') for x in s['sets']))))" "$1"; }
T=$W/i28
mkdir -p "$T/in"
cp -r "$IN/01-lsi-guest-queue-cap" "$T/in/a"
cp -r "$IN/02-device-queue-overcommit" "$T/in/b"
cp -r "$IN/05-dsnro-cap" "$T/in/c"
# -- a server that accepts and never answers: the run gives up at the deadline, says the trend is
#    unavailable (never "first run") and exits 4
HPORT=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
$PY -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', $HPORT)); s.listen(8); keep = []
while True:
    c, _ = s.accept(); keep.append(c)
" &
HUNG=$!
i=0; while ! $PY -c "import socket; socket.create_connection(('127.0.0.1',$HPORT),1).close()" 2>/dev/null && [ $i -lt 50 ]; do i=$((i + 1)); sleep 0.1; done
t0=$(date +%s)
timeout 120 "$BIN" batch "$T/in" --out "$T/hung" --history "postgresql://iopsy@127.0.0.1:$HPORT/x?sslmode=disable" \
	--history-timeout 3 -q 2>"$T/hung.err"; rc=$?
secs=$(($(date +%s) - t0))
kill $HUNG 2>/dev/null
check "a server that never answers: given up at --history-timeout 3 (exit 4 after $secs s, got $rc)" \
	'[ $rc -eq 4 ] && [ $secs -le 20 ] && grep -q "history: cannot open" "$T/hung.err"'
check "...its reports say the trend is unavailable, never first run" \
	'[ "$(trend_of "$T/hung/summary.json")" = unavailable ] && grep -q "trend unavailable" "$T/hung/a/report.txt" && ! grep -q "first run" "$T/hung/a/report.txt" "$T/hung/index.html"'
# -- a table lock held by another session: statements give up at the lock timeout
pg_createdb lockt
"$BIN" batch "$T/in" --out "$T/lock0" --history "$(pg_uri lockt)" -q 2>/dev/null
pg_psql lockt -c "BEGIN; LOCK TABLE sets IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(40); COMMIT;" >/dev/null 2>&1 &
LOCKER=$!
sleep 0.5
t0=$(date +%s)
timeout 120 "$BIN" batch "$T/in" --out "$T/lock" --history "$(pg_uri lockt)" --history-timeout 3 -q 2>"$T/lock.err"; rc=$?
secs=$(($(date +%s) - t0))
check "a table locked by another session: exit 4 after $secs s (lock timeout 3 s), got $rc: $(head -c 400 "$T/lock.err")" \
	'[ $rc -eq 4 ] && [ $secs -le 25 ] && grep -q "canceling statement due to \(lock\|statement\) timeout" "$T/lock.err"'
check "...the trend is unavailable, not a first run" '[ "$(trend_of "$T/lock/summary.json")" = unavailable ]'
pg_psql lockt -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%pg_sleep(40)%' AND pid <> pg_backend_pid()" >/dev/null 2>&1
wait $LOCKER 2>/dev/null
# -- the connection lost while the sets run (the server restarted, the session ended): one retry
#    on a new connection; every set has its trend and the run is recorded
# (its first call in a run sleeps 3 s, so the run is mid-way when the test acts on its session;
# the other calls fail at once: each set's charts are left out either way)
cat >"$T/slow-gnuplot" <<SLOWGP
#!/bin/sh
mkdir "$T/slow-once" 2>/dev/null && sleep 3
exit 1
SLOWGP
chmod +x "$T/slow-gnuplot"
IOPSY_GNUPLOT=$T/slow-gnuplot "$BIN" batch "$T/in" --out "$T/lost" --history "$(pg_uri lockt)" -j 1 -q 2>"$T/lost.err" &
BP=$!
sleep 1.5
pg_psql lockt -At -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'iopsy'" >"$T/killed"
wait $BP; rc=$?
check "a connection lost mid-run: one retry, exit 0, got $rc ($(grep -c t "$T/killed") session ended): $(head -c 300 "$T/lost.err")" \
	'[ $rc -eq 0 ] && grep -q t "$T/killed"'
check "...every set compared with the previous run, and the run recorded" \
	'[ "$(trend_of "$T/lost/summary.json")" = prev ] && [ "$(pg_psql lockt -At -c "SELECT count(*) FROM runs")" = 2 ]'

# -- the server stops answering mid-run (its backend stopped: no statement timeout can fire):
#    the client's own deadline (--history-timeout + 5 s) gives the history up; the run ends
rmdir "$T/slow-once"
IOPSY_GNUPLOT=$T/slow-gnuplot "$BIN" batch "$T/in" --out "$T/stopped" --history "$(pg_uri lockt)" --history-timeout 2 -j 1 -q 2>"$T/stopped.err" &
BP=$!
sleep 1.5
BPID=$(pg_psql lockt -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = 'iopsy' LIMIT 1")
[ -n "$BPID" ] && kill -STOP "$BPID"
t0=$(date +%s)
i=0; while kill -0 $BP 2>/dev/null && [ $i -lt 600 ]; do i=$((i + 1)); sleep 0.1; done
secs=$(($(date +%s) - t0))
[ -n "$BPID" ] && kill -CONT "$BPID"
wait $BP; rc=$?
check "a backend that stops answering: the run ends by its own deadline (exit 4 after $secs s, got $rc): $(head -c 300 "$T/stopped.err")" \
	'[ -n "$BPID" ] && [ $rc -eq 4 ] && [ $secs -le 60 ] && grep -q "did not answer within 7 s" "$T/stopped.err"'

check "no unexpected messages" '! grep -v -e "^iopsy batch: set [^ ]* failed: " -e "^iopsy batch: set [^ ]* partial: " "$W/err"' || cat "$W/err"

echo "pg: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
