/* html_vhist.h — virtual disk histograms (vscsiStats) in the HTML and PDF reports: the document's
 * DS_HIST section with a bar chart for each histogram table (html_vhist.c). */
#ifndef IOPSY_HTML_VHIST_H
#define IOPSY_HTML_VHIST_H

#include "charts.h"
#include "html_int.h"

/* The bars of a histogram table (ROLE_HIST): its share column(s) over its buckets, before and after
 * side by side for a table of both sides; false (c left empty, chart_free it) when none. */
bool vhist_chart_of(const struct doc_block *t, struct chart *c);
/* DS_HIST of d with its charts (one gnuplot run, the figures spliced in), the tables without
 * gnuplot. Nothing when the section is off. */
void html_vhist_section(const struct doc *d, struct charts *cs, const struct html_opts *o, struct html_result *res,
			struct notes *nt, struct diag *dg, struct buf *out);
/* The same of an analysis's or a comparison's histograms. */
void html_vhist_analysis(const struct analysis *a, const struct ltime *lt, struct charts *cs,
			 const struct html_opts *o, struct html_result *res, struct notes *nt, struct diag *dg,
			 struct buf *out);
void html_vhist_compare(const struct compare *c, const struct ltime *lt, struct charts *cs,
			const struct html_opts *o, struct html_result *res, struct notes *nt, struct diag *dg,
			struct buf *out);

#endif
