/* scenario.c — the scenario table. Every scenario is one host (esx01) running SQL01, a Windows
 * SQL Server VM with C: (OS), D: (data), E: (log) and F: (tempdb) on their own LUNs unless the
 * scenario says otherwise, plus bystander VMs. Numbers follow DOMAIN.md §1–§4: the LSI per-disk
 * limit of 32, PVSCSI 64, QLogic DQLEN 64 / Emulex 32, DSNRO 32, SIOC threshold 30 ms. */
#include "sim/scenario.h"

#include "sim/build.h"

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

/* The ETL day of DOMAIN.md §1: a thread pool reading 64 KiB extents from D: while loading rows
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
	sc_absent_unrelated(c);
	sc_absent(c, "queue.guest_vscsi_cap", "queue.guest_hidden", "latency.kernel", "queue.device_saturated", NULL);
}

static void build_migration(struct sim_config *c, int part)
{
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
	/* The array gives the LU 32 commands (less than the host's DQLEN of 64, DOMAIN.md §2); another
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
	 .summary = "the LSI->PVSCSI engagement of DOMAIN.md section 1: before/ and after/ on two days",
	 .nparts = 2, .part_dir = {"before", "after"}, .build = build_migration},
	{.name = NULL},
};

const struct sim_scenario *sim_scenario_find(const char *name)
{
	for (const struct sim_scenario *s = sim_scenarios; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}
