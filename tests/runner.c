/* runner.c — runs the Check suites of tests/suites.h: all of them, or those named.
   Usage: check_iopsy [--shard K/N] [--one-seed | --other-seeds] [--list] [SUITE...]
   --shard K/N  run shard K (0-based) of N of the simulator suites' tests (suites.h's sharded
                macros; the other suites run whole in every shard, so name them only in one)
   --one-seed   the simulator suites run each scenario with one seed (rotating with the
                scenario) instead of every seed (suites.h; the sanitizer tier)
   --other-seeds  every seed but the one --one-seed runs (the plain tier beside the sanitizer
                tier in CI: together they run each scenario and seed once)
   --list       print the suite names, one a line, and exit
   With no SUITE every suite runs. Exit 0 when every test passed, 1 when one failed, 2 on a usage
   error (an unknown suite, a bad shard). Check's own CK_RUN_SUITE / CK_RUN_CASE still apply. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "suites.h"

int test_shard_k = 0, test_shard_n = 1, test_shard_seq = 0, test_one_seed = 0;

static const struct {
	const char *name;
	Suite *(*make)(void);
} suites[] = {
#define SUITE_ROW(n) {#n, n##_suite},
	SUITES(SUITE_ROW)
#undef SUITE_ROW
};
#define NSUITES (sizeof suites / sizeof suites[0])

static int usage(const char *why)
{
	fprintf(stderr, "check_iopsy: %s\nusage: check_iopsy [--shard K/N] [--one-seed | --other-seeds] [--list] [SUITE...]\nsuites:", why);
	for (size_t i = 0; i < NSUITES; i++)
		fprintf(stderr, " %s", suites[i].name);
	fputc('\n', stderr);
	return 2;
}

static int parse_shard(const char *s)
{
	char *end;
	long k = strtol(s, &end, 10);
	if (end == s || *end != '/')
		return -1;
	const char *n0 = end + 1;
	long n = strtol(n0, &end, 10);
	if (end == n0 || *end || n < 1 || n > 1000 || k < 0 || k >= n)
		return -1;
	test_shard_k = (int)k;
	test_shard_n = (int)n;
	return 0;
}

int main(int argc, char **argv)
{
	int first = 1;
	for (; first < argc && strncmp(argv[first], "--", 2) == 0; first++) {
		if (strcmp(argv[first], "--list") == 0) {
			for (size_t i = 0; i < NSUITES; i++)
				puts(suites[i].name);
			return 0;
		}
		if (strcmp(argv[first], "--one-seed") == 0) {
			test_one_seed = 1;
		} else if (strcmp(argv[first], "--other-seeds") == 0) {
			test_one_seed = -1;
		} else if (strcmp(argv[first], "--shard") == 0 && first + 1 < argc) {
			if (parse_shard(argv[++first]) < 0)
				return usage("--shard takes K/N with 0 <= K < N");
		} else if (strncmp(argv[first], "--shard=", 8) == 0) {
			if (parse_shard(argv[first] + 8) < 0)
				return usage("--shard takes K/N with 0 <= K < N");
		} else {
			return usage("unknown option");
		}
	}
	SRunner *sr = srunner_create(NULL);
	for (size_t i = 0; i < NSUITES; i++) {
		int want = first == argc;
		for (int a = first; a < argc && !want; a++)
			want = strcmp(argv[a], suites[i].name) == 0;
		if (want)
			srunner_add_suite(sr, suites[i].make());
	}
	for (int a = first; a < argc; a++) {
		size_t i = 0;
		while (i < NSUITES && strcmp(argv[a], suites[i].name) != 0)
			i++;
		if (i == NSUITES) {
			srunner_free(sr);
			char why[200];
			snprintf(why, sizeof why, "no suite named '%s'", argv[a]);
			return usage(why);
		}
	}
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
