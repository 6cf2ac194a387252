/* setwork.c — one batch set in its worker process (see setwork.h). */
#include "setwork.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "batch_out.h"
#include "anopts.h"
#include "compare.h"
#include "html.h"
#include "reporter.h"
#include "result.h"
#include "shard.h"

/* The worker's resident size in MiB (/proc/self/statm), 0 when unknown. */
static long rss_mb(void)
{
	FILE *fp = fopen("/proc/self/statm", "r");
	if (!fp)
		return 0;
	long pages = 0, res = 0;
	int n = fscanf(fp, "%ld %ld", &pages, &res);
	fclose(fp);
	long ps = sysconf(_SC_PAGESIZE);
	return n == 2 && ps > 0 ? (long)((double)res * (double)ps / (1 << 20)) : 0;
}

/* The memory budget of a set: once the worker holds this much, the captures not read yet are
 * listed as not used instead of read (the first capture of each side is always read). */
struct budget {
	long limit_mb;
	bool over;                /* sticky: once over, the rest of the set is not read */
	size_t skipped, tried;
};

static bool budget_left(struct budget *bu, size_t read_so_far)
{
	if (bu->over)
		return false;
	if (read_so_far == 0)
		return true;
	bu->over = rss_mb() >= bu->limit_mb;
	return !bu->over;
}

static void note_skipped(struct bresult *r, size_t file, const struct budget *bu)
{
	r->notes = xrealloc(r->notes, (r->nnotes + 1) * sizeof *r->notes);
	struct buf n;
	buf_init(&n);
	buf_printf(&n, "not read: the set reached its memory budget (%ld MiB, --set-memory) before this capture; "
		       "split the set (one set is one incident)", bu->limit_mb);
	r->notes[r->nnotes].file = file;
	r->notes[r->nnotes].note = n.data;
	r->nnotes++;
}

static void budget_error(struct buf *errors, const struct budget *bu)
{
	if (bu->skipped)
		buf_printf(errors, "%zu of %zu captures not read: the set reached its memory budget (%ld MiB, --set-memory); ",
			   bu->skipped, bu->tried, bu->limit_mb);
}

/* The trend sections a set's reports carry (report_opts' extra hooks). */
static void trend_text_cb(void *ctx, struct buf *out)
{
	batch_trend_text(ctx, out);
}

static void trend_json_cb(void *ctx, struct json *j)
{
	batch_trend_json(ctx, j);
}

/* Writes one output of the set; a failure is said in messages.txt and in the set's error. */
static int write_file(const struct batch_opts *o, const char *dir, const char *name, const struct buf *b,
		      struct buf *errors)
{
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/%s", dir, name);
	const char *what;
	int rc = afile_write_all(p.data, b->data, b->len, &what);
	if (rc < 0) {
		int e = errno;
		if (o->co.sink.fn) {
			struct buf m;
			buf_init(&m);
			buf_printf(&m, "iopsy batch: %s %s: %s", what, p.data, strerror(e));
			o->co.sink.fn(o->co.sink.ctx, DIAG_ERROR, m.data);
			buf_free(&m);
		}
		buf_printf(errors, "%s %s: %s; ", what, name, strerror(e));
	}
	buf_free(&p);
	return rc;
}

/* What a customer's report of set s shows: file names by their base name (a batch runs over the
 * consultant's folders), and the set's engagement fields from the manifest. */
static void set_deliverable(const struct bset *s, const struct batch_opts *o, struct analysis *a,
			    struct report_brand *br, struct report_opts *ro, struct buf *errors)
{
	analysis_display_paths(a, true, NULL);
	memset(br, 0, sizeof *br);
	br->title = s->title;
	br->customer = s->customer;
	br->prepared_by = s->prepared_by;
	if (s->logo) {
		struct buf why;
		buf_init(&why);
		if (brand_logo_load(br, s->logo, &why) < 0)
			buf_printf(errors, "logo %s: %s; ", s->logo, why.data ? why.data : "");
		buf_free(&why);
	}
	ro->html.brand = br;
	ro->html.paper = o->paper;
	/* Chromium in the worker's group: the set's deadline and a signal to the run reach it, and
	 * nothing of it outlives the worker (the runner kills what is left of the group) */
	ro->pdf.caller_group = true;
}

/* The set's reports: report.json, report.txt and report.html (what: 0 analysis, 1 comparison).
 * Returns 0 or ERR_IO. */
static int write_reports(const struct batch_opts *o, const char *setdir, int what, const void *model,
			 struct report_opts *ro, struct buf *errors)
{
	static const char *const names[] = {"json", "text", "html", "pdf"};
	int rc = 0;
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		if (i == 3 && !o->pdf)
			continue; /* a PDF per set only when asked for (batch --pdf): Chromium costs a second or two */
		const struct reporter *r = reporter_find(names[i]);
		buf_reset(&b);
		int wr = what == 0 ? r->analysis(model, ro, &b) : r->compare(model, ro, &b);
		if (wr == REPORT_SKIPPED || (wr < 0 && i == 3))
			continue; /* no PDF (no Chromium): said in messages.txt, the HTML is there */
		char file[32];
		snprintf(file, sizeof file, "report.%s", r->ext);
		if (write_file(o, setdir, file, &b, errors) < 0)
			rc = ERR_IO;
	}
	buf_free(&b);
	return rc;
}

/* The set's side files of side (a comparison's sides also take the set's own), through the
 * analysis loader (anopts.h), in the order the set lists them; one that cannot be used is a
 * reason in errors (a map's good lines are used). */
static void load_side_files(struct analysis *a, const struct bset *s, int side, const struct batch_opts *o,
			    struct buf *errors)
{
	struct an_load how = {.sink = o->co.sink, .max_warnings = 20};
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct bfile *f = &s->files[i];
		if (f->side != side && !(side != 0 && f->side == 0 && f->role != BF_CAPTURE))
			continue;
		enum an_input in = f->role == BF_VMKLOG ? AN_IN_VMKLOG : f->role == BF_PARTITIONS ? AN_IN_PARTITIONS
				   : f->role == BF_MAP ? AN_IN_MAP : AN_IN_NONE;
		if (in != AN_IN_NONE && analysis_load_input(a, in, f->path, &how) < 0)
			buf_printf(errors, "%s: %s; ", f->path, in == AN_IN_VMKLOG ? "unreadable vmkernel.log"
				   : in == AN_IN_PARTITIONS ? "unreadable partitions file" : "errors in the disk map");
	}
}

/* The outcome of the set into r: status from what could be read and written. */
static void finish(struct bresult *r, enum bstatus st, int write_rc, const struct buf *errors)
{
	if (write_rc < 0) {
		st = BS_FAILED;
		r->system_error = true;
	}
	r->status = st;
	free(r->error);
	r->error = errors->len ? xstrdup(errors->data) : write_rc < 0 ? xstrdup("cannot write the reports") : NULL;
	if (r->error) { /* the reasons are joined by "; ": none after the last */
		size_t n = strlen(r->error);
		while (n && (r->error[n - 1] == ' ' || r->error[n - 1] == ';'))
			r->error[--n] = '\0';
	}
}

/* Why a capture of the set gave nothing: no row in the set's window, or unreadable. */
static void capture_error(const struct model *m, const char *path, struct buf *errors)
{
	const struct capture *c = NULL;
	for (size_t i = m->ncaps; i-- > 0 && !c;)
		if (m->caps[i].path && strcmp(m->caps[i].path, path) == 0)
			c = &m->caps[i];
	if (c && c->windowed && !c->rows && c->outside_rows > 0)
		buf_printf(errors, "%s: no row in the set's time window (from/to; see messages.txt for what it covers); ", path);
	else
		buf_printf(errors, "%s: unreadable or unrecognised capture (see messages.txt); ", path);
}

/* ---- the set's own options (manifest keys: struct bset_opts) ---- */

/* A message of the set's options, into messages.txt (the sink) and the set's errors. */
static void opt_msg(const struct batch_opts *o, struct buf *errors, const char *msg)
{
	if (o->co.sink.fn)
		o->co.sink.fn(o->co.sink.ctx, DIAG_ERROR, msg);
	if (strncmp(msg, "iopsy batch: ", 13) == 0)
		msg += 13; /* the set's error is shown with the set */
	buf_printf(errors, "%s; ", msg);
}

/* The side's options (0 the set, 1 before, 2 after) into co, ao, a's rules, window and filter f.
 * Returns 0, or -1 with the reason in errors (the set fails: nothing is analysed on a wrong
 * premise). */
static int set_options(const struct bset *s, int side, const struct batch_opts *o, struct analysis *a,
		       struct common_opts *co, struct analyze_opts *ao, struct ent_filter *f, struct buf *errors)
{
	const struct bset_opts *so = &s->opts;
	*co = o->co;
	/* the table's value rows the manifest gave: the set's, with a side's own over them */
	struct an_values v = so->av[0];
	if (side)
		anopt_overlay(&v, &so->av[side]);
	*ao = v.ao;
	if (so->tz_given) {
		co->tz_given = true;
		co->tz_bias_min = so->tz_bias_min;
		co->tz = so->tz;
	}
	struct buf msg;
	buf_init(&msg);
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = "iopsy batch";
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msg};
	int rc = 0;
	if (so->rules) {
		ao->rules = so->rules;
		struct diag rd = d;
		rd.file = so->rules;
		if (rules_load(&a->rules, so->rules, &rd) < 0)
			rc = -1;
	}
	for (int k = 0; k < EF_KINDS && rc == 0; k++)
		for (size_t i = 0; i < so->nfilter[k] && rc == 0; i++)
			rc = ef_add(f, k, so->filter[k][i], &d) < 0 ? -1 : 0;
	if (rc == 0) {
		struct twin_spec sp = {{v.win[0], v.win[1]}};
		char **paths = xcalloc(s->nfiles + 1, sizeof *paths);
		size_t np = 0;
		for (size_t i = 0; i < s->nfiles; i++)
			if (s->files[i].role == BF_CAPTURE && s->files[i].side == side)
				paths[np++] = s->files[i].path;
		struct diag wd = d;
		wd.file = "from/to";
		if (rc == 0 && twin_resolve(&sp, paths, np, co, &a->window, &wd) < 0)
			rc = -1;
		free(paths);
		twin_apply(&a->window, co);
		for (int k = 0; k < 2 && rc == 0; k++)
			if (a->window.note[k][0] && o->co.sink.fn)
				o->co.sink.fn(o->co.sink.ctx, DIAG_WARNING, a->window.note[k]);
	}
	if (ef_on(f))
		a->m.filter = f;
	analysis_set_opts(a, ao);
	if (msg.len) {
		/* each message is a line of its own */
		for (char *line = msg.data, *nl; line && *line; line = nl) {
			nl = strchr(line, '\n');
			if (nl)
				*nl++ = '\0';
			opt_msg(o, errors, line);
		}
	}
	buf_free(&msg);
	return rc;
}

/* A filter that matched nothing (or left nothing): the set fails with the reason. */
static bool filter_failed(const struct analysis *a, const char *whose, const struct batch_opts *o, struct buf *errors)
{
	if (!a->m.filter)
		return false;
	struct buf msg;
	buf_init(&msg);
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = "iopsy batch";
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msg};
	bool bad = ef_check(a->m.filter, whose, &d) < 0;
	for (char *line = msg.data, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		opt_msg(o, errors, line);
	}
	buf_free(&msg);
	return bad;
}

/* Reading a set's captures of one side under its memory budget (analysis_load_captures' hooks). */
struct cap_read {
	const struct bset *s;
	const size_t *idx;        /* the loader's index → the set's file */
	struct budget *bu;
	bool each;                /* a comparison: each side gets its first capture, checked one by one */
	size_t ok, tried;
	size_t *skipped;          /* the set's files not read (realloc'd, caller frees) */
	const struct model *m;
	struct buf *errors;
};

static bool cap_may_read(void *ctx, size_t i)
{
	struct cap_read *cr = ctx;
	cr->bu->tried++;
	if (cr->each)
		cr->bu->over = false;
	if (!budget_left(cr->bu, cr->ok)) {
		cr->skipped = xrealloc(cr->skipped, (cr->bu->skipped + 1) * sizeof *cr->skipped);
		cr->skipped[cr->bu->skipped++] = cr->idx[i];
		return false;
	}
	cr->tried++;
	return true;
}

static void cap_done(void *ctx, size_t i, int rc)
{
	struct cap_read *cr = ctx;
	if (rc == 0)
		cr->ok++;
	else
		capture_error(cr->m, cr->s->files[cr->idx[i]].path, cr->errors);
}

/* Reads the set's captures of side into a (one host's files together, in time order). */
static void read_captures(struct analysis *a, int side, const struct common_opts *co, struct cap_read *cr)
{
	const struct bset *s = cr->s;
	char **paths = xcalloc(s->nfiles + 1, sizeof *paths);
	size_t *idx = xcalloc(s->nfiles + 1, sizeof *idx);
	size_t np = 0;
	for (size_t i = 0; i < s->nfiles; i++)
		if (s->files[i].role == BF_CAPTURE && s->files[i].side == side) {
			idx[np] = i;
			paths[np++] = s->files[i].path;
		}
	cr->idx = idx;
	cr->m = &a->m;
	struct an_capture_hooks h = {.may_read = cap_may_read, .done = cap_done, .ctx = cr};
	analysis_load_captures(a, paths, np, co, &h);
	cr->idx = NULL;
	free(paths);
	free(idx);
}

static void single(const struct bset *s, const char *setdir, const struct bprev *prev, const struct batch_opts *o,
		   struct bresult *r)
{
	struct analysis a;
	analysis_init(&a);
	a.sink = o->co.sink;
	struct buf errors;
	buf_init(&errors);
	struct common_opts co;
	struct analyze_opts ao;
	struct ent_filter filt;
	ef_init(&filt);
	if (set_options(s, 0, o, &a, &co, &ao, &filt, &errors) < 0) {
		r->status = BS_FAILED;
		r->error = xstrdup(errors.data ? errors.data : "bad set options");
		trend_compute(r, prev);
		buf_free(&errors);
		analysis_free(&a);
		ef_free(&filt);
		return;
	}
	struct budget bu = {.limit_mb = o->set_memory_mb > 0 ? o->set_memory_mb : BATCH_SET_MEMORY_MB};
	struct cap_read cr = {.s = s, .bu = &bu, .errors = &errors};
	read_captures(&a, 0, &co, &cr);
	size_t ok = cr.ok, tried = cr.tried;
	size_t *skipped = cr.skipped;
	budget_error(&errors, &bu);
	load_side_files(&a, s, 0, o, &errors);
	if (filter_failed(&a, "the set's captures", o, &errors)) {
		r->status = BS_FAILED;
		r->error = xstrdup(errors.data);
		trend_compute(r, prev);
		free(skipped);
		buf_free(&errors);
		analysis_free(&a);
		ef_free(&filt);
		return;
	}
	analysis_run(&a, &ao);
	bresult_from_analysis(&a, a.verdict, r);
	for (size_t i = 0; i < bu.skipped; i++)
		note_skipped(r, skipped[i], &bu);
	free(skipped);
	trend_compute(r, prev);
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = "iopsy batch";
	d.sink = o->co.sink;
	struct report_opts ro;
	report_opts_init(&ro);
	ro.d = &d;
	ro.json_extra = trend_json_cb;
	ro.text_extra = trend_text_cb;
	ro.extra_ctx = r;
	struct buf trend;
	buf_init(&trend);
	batch_trend_html(r, &trend);
	ro.html.extra_html = trend.data;
	/* the top finding's chart as PNG for the mail body (mail clients do not show inline SVG),
	 * drawn with the HTML report's charts */
	struct buf png, why;
	buf_init(&png);
	buf_init(&why);
	ro.html.top_png = &png;
	ro.html.top_png_why = &why;
	ro.res.top_png = 1;
	struct report_brand br;
	set_deliverable(s, o, &a, &br, &ro, &errors);
	int rc = write_reports(o, setdir, 0, &a, &ro, &errors);
	brand_free(&br);
	buf_free(&trend);
	if (a.nf) {
		int prc = ro.res.top_png;
		if (prc < 0 && why.len)
			diag_emit(&d, DIAG_WARNING, 0, 0, "the chart of the top finding: %s", why.data);
		if (prc == 0 && write_file(o, setdir, "chart.png", &png, &errors) < 0)
			rc = ERR_IO;
	}
	buf_free(&png);
	buf_free(&why);
	finish(r, ok == 0 ? BS_FAILED : (ok < tried || errors.len) ? BS_PARTIAL : BS_OK, rc, &errors);
	buf_free(&errors);
	analysis_free(&a);
	ef_free(&filt);
}

static void paired(const struct bset *s, const char *setdir, const struct bprev *prev, const struct batch_opts *o,
		   struct bresult *r)
{
	struct compare c;
	compare_init(&c);
	c.side[0].sink = c.side[1].sink = o->co.sink;
	struct buf errors;
	buf_init(&errors);
	struct common_opts sco[2];
	struct compare_opts co;
	compare_opts_init(&co);
	struct ent_filter filt[2];
	ef_init(&filt[0]);
	ef_init(&filt[1]);
	int bad = 0;
	for (int sd = 0; sd < 2; sd++)
		bad |= set_options(s, sd + 1, o, &c.side[sd], &sco[sd], &co.ao[sd], &filt[sd], &errors) < 0;
	if (bad) {
		r->status = BS_FAILED;
		r->error = xstrdup(errors.data ? errors.data : "bad set options");
		trend_compute(r, prev);
		buf_free(&errors);
		compare_free(&c);
		ef_free(&filt[0]);
		ef_free(&filt[1]);
		return;
	}
	c.rules = c.side[0].rules; /* the comparison's bands: the set's rules */
	size_t ok[3] = {0, 0, 0};
	struct budget bu = {.limit_mb = o->set_memory_mb > 0 ? o->set_memory_mb : BATCH_SET_MEMORY_MB};
	size_t *skipped = NULL;
	for (int sd = 1; sd <= 2; sd++) {
		struct cap_read cr = {.s = s, .bu = &bu, .each = true, .skipped = skipped, .errors = &errors};
		read_captures(&c.side[sd - 1], sd, &sco[sd - 1], &cr);
		ok[sd] = cr.ok;
		skipped = cr.skipped;
	}
	budget_error(&errors, &bu);
	load_side_files(&c.side[0], s, 1, o, &errors);
	load_side_files(&c.side[1], s, 2, o, &errors);
	if (filter_failed(&c.side[0], "the before captures", o, &errors) |
	    filter_failed(&c.side[1], "the after captures", o, &errors)) {
		r->status = BS_FAILED;
		r->error = xstrdup(errors.data);
		trend_compute(r, prev);
		free(skipped);
		buf_free(&errors);
		compare_free(&c);
		ef_free(&filt[0]);
		ef_free(&filt[1]);
		return;
	}
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = "iopsy batch";
	d.sink = o->co.sink;
	compare_run(&c, &co, &d);
	struct report_opts ro;
	report_opts_init(&ro);
	ro.d = &d;
	struct report_brand br;
	set_deliverable(s, o, &c.side[0], &br, &ro, &errors);
	set_deliverable(s, o, &c.side[1], &br, &ro, &errors);
	rules_display_paths(&c.rules, true, NULL);
	int rc = write_reports(o, setdir, 1, &c, &ro, &errors);
	brand_free(&br);
	/* the index shows the after side's findings and the comparison's verdict */
	bresult_from_analysis(&c.side[1], c.verdict, r);
	r->outcome = (int)c.sum.outcome;
	r->headline = xstrdup(c.headline);
	for (size_t i = 0; i < bu.skipped; i++)
		note_skipped(r, skipped[i], &bu);
	free(skipped);
	trend_compute(r, prev);
	finish(r, (ok[1] == 0 || ok[2] == 0) ? BS_FAILED : errors.len ? BS_PARTIAL : BS_OK, rc, &errors);
	buf_free(&errors);
	compare_free(&c);
	ef_free(&filt[0]);
	ef_free(&filt[1]);
}

int setwork_run(const struct bset *s, const char *setdir, const struct bprev *prev, const struct batch_opts *o,
		uint64_t run_id)
{
	/* the worker holds its own set's list (the parent keeps it in the run's list store) */
	struct bfile *own;
	struct bset ls = *s;
	bset_files(s, &own);
	if (own)
		ls.files = own;
	ls.stored = false;
	s = &ls;
	struct bresult r;
	bresult_init(&r);
	uint64_t digest = batch_set_digest(s); /* the input as it is when the worker starts reading */
	size_t ncap = 0;
	for (size_t i = 0; i < s->nfiles; i++)
		ncap += s->files[i].role == BF_CAPTURE;
	if (s->discovery_error) {
		if (o->co.sink.fn) {
			struct buf m;
			buf_init(&m);
			buf_printf(&m, "iopsy batch: set %s: %s", s->name, s->discovery_error);
			o->co.sink.fn(o->co.sink.ctx, DIAG_ERROR, m.data);
			buf_free(&m);
		}
		r.status = BS_FAILED;
		r.error = xstrdup(s->discovery_error);
		trend_compute(&r, prev);
	} else if (ncap == 0) {
		r.status = BS_FAILED;
		r.error = xstrdup("no capture file (esxtop or perfmon CSV) in this set");
		trend_compute(&r, prev);
	} else if (s->paired) {
		paired(s, setdir, prev, o, &r);
	} else {
		single(s, setdir, prev, o, &r);
	}
	int rc = r.status == BS_OK ? 0 : 1;
	r.input_digest = digest;
	if (result_write(setdir, &r, run_id) < 0) {
		if (o->co.sink.fn) {
			struct buf m;
			buf_init(&m);
			buf_printf(&m, "iopsy batch: cannot write the result of set %s: %s", s->dir, strerror(errno));
			o->co.sink.fn(o->co.sink.ctx, DIAG_ERROR, m.data);
			buf_free(&m);
		}
		rc = EXIT_SYSTEM;
	}
	bresult_free(&r);
	if (own)
		bfiles_free(own, ls.nfiles);
	return rc;
}
