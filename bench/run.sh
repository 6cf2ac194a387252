#!/bin/sh
# bench/run.sh — time `iopsy extract` (and `iopsy analyze` when it exists) on generated esxtop-shaped
# captures against cat and wc -l (floors), cut, two mawk one-liners, pandas, DuckDB, a minimal SIMD
# scanner (the "SIMD limit") and an older iopsy (IOPSY_BEFORE), and check the targets of issue 2;
# then (issue 17) `analyze --html` against `analyze` on a simulated 1-hour capture, the header's
# cost per column, a day-long esxtop + perfmon analyze (and the clock/mapping share of it), one
# thread against two, and a batch of 20 sets (where its CPU goes), before and after in paired runs.
# See bench/README.md.
#
#   sh bench/run.sh              full run (shapes a b c g x p, then jobs s h r d t n)
#   sh bench/run.sh --selfcheck  check on a tiny file that the mawk and pandas baselines (and iopsy
#                                extract, when built) compute the same per-column count/mean/max
#
# Environment: IOPSY (binary, default ./iopsy), IOPSY_BEFORE (an older binary measured in the same
# run), BENCH_SHAPES (default "a b c g x p s h r d t n"), BENCH_ROWS_SCALE (default 1), BENCH_RUNS (default 3),
# BENCH_KEEP=1 (keep generated files), BENCH_WORK (default bench/work), BENCH_PYTHON (default
# /usr/bin/python3), BENCH_DUCKDB=0 (skip DuckDB), CC (default cc).
#
# Exit status: 0 when everything could be measured (even if a target FAILs: this is a measurement),
# 1 when --selfcheck finds a disagreement, 3 when something could not run (missing tool or binary,
# a command failed).
set -u

BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
WORK=${BENCH_WORK:-$BENCH_DIR/work}
RUNS=${BENCH_RUNS:-3}
SCALE=${BENCH_ROWS_SCALE:-1}
SHAPES=${BENCH_SHAPES:-a b c g x p s h r d t n}
KEEP=${BENCH_KEEP:-0}
PY=${BENCH_PYTHON:-/usr/bin/python3}
CC=${CC:-cc}
IOPSY=${IOPSY:-./iopsy}
IOPSY_BEFORE=${IOPSY_BEFORE:-}
WANT_DUCKDB=${BENCH_DUCKDB:-1}
REGEX='Average (Driver|Kernel|Guest) MilliSec/Command'

# Shapes: columns rows (before BENCH_ROWS_SCALE). a: ~190 MB, ~7.3 bytes per value like real captures.
# g: shape a gzip-compressed (MB/s are of the decompressed bytes); x: shape a as `esxtop -a` on
# ESXi 6.x writes it (PCPU Power State block with the glued unquoted field); p: the same capture
# with that field quoted (the twin x is compared with).
shape_cols() { case $1 in a | c | g | x | p) echo 13000 ;; b) echo 50000 ;; *) echo 0 ;; esac; }
shape_rows() { case $1 in a | g | x | p) echo 2000 ;; b) echo 200 ;; c) echo 20000 ;; *) echo 0 ;; esac; }
shape_opt() { case $1 in x) echo -a ;; p) echo -p ;; *) echo '' ;; esac; }

# Targets (issue 2).
T_VS_MAWK=1
T_VS_PANDAS=5
T_RSS_MIB=64
T_GROWTH_PCT=20
T_LIMIT_PCT=60       # extract plain, 1 thread, >= 60 % of the SIMD limit
T_GLUE_PCT=10        # extract on x within 10 % of p
T_GZIP_MBS=1500      # extract on g: decompressed MB/s
T_HTML_X=2           # issue 17: analyze --html <= 2x analyze on a 1-hour capture
T_CAT_PCT=50         # issue 17: extract / counters with 2 threads >= 50 % of cat's speed
T_AX=1.3             # issue 17: analyze <= 1.3x extract on the same file
T_AMAWK=8            # issue 17: analyze >= 8x the lean mawk one-liner
T_CLOCK_PCT=10       # issue 17: clock estimate + IOPS mapping <= 10 % of a day-long analyze
T_PARSE_PCT=40       # issue 17: batch of 20 sets, >= 40 % of the CPU in parsing

MODE=bench
case ${1:-} in
--selfcheck) MODE=selfcheck ;;
-h | --help)
	sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'
	exit 0
	;;
'') ;;
*)
	echo "usage: sh bench/run.sh [--selfcheck]" >&2
	exit 2
	;;
esac

say() { printf '%s\n' "$*" >&2; }
fatal() {
	say "bench: $*"
	exit 3
}

# ------------------------------------------------------------------ baselines
# mawk: header -> indexes of the columns whose unquoted name matches re (column `skip` excluded);
# rows -> per column count / mean / max of the numeric cells (empty or non-numeric cells skipped).
AWK_PROG='
NR == 1 {
	for (i = 1; i <= NF; i++) {
		h = $i; gsub(/"/, "", h)
		if (i != skip && h != "" && h ~ re) { n++; col[n] = i; name[n] = h }
	}
	next
}
{
	for (k = 1; k <= n; k++) {
		v = $(col[k]); gsub(/"/, "", v)
		if (v !~ /^[-+]?([0-9]|\.[0-9])/) continue
		v += 0; c[k]++; s[k] += v
		if (c[k] == 1 || v > m[k]) m[k] = v
	}
}
END {
	for (k = 1; k <= n; k++)
		if (c[k]) printf "%s\t%d\t%.10g\t%.10g\n", name[k], c[k], s[k] / c[k], m[k]
		else printf "%s\t0\tnan\tnan\n", name[k]
}'

# The lean mawk one-liner: split on `","` (no quote stripping), a cell counts when it is not empty
# and reads as a number (a strnum compares equal to its value).
AWK_LEAN='
NR == 1 { for (i = 2; i <= NF; i++) if ($i ~ re) { n++; col[n] = i; name[n] = $i } next }
{ for (k = 1; k <= n; k++) { v = $(col[k]); if (v != "" && v + 0 == v) { c[k]++; s[k] += v; if (c[k] == 1 || v + 0 > m[k]) m[k] = v + 0 } } }
END { for (k = 1; k <= n; k++) if (c[k]) printf "%s\t%d\t%.10g\t%.10g\n", name[k], c[k], s[k] / c[k], m[k]; else printf "%s\t0\tnan\tnan\n", name[k] }'

# pandas: read_csv(usecols=<names matching the regex>), then per column count / mean / max.
PY_PROG='
import re, sys
import pandas as pd
path, rx = sys.argv[1], re.compile(sys.argv[2])
df = pd.read_csv(path, usecols=lambda c: rx.search(c) is not None)
out = []
for name in df.columns:
    s = df[name]
    if s.dtype == object:
        s = pd.to_numeric(s, errors="coerce")
    n = int(s.count())
    if n:
        out.append("%s\t%d\t%.10g\t%.10g" % (name, n, s.mean(), s.max()))
    else:
        out.append("%s\t0\tnan\tnan" % name)
sys.stdout.write("\n".join(out) + ("\n" if out else ""))
'

# Compare two count/mean/max tables: by name (positional=0) or by position (positional=1).
CMP_PROG='
function rel(a, b) { if (a == b) return 0; d = a - b; if (d < 0) d = -d; if (a < 0) a = -a; if (b < 0) b = -b; return d / (a > b ? a : b) }
function same(a, b) { return (a == "nan" && b == "nan") || (a != "nan" && b != "nan" && rel(a + 0, b + 0) <= 1e-9) }
FNR == NR { na++; key = positional ? na : $1; A[key] = $0; an[na] = $1; next }
{
	nb++; key = positional ? nb : $1
	if (!(key in A)) { print "only in " fb ": " $1; bad++; next }
	split(A[key], a, "\t")
	if (a[2] != $2 || !same(a[3], $3) || !same(a[4], $4)) {
		print "differ: " $1 "\n  " fa ": n=" a[2] " mean=" a[3] " max=" a[4] "\n  " fb ": n=" $2 " mean=" $3 " max=" $4
		bad++
	}
	if (positional && a[1] != $1) renamed++
	seen[key] = 1
}
END {
	for (k in A) if (!(k in seen)) { split(A[k], a, "\t"); print "only in " fa ": " a[1]; bad++ }
	if (renamed) print "note: " renamed " column names differ between " fa " and " fb " (compared by position)"
	print (bad ? "MISMATCH" : "OK") " " na " vs " nb " columns"
	exit bad ? 1 : 0
}'

# ------------------------------------------------------------------ tools
[ -x /usr/bin/time ] || fatal "/usr/bin/time not found: apt-get install -y time"
/usr/bin/time -v true >/dev/null 2>&1 || fatal "/usr/bin/time does not support -v (need GNU time: apt-get install -y time)"
command -v mawk >/dev/null 2>&1 || fatal "mawk not found: apt-get install -y mawk"
command -v "$CC" >/dev/null 2>&1 || fatal "C compiler '$CC' not found: apt-get install -y gcc"
HAVE_PANDAS=0
if [ -x "$PY" ] && "$PY" -c 'import pandas' >/dev/null 2>&1; then
	HAVE_PANDAS=1
else
	say "bench: pandas unavailable with $PY: pandas baseline SKIPPED (apt-get install -y python3-pandas)"
fi
HAVE_DUCKDB=0
if [ "$WANT_DUCKDB" = 1 ] && command -v node >/dev/null 2>&1; then
	if [ ! -d "$WORK/npm/node_modules/@duckdb/node-api" ] && command -v npm >/dev/null 2>&1; then
		mkdir -p "$WORK/npm"
		say "bench: installing @duckdb/node-api into $WORK/npm (npm) ..."
		(cd "$WORK/npm" && timeout 300 npm install --no-audit --no-fund --silent @duckdb/node-api >/dev/null 2>&1) ||
			say "bench: npm install @duckdb/node-api failed"
	fi
	if [ -d "$WORK/npm/node_modules/@duckdb/node-api" ]; then
		cp "$BENCH_DIR/duckdb_stats.mjs" "$WORK/npm/" && HAVE_DUCKDB=1
	fi
fi
[ $HAVE_DUCKDB = 1 ] || say "bench: DuckDB baseline SKIPPED (needs node and the npm package @duckdb/node-api; BENCH_DUCKDB=${WANT_DUCKDB})"
HAVE_BEFORE=0
if [ -n "$IOPSY_BEFORE" ]; then
	if [ -x "$IOPSY_BEFORE" ]; then HAVE_BEFORE=1; else say "bench: IOPSY_BEFORE '$IOPSY_BEFORE' is not executable: not measured"; fi
fi
case $IOPSY in
/*) ;;
*) [ -x "$IOPSY" ] || { [ "$IOPSY" = ./iopsy ] && [ -x "$ROOT/iopsy" ] && IOPSY=$ROOT/iopsy; } ;;
esac
HAVE_IOPSY=0
HAVE_ANALYZE=0
HAVE_THREADS=0
T1=''
if [ -x "$IOPSY" ]; then
	HAVE_IOPSY=1
	"$IOPSY" analyze --help >/dev/null 2>&1 && HAVE_ANALYZE=1
	# --threads: the shapes' extract and analyze rows are one thread (the SIMD limit is one
	# thread); the rows "... 2 thr" and job t are two
	"$IOPSY" extract --help 2>/dev/null | grep -q -- '--threads' && HAVE_THREADS=1 && T1='--threads 1' 
else
	say "bench: iopsy binary not found at '$IOPSY' (build with 'make', or set IOPSY=/path/to/iopsy)"
fi

mkdir -p "$WORK" || fatal "cannot create $WORK"
GEN=$WORK/gen_esxtop
if [ ! -x "$GEN" ] || [ "$BENCH_DIR/gen_esxtop.c" -nt "$GEN" ]; then
	"$CC" -std=c11 -O2 -o "$GEN" "$BENCH_DIR/gen_esxtop.c" || fatal "cannot compile bench/gen_esxtop.c"
fi

LIMIT=$WORK/simd_limit
HAVE_LIMIT=0
if "$CC" -std=c11 -O2 -march=native -o "$LIMIT" "$BENCH_DIR/simd_limit.c" 2>"$WORK/limit.err"; then
	HAVE_LIMIT=1
else
	say "bench: the SIMD limit scanner does not build here (needs AVX2 + PCLMULQDQ): SKIPPED"
fi

now_ns() { date +%s%N; }
fsize() { wc -c <"$1" | tr -d ' '; }

# ------------------------------------------------------------------ self-check
if [ "$MODE" = selfcheck ]; then
	F=$WORK/selfcheck.csv
	"$GEN" 1000 60 7 -o "$WORK/selfcheck.raw" || fatal "generator failed"
	# one non-numeric cell in the first matched column (row 5): must be skipped like an empty one
	mawk -F, -v OFS=, -v "re=$REGEX" 'NR == 1 { for (i = 2; i <= NF; i++) if ($i ~ re) { c = i; break } }
		NR == 6 { $c = "\"n/a\"" } { print }' "$WORK/selfcheck.raw" >"$F" || fatal "mawk failed"
	rm -f "$WORK/selfcheck.raw"
	mawk -v "re=$REGEX" -v skip=1 -F, "$AWK_PROG" "$F" >"$WORK/sc-mawk.tsv" || fatal "mawk baseline failed"
	say "selfcheck: $(wc -l <"$WORK/sc-mawk.tsv" | tr -d ' ') matched columns, $(awk -F'\t' '{s += 60 - $2} END {print s}' "$WORK/sc-mawk.tsv") missing (empty or non-numeric) cells, file $(fsize "$F") bytes"
	rc=0
	if [ $HAVE_PANDAS = 1 ]; then
		"$PY" -c "$PY_PROG" "$F" "$REGEX" >"$WORK/sc-pandas.tsv" || fatal "pandas baseline failed"
		printf 'selfcheck mawk vs pandas: ' >&2
		awk -F'\t' -v positional=0 -v fa=mawk -v fb=pandas "$CMP_PROG" "$WORK/sc-mawk.tsv" "$WORK/sc-pandas.tsv" >&2 || rc=1
	else
		say "selfcheck mawk vs pandas: SKIPPED (no pandas)"
	fi
	mawk -F'","' -v "re=$REGEX" "$AWK_LEAN" "$F" >"$WORK/sc-lean.tsv" || fatal "lean mawk baseline failed"
	printf 'selfcheck mawk vs lean mawk: ' >&2
	awk -F'\t' -v positional=0 -v fa=mawk -v fb=lean "$CMP_PROG" "$WORK/sc-mawk.tsv" "$WORK/sc-lean.tsv" >&2 || rc=1
	if [ $HAVE_LIMIT = 1 ]; then
		"$LIMIT" "$F" "$REGEX" >"$WORK/sc-limit.tsv" || fatal "simd_limit failed"
		printf 'selfcheck mawk vs SIMD limit: ' >&2
		awk -F'\t' -v positional=0 -v fa=mawk -v fb=limit "$CMP_PROG" "$WORK/sc-mawk.tsv" "$WORK/sc-limit.tsv" >&2 || rc=1
	fi
	if [ $HAVE_DUCKDB = 1 ]; then
		(cd "$WORK/npm" && node duckdb_stats.mjs "$F" "$REGEX") >"$WORK/sc-duckdb.tsv" || fatal "DuckDB baseline failed"
		printf 'selfcheck mawk vs DuckDB: ' >&2
		awk -F'\t' -v positional=0 -v fa=mawk -v fb=duckdb "$CMP_PROG" "$WORK/sc-mawk.tsv" "$WORK/sc-duckdb.tsv" >&2 || rc=1
	fi
	if [ $HAVE_IOPSY = 1 ]; then
		if "$IOPSY" extract "$F" --match "$REGEX" -o "$WORK/sc-extract.csv" 2>"$WORK/sc-extract.err"; then
			mawk -v re=. -v skip=1 -F, "$AWK_PROG" "$WORK/sc-extract.csv" >"$WORK/sc-iopsy.tsv"
			printf 'selfcheck mawk vs iopsy extract output: ' >&2
			awk -F'\t' -v positional=1 -v fa=mawk -v fb=iopsy "$CMP_PROG" "$WORK/sc-mawk.tsv" "$WORK/sc-iopsy.tsv" >&2 || rc=1
		else
			say "selfcheck iopsy extract: FAILED: $(head -3 "$WORK/sc-extract.err")"
			rc=3
		fi
	else
		say "selfcheck iopsy extract: SKIPPED (no binary)"
	fi
	[ "$KEEP" = 1 ] || rm -f "$F" "$WORK"/sc-*
	[ $rc = 0 ] && say "selfcheck: PASS" || say "selfcheck: FAIL"
	exit $rc
fi

# ------------------------------------------------------------------ measurement
RESULTS=$WORK/results.tsv
: >"$RESULTS"
rm -f "$WORK/shapes.tsv.new"
STATUS=0

# measure SHAPE TOOL RUNS CMD... : best wall time of RUNS runs (ns), max peak RSS (KiB) of the runs.
measure() {
	m_shape=$1 m_tool=$2 m_n=$3
	shift 3
	m_best='' m_rss=0 m_rc=0 m_i=0
	while [ $m_i -lt "$m_n" ]; do
		m_i=$((m_i + 1))
		m_t0=$(now_ns)
		/usr/bin/time -v -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/err.txt"
		m_rc=$?
		m_t1=$(now_ns)
		if [ $m_rc -ne 0 ]; then
			say "bench: $m_tool on shape $m_shape FAILED (exit $m_rc): $*"
			sed -n '1,5p' "$WORK/err.txt" | sed 's/^/    /' >&2
			STATUS=3
			break
		fi
		m_dt=$((m_t1 - m_t0))
		m_r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
		if [ -z "$m_best" ] || [ $m_dt -lt "$m_best" ]; then m_best=$m_dt; fi
		if [ "${m_r:-0}" -gt $m_rss ]; then m_rss=$m_r; fi
	done
	if [ $m_rc -eq 0 ]; then
		printf '%s\t%s\t%s\t%s\n' "$m_shape" "$m_tool" "$m_best" "$m_rss" >>"$RESULTS"
		say "   $(printf '%-16s' "$m_tool") $(awk -v t="$m_best" -v r="$m_rss" 'BEGIN {printf "%.3f s  %.1f MiB", t / 1e9, r / 1024}')"
	else
		printf '%s\t%s\tFAILED\t0\n' "$m_shape" "$m_tool" >>"$RESULTS"
	fi
}

# ---- how iopsy writes to /dev/null
# An output path is normally written atomically (temp file + rename). Run as root on /dev/null that
# would replace the device node with a regular file, so first check on a private copy of the null
# device that `-o PATH` / `--json PATH` writes into an existing device; otherwise write to stdout
# (`-o -`, `--json -`) redirected to /dev/null, which costs the same.
EXTRACT_OUT=/dev/null
ANALYZE_OUT=/dev/null
probe_devnull() { # probe_devnull OPTION SUBCOMMAND [ARGS...] -> 0 when the device survives
	p_opt=$1
	shift
	p_dev=$WORK/probe-null
	rm -f "$p_dev" "$p_dev".tmp.*
	mknod "$p_dev" c 1 3 2>/dev/null || return 1
	"$IOPSY" "$@" "$p_opt" "$p_dev" >/dev/null 2>&1
	[ -c "$p_dev" ]
	p_r=$?
	rm -f "$p_dev" "$p_dev".tmp.*
	return $p_r
}
if [ $HAVE_IOPSY = 1 ]; then
	"$GEN" 1000 20 -o "$WORK/probe.csv" || fatal "generator failed"
	if ! probe_devnull -o extract "$WORK/probe.csv" --match "$REGEX"; then
		EXTRACT_OUT=-
		say "bench: WARNING: 'iopsy extract -o DEVICE' does not write into the device (atomic rename would"
		say "       replace it): measuring 'iopsy extract ... -o -' with stdout to /dev/null instead"
	fi
	if [ $HAVE_ANALYZE = 1 ] && ! probe_devnull --json analyze "$WORK/probe.csv"; then
		ANALYZE_OUT=-
		say "bench: WARNING: 'iopsy analyze --json DEVICE' does not write into the device: measuring"
		say "       'iopsy analyze ... --json -' with stdout to /dev/null instead"
	fi
	rm -f "$WORK/probe.csv"
fi

# ---- machine and versions
echo "== iopsy bench  $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine: $(nproc) CPUs, $(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo), $(awk '/MemTotal/ {printf "%.1f GiB RAM", $2 / 1048576}' /proc/meminfo), Linux $(uname -r), Debian $(cat /etc/debian_version 2>/dev/null || echo '?')"
echo "tools:   $(wc --version | head -1); mawk $(mawk -W version 2>&1 | head -1 | awk '{print $2, $3}'); GNU time $(dpkg-query -W -f='${Version}' time 2>/dev/null || echo '?'); $("$CC" --version | head -1)"
if [ $HAVE_PANDAS = 1 ]; then
	echo "         $("$PY" -c 'import sys, pandas, numpy; print("python %s, pandas %s, numpy %s" % (sys.version.split()[0], pandas.__version__, numpy.__version__))')"
fi
if [ $HAVE_IOPSY = 1 ]; then
	IV=$("$IOPSY" --version 2>/dev/null | head -1)
	GV=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo 'no commit')
	echo "iopsy:   $IOPSY  ${IV:-(no --version)}  [git $GV]  analyze: $([ $HAVE_ANALYZE = 1 ] && echo yes || echo 'not yet')"
	echo "         extract -o $EXTRACT_OUT$([ "$EXTRACT_OUT" = - ] && echo ' >/dev/null (-o /dev/null would replace the device: see warning)')"
else
	echo "iopsy:   NOT FOUND ($IOPSY) - only the baselines are measured"
fi
echo "regex:   $REGEX   runs: best of $RUNS (shape c: 1 run; SIMD limit and iopsy extract: 3x as many)   rows scale: $SCALE"
[ $HAVE_BEFORE = 1 ] && echo "before:  $IOPSY_BEFORE  $("$IOPSY_BEFORE" --version 2>/dev/null | head -1)  (rows 'extract before', 'analyze before', '... before')"
[ $HAVE_DUCKDB = 1 ] && echo "duckdb:  @duckdb/node-api $(sed -n 's/.*"version": *"\([^"]*\)".*/\1/p' "$WORK/npm/node_modules/@duckdb/node-api/package.json" | head -1), node $(node --version), default threads"
[ $HAVE_LIMIT = 1 ] && echo "limit:   bench/simd_limit.c ($CC -O2 -march=native): only extract's work, see its header"
echo

for S in $SHAPES; do
	case $S in s | h | r | d | t | n) continue ;; esac # issue 17's jobs: below
	COLS=$(shape_cols "$S")
	[ "$COLS" -gt 0 ] || fatal "unknown shape '$S' (known: a b c g x p s h r d t n)"
	ROWS=$(awk -v r="$(shape_rows "$S")" -v s="$SCALE" 'BEGIN {n = int(r * s + 0.5); print n < 1 ? 1 : n}')
	F=$WORK/shape-$S.csv
	say "== shape $S: $COLS columns x $ROWS rows $(shape_opt "$S")"
	t0=$(now_ns)
	# shellcheck disable=SC2046
	"$GEN" "$COLS" "$ROWS" 1 $(shape_opt "$S") -o "$F" || fatal "generator failed for shape $S"
	BYTES=$(fsize "$F")
	NMATCH=$(head -n 1 "$F" | tr ',' '\n' | grep -cE "$REGEX")
	# cut's field list: the matched columns' positions among the header's commas
	CUTF=$(head -n 1 "$F" | tr ',' '\n' | grep -nE "$REGEX" | cut -d: -f1 | paste -sd, -)
	ZBYTES=0
	if [ "$S" = g ]; then
		gzip -6 -c "$F" >"$F.gz" || fatal "gzip failed"
		rm -f "$F"
		F=$F.gz
		ZBYTES=$(fsize "$F")
	fi
	t1=$(now_ns)
	# the file was just written: let its dirty pages reach the disk now, not during the runs
	sync
	printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$S" "$COLS" "$ROWS" "$BYTES" "$NMATCH" "$ZBYTES" >>"$WORK/shapes.tsv.new"
	say "   generated $BYTES bytes$([ "$S" = g ] && echo " ($ZBYTES gzip-compressed)") in $(awk -v t=$((t1 - t0)) 'BEGIN {printf "%.1f", t / 1e9}') s, $NMATCH matched columns"
	N=$RUNS
	[ "$S" = c ] && N=1
	if [ "$S" = g ]; then
		measure "$S" "gzip -dc" "$N" gzip -dc "$F"
	else
		measure "$S" "cat" "$N" cat "$F"
		measure "$S" "wc -l" "$N" wc -l "$F"
	fi
	if [ "$S" != c ] && [ "$S" != g ]; then
		measure "$S" "cut -f LIST" "$N" cut -d, -f "$CUTF" "$F"
		measure "$S" "mawk" "$N" mawk -v "re=$REGEX" -v skip=1 -F, "$AWK_PROG" "$F"
		measure "$S" "mawk lean" "$N" mawk -F'","' -v "re=$REGEX" "$AWK_LEAN" "$F"
		# pandas and DuckDB refuse the glued -a field (shape x): measured on its twin p
		if [ $HAVE_PANDAS = 1 ] && [ "$S" != x ]; then
			measure "$S" "pandas" "$N" "$PY" -c "$PY_PROG" "$F" "$REGEX"
		fi
		if [ $HAVE_DUCKDB = 1 ] && [ "$S" != x ]; then
			measure "$S" "duckdb" "$N" sh -c 'cd "$1" && exec node duckdb_stats.mjs "$2" "$3"' sh "$WORK/npm" "$F" "$REGEX"
		fi
	fi
	# the runs of these few-10-ms tools are cheap: take more, so one noisy run of the limit or of
	# extract (the machine is shared) does not decide the limit ratio
	NF=$N
	[ "$S" != c ] && NF=$((N * 3))
	if [ $HAVE_LIMIT = 1 ] && [ "$S" != g ] && [ "$S" != c ]; then
		measure "$S" "SIMD limit" "$NF" "$LIMIT" "$F" "$REGEX"
	fi
	if [ $HAVE_BEFORE = 1 ]; then
		measure "$S" "extract before" "$N" "$IOPSY_BEFORE" extract "$F" --match "$REGEX" -o "$EXTRACT_OUT"
	fi
	if [ $HAVE_IOPSY = 1 ]; then
		# shellcheck disable=SC2086  # T1 is empty or two words
		measure "$S" "iopsy extract" "$NF" "$IOPSY" extract "$F" --match "$REGEX" -o "$EXTRACT_OUT" $T1
		if [ $HAVE_THREADS = 1 ] && { [ "$S" = a ] || [ "$S" = b ]; }; then
			measure "$S" "extract 2 thr" "$NF" "$IOPSY" extract "$F" --match "$REGEX" -o "$EXTRACT_OUT" --threads 2
			measure "$S" "counters" "$NF" "$IOPSY" counters -q "$F" --threads 1
			measure "$S" "counters 2 thr" "$NF" "$IOPSY" counters -q "$F" --threads 2
		fi
		if [ $HAVE_ANALYZE = 1 ]; then
			if [ $HAVE_BEFORE = 1 ]; then
				measure "$S" "analyze before" "$N" "$IOPSY_BEFORE" analyze "$F" --json "$ANALYZE_OUT"
			fi
			# shellcheck disable=SC2086
			measure "$S" "iopsy analyze" "$N" "$IOPSY" analyze "$F" --json "$ANALYZE_OUT" $T1
			if [ $HAVE_THREADS = 1 ] && { [ "$S" = a ] || [ "$S" = b ]; }; then
				measure "$S" "analyze 2 thr" "$N" "$IOPSY" analyze "$F" --json "$ANALYZE_OUT" --threads 2
			fi
		fi
	fi
	[ "$KEEP" = 1 ] || rm -f "$F"
done
mv "$WORK/shapes.tsv.new" "$WORK/shapes.tsv" 2>/dev/null

# ---- issue 17: reports, the header, a day (paired runs, medians)
# Each job runs the binaries alternately (before, after, before, ...) BENCH_RUNS times or more and
# keeps the median wall time and the largest peak RSS of each, so a load change on the shared
# machine hits both. s: analyze and extract --match on shapes a and b (the quantile sketch and
# the downsampled series are analyze's share). h: a 50,000-column esxtop header with one row, against a 500-column one
# (the process floor): the header's cost per column in extract --match, counters and analyze.
# r: `iopsy simulate` 1 hour (scenario lsi-guest-queue-cap, 2 s interval: 15 findings, 15 charts),
# analyze --json against analyze --html (one gnuplot for all charts). d: a day of esxtop (5,000
# columns, 5 s interval) + perfmon, analyze --json, time and peak RSS.
SAMPLES=$WORK/samples.tsv
: >"$SAMPLES"
# CPU time too, when perf can count task-clock here (the process and its children, gnuplot
# included): it does not grow when other jobs on the machine take the CPU, wall time does.
HAVE_PERF=0
command -v perf >/dev/null 2>&1 && perf stat -x, -e task-clock -o "$WORK/perf.txt" true >/dev/null 2>&1 &&
	grep -q task-clock "$WORK/perf.txt" && HAVE_PERF=1
# run_once JOB TOOL CMD... : one timed run appended to $SAMPLES (wall ns, peak RSS KiB, CPU ns or -).
run_once() {
	r_job=$1 r_tool=$2
	shift 2
	rm -f "$WORK/perf.txt"
	r_t0=$(now_ns)
	if [ $HAVE_PERF = 1 ]; then
		perf stat -x, -e task-clock -o "$WORK/perf.txt" /usr/bin/time -v -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/err.txt"
	else
		/usr/bin/time -v -o "$WORK/time.txt" "$@" >/dev/null 2>"$WORK/err.txt"
	fi
	r_rc=$?
	r_t1=$(now_ns)
	if [ $r_rc -ne 0 ]; then
		say "bench: $r_tool ($r_job) FAILED (exit $r_rc): $*"
		sed -n '1,5p' "$WORK/err.txt" | sed 's/^/    /' >&2
		STATUS=3
		printf '%s\t%s\tFAILED\t0\t-\n' "$r_job" "$r_tool" >>"$SAMPLES"
		return 1
	fi
	r_r=$(awk -F': ' '/Maximum resident set size/ {print $2}' "$WORK/time.txt")
	r_c=-
	[ -f "$WORK/perf.txt" ] && r_c=$(awk -F, '$3 == "task-clock" || $3 ~ /^task-clock/ {printf "%.0f", $1 * 1e6}' "$WORK/perf.txt")
	printf '%s\t%s\t%s\t%s\t%s\n' "$r_job" "$r_tool" $((r_t1 - r_t0)) "${r_r:-0}" "${r_c:--}" >>"$SAMPLES"
}
# pairs JOB N TOOL_SUFFIX ARGS... : N rounds of "before" (when given) then "after" with the same
# arguments; the tools are named "SUFFIX before" and "SUFFIX". The jobs compare CPU time, so both
# read with one thread (IOPSY_THREADS=1: job t measures the threads; an older binary ignores it).
pairs() {
	p_job=$1 p_n=$2 p_name=$3
	shift 3
	p_i=0
	while [ $p_i -lt "$p_n" ]; do
		p_i=$((p_i + 1))
		[ $HAVE_BEFORE = 1 ] && run_once "$p_job" "$p_name before" env IOPSY_THREADS=1 "$IOPSY_BEFORE" "$@"
		run_once "$p_job" "$p_name" env IOPSY_THREADS=1 "$IOPSY" "$@"
	done
}
# Where a run's CPU goes, from one `perf record` (the process and its children): share_record
# JOB WHO CMD... appends "JOB WHO CATEGORY PERCENT" lines to $SHARES. Categories: parsing
# (inflate, read, the field scanner, numbers, the rows into the model), clock (the guest-clock
# estimate and the IOPS-correlation mapping), bootstrap (compare's statistics), gnuplot (its
# processes), other.
SHARES=$WORK/shares.tsv
: >"$SHARES"
HAVE_RECORD=0
command -v perf >/dev/null 2>&1 && perf record -q -o "$WORK/rec-probe.data" true >/dev/null 2>&1 && HAVE_RECORD=1
rm -f "$WORK/rec-probe.data"
share_record() {
	s_job=$1 s_who=$2
	shift 2
	[ $HAVE_RECORD = 1 ] || return 0
	# the tool's own exit status is not perf's failure (analyze exits 1 when it finds something,
	# batch 3 when a set fails): only a missing recording is
	rm -f "$WORK/rec.data"
	perf record -q -F 1999 -o "$WORK/rec.data" -- "$@" >/dev/null 2>&1
	[ -s "$WORK/rec.data" ] || { say "bench: perf record of $s_who ($s_job) failed"; return 0; }
	perf report -i "$WORK/rec.data" --no-children --sort comm,dso,sym --stdio -g none 2>/dev/null |
		awk -v job="$s_job" -v who="$s_who" '
		/^#/ || !/%/ { next }
		{
			pct = $1; sub(/%/, "", pct); comm = $2
			line = $0; dso = $3
			sym = line; sub(/^.*\] /, "", sym)
			if (comm !~ /^iopsy/) { c = (comm ~ /gnuplot|pango|Fc/) ? "gnuplot" : "other" }
			else if (dso ~ /libisal|libz/ || sym ~ /fieldscan|pdh_|parse_number|strtod|str_to_mpn|round_and_return|source_|mtread|chunk_|csv_|model_read|ds_set|ds_row|qs_add|qs_flush|gz_|inflate|crc32|memchr|fast_apply|mt_pull|utf16|raw_read|read_line|_copy_to_iter|filemap|copy_page_to_iter|value_at|__memmove/) c = "parsing"
			else if (sym ~ /correlate|grid_mean|grid_cell|pearson|gser_|auto_map|align_clocks|best_corr|ds_mean|ds_count/) c = "clock"
			else if (sym ~ /side_figures|row_compute|splitmix|count_quantiles|ols_slope|select_q|select_k|rank_cmp|msort|dcmp|cbb|pw_block|bootstrap|sorted_q|median_of|bin_order_stat/) c = "bootstrap"
			else c = "other"
			tot[c] += pct; all += pct
		}
		END { for (c in tot) printf "%s\t%s\t%s\t%.1f\n", job, who, c, (all > 0 ? 100 * tot[c] / all : 0) }' >>"$SHARES"
	rm -f "$WORK/rec.data"
}
HAVE_GNUPLOT=0
{ [ -n "${IOPSY_GNUPLOT:-}" ] && [ -x "$IOPSY_GNUPLOT" ]; } || command -v gnuplot >/dev/null 2>&1 && HAVE_GNUPLOT=1
HAVE_SIM=0
[ $HAVE_ANALYZE = 1 ] && "$IOPSY" simulate --help >/dev/null 2>&1 && HAVE_SIM=1
for S in $SHAPES; do
	case $S in s | h | r | d | t | n) ;; *) continue ;; esac
	if [ $HAVE_ANALYZE = 0 ]; then
		say "bench: job $S SKIPPED (needs iopsy analyze)"
		continue
	fi
	case $S in
	s)
		say "== job s: analyze and extract --match on shapes a and b, paired"
		for z in a b; do
			ZR=$(awk -v r="$(shape_rows "$z")" -v s="$SCALE" 'BEGIN {n = int(r * s + 0.5); print n < 1 ? 1 : n}')
			"$GEN" "$(shape_cols "$z")" "$ZR" 1 -o "$WORK/job-s-$z.csv" || fatal "generator failed"
		done
		sync
		for k in 1 2 3; do
			for z in a b; do
				pairs s "$RUNS" "extract $z" extract "$WORK/job-s-$z.csv" --match "$REGEX" -o "$EXTRACT_OUT"
				pairs s "$RUNS" "analyze $z" analyze "$WORK/job-s-$z.csv" --json "$ANALYZE_OUT"
			done
		done
		[ "$KEEP" = 1 ] || rm -f "$WORK/job-s-a.csv" "$WORK/job-s-b.csv"
		;;
	h)
		say "== job h: the header, 50,000 columns (4.4 MB) and 500 columns, one row each"
		"$GEN" 50000 1 1 -o "$WORK/hdr-50000.csv" && "$GEN" 500 1 1 -o "$WORK/hdr-500.csv" || fatal "generator failed"
		sync
		for k in 1 2 3 4 5 6 7; do
			for c in 500 50000; do
				pairs h "$RUNS" "extract $c" extract "$WORK/hdr-$c.csv" --match "$REGEX" -o "$EXTRACT_OUT"
				pairs h "$RUNS" "counters $c" counters -q "$WORK/hdr-$c.csv"
				pairs h "$RUNS" "analyze $c" analyze "$WORK/hdr-$c.csv" --json "$ANALYZE_OUT"
			done
		done
		[ "$KEEP" = 1 ] || rm -f "$WORK/hdr-50000.csv" "$WORK/hdr-500.csv"
		;;
	r)
		if [ $HAVE_SIM = 0 ]; then say "bench: job r SKIPPED (needs iopsy simulate)"; continue; fi
		if [ $HAVE_GNUPLOT = 0 ]; then say "bench: job r SKIPPED (gnuplot not found: apt-get install -y gnuplot-nox)"; continue; fi
		say "== job r: 1-hour capture (simulate lsi-guest-queue-cap), analyze --json vs analyze --html"
		"$IOPSY" simulate --scenario lsi-guest-queue-cap --duration 3600 --out "$WORK/hour" >/dev/null || fatal "simulate failed"
		sync
		for k in 1 2 3; do
			pairs r "$RUNS" "analyze" analyze -q "$WORK/hour/esxtop.csv" "$WORK/hour/perfmon.csv" --json "$ANALYZE_OUT"
			pairs r "$RUNS" "analyze --html" analyze -q "$WORK/hour/esxtop.csv" "$WORK/hour/perfmon.csv" --html "$WORK/hour/report.html"
		done
		CHARTS=$(grep -c '<figure class="chart"' "$WORK/hour/report.html" 2>/dev/null || echo 0)
		echo "$CHARTS" >"$WORK/hour-charts.txt"
		[ "$KEEP" = 1 ] || rm -rf "$WORK/hour"
		;;
	d)
		if [ $HAVE_SIM = 0 ]; then say "bench: job d SKIPPED (needs iopsy simulate)"; continue; fi
		say "== job d: a day, esxtop 5,000 columns x 17,280 rows (5 s) + perfmon (simulate, ~0.7 GB)"
		"$IOPSY" simulate --scenario lsi-guest-queue-cap --duration 86400 --interval 5 --width 5000 --out "$WORK/day" >/dev/null ||
			fatal "simulate failed"
		sync
		pairs d "$RUNS" "analyze" analyze -q "$WORK/day/esxtop.csv" "$WORK/day/perfmon.csv" --json "$ANALYZE_OUT"
		if [ $HAVE_THREADS = 1 ]; then
			k=0
			while [ $k -lt "$RUNS" ]; do
				k=$((k + 1))
				run_once d "analyze 2 thr" "$IOPSY" analyze -q "$WORK/day/esxtop.csv" "$WORK/day/perfmon.csv" --json "$ANALYZE_OUT" --threads 2
			done
		fi
		[ $HAVE_BEFORE = 1 ] && share_record d before env IOPSY_THREADS=1 "$IOPSY_BEFORE" analyze -q "$WORK/day/esxtop.csv" "$WORK/day/perfmon.csv" --json "$ANALYZE_OUT"
		share_record d after env IOPSY_THREADS=1 "$IOPSY" analyze -q "$WORK/day/esxtop.csv" "$WORK/day/perfmon.csv" --json "$ANALYZE_OUT"
		[ "$KEEP" = 1 ] || rm -rf "$WORK/day"
		;;
	t)
		if [ $HAVE_THREADS = 0 ]; then say "bench: job t SKIPPED (iopsy has no --threads)"; continue; fi
		say "== job t: one thread against two, shapes a and b: cat, extract, counters, analyze (paired)"
		for z in a b; do
			ZR=$(awk -v r="$(shape_rows "$z")" -v s="$SCALE" 'BEGIN {n = int(r * s + 0.5); print n < 1 ? 1 : n}')
			"$GEN" "$(shape_cols "$z")" "$ZR" 1 -o "$WORK/job-t-$z.csv" || fatal "generator failed"
		done
		sync
		k=0
		while [ $k -lt $((3 * RUNS)) ]; do
			k=$((k + 1))
			for z in a b; do
				F=$WORK/job-t-$z.csv
				run_once t "cat $z" cat "$F"
				if [ $HAVE_BEFORE = 1 ]; then
					run_once t "extract $z before" "$IOPSY_BEFORE" extract "$F" --match "$REGEX" -o "$EXTRACT_OUT"
					run_once t "counters $z before" "$IOPSY_BEFORE" counters -q "$F"
				fi
				for th in 1 2; do
					run_once t "extract $z $th" "$IOPSY" extract "$F" --match "$REGEX" -o "$EXTRACT_OUT" --threads $th
					run_once t "counters $z $th" "$IOPSY" counters -q "$F" --threads $th
					run_once t "analyze $z $th" "$IOPSY" analyze "$F" --json "$ANALYZE_OUT" --threads $th
				done
			done
		done
		[ "$KEEP" = 1 ] || rm -f "$WORK/job-t-a.csv" "$WORK/job-t-b.csv"
		;;
	n)
		if [ $HAVE_SIM = 0 ]; then say "bench: job n SKIPPED (needs iopsy simulate)"; continue; fi
		"$IOPSY" batch --help >/dev/null 2>&1 || { say "bench: job n SKIPPED (needs iopsy batch)"; continue; }
		say "== job n: batch of 20 sets (simulate, 1 h at 5 s, esxtop 3,000 columns, gzip; two before/after pairs)"
		rm -rf "$WORK/b20"
		i=0
		for sc in healthy lsi-guest-queue-cap pvscsi-after device-queue-overcommit backend-saturated adaptive-queue-depth \
			sioc-throttle dsnro-cap adapter-overcommit split-io misaligned-partition incident-20min flicker two-host-lu \
			sioc-flash nfs-datastore log-disk-slow sql-log-wait-storage migration unchanged-pair; do
			i=$((i + 1))
			"$IOPSY" simulate --scenario "$sc" --out "$(printf '%s/b20/%02d-%s' "$WORK" $i "$sc")" --duration 3600 --interval 5 \
				--width 3000 --gzip --seed $i >/dev/null || fatal "simulate $sc failed"
		done
		sync
		# a fresh --out each run (the history would grow); -j 2 as on this machine's two cores
		BATCH='rm -rf "$1"; exec "$2" batch "$3" --out "$1" -j 2 -q'
		k=0
		while [ $k -lt "$RUNS" ]; do
			k=$((k + 1))
			[ $HAVE_BEFORE = 1 ] && run_once n "batch before" sh -c "$BATCH" sh "$WORK/b20out" "$IOPSY_BEFORE" "$WORK/b20"
			run_once n "batch" sh -c "$BATCH" sh "$WORK/b20out" "$IOPSY" "$WORK/b20"
		done
		[ $HAVE_BEFORE = 1 ] && share_record n before sh -c "$BATCH" sh "$WORK/b20out" "$IOPSY_BEFORE" "$WORK/b20"
		share_record n after sh -c "$BATCH" sh "$WORK/b20out" "$IOPSY" "$WORK/b20"
		[ "$KEEP" = 1 ] || rm -rf "$WORK/b20" "$WORK/b20out"
		;;
	esac
done
# medians into the results, one row per job and tool
awk -F'\t' '
function median(arr, m,    a, b, t) {
	for (a = 2; a <= m; a++) { t = arr[a]; for (b = a - 1; b >= 1 && arr[b] + 0 > t + 0; b--) arr[b + 1] = arr[b]; arr[b + 1] = t }
	return m % 2 ? arr[(m + 1) / 2] : (arr[m / 2] + arr[m / 2 + 1]) / 2
}
{ key = $1 SUBSEP $2; if (!(key in n)) order[++nk] = key; if ($3 == "FAILED") failed[key] = 1; else { v[key, ++n[key]] = $3; if ($5 != "-" && $5 != "") c[key, ++nc[key]] = $5 }
  if ($4 > rss[key]) rss[key] = $4 }
END {
	for (i = 1; i <= nk; i++) {
		key = order[i]; split(key, kk, SUBSEP)
		if (key in failed || !n[key]) { printf "J%s\t%s\tFAILED\t0\t0\t-\n", kk[1], kk[2]; continue }
		m = n[key]
		for (a = 1; a <= m; a++) x[a] = v[key, a]
		med = median(x, m)
		cm = "-"
		if (nc[key] == m) { for (a = 1; a <= m; a++) y[a] = c[key, a]; cm = sprintf("%.0f", median(y, m)) }
		printf "J%s\t%s\t%.0f\t%s\t%d\t%s\n", kk[1], kk[2], med, rss[key], m, cm
	}
}' "$SAMPLES" >"$WORK/jobs.tsv"

# ---- report
[ -f "$WORK/shapes.tsv" ] || : >"$WORK/shapes.tsv"
awk -F'\t' -v t_mawk=$T_VS_MAWK -v t_pandas=$T_VS_PANDAS -v t_rss=$T_RSS_MIB -v t_growth=$T_GROWTH_PCT \
	-v t_limit=$T_LIMIT_PCT -v t_glue=$T_GLUE_PCT -v t_gzip=$T_GZIP_MBS \
	-v have_iopsy=$HAVE_IOPSY -v have_pandas=$HAVE_PANDAS '
FILENAME ~ /shapes/ { cols[$1] = $2; rows[$1] = $3; bytes[$1] = $4; nm[$1] = $5; zb[$1] = $6; order[++ns] = $1; next }
{ key = $1 SUBSEP $2; t[key] = $3; rss[key] = $4; tools[$1, ++nt[$1]] = $2 }
function ok(x) { return x != "" && x != "FAILED" }
function ratio(base, x) { return (!ok(base) || !ok(x) || x == 0) ? "-" : sprintf("%.2f", base / x) }
function pct(base, x) { return (!ok(base) || !ok(x) || x == 0) ? "-" : sprintf("%.0f%%", 100 * base / x) }
function mbs(s, tool) { x = t[s SUBSEP tool]; return ok(x) ? bytes[s] * 1e3 / x : 0 }
BEGIN { desc["a"] = "plain"; desc["b"] = "wide"; desc["c"] = "10x rows of a"; desc["g"] = "a, gzip-compressed";
	desc["x"] = "a as esxtop -a on ESXi 6.x (glued field)"; desc["p"] = "x with the field quoted" }
END {
	print "times: best wall-clock seconds; MB/s = file bytes / 1e6 / seconds (shape g: decompressed bytes);"
	print "limit = time of the SIMD limit / time of the tool; vs X = time of X / time of tool (> 1 means"
	print "faster than X); peak RSS = max of the runs (/usr/bin/time -v). Files are in the page cache."
	for (o = 1; o <= ns; o++) {
		s = order[o]
		printf "\nshape %s (%s): %d columns x %d rows, %.1f MB%s, %d matched columns\n", s, desc[s], cols[s], rows[s], \
			bytes[s] / 1e6, (zb[s] > 0 ? sprintf(" (%.1f MB gzip)", zb[s] / 1e6) : ""), nm[s]
		printf "  %-15s %8s %8s %6s %6s %6s %7s %7s %7s %9s\n", "tool", "seconds", "MB/s", "limit", "vs cat", "vs wc", "vs mawk", \
			"vs pand", "vs duck", "RSS MiB"
		base_cat = (s == "g") ? t[s SUBSEP "gzip -dc"] : t[s SUBSEP "cat"]
		for (i = 1; i <= nt[s]; i++) {
			tool = tools[s, i]; key = s SUBSEP tool; x = t[key]
			if (x == "FAILED") { printf "  %-15s %8s\n", tool, "FAILED"; continue }
			printf "  %-15s %8.3f %8.1f %6s %6s %6s %7s %7s %7s %9.1f\n", tool, x / 1e9, bytes[s] * 1e3 / x, \
				pct(t[s SUBSEP "SIMD limit"], x), ratio(base_cat, x), ratio(t[s SUBSEP "wc -l"], x), ratio(t[s SUBSEP "mawk"], x), \
				ratio(t[s SUBSEP "pandas"], x), ratio(t[s SUBSEP "duckdb"], x), rss[key] / 1024
		}
	}
	print ""
	if (!have_iopsy) { print "SKIP  targets: iopsy binary not available"; exit }
	print "targets (before = IOPSY_BEFORE measured in this run, when given):"
	for (o = 1; o <= ns; o++) {
		s = order[o]; if (s == "c" || s == "g") continue
		x = t[s SUBSEP "iopsy extract"]
		if (!ok(x)) { print "FAIL  shape " s ": iopsy extract did not run"; continue }
		m = t[s SUBSEP "mawk"]; p = t[s SUBSEP "pandas"]
		if (ok(m)) printf "%s  shape %s: iopsy extract %.2fx mawk speed (target >= %gx)\n", (m / x >= t_mawk ? "PASS" : "FAIL"), s, m / x, t_mawk
		if (ok(p)) printf "%s  shape %s: iopsy extract %.2fx pandas speed (target >= %gx)\n", (p / x >= t_pandas ? "PASS" : "FAIL"), s, p / x, t_pandas
		else if (s != "x") printf "SKIP  shape %s: pandas baseline not available\n", s
		r = rss[s SUBSEP "iopsy extract"] / 1024
		printf "%s  shape %s: iopsy extract peak RSS %.1f MiB (target <= %g MiB)\n", (r <= t_rss ? "PASS" : "FAIL"), s, r, t_rss
	}
	for (o = 1; o <= ns; o++) {
		s = order[o]; if (s != "a" && s != "b") continue
		l = t[s SUBSEP "SIMD limit"]; x = t[s SUBSEP "iopsy extract"]; bx = t[s SUBSEP "extract before"]
		if (!ok(l) || !ok(x)) { print "SKIP  shape " s ": SIMD limit or extract missing"; continue }
		printf "%s  shape %s: iopsy extract (1 thread) at %.0f%% of the SIMD limit (%.0f vs %.0f MB/s; target >= %g%%%s)%s\n", \
			(s != "a" ? "INFO" : 100 * l / x >= t_limit ? "PASS" : "FAIL"), s, 100 * l / x, mbs(s, "iopsy extract"), mbs(s, "SIMD limit"), t_limit, \
			s != "a" ? ", judged on shape a" : "", ok(bx) ? sprintf("; before %.0f%%", 100 * l / bx) : ""
	}
	if (ok(t["x" SUBSEP "iopsy extract"]) && ok(t["p" SUBSEP "iopsy extract"])) {
		x = t["x" SUBSEP "iopsy extract"]; p = t["p" SUBSEP "iopsy extract"]
		bx = t["x" SUBSEP "extract before"]; bp = t["p" SUBSEP "extract before"]
		printf "%s  -a glued field: iopsy extract on x takes %+.0f%% of the time on p (target <= +%g%%)%s\n", \
			(100 * (x - p) / p <= t_glue ? "PASS" : "FAIL"), 100 * (x - p) / p, t_glue, \
			ok(bx) && ok(bp) ? sprintf("; before %+.0f%%", 100 * (bx - bp) / bp) : ""
	} else print "SKIP  -a glued field: needs iopsy extract on shapes x and p"
	if (ok(t["g" SUBSEP "iopsy extract"])) {
		v = mbs("g", "iopsy extract")
		printf "%s  gzip: iopsy extract %.0f MB/s decompressed (target >= %g MB/s)%s%s\n", (v >= t_gzip ? "PASS" : "FAIL"), v, t_gzip, \
			ok(t["g" SUBSEP "extract before"]) ? sprintf("; before %.0f MB/s", mbs("g", "extract before")) : "", \
			ok(t["g" SUBSEP "gzip -dc"]) ? sprintf("; gzip -dc %.0f MB/s", mbs("g", "gzip -dc")) : ""
	} else print "SKIP  gzip: needs iopsy extract on shape g"
	if (("c" SUBSEP "iopsy extract") in rss && ok(t["c" SUBSEP "iopsy extract"]) && (("a" SUBSEP "iopsy extract") in rss) && ok(t["a" SUBSEP "iopsy extract"])) {
		ra = rss["a" SUBSEP "iopsy extract"]; rc = rss["c" SUBSEP "iopsy extract"]
		g = (rc - ra) * 100 / ra
		printf "%s  RSS growth of iopsy extract, shape a -> c (%dx rows): %.1f MiB -> %.1f MiB = %+.1f%% (target < %g%%)\n", \
			(g < t_growth ? "PASS" : "FAIL"), rows["c"] / rows["a"], ra / 1024, rc / 1024, g, t_growth
		if (("c" SUBSEP "iopsy analyze") in rss && ("a" SUBSEP "iopsy analyze") in rss) {
			ra = rss["a" SUBSEP "iopsy analyze"]; rc = rss["c" SUBSEP "iopsy analyze"]
			printf "INFO  RSS growth of iopsy analyze, shape a -> c: %.1f MiB -> %.1f MiB = %+.1f%%\n", ra / 1024, rc / 1024, (rc - ra) * 100 / ra
		}
	} else print "SKIP  RSS growth: needs iopsy extract on shapes a and c"
}' "$WORK/shapes.tsv" "$RESULTS"

# ---- report: issue 17's jobs and targets
CHARTS=$(cat "$WORK/hour-charts.txt" 2>/dev/null || echo '?')
awk -F'\t' -v t_html=$T_HTML_X -v t_cat=$T_CAT_PCT -v t_ax=$T_AX -v t_amawk=$T_AMAWK -v t_clock=$T_CLOCK_PCT \
	-v t_parse=$T_PARSE_PCT -v t_limit=$T_LIMIT_PCT -v t_glue=$T_GLUE_PCT -v t_gzip=$T_GZIP_MBS \
	-v have_before=$HAVE_BEFORE -v charts="$CHARTS" '
FILENAME ~ /results/ { t[$1, $2] = $3; rss[$1, $2] = $4; next }
FILENAME ~ /shares/ { sh[$1, $2, $3] = $4; hsh[$1, $2] = 1; next }
FILENAME ~ /shapes/ { bytes[$1] = $4; next }
{ j = substr($1, 2); w[j, $2] = $3; rss[j, $2] = $4; nrun[j, $2] = $5; cpu[j, $2] = $6; have[j] = 1
  if ($6 == "-" || $6 == "") nocpu = 1 }
function ok(x) { return x != "" && x != "FAILED" && x != "-" }
# the figure a job is judged on: CPU (task-clock) when every run had it, else wall
function val(j, tool) { return nocpu ? w[j, tool] : cpu[j, tool] }
function sec(x) { return ok(x) ? sprintf("%.4f", x / 1e9) : "-" }
function mib(j, tool) { return ok(w[j, tool]) ? sprintf("%.1f", rss[j, tool] / 1024) : "-" }
function usc(j, what, suffix) { a = val(j, what " 50000" suffix); b = val(j, what " 500" suffix)
	return ok(a) && ok(b) ? sprintf("%.3f", (a - b) / 1e3 / 49500) : "-" }
function rat(a, b) { return ok(a) && ok(b) && b > 0 ? sprintf("%.2fx", a / b) : "-" }
function pc(a, b) { return ok(a) && ok(b) && b > 0 ? sprintf("%.0f%%", 100 * a / b) : "-" }
function row(j, tool, label) {
	printf "  %-26s %9s %9s %9s %9s %8s %8s  [%d]\n", label, sec(w[j, tool " before"]), sec(w[j, tool]), sec(cpu[j, tool " before"]),
		sec(cpu[j, tool]), mib(j, tool " before"), mib(j, tool), nrun[j, tool]
}
function head(j) { printf "  %-26s %9s %9s %9s %9s %8s %8s  [%s]\n", "tool", "wall bef", "wall aft", "CPU bef", "CPU aft", "MiB bef", "MiB aft", "runs" }
function shares(j, who,    c, n, out) {
	if (!hsh[j, who]) return "-"
	split("parsing clock bootstrap gnuplot other", cs, " ")
	out = ""
	for (n = 1; n <= 5; n++) { c = cs[n]; if ((j SUBSEP who SUBSEP c) in sh) out = out sprintf("%s%s %s%%", out == "" ? "" : ", ", c, sh[j, who, c]) }
	return out
}
function share(j, who, c) { return hsh[j, who] ? ((j SUBSEP who SUBSEP c) in sh ? sh[j, who, c] + 0 : 0) : -1 }
END {
	if (!have["s"] && !have["h"] && !have["r"] && !have["d"] && !have["t"] && !have["n"]) exit
	print ""
	print "issue 17 jobs: before (IOPSY_BEFORE) and after (IOPSY) run alternately; median seconds of wall time and"
	print "of CPU time (perf task-clock of the process and its children, gnuplot included), largest peak RSS."
	printf "Ratios and per-column figures use %s. Jobs s h r d n read with one\n", nocpu ? "wall time (no perf here)" : "CPU time (wall time grows with the other jobs on a shared machine)"
	print "thread (IOPSY_THREADS=1); job t (and d'"'"'s \"2 thr\" row) measure the threads, by wall time."
	if (have["s"]) {
		print ""
		print "job s: shapes a (13,000 columns x 2,000 rows) and b (50,000 x 200): analyze and extract --match"
		head("s")
		for (k = 1; k <= 2; k++) {
			z = k == 1 ? "a" : "b"
			row("s", "analyze " z, "analyze, shape " z)
			row("s", "extract " z, "extract --match, shape " z)
		}
	}
	if (have["h"]) {
		print ""
		print "job h: the header, esxtop 50,000 columns (4.4 MB) x 1 row; floor: the same with 500 columns"
		head("h")
		split("extract counters analyze", ww, " ")
		for (i = 1; i <= 3; i++) {
			row("h", ww[i] " 50000", ww[i] (ww[i] == "extract" ? " --match" : "") " 50000")
			row("h", ww[i] " 500", ww[i] (ww[i] == "extract" ? " --match" : "") " 500")
			printf "  %-26s %9s us before, %s us after\n", "  per column", usc("h", ww[i], " before"), usc("h", ww[i], "")
		}
	}
	if (have["r"]) {
		print ""
		printf "job r: a 1-hour capture (simulate lsi-guest-queue-cap, esxtop + perfmon, %s charts)\n", charts
		head("r")
		row("r", "analyze", "analyze --json")
		row("r", "analyze --html", "analyze --html")
		printf "  %-26s %9s %9s %9s %9s\n", "--html / --json", rat(w["r", "analyze --html before"], w["r", "analyze before"]),
			rat(w["r", "analyze --html"], w["r", "analyze"]), rat(cpu["r", "analyze --html before"], cpu["r", "analyze before"]),
			rat(cpu["r", "analyze --html"], cpu["r", "analyze"])
	}
	if (have["d"]) {
		print ""
		print "job d: a day, esxtop 5,000 columns x 17,280 rows (5 s) + perfmon (simulate lsi-guest-queue-cap)"
		head("d")
		row("d", "analyze", "analyze --json")
		if (("d" SUBSEP "analyze 2 thr") in w) row("d", "analyze 2 thr", "analyze --json, 2 threads")
		printf "  %-26s before: %s\n", "where the CPU goes", shares("d", "before")
		printf "  %-26s after:  %s\n", "", shares("d", "after")
		print "  (clock = the guest-clock estimate and the IOPS-correlation mapping: correlate and what it calls, topology'"'"'s best_corr)"
	}
	if (have["t"]) {
		print ""
		print "job t: one thread against two (the same binary), median wall / CPU seconds, % of cat = cat'"'"'s wall time / the tool'"'"'s"
		printf "  %-26s %9s %9s %9s %9s %8s %8s  %s\n", "tool", "wall 1", "wall 2", "CPU 1", "CPU 2", "MiB 1", "MiB 2", "% of cat 1 -> 2 (before)"
		for (k = 1; k <= 2; k++) {
			z = k == 1 ? "a" : "b"
			printf "  %-26s %9s %9s %9s %9s %8s %8s\n", "cat, shape " z, sec(w["t", "cat " z]), "", sec(cpu["t", "cat " z]), "", mib("t", "cat " z), ""
			split("extract counters analyze", ww, " ")
			for (i = 1; i <= 3; i++) {
				a = ww[i] " " z " 1"; b = ww[i] " " z " 2"
				printf "  %-26s %9s %9s %9s %9s %8s %8s  %s -> %s%s\n", ww[i] ", shape " z, sec(w["t", a]), sec(w["t", b]), sec(cpu["t", a]),
					sec(cpu["t", b]), mib("t", a), mib("t", b), pc(w["t", "cat " z], w["t", a]), pc(w["t", "cat " z], w["t", b]),
					ok(w["t", ww[i] " " z " before"]) ? " (" pc(w["t", "cat " z], w["t", ww[i] " " z " before"]) ")" : ""
			}
		}
	}
	if (have["n"]) {
		print ""
		print "job n: batch of 20 sets (simulate, 1 h at 5 s, esxtop 3,000 columns + perfmon, gzip; 2 of them before/after pairs), -j 2"
		head("n")
		row("n", "batch", "batch")
		printf "  %-26s before: %s\n", "where the CPU goes", shares("n", "before")
		printf "  %-26s after:  %s\n", "", shares("n", "after")
		print "  (parsing = inflate, read, field scanner, numbers, rows into the model; bootstrap = compare'"'"'s statistics)"
	}
	print ""
	print "targets of issue 17 in this run (today = IOPSY_BEFORE, new = IOPSY; issue = the figure the issue was filed with):"
	f = "  %-46s %-12s %-10s %-10s %-22s %s\n"
	printf f, "job", "issue", "today", "new", "target", ""
	if (ok(t["a", "SIMD limit"]) && ok(t["a", "iopsy extract"])) {
		l = t["a", "SIMD limit"]
		printf f, "extract, plain capture, 1 thread (shape a)", "24% limit", ok(t["a", "extract before"]) ? sprintf("%.0f%%", 100 * l / t["a", "extract before"]) : "-",
			sprintf("%.0f%%", 100 * l / t["a", "iopsy extract"]), ">= " t_limit "% of limit", (100 * l / t["a", "iopsy extract"] >= t_limit ? "PASS" : "FAIL")
	}
	if (have["t"]) {
		split("extract counters", ww, " ")
		for (i = 1; i <= 2; i++) {
			c2 = w["t", ww[i] " a 2"]; cb = w["t", ww[i] " a before"]; ca = w["t", "cat a"]
			if (!ok(c2) || !ok(ca)) continue
			printf f, ww[i] ", 2 threads, shape a (% of cat)", "-", pc(ca, cb), pc(ca, c2), ">= " t_cat "% of cat", (100 * ca / c2 >= t_cat ? "PASS" : "FAIL")
		}
	}
	if (ok(t["x", "iopsy extract"]) && ok(t["p", "iopsy extract"])) {
		x = t["x", "iopsy extract"]; p = t["p", "iopsy extract"]; bx = t["x", "extract before"]; bp = t["p", "extract before"]
		printf f, "extract on -a (x) vs without the glued field (p)", "+220%", ok(bx) && ok(bp) ? sprintf("%+.0f%%", 100 * (bx - bp) / bp) : "-",
			sprintf("%+.0f%%", 100 * (x - p) / p), "<= +" t_glue "%", 100 * (x - p) / p <= t_glue ? "PASS" : "FAIL"
	}
	for (k = 1; k <= 2 && have["s"]; k++) {
		z = k == 1 ? "a" : "b"
		x = val("s", "analyze " z); bx = val("s", "analyze " z " before")
		e = val("s", "extract " z); be = val("s", "extract " z " before")
		if (ok(x) && ok(e))
			printf f, "analyze vs extract, shape " z " (CPU, 1 thread)", "1.2-1.5x", ok(bx) && ok(be) ? sprintf("%.2fx", bx / be) : "-",
				sprintf("%.2fx", x / e), "<= " t_ax "x", x / e <= t_ax ? "PASS" : "FAIL"
	}
	for (k = 1; k <= 2; k++) {
		z = k == 1 ? "a" : "b"
		m = t[z, "mawk lean"]; a2 = t[z, "analyze 2 thr"]; a1 = t[z, "iopsy analyze"]; ab = t[z, "analyze before"]
		a = ok(a2) ? a2 : a1
		if (ok(m) && ok(a))
			printf f, "analyze vs lean mawk, shape " z " (" (ok(a2) ? "2 thr" : "1 thr") ", wall)", "-", ok(ab) ? sprintf("%.1fx", m / ab) : "-",
				sprintf("%.1fx", m / a), ">= " t_amawk "x", (m / a >= t_amawk ? (z == "a" ? "PASS" : "INFO") : (z == "a" ? "FAIL" : "INFO"))
	}
	for (k = 1; k <= 2 && have["s"]; k++) {
		z = k == 1 ? "a" : "b"
		x = val("s", "analyze " z); bx = val("s", "analyze " z " before")
		if (ok(x))
			printf f, "analyze shape " z " (CPU, 1 thread)", "19% misses", ok(bx) ? sprintf("%.1f ms", bx / 1e6) : "-",
				sprintf("%.1f ms", x / 1e6), "faster", ok(bx) ? (x < bx ? "PASS" : "FAIL") : "INFO"
	}
	if (have["d"]) {
		b = val("d", "analyze before"); a = val("d", "analyze")
		printf f, "analyze of a day-long esxtop + perfmon pair", "-", ok(b) ? sprintf("%.2f s", b / 1e9) : "-",
			ok(a) ? sprintf("%.2f s", a / 1e9) : "-", "(CPU, 1 thread)", "INFO"
		cb = share("d", "before", "clock"); ca = share("d", "after", "clock")
		if (ca >= 0)
			printf f, "  its clock estimate and IOPS mapping", "39%", (cb >= 0 ? sprintf("%.1f%%", cb) : "-"), sprintf("%.1f%%", ca),
				"<= " t_clock "%", ca <= t_clock ? "PASS" : "FAIL"
		if (("d" SUBSEP "analyze 2 thr") in w)
			printf f, "  with 2 threads (wall)", "-", sprintf("%.2f s", w["d", "analyze"] / 1e9) " (1)", sprintf("%.2f s", w["d", "analyze 2 thr"] / 1e9), "", "INFO"
		rb = rss["d", "analyze before"]; ra = rss["d", "analyze"]
		printf f, "peak RSS, that day-long analyze", "11-59 MiB", ok(b) ? sprintf("%.1f MiB", rb / 1024) : "-", sprintf("%.1f MiB", ra / 1024),
			"unchanged or lower", ok(b) ? (ra <= rb * 1.02 ? "PASS" : "FAIL") : "INFO"
	}
	if (ok(t["g", "iopsy extract"]) && bytes["g"] > 0) {
		v = bytes["g"] * 1e3 / t["g", "iopsy extract"]
		printf f, "gzip capture, decompressed MB/s", "650", ok(t["g", "extract before"]) ? sprintf("%.0f", bytes["g"] * 1e3 / t["g", "extract before"]) : "-",
			sprintf("%.0f", v), ">= " t_gzip, (v >= t_gzip ? "PASS" : "FAIL")
	}
	if (have["r"]) {
		b = val("r", "analyze --html before") / val("r", "analyze before"); a = val("r", "analyze --html") / val("r", "analyze")
		printf f, "analyze --html vs analyze, 1-hour capture", "11x", have_before ? sprintf("%.2fx", b) : "-", sprintf("%.2fx", a),
			"<= " t_html "x", a <= t_html ? "PASS" : "FAIL"
	}
	if (have["n"]) {
		pb = share("n", "before", "parsing"); pa = share("n", "after", "parsing")
		if (pa >= 0)
			printf f, "batch of 20 sets: share of CPU in parsing", "6%", (pb >= 0 ? sprintf("%.0f%%", pb) : "-"), sprintf("%.0f%%", pa),
				">= " t_parse "%", (pa >= t_parse ? "PASS" : "FAIL")
		b = val("n", "batch before"); a = val("n", "batch")
		printf f, "  its CPU time (children included)", "-", ok(b) ? sprintf("%.2f s", b / 1e9) : "-", ok(a) ? sprintf("%.2f s", a / 1e9) : "-",
			"lower", ok(b) ? (a < b ? "PASS" : "FAIL") : "INFO"
	}
	if (have["h"]) {
		printf f, "header per column, extract --match (50,000)", "0.5-0.84 us", usc("h", "extract", " before") " us",
			usc("h", "extract", "") " us", "lookup, not regex", "INFO"
		printf f, "header per column, analyze (50,000)", "0.5-0.84 us", usc("h", "analyze", " before") " us", usc("h", "analyze", "") " us", "", "INFO"
		printf f, "header per column, counters (50,000)", "-", usc("h", "counters", " before") " us", usc("h", "counters", "") " us", "", "INFO"
	}
	for (k = 1; k <= 2; k++) {
		s = k == 1 ? "a" : "b"
		ra = rss[s, "iopsy analyze"]; rb = rss[s, "analyze before"]
		if (ok(t[s, "iopsy analyze"]) && ok(t[s, "analyze before"]))
			printf f, "peak RSS, analyze shape " s " (1 thread)", "11-59 MiB", sprintf("%.1f MiB", rb / 1024), sprintf("%.1f MiB", ra / 1024),
				"unchanged or lower", ra <= rb * 1.02 ? "PASS" : "FAIL"
		r2 = rss[s, "analyze 2 thr"]
		if (ok(t[s, "analyze 2 thr"]) && ok(t[s, "analyze before"]))
			printf f, "peak RSS, analyze shape " s " (2 threads)", "11-59 MiB", sprintf("%.1f MiB", rb / 1024), sprintf("%.1f MiB", r2 / 1024),
				"unchanged or lower", r2 <= rb * 1.02 ? "PASS" : "FAIL"
	}
}' "$RESULTS" "$WORK/shapes.tsv" "$SHARES" "$WORK/jobs.tsv"

[ $HAVE_IOPSY = 1 ] || STATUS=3
exit $STATUS
