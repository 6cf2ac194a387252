/* result.h — the typed result record a set's worker hands to the parent: one versioned binary
 * file, DIR/<set>/.result, written with the atomic writer and read back with full validation.
 *
 * Layout (integers little-endian, doubles as IEEE-754 binary64 bit patterns):
 *   "IOPSYREC"  8 bytes magic
 *   u16 version (RESULT_VERSION), u16 0 (reserved), u32 0 (reserved)
 *   u64 run id    the run this result belongs to (a stale record of another run is refused)
 *   u64 n         payload length in bytes
 *   u32 crc32     zlib CRC-32 of the payload
 *   payload, n bytes, exactly:
 *     u8 status (enum bstatus), u8 system_error, str error, str verdict, u8 outcome (enum
 *     cmp_outcome + 1, 0 = not a comparison), str headline, str not_assessed,
 *     i64 warnings,
 *     u8 have_span, i64 span_start, i64 span_end (UTC ms),
 *     u32 count, then per note:     u32 file index, str note
 *     u32 count, then per finding:  u16 kind (kinds[] id), u8 severity, u8 layer, str entity,
 *                                   str host, i64 start, i64 end, str summary
 *     u32 count, then per figure:   u8 layer, u16 metric, str entity, str host,
 *                                   f64 p50, p95, p99, max, mean, i64 samples
 *     trend: u8 have_previous, u8 unavailable (the history could not be read), str previous_started, str previous_capture,
 *            i64 new, i64 still, i64 resolved, u64 unchanged,
 *            u8 state per finding (the finding count again),
 *            u32 count, then per resolved finding: as a finding above,
 *            u32 count, then per figure trend: u32 figure index, u8 have_before, u8 trend,
 *                                   f64 now, f64 before, f64 change_pct,
 *            str previous state, str state now, str previous where, str where now (each NULL
 *            unless it changed)
 *     u64 input digest (batch_set_digest of the set as its worker read it)
 *   str = u32 length + bytes, 0xFFFFFFFF for none (NULL).
 * Every count, length, enum and index is checked against its range and the bytes left; a record
 * that is short, long, of another version or run, or fails its CRC is refused whole. */
#ifndef IOPSY_RESULT_H
#define IOPSY_RESULT_H

#include <stdint.h>

#include "batchres.h"
#include "compare.h"
#include "util.h"

#define RESULT_VERSION 4
#define RESULT_FILE ".result"
/* A record is refused past this size (a set's findings and figures take a few hundred KB). */
#define RESULT_MAX_BYTES (256u << 20)

/* Encodes r as a record of run run_id into out (appended). */
void result_encode(const struct bresult *r, uint64_t run_id, struct buf *out);
/* Decodes a record of run run_id from [p, p+n) into r (caller frees with bresult_free).
 * Returns 0, or ERR_FORMAT with the reason in *why (static text) and r empty. */
int result_decode(const void *p, size_t n, uint64_t run_id, size_t nfiles, struct bresult *r, const char **why);
/* Writes r as setdir/.result atomically. 0 or ERR_IO (errno set). */
int result_write(const char *setdir, const struct bresult *r, uint64_t run_id);
/* Reads and validates setdir/.result. 0, ERR_IO (no file or unreadable: errno) or ERR_FORMAT
 * (reason in *why). */
int result_read(const char *setdir, uint64_t run_id, size_t nfiles, struct bresult *r, const char **why);

#endif
