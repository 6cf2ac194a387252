/* xlsx.c — the Excel workbook (`--xlsx PATH`, `--report xlsx=PATH`) through libxlsxwriter: a
 * summary sheet (the executive summary, the actions, the periods), the findings with their
 * evidence, the entities, and the series behind each charted finding, every time a real Excel
 * date-time (UTC and local time columns). Text from captures is written as string cells (never a
 * formula, whatever it starts with), control characters and bytes that are not UTF-8 as \xNN. */
#ifdef HAVE_XLSXWRITER
/* libxlsxwriter's chart API shares names with charts.h (unused here): renamed away */
#define chart_free lxw_chart_free_unused
#define chart_init lxw_chart_init_unused
#include <xlsxwriter.h>
#undef chart_free
#undef chart_init
#endif

#include "reporter.h"

#include <errno.h>
#include <ftw.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "doc.h"
#include "fmt.h"
#include "ltime.h"
#include "summary.h"
#include "version.h"

#ifdef HAVE_XLSXWRITER
#undef chart_add_series /* charts.h's (ours) is iopsy_chart_add_series: here it is libxlsxwriter's */
struct xl {
	lxw_workbook *wb;
	lxw_format *bold, *wrap, *date, *num, *head;
	lxw_format *ms, *count, *dec, *pct;  /* 0.0# ms; #,##0 rates, counts and s; 0.0# other; 0.0"%" */
	struct ltime lt;
	struct buf tmp;
};

/* Text as a cell: escaped like every other output, cut to Excel's 32,767 characters. */
static void put_str(struct xl *x, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, const char *s, lxw_format *f)
{
	buf_reset(&x->tmp);
	fmt_esc(&x->tmp, s ? s : "");
	if (x->tmp.len > 32000) {
		x->tmp.data[32000] = '\0';
		x->tmp.len = 32000;
	}
	worksheet_write_string(ws, r, c, x->tmp.data ? x->tmp.data : "", f);
}

/* A number as a number: whole ones as #,##0, others with one or two decimals (not General's
 * 20.85480986712623). */
static void put_num(struct xl *x, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v)
{
	if (isfinite(v))
		worksheet_write_number(ws, r, c, v, v == floor(v) && fabs(v) < 1e15 ? x->count : x->dec);
}

/* The number format of a value in unit: ms with one or two decimals, rates (IO/s, MB/s, ...),
 * counts and seconds whole, percentages as such, queues (IOs) with one decimal. */
static lxw_format *unit_fmt(struct xl *x, const char *unit)
{
	if (!unit)
		return x->dec;
	if (strcmp(unit, "ms") == 0 || strcmp(unit, "ms/s") == 0)
		return x->ms;
	if (strcmp(unit, "%") == 0)
		return x->pct;
	if (strstr(unit, "/s") || strcmp(unit, "s") == 0 || strcmp(unit, "bytes") == 0 ||
	    strcmp(unit, "commands") == 0 || strcmp(unit, "waits") == 0 || strcmp(unit, "worlds") == 0 ||
	    strcmp(unit, "count") == 0)
		return x->count;
	return x->dec;
}

static void put_val(struct xl *x, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v, const char *unit)
{
	if (isfinite(v))
		worksheet_write_number(ws, r, c, v, unit_fmt(x, unit));
}

/* A table's rows end at last (its heading at row head): a filter on its columns (the heading's
 * row is frozen by header_row). */
static void table_end(lxw_worksheet *ws, lxw_row_t head, lxw_row_t last, int ncols)
{
	if (ncols > 0)
		worksheet_autofilter(ws, head, 0, last > head ? last : head, (lxw_col_t)(ncols - 1));
}

static int ncols_of(const char *const *names)
{
	int n = 0;
	while (names[n])
		n++;
	return n;
}

/* An Excel date-time (days since 1899-12-30) of UTC ms t, shifted by off seconds. */
static void put_time(struct xl *x, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, int64_t t, int32_t off)
{
	double serial = ((double)t / 1000.0 + off) / 86400.0 + 25569.0;
	worksheet_write_number(ws, r, c, serial, x->date);
}

static void put_local(struct xl *x, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, int64_t t)
{
	if (x->lt.known)
		put_time(x, ws, r, c, t, tz_offset_at(&x->lt.z, t / 1000, NULL));
}

static void header_row(struct xl *x, lxw_worksheet *ws, lxw_row_t r, const char *const *names)
{
	for (lxw_col_t c = 0; names[c]; c++)
		worksheet_write_string(ws, r, c, names[c], x->head);
	worksheet_freeze_panes(ws, r + 1, 0);
}

static void summary_sheet(struct xl *x, const struct report_brand *br, const struct doc *d, const struct analysis *a1,
			  const struct analysis *a2)
{
	lxw_worksheet *ws = workbook_add_worksheet(x->wb, "Summary");
	worksheet_set_column(ws, 0, 0, 22, x->bold);
	worksheet_set_column(ws, 1, 1, 110, x->wrap);
	lxw_row_t r = 0;
	put_str(x, ws, r, 0, "Report", x->bold);
	put_str(x, ws, r++, 1, br && br->title ? br->title : "Storage latency analysis (iopsy " IOPSY_VERSION ")", x->bold);
	if (br && br->customer) {
		put_str(x, ws, r, 0, "Customer", x->bold);
		put_str(x, ws, r++, 1, br->customer, x->wrap);
	}
	if (br && br->prepared_by) {
		put_str(x, ws, r, 0, "Prepared by", x->bold);
		put_str(x, ws, r++, 1, br->prepared_by, x->wrap);
	}
	struct buf t;
	buf_init(&t);
	buf_adds(&t, "UTC; ");
	ltime_describe(&t, &x->lt);
	put_str(x, ws, r, 0, "Times", x->bold);
	put_str(x, ws, r++, 1, t.data, x->wrap);
	/* what was analysed: each side's window and selection (the document's notices) */
	const struct doc_section *sum = &d->sec[DS_SUMMARY];
	for (size_t i = 0; i < sum->nb; i++) {
		const struct doc_block *b = &sum->b[i];
		for (size_t k = 0; b->role == ROLE_NOTICE && k < b->nrows; k++) {
			buf_reset(&t);
			buf_adds(&t, b->cell[k * 2].s);
			if (b->text)
				buf_printf(&t, " (%s)", b->text);
			put_str(x, ws, r, 0, t.data, x->bold);
			put_str(x, ws, r++, 1, b->cell[k * 2 + 1].s, x->wrap);
		}
	}
	buf_free(&t);
	r++;
	const struct doc_block *h = NULL, *lead = NULL, *act = NULL;
	for (size_t i = 0; i < sum->nb; i++) {
		if (sum->b[i].role == ROLE_HEADLINE)
			h = &sum->b[i];
		if (sum->b[i].role == ROLE_LEAD)
			lead = &sum->b[i];
	}
	if (d->sec[DS_ACTIONS].nb)
		act = &d->sec[DS_ACTIONS].b[0];
	put_str(x, ws, r, 0, "Summary", x->bold);
	put_str(x, ws, r++, 1, h ? h->text : "", x->bold);
	for (size_t i = 0; lead && i < lead->nrows; i++)
		put_str(x, ws, r++, 1, lead->cell[i].s, x->wrap);
	r++;
	for (size_t i = 0; act && i < act->nrows; i++) {
		const struct doc_cell *c = &act->cell[i * 4];
		char lab[32];
		snprintf(lab, sizeof lab, "Action %zu", i + 1);
		put_str(x, ws, r, 0, lab, x->bold);
		put_str(x, ws, r++, 1, c[0].s, x->wrap);
		put_str(x, ws, r, 0, "expected effect", NULL);
		put_str(x, ws, r++, 1, c[1].s, x->wrap);
		struct buf w;
		buf_init(&w);
		if (*c[2].s)
			buf_printf(&w, "findings %s: ", c[2].s);
		buf_adds(&w, c[3].s);
		put_str(x, ws, r, 0, "why", NULL);
		put_str(x, ws, r++, 1, w.data, x->wrap);
		buf_free(&w);
	}
	r++;
	if (d->sec[DS_VERDICT].nb) {
		put_str(x, ws, r, 0, "Verdict", x->bold);
		put_str(x, ws, r++, 1, d->sec[DS_VERDICT].b[0].text, x->wrap);
	}
	/* the captures: file, host, start and end in UTC and local time */
	r++;
	static const char *const cols[] = {"File", "Format", "Host", "Start (UTC)", "End (UTC)", "Start (local)", "End (local)",
					   "Rows", "Rows outside the window", NULL};
	lxw_worksheet *cs = workbook_add_worksheet(x->wb, "Captures");
	header_row(x, cs, 0, cols);
	worksheet_set_column(cs, 0, 0, 40, NULL);
	worksheet_set_column(cs, 3, 6, 20, NULL);
	struct doc cd; /* the document's captures (doc_captures), each side's */
	doc_init(&cd, &x->lt);
	doc_captures(&cd, a1, NULL);
	if (a2)
		doc_captures(&cd, a2, NULL);
	lxw_row_t cr = 1;
	for (size_t k = 0; k < cd.sec[DS_CAPTURES].nb; k++) {
		const struct doc_block *ct = &cd.sec[DS_CAPTURES].b[k];
		for (size_t i = 0; ct->role == ROLE_CAPTURES && i < ct->nrows; i++) {
			const struct doc_cell *c = &ct->cell[i * (size_t)ct->ncols];
			put_str(x, cs, cr, 0, c[CC_FILE].s, NULL);
			if (*c[CC_FAILED].s) {
				put_str(x, cs, cr++, 1, c[CC_FAILED].s, NULL);
				continue;
			}
			put_str(x, cs, cr, 1, c[CC_FORMAT].s, NULL);
			put_str(x, cs, cr, 2, strcmp(c[CC_HOST].s, "?") ? c[CC_HOST].s : "", NULL);
			if (c[CC_START].t == CELL_TIME) { /* a histogram capture has no time axis */
				put_time(x, cs, cr, 3, c[CC_START].ms, 0);
				put_time(x, cs, cr, 4, c[CC_END].ms, 0);
				put_local(x, cs, cr, 5, c[CC_START].ms);
				put_local(x, cs, cr, 6, c[CC_END].ms);
			}
			put_num(x, cs, cr, 7, c[CC_ROWS].v);
			put_num(x, cs, cr++, 8, c[CC_OUTSIDE].t == CELL_NUM ? c[CC_OUTSIDE].v : 0);
		}
	}
	doc_free(&cd);
	table_end(cs, 0, cr - 1, ncols_of(cols));
}

/* The evidence of the findings of d, a row per counter. */
static void evidence_sheet(struct xl *x, const struct doc *d, const char *suffix)
{
	static const char *const ecols[] = {"Finding #", "Counter", "Unit", "Min", "Median", "p95", "Max", "Samples",
					    "Above threshold", "Threshold", NULL};
	char name[32];
	snprintf(name, sizeof name, "Evidence%s", suffix);
	lxw_worksheet *ev = workbook_add_worksheet(x->wb, name);
	header_row(x, ev, 0, ecols);
	worksheet_set_column(ev, 1, 1, 30, NULL);
	const struct doc_section *s = &d->sec[DS_FINDINGS];
	lxw_row_t er = 1, no = 0;
	for (size_t i = 0; i < s->nb; i++) {
		const struct doc_block *b = &s->b[i];
		no += b->role == ROLE_FINDING;
		for (size_t k = 0; b->role == ROLE_EVIDENCE && k < b->nrows; k++, er++) {
			const struct doc_cell *c = &b->cell[k * (size_t)b->ncols];
			put_num(x, ev, er, 0, (double)no);
			put_str(x, ev, er, 1, c[EV_COUNTER].s, NULL);
			put_str(x, ev, er, 2, c[EV_UNIT].s, NULL);
			for (int m = EV_MIN; m <= EV_MAX; m++)
				put_val(x, ev, er, (lxw_col_t)(m + 1), c[m].v, c[EV_UNIT].s);
			put_val(x, ev, er, 7, c[EV_SAMPLES].v, "count");
			if (c[EV_ABOVE].t == CELL_NUM)
				put_val(x, ev, er, 8, c[EV_ABOVE].v, "count");
			put_val(x, ev, er, 9, c[EV_THRESHOLD].v, c[EV_UNIT].s);
		}
	}
	table_end(ev, 0, er - 1, ncols_of(ecols));
}

/* The findings of d (doc_finding), a row each, then their evidence. */
static void findings_sheets(struct xl *x, const struct doc *d, const char *suffix)
{
	char name[32];
	snprintf(name, sizeof name, "Findings%s", suffix);
	lxw_worksheet *ws = workbook_add_worksheet(x->wb, name);
	static const char *const cols[] = {"#", "Severity", "Finding", "Rule id", "Host", "Entity", "Layer", "Start (UTC)",
					   "End (UTC)", "Start (local)", "End (local)", "Sustained (s)", "Summary", "Rule",
					   "Source", "Advice", NULL};
	header_row(x, ws, 0, cols);
	worksheet_set_column(ws, 2, 2, 34, NULL);
	worksheet_set_column(ws, 7, 10, 20, NULL);
	worksheet_set_column(ws, 12, 15, 60, NULL);
	static const int textcol[][2] = {{FH_SEV, 1}, {FH_TITLE, 2}, {FH_ID, 3}, {FH_HOST, 4}, {FH_ENTITY, 5},
					 {FH_LAYER, 6}, {FH_SUMMARY, 12}};
	const struct doc_section *s = &d->sec[DS_FINDINGS];
	lxw_row_t r = 0;
	for (size_t i = 0; i < s->nb; i++) {
		const struct doc_block *b = &s->b[i];
		if (b->role == ROLE_FINDING) {
			const struct doc_cell *h = b->cell; /* key, value per row */
			r++;
			put_num(x, ws, r, 0, h[FH_NO * 2 + 1].v);
			for (size_t k = 0; k < sizeof textcol / sizeof textcol[0]; k++)
				put_str(x, ws, r, (lxw_col_t)textcol[k][1], h[textcol[k][0] * 2 + 1].s, NULL);
			int64_t t0 = h[FH_START * 2 + 1].ms, t1 = h[FH_END * 2 + 1].ms;
			if (t1 > t0) {
				put_time(x, ws, r, 7, t0, 0);
				put_time(x, ws, r, 8, t1, 0);
				put_local(x, ws, r, 9, t0);
				put_local(x, ws, r, 10, t1);
			}
			put_val(x, ws, r, 11, h[FH_SUSTAINED * 2 + 1].v, "s");
		} else if (b->role == ROLE_RULE) {
			bool adv = false;
			for (size_t k = 0; k < b->nrows; k++) {
				const char *key = b->cell[k * 2].s;
				int col = strcmp(key, "Rule") == 0     ? 13
					  : strcmp(key, "Source") == 0 ? 14
					  : strcmp(key, "Advice") == 0 ? 15
								       : -1;
				adv |= col == 15;
				if (col >= 0)
					put_str(x, ws, r, (lxw_col_t)col, b->cell[k * 2 + 1].s, NULL);
			}
			if (!adv)
				put_str(x, ws, r, 15, "", NULL);
		}
	}
	table_end(ws, 0, r, ncols_of(cols));
	evidence_sheet(x, d, suffix);
}

/* Every entity with an IO rate and its figures (the document's ROLE_ENTITIES table), numbers in
 * their unit's format. */
static void entities_sheet(struct xl *x, const struct doc *d, const char *suffix)
{
	char name[32];
	snprintf(name, sizeof name, "Entities%s", suffix);
	lxw_worksheet *ws = workbook_add_worksheet(x->wb, name);
	static const char *const cols[] = {"Layer", "Host", "Entity", "Active", "IO/s p50", "IO/s p95", "IO/s max",
					   "Latency", "Latency p50 (ms)", "p95", "p99", "max", "Second latency",
					   "Second latency p50 (ms)", "p95", "p99", "max", "Queue", "Queue p50", "Queue p95",
					   "Queue max", "MB/s read p50", "MB/s read p95", "MB/s read max", "MB/s written p50", "MB/s written p95",
					   "MB/s written max", NULL};
	header_row(x, ws, 0, cols);
	worksheet_set_column(ws, 2, 2, 40, NULL);
	const struct doc_block *t = NULL;
	for (size_t i = 0; i < d->sec[DS_ENTITIES].nb; i++)
		if (d->sec[DS_ENTITIES].b[i].role == ROLE_ENTITIES)
			t = &d->sec[DS_ENTITIES].b[i];
	lxw_row_t r = 1;
	for (size_t i = 0; t && i < t->nrows; i++, r++) {
		const struct doc_cell *c = &t->cell[i * (size_t)t->ncols];
		for (int k = 0; k < EC_UNITS; k++) {
			/* the unit of a figure: its group's (IO rate, latency, second latency, queue) */
			int g = k < EC_LAT ? 0 : k < EC_LAT2 ? 1 : k < EC_Q ? 2 : 3;
			if (c[k].t == CELL_TEXT)
				put_str(x, ws, r, (lxw_col_t)k, c[k].s, NULL);
			else if (c[k].t == CELL_NUM)
				put_val(x, ws, r, (lxw_col_t)k, c[k].v, c[EC_UNITS + g].s);
		}
	}
	table_end(ws, 0, r - 1, ncols_of(cols));
}

/* The IO stacks the reports draw (topology_build's): a row per box, top to bottom, with its entity,
 * what the findings say of it and its whole-capture figures. */
static void stacks_sheet(struct xl *x, const struct analysis *a)
{
	if (!a->nshown)
		return;
	lxw_worksheet *ws = workbook_add_worksheet(x->wb, "IO stacks");
	static const char *const cols[] = {"Stack", "Drawn for", "Box", "Host", "Entity", "State", "Why", "IO/s p50",
					   "Latency", "Latency p50 (ms)", "Latency p95 (ms)", "Queue p95", NULL};
	header_row(x, ws, 0, cols);
	worksheet_set_column(ws, 1, 1, 40, NULL);
	worksheet_set_column(ws, 2, 2, 24, NULL);
	worksheet_set_column(ws, 4, 4, 36, NULL);
	worksheet_set_column(ws, 5, 6, 28, NULL);
	struct topo_in ti = analysis_topo(a);
	lxw_row_t r = 0;
	for (size_t k = 0; k < a->nshown; k++) {
		const struct stack *s = &a->shown[k].s;
		const struct finding *an = a->shown[k].anchor;
		struct box_state st[BOX_COUNT];
		topology_boxes(&ti, s, st);
		bool hv = s->vdisk && model_hyperv(&a->m, s->vdisk->capture);
		const struct entity *ents[BOX_COUNT] = {s->guest, s->vdisk, hv ? s->volume : s->device, s->adapter,
							s->device};
		static const int vmw_order[BOX_COUNT] = {BOX_GUEST, BOX_VSCSI, BOX_KERNEL, BOX_ADAPTER, BOX_ARRAY};
		static const int hv_order[BOX_COUNT] = {BOX_GUEST, BOX_VSCSI, BOX_KERNEL, BOX_ARRAY, BOX_ADAPTER};
		buf_reset(&x->tmp);
		if (an)
			buf_printf(&x->tmp, "finding %zu: %s, %s%s%s", (size_t)(an - a->f) + 1, kinds[an->kind].title,
				   an->host ? an->host : "", an->host ? " " : "", an->entity);
		else
			buf_adds(&x->tmp, "no finding: the busiest disk, for reference");
		char *drawn = xstrdup(x->tmp.data);
		for (int pos = 0; pos < BOX_COUNT; pos++) {
			int b = (hv ? hv_order : vmw_order)[pos];
			const struct entity *e = ents[b];
			r++;
			put_val(x, ws, r, 0, (double)(k + 1), "count");
			put_str(x, ws, r, 1, drawn, NULL);
			put_str(x, ws, r, 2, stack_box_names[hv][b], NULL);
			const char *state = !e ? "not in the captures"
					    : st[b].waits ? "IO waits here"
					    : st[b].sev >= SEV_WARNING ? "a symptom: the wait is elsewhere"
					    : "no wait found";
			put_str(x, ws, r, 5, state, NULL);
			if (st[b].why >= 0)
				put_str(x, ws, r, 6, kinds[st[b].why].title, NULL);
			if (!e)
				continue;
			put_str(x, ws, r, 3, e->host ? e->host : "", NULL);
			put_str(x, ws, r, 4, e->name, NULL);
			struct ent_metrics em;
			entity_metrics(a, e, &em);
			int lat = b == BOX_ARRAY && !hv ? M_DAVG : b == BOX_KERNEL && !hv ? M_KAVG : em.lat;
			if (em.io >= 0 && entity_sk(e, em.io)->n)
				put_val(x, ws, r, 7, qs_quantile(entity_sk(e, em.io), 0.5), metric_info[em.io].unit);
			if (lat >= 0 && entity_sk(e, lat)->n) {
				put_str(x, ws, r, 8, metric_info[lat].label, NULL);
				put_val(x, ws, r, 9, qs_quantile(entity_sk(e, lat), 0.5), metric_info[lat].unit);
				put_val(x, ws, r, 10, qs_quantile(entity_sk(e, lat), 0.95), metric_info[lat].unit);
			}
			if (em.q >= 0 && entity_sk(e, em.q)->n)
				put_val(x, ws, r, 11, qs_quantile(entity_sk(e, em.q), 0.95), metric_info[em.q].unit);
		}
		free(drawn);
	}
	table_end(ws, 0, r, ncols_of(cols));
}

/* A section of the report document (doc.h) as a sheet: paragraphs and list items in column A,
 * key/value lines in A and B, tables with their headings and typed cells (numbers as numbers,
 * times as Excel date-times). */
static void doc_sheet(struct xl *x, const struct doc *d, enum doc_sec sec, const char *suffix)
{
	const struct doc_section *ds = &d->sec[sec];
	if (!ds->on)
		return;
	char name[32];
	snprintf(name, sizeof name, "%.20s%s", doc_secs[sec].sheet, suffix);
	lxw_worksheet *ws = workbook_add_worksheet(x->wb, name);
	worksheet_set_column(ws, 0, 0, 30, x->wrap);
	worksheet_set_column(ws, 1, 8, 40, x->wrap);
	lxw_row_t r = 0;
	put_str(x, ws, r++, 0, doc_secs[sec].title, x->bold);
	if (ds->note)
		put_str(x, ws, r++, 0, ds->note, NULL);
	bool filtered = false; /* one filter a sheet (Excel's rule): the first table's, its heading frozen */
	for (size_t i = 0; i < ds->nb; i++) {
		const struct doc_block *b = &ds->b[i];
		if (doc_role_apart(b->role))
			continue; /* the IO stacks and entities sheets draw them */
		r++;
		if (b->t == BLK_PARA) {
			put_str(x, ws, r++, 0, b->text, x->wrap);
			continue;
		}
		if (b->role == ROLE_SIDE_RULES) /* a comparison's side */
			put_str(x, ws, r++, 0, b->text, x->bold);
		if (b->t == BLK_TABLE) {
			if (b->text)
				put_str(x, ws, r++, 0, b->text, x->bold);
			for (int k = 0; k < b->ncols; k++)
				worksheet_write_string(ws, r, (lxw_col_t)k, b->head[k], x->head);
			if (!filtered && b->nrows) {
				worksheet_freeze_panes(ws, r + 1, 0);
				table_end(ws, r, r + (lxw_row_t)b->nrows, b->ncols);
				filtered = true;
			}
			r++;
		}
		for (size_t row = 0; row < b->nrows; row++, r++)
			for (int k = 0; k < b->ncols; k++) {
				const struct doc_cell *c = &b->cell[row * (size_t)b->ncols + (size_t)k];
				lxw_col_t col = (lxw_col_t)k;
				switch (c->t) {
				case CELL_TEXT: put_str(x, ws, r, col, c->s, b->t == BLK_KV && !k ? x->bold : x->wrap); break;
				case CELL_NUM: put_num(x, ws, r, col, c->v); break;
				case CELL_TIME: put_time(x, ws, r, col, c->ms, 0); break;
				case CELL_NONE: break;
				}
			}
	}
}

/* The finding's chart as native Excel charts beside its series: time (UTC) across, each counter of
 * the sheet a line, one chart per unit (ms, IO/s, ...) stacked down, as the HTML's panels. */
static void series_chart(struct xl *x, lxw_worksheet *ws, const char *sheet, const struct finding *f, size_t no,
			 const struct entity *const *ents, const int *ms, int n, lxw_row_t last)
{
	if (!last)
		return;
	bool done[MAX_EVIDENCE] = {false};
	int panel = 0;
	for (int k0 = 0; k0 < n; k0++) {
		if (done[k0] || ents[k0]->capture != ents[0]->capture)
			continue;
		const char *unit = metric_info[ms[k0]].unit;
		lxw_chart *ch = workbook_add_chart(x->wb, LXW_CHART_SCATTER_STRAIGHT);
		if (!ch)
			return;
		for (int k = k0; k < n; k++) {
			if (done[k] || ents[k]->capture != ents[0]->capture ||
			    strcmp(metric_info[ms[k]].unit, unit) != 0)
				continue; /* another unit's chart, or not in the sheet (another capture's rows) */
			done[k] = true;
			lxw_chart_series *s = chart_add_series(ch, NULL, NULL);
			if (!s)
				continue;
			chart_series_set_categories(s, sheet, 1, 0, last, 0);
			chart_series_set_values(s, sheet, 1, (lxw_col_t)(2 + k), last, (lxw_col_t)(2 + k));
			chart_series_set_name_range(s, sheet, 0, (lxw_col_t)(2 + k));
		}
		buf_reset(&x->tmp);
		buf_printf(&x->tmp, "Finding %zu: %s, ", no, kinds[f->kind].title);
		if (f->host)
			buf_printf(&x->tmp, "%s ", f->host);
		buf_adds(&x->tmp, f->entity);
		struct buf t;
		buf_init(&t);
		fmt_esc(&t, x->tmp.data);
		chart_title_set_name(ch, t.data);
		buf_free(&t);
		chart_axis_set_name(ch->x_axis, "time (UTC)");
		chart_axis_set_num_format(ch->x_axis, "hh:mm");
		chart_axis_set_name(ch->y_axis, unit);
		chart_legend_set_position(ch, LXW_CHART_LEGEND_BOTTOM);
		lxw_chart_options co = {.x_scale = 2.0, .y_scale = 1.5};
		worksheet_insert_chart_opt(ws, (lxw_row_t)(1 + 24 * panel++), (lxw_col_t)(3 + n), ch, &co);
	}
}

/* One sheet per finding (the first 40): the series of its evidence counters, one row per plotted
 * point (the 1,024-bucket series the charts draw: mean of each bucket), UTC and local time. */
static void series_sheets(struct xl *x, const struct analysis *a, const char *prefix)
{
	struct topo_in ti = analysis_topo(a);
	for (size_t i = 0; i < a->nf && i < 40; i++) {
		const struct finding *f = &a->f[i];
		const struct entity *ents[MAX_EVIDENCE];
		int ms[MAX_EVIDENCE], n = 0;
		for (int k = 0; k < f->nev; k++) {
			const struct entity *e = finding_entity(&ti, f, (int)f->ev[k].metric);
			if (!e || e->series[f->ev[k].metric] < 0)
				continue;
			ents[n] = e;
			ms[n++] = (int)f->ev[k].metric;
		}
		if (!n)
			continue;
		char name[32];
		snprintf(name, sizeof name, "%sSeries F%zu", prefix, i + 1);
		lxw_worksheet *ws = workbook_add_worksheet(x->wb, name);
		worksheet_write_string(ws, 0, 0, "Time (UTC)", x->head);
		worksheet_write_string(ws, 0, 1, "Time (local)", x->head);
		worksheet_set_column(ws, 0, 1, 20, NULL);
		for (int k = 0; k < n; k++) {
			buf_reset(&x->tmp);
			buf_printf(&x->tmp, "%s (%s)", metric_info[ms[k]].label, metric_info[ms[k]].unit);
			worksheet_write_string(ws, 0, (lxw_col_t)(2 + k), x->tmp.data, x->head);
		}
		worksheet_freeze_panes(ws, 1, 2);
		const struct capture *c = &a->m.caps[ents[0]->capture];
		for (size_t b = 0; b < c->ds.nb && b < 1048000; b++) {
			int64_t t = model_time(&a->m, c, b);
			lxw_row_t r = (lxw_row_t)b + 1;
			put_time(x, ws, r, 0, t, 0);
			put_local(x, ws, r, 1, t);
			for (int k = 0; k < n; k++) {
				const struct capture *ck = &a->m.caps[ents[k]->capture];
				if (ck != c || b >= ck->ds.nb)
					continue;
				put_val(x, ws, r, (lxw_col_t)(2 + k),
					ds_mean(&ck->ds, (size_t)ents[k]->series[ms[k]], b), metric_info[ms[k]].unit);
			}
		}
		size_t nb = c->ds.nb < 1048000 ? c->ds.nb : 1048000;
		table_end(ws, 0, (lxw_row_t)nb, 2 + n);
		series_chart(x, ws, name, f, i + 1, ents, ms, n, (lxw_row_t)nb);
	}
}

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(p);
	return 0;
}

/* Opens a workbook in a private folder; xlsx_end reads it into out. */
static int xlsx_begin(struct xl *x, struct buf *dir, struct report_opts *o)
{
	memset(x, 0, sizeof *x);
	buf_init(&x->tmp);
	buf_init(dir);
	const char *tmp = getenv("TMPDIR");
	buf_printf(dir, "%s/iopsy-xlsx.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir->data)) {
		diag_emit(o->d, DIAG_ERROR, 0, 0, "xlsx: cannot create a temporary folder: %s", strerror(errno));
		return ERR_IO;
	}
	struct buf path;
	buf_init(&path);
	buf_printf(&path, "%s/report.xlsx", dir->data);
	lxw_workbook_options wo = {.constant_memory = 0, .tmpdir = dir->data, .use_zip64 = 0};
	x->wb = workbook_new_opt(path.data, &wo);
	buf_free(&path);
	if (!x->wb) {
		diag_emit(o->d, DIAG_ERROR, 0, 0, "xlsx: cannot create the workbook");
		return ERR_IO;
	}
	x->bold = workbook_add_format(x->wb);
	format_set_bold(x->bold);
	x->head = workbook_add_format(x->wb);
	format_set_bold(x->head);
	format_set_bottom(x->head, LXW_BORDER_THIN);
	x->wrap = workbook_add_format(x->wb);
	format_set_text_wrap(x->wrap);
	format_set_align(x->wrap, LXW_ALIGN_VERTICAL_TOP);
	x->date = workbook_add_format(x->wb);
	format_set_num_format(x->date, "yyyy-mm-dd hh:mm:ss");
	x->num = workbook_add_format(x->wb);
	format_set_num_format(x->num, "General");
	static const char *const nf[4] = {"0.0#", "#,##0", "0.0#", "0.0\"%\""};
	lxw_format **fs[4] = {&x->ms, &x->count, &x->dec, &x->pct};
	for (int k = 0; k < 4; k++) {
		*fs[k] = workbook_add_format(x->wb);
		format_set_num_format(*fs[k], nf[k]);
	}
	/* SOURCE_DATE_EPOCH fixes the creation date, as in the HTML (reproducible-builds.org) */
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	char *end = NULL;
	long long sec = sde && *sde ? strtoll(sde, &end, 10) : -1;
	time_t created = end && !*end && sec >= 0 && sec < 100000000000LL ? (time_t)sec : 0;
	/* the document title: --title (control characters and bad UTF-8 shown as \xNN, as in a cell) */
	const struct report_brand *br = o->html.brand;
	struct buf title;
	buf_init(&title);
	fmt_esc(&title, br && br->title && *br->title ? br->title : "Storage latency analysis");
	workbook_set_properties(x->wb, &(lxw_doc_properties){.title = title.data,
							    .comments = (char *)"made by iopsy " IOPSY_VERSION,
							    .created = created});
	buf_free(&title);
	return 0;
}

static int xlsx_end(struct xl *x, struct buf *dir, struct report_opts *o, struct buf *out)
{
	lxw_error e = workbook_close(x->wb);
	int rc = 0;
	if (e != LXW_NO_ERROR) {
		diag_emit(o->d, DIAG_ERROR, 0, 0, "xlsx: %s", lxw_strerror(e));
		rc = ERR_IO;
	} else {
		struct buf path;
		buf_init(&path);
		buf_printf(&path, "%s/report.xlsx", dir->data);
		FILE *f = fopen(path.data, "rb");
		if (!f) {
			rc = ERR_IO;
		} else {
			char chunk[65536];
			size_t n;
			while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
				buf_add(out, chunk, n);
			if (ferror(f))
				rc = ERR_IO;
			fclose(f);
		}
		buf_free(&path);
	}
	nftw(dir->data, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	buf_free(dir);
	buf_free(&x->tmp);
	return rc;
}

static int xlsx_analysis(const struct analysis *a, struct report_opts *o, struct buf *out)
{
	struct xl x;
	struct buf dir;
	int rc = xlsx_begin(&x, &dir, o);
	if (rc < 0) {
		buf_free(&dir);
		buf_free(&x.tmp);
		return rc;
	}
	ltime_init(&x.lt, &a->m, NULL);
	struct doc d;
	static const enum doc_sec more[] = {DS_COVERAGE, DS_INPUTS, DS_RULES, DS_DISKMAP, DS_IOPATH, DS_SQL, DS_METHOD,
					    DS_HIST};
	unsigned mask = 1u << DS_SUMMARY | 1u << DS_VERDICT | 1u << DS_FINDINGS | 1u << DS_ENTITIES;
	for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
		mask |= 1u << more[i];
	doc_of_analysis_only(a, &x.lt, &d, mask);
	summary_sheet(&x, o->html.brand, &d, a, NULL);
	findings_sheets(&x, &d, "");
	entities_sheet(&x, &d, "");
	stacks_sheet(&x, a);
	for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
		doc_sheet(&x, &d, more[i], "");
	doc_free(&d);
	series_sheets(&x, a, "");
	return xlsx_end(&x, &dir, o, out);
}

static int xlsx_compare(const struct compare *c, struct report_opts *o, struct buf *out)
{
	struct xl x;
	struct buf dir;
	int rc = xlsx_begin(&x, &dir, o);
	if (rc < 0) {
		buf_free(&dir);
		buf_free(&x.tmp);
		return rc;
	}
	ltime_init(&x.lt, &c->side[CMP_AFTER].m, &c->side[CMP_BEFORE].m);
	struct doc d;
	doc_of_compare(c, &x.lt, &d);
	doc_compare_summary(c, &d);
	summary_sheet(&x, o->html.brand, &d, &c->side[CMP_BEFORE], &c->side[CMP_AFTER]);
	/* every comparison row */
	lxw_worksheet *ws = workbook_add_worksheet(x.wb, "Comparisons");
	static const char *const cols[] = {"Entity", "Layer", "Metric", "Unit", "Before p50", "p95", "p99", "max",
					   "After p50", "p95", "p99", "max", "Median change %", "CI low %", "CI high %",
					   "Outcome", NULL};
	header_row(&x, ws, 0, cols);
	worksheet_set_column(ws, 0, 0, 40, NULL);
	worksheet_set_column(ws, 2, 2, 30, NULL);
	lxw_row_t r = 1;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *row = &c->rows[i];
		const struct cmp_pair *p = &c->pairs[row->pair];
		char l[512];
		put_str(&x, ws, r, 0, compare_pair_label(p, p->name[CMP_AFTER] ? CMP_AFTER : CMP_BEFORE, l, sizeof l), NULL);
		put_str(&x, ws, r, 1, layer_names[p->layer], NULL);
		put_str(&x, ws, r, 2, metric_info[row->spec->metric].label, NULL);
		put_str(&x, ws, r, 3, metric_info[row->spec->metric].unit, NULL);
		for (int s = 0; s < 2; s++) {
			const struct cmp_stats *st = &row->s[s];
			if (!st->samples)
				continue;
			const char *u = metric_info[row->spec->metric].unit;
			put_val(&x, ws, r, (lxw_col_t)(4 + 4 * s), st->p50, u);
			put_val(&x, ws, r, (lxw_col_t)(5 + 4 * s), st->p95, u);
			put_val(&x, ws, r, (lxw_col_t)(6 + 4 * s), st->p99, u);
			put_val(&x, ws, r, (lxw_col_t)(7 + 4 * s), st->max, u);
		}
		put_val(&x, ws, r, 12, row->change_pct, "%");
		put_val(&x, ws, r, 13, row->ci[0], "%");
		put_val(&x, ws, r, 14, row->ci[1], "%");
		put_str(&x, ws, r, 15, cmp_verdict_names[row->verdict], NULL);
		r++;
	}
	table_end(ws, 0, r - 1, ncols_of(cols));
	lxw_worksheet *fd = workbook_add_worksheet(x.wb, "Findings diff");
	static const char *const fcols[] = {"Finding", "Rule id", "Host", "Entity", "Status", "Windows before", "Windows after",
					    "Sustained before (s)", "Sustained after (s)", NULL};
	header_row(&x, fd, 0, fcols);
	const struct doc_block *ft = doc_role(&d, DS_FINDINGS, ROLE_FDIFF); /* doc_compare_findings */
	size_t nfd = ft ? ft->nrows : 0;
	for (size_t i = 0; i < nfd; i++) {
		lxw_row_t fr = (lxw_row_t)i + 1;
		static const int strs[] = {FDC_TITLE, FDC_ID, FDC_HOST, FDC_ENTITY, FDC_STATUS};
		for (int k = 0; k < 5; k++) {
			const char *v = doc_fdiff_s(ft, i, strs[k]);
			put_str(&x, fd, fr, (lxw_col_t)k, v ? v : "", NULL);
		}
		for (int s = 0; s < 2; s++) {
			int k = FDC_SIDE + 4 * s;
			put_val(&x, fd, fr, (lxw_col_t)(5 + s), doc_fdiff_v(ft, i, k + FDC_WINDOWS), "count");
			put_val(&x, fd, fr, (lxw_col_t)(7 + s), doc_fdiff_v(ft, i, k + FDC_SUSTAINED), "s");
		}
	}
	table_end(fd, 0, (lxw_row_t)nfd, ncols_of(fcols));
	for (int s = 0; s < 2; s++) {
		struct doc sd;
		doc_of_analysis_only(&c->side[s], &x.lt, &sd, 1u << DS_FINDINGS);
		findings_sheets(&x, &sd, s ? " after" : " before");
		doc_free(&sd);
	}
	doc_sheet(&x, &d, DS_INPUTS, "");
	doc_sheet(&x, &d, DS_RULES, "");
	doc_sheet(&x, &d, DS_METHOD, "");
	doc_sheet(&x, &d, DS_HIST, "");
	doc_free(&d);
	series_sheets(&x, &c->side[CMP_BEFORE], "Before ");
	series_sheets(&x, &c->side[CMP_AFTER], "After ");
	return xlsx_end(&x, &dir, o, out);
}

#else /* !HAVE_XLSXWRITER */

static int xlsx_missing(struct report_opts *o)
{
	diag_emit(o->d, DIAG_ERROR, 0, 0, "this iopsy was built without libxlsxwriter (Debian: libxlsxwriter-dev, then "
					  "rebuild): no xlsx report");
	return ERR_IO;
}
static int xlsx_analysis(const struct analysis *a, struct report_opts *o, struct buf *out)
{
	(void)a;
	(void)out;
	return xlsx_missing(o);
}
static int xlsx_compare(const struct compare *c, struct report_opts *o, struct buf *out)
{
	(void)c;
	(void)out;
	return xlsx_missing(o);
}
#endif

const struct reporter report_xlsx = {
	.name = "xlsx",
	.ext = "xlsx",
	.summary = "Excel workbook: summary, findings, evidence, entities, series",
	.doc = DW_SHEET,
	.analysis = xlsx_analysis,
	.compare = xlsx_compare,
};
