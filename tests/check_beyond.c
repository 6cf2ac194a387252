/* check_beyond.c — issue 36's detectors on small captures: one channel or target of an adapter
 * slow while its sibling paths are fast (latency.path), an adapter at its bandwidth ceiling
 * (bandwidth.ceiling) and their null shapes. Its tcase runs in the iopath suite. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "anopts.h"
#include "commands.h"
#include "maps.h"
#include "vmklog.h"
#include "memcap.h"
#include "suites.h"

void beyond_tcases(Suite *s);

/* The host capture (rows of iv s) analysed with rules r (NULL: defaults). */
static void run_host_iv(struct analysis *a, const struct mcol *h, int nh, const struct rules *r, int rows, int iv);
static void run_host(struct analysis *a, const struct mcol *h, int nh, const struct rules *r)
{
	run_host_iv(a, h, nh, r, 200, 2);
}

static void run_host_iv(struct analysis *a, const struct mcol *h, int nh, const struct rules *r, int rows, int iv)
{
	struct buf hb, msgs;
	buf_init(&hb);
	buf_init(&msgs);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	if (r)
		a->rules = *r;
	memcap(&hb, false, "esx01", h, nh, rows, iv);
	ck_assert_int_eq(model_add_capture_mem(&a->m, "esx.csv", hb.data, hb.len, &co), 0);
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_run(a, &o);
	buf_free(&hb);
	buf_free(&msgs);
}

static int count_kind(const struct analysis *a, enum kind k)
{
	int n = 0;
	for (size_t i = 0; i < a->nf; i++)
		n += a->f[i].kind == k;
	return n;
}

static const struct finding *kind_of(const struct analysis *a, enum kind k)
{
	for (size_t i = 0; i < a->nf; i++)
		if (a->f[i].kind == k)
			return &a->f[i];
	return NULL;
}

#define PATH(n, c, d)                                                                                                  \
	{"Physical Disk Path(vmhba64:C" #c ":T0:L" #n ")\\Commands/sec", mc_wave, {200, 50, 3 + n}},                   \
	{                                                                                                              \
		"Physical Disk Path(vmhba64:C" #c ":T0:L" #n ")\\Average Driver MilliSec/Command", mc_konst,           \
		{                                                                                                      \
			d                                                                                              \
		}                                                                                                      \
	}
#define DEV(x, l, n)                                                                                                   \
	{"Physical Disk SCSI Device(naa." #x ")\\Commands/sec", mc_wave, {400, 100, 3 + l}},                           \
	{                                                                                                              \
		"Physical Disk SCSI Device(naa." #x ")\\Average Driver MilliSec/Command", mc_konst,                    \
		{                                                                                                      \
			n                                                                                              \
		}                                                                                                      \
	}

/* Software iSCSI with port binding: every LUN's C1 path at 31 ms, its C0 path at 1.2 ms. One
 * finding on vmhba64:C1 naming the network path; the LUNs' device latency folded into it. */
START_TEST(one_slow_channel_inside_an_adapter)
{
	static const struct mcol h[] = {
		DEV(A, 1, 16.1),
		DEV(B, 2, 16.1),
		DEV(C, 3, 16.1),
		PATH(1, 0, 1.2),
		PATH(1, 1, 31),
		PATH(2, 0, 1.2),
		PATH(2, 1, 31),
		PATH(3, 0, 1.2),
		PATH(3, 1, 31),
		{"Physical Disk Adapter(vmhba64)\\Commands/sec", mc_wave, {1200, 300, 5}},
		{"Physical Disk Adapter(vmhba64)\\Average Driver MilliSec/Command", mc_konst, {16.1}},
	};
	struct analysis a;
	analysis_init(&a);
	run_host(&a, h, (int)(sizeof h / sizeof h[0]), NULL);
	ck_assert_int_eq(count_kind(&a, K_LAT_PATH), 1);
	ck_assert_int_eq(count_kind(&a, K_LAT_DEVICE), 0);
	const struct finding *f = kind_of(&a, K_LAT_PATH);
	ck_assert_str_eq(f->entity, "vmhba64:C1");
	ck_assert_int_eq(f->sev, SEV_CRITICAL);
	ck_assert_double_eq_tol(f->ev[0].median, 31, 0.01);
	ck_assert_ptr_nonnull(strstr(f->summary, "naa.B"));
	ck_assert_ptr_nonnull(strstr(f->advice, "MTU"));
	ck_assert_ptr_nonnull(strstr(a.verdict, "path group inside the adapter"));
	ck_assert_ptr_null(strstr(a.verdict, "array or fabric"));
	analysis_free(&a);
}
END_TEST

/* Both channels slow: the LUNs (or the array), not one path — no latency.path. */
START_TEST(every_channel_slow_is_not_a_path)
{
	static const struct mcol h[] = {
		DEV(A, 1, 31), DEV(B, 2, 31), PATH(1, 0, 31), PATH(1, 1, 31), PATH(2, 0, 31), PATH(2, 1, 31),
	};
	struct analysis a;
	analysis_init(&a);
	run_host(&a, h, (int)(sizeof h / sizeof h[0]), NULL);
	ck_assert_int_eq(count_kind(&a, K_LAT_PATH), 0);
	ck_assert_int_ge(count_kind(&a, K_LAT_DEVICE), 1);
	analysis_free(&a);
}
END_TEST

/* An FC adapter with one channel reaching two array ports: target T1's paths slow, T0's fast. */
START_TEST(one_slow_target_inside_an_adapter)
{
	static const struct mcol h[] = {
		DEV(A, 1, 16.1),
		DEV(B, 2, 16.1),
		{"Physical Disk Path(vmhba2:C0:T0:L1)\\Commands/sec", mc_wave, {200, 50, 4}},
		{"Physical Disk Path(vmhba2:C0:T0:L1)\\Average Driver MilliSec/Command", mc_konst, {0.8}},
		{"Physical Disk Path(vmhba2:C0:T1:L1)\\Commands/sec", mc_wave, {200, 50, 4}},
		{"Physical Disk Path(vmhba2:C0:T1:L1)\\Average Driver MilliSec/Command", mc_konst, {31}},
		{"Physical Disk Path(vmhba2:C0:T0:L2)\\Commands/sec", mc_wave, {200, 50, 5}},
		{"Physical Disk Path(vmhba2:C0:T0:L2)\\Average Driver MilliSec/Command", mc_konst, {0.8}},
		{"Physical Disk Path(vmhba2:C0:T1:L2)\\Commands/sec", mc_wave, {200, 50, 5}},
		{"Physical Disk Path(vmhba2:C0:T1:L2)\\Average Driver MilliSec/Command", mc_konst, {31}},
	};
	struct analysis a;
	analysis_init(&a);
	run_host(&a, h, (int)(sizeof h / sizeof h[0]), NULL);
	const struct finding *f = kind_of(&a, K_LAT_PATH);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->entity, "vmhba2:T1");
	ck_assert_ptr_nonnull(strstr(f->advice, "array port"));
	analysis_free(&a);
}
END_TEST

/* 512 KiB reads: 100 MiB/s at 0.7 ms for 50 rows, then ~760 MiB/s (+-3 %) at ~20 ms. */
static const struct mcol bw_capture[] = {
	{"Physical Disk Adapter(vmhba2)\\Commands/sec", mc_pulse, {200, 1520, 50, 1000}},
	{"Physical Disk Adapter(vmhba2)\\MBytes Read/sec", mc_pulse, {100, 760, 50, 1000}},
	{"Physical Disk Adapter(vmhba2)\\MBytes Written/sec", mc_konst, {2}},
	{"Physical Disk Adapter(vmhba2)\\Average Driver MilliSec/Command", mc_pulse, {0.7, 20, 50, 1000}},
};

START_TEST(an_adapter_at_its_bandwidth_ceiling)
{
	struct analysis a;
	analysis_init(&a);
	run_host(&a, bw_capture, 4, NULL);
	const struct finding *f = kind_of(&a, K_BW_CEILING);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->entity, "vmhba2");
	ck_assert_int_eq(f->sev, SEV_WARNING);
	ck_assert(f->heuristic);
	ck_assert_ptr_nonnull(strstr(f->summary, "8GFC"));
	ck_assert_ptr_null(strstr(f->advice, "queue depth"));
	ck_assert_ptr_nonnull(strstr(a.verdict, "bandwidth ceiling"));
	analysis_free(&a);
	/* the rule says the link is 16 Gb: 760 MiB/s is half of it, no ceiling */
	struct rules r;
	rules_init(&r);
	r.v[R_ADP_LINK_MBPS] = 1600;
	analysis_init(&a);
	run_host(&a, bw_capture, 4, &r);
	ck_assert_ptr_null(kind_of(&a, K_BW_CEILING));
	analysis_free(&a);
	/* ... and 8 Gb: a fact, not a guess */
	r.v[R_ADP_LINK_MBPS] = 800;
	analysis_init(&a);
	run_host(&a, bw_capture, 4, &r);
	f = kind_of(&a, K_BW_CEILING);
	ck_assert_ptr_nonnull(f);
	ck_assert(!f->heuristic);
	ck_assert_ptr_nonnull(strstr(f->summary, "adapter.link_mbps"));
	analysis_free(&a);
}
END_TEST

/* The null shape: a healthy OLTP at ~470 MiB/s of 8 KiB on one HBA, latency flat: no ceiling. */
START_TEST(busy_oltp_is_not_a_ceiling)
{
	static const struct mcol h[] = {
		{"Physical Disk Adapter(vmhba2)\\Commands/sec", mc_pulse, {20000, 60000, 50, 1000}},
		{"Physical Disk Adapter(vmhba2)\\MBytes Read/sec", mc_pulse, {110, 330, 50, 1000}},
		{"Physical Disk Adapter(vmhba2)\\MBytes Written/sec", mc_pulse, {50, 140, 50, 1000}},
		{"Physical Disk Adapter(vmhba2)\\Average Driver MilliSec/Command", mc_wave, {0.5, 0.05, 7}},
	};
	struct analysis a;
	analysis_init(&a);
	run_host(&a, h, 4, NULL);
	ck_assert_ptr_null(kind_of(&a, K_BW_CEILING));
	analysis_free(&a);
}
END_TEST

/* A rule holds for a duration: sustain.samples (5) rows at 2-5 s, fewer at coarser intervals as
 * long as they last longer than sustain.seconds (20 s), never under sustain.min_samples (2). */
START_TEST(sustain_is_a_duration)
{
	struct rules r;
	rules_init(&r);
	ck_assert_int_eq(rules_sustain_samples(&r, 2), 5);
	ck_assert_int_eq(rules_sustain_samples(&r, 4), 5);
	ck_assert_int_eq(rules_sustain_samples(&r, 5), 5);
	ck_assert_int_eq(rules_sustain_samples(&r, 5.003), 5);
	ck_assert_int_eq(rules_sustain_samples(&r, 10), 3);
	ck_assert_int_eq(rules_sustain_samples(&r, 15), 2);
	ck_assert_int_eq(rules_sustain_samples(&r, 300), 2);
}
END_TEST

/* esxtop -d 300: one row at DAVG 54 ms (over twice the 15 ms rule) is a finding that says the
 * sampling cannot tell how long within it; one row at 25 ms is not; the coverage says what 300 s
 * rows cannot show. */
START_TEST(one_coarse_row_far_above)
{
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_konst, {500}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_pulse, {3.4, 54, 20, 21}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_konst, {500}},
		{"Physical Disk SCSI Device(naa.B)\\Average Driver MilliSec/Command", mc_pulse, {3.4, 25, 20, 21}},
	};
	struct analysis a;
	analysis_init(&a);
	run_host_iv(&a, h, 4, NULL, 48, 300);
	int n = 0;
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_DEVICE) {
			n++;
			ck_assert_str_eq(a.f[i].entity, "naa.A");
			ck_assert_ptr_nonnull(
				strstr(a.f[i].summary, "the sampling (300 s) cannot tell how long within the row"));
		}
	ck_assert_int_eq(n, 1);
	ck_assert_ptr_nonnull(a.cov.layer[LAYER_DEVICE].why);
	ck_assert_ptr_nonnull(strstr(a.cov.layer[LAYER_DEVICE].why, "one row every 300 s"));
	analysis_free(&a);
}
END_TEST

/* Every virtual disk controller: VM:scsiC:T, VM:nvmeC:T, VM:sataC:T in names and in --map. */
START_TEST(every_virtual_disk_controller)
{
	const char *n = "SQL01:nvme0:1";
	ck_assert_ptr_eq(vdisk_ctrl(n), n + 5);
	ck_assert_str_eq(vdisk_bus(n), "nvme");
	ck_assert_str_eq(vdisk_bus("SQL01:scsi1:15"), "scsi");
	const char *u = "APP02 (104c07ff-3663-44fb-9d89-a563c801611c):sata0:2";
	ck_assert_str_eq(vdisk_ctrl(u), ":sata0:2");
	ck_assert_ptr_null(vdisk_ctrl("SQL01"));
	ck_assert_ptr_null(vdisk_ctrl("SQL01:nvme0"));
	ck_assert_ptr_null(vdisk_ctrl("SQL01:nvmeX:1"));
	ck_assert_ptr_null(vdisk_ctrl("SQL01:usb0:1"));
	char path[] = "/tmp/iopsy-map-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *fp = fdopen(fd, "w");
	fputs("SQL01\\D: = SQL01:nvme0:1\nSQL01\\E: = SQL01:sata0:0\nSQL01\\F: = SQL01:scsi0:3\nSQL01\\G: = "
	      "SQL01:usb0:1\n",
	      fp);
	fclose(fp);
	struct diskmap dm;
	struct buf msgs;
	buf_init(&msgs);
	ck_assert_int_eq(diskmap_read(&dm, path, DIAG_INTO(&msgs)), ERR_FORMAT); /* the usb line only */
	ck_assert_uint_eq(dm.n, 3);
	ck_assert_str_eq(dm.l[0].vdisk, "SQL01:nvme0:1");
	ck_assert_str_eq(dm.l[1].vdisk, "SQL01:sata0:0");
	ck_assert_msg(msgs.data && strstr(msgs.data, "VM:nvmeC:T"), "%s", msgs.data ? msgs.data : "(none)");
	diskmap_free(&dm);
	buf_free(&msgs);
	unlink(path);
}
END_TEST

/* A snapshot storm on a non-ATS LUN: 30 conflicts/s on 35 reservations/s over rows 50-150 while
 * DAVG is 25 ms: reservation contention, the device latency folded in (the array cleared). */
START_TEST(reservation_contention)
{
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_konst, {800}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_pulse, {1.0, 25, 50, 150}},
		{"Physical Disk SCSI Device(naa.A)\\Reserves/sec", mc_pulse, {0, 35, 50, 150}},
		{"Physical Disk SCSI Device(naa.A)\\Conflicts/sec", mc_pulse, {0, 30, 50, 150}},
	};
	struct analysis a;
	analysis_init(&a);
	run_host(&a, h, 4, NULL);
	ck_assert_int_eq(count_kind(&a, K_RSV_CONFLICT), 1);
	ck_assert_int_eq(count_kind(&a, K_LAT_DEVICE), 0);
	const struct finding *f = kind_of(&a, K_RSV_CONFLICT);
	ck_assert_int_eq(f->sev, SEV_WARNING);
	ck_assert_ptr_nonnull(strstr(f->summary, "not the array"));
	ck_assert_ptr_nonnull(strstr(f->advice, "ATS"));
	ck_assert_ptr_nonnull(strstr(a.verdict, "SCSI reservations"));
	analysis_free(&a);
}
END_TEST

/* The null shapes: an ATS snapshot storm (no reservations, no conflicts) with a latency bump is
 * no reservation finding; conflicts without a stall are information only. */
START_TEST(ats_storm_is_not_a_reservation_problem)
{
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_konst, {800}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_pulse, {1.0, 3, 50, 150}},
		{"Physical Disk SCSI Device(naa.A)\\Reserves/sec", mc_konst, {0}},
		{"Physical Disk SCSI Device(naa.A)\\Conflicts/sec", mc_konst, {0}},
		{"Physical Disk SCSI Device(naa.B)\\Commands/sec", mc_konst, {800}},
		{"Physical Disk SCSI Device(naa.B)\\Average Driver MilliSec/Command", mc_konst, {1.0}},
		{"Physical Disk SCSI Device(naa.B)\\Reserves/sec", mc_pulse, {0, 35, 50, 150}},
		{"Physical Disk SCSI Device(naa.B)\\Conflicts/sec", mc_pulse, {0, 30, 50, 150}},
	};
	struct analysis a;
	analysis_init(&a);
	run_host(&a, h, 8, NULL);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_RSV_CONFLICT) {
			ck_assert_str_eq(a.f[i].entity, "naa.B");
			ck_assert_int_eq(a.f[i].sev, SEV_INFO);
		}
	analysis_free(&a);
}
END_TEST

/* vmkernel.log: D:0x18 RESERVATION CONFLICT and "Long VMFS rsv time" lines. */
START_TEST(reservation_lines_of_the_log)
{
	static const char text[] =
		"2026-07-27T13:02:00.100Z cpu3:32800)ScsiDeviceIO: 2331: Cmd(0x412e803e8d00) 0x2a, CmdSN 0x1b3 from "
		"world "
		"32818 to dev \"naa.A\" failed H:0x0 D:0x18 P:0x0 Possible sense data: 0x0 0x0 0x0.\n"
		"2026-07-27T13:02:01.200Z cpu1:33001)WARNING: FS3Misc: 1787: Long VMFS rsv time on 'DS01' (held for "
		"2263 "
		"msecs). # R: 1, # W: 1 bytesXfer: 2 sectors\n";
	struct vmk_log log;
	struct buf msgs;
	buf_init(&msgs);
	ck_assert_int_eq(vmklog_parse(&log, text, strlen(text), DIAG_INTO(&msgs)), 0);
	ck_assert_uint_eq(log.n, 2);
	ck_assert_int_eq(log.ev[0].kind, VMK_FAILED);
	ck_assert_uint_eq(log.ev[0].dev_status, 0x18);
	ck_assert_int_eq(log.ev[1].kind, VMK_RSV_LONG);
	ck_assert_str_eq(log.ev[1].device, "DS01");
	ck_assert_double_eq_tol(log.ev[1].value, 2263, 1e-9);
	vmklog_free(&log);
	buf_free(&msgs);
	/* without esxtop -a: the log's conflicts, a minute apart at most, with DAVG 25 ms meanwhile */
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_konst, {800}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_pulse, {1.0, 25, 50, 150}},
	};
	struct buf lb;
	buf_init(&lb);
	for (int s = 100; s <= 300; s += 20) /* rows 50-150 of 2 s: 13:01:40 .. 13:05:00 */
		buf_printf(&lb,
			   "2026-07-27T13:%02d:%02d.000Z cpu3:32800)ScsiDeviceIO: 2331: Cmd(0x412e803e8d00) 0x2a, "
			   "CmdSN 0x1b3 from world 32818 to dev \"naa.A\" failed H:0x0 D:0x18 P:0x0\n",
			   s / 60, s % 60);
	struct analysis a;
	analysis_init(&a);
	ck_assert_int_eq(vmklog_parse(&a.vmk, lb.data, lb.len, DIAG_INTO(&msgs)), 0);
	a.have_vmk = true;
	run_host(&a, h, 2, NULL);
	const struct finding *f = kind_of(&a, K_RSV_CONFLICT);
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(strstr(f->summary, "D:0x18"));
	ck_assert_int_eq(count_kind(&a, K_LAT_DEVICE), 0);
	analysis_free(&a);
	buf_free(&lb);
	buf_free(&msgs);
}
END_TEST

/* ESXi 7/8 families from real excerpts (tests/data/README.md): HPP/NVMe-oF failover and SVM's
 * failed IO are read as path events; a failed command's opcode is kept; a line of no family is
 * counted with an example. */
START_TEST(esxi78_log_families)
{
	const char *dir = getenv("IOPSY_SRCDIR") ? getenv("IOPSY_SRCDIR") : ".";
	char p[1024];
	snprintf(p, sizeof p, "%s/tests/data/vmklog/esxi8-nvmeof-hpp-failover.log", dir);
	struct vmk_log log;
	struct buf msgs;
	buf_init(&msgs);
	ck_assert_int_eq(vmklog_read(&log, p, DIAG_INTO(&msgs)), 0);
	ck_assert_uint_eq(log.n, 4);
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(log.ev[i].kind, VMK_PATH);
	ck_assert_str_eq(log.ev[0].device, "eui.7efbecae90204d1882b98c46631b0f34");
	ck_assert_ptr_nonnull(strstr(log.ev[1].state, "queue not connected"));
	ck_assert_str_eq(log.ev[2].path, "vmhba69");
	ck_assert_ptr_nonnull(strstr(log.ev[3].state, "0x80d"));
	ck_assert_int_eq(log.unknown, 0);
	vmklog_free(&log);
	snprintf(p, sizeof p, "%s/tests/data/vmklog/esxi7-svm-no-connection.log", dir);
	ck_assert_int_eq(vmklog_read(&log, p, DIAG_INTO(&msgs)), 0);
	ck_assert_uint_eq(log.n, 2);
	ck_assert_ptr_nonnull(strstr(log.ev[0].state, "No connection"));
	vmklog_free(&log);
	static const char text[] =
		"2026-07-27T13:02:00.100Z cpu3:32800)ScsiDeviceIO: 3463: Cmd(0x45a203a0a2c0) 0x89, CmdSN 0x2a from "
		"world "
		"0 to dev \"naa.A\" failed H:0x5 D:0x0 P:0x0 Invalid sense data: 0x0 0x0 0x0.\n"
		"2026-07-27T13:02:01.000Z cpu3:32800)ScsiPath: 4000: Path vmhba64:C1:T0:L3 is being removed\n"
		"2026-07-27T13:02:02.000Z cpu3:32800)ScsiDevice: 1234: Something new about device naa.A\n";
	ck_assert_int_eq(vmklog_parse(&log, text, strlen(text), DIAG_INTO(&msgs)), 0);
	ck_assert_uint_eq(log.n, 2);
	ck_assert_int_eq(log.ev[0].opcode, 0x89);
	ck_assert_ptr_nonnull(strstr(vmk_opcode_name(log.ev[0].opcode), "ATS"));
	ck_assert_str_eq(log.ev[1].path, "vmhba64:C1:T0:L3");
	ck_assert_str_eq(log.ev[1].state, "path removed");
	ck_assert_int_eq(log.unknown, 1);
	ck_assert_int_eq(log.unknown_line, 3);
	ck_assert_ptr_nonnull(strstr(log.unknown_example, "Something new"));
	vmklog_free(&log);
	/* in the analysis: the aborted commands named by opcode, the log's lines accounted in the inputs */
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_konst, {800}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {1.0}},
	};
	struct analysis a;
	analysis_init(&a);
	ck_assert_int_eq(vmklog_parse(&a.vmk, text, strlen(text), DIAG_INTO(&msgs)), 0);
	a.have_vmk = true;
	a.opts.vmklog = "vmkernel.log";
	run_host(&a, h, 2, NULL);
	bool named = false;
	for (size_t i = 0; i < a.nf; i++)
		named |= a.f[i].kind == K_ERR_ABORTS_RESETS && strstr(a.f[i].summary, "COMPARE AND WRITE") != NULL;
	ck_assert(named);
	bool said = false;
	for (size_t i = 0; i < a.ninputs; i++)
		said |= a.inputs[i].text && strstr(a.inputs[i].text, "3 lines read") &&
			strstr(a.inputs[i].text, "Something new");
	ck_assert(said);
	analysis_free(&a);
	buf_free(&msgs);
}
END_TEST

/* The link rate read from vmkernel.log (issue 36): qlnativefc's and lpfc's link-up lines with the
 * negotiated speed (line shapes: doc/rules-sources.md, "Link speeds in vmkernel.log"), tied to the
 * adapter they name; the rate is a fact that ranks before adapter.link_mbps and the nominal guess. */
static const char link_log[] =
	"2026-07-27T12:31:07.418Z cpu12:2097741)qlnativefc: vmhba2(3b:0.0): LOOP UP detected (8 Gbps).\n"
	"2026-07-27T12:31:07.902Z cpu20:2097802)lpfc: lpfc_mbx_cmpl_read_topology:3391: vmhba3 1303 Link Up Event x1 "
	"received Data: x1 x0 x80 x0 x0 x0 0\n"
	"2026-07-27T12:31:09.000Z cpu12:2097741)qlnativefc: vmhba4(3b:0.1): LOOP UP detected (? Gbps).\n";

static void run_with_log(struct analysis *a, const char *log, const struct mcol *h, int nh, const struct rules *r)
{
	struct buf msgs;
	buf_init(&msgs);
	analysis_init(a);
	ck_assert_int_eq(vmklog_parse(&a->vmk, log, strlen(log), DIAG_INTO(&msgs)), 0);
	a->have_vmk = true;
	run_host(a, h, nh, r);
	buf_free(&msgs);
}

START_TEST(link_rate_read_from_the_log)
{
	struct vmk_log log;
	struct buf msgs;
	buf_init(&msgs);
	ck_assert_int_eq(vmklog_parse(&log, link_log, strlen(link_log), DIAG_INTO(&msgs)), 0);
	ck_assert_uint_eq(log.nlinks, 2); /* "? Gbps" says no speed */
	ck_assert_str_eq(log.links[0].adapter, "vmhba2");
	ck_assert_double_eq_tol(log.links[0].gbps, 8, 1e-9);
	ck_assert_str_eq(log.links[0].driver, "qlnativefc");
	ck_assert_int_eq(log.links[0].line, 1);
	ck_assert_str_eq(log.links[1].adapter, "vmhba3");
	ck_assert_double_eq_tol(log.links[1].gbps, 16, 1e-9); /* lpfc speed code 0x80 */
	ck_assert_str_eq(log.links[1].driver, "lpfc");
	ck_assert_uint_eq(log.n, 0);
	ck_assert_int_eq(log.unknown, 0);
	vmklog_free(&log);
	buf_free(&msgs);
	/* the log says vmhba2 came up at 8 Gb: a fact with its line, not a guess */
	struct analysis a;
	run_with_log(&a, link_log, bw_capture, 4, NULL);
	const struct finding *f = kind_of(&a, K_BW_CEILING);
	ck_assert_ptr_nonnull(f);
	ck_assert(!f->heuristic);
	ck_assert_ptr_nonnull(strstr(f->summary, "read from vmkernel.log line 1"));
	ck_assert_ptr_null(strstr(f->summary, "a guess"));
	ck_assert_ptr_nonnull(strstr(f->advice, "16GFC instead of 8GFC"));
	analysis_free(&a);
	/* ... at 16 Gb: 760 MiB/s is half the link, no ceiling, even with adapter.link_mbps = 800 (the
	 * log ranks before the rule) */
	static const char at16[] = "2026-07-27T12:31:07.418Z cpu12:2097741)qlnativefc: vmhba2(3b:0.0): LOOP UP "
				   "detected (16 Gbps).\n";
	struct rules r;
	rules_init(&r);
	r.v[R_ADP_LINK_MBPS] = 800;
	run_with_log(&a, at16, bw_capture, 4, &r);
	ck_assert_ptr_null(kind_of(&a, K_BW_CEILING));
	analysis_free(&a);
	/* a forwarded line of another host's vmhba2 says nothing of this one: the nominal guess stays */
	static const char other[] = "2026-07-27T12:31:07.418Z esx02 vmkernel: cpu12:2097741)qlnativefc: "
				    "vmhba2(3b:0.0): LOOP UP detected (16 Gbps).\n";
	run_with_log(&a, other, bw_capture, 4, NULL);
	f = kind_of(&a, K_BW_CEILING);
	ck_assert_ptr_nonnull(f);
	ck_assert(f->heuristic);
	ck_assert_ptr_nonnull(strstr(f->summary, "a guess"));
	analysis_free(&a);
	/* a link that came up after the capture ended did not carry its IO */
	static const char later[] = "2026-07-27T18:00:00.000Z cpu12:2097741)qlnativefc: vmhba2(3b:0.0): LOOP UP "
				    "detected (16 Gbps).\n";
	run_with_log(&a, later, bw_capture, 4, NULL);
	f = kind_of(&a, K_BW_CEILING);
	ck_assert_ptr_nonnull(f);
	ck_assert(f->heuristic);
	analysis_free(&a);
	/* the null shape with the link known: ~470 MiB/s of 8 KiB on a 16 Gb link is not a ceiling */
	static const struct mcol oltp[] = {
		{"Physical Disk Adapter(vmhba2)\\Commands/sec", mc_pulse, {20000, 60000, 50, 1000}},
		{"Physical Disk Adapter(vmhba2)\\MBytes Read/sec", mc_pulse, {110, 330, 50, 1000}},
		{"Physical Disk Adapter(vmhba2)\\MBytes Written/sec", mc_pulse, {50, 140, 50, 1000}},
		{"Physical Disk Adapter(vmhba2)\\Average Driver MilliSec/Command", mc_wave, {0.5, 0.05, 7}},
	};
	run_with_log(&a, at16, oltp, 4, NULL);
	ck_assert_ptr_null(kind_of(&a, K_BW_CEILING));
	analysis_free(&a);
}
END_TEST

/* Several logs (a rotated vmkernel.1.log, another host's log): each has its own line in the report's
 * inputs with its own counts, and an event keeps the file it came from and its opcode. */
START_TEST(each_log_counted_on_its_own)
{
	char dir[] = "/tmp/iopsy-vmklogs-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char p1[128], p2[128];
	snprintf(p1, sizeof p1, "%s/vmkernel.log", dir);
	snprintf(p2, sizeof p2, "%s/vmkernel.1.log", dir);
	FILE *fp = fopen(p1, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("2026-07-27T13:02:00.100Z cpu3:32800)ScsiDeviceIO: 4619: Cmd(0x45da1181e1c0) 0x28, CmdSN 0x8000006a "
	      "from world 7998099 to dev \"naa.A\" failed H:0x0 D:0x28 P:0x0\n"
	      "2026-07-27T13:02:00.500Z cpu3:32800)ScsiDeviceIO: 4619: Cmd(0x45da1181e1c0) 0x28, CmdSN 0x8000006b "
	      "from world 7998099 to dev \"naa.A\" failed H:0x0 D:0x28 P:0x0\n"
	      "2026-07-27T13:03:00.000Z cpu3:32800)ScsiDevice: 1234: Something new about device naa.A\n",
	      fp);
	fclose(fp);
	fp = fopen(p2, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("2026-07-26T09:00:00.100Z cpu3:32800)ScsiDeviceIO: 3463: Cmd(0x45a203a0a2c0) 0x89, CmdSN 0x2a from "
	      "world 0 to dev \"naa.A\" failed H:0x5 D:0x0 P:0x0 Invalid sense data: 0x0 0x0 0x0.\n"
	      "2026-07-26T09:00:01.000Z cpu12:2097741)qlnativefc: vmhba2(3b:0.0): LOOP UP detected (16 Gbps).\n",
	      fp);
	fclose(fp);
	struct buf msgs;
	buf_init(&msgs);
	struct analysis a;
	analysis_init(&a);
	struct an_load how = {.sink = {.fn = diag_sink_buf, .ctx = &msgs}, .max_warnings = -1};
	char p3[160];
	snprintf(p3, sizeof p3, "%s/vmkernel.2.log", dir); /* not there: named all the same */
	ck_assert_int_lt(analysis_load_input(&a, AN_IN_VMKLOG, p3, &how), 0);
	ck_assert_int_eq(analysis_load_input(&a, AN_IN_VMKLOG, p1, &how), 0);
	ck_assert_int_eq(analysis_load_input(&a, AN_IN_VMKLOG, p2, &how), 0);
	ck_assert(a.have_vmk);
	ck_assert_uint_eq(a.vmk.nfiles, 2);
	ck_assert_int_eq(a.vmk.files[0].lines, 3);
	ck_assert_int_eq(a.vmk.files[1].lines, 2);
	ck_assert_int_eq(a.vmk.lines, 5);
	ck_assert_uint_eq(a.vmk.n, 3);
	ck_assert_int_eq(a.vmk.ev[0].file, 1); /* sorted by time: the older log's first */
	ck_assert_int_eq(a.vmk.ev[0].opcode, 0x89);
	ck_assert_int_eq(a.vmk.ev[1].file, 0);
	ck_assert_uint_eq(a.vmk.nlinks, 1);
	ck_assert_int_eq(a.vmk.links[0].file, 1);
	static const struct mcol h[] = {
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", mc_konst, {800}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {1.0}},
	};
	run_host(&a, h, 2, NULL);
	const struct input_said *in1 = NULL, *in2 = NULL, *in3 = NULL;
	for (size_t i = 0; i < a.ninputs; i++) {
		if (a.inputs[i].file && strcmp(a.inputs[i].file, p3) == 0)
			in3 = &a.inputs[i];
		if (a.inputs[i].file && strcmp(a.inputs[i].file, p1) == 0)
			in1 = &a.inputs[i];
		if (a.inputs[i].file && strcmp(a.inputs[i].file, p2) == 0)
			in2 = &a.inputs[i];
	}
	ck_assert_ptr_nonnull(in1);
	ck_assert_ptr_nonnull(in2);
	ck_assert_ptr_nonnull(strstr(in1->text, "3 lines read, 2 events"));
	ck_assert_ptr_nonnull(strstr(in1->text, "2 inside the host captures' time span used, 0 outside"));
	ck_assert_ptr_nonnull(strstr(in1->text, "1 line naming a device or path of no family"));
	ck_assert_ptr_nonnull(strstr(in1->text, "Something new"));
	ck_assert_int_eq(in1->state, IN_APPLIED);
	ck_assert_ptr_nonnull(strstr(in2->text, "2 lines read, 1 event"));
	ck_assert_ptr_nonnull(strstr(in2->text, "0 inside the host captures' time span used, 1 outside"));
	ck_assert_ptr_nonnull(strstr(in2->text, "vmhba2 at 16 Gbps (qlnativefc, line 2)"));
	ck_assert_ptr_nonnull(strstr(in2->text, "no line naming a device or path was left unread"));
	ck_assert_ptr_nonnull(in3);
	ck_assert_int_eq(in3->state, IN_NOT_APPLIED);
	ck_assert_ptr_nonnull(strstr(in3->text, "could not be read"));
	analysis_free(&a);
	buf_free(&msgs);
	unlink(p1);
	unlink(p2);
	rmdir(dir);
}
END_TEST

/* A slow Hyper-V host disk names what it holds: SQL01's SQL01_D.vhdx on Volume1 and the guest
 * disk mapped to it (hyperv-move-csv, before the move). */
START_TEST(hyperv_disk_names_its_vhdx)
{
	char dir[] = "/tmp/iopsy-hvh-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char *av[] = {"simulate", "--scenario", "hyperv-move-csv", "--out", dir, NULL};
	ck_assert_int_eq(sim_main(5, av), 0);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	struct analysis a;
	analysis_init(&a);
	static char p[2][700];
	snprintf(p[0], sizeof p[0], "%s/before/hyperv.csv", dir);
	snprintf(p[1], sizeof p[1], "%s/before/perfmon.csv", dir);
	char *path[2]; /* the model borrows them: freed after it */
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(model_add_capture(&a.m, path[i] = xstrdup(p[i]), &co), 0);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_run(&a, &ao);
	ck_assert_msg(strstr(a.verdict, "it holds SQL01's SQL01_D.vhdx on Volume1") != NULL, "%s", a.verdict);
	ck_assert_ptr_nonnull(strstr(a.verdict, "SQL01 D:"));
	analysis_free(&a);
	free(path[0]);
	free(path[1]);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

void beyond_tcases(Suite *s)
{
	TCase *t = tcase_create("beyond");
	tcase_add_test(t, one_slow_channel_inside_an_adapter);
	tcase_add_test(t, every_channel_slow_is_not_a_path);
	tcase_add_test(t, one_slow_target_inside_an_adapter);
	tcase_add_test(t, an_adapter_at_its_bandwidth_ceiling);
	tcase_add_test(t, busy_oltp_is_not_a_ceiling);
	tcase_add_test(t, sustain_is_a_duration);
	tcase_add_test(t, one_coarse_row_far_above);
	tcase_add_test(t, every_virtual_disk_controller);
	tcase_add_test(t, reservation_contention);
	tcase_add_test(t, ats_storm_is_not_a_reservation_problem);
	tcase_add_test(t, reservation_lines_of_the_log);
	tcase_add_test(t, esxi78_log_families);
	tcase_add_test(t, hyperv_disk_names_its_vhdx);
	tcase_add_test(t, link_rate_read_from_the_log);
	tcase_add_test(t, each_log_counted_on_its_own);
	suite_add_tcase(s, t);
}
