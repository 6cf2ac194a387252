/* compare_vhist.c — vscsiStats histograms before and after (see struct cmp_vdisk in compare.h): the
 * virtual disks of each side's histogram captures (struct analysis.hist) tied across the sides, and
 * for each what moved: the outstanding IOs against the LSI Logic per-disk limit (a pile at 32 that
 * is gone after a move to PVSCSI, 64 per disk by default: the proof the change took effect on that
 * disk), the latency tail and the IO sizes. A histogram has no time axis: the sides' shares are of
 * all the IOs each file counted, not of the same load. */
#include "compare_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The latency bands the shares are said above (ms), as the analysis says them (vhist.c). */
static const double vd_bands[] = {5, 15, 30, 50};
#define VD_NBANDS (sizeof vd_bands / sizeof vd_bands[0])

static void vd_add(struct compare *c, const struct vh_disk *b, const struct vh_disk *a, bool guess, const char *tie)
{
	c->vd = xrealloc(c->vd, (c->nvd + 1) * sizeof *c->vd);
	c->vd[c->nvd++] = (struct cmp_vdisk){.d = {b, a}, .guess = guess, .tie = tie, .cap = {-1, -1}};
}

/* Ties before disk b and after disk a read from the identifiers: the same VM name and scsiC:T, or
 * the same worldGroupID and scsiC:T while neither side names another VM. */
static const char *vd_tie(const struct vh_disk *b, const struct vh_disk *a)
{
	if (strcmp(b->target, a->target) != 0)
		return NULL;
	if (b->vm[0] && a->vm[0])
		return strcasecmp(b->vm, a->vm) == 0 ? "the VM's name (its worldGroupID in each side's esxtop) and "
						       "scsiC:T: read from the identifiers"
						     : NULL;
	if (b->gid >= 0 && b->gid == a->gid && !(b->vm[0] && a->vm[0]))
		return "the worldGroupID and scsiC:T: read from the identifiers";
	return NULL;
}

static size_t vd_count_target(const struct vh_set *s, const bool *used, const char *target)
{
	size_t n = 0;
	for (size_t i = 0; i < s->n; i++)
		n += !used[i] && strcmp(s->d[i].target, target) == 0;
	return n;
}

static void vd_match(struct compare *c, const struct vh_set *b, const struct vh_set *a)
{
	bool *ub = xcalloc(b->n + 1, sizeof *ub), *ua = xcalloc(a->n + 1, sizeof *ua);
	for (size_t i = 0; i < b->n; i++)
		for (size_t j = 0; j < a->n && !ub[i]; j++) {
			const char *tie = ua[j] ? NULL : vd_tie(&b->d[i], &a->d[j]);
			if (tie) {
				ub[i] = ua[j] = true;
				vd_add(c, &b->d[i], &a->d[j], false, tie);
			}
		}
	/* a scsiC:T that names one disk left on each side, whose VMs are not named differently */
	for (size_t i = 0; i < b->n; i++)
		for (size_t j = 0; j < a->n && !ub[i]; j++) {
			const struct vh_disk *x = &b->d[i], *y = &a->d[j];
			if (ua[j] || strcmp(x->target, y->target) != 0 || (x->vm[0] && y->vm[0]) ||
			    vd_count_target(b, ub, x->target) != 1 || vd_count_target(a, ua, x->target) != 1)
				continue;
			ub[i] = ua[j] = true;
			vd_add(c, x, y, true,
			       arena_printf(&c->arena,
					    "scsiC:T alone (the only %s of each side's vscsiStats; the VM is not "
					    "named on %s, the worldGroupIDs differ): a guess",
					    x->target, x->vm[0] || y->vm[0] ? "one side" : "either side"));
		}
	for (size_t i = 0; i < b->n; i++)
		if (!ub[i])
			vd_add(c, &b->d[i], NULL, false, NULL);
	for (size_t j = 0; j < a->n; j++)
		if (!ua[j])
			vd_add(c, NULL, &a->d[j], false, NULL);
	free(ub);
	free(ua);
}

static void vd_oio_side(const struct vh_hist *o, struct buf *t)
{
	double lo, at = vhist_in_bucket(o, VH_LSI_PER_DISK, &lo);
	buf_printf(t, "%.1f%% with %.0f-%d in flight, %.1f%% with more than %d (max %.0f)", 100 * at, lo,
		   VH_LSI_PER_DISK, 100 * vhist_above(o, VH_LSI_PER_DISK), VH_LSI_PER_DISK, o->max);
}

/* The outstanding IOs before and after, and what their move means. */
static void vd_oio(struct cmp_vdisk *v, struct buf *t)
{
	const struct vh_hist *o0 = &v->d[0]->h[VH_OIO], *o1 = &v->d[1]->h[VH_OIO];
	if (o0->count <= 0 || o1->count <= 0) {
		buf_printf(t, "; outstanding IOs not compared (not in the %s file)",
			   o0->count <= 0 ? "before" : "after");
		return;
	}
	buf_adds(t, "; outstanding IOs when an IO was issued: before ");
	vd_oio_side(o0, t);
	buf_adds(t, ", after ");
	vd_oio_side(o1, t);
	const int cap = VH_LSI_PER_DISK;
	if (v->cap[0] == 0 && v->cap[1] == 1)
		buf_printf(t,
			   ": the pile at the LSI Logic per-disk limit (%d, none above) is gone, IOs went out with "
			   "more than %d in flight, which that controller does not allow (PVSCSI: 64 per disk by "
			   "default): the change of controller took effect on this disk",
			   cap, cap);
	else if (v->cap[0] == 0 && v->cap[1] == 0)
		buf_printf(t,
			   ": still piled at %d with none above on both sides: the disk is still capped at the LSI "
			   "Logic per-disk limit (its controller was not changed, or not for this disk)",
			   cap);
	else if (v->cap[1] == 0)
		buf_printf(t,
			   ": piled at %d with none above after, not before: capped at the LSI Logic per-disk limit "
			   "after the change",
			   cap);
	else
		buf_printf(t, ": neither side is piled at %d", cap);
	if (vhist_pvscsi_pile(o1))
		buf_printf(t,
			   "; after, most IOs went out with 33-%d in flight and none more: the PVSCSI per-disk "
			   "default (%d) holds them now (MaxQueueDepth raises it)",
			   VH_PVSCSI_PER_DISK, VH_PVSCSI_PER_DISK);
}

void cmp_vdisk_name(const struct cmp_vdisk *v, struct buf *t)
{
	const struct vh_disk *b = v->d[0], *a = v->d[1];
	if (b && a && !a->vm[0] && !b->vm[0] && a->gid != b->gid)
		buf_printf(t, "worldGroupID %ld before, %ld after, %s", b->gid, a->gid, a->target);
	else
		vhist_disk_name(a ? a : b, t);
}

static void vd_text(struct compare *c, struct cmp_vdisk *v)
{
	struct buf t;
	buf_init(&t);
	int s1 = v->d[1] ? 1 : 0;
	cmp_vdisk_name(v, &t);
	if (!v->d[0] || !v->d[1]) {
		size_t same = 0;
		for (size_t i = 0; i < c->side[!s1].hist.n; i++)
			same += strcmp(c->side[!s1].hist.d[i].target, v->d[s1]->target) == 0;
		if (same)
			buf_printf(&t,
				   ": histograms %s only, not compared (the %s side's %zu disk%s %s cannot be told "
				   "apart from this one's: the VMs are not named by a capture of each side, and the "
				   "worldGroupIDs differ)",
				   cmp_side_names[s1], cmp_side_names[!s1], same, same == 1 ? "" : "s",
				   v->d[s1]->target);
		else if (c->side[!s1].hist.n)
			buf_printf(&t,
				   ": histograms %s only, not compared (the %s side's vscsiStats has no disk %s of "
				   "this VM)",
				   cmp_side_names[s1], cmp_side_names[!s1], v->d[s1]->target);
		else
			buf_printf(&t, ": histograms %s only, not compared (the %s side has no vscsiStats)",
				   cmp_side_names[s1], cmp_side_names[!s1]);
		v->text = arena_strdup(&c->arena, t.data);
		buf_free(&t);
		return;
	}
	for (int s = 0; s < 2; s++)
		v->cap[s] = vhist_cap_state(&v->d[s]->h[VH_OIO]);
	buf_printf(&t, " (tied by %s)", v->tie);
	vd_oio(v, &t);
	const struct vh_hist *l0 = &v->d[0]->h[VH_LAT], *l1 = &v->d[1]->h[VH_LAT];
	if (l0->count > 0 && l1->count > 0) {
		buf_adds(&t, "; latency, share of IOs above");
		for (size_t k = 0; k < VD_NBANDS; k++)
			buf_printf(&t, "%s %g ms %.1f%% -> %.1f%%", k ? "," : "", vd_bands[k],
				   100 * vhist_above(l0, vd_bands[k] * 1000),
				   100 * vhist_above(l1, vd_bands[k] * 1000));
		buf_printf(&t, " (max %.1f -> %.1f ms)", l0->max / 1000, l1->max / 1000);
	}
	const struct vh_hist *z0 = &v->d[0]->h[VH_LEN], *z1 = &v->d[1]->h[VH_LEN];
	if (z0->count > 0 && z1->count > 0)
		buf_printf(&t, "; IO sizes: 4 KiB or less %.1f%% -> %.1f%%, above 64 KiB %.1f%% -> %.1f%%",
			   100 * (1 - vhist_above(z0, 4096)), 100 * (1 - vhist_above(z1, 4096)),
			   100 * vhist_above(z0, 65536), 100 * vhist_above(z1, 65536));
	const struct vh_hist *n0 = l0->count > 0 ? l0 : &v->d[0]->h[VH_OIO],
			     *n1 = l1->count > 0 ? l1 : &v->d[1]->h[VH_OIO];
	buf_printf(&t,
		   ". The shares are of all the IOs each file counted (%.0f before, %.0f after): a histogram has "
		   "no time axis, so they are not of the same load or the same time of day",
		   n0->count, n1->count);
	v->text = arena_strdup(&c->arena, t.data);
	buf_free(&t);
}

/* The verdict's word on the histograms: the disks whose outstanding IOs left (or stayed at) the pile
 * at the LSI Logic per-disk limit, and a side that has histograms and nothing over time. Appended
 * to c->verdict (c->detail kept pointing into it). */
static void vd_verdict(struct compare *c)
{
	struct buf t;
	buf_init(&t);
	for (int k = 0; k < 2; k++) {
		size_t n = 0;
		for (size_t i = 0; i < c->nvd; i++) {
			const struct cmp_vdisk *v = &c->vd[i];
			if (!v->d[0] || !v->d[1] || v->cap[0] != 0 || v->cap[1] != (k ? 0 : 1))
				continue;
			buf_adds(&t, n++ ? ", "
				     : k ? " vscsiStats: still piled at 32 outstanding IOs with none above on both "
					   "sides (capped at the LSI Logic per-disk limit): "
					 : " vscsiStats: the outstanding IOs piled at 32 (the LSI Logic per-disk "
					   "limit) before went above 32 after, which that controller does not "
					   "allow: the controller change took effect on ");
			cmp_vdisk_name(v, &t);
			if (!k)
				buf_printf(&t, " (max %.0f)", v->d[1]->h[VH_OIO].max);
			if (v->guess)
				buf_adds(&t, " (the sides tied by scsiC:T alone: a guess)");
		}
		if (n)
			buf_addc(&t, '.');
	}
	int only = 0;
	for (int s = 0; s < 2; s++) {
		bool rows = false;
		for (size_t i = 0; i < c->side[s].m.ncaps; i++)
			rows |= c->side[s].m.caps[i].rows > 0;
		only |= !rows && c->side[s].hist.n ? 1 << s : 0;
	}
	if (only)
		buf_printf(&t,
			   " %s histograms only (vscsiStats has no time axis): nothing over time could be compared, "
			   "the histograms are (virtual disk histograms).",
			   only == 3   ? "Both sides have"
			   : only == 1 ? "The before side has"
				       : "The after side has");
	if (t.len && c->verdict) {
		size_t off = c->detail ? (size_t)(c->detail - c->verdict) : 0;
		c->verdict = arena_printf(&c->arena, "%s%s", c->verdict, t.data);
		if (c->detail)
			c->detail = c->verdict + off;
	}
	buf_free(&t);
}

void cmp_vhist(struct compare *c)
{
	const struct vh_set *b = &c->side[0].hist, *a = &c->side[1].hist;
	if (!b->n && !a->n)
		return;
	if (!b->n || !a->n)
		c->vd_note =
		    arena_printf(&c->arena,
				 "Only the %s side has vscsiStats histograms: they are shown, not "
				 "compared (give the %s side's vscsiStats of the same virtual disks to compare "
				 "them)",
				 b->n ? "before" : "after", b->n ? "after" : "before");
	vd_match(c, b, a);
	for (size_t i = 0; i < c->nvd; i++)
		vd_text(c, &c->vd[i]);
	vd_verdict(c);
}
