/* result.c — the set result record: encoding, decoding with validation, atomic write and read
 * (see result.h for the layout). */
#include "result.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

static const char magic[8] = {'I', 'O', 'P', 'S', 'Y', 'R', 'E', 'C'};
#define HEADER_BYTES 36u
#define NO_STRING 0xFFFFFFFFu

/* ---- writing ---- */

static void put_u(struct buf *b, uint64_t v, int bytes)
{
	unsigned char x[8];
	for (int i = 0; i < bytes; i++)
		x[i] = (unsigned char)(v >> (8 * i));
	buf_add(b, x, (size_t)bytes);
}

static void put_f64(struct buf *b, double v)
{
	uint64_t u;
	memcpy(&u, &v, sizeof u);
	put_u(b, u, 8);
}

static void put_str(struct buf *b, const char *s)
{
	if (!s) {
		put_u(b, NO_STRING, 4);
		return;
	}
	size_t n = strlen(s);
	put_u(b, n, 4);
	buf_add(b, s, n);
}

static void put_finding(struct buf *b, const struct bfinding *f)
{
	put_u(b, (uint64_t)f->kind, 2);
	put_u(b, (uint64_t)f->sev, 1);
	put_u(b, (uint64_t)f->layer, 1);
	put_str(b, f->entity);
	put_str(b, f->host);
	put_u(b, (uint64_t)f->start, 8);
	put_u(b, (uint64_t)f->end, 8);
	put_str(b, f->summary);
}

void result_encode(const struct bresult *r, uint64_t run_id, struct buf *out)
{
	struct buf p;
	buf_init(&p);
	put_u(&p, (uint64_t)r->status, 1);
	put_u(&p, r->system_error, 1);
	put_str(&p, r->error);
	put_str(&p, r->verdict);
	put_u(&p, (uint64_t)(r->outcome + 1), 1);
	put_str(&p, r->headline);
	put_str(&p, r->not_assessed);
	put_u(&p, (uint64_t)(int64_t)r->warnings, 8);
	put_u(&p, r->have_span, 1);
	put_u(&p, (uint64_t)r->span_start, 8);
	put_u(&p, (uint64_t)r->span_end, 8);
	put_u(&p, r->nnotes, 4);
	for (size_t i = 0; i < r->nnotes; i++) {
		put_u(&p, r->notes[i].file, 4);
		put_str(&p, r->notes[i].note);
	}
	put_u(&p, r->nf, 4);
	for (size_t i = 0; i < r->nf; i++)
		put_finding(&p, &r->f[i]);
	put_u(&p, r->nst, 4);
	for (size_t i = 0; i < r->nst; i++) {
		const struct bstat *s = &r->st[i];
		put_u(&p, (uint64_t)s->layer, 1);
		put_u(&p, (uint64_t)s->metric, 2);
		put_str(&p, s->entity);
		put_str(&p, s->host);
		put_f64(&p, s->p50);
		put_f64(&p, s->p95);
		put_f64(&p, s->p99);
		put_f64(&p, s->max);
		put_f64(&p, s->mean);
		put_u(&p, (uint64_t)s->samples, 8);
	}
	const struct btrend *t = &r->trend;
	put_u(&p, t->have_previous, 1);
	put_u(&p, t->unavailable, 1);
	put_str(&p, t->previous_started);
	put_str(&p, t->previous_capture);
	put_u(&p, (uint64_t)(int64_t)t->n_new, 8);
	put_u(&p, (uint64_t)(int64_t)t->n_still, 8);
	put_u(&p, (uint64_t)(int64_t)t->n_resolved, 8);
	put_u(&p, t->nunchanged, 8);
	for (size_t i = 0; i < r->nf; i++)
		put_u(&p, t->state ? t->state[i] : TS_FIRST_RUN, 1);
	put_u(&p, t->nresolved, 4);
	for (size_t i = 0; i < t->nresolved; i++)
		put_finding(&p, &t->resolved[i]);
	put_u(&p, t->nfig, 4);
	for (size_t i = 0; i < t->nfig; i++) {
		const struct btrend_figure *g = &t->fig[i];
		put_u(&p, g->stat, 4);
		put_u(&p, g->have_before, 1);
		put_u(&p, (uint64_t)g->trend, 1);
		put_f64(&p, g->now);
		put_f64(&p, g->before);
		put_f64(&p, g->change_pct);
	}
	put_str(&p, t->prev_state);
	put_str(&p, t->now_state);
	put_str(&p, t->prev_where);
	put_str(&p, t->now_where);
	put_u(&p, r->input_digest, 8);
	buf_add(out, magic, sizeof magic);
	put_u(out, RESULT_VERSION, 2);
	put_u(out, 0, 2);
	put_u(out, 0, 4);
	put_u(out, run_id, 8);
	put_u(out, p.len, 8);
	put_u(out, crc32(0L, (const Bytef *)p.data, (uInt)p.len), 4);
	buf_add(out, p.data, p.len);
	buf_free(&p);
}

/* ---- reading ---- */

struct rd {
	const unsigned char *p;
	size_t n, off;
	const char *why;             /* first problem, NULL while fine */
};

static bool need(struct rd *r, size_t k)
{
	if (r->why)
		return false;
	if (r->n - r->off < k) {
		r->why = "the record is cut short";
		return false;
	}
	return true;
}

static uint64_t get_u(struct rd *r, int bytes)
{
	if (!need(r, (size_t)bytes))
		return 0;
	uint64_t v = 0;
	for (int i = 0; i < bytes; i++)
		v |= (uint64_t)r->p[r->off + (size_t)i] << (8 * i);
	r->off += (size_t)bytes;
	return v;
}

static double get_f64(struct rd *r)
{
	uint64_t u = get_u(r, 8);
	double v;
	memcpy(&v, &u, sizeof v);
	return v;
}

static int64_t get_i64(struct rd *r)
{
	return (int64_t)get_u(r, 8);
}

/* An enum below limit, else the record is refused. */
static unsigned get_enum(struct rd *r, int bytes, unsigned limit, const char *what)
{
	uint64_t v = get_u(r, bytes);
	if (!r->why && v >= limit) {
		r->why = what;
		return 0;
	}
	return (unsigned)v;
}

/* A count of items each taking at least min_bytes: bounded by what is left. */
static size_t get_count(struct rd *r, size_t min_bytes)
{
	uint64_t v = get_u(r, 4);
	if (!r->why && v > (r->n - r->off) / (min_bytes ? min_bytes : 1)) {
		r->why = "a count is larger than the record";
		return 0;
	}
	return r->why ? 0 : (size_t)v;
}

static char *get_str(struct rd *r, bool nullable)
{
	uint64_t len = get_u(r, 4);
	if (r->why)
		return NULL;
	if (len == NO_STRING) {
		if (!nullable)
			r->why = "a required text is missing";
		return NULL;
	}
	if (!need(r, (size_t)len))
		return NULL;
	if (memchr(r->p + r->off, '\0', (size_t)len)) {
		r->why = "a text holds a NUL byte";
		return NULL;
	}
	char *s = xstrndup((const char *)r->p + r->off, (size_t)len);
	r->off += (size_t)len;
	return s;
}

#define FINDING_MIN_BYTES (2 + 1 + 1 + 4 + 4 + 8 + 8 + 4)

static void get_finding(struct rd *r, struct bfinding *f)
{
	f->kind = (enum kind)get_enum(r, 2, K_COUNT, "a finding kind is not in the kind table");
	f->sev = (enum severity)get_enum(r, 1, SEV_CRITICAL + 1, "a severity is out of range");
	f->layer = (enum layer)get_enum(r, 1, LAYER_COUNT, "a layer is out of range");
	f->entity = get_str(r, false);
	f->host = get_str(r, true);
	f->start = get_i64(r);
	f->end = get_i64(r);
	f->summary = get_str(r, false);
}

static void decode_payload(struct rd *r, size_t nfiles, struct bresult *o)
{
	o->status = (enum bstatus)get_enum(r, 1, BS_FAILED + 1, "the status is out of range");
	o->system_error = get_enum(r, 1, 2, "a flag is out of range") != 0;
	o->error = get_str(r, true);
	o->verdict = get_str(r, true);
	o->outcome = (int)get_enum(r, 1, CO_COUNT + 1, "the outcome is out of range") - 1;
	o->headline = get_str(r, true);
	o->not_assessed = get_str(r, true);
	o->warnings = (long)get_i64(r);
	o->have_span = get_enum(r, 1, 2, "a flag is out of range") != 0;
	o->span_start = get_i64(r);
	o->span_end = get_i64(r);
	o->nnotes = get_count(r, 8);
	o->notes = xcalloc(o->nnotes ? o->nnotes : 1, sizeof *o->notes);
	for (size_t i = 0; i < o->nnotes && !r->why; i++) {
		o->notes[i].file = (size_t)get_enum(r, 4, (unsigned)(nfiles > 0xFFFFFFFEu ? 0xFFFFFFFEu : nfiles),
						    "a note names a file the set does not have");
		o->notes[i].note = get_str(r, false);
	}
	o->nf = get_count(r, FINDING_MIN_BYTES);
	o->f = xcalloc(o->nf ? o->nf : 1, sizeof *o->f);
	for (size_t i = 0; i < o->nf && !r->why; i++)
		get_finding(r, &o->f[i]);
	o->nst = get_count(r, 1 + 2 + 4 + 4 + 6 * 8);
	o->st = xcalloc(o->nst ? o->nst : 1, sizeof *o->st);
	for (size_t i = 0; i < o->nst && !r->why; i++) {
		struct bstat *s = &o->st[i];
		s->layer = (enum layer)get_enum(r, 1, LAYER_COUNT, "a layer is out of range");
		s->metric = (enum metric)get_enum(r, 2, M_COUNT, "a metric is out of range");
		s->entity = get_str(r, false);
		s->host = get_str(r, true);
		s->p50 = get_f64(r);
		s->p95 = get_f64(r);
		s->p99 = get_f64(r);
		s->max = get_f64(r);
		s->mean = get_f64(r);
		s->samples = (long long)get_i64(r);
	}
	struct btrend *t = &o->trend;
	t->have_previous = get_enum(r, 1, 2, "a flag is out of range") != 0;
	t->unavailable = get_enum(r, 1, 2, "a flag is out of range") != 0;
	t->previous_started = get_str(r, true);
	t->previous_capture = get_str(r, true);
	t->n_new = (long)get_i64(r);
	t->n_still = (long)get_i64(r);
	t->n_resolved = (long)get_i64(r);
	t->nunchanged = (size_t)get_u(r, 8);
	t->state = xcalloc(o->nf ? o->nf : 1, 1);
	for (size_t i = 0; i < o->nf && !r->why; i++)
		t->state[i] = (unsigned char)get_enum(r, 1, TS_STILL + 1, "a trend state is out of range");
	t->nresolved = get_count(r, FINDING_MIN_BYTES);
	t->resolved = xcalloc(t->nresolved ? t->nresolved : 1, sizeof *t->resolved);
	for (size_t i = 0; i < t->nresolved && !r->why; i++)
		get_finding(r, &t->resolved[i]);
	t->nfig = get_count(r, 4 + 1 + 1 + 3 * 8);
	t->fig = xcalloc(t->nfig ? t->nfig : 1, sizeof *t->fig);
	for (size_t i = 0; i < t->nfig && !r->why; i++) {
		struct btrend_figure *g = &t->fig[i];
		g->stat = get_enum(r, 4, (unsigned)o->nst, "a figure trend names a figure the record does not have");
		g->have_before = get_enum(r, 1, 2, "a flag is out of range") != 0;
		g->trend = (enum figure_trend)get_enum(r, 1, FT_UP + 1, "a figure trend is out of range");
		g->now = get_f64(r);
		g->before = get_f64(r);
		g->change_pct = get_f64(r);
	}
	t->prev_state = get_str(r, true);
	t->now_state = get_str(r, true);
	t->prev_where = get_str(r, true);
	t->now_where = get_str(r, true);
	o->input_digest = get_u(r, 8);
	if (!r->why && r->off != r->n)
		r->why = "the record has bytes after its end";
	if (!r->why && (t->nunchanged > t->nfig || t->n_new < 0 || t->n_still < 0 || t->n_resolved < 0))
		r->why = "the trend counts are inconsistent";
}

int result_decode(const void *data, size_t n, uint64_t run_id, size_t nfiles, struct bresult *o, const char **why)
{
	bresult_init(o);
	struct rd r = {.p = data, .n = n};
	if (n < HEADER_BYTES || memcmp(data, magic, sizeof magic) != 0) {
		*why = "not a result record";
		return ERR_FORMAT;
	}
	r.off = sizeof magic;
	uint64_t version = get_u(&r, 2);
	uint64_t reserved = get_u(&r, 2) | get_u(&r, 4);
	uint64_t id = get_u(&r, 8);
	uint64_t len = get_u(&r, 8);
	uint32_t crc = (uint32_t)get_u(&r, 4);
	if (version != RESULT_VERSION || reserved) {
		*why = "a result record of another version";
		return ERR_FORMAT;
	}
	if (id != run_id) {
		*why = "a result record of another run";
		return ERR_FORMAT;
	}
	if (len != n - HEADER_BYTES) {
		*why = len > n - HEADER_BYTES ? "the record is cut short" : "the record has bytes after its end";
		return ERR_FORMAT;
	}
	if (crc32(0L, (const Bytef *)data + HEADER_BYTES, (uInt)len) != crc) {
		*why = "the record fails its checksum";
		return ERR_FORMAT;
	}
	struct rd pr = {.p = (const unsigned char *)data + HEADER_BYTES, .n = (size_t)len};
	decode_payload(&pr, nfiles, o);
	if (pr.why) {
		*why = pr.why;
		bresult_free(o);
		return ERR_FORMAT;
	}
	return 0;
}

static char *record_path(const char *setdir)
{
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/%s", setdir, RESULT_FILE);
	return p.data;
}

int result_write(const char *setdir, const struct bresult *r, uint64_t run_id)
{
	struct buf b;
	buf_init(&b);
	result_encode(r, run_id, &b);
	char *path = record_path(setdir);
	const char *what;
	int rc = afile_write_all(path, b.data, b.len, &what);
	free(path);
	buf_free(&b);
	return rc;
}

int result_read(const char *setdir, uint64_t run_id, size_t nfiles, struct bresult *r, const char **why)
{
	bresult_init(r);
	char *path = record_path(setdir);
	FILE *fp = fopen(path, "rb");
	free(path);
	if (!fp) {
		*why = "no result record";
		return ERR_IO;
	}
	struct buf b;
	buf_init(&b);
	char chunk[65536];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0 && b.len <= RESULT_MAX_BYTES)
		buf_add(&b, chunk, k);
	int bad = ferror(fp);
	fclose(fp);
	int rc;
	if (bad) {
		*why = "the result record cannot be read";
		rc = ERR_IO;
	} else if (b.len > RESULT_MAX_BYTES) {
		*why = "the result record is larger than any set makes";
		rc = ERR_FORMAT;
	} else {
		rc = result_decode(b.data ? b.data : "", b.len, run_id, nfiles, r, why);
	}
	buf_free(&b);
	return rc;
}
