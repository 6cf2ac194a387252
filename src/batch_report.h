/* batch_report.h — the work of one batch set, run in its child process: read the set's files,
 * analyse (or compare a before/after pair), write report.json, report.txt and report.html with the
 * week-over-week trend, and hand the results back through the result file. */
#ifndef IOPSY_BATCH_REPORT_H
#define IOPSY_BATCH_REPORT_H

#include "analysis.h"
#include "batch.h"

typedef void (*batch_result_fn)(const char *setdir, const struct bset *s, const struct analysis *a,
				const char *error, enum bstatus status);

/* Runs set s into setdir. Returns the child's exit code (0 ok, 1 failed/partial). */
int batch_report_set(struct bset *s, const char *setdir, const struct batch_opts *o, batch_result_fn done);
/* Appends the per-entity key figures of analysis a as "stat" TSV lines (see batch.c). */
void batch_stats_tsv(const struct analysis *a, struct buf *b);
/* Key figures tracked week over week: (layer, metric) pairs. */
struct key_metric {
	enum layer layer;
	enum metric metric;
};
extern const struct key_metric key_metrics[];
extern const size_t nkey_metrics;

/* One key figure of the current analysis next to the previous run's (p95). */
struct trend_row {
	const struct entity *e;
	enum metric m;
	double now, before, change_pct;
	bool unchanged, have_before;
};
/* The key figures of the active entities of a with their previous values (caller frees *out). */
size_t batch_trend_rows(const struct analysis *a, const struct bset *s, struct trend_row **out);

#endif
