/* mtread.h — the lines of a capture read and scanned by several threads, handed out in file order
 * (the PDH reader's --threads). The input is cut into chunks at line ends: a thread that is free
 * reads the next chunk (one reader at a time, so the source is read in order, the partial last
 * line carried to the next chunk) and then frames its lines and runs the field scanner over each
 * (fieldscan.h), while another reads the chunk after it. The caller's thread takes the chunks in
 * order and, while the one it needs is not ready, reads and scans chunks itself: N threads in all
 * do the work, never more. Everything that has state — the row checks, libcsv for lines the
 * scanner does not take, time stamps, values, warnings — stays with the caller, in file order, so
 * what comes out is what one thread makes of the same bytes. Memory: a few chunks (1–8 MiB, about
 * 16 rows each) and their spans, not the rows. */
#ifndef IOPSY_MTREAD_H
#define IOPSY_MTREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fieldscan.h"
#include "util.h"

/* Lines longer than this are not cut into chunks: the caller's one-thread reader takes over from
 * the start of such a line (mtread_next returns MTREAD_REST). */
#define MTREAD_MAX_LINE (16u << 20)
#define MTREAD_MAX_THREADS 64

/* Where the bytes come from: pull reads up to n (>= 1) bytes into out and returns how many, 0 at
 * the end, or a negative ERR_* with its message in d (the messages of a pull are handed to the
 * caller's diag, in order, by mtread_next). pos gives the input position after a pull, for the
 * progress hook. Both are called by one thread at a time, in input order. */
struct mtread_src {
	long (*pull)(void *ctx, char *out, size_t n, struct diag *d);
	int64_t (*pos)(void *ctx);
	void (*progress)(void *ctx, int64_t pos); /* NULL: none; called by the caller's thread */
	void *ctx;
};

struct mtread_opts {
	int threads;              /* >= 2: the caller's thread and threads - 1 more */
	size_t chunk;             /* bytes read per chunk (>= 1; a chunk holds at least one line) */
	char term;                /* the line terminator; with '\n' a CR before it is dropped */
	const struct fieldscan_plan *plan; /* borrowed, must outlive the reader; NULL: no scan */
	bool values;              /* also read the numbers of a scanned line's fields (parse_number) */
};

struct mtread_line {
	char *s;                  /* the line without its terminator (valid until the next call) */
	size_t len;
	bool blank;               /* empty or only blanks and tabs (not scanned) */
	bool fast;                /* the field scanner took it: spans and nfields are set */
	bool unterminated;        /* the last line of the input, without a terminator */
	const struct fieldscan_span *spans;
	size_t nfields;
	/* with values, for a fast line: values[i] is the number in the plan's field i (i >= 1, for
	 * the fields the line has): NaN when the field is empty or blank, +inf when it is not a
	 * number (parse_number refuses it; numbers it takes are finite). NULL otherwise. */
	const double *values;
};

struct mtread;
/* Starts the threads. Returns 0, or ERR_NOMEM (a thread could not be started: *out is NULL, and
 * nothing was read). d is the caller's diag (messages of the pulls are replayed into it). */
int mtread_open(struct mtread **out, const struct mtread_opts *o, const struct mtread_src *src, struct diag *d);
enum { MTREAD_REST = 2 };
/* The next line: 1 with *l, 0 at the end of the input, MTREAD_REST when the rest of the input
 * (from the start of a line longer than MTREAD_MAX_LINE) is in mtread_rest for a one-thread
 * reader to go on with (nothing more is pulled after it), or the negative ERR_* of a pull (after
 * the lines before it, as one thread would meet them). */
int mtread_next(struct mtread *q, struct mtread_line *l);
/* After MTREAD_REST: the bytes pulled and not handed out as lines (borrowed until mtread_close). */
const char *mtread_rest(const struct mtread *q, size_t *len);
/* Stops and joins the threads, frees everything. NULL is fine. */
void mtread_close(struct mtread *q);

/* The threads to use when the user gave none: the CPUs this process may run on, at most
 * MTREAD_AUTO_MAX (one reader at a time: more threads than two only scan faster, and the read is
 * then what they wait for). */
#define MTREAD_AUTO_MAX 2
int mtread_auto_threads(void);

#endif
