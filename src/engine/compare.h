/* compare.h — the before/after comparison model of `iopsy compare`: one full analysis per side,
 * entities matched across the sides, each side's busy phase per entity (from the outstanding IO),
 * per entity and metric the figures the question needs (median, p95/p99, time above each band of
 * the rules, the same over the busy phase), each as a difference with a block-bootstrap interval,
 * the row's outcome and the comparison's (improved / regressed / mixed / unchanged / not
 * comparable) with a headline, latency at equal load (IOPS bins, latency vs outstanding IO), and
 * findings gone / still present / new / not assessed on a side. No formatting here: reports/
 * (text.c, json_out.c, md.c, html_compare.c) render this model; the HTML report reads the per-side series
 * too (compare_series(), compare_xy(), compare_sketch()). */
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

/* The outcome of a figure, a row and the comparison. A figure is improved / regressed when its
 * interval excludes 0 (and does not degenerate) and the change is material; a row (lower-is-better
 * kinds) is improved when a deciding figure improved and none regressed, regressed the other way,
 * mixed when both; neutral kinds (work, occupancy) are higher / lower. */
enum cmp_verdict {
	CV_IMPROVED,       /* lower-is-better: down */
	CV_REGRESSED,      /* ... up */
	CV_UNCHANGED,      /* no deciding figure changed materially */
	CV_HIGHER,         /* neutral metric (work, occupancy) materially up: "more work" for IOPS, MB/s */
	CV_LOWER,          /* ... down */
	CV_NOT_ASSESSED,   /* too few values, idle disk (latency not judged), or absent on a side */
	CV_MIXED,          /* a row: some deciding figures improved, others regressed */
	CV_NOT_COMPARABLE, /* a row: the after side's busy phase does not reach the before side's load */
	CV_COUNT
};
extern const char *const cmp_verdict_names[CV_COUNT]; /* "improved", ..., "not_comparable" */

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
	CR_DEGENERATE,    /* ... the interval has a bound at the estimate (a figure of too few distinct
	                   * values, e.g. a p99 that is the maximum): it decides nothing */
	CR_FEW_TAIL,      /* ... fewer than CMP_TAIL_MIN values beyond a quantile on a side */
	CR_NOT_COMPARABLE,/* not comparable: the after side has no busy period like the before side's */
	CR_WITH_LOAD,     /* unchanged: latency rose with materially more work (or fell with less) and is
	                   * not so at equal load: the load moved it, not the change (Little's law) */
	CR_MORE_LOAD,     /* unchanged: latency rose by a smaller factor than the work, which rose
	                   * materially, and equal load could not be compared (the loads do not
	                   * overlap): more load, not a slower stack */
	CR_COUNT
};
extern const char *const cmp_reason_names[CR_COUNT]; /* NULL, "interval_contains_zero", ... */

#define CMP_MAX_THR 2
/* One comparable metric of one layer (the table cmp_metrics[] lists them in report order). */
struct cmp_metric_spec {
	enum layer layer;
	enum metric metric;
	enum cmp_kind kind;
	double floor;            /* smallest change of a quantile that counts (metric unit; queue
	                          * rows: of the wait per IO, ms) */
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

/* The figures a row is judged on, each the difference after - before of a statistic of the
 * series values (bucket means) with its block-bootstrap interval. The median is the typical IO and
 * never decides; the tail, the time above each band and the busy phase decide (doc/compare-json.md). */
enum cmp_fig {
	CF_MEDIAN,       /* all values */
	CF_P95,
	CF_P99,
	CF_OVER0,        /* share of rows above the metric's first threshold (spec->thr[0]) */
	CF_OVER1,        /* ... the second */
	CF_BUSY_P50,     /* the same over the busy phase's values */
	CF_BUSY_P95,
	CF_BUSY_P99,
	CF_BUSY_OVER0,
	CF_BUSY_OVER1,
	CF_COUNT
};
extern const char *const cmp_fig_names[CF_COUNT]; /* "median", "p95", ..., "busy_time_above" */
/* Whether figure f is a share of time (shares differ in points, not percent). */
bool cmp_fig_is_share(enum cmp_fig f);

/* A change is material when |diff| >= the metric's floor and |change| >= --material-pct;
 * for a share of time, when it moved by at least CMP_SHARE_FLOOR (a point of the capture) and by
 * at least --material-pct of the larger share. A quantile q is judged only with at least
 * CMP_TAIL_MIN values beyond it on each side (p95: 100 values, p99: 500). */
#define CMP_SHARE_FLOOR 0.01
#define CMP_TAIL_MIN 5
struct cmp_figure {
	bool used;                  /* computed for this row */
	bool decides;               /* the row's outcome reads it */
	double v[2];                /* the statistic on each side (shares 0..1) */
	double diff, ci_diff[2];    /* after - before and its interval */
	double change_pct, ci[2];   /* the same in percent of before (NaN for shares, or before == 0) */
	enum cmp_verdict verdict;   /* improved / regressed / unchanged / higher / lower / not_assessed */
	enum cmp_reason reason;
};

/* The busy phase of an entity on one side: the buckets where it does real work. The load is the
 * outstanding IO (Little's law: IOPS x latency, e.g. perfmon's Avg. Disk Queue Length; doc/domain.md §5):
 * a thread pool keeps its IOs outstanding whether the stack is fast or slow, so the phase is found
 * the same way before and after a change, while the IOPS it reaches depend on the latency. When
 * log outstanding IO is clearly bimodal (Otsu's threshold: two groups of at least CMP_BUSY_MIN_SHARE
 * of the values, median loads CMP_REGIME_RATIO apart, CMP_REGIME_ETA of the variance between the
 * groups), the busy phase is the upper group; otherwise it is every active bucket (IOPS >=
 * active.min_iops) and not distinct. */
#define CMP_BUSY_MIN_SHARE 0.02
#define CMP_REGIME_RATIO 2.0
#define CMP_REGIME_ETA 0.75
/* Comparable: the after side's busy phase reaches at least this share of the before side's busy
 * load, in IOPS or in outstanding IO (a slower stack reaches fewer IOPS with the same threads). */
#define CMP_COMPARABLE_RATIO 0.5
struct cmp_busy {
	bool has;                   /* a load measure exists on this side */
	bool distinct;              /* bimodal: the busy phase is the upper group, not every bucket */
	bool from_iops;             /* no outstanding IO in the captures: split on IOPS */
	const char *measure;        /* static: "outstanding_io" or "iops" */
	const char *from;           /* static: the counters the load comes from */
	double cut;                 /* outstanding IO (or IO/s) at and above which a bucket is busy
	                             * (distinct), else active.min_iops */
	double cut_log;             /* the same as the split compares it (log load) */
	size_t values, busy;        /* buckets with a load / busy ones */
	double share;               /* busy rows / rows with a load */
	int64_t start, end;         /* the longest busy stretch (aligned UTC ms), 0 when none */
	double iops, outstanding;   /* medians over the busy buckets (NaN when unknown) */
	double bucket_s;            /* median duration of a downsampled bucket (s), NaN when unknown */
	bool edge;                  /* distinct, and one of the first or last three buckets with a load
	                             * of a capture is busy: the capture or its window starts or ends
	                             * inside the busy phase */
};

/* Latency at equal load: IOPS bins (geometric, ratio CMP_BIN_RATIO from active.min_iops) with at
 * least CMP_BIN_MIN values and CMP_BIN_SHARE of the active values on both sides (a bin the load
 * only passes through while ramping up is not matched); the change is
 * sum(w (after - before)) / sum(w before) over those bins with w = min(n_before, n_after), bin
 * medians. When either side has a distinct busy phase only the busy values are binned (the
 * equal-load comparison is of the load the question is about, not of the idle hours). When
 * comparable, its verdict decides the row like a figure (bit CMP_LM_BIT of better / worse). */
#define CMP_LM_BIT CF_COUNT
#define CMP_BIN_RATIO 1.25
#define CMP_BIN_MIN 5
#define CMP_BIN_SHARE 0.02
#define CMP_MIN_COVERAGE 0.10
struct cmp_loadmatch {
	bool comparable;            /* matched bins exist and cover >= CMP_MIN_COVERAGE of both sides */
	bool busy_only;             /* only the busy phase's values were binned */
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
	double diff, ci_diff[2];    /* median(after) - median(before) and its interval (metric unit;
	                             * = fig[CF_MEDIAN]) */
	double change_pct, ci[2];   /* the same in percent of median(before); NaN when that is 0 */
	bool per_load;              /* queue rows: the figures are of queue / IOPS (ms per IO: Little's
	                             * law), so a queue that grows with the load at equal latency is
	                             * not a regression */
	struct cmp_figure fig[CF_COUNT];
	enum cmp_verdict verdict;   /* the row's outcome */
	enum cmp_reason reason;     /* why unchanged, not assessed or not comparable; CR_NONE otherwise */
	unsigned better, worse;     /* bit f: figure f improved / regressed (deciding figures); bit
	                             * CMP_LM_BIT: latency at equal load (lm) improved / regressed */
	bool decisive;              /* a latency row at the top of its IO stack: the comparison's
	                             * outcome reads it (guest disks; virtual disks and devices with no
	                             * compared disk above them) */
	double io_share;            /* the row's IO (its direction's, for a read or write latency) as a
	                             * share of the compared disks' IO, the larger of the two sides;
	                             * NaN when unknown */
	bool material;              /* io_share >= compare.min_io_share (or unknown): the row can
	                             * decide the outcome */
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
	const char *via_guest;      /* matched through the guest disk above it: each side's disk map
	                             * (--map or automatic) ties this guest disk ("SQL01 D:", arena) to
	                             * this virtual disk or LUN under different names; NULL otherwise */
	size_t *ents[2];            /* indices in side[s].m.ents, one per capture it appears in */
	size_t nents[2];
	double load_mean[2];        /* mean IOPS (NaN when the layer has none) */
	bool active[2];             /* load_mean >= active.min_iops, or no load metric */
	bool vm_with_disks;         /* VM layer: the VM has virtual disks in the captures */
	struct cmp_busy busy[2];    /* each side's busy phase */
	bool comparable;            /* the after side's busy phase reaches the before side's load, and
	                             * the before side holds a period like the after side's */
	bool before_missing;        /* not comparable the other way: only the after side has a distinct
	                             * busy phase and the before side's load does not reach half of it
	                             * (a before capture or window that holds only idle time) */
	int sliver;                 /* not comparable: side sliver - 1 holds less than
	                             * compare.min_busy_held of the other side's busy phase by duration
	                             * and by IOs (a window or capture that cuts it); 0 none */
	double held[2];             /* each side's busy phase: seconds, and */
	double held_ios[2];         /* ... its IOs (seconds x busy median IO/s; NaN when unknown) */
	bool shares_comparable;     /* the two sides spend comparable shares of their time busy (the
	                             * busy shares differ by less than --material-pct of the larger,
	                             * or a side has no load measure): only then may whole-capture
	                             * figures (tail, time above a band) decide; else they are context */
	bool widths_comparable;     /* the sides' buckets span comparable time (less than twice as long
	                             * one way or the other; the downsampler merges pairwise, so a
	                             * longer capture's buckets are 2, 4, ... times as long): only then
	                             * do tails of bucket means (p95, p99, busy p95, busy p99) decide,
	                             * as a mean over a longer bucket has a narrower tail */
	size_t first_row, nrows;
};

/* A finding is gone only when the after side had the inputs and the coverage that could show it
 * (the vmkernel.log, the partitions file, the layer and the entity assessed), else it is not
 * assessed after; likewise new and not assessed before. */
enum cmp_fstatus { FD_GONE, FD_STILL, FD_NEW, FD_NOT_ASSESSED_AFTER, FD_NOT_ASSESSED_BEFORE, FD_COUNT };
extern const char *const cmp_fstatus_names[FD_COUNT]; /* "gone", "still_present", "new",
                                                       * "not_assessed_after", "not_assessed_before" */
extern const char *const cmp_fstatus_words[FD_COUNT]; /* the same in prose: "still present", ... */
/* Findings of one (kind, entity, host) on the two sides; entity names translated through pairs. */
struct cmp_fdiff {
	enum kind kind;
	const char *title;          /* static (kind table) */
	enum layer layer;
	const char *entity, *host;  /* as named on the after side when present there, else before */
	enum cmp_fstatus status;
	const char *why;            /* static: why not assessed on the other side, else NULL */
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

/* The comparison's outcome, from the decisive latency rows: not comparable when a side has no
 * readable capture, no decisive row could be assessed, or a decisive row whose before side was
 * slow (busy-phase p95 above its first band) is not comparable; otherwise improved when a
 * decisive row improved and none regressed, regressed the other way, mixed when both (or a row is
 * mixed), unchanged when none changed. */
enum cmp_outcome { CO_IMPROVED, CO_REGRESSED, CO_MIXED, CO_UNCHANGED, CO_NOT_COMPARABLE, CO_COUNT };
extern const char *const cmp_outcome_names[CO_COUNT]; /* "improved", ..., "not_comparable" */
extern const char *const cmp_outcome_words[CO_COUNT]; /* "Improved", ..., "Not comparable" */

struct cmp_summary {
	int verdicts[CV_COUNT];     /* assessed rows by verdict (active entities) */
	int latency[CV_COUNT];      /* latency rows only */
	int decisive[CV_COUNT];     /* decisive latency rows by outcome */
	int findings[FD_COUNT];     /* fdiff by status */
	int bottleneck;             /* +1 moved down the stack, -1 up, 0 neither or unclear */
	int load_not_comparable;    /* latency rows whose load does not overlap */
	bool findings_compared;     /* false when a side has no readable capture */
	enum cmp_outcome outcome;
	bool capacity_gain;         /* the after side did materially more work in the busy phase of a
	                             * decisive entity whose latency did not get worse */
	const char *outcome_why;    /* static or arena: for not comparable, the reason */
	const char *nc_action;      /* static or arena: for not comparable, what fixes it (NULL: capture
	                             * the after side again during a busy period like the before's) */
	bool reversed;              /* the after side's readable captures all end before the before
	                             * side's begin: the sides were given the wrong way round */
	const char *reversed_text;  /* arena: "the before captures (28 July 2026) are later than ..." */
	const char *moved_down;     /* the verdict's "the bottleneck moved down a layer; check the
	                             * array before raising queue depths further": the entities below
	                             * the guest whose latency rose ("naa.600..., naa.601..."), arena;
	                             * NULL when it does not say so */
	const struct cmp_row *head[2]; /* the rows the headline quotes (NULL when none) */
};

/* SQL Server before and after (an instance found on both sides: same machine, same instance):
 * the business outcome of the change ("Batch Requests/sec +40 % at lower log flush wait"). */
enum cmp_sql_fig { CSQL_BATCH, CSQL_FLUSH, CSQL_LOGWRITE, CSQL_PAGEIO, CSQL_PLE, CSQL_COUNT };
extern const char *const cmp_sql_fig_names[CSQL_COUNT]; /* JSON keys */
struct cmp_sql {
	const char *host, *name, *label;
	double fig[2][CSQL_COUNT];  /* before, after: the means over each side (sqlimpact.h) */
	double change_pct[CSQL_COUNT]; /* after vs before, NaN when a side lacks it */
	const char *text;           /* one sentence (arena) */
	const char *comment;        /* what the memory and read-wait figures mean when they moved
	                             * materially (arena), NULL when none did */
};
#define CMP_MAX_SQL 8

/* vscsiStats histograms of one virtual disk before and after (compare_vhist.c). The sides are tied
 * by the VM's name (each side's esxtop names its worldGroupID's VM: a worldGroupID changes when the
 * VM is powered on again, as for a controller change) and scsiC:T, or by worldGroupID and scsiC:T
 * (the same on both sides), both read from the identifiers; else by scsiC:T alone when it names one
 * disk on each side (a guess, said so). A disk on one side only is kept with the other NULL. */
struct cmp_vdisk {
	const struct vh_disk *d[2];
	bool guess;                 /* tied by scsiC:T alone */
	const char *tie;            /* how the sides were tied (arena), NULL for a disk of one side */
	int cap[2];                 /* vhist_cap_state of each side's outstanding IOs (-1: neither or none) */
	const char *text;           /* what moved, or why it cannot be compared (arena) */
};
/* The disk's name: "VM SQL01 scsi0:1" when named, else its worldGroupID on each side when they
 * differ ("worldGroupID 55761 before, 43878 after, scsi0:1"). */
void cmp_vdisk_name(const struct cmp_vdisk *v, struct buf *out);

struct compare {
	struct analysis side[2];
	struct cmp_sql sql[CMP_MAX_SQL]; /* filled by compare_run; nsql = 0 without SQL Server counters */
	size_t nsql;
	struct cmp_vdisk *vd;       /* virtual disks with histograms on either side (compare_vhist.c) */
	size_t nvd;
	const char *vd_note;        /* a side without histograms while the other has them: what cannot be
	                             * compared (arena), NULL otherwise */
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
	const char *headline;       /* one sentence: the outcome word and the figures that prove it */
	const char *lead;           /* the outcome in one short sentence with the work done, for page 1:
	                             * "Improved: SQL01 D: reads p95 167 -> 8.2 ms while doing 2.7x the IO." */
	const char *verdict;        /* the headline, then the detail (arena) */
	const char *detail;         /* the detail alone (points into verdict) */
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

/* Whether a comparison's outcome agrees with its own statements (issue 24): latency at equal load
 * of every decisive row (improved is never set against a regression there, nor unchanged against
 * either), the headline rows' figures, the busy phases (no whole-capture figure decides a row
 * whose sides are busy for different shares of their time; no tail decides a queue per unit of
 * load) and the finding diff of the headline entity (improved: its guest latency finding of the
 * same direction is not new; regressed: not gone; unchanged: neither). NULL when it agrees, else
 * what contradicts (arena-owned). The compare tests check it on every comparison they run. */
const char *compare_contradiction(struct compare *c);

/* ---- per-side data for charts (CDFs, time-of-day overlays, latency vs IOPS scatter) ---- */

struct cmp_point {
	int64_t t;                  /* aligned UTC ms (middle of the bucket); t % 86400000 = time of day */
	double mean, min, max;      /* bucket mean, min and max (spikes survive in max) */
	bool busy;                  /* the bucket is in the pair's busy phase on that side */
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
