/* input.h — opening a capture: the byte source, the format's reader (parser.h) and the per-file
 * diagnostics, with the options every reading command shares (--format, --tz, --max-warnings, --quiet). Where the
 * messages go (a diagnostics sink) and how progress is shown (hooks) are the caller's: this layer
 * prints nothing itself. */
#ifndef IOPSY_INPUT_H
#define IOPSY_INPUT_H

#include <stdbool.h>
#include <stdint.h>

#include "parser.h"
#include "source.h"
#include "util.h"

/* A progress meter the caller provides (the CLI's one-line meter on a terminal). start returns
 * the meter's state for one file (NULL = none), which update and done receive. */
struct progress_hooks {
	void *(*start)(void *ctx, const char *name, bool enabled);
	void (*update)(void *state, int64_t done, int64_t total);
	void (*done)(void *state);
	void *ctx;
};

struct common_opts {
	const char *format;      /* NULL = probe */
	int tz_bias_min;
	bool tz_given;
	const struct tz *tz;     /* --tz (borrowed); NULL = not given */
	long max_warnings;       /* default 20 */
	bool quiet;
	int threads;             /* threads reading each capture's rows (--threads): 0 = auto, 1 = one */
	struct diag_sink sink;   /* where per-file messages go; a NULL function drops them */
	const struct progress_hooks *progress; /* NULL = no meter */
	/* A time window (--from/--to resolved to UTC ms, src/engine/window.h): rows outside
	 * [win_from, win_to] are not handed out. */
	bool win_on;
	int64_t win_from, win_to;
};

struct input {
	const char *path;
	struct source src;
	struct diag diag;
	struct reader *r;        /* read it with reader_* (parser.h) */
	const struct progress_hooks *ph;
	void *pg;                /* the meter's state, NULL when none */
};

/* Defaults: probe the format, UTC, 20 warnings per file, no sink, no progress. */
void common_opts_init(struct common_opts *co);
/* Parses a --tz value: "UTC", "+05:30", "-0800", "UTC-8", "-8". Stores the bias (UTC = local +
 * bias, minutes). Returns 0 or ERR_USAGE. */
int parse_tz(const char *s, int *bias_min);

/* Opens path ("-" = stdin) and reads its header. Messages go to co->sink through in->diag.
 * Returns 0 or a negative ERR_*; on error nothing needs closing. */
int input_open(struct input *in, const char *path, const struct common_opts *co);
/* The same over len bytes in memory (borrowed; must outlive the input), shown as name: every
 * format reads from memory as from a file (tests, fuzzing). */
int input_open_mem(struct input *in, const char *name, const void *data, size_t len, const struct common_opts *co);
/* Ends progress, emits the suppressed-warnings note, frees everything but in->diag's counts. */
void input_close(struct input *in);

#endif
