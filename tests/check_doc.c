/* check_doc.c — the report document (reports/doc.h): every section of the registry doc_secs[]
 * is in the report of every writer of reporters[] (each says how it marks them) of a capture set that fills
 * every section (the LSI sample with SQL Server, a --map with a line that names nothing and one
 * that maps a virtual disk twice, a --clock-offset, a rules file); the inputs section says what the captures said about each
 * input; the renderers escape what comes from captures. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "compare.h"
#include "doc.h"
#include "html_vhist.h"
#include "maps.h"
#include "pdf.h"
#include "reporter.h"
#include "suites.h"

/* The pairs drawn from the document today (analysis_pairs_from_the_document, ...): a ratchet. */
enum { ANALYSIS_PAIRS_FLOOR = 60, COMPARE_PAIRS_FLOOR = 34 };

static char *path_of(const char *rel)
{
	const char *s = getenv("IOPSY_SRCDIR");
	struct buf b;
	buf_init(&b);
	buf_printf(&b, "%s/%s", s ? s : ".", rel);
	return b.data;
}

/* The LSI sample with every input given: a map with one line that names no disk of the
 * captures, a clock offset the IOPS contradict, the site rules. The analysis borrows the file
 * names: keep[0 .. RICH_KEEP - 1] are freed by the caller after analysis_free. */
enum { RICH_KEEP = 4 };
static void rich_analysis(struct analysis *a, char *mapfile, char **keep)
{
	char *e = path_of("samples/lsi-guest-queue-cap/esxtop.csv.gz"), *g = path_of("samples/lsi-guest-queue-cap/perfmon.csv.gz");
	char *rf = path_of("tests/inputs/analyze/site.rules");
	char *vs = path_of("tests/data/vscsistats/helper-sample.csv"); /* the histograms section */
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = 0;
	analysis_init(a);
	struct diag dg;
	diag_init(&dg, rf, -1);
	ck_assert_int_eq(rules_load(&a->rules, rf, &dg), 0);
	ck_assert_int_eq(model_add_capture(&a->m, e, &co), 0);
	ck_assert_int_eq(model_add_capture(&a->m, g, &co), 0);
	ck_assert_int_eq(model_add_capture(&a->m, vs, &co), 0);
	int fd = mkstemp(mapfile);
	ck_assert_int_ge(fd, 0);
	const char *map = "SQL01\\C: = SQL01:scsi0:0\nSQL01\\D: = SQL01:scsi0:1\nSQL01\\E: = SQL01:scsi0:2\n"
			  "SQL01\\F: = SQL01:scsi0:3\nSQL01\\Z: = SQL01:scsi0:9\nSQL01\\Y: = SQL01:scsi0:1\n";
	ck_assert_int_eq(write(fd, map, strlen(map)), (ssize_t)strlen(map));
	close(fd);
	struct diskmap dm;
	diag_init(&dg, mapfile, -1);
	ck_assert_int_eq(diskmap_read(&dm, mapfile, &dg), 0);
	analysis_use_diskmap(a, &dm, mapfile);
	diskmap_free(&dm);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	ao.map = mapfile;
	ao.rules = rf;
	ao.clock_offset_given = true;
	ao.clock_offset_s = 120;
	analysis_run(a, &ao);
	keep[0] = e;
	keep[1] = g;
	keep[2] = rf;
	keep[3] = vs;
}

/* The workbook's XML parts, concatenated (unzip -p). */
static char *xlsx_xml(const struct buf *zip)
{
	char tmpl[] = "/tmp/iopsy-doc-XXXXXX";
	int fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, zip->data, zip->len), (ssize_t)zip->len);
	close(fd);
	char cmd[128];
	snprintf(cmd, sizeof cmd, "unzip -p '%s'", tmpl);
	FILE *fp = popen(cmd, "r");
	ck_assert_ptr_nonnull(fp);
	struct buf b;
	buf_init(&b);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	ck_assert_int_eq(pclose(fp), 0);
	unlink(tmpl);
	return b.data;
}

/* The report of reporter r (an analysis, or the comparison c when a is NULL) as the text its
 * section marks are found in: the workbook's XML parts; NULL when r prints another's report
 * (DW_PRINT: that one is checked). Fails on a reporter that says no way of marking sections. */
static char *report_of(const struct reporter *r, const struct analysis *a, const struct compare *c)
{
	ck_assert_msg(r->doc != DW_NONE, "reporter %s does not say how it marks the document's sections "
					 "(struct reporter.doc)", r->name);
	if (r->doc == DW_PRINT) {
		ck_assert_msg(r->print_of && r->print_of->doc != DW_NONE && r->print_of->doc != DW_PRINT,
			      "reporter %s prints no reporter that marks sections", r->name);
		return NULL;
	}
	struct report_opts o;
	report_opts_init(&o);
	struct buf out;
	buf_init(&out);
	int rc = a ? r->analysis(a, &o, &out) : r->compare(c, &o, &out);
	ck_assert_msg(rc >= 0, "reporter %s failed: %d", r->name, rc);
	if (r->doc != DW_SHEET)
		return out.data ? out.data : xstrdup("");
	char *x = xlsx_xml(&out);
	buf_free(&out);
	return x;
}

/* A heading at the start of a line (text), else anywhere. */
static bool has_mark(const char *text, const char *mark, enum doc_writer w)
{
	if (w != DW_TEXT)
		return strstr(text, mark) != NULL;
	for (const char *p = text; (p = strstr(p, mark)); p++)
		if (p == text || p[-1] == '\n')
			return true;
	return false;
}

/* Every reporter of reporters[] that renders an analysis, so a writer added to the table is
 * checked without a line here. */
START_TEST(every_section_in_every_writer)
{
	setenv("IOPSY_GNUPLOT", "/nonexistent/gnuplot", 1);
	struct analysis a;
	char mapfile[] = "/tmp/iopsy-doc-map-XXXXXX";
	char *keep[RICH_KEEP];
	rich_analysis(&a, mapfile, keep);
	int checked = 0;
	for (size_t w = 0; reporters[w]; w++) {
		const struct reporter *r = reporters[w];
		if (!r->analysis)
			continue;
		char *text = report_of(r, &a, NULL);
		if (!text)
			continue;
		for (int s = 0; s < DS_COUNT; s++) {
			const char *mark = doc_mark((enum doc_sec)s, r->doc);
			ck_assert_msg(mark, "doc_secs[] has no mark of writer %s for '%s'", r->name, doc_secs[s].title);
			ck_assert_msg(has_mark(text, mark, r->doc), "the %s report has no section '%s' (mark %s)",
				      r->name, doc_secs[s].title, mark);
		}
		free(text);
		checked++;
	}
	ck_assert_int_ge(checked, 5);
	analysis_free(&a);
	for (int k = 0; k < RICH_KEEP; k++)
		free(keep[k]);
	unlink(mapfile);
}
END_TEST

/* The section x writer pairs drawn from the document, measured: with doc_probe(s) every text the
 * document puts in section s carries DOC_PROBE, and a writer's report that shows it drew s from
 * the document (a section a writer draws by hand from the model shows no mark). Counted over the
 * writers of reporters[] that mark sections themselves (the PDF prints the HTML's); printed, and
 * held to a floor so a section moved back into a writer by hand fails. a NULL: the comparison c. */
static int pairs_from_doc(const struct analysis *a, const struct compare *c, const enum doc_sec *secs, size_t nsecs,
			  int *total, struct buf *missing)
{
	int n = 0;
	*total = 0;
	for (size_t w = 0; reporters[w]; w++) {
		const struct reporter *r = reporters[w];
		if ((a ? !r->analysis : !r->compare) || r->doc == DW_PRINT)
			continue;
		for (size_t k = 0; k < nsecs; k++) {
			doc_probe((int)secs[k]);
			char *text = report_of(r, a, c);
			doc_probe(-1);
			(*total)++;
			if (strstr(text, DOC_PROBE))
				n++;
			else
				buf_printf(missing, " %s/%s", r->name, doc_secs[secs[k]].json);
			free(text);
		}
	}
	return n;
}

START_TEST(analysis_pairs_from_the_document)
{
	setenv("IOPSY_GNUPLOT", "/nonexistent/gnuplot", 1);
	struct analysis a;
	char mapfile[] = "/tmp/iopsy-doc-map-XXXXXX";
	char *keep[RICH_KEEP];
	rich_analysis(&a, mapfile, keep);
	enum doc_sec secs[DS_COUNT];
	for (int s = 0; s < DS_COUNT; s++)
		secs[s] = (enum doc_sec)s;
	struct buf miss;
	buf_init(&miss);
	int total = 0, n = pairs_from_doc(&a, NULL, secs, DS_COUNT, &total, &miss);
	fprintf(stderr, "check_doc: analysis: %d of %d section x writer pairs drawn from the document; by hand:%s\n", n,
		total, miss.data ? miss.data : " none");
	ck_assert_int_ge(n, ANALYSIS_PAIRS_FLOOR);
	buf_free(&miss);
	analysis_free(&a);
	for (int k = 0; k < RICH_KEEP; k++)
		free(keep[k]);
	unlink(mapfile);
}
END_TEST

/* The inputs section says what the captures said: the map line that names no disk (at its
 * line), the map as a whole, the clock offset the IOPS contradict, the rules file. */
START_TEST(inputs_said_in_the_report)
{
	struct analysis a;
	char mapfile[] = "/tmp/iopsy-doc-map-XXXXXX";
	char *keep[RICH_KEEP];
	rich_analysis(&a, mapfile, keep);
	bool line5 = false, twice = false, whole = false, clock = false, rules = false;
	for (size_t i = 0; i < a.ninputs; i++) {
		const struct input_said *in = &a.inputs[i];
		if (strcmp(in->option, "--map") == 0 && in->line == 5 && in->state == IN_NAMED_NOTHING)
			line5 |= strstr(in->text, "SQL01\\Z:") != NULL;
		if (strcmp(in->option, "--map") == 0 && in->line == 6 && in->state == IN_CONTRADICTED)
			twice |= strstr(in->text, "both map to virtual disk SQL01:scsi0:1") != NULL;
		if (strcmp(in->option, "--map") == 0 && in->line == 0)
			whole |= in->state == IN_CONTRADICTED && strstr(in->text, "6 disk lines: 2 of them") != NULL;
		if (strcmp(in->option, "--clock-offset") == 0)
			clock |= in->state == IN_CONTRADICTED && strstr(in->text, "+120 s") != NULL;
		if (strcmp(in->option, "--rules") == 0)
			rules |= strstr(in->text, "overridden") != NULL;
	}
	ck_assert_msg(line5 && twice && whole && clock && rules, "inputs: line5 %d twice %d whole %d clock %d rules %d", line5,
		      twice, whole, clock, rules);
	struct doc d;
	doc_of_analysis(&a, NULL, &d);
	struct buf t;
	buf_init(&t);
	doc_text(&d, DS_INPUTS, &t);
	ck_assert_ptr_nonnull(strstr(t.data, "INPUTS AND OVERRIDES"));
	ck_assert_ptr_nonnull(strstr(t.data, "contradicted"));
	ck_assert_ptr_nonnull(strstr(t.data, "named nothing"));
	buf_free(&t);
	doc_free(&d);
	analysis_free(&a);
	for (int k = 0; k < RICH_KEEP; k++)
		free(keep[k]);
	unlink(mapfile);
}
END_TEST

/* Names from captures stay text in every renderer. */
START_TEST(renderers_escape)
{
	struct doc d;
	doc_init(&d, NULL);
	doc_para(&d, DS_INPUTS, "<script>x</script> & [a](b) \x1b[31m");
	static const char *const head[] = {"name", "value", NULL};
	struct doc_block *t = doc_table(&d, DS_INPUTS, NULL, head);
	doc_row(t);
	doc_cell_text(t, "| <b>");
	doc_cell_num(t, 12.5);
	doc_row(t);
	doc_cell_text(t, "x");
	doc_cell_text(t, "y");
	doc_cell_text(t, "one cell too many: dropped");
	struct buf h, m, x;
	buf_init(&h);
	buf_init(&m);
	buf_init(&x);
	doc_html(&d, DS_INPUTS, &h);
	doc_md(&d, DS_INPUTS, &m);
	doc_text(&d, DS_INPUTS, &x);
	ck_assert_ptr_null(strstr(h.data, "<script>"));
	ck_assert_ptr_null(strstr(h.data, "<b>"));
	ck_assert_ptr_nonnull(strstr(h.data, "&lt;script&gt;"));
	ck_assert_ptr_nonnull(strstr(h.data, "<td class=\"num\">12.5</td>"));
	ck_assert_ptr_null(strstr(m.data, "[a](b)"));
	ck_assert_ptr_null(strstr(m.data, "| <b>"));
	ck_assert_ptr_null(strchr(x.data, '\x1b'));
	ck_assert_ptr_null(strstr(x.data, "dropped"));
	buf_free(&h);
	buf_free(&m);
	buf_free(&x);
	doc_free(&d);
}
END_TEST

/* A comparison's report in every writer has the sections a comparison has: its summary, verdict,
 * captures, each side's inputs (here a --clock-offset the IOPS contradict) and the methodology. */
/* The migration sample compared with the site rules, each side with a --clock-offset its IOPS
 * contradict; paths[7] (the captures, the rules file, which the rules borrow, and each side's vscsiStats)
 * freed by the caller
 * after compare_free. */
static void rich_compare(struct compare *c, char **paths)
{
	compare_init(c);
	char *rf = path_of("tests/inputs/analyze/site.rules");
	struct diag dg;
	diag_init(&dg, rf, -1);
	ck_assert_int_eq(rules_load(&c->rules, rf, &dg), 0);
	c->side[0].rules = c->side[1].rules = c->rules; /* as compare --rules gives them */
	paths[4] = rf;
	const char *dirs[2] = {"samples/migration/before", "samples/migration/after"};
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = 0;
	for (int s = 0; s < 2; s++)
		for (int k = 0; k < 2; k++) {
			struct buf p;
			buf_init(&p);
			buf_printf(&p, "%s/%s", dirs[s], k ? "perfmon.csv.gz" : "esxtop.csv.gz");
			paths[s * 2 + k] = path_of(p.data);
			buf_free(&p);
			ck_assert_int_eq(compare_add_capture(c, (enum cmp_side)s, paths[s * 2 + k], &co), 0);
		}
	struct compare_opts o;
	compare_opts_init(&o);
	o.resamples = 200;
	for (int s = 0; s < 2; s++) {
		o.ao[s].clock_offset_given = true;
		o.ao[s].clock_offset_s = 90;
	}
	/* each side's vscsiStats: the histograms section (issue 40) */
	paths[5] = path_of("tests/inputs/compare/migration/before/vscsistats.csv");
	paths[6] = path_of("tests/inputs/compare/migration/after/vscsistats.csv");
	for (int s = 0; s < 2; s++)
		ck_assert_int_eq(compare_add_capture(c, (enum cmp_side)s, paths[5 + s], &co), 0);
	struct buf warn;
	buf_init(&warn);
	compare_run(c, &o, DIAG_INTO(&warn));
	buf_free(&warn);
}

START_TEST(compare_sections_in_every_writer)
{
	setenv("IOPSY_GNUPLOT", "/nonexistent/gnuplot", 1);
	struct compare c;
	char *paths[7];
	rich_compare(&c, paths);
	static const enum doc_sec secs[] = {DS_SUMMARY, DS_VERDICT, DS_CAPTURES, DS_INPUTS, DS_METHOD, DS_HIST};
	int checked = 0;
	for (size_t w = 0; reporters[w]; w++) {
		const struct reporter *r = reporters[w];
		if (!r->compare)
			continue;
		char *text = report_of(r, NULL, &c);
		if (!text)
			continue;
		for (size_t k = 0; k < sizeof secs / sizeof secs[0]; k++) {
			const struct doc_sec_info *i = &doc_secs[secs[k]];
			const char *mark = doc_mark(secs[k], r->doc);
			if (r->doc == DW_JSON && secs[k] == DS_CAPTURES)
				mark = "\"before\""; /* doc/compare-json.md: each side's captures are "before" and "after" */
			ck_assert_msg(has_mark(text, mark, r->doc), "the %s comparison has no section '%s' (mark %s)",
				      r->name, i->title, mark);
		}
		ck_assert_msg(strstr(text, "contradicted"), "the %s comparison does not say the offset was contradicted",
			      r->name);
		free(text);
		checked++;
	}
	ck_assert_int_ge(checked, 5);
	compare_free(&c);
	for (int i = 0; i < 7; i++)
		free(paths[i]);
}
END_TEST

/* A comparison's sections (doc.h: compare_secs[]), each side's where a comparison has two. */
START_TEST(compare_pairs_from_the_document)
{
	setenv("IOPSY_GNUPLOT", "/nonexistent/gnuplot", 1);
	struct compare c;
	char *paths[7];
	rich_compare(&c, paths);
	struct buf miss;
	buf_init(&miss);
	int total = 0, n = pairs_from_doc(NULL, &c, compare_secs, COMPARE_SECS, &total, &miss);
	fprintf(stderr, "check_doc: comparison: %d of %d section x writer pairs drawn from the document; by hand:%s\n", n,
		total, miss.data ? miss.data : " none");
	ck_assert_int_ge(n, COMPARE_PAIRS_FLOOR);
	buf_free(&miss);
	compare_free(&c);
	for (int i = 0; i < 7; i++)
		free(paths[i]);
}
END_TEST

/* The customer's editions (HTML, and the PDF that prints it) cite sources by their public
 * reference, never by a project path or an internal tag; the printed edition claims no embedded
 * JSON (it has none), the HTML file does; the glossary has only the terms of the captures read (no
 * Hyper-V terms for an esxtop and a guest perfmon). */
START_TEST(customer_text_only)
{
	setenv("IOPSY_GNUPLOT", "/nonexistent/gnuplot", 1);
	struct analysis a;
	char mapfile[] = "/tmp/iopsy-doc-map-XXXXXX";
	char *keep[RICH_KEEP];
	rich_analysis(&a, mapfile, keep);
	for (int print = 0; print < 2; print++) {
		struct report_opts o;
		report_opts_init(&o);
		o.html.print = print;
		struct buf out;
		buf_init(&out);
		ck_assert_int_ge(reporter_find("html")->analysis(&a, &o, &out), 0);
		/* the body: without the Explore section (its scripts are uPlot's and the explorer's), up
		 * to the embedded data, which is for tools */
		char *ex = strstr(out.data, "<section id=\"explore\">");
		ck_assert((ex == NULL) == (print != 0));
		if (ex) {
			char *ee = strstr(ex, "</script>\n</section>\n");
			ck_assert_ptr_nonnull(ee);
			ee += strlen("</script>\n</section>\n");
			memmove(ex, ee, strlen(ee) + 1);
		}
		char *end = strstr(out.data, "<script type=\"application/json\"");
		ck_assert_ptr_nonnull(end);
		*end = '\0';
		static const char *const never[] = {"doc/domain.md",
						    "doc/analyze-json.md",
						    "doc/hyperv-domain.md",
						    "[seed]",
						    "[vmw",
						    "[ms]",
						    "[pal]",
						    "[derived]",
						    "`",
						    "iopsy rules",
						    "VHDX Latency",
						    "CPU Wait Time Per Dispatch",
						    "(queue.guest_hidden"};
		for (size_t k = 0; k < sizeof never / sizeof never[0]; k++)
			ck_assert_msg(!strstr(out.data, never[k]), "the %s edition says '%s'",
				      print ? "printed" : "HTML", never[k]);
		ck_assert_msg((strstr(out.data, "embedded") == NULL) == (print != 0),
			      "the %s edition %s an embedded JSON", print ? "printed" : "HTML",
			      print ? "claims" : "does not say it has");
		ck_assert_ptr_nonnull(strstr(out.data, "VMware KB 2053145"));
		buf_free(&out);
	}
	/* the command that lists the rules is not the customer's (a healthy verdict, a guest rule's advice) */
	struct buf ct;
	buf_init(&ct);
	doc_customer_text(&ct, "IO does not wait, at the thresholds in 'iopsy rules'. Set the rules for this disk "
			       "('iopsy rules'). (r = 1.00; confirm with --map.) (give --map 'database x log = DISK') The "
			       "zone is wrong: give --tz (non-English Windows). Not made (give --tz).");
	ck_assert_str_eq(ct.data, "IO does not wait, at the thresholds of the analysis's rules. Set the rules for this "
				  "disk. (r = 1.00; confirm with a disk map.) (give a disk map line 'database x log = DISK') The "
				  "zone is wrong (non-English Windows). Not made.");
	buf_free(&ct);
	analysis_free(&a);
	for (int k = 0; k < RICH_KEEP; k++)
		free(keep[k]);
	unlink(mapfile);
}
END_TEST

/* The workbook is a consultant's: numbers formatted by unit (ms with decimals, rates whole), a
 * filter and a frozen heading on every table sheet, a native chart of each finding's series, the
 * IO stacks sheet. */
START_TEST(workbook_for_a_consultant)
{
	setenv("IOPSY_GNUPLOT", "/nonexistent/gnuplot", 1);
	struct analysis a;
	char mapfile[] = "/tmp/iopsy-doc-map-XXXXXX";
	char *keep[RICH_KEEP];
	rich_analysis(&a, mapfile, keep);
	struct report_opts o;
	report_opts_init(&o);
	struct buf out;
	buf_init(&out);
	ck_assert_int_ge(reporter_find("xlsx")->analysis(&a, &o, &out), 0);
	char *x = xlsx_xml(&out);
	ck_assert_ptr_nonnull(strstr(x, "formatCode=\"0.0#\""));
	ck_assert_ptr_nonnull(strstr(x, "formatCode=\"#,##0\""));
	ck_assert_ptr_nonnull(strstr(x, "<c:scatterChart>"));
	ck_assert_ptr_nonnull(strstr(x, "sheet name=\"IO stacks\""));
	size_t filters = 0, charts = 0;
	for (const char *p = x; (p = strstr(p, "<autoFilter ")); p++)
		filters++;
	for (const char *p = x; (p = strstr(p, "<c:scatterChart>")); p++)
		charts++;
	/* Captures, Findings, Evidence, Entities, IO stacks, Coverage, Inputs, SQL?, Methodology and a series sheet a
	 * charted finding */
	ck_assert_uint_ge(filters, 8 + a.nf);
	ck_assert_uint_ge(charts, a.nf);
	free(x);
	buf_free(&out);
	analysis_free(&a);
	for (int k = 0; k < RICH_KEEP; k++)
		free(keep[k]);
	unlink(mapfile);
}
END_TEST

/* The chart nits: a healthy disk's overview is drawn on the data's scale, its bands said to be
 * above it (not a 0.4 ms line on a 0-60 ms axis); a caption does not double a drive's colon; the
 * guest queue's line says the limit the text names (32), not only the rule's 31. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct buf b;
	buf_init(&b);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_add(&b, chunk, n);
	fclose(f);
	return b.data;
}

static char *charts_of(const char *sample, char *dir, struct buf *html)
{
	char *e = path_of(sample);
	char rel[256];
	snprintf(rel, sizeof rel, "%.*s/perfmon.csv.gz", (int)(strrchr(sample, '/') - sample), sample);
	char *g = path_of(rel);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = 0;
	struct analysis a;
	analysis_init(&a);
	ck_assert_int_eq(model_add_capture(&a.m, e, &co), 0);
	ck_assert_int_eq(model_add_capture(&a.m, g, &co), 0);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_run(&a, &ao);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct report_opts o;
	report_opts_init(&o);
	o.html.gnuplot_dir = dir;
	ck_assert_int_ge(reporter_find("html")->analysis(&a, &o, html), 0);
	struct buf gp;
	buf_init(&gp);
	for (int k = 1; k <= 8; k++) { /* the scripts, concatenated */
		char path[256];
		snprintf(path, sizeof path, "%s/chart-%02d.gp", dir, k);
		char *t = slurp(path);
		if (t)
			buf_adds(&gp, t);
		free(t);
	}
	analysis_free(&a);
	free(e);
	free(g);
	return gp.data ? gp.data : xstrdup("");
}

static void rm_dir(const char *dir)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(chart_nits)
{
	unsetenv("IOPSY_GNUPLOT");
	char dir[] = "/tmp/iopsy-doc-gp-XXXXXX";
	struct buf html;
	buf_init(&html);
	char *gp = charts_of("samples/healthy/esxtop.csv.gz", dir, &html);
	ck_assert_msg(strstr(gp, "(above this scale)"), "the healthy overview is not drawn on the data's scale");
	ck_assert_ptr_null(strstr(html.data, ":: "));
	ck_assert_ptr_null(strstr(html.data, ":</span>: "));
	free(gp);
	rm_dir(dir);
	buf_reset(&html);
	char dir2[] = "/tmp/iopsy-doc-gp-XXXXXX";
	gp = charts_of("samples/lsi-guest-queue-cap/esxtop.csv.gz", dir2, &html);
	ck_assert_msg(strstr(gp, "at the per-disk limit (32 IOs): 31 or more"),
		      "the queue's line does not say the limit");
	free(gp);
	rm_dir(dir2);
	buf_free(&html);
}
END_TEST

/* A histogram's VM name (from esxtop's Group Cpu: a capture's text) stays text: escaped in the HTML
 * caption, never in the gnuplot script, whose x labels are made from the bucket limits. */
START_TEST(histogram_names_stay_text)
{
	struct analysis a;
	analysis_init(&a);
	a.hist.d = xcalloc(1, sizeof *a.hist.d);
	a.hist.n = 1;
	struct vh_disk *x = &a.hist.d[0];
	snprintf(x->vm, sizeof x->vm, "SQL<img src=x onerror=alert(1)>'; system(\"touch /tmp/pwn\")");
	snprintf(x->disk, sizeof x->disk, "5:scsi0:1");
	snprintf(x->target, sizeof x->target, "scsi0:1");
	x->gid = 5;
	struct vh_hist *h = &x->h[VH_OIO];
	*h = (struct vh_hist){.nb = 3, .lim = {28, 32, 32}, .gt = {false, false, true}, .n = {1, 9, 0}, .count = 10,
			      .max = 32};
	struct doc d;
	doc_of_analysis_only(&a, NULL, &d, 1u << DS_HIST);
	struct buf html, gp;
	buf_init(&html);
	buf_init(&gp);
	doc_html(&d, DS_HIST, &html);
	ck_assert_ptr_null(strstr(html.data, "<img"));
	ck_assert_ptr_nonnull(strstr(html.data, "&lt;img"));
	ck_assert_ptr_nonnull(strstr(html.data, "piled at 32 with none above"));
	const struct doc_block *t = NULL;
	for (size_t i = 0; i < d.sec[DS_HIST].nb && !t; i++)
		t = d.sec[DS_HIST].b[i].role == ROLE_HIST ? &d.sec[DS_HIST].b[i] : NULL;
	ck_assert_ptr_nonnull(t);
	struct chart c;
	ck_assert(vhist_chart_of(t, &c));
	chart_script(&c, "chart-01", &gp);
	ck_assert_ptr_null(strstr(gp.data, "img"));
	ck_assert_ptr_null(strstr(gp.data, "system"));
	ck_assert_ptr_nonnull(strstr(gp.data, "'<= 32' 1"));
	ck_assert_ptr_nonnull(strstr(gp.data, "with boxes"));
	chart_free(&c);
	buf_free(&html);
	buf_free(&gp);
	doc_free(&d);
	analysis_free(&a);
}
END_TEST

/* A one-page PDF with a classic cross-reference table, as Chromium writes (catalog: cat). */
static void tiny_pdf(struct buf *b, const char *cat)
{
	size_t off[4], base = b->len; /* offsets from the PDF's first byte */
	buf_adds(b, "%PDF-1.4\n");
	off[1] = b->len - base;
	buf_printf(b, "1 0 obj\n<<%s>>\nendobj\n", cat);
	off[2] = b->len - base;
	buf_adds(b, "2 0 obj\n<</Type /Pages /Kids [3 0 R] /Count 1>>\nendobj\n");
	off[3] = b->len - base;
	buf_adds(b, "3 0 obj\n<</Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Lang (a (b) <<c>>)>>\nendobj\n");
	size_t x = b->len - base;
	buf_adds(b, "xref\n0 4\n0000000000 65535 f \n");
	for (int i = 1; i < 4; i++)
		buf_printf(b, "%010zu 00000 n \n", off[i]);
	buf_printf(b, "trailer\n<</Size 4\n/Root 1 0 R>>\nstartxref\n%zu\n%%%%EOF\n", x);
}

/* pdf_attach: the JSON is a real attachment a PDF reader lists and extracts (pdfdetach), the
 * original bytes unchanged before it; a PDF a simple update cannot extend (a catalog with a name
 * dictionary) is refused and left as it was. */
START_TEST(pdf_attach_is_a_real_attachment)
{
	struct buf pdf, why;
	buf_init(&pdf);
	buf_init(&why);
	buf_adds(&pdf, "prefix"); /* pdf_attach works on the PDF at its offset */
	tiny_pdf(&pdf, "/Type /Catalog\n/Pages 2 0 R\n/Lang (en (x))");
	size_t n0 = pdf.len;
	char *orig = xstrdup(pdf.data);
	const char *js = "{\"schema_version\": 3, \"text\": \"(a) \\\\ b\"}\n";
	ck_assert_int_eq(pdf_attach(&pdf, 6, "analysis.json", js, strlen(js), "The analysis (as JSON)", &why), 0);
	ck_assert_int_eq(memcmp(pdf.data, orig, n0), 0);
	ck_assert_ptr_nonnull(strstr(pdf.data + n0, "/Prev "));
	char dir[] = "/tmp/iopsy-doc-pdf-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[128], cmd[512];
	snprintf(path, sizeof path, "%s/a.pdf", dir);
	FILE *f = fopen(path, "wb");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(pdf.data + 6, 1, pdf.len - 6, f), pdf.len - 6);
	fclose(f);
	snprintf(cmd, sizeof cmd, "command -v pdfdetach >/dev/null || exit 0; pdfdetach -list '%s' | grep -q '^1: analysis.json$' "
				  "&& pdfdetach -saveall -o '%s' '%s' 2>/dev/null", path, dir, path);
	ck_assert_msg(system(cmd) == 0, "pdfdetach does not list or extract analysis.json");
	snprintf(path, sizeof path, "%s/analysis.json", dir);
	char *got = slurp(path);
	if (got) /* pdfdetach present */
		ck_assert_str_eq(got, js);
	free(got);
	rm_dir(dir);
	/* refused: a catalog that has a name dictionary already */
	buf_reset(&pdf);
	tiny_pdf(&pdf, "/Type /Catalog /Pages 2 0 R /Names 4 0 R");
	n0 = pdf.len;
	ck_assert_int_eq(pdf_attach(&pdf, 0, "analysis.json", js, strlen(js), "x", &why), PDF_FAILED);
	ck_assert_uint_eq(pdf.len, n0);
	ck_assert_ptr_nonnull(why.data);
	free(orig);
	buf_free(&pdf);
	buf_free(&why);
}
END_TEST

Suite *doc_suite(void)
{
	Suite *s = suite_create("doc");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_section_in_every_writer);
	tcase_add_test(tc, inputs_said_in_the_report);
	tcase_add_test(tc, renderers_escape);
	tcase_add_test(tc, compare_sections_in_every_writer);
	tcase_add_test(tc, customer_text_only);
	tcase_add_test(tc, workbook_for_a_consultant);
	tcase_add_test(tc, chart_nits);
	tcase_add_test(tc, histogram_names_stay_text);
	tcase_add_test(tc, analysis_pairs_from_the_document);
	tcase_add_test(tc, compare_pairs_from_the_document);
	tcase_add_test(tc, pdf_attach_is_a_real_attachment);
	suite_add_tcase(s, tc);
	return s;
}
