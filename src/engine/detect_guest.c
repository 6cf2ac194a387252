/* detect_guest.c — the guest's detectors: guest latency (the bands know IO size and purpose), split
 * IO, the vSCSI per-disk cap, IOs waiting inside the guest, partition alignment. */
#include "detect_int.h"
#include "sqlimpact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

/* Whether a --map line 'database X log = [HOST\\]DISK' names guest disk e (1), names other disks of
 * e's machine only (-1: the user said where the logs are), or none is about e's machine (0). */
static int log_mapped(const struct analysis *a, const struct entity *e)
{
	int said = 0;
	for (size_t i = 0; i < a->ndbmap; i++) {
		const struct dbmap_line *l = &a->dbmap[i];
		if (l->data || (l->guest_host && e->host && strcasecmp(l->guest_host, e->host) != 0))
			continue;
		if (strcasecmp(l->guest_disk, e->name) == 0)
			return 1;
		said = -1;
	}
	return said;
}

/* A disk SQL Server writes its transaction log to: a --map database line or SQL Server's own
 * counters (a database's Log Bytes Flushed/sec follows the disk's write bytes) say so — a fact, *db
 * names the database (NULL: by the map) — else the IO pattern of the whole capture does: nearly only
 * writes, small ones (a guess, *guess set: its findings are warnings that say they guess). */
static bool is_log_disk_how(const struct analysis *a, const struct entity *e, bool *guess, const char **db)
{
	int m = log_mapped(a, e);
	*guess = false;
	*db = NULL;
	if (m)
		return m > 0 && !e->aggregate;
	if (!e->aggregate && (*db = sql_log_on_disk(&a->m, e)) != NULL)
		return true;
	*guess = true;
	double r = entity_mean(e, M_G_READS), w = entity_mean(e, M_G_WRITES);
	double bpw = entity_mean(e, M_G_BPW);
	if (isnan(bpw))
		bpw = entity_mean(e, M_G_BPT);
	if (isnan(w) || w < RV(R_ACTIVE_IOPS) || e->aggregate)
		return false;
	double share = w / ((isnan(r) ? 0 : r) + w);
	return share >= RVE(e, R_LOG_WRITE_SHARE) && (isnan(bpw) || bpw <= RVE(e, R_LOG_MAX_KIB) * 1024);
}

static bool is_log_disk(const struct analysis *a, const struct entity *e)
{
	bool guess;
	const char *db;
	return is_log_disk_how(a, e, &guess, &db);
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

const struct stream_rule sr_guest_read = {
	.layer = LAYER_GUEST, .applies = guest_read_applies, .cond = guest_read_cond,
	.signal = M_G_LAT_R, .signal_thr = guest_lat_thr, .ev = {M_G_LAT_R, M_G_CDQL, M_G_READS, M_G_BPR, -1},
	.ctx = {M_G_BPT, -1}, .ev_thr = guest_lat_ev_thr,
};
const struct stream_rule sr_guest_write = {
	.layer = LAYER_GUEST, .applies = guest_write_applies, .cond = guest_write_cond,
	.signal = M_G_LAT_W, .signal_thr = guest_lat_thr, .ev = {M_G_LAT_W, M_G_CDQL, M_G_WRITES, M_G_BPW, -1},
	.ctx = {M_G_BPT, -1}, .ev_thr = guest_lat_ev_thr,
};
const struct stream_rule sr_guest_log_write = {
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

void guest_latency_window(struct analysis *a, const struct swin *w)
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

void guest_log_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	bool guess;
	const char *db;
	if (!is_log_disk_how(a, e, &guess, &db))
		return;
	double warn = RVE(e, R_LOG_WRITE_WARN), crit = RVE(e, R_LOG_WRITE_CRIT);
	double gwarn = RVE(e, R_GUEST_LAT_WARN), gcrit = RVE(e, R_GUEST_LAT_CRIT);
	double med = ev_median(w, M_G_LAT_W);
	double wr = entity_mean(e, M_G_WRITES), rd = entity_mean(e, M_G_READS);
	double share = 100 * wr / (wr + fmax(0, isnan(rd) ? 0 : rd));
	double kib = (has(e, M_G_BPW) ? entity_mean(e, M_G_BPW) : entity_mean(e, M_G_BPT)) / 1024;
	/* a guess signs no critical: a log disk told only by its IO mix is a warning, unless the general
	 * bands, which hold for any disk, make it serious */
	enum severity sev = med > crit && !guess ? SEV_CRITICAL : med > gcrit ? SEV_CRITICAL : SEV_WARNING;
	struct finding *f = episode_finding(a, w, sev, LAYER_GUEST);
	f->heuristic = guess;
	if (guess)
		f->summary =
		    afmt(a,
			 "writes at a median of %.1f ms: slow for a transaction log (target %g ms), %s by the "
			 "general bands (<= %g ms ok, > %g serious) — a guess: the disk is taken for a log disk "
			 "only from its IO mix (%.0f%% of its IOs are writes of %.0f KiB on average); no --map "
			 "'database DB log = DISK' line names it",
			 med, warn,
			 med > gcrit   ? "serious"
			 : med > gwarn ? "slow"
				       : "acceptable",
			 gwarn, gcrit, share, kib);
	else
		f->summary =
		    afmt(a,
			 "log disk writes slow: median %.1f ms against the %g ms target for transaction log "
			 "writes (%g ms serious; %s)",
			 med, warn, crit,
			 db ? afmt(a, "SQL Server's Log Bytes Flushed/sec of %s follows this disk's writes", db)
			    : "a --map database line names it a log disk");
	f->rule =
	    guess ? afmt(a,
			 "the transaction log band, Avg. Disk sec/Write > %g ms sustained, on a disk whose IOs are "
			 ">= %g%% writes of <= %g KiB: a warning (a guess), critical only above the general %g ms",
			 warn, 100 * RVE(e, R_LOG_WRITE_SHARE), RVE(e, R_LOG_MAX_KIB), gcrit)
		  : afmt(a,
			 "the transaction log band, Avg. Disk sec/Write > %g ms (warning) / > %g ms (critical), "
			 "sustained, on a disk %s",
			 warn, crit,
			 db ? "SQL Server's counters tie a database's log to" : "a --map database line names as a log");
	f->source =
	    guess ? "[seed] log writes: target 5 ms, tolerable 10 ms; [derived] a log disk guessed from its IO "
		    "pattern; [ms] general bands"
	    : db  ? "[seed] log writes: target 5 ms, tolerable 10 ms; SQL Server's Databases\\Log Bytes Flushed/sec"
		  : "[seed] log writes: target 5 ms, tolerable 10 ms; the --map database line";
	f->advice =
	    afmt(a,
		 "%sEvery commit waits for this write: put the log on the fastest, least shared storage (its "
		 "own LUN and virtual disk, write cache on), and check the array's replication or cache settings "
		 "for it.%s",
		 guess ? "If this disk holds a SQL Server transaction log: " : "",
		 guess ? " Say where the logs are with a --map line 'database DB log = HOST\\DISK', or give the "
			 "rules for this disk ('iopsy rules')."
		       : "");
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

const struct stream_rule sr_split_guest = {
	.layer = LAYER_GUEST, .applies = split_guest_applies, .cond = split_guest_cond,
	.signal = -1, .ev = {M_G_SPLIT, M_G_XFERS, M_G_BPT, -1}, .ctx = {-1, -1}, .ev_thr = split_ev_thr,
};
const struct stream_rule sr_split_device = {
	.layer = LAYER_DEVICE, .applies = split_host_applies, .cond = split_host_cond,
	.signal = -1, .ev = {M_SPLIT, M_CMDS, M_DAVG, -1}, .ctx = {-1, -1}, .ev_thr = split_ev_thr,
};
const struct stream_rule sr_split_adapter = {
	.layer = LAYER_ADAPTER, .applies = split_host_applies, .cond = split_host_cond,
	.signal = -1, .ev = {M_SPLIT, M_CMDS, M_DAVG, -1}, .ctx = {-1, -1}, .ev_thr = split_ev_thr,
};

void split_window(struct analysis *a, const struct swin *w)
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

/* ---- guest vSCSI cap: the guest's outstanding IOs against what the host holds ---- */

/* Conservation between the layers (doc/domain.md §5): the IOs a guest disk has outstanding
 * (Current Disk Queue Length: in service or waiting, at the instant of the sample [ms]) are held
 * either above its virtual controller, in the guest, or at the host for its virtual disk. Only the
 * excess the host does not hold waits in the guest; a guest queue the host holds is the host's
 * queue seen from above (its device queue, KAVG), never a controller cap. */

/* How the host's count of a virtual disk's outstanding IOs was read (bits). */
enum { HELD_LITTLE = 1, HELD_WORLD = 2, HELD_LUN = 4 };

/* part / whole clipped to [0, 1]; NaN when either is unknown or whole is not positive. */
static double share_of(double part, double whole)
{
	if (isnan(part) || isnan(whole) || whole <= 0)
		return NAN;
	return part >= whole ? 1 : part < 0 ? 0 : part / whole;
}

/* Active + Queued of x (a world's IO to a device, or the device) at t, v's share of it by its
 * commands (x carries other virtual disks' IO too); NaN without x's counts. */
static double held_by(const struct analysis *a, const struct entity *x, const struct entity *v, int64_t t)
{
	if (!x || x->series[M_ACTV] < 0)
		return NAN;
	double n = value_at(a, x, M_ACTV, t), qd = value_at(a, x, M_QUED, t);
	double s = share_of(value_at(a, v, M_CMDS, t), value_at(a, x, M_CMDS, t));
	if (isnan(n) || isnan(s))
		return NAN;
	return (n + (isnan(qd) ? 0 : qd)) * s;
}

/* The IOs the host holds for virtual disk v at aligned time t, the larger of two counts: the
 * per-world Active + Queued of v's world on its LUN (else the LUN's ACTV + QUED), by v's share of
 * their commands — point samples like the guest's queue — and Little's law on v itself (commands/s
 * x its latency, an interval average). Each is a count of the same IOs; the claim that IOs wait in
 * the guest must stand against both. *how gets the HELD_* bits of the counts read. */
static double host_held_at(const struct analysis *a, const struct entity *v, int64_t t, unsigned *how)
{
	double little = value_at(a, v, M_CMDS, t) * vdisk_latency_at(a, v, t) / 1000.0;
	const struct iop_vdisk *d = iopath_vdisk(&a->iop, v);
	double direct = NAN;
	if (d && d->back == BACK_LUN && d->world && (direct = held_by(a, d->world->w, v, t), !isnan(direct)))
		*how |= HELD_WORLD;
	else if (d && d->back == BACK_LUN && (direct = held_by(a, d->dev, v, t), !isnan(direct)))
		*how |= HELD_LUN;
	if (!isnan(little))
		*how |= HELD_LITTLE;
	return isnan(direct) ? little : isnan(little) ? direct : fmax(direct, little);
}

/* Which counters the host's count came from, for the findings: "world 2098765's Active + Queued
 * on naa.1 (its share by commands), and SQL01:scsi0:1's commands/s x latency". */
static const char *held_words(struct analysis *a, const struct entity *v, unsigned how)
{
	const struct iop_vdisk *d = iopath_vdisk(&a->iop, v);
	const char *direct = (how & HELD_WORLD) && d && d->world
				     ? afmt(a, "the per-world Active + Queued of %s on %s", d->world->w->name,
					    d->dev ? d->dev->name : "its LUN")
			     : (how & HELD_LUN) && d && d->dev ? afmt(a, "ACTV + QUED of LUN %s", d->dev->name)
							       : NULL;
	const char *little = how & HELD_LITTLE ? afmt(a, "%s's commands/s x latency (Little's law)", v->name) : NULL;
	if (direct && little)
		return afmt(a, "%s (by its share of the commands) and %s", direct, little);
	return direct ? afmt(a, "%s (by its share of the commands)", direct) : little ? little : "no host counter";
}

static const char *const vctrl_names[] = {
	[VC_UNKNOWN] = "an unknown controller", [VC_LSI] = "LSI Logic SAS", [VC_PVSCSI] = "PVSCSI",
	[VC_PVSCSI_RAISED] = "PVSCSI with MaxQueueDepth raised", [VC_NVME] = "vNVMe", [VC_SATA] = "SATA (AHCI)",
};

/* The controller of guest disk e with virtual disk v (NULL: none), and why: its bus when the name
 * says it ("VM:nvme0:1", "VM:sata0:2"), else what the host held for it over the capture (p99):
 * more than 1.25 x 32 passes no LSI Logic SAS controller, more than 1.25 x 64 no PVSCSI at its
 * default (the margin absorbs Little's law's interval averages at a load's edges). */
static enum vctrl controller_seen(struct analysis *a, const struct entity *e, const struct entity *v, const char **why)
{
	*why = "the captures do not name the virtual controller (neither esxtop nor perfmon shows it)";
	if (!v)
		return VC_UNKNOWN;
	const char *bus = strrchr(v->name, ':');
	while (bus && bus > v->name && bus[-1] != ':')
		bus--;
	if (bus && strncasecmp(bus, "nvme", 4) == 0) {
		*why = afmt(a, "the virtual disk's name %s gives its bus", v->name);
		return VC_NVME;
	}
	if (bus && strncasecmp(bus, "sata", 4) == 0) {
		*why = afmt(a, "the virtual disk's name %s gives its bus", v->name);
		return VC_SATA;
	}
	const struct capture *c = cap_of(a, e);
	struct qsketch qi;
	qs_init(&qi);
	unsigned how = 0;
	for (size_t k = 0; k < c->ds.nb; k++)
		qs_add(&qi, host_held_at(a, v, model_time(&a->m, c, k), &how));
	double p99 = qi.n ? qs_quantile(&qi, 0.99) : NAN;
	qs_free(&qi);
	double lsi = RVE(e, R_VSCSI_LSI), pv = RVE(e, R_VSCSI_PVSCSI);
	if (p99 > 1.25 * pv) {
		*why = afmt(a, "the host held up to %.0f IOs for %s (p99, from %s): more than PVSCSI's default %g per "
			       "disk", p99, v->name, held_words(a, v, how), pv);
		return VC_PVSCSI_RAISED;
	}
	if (p99 > 1.25 * lsi) {
		*why = afmt(a, "the host held up to %.0f IOs for %s (p99, from %s): more than %g, which LSI Logic SAS "
			       "never passes per disk", p99, v->name, held_words(a, v, how), lsi);
		return VC_PVSCSI;
	}
	*why = afmt(a, "the captures do not name the virtual controller, and the host never held more than %g IOs "
		       "for %s (p99 %.0f)", lsi, v->name, p99);
	return VC_UNKNOWN;
}

/* The per-disk limit of controller k (the lowest a SCSI controller has when unknown). */
static double vctrl_limit(const struct analysis *a, const struct entity *e, enum vctrl k)
{
	return k == VC_PVSCSI ? RVE(e, R_VSCSI_PVSCSI) : k == VC_PVSCSI_RAISED ? RVE(e, R_VSCSI_PVSCSI_MAX)
										: RVE(e, R_VSCSI_LSI);
}

/* On the raw guest rows: Current Disk Queue Length at the lowest per-disk limit there is (LSI
 * Logic SAS 32, less one), sustained; each window of the episode is then judged against the
 * controller the captures show and the IOs the host holds (guest_vscsi_window). A queue that
 * reaches 32 in one sample of a day-long capture is no cap. */
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

const struct stream_rule sr_guest_vscsi_cap = {
	.layer = LAYER_GUEST, .applies = vscsi_applies, .cond = vscsi_cond,
	.signal = M_G_CDQL, .signal_thr = NULL, .ev = {M_G_CDQL, M_G_LAT_R, M_G_LAT_W, M_G_XFERS, -1}, .ctx = {-1, -1},
	.ev_thr = vscsi_ev_thr,
};

/* What the windows of a cap showed: the guest's queue and the host's count (medians), how the
 * host's was read, and the controller. */
struct vscsi_acct {
	double q, held;
	unsigned how;
	enum vctrl ctrl;
	const char *ctrl_why;
};

/* The share of the samples of wj within 1 of limit L. */
static double pinned_share(const struct capture *c, const struct entity *e, const struct win *wj, double L)
{
	long near = 0, tot = 0;
	size_t s = (size_t)e->series[M_G_CDQL];
	for (size_t k = wj->k0; k <= wj->k1; k++) {
		double q = ds_mean(&c->ds, s, k);
		if (isnan(q))
			continue;
		tot++;
		near += fabs(q - L) <= 1;
	}
	return tot ? (double)near / (double)tot : 0;
}

/* The words of the advice for a disk on controller k. */
static const char *vscsi_advice(struct analysis *a, enum vctrl k)
{
	switch (k) {
	case VC_LSI:
	case VC_SATA:
		return afmt(a, "Move the disk from %s (per-disk queue 32, not changeable) to PVSCSI (per-disk 64, up "
			       "to 254 with MaxQueueDepth; adapter 256, up to 1024), ideally one controller per busy "
			       "disk; then check that the device queue (DQLEN) and the array absorb the deeper queue "
			       "[seed].", k == VC_LSI ? "LSI Logic SAS" : "SATA");
	case VC_PVSCSI:
		return "The disk is on PVSCSI at its default per-disk queue (64): raise MaxQueueDepth to 254 and "
		       "RequestRingPages to 32 (1024 per adapter) [vmw KB 2053145], or spread the busiest files over "
		       "more virtual disks on more PVSCSI controllers.";
	case VC_PVSCSI_RAISED:
		return "The disk is on PVSCSI with MaxQueueDepth already raised: spread the busiest files over more "
		       "virtual disks on more PVSCSI controllers (each has its own queues).";
	default:
		return "Check the disk's virtual controller type (VM settings): if it is LSI Logic SAS (per-disk "
		       "queue 32, not changeable), move the disk to PVSCSI (64, up to 254 with MaxQueueDepth), ideally "
		       "one controller per busy disk; if it is PVSCSI, raise MaxQueueDepth to 254 and RequestRingPages "
		       "to 32 [vmw KB 2053145]; then check that the device queue (DQLEN) and the array absorb the "
		       "deeper queue.";
	}
}

/* The finding of guest disk e without the host's view (v NULL): only a queue pinned at a limit
 * shows the cap; a queue above the limits may as well be in flight at a slow array (PVSCSI allows
 * 254): said so, as information, never as a cause. */
static void vscsi_guest_only(struct analysis *a, const struct entity *e, const struct win *wj, double glat)
{
	const struct capture *c = cap_of(a, e);
	static const char *const names[3] = {"the LSI Logic SAS per-disk limit", "the PVSCSI default per-disk limit",
					     "the PVSCSI maximum per-disk limit"};
	const enum vctrl kinds3[3] = {VC_LSI, VC_PVSCSI, VC_PVSCSI_RAISED};
	int pinned = -1;
	for (int li = 0; li < 3 && pinned < 0; li++)
		if (pinned_share(c, e, wj, vctrl_limit(a, e, kinds3[li])) >= RVE(e, R_VSCSI_PINNED_SHARE))
			pinned = li;
	double qmed = win_median(c, e, M_G_CDQL, wj->k0, wj->k1), L0 = RVE(e, R_VSCSI_LSI);
	if (pinned < 0 && !(qmed > L0 + 1))
		return;
	const struct ev_spec ev[] = {{M_G_CDQL, L0 - 1}, {M_G_LAT_R, NAN}, {M_G_LAT_W, NAN}, {M_G_XFERS, NAN}, EV_END};
	enum severity sev = pinned < 0 ? SEV_INFO : glat > RVE(e, R_GUEST_LAT_WARN) ? SEV_CRITICAL : SEV_WARNING;
	struct finding *f = window_finding(a, K_Q_GUEST_VSCSI_CAP, sev, LAYER_VSCSI, e, wj, ev);
	f->heuristic = true;
	f->ctrl = VC_UNKNOWN;
	const char *lat = isnan(glat) ? "" : afmt(a, "; guest latency median %.1f ms", glat);
	f->source = "[seed] Current Disk Queue Length pinned at 32 under LSI Logic SAS: the per-disk "
		    "vSCSI limit is hit; [pal] warns at >= 32; [vmw KB 2053145] PVSCSI 64/254";
	if (pinned < 0) {
		f->summary = afmt(a, "guest disk queue at %.0f (median), above %s (%.0f) but not pinned at a "
				     "controller limit, and no host capture maps this disk: whether the IOs wait "
				     "in the guest above the controller or are in flight at the array cannot be "
				     "told (layers checked: the guest only; the controller type is not in the "
				     "capture)%s", qmed, names[0], L0, lat);
		f->rule = afmt(a, "without the host: Current Disk Queue Length within 1 of a per-disk limit in "
				  ">= %g%% of the samples (pinned); a queue above the limits is information",
			       100 * RVE(e, R_VSCSI_PINNED_SHARE));
		f->advice = afmt(a, "Add the esxtop capture of the host for the same period (or --map this disk "
				    "to its virtual disk): the host's IOs in flight for the virtual disk tell a "
				    "controller cap from a slow array. If the disk is on LSI Logic SAS, every IO "
				    "above 32 waits in the guest.");
		return;
	}
	f->summary = afmt(a, "guest disk queue pinned at %.0f, %s: IOs wait in the guest above the virtual "
			     "SCSI controller (layers checked: the guest only, no host capture maps this disk; "
			     "the controller type is not in the capture)%s",
			  vctrl_limit(a, e, kinds3[pinned]), names[pinned], lat);
	f->rule = afmt(a, "Current Disk Queue Length >= %g sustained (no host capture mapped: not confirmed on "
			  "the host side)", L0 - 1);
	f->advice = pinned == 0 ? vscsi_advice(a, VC_UNKNOWN) : vscsi_advice(a, VC_PVSCSI);
}

/* The finding of guest disk e with the host's view of its virtual disk v, over the windows wj
 * where the guest held clearly more than the host (x: the accounting). */
static void vscsi_cap_finding(struct analysis *a, const struct entity *e, const struct entity *v,
			      const struct win *wj, double glat, struct vscsi_acct *x)
{
	const struct capture *c = cap_of(a, e);
	double lsi = RVE(e, R_VSCSI_LSI);
	/* the host never held more than 32 and holds about 32 now, while the guest holds more: the
	 * controller passes 32 per disk — LSI Logic SAS's limit (an inference from the counts) */
	if (x->ctrl == VC_UNKNOWN && fabs(x->held - lsi) <= fmax(2, 0.125 * lsi)) {
		x->ctrl = VC_LSI;
		x->ctrl_why = afmt(a,
				   "inferred: the host holds %.0f for %s (never clearly more than %g) while the guest "
				   "holds %.0f, the per-disk limit of LSI Logic SAS",
				   x->held, v->name, lsi, x->q);
	}
	double L0 = vctrl_limit(a, e, x->ctrl);
	bool pinned = pinned_share(c, e, wj, L0) >= RVE(e, R_VSCSI_PINNED_SHARE);
	const struct ev_spec ev[] = {{M_G_CDQL, L0 - 1}, {M_G_LAT_R, NAN}, {M_G_LAT_W, NAN}, {M_G_XFERS, NAN}, EV_END};
	struct finding *f = window_finding(a, K_Q_GUEST_VSCSI_CAP,
					   glat > RVE(e, R_GUEST_LAT_WARN) ? SEV_CRITICAL : SEV_WARNING, LAYER_VSCSI, e,
					   wj, ev);
	f->ctrl = x->ctrl;
	const char *ctrl = x->ctrl == VC_UNKNOWN ? "controller unknown" : afmt(a, "on %s", vctrl_names[x->ctrl]);
	f->summary =
	    afmt(a,
		 "guest disk queue %s %.0f%s, the host holds %.0f of them for %s: %.0f IOs wait in the guest "
		 "above the virtual SCSI controller (%s; %s)%s",
		 pinned ? "pinned at" : "at", pinned ? L0 : x->q, pinned ? "" : " (median)", x->held, v->name,
		 x->q - x->held, ctrl, x->ctrl_why, isnan(glat) ? "" : afmt(a, "; guest latency median %.1f ms", glat));
	f->rule = afmt(a, "Current Disk Queue Length >= %g sustained and at least %g IOs more than the host holds for "
			  "the virtual disk (layers checked: the guest's Current Disk Queue Length; at the host, %s)",
		       L0 - 1, fmax(2, 0.25 * L0), held_words(a, v, x->how));
	f->source = "[derived] conservation of IOs between layers: guest outstanding = held in the guest + held at "
		    "the host (ACTV + QUED, Little's law); [seed] LSI Logic SAS per disk 32; [vmw KB 2053145] PVSCSI "
		    "64/254";
	f->advice = vscsi_advice(a, x->ctrl);
}

/* A volume over several disks (iopath.h): its queue is the sum of its members' queues, each disk
 * with its own per-disk limit. With the members' own queues in the capture each member is judged
 * by the rule on its own (true: nothing to do on the volume); else the volume is judged against the
 * sum of its members' limits: pinned there, every member is at its limit. */
static bool vscsi_volume(struct analysis *a, const struct entity *e, const struct swin *w)
{
	bool member = false;
	const struct iop_volume *x = iopath_volume_of(&a->iop, e, &member);
	if (!x || member)
		return false;
	double sum = 0;
	bool queued = false;
	struct buf lim;
	buf_init(&lim);
	for (size_t i = 0; i < x->nmem; i++) {
		const struct entity *m = x->mem[i];
		queued |= has(m, M_G_CDQL);
		const struct diskmap_entry *me = NULL;
		const struct entity *v = analysis_clock_untrusted(a, m->capture) ? NULL : mapped_vdisk(a, m, &me);
		const char *why;
		double L = vctrl_limit(a, m, controller_seen(a, m, v, &why));
		sum += L;
		buf_printf(&lim, "%s%.0f", i ? " + " : "", L);
	}
	const struct capture *c = cap_of(a, e);
	size_t k0 = bucket_of(c, w->start), k1 = bucket_of(c, w->end);
	struct win wj = {k0, k1 >= k0 ? k1 : k0, 0};
	if (!queued && pinned_share(c, e, &wj, sum) >= RVE(e, R_VSCSI_PINNED_SHARE)) {
		const struct ev_spec ev[] = {
			{M_G_CDQL, sum - 1}, {M_G_LAT_R, NAN}, {M_G_LAT_W, NAN}, {M_G_XFERS, NAN}, EV_END};
		struct finding *f = window_finding(a, K_Q_GUEST_VSCSI_CAP, SEV_WARNING, LAYER_VSCSI, e, &wj, ev);
		f->heuristic = true;
		f->ctrl = VC_UNKNOWN;
		f->summary = afmt(a, "volume queue pinned at %.0f, the sum of its %zu disks' per-disk limits (%s; %s): "
				     "every member disk is at its vSCSI limit (the members' own queues are not in the "
				     "capture)", sum, x->nmem, lim.data ? lim.data : "", x->link.why);
		f->rule = afmt(a, "a volume over several disks: Current Disk Queue Length within 1 of the sum of its "
				  "members' per-disk limits in >= %g%% of the samples",
			       100 * RVE(e, R_VSCSI_PINNED_SHARE));
		f->source = "[seed] LSI Logic SAS per disk 32; [vmw KB 2053145] PVSCSI 64/254; [derived] a volume's "
			    "queue is the sum of its disks' queues";
		f->advice = vscsi_advice(a, VC_UNKNOWN);
	}
	buf_free(&lim);
	return true;
}

void guest_vscsi_window(struct analysis *a, const struct swin *w)
{
	const struct entity *e = &a->m.ents[w->ent];
	const struct capture *c = cap_of(a, e);
	if (vscsi_volume(a, e, w))
		return; /* a volume over several disks: judged against the sum of its members' limits */
	const struct diskmap_entry *me = NULL;
	/* a guest clock that cannot be aligned: judged without the host's view */
	const struct entity *v = analysis_clock_untrusted(a, e->capture) ? NULL : mapped_vdisk(a, e, &me);
	if (v && model_hyperv(&a->m, v->capture))
		return; /* a Hyper-V VHDX: no vSCSI per-disk limit (the guest's wait is queue.guest_hidden's) */
	struct vscsi_acct x = {.q = NAN, .held = NAN};
	x.ctrl = controller_seen(a, e, v, &x.ctrl_why);
	if (x.ctrl == VC_NVME)
		return; /* no vSCSI per-disk limit of iopsy's sources (queue.guest_hidden judges its waits) */
	const double L0 = vctrl_limit(a, e, x.ctrl), tol = fmax(2, 0.25 * L0);
	/* the windows of the episode at the controller's limit, with IOs the host does not hold: the
	 * queue counts are point samples at instants a sample apart and Little's count an interval
	 * average, so the guest must hold clearly more (tol) over a window's medians */
	int nsub = w->nsub > 1 ? w->nsub : 1;
	size_t kk0 = SIZE_MAX, kk1 = 0;
	double held_s = 0;
	struct qsketch aq, ah;
	qs_init(&aq);
	qs_init(&ah);
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
			if (v)
				qs_add(&qi, host_held_at(a, v, model_time(&a->m, c, k), &x.how));
			k0 = k < k0 ? k : k0;
			k1 = k > k1 ? k : k1;
		}
		double q = qq.n ? qs_quantile(&qq, 0.5) : NAN, held = qi.n ? qs_quantile(&qi, 0.5) : NAN;
		qs_free(&qq);
		qs_free(&qi);
		if (isnan(q) || q < L0 - 1 || (!isnan(held) && q - held < tol))
			continue;
		qs_add(&aq, q);
		qs_add(&ah, held);
		held_s += (double)(s1 - s0) / 1000.0 + c->interval_s;
		kk0 = k0 < kk0 ? k0 : kk0;
		kk1 = k1 > kk1 ? k1 : kk1;
	}
	x.q = aq.n ? qs_quantile(&aq, 0.5) : NAN;
	x.held = ah.n ? qs_quantile(&ah, 0.5) : NAN;
	qs_free(&aq);
	qs_free(&ah);
	if (kk0 == SIZE_MAX || held_s < RV(R_SUSTAIN_SECONDS))
		return;
	struct win wj = {kk0, kk1, 0};
	struct qsketch ql;
	qs_init(&ql);
	for (size_t k = wj.k0; k <= wj.k1; k++)
		qs_add(&ql, guest_latency_at(c, e, k));
	double glat = ql.n ? qs_quantile(&ql, 0.5) : NAN;
	qs_free(&ql);
	if (!v || isnan(x.held))
		vscsi_guest_only(a, e, &wj, glat);
	else
		vscsi_cap_finding(a, e, v, &wj, glat, &x);
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

const struct stream_rule sr_guest_hidden = {
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

void guest_hidden_window(struct analysis *a, const struct swin *w)
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
				    "controller type: if it is LSI Logic SAS (32 outstanding IOs per disk), move "
				    "busy disks to PVSCSI; if it is PVSCSI, raise MaxQueueDepth to 254; also check "
				    "guest CPU and filter drivers (antivirus, backup).%s", q,
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
	/* no machine named: the only guest of the analysis is assumed (the listing iopsy's own advice
	 * gives, 'wmic partition get BlockSize, StartingOffset, Name, Index', has no SystemName) */
	if (!hit && !want && guests.len && !strchr(guests.data, ',')) {
		for (size_t i = 0; i < a->m.ncaps && !hit; i++)
			if (!a->m.caps[i].failed && a->m.caps[i].role == ROLE_GUEST && a->m.caps[i].host)
				hit = a->m.caps[i].host;
		a->parts_assumed = afmt(a,
					"the listing names no machine (no SystemName column): taken to be of %s, the "
					"only guest of this analysis",
					hit);
	}
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

void det_alignment(struct analysis *a)
{
	if (!a->have_parts)
		return;
	const char *guest = partitions_guest(a);
	if (!guest) {
		struct diag d;
		diag_init(&d, a->opts.partitions ? a->opts.partitions : "partitions", -1);
		d.sink = a->sink;
		diag_emit(&d, DIAG_WARNING, 0, 0, "%s", a->parts_note);
		input_said(a, "--partitions", a->opts.partitions, 0, IN_NOT_APPLIED, "%s", a->parts_note);
		return;
	}
	size_t nmis = 0;
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
		nmis++;
	}
	if (a->parts_assumed) {
		struct diag d;
		diag_init(&d, a->opts.partitions ? a->opts.partitions : "partitions", -1);
		d.sink = a->sink;
		diag_emit(&d, DIAG_NOTE, 0, 0, "%s", a->parts_assumed);
	}
	input_said(a, "--partitions", a->opts.partitions, 0, IN_APPLIED, "%zu partition%s of %s checked: %s%s",
		   a->parts.n, a->parts.n == 1 ? "" : "s", guest,
		   nmis ? afmt(a, "%zu misaligned (see the findings)", nmis) : "every one aligned",
		   a->parts_assumed ? afmt(a, " (%s)", a->parts_assumed) : "");
}
