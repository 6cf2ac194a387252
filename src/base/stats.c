/* stats.c — quantile sketch and downsampled series (see stats.h). */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define QS_LO 1e-4
#define QS_RATIO 1.02

static double qs_log_ratio;

void qs_init(struct qsketch *q)
{
	memset(q, 0, sizeof *q);
	q->min = INFINITY;
	q->max = -INFINITY;
}

/* log2(x) for x > 0 without libm's log: exponent from frexp, mantissa by a minimax polynomial on
 * [1, 2) (error < 1e-4, far below a bucket's width of log2(1.02) = 0.0286). This is the hot path of
 * `analyze` (one call per value). */
static double fast_log2(double x)
{
	/* x >= 1 and finite here: exponent and mantissa straight from the IEEE 754 bits */
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	int e = (int)((bits >> 52) & 0x7ff) - 1023;
	bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
	double m;
	memcpy(&m, &bits, sizeof m); /* [1, 2) */
	double t = m - 1.0;
	double p = t * (1.4425449 + t * (-0.7181452 + t * (0.4575485 + t * (-0.2779042 + t * (0.1217970 - t * 0.0258411)))));
	return (double)e + p;
}

static int qs_index(double v)
{
	if (!qs_log_ratio)
		qs_log_ratio = log2(QS_RATIO);
	int i = (int)(fast_log2(v / QS_LO) / qs_log_ratio);
	if (i < 0)
		i = 0;
	if (i >= QS_BUCKETS)
		i = QS_BUCKETS - 1;
	return i;
}

/* 29 staged bucket numbers, their count and the kept range fill the first cache line; the
 * counters follow. Only the pages (16 buckets) between the lowest and the highest bucket a series
 * used are kept, grown when a value falls outside them, and the counters are 1 byte wide until
 * one would pass 255, then 2, then 4 (a busy series spans about 100 of the 1,280 buckets: about
 * 170 bytes instead of 5 KiB). Counts, and so quantiles, are the same as with 1,280 counters. */
#define QS_STAGE 29
#define QS_PAGE 16
struct qs_block {
	uint16_t nstage;
	uint16_t stage[QS_STAGE];
	uint16_t lo;               /* first bucket kept, a multiple of QS_PAGE */
	uint8_t npages;            /* buckets lo .. lo + QS_PAGE * npages - 1 are kept */
	uint8_t shift;             /* a counter is 1 << shift bytes */
	unsigned char c[];         /* QS_PAGE * npages counters */
};

static uint32_t qs_cmax(const struct qs_block *k)
{
	return k->shift == 0 ? UINT8_MAX : k->shift == 1 ? UINT16_MAX : UINT32_MAX;
}

static uint32_t qs_get(const struct qs_block *k, unsigned i)
{
	switch (k->shift) {
	case 0: return k->c[i];
	case 1: return ((const uint16_t *)(const void *)k->c)[i];
	default: return ((const uint32_t *)(const void *)k->c)[i];
	}
}

static void qs_set(struct qs_block *k, unsigned i, uint32_t v)
{
	switch (k->shift) {
	case 0: k->c[i] = (uint8_t)v; break;
	case 1: ((uint16_t *)(void *)k->c)[i] = (uint16_t)v; break;
	default: ((uint32_t *)(void *)k->c)[i] = v; break;
	}
}

/* A copy of k keeping buckets [lo, lo + QS_PAGE * npages) with counters 1 << shift bytes wide
 * (a range and a width that hold k's); k is freed. */
static struct qs_block *qs_remake(struct qs_block *k, unsigned lo, unsigned npages, unsigned shift)
{
	struct qs_block *n = xcalloc(1, sizeof *n + ((size_t)npages * QS_PAGE << shift));
	n->nstage = k->nstage;
	memcpy(n->stage, k->stage, sizeof n->stage);
	n->lo = (uint16_t)lo;
	n->npages = (uint8_t)npages;
	n->shift = (uint8_t)shift;
	for (unsigned i = 0; i < (unsigned)k->npages * QS_PAGE; i++)
		qs_set(n, k->lo + i - lo, qs_get(k, i));
	free(k);
	return n;
}

/* k, grown to keep buckets mn .. mx as well. */
static struct qs_block *qs_cover(struct qs_block *k, unsigned mn, unsigned mx)
{
	unsigned lo = mn / QS_PAGE * QS_PAGE, hi = (mx / QS_PAGE + 1) * QS_PAGE;
	if (k->npages) {
		unsigned klo = k->lo, khi = klo + (unsigned)k->npages * QS_PAGE;
		if (lo >= klo && hi <= khi)
			return k;
		lo = lo < klo ? lo : klo;
		hi = hi > khi ? hi : khi;
	}
	return qs_remake(k, lo, (hi - lo) / QS_PAGE, k->shift);
}

static struct qs_block *qs_widen(struct qs_block *k)
{
	return qs_remake(k, k->lo, k->npages, k->shift + 1u);
}

static struct qs_block *qs_block_new(void)
{
	return xcalloc(1, sizeof(struct qs_block));
}

static void qs_flush(struct qsketch *q)
{
	struct qs_block *k = q->b;
	unsigned n = k->nstage;
	if (!n)
		return;
	unsigned mn = k->stage[0], mx = mn;
	for (unsigned i = 1; i < n; i++) {
		unsigned x = k->stage[i];
		mn = x < mn ? x : mn;
		mx = x > mx ? x : mx;
	}
	k = q->b = qs_cover(k, mn, mx);
	unsigned i = 0;
	for (;;) {
		const unsigned lo = k->lo;
		if (k->shift == 0) {
			uint8_t *c = k->c;
			for (; i < n && c[k->stage[i] - lo] < UINT8_MAX; i++)
				c[k->stage[i] - lo]++;
		} else if (k->shift == 1) {
			uint16_t *c = (uint16_t *)(void *)k->c;
			for (; i < n && c[k->stage[i] - lo] < UINT16_MAX; i++)
				c[k->stage[i] - lo]++;
		} else {
			uint32_t *c = (uint32_t *)(void *)k->c;
			for (; i < n; i++)
				c[k->stage[i] - lo]++;
		}
		if (i == n)
			break;
		k = q->b = qs_widen(k); /* a counter is full */
	}
	k->nstage = 0;
}

/* Stages bucket number x (flushing a full staging area). */
static void qs_stage(struct qsketch *q, uint16_t x)
{
	if (!q->b)
		q->b = qs_block_new();
	if (q->b->nstage == QS_STAGE)
		qs_flush(q);
	q->b->stage[q->b->nstage++] = x;
}

/* ---- the exact values ----
 * Kept as compactly as they can be given back bit for bit: a value that is m / 10^k exactly
 * (m and 10^k integers, so the division gives the double nearest the decimal m e-k, as the
 * parser's strtod did) is kept as m and k in 2 bytes (m < 2^14, k <= 3: "258.10", "0.03", "64")
 * or 4 bytes (m < 2^28, k <= 15); any other value (a computed rate, -0) makes the series keep
 * doubles. A series starts with 2-byte codes and widens its buffer (and recodes what it holds)
 * when a value does not fit. The width is in the low 2 bits of q->few. */
enum { FEW_W16, FEW_W32, FEW_WD };
#define FEW_PTR(q) ((void *)((q)->few & ~(uintptr_t)3))
#define FEW_W(q) ((int)((q)->few & 3))

static const double few_p10[16] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7,
				   1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

/* v as a code of width w (FEW_W16 or FEW_W32) in *code: false when it has none */
static bool few_code(double v, int w, uint32_t *code)
{
	double mmax = w == FEW_W16 ? 16383.0 : 268435455.0;
	int kmax = w == FEW_W16 ? 3 : 15, kbits = w == FEW_W16 ? 2 : 4;
	if (!(v <= mmax) || signbit(v))
		return false;
	for (int k = 0; k <= kmax; k++) {
		double s = v * few_p10[k];
		if (!(s <= mmax + 0.5))
			return false;
		uint32_t m = (uint32_t)(s + 0.5);
		if (m <= mmax && (double)m / few_p10[k] == v) {
			*code = m << kbits | (uint32_t)k;
			return true;
		}
	}
	return false;
}

static double few_get(const struct qsketch *q, size_t i)
{
	const void *p = FEW_PTR(q);
	switch (FEW_W(q)) {
	case FEW_W16: {
		uint16_t c = ((const uint16_t *)p)[i];
		return (double)(c >> 2) / few_p10[c & 3];
	}
	case FEW_W32: {
		uint32_t c = ((const uint32_t *)p)[i];
		return (double)(c >> 4) / few_p10[c & 15];
	}
	default:
		return ((const double *)p)[i];
	}
}

/* Stores v as the exact value number i (i < QS_EXACT; the buffer holds values 0 to i - 1),
 * allocating or widening the buffer as needed. */
static void few_put(struct qsketch *q, size_t i, double v)
{
	if (!q->few)
		q->few = (uintptr_t)xmalloc(QS_EXACT * sizeof(uint16_t)) | FEW_W16;
	int w = FEW_W(q);
	uint32_t c;
	if (w == FEW_W16 && few_code(v, FEW_W16, &c)) {
		((uint16_t *)FEW_PTR(q))[i] = (uint16_t)c;
		return;
	}
	if (w <= FEW_W32 && few_code(v, FEW_W32, &c)) {
		if (w == FEW_W16) {
			uint16_t *o = FEW_PTR(q);
			uint32_t *n = xmalloc(QS_EXACT * sizeof *n);
			for (size_t j = 0; j < i; j++) { /* m < 2^14, k <= 3: the same m and k */
				n[j] = (uint32_t)(o[j] >> 2) << 4 | (o[j] & 3u);
			}
			free(o);
			q->few = (uintptr_t)n | FEW_W32;
		}
		((uint32_t *)FEW_PTR(q))[i] = c;
		return;
	}
	if (w != FEW_WD) {
		double *n = xmalloc(QS_EXACT * sizeof *n);
		for (size_t j = 0; j < i; j++)
			n[j] = few_get(q, j);
		free(FEW_PTR(q));
		q->few = (uintptr_t)n | FEW_WD;
	}
	((double *)FEW_PTR(q))[i] = v;
}

static void few_free(struct qsketch *q)
{
	free(FEW_PTR(q));
	q->few = 0;
}

/* The exact values go to the counters (their zeros are counted already) and are dropped: the
 * sketch passes QS_EXACT values. Until then it has no counters at all. */
static void qs_unfew(struct qsketch *q)
{
	if (!q->few)
		return;
	/* the buffer is freed before the counters are made, which are made at once for the
	 * buckets of the values: a series trades its buffer for counters of about the same size
	 * (the allocator reuses the memory of one for the other) */
	uint16_t x[QS_EXACT];
	size_t nx = 0;
	for (uint64_t i = 0; i < q->n && i < QS_EXACT; i++) {
		double v = few_get(q, (size_t)i);
		if (v >= QS_LO)
			x[nx++] = (uint16_t)qs_index(v);
	}
	few_free(q);
	if (!nx)
		return;
	unsigned mn = x[0], mx = x[0];
	for (size_t i = 1; i < nx; i++) {
		mn = x[i] < mn ? x[i] : mn;
		mx = x[i] > mx ? x[i] : mx;
	}
	if (!q->b)
		q->b = qs_cover(qs_block_new(), mn, mx);
	for (size_t i = 0; i < nx; i++)
		qs_stage(q, x[i]);
}

void qs_add(struct qsketch *q, double v)
{
	if (!isfinite(v))
		return;
	if (v < 0)
		v = 0;
	if (q->n == QS_EXACT)
		qs_unfew(q);
	q->n++;
	q->sum += v;
	if (v < q->min)
		q->min = v;
	if (v > q->max)
		q->max = v;
	if (v < QS_LO)
		q->zeros++;
	if (q->n <= QS_EXACT) {
		few_put(q, (size_t)q->n - 1, v);
		return;
	}
	if (v >= QS_LO)
		qs_stage(q, (uint16_t)qs_index(v));
}

void qs_merge(struct qsketch *dst, const struct qsketch *src)
{
	if (!src->n)
		return;
	if (dst->n + src->n <= QS_EXACT) {
		/* both are exact values only (a sketch of at most QS_EXACT values has no counters) */
		for (uint64_t i = 0; i < src->n; i++)
			few_put(dst, (size_t)(dst->n + i), few_get(src, (size_t)i));
	} else {
		qs_unfew(dst);
		if (src->few) {
			for (uint64_t i = 0; i < src->n; i++) {
				double v = few_get(src, (size_t)i);
				if (v >= QS_LO)
					qs_stage(dst, (uint16_t)qs_index(v));
			}
		} else if (src->b) {
			const struct qs_block *s = src->b;
			if (!dst->b)
				dst->b = qs_block_new();
			if (s->npages) {
				struct qs_block *d = dst->b = qs_cover(dst->b, s->lo, s->lo + (unsigned)s->npages * QS_PAGE - 1);
				for (unsigned i = 0; i < (unsigned)s->npages * QS_PAGE; i++) {
					uint32_t v = qs_get(s, i);
					if (!v)
						continue;
					unsigned j = s->lo + i - d->lo;
					uint64_t sum = (uint64_t)qs_get(d, j) + v;
					while (sum > qs_cmax(d) && d->shift < 2)
						d = dst->b = qs_widen(d);
					qs_set(d, j, (uint32_t)sum);
				}
			}
			/* the staged values are staged again: every reader counts them */
			for (unsigned i = 0; i < s->nstage; i++)
				qs_stage(dst, s->stage[i]);
		}
	}
	dst->n += src->n;
	dst->zeros += src->zeros;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

double qs_quantile(const struct qsketch *q, double p)
{
	if (!q->n)
		return NAN;
	if (p <= 0)
		return q->min;
	if (p >= 1)
		return q->max;
	if (q->few && q->n <= QS_EXACT) {
		double x[QS_EXACT];
		size_t n = (size_t)q->n;
		for (size_t i = 0; i < n; i++)
			x[i] = few_get(q, i);
		qsort(x, n, sizeof *x, dbl_cmp);
		double h = p * (double)(n - 1);
		size_t lo = (size_t)h;
		double f = h - (double)lo; /* the weighted form cannot overflow near DBL_MAX */
		return lo + 1 < n ? x[lo] * (1 - f) + x[lo + 1] * f : x[n - 1];
	}
	double rank = p * (double)(q->n - 1);
	uint64_t need = (uint64_t)rank + 1, acc = q->zeros;
	if (acc >= need)
		return q->min < QS_LO ? q->min : 0;
	if (q->b) {
		/* the staged values, in bucket order, are counted as if they were in the counters */
		uint16_t st[QS_STAGE];
		unsigned ns = q->b->nstage;
		for (unsigned i = 0; i < ns; i++) {
			uint16_t x = q->b->stage[i];
			unsigned j = i;
			for (; j > 0 && st[j - 1] > x; j--)
				st[j] = st[j - 1];
			st[j] = x;
		}
		/* whole pages first (from the lowest kept or staged bucket to the highest): only the page
		 * where the rank is reached is walked bucket by bucket */
		const struct qs_block *k = q->b;
		unsigned klo = k->lo, khi = klo + (unsigned)k->npages * QS_PAGE;
		unsigned first = k->npages ? klo : QS_BUCKETS, last = k->npages ? khi : 0;
		if (ns) {
			unsigned a = st[0] / QS_PAGE * QS_PAGE, z = (st[ns - 1] / QS_PAGE + 1) * QS_PAGE;
			first = a < first ? a : first;
			last = z > last ? z : last;
		}
		unsigned si = 0;
		unsigned i = first;
		for (; i < last; i += QS_PAGE) {
			uint64_t sum = 0;
			if (i >= klo && i < khi)
				for (unsigned j = 0; j < QS_PAGE; j++)
					sum += qs_get(k, i - klo + j);
			unsigned sj = si;
			while (sj < ns && st[sj] < i + QS_PAGE)
				sj++;
			if (acc + sum + (sj - si) >= need)
				break;
			acc += sum + (sj - si);
			si = sj;
		}
		for (; i < last; i++) {
			if (i >= klo && i < khi)
				acc += qs_get(k, i - klo);
			while (si < ns && st[si] == i) {
				acc++;
				si++;
			}
			if (acc >= need) {
				/* geometric middle of the bucket, clamped to the exact extremes */
				double v = QS_LO * pow(QS_RATIO, (double)i + 0.5);
				if (v < q->min)
					v = q->min;
				if (v > q->max)
					v = q->max;
				return v;
			}
		}
	}
	return q->max;
}

double qs_mean(const struct qsketch *q)
{
	return q->n ? q->sum / (double)q->n : NAN;
}

void qs_free(struct qsketch *q)
{
	free(q->b);
	q->b = NULL;
	few_free(q);
}

/* ---- dstore ---- */

#define DS_PAD (64 / sizeof(struct ds_cell))

void ds_init(struct dstore *d, size_t nseries)
{
	memset(d, 0, sizeof *d);
	d->nseries = nseries;
	d->per_bucket = 1;
	size_t per = sizeof(struct ds_cell);
	size_t cap = DS_BUDGET_BYTES / ((nseries ? nseries : 1) * per);
	if (cap > DS_MAX_BUCKETS)
		cap = DS_MAX_BUCKETS;
	if (cap < DS_MIN_BUCKETS)
		cap = DS_MIN_BUCKETS;
	size_t n = nseries ? nseries : 1;
	bool over = n * (cap + DS_PAD) * per > DS_LIMIT_BYTES;
	if (over) {
		size_t fit = DS_LIMIT_BYTES / (n * per);
		cap = fit > DS_FLOOR_BUCKETS + DS_PAD ? fit - DS_PAD : DS_FLOOR_BUCKETS;
	}
	cap &= ~(size_t)1; /* compaction merges pairs */
	d->cap = cap;
	/* a store cut to fit DS_LIMIT_BYTES (as many buckets as before) spends one cell, not a cache
	 * line, to keep series apart: an odd stride of cells (16 bytes) is never a multiple of 4 KiB
	 * either, and 300,000 series of 22 buckets take 110 MB instead of 125 */
	d->stride = over ? cap + 1 : cap + DS_PAD;
	d->t0 = xcalloc(cap, sizeof *d->t0);
	d->t1 = xcalloc(cap, sizeof *d->t1);
	d->disc = xcalloc(cap, sizeof *d->disc);
	d->cell = xcalloc((nseries ? nseries : 1) * d->stride, sizeof *d->cell);
}

void ds_grow(struct dstore *d, size_t nseries)
{
	if (nseries <= d->nseries)
		return;
	size_t old = (d->nseries ? d->nseries : 1) * d->stride;
	d->cell = xrealloc(d->cell, nseries * d->stride * sizeof *d->cell);
	if (nseries * d->stride > old)
		memset(d->cell + old, 0, (nseries * d->stride - old) * sizeof *d->cell);
	if (!d->nseries)
		memset(d->cell, 0, d->stride * sizeof *d->cell);
	d->nseries = nseries;
}

/* Halves the resolution: bucket pairs (2k, 2k+1) merge into k. */
static void ds_compact(struct dstore *d)
{
	size_t half = d->nb / 2;
	for (size_t k = 0; k < half; k++) {
		d->t0[k] = d->t0[2 * k];
		d->t1[k] = d->t1[2 * k + 1];
		d->disc[k] = d->disc[2 * k] || d->disc[2 * k + 1];
	}
	for (size_t s = 0; s < d->nseries; s++) {
		struct ds_cell *c = d->cell + s * d->stride;
		for (size_t k = 0; k < half; k++) {
			const struct ds_cell a = c[2 * k], b = c[2 * k + 1];
			struct ds_cell t;
			if (a.cnt && b.cnt) {
				t.sum = a.sum + b.sum;
				t.min = a.min < b.min ? a.min : b.min;
				t.max = a.max > b.max ? a.max : b.max;
			} else if (a.cnt) {
				t.sum = a.sum, t.min = a.min, t.max = a.max;
			} else {
				t.sum = b.sum, t.min = b.min, t.max = b.max;
			}
			t.cnt = a.cnt + b.cnt;
			c[k] = t;
		}
		for (size_t k = half; k < d->cap; k++)
			c[k].cnt = 0;
	}
	d->nb = half;
	d->per_bucket *= 2;
}

void ds_row(struct dstore *d, int64_t t, bool discontinuity)
{
	if (d->nb == 0 || d->fill >= d->per_bucket) {
		if (d->nb == d->cap)
			ds_compact(d);
		d->nb++;
		d->fill = 0;
		d->t0[d->nb - 1] = t;
		d->disc[d->nb - 1] = false;
		/* after a compaction the last bucket may be half full: keep filling it */
	}
	size_t k = d->nb - 1;
	d->t1[k] = t;
	if (discontinuity)
		d->disc[k] = true;
	d->fill++;
}

void ds_set(struct dstore *d, size_t s, double v)
{
	if (!isfinite(v) || d->nb == 0)
		return;
	struct ds_cell *c = &d->cell[s * d->stride + d->nb - 1];
	float f = (float)v;
	/* the cell holds the bucket's sum until read (ds_mean divides): no division per value */
	if (c->cnt == 0) {
		c->sum = c->min = c->max = f;
	} else {
		c->sum += f;
		if (f < c->min)
			c->min = f;
		if (f > c->max)
			c->max = f;
	}
	c->cnt++;
}

double ds_mean(const struct dstore *d, size_t s, size_t k)
{
	const struct ds_cell *c = &d->cell[s * d->stride + k];
	return c->cnt ? (double)c->sum / c->cnt : NAN;
}

double ds_min(const struct dstore *d, size_t s, size_t k)
{
	const struct ds_cell *c = &d->cell[s * d->stride + k];
	return c->cnt ? (double)c->min : NAN;
}

double ds_max(const struct dstore *d, size_t s, size_t k)
{
	const struct ds_cell *c = &d->cell[s * d->stride + k];
	return c->cnt ? (double)c->max : NAN;
}

uint32_t ds_count(const struct dstore *d, size_t s, size_t k)
{
	return d->cell[s * d->stride + k].cnt;
}

void ds_free(struct dstore *d)
{
	free(d->t0);
	free(d->t1);
	free(d->disc);
	free(d->cell);
	memset(d, 0, sizeof *d);
}
