/* xlsx.c — the Excel workbook (`--xlsx PATH`, `--report xlsx=PATH`) through libxlsxwriter: a
 * summary sheet (the executive summary, the actions, the periods), the findings with their
 * evidence, the entities, and the series behind each charted finding, every time a real Excel
 * date-time (UTC and local time columns). Text from captures is written as string cells (never a
 * formula, whatever it starts with), control characters and bytes that are not UTF-8 as \xNN. */
#ifdef HAVE_XLSXWRITER
/* libxlsxwriter's chart API shares names with charts.h (unused here): renamed away */
#define chart_add_series lxw_chart_add_series_unused
#define chart_free lxw_chart_free_unused
#define chart_init lxw_chart_init_unused
#include <xlsxwriter.h>
#undef chart_add_series
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
#include "text.h"
#include "version.h"

#ifdef HAVE_XLSXWRITER
struct xl {
	lxw_workbook *wb;
	lxw_format *bold, *wrap, *date, *num, *head;
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

static void put_num(struct xl *x, lxw_worksheet *ws, lxw_row_t r, lxw_col_t c, double v)
{
	if (isfinite(v))
		worksheet_write_number(ws, r, c, v, x->num);
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

static const char *sev_word(int s) { return s == SEV_CRITICAL ? "critical" : s == SEV_WARNING ? "warning" : "info"; }

static void summary_sheet(struct xl *x, const struct report_brand *br, const struct exec_summary *es, const char *verdict,
			  const struct analysis *a1, const struct analysis *a2)
{
	const struct model *m = &a1->m, *m2 = a2 ? &a2->m : NULL;
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
	buf_free(&t);
	/* what was analysed: each side's window and selection (as the text report says them) */
	for (int side = 0; side < 2; side++) {
		const struct analysis *an = side ? a2 : a1;
		if (!an)
			continue;
		struct buf w, sel;
		buf_init(&w);
		buf_init(&sel);
		workflow_sentences(an, &w, &sel);
		const char *lab[2][2] = {{"Window", "Selection"}, {"Window (after)", "Selection (after)"}};
		if (a2 && !side)
			lab[0][0] = "Window (before)", lab[0][1] = "Selection (before)";
		if (w.len) {
			put_str(x, ws, r, 0, lab[side][0], x->bold);
			put_str(x, ws, r++, 1, w.data, x->wrap);
		}
		if (sel.len) {
			put_str(x, ws, r, 0, lab[side][1], x->bold);
			put_str(x, ws, r++, 1, sel.data, x->wrap);
		}
		buf_free(&w);
		buf_free(&sel);
	}
	r++;
	put_str(x, ws, r, 0, "Summary", x->bold);
	put_str(x, ws, r++, 1, es->headline ? es->headline : "", x->bold);
	for (int i = 0; i < es->nsentences; i++)
		put_str(x, ws, r++, 1, es->sentence[i], x->wrap);
	r++;
	for (int i = 0; i < es->nactions; i++) {
		char lab[32];
		snprintf(lab, sizeof lab, "Action %d", i + 1);
		put_str(x, ws, r, 0, lab, x->bold);
		put_str(x, ws, r++, 1, es->act[i].what, x->wrap);
		put_str(x, ws, r, 0, "expected effect", NULL);
		put_str(x, ws, r++, 1, es->act[i].effect, x->wrap);
		struct buf w;
		buf_init(&w);
		if (es->act[i].nwhy) {
			buf_adds(&w, "findings ");
			for (int k = 0; k < es->act[i].nwhy; k++)
				buf_printf(&w, "%s%zu", k ? ", " : "", es->act[i].why[k]);
			buf_adds(&w, ": ");
		}
		buf_adds(&w, es->act[i].because ? es->act[i].because : "");
		put_str(x, ws, r, 0, "why", NULL);
		put_str(x, ws, r++, 1, w.data, x->wrap);
		buf_free(&w);
	}
	r++;
	if (verdict) {
		put_str(x, ws, r, 0, "Verdict", x->bold);
		put_str(x, ws, r++, 1, verdict, x->wrap);
	}
	/* the captures: file, host, start and end in UTC and local time */
	r++;
	static const char *const cols[] = {"File", "Format", "Host", "Start (UTC)", "End (UTC)", "Start (local)", "End (local)",
					   "Rows", "Rows outside the window", NULL};
	lxw_worksheet *cs = workbook_add_worksheet(x->wb, "Captures");
	header_row(x, cs, 0, cols);
	worksheet_set_column(cs, 0, 0, 40, NULL);
	worksheet_set_column(cs, 3, 6, 20, NULL);
	lxw_row_t cr = 1;
	for (int side = 0; side < 2; side++) {
		const struct model *mm = side ? m2 : m;
		for (size_t i = 0; mm && i < mm->ncaps; i++) {
			const struct capture *c = &mm->caps[i];
			put_str(x, cs, cr, 0, c->path, NULL);
			if (c->failed) {
				put_str(x, cs, cr++, 1, "could not be read", NULL);
				continue;
			}
			put_str(x, cs, cr, 1, c->format, NULL);
			put_str(x, cs, cr, 2, c->host ? c->host : "", NULL);
			put_time(x, cs, cr, 3, c->start + c->clock_offset_ms, 0);
			put_time(x, cs, cr, 4, c->end + c->clock_offset_ms, 0);
			put_local(x, cs, cr, 5, c->start + c->clock_offset_ms);
			put_local(x, cs, cr, 6, c->end + c->clock_offset_ms);
			put_num(x, cs, cr, 7, (double)c->rows);
			put_num(x, cs, cr++, 8, (double)c->outside_rows);
		}
	}
}

static void findings_sheets(struct xl *x, const struct analysis *a, const char *suffix)
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
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		lxw_row_t r = (lxw_row_t)i + 1;
		put_num(x, ws, r, 0, (double)(i + 1));
		put_str(x, ws, r, 1, sev_word(f->sev), NULL);
		put_str(x, ws, r, 2, kinds[f->kind].title, NULL);
		put_str(x, ws, r, 3, kinds[f->kind].name, NULL);
		put_str(x, ws, r, 4, f->host ? f->host : "", NULL);
		put_str(x, ws, r, 5, f->entity, NULL);
		put_str(x, ws, r, 6, layer_names[f->layer], NULL);
		if (f->end > f->start) {
			put_time(x, ws, r, 7, f->start, 0);
			put_time(x, ws, r, 8, f->end, 0);
			put_local(x, ws, r, 9, f->start);
			put_local(x, ws, r, 10, f->end);
		}
		put_num(x, ws, r, 11, f->sustained_s);
		put_str(x, ws, r, 12, f->summary, NULL);
		put_str(x, ws, r, 13, f->rule, NULL);
		put_str(x, ws, r, 14, f->source, NULL);
		put_str(x, ws, r, 15, f->advice, NULL);
	}
	snprintf(name, sizeof name, "Evidence%s", suffix);
	lxw_worksheet *ev = workbook_add_worksheet(x->wb, name);
	static const char *const ecols[] = {"Finding #", "Counter", "Unit", "Min", "Median", "p95", "Max", "Samples",
					    "Above threshold", "Threshold", NULL};
	header_row(x, ev, 0, ecols);
	worksheet_set_column(ev, 1, 1, 30, NULL);
	lxw_row_t r = 1;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		for (int k = 0; k < f->nev; k++) {
			const struct evidence *e = &f->ev[k];
			put_num(x, ev, r, 0, (double)(i + 1));
			put_str(x, ev, r, 1, metric_info[e->metric].label, NULL);
			put_str(x, ev, r, 2, metric_info[e->metric].unit, NULL);
			put_num(x, ev, r, 3, e->min);
			put_num(x, ev, r, 4, e->median);
			put_num(x, ev, r, 5, e->p95);
			put_num(x, ev, r, 6, e->max);
			put_num(x, ev, r, 7, (double)e->samples);
			if (e->above >= 0)
				put_num(x, ev, r, 8, (double)e->above);
			put_num(x, ev, r, 9, e->threshold);
			r++;
		}
	}
}

static void entities_sheet(struct xl *x, const struct analysis *a, const char *suffix)
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
	lxw_row_t r = 1;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->outside)
			continue;
		struct ent_metrics em;
		entity_metrics(a, e, &em);
		int io = em.io, lat = em.lat, lat2 = em.lat2, q = em.q;
		if (io < 0)
			continue;
		if (!entity_sk(e, io)->n)
			continue;
		put_str(x, ws, r, 0, layer_names[e->layer], NULL);
		put_str(x, ws, r, 1, e->host ? e->host : "", NULL);
		put_str(x, ws, r, 2, e->name, NULL);
		put_str(x, ws, r, 3, entity_active(e, &a->rules) ? "yes" : "no", NULL);
		const struct qsketch *s = entity_sk(e, io);
		put_num(x, ws, r, 4, qs_quantile(s, 0.5));
		put_num(x, ws, r, 5, qs_quantile(s, 0.95));
		put_num(x, ws, r, 6, s->max);
		put_str(x, ws, r, 7, metric_info[lat].label, NULL);
		const int ms[2] = {lat, lat2};
		for (int k = 0; k < 2; k++) {
			if (ms[k] < 0 || !entity_sk(e, ms[k])->n)
				continue;
			const struct qsketch *l = entity_sk(e, ms[k]);
			/* each latency column group names its counter: DAVG and KAVG for a LUN, read and write for a disk */
			if (k)
				put_str(x, ws, r, 12, metric_info[lat2].label, NULL);
			put_num(x, ws, r, (lxw_col_t)(8 + 5 * k), qs_quantile(l, 0.5));
			put_num(x, ws, r, (lxw_col_t)(9 + 5 * k), qs_quantile(l, 0.95));
			put_num(x, ws, r, (lxw_col_t)(10 + 5 * k), qs_quantile(l, 0.99));
			put_num(x, ws, r, (lxw_col_t)(11 + 5 * k), l->max);
		}
		if (q >= 0 && entity_sk(e, q)->n) {
			put_str(x, ws, r, 17, metric_info[q].label, NULL);
			put_num(x, ws, r, 18, qs_quantile(entity_sk(e, q), 0.5));
			put_num(x, ws, r, 19, qs_quantile(entity_sk(e, q), 0.95));
			put_num(x, ws, r, 20, entity_sk(e, q)->max);
		}
		/* throughput (a guest disk's perfmon: reads and writes together, in the read columns) */
		const int mb[2] = {e->layer == LAYER_GUEST ? M_G_MBPS : M_MBR, e->layer == LAYER_GUEST ? -1 : M_MBW};
		for (int k = 0; k < 2; k++)
			if (mb[k] >= 0 && entity_sk(e, mb[k])->n) {
				put_num(x, ws, r, (lxw_col_t)(21 + 3 * k), qs_quantile(entity_sk(e, mb[k]), 0.5));
				put_num(x, ws, r, (lxw_col_t)(22 + 3 * k), qs_quantile(entity_sk(e, mb[k]), 0.95));
				put_num(x, ws, r, (lxw_col_t)(23 + 3 * k), entity_sk(e, mb[k])->max);
			}
		r++;
	}
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
	for (size_t i = 0; i < ds->nb; i++) {
		const struct doc_block *b = &ds->b[i];
		r++;
		if (b->t == BLK_PARA) {
			put_str(x, ws, r++, 0, b->text, x->wrap);
			continue;
		}
		if (b->t == BLK_TABLE) {
			if (b->text)
				put_str(x, ws, r++, 0, b->text, x->bold);
			for (int k = 0; k < b->ncols; k++)
				worksheet_write_string(ws, r, (lxw_col_t)k, b->head[k], x->head);
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
				put_num(x, ws, r, (lxw_col_t)(2 + k), ds_mean(&ck->ds, (size_t)ents[k]->series[ms[k]], b));
			}
		}
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
	struct exec_summary es;
	summary_of_analysis(a, &x.lt, &es);
	summary_sheet(&x, o->html.brand, &es, a->verdict, a, NULL);
	summary_free(&es);
	findings_sheets(&x, a, "");
	entities_sheet(&x, a, "");
	struct doc d;
	static const enum doc_sec more[] = {DS_COVERAGE, DS_INPUTS, DS_RULES, DS_DISKMAP, DS_IOPATH, DS_SQL, DS_METHOD};
	unsigned mask = 0;
	for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
		mask |= 1u << more[i];
	doc_of_analysis_only(a, &x.lt, &d, mask);
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
	struct exec_summary es;
	summary_of_compare(c, &x.lt, &es);
	summary_sheet(&x, o->html.brand, &es, c->detail, &c->side[CMP_BEFORE], &c->side[CMP_AFTER]);
	summary_free(&es);
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
			put_num(&x, ws, r, (lxw_col_t)(4 + 4 * s), st->p50);
			put_num(&x, ws, r, (lxw_col_t)(5 + 4 * s), st->p95);
			put_num(&x, ws, r, (lxw_col_t)(6 + 4 * s), st->p99);
			put_num(&x, ws, r, (lxw_col_t)(7 + 4 * s), st->max);
		}
		put_num(&x, ws, r, 12, row->change_pct);
		put_num(&x, ws, r, 13, row->ci[0]);
		put_num(&x, ws, r, 14, row->ci[1]);
		put_str(&x, ws, r, 15, cmp_verdict_names[row->verdict], NULL);
		r++;
	}
	lxw_worksheet *fd = workbook_add_worksheet(x.wb, "Findings diff");
	static const char *const fcols[] = {"Finding", "Rule id", "Host", "Entity", "Status", "Windows before", "Windows after",
					    "Sustained before (s)", "Sustained after (s)", NULL};
	static const char *const fword[FD_COUNT] = {"gone", "still present", "new", "not assessed after", "not assessed before"};
	header_row(&x, fd, 0, fcols);
	for (size_t i = 0; i < c->nfd; i++) {
		const struct cmp_fdiff *f = &c->fd[i];
		lxw_row_t fr = (lxw_row_t)i + 1;
		put_str(&x, fd, fr, 0, f->title, NULL);
		put_str(&x, fd, fr, 1, kinds[f->kind].name, NULL);
		put_str(&x, fd, fr, 2, f->host ? f->host : "", NULL);
		put_str(&x, fd, fr, 3, f->entity, NULL);
		put_str(&x, fd, fr, 4, fword[f->status], NULL);
		put_num(&x, fd, fr, 5, f->count[0]);
		put_num(&x, fd, fr, 6, f->count[1]);
		put_num(&x, fd, fr, 7, f->sustained_s[0]);
		put_num(&x, fd, fr, 8, f->sustained_s[1]);
	}
	findings_sheets(&x, &c->side[CMP_BEFORE], " before");
	findings_sheets(&x, &c->side[CMP_AFTER], " after");
	struct doc d;
	doc_of_compare(c, &x.lt, &d);
	doc_sheet(&x, &d, DS_INPUTS, "");
	doc_sheet(&x, &d, DS_METHOD, "");
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
	.analysis = xlsx_analysis,
	.compare = xlsx_compare,
};
