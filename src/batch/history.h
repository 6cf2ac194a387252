/* history.h — the week-over-week history of batch runs in SQLite (a file, the default) or
 * PostgreSQL (a postgresql:// URI, hdb.h): per run and set the status, verdict, findings and key
 * figures, keyed by the set's sanitised folder name made unique from its own name (its key,
 * batch_assign_keys: unique in a run, whatever names the customer gave); a set's previous run
 * is found by its name. The schema is the same in both, versioned (SQLite's
 * PRAGMA user_version, PostgreSQL's table iopsy_schema) and migrated in place by the same
 * migrations; every run is recorded in one transaction, so a failure (disk full, a lost
 * connection) leaves the database as it was, and several iopsy may record runs at once. Errors
 * go through the caller's diag as "history: ..." lines. */
#ifndef IOPSY_HISTORY_H
#define IOPSY_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "batchres.h"
#include "util.h"

#define HISTORY_SCHEMA_VERSION 6

struct history;

/* Opens (creating and migrating) the database at where (a file, or a PostgreSQL URI without a
 * password); create: a missing SQLite file is made; timeout_s: every wait's deadline (hdb_open;
 * 0 = HDB_TIMEOUT_S). *h is the caller's to close. Returns 0 or ERR_IO/ERR_FORMAT (message
 * through d). */
int history_open(struct history **h, const char *where, bool create, int timeout_s, struct diag *d);
void history_close(struct history *h);
/* The most recent run that recorded set s (by s->dir) without failing, before the run being
 * recorded (run_key: this run's id, NULL = none; a run id recorded before is this run again, so
 * its previous run is the one before it, never itself), into *p (caller frees with bprev_free;
 * p->have false when there is none). A lost PostgreSQL connection is tried once more. Returns 0
 * or ERR_IO with p->unavailable set: the first failure is reported through d, and every later
 * call fails without a word (an error is said once). */
int history_previous(struct history *h, const struct bset *s, const char *run_key, struct bprev *p, struct diag *d);
/* Records a run and its sets (each set's result read with batch_result, one at a time), in one
 * transaction, done once more on a new connection when the PostgreSQL connection was lost. run_key:
 * the run's id (--run-id; NULL = none): a run id recorded before is that run again, whose rows
 * are replaced. Returns 0 or ERR_IO (nothing recorded; message through d). */
int history_record(struct history *h, const char *started, const char *input, const char *run_key,
		   const struct batch *b, struct diag *d);
/* A run id names one run (issue 38): 0 when run_key (NULL: none) is new or was recorded for the
 * same input (its fingerprint: batch_input_fingerprint; a run recorded by an iopsy before schema
 * 6 by its INPUT's name), else ERR_USAGE with the reason in why (ERR_IO: the lookup failed). The
 * fingerprint is kept and recorded with the run (history_record). */
int history_run_check(struct history *h, const char *run_key, const char *input, uint64_t fingerprint, struct buf *why);
/* Lists runs (and, with set — a key or a name —, that set's figures and findings per run) as
 * text into out, or with as_json as the JSON document of doc/history-json.md. Each set's status
 * is its state: a comparison's outcome, else failed, critical, warning, partial or ok. */
int history_list(struct history *h, const char *set, bool as_json, struct buf *out, struct diag *d);

#endif
