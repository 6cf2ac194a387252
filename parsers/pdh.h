/* pdh.h — the PDH-CSV/TSV reader every format shares (libcsv underneath): the framing of lines,
 * quotes and fields, the header, time stamps and values. Formats are rows of the parser table
 * (parser.h). Pull API: open reads the header and resolves column names; the caller selects the
 * columns it needs once; next() then hands out rows whose selected cells are available as text or
 * numbers. Memory is bounded by the header, one line and the selected cells, not by the rows. */
#ifndef IOPSY_PDH_H
#define IOPSY_PDH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "parser.h"
#include "source.h"
#include "util.h"


/* Splits [s, s+n) into p, copying parts into a. Never fails: a non-path gives ok = false. */
void pdh_split_path(const char *s, size_t n, struct pdh_path *p, struct arena *a);





/* Shared helper for format modules: parses "(PDH-CSV 4.0) (Zone)(480)". */
void pdh_header_parse_bias(const char *cell, size_t len, struct pdh_header_info *hi);

/* For the PDH formats' probe and host operations: the header line ("(PDH-CSV 4.0)...", after up to
 * PDH_MAX_JUNK_LINES junk lines) in a head of a file, or the line itself; cut at the head's end. */
bool pdh_head_line(const char *head, size_t n, const char **line, size_t *len);
/* The host of the header's first counter path ("\\\\HOST\\..."), into host (cap bytes): false when none. */
bool pdh_head_host(const char *head, size_t n, char *host, size_t cap);

/* What to do with a binary perfmon log (a name ending in .blg, any case): the relog command that
 * converts it. NULL for other names. Static storage. The one text batch, analyze, compare, extract
 * and counters give. */
const char *pdh_blg_hint(const char *path);

/* The PDH reader's state; it begins with a struct reader (parser.h). */
struct pdh_reader;

/* The reader half of a PDH-framed format's parser_ops (designated initializers). */
#define PDH_READER                                                                                 \
	.open = pdh_rd_open, .ncols = pdh_rd_ncols, .column = pdh_rd_column, .facts = pdh_rd_facts,     \
	.select = pdh_rd_select, .next = pdh_rd_next, .value = pdh_rd_value, .text = pdh_rd_text,        \
	.stats = pdh_rd_stats, .close = pdh_rd_close
int pdh_rd_open(struct reader **out, struct source *src, const struct pdh_options *o, struct diag *d);
size_t pdh_rd_ncols(const struct reader *r);
const struct pdh_column *pdh_rd_column(const struct reader *r, size_t i);
void pdh_rd_facts(const struct reader *r, struct reader_facts *f);
void pdh_rd_select(struct reader *r, const bool *want);
int pdh_rd_next(struct reader *r, struct pdh_row *row);
bool pdh_rd_value(struct reader *r, size_t i, double *v);
const char *pdh_rd_text(const struct reader *r, size_t i, size_t *len);
const struct pdh_stats *pdh_rd_stats(const struct reader *r);
void pdh_rd_close(struct reader *r);

/* Opens a reader over src (borrowed, must outlive the reader): finds the header (skipping junk
 * lines with a warning), probes the format, splits column names. Returns 0 or ERR_FORMAT/ERR_IO/
 * ERR_LIMIT with a message in d. *out is caller-freed with pdh_close. */
int pdh_open(struct pdh_reader **out, struct source *src, const struct pdh_options *o, struct diag *d);
void pdh_close(struct pdh_reader *r);

/* The format the reader probed (or was given). */
const struct parser_ops *pdh_parser(const struct pdh_reader *r);
const struct pdh_header_info *pdh_header_info(const struct pdh_reader *r);
size_t pdh_ncols(const struct pdh_reader *r);                     /* counter columns */
const struct pdh_column *pdh_column(const struct pdh_reader *r, size_t i);
long pdh_header_line(const struct pdh_reader *r);
bool pdh_is_tsv(const struct pdh_reader *r);
bool pdh_is_excel(const struct pdh_reader *r);

/* Chooses which columns next() keeps (want[ncols]); NULL keeps all. Call before the first row. */
void pdh_select(struct pdh_reader *r, const bool *want);


/* Next complete row: 1, 0 at end of input, or a negative ERR_* (message in d). Malformed rows are
 * warned about with file:line and skipped. */
int pdh_next(struct pdh_reader *r, struct pdh_row *row);

/* Value of selected column i in the current row: true with *v, or false when missing (empty, " ",
 * non-numeric — warned —, or a glitch value). */
bool pdh_value(struct pdh_reader *r, size_t i, double *v);
/* Raw text of selected column i in the current row (borrowed until the next call to pdh_next). */
const char *pdh_text(const struct pdh_reader *r, size_t i, size_t *len);

const struct pdh_stats *pdh_stats(const struct pdh_reader *r);

/* Parses "MM/DD/YYYY HH:MM[:SS[.fff]]" (1- or 2-digit month/day/hour) as a wall-clock time in ms
 * since the epoch; returns 0 or ERR_FORMAT. */
int pdh_parse_time(const char *s, size_t n, int64_t *t_ms);

#endif
