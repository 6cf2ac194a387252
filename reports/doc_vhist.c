/* doc_vhist.c — the document's virtual disk histograms (DS_HIST, see doc.h): vscsiStats read beside
 * the captures (struct analysis.hist, src/engine/vhist.h), each disk's sentence and a table per
 * histogram; in a comparison what moved per disk (struct cmp_vdisk) and the tables of both sides.
 * The HTML and PDF draw each table as a chart (reports/chart_vhist.c), the other writers the table. */
#include "doc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vhist.h"

static bool same_buckets(const struct vh_hist *a, const struct vh_hist *b)
{
	if (a->nb != b->nb)
		return false;
	for (int i = 0; i < a->nb; i++)
		if (a->lim[i] != b->lim[i] || a->gt[i] != b->gt[i])
			return false;
	return true;
}

static double total(const struct vh_hist *h)
{
	double t = 0;
	for (int i = 0; i < h->nb; i++)
		t += h->n[i];
	return t;
}

/* A histogram's table: one side (h1 NULL), or before h0 and after h1 on the same buckets. The
 * caption names the disk (from the captures: raw, the renderers escape it). */
static void hist_table(struct doc *d, const char *name, enum vh_kind k, const char *side, const struct vh_hist *h0,
		       const struct vh_hist *h1)
{
	static const char *const one[] = {"bucket", "IOs", "share %", NULL};
	static const char *const two[] = {"bucket", "IOs before", "share % before", "IOs after", "share % after", NULL};
	struct buf c;
	buf_init(&c);
	buf_printf(&c, "%s: %s", name, vh_kind_titles[k]);
	if (k == VH_LAT)
		buf_adds(&c, " (ms)");
	else if (k == VH_LEN)
		buf_adds(&c, " (bytes)");
	if (side)
		buf_printf(&c, ", %s", side);
	struct doc_block *t = doc_table(d, DS_HIST, c.data, h1 ? two : one);
	t->role = ROLE_HIST;
	double t0 = total(h0), t1 = h1 ? total(h1) : 0;
	for (int b = 0; b < h0->nb; b++) {
		doc_row(t);
		buf_reset(&c);
		vhist_bucket_label(h0, k, b, &c);
		doc_cell_text(t, c.data);
		doc_cell_num(t, h0->n[b]);
		doc_cell_num(t, t0 > 0 ? 100 * h0->n[b] / t0 : 0);
		if (h1) {
			doc_cell_num(t, h1->n[b]);
			doc_cell_num(t, t1 > 0 ? 100 * h1->n[b] / t1 : 0);
		}
	}
	buf_free(&c);
}

/* The IOs a disk's histograms counted (its outstanding IOs', else its latency's, else its sizes'). */
static double ios(const struct vh_disk *x)
{
	for (int k = 0; k < VH_NKIND; k++)
		if (x && x->h[k].count > 0)
			return x->h[k].count;
	return 0;
}

/* The order of n items busiest first (by io(i)), ties in their order. */
static size_t *busiest(size_t n, double (*io)(const void *, size_t), const void *ctx)
{
	size_t *o = xmalloc((n ? n : 1) * sizeof *o);
	for (size_t i = 0; i < n; i++)
		o[i] = i;
	for (size_t i = 1; i < n; i++)
		for (size_t k = i; k > 0 && io(ctx, o[k]) > io(ctx, o[k - 1]); k--) {
			size_t t = o[k];
			o[k] = o[k - 1];
			o[k - 1] = t;
		}
	return o;
}

static double set_io(const void *ctx, size_t i)
{
	return ios(&((const struct vh_set *)ctx)->d[i]);
}

static double pair_io(const void *ctx, size_t i)
{
	const struct cmp_vdisk *v = &((const struct compare *)ctx)->vd[i];
	return ios(v->d[0]) + ios(v->d[1]);
}

void doc_vhist_analysis(const struct analysis *a, struct doc *d)
{
	const struct vh_set *s = &a->hist;
	if (!s->n)
		return;
	doc_note(d, DS_HIST, "IOs as the VM issued them, from vscsiStats; no time axis");
	struct buf t;
	buf_init(&t);
	size_t *o = busiest(s->n, set_io, s);
	for (size_t i = 0; i < s->n; i++) {
		const struct vh_disk *x = &s->d[o[i]];
		buf_reset(&t);
		vhist_disk_name(x, &t);
		buf_adds(&t, ": ");
		vhist_sentence(x, &t);
		buf_adds(&t, ".");
		doc_para(d, DS_HIST, "%s", t.data);
		buf_reset(&t);
		vhist_disk_name(x, &t);
		for (int k = 0; k < VH_NKIND; k++)
			if (x->h[k].count > 0)
				hist_table(d, t.data, (enum vh_kind)k, NULL, &x->h[k], NULL);
	}
	free(o);
	buf_free(&t);
}

void doc_vhist_compare(const struct compare *c, struct doc *d)
{
	if (!c->nvd)
		return;
	doc_note(d, DS_HIST, "IOs as the VM issued them, from vscsiStats, before and after; no time axis");
	if (c->vd_note)
		doc_para(d, DS_HIST, "%s.", c->vd_note);
	size_t *o = busiest(c->nvd, pair_io, c);
	struct buf n;
	buf_init(&n);
	for (size_t i = 0; i < c->nvd; i++) {
		const struct cmp_vdisk *v = &c->vd[o[i]];
		doc_para(d, DS_HIST, "%s.", v->text);
		buf_reset(&n);
		cmp_vdisk_name(v, &n);
		for (int k = 0; k < VH_NKIND; k++) {
			const struct vh_hist *h0 = v->d[0] ? &v->d[0]->h[k] : NULL,
					     *h1 = v->d[1] ? &v->d[1]->h[k] : NULL;
			bool b0 = h0 && h0->count > 0, b1 = h1 && h1->count > 0;
			if (b0 && b1 && same_buckets(h0, h1)) {
				hist_table(d, n.data, (enum vh_kind)k, NULL, h0, h1);
				continue;
			}
			if (b0)
				hist_table(d, n.data, (enum vh_kind)k, "before", h0, NULL);
			if (b1)
				hist_table(d, n.data, (enum vh_kind)k, "after", h1, NULL);
		}
	}
	free(o);
	buf_free(&n);
}
