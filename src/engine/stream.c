/* stream.c — detection on the raw rows as a capture streams: for every entity and every streaming
 * detector (a stream_rule in the detector table) a small state machine over the rows — a window
 * opens on the first row where the condition holds, tolerates sustain.gap_samples rows where it
 * does not, and closes after more. A closed window is sustained when the condition held on at
 * least sustain.samples rows over at least sustain.seconds and the mean of its signal over the
 * window is above the threshold (brief spikes are fine, high averages are the signal [seed]).
 * Sustained windows of one detector on one entity less than the episode gap apart (the rule
 * sustain.episode_gap_s, at least 5 intervals) are one episode. Evidence is of real samples:
 * quantile sketches of the evidence metrics over the windows' rows. Memory: one small record per
 * (entity, detector), evidence sketches only while a window is open or pending. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define GAP_MAX 32 /* rows of a tolerated gap buffered before they join a window */

struct evacc {
	struct qsketch sk;
	double mn, mx, sum;
	long n, above;
};

/* An open window or a pending episode: the evidence so far. */
struct acc {
	int64_t t0, t_last;              /* first and last row where the condition held */
	long rows, trues;
	double sig_sum;
	long sig_n;
	double held_s;                   /* pending episode: time held in its closed windows */
	struct evacc ev[MAX_EVIDENCE + STREAM_MAX_CTX]; /* the evidence, then the context metrics */
	struct subwin *sub;
	int nsub, capsub;
};

struct inst {
	size_t ent;
	int det;
	int nev;
	long gap;                        /* rows since the condition last held, inside a window */
	struct acc *open;                /* NULL: no window open */
	struct acc *pend;                /* NULL: no sustained episode waiting to close */
	/* values of the rows of the current gap, joined to the window if the condition holds again;
	 * grown while a gap lasts, freed when its window closes (most instances never have one) */
	int ngap, capgap;
	double (*gapv)[MAX_EVIDENCE + STREAM_MAX_CTX + 1];
};

struct stream {
	struct analysis *a;
	size_t cap;                      /* the capture being read */
	size_t built_to;                 /* entities below this index have their instances */
	int64_t last_dt;                 /* the interval before the current row (ms) */
	struct inst *in;
	size_t nin;
};

static const struct stream_rule *rule_of(const struct inst *x) { return detectors[x->det].stream; }

static void acc_free(struct acc *c, int nev)
{
	if (!c)
		return;
	for (int k = 0; k < nev + STREAM_MAX_CTX; k++)
		qs_free(&c->ev[k].sk);
	free(c->sub);
	free(c);
}

static struct acc *acc_new(int nev, int64_t t)
{
	struct acc *c = xcalloc(1, sizeof *c);
	c->t0 = c->t_last = t;
	for (int k = 0; k < nev + STREAM_MAX_CTX; k++) {
		qs_init(&c->ev[k].sk);
		c->ev[k].mn = INFINITY;
		c->ev[k].mx = -INFINITY;
	}
	return c;
}

/* The metric of slot k: evidence k, then the context metrics; -1 when unused. */
static int slot_metric(const struct inst *x, int k)
{
	const struct stream_rule *r = rule_of(x);
	if (k < x->nev)
		return r->ev[k];
	k -= x->nev;
	return k < STREAM_MAX_CTX ? r->ctx[k] : -1;
}

/* Adds one row's values (v[0] the signal, v[1 + k] slot k) to an open window. */
static void acc_row(const struct analysis *a, const struct inst *x, struct acc *c, const double *v)
{
	const struct stream_rule *r = rule_of(x);
	const struct entity *e = &a->m.ents[x->ent];
	c->rows++;
	if (!isnan(v[0])) {
		c->sig_sum += v[0];
		c->sig_n++;
	}
	for (int k = 0; k < x->nev + STREAM_MAX_CTX; k++) {
		double y = v[1 + k];
		if (isnan(y))
			continue;
		struct evacc *ev = &c->ev[k];
		qs_add(&ev->sk, y);
		ev->mn = y < ev->mn ? y : ev->mn;
		ev->mx = y > ev->mx ? y : ev->mx;
		ev->sum += y;
		ev->n++;
		double thr = k < x->nev && r->ev_thr ? r->ev_thr(a, e, k) : NAN;
		if (!isnan(thr) && y > thr)
			ev->above++;
	}
}

/* The capture's interval: its median once read, the median so far while it streams. */
static double interval_s(const struct stream *st)
{
	const struct capture *c = &st->a->m.caps[st->cap];
	double iv = c->interval_s > 0 ? c->interval_s : c->interval_so_far;
	if (!(iv > 0))
		iv = (double)st->last_dt / 1000.0;
	return iv > 0 ? iv : 0;
}

/* The episode gap of a capture: the rule, and at least five intervals. */
static double episode_gap_s(const struct analysis *a, double iv)
{
	double g = rule_value(&a->rules, R_EPISODE_GAP_S);
	return fmax(g, 5 * iv);
}

static void sub_add(struct acc *c, int64_t s, int64_t e)
{
	if (c->nsub == c->capsub) {
		c->capsub = c->capsub ? 2 * c->capsub : 4;
		c->sub = xrealloc(c->sub, (size_t)c->capsub * sizeof *c->sub);
	}
	c->sub[c->nsub].start = s;
	c->sub[c->nsub].end = e;
	c->nsub++;
}

/* The pending episode becomes a swin of the analysis. */
static void pend_finish(struct stream *st, struct inst *x)
{
	struct acc *p = x->pend;
	if (!p)
		return;
	struct analysis *a = st->a;
	if (a->nsw == a->capsw) {
		a->capsw = a->capsw ? 2 * a->capsw : 32;
		a->sw = xrealloc(a->sw, a->capsw * sizeof *a->sw);
	}
	struct swin *w = &a->sw[a->nsw++];
	memset(w, 0, sizeof *w);
	const struct stream_rule *r = rule_of(x);
	const struct entity *e = &a->m.ents[x->ent];
	w->det = x->det;
	w->ent = x->ent;
	w->start = p->t0;
	w->end = p->t_last;
	w->held_s = p->held_s;
	w->rows = p->rows;
	w->true_rows = p->trues;
	w->signal_mean = p->sig_n ? p->sig_sum / (double)p->sig_n : NAN;
	w->nev = 0;
	for (int k = 0; k < x->nev; k++) {
		const struct evacc *ev = &p->ev[k];
		if (!ev->n)
			continue;
		struct swin_ev *o = &w->ev[w->nev++];
		o->metric = (enum metric)r->ev[k];
		o->min = ev->mn;
		o->max = ev->mx;
		o->mean = ev->sum / (double)ev->n;
		o->median = qs_quantile(&ev->sk, 0.5);
		o->p95 = qs_quantile(&ev->sk, 0.95);
		o->samples = ev->n;
		o->threshold = r->ev_thr ? r->ev_thr(a, e, k) : NAN;
		o->above = isnan(o->threshold) ? -1 : ev->above;
	}
	for (int k = 0; k < STREAM_MAX_CTX; k++) {
		const struct evacc *ev = &p->ev[x->nev + k];
		w->ctx_median[k] = ev->n ? qs_quantile(&ev->sk, 0.5) : NAN;
	}
	w->sub = arena_alloc(&a->arena, (size_t)p->nsub * sizeof *w->sub);
	memcpy(w->sub, p->sub, (size_t)p->nsub * sizeof *w->sub);
	w->nsub = p->nsub;
	acc_free(p, x->nev);
	x->pend = NULL;
}

/* Rows longer than a rule's duration (sustain.seconds): one row whose mean latency (the rule's
 * first evidence, in ms) is at least sustain.coarse_factor times its threshold is sustained — a
 * mean that far above over minutes is not a spike; the finding says the sampling cannot tell how
 * long within the row (sampling.c). Point-sampled figures (queues) are not judged so. */
static bool coarse_row(const struct analysis *a, const struct stream_rule *r, const struct entity *e,
		       const struct inst *x, const struct acc *c, double iv)
{
	if (!(iv > rule_value(&a->rules, R_SUSTAIN_SECONDS)) || x->nev < 1 || !r->ev_thr || r->ev[0] < 0 ||
	    strcmp(metric_info[r->ev[0]].unit, "ms") != 0 || !c->ev[0].n)
		return false;
	double thr = r->ev_thr(a, e, 0), mean = c->ev[0].sum / (double)c->ev[0].n;
	return isfinite(thr) && thr > 0 && mean >= rule_value(&a->rules, R_COARSE_FACTOR) * thr;
}

/* Closes the open window: sustained ones join the pending episode (or start one). */
static void win_close(struct stream *st, struct inst *x)
{
	struct acc *c = x->open;
	x->open = NULL;
	x->ngap = 0;
	x->gap = 0;
	free(x->gapv);
	x->gapv = NULL;
	x->capgap = 0;
	if (!c)
		return;
	const struct analysis *a = st->a;
	const struct stream_rule *r = rule_of(x);
	const struct entity *e = &a->m.ents[x->ent];
	double iv = interval_s(st);
	double held = (double)(c->t_last - c->t0) / 1000.0 + iv;
	bool sustained = r->any_sample ||
			 (c->trues >= rules_sustain_samples(&a->rules, iv) && held >= rule_value(&a->rules, R_SUSTAIN_SECONDS)) ||
			 coarse_row(a, r, e, x, c, iv);
	if (sustained && r->signal_thr) {
		double mean = c->sig_n ? c->sig_sum / (double)c->sig_n : NAN;
		sustained = mean > r->signal_thr(a, e);
	}
	if (!sustained) {
		acc_free(c, x->nev);
		return;
	}
	struct acc *p = x->pend;
	if (p && (double)(c->t0 - p->t_last) / 1000.0 <= episode_gap_s(a, iv)) {
		/* one episode: merge */
		p->t_last = c->t_last;
		p->rows += c->rows;
		p->trues += c->trues;
		p->sig_sum += c->sig_sum;
		p->sig_n += c->sig_n;
		p->held_s += held;
		for (int k = 0; k < x->nev + STREAM_MAX_CTX; k++) {
			struct evacc *d = &p->ev[k], *s = &c->ev[k];
			qs_merge(&d->sk, &s->sk);
			d->mn = s->mn < d->mn ? s->mn : d->mn;
			d->mx = s->mx > d->mx ? s->mx : d->mx;
			d->sum += s->sum;
			d->n += s->n;
			d->above += s->above;
		}
		sub_add(p, c->t0, c->t_last);
		acc_free(c, x->nev);
		return;
	}
	pend_finish(st, x);
	c->held_s = held;
	sub_add(c, c->t0, c->t_last);
	x->pend = c;
}

/* Closes every window and episode of the capture read last (its files may have been continued:
 * the state is kept until the next capture begins or the findings are made). */
static void finalize(struct stream *st)
{
	for (size_t i = 0; i < st->nin; i++) {
		win_close(st, &st->in[i]);
		pend_finish(st, &st->in[i]);
	}
	free(st->in);
	st->in = NULL;
	st->nin = 0;
}

/* Instances for the entities from index `from` of capture ci (every streaming detector that
 * applies to each). */
static void build(struct stream *st, struct model *m, size_t from)
{
	size_t capn = st->nin;
	for (size_t i = from; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		for (int d = 0; detectors[d].title; d++) {
			const struct stream_rule *r = detectors[d].stream;
			if (!r || e->layer != r->layer || !r->applies(st->a, e))
				continue;
			if (st->nin == capn) {
				capn = capn ? 2 * capn : 64;
				st->in = xrealloc(st->in, capn * sizeof *st->in);
			}
			struct inst *x = &st->in[st->nin++];
			memset(x, 0, sizeof *x);
			x->ent = i;
			x->det = d;
			while (x->nev < MAX_EVIDENCE && r->ev[x->nev] >= 0)
				x->nev++;
		}
	}
	st->built_to = m->nents;
}

static void on_begin(void *ctx, struct model *m, size_t ci)
{
	struct stream *st = ctx;
	finalize(st);
	st->cap = ci;
	build(st, m, m->caps[ci].first_entity);
}

/* A file continues capture ci: after a gap its windows close first; either way the entities the
 * file added get their instances. */
static void on_resume(void *ctx, struct model *m, size_t ci, bool gap)
{
	struct stream *st = ctx;
	if (gap || st->cap != ci) {
		finalize(st);
		st->cap = ci;
		build(st, m, m->caps[ci].first_entity);
		return;
	}
	build(st, m, st->built_to);
}

static void on_row(void *ctx, struct model *m, size_t ci, int64_t t, int64_t dt)
{
	struct stream *st = ctx;
	const struct analysis *a = st->a;
	(void)ci;
	st->last_dt = dt;
	long gap_max = (long)rule_value(&a->rules, R_GAP_SAMPLES);
	if (gap_max > GAP_MAX)
		gap_max = GAP_MAX;
	for (size_t i = 0; i < st->nin; i++) {
		struct inst *x = &st->in[i];
		const struct stream_rule *r = rule_of(x);
		const struct entity *e = &m->ents[x->ent];
		bool holds = r->cond(a, e);
		if (!holds && !x->open) {
			if (x->pend && (double)(t - x->pend->t_last) / 1000.0 > episode_gap_s(a, interval_s(st)))
				pend_finish(st, x);
			continue;
		}
		double v[MAX_EVIDENCE + STREAM_MAX_CTX + 1];
		v[0] = r->signal >= 0 ? entity_cur(m, e, r->signal) : NAN;
		for (int k = 0; k < x->nev + STREAM_MAX_CTX; k++) {
			int mt = slot_metric(x, k);
			v[1 + k] = mt >= 0 ? entity_cur(m, e, mt) : NAN;
		}
		if (holds) {
			if (!x->open) {
				x->open = acc_new(x->nev, t);
			} else {
				/* the tolerated gap joins the window */
				for (int g = 0; g < x->ngap; g++)
					acc_row(a, x, x->open, x->gapv[g]);
			}
			x->ngap = 0;
			x->gap = 0;
			x->open->trues++;
			x->open->t_last = t;
			acc_row(a, x, x->open, v);
		} else if (++x->gap > gap_max) {
			win_close(st, x);
		} else {
			if (x->ngap == x->capgap) {
				x->capgap = x->capgap ? 2 * x->capgap : 2;
				x->gapv = xrealloc(x->gapv, (size_t)x->capgap * sizeof *x->gapv);
			}
			memcpy(x->gapv[x->ngap++], v, sizeof v);
		}
	}
}

static void on_end(void *ctx, struct model *m, size_t ci)
{
	/* the windows stay open: another file may continue this capture (finalize closes them) */
	(void)ctx;
	(void)m;
	(void)ci;
}

void stream_attach(struct analysis *a)
{
	struct stream *st = xcalloc(1, sizeof *st);
	st->a = a;
	a->stream = st;
	a->m.hooks = (struct model_hooks){.ctx = st, .begin = on_begin, .row = on_row, .end = on_end, .resume = on_resume};
}

void stream_detach(struct analysis *a)
{
	struct stream *st = a->stream;
	if (!st)
		return;
	for (size_t i = 0; i < st->nin; i++) {
		acc_free(st->in[i].open, st->in[i].nev);
		acc_free(st->in[i].pend, st->in[i].nev);
		free(st->in[i].gapv);
	}
	free(st->in);
	free(st);
	a->stream = NULL;
	a->m.hooks = (struct model_hooks){0};
}

void stream_findings(struct analysis *a)
{
	if (a->stream)
		finalize(a->stream);
	for (size_t i = 0; i < a->nsw; i++) {
		const struct swin *w = &a->sw[i];
		detectors[w->det].window(a, w);
	}
}
