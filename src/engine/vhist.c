/* vhist.c — what a virtual disk's histograms show (see vhist.h). The columns follow the reader's
 * histogram naming (parsers/fmt_vscsistats.c): object "vscsiStats KIND", instance the disk
 * ("worldGroupID:scsiC:T"), counters min, max, mean, count and one per bucket, "<= L" (the IOs above
 * the previous limit up to L) and the overflow "> L". Snapshots (rows) are summed. */
#include "vhist.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const vh_kind_names[VH_NKIND] = {"outstandingIOs", "latency", "ioLength"};
const char *const vh_kind_titles[VH_NKIND] = {"outstanding IOs when an IO was issued", "latency of IOs", "IO lengths"};
const char *const vh_kind_units[VH_NKIND] = {"IOs", "us", "bytes"};

/* Where a column goes while the file is read. */
struct vh_cols {
	size_t disk;
	int kind;
	size_t col[VH_MAX_B], ccount, cmax;
};

static size_t vh_get(struct vh_set *s, size_t first, const char *disk, const char *path)
{
	for (size_t i = first; i < s->n; i++)
		if (strcmp(s->d[i].disk, disk) == 0)
			return i;
	s->d = xrealloc(s->d, (s->n + 1) * sizeof *s->d);
	struct vh_disk *x = &s->d[s->n];
	memset(x, 0, sizeof *x);
	snprintf(x->disk, sizeof x->disk, "%s", disk);
	char *end;
	x->gid = strtol(disk, &end, 10);
	if (end == disk || *end != ':')
		x->gid = -1;
	const char *t = strchr(disk, ':');
	snprintf(x->target, sizeof x->target, "%s", t ? t + 1 : disk);
	x->path = path;
	return s->n++;
}

double vhist_above(const struct vh_hist *s, double lo)
{
	double k = 0, t = 0;
	for (int b = 0; b < s->nb; b++) {
		t += s->n[b];
		if (s->gt[b] ? s->lim[b] >= lo : b > 0 && s->lim[b - 1] >= lo)
			k += s->n[b];
	}
	return t > 0 ? k / t : 0;
}

double vhist_in_bucket(const struct vh_hist *h, double lim, double *lo)
{
	double at = 0, t = 0;
	*lo = 0;
	for (int k = 0; k < h->nb; k++) {
		t += h->n[k];
		if (!h->gt[k] && h->lim[k] == lim && k > 0) {
			at = h->n[k];
			*lo = h->lim[k - 1] + 1;
		}
	}
	return t > 0 ? at / t : 0;
}

int vhist_cap_state(const struct vh_hist *o)
{
	double lo;
	if (o->count <= 0)
		return -1;
	if (vhist_above(o, VH_LSI_PER_DISK) > 0)
		return 1;
	return vhist_in_bucket(o, VH_LSI_PER_DISK, &lo) >= 0.5 ? 0 : -1;
}

bool vhist_pvscsi_pile(const struct vh_hist *o)
{
	double lo;
	return o->count > 0 && vhist_above(o, VH_PVSCSI_PER_DISK) == 0 &&
	       vhist_in_bucket(o, VH_PVSCSI_PER_DISK, &lo) >= 0.5;
}

void vhist_bucket_label(const struct vh_hist *h, enum vh_kind k, int b, struct buf *out)
{
	double v = h->lim[b];
	buf_adds(out, h->gt[b] ? "> " : "<= ");
	if (k == VH_LAT)
		buf_printf(out, "%g ms", v / 1000);
	else if (k == VH_LEN && v >= 1024 && (long long)v % 1024 == 0)
		buf_printf(out, "%g KiB", v / 1024);
	else
		buf_printf(out, "%g", v);
}

void vhist_disk_name(const struct vh_disk *d, struct buf *out)
{
	if (d->vm[0])
		buf_printf(out, "VM %s %s", d->vm, d->target);
	else if (d->gid >= 0)
		buf_printf(out, "worldGroupID %ld %s", d->gid, d->target);
	else
		buf_adds(out, d->disk);
}

void vhist_sentence(const struct vh_disk *d, struct buf *b)
{
	const struct vh_hist *o = &d->h[VH_OIO], *l = &d->h[VH_LAT], *z = &d->h[VH_LEN];
	buf_printf(b, "virtual disk %s (worldGroupID:scsiC:T)", d->disk);
	if (o->count > 0) {
		double lo, at = vhist_in_bucket(o, VH_LSI_PER_DISK, &lo), above = vhist_above(o, VH_LSI_PER_DISK);
		const int cap = VH_LSI_PER_DISK;
		buf_printf(b,
			   "; outstanding IOs when an IO was issued: %.0f IOs, max %.0f, %.1f%% with %.0f-%d in "
			   "flight (the bucket of the LSI Logic per-disk limit, %d), %.1f%% with more than %d",
			   o->count, o->max, 100 * at, lo, cap, cap, 100 * above, cap);
		int st = vhist_cap_state(o);
		if (st == 1)
			buf_printf(b,
				   " (so this disk's controller let more than %d through: "
				   "not capped at the LSI limit)",
				   cap);
		else if (st == 0)
			buf_printf(b, " (piled at %d with none above: what the LSI Logic per-disk cap does)", cap);
		if (vhist_pvscsi_pile(o))
			buf_printf(b,
				   "; piled at %d with none above: what the PVSCSI per-disk default does (raised "
				   "with MaxQueueDepth)",
				   VH_PVSCSI_PER_DISK);
	}
	if (l->count > 0)
		buf_printf(b,
			   "; latency: %.0f IOs, max %.1f ms, above 5 ms %.1f%%, above 15 ms %.1f%%, above 30 ms "
			   "%.1f%%, above 50 ms %.1f%%",
			   l->count, l->max / 1000, 100 * vhist_above(l, 5000), 100 * vhist_above(l, 15000),
			   100 * vhist_above(l, 30000), 100 * vhist_above(l, 50000));
	if (z->count > 0) {
		double big = vhist_above(z, 65536), small = 1 - vhist_above(z, 8192);
		buf_printf(b, "; IO sizes: %.1f%% of %.0f IOs 4 KiB or less, %.1f%% above 64 KiB",
			   100 * (1 - vhist_above(z, 4096)), z->count, 100 * big);
		if (big >= 0.5)
			buf_adds(b,
				 " (mostly large IOs, as a backup or a scan issues them: latency grows with the size, "
				 "the rules judge IOs above 64 KiB by their own band)");
		else if (small >= 0.8)
			buf_adds(b, " (mostly IOs of 8 KiB or less, as OLTP issues them)");
	}
	buf_printf(b, ". A histogram has no time axis: it cannot show when these IOs came, whether the slow "
		      "ones came together, or the esxtop/perfmon time they match");
}

static int vh_kind_of(const char *k)
{
	for (int i = 0; i < VH_NKIND; i++)
		if (strcmp(k, vh_kind_names[i]) == 0)
			return i;
	return -1;
}

/* The columns of the histograms iopsy reads, by disk and kind. */
static struct vh_cols *vh_layout(struct vh_set *s, size_t first, struct reader *r, const char *path, size_t *nc)
{
	struct vh_cols *c = NULL;
	*nc = 0;
	for (size_t i = 0; i < reader_ncols(r); i++) {
		const struct pdh_path *p = &reader_column(r, i)->path;
		int kind;
		if (!p->ok || !p->instance || strncmp(p->object, "vscsiStats ", 11) != 0 ||
		    (kind = vh_kind_of(p->object + 11)) < 0)
			continue;
		size_t d = vh_get(s, first, p->instance, path), k = 0;
		while (k < *nc && !(c[k].disk == d && c[k].kind == kind))
			k++;
		if (k == *nc) {
			c = xrealloc(c, (*nc + 1) * sizeof *c);
			c[k] = (struct vh_cols){.disk = d, .kind = kind, .ccount = (size_t)-1, .cmax = (size_t)-1};
			(*nc)++;
		}
		struct vh_hist *h = &s->d[d].h[kind];
		const char *n = p->counter;
		if (strcmp(n, "count") == 0)
			c[k].ccount = i;
		else if (strcmp(n, "max") == 0)
			c[k].cmax = i;
		else if ((strncmp(n, "<= ", 3) == 0 || strncmp(n, "> ", 2) == 0) && h->nb < VH_MAX_B) {
			h->gt[h->nb] = n[0] == '>';
			h->lim[h->nb] = strtod(n + (n[0] == '>' ? 2 : 3), NULL);
			c[k].col[h->nb++] = i;
		}
	}
	return c;
}

int vhist_load(const char *path, const struct common_opts *co, struct vh_set *out)
{
	struct common_opts q = *co;
	q.sink = (struct diag_sink){0}; /* its warnings were given when it was read as a capture */
	q.progress = NULL;
	struct input in;
	int rc = input_open(&in, path, &q);
	if (rc < 0)
		return rc;
	size_t first = out->n, nc;
	struct vh_cols *c = vh_layout(out, first, in.r, path, &nc);
	struct pdh_row row;
	double v;
	while (reader_next(in.r, &row) == 1)
		for (size_t i = 0; i < nc; i++) {
			struct vh_hist *x = &out->d[c[i].disk].h[c[i].kind];
			for (int b = 0; b < x->nb; b++)
				if (reader_value(in.r, c[i].col[b], &v))
					x->n[b] += v;
			if (c[i].ccount != (size_t)-1 && reader_value(in.r, c[i].ccount, &v))
				x->count += v;
			if (c[i].cmax != (size_t)-1 && reader_value(in.r, c[i].cmax, &v) && v > x->max)
				x->max = v;
		}
	free(c);
	input_close(&in);
	/* a disk with no histogram iopsy reads (only seek distances, interarrival times) is left out */
	size_t k = first;
	for (size_t i = first; i < out->n; i++) {
		bool any = false;
		for (int h = 0; h < VH_NKIND; h++)
			any |= out->d[i].h[h].count > 0;
		if (any)
			out->d[k++] = out->d[i];
	}
	out->n = k;
	return (int)(k - first);
}

void vhist_free(struct vh_set *s)
{
	free(s->d);
	s->d = NULL;
	s->n = 0;
}

int vhist_read(const char *path, const struct common_opts *co, void (*say)(void *ctx, long gid, const char *text),
	       void *ctx)
{
	if (strcmp(path, "-") == 0) {
		say(ctx, -1,
		    "histograms read from stdin are not assessed (stdin is read once, as a capture): give the "
		    "file's name");
		return 0;
	}
	struct vh_set s = {0};
	int rc = vhist_load(path, co, &s);
	if (rc < 0)
		return rc;
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < s.n; i++) {
		buf_reset(&b);
		vhist_sentence(&s.d[i], &b);
		say(ctx, s.d[i].gid, b.data);
	}
	buf_free(&b);
	vhist_free(&s);
	return rc;
}
