/* build.c — the building blocks scenarios are made of: adapters, LUNs with array presets, VMs,
 * vSCSI controllers, virtual disks with their workloads, and the truth (expected and absent
 * findings). Numbers follow doc/domain.md: QLogic DQLEN 64, DSNRO 32, LSI 32/128, PVSCSI 64/256. */
#include "build.h"
#include "kinds.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Bounded copy that tolerates overlapping storage (names are copied within one config). */
void sc_copy_str(char *dst, size_t n, const char *src)
{
	size_t len = strnlen(src, n - 1);
	memmove(dst, src, len);
	dst[len] = 0;
}

/* The add_* helpers stop at the table sizes (SIM_MAX_*): a scenario that needs more is a bug
 * caught by the tests (the entity is not added; the last one's index is returned). */
int sc_add_adapter(struct sim_config *c, const char *name, int aqlen, bool local)
{
	if (c->nadapter >= SIM_MAX_ADAPTER)
		return c->nadapter - 1;
	struct sim_adapter *a = &c->adapter[c->nadapter];
	snprintf(a->name, sizeof a->name, "%s", name);
	a->aqlen = aqlen;
	a->local = local;
	return c->nadapter++;
}

int sc_add_dev(struct sim_config *c, int adapter, int lun, enum sc_array kind)
{
	if (c->ndev >= SIM_MAX_DEV)
		return c->ndev - 1;
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
	case SC_ARRAY_FLASH:
		d->s0_r = 0.35, d->s0_w = 0.25, d->t_kib = 0.004, d->parallel = 48;
		break;
	case SC_ARRAY_HYBRID:
		d->s0_r = 4.0, d->s0_w = 0.6, d->t_kib = 0.012, d->parallel = 60;
		break;
	case SC_ARRAY_SLOW:
		d->s0_r = 6.0, d->s0_w = 1.2, d->t_kib = 0.03, d->parallel = 10;
		break;
	}
	return c->ndev++;
}

int sc_add_local_boot(struct sim_config *c, int adapter)
{
	int i = sc_add_dev(c, adapter, 0, SC_ARRAY_FLASH);
	struct sim_dev *d = &c->dev[i];
	char name[16];
	sc_copy_str(name, sizeof name, c->adapter[adapter].name);
	snprintf(d->naa, sizeof d->naa, "mpx.%s:C0:T0:L0", name);
	d->local = true;
	d->dqlen = 32;
	d->dsnro = 0;
	return i;
}

int sc_add_vm(struct sim_config *c, const char *name, const char *guest, int vcpus)
{
	if (c->nvm >= SIM_MAX_VM)
		return c->nvm - 1;
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

int sc_add_ctrl(struct sim_config *c, int vm, int bus, enum sim_ctrl_kind kind)
{
	if (c->nctrl >= SIM_MAX_CTRL)
		return c->nctrl - 1;
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

struct sim_vdisk *sc_add_vdisk(struct sim_config *c, int vm, int ctrl, int target, int dev,
				   const char *drive, int disk_no, double size_gb)
{
	if (c->nvdisk >= SIM_MAX_VDISK)
		return &c->vdisk[c->nvdisk - 1];
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

void sc_set_load(struct sim_vdisk *v, double pop, double think_ms, double read_frac, double rkib, double wkib)
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

void sc_add_phase(struct sim_vdisk *v, double t0, double t1, double pop, double think_ms)
{
	struct sim_load *l = &v->load;
	if (l->nphase < SIM_MAX_PHASE)
		l->phase[l->nphase++] = (struct sim_phase){t0, t1, pop, think_ms, false};
}

void sc_add_bg_phase(struct sim_dev *d, double t0, double t1, double mult)
{
	if (d->nbg_phase < SIM_MAX_PHASE)
		d->bg_phase[d->nbg_phase++] = (struct sim_phase){t0, t1, mult, 1, false};
}

void sc_expect(struct sim_config *c, const char *kind, const char *entity, const char *host, double t0,
		   double t1)
{
	if (c->nexpect >= SIM_MAX_EXPECT)
		return;
	struct sim_expect *e = &c->expect[c->nexpect++];
	e->kind = kind;
	sc_copy_str(e->entity, sizeof e->entity, entity);
	snprintf(e->host, sizeof e->host, "%s", host ? host : "");
	e->t0 = t0;
	e->t1 = t1;
}

/* sc_absent(c, "kind", ..., NULL) */
void sc_absent(struct sim_config *c, ...)
{
	va_list ap;
	va_start(ap, c);
	for (const char *k; (k = va_arg(ap, const char *));) {
		int i = kind_find(k);
		if (i >= 0)
			c->absent |= UINT64_C(1) << i;
	}
	va_end(ap);
}

/* sim_config.absent has a bit per kind */
_Static_assert(K_COUNT >= 1 && K_COUNT <= 64, "sim_config.absent holds 64 kinds: make it a bitset");

void sc_absent_all(struct sim_config *c)
{
	c->absent = ~UINT64_C(0) >> (64 - K_COUNT);
}

/* Kinds that need a cause no scenario but their own produces. */
void sc_absent_unrelated(struct sim_config *c)
{
	sc_absent(c, "throttle.adaptive_queue_depth", "throttle.sioc", "throttle.dsnro", "scsi.queue_full",
	       "io.split", "align.partition_misaligned", "errors.aborts_resets", "queue.array_overcommit",
	       "queue.adapter_saturated", NULL);
}

/* The common host: a local boot device on vmhba0, two FC HBAs (vmhba2, vmhba3). */
struct sc_host sc_host_base(struct sim_config *c)
{
	struct sc_host h;
	snprintf(c->host, sizeof c->host, "esx01.lab.local");
	c->pcpus = 16;
	h.hba0 = sc_add_adapter(c, "vmhba0", 31, true);
	h.hba2 = sc_add_adapter(c, "vmhba2", 2048, false);
	h.hba3 = sc_add_adapter(c, "vmhba3", 2048, false);
	sc_add_local_boot(c, h.hba0);
	return h;
}

/* A bystander VM with its own LUN: light IO, no perfmon, a name with spaces and parentheses. */
void sc_bystander(struct sim_config *c, struct sc_host *h)
{
	int vm = sc_add_vm(c, "APP02 (104c07ff-3663-44fb-9d89-a563c801611c)", "", 2);
	int k = sc_add_ctrl(c, vm, 0, SIM_CTRL_LSI);
	int d = sc_add_dev(c, h->hba3, 9, SC_ARRAY_FLASH);
	struct sim_vdisk *v = sc_add_vdisk(c, vm, k, 0, d, "C:", 0, 60);
	sc_set_load(v, 1, 40, 0.5, 16, 8);
}

/* SQL01's four disks (C: OS, D: data, E: log, F: tempdb), each on its own LUN. */
struct sc_sql sc_sql_vm(struct sim_config *c, struct sc_host *h, const char *name, enum sim_ctrl_kind kind,
			 enum sc_array data_array, int lun0)
{
	struct sc_sql s;
	s.vm = sc_add_vm(c, name, name, 8);
	s.ctrl = sc_add_ctrl(c, s.vm, 0, kind);
	s.dev_c = sc_add_dev(c, h->hba2, lun0, SC_ARRAY_FLASH);
	s.dev_d = sc_add_dev(c, h->hba2, lun0 + 1, data_array);
	s.dev_e = sc_add_dev(c, h->hba3, lun0 + 2, SC_ARRAY_FLASH);
	s.dev_f = sc_add_dev(c, h->hba3, lun0 + 3, SC_ARRAY_FLASH);
	s.c = sc_add_vdisk(c, s.vm, s.ctrl, 0, s.dev_c, "C:", 0, 100);
	s.d = sc_add_vdisk(c, s.vm, s.ctrl, 1, s.dev_d, "D:", 1, 2048);
	s.e = sc_add_vdisk(c, s.vm, s.ctrl, 2, s.dev_e, "E:", 2, 256);
	s.f = sc_add_vdisk(c, s.vm, s.ctrl, 3, s.dev_f, "F:", 3, 512);
	/* OLTP baseline: ~700 data IOPS of 8 KiB, a busy log, a little tempdb. */
	sc_set_load(s.c, 1, 80, 0.4, 16, 8);
	sc_set_load(s.d, 6, 8, 0.7, 8, 8);
	sc_set_load(s.e, 1.5, 3, 0.02, 4, 24);
	sc_set_load(s.f, 2, 10, 0.5, 64, 64);
	return s;
}

/* ---- helpers of the newer scenarios ---- */

void sc_add_phase_abs(struct sim_vdisk *v, double t0_s, double t1_s, double pop, double think_ms)
{
	struct sim_load *l = &v->load;
	if (l->nphase < SIM_MAX_PHASE)
		l->phase[l->nphase++] = (struct sim_phase){t0_s, t1_s, pop, think_ms, true};
}

void sc_add_svc_phase(struct sim_dev *d, double t0, double t1, double mult, double par_mult)
{
	if (d->nsvc_phase < SIM_MAX_PHASE)
		d->svc_phase[d->nsvc_phase++] = (struct sim_phase){t0, t1, mult, par_mult, false};
}

void sc_expect_abs(struct sim_config *c, const char *kind, const char *entity, const char *host, double t0_s,
		   double t1_s)
{
	int n = c->nexpect;
	sc_expect(c, kind, entity, host, t0_s, t1_s);
	if (c->nexpect > n)
		c->expect[n].abs_s = true;
}

int sc_add_devev(struct sim_config *c, int dev, enum sim_devev_kind kind, double t0_s, double t1_s, double add_ms)
{
	if (c->ndevev >= SIM_MAX_DEVEV)
		return -1;
	c->devev[c->ndevev] = (struct sim_dev_event){.dev = dev, .kind = kind, .t0_s = t0_s, .t1_s = t1_s, .add_ms = add_ms};
	return c->ndevev++;
}

void sc_add_host(struct sim_config *c, const char *name)
{
	if (c->nhost < 1)
		c->nhost = 1;
	if (c->nhost < SIM_MAX_HOST)
		snprintf(c->host_extra[c->nhost++ - 1], sizeof c->host_extra[0], "%s", name);
}

int sc_add_nas(struct sim_config *c, const char *datastore, enum sim_dev_kind kind, enum sc_array array)
{
	/* the LUN number only seeds the (unused) naa; the entity name is the datastore's */
	int d = sc_add_dev(c, 0, 60 + c->ndev, array);
	struct sim_dev *dv = &c->dev[d];
	snprintf(dv->naa, sizeof dv->naa, "%s", datastore);
	dv->kind = kind;
	dv->dqlen = 1024;       /* NFS.MaxQueueDepth is effectively unlimited since 6.x */
	dv->dsnro = 0;
	dv->k0 = 0.05;          /* NFS client / vSAN DOM client in the VMkernel */
	return d;
}
