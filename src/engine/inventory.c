/* inventory.c — builds the capture inventory for `iopsy counters` (see inventory.h). */
#include "inventory.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define IHIST_MAX_BINS 512

void ihist_init(struct interval_hist *h)
{
	memset(h, 0, sizeof *h);
	h->quantum_ms = 1;
}

static int bin_cmp(const void *a, const void *b)
{
	int64_t x = ((const struct interval_bin *)a)->ms, y = ((const struct interval_bin *)b)->ms;
	return (x > y) - (x < y);
}

static void ihist_coarsen(struct interval_hist *h)
{
	h->quantum_ms *= 10;
	for (size_t i = 0; i < h->n; i++)
		h->bins[i].ms = (h->bins[i].ms + h->quantum_ms / 2) / h->quantum_ms * h->quantum_ms;
	qsort(h->bins, h->n, sizeof *h->bins, bin_cmp);
	size_t o = 0;
	for (size_t i = 0; i < h->n; i++) {
		if (o > 0 && h->bins[o - 1].ms == h->bins[i].ms)
			h->bins[o - 1].count += h->bins[i].count;
		else
			h->bins[o++] = h->bins[i];
	}
	h->n = o;
}

void ihist_add(struct interval_hist *h, int64_t ms)
{
	h->count++;
	h->sum += (double)ms;
	h->sumsq += (double)ms * (double)ms;
	int64_t q = (ms + h->quantum_ms / 2) / h->quantum_ms * h->quantum_ms;
	for (size_t i = 0; i < h->n; i++) {
		if (h->bins[i].ms == q) {
			h->bins[i].count++;
			return;
		}
	}
	if (h->n == IHIST_MAX_BINS) {
		ihist_coarsen(h);
		ihist_add(h, ms);
		h->count--;
		h->sum -= (double)ms;
		h->sumsq -= (double)ms * (double)ms;
		return;
	}
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 16;
		h->bins = xrealloc(h->bins, h->cap * sizeof *h->bins);
	}
	h->bins[h->n].ms = q;
	h->bins[h->n].count = 1;
	h->n++;
}

int64_t ihist_median(const struct interval_hist *h)
{
	if (!h->count)
		return 0;
	struct interval_bin *b = xmalloc(h->n * sizeof *b);
	memcpy(b, h->bins, h->n * sizeof *b);
	qsort(b, h->n, sizeof *b, bin_cmp);
	long half = (h->count + 1) / 2, acc = 0;
	int64_t med = b[h->n - 1].ms;
	for (size_t i = 0; i < h->n; i++) {
		acc += b[i].count;
		if (acc >= half) {
			med = b[i].ms;
			break;
		}
	}
	free(b);
	return med;
}

double ihist_stddev(const struct interval_hist *h)
{
	if (h->count < 2)
		return 0;
	double m = h->sum / (double)h->count;
	double v = h->sumsq / (double)h->count - m * m;
	return v > 0 ? sqrt(v) / 1000.0 : 0;
}

void ihist_free(struct interval_hist *h)
{
	free(h->bins);
	h->bins = NULL;
	h->n = h->cap = 0;
}

/* ---- grouping ---- */

struct colref {
	const char *obj, *inst, *ctr;
};

static int strcmp_null(const char *a, const char *b)
{
	if (!a || !b)
		return (a != NULL) - (b != NULL);
	return strcmp(a, b);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int ctr_cmp(const void *a, const void *b)
{
	return strcmp(((const struct colref *)a)->ctr, ((const struct colref *)b)->ctr);
}

/* A run of neighbouring columns of one object and instance (same pointers). */
struct colrun {
	struct colref key;       /* obj and inst of the run */
	size_t start, n;
};

/* Object and instance names shared by neighbouring columns share one pointer (inventory_build),
 * so most comparisons settle them without a strcmp; equal pointers are equal names. */
static int run_cmp(const void *a, const void *b)
{
	const struct colref *x = &((const struct colrun *)a)->key, *y = &((const struct colrun *)b)->key;
	int c = x->obj == y->obj ? 0 : strcmp(x->obj, y->obj);
	if (!c && x->inst != y->inst)
		c = strcmp_null(x->inst, y->inst);
	return c;
}

/* Sorts refs by object, then instance, then counter (strcmp; columns equal in all three are
 * interchangeable), as one qsort over every column did: the runs of one object and instance are sorted, runs with equal
 * names gathered, and only the counters inside each (object, instance) sorted. A capture has a
 * few thousand runs of 10-30 counters: far fewer comparisons than sorting every column. */
static void sort_refs(struct colref *refs, size_t nr)
{
	if (nr < 2)
		return;
	struct colrun *runs = xmalloc(nr * sizeof *runs);
	size_t nrun = 0;
	for (size_t i = 0; i < nr;) {
		size_t j = i + 1;
		while (j < nr && refs[j].obj == refs[i].obj && refs[j].inst == refs[i].inst)
			j++;
		runs[nrun++] = (struct colrun){.key = refs[i], .start = i, .n = j - i};
		i = j;
	}
	qsort(runs, nrun, sizeof *runs, run_cmp);
	struct colref *out = xmalloc(nr * sizeof *out);
	size_t o = 0;
	for (size_t k = 0; k < nrun;) {
		size_t l = k + 1, g = o;
		while (l < nrun && run_cmp(&runs[l], &runs[k]) == 0)
			l++;
		for (size_t q = k; q < l; q++) {
			memcpy(out + o, refs + runs[q].start, runs[q].n * sizeof *out);
			o += runs[q].n;
		}
		if (o - g > 1)
			qsort(out + g, o - g, sizeof *out, ctr_cmp);
		k = l;
	}
	memcpy(refs, out, nr * sizeof *refs);
	free(out);
	free(runs);
}

int inventory_build(struct inventory *inv, struct input *in, struct matcher *m, struct diag *d)
{
	memset(inv, 0, sizeof *inv);
	arena_init(&inv->arena);
	struct reader *r = in->r;
	struct reader_facts rf;
	reader_facts(r, &rf);
	const struct pdh_header_info *hi = &rf.hi;
	inv->path = in->diag.file;
	inv->format = reader_format(r)->name;
	inv->gzip = in->src.gzip;
	inv->tsv = rf.tsv;
	inv->excel = rf.excel;
	inv->zone = arena_strdup(&inv->arena, hi->zone);
	inv->bias_min = hi->bias_min;
	inv->bias_known = hi->bias_known;
	inv->columns = reader_ncols(r);

	size_t n = reader_ncols(r);
	struct colref *refs = xmalloc((n ? n : 1) * sizeof *refs);
	size_t nr = 0;
	/* hosts: counted with a small list (captures have one or a few hosts) */
	struct {
		const char *h;
		long c;
	} hosts[64];
	size_t nh = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pdh_column *c = reader_column(r, i);
		if (m) {
			int rc = matcher_match(m, c->name, c->name_len, d);
			if (rc < 0) {
				free(refs);
				return rc;
			}
			if (!rc)
				continue;
		}
		refs[nr].obj = c->path.ok ? c->path.object : "";
		refs[nr].inst = c->path.ok ? c->path.instance : NULL;
		refs[nr].ctr = c->path.counter;
		/* captures list the counters of one object (and instance) side by side */
		if (nr && refs[nr].obj != refs[nr - 1].obj && strcmp(refs[nr].obj, refs[nr - 1].obj) == 0)
			refs[nr].obj = refs[nr - 1].obj;
		if (nr && refs[nr].inst && refs[nr - 1].inst && refs[nr].inst != refs[nr - 1].inst &&
		    strcmp(refs[nr].inst, refs[nr - 1].inst) == 0)
			refs[nr].inst = refs[nr - 1].inst;
		nr++;
		if (c->path.host) {
			size_t k;
			for (k = 0; k < nh; k++)
				if (strcmp(hosts[k].h, c->path.host) == 0)
					break;
			if (k < nh)
				hosts[k].c++;
			else if (nh < 64)
				hosts[nh].h = c->path.host, hosts[nh].c = 1, nh++;
		}
	}
	inv->matched = nr;
	if (nh) {
		size_t best = 0;
		for (size_t k = 1; k < nh; k++)
			if (hosts[k].c > hosts[best].c)
				best = k;
		inv->host = arena_strdup(&inv->arena, hosts[best].h);
		inv->hosts = arena_alloc(&inv->arena, nh * sizeof *inv->hosts);
		for (size_t k = 0; k < nh; k++)
			inv->hosts[k] = arena_strdup(&inv->arena, hosts[k].h);
		inv->nhosts = nh;
	}
	sort_refs(refs, nr);
	/* objects */
	size_t no = 0;
	for (size_t i = 0; i < nr; i++)
		if (i == 0 || strcmp(refs[i].obj, refs[i - 1].obj) != 0)
			no++;
	inv->objs = arena_alloc(&inv->arena, (no ? no : 1) * sizeof *inv->objs);
	for (size_t i = 0; i < nr;) {
		size_t j = i;
		while (j < nr && strcmp(refs[j].obj, refs[i].obj) == 0)
			j++;
		struct inv_object *o = &inv->objs[inv->nobjs++];
		o->name = arena_strdup(&inv->arena, refs[i].obj);
		o->ncols = j - i;
		size_t ni = 0;
		for (size_t k = i; k < j; k++)
			if (k == i || strcmp_null(refs[k].inst, refs[k - 1].inst) != 0)
				ni++;
		o->inst = arena_alloc(&inv->arena, ni * sizeof *o->inst);
		/* the distinct counters of the object: the union of its instances' (sorted) lists; an
		 * instance with the very list of the one before it adds nothing, so only the lists that
		 * differ from their predecessor are sorted together */
		const char **ctrs = xmalloc((j - i) * sizeof *ctrs);
		size_t nctrs = 0, pk = i, pl = i;
		for (size_t k = i; k < j;) {
			size_t l = k;
			while (l < j && strcmp_null(refs[l].inst, refs[k].inst) == 0)
				l++;
			struct inv_instance *ins = &o->inst[o->ninst++];
			ins->name = refs[k].inst ? arena_strdup(&inv->arena, refs[k].inst) : NULL;
			ins->ncounters = l - k;
			ins->counters = arena_alloc(&inv->arena, (l - k) * sizeof *ins->counters);
			bool same = l - k == pl - pk;
			for (size_t q = k; q < l && same; q++)
				same = strcmp(refs[q].ctr, refs[pk + (q - k)].ctr) == 0;
			for (size_t q = k; q < l; q++) {
				ins->counters[q - k] = arena_strdup(&inv->arena, refs[q].ctr);
				if (!same)
					ctrs[nctrs++] = refs[q].ctr;
			}
			pk = k;
			pl = l;
			k = l;
		}
		qsort(ctrs, nctrs, sizeof *ctrs, str_cmp);
		for (size_t q = 0; q < nctrs; q++)
			if (q == 0 || strcmp(ctrs[q], ctrs[q - 1]) != 0)
				o->ncounters++;
		free(ctrs);
		i = j;
	}
	free(refs);

	/* rows: no cell is kept */
	bool *want = xcalloc(n ? n : 1, sizeof *want);
	reader_select(r, want);
	free(want);
	struct interval_hist h;
	ihist_init(&h);
	struct pdh_row row;
	int rc;
	int64_t prev = 0;
	inv->start = INT64_MAX;
	inv->end = INT64_MIN;
	while ((rc = reader_next(r, &row)) == 1) {
		if (inv->rows > 0 && !row.discontinuity)
			ihist_add(&h, row.t_ms - prev);
		prev = row.t_ms;
		if (row.t_ms < inv->start)
			inv->start = row.t_ms;
		if (row.t_ms > inv->end)
			inv->end = row.t_ms;
		inv->rows++;
	}
	const struct pdh_stats *st = reader_stats(r);
	inv->skipped_rows = st->skipped_rows;
	inv->backwards = st->backwards;
	inv->outside = st->outside;
	inv->interval_median_s = (double)ihist_median(&h) / 1000.0;
	inv->interval_jitter_s = ihist_stddev(&h);
	if (h.n)
		qsort(h.bins, h.n, sizeof *h.bins, bin_cmp);
	/* top bins by count */
	for (size_t k = 0; k < 5 && k < h.n; k++) {
		size_t best = 0;
		for (size_t q = 1; q < h.n; q++)
			if (h.bins[q].count > h.bins[best].count)
				best = q;
		inv->top[inv->ntop++] = h.bins[best];
		h.bins[best].count = -1;
		if (inv->top[inv->ntop - 1].count < 0)
			inv->ntop--;
	}
	ihist_free(&h);
	return rc < 0 ? rc : 0;
}

void inventory_free(struct inventory *inv)
{
	arena_free(&inv->arena);
	memset(inv, 0, sizeof *inv);
}
