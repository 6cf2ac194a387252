#!/bin/sh
# valgrind.sh — memcheck over the unit suites (CK_FORK=no, so the tests run in one process that
# valgrind sees) and over every golden case (iopsy through a valgrind wrapper; its reports go to
# log files so stdout/stderr/exit code are still compared). Any memory error or definite/indirect
# leak fails. Needs a non-sanitized build. tests/valgrind.supp holds the one known false positive
# (PCRE2 JIT code reading past the subject).
# The batch part runs tests/batch.sh with `iopsy batch` and `iopsy history` under memcheck (the
# set workers are forks, so they are checked too; simulate runs natively to save time).
# Usage: tests/valgrind.sh BUILD_DIR     (BUILD_DIR/iopsy and BUILD_DIR/check_iopsy; default build)
# Env:   CK_RUN_SUITE=pdh (one Check suite), VALGRIND_SKIP_UNIT=1, VALGRIND_SKIP_GOLDEN=1,
#        VALGRIND_SKIP_BATCH=1
# Prints "valgrind: N passed, M failed".
set -u
B=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 2
case $B in /*) ;; *) B=$top/$B ;; esac
command -v valgrind >/dev/null 2>&1 || { echo "valgrind: not installed (apt-get install valgrind)"; exit 2; }
T=$(mktemp -d "${TMPDIR:-/tmp}/iopsy-valgrind.XXXXXX") || exit 2
trap 'rm -rf "$T"' EXIT
VG="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=99 --suppressions=$top/tests/valgrind.supp"
pass=0 fail=0

if [ -z "${VALGRIND_SKIP_UNIT:-}" ]; then
	# shellcheck disable=SC2086
	CK_FORK=no IOPSY_SRCDIR=$top $VG --log-file="$T/unit.log" "$B/check_iopsy" >"$T/unit.out" 2>&1
	rc=$?
	tail -1 "$T/unit.out"
	if [ $rc = 0 ] && [ ! -s "$T/unit.log" ]; then
		pass=$((pass + 1)); echo "valgrind: unit suites: clean"
	else
		fail=$((fail + 1)); echo "valgrind: unit suites: FAILED (exit $rc)"
		grep -v '^\s*$' "$T/unit.log" | head -40
		grep -E ':[FE]:' "$T/unit.out" | head -10
	fi
fi

if [ -z "${VALGRIND_SKIP_GOLDEN:-}" ]; then
	mkdir -p "$T/vg"
	cat >"$T/iopsy" <<EOF
#!/bin/sh
exec $VG --log-file=$T/vg/%p.log "$B/iopsy" "\$@"
EOF
	chmod +x "$T/iopsy"
	sh tests/golden.sh "$T/iopsy" >"$T/golden.out" 2>&1
	grc=$?
	tail -1 "$T/golden.out"
	bad=0
	for f in "$T"/vg/*.log; do
		[ -s "$f" ] || continue
		bad=$((bad + 1))
		[ $bad -le 3 ] && { echo "valgrind: report $(basename "$f"):"; head -30 "$f"; }
	done
	if [ $grc = 0 ] && [ $bad = 0 ]; then
		pass=$((pass + 1)); echo "valgrind: golden cases: clean"
	else
		fail=$((fail + 1)); echo "valgrind: golden cases: FAILED ($bad process(es) with reports; golden exit $grc)"
		grep '^golden: .*differs' "$T/golden.out" | head -10
	fi
fi
if [ -z "${VALGRIND_SKIP_BATCH:-}" ]; then
	mkdir -p "$T/vgb"
	cat >"$T/iopsy-batch" <<WRAP
#!/bin/sh
case "\$1" in
batch|history) exec $VG --log-file=$T/vgb/%p.log "$B/iopsy" "\$@" ;;
*) exec "$B/iopsy" "\$@" ;;
esac
WRAP
	chmod +x "$T/iopsy-batch"
	BATCH_SLOW=1 sh tests/batch.sh "$T/iopsy-batch" >"$T/batch.out" 2>&1
	brc=$?
	tail -1 "$T/batch.out"
	bad=0
	for f in "$T"/vgb/*.log; do
		[ -s "$f" ] || continue
		bad=$((bad + 1))
		[ $bad -le 3 ] && { echo "valgrind: report $(basename "$f"):"; head -30 "$f"; }
	done
	if [ $brc = 0 ] && [ $bad = 0 ]; then
		pass=$((pass + 1)); echo "valgrind: batch: clean ($(ls "$T"/vgb | wc -l) processes checked)"
	else
		fail=$((fail + 1)); echo "valgrind: batch: FAILED ($bad process(es) with reports; batch.sh exit $brc)"
		grep -B4 'FAIL' "$T/batch.out" | head -40
	fi
fi
echo "valgrind: $pass passed, $fail failed"
[ $fail = 0 ]
