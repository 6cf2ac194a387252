/* text.c — the text writer: the analysis (verdict first, findings worst first with evidence, rule,
 * source and advice), the comparison (verdict first, the table by entity, latency at equal load,
 * findings gone / new) and the capture inventory of `iopsy counters`. Names from captures pass
 * through fmt_esc (no terminal escapes reach a screen). */
#include "text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "fmt.h"
#include "ltime.h"
#include "summary.h"
#include "rules_out.h"
#include "version.h"

#define esc fmt_esc
#define share(b, v) fmt_share(b, v)
static void duration(struct buf *b, double s) { fmt_duration(b, s, true); }
static void text_num(struct buf *b, double v) { fmt_num(b, v, "-"); }
static void pct(struct buf *b, double v) { fmt_pct(b, v, "n/a"); }

/* ---- analysis ---- */

/* "Times are UTC; local time ..." and a blank line. */
static void times_line(const struct ltime *lt, struct buf *out)
{
	struct buf z;
	buf_init(&z);
	buf_adds(&z, "Times are UTC; ");
	ltime_describe(&z, lt);
	buf_adds(&z, ".");
	text_wrap(out, "", z.data, 100);
	buf_addc(out, '\n');
	buf_free(&z);
}

void analysis_text(const struct analysis *a, struct buf *out)
{
	const struct model *m = &a->m;
	int crit = 0, warn = 0, info = 0;
	for (size_t i = 0; i < a->nf; i++)
		a->f[i].sev == SEV_CRITICAL ? crit++ : a->f[i].sev == SEV_WARNING ? warn++ : info++;
	buf_printf(out, "iopsy analyze: %zu capture%s, %zu finding%s (%d critical, %d warning, %d info)\n\n", m->ncaps,
		   m->ncaps == 1 ? "" : "s", a->nf, a->nf == 1 ? "" : "s", crit, warn, info);
	struct ltime lt;
	ltime_init(&lt, m, NULL);
	times_line(&lt, out);
	struct doc d;
	doc_of_analysis(a, &lt, &d);
	doc_notices_text(&d, out);
	doc_text(&d, DS_SUMMARY, out);
	doc_text(&d, DS_ACTIONS, out);
	doc_text(&d, DS_VERDICT, out);
	doc_text(&d, DS_COVERAGE, out);
	doc_text(&d, DS_CAPTURES, out);
	doc_text(&d, DS_INPUTS, out);
	doc_text(&d, DS_RULES, out);
	doc_text(&d, DS_DISKMAP, out);
	doc_text(&d, DS_IOPATH, out);
	doc_text(&d, DS_FINDINGS, out);
	doc_text(&d, DS_SQL, out);
	doc_text(&d, DS_ENTITIES, out);
	doc_text(&d, DS_HIST, out);
	doc_text(&d, DS_METHOD, out);
	doc_free(&d);
}

/* ---- comparison ---- */

#define LABEL_W 40

/* "13:48" (UTC). */
static void hhmm(struct buf *b, int64_t t)
{
	int64_t m = (t / 60000) % 1440;
	if (m < 0)
		m += 1440;
	buf_printf(b, "%02d:%02d", (int)(m / 60), (int)(m % 60));
}

static void pad(struct buf *b, size_t from, size_t width)
{
	size_t used = b->len - from;
	do
		buf_addc(b, ' ');
	while (++used < width);
}

static void quad(struct buf *b, const struct cmp_stats *s)
{
	if (!s->samples) {
		buf_adds(b, "-");
		return;
	}
	text_num(b, s->p50);
	buf_addc(b, '/');
	text_num(b, s->p95);
	buf_addc(b, '/');
	text_num(b, s->p99);
	buf_addc(b, '/');
	text_num(b, s->max);
}

static const char *verdict_word(const struct cmp_row *r, enum cmp_verdict v)
{
	switch (v) {
	case CV_HIGHER: return r->spec->kind == CK_WORK ? "more work" : "higher";
	case CV_LOWER: return r->spec->kind == CK_WORK ? "less work" : "lower";
	case CV_NOT_ASSESSED: return "not assessed";
	case CV_NOT_COMPARABLE: return "not comparable";
	default: return cmp_verdict_names[v];
	}
}

/* A short reason for an unchanged or not-assessed verdict. */
static void reason_text(struct buf *b, enum cmp_reason r, const struct cmp_metric_spec *sp, double material_pct,
			bool share_fig)
{
	switch (r) {
	case CR_CI_HAS_ZERO: buf_adds(b, " (interval contains 0)"); break;
	case CR_BELOW_PCT: buf_printf(b, " (interval not beyond %g%%)", material_pct); break;
	case CR_BELOW_FLOOR:
		if (share_fig)
			buf_printf(b, " (interval not beyond %g point)", CMP_SHARE_FLOOR * 100);
		else
			buf_printf(b, " (interval not beyond %g %s)", sp->floor,
				   sp->kind == CK_QUEUE ? "ms per IO" : metric_info[sp->metric].unit);
		break;
	case CR_NO_BEFORE: buf_adds(b, " (no values before)"); break;
	case CR_NO_AFTER: buf_adds(b, " (no values after)"); break;
	case CR_FEW_VALUES: buf_adds(b, " (too few values)"); break;
	case CR_IDLE_BOTH: buf_adds(b, " (idle on both sides)"); break;
	case CR_IDLE_ONE: buf_adds(b, " (idle on one side: latency not judged)"); break;
	case CR_NO_INTERVAL: buf_adds(b, " (no interval)"); break;
	case CR_DEGENERATE: buf_adds(b, " (interval degenerates)"); break;
	case CR_FEW_TAIL: buf_adds(b, " (too few values for this quantile)"); break;
	case CR_NOT_COMPARABLE: buf_adds(b, " (the after side's busy phase does not reach the before side's load)"); break;
	case CR_WITH_LOAD: buf_adds(b, " (it moved with the load: unchanged at equal load)"); break;
	default: break;
	}
}

static bool pair_shown(const struct cmp_pair *p)
{
	if (p->layer == LAYER_VM)
		return p->vm_with_disks;
	return p->active[0] || p->active[1];
}

static void pair_head(const struct cmp_pair *p, const struct ltime *lt, struct buf *out)
{
	char l[512];
	buf_printf(out, "\n%s ", layer_names[p->layer]);
	esc(out, compare_pair_label(p, CMP_BEFORE, l, sizeof l));
	if (p->mapped || (p->name[0] && p->name[1] && strcmp(p->name[0], p->name[1]) != 0)) {
		buf_adds(out, " -> ");
		esc(out, compare_pair_label(p, CMP_AFTER, l, sizeof l));
		if (p->mapped)
			buf_adds(out, " (--match-map)");
	}
	if (p->by_name) {
		buf_adds(out, " (host ");
		esc(out, p->host[0]);
		buf_adds(out, " -> ");
		esc(out, p->host[1]);
		buf_addc(out, ')');
	}
	if (!isnan(p->load_mean[0]) || !isnan(p->load_mean[1])) {
		buf_adds(out, "  (mean ");
		text_num(out, p->load_mean[0]);
		buf_adds(out, " -> ");
		text_num(out, p->load_mean[1]);
		buf_adds(out, " IO/s)");
	}
	buf_addc(out, '\n');
	if (p->busy[0].has && p->busy[1].has && (p->busy[0].distinct || p->busy[1].distinct)) {
		buf_adds(out, "  busy phase");
		for (int s = 0; s < 2; s++) {
			const struct cmp_busy *b = &p->busy[s];
			buf_printf(out, "%s %s ", s ? ";" : "", cmp_side_names[s]);
			if (b->distinct && b->end > b->start) {
				hhmm(out, b->start);
				buf_adds(out, "-");
				hhmm(out, b->end);
				buf_adds(out, " UTC");
				if (lt && lt->known) {
					struct buf lb;
					buf_init(&lb);
					ltime_local(&lb, lt, b->start, false);
					buf_printf(out, " (local %.5s-", lb.data);
					buf_reset(&lb);
					ltime_local(&lb, lt, b->end, false);
					buf_printf(out, "%.5s)", lb.data);
					buf_free(&lb);
				}
				buf_adds(out, ", ");
			} else if (!b->distinct) {
				buf_adds(out, "none distinct (every active bucket), ");
			}
			share(out, b->share);
			buf_adds(out, " of the time, ");
			text_num(out, b->iops);
			buf_adds(out, " IO/s");
			if (!b->from_iops) {
				buf_adds(out, " with ");
				text_num(out, b->outstanding);
				buf_adds(out, " outstanding");
			}
		}
		buf_printf(out, "%s\n", p->comparable ? "" : "; NOT COMPARABLE");
	}
}

/* One figure: "p95 163 -> 8.0 (-95% .. -95%) improved". */
static void fig_item(const struct compare *c, const struct cmp_row *r, enum cmp_fig f, struct buf *out)
{
	const struct cmp_figure *g = &r->fig[f];
	bool sh = cmp_fig_is_share(f);
	if (sh) {
		int t = f == CF_OVER0 || f == CF_BUSY_OVER0 ? 0 : 1;
		buf_printf(out, "time %s %g %s ", r->spec->kind == CK_LATENCY ? ">" : ">=",
			   rule_value(&c->rules, (enum rule_id)r->spec->thr[t]), metric_info[r->spec->metric].unit);
		share(out, g->v[0]);
		buf_adds(out, " -> ");
		share(out, g->v[1]);
		if (g->v[0] == 0 && g->v[1] == 0)
			return; /* never above it on either side */
		if (!isnan(g->ci_diff[0])) {
			buf_adds(out, " (");
			buf_printf(out, "%+.1f .. %+.1f points", g->ci_diff[0] * 100, g->ci_diff[1] * 100);
			buf_addc(out, ')');
		}
	} else {
		static const char *const qn[CF_COUNT] = {"median", "p95", "p99", "", "", "median", "p95", "p99", "", ""};
		buf_printf(out, "%s ", qn[f]);
		text_num(out, g->v[0]);
		buf_adds(out, " -> ");
		text_num(out, g->v[1]);
		if (!isnan(g->ci[0])) {
			buf_adds(out, " (");
			pct(out, g->ci[0]);
			buf_adds(out, " .. ");
			pct(out, g->ci[1]);
			buf_addc(out, ')');
		} else if (!isnan(g->ci_diff[0])) {
			buf_adds(out, " (");
			text_num(out, g->ci_diff[0]);
			buf_adds(out, " .. ");
			text_num(out, g->ci_diff[1]);
			buf_addc(out, ')');
		}
	}
	if (g->verdict == CV_NOT_ASSESSED && g->reason == CR_FEW_TAIL) {
		buf_adds(out, " not judged (too few values)");
	} else if (g->verdict == CV_NOT_ASSESSED && g->reason == CR_DEGENERATE) {
		buf_adds(out, " not judged (interval degenerates)");
	} else {
		buf_printf(out, " %s", verdict_word(r, g->verdict));
		if (g->verdict == CV_UNCHANGED || g->verdict == CV_NOT_ASSESSED)
			reason_text(out, g->reason, r->spec, c->o.material_pct, sh);
	}
	if (!g->decides && g->used)
		buf_adds(out, " [does not decide]");
}

/* The figure lines of a row: the tail, the bands, the busy phase (not for occupancy rows, whose
 * median is the line above). */
static void figures_text(const struct compare *c, const struct cmp_row *r, struct buf *out)
{
	static const enum cmp_fig groups[3][5] = {{CF_P95, CF_P99, CF_COUNT},
						  {CF_OVER0, CF_OVER1, CF_COUNT},
						  {CF_BUSY_P50, CF_BUSY_P95, CF_BUSY_P99, CF_BUSY_OVER0, CF_BUSY_OVER1}};
	static const char *const head[3] = {"      tail: ", "      ", "      busy phase: "};
	for (int gi = 0; gi < 3; gi++) {
		int n = 0;
		for (int k = 0; k < 5 && groups[gi][k] != CF_COUNT; k++) {
			enum cmp_fig f = groups[gi][k];
			if (!r->fig[f].used || (gi == 2 && k > 2 && !r->fig[f].used))
				continue;
			buf_adds(out, n++ ? "; " : head[gi]);
			fig_item(c, r, f, out);
		}
		if (n)
			buf_addc(out, '\n');
	}
}

static void row_text(const struct compare *c, const struct cmp_row *r, struct buf *out)
{
	const struct metric_info *mi = &metric_info[r->spec->metric];
	size_t s0 = out->len;
	buf_printf(out, "  %s", mi->label);
	if (*mi->unit)
		buf_printf(out, " (%s)", mi->unit);
	pad(out, s0, LABEL_W);
	size_t s1 = out->len;
	quad(out, &r->s[0]);
	pad(out, s1, 24);
	size_t s2 = out->len;
	quad(out, &r->s[1]);
	pad(out, s2, 24);
	size_t s3 = out->len;
	if (isnan(r->change_pct) && !isnan(r->diff)) {
		buf_adds(out, r->diff >= 0 ? "+" : "");
		text_num(out, r->diff);
	} else {
		pct(out, r->change_pct);
	}
	pad(out, s3, 8);
	size_t s4 = out->len;
	if (!isnan(r->ci[0])) {
		pct(out, r->ci[0]);
		buf_adds(out, " .. ");
		pct(out, r->ci[1]);
	} else if (!isnan(r->ci_diff[0])) {
		text_num(out, r->ci_diff[0]);
		buf_adds(out, " .. ");
		text_num(out, r->ci_diff[1]);
	} else {
		buf_adds(out, "-");
	}
	pad(out, s4, 20);
	buf_adds(out, verdict_word(r, r->verdict));
	if (r->verdict == CV_UNCHANGED || r->verdict == CV_NOT_ASSESSED)
		reason_text(out, r->reason, r->spec, c->o.material_pct, false);
	if (r->verdict == CV_MIXED || (r->verdict == CV_IMPROVED && r->worse) || (r->verdict == CV_REGRESSED && r->better))
		buf_adds(out, " (see the figures)");
	if (r->decisive && r->verdict != CV_NOT_ASSESSED)
		buf_adds(out, " *");
	buf_addc(out, '\n');
	if (r->per_load)
		buf_adds(out, "      per unit of load (queue / IOPS, ms per IO: Little's law)\n");
	/* the raw shares above the thresholds when no figure judges them (queues, occupancy) */
	bool figs = r->fig[CF_OVER0].used || r->fig[CF_OVER1].used;
	bool any = false;
	for (int t = 0; t < CMP_MAX_THR && !figs; t++) {
		if (r->spec->thr[t] < 0)
			continue;
		buf_adds(out, any ? "; " : "      time ");
		any = true;
		buf_printf(out, "%s %g %s: ", r->spec->kind == CK_LATENCY ? ">" : ">=", rule_value(&c->rules, (enum rule_id)r->spec->thr[t]),
			   mi->unit);
		share(out, r->s[0].over[t]);
		buf_adds(out, " -> ");
		share(out, r->s[1].over[t]);
	}
	if (any)
		buf_addc(out, '\n');
	if (r->verdict != CV_NOT_ASSESSED || r->reason == CR_DEGENERATE || r->reason == CR_NO_INTERVAL)
		figures_text(c, r, out);
	if (r->has_lm && r->verdict != CV_NOT_ASSESSED) {
		const struct cmp_loadmatch *lm = &r->lm;
		if (lm->comparable) {
			buf_printf(out, "      at equal load (%d IOPS bin%s, ", lm->bins, lm->bins == 1 ? "" : "s");
			text_num(out, lm->load_lo);
			buf_adds(out, "-");
			text_num(out, lm->load_hi);
			buf_adds(out, lm->busy_only ? " IO/s in the busy phase): " : " IO/s): ");
			pct(out, lm->change_pct);
			buf_adds(out, " (");
			pct(out, lm->ci[0]);
			buf_adds(out, " .. ");
			pct(out, lm->ci[1]);
			buf_printf(out, ") %s", cmp_verdict_names[lm->verdict]);
			reason_text(out, lm->reason, r->spec, c->o.material_pct, false);
			buf_addc(out, '\n');
		} else {
			buf_printf(out, "      at equal load: not comparable (%s)\n", lm->note ? lm->note : "");
		}
	}
}

static const struct cmp_loadbins *bins_of(const struct compare *c, size_t row)
{
	for (size_t i = 0; i < c->nlb; i++)
		if (c->lb[i].row == row)
			return &c->lb[i];
	return NULL;
}

static void loadbins_text(const struct compare *c, struct buf *out)
{
	bool head = false;
	size_t omitted = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		const struct cmp_pair *p = &c->pairs[r->pair];
		const struct cmp_loadbins *lb = bins_of(c, i);
		if (!lb || r->verdict == CV_NOT_ASSESSED || !pair_shown(p))
			continue;
		/* the guest's latency, and any latency whose verdict changed; the rest is in the JSON */
		bool changed = r->verdict == CV_IMPROVED || r->verdict == CV_REGRESSED || r->lm.verdict == CV_IMPROVED ||
			       r->lm.verdict == CV_REGRESSED;
		if (p->layer != LAYER_GUEST && !changed) {
			omitted++;
			continue;
		}
		if (!head) {
			buf_printf(out, "\nLATENCY AT EQUAL LOAD (IOPS bins x%g wide; matched: >= %d values on both sides; active: "
					"IOPS >= %g)\n",
				   CMP_BIN_RATIO, CMP_BIN_MIN, rule_value(&c->rules, R_ACTIVE_IOPS));
			head = true;
		}
		char l[512];
		buf_printf(out, "  %s ", layer_names[p->layer]);
		esc(out, compare_pair_label(p, CMP_AFTER, l, sizeof l));
		buf_printf(out, " %s vs %s: IOPS p50 ", metric_info[r->spec->metric].label,
			   metric_info[r->spec->load].label);
		text_num(out, lb->load_p50[0]);
		buf_adds(out, " -> ");
		text_num(out, lb->load_p50[1]);
		buf_adds(out, ", p95 ");
		text_num(out, lb->load_p95[0]);
		buf_adds(out, " -> ");
		text_num(out, lb->load_p95[1]);
		buf_adds(out, " IO/s; ");
		const struct cmp_loadmatch *lm = &r->lm;
		if (lm->bins) {
			buf_printf(out, "%d matched bin%s hold ", lm->bins, lm->bins == 1 ? "" : "s");
			share(out, lm->coverage[0]);
			buf_adds(out, " / ");
			share(out, lm->coverage[1]);
			buf_adds(out, " of the active samples");
		} else {
			buf_adds(out, "no matched bin");
		}
		if (!lm->comparable)
			buf_adds(out, ": load differs too much to compare");
		buf_addc(out, '\n');
		for (size_t k = 0; k < lb->nbins; k++) {
			const struct cmp_bin *b = &lb->bins[k];
			if (!b->matched)
				continue;
			buf_adds(out, "    ");
			text_num(out, b->lo);
			buf_adds(out, "-");
			text_num(out, b->hi);
			buf_printf(out, " IO/s: n %zu / %zu, p50 ", b->n[0], b->n[1]);
			text_num(out, b->p50[0]);
			buf_adds(out, " -> ");
			text_num(out, b->p50[1]);
			buf_adds(out, ", p95 ");
			text_num(out, b->p95[0]);
			buf_adds(out, " -> ");
			text_num(out, b->p95[1]);
			buf_printf(out, " %s\n", metric_info[r->spec->metric].unit);
		}
		if (lb->has_slope) {
			buf_adds(out, "    vs outstanding IO: ");
			text_num(out, lb->slope[0]);
			buf_adds(out, " -> ");
			text_num(out, lb->slope[1]);
			buf_adds(out, " ms per outstanding IO (");
			pct(out, lb->slope_change_pct);
			buf_adds(out, ", ");
			pct(out, lb->slope_ci[0]);
			buf_adds(out, " .. ");
			pct(out, lb->slope_ci[1]);
			buf_adds(out, ")\n");
		}
	}
	if (omitted)
		buf_printf(out, "%s  (%zu host-side latency comparisons without a change not listed; see load_bins in --json)\n",
			   head ? "" : "\nLATENCY AT EQUAL LOAD\n", omitted);
}

/* The findings before and after (the document's, doc_compare_findings): gone, new, still present. */
static void findings_text(const struct doc *d, struct buf *out)
{
	buf_adds(out, "\nFINDINGS (before -> after)\n");
	const struct doc_block *t = doc_role(d, DS_FINDINGS, ROLE_FDIFF);
	if (!t || t->text) {
		buf_printf(out, "  %s\n", t ? t->text : "");
		return;
	}
	static const enum cmp_fstatus order[3] = {FD_GONE, FD_NEW, FD_STILL};
	for (int o = 0; o < 3; o++) {
		for (size_t k = 0; k < t->nrows; k++) {
			if ((int)doc_fdiff_v(t, k, FDC_STATUS_CODE) != (int)order[o])
				continue;
			size_t s0 = out->len;
			buf_printf(out, "  %s",
				   order[o] == FD_GONE ? "gone" : order[o] == FD_NEW ? "NEW" : "still present");
			pad(out, s0, 17);
			s0 = out->len;
			buf_adds(out, doc_fdiff_s(t, k, FDC_ID));
			pad(out, s0, 31);
			s0 = out->len;
			if (doc_fdiff_s(t, k, FDC_HOST)) {
				esc(out, doc_fdiff_s(t, k, FDC_HOST));
				buf_addc(out, ' ');
			}
			esc(out, doc_fdiff_s(t, k, FDC_ENTITY));
			pad(out, s0, 24);
			for (int s = 0; s < 2; s++) {
				int at = FDC_SIDE + 4 * s;
				buf_printf(out, "%s%s: ", s ? "; " : "", cmp_side_names[s]);
				if (!doc_fdiff_v(t, k, at + FDC_WINDOWS)) {
					buf_adds(out, "-");
					continue;
				}
				const char *w = doc_fdiff_s(t, k, at + FDC_WORST);
				buf_printf(out, "%.0f %s (", doc_fdiff_v(t, k, at + FDC_WINDOWS), w ? w : "");
				duration(out, doc_fdiff_v(t, k, at + FDC_SUSTAINED));
				buf_addc(out, ')');
			}
			buf_printf(out, "  [%s]\n", doc_fdiff_s(t, k, FDC_TITLE));
		}
	}
}

static void only_text(const struct compare *c, struct buf *out)
{
	for (int s = 0; s < 2; s++) {
		size_t n = 0, idle = 0;
		for (size_t i = 0; i < c->npairs; i++) {
			const struct cmp_pair *p = &c->pairs[i];
			if (!p->name[s] || p->name[!s])
				continue;
			if (!pair_shown(p)) {
				idle++;
				continue;
			}
			if (!n++)
				buf_printf(out, "\nONLY %s (not compared)\n", s ? "AFTER" : "BEFORE");
			char l[512];
			buf_printf(out, "  %-8s ", layer_names[p->layer]);
			esc(out, compare_pair_label(p, (enum cmp_side)s, l, sizeof l));
			if (p->host[s] && p->layer != LAYER_GUEST) {
				buf_adds(out, " (");
				esc(out, p->host[s]);
				buf_addc(out, ')');
			}
			if (!isnan(p->load_mean[s])) {
				buf_adds(out, "  mean ");
				text_num(out, p->load_mean[s]);
				buf_adds(out, " IO/s");
			}
			buf_addc(out, '\n');
		}
		if (idle)
			buf_printf(out, "%s  (%zu idle entit%s only %s not listed; see --json)\n",
				   n ? "" : s ? "\nONLY AFTER (not compared)\n" : "\nONLY BEFORE (not compared)\n", idle,
				   idle == 1 ? "y" : "ies", cmp_side_names[s]);
	}
}

void compare_text(const struct compare *c, struct buf *out)
{
	const struct cmp_summary *s = &c->sum;
	if (s->reversed)
		buf_printf(out, "SIDES REVERSED: %s; the outcome reads them as given.\n", s->reversed_text);
	buf_printf(out, "iopsy compare: %zu capture%s before, %zu after; %zu comparisons (%d improved, %d regressed, %d mixed, "
			"%d unchanged, %d not comparable, %d more, %d less, %d not assessed)\n\n",
		   c->side[0].m.ncaps, c->side[0].m.ncaps == 1 ? "" : "s", c->side[1].m.ncaps, c->nrows,
		   s->verdicts[CV_IMPROVED], s->verdicts[CV_REGRESSED], s->verdicts[CV_MIXED], s->verdicts[CV_UNCHANGED],
		   s->verdicts[CV_NOT_COMPARABLE], s->verdicts[CV_HIGHER], s->verdicts[CV_LOWER], s->verdicts[CV_NOT_ASSESSED]);
	struct ltime lt;
	ltime_init(&lt, &c->side[1].m, &c->side[0].m);
	times_line(&lt, out);
	struct doc d;
	doc_of_compare(c, &lt, &d);
	doc_compare_summary(c, &d);
	doc_text(&d, DS_SUMMARY, out);
	doc_text(&d, DS_ACTIONS, out);
	buf_adds(out, "\nOUTCOME\n");
	text_wrap(out, "  ", c->headline ? c->headline : "", 100);
	doc_text(&d, DS_VERDICT, out);
	if (c->nsql) {
		buf_adds(out, "\nSQL SERVER (before -> after, means over each side)\n");
		for (size_t i = 0; i < c->nsql; i++) {
			text_wrap(out, "  ", c->sql[i].text, 100);
			if (c->sql[i].comment)
				text_wrap(out, "  ", c->sql[i].comment, 100);
		}
	}
	doc_text(&d, DS_CAPTURES, out);
	doc_notices_text(&d, out);
	doc_text(&d, DS_RULES, out);
	buf_printf(out, "\nCOMPARISONS (per figure after - before with its %.0f%% block bootstrap interval, %u resamples, seed "
			"%llu; a row is improved\n  when a deciding figure - the tail (p95, p99), the time above a band, the busy "
			"phase - improved with a whole\n  interval beyond %g%% and the metric's floor (shares: %g point and %g%% of "
			"the larger share) that does not\n  degenerate, and none regressed; regressed the other way, mixed when both. "
			"The median is the typical IO:\n  its change is the column below, it does not decide (except for occupancy, "
			"and captures too short for\n  the tail). * = a decisive row: the latency at the top of its IO stack, which "
			"the outcome reads)\n",
		   c->o.confidence * 100, c->o.resamples, (unsigned long long)c->o.seed, c->o.material_pct, CMP_SHARE_FLOOR * 100,
		   c->o.material_pct);
	size_t s0 = out->len;
	buf_adds(out, "  metric");
	pad(out, s0, LABEL_W);
	s0 = out->len;
	buf_adds(out, "before p50/p95/p99/max");
	pad(out, s0, 24);
	s0 = out->len;
	buf_adds(out, "after p50/p95/p99/max");
	pad(out, s0, 24);
	s0 = out->len;
	buf_adds(out, "median");
	pad(out, s0, 8);
	s0 = out->len;
	buf_printf(out, "%.0f%% interval", c->o.confidence * 100);
	pad(out, s0, 20);
	buf_adds(out, "outcome\n");
	size_t hidden = 0, zero = 0;
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if (!p->name[0] || !p->name[1] || !p->nrows)
			continue;
		if (!pair_shown(p)) {
			hidden++;
			continue;
		}
		pair_head(p, &lt, out);
		for (size_t r = p->first_row; r < p->first_row + p->nrows; r++) {
			const struct cmp_row *row = &c->rows[r];
			if (row->s[0].max == 0 && row->s[1].max == 0) {
				zero++;
				continue;
			}
			row_text(c, row, out);
		}
	}
	if (hidden || zero)
		buf_printf(out, "\n  (not shown, see --json: %zu idle entities and VMs without virtual disks, %zu metrics "
				"that are 0 throughout on both sides)\n",
			   hidden, zero);
	loadbins_text(c, out);
	findings_text(&d, out);
	only_text(c, out);
	doc_text(&d, DS_HIST, out);
	doc_text(&d, DS_INPUTS, out);
	doc_text(&d, DS_METHOD, out);
	doc_free(&d);
}


/* ---- inventory ---- */

#define TEXT_MAX_INSTANCES 12

static void span_text(struct buf *b, int64_t ms)
{
	long s = (long)(ms / 1000);
	if (s >= 86400)
		buf_printf(b, "%ldd ", s / 86400);
	if (s >= 3600)
		buf_printf(b, "%ldh ", s / 3600 % 24);
	if (s >= 60)
		buf_printf(b, "%ldm ", s / 60 % 60);
	buf_printf(b, "%lds", s % 60);
}

static void fmt_secs(struct buf *b, double s)
{
	char t[48];
	snprintf(t, sizeof t, "%.3f", s);
	size_t n = strlen(t);
	while (n && t[n - 1] == '0')
		t[--n] = '\0';
	if (n && t[n - 1] == '.')
		t[--n] = '\0';
	buf_printf(b, "%s s", t);
}

static bool same_counters(const struct inv_instance *a, const struct inv_instance *b)
{
	if (a->ncounters != b->ncounters)
		return false;
	for (size_t i = 0; i < a->ncounters; i++)
		if (strcmp(a->counters[i], b->counters[i]) != 0)
			return false;
	return true;
}

void inventory_text(const struct inventory *inv, struct buf *out)
{
	buf_adds(out, "file       ");
	esc(out, inv->path);
	buf_printf(out, "\nformat     %s%s%s%s\n", inv->format, inv->tsv ? " (TSV)" : "", inv->gzip ? " (gzip)" : "",
		   inv->excel ? " (re-saved by a spreadsheet)" : "");
	buf_adds(out, "host       ");
	esc(out, inv->host ? inv->host : "(none)");
	for (size_t i = 0; i < inv->nhosts; i++) {
		if (inv->hosts[i] == inv->host || strcmp(inv->hosts[i], inv->host) == 0)
			continue;
		buf_adds(out, i ? ", " : " (also ");
		esc(out, inv->hosts[i]);
	}
	buf_adds(out, inv->nhosts > 1 ? ")\n" : "\n");
	buf_printf(out, "time zone  %s%s%s (UTC = local %+d min)\n", inv->zone[0] ? "" : "",
		   inv->zone[0] ? inv->zone : "unknown", inv->bias_known ? "" : ", no bias in header",
		   inv->bias_min);
	if (inv->rows > 0) {
		char a[32], b[32];
		time_format_iso(inv->start, true, a);
		time_format_iso(inv->end, true, b);
		buf_printf(out, "time span  %s .. %s (", a, b);
		span_text(out, inv->end - inv->start);
		buf_adds(out, ")\ninterval   ");
		fmt_secs(out, inv->interval_median_s);
		buf_printf(out, " median, jitter %.3g s (", inv->interval_jitter_s);
		for (size_t i = 0; i < inv->ntop; i++) {
			if (i)
				buf_adds(out, ", ");
			fmt_secs(out, (double)inv->top[i].ms / 1000.0);
			buf_printf(out, " x%ld", inv->top[i].count);
		}
		buf_adds(out, ")\n");
	} else {
		buf_adds(out, "time span  (no data rows)\n");
	}
	buf_printf(out, "rows       %ld", inv->rows);
	if (inv->skipped_rows)
		buf_printf(out, " (%ld skipped)", inv->skipped_rows);
	if (inv->windowed)
		buf_printf(out, ", %ld outside the window (--from/--to)", inv->outside);
	if (inv->backwards)
		buf_printf(out, " (time goes backwards %ld time%s)", inv->backwards, inv->backwards == 1 ? "" : "s");
	buf_printf(out, "\ncolumns    %zu", inv->columns);
	if (inv->matched != inv->columns)
		buf_printf(out, " (%zu matched)", inv->matched);
	buf_printf(out, "\nobjects    %zu\n", inv->nobjs);
	for (size_t i = 0; i < inv->nobjs; i++) {
		const struct inv_object *o = &inv->objs[i];
		buf_addc(out, '\n');
		esc(out, o->name[0] ? o->name : "(columns that are not counter paths)");
		buf_printf(out, ": %zu instance%s, %zu counter%s, %zu column%s\n", o->ninst, o->ninst == 1 ? "" : "s",
			   o->ncounters, o->ncounters == 1 ? "" : "s", o->ncols, o->ncols == 1 ? "" : "s");
		/* instances with identical counter sets are listed together */
		bool *done = xcalloc(o->ninst, sizeof *done);
		for (size_t k = 0; k < o->ninst; k++) {
			if (done[k])
				continue;
			size_t group = 0;
			buf_adds(out, "  ");
			for (size_t q = k; q < o->ninst; q++) {
				if (done[q] || !same_counters(&o->inst[k], &o->inst[q]))
					continue;
				done[q] = true;
				if (group < TEXT_MAX_INSTANCES) {
					if (group)
						buf_adds(out, ", ");
					esc(out, o->inst[q].name ? o->inst[q].name : "(no instance)");
				}
				group++;
			}
			if (group > TEXT_MAX_INSTANCES)
				buf_printf(out, " and %zu more", group - TEXT_MAX_INSTANCES);
			buf_printf(out, " [%zu instance%s x %zu counter%s]\n", group, group == 1 ? "" : "s",
				   o->inst[k].ncounters, o->inst[k].ncounters == 1 ? "" : "s");
			buf_adds(out, "    ");
			for (size_t c = 0; c < o->inst[k].ncounters; c++) {
				if (c)
					buf_adds(out, " | ");
				esc(out, o->inst[k].counters[c]);
			}
			buf_addc(out, '\n');
		}
		free(done);
	}
}
