/* check_scenarios.c — the detectors against ground truth: every simulator scenario, several seeds,
 * simulated to a temporary directory and analysed in-process; each expected finding must be found
 * on its entity with overlapping time, no 'absent' kind may appear, and 'healthy' has no warning. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <check.h>
#include <math.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis.h"
#include "commands.h"
#include "suites.h"

static const char *const scenarios[] = {
	"healthy", "lsi-guest-queue-cap", "pvscsi-after", "device-queue-overcommit", "backend-saturated",
	"adaptive-queue-depth", "sioc-throttle", "dsnro-cap", "adapter-overcommit", "split-io",
	"misaligned-partition", "migration",
};
#define NSCEN (int)(sizeof scenarios / sizeof scenarios[0])
static const char *const seeds[] = {"1", "2", "3"};
#define NSEED 3

static char *slurp(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return NULL;
	struct buf b;
	buf_init(&b);
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	fclose(fp);
	*len = b.len;
	return b.data ? b.data : xstrdup("");
}

static bool exists(const char *dir, const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s", dir, name);
	return access(out, R_OK) == 0;
}

struct expect {
	char kind[64], entity[128], host[64];
	int64_t start, end;
};

static size_t parse_truth(const char *text, struct expect *ex, size_t max, char absent[][64], size_t *nabsent)
{
	int ec;
	PCRE2_SIZE eo;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR) "\\{\"kind\": \"([^\"]+)\", \"entity\": \"([^\"]+)\"(?:, \"host\": "
						    "\"([^\"]*)\")?, \"start\": \"([^\"]+)\", \"end\": \"([^\"]+)\"\\}",
				       PCRE2_ZERO_TERMINATED, 0, &ec, &eo, NULL);
	ck_assert_ptr_nonnull(re);
	pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
	const char *abs = strstr(text, "\"absent\"");
	ck_assert_msg(abs != NULL, "truth.json has no absent list");
	size_t n = 0, off = 0, lim = (size_t)(abs - text);
	while (n < max && pcre2_match(re, (PCRE2_SPTR)text, lim, off, 0, md, NULL) >= 0) {
		PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
		char *dst[5] = {ex[n].kind, ex[n].entity, ex[n].host, NULL, NULL};
		size_t caps[3] = {sizeof ex[n].kind, sizeof ex[n].entity, sizeof ex[n].host};
		for (int g = 1; g <= 5; g++) {
			char tmp[128] = "";
			if (ov[2 * g] != PCRE2_UNSET) {
				size_t l = ov[2 * g + 1] - ov[2 * g];
				if (l >= sizeof tmp)
					l = sizeof tmp - 1;
				memcpy(tmp, text + ov[2 * g], l);
				tmp[l] = '\0';
			}
			if (g <= 3)
				snprintf(dst[g - 1], caps[g - 1], "%s", tmp);
			else
				ck_assert_int_eq(time_parse_iso(tmp, g == 4 ? &ex[n].start : &ex[n].end), 0);
		}
		off = ov[1];
		n++;
	}
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	*nabsent = 0;
	const char *p = strchr(abs, '['), *e = p ? strchr(p, ']') : NULL;
	ck_assert(p && e);
	while ((p = memchr(p, '"', (size_t)(e - p))) != NULL && p < e) {
		const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));
		ck_assert_ptr_nonnull(q);
		snprintf(absent[(*nabsent)++], 64, "%.*s", (int)(q - p - 1), p + 1);
		p = q + 1;
	}
	return n;
}

static void check_set(const char *dir, const char *scenario)
{
	char path[512], truth[512];
	ck_assert_msg(exists(dir, "truth.json", truth, sizeof truth), "%s: no truth.json", dir);
	size_t tl;
	char *text = slurp(truth, &tl);
	(void)tl;
	struct expect ex[32];
	char absent[32][64];
	size_t nabsent;
	size_t nex = parse_truth(text, ex, 32, absent, &nabsent);
	free(text);

	struct analysis a;
	analysis_init(&a);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = 0;
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	const char *caps[] = {"esxtop.csv", "esxtop.csv.gz", "perfmon.csv", "perfmon.csv.gz"};
	int ncap = 0;
	for (int i = 0; i < 4; i++) {
		if (exists(dir, caps[i], path, sizeof path)) {
			ck_assert_int_eq(model_add_capture(&a.m, xstrdup(path), &co), 0);
			ncap++;
		}
	}
	ck_assert_int_ge(ncap, 1);
	for (size_t i = 0; i < a.m.ncaps; i++)
		ck_assert_int_eq(a.m.caps[i].warnings, 0); /* the simulator's files parse without warnings */
	struct diag d;
	diag_init(&d, "sim", 0);
	if (exists(dir, "vmkernel.log", path, sizeof path)) {
		ck_assert_int_eq(vmklog_read(&a.vmk, path, &d), 0);
		a.have_vmk = true;
	}
	if (exists(dir, "partitions.txt", path, sizeof path)) {
		ck_assert_int_eq(partitions_read(&a.parts, path, &d), 0);
		a.have_parts = true;
	}
	analysis_run(&a, &ao);
	for (size_t i = 0; i < nex; i++) {
		bool found = false;
		for (size_t k = 0; k < a.nf && !found; k++) {
			const struct finding *f = &a.f[k];
			found = strcmp(kinds[f->kind].name, ex[i].kind) == 0 && strcmp(f->entity, ex[i].entity) == 0 &&
				(!ex[i].host[0] || (f->host && strcmp(f->host, ex[i].host) == 0)) &&
				f->start <= ex[i].end && f->end >= ex[i].start;
		}
		ck_assert_msg(found, "%s (%s): expected %s on %s not found", scenario, dir, ex[i].kind, ex[i].entity);
	}
	for (size_t k = 0; k < a.nf; k++) {
		for (size_t i = 0; i < nabsent; i++)
			ck_assert_msg(strcmp(kinds[a.f[k].kind].name, absent[i]) != 0, "%s (%s): %s on %s must be absent (%s)",
				      scenario, dir, kinds[a.f[k].kind].name, a.f[k].entity, a.f[k].summary);
		if (strcmp(scenario, "healthy") == 0)
			ck_assert_msg(a.f[k].sev < SEV_WARNING, "healthy: %s %s", kinds[a.f[k].kind].name, a.f[k].summary);
	}
	for (size_t i = 0; i < a.m.ncaps; i++)
		free((char *)(uintptr_t)a.m.caps[i].path);
	analysis_free(&a);
}

START_TEST(scenario_truth)
{
	int s = _i / NSEED, seed = _i % NSEED;
	char dir[] = "/tmp/iopsy-scen-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char out[600];
	snprintf(out, sizeof out, "%s/set", dir);
	char *argv[] = {"simulate", "--scenario", (char *)(uintptr_t)scenarios[s], "--out", out, "--seed",
			(char *)(uintptr_t)seeds[seed], NULL};
	ck_assert_int_eq(sim_main(7, argv), 0);
	char sub[700];
	snprintf(sub, sizeof sub, "%s/before", out);
	struct stat st;
	if (stat(sub, &st) == 0) {
		check_set(sub, scenarios[s]);
		snprintf(sub, sizeof sub, "%s/after", out);
		check_set(sub, scenarios[s]);
	} else {
		check_set(out, scenarios[s]);
	}
	char cmd[800];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *scenarios_suite(void)
{
	Suite *s = suite_create("scenarios");
	TCase *tc = tcase_create("truth");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, scenario_truth, 0, NSCEN * NSEED);
	suite_add_tcase(s, tc);
	return s;
}
