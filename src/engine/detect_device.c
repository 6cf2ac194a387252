/* detect_device.c — the device and adapter detectors: device latency (DAVG), VMkernel latency
 * (KAVG, QAVG), device and adapter queues saturated, array over-commit, aborts, resets and failed
 * commands. */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- device latency ---- */


static bool davg_applies(const struct analysis *a, const struct entity *e) { (void)a; return has(e, M_DAVG); }
static bool davg_cond(const struct analysis *a, const struct entity *e)
{
	return CUR(e, M_DAVG) > RVE(e, R_DAVG_WARN) && active_now(a, e, M_CMDS);
}
static double davg_thr(const struct analysis *a, const struct entity *e) { return RVE(e, R_DAVG_WARN); }
static double davg_ev_thr(const struct analysis *a, const struct entity *e, int k) { return k == 0 ? davg_thr(a, e) : NAN; }

const struct stream_rule sr_device_latency = {
	.layer = LAYER_DEVICE, .applies = davg_applies, .cond = davg_cond,
	.signal = M_DAVG, .signal_thr = davg_thr, .ev = {M_DAVG, M_KAVG, M_ACTV, M_DQLEN, M_CMDS},
	.ctx = {M_QUED, -1}, .ev_thr = davg_ev_thr,
};

/* Sums of e's bucket means over the buckets of capture times [t0, t1] (inside) and the others
 * where e is active (outside): Commands/s, Reads/s + Writes/s, MB/s, and the bucket counts. */
struct io_mix {
	double cmds, rw, mb;
	long n, nrw, nmb;
};

static void io_mix_of(const struct analysis *a, const struct entity *e, int64_t t0, int64_t t1, struct io_mix *in,
		      struct io_mix *out)
{
	memset(in, 0, sizeof *in);
	memset(out, 0, sizeof *out);
	if (e->series[M_CMDS] < 0)
		return;
	const struct capture *c = cap_of(a, e);
	for (size_t k = 0; k < c->ds.nb; k++) {
		double x = val(c, e, M_CMDS, k);
		if (isnan(x) || x < RV(R_ACTIVE_IOPS))
			continue;
		struct io_mix *m = c->ds.t1[k] >= t0 && c->ds.t0[k] <= t1 ? in : out;
		m->cmds += x;
		m->n++;
		double r = val(c, e, M_READS, k), w = val(c, e, M_WRITES, k);
		if (!isnan(r) && !isnan(w)) {
			m->rw += r + w;
			m->nrw++;
		}
		double br = val(c, e, M_MBR, k), bw = val(c, e, M_MBW, k);
		if (!isnan(br) || !isnan(bw)) {
			m->mb += (isnan(br) ? 0 : br) + (isnan(bw) ? 0 : bw);
			m->nmb++;
		}
	}
}

/* Non-data commands (Commands/s − Reads/s − Writes/s: UNMAP, ATS, WRITE SAME, XCOPY, TUR ...) per
 * second over a mix, NaN when reads and writes are not in the capture. */
static double nondata_of(const struct io_mix *m)
{
	return m->nrw && m->nrw == m->n ? (m->cmds - m->rw) / (double)m->n : NAN;
}

void device_latency_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	double warn = RVE(e, R_DAVG_WARN), crit = RVE(e, R_DAVG_CRIT);
	double med = ev_median(w, M_DAVG), kavg = ev_median(w, M_KAVG), qued = w->ctx_median[0];
	struct io_mix in, out;
	io_mix_of(a, e, w->start, w->end, &in, &out);
	double bytes = in.nmb == in.n && in.cmds > 0 ? in.mb * 1048576.0 / in.cmds : NAN;
	bool large = large_io(a, e, bytes);
	double lcrit = fmax(crit, RVE(e, R_GUEST_LAT_CRIT));
	/* non-data commands that rose with the latency: Commands/s well above reads + writes in the
	 * window, and above what they are the rest of the capture */
	double nd_in = nondata_of(&in), nd_out = nondata_of(&out);
	double cmds_in = in.n ? in.cmds / (double)in.n : NAN, rw_in = in.nrw ? in.rw / (double)in.nrw : NAN;
	bool nondata = !isnan(nd_in) && nd_in >= RVE(e, R_NONDATA_SHARE) * cmds_in &&
		       (isnan(nd_out) || out.n < 3 || nd_in >= RVE(e, R_NONDATA_RISE) * fmax(nd_out, 1));
	if (large && !(med > fmax(warn, RVE(e, R_GUEST_LARGE_WARN))) && !nondata)
		return; /* large commands within the large-IO band: throughput, not a slow array */
	struct finding *f = episode_finding(a, w, med > (large ? lcrit : crit) ? SEV_CRITICAL : SEV_WARNING, LAYER_DEVICE);
	f->summary = afmt(a, "device latency (DAVG) median %.1f ms%s: IO waits below the HBA, in the fabric "
			     "or the array", med,
			  large ? afmt(a, " for %.0f KiB commands (above the large-IO band, %g ms)", bytes / 1024,
				       RVE(e, R_GUEST_LARGE_WARN))
				: "");
	f->nondata = nondata;
	if (nondata)
		f->summary = afmt(a, "%s; %.0f commands/s are neither reads nor writes (Commands/s %.0f vs reads + writes "
				     "%.0f; %s the rest of the capture): UNMAP (space reclamation), ATS or other non-data "
				     "commands rose with the latency — the likely cause",
				  f->summary, nd_in, cmds_in, rw_in,
				  isnan(nd_out) || out.n < 3 ? "no other time in" : afmt(a, "%.0f/s", fmax(0, nd_out)));
	f->rule = afmt(a, "DAVG > %g ms (warning) / > %g ms (critical), sustained; an episode of commands above %g KiB "
			  "(MBREAD/s + MBWRTN/s over Commands/s): median > %g ms / > %g ms; non-data commands (Commands/s - Reads/s - "
			  "Writes/s) >= %g%% of Commands/s and >= %gx the rest of the capture name the cause",
		       warn, crit, RVE(e, R_GUEST_LARGE_KIB), fmax(warn, RVE(e, R_GUEST_LARGE_WARN)), lcrit,
		       100 * RVE(e, R_NONDATA_SHARE), RVE(e, R_NONDATA_RISE));
	f->source = "[vmw vSphere 6.7 monitoring guide] device latency > 15 ms is an array problem; "
		    "[vmw-derived practitioner tables] DAVG > 25 ms; [pal] 35 ms for IOs above 64 KiB; [vmw Interpreting "
		    "esxtop Statistics] CMDS/s counts every command, READS/s and WRITES/s the data ones (UNMAP, ATS, WRITE SAME, "
		    "XCOPY are the rest)";
	if (nondata) {
		f->advice = afmt(a, "The latency came with a storm of non-read/write commands. On VMFS6 check automatic "
				    "space reclamation (esxcli storage vmfs reclaim config get -l DATASTORE: the UNMAP "
				    "priority and rate) and in-guest TRIM/UNMAP (Optimize-Volume, a database shrink, "
				    "sdelete); ATS storms point to VMFS heartbeats or locking (many hosts, snapshots); "
				    "XCOPY/WRITE SAME to clones, Storage vMotion or eager-zeroing. Reschedule or throttle "
				    "them before touching queue depths or the array.");
	} else if (!(kavg > RVE(e, R_KAVG_WARN)) && !(qued >= 1))
		f->advice = afmt(a, "The array (or the path to it) is the bottleneck and nothing queues in "
				    "the VMkernel: do not raise queue depths — deeper queues push more IO into "
				    "a saturated back end and raise latency further [seed]. Check the array's "
				    "LU/port load, RAID group and cache, and the fabric.");
	else
		f->advice = afmt(a, "The array is slow and IOs also queue in the VMkernel: the back end is "
				    "the first problem; raising DQLEN while DAVG is %.0f ms would make it worse "
				    "[seed]. Reduce or spread the load (more LUNs/paths, faster tier) first.",
				 med);
}

/* ---- kernel latency (KAVG, or QAVG when the capture has no KAVG) ---- */

static bool kavg_applies(const struct analysis *a, const struct entity *e) { (void)a; return has(e, M_KAVG); }
static bool qavg_applies(const struct analysis *a, const struct entity *e)
{
	(void)a;
	return !has(e, M_KAVG) && has(e, M_QAVG);
}
static bool kavg_cond(const struct analysis *a, const struct entity *e)
{
	return CUR(e, M_KAVG) > RVE(e, R_KAVG_WARN) && active_now(a, e, M_CMDS);
}
static bool qavg_cond(const struct analysis *a, const struct entity *e)
{
	return CUR(e, M_QAVG) > RVE(e, R_KAVG_WARN) && active_now(a, e, M_CMDS);
}
static double kavg_thr(const struct analysis *a, const struct entity *e) { return RVE(e, R_KAVG_WARN); }
static double kavg_ev_thr(const struct analysis *a, const struct entity *e, int k) { return k == 0 ? kavg_thr(a, e) : NAN; }

const struct stream_rule sr_kernel_kavg = {
	.layer = LAYER_DEVICE, .applies = kavg_applies, .cond = kavg_cond,
	.signal = M_KAVG, .signal_thr = kavg_thr, .ev = {M_KAVG, M_QUED, M_ACTV, M_DQLEN, M_DAVG},
	.ctx = {-1, -1}, .ev_thr = kavg_ev_thr,
};
const struct stream_rule sr_kernel_qavg = {
	.layer = LAYER_DEVICE, .applies = qavg_applies, .cond = qavg_cond,
	.signal = M_QAVG, .signal_thr = kavg_thr, .ev = {M_QAVG, M_QUED, M_ACTV, M_DQLEN, M_DAVG},
	.ctx = {-1, -1}, .ev_thr = kavg_ev_thr,
};

/* KAVG is all the time the VMkernel holds an IO; only QAVG is queueing (doc/domain.md §2). The finding is
 * host queueing, and deeper queues can help, only while commands are queued (QUED) with the device
 * queue full (ACTV at DQLEN); with free slots and nothing queued the time is spent elsewhere in the
 * kernel (an IOPS limit, CPU contention, an IO filter), which no queue depth fixes. */
void kernel_latency_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	int metric = has(e, M_KAVG) ? M_KAVG : M_QAVG;
	const char *mname = metric == M_KAVG ? "KAVG" : "QAVG";
	double warn = RVE(e, R_KAVG_WARN), crit = RVE(e, R_KAVG_CRIT);
	double med = ev_median(w, metric), davg = ev_median(w, M_DAVG), dq = ev_median(w, M_DQLEN);
	double qued = ev_median(w, M_QUED), actv = ev_median(w, M_ACTV);
	bool full = !isnan(dq) && dq > 0 && !isnan(actv) ? actv >= RVE(e, R_DEV_SAT_USD) / 100.0 * dq : true;
	bool queued = !isnan(qued) && qued >= RVE(e, R_DEV_SAT_QUED) && full;
	bool idle_queue = !isnan(qued) && qued < RVE(e, R_DEV_SAT_QUED);
	struct finding *f = episode_finding(a, w, med > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_DEVICE);
	f->rule = afmt(a, "%s > %g ms (warning) / > %g ms (critical), sustained; queueing only with QUED >= %g and "
			  "ACTV >= %g%% of DQLEN", mname, warn, crit, RVE(e, R_DEV_SAT_QUED), RVE(e, R_DEV_SAT_USD));
	f->source = "[seed] KAVG constantly above 0.1 ms: the kernel is queuing; [vmw-derived practitioner "
		    "tables] KAVG > 2 ms; [vmw] QAVG is the queue part of KAVG, host queueing is QUED > 0 with "
		    "ACTV = DQLEN";
	if (queued || (isnan(qued) && metric == M_QAVG)) {
		f->summary = afmt(a, "VMkernel queueing: %s median %.2f ms%s (IOs wait in the host for a device queue "
				     "slot)", mname, med,
				  isnan(qued) ? "" : afmt(a, ", %.0f command%s queued with ACTV %.0f of DQLEN %.0f", qued,
							  qued == 1 ? "" : "s", actv, dq));
		if (davg < RVE(e, R_DAVG_RAISE_QD))
			f->advice = afmt(a, "DAVG stays at %.1f ms (< %g ms), so the array has headroom: raise the "
					    "device queue depth (HBA driver LUN queue depth%s, and Disk.SchedNumReqOutstanding "
					    "if several VMs share the LUN) and re-measure [seed].",
					 davg, RVE(e, R_DAVG_RAISE_QD), isnan(dq) ? "" : afmt(a, ", now %.0f", dq));
		else if (!isnan(davg))
			f->advice = afmt(a, "DAVG is %.1f ms (≥ %g ms): the array is already slow, so a deeper "
					    "queue would make latency worse [seed]; fix the back end first.",
					 davg, RVE(e, R_DAVG_RAISE_QD));
		else
			f->advice = afmt(a, "No DAVG in the capture: check the device latency before raising "
					    "queue depths [seed].");
		return;
	}
	if (!isnan(qued) && qued >= RVE(e, R_DEV_SAT_QUED)) {
		/* commands wait although the device queue has free slots: a limit above it holds them */
		f->summary = afmt(a, "VMkernel queueing: %s median %.2f ms with %.0f command%s queued while %.0f of %.0f "
				     "device queue slots are free: a limit above the device queue holds them", mname, med,
				  qued, qued == 1 ? "" : "s", fmax(0, dq - actv), dq);
		f->advice = afmt(a, "The HBA LUN queue depth is not the limit, so raising it would not help. Commands "
				    "wait with free device slots when Disk.SchedNumReqOutstanding caps the LUN while several "
				    "VMs are active, when SIOC or adaptive queue depth has cut the effective depth, or when a "
				    "VM's IOPS limit holds its IOs: see those findings, and the VMs' limits and shares [vmw].");
		return;
	}
	if (idle_queue) {
		f->summary = afmt(a, "VMkernel latency: %s median %.2f ms with %.0f command%s queued%s: the time is spent "
				     "in the kernel, not waiting for the device queue", mname, med, qued, qued == 1 ? "" : "s",
				  isnan(actv) || isnan(dq) ? ""
							   : afmt(a, " and %.0f of %.0f device queue slots free", fmax(0, dq - actv), dq));
		f->advice = afmt(a, "Nothing waits for a queue slot, so a deeper device queue would not help. %s "
				    "without queueing is time the VMkernel holds IOs for other reasons: an IOPS limit or "
				    "shares on the VM's virtual disks (the mClock scheduler counts IOs above 32 KiB as "
				    "several), host CPU contention, or an IO filter or snapshot on the path "
				    "[hosterman 2018, What is the latency stat QAVG?][vmw KB 426790]. Check the VMs' IOPS "
				    "limits and the host's CPU, then the storage driver.", mname);
		f->source = afmt(a, "%s; [hosterman 2018] KAVG adds CPU contention and other kernel holds to QAVG", f->source);
		return;
	}
	/* QUED unknown with KAVG only: the queueing cannot be confirmed */
	f->summary = afmt(a, "VMkernel latency: %s median %.2f ms (no QUED in the capture: queueing cannot be "
			     "confirmed)", mname, med);
	f->advice = afmt(a, "Capture QUED, ACTV and DQLEN (esxtop's disk device view) before changing queue depths: "
			    "only a full device queue with commands waiting is helped by a deeper one [vmw][seed].");
}

/* ---- device queue saturated ---- */

static bool sat_direct(const struct entity *e) { return has(e, M_ACTV) && has(e, M_DQLEN) && has(e, M_QUED); }
static bool sat_applies(const struct analysis *a, const struct entity *e)
{
	(void)a;
	return sat_direct(e) || (has(e, M_USD) && has(e, M_LOAD));
}
static bool sat_cond(const struct analysis *a, const struct entity *e)
{
	if (sat_direct(e)) {
		double actv = CUR(e, M_ACTV), dq = CUR(e, M_DQLEN), q = CUR(e, M_QUED);
		return dq > 0 && actv >= RVE(e, R_DEV_SAT_USD) / 100.0 * dq && q >= RVE(e, R_DEV_SAT_QUED);
	}
	return CUR(e, M_USD) >= RVE(e, R_DEV_SAT_USD) && CUR(e, M_LOAD) > 1;
}
static double sat_ev_thr(const struct analysis *a, const struct entity *e, int k)
{
	return k == 2 ? RVE(e, R_DEV_SAT_QUED) - 0.5 : NAN;
}

const struct stream_rule sr_device_saturated = {
	.layer = LAYER_DEVICE, .applies = sat_applies, .cond = sat_cond,
	.signal = -1, .ev = {M_ACTV, M_DQLEN, M_QUED, M_KAVG, M_DAVG}, .ctx = {-1, -1}, .ev_thr = sat_ev_thr,
};

void device_saturated_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	double qmin = RVE(e, R_DEV_SAT_QUED);
	double kavg = ev_median(w, M_KAVG), davg = ev_median(w, M_DAVG), dq = ev_median(w, M_DQLEN), q = ev_median(w, M_QUED);
	struct finding *f = episode_finding(a, w, kavg > RVE(e, R_KAVG_CRIT) ? SEV_CRITICAL : SEV_WARNING, LAYER_DEVICE);
	f->summary = afmt(a, "device queue full: ACTV at DQLEN (%.0f) with %.0f command%s queued in the "
			     "VMkernel (LOAD > 1)", dq, q, q == 1 ? "" : "s");
	f->rule = afmt(a, "ACTV >= %g%% of DQLEN and QUED >= %g, sustained", RVE(e, R_DEV_SAT_USD), qmin);
	f->source = "[vmw] %USD = ACTV/DQLEN, LOAD = (ACTV+QUED)/DQLEN; LOAD > 1 or QUED > 0: IOs wait in the kernel";
	if (davg < RVE(e, R_DAVG_RAISE_QD))
		f->advice = afmt(a, "DAVG is %.1f ms (< %g ms): the LUN queue, not the array, limits "
				    "throughput. Raise the HBA LUN queue depth (and DSNRO when several VMs share "
				    "the LUN), or spread the VMDKs over more LUNs [seed].",
				 davg, RVE(e, R_DAVG_RAISE_QD));
	else if (!isnan(davg))
		f->advice = afmt(a, "DAVG is %.1f ms: the array is slow too, so a deeper queue would "
				    "add latency [seed]; spread the load or fix the back end.", davg);
}

/* ---- adapter saturated ---- */

static bool adp_applies(const struct analysis *a, const struct entity *e) { (void)a; return has(e, M_ACTV); }
static bool adp_cond(const struct analysis *a, const struct entity *e)
{
	double actv = CUR(e, M_ACTV), aq = CUR(e, M_AQLEN), q = CUR(e, M_QUED);
	return (aq > 0 && actv >= RVE(e, R_ADP_SAT_PCT) / 100.0 * aq) || q >= 1;
}

const struct stream_rule sr_adapter_saturated = {
	.layer = LAYER_ADAPTER, .applies = adp_applies, .cond = adp_cond,
	.signal = -1, .ev = {M_ACTV, M_AQLEN, M_QUED, M_DAVG, M_CMDS}, .ctx = {-1, -1}, .ev_thr = thr_nan,
};

/* The commands adapter e's devices queue (the sum of their QUED, by bucket) against the adapter's
 * own QUED over capture times [t0, t1]: medians over the buckets, *ndev the devices behind it (by
 * the topology: the path or the IOPS correlation). esxtop's adapter QUED counts the commands its
 * devices hold in their own queues (a full LUN queue), which no adapter depth relieves. */
static void adapter_vs_devices(struct analysis *a, const struct entity *e, int64_t t0, int64_t t1, double *adp,
			       double *devs, int *ndev)
{
	*adp = *devs = NAN;
	*ndev = 0;
	const struct capture *c = cap_of(a, e);
	if (e->series[M_QUED] < 0 || !c->ds.nb)
		return;
	struct topo_in ti = analysis_topo(a);
	size_t cap = c->nentities ? c->nentities : 1;
	const struct entity **d = xmalloc(cap * sizeof *d);
	for (size_t i = c->first_entity; i < c->first_entity + c->nentities; i++) {
		const struct entity *x = &a->m.ents[i];
		if (x->layer != LAYER_DEVICE || x->nfs || x->series[M_QUED] < 0)
			continue;
		struct stack st;
		topology_stack(&ti, x, &st);
		if (st.adapter == e)
			d[(*ndev)++] = x;
	}
	if (*ndev) {
		struct qsketch qa, qd;
		qs_init(&qa);
		qs_init(&qd);
		for (size_t k = 0; k < c->ds.nb; k++) {
			if (c->ds.t1[k] < t0 || c->ds.t0[k] > t1)
				continue;
			double q = val(c, e, M_QUED, k), sum = 0;
			for (int j = 0; j < *ndev && !isnan(sum); j++)
				sum += val(c, d[j], M_QUED, k);
			if (isnan(q) || isnan(sum))
				continue;
			qs_add(&qa, q);
			qs_add(&qd, sum);
		}
		if (qa.n) {
			*adp = qs_quantile(&qa, 0.5);
			*devs = qs_quantile(&qd, 0.5);
		}
		qs_free(&qa);
		qs_free(&qd);
	}
	free(d);
}

void adapter_saturated_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	double aq = ev_median(w, M_AQLEN), actv = ev_median(w, M_ACTV);
	bool full = !isnan(aq) && aq > 0 && actv >= RVE(e, R_ADP_SAT_PCT) / 100.0 * aq;
	double qa, qd;
	int ndev;
	adapter_vs_devices(a, e, w->start, w->end, &qa, &qd, &ndev);
	double beyond = qa - qd;
	/* queueing the devices' own queues account for is theirs (the device queue findings say so):
	 * the adapter is saturated only when full, or with commands queued beyond its LUNs' */
	if (!full && !isnan(beyond) && beyond < fmax(1, RVE(e, R_ADP_BEYOND_SHARE) * qa))
		return;
	struct finding *f = episode_finding(a, w, SEV_WARNING, LAYER_ADAPTER);
	if (full)
		f->summary = afmt(a, "adapter queue full: %.0f active commands against AQLEN %.0f", actv, aq);
	else if (!isnan(beyond))
		f->summary = afmt(a, "commands queue at the adapter beyond its LUNs' own queues: %.0f queued at the adapter, "
				     "%.0f of them in its %d device%s queue%s (median)%s",
				  qa, qd, ndev, ndev == 1 ? "'s" : "s'", ndev == 1 ? "" : "s",
				  isnan(aq) ? " (AQLEN not in the capture: use esxtop -a)" : "");
	else
		f->summary = afmt(a, "commands queue at the adapter (AQLEN not in the capture: use esxtop -a)");
	f->rule = afmt(a, "sum of ACTV >= %g%% of AQLEN, or commands queued at the adapter beyond the sum of its "
			  "devices' QUED (at least 1 and %g%% of the adapter's), sustained",
		       RVE(e, R_ADP_SAT_PCT), 100 * RVE(e, R_ADP_BEYOND_SHARE));
	f->source = "[vmw] adapter saturation: the sum of ACTV over a vmhba's devices ≈ AQLEN; [vmw Interpreting esxtop "
		    "Statistics §4.1] the adapter screen aggregates its devices' and paths' statistics, so its QUED "
		    "holds what they queue for their own full LUN queues; [derived] only the excess is the HBA's";
	f->advice = afmt(a, "The HBA's queue is the limit: spread the LUNs over more HBAs/paths (path "
			    "policy Round Robin), or raise the adapter queue depth where the driver allows.");
}

/* ---- array over-commit (--array-queue-depth) ---- */

static double array_qd(const struct analysis *a) { return a->opts.array_queue_depth; }
static bool aoc_dev_applies(const struct analysis *a, const struct entity *e) { return array_qd(a) > 0 && has(e, M_ACTV); }
static bool aoc_guest_applies(const struct analysis *a, const struct entity *e)
{
	return array_qd(a) > 0 && has(e, M_G_CDQL) && !e->aggregate; /* _Total's queue is every disk's */
}
static bool aoc_dev_cond(const struct analysis *a, const struct entity *e) { return CUR(e, M_ACTV) > array_qd(a); }
static bool aoc_guest_cond(const struct analysis *a, const struct entity *e) { return CUR(e, M_G_CDQL) > array_qd(a); }
static double aoc_ev_thr(const struct analysis *a, const struct entity *e, int k)
{
	(void)e;
	return k == 0 ? array_qd(a) : NAN;
}

const struct stream_rule sr_array_overcommit_dev = {
	.layer = LAYER_DEVICE, .applies = aoc_dev_applies, .cond = aoc_dev_cond,
	.signal = -1, .ev = {M_ACTV, M_DQLEN, M_DAVG, -1}, .ctx = {-1, -1}, .ev_thr = aoc_ev_thr,
};
const struct stream_rule sr_array_overcommit_guest = {
	.layer = LAYER_GUEST, .applies = aoc_guest_applies, .cond = aoc_guest_cond,
	.signal = -1, .ev = {M_G_CDQL, -1}, .ctx = {-1, -1}, .ev_thr = aoc_ev_thr,
};

void array_overcommit_window(struct analysis *a, const struct swin *w)
{
	double N = array_qd(a);
	struct finding *f = episode_finding(a, w, SEV_WARNING, LAYER_ARRAY);
	if (a->m.ents[w->ent].layer == LAYER_GUEST) {
		f->summary = afmt(a, "the guest queues more IOs than the array LU accepts (%g)", N);
		f->rule = afmt(a, "Current Disk Queue Length > --array-queue-depth %g, sustained", N);
		f->source = "[seed] perfmon shows a queue length higher than the array command queue length: QFULL likely";
		f->advice = afmt(a, "Ask the SAN admin whether the array reports QUEUE FULL; align guest and host "
				    "queue depths with the LU queue (%g).", N);
		return;
	}
	f->summary = afmt(a, "more IOs outstanding at the LU than its command queue (%g): the array will "
			     "answer QUEUE FULL", N);
	f->rule = afmt(a, "ACTV > --array-queue-depth %g, sustained", N);
	f->source = "[seed] if the host LUN queue depth is greater than the array LU command queue depth "
		    "... QFULL is likely; over-commit arithmetic from VMware's Scalable Storage Performance";
	f->advice = afmt(a, "Lower the host LUN queue depth to the array's LU queue (%g) divided by the "
			    "hosts sharing it, or spread the data over more LUNs; ask the SAN admin for the "
			    "port/LU queue limits [seed].", N);
}

/* ---- aborts, resets, failed commands ---- */

/* Aborts and resets need no duration: ABRTS/s > 1 or RESETS/s > 1 in any sample is a finding (a
 * 6-second path failover with 240 aborts is one); failed commands (often routine check
 * conditions) must be sustained. */
static bool err_applies(const struct analysis *a, const struct entity *e)
{
	(void)a;
	return (e->layer == LAYER_DEVICE || e->layer == LAYER_ADAPTER) && (has(e, M_ABRTS) || has(e, M_RESETS));
}
static bool failed_applies(const struct analysis *a, const struct entity *e)
{
	(void)a;
	return (e->layer == LAYER_DEVICE || e->layer == LAYER_ADAPTER) && has(e, M_FAILED);
}
static bool err_cond(const struct analysis *a, const struct entity *e)
{
	double thr = RVE(e, R_ERR_PER_S);
	return CUR(e, M_ABRTS) > thr || CUR(e, M_RESETS) > thr;
}
static bool failed_cond(const struct analysis *a, const struct entity *e) { return CUR(e, M_FAILED) >= RVE(e, R_ERR_PER_S); }
static double err_ev_thr(const struct analysis *a, const struct entity *e, int k)
{
	return k < 2 ? RVE(e, R_ERR_PER_S) : NAN;
}
static double failed_ev_thr(const struct analysis *a, const struct entity *e, int k)
{
	return k == 0 ? RVE(e, R_ERR_PER_S) : NAN;
}

const struct stream_rule sr_errors_dev = {
	.layer = LAYER_DEVICE, .applies = err_applies, .cond = err_cond, .any_sample = true,
	.signal = -1, .ev = {M_ABRTS, M_RESETS, M_FAILED, M_DAVG, M_CMDS}, .ctx = {-1, -1}, .ev_thr = err_ev_thr,
};
const struct stream_rule sr_errors_adp = {
	.layer = LAYER_ADAPTER, .applies = err_applies, .cond = err_cond, .any_sample = true,
	.signal = -1, .ev = {M_ABRTS, M_RESETS, M_FAILED, M_DAVG, M_CMDS}, .ctx = {-1, -1}, .ev_thr = err_ev_thr,
};
const struct stream_rule sr_failed_dev = {
	.layer = LAYER_DEVICE, .applies = failed_applies, .cond = failed_cond,
	.signal = -1, .ev = {M_FAILED, M_DAVG, M_CMDS, -1}, .ctx = {-1, -1}, .ev_thr = failed_ev_thr,
};


/* vmkernel.log commands failed with a host status (H:0x5 aborted, H:0x8 reset, ...) for device dev
 * within [t0, t1] of the host clock. */
static long vmk_host_failures(const struct analysis *a, const char *dev, const char *host, int64_t t0, int64_t t1)
{
	if (!a->have_vmk)
		return -1;
	long n = 0;
	for (size_t i = 0; i < a->vmk.n; i++) {
		const struct vmk_event *e = &a->vmk.ev[i];
		if (e->kind == VMK_FAILED && e->host_status != 0 && e->t >= t0 && e->t <= t1 && strcmp(e->device, dev) == 0 &&
		    vmk_on_host(e, host))
			n += e->count;
	}
	return n;
}

void errors_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	double thr = RVE(e, R_ERR_PER_S);
	bool burst = detectors[w->det].stream->any_sample;
	const struct swin_ev *ab = NULL, *rs = NULL;
	for (int k = 0; k < w->nev; k++) {
		if (w->ev[k].metric == M_ABRTS)
			ab = &w->ev[k];
		if (w->ev[k].metric == M_RESETS)
			rs = &w->ev[k];
	}
	struct finding *f = episode_finding(a, w, burst ? SEV_CRITICAL : SEV_WARNING, e->layer);
	const struct capture *c = cap_of(a, e);
	long vmk = vmk_host_failures(a, e->name, e->host, w->start - (int64_t)(60000 + c->interval_s * 1000), w->end + 60000);
	if (burst) {
		/* the commands aborted in the episode: rate × interval summed is not kept; the peak rate is */
		/* how many: the rates times the interval, summed over the samples */
		double nab = ab ? ab->mean * (double)ab->samples * c->interval_s : NAN;
		double nrs = rs ? rs->mean * (double)rs->samples * c->interval_s : NAN;
		f->summary = afmt(a, "about %.0f commands aborted%s in %.0f s (up to %.0f/s)%s", nab,
				  nrs >= 0.5 ? afmt(a, " and %.0f LUN reset%s", nrs, nrs >= 1.5 ? "s" : "") : "", w->held_s,
				  ab ? ab->max : NAN,
				  vmk > 0 ? afmt(a, "; vmkernel.log has %ld commands failed with a host status (H:) in the same minute", vmk)
					  : vmk == 0 ? "; vmkernel.log has no matching failure" : "");
		f->rule = afmt(a, "ABRTS/s > %g or RESETS/s > %g in any sample (no duration needed)", thr, thr);
	} else {
		f->summary = afmt(a, "commands failed at %g/s or more, sustained", thr);
		f->rule = afmt(a, "failed commands/s >= %g, sustained", thr);
	}
	f->source = "[vmw-derived practitioner tables] ABRTS/s > 1, RESETS/s > 1; [vmw] host status H:0x5/0x8: aborts and resets";
	f->advice = afmt(a, "Aborts mean commands timed out in the guest or the host (a path failover, an "
			    "overloaded array or a fabric problem): look at vmkernel.log around these times%s for H: "
			    "status codes and path state changes, and at the array and switch logs; queue depths do "
			    "not fix this.", a->have_vmk ? "" : " (give --vmkernel-log)");
}
