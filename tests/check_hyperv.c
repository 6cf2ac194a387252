/* check_hyperv.c — a Hyper-V host's perfmon (parsers/fmt_hyperv.c, doc/hyperv.md): the format is
 * told from its objects, its columns land on the right layers (a VM's virtual processors combined,
 * a VHDX's commands and normalized IOPS derived), the IO path VHDX → volume → host disk says how
 * each link is known, and the detectors find a Storage QoS maximum, a redirected CSV, a host
 * disk's latency with the VHDX that drives it and virtual processors waiting — and nothing on a
 * healthy host. */
#include <math.h>
#include <string.h>

#include "analysis.h"
#include "memcap.h"
#include "suites.h"

#define VSD "Hyper-V Virtual Storage Device("
#define SQLD "C:-ClusterStorage-Volume1-SQL01-Virtual Hard Disks-SQL01_D.vhdx"
#define APPD "C:-ClusterStorage-Volume1-APP-02-Virtual Hard Disks-APP-02_D.vhdx"

static void run(struct analysis *a, const struct mcol *h, int nh, const struct mcol *g, int ng)
{
	struct buf hb, gb, msgs;
	buf_init(&hb);
	buf_init(&gb);
	buf_init(&msgs);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	memcap(&hb, true, "HV01", h, nh, 200, 15);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "hyperv.csv", hb.data, hb.len, &co), 0);
	if (g) {
		memcap(&gb, true, "SQL01", g, ng, 200, 15);
		ck_assert_int_eq(model_add_capture_mem(&a->m, "perfmon.csv", gb.data, gb.len, &co), 0);
	}
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_run(a, &o);
	buf_free(&hb);
	buf_free(&gb);
	buf_free(&msgs);
}

static const struct finding *find_kind(const struct analysis *a, enum kind k, const char *entity)
{
	for (size_t i = 0; i < a->nf; i++)
		if (a->f[i].kind == k && (!entity || strcmp(a->f[i].entity, entity) == 0))
			return &a->f[i];
	return NULL;
}

static size_t warnings(const struct analysis *a)
{
	size_t n = 0;
	for (size_t i = 0; i < a->nf; i++)
		n += a->f[i].sev >= SEV_WARNING;
	return n;
}

static const struct iop_vdisk *vd(const struct analysis *a, const char *name)
{
	for (size_t i = 0; i < a->iop.nvd; i++)
		if (strcmp(a->iop.vd[i].v->name, name) == 0)
			return &a->iop.vd[i];
	return NULL;
}

/* A healthy VHDX of name n on Volume1 (IOPS as a wave so that series correlate), latency l ms. */
#define VHDX(n, iops, l)                                                                                             \
	{VSD n ")\\Read Operations/Sec", mc_wave, {0.7 * (iops), 0.2 * (iops), 7, 0}},                              \
	{VSD n ")\\Write Operations/Sec", mc_wave, {0.3 * (iops), 0.06 * (iops), 7, 0}},                            \
	{VSD n ")\\Read Bytes/sec", mc_wave, {0.7 * (iops) * 8192, 0.2 * (iops) * 8192, 7, 0}},                     \
	{VSD n ")\\Write Bytes/sec", mc_wave, {0.3 * (iops) * 8192, 0.06 * (iops) * 8192, 7, 0}},                   \
	{VSD n ")\\Latency", mc_konst, {(l) / 1000.0}}, {VSD n ")\\Lower Latency", mc_konst, {(l) / 1000.0}},       \
	{VSD n ")\\Queue Length", mc_konst, {(iops) * (l) / 1000.0}}

START_TEST(format_and_columns)
{
	static const struct mcol h[] = {
		{VSD SQLD ")\\Read Operations/Sec", mc_konst, {100}},
		{VSD SQLD ")\\Write Operations/Sec", mc_konst, {50}},
		{VSD SQLD ")\\Read Bytes/sec", mc_konst, {100 * 65536.0}},
		{VSD SQLD ")\\Write Bytes/sec", mc_konst, {50 * 4096.0}},
		{VSD SQLD ")\\Latency", mc_konst, {0.002}},
		{"Hyper-V Hypervisor Virtual Processor(APP-02:Hv VP 0)\\CPU Wait Time Per Dispatch", mc_konst, {10000}},
		{"Hyper-V Hypervisor Virtual Processor(APP-02:Hv VP 1)\\CPU Wait Time Per Dispatch", mc_konst, {30000}},
		{"Hyper-V Hypervisor Virtual Processor(_Total)\\CPU Wait Time Per Dispatch", mc_konst, {99999}},
		{"Hyper-V Hypervisor Logical Processor(_Total)\\% Total Run Time", mc_konst, {42}},
		{"PhysicalDisk(2)\\Avg. Disk sec/Read", mc_konst, {0.003}},
		{"PhysicalDisk(2)\\Disk Transfers/sec", mc_konst, {150}},
		{"PhysicalDisk(_Total)\\Disk Transfers/sec", mc_konst, {150}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), NULL, 0);
	ck_assert_str_eq(a.m.caps[0].format, "hyperv");
	ck_assert_int_eq(a.m.caps[0].role, ROLE_HOST);
	ck_assert(analysis_hyperv(&a));
	const struct entity *v = model_find(&a.m, LAYER_VSCSI, SQLD, NULL);
	ck_assert_ptr_nonnull(v);
	ck_assert_double_eq_tol(entity_mean(v, M_HV_LAT), 2.0, 1e-9);          /* s → ms */
	ck_assert_double_eq_tol(entity_mean(v, M_CMDS), 150, 1e-9);            /* reads + writes */
	ck_assert_double_eq_tol(entity_mean(v, M_HV_NIOPS), 100 * 8 + 50, 1e-9); /* 64 KiB = 8 units, 4 KiB = 1 */
	const struct entity *vm = model_find(&a.m, LAYER_VM, "APP-02", NULL);
	ck_assert_ptr_nonnull(vm);
	ck_assert_double_eq_tol(entity_mean(vm, M_HV_CPU_WAIT), 20, 1e-9);     /* mean of its VPs, ns → µs */
	ck_assert_ptr_null(model_find(&a.m, LAYER_VM, "_Total", NULL));        /* the host's CPUs are no VM */
	const struct entity *d = model_find(&a.m, LAYER_DEVICE, "Disk 2", NULL);
	ck_assert_ptr_nonnull(d);
	ck_assert_double_eq_tol(entity_mean(d, M_H_LAT_R), 3.0, 1e-9);
	ck_assert_double_eq_tol(entity_mean(d, M_CMDS), 150, 1e-9);
	ck_assert_int_lt(d->series[M_G_LAT_R], 0); /* a host disk is not a guest disk */
	ck_assert_ptr_null(model_find(&a.m, LAYER_DEVICE, "_Total", NULL));
	analysis_free(&a);
	/* a guest's perfmon stays a guest's */
	static const struct mcol g[] = {{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.002}},
					{"LogicalDisk(D:)\\Disk Transfers/sec", mc_konst, {100}}};
	analysis_init(&a);
	run(&a, h, 1, g, 2);
	ck_assert_str_eq(a.m.caps[1].format, "perfmon");
	ck_assert_int_eq(a.m.caps[1].role, ROLE_GUEST);
	analysis_free(&a);
}
END_TEST

START_TEST(lowercase_export_counter)
{
	/* PowerShell's Export-Counter writes the counter paths in lower case */
	static const struct mcol h[] = {
		{"hyper-v virtual storage device(c:-clusterstorage-volume1-sql01-sql01_d.vhdx)\\read operations/sec", mc_konst, {100}},
		{"hyper-v virtual storage device(c:-clusterstorage-volume1-sql01-sql01_d.vhdx)\\latency", mc_konst, {0.002}},
		{"hyper-v hypervisor virtual processor(sql01:hv vp 0)\\cpu wait time per dispatch", mc_konst, {9000}},
		{"cluster csvfs(volume1)\\reads/sec", mc_konst, {100}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), NULL, 0);
	ck_assert_str_eq(a.m.caps[0].format, "hyperv");
	ck_assert_ptr_nonnull(model_find(&a.m, LAYER_VM, "sql01", NULL));
	const struct iop_vdisk *d = vd(&a, "c:-clusterstorage-volume1-sql01-sql01_d.vhdx");
	ck_assert(d && d->vol && strcmp(d->vol->name, "volume1") == 0);
	analysis_free(&a);
}
END_TEST

START_TEST(io_path_links)
{
	static const struct mcol h[] = {
		VHDX(SQLD, 1000, 1.0),
		VHDX(APPD, 300, 1.0),
		VHDX("D:-Hyper-V-WEB03-WEB03_C.vhdx", 200, 1.0),
		VHDX("--?-C:-ClusterStorage-Volume2-X-X.vhdx", 100, 1.0),
		VHDX("--fs01-vms-Y-Y.vhdx", 50, 1.0),
		{"Cluster CSVFS(Volume1)\\Reads/sec", mc_wave, {0.7 * 1300, 0.2 * 1300, 7, 0}},
		{"Cluster CSVFS(Volume1)\\Writes/sec", mc_wave, {0.3 * 1300, 0.06 * 1300, 7, 0}},
		{"Cluster CSVFS(Volume2)\\Reads/sec", mc_konst, {70}},
		{"Cluster CSVFS(Volume2)\\Writes/sec", mc_konst, {30}},
		{"SMB Client Shares(\\\\fs01\\vms)\\Read Requests/sec", mc_konst, {35}},
		{"SMB Client Shares(\\\\fs01\\vms)\\Write Requests/sec", mc_konst, {15}},
		{"PhysicalDisk(2)\\Disk Transfers/sec", mc_wave, {1300, 0.26 * 1300, 7, 0}},
		{"PhysicalDisk(2)\\Avg. Disk sec/Read", mc_konst, {0.001}},
		{"PhysicalDisk(1 D:)\\Disk Transfers/sec", mc_wave, {200, 52, 7, 0}},
		{"PhysicalDisk(1 D:)\\Avg. Disk sec/Read", mc_konst, {0.001}},
		{"Hyper-V Hypervisor Virtual Processor(APP-02:Hv VP 0)\\CPU Wait Time Per Dispatch", mc_konst, {8000}},
		{"Hyper-V Hypervisor Virtual Processor(APP:Hv VP 0)\\CPU Wait Time Per Dispatch", mc_konst, {8000}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), NULL, 0);
	const struct iop_vdisk *s = vd(&a, SQLD), *p = vd(&a, APPD), *w = vd(&a, "D:-Hyper-V-WEB03-WEB03_C.vhdx");
	const struct iop_vdisk *x = vd(&a, "--?-C:-ClusterStorage-Volume2-X-X.vhdx"), *y = vd(&a, "--fs01-vms-Y-Y.vhdx");
	ck_assert(s && p && w && x && y);
	/* the volume from the path: a fact */
	ck_assert_ptr_nonnull(s->vol);
	ck_assert_str_eq(s->vol->name, "Volume1");
	ck_assert_int_eq(s->vol_link.how, LINK_ID);
	ck_assert_str_eq(x->vol->name, "Volume2"); /* \\?\ prefix */
	ck_assert_ptr_nonnull(y->vol);
	ck_assert_str_eq(y->vol->name, "\\\\fs01\\vms");
	/* the CSV's disk from IOPS: a guess with its r */
	ck_assert_ptr_nonnull(s->dev);
	ck_assert_str_eq(s->dev->name, "Disk 2");
	ck_assert_int_eq(s->link.how, LINK_CORR);
	ck_assert(s->link.r >= 0.8);
	/* a drive letter: a fact */
	ck_assert_ptr_nonnull(w->dev);
	ck_assert_str_eq(w->dev->name, "D:");
	ck_assert_int_eq(w->link.how, LINK_ID);
	ck_assert_ptr_null(w->vol);
	/* the VM from the path: the whole component, "APP-02" not "APP" */
	ck_assert_str_eq(p->vm, "APP-02");
	ck_assert_ptr_null(s->vm); /* no virtual processor named SQL01 */
	ck_assert_str_eq(iop_vhdx_file(APPD), "APP-02_D.vhdx");
	/* nothing found on a healthy host */
	ck_assert_uint_eq(warnings(&a), 0);
	analysis_free(&a);
}
END_TEST

START_TEST(storage_qos)
{
	/* SQL01_D held at 500 normalized IOPS (62.5 IO/s of 64 KiB) in rows 60-140, Latency 40 ms, the
	 * storage below at 1 ms; a second VHDX slow above its storage without a flat rate */
	static const struct mcol h[] = {
		{VSD SQLD ")\\Read Operations/Sec", mc_pulse, {600, 62.5, 60, 140}},
		{VSD SQLD ")\\Write Operations/Sec", mc_konst, {0}},
		{VSD SQLD ")\\Read Bytes/sec", mc_pulse, {600 * 65536.0, 62.5 * 65536, 60, 140}},
		{VSD SQLD ")\\Write Bytes/sec", mc_konst, {0}},
		{VSD SQLD ")\\Latency", mc_pulse, {0.001, 0.040, 60, 140}},
		{VSD SQLD ")\\Lower Latency", mc_konst, {0.001}},
		{VSD SQLD ")\\Queue Length", mc_pulse, {0.6, 2.5, 60, 140}},
		{VSD APPD ")\\Read Operations/Sec", mc_wave, {300, 200, 3, 0}},
		{VSD APPD ")\\Write Operations/Sec", mc_konst, {0}},
		{VSD APPD ")\\Read Bytes/sec", mc_wave, {300 * 8192.0, 200 * 8192, 3, 0}},
		{VSD APPD ")\\Write Bytes/sec", mc_konst, {0}},
		{VSD APPD ")\\Latency", mc_pulse, {0.001, 0.030, 60, 140}},
		{VSD APPD ")\\Lower Latency", mc_konst, {0.001}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), NULL, 0);
	const struct finding *f = find_kind(&a, K_T_STORAGE_QOS, SQLD);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(f->sev, SEV_WARNING);
	ck_assert_ptr_nonnull(strstr(f->summary, "about 500 normalized IOPS"));
	ck_assert_ptr_null(find_kind(&a, K_T_STORAGE_QOS, APPD));
	ck_assert_ptr_nonnull(find_kind(&a, K_LAT_VD_ABOVE, APPD)); /* slow above its storage, not limited */
	ck_assert_ptr_nonnull(strstr(a.verdict, "Storage QoS maximum"));
	analysis_free(&a);
}
END_TEST

START_TEST(csv_redirected)
{
	static const struct mcol h[] = {
		{"Cluster CSVFS(Volume2)\\Reads/sec", mc_konst, {700}},
		{"Cluster CSVFS(Volume2)\\Writes/sec", mc_konst, {300}},
		{"Cluster CSVFS(Volume2)\\Avg. sec/Read", mc_pulse, {0.001, 0.020, 50, 150}},
		{"Cluster CSVFS Redirected IO(Volume2)\\Reads/sec", mc_pulse, {0, 700, 50, 150}},
		{"Cluster CSVFS Redirected IO(Volume2)\\Writes/sec", mc_pulse, {0, 300, 50, 150}},
		{"Cluster CSVFS(Volume1)\\Reads/sec", mc_konst, {700}},
		{"Cluster CSVFS(Volume1)\\Writes/sec", mc_konst, {300}},
		{"Cluster CSVFS Redirected IO(Volume1)\\Reads/sec", mc_konst, {70}}, /* 7%: metadata, not redirected mode */
		{"Cluster CSVFS Redirected IO(Volume1)\\Writes/sec", mc_konst, {0}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), NULL, 0);
	const struct finding *f = find_kind(&a, K_CSV_REDIRECTED, "Volume2");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->sev, SEV_CRITICAL); /* at 20 ms */
	ck_assert_ptr_null(find_kind(&a, K_CSV_REDIRECTED, "Volume1"));
	ck_assert_ptr_nonnull(strstr(a.verdict, "redirected"));
	analysis_free(&a);
}
END_TEST

START_TEST(host_disk_neighbour)
{
	/* APP-02's VHDX floods Disk 2 in rows 60-140: the disk at 45 ms, SQL01's VHDX waits with it */
	static const struct mcol h[] = {
		{VSD SQLD ")\\Read Operations/Sec", mc_wave, {500, 100, 7, 0}},
		{VSD SQLD ")\\Write Operations/Sec", mc_konst, {100}},
		{VSD SQLD ")\\Read Bytes/sec", mc_wave, {500 * 8192.0, 100 * 8192, 7, 0}},
		{VSD SQLD ")\\Write Bytes/sec", mc_konst, {100 * 8192.0}},
		{VSD SQLD ")\\Latency", mc_pulse, {0.001, 0.045, 60, 140}},
		{VSD SQLD ")\\Lower Latency", mc_pulse, {0.001, 0.045, 60, 140}},
		{VSD APPD ")\\Read Operations/Sec", mc_pulse, {100, 8000, 60, 140}},
		{VSD APPD ")\\Write Operations/Sec", mc_konst, {0}},
		{VSD APPD ")\\Read Bytes/sec", mc_pulse, {100 * 8192.0, 8000 * 8192.0, 60, 140}},
		{VSD APPD ")\\Write Bytes/sec", mc_konst, {0}},
		{VSD APPD ")\\Latency", mc_pulse, {0.001, 0.045, 60, 140}},
		{VSD APPD ")\\Lower Latency", mc_pulse, {0.001, 0.045, 60, 140}},
		{"Cluster CSVFS(Volume1)\\Reads/sec", mc_pulse, {700, 8600, 60, 140}},
		{"Cluster CSVFS(Volume1)\\Writes/sec", mc_konst, {100}},
		{"PhysicalDisk(2)\\Disk Transfers/sec", mc_pulse, {800, 8700, 60, 140}},
		{"PhysicalDisk(2)\\Disk Reads/sec", mc_pulse, {700, 8600, 60, 140}},
		{"PhysicalDisk(2)\\Disk Writes/sec", mc_konst, {100}},
		{"PhysicalDisk(2)\\Avg. Disk sec/Read", mc_pulse, {0.001, 0.045, 60, 140}},
		{"PhysicalDisk(2)\\Avg. Disk sec/Write", mc_pulse, {0.001, 0.045, 60, 140}},
		{"PhysicalDisk(2)\\Current Disk Queue Length", mc_pulse, {1, 390, 60, 140}},
		{"Hyper-V Hypervisor Virtual Processor(SQL01:Hv VP 0)\\CPU Wait Time Per Dispatch", mc_konst, {8000}},
		{"Hyper-V Hypervisor Virtual Processor(APP-02:Hv VP 0)\\CPU Wait Time Per Dispatch", mc_konst, {8000}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), NULL, 0);
	const struct finding *f = find_kind(&a, K_LAT_HOST_DISK, "Disk 2");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->sev, SEV_WARNING); /* 45 ms: under the 50 ms critical */
	ck_assert_ptr_nonnull(f->driver);
	ck_assert_str_eq(f->driver, "APP-02 (APP-02_D.vhdx)");
	ck_assert_ptr_nonnull(f->victims);
	ck_assert_str_eq(f->victims, "SQL01");
	ck_assert_ptr_nonnull(strstr(f->load, "guessed from IOPS")); /* the CSV's disk is a guess */
	ck_assert_ptr_null(find_kind(&a, K_T_STORAGE_QOS, NULL));    /* the storage below is slow too */
	analysis_free(&a);
}
END_TEST

/* A slow host disk without a neighbour and without a guest capture: the verdict names what it
 * holds, the busiest VHDX, its VM and the volume its path names (check_beyond's
 * hyperv_disk_names_its_vhdx has the guest). */
START_TEST(host_disk_names_its_vhdx)
{
	static const struct mcol h[] = {
		{VSD SQLD ")\\Read Operations/Sec", mc_wave, {1500, 300, 7, 0}},
		{VSD SQLD ")\\Write Operations/Sec", mc_konst, {100}},
		{VSD SQLD ")\\Read Bytes/sec", mc_wave, {1500 * 8192.0, 300 * 8192, 7, 0}},
		{VSD SQLD ")\\Write Bytes/sec", mc_konst, {100 * 8192.0}},
		{VSD SQLD ")\\Latency", mc_pulse, {0.001, 0.045, 60, 140}},
		{VSD SQLD ")\\Lower Latency", mc_pulse, {0.001, 0.045, 60, 140}},
		VHDX(APPD, 100, 1.0),
		{"Cluster CSVFS(Volume1)\\Reads/sec", mc_wave, {1570, 300, 7, 0}},
		{"Cluster CSVFS(Volume1)\\Writes/sec", mc_konst, {130}},
		{"PhysicalDisk(2)\\Disk Transfers/sec", mc_wave, {1700, 300, 7, 0}},
		{"PhysicalDisk(2)\\Disk Reads/sec", mc_wave, {1570, 300, 7, 0}},
		{"PhysicalDisk(2)\\Disk Writes/sec", mc_konst, {130}},
		{"PhysicalDisk(2)\\Avg. Disk sec/Read", mc_pulse, {0.001, 0.045, 60, 140}},
		{"PhysicalDisk(2)\\Avg. Disk sec/Write", mc_pulse, {0.001, 0.045, 60, 140}},
		{"PhysicalDisk(2)\\Current Disk Queue Length", mc_pulse, {1, 70, 60, 140}},
		{"Hyper-V Hypervisor Virtual Processor(SQL01:Hv VP 0)\\CPU Wait Time Per Dispatch", mc_konst, {8000}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), NULL, 0);
	ck_assert_ptr_nonnull(find_kind(&a, K_LAT_HOST_DISK, "Disk 2"));
	ck_assert_msg(strstr(a.verdict, "it holds SQL01's SQL01_D.vhdx on Volume1"), "%s", a.verdict);
	analysis_free(&a);
}
END_TEST

START_TEST(host_disk_large_io)
{
	/* a backup's 1 MiB reads at 27 ms: the large-IO band (35 ms), no finding; the same at 8 KiB is one */
	static const struct mcol h[] = {
		{"PhysicalDisk(2)\\Disk Transfers/sec", mc_konst, {300}},
		{"PhysicalDisk(2)\\Disk Reads/sec", mc_konst, {300}},
		{"PhysicalDisk(2)\\Disk Writes/sec", mc_konst, {0}},
		{"PhysicalDisk(2)\\Disk Read Bytes/sec", mc_konst, {300 * 1048576.0}},
		{"PhysicalDisk(2)\\Disk Write Bytes/sec", mc_konst, {0}},
		{"PhysicalDisk(2)\\Avg. Disk sec/Read", mc_konst, {0.027}},
		{"PhysicalDisk(3)\\Disk Transfers/sec", mc_konst, {300}},
		{"PhysicalDisk(3)\\Disk Reads/sec", mc_konst, {300}},
		{"PhysicalDisk(3)\\Disk Writes/sec", mc_konst, {0}},
		{"PhysicalDisk(3)\\Disk Read Bytes/sec", mc_konst, {300 * 8192.0}},
		{"PhysicalDisk(3)\\Disk Write Bytes/sec", mc_konst, {0}},
		{"PhysicalDisk(3)\\Avg. Disk sec/Read", mc_konst, {0.027}},
		{"Hyper-V Hypervisor Virtual Processor(SQL01:Hv VP 0)\\CPU Wait Time Per Dispatch", mc_konst, {8000}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), NULL, 0);
	ck_assert_ptr_null(find_kind(&a, K_LAT_HOST_DISK, "Disk 2"));
	ck_assert_ptr_nonnull(find_kind(&a, K_LAT_HOST_DISK, "Disk 3"));
	analysis_free(&a);
}
END_TEST

START_TEST(vcpu_wait_and_coverage)
{
	static const struct mcol h[] = {
		VHDX(SQLD, 1000, 1.0),
		{"PhysicalDisk(2)\\Disk Transfers/sec", mc_wave, {1000, 260, 7, 0}},
		{"PhysicalDisk(2)\\Avg. Disk sec/Read", mc_konst, {0.001}},
		{"Hyper-V Hypervisor Virtual Processor(SQL01:Hv VP 0)\\CPU Wait Time Per Dispatch", mc_pulse, {8000, 200000, 60, 140}},
		{"Hyper-V Hypervisor Virtual Processor(SQL01:Hv VP 1)\\CPU Wait Time Per Dispatch", mc_pulse, {8000, 220000, 60, 140}},
		{"Hyper-V Hypervisor Virtual Processor(WEB03:Hv VP 0)\\CPU Wait Time Per Dispatch", mc_konst, {40000}},
		{"Hyper-V Hypervisor Logical Processor(_Total)\\% Total Run Time", mc_pulse, {40, 95, 60, 140}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), NULL, 0);
	const struct finding *f = find_kind(&a, K_CPU_CONTENTION, "SQL01");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->sev, SEV_CRITICAL);
	ck_assert_ptr_nonnull(strstr(f->summary, "95% busy"));
	ck_assert_ptr_null(find_kind(&a, K_CPU_CONTENTION, "WEB03")); /* 40 us: under the 60 us rule */
	/* a host-only capture: the guest not assessed, nor what perfmon cannot show */
	ck_assert_int_eq(a.cov.layer[LAYER_GUEST].status, COV_NOT_ASSESSED);
	ck_assert_int_ne(a.cov.layer[LAYER_VSCSI].status, COV_NOT_ASSESSED);
	ck_assert_int_ne(a.cov.layer[LAYER_DEVICE].status, COV_NOT_ASSESSED);
	ck_assert_int_eq(a.cov.layer[LAYER_WORLD].status, COV_NOT_ASSESSED);
	ck_assert_int_eq(a.cov.layer[LAYER_ADAPTER].status, COV_NOT_ASSESSED);
	ck_assert_int_eq(a.cov.layer[LAYER_ARRAY].status, COV_NOT_ASSESSED);
	ck_assert_ptr_nonnull(strstr(a.verdict, "for CPU, not storage"));
	analysis_free(&a);
}
END_TEST

START_TEST(guest_waits_above_the_host)
{
	/* the guest's D: at 40 ms with 80 IOs queued while its VHDX answers in 1 ms: queue.guest_hidden,
	 * not VMware's vSCSI limit */
	static const struct mcol h[] = {VHDX(SQLD, 2000, 1.0)};
	static const struct mcol g[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_wave, {2000, 400, 7, 0}},
		{"LogicalDisk(D:)\\Disk Reads/sec", mc_wave, {1400, 280, 7, 0}},
		{"LogicalDisk(D:)\\Disk Writes/sec", mc_wave, {600, 120, 7, 0}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Transfer", mc_pulse, {0.0012, 0.040, 60, 140}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_pulse, {0.0012, 0.040, 60, 140}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Write", mc_pulse, {0.0012, 0.040, 60, 140}},
		{"LogicalDisk(D:)\\Current Disk Queue Length", mc_pulse, {2, 80, 60, 140}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), g, (int)(sizeof g / sizeof g[0]));
	const struct finding *f = find_kind(&a, K_Q_GUEST_HIDDEN, "D:");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(f->sev, SEV_WARNING);
	ck_assert_ptr_nonnull(strstr(f->advice, "above the Hyper-V host"));
	ck_assert_ptr_null(find_kind(&a, K_Q_GUEST_VSCSI_CAP, NULL));
	analysis_free(&a);
}
END_TEST

START_TEST(vhdx_latency_unit)
{
	/* the VHDX's Latency 1,000 times its guest's (written in ms, not s): said, not trusted */
	static const struct mcol h[] = {
		{VSD SQLD ")\\Read Operations/Sec", mc_wave, {700, 140, 7, 0}},
		{VSD SQLD ")\\Write Operations/Sec", mc_wave, {300, 60, 7, 0}},
		{VSD SQLD ")\\Latency", mc_konst, {1.2}},
		{VSD SQLD ")\\Lower Latency", mc_konst, {1.1}},
	};
	static const struct mcol g[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_wave, {1000, 200, 7, 0}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Transfer", mc_konst, {0.0012}},
	};
	struct analysis a;
	analysis_init(&a);
	run(&a, h, (int)(sizeof h / sizeof h[0]), g, (int)(sizeof g / sizeof g[0]));
	ck_assert_ptr_nonnull(strstr(a.verdict, "may not be in seconds"));
	analysis_free(&a);
	/* in seconds, as relog writes it: nothing said */
	static const struct mcol h2[] = {
		{VSD SQLD ")\\Read Operations/Sec", mc_wave, {700, 140, 7, 0}},
		{VSD SQLD ")\\Write Operations/Sec", mc_wave, {300, 60, 7, 0}},
		{VSD SQLD ")\\Latency", mc_konst, {0.0011}},
		{VSD SQLD ")\\Lower Latency", mc_konst, {0.0010}},
	};
	analysis_init(&a);
	run(&a, h2, (int)(sizeof h2 / sizeof h2[0]), g, (int)(sizeof g / sizeof g[0]));
	ck_assert_ptr_null(strstr(a.verdict, "may not be in seconds"));
	analysis_free(&a);
}
END_TEST

Suite *hyperv_suite(void)
{
	Suite *s = suite_create("hyperv");
	TCase *tc = tcase_create("hyperv");
	tcase_add_test(tc, format_and_columns);
	tcase_add_test(tc, lowercase_export_counter);
	tcase_add_test(tc, io_path_links);
	tcase_add_test(tc, storage_qos);
	tcase_add_test(tc, csv_redirected);
	tcase_add_test(tc, host_disk_neighbour);
	tcase_add_test(tc, host_disk_names_its_vhdx);
	tcase_add_test(tc, host_disk_large_io);
	tcase_add_test(tc, vcpu_wait_and_coverage);
	tcase_add_test(tc, guest_waits_above_the_host);
	tcase_add_test(tc, vhdx_latency_unit);
	suite_add_tcase(s, tc);
	return s;
}
