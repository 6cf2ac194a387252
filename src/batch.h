/* batch.h — unattended runs over many capture sets: discovery (a folder of set folders, or a
 * manifest), set-name sanitising, parallel per-set work in child processes (a crash or a broken
 * file fails one set, never the run), per-set reports, and the results the index, the history and
 * the mail are made from. */
#ifndef IOPSY_BATCH_H
#define IOPSY_BATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input.h"
#include "util.h"

enum bfile_role { BF_CAPTURE, BF_VMKLOG, BF_PARTITIONS, BF_MAP, BF_IGNORED };
extern const char *const bfile_role_names[5];

struct bfile {
	char *path;
	enum bfile_role role;
	int side;                 /* 0 single set, 1 before, 2 after */
	char *note;               /* why ignored / unreadable (NULL when used) */
};

/* A figure kept per set for trends and history. */
struct bstat {
	char *layer, *entity, *host, *metric;
	double p50, p95, p99, max, mean;
	long long samples;
};

struct bfinding {
	char *kind, *severity, *layer, *entity, *host, *start, *end, *summary;
};

/* Week-over-week comparison of a set with its previous run (from the history). */
struct btrend {
	bool have_previous;
	char *previous_started;   /* when the previous run was made */
	char *previous_capture;   /* capture start of the previous run */
	struct bstat *prev_stats;
	size_t nprev_stats;
	struct bfinding *prev_f;
	size_t nprev_f;
};

enum bstatus { BS_PENDING, BS_OK, BS_PARTIAL, BS_FAILED };
extern const char *const bstatus_names[4];

struct bset {
	char *name;               /* as given (folder or manifest), shown escaped */
	char *dir;                /* sanitised path component, unique in the run */
	struct bfile *files;
	size_t nfiles;
	bool paired;              /* before/after: a comparison */
	char **mail_to;           /* per-set recipients (manifest) */
	size_t nmail;
	char *discovery_error;    /* e.g. a glob that matched nothing */
	/* results */
	enum bstatus status;
	char *error;
	char *verdict;
	int worst;                /* -1 none, else enum severity */
	long nfindings, warnings;
	char *capture_start, *capture_end;
	struct bfinding *f;
	size_t nf;
	struct bstat *stats;
	size_t nstats;
	struct btrend trend;
	double seconds;
};

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
};

struct batch {
	struct bset *sets;
	size_t nsets;
	char *input_kind;          /* "folder" | "manifest" */
};

/* Finds the sets of INPUT (folder or manifest). Returns 0 or ERR_* with a message in err. */
int batch_discover(struct batch *b, const char *input, struct buf *err);
/* Runs every set (up to jobs at a time, each in a child process), filling the results. */
void batch_run(struct batch *b, const struct batch_opts *o);
void batch_free(struct batch *b);

/* A path component from a set name: [A-Za-z0-9._-] kept, anything else '_', no leading '.',
 * at most 80 bytes, never empty, "." or "..". Caller frees. */
char *batch_sanitize(const char *name);

/* Trend helpers used by the reports. */
int trend_figure_change(const struct bset *s, const struct bstat *cur, double *prev_p95);
/* "new", "still present", "resolved" lists: returns how many of each into n[3]. */
void trend_finding_counts(const struct bset *s, long n[3]);
bool trend_finding_is_new(const struct bset *s, const struct bfinding *f);

#endif
