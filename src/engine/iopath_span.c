/* iopath_span.c — links over time (see iopath.h, struct iop_span): a virtual disk that no
 * whole-capture match ties to a LUN may still be carried by one, segment by segment. After a Storage
 * vMotion (or an SDRS move) its VM's world sends its IO to one LUN, then to another; while a
 * snapshot's redo log, an IO filter or CBT runs, its world sends the LUN k commands per guest
 * command. Either way the IOPS of the world follow the disk's in shape, not in level, over each
 * stretch: the ratio of the two is piecewise constant. The ratio is cut into segments where it
 * steps (binary segmentation), and over each segment a world (or, without per-world columns, a
 * device) that has at least 90 % of the disk's commands and follows it (r >= 0.8) carries it there.
 * Every such link is a guess, and says so with its r [derived; doc/io-path.md]. */
#include "iopath_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SPAN_MIN 5        /* buckets: the shortest segment (as a path change's runs) */
#define SPAN_R 0.8        /* a disk and what carries it follow each other at this r (IOP_R_LINK) */
#define SPAN_CARRY 0.9    /* it carries the disk with at least 90 % of its commands */
#define SPAN_AMP_MAX 10.0 /* beyond 10 back-end commands per command it is not this disk's IO */
#define SPAN_COVER 0.8    /* the spans cover this share of the disk's active buckets */
#define SPAN_ACTIVE 1.0   /* IO/s: a bucket where the disk does IO */
#define SPAN_MAXCUT 16

struct src {
	const struct entity *e, *dev;
	const struct iop_world *w;
};

/* Binary segmentation of y[lo, hi): the cut that reduces the squared error most, kept when the
 * two sides' means differ by 20 % of the larger and by six standard errors; then each side. */
static void bseg(const double *y, size_t lo, size_t hi, size_t *cut, size_t *nc)
{
	size_t n = hi - lo;
	if (n < 2 * SPAN_MIN || *nc >= SPAN_MAXCUT)
		return;
	double S = 0, S2 = 0;
	for (size_t i = lo; i < hi; i++) {
		S += y[i];
		S2 += y[i] * y[i];
	}
	double s = 0, best = -1, m1b = 0, m2b = 0;
	size_t bj = 0;
	for (size_t j = lo; j + SPAN_MIN < hi; j++) {
		s += y[j];
		size_t n1 = j + 1 - lo, n2 = hi - j - 1;
		if (n1 < SPAN_MIN)
			continue;
		double m1 = s / (double)n1, m2 = (S - s) / (double)n2;
		double gain = (double)n1 * (double)n2 / (double)n * (m1 - m2) * (m1 - m2);
		if (gain > best) {
			best = gain;
			bj = j + 1;
			m1b = m1;
			m2b = m2;
		}
	}
	if (best < 0)
		return;
	double sse = S2 - S * S / (double)n - best, var = sse > 0 ? sse / (double)(n - 2) : 0;
	double n1 = (double)(bj - lo), n2 = (double)(hi - bj), d = fabs(m1b - m2b);
	double se = sqrt(var * (1 / n1 + 1 / n2)) + 1e-9;
	if (d < 0.2 * fmax(fmax(fabs(m1b), fabs(m2b)), 0.05) || d < 6 * se)
		return;
	cut[(*nc)++] = bj;
	bseg(y, lo, bj, cut, nc);
	bseg(y, bj, hi, cut, nc);
}

static int size_cmp(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return (a > b) - (a < b);
}

/* What a bucket is given: the source and segment carrying the disk there, with its ratio and r. */
struct pick {
	int src;
	long seg;
	double amp, r, score;
};

/* Source s's segments against the disk's commands v[] (others: the commands of the VM's other
 * disks already tied to the same world or device, subtracted): marks the buckets each segment
 * that carries the disk wins in pk[]. */
static void match_source(const struct dstore *ds, const double *v, const double *others, const struct src *s, int si,
			 long *segno, struct pick *pk)
{
	size_t nb = ds->nb;
	size_t *idx = xmalloc(nb * sizeof *idx);
	double *y = xmalloc(nb * sizeof *y), *w = xmalloc(nb * sizeof *w);
	size_t n = 0;
	for (size_t k = 0; k < nb; k++) {
		double x = ds_mean(ds, (size_t)s->e->series[M_CMDS], k);
		if (isnan(v[k]) || v[k] < SPAN_ACTIVE || isnan(x))
			continue;
		x = fmax(0, x - others[k]);
		idx[n] = k;
		w[n] = x;
		y[n++] = fmin(x / v[k], 2 * SPAN_AMP_MAX);
	}
	size_t cut[SPAN_MAXCUT + 2], nc = 0;
	bseg(y, 0, n, cut, &nc);
	qsort(cut, nc, sizeof *cut, size_cmp);
	for (size_t c = 0; c <= nc && n; c++) {
		size_t lo = c ? cut[c - 1] : 0, hi = c < nc ? cut[c] : n;
		struct corr_acc ca = {0};
		double sy = 0, syy = 0;
		for (size_t j = lo; j < hi; j++) {
			acc_add(&ca, v[idx[j]], w[j]);
			sy += y[j];
			syy += y[j] * y[j];
		}
		double len = (double)(hi - lo), amp = sy / len, sd = sqrt(fmax(0, syy / len - amp * amp));
		double r = acc_r(&ca);
		bool carries = amp >= SPAN_CARRY && amp <= SPAN_AMP_MAX && (isnan(r) ? sd <= 0.1 * amp : r >= SPAN_R);
		long id = (*segno)++;
		if (!carries)
			continue;
		double score = isnan(r) ? SPAN_R : r;
		for (size_t j = lo; j < hi; j++) {
			struct pick *p = &pk[idx[j]];
			if (p->src < 0 || score > p->score + 1e-9 ||
			    (fabs(score - p->score) <= 1e-9 && fabs(amp - 1) < fabs(p->amp - 1)))
				*p = (struct pick){si, id, amp, r, score};
		}
	}
	free(idx);
	free(y);
	free(w);
}

/* "14:10:25" of bucket time t (UTC). */
static const char *hms(struct arena *a, int64_t t)
{
	char ts[32];
	time_format_iso(t, false, ts);
	return iop_astr(a, "%.8sZ", ts + 11);
}

/* The longest sustained amplification of d's spans, with the ratio at other times, appended to b
 * ("; from 14:10:26Z to 14:25:15Z its LUN gets 2.2 commands per ..."); nothing when none. */
static void amp_clause(struct iopath *g, const struct iop_vdisk *d, struct buf *b)
{
	size_t amp = SIZE_MAX;
	for (size_t i = 0; i < d->nspan; i++)
		if (d->span[i].amp >= IOP_AMP_EVIDENCE &&
		    (amp == SIZE_MAX || d->span[i].k1 - d->span[i].k0 > d->span[amp].k1 - d->span[amp].k0))
			amp = i;
	if (amp == SIZE_MAX)
		return;
	const struct iop_span *s = &d->span[amp];
	double base = NAN;
	for (size_t i = 0; i < d->nspan; i++)
		if (d->span[i].dev == s->dev && i != amp && (isnan(base) || d->span[i].amp < base))
			base = d->span[i].amp;
	buf_printf(b, "; %s its LUN gets %.1f commands per virtual-disk command%s: a snapshot's redo log, an IO filter "
		      "or CBT multiplies its IO", d->nspan == 1 ? "throughout" : iop_astr(&g->arena, "from %s to %s",
		      hms(&g->arena, s->t0), hms(&g->arena, s->t1)), s->amp,
		   isnan(base) ? "" : iop_astr(&g->arena, " (%.1f at other times)", base));
}

/* The link's clause: how the spans were found, the devices in turn (a move), and the longest
 * sustained amplification (a snapshot, a filter, CBT) with the ratio outside it. */
static const char *spans_why(struct iopath *g, const struct iop_vdisk *d, bool by_world, double rmin, double rmax)
{
	struct buf b;
	buf_init(&b);
	buf_printf(&b, "matched by the shape of its IOPS per time segment, not by their level (%s, r %s)",
		   by_world ? "its VM's per-world IO" : "the LUNs' own IOPS",
		   isnan(rmin)            ? "not computable: flat series, equal ratios"
		   : rmin >= rmax - 0.005 ? iop_astr(&g->arena, "= %.2f", rmin)
					  : iop_astr(&g->arena, "%.2f to %.2f", rmin, rmax));
	size_t runs = 1;
	for (size_t i = 1; i < d->nspan; i++)
		runs += d->span[i].dev != d->span[i - 1].dev;
	for (size_t i = 0, run = 0; runs > 1 && i < d->nspan; i++) {
		const struct iop_span *s = &d->span[i];
		if (i && s->dev == d->span[i - 1].dev)
			continue;
		size_t e = i;
		while (e + 1 < d->nspan && d->span[e + 1].dev == s->dev)
			e++;
		buf_printf(&b, "%s%s %s %s", run ? ", then " : ": ", s->dev->name, run ? "from" : "until",
			   hms(&g->arena, run ? s->t0 : d->span[e].t1));
		run++;
	}
	if (runs > 1)
		buf_adds(&b, "; it moved to another LUN inside the capture (a Storage vMotion or an SDRS move)");
	amp_clause(g, d, &b);
	const char *out = arena_strdup(&g->arena, b.data ? b.data : "");
	buf_free(&b);
	return out;
}

/* The spans of d from the picks (consecutive buckets of one segment; idle buckets do not cut),
 * those shorter than SPAN_MIN left out; true when they cover SPAN_COVER of its active buckets. */
static bool make_spans(struct iopath *g, const struct dstore *ds, int64_t off, const double *v, const struct pick *pk,
		       const struct src *src, struct iop_vdisk *d)
{
	size_t nb = ds->nb, active = 0, covered = 0, ns = 0;
	struct iop_span *sp = xcalloc(nb ? nb : 1, sizeof *sp);
	size_t *cnt = xcalloc(nb ? nb : 1, sizeof *cnt);
	long cur = -1;
	for (size_t k = 0; k < nb; k++) {
		if (isnan(v[k]) || v[k] < SPAN_ACTIVE)
			continue;
		active++;
		if (pk[k].src < 0) {
			cur = -1;
			continue;
		}
		if (pk[k].seg != cur) {
			const struct src *s = &src[pk[k].src];
			sp[ns++] =
			    (struct iop_span){k, k, ds->t0[k] + off, ds->t1[k] + off, s->dev, s->w, pk[k].amp, pk[k].r};
			cur = pk[k].seg;
		}
		sp[ns - 1].k1 = k;
		sp[ns - 1].t1 = ds->t1[k] + off;
		cnt[ns - 1]++;
	}
	size_t o = 0;
	for (size_t i = 0; i < ns; i++)
		if (cnt[i] >= SPAN_MIN) {
			covered += cnt[i];
			sp[o++] = sp[i];
		}
	bool ok = o && active && (double)covered >= SPAN_COVER * (double)active;
	if (ok) {
		d->span = arena_alloc(&g->arena, o * sizeof *d->span);
		memcpy(d->span, sp, o * sizeof *sp);
		d->nspan = o;
	}
	free(sp);
	free(cnt);
	return ok;
}

/* The candidate sources of d: its VM's worlds (any world whose VM is not known when none is its
 * VM's), or without per-world columns the capture's SCSI devices. */
static size_t sources(const struct iopath *g, const struct model *m, const struct iop_vdisk *d, struct src *out,
		      size_t cap, bool *by_world)
{
	size_t n = 0;
	if (d->world) { /* tied over the whole capture through a world: that world only */
		*by_world = true;
		out[0] = (struct src){d->world->w, d->world->dev, d->world};
		return 1;
	}
	bool vm_worlds = false, any = false;
	for (size_t k = 0; k < g->nw; k++)
		if (g->w[k].w->capture == d->v->capture && g->w[k].dev) {
			any = true;
			vm_worlds |= g->w[k].vm && d->vm && strcmp(g->w[k].vm, d->vm) == 0;
		}
	*by_world = any;
	for (size_t k = 0; any && k < g->nw && n < cap; k++) {
		const struct iop_world *w = &g->w[k];
		if (w->w->capture != d->v->capture || !w->dev || w->w->series[M_CMDS] < 0 ||
		    (vm_worlds ? !w->vm || strcmp(w->vm, d->vm) != 0 : w->vm != NULL))
			continue;
		out[n++] = (struct src){w->w, w->dev, w};
	}
	for (size_t i = 0; !any && i < m->nents && n < cap; i++) {
		const struct entity *e = &m->ents[i];
		if (e->layer == LAYER_DEVICE && e->capture == d->v->capture && !e->nfs && e->series[M_CMDS] >= 0)
			out[n++] = (struct src){e, e, NULL};
	}
	return n;
}

/* The commands/s of the other virtual disks tied (over the whole capture) to source s, by bucket. */
static void others_of(const struct iopath *g, const struct dstore *ds, const struct iop_vdisk *d, const struct src *s,
		      double *o)
{
	for (size_t k = 0; k < ds->nb; k++)
		o[k] = 0;
	for (size_t i = 0; i < g->nvd; i++) {
		const struct iop_vdisk *x = &g->vd[i];
		if (x == d || x->by_spans || x->back != BACK_LUN || x->v->capture != d->v->capture ||
		    x->v->series[M_CMDS] < 0 || (s->w ? x->world != s->w : x->dev != s->dev))
			continue;
		for (size_t k = 0; k < ds->nb; k++) {
			double c = ds_mean(ds, (size_t)x->v->series[M_CMDS], k);
			o[k] += isnan(c) ? 0 : c;
		}
	}
}

static void vdisk_spans(struct iopath *g, const struct model *m, struct iop_vdisk *d)
{
	const struct capture *c = &m->caps[d->v->capture];
	const struct dstore *ds = &c->ds;
	size_t nb = ds->nb;
	struct src src[64];
	bool by_world;
	size_t ns = sources(g, m, d, src, 64, &by_world);
	if (!ns || nb < 2 * SPAN_MIN)
		return;
	double *v = xmalloc(nb * sizeof *v), *oth = xmalloc(nb * sizeof *oth);
	struct pick *pk = xmalloc(nb * sizeof *pk);
	for (size_t k = 0; k < nb; k++) {
		v[k] = ds_mean(ds, (size_t)d->v->series[M_CMDS], k);
		pk[k] = (struct pick){-1, -1, NAN, NAN, -2};
	}
	long segno = 0;
	for (size_t i = 0; i < ns; i++) {
		others_of(g, ds, d, &src[i], oth);
		match_source(ds, v, oth, &src[i], (int)i, &segno, pk);
	}
	if (d->world && make_spans(g, ds, c->clock_offset_ms, v, pk, src, d)) {
		/* tied already: its spans are kept as evidence only when one is amplified */
		bool amp = false;
		for (size_t i = 0; i < d->nspan; i++)
			amp |= d->span[i].amp >= IOP_AMP_EVIDENCE;
		if (amp) {
			struct buf b;
			buf_init(&b);
			buf_adds(&b, d->link.why ? d->link.why : "");
			amp_clause(g, d, &b);
			d->link.why = arena_strdup(&g->arena, b.data ? b.data : "");
			buf_free(&b);
		} else {
			d->span = NULL;
			d->nspan = 0;
		}
	} else if (!d->world && make_spans(g, ds, c->clock_offset_ms, v, pk, src, d)) {
		size_t longest = 0;
		double rmin = NAN, rmax = NAN;
		for (size_t i = 0; i < d->nspan; i++) {
			const struct iop_span *s = &d->span[i];
			if (s->k1 - s->k0 > d->span[longest].k1 - d->span[longest].k0)
				longest = i;
			if (!isnan(s->r)) {
				rmin = isnan(rmin) || s->r < rmin ? s->r : rmin;
				rmax = isnan(rmax) || s->r > rmax ? s->r : rmax;
			}
		}
		d->back = BACK_LUN;
		d->by_spans = true;
		d->dev = d->span[longest].dev;
		d->world = d->span[longest].world;
		d->link = (struct io_link){LINK_CORR, rmin, spans_why(g, d, by_world, rmin, rmax)};
	}
	free(v);
	free(oth);
	free(pk);
}

void iopath_spans(struct iopath *g, const struct model *m)
{
	for (size_t i = 0; i < g->nvd; i++) {
		struct iop_vdisk *d = &g->vd[i];
		/* not tied, or tied through a world (whose ratio may step: a snapshot) */
		bool tied = d->back == BACK_LUN || d->back == BACK_NFS;
		if ((tied && !d->world) || !d->vm || model_hyperv(m, d->v->capture) || d->v->series[M_CMDS] < 0 ||
		    !entity_sk(d->v, M_CMDS)->n)
			continue;
		vdisk_spans(g, m, d);
	}
}

const struct iop_span *iopath_vdisk_span_at(const struct iop_vdisk *d, size_t k)
{
	for (size_t i = 0; d && i < d->nspan; i++)
		if (d->span[i].k0 <= k && k <= d->span[i].k1)
			return &d->span[i];
	return NULL;
}

const struct entity *iopath_vdisk_dev_in(const struct iop_vdisk *d, int64_t t0, int64_t t1, const struct iop_span **sp)
{
	const struct iop_span *best = NULL;
	int64_t bo = 0;
	for (size_t i = 0; d && i < d->nspan; i++) {
		const struct iop_span *s = &d->span[i];
		int64_t lo = s->t0 > t0 ? s->t0 : t0, hi = s->t1 < t1 ? s->t1 : t1;
		if (hi >= lo && (!best || hi - lo > bo)) {
			best = s;
			bo = hi - lo;
		}
	}
	if (sp)
		*sp = best;
	return best ? best->dev : d ? d->dev : NULL;
}
