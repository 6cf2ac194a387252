#!/bin/sh
# run.sh — builds the libFuzzer harnesses (tests/fuzz/fuzz_*.c) into build-fuzz/ with clang
# (-fsanitize=fuzzer,address,undefined) and runs each for FUZZ_SECONDS (default 60), FUZZ_JOBS
# (default 2) at a time, under nice. Seeds: tests/fuzz/corpus/<harness>/ (read only); new inputs go to
# build-fuzz/corpus/<harness>/, crashes to build-fuzz/artifacts/<harness>/. Fixed crashes are kept in
# tests/fuzz/regress/<harness>/ and replayed as seeds, so a regression fails at once.
# Usage: tests/fuzz/run.sh [HARNESS...]     (default: all)
# Env:   FUZZ_SECONDS=60  FUZZ_JOBS=2  CLANG=clang-14  FUZZ_BUILD_ONLY=1  FUZZ_ARGS="extra libFuzzer flags"
#        FUZZ_COVERAGE=1 (no fuzzing: llvm-cov line/region coverage of each harness's corpora)
# Prints one line per harness (runs, coverage) and "fuzz: N passed, M failed"; exits 1 on a crash.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cd "$top" || exit 2
SECS=${FUZZ_SECONDS:-60}
CLANG=${CLANG:-}
if [ -z "$CLANG" ]; then
	for c in clang-14 clang; do
		if command -v "$c" >/dev/null 2>&1; then CLANG=$c; break; fi
	done
fi
if [ -z "$CLANG" ]; then
	echo "fuzz: clang not found (apt-get install clang-14 libclang-rt-14-dev)" >&2
	exit 2
fi
B=build-fuzz
mkdir -p "$B/obj" "$B/corpus" "$B/artifacts" "$B/logs" || exit 2
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS="-std=c11 -D_GNU_SOURCE -g -O1 $SAN -Isrc/base -Iparsers -Isrc/engine -Itests/fuzz $(pkg-config --cflags libpcre2-8 zlib 2>/dev/null)"
LIBS="-lcsv $(pkg-config --libs libpcre2-8 zlib 2>/dev/null || echo -lpcre2-8 -lz) -lm -pthread"
# gzip through ISA-L when it is installed, as the Makefile builds it
if pkg-config --exists libisal 2>/dev/null || [ -f /usr/include/isa-l/igzip_lib.h ]; then
	CFLAGS="$CFLAGS -DHAVE_ISAL"
	LIBS="$LIBS $(pkg-config --libs libisal 2>/dev/null || echo -lisal)"
fi
CFLAGS="$CFLAGS -pthread"
# the whole parser and base layers (a new file there needs no edit here) and the rules reader
LIBSRC="$(ls parsers/*.c src/base/*.c | tr '\n' ' ') src/engine/rules.c"

# the per-ISA field scanners get their instruction sets (as in the Makefile)
isa_flags() {
	case $($CLANG -dumpmachine 2>/dev/null) in x86_64*) ;; *) return 0 ;; esac
	case $1 in
	*fieldscan_avx2.c) echo "-mavx2 -mpclmul -mpopcnt" ;;
	*fieldscan_avx512.c) echo "-mavx512f -mavx512bw -mpclmul -mpopcnt" ;;
	esac
}

# Compiles run FUZZ_JOBS at a time: started in the background, a batch is waited for (each pid,
# so a failed compile stops the run) when it is full.
jobs=${FUZZ_JOBS:-2}
pids=""
npids=0
reap() {
	rc=0
	for p in $pids; do wait "$p" || rc=1; done
	pids=""
	npids=0
	[ $rc = 0 ] || exit 2
}
spawn() {
	"$@" &
	pids="$pids $!"
	npids=$((npids + 1))
	[ $npids -lt "$jobs" ] || reap
}

# the library, instrumented for coverage (rebuilt when a source is newer than its object)
objs=""
for s in $LIBSRC; do
	o="$B/obj/$(echo "$s" | tr / _).o"
	if [ ! -f "$o" ] || [ "$s" -nt "$o" ] || [ "$0" -nt "$o" ] || [ -n "$(find src parsers reports -name '*.h' -newer "$o" 2>/dev/null | head -1)" ]; then
		# shellcheck disable=SC2046
		spawn $CLANG $CFLAGS $(isa_flags "$s") -fsanitize=fuzzer-no-link -c -o "$o" "$s"
	fi
	objs="$objs $o"
done
reap

if [ $# -gt 0 ]; then
	targets=$*
else
	targets=$(for f in tests/fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done)
fi
for t in $targets; do
	# shellcheck disable=SC2086
	spawn $CLANG $CFLAGS -fsanitize=fuzzer -o "$B/fuzz_$t" "tests/fuzz/fuzz_$t.c" $objs $LIBS
done
reap
[ "${FUZZ_BUILD_ONLY:-0}" = 1 ] && { echo "fuzz: built $(echo $targets | wc -w) harnesses in $B/"; exit 0; }

# FUZZ_COVERAGE=1: no fuzzing; replay each harness's corpora through a source-coverage build and
# print llvm-cov's line/region coverage of the library files it exercises.
if [ "${FUZZ_COVERAGE:-0}" = 1 ]; then
	PROFDATA=$(command -v llvm-profdata-14 || command -v llvm-profdata)
	LLVMCOV=$(command -v llvm-cov-14 || command -v llvm-cov)
	COVF="-std=c11 -D_GNU_SOURCE -g -O0 -fprofile-instr-generate -fcoverage-mapping -Isrc/base -Iparsers -Isrc/engine -Itests/fuzz"
	mkdir -p "$B/cov"
	covobjs=""
	for s in $LIBSRC; do
		o="$B/cov/$(echo "$s" | tr / _).o"
		# shellcheck disable=SC2046
		$CLANG $COVF $(isa_flags "$s") -c -o "$o" "$s" || exit 2
		covobjs="$covobjs $o"
	done
	for t in $targets; do
		# shellcheck disable=SC2086
		$CLANG $COVF -fsanitize=fuzzer -o "$B/cov/fuzz_$t" "tests/fuzz/fuzz_$t.c" $covobjs $LIBS || exit 2
		dirs=""
		for d in "$B/corpus/$t" "tests/fuzz/corpus/$t" "tests/fuzz/regress/$t"; do [ -d "$d" ] && dirs="$dirs $d"; done
		# shellcheck disable=SC2086
		LLVM_PROFILE_FILE="$B/cov/$t.profraw" "./$B/cov/fuzz_$t" -runs=0 $dirs >/dev/null 2>&1
		"$PROFDATA" merge -sparse "$B/cov/$t.profraw" -o "$B/cov/$t.profdata" || exit 2
		echo "fuzz: coverage of $t ($(find $dirs -type f | wc -l) inputs; TOTAL is over all library files):"
		# shellcheck disable=SC2086
		"$LLVMCOV" report "$B/cov/fuzz_$t" -instr-profile="$B/cov/$t.profdata" $LIBSRC 2>/dev/null |
			awk 'NR > 2 && $0 !~ /^-/ && ($4 != "0.00%" || $1 == "TOTAL") && $2 != 0 { printf "    %-24s regions %6s  lines %6s\n", $1, $4, $10 }'
	done
	exit 0
fi

fuzz_one() { # HARNESS: fuzzes it, writes its line to $B/logs/HARNESS.result (ok ... or FAILED ...)
	t=$1
	mkdir -p "$B/corpus/$t" "$B/artifacts/$t"
	seeds=""
	[ -d "tests/fuzz/corpus/$t" ] && seeds="tests/fuzz/corpus/$t"
	# past crashes replay first: a regression fails the run at once
	[ -d "tests/fuzz/regress/$t" ] && seeds="$seeds tests/fuzz/regress/$t"
	dict=""
	[ -f "tests/fuzz/$t.dict" ] && dict="-dict=tests/fuzz/$t.dict"
	maxlen=4096
	case $t in pdh|gzip|source|fieldscan) maxlen=65536 ;; esac
	log="$B/logs/$t.log"
	# shellcheck disable=SC2086
	nice -n 10 "./$B/fuzz_$t" "$B/corpus/$t" $seeds $dict -max_total_time="$SECS" -timeout=10 \
		-rss_limit_mb=2048 -max_len=$maxlen -print_final_stats=1 -artifact_prefix="$B/artifacts/$t/" \
		${FUZZ_ARGS:-} >"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	cov=$(grep -E '^#[0-9]+' "$log" | tail -1 | sed -n 's/.*cov: \([0-9]*\).*ft: \([0-9]*\).*/cov \1 ft \2/p')
	secs=$(grep -o 'Done [0-9]* runs in [0-9]* second' "$log" | awk '{print $5}')
	if [ $rc = 0 ]; then
		echo "fuzz: $t: ok, ${runs:-?} runs in ${secs:-?} s, ${cov:-cov ?}" >"$B/logs/$t.result"
	else
		{
			echo "fuzz: $t: FAILED (exit $rc) after ${runs:-?} runs; see $log and $B/artifacts/$t/"
			grep -E 'ERROR:|runtime error:|fuzz check failed|SUMMARY' "$log" | head -5 | sed 's/^/    /'
		} >"$B/logs/$t.result"
	fi
}

# FUZZ_JOBS harnesses at a time (default 2, the machine's cores), each for FUZZ_SECONDS
n=0
for t in $targets; do
	rm -f "$B/logs/$t.result"
	fuzz_one "$t" &
	n=$((n + 1))
	if [ $n -ge "$jobs" ]; then
		wait
		n=0
	fi
done
wait
pass=0 fail=0
for t in $targets; do
	if [ -f "$B/logs/$t.result" ]; then
		cat "$B/logs/$t.result"
		case $(head -1 "$B/logs/$t.result") in *": ok,"*) pass=$((pass + 1)) ;; *) fail=$((fail + 1)) ;; esac
	else
		echo "fuzz: $t: FAILED (no result)"
		fail=$((fail + 1))
	fi
done
echo "fuzz: $pass passed, $fail failed"
[ $fail = 0 ]
