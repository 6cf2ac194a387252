/* capmodel.c — builds the neutral capture model from esxtop and perfmon captures in one pass
 * (see capmodel.h). Column names are resolved to (entity, metric) once, at header time. */
#include "capmodel.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "inventory.h"

void model_init(struct model *m)
{
	memset(m, 0, sizeof *m);
	arena_init(&m->arena);
}

void model_free(struct model *m)
{
	for (size_t i = 0; i < m->nents; i++) {
		for (int k = 0; k < M_COUNT; k++)
			qs_free(&m->ents[i].sk[k]);
		free(m->ents[i].dq);
	}
	for (size_t i = 0; i < m->ncaps; i++)
		ds_free(&m->caps[i].ds);
	free(m->ents);
	free(m->caps);
	free(m->disks);
	free(m->hidx);
	arena_free(&m->arena);
	memset(m, 0, sizeof *m);
}

struct entity *model_find(struct model *m, enum layer l, const char *name, const char *host)
{
	for (size_t i = 0; i < m->nents; i++) {
		struct entity *e = &m->ents[i];
		if (e->layer == l && strcmp(e->name, name) == 0 && (!host || !e->host || strcmp(e->host, host) == 0))
			return e;
	}
	return NULL;
}

/* Entity lookup: an open-addressing hash of (capture, layer, host, name) → entity index + 1, so a
 * header with tens of thousands of devices is resolved in linear time. */
static uint64_t entity_hash(size_t cap_index, enum layer l, const char *name, const char *host)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)cap_index * 31 ^ (uint64_t)l;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	h = (h ^ 0xff) * 1099511628211ull;
	for (const unsigned char *p = (const unsigned char *)(host ? host : ""); *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h;
}

static void hash_insert(struct model *m, size_t idx)
{
	const struct entity *e = &m->ents[idx];
	size_t mask = m->hcap - 1;
	size_t k = (size_t)entity_hash(e->capture, e->layer, e->name, e->host) & mask;
	while (m->hidx[k])
		k = (k + 1) & mask;
	m->hidx[k] = idx + 1;
}

/* Returns the entity's index, creating it; SIZE_MAX when the capture reached MODEL_MAX_ENTITIES. */
static size_t entity_get(struct model *m, size_t cap_index, enum layer l, const char *name, const char *host)
{
	struct capture *c = &m->caps[cap_index];
	if (m->hcap) {
		size_t mask = m->hcap - 1;
		for (size_t k = (size_t)entity_hash(cap_index, l, name, host) & mask; m->hidx[k]; k = (k + 1) & mask) {
			struct entity *e = &m->ents[m->hidx[k] - 1];
			if (e->capture == cap_index && e->layer == l && strcmp(e->name, name) == 0 &&
			    strcmp(e->host ? e->host : "", host ? host : "") == 0)
				return m->hidx[k] - 1;
		}
	}
	if (c->nentities >= MODEL_MAX_ENTITIES)
		return SIZE_MAX;
	if (m->nents == m->cap_ents) {
		m->cap_ents = m->cap_ents ? m->cap_ents * 2 : 64;
		m->ents = xrealloc(m->ents, m->cap_ents * sizeof *m->ents);
	}
	struct entity *e = &m->ents[m->nents];
	memset(e, 0, sizeof *e);
	e->layer = l;
	e->name = arena_strdup(&m->arena, name);
	e->host = host ? arena_strdup(&m->arena, host) : NULL;
	e->capture = cap_index;
	for (int k = 0; k < M_COUNT; k++) {
		e->series[k] = -1;
		qs_init(&e->sk[k]);
	}
	e->dq_first = e->dq_last = NAN;
	e->dq_max = 0;
	c->nentities++;
	size_t idx = m->nents++;
	/* keep the table at most half full */
	if (2 * m->nents > m->hcap) {
		size_t cap = m->hcap ? m->hcap * 2 : 256;
		while (2 * m->nents > cap)
			cap *= 2;
		free(m->hidx);
		m->hidx = xcalloc(cap, sizeof *m->hidx);
		m->hcap = cap;
		for (size_t k = 0; k < m->nents; k++)
			hash_insert(m, k);
	} else {
		hash_insert(m, idx);
	}
	return idx;
}

const struct guest_disk_no *model_disk_no(const struct model *m, int n, const char *host)
{
	for (size_t i = 0; i < m->ndisks; i++)
		if (m->disks[i].disk == n && (!host || strcasecmp(host, m->disks[i].host) == 0))
			return &m->disks[i];
	return NULL;
}

static void note_disk_no(struct model *m, const char *host, const struct counter_class *cc)
{
	for (size_t i = 0; i < m->ndisks; i++)
		if (m->disks[i].disk == cc->disk_no && strcmp(m->disks[i].host, host) == 0)
			return;
	m->disks = xrealloc(m->disks, (m->ndisks + 1) * sizeof *m->disks);
	m->disks[m->ndisks].host = arena_strdup(&m->arena, host);
	m->disks[m->ndisks].drive = arena_strdup(&m->arena, cc->disk_drive);
	m->disks[m->ndisks].disk = cc->disk_no;
	m->ndisks++;
}

double entity_mean(const struct entity *e, int m)
{
	return e && e->sk[m].n ? qs_mean(&e->sk[m]) : NAN;
}

int64_t model_time(const struct model *m, const struct capture *c, size_t k)
{
	(void)m;
	return (c->ds.t0[k] + c->ds.t1[k]) / 2 + c->clock_offset_ms;
}

/* Per selected column: where its values go. */
struct colmap {
	size_t col;
	size_t ent;
	int metric;
	int series;     /* index in the capture's dstore (duplicate columns are not mapped at all) */
	double scale;
};

/* A world column feeding a device's active-world count. */
struct worldcol {
	size_t col, dev_series_owner; /* owner = entity index of the device */
};

static int model_read(struct model *m, size_t ci, struct input *in, const struct common_opts *co);

static bool host_listed(const char *const *l, size_t n, const char *host)
{
	const char *h = host ? host : "";
	for (size_t i = 0; i < n; i++)
		if (strcmp(l[i], h) == 0)
			return true;
	return false;
}

/* A new capture record for path; its index. */
static size_t capture_new(struct model *m, const char *path)
{
	m->caps = xrealloc(m->caps, (m->ncaps + 1) * sizeof *m->caps);
	size_t ci = m->ncaps++;
	struct capture *c = &m->caps[ci];
	memset(c, 0, sizeof *c);
	c->path = path;
	c->first_entity = m->nents;
	return ci;
}

static int open_failed(struct model *m, size_t ci, int rc)
{
	m->caps[ci].failed = rc;
	ds_init(&m->caps[ci].ds, 0);
	return rc;
}

int model_add_capture(struct model *m, const char *path, const struct common_opts *co)
{
	size_t ci = capture_new(m, path);
	struct input in;
	int rc = input_open(&in, path, co);
	return rc < 0 ? open_failed(m, ci, rc) : model_read(m, ci, &in, co);
}

int model_add_capture_mem(struct model *m, const char *name, const void *data, size_t len, const struct common_opts *co)
{
	size_t ci = capture_new(m, name);
	struct input in;
	int rc = input_open_mem(&in, name, data, len, co);
	return rc < 0 ? open_failed(m, ci, rc) : model_read(m, ci, &in, co);
}

/* Reads the opened input into capture ci (one streaming pass); closes the input. */
static int model_read(struct model *m, size_t ci, struct input *in, const struct common_opts *co)
{
	struct capture *c = &m->caps[ci];
	int rc;
	struct pdh_reader *r = in->r;
	if (co->tz)
		m->tz = co->tz;
	const struct parser_ops *ops = pdh_parser(r);
	c->format = ops->name;
	c->role = ops->role;
	c->gzip = in->src.gzip;
	{ /* the local time of a perfmon capture, for reports (UTC = local + bias) */
		const struct pdh_header_info *hi = pdh_header_info(r);
		c->local_time = ops->local_time;
		c->bias_known = hi->bias_known && ops->local_time;
		c->bias_min = hi->bias_min;
		c->zone = hi->zone[0] ? arena_strdup(&m->arena, hi->zone) : NULL;
	}
	size_t n = pdh_ncols(r);
	c->columns = (long)n;
	bool *want = xcalloc(n ? n : 1, sizeof *want);
	struct colmap *cm = xmalloc((n ? n : 1) * sizeof *cm);
	size_t ncm = 0;
	struct worldcol *wc = xmalloc((n ? n : 1) * sizeof *wc);
	size_t nwc = 0;
	size_t nseries = 0;
	/* hosts are counted to name the capture */
	const char *host = NULL;
	bool too_many = false;
	/* columns are resolved in the format's pass order (perfmon: LogicalDisk before PhysicalDisk, so
	 * it wins for the same drive) */
	struct counter_class cl;
	int npass = 1;
	/* an aggregate (_Total) is kept only for a host without per-instance columns */
	const char **per_instance = xmalloc((n ? n : 1) * sizeof *per_instance);
	size_t nper = 0;
	/* what the whole header tells about some columns (esxtop: system groups are not VMs) */
	bool *skip = xcalloc(n ? n : 1, sizeof *skip);
	if (ops->prepare)
		ops->prepare(r, skip);
	for (size_t i = 0; i < n; i++) {
		const struct pdh_column *col = pdh_column(r, i);
		if (skip[i])
			continue;
		int mt = ops->classify(&col->path, &cl);
		if (cl.pass + 1 > npass)
			npass = cl.pass + 1;
		if (mt < 0 || cl.aggregate)
			continue;
		const char *h = col->path.host ? col->path.host : "";
		if (!nper || strcmp(per_instance[nper - 1], h) != 0)
			per_instance[nper++] = h; /* consecutive duplicates only: the list stays short */
	}
	for (int pass = 0; pass < npass; pass++) {
		for (size_t i = 0; i < n; i++) {
			const struct pdh_column *col = pdh_column(r, i);
			if (!host && col->path.host)
				host = col->path.host;
			if (skip[i])
				continue;
			int metric = ops->classify(&col->path, &cl);
			if (cl.pass != pass)
				continue;
			if (cl.disk_no >= 0)
				note_disk_no(m, col->path.host, &cl);
			if (metric < 0 || (cl.aggregate && host_listed(per_instance, nper, col->path.host)))
				continue;
			enum layer l = cl.layer;
			double scale = cl.scale;
			if (l == LAYER_WORLD) {
				/* only Commands/sec, for the device's active-world count */
				if (metric != M_CMDS || !cl.parent[0])
					continue;
				size_t dev = entity_get(m, ci, LAYER_DEVICE, cl.parent, col->path.host);
				if (dev == SIZE_MAX) {
					too_many = true;
					continue;
				}
				wc[nwc].col = i;
				wc[nwc].dev_series_owner = dev;
				nwc++;
				want[i] = true;
				continue;
			}
			size_t e = entity_get(m, ci, l, cl.entity, col->path.host);
			if (e == SIZE_MAX) {
				too_many = true;
				continue;
			}
			struct entity *ent = &m->ents[e];
			ent->aggregate = cl.aggregate;
			ent->nfs = cl.nfs;
			cm[ncm].col = i;
			cm[ncm].ent = e;
			cm[ncm].metric = metric;
			cm[ncm].scale = scale;
			if (ent->series[metric] < 0) {
				ent->series[metric] = (int)nseries++;
				cm[ncm].series = ent->series[metric];
				ncm++;
				want[i] = true;
			}
		}
	}
	free(per_instance);
	free(skip);
	if (too_many)
		diag_emit(&in->diag, DIAG_WARNING, pdh_header_line(r), 0,
			  "more than %d storage entities (devices, adapters, virtual disks, guest disks): the rest "
			  "are not analysed", MODEL_MAX_ENTITIES);
	/* derived series: active worlds per device */
	for (size_t k = 0; k < nwc; k++) {
		struct entity *d = &m->ents[wc[k].dev_series_owner];
		if (d->series[M_WORLDS] < 0)
			d->series[M_WORLDS] = (int)nseries++;
	}
	c->host = host ? arena_strdup(&m->arena, host) : NULL;
	ds_init(&c->ds, nseries);
	pdh_select(r, want);
	free(want);
	double *worlds = xcalloc(m->nents ? m->nents : 1, sizeof *worlds);
	double *cur = xmalloc((nseries ? nseries : 1) * sizeof *cur);
	c->cur = cur;
	if (m->hooks.begin)
		m->hooks.begin(m->hooks.ctx, m, ci);
	struct pdh_row row;
	struct interval_hist ih;
	ihist_init(&ih);
	int64_t prev = 0;
	c->start = INT64_MAX;
	c->end = INT64_MIN;
	while ((rc = ops->next(r, &row)) == 1) {
		int64_t dt = 0;
		if (c->rows > 0 && !row.discontinuity) {
			dt = row.t_ms - prev;
			ihist_add(&ih, dt);
			if (ih.n && (c->rows < 64 || (c->rows & 63) == 0))
				c->interval_so_far = (double)ihist_median(&ih) / 1000.0;
		}
		prev = row.t_ms;
		for (size_t k = 0; k < nseries; k++)
			cur[k] = NAN;
		if (row.t_ms < c->start)
			c->start = row.t_ms;
		if (row.t_ms > c->end)
			c->end = row.t_ms;
		c->rows++;
		ds_row(&c->ds, row.t_ms, row.discontinuity);
		for (size_t k = 0; k < ncm; k++) {
			double v;
			if (!ops->value(r, cm[k].col, &v))
				continue;
			v *= cm[k].scale;
			struct entity *e = &m->ents[cm[k].ent];
			cur[cm[k].series] = v;
			ds_set(&c->ds, (size_t)cm[k].series, v);
			qs_add(&e->sk[cm[k].metric], v);
			if (cm[k].metric == M_DQLEN) {
				if (isnan(e->dq_first))
					e->dq_first = v;
				if (v > e->dq_max)
					e->dq_max = v;
				if (!isnan(e->dq_last) && v != e->dq_last) {
					if (e->ndq < DQ_MAX_EVENTS) {
						if (!e->dq)
							e->dq = xmalloc(DQ_MAX_EVENTS * sizeof *e->dq);
						e->dq[e->ndq].t = row.t_ms;
						e->dq[e->ndq].from = (float)e->dq_last;
						e->dq[e->ndq].to = (float)v;
						e->dq[e->ndq].davg = NAN;
						e->ndq++;
					} else {
						e->dq_dropped++;
					}
				}
				e->dq_last = v;
			}
		}
		if (nwc) {
			for (size_t k = 0; k < nwc; k++)
				worlds[wc[k].dev_series_owner] = 0;
			for (size_t k = 0; k < nwc; k++) {
				double v;
				if (ops->value(r, wc[k].col, &v) && v >= 1.0)
					worlds[wc[k].dev_series_owner] += 1;
			}
			for (size_t k = 0; k < nwc; k++) {
				size_t d = wc[k].dev_series_owner;
				struct entity *e = &m->ents[d];
				if (worlds[d] >= 0) {
					cur[e->series[M_WORLDS]] = worlds[d];
					ds_set(&c->ds, (size_t)e->series[M_WORLDS], worlds[d]);
					qs_add(&e->sk[M_WORLDS], worlds[d]);
					worlds[d] = -1; /* once per device */
				}
			}
		}
		if (m->hooks.row)
			m->hooks.row(m->hooks.ctx, m, ci, row.t_ms, dt);
	}
	/* DAVG at each DQLEN change, from the downsampled series (for SIOC/AQD onset evidence) */
	for (size_t i = c->first_entity; i < m->nents; i++) {
		struct entity *e = &m->ents[i];
		if (!e->ndq || e->series[M_DAVG] < 0)
			continue;
		size_t k = 0;
		for (size_t q = 0; q < e->ndq; q++) {
			while (k + 1 < c->ds.nb && c->ds.t1[k] < e->dq[q].t)
				k++;
			e->dq[q].davg = (float)ds_mean(&c->ds, (size_t)e->series[M_DAVG], k);
		}
	}
	c->interval_s = (double)ihist_median(&ih) / 1000.0;
	ihist_free(&ih);
	if (m->hooks.end)
		m->hooks.end(m->hooks.ctx, m, ci);
	c->cur = NULL;
	free(cur);
	free(worlds);
	free(cm);
	free(wc);
	c->skipped_rows = pdh_stats(r)->skipped_rows;
	input_close(in);
	c->warnings = in->diag.warnings;
	if (rc < 0) {
		c->failed = rc;
		return rc;
	}
	if (c->rows == 0) {
		/* a header without a complete data row: nothing to analyse */
		c->start = c->end = 0;
		struct diag d;
		diag_init(&d, in->diag.file, 0);
		d.sink = co->sink;
		diag_emit(&d, DIAG_ERROR, 0, 0, "no complete data row: nothing to analyse");
		c->failed = ERR_FORMAT;
		return ERR_FORMAT;
	}
	return 0;
}
