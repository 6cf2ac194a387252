/* compare_stats.c — the statistics of a comparison: per entity and metric each side's figures,
 * the change of the median with a circular block-bootstrap interval (Politis-White block length,
 * load regimes resampled separately), and latency at equal load (IOPS bins, latency vs
 * outstanding IO). */
#include "compare_int.h"
#include "prng.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


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
		const struct entity *e = cmp_ent(c, p, s, i);
		if (e->series[sp->metric] >= 0)
			cap += c->side[s].m.caps[e->capture].ds.nb;
	}
	v->x = xmalloc((cap ? cap : 1) * sizeof *v->x);
	v->load = xmalloc((cap ? cap : 1) * sizeof *v->load);
	v->out = xmalloc((cap ? cap : 1) * sizeof *v->out);
	bool ge = sp->kind != CK_LATENCY;
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
static void cbb(uint64_t *r, const size_t *pos, size_t n, size_t L, size_t *out)
{
	if (L < 1)
		L = 1;
	size_t k = 0;
	while (k < n) {
		size_t st = splitmix_index(r, n);
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
	uint64_t r = seed;
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

void cmp_build_rows(struct compare *c)
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
					any |= cmp_ent(c, p, s, e)->sk[sp->metric].n > 0;
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
