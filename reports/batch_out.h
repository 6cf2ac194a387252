/* batch_out.h — the batch run's index.html and summary.json, the trend section of each set's
 * report, and the mail bodies (HTML with cid: images, plain text). */
#ifndef IOPSY_BATCH_OUT_H
#define IOPSY_BATCH_OUT_H

#include "analysis.h"
#include "batchres.h"
#include "json.h"

/* Sets sorted worst first (failed, critical, warning, info, clean); returns the order (caller frees). */
size_t *batch_order(const struct batch *b);
void batch_index_html(const struct batch *b, const struct run_info *ri, struct buf *out);
void batch_summary_json(const struct batch *b, const struct run_info *ri, struct json *j);
/* The trend section (trusted HTML) for a set's report. */
void batch_trend_html(const struct analysis *a, const struct bset *s, struct buf *out);

/* Mail bodies. The HTML references images as cid:<cids[i]> for the sets that have a chart. */
void batch_mail_html(const struct batch *b, const struct run_info *ri, const size_t *sets, size_t nsets,
		     char *const *cids, struct buf *out);
void batch_mail_text(const struct batch *b, const struct run_info *ri, const size_t *sets, size_t nsets,
		     struct buf *out);

#endif
