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
	"font_spec = 'Helvetica,11'\n"
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
	"# comparisons: the before and after sides (before is also dashed, with open points, so the two\n"
	"# stay apart in greyscale and print: light orange against dark blue)\n"
	"before_color = '#e69f00'\n"
	"after_color = '#1f5fa8'\n";

void chart_init(struct chart *c)
{
	memset(c, 0, sizeof *c);
	for (int i = 0; i < CHART_MAX_PANELS; i++)
		c->panel[i].threshold = NAN;
	for (int i = 0; i < CHART_MAX_PANELS; i++)
		c->panel[i].ymax = NAN;
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

static void sep(struct buf *out, bool *first)
{
	if (!*first)
		buf_adds(out, ", \\\n     ");
	*first = false;
}

void chart_script(const struct chart *c, const char *stem, struct buf *out)
{
	int np = c->npanels > 0 ? c->npanels : 1;
	const int top = 30, gap = 42, bottom = c->xnumeric ? 46 : 30;
	const int ph = c->panel_height > 40 ? c->panel_height : 170;
	int height = top + np * ph + (np - 1) * gap + bottom;
	double span = c->t1 - c->t0 > 0 ? c->t1 - c->t0 : 1;
	double step = tic_step(span);
	const char *fmt = span > 2 * 86400 ? "%m-%d %H:%M" : step < 60 ? "%H:%M:%S" : "%H:%M";

	buf_printf(out, "# iopsy chart: data in %s.dat (one block per series: x, mean, min, max),\n", stem);
	buf_adds(out, "# colours and fonts in style.gp. Run 'gnuplot ");
	buf_printf(out, "%s.gp' in this folder to redraw %s.svg.\n", stem, stem);
	buf_adds(out, "load 'style.gp'\n");
	buf_adds(out, "if (!exists(\"before_color\")) before_color = '#e69f00'\n"
		      "if (!exists(\"after_color\")) after_color = '#1f5fa8'\n");
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
	} else {
		buf_printf(out, "set xrange [%.3f:%.3f]\n", c->t0, c->t1);
		buf_printf(out, "set xtics %.0f, %.0f\n", ceil(c->t0 / step) * step, step);
	}
	if (!isnan(c->shade0) && !isnan(c->shade1) && c->shade1 > c->shade0)
		buf_printf(out,
			   "set object 1 rect from %.3f, graph 0 to %.3f, graph 1 behind fillcolor rgb window_color "
			   "fillstyle solid 1.0 noborder\n",
			   c->shade0 > c->t0 ? c->shade0 : c->t0, c->shade1 < c->t1 ? c->shade1 : c->t1);
	buf_adds(out, "set multiplot\n");
	const double W = c->width;
	for (int p = 0; p < np; p++) {
		/* y range: 0 .. a round number above the data and the threshold */
		double ymax = c->panel[p].threshold;
		for (int i = 0; i < c->ns; i++) {
			if (c->s[i].panel != p)
				continue;
			for (size_t k = 0; k < c->s[i].n; k++) {
				const struct chart_point *pt = &c->s[i].p[k];
				if (pt->t < c->t0 || pt->t > c->t1)
					continue;
				ymax = nan_max(ymax, c->s[i].style == CS_BAND ? nan_max(pt->max, pt->mean) : pt->mean);
			}
		}
		ymax = isnan(c->panel[p].ymax) ? nice_ceil(isnan(ymax) ? 1 : ymax * 1.04) : c->panel[p].ymax;
		double y_top = (double)(height - top - p * (ph + gap)) / height;
		double y_bot = (double)(height - top - p * (ph + gap) - ph) / height;
		buf_printf(out, "# panel %d\n", p + 1);
		buf_printf(out, "set lmargin at screen %.4f\nset rmargin at screen %.4f\n", 70 / W, (W - 20) / W);
		buf_printf(out, "set tmargin at screen %.4f\nset bmargin at screen %.4f\n", y_top, y_bot);
		buf_adds(out, "set ylabel ");
		gp_quote(out, c->panel[p].ylabel);
		buf_addc(out, '\n');
		buf_printf(out, "set yrange [0:%.6g]\n", ymax);
		if (p < np - 1)
			buf_adds(out, "set format x ''\n");
		else if (c->xnumeric)
			buf_adds(out, "set format x '%g'\n");
		else {
			buf_adds(out, "set format x ");
			gp_quote(out, fmt);
			buf_adds(out, " timedate\n");
		}
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
			if (s->style == CS_POINTS) {
				buf_printf(out, "'%s.dat' index %d using 1:2 with points pt %d ps 0.35 lc rgb ", stem, i,
					   s->color == CHART_BEFORE ? 6 : 7);
				colour(out, s, i);
			} else {
				buf_printf(out, "'%s.dat' index %d using 1:2 with lines lc rgb ", stem, i);
				colour(out, s, i);
				buf_adds(out, s->style == CS_DASHED ? " lw line_width dt (5,3)"
					      : s->color == CHART_BEFORE ? " lw line_width dt (7,3)" : " lw line_width");
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
				      : c->s[lead].color == CHART_BEFORE ? " lw line_width dt (7,3) notitle"
									 : " lw line_width notitle");
		}
		if (!isnan(c->panel[p].threshold)) {
			sep(out, &first);
			buf_printf(out, "%.6g with lines lc rgb threshold_color lw 1.2 dt (7,4) title ", c->panel[p].threshold);
			gp_quote(out, c->panel[p].threshold_label);
		}
		if (first) /* nothing in this panel: keep the layout */
			buf_adds(out, "NaN notitle");
		buf_addc(out, '\n');
	}
	buf_adds(out, "unset multiplot\n");
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
			buf_printf(out, "%.3f %.6g %.6g %.6g\n", p->t, p->mean, isnan(p->min) ? p->mean : p->min,
				   isnan(p->max) ? p->mean : p->max);
			prev_data = true;
		}
	}
}

/* ---- files ---- */

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
		if (mkdir(o->keep_dir, 0777) != 0 && errno != EEXIST) {
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

void charts_close(struct charts *cs)
{
	if (cs->dir && cs->dir_made) {
		char *style = path_join(cs->dir, "style.gp");
		unlink(style);
		free(style);
		rmdir(cs->dir);
	}
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

/* Runs "gnuplot SCRIPT" in the chart folder; stdout and stderr go to LOG there. */
static int run_gnuplot(const struct charts *cs, const char *script, const char *log, struct buf *why)
{
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
	struct timespec start, now;
	clock_gettime(CLOCK_MONOTONIC, &start);
	int status = 0;
	bool timed_out = false;
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			buf_printf(why, "waitpid: %s", strerror(errno));
			return ERR_IO;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= cs->timeout_s) {
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
				;
			timed_out = true;
			break;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (r == (ssize_t)sizeof child_errno) {
		buf_printf(why, "cannot run %s: %s", cs->gnuplot, strerror(child_errno));
		return child_errno == ENOENT || child_errno == EACCES ? CHARTS_NO_GNUPLOT : CHARTS_FAILED;
	}
	if (timed_out) {
		buf_printf(why, "gnuplot did not finish within %d s and was stopped", cs->timeout_s);
		return CHARTS_FAILED;
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

int charts_render(struct charts *cs, const struct chart *c, struct buf *svg, int *number, struct buf *why)
{
	if (!cs->dir)
		return CHARTS_NO_GNUPLOT;
	int no = ++cs->n;
	*number = no;
	char stem[32];
	snprintf(stem, sizeof stem, "chart-%02d", no);
	const char *ext[] = {".dat", ".gp", c->png ? ".png" : ".svg", ".log"};
	char *path[4];
	for (int i = 0; i < 4; i++) {
		char name[48];
		snprintf(name, sizeof name, "%s%s", stem, ext[i]);
		path[i] = path_join(cs->dir, name);
	}
	struct buf b;
	buf_init(&b);
	write_data(c, &b);
	int rc = file_write(path[0], b.data ? b.data : "", b.len, why);
	if (rc == 0) {
		buf_reset(&b);
		chart_script(c, stem, &b);
		rc = file_write(path[1], b.data, b.len, why);
	}
	if (rc == 0 && !cs->gnuplot)
		rc = CHARTS_NO_GNUPLOT;
	if (rc == 0) {
		char script[48];
		snprintf(script, sizeof script, "%s.gp", stem);
		unlink(path[2]);
		rc = run_gnuplot(cs, script, path[3], why);
		if (rc == CHARTS_FAILED) {
			/* gnuplot's first message says why */
			struct buf lg;
			buf_init(&lg);
			if (file_read(path[3], &lg, 1 << 16) == 0 && lg.len) {
				const char *p = lg.data;
				while (*p == '\n' || *p == ' ')
					p++;
				const char *nl = strchr(p, '\n');
				buf_adds(why, ": ");
				buf_add_text_escaped(why, p, nl ? (size_t)(nl - p) : strlen(p));
			}
			buf_free(&lg);
		}
	}
	if (rc == 0) {
		buf_reset(&b);
		int r = file_read(path[2], &b, 64u << 20);
		char prefix[16];
		snprintf(prefix, sizeof prefix, "c%d-", no);
		if (c->png) {
			if (r < 0 || b.len < 8 || memcmp(b.data, "\x89PNG", 4) != 0) {
				buf_printf(why, "gnuplot wrote no PNG for %s", stem);
				rc = CHARTS_FAILED;
			} else {
				buf_add(svg, b.data, b.len);
			}
		} else if (r < 0 || svg_inline(b.data ? b.data : "", b.len, prefix, svg) < 0) {
			buf_printf(why, "gnuplot wrote no usable SVG for %s", stem);
			rc = CHARTS_FAILED;
		}
	}
	buf_free(&b);
	for (int i = 0; i < 4; i++) {
		if (!cs->keep || i == 3)
			unlink(path[i]);
		free(path[i]);
	}
	return rc;
}

/* ---- SVG for inlining ---- */

static const char *find_ci(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = s; p + n <= end; p++)
		if (strncasecmp(p, needle, n) == 0)
			return p;
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

int svg_inline(const char *svg, size_t n, const char *prefix, struct buf *out)
{
	const char *end = svg + n;
	const char *p = find_ci(svg, end, "<svg");
	const char *close = NULL;
	for (const char *q = p ? p : end; q && q < end; q++) {
		q = find_ci(q, end, "</svg>");
		if (!q)
			break;
		close = q;
	}
	if (!p || !close)
		return ERR_FORMAT;
	end = close + 6;
	while (p < end) {
		if (starts_tag(p, end, "title") || starts_tag(p, end, "desc")) {
			p = skip_element(p, end, p[1] == 't' || p[1] == 'T' ? "title" : "desc");
			continue;
		}
		if (starts_tag(p, end, "script")) {
			p = skip_element(p, end, "script");
			continue;
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
		buf_addc(out, *p);
		p++;
	}
	buf_addc(out, '\n');
	return 0;
}
