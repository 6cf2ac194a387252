/* check_iopath.c — the IO path graph (iopath.c) and what stands on it: each edge kind read from
 * the capture's identifiers, its correlation fallback, and no link where neither holds; the
 * neighbour on a shared LUN, one slow HBA, a path change; --disk keeping a disk's stack. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "analysis.h"
#include "memcap.h"
#include "suites.h"

void beyond_tcases(Suite *s); /* check_beyond.c */
void volume_tcases(Suite *s); /* check_volume.c */

/* Reads the host capture (and the guest's when g is not NULL) and runs the analysis, with filter
 * f (NULL: none). */
static void run(struct analysis *a, const struct mcol *h, int nh, const struct mcol *g, int ng, struct ent_filter *f)
{
	struct buf hb, gb, msgs;
	buf_init(&hb);
	buf_init(&gb);
	buf_init(&msgs);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	a->m.filter = f;
	memcap(&hb, false, "esx01", h, nh, 200, 2);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "esx.csv", hb.data, hb.len, &co), 0);
	if (g) {
		memcap(&gb, true, "SQL01", g, ng, 200, 2);
		ck_assert_int_eq(model_add_capture_mem(&a->m, "pm.csv", gb.data, gb.len, &co), 0);
	}
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_run(a, &o);
	buf_free(&hb);
	buf_free(&gb);
	buf_free(&msgs);
}

/* run() with a vmkernel.log (text) read first. */
static void run_vmk(struct analysis *a, const struct mcol *h, int nh, const char *vmk)
{
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	diag_init(&d, "vmkernel.log", -1);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	ck_assert_int_eq(vmklog_parse(&a->vmk, vmk, strlen(vmk), &d), 0);
	a->have_vmk = true;
	run(a, h, nh, NULL, 0, NULL);
	buf_free(&msgs);
}

static const struct finding *find_kind(const struct analysis *a, enum kind k, const char *entity)
{
	for (size_t i = 0; i < a->nf; i++)
		if (a->f[i].kind == k && (!entity || strcmp(a->f[i].entity, entity) == 0))
			return &a->f[i];
	return NULL;
}

static const struct iop_vdisk *vd(struct analysis *a, const char *name)
{
	const struct entity *v = model_find(&a->m, LAYER_VSCSI, name, NULL);
	ck_assert_ptr_nonnull(v);
	return iopath_vdisk(&a->iop, v);
}

/* APP03's batch issues most of naa.A's commands; SQL01's disk on the same LUN waits in its full
 * queue (rows 50-150). The LUN's own IOPS follow APP03's, not SQL01's. */
#define SHARED_LUN(vcpu)                                                                                          \
	{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {30, 20, 5}},                                      \
	{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", mc_pulse, {1.5, 14, 50, 150}},                     \
	{"Virtual Disk(APP03 (104c07ff-3663-44fb-9d89-a563c801611d):scsi0:1)\\Commands/sec", mc_wave, {900, 500, 13}}, \
	{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_wave, {930, 500, 13}},                             \
	{"Physical Disk SCSI Device(naa.A)\\Active Commands", mc_pulse, {10, 32, 50, 150}},                       \
	{"Physical Disk SCSI Device(naa.A)\\Queued Commands", mc_pulse, {0, 40, 50, 150}},                        \
	{"Physical Disk SCSI Device(naa.A)\\Device Q Depth", mc_konst, {32}},                                     \
	{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {1.2}},                  \
	{"Physical Disk Per-Device-Per-World(naa.A-1001)\\Commands/sec", mc_wave, {30, 20, 5}},                  \
	{"Physical Disk Per-Device-Per-World(naa.A-2002)\\Commands/sec", mc_wave, {900, 500, 13}},               \
	{vcpu ? "Vcpu(55:SQL01:1001:vmx)\\% Used" : "Memory\\Free MBytes", mc_konst, {5}},                        \
	{vcpu ? "Vcpu(66:APP03 (104c07ff-3663-44fb-9d89-a563c801611d):2002:vmx)\\% Used" : "Memory\\Kernel MBytes", \
	 mc_konst, {5}}

START_TEST(neighbour_read_from_the_capture)
{
	static const struct mcol h[] = {SHARED_LUN(1)};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 12, NULL, 0, NULL);
	/* the world's VM from Vcpu (a fact), the virtual disk on its VM's only LUN (a fact) */
	const struct iop_vdisk *s = vd(&a, "SQL01:scsi0:1");
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(s->back, BACK_LUN);
	ck_assert_str_eq(s->dev->name, "naa.A");
	ck_assert_int_eq(s->link.how, LINK_ID);
	ck_assert_str_eq(s->world->vm, "SQL01");
	ck_assert_int_eq(s->world->vm_link.how, LINK_ID);
	/* the stack says so too */
	struct topo_in ti = analysis_topo(&a);
	struct stack st;
	topology_stack(&ti, s->v, &st);
	ck_assert_ptr_eq(st.device, s->dev);
	ck_assert_int_eq(st.l_dev.how, LINK_ID);
	/* the queue finding names the neighbour and the VM that waits; no datastore is invented */
	const struct finding *f = find_kind(&a, K_Q_DEVICE_SATURATED, "naa.A");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(f->driver);
	ck_assert_str_eq(f->driver, "APP03");
	ck_assert_str_eq(f->victims, "SQL01");
	ck_assert(f->driver_share > 0.9);
	ck_assert_ptr_nonnull(strstr(f->load, "APP03 9"));
	ck_assert_ptr_nonnull(strstr(a.verdict, "APP03 issues"));
	ck_assert_ptr_null(find_kind(&a, K_LAT_DATASTORE, NULL));
	ck_assert_ptr_null(strstr(a.verdict, "NFS"));
	ck_assert_ptr_null(strstr(a.verdict, "vSAN"));
	analysis_free(&a);
}
END_TEST

START_TEST(neighbour_guessed_without_vcpu)
{
	static const struct mcol h[] = {SHARED_LUN(0)};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 12, NULL, 0, NULL);
	/* no Vcpu columns: the world that carries the disk is found by IOPS, and labelled so */
	const struct iop_vdisk *s = vd(&a, "SQL01:scsi0:1");
	ck_assert_int_eq(s->back, BACK_LUN);
	ck_assert_str_eq(s->dev->name, "naa.A");
	ck_assert_int_eq(s->link.how, LINK_CORR);
	ck_assert(s->link.r >= 0.8);
	ck_assert_int_eq(s->world->vm_link.how, LINK_CORR);
	const struct finding *f = find_kind(&a, K_Q_DEVICE_SATURATED, "naa.A");
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->driver, "APP03");
	ck_assert_ptr_nonnull(strstr(f->load, "guessed from IOPS"));
	analysis_free(&a);
}
END_TEST

/* The batch lasts the whole capture: no quiet time to compare SQL01's latency with, so it waits
 * with the LUN's own commands (its latency about DAVG + KAVG of the full queue). */
START_TEST(neighbour_over_the_whole_capture)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {30, 20, 5}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", mc_konst, {14}},
		{"Virtual Disk(APP03:scsi0:1)\\Commands/sec", mc_wave, {900, 500, 13}},
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_wave, {930, 500, 13}},
		{"Physical Disk SCSI Device(naa.A)\\Active Commands", mc_konst, {32}},
		{"Physical Disk SCSI Device(naa.A)\\Queued Commands", mc_konst, {40}},
		{"Physical Disk SCSI Device(naa.A)\\Device Q Depth", mc_konst, {32}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {1.2}},
		{"Physical Disk SCSI Device(naa.A)\\Average Kernel MilliSec/Command", mc_konst, {12}},
		{"Physical Disk Per-Device-Per-World(naa.A-1001)\\Commands/sec", mc_wave, {30, 20, 5}},
		{"Physical Disk Per-Device-Per-World(naa.A-2002)\\Commands/sec", mc_wave, {900, 500, 13}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
		{"Vcpu(66:APP03:2002:vmx)\\% Used", mc_konst, {5}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 13, NULL, 0, NULL);
	const struct finding *f = find_kind(&a, K_Q_DEVICE_SATURATED, "naa.A");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(f->driver);
	ck_assert_str_eq(f->driver, "APP03");
	ck_assert_str_eq(f->victims, "SQL01");
	analysis_free(&a);
}
END_TEST

/* A slow virtual disk no device carries: with per-world IO on the host's LUNs the capture shows it
 * on none of them; without per-world IO nothing ties it, and nothing is said to be NFS or vSAN. */
START_TEST(no_lun_shown_or_not_identified)
{
	static const struct mcol with_worlds[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", mc_konst, {40}},
		{"Virtual Disk(SQL01:scsi0:0)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Physical Disk SCSI Device(naa.C)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Physical Disk Per-Device-Per-World(naa.C-1001)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, with_worlds, 6, NULL, 0, NULL);
	ck_assert_int_eq(vd(&a, "SQL01:scsi0:0")->link.how, LINK_ID);
	const struct iop_vdisk *s = vd(&a, "SQL01:scsi0:1");
	ck_assert_int_eq(s->back, BACK_NOT_SHOWN);
	ck_assert_ptr_null(s->dev);
	const struct finding *f = find_kind(&a, K_LAT_DATASTORE, "SQL01:scsi0:1");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->summary, "none of its SCSI devices"));
	ck_assert_ptr_null(strstr(f->summary, "vSAN"));
	analysis_free(&a);

	static const struct mcol no_worlds[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", mc_konst, {40}},
		{"Physical Disk SCSI Device(naa.C)\\Commands/sec", mc_wave, {50, 30, 3}},
	};
	analysis_init(&a);
	run(&a, no_worlds, 3, NULL, 0, NULL);
	s = vd(&a, "SQL01:scsi0:1");
	ck_assert_int_eq(s->back, BACK_UNKNOWN);
	ck_assert_int_eq(s->link.how, LINK_NONE);
	f = find_kind(&a, K_LAT_DATASTORE, "SQL01:scsi0:1");
	ck_assert_ptr_nonnull(f);
	ck_assert(f->heuristic);
	ck_assert_ptr_nonnull(strstr(f->summary, "not identified"));
	ck_assert_ptr_null(strstr(f->summary, "vSAN"));
	ck_assert_ptr_null(strstr(f->summary, "NFS"));
	analysis_free(&a);
}
END_TEST

/* SQL01's C: on a LUN and its D: on an NFS volume, both driven by the same job: D:'s IOPS follow its
 * world's IO to C:'s LUN as well as the NFS volume's. The NFS volume carries it (a world's
 * per-device IO is of SCSI devices only), not "the only LUN its worlds do IO to". */
START_TEST(nfs_disk_of_a_vm_with_a_lun)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:0)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {40, 30, 3}},
		{"Physical Disk SCSI Device(naa.C)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Physical Disk Per-Device-Per-World(naa.C-1001)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Physical Disk NFS Volume(nfs_ds1)\\Commands/sec", mc_wave, {40, 30, 3}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 6, NULL, 0, NULL);
	const struct iop_vdisk *d = vd(&a, "SQL01:scsi0:1");
	ck_assert_int_eq(d->back, BACK_NFS);
	ck_assert_str_eq(d->dev->name, "nfs_ds1");
	ck_assert_int_eq(d->link.how, LINK_CORR);
	const struct iop_vdisk *c = vd(&a, "SQL01:scsi0:0");
	ck_assert_int_eq(c->back, BACK_LUN);
	ck_assert_str_eq(c->dev->name, "naa.C");
	analysis_free(&a);
}
END_TEST

/* Paths: named with their device (a fact), or plain runtime names whose commands add up to a
 * device's (a guess); the adapter always from the name. */
START_TEST(paths_by_name_and_by_sum)
{
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_wave, {200, 100, 3}},
		{"Physical Disk Adapter(vmhba2)\\Commands/sec", mc_wave, {600, 300, 7}},
		{"Physical Disk Path(naa.A-vmhba2:C0:T0:L1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk Path(vmhba2:C0:T0:L7)\\Commands/sec", mc_wave, {100, 50, 3}},
		{"Physical Disk Path(vmhba3:C0:T1:L7)\\Commands/sec", mc_wave, {100, 50, 3}},
		{"Physical Disk Path(vmhba3:C0:T1:L9)\\Commands/sec", mc_wave, {77, 10, 11}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 7, NULL, 0, NULL);
	ck_assert_uint_eq(a.iop.np, 4);
	int seen = 0;
	for (size_t i = 0; i < a.iop.np; i++) {
		const struct iop_path *p = &a.iop.p[i];
		if (strcmp(p->p->name, "naa.A-vmhba2:C0:T0:L1") == 0) {
			ck_assert_str_eq(p->adapter, "vmhba2");
			ck_assert_ptr_nonnull(p->adp);
			ck_assert_str_eq(p->dev->name, "naa.A");
			ck_assert_int_eq(p->link.how, LINK_ID);
			seen++;
		} else if (p->lun == 7) {
			ck_assert_str_eq(p->dev->name, "naa.B");
			ck_assert_int_eq(p->link.how, LINK_CORR);
			seen++;
		} else {
			ck_assert_int_eq(p->lun, 9);
			ck_assert_ptr_null(p->dev); /* its commands are no device's */
			ck_assert_int_eq(p->link.how, LINK_NONE);
			ck_assert_str_eq(p->adapter, "vmhba3");
			ck_assert_ptr_null(p->adp); /* the capture has no vmhba3 adapter */
			seen++;
		}
	}
	ck_assert_int_eq(seen, 4);
	/* a device's adapter from its paths: by their names */
	const struct entity *d = model_find(&a.m, LAYER_DEVICE, "naa.A", NULL);
	struct topo_in ti = analysis_topo(&a);
	struct stack st;
	topology_stack(&ti, d, &st);
	ck_assert_ptr_nonnull(st.adapter);
	ck_assert_str_eq(st.adapter->name, "vmhba2");
	ck_assert_int_eq(st.l_adp.how, LINK_ID);
	analysis_free(&a);
}
END_TEST

/* vmhba2's paths to two LUNs answer in 39 ms, vmhba3's path to a third in 0.9 ms: one finding on
 * the HBA, the LUNs' device-latency findings folded into it. */
START_TEST(one_slow_hba_is_one_finding)
{
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_wave, {400, 100, 7}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {39}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_wave, {300, 100, 3}},
		{"Physical Disk SCSI Device(naa.B)\\Average Driver MilliSec/Command", mc_konst, {39}},
		{"Physical Disk SCSI Device(naa.C)\\Commands/sec", mc_wave, {200, 100, 5}},
		{"Physical Disk SCSI Device(naa.C)\\Average Driver MilliSec/Command", mc_konst, {0.9}},
		{"Physical Disk Adapter(vmhba2)\\Commands/sec", mc_wave, {700, 100, 7}},
		{"Physical Disk Adapter(vmhba2)\\Average Driver MilliSec/Command", mc_konst, {39}},
		{"Physical Disk Adapter(vmhba3)\\Commands/sec", mc_wave, {200, 100, 5}},
		{"Physical Disk Path(naa.A-vmhba2:C0:T0:L1)\\Commands/sec", mc_wave, {400, 100, 7}},
		{"Physical Disk Path(naa.A-vmhba2:C0:T0:L1)\\Average Driver MilliSec/Command", mc_konst, {39}},
		{"Physical Disk Path(naa.B-vmhba2:C0:T0:L2)\\Commands/sec", mc_wave, {300, 100, 3}},
		{"Physical Disk Path(naa.B-vmhba2:C0:T0:L2)\\Average Driver MilliSec/Command", mc_konst, {39}},
		{"Physical Disk Path(naa.C-vmhba3:C0:T1:L3)\\Commands/sec", mc_wave, {200, 100, 5}},
		{"Physical Disk Path(naa.C-vmhba3:C0:T1:L3)\\Average Driver MilliSec/Command", mc_konst, {0.9}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 15, NULL, 0, NULL);
	int hba = 0;
	for (size_t i = 0; i < a.nf; i++) {
		ck_assert_int_ne(a.f[i].kind, K_LAT_DEVICE);
		if (a.f[i].kind == K_LAT_HBA) {
			hba++;
			ck_assert_str_eq(a.f[i].entity, "vmhba2");
			ck_assert_int_eq(a.f[i].sev, SEV_CRITICAL);
			ck_assert_ptr_nonnull(strstr(a.f[i].summary, "naa.A"));
			ck_assert_ptr_nonnull(strstr(a.f[i].summary, "naa.B"));
		}
	}
	ck_assert_int_eq(hba, 1);
	ck_assert_ptr_nonnull(strstr(a.verdict, "host bus adapter (vmhba2"));
	analysis_free(&a);
}
END_TEST

/* The same without path columns: the LUNs' adapter by IOPS, the adapters' own DAVG (a guess). */
START_TEST(one_slow_hba_without_paths)
{
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {39}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_wave, {300, 200, 7}},
		{"Physical Disk SCSI Device(naa.B)\\Average Driver MilliSec/Command", mc_konst, {39}},
		{"Physical Disk SCSI Device(naa.C)\\Commands/sec", mc_wave, {200, 100, 3}},
		{"Physical Disk SCSI Device(naa.C)\\Average Driver MilliSec/Command", mc_konst, {0.9}},
		{"Physical Disk Adapter(vmhba2)\\Commands/sec", mc_wave, {700, 500, 7}},
		{"Physical Disk Adapter(vmhba2)\\Average Driver MilliSec/Command", mc_konst, {39}},
		{"Physical Disk Adapter(vmhba3)\\Commands/sec", mc_wave, {200, 100, 3}},
		{"Physical Disk Adapter(vmhba3)\\Average Driver MilliSec/Command", mc_konst, {0.9}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 10, NULL, 0, NULL);
	const struct finding *f = find_kind(&a, K_LAT_HBA, "vmhba2");
	ck_assert_ptr_nonnull(f);
	ck_assert(f->heuristic);
	ck_assert_ptr_null(find_kind(&a, K_LAT_DEVICE, NULL));
	analysis_free(&a);
}
END_TEST

/* At row 100 naa.A's IO moves from vmhba2's path to vmhba3's and DAVG steps from 0.5 to 24 ms:
 * a path change with its time and both paths, not the array's service time. */
START_TEST(path_change_with_a_latency_step)
{
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_konst, {500}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_pulse, {0.5, 24, 100, 1000}},
		{"Physical Disk Path(naa.A-vmhba2:C0:T0:L1)\\Commands/sec", mc_pulse, {500, 0, 100, 1000}},
		{"Physical Disk Path(naa.A-vmhba3:C0:T1:L1)\\Commands/sec", mc_pulse, {0, 500, 100, 1000}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 4, NULL, 0, NULL);
	const struct finding *f = find_kind(&a, K_PATH_CHANGE, "naa.A");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(f->sev, SEV_WARNING);
	ck_assert_ptr_nonnull(strstr(f->summary, "through naa.A-vmhba3:C0:T1:L1 instead of naa.A-vmhba2:C0:T0:L1"));
	/* the row of 13:03:20 averages the interval from 13:03:18, when the IO moved */
	ck_assert_ptr_nonnull(strstr(f->summary, "since 2026-07-27T13:03:18Z"));
	ck_assert_ptr_null(find_kind(&a, K_LAT_DEVICE, "naa.A"));
	analysis_free(&a);
}
END_TEST

/* The same change with vmkernel.log: NMP names the change, the SATP the new path's ALUA state
 * (ANO): served through the non-optimised path, a fact of the log, not a guess. */
START_TEST(path_change_to_an_ano_path)
{
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_konst, {500}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_pulse, {0.5, 24, 100, 1000}},
		{"Physical Disk Path(vmhba2:C0:T0:L1)\\Commands/sec", mc_pulse, {500, 0, 100, 1000}},
		{"Physical Disk Path(vmhba3:C0:T1:L1)\\Commands/sec", mc_pulse, {0, 500, 100, 1000}},
	};
	static const char vmk[] =
		"2026-07-27T13:03:19.004Z cpu3:2097594)vmw_psp_mru: psp_mruSelectPathToActivate:1097: Changing active path "
		"from vmhba2:C0:T0:L1 to vmhba3:C0:T1:L1 for device \"naa.A\".\n"
		"2026-07-27T13:03:19.005Z cpu3:2097594)vmw_satp_alua: satp_alua_updatePathStates:1153: Path "
		"\"vmhba3:C0:T1:L1\" for device \"naa.A\": target port group in ALUA ANO (non-optimized).\n";
	struct analysis a;
	analysis_init(&a);
	run_vmk(&a, h, 4, vmk);
	const struct finding *f = find_kind(&a, K_PATH_CHANGE, "naa.A");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->summary, "ALUA non-optimised path vmhba3:C0:T1:L1"));
	ck_assert_ptr_nonnull(strstr(f->summary, "the active path changed from vmhba2:C0:T0:L1 to vmhba3:C0:T1:L1"));
	ck_assert(!f->heuristic);
	analysis_free(&a);
}
END_TEST

/* --disk D: keeps D:'s virtual disk and its LUN (read whole, decided on the disk's path after the
 * mapping), and leaves the other LUN out. */
START_TEST(disk_filter_keeps_the_stack)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:2)\\Commands/sec", mc_wave, {100, 50, 3}},
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {30}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_wave, {100, 50, 3}},
		{"Physical Disk SCSI Device(naa.B)\\Average Driver MilliSec/Command", mc_konst, {30}},
		{"Physical Disk Per-Device-Per-World(naa.A-1001)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk Per-Device-Per-World(naa.B-1001)\\Commands/sec", mc_wave, {100, 50, 3}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
	};
	static const struct mcol g[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_wave, {400, 300, 7}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.040}},
		{"LogicalDisk(E:)\\Disk Transfers/sec", mc_wave, {100, 50, 3}},
	};
	struct ent_filter f;
	ef_init(&f);
	struct tdiag td;
	ck_assert_int_eq(ef_add(&f, EF_DISK, "^D:$", tdiag_init(&td, "--disk")), 0);
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 9, g, 3, &f);
	const struct entity *v1 = model_find(&a.m, LAYER_VSCSI, "SQL01:scsi0:1", NULL);
	const struct entity *v2 = model_find(&a.m, LAYER_VSCSI, "SQL01:scsi0:2", NULL);
	const struct entity *da = model_find(&a.m, LAYER_DEVICE, "naa.A", NULL);
	const struct entity *db = model_find(&a.m, LAYER_DEVICE, "naa.B", NULL);
	ck_assert(!v1->outside && !da->outside);
	ck_assert(v2->outside && db->outside);
	ck_assert_ptr_nonnull(find_kind(&a, K_LAT_DEVICE, "naa.A"));
	ck_assert_ptr_null(find_kind(&a, K_LAT_DEVICE, "naa.B"));
	ck_assert_int_eq(f.kept[LAYER_VSCSI], 1);
	ck_assert_int_eq(f.dropped[LAYER_DEVICE], 1);
	analysis_free(&a);
	ef_free(&f);
	tdiag_free(&td);
}
END_TEST

/* A snapshot (or CBT, or an IO filter) doubles the device commands of one virtual disk: the LUN's
 * IOPS are twice the disk's, its world issues them all; the disk stays on its LUN (by its VM's
 * per-world IO), nothing is said to be on a datastore the capture does not show. */
START_TEST(more_device_commands_than_guest_ios)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:2)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:2)\\Average MilliSec/Write", mc_konst, {23}},
		{"Physical Disk SCSI Device(naa.E)\\Commands/sec", mc_wave, {800, 600, 7}},
		{"Physical Disk SCSI Device(naa.E)\\Average Driver MilliSec/Command", mc_konst, {1.5}},
		{"Physical Disk Per-Device-Per-World(naa.E-1001)\\Commands/sec", mc_wave, {800, 600, 7}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 6, NULL, 0, NULL);
	const struct iop_vdisk *s = vd(&a, "SQL01:scsi0:2");
	ck_assert_int_eq(s->back, BACK_LUN);
	ck_assert_str_eq(s->dev->name, "naa.E");
	ck_assert_int_eq(s->link.how, LINK_ID);
	ck_assert_ptr_null(find_kind(&a, K_LAT_DATASTORE, NULL));
	analysis_free(&a);
}
END_TEST

/* SQL01 (8 vCPUs: 8 vmx-vcpu worlds) at %RDY 240 (30% per vCPU) while its D: reads take 23 ms in
 * the guest and 0.8 ms at its virtual disk: the CPU, not a queue in the guest. */
#define VCPU8(vm, gid)                                                                                            \
	{"Vcpu(" gid ":" vm ":1001:vmx)\\% Used", mc_konst, {5}}, {"Vcpu(" gid ":" vm ":1010:vmx-vcpu-0:" vm ")\\% Used", mc_konst, {5}}, \
	{"Vcpu(" gid ":" vm ":1011:vmx-vcpu-1:" vm ")\\% Used", mc_konst, {5}}, {"Vcpu(" gid ":" vm ":1012:vmx-vcpu-2:" vm ")\\% Used", mc_konst, {5}}, \
	{"Vcpu(" gid ":" vm ":1013:vmx-vcpu-3:" vm ")\\% Used", mc_konst, {5}}, {"Vcpu(" gid ":" vm ":1014:vmx-vcpu-4:" vm ")\\% Used", mc_konst, {5}}, \
	{"Vcpu(" gid ":" vm ":1015:vmx-vcpu-5:" vm ")\\% Used", mc_konst, {5}}, {"Vcpu(" gid ":" vm ":1016:vmx-vcpu-6:" vm ")\\% Used", mc_konst, {5}}, \
	{"Vcpu(" gid ":" vm ":1017:vmx-vcpu-7:" vm ")\\% Used", mc_konst, {5}}

START_TEST(cpu_ready_is_the_cause)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", mc_konst, {0.8}},
		{"Group Cpu(55:SQL01)\\% Ready", mc_pulse, {8, 240, 50, 150}},
		{"Group Cpu(55:SQL01)\\% CoStop", mc_pulse, {0, 16, 50, 150}},
		VCPU8("SQL01", "55"),
	};
	static const struct mcol g[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_wave, {400, 300, 7}},
		{"LogicalDisk(D:)\\Disk Reads/sec", mc_wave, {400, 300, 7}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_pulse, {0.001, 0.023, 50, 150}},
		{"LogicalDisk(D:)\\Current Disk Queue Length", mc_pulse, {1, 9, 50, 150}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 13, g, 4, NULL);
	const struct finding *f = find_kind(&a, K_CPU_CONTENTION, "SQL01");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->sev, SEV_CRITICAL);
	ck_assert_ptr_nonnull(strstr(f->summary, "30.0% per vCPU"));
	/* the wait the host does not see is the CPU's: explained, information */
	const struct finding *h2 = find_kind(&a, K_Q_GUEST_HIDDEN, "D:");
	ck_assert_ptr_nonnull(h2);
	ck_assert_int_eq(h2->sev, SEV_INFO);
	const struct finding *lat = find_kind(&a, K_LAT_GUEST_READ, "D:");
	ck_assert_ptr_nonnull(lat);
	ck_assert_ptr_nonnull(strstr(lat->advice, "CPU scheduling, not a storage queue"));
	ck_assert_ptr_nonnull(strstr(a.verdict, "for CPU, not storage"));
	ck_assert_ptr_null(strstr(a.verdict, "the fix is inside the VM"));
	analysis_free(&a);
}
END_TEST

/* 8 vCPUs at 1.5% each, flat all day: the group's 12% is no contention (summed, it would pass the 5% rule). */
START_TEST(flat_low_ready_is_not_blamed)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Group Cpu(55:SQL01)\\% Ready", mc_konst, {12}},
		VCPU8("SQL01", "55"),
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 11, NULL, 0, NULL);
	ck_assert_ptr_null(find_kind(&a, K_CPU_CONTENTION, NULL)); /* 1.5% per vCPU */
	analysis_free(&a);
}
END_TEST

/* The snapshot shape: SQL01:scsi0:2 writes at 23 ms while its LUN answers in 1.5 ms, the
 * LUN's other disk is fast, and SQL01's world sends the LUN twice the disk's commands. */
START_TEST(latency_added_above_the_lun)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:2)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:2)\\Average MilliSec/Write", mc_konst, {23}},
		{"Virtual Disk(SQL01:scsi0:2)\\Average MilliSec/Read", mc_konst, {1.2}},
		{"Virtual Disk(APP05:scsi0:0)\\Commands/sec", mc_wave, {100, 50, 3}},
		{"Virtual Disk(APP05:scsi0:0)\\Average MilliSec/Write", mc_konst, {1.6}},
		{"Physical Disk SCSI Device(naa.E)\\Commands/sec", mc_wave, {900, 650, 7}},
		{"Physical Disk SCSI Device(naa.E)\\Average Driver MilliSec/Command", mc_konst, {1.5}},
		{"Physical Disk SCSI Device(naa.E)\\Average Kernel MilliSec/Command", mc_konst, {0.02}},
		{"Physical Disk Per-Device-Per-World(naa.E-1001)\\Commands/sec", mc_wave, {800, 600, 7}},
		{"Physical Disk Per-Device-Per-World(naa.E-2002)\\Commands/sec", mc_wave, {100, 50, 3}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
		{"Vcpu(66:APP05:2002:vmx)\\% Used", mc_konst, {5}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 12, NULL, 0, NULL);
	const struct finding *f = find_kind(&a, K_LAT_VD_ABOVE, "SQL01:scsi0:2");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->summary, "writes take 23.0 ms"));
	ck_assert_ptr_nonnull(strstr(f->summary, "2.0 times the commands"));
	ck_assert_ptr_null(find_kind(&a, K_LAT_VD_ABOVE, "APP05:scsi0:0"));
	ck_assert_ptr_nonnull(strstr(a.verdict, "in the ESXi host above the LUN"));
	analysis_free(&a);
}
END_TEST

/* A load that varies (mc_wave's, period 7 rows) until row arg[3], 0 from then on; from row arg[3] on
 * only; times arg[2] for rows 50-149 (a snapshot's amplification), 1 elsewhere. */
static double wave_before(int row, const double *a) { return row < a[3] ? a[0] + a[1] * sin(row / 7.0) : 0; }
static double wave_after(int row, const double *a) { return row >= a[3] ? a[0] + a[1] * sin(row / 7.0) : 0; }
static double wave_amp(int row, const double *a)
{
	return (a[0] + a[1] * sin(row / 7.0)) * (row >= 50 && row < 150 ? a[2] : 1);
}

/* A Storage vMotion at row 100: SQL01's world does D:'s IO to naa.A, then to naa.B. No whole-capture
 * match ties it (each world carries it half the time); by segments it is on naa.A, then naa.B — a
 * guess that says the move; the LUN's latency before the move is D:'s, not after it. */
START_TEST(storage_vmotion_two_spans)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", mc_pulse, {1.0, 30, 0, 100}},
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", wave_before, {400, 300, 0, 100}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_pulse, {1.0, 30, 0, 100}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", wave_after, {400, 300, 0, 100}},
		{"Physical Disk SCSI Device(naa.B)\\Average Driver MilliSec/Command", mc_konst, {1.0}},
		{"Physical Disk Per-Device-Per-World(naa.A-1001)\\Commands/sec", wave_before, {400, 300, 0, 100}},
		{"Physical Disk Per-Device-Per-World(naa.B-1001)\\Commands/sec", wave_after, {400, 300, 0, 100}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 9, NULL, 0, NULL);
	const struct iop_vdisk *s = vd(&a, "SQL01:scsi0:1");
	ck_assert_int_eq(s->back, BACK_LUN);
	ck_assert_int_eq(s->link.how, LINK_CORR);
	ck_assert_uint_eq(s->nspan, 2);
	ck_assert_str_eq(s->span[0].dev->name, "naa.A");
	ck_assert_str_eq(s->span[1].dev->name, "naa.B");
	ck_assert_uint_ge(s->span[0].k1, 97);
	ck_assert_uint_le(s->span[1].k0, 101);
	ck_assert_double_eq_tol(s->span[1].amp, 1.0, 0.05);
	ck_assert_ptr_nonnull(strstr(s->link.why, "naa.A until 13:03:"));
	ck_assert_ptr_nonnull(strstr(s->link.why, "then naa.B from 13:03:"));
	ck_assert_ptr_nonnull(strstr(s->link.why, "Storage vMotion"));
	ck_assert_ptr_nonnull(strstr(s->link.why, "r = 1.00"));
	/* over the first half the disk is on naa.A, over the second on naa.B */
	const struct entity *v = model_find(&a.m, LAYER_VSCSI, "SQL01:scsi0:1", NULL);
	const struct capture *c = &a.m.caps[v->capture];
	ck_assert_str_eq(iopath_vdisk_dev_in(s, c->ds.t0[10], c->ds.t1[60], NULL)->name, "naa.A");
	ck_assert_str_eq(iopath_vdisk_dev_in(s, c->ds.t0[120], c->ds.t1[190], NULL)->name, "naa.B");
	analysis_free(&a);
}
END_TEST

/* A snapshot for rows 50-149: SQL01's world sends its LUN 2.2 commands per virtual-disk command, and
 * the disk's writes take 23 ms at the virtual disk while the LUN answers in 1.5 ms. The whole-capture
 * match fails (the ratio steps); by segments it is tied with the amplification as evidence, and the
 * latency added above the LUN is found. */
START_TEST(snapshot_amplification_span)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 100, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Write", mc_pulse, {1.6, 23, 50, 150}},
		{"Physical Disk SCSI Device(naa.E)\\Commands/sec", wave_amp, {400, 100, 2.2}},
		{"Physical Disk SCSI Device(naa.E)\\Average Driver MilliSec/Command", mc_konst, {1.5}},
		{"Physical Disk Per-Device-Per-World(naa.E-1001)\\Commands/sec", wave_amp, {400, 100, 2.2}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
		{"Physical Disk SCSI Device(naa.C)\\Commands/sec", mc_wave, {20, 10, 3}},
		{"Physical Disk Per-Device-Per-World(naa.C-1001)\\Commands/sec", mc_wave, {20, 10, 3}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 8, NULL, 0, NULL);
	const struct iop_vdisk *s = vd(&a, "SQL01:scsi0:1");
	ck_assert_int_eq(s->back, BACK_LUN);
	ck_assert_str_eq(s->dev->name, "naa.E");
	ck_assert_int_eq(s->link.how, LINK_CORR);
	ck_assert_uint_ge(s->nspan, 2);
	bool amp = false;
	for (size_t i = 0; i < s->nspan; i++)
		amp |= fabs(s->span[i].amp - 2.2) < 0.05 && s->span[i].k1 - s->span[i].k0 >= 90;
	ck_assert(amp);
	ck_assert_ptr_nonnull(
	    strstr(s->link.why, "its LUN gets 2.2 commands per virtual-disk command (1.0 at other times)"));
	ck_assert_ptr_null(strstr(s->link.why, "Storage vMotion"));
	const struct finding *f = find_kind(&a, K_LAT_VD_ABOVE, "SQL01:scsi0:1");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->summary, "2.2 times the commands"));
	analysis_free(&a);
}
END_TEST

/* An ALUA failover at row 100 on naa.A, whose LUN number 1 naa.B has too (another target): the paths
 * of LUN 1 add up to neither device, so none is tied by the sum. Each of naa.A's paths carries all of
 * its commands while it is active: tied by that (a guess), and the path change is found, with the
 * log's NMP and ALUA lines. */
START_TEST(path_change_on_guessed_paths)
{
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_wave, {500, 200, 7}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_pulse, {0.5, 24, 100, 1000}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_wave, {300, 100, 5}},
		{"Physical Disk Path(vmhba2:C0:T0:L1)\\Commands/sec", wave_before, {500, 200, 0, 100}},
		{"Physical Disk Path(vmhba3:C0:T1:L1)\\Commands/sec", wave_after, {500, 200, 0, 100}},
		{"Physical Disk Path(vmhba2:C0:T2:L1)\\Commands/sec", mc_wave, {300, 100, 5}},
	};
	static const char vmk[] =
	    "2026-07-27T13:03:19.004Z cpu3:2097594)vmw_psp_mru: psp_mruSelectPathToActivate:1097: Changing active path "
	    "from vmhba2:C0:T0:L1 to vmhba3:C0:T1:L1 for device \"naa.A\".\n"
	    "2026-07-27T13:03:19.405Z cpu3:2097594)vmw_satp_alua: satp_alua_issueCommandOnPath:665: Path "
	    "\"vmhba3:C0:T1:L1\" (ANO) command 0xa3 succeeded with status Check condition, sense data 0x5 0x24 0x0.\n";
	struct analysis a;
	analysis_init(&a);
	run_vmk(&a, h, 6, vmk);
	const struct iop_path *p[4];
	const struct entity *d = model_find(&a.m, LAYER_DEVICE, "naa.A", NULL);
	ck_assert_uint_eq(iopath_device_paths(&a.iop, d, p, 4), 2);
	ck_assert_int_eq(p[0]->link.how, LINK_CORR);
	ck_assert_ptr_nonnull(strstr(p[0]->link.why, "only active path"));
	const struct finding *f = find_kind(&a, K_PATH_CHANGE, "naa.A");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(f->sev, SEV_WARNING);
	ck_assert_ptr_nonnull(strstr(f->summary, "ALUA non-optimised path vmhba3:C0:T1:L1"));
	ck_assert_ptr_nonnull(strstr(f->summary, "the active path changed from vmhba2:C0:T0:L1 to vmhba3:C0:T1:L1"));
	ck_assert_ptr_null(find_kind(&a, K_LAT_DEVICE, "naa.A"));
	analysis_free(&a);
}
END_TEST

/* A guest disk slow at 23 ms whose virtual disk, tied to no LUN, shows the same 23 ms: the advice
 * says the host sees it, never "no queueing or latency on this disk's virtual disk". */
START_TEST(advice_agrees_with_the_virtual_disk)
{
	static const struct mcol h[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Reads/sec", mc_wave, {300, 225, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Writes/sec", mc_wave, {100, 75, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", mc_konst, {1}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Write", mc_pulse, {1, 22.5, 50, 150}},
		{"Physical Disk SCSI Device(naa.C)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Physical Disk Per-Device-Per-World(naa.C-1001)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
	};
	static const struct mcol g[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_wave, {400, 300, 7}},
		{"LogicalDisk(D:)\\Disk Reads/sec", mc_wave, {300, 225, 7}},
		{"LogicalDisk(D:)\\Disk Writes/sec", mc_wave, {100, 75, 7}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Write", mc_pulse, {0.001, 0.023, 50, 150}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.001}},
		{"LogicalDisk(D:)\\Current Disk Queue Length", mc_pulse, {1, 3, 50, 150}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, 8, g, 6, NULL);
	const struct finding *f = find_kind(&a, K_LAT_GUEST_WRITE, "D:");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_null(strstr(f->advice, "no queueing or latency"));
	ck_assert_msg(strstr(f->advice, "The host sees this latency itself: SQL01:scsi0:1 takes 22."), "%s", f->advice);
	analysis_free(&a);

	/* the same disk fast at its virtual disk at 1.25 times the guest's IO (the same disk by shape and
	 * level, issue 34's link check): the host does not see the latency, so the advice points at the
	 * guest's hidden queue and makes no claim about the virtual disk it cannot back */
	static const struct mcol h2[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {500, 375, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Write", mc_konst, {1}},
		{"Physical Disk SCSI Device(naa.C)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Physical Disk Per-Device-Per-World(naa.C-1001)\\Commands/sec", mc_wave, {50, 30, 3}},
		{"Vcpu(55:SQL01:1001:vmx)\\% Used", mc_konst, {5}},
	};
	analysis_init(&a);
	run(&a, h2, 5, g, 6, NULL);
	f = find_kind(&a, K_LAT_GUEST_WRITE, "D:");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_null(strstr(f->advice, "The host sees this latency itself"));
	ck_assert_msg(strstr(f->advice, "see the queue.guest_hidden finding"), "%s", f->advice);
	analysis_free(&a);
}
END_TEST

START_TEST(vm_names_without_uuid)
{
	ck_assert_uint_eq(vm_name_core("APP02 (104c07ff-3663-44fb-9d89-a563c801611c)", 44), 5);
	ck_assert_uint_eq(vm_name_core("APP02 (not a uuid, but 36 characters!)", 38), 38);
	ck_assert_uint_eq(vm_name_core("SQL01", 5), 5);
}
END_TEST

Suite *iopath_suite(void)
{
	Suite *s = suite_create("iopath");
	TCase *t = tcase_create("graph");
	tcase_add_test(t, neighbour_read_from_the_capture);
	tcase_add_test(t, neighbour_guessed_without_vcpu);
	tcase_add_test(t, neighbour_over_the_whole_capture);
	tcase_add_test(t, no_lun_shown_or_not_identified);
	tcase_add_test(t, nfs_disk_of_a_vm_with_a_lun);
	tcase_add_test(t, paths_by_name_and_by_sum);
	tcase_add_test(t, one_slow_hba_is_one_finding);
	tcase_add_test(t, one_slow_hba_without_paths);
	tcase_add_test(t, path_change_with_a_latency_step);
	tcase_add_test(t, path_change_to_an_ano_path);
	tcase_add_test(t, disk_filter_keeps_the_stack);
	tcase_add_test(t, more_device_commands_than_guest_ios);
	tcase_add_test(t, cpu_ready_is_the_cause);
	tcase_add_test(t, flat_low_ready_is_not_blamed);
	tcase_add_test(t, latency_added_above_the_lun);
	tcase_add_test(t, vm_names_without_uuid);
	tcase_add_test(t, storage_vmotion_two_spans);
	tcase_add_test(t, snapshot_amplification_span);
	tcase_add_test(t, path_change_on_guessed_paths);
	tcase_add_test(t, advice_agrees_with_the_virtual_disk);
	suite_add_tcase(s, t);
	beyond_tcases(s); /* check_beyond.c (issue 36) */
	volume_tcases(s); /* check_volume.c (issue 36) */
	return s;
}
