/* compare.h — the before/after comparison model of `iopsy compare`: one full analysis per side,
 * entities matched across the sides, per entity and metric the distribution figures of each side,
 * the change of the median with a block-bootstrap confidence interval and a verdict, latency at
 * equal load (IOPS bins, latency vs outstanding IO), and findings gone / still present / new.
 * No formatting here: reports/compare_out.c renders text and JSON from this model, and the HTML
 * report reads the same model (per-side series: compare_series(), compare_xy(), compare_sketch()). */
#ifndef IOPSY_COMPARE_H
#define IOPSY_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

enum cmp_side { CMP_BEFORE, CMP_AFTER };
extern const char *const cmp_side_names[2]; /* "before", "after" */

/* What a metric measures decides how a change is read. */
enum cmp_kind {
	CK_LATENCY,   /* ms per IO: lower is better; also compared at equal load */
	CK_QUEUE,     /* IOs waiting (guest queue, QUED): lower is better */
	CK_PENALTY,   /* split IO/s, CPU %Ready: lower is better */
	CK_WORK,      /* IOPS, MB/s: more or less work done, neither better nor worse */
	CK_OCCUPANCY, /* ACTV, %USD, DQLEN: how full or deep the device queue is; neutral */
};
extern const char *const cmp_kind_names[5];
/* true for the kinds where lower is better (latency, queue, penalty). */
bool cmp_kind_lower_is_better(enum cmp_kind k);

enum cmp_verdict {
	CV_IMPROVED,     /* lower-is-better metric, interval excludes 0, change material, down */
	CV_REGRESSED,    /* ... up */
	CV_UNCHANGED,    /* the interval contains 0, or the change is not material */
	CV_HIGHER,       /* neutral metric (work, occupancy) materially up: "more work" for IOPS, MB/s */
	CV_LOWER,        /* ... down */
	CV_NOT_ASSESSED, /* too few values, idle disk (latency not judged), or absent on a side */
	CV_COUNT
};
extern const char *const cmp_verdict_names[CV_COUNT]; /* "improved", ..., "not_assessed" */

/* Why a verdict is unchanged or not assessed. */
enum cmp_reason {
	CR_NONE,
	CR_CI_HAS_ZERO,   /* unchanged: the interval contains 0 */
	CR_BELOW_PCT,     /* unchanged: |change| below material_pct */
	CR_BELOW_FLOOR,   /* unchanged: |difference| below the metric's floor */
	CR_NO_BEFORE,     /* not assessed: no values before */
	CR_NO_AFTER,      /* ... after */
	CR_FEW_VALUES,    /* ... fewer than CMP_MIN_VALUES on a side */
	CR_IDLE_BOTH,     /* ... the entity is idle on both sides */
	CR_IDLE_ONE,      /* ... latency of a disk idle on one side is not judged */
	CR_NO_INTERVAL,   /* ... too few resamples gave a value */
	CR_COUNT
};
extern const char *const cmp_reason_names[CR_COUNT]; /* NULL, "interval_contains_zero", ... */

#define CMP_MAX_THR 2
/* One comparable metric of one layer (the table cmp_metrics[] lists them in report order). */
struct cmp_metric_spec {
	enum layer layer;
	enum metric metric;
	enum cmp_kind kind;
	double floor;            /* smallest change of the median that counts (metric unit) */
	int thr[CMP_MAX_THR];    /* rule ids (rules.h) whose values are the thresholds; -1 = none */
	int load;                /* the layer's IOPS metric: activity, and load bins for latency; -1 */
	int out[2];              /* CK_LATENCY: metrics summed into outstanding IO; -1 = none */
};
extern const struct cmp_metric_spec cmp_metrics[];
extern const size_t cmp_nmetrics;

/* Distribution figures of one metric of one entity on one side (all of the side's captures). */
struct cmp_stats {
	long long samples;          /* rows with a value */
	double p50, p95, p99, max, mean; /* from the merged quantile sketches (every row); NaN if none */
	double over[CMP_MAX_THR];   /* share of rows above each threshold (spec->thr); NaN if none */
	size_t values;              /* downsampled series values (bucket means) the bootstrap used */
	double median;              /* median of those values (the statistic the change is of) */
	size_t strata;              /* load regimes resampled separately (1, or 2: idle and busy) */
	size_t block;               /* circular block bootstrap block length (Politis-White; the
	                             * largest of the strata's) */
};

/* Latency at equal load: IOPS bins (geometric, ratio CMP_BIN_RATIO from active.min_iops) with at
 * least CMP_BIN_MIN values on both sides; the change is sum(w (after - before)) / sum(w before)
 * over those bins with w = min(n_before, n_after), bin medians. */
#define CMP_BIN_RATIO 1.25
#define CMP_BIN_MIN 5
#define CMP_MIN_COVERAGE 0.10
struct cmp_loadmatch {
	bool comparable;            /* matched bins exist and cover >= CMP_MIN_COVERAGE of both sides */
	const char *note;           /* static: why not comparable, else NULL */
	int bins;                   /* matched bins */
	double coverage[2];         /* share of each side's active values inside the matched bins */
	double load_lo, load_hi;    /* IOPS range of the matched bins */
	double diff, ci_diff[2];    /* weighted after - before (ms) and its interval */
	double change_pct, ci[2];   /* the same in percent */
	enum cmp_verdict verdict;
	enum cmp_reason reason;
};

/* One comparison: a matched entity × a metric. */
struct cmp_row {
	size_t pair;                /* index in compare.pairs */
	const struct cmp_metric_spec *spec;
	struct cmp_stats s[2];      /* [CMP_BEFORE], [CMP_AFTER] */
	double diff, ci_diff[2];    /* median(after) - median(before) and its interval (metric unit) */
	double change_pct, ci[2];   /* the same in percent of median(before); NaN when that is 0 */
	enum cmp_verdict verdict;
	enum cmp_reason reason;     /* why unchanged or not assessed; CR_NONE otherwise */
	bool has_lm;                /* latency rows with a load metric on both sides */
	struct cmp_loadmatch lm;
};

/* IOPS bins of one latency row, and latency vs outstanding IO (least-squares slope, ms per IO). */
struct cmp_bin {
	double lo, hi;              /* IOPS */
	size_t n[2];
	double p50[2], p95[2];      /* latency of the values in the bin; NaN when none */
	bool matched;
};
struct cmp_loadbins {
	size_t row;                 /* the latency comparison (compare.rows) */
	struct cmp_bin *bins;       /* every bin with values on either side, low to high */
	size_t nbins;
	double load_p50[2], load_p95[2]; /* IOPS of each side's active values */
	size_t active[2];           /* values at or above active.min_iops */
	bool has_slope;
	double slope[2];            /* ms per outstanding IO; NaN when it cannot be fitted */
	size_t slope_n[2];
	double slope_change_pct, slope_ci[2]; /* NaN unless both slopes are > 0 */
};

/* An entity matched across the sides (or present on one side only). */
struct cmp_pair {
	enum layer layer;
	const char *name[2], *host[2]; /* NULL on a side where it is absent (borrowed from that model) */
	bool mapped;                /* matched through --match-map */
	bool by_name;               /* matched by name although the host differs (e.g. after vMotion) */
	size_t *ents[2];            /* indices in side[s].m.ents, one per capture it appears in */
	size_t nents[2];
	double load_mean[2];        /* mean IOPS (NaN when the layer has none) */
	bool active[2];             /* load_mean >= active.min_iops, or no load metric */
	bool vm_with_disks;         /* VM layer: the VM has virtual disks in the captures */
	size_t first_row, nrows;
};

enum cmp_fstatus { CF_GONE, CF_STILL, CF_NEW };
extern const char *const cmp_fstatus_names[3]; /* "gone", "still_present", "new" */
/* Findings of one (kind, entity, host) on the two sides; entity names translated through pairs. */
struct cmp_fdiff {
	enum kind kind;
	const char *title;          /* static (kind table) */
	enum layer layer;
	const char *entity, *host;  /* as named on the after side when present there, else before */
	enum cmp_fstatus status;
	int count[2];               /* findings (windows) per side */
	int worst[2];               /* enum severity, -1 when none */
	double sustained_s[2];
};

/* Match-map lines: "[HOST\]NAME = [HOST\]NAME" (before = after). */
struct cmp_mapline {
	const char *host[2], *name[2]; /* host NULL = any */
	long line;
	int used;                   /* pairs matched through it */
};

struct compare_opts {
	unsigned resamples;         /* bootstrap resamples (default 1000) */
	uint64_t seed;              /* default 1 */
	double confidence;          /* default 0.95 */
	double material_pct;        /* default 10: smaller relative changes are "unchanged" */
	struct analyze_opts ao[2];  /* per-side analysis options */
};

struct cmp_summary {
	int verdicts[CV_COUNT];     /* assessed rows by verdict (active entities) */
	int latency[CV_COUNT];      /* latency rows only */
	int findings[3];            /* fdiff by status */
	int bottleneck;             /* +1 moved down the stack, -1 up, 0 neither or unclear */
	int load_not_comparable;    /* latency rows whose load does not overlap */
	bool findings_compared;     /* false when a side has no readable capture */
};

struct compare {
	struct analysis side[2];
	struct cmp_mapline *map;
	size_t nmap;
	struct cmp_pair *pairs;
	size_t npairs;
	struct cmp_row *rows;
	size_t nrows;
	struct cmp_loadbins *lb;
	size_t nlb;
	struct cmp_fdiff *fd;
	size_t nfd;
	struct cmp_summary sum;
	const char *verdict;        /* the verdict paragraph (arena) */
	struct compare_opts o;
	struct rules rules;         /* the comparison's thresholds (bands, activity); defaults after
	                             * compare_init; each side's analysis has its own */
	struct arena arena;
};

void compare_opts_init(struct compare_opts *o);
void compare_init(struct compare *c);
void compare_free(struct compare *c);
/* Reads one capture into a side (model_add_capture). 0 or a negative ERR_*. */
int compare_add_capture(struct compare *c, enum cmp_side s, const char *path, const struct common_opts *co);
/* Adds the lines of a --match-map file (maps.h): entities renamed between the sides. */
void compare_use_matchmap(struct compare *c, const struct matchmap *mm);
/* Runs both analyses, matches entities, computes every comparison, bins, findings diff and the
 * verdict. Notes for the user (unused map lines, ...) go through d. */
void compare_run(struct compare *c, const struct compare_opts *o, struct diag *d);

/* ---- per-side data for charts (CDFs, time-of-day overlays, latency vs IOPS scatter) ---- */

struct cmp_point {
	int64_t t;                  /* aligned UTC ms (middle of the bucket); t % 86400000 = time of day */
	double mean, min, max;      /* bucket mean, min and max (spikes survive in max) */
};
/* The downsampled series of metric m of pair p on side s, captures in order. Writes at most cap
 * points to out and returns how many exist (call with cap 0 to size the buffer). */
size_t compare_series(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric m,
		      struct cmp_point *out, size_t cap);
/* Pairs of bucket means of metrics mx and my at the same buckets (both present), e.g. IOPS and
 * latency for a scatter. Writes at most cap to x and y, returns how many exist. */
size_t compare_xy(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric mx,
		  enum metric my, double *x, double *y, size_t cap);
/* Merges the quantile sketches of metric m of pair p on side s into out (initialised here; the
 * caller frees it with qs_free). Quantiles of every row, for a CDF. */
void compare_sketch(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric m,
		    struct qsketch *out);
/* The display name of a pair on a side: "SQL01 D:" for guest disks, else the entity name.
 * Written into out (cap bytes); returns out. */
const char *compare_pair_label(const struct cmp_pair *p, enum cmp_side s, char *out, size_t cap);

#endif
