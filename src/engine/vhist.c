/* vhist.c — what a virtual disk's histograms show (see vhist.h). The columns follow the reader's
 * histogram naming (parsers/fmt_vscsistats.c): object "vscsiStats KIND", instance the disk
 * ("worldGroupID:scsiC:T"), counters min, max, mean, count and one per bucket, "<= L" (the IOs above
 * the previous limit up to L) and the overflow "> L". Snapshots (rows) are summed. */
#include "vhist.h"

#include <stdlib.h>
#include <string.h>

#define VH_MAX_B 64

struct vh_series {
	const char *kind, *disk;
	int nb;
	double lim[VH_MAX_B], n[VH_MAX_B];
	bool gt[VH_MAX_B];
	double count, max;
	size_t col[VH_MAX_B], ccount, cmax;
};

/* The per-disk limit of the LSI Logic (SAS/parallel) virtual controller: 32 outstanding IOs per disk
 * [seed] (doc/domain.md, the vSCSI table). */
#define VH_LSI_PER_DISK 32

static struct vh_series *vh_get(struct vh_series **s, size_t *n, const char *kind, const char *disk)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*s)[i].kind, kind) == 0 && strcmp((*s)[i].disk, disk) == 0)
			return &(*s)[i];
	*s = xrealloc(*s, (*n + 1) * sizeof **s);
	struct vh_series *x = &(*s)[(*n)++];
	memset(x, 0, sizeof *x);
	x->kind = kind;
	x->disk = disk;
	x->ccount = x->cmax = (size_t)-1;
	return x;
}

/* Share (0..1) of the IOs in buckets whose lower edge is at or above lo (the bucket after limit lo). */
static double vh_above(const struct vh_series *s, double lo)
{
	double k = 0, t = 0;
	for (int b = 0; b < s->nb; b++) {
		t += s->n[b];
		if (s->gt[b] ? s->lim[b] >= lo : b > 0 && s->lim[b - 1] >= lo)
			k += s->n[b];
	}
	return t > 0 ? k / t : 0;
}

static const struct vh_series *vh_find(const struct vh_series *s, size_t n, const char *kind, const char *disk)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s[i].kind, kind) == 0 && strcmp(s[i].disk, disk) == 0 && s[i].count > 0)
			return &s[i];
	return NULL;
}

/* One disk's sentence. */
static void vh_disk(const struct vh_series *s, size_t n, const char *disk, void (*say)(void *, long, const char *),
		    void *ctx)
{
	struct buf b;
	buf_init(&b);
	const struct vh_series *o = vh_find(s, n, "outstandingIOs", disk);
	const struct vh_series *l = vh_find(s, n, "latency", disk), *z = vh_find(s, n, "ioLength", disk);
	buf_printf(&b, "virtual disk %s (worldGroupID:scsiC:T)", disk);
	if (o) {
		double at = 0, above = vh_above(o, VH_LSI_PER_DISK), t = 0, lo = 0;
		for (int k = 0; k < o->nb; k++) {
			t += o->n[k];
			if (!o->gt[k] && o->lim[k] == VH_LSI_PER_DISK && k > 0) {
				at = o->n[k];
				lo = o->lim[k - 1] + 1;
			}
		}
		at = t > 0 ? at / t : 0;
		const int cap = VH_LSI_PER_DISK;
		buf_printf(&b, "; outstanding IOs when an IO was issued: %.0f IOs, max %.0f, %.1f%% with %.0f-%d in "
			   "flight (the bucket of the LSI Logic per-disk limit, %d), %.1f%% with more than %d",
			   o->count, o->max, 100 * at, lo, cap, cap, 100 * above, cap);
		if (above > 0)
			buf_printf(&b, " (so this disk's controller let more than %d through: "
				   "not capped at the LSI limit)", VH_LSI_PER_DISK);
		else if (at >= 0.5)
			buf_printf(&b, " (piled at %d with none above: what the LSI Logic per-disk cap does)",
				   VH_LSI_PER_DISK);
	}
	if (l) {
		buf_printf(&b, "; latency: %.0f IOs, max %.1f ms, above 5 ms %.1f%%, above 15 ms %.1f%%, above 30 ms "
			   "%.1f%%, above 50 ms %.1f%%", l->count, l->max / 1000, 100 * vh_above(l, 5000),
			   100 * vh_above(l, 15000), 100 * vh_above(l, 30000), 100 * vh_above(l, 50000));
	}
	if (z) {
		buf_printf(&b, "; IO sizes: %.1f%% of %.0f IOs 4 KiB or less, %.1f%% above 64 KiB",
			   100 * (1 - vh_above(z, 4096)), z->count, 100 * vh_above(z, 65536));
	}
	buf_printf(&b, ". A histogram has no time axis: it cannot show when these IOs came, whether the slow "
		   "ones came together, or the esxtop/perfmon time they match");
	say(ctx, strtol(disk, NULL, 10), b.data);
	buf_free(&b);
}

static void vh_layout(struct vh_series **s, size_t *n, struct reader *r)
{
	for (size_t i = 0; i < reader_ncols(r); i++) {
		const struct pdh_path *p = &reader_column(r, i)->path;
		if (!p->ok || !p->instance || strncmp(p->object, "vscsiStats ", 11) != 0)
			continue;
		struct vh_series *x = vh_get(s, n, p->object + 11, p->instance);
		const char *c = p->counter;
		if (strcmp(c, "count") == 0)
			x->ccount = i;
		else if (strcmp(c, "max") == 0)
			x->cmax = i;
		else if ((strncmp(c, "<= ", 3) == 0 || strncmp(c, "> ", 2) == 0) && x->nb < VH_MAX_B) {
			x->gt[x->nb] = c[0] == '>';
			x->lim[x->nb] = strtod(c + (c[0] == '>' ? 2 : 3), NULL);
			x->col[x->nb++] = i;
		}
	}
}

int vhist_read(const char *path, const struct common_opts *co,
	       void (*say)(void *ctx, long gid, const char *text), void *ctx)
{
	if (strcmp(path, "-") == 0) {
		say(ctx, -1, "histograms read from stdin are not assessed (stdin is read once, as a capture): give the "
			 "file's name");
		return 0;
	}
	struct common_opts q = *co;
	q.sink = (struct diag_sink){0}; /* its warnings were given when it was read as a capture */
	q.progress = NULL;
	struct input in;
	int rc = input_open(&in, path, &q);
	if (rc < 0)
		return rc;
	struct vh_series *s = NULL;
	size_t n = 0;
	vh_layout(&s, &n, in.r);
	struct pdh_row row;
	double v;
	while (reader_next(in.r, &row) == 1)
		for (size_t i = 0; i < n; i++) {
			struct vh_series *x = &s[i];
			for (int b = 0; b < x->nb; b++)
				if (reader_value(in.r, x->col[b], &v))
					x->n[b] += v;
			if (x->ccount != (size_t)-1 && reader_value(in.r, x->ccount, &v))
				x->count += v;
			if (x->cmax != (size_t)-1 && reader_value(in.r, x->cmax, &v) && v > x->max)
				x->max = v;
		}
	int said = 0;
	for (size_t i = 0; i < n; i++) {
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = strcmp(s[k].disk, s[i].disk) != 0;
		if (first && s[i].count > 0) {
			vh_disk(s, n, s[i].disk, say, ctx);
			said++;
		}
	}
	free(s);
	input_close(&in);
	return said;
}
