/* compare_int.h — what the parts of the comparison share (compare.c, compare_data.c,
 * compare_match.c, compare_busy.c, compare_stats.c, compare_verdict.c, compare_sql.c); not for
 * other modules. */
#ifndef IOPSY_COMPARE_INT_H
#define IOPSY_COMPARE_INT_H

#include <stdbool.h>
#include <strings.h>

#include "compare.h"

/* Fewer values than this on a side: not assessed. */
#define CMP_MIN_VALUES 10
/* The activity threshold of the comparison (the rules given to compare). */
#define ACTIVE_MIN(c) rule_value(&(c)->rules, R_ACTIVE_IOPS)

/* Hosts across the two captures: equal (case-insensitively) or both unknown. Stricter than
 * topology.c's rule within one analysis, where an unknown host matches any. */
static inline bool cmp_host_same(const char *a, const char *b)
{
	if (!a || !b)
		return !a && !b;
	return strcasecmp(a, b) == 0;
}

/* Layers top to bottom, for ordering (the VM's CPU last). */
static inline int cmp_layer_rank(enum layer l)
{
	switch (l) {
	case LAYER_GUEST: return 0;
	case LAYER_VSCSI: return 1;
	case LAYER_WORLD: return 2;
	case LAYER_DEVICE: return 3;
	case LAYER_ADAPTER: return 4;
	case LAYER_ARRAY: return 5;
	default: return 6;
	}
}

/* The steps of compare_run, in order. */
void cmp_match(struct compare *c, struct diag *d);
void cmp_build_rows(struct compare *c);    /* compare_stats.c; calls cmp_pair_busy per pair */
void cmp_decide_rows(struct compare *c);   /* compare_verdict.c: load-explained changes, decisive rows */
void cmp_findings_diff(struct compare *c);
void cmp_summarise(struct compare *c);
void cmp_sql_compare(struct compare *c);   /* compare_sql.c: SQL Server before and after */
void cmp_vhist(struct compare *c);         /* compare_vhist.c: vscsiStats histograms before and after */

/* ---- the busy phase (compare_busy.c) ---- */
/* Fills p->busy[] and p->comparable. */
void cmp_pair_busy(const struct compare *c, struct cmp_pair *p);
/* Bucket k of series metric m of entity e (NaN when e has no such series or no value). */
double cmp_dsv(const struct entity *e, const struct dstore *d, int m, size_t k);
/* The outstanding IO of bucket k of e (Little's law), NaN when none; *from names the counters. */
double cmp_demand(const struct entity *e, const struct dstore *d, size_t k, const char **from);
/* The IOPS metric of a layer (the metric table's load), or -1. */
int cmp_layer_load(enum layer l);
/* A bucket's place in busy phase b from its outstanding IO and IOPS: 1 busy, 0 not, -1 unknown
 * (no load: it joins its neighbour in time). */
int cmp_busy_flag(const struct cmp_busy *b, double dem, double iops, double active_min);
/* Whether bucket k of entity e (of pair p, side s) is in the pair's busy phase on that side. */
bool cmp_bucket_busy(const struct compare *c, const struct cmp_pair *p, int s, const struct entity *e, size_t k);
/* Readable captures of a side's model. */
int cmp_readable_caps(const struct model *m);
/* The entity of pair p on side s, capture k (borrowed). */
const struct entity *cmp_ent(const struct compare *c, const struct cmp_pair *p, int s, size_t k);

#endif
