/* pdh.h — the shared PDH-CSV/TSV reader (libcsv underneath) and its format modules (esxtop,
 * perfmon). Pull API: open reads the header and resolves column names; the caller selects the
 * columns it needs once; next() then hands out rows whose selected cells are available as text or
 * numbers. Memory is bounded by the header, one line and the selected cells, not by the rows. */
#ifndef IOPSY_PDH_H
#define IOPSY_PDH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source.h"
#include "util.h"

/* A counter path split as DOMAIN.md §7 says: host = up to the first '\' after "\\";
 * counter = after the last '\'; object = the middle up to its first '('; instance = from there
 * to the last ')'. All strings are arena-owned; instance is NULL when the path has none.
 * ok = false when the text is not a counter path (then only counter = the whole text). */
struct pdh_path {
	const char *host, *object, *instance, *counter;
	bool ok;
};

/* Splits [s, s+n) into p, copying parts into a. Never fails: a non-path gives ok = false. */
void pdh_split_path(const char *s, size_t n, struct pdh_path *p, struct arena *a);

struct pdh_column {
	const char *name;       /* header text as in the file (arena-owned, may be non-UTF-8) */
	size_t name_len;
	struct pdh_path path;
	long field;             /* 1-based CSV field number (the time stamp is field 1) */
};

struct pdh_reader;

/* A format module: probe the first bytes, interpret the header's first cell. */
struct pdh_header_info {
	int bias_min;            /* UTC = local + bias */
	bool bias_known;
	char zone[96];
};
struct pdh_options {
	const char *format;      /* NULL or "auto" = probe; else a format name */
	int tz_bias_min;         /* fallback bias when the header has none (--tz); UTC = local + bias */
	bool tz_given;
	long max_warnings;       /* per file; < 0 unlimited */
	bool no_fast_path;       /* tests: send every line through libcsv */
};
struct pdh_format {
	const char *name;
	const char *summary;
	/* Confidence 0..100 that the head of a file (decoded bytes) is this format. */
	int (*probe)(const char *head, size_t len);
	/* Interprets the first header cell; fills hi. Returns 0 or ERR_FORMAT with a message in d. */
	int (*header)(const char *cell, size_t len, const struct pdh_options *o, struct pdh_header_info *hi,
		      struct diag *d);
	/* Local-time files: detect a repeated DST hour and shift later rows by +1 h. */
	bool local_time;
	/* Treat 4294967295 (2^32-1) and 2^64-1 as a counter glitch (missing). */
	bool glitch_values;
};

extern const struct pdh_format pdh_format_esxtop;
extern const struct pdh_format pdh_format_perfmon;
/* All formats, NULL-terminated (names in --help and errors come from here). */
extern const struct pdh_format *const pdh_formats[];
const struct pdh_format *pdh_format_find(const char *name);
/* "esxtop, perfmon" (static storage). */
const char *pdh_format_names(void);

/* Shared helper for format modules: parses "(PDH-CSV 4.0) (Zone)(480)". */
void pdh_header_parse_bias(const char *cell, size_t len, struct pdh_header_info *hi);

/* Opens a reader over src (borrowed, must outlive the reader): finds the header (skipping junk
 * lines with a warning), probes the format, splits column names. Returns 0 or ERR_FORMAT/ERR_IO/
 * ERR_LIMIT with a message in d. *out is caller-freed with pdh_close. */
int pdh_open(struct pdh_reader **out, struct source *src, const struct pdh_options *o, struct diag *d);
void pdh_close(struct pdh_reader *r);

const struct pdh_format *pdh_format_of(const struct pdh_reader *r);
const struct pdh_header_info *pdh_header_info(const struct pdh_reader *r);
size_t pdh_ncols(const struct pdh_reader *r);                     /* counter columns */
const struct pdh_column *pdh_column(const struct pdh_reader *r, size_t i);
long pdh_header_line(const struct pdh_reader *r);
bool pdh_is_tsv(const struct pdh_reader *r);
bool pdh_is_excel(const struct pdh_reader *r);

/* Chooses which columns next() keeps (want[ncols]); NULL keeps all. Call before the first row. */
void pdh_select(struct pdh_reader *r, const bool *want);

struct pdh_row {
	int64_t t_ms;            /* UTC */
	long line;               /* line where the row starts */
	bool discontinuity;      /* time went backwards or jumped here */
};

/* Next complete row: 1, 0 at end of input, or a negative ERR_* (message in d). Malformed rows are
 * warned about with file:line and skipped. */
int pdh_next(struct pdh_reader *r, struct pdh_row *row);

/* Value of selected column i in the current row: true with *v, or false when missing (empty, " ",
 * non-numeric — warned —, or a glitch value). */
bool pdh_value(struct pdh_reader *r, size_t i, double *v);
/* Raw text of selected column i in the current row (borrowed until the next call to pdh_next). */
const char *pdh_text(const struct pdh_reader *r, size_t i, size_t *len);

/* Counters for summaries. */
struct pdh_stats {
	long rows, skipped_rows, junk_lines, glitches, nonnumeric, backwards, dst_shifts, same_time;
};
const struct pdh_stats *pdh_stats(const struct pdh_reader *r);

/* Parses "MM/DD/YYYY HH:MM[:SS[.fff]]" (1- or 2-digit month/day/hour) as a wall-clock time in ms
 * since the epoch; returns 0 or ERR_FORMAT. */
int pdh_parse_time(const char *s, size_t n, int64_t *t_ms);

#endif
