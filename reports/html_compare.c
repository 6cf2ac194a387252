/* html_compare.c — the before/after report of `iopsy compare --html` (see html.h): the verdict,
 * the comparison table, the CDF, scatter, overlay and busy-phase charts of each pair, the bins of
 * a row and both sides' captures; the page chrome and the charts machinery are html.c's. */
#include "doc.h"
#include "html_int.h"
#include "html_vhist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "version.h"

static void pct(struct buf *b, double v) { fmt_pct(b, v, "&ndash;"); }

/* A round axis end at or above v (1, 2, 2.5, 5 x 10^k). */
static double nice_axis(double v)
{
	if (!(v > 0) || !isfinite(v))
		return 1;
	double e = pow(10, floor(log10(v * 1.04)));
	static const double steps[] = {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if (steps[i] * e >= v * 1.04)
			return steps[i] * e;
	return 10 * e;
}

/* ==== the before/after report (compare --html) ==== */

static const char *cv_class(enum cmp_verdict v)
{
	switch (v) {
	case CV_IMPROVED: return "good";
	case CV_REGRESSED: return "bad";
	case CV_MIXED: return "mixed";
	case CV_HIGHER: case CV_LOWER: return "work";
	case CV_NOT_ASSESSED: case CV_NOT_COMPARABLE: return "na";
	default: return "same";
	}
}

static const char *cv_word(const struct cmp_row *r, enum cmp_verdict v)
{
	switch (v) {
	case CV_IMPROVED: return "improved";
	case CV_REGRESSED: return "regressed";
	case CV_MIXED: return "mixed";
	case CV_HIGHER: return r->spec->kind == CK_WORK ? "more work" : "higher";
	case CV_LOWER: return r->spec->kind == CK_WORK ? "less work" : "lower";
	case CV_NOT_ASSESSED: return "not assessed";
	case CV_NOT_COMPARABLE: return "not comparable";
	default: return "unchanged";
	}
}

static const char *const co_class[CO_COUNT] = {"good", "bad", "mixed", "same", "na"};


static void pair_label(struct buf *b, const struct cmp_pair *p)
{
	char t[512];
	compare_pair_label(p, p->name[CMP_AFTER] ? CMP_AFTER : CMP_BEFORE, t, sizeof t);
	buf_adds(b, "<span class=\"ent\">");
	esc(b, t);
	buf_adds(b, "</span>");
	if (p->name[0] && p->name[1] && strcmp(p->name[0], p->name[1]) != 0) {
		compare_pair_label(p, CMP_BEFORE, t, sizeof t);
		buf_adds(b, " <span class=\"muted small\">(before: <span class=\"ent\">");
		esc(b, t);
		buf_adds(b, "</span>)</span>");
	}
}

static void stats_cell(struct buf *b, const struct cmp_stats *st, bool with_max)
{
	buf_adds(b, "<td class=\"n\">");
	if (!st->samples || isnan(st->p50)) {
		buf_adds(b, "&ndash;</td>");
		return;
	}
	num(b, st->p50);
	buf_adds(b, "<span class=\"sep\">/</span>");
	num(b, st->p95);
	buf_adds(b, "<span class=\"sep\">/</span>");
	num(b, st->p99);
	if (with_max) {
		buf_adds(b, "<span class=\"sep\">/</span>");
		num(b, st->max);
	}
	buf_adds(b, "</td>");
}

static void verdict_badge(struct buf *b, const struct cmp_row *r, enum cmp_verdict v)
{
	buf_printf(b, "<span class=\"cv %s\">%s</span>", cv_class(v), cv_word(r, v));
}

static bool row_material(const struct cmp_row *r)
{
	return r->verdict == CV_IMPROVED || r->verdict == CV_REGRESSED || r->verdict == CV_MIXED || r->verdict == CV_HIGHER ||
	       r->verdict == CV_LOWER || r->verdict == CV_NOT_COMPARABLE ||
	       (r->has_lm && r->lm.comparable && (r->lm.verdict == CV_IMPROVED || r->lm.verdict == CV_REGRESSED));
}

/* Reasons said once per table: a cell gives the note's number, the table's foot the text. */
#define FN_MAX 8
struct fnotes {
	const char *text[FN_MAX];
	int n;
};

/* The number of note t in fn (added when new); 0 when fn is NULL or full (then t is said in place). */
static int fn_ref(struct fnotes *fn, const char *t)
{
	if (!fn)
		return 0;
	for (int i = 0; i < fn->n; i++)
		if (strcmp(fn->text[i], t) == 0)
			return i + 1;
	if (fn->n == FN_MAX)
		return 0;
	fn->text[fn->n++] = t;
	return fn->n;
}

/* A reason: its note number in fn, or the text itself. */
static void fn_cell(struct buf *b, struct fnotes *fn, const char *t)
{
	int k = fn_ref(fn, t);
	if (k)
		buf_printf(b, "<sup class=\"fn\">%d</sup>", k);
	else
		esc(b, t);
}

static void fn_foot(struct buf *b, const struct fnotes *fn)
{
	for (int i = 0; i < fn->n; i++) {
		buf_printf(b, "<p class=\"small muted fnote\"><sup>%d</sup> ", i + 1);
		esc(b, fn->text[i]);
		buf_adds(b, "</p>\n");
	}
}

/* The figures that decided a row: "p95 &minus;93%, time &gt; 50 ms 10% &rarr; 0%, busy median &minus;93%". */
static void deciding_cell(const struct compare *c, const struct cmp_row *r, struct buf *b, struct fnotes *fn)
{
	static const char *const name[CF_COUNT] = {"median", "p95", "p99", "time &gt; ", "time &gt; ",
						   "busy median", "busy p95", "busy p99", "busy time &gt; ", "busy time &gt; "};
	buf_adds(b, "<td class=\"small\">");
	int n = 0;
	for (int f = 0; f < CF_COUNT; f++) {
		const struct cmp_figure *g = &r->fig[f];
		if (!g->used || !g->decides || (g->verdict != CV_IMPROVED && g->verdict != CV_REGRESSED && g->verdict != CV_HIGHER &&
						 g->verdict != CV_LOWER))
			continue;
		if (n++)
			buf_adds(b, "<br>");
		buf_printf(b, "<span class=\"%s\">%s", g->verdict == CV_IMPROVED ? "dgood" : g->verdict == CV_REGRESSED ? "dbad" : "",
			   name[f]);
		if (cmp_fig_is_share((enum cmp_fig)f)) {
			int t = f == CF_OVER0 || f == CF_BUSY_OVER0 ? 0 : 1;
			num(b, rule_value(&c->rules, (enum rule_id)r->spec->thr[t]));
			buf_printf(b, " %s ", metric_info[r->spec->metric].unit);
			fmt_share(b, g->v[0]);
			buf_adds(b, " &rarr; ");
			fmt_share(b, g->v[1]);
		} else {
			buf_addc(b, ' ');
			num(b, g->v[0]);
			buf_adds(b, " &rarr; ");
			num(b, g->v[1]);
			buf_adds(b, " <span class=\"muted\">(");
			pct(b, g->change_pct);
			buf_adds(b, ")</span>");
		}
		buf_adds(b, "</span>");
		if (n == 3)
			break;
	}
	if (!n && r->verdict == CV_NOT_COMPARABLE) {
		buf_adds(b, "<span class=\"muted\">");
		fn_cell(b, fn, "the busy phases of the two sides cannot be compared (the after side's does not "
			       "reach the before side's load, or one side holds only a part of the other's)");
		buf_adds(b, "</span>");
	} else if (!n) {
		buf_adds(b, "<span class=\"muted\">&ndash;</span>");
	}
	buf_adds(b, "</td>");
}

static bool pair_shown(const struct cmp_pair *p)
{
	return (p->active[0] || p->active[1]) && (p->layer != LAYER_VM || p->vm_with_disks);
}

/* The larger mean IOPS of a pair's two sides; guest disks first at equal load (what the application sees). */
static double pair_load(const struct cmp_pair *p)
{
	double v = fmax(isnan(p->load_mean[0]) ? 0 : p->load_mean[0], isnan(p->load_mean[1]) ? 0 : p->load_mean[1]);
	return v * (p->layer == LAYER_GUEST ? 1.5 : 1);
}

static void equal_load_cell(struct buf *b, const struct cmp_row *r, struct fnotes *fn)
{
	buf_adds(b, "<td class=\"small\">");
	if (r->has_lm) {
		if (r->lm.comparable) {
			pct(b, r->lm.change_pct);
			buf_adds(b, " <span class=\"muted\">[");
			pct(b, r->lm.ci[0]);
			buf_adds(b, " .. ");
			pct(b, r->lm.ci[1]);
			buf_adds(b, "]</span> ");
			verdict_badge(b, r, r->lm.verdict);
			buf_printf(b, "<br><span class=\"muted\">%d bins, ", r->lm.bins);
			num(b, r->lm.load_lo);
			buf_adds(b, "&ndash;");
			num(b, r->lm.load_hi);
			buf_adds(b, " IO/s</span>");
		} else {
			buf_adds(b, "<span class=\"muted\">not comparable");
			if (r->lm.note) {
				buf_adds(b, fn ? " " : ": ");
				fn_cell(b, fn, r->lm.note);
			}
			buf_adds(b, "</span>");
		}
	}
	buf_adds(b, "</td>");
}

static void comparison_row(const struct compare *c, const struct cmp_row *r, struct buf *b, bool with_entity,
			   struct fnotes *fn)
{
	const struct cmp_pair *p = &c->pairs[r->pair];
	buf_adds(b, "<tr>");
	if (with_entity) {
		buf_adds(b, "<td>");
		pair_label(b, p);
		if (!isnan(p->load_mean[0]) || !isnan(p->load_mean[1])) {
			buf_adds(b, "<br><span class=\"muted small\">");
			num(b, p->load_mean[0]);
			buf_adds(b, " &rarr; ");
			num(b, p->load_mean[1]);
			buf_adds(b, " IO/s</span>");
		}
		buf_adds(b, "</td>");
	}
	buf_printf(b, "<td>%s <span class=\"muted small\">%s</span></td>", metric_info[r->spec->metric].label,
		   metric_info[r->spec->metric].unit);
	stats_cell(b, &r->s[CMP_BEFORE], !with_entity);
	stats_cell(b, &r->s[CMP_AFTER], !with_entity);
	buf_adds(b, "<td class=\"n\"><b>");
	pct(b, r->change_pct);
	buf_adds(b, "</b><br><span class=\"muted small\">");
	if (!isnan(r->ci[0])) {
		pct(b, r->ci[0]);
		buf_adds(b, " .. ");
		pct(b, r->ci[1]);
	}
	buf_adds(b, "</span></td>");
	deciding_cell(c, r, b, fn);
	buf_adds(b, "<td>");
	verdict_badge(b, r, r->verdict);
	if (r->verdict == CV_UNCHANGED && r->reason == CR_MORE_LOAD)
		buf_adds(b, " <span class=\"muted small\">more load</span>");
	if (r->decisive && r->verdict != CV_NOT_ASSESSED)
		buf_adds(b, " <span class=\"muted small\" title=\"decides the outcome\">&#9733;</span>");
	buf_adds(b, "</td>");
	equal_load_cell(b, r, fn);
	buf_adds(b, "</tr>\n");
}

/* Time of day (s since midnight UTC) of aligned ms t. */
static double tod(int64_t t)
{
	int64_t d = t % 86400000;
	if (d < 0)
		d += 86400000;
	return (double)d / 1000.0;
}

static struct chart_point *side_series(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric m,
				       bool time_of_day, size_t *n)
{
	*n = 0;
	size_t cnt = compare_series(c, p, s, m, NULL, 0);
	if (!cnt)
		return NULL;
	struct cmp_point *cp = xmalloc(cnt * sizeof *cp);
	compare_series(c, p, s, m, cp, cnt);
	struct chart_point *pt = xmalloc((2 * cnt + 1) * sizeof *pt);
	size_t o = 0;
	for (size_t i = 0; i < cnt; i++) {
		double x = time_of_day ? tod(cp[i].t) : (double)cp[i].t / 1000.0;
		if (o && x < pt[o - 1].t) { /* a new capture or midnight: break the line */
			pt[o] = (struct chart_point){pt[o - 1].t, NAN, NAN, NAN};
			o++;
		}
		pt[o] = (struct chart_point){x, cp[i].mean, cp[i].min, cp[i].max};
		o++;
	}
	free(cp);
	*n = o;
	return pt;
}

static const char *const side_label[2] = {"before", "after"};

/* The legend of a side: "before (reads)" for read latency, so a printed chart says what it shows. */
static const char *side_legend(enum metric m, int s)
{
	static const char *const rd[2] = {"before (reads)", "after (reads)"}, *const wr[2] = {"before (writes)", "after (writes)"};
	const char *l = metric_info[m].label;
	size_t n = strlen(l);
	if (n >= 4 && strcasecmp(l + n - 4, "Read") == 0)
		return rd[s];
	if (n >= 5 && strcasecmp(l + n - 5, "Write") == 0)
		return wr[s];
	return side_label[s];
}

/* CDF of metric m on both sides (x: value, y: % of samples at or below). */
static bool cdf_chart(const struct compare *c, const struct cmp_pair *p, enum metric m, struct chart *ch)
{
	chart_init(ch);
	ch->width = 540;
	ch->panel_height = 230;
	ch->xnumeric = true;
	snprintf(ch->panel[0].ylabel, sizeof ch->panel[0].ylabel, "%% of samples <= x");
	ch->panel[0].ymax = 100;
	double lo = INFINITY, hi = 0;
	struct chart_point pts[2][210];
	size_t np[2] = {0, 0};
	for (int s = 0; s < 2; s++) {
		struct qsketch q;
		compare_sketch(c, p, (enum cmp_side)s, m, &q);
		if (q.n) {
			for (int i = 1; i <= 202; i++) {
				double pr = i <= 199 ? i / 200.0 : i == 200 ? 0.995 : i == 201 ? 0.999 : 1.0;
				double x = i == 202 ? q.max : qs_quantile(&q, pr);
				if (isnan(x))
					continue;
				pts[s][np[s]++] = (struct chart_point){x, pr * 100, pr * 100, pr * 100};
				if (x > 0 && x < lo)
					lo = x;
				if (x > hi)
					hi = x;
			}
		}
		qs_free(&q);
	}
	if (!np[0] && !np[1])
		return false;
	ch->xlog = lo < INFINITY && hi / lo > 20;
	if (ch->xlog) {
		ch->t0 = pow(10, floor(log10(lo)));
		ch->t1 = pow(10, ceil(log10(hi)));
		for (int s = 0; s < 2; s++) /* log axis: values <= 0 cannot be drawn */
			for (size_t i = 0; i < np[s]; i++)
				if (pts[s][i].t <= 0)
					pts[s][i].t = ch->t0;
	} else {
		ch->t0 = 0;
		ch->t1 = nice_axis(hi);
	}
	snprintf(ch->xlabel, sizeof ch->xlabel, "%s%s", metric_info[m].unit, ch->xlog ? " (log scale)" : "");
	for (int s = 0; s < 2; s++)
		if (np[s])
			chart_add_series(ch, side_legend(m, s), 0, CS_LINE, s ? CHART_AFTER : CHART_BEFORE, pts[s], np[s]);
	return ch->ns > 0;
}

/* Latency (my) against IOPS (mx), both sides. */
static bool scatter_chart(const struct compare *c, const struct cmp_pair *p, enum metric mx, enum metric my, struct chart *ch)
{
	chart_init(ch);
	ch->width = 540;
	ch->panel_height = 230;
	ch->xnumeric = true;
	snprintf(ch->panel[0].ylabel, sizeof ch->panel[0].ylabel, "%s", metric_info[my].unit);
	snprintf(ch->xlabel, sizeof ch->xlabel, "%s", metric_info[mx].unit);
	double hi = 0;
	for (int s = 0; s < 2; s++) {
		size_t n = compare_xy(c, p, (enum cmp_side)s, mx, my, NULL, NULL, 0);
		if (!n)
			continue;
		double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
		compare_xy(c, p, (enum cmp_side)s, mx, my, x, y, n);
		for (size_t i = 0; i < n; i++)
			if (x[i] > hi)
				hi = x[i];
		chart_add_scatter(ch, side_legend(my, s), 0, s ? CHART_AFTER : CHART_BEFORE, x, y, n);
		free(x);
		free(y);
	}
	ch->t0 = 0;
	ch->t1 = nice_axis(hi);
	return ch->ns > 0;
}

/* Time-of-day overlay of metric m (and the load, when given) on both sides. */
static bool overlay_chart(const struct compare *c, const struct cmp_pair *p, enum metric m, int load, struct chart *ch)
{
	chart_init(ch);
	ch->panel_height = 150;
	double lo = INFINITY, hi = -INFINITY;
	const int ms[2] = {(int)m, load};
	for (int k = 0; k < 2; k++) {
		if (ms[k] < 0)
			continue;
		int panel = ch->npanels;
		bool any = false;
		for (int s = 0; s < 2; s++) {
			size_t n;
			struct chart_point *pt = side_series(c, p, (enum cmp_side)s, (enum metric)ms[k], true, &n);
			for (size_t i = 0; i < n; i++) {
				if (isnan(pt[i].mean))
					continue;
				lo = fmin(lo, pt[i].t);
				hi = fmax(hi, pt[i].t);
			}
			if (pt && chart_add_series(ch, k ? side_label[s] : side_legend(m, s), panel, CS_BAND,
						   s ? CHART_AFTER : CHART_BEFORE, pt, n))
				any = true;
			free(pt);
		}
		if (any)
			snprintf(ch->panel[panel].ylabel, sizeof ch->panel[panel].ylabel, "%s", metric_info[ms[k]].unit);
	}
	if (!ch->ns)
		return false;
	ch->t0 = lo;
	ch->t1 = hi > lo ? hi : lo + 60;
	return true;
}

/* Metric m over each side's busy phase (its longest busy stretch), against the minutes since
 * that stretch began: the two busy periods side by side, whatever their time of day. */
static bool busy_chart(const struct compare *c, const struct cmp_pair *p, enum metric m, struct chart *ch)
{
	chart_init(ch);
	ch->panel_height = 170;
	ch->xnumeric = true;
	snprintf(ch->xlabel, sizeof ch->xlabel, "minutes into the busy phase");
	snprintf(ch->panel[0].ylabel, sizeof ch->panel[0].ylabel, "%s", metric_info[m].unit);
	double hi = 0;
	for (int s = 0; s < 2; s++) {
		const struct cmp_busy *bz = &p->busy[s];
		if (!bz->has || !(bz->end > bz->start))
			continue;
		size_t cnt = compare_series(c, p, (enum cmp_side)s, m, NULL, 0);
		if (!cnt)
			continue;
		struct cmp_point *cp = xmalloc(cnt * sizeof *cp);
		compare_series(c, p, (enum cmp_side)s, m, cp, cnt);
		struct chart_point *pt = xmalloc(cnt * sizeof *pt);
		size_t n = 0;
		for (size_t i = 0; i < cnt; i++) {
			if (cp[i].t < bz->start || cp[i].t > bz->end)
				continue;
			double x = (double)(cp[i].t - bz->start) / 60000.0;
			pt[n++] = (struct chart_point){x, cp[i].busy ? cp[i].mean : NAN, cp[i].min, cp[i].max};
			hi = fmax(hi, x);
		}
		if (n)
			chart_add_series(ch, side_legend(m, s), 0, CS_BAND, s ? CHART_AFTER : CHART_BEFORE, pt, n);
		free(pt);
		free(cp);
	}
	if (!ch->ns)
		return false;
	ch->t0 = 0;
	ch->t1 = hi > 0 ? hi : 1;
	return true;
}

static void bins_table(const struct compare *c, size_t row, struct buf *b)
{
	for (size_t i = 0; i < c->nlb; i++) {
		const struct cmp_loadbins *lb = &c->lb[i];
		if (lb->row != row || !lb->nbins)
			continue;
		const struct cmp_row *r = &c->rows[row];
		size_t both = 0;
		for (size_t k = 0; k < lb->nbins; k++)
			both += lb->bins[k].n[0] && lb->bins[k].n[1];
		buf_printf(b, "<div class=\"keep\"><h4>%s at equal load (median per IOPS bin)</h4>\n",
			   metric_info[r->spec->metric].label);
		if (!both)
			buf_adds(b, "<p class=\"small muted\">No IOPS bin holds samples of both sides: the loads "
				    "do not overlap.</p>\n");
		else
			buf_adds(b, "<div class=\"tablewrap\"><table class=\"bins\"><thead><tr><th class=\"n\">IO/s</th>"
				    "<th class=\"n\">Samples<br>before / after</th><th class=\"n\">p50 before</th>"
				    "<th class=\"n\">p50 after</th><th class=\"n\">p95 before</th>"
				    "<th class=\"n\">p95 after</th><th>Compared</th></tr></thead><tbody>\n");
		size_t only_n[2] = {0, 0};
		double only_lo[2] = {INFINITY, INFINITY}, only_hi[2] = {0, 0};
		for (size_t k = 0; k < lb->nbins; k++) {
			const struct cmp_bin *bn = &lb->bins[k];
			if (!bn->n[0] || !bn->n[1]) { /* load seen on one side only: summarised below */
				int sd = bn->n[0] ? 0 : 1;
				only_n[sd] += bn->n[sd];
				only_lo[sd] = fmin(only_lo[sd], bn->lo);
				only_hi[sd] = fmax(only_hi[sd], bn->hi);
				continue;
			}
			buf_printf(b, "<tr%s><td class=\"n\">", bn->matched ? "" : " class=\"unmatched\"");
			num(b, bn->lo);
			buf_adds(b, "&ndash;");
			num(b, bn->hi);
			buf_printf(b, "</td><td class=\"n\">%zu / %zu</td><td class=\"n\">", bn->n[0], bn->n[1]);
			num(b, bn->p50[0]);
			buf_adds(b, "</td><td class=\"n\">");
			num(b, bn->p50[1]);
			buf_adds(b, "</td><td class=\"n\">");
			num(b, bn->p95[0]);
			buf_adds(b, "</td><td class=\"n\">");
			num(b, bn->p95[1]);
			buf_printf(b, "</td><td>%s</td></tr>\n", bn->matched ? "yes" : "<span class=\"muted\">too few samples on a side</span>");
		}
		if (both)
			buf_adds(b, "</tbody></table></div>\n");
		buf_adds(b, "</div>\n");
		for (int sd = 0; sd < 2; sd++) {
			if (!only_n[sd])
				continue;
			buf_printf(b, "<p class=\"small muted\">Load seen only %s, between ", side_label[sd]);
			num(b, only_lo[sd]);
			buf_adds(b, " and ");
			num(b, only_hi[sd]);
			buf_printf(b, " IO/s (%zu sample%s), not comparable at equal load.</p>\n", only_n[sd], only_n[sd] == 1 ? "" : "s");
		}
		if (lb->has_slope) {
			buf_adds(b, "<p class=\"small muted\">Latency per outstanding IO (least-squares slope): before ");
			num(b, lb->slope[0]);
			buf_adds(b, " ms, after ");
			num(b, lb->slope[1]);
			buf_adds(b, " ms per IO");
			if (!isnan(lb->slope_change_pct)) {
				buf_adds(b, " (");
				pct(b, lb->slope_change_pct);
				buf_adds(b, ")");
			}
			buf_adds(b, ".</p>\n");
		}
	}
}

static const char compare_css[] =
	".cv{display:inline-block;font-size:12px;font-weight:600;padding:1px 9px;border-radius:999px;white-space:nowrap;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".cv.good{background:var(--ok-bg);color:var(--ok)}.cv.bad{background:var(--crit-bg);color:var(--crit)}"
	".cv.work{background:var(--info-bg);color:var(--info)}.cv.same{background:#eef0f3;color:var(--muted)}"
	".cv.na{color:var(--faint)}\n"
	".fs{display:inline-block;font-size:12px;font-weight:600;padding:1px 9px;border-radius:999px;white-space:nowrap;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".fs.gone{background:var(--ok-bg);color:var(--ok)}.fs.new{background:var(--crit-bg);color:var(--crit)}"
	".fs.still{background:var(--warn-bg);color:var(--warn)}\n"
	".count.good b{color:var(--ok)}.count.bad b{color:var(--crit)}.count.work b{color:var(--info)}\n"
	".pairgrid{display:grid;grid-template-columns:1fr 1fr;gap:14px}\n"
	".pairgrid figure.chart{margin:0}\n"
	".chartset{border-top:1px solid var(--line);padding:20px 0 6px}.chartset:first-of-type{border-top:none;padding-top:4px}\n"
	".key-before,.key-after{display:inline-block;width:24px;height:0;vertical-align:middle;margin:0 5px 0 8px;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".key-before{border-top:4px dashed #d55e00}.key-after{border-top:3px solid #08306b}\n"
	".cv.mixed{background:var(--warn-bg);color:var(--warn)}.fs.na{background:#eef0f3;color:var(--muted)}\n"
	".dgood{color:var(--ok)}.dbad{color:var(--crit)}\n"
	".outcome{display:inline-block;font-size:22px;font-weight:700;padding:2px 16px;border-radius:8px;margin:0 0 10px;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact;border:2px solid currentColor}\n"
	".outcome.good{color:var(--ok);background:var(--ok-bg)}.outcome.bad{color:var(--crit);background:var(--crit-bg)}"
	".outcome.mixed{color:var(--warn);background:var(--warn-bg)}.outcome.same{color:var(--muted);background:#eef0f3}"
	".outcome.na{color:#5d4a00;background:var(--warn-bg)}\n"
	".headline{font-size:19px;line-height:1.5;font-weight:600;margin:0 0 12px}\n"
	".verdict.bad{border-left-color:var(--crit)}.verdict.mixed{border-left-color:#d98a00}.verdict.same{border-left-color:#8a94a6}"
	".verdict.na{border-left-color:#d98a00}\n"
	"tr.group td{background:#f7f8fa;font-weight:600;border-bottom:1px solid var(--line)}\n"
	"tr.unmatched td{color:var(--faint)}\n"
	"@media (max-width:860px){.pairgrid{grid-template-columns:1fr}}\n"
	"sup.fn{color:var(--muted);font-weight:600}p.fnote{margin:2px 0}\n"
	".verdict p.para{margin:0 0 8px}\n"
	"@media print{.pairgrid{grid-template-columns:1fr 1fr}.chartset{break-inside:auto}"
	".chartset h3,.chartset p.where{break-after:avoid;page-break-after:avoid}"
	"h2,h3,h4,h2+p.small,h4+p.small{break-after:avoid;page-break-after:avoid}"
	".keep{break-inside:avoid;page-break-inside:avoid}#key{break-before:page;page-break-before:always}"
	"tr{break-inside:avoid;page-break-inside:avoid}}\n";

static void side_period(const struct analysis *a, const struct ltime *lt, struct buf *b)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *cp = &a->m.caps[i];
		if (cp->failed || !cp->rows)
			continue;
		if (cp->start + cp->clock_offset_ms < t0)
			t0 = cp->start + cp->clock_offset_ms;
		if (cp->end + cp->clock_offset_ms > t1)
			t1 = cp->end + cp->clock_offset_ms;
	}
	if (t0 >= t1) {
		buf_adds(b, "no readable capture");
		return;
	}
	period_html(b, lt, t0, t1);
}

/* The document head and the page header: hosts, both sides' periods, the report's date. */
static void head_compare(struct buf *out, const struct html_opts *o, const struct compare *c, const struct ltime *lt)
{
	buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"iopsy " IOPSY_VERSION "\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
		      "<title>");
	doc_title(out, o, "Before and after", &c->side[CMP_AFTER].m);
	buf_adds(out, "</title>\n<style>\n");
	buf_adds(out, css);
	buf_adds(out, compare_css);
	buf_adds(out, "</style>\n");
	print_page_css(out, o, "What did the change do?");
	buf_adds(out, "</head>\n<body>\n");
	{
		struct buf meta;
		buf_init(&meta);
		buf_adds(&meta, "<span>");
		hosts_line(&c->side[CMP_AFTER].m, &meta);
		buf_adds(&meta, "</span><span>before: ");
		side_period(&c->side[CMP_BEFORE], lt, &meta);
		buf_adds(&meta, "</span><span>after: ");
		side_period(&c->side[CMP_AFTER], lt, &meta);
		buf_adds(&meta, "</span><span>report of ");
		generated_at(&meta);
		buf_adds(&meta, "</span>");
		page_header(out, o, "before and after", "What did the change do?", meta.data);
		buf_free(&meta);
	}
}

/* The verdict's detail in short paragraphs: a new one at each of its topics (what got better,
 * what got worse, the work done, equal load, the busy shares, the layers below, the findings, the
 * counts). */
static void detail_paragraphs(const char *d, struct buf *out)
{
	static const char *const topic[] = {"Worse", "Not comparable:", "The after side did", "The load differs",
					    "Latency at equal load", "The two sides are busy",
					    "Latency below the guest", "Below the disks compared", "Paired through",
					    "Findings", "No findings", "Only host captures", "Of ", "Nothing to compare",
					    "No material change", "No latency could"};
	const char *from = d;
	for (const char *p = d;; p++) {
		bool cut = !*p;
		if (*p && p - d >= 2 && p[-1] == ' ' && p[-2] == '.')
			for (size_t k = 0; k < sizeof topic / sizeof topic[0] && !cut; k++)
				cut = strncmp(p, topic[k], strlen(topic[k])) == 0;
		if (!cut)
			continue;
		if (p > from) {
			char *one = xstrndup(from, (size_t)(p - from));
			buf_adds(out, "<p class=\"lead small para\">");
			esc(out, one);
			buf_adds(out, "</p>\n");
			free(one);
		}
		from = p;
		if (!*p)
			break;
	}
}

/* The verdict: the outcome, the headline, the counts, how the outcome is read. */
static void verdict_compare(const struct compare *c, const struct doc *d, const struct html_result *res,
			    struct buf *out)
{
	const struct cmp_summary *sm = &c->sum;
	const char *vcls = sm->outcome == CO_IMPROVED && sm->findings[FD_NEW] ? "mixed" : co_class[sm->outcome];
	if (sm->outcome == CO_IMPROVED && !sm->findings[FD_NEW])
		vcls = "ok";
	buf_printf(out, "<section id=\"verdict\" class=\"verdict %s\">\n<h2>Verdict</h2>\n", vcls);
	buf_printf(out, "<p><span class=\"outcome %s\">%s%s</span></p>\n<p class=\"headline\">", co_class[sm->outcome],
		   cmp_outcome_words[sm->outcome], sm->capacity_gain ? " &middot; capacity gain" : "");
	esc(out, c->headline ? c->headline : "No comparison result.");
	buf_adds(out, "</p>\n");
	const struct doc_section *v = &d->sec[DS_VERDICT]; /* doc_compare_summary: the detail */
	detail_paragraphs(v->nb && v->b[0].text ? v->b[0].text : "", out);
	for (size_t i = 0; i < c->nsql; i++) {
		buf_adds(out, "<p class=\"lead small\"><b>SQL Server:</b> ");
		esc(out, c->sql[i].text);
		if (c->sql[i].comment) {
			buf_addc(out, ' ');
			esc(out, c->sql[i].comment);
		}
		buf_adds(out, "</p>\n");
	}
	buf_adds(out, "<div class=\"counts\">");
	buf_printf(out, "<div class=\"count good\"><b>%d</b>improved</div><div class=\"count bad\"><b>%d</b>regressed</div>"
			"<div class=\"count\"><b>%d</b>mixed</div><div class=\"count\"><b>%d</b>unchanged</div>"
			"<div class=\"count\"><b>%d</b>not comparable</div><div class=\"count work\"><b>%d</b>more / less work</div>"
			"<div class=\"count good\"><b>%d</b>findings gone</div><div class=\"count bad\"><b>%d</b>new findings</div>",
		   sm->verdicts[CV_IMPROVED], sm->verdicts[CV_REGRESSED], sm->verdicts[CV_MIXED], sm->verdicts[CV_UNCHANGED],
		   sm->verdicts[CV_NOT_COMPARABLE], sm->verdicts[CV_HIGHER] + sm->verdicts[CV_LOWER], sm->findings[FD_GONE],
		   sm->findings[FD_NEW]);
	buf_adds(out, "</div>\n");
	buf_printf(out, "<p class=\"small muted\">The outcome reads the latency at the top of each IO stack (&#9733;): a row is "
			"improved when its tail (p95, p99), its time above a band of the rules or its busy phase improved with a "
			"whole %.0f%% block-bootstrap interval (%u resamples) beyond the material change (%g%% and the metric's "
			"floor) that does not degenerate, and nothing regressed; regressed the other way, mixed when both. The median is the typical IO "
			"and does not decide. A fix is only called when the after side's busy phase reaches the before side's "
			"load (half its IOPS or its outstanding IO); latency is also compared at equal load (IOPS bins).</p>\n",
		   c->o.confidence * 100, c->o.resamples, c->o.material_pct);
	if (res->no_gnuplot)
		buf_adds(out, "<p class=\"notice\"><b>Charts are not included:</b> gnuplot was not found on the machine that made this "
			      "report. Install gnuplot (Debian: <code>gnuplot-nox</code>) and run <code>iopsy compare --html</code> again.</p>\n");
	buf_adds(out, "</section>\n");
}

/* The findings of both sides (the document's, doc_compare_findings): new, still present, gone, not
 * assessed. */
static void findings_compare(const struct doc *d, struct buf *out)
{
	buf_adds(out, "<section id=\"findings\">\n<h2>Findings before and after</h2>\n");
	const struct doc_block *t = doc_role(d, DS_FINDINGS, ROLE_FDIFF);
	if (!t || !t->nrows) {
		buf_adds(out, "<p>No findings on either side.</p>\n");
	} else {
		buf_adds(out, "<div class=\"tablewrap\"><table><thead><tr><th>Status</th><th>Finding</th><th>Where</th>"
			      "<th>Before</th><th>After</th></tr></thead><tbody>\n");
		static const char *const fcls[FD_COUNT] = {"gone", "still", "new", "na", "na"};
		for (int pass = 0; pass < FD_COUNT; pass++) {
			const enum cmp_fstatus order[FD_COUNT] = {FD_NEW, FD_STILL, FD_GONE, FD_NOT_ASSESSED_AFTER, FD_NOT_ASSESSED_BEFORE};
			for (size_t i = 0; i < t->nrows; i++) {
				if ((int)doc_fdiff_v(t, i, FDC_STATUS_CODE) != (int)order[pass])
					continue;
				buf_printf(out, "<tr><td><span class=\"fs %s\">", fcls[order[pass]]);
				esc(out, doc_fdiff_s(t, i, FDC_STATUS));
				buf_adds(out, "</span></td><td>");
				size_t at = out->len; /* the kind's title, capitalised */
				esc(out, doc_fdiff_s(t, i, FDC_KIND));
				if (out->len > at && out->data[at] >= 'a' && out->data[at] <= 'z')
					out->data[at] = (char)(out->data[at] - 'a' + 'A');
				if (doc_fdiff_s(t, i, FDC_WHY)) {
					buf_adds(out, "<br><span class=\"muted small\">");
					esc(out, doc_fdiff_s(t, i, FDC_WHY));
					buf_adds(out, "</span>");
				}
				buf_adds(out, "</td><td>");
				entity_label(out, doc_fdiff_s(t, i, FDC_HOST), doc_fdiff_s(t, i, FDC_ENTITY));
				for (int s = 0; s < 2; s++) {
					int k = FDC_SIDE + 4 * s;
					double n = doc_fdiff_v(t, i, k + FDC_WINDOWS);
					int worst = (int)doc_fdiff_v(t, i, k + FDC_WORST_CODE);
					buf_adds(out, "<td>");
					if (n > 0 && worst >= 0)
						buf_printf(out,
							   "<span class=\"badge %s\">%s</span> <span class=\"muted small\">"
							   "%.0f window%s, ",
							   sev_class(worst), sev_word(worst), n, n == 1 ? "" : "s");
					if (n > 0) {
						duration(out, doc_fdiff_v(t, i, k + FDC_SUSTAINED));
						buf_adds(out, "</span>");
					} else {
						buf_adds(out, "<span class=\"muted\">&ndash;</span>");
					}
					buf_adds(out, "</td>");
				}
				buf_adds(out, "</tr>\n");
			}
		}
		buf_adds(out, "</tbody></table></div>\n");
	}
	buf_adds(out, "</section>\n");
}

/* The key changes listed; the rest are in the appendix. */
#define KEY_MAX 8

/* A row's weight: its share of the IO (1 when unknown) times its relative change (of the median,
 * else of its largest deciding figure). */
static double row_weight(const struct cmp_row *r)
{
	double ch = fabs(r->change_pct);
	for (int f = 0; f < CF_COUNT; f++)
		if (r->fig[f].used && r->fig[f].decides && fabs(r->fig[f].change_pct) > (isnan(ch) ? -1 : ch))
			ch = fabs(r->fig[f].change_pct);
	double w = isnan(r->io_share) ? 1 : r->io_share;
	return isnan(ch) ? 0 : w * ch;
}

/* The material changes of latency, queueing and penalties, the heaviest first. */
static void key_changes(const struct compare *c, struct buf *out)
{
	buf_adds(out, "<section id=\"key\">\n<h2>Key changes</h2>\n<p class=\"small muted\">Material changes of latency, "
		      "queueing (per unit of load) and penalties; changes in the amount of work are in <a href=\"#all\">all "
		      "comparisons</a>. Figures are p50 / p95 / p99 of every sample; &ldquo;median&rdquo; is the change of the "
		      "typical IO with its interval; &ldquo;deciding figures&rdquo; are those that moved materially; &ldquo;at "
		      "equal load&rdquo; compares latency within matched IOPS bins.</p>\n");
	/* by weight: the row's share of the IO times its change, the heaviest first */
	size_t n = 0, *ix = xmalloc((c->nrows ? c->nrows : 1) * sizeof *ix);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		if (row_material(r) && pair_shown(&c->pairs[r->pair]) && cmp_kind_lower_is_better(r->spec->kind))
			ix[n++] = i;
	}
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && row_weight(&c->rows[ix[k]]) > row_weight(&c->rows[ix[k - 1]]); k--) {
			size_t t = ix[k];
			ix[k] = ix[k - 1];
			ix[k - 1] = t;
		}
	struct fnotes fn = {.n = 0};
	size_t shown = n < KEY_MAX ? n : KEY_MAX;
	if (shown)
		buf_adds(out, "<div class=\"tablewrap\"><table class=\"cmp\"><thead><tr><th>Entity</th><th>Metric</th>"
			      "<th class=\"n\">Before<br>p50 / p95 / p99</th>"
			      "<th class=\"n\">After<br>p50 / p95 / p99</th><th class=\"n\">Median<br>interval</th>"
			      "<th>Deciding figures</th><th>Outcome</th><th>At equal load</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < shown; i++)
		comparison_row(c, &c->rows[ix[i]], out, true, &fn);
	if (shown) {
		buf_adds(out, "</tbody></table></div>\n");
		fn_foot(out, &fn);
	} else {
		buf_adds(out, "<p>No material change: every comparison is unchanged or could not be assessed.</p>\n");
	}
	if (n > shown)
		buf_printf(out, "<p class=\"small muted\">%zu further material change%s, of less weight: in the "
				"appendix, <a href=\"#all\">all comparisons</a>.</p>\n",
			   n - shown, n - shown == 1 ? "" : "s");
	free(ix);
	buf_adds(out, "</section>\n");
}

/* The charts of pair p, led by row lead: distribution, against load, busy phase, time of day, bins. */
static void pair_chartset(const struct compare *c, const struct cmp_pair *p, const struct cmp_row *lead,
			  const struct html_opts *o, const struct html_result *res, const struct ltime *lt, struct figs *figs,
			  struct buf *out)
{
	enum metric m = lead->spec->metric;
	buf_adds(out, "<div class=\"chartset\">\n<h3>");
	pair_label(out, p);
	buf_printf(out, " &middot; %s</h3>\n<p class=\"where\">%s layer &middot; mean load ", metric_info[m].label,
		   layer_names[p->layer]);
	num(out, p->load_mean[0]);
	buf_adds(out, " &rarr; ");
	num(out, p->load_mean[1]);
	buf_adds(out, " IO/s &middot; p95 ");
	num(out, lead->s[0].p95);
	buf_adds(out, " &rarr; ");
	num(out, lead->s[1].p95);
	buf_printf(out, " %s &middot; median ", metric_info[m].unit);
	num(out, lead->s[0].p50);
	buf_adds(out, " &rarr; ");
	num(out, lead->s[1].p50);
	buf_printf(out, " %s ", metric_info[m].unit);
	verdict_badge(out, lead, lead->verdict);
	buf_adds(out, "</p>\n");
	if (res->no_gnuplot && !o->gnuplot_dir)
		return;
	struct buf cap;
	buf_init(&cap);
	struct chart ch;
	buf_adds(out, "<div class=\"pairgrid\">\n");
	if (cdf_chart(c, p, m, &ch)) {
		buf_reset(&cap);
		buf_printf(&cap, "Distribution of %s, before and after.", metric_info[m].label);
		figs_add(figs, &ch, out, 0, cap.data);
	}
	chart_free(&ch);
	if (lead->spec->load >= 0 && scatter_chart(c, p, (enum metric)lead->spec->load, m, &ch)) {
		buf_reset(&cap);
		buf_printf(&cap, "%s against %s.", metric_info[m].label, metric_info[lead->spec->load].label);
		figs_add(figs, &ch, out, 0, cap.data);
	}
	chart_free(&ch);
	buf_adds(out, "</div>\n");
	if ((p->busy[0].distinct || p->busy[1].distinct) && busy_chart(c, p, m, &ch)) {
		buf_reset(&cap);
		buf_printf(&cap, "%s during the busy phase of each side, from its start.", metric_info[m].label);
		figs_add(figs, &ch, out, 0, cap.data);
	}
	chart_free(&ch);
	if (overlay_chart(c, p, m, lead->spec->load, &ch)) {
		ch.time_of_day = true;
		ch.ltz = lt->known ? &lt->z : NULL;
		for (size_t k = 0; k < c->side[CMP_AFTER].m.ncaps; k++)
			if (!c->side[CMP_AFTER].m.caps[k].failed && c->side[CMP_AFTER].m.caps[k].rows) {
				ch.tod_ref_s = c->side[CMP_AFTER].m.caps[k].start / 1000;
				break;
			}
		buf_reset(&cap);
		buf_printf(&cap, "%s%s%s by time of day, both days on one clock.", metric_info[m].label,
			   lead->spec->load >= 0 ? " and " : "", lead->spec->load >= 0 ? metric_info[lead->spec->load].label : "");
		figs_add(figs, &ch, out, 0, cap.data);
	}
	chart_free(&ch);
	buf_free(&cap);
	bins_table(c, (size_t)(lead - c->rows), out);
	buf_adds(out, "</div>\n");
}

/* A row the appendix lists: one that moved (improved, regressed, mixed, more or less, not
 * comparable, or unchanged because the load explains it); the rest are counted, and listed in the
 * workbook and the JSON. */
static bool row_moved(const struct compare *c, const struct cmp_row *r)
{
	/* the work and occupancy below the guest follow the guest's (its rows are listed) */
	if ((r->spec->kind == CK_WORK || r->spec->kind == CK_OCCUPANCY) && c->pairs[r->pair].layer != LAYER_GUEST)
		return false;
	return r->verdict != CV_NOT_ASSESSED &&
	       (r->verdict != CV_UNCHANGED || r->reason == CR_MORE_LOAD || r->reason == CR_WITH_LOAD);
}

/* The comparisons that moved, pair by pair, and the entities on one side only. */
static void all_comparisons(const struct compare *c, const struct html_opts *o, struct buf *out)
{
	struct fnotes fn = {.n = 0};
	buf_adds(out, "<section id=\"all\">\n<h2>Appendix: all comparisons</h2>\n"
		      "<div class=\"tablewrap\"><table class=\"cmp\"><thead><tr>"
		      "<th>Metric</th><th class=\"n\">Before<br>p50 / p95 / p99 / max</th><th class=\"n\">After<br>p50 / p95 / p99 / max</th>"
		      "<th class=\"n\">Median<br>interval</th><th>Deciding figures</th><th>Outcome</th><th>At equal load</th></tr>"
		      "</thead><tbody>\n");
	size_t quiet = 0, nquiet_pairs = 0;
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if (!p->name[0] || !p->name[1] || !pair_shown(p) || !p->nrows)
			continue;
		size_t moved = 0;
		for (size_t k = p->first_row; k < p->first_row + p->nrows; k++)
			moved += row_moved(c, &c->rows[k]);
		quiet += p->nrows - moved;
		if (!moved) {
			nquiet_pairs++;
			continue;
		}
		buf_adds(out, "<tr class=\"group\"><td colspan=\"7\">");
		pair_label(out, p);
		buf_printf(out, " <span class=\"muted small\">%s &middot; mean ", layer_names[p->layer]);
		num(out, p->load_mean[0]);
		buf_adds(out, " &rarr; ");
		num(out, p->load_mean[1]);
		buf_adds(out, " IO/s</span></td></tr>\n");
		for (size_t k = p->first_row; k < p->first_row + p->nrows; k++)
			if (row_moved(c, &c->rows[k]))
				comparison_row(c, &c->rows[k], out, false, &fn);
	}
	buf_adds(out, "</tbody></table></div>\n");
	fn_foot(out, &fn);
	if (quiet)
		buf_printf(out, "<p class=\"small muted\">%zu further comparison%s%s unchanged, not assessed, or the "
				"work and queue occupancy below the guest disks (%zu entit%s with no change at all): "
				"each is in the comparison's workbook and JSON%s.</p>\n",
			   quiet, quiet == 1 ? "" : "s", quiet == 1 ? " is" : " are", nquiet_pairs,
			   nquiet_pairs == 1 ? "y" : "ies",
			   !o->print ? " (the JSON is embedded in this file)"
			   : o->attached ? " (the JSON is attached to this PDF)"
					 : "");
	/* one side only */
	size_t one = 0;
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if ((p->name[0] && p->name[1]) || (p->layer == LAYER_VM && !p->vm_with_disks))
			continue;
		if (!one++)
			buf_adds(out, "<h4>On one side only</h4>\n<div class=\"tablewrap\"><table><thead><tr><th>Entity</th><th>Layer</th>"
				      "<th>Present</th><th class=\"n\">Mean IO/s</th></tr></thead><tbody>\n");
		int sd = p->name[0] ? 0 : 1;
		buf_adds(out, "<tr><td>");
		pair_label(out, p);
		buf_printf(out, "</td><td>%s</td><td>%s only</td><td class=\"n\">", layer_names[p->layer], side_label[sd]);
		num(out, p->load_mean[sd]);
		buf_adds(out, "</td></tr>\n");
	}
	if (one)
		buf_adds(out, "</tbody></table></div>\n");
	buf_adds(out, "</section>\n");
}

/* A side's capture notes, each naming its side ("Before: guest disks were matched ..."). */
static void side_notes(const struct analysis *a, const char *side, struct notes *nt)
{
	struct notes one;
	buf_init(&one.items);
	one.n = 0;
	capture_notes(a, &one);
	const char *p = one.items.data ? one.items.data : "";
	while (*p) {
		const char *li = strstr(p, "<li>");
		if (!li) {
			buf_adds(&nt->items, p);
			break;
		}
		buf_add(&nt->items, p, (size_t)(li - p));
		buf_printf(&nt->items, "<li><b>%s:</b> ", side);
		p = li + 4;
	}
	nt->n += one.n;
	buf_free(&one.items);
}

/* Both sides' captures, workflow notices and the report's warnings. */
static void captures_compare(const struct compare *c, const struct ltime *lt, const struct html_result *res,
			     struct notes *nt, struct buf *out)
{
	buf_adds(out, "<section id=\"captures\">\n<h2>Captures</h2>\n");
	for (int s = 0; s < 2; s++) {
		buf_printf(out, "<h4>%s</h4>\n", s ? "After" : "Before");
		captures_section(&c->side[s], lt, out);
		side_notes(&c->side[s], s ? "After" : "Before", nt);
		workflow_notices(&c->side[s], out);
	}
	if (res->no_gnuplot)
		note_add(nt, "gnuplot was not found: the report has no charts.");
	if (nt->n) {
		buf_adds(out, "<h4>Warnings</h4>\n<ul class=\"warnings\">\n");
		buf_add(out, nt->items.data, nt->items.len);
		buf_adds(out, "</ul>\n");
	}
	buf_adds(out, "</section>\n");
}

/* The entities charted: the busiest with a material latency change (a customer reads two). */
#define CHARTSETS_MAX 2

int report_html_compare(const struct compare *c, const struct html_opts *o, struct buf *out, struct html_result *res,
			struct diag *d)
{
	memset(res, 0, sizeof *res);
	struct chart_opts co = {.gnuplot = o->gnuplot, .keep_dir = o->gnuplot_dir, .timeout_s = o->timeout_s};
	struct charts cs;
	struct buf err;
	buf_init(&err);
	int crc = charts_open(&cs, &co, &err);
	if (crc == ERR_IO) {
		diag_emit(d, DIAG_ERROR, 0, 0, "%s", err.data);
		buf_free(&err);
		return ERR_IO;
	}
	if (crc == CHARTS_NO_GNUPLOT) {
		res->no_gnuplot = true;
		diag_emit(d, MSG_LEVEL(o), 0, 0, "gnuplot was not found: the report has no charts (install gnuplot-nox, or set IOPSY_GNUPLOT)");
		if (o->require_charts) {
			charts_close(&cs);
			buf_free(&err);
			return CHARTS_NO_GNUPLOT;
		}
	}
	struct notes nt;
	buf_init(&nt.items);
	nt.n = 0;
	struct ltime lt;
	ltime_init(&lt, &c->side[CMP_AFTER].m, &c->side[CMP_BEFORE].m);

	head_compare(out, o, c, &lt);
	static const char *const toc[] = {"summary", "Summary", "verdict", "Verdict", "findings", "Findings", "key", "Key changes",
					  "charts", "Charts", "captures", "Captures", "all",
					  "Appendix: all comparisons", "methodology", "Methodology", NULL};
	toc_html(out, toc);
	buf_adds(out, "<main class=\"wrap\">\n");
	{
		struct exec_summary es;
		summary_of_compare(c, &lt, &es);
		summary_html(out, &es, false, &lt);
		summary_free(&es);
	}

	struct doc rd;
	doc_of_compare(c, &lt, &rd);
	doc_compare_summary(c, &rd);
	/* the outcome and the headline first: what a manager reads in ten seconds */
	verdict_compare(c, &rd, res, out);

	/* findings before and after */
	findings_compare(&rd, out);

	/* key changes */
	key_changes(c, out);

	/* charts: the entities whose latency changed (or, without any, the busiest) */
	buf_adds(out, "<section id=\"charts\">\n<h2>Charts</h2>\n<p class=\"small muted\"><span class=\"key-before\"></span>before "
		      "(vermillion, dashed and thicker, open dots)<span class=\"key-after\"></span>after (dark blue, solid, filled dots). "
		      "Distribution: the share of samples at or below each latency (a curve further left is faster). Busy phase: "
		      "each side's busy period from its own start, line = mean, band = min to max. Time of day: both days on "
		      "one clock. Latency against load: one dot per plotted sample.</p>\n");
	size_t charted = 0;
	struct figs figs;
	figs_init(&figs, &cs, out);
	/* busiest first: the disks the workload lives on */
	size_t *order = xmalloc((c->npairs ? c->npairs : 1) * sizeof *order);
	for (size_t i = 0; i < c->npairs; i++)
		order[i] = i;
	for (size_t i = 1; i < c->npairs; i++)
		for (size_t k = i; k > 0 && pair_load(&c->pairs[order[k]]) > pair_load(&c->pairs[order[k - 1]]); k--) {
			size_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (int pass = 0; pass < 2 && !charted; pass++) {
		for (size_t oi = 0; oi < c->npairs && charted < CHARTSETS_MAX; oi++) {
			const struct cmp_pair *p = &c->pairs[order[oi]];
			if (!p->name[0] || !p->name[1] || !pair_shown(p))
				continue;
			const struct cmp_row *lead = NULL;
			for (size_t k = p->first_row; k < p->first_row + p->nrows && !lead; k++) {
				const struct cmp_row *r = &c->rows[k];
				if (r->spec->kind != CK_LATENCY)
					continue;
				if (pass == 1 ? r->verdict != CV_NOT_ASSESSED : row_material(r))
					lead = r;
			}
			if (!lead)
				continue;
			charted++;
			pair_chartset(c, p, lead, o, res, &lt, &figs, out);
		}
	}
	free(order);
	struct figlist fl = {.n = 0};
	figlist_take(&fl, &figs);
	figs_finish(&figs, out, o, res, &nt, d);
	if (!charted)
		buf_adds(out, "<p class=\"muted\">No entity with latency on both sides.</p>\n");
	buf_adds(out, "</section>\n");
	html_vhist_compare(c, &lt, &cs, o, res, &nt, d, out);
	charts_close(&cs);

	/* captures, then the appendix: every comparison */
	captures_compare(c, &lt, res, &nt, out);
	all_comparisons(c, o, out);
	if (o->extra_html)
		buf_adds(out, o->extra_html);
	doc_html(&rd, DS_INPUTS, out);
	doc_html(&rd, DS_METHOD, out);
	doc_free(&rd);
	appendix_html(out, NULL, &fl, o, COMPARE_SCHEMA_VERSION);
	buf_adds(out, "</main>\n");
	footer_html(out, o);
	buf_adds(out, "<script type=\"application/json\" id=\"iopsy-data\">");
	struct json j;
	json_init(&j, out, false);
	compare_json(c, &j);
	buf_adds(out, "</script>\n</body>\n</html>\n");
	buf_free(&nt.items);
	buf_free(&err);
	if (o->require_charts && res->charts_failed)
		return CHARTS_FAILED;
	return 0;
}

