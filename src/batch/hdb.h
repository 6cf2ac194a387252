/* hdb.h — the two SQL engines the history runs on, behind one small interface: SQLite (a file,
 * the embedded default) and PostgreSQL through libpq (a postgresql:// or postgres:// URI). The
 * history's queries and migrations (history.c) are written once against it: parameters are always
 * bound ("?1", "?2", ... in the SQL; PostgreSQL's "$1" is made from it), never put in the SQL text.
 *
 * PostgreSQL's connection settings and credentials come the libpq way: the URI (without a
 * password), PGPASSFILE / ~/.pgpass, PGSERVICEFILE, the PG* environment variables. A URI that
 * holds a password is refused (hdb_uri_check): a command line is visible to every user of the
 * machine (ps) and lands in shell histories and job scripts. */
#ifndef IOPSY_HDB_H
#define IOPSY_HDB_H

#include <stdbool.h>
#include <stdint.h>

#include "util.h"

enum hdb_kind { HDB_SQLITE, HDB_POSTGRES };

/* The default deadline of the history, seconds (--history-timeout). */
#define HDB_TIMEOUT_S 30

struct hdb;
struct hq;

/* Whether where names a PostgreSQL database (postgresql:// or postgres://) rather than a file. */
bool hdb_is_uri(const char *where);
/* 0 when where may be used: a file path, or a PostgreSQL URI without a password (neither in its
 * user info nor as a password= parameter). Otherwise ERR_USAGE with the reason in why
 * (caller-owned). */
int hdb_uri_check(const char *where, struct buf *why);

/* Opens the history database at where. create: a missing SQLite file is made (a PostgreSQL
 * database must exist; its tables are made by the migrations either way). timeout_s (0 =
 * HDB_TIMEOUT_S) bounds every wait: SQLite's wait for another writer's lock; PostgreSQL's
 * connect (connect_timeout, unless the URI gives one), each statement and lock wait (the
 * session's statement_timeout and lock_timeout, unless the URI's options, the role or the
 * server set them), and the wait for any answer (that plus 5 s: a server that accepts and
 * never answers is given up, and every later call fails at once). Returns 0, or ERR_IO with the
 * reason in why (caller-owned). *db is the caller's to close. */
int hdb_open(struct hdb **db, const char *where, bool create, int timeout_s, struct buf *why);
void hdb_close(struct hdb *db);
/* After a failed call: when the PostgreSQL connection was lost (the server restarted, the
 * session was terminated), connects once more and returns true — the caller then runs its
 * statements (or its whole transaction) again; statements prepared before are prepared again.
 * false when the connection was not lost, was given up, or the new connection failed (then no
 * more retries). */
bool hdb_reconnect(struct hdb *db);
enum hdb_kind hdb_kind(const struct hdb *db);
/* The last error's message (valid until the next call on db). */
const char *hdb_error(const struct hdb *db);

/* Runs one or more statements without parameters. 0 or ERR_IO (hdb_error). */
int hdb_exec(struct hdb *db, const char *sql);
/* The schema version: SQLite's PRAGMA user_version, PostgreSQL's row in iopsy_schema (0 when
 * that table does not exist). -1 on error. */
int hdb_version(struct hdb *db);
/* Sets it (inside the migration's transaction). 0 or ERR_IO. */
int hdb_set_version(struct hdb *db, int v);
/* Starts a transaction that writes: SQLite's BEGIN IMMEDIATE (one writer at a time, others wait
 * up to 10 s); PostgreSQL's BEGIN, and with lock also a transaction-scoped advisory lock every
 * migrating iopsy takes (so two never migrate at once). 0 or ERR_IO. */
int hdb_begin(struct hdb *db, bool lock);

/* A prepared statement (NULL on error: hdb_error). Parameters are numbered from 1. */
struct hq *hq_prepare(struct hdb *db, const char *sql);
void hq_text(struct hq *q, int i, const char *s);  /* s NULL: NULL */
void hq_int(struct hq *q, int i, int64_t v);
void hq_real(struct hq *q, int i, double v);       /* NaN: NULL */
/* Runs the statement (first call) or moves to its next row: 1 a row, 0 done, ERR_IO. */
int hq_step(struct hq *q);
/* Ready to run again; the parameters stay bound. */
void hq_reset(struct hq *q);
bool hq_null(struct hq *q, int col);               /* columns are numbered from 0 */
const char *hq_col_text(struct hq *q, int col);    /* NULL when NULL; valid until the next step */
int64_t hq_col_int(struct hq *q, int col);
double hq_col_real(struct hq *q, int col);         /* NaN when NULL */
void hq_free(struct hq *q);

#endif
