/* check_util.c — unit tests for util (numbers, time, escaping, arena, atomic files), json and stats
 * (the staged quantile sketch against the one it replaced, the downsampled series). */
#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "json.h"
#include "match.h"
#include "stats.h"
#include "suggest.h"
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

/* ---- stats ---- */

/* The sketch before staging: every value counted in its bucket at once (the reference). */
struct ref_sketch {
	uint64_t n, zeros;
	double min, max;
	uint32_t b[QS_BUCKETS];
};

static double ref_log2(double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	int e = (int)((bits >> 52) & 0x7ff) - 1023;
	bits = (bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull;
	double m;
	memcpy(&m, &bits, sizeof m);
	double t = m - 1.0;
	double p = t * (1.4425449 + t * (-0.7181452 + t * (0.4575485 + t * (-0.2779042 + t * (0.1217970 - t * 0.0258411)))));
	return (double)e + p;
}

static void ref_add(struct ref_sketch *r, double v)
{
	if (!isfinite(v))
		return;
	if (v < 0)
		v = 0;
	r->n++;
	if (v < r->min)
		r->min = v;
	if (v > r->max)
		r->max = v;
	if (v < 1e-4) {
		r->zeros++;
		return;
	}
	int i = (int)(ref_log2(v / 1e-4) / log2(1.02));
	r->b[i < 0 ? 0 : i >= QS_BUCKETS ? QS_BUCKETS - 1 : i]++;
}

static double ref_quantile(const struct ref_sketch *r, double p)
{
	if (!r->n)
		return NAN;
	if (p <= 0)
		return r->min;
	if (p >= 1)
		return r->max;
	uint64_t need = (uint64_t)(p * (double)(r->n - 1)) + 1, acc = r->zeros;
	if (acc >= need)
		return r->min < 1e-4 ? r->min : 0;
	for (int i = 0; i < QS_BUCKETS; i++) {
		acc += r->b[i];
		if (acc >= need) {
			double v = 1e-4 * pow(1.02, i + 0.5);
			return v < r->min ? r->min : v > r->max ? r->max : v;
		}
	}
	return r->max;
}

static int dcmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Type-7 quantile of n values (sorted in place). */
static double exact_quantile(double *v, size_t n, double p)
{
	qsort(v, n, sizeof *v, dcmp);
	if (p <= 0)
		return v[0];
	if (p >= 1)
		return v[n - 1];
	double h = p * (double)(n - 1);
	size_t lo = (size_t)h;
	double f = h - (double)lo;
	return lo + 1 < n ? v[lo] * (1 - f) + v[lo + 1] * f : v[n - 1];
}

/* A few samples have exact quantiles: the p95 of 4 lies between the 3rd and the 4th, never below
 * the 3rd (a bucket middle could be), and the median of 4 is the middle of the two middle ones. */
START_TEST(sketch_few_exact)
{
	struct qsketch q;
	qs_init(&q);
	static const double v[] = {12.2, 991, 4.3, 1000};
	for (int i = 0; i < 4; i++)
		qs_add(&q, v[i]);
	ck_assert(fabs(qs_quantile(&q, 0.95) - (991 + 0.85 * 9)) < 1e-9);
	ck_assert(qs_quantile(&q, 0.95) >= 991);
	ck_assert(fabs(qs_quantile(&q, 0.5) - (12.2 + 991) / 2) < 1e-9);
	ck_assert(qs_quantile(&q, 0) == 4.3 && qs_quantile(&q, 1) == 1000);
	/* past QS_EXACT values the sketch's bucket estimate takes over (within its 1 %) */
	for (int i = 0; i < QS_EXACT; i++)
		qs_add(&q, 500);
	ck_assert(q.n == 4 + QS_EXACT && q.few == 0);
	ck_assert(fabs(qs_quantile(&q, 0.5) - 500) / 500 < 0.02);
	qs_free(&q);
}
END_TEST

/* The exact values are kept in 2 or 4 bytes when they are a short decimal, as doubles otherwise
 * (the buffer widens, at any value, recoding what it holds): the quantiles are bit for bit those
 * of the doubles, alone and merged, whatever the order of the widths. */
START_TEST(sketch_few_widths)
{
	static const double pool[] = {0, 64, 3.13, 0.03, 258.1, 163.83, 16383, 16384, 0.0001, 1234.5678,
				      268435.455, 2.68435455e8, 2.68435456e8, 1e15, 1.0 / 3, 0.1 + 0.2, 7e-20,
				      -0.0, 4503599627370497.0, 12.25};
	size_t np = sizeof pool / sizeof *pool;
	static const double ps[] = {0.01, 0.25, 0.5, 0.9, 0.95, 0.99};
	for (size_t start = 0; start < np; start++) {
		for (size_t n = 1; n <= QS_EXACT; n += 7) {
			struct qsketch q, a, b;
			qs_init(&q);
			qs_init(&a);
			qs_init(&b);
			double ref[QS_EXACT];
			for (size_t i = 0; i < n; i++) {
				/* short decimals first, then (from start on) any */
				double v = i < start ? pool[i % 6] : pool[(i * 7 + start) % np];
				ref[i] = v < 0 ? 0 : v;
				qs_add(&q, v);
				qs_add(i % 2 ? &a : &b, v);
			}
			qs_merge(&a, &b);
			for (size_t k = 0; k < sizeof ps / sizeof *ps; k++) {
				double r[QS_EXACT];
				memcpy(r, ref, n * sizeof *r);
				double want = exact_quantile(r, n, ps[k]);
				double got = qs_quantile(&q, ps[k]), got2 = qs_quantile(&a, ps[k]);
				/* bit for bit, but for the sign of a zero (0 and -0 sort as equals, in any order) */
				bool same = want == 0 ? got == 0 && got2 == 0
						      : memcmp(&got, &want, sizeof got) == 0 && memcmp(&got2, &want, sizeof got) == 0;
				ck_assert_msg(same,
					      "start %zu n %zu p %g: %.17g %.17g, want %.17g", start, n, ps[k], got, got2, want);
			}
			qs_free(&q);
			qs_free(&a);
			qs_free(&b);
		}
	}
}
END_TEST

/* Staged values are counted by every reader: quantiles equal the reference's after any number of
 * values (flushed or not), and after merging sketches whose staging areas are partly full; up to
 * QS_EXACT values they are the exact ones. */
START_TEST(sketch_staging_exact)
{
	static const double ps[] = {0.001, 0.05, 0.25, 0.5, 0.75, 0.9, 0.95, 0.99, 0.999};
	uint64_t x = 0x9E3779B97F4A7C15ull;
	for (int round = 0; round < 300; round++) {
		struct qsketch q, parts[3];
		qs_init(&q);
		for (int k = 0; k < 3; k++)
			qs_init(&parts[k]);
		struct ref_sketch *r = calloc(1, sizeof *r);
		ck_assert_ptr_nonnull(r);
		r->min = INFINITY;
		r->max = -INFINITY;
		int n = round < 100 ? round : 100 + (round - 100) * 37;
		double *vals = malloc((size_t)(n ? n : 1) * sizeof *vals);
		ck_assert_ptr_nonnull(vals);
		double scale = pow(10, (double)(round % 9) - 4);
		for (int i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			double v = (double)(x % 100000) / 1000.0 * scale;
			if (x % 17 == 0)
				v = 0;
			if (x % 101 == 0)
				v = -v;
			qs_add(&q, v);
			qs_add(&parts[x % 3], v);
			ref_add(r, v);
			vals[i] = v < 0 ? 0 : v;
		}
		struct qsketch m;
		qs_init(&m);
		for (int k = 0; k < 3; k++)
			qs_merge(&m, &parts[k]);
		ck_assert_uint_eq(q.n, r->n);
		ck_assert_uint_eq(m.n, r->n);
		for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
			double want = n > 0 && n <= QS_EXACT ? exact_quantile(vals, (size_t)n, ps[k]) : ref_quantile(r, ps[k]);
			double got = qs_quantile(&q, ps[k]), merged = qs_quantile(&m, ps[k]);
			ck_assert_msg((isnan(want) && isnan(got)) || want == got, "n=%d p=%g: %.17g, reference %.17g", n, ps[k], got,
				      want);
			ck_assert_msg((isnan(want) && isnan(merged)) || want == merged, "merged n=%d p=%g: %.17g, reference %.17g", n,
				      ps[k], merged, want);
		}
		free(vals);
		qs_free(&q);
		qs_free(&m);
		for (int k = 0; k < 3; k++)
			qs_free(&parts[k]);
		free(r);
	}
}
END_TEST

/* The counters kept for a series' range of buckets only and 1, 2 then 4 bytes wide: a range that
 * grows down and up while values come, counters past 255 and 65,535 in one bucket, and merges of
 * sketches of other ranges and widths give the quantiles of the 1,280 full counters. */
START_TEST(sketch_ranges_widths)
{
	static const double ps[] = {0.001, 0.01, 0.1, 0.3, 0.5, 0.7, 0.9, 0.99, 0.999};
	struct qsketch q, a, b, m;
	qs_init(&q);
	qs_init(&a);
	qs_init(&b);
	qs_init(&m);
	struct ref_sketch *r = calloc(1, sizeof *r);
	ck_assert_ptr_nonnull(r);
	r->min = INFINITY;
	r->max = -INFINITY;
	uint64_t x = 88172645463325252ull;
	for (long i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		double v;
		if (i % 3)
			v = 5.0;                                  /* one bucket past 65,535 */
		else if (i % 7 == 0)
			v = 3.0 + (double)(x % 1000) / 500.0;     /* a few hundred in each of 35 buckets */
		else
			v = 1e-3 * pow(10, (double)(i % 9000) / 1000.0); /* a range growing up, then all of it */
		if (i > 150000 && i % 11 == 0)
			v = 2e-4;                                 /* and down, late */
		qs_add(&q, v);
		qs_add(i % 5 ? &a : &b, v);
		ref_add(r, v);
		for (size_t k = 0; i % 49999 == 0 && k < sizeof ps / sizeof ps[0]; k++)
			if (i >= QS_EXACT)
				ck_assert_double_eq(qs_quantile(&q, ps[k]), ref_quantile(r, ps[k]));
	}
	qs_merge(&m, &b); /* narrow and wide, the small one first */
	qs_merge(&m, &a);
	for (size_t k = 0; k < sizeof ps / sizeof ps[0]; k++) {
		ck_assert_double_eq(qs_quantile(&q, ps[k]), ref_quantile(r, ps[k]));
		ck_assert_double_eq(qs_quantile(&m, ps[k]), ref_quantile(r, ps[k]));
	}
	qs_free(&q);
	qs_free(&a);
	qs_free(&b);
	qs_free(&m);
	free(r);
}
END_TEST

/* The downsampled series keep every value's bucket (sum/min/max/count) across compactions, the
 * same for every series of a store. */
START_TEST(dstore_buckets)
{
	struct dstore d;
	ds_init(&d, 3);
	size_t rows = 3 * d.cap + 7; /* two compactions */
	for (size_t r = 0; r < rows; r++) {
		ds_row(&d, (int64_t)r * 1000, false);
		ds_set(&d, 0, (double)r);
		if (r % 2)
			ds_set(&d, 1, 1.0);
		ds_set(&d, 2, NAN); /* missing */
	}
	ck_assert_uint_eq(d.per_bucket, 4);
	uint64_t n0 = 0, n1 = 0;
	for (size_t k = 0; k < d.nb; k++) {
		uint32_t c = ds_count(&d, 0, k);
		n0 += c;
		n1 += ds_count(&d, 1, k);
		ck_assert_uint_eq(ds_count(&d, 2, k), 0);
		ck_assert(isnan(ds_mean(&d, 2, k)));
		/* bucket k holds rows 4k .. 4k+c-1 of series 0 */
		ck_assert_double_eq(ds_min(&d, 0, k), (double)(4 * k));
		ck_assert_double_eq(ds_max(&d, 0, k), (double)(4 * k + c - 1));
		ck_assert_double_eq_tol(ds_mean(&d, 0, k), (double)(4 * k) + (double)(c - 1) / 2, 1e-9);
		ck_assert_int_eq(d.t0[k], (int64_t)(4 * k) * 1000);
	}
	ck_assert_uint_eq(n0, rows);
	ck_assert_uint_eq(n1, rows / 2);
	ds_free(&d);
}
END_TEST

/* "did you mean": the distance (a swap is one edit) and the closest names, ties all kept */
START_TEST(suggest_names)
{
	ck_assert_uint_eq(suggest_distance("form", "from"), 1);
	ck_assert_uint_eq(suggest_distance("form", "format"), 2);
	ck_assert_uint_eq(suggest_distance("anlyze", "analyze"), 1);
	ck_assert_uint_eq(suggest_distance("Europe/Berln", "Europe/Berlin"), 1);
	ck_assert_uint_eq(suggest_distance("", "abc"), 3);
	ck_assert_uint_eq(suggest_distance("kitten", "sitting"), 3);
	ck_assert_uint_eq(suggest_distance("ESXTOP", "esxtop"), 0);
	static const char *const opts[] = {"format", "from", "to", "tz", "threads", "fail-on", NULL};
	size_t idx[4];
	/* --form: --from is one swap away, closer than --format it abbreviates; --forma: --format */
	ck_assert_uint_eq(suggest_closest("form", opts, 7, idx, 4), 1);
	ck_assert_str_eq(opts[idx[0]], "from");
	ck_assert_uint_eq(suggest_closest("forma", opts, 7, idx, 4), 1);
	ck_assert_str_eq(opts[idx[0]], "format");
	/* ties all kept, in the list's order */
	static const char *const sides[] = {"before", "before-rules", "before-map", "after"};
	ck_assert_uint_eq(suggest_closest("befor", sides, 4, idx, 4), 1);
	ck_assert_str_eq(sides[idx[0]], "before");
	ck_assert_uint_eq(suggest_closest("bef", sides, 4, idx, 4), 3);
	ck_assert_str_eq(sides[idx[0]], "before");
	ck_assert_str_eq(sides[idx[2]], "before-map");
	ck_assert_uint_eq(suggest_closest("fromm", opts, 7, idx, 4), 1);
	ck_assert_str_eq(opts[idx[0]], "from");
	ck_assert_uint_eq(suggest_closest("thr", opts, 7, idx, 4), 1);
	ck_assert_str_eq(opts[idx[0]], "threads");
	/* nothing close: no suggestion; a short word allows one edit only */
	ck_assert_uint_eq(suggest_closest("output", opts, 7, idx, 4), 0);
	ck_assert_uint_eq(suggest_closest("vm", opts, 7, idx, 4), 0);
	ck_assert_uint_eq(suggest_closest("", opts, 7, idx, 4), 0);
	struct buf b;
	buf_init(&b);
	ck_assert(suggest_append(&b, "tx", "--", opts, 6));
	ck_assert_str_eq(b.data, "; did you mean --to or --tz?");
	buf_reset(&b);
	ck_assert(!suggest_append(&b, "xyzzy", "--", opts, 6));
	ck_assert_uint_eq(b.len, 0);
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
	tcase_add_test(tc, sketch_staging_exact);
	tcase_add_test(tc, sketch_few_exact);
	tcase_add_test(tc, sketch_few_widths);
	tcase_add_test(tc, sketch_ranges_widths);
	tcase_add_test(tc, dstore_buckets);
	tcase_add_test(tc, suggest_names);
	suite_add_tcase(s, tc);
	return s;
}
