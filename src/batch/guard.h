/* guard.h — a batch run never writes into what it reads (issue 38): its --out, --eml and
 * --history must lie outside INPUT and outside every set folder, and no file discovery listed
 * may lie inside --out (whose set folders the run cleans). */
#ifndef IOPSY_GUARD_H
#define IOPSY_GUARD_H

#include "batch_opts.h"
#include "batchres.h"
#include "util.h"

/* 0, or ERR_USAGE with a message through d naming the option and the input it would touch. */
int batch_outputs_not_inputs(const struct batch *b, const struct batch_opts *o, struct diag *d);

#endif
