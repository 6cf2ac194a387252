/* detect_rsv.c — SCSI reservation contention (scsi.reservation_conflict): a LUN's SCSI-2
 * reservations conflicting (esxtop -a Conflicts/sec, vmkernel.log D:0x18 RESERVATION CONFLICT)
 * while its IO stalls (DAVG or KAVG above their rules, aborts, or "Long VMFS rsv time" in the log):
 * the hosts take turns holding the LUN for VMFS metadata (snapshots, backups, power-ons without
 * VAAI ATS), so the wait is the locks', not the array's. Conflicts without a stall are no finding:
 * an ATS snapshot storm locks nothing (doc/rules-sources.md, "Reservations"). */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* D:0x18 lines for device d in bucket k of capture c (any host's log unless it names another). */
static long log_conflicts(const struct analysis *a, const struct capture *c, const struct entity *d, size_t k)
{
	long n = 0;
	for (size_t i = 0; a->have_vmk && i < a->vmk.n; i++) {
		const struct vmk_event *ev = &a->vmk.ev[i];
		if (ev->kind != VMK_FAILED || ev->dev_status != 0x18 || !ev->device ||
		    strcmp(ev->device, d->name) != 0 || !vmk_on_host(ev, c->host))
			continue;
		int64_t t = ev->t - c->clock_offset_ms;
		if (t > c->ds.t0[k] - (int64_t)(c->interval_s * 1000) && t <= c->ds.t1[k])
			n += ev->count;
	}
	return n;
}

/* The long VMFS reservations the log shows over [t0, t1] (aligned UTC ms): "'DS1' up to 2263 ms
 * (3 lines)", NULL when none. */
static const char *long_rsv(struct analysis *a, int64_t t0, int64_t t1)
{
	long n = 0;
	double mx = 0;
	const char *ds = NULL;
	for (size_t i = 0; a->have_vmk && i < a->vmk.n; i++) {
		const struct vmk_event *ev = &a->vmk.ev[i];
		if (ev->kind != VMK_RSV_LONG || ev->t < t0 - 60000 || ev->t > t1 + 60000)
			continue;
		n++;
		mx = fmax(mx, ev->value);
		ds = ds ? ds : ev->device;
	}
	return n ? afmt(a, "'%s' held up to %.0f ms (%ld line%s)", ds ? ds : "?", mx, n, n == 1 ? "" : "s") : NULL;
}

static void rsv_finding(struct analysis *a, const struct entity *d, const struct win *w, long nlog)
{
	const struct capture *c = cap_of(a, d);
	double davg = win_median(c, d, M_DAVG, w->k0, w->k1), kavg = win_median(c, d, M_KAVG, w->k0, w->k1);
	double cons = win_median(c, d, M_CONS, w->k0, w->k1), resv = win_median(c, d, M_RESV, w->k0, w->k1);
	double abrt = win_median(c, d, M_ABRTS, w->k0, w->k1);
	int64_t t0 = c->ds.t0[w->k0] + c->clock_offset_ms, t1 = c->ds.t1[w->k1] + c->clock_offset_ms;
	const char *lr = long_rsv(a, t0, t1);
	bool stall = davg > RVE(d, R_DAVG_WARN) || kavg > RVE(d, R_KAVG_CRIT) || abrt > 0 || lr;
	enum severity sev = !stall ? SEV_INFO : davg > RVE(d, R_DAVG_CRIT) ? SEV_CRITICAL : SEV_WARNING;
	const struct ev_spec ev[] = {
		{M_CONS, RVE(d, R_RSV_CONFLICTS)}, {M_RESV, NAN}, {M_DAVG, NAN}, {M_KAVG, NAN}, EV_END};
	struct finding *f = window_finding(a, K_RSV_CONFLICT, sev, LAYER_DEVICE, d, w, ev);
	/* the array cleared: the LUN's device latency meanwhile is the reservations' */
	struct buf folded;
	buf_init(&folded);
	size_t o = 0;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *g = &a->f[i];
		if (stall && g->kind == K_LAT_DEVICE && g->ent == f->ent && g->start <= f->end && f->start <= g->end) {
			buf_printf(&folded, "%s%s", folded.len ? ", " : "", severity_names[g->sev]);
			continue;
		}
		a->f[o++] = a->f[i];
	}
	a->nf = o;
	f = &a->f[a->nf - 1];
	const char *what =
		isnan(cons)
			? afmt(a, "vmkernel.log answered RESERVATION CONFLICT (D:0x18) %ld times", nlog)
			: afmt(a, "%.1f reservation conflicts/s (Conflicts/sec) on %.1f reservations/s%s", cons,
			       isnan(resv) ? 0 : resv, nlog ? afmt(a, ", and %ld D:0x18 in vmkernel.log", nlog) : "");
	f->summary = afmt(a,
			  "%s while its IO %s (DAVG median %.1f ms, KAVG %.1f ms%s%s) — the hosts take turns "
			  "holding the LUN for VMFS metadata (SCSI-2 reservations): the locks, not the array%s",
			  what, stall ? "stalled" : "did not stall", davg, kavg,
			  abrt > 0 ? afmt(a, ", aborts %.1f/s", abrt) : "",
			  lr ? afmt(a, "; long VMFS reservations: %s", lr) : "",
			  folded.len ? afmt(a, " (its %s device-latency finding is this)", folded.data) : "");
	f->rule = afmt(a,
		       "Conflicts/sec >= %g (esxtop -a), or D:0x18 in vmkernel.log, sustained; a finding when the LUN "
		       "stalls meanwhile (DAVG > %g ms, KAVG > %g ms, aborts, or long VMFS reservations), information "
		       "otherwise",
		       RVE(d, R_RSV_CONFLICTS), RVE(d, R_DAVG_WARN), RVE(d, R_KAVG_CRIT));
	f->source =
		"[vmw-derived practitioner tables] CONS/s > 20: VMFS locking degrades performance; [vmw] SCSI status "
		"0x18 RESERVATION CONFLICT; VAAI ATS replaces SCSI-2 reservations for VMFS locks "
		"(doc/rules-sources.md)";
	f->advice =
		afmt(a,
		     "Reduce the metadata operations that reserve %s at the same time: stagger the snapshot and "
		     "backup jobs of the VMs on this datastore (and power-ons, vMotions, thin disk growth); check "
		     "that the array supports VAAI ATS and the datastore uses it (esxcli storage core device vaai "
		     "status get -d %s; ATS-only on VMFS5/6) so locks no longer reserve the whole LUN; put fewer VMs "
		     "on the LUN. The array's latency is not the cause: do not move data or change queue depths.",
		     d->name, d->name);
	buf_free(&folded);
}

static void rsv_device(struct analysis *a, const struct entity *d)
{
	const struct capture *c = cap_of(a, d);
	if (!c->ds.nb || (!has(d, M_CONS) && !a->have_vmk))
		return;
	signed char *cond = cond_alloc(c);
	long nlog = 0;
	bool any = false;
	for (size_t k = 0; k < c->ds.nb; k++) {
		double x = val(c, d, M_CONS, k);
		long l = a->have_vmk ? log_conflicts(a, c, d, k) : 0;
		nlog += l;
		cond[k] = (x >= RVE(d, R_RSV_CONFLICTS)) || l > 0;
		any |= cond[k];
	}
	if (!any) {
		free(cond);
		return;
	}
	/* log lines are sparse: the buckets between conflicts under a minute apart hold too */
	int64_t gap = 60000;
	size_t last = SIZE_MAX;
	for (size_t k = 0; k < c->ds.nb; k++) {
		if (!cond[k])
			continue;
		if (last != SIZE_MAX && k > last + 1 && c->ds.t0[k] - c->ds.t1[last] <= gap)
			for (size_t j = last + 1; j < k; j++)
				cond[j] = 1;
		last = k;
	}
	struct win w[MAXW];
	size_t n = find_windows(&a->rules, c, cond, -1, w, MAXW);
	free(cond);
	for (size_t j = 0; j < n; j++)
		rsv_finding(a, d, &w[j], nlog);
}

void det_reservations(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *d = &a->m.ents[i];
		if (d->layer == LAYER_DEVICE && !d->nfs && !model_hyperv(&a->m, d->capture))
			rsv_device(a, d);
	}
}
