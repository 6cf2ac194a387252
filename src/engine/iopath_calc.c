/* iopath_calc.c — the IO path graph's arithmetic that iopath.c and iopath_hv.c both use (see
 * iopath.h): the arena printf, the Pearson r of two entities, a window's mean, an entity by name,
 * the shares of a device's load. It sits below both, so iopath.c can call the Hyper-V builder
 * (iopath_hv.c) without iopath_hv.c calling back into iopath.c. */
#include "iopath_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

const char *iop_astr(struct arena *a, const char *fmt, ...)
{
	struct buf b;
	buf_init(&b);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	const char *s = arena_strdup(a, b.data ? b.data : "");
	buf_free(&b);
	return s;
}

double iop_pearson(const struct model *m, const struct entity *x, int mx, const struct entity *y, int my)
{
	if (!x || !y || x->capture != y->capture || x->series[mx] < 0 || y->series[my] < 0)
		return NAN;
	const struct dstore *d = &m->caps[x->capture].ds;
	struct corr_acc c = {0};
	for (size_t k = 0; k < d->nb; k++)
		acc_add(&c, ds_mean(d, (size_t)x->series[mx], k), ds_mean(d, (size_t)y->series[my], k));
	return acc_r(&c);
}

double iop_window_mean(const struct model *m, const struct entity *e, int mt, int64_t t0, int64_t t1)
{
	if (!e || e->series[mt] < 0)
		return NAN;
	const struct capture *c = &m->caps[e->capture];
	double s = 0;
	size_t n = 0;
	for (size_t k = 0; k < c->ds.nb; k++) {
		int64_t a = c->ds.t0[k] + c->clock_offset_ms, b = c->ds.t1[k] + c->clock_offset_ms;
		if (b < t0 || a > t1)
			continue;
		double v = ds_mean(&c->ds, (size_t)e->series[mt], k);
		if (!isnan(v)) {
			s += v;
			n++;
		}
	}
	return n ? s / (double)n : (double)NAN;
}

/* The entity of layer l named name in capture ci (ents), NULL when none. */
const struct entity *iop_find_in(const struct model *m, size_t ci, enum layer l, const char *name)
{
	const struct capture *c = &m->caps[ci];
	for (size_t i = c->first_entity; i < m->nents && i < c->first_entity + c->nentities; i++) {
		const struct entity *e = &m->ents[i];
		if (e->capture == ci && e->layer == l && strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;
}

static int share_cmp(const void *x, const void *y)
{
	const struct iop_share *a = x, *b = y;
	return a->cmds < b->cmds ? 1 : a->cmds > b->cmds ? -1 : strcmp(a->who, b->who);
}

void iop_shares_init(struct iop_shares *h, size_t cap)
{
	memset(h, 0, sizeof *h);
	h->s = xcalloc(cap ? cap : 1, sizeof *h->s);
	h->q = xcalloc(cap ? cap : 1, sizeof *h->q);
	h->mb = xcalloc(cap ? cap : 1, sizeof *h->mb);
}

void iop_shares_add(struct iop_shares *h, const char *who, const struct entity *src, bool is_vm, enum link_how how,
		    double c, double q, double mbr, double mbw)
{
	double b = (isnan(mbr) ? 0 : mbr) + (isnan(mbw) ? 0 : mbw);
	h->have_q |= !isnan(q);
	h->have_mb |= !isnan(mbr) || !isnan(mbw);
	size_t k = 0;
	while (k < h->n && strcmp(h->s[k].who, who) != 0)
		k++;
	if (k == h->n) {
		h->s[h->n] = (struct iop_share){.who = who, .is_vm = is_vm, .how = how, .one = src};
		h->n++;
	} else if (h->s[k].one != src) {
		h->s[k].one = NULL; /* several entities under one name */
	}
	h->s[k].cmds += c;
	h->q[k] += isnan(q) ? 0 : q;
	h->mb[k] += b;
	h->tot += c;
	h->tot_q += isnan(q) ? 0 : q;
	h->tot_mb += b;
}

size_t iop_shares_done(struct iop_shares *h, struct iop_share *out, size_t max)
{
	for (size_t k = 0; k < h->n; k++) {
		h->s[k].share = h->tot > 0 ? h->s[k].cmds / h->tot : NAN;
		h->s[k].actv_share = h->have_q && h->tot_q > 0 ? h->q[k] / h->tot_q : NAN;
		h->s[k].mb_share = h->have_mb && h->tot_mb > 0 ? h->mb[k] / h->tot_mb : NAN;
	}
	qsort(h->s, h->n, sizeof *h->s, share_cmp);
	size_t k = h->n < max ? h->n : max;
	memcpy(out, h->s, k * sizeof *h->s);
	free(h->s);
	free(h->q);
	free(h->mb);
	return h->tot > 0 ? k : 0;
}
