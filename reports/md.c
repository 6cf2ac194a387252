/* md.c — the Markdown writer (`--report md=PATH`): the verdict and the findings of an analysis, or
 * the verdict and the findings diff of a comparison, as CommonMark with GitHub tables, for tickets
 * and wikis. Text from captures is escaped (md_text): it cannot open a link, an image, a table
 * cell or raw HTML. */
#include "reporter.h"

#include <math.h>
#include <string.h>

#include "doc.h"
#include "fmt.h"
#include "ltime.h"
#include "summary.h"
#include "rules_out.h"


static void md_text(struct buf *b, const char *s) { md_escape(b, s); }

static void entity(struct buf *b, const char *host, const char *name)
{
	if (host && *host) {
		md_text(b, host);
		buf_addc(b, ' ');
	}
	md_text(b, name);
}

/* The report's heading: --title (escaped) when given, else what it is. */
static void heading(struct buf *out, const struct report_opts *o, const char *what)
{
	const struct report_brand *br = o ? o->html.brand : NULL;
	buf_adds(out, "## ");
	if (br && br->title && *br->title)
		md_text(out, br->title);
	else
		buf_adds(out, what);
	buf_adds(out, "\n\n");
}

static int md_analysis(const struct analysis *a, struct report_opts *o, struct buf *out)
{
	struct ltime lt;
	ltime_init(&lt, &a->m, NULL);
	heading(out, o, "iopsy analysis");
	struct doc d;
	doc_of_analysis(a, &lt, &d);
	doc_md(&d, DS_SUMMARY, out);
	doc_md(&d, DS_ACTIONS, out);
	doc_md(&d, DS_VERDICT, out);
	doc_notices_md(&d, out);
	doc_md(&d, DS_FINDINGS, out);
	doc_md(&d, DS_COVERAGE, out);
	doc_md(&d, DS_CAPTURES, out);
	doc_md(&d, DS_INPUTS, out);
	doc_md(&d, DS_RULES, out);
	doc_md(&d, DS_DISKMAP, out);
	doc_md(&d, DS_IOPATH, out);
	doc_md(&d, DS_SQL, out);
	doc_md(&d, DS_ENTITIES, out);
	doc_md(&d, DS_HIST, out);
	doc_md(&d, DS_METHOD, out);
	doc_free(&d);
	return 0;
}


static int md_compare(const struct compare *c, struct report_opts *o, struct buf *out)
{
	(void)o;
	struct ltime lt;
	ltime_init(&lt, &c->side[CMP_AFTER].m, &c->side[CMP_BEFORE].m);
	heading(out, o, "iopsy comparison");
	struct doc d;
	doc_of_compare(c, &lt, &d);
	doc_compare_summary(c, &d);
	doc_md(&d, DS_SUMMARY, out);
	doc_md(&d, DS_ACTIONS, out);
	buf_adds(out, "**Outcome.** ");
	md_text(out, c->headline);
	buf_adds(out, "\n\n");
	doc_md(&d, DS_VERDICT, out);
	for (size_t i = 0; i < c->nsql; i++) {
		buf_adds(out, "\n**SQL Server.** ");
		md_text(out, c->sql[i].text);
		if (c->sql[i].comment) {
			buf_addc(out, ' ');
			md_text(out, c->sql[i].comment);
		}
		buf_adds(out, "\n");
	}
	doc_notices_md(&d, out);
	const struct doc_block *t = doc_role(&d, DS_FINDINGS, ROLE_FDIFF);
	if (t && t->nrows) { /* the document's findings before and after */
		buf_adds(out, "\n| finding | entity | before | after | status |\n|---|---|---:|---:|---|\n");
		static const enum cmp_fstatus order[FD_COUNT] = {FD_GONE, FD_STILL, FD_NEW, FD_NOT_ASSESSED_AFTER,
								 FD_NOT_ASSESSED_BEFORE};
		for (int k = 0; k < FD_COUNT; k++) {
			for (size_t i = 0; i < t->nrows; i++) {
				if ((int)doc_fdiff_v(t, i, FDC_STATUS_CODE) != (int)order[k])
					continue;
				buf_adds(out, "| ");
				md_text(out, doc_fdiff_s(t, i, FDC_TITLE));
				buf_adds(out, " | ");
				entity(out, doc_fdiff_s(t, i, FDC_HOST), doc_fdiff_s(t, i, FDC_ENTITY));
				buf_printf(out, " | %.0f | %.0f | ", doc_fdiff_v(t, i, FDC_SIDE + FDC_WINDOWS),
					   doc_fdiff_v(t, i, FDC_SIDE + 4 + FDC_WINDOWS));
				md_text(out, doc_fdiff_s(t, i, FDC_STATUS));
				if (doc_fdiff_s(t, i, FDC_WHY)) {
					buf_adds(out, " (");
					md_text(out, doc_fdiff_s(t, i, FDC_WHY));
					buf_addc(out, ')');
				}
				buf_adds(out, " |\n");
			}
		}
	}
	doc_md(&d, DS_RULES, out);
	doc_md(&d, DS_HIST, out);
	doc_md(&d, DS_CAPTURES, out);
	doc_md(&d, DS_INPUTS, out);
	doc_md(&d, DS_METHOD, out);
	doc_free(&d);
	return 0;
}

const struct reporter report_md = {
	.name = "md",
	.ext = "md",
	.summary = "Markdown findings for tickets and wikis",
	.doc = DW_MD,
	.analysis = md_analysis,
	.compare = md_compare,
};
