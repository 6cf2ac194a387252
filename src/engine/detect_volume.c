/* detect_volume.c — a guest volume over several disks (a dynamic striped or spanned volume, a
 * Storage Spaces virtual disk) slow because one member disk is (latency.volume_member): the member
 * answers above the guest latency band while its siblings, which carry the same volume's IO, answer
 * in under half of it. The component shared by exactly the slow IOs is that member's disk — its
 * virtual disk and that disk's datastore or LUN — not the volume, the guest or its controller,
 * which the fast siblings share (doc/io-path.md, "Volumes over several disks"). */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool vm_busy(const struct analysis *a, const struct capture *c, const struct entity *e, size_t k)
{
	double v = val(c, e, M_G_XFERS, k);
	return !isnan(v) && v >= RV(R_ACTIVE_IOPS);
}

/* At bucket k: member j above warn while every busy sibling is under warn / 2 (and one is busy). */
static bool vm_slow_at(const struct analysis *a, const struct capture *c, const struct iop_volume *x, size_t j,
		       size_t k, double warn)
{
	const struct entity *s = x->mem[j];
	double ls = guest_latency_at(c, s, k);
	if (!vm_busy(a, c, s, k) || isnan(ls) || ls <= warn)
		return false;
	bool sib = false;
	for (size_t i = 0; i < x->nmem; i++) {
		if (i == j || !vm_busy(a, c, x->mem[i], k))
			continue;
		double l = guest_latency_at(c, x->mem[i], k);
		if (isnan(l))
			continue;
		if (l >= warn / 2)
			return false;
		sib = true;
	}
	return sib;
}

/* Removes the guest-latency findings of the volume and of its slow member over [t0, t1]: this
 * finding says why they are slow. Lists them into b. */
static void vm_fold(struct analysis *a, const struct entity *vol, const struct entity *mem, int64_t t0, int64_t t1,
		    struct buf *b)
{
	size_t o = 0;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		bool fold = (f->kind == K_LAT_GUEST_READ || f->kind == K_LAT_GUEST_WRITE) && f->ent >= 0 &&
			    (&a->m.ents[f->ent] == vol || &a->m.ents[f->ent] == mem) && f->start <= t1 && t0 <= f->end;
		if (fold) {
			buf_printf(b, "%s%s of %s", b->len ? ", " : "", kinds[f->kind].name, f->entity);
			continue;
		}
		a->f[o++] = a->f[i];
	}
	a->nf = o;
}

/* What to check: the member's virtual disk and LUN when the disk map and the IO path name them. */
static const char *vm_advice(struct analysis *a, const struct entity *mem)
{
	const struct diskmap_entry *me = NULL;
	const struct entity *v = analysis_clock_untrusted(a, mem->capture) ? NULL : mapped_vdisk(a, mem, &me);
	const struct iop_vdisk *d = v ? iopath_vdisk(&a->iop, v) : NULL;
	const char *lun =
	    d && d->dev ? afmt(a, " on %s %s", d->back == BACK_NFS ? "NFS volume" : "LUN", d->dev->name) : "";
	if (v)
		return afmt(a,
			    "Check %s's virtual disk %s and its datastore%s (its latency at the host, the LUN's "
			    "load and neighbours, a snapshot on it): the volume's other disks answer fast, so "
			    "neither the volume's layout, the guest nor its controller queue is the cause.",
			    mem->name, v->name, lun);
	return afmt(a,
		    "Check the virtual disk behind %s and its datastore / LUN: give the host's esxtop for the same "
		    "period with a disk map line (%s\\%s = VM:scsiC:T) to see which it is and where its time goes. "
		    "The volume's other disks answer fast, so neither the volume's layout, the guest nor its "
		    "controller queue is the cause.",
		    mem->name, mem->host ? mem->host : "GUEST", mem->name);
}

static void vm_finding(struct analysis *a, const struct iop_volume *x, size_t j, const struct win *w)
{
	const struct entity *vol = x->vol, *mem = x->mem[j];
	const struct capture *c = cap_of(a, vol);
	double warn = RVE(mem, R_GUEST_LAT_WARN), crit = RVE(mem, R_GUEST_LAT_CRIT);
	struct qsketch qs, qf;
	qs_init(&qs);
	qs_init(&qf);
	long n = 0, above = 0;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t k = w->k0; k <= w->k1; k++)
		for (size_t i = 0; i < x->nmem; i++) {
			double l = guest_latency_at(c, x->mem[i], k);
			if (isnan(l) || !vm_busy(a, c, x->mem[i], k))
				continue;
			qs_add(i == j ? &qs : &qf, l);
			if (i == j) {
				n++;
				above += l > warn;
				lo = fmin(lo, l);
				hi = fmax(hi, l);
			}
		}
	double ms = qs_quantile(&qs, 0.5), mf = qs_quantile(&qf, 0.5), p95 = qs_quantile(&qs, 0.95);
	qs_free(&qs);
	qs_free(&qf);
	const struct ev_spec ev[] = {{M_G_LAT_R, NAN}, {M_G_LAT_W, NAN}, {M_G_XFERS, NAN}, EV_END};
	struct finding *f =
	    window_finding(a, K_LAT_VOL_MEMBER, ms > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_GUEST, vol, w, ev);
	/* the first evidence is the slow member's latency, not the volume's mean over its disks */
	memmove(&f->ev[1], &f->ev[0], (MAX_EVIDENCE - 1) * sizeof f->ev[0]);
	f->ev[0] = (struct evidence){.metric = M_G_LAT_T,
				     .min = lo,
				     .median = ms,
				     .p95 = p95,
				     .max = hi,
				     .samples = n,
				     .above = above,
				     .threshold = warn};
	f->nev = f->nev + 1 < MAX_EVIDENCE ? f->nev + 1 : MAX_EVIDENCE;
	f->heuristic = x->link.how == LINK_CORR;
	struct buf folded, mems;
	buf_init(&folded);
	buf_init(&mems);
	for (size_t i = 0; i < x->nmem && mems.len < 300; i++)
		buf_printf(&mems, "%s%s", i ? ", " : "", x->mem[i]->name);
	vm_fold(a, vol, mem, f->start - (int64_t)(c->interval_s * 2000), f->end, &folded);
	f = &a->f[a->nf - 1]; /* folding moves findings; this one is the last */
	f->summary =
	    afmt(a,
		 "%s is slow because its member %s answers at %.1f ms (median) while its %zu sibling%s "
		 "answer%s at %.1f ms: check that virtual disk's datastore / LUN (the volume's disks: %s; %s%s)%s",
		 vol->name, mem->name, ms, x->nmem - 1, x->nmem == 2 ? "" : "s", x->nmem == 2 ? "s" : "", mf,
		 mems.data ? mems.data : "", x->link.how == LINK_ID ? "a fact: " : "", x->link.why,
		 folded.len ? afmt(a, " (the %s are this)", folded.data) : "");
	f->rule =
	    afmt(a,
		 "one member disk of a volume over several disks above %g ms (guest latency) while every busy "
		 "sibling is under %g ms, sustained; the volume's queue is judged against the sum of its members' "
		 "per-disk limits",
		 warn, warn / 2);
	f->source = "[ms: AskCore 2012, 'Windows Performance Monitor Disk Counters Explained'] a volume spanning "
		    "several disks counts its IO on each of them; [derived] a component shared by exactly the slow IOs "
		    "(doc/io-path.md)";
	f->advice = vm_advice(a, mem);
	buf_free(&folded);
	buf_free(&mems);
}

void det_volume_member(struct analysis *a)
{
	for (size_t v = 0; v < a->iop.nvol; v++) {
		const struct iop_volume *x = &a->iop.vol[v];
		if (x->nmem < 2 || x->vol->outside)
			continue;
		const struct capture *c = cap_of(a, x->vol);
		for (size_t j = 0; j < x->nmem; j++) {
			double warn = RVE(x->mem[j], R_GUEST_LAT_WARN);
			signed char *cond = cond_alloc(c);
			for (size_t k = 0; k < c->ds.nb; k++)
				cond[k] = vm_slow_at(a, c, x, j, k, warn);
			struct win w[MAXW];
			size_t n = find_windows(&a->rules, c, cond, -1, w, MAXW);
			free(cond);
			for (size_t i = 0; i < n; i++)
				vm_finding(a, x, j, &w[i]);
		}
	}
}
