/* check_detect.c — the analysis engine beyond the scenario truths: rules files, vmkernel.log and
 * partitions parsing, detectors without a scenario of their own (aborts/resets, array over-commit),
 * sustained-window logic (spikes are not findings), clock-offset estimation, disk maps, JSON. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "actions.h"
#include "analysis.h"
#include "json_out.h"
#include "text.h"
#include "pdh.h"
#include "json.h"
#include "commands.h"
#include "suites.h"
#include "summary.h"
#include "memcap.h"

/* ---- synthetic esxtop captures ---- */

struct col {
	const char *path;                 /* counter path after \\host\ */
	double (*fn)(int row, void *arg);
	void *arg;
};

static char tmpdir[64];

static void setup(void)
{
	snprintf(tmpdir, sizeof tmpdir, "/tmp/iopsy-det-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", tmpdir);
}

static char *write_esxtop(const char *name, const struct col *cols, int ncols, int rows)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/%s", tmpdir, name);
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("\"(PDH-CSV 4.0) (UTC)(0)\"", fp);
	for (int c = 0; c < ncols; c++)
		fprintf(fp, ",\"\\\\esx01\\%s\"", cols[c].path);
	fputs(",\n", fp);
	for (int r = 0; r < rows; r++) {
		int s = r * 2;
		fprintf(fp, "\"07/27/2026 13:%02d:%02d\"", s / 60, s % 60);
		for (int c = 0; c < ncols; c++)
			fprintf(fp, ",\"%.2f\"", cols[c].fn(r, cols[c].arg));
		fputs(",\n", fp);
	}
	ck_assert_int_eq(fclose(fp), 0);
	return path;
}

static double konst(int row, void *arg)
{
	(void)row;
	return *(double *)arg;
}

/* value arg[1] for rows in [arg[2], arg[3]), else arg[0] */
static double pulse(int row, void *arg)
{
	double *a = arg;
	return row >= a[2] && row < a[3] ? a[1] : a[0];
}

static void run(struct analysis *a, const char *path, const struct analyze_opts *o)
{
	analysis_set_opts(a, o);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	ck_assert_int_eq(model_add_capture(&a->m, path, &co), 0);
	analysis_run(a, o);
}

static int count(const struct analysis *a, const char *kind)
{
	int n = 0;
	for (size_t i = 0; i < a->nf; i++)
		n += strcmp(kinds[a->f[i].kind].name, kind) == 0;
	return n;
}

#define DEV "Physical Disk SCSI Device(naa.6000)\\"

START_TEST(aborts_sustained_and_spike)
{
	double iops = 500, davg = 3;
	double ab[4] = {0, 4, 100, 140};    /* 4 aborts/s for 40 rows (80 s) */
	double spike[4] = {0, 50, 200, 201}; /* one sample of resets, 2 min after the aborts: same episode */
	double zero4[4] = {0, 0, 0, 0};
	struct col cols[] = {
		{DEV "Commands/sec", konst, &iops},
		{DEV "Average Driver MilliSec/Command", konst, &davg},
		{DEV "Aborts/sec", pulse, ab},
		{DEV "Resets/sec", pulse, spike},
		{DEV "Failed Commands/sec", pulse, zero4},
	};
	char *p = write_esxtop("ab.csv", cols, 5, 300);
	struct analysis a;
	analysis_init(&a);
	struct analyze_opts o = {0};
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "errors.aborts_resets"), 1);
	const struct finding *f = &a.f[0];
	ck_assert_int_eq(f->kind, K_ERR_ABORTS_RESETS);
	ck_assert_str_eq(f->entity, "naa.6000");
	ck_assert_int_eq(f->sev, SEV_CRITICAL);
	char s[32];
	time_format_iso(f->start, false, s);
	ck_assert_str_eq(s, "2026-07-27T13:03:18Z"); /* row 100 = 13:03:20, minus the interval it averages */
	ck_assert(f->sustained_s >= 78 && f->sustained_s <= 84); /* 80 s of aborts + the reset sample */
	ck_assert_int_eq(f->ev[0].metric, M_ABRTS);
	ck_assert(f->ev[0].median == 4);
	ck_assert_ptr_nonnull(strstr(f->rule, "any sample"));
	analysis_free(&a);

	/* one sample of resets alone is a finding: the practitioner rule has no duration */
	double none[4] = {0, 0, 0, 0};
	cols[2].arg = none;
	p = write_esxtop("ab2.csv", cols, 5, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "errors.aborts_resets"), 1);
	ck_assert_int_eq(a.f[0].sev, SEV_CRITICAL);
	ck_assert(a.f[0].sustained_s <= 2.5);
	analysis_free(&a);

	/* negative: aborts and resets at 1/s (the rule is "> 1") for the whole capture */
	double one[4] = {1, 1, 0, 0};
	cols[2].arg = one;
	cols[3].arg = one;
	p = write_esxtop("ab3.csv", cols, 5, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "errors.aborts_resets"), 0);
	analysis_free(&a);

	/* failed commands must be sustained: one sample is no finding, 80 s is a warning */
	double fspike[4] = {0, 30, 200, 201}, fsust[4] = {0, 3, 100, 140};
	cols[2].arg = none;
	cols[3].arg = none;
	cols[4].arg = fspike;
	p = write_esxtop("ab4.csv", cols, 5, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "errors.aborts_resets"), 0);
	analysis_free(&a);
	cols[4].arg = fsust;
	p = write_esxtop("ab5.csv", cols, 5, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "errors.aborts_resets"), 1);
	ck_assert_int_eq(a.f[0].sev, SEV_WARNING);
	ck_assert_ptr_nonnull(strstr(a.f[0].summary, "failed"));
	analysis_free(&a);
}
END_TEST

/* KAVG is not queueing by itself: with no command queued and free device slots the advice must not
 * be to raise the queue depth; with the queue full and commands waiting (DAVG low) it is. */
START_TEST(kavg_advice_needs_a_full_queue)
{
	double iops = 800, davg = 2, kavg = 1.2, dq = 64;
	double idle_q = 0, idle_actv = 5, full_q = 12, full_actv = 64;
	struct col cols[] = {
		{DEV "Commands/sec", konst, &iops},
		{DEV "Average Driver MilliSec/Command", konst, &davg},
		{DEV "Average Kernel MilliSec/Command", konst, &kavg},
		{DEV "Active Commands", konst, &idle_actv},
		{DEV "Queued Commands", konst, &idle_q},
		{DEV "Device Q Depth", konst, &dq},
	};
	char *p = write_esxtop("kavg1.csv", cols, 6, 300);
	struct analysis a;
	analysis_init(&a);
	struct analyze_opts o = {0};
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.kernel"), 1);
	const struct finding *f = &a.f[0];
	ck_assert_ptr_null(strstr(f->advice, "raise the device queue depth"));
	ck_assert_ptr_nonnull(strstr(f->advice, "would not help"));
	ck_assert_ptr_nonnull(strstr(f->summary, "59 of 64 device queue slots free"));
	ck_assert_int_eq(count(&a, "queue.device_saturated"), 0);
	analysis_free(&a);

	cols[3].arg = &full_actv;
	cols[4].arg = &full_q;
	p = write_esxtop("kavg2.csv", cols, 6, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.kernel"), 1);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_KERNEL) {
			ck_assert_ptr_nonnull(strstr(a.f[i].advice, "raise the device queue depth"));
			ck_assert_ptr_nonnull(strstr(a.f[i].summary, "12 commands queued"));
		}
	analysis_free(&a);

	/* queued but the array slow: no raise */
	double slow = 18;
	cols[1].arg = &slow;
	p = write_esxtop("kavg3.csv", cols, 6, 300);
	analysis_init(&a);
	run(&a, p, &o);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_KERNEL)
			ck_assert_ptr_null(strstr(a.f[i].advice, "raise the device queue depth"));
	analysis_free(&a);

	/* commands queued with free device slots: a limit above the device queue */
	cols[1].arg = &davg;
	cols[3].arg = &idle_actv;
	p = write_esxtop("kavg4.csv", cols, 6, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.kernel"), 1);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_KERNEL) {
			ck_assert_ptr_null(strstr(a.f[i].advice, "raise the device queue depth"));
			ck_assert_ptr_nonnull(strstr(a.f[i].summary, "a limit above the device queue"));
		}
	analysis_free(&a);
}
END_TEST

/* Without the host's view the vSCSI cap needs the guest queue pinned at a controller limit; a queue
 * that merely reaches 31 is no cap, and one above the limits is information. */
static double around(int row, const double *a) { return a[0] + a[1] * sin((double)row / a[2]); }
START_TEST(vscsi_cap_without_host_needs_pinned)
{
	struct mcol guest[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_konst, {1200}},
		{"LogicalDisk(D:)\\Disk Reads/sec", mc_konst, {1100}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.060}},
		{"LogicalDisk(D:)\\Current Disk Queue Length", around, {32, 0.4, 3}},
	};
	const struct {
		double base, amp;
		int want; /* -1 none, else the severity */
	} cases[] = {{32, 0.4, SEV_CRITICAL}, {36, 5, SEV_INFO}, {31.5, 0.2, SEV_CRITICAL}, {140, 20, SEV_INFO}, {27, 3, -1}, {35, 0.3, SEV_INFO}};
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
		guest[3].arg[0] = cases[ci].base;
		guest[3].arg[1] = cases[ci].amp;
		struct buf g, msgs;
		buf_init(&g);
		buf_init(&msgs);
		struct common_opts co;
		common_opts_init(&co);
		co.quiet = true;
		co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
		memcap(&g, true, "SQL01", guest, 4, 200, 5);
		struct analysis a;
		analysis_init(&a);
		ck_assert_int_eq(model_add_capture_mem(&a.m, "pm.csv", g.data, g.len, &co), 0);
		struct analyze_opts o;
		memset(&o, 0, sizeof o);
		analysis_run(&a, &o);
		int sev = -1;
		for (size_t i = 0; i < a.nf; i++)
			if (a.f[i].kind == K_Q_GUEST_VSCSI_CAP)
				sev = (int)a.f[i].sev;
		ck_assert_msg(sev == cases[ci].want, "queue %g +- %g: severity %d, want %d", cases[ci].base, cases[ci].amp, sev,
			      cases[ci].want);
		if (sev == SEV_INFO)
			ck_assert_ptr_null(strstr(a.verdict, "above the virtual SCSI controller ("));
		analysis_free(&a);
		buf_free(&g);
		buf_free(&msgs);
	}
}
END_TEST

/* SIOC with the automatic threshold (vSphere 5.1+: the latency at 90 % of peak throughput): on
 * flash DQLEN moves smoothly while DAVG is a few ms, well above the device's own DAVG at full depth,
 * far below the manual 30 ms. Negative: the same DQLEN moves with DAVG flat at its baseline. */
static double sioc_dq(int row, const double *a)
{
	(void)a;
	if (row < 60 || row >= 240)
		return 64;
	if (row < 90)
		return 64 - (row - 60); /* 64 -> 34 by -1 per sample: not a halving */
	return 31 + 3 * ((row / 4) % 3); /* 31, 34, 37: steps of 3 */
}
static double sioc_davg(int row, const double *a) { return row >= 60 && row < 240 ? a[1] : a[0]; }
static double sioc_qued(int row, const double *a) { (void)a; return row >= 60 && row < 240 ? 20 : 0; }
START_TEST(sioc_on_flash)
{
	struct mcol cols[] = {
		{"Physical Disk SCSI Device(naa.F)\\Commands/sec", mc_konst, {6000}},
		{"Physical Disk SCSI Device(naa.F)\\Device Q Depth", sioc_dq, {0}},
		{"Physical Disk SCSI Device(naa.F)\\Active Commands", sioc_dq, {0}},
		{"Physical Disk SCSI Device(naa.F)\\Queued Commands", sioc_qued, {0}},
		{"Physical Disk SCSI Device(naa.F)\\Average Driver MilliSec/Command", sioc_davg, {0.6, 5}},
		{"Physical Disk SCSI Device(naa.F)\\Average Kernel MilliSec/Command", sioc_qued, {0}},
	};
	for (int neg = 0; neg <= 1; neg++) {
		cols[4].arg[1] = neg ? 0.6 : 5;
		struct buf h, msgs;
		buf_init(&h);
		buf_init(&msgs);
		struct common_opts co;
		common_opts_init(&co);
		co.quiet = true;
		co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
		memcap(&h, false, "esx01", cols, 6, 300, 2);
		struct analysis a;
		analysis_init(&a);
		ck_assert_int_eq(model_add_capture_mem(&a.m, "esx.csv", h.data, h.len, &co), 0);
		struct analyze_opts o;
		memset(&o, 0, sizeof o);
		analysis_run(&a, &o);
		ck_assert_int_eq(count(&a, "throttle.sioc"), neg ? 0 : 1);
		ck_assert_int_eq(count(&a, "throttle.adaptive_queue_depth"), 0);
		for (size_t i = 0; i < a.nf; i++) {
			if (a.f[i].kind == K_T_SIOC)
				ck_assert_ptr_nonnull(strstr(a.f[i].summary, "automatic threshold"));
			/* nothing advises a deeper queue while SIOC sets it */
			if (!neg)
				ck_assert_msg(!strstr(a.f[i].advice, "raise the device queue depth") &&
						      !strstr(a.f[i].advice, "Raise the HBA LUN queue depth"),
					      "%s: %s", kinds[a.f[i].kind].name, a.f[i].advice);
		}
		analysis_free(&a);
		buf_free(&h);
		buf_free(&msgs);
	}
}
END_TEST

START_TEST(array_overcommit_needs_the_option)
{
	double iops = 3000, davg = 4, dq = 64, qz = 0;
	double actv[4] = {5, 60, 50, 200};
	struct col cols[] = {
		{DEV "Commands/sec", konst, &iops},  {DEV "Average Driver MilliSec/Command", konst, &davg},
		{DEV "Active Commands", pulse, actv}, {DEV "Device Q Depth", konst, &dq},
		{DEV "Queued Commands", konst, &qz},
	};
	char *p = write_esxtop("ao.csv", cols, 5, 300);
	struct analysis a;
	analysis_init(&a);
	struct analyze_opts o = {0};
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "queue.array_overcommit"), 0); /* no --array-queue-depth: not assessed */
	analysis_free(&a);
	analysis_init(&a);
	o.array_queue_depth = 32;
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "queue.array_overcommit"), 1);
	ck_assert_int_eq(a.f[0].layer, LAYER_ARRAY);
	analysis_free(&a);
	analysis_init(&a);
	o.array_queue_depth = 128; /* ACTV never above 128 */
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "queue.array_overcommit"), 0);
	analysis_free(&a);
}
END_TEST

START_TEST(kernel_latency_advice_depends_on_davg)
{
	double iops = 3000, dq = 32;
	double kavg[4] = {0.01, 3, 50, 150};
	double lowd = 2, highd = 30, qued = 20;
	struct col cols[] = {
		{DEV "Commands/sec", konst, &iops},       {DEV "Average Kernel MilliSec/Command", pulse, kavg},
		{DEV "Average Driver MilliSec/Command", konst, &lowd}, {DEV "Device Q Depth", konst, &dq},
		{DEV "Active Commands", konst, &dq},       {DEV "Queued Commands", konst, &qued},
	};
	/* without QUED and ACTV the queueing cannot be confirmed: no queue depth advice */
	char *p = write_esxtop("k0.csv", cols, 4, 300);
	struct analysis a;
	analysis_init(&a);
	struct analyze_opts o = {0};
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.kernel"), 1);
	ck_assert_ptr_null(strstr(a.f[0].advice, "raise the device queue depth"));
	ck_assert_ptr_nonnull(strstr(a.f[0].summary, "cannot be confirmed"));
	analysis_free(&a);
	p = write_esxtop("k.csv", cols, 6, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.kernel"), 1);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_KERNEL) {
			ck_assert_int_eq(a.f[i].sev, SEV_CRITICAL);
			ck_assert_ptr_nonnull(strstr(a.f[i].advice, "raise the device queue depth"));
		}
	analysis_free(&a);
	cols[2].arg = &highd;
	p = write_esxtop("k2.csv", cols, 6, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.kernel"), 1);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_KERNEL)
			ck_assert_ptr_nonnull(strstr(a.f[i].advice, "would make latency worse"));
	analysis_free(&a);
}
END_TEST

START_TEST(rules_file_overrides_and_errors)
{
	struct tdiag td;
	struct rules r;
	rules_init(&r);
	static const char ok[] = "# site rules\nsustain.samples = 3\n  device.davg.warning_ms=10   # tighter\n\n";
	ck_assert_int_eq(rules_load_text(&r, ok, sizeof ok - 1, tdiag_init(&td, "r.txt")), 0);
	ck_assert(rule_value(&r, R_SUSTAIN_SAMPLES) == 3);
	ck_assert(rule_value(&r, R_DAVG_WARN) == 10);
	ck_assert(r.overridden[R_DAVG_WARN] && !r.overridden[R_DAVG_CRIT]);
	struct rules def;
	rules_init(&def);
	ck_assert(rule_value(&def, R_DAVG_WARN) == 15); /* a value: loading one does not touch another */
	static const char bad[] = "sustain.samples = 3\nno.such.rule = 1\ndevice.davg.warning_ms = fast\njunk\n";
	ck_assert_int_eq(rules_load_text(&r, bad, sizeof bad - 1, &td.d), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "r.txt:2:1: error: unknown rule 'no.such.rule'"));
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "r.txt:3:26: error: 'device.davg.warning_ms' needs a number, not 'fast'"));
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "r.txt:4:5: error: expected 'name = value'"));
	tdiag_free(&td);
	/* the printed table is itself a valid rules file */
	struct buf tbl;
	buf_init(&tbl);
	rules_print(&def, &tbl);
	ck_assert_int_eq(rules_load_text(&r, tbl.data, tbl.len, tdiag_init(&td, "printed")), 0);
	ck_assert(rule_value(&r, R_DAVG_WARN) == 15);
	buf_free(&tbl);
	tdiag_free(&td);
}
END_TEST

START_TEST(vmklog_lines)
{
	static const char log[] =
		"2014-03-14T16:22:52.801Z esx01 vmkernel: cpu3:32800)ScsiDeviceIO: 4619: Cmd(0x45da1181e1c0) 0x28, CmdSN 0x8000006a from world 7998099 to dev \"naa.600a\" failed H:0x0 D:0x28 P:0x0\n"
		"2014-03-14T16:22:53.000Z esx01 vmkernel: cpu3:32800)ScsiDeviceIO: 4619: Cmd(0x45da1181e1c0) 0x28, CmdSN 0x8000006b from world 7998099 to dev \"naa.600a\" failed H:0x0 D:0x2 P:0x0 Valid sense data\n"
		"2014-03-14T16:22:54.000Z esx01 vmkernel: cpu1:1)NMP: nmp_ThrottleLogForDevice:2321: Cmd 0x2a (0x412fc26ed2c0, 0) to dev \"naa.600b\" on path \"vmhba2:C0:T0:L5\" Failed: H:0x0 D:0x8 P:0x0 Valid sense data: 0x0 0x0 0x0. Act:NONE\n"
		"2014-03-14T16:22:55.000Z esx01 vmkernel: cpu1:1)ScsiSched: 2104: Reduced the queue depth for device naa.600a to 16, due to queue full/busy conditions.\n"
		"2014-03-14T16:22:56.000Z esx01 vmkernel: cpu1:1)WARNING: ScsiDeviceIO: 1779: Device naa.600a performance has deteriorated. I/O latency increased from average value of 1796 microseconds to 36501 microseconds.\n"
		"garbage line without a time stamp naming a device\n"
		"<181>2014-03-14T16:22:57.000Z esx01 vmkernel: cpu3:1)ScsiDeviceIO: 4619: Cmd(0x1) 0x2a, CmdSN 0x1 from world 1 to dev \"naa.600c\" failed H:0x0 D:0x28 P:0x0\n";
	struct vmk_log l;
	struct diag d;
	diag_init(&d, "vmk", -1);
	ck_assert_int_eq(vmklog_parse(&l, log, sizeof log - 1, &d), 0);
	ck_assert_uint_eq(l.n, 6);
	ck_assert_str_eq(l.ev[5].device, "naa.600c"); /* syslog-forwarded line with a <priority> */
	ck_assert_int_eq(l.ev[0].kind, VMK_QFULL); /* D:0x28, although the opcode is 0x28 (READ) too */
	ck_assert_int_eq(l.ev[1].kind, VMK_FAILED); /* opcode 0x28 with D:0x2 is not QUEUE FULL */
	ck_assert_int_eq(l.ev[2].kind, VMK_BUSY);
	ck_assert_str_eq(l.ev[2].device, "naa.600b");
	ck_assert_int_eq(l.ev[3].kind, VMK_REDUCE);
	ck_assert(l.ev[3].value == 16);
	ck_assert_int_eq(l.ev[4].kind, VMK_DETERIORATE);
	ck_assert(l.ev[4].value == 36501);
	int64_t t;
	time_parse_iso("2014-03-14T16:22:52.801Z", &t);
	ck_assert(l.ev[0].t == t);
	ck_assert_str_eq(l.ev[0].host, "esx01"); /* a forwarded line names its host */
	ck_assert_str_eq(l.ev[5].host, "esx01");
	vmklog_free(&l);
	/* a host's own log names none */
	static const char own[] = "2014-03-14T16:22:52.801Z cpu3:32800)ScsiDeviceIO: 4619: Cmd(0x1) 0x2a, CmdSN 0x1 from "
				  "world 1 to dev \"naa.600a\" failed H:0x0 D:0x28 P:0x0\n";
	ck_assert_int_eq(vmklog_parse(&l, own, sizeof own - 1, &d), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_ptr_null(l.ev[0].host);
	vmklog_free(&l);
	/* fabric failures (H: status) become an errors.aborts_resets finding; D:0x2 alone does not */
	static const char fab[] =
		"2014-03-14T16:22:52.000Z e vmkernel: cpu1:1)NMP: x: Cmd 0x2a (0x1, 0) to dev \"naa.600f\" on path \"vmhba2:C0:T0:L5\" Failed: H:0x5 D:0x0 P:0x0\n"
		"2014-03-14T16:22:53.000Z e vmkernel: cpu1:1)NMP: x: Cmd 0x2a (0x1, 0) to dev \"naa.600f\" on path \"vmhba2:C0:T0:L5\" Failed: H:0x5 D:0x0 P:0x0\n"
		"2014-03-14T16:22:54.000Z e vmkernel: cpu1:1)NMP: x: Cmd 0x2a (0x1, 0) to dev \"naa.600f\" on path \"vmhba2:C0:T0:L5\" Failed: H:0x8 D:0x0 P:0x0\n"
		"2014-03-14T16:22:55.000Z e vmkernel: cpu1:1)ScsiDeviceIO: 1: Cmd(0x1) 0x28, CmdSN 0x1 from world 1 to dev \"naa.600e\" failed H:0x0 D:0x2 P:0x0\n"
		"2014-03-14T16:22:56.000Z e vmkernel: cpu1:1)ScsiDeviceIO: 1: Cmd(0x1) 0x28, CmdSN 0x1 from world 1 to dev \"naa.600e\" failed H:0x0 D:0x2 P:0x0\n"
		"2014-03-14T16:22:57.000Z e vmkernel: cpu1:1)ScsiDeviceIO: 1: Cmd(0x1) 0x28, CmdSN 0x1 from world 1 to dev \"naa.600e\" failed H:0x0 D:0x2 P:0x0\n";
	struct analysis a;
	analysis_init(&a);
	ck_assert_int_eq(vmklog_parse(&a.vmk, fab, sizeof fab - 1, &d), 0);
	a.have_vmk = true;
	struct analyze_opts o = {0};
	analysis_run(&a, &o);
	ck_assert_int_eq(count(&a, "errors.aborts_resets"), 1);
	ck_assert_str_eq(a.f[0].entity, "naa.600f");
	analysis_free(&a);
}
END_TEST

/* Every line family of an ESXi 7/8 vmkernel.log: the NMP "Failed:" and "failed on physical path"
 * shapes with their path, H:0x5/H:0x8, "repeated N times" counted with the kind of the device's
 * last error, NMP active path changes, "state in doubt", failover and ALUA states as typed events. */
START_TEST(vmklog_families)
{
	static const char log[] =
		"2026-07-27T13:05:01.100Z In(182) vmkernel: cpu2:1)NMP: nmp_ThrottleLogForDevice:3867: Cmd 0x2a (0x45b8c1e3f340, 2099516) to dev \"naa.60a\" on path \"vmhba2:C0:T0:L1\" Failed: H:0x0 D:0x8 P:0x0 Valid sense data: 0x0 0x0 0x0. Act:NONE\n"
		"2026-07-27T13:06:00.000Z In(182) vmkernel: cpu4:1)NMP: nmp_ResetDeviceLogThrottling:3776: last error status from device naa.60a repeated 10 times\n"
		"2026-07-27T13:07:00.000Z In(182) vmkernel: cpu4:1)ScsiDeviceIO: 4176: Cmd(0x45b8c1e3f340) 0x28, CmdSN 0x1 from world 0 to dev \"naa.60a\" failed H:0x5 D:0x0 P:0x0 Cancelled from path layer. Cmd count Active:1 Queued:0\n"
		"2026-07-27T13:07:01.000Z In(182) vmkernel: cpu1:1)NMP: nmp_CompleteCommandForPath:2190: Command 0x28 (0x41000716a200) to NMP device \"naa.60a\" failed on physical path \"vmhba3:C0:T1:L7\" H:0x8 D:0x0 P:0x0 Possible sense data: 0x2 0x3a 0x1.\n"
		"2026-07-27T13:07:02.000Z In(182) vmkernel: cpu1:1)WARNING: NMP: nmp_DeviceRetryCommand:133: Device \"naa.60a\": awaiting fast path state update for failover with I/O blocked. No prior reservation exists on the device.\n"
		"2026-07-27T13:07:03.000Z In(182) vmkernel: cpu1:1)vmw_psp_mru: psp_mruSelectPathToActivate:120: Changing active path from vmhba3:C0:T1:L7 to vmhba3:C0:T0:L7 for NMP device \"naa.60a\".\n"
		"2026-07-27T13:07:04.000Z In(182) vmkernel: cpu1:1)vmw_satp_alua: satp_alua_issueCommandOnPath:1176: Path \"vmhba3:C0:T0:L7\" (UP) command 0xa3 failed with status Transient storage condition, suspect path.\n"
		"2026-07-27T13:07:05.000Z In(182) vmkernel: cpu1:1)WARNING: NMP: nmp_DeviceRequestFastDeviceProbe:237:NMP device \"naa.60a\" state in doubt; requested fast path state update...\n"
		"2026-07-27T13:08:00.000Z In(182) vmkernel: cpu4:1)NMP: nmp_ResetDeviceLogThrottling:3776: last error status from device naa.60a repeated 40 times\n"
		"2026-07-27T13:08:01.000Z In(182) vmkernel: cpu4:1)NMP: nmp_ResetDeviceLogThrottling:3776: last error status from device naa.61b repeated 20 times\n";
	struct vmk_log l;
	struct diag d;
	diag_init(&d, "vmk", -1);
	ck_assert_int_eq(vmklog_parse(&l, log, sizeof log - 1, &d), 0);
	ck_assert_uint_eq(l.n, 10);
	ck_assert_int_eq(l.ev[0].kind, VMK_BUSY);
	ck_assert_str_eq(l.ev[0].path, "vmhba2:C0:T0:L1");
	ck_assert_ptr_null(l.ev[0].host); /* "In(182)" is ESXi 8's log level, not a host */
	ck_assert_int_eq(l.ev[1].kind, VMK_BUSY); /* the repeat of the BUSY before it */
	ck_assert(l.ev[1].repeat && l.ev[1].count == 10);
	ck_assert_int_eq(l.ev[2].kind, VMK_FAILED);
	ck_assert_uint_eq(l.ev[2].host_status, 5);
	ck_assert_int_eq(l.ev[3].kind, VMK_FAILED);
	ck_assert_uint_eq(l.ev[3].host_status, 8);
	ck_assert_str_eq(l.ev[3].path, "vmhba3:C0:T1:L7");
	ck_assert_int_eq(l.ev[4].kind, VMK_PATH);
	ck_assert_str_eq(l.ev[4].state, "awaiting failover");
	ck_assert_int_eq(l.ev[5].kind, VMK_PATH);
	ck_assert_str_eq(l.ev[5].device, "naa.60a");
	ck_assert_str_eq(l.ev[5].path, "vmhba3:C0:T0:L7");
	ck_assert_str_eq(l.ev[5].state, "active path from vmhba3:C0:T1:L7");
	ck_assert_int_eq(l.ev[6].kind, VMK_ALUA);
	ck_assert_str_eq(l.ev[6].path, "vmhba3:C0:T0:L7");
	ck_assert_int_eq(l.ev[7].kind, VMK_PATH);
	ck_assert_str_eq(l.ev[7].state, "state in doubt");
	ck_assert_int_eq(l.ev[8].kind, VMK_FAILED); /* repeats the H:0x8 */
	ck_assert(l.ev[8].count == 40 && l.ev[8].host_status == 8);
	ck_assert_int_eq(l.ev[9].kind, VMK_REPEAT); /* no earlier error of naa.61b */
	for (size_t i = 0; i < l.n; i++)
		ck_assert(vmk_kind_name(l.ev[i].kind)[0] != '?');
	vmklog_free(&l);
}
END_TEST

/* Log events count toward a cause only with a symptom in the capture then: two BUSY lines over a
 * healthy capture (DAVG 0.4 ms) are context (info), no verdict and no action; the same lines over
 * DAVG 30 ms count toward the cause. */
START_TEST(vmklog_weighed_against_capture)
{
	double iops = 500, davg = 0.4, zero = 0, dq = 64;
	struct col cols[] = {
		{DEV "Commands/sec", konst, &iops},
		{DEV "Average Driver MilliSec/Command", konst, &davg},
		{DEV "Queued Commands", konst, &zero},
		{DEV "Queue Depth", konst, &dq},
	};
	static const char two_busy[] =
		"2026-07-27T13:04:01.000Z In(182) vmkernel: cpu1:1)NMP: nmp_ThrottleLogForDevice:3867: Cmd 0x2a (0x1, 0) to dev \"naa.6000\" on path \"vmhba2:C0:T0:L5\" Failed: H:0x0 D:0x8 P:0x0 Act:NONE\n"
		"2026-07-27T13:04:03.000Z In(182) vmkernel: cpu1:1)NMP: nmp_ThrottleLogForDevice:3867: Cmd 0x2a (0x1, 0) to dev \"naa.6000\" on path \"vmhba2:C0:T0:L5\" Failed: H:0x0 D:0x8 P:0x0 Act:NONE\n";
	for (int slow = 0; slow < 2; slow++) {
		davg = slow ? 30 : 0.4;
		char *p = write_esxtop(slow ? "busy-slow.csv" : "busy-healthy.csv", cols, 4, 300);
		struct analysis a;
		analysis_init(&a);
		struct diag d;
		diag_init(&d, "vmk", -1);
		ck_assert_int_eq(vmklog_parse(&a.vmk, two_busy, sizeof two_busy - 1, &d), 0);
		a.have_vmk = true;
		struct analyze_opts o = {0};
		run(&a, p, &o);
		const struct finding *q = NULL;
		for (size_t i = 0; i < a.nf; i++)
			if (a.f[i].kind == K_SCSI_QUEUE_FULL)
				q = &a.f[i];
		ck_assert_ptr_nonnull(q);
		if (!slow) {
			ck_assert_int_eq(q->sev, SEV_INFO);
			ck_assert_ptr_nonnull(strstr(q->summary, "context only"));
			ck_assert_ptr_nonnull(strstr(q->summary, "DAVG at most 0.4 ms"));
			ck_assert_ptr_null(strstr(a.verdict, "throttling"));
			ck_assert_ptr_nonnull(strstr(a.verdict, "No sustained queueing"));
		} else {
			ck_assert_int_ge(q->sev, SEV_WARNING); /* a cause (raised to the critical DAVG it explains) */
			ck_assert_ptr_nonnull(strstr(q->summary, "in the host capture at that time: DAVG"));
		}
		analysis_free(&a);
	}
}
END_TEST

/* Runs the analysis of a sample's esxtop and perfmon with a partitions listing (and a disk map
 * text, NULL for none). */
static const char *parts_other_guest; /* run_parts adds a perfmon of this guest too (NULL: none) */
static void run_parts(struct analysis *a, const char *sample, const char *parts, const char *map)
{
	char es[256], pm[256];
	const char *src = getenv("IOPSY_SRCDIR") ? getenv("IOPSY_SRCDIR") : ".";
	snprintf(es, sizeof es, "%s/samples/%s/esxtop.csv.gz", src, sample);
	snprintf(pm, sizeof pm, "%s/samples/%s/perfmon.csv.gz", src, sample);
	analysis_init(a);
	struct diag d;
	diag_init(&d, "p.txt", -1);
	ck_assert_int_eq(partitions_parse(&a->parts, parts, strlen(parts), &d), 0);
	a->have_parts = true;
	if (map) {
		char mp[128];
		snprintf(mp, sizeof mp, "%s/tie.map", tmpdir);
		FILE *fp = fopen(mp, "w");
		ck_assert_ptr_nonnull(fp);
		fputs(map, fp);
		ck_assert_int_eq(fclose(fp), 0);
		struct diskmap dm;
		ck_assert_int_eq(diskmap_read(&dm, mp, &d), 0);
		analysis_use_diskmap(a, &dm, mp);
		diskmap_free(&dm);
	}
	struct analyze_opts o = {0};
	analysis_set_opts(a, &o);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	ck_assert_int_eq(model_add_capture(&a->m, es, &co), 0);
	ck_assert_int_eq(model_add_capture(&a->m, pm, &co), 0);
	if (parts_other_guest) {
		struct mcol g2[] = {{"LogicalDisk(D:)\\Disk Transfers/sec", mc_konst, {100}}};
		struct buf b;
		buf_init(&b);
		memcap(&b, true, parts_other_guest, g2, 1, 50, 5);
		ck_assert_int_eq(model_add_capture_mem(&a->m, "other.csv", b.data, b.len, &co), 0);
		buf_free(&b);
	}
	analysis_run(a, &o);
}

static const struct finding *find_kind(const struct analysis *a, enum kind k)
{
	for (size_t i = 0; i < a->nf; i++)
		if (a->f[i].kind == k)
			return &a->f[i];
	return NULL;
}

/* A partitions listing must be the analysed guest's: by its SystemName (or /format:csv's Node), or
 * a --map line 'partitions = HOST'; another machine's, or one that names none, is not applied and
 * the verdict says so. A 4 KiB-aligned offset is aligned; a misalignment's severity follows its
 * disk's symptom: 32256 on a healthy D: is a warning, on the LSI day's slow D: critical. */
START_TEST(partitions_tied_to_guest)
{
	static const char foreign[] = "BlockSize  Index  Name                   StartingOffset  SystemName  \r\n"
				      "512        0      Disk #1, Partition #0  32256           GEMORPC     \r\n";
	static const char ours[] = "BlockSize  Index  Name                   StartingOffset  SystemName  \r\n"
				   "512        0      Disk #1, Partition #0  32256           SQL01       \r\n";
	static const char aligned4k[] = "Node,BlockSize,Index,Name,StartingOffset\r\n"
					"SQL01,512,0,Disk #1, Partition #0,121178238976\r\n";
	static const char nameless[] = "BlockSize  Index  Name                   StartingOffset  \r\n"
				       "512        0      Disk #1, Partition #0  32256           \r\n";
	struct analysis a;
	run_parts(&a, "healthy", foreign, NULL);
	ck_assert_ptr_null(find_kind(&a, K_ALIGN_MISALIGNED));
	ck_assert_ptr_nonnull(strstr(a.verdict, "taken on GEMORPC (SystemName), not on a guest of this analysis"));
	analysis_free(&a);

	/* no SystemName (the listing iopsy's own advice gives): the only guest's, said as assumed */
	run_parts(&a, "healthy", nameless, NULL);
	ck_assert_ptr_nonnull(find_kind(&a, K_ALIGN_MISALIGNED));
	ck_assert_ptr_null(a.parts_note);
	bool assumed = false;
	for (size_t i = 0; i < a.ninputs; i++)
		assumed |= strcmp(a.inputs[i].option, "--partitions") == 0 &&
			   strstr(a.inputs[i].text, "taken to be of SQL01, the only guest") != NULL;
	ck_assert(assumed);
	analysis_free(&a);
	/* with two guests it needs its machine named */
	parts_other_guest = "SQL02";
	run_parts(&a, "healthy", nameless, NULL);
	ck_assert_ptr_null(find_kind(&a, K_ALIGN_MISALIGNED));
	ck_assert_ptr_nonnull(strstr(a.verdict, "does not say which machine it is from"));
	analysis_free(&a);
	run_parts(&a, "healthy", nameless, "partitions = SQL01\n");
	ck_assert_ptr_nonnull(find_kind(&a, K_ALIGN_MISALIGNED));
	analysis_free(&a);
	parts_other_guest = NULL;

	run_parts(&a, "healthy", nameless, "partitions = SQL01\n");
	const struct finding *f = find_kind(&a, K_ALIGN_MISALIGNED);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->sev, SEV_WARNING); /* no symptom: a risk, not a cause */
	ck_assert_ptr_nonnull(strstr(f->summary, "no latency or split-IO finding on its disk"));
	ck_assert_ptr_null(a.parts_note);
	analysis_free(&a);

	run_parts(&a, "healthy", aligned4k, NULL);
	ck_assert_ptr_null(find_kind(&a, K_ALIGN_MISALIGNED));
	ck_assert_ptr_null(a.parts_note);
	analysis_free(&a);

	/* the LSI day's D: is slow because its IOs queue above the controller: not misalignment's */
	run_parts(&a, "lsi-guest-queue-cap", ours, NULL);
	f = find_kind(&a, K_ALIGN_MISALIGNED);
	ck_assert_ptr_nonnull(f);
	ck_assert_str_eq(f->entity, "D:");
	ck_assert_int_eq(f->sev, SEV_WARNING);
	analysis_free(&a);

	/* D:'s LUN slow (DAVG): the symptom, and its severity */
	char out[128];
	snprintf(out, sizeof out, "%s/backend", tmpdir);
	char *argv[] = {"simulate", "--scenario", "backend-saturated", "--out", out, "--gzip", NULL};
	ck_assert_int_eq(sim_main(6, argv), 0);
	char es[256], pm[256];
	snprintf(es, sizeof es, "%s/esxtop.csv.gz", out);
	snprintf(pm, sizeof pm, "%s/perfmon.csv.gz", out);
	analysis_init(&a);
	struct diag d;
	diag_init(&d, "p.txt", -1);
	ck_assert_int_eq(partitions_parse(&a.parts, ours, strlen(ours), &d), 0);
	a.have_parts = true;
	struct analyze_opts o = {0};
	analysis_set_opts(&a, &o);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	ck_assert_int_eq(model_add_capture(&a.m, es, &co), 0);
	ck_assert_int_eq(model_add_capture(&a.m, pm, &co), 0);
	analysis_run(&a, &o);
	f = find_kind(&a, K_ALIGN_MISALIGNED);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(f->sev, find_kind(&a, K_LAT_DEVICE)->sev >= find_kind(&a, K_LAT_GUEST_READ)->sev
					 ? find_kind(&a, K_LAT_DEVICE)->sev : find_kind(&a, K_LAT_GUEST_READ)->sev);
	ck_assert_ptr_nonnull(strstr(f->summary, "its disk shows the symptom"));
	analysis_free(&a);
}
END_TEST

/* The device rule knows IO size and non-data commands: 1 MiB commands at DAVG 25 ms are within the
 * large-IO band (no finding), 64 KiB ones at 25 ms are not; Commands/s 2,776 against reads +
 * writes 1,300 while DAVG goes 1 -> 22 ms names UNMAP/ATS as the likely cause. */
START_TEST(device_io_size_and_nondata)
{
	double davg = 25, cmds = 400, mbr = 400, zero = 0;
	struct col cols[] = {
		{DEV "Commands/sec", konst, &cmds},
		{DEV "Reads/sec", konst, &cmds},
		{DEV "Writes/sec", konst, &zero},
		{DEV "MBytes Read/sec", konst, &mbr},
		{DEV "MBytes Written/sec", konst, &zero},
		{DEV "Average Driver MilliSec/Command", konst, &davg},
	};
	struct analyze_opts o = {0};
	struct analysis a;
	char *p = write_esxtop("big.csv", cols, 6, 300); /* 1 MiB per command */
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.device"), 0);
	analysis_free(&a);
	mbr = 25; /* 64 KiB per command: the normal band */
	p = write_esxtop("small.csv", cols, 6, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.device"), 1);
	ck_assert_ptr_null(strstr(a.f[0].summary, "neither reads nor writes"));
	analysis_free(&a);
	mbr = 400;
	davg = 40; /* 1 MiB above the large-IO band: a finding that says the size */
	p = write_esxtop("big-slow.csv", cols, 6, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.device"), 1);
	ck_assert_ptr_nonnull(strstr(a.f[0].summary, "for 1024 KiB commands"));
	analysis_free(&a);

	/* the UNMAP storm */
	double storm_cmds[4] = {1300, 2776, 100, 200}, storm_davg[4] = {1, 22, 100, 200}, rd = 650, mb = 10;
	struct col unmap[] = {
		{DEV "Commands/sec", pulse, storm_cmds},
		{DEV "Reads/sec", konst, &rd},
		{DEV "Writes/sec", konst, &rd},
		{DEV "MBytes Read/sec", konst, &mb},
		{DEV "MBytes Written/sec", konst, &mb},
		{DEV "Average Driver MilliSec/Command", pulse, storm_davg},
	};
	p = write_esxtop("unmap.csv", unmap, 6, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "latency.device"), 1);
	ck_assert_ptr_nonnull(strstr(a.f[0].summary, "1476 commands/s are neither reads nor writes (Commands/s 2776 vs reads + writes 1300; 0/s the rest"));
	ck_assert_ptr_nonnull(strstr(a.f[0].summary, "UNMAP"));
	ck_assert_ptr_nonnull(strstr(a.f[0].advice, "space reclamation"));
	analysis_free(&a);
}
END_TEST

static double wave(int row, void *arg)
{
	double *a = arg;
	return a[0] + a[1] * sin((double)row / 7.0);
}

/* Adapter QUED that is the sum of its devices' QUED (their full LUN queues) is not adapter
 * saturation; commands queued beyond them are. */
START_TEST(adapter_beyond_its_devices)
{
	double cmds[2] = {3000, 800}, actv = 32, dq = 32, qd = 20, qa = 20, davg = 2;
	struct col cols[] = {
		{DEV "Commands/sec", wave, cmds},
		{DEV "Active Commands", konst, &actv},
		{DEV "Queued Commands", konst, &qd},
		{DEV "Device Q Depth", konst, &dq},
		{DEV "Average Driver MilliSec/Command", konst, &davg},
		{"Physical Disk Adapter(vmhba2)\\Commands/sec", wave, cmds},
		{"Physical Disk Adapter(vmhba2)\\Active Commands", konst, &actv},
		{"Physical Disk Adapter(vmhba2)\\Queued Commands", konst, &qa},
	};
	struct analyze_opts o = {0};
	struct analysis a;
	char *p = write_esxtop("adp-sum.csv", cols, 8, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "queue.device_saturated"), 1);
	ck_assert_int_eq(count(&a, "queue.adapter_saturated"), 0);
	analysis_free(&a);
	qa = 45; /* 25 more than its LUN holds: queued at the adapter */
	p = write_esxtop("adp-beyond.csv", cols, 8, 300);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "queue.adapter_saturated"), 1);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_Q_ADAPTER_SATURATED)
			ck_assert_ptr_nonnull(strstr(a.f[i].summary, "45 queued at the adapter, 20 of them in its 1 device's queue"));
	analysis_free(&a);
}
END_TEST

/* DQLEN 32 -> 64 in the middle of the capture, the queue full before and empty after: the change is
 * said with its time, the queue finding ends there, and its advice is not to raise the queue depth
 * (already done); a device queue finding spanning a step is split at it. */
START_TEST(queue_depth_step)
{
	double dq[4] = {32, 64, 200, 400}, actv[4] = {32, 40, 200, 400}, qued[4] = {20, 0, 200, 400};
	double cmds[4] = {20000, 30000, 200, 400}, davg = 1.5, kavg[4] = {1, 0.02, 200, 400};
	struct col cols[] = {
		{DEV "Commands/sec", pulse, cmds},
		{DEV "Active Commands", pulse, actv},
		{DEV "Queued Commands", pulse, qued},
		{DEV "Device Q Depth", pulse, dq},
		{DEV "Average Driver MilliSec/Command", konst, &davg},
		{DEV "Average Kernel MilliSec/Command", pulse, kavg},
	};
	struct analyze_opts o = {0};
	struct analysis a;
	char *p = write_esxtop("qd-step.csv", cols, 6, 400);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "config.queue_depth_change"), 1);
	const struct finding *c = find_kind(&a, K_CFG_QDEPTH);
	ck_assert_int_eq(c->sev, SEV_INFO);
	ck_assert_ptr_nonnull(strstr(c->summary, "DQLEN raised from 32 to 64 at 2026-07-27T13:06:40Z"));
	ck_assert_ptr_nonnull(strstr(c->summary, "commands queued (QUED median) 20 before, 0 after"));
	const struct finding *q = find_kind(&a, K_Q_DEVICE_SATURATED);
	ck_assert_ptr_nonnull(q);
	ck_assert(q->done);
	ck_assert_ptr_nonnull(strstr(q->advice, "Already done"));
	ck_assert_ptr_null(strstr(q->advice, "Raise"));
	ck_assert_ptr_nonnull(strstr(q->summary, "before DQLEN went from 32 to 64"));
	analysis_free(&a);

	/* the queue stays full after the raise (more IO came): split at the step, no "already done" */
	double qued2[4] = {20, 30, 200, 400}, actv2[4] = {32, 64, 200, 400}, kavg2[4] = {1, 1, 200, 400};
	cols[1].arg = actv2;
	cols[2].arg = qued2;
	cols[5].arg = kavg2;
	p = write_esxtop("qd-step-full.csv", cols, 6, 400);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "config.queue_depth_change"), 1);
	ck_assert_int_eq(count(&a, "queue.device_saturated"), 2);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_Q_DEVICE_SATURATED) {
			ck_assert(!a.f[i].done);
			ck_assert(strstr(a.f[i].summary, "before DQLEN went") || strstr(a.f[i].summary, "after DQLEN went"));
		}
	analysis_free(&a);

	/* an adapter's AQLEN raised from 128 to 256 while it was full: said, and its finding is done */
	double aq[4] = {128, 256, 200, 400}, aactv[4] = {126, 150, 200, 400}, aqd[4] = {30, 0, 200, 400};
	struct col adp[] = {
		{"Physical Disk Adapter(vmhba2)\\Commands/sec", pulse, cmds},
		{"Physical Disk Adapter(vmhba2)\\Active Commands", pulse, aactv},
		{"Physical Disk Adapter(vmhba2)\\Queued Commands", pulse, aqd},
		{"Physical Disk Adapter(vmhba2)\\Adapter Q Depth", pulse, aq},
	};
	p = write_esxtop("aq-step.csv", adp, 4, 400);
	analysis_init(&a);
	run(&a, p, &o);
	ck_assert_int_eq(count(&a, "config.queue_depth_change"), 1);
	ck_assert_ptr_nonnull(strstr(find_kind(&a, K_CFG_QDEPTH)->summary, "AQLEN raised from 128 to 256"));
	const struct finding *ad = find_kind(&a, K_Q_ADAPTER_SATURATED);
	ck_assert_ptr_nonnull(ad);
	ck_assert(ad->done);
	analysis_free(&a);
}
END_TEST

START_TEST(partitions_wmic)
{
	static const char w[] = "BlockSize  Index  Name                   StartingOffset  \r\n"
				"512        0      Disk #0, Partition #0  1048576         \r\n"
				"512        0      Disk #1, Partition #0  32256           \r\n"
				"512        1      Disk #1, Partition #1  105906176       \r\n\r\n";
	struct partitions ps;
	struct diag d;
	diag_init(&d, "p", -1);
	ck_assert_int_eq(partitions_parse(&ps, w, sizeof w - 1, &d), 0);
	ck_assert_uint_eq(ps.n, 3);
	ck_assert_str_eq(ps.p[1].name, "Disk #1, Partition #0");
	ck_assert(ps.p[1].offset == 32256);
	ck_assert_int_eq(ps.p[1].disk, 1);
	ck_assert_int_eq(ps.p[2].index, 1);
	partitions_free(&ps);
	struct buf msgs;
	buf_init(&msgs);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	ck_assert_int_eq(partitions_parse(&ps, "hello\n", 6, &d), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(msgs.data, "no 'StartingOffset' header"));
	partitions_free(&ps);
	buf_free(&msgs);
}
END_TEST

/* Decodes bytes as partitions_read does (UTF-16LE with a BOM → UTF-8) and parses them. */
static int parse_decoded(struct partitions *ps, const char *raw, size_t n, struct diag *d)
{
	struct source src;
	ck_assert_int_eq(source_open_mem(&src, "p.txt", raw, n, d), 0);
	struct buf text;
	buf_init(&text);
	char chunk[256];
	long k;
	while ((k = source_read(&src, chunk, sizeof chunk, d)) > 0)
		buf_add(&text, chunk, (size_t)k);
	ck_assert_int_eq(k, 0);
	source_close(&src);
	int rc = partitions_parse(ps, text.data ? text.data : "", text.len, d);
	buf_free(&text);
	return rc;
}

/* The other shapes wmic output arrives in: /format:list (UTF-16LE, CRCRLF), a table whose padding
 * a mail collapsed to single spaces (after the echoed command), wmic /format:csv; then a file of
 * which some lines are bad (each warned with its line, the rest kept) and one of which every line
 * is bad (an error, not an empty list). */
START_TEST(partitions_other_shapes)
{
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	diag_init(&d, "p.txt", -1);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	struct partitions ps;

	static const char list[] = "\r\r\n\r\r\nBlockSize=512\r\r\nIndex=0\r\r\nName=Disk #0, Partition #0\r\r\n"
				   "StartingOffset=1048576\r\r\n\r\r\n\r\r\nBlockSize=512\r\r\nIndex=1\r\r\n"
				   "Name=Disk #1, Partition #1\r\r\nStartingOffset=32256\r\r\n\r\r\n\r\r\n";
	struct buf u16;
	buf_init(&u16);
	buf_add(&u16, "\xff\xfe", 2);
	for (size_t i = 0; i < sizeof list - 1; i++) {
		buf_add(&u16, &list[i], 1);
		buf_add(&u16, "", 1); /* the NUL high byte */
	}
	ck_assert_int_eq(parse_decoded(&ps, u16.data, u16.len, &d), 0);
	buf_free(&u16);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_str_eq(ps.p[1].name, "Disk #1, Partition #1");
	ck_assert(ps.p[1].offset == 32256 && ps.p[1].block_size == 512);
	ck_assert_int_eq(ps.p[1].disk, 1);
	ck_assert_int_eq(ps.p[1].index, 1);
	ck_assert_int_eq(ps.p[1].line, 9);
	partitions_free(&ps);
	/* records whose blank separator lines were lost, and every property (wmic get /format:list) */
	static const char list2[] = "Access=0\nBlockSize=512\nBootable=TRUE\nName=Disk #0, Partition #0\nSize=104857600\n"
				    "StartingOffset=1048576\nType=Installable File System\nAccess=0\nBlockSize=512\n"
				    "Name=Disk #2, Partition #0\nStartingOffset=65536\n";
	ck_assert_int_eq(partitions_parse(&ps, list2, sizeof list2 - 1, &d), 0);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert(ps.p[0].offset == 1048576 && ps.p[1].offset == 65536);
	ck_assert_int_eq(ps.p[1].disk, 2);
	partitions_free(&ps);
	ck_assert_uint_eq(msgs.len, 0);

	static const char collapsed[] = "C:\\>wmic partition get BlockSize, StartingOffset, Name, Index\n"
					"BlockSize Index Name StartingOffset\n"
					"512 0 Disk #0, Partition #0 1048576\n"
					"512 0 Disk #1, Partition #0 32256\n"
					"512 1 Disk #1, Partition #1 105906176\n";
	ck_assert_int_eq(partitions_parse(&ps, collapsed, sizeof collapsed - 1, &d), 0);
	ck_assert_uint_eq(ps.n, 3);
	ck_assert_str_eq(ps.p[1].name, "Disk #1, Partition #0");
	ck_assert(ps.p[1].offset == 32256 && ps.p[1].block_size == 512);
	ck_assert_int_eq(ps.p[1].disk, 1);
	ck_assert_int_eq(ps.p[2].index, 1);
	ck_assert(ps.p[2].offset == 105906176);
	ck_assert_int_eq(ps.p[2].line, 5);
	partitions_free(&ps);
	/* another column order, tabs */
	static const char tabs[] = "Name\tStartingOffset\tIndex\nDisk #3, Partition #2\t32256\t2\n";
	ck_assert_int_eq(partitions_parse(&ps, tabs, sizeof tabs - 1, &d), 0);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_str_eq(ps.p[0].name, "Disk #3, Partition #2");
	ck_assert(ps.p[0].offset == 32256 && ps.p[0].index == 2 && ps.p[0].disk == 3);
	partitions_free(&ps);

	static const char csv[] = "\r\nNode,BlockSize,Index,Name,StartingOffset\r\n"
				  "SQL01,512,0,Disk #0, Partition #0,1048576\r\n"
				  "SQL01,512,0,Disk #1, Partition #0,32256\r\n";
	ck_assert_int_eq(partitions_parse(&ps, csv, sizeof csv - 1, &d), 0);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_str_eq(ps.p[1].name, "Disk #1, Partition #0");
	ck_assert(ps.p[1].offset == 32256);
	partitions_free(&ps);
	ck_assert_uint_eq(msgs.len, 0);

	/* some bad lines: warned with file:line, the others kept */
	static const char some[] = "BlockSize  Index  Name                   StartingOffset  \r\n"
				   "512        0      Disk #0, Partition #0  1048576         \r\n"
				   "512        0      Disk #1, Partition #0  n/a             \r\n"
				   "512        x      Disk #1, Partition #1  105906176       \r\n"
				   "512 1 Disk #2, Partition #1 32256\r\n";
	ck_assert_int_eq(partitions_parse(&ps, some, sizeof some - 1, &d), 0);
	ck_assert_uint_eq(ps.n, 2);
	ck_assert_str_eq(ps.p[1].name, "Disk #2, Partition #1");
	ck_assert_ptr_nonnull(strstr(msgs.data, "p.txt:3:42: warning: no StartingOffset number; line skipped"));
	ck_assert_ptr_nonnull(strstr(msgs.data, "p.txt:4:12: warning: Index is not a number; line skipped"));
	partitions_free(&ps);
	buf_reset(&msgs);
	static const char bad_list[] = "BlockSize=512\nName=Disk #0, Partition #0\n\nName=Disk #1, Partition #0\n"
				       "StartingOffset=32256\n";
	ck_assert_int_eq(partitions_parse(&ps, bad_list, sizeof bad_list - 1, &d), 0);
	ck_assert_uint_eq(ps.n, 1);
	ck_assert_int_eq(ps.p[0].line, 4);
	ck_assert_ptr_nonnull(strstr(msgs.data, "p.txt:1: warning: partition record (from line 1): no StartingOffset= line"));
	partitions_free(&ps);
	buf_reset(&msgs);

	/* every line bad: an error, not silence */
	static const char none[] = "BlockSize Index Name StartingOffset\n"
				   "512 0 Disk #0, Partition #0 1,048,576\n"
				   "512 0 Disk #1, Partition #0 32,256\n";
	ck_assert_int_eq(partitions_parse(&ps, none, sizeof none - 1, &d), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(msgs.data, "p.txt:2: warning: no StartingOffset number"));
	ck_assert_ptr_nonnull(strstr(msgs.data, "p.txt:3: warning: no StartingOffset number"));
	ck_assert_ptr_nonnull(strstr(msgs.data, "error: none of the 2 lines after the header could be read"));
	partitions_free(&ps);
	static const char none_list[] = "\r\nBlockSize=512\r\nName=Disk #0, Partition #0\r\nStartingOffset=\r\n\r\n";
	ck_assert_int_eq(partitions_parse(&ps, none_list, sizeof none_list - 1, &d), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(msgs.data, "p.txt:4: warning: partition record (from line 2): no StartingOffset number"));
	ck_assert_ptr_nonnull(strstr(msgs.data, "error: none of the 1 wmic /format:list record is a partition"));
	partitions_free(&ps);
	static const char header_only[] = "BlockSize  Index  Name  StartingOffset\r\n\r\n";
	ck_assert_int_eq(partitions_parse(&ps, header_only, sizeof header_only - 1, &d), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(msgs.data, "no partition lines after the header"));
	partitions_free(&ps);
	buf_free(&msgs);
}
END_TEST

/* Shifts every perfmon time stamp of a file by secs (a guest clock running ahead). */
static void shift_perfmon(const char *in, const char *out, int secs)
{
	FILE *fi = fopen(in, "r"), *fo = fopen(out, "w");
	ck_assert(fi && fo);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	bool header = true;
	while ((n = getline(&line, &cap, fi)) > 0) {
		int64_t t;
		if (!header && n > 26 && line[0] == '"' && pdh_parse_time(line + 1, 23, &t) == 0) {
			t += secs * 1000;
			char iso[32];
			time_format_iso(t, true, iso);
			/* 2026-07-27T13:00:00.671Z → 07/27/2026 13:00:00.671 */
			int ms = (int)(((t % 1000) + 1000) % 1000);
			fprintf(fo, "\"%.2s/%.2s/%.4s %.8s.%03d\"%s", iso + 5, iso + 8, iso, iso + 11, ms, line + 25);
		} else {
			fputs(line, fo);
		}
		header = false;
	}
	free(line);
	fclose(fi);
	ck_assert_int_eq(fclose(fo), 0);
}

START_TEST(clock_offset_estimated)
{
	char set[128], esx[160], pm[160], shifted[160];
	snprintf(set, sizeof set, "%s/set", tmpdir);
	char *argv[] = {"simulate", "--scenario", "lsi-guest-queue-cap", "--out", set, "--seed", "4", NULL};
	ck_assert_int_eq(sim_main(7, argv), 0);
	snprintf(esx, sizeof esx, "%s/esxtop.csv", set);
	snprintf(pm, sizeof pm, "%s/perfmon.csv", set);
	snprintf(shifted, sizeof shifted, "%s/shifted.csv", set);
	shift_perfmon(pm, shifted, 46);
	struct analysis a;
	analysis_init(&a);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	ck_assert_int_eq(model_add_capture(&a.m, esx, &co), 0);
	ck_assert_int_eq(model_add_capture(&a.m, shifted, &co), 0);
	struct analyze_opts o = {0};
	analysis_run(&a, &o);
	const struct capture *c = &a.m.caps[1];
	ck_assert(c->offset_estimated);
	ck_assert_msg(llabs(c->clock_offset_ms + 46000) <= 4000, "offset %lld ms", (long long)c->clock_offset_ms);
	ck_assert(c->offset_confidence > 0.8);
	/* the guest disk was mapped by correlation */
	bool mapped = false;
	for (size_t i = 0; i < a.nmap; i++)
		if (strcmp(a.map[i].guest_disk, "D:") == 0 && strcmp(a.map[i].vdisk, "SQL01:scsi0:1") == 0)
			mapped = a.map[i].automatic;
	ck_assert(mapped);
	/* findings still land in the truth window despite the shift */
	ck_assert_int_ge(count(&a, "queue.guest_hidden"), 1);
	/* JSON is produced and carries the schema version and the applied offset */
	struct buf b;
	buf_init(&b);
	struct json j;
	json_init(&j, &b, false);
	analysis_json(&a, &j);
	ck_assert_ptr_nonnull(strstr(b.data, "\"schema_version\":3"));
	ck_assert_ptr_nonnull(strstr(b.data, "\"clock_offset_estimated\":true"));
	buf_free(&b);
	analysis_free(&a);
	/* a --clock-offset wins over the estimate */
	analysis_init(&a);
	ck_assert_int_eq(model_add_capture(&a.m, esx, &co), 0);
	ck_assert_int_eq(model_add_capture(&a.m, shifted, &co), 0);
	o.clock_offset_given = true;
	o.clock_offset_s = 46;
	analysis_run(&a, &o);
	ck_assert(a.m.caps[1].clock_offset_ms == -46000 && !a.m.caps[1].offset_estimated);
	analysis_free(&a);
}
END_TEST

/* The load of the guest's D: every 15 s (a hash: no period a lag could match by chance). */
static double load15(int k)
{
	if (k < 0)
		k = 0;
	double x = sin((double)k * 12.9898) * 43758.5453;
	return 600 + 1200 * (x - floor(x));
}
static double guest15(int row, const double *arg)
{
	(void)arg;
	return load15(row);
}
/* The host samples every 60 s: row j covers the guest's rows 4j-3 .. 4j. */
static double host60(int row, const double *arg)
{
	(void)arg;
	double s = 0;
	for (int k = 4 * row - 3; k <= 4 * row; k++)
		s += load15(k);
	return s / 4;
}

/* A copy of perfmon file in without the bias in its header ("(Pacific Daylight Time)(420)" ->
 * "(Pacific Daylight Time)"): its local times are taken as UTC. */
static void strip_bias(const char *in, const char *out)
{
	FILE *fi = fopen(in, "r"), *fo = fopen(out, "w");
	ck_assert(fi && fo);
	char *line = NULL;
	size_t cap = 0;
	bool first = true;
	while (getline(&line, &cap, fi) > 0) {
		char *b = first ? strstr(line, ")(420)") : NULL;
		if (b)
			memmove(b + 1, b + 6, strlen(b + 6) + 1);
		fputs(line, fo);
		first = false;
	}
	free(line);
	fclose(fi);
	ck_assert_int_eq(fclose(fo), 0);
}

static void run_pair(struct analysis *a, const char *esx, const char *pm, const char *map)
{
	analysis_init(a);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	ck_assert_int_eq(model_add_capture(&a->m, esx, &co), 0);
	ck_assert_int_eq(model_add_capture(&a->m, pm, &co), 0);
	struct diag d;
	diag_init(&d, map, -1);
	struct diskmap dm;
	ck_assert_int_eq(diskmap_read(&dm, map, &d), 0);
	analysis_use_diskmap(a, &dm, map);
	diskmap_free(&dm);
	struct analyze_opts o = {0};
	analysis_run(a, &o);
}

/* A perfmon header without a bias (the zone assumed): a whole-hour shift that makes the IOPS agree
 * is found and applied; with none, no guest-vs-host finding (hidden queueing, the vSCSI cap
 * against the host) is made and the verdict says why. */
START_TEST(clock_zone_assumed)
{
	char set[128], esx[160], pm[160], nob[160], off[160], map[160];
	snprintf(set, sizeof set, "%s/set", tmpdir);
	char *argv[] = {"simulate", "--scenario", "lsi-guest-queue-cap", "--out", set, NULL};
	ck_assert_int_eq(sim_main(5, argv), 0);
	snprintf(esx, sizeof esx, "%s/esxtop.csv", set);
	snprintf(pm, sizeof pm, "%s/perfmon.csv", set);
	snprintf(map, sizeof map, "%s/disks.map", set);
	snprintf(nob, sizeof nob, "%s/nobias.csv", set);
	snprintf(off, sizeof off, "%s/nobias-13min.csv", set);
	strip_bias(pm, nob);
	shift_perfmon(nob, off, 13 * 60);
	struct analysis a;
	run_pair(&a, esx, nob, map);
	ck_assert(llabs(a.m.caps[1].clock_offset_ms - 7 * 3600000LL) <= 10000);
	ck_assert_ptr_nonnull(strstr(a.verdict, "shifted by +7.0 h: that shift is applied"));
	ck_assert_int_ge(count(&a, "queue.guest_hidden"), 1);
	analysis_free(&a);

	run_pair(&a, esx, off, map);
	ck_assert(analysis_clock_untrusted(&a, 1));
	ck_assert_int_eq(count(&a, "queue.guest_hidden"), 0);
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_Q_GUEST_VSCSI_CAP)
			ck_assert_int_eq(a.f[i].sev, SEV_INFO);
	ck_assert_ptr_nonnull(strstr(a.verdict, "no guest-vs-host conclusion"));
	analysis_free(&a);
}
END_TEST

START_TEST(clock_across_intervals)
{
	/* esxtop every 60 s, perfmon every 15 s, clocks in step: the IOPS are compared on the 60 s
	 * grid (the guest's four samples averaged), so no shift is estimated and none applied;
	 * comparing a 15 s sample with a 60 s average picked a lag of a whole host interval */
	static const struct mcol host[] = {
		{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", host60, {0}},
		{"Physical Disk SCSI Device(naa.A)\\Commands/sec", host60, {0}},
		{"Physical Disk SCSI Device(naa.A)\\Average Driver MilliSec/Command", mc_konst, {22}},
	};
	static const struct mcol guest[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", guest15, {0}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.023}},
		{"LogicalDisk(D:)\\Current Disk Queue Length", mc_konst, {40}},
	};
	for (int shift = 0; shift <= 1; shift++) {
		struct buf h, g, msgs;
		buf_init(&h);
		buf_init(&g);
		buf_init(&msgs);
		struct common_opts co;
		common_opts_init(&co);
		co.quiet = true;
		co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
		memcap(&h, false, "esx01", host, 3, 120, 60);
		memcap(&g, true, "SQL01", guest, 3, 480, 15);
		if (shift) {
			/* the guest's clock 120 s ahead: its rows say 13:02:00 for the host's 13:00:00 */
			char *p = strstr(g.data, "\r\n") + 2;
			for (; (p = strstr(p, "\"07/27/2026 ")) != NULL; p++) {
				int hh, mm, ss;
				ck_assert_int_eq(sscanf(p + 12, "%d:%d:%d", &hh, &mm, &ss), 3);
				int t = hh * 3600 + mm * 60 + ss + 120;
				char tmp[16];
				snprintf(tmp, sizeof tmp, "%02d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
				memcpy(p + 12, tmp, 8); /* hh:mm:ss */
			}
		}
		struct analysis a;
		analysis_init(&a);
		ck_assert_int_eq(model_add_capture_mem(&a.m, "esx.csv", h.data, h.len, &co), 0);
		ck_assert_int_eq(model_add_capture_mem(&a.m, "pm.csv", g.data, g.len, &co), 0);
		struct analyze_opts o;
		memset(&o, 0, sizeof o);
		analysis_run(&a, &o);
		const struct capture *c = &a.m.caps[1];
		ck_assert(c->offset_estimated);
		if (!shift)
			ck_assert_msg(c->clock_offset_ms == 0, "offset applied: %lld ms", (long long)c->clock_offset_ms);
		else
			ck_assert_msg(llabs(c->clock_offset_ms + 120000) <= 15000, "offset %lld ms, not -120 s",
				      (long long)c->clock_offset_ms);
		ck_assert(c->offset_confidence > 0.9);
		/* the guest's queue is the device's: nothing hidden in the guest */
		ck_assert_int_eq(count(&a, "queue.guest_hidden"), 0);
		ck_assert_int_ge(count(&a, "latency.device"), 1);
		analysis_free(&a);
		buf_free(&h);
		buf_free(&g);
		buf_free(&msgs);
	}
}
END_TEST

/* The vSCSI cap is an accounting between the layers: the guest's outstanding IOs (Current Disk
 * Queue Length) against what the host holds for its virtual disk, here read from the LUN's ACTV +
 * QUED (the virtual disk has no latency columns: Little's law cannot count it). 84 in the guest, 32
 * active + 52 queued at the host: the host's queue, no cap. 84 against 32 held: a per-disk limit of
 * 32, LSI's (inferred), and the step moves the disk from LSI. 120 against 64 held (more than 32 ever
 * passes no LSI): PVSCSI at its default, and the step raises MaxQueueDepth. */
START_TEST(vscsi_cap_is_an_accounting)
{
	static const struct {
		double q, actv, qued;
		int ctrl;       /* -1: no finding */
		const char *step;
	} cases[] = {
		{84, 32, 52, -1, NULL},
		{84, 32, 0, VC_LSI, "from the LSI Logic SAS controller"},
		{120, 64, 0, VC_PVSCSI, "MaxQueueDepth 254 per disk"},
	};
	char mp[128];
	snprintf(mp, sizeof mp, "%s/acct.map", tmpdir);
	FILE *fp = fopen(mp, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("SQL01\\D: = SQL01:scsi0:1\n", fp);
	ck_assert_int_eq(fclose(fp), 0);
	for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
		struct mcol host[] = {
			{"Virtual Disk(SQL01:scsi0:1)\\Commands/sec", mc_wave, {8400, 800, 7}},
			{"Virtual Disk(SQL01:scsi0:1)\\Reads/sec", mc_wave, {8400, 800, 7}},
			{DEV "Commands/sec", mc_wave, {8400, 800, 7}},
			{DEV "Reads/sec", mc_wave, {8400, 800, 7}},
			{DEV "Active Commands", mc_konst, {cases[ci].actv}},
			{DEV "Queued Commands", mc_konst, {cases[ci].qued}},
			{DEV "Device Q Depth", mc_konst, {cases[ci].actv}},
			{DEV "Average Driver MilliSec/Command", mc_konst, {3.8}},
			{DEV "Average Kernel MilliSec/Command", mc_konst, {cases[ci].qued > 0 ? 6.2 : 0.01}},
		};
		struct mcol guest[] = {
			{"LogicalDisk(D:)\\Disk Transfers/sec", mc_wave, {8400, 800, 7}},
			{"LogicalDisk(D:)\\Disk Reads/sec", mc_wave, {8400, 800, 7}},
			{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.030}},
			{"LogicalDisk(D:)\\Current Disk Queue Length", mc_konst, {cases[ci].q}},
		};
		struct buf h, g;
		buf_init(&h);
		buf_init(&g);
		memcap(&h, false, "esx01", host, 9, 300, 2);
		memcap(&g, true, "SQL01", guest, 4, 300, 2);
		struct analysis a;
		analysis_init(&a);
		struct tdiag td;
		struct diskmap dm;
		ck_assert_int_eq(diskmap_read(&dm, mp, tdiag_init(&td, mp)), 0);
		analysis_use_diskmap(&a, &dm, mp);
		diskmap_free(&dm);
		tdiag_free(&td);
		struct analyze_opts o = {0};
		analysis_set_opts(&a, &o);
		struct common_opts co;
		common_opts_init(&co);
		co.quiet = true;
		ck_assert_int_eq(model_add_capture_mem(&a.m, "esxtop.csv", h.data, h.len, &co), 0);
		ck_assert_int_eq(model_add_capture_mem(&a.m, "pm.csv", g.data, g.len, &co), 0);
		analysis_run(&a, &o);
		const struct finding *f = find_kind(&a, K_Q_GUEST_VSCSI_CAP);
		if (cases[ci].ctrl < 0) {
			ck_assert_msg(!f, "case %zu: %s", ci, f ? f->summary : "");
			ck_assert_int_ge(count(&a, "queue.device_saturated"), 1);
		} else {
			ck_assert_msg(f != NULL, "case %zu: no cap", ci);
			ck_assert_int_eq(f->ctrl, cases[ci].ctrl);
			ck_assert_ptr_nonnull(strstr(f->rule, "ACTV + QUED of LUN naa.6000"));
			struct action_list l;
			actions_of(&a, &l);
			ck_assert_int_ge(l.n, 1);
			ck_assert_msg(strstr(l.act[0].what, cases[ci].step), "case %zu: %s", ci, l.act[0].what);
			actions_free(&l);
		}
		analysis_free(&a);
		buf_free(&h);
		buf_free(&g);
	}
}
END_TEST

/* A perfmon alone is a Windows host unless it shows it is a VM's: VMware Tools' VM Processor / VM
 * Memory objects (lowercase as Export-Counter writes them) make it a guest; so does a host capture
 * judged with it. The summary names it so and tells only a VM to add its hypervisor's capture. */
START_TEST(windows_host_or_guest)
{
	struct mcol plain[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_konst, {300}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.030}},
		{"LogicalDisk(D:)\\Disk Reads/sec", mc_konst, {300}},
	};
	struct mcol vm[] = {
		{"LogicalDisk(D:)\\Disk Transfers/sec", mc_konst, {300}},
		{"LogicalDisk(D:)\\Avg. Disk sec/Read", mc_konst, {0.030}},
		{"LogicalDisk(D:)\\Disk Reads/sec", mc_konst, {300}},
		{"vm processor(_total)\\cpu stolen time", mc_konst, {0.1}},
	};
	for (int k = 0; k < 2; k++) {
		struct buf g;
		buf_init(&g);
		memcap(&g, true, "PC01", k ? vm : plain, k ? 4 : 3, 200, 5);
		struct analysis a;
		analysis_init(&a);
		struct common_opts co;
		common_opts_init(&co);
		co.quiet = true;
		ck_assert_int_eq(model_add_capture_mem(&a.m, "pm.csv", g.data, g.len, &co), 0);
		struct analyze_opts o;
		memset(&o, 0, sizeof o);
		analysis_run(&a, &o);
		ck_assert_int_eq(model_guest_is_vm(&a.m, 0), k == 1);
		ck_assert_int_eq(strstr(a.verdict, "add the host's capture of the same period") != NULL, k == 1);
		ck_assert_int_eq(strstr(a.verdict, "read as a Windows host's own disks") != NULL, k == 0);
		/* the slow disk's step: only a VM is told to capture its hypervisor */
		struct action_list l;
		actions_of(&a, &l);
		ck_assert_int_ge(l.n, 1);
		ck_assert_msg(strstr(l.act[0].what, k ? "Capture the host of PC01" : "Look below Windows on PC01"),
			      "%s", l.act[0].what);
		actions_free(&l);
		analysis_free(&a);
		buf_free(&g);
	}
}
END_TEST

/* The write mix alone makes a log disk a guess: C: with 99 % small writes at 16.6 ms is a warning
 * that says it guesses, and the summary quotes the band applied (not "under 20 ms is acceptable"
 * beside a 5 ms log target); a --map database line makes it a fact, and 16.6 ms above the log's
 * 10 ms is then critical. */
START_TEST(log_disk_guess_is_a_warning)
{
	struct mcol guest[] = {
		{"LogicalDisk(C:)\\Disk Transfers/sec", mc_konst, {101}},
		{"LogicalDisk(C:)\\Disk Writes/sec", mc_konst, {100}},
		{"LogicalDisk(C:)\\Disk Reads/sec", mc_konst, {1}},
		{"LogicalDisk(C:)\\Avg. Disk sec/Write", mc_konst, {0.0166}},
		{"LogicalDisk(C:)\\Avg. Disk Bytes/Write", mc_konst, {8192}},
	};
	char mp[128];
	snprintf(mp, sizeof mp, "%s/log.map", tmpdir);
	FILE *fp = fopen(mp, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("database APPDB log = PC01\\C:\n", fp);
	ck_assert_int_eq(fclose(fp), 0);
	for (int k = 0; k < 2; k++) {
		struct buf g;
		buf_init(&g);
		memcap(&g, true, "PC01", guest, 5, 200, 5);
		struct analysis a;
		analysis_init(&a);
		if (k) {
			struct tdiag td;
			struct diskmap dm;
			ck_assert_int_eq(diskmap_read(&dm, mp, tdiag_init(&td, mp)), 0);
			analysis_use_diskmap(&a, &dm, mp);
			diskmap_free(&dm);
			tdiag_free(&td);
		}
		struct common_opts co;
		common_opts_init(&co);
		co.quiet = true;
		ck_assert_int_eq(model_add_capture_mem(&a.m, "pm.csv", g.data, g.len, &co), 0);
		struct analyze_opts o;
		memset(&o, 0, sizeof o);
		analysis_set_opts(&a, &o);
		analysis_run(&a, &o);
		const struct finding *f = find_kind(&a, K_LAT_GUEST_WRITE);
		ck_assert_ptr_nonnull(f);
		ck_assert_int_eq(f->sev, k ? SEV_CRITICAL : SEV_WARNING);
		ck_assert_int_eq(f->heuristic, k == 0);
		ck_assert_int_eq(strstr(f->summary, "a guess") != NULL, k == 0);
		struct ltime lt;
		ltime_init(&lt, &a.m, NULL);
		struct exec_summary es;
		summary_of_analysis(&a, &lt, &es);
		bool said20 = false, said5 = false;
		for (int i = 0; i < es.nsentences; i++) {
			said20 |= strstr(es.sentence[i], "under 20 ms is acceptable") != NULL;
			said5 |= strstr(es.sentence[i],
					k ? "against the 5 ms target" : "above the 5 ms a transaction log") != NULL;
		}
		ck_assert_msg(!said20 && said5, "%d: %s %s", k, es.nsentences > 2 ? es.sentence[2] : "",
			      es.nsentences > 1 ? es.sentence[1] : "");
		summary_free(&es);
		analysis_free(&a);
		buf_free(&g);
	}
}
END_TEST

START_TEST(diskmap_file)
{
	char p[128];
	snprintf(p, sizeof p, "%s/map.txt", tmpdir);
	FILE *fp = fopen(p, "w");
	fputs("# comment\nSQL01\\d: = SQL01:scsi0:1\n E: = SQL01:scsi0:2 \nbroken line\nSQL01\\F: = nonsense\n", fp);
	fclose(fp);
	struct analysis a;
	analysis_init(&a);
	struct tdiag td;
	struct diskmap dm;
	ck_assert_int_eq(diskmap_read(&dm, p, tdiag_init(&td, p)), ERR_FORMAT);
	analysis_use_diskmap(&a, &dm, p);
	diskmap_free(&dm);
	ck_assert_uint_eq(a.nmap, 2);
	ck_assert_str_eq(a.map[0].guest_host, "SQL01");
	ck_assert_str_eq(a.map[0].guest_disk, "D:");
	ck_assert_ptr_null(a.map[1].guest_host);
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "map.txt:4:1: error"));
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "map.txt:5:"));
	tdiag_free(&td);
	analysis_free(&a);
}
END_TEST

START_TEST(classify_paths)
{
	struct arena ar;
	arena_init(&ar);
	struct pdh_path p;
	struct counter_class cl;
	static const char a[] = "\\\\h\\Virtual Disk(SQL01 (104c07ff-3663-44fb-9d89-a563c801611c):scsi0:1)\\Average MilliSec/Read";
	pdh_split_path(a, sizeof a - 1, &p, &ar);
	ck_assert_int_eq(parser_esxtop.classify(&p, &cl), M_VD_LAT_R);
	ck_assert_str_eq(cl.entity, "SQL01:scsi0:1");
	static const char b[] = "\\\\sql01\\physicaldisk(1 d: e:)\\avg. disk sec/read";
	pdh_split_path(b, sizeof b - 1, &p, &ar);
	ck_assert_int_eq(parser_perfmon.classify(&p, &cl), M_G_LAT_R);
	ck_assert_str_eq(cl.entity, "D:");
	ck_assert(cl.scale == 1000);
	ck_assert_int_eq(cl.disk_no, 1);
	ck_assert_str_eq(cl.disk_drive, "D:");
	ck_assert_int_eq(cl.pass, 1); /* PhysicalDisk after LogicalDisk */
	static const char c[] = "\\\\sql01\\Logischer Datentr\xe4ger(D:)\\Mittlere Sek./Lesevorg\xe4nge"; /* cp1252 */
	pdh_split_path(c, sizeof c - 1, &p, &ar);
	ck_assert_int_eq(parser_perfmon.classify(&p, &cl), M_G_LAT_R);
	ck_assert_int_eq(cl.pass, 0);
	static const char d[] = "\\\\sql01\\LogicalDisk(_Total)\\Avg. Disk sec/Read";
	pdh_split_path(d, sizeof d - 1, &p, &ar);
	ck_assert_int_eq(parser_perfmon.classify(&p, &cl), M_G_LAT_R); /* _Total: the aggregate ... */
	ck_assert(cl.aggregate);                                        /* ... kept only without disks */
	static const char e[] = "\\\\h\\Group Cpu(1234:SQL01)\\% Used";
	pdh_split_path(e, sizeof e - 1, &p, &ar);
	ck_assert_int_lt(parser_esxtop.classify(&p, &cl), 0); /* CPU %Used is not %USD */
	static const char f[] = "\\\\h\\Physical Disk Per-Device-Per-World(naa.600a-12345)\\Commands/sec";
	pdh_split_path(f, sizeof f - 1, &p, &ar);
	ck_assert_int_eq(parser_esxtop.classify(&p, &cl), M_CMDS);
	ck_assert_int_eq(cl.layer, LAYER_WORLD);
	ck_assert_str_eq(cl.parent, "naa.600a");
	arena_free(&ar);
}
END_TEST

/* Memory (issue 34): a Windows machine's Memory and Paging File (the page file named by its drive),
 * SQL Server's Memory Grants Pending of a named instance, an ESXi host's Memory and a VM's Group
 * Memory; the Group Cpu % Swap Wait stays the VM's. */
START_TEST(classify_memory)
{
	struct arena ar;
	arena_init(&ar);
	struct pdh_path p;
	struct counter_class cl;
	static const struct {
		const char *path;
		const struct parser_ops *ops;
		int metric;
		enum layer layer;
		const char *entity;
	} t[] = {
	    {"\\\\sql01\\Memory\\Available MBytes", &parser_perfmon, M_MEM_AVAIL_MB, LAYER_VM, "_Total"},
	    {"\\\\sql01\\memory\\pages input/sec", &parser_perfmon, M_MEM_PAGES_IN, LAYER_VM, "_Total"},
	    {"\\\\sql01\\Paging File(\\??\\d:\\pagefile.sys)\\% Usage", &parser_perfmon, M_MEM_PF_USAGE, LAYER_VM,
	     "D:"},
	    {"\\\\sql01\\Paging File(_Total)\\% Usage", &parser_perfmon, M_MEM_PF_USAGE, LAYER_VM, "_Total"},
	    {"\\\\sql01\\MSSQL$PROD:Memory Manager\\Memory Grants Pending", &parser_perfmon, M_SQL_GRANTS_PENDING,
	     LAYER_SQL, "MSSQL$PROD"},
	    {"\\\\h\\Memory\\Free MBytes", &parser_esxtop, M_HMEM_FREE_MB, LAYER_VM, "_Total"},
	    {"\\\\h\\Group Memory(1234:SQL01)\\Swap Read MBytes/sec", &parser_esxtop, M_VM_SWAP_R, LAYER_VM, "SQL01"},
	    {"\\\\h\\Group Memory(1234:SQL01)\\Memctl MBytes", &parser_esxtop, M_VM_BALLOON, LAYER_VM, "SQL01"},
	    {"\\\\h\\Group Cpu(1234:SQL01)\\% Swap Wait", &parser_esxtop, M_SWPWT, LAYER_VM, "SQL01"},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		pdh_split_path(t[i].path, strlen(t[i].path), &p, &ar);
		ck_assert_msg(t[i].ops->classify(&p, &cl) == t[i].metric, "%s", t[i].path);
		ck_assert_int_eq(cl.layer, t[i].layer);
		ck_assert_str_eq(cl.entity, t[i].entity);
	}
	static const char n[] = "\\\\sql01\\Paging File(\\??\\C:\\pagefile.sys)\\% Usage Peak";
	pdh_split_path(n, sizeof n - 1, &p, &ar);
	ck_assert_int_lt(parser_perfmon.classify(&p, &cl), 0); /* the peak is no rate of paging now */
	arena_free(&ar);
}
END_TEST

Suite *detect_suite(void)
{
	Suite *s = suite_create("detect");
	TCase *tc = tcase_create("engine");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, aborts_sustained_and_spike);
	tcase_add_test(tc, array_overcommit_needs_the_option);
	tcase_add_test(tc, kernel_latency_advice_depends_on_davg);
	tcase_add_test(tc, rules_file_overrides_and_errors);
	tcase_add_test(tc, vmklog_lines);
	tcase_add_test(tc, vmklog_families);
	tcase_add_test(tc, vmklog_weighed_against_capture);
	tcase_add_test(tc, partitions_wmic);
	tcase_add_test(tc, partitions_other_shapes);
	tcase_add_test(tc, partitions_tied_to_guest);
	tcase_add_test(tc, device_io_size_and_nondata);
	tcase_add_test(tc, adapter_beyond_its_devices);
	tcase_add_test(tc, queue_depth_step);
	tcase_add_test(tc, clock_offset_estimated);
	tcase_add_test(tc, clock_across_intervals);
	tcase_add_test(tc, clock_zone_assumed);
	tcase_add_test(tc, kavg_advice_needs_a_full_queue);
	tcase_add_test(tc, vscsi_cap_without_host_needs_pinned);
	tcase_add_test(tc, vscsi_cap_is_an_accounting);
	tcase_add_test(tc, windows_host_or_guest);
	tcase_add_test(tc, log_disk_guess_is_a_warning);
	tcase_add_test(tc, sioc_on_flash);
	tcase_add_test(tc, diskmap_file);
	tcase_add_test(tc, classify_paths);
	tcase_add_test(tc, classify_memory);
	suite_add_tcase(s, tc);
	return s;
}
