/* html.h — the self-contained HTML report of an analysis (inline CSS and SVG, no external
 * fetches, no JavaScript needed, a print stylesheet) with its JSON embedded in
 * <script type="application/json" id="iopsy-data">. Charts come from gnuplot (charts.h). */
#ifndef IOPSY_HTML_H
#define IOPSY_HTML_H

#include <stdbool.h>

#include "analysis.h"
#include "brand.h"
#include "charts.h"
#include "fmt.h"

struct html_opts {
	const char *gnuplot;      /* gnuplot program (NULL: $IOPSY_GNUPLOT or PATH) */
	const char *gnuplot_dir;  /* --gnuplot-dir: keep data and scripts here */
	bool require_charts;      /* no gnuplot or a failed chart is an error */
	int timeout_s;            /* per chart (0 = 30 s) */
	int max_charts;           /* 0 = 40; findings beyond it get no chart */
	const char *extra_html;   /* trusted HTML the caller built (and escaped), e.g. a batch trend
	                           * section; inserted before the captures section. NULL = none */
	struct buf *top_png;      /* not NULL: an analysis report also draws its top finding's chart as
	                           * a PNG into *top_png (as report_finding_png does, for mail), by the
	                           * same gnuplot process as its SVG charts; html_result.top_png says
	                           * how it went and *top_png_why (not NULL then) why it failed */
	struct buf *top_png_why;
	const struct report_brand *brand; /* title, customer, prepared by, logo; NULL = none */
	const char *paper;        /* the print layout's page: "A4" (NULL) or "letter" */
	bool print;               /* the page is printed (the PDF): it says nothing of what only the HTML
	                           * file carries (the embedded JSON) */
	const char *attached;     /* print: the name of the JSON file the PDF carries as an attachment
	                           * (pdf_attach), which the edition names; NULL: none, nor a word of it */
};

struct html_result {
	int charts;               /* charts drawn */
	int charts_failed;
	bool no_gnuplot;
	int top_png;              /* with html_opts.top_png: 0 drawn, 1 no finding, else as
	                           * report_finding_png returns */
};

/* Renders the report of analysis a into out. Messages worth showing the user (chart failures,
 * a missing gnuplot) go through d (errors with require_charts, else warnings). Returns 0; CHARTS_NO_GNUPLOT or
 * CHARTS_FAILED when o->require_charts and charts could not be drawn (out is then incomplete);
 * ERR_IO when the chart folder cannot be written. */
int report_html_analysis(const struct analysis *a, const struct html_opts *o, struct buf *out, struct html_result *res,
			 struct diag *d);

struct compare;
/* Renders the before/after report of a comparison (compare.h): verdict, findings gone / new,
 * latency distributions (CDF), time-of-day overlays, latency vs IOPS scatter of both sides and the
 * comparison table, with both sides' data embedded as JSON. Same returns as above. */
int report_html_compare(const struct compare *c, const struct html_opts *o, struct buf *out, struct html_result *res,
			struct diag *d);

/* The chart of finding f (the counters that prove it, threshold and window) as a PNG, for mail
 * bodies where inline SVG is not shown. Returns 0, CHARTS_NO_GNUPLOT, CHARTS_FAILED or ERR_IO. */
int report_finding_png(const struct analysis *a, const struct finding *f, const struct html_opts *o, struct buf *png,
		       struct diag *d);


/* Whether name is a page size of the print layout: "a4" or "letter", in any case. */
bool html_paper_known(const char *name);

#endif
