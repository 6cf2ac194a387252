/* scenario.c — the scenario table. Every scenario is one host (esx01) running SQL01, a Windows
 * SQL Server VM with C: (OS), D: (data), E: (log) and F: (tempdb) on their own LUNs unless the
 * scenario says otherwise, plus bystander VMs. Numbers follow DOMAIN.md §1–§4: the LSI per-disk
 * limit of 32, PVSCSI 64, QLogic DQLEN 64 / Emulex 32, DSNRO 32, SIOC threshold 30 ms. */
#include "scenario.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---- building blocks ---- */

/* Bounded copy that tolerates overlapping storage (names are copied within one config). */
static void copy_str(char *dst, size_t n, const char *src)
{
	size_t len = strnlen(src, n - 1);
	memmove(dst, src, len);
	dst[len] = 0;
}

static int add_adapter(struct sim_config *c, const char *name, int aqlen, bool local)
{
	struct sim_adapter *a = &c->adapter[c->nadapter];
	snprintf(a->name, sizeof a->name, "%s", name);
	a->aqlen = aqlen;
	a->local = local;
	return c->nadapter++;
}

/* Array presets. */
enum array_kind { ARRAY_FLASH, ARRAY_HYBRID, ARRAY_SLOW };

static int add_dev(struct sim_config *c, int adapter, int lun, enum array_kind kind)
{
	struct sim_dev *d = &c->dev[c->ndev];
	memset(d, 0, sizeof *d);
	/* NAA ids depend only on the LUN number, so the two captures of a pair share them. */
	unsigned h = (unsigned)lun * 2654435761u ^ 0x5bd1e995u;
	snprintf(d->naa, sizeof d->naa, "naa.624a9370%08x%04x%012x", 0x8c1f4e2bu, 0x1100u + (unsigned)lun,
		 h & 0xffffffffu);
	d->adapter = adapter;
	d->lun = lun;
	d->path_target = 0;
	d->dqlen = 64;          /* QLogic default since vSphere 5 */
	d->dsnro = 32;
	d->k0 = 0.012;
	d->aqd_floor = 1;
	d->aqd_sample = 32;
	d->aqd_batch = 4000;
	d->sioc_ms = 30;
	d->sioc_beta = 2;
	d->sioc_bg_beta = 4;
	d->bg_kib = 16;
	d->bg_read_frac = 0.6;
	switch (kind) {
	case ARRAY_FLASH:
		d->s0_r = 0.35, d->s0_w = 0.25, d->t_kib = 0.004, d->parallel = 48;
		break;
	case ARRAY_HYBRID:
		d->s0_r = 4.0, d->s0_w = 0.6, d->t_kib = 0.012, d->parallel = 60;
		break;
	case ARRAY_SLOW:
		d->s0_r = 6.0, d->s0_w = 1.2, d->t_kib = 0.03, d->parallel = 10;
		break;
	}
	return c->ndev++;
}

static int add_local_boot(struct sim_config *c, int adapter)
{
	int i = add_dev(c, adapter, 0, ARRAY_FLASH);
	struct sim_dev *d = &c->dev[i];
	char name[16];
	copy_str(name, sizeof name, c->adapter[adapter].name);
	snprintf(d->naa, sizeof d->naa, "mpx.%s:C0:T0:L0", name);
	d->local = true;
	d->dqlen = 32;
	d->dsnro = 0;
	return i;
}

static int add_vm(struct sim_config *c, const char *name, const char *guest, int vcpus)
{
	int i = c->nvm;
	struct sim_vm *v = &c->vm[c->nvm++];
	memset(v, 0, sizeof *v);
	snprintf(v->name, sizeof v->name, "%s", name);
	snprintf(v->guest, sizeof v->guest, "%s", guest);
	/* World ids change when a VM is power-cycled: derive them from seed and part. */
	unsigned h = (unsigned)(c->seed * 2654435761u) ^ (unsigned)(c->part * 40503u) ^ (unsigned)(i * 977u);
	v->gid = 40000 + (int)(h % 20000) + i * 1200;
	v->wid = 2100000 + (int)((h >> 8) % 90000) * 10 + i * 97;
	v->vcpus = vcpus;
	v->clock_offset_s = 0;
	v->powered_off_at = 2.0;
	return i;
}

static int add_ctrl(struct sim_config *c, int vm, int bus, enum sim_ctrl_kind kind)
{
	struct sim_ctrl *k = &c->ctrl[c->nctrl];
	memset(k, 0, sizeof *k);
	k->vm = vm;
	k->bus = bus;
	k->kind = kind;
	if (kind == SIM_CTRL_LSI) {
		/* LSI Logic SAS: 32 per disk, 128 per adapter, not changeable; one emulation
		 * thread per adapter whose cost grows with transfer size. */
		k->disk_limit = 32, k->adapter_limit = 128;
		k->e0_ms = 0.25, k->e_kib_ms = 0.0015, k->serial = true;
	} else {
		k->disk_limit = 64, k->adapter_limit = 256;
		k->e0_ms = 0.015, k->e_kib_ms = 0.0002, k->serial = false;
	}
	return c->nctrl++;
}

static struct sim_vdisk *add_vdisk(struct sim_config *c, int vm, int ctrl, int target, int dev,
				   const char *drive, int disk_no, double size_gb)
{
	struct sim_vdisk *v = &c->vdisk[c->nvdisk++];
	memset(v, 0, sizeof *v);
	v->vm = vm;
	v->ctrl = ctrl;
	v->target = target;
	v->dev = dev;
	snprintf(v->drive, sizeof v->drive, "%s", drive);
	v->disk_no = disk_no;
	v->size_gb = size_gb;
	v->free_pct = 35;
	v->misalign = 1;
	v->part_offset = disk_no == 0 ? 105906176LL : 1048576LL;
	return v;
}

static void set_load(struct sim_vdisk *v, double pop, double think_ms, double read_frac, double rkib, double wkib)
{
	struct sim_load *l = &v->load;
	l->pop = pop;
	l->think_ms = think_ms;
	l->read_frac = read_frac;
	l->read_kib = rkib;
	l->write_kib = wkib;
	l->wobble = 0.25;
	l->nphase = 0;
}

static void add_phase(struct sim_vdisk *v, double t0, double t1, double pop, double think_ms)
{
	struct sim_load *l = &v->load;
	if (l->nphase < SIM_MAX_PHASE)
		l->phase[l->nphase++] = (struct sim_phase){t0, t1, pop, think_ms};
}

static void add_bg_phase(struct sim_dev *d, double t0, double t1, double mult)
{
	if (d->nbg_phase < SIM_MAX_PHASE)
		d->bg_phase[d->nbg_phase++] = (struct sim_phase){t0, t1, mult, 1};
}

static void expect(struct sim_config *c, const char *kind, const char *entity, const char *host, double t0,
		   double t1)
{
	if (c->nexpect >= SIM_MAX_EXPECT)
		return;
	struct sim_expect *e = &c->expect[c->nexpect++];
	e->kind = kind;
	copy_str(e->entity, sizeof e->entity, entity);
	snprintf(e->host, sizeof e->host, "%s", host ? host : "");
	e->t0 = t0;
	e->t1 = t1;
}

/* absent(c, "kind", ..., NULL) */
static void absent(struct sim_config *c, ...)
{
	va_list ap;
	va_start(ap, c);
	for (const char *k; (k = va_arg(ap, const char *));) {
		int i = sim_kind_index(k);
		if (i >= 0)
			c->absent |= 1u << i;
	}
	va_end(ap);
}

static void absent_all(struct sim_config *c)
{
	c->absent = (1u << sim_nkinds) - 1;
}

/* Kinds that need a cause no scenario but their own produces. */
static void absent_unrelated(struct sim_config *c)
{
	absent(c, "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro", "scsi.queue_full",
	       "io.split", "align.partition_misaligned", "errors.aborts_resets", "queue.array_overcommit",
	       "queue.adapter_saturated", NULL);
}

/* The common host: a local boot device on vmhba0, two FC HBAs (vmhba2, vmhba3). */
struct host {
	int hba0, hba2, hba3;
};

static struct host host_base(struct sim_config *c)
{
	struct host h;
	snprintf(c->host, sizeof c->host, "esx01.lab.local");
	c->pcpus = 16;
	h.hba0 = add_adapter(c, "vmhba0", 31, true);
	h.hba2 = add_adapter(c, "vmhba2", 2048, false);
	h.hba3 = add_adapter(c, "vmhba3", 2048, false);
	add_local_boot(c, h.hba0);
	return h;
}

/* A bystander VM with its own LUN: light IO, no perfmon, a name with spaces and parentheses. */
static void bystander(struct sim_config *c, struct host *h)
{
	int vm = add_vm(c, "APP02 (104c07ff-3663-44fb-9d89-a563c801611c)", "", 2);
	int k = add_ctrl(c, vm, 0, SIM_CTRL_LSI);
	int d = add_dev(c, h->hba3, 9, ARRAY_FLASH);
	struct sim_vdisk *v = add_vdisk(c, vm, k, 0, d, "C:", 0, 60);
	set_load(v, 1, 40, 0.5, 16, 8);
}

/* SQL01's four disks; returns the VM index. devs[] receives the LUN of C:, D:, E:, F:. */
struct sql {
	int vm, ctrl;
	struct sim_vdisk *c, *d, *e, *f;
	int dev_c, dev_d, dev_e, dev_f;
};

static struct sql sql_vm(struct sim_config *c, struct host *h, const char *name, enum sim_ctrl_kind kind,
			 enum array_kind data_array, int lun0)
{
	struct sql s;
	s.vm = add_vm(c, name, name, 8);
	s.ctrl = add_ctrl(c, s.vm, 0, kind);
	s.dev_c = add_dev(c, h->hba2, lun0, ARRAY_FLASH);
	s.dev_d = add_dev(c, h->hba2, lun0 + 1, data_array);
	s.dev_e = add_dev(c, h->hba3, lun0 + 2, ARRAY_FLASH);
	s.dev_f = add_dev(c, h->hba3, lun0 + 3, ARRAY_FLASH);
	s.c = add_vdisk(c, s.vm, s.ctrl, 0, s.dev_c, "C:", 0, 100);
	s.d = add_vdisk(c, s.vm, s.ctrl, 1, s.dev_d, "D:", 1, 2048);
	s.e = add_vdisk(c, s.vm, s.ctrl, 2, s.dev_e, "E:", 2, 256);
	s.f = add_vdisk(c, s.vm, s.ctrl, 3, s.dev_f, "F:", 3, 512);
	/* OLTP baseline: ~700 data IOPS of 8 KiB, a busy log, a little tempdb. */
	set_load(s.c, 1, 80, 0.4, 16, 8);
	set_load(s.d, 6, 8, 0.7, 8, 8);
	set_load(s.e, 1.5, 3, 0.02, 4, 24);
	set_load(s.f, 2, 10, 0.5, 64, 64);
	return s;
}

/* ---- scenarios ---- */

static void build_healthy(struct sim_config *c, int part)
{
	(void)part;
	struct host h = host_base(c);
	struct sql s = sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, ARRAY_FLASH, 1);
	add_phase(s.d, 0.3, 0.7, 10, 5);
	bystander(c, &h);
	absent_all(c);
}

/* The ETL day of DOMAIN.md §1: a thread pool reading 64 KiB extents from D: while loading rows
 * into the log (E:) and tempdb (F:). heavy = the seed's figures (migration), else a milder peak. */
static struct sql etl_day(struct sim_config *c, enum sim_ctrl_kind kind, bool heavy, int day)
{
	struct host h = host_base(c);
	struct sql s = sql_vm(c, &h, "SQL01", kind, ARRAY_HYBRID, 1);
	struct sim_dev *dd = &c->dev[s.dev_d];
	dd->parallel = 100;
	/* SQL Server read-ahead: 64 KiB extents, 128 KiB when the scan is the whole day's work. */
	set_load(s.d, 6, 8, 0.9, heavy ? 128 : 64, 8);
	set_load(s.e, 1.5, 3, 0.02, 4, 60);
	double t0 = 0.2, t1 = 0.8;
	if (day == 1) {
		/* The day after: more rows to load, but the pool finishes sooner per row. */
		t0 = 0.15, t1 = 0.85;
	}
	double pop = heavy ? 254 : 200, think = heavy ? 70 : 45;
	add_phase(s.d, t0, t1, pop, think);
	add_phase(s.e, t0, t1, 24, 8);
	add_phase(s.f, t0, t1, 24, 20);
	bystander(c, &h);
	return s;
}

static void build_lsi_cap(struct sim_config *c, int part)
{
	(void)part;
	struct sql s = etl_day(c, SIM_CTRL_LSI, false, 0);
	expect(c, "queue.guest_vscsi_cap", "D:", "SQL01", 0.2, 0.8);
	expect(c, "queue.guest_hidden", "D:", "SQL01", 0.2, 0.8);
	expect(c, "latency.guest_read", "D:", "SQL01", 0.2, 0.8);
	(void)s;
	absent_unrelated(c);
	absent(c, "latency.device", "latency.kernel", "queue.device_saturated", NULL);
}

static void build_pvscsi_after(struct sim_config *c, int part)
{
	(void)part;
	etl_day(c, SIM_CTRL_PVSCSI, false, 0);
	absent_unrelated(c);
	absent(c, "queue.guest_vscsi_cap", "queue.guest_hidden", "latency.kernel", "queue.device_saturated", NULL);
}

static void build_migration(struct sim_config *c, int part)
{
	if (part == 0) {
		etl_day(c, SIM_CTRL_LSI, true, 0);
		expect(c, "queue.guest_vscsi_cap", "D:", "SQL01", 0.2, 0.8);
		expect(c, "queue.guest_hidden", "D:", "SQL01", 0.2, 0.8);
		expect(c, "latency.guest_read", "D:", "SQL01", 0.2, 0.8);
		/* Checkpoint and lazy-writer writes to D: wait behind the same queue. */
		expect(c, "latency.guest_write", "D:", "SQL01", 0.2, 0.8);
		absent_unrelated(c);
		absent(c, "latency.device", "latency.kernel", "queue.device_saturated", NULL);
	} else {
		etl_day(c, SIM_CTRL_PVSCSI, true, 1);
		absent_unrelated(c);
		absent(c, "queue.guest_vscsi_cap", "queue.guest_hidden", "latency.kernel", "queue.device_saturated",
		       "latency.guest_write", NULL);
	}
}

static void build_device_overcommit(struct sim_config *c, int part)
{
	(void)part;
	struct host h = host_base(c);
	struct sql s = sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, ARRAY_FLASH, 1);
	/* tempdb and a second data file share the data LUN; the HBA is an Emulex with its default
	 * LUN depth of 32. Each disk keeps fewer than 32 IOs outstanding: the guest is not capped. */
	s.f->dev = s.dev_d;
	struct sim_vdisk *g = add_vdisk(c, s.vm, s.ctrl, 4, s.dev_d, "G:", 4, 2048);
	set_load(g, 4, 8, 0.7, 8, 8);
	add_phase(g, 0.25, 0.75, 30, 0.1);
	c->dev[s.dev_d].dqlen = 32;
	c->dev[s.dev_d].s0_r = 1.0;
	c->dev[s.dev_d].s0_w = 0.6;
	set_load(s.d, 6, 8, 0.7, 8, 8);
	set_load(s.f, 2, 10, 0.5, 16, 16);
	add_phase(s.d, 0.25, 0.75, 30, 0.1);
	add_phase(s.f, 0.25, 0.75, 28, 0.1);
	bystander(c, &h);
	expect(c, "queue.device_saturated", c->dev[s.dev_d].naa, NULL, 0.25, 0.75);
	expect(c, "latency.kernel", c->dev[s.dev_d].naa, NULL, 0.25, 0.75);
	absent_unrelated(c);
	absent(c, "latency.device", "queue.guest_vscsi_cap", "queue.guest_hidden", NULL);
}

static void build_backend(struct sim_config *c, int part)
{
	(void)part;
	struct host h = host_base(c);
	struct sql s = sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, ARRAY_SLOW, 1);
	c->dev[s.dev_d].parallel = 5;
	set_load(s.d, 4, 10, 0.8, 64, 8);
	add_phase(s.d, 0.2, 0.8, 30, 6);
	c->want_vmklog = true;
	bystander(c, &h);
	expect(c, "latency.device", c->dev[s.dev_d].naa, NULL, 0.2, 0.8);
	expect(c, "latency.guest_read", "D:", "SQL01", 0.2, 0.8);
	absent_unrelated(c);
	absent(c, "latency.kernel", "queue.device_saturated", "queue.guest_vscsi_cap", "queue.guest_hidden", NULL);
}

static void build_aqd(struct sim_config *c, int part)
{
	(void)part;
	struct host h = host_base(c);
	struct sql s = sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, ARRAY_HYBRID, 1);
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
	set_load(s.d, 6, 8, 0.8, 16, 8);
	add_phase(s.d, 0.2, 0.8, 60, 0.3);
	c->want_vmklog = true;
	bystander(c, &h);
	expect(c, "throttle.adaptive_queue_depth", d->naa, NULL, 0.2, 0.8);
	expect(c, "scsi.queue_full", d->naa, NULL, 0.2, 0.8);
	absent(c, "throttle.sioc", "throttle.dsnro", "io.split", "align.partition_misaligned",
	       "queue.adapter_saturated", "queue.guest_vscsi_cap", NULL);
}

static void build_sioc(struct sim_config *c, int part)
{
	(void)part;
	struct host h = host_base(c);
	struct sql s = sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, ARRAY_HYBRID, 1);
	struct sim_dev *d = &c->dev[s.dev_d];
	d->sioc = true;
	d->dsnro = 32;
	d->parallel = 16;
	d->bg_iops = 1500;
	d->bg_kib = 32;
	add_bg_phase(d, 0.3, 0.8, 3.5);
	set_load(s.d, 6, 8, 0.8, 32, 8);
	add_phase(s.d, 0.25, 0.85, 64, 6);
	d->sioc_beta = 1;
	c->want_vmklog = true;
	bystander(c, &h);
	expect(c, "throttle.sioc", d->naa, NULL, 0.3, 0.8);
	absent(c, "throttle.adaptive_queue_depth", "scsi.queue_full", "throttle.dsnro", "io.split",
	       "align.partition_misaligned", "errors.aborts_resets", "queue.adapter_saturated", NULL);
}

static void build_dsnro(struct sim_config *c, int part)
{
	(void)part;
	struct host h = host_base(c);
	struct sql s = sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, ARRAY_FLASH, 1);
	c->dev[s.dev_d].s0_r = 0.8;
	c->dev[s.dev_d].s0_w = 0.5;
	set_load(s.d, 30, 0.2, 0.7, 8, 8);
	/* SQL02 shares SQL01's data LUN; its nightly job runs in the middle of the capture. */
	int vm2 = add_vm(c, "SQL02", "", 4);
	int k2 = add_ctrl(c, vm2, 0, SIM_CTRL_PVSCSI);
	int d2c = add_dev(c, h.hba3, 7, ARRAY_FLASH);
	struct sim_vdisk *v2c = add_vdisk(c, vm2, k2, 0, d2c, "C:", 0, 80);
	set_load(v2c, 1, 60, 0.4, 16, 8);
	struct sim_vdisk *v2 = add_vdisk(c, vm2, k2, 1, s.dev_d, "D:", 1, 1024);
	set_load(v2, 0.05, 200, 0.7, 8, 8);
	add_phase(v2, 0.35, 0.65, 30, 0.2);
	bystander(c, &h);
	expect(c, "throttle.dsnro", c->dev[s.dev_d].naa, NULL, 0.35, 0.65);
	absent(c, "throttle.adaptive_queue_depth", "throttle.sioc", "scsi.queue_full", "io.split",
	       "align.partition_misaligned", "errors.aborts_resets", "queue.adapter_saturated", NULL);
}

static void build_adapter(struct sim_config *c, int part)
{
	(void)part;
	struct host h = host_base(c);
	/* An HBA whose adapter queue is small for the eight busy LUNs behind it (8 x 64 = 512 vs 192). */
	c->adapter[h.hba2].aqlen = 192;
	struct sql s = sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, ARRAY_FLASH, 1);
	c->dev[s.dev_e].adapter = h.hba2;
	c->dev[s.dev_f].adapter = h.hba2;
	add_phase(s.d, 0.2, 0.8, 30, 0.1);
	add_phase(s.e, 0.2, 0.8, 30, 0.1);
	add_phase(s.f, 0.2, 0.8, 30, 0.1);
	int vm2 = add_vm(c, "SQL02", "", 8);
	int k2 = add_ctrl(c, vm2, 0, SIM_CTRL_PVSCSI);
	for (int i = 0; i < 5; i++) {
		int d = add_dev(c, h.hba2, 11 + i, ARRAY_FLASH);
		char drive[4] = {(char)('D' + i), ':', 0};
		struct sim_vdisk *v = add_vdisk(c, vm2, k2, i, d, drive, i, 500);
		set_load(v, 3, 6, 0.7, 8, 8);
		add_phase(v, 0.2, 0.8, 30, 0.1);
	}
	c->all_counters = true;
	bystander(c, &h);
	expect(c, "queue.adapter_saturated", "vmhba2", NULL, 0.2, 0.8);
	absent(c, "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro", "scsi.queue_full", "io.split",
	       "align.partition_misaligned", "errors.aborts_resets", "queue.guest_vscsi_cap", NULL);
}

static void build_split(struct sim_config *c, int part)
{
	(void)part;
	struct host h = host_base(c);
	struct sql s = sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, ARRAY_FLASH, 1);
	/* A fragmented backup/export file read with 1 MiB IOs: Windows splits a third of them,
	 * and PVSCSI splits every command above 512 KiB. */
	set_load(s.d, 4, 10, 0.9, 1024, 64);
	add_phase(s.d, 0.2, 0.8, 16, 12);
	s.d->split_frac = 0.35;
	s.d->vsplit_frac = 0.95;
	c->all_counters = true;
	bystander(c, &h);
	c->vm[c->nvm - 1].powered_off_at = 0.9;
	expect(c, "io.split", "D:", "SQL01", 0.2, 0.8);
	absent(c, "align.partition_misaligned", "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro",
	       "scsi.queue_full", "errors.aborts_resets", "queue.adapter_saturated", NULL);
}

static void build_misaligned(struct sim_config *c, int part)
{
	(void)part;
	struct host h = host_base(c);
	struct sql s = sql_vm(c, &h, "SQL01", SIM_CTRL_PVSCSI, ARRAY_HYBRID, 1);
	/* D: was created under Windows 2003 (63 sectors) and carried over: every 64 KiB IO crosses a
	 * stripe boundary, so the array does two back-end IOs per guest IO. */
	s.d->part_offset = 32256;
	s.d->misalign = 2.0;
	set_load(s.d, 8, 8, 0.75, 64, 64);
	add_phase(s.d, 0.25, 0.75, 24, 8);
	c->want_partitions = true;
	bystander(c, &h);
	expect(c, "align.partition_misaligned", "D:", "SQL01", 0.0, 1.0);
	absent(c, "io.split", "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro", "scsi.queue_full",
	       "errors.aborts_resets", "queue.adapter_saturated", NULL);
}

const struct sim_scenario sim_scenarios[] = {
	{"healthy", "OLTP plus a modest batch on PVSCSI and an all-flash array: nothing to find", 1, {0}, build_healthy},
	{"lsi-guest-queue-cap", "ETL on LSI Logic SAS: per-disk vSCSI limit 32 pinned, high guest latency, host fine", 1,
	 {0}, build_lsi_cap},
	{"pvscsi-after", "the same ETL after moving the disks to PVSCSI: guest queue and latency fall", 1, {0},
	 build_pvscsi_after},
	{"device-queue-overcommit", "two busy disks on one LUN of depth 32: ACTV=DQLEN, QUED>0, KAVG high, DAVG low", 1,
	 {0}, build_device_overcommit},
	{"backend-saturated", "array saturated: DAVG high, no kernel queueing (deeper queues would hurt)", 1, {0},
	 build_backend},
	{"adaptive-queue-depth", "array LU queue full: QUEUE FULL, DQLEN halves then climbs +1, vmkernel.log", 1, {0},
	 build_aqd},
	{"sioc-throttle", "Storage I/O Control throttles DQLEN smoothly while other hosts push DAVG to 30 ms", 1, {0},
	 build_sioc},
	{"dsnro-cap", "a second VM becomes active on the LUN: DQLEN drops to DSNRO 32", 1, {0}, build_dsnro},
	{"adapter-overcommit", "eight busy LUNs behind an HBA with AQLEN 192: sum of ACTV pinned at AQLEN", 1, {0},
	 build_adapter},
	{"split-io", "1 MiB reads of a fragmented file: Windows Split IO/Sec and VMkernel split commands", 1, {0},
	 build_split},
	{"misaligned-partition", "D: starts at 32256 bytes: two back-end IOs per guest IO (partitions.txt)", 1, {0},
	 build_misaligned},
	{"migration", "the LSI->PVSCSI engagement of DOMAIN.md section 1: before/ and after/ on two days", 2,
	 {"before", "after"}, build_migration},
	{NULL, NULL, 0, {0}, NULL},
};

const struct sim_scenario *sim_scenario_find(const char *name)
{
	for (const struct sim_scenario *s = sim_scenarios; s->name; s++)
		if (strcmp(s->name, name) == 0)
			return s;
	return NULL;
}
