/* check_sim.c — tests of `iopsy simulate`: the queueing model obeys its invariants (ACTV <= DQLEN,
 * GAVG = DAVG + KAVG, QAVG <= KAVG, Little's law, the LSI per-disk limit, the AQD staircase, the
 * DSNRO cap), runs are deterministic per seed, and every scenario writes its files and a valid
 * truth.json. Outputs go to mkdtemp directories removed afterwards. */
#include <check.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim/capture.h"
#include "sim/model.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "commands.h"

Suite *sim_suite(void);

/* ---- helpers ---- */

/* dir/name into p (PATH_BUF bytes); a path that does not fit fails the test. */
enum { PATH_BUF = 4096 };
static void path_join(char *p, const char *dir, const char *name)
{
	int n = snprintf(p, PATH_BUF, "%s/%s", dir, name);
	ck_assert(n > 0 && n < PATH_BUF);
}

static void rm_tree(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char p[4096];
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		path_join(p, dir, e->d_name);
		struct stat st;
		if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
			rm_tree(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *b = malloc(cap + 1);
	size_t k;
	while (b && (k = fread(b + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			char *nb = realloc(b, cap * 2 + 1);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (b)
		b[n] = 0;
	if (len)
		*len = n;
	return b;
}

static bool exists(const char *dir, const char *name)
{
	char p[4096];
	path_join(p, dir, name);
	struct stat st;
	return stat(p, &st) == 0 && st.st_size > 0;
}

/* Minimal JSON validator (RFC 8259 grammar, no semantic checks). */
static const char *js_ws(const char *s)
{
	while (*s == ' ' || *s == '\n' || *s == '\r' || *s == '\t')
		s++;
	return s;
}
static const char *js_value(const char *s);
static const char *js_string(const char *s)
{
	if (*s != '"')
		return NULL;
	for (s++; *s && *s != '"'; s++) {
		if ((unsigned char)*s < 0x20)
			return NULL;
		if (*s == '\\') {
			s++;
			if (!*s || !strchr("\"\\/bfnrtu", *s))
				return NULL;
		}
	}
	return *s == '"' ? s + 1 : NULL;
}
static const char *js_value(const char *s)
{
	s = js_ws(s);
	if (*s == '{' || *s == '[') {
		char close = *s == '{' ? '}' : ']';
		bool obj = *s == '{';
		s = js_ws(s + 1);
		if (*s == close)
			return s + 1;
		for (;;) {
			if (obj) {
				s = js_string(js_ws(s));
				if (!s)
					return NULL;
				s = js_ws(s);
				if (*s++ != ':')
					return NULL;
			}
			s = js_value(s);
			if (!s)
				return NULL;
			s = js_ws(s);
			if (*s == ',') {
				s++;
				continue;
			}
			return *s == close ? s + 1 : NULL;
		}
	}
	if (*s == '"')
		return js_string(s);
	if (!strncmp(s, "true", 4) || !strncmp(s, "null", 4))
		return s + 4;
	if (!strncmp(s, "false", 5))
		return s + 5;
	char *end;
	strtod(s, &end);
	return end > s ? end : NULL;
}
static bool json_valid(const char *s)
{
	const char *e = js_value(s);
	return e && *js_ws(e) == 0;
}

static void build(struct sim_config *c, const char *scenario, int part, uint64_t seed, double duration)
{
	const struct sim_scenario *sc = sim_scenario_find(scenario);
	ck_assert_ptr_nonnull(sc);
	struct sim_opts o;
	sim_opts_default(&o);
	o.seed = seed;
	o.duration = duration;
	sim_config_build(c, sc, part, &o);
}

static char *tmpdir(void)
{
	char tmpl[] = "/tmp/iopsy-check-sim-XXXXXX";
	char *d = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(d);
	return strdup(d);
}

/* ---- model invariants on the esxtop rows of every scenario ---- */

struct inv {
	int rows;
	double sum_actv[SIM_MAX_DEV], sum_little_a[SIM_MAX_DEV];
	double sum_qued[SIM_MAX_DEV], sum_little_q[SIM_MAX_DEV];
	int ndev;
	char failure[256];
};

static void inv_row(void *ctx, const struct sim_model *m, const struct sim_esx *w, double t)
{
	struct inv *k = ctx;
	(void)t;
	k->rows++;
	k->ndev = m->cfg->ndev;
	for (int d = 0; d < m->cfg->ndev; d++) {
		const struct sim_esx_dev_row *r = sim_esx_last_dev(w, d);
		if (k->failure[0])
			return;
		if (r->actv > r->dqlen)
			snprintf(k->failure, sizeof k->failure, "dev %d: ACTV %g > DQLEN %g", d, r->actv, r->dqlen);
		else if (fabs(r->gavg - (r->davg + r->kavg)) > 0.0101)
			snprintf(k->failure, sizeof k->failure, "dev %d: GAVG %g != DAVG %g + KAVG %g", d, r->gavg, r->davg,
				 r->kavg);
		else if (r->qavg > r->kavg + 0.0101)
			snprintf(k->failure, sizeof k->failure, "dev %d: QAVG %g > KAVG %g", d, r->qavg, r->kavg);
		else if (fabs(r->usd - 100.0 * r->actv / r->dqlen) > 1e-6 ||
			 fabs(r->load - (r->actv + r->qued) / r->dqlen) > 1e-6)
			snprintf(k->failure, sizeof k->failure, "dev %d: %%USD/LOAD inconsistent", d);
		k->sum_actv[d] += r->actv;
		k->sum_little_a[d] += r->cmds * r->davg / 1000.0;
		k->sum_qued[d] += r->qued;
		k->sum_little_q[d] += r->cmds * r->qavg / 1000.0;
	}
}

START_TEST(test_invariants_every_scenario)
{
	const struct sim_scenario *sc = &sim_scenarios[_i];
	for (int part = 0; part < sc->nparts; part++) {
		struct sim_config *c = calloc(1, sizeof *c);
		build(c, sc->name, part, 7, 600);
		struct inv *k = calloc(1, sizeof *k);
		struct sim_hooks h = {.ctx = k, .on_esx_row = inv_row};
		char *dir = tmpdir();
		struct sim_result res;
		ck_assert_int_eq(sim_run(c, dir, &h, &res), 0);
		ck_assert_int_eq(res.esx_rows, k->rows);
		ck_assert_int_gt(res.perf_rows, 250);
		ck_assert_msg(!k->failure[0], "%s: %s", sc->name, k->failure);
		ck_assert_int_gt(k->rows, 250);
		/* Little's law: ACTV (point samples) ~ CMDS x DAVG, QUED ~ CMDS x QAVG (interval
		 * averages), summed over the run: within 10 % plus four standard deviations of the
		 * counting noise of the point samples. */
		for (int d = 0; d < k->ndev; d++) {
			double la = k->sum_little_a[d], lq = k->sum_little_q[d];
			ck_assert_msg(fabs(k->sum_actv[d] - la) <= 0.10 * la + 4 * sqrt(la) + 1,
				      "%s dev %d: sum ACTV %g vs sum CMDS*DAVG %g", sc->name, d, k->sum_actv[d], la);
			ck_assert_msg(fabs(k->sum_qued[d] - lq) <= 0.15 * lq + 4 * sqrt(lq) + 1,
				      "%s dev %d: sum QUED %g vs sum CMDS*QAVG %g", sc->name, d, k->sum_qued[d], lq);
		}
		rm_tree(dir);
		free(dir);
		free(k);
		free(c);
	}
}
END_TEST

/* ---- LSI Logic SAS never holds more than 32 IOs per disk, and the ETL pins it there ---- */

START_TEST(test_lsi_guest_queue_never_above_32)
{
	struct sim_config *c = calloc(1, sizeof *c);
	build(c, "lsi-guest-queue-cap", 0, 3, 600);
	struct sim_model *m = calloc(1, sizeof *m);
	ck_assert_int_eq(sim_model_init(m, c), 0);
	int d_disk = -1;
	for (int v = 0; v < c->nvdisk; v++)
		if (!strcmp(c->vdisk[v].drive, "D:") && !strcmp(c->vm[c->vdisk[v].vm].name, "SQL01"))
			d_disk = v;
	ck_assert_int_ge(d_disk, 0);
	int pinned = 0, etl_steps = 0, guest_above = 0;
	while (m->t < c->duration) {
		ck_assert_int_eq(sim_model_step(m), 0);
		for (int v = 0; v < c->nvdisk; v++)
			if (c->ctrl[c->vdisk[v].ctrl].kind == SIM_CTRL_LSI)
				ck_assert_msg(m->vs[v].vscsi_out <= 32 + 1e-6, "disk %d holds %g IOs in the LSI controller",
					      v, m->vs[v].vscsi_out);
		if (m->t > 0.3 * c->duration && m->t < 0.7 * c->duration) {
			etl_steps++;
			pinned += m->vs[d_disk].vscsi_out > 31.9;
			/* the guest sees the excess waiting above the controller */
			guest_above += sim_model_sample_guest(m, d_disk) >= 32;
		}
	}
	ck_assert_int_gt(pinned, etl_steps * 9 / 10);
	ck_assert_int_gt(guest_above, etl_steps * 9 / 10);
	sim_model_free(m);
	free(m);
	free(c);
}
END_TEST

/* The same workload on PVSCSI: the guest queue falls below the LSI limit most of the time. */
START_TEST(test_pvscsi_after_queue_lower)
{
	struct sim_config *c = calloc(1, sizeof *c);
	struct sim_model *m = calloc(1, sizeof *m);
	double mean_out[2] = {0, 0};
	for (int part = 0; part < 2; part++) {
		build(c, "migration", part, 5, 600);
		ck_assert_int_eq(sim_model_init(m, c), 0);
		int n = 0;
		while (m->t < c->duration) {
			ck_assert_int_eq(sim_model_step(m), 0);
			if (m->t > 0.3 * c->duration && m->t < 0.7 * c->duration) {
				mean_out[part] += m->vs[1].guest_out;
				n++;
			}
		}
		mean_out[part] /= n;
		sim_model_free(m);
	}
	ck_assert_msg(mean_out[0] > 100 && mean_out[1] < 32, "guest queue before %g, after %g", mean_out[0],
		      mean_out[1]);
	free(m);
	free(c);
}
END_TEST

/* ---- adaptive queue depth: halve on QUEUE FULL, +1 per batch of good completions ---- */

START_TEST(test_aqd_halves_then_climbs_by_one)
{
	struct sim_config *c = calloc(1, sizeof *c);
	build(c, "adaptive-queue-depth", 0, 11, 900);
	struct sim_model *m = calloc(1, sizeof *m);
	ck_assert_int_eq(sim_model_init(m, c), 0);
	int dev = -1;
	for (int d = 0; d < c->ndev; d++)
		if (c->dev[d].aqd)
			dev = d;
	ck_assert_int_ge(dev, 0);
	int prev = c->dev[dev].dqlen, halvings = 0, climbs = 0;
	while (m->t < c->duration) {
		ck_assert_int_eq(sim_model_step(m), 0);
		int cur = m->ds[dev].aqd_depth;
		if (cur != prev) {
			int half = prev / 2 < c->dev[dev].aqd_floor ? c->dev[dev].aqd_floor : prev / 2;
			ck_assert_msg(cur == half || cur == prev + 1, "DQLEN %d -> %d is neither a halving nor +1", prev, cur);
			halvings += cur == half;
			climbs += cur == prev + 1;
		}
		ck_assert_int_le(m->ds[dev].dqlen, c->dev[dev].dqlen);
		prev = cur;
	}
	ck_assert_int_ge(halvings, 5);
	ck_assert_int_ge(climbs, 5 * halvings);
	/* every halving is logged as ScsiSched "Reduced the queue depth" */
	size_t reduce = 0, qfull = 0;
	for (size_t i = 0; i < m->nev; i++) {
		reduce += m->ev[i].kind == SIM_EV_REDUCE;
		qfull += m->ev[i].kind == SIM_EV_QFULL;
	}
	ck_assert_int_eq((int)reduce, halvings);
	ck_assert_int_gt((int)qfull, halvings);
	sim_model_free(m);
	free(m);
	free(c);
}
END_TEST

/* ---- DSNRO: DQLEN is 32 only while both VMs are active on the LUN ---- */

START_TEST(test_dsnro_cap_while_two_worlds)
{
	struct sim_config *c = calloc(1, sizeof *c);
	build(c, "dsnro-cap", 0, 2, 600);
	struct sim_model *m = calloc(1, sizeof *m);
	ck_assert_int_eq(sim_model_init(m, c), 0);
	int dev = c->vdisk[1].dev;
	while (m->t < c->duration) {
		ck_assert_int_eq(sim_model_step(m), 0);
		double f = m->t / c->duration;
		if (f < 0.3)
			ck_assert_int_eq(m->ds[dev].dqlen, 64);
		else if (f > 0.4 && f < 0.6) {
			ck_assert_int_eq(m->ds[dev].dqlen, 32);
			ck_assert_int_eq(m->ds[dev].active_worlds, 2);
		}
	}
	sim_model_free(m);
	free(m);
	free(c);
}
END_TEST

/* ---- SIOC: DQLEN moves in small steps and settles DAVG near the 30 ms threshold ---- */

START_TEST(test_sioc_smooth_throttle)
{
	struct sim_config *c = calloc(1, sizeof *c);
	build(c, "sioc-throttle", 0, 4, 900);
	struct sim_model *m = calloc(1, sizeof *m);
	ck_assert_int_eq(sim_model_init(m, c), 0);
	int dev = -1;
	for (int d = 0; d < c->ndev; d++)
		if (c->dev[d].sioc)
			dev = d;
	int prev = c->dev[dev].dqlen, min = prev;
	double lat = 0;
	int n = 0;
	while (m->t < c->duration) {
		ck_assert_int_eq(sim_model_step(m), 0);
		int cur = m->ds[dev].dqlen;
		ck_assert_msg(abs(cur - prev) <= prev / 3 + 1, "SIOC step %d -> %d is not smooth", prev, cur);
		min = cur < min ? cur : min;
		prev = cur;
		if (m->t > 0.6 * c->duration && m->t < 0.8 * c->duration) {
			lat += m->ds[dev].davg_ms;
			n++;
		}
	}
	ck_assert_int_lt(min, 48);
	ck_assert_msg(fabs(lat / n - 30) < 6, "DAVG under SIOC %g ms", lat / n);
	sim_model_free(m);
	free(m);
	free(c);
}
END_TEST

/* ---- determinism per seed ---- */

START_TEST(test_deterministic_per_seed)
{
	char *a = tmpdir(), *b = tmpdir(), *d = tmpdir();
	char *argv_a[] = {"simulate", "--scenario", "adaptive-queue-depth", "--out", a, "--duration", "120", "--seed", "42", NULL};
	char *argv_b[] = {"simulate", "--scenario", "adaptive-queue-depth", "--out", b, "--duration", "120", "--seed", "42", NULL};
	char *argv_d[] = {"simulate", "--scenario", "adaptive-queue-depth", "--out", d, "--duration", "120", "--seed", "43", NULL};
	ck_assert_int_eq(sim_main(9, argv_a), 0);
	ck_assert_int_eq(sim_main(9, argv_b), 0);
	ck_assert_int_eq(sim_main(9, argv_d), 0);
	static const char *files[] = {"esxtop.csv", "perfmon.csv", "vmkernel.log", "truth.json", "disks.map"};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char pa[4096], pb[4096], pd[4096];
		path_join(pa, a, files[i]);
		path_join(pb, b, files[i]);
		path_join(pd, d, files[i]);
		size_t la, lb, ld;
		char *xa = slurp(pa, &la), *xb = slurp(pb, &lb), *xd = slurp(pd, &ld);
		ck_assert_ptr_nonnull(xa);
		ck_assert_ptr_nonnull(xb);
		ck_assert_ptr_nonnull(xd);
		ck_assert_msg(la == lb && memcmp(xa, xb, la) == 0, "%s differs for the same seed", files[i]);
		if (!strcmp(files[i], "esxtop.csv") || !strcmp(files[i], "perfmon.csv"))
			ck_assert_msg(la != ld || memcmp(xa, xd, la) != 0, "%s identical for different seeds", files[i]);
		free(xa);
		free(xb);
		free(xd);
	}
	rm_tree(a);
	rm_tree(b);
	rm_tree(d);
	free(a);
	free(b);
	free(d);
}
END_TEST

/* ---- every scenario writes its files and a valid truth.json ---- */

static void check_capture_dir(const char *dir, const struct sim_config *c)
{
	ck_assert(exists(dir, "esxtop.csv"));
	ck_assert(exists(dir, "perfmon.csv"));
	ck_assert(exists(dir, "disks.map"));
	ck_assert(exists(dir, "truth.json"));
	ck_assert(exists(dir, "vmkernel.log") == c->want_vmklog);
	ck_assert(exists(dir, "partitions.txt") == c->want_partitions);
	char p[4096];
	path_join(p, dir, "truth.json");
	char *t = slurp(p, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert_msg(json_valid(t), "invalid truth.json in %s:\n%s", dir, t);
	char key[96];
	snprintf(key, sizeof key, "\"scenario\": \"%s\"", c->scenario);
	ck_assert_ptr_nonnull(strstr(t, key));
	ck_assert_ptr_nonnull(strstr(t, "\"expect\": ["));
	ck_assert_ptr_nonnull(strstr(t, "\"absent\": ["));
	/* every "kind" is one of issue 4's */
	for (const char *s = strstr(t, "\"kind\": \""); s; s = strstr(s + 1, "\"kind\": \"")) {
		char kind[64];
		const char *b = s + 9, *e = strchr(b, '"');
		ck_assert_ptr_nonnull(e);
		snprintf(kind, sizeof kind, "%.*s", (int)(e - b), b);
		ck_assert_msg(sim_kind_index(kind) >= 0, "unknown kind %s", kind);
	}
	/* an expected kind is never also declared absent */
	for (int i = 0; i < c->nexpect; i++)
		ck_assert(!(c->absent & (1u << sim_kind_index(c->expect[i].kind))));
	free(t);

	/* esxtop: PDH-CSV header, every field quoted, LF, trailing empty field unless -a */
	path_join(p, dir, "esxtop.csv");
	size_t n;
	char *x = slurp(p, &n);
	ck_assert_ptr_nonnull(x);
	ck_assert(!strncmp(x, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\esx01.lab.local\\", 43));
	ck_assert(x[n - 1] == '\n' && !strchr(x, '\r'));
	const char *nl = strchr(x, '\n');
	ck_assert(nl[-1] == (c->all_counters ? '"' : ','));
	ck_assert_int_eq(nl[1], '"');
	ck_assert(nl[4] == '/' && nl[7] == '/' && nl[12] == ' ' && nl[21] == '"');   /* "MM/DD/YYYY HH:MM:SS" */
	free(x);

	/* perfmon: bias header, CRLF, " " first row */
	path_join(p, dir, "perfmon.csv");
	x = slurp(p, &n);
	ck_assert_ptr_nonnull(x);
	ck_assert(!strncmp(x, "\"(PDH-CSV 4.0) (Pacific Daylight Time)(420)\",\"\\\\SQL01\\", 53));
	nl = strchr(x, '\n');
	ck_assert(nl[-1] == '\r');
	const char *row2 = strchr(nl + 1, '\n');
	ck_assert_ptr_nonnull(strstr(nl, "\" \""));
	ck_assert(strstr(nl, "\" \"") < row2);
	ck_assert(nl[21] == '.' && nl[25] == '"');   /* "MM/dd/yyyy HH:mm:ss.fff" */
	free(x);
}

START_TEST(test_scenario_writes_files)
{
	const struct sim_scenario *sc = &sim_scenarios[_i];
	char *dir = tmpdir();
	char name[64];
	snprintf(name, sizeof name, "%s", sc->name);
	char *argv[] = {"simulate", "--scenario", name, "--out", dir, "--duration", "60", NULL};
	ck_assert_int_eq(sim_main(7, argv), 0);
	for (int part = 0; part < sc->nparts; part++) {
		struct sim_config *c = calloc(1, sizeof *c);
		build(c, sc->name, part, 1, 60);
		char sub[4096];
		if (sc->nparts > 1)
			path_join(sub, dir, sc->part_dir[part]);
		else
			snprintf(sub, sizeof sub, "%s", dir);
		check_capture_dir(sub, c);
		free(c);
	}
	rm_tree(dir);
	free(dir);
}
END_TEST

/* ---- --width gives exactly that many columns on every line ---- */

static long count_fields(const char *s, const char *end)
{
	long n = 1;
	bool q = false;
	for (; s < end; s++) {
		if (*s == '"')
			q = !q;
		else if (*s == ',' && !q)
			n++;
	}
	return n;
}

START_TEST(test_width_exact)
{
	char *dir = tmpdir();
	char *argv[] = {"simulate", "--scenario", "healthy", "--out", dir, "--duration", "30", "--width", "12345", NULL};
	ck_assert_int_eq(sim_main(9, argv), 0);
	char p[4096];
	path_join(p, dir, "esxtop.csv");
	size_t n;
	char *x = slurp(p, &n);
	ck_assert_ptr_nonnull(x);
	int lines = 0;
	for (char *s = x; s < x + n;) {
		char *e = memchr(s, '\n', (size_t)(x + n - s));
		ck_assert_ptr_nonnull(e);
		/* 12345 columns plus the empty trailing field */
		ck_assert_int_eq(count_fields(s, e), 12346);
		lines++;
		s = e + 1;
	}
	ck_assert_int_ge(lines, 14);
	free(x);
	rm_tree(dir);
	free(dir);
}
END_TEST

START_TEST(test_gzip_output)
{
	char *dir = tmpdir();
	char *argv[] = {"simulate", "--scenario", "split-io", "--out", dir, "--duration", "30", "--gzip", NULL};
	ck_assert_int_eq(sim_main(8, argv), 0);
	char p[4096];
	path_join(p, dir, "esxtop.csv.gz");
	size_t n;
	char *x = slurp(p, &n);
	ck_assert_ptr_nonnull(x);
	ck_assert(n > 18 && (unsigned char)x[0] == 0x1f && (unsigned char)x[1] == 0x8b);
	free(x);
	ck_assert(exists(dir, "perfmon.csv.gz"));
	ck_assert(!exists(dir, "esxtop.csv"));
	rm_tree(dir);
	free(dir);
}
END_TEST

START_TEST(test_cli_usage_errors)
{
	char *dir = tmpdir();
	char *a1[] = {"simulate", "--scenario", "no-such", "--out", dir, NULL};
	ck_assert_int_eq(sim_main(5, a1), 2);
	char *a2[] = {"simulate", "--scenario", "healthy", NULL};
	ck_assert_int_eq(sim_main(3, a2), 2);
	char *a3[] = {"simulate", "--scenario", "healthy", "--out", dir, "--seed", "x1", NULL};
	ck_assert_int_eq(sim_main(7, a3), 2);
	char *a4[] = {"simulate", "--scenario", "healthy", "--out", dir, "--interval", "0", NULL};
	ck_assert_int_eq(sim_main(7, a4), 2);
	char *a5[] = {"simulate", "--bogus", NULL};
	ck_assert_int_eq(sim_main(2, a5), 2);
	char *a6[] = {"simulate", "--list", NULL};
	ck_assert_int_eq(sim_main(2, a6), 0);
	char *a7[] = {"simulate", "--scenario", "healthy", "--out", "/proc/iopsy-cannot-create", NULL};
	ck_assert_int_eq(sim_main(5, a7), 4);
	rm_tree(dir);
	free(dir);
}
END_TEST

/* partitions.txt looks like wmic's output and carries the misaligned offset */
START_TEST(test_partitions_file)
{
	char *dir = tmpdir();
	char *argv[] = {"simulate", "--scenario", "misaligned-partition", "--out", dir, "--duration", "30", NULL};
	ck_assert_int_eq(sim_main(7, argv), 0);
	char p[4096];
	path_join(p, dir, "partitions.txt");
	char *x = slurp(p, NULL);
	ck_assert_ptr_nonnull(x);
	ck_assert(!strncmp(x, "BlockSize  Index  Name", 22));
	ck_assert_ptr_nonnull(strstr(x, "Disk #1, Partition #0  32256"));
	ck_assert_ptr_nonnull(strstr(x, "\r\n"));
	free(x);
	rm_tree(dir);
	free(dir);
}
END_TEST

Suite *sim_suite(void)
{
	Suite *s = suite_create("sim");
	int nsc = 0;
	while (sim_scenarios[nsc].name)
		nsc++;
	TCase *tc = tcase_create("model");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_invariants_every_scenario, 0, nsc);
	tcase_add_test(tc, test_lsi_guest_queue_never_above_32);
	tcase_add_test(tc, test_pvscsi_after_queue_lower);
	tcase_add_test(tc, test_aqd_halves_then_climbs_by_one);
	tcase_add_test(tc, test_dsnro_cap_while_two_worlds);
	tcase_add_test(tc, test_sioc_smooth_throttle);
	suite_add_tcase(s, tc);
	TCase *to = tcase_create("output");
	tcase_set_timeout(to, 120);
	tcase_add_test(to, test_deterministic_per_seed);
	tcase_add_loop_test(to, test_scenario_writes_files, 0, nsc);
	tcase_add_test(to, test_width_exact);
	tcase_add_test(to, test_gzip_output);
	tcase_add_test(to, test_cli_usage_errors);
	tcase_add_test(to, test_partitions_file);
	suite_add_tcase(s, to);
	return s;
}
