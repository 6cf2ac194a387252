/* runner.h — the fork-per-set runner of a batch run: every set runs in its own worker process (a
 * parser failure or even a crash fails that set only), up to -j at a time; the parent reads back
 * each worker's typed result record and keeps only the set's outcome, so its memory does not grow
 * with the number of sets. */
#ifndef IOPSY_RUNNER_H
#define IOPSY_RUNNER_H

#include <stdint.h>

#include "batch_opts.h"
#include "batchres.h"
#include "history.h"

/* What a worker does for a set (setwork_run; tests pass their own). Returns its exit code. */
typedef int (*batch_work_fn)(const struct bset *s, const char *setdir, const struct bprev *prev,
			     const struct batch_opts *o, uint64_t run_id);

/* Runs every set of b with work, each in a worker process, previous runs read from h (NULL =
 * none). Fills each set's outcome and has_record, and sets b->load so batch_result reads the
 * records of run_id from o->out (*loader is the caller's and must outlive b's use). Messages
 * through d. */
struct batch_loader {
	const char *out;
	uint64_t run_id;
};
/* loader's reader of a set's record (b->load with a struct batch_loader as ctx). */
int batch_load_record(void *ctx, const struct bset *s, struct bresult *out);
/* Removes what a set's folder holds of an earlier run (its record, reports, chart, messages). */
void batch_remove_outputs(const char *setdir);
void batch_run(struct batch *b, const struct batch_opts *o, uint64_t run_id, struct history *h, batch_work_fn work,
	       struct batch_loader *loader, struct diag *d);

#endif
