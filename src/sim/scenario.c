/* scenario.c — the scenario table. Every scenario is one host (esx01) running SQL01, a Windows
 * SQL Server VM with C: (OS), D: (data), E: (log) and F: (tempdb) on their own LUNs unless the
 * scenario says otherwise, plus bystander VMs. Numbers follow doc/domain.md §1–§4: the LSI per-disk
 * limit of 32, PVSCSI 64, QLogic DQLEN 64 / Emulex 32, DSNRO 32, SIOC threshold 30 ms. */
#include "scenario.h"

#include "build.h"
#include "hyperv.h"

#include <stdio.h>
#include <string.h>

/* ---- scenarios ---- */

static void build_healthy(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	sc_add_phase(s.d, 0.3, 0.7, 10, 5);
	sc_bystander(c, &h);
	sc_absent_all(c);
}

/* The ETL day of doc/domain.md §1: a thread pool reading 64 KiB extents from D: while loading rows
 * into the log (E:) and tempdb (F:). heavy = the seed's figures (migration), else a milder peak. */
static struct sc_sql etl_day(struct sim_config *c, enum sim_ctrl_kind kind, bool heavy, int day)
{
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", kind, SC_ARRAY_HYBRID, 1);
	struct sim_dev *dd = &c->dev[s.dev_d];
	dd->parallel = 100;
	/* SQL Server read-ahead: 64 KiB extents, 128 KiB when the scan is the whole day's work. */
	sc_set_load(s.d, 6, 8, 0.9, heavy ? 128 : 64, 8);
	sc_set_load(s.e, 1.5, 3, 0.02, 4, 60);
	double t0 = 0.2, t1 = 0.8;
	if (day == 1) {
		/* The day after: more rows to load, but the pool finishes sooner per row. */
		t0 = 0.15, t1 = 0.85;
	}
	double pop = heavy ? 254 : 200, think = heavy ? 70 : 45;
	sc_add_phase(s.d, t0, t1, pop, think);
	sc_add_phase(s.e, t0, t1, 24, 8);
	sc_add_phase(s.f, t0, t1, 24, 20);
	sc_bystander(c, &h);
	return s;
}

static void build_lsi_cap(struct sim_config *c, int part)
{
	(void)part;
	struct sc_sql s = etl_day(c, SIM_CTRL_LSI, false, 0);
	c->want_vscsistats = true;
	sc_expect(c, "queue.guest_vscsi_cap", "D:", "SQL01", 0.2, 0.8);
	sc_expect(c, "queue.guest_hidden", "D:", "SQL01", 0.2, 0.8);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", 0.2, 0.8);
	(void)s;
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.kernel", "queue.device_saturated", NULL);
}

static void build_pvscsi_after(struct sim_config *c, int part)
{
	(void)part;
	etl_day(c, SIM_CTRL_PVSCSI, false, 0);
	c->want_vscsistats = true;
	sc_absent_unrelated(c);
	sc_absent(c, "queue.guest_vscsi_cap", "queue.guest_hidden", "latency.kernel", "queue.device_saturated", NULL);
}

static void build_migration(struct sim_config *c, int part)
{
	/* vscsiStats of both days: the outstanding-IO pile at 32 before, more than 32 after (compare) */
	c->want_vscsistats = true;
	if (part == 0) {
		etl_day(c, SIM_CTRL_LSI, true, 0);
		sc_expect(c, "queue.guest_vscsi_cap", "D:", "SQL01", 0.2, 0.8);
		sc_expect(c, "queue.guest_hidden", "D:", "SQL01", 0.2, 0.8);
		sc_expect(c, "latency.guest_read", "D:", "SQL01", 0.2, 0.8);
		/* Checkpoint and lazy-writer writes to D: wait behind the same queue. */
		sc_expect(c, "latency.guest_write", "D:", "SQL01", 0.2, 0.8);
		sc_absent_unrelated(c);
		sc_absent(c, "latency.device", "latency.kernel", "queue.device_saturated", NULL);
	} else {
		etl_day(c, SIM_CTRL_PVSCSI, true, 1);
		sc_absent_unrelated(c);
		sc_absent(c, "queue.guest_vscsi_cap", "queue.guest_hidden", "latency.kernel", "queue.device_saturated",
		       "latency.guest_write", NULL);
	}
}

static void build_device_overcommit(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	/* tempdb and a second data file share the data LUN; the HBA is an Emulex with its default
	 * LUN depth of 32. Each disk keeps fewer than 32 IOs outstanding: the guest is not capped. */
	s.f->dev = s.dev_d;
	struct sim_vdisk *g = sc_add_vdisk(c, s.vm, s.ctrl, 4, s.dev_d, "G:", 4, 2048);
	sc_set_load(g, 4, 8, 0.7, 8, 8);
	sc_add_phase(g, 0.25, 0.75, 30, 0.1);
	c->dev[s.dev_d].dqlen = 32;
	c->dev[s.dev_d].s0_r = 1.0;
	c->dev[s.dev_d].s0_w = 0.6;
	sc_set_load(s.d, 6, 8, 0.7, 8, 8);
	sc_set_load(s.f, 2, 10, 0.5, 16, 16);
	sc_add_phase(s.d, 0.25, 0.75, 30, 0.1);
	sc_add_phase(s.f, 0.25, 0.75, 28, 0.1);
	sc_bystander(c, &h);
	sc_expect(c, "queue.device_saturated", c->dev[s.dev_d].naa, NULL, 0.25, 0.75);
	sc_expect(c, "latency.kernel", c->dev[s.dev_d].naa, NULL, 0.25, 0.75);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "queue.guest_vscsi_cap", "queue.guest_hidden", NULL);
}

static void build_backend(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_SLOW, 1);
	c->dev[s.dev_d].parallel = 5;
	sc_set_load(s.d, 4, 10, 0.8, 64, 8);
	sc_add_phase(s.d, 0.2, 0.8, 30, 6);
	c->want_vmklog = true;
	sc_bystander(c, &h);
	sc_expect(c, "latency.device", c->dev[s.dev_d].naa, NULL, 0.2, 0.8);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", 0.2, 0.8);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.kernel", "queue.device_saturated", "queue.guest_vscsi_cap", "queue.guest_hidden", NULL);
}

static void build_aqd(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	/* The array gives the LU 32 commands (less than the host's DQLEN of 64, doc/domain.md §2); another
	 * host keeps a few of them busy. */
	d->array_qdepth = 32;
	d->aqd = true;
	d->aqd_batch = 20000;
	d->bg_iops = 1800;
	d->bg_kib = 16;
	d->s0_r = 1.2;
	d->parallel = 80;
	sc_set_load(s.d, 6, 8, 0.8, 16, 8);
	sc_add_phase(s.d, 0.2, 0.8, 60, 0.3);
	c->want_vmklog = true;
	sc_bystander(c, &h);
	sc_expect(c, "throttle.adaptive_queue_depth", d->naa, NULL, 0.2, 0.8);
	sc_expect(c, "scsi.queue_full", d->naa, NULL, 0.2, 0.8);
	sc_absent(c, "throttle.sioc", "throttle.dsnro", "io.split", "align.partition_misaligned",
	       "queue.adapter_saturated", "queue.guest_vscsi_cap", NULL);
}

static void build_sioc(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->sioc = true;
	d->dsnro = 32;
	d->parallel = 16;
	d->bg_iops = 1500;
	d->bg_kib = 32;
	sc_add_bg_phase(d, 0.3, 0.8, 3.5);
	sc_set_load(s.d, 6, 8, 0.8, 32, 8);
	sc_add_phase(s.d, 0.25, 0.85, 64, 6);
	d->sioc_beta = 1;
	c->want_vmklog = true;
	sc_bystander(c, &h);
	sc_expect(c, "throttle.sioc", d->naa, NULL, 0.3, 0.8);
	sc_absent(c, "throttle.adaptive_queue_depth", "scsi.queue_full", "throttle.dsnro", "io.split",
	       "align.partition_misaligned", "errors.aborts_resets", "queue.adapter_saturated", NULL);
}

static void build_dsnro(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	c->dev[s.dev_d].s0_r = 0.8;
	c->dev[s.dev_d].s0_w = 0.5;
	sc_set_load(s.d, 30, 0.2, 0.7, 8, 8);
	/* SQL02 shares SQL01's data LUN; its nightly job runs in the middle of the capture. */
	int vm2 = sc_add_vm(c, "SQL02", "", 4);
	int k2 = sc_add_ctrl(c, vm2, 0, SIM_CTRL_PVSCSI);
	int d2c = sc_add_dev(c, h.hba3, 7, SC_ARRAY_FLASH);
	struct sim_vdisk *v2c = sc_add_vdisk(c, vm2, k2, 0, d2c, "C:", 0, 80);
	sc_set_load(v2c, 1, 60, 0.4, 16, 8);
	struct sim_vdisk *v2 = sc_add_vdisk(c, vm2, k2, 1, s.dev_d, "D:", 1, 1024);
	sc_set_load(v2, 0.05, 200, 0.7, 8, 8);
	sc_add_phase(v2, 0.35, 0.65, 30, 0.2);
	sc_bystander(c, &h);
	sc_expect(c, "throttle.dsnro", c->dev[s.dev_d].naa, NULL, 0.35, 0.65);
	sc_absent(c, "throttle.adaptive_queue_depth", "throttle.sioc", "scsi.queue_full", "io.split",
	       "align.partition_misaligned", "errors.aborts_resets", "queue.adapter_saturated", NULL);
}

/* A noisy neighbour: APP03's batch job lands on SQL01's data LUN (depth 32) and issues ~95 % of
 * its commands; the LUN's queue fills and SQL01's data disk waits behind it. */
static void build_neighbour(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	c->dev[s.dev_d].dqlen = 32;
	c->dev[s.dev_d].s0_r = 1.0;
	c->dev[s.dev_d].s0_w = 0.6;
	sc_set_load(s.d, 4, 8, 0.7, 8, 8);
	int vm2 = sc_add_vm(c, "APP03", "", 4);
	int k2 = sc_add_ctrl(c, vm2, 0, SIM_CTRL_PVSCSI);
	int d2c = sc_add_dev(c, h.hba3, 7, SC_ARRAY_FLASH);
	struct sim_vdisk *v2c = sc_add_vdisk(c, vm2, k2, 0, d2c, "C:", 0, 80);
	sc_set_load(v2c, 1, 60, 0.4, 16, 8);
	struct sim_vdisk *v2 = sc_add_vdisk(c, vm2, k2, 1, s.dev_d, "D:", 1, 1024);
	sc_set_load(v2, 0.05, 200, 0.7, 8, 8);
	sc_add_phase(v2, 0.3, 0.7, 96, 0.05);
	sc_bystander(c, &h);
	sc_expect(c, "queue.device_saturated", c->dev[s.dev_d].naa, NULL, 0.3, 0.7);
	sc_absent_unrelated(c);
	sc_absent(c, "latency.datastore", "queue.guest_vscsi_cap", "latency.device", NULL);
}

static void build_adapter(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	/* An HBA whose adapter queue is small for the eight busy LUNs behind it (8 x 64 = 512 vs 192). */
	c->adapter[h.hba2].aqlen = 192;
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	c->dev[s.dev_e].adapter = h.hba2;
	c->dev[s.dev_f].adapter = h.hba2;
	sc_add_phase(s.d, 0.2, 0.8, 30, 0.1);
	sc_add_phase(s.e, 0.2, 0.8, 30, 0.1);
	sc_add_phase(s.f, 0.2, 0.8, 30, 0.1);
	int vm2 = sc_add_vm(c, "SQL02", "", 8);
	int k2 = sc_add_ctrl(c, vm2, 0, SIM_CTRL_PVSCSI);
	for (int i = 0; i < 5; i++) {
		int d = sc_add_dev(c, h.hba2, 11 + i, SC_ARRAY_FLASH);
		char drive[4] = {(char)('D' + i), ':', 0};
		struct sim_vdisk *v = sc_add_vdisk(c, vm2, k2, i, d, drive, i, 500);
		sc_set_load(v, 3, 6, 0.7, 8, 8);
		sc_add_phase(v, 0.2, 0.8, 30, 0.1);
	}
	c->all_counters = true;
	sc_bystander(c, &h);
	sc_expect(c, "queue.adapter_saturated", "vmhba2", NULL, 0.2, 0.8);
	sc_absent(c, "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro", "scsi.queue_full", "io.split",
	       "align.partition_misaligned", "errors.aborts_resets", "queue.guest_vscsi_cap", NULL);
}

static void build_split(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_FLASH, 1);
	/* A fragmented backup/export file read with 1 MiB IOs: Windows splits a third of them,
	 * and PVSCSI splits every command above 512 KiB. */
	sc_set_load(s.d, 4, 10, 0.9, 1024, 64);
	sc_add_phase(s.d, 0.2, 0.8, 16, 12);
	s.d->split_frac = 0.35;
	s.d->vsplit_frac = 0.95;
	c->all_counters = true;
	sc_bystander(c, &h);
	c->vm[c->nvm - 1].powered_off_at = 0.9;
	sc_expect(c, "io.split", "D:", "SQL01", 0.2, 0.8);
	sc_absent(c, "align.partition_misaligned", "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro",
	       "scsi.queue_full", "errors.aborts_resets", "queue.adapter_saturated", NULL);
}

static void build_misaligned(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	/* D: was created under Windows 2003 (63 sectors) and carried over: every 64 KiB IO crosses a
	 * stripe boundary, so the array does two back-end IOs per guest IO. */
	s.d->part_offset = 32256;
	s.d->misalign = 2.0;
	sc_set_load(s.d, 8, 8, 0.75, 64, 64);
	sc_add_phase(s.d, 0.25, 0.75, 24, 8);
	c->want_partitions = true;
	sc_bystander(c, &h);
	sc_expect(c, "align.partition_misaligned", "D:", "SQL01", 0.0, 1.0);
	sc_absent(c, "io.split", "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro", "scsi.queue_full",
	       "errors.aborts_resets", "queue.adapter_saturated", NULL);
}

/* The guest's deep queue is the host's (issue 34): SQL01's D: on PVSCSI with MaxQueueDepth 254 keeps
 * ~84 IOs outstanding, all of them passed to the host: its LUN (DQLEN 32) holds 32 active and ~52
 * queued, so the guest's latency is the host's GAVG. The cause is the device queue, not the vSCSI
 * controller (doc/domain.md §2, §5: a guest queue the host holds is the host's queue seen from above). */
static void build_pvscsi_host_queue(struct sim_config *c, int part)
{
	(void)part;
	struct sc_host h = sc_host_base(c);
	struct sc_sql s = sc_sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, SC_ARRAY_HYBRID, 1);
	c->ctrl[s.ctrl].disk_limit = 254; /* MaxQueueDepth=254 [vmw KB 2053145] */
	c->ctrl[s.ctrl].adapter_limit = 1024;
	c->dev[s.dev_d].dqlen = 32;
	sc_set_load(s.d, 6, 8, 0.8, 8, 8);
	sc_add_phase(s.d, 0.2, 0.8, 85, 0.1);
	sc_bystander(c, &h);
	sc_expect(c, "queue.device_saturated", c->dev[s.dev_d].naa, NULL, 0.2, 0.8);
	sc_expect(c, "latency.kernel", c->dev[s.dev_d].naa, NULL, 0.2, 0.8);
	sc_absent_unrelated(c);
	sc_absent(c, "queue.guest_vscsi_cap", "queue.guest_hidden", "latency.device", NULL);
}

const struct sim_scenario sim_scenarios[] = {
	{.name = "healthy",
	 .summary = "OLTP plus a modest batch on PVSCSI and an all-flash array: nothing to find",
	 .nparts = 1, .build = build_healthy},
	{.name = "lsi-guest-queue-cap",
	 .summary = "ETL on LSI Logic SAS: per-disk vSCSI limit 32 pinned, high guest latency, host fine",
	 .nparts = 1, .build = build_lsi_cap},
	{.name = "pvscsi-after",
	 .summary = "the same ETL after moving the disks to PVSCSI: guest queue and latency fall",
	 .nparts = 1, .build = build_pvscsi_after},
	{.name = "device-queue-overcommit",
	 .summary = "two busy disks on one LUN of depth 32: ACTV=DQLEN, QUED>0, KAVG high, DAVG low",
	 .nparts = 1, .build = build_device_overcommit},
	{.name = "backend-saturated",
	 .summary = "array saturated: DAVG high, no kernel queueing (deeper queues would hurt)",
	 .nparts = 1, .build = build_backend},
	{.name = "adaptive-queue-depth",
	 .summary = "array LU queue full: QUEUE FULL, DQLEN halves then climbs +1, vmkernel.log",
	 .nparts = 1, .build = build_aqd},
	{.name = "sioc-throttle",
	 .summary = "Storage I/O Control throttles DQLEN smoothly while other hosts push DAVG to 30 ms",
	 .nparts = 1, .build = build_sioc},
	{.name = "dsnro-cap",
	 .summary = "a second VM becomes active on the LUN: DQLEN drops to DSNRO 32",
	 .nparts = 1, .build = build_dsnro},
	{.name = "noisy-neighbour",
	 .summary = "APP03's batch issues ~95 % of the commands of SQL01's data LUN (depth 32): the queue fills, SQL01 waits",
	 .nparts = 1, .build = build_neighbour},
	{.name = "adapter-overcommit",
	 .summary = "eight busy LUNs behind an HBA with AQLEN 192: sum of ACTV pinned at AQLEN",
	 .nparts = 1, .build = build_adapter},
	{.name = "split-io",
	 .summary = "1 MiB reads of a fragmented file: Windows Split IO/Sec and VMkernel split commands",
	 .nparts = 1, .build = build_split},
	{.name = "misaligned-partition",
	 .summary = "D: starts at 32256 bytes: two back-end IOs per guest IO (partitions.txt)",
	 .nparts = 1, .build = build_misaligned},
	{.name = "migration",
	 .summary = "the LSI->PVSCSI engagement of doc/domain.md section 1: before/ and after/ on two days",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = build_migration},
	/* ---- scenarios for compare, coverage and rules (scenario_next.c, doc/simulate.md) ---- */
	{.name = "peak-fixed",
	 .summary = "4 h pair, ETL in --busy-share of it: D: reads ~140 ms on LSI before, ~10 ms on PVSCSI after -> improved",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sc_build_peak_fixed,
	 .duration = 14400, .interval = 10, .width = 1, .busy_share = true},
	{.name = "peak-missed",
	 .summary = "as peak-fixed, but the after capture missed the ETL -> not comparable",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sc_build_peak_missed,
	 .duration = 14400, .interval = 10, .width = 1, .busy_share = true},
	{.name = "tail-worse",
	 .summary = "new array with a cache: median read 8x faster, but the 14 % ETL window ~23 -> ~235 ms -> regressed",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sc_build_tail_worse,
	 .duration = 14400, .interval = 10, .width = 1},
	{.name = "capacity-gain",
	 .summary = "after: 2.5x the IO in the busy phase at the same latency -> unchanged, capacity gain",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sc_build_capacity_gain,
	 .duration = 7200, .interval = 10, .width = 1},
	{.name = "worse-at-equal-load",
	 .summary = "same OLTP work, the disk moved to a capacity tier: reads ~4 -> ~28 ms -> regressed",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sc_build_worse_equal_load,
	 .duration = 3600, .interval = 5, .width = 1},
	{.name = "unchanged-pair",
	 .summary = "the null case: the same system captured twice (independent draws) -> unchanged",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sc_build_unchanged_pair,
	 .duration = 7200, .interval = 10, .width = 1},
	{.name = "length-pair",
	 .summary = "the same 1 h LSI ETL in a 2 h before and an 8 h after capture (busy 50 % vs 12.5 %) -> unchanged",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sc_build_length_pair,
	 .duration = 7200, .interval = 10, .width = 1},
	{.name = "window-pair",
	 .summary = "the same LSI ETL; the after capture started inside it and holds its last two thirds -> unchanged",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sc_build_window_pair,
	 .duration = 3600, .interval = 10, .width = 1},
	{.name = "rw-trade",
	 .summary = "array cache policy change: reads ~12 -> ~3 ms, writes ~1.7 -> ~9 ms -> mixed, nothing moved down",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sc_build_rw_trade,
	 .duration = 3600, .interval = 5, .width = 1},
	{.name = "too-short",
	 .summary = "10 s, 3 samples, array saturated: too short for the sustain rule -> no finding, not assessed",
	 .nparts = 1, .build = sc_build_too_short, .duration = 10, .interval = 3, .width = 1},
	{.name = "day-stall",
	 .summary = "24 h (esxtop 5 s, perfmon 15 s) of OLTP with one 4 s device stall -> clean",
	 .nparts = 1, .build = sc_build_day_stall, .duration = 86400, .interval = 5, .perf_interval = 15, .width = 1},
	{.name = "day-incident",
	 .summary = "the same day with one 20-minute array saturation of D: -> one episode",
	 .nparts = 1, .build = sc_build_day_incident, .duration = 86400, .interval = 5, .perf_interval = 15,
	 .width = 1},
	{.name = "incident-20min",
	 .summary = "1 h with a 20-minute array saturation of D: at 20-40 min",
	 .nparts = 1, .build = sc_build_incident, .duration = 3600, .interval = 5, .width = 1},
	{.name = "incident-20min-x10",
	 .summary = "the same 20 minutes in a 10 h capture (its first hour is byte-identical to incident-20min)",
	 .nparts = 1, .build = sc_build_incident, .duration = 36000, .interval = 5, .width = 1},
	{.name = "flicker",
	 .summary = "2 s latency spikes every 5-7 s: many samples above the thresholds, the average below -> clean",
	 .nparts = 1, .build = sc_build_flicker},
	{.name = "two-host-lu",
	 .summary = "esx01 and esx02 share one LU of queue 64 (ACTV sums above it): QUEUE FULL, AQD on both hosts",
	 .nparts = 1, .build = sc_build_two_host_lu},
	{.name = "sioc-flash",
	 .summary = "SIOC on flash: threshold = latency at 90 % of peak (~5 ms), DQLEN 64 -> ~25 smoothly, no QFULL",
	 .nparts = 1, .build = sc_build_sioc_flash},
	{.name = "nfs-datastore",
	 .summary = "SQL01's disks on NFS: Virtual Disk and NFS Volume latency ~40 ms on D:, no SCSI device",
	 .nparts = 1, .build = sc_build_nfs},
	{.name = "vsan-datastore",
	 .summary = "SQL01's disks on vSAN: Virtual Disk latency ~40 ms on D:, no device object at all",
	 .nparts = 1, .build = sc_build_vsan},
	{.name = "nfs-mixed",
	 .summary = "D: on a slow NFS datastore, the other disks on healthy FC LUNs",
	 .nparts = 1, .build = sc_build_nfs_mixed},
	{.name = "mixed-intervals",
	 .summary = "esxtop every 60 s, perfmon every 15 s, guest clock +0.35 s, DAVG ~22 ms on D:'s LUN",
	 .nparts = 1, .build = sc_build_mixed_intervals, .duration = 7200, .interval = 60, .perf_interval = 15},
	{.name = "path-failover",
	 .summary = "the active FC path dies: ~220 aborts in 6 s, 2 LUN resets, standby path takes over (-a, vmkernel.log)",
	 .nparts = 1, .build = sc_build_path_failover},
	{.name = "alua-failover",
	 .summary = "the active path dies and the LUN fails over to an ALUA non-optimised path: DAVG ~0.4 -> ~20 ms from then on",
	 .nparts = 1, .build = sc_build_alua_failover},
	{.name = "slow-hba",
	 .summary = "vmhba2 (its SFP or switch port) adds ~30 ms to every IO through it: its LUNs slow, vmhba3's fast",
	 .nparts = 1, .build = sc_build_slow_hba},
	{.name = "queue-depth-raised",
	 .summary = "two busy disks on a LUN of depth 32 until DQLEN is raised to 64 halfway: queue full before, not after",
	 .nparts = 1, .build = sc_build_queue_depth_raised},
	{.name = "unmap-storm",
	 .summary = "space reclamation on D:'s LUN at 40-70 %: Commands/s ~2,750 vs reads + writes ~1,300, DAVG 1 -> ~22 ms",
	 .nparts = 1, .build = sc_build_unmap_storm},
	{.name = "backup-large-io",
	 .summary = "nightly backup reads D: with 1 MiB IOs at ~27 ms: not a guest latency problem at that size",
	 .nparts = 1, .build = sc_build_backup_large_io},
	{.name = "log-disk-slow",
	 .summary = "E: (log) writes at ~8 ms on a synchronously replicated LUN: above the 5 ms log target",
	 .nparts = 1, .build = sc_build_log_disk_slow},
	{.name = "perfmon-total-only",
	 .summary = "the LSI ETL case with only LogicalDisk(_Total) in the perfmon (reads ~140 ms on _Total)",
	 .nparts = 1, .build = sc_build_total_only},
	{.name = "perfmon-no-disk",
	 .summary = "the LSI ETL case with no disk counters in the perfmon (or --perfmon-disks pct-time)",
	 .nparts = 1, .build = sc_build_no_disk_counters},
	{.name = "sql-log-wait-cpu",
	 .summary = "SQL log flush waits ~9 ms with the log disk at ~1 ms: CPU ready, not storage",
	 .nparts = 1, .build = sc_build_sql_log_cpu},
	{.name = "sql-log-wait-storage",
	 .summary = "SQL log flush waits follow E:'s writes (~40 ms under load): the array's write cache is off",
	 .nparts = 1, .build = sc_build_sql_log_storage},
	/* ---- Hyper-V hosts (hyperv.c): hyperv.csv from node HV01, perfmon.csv from SQL01 ---- */
	{.name = "hyperv-healthy",
	 .summary = "Hyper-V node HV01: SQL01 OLTP ~2,000 IOPS at ~1-2 ms on a CSV, two other VMs: nothing to find",
	 .nparts = 1, .build = sim_hv_build_healthy, .duration = 3600, .interval = 15},
	{.name = "hyperv-qos",
	 .summary = "Storage QoS maximum 500 on SQL01_D.vhdx at 20-40 min: normalized IOPS flat at 500, Latency ~60 ms, Lower Latency ~1 ms",
	 .nparts = 1, .build = sim_hv_build_qos, .duration = 3600, .interval = 15},
	{.name = "hyperv-csv-redirected",
	 .summary = "Volume2 left in redirected mode at 15-45 min: all its IO over SMB at ~18 ms, Disk 3 ~1 ms",
	 .nparts = 1, .build = sim_hv_build_csv_redirected, .duration = 3600, .interval = 15},
	{.name = "hyperv-noisy-neighbour",
	 .summary = "APP-02's batch drives ~90 % of Disk 2's IO: Disk 2 and every VHDX on Volume1 slow",
	 .nparts = 1, .build = sim_hv_build_noisy, .duration = 3600, .interval = 15},
	{.name = "hyperv-guest-queueing",
	 .summary = "a filter driver in SQL01 lets 4 IOs through: guest D: ~40 ms, SQL01_D.vhdx ~1 ms at the same IOPS",
	 .nparts = 1, .build = sim_hv_build_guest_queue, .duration = 3600, .interval = 15},
	{.name = "hyperv-vcpu-wait",
	 .summary = "two CPU-bound VMs oversubscribe HV01: SQL01's CPU Wait Time Per Dispatch ~170 us, guest latency up, VHDX flat",
	 .nparts = 1, .build = sim_hv_build_vcpu_wait, .duration = 3600, .interval = 15},
	{.name = "hyperv-host-only",
	 .summary = "hyperv-healthy's host capture alone (no guest perfmon): the guest layer is not assessed",
	 .nparts = 1, .build = sim_hv_build_host_only, .duration = 3600, .interval = 15},
	{.name = "hyperv-move-csv",
	 .summary = "SQL01_D.vhdx moved from busy Volume1 (~25 ms) to Volume2 (~2 ms), same OLTP -> improved",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = sim_hv_build_move_csv, .duration = 3600, .interval = 15},
	/* ---- links that change inside the capture ---- */
	{.name = "storage-vmotion",
	 .summary = "SQL01 D: is moved (Storage vMotion) from a slow LUN (DAVG ~21 ms) to a fast one halfway through",
	 .nparts = 1, .build = sc_build_storage_vmotion},
	{.name = "snapshot-amplification",
	 .summary = "a snapshot on SQL01 D: at 30-80 %: 2.2 back-end commands per guest IO, ~18 ms above a fast LUN",
	 .nparts = 1, .build = sc_build_snapshot_amplification},
	{.name = "alua-failover-guessed",
	 .summary = "alua-failover with C:'s LUN on D:'s LUN number: the paths are tied only by their activity",
	 .nparts = 1, .build = sc_build_alua_failover_guessed},
	{.name = "pvscsi-host-queue",
	 .summary = "PVSCSI MaxQueueDepth 254: ~84 IOs on D:, all at the host (ACTV 32 + QUED 52, DQLEN 32): device queue",
	 .nparts = 1, .build = build_pvscsi_host_queue},
	/* ---- memory as the cause, captures that do not belong together (issue 34) ---- */
	{.name = "guest-paging",
	 .summary = "SQL01 pages hard at 30-70 %: Available MBytes ~150, the paging is C:'s IO (its LUN slow): memory, not the array",
	 .nparts = 1, .build = sc_build_guest_paging},
	{.name = "host-swap",
	 .summary = "the ESXi host (free ~900 MB) swaps SQL01 at 30-70 %: %SWPWT ~20 per vCPU, guest D: +12 ms, virtual disk ~1 ms",
	 .nparts = 1, .build = sc_build_host_swap},
	{.name = "perfmon-other-day",
	 .summary = "the LSI ETL host capture with a perfmon of SQL01 from the next day: the guest<->host link is not assessed",
	 .nparts = 1, .build = sc_build_perfmon_other_day},
	/* ---- beyond FC and SCSI (scenario_h36.c, issue 36) ---- */
	{.name = "iscsi-vmknic",
	 .summary = "software iSCSI vmhba64 over two vmknics: every LUN's C1 path ~30 ms, its C0 path ~1 ms",
	 .nparts = 1, .build = sc_build_iscsi_vmknic},
	{.name = "hba-line-rate",
	 .summary = "512 KiB export reads hold vmhba2 (8 Gb FC) flat at ~780 MiB/s for 40 min, DAVG ~0.7 -> ~20 ms, QUED 0",
	 .nparts = 1, .build = sc_build_hba_line_rate, .duration = 3600, .interval = 5},
	{.name = "oltp-470",
	 .summary = "null: a healthy OLTP at ~470 MiB/s of 8 KiB IOs on one HBA, ~0.5 ms: no bandwidth problem",
	 .nparts = 1, .build = sc_build_oltp_470},
	{.name = "coarse-300",
	 .summary = "esxtop -d 300 and 5-min perfmon over 4 h: D:'s LUN ~50 ms for ten minutes, two or three rows",
	 .nparts = 1, .build = sc_build_coarse_300, .duration = 14400, .interval = 300, .perf_interval = 300},
	{.name = "vnvme",
	 .summary = "SQL01's disks on a vNVMe controller (SQL01:nvme0:1); D:'s LUN ~25 ms over 30-80 %",
	 .nparts = 1, .build = sc_build_vnvme},
	{.name = "reservation-storm",
	 .summary = "snapshots on other hosts reserve D:'s LUN (no ATS): ~30 conflicts/s, +20 ms per command over 40-60 %",
	 .nparts = 1, .build = sc_build_reservation_storm},
	{.name = "striped-slow-member",
	 .summary = "SQL01's G: striped over disks 2-5 ('2 G:' .. '5 G:'): disk 4's LUN ~33 ms over 30-80 %, the others ~1 ms",
	 .nparts = 1, .build = sc_build_striped_slow_member},
	{.name = "spaces-slow-member",
	 .summary = "SQL01's F: a Storage Spaces space over 4 letterless pool disks: disk 4's LUN ~33 ms over 30-80 %",
	 .nparts = 1, .build = sc_build_spaces_slow_member},
	{.name = "striped-healthy",
	 .summary = "null: SQL01's G: striped over disks 2-5, evenly loaded, every member fast",
	 .nparts = 1, .build = sc_build_striped_healthy},
	{.name = NULL},
};

const struct sim_scenario *sim_scenario_find(const char *name)
{
	for (const struct sim_scenario *s = sim_scenarios; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}
