/* charts.h — time-series charts drawn by gnuplot at run time: data and a .gp script per chart are
 * written to a private directory (or the --gnuplot-dir the consultant keeps), one gnuplot child
 * process draws all the charts of a report (an argv, never a shell; a timeout), and their SVGs come
 * back ready to inline in HTML.
 * Only trusted text (metric labels, numbers, generated file names) ever reaches gnuplot; names
 * taken from captures stay in the HTML around the chart. */
#ifndef IOPSY_CHARTS_H
#define IOPSY_CHARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "tz.h"
#include "util.h"

/* Return codes besides 0 and the ERR_* of util.h. */
#define CHARTS_NO_GNUPLOT (-20)  /* gnuplot is not installed (or not executable) */
#define CHARTS_FAILED (-21)      /* gnuplot ran but failed, timed out or wrote no SVG */

#define CHART_MAX_POINTS 800     /* never more points per series than a page can show */
#define CHART_MAX_PANELS 3
#define CHART_MAX_SERIES 8
#define CHART_MAX_CATS 64        /* categories of a categorical x axis (histogram buckets) */

/* One point of a series: the mean of what it covers and the min/max inside it (NaN = gap). */
struct chart_point {
	double t;                /* seconds since the epoch, UTC */
	double mean, min, max;
};

enum chart_style {
	CS_BAND,                 /* line of the means over a min..max band (time series) */
	CS_LINE,                 /* line only (e.g. a CDF) */
	CS_DASHED,               /* context series (e.g. the host's view): dashed line, no band */
	CS_POINTS,               /* scatter: t is x, mean is y */
	CS_BARS,                 /* bars of width chart.boxwidth at x = t, height mean (histograms) */
};

/* Series colours: 0 = by position (style.gp c1..c8); or the before/after colours of comparisons. */
#define CHART_BEFORE 9
#define CHART_AFTER 10

struct chart_series {
	const char *label;       /* legend text: trusted static text only (metric labels) */
	int panel;               /* 0 .. npanels-1 */
	enum chart_style style;
	int color;
	struct chart_point *p;   /* owned by the chart (chart_free) */
	size_t n;
};

struct chart_panel {
	char ylabel[48];         /* the unit, e.g. "ms" (trusted) */
	double threshold;        /* NaN when none */
	char threshold_label[64];
	double threshold2;       /* a second band (e.g. critical above warning); NaN when none */
	char threshold2_label[64];
	double ymax;             /* NaN: a round number above the data */
};

struct chart {
	int npanels;
	struct chart_panel panel[CHART_MAX_PANELS];
	struct chart_series s[CHART_MAX_SERIES];
	int ns;
	double t0, t1;           /* x range (s, or x units when xnumeric) */
	double shade0, shade1;   /* the finding's window (s); NaN = none */
	int width;               /* SVG width in pixels (default 960) */
	int panel_height;        /* pixels per panel (default 170) */
	bool xnumeric;           /* x is a number (xlabel), not a time of day / date */
	bool xlog;               /* logarithmic x axis (xnumeric; values <= 0 are not drawn) */
	char xlabel[48];         /* trusted */
	bool png;                /* render a PNG (pngcairo) instead of SVG: for mail, where SVG is not shown */
	const struct tz *ltz;    /* time axes: tics in UTC and, below, in this local zone (NULL: UTC only) */
	char ltz_label[24];      /* the zone's name for the axis label ("UTC-07:00"; empty: from ltz) */
	bool time_of_day;        /* x is seconds since midnight UTC (overlays of several days) ... */
	int64_t tod_ref_s;       /* ... and the local offset is the one in force at this UTC time */
	int ncats;               /* > 0: x is categorical (xnumeric): category k at x = k, labelled cat[k] */
	char cat[CHART_MAX_CATS][24]; /* trusted: generated from numbers ("<= 32", "> 64") */
	double boxwidth;         /* CS_BARS: a bar's width in x units (0: 0.8) */
};

struct chart_opts {
	const char *gnuplot;     /* program; NULL = $IOPSY_GNUPLOT, else "gnuplot" found in PATH */
	const char *keep_dir;    /* --gnuplot-dir: keep data, scripts and SVGs here (created if missing) */
	int timeout_s;           /* per chart (a run of N charts gets N times this); 0 = 30 s */
};

/* A chart added to a session and its result once drawn (charts.c). */
struct chart_job;

struct charts {
	char *dir;               /* working directory */
	bool keep;               /* files stay (keep_dir) */
	bool dir_made;           /* a private mkdtemp directory, removed by charts_close */
	char *gnuplot;           /* resolved absolute program path, NULL when not found */
	int timeout_s;
	int n;                   /* charts written so far (file stem chart-NN) */
	struct chart_job *jobs;  /* [n]: chart number k is jobs[k - 1] */
	size_t jobs_cap;
	int ran;                 /* charts already handed to charts_run */
	int runs;                /* gnuplot processes started (tests, benchmarks) */
};

void chart_init(struct chart *c);
/* (libxlsxwriter, which the workbook writer links, exports a chart_add_series of its own: ours is
 * linked under another name) */
#define chart_add_series iopsy_chart_add_series
/* Adds a series (points copied and downsampled to CHART_MAX_POINTS); false when full or when the
 * series has no value. */
bool chart_add_series(struct chart *c, const char *label, int panel, enum chart_style style, int color,
		      const struct chart_point *p, size_t n);
/* Adds a scatter series of (x[i], y[i]); more than CHART_MAX_POINTS pairs are thinned evenly,
 * keeping the pairs with the largest x and the largest y. */
bool chart_add_scatter(struct chart *c, const char *label, int panel, int color, const double *x, const double *y,
		       size_t n);
void chart_free(struct chart *c);

/* Prepares a charts session: resolves gnuplot and creates the working directory. Returns 0,
 * CHARTS_NO_GNUPLOT (the session is still usable: with keep_dir it writes data and scripts so
 * they can be run elsewhere, otherwise it renders nothing) or ERR_IO. On failure the reason is
 * appended to why: a value the caller words its message and the report's note with (charts print
 * nothing themselves). */
int charts_open(struct charts *cs, const struct chart_opts *o, struct buf *why);
/* All the charts of a report are drawn by one gnuplot process: charts_add writes each chart's
 * files and gives it its number, charts_run draws every chart added since the last run, and
 * charts_take hands each result over. A chart gnuplot fails on costs only itself: the process is
 * started again for the charts after it. */

/* Writes chart-NN.dat and chart-NN.gp for a later charts_run and returns the chart number NN
 * (1, 2, ...). A chart whose files cannot be written is already failed (ERR_IO; charts_take says
 * why); without gnuplot the files are written (with keep_dir) and the result is CHARTS_NO_GNUPLOT. */
int charts_add(struct charts *cs, const struct chart *c);
/* Draws the charts added since the last run: one gnuplot process runs them all in order (a
 * "reset" between two charts, so each looks as if drawn alone) within timeout_s x their number;
 * when it fails on a chart, a new process draws the charts after that one. Never fails as a whole:
 * each chart has its own result. */
void charts_run(struct charts *cs);
/* The result of chart number (after charts_run): 0 with its SVG appended to out (prolog stripped,
 * ids made unique with the prefix "cNN-"), or, when the chart asked for PNG, the PNG bytes as they
 * are; else CHARTS_NO_GNUPLOT, CHARTS_FAILED or ERR_IO with the reason appended to why. The SVG is
 * read from gnuplot's file here, one chart at a time (then removed, except in keep_dir): take each
 * chart once. */
int charts_take(struct charts *cs, int number, struct buf *out, struct buf *why);
/* One chart at once: charts_add, charts_run and charts_take. The chart number used is stored in
 * *number. Returns as charts_take. */
int charts_render(struct charts *cs, const struct chart *c, struct buf *svg, int *number, struct buf *why);
/* Removes the private directory and everything charts_render left in it (nothing in keep_dir). */
void charts_close(struct charts *cs);

/* Pieces exposed for tests. */
/* Merges runs of adjacent points so that at most max_points remain: t of the run's first point,
 * mean of the means, min of the mins, max of the maxes (NaN ignored), so spikes and dips survive.
 * Returns the number written to out (which holds max_points). */
size_t chart_downsample(const struct chart_point *in, size_t n, struct chart_point *out, size_t max_points);
/* The gnuplot script of chart c whose files are named STEM.dat / STEM.svg (stem is generated,
 * e.g. "chart-07"). */
void chart_script(const struct chart *c, const char *stem, struct buf *out);
/* Appends v as printf's "%.3f" (fixed3) or "%.6g" writes it, byte for byte; printf itself is
 * only asked when the fast path cannot decide the rounding (the data files' numbers). */
void chart_num(struct buf *b, double v, bool fixed3);
/* Appends s as a gnuplot single-quoted string: ' doubled, control characters become spaces. */
void gp_quote(struct buf *b, const char *s);
/* Appends gnuplot's SVG to out for inlining in HTML: drops everything before <svg, <title> and
 * <desc> elements, and any <script>; prefixes every id and every #reference with prefix.
 * Returns 0 or ERR_FORMAT when it is not an SVG document. */
int svg_inline(const char *svg, size_t n, const char *prefix, struct buf *out);

#endif
