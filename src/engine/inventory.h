/* inventory.h — what a capture holds: format, hosts, time span, interval statistics, rows,
 * columns, and objects → instances → counters (the model behind `iopsy counters`). */
#ifndef IOPSY_INVENTORY_H
#define IOPSY_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input.h"
#include "match.h"
#include "util.h"

struct inv_instance {
	const char *name;        /* NULL for objects without instances */
	size_t ncounters;
	const char **counters;   /* sorted */
};
struct inv_object {
	const char *name;        /* "" for columns that are not counter paths */
	size_t ncols, ninst, ncounters; /* ncounters: distinct counter names */
	struct inv_instance *inst;
};
struct interval_bin {
	int64_t ms;
	long count;
};
struct inventory {
	const char *path, *format;
	bool gzip, tsv, excel;
	const char *host;        /* most frequent host in column paths */
	const char **hosts;
	size_t nhosts;
	const char *zone;
	int bias_min;
	bool bias_known;
	int64_t start, end;      /* UTC ms; start > end when no rows */
	long rows, skipped_rows, warnings, backwards;
	long outside;            /* rows outside the time window (--from/--to): counted, not listed */
	bool windowed;
	size_t columns, matched;
	double interval_median_s, interval_jitter_s;
	struct interval_bin top[5];
	size_t ntop;
	struct inv_object *objs;
	size_t nobjs;
	struct arena arena;
};

/* Reads the whole capture (rows are counted, no values kept). m may be NULL (all columns).
 * Returns 0 or a negative ERR_*; inv is valid to free in both cases. */
int inventory_build(struct inventory *inv, struct input *in, struct matcher *m, struct diag *d);
void inventory_free(struct inventory *inv);

/* Interval histogram with bounded memory (distinct values, merged coarser when too many). */
struct interval_hist {
	struct interval_bin *bins;
	size_t n, cap;
	int64_t quantum_ms;
	double sum, sumsq;
	long count;
};
void ihist_init(struct interval_hist *h);
void ihist_add(struct interval_hist *h, int64_t ms);
int64_t ihist_median(const struct interval_hist *h);
double ihist_stddev(const struct interval_hist *h);
void ihist_free(struct interval_hist *h);

#endif
