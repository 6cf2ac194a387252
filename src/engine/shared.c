/* shared.c — who loads a shared LUN: for each finding on a device, the load of its worlds' IO over
 * the finding's time by VM (the IO path graph, iopath.h), the VM that drives it and the VMs that
 * wait behind it (analysis_shared_load in analysis.h). A world's VM is read from the capture's
 * Vcpu columns when it has them, else guessed from IOPS and said so. */
#include "analysis.h"

#include <math.h>
#include <string.h>
#include <strings.h>

/* A VM drives a shared LUN when it issues at least this share of its commands while another VM
 * on the LUN waits ([derived]: twice as many as all the others together). */
#define DRIVER_SHARE (2.0 / 3.0)

static bool load_kind(enum kind k)
{
	switch (k) {
	case K_LAT_DEVICE: case K_LAT_KERNEL: case K_Q_DEVICE_SATURATED: case K_T_AQD: case K_T_SIOC: case K_T_DSNRO:
	case K_Q_ARRAY_OVERCOMMIT:
		return true;
	default:
		return false;
	}
}

static const char *pct(struct analysis *a, double x) { return afmt(a, "%.0f%%", 100 * x); }

/* Latency of virtual disk v over [t0, t1]: the larger direction's mean (ms), NaN without one. */
static double vd_lat(const struct analysis *a, const struct entity *v, int64_t t0, int64_t t1)
{
	double r = iop_window_mean(&a->m, v, M_VD_LAT_R, t0, t1), w = iop_window_mean(&a->m, v, M_VD_LAT_W, t0, t1);
	return isnan(r) ? w : isnan(w) ? r : r > w ? r : w;
}

/* Whether a guest disk mapped to virtual disk v has a latency or guest-queue finding (a warning or
 * worse) overlapping [t0, t1]. */
static bool guest_waits(const struct analysis *a, const struct entity *v, int64_t t0, int64_t t1)
{
	for (size_t i = 0; i < a->nmap; i++) {
		if (strcmp(a->map[i].vdisk, v->name) != 0)
			continue;
		for (size_t k = 0; k < a->nf; k++) {
			const struct finding *f = &a->f[k];
			bool guest_kind = f->kind == K_LAT_GUEST_READ || f->kind == K_LAT_GUEST_WRITE || f->kind == K_Q_GUEST_HIDDEN;
			if (guest_kind && f->sev >= SEV_WARNING && f->start <= t1 && t0 <= f->end &&
			    strcmp(f->entity, a->map[i].guest_disk) == 0 &&
			    (!f->host || !a->map[i].guest_host || strcasecmp(f->host, a->map[i].guest_host) == 0))
				return true;
		}
	}
	return false;
}

/* Whether VM vm's virtual disks on device d wait during [t0, t1]: one's latency then is at least
 * 1.3 times and 0.5 ms above its latency over the rest of the capture; sets *vd, *in, *out. */
static bool vm_waits(const struct analysis *a, const struct entity *d, const char *vm, int64_t t0, int64_t t1,
		     const struct entity **vd, double *in, double *out)
{
	const struct capture *c = &a->m.caps[d->capture];
	int64_t cs = c->start + c->clock_offset_ms, ce = c->end + c->clock_offset_ms;
	bool any = false;
	for (size_t i = 0; i < a->iop.nvd; i++) {
		const struct iop_vdisk *g = &a->iop.vd[i];
		if (g->dev != d || strcmp(g->vm, vm) != 0)
			continue;
		double li = vd_lat(a, g->v, t0, t1);
		/* the rest of the capture: before and after the window, weighted by their lengths */
		double lb = t0 > cs ? vd_lat(a, g->v, cs, t0 - 1) : NAN, la = t1 < ce ? vd_lat(a, g->v, t1 + 1, ce) : NAN;
		double wb = isnan(lb) ? 0 : (double)(t0 - cs), wa = isnan(la) ? 0 : (double)(ce - t1);
		double lo = wb + wa > 0 ? ((isnan(lb) ? 0 : lb * wb) + (isnan(la) ? 0 : la * wa)) / (wb + wa) : NAN;
		if (!*vd) {
			*vd = g->v;
			*in = li;
			*out = lo;
		}
		/* without the rest of the capture to compare with (the load lasts the whole capture),
		 * a disk that waits about as long as the LUN's commands do (DAVG + KAVG) waits with them */
		double lun = iop_window_mean(&a->m, d, M_DAVG, t0, t1), k = iop_window_mean(&a->m, d, M_KAVG, t0, t1);
		double lun_lat = (isnan(lun) ? 0 : lun) + (isnan(k) ? 0 : k);
		bool rose = !isnan(li) && !isnan(lo) && li >= 1.3 * lo && li >= lo + 0.5;
		bool with_lun = !isnan(li) && isnan(lo) && lun_lat >= 2 && li >= 0.5 * lun_lat;
		if (rose || with_lun || guest_waits(a, g->v, t0, t1)) {
			*vd = g->v;
			*in = li;
			*out = lo;
			any = true;
		}
	}
	return any;
}

/* "APP03 95% of its commands (97% of those outstanding), SQL01 5% (per-world IO)": the four
 * busiest shares, the first with first_words (and its share of the outstanding IOs when asked),
 * then tail (arena). */
static const char *load_line(struct analysis *a, const struct iop_share *s, size_t n, const char *first_words,
			     bool outstanding, const char *tail)
{
	struct buf b;
	buf_init(&b);
	for (size_t k = 0; k < n && k < 4; k++) {
		buf_printf(&b, "%s%s %s", k ? ", " : "", s[k].who, pct(a, s[k].share));
		if (k == 0) {
			buf_adds(&b, first_words);
			if (outstanding && !isnan(s[k].actv_share))
				buf_printf(&b, " (%s of those outstanding)", pct(a, s[k].actv_share));
		}
	}
	if (n > 4)
		buf_adds(&b, ", ...");
	buf_adds(&b, tail);
	const char *r = afmt(a, "%s", b.data);
	buf_free(&b);
	return r;
}

/* A Hyper-V host disk's finding: the VHDX files on it by their share of its IO (the IO path graph:
 * VHDX → volume from its path, volume → disk from IOPS), and the VM whose VHDX drives it while
 * another VM's VHDX waits (its Latency up against the rest of the capture). */
static void hv_load(struct analysis *a, struct finding *f, const struct entity *d)
{
	struct iop_share s[IOP_MAX_SHARES];
	size_t n = iopath_hv_load(&a->iop, &a->m, d, f->start, f->end, s, IOP_MAX_SHARES, &a->arena);
	if (!n)
		return;
	bool guessed = false;
	for (size_t k = 0; k < n && k < 4; k++)
		guessed |= s[k].how == LINK_CORR;
	f->load = load_line(a, s, n, " of the IO this node's VHDX files send it", false,
			    guessed ? " (VHDX counters; the volume's disk guessed from IOPS: no counter names it)"
				    : " (VHDX counters)");
	if (n < 2 || s[0].share < DRIVER_SHARE)
		return;
	const struct capture *c = &a->m.caps[d->capture];
	int64_t cs = c->start + c->clock_offset_ms, ce = c->end + c->clock_offset_ms;
	struct buf v;
	buf_init(&v);
	const struct entity *first = NULL;
	double fin = NAN, fout = NAN, fcmds = -1;
	const struct iop_vdisk *driver = iopath_vdisk(&a->iop, s[0].one); /* the VHDX with most of the IO */
	const char *driver_vm = driver ? driver->vm : NULL;
	const char *names[64];
	size_t nnames = 0;
	/* the VMs whose VHDX files on the disk wait (not the driver's own); the busiest one's figures */
	for (size_t i = 0; i < a->iop.nvd; i++) {
		const struct iop_vdisk *g = &a->iop.vd[i];
		if (g->dev != d || g == driver)
			continue;
		const char *file = iop_vhdx_file(g->v->name);
		double li = iop_window_mean(&a->m, g->v, M_HV_LAT, f->start, f->end);
		double lb = f->start > cs ? iop_window_mean(&a->m, g->v, M_HV_LAT, cs, f->start - 1) : NAN;
		double la = f->end < ce ? iop_window_mean(&a->m, g->v, M_HV_LAT, f->end + 1, ce) : NAN;
		double lo = isnan(lb) ? la : isnan(la) ? lb : (lb + la) / 2;
		bool rose = !isnan(li) && !isnan(lo) && li >= 1.3 * lo && li >= lo + 0.5;
		if (!rose || (g->vm && driver_vm && strcmp(g->vm, driver_vm) == 0))
			continue;
		double io = iop_window_mean(&a->m, g->v, M_CMDS, f->start, f->end);
		if (!first || (!isnan(io) && io > fcmds)) {
			first = g->v;
			fin = li;
			fout = lo;
			fcmds = isnan(io) ? -1 : io;
		}
		const char *name = g->vm ? g->vm : file;
		bool listed = false;
		for (size_t k = 0; k < nnames && !listed; k++)
			listed = strcmp(names[k], name) == 0;
		if (listed)
			continue;
		if (nnames < sizeof names / sizeof names[0])
			names[nnames++] = name;
		buf_printf(&v, "%s%s", v.len ? ", " : "", name);
	}
	if (v.len) {
		f->driver = s[0].who;
		f->driver_share = s[0].share;
		f->victims = afmt(a, "%s", v.data);
		f->victim_vdisk = first->name;
		const char *bytes = !isnan(s[0].mb_share) && fabs(s[0].mb_share - s[0].share) >= 0.05
					    ? afmt(a, " (%s of the bytes)", pct(a, s[0].mb_share)) : "";
		double niops = driver ? iop_window_mean(&a->m, driver->v, M_HV_NIOPS, f->start, f->end) : NAN;
		f->summary = afmt(a, "%s; %s issues %s of the IO this node's VHDX files send it%s while %s waits (%s: %.1f ms, "
				     "%.1f ms the rest of the capture)", f->summary, f->driver, pct(a, f->driver_share), bytes,
				  f->victims, iop_vhdx_file(first->name), fin, fout);
		f->advice = afmt(a, "The host disk is shared: %s drives it and %s waits behind it. Cap %s with a Storage QoS "
				    "maximum%s (Set-VMHardDiskDrive -MaximumIOPS, or a Dedicated policy: New-StorageQosPolicy; "
				    "Get-StorageQosFlow shows every node's flows to the volume), or move one of the two VMs' VHDX "
				    "files to a volume on another LUN (Move-VMStorage). perfmon counts this node's IO only: other "
				    "cluster nodes using the same LUN add to its queue; ask the storage team about the LUN's "
				    "latency at the array too.", f->driver, f->victims, f->driver,
				 isnan(niops) ? "" : afmt(a, " well under the %.0f normalized IOPS it issues now", niops));
	}
	buf_free(&v);
}

void analysis_shared_load(struct analysis *a)
{
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *f = &a->f[i];
		if (f->kind == K_LAT_HOST_DISK && f->ent >= 0 && (size_t)f->ent < a->m.nents) {
			hv_load(a, f, &a->m.ents[f->ent]);
			continue;
		}
		if (!load_kind(f->kind) || f->ent < 0 || (size_t)f->ent >= a->m.nents)
			continue;
		const struct entity *d = &a->m.ents[f->ent];
		if (d->layer != LAYER_DEVICE || d->nfs)
			continue;
		struct iop_share s[IOP_MAX_SHARES];
		size_t n = iopath_device_load(&a->iop, &a->m, d, f->start, f->end, s, IOP_MAX_SHARES, &a->arena);
		if (n < 2 && !(n == 1 && s[0].share < 0.999))
			continue; /* one world alone: nobody to share with */
		bool guessed = false;
		for (size_t k = 0; k < n && k < 4; k++)
			guessed |= s[k].is_vm && s[k].how == LINK_CORR;
		f->load = load_line(a, s, n, " of its commands", true,
				    guessed ? " (per-world IO; a world's VM guessed from IOPS where the capture does not name it)"
					    : " (per-world IO)");
		/* the neighbour: a VM with most of the commands while another VM on the LUN waits */
		if (!s[0].is_vm || s[0].share < DRIVER_SHARE)
			continue;
		struct buf v;
		buf_init(&v);
		const struct entity *first_vd = NULL;
		double first_in = NAN, first_out = NAN;
		for (size_t k = 1; k < n; k++) {
			if (!s[k].is_vm)
				continue;
			const struct entity *vd = NULL;
			double in = NAN, out = NAN;
			if (!vm_waits(a, d, s[k].who, f->start, f->end, &vd, &in, &out))
				continue;
			buf_printf(&v, "%s%s", v.len ? ", " : "", s[k].who);
			if (!first_vd) {
				first_vd = vd;
				first_in = in;
				first_out = out;
			}
		}
		if (v.len) {
			f->driver = s[0].who;
			f->driver_share = s[0].share;
			f->victims = afmt(a, "%s", v.data);
			f->victim_vdisk = first_vd ? first_vd->name : NULL;
			const char *fig = isnan(first_in) ? ""
					  : isnan(first_out) ? afmt(a, " (%s: %.1f ms)", first_vd->name, first_in)
							     : afmt(a, " (%s: %.1f ms, %.1f ms the rest of the capture)", first_vd->name,
								    first_in, first_out);
			f->summary = afmt(a, "%s; %s issues %s of the LUN's commands while %s waits%s", f->summary, f->driver,
					  pct(a, f->driver_share), f->victims, fig);
			/* a queue the VMs share: separating them is the fix, not a deeper queue (which the
			 * queue findings' own advice would say); the array's advice still holds for DAVG */
			bool queue = f->kind != K_LAT_DEVICE && f->kind != K_Q_ARRAY_OVERCOMMIT;
			double davg = iop_window_mean(&a->m, d, M_DAVG, f->start, f->end);
			f->advice = afmt(a, "The LUN is shared: %s drives it (%s) and %s waits behind it. Move one of them to "
					    "another LUN, or give %s its own LUN; a deeper queue would let %s take still more "
					    "of it%s.%s%s", f->driver, f->load, f->victims, first_vd->name, f->driver,
					 queue && !isnan(davg) ? afmt(a, " (DAVG %.1f ms: the array keeps up; the queue the VMs share "
									  "is what fills)", davg) : "",
					 queue ? "" : " ", queue ? "" : f->advice);
		}
		buf_free(&v);
	}
}
