/* detect_path.c — the detectors of the path below the virtual disk: datastores without a SCSI
 * device (NFS, vSAN), one LU seen from several hosts, paths and HBAs (doc/io-path.md), latency
 * added in the host above the LUN for one virtual disk. */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- datastores without a SCSI device: NFS, vSAN ---- */

/* A virtual disk whose IOs no SCSI device of its host carries (its stack links no LUN, or links an
 * NFS volume) has no DAVG/KAVG to blame: the host-side evidence is the virtual disk's own latency
 * (and the NFS volume's). Sustained above datastore.latency.*, that is the finding, named on the
 * virtual disk with the datastore it is on. A disk with no link while a LUN of the host is slow at
 * the same time is left to that LUN's finding (several virtual disks on one LUN correlate poorly). */
void det_datastore_latency(struct analysis *a)
{
	struct topo_in ti = analysis_topo(a);
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *v = &a->m.ents[i];
		if (v->layer != LAYER_VSCSI || (v->series[M_VD_LAT_R] < 0 && v->series[M_VD_LAT_W] < 0))
			continue;
		double warn = RVE(v, R_DS_LAT_WARN), crit = RVE(v, R_DS_LAT_CRIT);
		struct stack st;
		topology_stack(&ti, v, &st);
		const struct entity *nfs = st.device && st.device->nfs ? st.device : NULL;
		if (st.device && !nfs)
			continue; /* a SCSI LUN: the device detectors judge it */
		const struct capture *c = cap_of(a, v);
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++) {
			double lat = vdisk_latency_at(a, v, model_time(&a->m, c, k));
			/* the large-IO band above guest.large_io.kib, as at the device and in the guest */
			double x = val(c, v, M_CMDS, k), br = val(c, v, M_MBR, k), bw = val(c, v, M_MBW, k);
			double bytes = x > 0 && !(isnan(br) && isnan(bw)) ? ((isnan(br) ? 0 : br) + (isnan(bw) ? 0 : bw)) * 1048576.0 / x
									  : NAN;
			double thr = large_io(a, v, bytes) ? fmax(warn, RVE(v, R_GUEST_LARGE_WARN)) : warn;
			cond[k] = lat > thr && active(&a->rules, c, v, M_CMDS, k);
		}
		struct win w[MAXW];
		size_t n = find_windows(&a->rules, c, cond, v->series[M_CMDS] >= 0 ? v->series[M_CMDS] : v->series[M_VD_LAT_R], w, MAXW);
		free(cond);
		for (size_t j = 0; j < n; j++) {
			int64_t t0 = c->ds.t0[w[j].k0] + c->clock_offset_ms, t1 = c->ds.t1[w[j].k1] + c->clock_offset_ms;
			bool lun_slow = false;
			for (size_t k = 0; k < a->nf && !nfs; k++) {
				const struct finding *g = &a->f[k];
				lun_slow |= g->kind == K_LAT_DEVICE && g->capture == (long)v->capture && g->start <= t1 && t0 <= g->end;
			}
			if (lun_slow)
				continue;
			struct qsketch q;
			qs_init(&q);
			for (size_t k = w[j].k0; k <= w[j].k1; k++)
				qs_add(&q, vdisk_latency_at(a, v, model_time(&a->m, c, k)));
			double med = qs_quantile(&q, 0.5);
			qs_free(&q);
			double mr = win_median(c, v, M_VD_LAT_R, w[j].k0, w[j].k1), mw = win_median(c, v, M_VD_LAT_W, w[j].k0, w[j].k1);
			const char *lat = afmt(a, "virtual disk latency on the host: reads median %.1f ms, writes %.1f ms", mr, mw);
			const struct ev_spec ev[] = {{M_VD_LAT_R, warn}, {M_VD_LAT_W, warn}, {M_CMDS, NAN}, EV_END};
			struct finding *f = window_finding(a, K_LAT_DATASTORE, med > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_ARRAY,
							   v, &w[j], ev);
			if (nfs) {
				double g = win_median(c, nfs, M_GAVG, w[j].k0, w[j].k1);
				f->summary = afmt(a, "%s, on NFS datastore %s (%sIOPS r = %.2f): the IO waits below the VMkernel, in "
						     "the NFS server or the network to it",
						  lat, nfs->name, isnan(g) ? "" : afmt(a, "its latency median %.1f ms, ", g), st.r_dev);
				f->advice = afmt(a, "An NFS datastore has no device queue to tune: look at the NFS server's latency "
						    "and load for this export, and at the network path (the VMkernel port, MTU, "
						    "link errors and pause frames). Moving the busiest virtual disks to another "
						    "datastore spreads the load.");
			} else {
				/* the host's NFS volumes: one shared by several disks correlates with none of them */
				struct buf nb;
				buf_init(&nb);
				for (size_t k = c->first_entity; k < c->first_entity + c->nentities; k++)
					if (a->m.ents[k].nfs)
						buf_printf(&nb, "%s%s", nb.len ? ", " : "", a->m.ents[k].name);
				/* what the capture shows of where it is: on none of its SCSI devices (the VM's
				 * worlds' IO, or no device at all), or nothing either way */
				const char *where =
				    st.back == BACK_NOT_SHOWN
					? afmt(a,
					       "and the capture shows it on none of its SCSI devices (%s): the IO "
					       "waits below the virtual disk, in a datastore the capture does "
					       "not show%s",
					       st.l_dev.why ? st.l_dev.why : "no LUN carries it",
					       nb.len ? afmt(a, " as a LUN (this host has NFS volumes: %s)", nb.data)
						      : "")
					: afmt(a,
					       "and the capture does not tie it to a LUN (%s, and no LUN's IOPS "
					       "follow it at r >= %.1f): the LUN or datastore it waits on is "
					       "not identified",
					       model_over_cap(&a->m, (size_t)(c - a->m.caps), LAYER_WORLD)
						   ? "its per-world IO is past the entity cap, not read"
						   : "it has no per-world IO columns",
					       TOPO_R_VDISK_DEVICE);
				f->summary = afmt(a, "%s, %s", lat, where);
				f->advice = afmt(a, "Find this virtual disk's datastore (the VM's hard disk in the vSphere "
						    "Client). %sOn vSAN, look at the vSAN performance service for this VM's "
						    "objects (back-end latency, congestion, resync traffic); esxtop's device view "
						    "cannot show inside vSAN. On a LUN, give --map for its guest disk and capture "
						    "with per-world columns (esxtop's default) so the LUN's DAVG can be judged.",
						 nb.len ? afmt(a, "On one of the host's NFS datastores (%s), look at the NFS server's "
								  "latency and load for it and at the network path. ", nb.data)
							: "On an NFS datastore, its NFS volume would show in the capture. ");
				buf_free(&nb);
				f->heuristic = st.back != BACK_NOT_SHOWN;
			}
			f->rule = afmt(a, "virtual disk latency (reads and writes weighted by IOs) > %g ms (warning) / > %g ms (critical), sustained, for a "
					  "virtual disk whose IOs no SCSI device carries; commands above %g KiB: > %g ms", warn, crit,
				       RVE(v, R_GUEST_LARGE_KIB), fmax(warn, RVE(v, R_GUEST_LARGE_WARN)));
			f->source = "[vmw vSphere 6.7 monitoring guide] device latency > 15 ms: the storage is slow; "
				    "[vmw-derived practitioner tables] GAVG > 25 ms; [pal] 35 ms for IOs above 64 KiB; [derived] "
				    "NFS volumes have no DAVG/KAVG";
		}
	}
}

/* ---- one LU seen from several hosts ---- */

/* The paths that carried device d's IO over [t0, t1] with their shares ("vmhba2:C0:T0:L2 100%"),
 * NULL when the capture has none tied to it. */
static const char *busy_paths(struct analysis *a, const struct entity *d, int64_t t0, int64_t t1)
{
	const struct iop_path *p[16];
	size_t n = iopath_device_paths(&a->iop, d, p, 16);
	if (!n || n > 16)
		return NULL;
	double c[16], tot = 0;
	for (size_t i = 0; i < n; i++) {
		c[i] = iop_window_mean(&a->m, p[i]->p, M_CMDS, t0, t1);
		tot += isnan(c[i]) ? 0 : c[i];
	}
	if (!(tot > 0))
		return NULL;
	struct buf b;
	buf_init(&b);
	for (size_t i = 0; i < n; i++)
		if (!isnan(c[i]) && c[i] >= 0.05 * tot)
			buf_printf(&b, "%s%s %.0f%%", b.len ? ", " : "", p[i]->p->name, 100 * c[i] / tot);
	const char *r = b.len ? afmt(a, "%s", b.data) : NULL;
	buf_free(&b);
	return r;
}

/* The array's LU and port queues are shared by every host that uses the LU (doc/domain.md §2, over-commit
 * arithmetic [seed]): the same naa in several host captures is one LU. Its outstanding IO is the sum
 * of the hosts' ACTV; QUEUE FULL answered while that sum, not any one host's, reaches the LU queue
 * is an over-commit across hosts; AQD cuts at the same moments on several hosts are one array-side
 * event; a LUN slow from every host that uses it points at the array, slow from one host only at
 * that host's path or HBA. */
#define SHARE_MAX_HOSTS 8

static double median_of(double *v, size_t n)
{
	if (!n)
		return NAN;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* A halving of device e's queue depth (the rule may be set for the device or its host). */
static bool is_halving(const struct analysis *a, const struct entity *e, const struct dq_event *x)
{
	return x->from >= 4 && x->to <= RVE(e, R_AQD_HALF_RATIO) * x->from;
}

/* Of host h's halvings, how many another host made within tol ms (*of: h's halvings). */
static long aqd_together(const struct analysis *a, const struct entity *const *hs, int nh, int h, int64_t tol, long *of)
{
	long n = 0;
	*of = 0;
	for (size_t q = 0; q < hs[h]->ndq; q++) {
		const struct dq_event *x = &hs[h]->dq[q];
		if (!is_halving(a, hs[h], x))
			continue;
		(*of)++;
		bool with = false;
		for (int o = 0; o < nh && !with; o++)
			for (size_t r = 0; o != h && r < hs[o]->ndq && !with; r++)
				with = is_halving(a, hs[o], &hs[o]->dq[r]) && llabs(hs[o]->dq[r].t - x->t) <= tol;
		n += with;
	}
	return n;
}

static void shared_lu_latency(struct analysis *a, const struct entity *const *hs, int nh)
{
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *f = &a->f[i];
		if (f->kind != K_LAT_DEVICE || f->ent < 0)
			continue;
		int me = -1;
		for (int h = 0; h < nh; h++)
			me = hs[h] == &a->m.ents[f->ent] ? h : me;
		if (me < 0)
			continue;
		struct buf slow, fast;
		buf_init(&slow);
		buf_init(&fast);
		int nslow = 0, nfast = 0;
		for (int h = 0; h < nh; h++) {
			if (h == me || hs[h]->series[M_DAVG] < 0)
				continue;
			const struct capture *c = cap_of(a, hs[h]);
			double *v = xmalloc((c->ds.nb ? c->ds.nb : 1) * sizeof *v);
			size_t nv = 0;
			for (size_t k = 0; k < c->ds.nb; k++) {
				int64_t t = model_time(&a->m, c, k);
				double d = val(c, hs[h], M_DAVG, k);
				if (t >= f->start && t <= f->end && !isnan(d) && active(&a->rules, c, hs[h], M_CMDS, k))
					v[nv++] = d;
			}
			double med = median_of(v, nv);
			free(v);
			if (nv < 3)
				continue; /* idle there, or not captured then */
			if (med > RVE(hs[h], R_DAVG_WARN)) { /* slow by that host's own band */
				buf_printf(&slow, "%s%s %.1f ms", nslow ? ", " : "", hs[h]->host ? hs[h]->host : "?", med);
				nslow++;
			} else {
				buf_printf(&fast, "%s%s %.1f ms", nfast ? ", " : "", hs[h]->host ? hs[h]->host : "?", med);
				nfast++;
			}
		}
		if (nslow && !nfast) {
			f->summary = afmt(a, "%s; slow from every host that uses the LU (DAVG median %s): the LU or the array, "
					     "not one host's path", f->summary, slow.data);
		} else if (nfast && !nslow) {
			const char *via = f->ent >= 0 ? busy_paths(a, &a->m.ents[f->ent], f->start, f->end) : NULL;
			f->summary = afmt(a, "%s; only from this host: at the same time %s on the same LU (DAVG median) — this "
					     "host's path or HBA, not the LU%s", f->summary, fast.data,
					  via ? afmt(a, " (its IO went through %s)", via) : "");
			f->advice = afmt(a, "The LU answers the other hosts quickly, so the wait is on this host's way to it: "
					    "check its paths to the LU (esxcli storage nmp path list -d %s), the path selection "
					    "policy, its HBA, cables and switch port errors, before touching the array.", f->entity);
		} else if (nfast && nslow) {
			f->summary = afmt(a, "%s; other hosts at the same time: slow %s, fast %s (DAVG median)", f->summary,
					  slow.data, fast.data);
		}
		buf_free(&slow);
		buf_free(&fast);
	}
}

static void shared_lu(struct analysis *a, const struct entity *const *hs, int nh)
{
	/* the grid: the coarsest capture's samples */
	int b = 0;
	for (int h = 1; h < nh; h++)
		if (cap_of(a, hs[h])->interval_s > cap_of(a, hs[b])->interval_s)
			b = h;
	const struct capture *cb = cap_of(a, hs[b]);
	size_t nb = cb->ds.nb;
	if (!nb)
		return;
	double *sum = xmalloc(nb * sizeof *sum), *each = xmalloc(nb * (size_t)nh * sizeof *each);
	for (size_t k = 0; k < nb; k++) {
		int64_t t = model_time(&a->m, cb, k);
		sum[k] = 0;
		for (int h = 0; h < nh; h++) {
			double v = value_at(a, hs[h], M_ACTV, t);
			each[k * (size_t)nh + (size_t)h] = v;
			sum[k] = isnan(v) || isnan(sum[k]) ? NAN : sum[k] + v;
		}
	}
	/* QUEUE FULL / BUSY for the LU, from any host's log: the sum of outstanding IO at those moments */
	double *at = xmalloc((a->vmk.n ? a->vmk.n : 1) * sizeof *at);
	size_t nat = 0;
	long nq = 0;
	int64_t q0 = INT64_MAX, q1 = INT64_MIN;
	for (size_t i = 0; a->have_vmk && i < a->vmk.n; i++) {
		const struct vmk_event *ev = &a->vmk.ev[i];
		if ((ev->kind != VMK_QFULL && ev->kind != VMK_BUSY) || strcmp(ev->device, hs[0]->name) != 0)
			continue;
		nq += ev->count;
		q0 = ev->t < q0 ? ev->t : q0;
		q1 = ev->t > q1 ? ev->t : q1;
		size_t k = bucket_of(cb, ev->t);
		if (!isnan(sum[k]))
			at[nat++] = sum[k];
	}
	double est = median_of(at, nat);
	free(at);
	/* AQD at the same moments */
	int64_t tol = (int64_t)(fmax(2.0, 1.5 * cb->interval_s) * 1000);
	long together = 0, halvings = 0;
	for (int h = 0; h < nh; h++) {
		long of;
		together += aqd_together(a, hs, nh, h, tol, &of);
		halvings += of;
	}
	/* no log: the cuts made together stand for the array's refusals; the hosts' sum just before them */
	bool from_cuts = false;
	if (nq == 0 && together >= 2) {
		double *bc = xmalloc((size_t)(halvings ? halvings : 1) * sizeof *bc);
		size_t nbc = 0;
		for (int h = 0; h < nh; h++)
			for (size_t q = 0; q < hs[h]->ndq && nbc < (size_t)halvings; q++) {
				const struct dq_event *x = &hs[h]->dq[q];
				if (!is_halving(a, hs[h], x))
					continue;
				size_t k = bucket_of(cb, x->t);
				if (k > 0 && !isnan(sum[k - 1]))
					bc[nbc++] = sum[k - 1];
				q0 = x->t < q0 ? x->t : q0;
				q1 = x->t > q1 ? x->t : q1;
			}
		est = median_of(bc, nbc);
		free(bc);
		from_cuts = !isnan(est);
	}
	double given = a->opts.array_queue_depth;
	bool evidence = given > 0 || nq > 0 || together >= 2;
	/* the hosts' configured depths and their peaks */
	double dq_sum = 0, peak_sum = -INFINITY;
	size_t kpeak = 0;
	for (int h = 0; h < nh; h++)
		dq_sum += hs[h]->dq_max > 0 ? hs[h]->dq_max : NAN;
	for (size_t k = 0; k < nb; k++)
		if (!isnan(sum[k]) && sum[k] > peak_sum) {
			peak_sum = sum[k];
			kpeak = k;
		}
	struct buf hosts, parts;
	buf_init(&hosts);
	buf_init(&parts);
	for (int h = 0; h < nh; h++) {
		buf_printf(&hosts, "%s%s", h ? ", " : "", hs[h]->host ? hs[h]->host : "?");
		buf_printf(&parts, "%s%s %.0f", h ? " + " : "", hs[h]->host ? hs[h]->host : "?", each[kpeak * (size_t)nh + (size_t)h]);
	}
	/* AQD findings on this LU say the cuts were one array-side event */
	if (together >= 2)
		for (size_t i = 0; i < a->nf; i++) {
			struct finding *f = &a->f[i];
			if (f->kind == K_T_AQD && strcmp(f->entity, hs[0]->name) == 0)
				f->summary = afmt(a, "%s; %ld of the %ld halvings on the hosts sharing the LU (%s) came within %.0f s "
						     "of another host's: one array-side event", f->summary, together, halvings,
						  hosts.data, (double)tol / 1000);
		}
	double Q = given > 0 ? given : est;
	if (evidence && !isnan(Q) && Q > 0 && isfinite(peak_sum)) {
		/* the window: where the sum reached the LU queue, or (estimated) the QUEUE FULL span */
		signed char *cond = cond_alloc(cb);
		for (size_t k = 0; k < nb; k++)
			cond[k] = !isnan(sum[k]) && (given > 0 ? sum[k] > Q : sum[k] >= Q);
		struct win w[MAXW];
		size_t nw = find_windows(&a->rules, cb, cond, hs[b]->series[M_ACTV], w, MAXW);
		free(cond);
		bool any_alone = false;
		double alone_max = 0;
		for (size_t k = 0; k < nb; k++)
			for (int h = 0; h < nh; h++) {
				double v = each[k * (size_t)nh + (size_t)h];
				any_alone |= v > Q;
				alone_max = v > alone_max ? v : alone_max;
			}
		struct win all = {0, 0, 0};
		if (nw) {
			all = w[0];
			all.k1 = w[nw - 1].k1;
		} else if (nq > 0 || from_cuts) {
			all.k0 = bucket_of(cb, q0);
			all.k1 = bucket_of(cb, q1);
		}
		if (nw || nq > 0 || from_cuts) {
			const struct ev_spec ev[] = {{M_ACTV, NAN}, {M_DQLEN, NAN}, {M_DAVG, NAN}, EV_END};
			struct finding *f = window_finding(a, K_Q_ARRAY_OVERCOMMIT, nq > 0 || together >= 2 ? SEV_CRITICAL : SEV_WARNING,
							   LAYER_ARRAY, hs[b], &all, ev);
			f->host = arena_strdup(&a->arena, hosts.data);
			if (given > 0)
				f->summary = afmt(a, "the %d hosts sharing this LU (%s) together keep more IOs outstanding than its "
						     "command queue (%g): up to %.0f (%s)%s%s", nh, hosts.data, given, peak_sum, parts.data,
						  any_alone ? "" : "; no host alone exceeds it",
						  nq ? afmt(a, "; the array answered QUEUE FULL/BUSY %ld times", nq) : "");
			else if (from_cuts)
				f->summary = afmt(a, "the %d hosts sharing this LU (%s) cut their queue depth at the same moments (%ld of %ld "
						     "halvings within %.0f s of another host's: the array refused them together): they had "
						     "up to %.0f commands outstanding together (%s), each alone at most %.0f, and a median "
						     "of %.0f just before the cuts — the LU's queue is below what the hosts send together "
						     "(their device queue depths sum to %.0f)",
						  nh, hosts.data, together, halvings, (double)tol / 1000, peak_sum, parts.data, alone_max,
						  est, dq_sum);
			else
				f->summary = afmt(a, "the array answered QUEUE FULL/BUSY %ld times to the %d hosts sharing this LU (%s): "
						     "together they had up to %.0f commands outstanding (%s), each alone at most %.0f, "
						     "and a median of %.0f in the samples with QUEUE FULL — the LU's queue is below what "
						     "the hosts send together (their device queue depths sum to %.0f)",
						  nq, nh, hosts.data, peak_sum, parts.data, alone_max, est, dq_sum);
			f->rule = given > 0 ? afmt(a, "sum over the hosts of ACTV for one naa > --array-queue-depth %g, sustained", given)
				  : from_cuts ? afmt(a, "adaptive queue depth cuts within %.0f s of each other on %d hosts sharing an LU "
							"(at least 2)", (double)tol / 1000, nh)
					      : afmt(a, "QUEUE FULL/BUSY for an LU that %d host captures share; their ACTV summed at "
							"those moments", nh);
			f->source = "[seed, VMware Scalable Storage Performance] the LU's and the array port's queue are shared by "
				    "every host: sum over hosts of outstanding IO must not exceed them; [vmw KB 1008113] QUEUE FULL";
			if (given > 0)
				f->advice = afmt(a, "Together the hosts over-commit the LU. Size the hosts' LUN queue depth (or DSNRO) "
						    "so that their sum fits the LU queue (%g / %d hosts = %.0f each), or spread the "
						    "data over more LUNs and array ports [seed].", given, nh, floor(given / nh));
			else
				f->advice = afmt(a, "Each host's queue depth looks fine on its own; together the hosts over-commit "
						    "the LU. Ask the SAN admin for the LU's and the port's queue limits and size the "
						    "hosts' LUN queue depth (or DSNRO) so that their sum fits them (give the LU's with "
						    "--array-queue-depth to check it) — the array refused commands at a median of %.0f "
						    "outstanding in these samples (interval averages: the instantaneous count was "
						    "higher); or spread the data over more LUNs and ports [seed].", est);
		}
	}
	buf_free(&hosts);
	buf_free(&parts);
	free(sum);
	free(each);
	shared_lu_latency(a, hs, nh);
}

void det_shared_lu(struct analysis *a)
{
	size_t n = a->m.nents;
	bool *done = xcalloc(n ? n : 1, sizeof *done);
	for (size_t i = 0; i < n; i++) {
		const struct entity *e = &a->m.ents[i];
		if (done[i] || e->layer != LAYER_DEVICE || e->nfs || e->series[M_ACTV] < 0)
			continue;
		const struct entity *hs[SHARE_MAX_HOSTS];
		int nh = 0;
		for (size_t j = i; j < n; j++) {
			const struct entity *x = &a->m.ents[j];
			if (x->layer != LAYER_DEVICE || x->nfs || x->series[M_ACTV] < 0 || strcmp(x->name, e->name) != 0)
				continue;
			done[j] = true;
			bool dup = false;
			for (int k = 0; k < nh && !dup; k++)
				dup = hs[k]->capture == x->capture || (hs[k]->host && x->host && strcasecmp(hs[k]->host, x->host) == 0);
			if (!dup && nh < SHARE_MAX_HOSTS)
				hs[nh++] = x;
		}
		if (nh >= 2)
			shared_lu(a, hs, nh);
	}
	free(done);
}

/* ---- paths and HBAs (the IO path graph's paths, iopath.h; doc/io-path.md) ---- */

/* Two path names for the same runtime path ("naa.X-vmhba2:C0:T0:L1" and "vmhba2:C0:T0:L1"). */
static bool same_runtime(const char *x, const char *y)
{
	const char *a = strstr(x, "vmhba"), *b = strstr(y, "vmhba");
	return a && b && strcmp(a, b) == 0;
}

/* A device on the host's own controller: esxtop names local disks without a SAN id "mpx.vmhbaN:..."
 * (ESXi's naming of devices that report no unique identifier). */
static bool local_device(const struct entity *d) { return d && strncmp(d->name, "mpx.", 4) == 0; }

/* A path's DAVG at bucket k: its own, or its device's when it is the device's only busy path. */
static double path_davg(const struct capture *c, const struct iop_path *p, size_t k)
{
	double d = val(c, p->p, M_DAVG, k);
	return isnan(d) && p->dev ? val(c, p->dev, M_DAVG, k) : d;
}

static bool path_busy(const struct analysis *a, const struct capture *c, const struct iop_path *p, size_t k)
{
	double v = val(c, p->p, M_CMDS, k);
	return !isnan(v) && v >= RV(R_ACTIVE_IOPS);
}

/* Removes the findings of kind k on device d that overlap [t0, t1] (starting no earlier than
 * from); their entities are listed into b. */
static void fold_device_findings(struct analysis *a, enum kind k, const struct entity *d, int64_t from, int64_t t1,
				 struct buf *b)
{
	size_t o = 0;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *g = &a->f[i];
		bool fold = g->kind == k && g->ent >= 0 && &a->m.ents[g->ent] == d && g->start >= from && g->start <= t1;
		if (fold) {
			if (!strstr(b->data ? b->data : "", d->name))
				buf_printf(b, "%s%s", b->len ? ", " : "", d->name);
			continue;
		}
		a->f[o++] = a->f[i];
	}
	a->nf = o;
}

/* One HBA slow: every busy path through adapter A answers above the device rule while the busy
 * paths through the other adapters of the host answer in under half of it, on at least two LUNs
 * (or one LUN that the other adapter also serves fast). A component shared by exactly the slow
 * paths — the HBA, its cable/SFP, its fabric path or the array port behind it — not the LUNs; one finding on the adapter, the
 * LUNs' device-latency findings folded into it. */
void det_hba_latency(struct analysis *a)
{
	const struct iopath *g = &a->iop;
	for (size_t ci = 0; ci < a->m.ncaps; ci++) {
		const struct capture *c = &a->m.caps[ci];
		/* the adapters of this capture's linked paths */
		const char *ad[32];
		size_t nad = 0;
		for (size_t i = 0; i < g->np; i++) {
			const struct iop_path *p = &g->p[i];
			if (p->p->capture != ci || !p->dev)
				continue;
			bool seen = false;
			for (size_t k = 0; k < nad && !seen; k++)
				seen = strcmp(ad[k], p->adapter) == 0;
			if (!seen && nad < 32)
				ad[nad++] = p->adapter;
		}
		if (nad < 2)
			continue;
		double warn = RV(R_DAVG_WARN), crit = RV(R_DAVG_CRIT);
		for (size_t x = 0; x < nad; x++) {
			signed char *cond = cond_alloc(c);
			for (size_t k = 0; k < c->ds.nb; k++) {
				const struct entity *slow_dev[2] = {NULL, NULL};
				double cm_slow = 0, cm_all = 0;
				bool other_fast = false, other_slow = false, shared_fast = false;
				for (size_t i = 0; i < g->np; i++) {
					const struct iop_path *p = &g->p[i];
					if (p->p->capture != ci || !p->dev || !path_busy(a, c, p, k))
						continue;
					double d = path_davg(c, p, k), cm = val(c, p->p, M_CMDS, k);
					if (isnan(d))
						continue;
					if (strcmp(p->adapter, ad[x]) == 0) {
						cm_all += cm;
						if (d > warn) {
							cm_slow += cm;
							if (!slow_dev[0] || slow_dev[0] == p->dev)
								slow_dev[0] = p->dev;
							else
								slow_dev[1] = p->dev;
						}
					} else if (!local_device(p->dev)) {
						/* a local boot disk through another adapter says nothing of the fabric */
						other_fast |= d < warn / 2;
						other_slow |= d > warn;
					}
				}
				/* a slow LUN also served fast through another adapter at the same time */
				for (size_t i = 0; slow_dev[0] && !slow_dev[1] && i < g->np && !shared_fast; i++) {
					const struct iop_path *p = &g->p[i];
					shared_fast = p->p->capture == ci && p->dev == slow_dev[0] && strcmp(p->adapter, ad[x]) != 0 &&
						      path_busy(a, c, p, k) && path_davg(c, p, k) < warn / 2;
				}
				cond[k] = cm_all > 0 && cm_slow >= 0.75 * cm_all && other_fast && !other_slow &&
					  (slow_dev[1] || shared_fast);
			}
			struct win w[MAXW];
			size_t n = find_windows(&a->rules, c, cond, -1, w, MAXW);
			free(cond);
			for (size_t j = 0; j < n; j++) {
				/* the slow and the fast paths over the window */
				struct qsketch qs, qf;
				qs_init(&qs);
				qs_init(&qf);
				struct buf paths;
				buf_init(&paths);
				for (size_t i = 0; i < g->np; i++) {
					const struct iop_path *p = &g->p[i];
					if (p->p->capture != ci || !p->dev)
						continue;
					bool mine = strcmp(p->adapter, ad[x]) == 0, busy = false;
					for (size_t k = w[j].k0; k <= w[j].k1; k++) {
						if (!path_busy(a, c, p, k))
							continue;
						busy = true;
						qs_add(mine ? &qs : &qf, path_davg(c, p, k));
					}
					if (mine && busy && paths.len < 400)
						buf_printf(&paths, "%s%s (%s)", paths.len ? ", " : "", p->p->name, p->dev->name);
				}
				double ms = qs_quantile(&qs, 0.5), mf = qs_quantile(&qf, 0.5);
				qs_free(&qs);
				qs_free(&qf);
				const struct entity *adp = NULL;
				for (size_t i = 0; i < g->np && !adp; i++)
					if (g->p[i].p->capture == ci && strcmp(g->p[i].adapter, ad[x]) == 0)
						adp = g->p[i].adp;
				enum severity sev = ms > crit ? SEV_CRITICAL : SEV_WARNING;
				struct finding *f;
				if (adp) {
					const struct ev_spec ev[] = {{M_DAVG, warn}, {M_CMDS, NAN}, EV_END};
					f = window_finding(a, K_LAT_HBA, sev, LAYER_ADAPTER, adp, &w[j], ev);
				} else {
					f = finding_new(a, K_LAT_HBA, sev, LAYER_ADAPTER, ad[x], c->host);
					f->capture = (long)ci;
					set_window(f, c, &w[j]);
				}
				/* the LUNs' device-latency findings in this window are this one */
				struct buf folded;
				buf_init(&folded);
				for (size_t i = 0; i < g->np; i++) {
					const struct iop_path *p = &g->p[i];
					if (p->p->capture == ci && p->dev && strcmp(p->adapter, ad[x]) == 0)
						fold_device_findings(a, K_LAT_DEVICE, p->dev, f->start - (int64_t)(c->interval_s * 2000),
								     f->end, &folded);
				}
				f = &a->f[a->nf - 1]; /* folding moves findings; this one is the last */
				f->summary = afmt(a, "every busy path through %s is slow (DAVG median %.1f ms: %s) while the paths "
						     "through the host's other adapters answer in %.1f ms: the HBA, its cable or "
						     "SFP, its fabric path or the array port it reaches — not the LUNs%s", ad[x], ms, paths.data ? paths.data : "",
						  mf, folded.len ? afmt(a, " (the device latency of %s is this)", folded.data) : "");
				f->rule = afmt(a, "the busy paths of one adapter (>= 75%% of its commands) above %g ms (DAVG) while "
						  "every busy path of the other adapters is under %g ms, on two or more LUNs (or one "
						  "LUN the other adapter serves fast), sustained", warn, warn / 2);
				f->source = "[vmw vSphere 6.7 monitoring guide] device latency > 15 ms; [derived] a component "
					    "shared by exactly the slow paths (doc/io-path.md)";
				f->advice = afmt(a, "Check %s's side of the fabric: the switch port's error counters (CRC errors, "
						    "link resets, buffer credits), the SFP and the cable, the HBA's firmware and "
						    "driver. Until then take its paths out of service (esxcli storage core path set "
						    "--state=off --path=...) so the IO uses the healthy adapter, and ask the storage "
						    "team about the array port these paths reach. Not the LUNs or the array's back end: "
						    "moving the LUNs or raising queue depths will not help.", ad[x]);
				buf_free(&paths);
				buf_free(&folded);
			}
		}
	}
}

/* One HBA slow, seen without path columns: the LUNs' device-latency findings of one time whose
 * stacks put them behind one adapter (by its IOPS, a guess), that adapter's own DAVG above the
 * device rule, another adapter serving a SAN LUN fast at the same time: one finding on the HBA,
 * labelled a heuristic, the device findings folded into it. */
void det_hba_by_adapters(struct analysis *a)
{
	struct topo_in ti = analysis_topo(a);
	double warn = RV(R_DAVG_WARN), crit = RV(R_DAVG_CRIT);
	for (size_t ai = 0; ai < a->m.nents; ai++) {
		const struct entity *A = &a->m.ents[ai];
		if (A->layer != LAYER_ADAPTER || A->series[M_DAVG] < 0)
			continue;
		bool paths = false;
		for (size_t i = 0; i < a->iop.np && !paths; i++)
			paths = a->iop.p[i].adp == A && a->iop.p[i].dev;
		if (paths)
			continue; /* det_hba_latency judges it by its paths */
		/* the device-latency findings behind A, and their common time */
		const struct finding *fs[64];
		size_t nfs = 0;
		int64_t t0 = INT64_MIN, t1 = INT64_MAX;
		for (size_t i = 0; i < a->nf && nfs < 64; i++) {
			const struct finding *f = &a->f[i];
			if (f->kind != K_LAT_DEVICE || f->ent < 0 || f->sev < SEV_WARNING)
				continue;
			const struct entity *d = &a->m.ents[f->ent];
			if (d->capture != A->capture || local_device(d))
				continue;
			struct stack st;
			topology_stack(&ti, d, &st);
			if (st.adapter != A)
				continue;
			fs[nfs++] = f;
			t0 = f->start > t0 ? f->start : t0;
			t1 = f->end < t1 ? f->end : t1;
		}
		if (nfs < 2 || t0 >= t1)
			continue;
		double da = iop_window_mean(&a->m, A, M_DAVG, t0, t1);
		if (isnan(da) || da <= warn)
			continue;
		/* another adapter serving a SAN LUN fast then */
		const struct entity *fast = NULL;
		double df = NAN;
		for (size_t bi = 0; bi < a->m.nents && !fast; bi++) {
			const struct entity *B = &a->m.ents[bi];
			if (B == A || B->layer != LAYER_ADAPTER || B->capture != A->capture || B->series[M_DAVG] < 0)
				continue;
			double db = iop_window_mean(&a->m, B, M_DAVG, t0, t1), cb = iop_window_mean(&a->m, B, M_CMDS, t0, t1);
			if (isnan(db) || db >= warn / 2 || isnan(cb) || cb < RV(R_ACTIVE_IOPS))
				continue;
			for (size_t di = 0; di < a->m.nents && !fast; di++) {
				const struct entity *d = &a->m.ents[di];
				if (d->layer != LAYER_DEVICE || d->capture != A->capture || local_device(d) || d->nfs)
					continue;
				struct stack st;
				topology_stack(&ti, d, &st);
				double cd = iop_window_mean(&a->m, d, M_CMDS, t0, t1);
				if (st.adapter == B && !isnan(cd) && cd >= RV(R_ACTIVE_IOPS)) {
					fast = B;
					df = db;
				}
			}
		}
		if (!fast)
			continue;
		struct buf luns;
		buf_init(&luns);
		for (size_t k = 0; k < nfs; k++)
			buf_printf(&luns, "%s%s", k ? ", " : "", fs[k]->entity);
		/* fold the device findings, then the HBA's own */
		char *names = xmalloc(luns.len + 1);
		memcpy(names, luns.data, luns.len + 1);
		size_t o2 = 0;
		for (size_t i = 0; i < a->nf; i++) {
			bool fold = false;
			for (size_t k = 0; k < nfs && !fold; k++)
				fold = &a->f[i] == fs[k];
			if (!fold)
				a->f[o2++] = a->f[i];
		}
		a->nf = o2;
		const struct capture *c = cap_of(a, A);
		struct finding *f = finding_new(a, K_LAT_HBA, da > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_ADAPTER, A->name, A->host);
		f->capture = (long)A->capture;
		f->ent = A - a->m.ents;
		f->start = t0;
		f->end = t1;
		f->sustained_s = (double)(t1 - t0) / 1000.0;
		(void)c;
		f->summary = afmt(a, "the LUNs behind %s are slow together (%s; the adapter's DAVG %.1f ms) while %s serves "
				     "its LUNs in %.1f ms: the HBA, its cable or SFP, its fabric path or the array port it reaches — not the LUNs (their "
				     "device-latency findings are this)", A->name, names, da, fast->name, df);
		f->rule = afmt(a, "two or more LUNs tied to one adapter (by IOPS) with device latency findings at the same "
				  "time, the adapter's DAVG above %g ms, another adapter serving a SAN LUN under %g ms", warn,
			       warn / 2);
		f->source = "[vmw vSphere 6.7 monitoring guide] device latency > 15 ms; [derived] a component shared by "
			    "exactly the slow LUNs (doc/io-path.md); the LUNs' adapter from IOPS correlation";
		f->advice = afmt(a, "Capture the paths (esxtop's disk path view is in the batch output by default) to confirm. "
				    "Check %s's side of the fabric: the switch port's error counters (CRC errors, link "
				    "resets, buffer credits), the SFP and the cable, the HBA's firmware and driver; take its "
				    "paths out of service meanwhile. Not an array problem unless the LUNs are slow through "
				    "%s too.", A->name, fast->name);
		f->heuristic = true;
		free(names);
		buf_free(&luns);
	}
}

/* A path change inside the capture: a device's IO moves from one path to another (the first one
 * idle from then on) — a failover, or a path selection change. With the device's DAVG stepping up
 * at that moment the new path is the slower one, as an ALUA non-optimised path (through the other
 * controller) is: said with the time and both paths, the device-latency findings after it folded
 * in; without a step, noted as information. */
void det_path_change(struct analysis *a)
{
	const struct iopath *g = &a->iop;
	double warn = RV(R_DAVG_WARN), crit = RV(R_DAVG_CRIT);
	for (size_t di = 0; di < a->m.nents; di++) {
		const struct entity *d = &a->m.ents[di];
		if (d->layer != LAYER_DEVICE || d->nfs)
			continue;
		const struct iop_path *p[16];
		size_t np = iopath_device_paths(g, d, p, 16);
		if (np < 2 || np > 16)
			continue;
		const struct capture *c = cap_of(a, d);
		size_t nb = c->ds.nb;
		int *dom = xmalloc((nb ? nb : 1) * sizeof *dom);
		for (size_t k = 0; k < nb; k++) {
			double tot = 0, best = 0;
			int bi = -1;
			for (size_t i = 0; i < np; i++) {
				double v = val(c, p[i]->p, M_CMDS, k);
				if (isnan(v))
					continue;
				tot += v;
				if (v > best) {
					best = v;
					bi = (int)i;
				}
			}
			dom[k] = tot >= RV(R_ACTIVE_IOPS) && best >= 0.8 * tot ? bi : -1;
		}
		/* the first change of the dominant path between two runs of at least 5 buckets; a few
		 * buckets between them where no path dominates (the failover's stall, when another device's
		 * IO on the same paths outweighs the little that still completes) do not hide it */
		size_t min_run = 5;
		for (size_t k = min_run, prev = SIZE_MAX; k + min_run <= nb; k++) {
			if (dom[k - 1] >= 0)
				prev = k - 1;
			if (dom[k] < 0 || prev == SIZE_MAX || k - prev > min_run + 1 || dom[k] == dom[prev])
				continue;
			bool before = true, after = true;
			for (size_t q = prev >= min_run ? prev - min_run : 0; q < prev && before; q++)
				before = dom[q] == dom[prev] || dom[q] < 0;
			size_t end = k;
			while (end < nb && (dom[end] == dom[k] || dom[end] < 0))
				end++;
			after = end - k >= min_run;
			if (!before || !after)
				continue;
			const struct iop_path *from = p[dom[prev]], *to = p[dom[k]];
			struct qsketch qb, qa;
			qs_init(&qb);
			qs_init(&qa);
			for (size_t q = 0; q < k; q++)
				if (dom[q] == dom[prev])
					qs_add(&qb, val(c, d, M_DAVG, q));
			for (size_t q = k; q < end; q++)
				qs_add(&qa, val(c, d, M_DAVG, q));
			double mb = qs_quantile(&qb, 0.5), ma = qs_quantile(&qa, 0.5);
			qs_free(&qb);
			qs_free(&qa);
			bool step = !isnan(ma) && !isnan(mb) && ma > warn && ma >= 2 * mb;
			bool small = !step && !isnan(ma) && !isnan(mb) && ma >= 2 * mb && ma >= mb + 1;
			struct win w = {k, end - 1, (long)(end - k) * (long)c->ds.per_bucket};
			const struct ev_spec ev[] = {{M_DAVG, step ? warn : NAN}, {M_CMDS, NAN}, EV_END};
			struct finding *f = window_finding(a, K_PATH_CHANGE, step ? (ma > crit ? SEV_CRITICAL : SEV_WARNING) : SEV_INFO,
							   LAYER_DEVICE, d, &w, ev);
			int64_t t = f->start;
			struct buf folded;
			buf_init(&folded);
			if (step) {
				fold_device_findings(a, K_LAT_DEVICE, d, t - (int64_t)(c->interval_s * 2000), f->end, &folded);
				f = &a->f[a->nf - 1];
			}
			char ts[32];
			time_format_iso(t, false, ts);
			/* vmkernel.log at that moment: NMP's active path change, the new path's ALUA state */
			const char *vmk = NULL;
			bool ano = false;
			for (size_t q = 0; a->have_vmk && q < a->vmk.n; q++) {
				const struct vmk_event *ve = &a->vmk.ev[q];
				if ((ve->kind != VMK_PATH && ve->kind != VMK_ALUA) || ve->t < t - 120000 || ve->t > t + 120000)
					continue;
				bool mine = (ve->device && strcmp(ve->device, d->name) == 0) ||
					    (ve->path && (same_runtime(ve->path, to->p->name) || same_runtime(ve->path, from->p->name)));
				if (!mine)
					continue;
				char et[32];
				time_format_iso(ve->t, false, et);
				if (ve->kind == VMK_PATH && ve->state && strncmp(ve->state, "active path from ", 17) == 0 && !vmk)
					vmk = afmt(a, "vmkernel.log at %.8s: the active path changed %s to %s", et + 11, ve->state + 12,
						   ve->path ? ve->path : "another");
				if (ve->kind == VMK_ALUA && ve->state && ve->path && same_runtime(ve->path, to->p->name) &&
				    (strcmp(ve->state, "ANO") == 0 || strcasestr(ve->state, "non-optimized")))
					ano = true;
			}
			if (step && ano) {
				f->summary = afmt(a, "since %s it is served through the ALUA non-optimised path %s instead of %s (%s; "
						     "the SATP reports %s as ANO), and its DAVG rose from %.1f to %.1f ms at that "
						     "moment: the IO crosses to the array's other controller%s",
						  ts, to->p->name, from->p->name, vmk ? vmk : "vmkernel.log", to->p->name, mb, ma,
						  folded.len ? " (its device-latency finding is this)" : "");
				f->heuristic = false;
			} else
			f->summary = step ? afmt(a, "since %s its IO goes through %s instead of %s (idle since), and its DAVG "
						    "rose from %.1f to %.1f ms at that moment: it is served through a slower path, "
						    "as an ALUA non-optimised path (through the array's other controller) is%s",
						 ts, to->p->name, from->p->name, mb, ma,
						 folded.len ? " (its device-latency finding is this)" : "")
					  : afmt(a, "since %s its IO goes through %s instead of %s (idle since); its DAVG %s %.1f ms "
						    "(%.1f ms before)%s", ts, to->p->name, from->p->name, small ? "rose to" : "stayed at",
						 ma, mb, small ? ", still under the device rule: a slower path, as an ALUA "
								 "non-optimised one is" : "");
			f->rule = afmt(a, "a path carrying >= 80%% of the device's commands for %zu buckets or more, then "
					  "another one; a latency step when DAVG after it is above %g ms and twice DAVG before",
				       min_run, warn);
			f->source = "[vmw] NMP moves a device's IO to another path on a path failure or a path selection "
				    "change; ALUA non-optimised paths answer slower (doc/io-path.md)";
			if (vmk && !ano)
				f->summary = afmt(a, "%s; %s", f->summary, vmk);
			f->advice = step ? afmt(a, "Restore the optimised path: find why %s stopped carrying IO (its state: "
						   "esxcli storage nmp path list -d %s; vmkernel.log NMP lines), repair it, and "
						   "check the LUN's path selection policy and the array's ALUA state. The array is "
						   "not the cause unless the LUN is also slow through its optimised path.",
						from->p->name, d->name)
					 : "A path change without a latency step: check why the first path stopped carrying IO "
					   "(a failover leaves one path fewer until it is repaired).";
			f->heuristic = !(step && ano);
			buf_free(&folded);
			break;
		}
		free(dom);
	}
}


/* ---- latency added in the host above the LUN for one virtual disk ---- */

/* One virtual disk slow in one direction at the virtual disk (Average MilliSec/Read|Write) while
 * its LUN (by the IO path graph) answers that direction in under a third of it (DAVG + KAVG) and
 * the LUN's other virtual disks are fast: the time is spent in the host above the device — a
 * snapshot's delta disk, CBT, an IO filter or replication on that VMDK [vmw: GAVG = KAVG + DAVG;
 * snapshots' delta disks cost reads and writes]. Device commands well above the disk's IOs (its
 * world does more IO to the LUN than the guest issues) are said as corroboration. */
/* det_vdisk_above_device for one device dev of virtual disk d (the one it is on over the buckets
 * its spans give dev; every bucket when it has none). */
static void vdisk_above_on(struct analysis *a, const struct iop_vdisk *d, const struct entity *dev)
{
	const struct iopath *g = &a->iop;
	const struct entity *v = d->v;
	double warn = RVE(v, R_DS_LAT_WARN), crit = RVE(v, R_DS_LAT_CRIT);
	const struct capture *c = cap_of(a, v);
	for (int dir = 0; dir < 2; dir++) {
		int mv = dir ? M_VD_LAT_W : M_VD_LAT_R;
		int md = dev->series[dir ? M_DAVG_W : M_DAVG_R] >= 0 ? (dir ? M_DAVG_W : M_DAVG_R) : M_DAVG;
		int mk = dev->series[dir ? M_KAVG_W : M_KAVG_R] >= 0 ? (dir ? M_KAVG_W : M_KAVG_R) : M_KAVG;
		if (v->series[mv] < 0 || dev->series[md] < 0)
			continue;
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++) {
			const struct iop_span *sp = iopath_vdisk_span_at(d, k);
			double lv = val(c, v, mv, k), ld = val(c, dev, md, k), lk = val(c, dev, mk, k);
			double lun = ld + (isnan(lk) ? 0 : lk);
			cond[k] = (d->nspan ? sp && sp->dev == dev : true) && !isnan(lv) && !isnan(ld) && lv > warn &&
				  lv > 3 * lun && active(&a->rules, c, v, M_CMDS, k);
		}
		struct win w[MAXW];
		size_t n = find_windows(&a->rules, c, cond, v->series[mv], w, MAXW);
		free(cond);
		for (size_t j = 0; j < n; j++) {
			double lv = win_median(c, v, mv, w[j].k0, w[j].k1),
			       ld = win_median(c, dev, md, w[j].k0, w[j].k1);
			double lk = win_median(c, dev, mk, w[j].k0, w[j].k1), lun = ld + (isnan(lk) ? 0 : lk);
			/* alone on its LUN: the LUN's other active disks answer that direction in under half */
			bool alone = true;
			for (size_t q = 0; q < g->nvd && alone; q++) {
				const struct iop_vdisk *o2 = &g->vd[q];
				if (o2 == d || o2->dev != dev || o2->v->series[mv] < 0)
					continue;
				double lo = win_median(c, o2->v, mv, w[j].k0, w[j].k1),
				       co = win_median(c, o2->v, M_CMDS, w[j].k0, w[j].k1);
				alone = isnan(lo) || isnan(co) || co < RV(R_ACTIVE_IOPS) || lo < lv / 2;
			}
			if (!alone)
				continue;
			const struct iop_span *sp = iopath_vdisk_span_at(d, w[j].k0);
			const struct iop_world *wd = sp ? sp->world : d->world;
			double vc = win_median(c, v, M_CMDS, w[j].k0, w[j].k1);
			double wc = wd ? win_median(c, wd->w, M_CMDS, w[j].k0, w[j].k1) : NAN;
			double ratio = !isnan(wc) && vc > 0 ? wc / vc : NAN;
			const struct ev_spec ev[] = {{mv, warn}, {md, NAN}, {mk, NAN}, {M_CMDS, NAN}, EV_END};
			struct finding *f = window_finding(a, K_LAT_VD_ABOVE, lv > crit ? SEV_CRITICAL : SEV_WARNING,
							   LAYER_VSCSI, v, &w[j], ev);
			f->summary =
			    afmt(a,
				 "%s's %s take %.1f ms at the virtual disk while its LUN %s answers them in %.1f ms "
				 "(DAVG + KAVG) and the LUN's other disks are fast: the time is added in the host "
				 "above the LUN%s — a snapshot's delta disk, CBT, an IO filter or replication on "
				 "this virtual disk",
				 v->name, dir ? "writes" : "reads", lv, dev->name, lun,
				 !isnan(ratio) && ratio >= IOP_AMP_EVIDENCE
				     ? afmt(a,
					    ", and its world sends the LUN %.1f times the commands the disk "
					    "issues (per-world IO)",
					    ratio)
				     : "");
			f->rule =
			    afmt(a,
				 "virtual disk %s latency > %g ms and > 3 x its LUN's DAVG + KAVG, the LUN's other "
				 "active disks under half of it, sustained",
				 dir ? "write" : "read", warn);
			f->source =
			    "[vmw] GAVG = KAVG + DAVG: latency at the virtual disk above its LUN's is spent above "
			    "the device; [vmw Performance blog 2021, \"Performance Best Practices for VMware "
			    "Snapshots\"] a snapshot's delta disk costs the VM's IO; [derived] the 3x and alone tests";
			f->advice =
			    afmt(a,
				 "Look at %s itself, not the LUN or the array: snapshots left on it (consolidate "
				 "or delete them), CBT-based backup or replication running now (its schedule), "
				 "IO filters (VAIO, vSphere Replication) on the disk; their end brings the disk back "
				 "to its LUN's latency.",
				 v->name);
			f->heuristic = true;
		}
	}
}

void det_vdisk_above_device(struct analysis *a)
{
	const struct iopath *g = &a->iop;
	for (size_t i = 0; i < g->nvd; i++) {
		const struct iop_vdisk *d = &g->vd[i];
		const struct entity *v = d->v;
		if (d->back != BACK_LUN || !d->dev || v->outside ||
		    (v->series[M_VD_LAT_R] < 0 && v->series[M_VD_LAT_W] < 0))
			continue;
		if (!d->nspan) {
			vdisk_above_on(a, d, d->dev);
			continue;
		}
		/* linked over time: each device it was on, over its own spans */
		for (size_t s = 0; s < d->nspan; s++) {
			bool seen = false;
			for (size_t q = 0; q < s && !seen; q++)
				seen = d->span[q].dev == d->span[s].dev;
			if (!seen)
				vdisk_above_on(a, d, d->span[s].dev);
		}
	}
}
