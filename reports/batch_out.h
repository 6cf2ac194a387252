/* batch_out.h — what a batch run shows: index.html and summary.json over all sets, the trend
 * section of each set's reports (text, JSON, HTML), and the mail bodies (HTML with cid: images,
 * plain text). Each set's result is read one at a time (batch_result), so rendering holds one
 * set's result, not all of them. */
#ifndef IOPSY_BATCH_OUT_H
#define IOPSY_BATCH_OUT_H

#include <stdio.h>

#include "analysis.h"
#include "batchres.h"
#include "json.h"

/* Sets sorted worst first (failed, critical, partial, warning, info, clean); returns the order
 * (caller frees). */
size_t *batch_order(const struct batch *b);
/* Each appends to out (caller-owned). */
void batch_index_html(const struct batch *b, const struct run_info *ri, struct buf *out);
void batch_summary_json(const struct batch *b, const struct run_info *ri, struct json *j);
/* The same written to fp a few hundred KB at a time (the whole index of sets of a million files
 * each is never in memory); summary.json ends with a line end. 0, or ERR_IO when a write failed
 * (the caller discards the file). */
int batch_index_html_file(const struct batch *b, const struct run_info *ri, FILE *fp);
int batch_summary_json_file(const struct batch *b, const struct run_info *ri, FILE *fp);

/* The trend section of a set's report from its result's trend (r->trend, trend_compute): text
 * (report.txt), a "trend" key (report.json) and trusted HTML (report.html). */
void batch_trend_text(const struct bresult *r, struct buf *out);
void batch_trend_json(const struct bresult *r, struct json *j);
void batch_trend_html(const struct bresult *r, struct buf *out);

/* What a message carries of one of its sets. */
enum mail_report {
	MR_ATTACHED,          /* report.html attached (or the set has none) */
	MR_LINKED,            /* past the size budget: linked at where (BASE/<set>/report.html) */
	MR_LEFT_OUT,          /* past the size budget, no --report-url: where is its path */
};
struct mail_part {
	const char *cid;      /* the chart image's Content-ID, NULL = no image */
	enum mail_report report;
	const char *where;    /* URL or path of the report when not attached (borrowed) */
	bool chart_left_out;  /* the set has a chart that did not fit */
};
/* Mail bodies for the sets listed in sets, parts[i] saying what the message carries of each (NULL:
 * every report attached, no images). limit: the size budget, for the line that says why a report
 * is not attached. Both append to out (caller-owned). */
void batch_mail_html(const struct batch *b, const struct run_info *ri, const size_t *sets, size_t nsets,
		     const struct mail_part *parts, size_t limit, struct buf *out);
void batch_mail_text(const struct batch *b, const struct run_info *ri, const size_t *sets, size_t nsets,
		     const struct mail_part *parts, size_t limit, struct buf *out);

#endif
