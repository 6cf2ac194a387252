/* detect_hyperv.c — the Hyper-V hosts' detectors (doc/hyperv.md). */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- Hyper-V hosts (doc/hyperv.md) ---- */

static bool hv_ent(const struct analysis *a, const struct entity *e, enum layer l)
{
	return e->layer == l && !e->outside && model_hyperv(&a->m, e->capture);
}

/* A host disk's or volume's latency in bucket k: reads and writes weighted by their IOs (ms). */
static double hv_lat(const struct capture *c, const struct entity *e, size_t k)
{
	double r = val(c, e, M_READS, k), w = val(c, e, M_WRITES, k), lr = val(c, e, M_H_LAT_R, k), lw = val(c, e, M_H_LAT_W, k);
	if (isnan(lr) && isnan(lw))
		return val(c, e, M_H_LAT_T, k);
	if (isnan(r) || isnan(w) || r + w <= 0)
		return isnan(lr) ? lw : isnan(lw) ? lr : lr > lw ? lr : lw;
	double den = (isnan(lr) ? 0 : r) + (isnan(lw) ? 0 : w);
	return den > 0 ? ((isnan(lr) ? 0 : r * lr) + (isnan(lw) ? 0 : w * lw)) / den : NAN;
}

static double hv_win_lat(const struct capture *c, const struct entity *e, size_t k0, size_t k1)
{
	struct qsketch q;
	qs_init(&q);
	for (size_t k = k0; k <= k1; k++)
		qs_add(&q, hv_lat(c, e, k));
	double v = q.n ? qs_quantile(&q, 0.5) : NAN;
	qs_free(&q);
	return v;
}

/* The host's logical processors (_Total % Total Run Time) of capture ci, NULL when not captured. */
static const struct entity *hv_lp(const struct analysis *a, size_t ci)
{
	for (size_t i = 0; i < a->m.naux; i++)
		if (a->m.aux[i].capture == ci && a->m.aux[i].layer == LAYER_VM && a->m.aux[i].series[M_HV_LP_RUN] >= 0)
			return &a->m.aux[i];
	return NULL;
}

/* A host disk's latency (its reads and writes weighted), sustained above hyperv.host_disk.*: every
 * VHDX on it waits; who loads it is added by analysis_shared_load. */
void det_hv_host_disk(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (!hv_ent(a, e, LAYER_DEVICE) || (!has(e, M_H_LAT_R) && !has(e, M_H_LAT_W) && !has(e, M_H_LAT_T)))
			continue;
		double warn = RVE(e, R_HV_DISK_WARN), crit = RVE(e, R_HV_DISK_CRIT);
		/* large IOs (a backup's 1 MiB reads) take longer without a queue: judged by the large-IO
		 * band, as a guest's are */
		double large = RVE(e, R_GUEST_LARGE_KIB) * 1024, lwarn = fmax(warn, RVE(e, R_GUEST_LARGE_WARN));
		const struct capture *c = cap_of(a, e);
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++) {
			double io = val(c, e, M_CMDS, k), mb = val(c, e, M_MBR, k) + val(c, e, M_MBW, k);
			bool big = io > 0 && !isnan(mb) && mb * 1048576 / io > large;
			cond[k] = hv_lat(c, e, k) > (big ? lwarn : warn) && active(&a->rules, c, e, M_CMDS, k);
		}
		struct win w[MAXW];
		size_t nw = find_windows(&a->rules, c, cond, e->series[M_CMDS] >= 0 ? e->series[M_CMDS] : e->series[M_H_LAT_R], w, MAXW);
		free(cond);
		for (size_t j = 0; j < nw; j++) {
			double l = hv_win_lat(c, e, w[j].k0, w[j].k1), q = win_median(c, e, M_H_CDQL, w[j].k0, w[j].k1);
			double io = win_median(c, e, M_CMDS, w[j].k0, w[j].k1);
			const struct ev_spec ev[] = {{M_H_LAT_R, warn}, {M_H_LAT_W, warn}, {M_H_LAT_T, warn}, {M_H_CDQL, NAN},
						     {M_CMDS, NAN}, EV_END};
			struct finding *f = window_finding(a, K_LAT_HOST_DISK, l > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_DEVICE, e,
							   &w[j], ev);
			f->summary = afmt(a, "host disk %s answers in %.1f ms (median, reads and writes weighted) at %.0f IO/s%s", e->name,
					  l, io, isnan(q) ? "" : afmt(a, ", %.0f IOs outstanding", q));
			f->rule = afmt(a, "host disk latency > %g ms (warning) / > %g ms (critical), IO-weighted, sustained while active; "
					  "IOs above %g KiB: > %g ms", warn, crit, large / 1024, lwarn);
			f->source = "[ms-docs Detecting bottlenecks in a virtualized environment] host disk latency over 50 ms; "
				    "[blog nickeales 2016] 15 ms for CSV and VM disks (doc/hyperv.md)";
			f->advice = afmt(a, "Every VHDX on %s waits with it. Find what drives it (the load below), spread the busy "
					    "VHDX files over other volumes or a faster tier, or cap the one that floods it with a "
					    "Storage QoS maximum; ask the storage team about this LUN's latency at the array. "
					    "perfmon counts this node's IO only: other cluster nodes using the same LUN add to its "
					    "queue (capture them too).", e->name);
		}
	}
}

/* Normalized IOPS of v over buckets k0..k1: 10th, 50th and 90th percentile of the bucket means. */
static void hv_niops(const struct capture *c, const struct entity *v, size_t k0, size_t k1, double *p10, double *p50,
		     double *p90)
{
	struct qsketch q;
	qs_init(&q);
	for (size_t k = k0; k <= k1; k++)
		qs_add(&q, val(c, v, M_HV_NIOPS, k));
	*p10 = q.n ? qs_quantile(&q, 0.1) : NAN;
	*p50 = q.n ? qs_quantile(&q, 0.5) : NAN;
	*p90 = q.n ? qs_quantile(&q, 0.9) : NAN;
	qs_free(&q);
}

/* A VHDX whose Latency is above hyperv.vhdx.warning_ms and three times its Lower Latency (the
 * storage below it answers fast), sustained: the time is spent at the VHDX. With its normalized
 * IOPS flat meanwhile (hyperv.qos.flat_ratio) that is a Storage QoS maximum holding it; otherwise
 * the virtualization layer itself (checkpoints, a dynamic or differencing disk, a filter) —
 * latency.vdisk_above_device. */
void det_hv_vhdx(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *v = &a->m.ents[i];
		if (!hv_ent(a, v, LAYER_VSCSI) || !has(v, M_HV_LAT) || !has(v, M_HV_LOWER_LAT))
			continue;
		double warn = RVE(v, R_HV_VHDX_WARN), flat = RVE(v, R_HV_QOS_FLAT);
		const struct capture *c = cap_of(a, v);
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++) {
			double l = val(c, v, M_HV_LAT, k), lo = val(c, v, M_HV_LOWER_LAT, k);
			cond[k] = l > warn && !isnan(lo) && l >= 3 * lo && active(&a->rules, c, v, M_CMDS, k);
		}
		struct win w[MAXW];
		size_t nw = find_windows(&a->rules, c, cond, v->series[M_HV_LAT], w, MAXW);
		free(cond);
		for (size_t j = 0; j < nw; j++) {
			double l = win_median(c, v, M_HV_LAT, w[j].k0, w[j].k1), lo = win_median(c, v, M_HV_LOWER_LAT, w[j].k0, w[j].k1);
			double q = win_median(c, v, M_HV_QL, w[j].k0, w[j].k1);
			double p10, p50, p90;
			hv_niops(c, v, w[j].k0, w[j].k1, &p10, &p50, &p90);
			bool qos = !isnan(p10) && p10 > 0 && p90 <= flat * p10;
			const struct ev_spec ev[] = {{M_HV_LAT, warn}, {M_HV_LOWER_LAT, NAN}, {M_HV_NIOPS, NAN}, {M_HV_QL, NAN},
						     {M_CMDS, NAN}, EV_END};
			struct finding *f = window_finding(a, qos ? K_T_STORAGE_QOS : K_LAT_VD_ABOVE,
							   l > 2 * warn ? SEV_CRITICAL : SEV_WARNING, LAYER_VSCSI, v, &w[j], ev);
			const char *file = iop_vhdx_file(v->name);
			if (qos) {
				f->summary = afmt(a, "%s is held at about %.0f normalized IOPS (8 KiB units; 10th-90th percentile "
						     "%.0f-%.0f) while its IOs take %.1f ms at the VHDX and %.1f ms below it, %.0f "
						     "waiting: a Storage QoS maximum", file, p50, p10, p90, l, lo, q);
				f->rule = afmt(a, "VHDX Latency > %g ms and >= 3 x Lower Latency, sustained, with normalized IOPS "
						  "flat (90th percentile <= %g x the 10th)", warn, flat);
				f->source = "[ms-docs Storage Quality of Service] maxima in normalized IOPS, applied at the VHDX; "
					    "[derived] the rate flat while latency rises above the storage's (doc/hyperv-domain.md §4)";
				f->advice = afmt(a, "Check the Storage QoS policy on %s (Get-VMHardDiskDrive | fl Path,MaximumIOPS; "
						    "on a cluster Get-StorageQosFlow and Get-StorageQosPolicy): raise or remove the "
						    "maximum if this VM needs more than ~%.0f normalized IOPS, or use an Aggregated "
						    "policy sized for its disks. The storage below answers in %.1f ms: it has room.",
						 v->name, p50, lo);
			} else {
				bool checkpoint = strcasestr(v->name, ".avhd") != NULL;
				f->summary = afmt(a, "%s's IOs take %.1f ms at the VHDX while the storage below answers in %.1f ms "
						     "(Lower Latency), %.0f waiting: the time is added in the Hyper-V host's "
						     "virtualization layer%s", file, l, lo, q,
						  checkpoint ? " — it is a checkpoint's differencing disk (.avhdx)" : "");
				f->rule = afmt(a, "VHDX Latency > %g ms and >= 3 x Lower Latency, sustained; normalized IOPS not flat "
						  "(no QoS maximum)", warn);
				f->source = "[doc/hyperv-domain.md §2] Latency at the VHDX vs Lower Latency of the storage below; "
					    "[ms-docs Hyper-V storage I/O performance] checkpoint chains and dynamic disks cost IO";
				f->advice = afmt(a, "Look at %s itself: a checkpoint chain (.avhdx files: delete or merge the "
						    "checkpoints), a dynamic or differencing VHDX growing (convert to fixed), a "
						    "Storage QoS policy with bursts, filter drivers on the host; the storage below "
						    "is not the cause.", v->name);
			}
			f->heuristic = true;
		}
	}
}

/* A Cluster Shared Volume whose IO is mostly redirected (Cluster CSVFS Redirected IO) on this
 * node, sustained: its VHDX files' IO goes over SMB to the coordinator node instead of to the
 * LUN. */
void det_hv_csv_redirected(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (!hv_ent(a, e, LAYER_VOLUME) || (!has(e, M_CSV_REDIR_R) && !has(e, M_CSV_REDIR_W)) || !has(e, M_CMDS))
			continue;
		double share = RVE(e, R_HV_REDIR_SHARE), warn = RVE(e, R_HV_VHDX_WARN);
		const struct capture *c = cap_of(a, e);
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++) {
			double r = val(c, e, M_CSV_REDIR_R, k), w = val(c, e, M_CSV_REDIR_W, k), t = val(c, e, M_CMDS, k);
			double red = (isnan(r) ? 0 : r) + (isnan(w) ? 0 : w);
			cond[k] = !isnan(t) && t >= RV(R_ACTIVE_IOPS) && red >= share * t;
		}
		struct win w[MAXW];
		size_t nw = find_windows(&a->rules, c, cond, e->series[M_CMDS], w, MAXW);
		free(cond);
		for (size_t j = 0; j < nw; j++) {
			double t = win_median(c, e, M_CMDS, w[j].k0, w[j].k1);
			double r = win_median(c, e, M_CSV_REDIR_R, w[j].k0, w[j].k1), wr = win_median(c, e, M_CSV_REDIR_W, w[j].k0, w[j].k1);
			double red = (isnan(r) ? 0 : r) + (isnan(wr) ? 0 : wr), l = hv_win_lat(c, e, w[j].k0, w[j].k1);
			/* the latency of the direction that carries most of the IO first (the summary quotes it),
			 * then the redirected rates and the volume's own */
			double rd = win_median(c, e, M_READS, w[j].k0, w[j].k1), wt = win_median(c, e, M_WRITES, w[j].k0, w[j].k1);
			bool writes = !isnan(wt) && (isnan(rd) || wt > rd);
			const struct ev_spec ev[] = {{writes ? M_H_LAT_W : M_H_LAT_R, warn}, {writes ? M_H_LAT_R : M_H_LAT_W, warn},
						     {M_CSV_REDIR_R, NAN}, {M_CSV_REDIR_W, NAN}, {M_CMDS, NAN}, EV_END};
			struct finding *f = window_finding(a, K_CSV_REDIRECTED, !isnan(l) && l > warn ? SEV_CRITICAL : SEV_WARNING,
							   LAYER_VOLUME, e, &w[j], ev);
			/* the counters are sampled apart: a share over 100% is all of it */
			double pc = t > 0 ? 100 * red / t : NAN;
			f->summary = afmt(a, "%s's IO is redirected: %s of its %.0f IO/s go over the network to the coordinator "
					     "node (Cluster CSVFS Redirected IO)%s", e->name,
					  isnan(pc) ? "all" : pc >= 99.5 ? "all" : afmt(a, "%.0f%%", pc), t,
					  isnan(l) ? "" : afmt(a, ", at %.1f ms", l));
			f->rule = afmt(a, "redirected IO >= %.0f%% of the volume's, sustained while active; critical when the "
					  "volume's latency is above %g ms", 100 * share, warn);
			f->source = "[ms-blog CSV performance counters 2014] Redirected IO carries the IO of a volume in "
				    "redirected mode; [ms-docs Use Cluster Shared Volumes] file-system and block redirection";
			f->advice = afmt(a, "Find why %s runs redirected on this node: Get-ClusterSharedVolumeState (its "
					    "StateInfo and FileSystemRedirectedIOReason / BlockRedirectedIOReason: a backup "
					    "snapshot left it so, a manual redirect, lost storage paths from this node, a ReFS "
					    "volume, BitLocker); end the cause, or run the VMs on the coordinator node meanwhile.",
					 e->name);
		}
	}
}

/* A VM's virtual processors waiting for a logical processor: CPU Wait Time Per Dispatch (mean of
 * its VPs) sustained above hyperv.cpu_wait.*: cpu.contention, with the host's CPU load. */
void det_hv_cpu_wait(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *v = &a->m.ents[i];
		if (!hv_ent(a, v, LAYER_VM) || !has(v, M_HV_CPU_WAIT))
			continue;
		double warn = RVE(v, R_HV_CPU_WAIT_WARN), crit = RVE(v, R_HV_CPU_WAIT_CRIT);
		const struct capture *c = cap_of(a, v);
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++)
			cond[k] = val(c, v, M_HV_CPU_WAIT, k) > warn;
		struct win w[MAXW];
		size_t nw = find_windows(&a->rules, c, cond, v->series[M_HV_CPU_WAIT], w, MAXW);
		free(cond);
		const struct entity *lp = hv_lp(a, v->capture);
		for (size_t j = 0; j < nw; j++) {
			double cw = win_median(c, v, M_HV_CPU_WAIT, w[j].k0, w[j].k1), run = win_median(c, v, M_HV_VP_RUN, w[j].k0, w[j].k1);
			double host = lp ? win_median(c, lp, M_HV_LP_RUN, w[j].k0, w[j].k1) : NAN;
			const struct ev_spec ev[] = {{M_HV_CPU_WAIT, warn}, {M_HV_VP_RUN, NAN}, EV_END};
			struct finding *f = window_finding(a, K_CPU_CONTENTION, cw > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_VM, v,
							   &w[j], ev);
			if (lp)
				evidence_add(f, c, lp, M_HV_LP_RUN, w[j].k0, w[j].k1, NAN);
			f->summary = afmt(a, "%s's virtual processors wait for a logical processor: CPU Wait Time Per Dispatch %.0f µs "
					     "(median, mean of its VPs; ~10 µs on an idle host)%s%s", v->name, cw,
					  isnan(run) ? "" : afmt(a, ", %% Guest Run Time %.0f%%", run),
					  isnan(host) ? "" : afmt(a, "; the host's logical processors %.0f%% busy", host));
			f->rule = afmt(a, "CPU Wait Time Per Dispatch > %g µs (warning) / > %g µs (critical), mean of the VM's "
					  "virtual processors, sustained", warn, crit);
			f->source = "[vendor Quest Spotlight] CPU wait per dispatch alarm 60 µs, high 100 µs; [serverfault 675991] "
				    "~7-10 µs uncontended; [ms-docs Detecting bottlenecks] logical processors over 90%: overloaded";
			f->advice = afmt(a, "Give %s's virtual processors CPU time: move VMs off this host or add hosts when its "
					    "logical processors are busy%s, reduce vCPU over-commit, check the VM's CPU limit and "
					    "weight (Get-VMProcessor); storage changes will not help while IO completions wait "
					    "for a virtual processor.", v->name,
					 isnan(host) ? "" : afmt(a, " (%.0f%% now)", host));
		}
	}
}
