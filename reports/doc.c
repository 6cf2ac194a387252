/* doc.c — the report document's blocks and their renderers (see doc.h). */
#include "doc.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

/* The marks are what each writer prints today: the registry test (tests/check_doc.c) finds each
 * one in each writer's output. */
const struct doc_sec_info doc_secs[DS_COUNT] = {
	[DS_SUMMARY] = {"Summary", "SUMMARY", "**Summary.**", "id=\"summary\"", "\"summary\"", "Summary"},
	[DS_ACTIONS] = {"Recommended actions", "RECOMMENDED ACTIONS", "**Recommended actions", "Recommended actions",
			"\"actions\"", "Action 1"},
	[DS_VERDICT] = {"Verdict", "VERDICT", "**Verdict.**", "id=\"verdict\"", "\"verdict\"", "Verdict"},
	[DS_COVERAGE] = {"What these captures could show", "COVERAGE", "#### What these captures could show",
			 "What these captures could show", "\"coverage\"", "Coverage"},
	[DS_FINDINGS] = {"Findings", "FINDINGS", "| # | severity | finding |", "id=\"findings\"", "\"findings\"",
			 "Findings"},
	[DS_IOPATH] = {"IO path", "IO PATH", "#### IO path", "id=\"stack\"", "\"io_path\"", "IO path"},
	[DS_SQL] = {"SQL Server while the storage waited", "SQL SERVER", "#### SQL Server while the storage waited",
		    "id=\"sql\"", "\"sql\"", "SQL Server"},
	[DS_ENTITIES] = {"Disks and LUNs at a glance", "ENTITIES", "#### Disks and LUNs at a glance", "id=\"entities\"",
			 "\"entities\"", "Entities"},
	[DS_CAPTURES] = {"Captures", "CAPTURES", "#### Captures", "id=\"captures\"", "\"captures\"", "Captures"},
	[DS_INPUTS] = {"Inputs and overrides", "INPUTS AND OVERRIDES", "#### Inputs and overrides", "id=\"inputs\"",
		       "\"inputs\"", "Inputs"},
	[DS_RULES] = {"Rules overridden", "RULES (overridden)", "#### Rules overridden", "Rules overridden",
		      "\"rules_overridden\"", "Rules overridden"},
	[DS_DISKMAP] = {"Disk mapping (guest disk = virtual disk)", "DISK MAPPING", "#### Disk mapping",
			"guest disk = virtual disk", "\"disk_map\"", "Disk map"},
	[DS_METHOD] = {"Methodology and glossary", "METHODOLOGY AND GLOSSARY", "#### Methodology and glossary",
		       "id=\"methodology\"", "\"methodology\"", "Methodology"},
	[DS_HIST] = {"Virtual disk histograms (vscsiStats)", "VIRTUAL DISK HISTOGRAMS", "#### Virtual disk histograms",
		     "id=\"vhist\"", "\"vscsi_histograms\"", "Histograms"},
};

const enum doc_sec compare_secs[COMPARE_SECS] = {DS_SUMMARY, DS_ACTIONS, DS_VERDICT, DS_FINDINGS,
						 DS_CAPTURES, DS_INPUTS,  DS_RULES,   DS_METHOD};

const char *doc_mark(enum doc_sec s, enum doc_writer w)
{
	const struct doc_sec_info *i = &doc_secs[s];
	switch (w) {
	case DW_TEXT: return i->text;
	case DW_MD: return i->md;
	case DW_HTML: return i->html;
	case DW_JSON: return i->json;
	case DW_SHEET: return i->sheet;
	default: return NULL;
	}
}

bool doc_role_apart(enum block_role r)
{
	return r == ROLE_ENTITIES || r == ROLE_STACK_HEAD || r == ROLE_STACK || r == ROLE_STACK_HOW ||
	       r == ROLE_ENT_GROUP || r == ROLE_ENT_VMS || r == ROLE_ENT_IDLE;
}

static int probe_sec = -1;

void doc_probe(int s) { probe_sec = s; }

/* s (owned) with DOC_PROBE after it when b is probed. */
static char *probed(bool on, char *s)
{
	if (!on || !s)
		return s;
	char *t = xprintf("%s" DOC_PROBE, s);
	free(s);
	return t;
}

void doc_init(struct doc *d, const struct ltime *lt)
{
	memset(d, 0, sizeof *d);
	d->lt = lt;
}

static void block_free(struct doc_block *b)
{
	free(b->text);
	for (int k = 0; b->head && k < b->ncols; k++)
		free(b->head[k]);
	free(b->head);
	for (size_t i = 0; i < b->nrows * (size_t)b->ncols; i++)
		free(b->cell[i].s);
	free(b->cell);
}

void doc_free(struct doc *d)
{
	for (int s = 0; s < DS_COUNT; s++) {
		for (size_t i = 0; i < d->sec[s].nb; i++)
			block_free(&d->sec[s].b[i]);
		free(d->sec[s].b);
		free(d->sec[s].note);
	}
	memset(d, 0, sizeof *d);
}

static struct doc_block *block_add(struct doc *d, enum doc_sec s, enum block_type t, int ncols)
{
	struct doc_section *sec = &d->sec[s];
	if (sec->nb && t != BLK_PARA && t != BLK_TABLE && sec->b[sec->nb - 1].t == t && !sec->b[sec->nb - 1].role) {
		sec->on = true;
		return &sec->b[sec->nb - 1]; /* consecutive key/value lines or list items: one block */
	}
	return doc_block(d, s, t, ROLE_NONE, ncols);
}

struct doc_block *doc_block(struct doc *d, enum doc_sec s, enum block_type t, enum block_role r, int ncols)
{
	struct doc_section *sec = &d->sec[s];
	sec->on = true;
	if (sec->nb == sec->cap) {
		sec->cap = sec->cap ? sec->cap * 2 : 4;
		sec->b = xrealloc(sec->b, sec->cap * sizeof *sec->b);
	}
	struct doc_block *b = &sec->b[sec->nb++];
	memset(b, 0, sizeof *b);
	b->t = t;
	b->role = r;
	b->ncols = ncols;
	b->probe = (int)s == probe_sec;
	return b;
}

/* The next cell of the last row, or NULL past its last column. */
static struct doc_cell *cell_next(struct doc_block *t)
{
	if (!t->nrows || t->col >= t->ncols)
		return NULL;
	return &t->cell[(t->nrows - 1) * (size_t)t->ncols + (size_t)t->col++];
}

void doc_row(struct doc_block *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 8;
		t->cell = xrealloc(t->cell, t->cap * (size_t)t->ncols * sizeof *t->cell);
	}
	memset(&t->cell[t->nrows * (size_t)t->ncols], 0, (size_t)t->ncols * sizeof *t->cell);
	t->nrows++;
	t->col = 0;
}

void doc_cell_text(struct doc_block *t, const char *s)
{
	struct doc_cell *c = cell_next(t);
	if (c)
		*c = (struct doc_cell){.t = CELL_TEXT, .s = probed(t->probe, xstrdup(s ? s : ""))};
}

void doc_cell_num(struct doc_block *t, double v)
{
	struct doc_cell *c = cell_next(t);
	if (c)
		*c = (struct doc_cell){.t = CELL_NUM, .v = v};
}

void doc_cell_time(struct doc_block *t, int64_t ms)
{
	struct doc_cell *c = cell_next(t);
	if (c)
		*c = (struct doc_cell){.t = CELL_TIME, .ms = ms};
}

void doc_cell_none(struct doc_block *t)
{
	(void)cell_next(t);
}

void doc_para(struct doc *d, enum doc_sec s, const char *fmt, ...)
{
	struct doc_block *b = block_add(d, s, BLK_PARA, 1);
	va_list ap;
	va_start(ap, fmt);
	b->text = probed(b->probe, xvprintf(fmt, ap));
	va_end(ap);
}

void doc_kv(struct doc *d, enum doc_sec s, const char *key, const char *fmt, ...)
{
	struct doc_block *b = block_add(d, s, BLK_KV, 2);
	va_list ap;
	va_start(ap, fmt);
	char *v = probed(b->probe, xvprintf(fmt, ap));
	va_end(ap);
	doc_row(b);
	doc_cell_text(b, key);
	struct doc_cell *c = cell_next(b);
	if (c)
		*c = (struct doc_cell){.t = CELL_TEXT, .s = v};
	else
		free(v);
}

static void item_v(struct doc *d, enum doc_sec s, int depth, const char *fmt, va_list ap)
{
	struct doc_block *b = block_add(d, s, BLK_LIST, 1);
	char *v = probed(b->probe, xvprintf(fmt, ap));
	doc_row(b);
	struct doc_cell *c = cell_next(b);
	if (c)
		*c = (struct doc_cell){.t = CELL_TEXT, .s = v, .v = depth};
	else
		free(v);
}

void doc_item(struct doc *d, enum doc_sec s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	item_v(d, s, 0, fmt, ap);
	va_end(ap);
}

void doc_item_at(struct doc *d, enum doc_sec s, int depth, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	item_v(d, s, depth, fmt, ap);
	va_end(ap);
}

void doc_wrap(struct doc *d, enum doc_sec s)
{
	if (d->sec[s].nb)
		d->sec[s].b[d->sec[s].nb - 1].wrap = true;
}

void doc_note(struct doc *d, enum doc_sec s, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	free(d->sec[s].note);
	d->sec[s].note = probed((int)s == probe_sec, xvprintf(fmt, ap));
	va_end(ap);
	d->sec[s].on = true;
}

struct doc_block *doc_table(struct doc *d, enum doc_sec s, const char *caption, const char *const *head)
{
	int n = 0;
	while (head[n])
		n++;
	struct doc_block *b = block_add(d, s, BLK_TABLE, n);
	b->text = probed(b->probe, caption ? xstrdup(caption) : NULL);
	b->head = xcalloc((size_t)n, sizeof *b->head);
	for (int k = 0; k < n; k++)
		b->head[k] = probed(b->probe, xstrdup(head[k]));
	return b;
}

void doc_cell_str(const struct doc *d, const struct doc_cell *c, struct buf *out)
{
	(void)d;
	switch (c->t) {
	case CELL_TEXT: buf_adds(out, c->s); break;
	case CELL_NUM: fmt_num(out, c->v, "-"); break;
	case CELL_TIME: fmt_when(out, c->ms); buf_adds(out, " UTC"); break;
	case CELL_NONE: break;
	}
}

static const struct doc_cell *cell_at(const struct doc_block *b, size_t r, int k)
{
	return &b->cell[r * (size_t)b->ncols + (size_t)k];
}


/* ---- sections a writer lays out its own way (enum block_role) ---- */

static void text_findings(const struct doc *d, struct buf *out);

/* A mapping a line, "SQL01\\D: = SQL01:scsi0:1   (found by correlating IOPS, r = 0.91)" (a --map
 * line says nothing more), escaped for text or Markdown. */
static void diskmap_lines(const struct doc_block *b, const char *ind, const char *bullet, bool md, struct buf *out)
{
	struct buf l;
	buf_init(&l);
	for (size_t r = 0; r < b->nrows; r++) {
		const struct doc_cell *c = &b->cell[r * (size_t)b->ncols];
		buf_reset(&l);
		buf_printf(&l, "%s%s%s = %s", c[0].s, *c[0].s ? "\\" : "", c[1].s, c[2].s);
		if (strncmp(c[3].s, "found", 5) == 0)
			buf_printf(&l, "   (%s)", c[3].s);
		buf_printf(out, "%s%s", ind, bullet);
		if (md)
			md_escape(out, l.data);
		else
			fmt_esc(out, l.data);
		buf_addc(out, '\n');
	}
	buf_free(&l);
}
static void text_captures(const struct doc *d, struct buf *out);
static void md_captures(const struct doc *d, struct buf *out);

/* The first block of s with role r, or NULL. */
static const struct doc_block *role_block(const struct doc *d, enum doc_sec s, enum block_role r)
{
	for (size_t i = 0; i < d->sec[s].nb; i++)
		if (d->sec[s].b[i].role == r)
			return &d->sec[s].b[i];
	return NULL;
}

static const char *cell_s(const struct doc_block *b, size_t r, int k)
{
	const struct doc_cell *c = &b->cell[r * (size_t)b->ncols + (size_t)k];
	return c->t == CELL_TEXT && c->s ? c->s : "";
}

static double cell_v(const struct doc_block *b, size_t r, int k)
{
	return b->cell[r * (size_t)b->ncols + (size_t)k].v;
}

/* SQL Server: an instance's paragraph, then its files, its episodes under a line that names them. */
static void text_sql(const struct doc *d, struct buf *out)
{
	const struct doc_section *sec = &d->sec[DS_SQL];
	buf_printf(out, "\n%s (what it did while the storage waited)\n", doc_secs[DS_SQL].text);
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *b = &sec->b[i];
		if (b->t == BLK_PARA) {
			text_wrap(out, "  ", b->text, 100);
			continue;
		}
		const char *last = "";
		for (size_t r = 0; b->t == BLK_KV && r < b->nrows; r++) {
			const char *k = cell_s(b, r, 0);
			if (strcmp(k, "Files") == 0) {
				text_wrap(out, "    files: ", cell_s(b, r, 1), 100);
			} else if (strcmp(k, "Episodes") == 0) {
				text_wrap(out, "    ", cell_s(b, r, 1), 100);
			} else {
				if (strcmp(k, last) != 0)
					buf_adds(out, strcmp(k, "Without a storage cause") == 0
							  ? "    SQL Server waits without a storage "
							    "cause:\n"
							  : "    during the storage episodes:\n");
				text_wrap(out, "    - ", cell_s(b, r, 1), 100);
			}
			last = k;
		}
	}
}
static void md_findings(const struct doc *d, struct buf *out);

void doc_summary_para(const struct doc *d, struct buf *out)
{
	const struct doc_block *h = role_block(d, DS_SUMMARY, ROLE_HEADLINE), *l = role_block(d, DS_SUMMARY, ROLE_LEAD);
	size_t n = l ? l->nrows : 0;
	if (h && !(n && strncmp(cell_s(l, 0, 0), h->text, strlen(h->text)) == 0)) {
		buf_adds(out, h->text);
		buf_adds(out, ". ");
	}
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_addc(out, ' ');
		buf_adds(out, cell_s(l, i, 0));
	}
}

/* "findings 1, 2" of an action's references ("1, 2"): singular for one. */
static void refs_word(struct buf *out, const char *refs)
{
	buf_printf(out, "finding%s %s", strchr(refs, ',') ? "s" : "", refs);
}

/* The notices' text, side-labelled ("  before  ") in a comparison, a blank line after an analysis's. */
void doc_notices_text(const struct doc *d, struct buf *out)
{
	const struct doc_section *sec = &d->sec[DS_SUMMARY];
	bool any = false;
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *b = &sec->b[i];
		if (b->role != ROLE_NOTICE)
			continue;
		char ind[16] = "";
		if (b->text)
			snprintf(ind, sizeof ind, "  %-7s ", b->text);
		for (size_t r = 0; r < b->nrows; r++)
			text_wrap(out, ind, cell_s(b, r, 1), 100);
		any |= !b->text && b->nrows;
	}
	if (any)
		buf_addc(out, '\n');
}

void doc_notices_md(const struct doc *d, struct buf *out)
{
	const struct doc_section *sec = &d->sec[DS_SUMMARY];
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *b = &sec->b[i];
		if (b->role != ROLE_NOTICE)
			continue;
		for (size_t r = 0; r < b->nrows; r++) {
			if (b->text)
				buf_printf(out, "\n**%c%s.** ",
					   b->text[0] - ('a' <= b->text[0] && b->text[0] <= 'z' ? 32 : 0), b->text + 1);
			else
				buf_addc(out, '\n');
			md_escape(out, cell_s(b, r, 1));
			buf_addc(out, '\n');
		}
	}
}

void doc_notices_html(const struct doc *d, struct buf *out)
{
	const struct doc_section *sec = &d->sec[DS_SUMMARY];
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *b = &sec->b[i];
		if (b->role != ROLE_NOTICE)
			continue;
		for (size_t r = 0; r < b->nrows; r++) {
			buf_adds(out, "<p class=\"notice\">");
			html_escape(out, cell_s(b, r, 1));
			buf_adds(out, "</p>\n");
		}
	}
}

static bool text_role(const struct doc *d, enum doc_sec s, struct buf *out)
{
	const struct doc_block *b;
	struct buf t;
	buf_init(&t);
	if (s == DS_SUMMARY) {
		buf_printf(out, "%s\n", doc_secs[s].text);
		doc_summary_para(d, &t);
		text_wrap(out, "  ", t.data ? t.data : "", 100);
	} else if (s == DS_FINDINGS) {
		text_findings(d, out);
	} else if (s == DS_SQL) {
		text_sql(d, out);
	} else if (role_block(d, s, ROLE_CAPTURES)) {
		text_captures(d, out);
	} else if ((b = role_block(d, s, ROLE_DISKMAP))) {
		buf_printf(out, "\n%s (%s)\n", doc_secs[s].text, d->sec[s].note ? d->sec[s].note : "");
		diskmap_lines(b, "  ", "", false, out);
	} else if ((b = role_block(d, s, ROLE_ACTIONS))) {
		buf_printf(out, "\n%s (in this order)\n", doc_secs[s].text);
		for (size_t r = 0; r < b->nrows; r++) {
			char ind[32];
			snprintf(ind, sizeof ind, "  %zu. ", r + 1);
			text_wrap(out, ind, cell_s(b, r, 0), 100);
			text_wrap(out, "     effect: ", cell_s(b, r, 1), 100);
			buf_reset(&t);
			if (*cell_s(b, r, 2)) {
				refs_word(&t, cell_s(b, r, 2));
				buf_printf(&t, " (%s)", cell_s(b, r, 3));
			} else {
				buf_adds(&t, cell_s(b, r, 3));
			}
			text_wrap(out, "     why: ", t.data, 100);
		}
	} else if (role_block(d, s, ROLE_SIDE_RULES)) {
		for (size_t i = 0; i < d->sec[s].nb; i++) {
			b = &d->sec[s].b[i];
			buf_printf(out, "\nRULES %s (overridden)\n", b->text);
			for (size_t r = 0; r < b->nrows; r++) {
				buf_adds(out, "  ");
				fmt_esc(out, cell_s(b, r, 0));
				buf_addc(out, '\n');
			}
		}
	} else if ((b = role_block(d, s, ROLE_COVERAGE))) {
		buf_printf(out, "\n%s (", doc_secs[s].text);
		if (b->text)
			buf_printf(out, "of the selection %s: ", b->text);
		buf_adds(out, "what these captures could show)\n");
		for (size_t r = 0; r < b->nrows; r++) {
			buf_reset(&t);
			buf_adds(&t, cell_s(b, r, 1));
			if (cell_v(b, r, 3) > 0)
				buf_printf(&t, " (%.0f of %.0f active)", cell_v(b, r, 2), cell_v(b, r, 3));
			if (*cell_s(b, r, 4))
				buf_printf(&t, ": %s", cell_s(b, r, 4));
			char ind[32];
			snprintf(ind, sizeof ind, "  %-8s ", cell_s(b, r, 0));
			text_wrap(out, ind, t.data, 100);
		}
	} else {
		buf_free(&t);
		return false;
	}
	buf_free(&t);
	return true;
}

static bool md_role(const struct doc *d, enum doc_sec s, struct buf *out)
{
	const struct doc_block *b;
	if (s == DS_SUMMARY) {
		struct buf t;
		buf_init(&t);
		doc_summary_para(d, &t);
		buf_printf(out, "%s ", doc_secs[s].md);
		md_escape(out, t.data ? t.data : "");
		buf_adds(out, "\n\n");
		buf_free(&t);
	} else if (s == DS_FINDINGS) {
		md_findings(d, out);
	} else if (role_block(d, s, ROLE_CAPTURES)) {
		md_captures(d, out);
	} else if ((b = role_block(d, s, ROLE_DISKMAP))) {
		buf_printf(out, "\n%s (", doc_secs[s].md);
		md_escape(out, d->sec[s].note ? d->sec[s].note : "");
		buf_adds(out, ")\n\n");
		diskmap_lines(b, "", "- ", true, out);
	} else if ((b = role_block(d, s, ROLE_ACTIONS))) {
		buf_adds(out, "**Recommended actions, in this order:**\n\n");
		for (size_t r = 0; r < b->nrows; r++) {
			buf_printf(out, "%zu. ", r + 1);
			md_escape(out, cell_s(b, r, 0));
			buf_adds(out, " *Expected effect:* ");
			md_escape(out, cell_s(b, r, 1));
			buf_adds(out, " *Why:* ");
			if (*cell_s(b, r, 2)) {
				refs_word(out, cell_s(b, r, 2));
				buf_adds(out, " (");
				md_escape(out, cell_s(b, r, 3));
				buf_adds(out, ")");
			} else {
				md_escape(out, cell_s(b, r, 3));
			}
			buf_adds(out, "\n");
		}
		buf_adds(out, "\n");
	} else if (role_block(d, s, ROLE_SIDE_RULES)) {
		for (size_t i = 0; i < d->sec[s].nb; i++) {
			b = &d->sec[s].b[i];
			buf_printf(out, "\n%s %s\n\n", doc_secs[s].md, b->text);
			for (size_t r = 0; r < b->nrows; r++) {
				buf_adds(out, "- ");
				md_escape(out, cell_s(b, r, 0));
				buf_addc(out, '\n');
			}
		}
	} else if ((b = role_block(d, s, ROLE_COVERAGE))) {
		buf_printf(out, "\n%s\n\n| layer | status | why |\n|---|---|---|\n", doc_secs[s].md);
		for (size_t r = 0; r < b->nrows; r++) {
			buf_printf(out, "| %s | %s | ", cell_s(b, r, 0), cell_s(b, r, 1));
			md_escape(out, cell_s(b, r, 4));
			buf_adds(out, " |\n");
		}
	} else if (s == DS_VERDICT && d->sec[s].nb && d->sec[s].b[0].t == BLK_PARA) { /* a run-in heading */
		buf_printf(out, "%s ", doc_secs[s].md);
		md_escape(out, d->sec[s].b[0].text);
		buf_adds(out, "\n");
	} else {
		return false;
	}
	return true;
}

static void html_actions(const struct doc *d, struct buf *out)
{
	const struct doc_block *b = role_block(d, DS_ACTIONS, ROLE_ACTIONS);
	if (!b || !b->nrows)
		return;
	buf_adds(out, "<h3>Recommended actions, in this order</h3>\n<ol class=\"actions\">\n");
	for (size_t r = 0; r < b->nrows; r++) {
		buf_adds(out, "<li><p class=\"what\">");
		html_escape(out, cell_s(b, r, 0));
		buf_adds(out, "</p><p class=\"effect\"><b>Expected effect:</b> ");
		html_escape(out, cell_s(b, r, 1));
		buf_adds(out, "</p><p class=\"why\"><b>Why:</b> ");
		const char *refs = cell_s(b, r, 2);
		if (*refs && d->links) {
			buf_printf(out, "finding%s ", strchr(refs, ',') ? "s" : "");
			for (const char *p = refs; *p;) {
				char *end;
				unsigned long n = strtoul(p, &end, 10);
				if (end == p)
					break;
				buf_printf(out, "%s<a href=\"#f%lu\">%lu</a>", p == refs ? "" : ", ", n, n);
				p = end + strspn(end, ", ");
			}
			buf_adds(out, " &mdash; ");
		}
		html_escape(out, cell_s(b, r, 3));
		buf_adds(out, "</p></li>\n");
	}
	buf_adds(out, "</ol>\n");
}

static bool html_role(const struct doc *d, enum doc_sec s, struct buf *out)
{
	const struct doc_block *b;
	if (s == DS_SUMMARY) {
		int tone = d->sec[s].tone;
		const char *cls = tone == SEV_CRITICAL ? "crit" : tone == SEV_WARNING ? "warn" : "ok";
		buf_printf(out, "<section %s class=\"summary verdict %s\">\n<h2>Summary</h2>\n", doc_secs[s].html, cls);
		if ((b = role_block(d, s, ROLE_HEADLINE))) {
			buf_adds(out, "<p class=\"headline\">");
			html_escape(out, b->text);
			buf_adds(out, "</p>\n");
		}
		buf_adds(out, "<p class=\"lead\">");
		b = role_block(d, s, ROLE_LEAD);
		for (size_t i = 0; b && i < b->nrows; i++) {
			if (i)
				buf_addc(out, ' ');
			html_escape(out, cell_s(b, i, 0));
		}
		buf_adds(out, "</p>\n");
		html_actions(d, out);
		if ((b = role_block(d, s, ROLE_FOOT))) {
			buf_adds(out, "<p class=\"small muted\">");
			html_escape(out, b->text);
			buf_adds(out, "</p>\n");
		}
		buf_adds(out, "</section>\n");
	} else if (s == DS_ACTIONS) {
		html_actions(d, out);
	} else if ((b = role_block(d, s, ROLE_COVERAGE))) {
		buf_adds(
		    out,
		    "<h3>What these captures could show</h3>\n<table class=\"cov\"><tr><th>Layer</th><th>Status</th>"
		    "<th>Why</th></tr>\n");
		for (size_t r = 0; r < b->nrows && r < COV_LAYERS; r++) {
			const char *st = cell_s(b, r, 1);
			buf_printf(out, "<tr><td>%s</td><td class=\"st%s\">%s</td><td>", cov_layer_titles[d->hyperv][r],
				   strcmp(st, cov_status_words[COV_ASSESSED]) == 0 ? ""
				   : strcmp(st, cov_status_words[COV_PARTIAL]) == 0 ? " pa" : " na", st);
			html_escape(out, cell_s(b, r, 4));
			buf_adds(out, "</td></tr>\n");
		}
		buf_adds(out, "</table>\n");
	} else {
		return false;
	}
	return true;
}

/* ---- findings ---- */

static const char *fh_s(const struct doc_block *h, enum fhead k) { return cell_s(h, (size_t)k, 1); }
static double fh_v(const struct doc_block *h, enum fhead k) { return cell_v(h, (size_t)k, 1); }
static int64_t fh_t(const struct doc_block *h, enum fhead k) { return h->cell[(size_t)k * 2 + 1].ms; }

static int sev_of(const char *w)
{
	for (int s = 0; s < 3; s++)
		if (strcmp(severity_names[s], w) == 0)
			return s;
	return SEV_INFO;
}

/* The block of finding no with role r, or NULL. */
static const struct doc_block *finding_part(const struct doc *d, size_t no, enum block_role r)
{
	size_t n = 0;
	long at = doc_finding_at(d, no, &n);
	for (size_t i = 0; at >= 0 && i < n; i++)
		if (d->sec[DS_FINDINGS].b[(size_t)at + i].role == r)
			return &d->sec[DS_FINDINGS].b[(size_t)at + i];
	return NULL;
}

static size_t findings_n(const struct doc *d)
{
	size_t n = 0;
	for (size_t i = 0; i < d->sec[DS_FINDINGS].nb; i++)
		n += d->sec[DS_FINDINGS].b[i].role == ROLE_FINDING;
	return n;
}

static void text_finding(const struct doc *d, size_t no, struct buf *out)
{
	const struct doc_block *h = finding_part(d, no, ROLE_FINDING), *b;
	char s[32], e[32];
	time_format_iso(fh_t(h, FH_START), false, s);
	time_format_iso(fh_t(h, FH_END), false, e);
	buf_printf(out, "\n%zu. %s  %s  ", no, severity_upper[sev_of(fh_s(h, FH_SEV))], fh_s(h, FH_ID));
	if (*fh_s(h, FH_HOST)) {
		fmt_esc(out, fh_s(h, FH_HOST));
		buf_addc(out, ' ');
	}
	fmt_esc(out, fh_s(h, FH_ENTITY));
	buf_printf(out, "  [%s]%s\n", fh_s(h, FH_LAYER), *fh_s(h, FH_HEUR) ? "  (heuristic)" : "");
	buf_printf(out, "   %s .. %s", s, e);
	if (d->lt)
		ltime_span_note(out, d->lt, fh_t(h, FH_START), fh_t(h, FH_END), "..");
	buf_adds(out, " (");
	fmt_duration(out, fh_v(h, FH_SUSTAINED), true);
	b = finding_part(d, no, ROLE_EPISODE);
	buf_adds(out, b ? " held" : "");
	buf_adds(out, ")\n");
	if (b) {
		buf_printf(out, "   one episode of %zu windows:", b->nrows);
		for (size_t k = 0; k < b->nrows; k++) {
			char a1[32], a2[32];
			time_format_iso(b->cell[k * 2].ms, false, a1);
			time_format_iso(b->cell[k * 2 + 1].ms, false, a2);
			buf_printf(out, "%s %.8s-%.8s", k ? "," : "", a1 + 11, a2 + 11);
		}
		buf_addc(out, '\n');
	}
	text_wrap(out, "   ", fh_s(h, FH_SUMMARY), 100);
	b = finding_part(d, no, ROLE_EVIDENCE);
	for (size_t k = 0; b && k < b->nrows; k++) {
		buf_printf(out, "   %s %s: min ", k ? "        " : "evidence", cell_s(b, k, EV_COUNTER));
		fmt_num(out, cell_v(b, k, EV_MIN), "-");
		buf_adds(out, ", median ");
		fmt_num(out, cell_v(b, k, EV_MEDIAN), "-");
		buf_adds(out, ", p95 ");
		fmt_num(out, cell_v(b, k, EV_P95), "-");
		buf_adds(out, ", max ");
		fmt_num(out, cell_v(b, k, EV_MAX), "-");
		buf_printf(out, " %s", cell_s(b, k, EV_UNIT));
		if (b->cell[k * (size_t)b->ncols + EV_ABOVE].t == CELL_NUM)
			buf_printf(out, "; %.0f of %.0f samples above %g", cell_v(b, k, EV_ABOVE),
				   cell_v(b, k, EV_SAMPLES), cell_v(b, k, EV_THRESHOLD));
		else
			buf_printf(out, "; %.0f samples", cell_v(b, k, EV_SAMPLES));
		buf_addc(out, '\n');
	}
	if ((b = finding_part(d, no, ROLE_FIGURE))) /* a chart in the HTML, PDF and workbook */
		text_wrap(out, "   chart: ", b->text, 100);
	b = finding_part(d, no, ROLE_RULE);
	for (size_t k = 0; b && k < b->nrows; k++) {
		const char *key = cell_s(b, k, 0);
		if (strcmp(key, "Load on the LUN") == 0) {
			struct buf l;
			buf_init(&l);
			fmt_esc(&l, cell_s(b, k, 1));
			text_wrap(out, "   load: ", l.data, 100);
			buf_free(&l);
			continue;
		}
		char ind[32];
		snprintf(ind, sizeof ind, "   %c%s: ", key[0] - 'A' + 'a', key + 1);
		text_wrap(out, ind, cell_s(b, k, 1), 100);
	}
}

static void text_findings(const struct doc *d, struct buf *out)
{
	size_t n = findings_n(d);
	buf_printf(out, "\n%s%s\n", doc_secs[DS_FINDINGS].text, n ? " (worst first)" : "");
	if (!n)
		buf_adds(out, "  none\n");
	for (size_t i = 1; i <= n; i++)
		text_finding(d, i, out);
}

/* "2026-07-27 13:04:03 – 13:16:00 UTC (local 06:04:03 – 06:16:00 UTC-07:00)" */
static void md_window(const struct doc *d, struct buf *b, int64_t t0, int64_t t1)
{
	fmt_when(b, t0);
	buf_adds(b, " – ");
	if (fmt_same_day(t0, t1))
		fmt_hhmmss(b, t1);
	else
		fmt_when(b, t1);
	buf_adds(b, " UTC");
	if (d->lt)
		ltime_span_note(b, d->lt, t0, t1, "–");
}

static void md_entity(struct buf *b, const struct doc_block *h)
{
	if (*fh_s(h, FH_HOST)) {
		md_escape(b, fh_s(h, FH_HOST));
		buf_addc(b, ' ');
	}
	md_escape(b, fh_s(h, FH_ENTITY));
}

static void md_finding(const struct doc *d, size_t no, struct buf *out)
{
	const struct doc_block *h = finding_part(d, no, ROLE_FINDING), *b;
	buf_printf(out, "\n### %zu. %s%s — ", no, fh_s(h, FH_TITLE), *fh_s(h, FH_HEUR) ? " (heuristic)" : "");
	md_entity(out, h);
	buf_printf(out, "\n\n**%s**, ", fh_s(h, FH_SEV));
	md_window(d, out, fh_t(h, FH_START), fh_t(h, FH_END));
	buf_adds(out, ", sustained ");
	fmt_duration(out, fh_v(h, FH_SUSTAINED), true);
	buf_adds(out, ".\n\n");
	md_escape(out, fh_s(h, FH_SUMMARY));
	buf_adds(out, "\n");
	b = finding_part(d, no, ROLE_EVIDENCE);
	if (b && b->nrows)
		buf_adds(out, "\n| evidence | min | median | p95 | max | samples above threshold |\n"
			      "|---|---:|---:|---:|---:|---|\n");
	for (size_t k = 0; b && k < b->nrows; k++) {
		buf_adds(out, "| ");
		md_escape(out, cell_s(b, k, EV_COUNTER));
		if (*cell_s(b, k, EV_UNIT))
			buf_printf(out, " (%s)", cell_s(b, k, EV_UNIT));
		for (int c = EV_MIN; c <= EV_MAX; c++) {
			buf_adds(out, " | ");
			fmt_num(out, cell_v(b, k, c), "–");
		}
		buf_adds(out, " | ");
		if (b->cell[k * (size_t)b->ncols + EV_ABOVE].t == CELL_NUM && !isnan(cell_v(b, k, EV_THRESHOLD))) {
			buf_printf(out, "%.0f of %.0f above ", cell_v(b, k, EV_ABOVE), cell_v(b, k, EV_SAMPLES));
			fmt_num(out, cell_v(b, k, EV_THRESHOLD), "–");
		}
		buf_adds(out, " |\n");
	}
	if ((b = finding_part(d, no, ROLE_FIGURE))) { /* a chart in the HTML, PDF and workbook */
		buf_adds(out, "\n- **Chart:** ");
		md_escape(out, b->text);
	}
	b = finding_part(d, no, ROLE_RULE);
	for (size_t k = 0; b && k < b->nrows; k++) {
		buf_printf(out, "\n- **%s:** ", cell_s(b, k, 0));
		md_escape(out, cell_s(b, k, 1));
	}
	buf_adds(out, "\n");
}

static void md_findings(const struct doc *d, struct buf *out)
{
	size_t n = findings_n(d);
	if (!n) {
		buf_adds(out, "\nNo findings.\n");
		return;
	}
	buf_adds(out, "\n| # | severity | finding | entity | window |\n|---:|---|---|---|---|\n");
	for (size_t i = 1; i <= n; i++) {
		const struct doc_block *h = finding_part(d, i, ROLE_FINDING);
		buf_printf(out, "| %zu | %s | %s | ", i, fh_s(h, FH_SEV), fh_s(h, FH_TITLE));
		md_entity(out, h);
		buf_adds(out, " | ");
		md_window(d, out, fh_t(h, FH_START), fh_t(h, FH_END));
		buf_adds(out, " |\n");
	}
	for (size_t i = 1; i <= n; i++)
		md_finding(d, i, out);
}

static void html_num(struct buf *b, double v) { fmt_num2(b, v, "&ndash;"); }

/* One tag of a source ("vmw KB 2053145", "ms-docs Storage Quality of Service", "pal", "seed") by
 * its public reference, into out; nothing for the project's own material ("seed"). */
static void public_ref(struct buf *out, const char *tag, size_t n)
{
	static const char *const pre[][2] = {
		{"vmw-derived ", "derived from VMware "}, {"vmw ", "VMware "}, {"ms-docs ", "Microsoft Docs, "},
		{"ms-blog ", "Microsoft blog, "}, {"ms: ", "Microsoft, "}, {"seed, ", ""},
	};
	static const char *const whole[][2] = {
		{"vmw", "VMware documentation"}, {"ms", "Microsoft documentation"}, {"pal", "PAL thresholds"},
		{"derived", "derived"}, {"seed", ""},
	};
	for (size_t k = 0; k < sizeof whole / sizeof whole[0]; k++)
		if (strlen(whole[k][0]) == n && strncmp(tag, whole[k][0], n) == 0) {
			buf_adds(out, whole[k][1]);
			return;
		}
	for (size_t k = 0; k < sizeof pre / sizeof pre[0]; k++) {
		size_t p = strlen(pre[k][0]);
		if (n > p && strncmp(tag, pre[k][0], p) == 0) {
			buf_adds(out, pre[k][1]);
			buf_add(out, tag + p, n - p);
			return;
		}
	}
	buf_add(out, tag, n);
}

/* s with its source tags ("[vmw KB 2053145] PVSCSI 64/254", "... [seed].") said by their public
 * reference ("VMware KB 2053145: PVSCSI 64/254"), the project's own ("[seed]") left out. */
static void public_sources(struct buf *out, const char *s)
{
	while (*s) {
		const char *o = strchr(s, '[');
		const char *c = o ? strchr(o, ']') : NULL;
		if (!o || !c) {
			buf_adds(out, s);
			return;
		}
		bool lead = o == s || (o >= s + 2 && o[-1] == ' ' && o[-2] == ';');
		size_t before = (size_t)(o - s);
		if (!lead && before && o[-1] == ' ')
			before--; /* "queue [seed]." -> "queue." */
		buf_add(out, s, before);
		struct buf r;
		buf_init(&r);
		for (const char *t = o + 1; t < c;) { /* "[seed][vmw]" and "[a; b]" */
			const char *e = t;
			while (e < c && *e != ';')
				e++;
			size_t at = r.len;
			buf_adds(&r, r.len ? "; " : "");
			size_t mark = r.len;
			public_ref(&r, t, (size_t)(e - t));
			if (r.len == mark)
				r.len = at; /* a tag said by nothing */
			t = e < c ? e + 1 + (e[1] == ' ') : c;
		}
		s = c + 1;
		while (*s == '[' && strchr(s, ']')) { /* adjacent tags: "[seed][vmw] KB ..." */
			const char *c2 = strchr(s, ']');
			size_t at = r.len;
			buf_adds(&r, r.len ? "; " : "");
			size_t mark = r.len;
			public_ref(&r, s + 1, (size_t)(c2 - s - 1));
			if (r.len == mark)
				r.len = at;
			s = c2 + 1;
		}
		if (r.len && r.data)
			r.data[r.len] = '\0';
		if (r.len && lead) {
			if (r.data[0] >= 'a' && r.data[0] <= 'z')
				r.data[0] = (char)(r.data[0] - 'a' + 'A'); /* "Derived: ..." */
			buf_add(out, r.data, r.len);
			buf_adds(out, *s == ' ' ? ":" : "");
		} else if (r.len) {
			buf_printf(out, " (%s)", r.data);
		} else if (lead && *s == ' ') {
			s++;
		}
		buf_free(&r);
	}
}

void doc_customer_text(struct buf *b, const char *s)
{
	if (!s)
		return;
	struct buf t;
	buf_init(&t);
	public_sources(&t, s);
	for (int k = 0; k < K_COUNT; k++) {
		const char *id = kinds[k].name;
		size_t n = strlen(id);
		char *p;
		while (t.data && (p = strstr(t.data, id)) != NULL) {
			struct buf u;
			buf_init(&u);
			buf_add(&u, t.data, (size_t)(p - t.data));
			buf_printf(&u, "\"%s\"", kinds[k].title);
			buf_adds(&u, p + n);
			buf_free(&t);
			t = u;
		}
	}
	/* the command that lists the rules is the consultant's, not the customer's */
	static const char *const cmd[][2] = {
	    {"the thresholds in 'iopsy rules'", "the thresholds of the analysis's rules"},
	    {" ('iopsy rules')", ""},
	    {"confirm with --map", "confirm with a disk map"},
	    {"give --map for", "give a disk map line for"},
	    {"give --map '", "give a disk map line '"},
	    {" (give --tz to set the zone)", ""},
	    {" (give --tz)", ""},
	    {"; give --tz)", ")"},
	    {": give --tz)", ")"},
	    {": give --tz (", " ("},
	};
	for (size_t k = 0; k < sizeof cmd / sizeof cmd[0]; k++) {
		char *p;
		while (t.data && (p = strstr(t.data, cmd[k][0])) != NULL) {
			struct buf u;
			buf_init(&u);
			buf_add(&u, t.data, (size_t)(p - t.data));
			buf_adds(&u, cmd[k][1]);
			buf_adds(&u, p + strlen(cmd[k][0]));
			buf_free(&t);
			t = u;
		}
	}
	buf_adds(b, t.data ? t.data : "");
	buf_free(&t);
}

void doc_html_finding_part(const struct doc *d, size_t no, enum block_role r, struct buf *out)
{
	const struct doc_block *b = finding_part(d, no, r);
	if (!b || !b->nrows)
		return;
	if (r == ROLE_RULE) {
		buf_adds(out, "<dl class=\"rule\">");
		for (size_t k = 0; k < b->nrows; k++) {
			bool adv = strcmp(cell_s(b, k, 0), "Advice") == 0;
			buf_printf(out, "<dt>%s</dt><dd%s>", cell_s(b, k, 0), adv ? " class=\"advice\"" : "");
			struct buf t;
			buf_init(&t);
			doc_customer_text(&t, cell_s(b, k, 1));
			html_escape(out, t.data ? t.data : "");
			buf_free(&t);
			buf_adds(out, "</dd>");
		}
		buf_adds(out, "</dl>\n");
		return;
	}
	if (r != ROLE_EVIDENCE)
		return;
	buf_adds(
	    out,
	    "<div class=\"tablewrap\"><table class=\"evidence\"><thead><tr><th>Counter</th><th class=\"n\">Min</th>"
	    "<th class=\"n\">Median</th><th class=\"n\">p95</th><th class=\"n\">Max</th><th>Unit</th><th class=\"n\">"
	    "Samples</th><th class=\"n\">Above threshold</th></tr></thead><tbody>\n");
	for (size_t k = 0; k < b->nrows; k++) {
		buf_adds(out, "<tr><td>");
		html_escape(out, cell_s(b, k, EV_COUNTER));
		for (int c = EV_MIN; c <= EV_MAX; c++) {
			buf_adds(out, "</td><td class=\"n\">");
			html_num(out, cell_v(b, k, c));
		}
		buf_adds(out, "</td><td>");
		html_escape(out, cell_s(b, k, EV_UNIT));
		buf_printf(out, "</td><td class=\"n\">%.0f</td><td class=\"n\">", cell_v(b, k, EV_SAMPLES));
		if (b->cell[k * (size_t)b->ncols + EV_ABOVE].t == CELL_NUM) {
			buf_printf(out, "%.0f", cell_v(b, k, EV_ABOVE));
			buf_adds(out, " <span class=\"muted\">(&gt; ");
			html_num(out, cell_v(b, k, EV_THRESHOLD));
			buf_adds(out, ")</span>");
		} else {
			buf_adds(out, "<span class=\"muted\">&ndash;</span>");
		}
		buf_adds(out, "</td></tr>\n");
	}
	buf_adds(out, "</tbody></table></div>\n");
}

/* ---- captures ---- */

static void text_parts(const struct doc_block *p, size_t of, struct buf *out)
{
	size_t n = 0;
	for (size_t r = 0; r < p->nrows; r++)
		n += (size_t)cell_v(p, r, CP_OF) == of;
	buf_printf(out, "    %zu files of one host, merged in time order:\n", n);
	struct buf l;
	buf_init(&l);
	for (size_t r = 0, k = 0; r < p->nrows; r++) {
		if ((size_t)cell_v(p, r, CP_OF) != of)
			continue;
		const struct doc_cell *c = &p->cell[r * (size_t)p->ncols];
		buf_reset(&l);
		buf_printf(&l, "%zu. %s: ", ++k, c[CP_FILE].s);
		if (c[CP_ROWS].v > 0) {
			char s[32], e[32];
			time_format_iso(c[CP_START].ms, false, s);
			time_format_iso(c[CP_END].ms, false, e);
			buf_printf(&l, "%s .. %s, %.0f rows", s, e, c[CP_ROWS].v);
		} else {
			buf_adds(&l, "no row used");
		}
		if (c[CP_GAP].t == CELL_NUM) {
			buf_adds(&l, ", after a gap of ");
			fmt_duration(&l, c[CP_GAP].v, true);
			buf_adds(&l, " (marked)");
		}
		if (c[CP_OVERLAP].v > 0) {
			char s[32], e[32];
			time_format_iso(c[CP_OV0].ms, false, s);
			time_format_iso(c[CP_OV1].ms, false, e);
			buf_printf(&l,
				   "; %.0f row%s overlapping the files before (lines %.0f-%.0f, %s .. %s) skipped, not "
				   "counted twice",
				   c[CP_OVERLAP].v, c[CP_OVERLAP].v == 1 ? "" : "s", c[CP_LINE0].v, c[CP_LINE1].v, s,
				   e);
		}
		if (c[CP_WARNINGS].v > 0)
			buf_printf(&l, ", %.0f warning%s", c[CP_WARNINGS].v, c[CP_WARNINGS].v == 1 ? "" : "s");
		text_wrap(out, "      ", l.data, 100);
	}
	buf_free(&l);
}

/* Capture r of captures table b, a line: "  FILE: FORMAT, host ..." (side: "  before  FILE: ..."). */
static void text_capture(const struct doc *d, const struct doc_block *b, size_t r, struct buf *out)
{
	const struct doc_cell *c = &b->cell[r * (size_t)b->ncols];
	if (b->text)
		buf_printf(out, "  %-7s ", b->text);
	else
		buf_adds(out, "  ");
	fmt_esc(out, c[CC_FILE].s);
	if (*c[CC_FAILED].s) {
		buf_adds(out, ": could not be read (see the messages above)\n");
		return;
	}
	buf_printf(out, ": %s, host ", c[CC_FORMAT].s);
	fmt_esc(out, c[CC_HOST].s);
	if (c[CC_START].t == CELL_TIME) { /* a histogram capture has no time axis */
		char s[32], e[32];
		time_format_iso(c[CC_START].ms, false, s);
		time_format_iso(c[CC_END].ms, false, e);
		buf_printf(out, ", %s .. %s", s, e);
		if (d->lt)
			ltime_span_note(out, d->lt, c[CC_START].ms, c[CC_END].ms, "..");
		buf_printf(out, ", %g s interval, %.0f rows", c[CC_INTERVAL].v, c[CC_ROWS].v);
	}
	buf_printf(out, ", %.0f columns", c[CC_COLUMNS].v);
	if (c[CC_WARNINGS].v > 0)
		buf_printf(out, ", %.0f warning%s", c[CC_WARNINGS].v, c[CC_WARNINGS].v == 1 ? "" : "s");
	if (c[CC_OUTSIDE].t == CELL_NUM)
		buf_printf(out, ", %.0f row%s outside the window", c[CC_OUTSIDE].v, c[CC_OUTSIDE].v == 1 ? "" : "s");
	if (*c[CC_CLOCK].s)
		buf_printf(out, ", %s", c[CC_CLOCK].s);
	buf_addc(out, '\n');
}

/* Every captures table of the section (a comparison has one a side), each capture with the files
 * merged into it (the ROLE_PARTS tables after its table), then what was not read. */
static void text_captures(const struct doc *d, struct buf *out)
{
	const struct doc_section *sec = &d->sec[DS_CAPTURES];
	buf_printf(out, "\n%s\n", doc_secs[DS_CAPTURES].text);
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *b = &sec->b[i];
		if (b->role != ROLE_CAPTURES)
			continue;
		for (size_t r = 0; r < b->nrows; r++) {
			text_capture(d, b, r, out);
			for (size_t k = i + 1; k < sec->nb && sec->b[k].role != ROLE_CAPTURES; k++) /* merged files */
				if (sec->b[k].role == ROLE_PARTS && sec->b[k].nrows &&
				    (size_t)cell_v(&sec->b[k], 0, CP_OF) == r)
					text_parts(&sec->b[k], r, out);
		}
	}
	for (size_t i = 0; i < sec->nb; i++) /* what was not read: impossible values, caps */
		if (sec->b[i].t == BLK_PARA && sec->b[i].text)
			text_wrap(out, "  ", sec->b[i].text, 100);
}

static void md_capture_table(const struct doc *d, const struct doc_block *b, struct buf *out);

static void md_captures(const struct doc *d, struct buf *out)
{
	buf_printf(out, "\n%s\n", doc_secs[DS_CAPTURES].md);
	for (size_t i = 0; i < d->sec[DS_CAPTURES].nb; i++) /* a table a side in a comparison */
		if (d->sec[DS_CAPTURES].b[i].role == ROLE_CAPTURES)
			md_capture_table(d, &d->sec[DS_CAPTURES].b[i], out);
	for (size_t i = 0; i < d->sec[DS_CAPTURES].nb; i++) /* what was not read: impossible values, caps */
		if (d->sec[DS_CAPTURES].b[i].t == BLK_PARA && d->sec[DS_CAPTURES].b[i].text) {
			buf_adds(out, "\n");
			md_escape(out, d->sec[DS_CAPTURES].b[i].text);
			buf_adds(out, "\n");
		}
}

static void md_capture_table(const struct doc *d, const struct doc_block *b, struct buf *out)
{
	if (b->text) {
		buf_adds(out, "\nThe captures of the side ");
		md_escape(out, b->text);
		buf_adds(out, "\n");
	}
	buf_adds(out, "\n| file | format | host | start (UTC) | end (UTC) | rows |\n|---|---|---|---|---|---:|\n");
	for (size_t r = 0; r < b->nrows; r++) {
		const struct doc_cell *c = &b->cell[r * (size_t)b->ncols];
		buf_adds(out, "| ");
		md_escape(out, c[CC_FILE].s);
		if (*c[CC_FAILED].s) {
			buf_adds(out, " | could not be read | | | | |\n");
			continue;
		}
		buf_printf(out, " | %s | ", c[CC_FORMAT].s);
		md_escape(out, c[CC_HOST].s);
		buf_adds(out, " | ");
		if (c[CC_START].t == CELL_TIME) {
			fmt_when(out, c[CC_START].ms);
			buf_adds(out, " | ");
			fmt_when(out, c[CC_END].ms);
			if (d->lt)
				ltime_span_note(out, d->lt, c[CC_START].ms, c[CC_END].ms, "–");
		} else { /* a histogram capture has no time axis */
			buf_printf(out, "%s | ", c[CC_CLOCK].s);
		}
		buf_printf(out, " | %.0f |\n", c[CC_ROWS].v);
	}
}

/* ---- text ---- */

/* The display width of s (UTF-8 characters). */
static size_t width_of(const char *s)
{
	size_t n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xC0) != 0x80;
	return n;
}

/* Aligned columns when the table fits in 100 columns; else a line a row, "heading: value; ...",
 * wrapped, so that long cells stay readable. */
static void text_table(const struct doc *d, const struct doc_block *b, struct buf *out)
{
	size_t w[16] = {0}, tot = 2;
	int nc = b->ncols < 16 ? b->ncols : 16;
	struct buf t;
	buf_init(&t);
	struct buf *cells = xcalloc(b->nrows * (size_t)nc + 1, sizeof *cells);
	for (int k = 0; k < nc; k++)
		w[k] = width_of(b->head[k]);
	for (size_t r = 0; r < b->nrows; r++)
		for (int k = 0; k < nc; k++) {
			struct buf *c = &cells[r * (size_t)nc + (size_t)k];
			buf_init(c);
			buf_reset(&t);
			doc_cell_str(d, cell_at(b, r, k), &t);
			fmt_esc(c, t.data ? t.data : "");
			if (!c->data)
				buf_adds(c, "");
			size_t cw = width_of(c->data);
			w[k] = cw > w[k] ? cw : w[k];
		}
	for (int k = 0; k < nc; k++)
		tot += w[k] + 2;
	if (tot <= 100) {
		for (size_t r = 0; r <= b->nrows; r++) {
			buf_reset(&t);
			buf_adds(&t, "  ");
			for (int k = 0; k < nc; k++) {
				const char *v = r ? cells[(r - 1) * (size_t)nc + (size_t)k].data : b->head[k];
				buf_adds(&t, v);
				if (k + 1 < nc)
					for (size_t p = width_of(v); p < w[k] + 2; p++)
						buf_addc(&t, ' ');
			}
			while (t.len && t.data[t.len - 1] == ' ')
				t.data[--t.len] = '\0';
			buf_adds(out, t.data);
			buf_addc(out, '\n');
		}
	} else {
		for (size_t r = 0; r < b->nrows; r++) {
			buf_reset(&t);
			for (int k = 0; k < nc; k++) {
				const struct buf *c = &cells[r * (size_t)nc + (size_t)k];
				if (!*c->data)
					continue;
				if (b->labelled) {
					buf_adds(&t, t.len ? "  " : "");
				} else if (k) {
					if (t.len && t.data[t.len - 1] == '.')
						t.data[--t.len] = '\0'; /* a sentence's stop before "; " */
					buf_printf(&t, "%s%s: ", t.len ? "; " : "", b->head[k]);
				}
				buf_adds(&t, c->data);
			}
			/* already escaped: text_wrap's escaping leaves \xNN as it is */
			if (b->labelled) { /* a record a line, as grep and awk want it */
				buf_printf(out, "  %s\n", t.data ? t.data : "");
				continue;
			}
			text_wrap(out, "  - ", t.data ? t.data : "", 100);
		}
	}
	for (size_t i = 0; i < b->nrows * (size_t)nc; i++)
		buf_free(&cells[i]);
	free(cells);
	buf_free(&t);
}

void doc_text(const struct doc *d, enum doc_sec s, struct buf *out)
{
	const struct doc_section *sec = &d->sec[s];
	if (!sec->on || text_role(d, s, out))
		return;
	buf_printf(out, "\n%s", doc_secs[s].text);
	if (sec->note)
		buf_printf(out, " (%s)", sec->note);
	buf_addc(out, '\n');
	struct buf t;
	buf_init(&t);
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *b = &sec->b[i];
		if (doc_role_apart(b->role))
			continue; /* a writer's own layout */
		if (i && (b->t == BLK_PARA || b->t == BLK_TABLE))
			buf_addc(out, '\n');
		switch (b->t) {
		case BLK_PARA: text_wrap(out, "  ", b->text, 100); break;
		case BLK_LIST:
			/* "  item", nested ones two more spaces in (the text report's lists have no bullets) */
			for (size_t r = 0; r < b->nrows; r++) {
				char ind[16];
				int dep = (int)cell_at(b, r, 0)->v;
				snprintf(ind, sizeof ind, "%*s", 2 + 2 * (dep < 0 ? 0 : dep > 4 ? 4 : dep), "");
				if (b->wrap) {
					text_wrap(out, ind, cell_at(b, r, 0)->s, 100);
				} else {
					buf_adds(out, ind);
					fmt_esc(out, cell_at(b, r, 0)->s);
					buf_addc(out, '\n');
				}
			}
			break;
		case BLK_KV:
			for (size_t r = 0; r < b->nrows; r++) {
				buf_reset(&t);
				buf_printf(&t, "  %s: ", cell_at(b, r, 0)->s);
				text_wrap(out, t.data, cell_at(b, r, 1)->s, 100);
			}
			break;
		case BLK_TABLE:
			if (b->text)
				text_wrap(out, "  ", b->text, 100);
			text_table(d, b, out);
			break;
		}
	}
	buf_free(&t);
}

/* ---- Markdown ---- */

static void md_cell(const struct doc *d, const struct doc_cell *c, struct buf *out)
{
	struct buf t;
	buf_init(&t);
	doc_cell_str(d, c, &t);
	md_escape(out, t.data ? t.data : "");
	buf_free(&t);
}

void doc_md(const struct doc *d, enum doc_sec s, struct buf *out)
{
	const struct doc_section *sec = &d->sec[s];
	if (!sec->on || md_role(d, s, out))
		return;
	buf_printf(out, "\n%s", doc_secs[s].md);
	if (sec->note) {
		buf_adds(out, " (");
		md_escape(out, sec->note);
		buf_addc(out, ')');
	}
	buf_adds(out, "\n\n");
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *b = &sec->b[i];
		if (doc_role_apart(b->role))
			continue; /* a writer's own layout */
		if (i)
			buf_addc(out, '\n');
		switch (b->t) {
		case BLK_PARA:
			md_escape(out, b->text);
			buf_addc(out, '\n');
			break;
		case BLK_LIST:
			for (size_t r = 0; r < b->nrows; r++) {
				int dep = (int)cell_at(b, r, 0)->v;
				buf_printf(out, "%*s- ", 2 * (dep < 0 ? 0 : dep > 4 ? 4 : dep), "");
				md_cell(d, cell_at(b, r, 0), out);
				buf_addc(out, '\n');
			}
			break;
		case BLK_KV:
			for (size_t r = 0; r < b->nrows; r++) {
				buf_adds(out, "- **");
				md_cell(d, cell_at(b, r, 0), out);
				buf_adds(out, ":** ");
				md_cell(d, cell_at(b, r, 1), out);
				buf_addc(out, '\n');
			}
			break;
		case BLK_TABLE:
			if (b->text) {
				md_escape(out, b->text);
				buf_adds(out, "\n\n");
			}
			buf_addc(out, '|');
			for (int k = 0; k < b->ncols; k++) {
				buf_addc(out, ' ');
				md_escape(out, b->head[k]);
				buf_adds(out, " |");
			}
			buf_adds(out, "\n|");
			for (int k = 0; k < b->ncols; k++)
				buf_adds(out, b->nrows && cell_at(b, 0, k)->t == CELL_NUM ? "---:|" : "---|");
			buf_addc(out, '\n');
			for (size_t r = 0; r < b->nrows; r++) {
				buf_addc(out, '|');
				for (int k = 0; k < b->ncols; k++) {
					buf_addc(out, ' ');
					md_cell(d, cell_at(b, r, k), out);
					buf_adds(out, " |");
				}
				buf_addc(out, '\n');
			}
			break;
		}
	}
}

/* ---- HTML ---- */

/* Text for the customer (doc_customer_text: no rule id, no internal source tag), escaped; cust
 * false: as it is (the inputs and rules name the consultant's files and rule ids on purpose). */
static void html_text(const char *s, bool cust, struct buf *out)
{
	struct buf t;
	buf_init(&t);
	if (cust)
		doc_customer_text(&t, s);
	html_escape(out, cust ? (t.data ? t.data : "") : s);
	buf_free(&t);
}

static void html_cell(const struct doc *d, const struct doc_cell *c, bool cust, struct buf *out)
{
	struct buf t;
	buf_init(&t);
	doc_cell_str(d, c, &t);
	html_text(t.data ? t.data : "", cust, out);
	buf_free(&t);
}

void doc_html(const struct doc *d, enum doc_sec s, struct buf *out)
{
	doc_html_charted(d, s, out, NULL, NULL);
}

void doc_html_charted(const struct doc *d, enum doc_sec s, struct buf *out, doc_chart_fn chart, void *ctx)
{
	const struct doc_section *sec = &d->sec[s];
	if (!sec->on || html_role(d, s, out))
		return;
	bool cust = s != DS_INPUTS && s != DS_RULES && s != DS_DISKMAP;
	int fold = -1;
	/* the id is the registry's mark id="x" */
	buf_printf(out, "<section %s>\n<h2>", doc_secs[s].html);
	html_escape(out, doc_secs[s].title);
	buf_adds(out, "</h2>\n");
	if (sec->note) {
		buf_adds(out, "<p class=\"small muted\">");
		html_escape(out, sec->note);
		buf_adds(out, "</p>\n");
	}
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *b = &sec->b[i];
		if (doc_role_apart(b->role))
			continue; /* a writer's own layout */
		switch (b->t) {
		case BLK_PARA:
			buf_adds(out, "<p>");
			html_text(b->text, cust, out);
			buf_adds(out, "</p>\n");
			break;
		case BLK_LIST:
			buf_adds(out, "<ul>\n");
			for (size_t r = 0; r < b->nrows; r++) {
				buf_adds(out, cell_at(b, r, 0)->v > 0 ? "<li class=\"sub\">" : "<li>");
				html_cell(d, cell_at(b, r, 0), cust, out);
				buf_adds(out, "</li>\n");
			}
			buf_adds(out, "</ul>\n");
			break;
		case BLK_KV:
			buf_adds(out, "<dl class=\"kv\">\n");
			for (size_t r = 0; r < b->nrows; r++) {
				buf_adds(out, "<dt>");
				html_cell(d, cell_at(b, r, 0), cust, out);
				buf_adds(out, "</dt><dd>");
				html_cell(d, cell_at(b, r, 1), cust, out);
				buf_adds(out, "</dd>\n");
			}
			buf_adds(out, "</dl>\n");
			break;
		case BLK_TABLE:
			if ((fold = b->role == ROLE_HIST && chart ? chart(ctx, b, out) : -1) == 0)
				break;
			if (fold == 1) {
				buf_adds(out, "<details><summary>");
				html_escape(out, b->text ? b->text : "");
				buf_adds(out, "</summary>\n");
			}
			buf_adds(out, "<table class=\"grid\">\n");
			if (b->text) {
				buf_adds(out, "<caption>");
				html_escape(out, b->text);
				buf_adds(out, "</caption>\n");
			}
			buf_adds(out, "<thead><tr>");
			for (int k = 0; k < b->ncols; k++) {
				buf_adds(out, "<th>");
				html_escape(out, b->head[k]);
				buf_adds(out, "</th>");
			}
			buf_adds(out, "</tr></thead>\n<tbody>\n");
			for (size_t r = 0; r < b->nrows; r++) {
				buf_adds(out, "<tr>");
				for (int k = 0; k < b->ncols; k++) {
					const struct doc_cell *c = cell_at(b, r, k);
					buf_adds(out, c->t == CELL_NUM ? "<td class=\"num\">" : "<td>");
					html_cell(d, c, cust, out);
					buf_adds(out, "</td>");
				}
				buf_adds(out, "</tr>\n");
			}
			buf_adds(out, fold == 1 ? "</tbody>\n</table>\n</details>\n" : "</tbody>\n</table>\n");
			break;
		}
	}
	buf_adds(out, "</section>\n");
}

/* ---- JSON ---- */

static void json_cell(const struct doc_cell *c, struct json *j)
{
	char iso[32];
	switch (c->t) {
	case CELL_TEXT: json_str(j, c->s); break;
	case CELL_NUM: json_num(j, c->v); break;
	case CELL_TIME:
		time_format_iso(c->ms, false, iso);
		json_str(j, iso);
		break;
	case CELL_NONE: json_null(j); break;
	}
}

void doc_json(const struct doc *d, enum doc_sec s, struct json *j)
{
	const struct doc_section *sec = &d->sec[s];
	if (!sec->on)
		return;
	/* the key without its quotes */
	char key[64];
	snprintf(key, sizeof key, "%.*s", (int)strlen(doc_secs[s].json) - 2, doc_secs[s].json + 1);
	json_key(j, key);
	json_arr_begin(j);
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *b = &sec->b[i];
		if (doc_role_apart(b->role))
			continue; /* a writer's own layout */
		json_obj_begin(j);
		json_key(j, "type");
		json_str(j, b->t == BLK_PARA ? "paragraph" : b->t == BLK_KV ? "key_value" : b->t == BLK_LIST ? "list" : "table");
		if (b->t == BLK_PARA) {
			json_key(j, "text");
			json_str(j, b->text);
		} else if (b->t == BLK_TABLE) {
			json_key(j, "caption");
			json_str(j, b->text);
			json_key(j, "columns");
			json_arr_begin_flat(j);
			for (int k = 0; k < b->ncols; k++)
				json_str(j, b->head[k]);
			json_arr_end(j);
			json_key(j, "rows");
			json_arr_begin(j);
			for (size_t r = 0; r < b->nrows; r++) {
				json_arr_begin_flat(j);
				for (int k = 0; k < b->ncols; k++)
					json_cell(cell_at(b, r, k), j);
				json_arr_end(j);
			}
			json_arr_end(j);
		} else {
			json_key(j, "items");
			json_arr_begin(j);
			for (size_t r = 0; r < b->nrows; r++) {
				if (b->t == BLK_KV) {
					json_obj_begin_flat(j);
					json_key(j, "key");
					json_cell(cell_at(b, r, 0), j);
					json_key(j, "value");
					json_cell(cell_at(b, r, 1), j);
					json_obj_end(j);
				} else {
					json_cell(cell_at(b, r, 0), j);
				}
			}
			json_arr_end(j);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}
