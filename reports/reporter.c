/* reporter.c — the table of reporters (see reporter.h) and the adapters that give each writer's
 * functions the table's shape. */
#include "reporter.h"

#include <stdio.h>
#include <string.h>

#include "batch_out.h"
#include "json_out.h"
#include "text.h"

void report_opts_init(struct report_opts *o)
{
	memset(o, 0, sizeof *o);
}

/* ---- text ---- */

static int text_analysis(const struct analysis *a, struct report_opts *o, struct buf *out)
{
	analysis_text(a, out);
	if (o->text_extra)
		o->text_extra(o->extra_ctx, out);
	return 0;
}

static int text_compare(const struct compare *c, struct report_opts *o, struct buf *out)
{
	(void)o;
	compare_text(c, out);
	return 0;
}

static int text_inventory(const struct inventory *inv, struct report_opts *o, struct buf *out)
{
	if (o->index > 0)
		buf_addc(out, '\n');
	inventory_text(inv, out);
	return 0;
}

static const struct reporter report_text = {
	.name = "text",
	.ext = "txt",
	.summary = "plain text, the verdict first (the default, on stdout)",
	.doc = DW_TEXT,
	.analysis = text_analysis,
	.compare = text_compare,
	.inventory = text_inventory,
};

/* ---- JSON ---- */

static int json_analysis(const struct analysis *a, struct report_opts *o, struct buf *out)
{
	struct json j;
	json_init(&j, out, true);
	analysis_json_ex(a, &j, o->json_extra, o->extra_ctx);
	buf_addc(out, '\n');
	return 0;
}

static int json_compare(const struct compare *c, struct report_opts *o, struct buf *out)
{
	(void)o;
	struct json j;
	json_init(&j, out, true);
	compare_json(c, &j);
	buf_addc(out, '\n');
	return 0;
}

/* Several files make one array, written as the files stream by (o->js keeps the writer). */
static int json_inventory(const struct inventory *inv, struct report_opts *o, struct buf *out)
{
	if (!o->js.out) {
		json_init(&o->js, out, true);
		if (o->count > 1)
			json_arr_begin(&o->js);
	}
	inventory_json(inv, &o->js);
	return 0;
}


static int json_batch(const struct batch *b, const struct run_info *ri, struct report_opts *o, struct buf *out)
{
	(void)o;
	struct json j;
	json_init(&j, out, true);
	batch_summary_json(b, ri, &j);
	buf_addc(out, '\n');
	return 0;
}

static const struct reporter report_json = {
	.name = "json",
	.ext = "json",
	.summary = "JSON with a stable schema (doc/analyze-json.md, compare: doc/compare-json.md)",
	.doc = DW_JSON,
	.analysis = json_analysis,
	.compare = json_compare,
	.inventory = json_inventory,
	.batch = json_batch,
};

/* ---- HTML ---- */

static int html_analysis(const struct analysis *a, struct report_opts *o, struct buf *out)
{
	return report_html_analysis(a, &o->html, out, &o->res, o->d);
}

static int html_compare(const struct compare *c, struct report_opts *o, struct buf *out)
{
	return report_html_compare(c, &o->html, out, &o->res, o->d);
}

static int html_batch(const struct batch *b, const struct run_info *ri, struct report_opts *o, struct buf *out)
{
	(void)o;
	batch_index_html(b, ri, out);
	return 0;
}

static const struct reporter report_html = {
	.name = "html",
	.ext = "html",
	.summary = "self-contained HTML with charts (doc/report.md)",
	.doc = DW_HTML,
	.analysis = html_analysis,
	.compare = html_compare,
	.batch = html_batch,
};

/* ---- PDF: the HTML report's print layout through headless Chromium (pdf.c) ---- */

static int pdf_of_html(struct report_opts *o, int rc, struct buf *html, struct buf *out)
{
	if (rc < 0) {
		buf_free(html);
		return rc;
	}
	struct buf why;
	buf_init(&why);
	rc = pdf_render(html->data ? html->data : "", html->len, &o->pdf, out, &why);
	buf_free(html);
	if (rc < 0) {
		if (o->pdf.require) {
			diag_emit(o->d, DIAG_ERROR, 0, 0, "no PDF: %s", why.data ? why.data : "");
		} else {
			diag_emit(o->d, DIAG_WARNING, 0, 0, "no PDF: %s (the other reports are written; --require-pdf makes "
							   "this an error)", why.data ? why.data : "");
			rc = REPORT_SKIPPED;
		}
	}
	buf_free(&why);
	return rc;
}

/* The PDF of an analysis (a) or a comparison (c) with its JSON attached as the file the printed
 * edition names (html_opts.attached): the JSON writer's bytes. When Chromium's PDF cannot take the
 * attachment, the PDF is made again from an edition that names none (never a claim of a file it
 * does not carry). */
static int pdf_of(const struct analysis *a, const struct compare *c, struct report_opts *o, struct buf *out)
{
	struct buf js;
	buf_init(&js);
	if (a)
		json_analysis(a, o, &js);
	else
		json_compare(c, o, &js);
	const char *name = a ? "analysis.json" : "comparison.json";
	int rc = 0;
	for (int attach = 1; attach >= 0; attach--) {
		struct buf h;
		buf_init(&h);
		struct html_result res;
		struct html_opts ho = o->html;
		ho.print = true;
		ho.attached = attach ? name : NULL;
		rc = a ? report_html_analysis(a, &ho, &h, &res, o->d) : report_html_compare(c, &ho, &h, &res, o->d);
		size_t at = out->len;
		rc = pdf_of_html(o, rc, &h, out);
		if (rc < 0 || !attach)
			break;
		struct buf why;
		buf_init(&why);
		char desc[128];
		snprintf(desc, sizeof desc, "The %s as iopsy's JSON (schema version %d)", a ? "analysis" : "comparison",
			 a ? ANALYSIS_SCHEMA_VERSION : COMPARE_SCHEMA_VERSION);
		int arc = pdf_attach(out, at, name, js.data ? js.data : "", js.len, desc, &why);
		if (arc == 0) {
			buf_free(&why);
			break;
		}
		diag_emit(o->d, DIAG_WARNING, 0, 0, "the PDF carries no JSON: %s (it is made again without saying so)",
			  why.data ? why.data : "");
		buf_free(&why);
		out->len = at;
	}
	buf_free(&js);
	return rc;
}

static int pdf_analysis(const struct analysis *a, struct report_opts *o, struct buf *out)
{
	return pdf_of(a, NULL, o, out);
}

static int pdf_compare(const struct compare *c, struct report_opts *o, struct buf *out)
{
	return pdf_of(NULL, c, o, out);
}

static const struct reporter report_pdf = {
	.name = "pdf",
	.ext = "pdf",
	.summary = "the HTML report's print layout as PDF (headless Chromium)",
	.doc = DW_PRINT,
	.print_of = &report_html,
	.analysis = pdf_analysis,
	.compare = pdf_compare,
};

/* ---- the table ---- */

/* Writers in files of their own. */
extern const struct reporter report_md;   /* md.c */
extern const struct reporter report_xlsx; /* xlsx.c */

const struct reporter *const reporters[] = {&report_text, &report_json, &report_html, &report_md, &report_pdf, &report_xlsx, NULL};

const struct reporter *reporter_find(const char *name)
{
	for (size_t i = 0; reporters[i]; i++)
		if (strcmp(reporters[i]->name, name) == 0)
			return reporters[i];
	return NULL;
}

static bool renders(const struct reporter *r, int what)
{
	switch (what) {
	case 0: return r->analysis != NULL;
	case 1: return r->compare != NULL;
	case 2: return r->inventory != NULL;
	default: return r->batch != NULL;
	}
}

const char *reporter_names(int what)
{
	static char names[4][128];
	if (what < 0 || what > 3)
		return "";
	char *s = names[what];
	if (!s[0]) {
		size_t o = 0;
		for (size_t i = 0; reporters[i]; i++) {
			if (!renders(reporters[i], what))
				continue;
			int k = snprintf(s + o, sizeof names[what] - o, "%s%s", o ? ", " : "", reporters[i]->name);
			if (k < 0 || (size_t)k >= sizeof names[what] - o)
				break;
			o += (size_t)k;
		}
	}
	return s;
}

/* Closes what json_inventory opened, after the last file (also when the last one failed). */
void report_inventory_end(const struct reporter *r, struct report_opts *o, struct buf *out)
{
	if (r != &report_json)
		return;
	if (!o->js.out) {
		json_init(&o->js, out, true);
		if (o->count > 1)
			json_arr_begin(&o->js);
	}
	if (o->count > 1)
		json_arr_end(&o->js);
	buf_addc(out, '\n');
}
