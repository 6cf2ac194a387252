/* batchres.c — the batch run's data: names, results from an analysis, freeing, a set's list read
 * back from the run's list store, and the one trend function (a set against its previous run, see
 * batchres.h). */
#include "batchres.h"
#include "compare.h"

#include "tz.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const bfile_role_names[5] = {"capture", "vmkernel-log", "partitions", "map", "ignored"};

enum bfile_role bfile_role_of(enum an_input in)
{
	switch (in) {
	case AN_IN_VMKLOG: return BF_VMKLOG;
	case AN_IN_PARTITIONS: return BF_PARTITIONS;
	case AN_IN_MAP: return BF_MAP;
	default: return BF_IGNORED;
	}
}
const char *const bstatus_names[4] = {"pending", "ok", "partial", "failed"};
const char *const figure_trend_names[4] = {"new", "unchanged", "down", "up"};

const struct key_metric key_metrics[] = {
	{LAYER_GUEST, M_G_LAT_R}, {LAYER_GUEST, M_G_LAT_W}, {LAYER_GUEST, M_G_CDQL}, {LAYER_GUEST, M_G_XFERS},
	{LAYER_VSCSI, M_VD_LAT_R}, {LAYER_VSCSI, M_VD_LAT_W}, {LAYER_VSCSI, M_CMDS},
	{LAYER_DEVICE, M_DAVG}, {LAYER_DEVICE, M_KAVG}, {LAYER_DEVICE, M_QUED}, {LAYER_DEVICE, M_ACTV},
	{LAYER_DEVICE, M_CMDS}, {LAYER_ADAPTER, M_ACTV},
};
const size_t nkey_metrics = sizeof key_metrics / sizeof key_metrics[0];

int layer_find(const char *name)
{
	for (int i = 0; name && i < LAYER_COUNT; i++)
		if (strcmp(layer_names[i], name) == 0)
			return i;
	return -1;
}

int metric_find(const char *name)
{
	for (int i = 0; name && i < M_COUNT; i++)
		if (strcmp(metric_info[i].name, name) == 0)
			return i;
	return -1;
}

int severity_find(const char *name)
{
	for (int i = 0; name && i <= SEV_CRITICAL; i++)
		if (strcmp(severity_names[i], name) == 0)
			return i;
	return -1;
}

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

/* ---- freeing ---- */

static void free_findings(struct bfinding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].entity);
		free(f[i].host);
		free(f[i].summary);
	}
	free(f);
}

static void free_stats(struct bstat *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(st[i].entity);
		free(st[i].host);
	}
	free(st);
}

void bresult_init(struct bresult *r)
{
	memset(r, 0, sizeof *r);
	r->status = BS_PENDING;
	r->outcome = -1;
}

void bresult_free(struct bresult *r)
{
	free(r->error);
	free(r->verdict);
	free(r->headline);
	free(r->not_assessed);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i].note);
	free(r->notes);
	free_findings(r->f, r->nf);
	free_stats(r->st, r->nst);
	free(r->trend.previous_started);
	free(r->trend.previous_capture);
	free(r->trend.state);
	free_findings(r->trend.resolved, r->trend.nresolved);
	free(r->trend.fig);
	free(r->trend.prev_state);
	free(r->trend.now_state);
	free(r->trend.prev_where);
	free(r->trend.now_where);
	bresult_init(r);
}

void bprev_free(struct bprev *p)
{
	free(p->started);
	free(p->capture);
	free(p->status);
	free(p->worst);
	free(p->outcome);
	free(p->verdict);
	free_findings(p->f, p->nf);
	free_stats(p->st, p->nst);
	memset(p, 0, sizeof *p);
}

void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->nsets; i++) {
		struct bset *s = &b->sets[i];
		free(s->name);
		free(s->dir);
		bfiles_free(s->files, s->files ? s->nfiles : 0);
		for (size_t k = 0; k < s->nmail; k++)
			free(s->mail_to[k]);
		free(s->mail_to);
		free(s->discovery_error);
		free(s->title);
		free(s->customer);
		free(s->prepared_by);
		free(s->logo);
		free(s->error);
		free(s->opts.rules);
		if (s->opts.tz) {
			tz_free(s->opts.tz);
			free(s->opts.tz);
		}
		for (size_t k = 0; k < s->opts.ntexts; k++)
			free(s->opts.texts[k]);
		free(s->opts.texts);
		for (int k = 0; k < 3; k++) {
			for (size_t j = 0; j < s->opts.nfilter[k]; j++)
				free(s->opts.filter[k][j]);
			free(s->opts.filter[k]);
		}
		if (s->res) {
			bresult_free(s->res);
			free(s->res);
		}
	}
	free(b->sets);
	free(b->input_kind);
	if (b->has_store)
		close(b->store_fd);
	buf_free(&b->store_pend);
	memset(b, 0, sizeof *b);
}

/* ---- a set's list in the run's list store ----
 * Per file: u8 role, u8 side, u32 path length, the path, u32 note length (0xFFFFFFFF: none), the
 * note; integers in the machine's order (the store lives as long as the run). */

static void put_u32(struct buf *o, uint32_t v)
{
	buf_add(o, &v, sizeof v);
}

void bfile_encode(const struct bfile *f, struct buf *out)
{
	unsigned char rs[2] = {(unsigned char)f->role, (unsigned char)f->side};
	buf_add(out, rs, 2);
	size_t pl = strlen(f->path);
	put_u32(out, (uint32_t)pl);
	buf_add(out, f->path, pl);
	if (f->note) {
		size_t nl = strlen(f->note);
		put_u32(out, (uint32_t)nl);
		buf_add(out, f->note, nl);
	} else {
		put_u32(out, 0xFFFFFFFFu);
	}
}

bool bfiles_decode(const void *data, size_t len, size_t n, struct bfile *out)
{
	const unsigned char *p = data, *end = p + len;
	memset(out, 0, n * sizeof *out);
	for (size_t k = 0; k < n; k++) {
		uint32_t pl, nl;
		if (end - p < 6)
			return false;
		out[k].role = (enum bfile_role)p[0];
		out[k].side = p[1];
		memcpy(&pl, p + 2, 4);
		p += 6;
		if ((size_t)(end - p) < (size_t)pl + 4)
			return false;
		out[k].path = xstrndup((const char *)p, pl);
		p += pl;
		memcpy(&nl, p, 4);
		p += 4;
		if (nl != 0xFFFFFFFFu) {
			if ((size_t)(end - p) < nl)
				return false;
			out[k].note = xstrndup((const char *)p, nl);
			p += nl;
		}
	}
	return p == end;
}

static _Noreturn void store_broken(const char *why)
{
	static const char head[] = "iopsy: error: the run's list of a set's files cannot be read back: ";
	if (write(2, head, sizeof head - 1) < 0 || write(2, why, strlen(why)) < 0 || write(2, "\n", 1) < 0) {
		/* nothing more we can do */
	}
	_Exit(EXIT_SYSTEM);
}

void bfile_iter_init(struct bfile_iter *it, const struct bset *s)
{
	memset(it, 0, sizeof *it);
	it->s = s;
}

void bfile_iter_free(struct bfile_iter *it)
{
	free(it->raw);
	free(it->path);
	free(it->note);
	memset(it, 0, sizeof *it);
}

/* The next n bytes of the set's list (valid until the next call). */
static const unsigned char *iter_need(struct bfile_iter *it, size_t n)
{
	const struct bset *s = it->s;
	if (it->len - it->at < n) {
		if (it->raw) /* none yet before the first read (memmove's NULL is undefined, even for 0 bytes) */
			memmove(it->raw, it->raw + it->at, it->len - it->at);
		it->len -= it->at;
		it->at = 0;
		if (n > it->cap || !it->raw) {
			it->cap = n > (64u << 10) ? n : (64u << 10);
			it->raw = xrealloc(it->raw, it->cap);
		}
		while (it->len < n) {
			uint64_t left = s->store_len - it->filled;
			size_t want = it->cap - it->len;
			if (want > left)
				want = (size_t)left;
			if (!want)
				store_broken("short");
			ssize_t k = pread(s->store_fd, it->raw + it->len, want, (off_t)(s->store_off + it->filled));
			if (k < 0 && errno == EINTR)
				continue;
			if (k <= 0)
				store_broken(k < 0 ? strerror(errno) : "short");
			it->len += (size_t)k;
			it->filled += (uint64_t)k;
		}
	}
	const unsigned char *p = it->raw + it->at;
	it->at += n;
	return p;
}

static char *iter_str(struct bfile_iter *it, char **dst, size_t *cap)
{
	uint32_t n;
	memcpy(&n, iter_need(it, 4), 4);
	if (n == 0xFFFFFFFFu)
		return NULL;
	if (!*dst || *cap < (size_t)n + 1) {
		*cap = (size_t)n + 1 > 256 ? (size_t)n + 1 : 256;
		*dst = xrealloc(*dst, *cap);
	}
	memcpy(*dst, iter_need(it, n), n);
	(*dst)[n] = '\0';
	return *dst;
}

const struct bfile *bfile_iter_next(struct bfile_iter *it)
{
	const struct bset *s = it->s;
	if (it->k >= s->nfiles)
		return NULL;
	if (!s->stored)
		return &s->files[it->k++];
	const unsigned char *rs = iter_need(it, 2);
	it->cur.role = (enum bfile_role)rs[0];
	it->cur.side = rs[1];
	it->cur.path = iter_str(it, &it->path, &it->path_cap);
	it->cur.note = iter_str(it, &it->note, &it->note_cap);
	if (!it->cur.path)
		store_broken("a file without a path");
	if (++it->k == s->nfiles && (it->filled != s->store_len || it->at != it->len))
		store_broken("long");
	return &it->cur;
}

const struct bfile *bset_files(const struct bset *s, struct bfile **own)
{
	*own = NULL;
	if (!s->stored)
		return s->files;
	struct bfile *f = xcalloc(s->nfiles ? s->nfiles : 1, sizeof *f);
	struct bfile_iter it;
	bfile_iter_init(&it, s);
	for (size_t k = 0; k < s->nfiles; k++) {
		const struct bfile *x = bfile_iter_next(&it);
		f[k] = (struct bfile){.path = xstrdup(x->path), .role = x->role, .side = x->side,
				      .note = x->note ? xstrdup(x->note) : NULL};
	}
	bfile_iter_free(&it);
	*own = f;
	return f;
}

void bfiles_free(struct bfile *f, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		free(f[k].path);
		free(f[k].note);
	}
	free(f);
}

/* ---- results ---- */

const struct bresult *batch_result(const struct batch *b, size_t i, struct bresult *tmp)
{
	const struct bset *s = &b->sets[i];
	if (s->res)
		return s->res;
	bresult_init(tmp);
	if (s->has_record && b->load && b->load(b->load_ctx, s, tmp) == 0)
		return tmp;
	bresult_free(tmp);
	tmp->status = BS_FAILED;
	tmp->system_error = s->system_error;
	tmp->error = xstrdup(s->error ? s->error : s->has_record ? "the set's result can no longer be read"
							       : "the set's worker wrote no result");
	return tmp;
}

bool bset_failed(const struct bset *s)
{
	return s->status == BS_FAILED || s->status == BS_PARTIAL;
}

long batch_sets_failed(const struct batch *b)
{
	long n = 0;
	for (size_t i = 0; i < b->nsets; i++)
		n += bset_failed(&b->sets[i]);
	return n;
}

void bset_take_outcome(struct bset *s, const struct bresult *r)
{
	s->status = r->status;
	s->system_error = r->system_error;
	s->nf = r->nf;
	s->incomplete = r->not_assessed != NULL;
	s->has_outcome = r->outcome >= 0;
	s->outcome = r->outcome;
	s->worst = -1;
	for (size_t i = 0; i < r->nf; i++)
		if ((int)r->f[i].sev > s->worst)
			s->worst = (int)r->f[i].sev;
}

void bresult_from_analysis(const struct analysis *a, const char *verdict, struct bresult *r)
{
	r->verdict = dup_or_null(verdict);
	/* what the captures could not show: a set without a finding is then not "clean" */
	if (!a->cov.complete) {
		struct buf b;
		buf_init(&b);
		for (int l = 0; l < COV_LAYERS; l++) {
			const struct layer_cov *lc = &a->cov.layer[l];
			if (lc->status == COV_ASSESSED)
				continue;
			buf_printf(&b, "%s%s%s%s%s", b.len ? "; " : "", layer_names[l],
				   lc->status == COV_PARTIAL ? " (partly)" : "", lc->why && *lc->why ? ": " : "",
				   lc->why ? lc->why : "");
		}
		r->not_assessed = b.len ? xstrdup(b.data) : NULL;
		buf_free(&b);
	}
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	long warnings = 0;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		warnings += c->warnings;
		if (c->failed || !c->rows)
			continue;
		if (c->start + c->clock_offset_ms < t0)
			t0 = c->start + c->clock_offset_ms;
		if (c->end + c->clock_offset_ms > t1)
			t1 = c->end + c->clock_offset_ms;
	}
	r->warnings = warnings;
	if (t0 != INT64_MAX) {
		r->have_span = true;
		r->span_start = t0;
		r->span_end = t1;
	}
	r->f = xcalloc(a->nf ? a->nf : 1, sizeof *r->f);
	r->nf = a->nf;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		struct bfinding *o = &r->f[i];
		o->kind = f->kind;
		o->sev = f->sev;
		o->layer = f->layer;
		o->entity = xstrdup(f->entity ? f->entity : "");
		o->host = dup_or_null(f->host);
		o->start = f->start;
		o->end = f->end;
		o->summary = xstrdup(f->summary ? f->summary : "");
	}
	/* the key figures of the entities that did real work */
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->outside)
			continue;
		if (!entity_active(e, &a->rules))
			continue;
		for (size_t k = 0; k < nkey_metrics; k++) {
			if (key_metrics[k].layer != e->layer)
				continue;
			const struct qsketch *q = entity_sk(e, key_metrics[k].metric);
			if (!q->n)
				continue;
			r->st = xrealloc(r->st, (r->nst + 1) * sizeof *r->st);
			struct bstat *st = &r->st[r->nst++];
			st->layer = e->layer;
			st->metric = key_metrics[k].metric;
			st->entity = xstrdup(e->name);
			st->host = dup_or_null(e->host);
			st->p50 = qs_quantile(q, 0.5);
			st->p95 = qs_quantile(q, 0.95);
			st->p99 = qs_quantile(q, 0.99);
			st->max = q->max;
			st->mean = qs_mean(q);
			st->samples = (long long)q->n;
		}
	}
}

/* ---- the trend ---- */

static bool same_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "") == 0;
}

bool bfinding_same(const struct bfinding *a, const struct bfinding *b)
{
	return a->kind == b->kind && same_str(a->entity, b->entity) && same_str(a->host, b->host);
}

static bool in_list(const struct bfinding *f, const struct bfinding *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (bfinding_same(f, &v[i]))
			return true;
	return false;
}

static bool is_unchanged(double now, double before)
{
	double d = fabs(now - before);
	return d <= fmax(0.05 * fabs(before), 0.05);
}

static const struct bstat *prev_stat(const struct bprev *p, const struct bstat *cur)
{
	for (size_t i = 0; i < p->nst; i++) {
		const struct bstat *x = &p->st[i];
		if (x->layer == cur->layer && x->metric == cur->metric && same_str(x->entity, cur->entity) &&
		    same_str(x->host, cur->host))
			return x;
	}
	return NULL;
}

/* A set's state as the listing names it: failed, a comparison's outcome, the worst finding's
 * severity (critical, warning), partial, or ok (history.c's set_state, on what the run records). */
static const char *state_of(const char *status, const char *worst, const char *outcome)
{
	if (status && !strcmp(status, "failed"))
		return "failed";
	if (outcome && *outcome)
		return outcome;
	if (worst && (!strcmp(worst, "critical") || !strcmp(worst, "warning")))
		return worst;
	if (status && !strcmp(status, "partial"))
		return "partial";
	return "ok";
}

/* Where IO waits, as the verdict opens: up to its first " (", ":" or ". " ("IO waits in the guest,
 * above the virtual SCSI controller"; "No sustained queueing or latency problem"). */
static char *verdict_where(const char *v)
{
	if (!v || !*v)
		return xstrdup("");
	size_t n = strlen(v);
	const char *cut[] = {" (", ":", ". "};
	for (size_t k = 0; k < sizeof cut / sizeof cut[0]; k++) {
		const char *x = strstr(v, cut[k]);
		if (x && (size_t)(x - v) < n)
			n = (size_t)(x - v);
	}
	if (n && v[n - 1] == '.')
		n--;
	return xstrndup(v, n);
}

/* The set's state and where IO waits, against the previous run's: kept when they changed. */
static void state_change(const struct bresult *r, const struct bprev *p, struct btrend *t)
{
	int worst = -1;
	for (size_t i = 0; i < r->nf; i++)
		if ((int)r->f[i].sev > worst)
			worst = (int)r->f[i].sev;
	const char *now = state_of(bstatus_names[r->status], worst >= 0 ? severity_names[worst] : NULL,
				   r->outcome >= 0 && r->outcome < CO_COUNT ? cmp_outcome_names[r->outcome] : NULL);
	const char *was = state_of(p->status, p->worst, p->outcome);
	if (p->status && strcmp(now, was) != 0) {
		t->prev_state = xstrdup(was);
		t->now_state = xstrdup(now);
	}
	char *wn = verdict_where(r->verdict), *wp = verdict_where(p->verdict);
	if (p->verdict && *p->verdict && r->verdict && *r->verdict && strcmp(wn, wp) != 0) {
		t->prev_where = wp;
		t->now_where = wn;
		return;
	}
	free(wn);
	free(wp);
}

void trend_compute(struct bresult *r, const struct bprev *p)
{
	struct btrend *t = &r->trend;
	free(t->previous_started);
	free(t->previous_capture);
	free(t->state);
	free_findings(t->resolved, t->nresolved);
	free(t->fig);
	free(t->prev_state);
	free(t->now_state);
	free(t->prev_where);
	free(t->now_where);
	memset(t, 0, sizeof *t);
	bool prev = p && p->have;
	t->have_previous = prev;
	t->unavailable = !prev && p && p->unavailable;
	if (prev) {
		t->previous_started = xstrdup(p->started ? p->started : "");
		t->previous_capture = xstrdup(p->capture ? p->capture : "");
		state_change(r, p, t);
	}
	/* findings: new / still present (distinct), then those of last run not seen now */
	t->state = xcalloc(r->nf ? r->nf : 1, 1);
	for (size_t i = 0; i < r->nf; i++) {
		bool still = prev && in_list(&r->f[i], p->f, p->nf);
		t->state[i] = !prev ? TS_FIRST_RUN : still ? TS_STILL : TS_NEW;
		if (prev && !in_list(&r->f[i], r->f, i))
			still ? t->n_still++ : t->n_new++;
	}
	if (!prev && !t->unavailable)
		t->n_new = (long)r->nf; /* a first run: everything is new; unavailable: nothing is known */
	for (size_t i = 0; prev && i < p->nf; i++) {
		if (in_list(&p->f[i], p->f, i) || in_list(&p->f[i], r->f, r->nf))
			continue;
		t->resolved = xrealloc(t->resolved, (t->nresolved + 1) * sizeof *t->resolved);
		struct bfinding *o = &t->resolved[t->nresolved++];
		*o = p->f[i];
		o->entity = xstrdup(p->f[i].entity ? p->f[i].entity : "");
		o->host = dup_or_null(p->f[i].host);
		o->summary = xstrdup(p->f[i].summary ? p->f[i].summary : "");
	}
	t->n_resolved = (long)t->nresolved;
	/* key figures: p95 now against last run's */
	t->fig = xcalloc(r->nst ? r->nst : 1, sizeof *t->fig);
	t->nfig = r->nst;
	for (size_t i = 0; i < r->nst; i++) {
		struct btrend_figure *g = &t->fig[i];
		g->stat = i;
		g->now = r->st[i].p95;
		const struct bstat *x = prev ? prev_stat(p, &r->st[i]) : NULL;
		g->have_before = x && !isnan(x->p95);
		g->before = g->have_before ? x->p95 : NAN;
		g->change_pct = g->have_before && g->before != 0 ? 100 * (g->now - g->before) / g->before : NAN;
		bool unchanged = g->have_before && is_unchanged(g->now, g->before);
		g->trend = !g->have_before ? FT_NEW : unchanged ? FT_UNCHANGED : g->now < g->before ? FT_DOWN : FT_UP;
		if (unchanged)
			t->nunchanged++;
	}
}
