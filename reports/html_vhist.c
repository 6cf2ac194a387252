/* html_vhist.c — the document's virtual disk histograms (DS_HIST) in the HTML and PDF: each
 * histogram table drawn as a bar chart by gnuplot (one side, or before and after side by side),
 * the table when no chart can be drawn. Only numbers and the bucket labels made from them reach
 * gnuplot; the disk's name stays in the figure's caption, escaped. */
#include "html_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charts.h"
#include "html_vhist.h"

/* The bars of histogram table t (ROLE_HIST); false when it has no bucket. */
bool vhist_chart_of(const struct doc_block *t, struct chart *c)
{
	chart_init(c);
	if (t->role != ROLE_HIST || !t->nrows || (t->ncols != 3 && t->ncols != 5))
		return false;
	size_t n = t->nrows < CHART_MAX_CATS ? t->nrows : CHART_MAX_CATS;
	bool two = t->ncols == 5;
	struct chart_point *p = xmalloc(n * sizeof *p);
	double top = 0;
	for (int s = 0; s < (two ? 2 : 1); s++) {
		int col = s ? HC_SHARE2 : HC_SHARE;
		for (size_t k = 0; k < n; k++) {
			double v = t->cell[k * (size_t)t->ncols + (size_t)col].v;
			p[k] = (struct chart_point){
			    .t = (double)k + (two ? (s ? 0.2 : -0.2) : 0), .mean = v, .min = v, .max = v};
			top = v > top ? v : top;
		}
		chart_add_series(c, two ? (s ? "after" : "before") : "share of IOs", 0, CS_BARS,
				 two ? (s ? CHART_AFTER : CHART_BEFORE) : 0, p, n);
	}
	free(p);
	for (size_t k = 0; k < n; k++)
		snprintf(c->cat[k], sizeof c->cat[k], "%s", t->cell[k * (size_t)t->ncols + HC_BUCKET].s);
	c->ncats = (int)n;
	c->boxwidth = two ? 0.38 : 0.7;
	c->xnumeric = true;
	c->t0 = -0.6;
	c->t1 = (double)n - 0.4;
	snprintf(c->xlabel, sizeof c->xlabel, "bucket (up to its limit, <=)");
	snprintf(c->panel[0].ylabel, sizeof c->panel[0].ylabel, "%% of IOs");
	c->panel_height = 200;
	if (top > 60)
		c->panel[0].ymax = 100; /* a share: never a scale past 100 % */
	return c->ns > 0;
}

/* Histograms drawn per report: the busiest disks' (the document lists them busiest first); the
 * rest are tables folded under their caption, so the PDF stays short. */
#define VHIST_MAX_CHARTS 6

struct hist_ctx {
	struct figs *fs;
	bool draw;
	int drawn;
};

static int hist_fig(void *ctx, const struct doc_block *t, struct buf *out)
{
	struct hist_ctx *h = ctx;
	if (!h->draw)
		return -1;
	if (h->drawn >= VHIST_MAX_CHARTS)
		return 1;
	struct chart c;
	if (!vhist_chart_of(t, &c)) {
		chart_free(&c);
		return -1;
	}
	h->drawn++;
	struct buf cap;
	buf_init(&cap);
	esc(&cap, t->text ? t->text : "histogram");
	buf_adds(&cap, t->ncols == 5 ? ": the share of each side's IOs in each bucket (before vermillion, after dark "
				       "blue)"
				     : ": the share of the IOs in each bucket");
	figs_add(h->fs, &c, out, 0, cap.data);
	buf_free(&cap);
	chart_free(&c);
	return 0;
}

void html_vhist_section(const struct doc *d, struct charts *cs, const struct html_opts *o, struct html_result *res,
			struct notes *nt, struct diag *dg, struct buf *out)
{
	if (!d->sec[DS_HIST].on)
		return;
	struct figs fs;
	figs_init(&fs, cs, out);
	struct hist_ctx h = {&fs, !(res->no_gnuplot && !o->gnuplot_dir), 0};
	doc_html_charted(d, DS_HIST, out, hist_fig, &h);
	figs_finish(&fs, out, o, res, nt, dg);
}

void html_vhist_analysis(const struct analysis *a, const struct ltime *lt, struct charts *cs, const struct html_opts *o,
			 struct html_result *res, struct notes *nt, struct diag *dg, struct buf *out)
{
	struct doc d;
	doc_of_analysis_only(a, lt, &d, 1u << DS_HIST);
	html_vhist_section(&d, cs, o, res, nt, dg, out);
	doc_free(&d);
}

void html_vhist_compare(const struct compare *c, const struct ltime *lt, struct charts *cs, const struct html_opts *o,
			struct html_result *res, struct notes *nt, struct diag *dg, struct buf *out)
{
	struct doc d;
	doc_init(&d, lt);
	doc_vhist_compare(c, &d);
	html_vhist_section(&d, cs, o, res, nt, dg, out);
	doc_free(&d);
}
