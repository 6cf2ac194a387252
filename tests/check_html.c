/* check_html.c — the HTML report and its gnuplot charts: escaping of hostile names taken from
 * captures (HTML and embedded JSON), no untrusted text in gnuplot scripts or data, min/max
 * downsampling keeps spikes, SVG inlining (equal to the byte-at-a-time reference), the data files'
 * numbers (equal to printf's), the no-gnuplot / failing / hanging gnuplot paths, and all the charts
 * of a report in one gnuplot process (each byte for byte as drawn alone; one failing or hanging
 * chart costs only itself). */
#include <check.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "charts.h"
#include "compare.h"
#include "html.h"
#include "ltime.h"
#include "summary.h"
#include "reporter.h"
#include "suites.h"
#include "view.h"

Suite *html_suite(void);

/* ---- helpers ---- */

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static void rm_tree(const char *dir) { nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS); }

static char *slurp(const char *path)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	struct buf b;
	buf_init(&b);
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	fclose(fp);
	return b.data ? b.data : xstrdup("");
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, l = strlen(needle);
	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += l)
		n++;
	return n;
}

static bool have_gnuplot(void)
{
	const char *path = getenv("PATH");
	if (!path)
		return false;
	char *copy = xstrdup(path), *save = NULL;
	bool found = false;
	for (char *d = strtok_r(copy, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char full[4096];
		snprintf(full, sizeof full, "%s/gnuplot", d);
		found = access(full, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* The hostile names: everything a capture can carry that must never become markup or code. */
#define EVIL_HOST "EVIL</script><b>x</b>\"'`id`"
#define EVIL_DISK "D:</script><img src=x onerror=alert(1)>\"'`system(\"touch %s/pwned\")`"

/* Writes DIR/NAME, a perfmon CSV of one guest disk whose latency is about slow_s (e.g. 0.080 s: a
 * finding) for most of its eight minutes and whose host and instance names are hostile. Returns the path
 * (caller frees). */
static char *write_capture(const char *dir, const char *name, double slow_s)
{
	char disk[512], path[600];
	snprintf(disk, sizeof disk, EVIL_DISK, dir);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	/* CSV quoting: every " doubled */
	struct buf host_q, disk_q;
	buf_init(&host_q);
	buf_init(&disk_q);
	for (const char *p = EVIL_HOST; *p; p++) {
		if (*p == '"')
			buf_addc(&host_q, '"');
		buf_addc(&host_q, *p);
	}
	for (const char *p = disk; *p; p++) {
		if (*p == '"')
			buf_addc(&disk_q, '"');
		buf_addc(&disk_q, *p);
	}
	static const char *const counters[] = {"Avg. Disk sec/Read", "Avg. Disk sec/Write", "Avg. Disk sec/Transfer",
					       "Current Disk Queue Length", "Disk Transfers/sec", "Disk Reads/sec",
					       "Disk Writes/sec"};
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\"", fp);
	for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
		fprintf(fp, ",\"\\\\%s\\LogicalDisk(%s)\\%s\"", host_q.data, disk_q.data, counters[i]);
	fputs("\r\n", fp);
	for (int r = 0; r < 240; r++) {
		int s = r * 2;
		bool slow = r >= 20 && r < 220;
		double lat = slow ? slow_s * (1 + 0.1 * ((r * 7) % 5)) : 0.002;
		double q = slow && slow_s >= 0.02 ? 40 + (r % 7) : 2;
		fprintf(fp, "\"07/27/2026 13:%02d:%02d.000\",\"%g\",\"%g\",\"%g\",\"%g\",\"%g\",\"%g\",\"%g\"\r\n", s / 60, s % 60,
			lat, lat, lat, q, 500.0, 400.0, 100.0);
	}
	ck_assert_int_eq(fclose(fp), 0);
	buf_free(&host_q);
	buf_free(&disk_q);
	return xstrdup(path);
}

struct fixture {
	char dir[64];
	char *capture;
	struct analysis a;
};

static void fixture_load(struct fixture *fx)
{
	snprintf(fx->dir, sizeof fx->dir, "/tmp/iopsy-html-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(fx->dir));
	fx->capture = write_capture(fx->dir, "perfmon.csv", 0.080);
	analysis_init(&fx->a);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = 0;
	ck_assert_int_eq(model_add_capture(&fx->a.m, fx->capture, &co), 0);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_run(&fx->a, &ao);
	ck_assert_msg(fx->a.nf > 0, "the hostile capture must produce findings");
}

static void fixture_free(struct fixture *fx)
{
	analysis_free(&fx->a);
	free(fx->capture);
	rm_tree(fx->dir);
}

/* ---- escaping ---- */

static const struct {
	const char *in, *out;
} esc_cases[] = {
	{"plain", "plain"},
	{"</script>", "&lt;/script&gt;"},
	{"a&b", "a&amp;b"},
	{"\"q\" 'a'", "&quot;q&quot; &#39;a&#39;"},
	{"`id` $(x)", "`id` $(x)"}, /* harmless in HTML text and attributes once quotes are escaped */
	{"line1\nline2", "line1\\x0Aline2"},
	{"tab\there\x7f", "tab\\x09here\\x7F"},
	{"caf\xc3\xa9 \xe6\x97\xa5", "caf\xc3\xa9 \xe6\x97\xa5"}, /* valid UTF-8 kept */
	{"bad\xff\xc3", "bad\\xFF\\xC3"},                          /* invalid bytes made visible */
	{"", ""},
};

START_TEST(escape_table)
{
	struct buf b;
	buf_init(&b);
	html_escape(&b, esc_cases[_i].in);
	ck_assert_str_eq(b.data ? b.data : "", esc_cases[_i].out);
	buf_free(&b);
}
END_TEST

START_TEST(gp_quoting)
{
	struct buf b;
	buf_init(&b);
	gp_quote(&b, "it's `x`\nset output '/etc/passwd'");
	/* one single-quoted string: quotes doubled, the newline cannot end the command */
	ck_assert_str_eq(b.data, "'it''s `x` set output ''/etc/passwd'''");
	buf_free(&b);
}
END_TEST

/* ---- downsampling ---- */

START_TEST(downsample_keeps_spikes)
{
	size_t n = 10000;
	struct chart_point *in = xmalloc(n * sizeof *in), *out = xmalloc(CHART_MAX_POINTS * sizeof *out);
	for (size_t i = 0; i < n; i++) {
		double v = 10 + (double)(i % 13) * 0.1;
		in[i] = (struct chart_point){(double)i, v, v, v};
	}
	in[4321].mean = in[4321].max = 1000; /* one sample spike */
	in[4321].min = 1000;
	in[777].mean = in[777].min = in[777].max = -50; /* one sample dip */
	in[9000].mean = in[9000].min = in[9000].max = NAN; /* a missing sample */
	size_t m = chart_downsample(in, n, out, CHART_MAX_POINTS);
	ck_assert_uint_le(m, CHART_MAX_POINTS);
	ck_assert_uint_ge(m, CHART_MAX_POINTS / 2);
	double mx = -INFINITY, mn = INFINITY;
	for (size_t i = 0; i < m; i++) {
		if (i)
			ck_assert(out[i].t > out[i - 1].t);
		if (out[i].max > mx)
			mx = out[i].max;
		if (out[i].min < mn)
			mn = out[i].min;
		ck_assert(isnan(out[i].mean) || (out[i].min <= out[i].mean && out[i].mean <= out[i].max));
	}
	ck_assert_double_eq(mx, 1000);
	ck_assert_double_eq(mn, -50);
	free(in);
	free(out);
}
END_TEST

START_TEST(downsample_small_is_identity)
{
	struct chart_point in[5] = {{1, 1, 0, 2}, {2, NAN, NAN, NAN}, {3, 3, 3, 3}, {4, 4, 1, 9}, {5, 5, 5, 5}};
	struct chart_point out[CHART_MAX_POINTS];
	ck_assert_uint_eq(chart_downsample(in, 5, out, CHART_MAX_POINTS), 5);
	ck_assert(isnan(out[1].mean));
	ck_assert_double_eq(out[3].max, 9);
	ck_assert_double_eq(out[3].min, 1);
	ck_assert_uint_eq(chart_downsample(in, 0, out, CHART_MAX_POINTS), 0);
}
END_TEST

START_TEST(add_series_caps_points)
{
	struct chart c;
	chart_init(&c);
	size_t n = 5000;
	struct chart_point *p = xmalloc(n * sizeof *p);
	for (size_t i = 0; i < n; i++)
		p[i] = (struct chart_point){(double)i, 1, 1, i == 2500 ? 77 : 1};
	ck_assert(chart_add_series(&c, "x", 0, CS_BAND, 0, p, n));
	ck_assert_uint_le(c.s[0].n, CHART_MAX_POINTS);
	double mx = 0;
	for (size_t i = 0; i < c.s[0].n; i++)
		mx = fmax(mx, c.s[0].p[i].max);
	ck_assert_double_eq(mx, 77);
	/* a series with no value at all is refused (gnuplot would stop on an empty block) */
	for (size_t i = 0; i < n; i++)
		p[i].mean = NAN;
	ck_assert(!chart_add_series(&c, "empty", 0, CS_BAND, 0, p, n));
	free(p);
	chart_free(&c);
}
END_TEST

/* ---- the gnuplot script ---- */

START_TEST(script_has_only_trusted_text)
{
	struct chart c;
	chart_init(&c);
	struct chart_point p[3] = {{1785157200, 1, 0, 2}, {1785157260, 5, 4, 9}, {1785157320, 2, 2, 2}};
	ck_assert(chart_add_series(&c, "Avg. Disk sec/Read", 0, CS_BAND, 0, p, 3));
	ck_assert(chart_add_series(&c, "host view (esxtop)", 0, CS_DASHED, 0, p, 3));
	snprintf(c.panel[0].ylabel, sizeof c.panel[0].ylabel, "ms");
	c.panel[0].threshold = 20;
	snprintf(c.panel[0].threshold_label, sizeof c.panel[0].threshold_label, "threshold 20 ms");
	c.t0 = 1785157200;
	c.t1 = 1785157320;
	c.shade0 = 1785157230;
	c.shade1 = 1785157300;
	struct buf b;
	buf_init(&b);
	chart_script(&c, "chart-07", &b);
	ck_assert_ptr_nonnull(strstr(b.data, "set terminal svg"));
	ck_assert_ptr_nonnull(strstr(b.data, "noenhanced"));
	ck_assert_ptr_nonnull(strstr(b.data, "set output 'chart-07.svg'\n"));
	ck_assert_uint_eq(count(b.data, "set output"), 1);
	ck_assert_ptr_null(strchr(b.data, '`'));
	ck_assert_ptr_null(strstr(b.data, "system"));
	ck_assert_ptr_null(strstr(b.data, "@"));      /* no macros */
	ck_assert_ptr_null(strstr(b.data, "eval"));
	ck_assert_ptr_nonnull(strstr(b.data, "title 'Avg. Disk sec/Read'"));
	ck_assert_ptr_nonnull(strstr(b.data, "20 with lines lc rgb threshold_color"));
	ck_assert_ptr_nonnull(strstr(b.data, "set object 1 rect from 1785157230.000"));
	/* every line is a complete command: no stray quote opens a string across lines */
	for (const char *line = b.data; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		size_t q = 0;
		for (size_t i = 0; i < len; i++)
			q += line[i] == '\'';
		ck_assert_msg(q % 2 == 0, "unbalanced quotes: %.*s", (int)len, line);
		line += len + (nl != NULL);
	}
	buf_free(&b);
	chart_free(&c);
}
END_TEST

/* A panel whose key needs two rows (four long titles) gets room for both above the plot, and
 * gnuplot is held to the columns that room was counted with: no key row drawn off the top. */
START_TEST(script_key_has_room)
{
	struct chart c;
	chart_init(&c);
	struct chart_point p[3] = {{1785157200, 1, 0, 2}, {1785157260, 5, 4, 9}, {1785157320, 2, 2, 2}};
	ck_assert(chart_add_series(&c, "reads (Avg. Disk sec/Read)", 0, CS_BAND, 0, p, 3));
	ck_assert(chart_add_series(&c, "writes (Avg. Disk sec/Write)", 0, CS_BAND, 0, p, 3));
	c.panel[0].threshold = 20;
	snprintf(c.panel[0].threshold_label, sizeof c.panel[0].threshold_label, "warning 20 ms");
	c.panel[0].threshold2 = 50;
	snprintf(c.panel[0].threshold2_label, sizeof c.panel[0].threshold2_label, "critical 50 ms");
	c.t0 = 1785157200;
	c.t1 = 1785157320;
	c.png = true;
	c.width = 760;
	struct buf b;
	buf_init(&b);
	chart_script(&c, "chart-01", &b);
	int w = 0, h = 0, cols = 0;
	double tm = 0;
	const char *t = strstr(b.data, "set terminal pngcairo size ");
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(sscanf(t, "set terminal pngcairo size %d,%d", &w, &h), 2);
	const char *k = strstr(b.data, "set key maxcols ");
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(sscanf(k, "set key maxcols %d", &cols), 1);
	const char *m = strstr(b.data, "set tmargin at screen ");
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(sscanf(m, "set tmargin at screen %lf", &tm), 1);
	ck_assert_int_ge(cols, 1);
	int rows = (4 + cols - 1) / cols;
	ck_assert_int_ge(rows, 2); /* four titles of ~28 characters do not fit one row of 670 px */
	ck_assert_msg((1.0 - tm) * h >= rows * 17.0, "%d key rows in %.0f px above the plot", rows, (1.0 - tm) * h);
	buf_free(&b);
	chart_free(&c);
}
END_TEST

/* ---- SVG inlining ---- */

START_TEST(svg_ids_prefixed)
{
	const char *svg = "<?xml version=\"1.0\"?>\n<!DOCTYPE svg>\n<svg viewBox=\"0 0 10 10\">\n<title>Gnuplot</title>"
			  "<desc>Produced by GNUPLOT</desc><g id=\"gnuplot_canvas\"><defs><path id='gpPt0' d='M0'/>"
			  "<use xlink:href='#gpPt0' id='gpPt1'/><clipPath id=\"c1\"/></defs><rect clip-path=\"url(#c1)\" "
			  "onclick=\"alert(1)\"/><script>alert(2)</script><g id=\"gnuplot_plot_1\"><title>gnuplot_plot_1</title>"
			  "</g></g></svg>\n";
	struct buf b;
	buf_init(&b);
	ck_assert_int_eq(svg_inline(svg, strlen(svg), "c3-", &b), 0);
	ck_assert(strncmp(b.data, "<svg", 4) == 0);
	ck_assert_ptr_null(strstr(b.data, "<?xml"));
	ck_assert_ptr_null(strstr(b.data, "DOCTYPE"));
	ck_assert_ptr_null(strstr(b.data, "<title>"));
	ck_assert_ptr_null(strstr(b.data, "<desc>"));
	ck_assert_ptr_null(strstr(b.data, "<script"));
	ck_assert_ptr_null(strstr(b.data, "onclick"));
	ck_assert_ptr_nonnull(strstr(b.data, "id=\"c3-gnuplot_canvas\""));
	ck_assert_ptr_nonnull(strstr(b.data, "id='c3-gpPt0'"));
	ck_assert_ptr_nonnull(strstr(b.data, "xlink:href='#c3-gpPt0'"));
	ck_assert_ptr_nonnull(strstr(b.data, "url(#c3-c1)"));
	ck_assert_ptr_null(strstr(b.data, "\"gpPt"));
	buf_reset(&b);
	ck_assert_int_eq(svg_inline("not an svg", 10, "c1-", &b), ERR_FORMAT);
	buf_free(&b);
}
END_TEST

/* The byte-at-a-time svg_inline that the one in charts.c replaced (kept as the reference its
 * output must equal). */
static const char *ref_find_ci(const char *s, const char *end, const char *needle)
{
	size_t n = strlen(needle);
	for (const char *p = s; p + n <= end; p++)
		if (strncasecmp(p, needle, n) == 0)
			return p;
	return NULL;
}

/* Skips an element <NAME ...>...</NAME> starting at p; returns the position after it. */
static const char *ref_skip_element(const char *p, const char *end, const char *name)
{
	char close[32];
	snprintf(close, sizeof close, "</%s>", name);
	const char *e = ref_find_ci(p, end, close);
	return e ? e + strlen(close) : end;
}

static bool ref_starts_tag(const char *p, const char *end, const char *name)
{
	size_t n = strlen(name);
	return p + n + 1 < end && p[0] == '<' && strncasecmp(p + 1, name, n) == 0 &&
	       (p[n + 1] == '>' || p[n + 1] == ' ' || p[n + 1] == '\n' || p[n + 1] == '\t' || p[n + 1] == '/');
}

static int ref_svg_inline(const char *svg, size_t n, const char *prefix, struct buf *out)
{
	const char *end = svg + n;
	const char *p = ref_find_ci(svg, end, "<svg");
	const char *close = NULL;
	for (const char *q = p ? p : end; q && q < end; q++) {
		q = ref_find_ci(q, end, "</svg>");
		if (!q)
			break;
		close = q;
	}
	if (!p || !close)
		return ERR_FORMAT;
	end = close + 6;
	while (p < end) {
		if (ref_starts_tag(p, end, "title") || ref_starts_tag(p, end, "desc")) {
			p = ref_skip_element(p, end, p[1] == 't' || p[1] == 'T' ? "title" : "desc");
			continue;
		}
		if (ref_starts_tag(p, end, "script")) {
			p = ref_skip_element(p, end, "script");
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

/* svg_inline on gnuplot-like SVG with random damage: the same bytes as the reference. */
START_TEST(svg_inline_equals_reference)
{
	static const char *const parts[] = {
		"<svg viewBox=\"0 0 9 9\">", "</svg>", "</SVG>", "<title>t</title>", "<TITLE>x", "<desc>d</desc>",
		"<script>s</script>", "<script ", " id='a'", " id=\"b\"", "\tid='c'", "\nid=x", " href='#h'",
		" xlink:href=\"#k\"", " href=\"/x\"", " onclick=\"e\"", " OnLoad='f'", " onx=", "url(#u)", "url(x)",
		"<path d='M1,2 L3,4'/>", "<g>", "</g>", " ", "u", "<", ">", "'", "\"", "#", "=", "ti", "<svgx>", "\n"};
	uint64_t seed = 12345;
	struct buf in, a, b;
	buf_init(&in);
	buf_init(&a);
	buf_init(&b);
	for (int iter = 0; iter < 20000; iter++) {
		buf_reset(&in);
		int n = 1 + (int)(seed % 40);
		for (int k = 0; k < n; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			buf_adds(&in, parts[(seed >> 33) % (sizeof parts / sizeof parts[0])]);
		}
		buf_reset(&a);
		buf_reset(&b);
		int ra = svg_inline(in.data, in.len, "c7-", &a), rb = ref_svg_inline(in.data, in.len, "c7-", &b);
		ck_assert_int_eq(ra, rb);
		if (ra == 0)
			ck_assert_msg(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "svg_inline differs on: %s", in.data);
	}
	buf_free(&in);
	buf_free(&a);
	buf_free(&b);
}
END_TEST

/* The data files' numbers: chart_num is printf's "%.3f" / "%.6g", byte for byte. */
START_TEST(chart_num_equals_printf)
{
	uint64_t x = 88172645463325252ull;
	struct buf b;
	buf_init(&b);
	static const double special[] = {0.0, -0.0, 1e-5, 1e-4, 999999.5, 999999.4999, 9999995, 0.5, 1.5, 2.5, 1e6, 1e5,
					 99999.95, 123456789, 0.00012345649, 4e9, 3.9999e9, 0.0005, 0.0015, -0.0004,
					 1e300, 5e-324, 1785157200.123, INFINITY, -INFINITY, NAN};
	for (long i = 0; i < 400000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		switch (i % 6) {
		case 0:
			memcpy(&v, &x, sizeof v);
			break;
		case 1:
			v = (double)(x % 4000000000000ull) / 1000.0; /* times in ms */
			break;
		case 2:
			v = (double)(float)((double)(x % 100000000) / 1e4); /* float bucket means */
			break;
		case 3:
			v = ldexp((double)(x >> 11), -(int)(x % 80));
			break;
		case 4: /* halfway cases */
			v = ((double)(x % 1000000) + 0.5) * pow(10, (double)((int)((x >> 40) % 30) - 15));
			break;
		default:
			v = special[(x >> 7) % (sizeof special / sizeof special[0])];
			break;
		}
		if ((x >> 62) & 1)
			v = -v;
		for (int f = 0; f < 2; f++) {
			char want[512];
			snprintf(want, sizeof want, f ? "%.3f" : "%.6g", v);
			buf_reset(&b);
			chart_num(&b, v, f);
			ck_assert_msg(strcmp(want, b.data) == 0, "%a as %s: printf %s, chart_num %s", v, f ? "%.3f" : "%.6g", want,
				      b.data);
		}
	}
	buf_free(&b);
}
END_TEST

/* ---- the whole report ---- */

/* The text of the JSON element id (its '<' '>' checked away: none), or NULL when there is none;
 * *end its end. */
static const char *json_element(const char *html, const char *id, const char **end)
{
	char open[64];
	snprintf(open, sizeof open, "id=\"%s\">", id);
	const char *j = strstr(html, open);
	if (!j)
		return NULL;
	j += strlen(open);
	*end = strstr(j, "</script>");
	ck_assert_ptr_nonnull(*end);
	for (const char *p = j; p < *end; p++)
		ck_assert_msg(*p != '<' && *p != '>', "markup character in the JSON element %s", id);
	return j;
}

/* Checks that the report is inert: the hostile names appear only escaped. With the Explore
 * section, its data element and two scripts (uPlot's and the explorer's, the vendored files) are
 * the only other scripts, and the names in its data are escaped too. */
static void assert_inert(const char *html, const char *dir)
{
	const char *ve = NULL, *vj = json_element(html, "iopsy-view-data", &ve);
	ck_assert_uint_eq(count(html, "<script"), vj ? 4 : 1);
	ck_assert_uint_eq(count(html, "</script>"), vj ? 4 : 1);
	if (vj) {
		ck_assert_uint_eq(count(html, "<script>"), 2);
		const char *s1 = strstr(html, "<script>") + 8, *s2 = strstr(s1, "<script>") + 8;
		ck_assert(strncmp(s1, view_uplot_js, strlen(view_uplot_js)) == 0 && s1[strlen(view_uplot_js)] == '<');
		ck_assert(strncmp(s2, view_app_js, strlen(view_app_js)) == 0 && s2[strlen(view_app_js)] == '<');
		const char *n = strstr(vj, "D:\\u003c/SCRIPT\\u003e\\u003cIMG SRC=X");
		ck_assert_msg(n && n < ve, "the hostile guest disk is not in the Explore data, escaped");
	}
	ck_assert_ptr_null(strstr(html, "<img"));
	ck_assert_ptr_null(strstr(html, "<b>x</b>"));
	ck_assert_ptr_nonnull(strstr(html, "EVIL&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;&quot;&#39;`id`"));
	ck_assert_ptr_nonnull(strstr(html, "D:&lt;/SCRIPT&gt;&lt;IMG SRC=X ONERROR=ALERT(1)&gt;&quot;&#39;`SYSTEM(&quot;TOUCH"));
	/* the JSON element holds no markup character at all */
	const char *e, *j = json_element(html, "iopsy-data", &e);
	ck_assert_ptr_nonnull(j);
	ck_assert(strncmp(j, "{\"schema_version\":3", 19) == 0);
	ck_assert_ptr_nonnull(strstr(j, "EVIL\\u003c/script\\u003e"));
	char pwned[128];
	snprintf(pwned, sizeof pwned, "%s/pwned", dir);
	ck_assert_int_ne(access(pwned, F_OK), 0);
	ck_assert_int_ne(access("/tmp/pwned", F_OK), 0);
}

START_TEST(hostile_names_escaped)
{
	struct fixture fx;
	fixture_load(&fx);
	/* names the CSV reader cannot carry: newline, control and invalid bytes, patched in */
	fx.a.f[0].summary = "<b>first line\nsecond <line>\x01\xff";
	for (size_t i = 0; i < fx.a.m.nents; i++)
		if (fx.a.m.ents[i].layer == LAYER_GUEST)
			fx.a.m.ents[i].host = "EVIL\n<i>two lines</i>";
	for (size_t i = 0; i < fx.a.nf; i++)
		fx.a.f[i].host = "EVIL\n<i>two lines</i>";
	char gpdir[128];
	snprintf(gpdir, sizeof gpdir, "%s/gnuplot", fx.dir);
	struct html_opts o = {.gnuplot_dir = gpdir};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	assert_inert(out.data, fx.dir);
	ck_assert_ptr_nonnull(strstr(out.data, "&lt;b&gt;first line\\x0Asecond &lt;line&gt;\\x01\\xFF"));
	ck_assert_ptr_nonnull(strstr(out.data, "EVIL\\x0A&lt;i&gt;two lines&lt;/i&gt;"));
	ck_assert_ptr_null(strstr(out.data, "<i>two"));
	ck_assert_ptr_null(strstr(out.data, "EVIL\n"));
	if (have_gnuplot()) {
		ck_assert_int_gt(res.charts, 0);
		ck_assert_int_eq(res.charts_failed, 0);
		ck_assert_ptr_nonnull(strstr(out.data, "<svg"));
	}
	/* nothing from the capture reached gnuplot's input: scripts, style and data */
	const char *files[] = {"style.gp", "chart-01.gp", "chart-01.dat"};
	for (size_t i = 0; i < 3; i++) {
		char p[256];
		snprintf(p, sizeof p, "%s/%s", gpdir, files[i]);
		char *t = slurp(p);
		ck_assert_msg(t != NULL, "%s was not kept in --gnuplot-dir", files[i]);
		ck_assert_msg(!strstr(t, "EVIL") && !strstr(t, "pwned") && !strstr(t, "system(") && !strchr(t, '`') &&
				      !strstr(t, "script"),
			      "untrusted text in %s", files[i]);
		free(t);
	}
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

/* The mail's PNG of the top finding has the same time axis as the report's SVG of it: the date
 * line and, with the capture's local zone known, the local time below UTC (it had UTC only). */
START_TEST(top_png_axis_as_svg)
{
	if (!have_gnuplot())
		return;
	struct fixture fx;
	fixture_load(&fx);
	char gpdir[128];
	snprintf(gpdir, sizeof gpdir, "%s/gnuplot", fx.dir);
	struct buf png, why, out, msg;
	buf_init(&png);
	buf_init(&why);
	buf_init(&out);
	buf_init(&msg);
	struct html_opts o = {.gnuplot_dir = gpdir, .top_png = &png, .top_png_why = &why};
	struct html_result res;
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_int_eq(res.top_png, 0);
	char *svg = NULL, *pngs = NULL;
	for (int n = 1; n < 100 && !pngs; n++) {
		char p[256];
		snprintf(p, sizeof p, "%s/chart-%02d.gp", gpdir, n);
		char *t = slurp(p);
		if (!t)
			break;
		if (strstr(t, "set terminal pngcairo"))
			pngs = t;
		else if (!svg)
			svg = t;
		else
			free(t);
	}
	ck_assert_ptr_nonnull(svg);
	ck_assert_ptr_nonnull(pngs);
	const char *a = strstr(svg, "set xlabel "), *b = strstr(pngs, "set xlabel ");
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
	ck_assert_msg(la == lb && memcmp(a, b, la) == 0, "PNG axis %.*s, SVG axis %.*s", (int)lb, b, (int)la, a);
	free(svg);
	free(pngs);
	buf_free(&png);
	buf_free(&why);
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

START_TEST(svg_ids_unique_in_report)
{
	if (!have_gnuplot())
		return;
	struct fixture fx;
	fixture_load(&fx);
	struct html_opts o = {0};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_int_ge(res.charts, 2);
	/* collect id="…" / id='…' values; no duplicates */
	size_t n = 0, cap = 0;
	char **ids = NULL;
	for (const char *p = out.data; (p = strstr(p, " id=")) != NULL; p += 4) {
		char q = p[4];
		if (q != '"' && q != '\'')
			continue;
		const char *e = strchr(p + 5, q);
		ck_assert_ptr_nonnull(e);
		char *id = xstrndup(p + 5, (size_t)(e - p - 5));
		for (size_t k = 0; k < n; k++)
			ck_assert_msg(strcmp(ids[k], id) != 0, "duplicate id %s", id);
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			ids = xrealloc(ids, cap * sizeof *ids);
		}
		ids[n++] = id;
	}
	ck_assert_uint_gt(n, 20);
	for (size_t k = 0; k < n; k++)
		free(ids[k]);
	free(ids);
	ck_assert_ptr_null(strstr(out.data, "<?xml"));
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

/* --title is the document's <title> (and so the PDF's title), escaped; without it the default */
START_TEST(title_is_the_documents)
{
	struct fixture fx;
	fixture_load(&fx);
	struct report_brand br = {.title = "Q3 <i>review</i> & \"more\"", .customer = "Evil\"}</style><script>x()</script>"};
	struct html_opts o = {.gnuplot = "/nonexistent/gnuplot", .brand = &br};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "<title>Q3 &lt;i&gt;review&lt;/i&gt; &amp; &quot;more&quot;</title>"));
	ck_assert_ptr_null(strstr(out.data, "<i>review"));
	/* the printed pages' running footer: customer and title as CSS strings that cannot end the
	 * string or the style element, the date, "Page N of M" */
	ck_assert_ptr_nonnull(strstr(out.data, "@bottom-left{content:\"Evil\\22 \\7D \\3C \\2F style\\3E "));
	ck_assert_ptr_nonnull(strstr(out.data, " \\B7  Q3 \\3C i\\3E review"));
	ck_assert_ptr_nonnull(strstr(out.data, "@bottom-right{content:\"Page \" counter(page) \" of \" counter(pages)"));
	ck_assert_ptr_null(strstr(out.data, "</style><script>"));
	buf_reset(&out);
	o.brand = NULL;
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "<title>Storage performance analysis &ndash; "));
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

/* Markdown text is escaped for Markdown, not HTML: "->", ">= 31" and "a < b" stay as written, and a
 * name from a capture still cannot open a tag, a link, a character reference, a table cell or a block */
START_TEST(md_escape_is_markdown)
{
	static const struct {
		const char *in, *out;
	} t[] = {
		{"reads 6.5 -> 141 ms", "reads 6.5 -> 141 ms"},
		{"Queue >= 31 and < 5 & more", "Queue >= 31 and < 5 & more"},
		{"sec/Transfer >> GAVG", "sec/Transfer >> GAVG"},
		{"<script>alert(1)</script>", "\\<script>alert(1)\\</script>"},
		{"x<img src=x onerror=alert(1)>", "x\\<img src=x onerror=alert(1)>"},
		{"<!-- c --> <?php", "\\<!-- c --> \\<?php"},
		{"<http://evil.example/>", "\\<http://evil.example/>"},
		{"R&amp;D &#60; &#x3c;", "R\\&amp;D \\&#60; \\&#x3c;"},
		{"[x](javascript:alert(1)) ![i](y)", "\\[x\\](javascript:alert(1)) !\\[i\\](y)"},
		{"a|b `c` *d* _e_ ~f~ \\g", "a\\|b \\`c\\` \\*d\\* \\_e\\_ \\~f\\~ \\\\g"},
		{"# h", "\\# h"},
		{"> quote", "\\> quote"},
		{"- item", "\\- item"},
		{"12. item", "12\\. item"},
		{"3) item", "3\\) item"},
		{"10 ms", "10 ms"},
		{"two\nlines\x01", "two lines\\\\x01"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct buf b;
		buf_init(&b);
		md_escape(&b, t[i].in);
		ck_assert_msg(b.data && strcmp(b.data, t[i].out) == 0, "md_escape(\"%s\") = \"%s\", not \"%s\"", t[i].in,
			      b.data ? b.data : "", t[i].out);
		buf_free(&b);
	}
}
END_TEST

/* The HTML says a clock offset as --clock-offset and the text report do: guest clock minus host
 * clock (--clock-offset 30 is "+30.0 s"; the times are shifted by -30 s) */
START_TEST(clock_offset_sign)
{
	struct fixture fx;
	fixture_load(&fx);
	ck_assert_uint_ge(fx.a.m.ncaps, 1);
	fx.a.m.caps[0].clock_offset_ms = -30000; /* what --clock-offset 30 applies */
	fx.a.m.caps[0].offset_estimated = false;
	struct html_opts o = {.gnuplot = "/nonexistent/gnuplot"};
	struct html_result res;
	struct buf out, msg, txt;
	buf_init(&out);
	buf_init(&msg);
	buf_init(&txt);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "guest clock +30.0 s off the host&#39;s (as given)"));
	ck_assert_ptr_null(strstr(out.data, "-30.0 s off the host"));
	ck_assert_int_eq(reporter_find("text")->analysis(&fx.a, &(struct report_opts){0}, &txt), 0);
	ck_assert_ptr_nonnull(strstr(txt.data, "guest clock +30.0 s off the host's"));
	/* an estimated offset: the same sign, and the shift applied said as a shift */
	fx.a.m.caps[0].offset_estimated = true;
	fx.a.m.caps[0].offset_confidence = 0.97;
	buf_reset(&out);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_ptr_nonnull(
	    strstr(out.data, "guest clock +30.0 s off the host&#39;s (estimated from IOPS, r = 0.97)"));
	ck_assert_ptr_nonnull(strstr(out.data, "shifted by -30.0 s to match the host"));
	buf_free(&out);
	buf_free(&msg);
	buf_free(&txt);
	fixture_free(&fx);
}
END_TEST

/* Recommended actions: the array's QUEUE FULL on one LU seen by two hosts (a shared-LU finding
 * naming both, adaptive queue depth on each) is one action naming both hosts once; a move to
 * PVSCSI names the busy disks only, not an idle boot disk with a finding of its own. */
static struct finding fake_finding(enum kind k, enum severity sev, enum layer l, const char *host, const char *ent,
				   double cdql)
{
	struct finding f;
	memset(&f, 0, sizeof f);
	f.kind = k;
	f.sev = sev;
	f.layer = l;
	f.host = host;
	f.entity = ent;
	f.ent = -1;
	f.capture = -1;
	f.summary = "s";
	f.driver_share = NAN;
	f.start = 1785157200000;
	f.end = f.start + 600000;
	if (!isnan(cdql)) {
		f.ev[0] = (struct evidence){.metric = M_G_CDQL, .min = cdql, .median = cdql, .p95 = cdql, .max = cdql,
					    .samples = 100, .threshold = NAN};
		f.nev = 1;
	}
	return f;
}

START_TEST(actions_not_repeated)
{
	struct analysis a;
	analysis_init(&a);
	const char *lu = "naa.624a93708c1f4e2b1102000067bf1af7";
	struct finding f[] = {
		fake_finding(K_Q_ARRAY_OVERCOMMIT, SEV_CRITICAL, LAYER_DEVICE, "esx01.lab.local, esx02.lab.local", lu, NAN),
		fake_finding(K_T_AQD, SEV_CRITICAL, LAYER_DEVICE, "esx02.lab.local", lu, NAN),
		fake_finding(K_SCSI_QUEUE_FULL, SEV_WARNING, LAYER_DEVICE, "esx02.lab.local", lu, NAN),
		fake_finding(K_T_AQD, SEV_CRITICAL, LAYER_DEVICE, "esx01.lab.local", lu, NAN),
		fake_finding(K_Q_GUEST_VSCSI_CAP, SEV_CRITICAL, LAYER_VSCSI, "SQL01", "D:", 140),
		fake_finding(K_Q_GUEST_HIDDEN, SEV_WARNING, LAYER_GUEST, "SQL01", "E:", 17),
		fake_finding(K_Q_GUEST_HIDDEN, SEV_WARNING, LAYER_GUEST, "SQL01", "C:", 0),
	};
	a.f = f;
	a.nf = sizeof f / sizeof f[0];
	a.verdict_first = -1;
	struct ltime lt;
	ltime_init(&lt, &a.m, NULL);
	struct exec_summary es;
	summary_of_analysis(&a, &lt, &es);
	int qfull = 0, pvscsi = 0;
	for (int i = 0; i < es.nactions; i++) {
		for (int j = 0; j < i; j++)
			ck_assert_msg(strcmp(es.act[i].what, es.act[j].what) != 0, "action said twice: %s", es.act[i].what);
		if (strstr(es.act[i].what, "QUEUE FULL")) {
			qfull++;
			ck_assert_msg(strstr(es.act[i].what, "on hosts esx01.lab.local, esx02.lab.local,") ||
					      strstr(es.act[i].what, "on hosts esx02.lab.local, esx01.lab.local,"),
				      "%s", es.act[i].what);
			ck_assert_int_eq(es.act[i].nwhy, 4);
		}
		if (strstr(es.act[i].what, "PVSCSI")) {
			pvscsi++;
			ck_assert_msg(strstr(es.act[i].what, "(D:, E:)"), "an idle disk among the busy ones: %s", es.act[i].what);
			ck_assert_int_eq(es.act[i].nwhy, 3); /* C:'s finding is still one of its reasons */
		}
	}
	ck_assert_int_eq(qfull, 1);
	ck_assert_int_eq(pvscsi, 1);
	summary_free(&es);
	a.f = NULL;
	a.nf = 0;
	analysis_free(&a);
}
END_TEST

START_TEST(no_gnuplot)
{
	struct fixture fx;
	fixture_load(&fx);
	struct html_opts o = {.gnuplot = "/nonexistent/gnuplot"};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert(res.no_gnuplot);
	ck_assert_int_eq(res.charts, 0);
	ck_assert_ptr_nonnull(strstr(out.data, "Charts are not included"));
	ck_assert_ptr_null(strstr(out.data, "<svg"));
	ck_assert_ptr_nonnull(strstr(msg.data, "gnuplot was not found"));
	assert_inert(out.data, fx.dir);
	/* --require-charts: an error, and the caller writes nothing */
	buf_reset(&out);
	buf_reset(&msg);
	o.require_charts = true;
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), CHARTS_NO_GNUPLOT);
	/* with --gnuplot-dir the data and scripts are still written, to be run elsewhere */
	char gpdir[128], p[200];
	snprintf(gpdir, sizeof gpdir, "%s/gp", fx.dir);
	o.require_charts = false;
	o.gnuplot_dir = gpdir;
	buf_reset(&out);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	snprintf(p, sizeof p, "%s/chart-01.gp", gpdir);
	ck_assert_int_eq(access(p, R_OK), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "chart-01.gp"));
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

/* The Explore section: in the HTML file, the analysed entities' series with the findings, its two
 * scripts allowed by their hashes and nothing else (no 'unsafe-inline' or eval for scripts); left
 * out with --no-explore and on paper (the PDF's HTML), which then have no script and no
 * script-src at all. */
START_TEST(explore_section)
{
	struct fixture fx;
	fixture_load(&fx);
	struct html_opts o = {.gnuplot = "/nonexistent/gnuplot"};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	for (int k = 0; k < 3; k++) { /* the HTML file, --no-explore, the printed edition */
		fx.a.opts.no_explore = k == 1;
		o.print = k == 2;
		buf_reset(&out);
		ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
		const char *csp = strstr(out.data, "<meta http-equiv=\"Content-Security-Policy\" content=\"");
		ck_assert_ptr_nonnull(csp);
		char *pol = xstrndup(csp, (size_t)(strchr(csp + 60, '"') - csp));
		ck_assert_msg(!strstr(pol, "unsafe-eval"), "%s", pol);
		ck_assert_uint_eq(count(out.data, "Content-Security-Policy"), 1);
		const char *ss = strstr(pol, "script-src ");
		if (k == 0) {
			ck_assert_ptr_nonnull(strstr(out.data, "<section id=\"explore\">\n<h2>Explore</h2>"));
			ck_assert_ptr_nonnull(strstr(out.data, "<a href=\"#explore\">"));
			ck_assert_msg(ss && strncmp(ss + 11, view_csp_script, strlen(view_csp_script)) == 0, "%s", pol);
			ck_assert_ptr_null(strstr(ss, "unsafe"));
			const char *e, *j = json_element(out.data, "iopsy-view-data", &e);
			ck_assert_ptr_nonnull(j);
			ck_assert(strncmp(j, "{\"v\":1,\"embed\":true,", 20) == 0);
			ck_assert_ptr_nonnull(strstr(j, "\"series\":[{\"c\":0,\"o\":\"Guest disk\""));
			const char *f = strstr(j, "\"findings\":[{");
			ck_assert_msg(f && f < e, "no finding on the Explore section's timeline");
			ck_assert_ptr_nonnull(strstr(out.data, view_uplot_css));
		} else {
			ck_assert_ptr_null(strstr(out.data, "explore\""));
			ck_assert_ptr_null(strstr(out.data, "<script>"));
			ck_assert_ptr_null(ss);
			ck_assert_uint_eq(count(out.data, "<script"), 1); /* the analysis's JSON */
			ck_assert_ptr_null(strstr(out.data, "u-legend"));
		}
		free(pol);
	}
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

/* The Explore section's series: every series keeps its entity's smallest and largest sample (the
 * buckets' minimum and maximum, each a group's), also merged in groups to fit a small budget; the entities a
 * finding names come first; the budget holds. */
START_TEST(explore_series_keep_extremes)
{
	struct fixture fx;
	fixture_load(&fx);
	long budget = VIEW_EXPLORE_BUDGET;
	for (int pass = 0; pass < 2; pass++) {
		struct view_data v;
		view_init(&v, budget);
		view_from_analysis(&v, &fx.a);
		ck_assert_uint_gt(v.ns, 0);
		ck_assert_uint_gt(v.nf, 0);
		ck_assert_uint_eq(v.dropped, 0);
		size_t numbers = 0, checked = 0;
		for (size_t i = 0; i < v.ns; i++) {
			const struct view_series *s = &v.s[i];
			const struct view_cap *c = &v.caps[s->cap];
			/* 240 rows: every one at the default budget, groups of 3 at 80 buckets a series (a
			 * group across the slow episode's start at row 20 holds two values) */
			ck_assert_int_eq(c->w, pass ? 3 : 1);
			const struct dstore *d = &fx.a.m.caps[0].ds;
			for (size_t k = 0; k < c->nb; k++) {
				double mn = NAN, mx = NAN;
				for (size_t j = k * (size_t)c->w; j < (k + 1) * (size_t)c->w && j < d->nb; j++) {
					mn = isnan(mn) ? ds_min(d, s->col, j) : fmin(mn, ds_min(d, s->col, j));
					mx = isnan(mx) ? ds_max(d, s->col, j) : fmax(mx, ds_max(d, s->col, j));
				}
				ck_assert(isnan(mn) ? isnan(s->lo[k]) : s->lo[k] == mn);
				ck_assert(isnan(mx) ? isnan(s->hi[k]) : s->hi[k] == mx);
			}
			numbers += 2 * c->nb;
			double lo = INFINITY, hi = -INFINITY;
			for (size_t k = 0; k < c->nb; k++) {
				if (!isnan(s->lo[k]))
					lo = fmin(lo, s->lo[k]);
				if (!isnan(s->hi[k]))
					hi = fmax(hi, s->hi[k]);
			}
			for (size_t e = 0; e < fx.a.m.nents; e++) {
				const struct entity *en = &fx.a.m.ents[e];
				for (int m = 0; m < M_COUNT && strcmp(en->name, s->entity) == 0; m++)
					if (strcmp(metric_info[m].name, s->metric) == 0 && en->series[m] == (int)s->col) {
						ck_assert_double_eq_tol(lo, entity_sk(en, m)->min, 1e-9);
						ck_assert_double_eq_tol(hi, entity_sk(en, m)->max, 1e-9);
						checked++;
					}
			}
		}
		ck_assert_uint_ge(checked, v.ns);
		ck_assert_uint_le(numbers, (size_t)budget);
		bool named = false; /* the first series are those of an entity a finding names */
		for (size_t i = 0; i < fx.a.nf; i++)
			named |= fx.a.f[i].entity && strcmp(fx.a.f[i].entity, v.s[0].entity) == 0;
		ck_assert(named);
		budget = 2L * 80 * (long)v.ns;
		view_free(&v);
	}
	fixture_free(&fx);
}
END_TEST

START_TEST(gnuplot_fails)
{
	struct fixture fx;
	fixture_load(&fx);
	struct html_opts o = {.gnuplot = "/bin/false", .max_charts = 2};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_int_eq(res.charts, 0);
	ck_assert_int_eq(res.charts_failed, 2);
	ck_assert_ptr_nonnull(strstr(msg.data, "exited with status 1"));
	ck_assert_ptr_nonnull(strstr(out.data, "could not be drawn"));
	o.require_charts = true;
	buf_reset(&out);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), CHARTS_FAILED);
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

START_TEST(gnuplot_timeout)
{
	struct fixture fx;
	fixture_load(&fx);
	char prog[128];
	snprintf(prog, sizeof prog, "%s/hang.sh", fx.dir);
	FILE *fp = fopen(prog, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("#!/bin/sh\nexec sleep 30\n", fp);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_int_eq(chmod(prog, 0755), 0);
	struct html_opts o = {.gnuplot = prog, .max_charts = 1, .timeout_s = 1};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_int_eq(res.charts_failed, 1);
	ck_assert_ptr_nonnull(strstr(msg.data, "did not finish within 1 s"));
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

/* ---- several charts, one gnuplot ---- */

/* Writes an executable shell script DIR/NAME; returns its path (caller frees). */
static char *write_script(const char *dir, const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_int_eq(chmod(path, 0755), 0);
	return xstrdup(path);
}

/* Lines in a file (0 when it does not exist): the wrappers below log one line per start. */
static size_t file_lines(const char *path)
{
	char *t = slurp(path);
	size_t n = t ? count(t, "\n") : 0;
	free(t);
	return n;
}

/* A wrapper around the real gnuplot that counts its starts in DIR/runs; extra is run first in
 * the chart folder (e.g. to break one chart's script). */
static char *gnuplot_wrapper(const char *dir, const char *extra)
{
	char text[1024];
	snprintf(text, sizeof text, "#!/bin/sh\necho run >> %s/runs\n%s\nexec gnuplot \"$@\"\n", dir, extra);
	return write_script(dir, "gnuplot-wrapper.sh", text);
}

/* A fake gnuplot that reads the batch script it is given: it writes a tiny SVG for each chart it
 * loads and says so as gnuplot's print would, but on the second chart of every start it fails with
 * a message (FAKE_FAIL), hangs (FAKE_HANG) or exits 1 without a word (FAKE_SILENT). */
enum fake_mode { FAKE_FAIL, FAKE_HANG, FAKE_SILENT };
static char *fake_gnuplot(const char *dir, enum fake_mode mode)
{
	char text[2048];
	snprintf(text, sizeof text,
		 "#!/bin/sh\n"
		 "echo run >> %s/runs\n"
		 "n=0\n"
		 "while IFS= read -r line; do\n"
		 "  case $line in\n"
		 "  \"load 'chart-\"*)\n"
		 "    n=$((n + 1)); stem=${line#load \\'}; stem=${stem%%.gp\\'}\n"
		 "    if [ $n = 2 ]; then %s; fi\n"
		 "    printf '<svg viewBox=\"0 0 1 1\"><g id=\"fake\"/></svg>\\n' > $stem.svg ;;\n"
		 "  \"print '\"*) p=${line#print \\'}; echo \"${p%%\\'}\" >&2 ;;\n"
		 "  esac\n"
		 "done < \"$1\"\n",
		 dir, mode == FAKE_HANG ? "exec sleep 30"
		 : mode == FAKE_SILENT ? "exit 1"
				       : "echo \"\\\"$stem.gp\\\" line 1: fake failure\" >&2; exit 1");
	return write_script(dir, "fake-gnuplot.sh", text);
}

/* s without its <title> elements (tooltips: after another chart in the same process, gnuplot
 * names an untitled plot's group by the last tic label instead of its id; nothing else differs,
 * and the report's inlined SVG drops titles anyway). */
static void strip_titles(char *s)
{
	char *w = s;
	for (char *r = s; *r;) {
		if (strncmp(r, "<title>", 7) == 0) {
			char *e = strstr(r, "</title>");
			if (e) {
				r = e + 8;
				continue;
			}
		}
		*w++ = *r++;
	}
	*w = '\0';
}

START_TEST(charts_in_one_process)
{
	if (!have_gnuplot())
		return;
	struct fixture fx;
	fixture_load(&fx);
	char *prog = gnuplot_wrapper(fx.dir, ":");
	char gpdir[128], runs[128];
	snprintf(gpdir, sizeof gpdir, "%s/gp", fx.dir);
	snprintf(runs, sizeof runs, "%s/runs", fx.dir);
	struct html_opts o = {.gnuplot = prog, .gnuplot_dir = gpdir};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_int_ge(res.charts, 2);
	ck_assert_int_eq(res.charts_failed, 0);
	ck_assert_uint_eq(file_lines(runs), 1);
	/* each chart is byte for byte the one its script draws alone */
	for (int k = 1; k <= res.charts; k++) {
		char svg[200], alone[200], cmd[600];
		snprintf(svg, sizeof svg, "%s/chart-%02d.svg", gpdir, k);
		snprintf(alone, sizeof alone, "%s/alone-%02d.svg", gpdir, k);
		char *batch = slurp(svg);
		ck_assert_ptr_nonnull(batch);
		snprintf(cmd, sizeof cmd, "cd %s && HOME=%s gnuplot chart-%02d.gp && mv chart-%02d.svg alone-%02d.svg", gpdir, gpdir,
			 k, k, k);
		ck_assert_int_eq(system(cmd), 0);
		char *one = slurp(alone);
		ck_assert_ptr_nonnull(one);
		strip_titles(batch);
		strip_titles(one);
		ck_assert_msg(strcmp(batch, one) == 0, "chart %d drawn in the batch differs from the chart drawn alone", k);
		free(batch);
		free(one);
	}
	/* nothing but the charts' own files is left in the folder */
	char left[200];
	snprintf(left, sizeof left, "%s/iopsy-charts.gp", gpdir);
	ck_assert_int_ne(access(left, F_OK), 0);
	snprintf(left, sizeof left, "%s/iopsy-charts.log", gpdir);
	ck_assert_int_ne(access(left, F_OK), 0);
	free(prog);
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

START_TEST(one_chart_fails_of_several)
{
	if (!have_gnuplot())
		return;
	struct fixture fx;
	fixture_load(&fx);
	/* the second chart's script ends with an error */
	char *prog = gnuplot_wrapper(fx.dir, "echo 'plot no_such_function(x)' >> chart-02.gp");
	char runs[128];
	snprintf(runs, sizeof runs, "%s/runs", fx.dir);
	struct html_opts o = {.gnuplot = prog};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	int total = res.charts + res.charts_failed;
	ck_assert_int_ge(total, 3);
	ck_assert_int_eq(res.charts_failed, 1);
	ck_assert_ptr_nonnull(strstr(msg.data, "chart 2 (finding "));
	ck_assert_ptr_nonnull(strstr(msg.data, "gnuplot exited with status 1: \"chart-02.gp\" line"));
	ck_assert_ptr_nonnull(strstr(msg.data, "no_such_function"));
	ck_assert_ptr_null(strstr(msg.data, "chart 1 "));
	ck_assert_ptr_null(strstr(msg.data, "chart 3 "));
	/* the others are drawn, the failed one is a note; one restart after the failure */
	ck_assert_ptr_nonnull(strstr(out.data, "<figure class=\"chart\" id=\"chart-1\">"));
	ck_assert_ptr_null(strstr(out.data, "<figure class=\"chart\" id=\"chart-2\">"));
	ck_assert_ptr_nonnull(strstr(out.data, "<figure class=\"chart\" id=\"chart-3\">"));
	ck_assert_ptr_nonnull(strstr(out.data, "could not be drawn"));
	ck_assert_uint_eq(file_lines(runs), 2);
	/* --require-charts: the failed chart is an error */
	o.require_charts = true;
	buf_reset(&out);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), CHARTS_FAILED);
	free(prog);
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

START_TEST(fake_gnuplot_fails_the_second_chart)
{
	struct fixture fx;
	fixture_load(&fx);
	char *prog = fake_gnuplot(fx.dir, FAKE_FAIL);
	char runs[128];
	snprintf(runs, sizeof runs, "%s/runs", fx.dir);
	struct html_opts o = {.gnuplot = prog};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	/* start 1 draws chart 1 and fails on 2; start 2 draws 3 (and would fail on a fourth) */
	int total = res.charts + res.charts_failed;
	ck_assert_int_ge(total, 3);
	ck_assert_int_eq(res.charts_failed, total / 2);
	ck_assert_uint_eq(file_lines(runs), (size_t)(total + 1) / 2);
	ck_assert_ptr_nonnull(strstr(out.data, "id=\"chart-1\""));
	ck_assert_ptr_nonnull(strstr(out.data, "id=\"chart-3\""));
	ck_assert_ptr_nonnull(strstr(msg.data, "chart 2 (finding "));
	ck_assert_ptr_nonnull(strstr(msg.data, "gnuplot exited with status 1: \"chart-02.gp\" line 1: fake failure"));
	ck_assert_ptr_null(strstr(msg.data, "chart 1 "));
	ck_assert_ptr_null(strstr(msg.data, "chart 3 "));
	free(prog);
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

START_TEST(one_chart_hangs_of_several)
{
	struct fixture fx;
	fixture_load(&fx);
	char *prog = fake_gnuplot(fx.dir, FAKE_HANG);
	struct html_opts o = {.gnuplot = prog, .max_charts = 2, .timeout_s = 1};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	/* the time is for the whole run: 1 s per chart; the chart drawn before the hang is kept */
	ck_assert_int_eq(res.charts, 1);
	ck_assert_int_eq(res.charts_failed, 1);
	ck_assert_ptr_nonnull(strstr(msg.data, "chart 2 (finding "));
	ck_assert_ptr_nonnull(strstr(msg.data, "did not finish within 2 s (1 s for each of 2 charts)"));
	free(prog);
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

START_TEST(unwritable_chart_among_several)
{
	struct fixture fx;
	fixture_load(&fx);
	/* chart 2's data file cannot be written: it is failed before gnuplot runs, and the batch
	 * (charts 1 and 3, with a gnuplot that stops without a word on the second chart it loads)
	 * reports its own failure for chart 3, not for chart 2 */
	char *prog = fake_gnuplot(fx.dir, FAKE_SILENT);
	char gpdir[128], blocker[200];
	snprintf(gpdir, sizeof gpdir, "%s/gp", fx.dir);
	ck_assert_int_eq(mkdir(gpdir, 0755), 0);
	snprintf(blocker, sizeof blocker, "%s/chart-02.dat", gpdir);
	ck_assert_int_eq(mkdir(blocker, 0755), 0);
	struct html_opts o = {.gnuplot = prog, .gnuplot_dir = gpdir, .max_charts = 3};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_int_eq(res.charts, 1);
	ck_assert_int_eq(res.charts_failed, 2);
	const char *c2 = strstr(msg.data, "chart 2 (finding "), *c3 = strstr(msg.data, "chart 3 (finding ");
	ck_assert_ptr_nonnull(c2);
	ck_assert_ptr_nonnull(c3);
	char *line2 = xstrndup(c2, strcspn(c2, "\n"));
	ck_assert_ptr_nonnull(strstr(line2, "cannot create"));
	ck_assert_ptr_null(strstr(line2, "exited"));
	free(line2);
	ck_assert_ptr_nonnull(strstr(c3, "gnuplot exited with status 1"));
	ck_assert_ptr_nonnull(strstr(out.data, "id=\"chart-1\""));
	free(prog);
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

START_TEST(restyle_and_cleanup)
{
	if (!have_gnuplot())
		return;
	struct fixture fx;
	fixture_load(&fx);
	/* temporary chart folders are removed afterwards */
	char tmp[128];
	snprintf(tmp, sizeof tmp, "%s/tmp", fx.dir);
	ck_assert_int_eq(mkdir(tmp, 0700), 0);
	char *old = getenv("TMPDIR") ? xstrdup(getenv("TMPDIR")) : NULL;
	setenv("TMPDIR", tmp, 1);
	struct html_opts o = {0};
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&fx.a, &o, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_int_gt(res.charts, 0);
	ck_assert_int_eq(rmdir(tmp), 0); /* empty: nothing left behind */
	if (old) {
		setenv("TMPDIR", old, 1);
		free(old);
	} else {
		unsetenv("TMPDIR");
	}
	/* a restyled style.gp in --gnuplot-dir is kept and used */
	char gpdir[128], style[200];
	snprintf(gpdir, sizeof gpdir, "%s/gp", fx.dir);
	ck_assert_int_eq(mkdir(gpdir, 0755), 0);
	snprintf(style, sizeof style, "%s/style.gp", gpdir);
	buf_reset(&out);
	ck_assert_int_eq(report_html_analysis(&fx.a, &(struct html_opts){.gnuplot_dir = gpdir}, &out, &res, DIAG_INTO(&msg)), 0);
	char *t = slurp(style);
	ck_assert_ptr_nonnull(t);
	struct buf s2;
	buf_init(&s2);
	buf_adds(&s2, t);
	buf_adds(&s2, "c1 = '#123456'\n");
	free(t);
	FILE *fp = fopen(style, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(s2.data, fp);
	ck_assert_int_eq(fclose(fp), 0);
	buf_free(&s2);
	ck_assert_ptr_null(strstr(out.data, "rgb( 18,  52,  86)"));
	buf_reset(&out);
	ck_assert_int_eq(report_html_analysis(&fx.a, &(struct html_opts){.gnuplot_dir = gpdir}, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "rgb( 18,  52,  86)"));
	buf_free(&out);
	buf_free(&msg);
	fixture_free(&fx);
}
END_TEST

START_TEST(unreadable_capture)
{
	struct analysis a;
	analysis_init(&a);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = 0;
	/* the reader's error message is expected: keep it off the test output (also with CK_FORK=no) */
	fflush(stderr);
	int saved = dup(2), devnull = open("/dev/null", O_WRONLY);
	ck_assert(saved >= 0 && devnull >= 0 && dup2(devnull, 2) == 2);
	int rc = model_add_capture(&a.m, "/nonexistent/esxtop.csv", &co);
	fflush(stderr);
	ck_assert_int_eq(dup2(saved, 2), 2);
	close(saved);
	close(devnull);
	ck_assert_int_lt(rc, 0);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_run(&a, &ao);
	struct html_result res;
	struct buf out, msg;
	buf_init(&out);
	buf_init(&msg);
	ck_assert_int_eq(report_html_analysis(&a, &(struct html_opts){.gnuplot = "/nonexistent/gnuplot"}, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "could not be read"));
	ck_assert_ptr_nonnull(strstr(out.data, "</html>"));
	buf_free(&out);
	buf_free(&msg);
	analysis_free(&a);
}
END_TEST

/* ---- the before/after report ---- */

START_TEST(compare_report)
{
	char dir[] = "/tmp/iopsy-htmlcmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *before = write_capture(dir, "before.csv", 0.080), *after = write_capture(dir, "after.csv", 0.003);
	struct compare c;
	compare_init(&c);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = 0;
	ck_assert_int_eq(compare_add_capture(&c, CMP_BEFORE, before, &co), 0);
	ck_assert_int_eq(compare_add_capture(&c, CMP_AFTER, after, &co), 0);
	struct compare_opts o;
	compare_opts_init(&o);
	o.resamples = 200;
	struct buf warn, out, msg;
	buf_init(&warn);
	buf_init(&out);
	buf_init(&msg);
	compare_run(&c, &o, DIAG_INTO(&warn));
	struct html_result res;
	ck_assert_int_eq(report_html_compare(&c, &(struct html_opts){0}, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "<title>Before and after &ndash; "));
	{
		struct buf t;
		buf_init(&t);
		struct report_brand br = {.title = "<b>LSI</b> -> PVSCSI"};
		ck_assert_int_eq(report_html_compare(&c, &(struct html_opts){.brand = &br}, &t, &res, DIAG_INTO(&msg)), 0);
		ck_assert_ptr_nonnull(strstr(t.data, "<title>&lt;b&gt;LSI&lt;/b&gt; -&gt; PVSCSI</title>"));
		buf_free(&t);
	}
	/* inert: the names are text, the JSON cannot close its element */
	ck_assert_uint_eq(count(out.data, "<script"), 1);
	ck_assert_uint_eq(count(out.data, "</script>"), 1);
	ck_assert_ptr_null(strstr(out.data, "<img"));
	ck_assert_ptr_null(strstr(out.data, "<b>x</b>"));
	ck_assert_ptr_nonnull(strstr(out.data, "EVIL&lt;/script&gt;&lt;b&gt;x&lt;/b&gt;&quot;&#39;`id`"));
	const char *j = strstr(out.data, "id=\"iopsy-data\">");
	ck_assert_ptr_nonnull(j);
	for (const char *p = j + 17; p < strstr(j, "</script>"); p++)
		ck_assert(*p != '<' && *p != '>');
	/* the latency fell: a key change, the finding gone, and (with gnuplot) the three chart kinds */
	ck_assert_ptr_nonnull(strstr(out.data, "<span class=\"cv good\">improved</span>"));
	ck_assert_ptr_nonnull(strstr(out.data, "<span class=\"fs gone\">gone</span>"));
	if (have_gnuplot()) {
		ck_assert_int_ge(res.charts, 3);
		ck_assert_int_eq(res.charts_failed, 0);
		ck_assert_ptr_nonnull(strstr(out.data, "Distribution of Avg. Disk sec/"));
		ck_assert_ptr_nonnull(strstr(out.data, "against Disk Transfers/sec"));
		ck_assert_ptr_nonnull(strstr(out.data, "by time of day"));
	}
	/* without gnuplot it says so, and --require-charts makes it an error */
	buf_reset(&out);
	buf_reset(&msg);
	ck_assert_int_eq(report_html_compare(&c, &(struct html_opts){.gnuplot = "/nonexistent/gnuplot"}, &out, &res, DIAG_INTO(&msg)), 0);
	ck_assert(res.no_gnuplot);
	ck_assert_ptr_nonnull(strstr(out.data, "Charts are not included"));
	ck_assert_ptr_null(strstr(out.data, "<svg"));
	buf_reset(&out);
	ck_assert_int_eq(report_html_compare(&c, &(struct html_opts){.gnuplot = "/nonexistent/gnuplot", .require_charts = true},
					     &out, &res, DIAG_INTO(&msg)),
			 CHARTS_NO_GNUPLOT);
	char pwned[128];
	snprintf(pwned, sizeof pwned, "%s/pwned", dir);
	ck_assert_int_ne(access(pwned, F_OK), 0);
	buf_free(&warn);
	buf_free(&out);
	buf_free(&msg);
	compare_free(&c);
	free(before);
	free(after);
	rm_tree(dir);
}
END_TEST

Suite *html_suite(void)
{
	Suite *s = suite_create("html");
	TCase *tc = tcase_create("pieces");
	/* chart_num_equals_printf compares ~10^5 numbers: seconds under ASan on a loaded machine
	 * (it hit check's default 4 s with two sanitizer runs on two cores) */
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, escape_table, 0, (int)(sizeof esc_cases / sizeof esc_cases[0]));
	tcase_add_test(tc, gp_quoting);
	tcase_add_test(tc, md_escape_is_markdown);
	tcase_add_test(tc, actions_not_repeated);
	tcase_add_test(tc, downsample_keeps_spikes);
	tcase_add_test(tc, downsample_small_is_identity);
	tcase_add_test(tc, add_series_caps_points);
	tcase_add_test(tc, script_has_only_trusted_text);
	tcase_add_test(tc, script_key_has_room);
	tcase_add_test(tc, svg_ids_prefixed);
	tcase_add_test(tc, svg_inline_equals_reference);
	tcase_add_test(tc, chart_num_equals_printf);
	suite_add_tcase(s, tc);
	TCase *tr = tcase_create("report");
	tcase_set_timeout(tr, 60);
	tcase_add_test(tr, hostile_names_escaped);
	tcase_add_test(tr, top_png_axis_as_svg);
	tcase_add_test(tr, svg_ids_unique_in_report);
	tcase_add_test(tr, no_gnuplot);
	tcase_add_test(tr, explore_section);
	tcase_add_test(tr, explore_series_keep_extremes);
	tcase_add_test(tr, title_is_the_documents);
	tcase_add_test(tr, clock_offset_sign);
	tcase_add_test(tr, gnuplot_fails);
	tcase_add_test(tr, gnuplot_timeout);
	tcase_add_test(tr, charts_in_one_process);
	tcase_add_test(tr, one_chart_fails_of_several);
	tcase_add_test(tr, fake_gnuplot_fails_the_second_chart);
	tcase_add_test(tr, one_chart_hangs_of_several);
	tcase_add_test(tr, unwritable_chart_among_several);
	tcase_add_test(tr, restyle_and_cleanup);
	tcase_add_test(tr, unreadable_capture);
	tcase_add_test(tr, compare_report);
	suite_add_tcase(s, tr);
	return s;
}
