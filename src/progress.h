/* progress.h — a one-line progress meter on stderr (bytes read of total, rate, time left), shown
 * only when stderr is a terminal and --quiet was not given. */
#ifndef IOPSY_PROGRESS_H
#define IOPSY_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

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
double now_seconds(void);

#endif
