/* sqlimpact.c — SQL Server's side of the storage episodes (see sqlimpact.h). */
#include "sqlimpact.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

const char *const sql_role_names[2] = {"log", "data"};
const char *const sql_how_names[3] = {"not_mapped", "map", "evidence"};

/* Evidence that a disk holds a database's log or the instance's data [derived]: the SQL series
 * follows the disk's bytes and is most of them. */
#define SQL_R_MIN 0.8
#define SQL_SHARE_MIN (2.0 / 3.0)
#define SQL_SHARE_MAX 1.25
/* The storage wait explains SQL Server's wait when the disk's latency is at least this share of it. */
#define SQL_EXPLAINS 0.5
#define PAGE_BYTES 8192.0

/* ---- series ---- */

static const struct capture *cap_of(const struct model *m, const struct entity *e) { return &m->caps[e->capture]; }

static bool has(const struct entity *e, int metric) { return e && e->series[metric] >= 0 && entity_sk(e, metric)->n > 0; }

/* Bucket k of e's capture: metric's mean, NaN when missing. */
static double bv(const struct model *m, const struct entity *e, int metric, size_t k)
{
	if (!e || e->series[metric] < 0)
		return NAN;
	return ds_mean(&cap_of(m, e)->ds, (size_t)e->series[metric], k);
}

/* Pseudo metrics over a disk's series: MB/s written and read (rate x bytes per IO). */
enum { PS_WRITE_MB = -2, PS_READ_MB = -3, PS_PAGE_MB = -4 };

static double bval(const struct model *m, const struct entity *e, int what, size_t k)
{
	switch (what) {
	case PS_WRITE_MB: return bv(m, e, M_G_WRITES, k) * bv(m, e, M_G_BPW, k) / 1048576.0;
	case PS_READ_MB: return bv(m, e, M_G_READS, k) * bv(m, e, M_G_BPR, k) / 1048576.0;
	case PS_PAGE_MB: return bv(m, e, M_SQL_PAGE_READS, k) * PAGE_BYTES / 1048576.0;
	default: return bv(m, e, what, k);
	}
}

static int64_t b_start(const struct model *m, const struct capture *c, size_t k)
{
	(void)m;
	return c->ds.t0[k] + c->clock_offset_ms;
}

static int64_t b_end(const struct model *m, const struct capture *c, size_t k)
{
	(void)m;
	return c->ds.t1[k] + c->clock_offset_ms;
}

/* Mean of what over e's buckets whose middle (aligned) is inside [a, b] (inside) or outside it;
 * weighted by the bucket's values. NaN when none. */
static double span_mean(const struct model *m, const struct entity *e, int what, int64_t a, int64_t b, bool inside,
			long *nb)
{
	if (nb)
		*nb = 0;
	if (!e)
		return NAN;
	const struct capture *c = cap_of(m, e);
	double sum = 0, w = 0;
	for (size_t k = 0; k < c->ds.nb; k++) {
		int64_t t = model_time(m, c, k);
		if ((t >= a && t <= b) != inside)
			continue;
		double v = bval(m, e, what, k);
		if (isnan(v))
			continue;
		sum += v;
		w += 1;
		if (nb)
			(*nb)++;
	}
	return w > 0 ? sum / w : NAN;
}

/* The value of what on e at the time of bucket k of capture c: the same bucket when e is in c,
 * else the mean over e's buckets in that time. */
static double at(const struct model *m, const struct entity *e, int what, const struct capture *c, size_t k)
{
	if (!e)
		return NAN;
	if (cap_of(m, e) == c)
		return bval(m, e, what, k);
	return span_mean(m, e, what, b_start(m, c, k), b_end(m, c, k), true, NULL);
}

/* Pearson r of two series of one capture (NaN when fewer than 8 pairs or not one capture). */
static double pearson(const struct model *m, const struct entity *x, int wx, const struct entity *y, int wy)
{
	if (!x || !y || x->capture != y->capture)
		return NAN;
	const struct capture *c = cap_of(m, x);
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	size_t n = 0;
	for (size_t k = 0; k < c->ds.nb; k++) {
		double u = bval(m, x, wx, k), v = bval(m, y, wy, k);
		if (isnan(u) || isnan(v))
			continue;
		sx += u, sy += v, sxx += u * u, syy += v * v, sxy += u * v;
		n++;
	}
	if (n < 8)
		return NAN;
	double cov = sxy - sx * sy / (double)n, vx = sxx - sx * sx / (double)n, vy = syy - sy * sy / (double)n;
	if (vx <= 0 || vy <= 0)
		return NAN;
	return cov / sqrt(vx * vy);
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof *v, dcmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ---- the instance's entities ---- */

struct inst_ents {
	const struct entity *db[SQL_MAX_PLACES];
	size_t ndb;
	const struct entity *total;      /* Databases(_Total) */
	const struct entity *disk[64];   /* the machine's guest disks (not _Total) */
	size_t ndisk;
	const struct entity *vm;         /* esxtop's VM of the machine (Group Cpu % Ready) */
};

static const char *db_name(const struct entity *e)
{
	const char *c = strchr(e->name, ':');
	return c ? c + 1 : e->name;
}

static bool same_host(const char *a, const char *b) { return a && b && strcasecmp(a, b) == 0; }

static void find_ents(const struct model *m, const struct sql_instance *si, struct inst_ents *ie)
{
	memset(ie, 0, sizeof *ie);
	size_t nl = strlen(si->name);
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->layer == LAYER_SQL && same_host(e->host, si->host) && strncmp(e->name, si->name, nl) == 0 &&
		    e->name[nl] == ':') {
			if (strcmp(db_name(e), "_Total") == 0)
				ie->total = e;
			else if (ie->ndb < SQL_MAX_PLACES - 2)
				ie->db[ie->ndb++] = e;
		} else if (e->layer == LAYER_GUEST && !e->aggregate && same_host(e->host, si->host) && ie->ndisk < 64) {
			ie->disk[ie->ndisk++] = e;
		} else if (e->layer == LAYER_VM && same_host(e->name, si->host) && (has(e, M_RDY) || has(e, M_HV_CPU_WAIT))) {
			ie->vm = e;
		}
	}
}

/* ---- where the files are ---- */

static const struct entity *disk_named(const struct inst_ents *ie, const char *name)
{
	for (size_t i = 0; i < ie->ndisk; i++)
		if (strcasecmp(ie->disk[i]->name, name) == 0)
			return ie->disk[i];
	return NULL;
}

/* The disk whose bytes (disk_what) the SQL series (sql_what of s) follows and mostly is, or NULL. */
static const struct entity *by_evidence(const struct model *m, const struct inst_ents *ie, const struct entity *s,
					int sql_what, int disk_what, double *r_out, double *share_out)
{
	const struct entity *best = NULL;
	double best_d = INFINITY;
	double sm = span_mean(m, s, sql_what, INT64_MIN, INT64_MAX, true, NULL);
	if (!(sm > 0.01))
		return NULL; /* idle: nothing to follow */
	for (size_t i = 0; i < ie->ndisk; i++) {
		const struct entity *d = ie->disk[i];
		double r = pearson(m, s, sql_what, d, disk_what);
		double dm = span_mean(m, d, disk_what, INT64_MIN, INT64_MAX, true, NULL);
		if (isnan(r) || r < SQL_R_MIN || !(dm > 0))
			continue;
		double share = sm / dm;
		if (share < SQL_SHARE_MIN || share > SQL_SHARE_MAX)
			continue;
		double dist = fabs(log(share));
		if (dist < best_d) {
			best_d = dist;
			best = d;
			*r_out = r;
			*share_out = share;
		}
	}
	return best;
}

static void add_place(struct sql_instance *si, struct sql_place p)
{
	if (si->nplace < SQL_MAX_PLACES)
		si->place[si->nplace++] = p;
}

/* Whether --map line l names instance si's database db (db NULL: any database, data lines). */
static bool line_names(const struct dbmap_line *l, const struct sql_instance *si, const char *db)
{
	if (l->instance && strcasecmp(l->instance, si->name) != 0)
		return false;
	if (l->guest_host && !same_host(l->guest_host, si->host))
		return false;
	return !db || strcasecmp(l->db, db) == 0;
}

static void place_files(const struct sql_in *in, struct sql_instance *si, const struct inst_ents *ie, struct arena *ar)
{
	const struct model *m = in->m;
	/* the logs */
	for (size_t d = 0; d < ie->ndb; d++) {
		const struct entity *db = ie->db[d];
		const char *name = db_name(db);
		struct sql_place p = {.role = SQLR_LOG, .db = name, .r = NAN, .share = NAN};
		for (size_t k = 0; k < in->ndb && p.how == SQLH_NONE; k++) {
			const struct dbmap_line *l = &in->db[k];
			if (l->data || !line_names(l, si, name))
				continue;
			p.how = SQLH_MAP;
			p.map_line = l->line;
			p.disk = disk_named(ie, l->guest_disk);
			p.text = p.disk ? arena_printf(ar, "the log of %s is on %s (--map line %ld)", name, p.disk->name, l->line)
					: arena_printf(ar, "the log of %s: --map line %ld names %s, which the captures of %s do not have",
						       name, l->line, l->guest_disk, si->host);
			/* the capture's own evidence, when it points elsewhere */
			double r, sh;
			const struct entity *ev = by_evidence(m, ie, db, M_SQL_LOG_MBPS, PS_WRITE_MB, &r, &sh);
			if (ev && ev != p.disk)
				p.text = arena_printf(ar, "%s; but its Log Bytes Flushed/sec follows %s's write bytes (r = %.2f, %.0f%% of "
							  "them): check the --map line", p.text, ev->name, r, 100 * sh);
		}
		if (p.how == SQLH_NONE) {
			if (!has(db, M_SQL_LOG_MBPS) || !(span_mean(m, db, M_SQL_LOG_MBPS, INT64_MIN, INT64_MAX, true, NULL) > 0.01))
				continue; /* no log traffic: nothing to place, nothing to say */
			p.disk = by_evidence(m, ie, db, M_SQL_LOG_MBPS, PS_WRITE_MB, &p.r, &p.share);
			if (p.disk) {
				p.how = SQLH_EVIDENCE;
				p.text = arena_printf(ar, "the log of %s is on %s (its Log Bytes Flushed/sec follows %s's write bytes, "
							  "r = %.2f, and is %.0f%% of them)", name, p.disk->name, p.disk->name, p.r,
						      100 * p.share);
			} else if (ef_on(m->filter)) {
				p.text = arena_printf(ar, "the log of %s is not tied to a disk of the selection: its disk may be "
							  "outside --host/--vm/--disk", name);
			} else {
				p.text = arena_printf(ar, "the log of %s is not mapped: no disk's writes follow its Log Bytes "
							  "Flushed/sec (give --map 'database %s log = DISK')", name, name);
			}
		}
		add_place(si, p);
	}
	/* the data */
	struct sql_place p = {.role = SQLR_DATA, .r = NAN, .share = NAN};
	for (size_t k = 0; k < in->ndb; k++) {
		const struct dbmap_line *l = &in->db[k];
		if (!l->data || !line_names(l, si, NULL))
			continue;
		p.how = SQLH_MAP;
		p.db = l->db;
		p.map_line = l->line;
		p.disk = disk_named(ie, l->guest_disk);
		p.text = p.disk ? arena_printf(ar, "data of %s on %s (--map line %ld)", l->db, p.disk->name, l->line)
				: arena_printf(ar, "data of %s: --map line %ld names %s, which the captures of %s do not have", l->db,
					       l->line, l->guest_disk, si->host);
		add_place(si, p);
		p = (struct sql_place){.role = SQLR_DATA, .r = NAN, .share = NAN};
	}
	bool mapped = false;
	for (size_t i = 0; i < si->nplace; i++)
		mapped |= si->place[i].role == SQLR_DATA;
	if (!mapped && has(si->inst, M_SQL_PAGE_READS) &&
	    span_mean(m, si->inst, M_SQL_PAGE_READS, INT64_MIN, INT64_MAX, true, NULL) > 1) {
		p.disk = by_evidence(m, ie, si->inst, PS_PAGE_MB, PS_READ_MB, &p.r, &p.share);
		if (p.disk) {
			p.how = SQLH_EVIDENCE;
			p.text = arena_printf(ar, "the data is on %s (Page reads/sec x 8 KiB follows %s's read bytes, r = %.2f, "
						  "and is %.0f%% of them)", p.disk->name, p.disk->name, p.r, 100 * p.share);
		} else {
			p.text = ef_on(m->filter) ? arena_printf(ar, "the data files are not tied to a disk of the selection: "
										 "their disk may be outside --host/--vm/--disk")
						  : arena_printf(ar, "the data files are not mapped: no disk's reads follow Page reads/sec "
						  "(give --map 'database DB data = DISK')");
		}
		add_place(si, p);
	}
}

/* ---- figures ---- */

/* Log flush wait per wait over the databases on disk (NULL: all, _Total when there is one). */
static double flush_per_wait(const struct model *m, const struct sql_instance *si, const struct inst_ents *ie,
			     const struct entity *disk, int64_t a, int64_t b, bool inside)
{
	double wt = 0, wn = 0;
	bool any = false;
	if (!disk && ie->total) {
		wt = span_mean(m, ie->total, M_SQL_FLUSH_WAIT_MS, a, b, inside, NULL);
		wn = span_mean(m, ie->total, M_SQL_FLUSH_WAITS, a, b, inside, NULL);
		return wn > 0 ? wt / wn : NAN;
	}
	for (size_t i = 0; i < si->nplace; i++) {
		const struct sql_place *p = &si->place[i];
		if (p->role != SQLR_LOG || (disk && p->disk != disk))
			continue;
		const struct entity *db = NULL;
		for (size_t k = 0; k < ie->ndb && !db; k++)
			if (db_name(ie->db[k]) == p->db)
				db = ie->db[k];
		double t = span_mean(m, db, M_SQL_FLUSH_WAIT_MS, a, b, inside, NULL);
		double n = span_mean(m, db, M_SQL_FLUSH_WAITS, a, b, inside, NULL);
		if (isnan(t) || isnan(n))
			continue;
		wt += t;
		wn += n;
		any = true;
	}
	return any && wn > 0 ? wt / wn : NAN;
}

static void figs(const struct model *m, const struct sql_instance *si, const struct inst_ents *ie,
		 const struct entity *disk, enum sql_role role, int64_t a, int64_t b, bool inside, struct sql_figs *f)
{
	f->batch = span_mean(m, si->inst, M_SQL_BATCH, a, b, inside, NULL);
	f->buckets = 0;
	const struct entity *ref = si->inst ? si->inst : ie->total ? ie->total : disk;
	if (ref) {
		const struct capture *c = cap_of(m, ref);
		for (size_t k = 0; k < c->ds.nb; k++) {
			int64_t t = model_time(m, c, k);
			f->buckets += (t >= a && t <= b) == inside;
		}
	}
	f->flush_wait_ms = flush_per_wait(m, si, ie, disk, a, b, inside);
	f->log_write_ms = span_mean(m, si->inst, M_SQL_LW_AVG, a, b, inside, NULL);
	f->pageio_ms = span_mean(m, si->inst, M_SQL_PIO_AVG, a, b, inside, NULL);
	f->ple_min = f->ple_median = NAN;
	if (has(si->inst, M_SQL_PLE)) {
		const struct capture *c = cap_of(m, si->inst);
		double *v = xmalloc((c->ds.nb ? c->ds.nb : 1) * sizeof *v);
		size_t n = 0;
		for (size_t k = 0; k < c->ds.nb; k++) {
			int64_t t = model_time(m, c, k);
			if ((t >= a && t <= b) != inside)
				continue;
			double x = bv(m, si->inst, M_SQL_PLE, k);
			if (isnan(x))
				continue;
			double lo = ds_min(&c->ds, (size_t)si->inst->series[M_SQL_PLE], k);
			if (isnan(f->ple_min) || lo < f->ple_min)
				f->ple_min = lo;
			v[n++] = x;
		}
		f->ple_median = median(v, n);
		free(v);
	}
	f->disk_ms = disk ? span_mean(m, disk, role == SQLR_LOG ? M_G_LAT_W : M_G_LAT_R, a, b, inside, NULL) : NAN;
}

/* "18.9 ms" or "-" into b. */
/* " (X outside)" of an outside figure, or nothing when the episode covers the capture. */
static void outside(struct buf *b, const struct sql_figs *o, double v, bool is_ms, const char *what)
{
	if (!o->buckets && isnan(v))
		return;
	buf_adds(b, " (");
	if (isnan(v))
		buf_adds(b, "n/a");
	else if (is_ms)
		buf_printf(b, v >= 100 ? "%.0f ms" : v >= 10 ? "%.1f ms" : "%.2g ms", v);
	else
		buf_printf(b, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2g", v);
	buf_printf(b, " %s)", what);
}

static void ms(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "n/a");
	else
		buf_printf(b, v >= 100 ? "%.0f ms" : v >= 10 ? "%.1f ms" : "%.2g ms", v);
}

static void num(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "n/a");
	else
		buf_printf(b, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2g", v);
}

static void dur(struct buf *b, double s)
{
	long t = (long)(s + 0.5);
	if (t >= 3600)
		buf_printf(b, "%ldh %02ldm", t / 3600, (t / 60) % 60);
	else if (t >= 60)
		buf_printf(b, "%ldm %02lds", t / 60, t % 60);
	else
		buf_printf(b, "%lds", t);
}

static void hms(struct buf *b, int64_t t)
{
	char s[32];
	time_format_iso(t, false, s);
	buf_printf(b, "%.8s", s + 11);
}

/* "the log of ETLDB", "the log of ETLDB and tempdb", "the data" of disk in role. */
static void role_of_disk(const struct sql_instance *si, const struct entity *disk, enum sql_role role, struct buf *b)
{
	if (role == SQLR_DATA) {
		buf_adds(b, "the instance's data");
		return;
	}
	buf_adds(b, "the log of ");
	int n = 0;
	for (size_t i = 0; i < si->nplace; i++)
		if (si->place[i].role == SQLR_LOG && si->place[i].disk == disk)
			buf_printf(b, "%s%s", n++ ? ", " : "", si->place[i].db);
}

/* ---- episodes ---- */

/* The guest disks of the instance's machine a finding bears on. */
static size_t finding_disks(const struct sql_in *in, const struct inst_ents *ie, const struct finding *f,
			    const struct entity **out, size_t cap)
{
	const struct entity *fe = finding_entity(&in->ti, f, -1);
	size_t n = 0;
	if (!fe)
		return 0;
	for (size_t i = 0; i < ie->ndisk && n < cap; i++) {
		const struct entity *g = ie->disk[i];
		if (fe == g) {
			out[n++] = g;
			continue;
		}
		if (fe->layer == LAYER_GUEST)
			continue;
		struct stack st;
		topology_stack(&in->ti, g, &st);
		if ((st.vdisk && st.vdisk == fe) || (st.device && st.device == fe) || (st.adapter && st.adapter == fe))
			out[n++] = g;
	}
	return n;
}

static void kinds_add(struct arena *ar, const char **list, const char *name)
{
	if (*list && strstr(*list, name))
		return;
	*list = *list ? arena_printf(ar, "%s, %s", *list, name) : arena_strdup(ar, name);
}

static bool disk_has_role(const struct sql_instance *si, const struct entity *d, enum sql_role role)
{
	for (size_t i = 0; i < si->nplace; i++)
		if (si->place[i].disk == d && si->place[i].role == role)
			return true;
	return false;
}

static int ep_cmp(const void *x, const void *y)
{
	const struct sql_episode *a = x, *b = y;
	if (a->start != b->start)
		return (a->start > b->start) - (a->start < b->start);
	return (int)a->role - (int)b->role;
}

static void episodes(const struct sql_in *in, struct sql_instance *si, const struct inst_ents *ie, struct arena *ar)
{
	double gap = rule_value(in->r, R_EPISODE_GAP_S) * 1000;
	for (size_t i = 0; i < in->ti.nf; i++) {
		const struct finding *f = &in->ti.f[i];
		if (f->sev < SEV_WARNING || f->layer == LAYER_SQL)
			continue;
		const struct entity *ds[64];
		size_t nd = finding_disks(in, ie, f, ds, 64);
		for (size_t k = 0; k < nd; k++) {
			for (int role = 0; role < 2; role++) {
				if (!disk_has_role(si, ds[k], (enum sql_role)role))
					continue;
				struct sql_episode *e = NULL;
				for (size_t j = 0; j < si->nep && !e; j++)
					if (si->ep[j].disk == ds[k] && si->ep[j].role == (enum sql_role)role &&
					    (double)(f->start - si->ep[j].end) <= gap && (double)(si->ep[j].start - f->end) <= gap)
						e = &si->ep[j];
				if (!e) {
					if (si->nep == SQL_MAX_EPISODES)
						continue;
					e = &si->ep[si->nep++];
					memset(e, 0, sizeof *e);
					e->disk = ds[k];
					e->role = (enum sql_role)role;
					e->start = f->start;
					e->end = f->end;
					e->sev = f->sev;
				}
				if (f->start < e->start)
					e->start = f->start;
				if (f->end > e->end)
					e->end = f->end;
				if (f->sev > e->sev)
					e->sev = f->sev;
				kinds_add(ar, &e->kinds, kinds[f->kind].name);
			}
		}
	}
	if (si->nep)
		qsort(si->ep, si->nep, sizeof *si->ep, ep_cmp);
	for (size_t j = 0; j < si->nep; j++) {
		struct sql_episode *e = &si->ep[j];
		figs(in->m, si, ie, e->disk, e->role, e->start, e->end, true, &e->during);
		figs(in->m, si, ie, e->disk, e->role, e->start, e->end, false, &e->outside);
		bool log = e->role == SQLR_LOG;
		double sql = log ? (!isnan(e->during.log_write_ms) ? e->during.log_write_ms : e->during.flush_wait_ms)
				 : e->during.pageio_ms;
		double thr = rule_value(in->r, log ? R_LOG_WRITE_WARN : R_GUEST_LAT_WARN);
		e->share = sql > 0 ? e->during.disk_ms / sql : NAN;
		e->explains = isnan(sql) || sql < thr ? -1 : e->share >= SQL_EXPLAINS;
		struct buf b;
		buf_init(&b);
		buf_printf(&b, "%s (", e->disk->name);
		role_of_disk(si, e->disk, e->role, &b);
		buf_adds(&b, ") ");
		hms(&b, e->start);
		buf_adds(&b, "-");
		hms(&b, e->end);
		buf_printf(&b, " UTC, %s storage episode (%s): %s's %s took ", severity_names[e->sev], e->kinds ? e->kinds : "",
			   e->disk->name, log ? "writes" : "reads");
		ms(&b, e->during.disk_ms);
		if (log) {
			if (!isnan(e->during.flush_wait_ms)) {
				buf_adds(&b, "; SQL Server's log flushes waited ");
				ms(&b, e->during.flush_wait_ms);
				buf_adds(&b, " per wait");
				outside(&b, &e->outside, e->outside.flush_wait_ms, true, "outside this episode");
			}
			if (!isnan(e->during.log_write_ms)) {
				buf_adds(&b, isnan(e->during.flush_wait_ms) ? "; Log write waits averaged " : " and Log write waits averaged ");
				ms(&b, e->during.log_write_ms);
				outside(&b, &e->outside, e->outside.log_write_ms, true, "outside");
			}
		} else {
			buf_adds(&b, "; Page IO latch waits averaged ");
			ms(&b, e->during.pageio_ms);
			outside(&b, &e->outside, e->outside.pageio_ms, true, "outside this episode");
			if (!isnan(e->during.ple_median)) {
				buf_adds(&b, " and Page life expectancy was ");
				num(&b, e->during.ple_median);
				buf_adds(&b, " s (lowest ");
				num(&b, e->during.ple_min);
				buf_adds(&b, " s");
				if (e->outside.buckets) {
					buf_adds(&b, "; ");
					num(&b, e->outside.ple_median);
					buf_adds(&b, " s outside");
				}
				buf_adds(&b, ")");
			}
		}
		if (e->explains == 1)
			buf_printf(&b, ": the storage wait explains SQL Server's %s (the disk's latency is %.0f%% of the wait)",
				   log ? "log flush waits" : "page IO latch waits", 100 * e->share);
		else if (e->explains == 0)
			buf_printf(&b, ": the disk's latency is only %.0f%% of SQL Server's wait, so the storage wait does not "
				       "explain it (see the waits without a storage cause)", 100 * e->share);
		else if (isnan(sql))
			buf_printf(&b, ": the capture has no %s figure of SQL Server to compare", log ? "log wait" : "page IO latch wait");
		else
			buf_printf(&b, ": SQL Server's %s stayed below %g ms, so no visible effect on it",
				   log ? "log waits" : "page IO latch waits", thr);
		if (!isnan(e->during.batch)) {
			buf_adds(&b, ". Workload: Batch Requests/sec ");
			num(&b, e->during.batch);
			outside(&b, &e->outside, e->outside.batch, false, "outside");
		}
		if (!e->outside.buckets)
			buf_adds(&b, ". The episode covers the whole capture: there is no quieter time to compare with");
		buf_addc(&b, '.');
		e->text = arena_strndup(ar, b.data, b.len);
		buf_free(&b);
	}
}

/* ---- SQL waits without a storage cause ---- */

static void symptoms(const struct sql_in *in, struct sql_instance *si, const struct inst_ents *ie, struct arena *ar)
{
	const struct model *m = in->m;
	const struct entity *src = si->inst;
	if (!src && ie->total)
		src = ie->total;
	if (!src)
		return;
	const struct capture *c = cap_of(m, src);
	for (int role = 0; role < 2; role++) {
		bool log = role == SQLR_LOG;
		/* the series whose samples are counted for the sustain rule */
		const struct entity *se = log ? (has(si->inst, M_SQL_LW_AVG) ? si->inst : ie->total ? ie->total : ie->ndb ? ie->db[0] : NULL)
					  : (has(si->inst, M_SQL_PIO_AVG) ? si->inst : NULL);
		int sm = log ? (se == si->inst ? M_SQL_LW_AVG : M_SQL_FLUSH_WAITS) : M_SQL_PIO_AVG;
		if (!se || se->series[sm] < 0 || cap_of(m, se) != c)
			continue;
		double thr = rule_value(in->r, log ? R_LOG_WRITE_WARN : R_GUEST_LAT_WARN);
		const struct entity *disks[SQL_MAX_PLACES];
		size_t nd = 0;
		for (size_t i = 0; i < si->nplace; i++) {
			const struct entity *d = si->place[i].disk;
			bool dup = false;
			for (size_t k = 0; k < nd; k++)
				dup |= disks[k] == d;
			if (si->place[i].role == (enum sql_role)role && d && !dup)
				disks[nd++] = d;
		}
		double *sv = xmalloc((c->ds.nb ? c->ds.nb : 1) * sizeof *sv), *dv = xmalloc((c->ds.nb ? c->ds.nb : 1) * sizeof *dv);
		size_t n = 0, nd_v = 0;
		long samples = 0;
		double held = 0;
		int64_t t0 = 0, t1 = 0;
		const struct entity *worst = NULL;
		for (size_t k = 0; k < c->ds.nb; k++) {
			double sql;
			if (log) {
				sql = bv(m, si->inst, M_SQL_LW_AVG, k);
				if (isnan(sql)) {
					double t = 0, w = 0;
					const struct entity *src_db[SQL_MAX_PLACES];
					size_t ns = 0;
					if (ie->total)
						src_db[ns++] = ie->total;
					else
						for (size_t i = 0; i < ie->ndb; i++)
							src_db[ns++] = ie->db[i];
					for (size_t i = 0; i < ns; i++) {
						double a = at(m, src_db[i], M_SQL_FLUSH_WAIT_MS, c, k), b = at(m, src_db[i], M_SQL_FLUSH_WAITS, c, k);
						if (!isnan(a) && !isnan(b))
							t += a, w += b;
					}
					sql = w > 0 ? t / w : NAN;
				}
			} else {
				sql = bv(m, si->inst, M_SQL_PIO_AVG, k);
			}
			if (isnan(sql) || sql < thr)
				continue;
			double disk = NAN;
			const struct entity *dk = NULL;
			for (size_t i = 0; i < nd; i++) {
				double v = at(m, disks[i], log ? M_G_LAT_W : M_G_LAT_R, c, k);
				if (!isnan(v) && (isnan(disk) || v > disk)) {
					disk = v;
					dk = disks[i];
				}
			}
			if (!isnan(disk) && disk >= SQL_EXPLAINS * sql)
				continue; /* the storage explains it */
			if (!n)
				t0 = b_start(m, c, k);
			t1 = b_end(m, c, k);
			held += (double)(b_end(m, c, k) - b_start(m, c, k)) / 1000.0 + c->interval_s;
			samples += (long)ds_count(&c->ds, (size_t)se->series[sm], k);
			sv[n++] = sql;
			if (!isnan(disk))
				dv[nd_v++] = disk;
			if (dk)
				worst = dk;
		}
		if (n && samples >= rules_sustain_samples(in->r, c->interval_s) && held >= rule_value(in->r, R_SUSTAIN_SECONDS) &&
		    si->nsym < SQL_MAX_SYMPTOMS) {
			struct sql_symptom *y = &si->sym[si->nsym++];
			memset(y, 0, sizeof *y);
			y->role = (enum sql_role)role;
			y->start = t0;
			y->end = t1;
			y->held_s = held;
			y->sql_ms = median(sv, n);
			y->disk_ms = median(dv, nd_v);
			y->disk = worst ? worst : nd ? disks[0] : NULL;
			y->ready_pct = ie->vm ? span_mean(m, ie->vm, M_RDY, t0, t1, true, NULL) : NAN;
			y->vcpus = ie->vm ? model_vm_vcpus(m, ie->vm->capture, ie->vm->name) : 0;
			y->ready_vcpu = y->vcpus ? y->ready_pct / y->vcpus : NAN;
			y->costop_vcpu = y->vcpus && ie->vm->series[M_CSTP] >= 0
						 ? span_mean(m, ie->vm, M_CSTP, t0, t1, true, NULL) / y->vcpus
						 : NAN;
			y->cpu_wait_us = ie->vm && has(ie->vm, M_HV_CPU_WAIT) ? span_mean(m, ie->vm, M_HV_CPU_WAIT, t0, t1, true, NULL) : NAN;
			y->cpu_cause = (!isnan(y->ready_vcpu) && y->ready_vcpu > rule_value(in->r, R_CPU_RDY_WARN)) ||
				       (!isnan(y->costop_vcpu) && y->costop_vcpu > rule_value(in->r, R_CPU_CSTP_WARN)) ||
				       (!isnan(y->cpu_wait_us) && y->cpu_wait_us > rule_value(in->r, R_HV_CPU_WAIT_WARN));
			struct buf b;
			buf_init(&b);
			buf_adds(&b, log ? "Log write waits" : "Page IO latch waits");
			if (log && !has(si->inst, M_SQL_LW_AVG))
				buf_adds(&b, " (log flush wait per wait)");
			buf_adds(&b, " ");
			ms(&b, y->sql_ms);
			buf_adds(&b, " (median, ");
			hms(&b, t0);
			buf_adds(&b, "-");
			hms(&b, t1);
			buf_adds(&b, " UTC, held ");
			dur(&b, held);
			buf_printf(&b, "; above the %g ms %s)", thr, log ? "log write target" : "read latency band");
			if (y->disk) {
				buf_printf(&b, " while %s (", y->disk->name);
				role_of_disk(si, y->disk, (enum sql_role)role, &b);
				buf_printf(&b, ") %s in ", log ? "writes" : "reads");
				ms(&b, y->disk_ms);
				buf_printf(&b, ": the disk explains %.0f%% of it - look elsewhere", 100 * y->disk_ms / y->sql_ms);
				const char *also = log ? "log buffer waits, synchronous replicas (Always On) and guest CPU"
						       : "latch contention, guest CPU and memory pressure";
				char cst[48] = "";
				if (!isnan(y->costop_vcpu))
					snprintf(cst, sizeof cst, ", %%CSTP %.1f%%", y->costop_vcpu);
				if (y->cpu_cause && !isnan(y->cpu_wait_us) && isnan(y->ready_vcpu))
					buf_printf(&b, ": %s's virtual processors wait for a logical processor (CPU Wait Time Per "
						       "Dispatch %.0f µs on the Hyper-V host), which delays every hand-off of a %s; also "
						       "check %s.", si->host, y->cpu_wait_us, log ? "log flush" : "page read", also);
				else if (y->cpu_cause)
					buf_printf(&b, ": %s's vCPUs wait for a physical CPU (esxtop %%RDY %.1f%% per vCPU%s over %d "
						       "vCPUs), which delays every hand-off of a %s; also check %s.", si->host,
						   y->ready_vcpu, cst,
						   y->vcpus, log ? "log flush" : "page read", also);
				else if (!isnan(y->ready_vcpu))
					buf_printf(&b, " (%s's %%RDY is %.1f%% per vCPU, not the cause): check %s.", si->host, y->ready_vcpu,
						   also);
				else if (!isnan(y->ready_pct))
					buf_printf(&b, " (%s's %%RDY is %.0f%% summed over its vCPUs; the capture does not name its vCPU "
						       "count, so it is not judged): check the VM's CPU, %s.", si->host, y->ready_pct, also);
				else
					buf_printf(&b, ": check the VM's CPU (%% Ready in esxtop: no host capture of %s here), %s.", si->host,
						   also);
			} else {
				if (ef_on(in->m->filter))
					buf_printf(&b, ": no disk of %s in the selection is tied to the %s, so the storage can neither be "
						       "blamed nor cleared here (its disk may be outside --host/--vm/--disk).", si->host,
						   log ? "log" : "data");
				else
					buf_printf(&b, ": no disk of %s is tied to the %s by the capture or --map, so the storage can "
						       "neither be blamed nor cleared (give --map 'database DB %s = DISK').", si->host,
						   log ? "log" : "data", log ? "log" : "data");
			}
			y->text = arena_strndup(ar, b.data, b.len);
			buf_free(&b);
		}
		free(sv);
		free(dv);
	}
}

/* ---- the instances ---- */

static void summary(const struct model *m, struct sql_instance *si, const struct inst_ents *ie, struct arena *ar)
{
	figs(m, si, ie, NULL, SQLR_LOG, INT64_MIN, INT64_MAX, true, &si->all);
	struct buf b;
	buf_init(&b);
	buf_printf(&b, "%s, %s:", si->host, si->label);
	int n = 0;
	const struct sql_figs *f = &si->all;
	if (!isnan(f->batch)) {
		buf_adds(&b, " Batch Requests/sec ");
		num(&b, f->batch);
		n++;
	}
	if (!isnan(f->flush_wait_ms)) {
		buf_adds(&b, n++ ? ", log flush wait " : " log flush wait ");
		ms(&b, f->flush_wait_ms);
		buf_adds(&b, " per wait (Log Flush Wait Time / Log Flush Waits/sec)");
	}
	if (!isnan(f->log_write_ms)) {
		buf_adds(&b, n++ ? ", Log write waits " : " Log write waits ");
		ms(&b, f->log_write_ms);
	}
	if (!isnan(f->pageio_ms)) {
		buf_adds(&b, n++ ? ", Page IO latch waits " : " Page IO latch waits ");
		ms(&b, f->pageio_ms);
	}
	if (!isnan(f->ple_median)) {
		buf_adds(&b, n++ ? ", Page life expectancy " : " Page life expectancy ");
		num(&b, f->ple_median);
		buf_adds(&b, " s (lowest ");
		num(&b, f->ple_min);
		buf_adds(&b, " s)");
	}
	buf_adds(&b, n ? " (means over the capture)." : " no figure of its own in the capture.");
	si->summary = arena_strndup(ar, b.data, b.len);
	buf_free(&b);
}

const char *sql_log_on_disk(const struct model *m, const struct entity *g)
{
	for (size_t i = 0; g && g->host && i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		const char *colon = e->layer == LAYER_SQL ? strchr(e->name, ':') : NULL;
		if (!colon || !same_host(e->host, g->host) || strcmp(colon + 1, "_Total") == 0 ||
		    !has(e, M_SQL_LOG_MBPS))
			continue;
		char name[128];
		size_t nl = (size_t)(colon - e->name);
		if (nl >= sizeof name)
			continue;
		memcpy(name, e->name, nl);
		name[nl] = 0;
		struct sql_instance si = {.host = e->host, .name = name};
		struct inst_ents ie;
		find_ents(m, &si, &ie);
		double r, sh;
		if (by_evidence(m, &ie, e, M_SQL_LOG_MBPS, PS_WRITE_MB, &r, &sh) == g)
			return db_name(e);
	}
	return NULL;
}

void sql_build(const struct sql_in *in, struct sql_report *out, struct arena *ar)
{
	memset(out, 0, sizeof *out);
	const struct model *m = in->m;
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->layer != LAYER_SQL)
			continue;
		const char *colon = strchr(e->name, ':');
		size_t nl = colon ? (size_t)(colon - e->name) : strlen(e->name);
		struct sql_instance *si = NULL;
		for (size_t k = 0; k < out->n && !si; k++)
			if (same_host(out->in[k].host, e->host) && strlen(out->in[k].name) == nl &&
			    strncmp(out->in[k].name, e->name, nl) == 0)
				si = &out->in[k];
		if (!si) {
			if (out->n == SQL_MAX_INSTANCES || !e->host)
				continue;
			si = &out->in[out->n++];
			memset(si, 0, sizeof *si);
			si->host = e->host;
			si->name = arena_strndup(ar, e->name, nl);
			si->label = strcmp(si->name, "SQLServer") == 0 ? "default instance"
								   : arena_printf(ar, "named instance %s", si->name + 6);
		}
		if (!colon)
			si->inst = e;
	}
	for (size_t k = 0; k < out->n; k++) {
		struct sql_instance *si = &out->in[k];
		struct inst_ents ie;
		find_ents(m, si, &ie);
		place_files(in, si, &ie, ar);
		summary(m, si, &ie, ar);
		episodes(in, si, &ie, ar);
		symptoms(in, si, &ie, ar);
	}
}
