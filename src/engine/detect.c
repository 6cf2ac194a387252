/* detect.c — the detectors: each reads the capture model and writes findings with evidence, the
 * rule and its source, and advice that depends on the other evidence. Conditions are evaluated on
 * the aligned downsampled series and must be sustained (rules sustain.*), never single spikes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

/* ---- windows and evidence ---- */

struct win {
	size_t k0, k1;
	long true_samples;
};

/* Finds sustained windows where cond[k] holds in the buckets of capture c, for the detectors that
 * need the whole model (a guest and a host capture aligned): sustained on real samples (the
 * values of series `series` in the true buckets) and real time. Returns how many (≤ max). */
static size_t find_windows(const struct rules *R, const struct capture *c, const signed char *cond, int series,
			   struct win *out, size_t max)
{
	const struct dstore *d = &c->ds;
	size_t gap = (size_t)ceil(rule_value(R, R_GAP_SAMPLES) / (double)d->per_bucket);
	size_t n = 0;
	bool open = false;
	struct win w = {0, 0, 0};
	size_t last_true = 0;
	for (size_t k = 0; k <= d->nb; k++) {
		bool t = k < d->nb && cond[k] == 1;
		if (t) {
			if (open && k - last_true - 1 <= gap) {
				w.k1 = k;
			} else {
				if (open && n < max) {
					out[n] = w;
					n++;
				}
				open = true;
				w.k0 = w.k1 = k;
				w.true_samples = 0;
			}
			w.true_samples += series >= 0 ? (long)ds_count(d, (size_t)series, k) : (long)d->per_bucket;
			last_true = k;
		}
	}
	if (open && n < max)
		out[n++] = w;
	/* keep the sustained ones */
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		double dur = (double)(d->t1[out[i].k1] - d->t0[out[i].k0]) / 1000.0 + c->interval_s;
		if (out[i].true_samples >= (long)rule_value(R, R_SUSTAIN_SAMPLES) && dur >= rule_value(R, R_SUSTAIN_SECONDS))
			out[o++] = out[i];
	}
	return o;
}

static void evidence_add(struct finding *f, const struct capture *c, const struct entity *e, int metric,
			 size_t k0, size_t k1, double threshold)
{
	if (f->nev >= MAX_EVIDENCE || !e || e->series[metric] < 0)
		return;
	struct evidence *ev = &f->ev[f->nev];
	struct qsketch q;
	qs_init(&q);
	double mn = INFINITY, mx = -INFINITY;
	long samples = 0, above = 0;
	size_t s = (size_t)e->series[metric];
	for (size_t k = k0; k <= k1; k++) {
		double v = ds_mean(&c->ds, s, k);
		if (isnan(v))
			continue;
		qs_add(&q, v);
		double a = ds_min(&c->ds, s, k), b = ds_max(&c->ds, s, k);
		if (a < mn)
			mn = a;
		if (b > mx)
			mx = b;
		long cnt = (long)ds_count(&c->ds, s, k);
		samples += cnt;
		if (!isnan(threshold) && v > threshold)
			above += cnt;
	}
	if (!q.n) {
		qs_free(&q);
		return;
	}
	ev->metric = (enum metric)metric;
	ev->min = mn;
	ev->max = mx;
	ev->median = qs_quantile(&q, 0.5);
	ev->p95 = qs_quantile(&q, 0.95);
	ev->samples = samples;
	ev->above = isnan(threshold) ? -1 : above;
	ev->threshold = threshold;
	qs_free(&q);
	f->nev++;
}

/* Median of bucket means of a metric over a window (NaN when absent). */
static double win_median(const struct capture *c, const struct entity *e, int metric, size_t k0, size_t k1)
{
	if (!e || e->series[metric] < 0)
		return NAN;
	struct qsketch q;
	qs_init(&q);
	for (size_t k = k0; k <= k1; k++)
		qs_add(&q, ds_mean(&c->ds, (size_t)e->series[metric], k));
	double v = qs_quantile(&q, 0.5);
	qs_free(&q);
	return v;
}

static double val(const struct capture *c, const struct entity *e, int metric, size_t k)
{
	if (!e || e->series[metric] < 0)
		return NAN;
	return ds_mean(&c->ds, (size_t)e->series[metric], k);
}

static void set_window(struct finding *f, const struct capture *c, const struct win *w)
{
	f->start = c->ds.t0[w->k0] + c->clock_offset_ms;
	f->end = c->ds.t1[w->k1] + c->clock_offset_ms;
	f->sustained_s = (double)(f->end - f->start) / 1000.0 + c->interval_s;
	f->end += (int64_t)(c->interval_s * 1000); /* the last sample averages the interval before it */
	f->start -= (int64_t)(c->interval_s * 1000);
	if (f->start < c->start + c->clock_offset_ms - (int64_t)(c->interval_s * 1000))
		f->start = c->start + c->clock_offset_ms;
}

static bool active(const struct rules *R, const struct capture *c, const struct entity *e, int iops_metric, size_t k)
{
	double v = val(c, e, iops_metric, k);
	return isnan(v) || v >= rule_value(R, R_ACTIVE_IOPS);
}

#define MAXW 64

static const struct capture *cap_of(const struct analysis *a, const struct entity *e)
{
	return &a->m.caps[e->capture];
}

static signed char *cond_alloc(const struct capture *c)
{
	return xcalloc(c->ds.nb ? c->ds.nb : 1, 1);
}

/* Evidence of a finding: a metric and its threshold (NaN = context only); lists end with EV_END. */
struct ev_spec {
	int metric;
	double thr;
};
#define EV_END {-1, 0}

/* A finding of entity e over window w, with the evidence listed in ev. */
static struct finding *window_finding(struct analysis *a, enum kind kind, enum severity sev, enum layer l,
				      const struct entity *e, const struct win *w, const struct ev_spec *ev)
{
	const struct capture *c = cap_of(a, e);
	struct finding *f = finding_new(a, kind, sev, l, e->name, e->host);
	f->capture = (long)e->capture;
	f->ent = e - a->m.ents;
	set_window(f, c, w);
	for (; ev->metric >= 0; ev++)
		evidence_add(f, c, e, ev->metric, w->k0, w->k1, ev->thr);
	return f;
}

/* ---- streaming detectors: conditions on the raw rows (stream.c) ---- */

/* The rules' view of an entity (rules.h knows no model): a guest disk belongs to the VM its guest
 * machine is, a virtual disk to the VM its name starts with ("SQL01:scsi0:1"). */
static struct entity_ref ref_of(const struct entity *e)
{
	struct entity_ref w = {.layer = e->layer, .host = e->host, .name = e->name};
	if (e->layer == LAYER_GUEST) {
		w.vm = e->host;
	} else if (e->layer == LAYER_VSCSI) {
		w.vm = e->name;
		w.vm_len = strcspn(e->name, ":");
	} else if (e->layer == LAYER_VM) {
		w.vm = e->name;
	}
	return w;
}

/* The value of rule id in force for e: a section of the rules file may set it for e's disk,
 * device, VM or host. Called on every row, so a rule no section sets costs a load. */
static double rule_of_entity(const struct rules *r, const struct entity *e, enum rule_id id)
{
	if (!r->scoped[id])
		return r->v[id];
	struct entity_ref w = ref_of(e);
	return rules_for(r, id, &w);
}

/* Rules and values in the stream conditions: RV is a rule of the whole analysis (activity),
 * RVE(e, id) the value for entity e, which every finding about one entity uses. */
#define RV(id) rule_value(&a->rules, (id))
#define RVE(e, id) rule_of_entity(&a->rules, (e), (id))
#define CUR(e, met) entity_cur(&a->m, (e), (met))

static bool has(const struct entity *e, int m) { return e->series[m] >= 0; }

/* Doing IO at this row (a missing rate, as in the first perfmon row, counts as active). */
static bool active_now(const struct analysis *a, const struct entity *e, int iops)
{
	double v = CUR(e, iops);
	return isnan(v) || v >= RV(R_ACTIVE_IOPS);
}

static double thr_nan(const struct analysis *a, const struct entity *e, int k)
{
	(void)a, (void)e, (void)k;
	return NAN;
}

/* A finding of episode w with its evidence (the entity, times aligned with its capture's clock). */
static struct finding *episode_finding(struct analysis *a, const struct swin *w, enum severity sev, enum layer l)
{
	const struct entity *e = &a->m.ents[w->ent];
	const struct capture *c = cap_of(a, e);
	struct finding *f = finding_new(a, detectors[w->det].kind, sev, l, e->name, e->host);
	f->capture = (long)e->capture;
	f->ent = (long)w->ent;
	int64_t iv = (int64_t)(c->interval_s * 1000);
	/* a sample averages the interval before it: the window starts one interval earlier */
	f->start = w->start - iv + c->clock_offset_ms;
	if (f->start < c->start + c->clock_offset_ms - iv)
		f->start = c->start + c->clock_offset_ms;
	f->end = w->end + c->clock_offset_ms;
	f->sustained_s = w->held_s;
	if (w->nsub > 1) {
		struct subwin *sub = arena_alloc(&a->arena, (size_t)w->nsub * sizeof *sub);
		for (int k = 0; k < w->nsub; k++) {
			sub[k].start = w->sub[k].start - iv + c->clock_offset_ms;
			sub[k].end = w->sub[k].end + c->clock_offset_ms;
		}
		f->sub = sub;
		f->nsub = w->nsub;
	}
	for (int k = 0; k < w->nev && f->nev < MAX_EVIDENCE; k++) {
		const struct swin_ev *x = &w->ev[k];
		struct evidence *ev = &f->ev[f->nev++];
		ev->metric = x->metric;
		ev->min = x->min;
		ev->median = x->median;
		ev->p95 = x->p95;
		ev->max = x->max;
		ev->samples = x->samples;
		ev->above = x->above;
		ev->threshold = x->threshold;
	}
	return f;
}

/* The median of evidence metric m over the episode (NaN when it is not in the evidence). */
static double ev_median(const struct swin *w, int m)
{
	for (int k = 0; k < w->nev; k++)
		if ((int)w->ev[k].metric == m)
			return w->ev[k].median;
	return NAN;
}

/* ---- guest latency: the bands know IO size and purpose ---- */

/* The band a row's reads are judged by: large IOs (PAL: > 64 KiB) have more time. */
static double guest_read_thr_now(const struct analysis *a, const struct entity *e)
{
	double bpr = CUR(e, M_G_BPR);
	if (isnan(bpr))
		bpr = CUR(e, M_G_BPT);
	return bpr > RVE(e, R_GUEST_LARGE_KIB) * 1024 ? RVE(e, R_GUEST_LARGE_WARN) : RVE(e, R_GUEST_LAT_WARN);
}

static double guest_write_thr_now(const struct analysis *a, const struct entity *e)
{
	double bpw = CUR(e, M_G_BPW);
	if (isnan(bpw))
		bpw = CUR(e, M_G_BPT);
	return bpw > RVE(e, R_GUEST_LARGE_KIB) * 1024 ? RVE(e, R_GUEST_LARGE_WARN) : RVE(e, R_GUEST_LAT_WARN);
}

/* A disk SQL Server writes its transaction log to: nearly only writes, small ones (a heuristic
 * from the IO pattern of the whole capture). */
static bool is_log_disk(const struct analysis *a, const struct entity *e)
{
	double r = entity_mean(e, M_G_READS), w = entity_mean(e, M_G_WRITES);
	double bpw = entity_mean(e, M_G_BPW);
	if (isnan(bpw))
		bpw = entity_mean(e, M_G_BPT);
	if (isnan(w) || w < RV(R_ACTIVE_IOPS) || e->aggregate)
		return false;
	double share = w / ((isnan(r) ? 0 : r) + w);
	return share >= RVE(e, R_LOG_WRITE_SHARE) && (isnan(bpw) || bpw <= RVE(e, R_LOG_MAX_KIB) * 1024);
}

static bool guest_read_applies(const struct analysis *a, const struct entity *e) { (void)a; return has(e, M_G_LAT_R); }
static bool guest_write_applies(const struct analysis *a, const struct entity *e) { (void)a; return has(e, M_G_LAT_W); }
static bool guest_read_cond(const struct analysis *a, const struct entity *e)
{
	return CUR(e, M_G_LAT_R) > guest_read_thr_now(a, e) && active_now(a, e, M_G_READS);
}
static bool guest_write_cond(const struct analysis *a, const struct entity *e)
{
	return CUR(e, M_G_LAT_W) > guest_write_thr_now(a, e) && active_now(a, e, M_G_WRITES);
}
static bool log_write_cond(const struct analysis *a, const struct entity *e)
{
	return CUR(e, M_G_LAT_W) > RVE(e, R_LOG_WRITE_WARN) && active_now(a, e, M_G_WRITES);
}
static double guest_lat_thr(const struct analysis *a, const struct entity *e) { return RVE(e, R_GUEST_LAT_WARN); }
static double guest_lat_ev_thr(const struct analysis *a, const struct entity *e, int k)
{
	return k == 0 ? guest_lat_thr(a, e) : NAN;
}
static double log_thr(const struct analysis *a, const struct entity *e) { return RVE(e, R_LOG_WRITE_WARN); }
static double log_ev_thr(const struct analysis *a, const struct entity *e, int k) { return k == 0 ? log_thr(a, e) : NAN; }

static const struct stream_rule sr_guest_read = {
	.layer = LAYER_GUEST, .applies = guest_read_applies, .cond = guest_read_cond,
	.signal = M_G_LAT_R, .signal_thr = guest_lat_thr, .ev = {M_G_LAT_R, M_G_CDQL, M_G_READS, M_G_BPR, -1},
	.ctx = {M_G_BPT, -1}, .ev_thr = guest_lat_ev_thr,
};
static const struct stream_rule sr_guest_write = {
	.layer = LAYER_GUEST, .applies = guest_write_applies, .cond = guest_write_cond,
	.signal = M_G_LAT_W, .signal_thr = guest_lat_thr, .ev = {M_G_LAT_W, M_G_CDQL, M_G_WRITES, M_G_BPW, -1},
	.ctx = {M_G_BPT, -1}, .ev_thr = guest_lat_ev_thr,
};
static const struct stream_rule sr_guest_log_write = {
	.layer = LAYER_GUEST, .applies = guest_write_applies, .cond = log_write_cond,
	.signal = M_G_LAT_W, .signal_thr = log_thr, .ev = {M_G_LAT_W, M_G_CDQL, M_G_WRITES, M_G_BPW, -1},
	.ctx = {M_G_BPT, -1}, .ev_thr = log_ev_thr,
};

/* The bands in force for e, for the summaries. */
static const char *bands(struct analysis *a, const struct entity *e)
{
	return afmt(a, "bands in force: <= %g ms ok, %g-%g slow, > %g serious", RVE(e, R_GUEST_LAT_WARN), RVE(e, R_GUEST_LAT_WARN),
		    RVE(e, R_GUEST_LAT_CRIT), RVE(e, R_GUEST_LAT_CRIT));
}

static void guest_latency_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	bool read = detectors[w->det].kind == K_LAT_GUEST_READ;
	if (!read && is_log_disk(a, e))
		return; /* a log disk is judged by its own band (guest_log_window) */
	int metric = read ? M_G_LAT_R : M_G_LAT_W;
	double warn = RVE(e, R_GUEST_LAT_WARN), crit = RVE(e, R_GUEST_LAT_CRIT);
	double med = ev_median(w, metric);
	double size = ev_median(w, read ? M_G_BPR : M_G_BPW);
	if (isnan(size))
		size = w->ctx_median[0];
	bool large = size > RVE(e, R_GUEST_LARGE_KIB) * 1024;
	struct finding *f = episode_finding(a, w, med > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_GUEST);
	f->summary = afmt(a, "guest %s latency %s: median %.1f ms%s (%s)%s", read ? "read" : "write",
			  med > crit ? "serious" : "slow", med,
			  large ? afmt(a, " for %.0f KiB IOs", size / 1024) : "", bands(a, e),
			  e->aggregate ? "; only _Total was captured: the guest as a whole, not one disk" : "");
	f->rule = afmt(a, "Avg. Disk sec/%s > %g ms (warning) / > %g ms (critical), sustained; IOs above %g KiB: > %g ms",
		       read ? "Read" : "Write", warn, crit, RVE(e, R_GUEST_LARGE_KIB), RVE(e, R_GUEST_LARGE_WARN));
	f->source = "[ms] Windows/SQL latency bands: < 10 very good, 10-20 ok, 20-50 slow, > 50 serious; [pal] 35 ms "
		    "for IOs above 64 KiB";
}

static void guest_log_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	if (!is_log_disk(a, e))
		return;
	double warn = RVE(e, R_LOG_WRITE_WARN), crit = RVE(e, R_LOG_WRITE_CRIT);
	double med = ev_median(w, M_G_LAT_W);
	struct finding *f = episode_finding(a, w, med > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_GUEST);
	f->heuristic = true;
	f->summary = afmt(a, "log disk writes slow: median %.1f ms against the %g ms target for transaction log writes "
			     "(the disk is taken for a log disk: %.0f%% of its IOs are writes of %.0f KiB on average)",
			  med, warn,
			  100 * entity_mean(e, M_G_WRITES) / (entity_mean(e, M_G_WRITES) + fmax(0, isnan(entity_mean(e, M_G_READS)) ? 0 : entity_mean(e, M_G_READS))),
			  (has(e, M_G_BPW) ? entity_mean(e, M_G_BPW) : entity_mean(e, M_G_BPT)) / 1024);
	f->rule = afmt(a, "Avg. Disk sec/Write > %g ms (warning) / > %g ms (critical), sustained, on a disk whose IOs are "
			  ">= %g%% writes of <= %g KiB", warn, crit, 100 * RVE(e, R_LOG_WRITE_SHARE), RVE(e, R_LOG_MAX_KIB));
	f->source = "[seed] log writes: target 5 ms, tolerable 10 ms; [derived] a log disk told by its IO pattern";
	f->advice = afmt(a, "Every commit waits for this write: put the log on the fastest, least shared storage (its own "
			    "LUN and virtual disk, write cache on), and check the array's replication or cache settings for "
			    "it. If this is not a log disk, give the rules for it ('iopsy rules').");
}

/* ---- device latency ---- */

#define LARGE_IO_MARGIN 1.1 /* [derived] bytes per command from rates: 10 % above the boundary */

/* Large IOs take longer to transfer: above guest.large_io.kib a command is judged by the guest's
 * large-IO band (PAL: 35 ms above 64 KiB) — the same allowance at the device and virtual disk as
 * in the guest, so a backup's 1 MiB reads at 25 ms are not an array problem. The device judges
 * an episode by its bytes per command (MBREAD/s + MBWRTN/s over Commands/s, esxtop's MB are
 * MiB) over the episode, not row by row: sizes near the boundary would cut it into pieces. */
static bool large_io(const struct analysis *a, const struct entity *e, double bytes)
{
	/* an average from MB/s rounded to 0.01: 64 KiB commands come out a little above 64 KiB */
	return bytes > LARGE_IO_MARGIN * RVE(e, R_GUEST_LARGE_KIB) * 1024;
}

static bool davg_applies(const struct analysis *a, const struct entity *e) { (void)a; return has(e, M_DAVG); }
static bool davg_cond(const struct analysis *a, const struct entity *e)
{
	return CUR(e, M_DAVG) > RVE(e, R_DAVG_WARN) && active_now(a, e, M_CMDS);
}
static double davg_thr(const struct analysis *a, const struct entity *e) { return RVE(e, R_DAVG_WARN); }
static double davg_ev_thr(const struct analysis *a, const struct entity *e, int k) { return k == 0 ? davg_thr(a, e) : NAN; }

static const struct stream_rule sr_device_latency = {
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

static void device_latency_window(struct analysis *a, const struct swin *w)
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

static const struct stream_rule sr_kernel_kavg = {
	.layer = LAYER_DEVICE, .applies = kavg_applies, .cond = kavg_cond,
	.signal = M_KAVG, .signal_thr = kavg_thr, .ev = {M_KAVG, M_QUED, M_ACTV, M_DQLEN, M_DAVG},
	.ctx = {-1, -1}, .ev_thr = kavg_ev_thr,
};
static const struct stream_rule sr_kernel_qavg = {
	.layer = LAYER_DEVICE, .applies = qavg_applies, .cond = qavg_cond,
	.signal = M_QAVG, .signal_thr = kavg_thr, .ev = {M_QAVG, M_QUED, M_ACTV, M_DQLEN, M_DAVG},
	.ctx = {-1, -1}, .ev_thr = kavg_ev_thr,
};

/* KAVG is all the time the VMkernel holds an IO; only QAVG is queueing (doc/domain.md §2). The finding is
 * host queueing, and deeper queues can help, only while commands are queued (QUED) with the device
 * queue full (ACTV at DQLEN); with free slots and nothing queued the time is spent elsewhere in the
 * kernel (an IOPS limit, CPU contention, an IO filter), which no queue depth fixes. */
static void kernel_latency_window(struct analysis *a, const struct swin *w)
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

static const struct stream_rule sr_device_saturated = {
	.layer = LAYER_DEVICE, .applies = sat_applies, .cond = sat_cond,
	.signal = -1, .ev = {M_ACTV, M_DQLEN, M_QUED, M_KAVG, M_DAVG}, .ctx = {-1, -1}, .ev_thr = sat_ev_thr,
};

static void device_saturated_window(struct analysis *a, const struct swin *w)
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

static const struct stream_rule sr_adapter_saturated = {
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

static void adapter_saturated_window(struct analysis *a, const struct swin *w)
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

static const struct stream_rule sr_array_overcommit_dev = {
	.layer = LAYER_DEVICE, .applies = aoc_dev_applies, .cond = aoc_dev_cond,
	.signal = -1, .ev = {M_ACTV, M_DQLEN, M_DAVG, -1}, .ctx = {-1, -1}, .ev_thr = aoc_ev_thr,
};
static const struct stream_rule sr_array_overcommit_guest = {
	.layer = LAYER_GUEST, .applies = aoc_guest_applies, .cond = aoc_guest_cond,
	.signal = -1, .ev = {M_G_CDQL, -1}, .ctx = {-1, -1}, .ev_thr = aoc_ev_thr,
};

static void array_overcommit_window(struct analysis *a, const struct swin *w)
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

static const struct stream_rule sr_dsnro = {
	.layer = LAYER_DEVICE, .applies = dsnro_applies, .cond = dsnro_cond,
	.signal = -1, .ev = {M_DQLEN, M_WORLDS, M_ACTV, M_QUED, -1}, .ctx = {-1, -1}, .ev_thr = dsnro_ev_thr,
};

static void dsnro_window(struct analysis *a, const struct swin *w)
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

/* ---- split IO ---- */

static bool split_guest_applies(const struct analysis *a, const struct entity *e) { (void)a; return has(e, M_G_SPLIT); }
static bool split_host_applies(const struct analysis *a, const struct entity *e) { (void)a; return has(e, M_SPLIT); }
static bool split_of(const struct analysis *a, const struct entity *e, double s, double x)
{
	return s >= RVE(e, R_SPLIT_PER_S) && (isnan(x) || (x > 0 && s / x >= RVE(e, R_SPLIT_RATIO)));
}
static bool split_guest_cond(const struct analysis *a, const struct entity *e)
{
	return split_of(a, e, CUR(e, M_G_SPLIT), CUR(e, M_G_XFERS));
}
static bool split_host_cond(const struct analysis *a, const struct entity *e)
{
	return split_of(a, e, CUR(e, M_SPLIT), CUR(e, M_CMDS));
}
static double split_ev_thr(const struct analysis *a, const struct entity *e, int k)
{
	return k == 0 ? RVE(e, R_SPLIT_PER_S) : NAN;
}

static const struct stream_rule sr_split_guest = {
	.layer = LAYER_GUEST, .applies = split_guest_applies, .cond = split_guest_cond,
	.signal = -1, .ev = {M_G_SPLIT, M_G_XFERS, M_G_BPT, -1}, .ctx = {-1, -1}, .ev_thr = split_ev_thr,
};
static const struct stream_rule sr_split_device = {
	.layer = LAYER_DEVICE, .applies = split_host_applies, .cond = split_host_cond,
	.signal = -1, .ev = {M_SPLIT, M_CMDS, M_DAVG, -1}, .ctx = {-1, -1}, .ev_thr = split_ev_thr,
};
static const struct stream_rule sr_split_adapter = {
	.layer = LAYER_ADAPTER, .applies = split_host_applies, .cond = split_host_cond,
	.signal = -1, .ev = {M_SPLIT, M_CMDS, M_DAVG, -1}, .ctx = {-1, -1}, .ev_thr = split_ev_thr,
};

static void split_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	bool guest = e->layer == LAYER_GUEST;
	double s = ev_median(w, guest ? M_G_SPLIT : M_SPLIT), x = ev_median(w, guest ? M_G_XFERS : M_CMDS);
	struct finding *f = episode_finding(a, w, SEV_WARNING, e->layer);
	f->summary = afmt(a, "split IO: %.0f/s, %.0f%% of %s", s, x > 0 ? 100 * s / x : NAN,
			  guest ? "transfers (Windows split them: IO too large or a fragmented file)"
				: "commands (the VMkernel split them)");
	f->rule = afmt(a, "split IO >= %g/s and >= %g%% of IOs, sustained", RVE(e, R_SPLIT_PER_S), 100 * RVE(e, R_SPLIT_RATIO));
	f->source = guest ? "[ms] Split IO/Sec; Microsoft's diagnostic rule flags >= 5/s"
			  : "[vmw] esxtop -a Split Commands/sec (e.g. PVSCSI splits IOs > 512 KiB)";
	f->advice = afmt(a, "A symptom to correlate, not proof of misalignment [seed]: check the "
			    "partition offsets (give --partitions with 'wmic partition get BlockSize, "
			    "StartingOffset, Name, Index'), file fragmentation and the IO sizes.");
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

static const struct stream_rule sr_errors_dev = {
	.layer = LAYER_DEVICE, .applies = err_applies, .cond = err_cond, .any_sample = true,
	.signal = -1, .ev = {M_ABRTS, M_RESETS, M_FAILED, M_DAVG, M_CMDS}, .ctx = {-1, -1}, .ev_thr = err_ev_thr,
};
static const struct stream_rule sr_errors_adp = {
	.layer = LAYER_ADAPTER, .applies = err_applies, .cond = err_cond, .any_sample = true,
	.signal = -1, .ev = {M_ABRTS, M_RESETS, M_FAILED, M_DAVG, M_CMDS}, .ctx = {-1, -1}, .ev_thr = err_ev_thr,
};
static const struct stream_rule sr_failed_dev = {
	.layer = LAYER_DEVICE, .applies = failed_applies, .cond = failed_cond,
	.signal = -1, .ev = {M_FAILED, M_DAVG, M_CMDS, -1}, .ctx = {-1, -1}, .ev_thr = failed_ev_thr,
};

/* Whether a vmkernel.log event can be host's: a forwarded line names its host ("esx01" for
 * esx01.lab.local: the first labels compared); a host's own log names none and counts for any. */
static bool vmk_on_host(const struct vmk_event *ev, const char *host)
{
	if (!ev->host || !host)
		return true;
	size_t a = strcspn(ev->host, "."), b = strcspn(host, ".");
	return strcasecmp(ev->host, host) == 0 || (a == b && strncasecmp(ev->host, host, a) == 0);
}

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

static void errors_window(struct analysis *a, const struct swin *w)
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

/* ---- guest disk ↔ host virtual disk ---- */

static struct entity *mapped_vdisk(struct analysis *a, const struct entity *g, const struct diskmap_entry **me)
{
	for (size_t i = 0; i < a->nmap; i++) {
		const struct diskmap_entry *m = &a->map[i];
		if (strcmp(m->guest_disk, g->name) != 0)
			continue;
		if (m->guest_host && g->host && strcasecmp(m->guest_host, g->host) != 0)
			continue;
		struct entity *v = model_find(&a->m, LAYER_VSCSI, m->vdisk, NULL);
		if (v) {
			*me = m;
			return v;
		}
	}
	return NULL;
}

/* Value of entity e's metric at aligned time t (nearest bucket within one interval), NaN if none. */
static double value_at(const struct analysis *a, const struct entity *e, int metric, int64_t t)
{
	if (e->series[metric] < 0)
		return NAN;
	const struct capture *c = cap_of(a, e);
	const struct dstore *d = &c->ds;
	if (!d->nb)
		return NAN;
	int64_t tt = t - c->clock_offset_ms;
	size_t lo = 0, hi = d->nb;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (d->t1[mid] < tt)
			lo = mid + 1;
		else
			hi = mid;
	}
	int64_t slack = (int64_t)(c->interval_s * 1000) + 1;
	size_t best = lo < d->nb ? lo : d->nb - 1;
	if (best > 0 && llabs(d->t1[best - 1] - tt) < llabs(d->t0[best] - tt))
		best--;
	if (tt < d->t0[best] - slack || tt > d->t1[best] + slack)
		return NAN;
	return ds_mean(d, (size_t)e->series[metric], best);
}

/* Host-side latency of a virtual disk (IO-weighted read/write), ms. */
static double vdisk_latency_at(const struct analysis *a, const struct entity *v, int64_t t)
{
	double r = value_at(a, v, M_READS, t), w = value_at(a, v, M_WRITES, t);
	double lr = value_at(a, v, M_VD_LAT_R, t), lw = value_at(a, v, M_VD_LAT_W, t);
	if (isnan(lr) && isnan(lw) && v->series[M_HV_LAT] >= 0)
		return value_at(a, v, M_HV_LAT, t); /* a Hyper-V VHDX: one latency */
	if (isnan(r) || isnan(w))
		return !isnan(lr) ? lr : lw;
	double tot = (isnan(lr) ? 0 : r) + (isnan(lw) ? 0 : w);
	if (tot <= 0)
		return NAN;
	return ((isnan(lr) ? 0 : r * lr) + (isnan(lw) ? 0 : w * lw)) / tot;
}

static double guest_latency_at(const struct capture *c, const struct entity *g, size_t k)
{
	double t = val(c, g, M_G_LAT_T, k);
	if (!isnan(t))
		return t;
	double r = val(c, g, M_G_READS, k), w = val(c, g, M_G_WRITES, k);
	double lr = val(c, g, M_G_LAT_R, k), lw = val(c, g, M_G_LAT_W, k);
	if (isnan(r) || isnan(w) || r + w <= 0)
		return !isnan(lr) ? lr : lw;
	double num = (isnan(lr) ? 0 : r * lr) + (isnan(lw) ? 0 : w * lw);
	double den = (isnan(lr) ? 0 : r) + (isnan(lw) ? 0 : w);
	return den > 0 ? num / den : NAN;
}

/* ---- guest vSCSI cap ---- */

/* The lowest per-disk limit the controller of guest disk e can have: when the host ever holds
 * clearly more IOs in flight for its virtual disk v than 32, the controller is not capping it at
 * 32 (0 LSI 32, 1 PVSCSI 64, 2 PVSCSI 254). */
static int vscsi_lowest(struct analysis *a, const struct entity *e, const struct entity *v, const double *limits)
{
	int lowest = 0;
	if (!v)
		return 0;
	const struct capture *c = cap_of(a, e);
	struct qsketch qi;
	qs_init(&qi);
	for (size_t k = 0; k < c->ds.nb; k++) {
		int64_t t = model_time(&a->m, c, k);
		qs_add(&qi, value_at(a, v, M_CMDS, t) * vdisk_latency_at(a, v, t) / 1000.0);
	}
	double p99 = qs_quantile(&qi, 0.99);
	qs_free(&qi);
	while (lowest < 2 && p99 > 1.25 * limits[lowest])
		lowest++;
	return lowest;
}

/* On the raw guest rows: Current Disk Queue Length at the lowest per-disk limit there is (LSI
 * Logic SAS 32, less one), sustained; each window of the episode is then judged against the
 * controller limit the host's view allows and the IOs the host has in flight (guest_vscsi_window).
 * A queue that reaches 32 in one sample of a day-long capture is no cap. */
static bool vscsi_applies(const struct analysis *a, const struct entity *e)
{
	(void)a;
	return !e->aggregate && has(e, M_G_CDQL); /* _Total's queue is every disk's */
}
static bool vscsi_cond(const struct analysis *a, const struct entity *e)
{
	return CUR(e, M_G_CDQL) >= RVE(e, R_VSCSI_LSI) - 1;
}
static double vscsi_ev_thr(const struct analysis *a, const struct entity *e, int k)
{
	return k == 0 ? RVE(e, R_VSCSI_LSI) - 1 : NAN;
}

static const struct stream_rule sr_guest_vscsi_cap = {
	.layer = LAYER_GUEST, .applies = vscsi_applies, .cond = vscsi_cond,
	.signal = M_G_CDQL, .signal_thr = NULL, .ev = {M_G_CDQL, M_G_LAT_R, M_G_LAT_W, M_G_XFERS, -1}, .ctx = {-1, -1},
	.ev_thr = vscsi_ev_thr,
};

/* The finding of guest disk e for the buckets of wj (its virtual disk v, NULL without the host's
 * view; lowest the lowest limit the host's view allows). */
static void vscsi_cap_finding(struct analysis *a, const struct entity *e, const struct entity *v,
			      const struct diskmap_entry *me, int lowest, const double *limits, const char *const *names,
			      const struct win *wj)
{
	const struct capture *c = cap_of(a, e);
	const double L0 = limits[lowest];
	(void)me;
	/* pinned: the share of samples within 1 of a controller limit */
	int pinned = -1;
	size_t s = (size_t)e->series[M_G_CDQL];
	for (int li = lowest; li < 3 && pinned < 0; li++) {
		long near = 0, tot = 0;
		for (size_t k = wj->k0; k <= wj->k1; k++) {
			double q = ds_mean(&c->ds, s, k);
			if (isnan(q))
				continue;
			tot++;
			if (fabs(q - limits[li]) <= 1)
				near++;
		}
		if (tot && (double)near / (double)tot >= RVE(e, R_VSCSI_PINNED_SHARE))
			pinned = li;
	}
	double qmed = win_median(c, e, M_G_CDQL, wj->k0, wj->k1);
	/* Without the host's view only a queue pinned at a limit shows the cap; a queue above
	 * the limits may as well be in flight at a slow array (PVSCSI allows 254): said so, as
	 * information, never as a cause. */
	bool unconfirmed = !v && pinned < 0;
	if (unconfirmed && !(qmed > L0 + 1))
		return;
	struct qsketch ql;
	qs_init(&ql);
	for (size_t k = wj->k0; k <= wj->k1; k++)
		qs_add(&ql, guest_latency_at(c, e, k));
	double glat = qs_quantile(&ql, 0.5);
	qs_free(&ql);
	const struct ev_spec ev[] = {{M_G_CDQL, L0 - 1}, {M_G_LAT_R, NAN}, {M_G_LAT_W, NAN}, {M_G_XFERS, NAN}, EV_END};
	struct finding *f = window_finding(a, K_Q_GUEST_VSCSI_CAP,
					   unconfirmed ? SEV_INFO
					   : glat > RVE(e, R_GUEST_LAT_WARN) ? SEV_CRITICAL : SEV_WARNING,
					   LAYER_VSCSI, e, wj, ev);
	if (unconfirmed) {
		f->summary = afmt(a, "guest disk queue at %.0f (median), above %s (%.0f) but not pinned at a "
				     "controller limit, and no host capture maps this disk: whether the IOs wait "
				     "in the guest above the controller or are in flight at the array cannot be "
				     "told%s", qmed, names[lowest], L0,
				  isnan(glat) ? "" : afmt(a, "; guest latency median %.1f ms", glat));
		f->rule = afmt(a, "without the host: Current Disk Queue Length within 1 of a per-disk limit in "
				  ">= %g%% of the samples (pinned); a queue above the limits is information",
			       100 * RVE(e, R_VSCSI_PINNED_SHARE));
		f->source = "[seed] Current Disk Queue Length pinned at 32 under LSI Logic SAS: the per-disk "
			    "vSCSI limit is hit; [vmw KB 2053145] PVSCSI 64/254";
		f->advice = afmt(a, "Add the esxtop capture of the host for the same period (or --map this disk "
				    "to its virtual disk): the host's IOs in flight for the virtual disk tell a "
				    "controller cap from a slow array. If the disk is on LSI Logic SAS, every IO "
				    "above 32 waits in the guest.");
		f->heuristic = true;
		return;
	}
	if (pinned >= 0)
		f->summary = afmt(a, "guest disk queue pinned at %.0f, %s: IOs wait in the guest above the "
				     "virtual SCSI controller%s%s",
				  limits[pinned], names[pinned], v ? afmt(a, " (virtual disk %s)", v->name) : "",
				  isnan(glat) ? "" : afmt(a, "; guest latency median %.1f ms", glat));
	else
		f->summary = afmt(a, "guest disk queue at %.0f (median), above %s (%.0f): IOs wait in the "
				     "guest above the virtual SCSI controller%s%s",
				  qmed, names[lowest], L0, v ? afmt(a, " (virtual disk %s)", v->name) : "",
				  isnan(glat) ? "" : afmt(a, "; guest latency median %.1f ms", glat));
	f->rule = afmt(a, "Current Disk Queue Length >= %g sustained%s", L0 - 1,
		       v ? afmt(a, " and at least %g IOs more than the host has in flight for the "
				   "virtual disk (host IOPS x latency)", fmax(2, 0.25 * L0))
			 : " (no host capture mapped: not confirmed on the host side)");
	f->source = "[seed] Current Disk Queue Length pinned at 32 under LSI Logic SAS: the per-disk "
		    "vSCSI limit is hit; [pal] warns at >= 32; [vmw KB 2053145] PVSCSI 64/254";
	if (pinned <= 0 && lowest == 0)
		f->advice = afmt(a, "If this disk is on an LSI Logic SAS controller (per-disk queue 32, "
				    "adapter 128, not changeable), move it to PVSCSI (per-disk 64, up to 254 "
				    "with MaxQueueDepth; adapter 256, up to 1024), ideally one controller per "
				    "busy disk; then check that the device queue (DQLEN) and the array absorb "
				    "the deeper queue [seed]. If it already is PVSCSI, raise MaxQueueDepth.");
	else
		f->advice = afmt(a, "Raise the PVSCSI queue limits (MaxQueueDepth up to 254, "
				    "RequestRingPages 32 for 1024 per adapter) [vmw KB 2053145], and spread "
				    "the busiest files over more virtual disks and controllers.");
	if (!v)
		f->heuristic = true;
}

static void guest_vscsi_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	static const char *const names[3] = {"the LSI Logic SAS per-disk limit", "the PVSCSI default per-disk limit",
					     "the PVSCSI maximum per-disk limit"};
	const double limits[3] = {RVE(e, R_VSCSI_LSI), RVE(e, R_VSCSI_PVSCSI), RVE(e, R_VSCSI_PVSCSI_MAX)};
	const struct capture *c = cap_of(a, e);
	const struct diskmap_entry *me = NULL;
	/* a guest clock that cannot be aligned: judged without the host's view */
	const struct entity *v = analysis_clock_untrusted(a, e->capture) ? NULL : mapped_vdisk(a, e, &me);
	if (v && model_hyperv(&a->m, v->capture))
		return; /* a Hyper-V VHDX: no vSCSI per-disk limit (the guest's wait is queue.guest_hidden's) */
	int lowest = vscsi_lowest(a, e, v, limits);
	const double L0 = limits[lowest];
	/* the windows of the episode at the limit the host allows, with IOs waiting above what the
	 * host has in flight (Little: host IOPS x host latency): a guest queue the host absorbs is no cap */
	int nsub = w->nsub > 1 ? w->nsub : 1;
	size_t kk0 = SIZE_MAX, kk1 = 0;
	double held = 0;
	for (int j = 0; j < nsub; j++) {
		int64_t s0 = w->nsub > 1 ? w->sub[j].start : w->start, s1 = w->nsub > 1 ? w->sub[j].end : w->end;
		struct qsketch qq, qi;
		qs_init(&qq);
		qs_init(&qi);
		size_t k0 = SIZE_MAX, k1 = 0;
		for (size_t k = 0; k < c->ds.nb; k++) {
			if (c->ds.t1[k] < s0 || c->ds.t0[k] > s1)
				continue;
			qs_add(&qq, val(c, e, M_G_CDQL, k));
			if (v) {
				int64_t t = model_time(&a->m, c, k);
				qs_add(&qi, value_at(a, v, M_CMDS, t) * vdisk_latency_at(a, v, t) / 1000.0);
			}
			k0 = k < k0 ? k : k0;
			k1 = k > k1 ? k : k1;
		}
		double q = qq.n ? qs_quantile(&qq, 0.5) : NAN, inside = qi.n ? qs_quantile(&qi, 0.5) : NAN;
		qs_free(&qq);
		qs_free(&qi);
		if (isnan(q) || q < L0 - 1 || (!isnan(inside) && q - inside < fmax(2, 0.25 * L0)))
			continue;
		held += (double)(s1 - s0) / 1000.0 + c->interval_s;
		kk0 = k0 < kk0 ? k0 : kk0;
		kk1 = k1 > kk1 ? k1 : kk1;
	}
	if (kk0 == SIZE_MAX || held < RV(R_SUSTAIN_SECONDS))
		return;
	struct win wj = {kk0, kk1, 0};
	vscsi_cap_finding(a, e, v, me, lowest, limits, names, &wj);
}

/* ---- hidden guest queueing ---- */

/* The guest's latency at this row: Avg. Disk sec/Transfer, else reads and writes weighted by IOs. */
static double guest_latency_now(const struct analysis *a, const struct entity *e)
{
	double t = CUR(e, M_G_LAT_T);
	if (!isnan(t))
		return t;
	double r = CUR(e, M_G_READS), w = CUR(e, M_G_WRITES), lr = CUR(e, M_G_LAT_R), lw = CUR(e, M_G_LAT_W);
	if (isnan(r) || isnan(w) || r + w <= 0)
		return !isnan(lr) ? lr : lw;
	double num = (isnan(lr) ? 0 : r * lr) + (isnan(lw) ? 0 : w * lw);
	double den = (isnan(lr) ? 0 : r) + (isnan(lw) ? 0 : w);
	return den > 0 ? num / den : NAN;
}

/* On the raw guest rows: the guest's latency at least guest.hidden.min_gap_ms (what the host must
 * then fall short of), sustained, while the disk is busy; the episode is then compared with the
 * host's view of its virtual disk over the same time (guest_hidden_window), so a 4 s stall in a
 * day-long capture, or a backup's edges in downsampled buckets, are no hidden queue. */
static bool hidden_applies(const struct analysis *a, const struct entity *e)
{
	(void)a;
	return !e->aggregate && has(e, M_G_XFERS) && (has(e, M_G_LAT_T) || has(e, M_G_LAT_R) || has(e, M_G_LAT_W));
}
static bool hidden_cond(const struct analysis *a, const struct entity *e)
{
	return guest_latency_now(a, e) >= RVE(e, R_HIDDEN_MIN_MS) && active_now(a, e, M_G_XFERS);
}

static const struct stream_rule sr_guest_hidden = {
	.layer = LAYER_GUEST, .applies = hidden_applies, .cond = hidden_cond,
	.signal = -1, .ev = {M_G_LAT_T, M_G_CDQL, M_G_XFERS, M_G_LAT_R, M_G_LAT_W}, .ctx = {-1, -1}, .ev_thr = thr_nan,
};

/* The guest's and the host's medians over the guest buckets that meet capture times [s0, s1]
 * (guest latency, host virtual disk latency, guest transfers, host commands). */
static void hidden_medians(struct analysis *a, const struct entity *e, const struct entity *v, int64_t s0, int64_t s1,
			   double *g, double *h, double *gx, double *hx, size_t *k0, size_t *k1)
{
	const struct capture *c = cap_of(a, e);
	struct qsketch q[4];
	for (int j = 0; j < 4; j++)
		qs_init(&q[j]);
	*k0 = SIZE_MAX;
	*k1 = 0;
	for (size_t k = 0; k < c->ds.nb; k++) {
		if (c->ds.t1[k] < s0 || c->ds.t0[k] > s1)
			continue;
		int64_t t = model_time(&a->m, c, k);
		qs_add(&q[0], guest_latency_at(c, e, k));
		qs_add(&q[1], vdisk_latency_at(a, v, t));
		qs_add(&q[2], val(c, e, M_G_XFERS, k));
		qs_add(&q[3], value_at(a, v, M_CMDS, t));
		*k0 = k < *k0 ? k : *k0;
		*k1 = k > *k1 ? k : *k1;
	}
	double *out[4] = {g, h, gx, hx};
	for (int j = 0; j < 4; j++) {
		*out[j] = q[j].n ? qs_quantile(&q[j], 0.5) : NAN;
		qs_free(&q[j]);
	}
}

static bool hidden_holds(const struct analysis *a, const struct entity *e, double g, double h, double gx, double hx)
{
	bool same_load = isnan(gx) || isnan(hx) || (hx > 0 && fabs(gx - hx) / hx < 0.3);
	return !isnan(g) && !isnan(h) && g >= RVE(e, R_HIDDEN_RATIO) * h && g - h >= RVE(e, R_HIDDEN_MIN_MS) && same_load;
}

static void guest_hidden_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	const struct diskmap_entry *me = NULL;
	struct entity *v = mapped_vdisk(a, e, &me);
	if (!v || analysis_clock_untrusted(a, e->capture))
		return; /* no host view, or none at the same time */
	const struct capture *c = cap_of(a, e);
	double ratio = RVE(e, R_HIDDEN_RATIO), gap = RVE(e, R_HIDDEN_MIN_MS); /* for the rule's text */
	/* each window of the episode against the host's view of its virtual disk over the same time:
	 * the windows where the guest is not that much slower than the host are left out */
	int nsub = w->nsub > 1 ? w->nsub : 1, kept = 0;
	bool cut = false;
	struct subwin *sub = arena_alloc(&a->arena, (size_t)nsub * sizeof *sub);
	double held = 0;
	size_t kk0 = SIZE_MAX, kk1 = 0;
	for (int j = 0; j < nsub; j++) {
		int64_t s0 = w->nsub > 1 ? w->sub[j].start : w->start, s1 = w->nsub > 1 ? w->sub[j].end : w->end;
		/* the first and last bucket where the guest is that much slower than the host (a long slow
		 * stretch may be slow on the host too at its ends) */
		size_t first = SIZE_MAX, last = 0;
		for (size_t k = 0; k < c->ds.nb; k++) {
			if (c->ds.t1[k] < s0 || c->ds.t0[k] > s1)
				continue;
			int64_t t = model_time(&a->m, c, k);
			if (hidden_holds(a, e, guest_latency_at(c, e, k), vdisk_latency_at(a, v, t), val(c, e, M_G_XFERS, k),
					 value_at(a, v, M_CMDS, t))) {
				first = k < first ? k : first;
				last = k;
			}
		}
		if (first == SIZE_MAX)
			continue;
		/* judged over the whole window (a backup's edges in buckets of unequal phase are not a
		 * hidden queue), then said for the part where it holds */
		double g, h, gx, hx;
		size_t k0, k1;
		hidden_medians(a, e, v, s0, s1, &g, &h, &gx, &hx, &k0, &k1);
		if (!hidden_holds(a, e, g, h, gx, hx))
			continue;
		s0 = c->ds.t0[first] > s0 ? c->ds.t0[first] : s0;
		s1 = c->ds.t1[last] < s1 ? c->ds.t1[last] : s1;
		if ((double)(s1 - s0) / 1000.0 + c->interval_s < RV(R_SUSTAIN_SECONDS))
			continue;
		hidden_medians(a, e, v, s0, s1, &g, &h, &gx, &hx, &k0, &k1);
		bool trimmed = s0 != (w->nsub > 1 ? w->sub[j].start : w->start) || s1 != (w->nsub > 1 ? w->sub[j].end : w->end);
		cut |= trimmed;
		sub[kept].start = s0;
		sub[kept].end = s1;
		kept++;
		held += (double)(s1 - s0) / 1000.0 + c->interval_s;
		kk0 = k0 < kk0 ? k0 : kk0;
		kk1 = k1 > kk1 ? k1 : kk1;
	}
	if (!kept || held < RV(R_SUSTAIN_SECONDS))
		return;
	int64_t s0 = sub[0].start, s1 = sub[kept - 1].end;
	double g, h, gx, hx;
	size_t k0, k1;
	hidden_medians(a, e, v, s0, s1, &g, &h, &gx, &hx, &k0, &k1);
	if (kept == nsub && !cut) { /* the whole episode: the raw rows' guest figures */
		double gr = ev_median(w, M_G_LAT_T);
		g = isnan(gr) ? g : gr;
	}
	struct finding *f = episode_finding(a, w, g - h > RVE(e, R_GUEST_LAT_WARN) ? SEV_CRITICAL : SEV_WARNING, LAYER_GUEST);
	if (kept < nsub || cut) {
		/* windows left out or trimmed: the finding is what was kept, its evidence from its buckets */
		int64_t iv = (int64_t)(c->interval_s * 1000);
		f->start = s0 - iv + c->clock_offset_ms;
		f->end = s1 + c->clock_offset_ms;
		f->sustained_s = held;
		for (int j = 0; j < kept; j++) {
			sub[j].start += c->clock_offset_ms - iv;
			sub[j].end += c->clock_offset_ms;
		}
		f->sub = kept > 1 ? sub : NULL;
		f->nsub = kept > 1 ? kept : 0;
		f->nev = 0;
		const int m[3] = {M_G_LAT_T, M_G_CDQL, M_G_XFERS};
		for (int j = 0; j < 3; j++)
			evidence_add(f, c, e, m[j], kk0, kk1, NAN);
	}
	f->summary = afmt(a, "IOs wait inside the guest: guest latency median %.1f ms vs %.1f ms on the host "
			     "for the same virtual disk %s at the same IOPS", g, h, v->name);
	f->rule = afmt(a, "guest latency >= %g ms sustained on the guest's rows, and over that time >= %gx the host's and "
			  ">= %g ms more, at IOPS within 30%% (medians)", gap, ratio, gap);
	f->source = "[derived] Little's law: guest sec/Transfer >> host GAVG at equal IOPS "
		    "means IOs wait inside the guest (vSCSI limit LSI 32 / PVSCSI 64)";
	f->heuristic = true;
	double q = kept < nsub || cut ? win_median(c, e, M_G_CDQL, kk0, kk1) : ev_median(w, M_G_CDQL);
	if (model_hyperv(&a->m, v->capture)) {
		f->source = "[derived] Little's law: guest sec/Transfer >> the VHDX's Latency at equal IOPS means IOs wait "
			    "inside the VM; [ms-docs Hyper-V storage I/O performance] the synthetic SCSI controller, "
			    "VMBus storage channels (vCPUs/16 per controller by default)";
		f->advice = afmt(a, "The wait is inside the VM, above the Hyper-V host: the host answers %s in %.1f ms. "
				    "Look at the guest's queue to its virtual SCSI controller (Current Disk Queue Length "
				    "median %.0f): spread busy disks over more virtual SCSI controllers (each has its own "
				    "VMBus channels; a big VM gets more channels per controller), check guest CPU and "
				    "filter drivers (antivirus, backup) and that the data disks are not on the emulated IDE "
				    "controller.%s", iop_vhdx_file(v->name), h, q,
			       me && me->automatic ? afmt(a, " (Mapping found by correlating IOPS, r = %.2f; confirm with "
							     "--map.)", me->correlation) : "");
	} else if (q >= RVE(e, R_VSCSI_LSI) - 1)
		f->advice = afmt(a, "The wait is above the hypervisor: the guest's queue to the virtual "
				    "controller is full (Current Disk Queue Length median %.0f). Check the "
				    "controller type (LSI Logic SAS caps a disk at 32 outstanding IOs) and move "
				    "busy disks to PVSCSI; also check guest CPU and filter drivers (antivirus, "
				    "backup).%s", q,
			       me && me->automatic ? afmt(a, " (Mapping found by correlating IOPS, r = %.2f; "
							     "confirm with --map.)", me->correlation) : "");
	else
		f->advice = afmt(a, "The guest queue is short (median %.0f), yet each IO takes far longer in the "
				    "guest than on the host: the time goes to the guest's IO path or the "
				    "virtual controller's emulation, which all disks of a controller share (LSI "
				    "Logic SAS serialises it; a busy neighbour disk slows this one). Check the "
				    "controller type and the busiest disk on it, guest CPU, and filter drivers.%s",
			       q,
			       me && me->automatic ? afmt(a, " (Mapping found by correlating IOPS, r = %.2f; "
							     "confirm with --map.)", me->correlation) : "");
}

/* ---- datastores without a SCSI device: NFS, vSAN ---- */

/* A virtual disk whose IOs no SCSI device of its host carries (its stack links no LUN, or links an
 * NFS volume) has no DAVG/KAVG to blame: the host-side evidence is the virtual disk's own latency
 * (and the NFS volume's). Sustained above datastore.latency.*, that is the finding, named on the
 * virtual disk with the datastore it is on. A disk with no link while a LUN of the host is slow at
 * the same time is left to that LUN's finding (several virtual disks on one LUN correlate poorly). */
static void det_datastore_latency(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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
				const char *where = st.back == BACK_NOT_SHOWN
							    ? afmt(a, "and the capture shows it on none of its SCSI devices (%s): the IO "
								      "waits below the virtual disk, in a datastore the capture does "
								      "not show%s", st.l_dev.why ? st.l_dev.why : "no LUN carries it",
								   nb.len ? afmt(a, " as a LUN (this host has NFS volumes: %s)", nb.data) : "")
							    : afmt(a, "and the capture does not tie it to a LUN (it has no per-world IO "
								      "columns, and no LUN's IOPS follow it at r >= %.1f): the LUN or "
								      "datastore it waits on is not identified", TOPO_R_VDISK_DEVICE);
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

/* ---- throttling: AQD, SIOC, DSNRO ---- */

static size_t bucket_of(const struct capture *c, int64_t t)
{
	size_t lo = 0, hi = c->ds.nb;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c->ds.t1[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ds.nb ? lo : (c->ds.nb ? c->ds.nb - 1 : 0);
}

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

static void det_aqd(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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

static void det_sioc(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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

/* ---- partition alignment ---- */

/* Host names: equal ignoring case, or one the short name of the other ("sql01" and
 * "SQL01.corp.local"). */
static bool same_machine(const char *x, const char *y)
{
	if (!x || !y)
		return false;
	size_t a = strcspn(x, "."), b = strcspn(y, ".");
	return strcasecmp(x, y) == 0 || ((!x[a] || !y[b]) && a == b && strncasecmp(x, y, a) == 0);
}

/* The guest a partitions file is of: the machine it names (SystemName) or the --map
 * "partitions = HOST" line, if that is a guest of the analysis; NULL (and a->parts_note says why)
 * when it names another machine or none: its offsets are then not applied. */
static const char *partitions_guest(struct analysis *a)
{
	struct buf guests;
	buf_init(&guests);
	const char *want = a->parts.system ? a->parts.system : a->parts_host, *hit = NULL;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (c->failed || c->role != ROLE_GUEST || !c->host)
			continue;
		if (!strstr(guests.data ? guests.data : "", c->host))
			buf_printf(&guests, "%s%s", guests.len ? ", " : "", c->host);
		if (!hit && same_machine(want, c->host))
			hit = c->host;
	}
	const char *file = a->opts.partitions ? a->opts.partitions : "the partitions file";
	const char *gs = guests.len ? afmt(a, "the guest%s captured: %s", strchr(guests.data, ',') ? "s" : "", guests.data)
				    : "no guest (perfmon) capture was given";
	if (!hit && a->parts.system)
		a->parts_note = afmt(a, "The partition listing %s was taken on %s (SystemName), not on a guest of this "
					"analysis (%s): its offsets were not checked.", file, a->parts.system, gs);
	else if (!hit && a->parts_host)
		a->parts_note = afmt(a, "The --map line 'partitions = %s' names no guest of this analysis (%s): the "
					"partition offsets of %s were not checked.", a->parts_host, gs, file);
	else if (!hit)
		a->parts_note = afmt(a, "The partition listing %s does not say which machine it is from (no SystemName "
					"column): its offsets were not checked. Take it with 'wmic partition get BlockSize, "
					"StartingOffset, Name, Index, SystemName', or tie it to its guest with a --map line "
					"'partitions = HOST'.", file);
	buf_free(&guests);
	return hit;
}

/* The symptom a misaligned partition's disk shows: the worst split-IO finding on the guest disk or
 * its LUN, latency of its LUN (DAVG: the extra back-end IOs), or the guest disk's latency unless a
 * guest-side queue finding on the disk explains it (the IOs wait above the controller, not in the
 * back end). */
static const struct finding *alignment_symptom(struct analysis *a, const struct entity *g)
{
	if (!g)
		return NULL;
	struct topo_in ti = analysis_topo(a);
	struct stack st;
	topology_stack(&ti, g, &st);
	const struct finding *worst = NULL;
	bool queued_above = false;
	for (size_t i = 0; i < a->nf; i++)
		queued_above |= (a->f[i].kind == K_Q_GUEST_HIDDEN || a->f[i].kind == K_Q_GUEST_VSCSI_CAP) &&
				a->f[i].ent == g - a->m.ents && a->f[i].sev >= SEV_WARNING;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		bool lat = f->kind == K_LAT_GUEST_READ || f->kind == K_LAT_GUEST_WRITE;
		bool on_disk = ((lat && !queued_above) || f->kind == K_IO_SPLIT) && f->ent == g - a->m.ents;
		bool on_lun = (f->kind == K_LAT_DEVICE || f->kind == K_IO_SPLIT) && st.device && f->ent == st.device - a->m.ents;
		if ((on_disk || on_lun) && f->sev >= SEV_WARNING && (!worst || f->sev > worst->sev))
			worst = f;
	}
	return worst;
}

static void det_alignment(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
	if (!a->have_parts)
		return;
	const char *guest = partitions_guest(a);
	if (!guest) {
		struct diag d;
		diag_init(&d, a->opts.partitions ? a->opts.partitions : "partitions", -1);
		d.sink = a->sink;
		diag_emit(&d, DIAG_WARNING, 0, 0, "%s", a->parts_note);
		return;
	}
	int64_t start = INT64_MAX, end = INT64_MIN;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (c->failed || !c->rows)
			continue;
		if (c->start + c->clock_offset_ms < start)
			start = c->start + c->clock_offset_ms;
		if (c->end + c->clock_offset_ms > end)
			end = c->end + c->clock_offset_ms;
	}
	long long align = (long long)rule_value(&a->rules, R_ALIGN_BYTES);
	long long min_align = (long long)rule_value(&a->rules, R_ALIGN_MIN_BYTES);
	for (size_t i = 0; i < a->parts.n; i++) {
		const struct partition *p = &a->parts.p[i];
		if (align <= 0 || p->offset % align == 0 || (min_align > 0 && p->offset % min_align == 0))
			continue; /* a multiple of 4 KiB: no back-end block or flash page is straddled */
		bool classic = p->offset == 32256;
		/* the drive of "Disk #N" from the perfmon PhysicalDisk instances ("1 D:") */
		const struct guest_disk_no *dn = p->disk >= 0 ? model_disk_no(&a->m, p->disk, guest) : NULL;
		const struct entity *g = dn ? model_find(&a->m, LAYER_GUEST, dn->drive, dn->host) : NULL;
		const struct finding *sym = alignment_symptom(a, g);
		/* the severity follows the symptom; without one it is a risk to fix, not a cause */
		struct finding *f = finding_new(a, K_ALIGN_MISALIGNED, sym ? sym->sev : SEV_WARNING, LAYER_GUEST,
						dn ? dn->drive : p->name, dn ? dn->host : guest);
		f->start = start == INT64_MAX ? 0 : start;
		f->end = end == INT64_MIN ? 0 : end;
		f->sustained_s = start == INT64_MAX ? 0 : (double)(end - start) / 1000.0;
		f->summary = afmt(a, "%s%s%s starts at byte %lld, not a multiple of %lld (not even of %lld)%s: a guest IO "
				     "can straddle two back-end blocks — confirmed from offsets; %s",
				  p->name, dn ? " on " : "", dn ? dn->drive : "", p->offset, align, min_align,
				  classic ? " (63 sectors: the classic Windows 2003 misalignment)" : "",
				  sym ? afmt(a, "its disk shows the symptom: %s %s (%s)", severity_names[sym->sev],
					     kinds[sym->kind].title, sym->summary)
				      : "no latency or split-IO finding on its disk in these captures, so it costs nothing "
					"measurable here");
		f->rule = afmt(a, "StartingOffset %% %lld != 0 and %% %lld != 0 (line %ld of the partitions file); the "
				  "severity of the disk's latency or split-IO finding, else a warning",
			       min_align, align, p->line);
		f->source = "[seed][vmw] Windows 2008+ and VMFS5 align at 1 MiB; 32256 = 63 sectors is the classic bad "
			    "offset; [derived] Advanced Format (512e/4Kn) and flash pages are 4 KiB: an offset that is a multiple of 4096 "
			    "straddles no physical sector";
		f->heuristic = !sym;
		f->advice = afmt(a, "Recreate the partition aligned at 1 MiB (Windows 2008+ does by default; diskpart "
				    "'create partition primary align=1024') and copy the data over; on the host, check "
				    "that the VMFS datastore is VMFS5+ created, not upgraded from VMFS3.%s",
				 sym ? "" : " Not urgent: no symptom in these captures.");
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

static void det_shared_lu(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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

/* ---- vmkernel.log events weighed against the captures ---- */

/* What the host captures show of device dev (on host, NULL = any) around [t0, t1] (log times,
 * UTC ms): a log event counts toward a cause only with a symptom there — DAVG above the device
 * rule, commands queued with KAVG above its rule, a DQLEN change, aborts, resets or failed
 * commands. A log line alone is context: two BUSY answers over a healthy capture are not the
 * array's queue overflowing. */
struct log_symptom {
	int state;                       /* 1 a symptom, 0 a capture covers the time and shows none,
	                                  * -1 no capture has the device then */
	const char *what;                /* the symptom, or what the capture shows instead (arena) */
};

static struct log_symptom capture_symptom(struct analysis *a, const char *dev, const char *host, int64_t t0, int64_t t1)
{
	struct log_symptom r = {-1, NULL};
	double davg_max = -1, qued_max = -1, kavg_max = -1, err_max = -1;
	bool covered = false;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->layer != LAYER_DEVICE || strcmp(e->name, dev) != 0)
			continue;
		struct vmk_event hx = {.host = host};
		if (host && e->host && !vmk_on_host(&hx, e->host))
			continue;
		const struct capture *c = cap_of(a, e);
		if (c->failed || !c->ds.nb)
			continue;
		int64_t iv = (int64_t)(c->interval_s * 1000);
		int64_t lo = t0 - 60000 - iv - c->clock_offset_ms, hi = t1 + 60000 + iv - c->clock_offset_ms;
		if (hi < c->ds.t0[0] || lo > c->ds.t1[c->ds.nb - 1])
			continue;
		covered = true;
		for (size_t k = bucket_of(c, lo); k < c->ds.nb && c->ds.t0[k] <= hi; k++) {
			if (c->ds.t1[k] < lo)
				continue;
			double d = e->series[M_DAVG] >= 0 ? ds_max(&c->ds, (size_t)e->series[M_DAVG], k) : NAN;
			if (!isnan(d) && active(&a->rules, c, e, M_CMDS, k)) {
				davg_max = fmax(davg_max, d);
				if (d > RVE(e, R_DAVG_WARN) && r.state < 1) {
					r.state = 1;
					r.what = afmt(a, "DAVG %.1f ms (above %g)", d, RVE(e, R_DAVG_WARN));
				}
			}
			double q = e->series[M_QUED] >= 0 ? ds_max(&c->ds, (size_t)e->series[M_QUED], k) : NAN;
			double kv = e->series[M_KAVG] >= 0 ? ds_max(&c->ds, (size_t)e->series[M_KAVG], k) : NAN;
			qued_max = isnan(q) ? qued_max : fmax(qued_max, q);
			kavg_max = isnan(kv) ? kavg_max : fmax(kavg_max, kv);
			if (q >= RVE(e, R_DEV_SAT_QUED) && kv > RVE(e, R_KAVG_WARN) && r.state < 1) {
				r.state = 1;
				r.what = afmt(a, "%.0f command%s queued in the VMkernel (KAVG %.2f ms)", q, q == 1 ? "" : "s", kv);
			}
			const int em[3] = {M_ABRTS, M_RESETS, M_FAILED};
			for (int j = 0; j < 3; j++) {
				double x = e->series[em[j]] >= 0 ? ds_max(&c->ds, (size_t)e->series[em[j]], k) : NAN;
				err_max = isnan(x) ? err_max : fmax(err_max, x);
				if (x > 0 && j < 2 && r.state < 1) {
					r.state = 1;
					r.what = afmt(a, "%s %.1f/s in the capture", j == 0 ? "aborts" : "resets", x);
				}
			}
		}
		for (size_t q = 0; q < e->ndq && r.state < 1; q++)
			if (e->dq[q].t >= lo && e->dq[q].t <= hi) {
				r.state = 1;
				r.what = afmt(a, "DQLEN %.0f -> %.0f", (double)e->dq[q].from, (double)e->dq[q].to);
			}
	}
	if (r.state < 1 && covered) {
		r.state = 0;
		struct buf b;
		buf_init(&b);
		buf_adds(&b, "the host capture shows no symptom then");
		if (davg_max >= 0)
			buf_printf(&b, ": DAVG at most %.1f ms", davg_max);
		if (qued_max >= 0)
			buf_printf(&b, "%s%.0f queued at most", davg_max >= 0 ? ", " : ": ", qued_max);
		buf_adds(&b, ", DQLEN unchanged");
		r.what = arena_strdup(&a->arena, b.data);
		buf_free(&b);
	} else if (r.state < 0) {
		r.what = "no host capture has this device at that time";
	}
	return r;
}

/* How many path and ALUA events the log has for dev within [t0, t1] (and the first's text). */
static long vmk_path_events(const struct analysis *a, const char *dev, const char *host, int64_t t0, int64_t t1,
			    const struct vmk_event **first)
{
	long n = 0;
	*first = NULL;
	for (size_t i = 0; a->have_vmk && i < a->vmk.n; i++) {
		const struct vmk_event *e = &a->vmk.ev[i];
		if ((e->kind == VMK_PATH || e->kind == VMK_ALUA) && e->t >= t0 && e->t <= t1 &&
		    (strcmp(e->device, dev) == 0 || !*e->device) && vmk_on_host(e, host)) {
			if (!n)
				*first = e;
			n++;
		}
	}
	return n;
}

/* The SCSI host status names (H:0x..): the VMkernel's host-side codes, numbered as Linux's DID_*
 * ([vmw] "Understanding SCSI host-side NMP errors/conditions", referenced from Broadcom KB 338435). */
static const char *host_status_name(unsigned h)
{
	static const char *const names[] = {"OK", "NO_CONNECT", "BUS_BUSY", "TIMEOUT", "BAD_TARGET", "ABORT",
					    "PARITY", "ERROR", "RESET", "BAD_INTR"};
	return h < sizeof names / sizeof names[0] ? names[h] : "other";
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
static void det_qdepth_steps(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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

/* ---- vmkernel.log event windows ---- */

static bool is_qfull(const struct vmk_event *e)
{
	return e->kind == VMK_QFULL || e->kind == VMK_BUSY;
}

static bool is_host_failure(const struct vmk_event *e)
{
	/* H:0x2/0x5/0x7/0x8 and the like point to the fabric or the HBA; D:0x2 CHECK CONDITION
	 * alone is routine */
	return e->kind == VMK_FAILED && e->host_status != 0;
}

/* Groups the events of event i's device that match keep and are less than the rule's gap apart
 * (the log is in time order): marks them done, sets the window, returns how many. */
static long vmk_window(const struct analysis *a, size_t i, bool (*keep)(const struct vmk_event *), bool *done,
		       int64_t *t0, int64_t *t1)
{
	const struct vmk_event *e0 = &a->vmk.ev[i];
	int64_t gap = (int64_t)(rule_value(&a->rules, R_QFULL_GAP_S) * 1000);
	long n = 0;
	*t0 = *t1 = e0->t;
	for (size_t j = i; j < a->vmk.n; j++) {
		const struct vmk_event *e = &a->vmk.ev[j];
		if (!keep(e) || strcmp(e->device, e0->device) != 0)
			continue;
		if (e->t > *t1 + gap)
			break;
		done[j] = true;
		n += e->count;
		if (e->t > *t1)
			*t1 = e->t;
	}
	return n;
}

/* ---- vmkernel.log QUEUE FULL / BUSY ---- */

static void det_queue_full(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
	if (!a->have_vmk || !a->vmk.n)
		return;
	bool *done = xcalloc(a->vmk.n, sizeof *done);
	for (size_t i = 0; i < a->vmk.n; i++) {
		const struct vmk_event *e0 = &a->vmk.ev[i];
		if (done[i] || !is_qfull(e0))
			continue;
		int64_t t0, t1;
		vmk_window(a, i, is_qfull, done, &t0, &t1);
		/* the host's reductions follow the last QUEUE FULL: count them up to one gap later */
		int64_t until = t1 + (int64_t)(rule_value(&a->rules, R_QFULL_GAP_S) * 1000);
		long qf = 0, busy = 0, reduce = 0;
		struct buf hosts; /* the hosts the array refused, from forwarded logs */
		buf_init(&hosts);
		int nhosts = 0;
		for (size_t j = i; j < a->vmk.n && a->vmk.ev[j].t <= until; j++) {
			const struct vmk_event *e = &a->vmk.ev[j];
			if (strcmp(e->device, e0->device) != 0)
				continue;
			qf += e->kind == VMK_QFULL ? e->count : 0;
			busy += e->kind == VMK_BUSY ? e->count : 0;
			reduce += e->kind == VMK_REDUCE;
			if (e->host && is_qfull(e)) {
				bool seen = false;
				for (size_t k = i; k < j && !seen; k++)
					seen = is_qfull(&a->vmk.ev[k]) && a->vmk.ev[k].host && strcmp(a->vmk.ev[k].device, e0->device) == 0 &&
					       strcasecmp(a->vmk.ev[k].host, e->host) == 0;
				if (!seen) {
					buf_printf(&hosts, "%s%s", nhosts ? ", " : "", e->host);
					nhosts++;
				}
			}
		}
		struct log_symptom sym = capture_symptom(a, e0->device, e0->host, t0, t1);
		struct finding *f = finding_new(a, K_SCSI_QUEUE_FULL,
						sym.state < 1 ? SEV_INFO : qf + busy >= 10 ? SEV_CRITICAL : SEV_WARNING,
						LAYER_ARRAY, e0->device, NULL);
		f->start = t0;
		f->end = t1;
		f->sustained_s = (double)(t1 - t0) / 1000.0;
		f->summary = afmt(a, "the array answered QUEUE FULL %ld time%s and BUSY %ld time%s (vmkernel.log%s)%s", qf,
				  qf == 1 ? "" : "s", busy, busy == 1 ? "" : "s",
				  nhosts > 1 ? afmt(a, " of %d hosts: %s", nhosts, hosts.data) : nhosts ? afmt(a, " of %s", hosts.data) : "",
				  reduce ? afmt(a, "; the host%s reduced the queue depth %ld time%s", nhosts > 1 ? "s" : "", reduce,
						reduce == 1 ? "" : "s")
					 : "");
		buf_free(&hosts);
		f->summary = afmt(a, "%s; %s%s", f->summary, sym.state == 1 ? "in the host capture at that time: " : "context only: ",
				  sym.what);
		f->rule = afmt(a, "vmkernel.log lines with D:0x28 (TASK SET FULL) or D:0x8 (BUSY) for the device (a "
				  "\"repeated N times\" line counts N), grouped when less than %g s apart; a cause only with a "
				  "symptom in the host capture within a minute (DAVG > device.davg.warning_ms, commands "
				  "queued with KAVG > kernel.kavg.warning_ms, a DQLEN change, aborts or resets), else context",
			       rule_value(&a->rules, R_QFULL_GAP_S));
		f->source = "[vmw KB 1008113] SCSI device status 0x28 TASK SET FULL, 0x8 BUSY; the D: field, not the Cmd "
			    "opcode; [derived] a log line is evidence of a cause only where the capture shows its effect";
		if (sym.state < 1)
			f->advice = afmt(a, "Listed as context: the array refused a few commands, but the capture shows no "
					    "latency, queueing or queue-depth cut at that time, so it is not why IO waited. "
					    "Watch for it recurring under load.");
		else
			f->advice = afmt(a, "The array's port or LU queue overflowed: reduce the outstanding IO the hosts "
					    "send (LUN queue depth × LUNs × hosts ≤ array port queue [seed]), spread LUNs over "
					    "ports, and check adaptive queue depth (Disk.QFullSampleSize) is enabled.");
	}
	free(done);
}

/* ---- vmkernel.log failed commands with a host status (fabric / HBA trouble) ---- */

static void det_vmk_failures(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
	if (!a->have_vmk || !a->vmk.n)
		return;
	bool *done = xcalloc(a->vmk.n, sizeof *done);
	for (size_t i = 0; i < a->vmk.n; i++) {
		const struct vmk_event *e0 = &a->vmk.ev[i];
		if (done[i] || !is_host_failure(e0))
			continue;
		int64_t t0, t1;
		long n = vmk_window(a, i, is_host_failure, done, &t0, &t1);
		/* by host status: aborts (0x5), resets (0x8), the others */
		long by[3] = {0, 0, 0};
		unsigned other = 0;
		for (size_t j = i; j < a->vmk.n && a->vmk.ev[j].t <= t1; j++) {
			const struct vmk_event *e = &a->vmk.ev[j];
			if (!is_host_failure(e) || strcmp(e->device, e0->device) != 0)
				continue;
			int slot = e->host_status == 0x5 ? 0 : e->host_status == 0x8 ? 1 : 2;
			by[slot] += e->count;
			if (slot == 2 && !other)
				other = e->host_status;
		}
		/* the same failover seen in esxtop's counters is one finding: that one says the log agrees */
		bool seen = false;
		for (size_t k = 0; k < a->nf && !seen; k++) {
			const struct finding *g = &a->f[k];
			seen = g->kind == K_ERR_ABORTS_RESETS && g->capture >= 0 && strcmp(g->entity, e0->device) == 0 &&
			       g->start <= t1 + 60000 && t0 <= g->end + 60000;
		}
		if (seen)
			continue;
		struct log_symptom sym = capture_symptom(a, e0->device, e0->host, t0, t1);
		bool cause = n >= 3 && sym.state == 1;
		struct finding *f = finding_new(a, K_ERR_ABORTS_RESETS, !cause ? SEV_INFO : n >= 10 ? SEV_CRITICAL : SEV_WARNING,
						LAYER_DEVICE, e0->device, NULL);
		f->start = t0;
		f->end = t1;
		f->sustained_s = (double)(t1 - t0) / 1000.0;
		struct buf st;
		buf_init(&st);
		if (by[0])
			buf_printf(&st, "%ld aborted (H:0x5 ABORT)", by[0]);
		if (by[1])
			buf_printf(&st, "%s%ld reset (H:0x8 RESET)", st.len ? ", " : "", by[1]);
		if (by[2])
			buf_printf(&st, "%s%ld other (H:0x%x %s%s)", st.len ? ", " : "", by[2], other, host_status_name(other),
				   by[2] > 1 ? " and others" : "");
		const struct vmk_event *pe;
		long np = vmk_path_events(a, e0->device, e0->host, t0 - 60000, t1 + 60000, &pe);
		f->summary = afmt(a, "%ld command%s failed with a host status in vmkernel.log (%s): the fabric, the HBA or "
				     "the path dropped or aborted them%s; %s%s",
				  n, n == 1 ? "" : "s", st.data, np ? afmt(a, "; %ld path or ALUA state change%s in the log "
									   "then (first: %s %s)", np, np == 1 ? "" : "s",
									   pe->path ? pe->path : e0->device,
									   pe->state ? pe->state : vmk_kind_name(pe->kind))
								: "",
				  sym.state == 1 ? "in the host capture at that time: " : "context only: ",
				  n < 3 && sym.state == 1 ? afmt(a, "%s (fewer than 3 failures)", sym.what) : sym.what);
		buf_free(&st);
		f->rule = afmt(a, "at least 3 vmkernel.log failures with a non-zero H: status for the device (a \"repeated "
				  "N times\" line counts N), less than %g s apart, with a symptom in the host capture within a "
				  "minute (DAVG, queueing, a DQLEN change, aborts or resets); else context",
			       rule_value(&a->rules, R_QFULL_GAP_S));
		f->source = "[vmw] host status H:0x2/0x5/0x7/0x8 points to fabric/HBA trouble, not queue full; [vmw] "
			    "host-side NMP codes 0x5 ABORT, 0x8 RESET (Broadcom KB 338435, KB 321364: the failover sequence)";
		if (!cause)
			f->advice = afmt(a, "Listed as context: the capture shows no effect at that time. If it recurs, check "
					    "the paths (esxcli storage core path list) and the HBA's and switch port's errors.");
		else
			f->advice = afmt(a, "Check the HBA and the fabric at these times: switch port errors, path failovers "
					    "(esxcli storage core path list), HBA firmware and driver; these are not solved by "
					    "queue depths.");
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
static void det_hba_latency(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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
static void det_hba_by_adapters(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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
static void det_path_change(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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
		/* the first change of the dominant path between two runs of at least 5 buckets */
		size_t min_run = 5;
		for (size_t k = min_run; k + min_run <= nb; k++) {
			if (dom[k] < 0 || dom[k - 1] < 0 || dom[k] == dom[k - 1])
				continue;
			bool before = true, after = true;
			for (size_t q = k - min_run; q < k && before; q++)
				before = dom[q] == dom[k - 1] || dom[q] < 0;
			size_t end = k;
			while (end < nb && (dom[end] == dom[k] || dom[end] < 0))
				end++;
			after = end - k >= min_run;
			if (!before || !after)
				continue;
			const struct iop_path *from = p[dom[k - 1]], *to = p[dom[k]];
			struct qsketch qb, qa;
			qs_init(&qb);
			qs_init(&qa);
			for (size_t q = 0; q < k; q++)
				if (dom[q] == dom[k - 1])
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
static void det_vdisk_above_device(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
	const struct iopath *g = &a->iop;
	for (size_t i = 0; i < g->nvd; i++) {
		const struct iop_vdisk *d = &g->vd[i];
		const struct entity *v = d->v, *dev = d->dev;
		if (d->back != BACK_LUN || !dev || v->outside || (v->series[M_VD_LAT_R] < 0 && v->series[M_VD_LAT_W] < 0))
			continue;
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
				double lv = val(c, v, mv, k), ld = val(c, dev, md, k), lk = val(c, dev, mk, k);
				double lun = ld + (isnan(lk) ? 0 : lk);
				cond[k] = !isnan(lv) && !isnan(ld) && lv > warn && lv > 3 * lun && active(&a->rules, c, v, M_CMDS, k);
			}
			struct win w[MAXW];
			size_t n = find_windows(&a->rules, c, cond, v->series[mv], w, MAXW);
			free(cond);
			for (size_t j = 0; j < n; j++) {
				double lv = win_median(c, v, mv, w[j].k0, w[j].k1), ld = win_median(c, dev, md, w[j].k0, w[j].k1);
				double lk = win_median(c, dev, mk, w[j].k0, w[j].k1), lun = ld + (isnan(lk) ? 0 : lk);
				/* alone on its LUN: the LUN's other active disks answer that direction in under half */
				bool alone = true;
				for (size_t q = 0; q < g->nvd && alone; q++) {
					const struct iop_vdisk *o2 = &g->vd[q];
					if (o2 == d || o2->dev != dev || o2->v->series[mv] < 0)
						continue;
					double lo = win_median(c, o2->v, mv, w[j].k0, w[j].k1), co = win_median(c, o2->v, M_CMDS, w[j].k0, w[j].k1);
					alone = isnan(lo) || isnan(co) || co < RV(R_ACTIVE_IOPS) || lo < lv / 2;
				}
				if (!alone)
					continue;
				double vc = win_median(c, v, M_CMDS, w[j].k0, w[j].k1);
				double wc = d->world ? win_median(c, d->world->w, M_CMDS, w[j].k0, w[j].k1) : NAN;
				double ratio = !isnan(wc) && vc > 0 ? wc / vc : NAN;
				const struct ev_spec ev[] = {{mv, warn}, {md, NAN}, {mk, NAN}, {M_CMDS, NAN}, EV_END};
				struct finding *f = window_finding(a, K_LAT_VD_ABOVE, lv > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_VSCSI,
								   v, &w[j], ev);
				f->summary = afmt(a, "%s's %s take %.1f ms at the virtual disk while its LUN %s answers them in %.1f ms "
						     "(DAVG + KAVG) and the LUN's other disks are fast: the time is added in the host "
						     "above the LUN%s — a snapshot's delta disk, CBT, an IO filter or replication on "
						     "this virtual disk", v->name, dir ? "writes" : "reads", lv, dev->name, lun,
						  !isnan(ratio) && ratio >= 1.3
							  ? afmt(a, ", and its world sends the LUN %.1f times the commands the disk "
								    "issues (per-world IO)", ratio)
							  : "");
				f->rule = afmt(a, "virtual disk %s latency > %g ms and > 3 x its LUN's DAVG + KAVG, the LUN's other "
						  "active disks under half of it, sustained", dir ? "write" : "read", warn);
				f->source = "[vmw] GAVG = KAVG + DAVG: latency at the virtual disk above its LUN's is spent above "
					    "the device; [vmw Performance blog 2021, \"Performance Best Practices for VMware "
					    "Snapshots\"] a snapshot's delta disk costs the VM's IO; [derived] the 3x and alone tests";
				f->advice = afmt(a, "Look at %s itself, not the LUN or the array: snapshots left on it (consolidate "
						    "or delete them), CBT-based backup or replication running now (its schedule), "
						    "IO filters (VAIO, vSphere Replication) on the disk; their end brings the disk back "
						    "to its LUN's latency.", v->name);
				f->heuristic = true;
			}
		}
	}
}

/* ---- CPU scheduling: a VM's vCPUs waiting for a physical CPU ---- */

/* esxtop's Group Cpu %RDY and %CSTP are summed over the VM's worlds: per vCPU they are divided by
 * its vCPU count (its vmx-vcpu worlds in the Vcpu columns). Sustained above cpu.ready.* or
 * cpu.costop.warning_pct per vCPU, a finding on the VM; %MLMTD (a CPU limit) and %SWPWT (host
 * swapping) are said when present. Without the vCPU count nothing is judged (a 16-vCPU VM at 1.5%
 * per vCPU sums to 24%). */
static void det_cpu_contention(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *v = &a->m.ents[i];
		if (v->layer != LAYER_VM || v->series[M_RDY] < 0 || v->outside)
			continue;
		int n = model_vm_vcpus(&a->m, v->capture, v->name);
		if (n < 1)
			continue;
		double warn = RVE(v, R_CPU_RDY_WARN), crit = RVE(v, R_CPU_RDY_CRIT), cwarn = RVE(v, R_CPU_CSTP_WARN);
		const struct capture *c = cap_of(a, v);
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++) {
			double r = val(c, v, M_RDY, k) / n, s = val(c, v, M_CSTP, k) / n;
			cond[k] = (!isnan(r) && r > warn) || (!isnan(s) && s > cwarn);
		}
		struct win w[MAXW];
		size_t nw = find_windows(&a->rules, c, cond, v->series[M_RDY], w, MAXW);
		free(cond);
		for (size_t j = 0; j < nw; j++) {
			double r = win_median(c, v, M_RDY, w[j].k0, w[j].k1) / n, s = win_median(c, v, M_CSTP, w[j].k0, w[j].k1) / n;
			double lim = win_median(c, v, M_MLMTD, w[j].k0, w[j].k1) / n, sw = win_median(c, v, M_SWPWT, w[j].k0, w[j].k1);
			const struct ev_spec ev[] = {{M_RDY, warn * n}, {M_CSTP, cwarn * n}, {M_MLMTD, NAN}, {M_SWPWT, NAN}, EV_END};
			struct finding *f = window_finding(a, K_CPU_CONTENTION, r > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_VM, v,
							   &w[j], ev);
			f->summary = afmt(a, "%s's vCPUs wait for a physical CPU: %%RDY %.1f%% per vCPU (median; the group's %.0f%% over "
					     "%d vCPUs)%s%s%s", v->name, r, r * n, n,
					  isnan(s) ? "" : afmt(a, ", %%CSTP %.1f%% per vCPU", s),
					  !isnan(lim) && lim >= 1 ? afmt(a, ", %%MLMTD %.1f%%: a CPU limit holds it back", lim) : "",
					  !isnan(sw) && sw >= 1 ? afmt(a, ", %%SWPWT %.1f%%: the host swaps its memory", sw) : "");
			f->rule = afmt(a, "%%RDY per vCPU > %g%% (warning) / > %g%% (critical), or %%CSTP per vCPU > %g%%, sustained; "
					  "per vCPU = the Group Cpu figure over the VM's vCPU worlds", warn, crit, cwarn);
			f->source = "[vmw KB 1017926] high %RDY / %CSTP: the VM waits for CPU (check %MLMTD for a limit); "
				    "[vmw KB 2002181] ready per vCPU: < 5% no issue, 10% significant";
			f->advice = afmt(a, "Give %s's vCPUs CPU time: fewer vCPUs for it or its neighbours when %%CSTP is high "
					    "(co-scheduling), move VMs off the host or raise its CPU capacity when %%RDY is, remove "
					    "a CPU limit (%%MLMTD), and check the host's CPU load; storage changes will not help "
					    "while IO completions wait for a vCPU.", v->name);
		}
	}
}

/* A guest disk's wait the host does not see, while its VM waits for CPU: its virtual disk answers
 * under cpu.host_fast_ms and under a third of the guest's latency, the VM's cpu.contention overlaps
 * it — the IO completion waits for the vCPU, not in a queue. queue.guest_hidden is then explained
 * (information), a guest latency finding keeps its severity with the CPU as its cause. */
void analysis_cpu_explains(struct analysis *a)
{
	struct topo_in ti = analysis_topo(a);
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *g = &a->f[i];
		bool hidden = g->kind == K_Q_GUEST_HIDDEN;
		if ((!hidden && g->kind != K_LAT_GUEST_READ && g->kind != K_LAT_GUEST_WRITE) || !g->host || g->sev < SEV_WARNING)
			continue;
		const struct finding *cpu = NULL;
		for (size_t k = 0; k < a->nf && !cpu; k++) {
			const struct finding *f = &a->f[k];
			int64_t lo = f->start > g->start ? f->start : g->start, hi = f->end < g->end ? f->end : g->end;
			if (f->kind == K_CPU_CONTENTION && f->sev >= SEV_WARNING && strcasecmp(f->entity, g->host) == 0 &&
			    hi - lo >= (g->end - g->start) / 2)
				cpu = f;
		}
		if (!cpu)
			continue;
		struct stack st;
		topology_stack(&ti, finding_entity(&ti, g, -1), &st);
		if (!st.vdisk)
			continue;
		double r = iop_window_mean(&a->m, st.vdisk, M_VD_LAT_R, g->start, g->end);
		double w = iop_window_mean(&a->m, st.vdisk, M_VD_LAT_W, g->start, g->end);
		if (isnan(r) && isnan(w))
			r = iop_window_mean(&a->m, st.vdisk, M_HV_LAT, g->start, g->end); /* a VHDX */
		double host = isnan(r) ? w : isnan(w) ? r : r > w ? r : w, guest = g->nev ? g->ev[0].median : NAN;
		if (isnan(host) || host >= RVE(st.vdisk, R_CPU_HOST_FAST_MS) || (!isnan(guest) && host >= guest / 3))
			continue;
		g->advice = afmt(a, "The host answers this disk in %.1f ms (its virtual disk, %s) while %s's vCPUs wait for a "
				    "physical CPU (%s): the IO completes in the host and waits for a vCPU to be run — CPU "
				    "scheduling, not a storage queue. Follow the cpu.contention finding's advice.",
				 host, st.vdisk->name, cpu->entity, cpu->summary);
		if (hidden) {
			g->sev = SEV_INFO;
			g->summary = afmt(a, "%s — explained by CPU scheduling: the VM's vCPUs waited for a physical CPU then", g->summary);
		}
	}
}


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
static void det_hv_host_disk(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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
static void det_hv_vhdx(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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
static void det_hv_csv_redirected(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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
			const struct ev_spec ev[] = {{M_CSV_REDIR_R, NAN}, {M_CSV_REDIR_W, NAN}, {M_CMDS, NAN}, {M_H_LAT_R, warn},
						     {M_H_LAT_W, warn}, EV_END};
			struct finding *f = window_finding(a, K_CSV_REDIRECTED, !isnan(l) && l > warn ? SEV_CRITICAL : SEV_WARNING,
							   LAYER_VOLUME, e, &w[j], ev);
			f->summary = afmt(a, "%s's IO is redirected: %.0f of its %.0f IO/s go over the network to the coordinator "
					     "node (Cluster CSVFS Redirected IO)%s", e->name, red, t,
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
static void det_hv_cpu_wait(struct analysis *a, const struct analyze_opts *o)
{
	(void)o;
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

const struct detector detectors[] = {
	{.kind = K_LAT_GUEST_READ, .title = "guest read latency", .stream = &sr_guest_read, .window = guest_latency_window},
	{.kind = K_LAT_GUEST_WRITE, .title = "guest write latency", .stream = &sr_guest_write, .window = guest_latency_window},
	{.kind = K_LAT_GUEST_WRITE, .title = "log disk write latency (log target)", .stream = &sr_guest_log_write,
	 .window = guest_log_window},
	{.kind = K_LAT_DEVICE, .title = "device latency (DAVG)", .stream = &sr_device_latency, .window = device_latency_window},
	{.kind = K_LAT_KERNEL, .title = "VMkernel latency or queueing (KAVG)", .stream = &sr_kernel_kavg, .window = kernel_latency_window},
	{.kind = K_LAT_KERNEL, .title = "VMkernel queueing (QAVG, no KAVG in the capture)", .stream = &sr_kernel_qavg,
	 .window = kernel_latency_window},
	{.kind = K_Q_DEVICE_SATURATED, .title = "device queue saturated", .stream = &sr_device_saturated,
	 .window = device_saturated_window},
	{.kind = K_Q_ADAPTER_SATURATED, .title = "adapter queue saturated", .stream = &sr_adapter_saturated,
	 .window = adapter_saturated_window},
	{.kind = K_Q_GUEST_VSCSI_CAP, .title = "guest queue at the vSCSI per-disk limit", .stream = &sr_guest_vscsi_cap,
	 .window = guest_vscsi_window},
	{.kind = K_Q_GUEST_HIDDEN, .title = "IOs waiting inside the guest", .stream = &sr_guest_hidden,
	 .window = guest_hidden_window},
	{.kind = K_Q_ARRAY_OVERCOMMIT, .title = "outstanding IO at the LU above the array LU queue",
	 .stream = &sr_array_overcommit_dev, .window = array_overcommit_window},
	{.kind = K_Q_ARRAY_OVERCOMMIT, .title = "guest queue above the array LU queue", .stream = &sr_array_overcommit_guest,
	 .window = array_overcommit_window},
	{.kind = K_T_AQD, .title = "adaptive queue depth (QUEUE FULL throttling)", .run = det_aqd},
	{.kind = K_T_SIOC, .title = "Storage I/O Control throttling", .run = det_sioc},
	{.kind = K_T_DSNRO, .title = "DSNRO cap with several active VMs", .stream = &sr_dsnro, .window = dsnro_window},
	{.kind = K_IO_SPLIT, .title = "split IO in the guest", .stream = &sr_split_guest, .window = split_window},
	{.kind = K_IO_SPLIT, .title = "split commands at a device", .stream = &sr_split_device, .window = split_window},
	{.kind = K_IO_SPLIT, .title = "split commands at an adapter", .stream = &sr_split_adapter, .window = split_window},
	{.kind = K_ALIGN_MISALIGNED, .title = "misaligned partition", .run = det_alignment},
	{.kind = K_ERR_ABORTS_RESETS, .title = "aborts and resets at a device", .stream = &sr_errors_dev,
	 .window = errors_window},
	{.kind = K_ERR_ABORTS_RESETS, .title = "aborts and resets at an adapter", .stream = &sr_errors_adp,
	 .window = errors_window},
	{.kind = K_ERR_ABORTS_RESETS, .title = "failed commands at a device, sustained", .stream = &sr_failed_dev,
	 .window = errors_window},
	{.kind = K_LAT_DATASTORE, .title = "latency of a virtual disk on no SCSI device the capture shows",
	 .run = det_datastore_latency},
	{.kind = K_SCSI_QUEUE_FULL, .title = "QUEUE FULL / BUSY in vmkernel.log", .run = det_queue_full},
	{.kind = K_ERR_ABORTS_RESETS, .title = "failed commands with a host status in vmkernel.log", .run = det_vmk_failures},
	{.kind = K_CFG_QDEPTH, .title = "a DQLEN or AQLEN step inside the capture", .run = det_qdepth_steps},
	{.kind = K_Q_ARRAY_OVERCOMMIT, .title = "one LU from several hosts: their outstanding IO summed", .run = det_shared_lu},
	{.kind = K_LAT_HBA, .title = "one HBA's paths slow while the other adapters' are fast", .run = det_hba_latency},
	{.kind = K_LAT_HBA, .title = "one HBA's LUNs slow together, without path columns", .run = det_hba_by_adapters},
	{.kind = K_PATH_CHANGE, .title = "a device's IO moved to another path", .run = det_path_change},
	{.kind = K_CPU_CONTENTION, .title = "a VM's vCPUs waiting for a physical CPU", .run = det_cpu_contention},
	{.kind = K_LAT_VD_ABOVE, .title = "latency added above its LUN for one virtual disk", .run = det_vdisk_above_device},
	{.kind = K_LAT_HOST_DISK, .title = "a Hyper-V host disk's latency", .run = det_hv_host_disk},
	{.kind = K_T_STORAGE_QOS, .title = "a VHDX held at a Storage QoS maximum (or slow above its storage)", .run = det_hv_vhdx},
	{.kind = K_CSV_REDIRECTED, .title = "a Cluster Shared Volume's IO redirected over the network", .run = det_hv_csv_redirected},
	{.kind = K_CPU_CONTENTION, .title = "a Hyper-V VM's virtual processors waiting for a logical processor", .run = det_hv_cpu_wait},
	{.title = NULL},
};
