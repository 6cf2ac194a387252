/* html.c — what the two HTML reports share (see html.h, html_int.h): the page chrome (the
 * header, the executive summary, the CSS, the print page, the footer, the document's title), the
 * captures section and the report's notes, the charts machinery (added while a section is
 * written, drawn by one gnuplot process, spliced in) and the appendix. The analysis report
 * (`iopsy analyze --html`) is in html_analysis.c, the before/after report (compare --html) in
 * html_compare.c. Every string that came from a capture passes through html_escape(). */
#include "html_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "version.h"

/* ---- escaping and formatting ---- */




/* The window and the selection an analysis was read with, as notices (nothing when neither). */
void workflow_notices(const struct analysis *a, struct buf *out)
{
	struct doc d;
	doc_init(&d, NULL);
	doc_workflow(&d, a, NULL);
	doc_notices_html(&d, out);
	doc_free(&d);
}

/* The kind's title with a capital first letter, escaped. */
void title(struct buf *b, enum kind kind)
{
	const char *t = kind_title(kind);
	size_t at = b->len;
	esc(b, t);
	if (b->len > at && b->data[at] >= 'a' && b->data[at] <= 'z')
		b->data[at] = (char)(b->data[at] - 'a' + 'A');
}

/* "SQL01 D:" / "naa.6…" with its host in a muted span */
void entity_label(struct buf *b, const char *host, const char *name)
{
	if (host && *host) {
		buf_adds(b, "<span class=\"host\">");
		esc(b, host);
		buf_adds(b, "</span> ");
	}
	buf_adds(b, "<span class=\"ent\">");
	esc(b, name);
	buf_adds(b, "</span>");
}

/* " (local 06:03:59 &ndash; 06:15:54 UTC-07:00)" in a muted span; nothing without a zone. */
static void local_span(struct buf *b, const struct ltime *lt, int64_t t0, int64_t t1)
{
	if (!lt->known)
		return;
	struct buf t;
	buf_init(&t);
	ltime_span_note(&t, lt, t0, t1, "-");
	buf_adds(b, "<span class=\"local\">");
	esc(b, t.data);
	buf_adds(b, "</span>");
	buf_free(&t);
}

/* A period in UTC with its local time: "2026-07-27 13:00:05 &ndash; 13:19:56 UTC (local ...)". */
void period_html(struct buf *b, const struct ltime *lt, int64_t t0, int64_t t1)
{
	fmt_when(b, t0);
	buf_adds(b, " &ndash; ");
	if (fmt_same_day(t0, t1))
		fmt_hhmmss(b, t1);
	else
		fmt_when(b, t1);
	buf_adds(b, " UTC");
	local_span(b, lt, t0, t1);
}

/* The page header: logo, kicker, title, then customer, prepared by, hosts and the periods. */
void page_header(struct buf *out, const struct html_opts *o, const char *kicker, const char *title,
		 const char *meta_html)
{
	const struct report_brand *br = o->brand;
	buf_adds(out, "<header class=\"top\"><div class=\"wrap\">\n");
	if (br && br->logo)
		brand_logo_html(br, out);
	buf_adds(out, "<p class=\"kicker\">");
	buf_adds(out, kicker);
	buf_adds(out, "</p>\n");
	if (br && br->customer) {
		buf_adds(out, "<p class=\"customer\">");
		esc(out, br->customer);
		buf_adds(out, "</p>\n");
	}
	buf_adds(out, "<h1>");
	if (br && br->title)
		esc(out, br->title);
	else
		buf_adds(out, title);
	buf_adds(out, "</h1>\n<p class=\"meta\">");
	if (br && br->prepared_by) {
		buf_adds(out, "<span>prepared by ");
		esc(out, br->prepared_by);
		buf_adds(out, "</span>");
	}
	buf_adds(out, meta_html);
	buf_adds(out, "</p>\n</div></header>\n");
}

/* The executive summary: the headline, the sentences, the recommended actions in order (the
 * document's, doc.h). Findings are linked when link is set (an analysis report). */
void summary_html(struct buf *out, const struct exec_summary *es, bool link, const struct ltime *lt)
{
	struct doc d;
	doc_init(&d, lt);
	d.links = link;
	doc_summary(&d, es);
	doc_html(&d, DS_SUMMARY, out);
	doc_free(&d);
}

/* s as the text of a CSS string: control characters and bad UTF-8 as \xNN (fmt_esc), then every
 * ASCII character but letters, digits and spaces as a CSS escape ("\3C "), so no text can end
 * the string, the rule or the <style> element. */
static void css_text(struct buf *out, const char *s)
{
	struct buf e;
	buf_init(&e);
	fmt_esc(&e, s ? s : "");
	for (const unsigned char *p = (const unsigned char *)(e.data ? e.data : ""); *p; p++) {
		if (*p >= 0x80 || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == ' ')
			buf_addc(out, (char)*p);
		else
			buf_printf(out, "\\%X ", *p);
	}
	buf_free(&e);
}

/* The print page: A4 or US Letter (--paper), and on every page a running footer — the customer
 * and the report's title, the report's date, "Page N of M" — in the page's margin boxes. */
void print_page_css(struct buf *out, const struct html_opts *o, const char *title)
{
	const struct report_brand *br = o->brand;
	bool letter = o->paper && strcasecmp(o->paper, "letter") == 0; /* html_paper_known's other one: A4 */
	buf_printf(out, "<style>@media print{@page{size:%s;margin:14mm 12mm 16mm;", letter ? "letter" : "A4");
	static const char box[] = "font:7.5pt -apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#64748b";
	buf_adds(out, "@bottom-left{content:\"");
	if (br && br->customer && *br->customer) {
		css_text(out, br->customer);
		buf_adds(out, " \\B7  ");
	}
	css_text(out, br && br->title && *br->title ? br->title : title);
	buf_printf(out, "\";%s}@bottom-center{content:\"", box);
	struct buf d;
	buf_init(&d);
	generated_at(&d);
	css_text(out, d.data);
	buf_free(&d);
	buf_printf(out, "\";%s}@bottom-right{content:\"Page \" counter(page) \" of \" counter(pages);%s}}}</style>\n", box,
		   box);
}

/* The contents: links to the report's sections (ids, labels: trusted static text, pairs, NULL
 * ended), then the methodology appendix when the report has one, then the technical appendix. On
 * screen a bar under the header; in print (and so the PDF, whose links they stay) a numbered list. */
void toc_html(struct buf *out, const char *const *items)
{
	buf_adds(out, "<nav class=\"toc\" aria-label=\"Contents\"><div class=\"wrap\"><span class=\"toc-title\">Contents</span>");
	for (size_t i = 0; items[i] && items[i + 1]; i += 2)
		buf_printf(out, "<a href=\"#%s\">%s</a>", items[i], items[i + 1]);
	buf_adds(out, "<a href=\"#appendix\">Appendix</a></div></nav>\n");
}

/* The footer: who prepared the report for whom, and the tool. */
void footer_html(struct buf *out, const struct html_opts *o)
{
	const struct report_brand *br = o->brand;
	buf_adds(out, "<footer class=\"wrap\">");
	if (br && br->prepared_by) {
		buf_adds(out, "Prepared by ");
		esc(out, br->prepared_by);
		if (br->customer) {
			buf_adds(out, " for ");
			esc(out, br->customer);
		}
		buf_adds(out, " &middot; ");
	} else if (br && br->customer) {
		buf_adds(out, "Prepared for ");
		esc(out, br->customer);
		buf_adds(out, " &middot; ");
	}
	buf_adds(out, "analysis by iopsy " IOPSY_VERSION " from the captures listed above.</footer>\n");
}


/* ---- sections ---- */

const char css[] =
	":root{--ink:#1c2433;--muted:#5d6779;--faint:#8a93a3;--line:#dfe3ea;--bg:#f4f5f7;--card:#fff;"
	"--accent:#1f3a5f;--crit:#b42318;--crit-bg:#fdeceb;--warn:#9a5b00;--warn-bg:#fff4e0;--info:#1f5fa8;"
	"--info-bg:#e9f1fb;--ok:#2f6f44;--ok-bg:#e8f4ec;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"
	"'DejaVu Sans Mono',monospace;--sans:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,"
	"'DejaVu Sans',sans-serif}\n"
	"*{box-sizing:border-box}\n"
	"html{-webkit-text-size-adjust:100%}\n"
	"body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.55 var(--sans)}\n"
	".wrap{max-width:1120px;margin:0 auto;padding:0 28px}\n"
	"header.top{background:var(--accent);color:#fff;padding:30px 0 26px}\n"
	"header.top .kicker{text-transform:uppercase;letter-spacing:.12em;font-size:12px;opacity:.75;margin:0 0 6px}\n"
	"header.top h1{margin:0;font-size:28px;font-weight:600;letter-spacing:-.01em}\n"
	"header.top .meta{margin:10px 0 0;font-size:14px;opacity:.88}\n"
	"header.top .meta span+span:before{content:'\\00b7';margin:0 .6em;opacity:.7}\n"
	"nav.toc{background:#fff;border-bottom:1px solid var(--line);font-size:13.5px}\n"
	"nav.toc .wrap{display:flex;flex-wrap:wrap;gap:4px 22px;padding-top:10px;padding-bottom:10px}\n"
	"nav.toc a{color:var(--muted);text-decoration:none}nav.toc a:hover{color:var(--accent)}nav.toc .toc-title{display:none}\n"
	"main{padding:8px 0 40px}\n"
	"section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:22px 26px;margin:20px 0}\n"
	"h2{font-size:20px;margin:0 0 14px;color:var(--accent);font-weight:600}\n"
	"h3{font-size:16.5px;margin:0;font-weight:600}\n"
	"h4{font-size:13px;margin:18px 0 6px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}\n"
	"p{margin:.4em 0 .8em}\n"
	".muted{color:var(--muted)}.small{font-size:13px}\n"
	".lead{font-size:17px;line-height:1.55;margin:0}\n"
	".verdict{border-left:6px solid var(--ok)}\n"
	".verdict.crit{border-left-color:var(--crit)}.verdict.warn{border-left-color:#d98a00}.verdict.info{border-left-color:var(--info)}\n"
	".verdict.partial{border-left-color:#8a94a6}\n"
	"table.cov td.st{white-space:nowrap;font-weight:600}table.cov td.st.na{color:#8a2d2d}table.cov td.st.pa{color:#8a5a00}\n"
	".counts{display:flex;gap:10px;flex-wrap:wrap;margin:16px 0 0}\n"
	".count{border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px}\n"
	".count b{display:block;font-size:22px;line-height:1.2}\n"
	".count.crit b{color:var(--crit)}.count.warn b{color:var(--warn)}.count.info b{color:var(--info)}\n"
	".notice{border-radius:8px;padding:10px 14px;margin:14px 0 0;background:var(--warn-bg);color:#6b4200;font-size:14px}\n"
	"table{border-collapse:collapse;width:100%;font-size:13.5px}\n"
	"th,td{padding:7px 9px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\n"
	"thead th{font-weight:600;color:var(--muted);font-size:11.5px;text-transform:uppercase;letter-spacing:.04em;"
	"border-bottom:2px solid var(--line);white-space:nowrap}\n"
	"tbody tr:last-child td{border-bottom:none}\n"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"td.n .sep{color:var(--faint);margin:0 .25em}\n"
	".ent{font-family:var(--mono);font-size:.92em;overflow-wrap:anywhere}\n"
	".host{color:var(--muted)}\n"
	".badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;white-space:nowrap;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".badge.crit{background:var(--crit-bg);color:var(--crit)}.badge.warn{background:var(--warn-bg);color:var(--warn)}"
	".badge.info{background:var(--info-bg);color:var(--info)}\n"
	".heur{font-size:11.5px;color:var(--muted);border:1px solid var(--line);border-radius:999px;padding:0 7px;margin-left:4px;white-space:nowrap}\n"
	"table.findings td:first-child{color:var(--faint);width:2.2em}\n"
	"table.findings td.where{min-width:9em}\n"
	"table.findings a{color:inherit;text-decoration:none}table.findings a:hover{text-decoration:underline}\n"
	".finding{border-top:1px solid var(--line);padding:22px 0 8px}\n"
	".finding:first-of-type{border-top:none;padding-top:4px}\n"
	".finding-head{display:flex;gap:12px;align-items:baseline;flex-wrap:wrap}\n"
	".finding-head .num{color:var(--faint);font-weight:600}\n"
	".finding .where{margin:4px 0 8px;color:var(--muted);font-size:14px}\n"
	".finding .summary{font-size:15.5px}\n"
	"dl.rule{display:grid;grid-template-columns:88px 1fr;gap:6px 14px;margin:12px 0 0;font-size:14px}\n"
	"dl.rule dt{color:var(--muted);font-weight:600}dl.rule dd{margin:0}\n"
	"dl.rule dd.advice{background:var(--info-bg);border-radius:6px;padding:8px 12px}\n"
	"figure.chart{margin:14px 0 6px;border:1px solid var(--line);border-radius:8px;padding:10px 10px 6px;background:#fff;"
	"break-inside:avoid;page-break-inside:avoid}\n"
	"figure.chart svg{display:block;width:100%;height:auto}\n"
	"figure.chart svg [font-family]{font-family:var(--sans)}\n"
	"figure.chart figcaption{font-size:12.5px;color:var(--muted);margin:6px 4px 2px}\n"
	".nochart{font-size:13px;color:var(--muted);font-style:italic;margin:10px 0}\n"
	".legend-key{display:inline-block;width:22px;height:10px;vertical-align:middle;margin:0 4px 0 10px;border-radius:2px}\n"
	".lk-win{background:#fdf0d9}.lk-thr{height:2px;background:repeating-linear-gradient(90deg,#b42318 0 6px,transparent 6px 10px)}.lk-band{background:rgba(31,95,168,.18);border-top:2px solid #1f5fa8}\n"
	".stack-block{margin:0 0 22px}.stack-block:last-child{margin-bottom:0}\n"
	".stack-title{font-size:14px;margin:0 0 8px;color:var(--muted)}\n"
	".stack{display:grid;grid-template-columns:1fr 18px 1fr 18px 1fr 18px 1fr 18px 1fr;align-items:stretch}\n"
	".arrow{display:flex;align-items:center;justify-content:center;color:var(--faint);font-size:15px}\n"
	".tier{display:flex;flex-direction:column;border:1px solid var(--line);border-top:5px solid #c9d1dc;border-radius:8px;"
	"padding:10px 11px;background:#fff;min-width:0;-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".tier-name{font-weight:650;font-size:14px;line-height:1.25}\n"
	".tier-role{color:var(--faint);font-size:11.5px;line-height:1.3;margin:2px 0 8px;min-height:3.9em}\n"
	".tier-ent{font-size:12.5px;line-height:1.35;margin-bottom:6px;overflow-wrap:anywhere}\n"
	".tier-ent .host{display:block;font-size:11.5px}\n"
	".figs{display:flex;flex-direction:column;font-size:13px;line-height:1.45}\n"
	".fig .fl{color:var(--muted);display:inline-block;min-width:3.6em}.fig b{font-variant-numeric:tabular-nums}\n"
	".tier-tag{margin-top:auto;padding-top:9px;font-size:11px;color:var(--muted);line-height:1.3}\n"
	".tier-tag small{display:block;margin-top:3px;font-size:11px}\n"
	".tag{display:inline-block;font-weight:700;font-size:11.5px;padding:2px 9px;border-radius:999px;white-space:nowrap;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".tag.crit{background:var(--crit);color:#fff}.tag.warn{background:#d98a00;color:#fff}.tag.info{background:var(--info-bg);color:var(--info)}"
	".tag.symptom{background:var(--warn-bg);color:var(--warn)}.tag.ok{background:var(--ok-bg);color:var(--ok)}\n"
	".tier-crit{border-color:#f1b8b2;border-top-color:var(--crit);background:var(--crit-bg)}\n"
	".tier-warn{border-color:#f3d29a;border-top-color:#d98a00;background:var(--warn-bg)}\n"
	".tier-symptom{border-top-color:#e8b86a}\n"
	".tier-ok{border-top-color:#8fc3a1}\n"
	".tier-absent{border-style:dashed;border-top-style:solid;background:#fafbfc}\n"
	".tier-absent .tier-name{color:var(--muted)}\n"
	"p.how{font-size:11.5px;color:var(--faint);margin:8px 0 0}p.how span+span:before{content:'\\00b7';margin:0 .5em}\n"
	".tablewrap{overflow-x:auto}\n"
	"ul.warnings{margin:0;padding-left:20px}ul.warnings li{margin:4px 0}\n"
	"dl.kv{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px}dl.kv dt{font-weight:600}dl.kv dd{margin:0}"
	"li.sub{margin-left:1.5em;list-style:circle}\n"
	"footer{color:var(--faint);font-size:12.5px;padding:0 0 40px}\n"
	"header.top .customer{margin:0 0 4px;font-size:16px;font-weight:600;opacity:.95}\n"
	"header.top img.logo{float:right;max-height:64px;max-width:220px;margin:0 0 8px 18px;background:#fff;border-radius:6px;padding:4px}\n"
	".summary .headline{font-size:20px;font-weight:650;margin:0 0 10px}\n"
	".summary h3{margin:18px 0 8px}\n"
	"ol.actions{margin:0;padding-left:22px}ol.actions li{margin:0 0 12px}ol.actions p{margin:0 0 3px}\n"
	"ol.actions .what{font-weight:600}ol.actions .effect,ol.actions .why{font-size:14px}ol.actions .why{color:var(--muted)}\n"
	".local{color:var(--muted);font-size:.92em}td .local{white-space:nowrap}\n"
	".ar{display:inline-block;position:relative;width:12px;height:2px;background:var(--faint);"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".ar:after{content:'';position:absolute;right:-3px;top:-4px;border-left:7px solid var(--faint);border-top:5px solid transparent;"
	"border-bottom:5px solid transparent}\n"
	"table.refs td{font-size:12.5px}\n"
	"@media (max-width:860px){.stack{grid-template-columns:1fr}.arrow{height:16px}.arrow .ar{transform:rotate(90deg)}"
	".tier-role{min-height:0}}\n"
	"@media print{\n"
	"  @page{size:A4;margin:14mm 12mm}\n"
	"  body{background:#fff;font-size:10pt}\n"
	"  .wrap{max-width:none;padding:0}\n"
	"  header.top{background:#fff;color:var(--ink);padding:0 0 10pt;border-bottom:2px solid var(--accent)}\n"
	"  header.top .kicker{color:var(--accent);opacity:1}\n"
	"  nav.toc{display:block;background:none;border:none;margin:12pt 0 0;font-size:10pt;counter-reset:toc}\n"
	"  nav.toc .wrap{display:block;padding:0;columns:2;column-gap:28pt}\n"
	"  nav.toc .toc-title{display:block;column-span:all;font-weight:600;font-size:12pt;color:var(--accent);margin:0 0 4pt}\n"
	"  nav.toc a{display:block;color:var(--ink);padding:2pt 0;border-bottom:1px dotted var(--line);break-inside:avoid}\n"
	"  nav.toc a:before{counter-increment:toc;content:counter(toc) \". \";color:var(--muted)}\n"
	"  section{border:none;border-radius:0;padding:0;margin:16pt 0}\n"
	"  h2,h3,h2+p.small,#stack>p,.stack-title{break-after:avoid;page-break-after:avoid}\n"
	"  #stack>p,.stack-title{break-inside:avoid;page-break-inside:avoid}\n"
	"  .finding-head,.finding .where{break-after:avoid;page-break-after:avoid}\n"
	"  .stack-block,.count,tr,dl.rule{break-inside:avoid;page-break-inside:avoid}\n"
	"  .stack{grid-template-columns:1fr 10px 1fr 10px 1fr 10px 1fr 10px 1fr}.tier{padding:6px 7px}\n"
	"  .tier-role{font-size:7.5pt}.figs{font-size:8.5pt}.tier-ent{font-size:8pt}\n"
	"  a{color:inherit;text-decoration:none}\n"
	"  .tablewrap{overflow:visible}\n"
	"  table{font-size:8.5pt}th,td{padding:4px 5px}\n"

	"  #summary{border:none;border-left:5px solid var(--ok);padding-left:12pt}\n"
	"  #summary.crit{border-left-color:var(--crit)}#summary.warn{border-left-color:#d98a00}\n"
	"  section.verdict{padding-left:10pt}\n"
	"  .summary .headline{font-size:15pt}.lead{font-size:11pt}ol.actions li{break-inside:avoid}\n"
	"  .ent{overflow-wrap:break-word;word-break:normal;hyphens:none}.host{white-space:nowrap}\n"
	"  .stack{grid-template-columns:1fr}.arrow{height:14px}.arrow .ar{transform:rotate(90deg)}\n"
	"  .tier{display:grid;grid-template-columns:30% 30% 1fr 20%;grid-template-areas:'name ent figs tag' 'role ent figs tag';"
	"column-gap:10px;padding:6px 9px}\n"
	"  .tier-name{grid-area:name}.tier-role{grid-area:role;min-height:0;margin:0}.tier-ent{grid-area:ent;font-size:8.5pt}"
	".figs{grid-area:figs;flex-direction:row;flex-wrap:wrap;gap:0 12px}.tier-tag{grid-area:tag;margin:0;padding:0}\n"
	"  header.top img.logo{max-height:48px}\n"
	"}\n";



void captures_section(const struct analysis *a, const struct ltime *lt, struct buf *b)
{
	struct doc cd; /* the document's captures, disk map and rules, drawn as this report's tables */
	doc_of_analysis_only(a, lt, &cd, 1u << DS_CAPTURES | 1u << DS_DISKMAP | 1u << DS_RULES);
	const struct doc_block *t = &cd.sec[DS_CAPTURES].b[0];
	buf_adds(b, "<div class=\"tablewrap\"><table><thead><tr><th>File</th><th>Format</th><th>Host</th><th>Period</th>"
		    "<th class=\"n\">Interval</th><th class=\"n\">Rows</th><th class=\"n\">Columns</th><th class=\"n\">Warnings</th>"
		    "<th>Clock</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < t->nrows; i++) {
		const struct doc_cell *c = &t->cell[i * (size_t)t->ncols];
		buf_adds(b, "<tr><td class=\"ent\">");
		esc(b, c[CC_FILE].s);
		buf_adds(b, "</td>");
		if (*c[CC_FAILED].s) {
			buf_adds(b, "<td colspan=\"8\"><span class=\"badge crit\">unreadable</span> the file could not be read or its "
				    "format was not recognised</td></tr>\n");
			continue;
		}
		buf_adds(b, "<td>");
		esc(b, c[CC_FORMAT].s);
		buf_adds(b, *c[CC_GZIP].s ? " (gzip)" : "");
		buf_adds(b, "</td><td class=\"ent\">");
		esc(b, c[CC_HOST].s);
		buf_adds(b, "</td><td>");
		if (c[CC_ROWS].v > 0 && c[CC_START].t == CELL_TIME) /* a histogram capture has no time axis */
			period_html(b, lt, c[CC_START].ms, c[CC_END].ms);
		buf_adds(b, "</td><td class=\"n\">");
		if (c[CC_ROWS].v > 1 && c[CC_INTERVAL].t == CELL_NUM)
			buf_printf(b, "%g s", c[CC_INTERVAL].v);
		buf_printf(b, "</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td class=\"n\">%.0f</td><td>",
			   c[CC_ROWS].v, c[CC_COLUMNS].v, c[CC_WARNINGS].v);
		esc(b, *c[CC_CLOCK].s ? c[CC_CLOCK].s : "as recorded");
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
	const struct doc_section *dm = &cd.sec[DS_DISKMAP];
	if (dm->nb) {
		const struct doc_block *m = &dm->b[0];
		buf_adds(b, "<h4>Guest disk to virtual disk mapping</h4>\n<div class=\"tablewrap\"><table><thead><tr><th>Guest</th>"
			    "<th>Disk</th><th>Virtual disk</th><th>How</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < m->nrows; i++) {
			const struct doc_cell *c = &m->cell[i * (size_t)m->ncols];
			for (int k = 0; k < 4; k++) {
				buf_adds(b, k == 0  ? "<tr><td class=\"ent\">"
					    : k < 3 ? "</td><td class=\"ent\">"
						    : "</td><td>");
				esc(b, c[k].s);
			}
			buf_adds(b, "</td></tr>\n");
		}
		buf_adds(b, "</tbody></table></div>\n");
	}
	if (a->have_vmk || a->have_parts)
		buf_printf(b, "<p class=\"small muted\">Also read: %s%s%s.</p>\n", a->have_vmk ? "vmkernel.log" : "",
			   a->have_vmk && a->have_parts ? ", " : "", a->have_parts ? "partition offsets" : "");
	const struct doc_section *rs = &cd.sec[DS_RULES];
	if (rs->nb) {
		buf_adds(b, "<h4>Rules overridden</h4>\n<ul class=\"rules\">\n");
		for (size_t i = 0; i < rs->b[0].nrows; i++) {
			buf_adds(b, "<li>");
			esc(b, rs->b[0].cell[i].s);
			buf_adds(b, "</li>\n");
		}
		buf_adds(b, "</ul>\n");
	}
	doc_free(&cd);
}


/* A capture's clock offset as --clock-offset takes it: guest clock minus host clock, seconds
 * (clock_offset_ms is what is added to its times: the opposite). */
static double guest_minus_host(const struct capture *c) { return 0.0 - (double)c->clock_offset_ms / 1000.0 + 0.0; }

void note_add(struct notes *n, const char *html)
{
	buf_adds(&n->items, "<li>");
	buf_adds(&n->items, html);
	buf_adds(&n->items, "</li>\n");
	n->n++;
}

void capture_notes(const struct analysis *a, struct notes *nt)
{
	struct buf t;
	buf_init(&t);
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		buf_reset(&t);
		if (c->failed) {
			buf_adds(&t, "<span class=\"ent\">");
			esc(&t, c->path);
			buf_adds(&t, "</span> could not be read; its counters are missing from this report.");
			note_add(nt, t.data);
			continue;
		}
		if (c->warnings || c->skipped_rows) {
			buf_adds(&t, "<span class=\"ent\">");
			esc(&t, c->path);
			buf_printf(&t, "</span>: %ld warning%s while reading", c->warnings, c->warnings == 1 ? "" : "s");
			if (c->skipped_rows)
				buf_printf(&t, ", %ld row%s skipped", c->skipped_rows, c->skipped_rows == 1 ? "" : "s");
			buf_adds(&t, " (the messages are printed by <code>iopsy analyze</code> on stderr).");
			note_add(nt, t.data);
		}
		if (c->offset_estimated && c->clock_offset_ms) {
			buf_adds(&t, "");
			buf_reset(&t);
			buf_adds(&t, "The clock of <span class=\"ent\">");
			esc(&t, c->host);
			buf_printf(&t, "</span> is %+.1f s off the host's (guest minus host), estimated by correlating IOPS "
				       "(r = %.2f); its times are shifted by %+.1f s to match the host. Give "
				       "<code>--clock-offset</code> if the real offset is known.",
				   guest_minus_host(c), c->offset_confidence, (double)c->clock_offset_ms / 1000.0 + 0.0);
			note_add(nt, t.data);
		}
	}
	bool autom = false;
	for (size_t i = 0; i < a->nmap; i++)
		autom |= a->map[i].automatic;
	if (autom)
		note_add(nt, "Guest disks were matched to virtual disks by correlating their IOPS; confirm the matches with a "
			     "disk map file (the table above lists them).");
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->outside)
			continue;
		if (e->dq_dropped) {
			buf_reset(&t);
			buf_printf(&t, "Queue depth changes of <span class=\"ent\">");
			esc(&t, e->name);
			buf_printf(&t, "</span>: %zu beyond the first %d were not kept.", e->dq_dropped, DQ_MAX_EVENTS);
			note_add(nt, t.data);
		}
	}
	buf_free(&t);
}


/* The document's <title> (the PDF's title too): --title when given, else "what – hosts". */

void doc_title(struct buf *out, const struct html_opts *o, const char *what, const struct model *m)
{
	if (o->brand && o->brand->title && *o->brand->title) {
		esc(out, o->brand->title);
		return;
	}
	buf_printf(out, "%s &ndash; ", what);
	hosts_line(m, out);
}

void generated_at(struct buf *b)
{
	/* SOURCE_DATE_EPOCH makes reports reproducible (reproducible-builds.org convention) */
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	double v;
	int64_t t;
	if (sde && parse_number(sde, strlen(sde), &v) && v >= 0 && v < 1e11)
		t = (int64_t)v * 1000;
	else
		t = (int64_t)time(NULL) * 1000;
	when(b, t);
	buf_adds(b, " UTC");
}

/* Distinct capture hosts, escaped, joined by " · ". */
void hosts_line(const struct model *m, struct buf *b)
{
	int shown = 0;
	bool readable = false;
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *c = &m->caps[i];
		readable |= !c->failed;
		if (c->failed || !c->host)
			continue;
		bool dup = false;
		for (size_t k = 0; k < i; k++)
			dup |= m->caps[k].host && !m->caps[k].failed && strcmp(m->caps[k].host, c->host) == 0;
		if (dup)
			continue;
		if (shown++)
			buf_adds(b, ", ");
		esc(b, c->host);
	}
	if (!shown) /* vscsiStats names no host */
		buf_adds(b, readable ? "no host named" : "no readable capture");
}

/* ---- charts: added while a section is written, drawn by one gnuplot process, spliced in ---- */


void figs_init(struct figs *fs, struct charts *cs, const struct buf *out)
{
	memset(fs, 0, sizeof *fs);
	fs->cs = cs;
	fs->start = out->len;
}

/* Adds chart c, whose figure goes at the end of out as it is now. */
void figs_add(struct figs *fs, const struct chart *c, const struct buf *out, size_t finding, const char *caption_html)
{
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? 2 * fs->cap : 16;
		fs->f = xrealloc(fs->f, fs->cap * sizeof *fs->f);
	}
	struct fig *f = &fs->f[fs->n++];
	f->at = out->len;
	f->no = charts_add(fs->cs, c);
	f->finding = finding;
	f->caption = xstrdup(caption_html);
}

/* The figure of one chart, or why there is none; failures become warnings and notes. */
static void fig_html(struct figs *fs, const struct fig *f, const struct html_opts *o, struct html_result *res,
		     struct notes *nt, struct diag *d, struct buf *out)
{
	struct buf svg, err;
	buf_init(&svg);
	buf_init(&err);
	int no = f->no;
	int rc = charts_take(fs->cs, no, &svg, &err);
	if (rc == 0) {
		res->charts++;
		buf_printf(out, "<figure class=\"chart\" id=\"chart-%d\">\n", no);
		buf_add(out, svg.data, svg.len);
		buf_printf(out, "<figcaption>Figure %d. %s", no, f->caption);
		buf_adds(out, "</figcaption>\n</figure>\n");
	} else if (rc == CHARTS_NO_GNUPLOT) {
		buf_printf(out, "<p class=\"nochart\">No chart: gnuplot is not installed; its data and script are in the gnuplot "
				"folder as chart-%02d.dat and chart-%02d.gp.</p>\n", no, no);
	} else {
		res->charts_failed++;
		struct buf t;
		buf_init(&t);
		if (f->finding) {
			diag_emit(d, MSG_LEVEL(o), 0, 0, "chart %d (finding %zu) could not be drawn: %s", no, f->finding,
				  err.data ? err.data : "");
			buf_printf(&t, "The chart of finding %zu could not be drawn: ", f->finding);
		} else {
			diag_emit(d, MSG_LEVEL(o), 0, 0, "chart %d could not be drawn: %s", no, err.data ? err.data : "");
			buf_printf(&t, "Chart %d could not be drawn: ", no);
		}
		esc(&t, err.data);
		note_add(nt, t.data);
		buf_free(&t);
		buf_adds(out, "<p class=\"nochart\">No chart: gnuplot failed (see the warnings at the end).</p>\n");
	}
	buf_free(&svg);
	buf_free(&err);
}

/* Draws the section's charts (one gnuplot process) and puts each figure in its place. */
void figs_finish(struct figs *fs, struct buf *out, const struct html_opts *o, struct html_result *res,
		 struct notes *nt, struct diag *d)
{
	if (fs->n) {
		charts_run(fs->cs);
		struct buf tail;
		buf_init(&tail);
		buf_add(&tail, out->data + fs->start, out->len - fs->start);
		out->len = fs->start;
		size_t prev = 0;
		for (size_t i = 0; i < fs->n; i++) {
			size_t at = fs->f[i].at - fs->start;
			buf_add(out, tail.data + prev, at - prev);
			prev = at;
			fig_html(fs, &fs->f[i], o, res, nt, d, out);
			free(fs->f[i].caption);
		}
		buf_add(out, tail.data + prev, tail.len - prev);
		buf_free(&tail);
	}
	free(fs->f);
	memset(fs, 0, sizeof *fs);
}


void figlist_take(struct figlist *fl, const struct figs *fs)
{
	for (size_t i = 0; i < fs->n && fl->n < sizeof fl->no / sizeof fl->no[0]; i++) {
		fl->no[fl->n] = fs->f[i].no;
		fl->finding[fl->n++] = fs->f[i].finding;
	}
}

/* The appendix: what the main text leaves out for the customer but a colleague needs to check it —
 * each finding's rule id, rule and source, the chart files of --gnuplot-dir, the embedded JSON. */
void appendix_html(struct buf *out, const struct analysis *a, const struct figlist *fl, const struct html_opts *o,
		   int schema_version)
{
	buf_adds(out, "<section id=\"appendix\" class=\"appendix\">\n<h2>Appendix: technical references</h2>\n");
	if (a && a->nf) {
		buf_adds(out, "<div class=\"tablewrap\"><table class=\"refs\"><thead><tr><th>#</th><th>Finding</th><th>Rule id</th>"
			      "<th>Rule</th><th>Source</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < a->nf; i++) {
			const struct finding *f = &a->f[i];
			buf_printf(out, "<tr><td><a href=\"#f%zu\">%zu</a></td><td>", i + 1, i + 1);
			title(out, f->kind);
			buf_adds(out, "</td><td class=\"ent\">");
			esc(out, kinds[f->kind].name);
			buf_adds(out, "</td><td class=\"small\">");
			esc(out, f->rule);
			buf_adds(out, "</td><td class=\"small\">");
			struct buf s;
			buf_init(&s);
			doc_customer_text(&s, f->source);
			esc(out, s.data ? s.data : "");
			buf_free(&s);
			buf_adds(out, "</td></tr>\n");
		}
		buf_adds(out, "</tbody></table></div>\n");
	}
	if (fl->n && o->gnuplot_dir) {
		buf_adds(out, "<h4>Chart files (--gnuplot-dir)</h4>\n<ul class=\"refs\">\n");
		for (size_t i = 0; i < fl->n; i++) {
			buf_printf(out, "<li>Figure %d", fl->no[i]);
			if (fl->finding[i])
				buf_printf(out, " (finding %zu)", fl->finding[i]);
			buf_printf(out, ": <span class=\"ent\">chart-%02d.gp</span>, <span class=\"ent\">chart-%02d.dat</span>, "
					"<span class=\"ent\">chart-%02d.svg</span></li>\n", fl->no[i], fl->no[i], fl->no[i]);
		}
		buf_adds(out, "</ul>\n<p class=\"small muted\">Restyle a chart: edit its script or <code>style.gp</code> in that "
			      "folder and run <code>gnuplot chart-NN.gp</code> there.</p>\n");
	}
	/* the JSON is in the HTML file only: the printed edition (the PDF) does not claim it */
	buf_adds(out, "<p class=\"small muted\">Made by iopsy " IOPSY_VERSION ".");
	if (o->print && o->attached) {
		buf_printf(out, " The %s is attached to this PDF as JSON, the file <span class=\"ent\">",
			   a ? "analysis" : "comparison");
		esc(out, o->attached);
		buf_printf(out,
			   "</span> (schema version %d): your PDF reader lists it among the document's attachments.",
			   schema_version);
	}
	if (!o->print)
		buf_printf(out,
			   " The %s is embedded in this file as JSON (element <code>#iopsy-data</code>, schema version "
			   "%d).",
			   a ? "analysis" : "comparison", schema_version);
	buf_adds(out, "</p>\n</section>\n");
}



bool html_paper_known(const char *name)
{
	return strcasecmp(name, "a4") == 0 || strcasecmp(name, "letter") == 0;
}
