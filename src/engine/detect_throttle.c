/* detect_throttle.c — the throttling detectors: the DSNRO cap, adaptive queue depth (QUEUE FULL
 * throttling), Storage I/O Control, and a DQLEN or AQLEN step inside the capture. */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- DSNRO cap ---- */

static bool dsnro_applies(const struct analysis *a, const struct entity *e) { (void)a; return has(e, M_WORLDS) && has(e, M_DQLEN); }
static bool dsnro_cond(const struct analysis *a, const struct entity *e)
{
	double dq = CUR(e, M_DQLEN), wo = CUR(e, M_WORLDS), actv = CUR(e, M_ACTV), qd = CUR(e, M_QUED);
	bool pressure = actv >= dq - 1 || qd >= 1;
	return fabs(dq - RVE(e, R_DSNRO)) < 0.5 && wo >= RVE(e, R_DSNRO_WORLDS) && pressure;
}
static double dsnro_ev_thr(const struct analysis *a, const struct entity *e, int k)
{
	return k == 1 ? RVE(e, R_DSNRO_WORLDS) - 0.5 : NAN;
}

const struct stream_rule sr_dsnro = {
	.layer = LAYER_DEVICE, .applies = dsnro_applies, .cond = dsnro_cond,
	.signal = -1, .ev = {M_DQLEN, M_WORLDS, M_ACTV, M_QUED, -1}, .ctx = {-1, -1}, .ev_thr = dsnro_ev_thr,
};

void dsnro_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	double dsnro = RVE(e, R_DSNRO);
	if (!(e->dq_max > dsnro + 0.5))
		return; /* never seen above DSNRO: the HBA depth itself may be 32 */
	struct finding *f = episode_finding(a, w, SEV_WARNING, LAYER_DEVICE);
	f->summary = afmt(a, "DQLEN capped at DSNRO (%g) while several VMs issue IO to the LUN; it is %.0f "
			     "when one VM is alone", dsnro, e->dq_max);
	f->rule = afmt(a, "DQLEN = %g with >= %g active worlds and the queue in use, and DQLEN seen higher "
			  "at other times", dsnro, RVE(e, R_DSNRO_WORLDS));
	f->source = "[vmw] Disk.SchedNumReqOutstanding (default 32) caps a LUN's outstanding IO when more "
		    "than one VM is active on it; per device since 5.5; ignored when SIOC is on";
	f->advice = afmt(a, "Raise DSNRO for this device to the HBA LUN queue depth (%.0f) with "
			    "'esxcli storage core device set -d %s -O %.0f', or enable SIOC, so that "
			    "several VMs together can use the whole LUN queue.",
			 e->dq_max, e->name, e->dq_max);
}

/* ---- throttling: AQD, SIOC, DSNRO ---- */


static long vmk_count(const struct analysis *a, const char *dev, const char *host, enum vmk_kind k, int64_t t0, int64_t t1)
{
	if (!a->have_vmk)
		return -1;
	long n = 0;
	for (size_t i = 0; i < a->vmk.n; i++) {
		const struct vmk_event *e = &a->vmk.ev[i];
		if (e->kind == k && e->t >= t0 && e->t <= t1 && strcmp(e->device, dev) == 0 && vmk_on_host(e, host))
			n += e->count;
	}
	return n;
}

void det_aqd(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		struct entity *e = &a->m.ents[i];
		if (e->layer != LAYER_DEVICE || e->ndq == 0)
			continue;
		const struct capture *c = cap_of(a, e);
		/* episodes: a halving, then +1 steps */
		size_t q = 0;
		while (q < e->ndq) {
			const struct dq_event *h = &e->dq[q];
			bool halving = h->from >= 4 && h->to <= RVE(e, R_AQD_HALF_RATIO) * h->from;
			if (!halving) {
				q++;
				continue;
			}
			int64_t t0 = h->t, t1 = h->t;
			long halvings = 0, steps = 0;
			float lo = h->to;
			size_t r = q;
			for (; r < e->ndq; r++) {
				const struct dq_event *x = &e->dq[r];
				bool hv = x->from >= 2 && x->to <= RVE(e, R_AQD_HALF_RATIO) * x->from;
				if (x->t - t1 > (int64_t)(rule_value(&a->rules, R_QFULL_GAP_S) * 1000) && r > q)
					break;
				if (hv) {
					halvings++;
				} else if (x->to - x->from == 1) {
					steps++;
				} else if (x->to > x->from) {
					steps++; /* a coarse step when samples are sparse */
				}
				if (x->to < lo)
					lo = x->to;
				t1 = x->t;
			}
			q = r;
			if (halvings < 1 || steps < (long)RVE(e, R_AQD_MIN_STEPS))
				continue;
			long reduced = vmk_count(a, e->name, e->host, VMK_REDUCE, t0 - 60000, t1 + 60000);
			long qfull = vmk_count(a, e->name, e->host, VMK_QFULL, t0 - 60000, t1 + 60000) +
				     vmk_count(a, e->name, e->host, VMK_BUSY, t0 - 60000, t1 + 60000);
			struct finding *f = finding_new(a, K_T_AQD,
							reduced > 0 || qfull > 0 ? SEV_CRITICAL : SEV_WARNING, LAYER_DEVICE,
							e->name, e->host);
			f->capture = (long)e->capture;
			f->ent = e - a->m.ents;
			struct win w = {bucket_of(c, t0), bucket_of(c, t1), 0};
			f->start = t0 - (int64_t)(c->interval_s * 1000) + c->clock_offset_ms;
			f->end = t1 + c->clock_offset_ms;
			f->sustained_s = (double)(t1 - t0) / 1000.0 + c->interval_s;
			evidence_add(f, c, e, M_DQLEN, w.k0, w.k1, NAN);
			evidence_add(f, c, e, M_ACTV, w.k0, w.k1, NAN);
			evidence_add(f, c, e, M_QUED, w.k0, w.k1, NAN);
			evidence_add(f, c, e, M_KAVG, w.k0, w.k1, NAN);
			evidence_add(f, c, e, M_DAVG, w.k0, w.k1, NAN);
			f->summary = afmt(a, "adaptive queue depth: DQLEN halved %ld time%s (from %.0f down to %.0f) and "
					     "climbed back by +1 steps (%ld)%s", halvings, halvings == 1 ? "" : "s",
					  e->dq_max, (double)lo, steps,
					  reduced > 0 ? afmt(a, "; vmkernel.log: %ld 'Reduced the queue depth' line%s, %ld QUEUE FULL/BUSY",
							     reduced, reduced == 1 ? "" : "s", qfull)
					  : reduced == 0 ? "; vmkernel.log has no matching line" : "");
			f->rule = afmt(a, "DQLEN drops to <= %g x its value, then rises by +1 at least %g times",
				       RVE(e, R_AQD_HALF_RATIO), RVE(e, R_AQD_MIN_STEPS));
			f->source = "[vmw KB 1008113/311232] on QUEUE FULL or BUSY the host halves the LUN queue depth, then "
				    "raises it by +1 per batch of good completions";
			f->heuristic = reduced <= 0;
			f->advice = afmt(a, "The array answers QUEUE FULL/BUSY: its port or LU queue is over-committed. "
					    "Lower the host LUN queue depth (or DSNRO) so the sum over hosts fits the array "
					    "port queue, spread LUNs over more array ports, and ask the SAN admin; the host "
					    "spends minutes at a fraction of its depth after each cut [seed].");
		}
	}
}

void det_sioc(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		struct entity *e = &a->m.ents[i];
		if (e->layer != LAYER_DEVICE || e->ndq == 0)
			continue;
		const struct capture *c = cap_of(a, e);
		double thr = RVE(e, R_SIOC_THRESHOLD), near = RVE(e, R_SIOC_NEAR) * thr;
		/* gradual changes: not halvings, not single +1/-1 steps */
		long n = 0, halvings = 0;
		int64_t t0 = 0, t1 = 0;
		struct qsketch qd;
		qs_init(&qd);
		for (size_t q = 0; q < e->ndq; q++) {
			const struct dq_event *x = &e->dq[q];
			if (x->from >= 4 && x->to <= RVE(e, R_AQD_HALF_RATIO) * x->from) {
				halvings++;
				continue;
			}
			/* +1 steps are AQD's recovery (SIOC makes them too, but they prove nothing); SIOC's
			 * signature is the gradual decrease and the multi-step increase. */
			if (x->to > x->from && x->to - x->from < 1.5f)
				continue;
			if (!n)
				t0 = x->t;
			t1 = x->t;
			n++;
			qs_add(&qd, x->davg);
		}
		double davg = qs_quantile(&qd, 0.5);
		qs_free(&qd);
		/* the device's own latency with the queue at its full depth: since vSphere 5.1 the default
		 * threshold is the latency at 90 % of peak throughput, a few ms on flash, not 30 ms */
		struct qsketch qb;
		qs_init(&qb);
		for (size_t k = 0; k < c->ds.nb; k++) {
			double dq = val(c, e, M_DQLEN, k), d = val(c, e, M_DAVG, k);
			if (!isnan(d) && dq >= e->dq_max - 0.5 && active(&a->rules, c, e, M_CMDS, k))
				qs_add(&qb, d);
		}
		double base = qb.n >= 5 ? qs_quantile(&qb, 0.5) : NAN;
		qs_free(&qb);
		bool manual = davg >= near;
		bool relative = !isnan(base) && davg >= RVE(e, R_SIOC_BASE_RATIO) * base && davg >= base + 1;
		if (n < (long)RVE(e, R_SIOC_MIN_CHANGES) || halvings > n / 2 || !(manual || relative))
			continue;
		/* QUEUE FULL in the log for this device at these times: adaptive queue depth, not SIOC */
		if (vmk_count(a, e->name, e->host, VMK_QFULL, t0 - 60000, t1 + 60000) +
			    vmk_count(a, e->name, e->host, VMK_BUSY, t0 - 60000, t1 + 60000) > 0)
			continue;
		struct finding *f = finding_new(a, K_T_SIOC, SEV_WARNING, LAYER_DEVICE, e->name, e->host);
		f->capture = (long)e->capture;
		f->ent = e - a->m.ents;
		struct win w = {bucket_of(c, t0), bucket_of(c, t1), 0};
		f->start = t0 - (int64_t)(c->interval_s * 1000) + c->clock_offset_ms;
		f->end = t1 + c->clock_offset_ms;
		f->sustained_s = (double)(t1 - t0) / 1000.0 + c->interval_s;
		evidence_add(f, c, e, M_DQLEN, w.k0, w.k1, NAN);
		evidence_add(f, c, e, M_DAVG, w.k0, w.k1,
			     manual ? near : round(10 * fmax(RVE(e, R_SIOC_BASE_RATIO) * base, base + 1)) / 10);
		evidence_add(f, c, e, M_ACTV, w.k0, w.k1, NAN);
		evidence_add(f, c, e, M_QUED, w.k0, w.k1, NAN);
		if (manual)
			f->summary = afmt(a, "Storage I/O Control throttling: DQLEN moved smoothly %ld times (range %.0f-%.0f) "
					     "while DAVG was %.1f ms, near the %g ms congestion threshold; no QUEUE FULL", n,
					  f->nev ? f->ev[0].min : NAN, e->dq_max, davg, thr);
		else
			f->summary = afmt(a, "Storage I/O Control throttling: DQLEN moved smoothly %ld times (range %.0f-%.0f) "
					     "while DAVG was %.1f ms against %.1f ms with the queue at full depth: the automatic "
					     "threshold (latency at 90%% of peak throughput) is a few ms on fast storage; no QUEUE FULL",
					  n, f->nev ? f->ev[0].min : NAN, e->dq_max, davg, base);
		f->rule = afmt(a, "at least %g gradual DQLEN changes (decreases that are not halvings, increases of 2+), no "
				  "QUEUE FULL, with DAVG >= %g x %g ms (manual threshold) or >= %g x the DAVG at full depth "
				  "(automatic threshold)",
			       RVE(e, R_SIOC_MIN_CHANGES), RVE(e, R_SIOC_NEAR), thr,
			       RVE(e, R_SIOC_BASE_RATIO));
		f->source = "[vmw] SIOC / PARDA FAST'09: per-host queue depth adjusted smoothly toward the latency "
			    "threshold, in proportion to shares; no SCSI errors; default threshold since 5.1: latency at "
			    "90% of peak throughput";
		f->heuristic = true;
		f->advice = afmt(a, "The datastore is congested and SIOC shares the queue between hosts by disk "
				    "shares: give the SQL Server VMDKs higher shares, move noisy neighbours off the "
				    "datastore, or add array capacity. Raising DQLEN has no effect while SIOC is active.");
	}
}

/* ---- queue depth changed inside the capture ---- */

static struct qd_step *arena_realloc_steps(struct analysis *a, struct qd_step *old, size_t n)
{
	struct qd_step *p = arena_alloc(&a->arena, (n + 1) * sizeof *p);
	if (n)
		memcpy(p, old, n * sizeof *p);
	return p;
}

/* A run of buckets where the queue depth held one value. */
struct qd_seg {
	size_t k0, k1;
	double level;
};

static bool overlapping_throttle(const struct analysis *a, const struct entity *e, int64_t t0, int64_t t1)
{
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		if ((f->kind == K_T_AQD || f->kind == K_T_SIOC || f->kind == K_T_DSNRO) && f->ent == e - a->m.ents &&
		    f->start <= t1 && t0 <= f->end)
			return true;
	}
	return false;
}

/* The median of e's metric over the buckets [k0, k1] (NaN when absent). */
static double seg_median(const struct capture *c, const struct entity *e, int metric, size_t k0, size_t k1)
{
	return win_median(c, e, metric, k0, k1);
}

/* A DQLEN (device) or AQLEN (adapter) step: the depth held one value for at least
 * qdepth.step_hold_s, changed by 2 or more within two samples, and held the new one as long — a
 * setting changed by hand (or a driver reload), unlike adaptive queue depth (halvings, then +1
 * steps), SIOC (many smooth moves) or DSNRO (down to it while several VMs are active), which their
 * detectors read. Said as information with its time; split_at_qdepth_steps splits the queue
 * findings at it. */
void det_qdepth_steps(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		int metric = e->layer == LAYER_DEVICE ? M_DQLEN : e->layer == LAYER_ADAPTER ? M_AQLEN : -1;
		if (metric < 0 || e->series[metric] < 0 || e->nfs)
			continue;
		const struct capture *c = cap_of(a, e);
		size_t nb = c->ds.nb, s = (size_t)e->series[metric];
		if (nb < 4)
			continue;
		double hold = fmax(RVE(e, R_QD_STEP_HOLD_S), 10 * c->interval_s);
		struct qd_seg *seg = xmalloc(nb * sizeof *seg);
		size_t ns = 0;
		for (size_t k = 0; k < nb; k++) {
			double lo = ds_min(&c->ds, s, k), hi = ds_max(&c->ds, s, k), m = ds_mean(&c->ds, s, k);
			if (isnan(m) || hi - lo >= 0.5)
				continue; /* the depth moved inside the bucket */
			if (ns && seg[ns - 1].k1 + 1 == k && fabs(seg[ns - 1].level - m) < 0.5)
				seg[ns - 1].k1 = k;
			else
				seg[ns++] = (struct qd_seg){k, k, m};
		}
		for (size_t j = 0; j + 1 < ns; j++) {
			const struct qd_seg *x = &seg[j], *y = &seg[j + 1];
			double dx = (double)(c->ds.t1[x->k1] - c->ds.t0[x->k0]) / 1000.0 + c->interval_s;
			double dy = (double)(c->ds.t1[y->k1] - c->ds.t0[y->k0]) / 1000.0 + c->interval_s;
			if (dx < hold || dy < hold || y->k0 - x->k1 > 3 || fabs(y->level - x->level) < 2)
				continue;
			/* DSNRO: down to Disk.SchedNumReqOutstanding while several worlds are active */
			double lowlev = fmin(x->level, y->level);
			const struct qd_seg *low = x->level < y->level ? x : y;
			if (metric == M_DQLEN && fabs(lowlev - RVE(e, R_DSNRO)) < 0.5 && e->series[M_WORLDS] >= 0 &&
			    seg_median(c, e, M_WORLDS, low->k0, low->k1) >= RVE(e, R_DSNRO_WORLDS))
				continue;
			/* the time: the DQLEN change the capture recorded between the two runs, else the
			 * first sample of the new value */
			int64_t t = c->ds.t0[x->k1 + 1 < nb ? x->k1 + 1 : x->k1];
			for (size_t q = 0; metric == M_DQLEN && q < e->ndq; q++)
				if (e->dq[q].t > c->ds.t0[x->k1] && e->dq[q].t <= c->ds.t1[y->k0] && fabs(e->dq[q].to - y->level) < 0.5) {
					t = e->dq[q].t;
					break;
				}
			int64_t off = c->clock_offset_ms;
			if (overlapping_throttle(a, e, t + off - (int64_t)(hold * 1000), t + off + (int64_t)(hold * 1000)))
				continue;
			a->steps = arena_realloc_steps(a, a->steps, a->nsteps);
			a->steps[a->nsteps++] = (struct qd_step){i, t, x->level, y->level};
			const char *what = metric == M_DQLEN ? "DQLEN" : "AQLEN";
			double qb = seg_median(c, e, M_QUED, x->k0, x->k1), qa = seg_median(c, e, M_QUED, y->k0, y->k1);
			double cb = seg_median(c, e, M_CMDS, x->k0, x->k1), ca = seg_median(c, e, M_CMDS, y->k0, y->k1);
			struct win w = {x->k0, y->k1, 0};
			const struct ev_spec ev[] = {{metric, NAN}, {M_QUED, NAN}, {M_ACTV, NAN}, {M_CMDS, NAN}, EV_END};
			struct finding *f = window_finding(a, K_CFG_QDEPTH, SEV_INFO, e->layer, e, &w, ev);
			f->start = t + off;
			f->end = t + off;
			f->sustained_s = 0; /* a moment, said with its time */
			char when[32];
			time_format_iso(t + off, false, when);
			f->summary = afmt(a, "%s %s from %.0f to %.0f at %s and stayed there (%.0f min before, %.0f min after): "
					     "a setting changed during the capture, not adaptive queue depth or SIOC%s%s",
					  what, y->level > x->level ? "raised" : "lowered", x->level, y->level, when, dx / 60, dy / 60,
					  isnan(qb) || isnan(qa) ? "" : afmt(a, "; commands queued (QUED median) %.0f before, %.0f after", qb, qa),
					  isnan(cb) || isnan(ca) || cb <= 0 ? ""
									   : afmt(a, "; Commands/s median %.0f before, %.0f after (%.1fx)", cb, ca, ca / cb));
			f->rule = afmt(a, "%s held one value for >= %g s (or 10 samples), moved by >= 2 within 3 samples and held "
					  "the new one as long; not during an adaptive queue depth, SIOC or DSNRO finding", what, hold);
			f->source = "[vmw KB 323119] the HBA driver's LUN queue depth is a module parameter the administrator sets; "
				    "[vmw KB 1008113] adaptive queue depth halves and climbs back +1; [derived] a step that holds";
			f->heuristic = true;
			f->advice = afmt(a, "The findings of %s are split at %s: compare the two halves before changing the %s "
					    "again.", e->name, when, what);
		}
		free(seg);
	}
}

/* A copy of finding i for [t, its end] (capture c's clock + offset); finding i ends at t. The
 * evidence of both is recomputed from the buckets; the windows are cut at t. */
static void split_finding(struct analysis *a, size_t i, const struct capture *c, const struct entity *e, int64_t t,
			  const char *note_before, const char *note_after)
{
	struct finding old = a->f[i];
	struct finding *g = finding_new(a, old.kind, old.sev, old.layer, old.entity, old.host);
	struct finding *f = &a->f[i];
	*g = old;
	g->start = t;
	f->end = t;
	int64_t off = c->clock_offset_ms;
	size_t kt = bucket_of(c, t - off);
	size_t k0 = bucket_of(c, old.start - off), k1 = bucket_of(c, old.end - off);
	struct finding *parts[2] = {f, g};
	size_t ranges[2][2] = {{k0, kt > k0 ? kt - 1 : k0}, {kt, k1 > kt ? k1 : kt}};
	for (int p = 0; p < 2; p++) {
		struct finding *x = parts[p];
		x->nev = 0;
		for (int k = 0; k < old.nev; k++)
			evidence_add(x, c, e, old.ev[k].metric, ranges[p][0], ranges[p][1], old.ev[k].threshold);
		/* the windows on this side, cut at t */
		struct subwin *sub = old.nsub ? arena_alloc(&a->arena, (size_t)old.nsub * sizeof *sub) : NULL;
		int n = 0;
		double held = 0;
		for (int k = 0; k < old.nsub; k++) {
			int64_t s0 = old.sub[k].start, s1 = old.sub[k].end;
			if (p == 0 ? s0 >= t : s1 <= t)
				continue;
			sub[n].start = p == 0 ? s0 : (s0 > t ? s0 : t);
			sub[n].end = p == 0 ? (s1 < t ? s1 : t) : s1;
			held += (double)(sub[n].end - sub[n].start) / 1000.0;
			n++;
		}
		x->sub = n > 1 ? sub : NULL;
		x->nsub = n > 1 ? n : 0;
		x->sustained_s = old.nsub ? held : (double)(x->end - x->start) / 1000.0;
		x->summary = afmt(a, "%s; %s", old.summary, p == 0 ? note_before : note_after);
	}
}

void split_at_qdepth_steps(struct analysis *a)
{
	for (size_t s = 0; s < a->nsteps; s++) {
		const struct qd_step *st = &a->steps[s];
		const struct entity *e = &a->m.ents[st->ent];
		const struct capture *c = cap_of(a, e);
		int64_t t = st->t + c->clock_offset_ms, iv = (int64_t)(c->interval_s * 1000);
		const char *what = e->layer == LAYER_DEVICE ? "DQLEN" : "AQLEN";
		char when[32];
		time_format_iso(t, false, when);
		const char *before = afmt(a, "before %s went from %.0f to %.0f at %s", what, st->from, st->to, when);
		const char *after = afmt(a, "after %s went from %.0f to %.0f at %s", what, st->from, st->to, when);
		size_t nf = a->nf;
		for (size_t i = 0; i < nf; i++) {
			const struct finding *f = &a->f[i];
			bool queue = f->kind == K_Q_DEVICE_SATURATED || f->kind == K_LAT_KERNEL || f->kind == K_LAT_DEVICE ||
				     f->kind == K_Q_ADAPTER_SATURATED || f->kind == K_T_DSNRO;
			if (!queue || f->ent != (long)st->ent)
				continue;
			if (f->start < t - iv && f->end > t + iv)
				split_finding(a, i, c, e, t, before, after);
			else if (f->end <= t + iv)
				a->f[i].summary = afmt(a, "%s; %s", f->summary, before);
			else if (f->start >= t - iv)
				a->f[i].summary = afmt(a, "%s; %s", f->summary, after);
		}
		if (!(st->to > st->from))
			continue;
		/* a raise that ended the queueing: the fix was made, no advice to make it again */
		bool after_q = false;
		for (size_t i = 0; i < a->nf; i++) {
			const struct finding *f = &a->f[i];
			after_q |= (f->kind == K_Q_DEVICE_SATURATED || f->kind == K_LAT_KERNEL || f->kind == K_Q_ADAPTER_SATURATED) &&
				   f->ent == (long)st->ent && f->start >= t - iv && f->sev >= SEV_WARNING;
		}
		if (after_q)
			continue;
		for (size_t i = 0; i < a->nf; i++) {
			struct finding *f = &a->f[i];
			if ((f->kind != K_Q_DEVICE_SATURATED && f->kind != K_LAT_KERNEL && f->kind != K_Q_ADAPTER_SATURATED) ||
			    f->ent != (long)st->ent || f->end > t + iv)
				continue;
			f->done = true;
			f->advice = afmt(a, "Already done: the capture shows %s raised from %.0f to %.0f at %s, and commands no "
					    "longer queued after it (see config.queue_depth_change). Keep the new depth and watch "
					    "the device latency (DAVG) at the higher load; there is nothing more to raise for this.",
					 what, st->from, st->to, when);
		}
	}
}
