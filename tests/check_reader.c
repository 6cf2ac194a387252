/* check_reader.c — the reader interface (parser.h) with a format that is not PDH-framed: a tiny
 * table in memory ("memtable"), registered for the test with parser_register. Its open reads the
 * table from a struct, not from the bytes of the source; its classify knows its own column names.
 * A capture read through it goes through model_add_capture_mem and the analysis like any other,
 * without the PDH reader: the engine reads only through reader_*. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "input.h"
#include "parser.h"
#include "suites.h"
#include "match.h"
#include "view.h"
#include "viewdata.h"

#include <unistd.h>
#include <zlib.h>

/* ---- the format: one host, columns "object(instance)\counter", values from a function ---- */

struct mt_col {
	const char *object, *instance, *counter;
};

struct mt_table {
	const char *host;
	const struct mt_col *cols;
	size_t ncols;
	long nrows;
	int64_t t0_ms;
	int64_t step_ms;
	double (*value)(long row, size_t col);
	long missing_row;        /* a row whose cells are all missing (-1: none) */
};

/* The table the next open reads (the test sets it; the source's bytes are not read). */
static const struct mt_table *mt_next_table;

struct mt_reader {
	struct reader base;      /* first (parser.h) */
	const struct mt_table *t;
	struct pdh_column *cols;
	bool *want;
	long row;                /* the current row, -1 before the first */
	struct pdh_stats st;
	struct pdh_options o;
	char *text;              /* a cell as text (reader_text), 32 bytes */
};

static const struct parser_ops parser_memtable;

#define MR(r) ((struct mt_reader *)(r))
#define CMR(r) ((const struct mt_reader *)(r))

static int mt_open(struct reader **out, struct source *src, const struct pdh_options *o, struct diag *d)
{
	(void)src;
	*out = NULL;
	if (!mt_next_table) {
		diag_emit(d, DIAG_ERROR, 0, 0, "memtable: no table");
		return ERR_FORMAT;
	}
	struct mt_reader *r = calloc(1, sizeof *r);
	ck_assert_ptr_nonnull(r);
	r->base.ops = &parser_memtable;
	r->t = mt_next_table;
	r->o = *o;
	r->row = -1;
	r->cols = calloc(r->t->ncols + 1, sizeof *r->cols);
	r->want = calloc(r->t->ncols + 1, sizeof *r->want);
	r->text = calloc(32, 1);
	for (size_t i = 0; i < r->t->ncols; i++) {
		const struct mt_col *c = &r->t->cols[i];
		r->cols[i].name = c->counter;
		r->cols[i].name_len = strlen(c->counter);
		r->cols[i].path = (struct pdh_path){.host = r->t->host, .object = c->object, .instance = c->instance,
						    .counter = c->counter, .ok = true};
		r->cols[i].field = (long)i + 2;
		r->want[i] = true;
	}
	*out = &r->base;
	return 0;
}

static size_t mt_ncols(const struct reader *r) { return CMR(r)->t->ncols; }
static const struct pdh_column *mt_column(const struct reader *r, size_t i) { return &CMR(r)->cols[i]; }

static void mt_facts(const struct reader *r, struct reader_facts *f)
{
	(void)r;
	memset(f, 0, sizeof *f);
	f->hi.bias_known = true;
	snprintf(f->hi.zone, sizeof f->hi.zone, "UTC");
	f->header_line = 1;
}

static void mt_select(struct reader *r, const bool *want)
{
	for (size_t i = 0; i < MR(r)->t->ncols; i++)
		MR(r)->want[i] = want ? want[i] : true;
}

static int mt_next(struct reader *rd, struct pdh_row *row)
{
	struct mt_reader *r = MR(rd);
	for (;;) {
		if (r->row + 1 >= r->t->nrows)
			return 0;
		r->row++;
		int64_t t = r->t->t0_ms + r->row * r->t->step_ms;
		r->st.rows++;
		if (!r->st.have_t || t < r->st.t_min)
			r->st.t_min = t;
		if (!r->st.have_t || t > r->st.t_max)
			r->st.t_max = t;
		r->st.have_t = true;
		if (r->o.win_on && (t < r->o.win_from || t > r->o.win_to)) {
			r->st.outside++;
			continue;
		}
		*row = (struct pdh_row){.t_ms = t, .local_ms = t, .line = r->row + 2};
		return 1;
	}
}

static bool mt_cell(const struct mt_reader *r, size_t i, double *v)
{
	if (!r->want[i] || r->row == r->t->missing_row)
		return false;
	*v = r->t->value(r->row, i);
	return true;
}

static bool mt_value(struct reader *r, size_t i, double *v) { return mt_cell(MR(r), i, v); }

static const char *mt_text(const struct reader *rd, size_t i, size_t *len)
{
	const struct mt_reader *r = CMR(rd);
	double v;
	if (!mt_cell(r, i, &v)) {
		*len = 0;
		return "";
	}
	int n = snprintf(r->text, 32, "%.2f", v);
	*len = (size_t)n;
	return r->text;
}

static const struct pdh_stats *mt_stats(const struct reader *r) { return &CMR(r)->st; }

static void mt_close(struct reader *rd)
{
	struct mt_reader *r = MR(rd);
	free(r->cols);
	free(r->want);
	free(r->text);
	free(r);
}

/* dev(naa.X)\davg etc.: a host disk's latency and rates, in the table's own words */
static const struct counter_map mt_dev_counters[] = {
	{"davg", M_DAVG, 1},     {"cmds", M_CMDS, 1}, {"reads", M_READS, 1},
	{"writes", M_WRITES, 1}, {"mbr", M_MBR, 1},   {"mbw", M_MBW, 1},
	{NULL, 0, 0},
};

static int mt_classify(const struct pdh_path *p, struct counter_class *c)
{
	class_init(c);
	if (!p->ok || !p->object || !p->instance || strcmp(p->object, "dev") != 0)
		return -1;
	double scale;
	int m = counter_lookup(mt_dev_counters, p->counter, false, &scale);
	if (m < 0)
		return -1;
	c->layer = LAYER_DEVICE;
	c->metric = m;
	c->scale = scale;
	class_copy(c->entity, sizeof c->entity, p->instance, strlen(p->instance));
	return m;
}

static int mt_probe(const char *head, size_t len)
{
	(void)head;
	(void)len;
	return 0;
}

static const struct parser_ops parser_memtable = {
	.name = "memtable",
	.summary = "a table in memory (tests/check_reader.c)",
	.role = ROLE_HOST,
	.probe = mt_probe,
	.classify = mt_classify,
	.open = mt_open,
	.ncols = mt_ncols,
	.column = mt_column,
	.facts = mt_facts,
	.select = mt_select,
	.next = mt_next,
	.value = mt_value,
	.text = mt_text,
	.stats = mt_stats,
	.close = mt_close,
};

/* ---- the capture: one device, 300 rows 2 s apart, DAVG 25 ms for rows 60..239 (6 min) ---- */

static const struct mt_col dev_cols[] = {
	{"dev", "naa.6000", "cmds"}, {"dev", "naa.6000", "reads"}, {"dev", "naa.6000", "writes"},
	{"dev", "naa.6000", "mbr"},  {"dev", "naa.6000", "mbw"},   {"dev", "naa.6000", "davg"},
	{"other", "x", "ignored"},
};

static double dev_value(long row, size_t col)
{
	switch (col) {
	case 0:
	case 1:
		return 400;  /* commands/s, all reads */
	case 3:
		return 25;   /* MB/s: 64 KiB per command */
	case 5:
		return row >= 60 && row < 240 ? 25 : 1;
	default:
		return 0;
	}
}

static double calm_value(long row, size_t col) { return col == 5 ? 1 : dev_value(row, col); }

#define T0 1785157200000LL /* 2026-07-27 13:00:00 UTC */

static const struct mt_table dev_table = {
	.host = "esx01",
	.cols = dev_cols,
	.ncols = sizeof dev_cols / sizeof dev_cols[0],
	.nrows = 300,
	.t0_ms = T0,
	.step_ms = 2000,
	.value = dev_value,
	.missing_row = 10,
};

static struct common_opts memtable_opts(void)
{
	ck_assert_int_eq(parser_register(&parser_memtable), 0);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.format = "memtable";
	return co;
}

/* The interface itself: open, columns, facts, select, rows, values, text, stats, close. */
START_TEST(reader_through_ops)
{
	struct common_opts co = memtable_opts();
	ck_assert_ptr_eq(parser_find("memtable"), &parser_memtable);
	ck_assert_ptr_null(strstr(parser_names(), "memtable")); /* not in the table --help lists */
	mt_next_table = &dev_table;
	struct input in;
	ck_assert_int_eq(input_open_mem(&in, "mem", "x", 1, &co), 0);
	ck_assert_ptr_eq(reader_format(in.r), &parser_memtable);
	ck_assert_uint_eq(reader_ncols(in.r), 7);
	ck_assert_str_eq(reader_column(in.r, 5)->path.counter, "davg");
	struct reader_facts f;
	reader_facts(in.r, &f);
	ck_assert(f.hi.bias_known && f.header_line == 1 && !f.tsv);
	bool want[7] = {[5] = true};
	reader_select(in.r, want);
	struct pdh_row row;
	long n = 0;
	double v, sum = 0;
	while (reader_next(in.r, &row) == 1) {
		ck_assert_int_eq(row.t_ms, T0 + n * 2000);
		ck_assert(!reader_value(in.r, 0, &v)); /* not selected */
		if (reader_value(in.r, 5, &v))
			sum += v;
		if (n == 100) {
			size_t len;
			ck_assert_str_eq(reader_text(in.r, 5, &len), "25.00");
			ck_assert_uint_eq(len, 5);
		}
		n++;
	}
	ck_assert_int_eq(n, 300);
	ck_assert_double_eq_tol(sum, 180 * 25 + 119 * 1, 1e-9); /* row 10 is missing */
	ck_assert_int_eq(reader_stats(in.r)->rows, 300);
	ck_assert_int_eq(reader_stats(in.r)->t_max, T0 + 299 * 2000);
	input_close(&in);
}
END_TEST

/* A model and an analysis from the table, no PDH reader: the sustained DAVG is latency.device. */
START_TEST(reader_model_analysis)
{
	struct common_opts co = memtable_opts();
	mt_next_table = &dev_table;
	struct analysis a;
	analysis_init(&a);
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_set_opts(&a, &o);
	ck_assert_int_eq(model_add_capture_mem(&a.m, "mem.tbl", "x", 1, &co), 0);
	ck_assert_uint_eq(a.m.ncaps, 1);
	const struct capture *c = &a.m.caps[0];
	ck_assert_str_eq(c->format, "memtable");
	ck_assert_int_eq(c->role, ROLE_HOST);
	ck_assert_str_eq(c->host, "esx01");
	ck_assert_int_eq(c->rows, 300);
	ck_assert_int_eq(c->start, T0);
	ck_assert_int_eq(c->end, T0 + 299 * 2000);
	ck_assert_ptr_nonnull(model_find(&a.m, LAYER_DEVICE, "naa.6000", "esx01"));
	analysis_run(&a, &o);
	int n = 0;
	const struct finding *dev = NULL;
	for (size_t i = 0; i < a.nf; i++)
		if (a.f[i].kind == K_LAT_DEVICE) {
			n++;
			dev = &a.f[i];
		}
	ck_assert_int_eq(n, 1);
	ck_assert_str_eq(dev->entity, "naa.6000");
	ck_assert_str_eq(dev->host, "esx01");
	/* the episode is the high-DAVG stretch (rows 60..239), not the whole capture */
	ck_assert_int_ge(dev->start, T0 + 50 * 2000);
	ck_assert_int_le(dev->end, T0 + 250 * 2000);
	ck_assert_double_eq_tol(dev->sustained_s, 360, 4); /* 180 rows of 2 s */
	analysis_free(&a);

	/* the same table with DAVG low throughout: no finding */
	struct mt_table calm = dev_table;
	calm.value = calm_value;
	mt_next_table = &calm;
	analysis_init(&a);
	analysis_set_opts(&a, &o);
	ck_assert_int_eq(model_add_capture_mem(&a.m, "calm.tbl", "x", 1, &co), 0);
	analysis_run(&a, &o);
	for (size_t i = 0; i < a.nf; i++)
		ck_assert_int_ne(a.f[i].kind, K_LAT_DEVICE);
	analysis_free(&a);
}
END_TEST

/* Probing lives in the table (reader_open): the head of a gzip'd capture is read once through the
 * source, probed, and read again by the winner from its first byte (stdin cannot be re-read). */
START_TEST(probe_then_read_gzip)
{
	static const char esx[] = "resxtop banner\n\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\esx01\\Physical Disk SCSI "
				  "Device(naa.6000)\\Commands/sec\"\n\"07/27/2026 13:00:00\",\"5\"\n\"07/27/2026 13:00:02\",\"7\"\n";
	unsigned char gz[512], in_bytes[sizeof esx];
	memcpy(in_bytes, esx, sizeof esx);
	z_stream z = {0};
	ck_assert_int_eq(deflateInit2(&z, 6, Z_DEFLATED, 31, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = in_bytes;
	z.avail_in = sizeof esx - 1;
	z.next_out = gz;
	z.avail_out = sizeof gz;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	size_t glen = sizeof gz - z.avail_out;
	deflateEnd(&z);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	char path[] = "/tmp/iopsy-probe-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *fp = fdopen(fd, "wb");
	ck_assert_uint_eq(fwrite(gz, 1, glen, fp), glen);
	fclose(fp);
	struct input in;
	ck_assert_int_eq(input_open(&in, path, &co), 0);
	unlink(path);
	ck_assert_ptr_eq(reader_format(in.r), &parser_esxtop);
	ck_assert_uint_eq(reader_ncols(in.r), 1);
	ck_assert_str_eq(reader_column(in.r, 0)->path.host, "esx01");
	struct pdh_row row;
	double v, sum = 0;
	int n = 0;
	while (reader_next(in.r, &row) == 1 && reader_value(in.r, 0, &v)) {
		sum += v;
		n++;
	}
	ck_assert_int_eq(n, 2);
	ck_assert_double_eq(sum, 12);
	input_close(&in);
	/* the peeked head and the reads after it give the stream once, in order */
	struct diag d;
	diag_init(&d, "m", 0);
	struct source src;
	ck_assert_int_eq(source_open_mem(&src, "m", esx, sizeof esx - 1, &d), 0);
	const char *head;
	ck_assert_int_eq(source_peek(&src, 20, &head, &d), 20);
	ck_assert_int_eq(memcmp(head, esx, 20), 0);
	char all[sizeof esx];
	long k, got = 0;
	while ((k = source_read(&src, all + got, 7, &d)) > 0)
		got += k;
	ck_assert_int_eq(got, (long)sizeof esx - 1);
	ck_assert_int_eq(memcmp(all, esx, (size_t)got), 0);
	source_close(&src);
}
END_TEST

/* ---- vscsistats: a format with its own reader, through the same interface ---- */

/* The column of reader r named "vscsiStats KIND(DISK)\FIELD", or -1. */
static long vs_col(const struct reader *r, const char *kind, const char *disk, const char *field)
{
	for (size_t i = 0; i < reader_ncols(r); i++) {
		const struct pdh_path *p = &reader_column(r, i)->path;
		if (strcmp(p->object + 11, kind) == 0 && strcmp(p->instance, disk) == 0 && strcmp(p->counter, field) == 0)
			return (long)i;
	}
	return -1;
}

static double vs_at(struct reader *r, long col)
{
	double v = -1;
	ck_assert_int_ge(col, 0);
	ck_assert(reader_value(r, (size_t)col, &v));
	return v;
}

/* A real `vscsiStats -p all -c` (tests/data/README.md): probed, 16 histograms of one disk, the
 * buckets as printed, the overflow bucket and the disk's worldGroupID:scsiC:T. */
START_TEST(vscsistats_real_csv)
{
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	struct buf msgs;
	buf_init(&msgs);
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	struct input in;
	ck_assert_int_eq(input_open(&in, "tests/data/vscsistats/helper-sample.csv", &co), 0);
	ck_assert_ptr_eq(reader_format(in.r), &parser_vscsistats);
	ck_assert_uint_eq(reader_ncols(in.r), 16 * 4 + 3 * 18 + 4 * 34 + 3 * 11 + 3 * 13 + 3 * 11);
	struct pdh_row row;
	ck_assert_int_eq(reader_next(in.r, &row), 1);
	ck_assert_int_eq(row.line, 1);
	const char *disk = "2099979:scsi0:0";
	ck_assert_double_eq(vs_at(in.r, vs_col(in.r, "outstandingIOs", disk, "count")), 793);
	ck_assert_double_eq(vs_at(in.r, vs_col(in.r, "outstandingIOs", disk, "<= 32")), 8);
	ck_assert_double_eq(vs_at(in.r, vs_col(in.r, "outstandingIOs", disk, "<= 64")), 12);
	ck_assert_double_eq(vs_at(in.r, vs_col(in.r, "outstandingIOs", disk, "> 64")), 0);
	ck_assert_double_eq(vs_at(in.r, vs_col(in.r, "latencyReads", disk, "<= 50000")), 3);
	ck_assert_double_eq(vs_at(in.r, vs_col(in.r, "ioLength", disk, "<= 4096")), 608);
	ck_assert_double_eq(vs_at(in.r, vs_col(in.r, "seekDistance", disk, "<= -500000")), 134);
	ck_assert_double_eq(vs_at(in.r, vs_col(in.r, "interarrival", disk, "max")), 581013626718.0);
	ck_assert_int_eq(reader_next(in.r, &row), 0);
	ck_assert_int_eq(in.diag.warnings, 0);
	input_close(&in);
	buf_free(&msgs);
}
END_TEST

/* The text form, two disks, two snapshots, and bad histograms: each warned at its line and
 * skipped, the rest read. */
START_TEST(vscsistats_text_and_bad)
{
	static const char txt[] =
		"Histogram: latency of IOs in Microseconds (us) for virtual machine worldGroupID : 77, virtual disk "
		"handleID : 8192 (scsi0:0) {\n min : 40\n max : 900\n mean : 300\n count : 3\n   {\n"
		"      1               (<=                100) \n      2               (<=               1000) \n"
		"      0               (>                1000) \n   }\n}\n"                                  /* 1-11 */
		"Histogram: number of outstanding IOs when a new IO is issued for virtual machine worldGroupID : 77, "
		"virtual disk handleID : 8193 (scsi1:0) {\n min : 1\n max : 32\n mean : 30\n count : 10\n   {\n"
		"      1               (<=                  1) \n      9               (<=                 32) \n"
		"      0               (>                  32) \n   }\n}\n"                                  /* 12-22 */
		"Histogram: latency of IOs in Microseconds (us) for virtual machine worldGroupID : 77, virtual disk "
		"handleID : 8192 (scsi0:0) {\n min : 40\n max : 900\n mean : 300\n count : 5\n   {\n"
		"      1               (<=                100) \n      2               (<=               1000) \n"
		"      0               (>                1000) \n   }\n}\n"                                  /* 23-33: sum 3 != 5 */
		"Histogram: number of outstanding IOs when a new IO is issued for virtual machine worldGroupID : 77, "
		"virtual disk handleID : 8193 (scsi1:0) {\n min : 1\n max : 32\n mean : 30\n count : 4\n   {\n"
		"      4               (<=                  1) \n"                                           /* 34-40: truncated */
		"Histogram: colour of IOs for virtual machine worldGroupID : 77, virtual disk handleID : 8192 (scsi0:0) {\n"
		" min : 1\n}\n"                                                                              /* 41-43 */
		"Histogram: latency of IOs in Microseconds (us) for virtual machine worldGroupID : 77, virtual disk "
		"handleID : 8192 (scsi0:0) {\n min : 50\n max : 60\n mean : 55\n count : 2\n   {\n"
		"      0               (<=                100) \n      2               (<=               1000) \n"
		"      0               (>                1000) \n   }\n}\n";                                 /* 44-: 2nd snapshot */
	ck_assert_int_gt(parser_vscsistats.probe(txt, sizeof txt - 1), 90);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = -1;
	struct buf msgs;
	buf_init(&msgs);
	co.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	struct input in;
	ck_assert_int_eq(input_open_mem(&in, "v.txt", txt, sizeof txt - 1, &co), 0);
	ck_assert_ptr_eq(reader_format(in.r), &parser_vscsistats);
	ck_assert_uint_eq(reader_ncols(in.r), 2 * 4 + 3 + 3);
	ck_assert_msg(msgs.data && strstr(msgs.data, "v.txt:23: warning: vscsiStats latency histogram of 77:scsi0:0 skipped: "
							   "its bucket counts do not add up"), "got %s", msgs.data);
	ck_assert(strstr(msgs.data, "v.txt:34: warning: vscsiStats outstandingIOs histogram of 77:scsi1:0 skipped: truncated"));
	ck_assert(strstr(msgs.data, "v.txt:41: warning: a vscsiStats histogram of a kind this tool does not know"));
	struct pdh_row row;
	long lat = vs_col(in.r, "latency", "77:scsi0:0", "<= 1000"), oio = vs_col(in.r, "outstandingIOs", "77:scsi1:0", "<= 32");
	ck_assert_int_eq(reader_next(in.r, &row), 1);
	ck_assert_double_eq(vs_at(in.r, lat), 2);
	ck_assert_double_eq(vs_at(in.r, oio), 9);
	ck_assert_int_ge(vs_col(in.r, "outstandingIOs", "77:scsi1:0", "> 32"), 0);
	ck_assert_int_eq(reader_next(in.r, &row), 1); /* the 2nd snapshot: latency only */
	ck_assert_int_eq(row.line, 44);
	ck_assert_double_eq(vs_at(in.r, vs_col(in.r, "latency", "77:scsi0:0", "min")), 50);
	double v;
	ck_assert(!reader_value(in.r, (size_t)oio, &v));
	ck_assert_int_eq(reader_next(in.r, &row), 0);
	input_close(&in);
	buf_free(&msgs);
}
END_TEST

/* The analysis says what a vscsiStats capture shows per virtual disk (src/engine/vhist.c), and what
 * a histogram cannot show; the real file: 12 of 793 IOs issued with more than 32 in flight. */
START_TEST(vscsistats_evidence)
{
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	struct analysis a;
	analysis_init(&a);
	struct analyze_opts o;
	memset(&o, 0, sizeof o);
	analysis_set_opts(&a, &o);
	ck_assert_int_eq(model_add_capture(&a.m, "tests/data/vscsistats/helper-sample.csv", &co), 0);
	analysis_run(&a, &o);
	const char *t = NULL;
	for (size_t i = 0; i < a.ninputs; i++)
		if (strcmp(a.inputs[i].option, "vscsiStats") == 0)
			t = a.inputs[i].text;
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(strstr(t, "virtual disk 2099979:scsi0:0") && strstr(t, "1.5% with more than 32") &&
			      strstr(t, "not capped at the LSI limit") && strstr(t, "above 50 ms 0.1%") &&
			      strstr(t, "84.4% of 793 IOs 4 KiB or less") && strstr(t, "no time axis"),
		      "got %s", t);
	analysis_free(&a);
}
END_TEST

/* iopsy view's data and page: a 2 s stall in 300 rows survives the min/max downsampling into 64
 * buckets, and a hostile name reaches the page only inside the JSON, with '<' as \u003c. */
START_TEST(view_page_downsampled_and_inert)
{
	struct buf csv;
	buf_init(&csv);
	buf_adds(&csv, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\LogicalDisk(D:</script><img src=x onerror=alert(1)>&)"
		       "\\Avg. Disk sec/Read\",\"\\\\h\\LogicalDisk(E:)\\Avg. Disk sec/Read\"\n");
	for (int r = 0; r < 300; r++)
		buf_printf(&csv, "\"07/27/2026 13:%02d:%02d\",\"%s\",\"0.001\"\n", r / 60, r % 60,
			   r == 150 || r == 151 ? "4.0" : "0.002");
	struct common_opts co;
	common_opts_init(&co);
	struct input in;
	ck_assert_int_eq(input_open_mem(&in, "mem.csv", csv.data, csv.len, &co), 0);
	struct diag d;
	diag_init(&d, "test", 0);
	struct matcher *m = matcher_new("LogicalDisk", true, &d);
	struct view_data v;
	view_init(&v, 2 * 64 * 2);
	ck_assert_int_eq(view_add_capture(&v, &in, "mem.csv", m, &d), 2);
	view_plan(&v, &in);
	ck_assert_uint_eq(v.buckets, 64);
	ck_assert_int_eq(view_read(&v, 0, &in), 0);
	ck_assert_int_eq(v.caps[0].rows, 300);
	ck_assert(v.caps[0].nb <= 64 && v.caps[0].w == 8);
	double mx = 0, mn = 1e9;
	for (size_t k = 0; k < v.caps[0].nb; k++) {
		mx = fmax(mx, v.s[0].hi[k]);
		mn = fmin(mn, v.s[0].lo[k]);
	}
	ck_assert_double_eq_tol(mx, 4000, 1e-9); /* perfmon seconds as ms, the stall's peak kept */
	ck_assert_double_eq_tol(mn, 2, 1e-9);
	ck_assert_str_eq(v.s[0].unit, "ms");
	view_add_finding(&v, 1785157200000, 1785157260000, "critical", "lat.guest", "slow <b>D:</b>", "D:");
	struct buf page;
	buf_init(&page);
	view_page(&v, NULL, &page);
	ck_assert_ptr_null(strstr(page.data, "<img"));
	ck_assert_ptr_null(strstr(page.data, "<b>"));
	ck_assert_ptr_nonnull(strstr(page.data, "D:\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e\\u0026"));
	ck_assert_ptr_nonnull(strstr(page.data, "content=\"default-src 'none'; script-src 'sha256-"));
	int scripts = 0;
	for (const char *q = strstr(page.data, "<script"); q; q = strstr(q + 1, "<script"))
		scripts++;
	ck_assert_int_eq(scripts, 3); /* the data element, uPlot, the page's script */
	buf_free(&page);
	view_free(&v);
	matcher_free(m);
	input_close(&in);
	buf_free(&csv);
}
END_TEST

Suite *reader_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("memtable");
	tcase_add_test(tc, reader_through_ops);
	tcase_add_test(tc, reader_model_analysis);
	tcase_add_test(tc, probe_then_read_gzip);
	tcase_add_test(tc, vscsistats_real_csv);
	tcase_add_test(tc, vscsistats_text_and_bad);
	tcase_add_test(tc, vscsistats_evidence);
	suite_add_tcase(s, tc);
	TCase *tv = tcase_create("view");
	tcase_add_test(tv, view_page_downsampled_and_inert);
	suite_add_tcase(s, tv);
	return s;
}
