/* check_pdh.c — the PDH-CSV reader and its esxtop/perfmon modules, one test per real-world quirk,
 * from memory buffers, plus the real public perfmon files in tests/data/perfmon. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "fieldscan.h"
#include "guestdisk.h"
#include "maps.h"
#include "mtread.h"
#include "pdh.h"
#include "source.h"
#include "suites.h"

/* A parsed capture held entirely in memory for assertions. */
struct cap {
	struct source src;
	struct diag d;
	struct buf msgs;
	struct pdh_reader *r;
	int open_rc;
	size_t nrows;
	int64_t t[64];
	bool disc[64];
	long line[64];
	double v[64][8];
};

static void cap_parse(struct cap *c, const char *text, size_t len, const struct pdh_options *o)
{
	memset(c, 0, sizeof *c);
	buf_init(&c->msgs);
	diag_init(&c->d, "t.csv", -1);
	c->d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &c->msgs};
	source_open_mem(&c->src, "t.csv", text, len, &c->d);
	struct pdh_options def = {.max_warnings = -1};
	c->open_rc = pdh_open(&c->r, &c->src, o ? o : &def, &c->d);
	if (c->open_rc < 0)
		return;
	struct pdh_row row;
	size_t nc = pdh_ncols(c->r);
	while (pdh_next(c->r, &row) == 1 && c->nrows < 64) {
		c->t[c->nrows] = row.t_ms;
		c->disc[c->nrows] = row.discontinuity;
		c->line[c->nrows] = row.line;
		for (size_t i = 0; i < nc && i < 8; i++)
			if (!pdh_value(c->r, i, &c->v[c->nrows][i]))
				c->v[c->nrows][i] = NAN;
		c->nrows++;
	}
}

static void cap_free(struct cap *c)
{
	pdh_close(c->r);
	source_close(&c->src);
	buf_free(&c->msgs);
}

static int64_t utc(int y, int mo, int d, int h, int mi, int s)
{
	return (days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s) * 1000;
}

#define S(x) x, sizeof(x) - 1

static const char esx_default[] =
	"\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\esx01\\Physical Disk SCSI Device(naa.600a)\\Average Driver MilliSec/Command\","
	"\"\\\\esx01\\Physical Disk SCSI Device(naa.600a)\\Active Commands\",\n"
	"\"07/27/2026 13:10:00\",\"1.50\",\"12\",\n"
	"\"07/27/2026 13:10:05\",\"2.25\",\"\",\n"
	"\"07/27/2026 13:10:09\",\"n/a\",\"30\",\n";

START_TEST(esxtop_default_trailing_comma)
{
	struct cap c;
	cap_parse(&c, S(esx_default), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_str_eq(pdh_parser(c.r)->name, "esxtop");
	ck_assert_uint_eq(pdh_ncols(c.r), 2); /* the trailing empty field is not a column */
	ck_assert_uint_eq(c.nrows, 3);
	ck_assert(c.t[0] == utc(2026, 7, 27, 13, 10, 0));
	ck_assert(c.t[2] == utc(2026, 7, 27, 13, 10, 9));
	ck_assert(c.v[0][0] == 1.5 && c.v[0][1] == 12);
	ck_assert(isnan(c.v[1][1]));           /* empty cell = missing, never 0 */
	ck_assert(isnan(c.v[2][0]));           /* non-numeric = missing ... */
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "t.csv:4:2: warning: non-numeric value \"n/a\"")); /* ... warned */
	const struct pdh_column *col = pdh_column(c.r, 0);
	ck_assert_str_eq(col->path.host, "esx01");
	ck_assert_str_eq(col->path.object, "Physical Disk SCSI Device");
	ck_assert_str_eq(col->path.instance, "naa.600a");
	ck_assert_str_eq(col->path.counter, "Average Driver MilliSec/Command");
	cap_free(&c);
}
END_TEST

START_TEST(esxtop_all_counters_no_trailing)
{
	static const char t[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Physical Disk(vmhba2)\\Adapter Q Depth\","
				"\"\\\\h\\Physical Disk(vmhba2)\\Split Commands/sec\"\n"
				"\"07/27/2026 13:10:00\",\"1024\",\"0.00\"\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_uint_eq(pdh_ncols(c.r), 2);
	ck_assert_uint_eq(c.nrows, 1);
	ck_assert(c.v[0][0] == 1024 && c.v[0][1] == 0);
	cap_free(&c);
}
END_TEST

START_TEST(esxtop_glued_pcpu_power_state)
{
	static const char t[] =
		"\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\localhost.home\\PCPU Power State(PCPU 0)\\%P-State P7\",   -"
		"\"\\\\localhost.home\\PCPU Power State(PCPU 1)\\%C-State C0\",\"\\\\localhost.home\\Memory\\Free MBytes\"\n"
		"\"03/14/2014 16:22:52\",\"0.00\",    73.1\"8.93\",\"1000\"\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_uint_eq(pdh_ncols(c.r), 4);
	ck_assert_str_eq(pdh_column(c.r, 2)->path.counter, "%C-State C0");
	ck_assert_str_eq(pdh_column(c.r, 2)->path.instance, "PCPU 1");
	ck_assert_uint_eq(c.nrows, 1);
	ck_assert(c.v[0][0] == 0 && c.v[0][1] == 73.1 && c.v[0][2] == 8.93 && c.v[0][3] == 1000);
	cap_free(&c);
}
END_TEST

START_TEST(path_split)
{
	struct arena a;
	arena_init(&a);
	struct pdh_path p;
	static const char v[] = "\\\\esx01.lab\\Virtual Disk(SQL01 (104c07ff-3663-44fb-9d89-a563c801611c):scsi0:1)\\Average MilliSec/Read";
	pdh_split_path(S(v), &p, &a);
	ck_assert(p.ok);
	ck_assert_str_eq(p.host, "esx01.lab");
	ck_assert_str_eq(p.object, "Virtual Disk");
	ck_assert_str_eq(p.instance, "SQL01 (104c07ff-3663-44fb-9d89-a563c801611c):scsi0:1");
	ck_assert_str_eq(p.counter, "Average MilliSec/Read");
	static const char m[] = "\\\\h\\Memory\\Memory Overcommit (1 Minute Avg)";
	pdh_split_path(S(m), &p, &a);
	ck_assert(p.ok);
	ck_assert_str_eq(p.object, "Memory");
	ck_assert_ptr_null(p.instance);
	ck_assert_str_eq(p.counter, "Memory Overcommit (1 Minute Avg)");
	static const char d[] = "\\\\h\\Group Cpu(1234:SQL01)\\%  Ready  (x)";
	pdh_split_path(S(d), &p, &a);
	ck_assert_str_eq(p.counter, "%  Ready  (x)"); /* double spaces kept */
	ck_assert_str_eq(p.instance, "1234:SQL01");
	static const char w[] = "\\\\SQL01\\Process(C:\\tools\\x[1])\\% Processor Time";
	pdh_split_path(S(w), &p, &a);
	ck_assert_str_eq(p.instance, "C:\\tools\\x[1]"); /* perfmon instance with '\' */
	ck_assert_str_eq(p.counter, "% Processor Time");
	static const char bad[] = "Description of the set";
	pdh_split_path(S(bad), &p, &a);
	ck_assert(!p.ok);
	ck_assert_str_eq(p.counter, "Description of the set");
	arena_free(&a);
}
END_TEST

START_TEST(junk_before_header)
{
	static const char t[] = "Password: \nresxtop: warning, something\n"
				"\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Memory\\Free MBytes\",\n"
				"\"07/27/2026 13:10:00\",\"5\",\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_int_eq(pdh_header_line(c.r), 3);
	ck_assert_uint_eq(c.nrows, 1);
	ck_assert_int_eq(c.line[0], 4);
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "t.csv:3: warning: skipped 2 lines before the PDH-CSV header"));
	cap_free(&c);
}
END_TEST

START_TEST(truncated_last_line)
{
	static const char t[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Memory\\A\",\"\\\\h\\Memory\\B\",\n"
				"\"07/27/2026 13:10:00\",\"1\",\"2\",\n"
				"\"07/27/2026 13:10:05\",\"3\",\"4\",\n"
				"\"07/27/2026 13:10:10\",\"5";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_uint_eq(c.nrows, 2);
	ck_assert(c.v[1][1] == 4);
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "t.csv:4: warning: truncated last line"));
	ck_assert_int_eq(pdh_stats(c.r)->skipped_rows, 1);
	cap_free(&c);
}
END_TEST

START_TEST(wrong_field_count_skipped)
{
	static const char t[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Memory\\A\",\"\\\\h\\Memory\\B\",\n"
				"\"07/27/2026 13:10:00\",\"1\",\"2\",\n"
				"\"07/27/2026 13:10:05\",\"3\",\n"
				"\"garbage\",\"1\",\"2\",\n"
				"\"07/27/2026 13:10:15\",\"7\",\"8\",\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_uint_eq(c.nrows, 2);
	ck_assert(c.v[1][0] == 7);
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "t.csv:3: warning: row has 3 fields, the header has 4; row skipped"));
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "t.csv:4:1: warning: bad time stamp \"garbage\""));
	cap_free(&c);
}
END_TEST

static const char pm_csv[] =
	"\"(PDH-CSV 4.0) (Pacific Standard Time)(480)\",\"\\\\SQL01\\LogicalDisk(D:)\\Avg. Disk sec/Read\","
	"\"\\\\SQL01\\LogicalDisk(D:)\\Current Disk Queue Length\"\r\n"
	"\"07/27/2026 06:10:00.125\",\" \",\"3\"\r\n"
	"\"07/27/2026 06:10:15.125\",\"9.0381772607494055e-005\",\"32\"\r\n";

START_TEST(perfmon_bias_missing_exponent_crlf)
{
	struct cap c;
	cap_parse(&c, S(pm_csv), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_str_eq(pdh_parser(c.r)->name, "perfmon");
	ck_assert_int_eq(pdh_header_info(c.r)->bias_min, 480);
	ck_assert_str_eq(pdh_header_info(c.r)->zone, "Pacific Standard Time");
	ck_assert_uint_eq(c.nrows, 2);
	ck_assert(c.t[0] == utc(2026, 7, 27, 14, 10, 0) + 125); /* UTC = local + bias */
	ck_assert(isnan(c.v[0][0]));                               /* " " = missing */
	ck_assert(fabs(c.v[1][0] - 9.0381772607494055e-5) < 1e-18);
	ck_assert(c.v[1][1] == 32);
	ck_assert_uint_eq(c.msgs.len, 0); /* a clean file gives no message */
	cap_free(&c);
}
END_TEST

START_TEST(perfmon_tsv_lf_and_cr)
{
	static const char tsv[] = "\"(PDH-TSV 4.0) (India Standard Time)(-330)\"\t\"\\\\h\\Memory\\A\"\n"
				  "\"01/02/2026 05:30:00.000\"\t\"1\"\n";
	struct cap c;
	cap_parse(&c, S(tsv), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert(pdh_is_tsv(c.r));
	ck_assert(c.t[0] == utc(2026, 1, 2, 0, 0, 0)); /* 05:30 IST = 00:00 UTC */
	cap_free(&c);
	static const char cr[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Memory\\A\"\r\"01/02/2026 00:00:00\",\"1\"\r"
				 "\"01/02/2026 00:00:01\",\"2\"\r";
	cap_parse(&c, S(cr), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_uint_eq(c.nrows, 2);
	ck_assert(c.v[1][0] == 2);
	ck_assert_int_eq(c.line[1], 3);
	cap_free(&c);
}
END_TEST

START_TEST(perfmon_no_bias_tz_fallback)
{
	static const char t[] = "\"(PDH-CSV 4.0) (\",\"\\\\h\\Memory\\A\"\r\n\"01/02/2026 09:00:00.000\",\"1\"\r\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert(!pdh_header_info(c.r)->bias_known);
	ck_assert(c.t[0] == utc(2026, 1, 2, 9, 0, 0)); /* default UTC */
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "header has no time-zone bias"));
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "assuming UTC"));
	cap_free(&c);
	struct pdh_options o = {.tz_bias_min = -540, .tz_given = true, .max_warnings = -1}; /* --tz +09:00 */
	cap_parse(&c, S(t), &o);
	ck_assert(c.t[0] == utc(2026, 1, 2, 0, 0, 0));
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "using --tz"));
	cap_free(&c);
}
END_TEST

START_TEST(perfmon_dst_repeated_hour)
{
	/* Autumn: 01:59:59 local (PDT, bias 420) is followed by 01:00:14 local (PST). */
	static const char t[] = "\"(PDH-CSV 4.0) (Pacific Daylight Time)(420)\",\"\\\\h\\Memory\\A\"\r\n"
				"\"11/01/2026 01:59:44.562\",\"1\"\r\n"
				"\"11/01/2026 01:59:59.562\",\"2\"\r\n"
				"\"11/01/2026 01:00:14.562\",\"3\"\r\n"
				"\"11/01/2026 01:00:29.562\",\"4\"\r\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_uint_eq(c.nrows, 4);
	ck_assert(c.v[2][0] == 3); /* order kept */
	ck_assert(c.disc[2] && !c.disc[1] && !c.disc[3]);
	ck_assert(c.t[2] - c.t[1] == 15000); /* UTC continues 15 s later */
	ck_assert(c.t[3] - c.t[2] == 15000);
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "t.csv:4:1: warning: local time goes back"));
	cap_free(&c);
}
END_TEST

START_TEST(time_backwards_esxtop)
{
	static const char t[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Memory\\A\",\n"
				"\"07/27/2026 13:10:00\",\"1\",\n\"07/27/2026 13:00:00\",\"2\",\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_uint_eq(c.nrows, 2);
	ck_assert(c.disc[1]);
	ck_assert(c.t[1] < c.t[0]); /* esxtop is UTC: no shifting, file order kept */
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "time goes backwards"));
	cap_free(&c);
}
END_TEST

START_TEST(bom_utf8_and_utf16)
{
	static const char u8[] = "\xef\xbb\xbf\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Memory\\A\"\n\"01/02/2026 00:00:00\",\"1\"\n";
	struct cap c;
	cap_parse(&c, S(u8), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_uint_eq(c.nrows, 1);
	cap_free(&c);
	/* UTF-16LE with BOM, with a non-ASCII instance name (Datenträger) */
	static const char text[] = "\"(PDH-CSV 4.0) (W. Europe Standard Time)(-60)\",\"\\\\h\\Logischer Datentr\xc3\xa4ger(D:)\\A\"\r\n"
				   "\"01/02/2026 01:00:00.000\",\"7\"\r\n";
	size_t n = sizeof text - 1;
	char *u16 = malloc(2 + 2 * n);
	size_t o = 0;
	u16[o++] = (char)0xff;
	u16[o++] = (char)0xfe;
	for (size_t i = 0; i < n; i++) {
		unsigned cp = (unsigned char)text[i];
		if (cp == 0xc3) {
			cp = 0xe4;
			i++;
		}
		u16[o++] = (char)(cp & 0xff);
		u16[o++] = (char)(cp >> 8);
	}
	cap_parse(&c, u16, o, NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_uint_eq(c.nrows, 1);
	ck_assert(c.v[0][0] == 7);
	ck_assert(c.t[0] == utc(2026, 1, 2, 0, 0, 0));
	ck_assert_str_eq(pdh_column(c.r, 0)->path.object, "Logischer Datentr\xc3\xa4ger");
	cap_free(&c);
	free(u16);
}
END_TEST

START_TEST(description_column_and_lowercase)
{
	static const char t[] = "\"(PDH-CSV 4.0) (\",\"\\\\h\\logicaldisk(c:)\\avg. disk sec/read\",\"My collector set\"\r\n"
				"\"01/02/2026 00:00:00.000\",\"0.004\",\" \"\r\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_uint_eq(pdh_ncols(c.r), 1);
	ck_assert_str_eq(pdh_column(c.r, 0)->path.object, "logicaldisk");
	ck_assert(c.v[0][0] == 0.004);
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "Data Collector Set description"));
	cap_free(&c);
}
END_TEST

/* A last column whose name is not a counter path is a Data Collector Set description only when
 * its values are blank: one with numbers is a counter, kept under its header name, even when its
 * first row is " " (rate counters) and the rows are not yet buffered when the header is read. */
START_TEST(numeric_last_column_kept)
{
	static const char t[] = "\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\",\"\\\\h\\LogicalDisk(C:)\\Avg. Disk sec/Read\",\"Available MBytes\"\r\n"
				"\"01/02/2026 00:00:00.000\",\" \",\" \"\r\n"
				"\"01/02/2026 00:00:15.000\",\"0.004\",\"812\"\r\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_str_eq(pdh_parser(c.r)->name, "perfmon");
	ck_assert_uint_eq(pdh_ncols(c.r), 2);
	ck_assert_str_eq(pdh_column(c.r, 1)->name, "Available MBytes");
	ck_assert(!pdh_column(c.r, 1)->path.ok);
	ck_assert_uint_eq(c.nrows, 2);
	ck_assert(isnan(c.v[0][1]) && c.v[1][1] == 812);
	ck_assert_ptr_null(strstr(c.msgs.data ? c.msgs.data : "", "Data Collector Set description"));
	cap_free(&c);

	/* 50,000 columns: the header passes the first 1 MiB read, the rows come in later reads; the
	 * last value is a number only in the ninth row, past the first 2 MiB. Then the same with
	 * blank values only. */
	for (int numeric = 1; numeric >= 0; numeric--) {
		struct buf b;
		buf_init(&b);
		const int ncol = 50000;
		buf_adds(&b, "\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\"");
		for (int i = 0; i < ncol - 1; i++)
			buf_printf(&b, ",\"\\\\h\\Memory\\Counter %d\"", i);
		buf_adds(&b, ",\"Last column\"\r\n");
		for (int row = 0; row < 10; row++) {
			buf_printf(&b, "\"01/02/2026 00:%02d:%02d.000\"", row * 15 / 60, row * 15 % 60);
			for (int i = 0; i < ncol - 1; i++)
				buf_adds(&b, ",\" \"");
			buf_adds(&b, numeric && row == 8 ? ",\"7\"\r\n" : ",\" \"\r\n");
		}
		cap_parse(&c, b.data, b.len, NULL);
		ck_assert_int_eq(c.open_rc, 0);
		ck_assert_uint_eq(pdh_ncols(c.r), (size_t)(numeric ? ncol : ncol - 1));
		ck_assert_uint_eq(c.nrows, 10);
		ck_assert(numeric == !strstr(c.msgs.data ? c.msgs.data : "", "Data Collector Set description"));
		if (numeric)
			ck_assert_str_eq(pdh_column(c.r, (size_t)ncol - 1)->name, "Last column");
		cap_free(&c);
		buf_free(&b);
	}
}
END_TEST

START_TEST(excel_resaved)
{
	static const char ok[] = "(PDH-CSV 4.0) (,\\\\h\\Memory\\A,\\\\h\\Memory\\B\r\n3/26/2015 22:42,2.20E+12, \r\n";
	struct cap c;
	cap_parse(&c, S(ok), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert(pdh_is_excel(c.r));
	ck_assert_uint_eq(c.nrows, 1);
	ck_assert(c.v[0][0] == 2.2e12 && isnan(c.v[0][1]));
	ck_assert(c.t[0] == utc(2015, 3, 26, 22, 42, 0));
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "re-saved by a spreadsheet"));
	cap_free(&c);
	/* A counter name with a comma and no quotes: columns can't be told apart. */
	static const char bad[] = "(PDH-CSV 4.0) (,\\\\h\\Obj(a,b)\\A,\\\\h\\Memory\\B\r\n3/26/2015 22:42,1,2\r\n";
	cap_parse(&c, S(bad), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_uint_eq(c.nrows, 0);
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "export the original CSV again"));
	cap_free(&c);
}
END_TEST

START_TEST(not_a_capture)
{
	struct cap c;
	cap_parse(&c, S("hello,world\n1,2\n"), NULL);
	ck_assert_int_eq(c.open_rc, ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "no \"(PDH-CSV 4.0)\" header"));
	cap_free(&c);
	cap_parse(&c, "", 0, NULL);
	ck_assert_int_eq(c.open_rc, ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "empty file"));
	cap_free(&c);
	cap_parse(&c, S("\x1f\x8b\x08\x00\x00\x00binary\x00\x00"), NULL);
	ck_assert_int_eq(c.open_rc, ERR_FORMAT);
	cap_free(&c);
}
END_TEST

START_TEST(header_only_and_ansi_bytes)
{
	/* cp1252 byte 0xE4 in an instance name: kept as bytes */
	static const char t[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Disk(Datentr\xe4ger)\\A\",\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_uint_eq(c.nrows, 0);
	ck_assert_str_eq(pdh_column(c.r, 0)->path.instance, "Datentr\xe4ger");
	cap_free(&c);
}
END_TEST

/* fuzz_source's first find: a read of fewer than 8 bytes on UTF-16 input returned 0 (= end of
 * input), which cut files whose lines pass 1 MiB; the first read also dropped BOM-less head bytes
 * past n. Every slicing must give the same text. */
START_TEST(small_reads_same_text)
{
	static const char u16[] = "\xff\xfe\x22\x00\x28\x00\x3d\xd8\x00\xde\x0a\x00\x00\xd8\x61\x00";
	static const char plain[] = "\"(PDH-CSV 4.0)\"\n";
	const char *texts[] = {u16, plain};
	size_t lens[] = {sizeof u16 - 1, sizeof plain - 1};
	for (size_t t = 0; t < 2; t++) {
		char whole[256], sliced[256];
		size_t nw = 0, ns = 0;
		struct diag d;
		diag_init(&d, "t", -1);
		struct source s;
		source_open_mem(&s, "t", texts[t], lens[t], &d);
		long k;
		while ((k = source_read(&s, whole + nw, sizeof whole - nw, &d)) > 0)
			nw += (size_t)k;
		ck_assert_int_eq(k, 0);
		source_close(&s);
		for (size_t n = 1; n <= 8; n++) {
			source_open_mem(&s, "t", texts[t], lens[t], &d);
			ns = 0;
			while ((k = source_read(&s, sliced + ns, n, &d)) > 0)
				ns += (size_t)k;
			ck_assert_int_eq(k, 0);
			ck_assert_uint_eq(ns, nw);
			ck_assert(memcmp(whole, sliced, nw) == 0);
			source_close(&s);
		}
	}
}
END_TEST

START_TEST(gzip_file)
{
	char path[] = "/tmp/iopsy-gz-XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	gzFile gz = gzdopen(fd, "wb");
	gzwrite(gz, esx_default, sizeof esx_default - 1);
	gzclose(gz);
	struct diag d;
	struct buf msgs;
	buf_init(&msgs);
	diag_init(&d, path, -1);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	struct source src;
	ck_assert_int_eq(source_open(&src, path, &d), 0);
	struct pdh_reader *r;
	struct pdh_options o = {.max_warnings = -1};
	ck_assert_int_eq(pdh_open(&r, &src, &o, &d), 0);
	ck_assert(src.gzip);
	struct pdh_row row;
	int n = 0;
	while (pdh_next(r, &row) == 1)
		n++;
	ck_assert_int_eq(n, 3);
	pdh_close(r);
	source_close(&src);
	buf_free(&msgs);
	unlink(path);
}
END_TEST

START_TEST(timestamps)
{
	int64_t t;
	ck_assert_int_eq(pdh_parse_time(S("07/27/2026 13:10:00"), &t), 0);
	ck_assert(t == utc(2026, 7, 27, 13, 10, 0));
	ck_assert_int_eq(pdh_parse_time(S("11/26/2016 13:46:30.874"), &t), 0);
	ck_assert(t == utc(2016, 11, 26, 13, 46, 30) + 874);
	ck_assert_int_eq(pdh_parse_time(S("3/6/2015 2:42"), &t), 0);
	ck_assert(t == utc(2015, 3, 6, 2, 42, 0));
	ck_assert_int_lt(pdh_parse_time(S("2026-07-27 13:10:00"), &t), 0);
	ck_assert_int_lt(pdh_parse_time(S("02/30/2026 00:00:00"), &t), 0);
	ck_assert_int_lt(pdh_parse_time(S("07/27/2026 25:00:00"), &t), 0);
	ck_assert_int_lt(pdh_parse_time(S(""), &t), 0);
}
END_TEST



START_TEST(perfmon_dst_spring_forward)
{
	/* Spring: 01:59:45 local (PST, bias 480) is followed by 03:00:00 local (PDT). */
	static const char t[] = "\"(PDH-CSV 4.0) (Pacific Standard Time)(480)\",\"\\\\h\\Memory\\A\"\r\n"
				"\"03/08/2026 01:59:30.000\",\"1\"\r\n"
				"\"03/08/2026 01:59:45.000\",\"2\"\r\n"
				"\"03/08/2026 03:00:00.000\",\"3\"\r\n"
				"\"03/08/2026 03:00:15.000\",\"4\"\r\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_uint_eq(c.nrows, 4);
	ck_assert(c.t[2] - c.t[1] == 15000); /* UTC continues 15 s later, not 1 h 15 s */
	ck_assert(c.t[3] == utc(2026, 3, 8, 10, 0, 15));
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "t.csv:4:1: warning: local time jumps from 01:xx to 03:xx"));
	cap_free(&c);
}
END_TEST

START_TEST(excel_minutes_refused)
{
	static const char t[] = "(PDH-CSV 4.0) (UTC)(0),\\\\h\\Memory\\A\r\n3/26/2015 22:42,1\r\n3/26/2015 22:42,2\r\n"
				"3/26/2015 22:42,3\r\n3/26/2015 22:43,4\r\n";
	struct cap c;
	cap_parse(&c, S(t), NULL);
	ck_assert_uint_le(c.nrows, 2);
	ck_assert_ptr_nonnull(strstr(c.msgs.data, "cut the seconds"));
	cap_free(&c);
}
END_TEST

/* The fast line scanner must agree with libcsv on every input: same rows, times, values, texts
 * and messages. */
START_TEST(fast_path_matches_libcsv)
{
	static const char *const inputs[] = {
		esx_default,
		pm_csv,
		"\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Obj(a,b)\\C \"\"x\"\"\",\"\\\\h\\M\\B\"\n"
		"\"07/27/2026 13:10:00\",\"1\",\"2\"\n"
		"\"07/27/2026 13:10:01\", \"3\" ,\"4\"\n"
		"\"07/27/2026 13:10:02\",5 , 6\n"
		"\"07/27/2026 13:10:03\",\"7,5\",\"8\"\"\"\n"
		"\"07/27/2026 13:10:04\",,\n"
		"\"07/27/2026 13:10:05\",\"9\"x,\"1\"\n"
		"\"07/27/2026 13:10:06\",\"1\",\"2\",\"3\"\n"
		"07/27/2026 13:10:07,\"1\",\"2\"\n"
		"\"07/27/2026 13:10:08\",\"1\",\"2\n",
		"\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\M\\A\",\"\\\\h\\M\\B\",\n"
		"\"07/27/2026 13:10:00\",\"1\",\"2\",\n"
		"\"07/27/2026 13:10:01\",\"3\",\"4\"\n"
		"\"07/27/2026 13:10:02\",\"5\",\"6\",\"\"\n"
		"\"07/27/2026 13:10:03\",\"7\",\"8\",\n",
	};
	for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; k++) {
		struct cap a, b;
		struct pdh_options fast = {.max_warnings = -1}, slow = {.max_warnings = -1, .no_fast_path = true};
		cap_parse(&a, inputs[k], strlen(inputs[k]), &fast);
		cap_parse(&b, inputs[k], strlen(inputs[k]), &slow);
		ck_assert_int_eq(a.open_rc, b.open_rc);
		ck_assert_uint_eq(a.nrows, b.nrows);
		for (size_t i = 0; i < a.nrows; i++) {
			ck_assert(a.t[i] == b.t[i]);
			ck_assert_int_eq(a.line[i], b.line[i]);
			for (size_t c = 0; c < 8; c++)
				ck_assert(a.v[i][c] == b.v[i][c] || (isnan(a.v[i][c]) && isnan(b.v[i][c])));
		}
		ck_assert_str_eq(a.msgs.data ? a.msgs.data : "", b.msgs.data ? b.msgs.data : "");
		cap_free(&a);
		cap_free(&b);
	}
}
END_TEST

/* ---- the field scanner's dispatch levels ---- */

/* Everything a user could see of a parse, as text: open status, every row's time, line and
 * discontinuity, every selected column's raw text and value, the row/skip counts and all
 * messages. Columns are selected by sel (bit i % 8 of sel keeps column i; 0 keeps all). */
static int dump_threads; /* --threads of the dumps (0: auto, which is one for memory) */

static void dump_parse(struct buf *out, const char *text, size_t len, bool no_fast, uint8_t sel)
{
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	diag_init(&d, "t.csv", -1);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	struct source src;
	source_open_mem(&src, "t.csv", text, len, &d);
	struct pdh_options o = {.max_warnings = -1, .no_fast_path = no_fast, .threads = dump_threads};
	struct pdh_reader *r;
	int rc = pdh_open(&r, &src, &o, &d);
	buf_printf(out, "open %d\n", rc);
	if (rc == 0) {
		size_t nc = pdh_ncols(r);
		/* the header as the reader split it */
		for (size_t i = 0; i < nc; i++) {
			const struct pdh_column *c = pdh_column(r, i);
			const struct pdh_path *p = &c->path;
			buf_printf(out, "col %ld [", c->field);
			buf_add(out, c->name, c->name_len);
			buf_printf(out, "] %d h[%s] o[%s] i[%s] c[%s]\n", p->ok, p->host ? p->host : "-", p->object ? p->object : "-",
				   p->instance ? p->instance : "-", p->counter ? p->counter : "-");
		}
		bool *want = calloc(nc ? nc : 1, sizeof *want);
		ck_assert_ptr_nonnull(want);
		for (size_t i = 0; i < nc; i++)
			want[i] = sel == 0 || (sel >> (i % 8)) & 1;
		pdh_select(r, sel ? want : NULL);
		struct pdh_row row;
		while ((rc = pdh_next(r, &row)) == 1) {
			buf_printf(out, "row %lld %ld %d:", (long long)row.t_ms, row.line, row.discontinuity);
			for (size_t i = 0; i < nc; i++) {
				if (!want[i])
					continue;
				size_t tl;
				const char *t = pdh_text(r, i, &tl);
				double v;
				buf_addc(out, '[');
				buf_add(out, t, tl);
				if (pdh_value(r, i, &v))
					buf_printf(out, "=%.17g]", v);
				else
					buf_adds(out, "=NA]");
			}
			buf_addc(out, '\n');
		}
		const struct pdh_stats *st = pdh_stats(r);
		buf_printf(out, "end %d rows %ld skipped %ld\n", rc, st->rows, st->skipped_rows);
		free(want);
		pdh_close(r);
	}
	diag_finish(&d);
	source_close(&src);
	if (msgs.data)
		buf_adds(out, msgs.data);
	buf_free(&msgs);
}

static uint64_t rng_state;
static uint32_t rng(uint32_t n)
{
	uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (uint32_t)((z ^ (z >> 31)) % n);
}

/* Tricky cells: the simple forms the scanner must take, and forms it must hand to libcsv. */
static const char *const cells[] = {
	"\"1.50\"", "\"0.00\"", "\"\"", "\" \"", "\"12345.678\"", "7", " 8 ", "\t9\t", "", "\"a,b\"",
	"\"x\"\"y\"", "\"\"\"\"", "\"9\"x", "  \"3\"", "\"3\" ", "ab\"c", "    73.1\"8.93\"", "-\"z\"",
	"\"n/a\"", "\"9.0381772607494055e-005\"", "\"4294967295\"", " 5\t\"6\"", "1 2", "\"a\rb\"", "  7.5\"a,b\"", "6\"\"", "6\"x\"y\"",
	"\"long long long long long long long long long long long long long long long long\"",
};
#define NCELLS (sizeof cells / sizeof cells[0])

/* A capture of ncols counter columns whose header may carry the -a glued field, then rows mixing
 * simple cells (weight) with tricky ones, random padding so quotes straddle 64-byte blocks,
 * CRLF or LF, and some rows cut short or too long. */
static void make_capture(struct buf *b, size_t ncols, size_t nrows, bool glue_header, bool tsv, bool crlf,
			 unsigned tricky_pct)
{
	const char dl = tsv ? '\t' : ',';
	const char *eol = crlf ? "\r\n" : "\n";
	buf_adds(b, tsv ? "\"(PDH-TSV 4.0) (UTC)(0)\"" : "\"(PDH-CSV 4.0) (UTC)(0)\"");
	size_t hcols = glue_header ? ncols - 1 : ncols;
	for (size_t i = 0; i < hcols; i++) {
		if (glue_header && i == hcols / 2) {
			buf_adds(b, "   -"); /* glued to the next header cell */
		} else {
			buf_addc(b, dl);
		}
		buf_printf(b, "\"\\\\h\\PCPU Power State(PCPU %zu)\\%%C-State C%zu\"", i / 4, i % 4);
	}
	buf_adds(b, eol);
	for (size_t r = 0; r < nrows; r++) {
		buf_printf(b, "\"07/27/2026 13:%02zu:%02zu\"", (r / 60) % 60, r % 60);
		size_t n = ncols;
		if (r % 17 == 5)
			n = n + rng(3) - 1; /* one field short, right or one too many */
		size_t pad = rng(70);
		for (size_t i = 0; i < n; i++) {
			buf_addc(b, dl);
			const char *c;
			/* a CR inside quotes stays data, but enough of them would make the reader
			 * (rightly) frame the file on CR, so captures get few */
			do
				c = rng(100) < tricky_pct ? cells[rng(NCELLS)] : cells[rng(5)];
			while (strchr(c, '\r') && rng(8) != 0);
			if (i == 0 && pad) { /* shifts everything after it across block boundaries */
				buf_addc(b, '"');
				for (size_t k = 0; k < pad; k++)
					buf_addc(b, (char)('a' + k % 26));
				buf_addc(b, '"');
				continue;
			}
			buf_adds(b, c);
		}
		if (r % 23 == 7)
			buf_addc(b, dl);
		buf_adds(b, eol);
	}
}

/* Every dispatch level on this machine reads every capture exactly as libcsv and the scalar
 * level do (rows, times, texts, values, messages), for all and for some selected columns. */
START_TEST(fieldscan_levels_match_libcsv)
{
	struct {
		size_t ncols, nrows;
		bool glue, tsv, crlf;
		unsigned tricky;
	} shapes[] = {
		{12, 200, false, false, false, 0},   {12, 200, true, false, false, 3},   {40, 300, false, false, true, 5},
		{40, 300, true, false, false, 8},    {7, 400, false, true, false, 10},   {7, 400, true, true, true, 6},
		{3000, 6, true, false, false, 1},    {20000, 2, false, false, false, 0}, {90, 200, true, false, false, 40},
	};
	size_t levels_run = 0;
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		rng_state = 1000 + k;
		struct buf cap;
		buf_init(&cap);
		make_capture(&cap, shapes[k].ncols, shapes[k].nrows, shapes[k].glue, shapes[k].tsv, shapes[k].crlf,
			     shapes[k].tricky);
		static const uint8_t sels[] = {0, 0x01, 0x24, 0x80};
		for (size_t si = 0; si < sizeof sels; si++) {
			struct buf ref;
			buf_init(&ref);
			dump_parse(&ref, cap.data, cap.len, true, sels[si]);
			ck_assert_msg(strstr(ref.data, "row ") != NULL, "no rows in shape %zu: %.300s", k, ref.data);
			for (int l = 0; l < FIELDSCAN_NLEVELS; l++) {
				if (!fieldscan_set_default_level((enum fieldscan_level)l))
					continue;
				struct buf got;
				buf_init(&got);
				dump_parse(&got, cap.data, cap.len, false, sels[si]);
				ck_assert_msg(strcmp(ref.data, got.data) == 0,
					      "level %s differs from libcsv on shape %zu sel %#x", fieldscan_level_name((enum fieldscan_level)l), k,
					      sels[si]);
				buf_free(&got);
				levels_run++;
			}
			buf_free(&ref);
		}
		buf_free(&cap);
	}
	ck_assert_uint_ge(levels_run, 4 * 9); /* scalar at least, every shape and selection */
	fieldscan_set_default_level(fieldscan_level_best());
}
END_TEST

/* The scanner itself: on lines of tricky cells at every alignment, each level takes or refuses
 * exactly the lines the scalar reference does and finds the same field count and spans. */
START_TEST(fieldscan_levels_match_scalar)
{
	enum { NF = 400 };
	unsigned char want[NF];
	for (int glue = 0; glue < 2; glue++) {
		for (int dl = 0; dl < 2; dl++) {
			for (unsigned wmode = 0; wmode < 3; wmode++) {
				for (size_t f = 0; f < NF; f++)
					want[f] = wmode == 0 ? 1 : wmode == 1 ? (f % 5 == 2 || f % 7 == 0) : (f == 3 || f == 4 || f == 250);
				struct fieldscan_plan plan;
				ck_assert_int_eq(fieldscan_plan_init(&plan, want, NF, dl ? '\t' : ',', glue), 0);
				struct fieldscan_span a[NF], b[NF];
				rng_state = 77 + (uint64_t)glue * 10 + (uint64_t)dl * 100 + wmode;
				for (int it = 0; it < 3000; it++) {
					struct buf line;
					buf_init(&line);
					size_t n = 1 + rng(it % 10 == 0 ? NF : 20);
					unsigned tricky = rng(4) == 0 ? 50 : 4;
					for (size_t i = 0; i < n; i++) {
						if (i)
							buf_addc(&line, dl ? '\t' : ',');
						const char *c = rng(100) < tricky ? cells[rng(NCELLS)] : cells[rng(5)];
						if (rng(8) == 0) { /* a quoted run to move the next cells across blocks */
							buf_addc(&line, '"');
							for (size_t k = rng(64); k; k--)
								buf_addc(&line, 'p');
							buf_addc(&line, '"');
						} else {
							buf_adds(&line, c);
						}
					}
					if (rng(6) == 0)
						buf_addc(&line, dl ? '\t' : ',');
					size_t na = 0, nb = 0;
					ck_assert(fieldscan_plan_set_level(&plan, FIELDSCAN_SCALAR));
					bool oka = fieldscan_line(&plan, line.data, line.len, a, &na);
					for (int l = 1; l < FIELDSCAN_NLEVELS; l++) {
						if (!fieldscan_plan_set_level(&plan, (enum fieldscan_level)l))
							continue;
						memset(b, 0xa5, sizeof b);
						bool okb = fieldscan_line(&plan, line.data, line.len, b, &nb);
						ck_assert_msg(oka == okb, "level %s %s a line scalar %s: [%s]",
							      fieldscan_level_name((enum fieldscan_level)l), okb ? "takes" : "refuses",
							      oka ? "takes" : "refuses", line.data);
						if (!oka)
							continue;
						ck_assert_uint_eq(na, nb);
						for (size_t i = 0; i < plan.nwanted && plan.wanted[i] < na; i++)
							ck_assert_msg(a[i].off == b[i].off && a[i].len == b[i].len,
								      "level %s: field %u at %u+%u, scalar %u+%u: [%s]",
								      fieldscan_level_name((enum fieldscan_level)l), plan.wanted[i], b[i].off,
								      b[i].len, a[i].off, a[i].len, line.data);
					}
					buf_free(&line);
				}
				fieldscan_plan_free(&plan);
			}
		}
	}
}
END_TEST

/* The levels this build and CPU offer: scalar always; on x86_64 SSE2 too, the baseline. */
/* The header goes through the field scanner unless it is not in the simple form: random headers of
 * tricky cells (quotes inside, commas in quotes, blanks, the -a glue, empty names) read the same
 * names and paths as through libcsv, or fail the same way. */
START_TEST(header_fast_matches_libcsv)
{
	static const char *const names[] = {
		"\"\\\\h\\Obj(i)\\C\"", "\"\\\\h\\Vcpu(1:a b)\\% Used\"", "\"\\\\h\\M\\B\"", "\"\\\\h\\Obj(a,b)\\C\"",
		"\"\\\\h\\O(x)\\C \"\"q\"\"\"", "   -\"\\\\h\\PCPU Power State(PCPU 1)\\%C-State C0\"", "\"\"", "x",
		" \"\\\\h\\P\\Q\" ", "\"\\\\h\\O(a (b) c)\\D (ms)\"", "\\\\h\\Unquoted(i)\\C", "\"\\\\h\\\\c\"",
		"\"\\\\\\O\\C\"", "\"ab\"c", "\"\\\\h\\O(i\\j)\\C\"", "\"a\rb\"", "-\"z\"", "\"n\"x\""};
	rng_state = 77;
	for (int iter = 0; iter < 3000; iter++) {
		struct buf t, a, b;
		buf_init(&t);
		buf_init(&a);
		buf_init(&b);
		bool tsv = iter % 7 == 3;
		buf_adds(&t, tsv ? "\"(PDH-TSV 4.0) (UTC)(0)\"" : "\"(PDH-CSV 4.0) (UTC)(0)\"");
		size_t n = 1 + rng(12);
		for (size_t k = 0; k < n; k++) {
			const char *c = names[rng(100) < 70 ? rng(3) : rng(sizeof names / sizeof names[0])];
			if (c[0] != ' ' || c[1] != ' ' || c[3] != '-')
				buf_addc(&t, tsv ? '\t' : ',');
			buf_adds(&t, c);
		}
		if (rng(2))
			buf_addc(&t, tsv ? '\t' : ',');
		buf_adds(&t, "\n\"07/27/2026 13:10:00\"");
		for (size_t k = 0; k < n; k++)
			buf_adds(&t, tsv ? "\t\"1\"" : ",\"1\"");
		buf_adds(&t, "\n");
		dump_parse(&a, t.data, t.len, false, 0);
		dump_parse(&b, t.data, t.len, true, 0);
		ck_assert_msg(strcmp(a.data, b.data) == 0, "header fast path differs on:\n%s\n--- fast:\n%s\n--- libcsv:\n%s", t.data,
			      a.data, b.data);
		buf_free(&t);
		buf_free(&a);
		buf_free(&b);
	}
}
END_TEST

/* The splitter before it made one copy per name: four copies, the same parts (the reference). */
static void ref_split_path(const char *s, size_t n, struct pdh_path *p, struct arena *a)
{
	memset(p, 0, sizeof *p);
	if (n < 3 || s[0] != '\\' || s[1] != '\\') {
		p->counter = arena_strndup(a, s, n);
		return;
	}
	const char *h = s + 2, *end = s + n;
	const char *hs = memchr(h, '\\', (size_t)(end - h));
	const char *last = NULL;
	for (const char *q = end - 1; q > h; q--)
		if (*q == '\\') {
			last = q;
			break;
		}
	if (!hs || !last || last <= hs || last == end - 1) {
		p->counter = arena_strndup(a, s, n);
		return;
	}
	p->host = arena_strndup(a, h, (size_t)(hs - h));
	p->counter = arena_strndup(a, last + 1, (size_t)(end - last - 1));
	const char *m = hs + 1, *me = last;
	const char *paren = memchr(m, '(', (size_t)(me - m));
	const char *close = NULL;
	if (paren)
		for (const char *q = me - 1; q > paren; q--)
			if (*q == ')') {
				close = q;
				break;
			}
	if (paren && close) {
		p->object = arena_strndup(a, m, (size_t)(paren - m));
		p->instance = arena_strndup(a, paren + 1, (size_t)(close - paren - 1));
	} else {
		p->object = arena_strndup(a, m, (size_t)(me - m));
	}
	p->ok = p->object[0] != '\0';
	if (!p->ok) {
		memset(p, 0, sizeof *p);
		p->counter = arena_strndup(a, s, n);
	}
}

static bool same_part(const char *x, const char *y)
{
	return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

START_TEST(path_split_equals_reference)
{
	static const char alphabet[] = "\\\\\\()()ab :0\0";
	struct arena ar;
	arena_init(&ar);
	rng_state = 4242;
	for (int iter = 0; iter < 200000; iter++) {
		char s[24];
		size_t n = rng(sizeof s);
		for (size_t i = 0; i < n; i++)
			s[i] = alphabet[rng(sizeof alphabet - 1)];
		if (n >= 2 && rng(4)) /* mostly paths */
			s[0] = s[1] = '\\';
		struct pdh_path p, q;
		pdh_split_path(s, n, &p, &ar);
		ref_split_path(s, n, &q, &ar);
		ck_assert_msg(p.ok == q.ok && same_part(p.host, q.host) && same_part(p.object, q.object) &&
				      same_part(p.instance, q.instance) && same_part(p.counter, q.counter),
			      "split differs on %.*s", (int)n, s);
		if (iter % 1000 == 999) {
			arena_free(&ar);
			arena_init(&ar);
		}
	}
	arena_free(&ar);
}
END_TEST

START_TEST(fieldscan_dispatch)
{
	ck_assert(fieldscan_level_available(FIELDSCAN_SCALAR));
#if defined(__x86_64__)
	ck_assert(fieldscan_level_available(FIELDSCAN_SSE2));
	ck_assert(fieldscan_level_best() >= FIELDSCAN_SSE2);
#endif
	ck_assert(!fieldscan_level_available(FIELDSCAN_NLEVELS));
	ck_assert_str_eq(fieldscan_level_name(FIELDSCAN_AVX512), "avx512");
	unsigned char want[3] = {1, 0, 1};
	struct fieldscan_plan p;
	ck_assert_int_eq(fieldscan_plan_init(&p, want, 3, ',', false), 0);
	ck_assert_uint_eq(p.nwanted, 2);
	ck_assert_uint_eq(p.wanted[1], 2);
	ck_assert_uint_eq(p.wanted[2], UINT32_MAX);
	fieldscan_plan_free(&p);
}
END_TEST

/* ---- gzip: both engines, with and without the inflating thread ---- */

static char *write_temp(const void *data, size_t len)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/iopsy-gzt-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	ck_assert(write(fd, data, len) == (ssize_t)len);
	close(fd);
	return path;
}

/* gzip of [p, p + n) as one member (level 1..9). */
static void gz_member(struct buf *out, const char *p, size_t n, int level)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	ck_assert_int_eq(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY), Z_OK);
	size_t cap = deflateBound(&z, (uLong)n) + 64;
	unsigned char *tmp = malloc(cap);
	ck_assert_ptr_nonnull(tmp);
	z.next_in = (unsigned char *)(uintptr_t)p;
	z.avail_in = (unsigned)n;
	z.next_out = tmp;
	z.avail_out = (unsigned)cap;
	ck_assert_int_eq(deflate(&z, Z_FINISH), Z_STREAM_END);
	buf_add(out, tmp, cap - z.avail_out);
	deflateEnd(&z);
	free(tmp);
}

/* Parse a file by path as the commands do, into a dump (see dump_parse, all columns). */
static void dump_file(struct buf *out, const char *path)
{
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	diag_init(&d, "t.csv", -1);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	struct source src;
	ck_assert_int_eq(source_open(&src, path, &d), 0);
	struct pdh_options o = {.max_warnings = -1, .threads = dump_threads};
	struct pdh_reader *r;
	int rc = pdh_open(&r, &src, &o, &d);
	buf_printf(out, "open %d gzip %d\n", rc, src.gzip);
	if (rc == 0) {
		struct pdh_row row;
		while ((rc = pdh_next(r, &row)) == 1) {
			buf_printf(out, "row %lld %ld:", (long long)row.t_ms, row.line);
			for (size_t i = 0; i < pdh_ncols(r); i++) {
				size_t tl;
				const char *t = pdh_text(r, i, &tl);
				buf_addc(out, '[');
				buf_add(out, t, tl);
				buf_addc(out, ']');
			}
			buf_addc(out, '\n');
		}
		/* where a corrupt stream stops being read may differ by engine (ISA-L reads the whole
		 * trailer before checking it): the offset is only compared at a clean end */
		buf_printf(out, "end %d offset %lld\n", rc, rc == 0 ? (long long)source_offset(&src) : -1LL);
		pdh_close(r);
	}
	diag_finish(&d);
	source_close(&src);
	if (msgs.data)
		buf_adds(out, msgs.data);
	buf_free(&msgs);
}

/* Concatenated members (one of them empty, the split inside a line), trailing junk, a truncated
 * stream, a bad CRC and garbage inside: ISA-L (when built) and zlib, each with and without the
 * inflating thread, hand over the same bytes and the same errors as the plain file. */
START_TEST(gzip_engines_and_thread_agree)
{
	struct buf cap;
	buf_init(&cap);
	rng_state = 5;
	make_capture(&cap, 300, 2500, true, false, false, 1); /* ~3 MB: several ring slots */
	struct buf plain_dump;
	buf_init(&plain_dump);
	char *pp = write_temp(cap.data, cap.len);
	char plain_path[64];
	snprintf(plain_path, sizeof plain_path, "%s", pp);
	dump_file(&plain_dump, plain_path);
	unlink(plain_path);
	ck_assert_ptr_nonnull(strstr(plain_dump.data, "row "));
	size_t cut = cap.len / 3 + 17;
	struct buf gz[4];
	for (int k = 0; k < 4; k++)
		buf_init(&gz[k]);
	gz_member(&gz[0], cap.data, cut, 6); /* members, an empty one, trailing junk */
	gz_member(&gz[0], cap.data, 0, 6);
	gz_member(&gz[0], cap.data + cut, cap.len - cut, 1);
	buf_adds(&gz[0], "trailing junk");
	gz_member(&gz[1], cap.data, cap.len, 6); /* truncated */
	gz[1].len = gz[1].len * 2 / 3;
	gz_member(&gz[2], cap.data, cap.len, 6); /* bad CRC in the trailer */
	gz[2].data[gz[2].len - 6] ^= 0x55;
	gz_member(&gz[3], cap.data, cap.len, 6); /* garbage in the middle of the deflate data */
	memset(gz[3].data + gz[3].len / 2, 0xff, 64);
	static const char *const engines[] = {"isal", "zlib"};
	for (int k = 0; k < 4; k++) {
		char *path = write_temp(gz[k].data, gz[k].len);
		struct buf first;
		buf_init(&first);
		for (int e = 0; e < 2; e++) {
			for (int th = 0; th < 2; th++) {
				setenv("IOPSY_INFLATE", engines[e], 1);
				setenv("IOPSY_INFLATE_THREAD", th ? "1" : "0", 1);
				struct buf got;
				buf_init(&got);
				dump_file(&got, path);
				if (k == 0) {
					/* same rows as the plain file; only the compressed offset and the gzip flag differ */
					char *a = strstr(got.data, "\nend "), *b = strstr(plain_dump.data, "\nend ");
					ck_assert_ptr_nonnull(a);
					ck_assert_ptr_nonnull(b);
					ck_assert_int_eq(a - got.data - (int)strlen("open 0 gzip 1"),
							 b - plain_dump.data - (int)strlen("open 0 gzip 0"));
					ck_assert(memcmp(got.data + strlen("open 0 gzip 1"), plain_dump.data + strlen("open 0 gzip 0"),
							 (size_t)(b - plain_dump.data) - strlen("open 0 gzip 0")) == 0);
					ck_assert_ptr_nonnull(strstr(got.data, "end 0 offset "));
				} else {
					ck_assert_msg(strstr(got.data, "corrupt gzip data") != NULL, "case %d %s thread %d: %s", k,
						      engines[e], th, got.data + (got.len > 300 ? got.len - 300 : 0));
				}
				/* on damage, how much an engine decodes before it notices differs (what the
				 * failing call made is dropped): same engine, thread or not, is identical */
				if (th == 0) {
					buf_reset(&first);
					buf_adds(&first, got.data);
				} else {
					ck_assert_msg(strcmp(first.data, got.data) == 0, "case %d: %s with and without the thread differ",
						      k, engines[e]);
				}
				buf_free(&got);
			}
		}
		unsetenv("IOPSY_INFLATE");
		unsetenv("IOPSY_INFLATE_THREAD");
		buf_free(&first);
		unlink(path);
	}
	for (int k = 0; k < 4; k++)
		buf_free(&gz[k]);
	buf_free(&plain_dump);
	buf_free(&cap);
}
END_TEST

/* Closing a gzip source early never waits for the writer of a pipe that stays silent: the
 * inflating thread is blocked on the pipe and must be woken and joined. */
START_TEST(gzip_pipe_close_early)
{
	struct buf cap, gz;
	buf_init(&cap);
	buf_init(&gz);
	rng_state = 9;
	make_capture(&cap, 50, 200, false, false, false, 0);
	gz_member(&gz, cap.data, cap.len, 6);
	int pfd[2];
	ck_assert_int_eq(pipe(pfd), 0);
	ck_assert(write(pfd[1], gz.data, gz.len / 2) == (ssize_t)(gz.len / 2)); /* half, and the writer stays */
	char path[64];
	snprintf(path, sizeof path, "/dev/fd/%d", pfd[0]);
	struct diag d;
	diag_init(&d, "t.csv", -1);
	struct buf msgs;
	buf_init(&msgs);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	struct source src;
	ck_assert_int_eq(source_open(&src, path, &d), 0);
	char head[100];
	ck_assert_int_gt(source_read(&src, head, sizeof head, &d), 0);
	ck_assert(src.gzip);
	alarm(3); /* a hang is a failure (SIGALRM), not a stuck suite */
	source_close(&src);
	alarm(0);
	close(pfd[0]);
	close(pfd[1]);
	buf_free(&msgs);
	buf_free(&gz);
	buf_free(&cap);
}
END_TEST

/* ---- the real public files ---- */

static char *shared_path(const char *name)
{
	const char *top = getenv("IOPSY_SRCDIR");
	static char p[1024];
	snprintf(p, sizeof p, "%s/tests/data/perfmon/%s", top ? top : ".", name);
	ck_assert_msg(access(p, R_OK) == 0, "missing real sample %s (tests/data/perfmon)", p);
	return p;
}

struct filecap {
	struct source src;
	struct diag d;
	struct buf msgs;
	struct pdh_reader *r;
};

static void file_open(struct filecap *f, const char *path)
{
	buf_init(&f->msgs);
	diag_init(&f->d, path, -1);
	f->d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &f->msgs};
	ck_assert_int_eq(source_open(&f->src, path, &f->d), 0);
	struct pdh_options o = {.max_warnings = -1};
	ck_assert_int_eq(pdh_open(&f->r, &f->src, &o, &f->d), 0);
}

static void file_close(struct filecap *f)
{
	pdh_close(f->r);
	source_close(&f->src);
	buf_free(&f->msgs);
}

static long find_col(struct pdh_reader *r, const char *object, const char *instance, const char *counter)
{
	for (size_t i = 0; i < pdh_ncols(r); i++) {
		const struct pdh_column *c = pdh_column(r, i);
		if (c->path.ok && strcmp(c->path.object, object) == 0 && strcmp(c->path.counter, counter) == 0 &&
		    (instance ? c->path.instance && strcmp(c->path.instance, instance) == 0 : !c->path.instance))
			return (long)i;
	}
	return -1;
}

START_TEST(real_powershell_csv_and_tsv)
{
	const char *names[] = {"powershell-countersamples.csv", "powershell-countersamples.tsv"};
	for (int k = 0; k < 2; k++) {
		struct filecap f;
		file_open(&f, shared_path(names[k]));
		ck_assert_str_eq(pdh_parser(f.r)->name, "perfmon");
		ck_assert(pdh_is_tsv(f.r) == (k == 1));
		ck_assert_uint_eq(pdh_ncols(f.r), 10);
		ck_assert_int_eq(pdh_header_info(f.r)->bias_min, 480);
		long q = find_col(f.r, "physicaldisk", "_total", "current disk queue length");
		long cpu = find_col(f.r, "processor", "_total", "% processor time");
		long nic = find_col(f.r, "network interface", "intel[r] ethernet connection i218-lm", "bytes total/sec");
		ck_assert(q >= 0 && cpu >= 0 && nic >= 0);
		ck_assert_str_eq(pdh_column(f.r, 0)->path.host, "charlieparker");
		struct pdh_row row;
		int n = 0;
		double v, first_cpu = 0;
		bool cpu_missing_first = false;
		while (pdh_next(f.r, &row) == 1) {
			if (n == 0) {
				cpu_missing_first = !pdh_value(f.r, (size_t)cpu, &v);
				ck_assert(row.t_ms == utc(2016, 11, 26, 21, 46, 30) + 874);
			}
			if (n == 1) {
				ck_assert(pdh_value(f.r, (size_t)cpu, &first_cpu));
				ck_assert(fabs(first_cpu - 20.913042441624498) < 1e-9);
			}
			n++;
		}
		ck_assert_int_eq(n, 25);
		ck_assert(cpu_missing_first); /* first row of a rate counter is " " */
		ck_assert_uint_eq(f.msgs.len, 0);
		file_close(&f);
	}
}
END_TEST

START_TEST(real_japanese_cp932)
{
	struct filecap f;
	file_open(&f, shared_path("winperfcounter-ja-cp932.csv"));
	ck_assert_str_eq(pdh_parser(f.r)->name, "perfmon");
	ck_assert(!pdh_header_info(f.r)->bias_known);
	ck_assert_uint_eq(pdh_ncols(f.r), 107); /* 109 fields − time − description */
	long avail = find_col(f.r, "Memory", NULL, "Available MBytes");
	ck_assert(avail >= 0);
	ck_assert_ptr_nonnull(strstr(f.msgs.data, "header has no time-zone bias"));
	ck_assert_ptr_nonnull(strstr(f.msgs.data, "Data Collector Set description"));
	struct pdh_row row;
	int n = 0;
	while (pdh_next(f.r, &row) == 1) {
		double v;
		for (size_t i = 0; i < pdh_ncols(f.r); i++)
			pdh_value(f.r, i, &v);
		n++;
	}
	ck_assert_int_eq(n, 61);
	ck_assert_int_gt(pdh_stats(f.r)->glitches, 0); /* 4294967295 read as missing */
	ck_assert_int_eq(pdh_stats(f.r)->skipped_rows, 0);
	file_close(&f);
}
END_TEST

START_TEST(real_excel_resaved)
{
	struct filecap f;
	file_open(&f, shared_path("winperfcounter-ja-excel-resaved.csv"));
	ck_assert(pdh_is_excel(f.r));
	ck_assert_uint_eq(pdh_ncols(f.r), 107);
	long vbp = find_col(f.r, "Process", "explorer", "Virtual Bytes Peak");
	ck_assert(vbp >= 0);
	bool *want = calloc(pdh_ncols(f.r), 1);
	want[vbp] = true;
	pdh_select(f.r, want);
	free(want);
	struct pdh_row row;
	int n = 0;
	double v = 0;
	while (pdh_next(f.r, &row) == 1) {
		if (n == 0)
			ck_assert(pdh_value(f.r, (size_t)vbp, &v));
		n++;
	}
	ck_assert_int_eq(n, 61);
	ck_assert(v == 2.2e12);
	file_close(&f);
}
END_TEST

/* ---- guest disk names: mount points, letterless volumes and disks ---- */

static const char *gnorm(const char *s, enum gd_form *f)
{
	static char out[256];
	*f = guest_disk_norm(s, strlen(s), out, sizeof out);
	return out;
}

START_TEST(guest_disk_names)
{
	enum gd_form f;
	ck_assert_str_eq(gnorm("d:", &f), "D:");
	ck_assert_int_eq(f, GD_DRIVE);
	ck_assert_str_eq(gnorm("E:\\", &f), "E:"); /* the root of E: is the drive */
	ck_assert_int_eq(f, GD_DRIVE);
	ck_assert_str_eq(gnorm("e:\\SqlData\\", &f), "E:\\SQLDATA");
	ck_assert_int_eq(f, GD_MOUNT);
	ck_assert_str_eq(gnorm("C:\\ClusterStorage\\Volume 1", &f), "C:\\CLUSTERSTORAGE\\VOLUME 1");
	ck_assert_int_eq(f, GD_MOUNT);
	ck_assert_str_eq(gnorm("harddiskvolume5", &f), "HarddiskVolume5");
	ck_assert_int_eq(f, GD_VOLUME);
	ck_assert_str_eq(gnorm("\\\\?\\Volume{6A1E3C2B-0000-0000-0000-100000000000}\\", &f),
			 "\\\\?\\Volume{6a1e3c2b-0000-0000-0000-100000000000}");
	ck_assert_int_eq(f, GD_VOLUME);
	ck_assert_str_eq(gnorm("Volume{6a1e3c2b-0000-0000-0000-100000000000}", &f),
			 "\\\\?\\Volume{6a1e3c2b-0000-0000-0000-100000000000}");
	ck_assert_str_eq(gnorm("disk #02", &f), "Disk 2");
	ck_assert_int_eq(f, GD_DISKNO);
	ck_assert_str_eq(gnorm("_total", &f), "_Total");
	ck_assert_int_eq(f, GD_TOTAL);
	/* not a form of its own: upper case, as before */
	ck_assert_str_eq(gnorm("E:SQLDATA", &f), "E:SQLDATA");
	ck_assert_int_eq(f, GD_OTHER);
	ck_assert_str_eq(gnorm("HarddiskVolumeX", &f), "HARDDISKVOLUMEX");
	ck_assert_int_eq(f, GD_OTHER);
	ck_assert_int_eq(guest_disk_form("2", 1), GD_OTHER);
	ck_assert_int_eq(guest_disk_form("SQL01\\E:\\SQLDATA", 16), GD_OTHER);
	char small[6];
	guest_disk_norm("E:\\SQLDATA", 10, small, sizeof small); /* truncated, terminated */
	ck_assert_str_eq(small, "E:\\SQ");

	/* what the perfmon classifier makes of the instances */
	struct arena ar;
	arena_init(&ar);
	static const struct {
		const char *path, *entity;
		int pass, disk_no;
	} t[] = {
		{"\\\\SQL01\\LogicalDisk(E:\\SQLDATA)\\Avg. Disk sec/Read", "E:\\SQLDATA", 0, -1},
		{"\\\\sql01\\logicaldisk(e:\\sqldata\\)\\avg. disk sec/read", "E:\\SQLDATA", 0, -1},
		{"\\\\SQL01\\LogicalDisk(HarddiskVolume5)\\Avg. Disk sec/Read", "HarddiskVolume5", 0, -1},
		{"\\\\SQL01\\LogicalDisk(\\\\?\\Volume{abc}\\)\\Avg. Disk sec/Read", "\\\\?\\Volume{abc}", 0, -1},
		{"\\\\SQL01\\PhysicalDisk(0 C:)\\Avg. Disk sec/Read", "C:", 1, 0},
		{"\\\\SQL01\\PhysicalDisk(1 D: E:)\\Avg. Disk sec/Read", "D:", 1, 1},
		{"\\\\SQL01\\PhysicalDisk(2)\\Avg. Disk sec/Read", "Disk 2", 1, -1},
		{"\\\\SQL01\\PhysicalDisk(3 E:\\SQL DATA)\\Avg. Disk sec/Read", "E:\\SQL DATA", 1, -1},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		struct pdh_path p;
		struct counter_class cl;
		pdh_split_path(t[i].path, strlen(t[i].path), &p, &ar);
		ck_assert_int_eq(parser_perfmon.classify(&p, &cl), M_G_LAT_R);
		ck_assert_msg(strcmp(cl.entity, t[i].entity) == 0, "%s: entity '%s', not '%s'", t[i].path, cl.entity,
			      t[i].entity);
		ck_assert_int_eq(cl.pass, t[i].pass);
		ck_assert_int_eq(cl.disk_no, t[i].disk_no);
	}
	arena_free(&ar);
}
END_TEST

static int write_tmp(char *path, size_t cap, const char *text)
{
	snprintf(path, cap, "/tmp/iopsy-map-XXXXXX");
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	FILE *fp = fdopen(fd, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	return fclose(fp);
}

/* --map lines with mount paths: the host ends at the first backslash when a disk follows it, a
 * line may name no host, and what is not a guest disk is an error at its file:line:col. */
START_TEST(diskmap_mount_paths)
{
	char p[64];
	ck_assert_int_eq(write_tmp(p, sizeof p,
				   "SQL01\\E:\\SQLDATA = SQL01:scsi0:2\n"
				   "E:\\SQLLOG\\ = SQL01:scsi0:3\n"
				   "sql01\\harddiskvolume5 = SQL01:scsi0:4\n"
				   "SQL01\\2 = SQL01:scsi0:5\n"
				   "SQL01\\Disk 3 = SQL01:scsi0:6\n"
				   "SQL01\\\\\\?\\Volume{ABC}\\ = SQL01:scsi0:7\n"
				   "HarddiskVolume6 = SQL01:scsi0:8\n"
				   "SQL01\\d: = SQL01:scsi0:1\n"
				   "SQL01\\SQLDATA = SQL01:scsi0:9\n"       /* a folder without its drive */
				   "\\E:\\SQLDATA = SQL01:scsi0:9\n"        /* an empty host */
				   "SQL01\\ = SQL01:scsi0:9\n"              /* no disk */
				   "SQL01\\HOST2\\E: = SQL01:scsi0:9\n"     /* two hosts */
				   "E:SQLDATA = SQL01:scsi0:9\n"            /* the backslash missing */
				   "SQL01\\E:\\SQLDATA = nonsense\n"),
			 0);
	struct tdiag td;
	struct diskmap dm;
	ck_assert_int_eq(diskmap_read(&dm, p, tdiag_init(&td, p)), ERR_FORMAT);
	static const struct {
		const char *host, *disk, *vdisk;
	} want[] = {
		{"SQL01", "E:\\SQLDATA", "SQL01:scsi0:2"},
		{NULL, "E:\\SQLLOG", "SQL01:scsi0:3"},
		{"sql01", "HarddiskVolume5", "SQL01:scsi0:4"},
		{"SQL01", "Disk 2", "SQL01:scsi0:5"},
		{"SQL01", "Disk 3", "SQL01:scsi0:6"},
		{"SQL01", "\\\\?\\Volume{abc}", "SQL01:scsi0:7"},
		{NULL, "HarddiskVolume6", "SQL01:scsi0:8"},
		{"SQL01", "D:", "SQL01:scsi0:1"},
	};
	ck_assert_uint_eq(dm.n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < dm.n; i++) {
		if (want[i].host)
			ck_assert_str_eq(dm.l[i].guest_host, want[i].host);
		else
			ck_assert_ptr_null(dm.l[i].guest_host);
		ck_assert_str_eq(dm.l[i].guest_disk, want[i].disk);
		ck_assert_str_eq(dm.l[i].vdisk, want[i].vdisk);
		ck_assert_int_eq(dm.l[i].line, (long)i + 1);
	}
	const char *m = td.msgs.data;
	char x[128];
	static const char *const bad[] = {":9:7: error: 'SQL01\\SQLDATA' is not a guest disk",
					  ":10:1: error: '\\E:\\SQLDATA' has no guest host",
					  ":11:7: error: 'SQL01\\' has no disk after the guest host",
					  ":12:7: error: 'SQL01\\HOST2\\E:' is not a guest disk",
					  ":13:1: error: 'E:SQLDATA' is not a guest disk", ":14:"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		snprintf(x, sizeof x, "%s%s", p, bad[i]);
		ck_assert_msg(strstr(m, x) != NULL, "no '%s' in:\n%s", x, m);
	}
	for (int ln = 1; ln <= 8; ln++) {
		snprintf(x, sizeof x, "%s:%d:", p, ln);
		ck_assert_ptr_null(strstr(m, x));
	}
	diskmap_free(&dm);
	tdiag_free(&td);
	unlink(p);

	/* compare's --match-map splits the same way before a guest disk */
	struct matchmap mm;
	static const char mt[] = "SQL01\\E:\\SQLDATA = SQL01-NEW\\F:\\SQLDATA\nSQL01\\D: = naa.1\n";
	ck_assert_int_eq(matchmap_parse(&mm, mt, sizeof mt - 1, tdiag_init(&td, "m")), 0);
	ck_assert_uint_eq(mm.n, 2);
	ck_assert_str_eq(mm.l[0].host[0], "SQL01");
	ck_assert_str_eq(mm.l[0].name[0], "E:\\SQLDATA");
	ck_assert_str_eq(mm.l[0].host[1], "SQL01-NEW");
	ck_assert_str_eq(mm.l[0].name[1], "F:\\SQLDATA");
	ck_assert_str_eq(mm.l[1].host[0], "SQL01");
	ck_assert_str_eq(mm.l[1].name[0], "D:");
	matchmap_free(&mm);
	tdiag_free(&td);
}
END_TEST


/* ---- several threads (mtread.h) ---- */

/* What one thread reads, every thread count reads: rows, lines, texts, values, skipped rows and
 * every message in the same order, for chunks from one byte (every line its own chunk, a
 * chunk end inside every line) to the default, on the scanner's shapes, blank and unterminated
 * lines, CR-only files, UTF-16 and a line too long for chunks (the one-thread reader takes over
 * there); and from files: gzip members, truncated and corrupt gzip (the error after the same
 * rows). */
static void threads_same(const char *what, const char *text, size_t len, uint8_t sel, bool all_chunks)
{
	static const char *const chunks[] = {"1", "7", "64", "1000", "100000", NULL};
	struct buf ref;
	buf_init(&ref);
	dump_threads = 1;
	unsetenv("IOPSY_THREAD_CHUNK");
	dump_parse(&ref, text, len, false, sel);
	ck_assert_msg(strncmp(ref.data, "open 0", 6) == 0, "%s: not opened: %.300s", what, ref.data);
	for (int th = 2; th <= 3; th++) {
		for (size_t c = 0; c < sizeof chunks / sizeof chunks[0]; c++) {
			if (!all_chunks && chunks[c] && strcmp(chunks[c], "1000") != 0)
				continue;
			if (chunks[c])
				setenv("IOPSY_THREAD_CHUNK", chunks[c], 1);
			else
				unsetenv("IOPSY_THREAD_CHUNK");
			dump_threads = th;
			struct buf got;
			buf_init(&got);
			dump_parse(&got, text, len, false, sel);
			ck_assert_msg(ref.len == got.len && memcmp(ref.data, got.data, ref.len) == 0,
				      "%s: %d threads, chunk %s differ from one thread:\n%.600s\n---\n%.600s", what, th,
				      chunks[c] ? chunks[c] : "default", ref.data, got.data);
			buf_free(&got);
		}
	}
	dump_threads = 0;
	unsetenv("IOPSY_THREAD_CHUNK");
	buf_free(&ref);
}

START_TEST(threads_match_one_thread)
{
	struct {
		size_t ncols, nrows;
		bool glue, tsv, crlf;
		unsigned tricky;
	} shapes[] = {
		{12, 200, false, false, false, 0}, {40, 300, true, false, true, 8}, {7, 400, true, true, false, 10},
		{3000, 6, true, false, false, 1},  {90, 200, true, false, false, 40},
	};
	for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
		rng_state = 4000 + k;
		struct buf cap;
		buf_init(&cap);
		make_capture(&cap, shapes[k].ncols, shapes[k].nrows, shapes[k].glue, shapes[k].tsv, shapes[k].crlf,
			     shapes[k].tricky);
		char what[32];
		snprintf(what, sizeof what, "shape %zu", k);
		threads_same(what, cap.data, cap.len, 0, true);
		threads_same(what, cap.data, cap.len, 0x24, false);
		/* cut short inside the last line (no terminator), and inside a quote */
		threads_same(what, cap.data, cap.len - 3, 0, true);
		buf_free(&cap);
	}
	static const char *const texts[] = {
		/* blank lines, blanks only, an empty time stamp, CRLF */
		"\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\M\\A\",\"\\\\h\\M\\B\"\r\n\r\n   \r\n"
		"\"07/27/2026 13:10:00\",\"1\",\"2\"\r\n\t\r\n\"07/27/2026 13:10:01\",\"3\",\"x\"\r\n\r\n"
		"\"\",\"5\",\"6\"\r\n\"07/27/2026 13:10:03\",\"7\",\"8\"\r\n\r\n",
		/* CR-only, an open quote, a row too long, the last one unterminated */
		"\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\M\\A\",\"\\\\h\\M\\B\"\r\"07/27/2026 13:10:00\",\"1\",\"2\"\r"
		"\"07/27/2026 13:10:01\",\"3,\"4\"\r\"07/27/2026 13:10:02\",\"5\",\"6\",\"7\"\r\"07/27/2026 13:10:03\",\"9\",\"9",
		/* UTF-16LE with a BOM */
		"\xff\xfe\"\0(\0P\0D\0H\0-\0C\0S\0V\0 \0004\0.\0000\0)\0\"\0,\0\"\0\\\0\\\0h\0\\\0M\0\\\0A\0\"\0\n\0"
		"\"\0000\0007\0/\0002\0007\0/\0002\0000\0002\0006\0 \0001\0003\0:\0001\0000\0:\0000\0000\0\"\0,\0\"\0001\0\"\0\n\0",
	};
	static const size_t text_len[] = {0, 0, 88};
	for (size_t k = 0; k < sizeof texts / sizeof texts[0]; k++) {
		char what[32];
		snprintf(what, sizeof what, "text %zu", k);
		threads_same(what, texts[k], text_len[k] ? text_len[k] : strlen(texts[k]), 0, true);
	}
	/* a line longer than MTREAD_MAX_LINE between ordinary rows: the rest of the input is read by
	 * one thread from that line on */
	struct buf big;
	buf_init(&big);
	buf_adds(&big, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\M\\A\",\"\\\\h\\M\\B\"\n");
	for (int i = 0; i < 50; i++)
		buf_printf(&big, "\"07/27/2026 13:10:%02d\",\"%d\",\"2\"\n", i, i);
	buf_adds(&big, "\"07/27/2026 13:11:00\",\"");
	size_t at = big.len;
	buf_reserve(&big, MTREAD_MAX_LINE + 64);
	memset(big.data + at, '7', MTREAD_MAX_LINE + 16);
	big.len += MTREAD_MAX_LINE + 16;
	buf_adds(&big, "\",\"1\"\n");
	for (int i = 0; i < 50; i++)
		buf_printf(&big, "\"07/27/2026 13:12:%02d\",\"%d\",\"2\"\n", i, i);
	threads_same("long line", big.data, big.len, 0x02, false);
	buf_free(&big);
}
END_TEST

/* Files with several threads: gzip members and damaged gzip give the rows and the error of one
 * thread (the pulls' messages come after the same rows). */
START_TEST(threads_files_match_one_thread)
{
	struct buf cap;
	buf_init(&cap);
	rng_state = 9;
	make_capture(&cap, 200, 1500, true, false, false, 1);
	size_t cut = cap.len / 3 + 17;
	struct buf gz[4];
	for (int k = 0; k < 4; k++)
		buf_init(&gz[k]);
	buf_add(&gz[0], cap.data, cap.len);
	gz_member(&gz[1], cap.data, cut, 6);
	gz_member(&gz[1], cap.data + cut, cap.len - cut, 1);
	gz_member(&gz[2], cap.data, cap.len, 6);
	gz[2].len = gz[2].len * 2 / 3;
	gz_member(&gz[3], cap.data, cap.len, 6);
	memset(gz[3].data + gz[3].len / 2, 0xff, 64);
	for (int k = 0; k < 4; k++) {
		char *path = write_temp(gz[k].data, gz[k].len);
		struct buf ref;
		buf_init(&ref);
		dump_threads = 1;
		dump_file(&ref, path);
		static const char *const chunks[] = {"1", "333", "65536", NULL};
		for (size_t c = 0; c < 4; c++) {
			if (chunks[c])
				setenv("IOPSY_THREAD_CHUNK", chunks[c], 1);
			else
				unsetenv("IOPSY_THREAD_CHUNK");
			dump_threads = 2;
			struct buf got;
			buf_init(&got);
			dump_file(&got, path);
			ck_assert_msg(strcmp(ref.data, got.data) == 0, "file %d, chunk %s: two threads differ", k,
				      chunks[c] ? chunks[c] : "default");
			buf_free(&got);
		}
		dump_threads = 0;
		unsetenv("IOPSY_THREAD_CHUNK");
		buf_free(&ref);
		unlink(path);
	}
	for (int k = 0; k < 4; k++)
		buf_free(&gz[k]);
	buf_free(&cap);
}
END_TEST

/* --format that the header contradicts: read as asked, with a warning at the header's line */
START_TEST(forced_format_contradicted)
{
	static const char perf[] = "junk line\n\"(PDH-CSV 4.0) (Pacific Daylight Time)(420)\",\"\\\\SQL01\\LogicalDisk(D:)\\Disk Reads/sec\"\n"
				   "\"07/27/2026 06:10:00.000\",\"1\"\n";
	struct pdh_options o = {.max_warnings = -1, .format = "esxtop"};
	struct cap c;
	cap_parse(&c, S(perf), &o);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert_msg(c.msgs.data && strstr(c.msgs.data, "t.csv:2: warning: the header looks like perfmon, read as esxtop "
							 "as --format says"), "got: %s", c.msgs.data ? c.msgs.data : "");
	cap_free(&c);
	/* the format the header shows: no warning */
	o.format = "perfmon";
	cap_parse(&c, S(perf), &o);
	ck_assert_int_eq(c.open_rc, 0);
	ck_assert(!c.msgs.data || !strstr(c.msgs.data, "looks like"));
	cap_free(&c);
	/* esxtop's own objects make it certain: forced perfmon is said too; forced esxtop is not */
	o.format = "perfmon";
	cap_parse(&c, S(esx_default), &o);
	ck_assert(c.msgs.data && strstr(c.msgs.data, "t.csv:1: warning: the header looks like esxtop, read as perfmon"));
	cap_free(&c);
	o.format = "esxtop";
	cap_parse(&c, S(esx_default), &o);
	ck_assert(!c.msgs.data || !strstr(c.msgs.data, "looks like"));
	cap_free(&c);
}
END_TEST

Suite *pdh_suite(void)
{
	Suite *s = suite_create("pdh");
	TCase *tc = tcase_create("quirks");
	tcase_add_test(tc, esxtop_default_trailing_comma);
	tcase_add_test(tc, forced_format_contradicted);
	tcase_add_test(tc, guest_disk_names);
	tcase_add_test(tc, diskmap_mount_paths);
	tcase_add_test(tc, esxtop_all_counters_no_trailing);
	tcase_add_test(tc, esxtop_glued_pcpu_power_state);
	tcase_add_test(tc, path_split);
	tcase_add_test(tc, path_split_equals_reference);
	tcase_add_test(tc, header_fast_matches_libcsv);
	tcase_add_test(tc, junk_before_header);
	tcase_add_test(tc, truncated_last_line);
	tcase_add_test(tc, wrong_field_count_skipped);
	tcase_add_test(tc, perfmon_bias_missing_exponent_crlf);
	tcase_add_test(tc, perfmon_tsv_lf_and_cr);
	tcase_add_test(tc, perfmon_no_bias_tz_fallback);
	tcase_add_test(tc, perfmon_dst_repeated_hour);
	tcase_add_test(tc, perfmon_dst_spring_forward);
	tcase_add_test(tc, excel_minutes_refused);
	tcase_add_test(tc, time_backwards_esxtop);
	tcase_add_test(tc, bom_utf8_and_utf16);
	tcase_add_test(tc, description_column_and_lowercase);
	tcase_add_test(tc, numeric_last_column_kept);
	tcase_add_test(tc, excel_resaved);
	tcase_add_test(tc, not_a_capture);
	tcase_add_test(tc, header_only_and_ansi_bytes);
	tcase_add_test(tc, gzip_file);
	tcase_add_test(tc, small_reads_same_text);
	tcase_add_test(tc, timestamps);
	tcase_add_test(tc, fast_path_matches_libcsv);
	tcase_add_test(tc, fieldscan_levels_match_libcsv);
	tcase_add_test(tc, fieldscan_levels_match_scalar);
	tcase_add_test(tc, fieldscan_dispatch);
	tcase_add_test(tc, gzip_engines_and_thread_agree);
	tcase_add_test(tc, gzip_pipe_close_early);
	tcase_add_test(tc, threads_match_one_thread);
	tcase_add_test(tc, threads_files_match_one_thread);
	suite_add_tcase(s, tc);
	TCase *real = tcase_create("real-files");
	tcase_add_test(real, real_powershell_csv_and_tsv);
	tcase_add_test(real, real_japanese_cp932);
	tcase_add_test(real, real_excel_resaved);
	suite_add_tcase(s, real);
	return s;
}
