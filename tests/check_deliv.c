/* check_deliv.c — the deliverable report (issue 15): IANA time zones across DST changes (tz.c and
 * the perfmon reader with --tz), the executive summary and its recommendations, the logo check. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ltime.h"
#include "pdh.h"
#include "source.h"
#include "suites.h"
#include "tz.h"
#include "util.h"

static int64_t utc(int y, int mo, int d, int h, int mi, int s)
{
	return (days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s);
}

static bool have_zone(struct tz *z, const char *name)
{
	struct buf why;
	buf_init(&why);
	int rc = tz_load(z, name, &why);
	buf_free(&why);
	return rc == 0;
}

START_TEST(tz_fixed_and_parse)
{
	struct tz z;
	struct buf why;
	buf_init(&why);
	ck_assert_int_eq(tz_parse(&z, "+05:30", &why), 0);
	ck_assert(z.fixed);
	ck_assert_int_eq(z.off, 5 * 3600 + 1800);
	ck_assert_str_eq(z.name, "UTC+05:30");
	ck_assert_int_eq(tz_parse(&z, "-0800", &why), 0);
	ck_assert_int_eq(z.off, -8 * 3600);
	ck_assert_int_eq(tz_parse(&z, "UTC-8", &why), 0);
	ck_assert_int_eq(z.off, -8 * 3600);
	ck_assert_int_eq(tz_parse(&z, "UTC", &why), 0);
	ck_assert_int_eq(z.off, 0);
	ck_assert_int_eq(tz_parse(&z, "+25:00", &why), ERR_USAGE);
	/* issue 38: an empty zone and an offset past 14 hours are refused, not read as UTC */
	ck_assert_int_eq(tz_parse(&z, "", &why), ERR_USAGE);
	ck_assert_int_eq(tz_parse(&z, "+14:01", &why), ERR_USAGE);
	ck_assert_int_eq(tz_parse(&z, "+1401", &why), ERR_USAGE);
	ck_assert_int_eq(tz_parse(&z, "-14:30", &why), ERR_USAGE);
	ck_assert_int_eq(tz_parse(&z, "+14:00", &why), 0);
	/* names that could leave the zone folder, or are not names at all */
	ck_assert_int_eq(tz_parse(&z, "../../etc/passwd", &why), ERR_USAGE);
	ck_assert_int_eq(tz_parse(&z, "/etc/localtime", &why), ERR_USAGE);
	ck_assert_int_eq(tz_parse(&z, "Mars/Olympus", &why), ERR_USAGE);
	ck_assert_int_eq(tz_parse(&z, "Europe/Berlin;rm -rf", &why), ERR_USAGE);
	ck_assert_int_eq(tz_local_to_utc_ms(&(struct tz){.fixed = true, .off = 3600}, 7200000, INT64_MIN), 3600000);
	buf_free(&why);
}
END_TEST

/* a mistyped zone: "unknown time zone" with the closest names of the zone folder; tzdata is named
 * only when the folder itself is missing */
START_TEST(tz_unknown_suggests)
{
	char dir[] = "/tmp/iopsy-tzdir-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char p[256];
	snprintf(p, sizeof p, "%s/Europe", dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	const char *files[] = {"Europe/Berlin", "Europe/Bern", "Europe/Paris", "zone.tab", NULL};
	for (size_t i = 0; files[i]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		FILE *f = fopen(p, "w");
		ck_assert_ptr_nonnull(f);
		fclose(f);
	}
	setenv("TZDIR", dir, 1);
	struct tz z;
	struct buf why;
	buf_init(&why);
	ck_assert_int_eq(tz_load(&z, "Europe/Berln", &why), ERR_USAGE);
	ck_assert_str_eq(why.data, "unknown time zone; did you mean Europe/Berlin or Europe/Bern?");
	buf_reset(&why);
	ck_assert_int_eq(tz_load(&z, "Europe/Prais", &why), ERR_USAGE);
	ck_assert_str_eq(why.data, "unknown time zone; did you mean Europe/Paris?");
	buf_reset(&why);
	ck_assert_int_eq(tz_load(&z, "Mars/Olympus", &why), ERR_USAGE);
	ck_assert_str_eq(why.data, "unknown time zone");
	buf_reset(&why);
	snprintf(p, sizeof p, "%s/missing", dir);
	setenv("TZDIR", p, 1);
	ck_assert_int_eq(tz_load(&z, "Europe/Berlin", &why), ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(why.data, "no time-zone database"));
	ck_assert_ptr_nonnull(strstr(why.data, "tzdata"));
	buf_free(&why);
	for (size_t i = 0; files[i]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		unlink(p);
	}
	snprintf(p, sizeof p, "%s/Europe", dir);
	rmdir(p);
	rmdir(dir);
}
END_TEST

START_TEST(tz_posix_rule)
{
	struct tz_rule r;
	ck_assert_int_eq(tz_rule_parse(&r, "CET-1CEST,M3.5.0,M10.5.0/3"), 0);
	ck_assert_int_eq(r.std_off, 3600);
	ck_assert_int_eq(r.dst_off, 7200);
	ck_assert_int_eq(tz_rule_parse(&r, "<+0330>-3:30"), 0);
	ck_assert_int_eq(r.std_off, 3 * 3600 + 1800);
	ck_assert(!r.has_dst);
	ck_assert_int_eq(tz_rule_parse(&r, "AEST-10AEDT,M10.1.0,M4.1.0/3"), 0);
	ck_assert_int_eq(tz_rule_parse(&r, "garbage"), ERR_FORMAT);
	ck_assert_int_eq(tz_rule_parse(&r, "EST5EDT"), ERR_FORMAT);
	/* a zone made only of its rule (a "slim" TZif file past its last transition) */
	struct tz z = {.ntypes = 1};
	struct tz_type ty = {.off = 3600};
	z.types = &ty;
	int64_t tr = 0;
	uint8_t tt = 0;
	z.trans = &tr;
	z.trans_type = &tt;
	z.ntrans = 1;
	tz_rule_parse(&z.rule, "CET-1CEST,M3.5.0,M10.5.0/3");
	const char *ab;
	/* 2040: DST from Sun 25 March 01:00 UTC to Sun 28 October 01:00 UTC */
	ck_assert_int_eq(tz_offset_at(&z, utc(2040, 3, 25, 0, 59, 59), &ab), 3600);
	ck_assert_str_eq(ab, "CET");
	ck_assert_int_eq(tz_offset_at(&z, utc(2040, 3, 25, 1, 0, 0), &ab), 7200);
	ck_assert_str_eq(ab, "CEST");
	ck_assert_int_eq(tz_offset_at(&z, utc(2040, 10, 28, 0, 59, 59), NULL), 7200);
	ck_assert_int_eq(tz_offset_at(&z, utc(2040, 10, 28, 1, 0, 0), NULL), 3600);
	/* southern hemisphere: DST over new year */
	tz_rule_parse(&z.rule, "AEST-10AEDT,M10.1.0,M4.1.0/3");
	ck_assert_int_eq(tz_offset_at(&z, utc(2040, 1, 15, 0, 0, 0), NULL), 11 * 3600);
	ck_assert_int_eq(tz_offset_at(&z, utc(2040, 7, 15, 0, 0, 0), NULL), 10 * 3600);
}
END_TEST

START_TEST(tz_berlin_dst)
{
	struct tz z;
	if (!have_zone(&z, "Europe/Berlin")) {
		fprintf(stderr, "check_deliv: no Europe/Berlin in the zone database (install tzdata): skipped\n");
		return;
	}
	const char *ab;
	/* 2026: CEST from 29 March 01:00 UTC to 25 October 01:00 UTC */
	ck_assert_int_eq(tz_offset_at(&z, utc(2026, 3, 29, 0, 59, 59), &ab), 3600);
	ck_assert_str_eq(ab, "CET");
	ck_assert_int_eq(tz_offset_at(&z, utc(2026, 3, 29, 1, 0, 0), &ab), 7200);
	ck_assert_str_eq(ab, "CEST");
	ck_assert_int_eq(tz_offset_at(&z, utc(2026, 10, 25, 0, 59, 59), NULL), 7200);
	ck_assert_int_eq(tz_offset_at(&z, utc(2026, 10, 25, 1, 0, 0), NULL), 3600);
	/* local to UTC: either side of the spring change */
	ck_assert_int_eq(tz_local_to_utc_ms(&z, utc(2026, 3, 29, 1, 59, 0) * 1000, INT64_MIN), utc(2026, 3, 29, 0, 59, 0) * 1000);
	ck_assert_int_eq(tz_local_to_utc_ms(&z, utc(2026, 3, 29, 3, 0, 0) * 1000, INT64_MIN), utc(2026, 3, 29, 1, 0, 0) * 1000);
	/* autumn: 02:30 happens twice; the second after a row at 02:59 CEST */
	ck_assert_int_eq(tz_local_to_utc_ms(&z, utc(2026, 10, 25, 2, 30, 0) * 1000, INT64_MIN), utc(2026, 10, 25, 0, 30, 0) * 1000);
	ck_assert_int_eq(tz_local_to_utc_ms(&z, utc(2026, 10, 25, 2, 30, 0) * 1000, utc(2026, 10, 25, 0, 59, 0) * 1000),
			 utc(2026, 10, 25, 1, 30, 0) * 1000);
	tz_free(&z);
	if (have_zone(&z, "America/New_York")) {
		ck_assert_int_eq(tz_offset_at(&z, utc(2026, 7, 1, 12, 0, 0), &ab), -4 * 3600);
		ck_assert_str_eq(ab, "EDT");
		ck_assert_int_eq(tz_offset_at(&z, utc(2026, 12, 1, 12, 0, 0), &ab), -5 * 3600);
		tz_free(&z);
	}
}
END_TEST

/* A perfmon capture without a bias (typeperf) across the spring and the autumn change, read with
 * --tz Europe/Berlin: every row gets the offset of its own time, UTC stays continuous, and the
 * reader's fixed-bias DST guesses stay quiet. */
START_TEST(tz_perfmon_across_dst)
{
	struct tz z;
	if (!have_zone(&z, "Europe/Berlin"))
		return;
	static const char text[] = "\"(PDH-CSV 4.0)\",\"\\\\SQL01\\LogicalDisk(D:)\\Disk Transfers/sec\"\r\n"
				   "\"03/29/2026 01:58:00.000\",\"1\"\r\n"
				   "\"03/29/2026 01:59:00.000\",\"2\"\r\n"
				   "\"03/29/2026 03:00:00.000\",\"3\"\r\n"
				   "\"03/29/2026 03:01:00.000\",\"4\"\r\n"
				   "\"10/25/2026 02:58:00.000\",\"5\"\r\n"
				   "\"10/25/2026 02:59:00.000\",\"6\"\r\n"
				   "\"10/25/2026 02:00:00.000\",\"7\"\r\n"
				   "\"10/25/2026 02:01:00.000\",\"8\"\r\n";
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	diag_init(&d, "t.csv", -1);
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = &msgs};
	struct source src;
	source_open_mem(&src, "t.csv", text, sizeof text - 1, &d);
	struct pdh_options o = {.max_warnings = -1, .tz = &z, .tz_given = true};
	struct pdh_reader *r;
	ck_assert_int_eq(pdh_open(&r, &src, &o, &d), 0);
	static const int exp[8][3] = {{3, 29, 58}, {3, 29, 59}, {3, 29, 60}, {3, 29, 61},
				      {10, 25, 58}, {10, 25, 59}, {10, 25, 60}, {10, 25, 61}};
	struct pdh_row row;
	int n = 0;
	while (pdh_next(r, &row) == 1 && n < 8) {
		/* minutes after 00:00 UTC of that day */
		ck_assert_int_eq(row.t_ms, utc(2026, exp[n][0], exp[n][1], 0, exp[n][2], 0) * 1000);
		n++;
	}
	ck_assert_int_eq(n, 8);
	ck_assert_msg(!strstr(msgs.data ? msgs.data : "", "daylight saving"), "%s", msgs.data);
	pdh_close(r);
	source_close(&src);
	buf_free(&msgs);
	tz_free(&z);
}
END_TEST

/* Perfmon headers with different biases (a before side in summer time, an after side in winter
 * time): each capture's times are said in its own header's offset, and the zone names both. */
START_TEST(ltime_per_capture_bias)
{
	struct capture cb = {0}, ca = {0};
	cb.host = "SQL01";
	cb.rows = 10;
	cb.bias_known = true;
	cb.bias_min = 420; /* PDT: UTC-07:00 */
	cb.start = 1793455200000LL; /* 2026-10-31T14:00:00Z */
	cb.end = cb.start + 600000;
	ca = cb;
	ca.bias_min = 480; /* PST */
	ca.start = 1793541600000LL; /* 2026-11-01T14:00:00Z */
	ca.end = ca.start + 600000;
	struct model before = {0}, after = {0};
	before.caps = &cb;
	before.ncaps = 1;
	after.caps = &ca;
	after.ncaps = 1;
	struct ltime lt;
	ltime_init(&lt, &after, &before); /* as compare's reports call it */
	ck_assert(lt.known);
	ck_assert_int_eq(tz_offset_at(&lt.z, cb.start / 1000, NULL), -7 * 3600);
	ck_assert_int_eq(tz_offset_at(&lt.z, cb.end / 1000, NULL), -7 * 3600);
	ck_assert_int_eq(tz_offset_at(&lt.z, ca.start / 1000, NULL), -8 * 3600);
	ck_assert_str_eq(lt.z.name, "UTC-07:00, then UTC-08:00");
	struct buf b;
	buf_init(&b);
	ltime_local(&b, &lt, cb.start, false);
	ck_assert_str_eq(b.data, "07:00:00");
	buf_reset(&b);
	ltime_local(&b, &lt, ca.start, false);
	ck_assert_str_eq(b.data, "06:00:00");
	buf_free(&b);
	/* a clock that goes back inside one file (pdh_stats.dst_*): the offset changes there */
	cb.ndst = 1;
	cb.dst_at[0] = cb.start + 300000;
	cb.dst_off_min[0] = -480;
	ca.bias_min = 420;
	ltime_init(&lt, &before, NULL);
	ck_assert_int_eq(tz_offset_at(&lt.z, cb.start / 1000, NULL), -7 * 3600);
	ck_assert_int_eq(tz_offset_at(&lt.z, cb.end / 1000, NULL), -8 * 3600);
	cb.ndst = 0;
	/* one bias: one fixed offset, as before */
	ca.bias_min = 420;
	ltime_init(&lt, &after, &before);
	ck_assert(lt.z.fixed);
	ck_assert_int_eq(tz_offset_at(&lt.z, ca.start / 1000, NULL), -7 * 3600);
}
END_TEST

Suite *deliv_suite(void)
{
	Suite *s = suite_create("deliv");
	TCase *tc = tcase_create("tz");
	tcase_add_test(tc, tz_fixed_and_parse);
	tcase_add_test(tc, tz_unknown_suggests);
	tcase_add_test(tc, tz_posix_rule);
	tcase_add_test(tc, tz_berlin_dst);
	tcase_add_test(tc, tz_perfmon_across_dst);
	tcase_add_test(tc, ltime_per_capture_bias);
	suite_add_tcase(s, tc);
	return s;
}
