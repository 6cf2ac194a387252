/* check_flow.c — the consultant's workflow: the time window (parsing, resolution on a DST day,
 * rows outside never reaching the detectors), entity filters (the VM's devices from per-world
 * columns, errors), several files of one host merged (the same findings as one file; overlaps
 * skipped, gaps marked), SQL Server's files placed by evidence and --map, and the batch
 * manifest's per-set keys (file:line:col errors). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "anopts.h"
#include "discover.h"
#include "maps.h"
#include "suites.h"
#include "tz.h"
#include "window.h"

static const char *srcdir(void)
{
	const char *s = getenv("IOPSY_SRCDIR");
	return s ? s : ".";
}

static char *path_of(const char *rel)
{
	struct buf b;
	buf_init(&b);
	buf_printf(&b, "%s/%s", srcdir(), rel);
	return b.data;
}

static char *slurp_gz(const char *rel, size_t *len)
{
	char *p = path_of(rel);
	struct buf cmd;
	buf_init(&cmd);
	buf_printf(&cmd, "zcat '%s'", p);
	FILE *fp = popen(cmd.data, "r");
	ck_assert_ptr_nonnull(fp);
	struct buf b;
	buf_init(&b);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	pclose(fp);
	free(p);
	buf_free(&cmd);
	*len = b.len;
	return b.data;
}

static void quiet(struct common_opts *co)
{
	common_opts_init(co);
	co->quiet = true;
	co->max_warnings = 0;
}

/* ---- the window ---- */

START_TEST(window_parse)
{
	struct twin_bound b;
	const char *why;
	ck_assert_int_eq(twin_parse("13:00", &b, &why), 0);
	ck_assert(b.set && !b.dated && !b.zoned && b.ms == 13 * 3600000LL);
	ck_assert_int_eq(twin_parse("9:05:30.25", &b, &why), 0);
	ck_assert_int_eq(b.ms, (9 * 3600 + 5 * 60 + 30) * 1000LL + 250);
	ck_assert_int_eq(twin_parse("2026-07-27 13:00", &b, &why), 0);
	ck_assert(b.dated && !b.zoned);
	int64_t t;
	ck_assert_int_eq(time_parse_iso("2026-07-27T13:00:00Z", &t), 0);
	ck_assert_int_eq(b.ms, t);
	ck_assert_int_eq(twin_parse("2026-07-27T13:00:00Z", &b, &why), 0);
	ck_assert(b.zoned && b.ms == t);
	ck_assert_int_eq(twin_parse("2026-07-27T15:30:00+02:30", &b, &why), 0);
	ck_assert(b.zoned && b.ms == t);
	ck_assert_int_eq(twin_parse("2026-07-27T06:00-0700", &b, &why), 0);
	ck_assert(b.zoned && b.ms == t);
	ck_assert_int_eq(twin_parse("2026-07-27", &b, &why), 0);
	ck_assert(b.dated && b.ms == t - 13 * 3600000LL);
	const char *bad[] = {"", "25:00", "13:60", "13", "13:00Z", "2026-13-01 10:00", "2026-07-27T13:00+15:00", "1pm",
			     "13:00 ", "2026-07-27T13:00:00Zx", NULL};
	for (int i = 0; bad[i]; i++)
		ck_assert_msg(twin_parse(bad[i], &b, &why) == ERR_USAGE, "'%s' accepted", bad[i]);
}
END_TEST

/* On the autumn DST day a local time of the repeated hour is its first occurrence (said), the
 * second is reached by its offset, and a window across the change spans the repeated hour. */
START_TEST(window_dst)
{
	char *p = path_of("tests/inputs/analyze/perfmon-dst-autumn.csv");
	char *paths[] = {p};
	struct common_opts co;
	quiet(&co);
	struct twin_spec sp;
	memset(&sp, 0, sizeof sp);
	const char *why;
	ck_assert_int_eq(twin_parse("01:30", &sp.b[TW_FROM], &why), 0);
	ck_assert_int_eq(twin_parse("02:10", &sp.b[TW_TO], &why), 0);
	struct twin w;
	struct tdiag td;
	ck_assert_int_eq(twin_resolve(&sp, paths, 1, &co, &w, tdiag_init(&td, "t")), 0);
	int64_t a, b;
	ck_assert_int_eq(time_parse_iso("2026-11-01T08:30:00Z", &a), 0); /* 01:30 PDT */
	ck_assert_int_eq(time_parse_iso("2026-11-01T10:10:00Z", &b), 0); /* 02:10 PST */
	ck_assert_int_eq(w.from, a);
	ck_assert_int_eq(w.to, b);
	ck_assert_ptr_nonnull(strstr(w.note[TW_FROM], "occurs twice"));
	ck_assert_str_eq(w.note[TW_TO], "");
	ck_assert_int_eq(w.offset_min[TW_FROM], -420);
	ck_assert_int_eq(w.offset_min[TW_TO], -480);
	/* rows handed out: 01:30..01:59 PDT (30), 01:00..02:10 PST (70) */
	twin_apply(&w, &co);
	struct input in;
	ck_assert_int_eq(input_open(&in, p, &co), 0);
	reader_select(in.r, NULL);
	struct pdh_row row;
	long n = 0;
	while (reader_next(in.r, &row) == 1) {
		ck_assert(row.t_ms >= a && row.t_ms <= b);
		n++;
	}
	ck_assert_int_eq(n, 30 + 70);
	ck_assert_int_eq(reader_stats(in.r)->outside, 120 - n);
	input_close(&in);
	tdiag_free(&td);
	free(p);
}
END_TEST

/* A window in the perfmon's local time is one UTC window for the esxtop capture too: no row
 * outside it reaches the model or a detector. */
START_TEST(window_analysis)
{
	char *e = path_of("samples/lsi-guest-queue-cap/esxtop.csv.gz"), *g = path_of("samples/lsi-guest-queue-cap/perfmon.csv.gz");
	char *paths[] = {e, g};
	struct common_opts co;
	quiet(&co);
	struct twin_spec sp;
	memset(&sp, 0, sizeof sp);
	const char *why;
	ck_assert_int_eq(twin_parse("06:05", &sp.b[TW_FROM], &why), 0);
	ck_assert_int_eq(twin_parse("06:10", &sp.b[TW_TO], &why), 0);
	struct twin w;
	struct tdiag td;
	ck_assert_int_eq(twin_resolve(&sp, paths, 2, &co, &w, tdiag_init(&td, "t")), 0);
	ck_assert_ptr_eq(w.ref, g);
	twin_apply(&w, &co);
	struct analysis a;
	analysis_init(&a);
	a.window = w;
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(model_add_capture(&a.m, paths[i], &co), 0);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_run(&a, &ao);
	for (size_t i = 0; i < a.m.ncaps; i++) {
		const struct capture *c = &a.m.caps[i];
		ck_assert(c->start >= w.from && c->end <= w.to);
		ck_assert_int_gt(c->outside_rows, 100);
		ck_assert_int_eq(c->rows + c->outside_rows, i ? 240 : 237);
	}
	/* findings are said within the window asked for (the first row's interval began before it) */
	for (size_t i = 0; i < a.nf; i++)
		ck_assert(a.f[i].start >= w.from && a.f[i].end <= w.to);
	ck_assert_uint_ge(a.nf, 1);
	analysis_free(&a);
	/* with --tz the local times are the zone's (the reports' local time), not the perfmon's clock */
	struct tz berlin;
	struct buf tzwhy;
	buf_init(&tzwhy);
	ck_assert_int_eq(tz_parse(&berlin, "Europe/Berlin", &tzwhy), 0);
	co.tz = &berlin;
	memset(&sp, 0, sizeof sp);
	ck_assert_int_eq(twin_parse("15:05", &sp.b[TW_FROM], &why), 0);
	ck_assert_int_eq(twin_parse("15:10", &sp.b[TW_TO], &why), 0);
	ck_assert_int_eq(twin_resolve(&sp, paths, 2, &co, &w, tdiag_init(&td, "t")), 0);
	ck_assert_ptr_null(w.ref);
	ck_assert_str_eq(w.zone, "Europe/Berlin");
	ck_assert_int_eq(w.from, 1785157500000LL); /* 2026-07-27T13:05:00Z: CEST is UTC+2 */
	ck_assert_int_eq(w.to, 1785157800000LL);
	ck_assert_int_eq(w.offset_min[TW_FROM], 120);
	tz_free(&berlin);
	buf_free(&tzwhy);
	tdiag_free(&td);
	free(e);
	free(g);
}
END_TEST

/* ---- filters ---- */

static bool has_entity(const struct model *m, enum layer l, const char *name)
{
	for (size_t i = 0; i < m->nents; i++)
		if (m->ents[i].layer == l && strcmp(m->ents[i].name, name) == 0)
			return true;
	return false;
}

/* --vm keeps the VM's guest disks, virtual disks and the LUNs its worlds issue IO to (from the
 * esxtop header), not another VM's; adapters stay. */
START_TEST(filter_vm_devices)
{
	char *e = path_of("samples/lsi-guest-queue-cap/esxtop.csv.gz"), *g = path_of("samples/lsi-guest-queue-cap/perfmon.csv.gz");
	struct common_opts co;
	quiet(&co);
	struct ent_filter f;
	ef_init(&f);
	struct tdiag td;
	ck_assert_int_eq(ef_add(&f, EF_VM, "^sql01$", tdiag_init(&td, "--vm")), 0);
	struct analysis a;
	analysis_init(&a);
	a.m.filter = &f;
	ck_assert_int_eq(model_add_capture(&a.m, e, &co), 0);
	ck_assert_int_eq(model_add_capture(&a.m, g, &co), 0);
	ck_assert(has_entity(&a.m, LAYER_DEVICE, "naa.624a93708c1f4e2b1102000067bf1af7")); /* SQL01 D:'s LUN */
	ck_assert(!has_entity(&a.m, LAYER_DEVICE, "naa.624a93708c1f4e2b11090000d422aeac")); /* APP02's */
	ck_assert(!has_entity(&a.m, LAYER_DEVICE, "mpx.vmhba0:C0:T0:L0"));                  /* the host's boot disk */
	ck_assert(has_entity(&a.m, LAYER_VSCSI, "SQL01:scsi0:1"));
	ck_assert(!has_entity(&a.m, LAYER_VSCSI, "APP02:scsi0:0"));
	ck_assert(has_entity(&a.m, LAYER_GUEST, "D:"));
	ck_assert(has_entity(&a.m, LAYER_ADAPTER, "vmhba2"));
	ck_assert(has_entity(&a.m, LAYER_VM, "SQL01") && !has_entity(&a.m, LAYER_VM, "APP02"));
	ck_assert_int_eq(f.kept[LAYER_DEVICE], 4);
	ck_assert_int_eq(f.dropped[LAYER_DEVICE], 2);
	ck_assert(!f.devices_unlinked);
	ck_assert_int_eq(ef_check(&f, NULL, &td.d), 0);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_run(&a, &ao);
	ck_assert_ptr_nonnull(strstr(a.verdict, "For the selection (--vm '^sql01$') only:"));
	for (size_t i = 0; i < a.nf; i++)
		ck_assert_msg(!a.f[i].host || strcmp(a.f[i].host, "APP02") != 0, "a finding outside the selection");
	analysis_free(&a);
	ef_free(&f);
	tdiag_free(&td);
	free(e);
	free(g);
}
END_TEST

/* A pattern that matches nothing is an error naming what the captures have; patterns of one
 * filter are alternatives; filters that each match but leave nothing are an error too. */
START_TEST(filter_errors)
{
	char *e = path_of("samples/lsi-guest-queue-cap/esxtop.csv.gz");
	struct common_opts co;
	quiet(&co);
	struct tdiag td;
	tdiag_init(&td, NULL);
	struct ent_filter f;
	ef_init(&f);
	ck_assert_int_eq(ef_add(&f, EF_DISK, "naa.*1102", &td.d), 0);
	ck_assert_int_eq(ef_add(&f, EF_DISK, "nothing-like-this", &td.d), 0);
	ck_assert_int_eq(ef_add(&f, EF_HOST, "(unclosed", &td.d), ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "regex error"));
	struct model m;
	model_init(&m);
	m.filter = &f;
	ck_assert_int_eq(model_add_capture(&m, e, &co), 0);
	ck_assert(has_entity(&m, LAYER_DEVICE, "naa.624a93708c1f4e2b1102000067bf1af7"));
	buf_reset(&td.msgs);
	ck_assert_int_eq(ef_check(&f, "the before captures", &td.d), ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "--disk 'nothing-like-this' matches no disk of the before captures"));
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "devices mpx.vmhba0:C0:T0:L0"));
	ck_assert_ptr_null(strstr(td.msgs.data, "naa.*1102'"));
	model_free(&m);
	ef_free(&f);
	/* --disk that matches only a guest disk name: a host capture's virtual disks and devices are
	 * read, named by no pattern, and decided on the disk's path once the disks are mapped
	 * (analysis.c select_stacks); no guest disk is in this capture */
	ef_init(&f);
	ck_assert_int_eq(ef_add(&f, EF_DISK, "^D:$", &td.d), 0);
	model_init(&m);
	m.filter = &f;
	ck_assert_int_eq(model_add_capture(&m, e, &co), 0);
	ck_assert_int_eq(f.kept[LAYER_GUEST], 0);
	int pending = 0;
	for (size_t i = 0; i < m.nents; i++) {
		if (m.ents[i].layer != LAYER_VSCSI && m.ents[i].layer != LAYER_DEVICE)
			continue;
		ck_assert_int_eq(m.ents[i].disk_match, 0);
		pending++;
	}
	ck_assert_int_gt(pending, 0);
	buf_reset(&td.msgs);
	ck_assert_int_eq(ef_check(&f, NULL, &td.d), ERR_USAGE);
	model_free(&m);
	ef_free(&f);
	tdiag_free(&td);
	free(e);
}
END_TEST

/* ---- several files of one host ---- */

/* The header and the data lines [from, to) (1-based data rows) of text. */
static char *lines(const char *text, size_t len, int from, int to, size_t *out_len)
{
	struct buf b;
	buf_init(&b);
	const char *p = text, *end = text + len;
	int ln = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl + 1 : end;
		if (ln == 0 || (ln >= from && ln < to))
			buf_add(&b, p, (size_t)(e - p));
		ln++;
		p = e;
	}
	*out_len = b.len;
	return b.data;
}

static void analyse_mem(struct analysis *a, const char *const *names, char *const *data, const size_t *len, int n)
{
	struct common_opts co;
	quiet(&co);
	analysis_init(a);
	for (int i = 0; i < n; i++)
		ck_assert_int_eq(model_add_capture_mem(&a->m, names[i], data[i], len[i], &co), 0);
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_run(a, &ao);
}

/* A capture split in two overlapping files gives the findings of the whole file: one capture, the
 * repeated rows skipped (and counted), no episode cut at the file boundary. */
START_TEST(merge_split)
{
	size_t el, gl;
	char *esx = slurp_gz("samples/lsi-guest-queue-cap/esxtop.csv.gz", &el);
	char *pm = slurp_gz("samples/lsi-guest-queue-cap/perfmon.csv.gz", &gl);
	size_t l1, l2;
	char *p1 = lines(esx, el, 1, 120, &l1), *p2 = lines(esx, el, 100, 238, &l2);
	struct analysis whole, split;
	const char *n1[] = {"esxtop.csv", "perfmon.csv"};
	char *d1[] = {esx, pm};
	size_t s1[] = {el, gl};
	analyse_mem(&whole, n1, d1, s1, 2);
	const char *n2[] = {"esx-1.csv", "esx-2.csv", "perfmon.csv"};
	char *d2[] = {p1, p2, pm};
	size_t s2[] = {l1, l2, gl};
	analyse_mem(&split, n2, d2, s2, 3);
	ck_assert_uint_eq(split.m.ncaps, 2);
	const struct capture *c = &split.m.caps[0];
	ck_assert_uint_eq(c->nparts, 2);
	ck_assert_int_eq(c->rows, whole.m.caps[0].rows);
	ck_assert_int_eq(c->parts[1].overlap_rows, 20);
	ck_assert_int_eq(c->parts[1].overlap_line0, 2);
	ck_assert_int_eq(c->parts[1].overlap_line1, 21);
	ck_assert(!c->parts[1].gap);
	ck_assert_uint_eq(split.m.nents, whole.m.nents);
	ck_assert_uint_eq(split.nf, whole.nf);
	for (size_t i = 0; i < whole.nf; i++) {
		ck_assert_int_eq(split.f[i].kind, whole.f[i].kind);
		ck_assert_str_eq(split.f[i].entity, whole.f[i].entity);
		ck_assert(split.f[i].start == whole.f[i].start && split.f[i].end == whole.f[i].end);
		ck_assert_int_eq(split.f[i].ev[0].samples, whole.f[i].ev[0].samples);
	}
	analysis_free(&whole);
	analysis_free(&split);
	/* a gap between the files: marked, the episode's windows close at it */
	free(p2);
	p2 = lines(esx, el, 180, 238, &l2);
	char *d3[] = {p1, p2, pm};
	size_t s3[] = {l1, l2, gl};
	analyse_mem(&split, n2, d3, s3, 3);
	c = &split.m.caps[0];
	ck_assert_uint_eq(c->nparts, 2);
	ck_assert(c->parts[1].gap);
	ck_assert_int_eq(c->parts[1].overlap_rows, 0);
	ck_assert_int_gt(c->parts[1].gap_ms, 5 * 60 * 1000);
	ck_assert_int_eq(c->rows, 119 + 58);
	analysis_free(&split);
	free(p1);
	free(p2);
	free(esx);
	free(pm);
}
END_TEST

/* Two files of one host at the same time with different entities stay two captures. */
START_TEST(merge_needs_shared_entities)
{
	static const char a[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\esx01\\Physical Disk SCSI Device(naa.600b)\\Commands/sec\"\n"
				"\"07/27/2026 13:10:00\",\"10\"\n\"07/27/2026 13:10:05\",\"11\"\n";
	static const char b[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\esx01\\Physical Disk SCSI Device(naa.600c)\\Commands/sec\"\n"
				"\"07/27/2026 13:10:00\",\"20\"\n\"07/27/2026 13:10:05\",\"21\"\n";
	struct common_opts co;
	quiet(&co);
	struct model m;
	model_init(&m);
	ck_assert_int_eq(model_add_capture_mem(&m, "a.csv", a, sizeof a - 1, &co), 0);
	ck_assert_int_eq(model_add_capture_mem(&m, "b.csv", b, sizeof b - 1, &co), 0);
	ck_assert_uint_eq(m.ncaps, 2);
	/* the same file twice: one capture, the second's rows all skipped */
	ck_assert_int_eq(model_add_capture_mem(&m, "b-again.csv", b, sizeof b - 1, &co), 0);
	ck_assert_uint_eq(m.ncaps, 2);
	ck_assert_uint_eq(m.caps[1].nparts, 2);
	ck_assert_int_eq(m.caps[1].parts[1].overlap_rows, 2);
	ck_assert_int_eq(m.caps[1].rows, 2);
	model_free(&m);
}
END_TEST

/* ---- SQL Server ---- */

START_TEST(sql_map_lines)
{
	char tmpl[] = "/tmp/iopsy-flow-XXXXXX";
	int fd = mkstemp(tmpl);
	ck_assert_int_ge(fd, 0);
	const char *text = "SQL01\\D: = SQL01:scsi0:1\n"
			   "database ETLDB log = SQL01\\E:\n"
			   "DATABASE MSSQL$PROD:Sales data = E:\\SQLDATA\n"
			   "database ETLDB journal = E:\n"
			   "database log = E:\n";
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	struct diskmap dm;
	struct tdiag td;
	ck_assert_int_eq(diskmap_read(&dm, tmpl, tdiag_init(&td, tmpl)), ERR_FORMAT);
	ck_assert_uint_eq(dm.n, 1);
	ck_assert_uint_eq(dm.ndb, 2);
	ck_assert(!dm.db[0].instance && strcmp(dm.db[0].db, "ETLDB") == 0 && !dm.db[0].data);
	ck_assert_str_eq(dm.db[0].guest_host, "SQL01");
	ck_assert_str_eq(dm.db[0].guest_disk, "E:");
	ck_assert_str_eq(dm.db[1].instance, "MSSQL$PROD");
	ck_assert(dm.db[1].data && !dm.db[1].guest_host);
	ck_assert_str_eq(dm.db[1].guest_disk, "E:\\SQLDATA");
	ck_assert_ptr_nonnull(strstr(td.msgs.data, ":4:16: error: expected 'database"));
	ck_assert_ptr_nonnull(strstr(td.msgs.data, ":5:10: error: expected 'database"));
	diskmap_free(&dm);
	tdiag_free(&td);
	unlink(tmpl);
}
END_TEST

/* The simulator's named instance: the log placed on E: by evidence (Log Bytes Flushed/sec follows
 * its writes), tempdb's not mapped, the data on D:; the log disk's slow writes explain the log
 * waits; a --map line overrides the evidence (and is said to disagree with it). */
START_TEST(sql_places)
{
	char *g = path_of("tests/inputs/analyze/sql-storage-named/perfmon.csv.gz");
	struct common_opts co;
	quiet(&co);
	for (int with_map = 0; with_map < 2; with_map++) {
		struct analysis a;
		analysis_init(&a);
		if (with_map) {
			struct diskmap dm;
			memset(&dm, 0, sizeof dm);
			arena_init(&dm.arena);
			struct dbmap_line l = {.instance = "MSSQL$PROD", .db = "ETLDB", .guest_disk = "F:", .line = 3};
			dm.db = &l;
			dm.ndb = 1;
			analysis_use_diskmap(&a, &dm, "x.map");
			arena_free(&dm.arena);
		}
		ck_assert_int_eq(model_add_capture(&a.m, g, &co), 0);
		struct analyze_opts ao;
		memset(&ao, 0, sizeof ao);
		analysis_run(&a, &ao);
		ck_assert_uint_eq(a.sql->n, 1);
		const struct sql_instance *si = &a.sql->in[0];
		ck_assert_str_eq(si->name, "MSSQL$PROD");
		ck_assert_str_eq(si->label, "named instance PROD");
		const struct sql_place *etl = NULL, *temp = NULL, *data = NULL;
		for (size_t i = 0; i < si->nplace; i++) {
			const struct sql_place *p = &si->place[i];
			if (p->role == SQLR_DATA)
				data = p;
			else if (strcmp(p->db, "ETLDB") == 0)
				etl = p;
			else if (strcmp(p->db, "tempdb") == 0)
				temp = p;
		}
		ck_assert(etl && temp && data);
		ck_assert_ptr_null(temp->disk);
		ck_assert_str_eq(data->disk->name, "D:");
		if (!with_map) {
			ck_assert_int_eq(etl->how, SQLH_EVIDENCE);
			ck_assert_str_eq(etl->disk->name, "E:");
			ck_assert(etl->r > 0.99 && fabs(etl->share - 1) < 0.01);
			ck_assert_uint_ge(si->nep, 1);
			ck_assert_int_eq(si->ep[0].explains, 1);
			ck_assert(si->ep[0].during.log_write_ms > 20 && si->ep[0].during.disk_ms > 20);
			ck_assert_uint_eq(si->nsym, 0);
		} else {
			ck_assert_int_eq(etl->how, SQLH_MAP);
			ck_assert_str_eq(etl->disk->name, "F:");
			ck_assert_ptr_nonnull(strstr(etl->text, "but its Log Bytes Flushed/sec follows E:'s write bytes"));
			/* with the log taken to be on a fast disk, the waits have no storage cause */
			ck_assert_uint_eq(si->nsym, 1);
		}
		analysis_free(&a);
	}
	free(g);
}
END_TEST

/* ---- the batch manifest's per-set keys ---- */

START_TEST(manifest_set_options)
{
	char dir[] = "/tmp/iopsy-flow-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char p[256];
	snprintf(p, sizeof p, "%s/x.csv", dir);
	FILE *fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\esx01\\Physical Disk SCSI Device(naa.1)\\Commands/sec\"\n\"07/27/2026 13:10:00\",\"1\"\n", fp);
	fclose(fp);
	snprintf(p, sizeof p, "%s/manifest.ini", dir);
	fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("[set a]\n"
	      "files = x.csv\n"
	      "rules = site.rules\n"
	      "tz = +09:00\n"
	      "array-queue-depth = 64\n"
	      "clock-offset = -2.5\n"
	      "from = 13:00\n"
	      "after-to = 2026-07-28T15:00:00Z\n"
	      "vm = SQL 01|SQL02\n"
	      "disk = D:\n"
	      "disk = naa\\.600a\n"
	      "[set b]\n"
	      "files = x.csv\n"
	      "  colour = blue\n"
	      "tz = Mars\n"
	      "array-queue-depth = many\n"
	      "from = 1pm\n"
	      "host = (esx\n"
	      "[set c]\n"
	      "files = x.csv\n"
	      "tz = Europe/Berlin\n",
	      fp);
	fclose(fp);
	struct batch b;
	struct buf err;
	buf_init(&err);
	struct diag d;
	diag_init(&d, NULL, -1);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &err};
	ck_assert_int_eq(batch_discover(&b, p, &d), ERR_FORMAT);
	ck_assert_uint_eq(b.nsets, 3);
	const struct bset_opts *o = &b.sets[0].opts;
	/* an IANA zone, DST and all (the reports' local time and perfmon files without a bias) */
	ck_assert(b.sets[2].opts.tz_given && b.sets[2].opts.tz && !b.sets[2].opts.tz->fixed);
	ck_assert_int_eq(tz_offset_at(b.sets[2].opts.tz, 1785157200, NULL), 7200); /* 2026-07-27 13:00Z: CEST */
	ck_assert_ptr_nonnull(strstr(o->rules, "/site.rules"));
	ck_assert(o->tz_given && o->tz_bias_min == -540);
	ck_assert_int_eq(o->av[0].ao.array_queue_depth, 64);
	ck_assert(o->av[0].ao.clock_offset_given && o->av[0].ao.clock_offset_s == -2.5);
	ck_assert_str_eq(o->av[0].win[0].text, "13:00");
	ck_assert_str_eq(o->av[2].win[1].text, "2026-07-28T15:00:00Z");
	ck_assert(o->av[2].win[1].set && !o->av[2].win[0].set && o->av[2].own);
	ck_assert_uint_eq(o->nfilter[EF_VM], 1);
	ck_assert_str_eq(o->filter[EF_VM][0], "SQL 01|SQL02");
	ck_assert_uint_eq(o->nfilter[EF_DISK], 2);
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.ini:14:3: error: unknown key 'colour'"));
	/* set b fails with its first wrong line; set a has one side's window without sides (it would
	 * run without it) and fails too; set c runs */
	ck_assert_ptr_nonnull(b.sets[0].discovery_error);
	ck_assert_ptr_nonnull(strstr(b.sets[0].discovery_error, "are for a comparison"));
	ck_assert_ptr_nonnull(b.sets[1].discovery_error);
	ck_assert_ptr_nonnull(strstr(b.sets[1].discovery_error, "'colour'"));
	ck_assert_ptr_null(b.sets[2].discovery_error);
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.ini:15:6: error: tz = 'Mars'"));
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.ini:16:21: error: array-queue-depth = 'many'"));
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.ini:17:8: error: from = '1pm'"));
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.ini:18:8: error: host = '(esx': regex error"));
	batch_free(&b);
	buf_free(&err);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

/* The one loader of an analysis's inputs (anopts.h), as analyze, each side of compare and a batch
 * set use it. */
static char *src_file(char *p, size_t n, const char *rel)
{
	const char *top = getenv("IOPSY_SRCDIR");
	snprintf(p, n, "%s/%s", top ? top : ".", rel);
	return p;
}

struct load_seen {
	int done[4];               /* rc + 1000 per capture, 0 when not told */
};

static bool load_not_third(void *ctx, size_t i)
{
	(void)ctx;
	return i != 2;
}

static void load_done(void *ctx, size_t i, int rc)
{
	((struct load_seen *)ctx)->done[i] = rc + 1000;
}

START_TEST(loader)
{
	struct analysis a;
	analysis_init(&a);
	struct buf msgs;
	buf_init(&msgs);
	struct an_load how = {.sink = {.fn = diag_sink_buf, .ctx = &msgs}, .prefix = "iopsy test", .max_warnings = 20};
	char p[1024], q[1024], r[1024];
	/* a map's good lines are used, its bad ones are errors at file:line:col */
	ck_assert_int_lt(analysis_load_input(&a, AN_IN_MAP, src_file(p, sizeof p, "tests/inputs/analyze/mount-points-bad.map"), &how), 0);
	ck_assert_uint_eq(a.nmap, 1);
	ck_assert_ptr_nonnull(strstr(msgs.data, "iopsy test: "));
	ck_assert_ptr_nonnull(strstr(msgs.data, "mount-points-bad.map:2:7: error: 'SQL01\\SQLDATA' is not a guest disk"));
	/* an unreadable vmkernel.log leaves none; the next one is read, a third merged with it */
	ck_assert_int_eq(analysis_load_input(&a, AN_IN_VMKLOG, "/nonexistent/vmkernel.log", &how), ERR_IO);
	ck_assert(!a.have_vmk);
	ck_assert_int_eq(analysis_load_input(&a, AN_IN_VMKLOG, src_file(p, sizeof p, "samples/adaptive-queue-depth/vmkernel.log"), &how), 0);
	ck_assert(a.have_vmk);
	size_t nev = a.vmk.n;
	ck_assert_uint_gt(nev, 0);
	ck_assert_int_eq(analysis_load_input(&a, AN_IN_VMKLOG, p, &how), 0);
	ck_assert_uint_eq(a.vmk.n, 2 * nev);
	/* the first readable partitions file counts */
	struct an_values v;
	memset(&v, 0, sizeof v);
	v.partitions = src_file(q, sizeof q, "samples/misaligned-partition/partitions.txt");
	ck_assert_int_eq(analysis_load_side_files(&a, &v, &how), 0);
	ck_assert(a.have_parts);
	size_t nparts = a.parts.n;
	ck_assert_int_eq(analysis_load_input(&a, AN_IN_PARTITIONS, src_file(r, sizeof r, "tests/inputs/analyze/partitions-collapsed.txt"), &how), 0);
	ck_assert_uint_eq(a.parts.n, nparts);
	/* captures: the caller's hooks decide what is read and hear what each gave */
	char c0[1024], c1[] = "/nonexistent/perfmon.csv", c2[1024];
	char *caps[3] = {src_file(c0, sizeof c0, "samples/healthy/esxtop.csv.gz"), c1,
			 src_file(c2, sizeof c2, "samples/healthy/perfmon.csv.gz")};
	struct load_seen seen = {{0}};
	struct common_opts co;
	common_opts_init(&co);
	co.sink = how.sink;
	struct an_capture_hooks h = {.may_read = load_not_third, .done = load_done, .ctx = &seen};
	ck_assert_uint_eq(analysis_load_captures(&a, caps, 3, &co, &h), 1);
	ck_assert_int_eq(seen.done[0], 1000);
	ck_assert_int_lt(seen.done[1], 1000);
	ck_assert_int_gt(seen.done[1], 0);
	ck_assert_int_eq(seen.done[2], 0);
	buf_free(&msgs);
	analysis_free(&a);
}
END_TEST

Suite *flow_suite(void)
{
	Suite *s = suite_create("flow");
	TCase *t = tcase_create("flow");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, window_parse);
	tcase_add_test(t, window_dst);
	tcase_add_test(t, window_analysis);
	tcase_add_test(t, filter_vm_devices);
	tcase_add_test(t, filter_errors);
	tcase_add_test(t, merge_split);
	tcase_add_test(t, merge_needs_shared_entities);
	tcase_add_test(t, sql_map_lines);
	tcase_add_test(t, sql_places);
	tcase_add_test(t, manifest_set_options);
	tcase_add_test(t, loader);
	suite_add_tcase(s, t);
	return s;
}
