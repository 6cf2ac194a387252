/* batch_opts.h — the options of one `iopsy batch` run, as the CLI parsed them; read by the run
 * (batch.h), the runner, each set's worker and the mail delivery. Strings are borrowed from the
 * caller (argv) for the whole run. */
#ifndef IOPSY_BATCH_OPTS_H
#define IOPSY_BATCH_OPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "input.h"

/* Defaults (doc/batch.md, doc/limits.md). */
#define BATCH_MAIL_MAX_SIZE ((size_t)10 << 20)
#define BATCH_MAIL_TIMEOUT_S 120
#define BATCH_SET_TIMEOUT_S 1800
#define BATCH_SET_MEMORY_MB 256
#define BATCH_HISTORY_TIMEOUT_S 30

struct batch_opts {
	const char *input, *out;
	int jobs;
	const char *history;       /* NULL = OUT/history.sqlite */
	int history_timeout_s;     /* connect, statement and lock deadline (0 = BATCH_HISTORY_TIMEOUT_S) */
	struct common_opts co;     /* per-file options; co.sink: where every message goes */
	bool quiet;
	int fail_on;               /* -1 none, else the enum severity that makes exit 1 */
	/* mail */
	char **mail_to;
	size_t nmail;
	const char *mail_from, *subject, *smtp, *sendmail, *eml_dir;
	bool smtp_starttls;
	size_t mail_max_size;      /* a message's size budget in bytes (0 = BATCH_MAIL_MAX_SIZE) */
	const char *report_url;    /* --report-url BASE: reports past the budget are linked (NULL = none) */
	int mail_timeout_s;        /* total deadline of the whole mail step (0 = BATCH_MAIL_TIMEOUT_S) */
	/* each set's worker */
	int set_timeout_s;         /* its total deadline (0 = BATCH_SET_TIMEOUT_S) */
	long set_memory_mb;        /* past this resident size it reads no more captures (0 = BATCH_SET_MEMORY_MB) */
	/* a run split over machines (shard.h, doc/batch.md "Sharded runs") */
	const char *run_id;        /* --run-id ID (NULL: a random id of this process's run) */
	unsigned shard_k, shard_n; /* --shard K/N (shard_n 0: not a shard) */
	bool finish;               /* --finish: the index, history and mail of the shards' results */
	bool pdf;                  /* --pdf: report.pdf per set (headless Chromium, ~1-2 s of CPU per set) */
	const char *paper;         /* --paper: "a4" (NULL) or "letter" */
	/* a one-line status of the running sets (NULL line: clear it); NULL = none */
	void (*status)(void *ctx, const char *line);
	void *status_ctx;
};

#endif
