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

/* The keys of history schema versions 2 and 3 (kept for their migrations): a set called name when
 * taken (ntaken names) are already used: sanitised, then "-2", "-3", ... until it differs from
 * each of them and from the names the run writes in DIR itself (index.html, summary.json, mail,
 * history.sqlite and its journals), ignoring case. Caller frees. */
char *batch_set_key(const char *name, char *const *taken, size_t ntaken);
/* Every set's key (its folder, DIR/<key>, and its key in the history), from its own name only
 * (issue 28): the sanitised name (a name the run writes itself gets "-2"), unique ignoring case.
 * Of sets whose sanitised names are equal ignoring case, the one whose name is already its
 * sanitised form (the bytewise first of such) keeps it; each other one gets "-" and 8 hex digits
 * of FNV-1a 64 of its full name ("dup set" beside "dup_set": dup_set-XXXXXXXX; "sql01" beside
 * "SQL01": sql01-XXXXXXXX) — the same every week, whatever other sets appear. The same full name
 * twice in one run is told apart by order ("-2"). batch_discover calls it. */
void batch_assign_keys(struct batch *b);

#endif
