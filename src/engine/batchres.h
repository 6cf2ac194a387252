/* batchres.h — the neutral data of a batch run: the capture sets found (files and their roles),
 * each set's results (status, verdict, findings, key figures) and its week-over-week trend against
 * the previous run. src/batch fills it, reports/ renders it, the history stores it. */
#ifndef IOPSY_BATCHRES_H
#define IOPSY_BATCHRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
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

struct batch {
	struct bset *sets;
	size_t nsets;
	char *input_kind;          /* "folder" | "manifest" */
};
/* A batch run as its index and summary describe it (strings borrowed). */
struct run_info {
	const char *started, *input, *input_kind, *history, *out;
	double seconds;
};

/* Frees every set and its results (the batch itself is the caller's). */
void batch_free(struct batch *b);

/* Trend helpers used by the reports. */
int trend_figure_change(const struct bset *s, const struct bstat *cur, double *prev_p95);
/* "new", "still present", "resolved" lists: returns how many of each into n[3]. */
void trend_finding_counts(const struct bset *s, long n[3]);
bool trend_finding_is_new(const struct bset *s, const struct bfinding *f);

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
