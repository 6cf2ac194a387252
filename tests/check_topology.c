/* check_topology.c — the IO stack of a disk (topology.c): guest disk → virtual disk through the
 * disk map, virtual disk → LUN → adapter through IOPS correlation, what the findings say about
 * each box, and no link where the evidence does not carry one. */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "memcap.h"
#include "suites.h"

/* The host: SQL01's disk on LUN naa.A behind vmhba2; another LUN naa.B with its own load behind
 * vmhba3. The guest's D: carries the same IOs as the virtual disk. */
static void load(struct analysis *a, bool with_lun_a)
{
	static const struct mcol host[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {30}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_wave, {300, 200, 2.3}},
		{"Physical Disk Adapter(vmhba2)\\Commands/sec", mc_wave, {420, 300, 7}},
		{"Physical Disk Adapter(vmhba3)\\Commands/sec", mc_wave, {300, 200, 2.3}},
	};
	static const struct mcol host_no_a[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_wave, {300, 200, 2.3}},
		{"Physical Disk Adapter(vmhba3)\\Commands/sec", mc_wave, {300, 200, 2.3}},
	};
	static const struct mcol guest[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_wave, {400, 300, 7}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.040}},
	};
	static struct buf h, g, msgs;
	buf_init(&msgs);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	buf_init(&h);
	buf_init(&g);
	if (with_lun_a)
		memcap(&h, false, "esx01", host, 6, 200, 2);
	else
		memcap(&h, false, "esx01", host_no_a, 3, 200, 2);
	memcap(&g, true, "SQL01", guest, 2, 200, 2);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "esx.csv", h.data, h.len, &co), 0);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "pm.csv", g.data, g.len, &co), 0);
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_run(a, &o);
	buf_free(&h);
	buf_free(&g);
	buf_free(&msgs);
}

START_TEST(stack_of_a_guest_disk)
{
	struct analysis a;
	analysis_init(&a);
	load(&a, true);
	struct topo_in ti = analysis_topo(&a);
	const struct entity *d = model_find(&a.m, LAYER_GUEST, "D:", "SQL01");
	ck_assert_ptr_nonnull(d);
	struct stack s;
	topology_stack(&ti, d, &s);
	ck_assert_ptr_eq(s.guest, d);
	ck_assert_ptr_nonnull(s.vdisk);
	ck_assert_str_eq(s.vdisk->name, "SQL01:scsi0:1");
	ck_assert_ptr_nonnull(s.map);
	ck_assert(s.map->automatic && s.map->correlation >= 0.7);
	ck_assert_ptr_nonnull(s.device);
	ck_assert_str_eq(s.device->name, "naa.A"); /* not naa.B, whose IOs are another disk's */
	ck_assert(s.r_dev >= TOPO_R_VDISK_DEVICE);
	ck_assert_ptr_nonnull(s.adapter);
	ck_assert_str_eq(s.adapter->name, "vmhba2");
	/* from the LUN upwards, the same stack */
	struct stack u;
	topology_stack(&ti, s.device, &u);
	ck_assert_ptr_eq(u.vdisk, s.vdisk);
	ck_assert_ptr_eq(u.guest, d);
	/* every output reads the stacks analysis_run computed: the device finding's stack first */
	ck_assert_uint_ge(a.nshown, 1);
	ck_assert_ptr_nonnull(a.shown[0].anchor);
	ck_assert_ptr_eq(a.shown[0].s.device, s.device);
	analysis_free(&a);
}
END_TEST

START_TEST(no_link_without_evidence)
{
	struct analysis a;
	analysis_init(&a);
	load(&a, false);
	struct topo_in ti = analysis_topo(&a);
	const struct entity *v = model_find(&a.m, LAYER_VSCSI, "SQL01:scsi0:1", NULL);
	ck_assert_ptr_nonnull(v);
	struct stack s;
	topology_stack(&ti, v, &s);
	ck_assert_ptr_eq(s.vdisk, v);
	ck_assert_ptr_null(s.device); /* naa.B's IOPS do not follow the virtual disk's */
	ck_assert(isnan(s.r_dev));
	ck_assert_ptr_null(s.adapter);
	analysis_free(&a);
}
END_TEST

START_TEST(boxes_follow_the_findings)
{
	struct analysis a;
	analysis_init(&a);
	load(&a, true);
	struct topo_in ti = analysis_topo(&a);
	const struct entity *d = model_find(&a.m, LAYER_GUEST, "D:", "SQL01");
	struct stack s;
	topology_stack(&ti, d, &s);
	struct finding f[3];
	memset(f, 0, sizeof f);
	f[0] = (struct finding){.kind = K_LAT_DEVICE, .sev = SEV_CRITICAL, .layer = LAYER_DEVICE, .entity = "naa.A",
				.host = "esx01", .ent = -1, .capture = -1};
	f[1] = (struct finding){.kind = K_LAT_GUEST_READ, .sev = SEV_WARNING, .layer = LAYER_GUEST, .entity = "D:",
				.host = "SQL01", .ent = -1, .capture = -1};
	f[2] = (struct finding){.kind = K_Q_DEVICE_SATURATED, .sev = SEV_WARNING, .layer = LAYER_DEVICE, .entity = "naa.B",
				.host = "esx01", .ent = -1, .capture = -1};
	ti.f = f;
	ti.nf = 3;
	struct box_state st[BOX_COUNT];
	topology_boxes(&ti, &s, st);
	ck_assert(st[BOX_ARRAY].waits && st[BOX_ARRAY].sev == SEV_CRITICAL && st[BOX_ARRAY].why == K_LAT_DEVICE);
	ck_assert(!st[BOX_GUEST].waits && st[BOX_GUEST].sev == SEV_WARNING && st[BOX_GUEST].why == K_LAT_GUEST_READ);
	/* naa.B is not on this disk's stack: its saturated queue is not drawn here */
	ck_assert(!st[BOX_KERNEL].waits && st[BOX_KERNEL].sev == -1);
	ck_assert(st[BOX_VSCSI].sev == -1 && st[BOX_ADAPTER].sev == -1);
	analysis_free(&a);
}
END_TEST

/* A guest disk on an NFS datastore: the host-side evidence is the virtual disk's (and the NFS
 * volume's) latency, the finding names the datastore, the guest's advice points at it and not at an
 * unrelated slow LUN, and the layers with no SCSI device are not assessed. On a SCSI LUN the same
 * virtual disk latency is the device detectors' (no datastore finding). */
static void load_nas(struct analysis *a, bool nfs)
{
	static const struct mcol host_nfs[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", mc_konst, {40}},
		{"Physical Disk NFS Volume(NFS1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk NFS Volume(NFS1)\\Average Guest MilliSec/Command", mc_konst, {40}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_wave, {300, 200, 2.3}},
		{"Physical Disk SCSI Device(naa.B)\\Average Driver MilliSec/Command", mc_konst, {30}},
	};
	static const struct mcol host_scsi[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", mc_konst, {40}},
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_wave, {400, 300, 7}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {39}},
	};
	static const struct mcol guest[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_wave, {400, 300, 7}},
		{"LogicalDisk(D:)\\Disk Reads/sec", mc_wave, {400, 300, 7}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.040}},
	};
	struct buf h, g, msgs;
	buf_init(&h);
	buf_init(&g);
	buf_init(&msgs);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	if (nfs)
		memcap(&h, false, "esx01", host_nfs, 6, 200, 2);
	else
		memcap(&h, false, "esx01", host_scsi, 4, 200, 2);
	memcap(&g, true, "SQL01", guest, 3, 200, 2);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "esx.csv", h.data, h.len, &co), 0);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "pm.csv", g.data, g.len, &co), 0);
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_run(a, &o);
	buf_free(&h);
	buf_free(&g);
	buf_free(&msgs);
}

static const struct finding *find_kind(const struct analysis *a, enum kind k)
{
	for (size_t i = 0; i < a->nf; i++)
		if (a->f[i].kind == k)
			return &a->f[i];
	return NULL;
}

START_TEST(nfs_datastore_is_the_evidence)
{
	struct analysis a;
	analysis_init(&a);
	load_nas(&a, true);
	const struct entity *nfs = model_find(&a.m, LAYER_DEVICE, "NFS1", NULL);
	ck_assert_ptr_nonnull(nfs);
	ck_assert(nfs->nfs);
	const struct finding *ds = find_kind(&a, K_LAT_DATASTORE);
	ck_assert_ptr_nonnull(ds);
	ck_assert_str_eq(ds->entity, "SQL01:scsi0:1");
	ck_assert_ptr_nonnull(strstr(ds->summary, "NFS datastore NFS1"));
	ck_assert_int_eq(ds->sev, SEV_CRITICAL);
	ck_assert_ptr_nonnull(find_kind(&a, K_LAT_DEVICE)); /* naa.B is slow, but not D:'s */
	const struct finding *g = find_kind(&a, K_LAT_GUEST_READ);
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(strstr(g->advice, "latency.datastore"));
	ck_assert_ptr_null(strstr(g->advice, "naa.B"));
	ck_assert_ptr_nonnull(strstr(a.verdict, "in the datastore below the VMkernel"));
	/* D:'s stack has no SCSI device: its device queue is not assessed */
	ck_assert_int_eq(a.cov.layer[LAYER_DEVICE].status, COV_NOT_ASSESSED);
	ck_assert_int_eq(a.cov.layer[LAYER_DEVICE].reason, COVR_NO_SCSI);
	ck_assert_int_eq(a.cov.layer[LAYER_ARRAY].status, COV_PARTIAL);
	analysis_free(&a);

	analysis_init(&a);
	load_nas(&a, false);
	ck_assert_ptr_null(find_kind(&a, K_LAT_DATASTORE));
	ck_assert_ptr_nonnull(find_kind(&a, K_LAT_DEVICE));
	g = find_kind(&a, K_LAT_GUEST_READ);
	ck_assert_ptr_nonnull(g);
	ck_assert_ptr_nonnull(strstr(g->advice, "latency.device on naa.A"));
	ck_assert_int_ne(a.cov.layer[LAYER_DEVICE].status, COV_NOT_ASSESSED);
	analysis_free(&a);
}
END_TEST

/* One LU (the same naa) in two host captures: the hosts' outstanding IO is summed against the
 * LU's queue; a LUN slow from one host only is that host's path, slow from both the array. */
static void load_two_hosts(struct analysis *a, double actv1, double actv2, double davg1, double davg2, int qd)
{
	struct mcol h1[] = {
		{"Physical Disk SCSI Device(naa.S)\\Commands/sec", mc_konst, {2000}},
		{"Physical Disk SCSI Device(naa.S)\\Active Commands", mc_konst, {actv1}},
		{"Physical Disk SCSI Device(naa.S)\\Device Q Depth", mc_konst, {64}},
		{"Physical Disk SCSI Device(naa.S)\\Average Driver MilliSec/Command", mc_konst, {davg1}},
	};
	struct mcol h2[] = {
		{"Physical Disk SCSI Device(naa.S)\\Commands/sec", mc_konst, {3000}},
		{"Physical Disk SCSI Device(naa.S)\\Active Commands", mc_konst, {actv2}},
		{"Physical Disk SCSI Device(naa.S)\\Device Q Depth", mc_konst, {64}},
		{"Physical Disk SCSI Device(naa.S)\\Average Driver MilliSec/Command", mc_konst, {davg2}},
	};
	struct buf b1, b2, msgs;
	buf_init(&b1);
	buf_init(&b2);
	buf_init(&msgs);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	memcap(&b1, false, "esx01.lab", h1, 4, 200, 2);
	memcap(&b2, false, "esx02.lab", h2, 4, 200, 2);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "esx01.csv", b1.data, b1.len, &co), 0);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "esx02.csv", b2.data, b2.len, &co), 0);
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	o.array_queue_depth = qd;
	analysis_run(a, &o);
	buf_free(&b1);
	buf_free(&b2);
	buf_free(&msgs);
}

START_TEST(shared_lu_across_hosts)
{
	struct analysis a;
	analysis_init(&a);
	load_two_hosts(&a, 23, 49, 2, 2, 64);
	const struct finding *f = find_kind(&a, K_Q_ARRAY_OVERCOMMIT);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->entity, "naa.S");
	ck_assert_ptr_nonnull(strstr(f->host, "esx01.lab"));
	ck_assert_ptr_nonnull(strstr(f->host, "esx02.lab"));
	ck_assert_ptr_nonnull(strstr(f->summary, "up to 72"));
	ck_assert_ptr_nonnull(strstr(f->summary, "no host alone exceeds it"));
	analysis_free(&a);
	/* the LU's queue holds both: nothing */
	analysis_init(&a);
	load_two_hosts(&a, 23, 49, 2, 2, 128);
	ck_assert_ptr_null(find_kind(&a, K_Q_ARRAY_OVERCOMMIT));
	analysis_free(&a);
	/* slow from esx01 only: its path */
	analysis_init(&a);
	load_two_hosts(&a, 10, 10, 30, 2, 0);
	f = find_kind(&a, K_LAT_DEVICE);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->host, "esx01.lab");
	ck_assert_ptr_nonnull(strstr(f->summary, "only from this host"));
	ck_assert_ptr_nonnull(strstr(f->advice, "paths"));
	analysis_free(&a);
	/* slow from both: the LU or the array */
	analysis_init(&a);
	load_two_hosts(&a, 10, 10, 30, 28, 0);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_DEVICE)
			ck_assert_ptr_nonnull(strstr(a.f[i].summary, "slow from every host"));
	analysis_free(&a);
}
END_TEST

Suite *topology_suite(void)
{
	Suite *s = suite_create("topology");
	TCase *t = tcase_create("stack");
	tcase_add_test(t, stack_of_a_guest_disk);
	tcase_add_test(t, no_link_without_evidence);
	tcase_add_test(t, boxes_follow_the_findings);
	tcase_add_test(t, nfs_datastore_is_the_evidence);
	tcase_add_test(t, shared_lu_across_hosts);
	suite_add_tcase(s, t);
	return s;
}
