/* compare_verdict.c — what a comparison concludes: findings gone / still present / new / not
 * assessed on a side (each side's analysis, entity names translated through the matching, the
 * inputs and coverage of the other side), latency changes the load explains, which rows decide
 * (the top of each IO stack), the outcome (improved / regressed / mixed / unchanged / not
 * comparable) from them, the headline that proves it in two or three figures, and the detail
 * paragraph. */
#include "compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

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
		    !cmp_host_same(p->host[0], f->host))
			continue;
		*entity = p->name[1];
		*host = p->host[1];
		if (p->layer == f->layer)
			return;
	}
}

/* Why side o could not have shown finding f of side s (NULL: it could). A finding from the
 * partitions file needs one on the other side, one from vmkernel.log a vmkernel.log; one from the
 * captures needs the layer assessed there and its entity present and assessed. */
static const char *unseen_why(const struct compare *c, const long *pe, const struct finding *f, int s, int o)
{
	const struct analysis *a = &c->side[o];
	if (f->kind == K_ALIGN_MISALIGNED)
		return a->have_parts ? NULL : o ? "no partitions file after (--after-partitions)"
						 : "no partitions file before (--before-partitions)";
	if (f->kind == K_SCSI_QUEUE_FULL || (f->kind == K_ERR_ABORTS_RESETS && f->capture < 0))
		return a->have_vmk ? NULL : o ? "no vmkernel.log after (--after-vmkernel-log)"
					       : "no vmkernel.log before (--before-vmkernel-log)";
	if (!cmp_readable_caps(&a->m))
		return "no readable capture";
	if ((int)f->layer < COV_LAYERS && a->cov.layer[f->layer].status == COV_NOT_ASSESSED)
		return a->cov.layer[f->layer].why && *a->cov.layer[f->layer].why ? a->cov.layer[f->layer].why
										   : "the layer is not assessed";
	if (f->ent < 0 || (size_t)f->ent >= c->side[s].m.nents || pe[f->ent] < 0)
		return NULL;
	const struct cmp_pair *p = &c->pairs[pe[f->ent]];
	if (!p->name[o])
		return "the entity is not in those captures";
	for (size_t k = 0; k < p->nents[o]; k++)
		if (coverage_entity_assessed(&a->cov, p->ents[o][k]))
			return NULL;
	return "the entity is not assessed there (idle, too short or without the counters)";
}

void cmp_findings_diff(struct compare *c)
{
	bool *seen[2] = {NULL, NULL};
	const char **why[2] = {NULL, NULL};
	for (int s = 0; s < 2; s++) {
		const struct analysis *a = &c->side[s];
		size_t ne = a->m.nents;
		long *pe = xmalloc((ne ? ne : 1) * sizeof *pe);
		for (size_t i = 0; i < ne; i++)
			pe[i] = -1;
		for (size_t i = 0; i < c->npairs; i++)
			for (size_t k = 0; k < c->pairs[i].nents[s]; k++)
				pe[c->pairs[i].ents[s][k]] = (long)i;
		for (size_t i = 0; i < a->nf; i++) {
			const struct finding *f = &a->f[i];
			const char *e = f->entity, *h = f->host;
			if (s == 0)
				translate(c, f, &e, &h);
			size_t k = 0;
			for (; k < c->nfd; k++)
				if (c->fd[k].kind == f->kind && strcmp(c->fd[k].entity, e) == 0 && cmp_host_same(c->fd[k].host, h))
					break;
			if (k == c->nfd) {
				c->fd = xrealloc(c->fd, (c->nfd + 1) * sizeof *c->fd);
				for (int t = 0; t < 2; t++) {
					seen[t] = xrealloc(seen[t], (c->nfd + 1) * sizeof *seen[t]);
					why[t] = xrealloc(why[t], (c->nfd + 1) * sizeof *why[t]);
					seen[t][c->nfd] = false;
					why[t][c->nfd] = NULL;
				}
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
			const char *w = unseen_why(c, pe, f, s, !s);
			if (!w)
				seen[s][k] = true;
			else if (!why[s][k])
				why[s][k] = w;
			if (s == 1) {
				d->entity = f->entity;
				d->host = f->host;
			}
		}
		free(pe);
	}
	for (size_t k = 0; k < c->nfd; k++) {
		struct cmp_fdiff *d = &c->fd[k];
		if (d->count[0] && d->count[1])
			d->status = FD_STILL;
		else if (d->count[0])
			d->status = seen[0][k] ? FD_GONE : FD_NOT_ASSESSED_AFTER;
		else
			d->status = seen[1][k] ? FD_NEW : FD_NOT_ASSESSED_BEFORE;
		d->why = d->status == FD_NOT_ASSESSED_AFTER ? why[0][k] : d->status == FD_NOT_ASSESSED_BEFORE ? why[1][k] : NULL;
	}
	for (int t = 0; t < 2; t++) {
		free(seen[t]);
		free(why[t]);
	}
}

/* ---- which rows decide ---- */

static bool pair_latency_assessed(const struct compare *c, const struct cmp_pair *p)
{
	if (!p->name[0] || !p->name[1])
		return false;
	for (size_t r = p->first_row; r < p->first_row + p->nrows; r++)
		if (c->rows[r].spec->kind == CK_LATENCY && c->rows[r].verdict != CV_NOT_ASSESSED)
			return true;
	return false;
}

/* The pair an entity (model index e of side s) belongs to, through the index pe[s]. */
static const struct cmp_pair *pair_of_ent(const struct compare *c, long *const pe[2], int s, const struct entity *e)
{
	if (!e)
		return NULL;
	long k = pe[s][e - c->side[s].m.ents];
	return k >= 0 ? &c->pairs[k] : NULL;
}

/* A latency row decides the comparison when nothing compared sits above it in its IO stack:
 * guest disks always; a virtual disk when its guest disk (the disk map) is not compared; a device
 * when neither its virtual disk (IOPS correlation, topology.c) nor that one's guest disk is; an
 * adapter only when no guest disk, virtual disk or device is compared (its latency is its
 * devices'). Below a compared disk, latency explains (the bottleneck moved down a layer,
 * doc/domain.md §6); it does not decide. */
static void mark_decisive(struct compare *c)
{
	long *pe[2];
	for (int s = 0; s < 2; s++) {
		size_t n = c->side[s].m.nents;
		pe[s] = xmalloc((n ? n : 1) * sizeof *pe[s]);
		for (size_t i = 0; i < n; i++)
			pe[s][i] = -1;
	}
	for (size_t i = 0; i < c->npairs; i++)
		for (int s = 0; s < 2; s++)
			for (size_t k = 0; k < c->pairs[i].nents[s]; k++)
				pe[s][c->pairs[i].ents[s][k]] = (long)i;
	bool any_upper = false;
	for (size_t i = 0; i < c->npairs; i++) {
		enum layer l = c->pairs[i].layer;
		if ((l == LAYER_GUEST || l == LAYER_VSCSI || l == LAYER_DEVICE) && pair_latency_assessed(c, &c->pairs[i]))
			any_upper = true;
	}
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if (!p->nrows || !p->name[0] || !p->name[1])
			continue;
		bool covered = false;
		if (p->layer == LAYER_ADAPTER) {
			covered = any_upper;
		} else if (p->layer == LAYER_VSCSI || p->layer == LAYER_DEVICE) {
			for (int s = 0; s < 2 && !covered; s++) {
				struct topo_in ti = analysis_topo(&c->side[s]);
				struct stack st;
				topology_stack(&ti, cmp_ent(c, p, s, 0), &st);
				const struct cmp_pair *g = pair_of_ent(c, pe, s, st.guest);
				const struct cmp_pair *vd = p->layer == LAYER_DEVICE ? pair_of_ent(c, pe, s, st.vdisk) : NULL;
				covered = (g && g != p && pair_latency_assessed(c, g)) || (vd && vd != p && pair_latency_assessed(c, vd));
			}
		} else if (p->layer != LAYER_GUEST) {
			continue;
		}
		for (size_t r = p->first_row; r < p->first_row + p->nrows; r++)
			c->rows[r].decisive = c->rows[r].spec->kind == CK_LATENCY && !covered;
	}
	free(pe[0]);
	free(pe[1]);
}

static int io_direction(enum metric m);

/* Latency rose by a smaller factor than the work in the busy phase, which rose materially, where
 * equal load cannot be compared (the loads do not overlap): more load, not a slower stack. Every
 * figure that rose is a quantile (a share of time above a band is not a factor of the load) and
 * rose by less than the work did (doc/rules-sources.md, "compare"). */
static bool more_load(const struct cmp_row *r, const struct cmp_figure *w)
{
	if ((r->has_lm && r->lm.comparable) || w->verdict != CV_HIGHER || !(w->v[0] > 0) || !(w->v[1] > 0))
		return false;
	double load = w->v[1] / w->v[0];
	for (int f = 0; f < CF_COUNT; f++) {
		if (!(r->worse >> f & 1u))
			continue;
		const struct cmp_figure *g = &r->fig[f];
		if (cmp_fig_is_share((enum cmp_fig)f) || !(g->v[0] > 0) || !(g->v[1] / g->v[0] < load))
			return false;
	}
	return true;
}

/* A latency change the load explains: a row regressed while its entity did materially more work
 * in the busy phase (or improved with materially less), and at equal load (comparable bins) the
 * latency did not move that way. Little's law: the queue, hence the wait, grows with the work
 * at the same service; the change did not make IO slower per unit of load. It is unchanged, with
 * the figures that moved kept (better/worse) for the detail. */
static void load_explained(struct compare *c)
{
	const unsigned lmbit = 1u << CMP_LM_BIT;
	for (size_t i = 0; i < c->nrows; i++) {
		struct cmp_row *r = &c->rows[i];
		if (r->spec->kind != CK_LATENCY || r->spec->load < 0)
			continue;
		/* the figures moved one way only (equal load may have moved the other: it stays) */
		unsigned fb = r->better & ~lmbit, fw = r->worse & ~lmbit;
		if (!(fw && !fb) && !(fb && !fw))
			continue;
		const struct cmp_pair *p = &c->pairs[r->pair];
		const struct cmp_row *io = NULL;
		for (size_t k = p->first_row; k < p->first_row + p->nrows && !io; k++)
			if (c->rows[k].spec->metric == (enum metric)r->spec->load)
				io = &c->rows[k];
		if (!io)
			continue;
		const struct cmp_figure *w = io->fig[CF_BUSY_P50].used ? &io->fig[CF_BUSY_P50] : &io->fig[CF_MEDIAN];
		if (fw && !fb && r->verdict == CV_REGRESSED && more_load(r, w)) {
			r->verdict = CV_UNCHANGED;
			r->reason = CR_MORE_LOAD;
			continue;
		}
		if (!r->has_lm || !r->lm.comparable)
			continue;
		enum cmp_verdict lm = r->lm.verdict;
		bool up = fw && w->verdict == CV_HIGHER && (lm == CV_UNCHANGED || lm == CV_IMPROVED);
		bool down = fb && w->verdict == CV_LOWER && (lm == CV_UNCHANGED || lm == CV_REGRESSED);
		if (!up && !down)
			continue;
		/* what is left is latency at equal load: it decides, or nothing changed */
		if (up && lm == CV_IMPROVED) {
			r->verdict = CV_IMPROVED;
			r->reason = CR_NONE;
		} else if (down && lm == CV_REGRESSED) {
			r->verdict = CV_REGRESSED;
			r->reason = CR_NONE;
		} else {
			r->verdict = CV_UNCHANGED;
			r->reason = CR_WITH_LOAD;
		}
	}
}

/* The mean IO/s of metric m over pair p's entities on side s (NaN when none). */
static double pair_mean(const struct compare *c, const struct cmp_pair *p, int s, int m)
{
	if (m < 0 || !p->name[s])
		return NAN;
	struct qsketch q;
	compare_sketch(c, p, (enum cmp_side)s, (enum metric)m, &q);
	double v = q.n ? qs_mean(&q) : NAN;
	qs_free(&q);
	return v;
}

/* The IO a row is of on side s: its direction's (reads for a read latency) when the captures
 * count it, else its entity's. */
static double row_io(const struct compare *c, const struct cmp_row *r, int s)
{
	const struct cmp_pair *p = &c->pairs[r->pair];
	int d = r->spec->kind == CK_LATENCY ? io_direction(r->spec->metric) : 0;
	double v = NAN;
	if (d == 'r')
		v = pair_mean(c, p, s, p->layer == LAYER_GUEST ? M_G_READS : M_READS);
	else if (d == 'w')
		v = pair_mean(c, p, s, p->layer == LAYER_GUEST ? M_G_WRITES : M_WRITES);
	return isnan(v) ? p->load_mean[s] : v;
}

/* Each row's weight: its IO as a share of the busiest compared disk's (of the entities with a
 * decisive row), the larger of the two sides'. A row under compare.min_io_share on both sides
 * is reported but does not decide the outcome: a wait weighs by the IOs that wait. The busiest
 * disk, not the sum: nineteen evenly loaded data disks each weigh fully. */
static void weigh_rows(struct compare *c)
{
	double top[2] = {0, 0};
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		bool dec = false;
		for (size_t r = p->first_row; r < p->first_row + p->nrows && !dec; r++)
			dec = c->rows[r].decisive;
		for (int s = 0; s < 2 && dec; s++)
			if (p->load_mean[s] > top[s])
				top[s] = p->load_mean[s];
	}
	double min = rule_value(&c->rules, R_CMP_MIN_IO_SHARE);
	for (size_t i = 0; i < c->nrows; i++) {
		struct cmp_row *r = &c->rows[i];
		r->io_share = NAN;
		for (int s = 0; s < 2; s++) {
			double v = row_io(c, r, s);
			if (top[s] > 0 && v >= 0 && !(r->io_share >= fmin(1, v / top[s])))
				r->io_share = fmin(1, v / top[s]);
		}
		r->material = isnan(r->io_share) || r->io_share >= min;
	}
}

void cmp_decide_rows(struct compare *c)
{
	load_explained(c);
	mark_decisive(c);
	weigh_rows(c);
}

/* ---- numbers ---- */

static void fnum(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "-");
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

/* A share of time (0..1) as a percentage: "0%", "8.3%", "14%". */
static void fshare(struct buf *b, double v)
{
	double p = v * 100;
	if (isnan(v))
		buf_adds(b, "-");
	else if (p == 0)
		buf_adds(b, "0%");
	else if (p < 0.05)
		buf_adds(b, "<0.1%");
	else if (p < 10)
		buf_printf(b, "%.1f%%", p);
	else if (p > 99.5 && p < 100)
		buf_adds(b, ">99%");
	else
		buf_printf(b, "%.0f%%", p);
}

/* A difference of shares in points. */
static void fpoints(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "-");
	else
		buf_printf(b, fabs(v) >= 0.1 ? "%+.0f" : "%+.1f", v * 100);
}

static void hhmm(struct buf *b, int64_t t)
{
	int64_t m = (t / 60000) % 1440;
	if (m < 0)
		m += 1440;
	buf_printf(b, "%02d:%02d", (int)(m / 60), (int)(m % 60));
}

/* ---- rows ---- */

static const char *entity_label(const struct compare *c, const struct cmp_row *r, char *out, size_t cap)
{
	return compare_pair_label(&c->pairs[r->pair], CMP_AFTER, out, cap);
}

/* The short name of a metric in a headline: "reads", "writes", "DAVG", ... */
static const char *short_label(enum metric m)
{
	switch (m) {
	case M_G_LAT_R: case M_VD_LAT_R: return "reads";
	case M_G_LAT_W: case M_VD_LAT_W: return "writes";
	case M_DAVG: return "DAVG";
	case M_KAVG: return "KAVG";
	case M_GAVG: return "GAVG";
	case M_G_CDQL: return "guest queue per IO";
	case M_QUED: return "queued commands per IO";
	default: return metric_info[m].label;
	}
}

static double thr_value(const struct compare *c, const struct cmp_row *r, int t)
{
	return r->spec->thr[t] >= 0 ? rule_value(&c->rules, (enum rule_id)r->spec->thr[t]) : NAN;
}

static const char *qname(enum cmp_fig f)
{
	switch (f) {
	case CF_MEDIAN: case CF_BUSY_P50: return "median";
	case CF_P95: case CF_BUSY_P95: return "p95";
	default: return "p99";
	}
}

static bool is_busy_fig(enum cmp_fig f)
{
	return f >= CF_BUSY_P50;
}

static const char *unit_of(const struct cmp_row *r)
{
	return r->per_load ? "ms per IO" : metric_info[r->spec->metric].unit;
}

/* The busy phase of a row's pair on the before side, " (HH:MM-HH:MM)", when it is distinct. */
static void busy_when(const struct compare *c, const struct cmp_row *r, struct buf *b)
{
	const struct cmp_pair *p = &c->pairs[r->pair];
	const struct cmp_busy *bz = p->busy[0].distinct ? &p->busy[0] : &p->busy[1];
	if (!bz->distinct || bz->end <= bz->start)
		return;
	buf_adds(b, " (");
	hhmm(b, bz->start);
	buf_adds(b, "-");
	hhmm(b, bz->end);
	buf_addc(b, ')');
}

/* "p95 142 -> 10.4 ms during the busy phase (13:48-14:12)" or "time above 50 ms 10% -> 0%". */
static void fig_text(const struct compare *c, const struct cmp_row *r, enum cmp_fig f, bool with_ci, bool when,
		     struct buf *b)
{
	const struct cmp_figure *g = &r->fig[f];
	double conf = c->o.confidence * 100;
	if (cmp_fig_is_share(f)) {
		int t = f == CF_OVER0 || f == CF_BUSY_OVER0 ? 0 : 1;
		buf_adds(b, "time above ");
		fnum(b, thr_value(c, r, t));
		buf_printf(b, " %s ", metric_info[r->spec->metric].unit);
		if (is_busy_fig(f))
			buf_adds(b, "in the busy phase ");
		fshare(b, g->v[0]);
		buf_adds(b, " -> ");
		fshare(b, g->v[1]);
		if (with_ci && !isnan(g->ci_diff[0])) {
			buf_printf(b, " (%.0f%% CI ", conf);
			fpoints(b, g->ci_diff[0]);
			buf_adds(b, " .. ");
			fpoints(b, g->ci_diff[1]);
			buf_adds(b, " points)");
		}
		return;
	}
	buf_printf(b, "%s ", qname(f));
	fnum(b, g->v[0]);
	buf_adds(b, " -> ");
	fnum(b, g->v[1]);
	buf_printf(b, " %s", unit_of(r));
	if (with_ci && !isnan(g->ci[0])) {
		buf_printf(b, " (%.0f%% CI ", conf);
		fpct(b, g->ci[0]);
		buf_adds(b, " .. ");
		fpct(b, g->ci[1]);
		buf_addc(b, ')');
	} else if (with_ci && !isnan(g->ci_diff[0])) {
		buf_printf(b, " (%.0f%% CI ", conf);
		fnum(b, g->ci_diff[0]);
		buf_adds(b, " .. ");
		fnum(b, g->ci_diff[1]);
		buf_printf(b, " %s)", unit_of(r));
	}
	if (is_busy_fig(f)) {
		buf_adds(b, " during the busy phase");
		if (when)
			busy_when(c, r, b);
	}
}

/* The figures that prove a row's verdict v (or, for unchanged, that show it): a quantile and a
 * band. Returns how many were written (0, 1 or 2) into out. */
static int proof_figs(const struct cmp_row *r, enum cmp_verdict v, enum cmp_fig out[2])
{
	static const enum cmp_fig qs[] = {CF_BUSY_P95, CF_P95, CF_BUSY_P50, CF_P99, CF_BUSY_P99, CF_MEDIAN};
	static const enum cmp_fig bands[] = {CF_OVER1, CF_OVER0, CF_BUSY_OVER1, CF_BUSY_OVER0};
	static const enum cmp_fig bands_same[] = {CF_OVER0, CF_OVER1};
	int n = 0;
	for (size_t k = 0; k < sizeof qs / sizeof qs[0] && !n; k++) {
		const struct cmp_figure *g = &r->fig[qs[k]];
		if (g->used && g->decides && (v == CV_UNCHANGED ? g->verdict != CV_NOT_ASSESSED : g->verdict == v))
			out[n++] = qs[k];
	}
	if (!n && v == CV_UNCHANGED)
		out[n++] = CF_MEDIAN;
	const enum cmp_fig *bl = v == CV_UNCHANGED ? bands_same : bands;
	size_t nb = v == CV_UNCHANGED ? 2 : 4;
	for (size_t k = 0; k < nb; k++) {
		const struct cmp_figure *g = &r->fig[bl[k]];
		if (g->used && g->decides && (v == CV_UNCHANGED ? g->verdict != CV_NOT_ASSESSED : g->verdict == v)) {
			out[n++] = bl[k];
			break;
		}
	}
	return n;
}

/* "at equal load -12% (3 IOPS bins, 347-678 IO/s in the busy phase)" (with the interval when
 * with_ci). */
static void lm_phrase(const struct compare *c, const struct cmp_row *r, bool with_ci, struct buf *b)
{
	const struct cmp_loadmatch *lm = &r->lm;
	buf_adds(b, "at equal load ");
	fpct(b, lm->change_pct);
	if (with_ci && !isnan(lm->ci[0])) {
		buf_printf(b, " (%.0f%% CI ", c->o.confidence * 100);
		fpct(b, lm->ci[0]);
		buf_adds(b, " .. ");
		fpct(b, lm->ci[1]);
		buf_addc(b, ')');
	}
	buf_printf(b, " over %d IOPS bin%s, ", lm->bins, lm->bins == 1 ? "" : "s");
	fnum(b, lm->load_lo);
	buf_adds(b, "-");
	fnum(b, lm->load_hi);
	buf_printf(b, " IO/s%s", lm->busy_only ? " in the busy phase" : "");
}

/* Whether equal load alone carries a row's verdict v (no figure of the row moved that way). */
static bool lm_only(const struct cmp_row *r, enum cmp_verdict v)
{
	unsigned m = v == CV_IMPROVED ? r->better : v == CV_REGRESSED ? r->worse : 0;
	return m == 1u << CMP_LM_BIT;
}

/* "SQL01 D: reads p95 142 -> 10.4 ms during the busy phase (13:48-14:12), time above 50 ms 10% -> 0%" */
static void proof_text(const struct compare *c, const struct cmp_row *r, enum cmp_verdict v, struct buf *b)
{
	char l[512];
	buf_printf(b, "%s %s ", entity_label(c, r, l, sizeof l), short_label(r->spec->metric));
	if (lm_only(r, v)) {
		lm_phrase(c, r, false, b);
		return;
	}
	enum cmp_fig f[2];
	int n = proof_figs(r, v, f);
	for (int i = 0; i < n; i++) {
		if (i)
			buf_adds(b, ", ");
		fig_text(c, r, f[i], false, true, b);
	}
}

/* "SQL01 D: Avg. Disk sec/Read: p95 ... (CI); time above ...; the median (typical IO) ..." */
static void describe_row(const struct compare *c, const struct cmp_row *r, enum cmp_verdict v, struct buf *b)
{
	char l[512];
	buf_printf(b, "%s %s%s: ", entity_label(c, r, l, sizeof l), metric_info[r->spec->metric].label,
		   r->per_load ? " per unit of load" : "");
	int n = 0;
	for (int f = 0; f < CF_COUNT && n < 3; f++) {
		const struct cmp_figure *g = &r->fig[f];
		if (!g->used || !g->decides || g->verdict != v)
			continue;
		if (n++)
			buf_adds(b, ", ");
		fig_text(c, r, (enum cmp_fig)f, true, n == 1, b);
	}
	if (lm_only(r, v)) {
		lm_phrase(c, r, true, b);
		buf_adds(b, "; ");
	}
	if (!n)
		fig_text(c, r, CF_MEDIAN, true, false, b);
	else if (!r->fig[CF_MEDIAN].decides && r->fig[CF_MEDIAN].used) {
		buf_adds(b, "; typical IO (median) ");
		fnum(b, r->fig[CF_MEDIAN].v[0]);
		buf_adds(b, " -> ");
		fnum(b, r->fig[CF_MEDIAN].v[1]);
		buf_printf(b, " %s", unit_of(r));
	}
	/* a regression that vanishes at equal load comes with the extra work (doc/domain.md 6) */
	if (v == CV_REGRESSED && r->has_lm && r->lm.comparable && r->lm.verdict == CV_UNCHANGED)
		buf_adds(b, " (unchanged at equal load, so it comes with the higher load)");
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
	int ra = cmp_layer_rank(pa->layer), rb = cmp_layer_rank(pb->layer);
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

/* Which rows a list wants. */
enum pick { PICK_BETTER, PICK_WORSE, PICK_UNCHANGED, PICK_NOT_COMPARABLE, PICK_BELOW_WORSE, PICK_BETTER_MAT,
	    PICK_WORSE_MAT, PICK_WORSE_SLIGHT };

static bool picked(const struct cmp_row *r, enum pick k)
{
	if (r->spec->kind != CK_LATENCY)
		return false;
	switch (k) {
	case PICK_BETTER: return r->decisive && (r->verdict == CV_IMPROVED || (r->verdict == CV_MIXED && r->better));
	case PICK_WORSE: return r->decisive && (r->verdict == CV_REGRESSED || (r->verdict == CV_MIXED && r->worse));
	case PICK_UNCHANGED: return r->decisive && r->verdict == CV_UNCHANGED;
	case PICK_NOT_COMPARABLE: return r->decisive && r->verdict == CV_NOT_COMPARABLE;
	case PICK_BETTER_MAT: return r->material && picked(r, PICK_BETTER);
	case PICK_WORSE_MAT: return r->material && picked(r, PICK_WORSE);
	case PICK_WORSE_SLIGHT: return !r->material && picked(r, PICK_WORSE);
	case PICK_BELOW_WORSE:
		return !r->decisive && r->worse &&
		       (r->verdict == CV_REGRESSED || r->verdict == CV_MIXED ||
			(r->verdict == CV_UNCHANGED && (r->reason == CR_WITH_LOAD || r->reason == CR_MORE_LOAD)));
	}
	return false;
}

/* Up to max rows of a kind, the most telling first. */
static size_t top_rows(const struct compare *c, enum pick k, const struct cmp_row **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		if (!picked(r, k))
			continue;
		size_t j = n < max ? n++ : max;
		if (j == max) {
			if (row_rank_cmp(c, r, out[max - 1]) >= 0)
				continue;
			j = max - 1;
		}
		while (j > 0 && row_rank_cmp(c, r, out[j - 1]) < 0) {
			out[j] = out[j - 1];
			j--;
		}
		out[j] = r;
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

/* The work row of a latency row's entity (its IOPS), or NULL. */
static const struct cmp_row *work_row(const struct compare *c, const struct cmp_row *r)
{
	return r->spec->load >= 0 ? find_row(c, r->pair, (enum metric)r->spec->load) : NULL;
}

/* The deciding figure of a work row (busy median, else median). */
static const struct cmp_figure *work_fig(const struct cmp_row *io)
{
	return io->fig[CF_BUSY_P50].used ? &io->fig[CF_BUSY_P50] : &io->fig[CF_MEDIAN];
}

/* The before side was slow where the row is: its busy-phase (or whole) p95 above the first band. */
static bool before_slow(const struct compare *c, const struct cmp_row *r)
{
	double t = thr_value(c, r, 0);
	const struct cmp_figure *g = r->fig[CF_BUSY_P95].used ? &r->fig[CF_BUSY_P95] : &r->fig[CF_P95];
	double v = g->used ? g->v[0] : r->s[0].p95;
	return isnan(t) || isnan(v) || v > t;
}

static bool is_symptom(enum kind k)
{
	return kinds[k].place == VP_GUEST_LATENCY;
}

/* "title (HOST e1, e2): status" groups: places of waiting first, then symptoms (guest latency),
 * each in detector order; entities sorted by host and name. */
static void list_findings(const struct compare *c, enum cmp_fstatus st, struct buf *b, int *groups)
{
	const char *const *word = cmp_fstatus_words;
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
				if (show_host && (!last || !cmp_host_same(last, f->host)))
					buf_printf(b, "%s ", f->host);
				last = show_host ? f->host : NULL;
				buf_adds(b, f->entity);
			}
			buf_printf(b, "): %s", word[st]);
			if (c->fd[ix[0]].why)
				buf_printf(b, " (%s)", c->fd[ix[0]].why);
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

int cmp_readable_caps(const struct model *m)
{
	int n = 0;
	for (size_t i = 0; i < m->ncaps; i++)
		n += !m->caps[i].failed;
	return n;
}

/* ---- the outcome ---- */

/* The kinds of capture (parsers: esxtop, perfmon, ...) a side could read, into k; returns how
 * many. */
static int side_kinds(const struct model *m, const char **k, int max)
{
	int n = 0;
	for (size_t i = 0; i < m->ncaps; i++) {
		const char *f = m->caps[i].format;
		if (m->caps[i].failed || !f)
			continue;
		int j = 0;
		while (j < n && strcmp(k[j], f) != 0)
			j++;
		if (j == n && n < max)
			k[n++] = f;
	}
	return n;
}

/* The sides hold no kind of capture in common (esxtop only before, perfmon only after): nothing is
 * measured on both. The reason, or NULL. */
static const char *kinds_differ(struct compare *c)
{
	const char *k[2][8];
	int n[2] = {side_kinds(&c->side[0].m, k[0], 8), side_kinds(&c->side[1].m, k[1], 8)};
	for (int i = 0; i < n[0]; i++)
		for (int j = 0; j < n[1]; j++)
			if (strcmp(k[0][i], k[1][j]) == 0)
				return NULL;
	struct buf b;
	buf_init(&b);
	for (int s = 0; s < 2; s++) {
		buf_adds(&b, s ? " and the after side only " : "the before side holds only ");
		for (int i = 0; i < n[s]; i++)
			buf_printf(&b, "%s%s", i ? (i + 1 == n[s] ? " and " : ", ") : "", k[s][i]);
		buf_adds(&b, s ? "" : " captures");
	}
	buf_adds(&b, ": no layer is measured on both sides");
	const char *r = arena_strndup(&c->arena, b.data, b.len);
	buf_free(&b);
	return r;
}

/* Sides given the wrong way round: every readable after capture ends before the first readable
 * before capture starts. */
static void check_order(struct compare *c)
{
	struct cmp_summary *s = &c->sum;
	int64_t lo[2] = {INT64_MAX, INT64_MAX}, hi[2] = {INT64_MIN, INT64_MIN};
	for (int sd = 0; sd < 2; sd++)
		for (size_t i = 0; i < c->side[sd].m.ncaps; i++) {
			const struct capture *cp = &c->side[sd].m.caps[i];
			if (cp->failed || cp->end <= cp->start)
				continue;
			lo[sd] = cp->start < lo[sd] ? cp->start : lo[sd];
			hi[sd] = cp->end > hi[sd] ? cp->end : hi[sd];
		}
	s->reversed = lo[0] != INT64_MAX && lo[1] != INT64_MAX && hi[1] <= lo[0];
	if (!s->reversed)
		return;
	char d[2][32];
	for (int sd = 0; sd < 2; sd++) {
		time_t t = (time_t)(lo[sd] / 1000);
		struct tm tm;
		gmtime_r(&t, &tm);
		strftime(d[sd], sizeof d[sd], "%Y-%m-%d %H:%M UTC", &tm);
	}
	struct buf b;
	buf_init(&b);
	buf_printf(&b, "the before captures (from %s) are later than the after captures (from %s)", d[0], d[1]);
	s->reversed_text = arena_strndup(&c->arena, b.data, b.len);
	buf_free(&b);
}

static void decide(struct compare *c)
{
	struct cmp_summary *s = &c->sum;
	s->head[0] = s->head[1] = NULL;
	s->capacity_gain = false;
	s->outcome_why = NULL;
	s->nc_action = NULL;
	s->moved_down = NULL;
	check_order(c);
	int readable[2] = {cmp_readable_caps(&c->side[0].m), cmp_readable_caps(&c->side[1].m)};
	if (!readable[0] || !readable[1]) {
		s->outcome = CO_NOT_COMPARABLE;
		s->outcome_why = !readable[0] && !readable[1] ? "no capture of the before or the after side could be read"
				 : !readable[0]                ? "no capture of the before side could be read"
							       : "no capture of the after side could be read";
		static const char *const fix[3] = {
			"Neither side could be read: see the errors above; give readable captures of both, then "
			"compare again.",
			"The before side could not be read: see the error above; give a readable capture of it, then "
			"compare again.",
			"The after side could not be read: see the error above; give a readable capture of it, then "
			"compare again."};
		s->nc_action = fix[!readable[0] && !readable[1] ? 0 : !readable[0] ? 1 : 2];
		return;
	}
	const char *kd = kinds_differ(c);
	if (kd) {
		s->outcome = CO_NOT_COMPARABLE;
		s->outcome_why = kd;
		s->nc_action = "Give the same kinds of capture on both sides (esxtop with esxtop, perfmon with "
			       "perfmon), then compare again.";
		return;
	}
	int assessed = 0;
	for (int v = 0; v < CV_COUNT; v++)
		if (v != CV_NOT_ASSESSED)
			assessed += s->decisive[v];
	if (!assessed) {
		s->outcome = CO_NOT_COMPARABLE;
		s->outcome_why = "no busy entity has latency values on both sides";
		return;
	}
	/* the after side must hold the work that was slow before */
	const struct cmp_row *nc[8];
	size_t nn = top_rows(c, PICK_NOT_COMPARABLE, nc, 8);
	for (size_t i = 0; i < nn; i++)
		if (before_slow(c, nc[i]) || c->pairs[nc[i]->pair].before_missing || c->pairs[nc[i]->pair].sliver) {
			s->outcome = CO_NOT_COMPARABLE;
			s->head[0] = nc[i];
			static const char *const why[2] = {
				"the before side holds only a small part of the after side's busy phase",
				"the after side holds only a small part of the before side's busy phase"};
			static const char *const fix[2] = {
				"Give a before window (or capture) that holds the whole busy phase, as the after side "
				"does, then compare again.",
				"Give an after window (or capture) that holds the whole busy phase, as the before side "
				"does, then compare again."};
			int sv = c->pairs[nc[i]->pair].sliver;
			if (sv) {
				s->outcome_why = why[sv - 1];
				s->nc_action = fix[sv - 1];
			}
			return;
		}
	/* the rows that carry the IO decide; a trickle is reported (cmp_summarise), it decides nothing */
	const struct cmp_row *b1[1], *w1[1];
	size_t nb = top_rows(c, PICK_BETTER_MAT, b1, 1), nw = top_rows(c, PICK_WORSE_MAT, w1, 1);
	if (nb && nw) {
		s->outcome = CO_MIXED;
		s->head[0] = b1[0];
		s->head[1] = w1[0];
	} else if (nb) {
		s->outcome = CO_IMPROVED;
		s->head[0] = b1[0];
	} else if (nw) {
		s->outcome = CO_REGRESSED;
		s->head[0] = w1[0];
	} else {
		s->outcome = CO_UNCHANGED;
		const struct cmp_row *u[1];
		if (top_rows(c, PICK_UNCHANGED, u, 1))
			s->head[0] = u[0];
	}
	/* more work at the same latency: a capacity gain (the busiest such entity is the head) */
	if (s->outcome == CO_UNCHANGED) {
		const struct cmp_row *u[16];
		size_t n = top_rows(c, PICK_UNCHANGED, u, 16);
		for (size_t i = 0; i < n && !s->capacity_gain; i++) {
			const struct cmp_row *io = work_row(c, u[i]);
			if (io && work_fig(io)->verdict == CV_HIGHER) {
				s->capacity_gain = true;
				s->head[0] = u[i];
			}
		}
	}
}

/* A duration in words: "30 s", "12 minutes", "2.0 hours". */
static void plain_secs(struct buf *b, double s)
{
	if (isnan(s))
		buf_adds(b, "an unknown time");
	else if (s < 120)
		buf_printf(b, "%.0f s", s);
	else if (s < 7200)
		buf_printf(b, "%.0f minutes", s / 60);
	else
		buf_printf(b, "%.1f hours", s / 3600);
}

/* The not-comparable sentence: "the after capture has no busy period like the before capture's
 * 13:48-14:12 on SQL01 D: (...)". */
static void not_comparable_text(const struct compare *c, const struct cmp_row *r, struct buf *b)
{
	const struct cmp_pair *p = &c->pairs[r->pair];
	const struct cmp_busy *bb = &p->busy[0], *ba = &p->busy[1];
	char l[512];
	if (p->sliver) {
		/* a window or capture that cuts the other side's busy phase to a sliver */
		int sv = p->sliver - 1, o = 1 - sv;
		const struct cmp_busy *bo = &p->busy[o];
		buf_printf(b, "the %s capture holds only ", cmp_side_names[sv]);
		plain_secs(b, p->held[sv]);
		buf_printf(b, " of the %s capture's busy phase", cmp_side_names[o]);
		if (bo->end > bo->start) {
			buf_addc(b, ' ');
			hhmm(b, bo->start);
			buf_adds(b, "-");
			hhmm(b, bo->end);
		}
		buf_printf(b, " on %s (", compare_pair_label(p, (enum cmp_side)o, l, sizeof l));
		plain_secs(b, p->held[o]);
		buf_adds(b, ", ");
		fnum(b, p->held_ios[o]);
		buf_printf(b, " IOs; %s: ", cmp_side_names[sv]);
		fnum(b, p->held_ios[sv]);
		buf_printf(b, " IOs, under %.0f%% of it by time and by IOs)",
			   rule_value(&c->rules, R_CMP_MIN_BUSY_HELD) * 100);
		return;
	}
	if (p->before_missing) {
		/* the mirror: a before capture (or window) of idle time only */
		buf_adds(b, "the before capture has no busy period like the after capture's");
		if (ba->end > ba->start) {
			buf_addc(b, ' ');
			hhmm(b, ba->start);
			buf_adds(b, "-");
			hhmm(b, ba->end);
		}
		buf_printf(b, " on %s (busy phase after: ", compare_pair_label(p, CMP_AFTER, l, sizeof l));
		fnum(b, ba->iops);
		buf_adds(b, " IO/s with ");
		fnum(b, ba->outstanding);
		buf_adds(b, " IOs outstanding; before: ");
		fnum(b, bb->iops);
		buf_adds(b, " IO/s with ");
		fnum(b, bb->outstanding);
		buf_addc(b, ')');
		return;
	}
	buf_adds(b, "the after capture has no busy period like the before capture's");
	if (bb->distinct && bb->end > bb->start) {
		buf_addc(b, ' ');
		hhmm(b, bb->start);
		buf_adds(b, "-");
		hhmm(b, bb->end);
	} else {
		buf_adds(b, " load");
	}
	buf_printf(b, " on %s (busy phase before: ", compare_pair_label(p, CMP_BEFORE, l, sizeof l));
	fnum(b, bb->iops);
	buf_adds(b, " IO/s with ");
	fnum(b, bb->outstanding);
	buf_adds(b, " IOs outstanding; after: ");
	fnum(b, ba->iops);
	buf_adds(b, " IO/s with ");
	fnum(b, ba->outstanding);
	buf_addc(b, ')');
}

static void headline(struct compare *c, struct buf *b)
{
	const struct cmp_summary *s = &c->sum;
	if (s->reversed)
		buf_printf(b, "Sides reversed: %s. ", s->reversed_text);
	buf_printf(b, "%s", cmp_outcome_words[s->outcome]);
	if (s->outcome == CO_UNCHANGED && s->capacity_gain)
		buf_adds(b, ", with a capacity gain");
	buf_adds(b, ": ");
	const struct cmp_row *h = s->head[0];
	switch (s->outcome) {
	case CO_NOT_COMPARABLE:
		if (h)
			not_comparable_text(c, h, b);
		else
			buf_adds(b, s->outcome_why ? s->outcome_why : "nothing to compare");
		buf_adds(b, h ? ", so it cannot show whether the change fixed the slow period." : ".");
		return;
	case CO_IMPROVED: proof_text(c, h, CV_IMPROVED, b); break;
	case CO_REGRESSED: proof_text(c, h, CV_REGRESSED, b); break;
	case CO_MIXED:
		buf_adds(b, "better: ");
		proof_text(c, h, CV_IMPROVED, b);
		buf_adds(b, "; worse: ");
		proof_text(c, s->head[1], CV_REGRESSED, b);
		break;
	case CO_UNCHANGED:
		if (!h) {
			buf_adds(b, "no latency changed materially.");
			return;
		}
		if (s->capacity_gain) {
			const struct cmp_row *io = work_row(c, h);
			const struct cmp_figure *g = work_fig(io);
			char l[512];
			buf_printf(b, "%s did ", entity_label(c, h, l, sizeof l));
			if (g->v[0] > 0)
				buf_printf(b, "%.1fx ", g->v[1] / g->v[0]);
			buf_printf(b, "the IO%s (", g == &io->fig[CF_BUSY_P50] ? " in the busy phase" : "");
			fnum(b, g->v[0]);
			buf_adds(b, " -> ");
			fnum(b, g->v[1]);
			buf_adds(b, " IO/s)");
			if (h->reason == CR_WITH_LOAD) {
				buf_printf(b, " with %s unchanged at equal load (", short_label(h->spec->metric));
				enum cmp_fig f[2];
				if (proof_figs(h, CV_REGRESSED, f) >= 1)
					fig_text(c, h, f[0], false, false, b);
				buf_adds(b, " as the load rose)");
			} else {
				buf_printf(b, " at the same latency: %s ", short_label(h->spec->metric));
				enum cmp_fig f[2];
				int n = proof_figs(h, CV_UNCHANGED, f);
				for (int i = 0; i < n; i++) {
					if (i)
						buf_adds(b, ", ");
					fig_text(c, h, f[i], false, true, b);
				}
			}
			break;
		}
		proof_text(c, h, CV_UNCHANGED, b);
		break;
	default: break;
	}
	buf_addc(b, '.');
}

/* The outcome in one short sentence with the work done: the head row's first proving figure and
 * its entity's work in the busy phase ("while doing 2.7x the IO"). */
static void lead_text(const struct compare *c, struct buf *b)
{
	const struct cmp_summary *s = &c->sum;
	const struct cmp_row *h = s->head[0];
	if (s->reversed)
		buf_printf(b, "Sides reversed: %s. ", s->reversed_text);
	buf_printf(b, "%s", cmp_outcome_words[s->outcome]);
	if (s->outcome == CO_UNCHANGED && s->capacity_gain)
		buf_adds(b, ", with a capacity gain");
	if (!h || s->outcome == CO_NOT_COMPARABLE) {
		buf_printf(b, ": %s.", s->outcome_why ? s->outcome_why
				      : s->outcome == CO_NOT_COMPARABLE ? "the sides' busy periods differ"
									  : "no latency changed materially");
		return;
	}
	enum cmp_verdict v = s->outcome == CO_REGRESSED ? CV_REGRESSED : s->outcome == CO_UNCHANGED ? CV_UNCHANGED
												   : CV_IMPROVED;
	char l[512];
	enum cmp_fig f[2];
	buf_printf(b, ": %s %s ", entity_label(c, h, l, sizeof l), short_label(h->spec->metric));
	if (proof_figs(h, v, f) >= 1)
		fig_text(c, h, f[0], false, false, b);
	if (s->outcome == CO_MIXED && s->head[1]) {
		const struct cmp_row *w = s->head[1];
		buf_printf(b, ", but %s %s ", entity_label(c, w, l, sizeof l), short_label(w->spec->metric));
		if (proof_figs(w, CV_REGRESSED, f) >= 1)
			fig_text(c, w, f[0], false, false, b);
	}
	const struct cmp_row *io = work_row(c, h);
	const struct cmp_figure *g = io ? work_fig(io) : NULL;
	double m = 1 + c->o.material_pct / 100;
	if (g && g->v[0] > 0 && g->v[1] > 0) {
		double x = g->v[1] / g->v[0];
		if (x >= m)
			buf_printf(b, " while doing %.1fx the IO", x);
		else if (x <= 1 / m)
			buf_printf(b, " while doing %.1fx the IO (less work)", x);
		else
			buf_adds(b, " at the same IO");
	}
	buf_addc(b, '.');
}

/* The direction of IO a latency metric is of: 'r', 'w', or 0 (reads and writes together). */
static int io_direction(enum metric m)
{
	switch (m) {
	case M_G_LAT_R: case M_VD_LAT_R: case M_DAVG_R: case M_KAVG_R: case M_GAVG_R: return 'r';
	case M_G_LAT_W: case M_VD_LAT_W: case M_DAVG_W: case M_KAVG_W: case M_GAVG_W: return 'w';
	default: return 0;
	}
}

/* The guest disk pair above pair p in its IO stack (topology, either side), or NULL. */
static const struct cmp_pair *guest_above(const struct compare *c, const struct cmp_pair *p)
{
	for (int s = 0; s < 2; s++) {
		if (!p->nents[s])
			continue;
		struct topo_in ti = analysis_topo(&c->side[s]);
		struct stack st;
		topology_stack(&ti, cmp_ent(c, p, s, 0), &st);
		if (!st.guest)
			continue;
		size_t e = (size_t)(st.guest - c->side[s].m.ents);
		for (size_t i = 0; i < c->npairs; i++)
			for (size_t k = 0; k < c->pairs[i].nents[s]; k++)
				if (c->pairs[i].ents[s][k] == e)
					return &c->pairs[i];
	}
	return NULL;
}

/* doc/domain.md §6, "the bottleneck moved down a layer": latency row r below the guest rose while the
 * guest's wait fell for the same direction of IO (reads with reads, writes with writes; a
 * latency of both directions only when the guest's fell and none of its directions rose), and
 * the IO went down: the lower layer holds materially more outstanding IO in its busy phase
 * (--material-pct). Never a read gain set against a write loss. The guest rows are those of the
 * guest disk above r (topology), else every decisive guest row. */
static bool moved_down(const struct compare *c, const struct cmp_row *r)
{
	const struct cmp_pair *p = &c->pairs[r->pair];
	double ob = p->busy[0].outstanding, oa = p->busy[1].outstanding;
	if (!(ob > 0) || !(oa >= ob * (1 + c->o.material_pct / 100)))
		return false;
	const struct cmp_pair *g = guest_above(c, p);
	int d = io_direction(r->spec->metric);
	bool fell = false, rose = false;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *q = &c->rows[i];
		if (!q->decisive || q->spec->kind != CK_LATENCY || c->pairs[q->pair].layer != LAYER_GUEST)
			continue;
		if ((g && &c->pairs[q->pair] != g) || (d && io_direction(q->spec->metric) != d))
			continue;
		fell |= q->verdict == CV_IMPROVED;
		rose |= q->verdict == CV_REGRESSED || q->verdict == CV_MIXED;
	}
	return fell && !rose;
}

/* The work done, for the headline entity: "The after side did more work in its busy phase (...)". */
static void work_text(const struct compare *c, const struct cmp_row *head, struct buf *b)
{
	const struct cmp_row *io = work_row(c, head);
	if (!io || io->verdict == CV_NOT_ASSESSED)
		return;
	const struct cmp_figure *g = work_fig(io);
	if (!(g->v[0] > 0))
		return;
	char l[512];
	compare_pair_label(&c->pairs[head->pair], CMP_AFTER, l, sizeof l);
	bool more = g->verdict == CV_HIGHER, less = g->verdict == CV_LOWER;
	bool busy = g == &io->fig[CF_BUSY_P50];
	buf_printf(b, " The after side did %s%s (%s, median ", more ? "more work" : less ? "less work" : "about the same work",
		   busy ? " in its busy phase" : "", l);
	fnum(b, g->v[0]);
	buf_adds(b, " -> ");
	fnum(b, g->v[1]);
	buf_adds(b, " IO/s");
	if (more || less)
		buf_printf(b, ", %.1fx", g->v[1] / g->v[0]);
	buf_addc(b, ')');
	bool better = head->better != 0, worse = head->worse != 0;
	if (more && better && !worse)
		buf_adds(b, ": lower latency at higher load, so the amount of work does not explain the change.");
	else if (less && worse && !better)
		buf_adds(b, ": higher latency at lower load, so the amount of work does not explain the change.");
	else if (more && !better && !worse)
		buf_adds(b, " at the same latency: a capacity gain.");
	else if (more || less)
		buf_adds(b, ", which may explain part of the change: see latency at equal load.");
	else
		buf_addc(b, '.');
}

/* A queue that grew with the work while the wait per IO did not (Little's law, doc/domain.md §5). */
static void queue_text(const struct compare *c, const struct cmp_row *head, struct buf *b)
{
	const struct cmp_pair *p = &c->pairs[head->pair];
	for (size_t i = p->first_row; i < p->first_row + p->nrows; i++) {
		const struct cmp_row *q = &c->rows[i];
		if (!q->per_load || q->verdict == CV_NOT_ASSESSED || q->worse)
			continue;
		double b95 = q->s[0].p95, a95 = q->s[1].p95;
		if (!(a95 > 1.2 * b95 && a95 - b95 >= 1))
			continue;
		buf_printf(b, " %s grew (p95 ", metric_info[q->spec->metric].label);
		fnum(b, b95);
		buf_adds(b, " -> ");
		fnum(b, a95);
		buf_printf(b, " %s), but per unit of load it is %s (Little's law: queue = IOPS x latency), so the queue grew "
			      "with the work, not with the wait.",
			   metric_info[q->spec->metric].unit, q->better ? "lower" : "unchanged");
	}
}

/* Why the whole capture's figures of the headline row are context, and a busy phase a capture or
 * window cut. */
static void shares_text(const struct compare *c, const struct cmp_row *head, struct buf *b)
{
	const struct cmp_pair *p = &c->pairs[head->pair];
	char l[512];
	compare_pair_label(p, CMP_AFTER, l, sizeof l);
	if (!p->shares_comparable && head->fig[CF_BUSY_P50].used) {
		buf_printf(b, " The two sides are busy for different shares of their time (on %s, ", l);
		fshare(b, p->busy[0].share);
		buf_adds(b, " before, ");
		fshare(b, p->busy[1].share);
		buf_adds(b, " after): the whole capture's tail and time above the bands follow the capture's length and "
			    "window, so they are context; the busy phases decide.");
	}
	if (!p->widths_comparable)
		buf_printf(b, " The two sides' series are kept at different resolutions (%.0f s and %.0f s per value on %s, "
			      "from their lengths): a tail of means over longer buckets is narrower, so the tails are context "
			      "and the medians and the bands decide.",
			   p->busy[0].bucket_s, p->busy[1].bucket_s, l);
	if (p->busy[0].edge && p->busy[1].edge)
		buf_printf(b, " Both captures (or their windows) start or end inside the busy phase of %s, so each is judged "
			      "on the part of the busy phase it holds.",
			   l);
	else if (p->busy[0].edge || p->busy[1].edge)
		buf_printf(b, " The %s capture (or its window) starts or ends inside the busy phase of %s, so it is judged on "
			      "the part of the busy phase it holds.",
			   cmp_side_names[p->busy[1].edge], l);
}

/* Latency at equal load of the headline row. */
static void equal_load_text(const struct compare *c, const struct cmp_row *head, struct buf *b)
{
	const struct cmp_loadbins *lb = bins_of_row(c, head);
	if (!head->has_lm || !lb)
		return;
	const struct cmp_loadmatch *lm = &head->lm;
	double conf = c->o.confidence * 100;
	if (!lm->comparable) {
		buf_printf(b, " The load differs too much to compare latency at equal load (%s).", lm->note);
		return;
	}
	buf_printf(b, " At equal load (%d IOPS bin%s, ", lm->bins, lm->bins == 1 ? "" : "s");
	fnum(b, lm->load_lo);
	buf_adds(b, "-");
	fnum(b, lm->load_hi);
	buf_adds(b, lm->busy_only ? " IO/s in the busy phase" : " IO/s");
	bool low = lm->load_hi <= lb->load_p50[0] && lm->load_hi <= lb->load_p50[1];
	if (low) {
		buf_adds(b, ", below both sides' median load of ");
		fnum(b, lb->load_p50[0]);
		buf_adds(b, " and ");
		fnum(b, lb->load_p50[1]);
		buf_adds(b, " IO/s");
	}
	buf_adds(b, ") the median changed ");
	fpct(b, lm->change_pct);
	buf_printf(b, " (%.0f%% CI ", conf);
	fpct(b, lm->ci[0]);
	buf_adds(b, " .. ");
	fpct(b, lm->ci[1]);
	buf_printf(b, "): %s", cmp_verdict_names[lm->verdict]);
	if (lm->reason == CR_BELOW_FLOOR)
		buf_printf(b, " (its interval does not clear the %g ms floor)", head->spec->floor);
	else if (lm->reason == CR_BELOW_PCT)
		buf_printf(b, " (its interval does not clear %g%%)", c->o.material_pct);
	else if (lm->reason == CR_DEGENERATE)
		buf_adds(b, " (its interval degenerates)");
	if (lm->verdict == CV_UNCHANGED && (head->better || head->worse) && low)
		buf_adds(b, " - the difference is made at the higher loads, where the two sides do not overlap");
	buf_addc(b, '.');
}

/* Virtual disks and LUNs paired through the guest disk above them (compare_match.c): said, with
 * how to override it. */
static void via_guest_text(const struct compare *c, struct buf *b)
{
	int n = 0;
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if (!p->via_guest)
			continue;
		buf_printf(b, "%s%s is on %s before and %s after",
			   n++ ? "; " : " Paired through the guest disks (each side's disk map): ", p->via_guest, p->name[0],
			   p->name[1]);
	}
	if (n)
		buf_printf(b, ": %s as one disk; override with --match-map.", n == 1 ? "compared" : "each compared");
}

/* Rows that got worse with too little IO to decide (compare.min_io_share): said, with their
 * weight, so that nothing is hidden. */
static void slight_text(const struct compare *c, struct buf *b)
{
	const struct cmp_row *sl[3];
	size_t n = top_rows(c, PICK_WORSE_SLIGHT, sl, 3);
	if (!n)
		return;
	buf_printf(b, "%sWorse, with too little IO to decide (under %.0f%% of the busiest compared disk's IO): ",
		   b->len ? " " : "", rule_value(&c->rules, R_CMP_MIN_IO_SHARE) * 100);
	for (size_t i = 0; i < n; i++) {
		char l[512];
		enum cmp_fig f[2];
		buf_printf(b, "%s%s %s (", i ? "; " : "", entity_label(c, sl[i], l, sizeof l),
			   short_label(sl[i]->spec->metric));
		fshare(b, sl[i]->io_share);
		buf_adds(b, " of the IO)");
		if (proof_figs(sl[i], CV_REGRESSED, f) >= 1) {
			buf_addc(b, ' ');
			fig_text(c, sl[i], f[0], false, false, b);
		}
	}
	buf_addc(b, '.');
}

/* doc/domain.md 6: device latency does not improve by itself and may rise as deeper guest queues
 * push more IO down (sets sum.moved_down). */
static void below_text(struct compare *c, struct buf *b)
{
	struct cmp_summary *s = &c->sum;
	const struct cmp_row *below[16], *down[2], *rest[2];
	size_t nbw = top_rows(c, PICK_BELOW_WORSE, below, 16), nd = 0, nrest = 0;
	for (size_t i = 0; i < nbw; i++) {
		if (moved_down(c, below[i])) {
			if (nd < 2)
				down[nd++] = below[i];
		} else if (nrest < 2) {
			rest[nrest++] = below[i];
		}
	}
	if (nd) {
		buf_adds(b, " Latency below the guest rose while the guest's fell for the same IO: ");
		for (size_t i = 0; i < nd; i++) {
			if (i)
				buf_adds(b, "; ");
			describe_row(c, down[i], CV_REGRESSED, b);
		}
		buf_adds(b, " - the deeper guest queue now pushes more IO down to the device and array (the bottleneck "
			     "moved down a layer); check the array before raising queue depths further.");
		if (!s->bottleneck)
			s->bottleneck = 1;
		struct buf where;
		buf_init(&where);
		for (size_t i = 0; i < nd; i++) {
			char l[512];
			buf_printf(&where, "%s%s", i ? ", " : "",
				   compare_pair_label(&c->pairs[down[i]->pair], CMP_AFTER, l, sizeof l));
		}
		s->moved_down = arena_strdup(&c->arena, where.data ? where.data : "");
		buf_free(&where);
	}
	if (nrest) {
		buf_adds(b, nd ? " Below the disks compared, latency also rose: " : " Below the disks compared, latency rose: ");
		for (size_t i = 0; i < nrest; i++) {
			if (i)
				buf_adds(b, "; ");
			describe_row(c, rest[i], CV_REGRESSED, b);
		}
		buf_addc(b, '.');
	}
}

/* The findings gone, new, still present, not assessed. */
static void findings_text(const struct compare *c, bool readable, struct buf *b)
{
	const struct cmp_summary *s = &c->sum;
	if (!readable) {
		buf_adds(b, " Findings cannot be compared without a readable capture of each side.");
	} else if (c->nfd) {
		buf_adds(b, " Findings: ");
		int groups = 0;
		list_findings(c, FD_GONE, b, &groups);
		list_findings(c, FD_NEW, b, &groups);
		if (s->bottleneck > 0)
			buf_adds(b, " - the bottleneck moved down a layer");
		else if (s->bottleneck < 0)
			buf_adds(b, " - the bottleneck moved up a layer");
		if (!s->findings[FD_NEW] && s->findings[FD_GONE])
			buf_printf(b, "%sno new finding", groups ? "; " : "");
		list_findings(c, FD_STILL, b, &groups);
		list_findings(c, FD_NOT_ASSESSED_AFTER, b, &groups);
		list_findings(c, FD_NOT_ASSESSED_BEFORE, b, &groups);
		buf_addc(b, '.');
	} else {
		buf_adds(b, " No findings on either side.");
	}
}

void cmp_summarise(struct compare *c)
{
	struct cmp_summary *s = &c->sum;
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		s->verdicts[r->verdict]++;
		if (r->spec->kind == CK_LATENCY) {
			s->latency[r->verdict]++;
			if (r->decisive)
				s->decisive[r->verdict]++;
			if (r->has_lm && !r->lm.comparable && r->verdict != CV_NOT_ASSESSED)
				s->load_not_comparable++;
		}
	}
	for (size_t k = 0; k < c->nfd; k++)
		s->findings[c->fd[k].status]++;
	s->findings_compared = cmp_readable_caps(&c->side[0].m) && cmp_readable_caps(&c->side[1].m);
	/* where the places of waiting went: the topmost layer of gone vs new findings */
	int top_gone = 99, top_new = 99;
	for (size_t k = 0; k < c->nfd; k++) {
		const struct cmp_fdiff *f = &c->fd[k];
		if (is_symptom(f->kind) || f->layer == LAYER_VM)
			continue;
		int r = cmp_layer_rank(f->layer);
		if (f->status == FD_GONE && r < top_gone)
			top_gone = r;
		if (f->status == FD_NEW && r < top_new)
			top_new = r;
	}
	if (top_gone < 99 && top_new < 99)
		s->bottleneck = top_new > top_gone ? 1 : top_new < top_gone ? -1 : 0;
	decide(c);

	struct buf h, b;
	buf_init(&h);
	buf_init(&b);
	headline(c, &h);
	bool readable = s->findings_compared;
	/* the rows behind the outcome */
	const struct cmp_row *imp[3], *reg[3];
	size_t ni = top_rows(c, PICK_BETTER, imp, 3), nr = top_rows(c, PICK_WORSE_MAT, reg, 3);
	if (ni) {
		buf_adds(&b, "Better: ");
		for (size_t i = 0; i < ni; i++) {
			if (i)
				buf_adds(&b, "; ");
			describe_row(c, imp[i], CV_IMPROVED, &b);
		}
		buf_addc(&b, '.');
	}
	if (nr) {
		buf_adds(&b, ni ? " Worse: " : "Worse: ");
		for (size_t i = 0; i < nr; i++) {
			if (i)
				buf_adds(&b, "; ");
			describe_row(c, reg[i], CV_REGRESSED, &b);
		}
		buf_addc(&b, '.');
	}
	slight_text(c, &b);
	if (!readable) {
		buf_printf(&b, "%sNothing to compare: %s.", b.len ? " " : "", s->outcome_why ? s->outcome_why : "");
	} else if (!ni && !nr && s->outcome == CO_UNCHANGED) {
		buf_printf(&b, "%sNo material change in latency: every assessed decisive latency comparison (%d) is unchanged "
			       "(no deciding figure - the tail, the time above the bands, the busy phase - has a %.0f%% "
			       "interval that lies beyond %g%% and its absolute floor, or the load explains the change).",
			   b.len ? " " : "", s->decisive[CV_UNCHANGED], c->o.confidence * 100, c->o.material_pct);
	} else if (s->outcome == CO_NOT_COMPARABLE && !s->head[0]) {
		buf_printf(&b, "%sNo latency could be compared: %s.", b.len ? " " : "", s->outcome_why ? s->outcome_why : "");
	}
	/* not comparable rows */
	const struct cmp_row *ncr[4];
	size_t nnc = top_rows(c, PICK_NOT_COMPARABLE, ncr, 4);
	if (nnc) {
		buf_printf(&b, "%sNot comparable: ", b.len ? " " : "");
		for (size_t i = 0; i < nnc; i++) {
			char l[512];
			if (i)
				buf_adds(&b, "; ");
			buf_printf(&b, "%s %s", entity_label(c, ncr[i], l, sizeof l), short_label(ncr[i]->spec->metric));
			if (i == 0 || ncr[i]->pair != ncr[i - 1]->pair) {
				buf_adds(&b, " - ");
				not_comparable_text(c, ncr[i], &b);
			}
		}
		buf_addc(&b, '.');
	}
	const struct cmp_row *head = s->head[0];
	if (head && s->outcome != CO_NOT_COMPARABLE) {
		work_text(c, head, &b);
		queue_text(c, head, &b);
		equal_load_text(c, head, &b);
		shares_text(c, head, &b);
	}
	below_text(c, &b);
	via_guest_text(c, &b);
	findings_text(c, readable, &b);
	bool guest = false;
	for (size_t i = 0; i < c->npairs && !guest; i++)
		guest = c->pairs[i].layer == LAYER_GUEST;
	if (!guest && readable)
		buf_adds(&b, " Only host captures were compared: IOs waiting inside the guest, above the virtual SCSI "
			     "controller, do not show in esxtop - add the guests' perfmon captures of both periods.");
	int assessed = 0;
	for (int v = 0; v < CV_COUNT; v++)
		if (v != CV_NOT_ASSESSED)
			assessed += s->verdicts[v];
	buf_printf(&b, " Of %d assessed comparisons: %d improved, %d regressed, %d mixed, %d unchanged, %d not comparable, "
		       "%d more/%d less (work or queue occupancy, neither better nor worse); %d not assessed.",
		   assessed, s->verdicts[CV_IMPROVED], s->verdicts[CV_REGRESSED], s->verdicts[CV_MIXED],
		   s->verdicts[CV_UNCHANGED], s->verdicts[CV_NOT_COMPARABLE], s->verdicts[CV_HIGHER], s->verdicts[CV_LOWER],
		   s->verdicts[CV_NOT_ASSESSED]);
	const char *detail = b.data ? b.data : "";
	while (*detail == ' ')
		detail++;
	c->headline = arena_strndup(&c->arena, h.data ? h.data : "", h.len);
	buf_reset(&h);
	lead_text(c, &h);
	c->lead = arena_strndup(&c->arena, h.data ? h.data : "", h.len);
	struct buf all;
	buf_init(&all);
	buf_printf(&all, "%s %s", c->headline, detail);
	c->verdict = arena_strndup(&c->arena, all.data, all.len);
	c->detail = c->verdict + strlen(c->headline) + 1;
	buf_free(&all);
	buf_free(&h);
	buf_free(&b);
}

/* ---- the outcome against the report's own statements ---- */

static bool is_whole_fig(enum cmp_fig f)
{
	return f == CF_P95 || f == CF_P99 || f == CF_OVER0 || f == CF_OVER1;
}

/* The finding diff entry of kind k on pair p's after-side entity, or NULL. */
static const struct cmp_fdiff *fdiff_of(const struct compare *c, const struct cmp_pair *p, enum kind k)
{
	for (size_t i = 0; i < c->nfd; i++) {
		const struct cmp_fdiff *f = &c->fd[i];
		int s = p->name[1] ? 1 : 0;
		if (f->kind == k && p->name[s] && strcmp(f->entity, p->name[s]) == 0 && cmp_host_same(f->host, p->host[s]))
			return f;
	}
	return NULL;
}

const char *compare_contradiction(struct compare *c)
{
	const struct cmp_summary *s = &c->sum;
	struct buf b;
	buf_init(&b);
	char l[512];
	for (size_t i = 0; i < c->nrows && !b.len; i++) {
		const struct cmp_row *r = &c->rows[i];
		const struct cmp_pair *p = &c->pairs[r->pair];
		if (r->spec->kind != CK_LATENCY && !r->per_load)
			continue;
		entity_label(c, r, l, sizeof l);
		for (int f = 0; f < CF_COUNT && !b.len; f++) {
			const struct cmp_figure *g = &r->fig[f];
			if (!g->decides)
				continue;
			if (is_whole_fig((enum cmp_fig)f) && !p->shares_comparable && r->fig[CF_BUSY_P50].used)
				buf_printf(&b, "%s %s: the whole capture's %s decides although the sides are busy for different "
					       "shares of their time",
					   l, metric_info[r->spec->metric].name, cmp_fig_names[f]);
			double q = f == CF_P95 || f == CF_BUSY_P95 ? 0.95 : f == CF_P99 || f == CF_BUSY_P99 ? 0.99 : 0;
			if (r->per_load && q > 0)
				buf_printf(&b, "%s %s per unit of load: its tail (%s) decides", l, metric_info[r->spec->metric].name,
					   cmp_fig_names[f]);
			if (!p->widths_comparable && q > 0 && !b.len)
				buf_printf(&b, "%s %s: its tail (%s) decides although the sides' buckets differ in length", l,
					   metric_info[r->spec->metric].name, cmp_fig_names[f]);
		}
		if (b.len || !r->decisive || !r->material || r->spec->kind != CK_LATENCY || !r->has_lm ||
		    !r->lm.comparable)
			continue;
		enum cmp_verdict lm = r->lm.verdict;
		bool clash = (s->outcome == CO_IMPROVED && lm == CV_REGRESSED) || (s->outcome == CO_REGRESSED && lm == CV_IMPROVED) ||
			     (s->outcome == CO_UNCHANGED && (lm == CV_IMPROVED || lm == CV_REGRESSED));
		if (clash)
			buf_printf(&b, "outcome %s, but %s %s is %s at equal load", cmp_outcome_names[s->outcome], l,
				   metric_info[r->spec->metric].name, cmp_verdict_names[lm]);
	}
	const struct cmp_row *h0 = s->head[0], *h1 = s->head[1];
	if (!b.len) {
		if (s->outcome == CO_IMPROVED && !(h0 && h0->better))
			buf_adds(&b, "outcome improved without an improved headline row");
		else if (s->outcome == CO_REGRESSED && !(h0 && h0->worse))
			buf_adds(&b, "outcome regressed without a regressed headline row");
		else if (s->outcome == CO_MIXED && !(h0 && h0->better && h1 && h1->worse))
			buf_adds(&b, "outcome mixed without a better and a worse headline row");
	}
	for (int k = 0; k < 2 && !b.len && s->findings_compared; k++) {
		const struct cmp_row *h = s->head[k];
		if (!h || c->pairs[h->pair].layer != LAYER_GUEST)
			continue;
		int d = io_direction(h->spec->metric);
		if (!d)
			continue;
		const struct cmp_fdiff *f = fdiff_of(c, &c->pairs[h->pair], d == 'r' ? K_LAT_GUEST_READ : K_LAT_GUEST_WRITE);
		if (!f)
			continue;
		bool better = s->outcome == CO_IMPROVED || (s->outcome == CO_MIXED && k == 0);
		bool worse = s->outcome == CO_REGRESSED || (s->outcome == CO_MIXED && k == 1);
		bool clash = (better && f->status == FD_NEW) || (worse && f->status == FD_GONE) ||
			     (s->outcome == CO_UNCHANGED && (f->status == FD_NEW || f->status == FD_GONE));
		if (clash)
			buf_printf(&b, "outcome %s, but the finding '%s' on %s is %s", cmp_outcome_names[s->outcome], f->title,
				   entity_label(c, h, l, sizeof l), cmp_fstatus_names[f->status]);
	}
	const char *why = b.len ? arena_strndup(&c->arena, b.data, b.len) : NULL;
	buf_free(&b);
	return why;
}
