/* batch_report.h — the work of one batch set, run in its child process: read the set's files,
 * analyse (or compare a before/after pair), write report.json, report.txt and report.html with the
 * week-over-week trend, and hand the results back through the result file. */
#ifndef IOPSY_BATCH_REPORT_H
#define IOPSY_BATCH_REPORT_H

#include "analysis.h"
#include "batchres.h"
#include "input.h"

struct batch_opts {
	const char *input, *out;
	int jobs;
	const char *history;       /* NULL = OUT/history.sqlite */
	struct common_opts co;
	bool quiet;
	/* mail */
	char **mail_to;
	size_t nmail;
	const char *mail_from, *subject, *smtp, *sendmail, *eml_dir;
	bool smtp_starttls;
	/* set by the caller for the child's reports */
	const char *started;       /* ISO time of this run */
	/* a one-line status of the running sets (NULL line: clear it); NULL = none */
	void (*status)(void *ctx, const char *line);
	void *status_ctx;
};

typedef void (*batch_result_fn)(const char *setdir, const struct bset *s, const struct analysis *a,
				const char *error, enum bstatus status);

/* Runs set s into setdir. Returns the child's exit code (0 ok, 1 failed/partial). */
int batch_report_set(struct bset *s, const char *setdir, const struct batch_opts *o, batch_result_fn done);
/* Appends the per-entity key figures of analysis a as "stat" TSV lines (see batch.c). */
void batch_stats_tsv(const struct analysis *a, struct buf *b);
#endif
