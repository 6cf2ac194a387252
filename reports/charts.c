/* charts.c — gnuplot charts as a child process: data + script files in a private directory,
 * fork/execv with an argv (no shell, no PATH search by the exec call), a timeout, the status
 * checked, and the SVG made safe to inline several times in one HTML page. */
#include "charts.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* The default look; written as style.gp next to the scripts (kept when it already exists in
 * --gnuplot-dir, so a restyled file is used by the next run). */
static const char style_gp[] =
	"# style.gp - colours, fonts and line widths of iopsy's charts (gnuplot 5).\n"
	"# Every chart-NN.gp loads this file: edit it, then run 'gnuplot chart-NN.gp' in this folder to\n"
	"# redraw chart-NN.svg, or re-run 'iopsy analyze --gnuplot-dir THIS-FOLDER ...': an existing\n"
	"# style.gp is kept and used for every chart of the new report.\n"
	"font_spec = 'Helvetica,13'\n"
	"bg_color = '#ffffff'\n"
	"text_color = '#4a5366'\n"
	"grid_color = '#e6e9ef'\n"
	"window_color = '#fdf0d9'\n"
	"threshold_color = '#b42318'\n"
	"c1 = '#1f5fa8'\n"
	"c2 = '#d9730d'\n"
	"c3 = '#2f855a'\n"
	"c4 = '#7a4fb3'\n"
	"c5 = '#8a6d00'\n"
	"c6 = '#0e7490'\n"
	"c7 = '#9f1239'\n"
	"c8 = '#4b5563'\n"
	"band_alpha = 0.16\n"
	"line_width = 1.5\n"
	"# comparisons: the before and after sides (before is also dashed, thicker, with open points, so\n"
	"# the two stay apart in greyscale and print: mid-tone vermillion against dark blue)\n"
	"before_color = '#d55e00'\n"
	"after_color = '#08306b'\n";

void chart_init(struct chart *c)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < CHART_MAX_PANELS; i++)
		c->panel[i].threshold = NAN;
	for (int i = 0; i < CHART_MAX_PANELS; i++)
		c->panel[i].ymax = NAN;
	for (int i = 0; i < CHART_MAX_PANELS; i++)
		c->panel[i].threshold2 = NAN;
	c->shade0 = c->shade1 = NAN;
	c->width = 960;
	c->panel_height = 170;
}

void chart_free(struct chart *c)
{
	for (int i = 0; i < c->ns; i++)
		free(c->s[i].p);
	c->ns = 0;
}

static double nan_min(double a, double b) { return isnan(a) ? b : isnan(b) ? a : a < b ? a : b; }
static double nan_max(double a, double b) { return isnan(a) ? b : isnan(b) ? a : a > b ? a : b; }

size_t chart_downsample(const struct chart_point *in, size_t n, struct chart_point *out, size_t max_points)
{
	if (!n || !max_points)
		return 0;
	size_t per = (n + max_points - 1) / max_points;
	size_t o = 0;
	for (size_t i = 0; i < n; i += per) {
		size_t end = i + per < n ? i + per : n;
		struct chart_point p = {in[i].t, NAN, NAN, NAN};
		double sum = 0;
		size_t cnt = 0;
		for (size_t k = i; k < end; k++) {
			if (!isnan(in[k].mean)) {
				sum += in[k].mean;
				cnt++;
			}
			p.min = nan_min(p.min, nan_min(in[k].min, in[k].mean));
			p.max = nan_max(p.max, nan_max(in[k].max, in[k].mean));
		}
		p.mean = cnt ? sum / (double)cnt : NAN;
		if (isnan(p.mean))
			p.min = p.max = NAN;
		out[o++] = p;
	}
	return o;
}

bool chart_add_series(struct chart *c, const char *label, int panel, enum chart_style style, int color,
		      const struct chart_point *p, size_t n)
{
	if (c->ns >= CHART_MAX_SERIES || panel < 0 || panel >= CHART_MAX_PANELS)
		return false;
	bool any = false;
	for (size_t i = 0; i < n && !any; i++)
		any = !isnan(p[i].mean);
	if (!any)
		return false;
	struct chart_series *s = &c->s[c->ns];
	s->p = xmalloc(CHART_MAX_POINTS * sizeof *s->p);
	s->n = chart_downsample(p, n, s->p, CHART_MAX_POINTS);
	s->label = label;
	s->panel = panel;
	s->style = style;
	s->color = color;
	c->ns++;
	if (panel >= c->npanels)
		c->npanels = panel + 1;
	return true;
}

bool chart_add_scatter(struct chart *c, const char *label, int panel, int color, const double *x, const double *y, size_t n)
{
	if (c->ns >= CHART_MAX_SERIES || panel < 0 || panel >= CHART_MAX_PANELS || !n)
		return false;
	size_t ix = 0, iy = 0;
	for (size_t i = 1; i < n; i++) {
		if (x[i] > x[ix])
			ix = i;
		if (y[i] > y[iy])
			iy = i;
	}
	struct chart_series *s = &c->s[c->ns];
	s->p = xmalloc((CHART_MAX_POINTS + 2) * sizeof *s->p);
	size_t step = (n + CHART_MAX_POINTS - 3) / (CHART_MAX_POINTS - 2), o = 0;
	if (step < 1)
		step = 1;
	for (size_t i = 0; i < n && o < CHART_MAX_POINTS - 2; i += step)
		if (i != ix && i != iy && !isnan(x[i]) && !isnan(y[i]))
			s->p[o++] = (struct chart_point){x[i], y[i], y[i], y[i]};
	s->p[o++] = (struct chart_point){x[ix], y[ix], y[ix], y[ix]};
	if (iy != ix)
		s->p[o++] = (struct chart_point){x[iy], y[iy], y[iy], y[iy]};
	s->n = o;
	s->label = label;
	s->panel = panel;
	s->style = CS_POINTS;
	s->color = color;
	c->ns++;
	if (panel >= c->npanels)
		c->npanels = panel + 1;
	return true;
}

void gp_quote(struct buf *b, const char *s)
{
	buf_addc(b, '\'');
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p; p++) {
		if (*p == '\'')
			buf_add(b, "''", 2);
		else if (*p < 0x20 || *p == 0x7f)
			buf_addc(b, ' ');
		else
			buf_addc(b, (char)*p);
	}
	buf_addc(b, '\'');
}

/* A round axis maximum at or above v: 1, 2, 2.5, 5 x 10^k. */
static double nice_ceil(double v)
{
	if (!(v > 0) || !isfinite(v))
		return 1;
	double e = pow(10, floor(log10(v)));
	static const double steps[] = {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if (steps[i] * e >= v * 0.9999)
			return steps[i] * e;
	return 10 * e;
}

/* A time tic step giving at most ~10 tics over span seconds. */
static double tic_step(double span)
{
	static const double steps[] = {10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
				       172800, 604800};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if (span / steps[i] <= 10)
			return steps[i];
	return ceil(span / 10 / 604800) * 604800;
}

static void colour(struct buf *out, const struct chart_series *s, int i)
{
	if (s->color == CHART_BEFORE)
		buf_adds(out, "before_color");
	else if (s->color == CHART_AFTER)
		buf_adds(out, "after_color");
	else
		buf_printf(out, "c%d", (s->color >= 1 && s->color <= 8 ? s->color - 1 : i % 8) + 1);
}

/* A categorical x axis: a tic per category with its label (trusted: made from numbers), slanted
 * when many, and the bars' width. */
static void cat_axis(const struct chart *c, struct buf *out)
{
	if (c->ncats <= 0)
		return;
	buf_adds(out, "set xtics (");
	for (int k = 0; k < c->ncats && k < CHART_MAX_CATS; k++) {
		buf_adds(out, k ? ", " : "");
		gp_quote(out, c->cat[k]);
		buf_printf(out, " %d", k);
	}
	buf_printf(out, ")%s\nset boxwidth %.3f absolute\n", c->ncats > 8 ? " rotate by -35" : "",
		   c->boxwidth > 0 ? c->boxwidth : 0.8);
}

/* A series drawn as marks (points, bars), not a line: its plot clause; false for a line. */
static bool marks(struct buf *out, const char *stem, const struct chart_series *s, int i)
{
	if (s->style == CS_POINTS)
		buf_printf(out, "'%s.dat' index %d using 1:2 with points pt %d ps 0.35 lc rgb ", stem, i,
			   s->color == CHART_BEFORE ? 6 : 7);
	else if (s->style == CS_BARS)
		buf_printf(out, "'%s.dat' index %d using 1:2 with boxes fs solid 0.85 noborder lc rgb ", stem, i);
	else
		return false;
	colour(out, s, i);
	return true;
}

static void sep(struct buf *out, bool *first)
{
	if (!*first)
		buf_adds(out, ", \\\n     ");
	*first = false;
}

/* "13:05" or "07-27 13:05" of UTC seconds t shifted by off seconds. */
static void tic_text(struct buf *out, double t, int32_t off, bool with_date, bool with_seconds)
{
	char s[32];
	time_format_iso((int64_t)llround(t) * 1000 + (int64_t)off * 1000, false, s);
	if (with_date)
		buf_printf(out, "%.5s ", s + 5);
	buf_printf(out, "%.*s", with_seconds ? 8 : 5, s + 11);
}

/* The time axis' tics as an explicit list: UTC on the first line and, with a local zone, the local
 * time below (each tic with the offset in force at it, so a DST change shows); labels only on the
 * bottom panel. Only digits, colons and dashes reach gnuplot here. */
static void time_tics(const struct chart *c, double step, bool labels, bool with_date, bool with_seconds, struct buf *out)
{
	buf_adds(out, "set xtics (");
	double t = ceil(c->t0 / step) * step;
	for (int n = 0; t <= c->t1 + 1e-6 && n < 64; t += step, n++) {
		buf_adds(out, n ? ", \"" : "\"");
		if (labels) {
			tic_text(out, t, 0, with_date, with_seconds);
			if (c->ltz) {
				buf_adds(out, "\\n");
				int64_t at = c->time_of_day ? c->tod_ref_s : (int64_t)llround(t);
				tic_text(out, t, tz_offset_at(c->ltz, at, NULL), with_date, with_seconds);
			}
		}
		buf_printf(out, "\" %.0f", t);
	}
	buf_adds(out, ")\n");
}

/* "27 Jul 2026, UTC (top) and local time UTC-07:00 (below)": the date and the zones of a time axis. */
static void time_xlabel(const struct chart *c, struct buf *out)
{
	static const char *const mon[12] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
	char a[32], b[32];
	time_format_iso((int64_t)llround(c->t0) * 1000, false, a);
	time_format_iso((int64_t)llround(c->t1) * 1000, false, b);
	struct buf l;
	buf_init(&l);
	int y = 0, m = 1, d = 1, y2 = 0, m2 = 1, d2 = 1;
	if (c->time_of_day)
		buf_adds(&l, "time of day");
	else if (sscanf(a, "%d-%d-%d", &y, &m, &d) == 3 && sscanf(b, "%d-%d-%d", &y2, &m2, &d2) == 3 && m >= 1 && m <= 12 &&
	    m2 >= 1 && m2 <= 12) {
		buf_printf(&l, "%d %s %d", d, mon[m - 1], y);
		if (strncmp(a, b, 10) != 0)
			buf_printf(&l, " - %d %s %d", d2, mon[m2 - 1], y2);
	}
	if (c->ltz) {
		const char *ab = "";
		char zb[24];
		int32_t off = tz_offset_at(c->ltz, c->time_of_day ? c->tod_ref_s : (int64_t)llround(c->t0), &ab);
		if (c->ltz_label[0])
			snprintf(zb, sizeof zb, "%s", c->ltz_label);
		else if (ab && ab[0] >= 'A' && ab[0] <= 'Z')
			snprintf(zb, sizeof zb, "%.15s", ab);
		else
			snprintf(zb, sizeof zb, "UTC%c%02d:%02d", off < 0 ? '-' : '+', abs(off) / 3600 % 100, abs(off) % 3600 / 60);
		buf_printf(&l, ": UTC above, local time (%s) below", zb);
	} else {
		buf_adds(&l, " (UTC)");
	}
	buf_adds(out, "set xlabel ");
	gp_quote(out, l.data);
	buf_printf(out, " offset 0,%s textcolor rgb text_color\n", c->ltz ? "-0.9" : "-0.2");
	buf_free(&l);
}

/* A key row's height and a key column's width at style.gp's font (Helvetica 13, samplen 2):
 * generous, so an estimate never leaves a row without room. */
#define KEY_ROW_PX 19
static int key_col_px(size_t chars) { return (int)chars * 11 + 50; }

/* Panel p's y range: 0 .. a round number above the data and the threshold; the data's alone when
 * they lie far below every threshold (a 0.4 ms line on a 0-60 ms axis lies on the axis): the
 * thresholds' legends (into tl) then say they are above the scale. */
static double panel_ymax(const struct chart *c, int p, char tl[2][96])
{
	double thr = nan_max(c->panel[p].threshold, c->panel[p].threshold2), dmax = NAN;
	for (int i = 0; i < c->ns; i++) {
		if (c->s[i].panel != p)
			continue;
		for (size_t k = 0; k < c->s[i].n; k++) {
			const struct chart_point *pt = &c->s[i].p[k];
			if (pt->t < c->t0 || pt->t > c->t1)
				continue;
			dmax = nan_max(dmax, c->s[i].style == CS_BAND ? nan_max(pt->max, pt->mean) : pt->mean);
		}
	}
	double tmin = c->panel[p].threshold;
	if (isnan(tmin) || (!isnan(c->panel[p].threshold2) && c->panel[p].threshold2 < tmin))
		tmin = c->panel[p].threshold2;
	bool below = !isnan(tmin) && !isnan(dmax) && dmax > 0 && dmax * 4 < tmin;
	double ymax = below ? dmax : nan_max(thr, dmax);
	ymax = isnan(c->panel[p].ymax) ? nice_ceil(isnan(ymax) ? 1 : ymax * 1.04) : c->panel[p].ymax;
	const double tv[2] = {c->panel[p].threshold, c->panel[p].threshold2};
	const char *tlab[2] = {c->panel[p].threshold_label, c->panel[p].threshold2_label};
	for (int k = 0; k < 2; k++)
		snprintf(tl[k], 96, "%s%s", tlab[k], !isnan(tv[k]) && tv[k] > ymax ? " (above this scale)" : "");
	return ymax;
}

/* The titled entries of panel p's key (as chart_script titles them), its columns across width
 * pixels (*cols) and so its rows. */
static int key_rows(const struct chart *c, int p, double width, int *cols)
{
	size_t n = 0, widest = 0;
	for (int i = 0; i < c->ns; i++) {
		const struct chart_series *s = &c->s[i];
		if (s->panel != p)
			continue;
		bool seen = false;
		for (int k = 0; k < i && !seen; k++)
			seen = c->s[k].panel < p && strcmp(c->s[k].label, s->label) == 0;
		if (seen)
			continue;
		n++;
		widest = strlen(s->label) > widest ? strlen(s->label) : widest;
	}
	if (!isnan(c->panel[p].threshold)) {
		n++;
		widest = strlen(c->panel[p].threshold_label) > widest ? strlen(c->panel[p].threshold_label) : widest;
	}
	if (!isnan(c->panel[p].threshold2)) {
		n++;
		widest = strlen(c->panel[p].threshold2_label) > widest ? strlen(c->panel[p].threshold2_label) : widest;
	}
	int fit = (int)(width / key_col_px(widest));
	*cols = fit < 1 ? 1 : fit;
	return n ? (int)((n + (size_t)*cols - 1) / (size_t)*cols) : 1;
}

void chart_script(const struct chart *c, const char *stem, struct buf *out)
{
	int np = c->npanels > 0 ? c->npanels : 1;
	if (np > CHART_MAX_PANELS)
		np = CHART_MAX_PANELS;
	const int bottom = c->ncats ? 100 : c->xnumeric ? 58 : c->ltz ? 84 : 56;
	const int ph = c->panel_height > 40 ? c->panel_height : 170;
	const double W = c->width;
	/* room above each panel for its key (drawn above the plot, horizontal): the columns that fit
	 * the plot's width, so the rows are known and none is cut off at the top */
	int kcols[CHART_MAX_PANELS], room[CHART_MAX_PANELS], height = ph * np + bottom;
	for (int p = 0; p < np && p < CHART_MAX_PANELS; p++) {
		int rows = key_rows(c, p, W - 90, &kcols[p]);
		room[p] = p == 0 ? (rows > 1 ? 12 + rows * KEY_ROW_PX : 30) : (rows > 1 ? 24 + rows * KEY_ROW_PX : 42);
		height += room[p];
	}
	double span = c->t1 - c->t0 > 0 ? c->t1 - c->t0 : 1;
	double step = tic_step(span);
	bool tic_date = span > 2 * 86400, tic_secs = step < 60;

	buf_printf(out, "# iopsy chart: data in %s.dat (one block per series: x, mean, min, max),\n", stem);
	buf_adds(out, "# colours and fonts in style.gp. Run 'gnuplot ");
	buf_printf(out, "%s.gp' in this folder to redraw %s.svg.\n", stem, stem);
	buf_adds(out, "load 'style.gp'\n");
	buf_adds(out, "if (!exists(\"before_color\")) before_color = '#d55e00'\n"
		      "if (!exists(\"after_color\")) after_color = '#08306b'\n");
	if (c->png) {
		buf_printf(out, "set terminal pngcairo size %d,%d noenhanced font font_spec background bg_color\n", c->width,
			   height);
		buf_printf(out, "set output '%s.png'\n", stem);
	} else {
		buf_printf(out, "set terminal svg size %d,%d dynamic noenhanced font font_spec background bg_color\n",
			   c->width, height);
		buf_printf(out, "set output '%s.svg'\n", stem);
	}
	buf_adds(out, "set encoding utf8\n"
		      "set border 3 lc rgb text_color\n"
		      "set tics nomirror textcolor rgb text_color\n"
		      "set grid ytics lc rgb grid_color lw 1 dt 1\n"
		      "set style fill transparent solid band_alpha noborder\n"
		      "set key at graph 0, graph 1.0 left bottom horizontal reverse Left textcolor rgb text_color "
		      "samplen 2 spacing 1 width -2 noopaque nobox\n"
		      "set ylabel textcolor rgb text_color offset 1,0\n");
	if (c->xnumeric) {
		if (c->xlog)
			buf_adds(out, "set logscale x 10\nset grid xtics mxtics lc rgb grid_color lw 1 dt 1\n");
		buf_printf(out, "set xrange [%.6g:%.6g]\n", c->t0, c->t1);
		buf_adds(out, "set xlabel ");
		gp_quote(out, c->xlabel);
		buf_adds(out, " textcolor rgb text_color\n");
		cat_axis(c, out);
	} else {
		buf_printf(out, "set xrange [%.3f:%.3f]\n", c->t0, c->t1);
	}
	if (!isnan(c->shade0) && !isnan(c->shade1) && c->shade1 > c->shade0)
		buf_printf(out,
			   "set object 1 rect from %.3f, graph 0 to %.3f, graph 1 behind fillcolor rgb window_color "
			   "fillstyle solid 1.0 noborder\n",
			   c->shade0 > c->t0 ? c->shade0 : c->t0, c->shade1 < c->t1 ? c->shade1 : c->t1);
	buf_adds(out, "set multiplot\n");
	int y_at = height;
	for (int p = 0; p < np; p++) {
		char tl[2][96];
		double ymax = panel_ymax(c, p, tl);
		y_at -= room[p];
		double y_top = (double)y_at / height;
		y_at -= ph;
		double y_bot = (double)y_at / height;
		buf_printf(out, "# panel %d\n", p + 1);
		buf_printf(out, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n", 70 / W, (W - 20) / W);
		buf_printf(out, "set tmargin at screen %.4f\nset bmargin at screen %.4f\n", y_top, y_bot);
		buf_printf(out, "set key maxcols %d\n", kcols[p]);
		buf_adds(out, "set ylabel ");
		gp_quote(out, c->panel[p].ylabel);
		buf_addc(out, '\n');
		buf_printf(out, "set yrange [0:%.6g]\n", ymax);
		if (!c->xnumeric)
			time_tics(c, step, p == np - 1, tic_date, tic_secs, out);
		else if (p < np - 1)
			buf_adds(out, "set format x ''\n");
		else
			buf_adds(out, "set format x '%g'\n");
		if (!c->xnumeric && p < np - 1)
			buf_adds(out, "unset xlabel\n");
		else if (!c->xnumeric)
			time_xlabel(c, out);
		buf_adds(out, "plot ");
		bool first = true;
		int lead = -1, lines = 0;
		for (int i = 0; i < c->ns; i++) {
			const struct chart_series *s = &c->s[i];
			if (s->panel != p)
				continue;
			if (s->style == CS_BAND) {
				sep(out, &first);
				buf_printf(out, "'%s.dat' index %d using 1:3:4 with filledcurves fc rgb ", stem, i);
				colour(out, s, i);
				buf_adds(out, " notitle");
			}
			sep(out, &first);
			if (!marks(out, stem, s, i)) {
				buf_printf(out, "'%s.dat' index %d using 1:2 with lines lc rgb ", stem, i);
				colour(out, s, i);
				buf_adds(out, s->style == CS_DASHED ? " lw line_width dt (5,3)"
					      : s->color == CHART_BEFORE ? " lw line_width*1.6 dt (7,3)" : " lw line_width");
				lines++;
				if (lead < 0)
					lead = i;
			}
			/* a label already in an earlier panel's key (before/after overlays) is not repeated */
			bool seen = false;
			for (int k = 0; k < i && !seen; k++)
				seen = c->s[k].panel < p && strcmp(c->s[k].label, s->label) == 0;
			if (seen) {
				buf_adds(out, " notitle");
			} else {
				buf_adds(out, " title ");
				gp_quote(out, s->label);
			}
		}
		/* the panel's first line is the one the rule is about: draw it again on top */
		if (lines > 1 && lead >= 0) {
			sep(out, &first);
			buf_printf(out, "'%s.dat' index %d using 1:2 with lines lc rgb ", stem, lead);
			colour(out, &c->s[lead], lead);
			buf_adds(out, c->s[lead].style == CS_DASHED	     ? " lw line_width dt (5,3) notitle"
				      : c->s[lead].color == CHART_BEFORE ? " lw line_width*1.6 dt (7,3) notitle"
									 : " lw line_width notitle");
		}
		if (!isnan(c->panel[p].threshold)) {
			sep(out, &first);
			buf_printf(out, "%.6g with lines lc rgb threshold_color lw 1.2 dt (7,4) title ", c->panel[p].threshold);
			gp_quote(out, tl[0]);
		}
		if (!isnan(c->panel[p].threshold2)) {
			sep(out, &first);
			buf_printf(out, "%.6g with lines lc rgb threshold_color lw 1.6 dt (2,3) title ", c->panel[p].threshold2);
			gp_quote(out, tl[1]);
		}
		if (first) /* nothing in this panel: keep the layout */
			buf_adds(out, "NaN notitle");
		buf_addc(out, '\n');
	}
	buf_adds(out, "unset multiplot\n");
}

/* ---- numbers for the data files ---- */

static const double pow10_tab[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
				     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Writes the decimal digits of v, at least min digits (zero-padded); returns the end. */
static char *put_digits(char *p, uint64_t v, int min)
{
	char tmp[24];
	int n = 0;
	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n < min)
		tmp[n++] = '0';
	while (n)
		*p++ = tmp[--n];
	return p;
}

/* "%.3f" of x into p (room for 32 bytes); false when the double arithmetic cannot decide the
 * rounding. x * 1000 is one correctly rounded product, off the exact value by at most half an ulp
 * (2^-12 below 2^42); away from the halfway point that cannot change the rounded integer. */
static bool fixed3_fast(double x, char **pp)
{
	if (!isfinite(x))
		return false;
	double ax = fabs(x);
	if (ax >= 4e9)
		return false;
	double y = ax * 1000.0, fl = floor(y), f = y - fl;
	if (fabs(f - 0.5) <= 0x1p-10)
		return false;
	uint64_t k = (uint64_t)fl + (f > 0.5);
	char *p = *pp;
	if (signbit(x))
		*p++ = '-';
	p = put_digits(p, k / 1000, 1);
	*p++ = '.';
	p = put_digits(p, k % 1000, 3);
	*pp = p;
	return true;
}

/* "%.6g" of x into p (room for 32 bytes); false when it must go to printf. The six significant
 * digits are |x| scaled by an exact power of ten (one correctly rounded operation, off by at most
 * half an ulp, 2^-34 below 10^6), rounded to an integer unless too close to a halfway point. */
static bool g6_fast(double x, char **pp)
{
	if (!isfinite(x))
		return false;
	char *p = *pp;
	if (x == 0) {
		if (signbit(x))
			*p++ = '-';
		*p++ = '0';
		*pp = p;
		return true;
	}
	double ax = fabs(x);
	int e = (int)floor(log10(ax));
	double y = 0;
	bool ok = false;
	for (int tries = 0; tries < 3 && !ok; tries++) {
		int sc = 5 - e;
		if (sc > 22 || sc < -22)
			return false;
		y = sc >= 0 ? ax * pow10_tab[sc] : ax / pow10_tab[-sc];
		if (y >= 1e6)
			e++;
		else if (y < 1e5)
			e--;
		else
			ok = true;
	}
	if (!ok)
		return false;
	double fl = floor(y), f = y - fl;
	if (fabs(f - 0.5) <= 1e-9)
		return false;
	uint32_t k = (uint32_t)fl + (f > 0.5);
	if (k == 1000000) {
		k = 100000;
		e++;
	}
	char d[6];
	for (int i = 5; i >= 0; i--) {
		d[i] = (char)('0' + k % 10);
		k /= 10;
	}
	int nd = 6;
	while (nd > 1 && d[nd - 1] == '0')
		nd--;
	if (signbit(x))
		*p++ = '-';
	if (e < -4 || e >= 6) {
		*p++ = d[0];
		if (nd > 1) {
			*p++ = '.';
			for (int i = 1; i < nd; i++)
				*p++ = d[i];
		}
		*p++ = 'e';
		*p++ = e < 0 ? '-' : '+';
		p = put_digits(p, (uint64_t)(e < 0 ? -e : e), 2);
	} else if (e >= 0) {
		for (int i = 0; i <= e; i++)
			*p++ = d[i];
		if (nd > e + 1) {
			*p++ = '.';
			for (int i = e + 1; i < nd; i++)
				*p++ = d[i];
		}
	} else {
		*p++ = '0';
		*p++ = '.';
		for (int i = 0; i < -e - 1; i++)
			*p++ = '0';
		for (int i = 0; i < nd; i++)
			*p++ = d[i];
	}
	*pp = p;
	return true;
}

void chart_num(struct buf *b, double v, bool fixed3)
{
	char tmp[64], *p = tmp;
	if (fixed3 ? fixed3_fast(v, &p) : g6_fast(v, &p)) {
		buf_add(b, tmp, (size_t)(p - tmp));
		return;
	}
	buf_printf(b, fixed3 ? "%.3f" : "%.6g", v);
}

static void write_data(const struct chart *c, struct buf *out)
{
	for (int i = 0; i < c->ns; i++) {
		if (i)
			buf_adds(out, "\n\n");
		buf_printf(out, "# series %d: ", i);
		buf_add_text_escaped(out, c->s[i].label, strlen(c->s[i].label));
		buf_adds(out, "\n");
		bool prev_data = false;
		for (size_t k = 0; k < c->s[i].n; k++) {
			const struct chart_point *p = &c->s[i].p[k];
			if (isnan(p->mean)) {
				if (prev_data)
					buf_addc(out, '\n'); /* one blank line: a gap, not a new block */
				prev_data = false;
				continue;
			}
			/* as "%.3f %.6g %.6g %.6g\n" */
			chart_num(out, p->t, true);
			buf_addc(out, ' ');
			chart_num(out, p->mean, false);
			buf_addc(out, ' ');
			chart_num(out, isnan(p->min) ? p->mean : p->min, false);
			buf_addc(out, ' ');
			chart_num(out, isnan(p->max) ? p->mean : p->max, false);
			buf_addc(out, '\n');
			prev_data = true;
		}
	}
}

/* ---- files ---- */

#define JOB_PENDING 1            /* added, not yet run */

struct chart_job {
	int rc;                  /* JOB_PENDING, 0 (drawn: the file is read by charts_take),
	                          * CHARTS_NO_GNUPLOT, CHARTS_FAILED or ERR_IO */
	bool png;
	struct buf why;
};

static char *path_join(const char *dir, const char *name)
{
	struct buf b;
	buf_init(&b);
	buf_adds(&b, dir);
	buf_addc(&b, '/');
	buf_adds(&b, name);
	return b.data;
}

static int file_write(const char *path, const char *data, size_t n, struct buf *why)
{
	FILE *fp = fopen(path, "w");
	if (!fp) {
		buf_printf(why, "cannot create %s: %s", path, strerror(errno));
		return ERR_IO;
	}
	bool ok = fwrite(data, 1, n, fp) == n;
	int e = errno;
	if (fclose(fp) != 0 && ok) {
		ok = false;
		e = errno;
	}
	if (!ok) {
		buf_printf(why, "cannot write %s: %s", path, strerror(e));
		return ERR_IO;
	}
	return 0;
}

static int file_read(const char *path, struct buf *out, size_t limit)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return ERR_IO;
	char chunk[16384];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
		if (out->len + n > limit) {
			fclose(fp);
			return ERR_LIMIT;
		}
		buf_add(out, chunk, n);
	}
	int rc = ferror(fp) ? ERR_IO : 0;
	fclose(fp);
	return rc;
}

/* An executable regular file? */
static bool is_exec(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Resolves a program name like execvp would, without ever falling back to a shell. */
static char *find_program(const char *name)
{
	if (!name || !*name)
		return NULL;
	if (strchr(name, '/'))
		return is_exec(name) ? xstrdup(name) : NULL;
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		if (len) {
			char *dir = xstrndup(path, len);
			char *full = path_join(dir, name);
			free(dir);
			if (is_exec(full))
				return full;
			free(full);
		}
		path += len;
		if (*path == ':')
			path++;
	}
	return NULL;
}

int charts_open(struct charts *cs, const struct chart_opts *o, struct buf *why)
{
	memset(cs, 0, sizeof *cs);
	cs->timeout_s = o->timeout_s > 0 ? o->timeout_s : 30;
	const char *prog = o->gnuplot ? o->gnuplot : getenv("IOPSY_GNUPLOT");
	cs->gnuplot = find_program(prog && *prog ? prog : "gnuplot");
	if (o->keep_dir) {
		if (dir_make(o->keep_dir) != 0) {
			buf_printf(why, "cannot create the gnuplot folder %s: %s", o->keep_dir, strerror(errno));
			return ERR_IO;
		}
		struct stat st;
		if (stat(o->keep_dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
			buf_printf(why, "%s is not a folder (--gnuplot-dir)", o->keep_dir);
			return ERR_IO;
		}
		cs->dir = xstrdup(o->keep_dir);
		cs->keep = true;
	} else {
		if (!cs->gnuplot)
			return CHARTS_NO_GNUPLOT;
		const char *tmp = getenv("TMPDIR");
		char *tmpl = path_join(tmp && *tmp == '/' ? tmp : "/tmp", "iopsy-charts-XXXXXX");
		if (!mkdtemp(tmpl)) {
			buf_printf(why, "cannot create a temporary folder for the charts: %s", strerror(errno));
			free(tmpl);
			return ERR_IO;
		}
		cs->dir = tmpl;
		cs->dir_made = true;
	}
	char *style = path_join(cs->dir, "style.gp");
	int rc = 0;
	if (!cs->keep || access(style, F_OK) != 0)
		rc = file_write(style, style_gp, sizeof style_gp - 1, why);
	free(style);
	if (rc < 0) {
		charts_close(cs);
		return rc;
	}
	return cs->gnuplot ? 0 : CHARTS_NO_GNUPLOT;
}

static char *chart_path(const struct charts *cs, int no, const char *ext);

void charts_close(struct charts *cs)
{
	/* what charts_run and charts_take have not removed (charts never run or never taken) */
	static const char *const ext[] = {".dat", ".gp", ".svg", ".png"};
	for (int no = 1; cs->dir && !cs->keep && no <= cs->n; no++)
		for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
			char *path = chart_path(cs, no, ext[i]);
			unlink(path);
			free(path);
		}
	if (cs->dir && cs->dir_made) {
		char *style = path_join(cs->dir, "style.gp");
		unlink(style);
		free(style);
		rmdir(cs->dir);
	}
	for (int i = 0; i < cs->n; i++)
		buf_free(&cs->jobs[i].why);
	free(cs->jobs);
	free(cs->dir);
	free(cs->gnuplot);
	memset(cs, 0, sizeof *cs);
}

/* ---- running gnuplot ---- */

/* The environment of the child: ours, with HOME pointing at the chart folder so a user's
 * ~/.gnuplot cannot change the charts. Caller frees the array and its one allocated string. */
static char **child_env(const char *dir, char **home_out)
{
	size_t n = 0;
	while (environ && environ[n])
		n++;
	char **env = xcalloc(n + 2, sizeof *env);
	size_t o = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "HOME=", 5) != 0)
			env[o++] = environ[i];
	struct buf h;
	buf_init(&h);
	buf_adds(&h, "HOME=");
	buf_adds(&h, dir);
	env[o++] = h.data;
	env[o] = NULL;
	*home_out = h.data;
	return env;
}

static double mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Runs "gnuplot SCRIPT" in the chart folder; stdout and stderr go to LOG there. The child is
 * killed at deadline (mono_now() seconds); *timed_out then says so and the caller words it. */
static int run_gnuplot(const struct charts *cs, const char *script, const char *log, double deadline, bool *timed_out,
		       struct buf *why)
{
	*timed_out = false;
	char *argv[] = {(char *)"gnuplot", (char *)(uintptr_t)script, NULL};
	char *home;
	char **env = child_env(cs->dir, &home);
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0) {
		buf_printf(why, "pipe: %s", strerror(errno));
		free(home);
		free(env);
		return ERR_IO;
	}
	pid_t pid = fork();
	if (pid < 0) {
		buf_printf(why, "cannot start gnuplot: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		free(home);
		free(env);
		return ERR_IO;
	}
	if (pid == 0) {
		/* child: only async-signal-safe calls */
		int e = 0;
		if (chdir(cs->dir) != 0) {
			e = errno;
		} else {
			int in = open("/dev/null", O_RDONLY);
			int lg = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (in < 0 || lg < 0 || dup2(in, 0) < 0 || dup2(lg, 1) < 0 || dup2(lg, 2) < 0) {
				e = errno;
			} else {
				execve(cs->gnuplot, argv, env);
				e = errno;
			}
		}
		ssize_t w = write(pfd[1], &e, sizeof e);
		(void)w;
		_exit(127);
	}
	close(pfd[1]);
	free(home);
	free(env);
	int child_errno = 0;
	ssize_t r;
	do
		r = read(pfd[0], &child_errno, sizeof child_errno);
	while (r < 0 && errno == EINTR);
	close(pfd[0]);
	int status = 0;
	/* poll quickly at first (gnuplot draws a chart in a few ms), then every 10 ms */
	long nap_us = 500;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			buf_printf(why, "waitpid: %s", strerror(errno));
			return ERR_IO;
		}
		if (mono_now() >= deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			*timed_out = true;
			return CHARTS_FAILED;
		}
		struct timespec ts = {0, nap_us * 1000};
		nanosleep(&ts, NULL);
		if (nap_us < 10000)
			nap_us *= 2;
	}
	if (r == (ssize_t)sizeof child_errno) {
		buf_printf(why, "cannot run %s: %s", cs->gnuplot, strerror(child_errno));
		return child_errno == ENOENT || child_errno == EACCES ? CHARTS_NO_GNUPLOT : CHARTS_FAILED;
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		if (WIFSIGNALED(status))
			buf_printf(why, "gnuplot was killed by signal %d", WTERMSIG(status));
		else
			buf_printf(why, "gnuplot exited with status %d", WEXITSTATUS(status));
		return CHARTS_FAILED;
	}
	return 0;
}

/* ---- the charts of a session ---- */

static void stem_of(int no, char *stem, size_t n)
{
	snprintf(stem, n, "chart-%02d", no);
}

static char *chart_path(const struct charts *cs, int no, const char *ext)
{
	char name[48];
	snprintf(name, sizeof name, "chart-%02d%s", no, ext);
	return path_join(cs->dir, name);
}

int charts_add(struct charts *cs, const struct chart *c)
{
	int no = ++cs->n;
	if ((size_t)no > cs->jobs_cap) {
		cs->jobs_cap = cs->jobs_cap ? 2 * cs->jobs_cap : 16;
		cs->jobs = xrealloc(cs->jobs, cs->jobs_cap * sizeof *cs->jobs);
	}
	struct chart_job *j = &cs->jobs[no - 1];
	memset(j, 0, sizeof *j);
	buf_init(&j->why);
	j->png = c->png;
	if (!cs->dir) {
		j->rc = CHARTS_NO_GNUPLOT;
		return no;
	}
	char stem[32];
	stem_of(no, stem, sizeof stem);
	char *dat = chart_path(cs, no, ".dat"), *gp = chart_path(cs, no, ".gp");
	struct buf b;
	buf_init(&b);
	write_data(c, &b);
	int rc = file_write(dat, b.data ? b.data : "", b.len, &j->why);
	if (rc == 0) {
		buf_reset(&b);
		chart_script(c, stem, &b);
		rc = file_write(gp, b.data, b.len, &j->why);
	}
	buf_free(&b);
	free(dat);
	free(gp);
	j->rc = rc < 0 ? rc : cs->gnuplot ? JOB_PENDING : CHARTS_NO_GNUPLOT;
	return no;
}

/* The batch script: every pending chart from `from` on, each followed by a line in the log that
 * says it is done. Between two charts gnuplot is brought back to the state a new process starts
 * in, so that each SVG is byte for byte the one "gnuplot chart-NN.gp" writes alone: "reset" for
 * the settings, and a "clear" into /dev/null for what reset leaves alone — the svg terminal keeps
 * the last stroke colour of a chart and would write it into the first group of the next one; a
 * new page sets it back to the default. */
static void batch_script(const struct charts *cs, int from, int to, struct buf *out)
{
	buf_adds(out, "# iopsy: draws the charts of one report in one gnuplot process (each chart-NN.gp also\n"
		      "# runs alone); 'iopsy-chart-done NN' in the log marks each chart that finished.\n");
	bool first = true;
	for (int no = from; no <= to; no++) {
		if (cs->jobs[no - 1].rc != JOB_PENDING)
			continue;
		if (!first)
			buf_adds(out, "set output '/dev/null'\nclear\nunset output\nreset\n");
		first = false;
		char stem[32];
		stem_of(no, stem, sizeof stem);
		buf_printf(out, "load '%s.gp'\nunset output\nprint 'iopsy-chart-done %d'\n", stem, no);
	}
}

/* Appends chart no's SVG (made safe to inline) or PNG to out, from the file gnuplot wrote; returns
 * 0, or CHARTS_FAILED with the reason in the job. The file is then removed (not in keep_dir). */
static int job_read(struct charts *cs, int no, struct buf *out)
{
	struct chart_job *j = &cs->jobs[no - 1];
	char stem[32];
	stem_of(no, stem, sizeof stem);
	char *path = chart_path(cs, no, j->png ? ".png" : ".svg");
	struct buf b;
	buf_init(&b);
	int r = file_read(path, &b, 64u << 20);
	if (!cs->keep)
		unlink(path);
	free(path);
	int rc = 0;
	if (j->png) {
		if (r < 0 || b.len < 8 || memcmp(b.data, "\x89PNG", 4) != 0) {
			buf_printf(&j->why, "gnuplot wrote no PNG for %s", stem);
			rc = CHARTS_FAILED;
		} else {
			buf_add(out, b.data, b.len);
		}
	} else {
		char prefix[16];
		snprintf(prefix, sizeof prefix, "c%d-", no);
		size_t at = out->len;
		if (r < 0 || svg_inline(b.data ? b.data : "", b.len, prefix, out) < 0) {
			out->len = at;
			if (out->data)
				out->data[at] = '\0';
			buf_printf(&j->why, "gnuplot wrote no usable SVG for %s", stem);
			rc = CHARTS_FAILED;
		}
	}
	buf_free(&b);
	return rc;
}

/* The charts the log says are done, in order from `from` on (a chart that is not pending is
 * skipped, as the batch script skips it); returns the first pending chart not done (or to + 1),
 * and *rest points past the last marker. */
static int log_done(const struct charts *cs, const struct buf *lg, int from, int to, const char **rest)
{
	const char *p = lg->data ? lg->data : "", *end = p + lg->len;
	*rest = p;
	int next = from;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		while (next <= to && cs->jobs[next - 1].rc != JOB_PENDING)
			next++;
		char want[48];
		int k = snprintf(want, sizeof want, "iopsy-chart-done %d", next);
		if (next <= to && le - p == k && memcmp(p, want, (size_t)k) == 0) {
			next++;
			*rest = nl ? nl + 1 : end;
		}
		p = nl ? nl + 1 : end;
	}
	while (next <= to && cs->jobs[next - 1].rc != JOB_PENDING)
		next++;
	return next;
}

/* Removes the data and scripts of charts first..last in the private folder (in keep_dir they
 * stay); a chart's SVG or PNG goes when charts_take has read it (or at charts_close). */
static void run_cleanup(struct charts *cs, int first, int last)
{
	if (cs->keep)
		return;
	static const char *const ext[] = {".dat", ".gp"};
	for (int no = first; no <= last; no++)
		for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++) {
			char *path = chart_path(cs, no, ext[i]);
			unlink(path);
			free(path);
		}
}

void charts_run(struct charts *cs)
{
	const int first = cs->ran + 1, to = cs->n;
	int from = first;
	cs->ran = cs->n;
	int pending = 0;
	for (int no = from; no <= to; no++)
		pending += cs->jobs[no - 1].rc == JOB_PENDING;
	if (!pending) {
		if (cs->dir)
			run_cleanup(cs, first, to);
		return;
	}
	const int budget = cs->timeout_s * pending;
	const double deadline = mono_now() + budget;
	char *script = path_join(cs->dir, "iopsy-charts.gp"), *log = path_join(cs->dir, "iopsy-charts.log");
	while (from <= to) {
		while (from <= to && cs->jobs[from - 1].rc != JOB_PENDING)
			from++;
		if (from > to)
			break;
		struct buf b, why;
		buf_init(&b);
		buf_init(&why);
		batch_script(cs, from, to, &b);
		int rc = file_write(script, b.data, b.len, &why);
		for (int no = from; no <= to && rc == 0; no++) {
			char *out = chart_path(cs, no, cs->jobs[no - 1].png ? ".png" : ".svg");
			unlink(out);
			free(out);
		}
		bool timed_out = false;
		if (rc == 0) {
			cs->runs++;
			rc = run_gnuplot(cs, "iopsy-charts.gp", log, deadline, &timed_out, &why);
		}
		buf_reset(&b);
		if (file_read(log, &b, 16u << 20) == ERR_IO)
			buf_reset(&b);
		const char *rest;
		int done = log_done(cs, &b, from, to, &rest);
		for (int no = from; no < done; no++)
			if (cs->jobs[no - 1].rc == JOB_PENDING)
				cs->jobs[no - 1].rc = 0;
		from = done;
		if (rc == 0) {
			/* gnuplot says it is done: a chart without its file is found out by charts_take */
			for (int no = from; no <= to; no++)
				if (cs->jobs[no - 1].rc == JOB_PENDING)
					cs->jobs[no - 1].rc = 0;
			from = to + 1;
		} else if (timed_out) {
			for (int no = from; no <= to; no++) {
				struct chart_job *j = &cs->jobs[no - 1];
				if (j->rc != JOB_PENDING)
					continue;
				j->rc = CHARTS_FAILED;
				if (pending > 1)
					buf_printf(&j->why, "gnuplot did not finish within %d s (%d s for each of %d charts) and was stopped",
						   budget, cs->timeout_s, pending);
				else
					buf_printf(&j->why, "gnuplot did not finish within %d s and was stopped", budget);
			}
			from = to + 1;
		} else {
			/* this chart failed: gnuplot's first message about it says why */
			struct chart_job *j = &cs->jobs[from - 1];
			j->rc = rc;
			buf_add(&j->why, why.data ? why.data : "", why.len);
			const char *p = rest, *end = b.data ? b.data + b.len : rest;
			while (p < end && (*p == '\n' || *p == ' '))
				p++;
			if (rc == CHARTS_FAILED && p < end) {
				const char *nl = memchr(p, '\n', (size_t)(end - p));
				buf_adds(&j->why, ": ");
				buf_add_text_escaped(&j->why, p, nl ? (size_t)(nl - p) : (size_t)(end - p));
			}
			from++;
			if (rc != CHARTS_FAILED) {
				/* gnuplot cannot be started (or the folder not written): the same for all */
				for (int no = from; no <= to; no++) {
					struct chart_job *k = &cs->jobs[no - 1];
					if (k->rc != JOB_PENDING)
						continue;
					k->rc = rc;
					buf_add(&k->why, why.data ? why.data : "", why.len);
				}
				from = to + 1;
			}
		}
		buf_free(&b);
		buf_free(&why);
	}
	unlink(script);
	unlink(log);
	free(script);
	free(log);
	run_cleanup(cs, first, to);
}

int charts_take(struct charts *cs, int number, struct buf *out, struct buf *why)
{
	if (number < 1 || number > cs->n)
		return ERR_USAGE;
	struct chart_job *j = &cs->jobs[number - 1];
	if (j->rc == JOB_PENDING)
		charts_run(cs);
	if (j->rc == 0 && cs->dir)
		j->rc = job_read(cs, number, out);
	if (j->rc != 0 && j->why.len)
		buf_add(why, j->why.data, j->why.len);
	buf_free(&j->why);
	int rc = j->rc;
	j->rc = CHARTS_FAILED; /* taken */
	buf_printf(&j->why, "chart %d was already taken", number);
	return rc;
}

int charts_render(struct charts *cs, const struct chart *c, struct buf *svg, int *number, struct buf *why)
{
	*number = charts_add(cs, c);
	charts_run(cs);
	return charts_take(cs, *number, svg, why);
}
/* ---- SVG for inlining ---- */

/* The first case-insensitive occurrence of needle (which starts with '<') in [s, end). */
static const char *find_ci(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = s; p + n <= end; p++) {
		p = memchr(p, '<', (size_t)(end - p));
		if (!p || p + n > end)
			return NULL;
		if (strncasecmp(p, needle, n) == 0)
			return p;
	}
	return NULL;
}

/* The last case-insensitive occurrence of needle (starting with '<') in [s, end). */
static const char *find_last_ci(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	const char *p = end;
	while (p > s) {
		p = memrchr(s, '<', (size_t)(p - s));
		if (!p)
			return NULL;
		if (p + n <= end && strncasecmp(p, needle, n) == 0)
			return p;
	}
	return NULL;
}

/* Skips an element <NAME ...>...</NAME> starting at p; returns the position after it. */
static const char *skip_element(const char *p, const char *end, const char *name)
{
	char close[32];
	snprintf(close, sizeof close, "</%s>", name);
	const char *e = find_ci(p, end, close);
	return e ? e + strlen(close) : end;
}

static bool starts_tag(const char *p, const char *end, const char *name)
{
	size_t n = strlen(name);
	return p + n + 1 < end && p[0] == '<' && strncasecmp(p + 1, name, n) == 0 &&
	       (p[n + 1] == '>' || p[n + 1] == ' ' || p[n + 1] == '\n' || p[n + 1] == '\t' || p[n + 1] == '/');
}

/* The bytes where svg_inline may have something to do: a tag, the blank before an attribute,
 * "url(#". Runs of other bytes are copied as they are. */
static const unsigned char svg_special[256] = {['<'] = 1, [' '] = 1, ['\t'] = 1, ['\n'] = 1, ['u'] = 1};

int svg_inline(const char *svg, size_t n, const char *prefix, struct buf *out)
{
	const char *end = svg + n;
	const char *p = find_ci(svg, end, "<svg");
	const char *close = p ? find_last_ci(p, end, "</svg>") : NULL;
	if (!p || !close)
		return ERR_FORMAT;
	end = close + 6;
	buf_reserve(out, (size_t)(end - p) + (size_t)(end - p) / 16 + 1);
	while (p < end) {
		if (p[0] == '<') {
			if (starts_tag(p, end, "title") || starts_tag(p, end, "desc")) {
				p = skip_element(p, end, p[1] == 't' || p[1] == 'T' ? "title" : "desc");
				continue;
			}
			if (starts_tag(p, end, "script")) {
				p = skip_element(p, end, "script");
				continue;
			}
		}
		/* attributes: id='x' / id="x" → id='PREFIXx'; href='#x' → href='#PREFIXx'; url(#x) → url(#PREFIXx);
		 * on...= event handlers are dropped (gnuplot writes none without the mouse option). */
		if ((p[0] == ' ' || p[0] == '\t' || p[0] == '\n') && p + 4 < end) {
			const char *a = p + 1;
			if (strncmp(a, "id=", 3) == 0 && (a[3] == '"' || a[3] == '\'')) {
				buf_add(out, p, 5);
				buf_adds(out, prefix);
				p += 5;
				continue;
			}
			if ((strncmp(a, "href=", 5) == 0 || strncmp(a, "xlink:href=", 11) == 0)) {
				const char *v = a + (a[0] == 'h' ? 5 : 11);
				if (v + 2 < end && (v[0] == '"' || v[0] == '\'') && v[1] == '#') {
					buf_add(out, p, (size_t)(v + 2 - p));
					buf_adds(out, prefix);
					p = v + 2;
					continue;
				}
			}
			if ((a[0] == 'o' || a[0] == 'O') && (a[1] == 'n' || a[1] == 'N')) {
				const char *eq = a + 2;
				while (eq < end && ((*eq >= 'a' && *eq <= 'z') || (*eq >= 'A' && *eq <= 'Z')))
					eq++;
				if (eq < end && *eq == '=' && eq + 1 < end && (eq[1] == '"' || eq[1] == '\'')) {
					const char *q = memchr(eq + 2, eq[1], (size_t)(end - eq - 2));
					p = q ? q + 1 : end;
					continue;
				}
			}
		}
		if (p + 5 <= end && strncmp(p, "url(#", 5) == 0) {
			buf_add(out, p, 5);
			buf_adds(out, prefix);
			p += 5;
			continue;
		}
		/* this byte as it is, and the ordinary ones after it */
		const char *q = p + 1;
		while (q < end && !svg_special[(unsigned char)*q])
			q++;
		buf_add(out, p, (size_t)(q - p));
		p = q;
	}
	buf_addc(out, '\n');
	return 0;
}
