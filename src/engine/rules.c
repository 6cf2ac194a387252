/* rules.c — the threshold table (see rules.h), the rules file reader with its checks (names,
 * numbers, units and their ranges, warning <= critical per scope), the scoped lookup and the
 * provenance the reports print. Sources are doc/domain.md's tags. */
#include "rules.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "suggest.h"

#define RULES_INIT { \
	[R_SUSTAIN_SAMPLES] = {"sustain.samples", 5, "samples", "a condition must hold this many samples in a row to be a finding (spikes are not)", "[seed] brief spikes are fine; sustained averages are the signal"}, \
	[R_SUSTAIN_SECONDS] = {"sustain.seconds", 20, "s", "... and last at least this long", "[seed]"}, \
	[R_GAP_SAMPLES] = {"sustain.gap_samples", 2, "samples", "samples below threshold tolerated inside one window", "[derived]"}, \
	[R_EPISODE_GAP_S] = {"sustain.episode_gap_s", 120, "s", "windows of one condition on one entity closer than this (or 5 intervals) are one episode, one finding", "[derived]"}, \
	[R_GUEST_LAT_WARN] = {"guest.latency.warning_ms", 20, "ms", "guest Avg. Disk sec/Read|Write above this: slow", "[ms] SQL bands: <10 very good, 10-20 ok, 20-50 slow, >50 serious"}, \
	[R_GUEST_LAT_CRIT] = {"guest.latency.critical_ms", 50, "ms", "guest Avg. Disk sec/Read|Write above this: serious", "[ms] SQL bands"}, \
	[R_GUEST_LARGE_KIB] = {"guest.large_io.kib", 64, "KiB", "IOs larger than this are judged by the large-IO band", "[pal] sec/Transfer > 35 ms when IO > 64 KiB"}, \
	[R_GUEST_LARGE_WARN] = {"guest.large_io.warning_ms", 35, "ms", "guest latency of large IOs above this: slow (a backup's 1 MiB reads at 30 ms are not)", "[pal] > 35 ms (IO > 64 KiB)"}, \
	[R_LOG_WRITE_WARN] = {"guest.log.write.warning_ms", 5, "ms", "write latency of a log disk above this: slow", "[seed] log writes: target 5 ms"}, \
	[R_LOG_WRITE_CRIT] = {"guest.log.write.critical_ms", 10, "ms", "write latency of a log disk above this: serious", "[seed] log writes: tolerable 10 ms"}, \
	[R_LOG_WRITE_SHARE] = {"guest.log.write_share", 0.9, "fraction", "a disk whose IOs are at least this share writes ...", "[derived] a transaction log is written, rarely read"}, \
	[R_LOG_MAX_KIB] = {"guest.log.max_write_kib", 64, "KiB", "... of at most this size (on average) is taken for a log disk", "[derived] log writes are 512 B-60 KiB"}, \
	[R_DAVG_WARN] = {"device.davg.warning_ms", 15, "ms", "DAVG above this: the array/fabric is slow", "[vmw vSphere 6.7 monitoring guide] device latency > 15 ms"}, \
	[R_DAVG_CRIT] = {"device.davg.critical_ms", 25, "ms", "DAVG above this", "[vmw-derived practitioner tables] DAVG > 25 ms"}, \
	[R_NONDATA_SHARE] = {"device.nondata.share", 0.25, "fraction", "a slow device whose non-data commands (Commands/s - Reads/s - Writes/s: UNMAP, ATS, ...) are at least this share of its commands ...", "[vmw Interpreting esxtop Statistics §4.2.1, §4.2.8] CMDS/s counts every command, READS/s and WRITES/s the data ones (ATS, UNMAP/DELETE are VAAI statistics of their own); [derived] the share"}, \
	[R_NONDATA_RISE] = {"device.nondata.rise", 2, "x", "... and at least this many times their rate the rest of the capture: they are named as the likely cause", "[derived] rising with the latency, not a constant background"}, \
	[R_DS_LAT_WARN] = {"datastore.latency.warning_ms", 15, "ms", "a virtual disk the capture shows on no SCSI device (an NFS volume, or none shown): its host-side latency above this", "[vmw vSphere 6.7 monitoring guide] device latency > 15 ms: the storage is slow"}, \
	[R_DS_LAT_CRIT] = {"datastore.latency.critical_ms", 25, "ms", "... and above this", "[vmw-derived practitioner tables] GAVG > 25 ms"}, \
	[R_KAVG_WARN] = {"kernel.kavg.warning_ms", 0.1, "ms", "KAVG/QAVG constantly above this: the VMkernel is queuing", "[seed] KAVG constantly above 0.1 ms"}, \
	[R_KAVG_CRIT] = {"kernel.kavg.critical_ms", 2, "ms", "KAVG/QAVG above this", "[vmw-derived practitioner tables] KAVG > 2 ms"}, \
	[R_DAVG_RAISE_QD] = {"advice.davg_max_to_raise_qd_ms", 10, "ms", "raise a queue depth only while DAVG stays below this", "[seed] raise the device queue depth only if DAVG < 10 ms"}, \
	[R_DEV_SAT_USD] = {"device.saturated.usd_pct", 90, "%", "ACTV at or above this share of DQLEN ...", "[vmw] %USD = ACTV/DQLEN"}, \
	[R_DEV_SAT_QUED] = {"device.saturated.qued", 1, "commands", "... with at least this many commands queued in the VMkernel (LOAD > 1)", "[vmw] LOAD > 1 or QUED > 0 means IOs wait in the kernel"}, \
	[R_ADP_SAT_PCT] = {"adapter.saturated.pct", 90, "%", "sum of ACTV on an adapter at or above this share of AQLEN", "[vmw]"}, \
	[R_ADP_BEYOND_SHARE] = {"adapter.saturated.beyond_share", 0.1, "fraction", "... or commands queued at the adapter beyond the sum of its devices' QUED, by at least 1 and this share of the adapter's", "[vmw Interpreting esxtop Statistics §4.1] the adapter screen aggregates its devices' statistics; [derived] the share"}, \
	[R_VSCSI_LSI] = {"vscsi.lsi.disk_limit", 32, "IOs", "LSI Logic SAS per-disk queue limit", "[seed] adapter 128, per disk 32; [pal] warns at >= 32"}, \
	[R_VSCSI_PVSCSI] = {"vscsi.pvscsi.disk_limit", 64, "IOs", "PVSCSI default per-disk queue limit", "[seed][vmw KB 2053145]"}, \
	[R_VSCSI_PVSCSI_MAX] = {"vscsi.pvscsi.disk_limit_max", 254, "IOs", "PVSCSI maximum per-disk queue limit (MaxQueueDepth)", "[seed][vmw KB 2053145]"}, \
	[R_VSCSI_PINNED_SHARE] = {"vscsi.pinned_share", 0.5, "fraction", "share of a window's samples at the limit (within 1) for 'pinned'", "[derived]"}, \
	[R_HIDDEN_RATIO] = {"guest.hidden.ratio", 2, "x", "guest latency at least this many times the host's (GAVG) for the same disk", "[derived] Little's law (outstanding IO = IOPS x latency)"}, \
	[R_HIDDEN_MIN_MS] = {"guest.hidden.min_gap_ms", 5, "ms", "... and at least this much larger", "[derived]"}, \
	[R_AQD_HALF_RATIO] = {"aqd.halving_ratio", 0.6, "x", "a DQLEN drop to at most this share of the previous value counts as a halving", "[vmw KB 1008113] halve on QUEUE FULL/BUSY"}, \
	[R_AQD_MIN_STEPS] = {"aqd.min_steps", 3, "steps", "+1 recovery steps after a halving needed for the AQD signature", "[vmw KB 1008113] +1 per batch of good completions"}, \
	[R_QD_STEP_HOLD_S] = {"qdepth.step_hold_s", 300, "s", "a DQLEN/AQLEN that holds one value this long, steps by 2+ and holds the new one as long is a setting changed during the capture", "[derived] a configuration change holds; AQD and SIOC move again within minutes"}, \
	[R_SIOC_THRESHOLD] = {"sioc.threshold_ms", 30, "ms", "SIOC congestion threshold (manual default)", "[vmw] PARDA FAST'09"}, \
	[R_SIOC_NEAR] = {"sioc.near_share", 0.7, "x", "DAVG at least this share of the threshold while DQLEN moves", "[derived]"}, \
	[R_SIOC_MIN_CHANGES] = {"sioc.min_changes", 3, "changes", "gradual DQLEN changes (not halvings, not +1 only) needed", "[derived] smooth proportional steps"}, \
	[R_SIOC_BASE_RATIO] = {"sioc.baseline_ratio", 1.5, "x", "... or DAVG at least this multiple of the device's own DAVG at full queue depth (automatic threshold)", "[vmw] since vSphere 5.1 the default threshold is the latency at 90% of peak throughput; [derived] the ratio"}, \
	[R_DSNRO] = {"dsnro.value", 32, "commands", "Disk.SchedNumReqOutstanding default", "[vmw] DSNRO default 32, applied when more than one VM is active"}, \
	[R_DSNRO_WORLDS] = {"dsnro.min_worlds", 2, "worlds", "active worlds on the device for DSNRO to apply", "[vmw]"}, \
	[R_SPLIT_PER_S] = {"split.per_s", 5, "/s", "split IO per second", "[ms] diagnostic rule flags >= 5/s"}, \
	[R_SPLIT_RATIO] = {"split.ratio", 0.1, "fraction", "split IO as a share of transfers", "[derived]"}, \
	[R_ERR_PER_S] = {"errors.per_s", 1, "/s", "aborts, resets or failed commands per second", "[vmw-derived practitioner tables] ABRTS/s > 1, RESETS/s > 1"}, \
	[R_QFULL_GAP_S] = {"qfull.window_gap_s", 120, "s", "QUEUE FULL/BUSY events closer than this form one window", "[derived]"}, \
	[R_ALIGN_BYTES] = {"align.bytes", 1048576, "bytes", "partition offsets must be a multiple of this", "[seed][vmw] Windows 2008+ and VMFS5 align at 1 MiB"}, \
	[R_ALIGN_MIN_BYTES] = {"align.min_bytes", 4096, "bytes", "... an offset that is a multiple of this is aligned all the same (no finding)", "[derived] Advanced Format (512e/4Kn) sectors and flash pages are 4 KiB: a 4096-multiple offset straddles none; VMFS6 aligns its metadata at 4096 [vmw KB 374191]"}, \
	[R_ACTIVE_IOPS] = {"active.min_iops", 5, "IO/s", "below this a disk is idle and its latency is not judged", "[derived]"}, \
	[R_CPU_RDY_WARN] = {"cpu.ready.warning_pct", 5, "%", "a VM's %RDY per vCPU (the group's over its vCPUs) above this, sustained: its vCPUs wait for a physical CPU", "[vmw KB 1017926, 2002181] ready under 5% per vCPU is no issue; practitioner tables: 5-10% contention"}, \
	[R_CPU_RDY_CRIT] = {"cpu.ready.critical_pct", 10, "%", "... above this: serious", "[vmw KB 2002181] 10% per vCPU and more: significant impact"}, \
	[R_CPU_CSTP_WARN] = {"cpu.costop.warning_pct", 3, "%", "a VM's %CSTP per vCPU above this, sustained: its vCPUs wait to be co-scheduled", "[vmw KB 1017926] %CSTP high against %RUN: too many vCPUs for the host; practitioner tables: 3%"}, \
	[R_CPU_HOST_FAST_MS] = {"cpu.host_fast_ms", 5, "ms", "a guest disk's virtual disk answering under this (and under a third of the guest's latency) while the VM waits for CPU: the guest's wait is the CPU's", "[derived] GAVG excludes the time the completion waits for the vCPU"}, \
	[R_HV_DISK_WARN] = {"hyperv.host_disk.warning_ms", 15, "ms", "a Hyper-V host disk's latency (Avg. Disk sec/Read|Write, IO-weighted) above this, sustained", "[blog nickeales 2016] CSV and VM-disk latency: 15 ms general, 8 ms for server virtualization (doc/hyperv.md)"}, \
	[R_HV_DISK_CRIT] = {"hyperv.host_disk.critical_ms", 50, "ms", "... above this: critical", "[ms-docs Detecting bottlenecks in a virtualized environment] host physical disk latency consistently over 50 ms: spread the VMs, faster storage, Storage QoS"}, \
	[R_HV_VHDX_WARN] = {"hyperv.vhdx.warning_ms", 15, "ms", "a VHDX's Latency above this, sustained, and three times its Lower Latency: the time is added at the VHDX (Storage QoS, the virtualization layer)", "[blog nickeales 2016] VM-disk latency 15 ms general; [derived] Latency vs Lower Latency (doc/hyperv.md)"}, \
	[R_HV_QOS_FLAT] = {"hyperv.qos.flat_ratio", 1.15, "x", "... and its normalized IOPS flat: their 90th percentile within this factor of the 10th over the time: a Storage QoS maximum", "[ms-docs Storage Quality of Service] maxima are in normalized IOPS (8 KiB units); [derived] a limit holds the rate flat while the demand waits"}, \
	[R_HV_REDIR_SHARE] = {"hyperv.csv.redirected_share", 0.5, "", "a Cluster Shared Volume with at least this share of its IO redirected (Cluster CSVFS Redirected IO), sustained", "[ms-blog CSV performance counters 2014; ms-docs Use Cluster Shared Volumes] redirected IO goes over SMB to the coordinator node"}, \
	[R_HV_CPU_WAIT_WARN] = {"hyperv.cpu_wait.warning_us", 60, "µs", "a VM's CPU Wait Time Per Dispatch (mean of its virtual processors) above this, sustained: its vCPUs wait for a logical processor", "[vendor Quest Spotlight] alarm over 60 µs; ~7-10 µs on an uncontended host [serverfault 675991]"}, \
	[R_HV_CPU_WAIT_CRIT] = {"hyperv.cpu_wait.critical_us", 100, "µs", "... above this: critical", "[vendor Quest Spotlight] high over 100 µs"}, \
	[R_CMP_MIN_IO_SHARE] = {"compare.min_io_share", 0.05, "fraction", \
		"compare: a latency row (a disk, or one direction of its IO) doing less than this share of the " \
		"busiest compared disk's IO on both sides is reported but does not decide the outcome (it " \
		"cannot make an improvement mixed)", \
		"[derived] a wait weighs in proportion to the IOs that wait (Little's law); a log disk's " \
		"trickle reads are a few per mille of its IO"}, \
	[R_CMP_MIN_BUSY_HELD] = {"compare.min_busy_held", 0.25, "fraction", \
		"compare: a side whose busy phase holds less than this share of the other side's, by duration " \
		"and by IOs, is not comparable (a window or capture that cuts a busy phase to a sliver)", \
		"[derived] the tail and the time above a band of a few minutes of a phase are not those of " \
		"the phase: a sliver shows its ramp, not its steady state"}, \
	[R_MEM_AVAIL_MB] = {"memory.guest.available_mb", 500, "MB", \
		"a Windows machine's Available MBytes under this while it reads pages from disk " \
		"(memory.guest.pages_input.*), sustained: it pages hard", \
		"[pal] Available MBytes under 10% of physical memory: warning, under 5%: critical; [derived] a " \
		"fixed floor, as perfmon's Memory object does not count the physical memory"}, \
	[R_MEM_PAGES_IN_WARN] = {"memory.guest.pages_input.warning_per_s", 100, "pages/s", \
		"... Pages Input/sec (hard faults read from disk) above this, with available memory low, " \
		"sustained", \
		"[ms NT4 Resource Kit ch. 12 Detecting Memory Bottlenecks] a sustained rate of hard page faults " \
		"is the best indicator of a memory bottleneck (over 5 page reads/s); [derived] 100 pages/s (0.4 " \
		"MB/s) so that a few faults on a busy server are no finding"}, \
	[R_MEM_PAGES_IN_CRIT] = {"memory.guest.pages_input.critical_per_s", 1000, "pages/s", \
		"... above this: critical (4 MB/s of paging reads)", \
		"[derived] a disk's worth of random reads taken by paging"}, \
	[R_MEM_SWPWT_WARN] = {"memory.swap_wait.warning_pct", 5, "%", \
		"a VM's %SWPWT per vCPU (Group Cpu % Swap Wait over its vCPUs) above this, or its swap-in rate " \
		"above memory.swap_in.mb_per_s, sustained: the ESXi host swaps its memory and the VM waits for " \
		"it", \
		"[vmw Interpreting esxtop Statistics §2.4, §3.3] %SWPWT: time a world waits for the VMkernel to " \
		"swap memory in; practitioner esxtop tables: %SWPWT > 5, SWR/s > 1"}, \
	[R_MEM_SWPWT_CRIT] = {"memory.swap_wait.critical_pct", 20, "%", \
		"... above this: critical", \
		"[derived] a fifth of the VM's time stalled on swapped pages"}, \
	[R_MEM_SWAP_IN_MBPS] = {"memory.swap_in.mb_per_s", 1, "MB/s", \
		"a VM's swap-in rate (Group Memory SWR/s) above this, sustained", \
		"[vmw Interpreting esxtop Statistics §3.3] SWR/s: the rate the host reads the VM's memory back " \
		"from its swap file; practitioner esxtop tables: SWR/s > 1"}, \
	[R_ADP_LINK_MBPS] = {"adapter.link_mbps", 0, "MB/s", "an adapter's link data rate per direction (0 = not known); a link-up line of the adapter in vmkernel.log (qlnativefc, lpfc: the negotiated FC speed) ranks before it; with neither, a plateau of MB/s is judged against the nominal FC rates; set it for one adapter in a [device vmhbaN] section", "[fcia, infostor 2010] 1/2/4/8/10/16GFC carry 100/200/400/800/1200/1600 MB/s per direction, 32GFC 3200; [pci-sig] a PCIe lane 250/500/985 MB/s (Gen1/2/3)"}, \
	[R_BW_CEILING_PCT] = {"bandwidth.ceiling_pct", 90, "%", "an adapter moving at least this share of its link rate in one direction, with its latency risen (bandwidth.latency_rise): at its bandwidth ceiling", "[derived] a link at its data rate queues every further byte: latency grows with outstanding IO while MB/s stays flat (Little's law)"}, \
	[R_SUSTAIN_MIN_SAMPLES] = {"sustain.min_samples", 2, "samples", "... fewer samples than sustain.samples when they already last sustain.seconds (coarse sampling), but never fewer than this", "[derived] a duration, not a count of rows: at esxtop -d 300 five rows are 25 minutes"}, \
	[R_COARSE_FACTOR] = {"sustain.coarse_factor", 2, "x", "with rows longer than sustain.seconds, one row whose mean latency is at least this many times a latency threshold is a finding, said to be one row (the sampling cannot tell how long within it)", "[derived] a 5-minute mean twice a threshold is minutes above it, not a spike; [vmw KB 309140] the interval's average hides how it was spread"}, \
	[R_RSV_CONFLICTS] = {"reservation.conflicts_per_s", 20, "/s", "a LUN's SCSI reservation conflicts (esxtop -a Conflicts/sec) at or above this, or D:0x18 in vmkernel.log, sustained, while its IO stalls: reservation contention", "[vmw-derived practitioner tables] CONS/s > 20: VMFS locking degrades performance"}, \
	[R_BW_LAT_RISE] = {"bandwidth.latency_rise", 2, "x", "... its latency at the ceiling at least this many times its latency below half of it", "[derived] at a ceiling, latency = outstanding IO x bytes per IO / rate"}, \
}

const struct rule rule_table[R_COUNT] = RULES_INIT;

const char *const rule_scope_names[SCOPE_COUNT] = {"global", "host", "vm", "disk", "device"};

/* Rules that apply to the whole analysis (how long a condition must hold, what is one episode,
 * which entities are idle, the vmkernel.log grouping, partition offsets): the streams, the
 * coverage and the reports read one value, so a section cannot set them. */
static const enum rule_id global_only[] = {R_SUSTAIN_SAMPLES, R_SUSTAIN_SECONDS, R_GAP_SAMPLES, R_EPISODE_GAP_S,
					   R_QFULL_GAP_S, R_ALIGN_BYTES, R_ALIGN_MIN_BYTES, R_ACTIVE_IOPS,
					   R_CMP_MIN_IO_SHARE, R_CMP_MIN_BUSY_HELD, R_SUSTAIN_MIN_SAMPLES, R_COARSE_FACTOR};

long rules_sustain_samples(const struct rules *r, double iv_s)
{
	long most = (long)rule_value(r, R_SUSTAIN_SAMPLES), least = (long)rule_value(r, R_SUSTAIN_MIN_SAMPLES);
	if (least > most)
		least = most;
	if (!(iv_s > 0))
		return most;
	/* rows that last longer than sustain.seconds: at 5 s that is still 5 rows, at 15 s 2 (a
	 * twentieth of a row tolerated: perfmon's 5.003 s rows are 5 s rows) */
	double need = floor(rule_value(r, R_SUSTAIN_SECONDS) / iv_s + 0.05) + 1;
	return need >= (double)most ? most : need <= (double)least ? least : (long)need;
}

bool rule_scopable(enum rule_id id)
{
	for (size_t i = 0; i < sizeof global_only / sizeof global_only[0]; i++)
		if (global_only[i] == id)
			return false;
	return true;
}

/* What a value may be, by the rule's unit: a share of 0..100 or 0..1, a whole count, or a
 * non-negative amount. The upper bounds keep every value castable to the integers it becomes
 * (samples, milliseconds). */
struct unit_range {
	const char *unit;
	double min, max;
	bool whole;
	const char *what;            /* for messages: "a percentage"; NULL: a count or an amount */
};
static const struct unit_range unit_ranges[] = {
	{"%", 0, 100, false, "a percentage"},
	{"fraction", 0, 1, false, "a fraction"},
	{"samples", 1, 1e6, true, NULL},
	{"commands", 1, 1e6, true, NULL},
	{"IOs", 1, 1e6, true, NULL},
	{"steps", 1, 1e6, true, NULL},
	{"changes", 1, 1e6, true, NULL},
	{"worlds", 1, 1e6, true, NULL},
	{"bytes", 0, 1e12, true, NULL},
};
static const struct unit_range amount_range = {NULL, 0, 1e9, false, NULL};

static struct unit_range range_of(enum rule_id id)
{
	struct unit_range u = amount_range;
	for (size_t i = 0; i < sizeof unit_ranges / sizeof unit_ranges[0]; i++)
		if (strcmp(unit_ranges[i].unit, rule_table[id].unit) == 0)
			u = unit_ranges[i];
	if (id == R_GAP_SAMPLES)
		u.min = 0; /* no gap tolerated is a choice, not a mistake */
	return u;
}

/* Pairs whose first value must not exceed the second, in every scope. */
static const struct rule_pair {
	enum rule_id lo, hi;
	const char *why;
} rule_pairs[] = {
	{R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT, "a warning threshold cannot exceed its critical one"},
	{R_LOG_WRITE_WARN, R_LOG_WRITE_CRIT, "a warning threshold cannot exceed its critical one"},
	{R_DAVG_WARN, R_DAVG_CRIT, "a warning threshold cannot exceed its critical one"},
	{R_DS_LAT_WARN, R_DS_LAT_CRIT, "a warning threshold cannot exceed its critical one"},
	{R_KAVG_WARN, R_KAVG_CRIT, "a warning threshold cannot exceed its critical one"},
	{R_CPU_RDY_WARN, R_CPU_RDY_CRIT, "a warning threshold cannot exceed its critical one"},
	{R_MEM_PAGES_IN_WARN, R_MEM_PAGES_IN_CRIT, "a warning threshold cannot exceed its critical one"},
	{R_MEM_SWPWT_WARN, R_MEM_SWPWT_CRIT, "a warning threshold cannot exceed its critical one"},
	{R_VSCSI_PVSCSI, R_VSCSI_PVSCSI_MAX, "the default limit cannot exceed the maximum"},
};

void rules_init(struct rules *r)
{
	memset(r, 0, sizeof *r);
	for (int i = 0; i < R_COUNT; i++)
		r->v[i] = rule_table[i].value;
}

/* ---- matching an entity ---- */

/* Host names: equal ignoring case, or the short name of a FQDN ("esx01" and "esx01.lab.local"). */
static bool host_is(const char *want, const char *h)
{
	if (!h || !*h || !*want)
		return false;
	if (strcasecmp(want, h) == 0)
		return true;
	size_t a = strcspn(want, "."), b = strcspn(h, ".");
	bool one_short = !want[a] || !h[b];
	return one_short && a == b && strncasecmp(want, h, a) == 0;
}

static bool name_is(const char *want, const char *name) { return name && strcasecmp(want, name) == 0; }

/* How specifically section s names entity w: 0 not at all, 1 its host, 2 its VM, 3 the disk or
 * device, 4 the disk on its host. */
static int scope_rank(const struct rule_section *s, const struct entity_ref *w)
{
	switch (s->kind) {
	case SCOPE_HOST: return host_is(s->name, w->host) ? 1 : 0;
	case SCOPE_VM: {
		if (!w->vm)
			return 0;
		size_t n = w->vm_len ? w->vm_len : strlen(w->vm);
		return strlen(s->name) == n && strncasecmp(s->name, w->vm, n) == 0 ? 2 : 0;
	}
	case SCOPE_DISK:
		if ((w->layer != LAYER_GUEST && w->layer != LAYER_VSCSI) || !name_is(s->name, w->name))
			return 0;
		if (!s->host[0])
			return 3;
		return host_is(s->host, w->host) ? 4 : 0;
	case SCOPE_DEVICE:
		return (w->layer == LAYER_DEVICE || w->layer == LAYER_ADAPTER) && name_is(s->name, w->name) ? 3 : 0;
	default: return 0;
	}
}

/* The value of id for w and the setting it comes from (-1: the global value). */
static int lookup(const struct rules *r, enum rule_id id, const struct entity_ref *w, double *v)
{
	*v = r->v[id];
	if (!w || !r->scoped[id])
		return -1;
	int best = -1, rank = 0;
	for (int i = 0; i < r->nset; i++) {
		const struct rule_setting *s = &r->set[i];
		if (s->id != id)
			continue;
		int k = scope_rank(&r->sec[s->section], w);
		if (k > rank || (k && k == rank && s->section > r->set[best].section)) {
			rank = k;
			best = i;
		}
	}
	if (best >= 0)
		*v = r->set[best].v;
	return best;
}

double rules_for(const struct rules *r, enum rule_id id, const struct entity_ref *who)
{
	double v;
	lookup(r, id, who, &v);
	return v;
}

/* The entity a section names, as a neutral reference: what the pair check judges the section's
 * values on (with the wider sections that cover it). */
static struct entity_ref section_ref(const struct rule_section *s)
{
	struct entity_ref w = {.layer = LAYER_COUNT};
	switch (s->kind) {
	case SCOPE_HOST: w.host = s->name; break;
	case SCOPE_VM: w = (struct entity_ref){.layer = LAYER_GUEST, .host = s->name, .vm = s->name}; break;
	case SCOPE_DISK:
		w = (struct entity_ref){.layer = LAYER_GUEST, .name = s->name, .host = s->host[0] ? s->host : NULL,
					.vm = s->host[0] ? s->host : NULL};
		break;
	case SCOPE_DEVICE: w = (struct entity_ref){.layer = LAYER_DEVICE, .name = s->name}; break;
	default: break;
	}
	return w;
}

/* ---- reading a rules file ---- */

struct reader {
	struct rules *r;
	struct diag *d;
	const char *text;
	size_t s, e;                 /* the current line, without its line end */
	long line;
	int cur;                     /* the section lines go to, -1 = global */
	bool skip;                   /* after a bad section header: check lines, keep none */
	int rc;
	struct buf msg[2];           /* shown text for messages */
};

static bool is_ws(char c) { return c == ' ' || c == '\t'; }

/* Text from the file as it may appear in a message: escaped, at most 80 bytes. */
static const char *shown(struct reader *rd, int k, size_t from, size_t to)
{
	struct buf *b = &rd->msg[k];
	buf_reset(b);
	size_t n = to - from;
	buf_add_text_escaped(b, rd->text + from, n > 80 ? 80 : n);
	if (n > 80)
		buf_adds(b, "...");
	return b->data;
}

static long col_of(const struct reader *rd, size_t p) { return (long)(p - rd->s + 1); }

static void fail(struct reader *rd, size_t p, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct reader *rd, size_t p, const char *fmt, ...)
{
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	diag_emit(rd->d, DIAG_ERROR, rd->line, col_of(rd, p), "%s", msg);
	rd->rc = ERR_FORMAT;
}

/* One name of a section header at p: "quoted" or up to a blank or ']'. Sets [*a, *b) to it and
 * returns the position after it, or 0 after an error. */
static size_t header_token(struct reader *rd, size_t p, size_t *a, size_t *b)
{
	const char *t = rd->text;
	if (t[p] == '"') {
		size_t q = p + 1;
		while (q < rd->e && t[q] != '"')
			q++;
		if (q >= rd->e) {
			fail(rd, p, "a quoted name needs its closing '\"'");
			return 0;
		}
		*a = p + 1;
		*b = q;
		return q + 1;
	}
	size_t q = p;
	while (q < rd->e && !is_ws(t[q]) && t[q] != ']') {
		if (t[q] == '"') {
			fail(rd, q, "a '\"' inside a name: quote the whole name (\"E:\\SQL DATA\")");
			return 0;
		}
		q++;
	}
	*a = p;
	*b = q;
	return q;
}

static bool same_section(const struct rule_section *x, const struct rule_section *y)
{
	return x->kind == y->kind && strcasecmp(x->host, y->host) == 0 && strcasecmp(x->name, y->name) == 0;
}

/* "[kind NAME...]": makes it the current section (one already seen is reused). */
static void read_section(struct reader *rd, size_t p)
{
	const char *t = rd->text;
	rd->skip = true;
	size_t tok[3][2];
	int n = 0;
	size_t q = p + 1;
	for (;;) {
		while (q < rd->e && is_ws(t[q]))
			q++;
		if (q >= rd->e) {
			fail(rd, p, "the section header '%s' is not closed with ']'", shown(rd, 0, p, rd->e));
			return;
		}
		if (t[q] == ']')
			break;
		if (n == 3) {
			fail(rd, q, "too many names in the section header (at most [disk HOST NAME])");
			return;
		}
		size_t a, b;
		size_t next = header_token(rd, q, &a, &b);
		if (!next)
			return;
		if (a == b) {
			fail(rd, q, "an empty name in the section header");
			return;
		}
		tok[n][0] = a;
		tok[n][1] = b;
		n++;
		q = next;
	}
	size_t after = q + 1;
	while (after < rd->e && is_ws(t[after]))
		after++;
	if (after < rd->e && t[after] != '#') {
		fail(rd, after, "text after the section header: '%s'", shown(rd, 0, after, rd->e));
		return;
	}
	if (!n) {
		fail(rd, p, "an empty section header: [global], [host NAME], [vm NAME], [disk [HOST] NAME] or [device NAME]");
		return;
	}
	struct rule_section sec;
	memset(&sec, 0, sizeof sec);
	int kind = -1;
	for (int k = 0; k < SCOPE_COUNT; k++)
		if (tok[0][1] - tok[0][0] == strlen(rule_scope_names[k]) &&
		    strncasecmp(t + tok[0][0], rule_scope_names[k], tok[0][1] - tok[0][0]) == 0)
			kind = k;
	if (kind < 0) {
		fail(rd, tok[0][0], "unknown section '%s': [global], [host NAME], [vm NAME], [disk [HOST] NAME] or [device NAME]",
		     shown(rd, 0, tok[0][0], tok[0][1]));
		return;
	}
	static const char *const takes[SCOPE_COUNT] = {
		"no name", "one name: the ESXi host or the guest machine ([host esx01.lab.local])",
		"one name: the VM ([vm SQL01])",
		"a disk, or a host and a disk ([disk L:], [disk SQL01 L:], [disk SQL01:scsi0:1])",
		"one name: the device ([device naa.600a...])"};
	int want_min = kind == SCOPE_GLOBAL ? 0 : 1, want_max = kind == SCOPE_GLOBAL ? 0 : kind == SCOPE_DISK ? 2 : 1;
	if (n - 1 < want_min || n - 1 > want_max) {
		fail(rd, n > want_max + 1 ? tok[want_max + 1][0] : tok[0][0], "[%s] takes %s", rule_scope_names[kind], takes[kind]);
		return;
	}
	sec.kind = (enum rule_scope)kind;
	for (int k = 1; k < n; k++) {
		if (tok[k][1] - tok[k][0] >= RULES_NAME_MAX) {
			fail(rd, tok[k][0], "a name longer than %d bytes in the section header", RULES_NAME_MAX - 1);
			return;
		}
	}
	if (kind == SCOPE_GLOBAL) {
		rd->cur = -1;
		rd->skip = false;
		return;
	}
	int last = n - 1;
	memcpy(sec.name, t + tok[last][0], tok[last][1] - tok[last][0]);
	if (n == 3)
		memcpy(sec.host, t + tok[1][0], tok[1][1] - tok[1][0]);
	for (int k = 0; k < rd->r->nsec; k++) {
		if (same_section(&rd->r->sec[k], &sec)) {
			rd->cur = k;
			rd->skip = false;
			return;
		}
	}
	if (rd->r->nsec == RULES_MAX_SECTIONS) {
		fail(rd, p, "too many sections (at most %d)", RULES_MAX_SECTIONS);
		return;
	}
	rd->r->sec[rd->r->nsec] = sec;
	rd->cur = rd->r->nsec++;
	rd->skip = false;
}

static bool unit_is(const char *unit, const char *s, size_t n)
{
	size_t u = strlen(unit);
	if (n == u && strncasecmp(unit, s, n) == 0)
		return true;
	/* "1 sample", "1 command": the singular of a count */
	return u > 2 && unit[u - 1] == 's' && n == u - 1 && strncasecmp(unit, s, n) == 0;
}

static bool is_numch(char c) { return (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'; }

/* The value of rule id at [q, ve): a number, optionally followed by the rule's unit, within the
 * range of the unit. */
static bool read_value(struct reader *rd, enum rule_id id, size_t k, size_t q, size_t ve, double *out)
{
	(void)k;
	const char *t = rd->text, *name = rule_table[id].name;
	const char *unit = rule_table[id].unit;
	size_t n = q;
	while (n < ve && is_numch(t[n]))
		n++;
	double v;
	if (q == ve || !parse_number(t + q, n - q, &v)) {
		fail(rd, q, "'%s' needs a number, not '%s'", name, shown(rd, 0, q, ve));
		return false;
	}
	size_t u = n;
	while (u < ve && is_ws(t[u]))
		u++;
	if (u < ve && !unit_is(unit, t + u, ve - u)) {
		if (strcmp(unit, "fraction") == 0 && ve - u == 1 && t[u] == '%')
			fail(rd, u, "'%s' is a fraction from 0 to 1, not a percentage: write %g for %g %%", name, v / 100, v);
		else
			fail(rd, u, "'%s' is in %s: '%s' is not its unit (write '= %g' or '= %g %s')", name, unit,
			     shown(rd, 0, u, ve), v, v, unit);
		return false;
	}
	struct unit_range r = range_of(id);
	bool ok = v >= r.min && v <= r.max && (!r.whole || v == floor(v));
	if (ok) {
		*out = v;
		return true;
	}
	if (r.whole)
		fail(rd, q, "'%s' counts %s: a whole number from %.15g to %.15g, not %g", name, unit, r.min, r.max, v);
	else if (r.what)
		fail(rd, q, "'%s' is %s: %.15g to %.15g, not %g", name, r.what, r.min, r.max, v);
	else if (v < 0)
		fail(rd, q, "'%s' cannot be negative (%g %s)", name, v, unit);
	else
		fail(rd, q, "'%s' is out of range: at most %.15g %s, not %g", name, r.max, unit, v);
	return false;
}

/* Stores rule id = v from the current line, globally or in the current section. */
static void store(struct reader *rd, enum rule_id id, double v, size_t k, size_t vcol)
{
	struct rules *r = rd->r;
	struct rule_origin at = {.file = rd->d->file, .line = rd->line, .col = col_of(rd, vcol)};
	if (rd->cur < 0) {
		if (r->overridden[id] && r->at[id].file == at.file)
			diag_emit(rd->d, DIAG_WARNING, rd->line, col_of(rd, k), "'%s' is set again (line %ld too): this value is used",
				  rule_table[id].name, r->at[id].line);
		r->v[id] = v;
		r->overridden[id] = true;
		r->at[id] = at;
		return;
	}
	if (!rule_scopable(id)) {
		struct buf sc;
		buf_init(&sc);
		rules_scope_text(r, rd->cur, &sc);
		fail(rd, k, "'%s' applies to the whole analysis: it cannot be set in [%s]", rule_table[id].name, sc.data);
		buf_free(&sc);
		return;
	}
	for (int i = 0; i < r->nset; i++) {
		struct rule_setting *s = &r->set[i];
		if (s->section != rd->cur || s->id != id)
			continue;
		if (s->at.file == at.file)
			diag_emit(rd->d, DIAG_WARNING, rd->line, col_of(rd, k),
				  "'%s' is set again in this section (line %ld too): this value is used", rule_table[id].name,
				  s->at.line);
		s->v = v;
		s->at = at;
		return;
	}
	if (r->nset == RULES_MAX_SCOPED) {
		fail(rd, k, "too many lines in sections (at most %d)", RULES_MAX_SCOPED);
		return;
	}
	r->set[r->nset++] = (struct rule_setting){.v = v, .at = at, .section = rd->cur, .id = id};
	r->scoped[id] = true;
}

/* "name = value [unit] [# comment]" */
static void read_setting(struct reader *rd, size_t p)
{
	const char *t = rd->text;
	size_t k = p;
	while (k < rd->e && t[k] != '=' && !is_ws(t[k]))
		k++;
	size_t q = k;
	while (q < rd->e && is_ws(t[q]))
		q++;
	if (q == rd->e || t[q] != '=') {
		fail(rd, q, "expected 'name = value' or a section header ([disk SQL01 L:])");
		return;
	}
	int id = -1;
	for (int i = 0; i < R_COUNT; i++)
		if (strlen(rule_table[i].name) == k - p && memcmp(rule_table[i].name, t + p, k - p) == 0)
			id = i;
	if (id < 0) {
		const char *names[R_COUNT];
		for (int i = 0; i < R_COUNT; i++)
			names[i] = rule_table[i].name;
		char word[128];
		size_t wl = k - p < sizeof word ? k - p : sizeof word - 1;
		memcpy(word, t + p, wl);
		word[wl] = '\0';
		struct buf close;
		buf_init(&close);
		suggest_append(&close, word, NULL, names, R_COUNT);
		fail(rd, p, "unknown rule '%s'%s (see 'iopsy rules')", shown(rd, 0, p, k), close.data ? close.data : "");
		buf_free(&close);
		return;
	}
	q++;
	while (q < rd->e && is_ws(t[q]))
		q++;
	size_t ve = q;
	while (ve < rd->e && t[ve] != '#')
		ve++;
	while (ve > q && is_ws(t[ve - 1]))
		ve--;
	double v;
	if (!read_value(rd, (enum rule_id)id, p, q, ve, &v) || rd->skip)
		return;
	store(rd, (enum rule_id)id, v, p, q);
}

/* Where the value of id in force for w comes from, for a message: "line 3", "line 3 in [vm SQL01]",
 * "the default". */
static void origin_text(const struct rules *r, enum rule_id id, const struct entity_ref *w, int here, struct buf *out)
{
	double v;
	int s = lookup(r, id, w, &v);
	buf_printf(out, "%g, ", v);
	if (s >= 0) {
		buf_printf(out, "line %ld", r->set[s].at.line);
		if (r->set[s].section != here) {
			buf_adds(out, " in [");
			rules_scope_text(r, r->set[s].section, out);
			buf_addc(out, ']');
		}
	} else if (r->overridden[id]) {
		buf_printf(out, "line %ld", r->at[id].line);
	} else {
		buf_adds(out, "the default");
	}
}

/* Where id was set in scope sec (-1: global); NULL when it was not. */
static const struct rule_origin *set_at(const struct rules *r, enum rule_id id, int sec)
{
	if (sec < 0)
		return r->overridden[id] ? &r->at[id] : NULL;
	for (int i = 0; i < r->nset; i++)
		if (r->set[i].section == sec && r->set[i].id == id)
			return &r->set[i].at;
	return NULL;
}

/* warning <= critical (and the other pairs) with the values in force in each scope that sets one
 * of them: globally, and for the entity each section names. */
static void check_pairs(struct reader *rd)
{
	struct rules *r = rd->r;
	for (int sec = -1; sec < r->nsec; sec++) {
		struct entity_ref w = sec >= 0 ? section_ref(&r->sec[sec]) : (struct entity_ref){.layer = LAYER_COUNT};
		const struct entity_ref *who = sec >= 0 ? &w : NULL;
		for (size_t i = 0; i < sizeof rule_pairs / sizeof rule_pairs[0]; i++) {
			const struct rule_pair *pr = &rule_pairs[i];
			const struct rule_origin *o1 = set_at(r, pr->lo, sec), *o2 = set_at(r, pr->hi, sec);
			if (!o1 && !o2)
				continue;
			/* the message points at the later of the two lines */
			const struct rule_origin *at = !o1 ? o2 : !o2 ? o1 : o2->line > o1->line ? o2 : o1;
			if (!(rules_for(r, pr->lo, who) > rules_for(r, pr->hi, who)))
				continue;
			struct buf a, b, sc;
			buf_init(&a);
			buf_init(&b);
			buf_init(&sc);
			origin_text(r, pr->lo, who, sec, &a);
			origin_text(r, pr->hi, who, sec, &b);
			if (sec >= 0) {
				buf_adds(&sc, " in [");
				rules_scope_text(r, sec, &sc);
				buf_addc(&sc, ']');
			}
			diag_emit(rd->d, DIAG_ERROR, at->line, at->col, "%s (%s) is above %s (%s)%s: %s", rule_table[pr->lo].name,
				  a.data, rule_table[pr->hi].name, b.data, sc.data ? sc.data : "", pr->why);
			rd->rc = ERR_FORMAT;
			buf_free(&a);
			buf_free(&b);
			buf_free(&sc);
		}
	}
}

int rules_load_text(struct rules *r, const char *text, size_t len, struct diag *d)
{
	struct reader rd = {.r = r, .d = d, .text = text, .cur = -1};
	buf_init(&rd.msg[0]);
	buf_init(&rd.msg[1]);
	size_t i = 0;
	while (i < len) {
		rd.line++;
		rd.s = i;
		while (i < len && text[i] != '\n')
			i++;
		rd.e = i;
		i++;
		if (rd.e > rd.s && text[rd.e - 1] == '\r')
			rd.e--;
		size_t p = rd.s;
		while (p < rd.e && is_ws(text[p]))
			p++;
		if (p == rd.e || text[p] == '#')
			continue;
		if (text[p] == '[')
			read_section(&rd, p);
		else
			read_setting(&rd, p);
	}
	check_pairs(&rd);
	buf_free(&rd.msg[0]);
	buf_free(&rd.msg[1]);
	return rd.rc;
}

int rules_load(struct rules *r, const char *path, struct diag *d)
{
	char why[160];
	FILE *fp = fopen_regular(path, why, sizeof why); /* a FIFO is never opened: it would wait */
	if (!fp) {
		diag_emit(d, DIAG_ERROR, 0, 0, "cannot open: %s", why);
		return ERR_IO;
	}
	struct buf b;
	buf_init(&b);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) {
		buf_add(&b, chunk, n);
		if (b.len > (1u << 20)) {
			diag_emit(d, DIAG_ERROR, 0, 0, "rules file larger than 1 MiB");
			fclose(fp);
			buf_free(&b);
			return ERR_FORMAT;
		}
	}
	fclose(fp);
	int rc = rules_load_text(r, b.data ? b.data : "", b.len, d);
	buf_free(&b);
	return rc;
}

/* A name of a section header as it must be written to read back: quoted when it has a blank
 * or a ']'. */
static void header_name(struct buf *out, const char *s)
{
	bool q = strpbrk(s, " \t]") != NULL;
	if (q)
		buf_addc(out, '"');
	buf_adds(out, s);
	if (q)
		buf_addc(out, '"');
}

void rules_scope_text(const struct rules *r, int section, struct buf *out)
{
	buf_add(out, "", 0);
	if (section < 0 || section >= r->nsec) {
		buf_adds(out, rule_scope_names[SCOPE_GLOBAL]);
		return;
	}
	const struct rule_section *s = &r->sec[section];
	buf_adds(out, rule_scope_names[s->kind]);
	if (s->host[0]) {
		buf_addc(out, ' ');
		header_name(out, s->host);
	}
	buf_addc(out, ' ');
	header_name(out, s->name);
}

void rules_print(const struct rules *r, struct buf *out)
{
	buf_adds(out, "# iopsy rules: name = value   (unit) what — source\n");
	for (int i = 0; i < R_COUNT; i++) {
		char v[64];
		/* round-trips: 'iopsy rules' output is itself a valid rules file */
		snprintf(v, sizeof v, "%.15g", r->v[i]);
		buf_printf(out, "%-34s = %-8s # (%s%s) %s — %s\n", rule_table[i].name, v, rule_table[i].unit,
			   rule_scopable((enum rule_id)i) ? "" : ", global only", rule_table[i].what, rule_table[i].source);
	}
	bool any = false;
	for (int sec = 0; sec < r->nsec; sec++) {
		bool head = false;
		for (int i = 0; i < r->nset; i++) {
			const struct rule_setting *s = &r->set[i];
			if (s->section != sec)
				continue;
			if (!any)
				buf_adds(out, "\n# Sections: their lines apply only to the entities they name; the most specific wins\n"
					      "# (disk or device, then vm, then host, then the lines above).\n");
			any = true;
			if (!head) {
				buf_adds(out, "\n[");
				rules_scope_text(r, sec, out);
				buf_adds(out, "]\n");
				head = true;
			}
			char v[64];
			snprintf(v, sizeof v, "%.15g", s->v);
			buf_printf(out, "%-34s = %-8s # (%s) default %.15g\n", rule_table[s->id].name, v, rule_table[s->id].unit,
				   rule_table[s->id].value);
		}
	}
}

size_t rules_overrides(const struct rules *r, struct rule_override *out, size_t max)
{
	size_t n = 0;
	for (int i = 0; i < R_COUNT; i++) {
		/* a line that repeats the default ('iopsy rules' output used as a file) changes nothing */
		if (!r->overridden[i] || r->v[i] == rule_table[i].value)
			continue;
		if (n < max)
			out[n] = (struct rule_override){.id = (enum rule_id)i, .value = r->v[i], .section = -1,
							.file = r->at[i].file, .line = r->at[i].line};
		n++;
	}
	for (int i = 0; i < r->nset; i++) {
		const struct rule_setting *s = &r->set[i];
		if (n < max)
			out[n] = (struct rule_override){.id = s->id, .value = s->v, .section = s->section, .file = s->at.file,
							.line = s->at.line};
		n++;
	}
	return n;
}

void rules_override_text(const struct rules *r, const struct rule_override *o, struct buf *out)
{
	buf_printf(out, "%s = %.15g (default %.15g) from ", rule_table[o->id].name, o->value, rule_table[o->id].value);
	if (o->file)
		buf_printf(out, "%s:", o->file);
	else
		buf_adds(out, "line ");
	buf_printf(out, "%ld", o->line);
	if (o->section >= 0) {
		buf_adds(out, ", for [");
		rules_scope_text(r, o->section, out);
		buf_addc(out, ']');
	}
}
