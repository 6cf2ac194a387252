/* viewdata.c — the downsampled series of `iopsy view` (see viewdata.h). */
#include "viewdata.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "extract.h"
#include "iopath.h"
#include "parser.h"

const char view_default_match[] =
	"Physical Disk|Virtual Disk|Disk Adapter|Disk Path|Per-Device-Per-World|Group Cpu|Vcpu|\\\\Memory\\\\|"
	"LogicalDisk|PhysicalDisk|Hyper-V Virtual Storage|Processor|SQLServer:|MSSQL\\$";

void view_init(struct view_data *v, long budget)
{
	memset(v, 0, sizeof *v);
	v->budget = budget > 0 ? budget : VIEW_BUDGET_DEFAULT;
}

void view_free(struct view_data *v)
{
	for (size_t i = 0; i < v->ncaps; i++) {
		free(v->caps[i].file);
		free(v->caps[i].t);
	}
	for (size_t i = 0; i < v->ns; i++) {
		struct view_series *s = &v->s[i];
		free(s->name);
		free(s->object);
		free(s->counter);
		free(s->instance);
		free(s->entity);
		free(s->lo);
		free(s->hi);
	}
	for (size_t i = 0; i < v->nf; i++) {
		free(v->f[i].kind);
		free(v->f[i].title);
		free(v->f[i].entity);
	}
	for (size_t i = 0; i < v->nl; i++) {
		free(v->l[i].from);
		free(v->l[i].to);
	}
	free(v->l);
	free(v->caps);
	free(v->s);
	free(v->f);
	memset(v, 0, sizeof *v);
}

static char *dup_or(const char *s, const char *fallback)
{
	return xstrdup(s ? s : fallback);
}

long view_add_capture(struct view_data *v, struct input *in, const char *file, struct matcher *m, struct diag *d)
{
	size_t *sel = NULL;
	long n = extract_select(in, m, &sel, d);
	if (n < 0) {
		free(sel);
		return n;
	}
	v->caps = xrealloc(v->caps, (v->ncaps + 1) * sizeof *v->caps);
	struct view_cap *c = &v->caps[v->ncaps];
	memset(c, 0, sizeof *c);
	c->file = xstrdup(file);
	const struct parser_ops *ops = reader_format(in->r);
	c->format = ops->name;
	struct reader_facts rf;
	reader_facts(in->r, &rf);
	c->bias_known = ops->local_time && rf.hi.bias_known;
	c->bias_min = rf.hi.bias_min;
	c->w = 1;
	v->s = xrealloc(v->s, (v->ns + (size_t)n + 1) * sizeof *v->s);
	for (long k = 0; k < n; k++) {
		const struct pdh_column *col = reader_column(in->r, sel[k]);
		struct view_series *s = &v->s[v->ns++];
		memset(s, 0, sizeof *s);
		s->cap = v->ncaps;
		s->col = sel[k];
		s->name = xstrndup(col->name, col->name_len);
		s->kept = true;
		s->unit = "";
		s->metric = "";
		s->scale = 1;
		if (col->path.ok) {
			s->object = dup_or(col->path.object, "");
			s->counter = dup_or(col->path.counter, "");
			s->instance = dup_or(col->path.instance, "");
			struct counter_class cc;
			memset(&cc, 0, sizeof cc);
			int met = ops->classify ? ops->classify(&col->path, &cc) : -1;
			if (met >= 0 && met < M_COUNT) {
				s->unit = metric_info[met].unit;
				s->metric = metric_info[met].name;
				s->entity = xstrdup(cc.entity);
				s->scale = cc.scale > 0 ? cc.scale : 1;
			} else if (strncmp(s->counter, "Avg. Disk sec/", 14) == 0) {
				s->unit = "ms"; /* perfmon's latencies the model does not keep (sec/Transfer) */
				s->scale = 1000;
			}
		} else {
			s->object = xstrdup("(other)");
			s->counter = xstrndup(col->name, col->name_len);
			s->instance = xstrdup("");
		}
		if (!s->entity)
			s->entity = xstrdup("");
	}
	v->ncaps++;
	free(sel);
	return n;
}

/* The bucket capacity of a series from the budget (two numbers, minimum and maximum, per bucket),
 * and the series that do not fit even at VIEW_MIN_BUCKETS dropped: the last ones. */
static void plan_buckets(struct view_data *v)
{
	size_t ns = v->ns ? v->ns : 1;
	long per = v->budget / 2 / (long)ns;
	size_t keep = v->ns;
	if (per < VIEW_MIN_BUCKETS) {
		per = VIEW_MIN_BUCKETS;
		keep = (size_t)(v->budget / 2 / VIEW_MIN_BUCKETS);
	}
	if (per > VIEW_MAX_BUCKETS)
		per = VIEW_MAX_BUCKETS;
	v->buckets = (size_t)per & ~(size_t)1; /* even: pairs merge */
	for (size_t i = keep; i < v->ns; i++) {
		v->s[i].kept = false;
		v->dropped++;
	}
}

void view_plan(struct view_data *v, struct input *ins)
{
	plan_buckets(v);
	for (size_t ci = 0; ci < v->ncaps; ci++) {
		struct reader *r = ins[ci].r;
		size_t nc = reader_ncols(r);
		bool *want = xcalloc(nc ? nc : 1, sizeof *want);
		bool any = false;
		for (size_t i = 0; i < v->ns; i++)
			if (v->s[i].cap == ci && v->s[i].kept)
				want[v->s[i].col] = any = true;
		if (any)
			reader_select(r, want);
		free(want);
		v->caps[ci].t = xmalloc(v->buckets * sizeof *v->caps[ci].t);
	}
	for (size_t i = 0; i < v->ns; i++) {
		if (!v->s[i].kept)
			continue;
		v->s[i].lo = xmalloc(v->buckets * sizeof(double));
		v->s[i].hi = xmalloc(v->buckets * sizeof(double));
	}
}

/* Halves capture ci's buckets: each pair becomes one (minimum of minima, maximum of maxima). */
static void merge_pairs(struct view_data *v, size_t ci)
{
	struct view_cap *c = &v->caps[ci];
	size_t half = c->nb / 2;
	for (size_t j = 0; j < half; j++)
		c->t[j] = c->t[2 * j];
	for (size_t i = 0; i < v->ns; i++) {
		struct view_series *s = &v->s[i];
		if (s->cap != ci || !s->kept)
			continue;
		for (size_t j = 0; j < half; j++) {
			s->lo[j] = fmin(s->lo[2 * j], s->lo[2 * j + 1]);
			s->hi[j] = fmax(s->hi[2 * j], s->hi[2 * j + 1]);
		}
	}
	c->nb = half;
	c->w *= 2;
}

int view_read(struct view_data *v, size_t ci, struct input *in)
{
	struct view_cap *c = &v->caps[ci];
	size_t first = v->ns, last = 0;
	for (size_t i = 0; i < v->ns; i++)
		if (v->s[i].cap == ci && v->s[i].kept) {
			if (first == v->ns)
				first = i;
			last = i;
		}
	if (first == v->ns)
		return 0;
	struct pdh_row row;
	int r;
	while ((r = reader_next(in->r, &row)) == 1) {
		size_t b = (size_t)(c->rows / c->w);
		if (b >= v->buckets) {
			merge_pairs(v, ci);
			b = (size_t)(c->rows / c->w);
		}
		bool fresh = c->rows % c->w == 0;
		if (fresh) {
			c->t[b] = row.t_ms;
			c->nb = b + 1;
		}
		for (size_t i = first; i <= last; i++) {
			struct view_series *s = &v->s[i];
			if (s->cap != ci || !s->kept)
				continue;
			double x;
			if (!reader_value(in->r, s->col, &x) || !isfinite(x))
				x = NAN;
			else
				x *= s->scale;
			s->lo[b] = fresh ? x : fmin(s->lo[b], x);
			s->hi[b] = fresh ? x : fmax(s->hi[b], x);
		}
		c->rows++;
	}
	return r < 0 ? r : 0;
}

struct view_finding *view_add_finding(struct view_data *v, int64_t start, int64_t end, const char *sev,
				      const char *kind, const char *title, const char *entity)
{
	v->f = xrealloc(v->f, (v->nf + 1) * sizeof *v->f);
	struct view_finding *f = &v->f[v->nf++];
	f->start = start;
	f->end = end;
	f->sev = sev;
	f->kind = dup_or(kind, "");
	f->title = dup_or(title, "");
	f->entity = dup_or(entity, "");
	memset(f->ev, 0, sizeof f->ev);
	return f;
}

void view_add_link(struct view_data *v, const char *from, const char *to, const char *kind, const char *how)
{
	if (!from || !to || !*from || !*to)
		return;
	v->l = xrealloc(v->l, (v->nl + 1) * sizeof *v->l);
	v->l[v->nl++] = (struct view_link){xstrdup(from), xstrdup(to), kind, how};
}

/* The IO path graph of the analysis: each edge with how it is known. */
static void add_links(struct view_data *v, const struct iopath *g)
{
	for (size_t i = 0; i < g->np; i++) {
		const struct iop_path *p = &g->p[i];
		view_add_link(v, p->adapter, p->p->name, "path", link_how_names[LINK_ID]);
		if (p->dev && p->link.how != LINK_NONE)
			view_add_link(v, p->p->name, p->dev->name, "device", link_how_names[p->link.how]);
	}
	for (size_t i = 0; i < g->nw; i++) {
		const struct iop_world *w = &g->w[i];
		if (w->dev && w->vm && w->vm_link.how != LINK_NONE)
			view_add_link(v, w->dev->name, w->vm, "vm", link_how_names[w->vm_link.how]);
	}
	for (size_t i = 0; i < g->nvd; i++) {
		const struct iop_vdisk *d = &g->vd[i];
		if (d->dev && d->link.how != LINK_NONE)
			view_add_link(v, d->dev->name, d->v->name, "vdisk", link_how_names[d->link.how]);
	}
}

void view_add_analysis(struct view_data *v, const struct analysis *a)
{
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		if (f->start <= 0 || f->end < f->start)
			continue; /* no time to shade (a log's or a partition table's finding) */
		const char *title = f->summary ? f->summary : kinds[f->kind].title;
		const char *sev = severity_names[f->sev], *kind = kinds[f->kind].name;
		struct view_finding *vf = view_add_finding(v, f->start, f->end, sev, kind, title, f->entity);
		for (int k = 0; k < f->nev && k < 5; k++)
			vf->ev[k] = metric_info[f->ev[k].metric].name;
	}
	add_links(v, &a->iop);
	for (size_t i = 0; i < a->nmap; i++) { /* virtual disk → the guest disk on it */
		const struct diskmap_entry *e = &a->map[i];
		view_add_link(v, e->vdisk, e->guest_disk, "guest", link_how_names[e->automatic ? LINK_CORR : LINK_ID]);
	}
}

/* ---- the Explore section of an analysis report ---- */

/* The tree's object of each layer, in the order the section lists them (its rank). */
static const struct {
	enum layer l;
	const char *title;
} explore_layers[] = {
	{LAYER_GUEST, "Guest disk"}, {LAYER_VOLUME, "Volume"}, {LAYER_VSCSI, "Virtual disk"},
	{LAYER_DEVICE, "Device / LUN"}, {LAYER_PATH, "Path"}, {LAYER_ADAPTER, "Adapter"},
	{LAYER_WORLD, "World on a device"}, {LAYER_ARRAY, "Array"}, {LAYER_VM, "VM"}, {LAYER_SQL, "SQL Server"},
};
#define EXPLORE_NLAYERS (sizeof explore_layers / sizeof explore_layers[0])

/* Whether VM vm owns an active virtual disk in the captures (not outside the selection). */
static bool vm_has_vdisk(const struct analysis *a, const struct entity *vm)
{
	size_t n = strlen(vm->name);
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->layer == LAYER_VSCSI && !e->outside && strncmp(e->name, vm->name, n) == 0 &&
		    vdisk_ctrl(e->name) == e->name + n && entity_active(e, &a->rules))
			return true;
	}
	return false;
}

/* Where entity e goes in the section: the index of its layer in explore_layers[], or -1 when it
 * is left out: outside the selection, or, when no finding names it, an IO entity below the rule
 * active.min_iops (the entity tables leave those out too) or a VM without an active virtual disk
 * in the captures. */
static int explore_rank(const struct analysis *a, const struct entity *e, bool named)
{
	if (e->outside)
		return -1;
	int io = e->layer == LAYER_GUEST ? M_G_XFERS : M_CMDS;
	if (!named && entity_sk(e, io)->n && !entity_active(e, &a->rules))
		return -1;
	if (!named && e->layer == LAYER_VM && !vm_has_vdisk(a, e))
		return -1;
	for (size_t k = 0; k < EXPLORE_NLAYERS; k++)
		if (explore_layers[k].l == e->layer)
			return (int)k;
	return -1;
}

/* Adds entity e's series (every metric with values) for capture index ci. */
static void explore_entity(struct view_data *v, const struct entity *e, size_t ci, const char *object, bool hosts)
{
	v->s = xrealloc(v->s, (v->ns + M_COUNT) * sizeof *v->s); /* room for every metric */
	for (int m = 0; m < M_COUNT; m++) {
		const struct qsketch *q = entity_sk(e, m);
		if (e->series[m] < 0 || !q->n)
			continue;
		if (q->zeros == q->n) { /* zero throughout: said, not drawn */
			v->flat++;
			continue;
		}
		struct view_series *s = &v->s[v->ns++];
		memset(s, 0, sizeof *s);
		s->cap = ci;
		s->col = (size_t)e->series[m];
		s->object = xstrdup(object);
		s->counter = xstrdup(metric_info[m].label);
		if (hosts && e->host) {
			size_t n = strlen(e->name) + strlen(e->host) + 4;
			s->instance = xmalloc(n);
			snprintf(s->instance, n, "%s @ %s", e->name, e->host);
		} else {
			s->instance = xstrdup(e->name);
		}
		s->name = xstrdup(s->instance);
		s->unit = metric_info[m].unit;
		s->metric = metric_info[m].name;
		s->entity = xstrdup(e->name);
		s->scale = 1;
		s->kept = true;
	}
}

/* Fills the kept series of view capture ci from model capture c: groups of g buckets. */
static void explore_fill(struct view_data *v, size_t ci, const struct capture *c)
{
	const struct dstore *d = &c->ds;
	size_t g = (d->nb + v->buckets - 1) / (v->buckets ? v->buckets : 1);
	if (g < 1)
		g = 1;
	struct view_cap *vc = &v->caps[ci];
	vc->nb = (d->nb + g - 1) / g;
	vc->w = (long)(g * d->per_bucket);
	vc->rows = c->rows;
	vc->t = xmalloc((vc->nb ? vc->nb : 1) * sizeof *vc->t);
	for (size_t k = 0; k < vc->nb; k++)
		vc->t[k] = d->t0[k * g] + c->clock_offset_ms;
	for (size_t i = 0; i < v->ns; i++) {
		struct view_series *s = &v->s[i];
		if (s->cap != ci || !s->kept)
			continue;
		s->lo = xmalloc((vc->nb ? vc->nb : 1) * sizeof(double));
		s->hi = xmalloc((vc->nb ? vc->nb : 1) * sizeof(double));
		for (size_t k = 0; k < vc->nb; k++) {
			double lo = NAN, hi = NAN;
			for (size_t j = k * g; j < (k + 1) * g && j < d->nb; j++) {
				double x = ds_min(d, s->col, j), y = ds_max(d, s->col, j);
				lo = isnan(lo) ? x : fmin(lo, x);
				hi = isnan(hi) ? y : fmax(hi, y);
			}
			s->lo[k] = lo;
			s->hi[k] = hi;
		}
	}
}

void view_from_analysis(struct view_data *v, const struct analysis *a)
{
	const struct model *m = &a->m;
	size_t *vcap = xmalloc((m->ncaps ? m->ncaps : 1) * sizeof *vcap); /* model capture -> view capture */
	for (size_t i = 0; i < m->ncaps; i++)
		vcap[i] = SIZE_MAX;
	bool *named = xcalloc(m->nents ? m->nents : 1, sizeof *named);
	for (size_t i = 0; i < a->nf; i++)
		if (a->f[i].ent >= 0 && (size_t)a->f[i].ent < m->nents)
			named[a->f[i].ent] = true;
	int *rank = xmalloc((m->nents ? m->nents : 1) * sizeof *rank); /* once: a VM's looks at every entity */
	for (size_t i = 0; i < m->nents; i++)
		rank[i] = explore_rank(a, &m->ents[i], named[i]);
	bool hosts = false;
	for (size_t i = 1; i < m->ncaps && !hosts; i++)
		hosts = m->caps[i].host && m->caps[0].host && strcmp(m->caps[i].host, m->caps[0].host) != 0;
	/* the entities the findings name, then the others layer by layer */
	for (int pass = 0; pass <= (int)EXPLORE_NLAYERS; pass++) {
		for (size_t i = 0; i < m->nents; i++) {
			const struct entity *e = &m->ents[i];
			int r = rank[i];
			if (r < 0 || (pass == 0) != named[i] || (pass > 0 && r != pass - 1))
				continue;
			const struct capture *c = &m->caps[e->capture];
			if (c->failed || !c->ds.nb)
				continue;
			if (vcap[e->capture] == SIZE_MAX) {
				v->caps = xrealloc(v->caps, (v->ncaps + 1) * sizeof *v->caps);
				struct view_cap *vc = &v->caps[v->ncaps];
				memset(vc, 0, sizeof *vc);
				vc->file = xstrdup(c->path ? c->path : "");
				vc->format = c->format;
				vc->bias_known = c->local_time && c->bias_known;
				vc->bias_min = c->bias_min;
				vcap[e->capture] = v->ncaps++;
			}
			const char *title = explore_layers[r].title;
			if (model_hyperv(m, e->capture) && (e->layer == LAYER_VSCSI || e->layer == LAYER_DEVICE))
				title = e->layer == LAYER_VSCSI ? "VHDX (Hyper-V host)" : "Host disk (Hyper-V host)";
			explore_entity(v, e, vcap[e->capture], title, hosts);
		}
	}
	plan_buckets(v);
	for (size_t i = 0; i < m->ncaps; i++)
		if (vcap[i] != SIZE_MAX)
			explore_fill(v, vcap[i], &m->caps[i]);
	free(rank);
	free(named);
	free(vcap);
	view_add_analysis(v, a);
}
