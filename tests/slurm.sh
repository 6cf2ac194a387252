#!/bin/sh
# slurm.sh — `make check-slurm`: a single-node Slurm cluster on this machine (Debian's
# slurm-wlm and munge: munged, slurmctld and slurmd with a minimal slurm.conf, all in a temporary
# folder, on free local ports), then contrib/slurm/submit.sh runs 30 simulator sets (one broken,
# a before/after pair, two names that sanitise alike) as a 3-task job array plus the finish job
# (--dependency=afterany), and the result is compared with a one-machine run of the same sets:
# identical summaries, index and history rows, with the SQLite history and — when PostgreSQL is
# installed (tests/pgtmp.sh) — the PostgreSQL history. A third submission has its task 1
# cancelled (submitted held, cancelled, released): the finish job still runs and lists that
# shard's sets as failed: no result, every other set as in the one-machine run.
# Needs root (slurmd starts the jobs). Skipped, saying so, when Slurm or munge is not installed
# or not root. Usage: sh tests/slurm.sh BIN     Prints "slurm: N passed, M failed".
set -u
BIN=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
SRC=$(cd "$(dirname "$0")/.." && pwd)
PY=${BATCH_PYTHON:-/usr/bin/python3}
for t in munged slurmctld slurmd sbatch squeue scontrol scancel; do
	if ! command -v "$t" >/dev/null 2>&1; then
		echo "slurm: SKIP: $t is not installed (Debian: apt-get install slurm-wlm munge): the Slurm run is not tested"
		exit 0
	fi
done
if [ "$(id -u)" -ne 0 ]; then
	echo "slurm: SKIP: starting slurmd needs root: the Slurm run is not tested"
	exit 0
fi
. "$SRC/tests/pgtmp.sh"
. "$SRC/tests/simsets.sh"
T=$(mktemp -d /tmp/iopsy-slurmtest-XXXXXX)
chmod 755 "$T" # munged's socket folder must be reachable by every user
MUNGE_PID= CTLD_STARTED=
stop_all() {
	if [ -n "$CTLD_STARTED" ]; then
		scontrol shutdown >/dev/null 2>&1
		i=0
		while { [ -f "$T/slurmctld.pid" ] && kill -0 "$(cat "$T/slurmctld.pid")" 2>/dev/null; } ||
			{ [ -f "$T/slurmd.pid" ] && kill -0 "$(cat "$T/slurmd.pid")" 2>/dev/null; }; do
			i=$((i + 1)); [ $i -gt 50 ] && break; sleep 0.2
		done
		for p in slurmctld slurmd; do [ -f "$T/$p.pid" ] && kill -9 "$(cat "$T/$p.pid")" 2>/dev/null; done
	fi
	[ -n "$MUNGE_PID" ] && kill "$MUNGE_PID" 2>/dev/null
	pg_stop
	[ -n "${KEEP:-}" ] || rm -rf "$T"
}
trap stop_all EXIT INT TERM
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "slurm: FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }
logs() { for f in "$T"/log/*; do echo "== $f"; tail -20 "$f"; done; }

# munge: a key and a daemon of our own
mkdir -p "$T/munge" "$T/log" "$T/state" "$T/spool" "$T/jobs"
chmod 755 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 2>/dev/null
chmod 400 "$T/munge/munge.key"
if ! munged -f --socket="$T/munge/socket" --key-file="$T/munge/munge.key" --pid-file="$T/munge/munged.pid" \
	--log-file="$T/log/munged.log" --seed-file="$T/munge/seed" 2>"$T/log/munged.err"; then
	echo "slurm: SKIP: munged does not start here: $(cat "$T/log/munged.err")"
	exit 0
fi
MUNGE_PID=$(cat "$T/munge/munged.pid")

ports=$($PY -c 'import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(" ".join(str(x.getsockname()[1]) for x in s))')
set -- $ports
node=$(hostname -s)
cat >"$T/slurm.conf" <<EOF
ClusterName=iopsytest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$1
SlurmdPort=$2
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
MpiDefault=none
ReturnToService=2
NodeName=$node NodeAddr=127.0.0.1 CPUs=2 RealMemory=2048 State=UNKNOWN
PartitionName=iopsy Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
SLURM_CONF=$T/slurm.conf
export SLURM_CONF
slurmctld -c -f "$SLURM_CONF" >"$T/log/slurmctld.out" 2>&1 && CTLD_STARTED=1
slurmd -f "$SLURM_CONF" >"$T/log/slurmd.out" 2>&1
i=0
until sinfo -h -o %t 2>/dev/null | grep -q idle; do
	i=$((i + 1))
	if [ $i -gt 150 ]; then echo "slurm: FAIL: the cluster did not come up"; logs; exit 1; fi
	sleep 0.2
done
ok

IN=$T/in
sim_sets "$BIN" "$IN" 30
USE_PG=
if pg_start; then
	pg_createdb one; pg_createdb slurm
	PATH=$PG_BIN:$PATH
	USE_PG=1
else
	echo "slurm: note: $PG_WHY: the PostgreSQL history is left out"
fi
"$BIN" batch "$IN" --out "$T/one" --history "$T/one.sqlite" --run-id sl1 -j 2 -q 2>"$T/one.err"; rc=$?
check "one-machine run exits 3 (the broken set), got $rc" '[ $rc -eq 3 ]'
[ -n "$USE_PG" ] && "$BIN" batch "$IN" --out "$T/one-pg" --history "$(pg_uri one)" --run-id sl1 -j 2 -q 2>>"$T/one.err"

# submit.sh, then wait for its finish job to end
export IOPSY="$BIN"
IOPSY_SBATCH_ARGS="--cpus-per-task=1 --mem=300M --output=$T/jobs/%x-%A_%a.out"
export IOPSY_SBATCH_ARGS
submit() { # OUT HISTORY RUN_ID  (IOPSY_SHARD_SBATCH_ARGS from the caller)
	IOPSY_RUN_ID=$3 sh "$SRC/contrib/slurm/submit.sh" -n 3 "$IN" "$T/$1" --history "$2" -q >"$T/$1.submit" 2>&1
}
job_of() { sed -n "s/.*$2 job \\([0-9]*\\).*/\\1/p" "$T/$1.submit"; }
wait_job() { # JOB: until it left the queue; prints its final state
	_i=0
	while squeue -h -j "$1" 2>/dev/null | grep -q .; do
		_i=$((_i + 1)); [ $_i -gt 1500 ] && { echo TIMEOUT; return; }; sleep 0.2
	done
	scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -1
}
t0=$(date +%s)
submit slurm "$T/slurm.sqlite" sl1
fin=$(job_of slurm finish) arr=$(job_of slurm shards)
check "submit.sh submitted the array and the finish job" '[ -n "$fin" ] && [ -n "$arr" ]' || cat "$T/slurm.submit"
state=$(wait_job "$fin")
t1=$(date +%s)
check "the finish job ran after the array and ended (exit 3: the broken set), state $state" \
	'[ "$state" = FAILED ] && scontrol show job "$fin" | grep -q "ExitCode=3:0"' || { logs; cat "$T"/jobs/* 2>/dev/null | tail -20; }
check "every task of the array wrote its shard's end marker" '[ -f "$T/slurm/.shard-0-of-3" ] && [ -f "$T/slurm/.shard-1-of-3" ] && [ -f "$T/slurm/.shard-2-of-3" ]'
check "30 sets: the 3-shard Slurm run = the one-machine run (summary, index, SQLite history rows)" \
	'$PY "$SRC/tests/shardcmp.py" "$T/one" "$T/one.sqlite" "$T/slurm" "$T/slurm.sqlite" >"$T/cmp" 2>&1 || { cat "$T/cmp"; false; }'
echo "slurm: the 3-shard run of 30 sets took $((t1 - t0)) s from submission to the finish job's end"
if [ -n "$USE_PG" ]; then
	submit slurm-pg "$(pg_uri slurm)" sl1
	state=$(wait_job "$(job_of slurm-pg finish)")
	check "the Slurm run with the PostgreSQL history ended, state $state" '[ "$state" = FAILED ]'
	check "30 sets: the 3-shard Slurm run = the one-machine run (PostgreSQL history rows)" \
		'$PY "$SRC/tests/shardcmp.py" "$T/one-pg" "$(pg_uri one)" "$T/slurm-pg" "$(pg_uri slurm)" >"$T/cmp" 2>&1 || { cat "$T/cmp"; false; }'
fi

# a cancelled shard: the array submitted held, task 1 cancelled, the rest released
IOPSY_SHARD_SBATCH_ARGS=--hold submit cancel "$T/cancel.sqlite" sl2
unset IOPSY_SHARD_SBATCH_ARGS
arr=$(job_of cancel shards) fin=$(job_of cancel finish)
scancel "${arr}_1"
scontrol release "$arr" >/dev/null 2>&1
state=$(wait_job "$fin")
check "with task 1 cancelled the finish job still ran (afterany), state $state" '[ "$state" = FAILED ]'
check "task 1 was cancelled and left no end marker" '[ ! -e "$T/cancel/.shard-1-of-3" ] && [ -f "$T/cancel/.shard-0-of-3" ]'
miss=$($PY - "$T/one/summary.json" <<'EOF'
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
check "the cancelled shard's sets are failed: no result, all 30 listed, the others = one machine" \
	'[ -n "$miss" ] && $PY "$SRC/tests/shardcmp.py" "$T/one" "$T/one.sqlite" "$T/cancel" "$T/cancel.sqlite" --expect-failed $miss >"$T/cmp" 2>&1 || { cat "$T/cmp"; false; }'
check "their error says which shard did not finish" 'grep -q "its shard 1/3 did not finish" "$T/cancel/summary.json"'

echo "slurm: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
