/* stats.h — bounded-memory statistics: a log-bucket quantile sketch (mergeable, ~1% relative
 * error) and a set of aligned downsampled series (N buckets of mean/min/max per series that merge
 * pairwise when full, so spikes survive in min/max and memory never grows with the rows). */
#ifndef IOPSY_STATS_H
#define IOPSY_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Quantile sketch over values >= 0 (negatives are clamped to 0): exact count, sum, min, max;
 * quantiles from geometric buckets of ratio 1.02 between 1e-4 and 1e7 (counters kept only for
 * the range of buckets the values use, stats.c). A value's bucket number is first kept in a small
 * staging area (one cache line) and the counters are updated 29 at a time: a series' values fall
 * into a few neighbouring buckets, so a batch touches a few lines of counters instead of one cold
 * line per value (analyze adds one value to each of
 * hundreds of sketches per row). Readers count the staged values too: results do not depend on
 * when the batches are applied. */
#define QS_BUCKETS 1280
/* Up to QS_EXACT values are also kept as they are, and their quantiles are exact (linear between
 * the order statistics, as R's type 7 and numpy's default): a window of 4 samples is not
 * summarised by bucket middles (its p95 lies between the 3rd and 4th value, never below the 3rd). */
#define QS_EXACT 64
struct qs_block;               /* staging area + the counters of a range of buckets (stats.c) */
struct qsketch {
	uint64_t n, zeros;
	double sum, min, max;
	struct qs_block *b;        /* the counters, from the (QS_EXACT + 1)th value (the exact
	                            * ones are counted then): NULL before */
	uintptr_t few;             /* the values while n <= QS_EXACT, then 0: a buffer of 2-byte,
	                            * 4-byte or 8-byte codes, the width in the low 2 bits (stats.c) */
};
void qs_init(struct qsketch *q);
void qs_add(struct qsketch *q, double v);
void qs_merge(struct qsketch *dst, const struct qsketch *src);
double qs_quantile(const struct qsketch *q, double p); /* NaN when empty */
double qs_mean(const struct qsketch *q);
void qs_free(struct qsketch *q);

/* Aligned downsampled series: every series of a store receives one value (or NaN) per row, so
 * bucket k covers the same rows (and times) in all of them. The bucket count adapts to the number
 * of series so the store stays within DS_BUDGET_BYTES (between DS_MIN_BUCKETS and DS_MAX_BUCKETS
 * buckets per series); a store that would pass DS_LIMIT_BYTES even with DS_MIN_BUCKETS (more
 * than about 63,000 series: 4,000 busy devices) gets fewer, as many as fit in DS_LIMIT_BYTES and
 * at least DS_FLOOR_BUCKETS. */
#define DS_MAX_BUCKETS 1024
#define DS_MIN_BUCKETS 128
#define DS_FLOOR_BUCKETS 16
#define DS_BUDGET_BYTES (24u << 20)
#define DS_LIMIT_BYTES (128u << 20)
/* One bucket of one series: what ds_set touches for a value is one 16-byte cell, not four arrays. */
struct ds_cell {
	float sum, min, max;
	uint32_t cnt;                         /* non-missing values */
};
struct dstore {
	size_t nseries, nb, per_bucket, fill; /* fill: rows in the current (last) bucket */
	size_t cap;                           /* buckets per series */
	size_t stride;                        /* cells from one series to the next: cap and a cache line
	                                       * more, so the current bucket of every series does not
	                                       * fall into the same cache set (cap x 16 bytes is a
	                                       * multiple of 4 KiB); one cell more in a store cut
	                                       * to DS_LIMIT_BYTES (an odd stride) */
	int64_t *t0, *t1;                     /* time of the first/last row in each bucket */
	struct ds_cell *cell;                 /* [series * stride + bucket] */
	bool *disc;                           /* a time discontinuity inside the bucket */
};
void ds_init(struct dstore *d, size_t nseries);
/* Starts a new row at time t; then ds_set each series (missing ones may be skipped). */
void ds_row(struct dstore *d, int64_t t, bool discontinuity);
void ds_set(struct dstore *d, size_t series, double v);
void ds_free(struct dstore *d);
/* Adds series up to nseries (no-op when it has as many): empty in the buckets so far (a capture
 * continued by a file with more columns). */
void ds_grow(struct dstore *d, size_t nseries);
/* Bucket mean of series s at bucket k, NaN when the bucket had no value. */
double ds_mean(const struct dstore *d, size_t s, size_t k);
double ds_min(const struct dstore *d, size_t s, size_t k);
double ds_max(const struct dstore *d, size_t s, size_t k);
/* Number of values that went into bucket k of series s. */
uint32_t ds_count(const struct dstore *d, size_t s, size_t k);

#endif
