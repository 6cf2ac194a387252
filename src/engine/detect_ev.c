/* detect_ev.c — the windows and evidence every detector builds on (see detect_int.h): sustained
 * windows over a capture's buckets, evidence of a metric over a window, a finding of a window or of
 * a streamed episode, and a guest disk's virtual disk and latencies at a time. */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- windows and evidence ---- */


/* Finds sustained windows where cond[k] holds in the buckets of capture c, for the detectors that
 * need the whole model (a guest and a host capture aligned): sustained on real samples (the
 * values of series `series` in the true buckets) and real time. Returns how many (≤ max). */
size_t find_windows(const struct rules *R, const struct capture *c, const signed char *cond, int series,
		    struct win *out, size_t max)
{
	const struct dstore *d = &c->ds;
	size_t gap = (size_t)ceil(rule_value(R, R_GAP_SAMPLES) / (double)d->per_bucket);
	size_t n = 0;
	bool open = false;
	struct win w = {0, 0, 0};
	size_t last_true = 0;
	for (size_t k = 0; k <= d->nb; k++) {
		bool t = k < d->nb && cond[k] == 1;
		if (t) {
			if (open && k - last_true - 1 <= gap) {
				w.k1 = k;
			} else {
				if (open && n < max) {
					out[n] = w;
					n++;
				}
				open = true;
				w.k0 = w.k1 = k;
				w.true_samples = 0;
			}
			w.true_samples += series >= 0 ? (long)ds_count(d, (size_t)series, k) : (long)d->per_bucket;
			last_true = k;
		}
	}
	if (open && n < max)
		out[n++] = w;
	/* keep the sustained ones */
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		double dur = (double)(d->t1[out[i].k1] - d->t0[out[i].k0]) / 1000.0 + c->interval_s;
		if (out[i].true_samples >= rules_sustain_samples(R, c->interval_s) && dur >= rule_value(R, R_SUSTAIN_SECONDS))
			out[o++] = out[i];
	}
	return o;
}

void evidence_add(struct finding *f, const struct capture *c, const struct entity *e, int metric,
		  size_t k0, size_t k1, double threshold)
{
	if (f->nev >= MAX_EVIDENCE || !e || e->series[metric] < 0)
		return;
	struct evidence *ev = &f->ev[f->nev];
	struct qsketch q;
	qs_init(&q);
	double mn = INFINITY, mx = -INFINITY;
	long samples = 0, above = 0;
	size_t s = (size_t)e->series[metric];
	for (size_t k = k0; k <= k1; k++) {
		double v = ds_mean(&c->ds, s, k);
		if (isnan(v))
			continue;
		qs_add(&q, v);
		double a = ds_min(&c->ds, s, k), b = ds_max(&c->ds, s, k);
		if (a < mn)
			mn = a;
		if (b > mx)
			mx = b;
		long cnt = (long)ds_count(&c->ds, s, k);
		samples += cnt;
		if (!isnan(threshold) && v > threshold)
			above += cnt;
	}
	if (!q.n) {
		qs_free(&q);
		return;
	}
	ev->metric = (enum metric)metric;
	ev->min = mn;
	ev->max = mx;
	ev->median = qs_quantile(&q, 0.5);
	ev->p95 = qs_quantile(&q, 0.95);
	ev->samples = samples;
	ev->above = isnan(threshold) ? -1 : above;
	ev->threshold = threshold;
	qs_free(&q);
	f->nev++;
}

/* Median of bucket means of a metric over a window (NaN when absent). */
double win_median(const struct capture *c, const struct entity *e, int metric, size_t k0, size_t k1)
{
	if (!e || e->series[metric] < 0)
		return NAN;
	struct qsketch q;
	qs_init(&q);
	for (size_t k = k0; k <= k1; k++)
		qs_add(&q, ds_mean(&c->ds, (size_t)e->series[metric], k));
	double v = qs_quantile(&q, 0.5);
	qs_free(&q);
	return v;
}


void set_window(struct finding *f, const struct capture *c, const struct win *w)
{
	f->start = c->ds.t0[w->k0] + c->clock_offset_ms;
	f->end = c->ds.t1[w->k1] + c->clock_offset_ms;
	f->sustained_s = (double)(f->end - f->start) / 1000.0 + c->interval_s;
	f->end += (int64_t)(c->interval_s * 1000); /* the last sample averages the interval before it */
	f->start -= (int64_t)(c->interval_s * 1000);
	if (f->start < c->start + c->clock_offset_ms - (int64_t)(c->interval_s * 1000))
		f->start = c->start + c->clock_offset_ms;
}


/* A finding of entity e over window w, with the evidence listed in ev. */
struct finding *window_finding(struct analysis *a, enum kind kind, enum severity sev, enum layer l,
			       const struct entity *e, const struct win *w, const struct ev_spec *ev)
{
	const struct capture *c = cap_of(a, e);
	struct finding *f = finding_new(a, kind, sev, l, e->name, e->host);
	f->capture = (long)e->capture;
	f->ent = e - a->m.ents;
	set_window(f, c, w);
	for (; ev->metric >= 0; ev++)
		evidence_add(f, c, e, ev->metric, w->k0, w->k1, ev->thr);
	return f;
}

/* ---- streaming detectors: conditions on the raw rows (stream.c) ---- */


/* A finding of episode w with its evidence (the entity, times aligned with its capture's clock). */
struct finding *episode_finding(struct analysis *a, const struct swin *w, enum severity sev, enum layer l)
{
	const struct entity *e = &a->m.ents[w->ent];
	const struct capture *c = cap_of(a, e);
	struct finding *f = finding_new(a, detectors[w->det].kind, sev, l, e->name, e->host);
	f->capture = (long)e->capture;
	f->ent = (long)w->ent;
	int64_t iv = (int64_t)(c->interval_s * 1000);
	/* a sample averages the interval before it: the window starts one interval earlier */
	f->start = w->start - iv + c->clock_offset_ms;
	if (f->start < c->start + c->clock_offset_ms - iv)
		f->start = c->start + c->clock_offset_ms;
	f->end = w->end + c->clock_offset_ms;
	f->sustained_s = w->held_s;
	if (w->nsub > 1) {
		struct subwin *sub = arena_alloc(&a->arena, (size_t)w->nsub * sizeof *sub);
		for (int k = 0; k < w->nsub; k++) {
			sub[k].start = w->sub[k].start - iv + c->clock_offset_ms;
			sub[k].end = w->sub[k].end + c->clock_offset_ms;
		}
		f->sub = sub;
		f->nsub = w->nsub;
	}
	for (int k = 0; k < w->nev && f->nev < MAX_EVIDENCE; k++) {
		const struct swin_ev *x = &w->ev[k];
		struct evidence *ev = &f->ev[f->nev++];
		ev->metric = x->metric;
		ev->min = x->min;
		ev->median = x->median;
		ev->p95 = x->p95;
		ev->max = x->max;
		ev->samples = x->samples;
		ev->above = x->above;
		ev->threshold = x->threshold;
	}
	return f;
}

/* ---- guest disk ↔ host virtual disk ---- */

struct entity *mapped_vdisk(struct analysis *a, const struct entity *g, const struct diskmap_entry **me)
{
	for (size_t i = 0; i < a->nmap; i++) {
		const struct diskmap_entry *m = &a->map[i];
		if (strcmp(m->guest_disk, g->name) != 0)
			continue;
		if (m->guest_host && g->host && strcasecmp(m->guest_host, g->host) != 0)
			continue;
		struct entity *v = model_find(&a->m, LAYER_VSCSI, m->vdisk, NULL);
		if (v) {
			*me = m;
			return v;
		}
	}
	return NULL;
}

/* Value of entity e's metric at aligned time t (nearest bucket within one interval), NaN if none. */
double value_at(const struct analysis *a, const struct entity *e, int metric, int64_t t)
{
	if (e->series[metric] < 0)
		return NAN;
	const struct capture *c = cap_of(a, e);
	const struct dstore *d = &c->ds;
	if (!d->nb)
		return NAN;
	int64_t tt = t - c->clock_offset_ms;
	size_t lo = 0, hi = d->nb;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->t1[mid] < tt)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t slack = (int64_t)(c->interval_s * 1000) + 1;
	size_t best = lo < d->nb ? lo : d->nb - 1;
	if (best > 0 && llabs(d->t1[best - 1] - tt) < llabs(d->t0[best] - tt))
		best--;
	if (tt < d->t0[best] - slack || tt > d->t1[best] + slack)
		return NAN;
	return ds_mean(d, (size_t)e->series[metric], best);
}

/* Host-side latency of a virtual disk (IO-weighted read/write), ms. */
double vdisk_latency_at(const struct analysis *a, const struct entity *v, int64_t t)
{
	double r = value_at(a, v, M_READS, t), w = value_at(a, v, M_WRITES, t);
	double lr = value_at(a, v, M_VD_LAT_R, t), lw = value_at(a, v, M_VD_LAT_W, t);
	if (isnan(lr) && isnan(lw) && v->series[M_HV_LAT] >= 0)
		return value_at(a, v, M_HV_LAT, t); /* a Hyper-V VHDX: one latency */
	if (isnan(r) || isnan(w))
		return !isnan(lr) ? lr : lw;
	double tot = (isnan(lr) ? 0 : r) + (isnan(lw) ? 0 : w);
	if (tot <= 0)
		return NAN;
	return ((isnan(lr) ? 0 : r * lr) + (isnan(lw) ? 0 : w * lw)) / tot;
}

double guest_latency_at(const struct capture *c, const struct entity *g, size_t k)
{
	double t = val(c, g, M_G_LAT_T, k);
	if (!isnan(t))
		return t;
	double r = val(c, g, M_G_READS, k), w = val(c, g, M_G_WRITES, k);
	double lr = val(c, g, M_G_LAT_R, k), lw = val(c, g, M_G_LAT_W, k);
	if (isnan(r) || isnan(w) || r + w <= 0)
		return !isnan(lr) ? lr : lw;
	double num = (isnan(lr) ? 0 : r * lr) + (isnan(lw) ? 0 : w * lw);
	double den = (isnan(lr) ? 0 : r) + (isnan(lw) ? 0 : w);
	return den > 0 ? num / den : NAN;
}
