/* hdb.c — the history's SQL engines: SQLite and PostgreSQL (libpq) behind hdb.h. */
#include "hdb.h"

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef HAVE_LIBPQ
#include <libpq-fe.h>
#endif

/* The advisory lock key of iopsy's schema migrations in PostgreSQL ("iopsyhdb"). */
#define PG_MIGRATION_LOCK 0x696f70737968646bLL
#define HQ_MAX_PARAMS 16
/* The client waits this much longer than the server's statement and lock timeouts, so that the
 * server's own error ("canceling statement due to lock timeout") is what the user reads; past
 * it the server is not answering at all and the connection is dropped. */
#define PG_ANSWER_SLACK_S 5

struct hdb {
	enum hdb_kind kind;
	sqlite3 *lite;
	int timeout_s;            /* connect, statement and lock deadline */
#ifdef HAVE_LIBPQ
	PGconn *pg;               /* NULL once given up (no answer in time) */
	char *where;              /* the URI, to connect again once after a lost connection */
	int nstmt;                /* prepared statements made (their names) */
	unsigned gen;             /* connection generation: statements prepared on an earlier one are
	                           * prepared again */
	bool gave_up;             /* the server did not answer in time: no retry */
#endif
	char *err;                /* the last error (PostgreSQL, and failures before a handle) */
};

struct hq {
	struct hdb *db;
	sqlite3_stmt *st;
#ifdef HAVE_LIBPQ
	char *sql;                /* with $N */
	char name[24];
	bool prepared;
	unsigned gen;             /* db->gen it was prepared on */
	int nparams;
	char *params[HQ_MAX_PARAMS];
	PGresult *res;
	int row, nrows;           /* row: the current row, -1 before the first */
#endif
};

bool hdb_is_uri(const char *where)
{
	return strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0;
}

/* libpq's messages span lines ("...failed: Connection refused\n\tIs the server running..."):
 * one line, the parts joined by "; ", no trailing newline. Caller frees. */
static char *one_line(const char *m)
{
	struct buf b;
	buf_init(&b);
	for (const char *r = m; *r;) {
		if (*r == '\n') {
			while (*r == '\n' || *r == '\t' || *r == ' ')
				r++;
			if (*r)
				buf_adds(&b, "; ");
			continue;
		}
		buf_addc(&b, *r++);
	}
	while (b.len && b.data[b.len - 1] == ' ')
		b.data[--b.len] = '\0';
	return b.data ? b.data : xstrdup("");
}

static void set_err(struct hdb *db, const char *msg)
{
	free(db->err);
	db->err = one_line(msg && *msg ? msg : "error");
}

int hdb_uri_check(const char *where, struct buf *why)
{
	if (!hdb_is_uri(where))
		return 0;
#ifdef HAVE_LIBPQ
	char *err = NULL;
	PQconninfoOption *opts = PQconninfoParse(where, &err);
	if (!opts) {
		buf_printf(why, "not a valid PostgreSQL URI: %s", err ? err : "out of memory");
		PQfreemem(err);
		return ERR_USAGE;
	}
	bool pw = false;
	for (PQconninfoOption *o = opts; o->keyword; o++)
		if (strcmp(o->keyword, "password") == 0 && o->val && *o->val)
			pw = true;
	PQconninfoFree(opts);
	if (pw) {
		buf_adds(why, "the PostgreSQL URI holds a password: every user of this machine can read a command line "
			      "(ps) and it stays in shell histories and job scripts; give the password the libpq way "
			      "instead (PGPASSFILE or ~/.pgpass, a service file, or PGPASSWORD in the job's environment)");
		return ERR_USAGE;
	}
	return 0;
#else
	/* no parser without libpq: the user info of the URI, up to '@' before the host part */
	const char *p = strstr(where, "://") + 3;
	const char *end = p + strcspn(p, "/?");
	const char *at = memchr(p, '@', (size_t)(end - p));
	if ((at && memchr(p, ':', (size_t)(at - p))) || strstr(where, "password=")) {
		buf_adds(why, "the PostgreSQL URI holds a password: give it the libpq way (PGPASSFILE or ~/.pgpass)");
		return ERR_USAGE;
	}
	return 0;
#endif
}

#ifdef HAVE_LIBPQ
static void pg_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg; /* NOTICEs ("relation already exists, skipping") are not the user's business */
}

static void pg_why(PGconn *c, struct buf *why)
{
	char *m = one_line(c ? PQerrorMessage(c) : "out of memory");
	buf_adds(why, m);
	free(m);
}

static PGresult *pg_collect(struct hdb *db);

/* Sends sql (no parameters) and waits for its answer within the deadline: 0 or ERR_IO
 * (db->err). */
static int pg_exec(struct hdb *db, const char *sql)
{
	if (!db->pg)
		return ERR_IO;
	if (!PQsendQuery(db->pg, sql)) {
		set_err(db, PQerrorMessage(db->pg));
		return ERR_IO;
	}
	PGresult *r = pg_collect(db);
	if (!r)
		return ERR_IO;
	ExecStatusType st = PQresultStatus(r);
	int rc = 0;
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		set_err(db, PQresultErrorMessage(r));
		rc = ERR_IO;
	}
	PQclear(r);
	return rc;
}

/* Connects to db->where. connect_timeout comes before the URI's own parameters, so a
 * connect_timeout in the URI wins; the session's statement_timeout and lock_timeout are set
 * when the URI, the role or the server set none. 0 or ERR_IO (reason in why). */
static int pg_connect(struct hdb *db, struct buf *why)
{
	char t[24];
	snprintf(t, sizeof t, "%d", db->timeout_s);
	const char *const keys[] = {"connect_timeout", "dbname", "fallback_application_name", NULL};
	const char *const vals[] = {t, db->where, "iopsy", NULL};
	db->pg = PQconnectdbParams(keys, vals, 1);
	if (!db->pg || PQstatus(db->pg) != CONNECTION_OK) {
		pg_why(db->pg, why);
		PQfinish(db->pg);
		db->pg = NULL;
		return ERR_IO;
	}
	PQsetNoticeProcessor(db->pg, pg_quiet, NULL);
	db->gen++;
	char sql[320];
	snprintf(sql, sizeof sql,
		 "SELECT set_config('statement_timeout', '%d', false) WHERE current_setting('statement_timeout') = '0';"
		 "SELECT set_config('lock_timeout', '%d', false) WHERE current_setting('lock_timeout') = '0'",
		 db->timeout_s * 1000, db->timeout_s * 1000);
	if (pg_exec(db, sql) < 0) {
		buf_adds(why, db->err ? db->err : "cannot set the session's timeouts");
		PQfinish(db->pg);
		db->pg = NULL;
		return ERR_IO;
	}
	return 0;
}

/* Waits for every result of what was sent: the last one (the first error, when one failed),
 * or NULL with db->err set. A server that does not answer within the deadline (the statement
 * and lock timeouts plus PG_ANSWER_SLACK_S) is given up: the connection is closed and every
 * later call fails at once. */
static PGresult *pg_collect(struct hdb *db)
{
	double deadline = now_seconds() + db->timeout_s + PG_ANSWER_SLACK_S;
	PGresult *keep = NULL;
	for (;;) {
		while (PQisBusy(db->pg)) {
			double left = deadline - now_seconds();
			if (left <= 0) {
				char m[160];
				snprintf(m, sizeof m, "the server did not answer within %d s (--history-timeout %d); the history "
						      "is given up for this run", db->timeout_s + PG_ANSWER_SLACK_S, db->timeout_s);
				set_err(db, m);
				PQclear(keep);
				PQfinish(db->pg);
				db->pg = NULL;
				db->gave_up = true;
				return NULL;
			}
			struct pollfd pf = {.fd = PQsocket(db->pg), .events = POLLIN};
			int n = poll(&pf, 1, (int)(left * 1000) + 1);
			if (n < 0 && errno != EINTR) {
				set_err(db, strerror(errno));
				PQclear(keep);
				return NULL;
			}
			if (n > 0 && !PQconsumeInput(db->pg)) {
				set_err(db, PQerrorMessage(db->pg));
				PQclear(keep);
				return NULL;
			}
		}
		PGresult *r = PQgetResult(db->pg);
		if (!r)
			break;
		if (keep && PQresultStatus(keep) == PGRES_FATAL_ERROR) {
			PQclear(r);
		} else {
			PQclear(keep);
			keep = r;
		}
	}
	if (!keep)
		set_err(db, PQerrorMessage(db->pg));
	return keep;
}
#endif

int hdb_open(struct hdb **out, const char *where, bool create, int timeout_s, struct buf *why)
{
	*out = NULL;
	struct hdb *db = xcalloc(1, sizeof *db);
	db->timeout_s = timeout_s > 0 ? timeout_s : HDB_TIMEOUT_S;
	if (hdb_is_uri(where)) {
		db->kind = HDB_POSTGRES;
		if (hdb_uri_check(where, why) < 0) {
			free(db);
			return ERR_IO;
		}
#ifdef HAVE_LIBPQ
		(void)create;
		db->where = xstrdup(where);
		if (pg_connect(db, why) < 0) {
			free(db->where);
			free(db->err);
			free(db);
			return ERR_IO;
		}
		*out = db;
		return 0;
#else
		(void)create;
		buf_adds(why, "this iopsy was built without PostgreSQL support (install libpq-dev and rebuild)");
		free(db);
		return ERR_IO;
#endif
	}
	db->kind = HDB_SQLITE;
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(where, &db->lite, flags, NULL) != SQLITE_OK) {
		buf_adds(why, db->lite ? sqlite3_errmsg(db->lite) : "out of memory");
		sqlite3_close(db->lite);
		free(db);
		return ERR_IO;
	}
	sqlite3_busy_timeout(db->lite, db->timeout_s * 1000);
	*out = db;
	return 0;
}

void hdb_close(struct hdb *db)
{
	if (!db)
		return;
	if (db->lite)
		sqlite3_close(db->lite);
#ifdef HAVE_LIBPQ
	if (db->pg)
		PQfinish(db->pg);
	free(db->where);
#endif
	free(db->err);
	free(db);
}

bool hdb_reconnect(struct hdb *db)
{
#ifdef HAVE_LIBPQ
	if (db->kind != HDB_POSTGRES || db->gave_up || !db->pg || PQstatus(db->pg) != CONNECTION_BAD)
		return false;
	PQfinish(db->pg);
	db->pg = NULL;
	struct buf why;
	buf_init(&why);
	int rc = pg_connect(db, &why);
	if (rc < 0) {
		set_err(db, why.data);
		db->gave_up = true; /* one retry */
	}
	buf_free(&why);
	return rc == 0;
#else
	(void)db;
	return false;
#endif
}

enum hdb_kind hdb_kind(const struct hdb *db)
{
	return db->kind;
}

const char *hdb_error(const struct hdb *db)
{
	if (db->kind == HDB_SQLITE && db->lite)
		return db->err ? db->err : sqlite3_errmsg(db->lite);
	return db->err ? db->err : "error";
}

int hdb_exec(struct hdb *db, const char *sql)
{
	if (db->kind == HDB_SQLITE) {
		char *msg = NULL;
		free(db->err);
		db->err = NULL;
		if (sqlite3_exec(db->lite, sql, NULL, NULL, &msg) != SQLITE_OK) {
			set_err(db, msg ? msg : sqlite3_errmsg(db->lite));
			sqlite3_free(msg);
			return ERR_IO;
		}
		return 0;
	}
#ifdef HAVE_LIBPQ
	return pg_exec(db, sql);
#else
	return ERR_IO;
#endif
}

int hdb_version(struct hdb *db)
{
	if (db->kind == HDB_SQLITE) {
		sqlite3_stmt *st;
		int v = -1;
		if (sqlite3_prepare_v2(db->lite, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
			if (sqlite3_step(st) == SQLITE_ROW)
				v = sqlite3_column_int(st, 0);
			sqlite3_finalize(st);
		}
		return v;
	}
	/* pg_class read with the statement's snapshot, not to_regclass(): that looks in the
	 * session's catalog cache, which still says "no such table" after another session made it
	 * while this one waited for the migration lock */
	struct hq *q = hq_prepare(db, "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
				      "ON n.oid = c.relnamespace WHERE c.relname = 'iopsy_schema' AND n.nspname = current_schema())");
	if (!q)
		return -1;
	int v = -1;
	if (hq_step(q) == 1)
		v = strcmp(hq_col_text(q, 0), "t") == 0 ? 1 : 0;
	hq_free(q);
	if (v != 1)
		return v;
	q = hq_prepare(db, "SELECT max(version) FROM iopsy_schema");
	if (!q)
		return -1;
	v = hq_step(q) == 1 ? (hq_null(q, 0) ? 0 : (int)hq_col_int(q, 0)) : -1;
	hq_free(q);
	return v;
}

int hdb_set_version(struct hdb *db, int v)
{
	char sql[128];
	if (db->kind == HDB_SQLITE) {
		snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
		return hdb_exec(db, sql);
	}
	snprintf(sql, sizeof sql,
		 "CREATE TABLE IF NOT EXISTS iopsy_schema(version INTEGER NOT NULL);"
		 "DELETE FROM iopsy_schema; INSERT INTO iopsy_schema VALUES(%d)",
		 v);
	return hdb_exec(db, sql);
}

int hdb_begin(struct hdb *db, bool lock)
{
	if (db->kind == HDB_SQLITE)
		return hdb_exec(db, "BEGIN IMMEDIATE");
	if (hdb_exec(db, "BEGIN") < 0)
		return ERR_IO;
	if (lock) {
		char sql[64];
		snprintf(sql, sizeof sql, "SELECT pg_advisory_xact_lock(%lld)", (long long)PG_MIGRATION_LOCK);
		if (hdb_exec(db, sql) < 0) {
			hdb_exec(db, "ROLLBACK");
			return ERR_IO;
		}
	}
	return 0;
}

/* ---- statements ---- */

#ifdef HAVE_LIBPQ
/* "?N" to "$N" outside quoted text. */
static char *pg_sql(const char *sql)
{
	struct buf b;
	buf_init(&b);
	char quote = 0;
	for (const char *p = sql; *p; p++) {
		if (quote) {
			if (*p == quote)
				quote = 0;
		} else if (*p == '\'' || *p == '"') {
			quote = *p;
		} else if (*p == '?' && p[1] >= '0' && p[1] <= '9') {
			buf_addc(&b, '$');
			continue;
		}
		buf_addc(&b, *p);
	}
	if (!b.data)
		buf_adds(&b, "");
	return b.data;
}
#endif

struct hq *hq_prepare(struct hdb *db, const char *sql)
{
	struct hq *q = xcalloc(1, sizeof *q);
	q->db = db;
	if (db->kind == HDB_SQLITE) {
		free(db->err);
		db->err = NULL;
		if (sqlite3_prepare_v2(db->lite, sql, -1, &q->st, NULL) != SQLITE_OK) {
			free(q);
			return NULL;
		}
		return q;
	}
#ifdef HAVE_LIBPQ
	q->sql = pg_sql(sql);
	snprintf(q->name, sizeof q->name, "iopsy_%d", db->nstmt++);
	q->row = -1;
	return q;
#else
	free(q);
	return NULL;
#endif
}

#ifdef HAVE_LIBPQ
static void pg_param(struct hq *q, int i, char *v)
{
	if (i < 1 || i > HQ_MAX_PARAMS) {
		free(v);
		return;
	}
	free(q->params[i - 1]);
	q->params[i - 1] = v;
	if (i > q->nparams)
		q->nparams = i;
}
#endif

void hq_text(struct hq *q, int i, const char *s)
{
	if (q->st) {
		if (s)
			sqlite3_bind_text(q->st, i, s, -1, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(q->st, i);
		return;
	}
#ifdef HAVE_LIBPQ
	pg_param(q, i, s ? xstrdup(s) : NULL);
#endif
}

void hq_int(struct hq *q, int i, int64_t v)
{
	if (q->st) {
		sqlite3_bind_int64(q->st, i, (sqlite3_int64)v);
		return;
	}
#ifdef HAVE_LIBPQ
	char x[32];
	snprintf(x, sizeof x, "%lld", (long long)v);
	pg_param(q, i, xstrdup(x));
#endif
}

void hq_real(struct hq *q, int i, double v)
{
	if (q->st) {
		if (isnan(v))
			sqlite3_bind_null(q->st, i);
		else
			sqlite3_bind_double(q->st, i, v);
		return;
	}
#ifdef HAVE_LIBPQ
	if (isnan(v)) {
		pg_param(q, i, NULL);
		return;
	}
	char x[40];
	snprintf(x, sizeof x, "%.17g", v); /* read back as the same double */
	pg_param(q, i, xstrdup(x));
#endif
}

int hq_step(struct hq *q)
{
	if (q->st) {
		int rc = sqlite3_step(q->st);
		if (rc == SQLITE_ROW)
			return 1;
		if (rc == SQLITE_DONE)
			return 0;
		return ERR_IO;
	}
#ifdef HAVE_LIBPQ
	struct hdb *db = q->db;
	if (!q->res) {
		if (!db->pg)
			return ERR_IO;
		if (!q->prepared || q->gen != db->gen) {
			PGresult *r = NULL;
			if (!PQsendPrepare(db->pg, q->name, q->sql, 0, NULL))
				set_err(db, PQerrorMessage(db->pg));
			else
				r = pg_collect(db);
			bool ok = r && PQresultStatus(r) == PGRES_COMMAND_OK;
			if (r && !ok)
				set_err(db, PQresultErrorMessage(r));
			PQclear(r);
			if (!ok)
				return ERR_IO;
			q->prepared = true;
			q->gen = db->gen;
		}
		if (!PQsendQueryPrepared(db->pg, q->name, q->nparams, (const char *const *)q->params, NULL, NULL, 0)) {
			set_err(db, PQerrorMessage(db->pg));
			return ERR_IO;
		}
		q->res = pg_collect(db);
		if (!q->res)
			return ERR_IO;
		ExecStatusType st = PQresultStatus(q->res);
		if (st != PGRES_TUPLES_OK && st != PGRES_COMMAND_OK) {
			set_err(db, PQresultErrorMessage(q->res));
			PQclear(q->res);
			q->res = NULL;
			return ERR_IO;
		}
		q->nrows = st == PGRES_TUPLES_OK ? PQntuples(q->res) : 0;
		q->row = -1;
	}
	if (q->row + 1 < q->nrows) {
		q->row++;
		return 1;
	}
	q->row = q->nrows;
	return 0;
#else
	return ERR_IO;
#endif
}

void hq_reset(struct hq *q)
{
	if (q->st) {
		sqlite3_reset(q->st);
		return;
	}
#ifdef HAVE_LIBPQ
	PQclear(q->res);
	q->res = NULL;
	q->row = -1;
	q->nrows = 0;
#endif
}

bool hq_null(struct hq *q, int col)
{
	if (q->st)
		return sqlite3_column_type(q->st, col) == SQLITE_NULL;
#ifdef HAVE_LIBPQ
	return !q->res || q->row < 0 || q->row >= q->nrows || col >= PQnfields(q->res) ||
	       PQgetisnull(q->res, q->row, col);
#else
	return true;
#endif
}

const char *hq_col_text(struct hq *q, int col)
{
	if (q->st)
		return (const char *)sqlite3_column_text(q->st, col);
#ifdef HAVE_LIBPQ
	return hq_null(q, col) ? NULL : PQgetvalue(q->res, q->row, col);
#else
	return NULL;
#endif
}

int64_t hq_col_int(struct hq *q, int col)
{
	if (q->st)
		return sqlite3_column_int64(q->st, col);
	const char *t = hq_col_text(q, col);
	return t ? strtoll(t, NULL, 10) : 0;
}

double hq_col_real(struct hq *q, int col)
{
	if (q->st)
		return sqlite3_column_type(q->st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(q->st, col);
	const char *t = hq_col_text(q, col);
	return t ? strtod(t, NULL) : NAN;
}

void hq_free(struct hq *q)
{
	if (!q)
		return;
	if (q->st)
		sqlite3_finalize(q->st);
#ifdef HAVE_LIBPQ
	PQclear(q->res);
	if (q->prepared && q->gen == q->db->gen && q->db->pg && PQstatus(q->db->pg) == CONNECTION_OK) {
		char sql[48];
		snprintf(sql, sizeof sql, "DEALLOCATE %s", q->name);
		char *keep = q->db->err ? xstrdup(q->db->err) : NULL; /* the error the caller reports */
		pg_exec(q->db, sql);
		free(q->db->err);
		q->db->err = keep;
	}
	for (int i = 0; i < HQ_MAX_PARAMS; i++)
		free(q->params[i]);
	free(q->sql);
#endif
	free(q);
}
