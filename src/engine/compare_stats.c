/* compare_stats.c — the statistics of a comparison: per entity and metric each side's figures
 * (median, p95/p99, time above each band of the rules, the same over the busy phase of
 * compare_busy.c) as differences with circular block-bootstrap intervals (Politis-White block
 * length, idle and busy phases resampled separately, one set of resamples for every figure of a
 * row), each figure's verdict and the row's outcome, and latency at equal load (IOPS bins,
 * latency vs outstanding IO). */
#include "compare_int.h"
#include "prng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const cmp_fig_names[CF_COUNT] = {"median",   "p95",      "p99",      "time_above",      "time_above",
					     "busy_p50", "busy_p95", "busy_p99", "busy_time_above", "busy_time_above"};

bool cmp_fig_is_share(enum cmp_fig f)
{
	return f == CF_OVER0 || f == CF_OVER1 || f == CF_BUSY_OVER0 || f == CF_BUSY_OVER1;
}

/* The quantile a figure is of (NaN for shares). */
static double fig_q(enum cmp_fig f)
{
	switch (f) {
	case CF_MEDIAN: case CF_BUSY_P50: return 0.5;
	case CF_P95: case CF_BUSY_P95: return 0.95;
	case CF_P99: case CF_BUSY_P99: return 0.99;
	default: return NAN;
	}
}

static bool fig_busy(enum cmp_fig f)
{
	return f >= CF_BUSY_P50;
}

/* ---- small statistics ---- */

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

/* Quantile p of a[0..n) as sorted_q would give it, by selection (rearranges a). */
static double select_q(double *a, size_t n, double p)
{
	if (!n)
		return NAN;
	double h = p * (double)(n - 1);
	size_t i = (size_t)h;
	double lo = select_k(a, n, i);
	if (i + 1 >= n || h == (double)i)
		return lo;
	double hi = a[i + 1];
	for (size_t k = i + 2; k < n; k++)
		if (a[k] < hi)
			hi = a[k];
	return lo + (h - (double)i) * (hi - lo);
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

/* FNV-1a over s, for the per-comparison seed. */
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
 * blocks of length L that start anywhere and wrap around; the stream is base/prng's splitmix64. */
static void cbb(uint64_t *r, const size_t *pos, size_t n, size_t L, size_t *out)
{
	if (L < 1)
		L = 1;
	size_t k = 0;
	while (k < n) {
		size_t st = splitmix_index(r, n);
		for (size_t j = 0; j < L && k < n; j++) {
			out[k++] = pos[st];
			if (++st == n)
				st = 0;
		}
	}
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

static double median_of(double *a, size_t n)
{
	return select_q(a, n, 0.5);
}

/* ---- the values of one row ---- */

struct vals {
	double *x;               /* the row's values (bucket means; per-load rows: ms of queue per IO) */
	double *load, *out;      /* IOPS and outstanding IO for the load bins and the slope (NaN) */
	double *w;               /* rows in the bucket */
	double *sh[CMP_MAX_THR]; /* rows above each threshold in the bucket (estimated) */
	unsigned char *busy;     /* in the busy phase */
	size_t n, nbusy;
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

/* Values of one row on one side, one per downsampled bucket where the metric has a value. Raw
 * shares above the thresholds go to over_rows (the figures of cmp_stats); the values' own shares
 * to sh[] (not for per-load rows, whose values are not in the thresholds' unit). */
static void gather(const struct compare *c, const struct cmp_pair *p, int s, const struct cmp_metric_spec *sp,
		   const double *thr, bool per_load, struct vals *v)
{
	memset(v, 0, sizeof *v);
	size_t cap = 0;
	for (size_t i = 0; i < p->nents[s]; i++) {
		const struct entity *e = cmp_ent(c, p, s, i);
		if (e->series[sp->metric] >= 0)
			cap += c->side[s].m.caps[e->capture].ds.nb;
	}
	size_t m = cap ? cap : 1;
	v->x = xmalloc(m * sizeof *v->x);
	v->load = xmalloc(m * sizeof *v->load);
	v->out = xmalloc(m * sizeof *v->out);
	v->w = xmalloc(m * sizeof *v->w);
	for (int t = 0; t < CMP_MAX_THR; t++)
		v->sh[t] = xcalloc(m, sizeof *v->sh[t]);
	v->busy = xcalloc(m, 1);
	signed char *fl = xmalloc(m);
	bool ge = sp->kind != CK_LATENCY;
	double amin = ACTIVE_MIN(c);
	int lm = cmp_layer_load(p->layer);
	for (size_t i = 0; i < p->nents[s]; i++) {
		const struct entity *e = cmp_ent(c, p, s, i);
		if (e->series[sp->metric] < 0)
			continue;
		const struct dstore *d = &c->side[s].m.caps[e->capture].ds;
		size_t si = (size_t)e->series[sp->metric];
		for (size_t k = 0; k < d->nb; k++) {
			double x = ds_mean(d, si, k);
			if (isnan(x))
				continue;
			double cnt = ds_count(d, si, k);
			double sh[CMP_MAX_THR] = {0, 0};
			for (int t = 0; t < CMP_MAX_THR; t++)
				if (!isnan(thr[t]))
					sh[t] = cnt * bucket_share_above(ds_min(d, si, k), x, ds_max(d, si, k), thr[t], ge);
			v->rows += cnt;
			for (int t = 0; t < CMP_MAX_THR; t++)
				v->over_rows[t] += sh[t];
			double l = sp->load >= 0 ? cmp_dsv(e, d, sp->load, k) : NAN, o = NAN;
			if (sp->out[0] >= 0 && e->series[sp->out[0]] >= 0) {
				o = cmp_dsv(e, d, sp->out[0], k);
				double o2 = cmp_dsv(e, d, sp->out[1], k);
				if (!isnan(o2) && !isnan(o))
					o += o2;
			}
			if (per_load) {
				/* Little's law: a queue per unit of load is the wait per IO */
				if (!(l >= amin) || !(amin > 0 || l > 0))
					continue;
				x = 1000 * x / l;
			}
			const char *from;
			double dem = cmp_demand(e, d, k, &from), io = lm >= 0 ? cmp_dsv(e, d, lm, k) : NAN;
			fl[v->n] = (signed char)cmp_busy_flag(&p->busy[s], dem, io, amin);
			v->x[v->n] = x;
			v->load[v->n] = l;
			v->out[v->n] = o;
			v->w[v->n] = cnt;
			for (int t = 0; t < CMP_MAX_THR; t++)
				v->sh[t][v->n] = per_load ? 0 : sh[t];
			v->n++;
		}
	}
	/* values without a load join their neighbour in time */
	int last = -1;
	for (size_t i = 0; i < v->n; i++) {
		if (fl[i] < 0)
			fl[i] = (signed char)last;
		else
			last = fl[i];
	}
	for (size_t i = v->n; i-- > 0;)
		if (fl[i] < 0)
			fl[i] = (signed char)(i + 1 < v->n ? fl[i + 1] : 0);
	for (size_t i = 0; i < v->n; i++) {
		v->busy[i] = fl[i] > 0;
		v->nbusy += v->busy[i];
	}
	free(fl);
}

static void vals_free(struct vals *v)
{
	free(v->x);
	free(v->load);
	free(v->out);
	free(v->w);
	for (int t = 0; t < CMP_MAX_THR; t++)
		free(v->sh[t]);
	free(v->busy);
}

/* ---- resampling ---- */

/* The strata of one side: idle and busy resampled separately when the busy phase is distinct
 * (the day's workload shape is kept, only the variation within each phase is resampled), each
 * with its own Politis-White block length; positions in time order. */
struct strata {
	int n;
	size_t *pos[2], len[2], block[2];
};

static void strata_build(struct strata *t, const struct vals *v, bool split)
{
	memset(t, 0, sizeof *t);
	size_t busy = 0;
	for (size_t i = 0; i < v->n; i++)
		busy += v->busy[i];
	t->n = split && busy > 0 && busy < v->n ? 2 : 1;
	for (int k = 0; k < t->n; k++)
		t->pos[k] = xmalloc((v->n ? v->n : 1) * sizeof *t->pos[k]);
	for (size_t i = 0; i < v->n; i++) {
		int k = t->n == 2 ? v->busy[i] : 0;
		t->pos[k][t->len[k]++] = i;
	}
	double *tmp = xmalloc((v->n ? v->n : 1) * sizeof *tmp);
	for (int k = 0; k < t->n; k++) {
		for (size_t i = 0; i < t->len[k]; i++)
			tmp[i] = v->x[t->pos[k][i]];
		t->block[k] = pw_block(tmp, t->len[k]);
	}
	free(tmp);
}

static void strata_free(struct strata *t)
{
	for (int k = 0; k < t->n; k++)
		free(t->pos[k]);
}

/* The values in sorted order and each value's rank (ties by position): a resample's order
 * statistics are then read from counts per rank, one pass for every quantile of the row, which
 * is several times faster than selecting among copied values. */
struct ranked {
	double *sorted;
	size_t *rank, *ord;
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
	rk->ord = xmalloc(m * sizeof *rk->ord);
	for (size_t i = 0; i < n; i++)
		rk->ord[i] = i;
	rank_base = x;
	qsort(rk->ord, n, sizeof *rk->ord, rank_cmp);
	rk->sorted = xmalloc(m * sizeof *rk->sorted);
	rk->rank = xmalloc(m * sizeof *rk->rank);
	for (size_t i = 0; i < n; i++) {
		rk->sorted[i] = x[rk->ord[i]];
		rk->rank[rk->ord[i]] = i;
	}
}

static void ranked_free(struct ranked *rk)
{
	free(rk->sorted);
	free(rk->rank);
	free(rk->ord);
}

/* Quantiles ps[0..np) (ascending) of the multiset given by counts per rank (total values) and
 * per block of CMP_BLK ranks, interpolated between order statistics as sorted_q does. An order
 * statistic is found by skipping whole blocks, then counting within one; those in the lower half
 * from the bottom, the others from the top. */
#define MAXQ 3
#define CMP_BLK_BITS 5
#define CMP_BLK (1u << CMP_BLK_BITS)
static void count_quantiles(const uint32_t *cnt, const uint32_t *blk, const double *sorted, size_t nr, size_t total,
			    const double *ps, int np, double *out)
{
	if (!total) {
		for (int j = 0; j < np; j++)
			out[j] = NAN;
		return;
	}
	size_t want[2 * MAXQ];
	double val[2 * MAXQ], frac[MAXQ];
	for (int j = 0; j < np; j++) {
		double h = ps[j] * (double)(total - 1);
		size_t lo = (size_t)h;
		frac[j] = h - (double)lo;
		want[2 * j] = lo;
		want[2 * j + 1] = lo + 1 < total ? lo + 1 : lo;
	}
	int nt = 2 * np;
	size_t nblk = (nr + CMP_BLK - 1) >> CMP_BLK_BITS;
	/* from the bottom: order statistic w is the first rank where the running count exceeds w */
	size_t acc = 0, j = 0;
	int t = 0;
	for (; t < nt && want[t] < total / 2; t++) {
		while (j < nblk && acc + blk[j] <= want[t])
			acc += blk[j++];
		size_t a2 = acc, r = j << CMP_BLK_BITS;
		while (r < nr && (a2 += cnt[r]) <= want[t])
			r++;
		val[t] = sorted[r < nr ? r : nr - 1];
	}
	/* from the top: order statistic w is the (total - 1 - w)-th from the top */
	acc = 0;
	size_t jb = nblk; /* blocks at and above jb are counted in acc */
	for (int u = nt - 1; u >= t; u--) {
		size_t back = total - 1 - want[u];
		while (jb > 0 && acc + blk[jb - 1] <= back)
			acc += blk[--jb];
		size_t a2 = acc, end = jb << CMP_BLK_BITS, r = end < nr ? end : nr;
		size_t lo = jb ? (jb - 1) << CMP_BLK_BITS : 0;
		while (r > lo) {
			r--;
			if ((a2 += cnt[r]) > back)
				break;
		}
		val[u] = sorted[r];
	}
	for (int k = 0; k < np; k++)
		out[k] = frac[k] > 0 ? val[2 * k] + frac[k] * (val[2 * k + 1] - val[2 * k]) : val[2 * k];
}

/* What one side of a row's bootstrap works on: every value ranked, the busy values ranked among
 * themselves, and the values of the matched load bins sorted by bin, then value. */
struct side {
	const struct vals *v;
	struct strata st;
	struct ranked rk;
	size_t *idx;
	uint32_t *cnt, *blk;     /* per rank, per block of CMP_BLK ranks */
	size_t nbz;              /* busy values */
	size_t *brank;           /* each value's rank among the busy ones, bspare when not busy */
	size_t bspare;           /* nbz rounded up to a whole block */
	double *bsorted;
	uint32_t *cntb, *blkb;
	int nbins;
	size_t *binx;            /* matched load bin of each value, nbins when none */
	size_t *lrank;           /* each value's place in the bin-sorted values, nl when none */
	double *lsorted;
	size_t *loff;            /* bin b is lsorted[loff[b] .. loff[b + 1]) */
	uint32_t *cntl, *blkl;   /* per place, per block of CMP_LBLK places */
	size_t *bintot;
};

/* What a row computes. */
struct want {
	bool q[CF_COUNT];        /* figure f is used */
	bool busy;               /* any busy figure */
	bool shares;             /* any share figure */
	int nbins;               /* matched load bins (0: none) */
	const double *w;         /* their weights */
	bool slope;
	const bool *act[2];
};

/* The quantiles of the whole (busy) values a row wants, ascending: their p and figure. */
static int wanted_q(const struct want *wt, bool busy, double ps[MAXQ], int fig[MAXQ])
{
	static const enum cmp_fig whole[MAXQ] = {CF_MEDIAN, CF_P95, CF_P99}, bz[MAXQ] = {CF_BUSY_P50, CF_BUSY_P95, CF_BUSY_P99};
	static const double p[MAXQ] = {0.5, 0.95, 0.99};
	int n = 0;
	for (int k = 0; k < MAXQ; k++)
		if (wt->q[busy ? bz[k] : whole[k]]) {
			ps[n] = p[k];
			fig[n++] = busy ? bz[k] : whole[k];
		}
	return n;
}

/* The first place r in [r, end) of the bin-sorted counts where the running count (*acc, the
 * count before r) passes t; whole blocks of CMP_LBLK places inside [r, end) are skipped by their
 * block count. end when it does not. */
#define CMP_LBLK_BITS 3
#define CMP_LBLK (1u << CMP_LBLK_BITS)
static size_t bin_order_stat(const struct side *sd, size_t r, size_t end, size_t *acc, size_t t)
{
	while (r < end) {
		if ((r & (CMP_LBLK - 1)) == 0 && r + CMP_LBLK <= end && *acc + sd->blkl[r >> CMP_LBLK_BITS] <= t) {
			*acc += sd->blkl[r >> CMP_LBLK_BITS];
			r += CMP_LBLK;
			continue;
		}
		if (*acc + sd->cntl[r] > t)
			return r;
		*acc += sd->cntl[r++];
	}
	return end;
}

/* The figures of one side over the values idx[0..n) (a resample; NULL: every value): fig[f]
 * (NaN when not computed or not computable), and the bin medians med[0..nbins). */
static void side_figures(struct side *sd, const struct want *wt, const size_t *idx, size_t n, double fig[CF_COUNT],
			 double *med)
{
	const struct vals *v = sd->v;
	for (int f = 0; f < CF_COUNT; f++)
		fig[f] = NAN;
	memset(sd->cnt, 0, v->n * sizeof *sd->cnt);
	memset(sd->blk, 0, ((v->n >> CMP_BLK_BITS) + 1) * sizeof *sd->blk);
	bool busy = wt->busy && sd->nbz, bins = wt->nbins > 0, shares = wt->shares;
	if (busy) {
		memset(sd->cntb, 0, (sd->bspare + 1) * sizeof *sd->cntb);
		memset(sd->blkb, 0, ((sd->bspare >> CMP_BLK_BITS) + 1) * sizeof *sd->blkb);
	}
	if (bins) {
		memset(sd->cntl, 0, (sd->loff[wt->nbins] + 1) * sizeof *sd->cntl);
		memset(sd->blkl, 0, ((sd->loff[wt->nbins] >> CMP_LBLK_BITS) + 1) * sizeof *sd->blkl);
		memset(sd->bintot, 0, ((size_t)wt->nbins + 1) * sizeof *sd->bintot);
	}
	double W = 0, S0 = 0, S1 = 0, WB = 0, SB0 = 0, SB1 = 0;
	const size_t *rank = sd->rk.rank;
	/* no data-dependent branch: values outside the busy phase and the matched bins count in a
	 * spare slot past the end (brank = nbz, lrank = nl, bin = nbins) */
	if (!busy && !bins && !shares) {
		for (size_t k = 0; k < n; k++) {
			size_t r = rank[idx ? idx[k] : k];
			sd->cnt[r]++;
			sd->blk[r >> CMP_BLK_BITS]++;
		}
	} else {
		for (size_t k = 0; k < n; k++) {
			size_t i = idx ? idx[k] : k;
			size_t r = rank[i];
			sd->cnt[r]++;
			sd->blk[r >> CMP_BLK_BITS]++;
			if (shares) {
				double bz = v->busy[i];
				W += v->w[i];
				S0 += v->sh[0][i];
				S1 += v->sh[1][i];
				WB += bz * v->w[i];
				SB0 += bz * v->sh[0][i];
				SB1 += bz * v->sh[1][i];
			}
			if (busy) {
				size_t br = sd->brank[i];
				sd->cntb[br]++;
				sd->blkb[br >> CMP_BLK_BITS]++;
			}
			if (bins) {
				size_t lr = sd->lrank[i];
				sd->cntl[lr]++;
				sd->blkl[lr >> CMP_LBLK_BITS]++;
				sd->bintot[sd->binx[i]]++;
			}
		}
	}
	size_t nb = 0;
	if (busy)
		for (size_t j = 0; j < sd->bspare >> CMP_BLK_BITS; j++)
			nb += sd->blkb[j];
	double ps[MAXQ], q[MAXQ];
	int fg[MAXQ];
	int np = wanted_q(wt, false, ps, fg);
	count_quantiles(sd->cnt, sd->blk, sd->rk.sorted, v->n, n, ps, np, q);
	for (int j = 0; j < np; j++)
		fig[fg[j]] = q[j];
	if (shares) {
		fig[CF_OVER0] = W > 0 ? S0 / W : NAN;
		fig[CF_OVER1] = W > 0 ? S1 / W : NAN;
	}
	if (busy) {
		np = wanted_q(wt, true, ps, fg);
		count_quantiles(sd->cntb, sd->blkb, sd->bsorted, sd->nbz, nb, ps, np, q);
		for (int j = 0; j < np; j++)
			fig[fg[j]] = q[j];
		if (shares) {
			fig[CF_BUSY_OVER0] = WB > 0 ? SB0 / WB : NAN;
			fig[CF_BUSY_OVER1] = WB > 0 ? SB1 / WB : NAN;
		}
	}
	if (bins) {
		/* each bin's median: the two middle order statistics within its own segment (the
		 * segment holds tot values, so both are found) */
		for (int b = 0; b < wt->nbins; b++) {
			size_t tot = sd->bintot[b];
			med[b] = NAN;
			if (tot < 2)
				continue;
			size_t t1 = (tot - 1) / 2, t2 = tot / 2, acc = 0, end = sd->loff[b + 1];
			size_t r1 = bin_order_stat(sd, sd->loff[b], end, &acc, t1);
			if (r1 >= end)
				continue;
			size_t r2 = r1;
			if (acc + sd->cntl[r1] <= t2) {
				acc += sd->cntl[r1];
				r2 = bin_order_stat(sd, r1 + 1, end, &acc, t2);
				if (r2 >= end)
					continue;
			}
			med[b] = (sd->lsorted[r1] + sd->lsorted[r2]) / 2;
		}
	}
}

/* Weighted bin-median difference: num / wsum (ms) and num / den (percent), as cmp_loadmatch. */
static void lm_combine(const struct want *wt, const double *mb, const double *ma, double *diff, double *pct)
{
	double num = 0, den = 0, wsum = 0;
	for (int i = 0; i < wt->nbins; i++) {
		if (isnan(mb[i]) || isnan(ma[i]))
			continue;
		num += wt->w[i] * (ma[i] - mb[i]);
		den += wt->w[i] * mb[i];
		wsum += wt->w[i];
	}
	*diff = wsum > 0 ? num / wsum : NAN;
	*pct = den > 0 ? 100 * num / den : NAN;
}

/* Percentile interval of a[0..n) at conf; NaN unless at least 90% of the total resamples gave
 * a value. Rearranges a. */
static void interval(double *a, size_t n, size_t total, double conf, double out[2])
{
	out[0] = out[1] = NAN;
	if (!total || n < total * 9 / 10 || n < 2)
		return;
	out[0] = select_q(a, n, (1 - conf) / 2);
	out[1] = select_q(a, n, 1 - (1 - conf) / 2);
}

struct boot_res {
	double ci_diff[CF_COUNT][2], ci_pct[CF_COUNT][2];
	double lm_ci_diff[2], lm_ci_pct[2];
	double slope_ci_pct[2];
};

static void side_init(struct side *sd, const struct vals *v, bool split, int nbins, const int *bin)
{
	memset(sd, 0, sizeof *sd);
	sd->v = v;
	size_t n = v->n, m = n ? n : 1;
	strata_build(&sd->st, v, split);
	ranked_init(&sd->rk, v->x, n);
	sd->idx = xmalloc(m * sizeof *sd->idx);
	sd->cnt = xmalloc(m * sizeof *sd->cnt);
	sd->blk = xmalloc(((m >> CMP_BLK_BITS) + 1) * sizeof *sd->blk);
	sd->blkb = xmalloc(((m >> CMP_BLK_BITS) + 1) * sizeof *sd->blkb);
	/* the busy values in value order */
	sd->brank = xmalloc(m * sizeof *sd->brank);
	sd->bsorted = xmalloc(m * sizeof *sd->bsorted);
	sd->cntb = xmalloc((m + 1) * sizeof *sd->cntb);
	for (size_t r = 0; r < n; r++) {
		size_t i = sd->rk.ord[r];
		if (v->busy[i]) {
			sd->bsorted[sd->nbz] = v->x[i];
			sd->brank[i] = sd->nbz++;
		}
	}
	/* the spare slot of the values outside the busy phase: in a block of its own */
	sd->bspare = ((sd->nbz + CMP_BLK - 1) >> CMP_BLK_BITS) << CMP_BLK_BITS;
	sd->cntb = xrealloc(sd->cntb, (sd->bspare + 1) * sizeof *sd->cntb);
	sd->blkb = xrealloc(sd->blkb, ((sd->bspare >> CMP_BLK_BITS) + 1) * sizeof *sd->blkb);
	for (size_t i = 0; i < n; i++)
		if (!v->busy[i])
			sd->brank[i] = sd->bspare;
	/* the values of the matched bins by bin, then value (a counting sort of the ranks) */
	sd->nbins = nbins;
	if (nbins > 0) {
		sd->loff = xcalloc((size_t)nbins + 1, sizeof *sd->loff);
		for (size_t i = 0; i < n; i++)
			if (bin[i] >= 0)
				sd->loff[bin[i] + 1]++;
		for (int b = 0; b < nbins; b++)
			sd->loff[b + 1] += sd->loff[b];
		size_t *fill = xmalloc(((size_t)nbins) * sizeof *fill);
		memcpy(fill, sd->loff, (size_t)nbins * sizeof *fill);
		size_t nl = sd->loff[nbins];
		sd->lrank = xmalloc(m * sizeof *sd->lrank);
		sd->binx = xmalloc(m * sizeof *sd->binx);
		sd->lsorted = xmalloc((nl ? nl : 1) * sizeof *sd->lsorted);
		sd->cntl = xmalloc((nl + 1) * sizeof *sd->cntl);
		sd->blkl = xmalloc(((nl >> CMP_LBLK_BITS) + 1) * sizeof *sd->blkl);
		for (size_t r = 0; r < n; r++) {
			size_t i = sd->rk.ord[r];
			sd->lrank[i] = nl;
			sd->binx[i] = (size_t)nbins;
			if (bin[i] >= 0) {
				sd->lsorted[fill[bin[i]]] = v->x[i];
				sd->lrank[i] = fill[bin[i]]++;
				sd->binx[i] = (size_t)bin[i];
			}
		}
		free(fill);
		sd->bintot = xcalloc((size_t)nbins + 1, sizeof *sd->bintot);
	}
}

static void side_free(struct side *sd)
{
	strata_free(&sd->st);
	ranked_free(&sd->rk);
	free(sd->idx);
	free(sd->cnt);
	free(sd->blk);
	free(sd->blkb);
	free(sd->brank);
	free(sd->bsorted);
	free(sd->cntb);
	free(sd->loff);
	free(sd->lrank);
	free(sd->binx);
	free(sd->lsorted);
	free(sd->cntl);
	free(sd->blkl);
	free(sd->bintot);
}

/* R resamples of both sides; every figure of the row is computed from the same resamples. */
static void bootstrap(struct side sd[2], const struct want *wt, unsigned R, uint64_t seed, double conf,
		      struct boot_res *res)
{
	uint64_t r = seed;
	double *d[CF_COUNT], *p[CF_COUNT];
	size_t nd[CF_COUNT] = {0}, np[CF_COUNT] = {0};
	for (int f = 0; f < CF_COUNT; f++) {
		d[f] = wt->q[f] ? xmalloc(R * sizeof *d[f]) : NULL;
		p[f] = wt->q[f] ? xmalloc(R * sizeof *p[f]) : NULL;
	}
	double *ld = xmalloc(R * sizeof *ld), *lp = xmalloc(R * sizeof *lp), *sp = xmalloc(R * sizeof *sp);
	size_t nld = 0, nlp = 0, nsp = 0;
	size_t nb = wt->nbins > 0 ? (size_t)wt->nbins : 1;
	double *med[2] = {xmalloc(nb * sizeof *med[0]), xmalloc(nb * sizeof *med[1])};
	for (unsigned it = 0; it < R; it++) {
		double fig[2][CF_COUNT], sl[2] = {NAN, NAN};
		for (int s = 0; s < 2; s++) {
			size_t at = 0;
			for (int k = 0; k < sd[s].st.n; k++) {
				cbb(&r, sd[s].st.pos[k], sd[s].st.len[k], sd[s].st.block[k], sd[s].idx + at);
				at += sd[s].st.len[k];
			}
			side_figures(&sd[s], wt, sd[s].idx, sd[s].v->n, fig[s], med[s]);
			if (wt->slope)
				sl[s] = ols_slope(sd[s].v->out, sd[s].v->x, sd[s].idx, sd[s].v->n, wt->act[s], NULL);
		}
		for (int f = 0; f < CF_COUNT; f++) {
			if (!wt->q[f] || isnan(fig[0][f]) || isnan(fig[1][f]))
				continue;
			double df = fig[1][f] - fig[0][f];
			d[f][nd[f]++] = df;
			if (fig[0][f] != 0)
				p[f][np[f]++] = 100 * df / fabs(fig[0][f]);
		}
		if (wt->nbins > 0) {
			double x, y;
			lm_combine(wt, med[0], med[1], &x, &y);
			if (!isnan(x))
				ld[nld++] = x;
			if (!isnan(y))
				lp[nlp++] = y;
		}
		if (wt->slope && !isnan(sl[0]) && !isnan(sl[1]) && sl[0] > 0)
			sp[nsp++] = 100 * (sl[1] - sl[0]) / sl[0];
	}
	for (int f = 0; f < CF_COUNT; f++) {
		res->ci_diff[f][0] = res->ci_diff[f][1] = res->ci_pct[f][0] = res->ci_pct[f][1] = NAN;
		if (!wt->q[f])
			continue;
		interval(d[f], nd[f], R, conf, res->ci_diff[f]);
		interval(p[f], np[f], R, conf, res->ci_pct[f]);
		free(d[f]);
		free(p[f]);
	}
	interval(ld, nld, R, conf, res->lm_ci_diff);
	interval(lp, nlp, R, conf, res->lm_ci_pct);
	interval(sp, nsp, R, conf, res->slope_ci_pct);
	free(ld);
	free(lp);
	free(sp);
	free(med[0]);
	free(med[1]);
}

/* ---- verdicts ---- */

static bool excludes_zero(const double ci[2])
{
	return !isnan(ci[0]) && !isnan(ci[1]) && (ci[0] > 0 || ci[1] < 0);
}

/* An interval with one bound at the estimate (the other elsewhere): the resamples cannot move
 * the figure one way, e.g. a p99 that is the maximum of its values. It decides nothing. */
static bool degenerate(double est, const double ci[2])
{
	if (isnan(ci[0]) || isnan(ci[1]) || !(ci[0] < ci[1]))
		return false;
	double eps = 1e-9 * fmax(1, fmax(fabs(ci[0]), fabs(ci[1])));
	return fabs(ci[0] - est) <= eps || fabs(ci[1] - est) <= eps;
}

/* A change is called only when its whole interval lies beyond the material threshold: the data
 * show, at the confidence level, a change at least that large (not merely one that is not 0).
 * Several figures decide a row, each correlated with the others; this keeps a row's false calls
 * on unchanged captures rare without a multiplicity correction that would need far more
 * resamples to read extreme percentiles. ci is of the difference, cip of the percent change
 * (NaN when the before value is 0). */
static enum cmp_verdict judge(const struct compare *c, const struct cmp_metric_spec *sp, double diff, double pct,
			      const double ci[2], const double cip[2], enum cmp_reason *reason)
{
	*reason = CR_NONE;
	if (isnan(ci[0]) || isnan(ci[1])) {
		*reason = CR_NO_INTERVAL;
		return CV_NOT_ASSESSED;
	}
	if (degenerate(diff, ci)) {
		*reason = CR_DEGENERATE;
		return CV_NOT_ASSESSED;
	}
	if (!excludes_zero(ci)) {
		*reason = CR_CI_HAS_ZERO;
		return CV_UNCHANGED;
	}
	bool up = ci[0] > 0;
	double near = up ? ci[0] : -ci[1]; /* the bound nearest to 0, as a size */
	if (near < sp->floor) {
		*reason = CR_BELOW_FLOOR;
		return CV_UNCHANGED;
	}
	if (!isnan(pct) && !isnan(cip[0]) && !isnan(cip[1]) && (up ? cip[0] : -cip[1]) < c->o.material_pct) {
		*reason = CR_BELOW_PCT;
		return CV_UNCHANGED;
	}
	if (cmp_kind_lower_is_better(sp->kind))
		return up ? CV_REGRESSED : CV_IMPROVED;
	return up ? CV_HIGHER : CV_LOWER;
}

/* The verdict of one figure (struct cmp_figure); n[s] the values it is over on each side. */
static void judge_fig(const struct compare *c, const struct cmp_metric_spec *sp, enum cmp_fig f, struct cmp_figure *g,
		      const size_t n[2])
{
	g->reason = CR_NONE;
	g->verdict = CV_NOT_ASSESSED;
	if (isnan(g->v[0]) || isnan(g->v[1])) {
		g->reason = isnan(g->v[0]) ? CR_NO_BEFORE : CR_NO_AFTER;
		return;
	}
	double q = fig_q(f);
	if (!isnan(q) && q > 0.5)
		for (int s = 0; s < 2; s++)
			if ((1 - q) * (double)n[s] < CMP_TAIL_MIN - 1e-9) {
				g->reason = CR_FEW_TAIL;
				return;
			}
	if (!cmp_fig_is_share(f)) {
		g->verdict = judge(c, sp, g->diff, g->change_pct, g->ci_diff, g->ci, &g->reason);
		return;
	}
	/* a share of time: points, and relative to the larger share */
	const double *ci = g->ci_diff;
	if (isnan(ci[0]) || isnan(ci[1])) {
		g->reason = CR_NO_INTERVAL;
		return;
	}
	if (degenerate(g->diff, ci)) {
		g->reason = CR_DEGENERATE;
		return;
	}
	g->verdict = CV_UNCHANGED;
	double near = ci[0] > 0 ? ci[0] : -ci[1];
	if (!excludes_zero(ci))
		g->reason = CR_CI_HAS_ZERO;
	else if (near < CMP_SHARE_FLOOR)
		g->reason = CR_BELOW_FLOOR;
	else if (near < c->o.material_pct / 100 * fmax(g->v[0], g->v[1]))
		g->reason = CR_BELOW_PCT;
	else
		g->verdict = ci[0] > 0 ? CV_REGRESSED : CV_IMPROVED;
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
 * in matched-bin numbering (-1 = outside) through mb[s], the weights through w. A bin is matched
 * with at least CMP_BIN_MIN values and CMP_BIN_SHARE of each side's active values. */
static void load_bins(struct compare *c, struct cmp_row *row, const struct vals v[2], struct cmp_loadbins *lb,
		      int *mb[2], double **w, int *nmatched)
{
	int maxb = -1;
	int *raw[2];
	const struct cmp_pair *p = &c->pairs[row->pair];
	bool busy_only = p->busy[0].has && p->busy[1].has && (p->busy[0].distinct || p->busy[1].distinct);
	row->lm.busy_only = busy_only;
	for (int s = 0; s < 2; s++) {
		raw[s] = xmalloc((v[s].n ? v[s].n : 1) * sizeof *raw[s]);
		for (size_t i = 0; i < v[s].n; i++) {
			raw[s][i] = busy_only && !v[s].busy[i] ? -1 : bin_of(v[s].load[i], ACTIVE_MIN(c));
			if (raw[s][i] > maxb)
				maxb = raw[s][i];
		}
	}
	size_t nb = (size_t)(maxb + 1);
	size_t *cnt[2];
	double **bv[2];
	size_t need[2];
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
		need[s] = (size_t)ceil(CMP_BIN_SHARE * (double)m);
		if (need[s] < CMP_BIN_MIN)
			need[s] = CMP_BIN_MIN;
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
		b->matched = cnt[0][k] >= need[0] && cnt[1][k] >= need[1];
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
		lm->note = busy_only ? "no active busy-phase values on one side" : "idle on one side";
	else if (!nm)
		lm->note = busy_only ? "the busy phases' loads do not overlap: no IOPS bin has enough busy-phase samples on both sides"
				     : "the loads do not overlap: no IOPS bin has enough samples on both sides";
	else if (!lm->comparable)
		lm->note = busy_only ? "the busy phases' loads barely overlap: the matched IOPS bins hold too little of one side's busy phase"
				     : "the loads barely overlap: the matched IOPS bins hold too little of one side's time";
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
	st->median = median_of(tmp, v->n);
	free(tmp);
}

/* Which figures a row computes and which decide (doc/compare-json.md): the median always (it
 * decides only for occupancy, and for work without a busy phase); the tail, the time above each
 * band and the busy figures for the lower-is-better kinds; the busy median for work. */
static void row_figures_wanted(const struct cmp_row *row, const struct cmp_pair *p, bool per_load, struct want *wt)
{
	const struct cmp_metric_spec *sp = row->spec;
	memset(wt, 0, sizeof *wt);
	/* without a distinct busy phase on either side the busy phase is every active bucket: its
	 * median is the typical IO of the work (no idle hours to drown it) and decides; its tail and
	 * bands would repeat the whole capture's */
	bool has = p->busy[0].has && p->busy[1].has;
	/* ... unless the sides are busy for different shares of their time: then the whole capture's
	 * figures are context and the busy phase's tail and bands are what decides */
	bool busy = has && (p->busy[0].distinct || p->busy[1].distinct || !p->shares_comparable);
	wt->q[CF_MEDIAN] = true;
	if (cmp_kind_lower_is_better(sp->kind)) {
		wt->q[CF_P95] = wt->q[CF_P99] = true;
		bool bands = !per_load;
		wt->q[CF_OVER0] = bands && sp->thr[0] >= 0;
		wt->q[CF_OVER1] = bands && sp->thr[1] >= 0;
		wt->q[CF_BUSY_P50] = has;
		if (busy) {
			wt->q[CF_BUSY_P95] = wt->q[CF_BUSY_P99] = true;
			wt->q[CF_BUSY_OVER0] = wt->q[CF_OVER0];
			wt->q[CF_BUSY_OVER1] = wt->q[CF_OVER1];
		}
	} else if (sp->kind == CK_WORK && has) {
		wt->q[CF_BUSY_P50] = true;
	}
	for (int f = 0; f < CF_COUNT; f++) {
		wt->busy |= wt->q[f] && fig_busy((enum cmp_fig)f);
		wt->shares |= wt->q[f] && cmp_fig_is_share((enum cmp_fig)f);
	}
}

/* The row's outcome from its figures' verdicts. */
static void row_outcome(const struct compare *c, struct cmp_row *row, const struct cmp_pair *p)
{
	const struct cmp_metric_spec *sp = row->spec;
	bool lower = cmp_kind_lower_is_better(sp->kind);
	/* the whole capture's figures decide only when both sides spend comparable shares of their
	 * time busy, or when there is no busy phase to judge instead (compare.h) */
	bool whole = p->shares_comparable || !row->fig[CF_BUSY_P50].used;
	for (int f = 0; f < CF_COUNT; f++) {
		struct cmp_figure *g = &row->fig[f];
		g->decides = false;
		if (!g->used)
			continue;
		bool tail = !isnan(fig_q((enum cmp_fig)f)) && fig_q((enum cmp_fig)f) > 0.5;
		if (lower)
			/* a queue per unit of load is compared on its central figures: the tail of an
			 * instantaneous queue sample over an interval's rate is not a Little's-law quantity */
			g->decides = f != CF_MEDIAN && (fig_busy((enum cmp_fig)f) || whole) && !(row->per_load && tail) &&
				     !(tail && !p->widths_comparable);
		else if (sp->kind == CK_WORK)
			g->decides = row->fig[CF_BUSY_P50].used ? f == CF_BUSY_P50 : f == CF_MEDIAN;
		else
			g->decides = f == CF_MEDIAN;
	}
	/* too short for the tail and no busy phase: the median decides, with the bands */
	bool quantile = false;
	for (int f = 0; f < CF_COUNT; f++)
		quantile |= f != CF_MEDIAN && !cmp_fig_is_share((enum cmp_fig)f) && row->fig[f].decides &&
			    row->fig[f].verdict != CV_NOT_ASSESSED;
	if (lower && !quantile)
		row->fig[CF_MEDIAN].decides = true;
	row->better = row->worse = 0;
	bool higher = false, lowr = false, any_assessed = false;
	for (int f = 0; f < CF_COUNT; f++) {
		const struct cmp_figure *g = &row->fig[f];
		if (!g->used || !g->decides)
			continue;
		any_assessed |= g->verdict != CV_NOT_ASSESSED;
		row->better |= (unsigned)(g->verdict == CV_IMPROVED) << f;
		row->worse |= (unsigned)(g->verdict == CV_REGRESSED) << f;
		higher |= g->verdict == CV_HIGHER;
		lowr |= g->verdict == CV_LOWER;
	}
	/* latency at equal load decides like a figure (the outcome never contradicts it) */
	if (lower && row->has_lm && row->lm.comparable) {
		any_assessed |= row->lm.verdict != CV_NOT_ASSESSED;
		row->better |= (unsigned)(row->lm.verdict == CV_IMPROVED) << CMP_LM_BIT;
		row->worse |= (unsigned)(row->lm.verdict == CV_REGRESSED) << CMP_LM_BIT;
	}
	/* the figure whose reason the row gives: the busy tail, the tail, the busy median, the median */
	static const enum cmp_fig prim[] = {CF_BUSY_P95, CF_P95, CF_BUSY_P50, CF_MEDIAN};
	const struct cmp_figure *primary = NULL;
	for (int pass = 0; pass < 2 && !primary; pass++)
		for (size_t k = 0; k < sizeof prim / sizeof prim[0] && !primary; k++) {
			const struct cmp_figure *g = &row->fig[prim[k]];
			if (g->used && g->decides && (pass || g->verdict != CV_NOT_ASSESSED))
				primary = g;
		}
	for (int f = 0; f < CF_COUNT && !primary; f++)
		if (row->fig[f].used && row->fig[f].decides)
			primary = &row->fig[f];
	row->reason = CR_NONE;
	if (!any_assessed) {
		row->verdict = CV_NOT_ASSESSED;
		row->reason = primary ? primary->reason : CR_NO_INTERVAL;
		return;
	}
	if (lower && sp->load >= 0 && !p->comparable) {
		row->verdict = CV_NOT_COMPARABLE;
		row->reason = CR_NOT_COMPARABLE;
		return;
	}
	if (row->better && row->worse)
		row->verdict = CV_MIXED;
	else if (row->better)
		row->verdict = CV_IMPROVED;
	else if (row->worse)
		row->verdict = CV_REGRESSED;
	else if (higher != lowr)
		row->verdict = higher ? CV_HIGHER : CV_LOWER;
	else {
		row->verdict = CV_UNCHANGED;
		row->reason = primary && primary->verdict == CV_UNCHANGED ? primary->reason : CR_CI_HAS_ZERO;
	}
	(void)c;
}

static bool constant(const double *x, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (x[i] != x[0])
			return false;
	return true;
}

static bool shares_zero(const struct vals *v)
{
	for (int t = 0; t < CMP_MAX_THR; t++)
		for (size_t i = 0; i < v->n; i++)
			if (v->sh[t][i] != 0)
				return false;
	return true;
}

static void row_compute(struct compare *c, struct cmp_row *row)
{
	const struct cmp_pair *p = &c->pairs[row->pair];
	const struct cmp_metric_spec *sp = row->spec;
	double thr[CMP_MAX_THR];
	for (int t = 0; t < CMP_MAX_THR; t++)
		thr[t] = sp->thr[t] >= 0 ? rule_value(&c->rules, (enum rule_id)sp->thr[t]) : NAN;
	bool has_load = sp->load >= 0 && p->layer != LAYER_VM;
	bool per_load = sp->kind == CK_QUEUE && has_load;
	struct vals v[2];
	if (per_load) {
		for (int s = 0; s < 2; s++)
			gather(c, p, s, sp, thr, true, &v[s]);
		/* without the IOPS counter the queue is judged as it is */
		if (v[0].n < CMP_MIN_VALUES || v[1].n < CMP_MIN_VALUES) {
			vals_free(&v[0]);
			vals_free(&v[1]);
			per_load = false;
		}
	}
	if (!per_load)
		for (int s = 0; s < 2; s++)
			gather(c, p, s, sp, thr, false, &v[s]);
	row->per_load = per_load;
	for (int s = 0; s < 2; s++) {
		side_stats(c, p, s, sp, &v[s], &row->s[s]);
		if (per_load) { /* the raw queue's figures, as the rules read it */
			struct vals raw;
			gather(c, p, s, sp, thr, false, &raw);
			for (int t = 0; t < CMP_MAX_THR; t++)
				row->s[s].over[t] = sp->thr[t] >= 0 && raw.rows > 0 ? raw.over_rows[t] / raw.rows : NAN;
			vals_free(&raw);
		}
	}
	for (int f = 0; f < CF_COUNT; f++) {
		struct cmp_figure *g = &row->fig[f];
		memset(g, 0, sizeof *g);
		g->v[0] = g->v[1] = g->diff = g->change_pct = NAN;
		g->ci_diff[0] = g->ci_diff[1] = g->ci[0] = g->ci[1] = NAN;
		g->verdict = CV_NOT_ASSESSED;
	}
	row->diff = row->s[1].median - row->s[0].median;
	row->change_pct = row->s[0].median != 0 ? 100 * row->diff / fabs(row->s[0].median) : NAN;
	row->ci_diff[0] = row->ci_diff[1] = row->ci[0] = row->ci[1] = NAN;
	row->lm.verdict = CV_NOT_ASSESSED;
	row->lm.ci[0] = row->lm.ci[1] = row->lm.ci_diff[0] = row->lm.ci_diff[1] = NAN;
	bool latency = sp->kind == CK_LATENCY;
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
	struct want wt;
	row_figures_wanted(row, p, per_load, &wt);
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
		wt.nbins = row->lm.comparable ? nm : 0;
		wt.w = w;
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
			wt.slope = lb.has_slope;
			wt.act[0] = act[0];
			wt.act[1] = act[1];
		}
	}
	struct side sd[2];
	for (int s = 0; s < 2; s++) {
		side_init(&sd[s], &v[s], p->busy[s].distinct, wt.nbins, mb[s]);
		row->s[s].strata = (size_t)sd[s].st.n;
		row->s[s].block = 0;
		for (int k = 0; k < sd[s].st.n; k++)
			if (sd[s].st.block[k] > row->s[s].block)
				row->s[s].block = sd[s].st.block[k];
	}
	/* the estimates: the same figures over every value */
	double est[2][CF_COUNT];
	size_t nb = wt.nbins > 0 ? (size_t)wt.nbins : 1;
	double *med = xmalloc(nb * sizeof *med);
	for (int s = 0; s < 2; s++)
		side_figures(&sd[s], &wt, NULL, v[s].n, est[s], med);
	free(med);
	struct boot_res res;
	bool exact = constant(v[0].x, v[0].n) && constant(v[1].x, v[1].n) && shares_zero(&v[0]) && shares_zero(&v[1]);
	if (exact) {
		/* nothing varies: every resample gives the estimates */
		for (int f = 0; f < CF_COUNT; f++) {
			double d = est[1][f] - est[0][f];
			res.ci_diff[f][0] = res.ci_diff[f][1] = d;
			res.ci_pct[f][0] = res.ci_pct[f][1] = est[0][f] != 0 ? 100 * d / fabs(est[0][f]) : NAN;
		}
		res.lm_ci_diff[0] = res.lm_ci_diff[1] = row->lm.diff;
		res.lm_ci_pct[0] = res.lm_ci_pct[1] = row->lm.change_pct;
		res.slope_ci_pct[0] = res.slope_ci_pct[1] = NAN;
	} else {
		char label[512];
		compare_pair_label(p, CMP_BEFORE, label, sizeof label);
		uint64_t seed = fnv(fnv(fnv(0xcbf29ce484222325ULL ^ c->o.seed, layer_names[p->layer]), label),
				    metric_info[sp->metric].name);
		bootstrap(sd, &wt, c->o.resamples, seed, c->o.confidence, &res);
	}
	for (int f = 0; f < CF_COUNT; f++) {
		struct cmp_figure *g = &row->fig[f];
		if (!wt.q[f])
			continue;
		g->used = true;
		g->v[0] = est[0][f];
		g->v[1] = est[1][f];
		g->diff = est[1][f] - est[0][f];
		bool share = cmp_fig_is_share((enum cmp_fig)f);
		g->change_pct = !share && est[0][f] != 0 ? 100 * g->diff / fabs(est[0][f]) : NAN;
		g->ci_diff[0] = res.ci_diff[f][0];
		g->ci_diff[1] = res.ci_diff[f][1];
		g->ci[0] = share ? NAN : res.ci_pct[f][0];
		g->ci[1] = share ? NAN : res.ci_pct[f][1];
		size_t n[2];
		for (int s = 0; s < 2; s++)
			n[s] = fig_busy((enum cmp_fig)f) ? v[s].nbusy : v[s].n;
		judge_fig(c, sp, (enum cmp_fig)f, g, n);
	}
	{
		const struct cmp_figure *g = &row->fig[CF_MEDIAN];
		row->diff = g->diff;
		row->change_pct = g->change_pct;
		row->ci_diff[0] = g->ci_diff[0];
		row->ci_diff[1] = g->ci_diff[1];
		row->ci[0] = g->ci[0];
		row->ci[1] = g->ci[1];
	}
	if (row->has_lm && row->lm.comparable) {
		struct cmp_loadmatch *lm = &row->lm;
		lm->ci_diff[0] = res.lm_ci_diff[0];
		lm->ci_diff[1] = res.lm_ci_diff[1];
		lm->ci[0] = res.lm_ci_pct[0];
		lm->ci[1] = res.lm_ci_pct[1];
		lm->verdict = judge(c, sp, lm->diff, lm->change_pct, lm->ci_diff, lm->ci, &lm->reason);
	}
	row_outcome(c, row, p);
	if (row->has_lm) {
		lb.slope_ci[0] = res.slope_ci_pct[0];
		lb.slope_ci[1] = res.slope_ci_pct[1];
		if (!lb.has_slope)
			lb.slope_ci[0] = lb.slope_ci[1] = NAN;
		c->lb = xrealloc(c->lb, (c->nlb + 1) * sizeof *c->lb);
		c->lb[c->nlb++] = lb;
	}
	side_free(&sd[0]);
	side_free(&sd[1]);
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
	return strncmp(vdisk, vm, l) == 0 && vdisk_ctrl(vdisk) == vdisk + l;
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
	int load = cmp_layer_load(p->layer);
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

void cmp_build_rows(struct compare *c)
{
	for (size_t i = 0; i < c->npairs; i++) {
		struct cmp_pair *p = &c->pairs[i];
		pair_activity(c, p);
		cmp_pair_busy(c, p);
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
					any |= entity_sk(cmp_ent(c, p, s, e), sp->metric)->n > 0;
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
