/* check_util.c — unit tests for util (numbers, time, escaping, arena, atomic files) and json. */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "match.h"
#include "suites.h"
#include "util.h"

START_TEST(numbers)
{
	double v;
	ck_assert(parse_number("12.34", 5, &v) && v == 12.34);
	ck_assert(parse_number(" 0.00 ", 6, &v) && v == 0);
	ck_assert(parse_number("-3", 2, &v) && v == -3);
	ck_assert(parse_number("9.0381772607494055e-005", 23, &v) && fabs(v - 9.0381772607494055e-5) < 1e-20);
	ck_assert(parse_number("2.20E+12", 8, &v) && v == 2.2e12);
	ck_assert(parse_number("86.918513403953639", 18, &v) && fabs(v - 86.918513403953639) < 1e-12);
	ck_assert(!parse_number(" ", 1, &v));
	ck_assert(!parse_number("", 0, &v));
	ck_assert(!parse_number("abc", 3, &v));
	ck_assert(!parse_number("0x10", 4, &v));
	ck_assert(!parse_number("inf", 3, &v));
	ck_assert(!parse_number("nan", 3, &v));
	ck_assert(!parse_number("1.5.2", 5, &v));
	ck_assert(!parse_number("12,5", 4, &v)); /* decimal comma is not a number here */
}
END_TEST

START_TEST(iso_time)
{
	char t[32];
	time_format_iso(0, false, t);
	ck_assert_str_eq(t, "1970-01-01T00:00:00Z");
	int64_t ms;
	ck_assert_int_eq(time_parse_iso("2026-07-27T13:10:00Z", &ms), 0);
	time_format_iso(ms, true, t);
	ck_assert_str_eq(t, "2026-07-27T13:10:00Z");
	ck_assert_int_eq(time_parse_iso("2024-02-29 23:59:59.5", &ms), 0);
	time_format_iso(ms, true, t);
	ck_assert_str_eq(t, "2024-02-29T23:59:59.500Z");
	ck_assert_int_lt(time_parse_iso("2024-13-01T00:00:00Z", &ms), 0);
	ck_assert_int_lt(time_parse_iso("yesterday", &ms), 0);
}
END_TEST

START_TEST(text_escape)
{
	struct buf b;
	buf_init(&b);
	buf_add_text_escaped(&b, "a\x93\x81 \xe6\x97\xa5\n", 8);
	ck_assert_str_eq(b.data, "a\\x93\\x81 \xe6\x97\xa5\\x0A");
	ck_assert(utf8_valid("\xe6\x97\xa5", 3));
	ck_assert(!utf8_valid("\x93", 1));
	ck_assert(!utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
	buf_free(&b);
}
END_TEST

START_TEST(json_writer)
{
	struct buf b;
	buf_init(&b);
	struct json j;
	json_init(&j, &b, false);
	json_obj_begin(&j);
	json_key(&j, "path");
	json_str(&j, "\\\\h\\Obj(x)\\C\"</script>\x01\x93");
	json_key(&j, "nan");
	json_num(&j, NAN);
	json_key(&j, "v");
	json_num(&j, 1.5);
	json_key(&j, "a");
	json_arr_begin(&j);
	json_int(&j, 1);
	json_bool(&j, true);
	json_null(&j);
	json_arr_end(&j);
	json_key(&j, "e");
	json_obj_begin(&j);
	json_obj_end(&j);
	json_obj_end(&j);
	ck_assert_str_eq(b.data, "{\"path\":\"\\\\\\\\h\\\\Obj(x)\\\\C\\\"\\u003c/script\\u003e\\u0001\\\\x93\","
				 "\"nan\":null,\"v\":1.5,\"a\":[1,true,null],\"e\":{}}");
	buf_free(&b);
}
END_TEST

START_TEST(arena_many)
{
	struct arena a;
	arena_init(&a);
	char *big = arena_alloc(&a, 200000);
	memset(big, 1, 200000);
	for (int i = 0; i < 10000; i++) {
		char *s = arena_strdup(&a, "Physical Disk SCSI Device");
		ck_assert_str_eq(s, "Physical Disk SCSI Device");
	}
	arena_free(&a);
}
END_TEST

START_TEST(atomic_file)
{
	char dir[] = "/tmp/iopsy-test-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char path[256];
	snprintf(path, sizeof path, "%s/out.csv", dir);
	FILE *fp = fopen(path, "w");
	fputs("old report\n", fp);
	fclose(fp);
	struct afile af;
	ck_assert_int_eq(afile_open(&af, path), 0);
	fputs("new", af.fp);
	afile_abort(&af); /* an aborted write leaves the old file intact */
	char got[64] = {0};
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(got, sizeof got, fp));
	fclose(fp);
	ck_assert_str_eq(got, "old report\n");
	ck_assert_int_eq(afile_open(&af, path), 0);
	fputs("new\n", af.fp);
	ck_assert_int_eq(afile_commit(&af), 0);
	fp = fopen(path, "r");
	ck_assert_ptr_nonnull(fgets(got, sizeof got, fp));
	fclose(fp);
	ck_assert_str_eq(got, "new\n");
	unlink(path);
	ck_assert_int_eq(rmdir(dir), 0); /* no temporary left behind */
}
END_TEST

START_TEST(regex_limits)
{
	struct buf err;
	buf_init(&err);
	struct matcher *m = matcher_new("average (driver|kernel) millisec", true, DIAG_INTO(&err));
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(matcher_match(m, "\\\\h\\Physical Disk SCSI Device(naa.1)\\Average Driver MilliSec/Command", 66, DIAG_INTO(&err)), 1);
	ck_assert_int_eq(matcher_match(m, "Average Guest MilliSec", 22, DIAG_INTO(&err)), 0);
	matcher_free(m);
	m = matcher_new("(a+)+$", true, DIAG_INTO(&err));
	ck_assert_ptr_nonnull(m);
	char s[64];
	memset(s, 'a', 40);
	s[40] = 'b';
	ck_assert_int_eq(matcher_match(m, s, 41, DIAG_INTO(&err)), ERR_LIMIT);
	ck_assert_ptr_nonnull(strstr(err.data, "regex gave up"));
	matcher_free(m);
	buf_reset(&err);
	ck_assert_ptr_null(matcher_new("(unclosed", true, DIAG_INTO(&err)));
	ck_assert_ptr_nonnull(strstr(err.data, "offset"));
	buf_free(&err);
}
END_TEST

/* Reproducers of the fuzzing campaign (tests/fuzz/regress/) that only a unit test can reach. */
START_TEST(fuzz_regressions)
{
	char t[32];
	time_format_iso(INT64_MIN, true, t); /* overflowed (UBSan) */
	ck_assert_str_eq(t, "invalid-time");
	time_format_iso(INT64_MAX, true, t);
	ck_assert_str_eq(t, "invalid-time");
	time_format_iso(253402300799999LL, true, t);
	ck_assert_str_eq(t, "9999-12-31T23:59:59.999Z");
	struct buf b;
	buf_init(&b);
	struct json j;
	json_init(&j, &b, false);
	json_arr_begin(&j);
	json_num(&j, 1e300); /* cast to long long before the range check (UBSan) */
	json_num(&j, -9.3e18);
	json_num(&j, 12);
	json_arr_end(&j);
	ck_assert_str_eq(b.data, "[1e+300,-9.3e+18,12]");
	buf_free(&b);
	buf_init(&b);
	buf_add_text_escaped(&b, "", 0); /* printed with %s: must be a string, not NULL */
	ck_assert_ptr_nonnull(b.data);
	ck_assert_str_eq(b.data, "");
	buf_free(&b);
	/* a benign pattern on a long name ran out of JIT stack */
	char name[5001];
	memset(name, 'a', 5000);
	name[5000] = '\0';
	buf_init(&b);
	struct matcher *m = matcher_new("(a|b)*$", false, DIAG_INTO(&b));
	ck_assert_ptr_nonnull(m);
	ck_assert_int_eq(matcher_match(m, name, 5000, DIAG_INTO(&b)), 1);
	matcher_free(m);
	buf_free(&b);
}
END_TEST

Suite *util_suite(void)
{
	Suite *s = suite_create("util");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, numbers);
	tcase_add_test(tc, iso_time);
	tcase_add_test(tc, text_escape);
	tcase_add_test(tc, json_writer);
	tcase_add_test(tc, arena_many);
	tcase_add_test(tc, atomic_file);
	tcase_add_test(tc, regex_limits);
	tcase_add_test(tc, fuzz_regressions);
	suite_add_tcase(s, tc);
	return s;
}
