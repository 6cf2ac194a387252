/* topology.c — the IO stack of the affected disks (see topology.h); moved here from the HTML
 * report so that every output reads the same stacks. */
#include "topology.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


/* Hosts of a finding or map line and an entity match when either is unknown, case-insensitively
 * (Windows names); compare.c's matching across two captures has its own, stricter rule. */
static bool host_same_or_unknown(const char *a, const char *b) { return !a || !b || strcasecmp(a, b) == 0; }


/* The entity a finding is about that has metric m (any metric when m < 0). */
const struct entity *finding_entity(const struct topo_in *a, const struct finding *f, int m)
{
	if (f->ent >= 0 && (size_t)f->ent < a->m->nents && (m < 0 || a->m->ents[f->ent].series[m] >= 0))
		return &a->m->ents[f->ent];
	/* by name: findings from logs and partition tables, or another entity of the same name that
	 * has metric m (the guest disk of a virtual-disk finding) */
	const struct entity *best = NULL;
	for (size_t i = 0; i < a->m->nents; i++) {
		const struct entity *e = &a->m->ents[i];
		if (strcmp(e->name, f->entity) != 0 || !host_same_or_unknown(e->host, f->host))
			continue;
		if (f->capture >= 0 && (long)e->capture != f->capture)
			continue;
		if (m >= 0 && e->series[m] < 0)
			continue;
		if (e->layer == f->layer)
			return e;
		if (!best)
			best = e;
	}
	return best;
}



const struct entity *topology_vdisk_of_guest(const struct topo_in *a, const struct entity *g, const struct diskmap_entry **me)
{
	for (size_t i = 0; i < a->nmap; i++) {
		const struct diskmap_entry *m = &a->map[i];
		if (strcmp(m->guest_disk, g->name) != 0 || !host_same_or_unknown(m->guest_host, g->host))
			continue;
		for (size_t k = 0; k < a->m->nents; k++) {
			const struct entity *v = &a->m->ents[k];
			if (v->layer == LAYER_VSCSI && strcmp(v->name, m->vdisk) == 0) {
				*me = m;
				return v;
			}
		}
	}
	return NULL;
}

static const struct entity *guest_of_vdisk(const struct topo_in *a, const struct entity *v, const struct diskmap_entry **me)
{
	for (size_t i = 0; i < a->nmap; i++) {
		const struct diskmap_entry *m = &a->map[i];
		if (strcmp(m->vdisk, v->name) != 0)
			continue;
		for (size_t k = 0; k < a->m->nents; k++) {
			const struct entity *g = &a->m->ents[k];
			if (g->layer == LAYER_GUEST && strcmp(g->name, m->guest_disk) == 0 && host_same_or_unknown(m->guest_host, g->host)) {
				*me = m;
				return g;
			}
		}
	}
	return NULL;
}

/* The entity of layer l in x's capture whose IOPS follow x's best (r >= rmin) and carry at least
 * 90% of x's IOPS (to: x is above) or at most 110% (x is below). */
static const struct entity *best_corr(const struct topo_in *a, const struct entity *x, enum layer l, bool below,
				      double rmin, double *r_out)
{
	const struct entity *best = NULL;
	double br = rmin;
	double xm = entity_mean(x, M_CMDS);
	for (size_t i = 0; i < a->m->nents; i++) {
		const struct entity *e = &a->m->ents[i];
		if (e->layer != l || e->capture != x->capture)
			continue;
		double em = entity_mean(e, M_CMDS);
		if (isnan(em) || isnan(xm) || (below ? em < 0.9 * xm : em > 1.1 * xm))
			continue;
		double r = iop_pearson(a->m, x, M_CMDS, e, M_CMDS);
		if (!isnan(r) && r >= br) {
			br = r;
			best = e;
		}
	}
	*r_out = best ? br : NAN;
	return best;
}

static struct io_link corr_link(double r, const char *why)
{
	return (struct io_link){LINK_CORR, r, why};
}

/* The device's adapters from its paths (busiest path first): the first and a second one. */
static void adapters_by_paths(const struct topo_in *a, struct stack *ch)
{
	const struct iop_path *p[16];
	size_t n = iopath_device_paths(a->iop, ch->device, p, 16);
	if (n > 16)
		n = 16;
	const struct iop_path *best = NULL, *second = NULL;
	double bm = -1, sm = -1;
	for (size_t i = 0; i < n; i++) {
		if (!p[i]->adp)
			continue;
		double c = entity_mean(p[i]->p, M_CMDS);
		c = isnan(c) ? 0 : c;
		if (c > bm) {
			if (best && best->adp != p[i]->adp) {
				second = best;
				sm = bm;
			}
			best = p[i];
			bm = c;
		} else if (c > sm && p[i]->adp != best->adp) {
			second = p[i];
			sm = c;
		}
	}
	if (!best)
		return;
	ch->adapter = best->adp;
	ch->adapter2 = second ? second->adp : NULL;
	ch->l_adp = best->link.how == LINK_ID ? (struct io_link){LINK_ID, NAN, "its paths' names give the adapter"}
					      : (struct io_link){LINK_CORR, best->link.r, best->link.why};
}

/* The virtual disk of device d to draw above it: one a guest disk of the captures is mapped to
 * (the analysed VM's, not a neighbour's that is busier), the busiest among those. */
static const struct iop_vdisk *vdisk_on(const struct topo_in *a, const struct entity *d)
{
	const struct iop_vdisk *best = NULL;
	double bm = -1;
	bool bmapped = false;
	for (size_t i = 0; a->iop && i < a->iop->nvd; i++) {
		const struct iop_vdisk *v = &a->iop->vd[i];
		double c = entity_mean(v->v, M_CMDS);
		if ((d->layer == LAYER_VOLUME ? v->vol != d : v->dev != d) || isnan(c) || v->v->outside)
			continue;
		bool mapped = false;
		for (size_t k = 0; k < a->nmap && !mapped; k++)
			mapped = strcmp(a->map[k].vdisk, v->v->name) == 0;
		if ((mapped && !bmapped) || (mapped == bmapped && c > bm)) {
			bm = c;
			best = v;
			bmapped = mapped;
		}
	}
	return best;
}

void topology_stack(const struct topo_in *a, const struct entity *e, struct stack *ch)
{
	memset(ch, 0, sizeof *ch);
	ch->r_dev = ch->r_adp = NAN;
	ch->l_dev = ch->l_adp = (struct io_link){LINK_NONE, NAN, NULL};
	if (!e)
		return;
	double r;
	switch (e->layer) {
	case LAYER_GUEST: ch->guest = e; ch->vdisk = topology_vdisk_of_guest(a, e, &ch->map); break;
	case LAYER_VSCSI: ch->vdisk = e; ch->guest = guest_of_vdisk(a, e, &ch->map); break;
	case LAYER_DEVICE: ch->device = e; break;
	case LAYER_ADAPTER: ch->adapter = e; break;
	case LAYER_VOLUME: { /* a Hyper-V volume: the stack of its busiest (or mapped) VHDX */
		const struct iop_vdisk *g = vdisk_on(a, e);
		ch->volume = e;
		if (!g)
			return;
		ch->vdisk = g->v;
		ch->guest = guest_of_vdisk(a, g->v, &ch->map);
		break;
	}
	default: return;
	}
	if (ch->vdisk && !ch->volume) {
		const struct iop_vdisk *g = iopath_vdisk(a->iop, ch->vdisk);
		ch->volume = g ? g->vol : NULL;
	}
	if (ch->vdisk && !ch->device) {
		const struct iop_vdisk *g = iopath_vdisk(a->iop, ch->vdisk);
		if (g) {
			ch->back = g->back;
			ch->device = a->timed ? iopath_vdisk_dev_in(g, a->t0, a->t1, NULL) : g->dev;
			ch->l_dev = g->link;
			ch->r_dev = g->dev && g->link.how == LINK_CORR ? g->link.r : NAN;
		} else {
			ch->device = best_corr(a, ch->vdisk, LAYER_DEVICE, true, TOPO_R_VDISK_DEVICE, &ch->r_dev);
			if (ch->device) {
				ch->l_dev = corr_link(ch->r_dev, "the LUN's IOPS follow it");
				ch->back = ch->device->nfs ? BACK_NFS : BACK_LUN;
			}
		}
	}
	if (ch->device && !ch->vdisk && e->layer == LAYER_DEVICE) {
		const struct iop_vdisk *g = a->iop ? vdisk_on(a, ch->device) : NULL;
		if (g) {
			ch->vdisk = g->v;
			ch->back = g->back;
			ch->l_dev = g->link;
			ch->r_dev = g->link.how == LINK_CORR ? g->link.r : NAN;
		} else if (!a->iop) {
			ch->vdisk = best_corr(a, ch->device, LAYER_VSCSI, false, TOPO_R_VDISK_DEVICE, &r);
			ch->r_dev = r;
			if (ch->vdisk) {
				ch->l_dev = corr_link(r, "the LUN's IOPS follow it");
				ch->back = BACK_LUN;
			}
		}
		if (ch->vdisk)
			ch->guest = guest_of_vdisk(a, ch->vdisk, &ch->map);
	}
	if (ch->device && !ch->adapter && a->iop)
		adapters_by_paths(a, ch);
	if (ch->device && !ch->adapter) {
		ch->adapter = best_corr(a, ch->device, LAYER_ADAPTER, true, TOPO_R_DEVICE_ADAPTER, &ch->r_adp);
		if (ch->adapter)
			ch->l_adp = corr_link(ch->r_adp, "the adapter's IOPS follow the LUN's");
	}
}

void topology_stack_of(const struct topo_in *a, const struct finding *f, struct stack *out)
{
	struct topo_in t = *a;
	t.timed = true;
	t.t0 = f->start;
	t.t1 = f->end;
	topology_stack(&t, finding_entity(a, f, -1), out);
}

/* The IO-stack box of a finding (the kind table; BOX_BY_LAYER kinds go by the finding's layer). */
static int kind_box(const struct finding *f, bool *waits)
{
	const struct kind_info *k = &kinds[f->kind];
	*waits = k->waits;
	if (k->box != BOX_BY_LAYER)
		return k->box;
	switch (f->layer) {
	case LAYER_GUEST: case LAYER_VM: return BOX_GUEST;
	case LAYER_VSCSI: return BOX_VSCSI;
	case LAYER_WORLD: case LAYER_DEVICE: return BOX_KERNEL;
	case LAYER_ADAPTER: return BOX_ADAPTER;
	default: return BOX_ARRAY;
	}
}

static bool finding_on(const struct finding *f, const struct entity *e)
{
	return e && strcmp(f->entity, e->name) == 0 && host_same_or_unknown(f->host, e->host);
}

static bool finding_on_chain(const struct finding *f, const struct stack *ch)
{
	return finding_on(f, ch->guest) || finding_on(f, ch->vdisk) || finding_on(f, ch->device) || finding_on(f, ch->adapter) ||
	       finding_on(f, ch->volume);
}

void topology_boxes(const struct topo_in *a, const struct stack *ch, struct box_state st[BOX_COUNT])
{
	for (int i = 0; i < BOX_COUNT; i++) {
		st[i].sev = -1;
		st[i].waits = false;
		st[i].why = -1;
	}
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		if (!finding_on_chain(f, ch))
			continue;
		bool w;
		int bx = kind_box(f, &w);
		struct box_state *b = &st[bx];
		if ((int)f->sev > b->sev || (w && !b->waits && (int)f->sev >= b->sev)) {
			if ((int)f->sev > b->sev)
				b->why = (int)f->kind;
			b->sev = (int)f->sev > b->sev ? (int)f->sev : b->sev;
			if (w)
				b->why = (int)f->kind;
		}
		b->waits |= w && f->sev >= SEV_WARNING;
	}
}

size_t topology_build(const struct topo_in *a, struct shown_stack shown[TOPO_MAX_SHOWN])
{
	size_t nshown = 0;
	int worst = -1;
	for (size_t i = 0; i < a->nf; i++)
		if ((int)a->f[i].sev > worst)
			worst = (int)a->f[i].sev;
	for (size_t i = 0; i < a->nf && nshown < TOPO_MAX_SHOWN; i++) {
		const struct finding *f = &a->f[i];
		if (f->sev < SEV_WARNING && worst >= SEV_WARNING)
			continue;
		struct stack ch;
		topology_stack_of(a, f, &ch);
		if (!ch.guest && !ch.vdisk && !ch.device && !ch.adapter)
			continue;
		bool dup = false;
		for (size_t k = 0; k < nshown && !dup; k++) {
			const struct stack *o = &shown[k].s;
			dup = o->guest == ch.guest && o->vdisk == ch.vdisk && o->device == ch.device && o->adapter == ch.adapter;
		}
		if (dup)
			continue;
		shown[nshown].anchor = f;
		shown[nshown++].s = ch;
	}
	if (nshown)
		return nshown;
	/* nothing found: the busiest disk, to show the whole path is calm */
	const struct entity *busiest = NULL;
	double bi = -1;
	for (size_t i = 0; i < a->m->nents; i++) {
		const struct entity *e = &a->m->ents[i];
		int io = e->layer == LAYER_GUEST ? M_G_XFERS : e->layer == LAYER_VSCSI || e->layer == LAYER_DEVICE ? M_CMDS : -1;
		if (io < 0 || !entity_sk(e, io)->n || e->outside)
			continue;
		double v = qs_mean(entity_sk(e, io)) * (e->layer == LAYER_GUEST ? 1.01 : 1); /* prefer the guest view */
		if (v > bi) {
			bi = v;
			busiest = e;
		}
	}
	if (busiest) {
		topology_stack(a, busiest, &shown[0].s);
		shown[0].anchor = NULL;
		nshown = 1;
	}
	return nshown;
}
