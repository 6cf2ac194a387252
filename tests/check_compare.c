/* check_compare.c — `iopsy compare` against known truth: the simulator's LSI -> PVSCSI migration
 * pair (DOMAIN.md §1 figures, findings gone, no false improvement where nothing changed), two
 * seeds of one scenario (unchanged), bootstrap determinism and interval coverage on synthetic
 * autocorrelated series, --match-map parsing and renamed entities, and the JSON schema. */
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

/* ---- the migration pair (DOMAIN.md §1) ---- */

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
	ck_assert_int_eq(cap->status, CF_GONE);
	ck_assert_int_eq(fdiff_of(&c, "queue.guest_hidden", "D:")->status, CF_GONE);
	ck_assert_int_eq(fdiff_of(&c, "latency.guest_read", "D:")->status, CF_GONE);
	for (size_t k = 0; k < c.nfd; k++)
		ck_assert_msg(c.fd[k].status != CF_NEW || strncmp(kinds[c.fd[k].kind].name, "queue.guest", 11) != 0, "new %s",
			      kinds[c.fd[k].kind].name);
	ck_assert_ptr_nonnull(strstr(c.verdict, "guest queue at the vSCSI per-disk limit (SQL01 D:): gone"));
	ck_assert_int_ge(c.sum.bottleneck, 0);

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
		ck_assert_msg(row->verdict != CV_IMPROVED && row->verdict != CV_REGRESSED, "%s: %s %s %s (%.1f%%)",
			      same_scenarios[_i], layer_names[p->layer], p->name[0], metric_info[row->spec->metric].name,
			      row->change_pct);
		ck_assert_msg(!row->has_lm || (row->lm.verdict != CV_IMPROVED && row->lm.verdict != CV_REGRESSED),
			      "%s: %s %s at equal load", same_scenarios[_i], p->name[0], metric_info[row->spec->metric].name);
	}
	ck_assert_int_ge(assessed, 5);
	ck_assert_int_eq(c.sum.latency[CV_IMPROVED] + c.sum.latency[CV_REGRESSED], 0);
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
		"\"schema_version\": 1", "\"tool\": {", "\"verdict\": \"After the change IO waits less",
		"\"summary\": {", "\"method\": {", "\"before\": [", "\"after\": [", "\"match_map\": [",
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
			      "\"metric\": \"guest_read_ms\"", "\"before\": {", "\"p50\": ", "\"p95\": ", "\"p99\": ",
			      "\"max\": ", "\"over_threshold_share\": [", "\"samples\": ", "\"after\": {",
			      "\"change_pct\": -", "\"ci\": [", "\"verdict\": \"improved\"", "\"load_matched\": {"};
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
	suite_add_tcase(s, tc);
	return s;
}
