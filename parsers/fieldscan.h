/* fieldscan.h — the fast field scanner behind the PDH reader's fast path: finds the selected fields
 * of one well-formed CSV line without visiting the others (64-byte blocks, quote/delimiter bit masks,
 * unwanted fields skipped by counting separators), with one implementation per instruction set
 * chosen once at run time, and a portable scalar one that is the reference for the others. */
#ifndef IOPSY_FIELDSCAN_H
#define IOPSY_FIELDSCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Dispatch levels, weakest first. SCALAR exists everywhere; the others only where the compiler
 * built them and the CPU runs them (see fieldscan_level_available). */
enum fieldscan_level {
	FIELDSCAN_SCALAR,
	FIELDSCAN_SSE2,          /* x86_64 baseline */
	FIELDSCAN_AVX2,          /* + PCLMULQDQ, POPCNT */
	FIELDSCAN_AVX512,        /* AVX-512BW + PCLMULQDQ, POPCNT */
	FIELDSCAN_NEON,          /* aarch64 */
	FIELDSCAN_NLEVELS
};

/* Where one selected field's text lies in the line: bytes [off, off + len), quotes removed and an
 * unquoted field's surrounding blanks trimmed, exactly as libcsv (plus the reader's glued-field
 * split) hands the field over. */
struct fieldscan_span {
	uint32_t off, len;
};

struct fieldscan_plan;
/* One implementation: scans [line, line + len) (no terminator; the bytes after it are not read).
 * Returns true when the line is in the simple form (every field either quoted without quotes
 * inside, closed right before a delimiter or the end, or unquoted without quotes; with glue, an
 * unquoted non-blank field may be followed by a quoted one without a delimiter) and then sets
 * *nfields and spans[i] for each wanted[i] < *nfields. Returns false, with spans unspecified,
 * for anything else: the caller parses that line with the full CSV reader. */
typedef bool fieldscan_fn(const struct fieldscan_plan *p, const char *line, size_t len,
			  struct fieldscan_span *spans, size_t *nfields);

/* Which fields a scan reports, built once from the header. */
struct fieldscan_plan {
	uint32_t *wanted;        /* sorted 0-based field numbers, then UINT32_MAX (caller frees via
				    fieldscan_plan_free) */
	size_t nwanted;
	char delim;              /* ',' or '\t' */
	bool glue;               /* esxtop -a on ESXi 6.x: `   73.1"8.93"` is two fields */
	enum fieldscan_level level;
	fieldscan_fn *scan;
};

/* Fills p for a line of nfields fields where want[f] != 0 selects field f (field 0 is always
 * reported). The level is the best this CPU has, or the one named by the environment variable
 * IOPSY_FIELDSCAN (scalar, sse2, avx2, avx512, neon) when that one is available. Returns 0, or
 * ERR_NOMEM (p is then empty). */
int fieldscan_plan_init(struct fieldscan_plan *p, const unsigned char *want, size_t nfields, char delim, bool glue);
void fieldscan_plan_free(struct fieldscan_plan *p);
/* Switches p to level l (tests, benchmarks). Returns false, leaving p as it was, when l is not
 * available here. */
bool fieldscan_plan_set_level(struct fieldscan_plan *p, enum fieldscan_level l);

/* Test and benchmark hook: plans made after this call use level l (process-wide, not
 * thread-safe; call before opening readers). Returns false, changing nothing, when l is not
 * available here. */
bool fieldscan_set_default_level(enum fieldscan_level l);

/* Scans one line with p's level (see fieldscan_fn). */
static inline bool fieldscan_line(const struct fieldscan_plan *p, const char *line, size_t len,
				  struct fieldscan_span *spans, size_t *nfields)
{
	return p->scan(p, line, len, spans, nfields);
}

/* True when level l was built and this CPU can run it (decided once). */
bool fieldscan_level_available(enum fieldscan_level l);
/* The strongest available level (decided once; IOPSY_FIELDSCAN is not consulted). */
enum fieldscan_level fieldscan_level_best(void);
/* "scalar", "sse2", "avx2", "avx512", "neon"; "?" for anything else (static storage). */
const char *fieldscan_level_name(enum fieldscan_level l);

/* The implementations (NULL-free: a level that was not built is not declared callable; use
 * fieldscan_plan_set_level). Exposed for the per-ISA files. */
bool fieldscan_scan_scalar(const struct fieldscan_plan *p, const char *line, size_t len,
			   struct fieldscan_span *spans, size_t *nfields);
bool fieldscan_scan_sse2(const struct fieldscan_plan *p, const char *line, size_t len,
			 struct fieldscan_span *spans, size_t *nfields);
bool fieldscan_scan_avx2(const struct fieldscan_plan *p, const char *line, size_t len,
			 struct fieldscan_span *spans, size_t *nfields);
bool fieldscan_scan_avx512(const struct fieldscan_plan *p, const char *line, size_t len,
			   struct fieldscan_span *spans, size_t *nfields);
bool fieldscan_scan_neon(const struct fieldscan_plan *p, const char *line, size_t len,
			 struct fieldscan_span *spans, size_t *nfields);

#endif
