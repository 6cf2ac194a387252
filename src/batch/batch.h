/* batch.h — unattended runs over many capture sets: discovery (a folder of set folders, or a
 * manifest), set-name sanitising and the parallel per-set work in child processes (a crash or a
 * broken file fails one set, never the run). The sets and their results are engine data
 * (batchres.h). */
#ifndef IOPSY_BATCH_H
#define IOPSY_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "batch_report.h"
#include "batchres.h"
#include "input.h"
#include "util.h"




/* Finds the sets of INPUT (folder or manifest). Returns 0 or ERR_* with a message in err. */
int batch_discover(struct batch *b, const char *input, struct buf *err);
/* Runs every set (up to jobs at a time, each in a child process), filling the results. */
void batch_run(struct batch *b, const struct batch_opts *o);
void batch_free(struct batch *b);

/* A path component from a set name: [A-Za-z0-9._-] kept, anything else '_', no leading '.',
 * at most 80 bytes, never empty, "." or "..". Caller frees. */
char *batch_sanitize(const char *name);

#endif
