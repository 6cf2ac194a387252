/* viewdata.h — the series of `iopsy view`: the columns of captures that match a pattern, each
 * downsampled while it is read to a bounded number of buckets that keep the minimum and maximum
 * of their samples (a 4 s stall stays visible at full zoom-out), in memory bounded by the budget
 * whatever the capture's length. reports/view.c writes them as the page. */
#ifndef IOPSY_VIEWDATA_H
#define IOPSY_VIEWDATA_H

#include <stdbool.h>
#include <stdint.h>

#include "input.h"
#include "match.h"

/* What view reads without --match: the storage, CPU and memory objects of esxtop and perfmon. */
extern const char view_default_match[];
/* The default --budget: numbers (bucket minima and maxima) in the page, over every series. */
#define VIEW_BUDGET_DEFAULT 2000000L
/* A series never gets fewer buckets than this: past it, series are dropped (and said). */
#define VIEW_MIN_BUCKETS 64
/* nor more than this */
#define VIEW_MAX_BUCKETS 32768

struct view_cap {
	char *file;              /* as given */
	const char *format;      /* the format's name (static) */
	int64_t *t;              /* bucket starts, UTC ms */
	size_t nb;               /* buckets filled */
	long w;                  /* rows per bucket (1: every sample as read) */
	long rows;
	int bias_min;            /* perfmon header's bias (UTC = local + bias) when bias_known */
	bool bias_known;
};

struct view_series {
	size_t cap;              /* capture index */
	size_t col;              /* the reader's column */
	char *name, *object, *counter, *instance; /* bytes as in the capture (may be non-UTF-8) */
	const char *unit;        /* the metric's unit when the format knows the counter, else "" */
	const char *metric;      /* the metric's key (metric_info) when the format knows it, else "" */
	char *entity;            /* the entity the format reads it for ("naa.…", "D:"), else "" */
	double scale;            /* to that unit (perfmon seconds → ms), else 1 */
	double *lo, *hi;         /* per bucket; NaN: no sample */
	bool kept;               /* false: dropped to fit the budget */
};

/* A finding of the analysis on the same captures, as the page shades it. */
struct view_finding {
	int64_t start, end;      /* UTC ms */
	const char *sev;         /* "critical", "warning", "info" (static) */
	char *kind, *title, *entity;
	const char *ev[5];       /* the metric keys of its evidence (static), NULL-padded */
};

/* An edge of the IO path graph (iopath.h) as the page's second tree draws it: adapter → path,
 * path → device, device → VM (its worlds' IO), device → virtual disk, virtual disk → guest disk
 * (the analysis's map: --map, a fact, or an automatic one by IOPS correlation, a guess). */
struct view_link {
	char *from, *to;
	const char *kind;        /* "path", "device", "vm", "vdisk", "guest" (static) */
	const char *how;         /* link_how_names[]: "identifiers", "correlation" (static) */
};

struct view_data {
	struct view_cap *caps;
	size_t ncaps;
	struct view_series *s;
	size_t ns;
	long budget;             /* numbers in the page (--budget) */
	size_t buckets;          /* bucket capacity of a series (set by view_plan) */
	size_t dropped;          /* series matched but left out to fit the budget */
	size_t flat;             /* view_from_analysis: series left out for being zero throughout */
	struct view_finding *f;
	size_t nf;
	struct view_link *l;
	size_t nl;
};

void view_init(struct view_data *v, long budget);
void view_free(struct view_data *v);
/* Adds capture in (already opened, shown as file) and the series of its columns m matches, and
 * selects them in its reader. Returns how many, or ERR_LIMIT when the pattern gave up (said
 * through d). */
long view_add_capture(struct view_data *v, struct input *in, const char *file, struct matcher *m, struct diag *d);
/* After every capture was added: the bucket capacity per series from the budget, and the series
 * that do not fit even at VIEW_MIN_BUCKETS dropped (the last ones; their readers skip them). */
void view_plan(struct view_data *v, struct input *ins);
/* Reads capture ci's rows into its kept series. Returns 0 or the reader's error (the rows before
 * it are kept). */
int view_read(struct view_data *v, size_t ci, struct input *in);
/* Adds a finding (strings copied); the caller may fill its ev[]. */
struct view_finding *view_add_finding(struct view_data *v, int64_t start, int64_t end, const char *sev,
				      const char *kind, const char *title, const char *entity);

/* Adds an edge (names copied; a NULL or empty name adds nothing). */
void view_add_link(struct view_data *v, const char *from, const char *to, const char *kind, const char *how);

struct analysis;
/* The findings of analysis a that have a time (a log's or a partition table's have none), with
 * the metrics of their evidence, and its IO path graph and disk map as edges. */
void view_add_analysis(struct view_data *v, const struct analysis *a);

/* The budget of an analysis report's Explore section (numbers over all its series): about 1 MB
 * of JSON, so the report stays a file to mail. */
#define VIEW_EXPLORE_BUDGET 200000L
/* The Explore section of `analyze --html`: the series of the entities analysis a analysed (not
 * outside the selection and not idle: the entities its findings name first, then the others layer
 * by layer, guest disks to adapters, then the VMs with an active virtual disk and SQL Server), every
 * metric each has that is not zero throughout (those are counted in v->flat), from its
 * capture's buckets (minimum and maximum kept) merged in groups to fit v->budget (series past it
 * dropped and counted), with a's findings and IO path (view_add_analysis). Object names are the
 * layers' ("Device / LUN"; a Hyper-V host's "VHDX (Hyper-V host)", "Host disk (Hyper-V host)"), counters
 * the metrics' labels, instances the entities' names ("NAME @ HOST" when the captures are of several
 * hosts). */
void view_from_analysis(struct view_data *v, const struct analysis *a);

#endif
