/* history.h — the week-over-week history of batch runs in SQLite: per run and set the status,
 * verdict, findings and key figures, keyed by set name and capture time. The schema is versioned
 * (PRAGMA user_version) and migrated in place; every run is recorded in one transaction, so a
 * failure (disk full) leaves the database as it was. */
#ifndef IOPSY_HISTORY_H
#define IOPSY_HISTORY_H

#include "batch.h"
#include "util.h"

#define HISTORY_SCHEMA_VERSION 1

struct history;

/* Opens (creating and migrating) the database. Returns 0 or ERR_IO/ERR_FORMAT (message in err). */
int history_open(struct history **h, const char *path, bool create, struct buf *err);
void history_close(struct history *h);
/* Fills s->trend from the most recent run that recorded this set. */
int history_previous(struct history *h, struct bset *s, struct buf *err);
/* Records a run and its sets. Returns 0 or ERR_IO (nothing recorded). */
int history_record(struct history *h, const char *started, const char *input, const struct batch *b,
		   struct buf *err);
/* Lists runs (and, with set, that set's figures and findings per run) as text. */
int history_list(struct history *h, const char *set, struct buf *out, struct buf *err);

#endif
