/* history.h — the week-over-week history of batch runs in SQLite: per run and set the status,
 * verdict, findings and key figures, keyed by the set's sanitised, de-duplicated folder name (its
 * key: unique in a run, whatever names the customer gave). The schema is versioned
 * (PRAGMA user_version) and migrated in place; every run is recorded in one transaction, so a
 * failure (disk full) leaves the database as it was. Errors go through the caller's diag as
 * "history: ..." lines. */
#ifndef IOPSY_HISTORY_H
#define IOPSY_HISTORY_H

#include <stdbool.h>

#include "batchres.h"
#include "util.h"

#define HISTORY_SCHEMA_VERSION 2

struct history;

/* Opens (creating and migrating) the database; *h is the caller's to close. Returns 0 or
 * ERR_IO/ERR_FORMAT (message through d). */
int history_open(struct history **h, const char *path, bool create, struct diag *d);
void history_close(struct history *h);
/* The most recent run that recorded set s (by s->dir) without failing, into *p (caller frees with
 * bprev_free; p->have false when there is none). Returns 0 or ERR_IO: the first failure is
 * reported through d, and every later call fails without a word (an error is said once). */
int history_previous(struct history *h, const struct bset *s, struct bprev *p, struct diag *d);
/* Records a run and its sets (each set's result read with batch_result, one at a time).
 * Returns 0 or ERR_IO (nothing recorded; message through d). */
int history_record(struct history *h, const char *started, const char *input, const struct batch *b,
		   struct diag *d);
/* Lists runs (and, with set — a key or a name —, that set's figures and findings per run) as
 * text into out. */
int history_list(struct history *h, const char *set, struct buf *out, struct diag *d);

#endif
