/* progress.h — the CLI's one-line progress meter on stderr (bytes read of total, rate, time left),
 * shown only when stderr is a terminal and --quiet was not given; and the CLI's diagnostics sink. */
#ifndef IOPSY_PROGRESS_H
#define IOPSY_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

#include "input.h"
#include "util.h"

struct progress {
	bool on, shown;
	const char *name;  /* borrowed */
	double t0, last;
};

/* enabled: the caller's wish (not --quiet); the meter also requires stderr to be a terminal. */
void progress_init(struct progress *p, const char *name, bool enabled);
/* Matches the source progress hook: ctx is a struct progress. */
void progress_update(void *ctx, int64_t done, int64_t total);
/* Clears the line. */
void progress_done(struct progress *p);
/* Hooks for common_opts.progress: one meter per opened file. */
extern const struct progress_hooks progress_stderr_hooks;
/* A one-line status on stderr's terminal (line NULL clears it); for batch's running sets. */
void status_line(void *ctx, const char *line);
/* The sink every command's messages go through: stderr, one message per line. */
struct diag_sink diag_stderr(void);

#endif
