/* batch.h — one unattended `iopsy batch` run over many capture sets: discover the sets, run each
 * in its own worker, write index.html and summary.json, record the run in the history, mail the
 * index. The CLI only parses options into struct batch_opts and prints what comes through the
 * sink. */
#ifndef IOPSY_BATCH_H
#define IOPSY_BATCH_H

#include "batch_opts.h"

/* Runs the batch described by o. Every message goes through o->co.sink with the prefix
 * "iopsy batch". Returns the exit code: EXIT_OK, EXIT_FINDINGS (o->fail_on), EXIT_INPUT (a set
 * failed, or the input could not be read), EXIT_SYSTEM (an output, the history or the mail). */
int batch_execute(const struct batch_opts *o);

#endif
