/* compare_busy.c — each entity's busy phase per side (see struct cmp_busy in compare.h): the
 * outstanding IO of every bucket (Little's law, from the best counters the layer has), Otsu's
 * split of its logarithm when it is clearly bimodal, the longest busy stretch and the medians of
 * the busy load, and whether the after side's busy phase reaches the before side's load. */
#include "compare_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int dcmp(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* Median of a[0..n) (rearranges a); NaN when n == 0. */
static double median_of(double *a, size_t n)
{
	if (!n)
		return NAN;
	qsort(a, n, sizeof *a, dcmp);
	return n % 2 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
}

/* Outstanding IO below this is idle (log of a load needs a floor). */
#define CMP_DEMAND_FLOOR 0.01

double cmp_dsv(const struct entity *e, const struct dstore *d, int m, size_t k)
{
	return m >= 0 && e->series[m] >= 0 ? ds_mean(d, (size_t)e->series[m], k) : NAN;
}

/* The outstanding IO of bucket k of entity e (Little's law, doc/domain.md §5) from the best counters its
 * layer has: guest Avg. Disk Queue Length, else Transfers/s x sec/Transfer, else reads and writes
 * x their latency, else Current Disk Queue Length (a point sample); virtual disk reads and writes
 * x their latency (a Hyper-V VHDX: its Queue Length); device and adapter Commands/s x GAVG, else ACTV +
 * QUED (a Hyper-V host disk: Avg. Disk Queue Length, else Transfers/s x sec/Transfer). NaN when none; *from
 * names the counters. */
double cmp_demand(const struct entity *e, const struct dstore *d, size_t k, const char **from)
{
	double a, b, x, y;
	switch (e->layer) {
	case LAYER_GUEST:
		if (!isnan(a = cmp_dsv(e, d, M_G_ADQL, k))) {
			*from = "guest_avg_queue";
			return a;
		}
		if (!isnan(a = cmp_dsv(e, d, M_G_XFERS, k)) && !isnan(b = cmp_dsv(e, d, M_G_LAT_T, k))) {
			*from = "guest_iops x guest_transfer_ms";
			return a * b / 1000;
		}
		a = cmp_dsv(e, d, M_G_READS, k), b = cmp_dsv(e, d, M_G_LAT_R, k);
		x = cmp_dsv(e, d, M_G_WRITES, k), y = cmp_dsv(e, d, M_G_LAT_W, k);
		if (!isnan(a) && !isnan(b) && !isnan(x) && !isnan(y)) {
			*from = "guest reads and writes x their latency";
			return (a * b + x * y) / 1000;
		}
		*from = "guest_current_queue";
		return cmp_dsv(e, d, M_G_CDQL, k);
	case LAYER_VSCSI:
		if (!isnan(a = cmp_dsv(e, d, M_HV_QL, k))) { /* a Hyper-V VHDX */
			*from = "vhdx_queue";
			return a;
		}
		a = cmp_dsv(e, d, M_READS, k), b = cmp_dsv(e, d, M_VD_LAT_R, k);
		x = cmp_dsv(e, d, M_WRITES, k), y = cmp_dsv(e, d, M_VD_LAT_W, k);
		*from = "reads and writes x their latency";
		if (!isnan(a) && !isnan(b) && !isnan(x) && !isnan(y))
			return (a * b + x * y) / 1000;
		if (!isnan(a) && !isnan(b) && isnan(x))
			return a * b / 1000;
		return NAN;
	case LAYER_DEVICE:
	case LAYER_ADAPTER:
		if (!isnan(a = cmp_dsv(e, d, M_CMDS, k)) && !isnan(b = cmp_dsv(e, d, M_GAVG, k))) {
			*from = "iops x gavg_ms";
			return a * b / 1000;
		}
		if (!isnan(a = cmp_dsv(e, d, M_H_ADQL, k))) { /* a Hyper-V host disk */
			*from = "host_avg_queue";
			return a;
		}
		if (!isnan(a = cmp_dsv(e, d, M_CMDS, k)) && !isnan(b = cmp_dsv(e, d, M_H_LAT_T, k))) {
			*from = "iops x host_transfer_ms";
			return a * b / 1000;
		}
		a = cmp_dsv(e, d, M_ACTV, k), b = cmp_dsv(e, d, M_QUED, k);
		*from = "actv + qued";
		if (isnan(a))
			return b;
		return isnan(b) ? a : a + b;
	default: return NAN;
	}
}

/* The layer's IOPS metric (the first metric table row's load), or -1. */
int cmp_layer_load(enum layer l)
{
	for (size_t k = 0; k < cmp_nmetrics; k++)
		if (cmp_metrics[k].layer == l && cmp_metrics[k].load >= 0)
			return cmp_metrics[k].load;
	return -1;
}

/* The log load a bucket is split on: outstanding IO when the side has it, else IOPS. NaN when
 * the bucket has neither. */
static double busy_key(const struct cmp_busy *b, double dem, double iops, double active_min)
{
	if (b->from_iops)
		return isnan(iops) ? NAN : log(fmax(iops, (active_min > 0 ? active_min : 1) / 2));
	return isnan(dem) ? NAN : log(fmax(dem, CMP_DEMAND_FLOOR));
}

/* 1 busy, 0 not, -1 unknown (no load in the bucket: it joins its neighbour in time). */
int cmp_busy_flag(const struct cmp_busy *b, double dem, double iops, double active_min)
{
	if (!b->has)
		return -1;
	if (b->distinct) {
		double key = busy_key(b, dem, iops, active_min);
		return isnan(key) ? -1 : key >= b->cut_log;
	}
	if (!isnan(iops))
		return iops >= active_min;
	return isnan(dem) ? -1 : dem > CMP_DEMAND_FLOOR;
}

/* Otsu's threshold on the log loads lv[0..m): true when they split clearly into two groups (each
 * at least CMP_BUSY_MIN_SHARE of the values and CMP_MIN_VALUES, median loads CMP_REGIME_RATIO
 * apart, at least CMP_REGIME_ETA of the variance between the groups); the cut (between two
 * values) in *cut. */
static bool otsu_split(const double *lv, size_t m, double *cut)
{
	if (m < 4 * CMP_MIN_VALUES)
		return false;
	double *srt = xmalloc(m * sizeof *srt);
	memcpy(srt, lv, m * sizeof *srt);
	qsort(srt, m, sizeof *srt, dcmp);
	double tot = 0, tot2 = 0;
	for (size_t i = 0; i < m; i++) {
		tot += srt[i];
		tot2 += srt[i] * srt[i];
	}
	double var = tot2 / (double)m - (tot / (double)m) * (tot / (double)m);
	double best = -1, c = NAN, s0 = 0;
	size_t lo_min = (size_t)ceil((double)m * CMP_BUSY_MIN_SHARE);
	if (lo_min < CMP_MIN_VALUES)
		lo_min = CMP_MIN_VALUES;
	for (size_t k = 1; k < m; k++) {
		s0 += srt[k - 1];
		if (srt[k] == srt[k - 1] || k < lo_min || m - k < lo_min)
			continue;
		double w0 = (double)k / (double)m, w1 = 1 - w0;
		double m0 = s0 / (double)k, m1 = (tot - s0) / (double)(m - k);
		double between = w0 * w1 * (m0 - m1) * (m0 - m1);
		if (between > best) {
			best = between;
			c = (srt[k - 1] + srt[k]) / 2;
		}
	}
	bool ok = false;
	if (best > 0 && var > 0 && best / var >= CMP_REGIME_ETA) {
		size_t k = 0;
		while (k < m && srt[k] < c)
			k++;
		double med0 = srt[k / 2], med1 = srt[k + (m - k) / 2];
		ok = med1 - med0 >= log(CMP_REGIME_RATIO);
	}
	free(srt);
	*cut = c;
	return ok;
}


/* The busy phase of pair p on side s (struct cmp_busy). */
static void side_busy(const struct compare *c, struct cmp_pair *p, int s)
{
	struct cmp_busy *b = &p->busy[s];
	memset(b, 0, sizeof *b);
	b->cut = b->cut_log = b->iops = b->outstanding = b->bucket_s = NAN;
	if (!p->name[s] || p->layer == LAYER_VM)
		return;
	int lm = cmp_layer_load(p->layer);
	size_t cap = 0;
	for (size_t i = 0; i < p->nents[s]; i++)
		cap += c->side[s].m.caps[cmp_ent(c, p, s, i)->capture].ds.nb;
	if (!cap)
		return;
	double *dem = xmalloc(cap * sizeof *dem), *io = xmalloc(cap * sizeof *io), *rows = xmalloc(cap * sizeof *rows);
	int64_t *t = xmalloc(cap * sizeof *t);
	size_t *capno = xmalloc(cap * sizeof *capno);
	size_t n = 0, ndem = 0, nio = 0;
	const char *from = NULL;
	for (size_t i = 0; i < p->nents[s]; i++) {
		const struct entity *e = cmp_ent(c, p, s, i);
		const struct capture *cp = &c->side[s].m.caps[e->capture];
		const struct dstore *d = &cp->ds;
		for (size_t k = 0; k < d->nb; k++) {
			const char *f = NULL;
			dem[n] = cmp_demand(e, d, k, &f);
			io[n] = cmp_dsv(e, d, lm, k);
			if (isnan(dem[n]) && isnan(io[n]))
				continue;
			if (!isnan(dem[n]) && !from)
				from = f;
			ndem += !isnan(dem[n]);
			nio += !isnan(io[n]);
			rows[n] = lm >= 0 && e->series[lm] >= 0 ? ds_count(d, (size_t)e->series[lm], k) : 1;
			if (!(rows[n] > 0))
				rows[n] = 1;
			t[n] = model_time(&c->side[s].m, cp, k);
			capno[n] = e->capture;
			n++;
		}
	}
	double amin = ACTIVE_MIN(c);
	if (n > 1) {
		double *dt = xmalloc(n * sizeof *dt);
		size_t nd = 0;
		for (size_t i = 1; i < n; i++)
			if (capno[i] == capno[i - 1] && t[i] > t[i - 1])
				dt[nd++] = (double)(t[i] - t[i - 1]) / 1000;
		b->bucket_s = median_of(dt, nd);
		free(dt);
	}
	if (n) {
		b->has = true;
		b->from_iops = ndem == 0;
		b->measure = b->from_iops ? "iops" : "outstanding_io";
		b->from = b->from_iops ? metric_info[lm].name : from;
		double *lv = xmalloc(n * sizeof *lv);
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			double key = busy_key(b, dem[i], io[i], amin);
			if (!isnan(key))
				lv[m++] = key;
		}
		double cut;
		b->distinct = otsu_split(lv, m, &cut);
		if (b->distinct) {
			b->cut_log = cut;
			b->cut = exp(cut);
		} else {
			b->cut = amin;
		}
		free(lv);
		/* flags, unknown ones from the neighbour in time */
		signed char *fl = xmalloc(n);
		int last = -1;
		for (size_t i = 0; i < n; i++) {
			fl[i] = (signed char)cmp_busy_flag(b, dem[i], io[i], amin);
			if (fl[i] < 0)
				fl[i] = (signed char)(last >= 0 ? last : -1);
			else
				last = fl[i];
		}
		for (size_t i = n; i-- > 0;)
			if (fl[i] < 0)
				fl[i] = (signed char)(i + 1 < n ? fl[i + 1] : 0);
		double busy_rows = 0, all_rows = 0;
		double *bi = xmalloc(n * sizeof *bi), *bd = xmalloc(n * sizeof *bd);
		size_t nbi = 0, nbd = 0;
		/* the longest busy stretch: dips of up to two buckets do not end it */
		int64_t best = -1, run0 = 0, run1 = 0;
		size_t gap = 0;
		bool in = false;
		for (size_t i = 0; i < n; i++) {
			all_rows += rows[i];
			bool newcap = i && capno[i] != capno[i - 1];
			if (newcap && in) {
				if (run1 - run0 > best)
					best = run1 - run0, b->start = run0, b->end = run1;
				in = false;
			}
			if (!fl[i]) {
				if (in && ++gap > 2) {
					if (run1 - run0 > best)
						best = run1 - run0, b->start = run0, b->end = run1;
					in = false;
				}
				continue;
			}
			busy_rows += rows[i];
			b->busy++;
			if (!isnan(io[i]))
				bi[nbi++] = io[i];
			if (!isnan(dem[i]))
				bd[nbd++] = dem[i];
			if (!in) {
				in = true;
				run0 = t[i];
			}
			run1 = t[i];
			gap = 0;
		}
		if (in && run1 - run0 > best)
			best = run1 - run0, b->start = run0, b->end = run1;
		/* a capture (or its window) that starts or ends busy holds only part of the phase: a
		 * busy bucket among its first or last three (as a stretch, dips of up to two buckets
		 * do not count: the first row of a capture often has no rates yet) */
		for (size_t a = 0; a < n && b->distinct && !b->edge;) {
			size_t z = a;
			while (z + 1 < n && capno[z + 1] == capno[a])
				z++;
			for (size_t i = a; i <= z && !b->edge; i++)
				b->edge = fl[i] && (i - a <= 2 || z - i <= 2);
			a = z + 1;
		}
		b->values = n;
		b->share = all_rows > 0 ? busy_rows / all_rows : 0;
		b->iops = median_of(bi, nbi);
		b->outstanding = median_of(bd, nbd);
		free(bi);
		free(bd);
		free(fl);
	}
	free(dem);
	free(io);
	free(rows);
	free(t);
	free(capno);
}

bool cmp_bucket_busy(const struct compare *c, const struct cmp_pair *p, int s, const struct entity *e, size_t k)
{
	const struct dstore *d = &c->side[s].m.caps[e->capture].ds;
	const char *from;
	int lm = cmp_layer_load(p->layer);
	return cmp_busy_flag(&p->busy[s], cmp_demand(e, d, k, &from), lm >= 0 ? cmp_dsv(e, d, lm, k) : NAN, ACTIVE_MIN(c)) > 0;
}

/* Comparable: the after side's busy phase reaches CMP_COMPARABLE_RATIO of the before side's load
 * in IOPS or in outstanding IO (doc/domain.md §6: only call a fix when the after side did the work). */
static void pair_comparable(struct cmp_pair *p)
{
	const struct cmp_busy *b = &p->busy[0], *a = &p->busy[1];
	p->comparable = true;
	if (!b->has || !a->has || !b->busy)
		return;
	if (!a->busy) {
		p->comparable = false;
		return;
	}
	bool iops_ok = isnan(b->iops) || (!isnan(a->iops) && a->iops >= CMP_COMPARABLE_RATIO * b->iops);
	bool out_ok = isnan(b->outstanding) ||
		      (!isnan(a->outstanding) && a->outstanding >= CMP_COMPARABLE_RATIO * b->outstanding);
	if (isnan(b->iops) && isnan(b->outstanding))
		return;
	p->comparable = (!isnan(b->iops) && iops_ok) || (!isnan(b->outstanding) && out_ok);
	/* the other way: only the after side found a busy phase, and the before side's work (its
	 * active buckets) does not reach half of it — the before capture, or its window, missed the
	 * period the after side shows. Both sides with a busy phase stay comparable whatever their
	 * amounts of work (a capacity gain). */
	if (p->comparable && a->distinct && !b->distinct) {
		bool bi = !isnan(a->iops) && !isnan(b->iops) && b->iops >= CMP_COMPARABLE_RATIO * a->iops;
		bool bo = !isnan(a->outstanding) && !isnan(b->outstanding) &&
			  b->outstanding >= CMP_COMPARABLE_RATIO * a->outstanding;
		if (!bi && !bo && (!isnan(a->iops) || !isnan(a->outstanding))) {
			p->comparable = false;
			p->before_missing = true;
		}
	}
}

/* Comparable shares of busy time: the whole capture's tail and time above a band mix the busy
 * phase and the idle rest in the proportion of the busy share, so two captures whose busy shares
 * differ by the material change (--material-pct of the larger) can differ in those figures by that
 * much from the capture length or window alone (the same busy phase in a 2 h and an 8 h capture:
 * 50 % and 12 % of the time above a band). Without a load measure on a side there is nothing to
 * tell them apart: comparable. */
static void pair_shares(const struct compare *c, struct cmp_pair *p)
{
	const struct cmp_busy *b = &p->busy[0], *a = &p->busy[1];
	p->shares_comparable = true;
	if (!b->has || !a->has)
		return;
	double hi = fmax(b->share, a->share);
	p->shares_comparable = fabs(a->share - b->share) < c->o.material_pct / 100 * hi;
}

/* A sliver: one side holds less than compare.min_busy_held of the other side's (distinct) busy
 * phase, by duration and by IOs - a window or capture that cuts the phase, whose first minutes are
 * its ramp, not its steady state. Not comparable. A faster stack that finishes the same work
 * sooner is not a sliver: its IOs are the same. */
static void pair_sliver(const struct compare *c, struct cmp_pair *p)
{
	double min = rule_value(&c->rules, R_CMP_MIN_BUSY_HELD);
	for (int s = 0; s < 2; s++) {
		const struct cmp_busy *b = &p->busy[s];
		p->held[s] = b->has && !isnan(b->bucket_s) ? (double)b->busy * b->bucket_s : NAN;
		p->held_ios[s] = !isnan(b->iops) ? p->held[s] * b->iops : NAN;
	}
	for (int s = 0; s < 2; s++) {
		int o = 1 - s;
		if (!p->busy[o].distinct || !(p->held[o] > 0) || !(p->held[s] > 0))
			continue;
		bool dur = p->held[s] < min * p->held[o];
		bool ios = isnan(p->held_ios[s]) || isnan(p->held_ios[o]) || p->held_ios[s] < min * p->held_ios[o];
		if (dur && ios) {
			p->comparable = false;
			p->sliver = s + 1;
			return;
		}
	}
}

void cmp_pair_busy(const struct compare *c, struct cmp_pair *p)
{
	for (int s = 0; s < 2; s++)
		side_busy(c, p, s);
	pair_comparable(p);
	if (p->comparable)
		pair_sliver(c, p);
	pair_shares(c, p);
	double w0 = p->busy[0].bucket_s, w1 = p->busy[1].bucket_s;
	p->widths_comparable = isnan(w0) || isnan(w1) || (w0 < 2 * w1 && w1 < 2 * w0);
}
