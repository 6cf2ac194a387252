/* batch_out.c — index.html, summary.json, trend sections and mail bodies of `iopsy batch`.
 * Everything from the sets (names, paths, entities, summaries) is escaped; mail HTML uses only
 * inline styles and PNG images by cid:, which mail clients render. */
#include "batch_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "html.h"
#include "json_out.h"

#include "version.h"

/* Whether set s is a comparison with an outcome (not a failed one). */
static bool compared(const struct bset *s)
{
	return s->has_outcome && s->status != BS_FAILED && s->outcome >= 0 && s->outcome < CO_COUNT;
}

static int rank(const struct bset *s)
{
	if (s->status == BS_FAILED)
		return 0;
	if (s->worst == SEV_CRITICAL)
		return 1;
	if (s->status == BS_PARTIAL)
		return 2;
	/* a comparison that got worse is listed with the warnings, whatever its after side shows */
	if (s->worst == SEV_WARNING || (compared(s) && s->outcome == CO_REGRESSED))
		return 3;
	if (s->incomplete)
		return 4; /* no problem found, but not every layer could be looked at */
	if (s->worst == SEV_INFO)
		return 5;
	return 6;
}

static const struct batch *sort_b;
static int order_cmp(const void *x, const void *y)
{
	const struct bset *a = &sort_b->sets[*(const size_t *)x], *b = &sort_b->sets[*(const size_t *)y];
	if (rank(a) != rank(b))
		return rank(a) - rank(b);
	if (a->nf != b->nf)
		return a->nf < b->nf ? 1 : -1;
	return strcmp(a->dir, b->dir);
}

size_t *batch_order(const struct batch *b)
{
	size_t *o = xmalloc((b->nsets ? b->nsets : 1) * sizeof *o);
	for (size_t i = 0; i < b->nsets; i++)
		o[i] = i;
	sort_b = b;
	if (b->nsets)
		qsort(o, b->nsets, sizeof *o, order_cmp);
	return o;
}

static const char *state_label(const struct bset *s)
{
	if (s->status == BS_FAILED)
		return "failed";
	if (s->worst == SEV_CRITICAL)
		return "critical";
	if (s->worst == SEV_WARNING)
		return "warning";
	if (s->status == BS_PARTIAL)
		return "partial";
	if (s->incomplete)
		return "incomplete";
	return "clean";
}

static const char *state_color(const char *label)
{
	if (!strcmp(label, "failed"))
		return "#6b21a8";
	if (!strcmp(label, "critical"))
		return "#b91c1c";
	if (!strcmp(label, "warning") || !strcmp(label, "partial"))
		return "#b45309";
	if (!strcmp(label, "incomplete"))
		return "#475569";
	return "#15803d";
}

/* A comparison's badge: its outcome, coloured by it (improved green, regressed red, mixed amber,
 * unchanged slate, not comparable grey): a regressed set is never green, whatever its after side's
 * findings. Anything else: its state. */
static const char *outcome_color(int o)
{
	switch (o) {
	case CO_IMPROVED: return "#15803d";
	case CO_REGRESSED: return "#b91c1c";
	case CO_MIXED: return "#b45309";
	case CO_UNCHANGED: return "#475569";
	default: return "#6b7280";
	}
}

static const char *badge_label(const struct bset *s)
{
	return compared(s) ? cmp_outcome_names[s->outcome] : state_label(s);
}

static const char *badge_color(const struct bset *s)
{
	return compared(s) ? outcome_color(s->outcome) : state_color(state_label(s));
}

/* What a set's row says in words: a comparison's headline, else the verdict. */
static const char *set_words(const struct bset *s, const struct bresult *r)
{
	return compared(s) && r->headline ? r->headline : r->verdict;
}

/* HTML-escaped, with bidi controls (U+200E/F, U+202A-E, U+2066-9) from set and file names shown
 * as U+FFFD: in the index they would reorder what a reader sees around them. */
static void esc(struct buf *b, const char *s)
{
	if (!s)
		return; /* as html_escape: nothing */
	const unsigned char *p = (const unsigned char *)s;
	size_t from = 0, i = 0;
	struct buf part;
	buf_init(&part);
	for (; p[i]; i++) {
		bool bidi = p[i] == 0xe2 && p[i + 1] &&
			    ((p[i + 1] == 0x80 && (p[i + 2] == 0x8e || p[i + 2] == 0x8f || (p[i + 2] >= 0xaa && p[i + 2] <= 0xae))) ||
			     (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9));
		if (!bidi)
			continue;
		buf_reset(&part);
		buf_add(&part, s + from, i - from);
		html_escape(b, part.data ? part.data : "");
		buf_adds(b, "\xef\xbf\xbd");
		i += 2;
		from = i + 1;
	}
	html_escape(b, s + from);
	buf_free(&part);
}

/* A relative URL to a file under the output folder: the sanitised directory is URL-safe. */
static void href(struct buf *b, const char *dir, const char *file)
{
	buf_adds(b, "./");
	esc(b, dir);
	buf_addc(b, '/');
	buf_adds(b, file);
}

/* The trend in one line, into out as text (html false) or HTML: the findings' counts, and the
 * set's state and where IO waits when they changed ("state partial -> ok"). */
static void trend_line(struct buf *out, const struct btrend *t, bool html)
{
	if (!t->have_previous) {
		buf_adds(out, t->unavailable ? "trend unavailable (the history could not be read)" : "first run");
		return;
	}
	bool moved = t->prev_state || t->prev_where;
	if (t->n_new == 0 && t->n_resolved == 0 && !moved)
		buf_printf(out, "unchanged since last run (%ld still present)", t->n_still);
	else
		buf_printf(out, "%ld new, %ld still present, %ld resolved", t->n_new, t->n_still, t->n_resolved);
	const char *arrow = html ? " &rarr; " : " -> ";
	for (int k = 0; k < 2; k++) {
		const char *a = k ? t->prev_where : t->prev_state, *b = k ? t->now_where : t->now_state;
		if (!a || !b)
			continue;
		buf_adds(out, k ? "; where IO waits: " : "; state ");
		if (html)
			esc(out, a);
		else
			buf_add_text_escaped(out, a, strlen(a));
		buf_adds(out, arrow);
		if (html)
			esc(out, b);
		else
			buf_add_text_escaped(out, b, strlen(b));
	}
}

static void trend_counts_html(struct buf *out, const struct btrend *t)
{
	trend_line(out, t, true);
}

/* A finding's time as the index and summary show it. */
static void iso(int64_t t, char out[32])
{
	time_format_iso(t, false, out);
}

/* The worker's notes of a set in file order, for one walk over its files (file_note): a note's
 * file found by a cursor, not by a scan of every note for every file (quadratic in the notes). Of
 * two notes on one file the first wins, as the worker wrote them. */
struct note_ref {
	size_t file, i;
};
struct note_walk {
	const struct bresult *r;
	struct note_ref *ref;
	size_t at;
};

static int note_ref_cmp(const void *x, const void *y)
{
	const struct note_ref *a = x, *b = y;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

static void note_walk_init(struct note_walk *w, const struct bresult *r)
{
	w->r = r;
	w->at = 0;
	w->ref = xcalloc(r->nnotes ? r->nnotes : 1, sizeof *w->ref);
	for (size_t i = 0; i < r->nnotes; i++)
		w->ref[i] = (struct note_ref){.file = r->notes[i].file, .i = i};
	if (r->nnotes > 1)
		qsort(w->ref, r->nnotes, sizeof *w->ref, note_ref_cmp);
}

/* Back to the first file, for another walk over the same set. */
static void note_walk_rewind(struct note_walk *w)
{
	w->at = 0;
}

static void note_walk_free(struct note_walk *w)
{
	free(w->ref);
	w->ref = NULL;
}

/* File k of a set (f, in the walk's order: k never goes down between rewinds) as this run used
 * it: the worker's note (e.g. past the memory budget) wins. */
static const char *file_note(const struct bfile *f, struct note_walk *w, size_t k, enum bfile_role *role)
{
	while (w->at < w->r->nnotes && w->ref[w->at].file < k)
		w->at++;
	if (w->at < w->r->nnotes && w->ref[w->at].file == k) {
		*role = BF_IGNORED;
		return w->r->notes[w->ref[w->at].i].note;
	}
	*role = f->role;
	return f->note;
}

/* Where index.html and summary.json go: out alone, or out as a staging buffer written to fp
 * whenever it passes SPILL_BYTES (after each set, and every file of a set's list), so a run of
 * sets with a million files each never holds its index whole (issue 28). */
#define SPILL_BYTES (256u << 10)
struct spill {
	struct buf *out;
	FILE *fp;
	int err;
};

static void spill(struct spill *sp, bool all)
{
	if (!sp || !sp->fp || !sp->out->len || (!all && sp->out->len < SPILL_BYTES))
		return;
	if (!sp->err && fwrite(sp->out->data, 1, sp->out->len, sp->fp) != sp->out->len)
		sp->err = ERR_IO;
	buf_reset(sp->out);
}

static const char css[] =
	"body{font:14px/1.45 -apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2937;margin:0;background:#f8fafc}"
	"main{max-width:1100px;margin:0 auto;padding:24px}"
	"h1{font-size:22px;margin:0 0 4px}.meta{color:#64748b;margin-bottom:18px}"
	"table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #e2e8f0}"
	"th,td{text-align:left;vertical-align:top;padding:8px 10px;border-bottom:1px solid #e2e8f0}"
	"th{background:#f1f5f9;font-weight:600;font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:#475569}"
	".badge{display:inline-block;padding:2px 8px;border-radius:10px;color:#fff;font-size:12px;font-weight:600}"
	".small{font-size:12px;color:#64748b}ul{margin:4px 0 0 16px;padding:0}"
	"a{color:#1d4ed8}code{font-size:12px}"
	"@media print{body{background:#fff}main{padding:0}a{color:#000}}";

static void index_html(const struct batch *b, const struct run_info *ri, struct buf *out, struct spill *sp)
{
	size_t *o = batch_order(b);
	/* each set counted once: failed (as summary.json's sets_failed: not analysed, or partial),
	 * then a comparison by its outcome, an analysis by its state */
	long failed = batch_sets_failed(b), partial = 0, outcomes[CO_COUNT] = {0}, compares = 0;
	int counts[7] = {0};
	for (size_t i = 0; i < b->nsets; i++) {
		const struct bset *s = &b->sets[i];
		if (bset_failed(s))
			partial += s->status == BS_PARTIAL;
		else if (compared(s))
			outcomes[s->outcome]++, compares++;
		else
			counts[rank(s)]++;
	}
	buf_printf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
			"<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
			"<title>iopsy weekly storage report</title><style>%s</style></head><body><main>\n", css);
	buf_adds(out, "<h1>Storage analysis: all capture sets</h1>\n<div class=\"meta\">Run ");
	esc(out, ri->started);
	buf_adds(out, " over ");
	esc(out, ri->input);
	buf_printf(out, " (%s) &middot; %zu set%s: %ld failed", ri->input_kind, b->nsets, b->nsets == 1 ? "" : "s", failed);
	if (partial)
		buf_printf(out, " (%ld of them partial)", partial);
	buf_printf(out, "; analyses: %d critical, %d warning, %d incomplete, %d clean", counts[1], counts[3], counts[4],
		   counts[5] + counts[6]);
	if (compares) {
		buf_adds(out, "; comparisons:");
		for (int k = 0, said = 0; k < CO_COUNT; k++)
			if (outcomes[k])
				buf_printf(out, "%s %ld %s", said++ ? "," : "", outcomes[k], cmp_outcome_names[k]);
	}
	buf_adds(out, " &middot; iopsy " IOPSY_VERSION "</div>\n");
	buf_adds(out, "<table><thead><tr><th>Set</th><th>State</th><th>Top findings</th><th>Since last run</th>"
		      "<th>Captures</th></tr></thead><tbody>\n");
	for (size_t n = 0; n < b->nsets; n++) {
		const struct bset *s = &b->sets[o[n]];
		struct bresult tmp;
		const struct bresult *r = batch_result(b, o[n], &tmp);
		const char *label = state_label(s);
		buf_adds(out, "<tr><td><strong>");
		esc(out, s->name);
		buf_adds(out, "</strong>");
		if (s->paired)
			buf_adds(out, " <span class=\"small\">(before/after)</span>");
		if (s->status != BS_FAILED || r->verdict) {
			buf_adds(out, "<br><a href=\"");
			href(out, s->dir, "report.html");
			buf_adds(out, "\">report</a> &middot; <a href=\"");
			href(out, s->dir, "report.json");
			buf_adds(out, "\">json</a>");
		}
		buf_printf(out, "</td><td><span class=\"badge\" style=\"background:%s\">%s</span>", badge_color(s),
			   badge_label(s));
		if (compared(s))
			buf_printf(out, "<br><span class=\"small\">after: %s</span>", label);
		if (r->nf)
			buf_printf(out, "<br><span class=\"small\">%zu finding%s</span>", r->nf, r->nf == 1 ? "" : "s");
		buf_adds(out, "</td><td>");
		if (r->error) {
			buf_adds(out, "<strong>Error:</strong> ");
			esc(out, r->error);
			buf_adds(out, " <a href=\"");
			href(out, s->dir, "messages.txt");
			buf_adds(out, "\">messages</a>");
		}
		if (set_words(s, r)) {
			buf_adds(out, r->error ? "<br>" : "");
			esc(out, set_words(s, r));
		}
		if (r->nf) {
			buf_adds(out, "<ul>");
			for (size_t k = 0; k < r->nf && k < 3; k++) {
				const struct bfinding *f = &r->f[k];
				buf_adds(out, "<li><code>");
				esc(out, kinds[f->kind].name);
				buf_adds(out, "</code> ");
				esc(out, f->host ? f->host : "");
				buf_adds(out, " ");
				esc(out, f->entity);
				buf_adds(out, " &mdash; ");
				esc(out, f->summary);
				if (r->trend.state && r->trend.state[k] == TS_NEW)
					buf_adds(out, " <strong>(new)</strong>");
				buf_adds(out, "</li>");
			}
			buf_adds(out, "</ul>");
		}
		buf_adds(out, "</td><td>");
		trend_counts_html(out, &r->trend);
		buf_adds(out, "</td><td class=\"small\">");
		if (r->have_span) {
			char x[32], y[32];
			iso(r->span_start, x);
			iso(r->span_end, y);
			esc(out, x);
			buf_adds(out, " &ndash; ");
			esc(out, y);
			buf_adds(out, "<br>");
		}
		size_t used = 0, ignored = 0;
		/* the set's list walked twice, one file at a time (the run's list store) */
		struct bfile_iter it;
		bfile_iter_init(&it, s);
		struct note_walk w;
		note_walk_init(&w, r);
		for (size_t k = 0; k < s->nfiles; k++) {
			enum bfile_role role;
			file_note(bfile_iter_next(&it), &w, k, &role);
			role == BF_IGNORED ? ignored++ : used++;
		}
		bfile_iter_free(&it);
		bfile_iter_init(&it, s);
		note_walk_rewind(&w);
		buf_printf(out, "%zu file%s used", used, used == 1 ? "" : "s");
		if (r->warnings)
			buf_printf(out, ", %ld parser warning%s", r->warnings, r->warnings == 1 ? "" : "s");
		for (size_t k = 0; k < s->nfiles; k++) {
			enum bfile_role role;
			const struct bfile *f = bfile_iter_next(&it);
			const char *note = file_note(f, &w, k, &role);
			if (role != BF_IGNORED)
				continue;
			buf_adds(out, "<br>not used: ");
			const char *base = strrchr(f->path, '/');
			esc(out, base && base[1] ? base + 1 : f->path);
			buf_adds(out, " (");
			esc(out, note);
			buf_adds(out, ")");
			spill(sp, false);
		}
		note_walk_free(&w);
		bfile_iter_free(&it);
		buf_adds(out, "</td></tr>\n");
		if (r == &tmp)
			bresult_free(&tmp);
		spill(sp, false);
	}
	buf_adds(out, "</tbody></table>\n<p class=\"small\">Sets are listed worst first. Each report is one "
		      "self-contained file; <code>summary.json</code> has the same data for scripts; the history "
		      "database keeps every run for week-over-week trends (<code>iopsy history</code>).</p>\n"
		      "</main></body></html>\n");
	free(o);
}

void batch_index_html(const struct batch *b, const struct run_info *ri, struct buf *out)
{
	index_html(b, ri, out, NULL);
}

int batch_index_html_file(const struct batch *b, const struct run_info *ri, FILE *fp)
{
	struct buf out;
	buf_init(&out);
	struct spill sp = {.out = &out, .fp = fp};
	index_html(b, ri, &out, &sp);
	spill(&sp, true);
	buf_free(&out);
	return sp.err;
}

static void json_files(struct json *j, const struct bset *s, const struct bresult *r, struct spill *sp)
{
	struct bfile_iter it; /* one file at a time, from the run's list store */
	bfile_iter_init(&it, s);
	struct note_walk w;
	note_walk_init(&w, r);
	json_arr_begin(j);
	for (size_t k = 0; k < s->nfiles; k++) {
		enum bfile_role role;
		const struct bfile *f = bfile_iter_next(&it);
		const char *note = file_note(f, &w, k, &role);
		json_obj_begin(j);
		json_key(j, "path");
		json_str(j, f->path);
		json_key(j, "role");
		json_str(j, bfile_role_names[role]);
		json_key(j, "side");
		json_str(j, f->side == 1 ? "before" : f->side == 2 ? "after" : NULL);
		json_key(j, "note");
		json_str(j, note);
		json_obj_end(j);
		spill(sp, false);
	}
	json_arr_end(j);
	note_walk_free(&w);
	bfile_iter_free(&it);
}

static void summary_json(const struct batch *b, const struct run_info *ri, struct json *j, struct spill *sp)
{
	size_t *o = batch_order(b);
	json_head(j, 1);
	json_key(j, "started");
	json_str(j, ri->started);
	json_key(j, "input");
	json_str(j, ri->input);
	json_key(j, "input_kind");
	json_str(j, ri->input_kind);
	json_key(j, "history");
	json_str(j, ri->history);
	json_key(j, "seconds");
	json_num(j, round(ri->seconds * 10) / 10);
	json_key(j, "sets_failed");
	json_int(j, batch_sets_failed(b));
	json_key(j, "sets");
	json_arr_begin(j);
	for (size_t n = 0; n < b->nsets; n++) {
		const struct bset *s = &b->sets[o[n]];
		struct bresult tmp;
		const struct bresult *r = batch_result(b, o[n], &tmp);
		json_obj_begin(j);
		json_key(j, "name");
		json_str(j, s->name);
		json_key(j, "dir");
		json_str(j, s->dir);
		json_key(j, "kind");
		json_str(j, s->paired ? "compare" : "analyze");
		json_key(j, "status");
		json_str(j, bstatus_names[s->status]);
		json_key(j, "state");
		json_str(j, state_label(s));
		json_key(j, "error");
		json_str(j, r->error);
		json_key(j, "worst");
		json_str(j, s->worst >= 0 ? severity_names[s->worst] : NULL);
		json_key(j, "findings");
		json_int(j, (long long)r->nf);
		json_key(j, "verdict");
		json_str(j, r->verdict);
		json_key(j, "outcome");
		json_str(j, r->outcome >= 0 && r->outcome < CO_COUNT ? cmp_outcome_names[r->outcome] : NULL);
		json_key(j, "headline");
		json_str(j, r->headline);
		json_key(j, "not_assessed");
		json_str(j, r->not_assessed);
		char x[32], y[32];
		iso(r->span_start, x);
		iso(r->span_end, y);
		json_key(j, "capture_start");
		json_str(j, r->have_span ? x : NULL);
		json_key(j, "capture_end");
		json_str(j, r->have_span ? y : NULL);
		json_key(j, "warnings");
		json_int(j, r->warnings);
		/* report paths relative to the output folder, null when the set wrote none */
		const char *names[2] = {"report.html", "report.json"}, *keys[2] = {"report_html", "report_json"};
		for (int k = 0; k < 2; k++) {
			struct buf p, full;
			buf_init(&p);
			buf_init(&full);
			buf_printf(&p, "%s/%s", s->dir, names[k]);
			buf_printf(&full, "%s/%s", ri->out ? ri->out : ".", p.data);
			json_key(j, keys[k]);
			if (access(full.data, F_OK) == 0)
				json_str(j, p.data);
			else
				json_null(j);
			buf_free(&p);
			buf_free(&full);
		}
		json_key(j, "files");
		json_files(j, s, r, sp);
		json_key(j, "trend");
		json_obj_begin(j);
		json_key(j, "previous_run");
		json_str(j, r->trend.have_previous ? r->trend.previous_started : NULL);
		json_key(j, "unavailable");
		json_bool(j, r->trend.unavailable);
		json_key(j, "new");
		json_int(j, r->trend.n_new);
		json_key(j, "still_present");
		json_int(j, r->trend.n_still);
		json_key(j, "resolved");
		json_int(j, r->trend.n_resolved);
		json_key(j, "state_was");
		json_str(j, r->trend.prev_state);
		json_key(j, "state_now");
		json_str(j, r->trend.now_state);
		json_key(j, "where_was");
		json_str(j, r->trend.prev_where);
		json_key(j, "where_now");
		json_str(j, r->trend.now_where);
		json_obj_end(j);
		json_key(j, "top_findings");
		json_arr_begin(j);
		for (size_t k = 0; k < r->nf && k < 5; k++) {
			const struct bfinding *f = &r->f[k];
			json_obj_begin(j);
			json_key(j, "kind");
			json_str(j, kinds[f->kind].name);
			json_key(j, "severity");
			json_str(j, severity_names[f->sev]);
			json_key(j, "entity");
			json_str(j, f->entity);
			json_key(j, "host");
			json_str(j, f->host && f->host[0] ? f->host : NULL);
			iso(f->start, x);
			iso(f->end, y);
			json_key(j, "start");
			json_str(j, x);
			json_key(j, "end");
			json_str(j, y);
			json_key(j, "summary");
			json_str(j, f->summary);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
		if (r == &tmp)
			bresult_free(&tmp);
		spill(sp, false);
	}
	json_arr_end(j);
	json_obj_end(j);
	free(o);
}

void batch_summary_json(const struct batch *b, const struct run_info *ri, struct json *j)
{
	summary_json(b, ri, j, NULL);
}

int batch_summary_json_file(const struct batch *b, const struct run_info *ri, FILE *fp)
{
	struct buf out;
	buf_init(&out);
	struct json j;
	json_init(&j, &out, true);
	struct spill sp = {.out = &out, .fp = fp};
	summary_json(b, ri, &j, &sp);
	buf_addc(&out, '\n');
	spill(&sp, true);
	buf_free(&out);
	return sp.err;
}

/* ---- a set's trend section, in each of its reports ---- */

void batch_trend_text(const struct bresult *r, struct buf *out)
{
	const struct btrend *t = &r->trend;
	buf_adds(out, "\nTREND SINCE THE LAST RUN\n");
	if (!t->have_previous) {
		buf_adds(out, t->unavailable ? "  trend unavailable: the history could not be read (see the run's messages), so "
					       "this run is not compared with the previous one\n"
					     : "  first run of this set: no previous results to compare with\n");
		return;
	}
	buf_printf(out, "  previous run %s (captures from %s)\n", t->previous_started,
		   t->previous_capture ? t->previous_capture : "?");
	buf_printf(out, "  findings: %ld new, %ld still present, %ld resolved\n", t->n_new, t->n_still, t->n_resolved);
	for (int k = 0; k < 2; k++) {
		const char *a = k ? t->prev_where : t->prev_state, *b = k ? t->now_where : t->now_state;
		if (!a || !b)
			continue;
		buf_adds(out, k ? "  where IO waits: " : "  state: ");
		buf_add_text_escaped(out, a, strlen(a));
		buf_adds(out, " -> ");
		buf_add_text_escaped(out, b, strlen(b));
		buf_addc(out, '\n');
	}
	for (size_t i = 0; i < r->nf; i++)
		if (t->state[i] == TS_NEW) {
			buf_printf(out, "    new: %s ", kinds[r->f[i].kind].name);
			buf_add_text_escaped(out, r->f[i].entity, strlen(r->f[i].entity));
			buf_addc(out, '\n');
		}
	for (size_t i = 0; i < t->nresolved; i++) {
		buf_printf(out, "    resolved: %s ", kinds[t->resolved[i].kind].name);
		buf_add_text_escaped(out, t->resolved[i].entity, strlen(t->resolved[i].entity));
		buf_addc(out, '\n');
	}
	for (size_t i = 0; i < t->nfig; i++) {
		const struct btrend_figure *g = &t->fig[i];
		if (!g->have_before || g->trend == FT_UNCHANGED)
			continue;
		const struct bstat *st = &r->st[g->stat];
		buf_adds(out, "  ");
		buf_add_text_escaped(out, st->entity, strlen(st->entity));
		buf_printf(out, " %s p95 %.3g -> %.3g %s (%+.0f%%)\n", metric_info[st->metric].name, g->before, g->now,
			   metric_info[st->metric].unit, g->change_pct);
	}
	buf_printf(out, "  %zu key figure%s unchanged since last run\n", t->nunchanged, t->nunchanged == 1 ? "" : "s");
}

void batch_trend_json(const struct bresult *r, struct json *j)
{
	const struct btrend *t = &r->trend;
	json_key(j, "trend");
	json_obj_begin(j);
	json_key(j, "previous_run");
	json_str(j, t->have_previous ? t->previous_started : NULL);
	json_key(j, "previous_capture_start");
	json_str(j, t->have_previous ? t->previous_capture : NULL);
	json_key(j, "unavailable");
	json_bool(j, t->unavailable);
	json_key(j, "findings_new");
	json_int(j, t->n_new);
	json_key(j, "findings_still_present");
	json_int(j, t->n_still);
	json_key(j, "findings_resolved");
	json_int(j, t->n_resolved);
	json_key(j, "figures");
	json_arr_begin(j);
	for (size_t i = 0; i < t->nfig; i++) {
		const struct btrend_figure *g = &t->fig[i];
		const struct bstat *st = &r->st[g->stat];
		json_obj_begin(j);
		json_key(j, "layer");
		json_str(j, layer_names[st->layer]);
		json_key(j, "entity");
		json_str(j, st->entity);
		json_key(j, "host");
		json_str(j, st->host);
		json_key(j, "metric");
		json_str(j, metric_info[st->metric].name);
		json_key(j, "p95");
		json_num(j, g->now);
		json_key(j, "previous_p95");
		json_num(j, g->have_before ? g->before : NAN);
		json_key(j, "change_pct");
		json_num(j, g->change_pct);
		json_key(j, "trend");
		json_str(j, figure_trend_names[g->trend]);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}

void batch_trend_html(const struct bresult *r, struct buf *out)
{
	const struct btrend *t = &r->trend;
	buf_adds(out, "<section class=\"trend\"><h2>Since the last run</h2>");
	if (!t->have_previous) {
		buf_adds(out, t->unavailable ? "<p>Trend unavailable: the history could not be read, so this run is not compared "
					       "with the previous one.</p></section>"
					     : "<p>This is the first run of this set: there is nothing to compare with yet.</p></section>");
		return;
	}
	buf_adds(out, "<p>Previous run ");
	esc(out, t->previous_started);
	buf_adds(out, " (captures from ");
	esc(out, t->previous_capture);
	buf_printf(out, "). Findings: <strong>%ld new</strong>, %ld still present, <strong>%ld resolved</strong>.</p>",
		   t->n_new, t->n_still, t->n_resolved);
	if (t->prev_state || t->prev_where) {
		buf_adds(out, "<p>Changed since then: ");
		trend_line(out, t, true);
		buf_adds(out, "</p>");
	}
	bool table = false;
	for (size_t i = 0; i < t->nfig; i++) {
		const struct btrend_figure *g = &t->fig[i];
		if (!g->have_before || g->trend == FT_UNCHANGED)
			continue;
		const struct bstat *st = &r->st[g->stat];
		if (!table) {
			buf_adds(out, "<table><thead><tr><th>Entity</th><th>Figure (p95)</th><th>Last run</th><th>Now</th>"
				      "<th>Change</th></tr></thead><tbody>");
			table = true;
		}
		buf_adds(out, "<tr><td>");
		if (st->layer == LAYER_GUEST && st->host) {
			esc(out, st->host);
			buf_addc(out, ' ');
		}
		esc(out, st->entity);
		buf_printf(out, "</td><td>%s (%s)</td><td>%.3g</td><td>%.3g</td><td>%+.0f%%</td></tr>",
			   metric_info[st->metric].label, metric_info[st->metric].unit, g->before, g->now, g->change_pct);
	}
	if (table)
		buf_adds(out, "</tbody></table>");
	buf_printf(out, "<p>%zu key figure%s unchanged since last run (within 5%%).</p></section>", t->nunchanged,
		   t->nunchanged == 1 ? "" : "s");
}

/* ---- mail bodies ---- */

/* "10 MiB" / "512 KiB" for the line that says why a report is not attached. */
static void size_text(struct buf *out, size_t n)
{
	if (n >= (1u << 20) && n % (1u << 20) == 0)
		buf_printf(out, "%zu MiB", n >> 20);
	else if (n >= (1u << 20))
		buf_printf(out, "%.1f MiB", (double)n / (1u << 20));
	else
		buf_printf(out, "%zu KiB", (n + 1023) >> 10);
}

/* The opening sentence about the attachments: unchanged while everything fits. */
static void attach_intro(struct buf *out, const struct mail_part *parts, size_t nsets, size_t limit, bool html)
{
	size_t att = 0, linked = 0, left = 0;
	for (size_t i = 0; parts && i < nsets; i++) {
		att += parts[i].report == MR_ATTACHED;
		linked += parts[i].report == MR_LINKED;
		left += parts[i].report == MR_LEFT_OUT;
	}
	if (!linked && !left) {
		buf_adds(out, "The full reports are attached.");
		return;
	}
	struct buf l;
	buf_init(&l);
	size_text(&l, limit);
	buf_printf(out, "%zu of %zu report%s attached; %s (this mail is limited to %s, --mail-max-size).", att, nsets,
		   nsets == 1 ? " is" : "s are",
		   left ? "the others are not attached: each set below says where its report is"
			: "the others are linked below",
		   l.data);
	(void)html;
	buf_free(&l);
}

void batch_mail_html(const struct batch *b, const struct run_info *ri, const size_t *sets, size_t nsets,
		     const struct mail_part *parts, size_t limit, struct buf *out)
{
	buf_adds(out, "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>iopsy storage report</title></head>"
		      "<body style=\"font-family:Segoe UI,Helvetica,Arial,sans-serif;color:#1f2937;font-size:14px\">");
	buf_adds(out, "<h2 style=\"margin:0 0 4px\">Storage analysis</h2><p style=\"color:#64748b;margin:0 0 12px\">Run ");
	esc(out, ri->started);
	buf_printf(out, " &middot; %zu set%s. ", nsets, nsets == 1 ? "" : "s");
	attach_intro(out, parts, nsets, limit, true);
	buf_adds(out, "</p>");
	for (size_t n = 0; n < nsets; n++) {
		const struct bset *s = &b->sets[sets[n]];
		struct bresult tmp;
		const struct bresult *r = batch_result(b, sets[n], &tmp);
		buf_printf(out, "<div style=\"border:1px solid #e2e8f0;padding:10px 12px;margin:0 0 12px\">"
				"<span style=\"background:%s;color:#fff;border-radius:10px;padding:2px 8px;font-size:12px\">%s</span> "
				"<strong>", badge_color(s), badge_label(s));
		esc(out, s->name);
		buf_adds(out, "</strong> <span style=\"color:#64748b\">");
		trend_counts_html(out, &r->trend);
		buf_adds(out, "</span><p style=\"margin:6px 0\">");
		if (r->error) {
			buf_adds(out, "<strong>Error:</strong> ");
			esc(out, r->error);
			buf_adds(out, " ");
		}
		esc(out, set_words(s, r));
		buf_adds(out, "</p>");
		if (r->nf) {
			buf_adds(out, "<ul style=\"margin:0 0 6px 18px;padding:0\">");
			for (size_t k = 0; k < r->nf && k < 3; k++) {
				buf_adds(out, "<li>");
				esc(out, severity_names[r->f[k].sev]);
				buf_adds(out, ": ");
				esc(out, r->f[k].summary);
				buf_adds(out, "</li>");
			}
			buf_adds(out, "</ul>");
		}
		const struct mail_part *mp = parts ? &parts[n] : NULL;
		if (mp && mp->cid) {
			buf_adds(out, "<img alt=\"chart of the top finding\" style=\"max-width:100%\" src=\"cid:");
			esc(out, mp->cid);
			buf_adds(out, "\">");
		}
		if (mp && mp->report == MR_LINKED) {
			buf_adds(out, "<p style=\"margin:6px 0\">Report: <a href=\"");
			esc(out, mp->where);
			buf_adds(out, "\">");
			esc(out, mp->where);
			buf_adds(out, "</a></p>");
		} else if (mp && mp->report == MR_LEFT_OUT) {
			buf_adds(out, "<p style=\"margin:6px 0\">Report not attached (mail size limit): <code>");
			esc(out, mp->where);
			buf_adds(out, "</code></p>");
		}
		if (mp && mp->chart_left_out)
			buf_adds(out, "<p style=\"margin:6px 0;color:#64748b\">Chart left out (mail size limit): it is in the report.</p>");
		buf_adds(out, "</div>");
		if (r == &tmp)
			bresult_free(&tmp);
	}
	buf_adds(out, "</body></html>\n");
}

void batch_mail_text(const struct batch *b, const struct run_info *ri, const size_t *sets, size_t nsets,
		     const struct mail_part *parts, size_t limit, struct buf *out)
{
	buf_printf(out, "Storage analysis, run %s: %zu set%s. ", ri->started, nsets, nsets == 1 ? "" : "s");
	attach_intro(out, parts, nsets, limit, false);
	buf_addc(out, '\n');
	for (size_t n = 0; n < nsets; n++) {
		const struct bset *s = &b->sets[sets[n]];
		struct bresult tmp;
		const struct bresult *r = batch_result(b, sets[n], &tmp);
		buf_printf(out, "\n[%s] ", badge_label(s));
		buf_add_text_escaped(out, s->name, strlen(s->name));
		buf_addc(out, '\n');
		if (r->error) {
			buf_adds(out, "  error: ");
			buf_add_text_escaped(out, r->error, strlen(r->error));
			buf_addc(out, '\n');
		}
		const char *words = set_words(s, r);
		if (words) {
			buf_adds(out, "  ");
			buf_add_text_escaped(out, words, strlen(words));
			buf_addc(out, '\n');
		}
		buf_adds(out, "  trend: ");
		trend_line(out, &r->trend, false);
		buf_addc(out, '\n');
		for (size_t k = 0; k < r->nf && k < 3; k++) {
			buf_printf(out, "  - %s: ", severity_names[r->f[k].sev]);
			buf_add_text_escaped(out, r->f[k].summary, strlen(r->f[k].summary));
			buf_addc(out, '\n');
		}
		const struct mail_part *mp = parts ? &parts[n] : NULL;
		if (mp && mp->report != MR_ATTACHED) {
			buf_adds(out, mp->report == MR_LINKED ? "  report: " : "  report not attached (mail size limit): ");
			buf_add_text_escaped(out, mp->where, strlen(mp->where));
			buf_addc(out, '\n');
		}
		if (r == &tmp)
			bresult_free(&tmp);
	}
}
