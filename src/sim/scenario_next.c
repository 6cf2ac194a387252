/* scenario_next.c — the scenarios the next engine work needs (doc/simulate.md, "Scenarios for
 * compare, coverage and rules"): before/after pairs judged by their peak, captures that show only
 * part of the stack, long and short captures, flicker, a LUN shared by two hosts, SIOC on flash,
 * NFS and vSAN, mixed intervals, a path failover, IO-size and log-disk rules, and SQL Server's
 * own counters with a storage and a non-storage cause. Each writes its ground truth. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "kinds.h"

/* ---- shared pieces ---- */

/* A long capture needs no 0.1 s steps: service times stay far below any step (see model.c). */
static void long_steps(struct sim_config *c)
{
	c->dt = fmin(0.5, c->interval / 10);
}

/* Kinds none of the newer storage scenarios may produce unless they say so. */
static void absent_host_queues(struct sim_config *c)
{
	sc_absent(c, "latency.kernel", "queue.device_saturated", "queue.guest_vscsi_cap", "queue.guest_hidden", NULL);
}

/* The ETL day of doc/domain.md section 1 with the busy phase at [t0, t1]: a 254-thread pool reading
 * 128 KiB extents from D: (heavy, the migration's figures), loading the log (E:) and tempdb (F:);
 * an OLTP trickle the rest of the time. etl = false: the capture missed the ETL. */
static struct sc_sql etl_side(struct sim_config *c, enum sim_ctrl_kind kind, double t0, double t1, bool etl)
{
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", kind, SC_ARRAY_HYBRID, 1);
	c->dev[s.dev_d].parallel = 36;
	sc_set_load(s.d, 6, 8, 0.9, 128, 8);
	sc_set_load(s.e, 1.5, 3, 0.02, 4, 60);
	if (etl) {
		sc_add_phase(s.d, t0, t1, 254, 70);
		sc_add_phase(s.e, t0, t1, 24, 8);
		sc_add_phase(s.f, t0, t1, 24, 20);
	}
	sc_bystander(c, &h);
	c->sql_counters = true;
	long_steps(c);
	return s;
}

static void set_busy(struct sim_config *c, double t0, double t1)
{
	c->tx.busy = true;
	c->tx.busy_t0 = t0;
	c->tx.busy_t1 = t1;
}

static void etl_before_truth(struct sim_config *c, double t0, double t1)
{
	sc_expect(c, "queue.guest_vscsi_cap", "D:", "SQL01", t0, t1);
	sc_expect(c, "queue.guest_hidden", "D:", "SQL01", t0, t1);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", t0, t1);
	sc_expect(c, "latency.guest_write", "D:", "SQL01", t0, t1);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.kernel", "queue.device_saturated", NULL);
}

static void etl_after_truth(struct sim_config *c)
{
	sc_absent_unrelated(c);
	sc_absent(c, "queue.guest_vscsi_cap", "queue.guest_hidden", "latency.kernel", "queue.device_saturated",
		  "latency.guest_write", NULL);
}

/* ---- compare: pairs judged by their peak ---- */

/* The busy phase starts at 20 % of the capture and covers --busy-share of it (default 10 %). */
static double busy_share(const struct sim_config *c)
{
	return c->busy_share > 0 ? c->busy_share : 0.10;
}

void sc_build_peak_fixed(struct sim_config *c, int part)
{
	double t0 = 0.2, t1 = 0.2 + busy_share(c);
	etl_side(c, part == 0 ? SIM_CTRL_LSI : SIM_CTRL_PVSCSI, t0, t1, true);
	set_busy(c, t0, t1);
	if (part == 0) {
		etl_before_truth(c, t0, t1);
		return;
	}
	etl_after_truth(c);
	c->tx.cmp_outcome = "improved";
	c->tx.cmp_why = "the same ETL in the same window: guest D: reads ~140 ms before (LSI Logic SAS, 32 per disk "
			"pinned, IOs waiting in the guest) and ~10 ms after (PVSCSI) in the busy phase, with more work "
			"done; the idle rest of the day is the same on both sides, so the whole-capture median "
			"hardly moves when the busy share is small";
}

void sc_build_peak_missed(struct sim_config *c, int part)
{
	double t0 = 0.2, t1 = 0.2 + busy_share(c);
	etl_side(c, part == 0 ? SIM_CTRL_LSI : SIM_CTRL_PVSCSI, t0, t1, part == 0);
	if (part == 0) {
		set_busy(c, t0, t1);
		etl_before_truth(c, t0, t1);
		return;
	}
	etl_after_truth(c);
	c->tx.cmp_outcome = "not_comparable";
	c->tx.cmp_why = "the after capture missed the ETL: it holds only the OLTP trickle (its busiest samples are "
			"the before side's idle level), so it cannot show whether the busy phase got better";
}

/* Median better, tail worse. Both sides run the same OLTP load and the same ETL in the same 14 %
 * window on PVSCSI. Before: a hybrid array, ~6 ms reads, the ETL at ~23 ms. After: a new array
 * with a flash cache: OLTP reads hit the cache (~0.7 ms) but the ETL's scan does not fit in it,
 * every read misses (30x the service time on a tenth of the parallelism): the ETL waits ~235 ms. */
void sc_build_tail_worse(struct sim_config *c, int part)
{
	double t0 = 0.5, t1 = 0.64;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	sc_set_load(s.d, 6, 8, 0.8, 8, 8);
	/* 48 ETL threads: well below the LUN's 64, so the device queue never fills */
	sc_add_phase(s.d, t0, t1, 48, 6);
	s.d->load.read_kib = 64;
	if (part == 0) {
		d->parallel = 9.3;
	} else {
		/* the cache answers like flash; a miss goes to the small NL-SAS group behind it: 30x the
		 * service time on a tenth of the parallelism */
		d->s0_r = 0.4, d->s0_w = 0.3, d->t_kib = 0.004, d->parallel = 40;
		sc_add_svc_phase(d, t0, t1, 30, 0.1);
	}
	sc_bystander(c, &h);
	c->sql_counters = true;
	long_steps(c);
	set_busy(c, t0, t1);
	sc_absent_unrelated(c);
	absent_host_queues(c);
	sc_expect(c, "latency.device", d->naa, NULL, t0, t1);
	if (part == 0) {
		sc_expect(c, "latency.guest_read", "D:", "SQL01", t0, t1);
		return;
	}
	sc_expect(c, "latency.guest_read", "D:", "SQL01", t0, t1);
	c->tx.cmp_outcome = "regressed";
	c->tx.cmp_why = "regressed, not mixed: the median read got ~8x faster (the OLTP hours hit the new array's "
			"cache), but the ETL window, 14 % of the capture, went from ~23 ms to ~235 ms: p95/p99 and the "
			"time above 50 ms got worse, and the busy phase is what the change was meant to help";
}

/* 2.5x the work at the same latency: after, the array has 2.5x the back-end (parallelism) and
 * the application runs 2.5x the ETL threads; latency is unchanged, IOPS and queue lengths 2.5x. */
void sc_build_capacity_gain(struct sim_config *c, int part)
{
	double t0 = 0.3, t1 = 0.6;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->parallel = part == 0 ? 12 : 30;
	sc_set_load(s.d, 2, 8, 0.85, 32, 8);
	sc_add_phase(s.d, t0, t1, part == 0 ? 40 : 100, 20);
	sc_bystander(c, &h);
	c->sql_counters = true;
	long_steps(c);
	set_busy(c, t0, t1);
	sc_absent_unrelated(c);
	absent_host_queues(c);
	sc_absent(c, "latency.device", "latency.guest_read", "latency.guest_write", NULL);
	if (part == 1) {
		c->tx.cmp_outcome = "unchanged";
		c->tx.capacity_gain = 1;
		c->tx.cmp_why = "latency is the same in the busy phase (~8 ms) while the after side did 2.5x the IO; the "
				"queues are 2.5x longer only because of the load (Little's law): a capacity gain, not a "
				"latency change and not a regression";
	}
}

/* Same work, higher latency: after the change the disk lives on a capacity-tier datastore (a
 * small NL-SAS group: 16 ms per random read, 6 spindles). The OLTP pool thinks 300 ms between
 * IOs, so its rate barely depends on latency (equal load). */
void sc_build_worse_equal_load(struct sim_config *c, int part)
{
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	sc_set_load(s.d, 60, 300, 0.8, 8, 8);
	if (part == 1) {
		d->s0_r = 16, d->s0_w = 1.2, d->parallel = 6;
	}
	sc_bystander(c, &h);
	c->sql_counters = true;
	long_steps(c);
	sc_absent_unrelated(c);
	absent_host_queues(c);
	if (part == 0) {
		sc_absent(c, "latency.device", "latency.guest_read", "latency.guest_write", NULL);
		return;
	}
	sc_expect(c, "latency.device", d->naa, NULL, 0, 1);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", 0, 1);
	c->tx.cmp_outcome = "regressed";
	c->tx.cmp_why = "the same OLTP work (IOPS within 10 %) now waits ~28 ms instead of ~4 ms per read: the "
			"disk moved to a capacity-tier datastore";
}

/* The null case: the same system captured twice (the part number selects independent random
 * streams), with the same ETL window on both days. */
void sc_build_unchanged_pair(struct sim_config *c, int part)
{
	(void)part;
	double t0 = 0.3, t1 = 0.6;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	sc_set_load(s.d, 6, 8, 0.85, 32, 8);
	sc_add_phase(s.d, t0, t1, 40, 20);
	sc_add_phase(s.e, t0, t1, 6, 4);
	sc_bystander(c, &h);
	c->sql_counters = true;
	long_steps(c);
	set_busy(c, t0, t1);
	sc_absent_unrelated(c);
	absent_host_queues(c);
	if (part == 1) {
		c->tx.cmp_outcome = "unchanged";
		c->tx.cmp_why = "nothing changed between the captures: the same configuration and workload, "
				"independent random draws; every difference is noise";
	}
}

/* ---- compare: the same incident in captures of other lengths and windows, a read/write trade ---- */

static const char *const same_incident_why =
	"the same ETL on the same LSI Logic SAS configuration on both sides (~140 ms reads in the busy phase, the same "
	"work); the captures differ only in how much idle time around it they hold, which moves the whole capture's "
	"time above a band and its tail but not the busy phase or latency at equal load";

/* The same incident captured for different lengths: the ETL (peak-fixed's, on LSI Logic SAS) is the
 * middle half of the before capture (1 h of 2 h by default) and starts at the same offset in an
 * after capture four times as long (1 h of 8 h): 50 % against 12.5 % of the time busy. */
void sc_build_length_pair(struct sim_config *c, int part)
{
	double t0 = 0.25, t1 = 0.75;
	if (part == 1) {
		c->duration *= 4;
		t0 /= 4, t1 /= 4;
	}
	etl_side(c, SIM_CTRL_LSI, t0, t1, true);
	set_busy(c, t0, t1);
	etl_before_truth(c, t0, t1);
	if (part == 1) {
		c->tx.cmp_outcome = "unchanged";
		c->tx.cmp_why = same_incident_why;
	}
}

/* The same incident captured in another window: before, the ETL runs at 20-50 % of the capture;
 * the after capture was started late, inside the ETL, and holds its last two thirds (0-20 %). */
void sc_build_window_pair(struct sim_config *c, int part)
{
	double t0 = part == 0 ? 0.2 : 0.0, t1 = part == 0 ? 0.5 : 0.2;
	etl_side(c, SIM_CTRL_LSI, t0, t1, true);
	set_busy(c, t0, t1);
	etl_before_truth(c, t0, t1);
	if (part == 1) {
		c->tx.cmp_outcome = "unchanged";
		c->tx.cmp_why = same_incident_why;
	}
}

/* An array cache policy change and nothing else: the array gives its cache to writes no more
 * (write-through) and to reads instead. The same OLTP (40 users, 100 ms think time: a rate that
 * hardly depends on latency) on D: before and after; reads ~12 -> ~3 ms, writes ~1.7 -> ~9 ms. */
void sc_build_rw_trade(struct sim_config *c, int part)
{
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	sc_set_load(s.d, 40, 100, 0.6, 8, 8);
	if (part == 0)
		d->s0_r = 12, d->s0_w = 1.7;
	else
		d->s0_r = 3, d->s0_w = 9;
	sc_bystander(c, &h);
	c->sql_counters = true;
	long_steps(c);
	sc_absent_unrelated(c);
	absent_host_queues(c);
	if (part == 1) {
		c->tx.cmp_outcome = "mixed";
		c->tx.moved_down = 0;
		c->tx.cmp_why = "reads got faster (~12 -> ~3 ms) and writes slower (~1.7 -> ~9 ms) at the same work: "
				"mixed; the read gain is not set against the write loss, so nothing moved down a layer "
				"(the guest's writes rose with the device's, and no more IO is outstanding below)";
	}
}

/* ---- analyze: coverage, capture length, flicker ---- */

/* A small host for long captures: 8 PCPUs, SQL01 with 4 vCPUs, no bystander, no filler. */
static struct sc_sql small_host(struct sim_config *c, enum sc_array data)
{
	struct sc_host h = sc_host_base(c);
	c->pcpus = 8;
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, data, 1);
	c->vm[s.vm].vcpus = 4;
	c->sql_counters = true;
	c->tx.coverage = true;
	return s;
}

/* A slow LU in trouble for 20 minutes: a report job saturates D:'s LUN (backend-saturated's
 * numbers: DAVG 40-60 ms, no kernel queueing). */
static void slow_incident(struct sim_config *c, struct sc_sql *s, double t0_s, double t1_s)
{
	struct sim_dev *d = &c->dev[s->dev_d];
	d->parallel = 5;
	sc_set_load(s->d, 4, 10, 0.8, 8, 8);
	sc_add_phase_abs(s->d, t0_s, t1_s, 30, 6);
	s->d->load.read_kib = 64;
	sc_expect_abs(c, "latency.device", d->naa, NULL, t0_s, t1_s);
	sc_expect_abs(c, "latency.guest_read", "D:", "SQL01", t0_s, t1_s);
	sc_absent_unrelated(c);
	absent_host_queues(c);
}

/* Shorter than the sustain rule: 3 samples of 3 s with the array saturated all along. */
void sc_build_too_short(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_SLOW, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->parallel = 5;
	sc_set_load(s.d, 30, 6, 0.8, 64, 8);
	sc_bystander(c, &h);
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_absent_unrelated(c);
	absent_host_queues(c);
	/* 5 samples and 20 s are the default sustain rule (iopsy rules: sustain.*) */
	bool short_capture = c->duration < 20 || c->duration / c->interval < 5 || c->duration / c->perf_interval < 5;
	if (short_capture) {
		for (int k = 0; k < SIM_NLAYER; k++)
			c->tx.cov_override[k] = "not_assessed";
		c->tx.clean = 1;
		c->tx.note = "shorter than the sustain rule (5 samples, 20 s): nothing can be judged sustained, so "
			     "no finding and no all-clear; with --duration long enough the expectations apply";
		sc_absent(c, "latency.device", "latency.guest_read", "latency.guest_write", NULL);
		return;
	}
	sc_expect(c, "latency.device", d->naa, NULL, 0, 1);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", 0, 1);
}

/* Place an absolute time inside shorter test runs. */
static double at_or_within(const struct sim_config *c, double t_s, double frac)
{
	return fmin(t_s, frac * c->duration);
}

/* A day of OLTP with one 4-second stall of D:'s LUN (every command waits 400 ms more). */
void sc_build_day_stall(struct sim_config *c, int part)
{
	(void)part;
	struct sc_sql s = small_host(c, SC_ARRAY_HYBRID);
	long_steps(c);
	double t = at_or_within(c, 9 * 3600.0, 0.5);
	sc_add_devev(c, s.dev_d, SIM_DEVEV_STALL, t, t + 4, 400);
	sc_absent_all(c);
	c->tx.clean = 1;
	c->tx.note = "one 4 s stall in a day: one or two esxtop samples far above every threshold, nothing sustained";
}

/* The same day with one 20-minute problem at 14:00 into the capture. */
void sc_build_day_incident(struct sim_config *c, int part)
{
	(void)part;
	struct sc_sql s = small_host(c, SC_ARRAY_SLOW);
	long_steps(c);
	double t = at_or_within(c, 14 * 3600.0, 0.4);
	slow_incident(c, &s, t, t + 1200);
	c->tx.one_episode = 1;
}

/* The 20-minute problem at 20-40 minutes after the start; incident-20min-x10 is the same with a
 * 10x longer capture, bit for bit the same in the common first hour. */
void sc_build_incident(struct sim_config *c, int part)
{
	(void)part;
	struct sc_sql s = small_host(c, SC_ARRAY_SLOW);
	long_steps(c);
	double t = at_or_within(c, 1200, 0.5);
	slow_incident(c, &s, t, t + 1200);
	c->tx.one_episode = 1;
}

/* 2-second latency spikes every 5-7 s (checkpoint flushes): many samples above the thresholds,
 * the average below them, never five samples in a row. */
void sc_build_flicker(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	sc_set_load(s.d, 8, 8, 0.7, 8, 8);
	d->spike_add_ms = 30;
	d->spike_len_s = 2;
	d->spike_gap_lo_s = 5;
	d->spike_gap_hi_s = 7;
	sc_bystander(c, &h);
	c->sql_counters = true;
	c->tx.coverage = true;
	c->tx.clean = 1;
	sc_absent_all(c);
}

/* ---- rules across hosts and datastores ---- */

/* Two hosts, one array LU (same naa) with a 64-command queue; SQL01 on esx01 keeps ~25 IOs
 * outstanding, SQL02 on esx02 wants ~70. Together they overflow the LU: QUEUE FULL to both, and
 * adaptive queue depth halves DQLEN on both hosts at the same moments. */
void sc_build_two_host_lu(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->lu_group = 1;
	d->lu_qdepth = 64;
	d->aqd = true;
	d->aqd_batch = 3000;
	d->s0_r = 1.2;
	d->parallel = 80;
	sc_set_load(s.d, 6, 8, 0.8, 16, 8);
	sc_add_phase(s.d, 0.2, 0.8, 48, 0.5);
	sc_bystander(c, &h);

	sc_add_host(c, "esx02.lab.local");
	int hba0 = sc_add_adapter(c, "vmhba0", 31, true);
	int hba2 = sc_add_adapter(c, "vmhba2", 2048, false);
	int hba3 = sc_add_adapter(c, "vmhba3", 2048, false);
	c->adapter[hba0].host = c->adapter[hba2].host = c->adapter[hba3].host = 1;
	int boot = sc_add_local_boot(c, hba0);
	c->dev[boot].host = 1;
	int vm2 = sc_add_vm(c, "SQL02", "", 8);
	c->vm[vm2].host = 1;
	int k2 = sc_add_ctrl(c, vm2, 0, SIM_CTRL_PVSCSI);
	int d2c = sc_add_dev(c, hba2, 7, SC_ARRAY_FLASH);
	c->dev[d2c].host = 1;
	struct sim_vdisk *v2c = sc_add_vdisk(c, vm2, k2, 0, d2c, "C:", 0, 80);
	sc_set_load(v2c, 1, 60, 0.4, 16, 8);
	/* the same LU seen by esx02: same LUN number, so the same naa */
	int d2 = sc_add_dev(c, hba2, 2, SC_ARRAY_HYBRID);
	struct sim_dev *dd = &c->dev[d2];
	*dd = *d;
	dd->host = 1;
	dd->adapter = hba2;
	struct sim_vdisk *v2 = sc_add_vdisk(c, vm2, k2, 1, d2, "D:", 1, 2048);
	sc_set_load(v2, 4, 8, 0.8, 16, 8);
	sc_add_phase(v2, 0.2, 0.8, 80, 0.5);

	c->want_vmklog = true;
	c->sql_counters = true;
	c->tx.coverage = true;
	c->tx.array_lu_qdepth = 64;
	sc_expect(c, "throttle.adaptive_queue_depth", d->naa, "esx01.lab.local", 0.2, 0.8);
	sc_expect(c, "throttle.adaptive_queue_depth", d->naa, "esx02.lab.local", 0.2, 0.8);
	sc_expect(c, "scsi.queue_full", d->naa, NULL, 0.2, 0.8);
	sc_expect(c, "queue.array_overcommit", d->naa, NULL, 0.2, 0.8);
	sc_absent(c, "throttle.sioc", "throttle.dsnro", "io.split", "align.partition_misaligned",
		  "queue.adapter_saturated", "queue.guest_vscsi_cap", "errors.aborts_resets", NULL);
	c->tx.note = "neither host alone exceeds the LU queue: only the sum over both hosts' ACTV (same naa) "
		     "shows the over-commit";
}

/* SIOC on an all-flash LU: the congestion threshold is the latency at 90 % of peak throughput
 * (5.1+ automatic mode), a few ms here; other hosts' load pushes DAVG there and SIOC throttles
 * DQLEN smoothly. No QUEUE FULL; DAVG low in absolute terms, ~8x the LU's own baseline. */
void sc_build_sioc_flash(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->sioc = true;
	d->parallel = 8;
	d->bg_iops = 6000;
	d->bg_kib = 64;
	sc_add_bg_phase(d, 0.3, 0.8, 3.5);
	/* data and tempdb share the datastore: together they want more than the LUN's 64 */
	s.f->dev = s.dev_d;
	sc_set_load(s.d, 6, 8, 0.8, 16, 8);
	sc_add_phase(s.d, 0.25, 0.85, 48, 0.5);
	sc_set_load(s.f, 2, 10, 0.5, 16, 16);
	sc_add_phase(s.f, 0.25, 0.85, 48, 0.5);
	/* latency at 90 % of peak throughput of a processor-sharing LU: s / (1 - 0.9) */
	double s_mix = 0.6 * (d->s0_r + 56 * d->t_kib) + 0.4 * (d->s0_w + 56 * d->t_kib);
	d->sioc_ms = s_mix / (1 - 0.9);
	d->sioc_beta = 1;
	c->want_vmklog = true;
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_bystander(c, &h);
	sc_expect(c, "throttle.sioc", d->naa, NULL, 0.3, 0.8);
	sc_absent(c, "throttle.adaptive_queue_depth", "scsi.queue_full", "throttle.dsnro", "latency.device", "io.split",
		  "align.partition_misaligned", "errors.aborts_resets", "queue.adapter_saturated", NULL);
	c->tx.note = "the SIOC threshold here is the automatic one (latency at 90 % of peak throughput), a few "
		     "ms on flash, not 30 ms; advice must not be to raise DQLEN (SIOC sets it)";
}

/* SQL01's disks on a file or object datastore: guest and Virtual Disk latency ~40 ms on D: in
 * the busy phase, and no SCSI device behind the disk. mixed: only D: is there; C:, E:, F: keep
 * their FC LUNs. */
static void nas_vm(struct sim_config *c, enum sim_dev_kind kind, bool mixed)
{
	struct sc_host h = sc_host_base(c);
	const char *data = kind == SIM_DEV_NFS ? "NFS_SQL_DATA" : "vsanDatastore";
	struct sc_sql s;
	if (mixed) {
		s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
		int ds = sc_add_nas(c, data, kind, SC_ARRAY_HYBRID);
		s.d->dev = ds;
		/* D:'s old LUN stays presented to the host, idle */
		s.dev_d = ds;
	} else {
		s.vm = sc_add_vm(c, "SQL01", "SQL01", 8);
		s.ctrl = sc_add_ctrl(c, s.vm, 0, SIM_CTRL_PVSCSI);
		int ds = sc_add_nas(c, data, kind, SC_ARRAY_HYBRID);
		int logds = kind == SIM_DEV_NFS ? sc_add_nas(c, "NFS_SQL_LOG", kind, SC_ARRAY_FLASH) : ds;
		s.dev_c = s.dev_d = s.dev_f = ds;
		s.dev_e = logds;
		s.c = sc_add_vdisk(c, s.vm, s.ctrl, 0, ds, "C:", 0, 100);
		s.d = sc_add_vdisk(c, s.vm, s.ctrl, 1, ds, "D:", 1, 2048);
		s.e = sc_add_vdisk(c, s.vm, s.ctrl, 2, logds, "E:", 2, 256);
		s.f = sc_add_vdisk(c, s.vm, s.ctrl, 3, ds, "F:", 3, 512);
		sc_set_load(s.c, 1, 80, 0.4, 16, 8);
		sc_set_load(s.e, 1.5, 3, 0.02, 4, 24);
		sc_set_load(s.f, 2, 10, 0.5, 64, 64);
	}
	c->dev[s.dev_d].parallel = 4;   /* an overloaded filer head / a small vSAN disk group */
	sc_set_load(s.d, 6, 8, 0.8, 32, 8);
	sc_add_phase(s.d, 0.2, 0.8, 40, 6);
	sc_bystander(c, &h);
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_expect(c, "latency.guest_read", "D:", "SQL01", 0.2, 0.8);
	/* the host-side evidence: D:'s virtual disk, on a datastore with no SCSI device */
	sc_expect(c, "latency.datastore", "SQL01:scsi0:1", NULL, 0.2, 0.8);
	/* tempdb shares the slow datastore unless only D: moved */
	if (!mixed)
		sc_expect(c, "latency.guest_read", "F:", "SQL01", 0.2, 0.8);
	sc_absent_unrelated(c);
	absent_host_queues(c);
	sc_absent(c, "latency.device", NULL);
}

void sc_build_nfs(struct sim_config *c, int part)
{
	(void)part;
	nas_vm(c, SIM_DEV_NFS, false);
	c->tx.note = "the host-side evidence is Physical Disk NFS Volume(NFS_SQL_DATA) Average Guest MilliSec/Command "
		     "~ the guest's latency; there is no SCSI device (DAVG/KAVG) for these disks";
}

void sc_build_vsan(struct sim_config *c, int part)
{
	(void)part;
	nas_vm(c, SIM_DEV_VSAN, false);
	c->tx.note = "vSAN: the only host-side evidence is Virtual Disk(SQL01:scsi0:1); no device object belongs "
		     "to the disk";
}

void sc_build_nfs_mixed(struct sim_config *c, int part)
{
	(void)part;
	nas_vm(c, SIM_DEV_NFS, true);
	c->tx.note = "D: is on NFS and slow; C:, E:, F: and APP02 are on healthy FC LUNs: a healthy LUN must not be "
		     "blamed, nor taken as proof that storage is fine";
}

/* esxtop every 60 s, perfmon every 15 s over the same two hours; the guest clock is 0.35 s
 * ahead of the host's; D:'s LUN answers in ~21 ms (a busy hybrid array), the guest's reads ~25 ms. */
void sc_build_mixed_intervals(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->parallel = 8.4;
	sc_set_load(s.d, 6, 8, 0.8, 8, 8);
	sc_add_phase(s.d, 0.15, 0.85, 80, 20);
	s.d->load.read_kib = 32;
	sc_bystander(c, &h);
	c->vm[s.vm].clock_offset_s = 0.35;
	c->vm[s.vm].clock_fixed = true;
	c->tx.clock = true;
	c->sql_counters = true;
	c->tx.coverage = true;
	long_steps(c);
	sc_expect(c, "latency.device", d->naa, NULL, 0.15, 0.85);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", 0.15, 0.85);
	sc_absent_unrelated(c);
	absent_host_queues(c);
}

/* A path failover: the active FC path of D:'s LUN dies; for 6 s commands hang (1 s each), are
 * aborted and retried (~220 aborts: ACTV per second), the LUN is reset twice, then the standby path takes over.
 * esxtop -a (Aborts/sec, Resets/sec) and vmkernel.log. */
void sc_build_path_failover(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->standby_adapter = h.hba3;
	sc_set_load(s.d, 40, 4, 0.8, 16, 8);
	double t0 = floor(0.5 * c->duration) + 0.35;
	sc_add_devev(c, s.dev_d, SIM_DEVEV_FAILOVER, t0, t0 + 6, 1000);
	sc_bystander(c, &h);
	c->all_counters = true;
	c->want_vmklog = true;
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_expect_abs(c, "errors.aborts_resets", d->naa, NULL, t0, t0 + 6);
	sc_absent(c, "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro", "scsi.queue_full", "io.split",
		  "align.partition_misaligned", "queue.adapter_saturated", "latency.device", "latency.guest_read",
		  "latency.guest_write", NULL);
	absent_host_queues(c);
	c->tx.note = "a 6 s outage: the aborts and resets are the finding; the latency spike is too short to be "
		     "a sustained latency finding";
}

/* The failover of path-failover, but the standby path leads to the array's other controller (ALUA
 * active/non-optimised): after the switch the LUN answers through the slower path (DAVG ~0.4 -> ~20 ms) for the rest of
 * the capture (KB 1027963's sequence, then the array's internal hop). */
void sc_build_alua_failover(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->standby_adapter = h.hba3;
	d->standby_ano = true;
	sc_set_load(s.d, 40, 4, 0.8, 16, 8);
	double t0 = floor(0.4 * c->duration) + 0.35;
	sc_add_devev(c, s.dev_d, SIM_DEVEV_FAILOVER, t0, t0 + 6, 1000);
	sc_add_svc_phase(d, (t0 + 6) / c->duration, 1.0, 40, 1);
	sc_bystander(c, &h);
	c->all_counters = true;
	c->want_vmklog = true;
	sc_expect_abs(c, "path.change", d->naa, NULL, t0 + 6, c->duration);
	sc_expect_abs(c, "errors.aborts_resets", d->naa, NULL, t0, t0 + 6);
	sc_absent(c, "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro", "scsi.queue_full", "io.split",
		  "align.partition_misaligned", "queue.adapter_saturated", "latency.device", "latency.datastore", NULL);
	c->tx.note = "the standby path is non-optimised: DAVG steps up at the switch and stays up; the path change "
		     "is the cause, not the array's service time";
}

/* One HBA slow: vmhba2 (its SFP, cable or switch port) adds ~30 ms to every IO through it, so C:'s
 * and D:'s LUNs are slow while E:'s and F:'s through vmhba3 stay fast — one finding on the HBA, not
 * one per LUN. */
void sc_build_slow_hba(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	sc_set_load(s.c, 4, 20, 0.5, 8, 8);
	sc_set_load(s.d, 12, 8, 0.7, 8, 8);
	sc_add_svc_phase(&c->dev[s.dev_c], 0.3, 0.7, 100, 1);
	sc_add_svc_phase(&c->dev[s.dev_d], 0.3, 0.7, 100, 1);
	sc_bystander(c, &h);
	sc_expect(c, "latency.hba", c->adapter[h.hba2].name, NULL, 0.3, 0.7);
	sc_absent(c, "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro", "scsi.queue_full", "io.split",
		  "align.partition_misaligned", "queue.adapter_saturated", "latency.device", "latency.datastore", NULL);
	c->tx.note = "every LUN behind vmhba2 is slow, every LUN behind vmhba3 fast: the HBA's side of the fabric";
}

/* ---- changes inside the capture ---- */

/* Two busy disks on one LUN of depth 32 (device-queue-overcommit) until the administrator raises
 * the HBA LUN queue depth to 64 halfway through: the device queue was full before (ACTV = DQLEN,
 * QUED > 0), it is not after, and the LUN does more IO. A finding says the change and its time;
 * no advice says to raise the queue depth, which the capture shows was done and worked. */
void sc_build_queue_depth_raised(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	s.f->dev = s.dev_d;
	struct sim_dev *d = &c->dev[s.dev_d];
	d->dqlen = 32;
	d->s0_r = 1.0;
	d->s0_w = 0.6;
	sc_set_load(s.d, 6, 8, 0.7, 8, 8);
	sc_set_load(s.f, 2, 10, 0.5, 16, 16);
	sc_add_phase(s.d, 0.1, 0.9, 30, 0.1);
	sc_add_phase(s.f, 0.1, 0.9, 28, 0.1);
	double t = floor(0.5 * c->duration) + 0.5;
	sc_add_devev(c, s.dev_d, SIM_DEVEV_DQLEN, t, t, 64);
	sc_bystander(c, &h);
	sc_expect(c, "queue.device_saturated", d->naa, NULL, 0.1, 0.5);
	sc_expect_abs(c, "config.queue_depth_change", d->naa, NULL, t - 5, t + 5);
	sc_absent(c, "latency.device", "queue.guest_vscsi_cap", "throttle.adaptive_queue_depth", "throttle.sioc",
		  "throttle.dsnro", "scsi.queue_full", "queue.adapter_saturated", "errors.aborts_resets", NULL);
	c->tx.note = "DQLEN 32 -> 64 halfway: the device queue findings end there, the change is said with its time, "
		     "and no advice is to raise the queue depth";
}

/* Space reclamation runs on D:'s LUN from 40 to 70 %: ~1,450 UNMAP commands/s on top of ~1,300
 * reads and writes (Commands/s ~2,750), and the LUN answers ~20 ms slower meanwhile (DAVG 1 -> ~22
 * ms). The device latency finding must name the non-data commands as the likely cause. */
void sc_build_unmap_storm(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	sc_set_load(s.d, 24, 2, 0.7, 8, 8);
	double t0 = floor(0.4 * c->duration), t1 = floor(0.7 * c->duration);
	int k = sc_add_devev(c, s.dev_d, SIM_DEVEV_UNMAP, t0, t1, 20);
	if (k >= 0)
		c->devev[k].rate = 1450;
	sc_bystander(c, &h);
	c->tx.coverage = true;
	sc_expect_abs(c, "latency.device", c->dev[s.dev_d].naa, NULL, t0, t1);
	sc_absent(c, "queue.guest_vscsi_cap", "queue.guest_hidden", "throttle.adaptive_queue_depth", "throttle.sioc",
		  "throttle.dsnro", "scsi.queue_full", "queue.adapter_saturated", "errors.aborts_resets", "io.split",
		  "align.partition_misaligned", NULL);
	c->tx.note = "Commands/s well above Reads/s + Writes/s while DAVG rises: the device finding names UNMAP/ATS "
		     "(non-data commands) as the likely cause (not expressible as a kind)";
}

/* ---- IO size and the log disk ---- */

/* A nightly full backup reads D: with 1 MiB IOs at ~27 ms: normal for that size (PAL allows
 * 35 ms above 64 KiB); PVSCSI splits them (visible with --all-counters). */
void sc_build_backup_large_io(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->parallel = 11;
	/* the capture was taken around the backup window: D: does little else */
	sc_set_load(s.d, 0.2, 20, 0.98, 1024, 64);
	sc_add_phase(s.d, 0.1, 0.9, 8, 2);
	s.d->vsplit_frac = 0.95;
	sc_bystander(c, &h);
	c->want_vscsistats = true; /* its IO-length histogram: the backup's 1 MiB reads beside OLTP's 8 KiB */
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_absent_unrelated(c);
	/* real with --all-counters: neither expected nor absent */
	c->absent &= ~(UINT64_C(1) << kind_find("io.split"));
	absent_host_queues(c);
	sc_absent(c, "latency.guest_read", "latency.device", NULL);
	c->tx.note = "1 MiB reads at ~27 ms are throughput-bound, not slow (PAL: 35 ms above 64 KiB); DAVG ~25 ms "
		     "for the same reason: the device rule judges commands above 64 KiB by the same band";
}

/* E: (the log) writes at ~8 ms: the LUN is synchronously replicated to a second site, each write
 * waits for the remote array. Small IOs; the log target is 5 ms [seed]. */
void sc_build_log_disk_slow(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	struct sim_dev *e = &c->dev[s.dev_e];
	e->s0_w = 7.6;
	e->parallel = 64;
	sc_set_load(s.e, 2, 4, 0.02, 4, 16);
	sc_bystander(c, &h);
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_expect(c, "latency.guest_write", "E:", "SQL01", 0, 1);
	sc_absent_unrelated(c);
	absent_host_queues(c);
	sc_absent(c, "latency.device", "latency.guest_read", NULL);
	c->tx.sql_storage = 1;
	c->tx.sql_symptom = "log_flush_wait";
	c->tx.sql_cause = "log_disk_write_latency";
	c->tx.sql_disk = "E:";
	c->tx.where = "below_hba"; /* DAVG ~ the guest's 8 ms: under the device rule, but the whole wait */
	c->tx.sql_why = "Log write waits ~8 ms follow E:'s Avg. Disk sec/Write (~8 ms, synchronous replication); "
			"log writes should take <= 5 ms";
}

/* ---- perfmon without per-disk counters ---- */

void sc_build_total_only(struct sim_config *c, int part)
{
	(void)part;
	etl_side(c, SIM_CTRL_LSI, 0.2, 0.8, true);
	c->perf_disks = SIM_PDISKS_TOTAL;
	c->tx.coverage = true;
	sc_expect(c, "latency.guest_read", "_Total", "SQL01", 0.2, 0.8);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.kernel", "queue.device_saturated", NULL);
	c->tx.where = "untold"; /* no virtual disk is tied to _Total */
	c->tx.note = "only LogicalDisk(_Total): the guest's reads average ~140 ms, which disk cannot be said; a "
		     "finding on _Total (or a coverage gap) is right, an all-clear is wrong";
}

void sc_build_no_disk_counters(struct sim_config *c, int part)
{
	(void)part;
	etl_side(c, SIM_CTRL_LSI, 0.2, 0.8, true);
	if (c->perf_disks == SIM_PDISKS_ALL)
		c->perf_disks = SIM_PDISKS_NONE;
	c->tx.coverage = true;
	c->tx.clean = 1;
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.kernel", "queue.device_saturated", NULL);
	c->tx.note = "the LSI guest-queue problem is there but invisible: no disk latency counters in the perfmon "
		     "and nothing wrong on the host; the guest layer is not assessed, which is not an all-clear";
}

/* ---- SQL Server's counters ---- */

/* Log flush waits high, log disk at ~1 ms: SQL01's vCPUs wait for a physical CPU (%RDY ~18 per
 * vCPU on an over-committed host); each hand-off of a log flush waits for a vCPU. */
void sc_build_sql_log_cpu(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	c->dev[s.dev_e].s0_w = 0.9;
	sc_set_load(s.e, 3, 2, 0.02, 4, 16);
	c->vm[s.vm].ready_pct = 18;
	sc_bystander(c, &h);
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_absent_all(c);
	/* the VM's own CPU finding is the cause (%RDY ~18 per vCPU, co-stop ~3.6), the storage none */
	c->absent &= ~(UINT64_C(1) << K_CPU_CONTENTION);
	sc_expect(c, "cpu.contention", "SQL01", NULL, 0.0, 1.0);
	c->tx.sql_storage = 0;
	c->tx.sql_symptom = "log_flush_wait";
	c->tx.sql_cause = "cpu_ready";
	c->tx.sql_disk = "E:";
	c->tx.sql_why = "Log write waits ~9 ms while E: writes take ~1 ms: the rest is CPU scheduling (Group Cpu "
			"% Ready ~18 per vCPU, co-stop); storage does not explain the symptom";
}

/* Log flush waits high and the log disk is why: the array's write cache is off (a controller
 * battery fault), E:'s writes go to disk at ~13 ms, ~40 ms while the ETL loads rows. */
void sc_build_sql_log_storage(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	struct sim_dev *e = &c->dev[s.dev_e];
	e->s0_w = 9;
	e->t_kib = 0.05;
	e->parallel = 4;
	sc_set_load(s.e, 1.5, 3, 0.02, 4, 24);
	sc_add_phase(s.e, 0.2, 0.8, 16, 8);
	sc_bystander(c, &h);
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_expect(c, "latency.guest_write", "E:", "SQL01", 0.2, 0.8);
	sc_expect(c, "latency.device", e->naa, NULL, 0.2, 0.8);
	sc_absent_unrelated(c);
	absent_host_queues(c);
	c->tx.sql_storage = 1;
	c->tx.sql_symptom = "log_flush_wait";
	c->tx.sql_cause = "log_disk_write_latency";
	c->tx.sql_disk = "E:";
	c->tx.sql_why = "Log write waits and Log Flush Wait Time follow E:'s write latency (~40 ms in the load, the "
			"DAVG of its LUN): the array's write cache is off";
}

/* ---- links that change inside the capture (doc/io-path.md, links over time) ---- */

/* A Storage vMotion halfway: SQL01's D: runs on a LUN whose array is busy (DAVG ~21 ms) and is moved
 * to a fast LUN (E:'s adapter, LUN 7) at 50 %: its VM's world does D:'s IO to the first LUN, then to
 * the second. The virtual disk is tied to each LUN over its own time (a guess by IOPS shape); the
 * slow LUN is the cause of the guest's latency before the move, nothing is slow after it. */
void sc_build_storage_vmotion(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	int to = sc_add_dev(c, h.hba3, 7, SC_ARRAY_FLASH);
	struct sim_dev *d = &c->dev[s.dev_d];
	sc_add_svc_phase(d, 0.0, 1.0, 60, 1);
	sc_set_load(s.d, 8, 6, 0.7, 8, 8);
	double t = floor(0.5 * c->duration) + 0.5;
	s.d->move_dev = to + 1;
	s.d->move_at_s = t;
	sc_bystander(c, &h);
	c->tx.coverage = true;
	c->tx.links = true;
	sc_expect(c, "latency.device", d->naa, NULL, 0.05, 0.5);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", 0.05, 0.5);
	sc_absent_unrelated(c);
	sc_absent(c, "queue.guest_vscsi_cap", "queue.guest_hidden", "latency.datastore", "latency.vdisk_above_device",
		  NULL);
	c->tx.note = "D: is on the slow LUN until the move and on the fast one after it: each link holds over its own "
		     "time; the LUN before the move is where D:'s IO waited";
}

/* A snapshot from 30 to 80 %: SQL01's D: runs on its redo log, which sends the LUN 2.2 commands per
 * guest IO and adds ~18 ms above the device; the LUN itself stays fast. The virtual disk is tied to
 * its LUN with the amplification as evidence, and the latency added above the LUN is the finding. */
void sc_build_snapshot_amplification(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	/* many threads that mostly think: the IOPS barely drop with the redo log's latency (as an open
	 * load's would not), so only the ratio steps, not the disk's IOPS */
	sc_set_load(s.d, 100, 120, 0.7, 8, 8);
	s.d->load.wobble = 0.03;
	s.d->amp = 2.2;
	s.d->amp_t0_s = floor(0.3 * c->duration) + 0.5;
	s.d->amp_t1_s = floor(0.8 * c->duration) + 0.5;
	s.d->amp_add_ms = 18;
	sc_bystander(c, &h);
	c->tx.coverage = true;
	c->tx.links = true;
	sc_expect_abs(c, "latency.vdisk_above_device", "SQL01:scsi0:1", NULL, s.d->amp_t0_s, s.d->amp_t1_s);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.kernel", "queue.device_saturated", "queue.guest_vscsi_cap",
		  "queue.guest_hidden", "latency.datastore", NULL);
	c->tx.where = "places";
	c->tx.note = "a snapshot's redo log: 2.2 back-end commands per guest IO and ~18 ms above a fast LUN; the "
		     "amplification is evidence, the virtual disk (not the array) is where to look";
}

/* alua-failover where no path name gives its device and the sum by LUN number cannot tie them: C:'s
 * LUN has D:'s LUN number on another target, so the paths of that number add up to neither. Each of
 * D:'s paths carries all of its commands while it is active: tied by that (a guess), and the path
 * change is found as with paths tied by name. */
void sc_build_alua_failover_guessed(struct sim_config *c, int part)
{
	sc_build_alua_failover(c, part);
	for (int i = 0; i < c->ndev; i++)
		if (c->dev[i].lun == 1 && !c->dev[i].local) { /* C:'s LUN: D:'s number (2), another target */
			c->dev[i].lun = 2;
			c->dev[i].path_target = 2;
		}
	c->tx.links = true;
	c->tx.note = "the path change must not depend on how the paths were tied: here only by their activity";
}

/* ---- memory as the cause, and captures that do not belong together (issue 34) ---- */

/* SQL01 runs short of memory at 30-70 %: Windows pages hard (Available MBytes ~150, Pages Input/sec
 * in the thousands, the page file on C: ~65 % used); the paging is C:'s IO, 32 KiB reads on a LUN
 * of the hybrid array, which its latency follows. The cause is the memory, not the array. */
void sc_build_guest_paging(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	struct sim_dev *dc = &c->dev[s.dev_c];
	dc->s0_r = 4.0, dc->s0_w = 0.6, dc->t_kib = 0.012, dc->parallel = 6;
	sc_set_load(s.c, 1, 80, 0.85, 32, 64);
	sc_add_phase(s.c, 0.3, 0.7, 40, 1);
	c->vm[s.vm].paging_t0 = 0.3;
	c->vm[s.vm].paging_t1 = 0.7;
	sc_bystander(c, &h);
	c->sql_counters = true;
	c->tx.coverage = true;
	sc_expect(c, "memory.guest_paging", "SQL01", NULL, 0.3, 0.7);
	sc_absent_unrelated(c);
	sc_absent(c, "queue.guest_vscsi_cap", "cpu.contention", "memory.host_swap", NULL);
	c->tx.where = "places";
	c->tx.note =
	    "SQL01 pages hard at 30-70 % (Available MBytes ~150, Pages Input/sec ~thousands, page file on C: "
	    "~65 % used); C:'s latency and its LUN's DAVG are the paging's symptoms: the verdict names memory, "
	    "not the array";
}

/* The ESXi host is short of memory (Free MBytes ~900) and swaps SQL01 at 30-70 %: % Swap Wait ~20
 * per vCPU, each IO completion waits ~12 ms more in the guest while the virtual disks answer in
 * ~1 ms. The cause is the host's memory, not the guest's queue. */
void sc_build_host_swap(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	sc_set_load(s.d, 8, 4, 0.7, 8, 8);
	struct sim_vm *v = &c->vm[s.vm];
	v->swap_t0 = 0.3;
	v->swap_t1 = 0.7;
	v->swap_wait_pct = 20;
	v->swap_stall_ms = 12;
	c->host_free_mb = 900;
	sc_bystander(c, &h);
	c->tx.coverage = true;
	sc_expect(c, "memory.host_swap", "SQL01", NULL, 0.3, 0.7);
	sc_absent_unrelated(c);
	/* queue.guest_hidden may be found: its symptom, information (the guest waits, the host does not) */
	sc_absent(c, "latency.kernel", "queue.device_saturated", "queue.guest_vscsi_cap", "latency.device",
		  "cpu.contention", "memory.guest_paging", NULL);
	c->tx.where = "places";
	c->tx.note =
	    "the host swaps SQL01 at 30-70 % (%SWPWT ~20 per vCPU, free memory ~900 MB): guest D: waits ~12 ms "
	    "more while its virtual disk answers in ~1 ms; the verdict names the host's memory, not the guest";
}

/* The LSI-capped ETL host capture with a perfmon of SQL01 from the next day (its clock a day
 * ahead): nothing ties the guest to the host capture; the guest<->host link is not assessed, and
 * no sentence says every layer was seen. */
void sc_build_perfmon_other_day(struct sim_config *c, int part)
{
	(void)part;
	etl_side(c, SIM_CTRL_LSI, 0.2, 0.8, true);
	c->vm[0].clock_offset_s = 86400;
	c->vm[0].clock_fixed = true;
	c->tx.coverage = true;
	sc_absent_unrelated(c);
	/* no guest-vs-host finding: the captures do not overlap (the guest's own queue above the LSI
	 * limit may be said, from the guest alone) */
	sc_absent(c, "queue.guest_hidden", NULL);
	c->tx.where = "untold";
	c->tx.link = "not_assessed";
	c->tx.note =
	    "the perfmon is of the next day: the captures do not overlap, no guest disk follows a virtual disk; "
	    "the link between them is not assessed and the report must not say every layer was seen";
}
