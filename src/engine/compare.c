/* compare.c — the before/after comparison (see compare.h): entity matching, per-metric figures,
 * circular block bootstrap of the median difference (Politis-White block length), latency at equal
 * load, findings gone/still/new and the verdict paragraph. */
#include "compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const cmp_side_names[2] = {"before", "after"};
const char *const cmp_kind_names[5] = {"latency", "queue", "penalty", "work", "occupancy"};
const char *const cmp_verdict_names[CV_COUNT] = {"improved", "regressed", "unchanged", "higher", "lower", "not_assessed"};
const char *const cmp_fstatus_names[3] = {"gone", "still_present", "new"};
const char *const cmp_reason_names[CR_COUNT] = {NULL, "interval_contains_zero", "below_material_pct", "below_floor",
						"no_values_before", "no_values_after", "too_few_values", "idle_both_sides",
						"idle_one_side", "no_interval"};

#define NO {-1, -1}
#define T1(a) {a, -1}
#define T2(a, b) {a, b}
#define OUT_DEV {M_ACTV, M_QUED}

/* Floors: the smallest change of the median that matters in practice — 1 ms for guest latency,
 * 0.5 ms for host latency, 0.05 ms for KAVG (its warning level is 0.1 ms), one IO for queues,
 * 5 IO/s for IOPS (active.min_iops), 1 MB/s, 5 points of %USD, 1 split/s, 1 point of %Ready. */
const struct cmp_metric_spec cmp_metrics[] = {
	{LAYER_GUEST, M_G_LAT_R, CK_LATENCY, 1.0, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_G_XFERS, {M_G_CDQL, -1}},
	{LAYER_GUEST, M_G_LAT_W, CK_LATENCY, 1.0, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_G_XFERS, {M_G_CDQL, -1}},
	{LAYER_GUEST, M_G_CDQL, CK_QUEUE, 1.0, T2(R_VSCSI_LSI, R_VSCSI_PVSCSI), M_G_XFERS, NO},
	{LAYER_GUEST, M_G_XFERS, CK_WORK, 5.0, NO, M_G_XFERS, NO},
	{LAYER_GUEST, M_G_MBPS, CK_WORK, 1.0, NO, M_G_XFERS, NO},
	{LAYER_GUEST, M_G_SPLIT, CK_PENALTY, 1.0, T1(R_SPLIT_PER_S), M_G_XFERS, NO},
	{LAYER_VSCSI, M_VD_LAT_R, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, NO},
	{LAYER_VSCSI, M_VD_LAT_W, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, NO},
	{LAYER_VSCSI, M_CMDS, CK_WORK, 5.0, NO, M_CMDS, NO},
	{LAYER_VSCSI, M_MBR, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_VSCSI, M_MBW, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_DAVG, CK_LATENCY, 0.5, T2(R_DAVG_WARN, R_DAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_DEVICE, M_KAVG, CK_LATENCY, 0.05, T2(R_KAVG_WARN, R_KAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_DEVICE, M_GAVG, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, OUT_DEV},
	{LAYER_DEVICE, M_ACTV, CK_OCCUPANCY, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_QUED, CK_QUEUE, 1.0, T1(R_DEV_SAT_QUED), M_CMDS, NO},
	{LAYER_DEVICE, M_USD, CK_OCCUPANCY, 5.0, T1(R_DEV_SAT_USD), M_CMDS, NO},
	{LAYER_DEVICE, M_DQLEN, CK_OCCUPANCY, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_CMDS, CK_WORK, 5.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_MBR, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_MBW, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_SPLIT, CK_PENALTY, 1.0, T1(R_SPLIT_PER_S), M_CMDS, NO},
	{LAYER_ADAPTER, M_DAVG, CK_LATENCY, 0.5, T2(R_DAVG_WARN, R_DAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_ADAPTER, M_KAVG, CK_LATENCY, 0.05, T2(R_KAVG_WARN, R_KAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_ADAPTER, M_GAVG, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, OUT_DEV},
	{LAYER_ADAPTER, M_ACTV, CK_OCCUPANCY, 1.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_QUED, CK_QUEUE, 1.0, T1(R_DEV_SAT_QUED), M_CMDS, NO},
	{LAYER_ADAPTER, M_CMDS, CK_WORK, 5.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_MBR, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_MBW, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_SPLIT, CK_PENALTY, 1.0, T1(R_SPLIT_PER_S), M_CMDS, NO},
	{LAYER_VM, M_RDY, CK_PENALTY, 1.0, NO, -1, NO},
};
const size_t cmp_nmetrics = sizeof cmp_metrics / sizeof cmp_metrics[0];

#define CMP_MIN_VALUES 10

bool cmp_kind_lower_is_better(enum cmp_kind k)
{
	return k == CK_LATENCY || k == CK_QUEUE || k == CK_PENALTY;
}

void compare_opts_init(struct compare_opts *o)
{
	memset(o, 0, sizeof *o);
	o->resamples = 1000;
	o->seed = 1;
	o->confidence = 0.95;
	o->material_pct = 10;
}

void compare_init(struct compare *c)
{
	memset(c, 0, sizeof *c);
	analysis_init(&c->side[0]);
	analysis_init(&c->side[1]);
	arena_init(&c->arena);
	compare_opts_init(&c->o);
	rules_init(&c->rules);
}

void compare_free(struct compare *c)
{
	analysis_free(&c->side[0]);
	analysis_free(&c->side[1]);
	free(c->map);
	free(c->pairs);
	free(c->rows);
	free(c->lb);
	free(c->fd);
	arena_free(&c->arena);
	memset(c, 0, sizeof *c);
}

int compare_add_capture(struct compare *c, enum cmp_side s, const char *path, const struct common_opts *co)
{
	return model_add_capture(&c->side[s].m, path, co);
}

/* ---- --match-map ---- */

void compare_use_matchmap(struct compare *c, const struct matchmap *mm)
{
	for (size_t i = 0; i < mm->n; i++) {
		struct cmp_mapline ml;
		memset(&ml, 0, sizeof ml);
		for (int s = 0; s < 2; s++) {
			ml.host[s] = mm->l[i].host[s] ? arena_strdup(&c->arena, mm->l[i].host[s]) : NULL;
			ml.name[s] = arena_strdup(&c->arena, mm->l[i].name[s]);
		}
		ml.line = mm->l[i].line;
		c->map = xrealloc(c->map, (c->nmap + 1) * sizeof *c->map);
		c->map[c->nmap++] = ml;
	}
}

/* ---- entity groups and matching ---- */

static bool host_eq(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b;
	return strcasecmp(a, b) == 0;
}

static bool name_eq(enum layer l, const char *a, const char *b)
{
	return l == LAYER_GUEST ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0;
}

static bool spec_layer(enum layer l)
{
	return l == LAYER_GUEST || l == LAYER_VSCSI || l == LAYER_DEVICE || l == LAYER_ADAPTER || l == LAYER_VM;
}

/* An entity is worth comparing when it has a value in a metric of its layer's table. */
static bool has_data(const struct entity *e)
{
	for (size_t k = 0; k < cmp_nmetrics; k++)
		if (cmp_metrics[k].layer == e->layer && e->sk[cmp_metrics[k].metric].n)
			return true;
	return false;
}

struct group {
	enum layer layer;
	const char *name, *host;
	size_t *ents, nents, cap;
	long pair;               /* -1 until matched */
};

static void groups_build(const struct model *m, struct group **out, size_t *nout)
{
	struct group *g = NULL;
	size_t n = 0;
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (!spec_layer(e->layer) || !has_data(e))
			continue;
		size_t k = 0;
		for (; k < n; k++)
			if (g[k].layer == e->layer && name_eq(e->layer, g[k].name, e->name) && host_eq(g[k].host, e->host))
				break;
		if (k == n) {
			g = xrealloc(g, (n + 1) * sizeof *g);
			memset(&g[n], 0, sizeof g[n]);
			g[n].layer = e->layer;
			g[n].name = e->name;
			g[n].host = e->host;
			g[n].pair = -1;
			n++;
		}
		if (g[k].nents == g[k].cap) {
			g[k].cap = g[k].cap ? 2 * g[k].cap : 2;
			g[k].ents = xrealloc(g[k].ents, g[k].cap * sizeof *g[k].ents);
		}
		g[k].ents[g[k].nents++] = i;
	}
	*out = g;
	*nout = n;
}

static size_t pair_new(struct compare *c, enum layer l)
{
	c->pairs = xrealloc(c->pairs, (c->npairs + 1) * sizeof *c->pairs);
	struct cmp_pair *p = &c->pairs[c->npairs];
	memset(p, 0, sizeof *p);
	p->layer = l;
	p->load_mean[0] = p->load_mean[1] = NAN;
	return c->npairs++;
}

static void pair_set(struct compare *c, size_t pi, int s, struct group *g)
{
	struct cmp_pair *p = &c->pairs[pi];
	p->name[s] = g->name;
	p->host[s] = g->host;
	p->nents[s] = g->nents;
	p->ents[s] = arena_alloc(&c->arena, g->nents * sizeof *p->ents[s]);
	memcpy(p->ents[s], g->ents, g->nents * sizeof *g->ents);
	g->pair = (long)pi;
}

static bool map_matches(const struct cmp_mapline *ml, int s, const struct group *g)
{
	return name_eq(g->layer, ml->name[s], g->name) && (!ml->host[s] || host_eq(ml->host[s], g->host));
}

static int layer_rank(enum layer l)
{
	switch (l) {
	case LAYER_GUEST: return 0;
	case LAYER_VSCSI: return 1;
	case LAYER_WORLD: return 2;
	case LAYER_DEVICE: return 3;
	case LAYER_ADAPTER: return 4;
	case LAYER_ARRAY: return 5;
	default: return 6;
	}
}

const char *compare_pair_label(const struct cmp_pair *p, enum cmp_side s, char *out, size_t cap)
{
	const char *name = p->name[s] ? p->name[s] : p->name[!s];
	const char *host = p->name[s] ? p->host[s] : p->host[!s];
	if (p->layer == LAYER_GUEST && host)
		snprintf(out, cap, "%s %s", host, name ? name : "?");
	else
		snprintf(out, cap, "%s", name ? name : "?");
	return out;
}

static int pair_cmp(const void *x, const void *y)
{
	const struct cmp_pair *a = x, *b = y;
	int ra = layer_rank(a->layer), rb = layer_rank(b->layer);
	if (ra != rb)
		return ra - rb;
	char la[512], lb[512];
	compare_pair_label(a, a->name[0] ? CMP_BEFORE : CMP_AFTER, la, sizeof la);
	compare_pair_label(b, b->name[0] ? CMP_BEFORE : CMP_AFTER, lb, sizeof lb);
	int k = strcmp(la, lb);
	if (k)
		return k;
	/* same label: before-only first, then matched, then after-only; then by host */
	int sa = a->name[0] ? (a->name[1] ? 1 : 0) : 2, sb = b->name[0] ? (b->name[1] ? 1 : 0) : 2;
	if (sa != sb)
		return sa - sb;
	const char *ha = a->host[0] ? a->host[0] : a->host[1], *hb = b->host[0] ? b->host[0] : b->host[1];
	return strcmp(ha ? ha : "", hb ? hb : "");
}

static void match(struct compare *c, struct diag *d)
{
	struct group *g[2];
	size_t n[2];
	groups_build(&c->side[0].m, &g[0], &n[0]);
	groups_build(&c->side[1].m, &g[1], &n[1]);
	/* 1. --match-map lines: every before group named on the left with every after group of the
	 * same layer named on the right */
	for (size_t k = 0; k < c->nmap; k++) {
		struct cmp_mapline *ml = &c->map[k];
		for (size_t i = 0; i < n[0]; i++) {
			if (g[0][i].pair >= 0 || !map_matches(ml, 0, &g[0][i]))
				continue;
			for (size_t j = 0; j < n[1]; j++) {
				if (g[1][j].pair >= 0 || g[1][j].layer != g[0][i].layer || !map_matches(ml, 1, &g[1][j]))
					continue;
				size_t p = pair_new(c, g[0][i].layer);
				pair_set(c, p, 0, &g[0][i]);
				pair_set(c, p, 1, &g[1][j]);
				c->pairs[p].mapped = true;
				ml->used++;
				break;
			}
		}
		if (!ml->used)
			diag_emit(d, DIAG_PLAIN, 0, 0, "match map line %ld: '%s%s%s = %s%s%s' matches no entity present on both sides",
				   ml->line, ml->host[0] ? ml->host[0] : "", ml->host[0] ? "\\" : "", ml->name[0],
				   ml->host[1] ? ml->host[1] : "", ml->host[1] ? "\\" : "", ml->name[1]);
	}
	/* 2. same layer, name and host */
	for (size_t i = 0; i < n[0]; i++) {
		if (g[0][i].pair >= 0)
			continue;
		for (size_t j = 0; j < n[1]; j++) {
			if (g[1][j].pair >= 0 || g[1][j].layer != g[0][i].layer || !name_eq(g[0][i].layer, g[0][i].name, g[1][j].name) ||
			    !host_eq(g[0][i].host, g[1][j].host))
				continue;
			size_t p = pair_new(c, g[0][i].layer);
			pair_set(c, p, 0, &g[0][i]);
			pair_set(c, p, 1, &g[1][j]);
			break;
		}
	}
	/* 3. names that are global (naa ids, VM:scsiC:T, VM names) match across hosts when unique
	 * among the unmatched on both sides (the VM moved to another host) */
	for (size_t i = 0; i < n[0]; i++) {
		enum layer l = g[0][i].layer;
		if (g[0][i].pair >= 0 || !(l == LAYER_DEVICE || l == LAYER_VSCSI || l == LAYER_VM))
			continue;
		long hit = -1;
		int hits = 0, same_before = 0;
		for (size_t j = 0; j < n[1]; j++)
			if (g[1][j].pair < 0 && g[1][j].layer == l && strcmp(g[1][j].name, g[0][i].name) == 0) {
				hit = (long)j;
				hits++;
			}
		for (size_t k = 0; k < n[0]; k++)
			if (g[0][k].pair < 0 && g[0][k].layer == l && strcmp(g[0][k].name, g[0][i].name) == 0)
				same_before++;
		if (hits != 1 || same_before != 1)
			continue;
		size_t p = pair_new(c, l);
		pair_set(c, p, 0, &g[0][i]);
		pair_set(c, p, 1, &g[1][hit]);
		c->pairs[p].by_name = true;
	}
	/* 4. the rest exist on one side only */
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < n[s]; i++)
			if (g[s][i].pair < 0)
				pair_set(c, pair_new(c, g[s][i].layer), s, &g[s][i]);
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < n[s]; i++)
			free(g[s][i].ents);
		free(g[s]);
	}
	if (c->npairs)
		qsort(c->pairs, c->npairs, sizeof *c->pairs, pair_cmp);
}

/* ---- series access ---- */

static const struct entity *ent(const struct compare *c, const struct cmp_pair *p, int s, size_t k)
{
	return &c->side[s].m.ents[p->ents[s][k]];
}

size_t compare_series(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric m,
		      struct cmp_point *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nents[s]; i++) {
		const struct entity *e = ent(c, p, s, i);
		if (e->series[m] < 0)
			continue;
		const struct capture *cp = &c->side[s].m.caps[e->capture];
		for (size_t k = 0; k < cp->ds.nb; k++) {
			double v = ds_mean(&cp->ds, (size_t)e->series[m], k);
			if (isnan(v))
				continue;
			if (n < cap) {
				out[n].t = model_time(&c->side[s].m, cp, k);
				out[n].mean = v;
				out[n].min = ds_min(&cp->ds, (size_t)e->series[m], k);
				out[n].max = ds_max(&cp->ds, (size_t)e->series[m], k);
			}
			n++;
		}
	}
	return n;
}

size_t compare_xy(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric mx, enum metric my,
		  double *x, double *y, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nents[s]; i++) {
		const struct entity *e = ent(c, p, s, i);
		if (e->series[mx] < 0 || e->series[my] < 0)
			continue;
		const struct capture *cp = &c->side[s].m.caps[e->capture];
		for (size_t k = 0; k < cp->ds.nb; k++) {
			double a = ds_mean(&cp->ds, (size_t)e->series[mx], k), b = ds_mean(&cp->ds, (size_t)e->series[my], k);
			if (isnan(a) || isnan(b))
				continue;
			if (n < cap) {
				x[n] = a;
				y[n] = b;
			}
			n++;
		}
	}
	return n;
}

void compare_sketch(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric m, struct qsketch *out)
{
	qs_init(out);
	for (size_t i = 0; i < p->nents[s]; i++)
		qs_merge(out, &ent(c, p, s, i)->sk[m]);
}

/* Values of one row on one side: x (the metric), load (IOPS, NaN when missing), out (outstanding
 * IO, NaN when missing), one per downsampled bucket where x has a value. */
/* The activity threshold of the comparison (the rules given to compare). */
#define ACTIVE_MIN(c) rule_value(&(c)->rules, R_ACTIVE_IOPS)

struct vals {
	double *x, *load, *out;
	size_t n;
	double over_rows[CMP_MAX_THR];
	double rows;
};

static double bucket_share_above(double mn, double mean, double mx, double t, bool ge)
{
	if (ge ? mn >= t : mn > t)
		return 1;
	if (ge ? mx < t : mx <= t)
		return 0;
	/* mixed bucket: the share above t lies between these bounds; take the middle */
	double lo = mx > t ? fmax(0, (mean - t) / (mx - t)) : 0;
	double hi = t > mn ? fmin(1, (mean - mn) / (t - mn)) : 1;
	if (lo > hi)
		lo = hi;
	return (lo + hi) / 2;
}

static void gather(const struct compare *c, const struct cmp_pair *p, int s, const struct cmp_metric_spec *sp,
		   const double *thr, struct vals *v)
{
	memset(v, 0, sizeof *v);
	size_t cap = 0;
	for (size_t i = 0; i < p->nents[s]; i++) {
		const struct entity *e = ent(c, p, s, i);
		if (e->series[sp->metric] >= 0)
			cap += c->side[s].m.caps[e->capture].ds.nb;
	}
	v->x = xmalloc((cap ? cap : 1) * sizeof *v->x);
	v->load = xmalloc((cap ? cap : 1) * sizeof *v->load);
	v->out = xmalloc((cap ? cap : 1) * sizeof *v->out);
	bool ge = sp->kind != CK_LATENCY;
	for (size_t i = 0; i < p->nents[s]; i++) {
		const struct entity *e = ent(c, p, s, i);
		if (e->series[sp->metric] < 0)
			continue;
		const struct dstore *d = &c->side[s].m.caps[e->capture].ds;
		size_t si = (size_t)e->series[sp->metric];
		for (size_t k = 0; k < d->nb; k++) {
			double x = ds_mean(d, si, k);
			if (isnan(x))
				continue;
			double cnt = d->cnt[si * DS_MAX_BUCKETS + k];
			v->rows += cnt;
			for (int t = 0; t < CMP_MAX_THR; t++)
				if (!isnan(thr[t]))
					v->over_rows[t] += cnt * bucket_share_above(ds_min(d, si, k), x, ds_max(d, si, k), thr[t], ge);
			double l = NAN, o = NAN;
			if (sp->load >= 0 && e->series[sp->load] >= 0)
				l = ds_mean(d, (size_t)e->series[sp->load], k);
			if (sp->out[0] >= 0 && e->series[sp->out[0]] >= 0) {
				o = ds_mean(d, (size_t)e->series[sp->out[0]], k);
				if (sp->out[1] >= 0 && e->series[sp->out[1]] >= 0) {
					double o2 = ds_mean(d, (size_t)e->series[sp->out[1]], k);
					if (!isnan(o2) && !isnan(o))
						o += o2;
				}
			}
			v->x[v->n] = x;
			v->load[v->n] = l;
			v->out[v->n] = o;
			v->n++;
		}
	}
}

static void vals_free(struct vals *v)
{
	free(v->x);
	free(v->load);
	free(v->out);
}

/* ---- statistics ---- */

/* k-th smallest of a[0..n) (rearranges a; afterwards a[0..k) <= a[k] <= a[k+1..n)). */
static double select_k(double *a, size_t n, size_t k)
{
	long lo = 0, hi = (long)n - 1, kk = (long)k;
	while (lo < hi) {
		double x = a[lo], y = a[(lo + hi) / 2], z = a[hi];
		double pivot = x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y));
		long i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				double t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		}
		if (kk <= j)
			hi = j;
		else if (kk >= i)
			lo = i;
		else
			return a[kk];
	}
	return a[kk];
}

/* Median of a[0..n) (rearranges a); NaN when n == 0. */
static double median_inplace(double *a, size_t n)
{
	if (!n)
		return NAN;
	double m = select_k(a, n, n / 2);
	if (n % 2)
		return m;
	double lower = a[0];
	for (size_t i = 1; i < n / 2; i++)
		if (a[i] > lower)
			lower = a[i];
	return (m + lower) / 2;
}

static int dcmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Quantile p of sorted a[0..n), linear interpolation. */
static double sorted_q(const double *a, size_t n, double p)
{
	if (!n)
		return NAN;
	double h = p * (double)(n - 1);
	size_t i = (size_t)h;
	if (i + 1 >= n)
		return a[n - 1];
	return a[i] + (h - (double)i) * (a[i + 1] - a[i]);
}

/* Politis & White (2004), with Patton, Politis & White's (2009) correction: the automatic block
 * length of a block bootstrap (circular-block constant) for the mean of x. Clamped to
 * [1, min(3 sqrt(n), n/3)]. */
static size_t pw_block(const double *x, size_t n)
{
	if (n < 12)
		return 1;
	double mean = 0;
	for (size_t i = 0; i < n; i++)
		mean += x[i];
	mean /= (double)n;
	size_t kn = (size_t)fmax(5, ceil(sqrt(log10((double)n))));
	size_t mmax = (size_t)ceil(sqrt((double)n)) + kn;
	if (mmax >= n)
		mmax = n - 1;
	double *r = xmalloc((mmax + 1) * sizeof *r);
	for (size_t k = 0; k <= mmax; k++) {
		double s = 0;
		for (size_t i = 0; i + k < n; i++)
			s += (x[i] - mean) * (x[i + k] - mean);
		r[k] = s / (double)n;
	}
	size_t bmax = (size_t)ceil(fmin(3 * sqrt((double)n), (double)n / 3));
	if (r[0] <= 0) {
		free(r);
		return 1;
	}
	double crit = 2 * sqrt(log10((double)n) / (double)n);
	size_t mhat = mmax;
	for (size_t m = 0; m + kn <= mmax; m++) {
		bool small = true;
		for (size_t k = 1; k <= kn && small; k++)
			small = fabs(r[m + k] / r[0]) < crit;
		if (small) {
			mhat = m;
			break;
		}
	}
	size_t M = 2 * mhat > mmax ? mmax : 2 * mhat;
	if (M < 1)
		M = 1;
	double g0 = r[0], G = 0;
	for (size_t k = 1; k <= M; k++) {
		double t = (double)k / (double)M;
		double lam = t <= 0.5 ? 1 : 2 * (1 - t);
		g0 += 2 * lam * r[k];
		G += 2 * lam * (double)k * r[k];
	}
	free(r);
	double d = 4.0 / 3.0 * g0 * g0;
	if (!(d > 0))
		return 1;
	double b = pow(2 * G * G / d, 1.0 / 3.0) * pow((double)n, 1.0 / 3.0);
	if (!isfinite(b) || b < 1)
		b = 1;
	if (b > (double)bmax)
		b = (double)bmax;
	return (size_t)lround(b);
}

/* splitmix64: small, fast, good enough for resampling; seeded per comparison. */
struct rng {
	uint64_t s;
};
static uint64_t rng_next(struct rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}
static size_t rng_below(struct rng *r, size_t n)
{
	return (size_t)((double)(rng_next(r) >> 11) * 0x1.0p-53 * (double)n);
}

static uint64_t fnv(uint64_t h, const char *s)
{
	for (; s && *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	h ^= 0xff;
	h *= 0x100000001b3ULL;
	return h;
}

/* Circular block bootstrap: n indices into pos[] (a stratum's positions, in time order) from
 * blocks of length L that start anywhere and wrap around. */
static void cbb(struct rng *r, const size_t *pos, size_t n, size_t L, size_t *out)
{
	if (L < 1)
		L = 1;
	size_t k = 0;
	while (k < n) {
		size_t st = rng_below(r, n);
		for (size_t j = 0; j < L && k < n; j++)
			out[k++] = pos[(st + j) % n];
	}
}

/* Load regimes. A capture is not stationary: the batch runs for a while, then stops. A block
 * bootstrap over the whole series changes how long each phase lasts, and the median of an idle +
 * busy mixture then jumps between the two levels. When the entity's IOPS are clearly bimodal
 * (Otsu's threshold on log IOPS separates two groups, each >= 10% of the values, whose median
 * loads differ at least CMP_REGIME_RATIO-fold, with a between-group share of the variance >=
 * CMP_REGIME_ETA), the values are split into an idle and a busy stratum; each stratum is
 * resampled on its own (its share fixed: the day's workload as it was), with its own block
 * length. Returns the number of strata (1 or 2) and each value's stratum in st[]. */
#define CMP_REGIME_RATIO 2.0
#define CMP_REGIME_ETA 0.75
static int regimes(const double *load, size_t n, unsigned char *st, double active_min)
{
	memset(st, 0, n);
	double base = active_min > 0 ? active_min : 1;
	/* log IOPS of the values that have one (idle ones at a common floor); values without a
	 * load (the first perfmon row has no rates) join the stratum of their neighbour in time */
	double *l = xmalloc((n ? n : 1) * sizeof *l);
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(load[i]))
			l[m++] = log(fmax(load[i], base / 2));
	int ns = 1;
	if (m >= 4 * CMP_MIN_VALUES) {
		double *srt = xmalloc(m * sizeof *srt);
		memcpy(srt, l, m * sizeof *srt);
		qsort(srt, m, sizeof *srt, dcmp);
		double tot = 0, tot2 = 0;
		for (size_t i = 0; i < m; i++) {
			tot += srt[i];
			tot2 += srt[i] * srt[i];
		}
		double var = tot2 / (double)m - (tot / (double)m) * (tot / (double)m);
		double best = -1, cut = NAN, s0 = 0;
		size_t lo_min = m / 10 > CMP_MIN_VALUES ? m / 10 : CMP_MIN_VALUES;
		for (size_t k = 1; k < m; k++) {
			s0 += srt[k - 1];
			if (srt[k] == srt[k - 1] || k < lo_min || m - k < lo_min)
				continue;
			double w0 = (double)k / (double)m, w1 = 1 - w0;
			double m0 = s0 / (double)k, m1 = (tot - s0) / (double)(m - k);
			double between = w0 * w1 * (m0 - m1) * (m0 - m1);
			if (between > best) {
				best = between;
				cut = (srt[k - 1] + srt[k]) / 2;
			}
		}
		if (best > 0 && var > 0 && best / var >= CMP_REGIME_ETA) {
			size_t k = 0;
			while (k < m && srt[k] < cut)
				k++;
			double med0 = srt[k / 2], med1 = srt[k + (m - k) / 2];
			if (med1 - med0 >= log(CMP_REGIME_RATIO)) {
				int last = -1;
				for (size_t i = 0; i < n; i++) {
					if (isfinite(load[i]))
						last = st[i] = log(fmax(load[i], base / 2)) >= cut;
					else if (last >= 0)
						st[i] = (unsigned char)last;
				}
				/* leading values without a load: the first known stratum */
				for (size_t i = 0; i < n && !isfinite(load[i]); i++) {
					size_t j = i;
					while (j < n && !isfinite(load[j]))
						j++;
					st[i] = j < n ? st[j] : 0;
				}
				ns = 2;
			}
		}
		free(srt);
	}
	free(l);
	return ns;
}

/* Least-squares slope of y on x over pairs with finite x (and, when act != NULL, act[i]). */
static double ols_slope(const double *x, const double *y, const size_t *idx, size_t n, const bool *act, size_t *used)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	size_t m = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = idx ? idx[k] : k;
		if (isnan(x[i]) || (act && !act[i]))
			continue;
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		sxy += x[i] * y[i];
		m++;
	}
	if (used)
		*used = m;
	if (m < CMP_MIN_VALUES)
		return NAN;
	double vx = sxx - sx * sx / (double)m;
	if (vx <= 1e-12 * (sxx > 0 ? sxx : 1))
		return NAN;
	return (sxy - sx * sy / (double)m) / vx;
}

/* The strata of one side (see regimes()): positions in time order and a block length each. */
struct strata {
	int n;
	size_t *pos[2], len[2], block[2];
};

static void strata_build(struct strata *t, const struct vals *v, bool by_load, double active_min)
{
	memset(t, 0, sizeof *t);
	unsigned char *st = xmalloc(v->n ? v->n : 1);
	t->n = by_load ? regimes(v->load, v->n, st, active_min) : 1;
	if (t->n == 1)
		memset(st, 0, v->n);
	for (int k = 0; k < t->n; k++)
		t->pos[k] = xmalloc((v->n ? v->n : 1) * sizeof *t->pos[k]);
	for (size_t i = 0; i < v->n; i++)
		t->pos[st[i]][t->len[st[i]]++] = i;
	double *tmp = xmalloc((v->n ? v->n : 1) * sizeof *tmp);
	for (int k = 0; k < t->n; k++) {
		for (size_t i = 0; i < t->len[k]; i++)
			tmp[i] = v->x[t->pos[k][i]];
		t->block[k] = pw_block(tmp, t->len[k]);
	}
	free(tmp);
	free(st);
}

static void strata_free(struct strata *t)
{
	for (int k = 0; k < t->n; k++)
		free(t->pos[k]);
}

/* What one bootstrap works on. */
struct boot {
	const struct vals *v[2];
	const struct strata *st[2];
	/* load match: bin of each value (-1 = not in a matched bin), nbins matched bins, weights */
	const int *bin[2];
	int nbins;
	const double *w;
	/* slope: active flags per value */
	bool slope;
	const bool *act[2];
};

struct boot_res {
	double ci_diff[2], ci_pct[2];
	double lm_ci_diff[2], lm_ci_pct[2];
	double slope_ci_pct[2];
};

static void interval(double *a, size_t n, size_t total, double conf, double out[2])
{
	out[0] = out[1] = NAN;
	if (!total || n < total * 9 / 10 || n < 2)
		return;
	qsort(a, n, sizeof *a, dcmp);
	out[0] = sorted_q(a, n, (1 - conf) / 2);
	out[1] = sorted_q(a, n, 1 - (1 - conf) / 2);
}

/* Weighted bin-median difference of resampled values; num/den as in cmp_loadmatch. */
static void lm_stat(const struct boot *b, size_t *const idx[2], double *scratch[2], size_t *cnt, size_t *off,
		    double *med, double *diff, double *pct)
{
	int nb = b->nbins;
	for (int s = 0; s < 2; s++) {
		size_t n = b->v[s]->n;
		memset(cnt, 0, (size_t)nb * sizeof *cnt);
		for (size_t k = 0; k < n; k++) {
			int bi = b->bin[s][idx[s][k]];
			if (bi >= 0)
				cnt[bi]++;
		}
		size_t o = 0;
		for (int i = 0; i < nb; i++) {
			off[i] = o;
			o += cnt[i];
		}
		for (size_t k = 0; k < n; k++) {
			int bi = b->bin[s][idx[s][k]];
			if (bi >= 0)
				scratch[s][off[bi]++] = b->v[s]->x[idx[s][k]];
		}
		for (int i = 0; i < nb; i++) {
			size_t start = off[i] - cnt[i];
			med[s * nb + i] = cnt[i] >= 2 ? median_inplace(scratch[s] + start, cnt[i]) : NAN;
		}
	}
	double num = 0, den = 0, wsum = 0;
	for (int i = 0; i < nb; i++) {
		double mb = med[i], ma = med[nb + i];
		if (isnan(mb) || isnan(ma))
			continue;
		num += b->w[i] * (ma - mb);
		den += b->w[i] * mb;
		wsum += b->w[i];
	}
	*diff = wsum > 0 ? num / wsum : NAN;
	*pct = den > 0 ? 100 * num / den : NAN;
}

/* Ranks of x (ties by position) and x sorted: a resample's median is then found by counting
 * ranks, which is several times faster than selecting among copied values. */
struct ranked {
	double *sorted;
	size_t *rank, *cnt;
};

static const double *rank_base;
static int rank_cmp(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	double u = rank_base[a], v = rank_base[b];
	if (u != v)
		return u < v ? -1 : 1;
	return (a > b) - (a < b);
}

static void ranked_init(struct ranked *rk, const double *x, size_t n)
{
	size_t m = n ? n : 1;
	size_t *ord = xmalloc(m * sizeof *ord);
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	rank_base = x;
	qsort(ord, n, sizeof *ord, rank_cmp);
	rk->sorted = xmalloc(m * sizeof *rk->sorted);
	rk->rank = xmalloc(m * sizeof *rk->rank);
	rk->cnt = xmalloc(m * sizeof *rk->cnt);
	for (size_t i = 0; i < n; i++) {
		rk->sorted[i] = x[ord[i]];
		rk->rank[ord[i]] = i;
	}
	free(ord);
}

static void ranked_free(struct ranked *rk)
{
	free(rk->sorted);
	free(rk->rank);
	free(rk->cnt);
}

/* Median of x[idx[0..n)] through the ranks. */
static double ranked_median(struct ranked *rk, const size_t *idx, size_t n)
{
	if (!n)
		return NAN;
	memset(rk->cnt, 0, n * sizeof *rk->cnt);
	for (size_t k = 0; k < n; k++)
		rk->cnt[rk->rank[idx[k]]]++;
	size_t want = n / 2, acc = 0, i = 0; /* 0-based order statistic n/2 (upper median) */
	while (acc + rk->cnt[i] <= want)
		acc += rk->cnt[i++];
	double hi = rk->sorted[i];
	if (n % 2)
		return hi;
	/* lower median: order statistic n/2 - 1 */
	if (want - 1 >= acc)
		return hi;
	size_t j = i;
	while (j > 0 && !rk->cnt[--j])
		;
	return (hi + rk->sorted[j]) / 2;
}

static void bootstrap(const struct boot *b, unsigned R, uint64_t seed, double conf, struct boot_res *res)
{
	struct rng r = {seed};
	size_t *idx[2];
	double *scratch[2];
	struct ranked rk[2];
	for (int s = 0; s < 2; s++) {
		size_t n = b->v[s]->n ? b->v[s]->n : 1;
		idx[s] = xmalloc(n * sizeof *idx[s]);
		scratch[s] = xmalloc(n * sizeof *scratch[s]);
		ranked_init(&rk[s], b->v[s]->x, b->v[s]->n);
	}
	double *d = xmalloc(R * sizeof *d), *p = xmalloc(R * sizeof *p);
	double *ld = xmalloc(R * sizeof *ld), *lp = xmalloc(R * sizeof *lp), *sp = xmalloc(R * sizeof *sp);
	size_t nd = 0, np = 0, nld = 0, nlp = 0, nsp = 0;
	size_t nb = b->nbins > 0 ? (size_t)b->nbins : 1;
	size_t *cnt = xmalloc(nb * sizeof *cnt), *off = xmalloc(nb * sizeof *off);
	double *med = xmalloc(2 * nb * sizeof *med);
	for (unsigned it = 0; it < R; it++) {
		double m[2], sl[2] = {NAN, NAN};
		for (int s = 0; s < 2; s++) {
			size_t n = b->v[s]->n;
			size_t at = 0;
			for (int k = 0; k < b->st[s]->n; k++) {
				cbb(&r, b->st[s]->pos[k], b->st[s]->len[k], b->st[s]->block[k], idx[s] + at);
				at += b->st[s]->len[k];
			}
			m[s] = ranked_median(&rk[s], idx[s], n);
			if (b->slope)
				sl[s] = ols_slope(b->v[s]->out, b->v[s]->x, idx[s], n, b->act[s], NULL);
		}
		d[nd++] = m[1] - m[0];
		if (m[0] != 0)
			p[np++] = 100 * (m[1] - m[0]) / fabs(m[0]);
		if (b->nbins > 0) {
			double x, y;
			lm_stat(b, idx, scratch, cnt, off, med, &x, &y);
			if (!isnan(x))
				ld[nld++] = x;
			if (!isnan(y))
				lp[nlp++] = y;
		}
		if (b->slope && !isnan(sl[0]) && !isnan(sl[1]) && sl[0] > 0)
			sp[nsp++] = 100 * (sl[1] - sl[0]) / sl[0];
	}
	interval(d, nd, R, conf, res->ci_diff);
	interval(p, np, R, conf, res->ci_pct);
	interval(ld, nld, R, conf, res->lm_ci_diff);
	interval(lp, nlp, R, conf, res->lm_ci_pct);
	interval(sp, nsp, R, conf, res->slope_ci_pct);
	for (int s = 0; s < 2; s++) {
		free(idx[s]);
		free(scratch[s]);
		ranked_free(&rk[s]);
	}
	free(d);
	free(p);
	free(ld);
	free(lp);
	free(sp);
	free(cnt);
	free(off);
	free(med);
}

/* ---- rows ---- */

static bool excludes_zero(const double ci[2])
{
	return !isnan(ci[0]) && !isnan(ci[1]) && (ci[0] > 0 || ci[1] < 0);
}

static enum cmp_verdict judge(const struct compare *c, const struct cmp_metric_spec *sp, double diff, double pct,
			      const double ci[2], enum cmp_reason *reason)
{
	*reason = CR_NONE;
	if (isnan(ci[0]) || isnan(ci[1])) {
		*reason = CR_NO_INTERVAL;
		return CV_NOT_ASSESSED;
	}
	if (!excludes_zero(ci)) {
		*reason = CR_CI_HAS_ZERO;
		return CV_UNCHANGED;
	}
	if (fabs(diff) < sp->floor) {
		*reason = CR_BELOW_FLOOR;
		return CV_UNCHANGED;
	}
	if (!isnan(pct) && fabs(pct) < c->o.material_pct) {
		*reason = CR_BELOW_PCT;
		return CV_UNCHANGED;
	}
	if (cmp_kind_lower_is_better(sp->kind))
		return diff < 0 ? CV_IMPROVED : CV_REGRESSED;
	return diff > 0 ? CV_HIGHER : CV_LOWER;
}

static int bin_of(double l, double active_min)
{
	double base = active_min > 0 ? active_min : 1;
	if (!(l >= base) || !isfinite(l))
		return -1;
	int b = (int)floor(log(l / base) / log(CMP_BIN_RATIO));
	return b < 0 ? 0 : (b > 200 ? 200 : b);
}

static double bin_edge(int k, double active_min)
{
	double base = active_min > 0 ? active_min : 1;
	return base * pow(CMP_BIN_RATIO, k);
}

/* Load bins of a latency row (original data): fills lb and lm; returns the bin of each value
 * in matched-bin numbering (-1 = outside) through mb[s], the weights through w. */
static void load_bins(struct compare *c, struct cmp_row *row, const struct vals v[2], struct cmp_loadbins *lb,
		      int *mb[2], double **w, int *nmatched)
{
	int maxb = -1;
	int *raw[2];
	for (int s = 0; s < 2; s++) {
		raw[s] = xmalloc((v[s].n ? v[s].n : 1) * sizeof *raw[s]);
		for (size_t i = 0; i < v[s].n; i++) {
			raw[s][i] = bin_of(v[s].load[i], ACTIVE_MIN(c));
			if (raw[s][i] > maxb)
				maxb = raw[s][i];
		}
	}
	size_t nb = (size_t)(maxb + 1);
	size_t *cnt[2];
	double **bv[2];
	for (int s = 0; s < 2; s++) {
		cnt[s] = xcalloc(nb ? nb : 1, sizeof *cnt[s]);
		bv[s] = xcalloc(nb ? nb : 1, sizeof *bv[s]);
		for (size_t i = 0; i < v[s].n; i++)
			if (raw[s][i] >= 0)
				cnt[s][raw[s][i]]++;
		for (size_t k = 0; k < nb; k++)
			if (cnt[s][k])
				bv[s][k] = xmalloc(cnt[s][k] * sizeof *bv[s][k]);
		size_t *fill = xcalloc(nb ? nb : 1, sizeof *fill);
		for (size_t i = 0; i < v[s].n; i++)
			if (raw[s][i] >= 0)
				bv[s][raw[s][i]][fill[raw[s][i]]++] = v[s].x[i];
		free(fill);
		/* active load figures */
		double *l = xmalloc((v[s].n ? v[s].n : 1) * sizeof *l);
		size_t m = 0;
		for (size_t i = 0; i < v[s].n; i++)
			if (raw[s][i] >= 0)
				l[m++] = v[s].load[i];
		qsort(l, m, sizeof *l, dcmp);
		lb->active[s] = m;
		lb->load_p50[s] = sorted_q(l, m, 0.5);
		lb->load_p95[s] = sorted_q(l, m, 0.95);
		free(l);
	}
	lb->bins = arena_alloc(&c->arena, (nb ? nb : 1) * sizeof *lb->bins);
	lb->nbins = 0;
	int *renum = xmalloc((nb ? nb : 1) * sizeof *renum);
	*w = xmalloc((nb ? nb : 1) * sizeof **w);
	int nm = 0;
	double inside[2] = {0, 0}, num = 0, den = 0, wsum = 0;
	struct cmp_loadmatch *lm = &row->lm;
	lm->load_lo = lm->load_hi = NAN;
	for (size_t k = 0; k < nb; k++) {
		renum[k] = -1;
		if (!cnt[0][k] && !cnt[1][k])
			continue;
		struct cmp_bin *b = &lb->bins[lb->nbins++];
		b->lo = bin_edge((int)k, ACTIVE_MIN(c));
		b->hi = bin_edge((int)k + 1, ACTIVE_MIN(c));
		for (int s = 0; s < 2; s++) {
			b->n[s] = cnt[s][k];
			if (cnt[s][k]) {
				qsort(bv[s][k], cnt[s][k], sizeof *bv[s][k], dcmp);
				b->p50[s] = sorted_q(bv[s][k], cnt[s][k], 0.5);
				b->p95[s] = sorted_q(bv[s][k], cnt[s][k], 0.95);
			} else {
				b->p50[s] = b->p95[s] = NAN;
			}
		}
		b->matched = cnt[0][k] >= CMP_BIN_MIN && cnt[1][k] >= CMP_BIN_MIN;
		if (!b->matched)
			continue;
		renum[k] = nm;
		double wk = (double)(cnt[0][k] < cnt[1][k] ? cnt[0][k] : cnt[1][k]);
		(*w)[nm++] = wk;
		inside[0] += (double)cnt[0][k];
		inside[1] += (double)cnt[1][k];
		num += wk * (b->p50[1] - b->p50[0]);
		den += wk * b->p50[0];
		wsum += wk;
		if (isnan(lm->load_lo))
			lm->load_lo = b->lo;
		lm->load_hi = b->hi;
	}
	for (int s = 0; s < 2; s++) {
		mb[s] = xmalloc((v[s].n ? v[s].n : 1) * sizeof *mb[s]);
		for (size_t i = 0; i < v[s].n; i++)
			mb[s][i] = raw[s][i] >= 0 ? renum[raw[s][i]] : -1;
		lm->coverage[s] = lb->active[s] ? inside[s] / (double)lb->active[s] : 0;
	}
	lm->bins = nm;
	lm->diff = wsum > 0 ? num / wsum : NAN;
	lm->change_pct = den > 0 ? 100 * num / den : NAN;
	lm->comparable = nm > 0 && lm->coverage[0] >= CMP_MIN_COVERAGE && lm->coverage[1] >= CMP_MIN_COVERAGE;
	if (!lb->active[0] || !lb->active[1])
		lm->note = "idle on one side";
	else if (!nm)
		lm->note = "the loads do not overlap: no IOPS bin has enough samples on both sides";
	else if (!lm->comparable)
		lm->note = "the loads barely overlap: the matched IOPS bins hold too little of one side's time";
	*nmatched = nm;
	for (int s = 0; s < 2; s++) {
		for (size_t k = 0; k < nb; k++)
			free(bv[s][k]);
		free(bv[s]);
		free(cnt[s]);
		free(raw[s]);
	}
	free(renum);
}

static void side_stats(const struct compare *c, const struct cmp_pair *p, int s, const struct cmp_metric_spec *sp,
		       const struct vals *v, struct cmp_stats *st)
{
	struct qsketch q;
	compare_sketch(c, p, (enum cmp_side)s, sp->metric, &q);
	st->samples = (long long)q.n;
	st->p50 = qs_quantile(&q, 0.5);
	st->p95 = qs_quantile(&q, 0.95);
	st->p99 = qs_quantile(&q, 0.99);
	st->max = q.n ? q.max : NAN;
	st->mean = qs_mean(&q);
	qs_free(&q);
	for (int t = 0; t < CMP_MAX_THR; t++)
		st->over[t] = sp->thr[t] >= 0 && v->rows > 0 ? v->over_rows[t] / v->rows : NAN;
	st->values = v->n;
	double *tmp = xmalloc((v->n ? v->n : 1) * sizeof *tmp);
	memcpy(tmp, v->x, v->n * sizeof *tmp);
	st->median = median_inplace(tmp, v->n);
	free(tmp);

}

static void row_compute(struct compare *c, struct cmp_row *row)
{
	const struct cmp_pair *p = &c->pairs[row->pair];
	const struct cmp_metric_spec *sp = row->spec;
	double thr[CMP_MAX_THR];
	for (int t = 0; t < CMP_MAX_THR; t++)
		thr[t] = sp->thr[t] >= 0 ? rule_value(&c->rules, (enum rule_id)sp->thr[t]) : NAN;
	struct vals v[2];
	for (int s = 0; s < 2; s++) {
		gather(c, p, s, sp, thr, &v[s]);
		side_stats(c, p, s, sp, &v[s], &row->s[s]);
	}
	row->diff = row->s[1].median - row->s[0].median;
	row->change_pct = row->s[0].median != 0 ? 100 * row->diff / fabs(row->s[0].median) : NAN;
	row->ci_diff[0] = row->ci_diff[1] = row->ci[0] = row->ci[1] = NAN;
	row->lm.verdict = CV_NOT_ASSESSED;
	row->lm.ci[0] = row->lm.ci[1] = row->lm.ci_diff[0] = row->lm.ci_diff[1] = NAN;
	bool latency = sp->kind == CK_LATENCY;
	bool has_load = sp->load >= 0 && p->layer != LAYER_VM;
	if (v[0].n < CMP_MIN_VALUES || v[1].n < CMP_MIN_VALUES) {
		row->verdict = CV_NOT_ASSESSED;
		row->reason = !v[0].n ? CR_NO_BEFORE : !v[1].n ? CR_NO_AFTER : CR_FEW_VALUES;
		goto out;
	}
	if (has_load && !p->active[0] && !p->active[1]) {
		row->verdict = CV_NOT_ASSESSED;
		row->reason = CR_IDLE_BOTH;
		goto out;
	}
	if (latency && (!p->active[0] || !p->active[1])) {
		row->verdict = CV_NOT_ASSESSED;
		row->reason = CR_IDLE_ONE;
		goto out;
	}
	struct boot b;
	memset(&b, 0, sizeof b);
	b.v[0] = &v[0];
	b.v[1] = &v[1];
	struct strata strat[2];
	for (int s = 0; s < 2; s++) {
		strata_build(&strat[s], &v[s], has_load, ACTIVE_MIN(c));
		b.st[s] = &strat[s];
		row->s[s].strata = (size_t)strat[s].n;
		row->s[s].block = 0;
		for (int k = 0; k < strat[s].n; k++)
			if (strat[s].block[k] > row->s[s].block)
				row->s[s].block = strat[s].block[k];
	}
	int *mb[2] = {NULL, NULL};
	double *w = NULL;
	struct cmp_loadbins lb;
	memset(&lb, 0, sizeof lb);
	bool *act[2] = {NULL, NULL};
	row->has_lm = latency && has_load;
	if (row->has_lm) {
		size_t withload[2] = {0, 0};
		for (int s = 0; s < 2; s++)
			for (size_t i = 0; i < v[s].n; i++)
				withload[s] += !isnan(v[s].load[i]);
		row->has_lm = withload[0] && withload[1];
	}
	if (row->has_lm) {
		int nm = 0;
		lb.row = (size_t)(row - c->rows);
		load_bins(c, row, v, &lb, mb, &w, &nm);
		b.bin[0] = mb[0];
		b.bin[1] = mb[1];
		b.nbins = row->lm.comparable ? nm : 0;
		b.w = w;
		if (sp->out[0] >= 0) {
			size_t without[2] = {0, 0};
			for (int s = 0; s < 2; s++) {
				act[s] = xmalloc((v[s].n ? v[s].n : 1) * sizeof *act[s]);
				for (size_t i = 0; i < v[s].n; i++) {
					act[s][i] = bin_of(v[s].load[i], ACTIVE_MIN(c)) >= 0;
					without[s] += act[s][i] && !isnan(v[s].out[i]);
				}
			}
			lb.has_slope = without[0] >= CMP_MIN_VALUES && without[1] >= CMP_MIN_VALUES;
			for (int s = 0; s < 2; s++)
				lb.slope[s] = ols_slope(v[s].out, v[s].x, NULL, v[s].n, act[s], &lb.slope_n[s]);
			lb.has_slope = lb.has_slope && !isnan(lb.slope[0]) && !isnan(lb.slope[1]);
			/* a slope only means "ms per waiting IO" when latency grows with the queue */
			lb.has_slope = lb.has_slope && lb.slope[0] > 0 && lb.slope[1] > 0;
			lb.slope_change_pct = lb.has_slope ? 100 * (lb.slope[1] - lb.slope[0]) / lb.slope[0] : NAN;
			b.slope = lb.has_slope;
			b.act[0] = act[0];
			b.act[1] = act[1];
		}
	}
	char label[512];
	compare_pair_label(p, CMP_BEFORE, label, sizeof label);
	uint64_t seed = fnv(fnv(fnv(0xcbf29ce484222325ULL ^ c->o.seed, layer_names[p->layer]), label),
			    metric_info[sp->metric].name);
	struct boot_res res;
	bootstrap(&b, c->o.resamples, seed, c->o.confidence, &res);
	row->ci_diff[0] = res.ci_diff[0];
	row->ci_diff[1] = res.ci_diff[1];
	row->ci[0] = res.ci_pct[0];
	row->ci[1] = res.ci_pct[1];
	row->verdict = judge(c, sp, row->diff, row->change_pct, row->ci_diff, &row->reason);
	if (row->has_lm) {
		struct cmp_loadmatch *lm = &row->lm;
		if (lm->comparable) {
			lm->ci_diff[0] = res.lm_ci_diff[0];
			lm->ci_diff[1] = res.lm_ci_diff[1];
			lm->ci[0] = res.lm_ci_pct[0];
			lm->ci[1] = res.lm_ci_pct[1];
			lm->verdict = judge(c, sp, lm->diff, lm->change_pct, lm->ci_diff, &lm->reason);
		}
		lb.slope_ci[0] = res.slope_ci_pct[0];
		lb.slope_ci[1] = res.slope_ci_pct[1];
		if (!lb.has_slope)
			lb.slope_ci[0] = lb.slope_ci[1] = NAN;
		c->lb = xrealloc(c->lb, (c->nlb + 1) * sizeof *c->lb);
		c->lb[c->nlb++] = lb;
	}
	strata_free(&strat[0]);
	strata_free(&strat[1]);
	free(mb[0]);
	free(mb[1]);
	free(w);
	free(act[0]);
	free(act[1]);
out:
	vals_free(&v[0]);
	vals_free(&v[1]);
}

static bool vdisk_of(const char *vdisk, const char *vm, size_t l)
{
	return strncmp(vdisk, vm, l) == 0 && strncmp(vdisk + l, ":scsi", 5) == 0;
}

/* Whether VM (a Group Cpu name, "APP02 (104c07ff-...)" included) has a Virtual Disk VM:scsiC:T,
 * which may be named with or without the parenthesised suffix. */
static bool vm_has_disks(const struct model *m, const char *vm)
{
	size_t l = strlen(vm), base = l;
	const char *par = strstr(vm, " (");
	if (par && l && vm[l - 1] == ')')
		base = (size_t)(par - vm);
	for (size_t i = 0; i < m->nents; i++)
		if (m->ents[i].layer == LAYER_VSCSI && (vdisk_of(m->ents[i].name, vm, l) || vdisk_of(m->ents[i].name, vm, base)))
			return true;
	return false;
}

static void pair_activity(struct compare *c, struct cmp_pair *p)
{
	int load = -1;
	for (size_t k = 0; k < cmp_nmetrics; k++)
		if (cmp_metrics[k].layer == p->layer && cmp_metrics[k].load >= 0) {
			load = cmp_metrics[k].load;
			break;
		}
	for (int s = 0; s < 2; s++) {
		if (!p->name[s])
			continue;
		if (load < 0) {
			p->active[s] = true;
			continue;
		}
		struct qsketch q;
		compare_sketch(c, p, (enum cmp_side)s, (enum metric)load, &q);
		p->load_mean[s] = qs_mean(&q);
		qs_free(&q);
		p->active[s] = !isnan(p->load_mean[s]) && p->load_mean[s] >= ACTIVE_MIN(c);
	}
	if (p->layer == LAYER_VM) {
		for (int s = 0; s < 2 && !p->vm_with_disks; s++)
			if (p->name[s])
				p->vm_with_disks = vm_has_disks(&c->side[s].m, p->name[s]);
	}
}

static void build_rows(struct compare *c)
{
	for (size_t i = 0; i < c->npairs; i++) {
		struct cmp_pair *p = &c->pairs[i];
		pair_activity(c, p);
		p->first_row = c->nrows;
		if (!p->name[0] || !p->name[1])
			continue;
		for (size_t k = 0; k < cmp_nmetrics; k++) {
			const struct cmp_metric_spec *sp = &cmp_metrics[k];
			if (sp->layer != p->layer)
				continue;
			bool any = false;
			for (int s = 0; s < 2; s++)
				for (size_t e = 0; e < p->nents[s]; e++)
					any |= ent(c, p, s, e)->sk[sp->metric].n > 0;
			if (!any)
				continue;
			c->rows = xrealloc(c->rows, (c->nrows + 1) * sizeof *c->rows);
			struct cmp_row *row = &c->rows[c->nrows++];
			memset(row, 0, sizeof *row);
			row->pair = i;
			row->spec = sp;
			p->nrows++;
		}
	}
	for (size_t r = 0; r < c->nrows; r++)
		row_compute(c, &c->rows[r]);
}

/* ---- findings ---- */

/* The after-side name of a before-side finding's entity (renamed through --match-map, or on
 * another host after the VM moved). */
static void translate(const struct compare *c, const struct finding *f, const char **entity, const char **host)
{
	*entity = f->entity;
	*host = f->host;
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if (!(p->mapped || p->by_name) || !p->name[0] || !p->name[1] || strcmp(p->name[0], f->entity) != 0 ||
		    !host_eq(p->host[0], f->host))
			continue;
		*entity = p->name[1];
		*host = p->host[1];
		if (p->layer == f->layer)
			return;
	}
}

static void findings_diff(struct compare *c)
{
	for (int s = 0; s < 2; s++) {
		const struct analysis *a = &c->side[s];
		for (size_t i = 0; i < a->nf; i++) {
			const struct finding *f = &a->f[i];
			const char *e = f->entity, *h = f->host;
			if (s == 0)
				translate(c, f, &e, &h);
			size_t k = 0;
			for (; k < c->nfd; k++)
				if (c->fd[k].kind == f->kind && strcmp(c->fd[k].entity, e) == 0 && host_eq(c->fd[k].host, h))
					break;
			if (k == c->nfd) {
				c->fd = xrealloc(c->fd, (c->nfd + 1) * sizeof *c->fd);
				struct cmp_fdiff *d = &c->fd[c->nfd++];
				memset(d, 0, sizeof *d);
				d->kind = f->kind;
				d->title = kinds[f->kind].title;
				d->layer = f->layer;
				d->entity = e;
				d->host = h;
				d->worst[0] = d->worst[1] = -1;
			}
			struct cmp_fdiff *d = &c->fd[k];
			d->count[s]++;
			if ((int)f->sev > d->worst[s])
				d->worst[s] = (int)f->sev;
			d->sustained_s[s] += f->sustained_s;
			if (s == 1) {
				d->entity = f->entity;
				d->host = f->host;
			}
		}
	}
	for (size_t k = 0; k < c->nfd; k++) {
		struct cmp_fdiff *d = &c->fd[k];
		d->status = d->count[0] && d->count[1] ? CF_STILL : d->count[0] ? CF_GONE : CF_NEW;
	}
}

/* ---- verdict paragraph ---- */

static void fnum(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "-");
	else if (fabs(v) >= 1000)
		buf_printf(b, "%.0f", v);
	else if (fabs(v) >= 100 || v == floor(v))
		buf_printf(b, "%.0f", v);
	else if (fabs(v) >= 10)
		buf_printf(b, "%.1f", v);
	else
		buf_printf(b, "%.2g", v);
}

static void fpct(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "n/a");
	else if (fabs(v) >= 10)
		buf_printf(b, "%+.0f%%", v);
	else
		buf_printf(b, "%+.1f%%", v);
}

static const char *entity_label(const struct compare *c, const struct cmp_row *r, char *out, size_t cap)
{
	return compare_pair_label(&c->pairs[r->pair], CMP_AFTER, out, cap);
}

/* "SQL01 D: Avg. Disk sec/Read -95% (median 119 -> 6.4 ms, 95% CI -96% .. -94%)" */
static void describe_row(const struct compare *c, const struct cmp_row *r, struct buf *b)
{
	char l[512];
	buf_printf(b, "%s %s ", entity_label(c, r, l, sizeof l), metric_info[r->spec->metric].label);
	fpct(b, r->change_pct);
	buf_adds(b, " (median ");
	fnum(b, r->s[0].median);
	buf_adds(b, " -> ");
	fnum(b, r->s[1].median);
	buf_printf(b, " %s, %.0f%% CI ", metric_info[r->spec->metric].unit, c->o.confidence * 100);
	if (!isnan(r->ci[0])) {
		fpct(b, r->ci[0]);
		buf_adds(b, " .. ");
		fpct(b, r->ci[1]);
	} else {
		fnum(b, r->ci_diff[0]);
		buf_adds(b, " .. ");
		fnum(b, r->ci_diff[1]);
		buf_printf(b, " %s", metric_info[r->spec->metric].unit);
	}
	/* a regression that vanishes at equal load comes with the extra work (DOMAIN 6) */
	if (r->verdict == CV_REGRESSED && r->has_lm && r->lm.comparable && r->lm.verdict == CV_UNCHANGED)
		buf_adds(b, "; unchanged at equal load, so it comes with the higher load");
	buf_addc(b, ')');
}

static double pair_load(const struct cmp_pair *p)
{
	double l = 0;
	for (int s = 0; s < 2; s++)
		if (!isnan(p->load_mean[s]))
			l += p->load_mean[s];
	return l;
}

/* Upper layers first (what the guest sees), then the busiest entity, then table order (reads
 * before writes). */
static int row_rank_cmp(const struct compare *c, const struct cmp_row *a, const struct cmp_row *b)
{
	const struct cmp_pair *pa = &c->pairs[a->pair], *pb = &c->pairs[b->pair];
	int ra = layer_rank(pa->layer), rb = layer_rank(pb->layer);
	if (ra != rb)
		return ra - rb;
	if (a->pair != b->pair) {
		double la = pair_load(pa), lb = pair_load(pb);
		if (la != lb)
			return la > lb ? -1 : 1;
		return a->pair < b->pair ? -1 : 1;
	}
	return (a->spec > b->spec) - (a->spec < b->spec);
}

/* Up to max latency rows with verdict v, the most telling first (upper layers, larger changes). */
static size_t top_rows(const struct compare *c, enum cmp_verdict v, bool latency_only, const struct cmp_row **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		if (r->verdict != v || (latency_only && r->spec->kind != CK_LATENCY))
			continue;
		size_t k = n < max ? n++ : max;
		if (k == max) {
			if (row_rank_cmp(c, r, out[max - 1]) >= 0)
				continue;
			k = max - 1;
		}
		while (k > 0 && row_rank_cmp(c, r, out[k - 1]) < 0) {
			out[k] = out[k - 1];
			k--;
		}
		out[k] = r;
	}
	return n;
}

static const struct cmp_row *find_row(const struct compare *c, size_t pair, enum metric m)
{
	const struct cmp_pair *p = &c->pairs[pair];
	for (size_t i = p->first_row; i < p->first_row + p->nrows; i++)
		if (c->rows[i].spec->metric == m)
			return &c->rows[i];
	return NULL;
}

static bool is_symptom(enum kind k)
{
	return kinds[k].place == VP_GUEST_LATENCY;
}

/* "title (HOST e1, e2): status" groups: places of waiting first, then symptoms (guest latency),
 * each in detector order; entities sorted by host and name. */
static void list_findings(const struct compare *c, enum cmp_fstatus st, struct buf *b, int *groups)
{
	size_t *ix = xmalloc((c->nfd ? c->nfd : 1) * sizeof *ix);
	for (int pass = 0; pass < 2; pass++) {
		for (int kd = 0; kd < K_COUNT; kd++) {
			const struct kind_info *d = &kinds[kd];
			if (is_symptom((enum kind)kd) != (pass == 1))
				continue;
			size_t n = 0;
			for (size_t k = 0; k < c->nfd; k++) {
				const struct cmp_fdiff *f = &c->fd[k];
				if (f->status != st || f->kind != (enum kind)kd)
					continue;
				size_t j = n++;
				for (; j > 0; j--) {
					const struct cmp_fdiff *g = &c->fd[ix[j - 1]];
					int o = strcmp(g->host ? g->host : "", f->host ? f->host : "");
					if (o < 0 || (o == 0 && strcmp(g->entity, f->entity) <= 0))
						break;
					ix[j] = ix[j - 1];
				}
				ix[j] = k;
			}
			if (!n)
				continue;
			buf_printf(b, "%s%s (", *groups ? "; " : "", d->title);
			(*groups)++;
			const char *last = NULL;
			for (size_t i = 0; i < n; i++) {
				const struct cmp_fdiff *f = &c->fd[ix[i]];
				if (i)
					buf_adds(b, ", ");
				bool show_host = f->host && (f->layer == LAYER_GUEST || f->layer == LAYER_VSCSI);
				if (show_host && (!last || !host_eq(last, f->host)))
					buf_printf(b, "%s ", f->host);
				last = show_host ? f->host : NULL;
				buf_adds(b, f->entity);
			}
			buf_printf(b, "): %s", st == CF_GONE ? "gone" : st == CF_NEW ? "new" : "still present");
		}
	}
	free(ix);
}

static const struct cmp_loadbins *bins_of_row(const struct compare *c, const struct cmp_row *r)
{
	for (size_t i = 0; i < c->nlb; i++)
		if (&c->rows[c->lb[i].row] == r)
			return &c->lb[i];
	return NULL;
}

static int readable_caps(const struct model *m)
{
	int n = 0;
	for (size_t i = 0; i < m->ncaps; i++)
		n += !m->caps[i].failed;
	return n;
}

/* The LSI -> PVSCSI shape: the guest's latency improved and only layers below it got worse. */
static bool guest_better_host_worse(const struct compare *c, const struct cmp_row *const *imp, size_t ni,
				    const struct cmp_row *const *reg, size_t nr)
{
	bool guest = false;
	for (size_t i = 0; i < ni; i++)
		guest |= c->pairs[imp[i]->pair].layer == LAYER_GUEST;
	for (size_t i = 0; i < nr; i++)
		if (c->pairs[reg[i]->pair].layer == LAYER_GUEST)
			return false;
	return guest;
}

static void summarise(struct compare *c)
{
	struct cmp_summary *s = &c->sum;
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		s->verdicts[r->verdict]++;
		if (r->spec->kind == CK_LATENCY) {
			s->latency[r->verdict]++;
			if (r->has_lm && !r->lm.comparable && r->verdict != CV_NOT_ASSESSED)
				s->load_not_comparable++;
		}
	}
	for (size_t k = 0; k < c->nfd; k++)
		s->findings[c->fd[k].status]++;
	s->findings_compared = readable_caps(&c->side[0].m) && readable_caps(&c->side[1].m);
	/* where the places of waiting went: the topmost layer of gone vs new findings */
	int top_gone = 99, top_new = 99;
	for (size_t k = 0; k < c->nfd; k++) {
		const struct cmp_fdiff *f = &c->fd[k];
		if (is_symptom(f->kind) || f->layer == LAYER_VM)
			continue;
		int r = layer_rank(f->layer);
		if (f->status == CF_GONE && r < top_gone)
			top_gone = r;
		if (f->status == CF_NEW && r < top_new)
			top_new = r;
	}
	if (top_gone < 99 && top_new < 99)
		s->bottleneck = top_new > top_gone ? 1 : top_new < top_gone ? -1 : 0;

	struct buf b;
	buf_init(&b);
	const struct cmp_row *imp[3], *reg[3];
	size_t ni = top_rows(c, CV_IMPROVED, true, imp, 3), nr = top_rows(c, CV_REGRESSED, true, reg, 3);
	double conf = c->o.confidence * 100;
	if (ni && !nr)
		buf_adds(&b, "After the change IO waits less: ");
	else if (nr && !ni)
		buf_adds(&b, "After the change IO waits longer: ");
	else if (ni && nr && guest_better_host_worse(c, imp, ni, reg, nr))
		buf_adds(&b, "After the change the guest waits far less (what the application feels), while latency "
			     "below the guest rose. Better: ");
	else if (ni && nr)
		buf_adds(&b, "Mixed result: latency improved in places and regressed in others. Better: ");
	if (ni) {
		for (size_t i = 0; i < ni; i++) {
			if (i)
				buf_adds(&b, "; ");
			describe_row(c, imp[i], &b);
		}
		buf_addc(&b, '.');
	}
	if (nr) {
		buf_adds(&b, ni ? " Worse: " : "");
		for (size_t i = 0; i < nr; i++) {
			if (i)
				buf_adds(&b, "; ");
			describe_row(c, reg[i], &b);
		}
		buf_addc(&b, '.');
	}
	int readable[2] = {readable_caps(&c->side[0].m), readable_caps(&c->side[1].m)};
	if (!readable[0] || !readable[1]) {
		buf_printf(&b, "Nothing to compare: no capture of the %s side could be read.",
			   !readable[0] && !readable[1] ? "before or the after" : !readable[0] ? "before" : "after");
	} else if (!ni && !nr) {
		if (s->latency[CV_UNCHANGED])
			buf_printf(&b, "No material change in latency: every assessed latency comparison (%d) is unchanged "
				       "(the %.0f%% interval of the median difference contains 0, or the change is below "
				       "%g%% or its absolute floor).",
				   s->latency[CV_UNCHANGED], conf, c->o.material_pct);
		else
			buf_adds(&b, "No latency could be compared: no busy entity has latency values on both sides.");
	}
	/* the work done, for the headline entity */
	const struct cmp_row *head = ni ? imp[0] : nr ? reg[0] : NULL;
	if (head) {
		const struct cmp_pair *p = &c->pairs[head->pair];
		const struct cmp_metric_spec *sp = head->spec;
		const struct cmp_row *io = sp->load >= 0 ? find_row(c, head->pair, (enum metric)sp->load) : NULL;
		if (io && io->verdict != CV_NOT_ASSESSED && io->s[0].median > 0) {
			char l[512];
			compare_pair_label(p, CMP_AFTER, l, sizeof l);
			bool more = io->verdict == CV_HIGHER, less = io->verdict == CV_LOWER;
			buf_printf(&b, " The after side did %s (%s, median ", more ? "more work" : less ? "less work" : "about the same work", l);
			fnum(&b, io->s[0].median);
			buf_adds(&b, " -> ");
			fnum(&b, io->s[1].median);
			buf_adds(&b, " IO/s");
			if (more || less)
				buf_printf(&b, ", %.1fx", io->s[1].median / io->s[0].median);
			buf_addc(&b, ')');
			if ((more && head->verdict == CV_IMPROVED) || (less && head->verdict == CV_REGRESSED))
				buf_printf(&b, ": %s latency at %s load, so the amount of work does not explain the change.",
					   head->verdict == CV_IMPROVED ? "lower" : "higher", more ? "higher" : "lower");
			else if (more || less)
				buf_adds(&b, ", which may explain part of the change: see latency at equal load.");
			else
				buf_addc(&b, '.');
			const struct cmp_loadbins *lb = bins_of_row(c, head);
			if (head->has_lm && lb) {
				const struct cmp_loadmatch *lm = &head->lm;
				if (lm->comparable) {
					buf_printf(&b, " At equal load (%d IOPS bin%s, ", lm->bins, lm->bins == 1 ? "" : "s");
					fnum(&b, lm->load_lo);
					buf_adds(&b, "-");
					fnum(&b, lm->load_hi);
					buf_adds(&b, " IO/s");
					if (lm->load_hi <= lb->load_p50[0] && lm->load_hi <= lb->load_p50[1]) {
						buf_adds(&b, ", below both sides' median load of ");
						fnum(&b, lb->load_p50[0]);
						buf_adds(&b, " and ");
						fnum(&b, lb->load_p50[1]);
						buf_adds(&b, " IO/s");
					}
					buf_adds(&b, ") the change is ");
					fpct(&b, lm->change_pct);
					buf_printf(&b, " (%.0f%% CI ", conf);
					fpct(&b, lm->ci[0]);
					buf_adds(&b, " .. ");
					fpct(&b, lm->ci[1]);
					buf_printf(&b, "): %s", cmp_verdict_names[lm->verdict]);
					if (lm->reason == CR_BELOW_FLOOR)
						buf_printf(&b, " (the difference is below the %g ms floor)", sp->floor);
					else if (lm->reason == CR_BELOW_PCT)
						buf_printf(&b, " (less than %g%%)", c->o.material_pct);
					if (lm->verdict == CV_UNCHANGED && head->verdict != CV_UNCHANGED &&
					    lm->load_hi <= lb->load_p50[0] && lm->load_hi <= lb->load_p50[1])
						buf_adds(&b, " - the difference is made at the higher loads, where the two sides "
							     "do not overlap");
					buf_addc(&b, '.');
				} else {
					buf_printf(&b, " The load differs too much to compare latency at equal load (%s).", lm->note);
				}
			}
		}
	}
	/* findings */
	if (!readable[0] || !readable[1]) {
		buf_adds(&b, " Findings cannot be compared without a readable capture of each side.");
	} else if (c->nfd) {
		buf_adds(&b, " Findings: ");
		int groups = 0;
		list_findings(c, CF_GONE, &b, &groups);
		list_findings(c, CF_NEW, &b, &groups);
		if (s->bottleneck > 0)
			buf_adds(&b, " - the bottleneck moved down a layer");
		else if (s->bottleneck < 0)
			buf_adds(&b, " - the bottleneck moved up a layer");
		if (!s->findings[CF_NEW] && s->findings[CF_GONE])
			buf_printf(&b, "%sno new finding", groups ? "; " : "");
		list_findings(c, CF_STILL, &b, &groups);
		buf_addc(&b, '.');
	} else {
		buf_adds(&b, " No findings on either side.");
	}
	/* DOMAIN.md 6: device latency does not improve by itself and may rise as deeper guest queues
	 * push more IO down */
	bool guest_better = false;
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].verdict == CV_IMPROVED && c->pairs[c->rows[i].pair].layer == LAYER_GUEST &&
		    c->rows[i].spec->kind == CK_LATENCY)
			guest_better = true;
	if (guest_better) {
		for (size_t i = 0; i < c->nrows; i++) {
			const struct cmp_row *r = &c->rows[i];
			if (r->verdict == CV_REGRESSED && r->spec->kind == CK_LATENCY &&
			    (c->pairs[r->pair].layer == LAYER_DEVICE || c->pairs[r->pair].layer == LAYER_ADAPTER)) {
				buf_adds(&b, " Device latency rose while the guest's fell: ");
				describe_row(c, r, &b);
				buf_adds(&b, " - the deeper guest queue now pushes more IO down to the device and array; "
					     "check the array before raising queue depths further.");
				if (!s->bottleneck)
					s->bottleneck = 1;
				break;
			}
		}
	}
	bool guest = false;
	for (size_t i = 0; i < c->npairs && !guest; i++)
		guest = c->pairs[i].layer == LAYER_GUEST;
	if (!guest && readable[0] && readable[1])
		buf_adds(&b, " Only host captures were compared: IOs waiting inside the guest, above the virtual SCSI "
			     "controller, do not show in esxtop - add the guests' perfmon captures of both periods.");
	int assessed = 0;
	for (int v = 0; v < CV_COUNT; v++)
		if (v != CV_NOT_ASSESSED)
			assessed += s->verdicts[v];
	buf_printf(&b, " Of %d assessed comparisons: %d improved, %d regressed, %d unchanged, %d more/%d less "
		       "(work or queue occupancy, neither better nor worse); %d not assessed.",
		   assessed, s->verdicts[CV_IMPROVED], s->verdicts[CV_REGRESSED], s->verdicts[CV_UNCHANGED],
		   s->verdicts[CV_HIGHER], s->verdicts[CV_LOWER], s->verdicts[CV_NOT_ASSESSED]);
	c->verdict = arena_strndup(&c->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
}

void compare_run(struct compare *c, const struct compare_opts *o, struct diag *d)
{
	c->o = *o;
	if (c->o.resamples < 100)
		c->o.resamples = 100;
	if (!(c->o.confidence > 0 && c->o.confidence < 1))
		c->o.confidence = 0.95;
	for (int s = 0; s < 2; s++)
		analysis_run(&c->side[s], &c->o.ao[s]);
	match(c, d);
	build_rows(c);
	if (readable_caps(&c->side[0].m) && readable_caps(&c->side[1].m))
		findings_diff(c);
	summarise(c);
}
