/* viewdata.c — the downsampled series of `iopsy view` (see viewdata.h). */
#include "viewdata.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "extract.h"
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

void view_plan(struct view_data *v, struct input *ins)
{
	size_t ns = v->ns ? v->ns : 1;
	/* two numbers (minimum, maximum) per bucket */
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
