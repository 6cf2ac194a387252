/* check_compare.c — `iopsy compare` against known truth: the simulator's LSI -> PVSCSI migration
 * pair (doc/domain.md §1 figures, the outcome and its headline, findings gone, no false improvement
 * where nothing changed), two seeds of one scenario (unchanged), bootstrap determinism and interval
 * coverage on synthetic autocorrelated series, the figures on bimodal (idle + busy) and
 * heavy-tailed series (false calls under the null, power, the busy phase, not comparable,
 * degenerate intervals), findings not assessed on a side without the input, --match-map parsing
 * and renamed entities, and the JSON schema. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compare.h"
#include "json_out.h"
#include "text.h"
#include "commands.h"
#include "suites.h"

/* ---- helpers ---- */

static void rmrf(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}

static void simulate(const char *scenario, const char *seed, const char *out, const char *duration, const char *interval)
{
	char *argv[] = {"simulate", "--scenario", (char *)(uintptr_t)scenario, "--out", (char *)(uintptr_t)out,
			"--seed", (char *)(uintptr_t)seed, "--duration", (char *)(uintptr_t)duration,
			"--interval", (char *)(uintptr_t)interval, NULL};
	ck_assert_int_eq(sim_main(11, argv), 0);
}

/* Paths handed to the model are borrowed: keep them until the comparison is freed. */
static char *paths[16];
static int npaths;

static void add(struct compare *c, enum cmp_side s, const char *dir, const char *file)
{
	char p[600];
	snprintf(p, sizeof p, "%s/%s", dir, file);
	if (access(p, R_OK) != 0)
		return;
	ck_assert_int_lt(npaths, 16);
	paths[npaths] = xstrdup(p);
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	co.max_warnings = 0;
	ck_assert_int_eq(compare_add_capture(c, s, paths[npaths], &co), 0);
	npaths++;
}

static void add_dir(struct compare *c, enum cmp_side s, const char *dir)
{
	add(c, s, dir, "esxtop.csv");
	add(c, s, dir, "perfmon.csv");
}

static void done(struct compare *c)
{
	compare_free(c);
	for (int i = 0; i < npaths; i++)
		free(paths[i]);
	npaths = 0;
}

static void run(struct compare *c, unsigned resamples, uint64_t seed)
{
	struct compare_opts o;
	compare_opts_init(&o);
	o.resamples = resamples;
	o.seed = seed;
	struct buf warn;
	buf_init(&warn);
	compare_run(c, &o, DIAG_INTO(&warn));
	buf_free(&warn);
	/* issue 24: the outcome never contradicts the report's own statements */
	const char *why = compare_contradiction(c);
	ck_assert_msg(why == NULL, "%s: %s", why, c->headline);
}

static const struct cmp_pair *pair_of(const struct compare *c, enum layer l, const char *name)
{
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		const char *n = p->name[0] ? p->name[0] : p->name[1];
		if (p->layer == l && strcmp(n, name) == 0)
			return p;
	}
	return NULL;
}

static const struct cmp_row *row_of(const struct compare *c, enum layer l, const char *name, enum metric m)
{
	const struct cmp_pair *p = pair_of(c, l, name);
	if (!p)
		return NULL;
	for (size_t r = p->first_row; r < p->first_row + p->nrows; r++)
		if (c->rows[r].spec->metric == m)
			return &c->rows[r];
	return NULL;
}

static const struct cmp_fdiff *fdiff_of(const struct compare *c, const char *kind, const char *entity)
{
	for (size_t k = 0; k < c->nfd; k++)
		if (strcmp(kinds[c->fd[k].kind].name, kind) == 0 && strcmp(c->fd[k].entity, entity) == 0)
			return &c->fd[k];
	return NULL;
}

static bool name_starts(const struct cmp_pair *p, const char *prefix)
{
	const char *n = p->name[0] ? p->name[0] : p->name[1];
	return strncmp(n, prefix, strlen(prefix)) == 0;
}

/* ---- the migration pair (doc/domain.md §1) ---- */

START_TEST(migration)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char out[600], b[700], a[700];
	snprintf(out, sizeof out, "%s/m", dir);
	simulate("migration", "1", out, "1200", "2");
	snprintf(b, sizeof b, "%s/before", out);
	snprintf(a, sizeof a, "%s/after", out);
	struct compare c;
	compare_init(&c);
	add_dir(&c, CMP_BEFORE, b);
	add_dir(&c, CMP_AFTER, a);
	run(&c, 1000, 1);

	/* world and group IDs change with the power cycle: every entity still matches */
	for (size_t i = 0; i < c.npairs; i++)
		ck_assert_msg(c.pairs[i].name[0] && c.pairs[i].name[1], "%s on one side only",
			      c.pairs[i].name[0] ? c.pairs[i].name[0] : c.pairs[i].name[1]);
	const struct cmp_row *rdy = row_of(&c, LAYER_VM, "SQL01", M_RDY);
	ck_assert_ptr_nonnull(rdy);
	ck_assert_int_ne(rdy->verdict, CV_NOT_ASSESSED);

	/* reads: before often over 150 ms; after under 16 ms */
	const struct cmp_row *rd = row_of(&c, LAYER_GUEST, "D:", M_G_LAT_R);
	ck_assert_ptr_nonnull(rd);
	ck_assert_int_eq(rd->verdict, CV_IMPROVED);
	ck_assert_double_ge(rd->s[0].p95, 150);
	ck_assert_double_ge(rd->s[0].over[1], 0.5); /* > 50 ms (serious) most of the time */
	ck_assert_double_lt(rd->s[1].p99, 16);
	ck_assert_double_eq(rd->s[1].over[0], 0);
	ck_assert(rd->ci[0] <= rd->change_pct && rd->change_pct <= rd->ci[1]);
	ck_assert(rd->ci_diff[0] <= rd->diff && rd->diff <= rd->ci_diff[1]);
	ck_assert_double_lt(rd->ci[1], -85);       /* the whole interval: at least 85% lower */
	ck_assert_double_lt(rd->ci_diff[1], -90);  /* ... and at least 90 ms */
	/* writes: before above 100 ms; after mostly under 5 ms and never above 10 ms on average */
	const struct cmp_row *wr = row_of(&c, LAYER_GUEST, "D:", M_G_LAT_W);
	ck_assert_ptr_nonnull(wr);
	ck_assert_int_eq(wr->verdict, CV_IMPROVED);
	ck_assert_double_ge(wr->s[0].median, 100);
	ck_assert_double_lt(wr->s[1].p95, 5);
	ck_assert_double_lt(wr->s[1].mean, 10);
	ck_assert_double_lt(wr->ci[1], -90);
	/* the guest queue no longer pinned above 32 */
	const struct cmp_row *q = row_of(&c, LAYER_GUEST, "D:", M_G_CDQL);
	ck_assert_int_eq(q->verdict, CV_IMPROVED);
	ck_assert_double_ge(q->s[0].over[0], 0.5);
	ck_assert_double_lt(q->s[1].over[0], 0.2);
	/* same thread pool, more work done after */
	ck_assert_int_eq(row_of(&c, LAYER_GUEST, "D:", M_G_XFERS)->verdict, CV_HIGHER);
	/* lower latency at higher load: the report says the work does not explain it */
	ck_assert_ptr_nonnull(strstr(c.verdict, "lower latency at higher load"));

	/* findings */
	const struct cmp_fdiff *cap = fdiff_of(&c, "queue.guest_vscsi_cap", "D:");
	ck_assert_ptr_nonnull(cap);
	ck_assert_int_eq(cap->status, FD_GONE);
	ck_assert_int_eq(fdiff_of(&c, "queue.guest_hidden", "D:")->status, FD_GONE);
	ck_assert_int_eq(fdiff_of(&c, "latency.guest_read", "D:")->status, FD_GONE);
	for (size_t k = 0; k < c.nfd; k++)
		ck_assert_msg(c.fd[k].status != FD_NEW || strncmp(kinds[c.fd[k].kind].name, "queue.guest", 11) != 0, "new %s",
			      kinds[c.fd[k].kind].name);
	ck_assert_ptr_nonnull(strstr(c.verdict, "guest queue at the vSCSI per-disk limit (SQL01 D:): gone"));
	ck_assert_int_ge(c.sum.bottleneck, 0);

	/* the outcome, and a headline that proves it with the tail and the time above 50 ms; the two
	 * days are busy for different shares of their time (ETL 20-80 % and 15-85 %), so those of the
	 * busy phase (issue 24) */
	ck_assert_int_eq(c.sum.outcome, CO_IMPROVED);
	ck_assert_ptr_eq(c.sum.head[0], rd);
	ck_assert(rd->decisive);
	ck_assert(!c.pairs[rd->pair].shares_comparable);
	ck_assert(!rd->fig[CF_P95].decides && !rd->fig[CF_OVER1].decides && rd->fig[CF_BUSY_P95].decides);
	ck_assert_int_eq(rd->fig[CF_BUSY_P95].verdict, CV_IMPROVED);
	ck_assert_ptr_nonnull(strstr(c.headline, "Improved: SQL01 D: reads p95 "));
	ck_assert_ptr_nonnull(strstr(c.headline, " during the busy phase "));
	ck_assert_ptr_nonnull(strstr(c.headline, "time above 50 ms in the busy phase 99% -> 0%"));
	ck_assert(strncmp(c.verdict, c.headline, strlen(c.headline)) == 0);
	ck_assert_int_eq(rd->fig[CF_P95].verdict, CV_IMPROVED);
	ck_assert_double_ge(rd->fig[CF_P95].v[0], 150);
	ck_assert_double_lt(rd->fig[CF_P95].v[1], 16);
	ck_assert_int_eq(rd->fig[CF_OVER1].verdict, CV_IMPROVED);
	ck_assert(!rd->fig[CF_MEDIAN].decides);
	/* the ETL is the busy phase on both sides, and the after side did it: comparable */
	const struct cmp_pair *dp = &c.pairs[rd->pair];
	ck_assert(dp->busy[0].distinct && dp->busy[1].distinct && dp->comparable);
	ck_assert_double_ge(dp->busy[1].iops, 2 * dp->busy[0].iops);
	ck_assert_int_eq(rd->fig[CF_BUSY_P50].verdict, CV_IMPROVED);
	/* the guest queue per unit of load (Little's law) improved too */
	ck_assert(q->per_load);
	/* the host side of D: rose with the load and only explains: it does not decide */
	for (size_t r = 0; r < c.nrows; r++) {
		const struct cmp_row *row = &c.rows[r];
		if (row->spec->kind == CK_LATENCY && c.pairs[row->pair].layer != LAYER_GUEST && c.pairs[row->pair].active[0] &&
		    c.pairs[row->pair].load_mean[0] > 500)
			ck_assert_msg(!row->decisive, "%s decides", c.pairs[row->pair].name[0]);
	}

	/* no false improvement where the scenario kept things equal: the array and the host side of
	 * every disk (the wait was in the guest), and the bystander VM APP02 altogether */
	for (size_t r = 0; r < c.nrows; r++) {
		const struct cmp_row *row = &c.rows[r];
		const struct cmp_pair *p = &c.pairs[row->pair];
		bool host_latency = row->spec->kind == CK_LATENCY && p->layer != LAYER_GUEST;
		ck_assert_msg(!host_latency || row->verdict != CV_IMPROVED, "%s %s improved",
			      p->name[0], metric_info[row->spec->metric].name);
		if (name_starts(p, "APP02") || (p->layer == LAYER_DEVICE && p->active[0] && p->load_mean[0] > 20 &&
						 p->load_mean[0] < 40))
			ck_assert_msg(row->verdict == CV_UNCHANGED || row->verdict == CV_NOT_ASSESSED,
				      "bystander %s %s: %s", p->name[0], metric_info[row->spec->metric].name,
				      cmp_verdict_names[row->verdict]);
	}
	done(&c);
	rmrf(dir);
}
END_TEST

/* ---- two seeds of one scenario: nothing changed ---- */

static const char *const same_scenarios[] = {"lsi-guest-queue-cap", "device-queue-overcommit", "healthy"};

START_TEST(seeds_unchanged)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char s1[600], s2[600];
	snprintf(s1, sizeof s1, "%s/s1", dir);
	snprintf(s2, sizeof s2, "%s/s2", dir);
	simulate(same_scenarios[_i], "1", s1, "1200", "2");
	simulate(same_scenarios[_i], "2", s2, "1200", "2");
	struct compare c;
	compare_init(&c);
	add_dir(&c, CMP_BEFORE, s1);
	add_dir(&c, CMP_AFTER, s2);
	run(&c, 1000, 1);
	ck_assert_int_gt(c.nrows, 20);
	int assessed = 0;
	for (size_t r = 0; r < c.nrows; r++) {
		const struct cmp_row *row = &c.rows[r];
		const struct cmp_pair *p = &c.pairs[row->pair];
		if (row->spec->kind != CK_LATENCY)
			continue;
		assessed += row->verdict == CV_UNCHANGED;
		ck_assert_msg(row->verdict != CV_IMPROVED && row->verdict != CV_REGRESSED && row->verdict != CV_MIXED,
			      "%s: %s %s %s (%.1f%%)",
			      same_scenarios[_i], layer_names[p->layer], p->name[0], metric_info[row->spec->metric].name,
			      row->change_pct);
		ck_assert_msg(!row->has_lm || (row->lm.verdict != CV_IMPROVED && row->lm.verdict != CV_REGRESSED),
			      "%s: %s %s at equal load", same_scenarios[_i], p->name[0], metric_info[row->spec->metric].name);
	}
	ck_assert_int_ge(assessed, 5);
	ck_assert_int_eq(c.sum.latency[CV_IMPROVED] + c.sum.latency[CV_REGRESSED] + c.sum.latency[CV_MIXED], 0);
	ck_assert_int_eq(c.sum.outcome, CO_UNCHANGED);
	ck_assert(!c.sum.capacity_gain);
	ck_assert_ptr_nonnull(strstr(c.headline, "Unchanged: "));
	ck_assert_ptr_nonnull(strstr(c.verdict, "No material change in latency"));
	done(&c);
	rmrf(dir);
}
END_TEST

/* ---- determinism ---- */

static char *json_of(struct compare *c)
{
	struct buf b;
	buf_init(&b);
	struct json j;
	json_init(&j, &b, true);
	compare_json(c, &j);
	return b.data;
}

START_TEST(deterministic)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char out[600], b[700], a[700];
	snprintf(out, sizeof out, "%s/m", dir);
	simulate("migration", "3", out, "600", "5");
	snprintf(b, sizeof b, "%s/before", out);
	snprintf(a, sizeof a, "%s/after", out);
	char *text[3];
	double ci[3][2];
	for (int k = 0; k < 3; k++) {
			struct compare c;
		compare_init(&c);
		add_dir(&c, CMP_BEFORE, b);
		add_dir(&c, CMP_AFTER, a);
		run(&c, 500, k < 2 ? 7 : 8);
		text[k] = json_of(&c);
		const struct cmp_row *r = row_of(&c, LAYER_GUEST, "D:", M_G_LAT_R);
		ci[k][0] = r->ci[0];
		ci[k][1] = r->ci[1];
		ck_assert_int_eq(r->verdict, CV_IMPROVED);
		done(&c);
	}
	ck_assert_str_eq(text[0], text[1]);           /* same seed: same bytes */
	ck_assert_str_ne(text[0], text[2]);           /* another seed: other resamples ... */
	ck_assert(ci[0][0] != ci[2][0] || ci[0][1] != ci[2][1]);
	ck_assert_double_lt(fabs(ci[0][0] - ci[2][0]), 2); /* ... and about the same interval */
	ck_assert_double_lt(fabs(ci[0][1] - ci[2][1]), 2);
	for (int k = 0; k < 3; k++)
		free(text[k]);
	rmrf(dir);
}
END_TEST

/* ---- synthetic captures: interval coverage under autocorrelation, and power ---- */

struct gen {
	uint64_t s;
};
static double uni(struct gen *g)
{
	g->s = g->s * 6364136223846793005ULL + 1442695040888963407ULL;
	return ((double)(g->s >> 11) + 0.5) * 0x1.0p-53;
}
static double gauss(struct gen *g)
{
	return sqrt(-2 * log(uni(g))) * cos(6.283185307179586 * uni(g));
}

/* An esxtop capture with one device: DAVG = mean + AR(1) noise (phi, stationary sd), 500 IO/s. */
static void write_esx(const char *path, size_t n, double mean, double phi, double sd, uint64_t seed)
{
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\esx\\Physical Disk SCSI Device(naa.600a)\\Average Driver "
		    "MilliSec/Command\",\"\\\\esx\\Physical Disk SCSI Device(naa.600a)\\Commands/sec\"\n");
	struct gen g = {seed * 0x9e3779b97f4a7c15ULL + 1};
	double e = sd * gauss(&g), inno = sd * sqrt(1 - phi * phi);
	for (size_t i = 0; i < n; i++) {
		e = phi * e + inno * gauss(&g);
		long t = (long)i * 5;
		fprintf(fp, "\"07/27/2026 %02ld:%02ld:%02ld\",\"%.3f\",\"%.1f\"\n", 10 + t / 3600, t / 60 % 60, t % 60,
			fmax(0.01, mean + e), 500 + 20 * gauss(&g));
	}
	ck_assert_int_eq(fclose(fp), 0);
}

static const struct cmp_row *synthetic(struct compare *c, const char *dir, size_t n, double mb, double ma, double phi,
				       uint64_t seed)
{
	char pb[600], pa[600];
	snprintf(pb, sizeof pb, "%s/b.csv", dir);
	snprintf(pa, sizeof pa, "%s/a.csv", dir);
	write_esx(pb, n, mb, phi, 1.0, 2 * seed);
	write_esx(pa, n, ma, phi, 1.0, 2 * seed + 1);
	compare_init(c);
	add(c, CMP_BEFORE, dir, "b.csv");
	add(c, CMP_AFTER, dir, "a.csv");
	run(c, 400, seed);
	const struct cmp_row *r = row_of(c, LAYER_DEVICE, "naa.600a", M_DAVG);
	ck_assert_ptr_nonnull(r);
	return r;
}

/* Same distribution on both sides, strongly autocorrelated (phi 0.7: an iid bootstrap would
 * give intervals ~2.4x too narrow and exclude 0 about half the time): the intervals of the
 * median difference must exclude 0 rarely (nominal 5%). */
START_TEST(coverage_autocorrelated)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	int excl = 0, called = 0, trials = 40;
	for (int k = 0; k < trials; k++) {
		struct compare c;
		const struct cmp_row *r = synthetic(&c, dir, 360, 5, 5, 0.7, (uint64_t)k + 1);
		ck_assert_uint_eq(r->s[0].strata, 1); /* no load regimes in a steady load */
		ck_assert_uint_ge(r->s[0].block, 4);    /* the block follows the autocorrelation */
		excl += r->ci_diff[0] > 0 || r->ci_diff[1] < 0;
		called += r->verdict == CV_REGRESSED || r->verdict == CV_IMPROVED;
		done(&c);
	}
	/* 40 trials at a nominal 5%: 6 or more would happen by chance with probability ~4% */
	ck_assert_msg(excl <= 5, "%d of %d intervals exclude 0", excl, trials);
	ck_assert_int_le(called, excl);
	rmrf(dir);
}
END_TEST

/* A real shift is found: DAVG 5 -> 6.5 ms with the same noise is regressed; 5 -> 3.5 improved. */
START_TEST(power)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	struct compare c;
	const struct cmp_row *r = synthetic(&c, dir, 360, 5, 6.5, 0.7, 99);
	ck_assert_int_eq(r->verdict, CV_REGRESSED);
	ck_assert(r->ci[0] > 10 && r->ci[0] <= r->change_pct && r->change_pct <= r->ci[1] && r->ci[1] < 50);
	done(&c);
	r = synthetic(&c, dir, 360, 5, 3.5, 0.7, 98);
	ck_assert_int_eq(r->verdict, CV_IMPROVED);
	/* work: the same 500 IO/s on both sides */
	ck_assert_int_eq(row_of(&c, LAYER_DEVICE, "naa.600a", M_CMDS)->verdict, CV_UNCHANGED);
	done(&c);
	rmrf(dir);
}
END_TEST

/* ---- the figures on bimodal and heavy-tailed series ---- */

/* One row of a synthetic device: its IO/s and DAVG (ms). */
struct shape {
	double busy_share, busy_from;  /* the busy phase: its share of the rows and where it starts (0..1) */
	double idle_iops, busy_iops;
	double idle_ms, busy_ms;       /* the latency's median in each phase */
	double sigma;                  /* log-normal spread of the latency (heavy tail when large) */
	double busy_sigma;             /* ... in the busy phase (0: sigma) */
};

/* An esxtop capture of one device, n rows of 10 s, shaped by sh: DAVG, GAVG (= DAVG + 0.01, so the
 * outstanding IO is IOPS x GAVG) and Commands/sec. */
static void write_dev(const char *path, const char *dev, size_t n, const struct shape *sh, uint64_t seed)
{
	FILE *fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\esx\\Physical Disk SCSI Device(%s)\\Average Driver "
		    "MilliSec/Command\",\"\\\\esx\\Physical Disk SCSI Device(%s)\\Average Guest MilliSec/Command\","
		    "\"\\\\esx\\Physical Disk SCSI Device(%s)\\Commands/sec\"\n",
		dev, dev, dev);
	struct gen g = {seed * 0x9e3779b97f4a7c15ULL + 7};
	size_t b0 = (size_t)(sh->busy_from * (double)n), b1 = b0 + (size_t)(sh->busy_share * (double)n);
	for (size_t i = 0; i < n; i++) {
		bool busy = i >= b0 && i < b1;
		double io = (busy ? sh->busy_iops : sh->idle_iops) * (1 + 0.05 * gauss(&g));
		double sg = busy && sh->busy_sigma > 0 ? sh->busy_sigma : sh->sigma;
		double ms = (busy ? sh->busy_ms : sh->idle_ms) * exp(sg * gauss(&g));
		long t = (long)i * 10;
		fprintf(fp, "\"07/27/2026 %02ld:%02ld:%02ld\",\"%.3f\",\"%.3f\",\"%.1f\"\n", 8 + t / 3600, t / 60 % 60, t % 60, ms,
			ms + 0.01, fmax(0, io));
	}
	ck_assert_int_eq(fclose(fp), 0);
}

static void write_shape(const char *path, size_t n, const struct shape *sh, uint64_t seed)
{
	write_dev(path, "naa.600b", n, sh, seed);
}

static const struct cmp_row *shaped(struct compare *c, const char *dir, size_t n, const struct shape *b,
				    const struct shape *a, uint64_t seed, unsigned resamples)
{
	char pb[600], pa[600];
	snprintf(pb, sizeof pb, "%s/b.csv", dir);
	snprintf(pa, sizeof pa, "%s/a.csv", dir);
	write_shape(pb, n, b, 2 * seed);
	write_shape(pa, n, a, 2 * seed + 1);
	compare_init(c);
	add(c, CMP_BEFORE, dir, "b.csv");
	add(c, CMP_AFTER, dir, "a.csv");
	run(c, resamples, seed);
	const struct cmp_row *r = row_of(c, LAYER_DEVICE, "naa.600b", M_DAVG);
	ck_assert_ptr_nonnull(r);
	return r;
}

static bool called(const struct cmp_row *r)
{
	return r->verdict == CV_IMPROVED || r->verdict == CV_REGRESSED || r->verdict == CV_MIXED;
}

/* issue 24: the same busy phase (512 rows of 10 s at 30 ms over a 2 ms trickle) in a capture of
 * 1,024 rows and in one of 4,096. The longer one is kept at 40 s per value (the downsampler merges
 * pairwise past 1,024 buckets), so its tails are of means over four times as many rows, not the
 * same statistic. Neither the whole capture's figures (busy 50 % vs 12.5 % of the time) nor the
 * tails decide; the busy median and bands do, and nothing changed. */
START_TEST(lengths_and_widths)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const struct shape b = {.busy_share = 0.5, .busy_from = 0.25, .idle_iops = 40, .busy_iops = 900,
				.idle_ms = 2, .busy_ms = 30, .sigma = 0.25};
	struct shape a = b;
	a.busy_share = 0.125, a.busy_from = 0.0625;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		char pb[600], pa[600];
		snprintf(pb, sizeof pb, "%s/b.csv", dir);
		snprintf(pa, sizeof pa, "%s/a.csv", dir);
		write_shape(pb, 1024, &b, 2 * seed);
		write_shape(pa, 4096, &a, 2 * seed + 1);
		struct compare c;
		compare_init(&c);
		add(&c, CMP_BEFORE, dir, "b.csv");
		add(&c, CMP_AFTER, dir, "a.csv");
		run(&c, 300, seed);
		const struct cmp_row *r = row_of(&c, LAYER_DEVICE, "naa.600b", M_DAVG);
		ck_assert_ptr_nonnull(r);
		const struct cmp_pair *p = &c.pairs[r->pair];
		ck_assert(p->busy[0].distinct && p->busy[1].distinct);
		ck_assert(!p->shares_comparable && !p->widths_comparable);
		ck_assert_double_eq_tol(p->busy[1].bucket_s, 4 * p->busy[0].bucket_s, 1);
		for (int f = CF_P95; f <= CF_OVER1; f++)
			ck_assert(!r->fig[f].decides);
		ck_assert(!r->fig[CF_BUSY_P95].decides && !r->fig[CF_BUSY_P99].decides);
		ck_assert(r->fig[CF_BUSY_P50].decides && r->fig[CF_BUSY_OVER0].decides);
		ck_assert_msg(!called(r), "seed %d: %s", (int)seed, c.headline);
		ck_assert_int_eq(c.sum.outcome, CO_UNCHANGED);
		done(&c);
	}
	rmrf(dir);
}
END_TEST

/* An ETL-like day: a 10% busy phase at 30 ms over a 2 ms trickle. The same on both sides (other
 * draws): the busy phase is found on both sides, resampled apart from the idle rest, and no
 * figure calls a change more often than by chance. */
START_TEST(bimodal_null)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const struct shape sh = {.busy_share = 0.1, .busy_from = 0.3, .idle_iops = 40, .busy_iops = 900,
				 .idle_ms = 2, .busy_ms = 30, .sigma = 0.25};
	int calls = 0, trials = 25, figcalls[CF_COUNT] = {0};
	for (int k = 0; k < trials; k++) {
		struct compare c;
		const struct cmp_row *r = shaped(&c, dir, 720, &sh, &sh, (uint64_t)k + 1, 300);
		const struct cmp_pair *p = &c.pairs[r->pair];
		for (int s = 0; s < 2; s++) {
			ck_assert(p->busy[s].distinct);
			ck_assert_double_lt(fabs(p->busy[s].share - 0.1), 0.02);
			ck_assert_uint_eq(r->s[s].strata, 2);
		}
		ck_assert(p->comparable);
		ck_assert(r->fig[CF_BUSY_P50].used && r->fig[CF_OVER0].used);
		calls += called(r);
		for (int f = 0; f < CF_COUNT; f++) {
			figcalls[f] += r->fig[f].verdict == CV_IMPROVED || r->fig[f].verdict == CV_REGRESSED;
			if (getenv("CMP_DEBUG") && (r->fig[f].verdict == CV_IMPROVED || r->fig[f].verdict == CV_REGRESSED))
				fprintf(stderr, "trial %d %s %g -> %g ci %g..%g (%g..%g%%)\n", k, cmp_fig_names[f], r->fig[f].v[0],
					r->fig[f].v[1], r->fig[f].ci_diff[0], r->fig[f].ci_diff[1], r->fig[f].ci[0], r->fig[f].ci[1]);
		}
		done(&c);
	}
	/* the row reads several figures; each at a nominal 5% and a material change */
	ck_assert_msg(calls <= 2, "%d of %d null comparisons called a change", calls, trials);
	for (int f = 0; f < CF_COUNT; f++)
		ck_assert_msg(figcalls[f] <= 3, "figure %s called %d of %d times", cmp_fig_names[f], figcalls[f], trials);
	rmrf(dir);
}
END_TEST

/* The busy phase fixed (30 -> 8 ms) while the idle 90% stays at 2 ms: the median does not move
 * and does not decide; the tail, the time above the bands and the busy phase improve. Then the
 * after side without the busy phase: not comparable, never improved. */
START_TEST(bimodal_fixed)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const struct shape b = {.busy_share = 0.1, .busy_from = 0.3, .idle_iops = 40, .busy_iops = 900,
				.idle_ms = 2, .busy_ms = 30, .sigma = 0.25};
	struct shape a = b;
	a.busy_ms = 8;
	struct compare c;
	const struct cmp_row *r = shaped(&c, dir, 720, &b, &a, 5, 500);
	ck_assert_int_eq(r->verdict, CV_IMPROVED);
	ck_assert(!r->fig[CF_MEDIAN].decides);
	ck_assert_int_ne(r->fig[CF_MEDIAN].verdict, CV_IMPROVED);
	ck_assert_int_eq(r->fig[CF_P95].verdict, CV_IMPROVED);
	ck_assert_int_eq(r->fig[CF_OVER1].verdict, CV_IMPROVED); /* > 25 ms (device.davg.critical_ms) */
	ck_assert_int_eq(r->fig[CF_BUSY_P50].verdict, CV_IMPROVED);
	ck_assert(r->ci_diff[0] <= r->diff && r->diff <= r->ci_diff[1]);
	ck_assert_int_eq(c.sum.outcome, CO_IMPROVED);
	ck_assert_ptr_nonnull(strstr(c.headline, "Improved: naa.600b DAVG p95 "));
	done(&c);
	/* the after capture missed the busy phase */
	a.busy_share = 0;
	r = shaped(&c, dir, 720, &b, &a, 6, 300);
	ck_assert(!c.pairs[r->pair].comparable);
	ck_assert_int_eq(r->verdict, CV_NOT_COMPARABLE);
	ck_assert_int_eq(c.sum.outcome, CO_NOT_COMPARABLE);
	ck_assert_ptr_nonnull(strstr(c.headline, "Not comparable: the after capture has no busy period like the before "
						 "capture's 08:36-08:4"));
	ck_assert_ptr_nonnull(strstr(c.headline, " on naa.600b (busy phase before: "));
	done(&c);
	/* 2.5x the work in the busy phase at the same latency: unchanged, a capacity gain */
	a = b;
	a.busy_iops = 2250;
	r = shaped(&c, dir, 720, &b, &a, 7, 300);
	ck_assert_int_eq(r->verdict, CV_UNCHANGED);
	ck_assert_int_eq(c.sum.outcome, CO_UNCHANGED);
	ck_assert(c.sum.capacity_gain);
	ck_assert_int_eq(row_of(&c, LAYER_DEVICE, "naa.600b", M_CMDS)->verdict, CV_HIGHER);
	done(&c);
	rmrf(dir);
}
END_TEST

/* Heavy tails: log-normal latency with sigma 1 (p99 ~10x the median). The same on both sides: few
 * false calls; a tail that gets heavier at the same median (sigma 1 -> 1.4) is regressed by the
 * tail while the median is unchanged. */
START_TEST(heavy_tail)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const struct shape sh = {.busy_share = 0, .idle_iops = 300, .busy_iops = 300, .idle_ms = 5, .busy_ms = 5, .sigma = 1.0};
	int calls = 0, trials = 25;
	for (int k = 0; k < trials; k++) {
		struct compare c;
		const struct cmp_row *r = shaped(&c, dir, 720, &sh, &sh, (uint64_t)k + 100, 300);
		/* a steady load has no busy phase of its own: every active bucket is, and only its median
		 * (the typical IO of the work) is added */
		ck_assert(!c.pairs[r->pair].busy[0].distinct);
		ck_assert(r->fig[CF_BUSY_P50].used && r->fig[CF_BUSY_P50].decides && !r->fig[CF_BUSY_P95].used);
		ck_assert_uint_eq(r->s[0].strata, 1);
		calls += called(r);
		/* p99 of 720 values has 7 beyond it: judged; a degenerate interval never decides */
		for (int f = 0; f < CF_COUNT; f++)
			if (r->fig[f].reason == CR_DEGENERATE)
				ck_assert_int_eq(r->fig[f].verdict, CV_NOT_ASSESSED);
		done(&c);
	}
	ck_assert_msg(calls <= 2, "%d of %d null comparisons of heavy tails called a change", calls, trials);
	struct shape a = sh;
	a.sigma = 1.4;
	struct compare c;
	const struct cmp_row *r = shaped(&c, dir, 720, &sh, &a, 3, 500);
	ck_assert_int_eq(r->verdict, CV_REGRESSED);
	ck_assert_int_eq(r->fig[CF_P95].verdict, CV_REGRESSED);
	ck_assert_int_ne(r->fig[CF_MEDIAN].verdict, CV_REGRESSED);
	ck_assert_int_eq(c.sum.outcome, CO_REGRESSED);
	done(&c);
	/* too short for the tail (60 values: a p95 needs 100): the busy (= active) median and the bands
	 * decide; the median doubled is regressed */
	r = shaped(&c, dir, 60, &sh, &sh, 4, 300);
	ck_assert_int_eq(r->fig[CF_P95].reason, CR_FEW_TAIL);
	/* a band decides: the whole capture's when both sides are busy for comparable shares of their
	 * time, else the busy phase's (60 heavy-tailed values may split into two regimes on one side) */
	ck_assert(r->fig[CF_BUSY_P50].decides);
	ck_assert(c.pairs[r->pair].shares_comparable ? r->fig[CF_OVER0].decides
						     : r->fig[CF_BUSY_OVER0].decides && !r->fig[CF_OVER0].decides);
	done(&c);
	a = sh;
	a.idle_ms = a.busy_ms = 10;
	r = shaped(&c, dir, 60, &sh, &a, 5, 300);
	ck_assert_int_eq(r->fig[CF_BUSY_P50].verdict, CV_REGRESSED);
	ck_assert_int_eq(r->verdict, CV_REGRESSED);
	done(&c);
	rmrf(dir);
}
END_TEST

/* Two disks: one fixed, one made slower: mixed, and the headline says which is better and which
 * worse. */
START_TEST(mixed_outcome)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const struct shape b = {.busy_share = 0.1, .busy_from = 0.3, .idle_iops = 40, .busy_iops = 900,
				.idle_ms = 2, .busy_ms = 30, .sigma = 0.25};
	struct shape fixed = b, slower = b;
	fixed.busy_ms = 8;
	slower.busy_ms = 60;
	const char *names[4] = {"b1.csv", "b2.csv", "a1.csv", "a2.csv"};
	char p[4][600];
	for (int i = 0; i < 4; i++)
		snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
	write_dev(p[0], "naa.600b", 720, &b, 11);
	write_dev(p[1], "naa.600c", 720, &b, 12);
	write_dev(p[2], "naa.600b", 720, &fixed, 13);
	write_dev(p[3], "naa.600c", 720, &slower, 14);
	struct compare c;
	compare_init(&c);
	for (int i = 0; i < 4; i++)
		add(&c, i < 2 ? CMP_BEFORE : CMP_AFTER, dir, names[i]);
	run(&c, 300, 1);
	ck_assert_int_eq(row_of(&c, LAYER_DEVICE, "naa.600b", M_DAVG)->verdict, CV_IMPROVED);
	ck_assert_int_eq(row_of(&c, LAYER_DEVICE, "naa.600c", M_DAVG)->verdict, CV_REGRESSED);
	ck_assert_int_eq(c.sum.outcome, CO_MIXED);
	ck_assert_ptr_nonnull(strstr(c.headline, "Mixed: better: naa.600b DAVG "));
	ck_assert_ptr_nonnull(strstr(c.headline, "; worse: naa.600c DAVG "));
	done(&c);
	rmrf(dir);
}
END_TEST

/* issue 35: a row decides in proportion to its IO. The same as mixed_outcome, but the device that
 * got worse does a trickle (a few IO/s against the fixed one's 1,800 in their busy phases, under
 * compare.min_io_share of it): it is reported, with its weight, and the outcome is improved. With
 * compare.min_io_share = 0 it decides again: mixed. */
START_TEST(trickle_does_not_decide)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const struct shape b = {.busy_share = 0.1, .busy_from = 0.3, .idle_iops = 80, .busy_iops = 1800,
				.idle_ms = 2, .busy_ms = 30, .sigma = 0.25};
	struct shape fixed = b, tb = b, ta = b;
	fixed.busy_ms = 8;
	tb.idle_iops = 6, tb.busy_iops = 15, tb.busy_ms = 6;
	ta = tb, ta.busy_ms = 13;
	const char *names[4] = {"b1.csv", "b2.csv", "a1.csv", "a2.csv"};
	char p[4][600];
	for (int i = 0; i < 4; i++)
		snprintf(p[i], sizeof p[i], "%s/%s", dir, names[i]);
	write_dev(p[0], "naa.600b", 720, &b, 11);
	write_dev(p[1], "naa.600c", 720, &tb, 12);
	write_dev(p[2], "naa.600b", 720, &fixed, 13);
	write_dev(p[3], "naa.600c", 720, &ta, 14);
	for (int k = 0; k < 2; k++) {
		struct compare c;
		compare_init(&c);
		if (k)
			c.rules.v[R_CMP_MIN_IO_SHARE] = 0;
		for (int i = 0; i < 4; i++)
			add(&c, i < 2 ? CMP_BEFORE : CMP_AFTER, dir, names[i]);
		run(&c, 300, 1);
		const struct cmp_row *t = row_of(&c, LAYER_DEVICE, "naa.600c", M_DAVG);
		ck_assert_int_eq(row_of(&c, LAYER_DEVICE, "naa.600b", M_DAVG)->verdict, CV_IMPROVED);
		ck_assert_int_eq(t->verdict, CV_REGRESSED);
		ck_assert(t->io_share > 0 && t->io_share < 0.05);
		ck_assert_int_eq(t->material, k == 1);
		ck_assert_int_eq(c.sum.outcome, k ? CO_MIXED : CO_IMPROVED);
		if (!k)
			ck_assert_msg(strstr(c.verdict, "Worse, with too little IO to decide (under 5% of the "
							"busiest compared disk's IO): naa.600c DAVG ("),
				      "%s", c.verdict);
		done(&c);
	}
	rmrf(dir);
}
END_TEST

/* issue 35: a side that holds a sliver of the other side's busy phase (a capture or window that
 * ends 20 of 290 rows into it) is not comparable, naming the side; a side whose busy phase is a
 * fifth as long but did the same IOs (a faster stack finishing the same work) is compared. */
START_TEST(sliver_not_comparable)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	const struct shape b = {.busy_share = 0.4, .busy_from = 0.3, .idle_iops = 40, .busy_iops = 900,
				.idle_ms = 2, .busy_ms = 30, .sigma = 0.25};
	struct shape cut = b, fast = b;
	cut.busy_from = 0.972, cut.busy_share = 0.028;
	fast.busy_share = 0.08, fast.busy_iops = 4500, fast.busy_ms = 6;
	struct compare c;
	shaped(&c, dir, 720, &b, &cut, 5, 300);
	const struct cmp_pair *p = pair_of(&c, LAYER_DEVICE, "naa.600b");
	ck_assert_int_eq(p->sliver, 2);
	ck_assert_int_eq(c.sum.outcome, CO_NOT_COMPARABLE);
	ck_assert_msg(strstr(c.headline, "the after capture holds only "), "%s", c.headline);
	done(&c);
	shaped(&c, dir, 720, &b, &fast, 6, 300);
	p = pair_of(&c, LAYER_DEVICE, "naa.600b");
	ck_assert_int_eq(p->sliver, 0);
	ck_assert_int_ne(c.sum.outcome, CO_NOT_COMPARABLE);
	done(&c);
	rmrf(dir);
}
END_TEST

/* A misaligned partition found before (--before-partitions) with no partitions file after is
 * not gone: it was not assessed after. With the file after, it is still present. */
START_TEST(not_assessed_after)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char out[600], parts[700];
	snprintf(out, sizeof out, "%s/m", dir);
	simulate("misaligned-partition", "1", out, "600", "5");
	snprintf(parts, sizeof parts, "%s/partitions.txt", out);
	for (int with_after = 0; with_after < 2; with_after++) {
		struct compare c;
		compare_init(&c);
		add_dir(&c, CMP_BEFORE, out);
		add_dir(&c, CMP_AFTER, out);
		struct tdiag td;
		for (int s = 0; s < 1 + with_after; s++) {
			ck_assert_int_eq(partitions_read(&c.side[s].parts, parts, tdiag_init(&td, parts)), 0);
			c.side[s].have_parts = true;
			tdiag_free(&td);
		}
		run(&c, 200, 1);
		const struct cmp_fdiff *f = NULL;
		for (size_t k = 0; k < c.nfd; k++)
			if (c.fd[k].kind == K_ALIGN_MISALIGNED)
				f = &c.fd[k];
		ck_assert_ptr_nonnull(f);
		if (with_after) {
			ck_assert_int_eq(f->status, FD_STILL);
		} else {
			ck_assert_int_eq(f->status, FD_NOT_ASSESSED_AFTER);
			ck_assert_ptr_nonnull(strstr(f->why, "no partitions file after"));
			ck_assert_ptr_nonnull(strstr(c.verdict, "misaligned partition ("));
			ck_assert_ptr_nonnull(strstr(c.verdict, "): not assessed after (no partitions file after"));
			ck_assert_int_eq(c.sum.findings[FD_GONE], 0);
		}
		/* the same captures on both sides: nothing changed */
		ck_assert_int_eq(c.sum.outcome, CO_UNCHANGED);
		done(&c);
	}
	rmrf(dir);
}
END_TEST

/* ---- --match-map ---- */

START_TEST(map_parse)
{
	struct compare c;
	compare_init(&c);
	struct tdiag td;
	struct matchmap mm;
	const char *ok = "# moved to the new PVSCSI controller\n"
			 "SQL01:scsi0:1 = SQL01:scsi1:0\r\n"
			 "  SQL01\\d:=SQL01-NEW\\G:  \n"
			 "\n"
			 "APP02 (104c07ff-3663-44fb-9d89-a563c801611c):scsi0:0 = APP=3:scsi0:0\n";
	ck_assert_int_eq(matchmap_parse(&mm, ok, strlen(ok), tdiag_init(&td, "m")), 0);
	compare_use_matchmap(&c, &mm);
	matchmap_free(&mm);
	tdiag_free(&td);
	ck_assert_uint_eq(c.nmap, 3);
	ck_assert_str_eq(c.map[0].name[0], "SQL01:scsi0:1");
	ck_assert_str_eq(c.map[0].name[1], "SQL01:scsi1:0");
	ck_assert_ptr_null(c.map[0].host[0]);
	ck_assert_str_eq(c.map[1].host[0], "SQL01");
	ck_assert_str_eq(c.map[1].name[0], "d:");
	ck_assert_str_eq(c.map[1].host[1], "SQL01-NEW");
	ck_assert_str_eq(c.map[1].name[1], "G:");
	ck_assert_int_eq(c.map[1].line, 3);
	ck_assert_str_eq(c.map[2].name[1], "APP=3:scsi0:0");
	const char *bad = "ok = fine\nno equals sign\n = right only\nleft only =\n";
	ck_assert_int_eq(matchmap_parse(&mm, bad, strlen(bad), tdiag_init(&td, "bad.map")), ERR_FORMAT);
	ck_assert_uint_eq(mm.n, 1);
	matchmap_free(&mm);
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "bad.map:2:1: error:"));
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "bad.map:3:"));
	ck_assert_ptr_nonnull(strstr(td.msgs.data, "bad.map:4:"));
	ck_assert_ptr_null(strstr(td.msgs.data, "bad.map:1:"));
	tdiag_free(&td);
	ck_assert_int_eq(matchmap_read(&mm, "/nonexistent/x.map", tdiag_init(&td, "/nonexistent/x.map")), ERR_IO);
	matchmap_free(&mm);
	tdiag_free(&td);
	compare_free(&c);
}
END_TEST

/* Copies src to dst replacing every occurrence of the from[i] strings by to[i]. */
static void copy_replacing(const char *src, const char *dst, const char *const *from, const char *const *to, int n)
{
	FILE *in = fopen(src, "rb"), *out = fopen(dst, "wb");
	ck_assert(in && out);
	char line[1 << 16];
	struct buf b;
	buf_init(&b);
	while (fgets(line, sizeof line, in)) {
		buf_reset(&b);
		const char *p = line;
		while (*p) {
			int hit = -1;
			for (int i = 0; i < n && hit < 0; i++)
				if (strncmp(p, from[i], strlen(from[i])) == 0)
					hit = i;
			if (hit >= 0) {
				buf_adds(&b, to[hit]);
				p += strlen(from[hit]);
			} else {
				buf_addc(&b, *p++);
			}
		}
		ck_assert_uint_eq(fwrite(b.data, 1, b.len, out), b.len);
	}
	buf_free(&b);
	fclose(in);
	ck_assert_int_eq(fclose(out), 0);
}

START_TEST(renamed_entities)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char out[600], src[700], dst[700];
	snprintf(out, sizeof out, "%s/m", dir);
	simulate("migration", "2", out, "600", "5");
	/* the disks moved to a new controller, and the data LUN was replaced */
	snprintf(src, sizeof src, "%s/after/esxtop.csv", out);
	snprintf(dst, sizeof dst, "%s/renamed.csv", dir);
	const char *from[] = {"SQL01:scsi0:1)", "naa.624a93708c1f4e2b1102000067bf1af7"};
	const char *to[] = {"SQL01:scsi1:0)", "naa.624a93708c1f4e2b11ff000000000001"};
	copy_replacing(src, dst, from, to, 2);
	char b[700];
	snprintf(b, sizeof b, "%s/before", out);
	for (int with_map = 0; with_map < 2; with_map++) {
			struct compare c;
		compare_init(&c);
		add(&c, CMP_BEFORE, b, "esxtop.csv");
		add(&c, CMP_AFTER, dir, "renamed.csv");
		if (with_map) {
			struct tdiag td;
			struct matchmap mm;
			const char *m = "SQL01:scsi0:1 = SQL01:scsi1:0\n"
					"esx01.lab.local\\naa.624a93708c1f4e2b1102000067bf1af7 = naa.624a93708c1f4e2b11ff000000000001\n"
					"nothing = here\n";
			ck_assert_int_eq(matchmap_parse(&mm, m, strlen(m), tdiag_init(&td, "m")), 0);
			compare_use_matchmap(&c, &mm);
			matchmap_free(&mm);
			tdiag_free(&td);
		}
		struct compare_opts o;
		compare_opts_init(&o);
		o.resamples = 200;
		struct buf warn;
		buf_init(&warn);
		compare_run(&c, &o, DIAG_INTO(&warn));
		ck_assert_ptr_null(compare_contradiction(&c));
		const struct cmp_pair *vd = pair_of(&c, LAYER_VSCSI, "SQL01:scsi0:1");
		const struct cmp_pair *lun = pair_of(&c, LAYER_DEVICE, "naa.624a93708c1f4e2b1102000067bf1af7");
		ck_assert(vd && lun);
		if (with_map) {
			ck_assert(vd->mapped && lun->mapped);
			ck_assert_str_eq(vd->name[1], "SQL01:scsi1:0");
			ck_assert_str_eq(lun->name[1], "naa.624a93708c1f4e2b11ff000000000001");
			ck_assert_int_gt(vd->nrows, 0);
			ck_assert_ptr_nonnull(strstr(warn.data, "line 3"));
			ck_assert_ptr_null(pair_of(&c, LAYER_VSCSI, "SQL01:scsi1:0"));
		} else {
			ck_assert(vd->name[0] && !vd->name[1]);
			ck_assert(lun->name[0] && !lun->name[1]);
			const struct cmp_pair *n = pair_of(&c, LAYER_VSCSI, "SQL01:scsi1:0");
			ck_assert(n && !n->name[0] && n->name[1]);
			ck_assert_uint_eq(warn.len, 0);
		}
		/* everything else still matches by name */
		ck_assert_ptr_nonnull(pair_of(&c, LAYER_VSCSI, "SQL01:scsi0:2")->name[1]);
		buf_free(&warn);
		done(&c);
	}
	rmrf(dir);
}
END_TEST

/* ---- JSON: the documented keys, in order ---- */

START_TEST(json_schema)
{
	char dir[] = "/tmp/iopsy-cmp-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char out[600], b[700], a[700];
	snprintf(out, sizeof out, "%s/m", dir);
	simulate("migration", "1", out, "600", "5");
	snprintf(b, sizeof b, "%s/before", out);
	snprintf(a, sizeof a, "%s/after", out);
	struct compare c;
	compare_init(&c);
	add(&c, CMP_BEFORE, b, "perfmon.csv");
	add(&c, CMP_AFTER, a, "perfmon.csv");
	run(&c, 200, 1);
	char *j = json_of(&c);
	static const char *const keys[] = {
		"\"schema_version\": 2", "\"tool\": {", "\"outcome\": \"improved\"", "\"capacity_gain\": false",
		"\"headline\": \"Improved: SQL01 D: reads ", "\"verdict\": \"Improved: SQL01 D: reads ",
		"\"summary\": {", "\"decisive\": {", "\"method\": {", "\"busy_phase\": ", "\"before\": [", "\"after\": [",
		"\"match_map\": [",
		"\"comparisons\": [", "\"load_bins\": [", "\"only_before\": [", "\"only_after\": [",
		"\"findings_before\": [", "\"findings_after\": [", "\"findings_diff\": [",
	};
	const char *p = j;
	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
		const char *q = strstr(p, keys[k]);
		ck_assert_msg(q != NULL, "key %s missing or out of order", keys[k]);
		p = q;
	}
	/* one comparison has every documented field */
	const char *cmpk[] = {"\"entity\": \"D:\"", "\"host\": \"SQL01\"", "\"layer\": \"guest\"",
			      "\"metric\": \"guest_read_ms\"", "\"per_unit_of_load\": false", "\"decisive\": true",
			      "\"before\": {", "\"p50\": ", "\"p95\": ", "\"p99\": ",
			      "\"max\": ", "\"over_threshold_share\": [", "\"samples\": ", "\"after\": {",
			      "\"busy\": {", "\"measure\": \"outstanding_io\"", "\"comparable\": true", "\"figures\": [",
			      "\"figure\": \"median\"", "\"decides\": false", "\"change_pct\": -", "\"ci\": [",
			      "\"figure\": \"p95\"", "\"decides\": ", "\"verdict\": \"improved\"",
			      "\"figure\": \"time_above\"", "\"threshold\": 20", "\"figure\": \"busy_p50\"",
			      "\"outcome\": \"improved\"", "\"load_matched\": {"};
	p = strstr(j, "\"metric\": \"guest_read_ms\"");
	ck_assert_ptr_nonnull(p);
	while (p > j && strncmp(p, "\"entity\": ", 10) != 0)
		p--;
	for (size_t k = 0; k < sizeof cmpk / sizeof cmpk[0]; k++) {
		const char *q = strstr(p, cmpk[k]);
		ck_assert_msg(q != NULL, "comparison field %s missing or out of order", cmpk[k]);
		p = q;
	}
	ck_assert_ptr_nonnull(strstr(j, "\"status\": \"gone\""));
	/* no non-finite number printed as a value ("information" in a text is fine) */
	static const char *const bad[] = {": nan", ": -nan", ": inf", ": -inf", "[nan", "[inf", ", nan", ", inf", ", -inf"};
	for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
		ck_assert_msg(strstr(j, bad[k]) == NULL, "non-finite number in the JSON: %s", bad[k]);
	free(j);
	done(&c);
	rmrf(dir);
}
END_TEST

/* ---- vscsiStats histograms before and after (issue 40, compare_vhist.c) ---- */

static const struct cmp_vdisk *vdisk_of(const struct compare *c, const char *target, bool named)
{
	for (size_t i = 0; i < c->nvd; i++) {
		const struct cmp_vdisk *v = &c->vd[i];
		const struct vh_disk *d = v->d[1] ? v->d[1] : v->d[0];
		if (strcmp(d->target, target) == 0 && (!named || strcmp(d->vm, "SQL01") == 0))
			return v;
	}
	return NULL;
}

#define MIG "tests/inputs/compare/migration/"

/* The LSI day's vscsiStats against the PVSCSI day's, beside esxtop and perfmon: SQL01's data disk
 * is tied by its VM's name (each side's esxtop names the worldGroupID, which changed) and scsiC:T;
 * its outstanding IOs were piled at 32 before and went above 32 after: the verdict says the change
 * took effect on it. */
START_TEST(vhist_both_sides)
{
	struct compare c;
	compare_init(&c);
	static const char *const f[] = {"esxtop.csv.gz", "perfmon.csv.gz", "vscsistats.csv"};
	for (int k = 0; k < 3; k++) {
		add(&c, CMP_BEFORE, MIG "before", f[k]);
		add(&c, CMP_AFTER, MIG "after", f[k]);
	}
	run(&c, 200, 1);
	ck_assert_uint_ge(c.nvd, 5);
	ck_assert_ptr_null(c.vd_note);
	const struct cmp_vdisk *v = vdisk_of(&c, "scsi0:1", true);
	ck_assert_ptr_nonnull(v);
	ck_assert(v->d[0] && v->d[1] && !v->guess);
	ck_assert_int_ne(v->d[0]->gid, v->d[1]->gid);
	ck_assert_int_eq(v->cap[0], 0);
	ck_assert_int_eq(v->cap[1], 1);
	ck_assert_msg(strstr(v->text, "the change of controller took effect on this disk") &&
			      strstr(v->text, "read from the identifiers"), "%s", v->text);
	ck_assert_msg(strstr(c.verdict, "the controller change took effect on VM SQL01 scsi0:1 (max 57)"), "%s",
		      c.verdict);
	ck_assert_msg(strstr(c.detail, "took effect"), "the detail (what the reports show) lost it: %s", c.detail);
	/* the JSON's vscsi_disks: SQL01's data disk piled at 32 before, not after */
	char *js = json_of(&c);
	const char *at = strstr(js, "\"name\": \"VM SQL01 scsi0:1\"");
	ck_assert_ptr_nonnull(at);
	const char *p32 = strstr(at, "\"piled_at\": 32"), *pn = strstr(at, "\"piled_at\": null"),
		   *aft = strstr(at, "\"after\": {");
	ck_assert_msg(p32 && aft && pn && p32 < aft && pn > aft, "%.600s", at);
	free(js);
	done(&c);
}
END_TEST

/* Histograms alone on both sides: nothing over time to compare, said; the data disk is tied by
 * scsiC:T alone (the worldGroupIDs differ and no capture names the VM): a guess, said. Then only
 * the before side has histograms: shown, not compared, said. */
START_TEST(vhist_alone_and_one_side)
{
	struct compare c;
	compare_init(&c);
	add(&c, CMP_BEFORE, MIG "before", "vscsistats.csv");
	add(&c, CMP_AFTER, MIG "after", "vscsistats.csv");
	run(&c, 200, 1);
	const struct cmp_vdisk *v = vdisk_of(&c, "scsi0:1", false);
	ck_assert_ptr_nonnull(v);
	ck_assert(v->d[0] && v->d[1] && v->guess);
	ck_assert_msg(strstr(v->text, "worldGroupID 55761 before, 43878 after") && strstr(v->text, "a guess"), "%s",
		      v->text);
	ck_assert_msg(strstr(c.verdict, "Both sides have histograms only") &&
			      strstr(c.verdict, "tied by scsiC:T alone: a guess"), "%s", c.verdict);
	/* scsi0:0 is on two VMs of each side: not tied by scsiC:T alone */
	size_t lone = 0;
	for (size_t i = 0; i < c.nvd; i++)
		if (!c.vd[i].d[0] || !c.vd[i].d[1]) {
			lone++;
			ck_assert_msg(strstr(c.vd[i].text, "cannot be told apart"), "%s", c.vd[i].text);
		}
	ck_assert_uint_ge(lone, 2);
	done(&c);

	compare_init(&c);
	add(&c, CMP_BEFORE, MIG "before", "esxtop.csv.gz");
	add(&c, CMP_BEFORE, MIG "before", "vscsistats.csv");
	add(&c, CMP_AFTER, MIG "after", "esxtop.csv.gz");
	run(&c, 200, 1);
	ck_assert_msg(c.vd_note && strstr(c.vd_note, "Only the before side has vscsiStats histograms"), "%s",
		      c.vd_note ? c.vd_note : "(none)");
	for (size_t i = 0; i < c.nvd; i++) {
		ck_assert(c.vd[i].d[0] && !c.vd[i].d[1]);
		ck_assert_msg(strstr(c.vd[i].text, "before only, not compared"), "%s", c.vd[i].text);
	}
	ck_assert_ptr_null(strstr(c.verdict, "vscsiStats"));
	done(&c);
}
END_TEST

/* The piles an outstanding-IO histogram can show: at 32 with none above (the LSI Logic cap), IOs
 * above 32 (not capped there), at 64 with none above (the PVSCSI per-disk default), neither. */
START_TEST(vhist_piles)
{
	static const double lim[] = {1, 2, 4, 6, 8, 12, 16, 20, 24, 28, 32, 64, 64};
	struct vh_disk d;
	memset(&d, 0, sizeof d);
	snprintf(d.disk, sizeof d.disk, "7:scsi0:1");
	struct vh_hist *h = &d.h[VH_OIO];
	h->nb = 13;
	for (int b = 0; b < 13; b++)
		h->lim[b] = lim[b];
	h->gt[12] = true;
	h->count = 100;
	h->n[10] = 90, h->n[1] = 10; /* piled at 32 */
	ck_assert_int_eq(vhist_cap_state(h), 0);
	ck_assert(!vhist_pvscsi_pile(h));
	h->n[10] = 10, h->n[11] = 80; /* piled at 64 */
	ck_assert_int_eq(vhist_cap_state(h), 1);
	ck_assert(vhist_pvscsi_pile(h));
	struct buf t;
	buf_init(&t);
	vhist_sentence(&d, &t);
	ck_assert_msg(strstr(t.data, "piled at 64 with none above: what the PVSCSI per-disk default does") &&
			      strstr(t.data, "not capped at the LSI limit"),
		      "%s", t.data);
	h->n[11] = 40, h->n[12] = 40; /* above 64 */
	ck_assert(!vhist_pvscsi_pile(h));
	h->n[10] = h->n[11] = h->n[12] = 0, h->n[1] = 100; /* idle */
	ck_assert_int_eq(vhist_cap_state(h), -1);
	buf_free(&t);
}
END_TEST

Suite *compare_suite(void); /* also in suites.h once the suite is listed there */
Suite *compare_suite(void)
{
	Suite *s = suite_create("compare");
	TCase *tc = tcase_create("compare");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, migration);
	tcase_add_loop_test(tc, seeds_unchanged, 0, (int)(sizeof same_scenarios / sizeof same_scenarios[0]));
	tcase_add_test(tc, deterministic);
	tcase_add_test(tc, coverage_autocorrelated);
	tcase_add_test(tc, power);
	tcase_add_test(tc, map_parse);
	tcase_add_test(tc, renamed_entities);
	tcase_add_test(tc, json_schema);
	tcase_add_test(tc, bimodal_null);
	tcase_add_test(tc, bimodal_fixed);
	tcase_add_test(tc, heavy_tail);
	tcase_add_test(tc, lengths_and_widths);
	tcase_add_test(tc, mixed_outcome);
	tcase_add_test(tc, trickle_does_not_decide);
	tcase_add_test(tc, sliver_not_comparable);
	tcase_add_test(tc, not_assessed_after);
	suite_add_tcase(s, tc);
	TCase *vh = tcase_create("vhist");
	tcase_set_timeout(vh, 120);
	tcase_add_test(vh, vhist_both_sides);
	tcase_add_test(vh, vhist_alone_and_one_side);
	tcase_add_test(vh, vhist_piles);
	suite_add_tcase(s, vh);
	return s;
}
