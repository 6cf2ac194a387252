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
	const char *const *word = cmp_fstatus_words;
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
	if (c->nfd) {
		buf_adds(out, "\n| finding | entity | before | after | status |\n|---|---|---:|---:|---|\n");
		static const enum cmp_fstatus order[FD_COUNT] = {FD_GONE, FD_STILL, FD_NEW, FD_NOT_ASSESSED_AFTER,
								 FD_NOT_ASSESSED_BEFORE};
		for (int k = 0; k < FD_COUNT; k++) {
			for (size_t i = 0; i < c->nfd; i++) {
				const struct cmp_fdiff *f = &c->fd[i];
				if (f->status != order[k])
					continue;
				buf_printf(out, "| %s | ", f->title);
				entity(out, f->host, f->entity);
				buf_printf(out, " | %d | %d | %s", f->count[0], f->count[1], word[f->status]);
				if (f->why) {
					buf_adds(out, " (");
					md_text(out, f->why);
					buf_addc(out, ')');
				}
				buf_adds(out, " |\n");
			}
		}
	}
	rules_out_lines(&c->side[0].rules, out, "\n#### Rules overridden before\n\n", "- ", "\n", "", md_text);
	rules_out_lines(&c->side[1].rules, out, "\n#### Rules overridden after\n\n", "- ", "\n", "", md_text);
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
