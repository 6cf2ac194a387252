/* input.h — opening a capture for a command: source + PDH reader + per-file diagnostics +
 * progress, with the options every command shares (--format, --tz, --max-warnings, --quiet). */
#ifndef IOPSY_INPUT_H
#define IOPSY_INPUT_H

#include <stdbool.h>

#include "pdh.h"
#include "progress.h"
#include "source.h"
#include "util.h"

struct common_opts {
	const char *format;      /* NULL = probe */
	int tz_bias_min;
	bool tz_given;
	long max_warnings;       /* default 20 */
	bool quiet;
};

struct input {
	const char *path;
	struct source src;
	struct diag diag;
	struct pdh_reader *r;
	struct progress pg;
};

void common_opts_init(struct common_opts *co);
/* Parses a --tz value: "UTC", "+05:30", "-0800", "UTC-8", "-8". Stores the bias (UTC = local +
 * bias, minutes). Returns 0 or ERR_USAGE. */
int parse_tz(const char *s, int *bias_min);

/* Opens path ("-" = stdin) and reads its header. Messages go to stderr through in->diag.
 * Returns 0 or a negative ERR_*; on error nothing needs closing. */
int input_open(struct input *in, const char *path, const struct common_opts *co);
/* Ends progress, prints the suppressed-warnings note, frees everything. */
void input_close(struct input *in);
/* Maps a library error to the documented exit code. */
int exit_code_for(int err);

#endif
