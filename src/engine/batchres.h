/* batchres.h — the neutral data of a batch run: the capture sets found (files and their roles),
 * each set's typed result (status, verdict, findings with their kind, severity and layer as ids,
 * key figures) and its week-over-week trend, computed by one function (trend_compute) that the
 * index, the reports, the mail and the history all read. src/batch fills it, reports/ renders it,
 * the history stores it. Nothing here does I/O but reading a set's list back from the run's list
 * store (bset_files). */
#ifndef IOPSY_BATCHRES_H
#define IOPSY_BATCHRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "anopts.h"
#include "util.h"

enum bfile_role { BF_CAPTURE, BF_VMKLOG, BF_PARTITIONS, BF_MAP, BF_IGNORED };
extern const char *const bfile_role_names[5];
/* The role of a set's file that an analysis option row names (AN_IN_MAP: BF_MAP, ...);
 * BF_IGNORED for a row that names no side file. */
enum bfile_role bfile_role_of(enum an_input in);

struct bfile {
	char *path;
	enum bfile_role role;
	int side;                 /* 0 single set, 1 before, 2 after */
	char *note;               /* why ignored / unreadable (NULL when used) */
};

/* A key figure of a set (p50/p95/... of one metric of one active entity). */
struct bstat {
	enum layer layer;
	enum metric metric;
	char *entity;
	char *host;               /* NULL when the capture named none */
	double p50, p95, p99, max, mean;
	long long samples;
};

/* A finding of a set, as the index, the summary, the mail and the history keep it. */
struct bfinding {
	enum kind kind;
	enum severity sev;
	enum layer layer;
	char *entity;
	char *host;               /* NULL when none */
	int64_t start, end;       /* UTC ms */
	char *summary;
};

/* The previous run of a set, as the history gives it (history_previous). */
struct bprev {
	bool have;
	bool unavailable;         /* the history could not be read: no trend, and not a first run */
	char *started;            /* when that run was made */
	char *capture;            /* its capture start ("" when unknown) */
	char *status, *worst, *outcome, *verdict; /* as recorded (NULL when none): its state and where
	                                             * IO waited */
	struct bfinding *f;
	size_t nf;
	struct bstat *st;
	size_t nst;
};

/* Where a finding of this run stands against the previous run. */
enum trend_state { TS_FIRST_RUN, TS_NEW, TS_STILL };
/* A key figure's p95 against the previous run's. */
enum figure_trend { FT_NEW, FT_UNCHANGED, FT_DOWN, FT_UP };
extern const char *const figure_trend_names[4];

struct btrend_figure {
	size_t stat;              /* index in the result's key figures */
	double now, before;       /* p95; before NaN when !have_before */
	double change_pct;        /* NaN when unknown */
	bool have_before;
	enum figure_trend trend;
};

/* A set's trend since its previous run (trend_compute). */
struct btrend {
	bool have_previous;
	bool unavailable;                  /* the history could not be read (no previous run known:
	                                    * the reports say the trend is unavailable, never "first run") */
	char *previous_started, *previous_capture;
	long n_new, n_still, n_resolved;   /* distinct (kind, entity, host); without a previous run
	                                    * n_new is the number of findings (0 when unavailable) */
	unsigned char *state;              /* per finding of the result: enum trend_state */
	struct bfinding *resolved;         /* distinct previous findings not found now (kind, layer,
	                                    * entity, host, sev; times and summary as last run) */
	size_t nresolved;
	struct btrend_figure *fig;         /* one per key figure, in the result's order */
	size_t nfig;
	size_t nunchanged;                 /* figures within 5% of last run */
	char *prev_state, *now_state;      /* the set's state (failed, an outcome, critical, warning,
	                                    * partial, ok) last run and now, when it changed; else NULL */
	char *prev_where, *now_where;      /* where IO waits (the verdict's opening: "IO waits in the
	                                    * array"), when it changed; else NULL */
};

enum bstatus { BS_PENDING, BS_OK, BS_PARTIAL, BS_FAILED };
extern const char *const bstatus_names[4];

/* A note on one of the set's files from its worker (e.g. a capture left out past the set's
 * memory budget). */
struct bnote {
	size_t file;              /* index in the set's files */
	char *note;
};

/* The result of one set, as its worker hands it to the parent (src/batch/result.h). */
struct bresult {
	enum bstatus status;
	bool system_error;        /* failed because an output could not be written (exit 4) */
	char *error;              /* NULL when none */
	char *verdict;            /* NULL when the set was not analysed */
	int outcome;              /* a comparison's enum cmp_outcome (compare.h), -1 for an analysis
	                           * or a set not compared */
	char *headline;           /* a comparison's headline (the outcome and the figures that prove
	                           * it), NULL otherwise */
	char *not_assessed;       /* the layers the captures could not show ("world, device: no host
	                           * capture (esxtop)"), NULL when every layer was assessed */
	long warnings;
	bool have_span;
	int64_t span_start, span_end;   /* UTC ms, clock offsets applied */
	struct bnote *notes;
	size_t nnotes;
	struct bfinding *f;       /* worst first, as the analysis ordered them */
	size_t nf;
	struct bstat *st;
	size_t nst;
	struct btrend trend;
	uint64_t input_digest;    /* what the worker read (batch_set_digest): a finish step counts the
	                           * record only when its own input gives the same */
};

/* A set's own analysis options (manifest keys, doc/batch.md): what differs per customer. Strings
 * owned; NULL / false when not given (the run's defaults). */
struct bset_opts {
	char *rules;              /* rules file (relative to the manifest resolved) */
	bool tz_given;
	int tz_bias_min;          /* UTC = local + bias (a fixed offset; 0 for a zone) */
	struct tz *tz;            /* the zone or offset of the tz key (owned), NULL: not given */
	struct an_values av[3];   /* the manifest's value rows of the analysis option table
	                           * (anopts.h: array-queue-depth, clock-offset, from, to): [0] the
	                           * set (a comparison's both sides), [1] before-NAME, [2] after-NAME
	                           * (their own rows in .own); no file names */
	char **texts;             /* the values the rows keep (a window's text), owned */
	size_t ntexts;
	char **filter[3];         /* host, vm, disk patterns (EF_HOST, EF_VM, EF_DISK) */
	size_t nfilter[3];
};

struct bset {
	char *name;               /* as given (folder or manifest), shown escaped */
	struct bset_opts opts;    /* manifest keys */
	char *dir;                /* sanitised path component, unique in the run: the set's key in
	                           * the history */
	struct bfile *files;      /* NULL while the list is in the run's list store (stored) */
	size_t nfiles;
	/* Where discovery put the set's list (issue 28: the parent never holds every set's list):
	 * store_len bytes at store_off of the run's list store, an unlinked file (store_fd). Read
	 * back with bset_files, one set at a time. */
	bool stored;
	int store_fd;
	uint64_t store_off, store_len;
	bool paired;              /* before/after: a comparison */
	char **mail_to;           /* per-set recipients (manifest) */
	size_t nmail;
	char *discovery_error;    /* e.g. a glob that matched nothing */
	char *title, *customer, *prepared_by, *logo; /* the report's engagement fields (manifest), NULL */
	/* the outcome, kept by the parent for the order and the exit code */
	enum bstatus status;
	int worst;                /* -1 none, else enum severity */
	size_t nf;
	bool system_error;
	bool has_record;          /* the worker's result record is in the set's folder */
	bool incomplete;          /* analysed, but not every layer could be assessed (never "clean") */
	bool has_outcome;         /* compared: outcome is the comparison's (bresult.outcome) */
	int outcome;
	char *error;              /* the runner's reason when there is no record */
	double seconds;
	struct bresult *res;      /* the result in memory (owned), or NULL: read with batch_result */
};

struct batch {
	struct bset *sets;
	size_t nsets;
	bool has_store;            /* the list store (an unlinked temporary file, store_fd) is open */
	bool store_failed;         /* it could not be made or written: the lists stay in memory */
	int store_fd;
	uint64_t store_end;
	struct buf store_pend;     /* discovery: the set being listed, up to 256 KiB not yet written */
	char *input_kind;          /* "folder" | "manifest" */
	bool history_unavailable;  /* the history could not be opened: every set's trend is unavailable */
	/* Reads the result of a set that has_record into out (0 or ERR_*); NULL = none. Results stay
	 * on disk so the parent's memory does not grow with the number of sets. */
	int (*load)(void *ctx, const struct bset *s, struct bresult *out);
	void *load_ctx;
};

/* A batch run as its index and summary describe it (strings borrowed). */
struct run_info {
	const char *started, *input, *input_kind, *history, *out;
	double seconds;
	const char *report_url;    /* --report-url BASE (NULL = none) */
};

/* Set i's result: s->res (borrowed), or read into *tmp (then the return value is tmp: free it
 * with bresult_free); a set without a readable record gets a failed result built from the
 * runner's reason. Never NULL. */
const struct bresult *batch_result(const struct batch *b, size_t i, struct bresult *tmp);
/* Keeps what the parent needs of r in s (status, worst, findings, system error, outcome). */
void bset_take_outcome(struct bset *s, const struct bresult *r);
/* Whether set s counts as failed: nothing analysed, or only part of its inputs (BS_PARTIAL). The
 * one rule for summary.json's sets_failed, the index's failed count and the run's exit status. */
bool bset_failed(const struct bset *s);
long batch_sets_failed(const struct batch *b);

/* The result of an analysis (for a comparison: its after side, with the comparison's verdict):
 * findings, the key figures of the active entities, warnings and capture span. Strings are
 * copied (caller frees with bresult_free). */
void bresult_from_analysis(const struct analysis *a, const char *verdict, struct bresult *r);
void bresult_init(struct bresult *r);
void bresult_free(struct bresult *r);
void bprev_free(struct bprev *p);
/* Set s's files: s->files (borrowed) when they are in memory, else read from the run's list
 * store into a new array (*own, the return value: free it with bfiles_free(*own, s->nfiles)).
 * *own is NULL when nothing was read. A store that can no longer be read ends the process (exit
 * 4), as running out of memory does: a list is never shown short. For a worker, which holds its
 * own set's list; the parent walks a list with bfile_iter. */
const struct bfile *bset_files(const struct bset *s, struct bfile **own);
void bfiles_free(struct bfile *f, size_t n);
/* One file of the list store appended to out; bfiles_decode reads n of them from [p, p+len)
 * into out[0..n-1] (false when the bytes are not n files exactly). */
void bfile_encode(const struct bfile *f, struct buf *out);
bool bfiles_decode(const void *p, size_t len, size_t n, struct bfile *out);

/* A walk over a set's files in order, whether in memory or in the list store, holding one file
 * and 64 KiB of the store at a time (the index and summary of sets of a million files each). */
struct bfile_iter {
	const struct bset *s;
	size_t k;                 /* files given */
	uint64_t filled;          /* bytes of the set's list read from the store */
	unsigned char *raw;
	size_t cap, len, at;
	char *path, *note;
	size_t path_cap, note_cap;
	struct bfile cur;
};
void bfile_iter_init(struct bfile_iter *it, const struct bset *s);
/* The next file (valid until the next call), NULL after the last. */
const struct bfile *bfile_iter_next(struct bfile_iter *it);
void bfile_iter_free(struct bfile_iter *it);

/* Frees every set and its results (the batch itself is the caller's). */
void batch_free(struct batch *b);

/* The one trend function: r's findings and key figures against the previous run p (p->have
 * false: a first run). Fills r->trend (freed with r). */
void trend_compute(struct bresult *r, const struct bprev *p);
/* Whether two findings are the same one across runs: kind, entity and host. */
bool bfinding_same(const struct bfinding *a, const struct bfinding *b);

/* Key figures tracked week over week: (layer, metric) pairs. */
struct key_metric {
	enum layer layer;
	enum metric metric;
};
extern const struct key_metric key_metrics[];
extern const size_t nkey_metrics;

/* Names back to ids (history rows, records): -1 when unknown. */
int layer_find(const char *name);
int metric_find(const char *name);
int severity_find(const char *name);

#endif
