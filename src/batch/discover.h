/* discover.h — what a batch run works on: the capture sets of INPUT (a folder of set folders and
 * loose files, or a manifest), every file's role sniffed from its first bytes, and each set's
 * folder name (sanitised, unique in the run). Nothing a customer sent is dropped silently:
 * files that are not used are listed with the reason. */
#ifndef IOPSY_DISCOVER_H
#define IOPSY_DISCOVER_H

#include "batchres.h"
#include "util.h"

/* Fills b with the sets of input (folder or manifest). Messages (manifest errors as
 * FILE:LINE:COL) go through d. Returns 0; ERR_FORMAT when the manifest had errors (the valid
 * sets are still in b); ERR_IO when input cannot be read (b empty). b is the caller's to free
 * with batch_free in every case. */
int batch_discover(struct batch *b, const char *input, struct diag *d);

/* A path component from a set name: [A-Za-z0-9._-] kept, anything else '_', no leading '.',
 * at most 80 bytes, never empty, "." or "..". Caller frees. */
char *batch_sanitize(const char *name);

/* The folder name of a set called name when taken (ntaken names) are already used: sanitised,
 * then "-2", "-3", ... until it differs from each of them and from the names the run writes in
 * DIR itself (index.html, summary.json, mail, history.sqlite and its journals), ignoring case.
 * It is the set's key in the history. Caller frees. */
char *batch_set_key(const char *name, char *const *taken, size_t ntaken);

#endif
