/* history.c — SQLite history of batch runs (see history.h): schema migrations, the previous run of
 * a set for its trend, recording a run in one transaction, listing. */
#include "history.h"

#include "discover.h"
#include "version.h"

#include <math.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct history {
	sqlite3 *db;
	bool previous_failed;     /* the first failed lookup was reported: the rest are not tried */
};

static int fail(struct history *h, struct diag *d, const char *what)
{
	diag_emit(d, DIAG_PLAIN, 0, 0, "history: %s: %s", what, sqlite3_errmsg(h->db));
	return ERR_IO;
}

static int exec(struct history *h, const char *sql, struct diag *d)
{
	char *msg = NULL;
	if (sqlite3_exec(h->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "history: %s", msg ? msg : "error");
		sqlite3_free(msg);
		return ERR_IO;
	}
	return 0;
}

/* Version 1: runs, and per run and set (by name) the set's row, its key figures and findings. */
static int migrate_v1(struct history *h, struct diag *d)
{
	return exec(h,
		    "CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT NOT NULL, input TEXT NOT NULL, "
		    "  tool_version TEXT NOT NULL);"
		    "CREATE TABLE sets(run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT NOT NULL, status TEXT NOT NULL, "
		    "  error TEXT, capture_start TEXT, capture_end TEXT, worst TEXT, findings INTEGER NOT NULL, verdict TEXT, "
		    "  PRIMARY KEY(run_id, name));"
		    "CREATE INDEX sets_by_name ON sets(name, capture_start);"
		    "CREATE TABLE stats(run_id INTEGER NOT NULL, set_name TEXT NOT NULL, layer TEXT NOT NULL, entity TEXT NOT NULL, "
		    "  host TEXT NOT NULL, metric TEXT NOT NULL, p50 REAL, p95 REAL, p99 REAL, max REAL, mean REAL, samples INTEGER);"
		    "CREATE INDEX stats_by_set ON stats(set_name, run_id);"
		    "CREATE TABLE findings(run_id INTEGER NOT NULL, set_name TEXT NOT NULL, kind TEXT NOT NULL, severity TEXT NOT NULL, "
		    "  layer TEXT NOT NULL, entity TEXT NOT NULL, host TEXT NOT NULL, start TEXT, end TEXT, summary TEXT);"
		    "CREATE INDEX findings_by_set ON findings(set_name, run_id);",
		    d);
}

/* Version 2: a set is keyed by its sanitised, de-duplicated folder name (two sets given the same
 * name, or names that sanitise alike, no longer collide and lose the run). Earlier runs get the
 * key their names would get now, de-duplicated in the order they were recorded. */
static int migrate_v2(struct history *h, struct diag *d)
{
	if (exec(h, "CREATE TEMP TABLE keymap(run_id INTEGER NOT NULL, name TEXT NOT NULL, key TEXT NOT NULL, "
		    "PRIMARY KEY(run_id, name))", d) < 0)
		return ERR_IO;
	sqlite3_stmt *sel = NULL, *ins = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(h->db, "SELECT run_id, name FROM sets ORDER BY run_id, rowid", -1, &sel, NULL) ||
	    sqlite3_prepare_v2(h->db, "INSERT INTO temp.keymap VALUES(?1, ?2, ?3)", -1, &ins, NULL)) {
		rc = fail(h, d, "migrate to version 2");
		goto out;
	}
	sqlite3_int64 run = -1;
	char **taken = NULL;
	size_t ntaken = 0;
	while (rc == 0 && sqlite3_step(sel) == SQLITE_ROW) {
		sqlite3_int64 r = sqlite3_column_int64(sel, 0);
		const char *name = (const char *)sqlite3_column_text(sel, 1);
		if (r != run) {
			for (size_t i = 0; i < ntaken; i++)
				free(taken[i]);
			ntaken = 0;
			run = r;
		}
		char *key = batch_set_key(name ? name : "", taken, ntaken);
		sqlite3_reset(ins);
		sqlite3_bind_int64(ins, 1, r);
		sqlite3_bind_text(ins, 2, name ? name : "", -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(ins, 3, key, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(ins) != SQLITE_DONE)
			rc = fail(h, d, "migrate to version 2");
		taken = xrealloc(taken, (ntaken + 1) * sizeof *taken);
		taken[ntaken++] = key;
	}
	for (size_t i = 0; i < ntaken; i++)
		free(taken[i]);
	free(taken);
out:
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	if (rc < 0)
		return rc;
	return exec(h,
		    "CREATE TABLE sets_v2(run_id INTEGER NOT NULL REFERENCES runs(id), key TEXT NOT NULL, name TEXT NOT NULL, "
		    "  status TEXT NOT NULL, error TEXT, capture_start TEXT, capture_end TEXT, worst TEXT, "
		    "  findings INTEGER NOT NULL, verdict TEXT, PRIMARY KEY(run_id, key));"
		    "INSERT INTO sets_v2 SELECT s.run_id, k.key, s.name, s.status, s.error, s.capture_start, s.capture_end, "
		    "  s.worst, s.findings, s.verdict FROM sets s JOIN temp.keymap k ON k.run_id = s.run_id AND k.name = s.name "
		    "  ORDER BY s.run_id, s.rowid;"
		    "DROP TABLE sets;"
		    "ALTER TABLE sets_v2 RENAME TO sets;"
		    "CREATE INDEX sets_by_key ON sets(key, run_id);"
		    "ALTER TABLE stats RENAME COLUMN set_name TO set_key;"
		    "UPDATE stats SET set_key = (SELECT k.key FROM temp.keymap k WHERE k.run_id = stats.run_id "
		    "  AND k.name = stats.set_key);"
		    "ALTER TABLE findings RENAME COLUMN set_name TO set_key;"
		    "UPDATE findings SET set_key = (SELECT k.key FROM temp.keymap k WHERE k.run_id = findings.run_id "
		    "  AND k.name = findings.set_key);"
		    "DROP TABLE temp.keymap;",
		    d);
}

/* migrations[v] brings a database at user_version v to v + 1. */
static int (*const migrations[])(struct history *h, struct diag *d) = {migrate_v1, migrate_v2};
#define NMIGRATIONS (int)(sizeof migrations / sizeof migrations[0])

static int user_version(struct history *h)
{
	sqlite3_stmt *st;
	int v = -1;
	if (sqlite3_prepare_v2(h->db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	return v;
}

int history_open(struct history **out, const char *path, bool create, struct diag *d)
{
	struct history *h = xcalloc(1, sizeof *h);
	int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0);
	if (sqlite3_open_v2(path, &h->db, flags, NULL) != SQLITE_OK) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "history: cannot open %s: %s", path, h->db ? sqlite3_errmsg(h->db) : "out of memory");
		sqlite3_close(h->db);
		free(h);
		return ERR_IO;
	}
	sqlite3_busy_timeout(h->db, 10000);
	int v = user_version(h);
	if (v < 0) {
		int rc = fail(h, d, path);
		history_close(h);
		return rc == 0 ? ERR_IO : ERR_FORMAT;
	}
	if (v > HISTORY_SCHEMA_VERSION) {
		diag_emit(d, DIAG_PLAIN, 0, 0, "history: %s has schema version %d, newer than this iopsy (%d); use a newer iopsy",
			  path, v, HISTORY_SCHEMA_VERSION);
		history_close(h);
		return ERR_FORMAT;
	}
	/* migrate in place, all or nothing */
	if (v < NMIGRATIONS) {
		if (exec(h, "BEGIN IMMEDIATE", d) < 0) {
			history_close(h);
			return ERR_IO;
		}
		for (int k = v; k < NMIGRATIONS; k++) {
			if (migrations[k](h, d) < 0) {
				exec(h, "ROLLBACK", d);
				history_close(h);
				return ERR_IO;
			}
		}
		struct buf pv;
		buf_init(&pv);
		buf_printf(&pv, "PRAGMA user_version = %d", NMIGRATIONS);
		int rc = exec(h, pv.data, d);
		buf_free(&pv);
		if (rc < 0 || exec(h, "COMMIT", d) < 0) {
			exec(h, "ROLLBACK", d);
			history_close(h);
			return ERR_IO;
		}
	}
	*out = h;
	return 0;
}

void history_close(struct history *h)
{
	if (!h)
		return;
	sqlite3_close(h->db);
	free(h);
}

static char *col_dup(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return xstrdup(t ? (const char *)t : "");
}

/* Text columns back to ids; -1 when this iopsy does not know the name (a newer kind). */
static int col_id(sqlite3_stmt *st, int i, int (*find)(const char *))
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? find((const char *)t) : -1;
}

static int64_t col_time(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	int64_t v = 0;
	if (t)
		time_parse_iso((const char *)t, &v);
	return v;
}

static int previous(struct history *h, const struct bset *s, struct bprev *p, struct diag *d)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(h->db,
			       "SELECT r.id, r.started, s.capture_start FROM sets s JOIN runs r ON r.id = s.run_id "
			       "WHERE s.key = ?1 AND s.status != 'failed' ORDER BY r.id DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(h, d, "query");
	sqlite3_bind_text(st, 1, s->dir, -1, SQLITE_TRANSIENT);
	sqlite3_int64 run = -1;
	if (sqlite3_step(st) == SQLITE_ROW) {
		run = sqlite3_column_int64(st, 0);
		p->have = true;
		p->started = col_dup(st, 1);
		p->capture = col_dup(st, 2);
	}
	sqlite3_finalize(st);
	if (run < 0)
		return 0;
	if (sqlite3_prepare_v2(h->db,
			       "SELECT layer, entity, host, metric, p50, p95, p99, max, mean, samples FROM stats "
			       "WHERE run_id = ?1 AND set_key = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(h, d, "query");
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, s->dir, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int layer = col_id(st, 0, layer_find), metric = col_id(st, 3, metric_find);
		if (layer < 0 || metric < 0)
			continue;
		p->st = xrealloc(p->st, (p->nst + 1) * sizeof *p->st);
		struct bstat *b = &p->st[p->nst++];
		b->layer = (enum layer)layer;
		b->metric = (enum metric)metric;
		b->entity = col_dup(st, 1);
		b->host = col_dup(st, 2);
		double *v[5] = {&b->p50, &b->p95, &b->p99, &b->max, &b->mean};
		for (int k = 0; k < 5; k++)
			*v[k] = sqlite3_column_type(st, 4 + k) == SQLITE_NULL ? NAN : sqlite3_column_double(st, 4 + k);
		b->samples = sqlite3_column_int64(st, 9);
	}
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(h->db,
			       "SELECT kind, severity, layer, entity, host, start, end, summary FROM findings "
			       "WHERE run_id = ?1 AND set_key = ?2",
			       -1, &st, NULL) != SQLITE_OK)
		return fail(h, d, "query");
	sqlite3_bind_int64(st, 1, run);
	sqlite3_bind_text(st, 2, s->dir, -1, SQLITE_TRANSIENT);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int kind = col_id(st, 0, kind_find), sev = col_id(st, 1, severity_find), layer = col_id(st, 2, layer_find);
		if (kind < 0 || sev < 0 || layer < 0)
			continue;
		p->f = xrealloc(p->f, (p->nf + 1) * sizeof *p->f);
		struct bfinding *f = &p->f[p->nf++];
		f->kind = (enum kind)kind;
		f->sev = (enum severity)sev;
		f->layer = (enum layer)layer;
		f->entity = col_dup(st, 3);
		f->host = col_dup(st, 4);
		f->start = col_time(st, 5);
		f->end = col_time(st, 6);
		f->summary = col_dup(st, 7);
	}
	sqlite3_finalize(st);
	return 0;
}

int history_previous(struct history *h, const struct bset *s, struct bprev *p, struct diag *d)
{
	memset(p, 0, sizeof *p);
	if (h->previous_failed)
		return ERR_IO;
	int rc = previous(h, s, p, d);
	if (rc < 0) {
		bprev_free(p);
		h->previous_failed = true;
		diag_emit(d, DIAG_PLAIN, 0, 0, "history: no trend for set %s and the sets after it", s->dir);
	}
	return rc;
}

static void bind_text_or_null(sqlite3_stmt *st, int i, const char *s)
{
	if (s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

/* Figures are kept to 6 significant digits, as the history always kept them: enough for a trend
 * within 5%, and last week's numbers read back the same in every report. */
static void bind_num(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v)) {
		sqlite3_bind_null(st, i);
		return;
	}
	char x[32];
	snprintf(x, sizeof x, "%.6g", v);
	sqlite3_bind_double(st, i, strtod(x, NULL));
}

static void bind_time(sqlite3_stmt *st, int i, int64_t t)
{
	char x[32];
	time_format_iso(t, false, x);
	sqlite3_bind_text(st, i, x, -1, SQLITE_TRANSIENT);
}

/* One set's rows: its sets row, key figures and findings. */
static int record_set(struct history *h, sqlite3_int64 id, const struct bset *s, const struct bresult *r,
		      sqlite3_stmt *set, sqlite3_stmt *stat, sqlite3_stmt *find, struct diag *d)
{
	sqlite3_reset(set);
	sqlite3_bind_int64(set, 1, id);
	sqlite3_bind_text(set, 2, s->dir, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(set, 3, s->name, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(set, 4, bstatus_names[r->status], -1, SQLITE_STATIC);
	bind_text_or_null(set, 5, r->error);
	if (r->have_span) {
		bind_time(set, 6, r->span_start);
		bind_time(set, 7, r->span_end);
	} else {
		sqlite3_bind_null(set, 6);
		sqlite3_bind_null(set, 7);
	}
	bind_text_or_null(set, 8, s->worst >= 0 ? severity_names[s->worst] : NULL);
	sqlite3_bind_int64(set, 9, (sqlite3_int64)r->nf);
	bind_text_or_null(set, 10, r->verdict);
	if (sqlite3_step(set) != SQLITE_DONE)
		return fail(h, d, "insert set");
	for (size_t k = 0; k < r->nst; k++) {
		const struct bstat *x = &r->st[k];
		sqlite3_reset(stat);
		sqlite3_bind_int64(stat, 1, id);
		sqlite3_bind_text(stat, 2, s->dir, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(stat, 3, layer_names[x->layer], -1, SQLITE_STATIC);
		sqlite3_bind_text(stat, 4, x->entity, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(stat, 5, x->host ? x->host : "", -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(stat, 6, metric_info[x->metric].name, -1, SQLITE_STATIC);
		bind_num(stat, 7, x->p50);
		bind_num(stat, 8, x->p95);
		bind_num(stat, 9, x->p99);
		bind_num(stat, 10, x->max);
		bind_num(stat, 11, x->mean);
		sqlite3_bind_int64(stat, 12, x->samples);
		if (sqlite3_step(stat) != SQLITE_DONE)
			return fail(h, d, "insert figures");
	}
	for (size_t k = 0; k < r->nf; k++) {
		const struct bfinding *f = &r->f[k];
		sqlite3_reset(find);
		sqlite3_bind_int64(find, 1, id);
		sqlite3_bind_text(find, 2, s->dir, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(find, 3, kinds[f->kind].name, -1, SQLITE_STATIC);
		sqlite3_bind_text(find, 4, severity_names[f->sev], -1, SQLITE_STATIC);
		sqlite3_bind_text(find, 5, layer_names[f->layer], -1, SQLITE_STATIC);
		sqlite3_bind_text(find, 6, f->entity, -1, SQLITE_TRANSIENT);
		sqlite3_bind_text(find, 7, f->host ? f->host : "", -1, SQLITE_TRANSIENT);
		bind_time(find, 8, f->start);
		bind_time(find, 9, f->end);
		sqlite3_bind_text(find, 10, f->summary, -1, SQLITE_TRANSIENT);
		if (sqlite3_step(find) != SQLITE_DONE)
			return fail(h, d, "insert finding");
	}
	return 0;
}

int history_record(struct history *h, const char *started, const char *input, const struct batch *b, struct diag *d)
{
	if (exec(h, "BEGIN IMMEDIATE", d) < 0)
		return ERR_IO;
	sqlite3_stmt *run = NULL, *set = NULL, *stat = NULL, *find = NULL;
	int rc = 0;
	if (sqlite3_prepare_v2(h->db, "INSERT INTO runs(started, input, tool_version) VALUES(?1, ?2, ?3)", -1, &run, NULL) ||
	    sqlite3_prepare_v2(h->db,
			       "INSERT INTO sets(run_id, key, name, status, error, capture_start, capture_end, worst, findings, "
			       "verdict) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
			       -1, &set, NULL) ||
	    sqlite3_prepare_v2(h->db,
			       "INSERT INTO stats VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)", -1, &stat, NULL) ||
	    sqlite3_prepare_v2(h->db, "INSERT INTO findings VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)", -1, &find,
			       NULL)) {
		rc = fail(h, d, "prepare");
		goto out;
	}
	sqlite3_bind_text(run, 1, started, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 2, input, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(run, 3, IOPSY_VERSION, -1, SQLITE_STATIC);
	if (sqlite3_step(run) != SQLITE_DONE) {
		rc = fail(h, d, "insert run");
		goto out;
	}
	sqlite3_int64 id = sqlite3_last_insert_rowid(h->db);
	for (size_t i = 0; i < b->nsets && rc == 0; i++) {
		struct bresult tmp;
		const struct bresult *r = batch_result(b, i, &tmp);
		rc = record_set(h, id, &b->sets[i], r, set, stat, find, d);
		if (r == &tmp)
			bresult_free(&tmp);
	}
out:
	sqlite3_finalize(run);
	sqlite3_finalize(set);
	sqlite3_finalize(stat);
	sqlite3_finalize(find);
	if (rc == 0 && exec(h, "COMMIT", d) < 0)
		rc = ERR_IO;
	if (rc < 0)
		exec(h, "ROLLBACK", d);
	return rc;
}

int history_list(struct history *h, const char *set, struct buf *out, struct diag *d)
{
	sqlite3_stmt *st;
	const char *sql = "SELECT r.id, r.started, s.name, s.status, s.worst, s.findings, s.capture_start, s.error "
			  "FROM runs r JOIN sets s ON s.run_id = r.id WHERE ?1 IS NULL OR s.key = ?1 OR s.name = ?1 "
			  "ORDER BY r.id, s.name, s.key";
	if (sqlite3_prepare_v2(h->db, sql, -1, &st, NULL) != SQLITE_OK)
		return fail(h, d, "query");
	bind_text_or_null(st, 1, set);
	buf_printf(out, "schema version %d\n%-5s %-20s %-30s %-8s %-8s %8s  %s\n", user_version(h), "run", "started",
		   "set", "status", "worst", "findings", "capture start");
	long rows = 0;
	while (sqlite3_step(st) == SQLITE_ROW) {
		rows++;
		buf_printf(out, "%-5lld %-20s ", (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1));
		const char *name = (const char *)sqlite3_column_text(st, 2);
		size_t before = out->len;
		buf_add_text_escaped(out, name, strlen(name));
		size_t w = out->len - before;
		buf_printf(out, "%*s %-8s %-8s %8d  %s\n", w < 30 ? (int)(30 - w) : 0, "", sqlite3_column_text(st, 3),
			   sqlite3_column_type(st, 4) == SQLITE_NULL ? "-" : (const char *)sqlite3_column_text(st, 4),
			   sqlite3_column_int(st, 5),
			   sqlite3_column_type(st, 6) == SQLITE_NULL ? "-" : (const char *)sqlite3_column_text(st, 6));
	}
	sqlite3_finalize(st);
	if (set) {
		if (sqlite3_prepare_v2(h->db,
				       "SELECT run_id, kind, severity, host, entity, start, end FROM findings WHERE set_key = ?1 "
				       "OR set_key IN (SELECT key FROM sets WHERE name = ?1) ORDER BY run_id",
				       -1, &st, NULL) != SQLITE_OK)
			return fail(h, d, "query");
		sqlite3_bind_text(st, 1, set, -1, SQLITE_TRANSIENT);
		buf_adds(out, "\nfindings per run\n");
		while (sqlite3_step(st) == SQLITE_ROW) {
			buf_printf(out, "  run %lld  %-8s %-30s ", (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 2),
				   sqlite3_column_text(st, 1));
			const char *hst = (const char *)sqlite3_column_text(st, 3), *ent = (const char *)sqlite3_column_text(st, 4);
			if (hst && *hst) {
				buf_add_text_escaped(out, hst, strlen(hst));
				buf_addc(out, ' ');
			}
			buf_add_text_escaped(out, ent, strlen(ent));
			buf_printf(out, "  %s .. %s\n", sqlite3_column_text(st, 5), sqlite3_column_text(st, 6));
		}
		sqlite3_finalize(st);
		if (sqlite3_prepare_v2(h->db,
				       "SELECT run_id, layer, host, entity, metric, p50, p95, max FROM stats WHERE set_key = ?1 "
				       "OR set_key IN (SELECT key FROM sets WHERE name = ?1) ORDER BY layer, entity, metric, run_id",
				       -1, &st, NULL) != SQLITE_OK)
			return fail(h, d, "query");
		sqlite3_bind_text(st, 1, set, -1, SQLITE_TRANSIENT);
		buf_adds(out, "\nkey figures per run (p50 / p95 / max)\n");
		while (sqlite3_step(st) == SQLITE_ROW) {
			buf_printf(out, "  run %lld  %-7s ", (long long)sqlite3_column_int64(st, 0), sqlite3_column_text(st, 1));
			const char *ent = (const char *)sqlite3_column_text(st, 3);
			buf_add_text_escaped(out, ent, strlen(ent));
			buf_printf(out, " %s %.3g / %.3g / %.3g\n", sqlite3_column_text(st, 4), sqlite3_column_double(st, 5),
				   sqlite3_column_double(st, 6), sqlite3_column_double(st, 7));
		}
		sqlite3_finalize(st);
	}
	if (!rows)
		buf_adds(out, set ? "(no run recorded this set)\n" : "(no runs recorded)\n");
	return 0;
}
