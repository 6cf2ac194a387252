/* out.h — output plumbing for the simulator: atomic (optionally gzip-compressed) files, fast
 * number formatting for wide rows, and civil-time formatting of capture timestamps. */
#ifndef IOPSY_SIM_OUT_H
#define IOPSY_SIM_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#include "util.h"

/* A file written to a temporary name in its directory and renamed on commit. */
struct sim_out {
	struct afile af;
	bool gz, open;
	bool discard;           /* opened with path NULL: writes are dropped, commit does nothing */
	z_stream zs;
	unsigned char *zbuf;
	int err;                /* first error (ERR_IO / ERR_NOMEM), sticky */
};

/* Opens PATH (".gz" is not added here); PATH NULL = a sink that drops everything (a capture that
 * is simulated but not written). Returns 0, ERR_IO (errno set) or ERR_NOMEM. */
int sim_out_open(struct sim_out *o, const char *path, bool gz);
/* Appends bytes; errors are remembered and reported by sim_out_commit. */
void sim_out_write(struct sim_out *o, const void *p, size_t n);
void sim_out_puts(struct sim_out *o, const char *s);
/* Flushes, closes and renames into place. Returns 0 or the first error; on error the temporary
 * is removed. */
int sim_out_commit(struct sim_out *o);
void sim_out_abort(struct sim_out *o);

/* Growable text buffer for building one line at a time (owned by the caller). */
struct sim_line {
	char *p;
	size_t len, cap;
};
/* Ensures room for n more bytes; returns false on allocation failure. */
bool sim_line_reserve(struct sim_line *l, size_t n);
void sim_line_free(struct sim_line *l);

/* Writes v with exactly 2 decimals (esxtop style) into dst (>= 32 bytes); returns the length.
 * NaN writes nothing (an empty cell). */
size_t sim_fmt_fixed2(char *dst, double v);
/* Writes v as an integer (rounded); NaN writes nothing. */
size_t sim_fmt_int(char *dst, double v);
/* Writes v the way perfmon/relog does: up to 17 significant digits, exponents as e-005. */
size_t sim_fmt_pdh(char *dst, size_t n, double v);

/* Broken-down UTC (or local, after the caller applies a bias) time. */
struct sim_tm {
	int year, mon, day, hour, min, sec, ms;
};
void sim_time_split(int64_t t_ms, struct sim_tm *tm);

#endif
