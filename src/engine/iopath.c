/* iopath.c — the IO path graph (see iopath.h). */
#include "iopath_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const link_how_names[3] = {"none", "identifiers", "correlation"};

/* A virtual disk and a world's IO to a device carry the same commands when their IOPS follow each
 * other at this r (the same bar as a virtual disk and its LUN in topology.h). */
#define IOP_R_LINK 0.8
/* A device's paths carry its commands: their sum within 5% of the device's, following it. */
#define IOP_R_PATHS 0.9

void iop_vdisk_vm(const char *vdisk, char *out, size_t cap)
{
	const char *sc = vdisk_ctrl(vdisk); /* ":scsi0:1", ":nvme0:1", ":sata0:1" */
	size_t n = sc ? (size_t)(sc - vdisk) : strlen(vdisk);
	if (n >= cap)
		n = cap - 1;
	memcpy(out, vdisk, n);
	out[n] = '\0';
}


/* The world's VM by the capture's ids: the Vcpu columns of its capture name world wid. */
static const char *joined_vm(const struct model *m, size_t ci, long wid)
{
	for (size_t k = 0; k < m->nwvm; k++)
		if (m->wvm[k].capture == ci && m->wvm[k].wid == wid)
			return m->wvm[k].vm;
	return NULL;
}

/* ---- worlds ---- */

static void build_worlds(struct iopath *g, const struct model *m)
{
	g->w = xcalloc(m->naux ? m->naux : 1, sizeof *g->w);
	for (size_t i = 0; i < m->naux; i++) {
		const struct entity *e = &m->aux[i];
		if (e->layer != LAYER_WORLD || !e->device || model_over_cap(m, e->capture, LAYER_WORLD))
			continue; /* no neighbour from a partial set of worlds */
		struct iop_world *w = &g->w[g->nw++];
		w->w = e;
		w->dev = iop_find_in(m, e->capture, LAYER_DEVICE, e->device);
		w->vm = e->wid >= 0 ? joined_vm(m, e->capture, e->wid) : NULL;
		w->vm_link = w->vm ? (struct io_link){LINK_ID, NAN, iop_astr(&g->arena, "Vcpu names world %ld's VM", e->wid)}
				   : (struct io_link){LINK_NONE, NAN, NULL};
	}
}

/* ---- virtual disks ---- */

/* The device (an NFS volume only, with nfs_only) of v's capture whose own IOPS follow v's best:
 * the correlation fallback (r >= IOP_R_LINK, at least 90% of v's commands); NULL when none. */
static const struct entity *device_by_corr(const struct model *m, const struct entity *v, bool nfs_only, double *r_out)
{
	const struct entity *best = NULL;
	double br = IOP_R_LINK, vm = entity_mean(v, M_CMDS);
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->layer != LAYER_DEVICE || e->capture != v->capture || (nfs_only && !e->nfs))
			continue;
		double em = entity_mean(e, M_CMDS);
		if (isnan(em) || isnan(vm) || em < 0.9 * vm)
			continue;
		double r = iop_pearson(m, v, M_CMDS, e, M_CMDS);
		if (!isnan(r) && r >= br) {
			br = r;
			best = e;
		}
	}
	*r_out = best ? br : NAN;
	return best;
}

/* The world (of vm's worlds when vm_only) whose IO to its device carries v's commands: no more
 * than 110% of the world's, following it at r >= IOP_R_LINK (or, when neither moves, within 10%
 * of it). Sets *r, *ndev (how many distinct devices the candidate worlds have IO on). */
static const struct iop_world *world_for_vdisk(const struct iopath *g, const struct model *m, const struct entity *v,
					       const char *vm, bool vm_only, double *r_out, int *ndev)
{
	const struct iop_world *best = NULL;
	double br = -2, vmean = entity_mean(v, M_CMDS);
	const struct entity *devs[64];
	*ndev = 0;
	for (size_t i = 0; i < g->nw; i++) {
		const struct iop_world *w = &g->w[i];
		if (w->w->capture != v->capture || !w->dev || (vm_only && (!w->vm || strcmp(w->vm, vm) != 0)))
			continue;
		double wm = entity_mean(w->w, M_CMDS);
		if (isnan(wm) || wm <= 0)
			continue;
		bool seen = false;
		for (int k = 0; k < *ndev && !seen; k++)
			seen = devs[k] == w->dev;
		if (!seen && *ndev < 64)
			devs[(*ndev)++] = w->dev;
		if (isnan(vmean) || vmean > 1.1 * wm + 0.5)
			continue;
		double r = iop_pearson(m, v, M_CMDS, w->w, M_CMDS);
		double score = r;
		if (isnan(r)) {
			/* flat series: the volumes must agree */
			if (fabs(vmean - wm) > 0.1 * wm + 0.5)
				continue;
			score = 0.8;
		} else if (r < IOP_R_LINK) {
			continue;
		}
		if (score > br) {
			br = score;
			best = w;
			*r_out = r;
		}
	}
	return best;
}

static void build_vdisks(struct iopath *g, const struct model *m)
{
	size_t n = 0;
	for (size_t i = 0; i < m->nents; i++)
		n += m->ents[i].layer == LAYER_VSCSI;
	g->vd = xcalloc(n ? n : 1, sizeof *g->vd);
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *v = &m->ents[i];
		if (v->layer != LAYER_VSCSI)
			continue;
		struct iop_vdisk *d = &g->vd[g->nvd++];
		if (model_hyperv(m, v->capture)) {
			d->v = v;
			iopath_hv_vdisk(g, m, d);
			continue;
		}
		char vm[256];
		iop_vdisk_vm(v->name, vm, sizeof vm);
		d->v = v;
		d->vm = arena_strdup(&g->arena, vm);
		d->link = (struct io_link){LINK_NONE, NAN, NULL};
		if (v->series[M_CMDS] < 0 || !entity_sk(v, M_CMDS)->n)
			continue;
		bool vm_worlds = false, any_world = false;
		for (size_t k = 0; k < g->nw; k++) {
			if (g->w[k].w->capture != v->capture)
				continue;
			any_world = true;
			vm_worlds |= g->w[k].vm && strcmp(g->w[k].vm, vm) == 0;
		}
		double r = NAN, rn = NAN;
		int ndev = 0;
		const struct iop_world *w = NULL;
		/* an NFS volume whose IOPS follow it at least as well as a world's IO: on NFS (a world's
		 * per-device IO is of SCSI devices only) */
		const struct entity *nfs = device_by_corr(m, v, true, &rn);
		if (vm_worlds) {
			w = world_for_vdisk(g, m, v, vm, true, &r, &ndev);
			if (w && nfs && (isnan(r) || rn >= r - 0.02))
				w = NULL;
			if (w) {
				d->back = BACK_LUN;
				d->dev = w->dev;
				d->world = w;
				if (ndev == 1)
					d->link = (struct io_link){LINK_ID, NAN, iop_astr(&g->arena, "the only LUN %s's worlds do IO to "
										      "(per-world IO of world %ld, its VM named by Vcpu)", vm, w->w->wid)};
				else
					d->link = (struct io_link){LINK_CORR, r, iop_astr(&g->arena, "one of the %d LUNs %s's worlds do IO "
										     "to (per-world IO, VM named by Vcpu), matched by IOPS%s",
										     ndev, vm, isnan(r) ? " (equal volumes)" : iop_astr(&g->arena, ", r = %.2f", r))};
				continue;
			}
		} else if (any_world) {
			w = world_for_vdisk(g, m, v, vm, false, &r, &ndev);
			if (w && nfs && (isnan(r) || rn >= r - 0.02))
				w = NULL;
			if (w) {
				d->back = BACK_LUN;
				d->dev = w->dev;
				d->world = w;
				d->link = (struct io_link){LINK_CORR, r, iop_astr(&g->arena, "world %ld's IO to this LUN matches its IOPS%s "
									     "(per-world IO; the capture does not name the world's VM)",
									     w->w->wid, isnan(r) ? " (equal volumes)" : iop_astr(&g->arena, ", r = %.2f", r))};
				continue;
			}
		}
		/* no world's IO carries it: an NFS volume, or (without per-world columns) a LUN by its
		 * own IOPS */
		const struct entity *e = device_by_corr(m, v, false, &r);
		if (nfs && (!e || isnan(r) || rn >= r - 0.02)) {
			e = nfs;
			r = rn;
		}
		if (e) {
			d->back = e->nfs ? BACK_NFS : BACK_LUN;
			d->dev = e;
			d->link = (struct io_link){LINK_CORR, r,
						   iop_astr(&g->arena, "the %s's IOPS follow it (r = %.2f)%s",
							    e->nfs ? "NFS volume" : "LUN", r,
							    e->nfs      ? ""
							    : any_world ? "; no world's per-world IO does"
							    : model_over_cap(m, v->capture, LAYER_WORLD)
								? "; its per-world IO is past the entity cap (not read)"
								: "; the capture has no per-world IO to tell")};
			continue;
		}
		bool any_scsi = false;
		for (size_t k = 0; k < m->nents && !any_scsi; k++)
			any_scsi = m->ents[k].layer == LAYER_DEVICE && m->ents[k].capture == v->capture && !m->ents[k].nfs;
		double act = entity_mean(v, M_CMDS);
		if (!any_scsi) {
			d->back = BACK_NOT_SHOWN;
			d->link = (struct io_link){LINK_ID, NAN, "the capture has no SCSI device"};
		} else if (any_world && act >= 1) {
			d->back = BACK_NOT_SHOWN;
			d->link = (struct io_link){LINK_CORR, NAN, vm_worlds ? iop_astr(&g->arena, "none of %s's worlds' IO to the "
											 "capture's LUNs carries it (Per-Device-Per-World)", vm)
									 : "no world's IO to the capture's LUNs carries it (Per-Device-Per-World)"};
		}
	}
	/* what no whole-capture match tied: matched by time segments (a move, a snapshot) */
	iopath_spans(g, m);
	/* a world that carries a virtual disk by correlation is that disk's VM's (a guess) */
	for (size_t i = 0; i < g->nvd; i++) {
		const struct iop_vdisk *d = &g->vd[i];
		if (!d->world || d->world->vm)
			continue;
		long wid = d->world->w->wid;
		for (size_t k = 0; k < g->nw; k++) {
			struct iop_world *w = &g->w[k];
			if (w->w->capture == d->v->capture && w->w->wid == wid && !w->vm) {
				w->vm = d->vm;
				w->vm_link = (struct io_link){LINK_CORR, d->link.r,
							      iop_astr(&g->arena, "world %ld carries %s's IO (correlation)", wid, d->v->name)};
			}
		}
	}
}

/* ---- paths ---- */

static void parse_path(struct iopath *g, struct iop_path *p)
{
	const char *nm = p->p->name;
	const char *v = strstr(nm, "-vmhba");
	const char *a = v ? v + 1 : nm;
	const char *colon = strchr(a, ':');
	p->adapter = arena_strndup(&g->arena, a, colon ? (size_t)(colon - a) : strlen(a));
	const char *l = strrchr(a, ':');
	p->lun = l && l[1] == 'L' && l[2] >= '0' && l[2] <= '9' ? (int)strtol(l + 2, NULL, 10) : -1;
}

/* Paths whose names give no device: the paths of one LUN number whose commands add up to a
 * device's (within 5%, following it at r >= IOP_R_PATHS). The sums per LUN number are made once
 * (a big host has hundreds of LUNs and paths). */
static void paths_by_sum(struct iopath *g, const struct model *m, size_t ci)
{
	const struct capture *c = &m->caps[ci];
	size_t nb = c->ds.nb;
	if (!nb)
		return;
	/* the LUN numbers of the paths not tied by name, and their sums bucket by bucket */
	int *lun = xmalloc((g->np ? g->np : 1) * sizeof *lun);
	size_t nl = 0;
	for (size_t a = 0; a < g->np; a++) {
		const struct iop_path *pa = &g->p[a];
		if (pa->p->capture != ci || pa->dev || pa->lun < 0 || pa->p->series[M_CMDS] < 0)
			continue;
		size_t k = 0;
		while (k < nl && lun[k] != pa->lun)
			k++;
		if (k == nl)
			lun[nl++] = pa->lun;
	}
	if (!nl) {
		free(lun);
		return;
	}
	double *sum = xmalloc(nl * nb * sizeof *sum);
	for (size_t k = 0; k < nl * nb; k++)
		sum[k] = NAN;
	for (size_t a = 0; a < g->np; a++) {
		const struct iop_path *pa = &g->p[a];
		if (pa->p->capture != ci || pa->dev || pa->lun < 0 || pa->p->series[M_CMDS] < 0)
			continue;
		size_t l = 0;
		while (lun[l] != pa->lun)
			l++;
		for (size_t k = 0; k < nb; k++) {
			double x = ds_mean(&c->ds, (size_t)pa->p->series[M_CMDS], k);
			if (!isnan(x))
				sum[l * nb + k] = isnan(sum[l * nb + k]) ? x : sum[l * nb + k] + x;
		}
	}
	int *owner = xmalloc(nl * sizeof *owner); /* how many devices a LUN number matched: ties stay untied */
	const struct entity **dev = xcalloc(nl, sizeof *dev);
	double *rr = xmalloc(nl * sizeof *rr);
	for (size_t l = 0; l < nl; l++)
		owner[l] = 0;
	for (size_t i = c->first_entity; i < m->nents && i < c->first_entity + c->nentities; i++) {
		const struct entity *dv = &m->ents[i];
		if (dv->layer != LAYER_DEVICE || dv->nfs || dv->series[M_CMDS] < 0 || dv->capture != ci)
			continue;
		double dm = entity_mean(dv, M_CMDS);
		if (isnan(dm) || dm < 1)
			continue;
		long best = -1;
		double best_r = -2;
		bool tie = false;
		for (size_t l = 0; l < nl; l++) {
			struct corr_acc ca = {0};
			for (size_t k = 0; k < nb; k++)
				acc_add(&ca, sum[l * nb + k], ds_mean(&c->ds, (size_t)dv->series[M_CMDS], k));
			if (ca.n < 2 || fabs(ca.sx - ca.sy) > 0.05 * ca.sy)
				continue;
			double r = acc_r(&ca);
			double score = isnan(r) ? 0.9 : r;
			if (!isnan(r) && r < IOP_R_PATHS)
				continue;
			if (score > best_r + 1e-9) {
				best_r = score;
				best = (long)l;
				tie = false;
			} else if (fabs(score - best_r) <= 1e-9) {
				tie = true;
			}
		}
		if (best < 0 || tie)
			continue;
		owner[best]++;
		dev[best] = dv;
		rr[best] = best_r;
	}
	for (size_t l = 0; l < nl; l++) {
		if (owner[l] != 1)
			continue; /* no device, or two devices whose sums it matches: not told */
		for (size_t q = 0; q < g->np; q++) {
			struct iop_path *pq = &g->p[q];
			if (pq->p->capture == ci && !pq->dev && pq->lun == lun[l]) {
				pq->dev = dev[l];
				pq->link = (struct io_link){LINK_CORR, rr[l] < 1.000001 && rr[l] != 0.9 ? rr[l] : NAN,
							   iop_astr(&g->arena, "the paths to LUN number %d add up to its commands (path "
								   "names give no device)", lun[l])};
			}
		}
	}
	free(lun);
	free(sum);
	free(owner);
	free(dev);
	free(rr);
}

/* Paths still untied (their LUN number's sum matches no device: another device has the same LUN
 * number, or the device's paths carry different ones), or tied by the sum to a device whose IO
 * outweighs another's with the same LUN number: a path whose commands, over the buckets it
 * carries IO (at least 5 of them), are one device's (their sum within 5 %, following it at r >=
 * IOP_R_PATHS) is that device's — the device's only active path then, as with the Fixed or MRU
 * policy and after a failover. One device only, else it stays untied. A link over time: it holds
 * for the stretch the path carries IO (a guess, with its r). */
static void paths_by_activity(struct iopath *g, const struct model *m, size_t ci)
{
	const struct capture *c = &m->caps[ci];
	size_t nb = c->ds.nb;
	for (size_t a = 0; a < g->np; a++) {
		struct iop_path *pa = &g->p[a];
		/* untied, or tied by its LUN number's sum: a path of another device with the same LUN
		 * number whose IO is small beside the device's passes the sum, not this */
		if (pa->p->capture != ci || pa->link.how == LINK_ID || pa->p->series[M_CMDS] < 0)
			continue;
		const struct entity *best = NULL;
		double best_r = -2;
		bool tie = false;
		size_t used = 0;
		for (size_t i = c->first_entity; i < m->nents && i < c->first_entity + c->nentities; i++) {
			const struct entity *dv = &m->ents[i];
			if (dv->layer != LAYER_DEVICE || dv->nfs || dv->series[M_CMDS] < 0 || dv->capture != ci)
				continue;
			struct corr_acc ca = {0};
			size_t off = 0; /* buckets far off the device's: more than 4 of the first 16 end it (speed) */
			for (size_t k = 0; k < nb && !(ca.n <= 16 && off > 4); k++) {
				double x = ds_mean(&c->ds, (size_t)pa->p->series[M_CMDS], k);
				double y = ds_mean(&c->ds, (size_t)dv->series[M_CMDS], k);
				if (isnan(x) || x < 1)
					continue;
				off += !(fabs(x - y) <= 0.25 * y);
				acc_add(&ca, x, y);
			}
			if (ca.n <= 16 && off > 4)
				continue;
			if (ca.n < 5 || fabs(ca.sx - ca.sy) > 0.05 * ca.sy)
				continue;
			double r = acc_r(&ca), score = isnan(r) ? IOP_R_PATHS : r;
			if (!isnan(r) && r < IOP_R_PATHS)
				continue;
			if (score > best_r + 1e-9) {
				best_r = score;
				best = dv;
				tie = false;
				used = ca.n;
			} else if (fabs(score - best_r) <= 1e-9) {
				tie = true;
			}
		}
		if (!best || tie || best == pa->dev)
			continue;
		pa->dev = best;
		pa->link = (struct io_link){LINK_CORR, best_r != IOP_R_PATHS ? best_r : NAN,
					    iop_astr(&g->arena,
						     "while it carries IO (%zu samples) its commands are the device's, "
						     "as its only active path's are (path names give no device)",
						     used)};
	}
}

static void build_paths(struct iopath *g, const struct model *m)
{
	g->p = xcalloc(m->naux ? m->naux : 1, sizeof *g->p);
	for (size_t i = 0; i < m->naux; i++) {
		const struct entity *e = &m->aux[i];
		if (e->layer != LAYER_PATH || model_over_cap(m, e->capture, LAYER_PATH))
			continue; /* no path conclusion from a partial set of paths */
		struct iop_path *p = &g->p[g->np++];
		p->p = e;
		parse_path(g, p);
		p->adp = iop_find_in(m, e->capture, LAYER_ADAPTER, p->adapter);
		p->link = (struct io_link){LINK_NONE, NAN, NULL};
		if (e->device && (p->dev = iop_find_in(m, e->capture, LAYER_DEVICE, e->device)))
			p->link = (struct io_link){LINK_ID, NAN, "the path's name gives its device"};
	}
	for (size_t ci = 0; ci < m->ncaps; ci++) {
		paths_by_sum(g, m, ci);
		paths_by_activity(g, m, ci);
	}
}

void iopath_build(struct iopath *g, const struct model *m)
{
	memset(g, 0, sizeof *g);
	arena_init(&g->arena);
	build_worlds(g, m);
	build_vdisks(g, m);
	build_paths(g, m);
	iopath_volumes(g, m);
}

void iopath_free(struct iopath *g)
{
	free(g->w);
	free(g->vd);
	free(g->p);
	free(g->vol);
	arena_free(&g->arena);
	memset(g, 0, sizeof *g);
}

const struct iop_vdisk *iopath_vdisk(const struct iopath *g, const struct entity *v)
{
	for (size_t i = 0; g && i < g->nvd; i++)
		if (g->vd[i].v == v)
			return &g->vd[i];
	return NULL;
}

size_t iopath_device_paths(const struct iopath *g, const struct entity *d, const struct iop_path **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; g && i < g->np; i++)
		if (g->p[i].dev == d) {
			if (n < max)
				out[n] = &g->p[i];
			n++;
		}
	return n;
}

size_t iopath_device_load(const struct iopath *g, const struct model *m, const struct entity *d, int64_t t0, int64_t t1,
			  struct iop_share *out, size_t max, struct arena *a)
{
	if (!g || !d || !max)
		return 0;
	struct iop_shares h;
	iop_shares_init(&h, g->nw);
	for (size_t i = 0; i < g->nw; i++) {
		const struct iop_world *w = &g->w[i];
		if (w->dev != d)
			continue;
		double c = iop_window_mean(m, w->w, M_CMDS, t0, t1);
		if (isnan(c))
			continue;
		iop_shares_add(&h, w->vm ? w->vm : iop_astr(a, "world %ld", w->w->wid), w->w, w->vm != NULL,
			       w->vm ? w->vm_link.how : LINK_NONE, c, iop_window_mean(m, w->w, M_ACTV, t0, t1),
			       iop_window_mean(m, w->w, M_MBR, t0, t1), iop_window_mean(m, w->w, M_MBW, t0, t1));
	}
	return iop_shares_done(&h, out, max);
}
