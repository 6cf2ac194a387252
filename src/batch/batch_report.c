/* batch_report.c — one batch set in its child process (see batch_report.h). */
#include "batch_report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_out.h"
#include "text.h"
#include "compare.h"
#include "json_out.h"
#include "text.h"
#include "html.h"
#include "batch_out.h"
#include "json.h"
#include "reporter.h"

static void num_tsv(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "\t-");
	else
		buf_printf(b, "\t%.6g", v);
}

void batch_stats_tsv(const struct analysis *a, struct buf *b)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (!entity_active(e, &a->rules))
			continue;
		for (size_t k = 0; k < nkey_metrics; k++) {
			if (key_metrics[k].layer != e->layer)
				continue;
			const struct qsketch *q = &e->sk[key_metrics[k].metric];
			if (!q->n)
				continue;
			buf_adds(b, "stat");
			const char *f[4] = {layer_names[e->layer], e->name, e->host ? e->host : "",
					    metric_info[key_metrics[k].metric].name};
			for (int x = 0; x < 4; x++) {
				buf_addc(b, '\t');
				for (const char *c = f[x]; *c; c++)
					buf_addc(b, *c == '\t' || *c == '\n' || *c == '\r' ? ' ' : *c);
			}
			num_tsv(b, qs_quantile(q, 0.5));
			num_tsv(b, qs_quantile(q, 0.95));
			num_tsv(b, qs_quantile(q, 0.99));
			num_tsv(b, q->max);
			num_tsv(b, qs_mean(q));
			buf_printf(b, "\t%llu\n", (unsigned long long)q->n);
		}
	}
}

static void trend_text(const struct analysis *a, const struct bset *s, struct buf *out)
{
	buf_adds(out, "\nTREND SINCE THE LAST RUN\n");
	if (!s->trend.have_previous) {
		buf_adds(out, "  first run of this set: no previous results to compare with\n");
		return;
	}
	buf_printf(out, "  previous run %s (captures from %s)\n", s->trend.previous_started,
		   s->trend.previous_capture ? s->trend.previous_capture : "?");
	long n[3];
	trend_finding_counts(s, n);
	buf_printf(out, "  findings: %ld new, %ld still present, %ld resolved\n", n[0], n[1], n[2]);
	for (size_t i = 0; i < s->nf; i++)
		if (trend_finding_is_new(s, &s->f[i])) {
			buf_printf(out, "    new: %s ", s->f[i].kind);
			buf_add_text_escaped(out, s->f[i].entity, strlen(s->f[i].entity));
			buf_addc(out, '\n');
		}
	for (size_t i = 0; i < s->trend.nprev_f; i++) {
		bool still = false;
		for (size_t k = 0; k < s->nf; k++)
			still |= strcmp(s->f[k].kind, s->trend.prev_f[i].kind) == 0 &&
				 strcmp(s->f[k].entity, s->trend.prev_f[i].entity) == 0;
		if (!still) {
			buf_printf(out, "    resolved: %s ", s->trend.prev_f[i].kind);
			buf_add_text_escaped(out, s->trend.prev_f[i].entity, strlen(s->trend.prev_f[i].entity));
			buf_addc(out, '\n');
		}
	}
	struct trend_row *r;
	size_t nr = batch_trend_rows(a, s, &r);
	size_t unchanged = 0;
	for (size_t i = 0; i < nr; i++) {
		if (!r[i].have_before)
			continue;
		if (r[i].unchanged) {
			unchanged++;
			continue;
		}
		buf_adds(out, "  ");
		buf_add_text_escaped(out, r[i].e->name, strlen(r[i].e->name));
		buf_printf(out, " %s p95 %.3g -> %.3g %s (%+.0f%%)\n", metric_info[r[i].m].name, r[i].before, r[i].now,
			   metric_info[r[i].m].unit, r[i].change_pct);
	}
	buf_printf(out, "  %zu key figure%s unchanged since last run\n", unchanged, unchanged == 1 ? "" : "s");
	free(r);
}

struct trend_ctx {
	const struct analysis *a;
	const struct bset *s;
};

static void trend_text_cb(void *ctx, struct buf *out)
{
	const struct trend_ctx *t = ctx;
	trend_text(t->a, t->s, out);
}

static void trend_json(void *ctx, struct json *j)
{
	const struct trend_ctx *t = ctx;
	const struct bset *s = t->s;
	json_key(j, "trend");
	json_obj_begin(j);
	json_key(j, "previous_run");
	json_str(j, s->trend.have_previous ? s->trend.previous_started : NULL);
	json_key(j, "previous_capture_start");
	json_str(j, s->trend.have_previous ? s->trend.previous_capture : NULL);
	long n[3] = {0, 0, 0};
	if (s->trend.have_previous)
		trend_finding_counts(s, n);
	json_key(j, "findings_new");
	json_int(j, s->trend.have_previous ? n[0] : (long)s->nf);
	json_key(j, "findings_still_present");
	json_int(j, n[1]);
	json_key(j, "findings_resolved");
	json_int(j, n[2]);
	json_key(j, "figures");
	json_arr_begin(j);
	struct trend_row *r;
	size_t nr = batch_trend_rows(t->a, s, &r);
	for (size_t i = 0; i < nr; i++) {
		json_obj_begin(j);
		json_key(j, "layer");
		json_str(j, layer_names[r[i].e->layer]);
		json_key(j, "entity");
		json_str(j, r[i].e->name);
		json_key(j, "host");
		json_str(j, r[i].e->host);
		json_key(j, "metric");
		json_str(j, metric_info[r[i].m].name);
		json_key(j, "p95");
		json_num(j, r[i].now);
		json_key(j, "previous_p95");
		json_num(j, r[i].have_before ? r[i].before : NAN);
		json_key(j, "change_pct");
		json_num(j, r[i].change_pct);
		json_key(j, "trend");
		json_str(j, !r[i].have_before ? "new" : r[i].unchanged ? "unchanged"
						      : r[i].now < r[i].before ? "down" : "up");
		json_obj_end(j);
	}
	free(r);
	json_arr_end(j);
	json_obj_end(j);
}

/* ---- writing ---- */

static int write_file(const struct batch_opts *o, const char *dir, const char *name, const struct buf *b)
{
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/%s", dir, name);
	const char *what;
	int rc = afile_write_all(p.data, b->data, b->len, &what);
	if (rc < 0 && o->co.sink.fn) {
		struct buf m;
		buf_init(&m);
		buf_printf(&m, "iopsy batch: %s %s: %s", what, p.data, strerror(errno));
		o->co.sink.fn(o->co.sink.ctx, DIAG_ERROR, m.data);
		buf_free(&m);
	}
	buf_free(&p);
	return rc;
}

/* The set's reports: report.json, report.txt and report.html (what: 0 analysis, 1 comparison).
 * Returns 0 or ERR_IO. */
static int write_reports(const struct batch_opts *o, const char *setdir, int what, const void *model,
			 struct report_opts *ro)
{
	static const char *const names[] = {"json", "text", "html"};
	int rc = 0;
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		const struct reporter *r = reporter_find(names[i]);
		buf_reset(&b);
		if (what == 0)
			r->analysis(model, ro, &b);
		else
			r->compare(model, ro, &b);
		char file[32];
		snprintf(file, sizeof file, "report.%s", r->ext);
		if (write_file(o, setdir, file, &b) < 0)
			rc = ERR_IO;
	}
	buf_free(&b);
	return rc;
}

static void load_side_files(struct analysis *a, struct bset *s, int side, const struct batch_opts *o, struct buf *errors)
{
	struct diag d;
	for (size_t i = 0; i < s->nfiles; i++) {
		struct bfile *f = &s->files[i];
		if (f->side != side && !(side != 0 && f->side == 0 && f->role != BF_CAPTURE))
			continue;
		switch (f->role) {
		case BF_VMKLOG:
			diag_init(&d, f->path, 20);
			d.sink = o->co.sink;
			if ((a->have_vmk ? vmklog_append(&a->vmk, f->path, &d) : vmklog_read(&a->vmk, f->path, &d)) == 0) {
				a->have_vmk = true;
			} else {
				if (!a->have_vmk)
					vmklog_free(&a->vmk);
				buf_printf(errors, "%s: unreadable vmkernel.log; ", f->path);
			}
			break;
		case BF_PARTITIONS:
			if (a->have_parts)
				break;
			diag_init(&d, f->path, 20);
			d.sink = o->co.sink;
			if (partitions_read(&a->parts, f->path, &d) == 0)
				a->have_parts = true;
			else {
				partitions_free(&a->parts);
				buf_printf(errors, "%s: unreadable partitions file; ", f->path);
			}
			break;
		case BF_MAP: {
			diag_init(&d, f->path, -1);
			d.sink = o->co.sink;
			struct diskmap dm;
			if (diskmap_read(&dm, f->path, &d) < 0)
				buf_printf(errors, "%s: errors in the disk map; ", f->path);
			analysis_use_diskmap(a, &dm, f->path); /* the good lines, as before */
			diskmap_free(&dm);
			break;
		}
		default:
			break;
		}
	}
}

static int single(struct bset *s, const char *setdir, const struct batch_opts *o, batch_result_fn done)
{
	struct analysis a;
	analysis_init(&a);
	a.sink = o->co.sink;
	struct buf errors;
	buf_init(&errors);
	size_t ok = 0, tried = 0;
	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->files[i].role != BF_CAPTURE)
			continue;
		tried++;
		if (model_add_capture(&a.m, s->files[i].path, &o->co) == 0)
			ok++;
		else
			buf_printf(&errors, "%s: unreadable or unrecognised capture (see messages.txt); ", s->files[i].path);
	}
	load_side_files(&a, s, 0, o, &errors);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_run(&a, &ao);
	/* the in-memory findings for the trend (the parent reads them back from the result file) */
	s->nf = 0;
	for (size_t i = 0; i < a.nf; i++) {
		s->f = xrealloc(s->f, (s->nf + 1) * sizeof *s->f);
		struct bfinding *f = &s->f[s->nf++];
		memset(f, 0, sizeof *f);
		f->kind = (char *)(uintptr_t)kinds[a.f[i].kind].name;
		f->entity = (char *)(uintptr_t)a.f[i].entity;
		f->host = (char *)(uintptr_t)(a.f[i].host ? a.f[i].host : "");
	}
	struct trend_ctx tc = {&a, s};
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = "iopsy batch";
	d.sink = o->co.sink;
	struct report_opts ro;
	report_opts_init(&ro);
	ro.d = &d;
	ro.json_extra = trend_json;
	ro.text_extra = trend_text_cb;
	ro.extra_ctx = &tc;
	struct buf trend;
	buf_init(&trend);
	batch_trend_html(&a, s, &trend);
	ro.html.extra_html = trend.data;
	int rc = write_reports(o, setdir, 0, &a, &ro);
	buf_free(&trend);
	/* the top finding's chart as PNG for the mail body (mail clients do not show inline SVG) */
	if (a.nf) {
		struct buf b;
		buf_init(&b);
		if (report_finding_png(&a, &a.f[0], &ro.html, &b, &d) == 0 && write_file(o, setdir, "chart.png", &b) < 0)
			rc = ERR_IO;
		buf_free(&b);
	}
	s->nf = 0; /* borrowed pointers: the parent rebuilds them from the result file */
	free(s->f);
	s->f = NULL;
	enum bstatus st = ok == 0 ? BS_FAILED : (ok < tried || errors.len) ? BS_PARTIAL : BS_OK;
	if (rc < 0)
		st = BS_FAILED;
	done(setdir, s, &a, errors.len ? errors.data : rc < 0 ? "cannot write the reports" : NULL, st);
	buf_free(&errors);
	analysis_free(&a);
	return st == BS_OK ? 0 : 1;
}

static int paired(struct bset *s, const char *setdir, const struct batch_opts *o, batch_result_fn done)
{
	struct compare c;
	compare_init(&c);
	c.side[0].sink = c.side[1].sink = o->co.sink;
	struct buf errors;
	buf_init(&errors);
	size_t ok[3] = {0, 0, 0};
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct bfile *f = &s->files[i];
		if (f->role != BF_CAPTURE || f->side == 0)
			continue;
		if (compare_add_capture(&c, f->side == 1 ? CMP_BEFORE : CMP_AFTER, f->path, &o->co) == 0)
			ok[f->side]++;
		else
			buf_printf(&errors, "%s: unreadable or unrecognised capture (see messages.txt); ", f->path);
	}
	load_side_files(&c.side[0], s, 1, o, &errors);
	load_side_files(&c.side[1], s, 2, o, &errors);
	struct compare_opts co;
	compare_opts_init(&co);
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = "iopsy batch";
	d.sink = o->co.sink;
	compare_run(&c, &co, &d);
	struct report_opts ro;
	report_opts_init(&ro);
	ro.d = &d;
	int rc = write_reports(o, setdir, 1, &c, &ro);
	enum bstatus st = (ok[1] == 0 || ok[2] == 0) ? BS_FAILED : errors.len ? BS_PARTIAL : BS_OK;
	if (rc < 0)
		st = BS_FAILED;
	/* the index shows the after side's findings and the comparison's verdict */
	const char *verdict_saved = c.side[1].verdict;
	c.side[1].verdict = c.verdict;
	done(setdir, s, &c.side[1], errors.len ? errors.data : rc < 0 ? "cannot write the reports" : NULL, st);
	c.side[1].verdict = verdict_saved;
	buf_free(&errors);
	compare_free(&c);
	return st == BS_OK ? 0 : 1;
}

int batch_report_set(struct bset *s, const char *setdir, const struct batch_opts *o, batch_result_fn done)
{
	return s->paired ? paired(s, setdir, o, done) : single(s, setdir, o, done);
}
