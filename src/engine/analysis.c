/* analysis.c — runs an analysis over a loaded model: disk mapping (file or IOPS correlation),
 * clock alignment, the detector table, ordering and the verdict (see analysis.h). */
#include "analysis.h"
#include "vhist.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void analysis_init(struct analysis *a)
{
	memset(a, 0, sizeof *a);
	model_init(&a->m);
	arena_init(&a->arena);
	rules_init(&a->rules);
	stream_attach(a);
}

void analysis_set_opts(struct analysis *a, const struct analyze_opts *o)
{
	a->opts = *o;
}

void analysis_free(struct analysis *a)
{
	stream_detach(a);
	free(a->sw);
	free(a->shared);
	free(a->inputs);
	free(a->vmk_unread);
	free(a->sql);
	free(a->dbmap);
	coverage_free(&a->cov);
	iopath_free(&a->iop);
	vhist_free(&a->hist);
	model_free(&a->m);
	free(a->f);
	free(a->map);
	if (a->have_vmk)
		vmklog_free(&a->vmk);
	if (a->have_parts)
		partitions_free(&a->parts);
	arena_free(&a->arena);
	memset(a, 0, sizeof *a);
}

bool entity_active(const struct entity *e, const struct rules *r)
{
	int io = e->layer == LAYER_GUEST ? M_G_XFERS : M_CMDS;
	return entity_sk(e, io)->n && qs_mean(entity_sk(e, io)) >= rule_value(r, R_ACTIVE_IOPS);
}

int analysis_worst(const struct analysis *a)
{
	int w = -1;
	for (size_t i = 0; i < a->nf; i++)
		if ((int)a->f[i].sev > w)
			w = (int)a->f[i].sev;
	return w;
}

/* ---- disk map ---- */

static void map_add(struct analysis *a, const char *host, const char *disk, const char *vdisk, bool automatic,
		    double r)
{
	a->map = xgrow(a->map, a->nmap, sizeof *a->map);
	struct diskmap_entry *m = &a->map[a->nmap++];
	memset(m, 0, sizeof *m);
	m->guest_host = host ? arena_strdup(&a->arena, host) : NULL;
	m->guest_disk = arena_strdup(&a->arena, disk);
	m->vdisk = arena_strdup(&a->arena, vdisk);
	m->automatic = automatic;
	m->correlation = r;
}

void analysis_use_diskmap(struct analysis *a, const struct diskmap *dm, const char *file)
{
	for (size_t i = 0; i < dm->n; i++) {
		map_add(a, dm->l[i].guest_host, dm->l[i].guest_disk, dm->l[i].vdisk, false, NAN);
		a->map[a->nmap - 1].file = file ? arena_strdup(&a->arena, file) : NULL;
		a->map[a->nmap - 1].line = dm->l[i].line;
	}
	if (dm->partitions_host)
		a->parts_host = arena_strdup(&a->arena, dm->partitions_host);
	for (size_t i = 0; i < dm->ndb; i++) {
		const struct dbmap_line *l = &dm->db[i];
		a->dbmap = xgrow(a->dbmap, a->ndbmap, sizeof *a->dbmap);
		struct dbmap_line *o = &a->dbmap[a->ndbmap++];
		o->instance = l->instance ? arena_strdup(&a->arena, l->instance) : NULL;
		o->db = arena_strdup(&a->arena, l->db);
		o->data = l->data;
		o->guest_host = l->guest_host ? arena_strdup(&a->arena, l->guest_host) : NULL;
		o->guest_disk = arena_strdup(&a->arena, l->guest_disk);
		o->line = l->line;
	}
}

/* ---- resampling and correlation ---- */

static double pearson(const double *x, const double *y, size_t n, size_t *used)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]) || isnan(y[i]))
			continue;
		sx += x[i];
		sy += y[i];
		sxx += x[i] * x[i];
		syy += y[i] * y[i];
		sxy += x[i] * y[i];
		m++;
	}
	*used = m;
	if (m < 10)
		return NAN;
	double cov = sxy - sx * sy / (double)m, vx = sxx - sx * sx / (double)m, vy = syy - sy * sy / (double)m;
	if (vx <= 0 || vy <= 0)
		return NAN;
	return cov / sqrt(vx * vy);
}

/* The mean of metric over the samples of e that cover host-clock time (t - span, t]: each sample
 * (a bucket's rows) counts where its own interval's middle falls. extra_offset shifts e's clock
 * as a trial lag. NaN when no sample falls there. */
static double grid_mean(const struct analysis *a, const struct entity *e, int metric, int64_t t, int64_t span,
			int64_t extra_offset)
{
	if (e->series[metric] < 0)
		return NAN;
	const struct capture *c = &a->m.caps[e->capture];
	const struct dstore *d = &c->ds;
	if (!d->nb)
		return NAN;
	int64_t half = (int64_t)(c->interval_s * 500);
	int64_t lo_t = t - span - c->clock_offset_ms - extra_offset, hi_t = t - c->clock_offset_ms - extra_offset;
	size_t lo = 0, hi = d->nb;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->t1[mid] - half <= lo_t)
			lo = mid + 1;
		else
			hi = mid;
	}
	double sum = 0;
	double n = 0;
	for (size_t k = lo; k < d->nb && d->t0[k] - half <= hi_t; k++) {
		int64_t mid = (d->t0[k] + d->t1[k]) / 2 - half;
		if (mid <= lo_t || mid > hi_t)
			continue;
		double v = ds_mean(d, (size_t)e->series[metric], k);
		if (isnan(v))
			continue;
		double w = ds_count(d, (size_t)e->series[metric], k);
		sum += v * w;
		n += w;
	}
	return n > 0 ? sum / n : NAN;
}

struct corr {
	double r, r_zero;
	int64_t lag_ms;
};

/* A series' buckets for correlate(), read once: the time each counts at (the middle of its
 * interval, as grid_mean places it, in host-clock time), its mean and its count. Buckets without
 * a value are left out. ordered = the buckets' times never go back (t0 and t1 nondecreasing,
 * t0 <= t1), so that placing each bucket in its grid step visits the buckets grid_mean would,
 * in the same order; false: correlate falls back to grid_mean. */
struct gser {
	int64_t *t;
	double *v, *w;
	size_t n;
	bool ordered;
};

static void gser_read(const struct analysis *a, const struct entity *e, int metric, struct gser *g)
{
	memset(g, 0, sizeof *g);
	g->ordered = true;
	if (e->series[metric] < 0)
		return;
	const struct capture *c = &a->m.caps[e->capture];
	const struct dstore *d = &c->ds;
	int64_t half = (int64_t)(c->interval_s * 500);
	g->t = xmalloc((d->nb ? d->nb : 1) * sizeof *g->t);
	g->v = xmalloc((d->nb ? d->nb : 1) * sizeof *g->v);
	g->w = xmalloc((d->nb ? d->nb : 1) * sizeof *g->w);
	for (size_t k = 0; k < d->nb; k++) {
		if (d->t0[k] > d->t1[k] || (k && (d->t0[k] < d->t0[k - 1] || d->t1[k] < d->t1[k - 1])))
			g->ordered = false;
		double v = ds_mean(d, (size_t)e->series[metric], k);
		if (isnan(v))
			continue;
		g->t[g->n] = (d->t0[k] + d->t1[k]) / 2 - half + c->clock_offset_ms;
		g->v[g->n] = v;
		g->w[g->n] = ds_count(d, (size_t)e->series[metric], k);
		g->n++;
	}
}

static void gser_free(struct gser *g)
{
	free(g->t);
	free(g->v);
	free(g->w);
}

/* The grid step of time t shifted by shift: step i covers (s + (i - 1) step, s + i step]; -1
 * outside [0, n). */
static ptrdiff_t grid_cell(int64_t t, int64_t s, int64_t step, size_t n)
{
	int64_t x = t - s;
	int64_t i = x > 0 ? (x + step - 1) / step : -(-x / step);
	return i >= 0 && i < (int64_t)n ? (ptrdiff_t)i : -1;
}

/* Pearson's r of g's buckets, shifted by lag (a bucket at t counts at t - lag, as grid_mean
 * with extra_offset -lag places it) and averaged over each grid step, against the host
 * grid hx: the same sums, in the same order, as pearson() over grid_mean's series (the steps no
 * bucket falls in are NaN there and skipped), in one pass over g's buckets. */
static double pearson_shifted(const struct gser *g, int64_t lag, const double *hx, int64_t s, int64_t step, size_t n)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	size_t m = 0;
	ptrdiff_t cell = -1;
	double sum = 0, cnt = 0;
	for (size_t k = 0; k <= g->n; k++) {
		ptrdiff_t i = k < g->n ? grid_cell(g->t[k] - lag, s, step, n) : -2;
		if (i == -1)
			continue;
		if (i != cell) {
			if (cell >= 0 && !isnan(hx[cell])) {
				double x = sum / cnt, y = hx[cell];
				sx += x;
				sy += y;
				sxx += x * x;
				syy += y * y;
				sxy += x * y;
				m++;
			}
			cell = i;
			sum = cnt = 0;
		}
		if (i >= 0) {
			sum += g->v[k] * g->w[k];
			cnt += g->w[k];
		}
	}
	if (m < 10)
		return NAN;
	double cov = sxy - sx * sy / (double)m, vx = sxx - sx * sx / (double)m, vy = syy - sy * sy / (double)m;
	if (vx <= 0 || vy <= 0)
		return NAN;
	return cov / sqrt(vx * vy);
}

/* Best correlation of guest IOPS (shifted by lag) with host IOPS over lags in [-max_lag, max_lag].
 * Both are compared on one grid of the coarser interval, each series averaged over a grid step
 * (a 15 s sample is not a 60 s average); lags step by the finer interval. Each series is read
 * once (gser_read) and a lag only moves the guest's buckets between grid steps, so a lag costs
 * one pass over the guest's buckets (at most DS_MAX_BUCKETS), not a search per grid point. */
static struct corr correlate(const struct analysis *a, const struct entity *g, const struct entity *v, int64_t max_lag)
{
	struct corr best = {NAN, NAN, 0};
	const struct capture *cg = &a->m.caps[g->capture], *cv = &a->m.caps[v->capture];
	int64_t step = (int64_t)(fmax(fmax(cg->interval_s, cv->interval_s), 1.0) * 1000);
	int64_t lag_step = (int64_t)(fmax(fmin(cg->interval_s, cv->interval_s), 1.0) * 1000);
	int64_t s = cv->start + cv->clock_offset_ms, e = cv->end + cv->clock_offset_ms;
	if (e <= s || step <= 0)
		return best;
	size_t n = (size_t)((e - s) / step) + 1;
	if (n > 20000) {
		step = (e - s) / 20000 + 1;
		n = (size_t)((e - s) / step) + 1;
	}
	if (max_lag / lag_step > 600)
		lag_step = max_lag / 600;
	struct gser hs, gs;
	gser_read(a, v, M_CMDS, &hs);
	gser_read(a, g, M_G_XFERS, &gs);
	double *hx = xmalloc(n * sizeof *hx), *gx = NULL;
	if (hs.ordered) {
		double *hw = xcalloc(n, sizeof *hw);
		for (size_t i = 0; i < n; i++)
			hx[i] = 0;
		for (size_t k = 0; k < hs.n; k++) {
			ptrdiff_t i = grid_cell(hs.t[k], s, step, n);
			if (i >= 0) {
				hx[i] += hs.v[k] * hs.w[k];
				hw[i] += hs.w[k];
			}
		}
		for (size_t i = 0; i < n; i++)
			hx[i] = hw[i] > 0 ? hx[i] / hw[i] : NAN;
		free(hw);
	} else {
		for (size_t i = 0; i < n; i++)
			hx[i] = grid_mean(a, v, M_CMDS, s + (int64_t)i * step, step, 0);
	}
	if (!gs.ordered)
		gx = xmalloc(n * sizeof *gx);
	for (int64_t lag = -(max_lag / lag_step) * lag_step; lag <= max_lag; lag += lag_step) {
		double r;
		if (gs.ordered) {
			r = pearson_shifted(&gs, lag, hx, s, step, n);
		} else {
			for (size_t i = 0; i < n; i++)
				gx[i] = grid_mean(a, g, M_G_XFERS, s + (int64_t)i * step, step, -lag);
			size_t used;
			r = pearson(gx, hx, n, &used);
		}
		if (lag == 0)
			best.r_zero = r;
		if (!isnan(r) && (isnan(best.r) || r > best.r)) {
			best.r = r;
			best.lag_ms = lag;
		}
	}
	gser_free(&hs);
	gser_free(&gs);
	free(hx);
	free(gx);
	return best;
}

/* Whether guest disk g and virtual disk v carry about the same IOs over their common time (their
 * mean IOPS within 30 %, as queue.guest_hidden compares them): conservation between layers; two disks of one VM whose phases
 * coincide correlate in shape at different levels. True when either mean is unknown. */
static bool same_level(const struct analysis *a, const struct entity *g, const struct entity *v)
{
	const struct capture *cg = &a->m.caps[g->capture], *cv = &a->m.caps[v->capture];
	int64_t t0 = cg->start + cg->clock_offset_ms, t1 = cg->end + cg->clock_offset_ms;
	int64_t s0 = cv->start + cv->clock_offset_ms, s1 = cv->end + cv->clock_offset_ms;
	t0 = t0 > s0 ? t0 : s0;
	t1 = t1 < s1 ? t1 : s1;
	double gl = iop_window_mean(&a->m, g, M_G_XFERS, t0, t1), vl = iop_window_mean(&a->m, v, M_CMDS, t0, t1);
	return isnan(gl) || isnan(vl) || (gl >= 0.7 * vl && vl >= 0.7 * gl);
}


/* Whether guest disk g is a volume over several disks (iopath.h): no one virtual disk is its. */
static bool multi_disk_volume(const struct analysis *a, const struct entity *g)
{
	bool member = true;
	return iopath_volume_of(&a->iop, g, &member) && !member;
}

/* Guest disks without a --map entry get the virtual disk whose IOPS correlate best (r >= 0.7) at
 * about the same level (same_level), preferring the VM whose name matches the guest host name; a
 * volume over several disks gets none (its member disks are mapped). */
static void auto_map(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		struct entity *g = &a->m.ents[i];
		if (g->layer != LAYER_GUEST || g->aggregate || multi_disk_volume(a, g) || g->series[M_G_XFERS] < 0 ||
		    !entity_sk(g, M_G_XFERS)->n ||
		    qs_mean(entity_sk(g, M_G_XFERS)) < rule_value(&a->rules, R_ACTIVE_IOPS))
			continue;
		bool mapped = false;
		for (size_t k = 0; k < a->nmap; k++)
			if (strcmp(a->map[k].guest_disk, g->name) == 0 &&
			    (!a->map[k].guest_host || !g->host || strcasecmp(a->map[k].guest_host, g->host) == 0))
				mapped = true;
		if (mapped)
			continue;
		const struct entity *best = NULL;
		double br = NAN;
		for (int pass = 0; pass < 2 && !best; pass++) {
			for (size_t j = 0; j < a->m.nents; j++) {
				const struct entity *v = &a->m.ents[j];
				if (v->layer != LAYER_VSCSI || v->series[M_CMDS] < 0)
					continue;
				bool same_name = g->host && strncasecmp(v->name, g->host, strlen(g->host)) == 0 &&
						 v->name[strlen(g->host)] == ':';
				if (pass == 0 && !same_name)
					continue;
				struct corr c = correlate(a, g, v, 300000);
				if (!isnan(c.r) && c.r >= 0.7 && (isnan(br) || c.r > br) && same_level(a, g, v)) {
					br = c.r;
					best = v;
				}
			}
		}
		if (best)
			map_add(a, g->host, g->name, best->name, true, br);
	}
}

/* Guest (perfmon) clocks against the host's: a --clock-offset, else the lag that best correlates
 * mapped IOPS series, applied when the correlation is convincing. */
/* The guest disk and virtual disk of map line k in capture c, both with IOPS, or false. */
static bool map_pair(struct analysis *a, const struct capture *c, size_t k, struct entity **g, struct entity **v)
{
	*g = NULL;
	for (size_t i = c->first_entity; i < c->first_entity + c->nentities; i++) {
		struct entity *e = &a->m.ents[i];
		if (e->layer == LAYER_GUEST && strcmp(e->name, a->map[k].guest_disk) == 0 &&
		    (!a->map[k].guest_host || !e->host || strcasecmp(a->map[k].guest_host, e->host) == 0))
			*g = e;
	}
	*v = model_find(&a->m, LAYER_VSCSI, a->map[k].vdisk, NULL);
	return *g && *v && (*g)->series[M_G_XFERS] >= 0 && (*v)->series[M_CMDS] >= 0;
}

static void note(struct analysis *a, const char *file, long line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void note(struct analysis *a, const char *file, long line, const char *fmt, ...)
{
	struct buf b;
	buf_init(&b);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	struct diag d;
	diag_init(&d, file, -1);
	d.sink = a->sink;
	if (a->map_cap_given && a->map_max_warnings >= 0 && ++a->map_notes > a->map_max_warnings)
		a->map_suppressed++; /* --max-warnings caps what a map of a million lines says */
	else
		diag_emit(&d, DIAG_WARNING, line, 0, "%s", b.data);
	buf_free(&b);
}

/* Guest (perfmon) clocks against the host's: a --clock-offset, else the lag that best correlates
 * mapped IOPS series, applied when the correlation is convincing. A given offset that a
 * convincing estimate contradicts is warned, with both figures. */
static void align_clocks(struct analysis *a, const struct analyze_opts *o)
{
	for (size_t ci = 0; ci < a->m.ncaps; ci++) {
		struct capture *c = &a->m.caps[ci];
		if (c->failed || !c->format || c->role != ROLE_GUEST)
			continue;
		if (o->no_auto_offset && !o->clock_offset_given)
			continue;
		/* best mapped pair of this capture */
		struct corr best = {NAN, NAN, 0};
		struct entity *bg = NULL, *bv = NULL, *fg = NULL, *fv = NULL;
		for (size_t k = 0; k < a->nmap; k++) {
			struct entity *g, *v;
			if (!map_pair(a, c, k, &g, &v))
				continue;
			if (!fg) {
				fg = g;
				fv = v;
			}
			struct corr r = correlate(a, g, v, 600000);
			if (!isnan(r.r) && (isnan(best.r) || r.r > best.r)) {
				best = r;
				bg = g;
				bv = v;
			}
		}
		bool convincing = !isnan(best.r) && best.r >= 0.6 && (isnan(best.r_zero) || best.r - best.r_zero >= 0.05);
		if (o->clock_offset_given) {
			c->clock_offset_ms = -(int64_t)llround(o->clock_offset_s * 1000);
			double est_s = (double)best.lag_ms / 1000.0; /* guest − host, as the user gives it */
			double tol = 2 * fmax(c->interval_s, bv ? a->m.caps[bv->capture].interval_s : 0);
			struct corr at = bg ? correlate(a, bg, bv, 0) : (struct corr){NAN, NAN, 0};
			bool better = !isnan(best.r) && best.r >= 0.6 && (isnan(at.r_zero) || best.r - at.r_zero >= 0.05);
			const char *opt = o->clock_offset_from ? o->clock_offset_from : "--clock-offset";
			if (better && fabs(est_s - o->clock_offset_s) > fmax(tol, 5)) {
				note(a, NULL, 0,
				     "%s %g s disagrees with the estimate from correlating IOPS: %+.1f s (r = %.2f there, "
				     "%.2f at the offset given); the given offset is used",
				     opt, o->clock_offset_s, est_s, best.r, at.r_zero);
				input_said(a, opt, NULL, 0, IN_CONTRADICTED,
					   "%+g s for %s: the IOPS of %s and %s correlate best at %+.1f s (r = %.2f there, "
					   "%.2f at the offset given); the given offset is used",
					   o->clock_offset_s, c->host ? c->host : c->path, bg->name, bv->name, est_s, best.r,
					   at.r_zero);
			} else if (better) {
				input_said(a, opt, NULL, 0, IN_AGREED,
					   "%+g s for %s: the IOPS of %s and %s correlate best at %+.1f s (r = %.2f), within "
					   "%.0f s of it", o->clock_offset_s, c->host ? c->host : c->path, bg->name, bv->name,
					   est_s, best.r, fmax(tol, 5));
			} else {
				input_said(a, opt, NULL, 0, IN_APPLIED,
					   "%+g s for %s: no mapped disk pair correlates convincingly, so the captures can "
					   "neither confirm nor contradict it", o->clock_offset_s, c->host ? c->host : c->path);
			}
			continue;
		}
		if (!isnan(best.r)) {
			c->offset_confidence = best.r;
			c->offset_estimated = true;
			/* apply only when clearly better than no shift */
			if (convincing && best.lag_ms != 0)
				c->clock_offset_ms = -best.lag_ms;
		}
		if (!bg) { /* no pair correlates within minutes (the captures may not even overlap) */
			bg = fg;
			bv = fv;
		}
		if (convincing || !bg || !c->local_time || c->bias_known || a->m.tz)
			continue;
		/* The zone was assumed (no bias in the header, no --tz) and the clocks do not agree
		 * within minutes: a wrong zone is off by whole or half hours. Search those; with no
		 * convincing one, nothing guest-vs-host is concluded from this capture. */
		struct corr zbest = {NAN, NAN, 0};
		int64_t zoff = 0;
		int64_t slack = (int64_t)(2 * fmax(c->interval_s, a->m.caps[bv->capture].interval_s) * 1000 + 1000);
		for (int k = -28; k <= 28; k++) {
			if (!k)
				continue;
			c->clock_offset_ms = (int64_t)k * 1800000;
			struct corr r = correlate(a, bg, bv, slack);
			if (!isnan(r.r) && (isnan(zbest.r) || r.r > zbest.r)) {
				zbest = r;
				zoff = c->clock_offset_ms - r.lag_ms;
			}
		}
		c->clock_offset_ms = 0;
		double r0 = isnan(best.r_zero) ? best.r : best.r_zero;
		if (!isnan(zbest.r) && zbest.r >= 0.6 && (isnan(r0) || zbest.r - r0 >= 0.1)) {
			c->clock_offset_ms = zoff;
			c->offset_confidence = zbest.r;
			c->offset_estimated = true;
			const char *there = isnan(r0) ? "do not even overlap the host's in time there"
						      : afmt(a, "correlate with the host's at r = %.2f only there", r0);
			a->clock_note = afmt(a, "%s%sThe perfmon header of %s has no time-zone bias, so its clock was taken as UTC; "
						"its IOPS %s, and at r = %.2f with the guest clock shifted by %+.1f h: that shift "
						"is applied (give --tz to set the zone).",
					     a->clock_note ? a->clock_note : "", a->clock_note ? " " : "", c->host ? c->host : c->path,
					     there, zbest.r, (double)zoff / 3600000.0);
			note(a, c->path, 0, "no time-zone bias in the header and the IOPS %s: the guest clock is shifted by %+.1f h "
					    "(r = %.2f there)", there, (double)zoff / 3600000.0, zbest.r);
			continue;
		}
		if (!a->clock_untrusted) {
			a->clock_untrusted = arena_alloc(&a->arena, a->m.ncaps * sizeof *a->clock_untrusted);
			memset(a->clock_untrusted, 0, a->m.ncaps * sizeof *a->clock_untrusted);
		}
		for (size_t j = 0; j < a->m.ncaps; j++)
			a->clock_untrusted[j] = a->clock_untrusted[j] || j == ci;
		const char *why = isnan(r0) ? "its IOPS do not overlap the host's in time"
					    : afmt(a, "its IOPS correlate with the host's at r = %.2f, below 0.6", r0);
		a->clock_note = afmt(a, "%s%sThe perfmon header of %s has no time-zone bias, so its clock was taken as UTC, and "
					"nothing confirms it (%s, and no whole- or half-hour shift does better): no "
					"guest-vs-host conclusion (hidden guest queueing, the vSCSI cap against the host's IOs) is "
					"drawn from it. Give --tz with the guest's zone.",
				     a->clock_note ? a->clock_note : "", a->clock_note ? " " : "", c->host ? c->host : c->path, why);
		note(a, c->path, 0, "no time-zone bias in the header, %s, and no whole- or half-hour shift does better: no "
				    "guest-vs-host finding is made (give --tz)", why);
	}
}

/* ---- captures that belong together ---- */

/* Whether guest disk g is active (its mean IOPS at least active.min_iops). */
static bool guest_active(const struct analysis *a, const struct entity *g)
{
	return g->layer == LAYER_GUEST && !g->aggregate && g->series[M_G_XFERS] >= 0 && entity_sk(g, M_G_XFERS)->n &&
	       qs_mean(entity_sk(g, M_G_XFERS)) >= rule_value(&a->rules, R_ACTIVE_IOPS);
}

/* The span of capture c on the hosts' clock. */
static void cap_span(const struct capture *c, int64_t *t0, int64_t *t1)
{
	*t0 = c->start + c->clock_offset_ms;
	*t1 = c->end + c->clock_offset_ms;
}

/* The best IOPS correlation of any active guest disk of capture ci with any active virtual disk
 * of an overlapping host capture, at the aligned clocks (a lag of two intervals either way). */
static double best_follow(struct analysis *a, size_t ci)
{
	double best = NAN;
	const struct capture *c = &a->m.caps[ci];
	size_t tried = 0;
	for (size_t i = c->first_entity; i < c->first_entity + c->nentities; i++) {
		const struct entity *g = &a->m.ents[i];
		if (!guest_active(a, g))
			continue;
		for (size_t j = 0; j < a->m.nents && tried < 4096; j++) {
			const struct entity *v = &a->m.ents[j];
			if (v->layer != LAYER_VSCSI || v->series[M_CMDS] < 0 || !entity_active(v, &a->rules))
				continue;
			int64_t slack = (int64_t)(2 * fmax(c->interval_s, a->m.caps[v->capture].interval_s) * 1000);
			struct corr r = correlate(a, g, v, slack);
			tried++;
			if (!isnan(r.r) && (isnan(best) || r.r > best))
				best = r.r;
		}
	}
	return best;
}

/* The --map lines of guest capture ci whose disks' IOPS do not agree (r < 0.6 at the aligned clocks,
 * or mean levels more than 30 % apart): contradicted, each with its figures. Returns how many lines of ci follow (r >=
 * 0.6, an automatic line counts by its own correlation); *nuser counts ci's user lines checked,
 * *nbad those that disagree. */
static int map_follows(struct analysis *a, size_t ci, size_t *nuser, size_t *nbad)
{
	int follow = 0;
	const struct capture *c = &a->m.caps[ci];
	for (size_t k = 0; k < a->nmap; k++) {
		struct entity *g, *v;
		const struct diskmap_entry *m = &a->map[k];
		if (!map_pair(a, c, k, &g, &v))
			continue;
		if (m->automatic) {
			follow++;
			continue;
		}
		if (!guest_active(a, g) || !entity_active(v, &a->rules))
			continue; /* an idle disk follows nothing: neither confirmed nor contradicted */
		(*nuser)++;
		int64_t slack = (int64_t)(2 * fmax(c->interval_s, a->m.caps[v->capture].interval_s) * 1000);
		struct corr r = correlate(a, g, v, slack);
		/* the same IOs at both layers (conservation): the shapes follow each other and the levels
		 * agree within 30 % over the common time (the disks of one VM share its phases, so the shape
		 * alone does not tell them apart) */
		int64_t gs0, ge0, vs0, ve0;
		cap_span(c, &gs0, &ge0);
		cap_span(&a->m.caps[v->capture], &vs0, &ve0);
		int64_t t0 = gs0 > vs0 ? gs0 : vs0, t1 = ge0 < ve0 ? ge0 : ve0;
		double gl = iop_window_mean(&a->m, g, M_G_XFERS, t0, t1),
		       vl = iop_window_mean(&a->m, v, M_CMDS, t0, t1);
		double ratio = vl > 0 ? gl / vl : NAN;
		if (!isnan(r.r) && r.r >= 0.6 && ratio >= 0.7 && ratio <= 1 / 0.7) {
			follow++;
			continue;
		}
		(*nbad)++;
		const char *gh = m->guest_host ? m->guest_host : "", *gs = m->guest_host ? "\\" : "";
		const char *rs = isnan(r.r) ? "no common time"
				 : afmt(a, "r = %.2f; %.0f IO/s in the guest against %.0f at the host", r.r, gl, vl);
		note(a, m->file, m->line,
		     "%s%s%s = %s: the IOPS of the two do not agree (%s): one is not the other's disk", gh, gs,
		     m->guest_disk, m->vdisk, rs);
		input_said(a, "--map", m->file, m->line, IN_CONTRADICTED,
			   "%s%s%s = %s: both are in the captures, but their IOPS do not agree (%s)", gh, gs,
			   m->guest_disk, m->vdisk, rs);
	}
	return follow;
}

/* Before a guest and a host capture are judged together: they overlap in time and at least one
 * guest disk follows a virtual disk (the IOPS correlation that mapped it, or a --map line the IOPS
 * agree with). When not, the guest<->host link is not assessed (a->link_note: the verdict, the
 * coverage and stderr say it) and no guest-vs-host finding is drawn from that guest. */
static void check_link(struct analysis *a)
{
	int64_t h0 = INT64_MAX, h1 = INT64_MIN;
	bool vdisks = false;
	for (size_t i = 0; i < a->m.nents && !vdisks; i++)
		vdisks = a->m.ents[i].layer == LAYER_VSCSI && entity_active(&a->m.ents[i], &a->rules);
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		int64_t s, e;
		if (c->failed || !c->format || !c->rows || c->role != ROLE_HOST)
			continue;
		cap_span(c, &s, &e);
		h0 = s < h0 ? s : h0;
		h1 = e > h1 ? e : h1;
	}
	size_t nuser = 0, nbad = 0;
	for (size_t ci = 0; ci < a->m.ncaps && h0 < h1 && vdisks; ci++) {
		const struct capture *c = &a->m.caps[ci];
		bool active = false;
		for (size_t i = c->first_entity; i < c->first_entity + c->nentities && !active; i++)
			active = guest_active(a, &a->m.ents[i]);
		if (c->failed || !c->format || !c->rows || c->role != ROLE_GUEST || !active)
			continue;
		int64_t s, e;
		cap_span(c, &s, &e);
		const char *who = c->host ? c->host : c->path, *why = NULL;
		if (e < h0 || s > h1) {
			why = afmt(
			    a,
			    "the guest capture of %s and the host captures do not overlap in time (%.1f h apart; if they "
			    "cover the same incident, the perfmon's time zone is wrong: give --tz)",
			    who, (double)(s > h1 ? s - h1 : h0 - e) / 3600000.0);
		} else if (!map_follows(a, ci, &nuser, &nbad)) {
			/* too few common samples to correlate (a capture shorter than a few intervals): nothing
			 * tells either way */
			double r = best_follow(a, ci);
			if (!isnan(r))
				why = afmt(
				    a,
				    "no guest disk of %s follows any virtual disk of the host capture (best r = %.2f): is "
				    "the perfmon from the same VM and period?",
				    who, r);
		}
		if (!why)
			continue;
		note(a, c->path, 0, "the guest<->host link is not assessed: %s", why);
		if (!a->link_note)
			a->link_note = afmt(
			    a,
			    "The guest<->host link is not assessed: %s%s No guest-vs-host conclusion is drawn; each "
			    "layer is judged on its own.",
			    why, why[strlen(why) - 1] == '?' ? "" : ".");
		if (!a->clock_untrusted) {
			a->clock_untrusted = arena_alloc(&a->arena, a->m.ncaps * sizeof *a->clock_untrusted);
			memset(a->clock_untrusted, 0, a->m.ncaps * sizeof *a->clock_untrusted);
		}
		a->clock_untrusted[ci] = true;
	}
	const char *file = NULL;
	for (size_t k = 0; k < a->nmap && !file; k++)
		file = a->map[k].automatic ? NULL : a->map[k].file;
	if (a->map_pending)
		input_said(
		    a, "--map", file, 0,
		    nbad    ? IN_CONTRADICTED
		    : nuser ? IN_AGREED
			    : IN_APPLIED,
		    "%zu disk line%s: %s", a->map_pending, a->map_pending == 1 ? "" : "s",
		    nbad ? afmt(a, "the IOPS of %zu of the %zu active disk pairs named do not agree", nbad, nuser)
		    : nuser
			? afmt(a,
			       "every guest disk and virtual disk named is in the captures, and the IOPS of the %zu "
			       "active pair%s follow each other",
			       nuser, nuser == 1 ? "" : "s")
			: "every guest disk and virtual disk named is in the captures (none busy enough to check their "
			  "IOPS)");
}

/* verify_map's lookups: map entries ordered by virtual disk (then line order), entities by name. */
struct vd_ord {
	const char *vdisk;
	size_t k;
};

static int vd_cmp(const void *x, const void *y)
{
	const struct vd_ord *a = x, *b = y;
	int c = strcmp(a->vdisk, b->vdisk);
	return c ? c : (a->k > b->k) - (a->k < b->k);
}

static int ent_case_cmp(const void *x, const void *y)
{
	return strcasecmp((*(const struct entity *const *)x)->name, (*(const struct entity *const *)y)->name);
}

static int ent_cmp(const void *x, const void *y)
{
	return strcmp((*(const struct entity *const *)x)->name, (*(const struct entity *const *)y)->name);
}

/* The first of the n sorted entities whose name equals name under cmp_name, or n. */
static size_t ent_lower_bound(const struct entity *const *v, size_t n, const char *name,
			      int (*cmp_name)(const char *, const char *))
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_name(v[mid]->name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The user's --map lines that name what the captures do not hold, or map two guest disks to one
 * virtual disk, are warned with file:line (the automatic mapping is not checked: it comes from
 * the captures); a line that maps a virtual disk an earlier line maps is warned once, naming the
 * first such line. In O((lines + entities) log): a map of a million lines is checked in seconds
 * (issue 28; the pairwise check took over 15 minutes). */
/* A --map line's VHDX in the capture's spelling: Windows paths ignore case, and the capture may
 * write a "\\?\\" prefix ("--?-") the user's path has not (or the other way round). A line whose
 * VHDX is named so takes the capture's name; any other stays as written (verify_map warns). */
static void resolve_vhdx_names(struct analysis *a)
{
	for (size_t k = 0; k < a->nmap; k++) {
		struct diskmap_entry *m = &a->map[k];
		if (m->automatic || !strcasestr(m->vdisk, ".vhd") || model_find(&a->m, LAYER_VSCSI, m->vdisk, NULL))
			continue;
		for (size_t i = 0; i < a->m.nents; i++) {
			const struct entity *e = &a->m.ents[i];
			if (e->layer == LAYER_VSCSI && model_hyperv(&a->m, e->capture) &&
			    strcasecmp(iop_vhdx_plain(e->name), iop_vhdx_plain(m->vdisk)) == 0) {
				m->vdisk = e->name;
				break;
			}
		}
	}
}

static void verify_map(struct analysis *a)
{
	bool guest_cap = false, host_cap = false;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (c->failed || !c->format)
			continue;
		guest_cap |= c->role == ROLE_GUEST;
		host_cap |= c->role == ROLE_HOST;
	}
	if (!a->nmap)
		return;
	/* guest disks by name (without case), virtual disks by name */
	const struct entity **gv = xcalloc(a->m.nents + 1, sizeof *gv), **vv = xcalloc(a->m.nents + 1, sizeof *vv);
	size_t ng = 0, nv = 0;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->layer == LAYER_GUEST)
			gv[ng++] = e;
		else if (e->layer == LAYER_VSCSI)
			vv[nv++] = e;
	}
	qsort(gv, ng, sizeof *gv, ent_case_cmp);
	qsort(vv, nv, sizeof *vv, ent_cmp);
	/* the user's lines by virtual disk: the first line that names k's virtual disk is the first of
	 * k's run of equal names */
	struct vd_ord *ord = xcalloc(a->nmap, sizeof *ord);
	size_t *pos = xcalloc(a->nmap, sizeof *pos), *run = xcalloc(a->nmap, sizeof *run);
	size_t nord = 0, nuser = 0, nbad = 0, ndrop = 0;
	bool *drop = xcalloc(a->nmap ? a->nmap : 1, sizeof *drop);
	const char *file = NULL;
	for (size_t k = 0; k < a->nmap; k++)
		if (!a->map[k].automatic)
			ord[nord++] = (struct vd_ord){a->map[k].vdisk, k};
	qsort(ord, nord, sizeof *ord, vd_cmp);
	for (size_t i = 0; i < nord; i++) {
		run[ord[i].k] = i && strcmp(ord[i - 1].vdisk, ord[i].vdisk) == 0 ? run[ord[i - 1].k] : i;
		pos[ord[i].k] = i;
	}
	for (size_t k = 0; k < a->nmap; k++) {
		const struct diskmap_entry *m = &a->map[k];
		if (m->automatic)
			continue;
		bool g_found = false;
		for (size_t i = ent_lower_bound(gv, ng, m->guest_disk, strcasecmp);
		     i < ng && !g_found && strcasecmp(gv[i]->name, m->guest_disk) == 0; i++)
			g_found = !m->guest_host || !gv[i]->host || strcasecmp(m->guest_host, gv[i]->host) == 0;
		size_t vi = ent_lower_bound(vv, nv, m->vdisk, strcmp);
		bool v_found = vi < nv && strcmp(vv[vi]->name, m->vdisk) == 0;
		/* with --host/--vm/--disk a disk left out is not missing */
		const char *where = ef_on(a->m.filter) ? "in the selection" : "in the captures";
		const char *gh = m->guest_host ? m->guest_host : "", *gs = m->guest_host ? "\\" : "";
		nuser++;
		if (guest_cap && !g_found) {
			note(a, m->file, m->line, "guest disk %s%s%s is not %s", gh, gs, m->guest_disk, where);
			input_said(a, "--map", m->file, m->line, IN_NAMED_NOTHING, "%s%s%s = %s: guest disk %s%s%s is not %s", gh,
				   gs, m->guest_disk, m->vdisk, gh, gs, m->guest_disk, where);
		}
		if (host_cap && !v_found) {
			note(a, m->file, m->line, "virtual disk %s is not %s", m->vdisk, where);
			input_said(a, "--map", m->file, m->line, IN_NAMED_NOTHING, "%s%s%s = %s: virtual disk %s is not %s", gh, gs,
				   m->guest_disk, m->vdisk, m->vdisk, where);
		}
		if (run[k] < pos[k]) { /* once, against the first line of that virtual disk: linear output too */
			const struct diskmap_entry *o = &a->map[ord[run[k]].k];
			note(a, m->file, m->line, "%s%s%s and %s%s%s (line %ld) both map to virtual disk %s: one of them is wrong",
			     gh, gs, m->guest_disk, o->guest_host ? o->guest_host : "", o->guest_host ? "\\" : "",
			     o->guest_disk, o->line, m->vdisk);
			input_said(a, "--map", m->file, m->line, IN_CONTRADICTED,
				   "%s%s%s and %s%s%s (line %ld) both map to virtual disk %s: one of them is wrong", gh, gs,
				   m->guest_disk, o->guest_host ? o->guest_host : "", o->guest_host ? "\\" : "", o->guest_disk,
				   o->line, m->vdisk);
		}
		if ((guest_cap && !g_found) || (host_cap && !v_found) || run[k] < pos[k])
			nbad++;
		/* a line naming nothing either side's capture has is said above, not kept in the map
		 * every report lists */
		drop[k] = guest_cap && host_cap && !g_found && !v_found;
		ndrop += drop[k];
		if (!file)
			file = m->file;
	}
	if (a->map_suppressed) {
		struct diag d;
		diag_init(&d, file, -1);
		d.sink = a->sink;
		diag_emit(&d, DIAG_NOTE, 0, 0,
			  "%ld more warning%s of this map suppressed (raise --max-warnings to see them)",
			  a->map_suppressed, a->map_suppressed == 1 ? "" : "s");
		a->map_suppressed = 0;
	}
	if (ndrop) {
		size_t kept = 0;
		for (size_t k = 0; k < a->nmap; k++)
			if (!drop[k])
				a->map[kept++] = a->map[k];
		a->nmap = kept;
	}
	a->map_pending = !nbad && guest_cap && host_cap ? nuser : 0; /* the IOPS are checked with the clocks aligned */
	if (nuser && !a->map_pending)
		input_said(
		    a, "--map", file, 0,
		    nbad                    ? IN_CONTRADICTED
		    : guest_cap && host_cap ? IN_AGREED
					    : IN_APPLIED,
		    "%zu disk line%s: %s%s", nuser, nuser == 1 ? "" : "s",
		    nbad ? afmt(a, "%zu of them name a disk the captures do not have or map a virtual disk twice", nbad)
		    : guest_cap && host_cap ? "every guest disk and virtual disk named is in the captures"
					    : "used as given (the captures of only one side cannot check them)",
		    ndrop ? afmt(a, "; %zu naming neither disk the captures have %s left out of the disk map", ndrop,
				 ndrop == 1 ? "is" : "are")
			  : "");
	free(gv);
	free(vv);
	free(ord);
	free(pos);
	free(run);
	free(drop);
}

/* The adapter link-up lines of file fi ("; 2 adapter link-up lines: vmhba2 at 16 Gbps (line 3), ..."). */
static const char *vmk_links_said(struct analysis *a, int fi)
{
	const struct vmk_log *l = &a->vmk;
	struct buf b;
	buf_init(&b);
	size_t n = 0;
	for (size_t i = 0; i < l->nlinks; i++) {
		const struct vmk_link *k = &l->links[i];
		if (k->file != fi)
			continue;
		if (n < 4)
			buf_printf(&b, "%s%s%s%s at %g Gbps (%s, line %ld)", n ? ", " : "", k->host ? k->host : "",
				   k->host ? " " : "", k->adapter, k->gbps, k->driver, k->line);
		n++;
	}
	const char *r = n ? afmt(a, "; %zu adapter link-up line%s read as link speeds: %s%s", n, n == 1 ? "" : "s",
				 b.data, n > 4 ? afmt(a, " and %zu more", n - 4) : "")
			  : "";
	buf_free(&b);
	return r;
}

/* What the report's inputs say of each log given: lines read, events of the families read (used inside
 * the captures' span, not used outside it), the adapters' link speeds, and the lines naming a device
 * or path of no family read, with the first as an example — so a log iopsy cannot read never looks
 * clean (issue 36). One record per file: a rotated log or another host's log has its own counts. */
static void vmklog_said(struct analysis *a, int fi, size_t used, size_t out, bool host)
{
	const struct vmk_log *l = &a->vmk;
	struct vmk_file one = {.lines = l->lines, .unknown = l->unknown, .unknown_line = l->unknown_line,
			       .unknown_example = l->unknown_example};
	const struct vmk_file *f = fi < (int)l->nfiles ? &l->files[fi] : &one;
	const char *unk = f->unknown ? afmt(a, "; %ld line%s naming a device or path of no family iopsy reads (e.g. "
					       "line %ld: \"%s\")", f->unknown, f->unknown == 1 ? "" : "s",
					    f->unknown_line, f->unknown_example ? f->unknown_example : "")
				     : "; no line naming a device or path was left unread";
	input_said(a, "--vmkernel-log", f->path ? f->path : a->opts.vmklog, 0,
		   used || f->links ? IN_APPLIED : IN_NAMED_NOTHING,
		   "%ld line%s read, %zu event%s of the families iopsy reads: %s%s%s", f->lines,
		   f->lines == 1 ? "" : "s",
		   used + out, used + out == 1 ? "" : "s",
		   host ? afmt(a, "%zu inside the host captures' time span used, %zu outside it not used", used, out)
			: "no host capture to place them in (the log stands on its own)",
		   vmk_links_said(a, fi), unk);
}

/* vmkernel.log events outside the captures' time span (with the queue-full grouping gap as a
 * margin) say nothing about them: they are not used, and a note says how many, per file. */
static void trim_vmklog(struct analysis *a)
{
	for (size_t i = 0; i < a->nvmk_unread; i++) {
		int rc = a->vmk_unread[i].rc;
		input_said(a, "--vmkernel-log", a->vmk_unread[i].path, 0, IN_NOT_APPLIED,
			   "could not be read (%s; the error is on standard error): no line of it is in this analysis",
			   rc == ERR_IO	      ? "it cannot be opened or read"
			   : rc == ERR_FORMAT ? "its bytes are not a text log"
			   : rc == ERR_NOMEM  ? "out of memory"
					      : "an error");
	}
	if (!a->have_vmk)
		return;
	size_t nf = a->vmk.nfiles ? a->vmk.nfiles : 1;
	size_t *used = xcalloc(nf, sizeof *used), *outs = xcalloc(nf, sizeof *outs);
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (c->failed || !c->rows || c->role != ROLE_HOST)
			continue;
		t0 = c->start < t0 ? c->start : t0;
		t1 = c->end > t1 ? c->end : t1;
	}
	bool host = t0 != INT64_MAX;
	int64_t margin = (int64_t)(rule_value(&a->rules, R_QFULL_GAP_S) * 1000);
	size_t o = 0, out = 0;
	for (size_t i = 0; i < a->vmk.n; i++) {
		const struct vmk_event *e = &a->vmk.ev[i];
		size_t fi = e->file >= 0 && (size_t)e->file < nf ? (size_t)e->file : 0;
		if (host && (e->t < t0 - margin || e->t > t1 + margin)) {
			out++;
			outs[fi]++;
			continue;
		}
		used[fi]++;
		a->vmk.ev[o++] = *e;
	}
	a->vmk.n = o;
	a->vmk_outside = out;
	for (size_t fi = 0; fi < nf; fi++) {
		const char *path = fi < a->vmk.nfiles && a->vmk.files[fi].path ? a->vmk.files[fi].path : a->opts.vmklog;
		if (outs[fi]) {
			char s[32], e[32];
			time_format_iso(t0, false, s);
			time_format_iso(t1, false, e);
			note(a, path ? path : "vmkernel.log", 0,
			     "%zu event%s outside the host captures' time span (%s .. %s) not used", outs[fi],
			     outs[fi] == 1 ? "" : "s", s, e);
		}
		vmklog_said(a, (int)fi, used[fi], outs[fi], host || !(used[fi] + outs[fi]));
	}
	free(used);
	free(outs);
}

/* ---- ordering and verdict ---- */

/* Severity first, then causes before symptoms (the kind table's cause rank): queues and throttling
 * explain latency. */
static int finding_cmp(const void *x, const void *y)
{
	const struct finding *a = x, *b = y;
	if (a->sev != b->sev)
		return (int)b->sev - (int)a->sev;
	if (kinds[a->kind].cause_rank != kinds[b->kind].cause_rank)
		return kinds[a->kind].cause_rank - kinds[b->kind].cause_rank;
	if (a->heuristic != b->heuristic)
		return a->heuristic ? 1 : -1;
	if (a->sustained_s != b->sustained_s)
		return a->sustained_s < b->sustained_s ? 1 : -1;
	int c = strcmp(kinds[a->kind].name, kinds[b->kind].name);
	if (c)
		return c;
	c = strcmp(a->entity, b->entity);
	if (c)
		return c;
	return (a->start > b->start) - (a->start < b->start);
}

static bool overlaps(const struct finding *x, const struct finding *y)
{
	return strcmp(x->entity, y->entity) == 0 && x->start <= y->end && y->start <= x->end;
}

/* What the host's own figures say about a guest latency finding's disk over its time: its virtual
 * disk's latency (the larger of its reads' and writes' means; a VHDX's Latency), its LUN's DAVG +
 * KAVG and its VMkernel queue (QUED), means over the finding's time; NaN where not counted. */
struct host_figs {
	double vd_ms, lun_ms, qued;
};

static struct host_figs host_figs_of(const struct analysis *a, const struct finding *f, const struct stack *st)
{
	struct host_figs h = {NAN, NAN, NAN};
	const struct model *m = &a->m;
	if (st->vdisk) {
		double r = iop_window_mean(m, st->vdisk, M_VD_LAT_R, f->start, f->end);
		double w = iop_window_mean(m, st->vdisk, M_VD_LAT_W, f->start, f->end);
		h.vd_ms = isnan(r) ? w : isnan(w) ? r : fmax(r, w);
		if (isnan(h.vd_ms))
			h.vd_ms = iop_window_mean(m, st->vdisk, M_HV_LAT, f->start, f->end);
	}
	if (st->device) {
		double d = iop_window_mean(m, st->device, M_DAVG, f->start, f->end);
		double k = iop_window_mean(m, st->device, M_KAVG, f->start, f->end);
		h.lun_ms =
		    isnan(d) ? iop_window_mean(m, st->device, M_H_LAT_T, f->start, f->end) : d + (isnan(k) ? 0 : k);
		h.qued = iop_window_mean(m, st->device, M_QUED, f->start, f->end);
	}
	return h;
}

/* The host's view of a guest latency finding no host finding explains, said from its figures: an
 * advice sentence is checked against the figures it speaks of. It says the host shows no latency on
 * the disk's virtual disk only when that disk answers in under half the guest's latency (the rest
 * waits above it), and no queueing only when its LUN's QUED stays under one command; when the host
 * sees the latency itself, it says where (above the LUN when the LUN answers in a third of it). */
static const char *host_view_advice(struct analysis *a, const struct finding *f, const struct stack *st, bool hv)
{
	struct host_figs h = host_figs_of(a, f, st);
	double gm = f->nev ? f->ev[0].median : NAN;
	const char *vd = st->vdisk->name, *what = hv ? "VHDX" : "virtual disk";
	const char *lun = st->device ? afmt(a, "%s %s", hv ? "host disk" : st->device->nfs ? "NFS datastore" : "LUN",
					    st->device->name)
				     : NULL;
	if (!isnan(h.vd_ms) && !isnan(gm) && h.vd_ms >= 0.5 * gm) {
		if (lun && !isnan(h.lun_ms) && 3 * h.lun_ms <= h.vd_ms)
			return afmt(
			    a,
			    "The host sees this latency itself: %s takes %.1f ms at the %s (mean over this time; the "
			    "guest %.1f ms) while its %s answers in %.1f ms: the time is added in the host above "
			    "the %s. Look at the %s itself: snapshots left on it (consolidate or delete them), "
			    "CBT-based backup or replication running now, IO filters.",
			    vd, h.vd_ms, what, gm, lun, h.lun_ms, hv ? "host disk" : "LUN", what);
		if (lun && !isnan(h.lun_ms))
			return afmt(
			    a,
			    "The host sees this latency itself: %s takes %.1f ms at the %s (mean over this time; the "
			    "guest %.1f ms) and its %s %.1f ms, under the rules that would name a layer: follow the "
			    "%s's latency with the storage team.",
			    vd, h.vd_ms, what, gm, lun, h.lun_ms, hv ? "host disk" : "LUN");
		return afmt(
		    a,
		    "The host sees this latency itself: %s takes %.1f ms at the %s (mean over this time; the guest "
		    "%.1f ms), but no %s of the captures is tied to it: the IO waits below the %s, where these "
		    "captures do not show. Capture the host's storage below it, or ask the storage team.",
		    vd, h.vd_ms, what, gm, hv ? "host disk" : "LUN", what);
	}
	const char *figs = isnan(h.vd_ms) ? "" : afmt(a, ", %.1f ms against the guest's %.1f ms", h.vd_ms, gm);
	const char *below = lun ? afmt(a, " or its %s", lun) : "";
	bool queues = !isnan(h.qued) && h.qued >= 1;
	const char *claim =
	    queues ? afmt(a,
			  "no latency on this disk's %s (%s%s)%s at this time (its LUN holds %.1f "
			  "commands in the VMkernel queue, QUED mean, under the queueing rules)",
			  what, vd, figs, below, h.qued)
		   : afmt(a, "no queueing or latency on this disk's %s (%s%s)%s at this time", what, vd, figs, below);
	return hv ? afmt(
			a,
			"The Hyper-V host shows %s: check the guest disk mapping (--map), guest-side filter drivers and "
			"the VM's CPU (CPU Wait Time Per Dispatch of its virtual processors).",
			claim)
		  : afmt(
			a,
			"The host captures show %s: check the guest disk mapping (--map), guest-side filter drivers and "
			"the VM's CPU (%%Ready).",
			claim);
}

/* Advice that depends on other findings: a queue that AQD, SIOC or DSNRO cuts must not be "fixed"
 * by raising the device queue depth. */

/* The advice of a finding on volume g over several disks whose own virtual disk no map can name:
 * its member disks are where the host's view is. */
static const char *volume_advice(struct analysis *a, const struct entity *g)
{
	const struct iop_volume *x = iopath_volume_of(&a->iop, g, NULL);
	struct buf l;
	buf_init(&l);
	for (size_t k = 0; k < x->nmem; k++)
		buf_printf(&l, "%s%s", k ? ", " : "", x->mem[k]->name);
	const char *s = afmt(a, "%s is a volume over %zu disks (%s; %s): it has no one virtual disk. Read the "
				"findings of its member disks, each tied to its own virtual disk and LUN (or --map "
				"each 'GUEST\\Disk N = VM:scsiC:T'); every member slow together points at what they share.",
			     g->name, x->nmem, l.data ? l.data : "", x->link.why);
	buf_free(&l);
	return s;
}

static void refine_advice(struct analysis *a)
{
	bool have_host = false;
	for (size_t i = 0; i < a->m.ncaps; i++)
		have_host |= !a->m.caps[i].failed && a->m.caps[i].format && a->m.caps[i].role == ROLE_HOST;
	struct topo_in ti = analysis_topo(a);
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *f = &a->f[i];
		if (kinds[f->kind].place != VP_GUEST_LATENCY || f->kind == K_LAT_VOL_MEMBER)
			continue;
		const struct finding *cause = NULL, *below = NULL;
		/* below: a host finding on this disk's own stack (its virtual disk, LUN or adapter), never
		 * one on another disk's LUN */
		struct stack st;
		double davg;
		topology_stack_of(&ti, f, &st);
		for (size_t k = 0; k < a->nf; k++) {
			const struct finding *g = &a->f[k];
			if (g == f || g->start > f->end || f->start > g->end)
				continue;
			if ((g->kind == K_Q_GUEST_VSCSI_CAP || (g->kind == K_Q_GUEST_HIDDEN && !cause)) &&
			    strcmp(g->entity, f->entity) == 0) {
				cause = g;
				continue;
			}
			if (g->layer != LAYER_DEVICE && g->layer != LAYER_ADAPTER && g->layer != LAYER_ARRAY &&
			    g->kind != K_LAT_VD_ABOVE && g->kind != K_T_STORAGE_QOS && g->kind != K_CSV_REDIRECTED)
				continue;
			const struct entity *ge = finding_entity(&ti, g, -1);
			if (ge && (ge == st.vdisk || ge == st.device || ge == st.adapter || ge == st.volume) &&
			    (!below || g->sev > below->sev))
				below = g;
		}
		if (a->link_note && f->capture >= 0 && analysis_clock_untrusted(a, (size_t)f->capture))
			f->advice = afmt(
			    a, "The host captures given do not go with this guest's (the guest<->host link is not "
			       "assessed, see the verdict): capture its host over the same period to see where below "
			       "the guest its IO waits.");
		else if (cause && cause->kind == K_Q_GUEST_HIDDEN)
			f->advice = afmt(a, "The time is spent inside the VM, above the host (see the %s finding, whose "
					    "advice says where to look: the guest's queue to its virtual controller, filter "
					    "drivers, guest CPU); the host and its storage are not the bottleneck for this disk.",
					 kinds[cause->kind].name);
		else if (cause)
			f->advice = afmt(a, "The time is spent in the guest, above the virtual controller (see the %s "
					    "finding): fix the controller queue first; the host and the array are not the "
					    "bottleneck for this disk.", kinds[cause->kind].name);
		else if (below)
			f->advice = afmt(a, "At the same time the host shows %s on %s: follow that finding's advice; "
					    "the guest latency is its symptom.", kinds[below->kind].name, below->entity);
		else if (have_host && !st.vdisk && f->ent >= 0 && multi_disk_volume(a, &a->m.ents[f->ent]))
			f->advice = volume_advice(a, &a->m.ents[f->ent]);
		else if (have_host && !st.vdisk)
			f->advice = afmt(a, "No virtual disk of the host captures is tied to this guest disk (no --map line, "
					    "and no virtual disk's IOPS correlate with it): the host's findings cannot be read "
					    "for it. Give --map, and check that the captures cover the host that runs this VM.");
		else if (have_host && below_hba_share(a, f, &st, &davg) >= BELOW_HBA_SHARE)
			f->advice = afmt(a, "Its LUN %s answers in %.1f ms (DAVG, mean over this time), %.0f%% of the guest's "
					    "latency: under the device rule, but the time is spent below the HBA, in the array or the "
					    "fabric. Ask the storage team about the array's write cache, replication and the LUN's "
					    "load; deeper queues would not help.", st.device->name, davg,
					 100 * davg / f->ev[0].median);
		else if (have_host)
			f->advice = host_view_advice(a, f, &st, model_hyperv(&a->m, st.vdisk->capture));
		else
			f->advice =
			    f->capture >= 0 && !model_guest_is_vm(&a->m, (size_t)f->capture)
				? afmt(a, "Only Windows' view is available, and the perfmon shows no sign of being a "
					  "VM's: look below Windows at this machine's controller, its disks or the "
					  "array behind them. If it is a VM, add its hypervisor's capture for the same "
					  "period (esxtop on VMware, the host's perfmon on Hyper-V).")
				: afmt(a, "Only the guest's view is available: add the host's capture for the same "
					  "period (esxtop on VMware, the host's perfmon on Hyper-V) to see where below "
					  "the guest the IO waits.");
	}
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *f = &a->f[i];
		if (f->kind != K_LAT_KERNEL && f->kind != K_Q_DEVICE_SATURATED)
			continue;
		for (size_t k = 0; k < a->nf; k++) {
			const struct finding *g = &a->f[k];
			if (!overlaps(f, g))
				continue;
			if (g->kind == K_T_AQD || g->kind == K_SCSI_QUEUE_FULL) {
				f->advice = afmt(a, "The queue is short because adaptive queue depth cuts it: the array "
						    "answers QUEUE FULL/BUSY (see the %s finding). Raising the HBA queue depth "
						    "would only make the array refuse more commands; reduce what the hosts send "
						    "to the array port/LU instead, or spread the LUNs over more ports [seed].",
						 kinds[g->kind].name);
				break;
			}
			if (g->kind == K_T_SIOC) {
				f->advice = afmt(a, "Storage I/O Control is throttling this host's queue because the "
						    "datastore's latency is at its congestion threshold: raising DQLEN has no "
						    "effect; adjust disk shares or move load off the datastore.");
				break;
			}
			if (g->kind == K_T_DSNRO) {
				f->advice = afmt(a, "The queue is capped by Disk.SchedNumReqOutstanding while several VMs "
						    "are active: raise DSNRO for this device to the HBA LUN queue depth "
						    "(esxcli storage core device set -d %s -O N) and re-measure.", f->entity);
				break;
			}
		}
	}
}

/* One problem, one finding: findings of one kind on one entity of a capture closer than the
 * episode gap (sustain.episode_gap_s, at least five intervals) are one episode. The streamed
 * detectors make episodes as they go; this joins those of the detectors that run over the whole
 * model (the guest queue at the vSCSI limit, hidden guest queueing, AQD, SIOC). Evidence: the
 * extremes and counts of all windows, the quantiles of the longest. */
static void join_episodes(struct analysis *a)
{
	size_t o = 0;
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *f = &a->f[i];
		struct finding *into = NULL;
		if (f->capture >= 0 && f->ent >= 0) {
			const struct capture *c = &a->m.caps[f->capture];
			double gap = fmax(rule_value(&a->rules, R_EPISODE_GAP_S), 5 * c->interval_s) * 1000;
			for (size_t k = 0; k < o && !into; k++) {
				struct finding *g = &a->f[k];
				if (g->kind == f->kind && g->ent == f->ent && g->capture == f->capture &&
				    (double)(f->start - g->end) <= gap && (double)(g->start - f->end) <= gap)
					into = g;
			}
		}
		if (!into) {
			if (o != i)
				a->f[o] = *f;
			o++;
			continue;
		}
		/* the windows of both, in time order */
		int n1 = into->nsub > 1 ? into->nsub : 1, n2 = f->nsub > 1 ? f->nsub : 1;
		struct subwin *sub = arena_alloc(&a->arena, (size_t)(n1 + n2) * sizeof *sub);
		for (int k = 0; k < n1; k++)
			sub[k] = into->nsub > 1 ? into->sub[k] : (struct subwin){into->start, into->end};
		for (int k = 0; k < n2; k++)
			sub[n1 + k] = f->nsub > 1 ? f->sub[k] : (struct subwin){f->start, f->end};
		for (int k = 1; k < n1 + n2; k++)
			for (int j = k; j > 0 && sub[j].start < sub[j - 1].start; j--) {
				struct subwin t = sub[j];
				sub[j] = sub[j - 1];
				sub[j - 1] = t;
			}
		const struct finding *longer = f->sustained_s > into->sustained_s ? f : into;
		struct finding m = *longer;
		m.start = into->start < f->start ? into->start : f->start;
		m.end = into->end > f->end ? into->end : f->end;
		m.sustained_s = into->sustained_s + f->sustained_s;
		m.sev = into->sev > f->sev ? into->sev : f->sev;
		m.sub = sub;
		m.nsub = n1 + n2;
		const struct finding *other = longer == f ? into : f;
		for (int k = 0; k < m.nev; k++)
			for (int j = 0; j < other->nev; j++)
				if (other->ev[j].metric == m.ev[k].metric) {
					m.ev[k].min = fmin(m.ev[k].min, other->ev[j].min);
					m.ev[k].max = fmax(m.ev[k].max, other->ev[j].max);
					m.ev[k].samples += other->ev[j].samples;
					if (m.ev[k].above >= 0 && other->ev[j].above >= 0)
						m.ev[k].above += other->ev[j].above;
				}
		*into = m;
	}
	a->nf = o;
}

static double ev_max(const struct finding *f, enum metric m)
{
	for (int k = 0; k < f->nev; k++)
		if (f->ev[k].metric == m)
			return f->ev[k].max;
	return NAN;
}

/* One event, one finding: a failover aborts commands on the LUNs and so on their adapter. An
 * adapter's aborts/resets finding at the times one of its LUNs has its own (linked by the
 * topology, or carrying at least half the adapter's peak abort rate) is folded into the LUN's,
 * which names the adapter. */
static void fold_adapter_errors(struct analysis *a)
{
	struct topo_in ti = analysis_topo(a);
	bool *drop = xcalloc(a->nf ? a->nf : 1, sizeof *drop);
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		if (f->kind != K_ERR_ABORTS_RESETS || f->layer != LAYER_ADAPTER || f->capture < 0)
			continue;
		const struct entity *fe = finding_entity(&ti, f, -1);
		for (size_t k = 0; k < a->nf; k++) {
			struct finding *g = &a->f[k];
			if (g->kind != K_ERR_ABORTS_RESETS || g->layer != LAYER_DEVICE || g->capture != f->capture ||
			    g->start > f->end || f->start > g->end)
				continue;
			struct stack st;
			topology_stack_of(&ti, g, &st);
			if (!(fe && st.adapter == fe) && !(ev_max(g, M_ABRTS) >= 0.5 * ev_max(f, M_ABRTS)))
				continue;
			g->summary = afmt(a, "%s; seen at adapter %s too (aborts up to %.0f/s)", g->summary, f->entity,
					  ev_max(f, M_ABRTS));
			if (f->sev > g->sev)
				g->sev = f->sev;
			drop[i] = true;
			break;
		}
	}
	size_t o = 0;
	for (size_t i = 0; i < a->nf; i++)
		if (!drop[i])
			a->f[o++] = a->f[i];
	a->nf = o;
	free(drop);
}

/* A cause is as severe as the symptoms it explains: a queue, throttling or saturation finding
 * takes the severity of a worse latency finding at the same time on the same disk's stack (the
 * kind table's cause rank says which is which), and says so. */
static void raise_causes(struct analysis *a)
{
	struct topo_in ti = analysis_topo(a);
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *c = &a->f[i];
		if (kinds[c->kind].cause_rank > 1 || kinds[c->kind].place == VP_NONE || c->sev == SEV_INFO)
			continue; /* information is no cause */
		const struct finding *worst = NULL;
		for (size_t k = 0; k < a->nf; k++) {
			const struct finding *s = &a->f[k];
			if (kinds[s->kind].cause_rank != 3 || s->sev <= c->sev || (worst && s->sev <= worst->sev))
				continue;
			if (s->start > c->end || c->start > s->end)
				continue;
			struct stack st;
			topology_stack_of(&ti, s, &st);
			const struct entity *ce = finding_entity(&ti, c, -1);
			if (ce && (ce == st.guest || ce == st.vdisk || ce == st.device || ce == st.adapter))
				worst = s;
		}
		if (!worst)
			continue;
		c->sev = worst->sev;
		c->summary = afmt(a, "%s — the cause of the %s %s on %s%s%s", c->summary, severity_names[worst->sev],
				  kinds[worst->kind].title, worst->host ? worst->host : "", worst->host ? " " : "", worst->entity);
	}
}

/* What backs the virtual disks the host layers are judged for (coverage): those mapped to guest
 * disks, else every active one; each on a SCSI LUN, an NFS volume, or nothing the capture shows. */
static void vdisk_backing(struct analysis *a, struct cov_in *ci)
{
	struct topo_in ti = analysis_topo(a);
	for (int pass = 0; pass < 2 && ci->vd_n == 0; pass++) {
		for (size_t i = 0; i < a->m.nents; i++) {
			const struct entity *v = &a->m.ents[i];
			if (v->layer != LAYER_VSCSI || v->outside || v->series[M_CMDS] < 0 || !entity_sk(v, M_CMDS)->n ||
			    qs_mean(entity_sk(v, M_CMDS)) < rule_value(&a->rules, R_ACTIVE_IOPS))
				continue;
			bool mapped = false;
			for (size_t k = 0; k < a->nmap && !mapped; k++)
				mapped = strcmp(a->map[k].vdisk, v->name) == 0;
			if (pass == 0 && !mapped)
				continue;
			struct stack st;
			topology_stack(&ti, v, &st);
			ci->vd_n++;
			if (st.device && !st.device->nfs) {
				ci->vd_scsi++;
				continue;
			}
			ci->vd_nfs += st.device != NULL;
			ci->vd_unknown += !st.device && st.back == BACK_UNKNOWN;
			if (!ci->vd_other)
				ci->vd_other = v->name;
		}
	}
}

/* --disk on host captures: their virtual disks and devices were read whole; keep those the pattern
 * names and those on a selected disk's path (its virtual disk by the disk map, that one's LUN by
 * the IO path graph), leave out the rest (entity.outside, the selection's counts). */
static void select_stacks(struct analysis *a)
{
	struct ent_filter *f = a->m.filter;
	if (!ef_kind_on(f, EF_DISK) && !ef_kind_on(f, EF_VM)) /* --vm: a Hyper-V VHDX is decided here too */
		return;
	size_t n = a->m.nents;
	bool pending = false;
	for (size_t i = 0; i < n && !pending; i++)
		pending = a->m.ents[i].disk_match >= 0;
	if (!pending)
		return;
	bool *sel = xcalloc(n ? n : 1, sizeof *sel);
	for (size_t i = 0; i < n; i++)
		sel[i] = a->m.ents[i].disk_match == 1;
	for (size_t k = 0; k < a->nmap; k++) {
		const struct diskmap_entry *me = &a->map[k];
		bool guest = false;
		for (size_t i = 0; i < n && !guest; i++) {
			const struct entity *g = &a->m.ents[i];
			guest = g->layer == LAYER_GUEST && strcmp(g->name, me->guest_disk) == 0 &&
				(!me->guest_host || !g->host || strcasecmp(me->guest_host, g->host) == 0);
		}
		for (size_t i = 0; guest && i < n; i++)
			if (a->m.ents[i].layer == LAYER_VSCSI && strcmp(a->m.ents[i].name, me->vdisk) == 0)
				sel[i] = true;
	}
	for (size_t i = 0; i < n; i++) {
		const struct entity *v = &a->m.ents[i];
		const struct iop_vdisk *g = sel[i] && v->layer == LAYER_VSCSI ? iopath_vdisk(&a->iop, v) : NULL;
		if (g && g->dev)
			sel[g->dev - a->m.ents] = true;
		for (size_t k = 0; g && k < g->nspan; k++) /* every LUN it was on (a Storage vMotion) */
			sel[g->span[k].dev - a->m.ents] = true;
	}
	for (size_t i = 0; i < n; i++) {
		struct entity *e = &a->m.ents[i];
		if (e->disk_match < 0 || sel[i])
			continue;
		e->outside = true;
		f->kept[e->layer]--;
		f->dropped[e->layer]++;
	}
	free(sel);
}

/* The selection's LUNs that VMs outside it use too: a VM whose worlds do IO to a kept device while
 * none of its virtual disks the graph puts there is kept. */
static void selection_shared(struct analysis *a)
{
	if (!ef_on(a->m.filter))
		return;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *d = &a->m.ents[i];
		if (d->layer != LAYER_DEVICE || d->outside || d->nfs)
			continue;
		const struct capture *c = &a->m.caps[d->capture];
		struct iop_share s[IOP_MAX_SHARES];
		size_t n = iopath_device_load(&a->iop, &a->m, d, c->start + c->clock_offset_ms, c->end + c->clock_offset_ms, s,
					      IOP_MAX_SHARES, &a->arena);
		for (size_t k = 0; k < n; k++) {
			if (!s[k].is_vm || s[k].share < 0.01)
				continue;
			bool kept = false;
			for (size_t v = 0; v < a->iop.nvd && !kept; v++)
				kept = a->iop.vd[v].dev == d && !a->iop.vd[v].v->outside && strcmp(a->iop.vd[v].vm, s[k].who) == 0;
			if (kept)
				continue;
			a->shared = xrealloc(a->shared, (a->nshared + 1) * sizeof *a->shared);
			a->shared[a->nshared++] = (struct sel_shared){d->name, s[k].who, s[k].share};
		}
	}
}

/* Whether finding f is about an entity outside the selection. */
static bool finding_outside(const struct analysis *a, const struct finding *f)
{
	if (f->ent >= 0 && (size_t)f->ent < a->m.nents)
		return a->m.ents[f->ent].outside;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->outside && strcmp(e->name, f->entity) == 0)
			return true;
	}
	return false;
}

/* A VHDX whose Latency is far above its guest disk's at the same time cannot be: the guest's IO
 * passes through it (doc/hyperv.md). relog writes the counter in seconds [doc/hyperv-domain.md §2];
 * a capture written otherwise (milliseconds, raw 100 ns ticks) makes every VHDX look hundreds of
 * times slower than its guest. Said on stderr and in the verdict, once per capture. */
static void check_vhdx_unit(struct analysis *a)
{
	for (size_t ci = 0; ci < a->m.ncaps; ci++)
	for (size_t k = 0; a->m.caps[ci].role == ROLE_GUEST && k < a->nmap; k++) {
		struct entity *g, *v;
		if (!map_pair(a, &a->m.caps[ci], k, &g, &v) || !model_hyperv(&a->m, v->capture) || !entity_sk(v, M_HV_LAT)->n)
			continue;
		double vl = qs_quantile(entity_sk(v, M_HV_LAT), 0.5);
		double gl = entity_sk(g, M_G_LAT_T)->n ? qs_quantile(entity_sk(g, M_G_LAT_T), 0.5)
			    : entity_sk(g, M_G_LAT_R)->n   ? qs_quantile(entity_sk(g, M_G_LAT_R), 0.5)
							 : NAN;
		if (isnan(gl) || !(vl > 100) || vl < 20 * (gl > 0.05 ? gl : 0.05))
			continue;
		const struct capture *c = &a->m.caps[v->capture];
		note(a, c->path, 0, "the VHDX Latency of %s (median %.0f ms) is %.0f times its guest disk %s's (%.1f ms), though "
			 "the guest's IO passes through it: the capture's Latency may not be in seconds (relog writes "
			 "seconds); check how the file was exported before trusting the VHDX findings", v->name, vl,
			 vl / gl, g->name, gl);
		a->clock_note = afmt(a, "%s%sThe VHDX Latency of %s is %.0f times its guest disk's: the host capture's "
					"Latency may not be in seconds, so the VHDX figures are not to be trusted.",
				     a->clock_note ? a->clock_note : "", a->clock_note ? " " : "", v->name, vl / gl);
		return;
	}
}

struct hist_vm {
	long gid;
	char vm[128];
	const char *cap;
};

/* The VMs' group ids the other captures name (esxtop Group Cpu(GID:VM)): the worldGroupID of a
 * vscsiStats disk is one of them. Their headers are read again (only when histograms were given). */
static struct hist_vm *hist_vms(struct analysis *a, const struct common_opts *co, size_t *nvm)
{
	struct hist_vm *vm = NULL;
	*nvm = 0;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		const struct parser_ops *f = c->format && !c->failed ? parser_find(c->format) : NULL;
		struct input in;
		if (!f || !f->group_of || strcmp(c->path, "-") == 0 || input_open(&in, c->path, co) < 0)
			continue;
		long gid;
		char name[128];
		for (size_t k = 0; k < reader_ncols(in.r); k++) {
			if (!f->group_of(&reader_column(in.r, k)->path, &gid, name, sizeof name))
				continue;
			bool dup = false;
			for (size_t j = 0; j < *nvm && !dup; j++)
				dup = vm[j].gid == gid;
			if (dup)
				continue;
			vm = xrealloc(vm, (*nvm + 1) * sizeof *vm);
			vm[*nvm] = (struct hist_vm){.gid = gid, .cap = c->path};
			snprintf(vm[(*nvm)++].vm, sizeof vm[0].vm, "%s", name);
		}
		input_close(&in);
	}
	return vm;
}

/* --vm on the virtual disks of a histogram capture read from first on: a disk is kept when the VM
 * another capture names for its worldGroupID matches; one whose VM no capture names cannot be
 * selected and is left out, said. */
static void hist_select(struct analysis *a, const char *path, size_t first, const struct hist_vm *vm, size_t nvm)
{
	if (!a->m.filter || !ef_kind_on(a->m.filter, EF_VM))
		return;
	size_t k = first, unnamed = 0, other = 0;
	for (size_t i = first; i < a->hist.n; i++) {
		const struct hist_vm *v = NULL;
		for (size_t j = 0; j < nvm && !v; j++)
			v = vm[j].gid == a->hist.d[i].gid ? &vm[j] : NULL;
		if (v && ef_test(a->m.filter, EF_VM, v->vm))
			a->hist.d[k++] = a->hist.d[i];
		else
			*(v ? &other : &unnamed) += 1;
	}
	a->hist.n = k;
	if (other + unnamed)
		input_said(a, "vscsiStats", path, 0, IN_APPLIED,
			   "--vm: %zu virtual disk%s left out (%zu of another VM, %zu whose VM no capture "
			   "names%s)",
			   other + unnamed, other + unnamed == 1 ? "" : "s", other, unnamed,
			   unnamed ? ": give the esxtop of the same host to select them" : "");
}

/* The captures whose format carries histograms (vscsiStats), kept in a->hist for the reports: what
 * they show, beside the findings, with the VM the other captures name for the disk's worldGroupID. */
static void histogram_evidence(struct analysis *a)
{
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	vhist_free(&a->hist);
	bool any = false;
	for (size_t i = 0; i < a->m.ncaps && !any; i++) {
		const struct parser_ops *f = a->m.caps[i].format ? parser_find(a->m.caps[i].format) : NULL;
		any = f && f->histograms && !a->m.caps[i].failed;
	}
	if (!any)
		return;
	size_t nvm;
	struct hist_vm *vm = hist_vms(a, &co, &nvm);
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		const struct parser_ops *f = c->format && !c->failed ? parser_find(c->format) : NULL;
		if (!f || !f->histograms)
			continue;
		if (strcmp(c->path, "-") == 0) {
			input_said(a, "vscsiStats", c->path, 0, IN_APPLIED,
				   "histograms read from stdin are not assessed (stdin is read once, as a "
				   "capture): give the file's name");
			continue;
		}
		size_t first = a->hist.n;
		if (vhist_load(c->path, &co, &a->hist) < 0)
			continue;
		hist_select(a, c->path, first, vm, nvm);
		for (size_t k = first; k < a->hist.n; k++) {
			struct vh_disk *d = &a->hist.d[k];
			const struct hist_vm *v = NULL;
			for (size_t j = 0; j < nvm && !v; j++)
				v = vm[j].gid == d->gid ? &vm[j] : NULL;
			buf_reset(&b);
			vhist_sentence(d, &b);
			if (!v) {
				input_said(a, "vscsiStats", c->path, 0, IN_APPLIED, "%s", b.data);
				continue;
			}
			snprintf(d->vm, sizeof d->vm, "%s", v->vm);
			d->vm_cap = v->cap;
			input_said(a, "vscsiStats", c->path, 0, IN_AGREED,
				   "VM %s (worldGroupID %ld is its Group Cpu id in %s: read from the identifiers); %s",
				   v->vm, d->gid, v->cap, b.data);
		}
	}
	buf_free(&b);
	free(vm);
}

/* The verdict's word on the histograms: each virtual disk whose outstanding IOs are piled at the LSI
 * Logic per-disk limit (the cap seen from the VM's side, whatever the perfmon shows), and, when
 * they are the only input, that they were read. */
static void histogram_verdict(struct analysis *a)
{
	struct buf t;
	buf_init(&t);
	for (size_t i = 0; i < a->hist.n; i++) {
		const struct vh_disk *d = &a->hist.d[i];
		double lo, at = vhist_in_bucket(&d->h[VH_OIO], VH_LSI_PER_DISK, &lo);
		if (vhist_cap_state(&d->h[VH_OIO]) != 0)
			continue;
		buf_adds(&t, " vscsiStats: ");
		vhist_disk_name(d, &t);
		buf_printf(&t,
			   "'s outstanding IOs are piled at %d with none above (%.1f%% of its IOs issued "
			   "with %.0f-%d in flight): the LSI Logic per-disk cap, seen as the VM issued them "
			   "(a histogram has no time axis: not when).",
			   VH_LSI_PER_DISK, 100 * at, lo, VH_LSI_PER_DISK);
	}
	bool rows = false;
	for (size_t i = 0; i < a->m.ncaps; i++)
		rows |= a->m.caps[i].rows > 0;
	if (!rows && a->hist.n)
		buf_printf(&t,
			   " vscsiStats histograms of %zu virtual disk%s were read: what they show is said "
			   "with them (the virtual disk histograms).",
			   a->hist.n, a->hist.n == 1 ? "" : "s");
	if (t.len)
		a->verdict = afmt(a, "%s%s", a->verdict ? a->verdict : "", t.data);
	buf_free(&t);
}

void analysis_run(struct analysis *a, const struct analyze_opts *o)
{
	a->opts = *o;
	a->ninputs = a->inputs_more = 0;
	if (o->rules) {
		struct rule_override ov[RULES_MAX_OVERRIDES];
		size_t n = rules_overrides(&a->rules, ov, RULES_MAX_OVERRIDES);
		input_said(a, "--rules", o->rules, 0, IN_APPLIED, "%zu rule%s overridden%s", n, n == 1 ? "" : "s",
			   n ? " (listed under the rules overridden)" : ": every rule at its default");
	}
	for (size_t i = 0; i < a->m.ncaps; i++) {
		char what[160];
		long cols = model_over_cap_text(&a->m, i, what, sizeof what);
		if (cols)
			input_said(
			    a, "CAPTURE", a->m.caps[i].path, 1, IN_NOT_APPLIED,
			    "more than %d entities of one kind: %ld column%s of %s not read, those layers not assessed",
			    MODEL_MAX_ENTITIES, cols, cols == 1 ? "" : "s", what);
	}
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (c->dup_columns)
			input_said(
			    a, "CAPTURE", c->path, c->dup_line, IN_NOT_APPLIED,
			    "%ld column%s with the name of an earlier column, not read (the first: column %ld, %s)",
			    c->dup_columns, c->dup_columns == 1 ? "" : "s", c->dup_first_col, c->dup_first);
		if (c->ambiguous_vms)
			input_said(
			    a, "CAPTURE", c->path, 0, IN_NOT_APPLIED,
			    "%d VM name%s used by two or more VMs (group ids), the first %s: their worlds are told apart "
			    "by group id, their virtual disks (named by the VM's name) are not",
			    c->ambiguous_vms, c->ambiguous_vms == 1 ? "" : "s", c->ambiguous_first);
	}
	histogram_evidence(a);
	iopath_free(&a->iop);
	iopath_build(&a->iop, &a->m);
	resolve_vhdx_names(a);
	verify_map(a);
	trim_vmklog(a);
	auto_map(a);
	select_stacks(a);
	free(a->shared);
	a->shared = NULL;
	a->nshared = 0;
	selection_shared(a);
	align_clocks(a, o);
	a->link_note = NULL;
	check_link(a);
	check_vhdx_unit(a);
	/* the episodes found while the captures streamed, then the detectors that need the whole
	 * model (clocks aligned, disks mapped, logs and partition tables read) */
	stream_findings(a);
	for (const struct detector *d = detectors; d->title; d++)
		if (d->run)
			d->run(a);
	{
		size_t k = 0;
		for (size_t i = 0; i < a->nf; i++)
			if (!finding_outside(a, &a->f[i]))
				a->f[k++] = a->f[i];
		a->nf = k;
	}
	join_episodes(a);
	split_at_qdepth_steps(a);
	if (a->window.on) {
		/* the first row inside a window measures the interval before it, which may begin before
		 * the window: a finding is said within the window the user asked for */
		for (size_t i = 0; i < a->nf; i++) {
			struct finding *f = &a->f[i];
			if (f->start < a->window.from && f->end > a->window.from)
				f->start = a->window.from;
			if (f->end > a->window.to && f->start < a->window.to)
				f->end = a->window.to;
		}
	}
	analysis_sampling(a, true); /* sampling.c: a finding of one coarse row says so */
	fold_adapter_errors(a);
	refine_advice(a);
	raise_causes(a);
	analysis_cpu_explains(a);
	analysis_mem_explains(a);
	analysis_shared_load(a);
	if (a->nf)
		qsort(a->f, a->nf, sizeof *a->f, finding_cmp);
	struct cov_in ci = {.m = &a->m, .r = &a->rules, .have_vmklog = a->have_vmk, .have_partitions = a->have_parts,
			    .array_queue_depth = a->opts.array_queue_depth, .filter = a->m.filter};
	vdisk_backing(a, &ci);
	coverage_free(&a->cov);
	coverage_build(&ci, &a->cov);
	if (a->link_note) {
		a->cov.link_why = a->link_note;
		a->cov.complete = false;
	}
	analysis_sampling(a, false); /* sampling.c: the coverage's sampling line */
	analysis_verdict(a);
	struct topo_in ti = analysis_topo(a);
	a->nshown = topology_build(&ti, a->shown);
	/* SQL Server's side of the storage episodes (sqlimpact.h) */
	struct sql_in si = {.m = &a->m, .ti = ti, .r = &a->rules, .db = a->dbmap, .ndb = a->ndbmap};
	if (!a->sql)
		a->sql = xcalloc(1, sizeof *a->sql);
	sql_build(&si, a->sql, &a->arena);
	/* a SQL Server wait the storage does not explain belongs in the verdict: look elsewhere */
	for (size_t i = 0; i < a->sql->n; i++) {
		const struct sql_instance *in = &a->sql->in[i];
		for (size_t k = 0; k < in->nsym; k++)
			a->verdict = afmt(a, "%s SQL Server (%s, %s): %s", a->verdict, in->host, in->label, in->sym[k].text);
	}
	histogram_verdict(a);
}

const char *display_path(const char *p, bool base_only, const char *cwd)
{
	if (!p || strcmp(p, "-") == 0)
		return p;
	if (base_only) {
		const char *b = strrchr(p, '/');
		return b && b[1] ? b + 1 : p;
	}
	size_t cl = cwd ? strlen(cwd) : 0;
	if (cl > 1 && p[0] == '/' && strncmp(p, cwd, cl) == 0 && p[cl] == '/' && p[cl + 1])
		return p + cl + 1;
	return p;
}

void analysis_display_paths(struct analysis *a, bool base_only, const char *cwd)
{
	struct model *m = &a->m;
	for (size_t i = 0; i < m->ncaps; i++) {
		struct capture *c = &m->caps[i];
		c->path = display_path(c->path, base_only, cwd);
		for (size_t k = 0; k < c->nparts; k++)
			c->parts[k].path = display_path(c->parts[k].path, base_only, cwd);
	}
	a->window.ref = display_path(a->window.ref, base_only, cwd);
	rules_display_paths(&a->rules, base_only, cwd);
}

void rules_display_paths(struct rules *r, bool base_only, const char *cwd)
{
	for (int i = 0; i < R_COUNT; i++)
		r->at[i].file = display_path(r->at[i].file, base_only, cwd);
	for (int k = 0; k < r->nset; k++)
		r->set[k].at.file = display_path(r->set[k].at.file, base_only, cwd);
}
