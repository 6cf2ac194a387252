/* setwork.h — the work of one set, run in its own worker process: read the set's files, analyse
 * them (or compare a before/after pair), compute the trend against the set's previous run, write
 * report.json, report.txt, report.html and chart.png, and hand the typed result back as the
 * set's result record (result.h). */
#ifndef IOPSY_SETWORK_H
#define IOPSY_SETWORK_H

#include <stdint.h>

#include "batch_opts.h"
#include "batchres.h"

/* Runs set s into setdir; prev is the set's previous run (prev->have false: none). Returns the
 * worker's exit code: 0 analysed, 1 failed or partial (the record says why), 4 the record could
 * not be written. */
int setwork_run(const struct bset *s, const char *setdir, const struct bprev *prev, const struct batch_opts *o,
		uint64_t run_id);

#endif
