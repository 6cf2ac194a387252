/* detect_pathgrp.c — one group of paths inside an adapter slow while its sibling paths to the same
 * LUNs are fast (latency.path): a software iSCSI adapter's port binding puts each vmknic on its own
 * channel (vmhba64:C0:* and vmhba64:C1:*), an FC or NVMe adapter reaches each array port as its own
 * target (vmhba2:C0:T0:* and vmhba2:C0:T1:*). The component shared by exactly the slow paths — the
 * vmknic, its uplink and switch port, or the array port — is the cause, not the LUNs
 * (doc/io-path.md). latency.hba compares adapters; this compares the paths of one adapter. */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The dimensions a path group is told by: the channel (C) or the target (T) of vmhbaN:C:T:L. */
enum pg_dim { PG_CHANNEL, PG_TARGET };

/* The number after "<letter>" in the runtime name ("vmhba64:C1:T0:L3", 'C' -> 1); -1 when absent. */
static int rt_field(const char *name, char letter)
{
	const char *v = strstr(name, "vmhba");
	if (!v)
		return -1;
	for (const char *s = strchr(v, ':'); s; s = strchr(s + 1, ':'))
		if (s[1] == letter && s[2] >= '0' && s[2] <= '9')
			return (int)strtol(s + 2, NULL, 10);
	return -1;
}

static int pg_of(const struct iop_path *p, enum pg_dim d)
{
	return rt_field(p->p->name, d == PG_CHANNEL ? 'C' : 'T');
}

static double pg_davg(const struct capture *c, const struct iop_path *p, size_t k)
{
	double d = val(c, p->p, M_DAVG, k);
	return isnan(d) ? val(c, p->p, M_GAVG, k) : d;
}

static bool pg_busy(const struct analysis *a, const struct capture *c, const struct iop_path *p, size_t k)
{
	double v = val(c, p->p, M_CMDS, k);
	return !isnan(v) && v >= RV(R_ACTIVE_IOPS);
}

/* The paths of adapter ad in capture ci that are tied to a device and have a value of d. */
static bool pg_member(const struct iop_path *p, size_t ci, const char *ad, enum pg_dim d)
{
	return p->p->capture == ci && p->dev && strcmp(p->adapter, ad) == 0 && pg_of(p, d) >= 0 &&
	       p->p->series[M_DAVG] >= 0;
}

/* At bucket k: group v of adapter ad slow (>= 75 % of its busy commands on paths above warn, on at
 * least one LUN that a sibling group serves under warn / 2 at the same time) while every busy
 * sibling path is under warn / 2. */
static bool pg_slow_at(const struct analysis *a, const struct capture *c, size_t ci, const char *ad, enum pg_dim d,
		       int v, size_t k, double warn)
{
	const struct iopath *g = &a->iop;
	double cm_all = 0, cm_slow = 0;
	bool sib_busy = false, shared = false;
	for (size_t i = 0; i < g->np; i++) {
		const struct iop_path *p = &g->p[i];
		if (!pg_member(p, ci, ad, d) || !pg_busy(a, c, p, k))
			continue;
		double x = pg_davg(c, p, k), cm = val(c, p->p, M_CMDS, k);
		if (isnan(x))
			continue;
		if (pg_of(p, d) != v) {
			if (x >= warn / 2)
				return false;
			sib_busy = true;
			continue;
		}
		cm_all += cm;
		if (x <= warn)
			continue;
		cm_slow += cm;
		for (size_t j = 0; j < g->np && !shared; j++) {
			const struct iop_path *q = &g->p[j];
			shared = pg_member(q, ci, ad, d) && q->dev == p->dev && pg_of(q, d) != v &&
				 pg_busy(a, c, q, k) && pg_davg(c, q, k) < warn / 2;
		}
	}
	return sib_busy && shared && cm_all > 0 && cm_slow >= 0.75 * cm_all;
}

/* Removes the device-latency findings of the devices the group's paths reach over [t0, t1]; lists
 * them into b. */
static void pg_fold(struct analysis *a, size_t ci, const char *ad, enum pg_dim d, int v, int64_t t0, int64_t t1,
		    struct buf *b)
{
	size_t o = 0;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		bool fold = false;
		for (size_t j = 0; f->kind == K_LAT_DEVICE && f->ent >= 0 && j < a->iop.np && !fold; j++) {
			const struct iop_path *p = &a->iop.p[j];
			fold = pg_member(p, ci, ad, d) && pg_of(p, d) == v && p->dev == &a->m.ents[f->ent] &&
			       f->start <= t1 && t0 <= f->end;
		}
		if (fold) {
			if (!strstr(b->data ? b->data : "", f->entity))
				buf_printf(b, "%s%s", b->len ? ", " : "", f->entity);
			continue;
		}
		a->f[o++] = a->f[i];
	}
	a->nf = o;
}

/* What to check for the group: a software iSCSI port binding's channel is one vmknic. */
static const char *pg_advice(struct analysis *a, const char *grp, enum pg_dim d)
{
	if (d == PG_CHANNEL)
		return afmt(a,
			    "Check the network path of %s: the VMkernel port (vmknic) bound to this channel "
			    "(esxcli iscsi networkportal list), its physical uplink and the switch port it reaches "
			    "(errors, drops, speed and duplex), and that the MTU matches end to end (vmkping -d -s "
			    "8972 to the target for jumbo frames). On FC or NVMe, the channel's link. Until then "
			    "take its paths out of service (esxcli storage core path set --state=off) so the IO "
			    "uses the healthy channel. Not the LUNs or the array's back end: they answer fast through "
			    "the other channel; queue depths will not help.",
			    grp);
	return afmt(a,
		    "Check the way to target %s: the array port it is (its errors and load), the switch "
		    "port and link towards it, and for iSCSI the portal's network. Until then take these paths out "
		    "of service (esxcli storage core path set --state=off) so the IO uses the healthy target. Not "
		    "the LUNs or the array's back end: they answer fast through the other target; queue depths "
		    "will not help.",
		    grp);
}

static void pg_finding(struct analysis *a, size_t ci, const char *ad, enum pg_dim d, int v, const struct win *w)
{
	const struct iopath *g = &a->iop;
	const struct capture *c = &a->m.caps[ci];
	double warn = RV(R_DAVG_WARN), crit = RV(R_DAVG_CRIT);
	struct qsketch qs, qf;
	qs_init(&qs);
	qs_init(&qf);
	struct buf paths;
	buf_init(&paths);
	const struct entity *adp = NULL;
	long n_s = 0, above = 0;
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < g->np; i++) {
		const struct iop_path *p = &g->p[i];
		if (!pg_member(p, ci, ad, d))
			continue;
		adp = adp ? adp : p->adp;
		bool mine = pg_of(p, d) == v, busy = false;
		for (size_t k = w->k0; k <= w->k1; k++) {
			double x = pg_davg(c, p, k);
			if (!pg_busy(a, c, p, k) || isnan(x))
				continue;
			busy = true;
			qs_add(mine ? &qs : &qf, x);
			if (mine) {
				n_s++;
				above += x > warn;
				lo = fmin(lo, x);
				hi = fmax(hi, x);
			}
		}
		if (mine && busy && paths.len < 400)
			buf_printf(&paths, "%s%s (%s)", paths.len ? ", " : "", p->p->name, p->dev->name);
	}
	double ms = qs_quantile(&qs, 0.5), mf = qs_quantile(&qf, 0.5), p95 = qs_quantile(&qs, 0.95);
	qs_free(&qs);
	qs_free(&qf);
	const char *grp = afmt(a, "%s:%c%d", ad, d == PG_CHANNEL ? 'C' : 'T', v);
	enum severity sev = ms > crit ? SEV_CRITICAL : SEV_WARNING;
	struct finding *f;
	if (adp) {
		const struct ev_spec ev[] = {{M_DAVG, warn}, {M_CMDS, NAN}, EV_END};
		f = window_finding(a, K_LAT_PATH, sev, LAYER_ADAPTER, adp, w, ev);
	} else {
		f = finding_new(a, K_LAT_PATH, sev, LAYER_ADAPTER, ad, c->host);
		f->capture = (long)ci;
		set_window(f, c, w);
	}
	f->entity = grp;
	/* the evidence is the group's paths, not the adapter's mean over every channel */
	f->ev[0] = (struct evidence){.metric = M_DAVG,
				     .min = lo,
				     .median = ms,
				     .p95 = p95,
				     .max = hi,
				     .samples = n_s,
				     .above = above,
				     .threshold = warn};
	f->nev = f->nev ? f->nev : 1;
	struct buf folded;
	buf_init(&folded);
	pg_fold(a, ci, ad, d, v, f->start - (int64_t)(c->interval_s * 2000), f->end, &folded);
	f = &a->f[a->nf - 1]; /* folding moves findings; this one is the last */
	const char *what = d == PG_CHANNEL ? "channel" : "target";
	f->summary =
		afmt(a,
		     "the paths of %s %s are slow (DAVG median %.1f ms: %s) while the same LUNs' paths through "
		     "%s's other %ss answer in %.1f ms: %s — not the LUNs or the array%s",
		     what, grp, ms, paths.data ? paths.data : "", ad, what, mf,
		     d == PG_CHANNEL ? "a network path inside the adapter (for software iSCSI, one bound vmknic, its "
				       "uplink or switch port)"
				     : "the way to one target (the array port, or the link to it)",
		     folded.len ? afmt(a, " (the device latency of %s is this)", folded.data) : "");
	f->rule =
		afmt(a,
		     "the busy paths of one %s of an adapter (>= 75%% of its commands) above %g ms (DAVG) while "
		     "every busy path of its other %ss is under %g ms, and a LUN slow through it is served under %g ms "
		     "through another, sustained",
		     what, warn, what, warn / 2, warn / 2);
	f->source = "[vmw vSphere 6.7 monitoring guide] device latency > 15 ms; [vmw vSphere Storage, iSCSI port "
		    "binding] each bound VMkernel port is its own path (channel); [derived] a component shared by "
		    "exactly the slow paths (doc/io-path.md)";
	f->advice = pg_advice(a, grp, d);
	buf_free(&paths);
	buf_free(&folded);
}

/* Runs the rule for one dimension over the adapters of capture ci. */
static size_t pg_capture(struct analysis *a, size_t ci, enum pg_dim d)
{
	size_t made = 0;
	const struct iopath *g = &a->iop;
	const struct capture *c = &a->m.caps[ci];
	double warn = RV(R_DAVG_WARN);
	for (size_t i = 0; i < g->np; i++) {
		const struct iop_path *p = &g->p[i];
		if (!pg_member(p, ci, p->adapter, d))
			continue;
		/* each (adapter, group) once: at its first path */
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = !(pg_member(&g->p[j], ci, p->adapter, d) && pg_of(&g->p[j], d) == pg_of(p, d));
		bool sibling = false;
		for (size_t j = 0; j < g->np && !sibling; j++)
			sibling = pg_member(&g->p[j], ci, p->adapter, d) && pg_of(&g->p[j], d) != pg_of(p, d);
		if (!first || !sibling)
			continue;
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++)
			cond[k] = pg_slow_at(a, c, ci, p->adapter, d, pg_of(p, d), k, warn);
		struct win w[MAXW];
		size_t n = find_windows(&a->rules, c, cond, -1, w, MAXW);
		free(cond);
		for (size_t j = 0; j < n; j++)
			pg_finding(a, ci, p->adapter, d, pg_of(p, d), &w[j]);
		made += n;
	}
	return made;
}

void det_path_group(struct analysis *a)
{
	for (size_t ci = 0; ci < a->m.ncaps; ci++) {
		if (!pg_capture(a, ci, PG_CHANNEL)) /* a slow channel's targets are slow too: said once */
			pg_capture(a, ci, PG_TARGET);
	}
}
