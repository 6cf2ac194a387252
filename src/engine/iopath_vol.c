/* iopath_vol.c — guest volumes over several disks (see iopath.h, doc/io-path.md): a volume tied to
 * its member disks by the capture's names (a fact) or, for letterless disks, by their IOPS (a
 * guess). */
#include "iopath_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "guestdisk.h"

/* Letterless disks carry a volume's IO when each follows the volume's transfers at this r (the bar
 * of a virtual disk and its LUN). */
#define IOP_R_MEMBER       0.8
/* ... and together they carry at least all of its IOs and at most 4 per IO: a simple space
 * (striped) writes each IO once, a two-way mirror each write twice, a three-way mirror three times,
 * parity reads and writes data and parity for a small write [derived]. */
#define IOP_MEMBER_SUM_MIN 0.9
#define IOP_MEMBER_SUM_MAX 4.0

static bool same_host(const struct entity *a, const struct entity *b)
{
	return strcmp(a->host ? a->host : "", b->host ? b->host : "") == 0;
}

static bool guest_disk_of(const struct entity *e)
{
	return e->layer == LAYER_GUEST && !e->aggregate;
}

static struct iop_volume *volume_add(struct iopath *g, size_t *cap, const struct entity *v)
{
	for (size_t i = 0; i < g->nvol; i++)
		if (g->vol[i].vol == v)
			return &g->vol[i];
	if (g->nvol == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		g->vol = xrealloc(g->vol, *cap * sizeof *g->vol);
	}
	struct iop_volume *x = &g->vol[g->nvol++];
	memset(x, 0, sizeof *x);
	x->vol = v;
	return x;
}

/* The members the capture names: each "Disk N" whose PhysicalDisk instance carries the volume's letter. */
static void volumes_by_name(struct iopath *g, const struct model *m, size_t *cap)
{
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *d = &m->ents[i];
		if (!guest_disk_of(d) || !d->volume)
			continue;
		const struct entity *v = NULL;
		for (size_t k = 0; k < m->nents && !v; k++) {
			const struct entity *e = &m->ents[k];
			if (guest_disk_of(e) && e->capture == d->capture && same_host(e, d) &&
			    strcmp(e->name, d->volume) == 0)
				v = e;
		}
		if (!v)
			continue; /* no LogicalDisk of the volume: its members stay disks of their own */
		struct iop_volume *x = volume_add(g, cap, v);
		if (x->nmem < IOP_MAX_MEMBERS)
			x->mem[x->nmem++] = d;
		x->link = (struct io_link){LINK_ID, NAN,
					   iop_astr(&g->arena,
						    "the PhysicalDisk instances of its %zu disks carry its letter %s",
						    x->nmem, v->name)};
	}
}

static bool is_volume(const struct iopath *g, const struct entity *e)
{
	for (size_t i = 0; i < g->nvol; i++)
		if (g->vol[i].vol == e)
			return true;
	return false;
}

/* Letterless disks ("Disk 2", no volume named) whose transfers follow one volume's of their host:
 * each to the volume it follows best; a volume with two or more that together carry its IOs is over
 * them (a Storage Spaces virtual disk over its pool's disks). */
static void volumes_by_iops(struct iopath *g, const struct model *m, size_t *cap)
{
	size_t n = m->nents;
	const struct entity **best = xcalloc(n ? n : 1, sizeof *best);
	double *br = xmalloc((n ? n : 1) * sizeof *br);
	for (size_t i = 0; i < n; i++) {
		const struct entity *d = &m->ents[i];
		br[i] = NAN;
		if (!guest_disk_of(d) || d->volume || guest_disk_form(d->name, strlen(d->name)) != GD_DISKNO ||
		    d->series[M_G_XFERS] < 0)
			continue;
		double r0 = IOP_R_MEMBER;
		for (size_t k = 0; k < n; k++) {
			const struct entity *v = &m->ents[k];
			enum gd_form f = guest_disk_form(v->name, strlen(v->name));
			if (!guest_disk_of(v) || v->capture != d->capture || !same_host(v, d) || v->volume ||
			    (f != GD_DRIVE && f != GD_MOUNT && f != GD_VOLUME) || is_volume(g, v))
				continue;
			double r = iop_pearson(m, d, M_G_XFERS, v, M_G_XFERS);
			if (!isnan(r) && r >= r0) {
				r0 = r;
				best[i] = v;
				br[i] = r;
			}
		}
	}
	for (size_t k = 0; k < n; k++) {
		const struct entity *v = &m->ents[k];
		size_t cnt = 0;
		double sum = 0, rmin = 1, vm = entity_mean(v, M_G_XFERS);
		for (size_t i = 0; i < n; i++)
			if (best[i] == v) {
				cnt++;
				sum += entity_mean(&m->ents[i], M_G_XFERS);
				rmin = fmin(rmin, br[i]);
			}
		if (cnt < 2 || cnt > IOP_MAX_MEMBERS || !(vm > 0) || sum < IOP_MEMBER_SUM_MIN * vm ||
		    sum > IOP_MEMBER_SUM_MAX * vm)
			continue;
		struct iop_volume *x = volume_add(g, cap, v);
		for (size_t i = 0; i < n; i++)
			if (best[i] == v)
				x->mem[x->nmem++] = &m->ents[i];
		x->link =
		    (struct io_link){LINK_CORR, rmin,
				     iop_astr(&g->arena,
					      "guessed from IOPS correlation: %zu disks without a drive letter follow "
					      "its transfers (r >= %.2f) and together carry %.1f IOs per volume IO "
					      "(a Storage Spaces virtual disk over its pool's disks, as far as the "
					      "counters show)",
					      cnt, rmin, sum / vm)};
	}
	free(best);
	free(br);
}

void iopath_volumes(struct iopath *g, const struct model *m)
{
	size_t cap = 0;
	volumes_by_name(g, m, &cap);
	volumes_by_iops(g, m, &cap);
}

const struct iop_volume *iopath_volume_of(const struct iopath *g, const struct entity *e, bool *member)
{
	for (size_t i = 0; g && e && i < g->nvol; i++) {
		const struct iop_volume *x = &g->vol[i];
		bool mem = false;
		for (size_t k = 0; k < x->nmem && !mem; k++)
			mem = x->mem[k] == e;
		if (x->vol == e || mem) {
			if (member)
				*member = mem;
			return x;
		}
	}
	return NULL;
}
