/* check_sim.c — tests of `iopsy simulate`: the queueing model obeys its invariants (ACTV <= DQLEN,
 * GAVG = DAVG + KAVG, QAVG <= KAVG, Little's law, the LSI per-disk limit, the AQD staircase, the
 * DSNRO cap), runs are deterministic per seed, and every scenario writes its files and a valid
 * truth.json. Outputs go to mkdtemp directories removed afterwards. */
#include <check.h>
#include <stdint.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kinds.h"
#include "sim/capture.h"
#include "sim/model.h"
#include "sim/run.h"
#include "sim/scenario.h"
#include "commands.h"
#include "suites.h"
#include "vhist.h"
#include "analysis.h"

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
	o.duration_set = true;
	sim_config_build(c, sc, part, &o);
}

/* The same at a 2 s esxtop/perfmon interval whatever the scenario's default (model invariants). */
static void build_2s(struct sim_config *c, const char *scenario, int part, uint64_t seed, double duration)
{
	const struct sim_scenario *sc = sim_scenario_find(scenario);
	ck_assert_ptr_nonnull(sc);
	struct sim_opts o;
	sim_opts_default(&o);
	o.seed = seed;
	o.duration = duration;
	o.duration_set = o.interval_set = o.perf_interval_set = true;
	o.interval = o.perf_interval = 2;
	sim_config_build(c, sc, part, &o);
	c->width = 1;   /* no filler columns: the invariants are about the storage columns */
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
	int at_cap[SIM_MAX_DEV];        /* rows with ACTV = DQLEN */
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
		/* each host's file has its own SCSI devices; NFS/vSAN have no device row */
		if (m->cfg->dev[d].host != sim_esx_host(w) || m->cfg->dev[d].kind != SIM_DEV_SCSI)
			continue;
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
		k->at_cap[d] += r->actv >= r->dqlen;
	}
}

/* The Hyper-V scenarios write no esxtop: test_hyperv_invariants checks them. */
static bool is_hyperv(const struct sim_scenario *sc)
{
	return strncmp(sc->name, "hyperv-", 7) == 0;
}

START_TEST(test_invariants_every_scenario)
{
	const struct sim_scenario *sc = &sim_scenarios[_i];
	if (is_hyperv(sc))
		return;
	for (int part = 0; part < sc->nparts; part++) {
		struct sim_config *c = calloc(1, sizeof *c);
		build_2s(c, sc->name, part, 7, 600);
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
			/* a point sample of a LUN whose mean occupancy is just below DQLEN can overflow it
			 * by a few commands (Poisson) that the fluid QAVG (0 below the cap) does not count:
			 * allow about one standard deviation of that overflow per row pinned at DQLEN */
			ck_assert_msg(fabs(k->sum_qued[d] - lq) <= 0.15 * lq + 4 * sqrt(lq) + 1 + 8 * k->at_cap[d],
				      "%s dev %d: sum QUED %g vs sum CMDS*QAVG %g (%d rows at DQLEN)", sc->name, d, k->sum_qued[d], lq, k->at_cap[d]);
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
	char esx_name[SIM_MAX_HOST][96], vmk_name[96];
	for (int h = 0; h < sim_nhosts(c); h++) {
		sim_capture_name(c, h, esx_name[h], sizeof esx_name[h]);
		ck_assert_msg(exists(dir, esx_name[h]), "%s: no %s", c->scenario, esx_name[h]);
		sim_vmklog_name(c, h, vmk_name, sizeof vmk_name);
		ck_assert(exists(dir, vmk_name) == c->want_vmklog);
	}
	ck_assert(exists(dir, "perfmon.csv"));
	ck_assert(exists(dir, "disks.map"));
	ck_assert(exists(dir, "truth.json"));
	ck_assert(exists(dir, "partitions.txt") == c->want_partitions);
	ck_assert(exists(dir, "vscsistats.csv") == c->want_vscsistats);
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
		ck_assert_msg(kind_find(kind) >= 0, "unknown kind %s", kind);
	}
	/* an expected kind is never also declared absent */
	for (int i = 0; i < c->nexpect; i++)
		ck_assert(!(c->absent & (1u << kind_find(c->expect[i].kind))));
	free(t);

	/* esxtop: PDH-CSV header, every field quoted, LF, trailing empty field unless -a */
	for (int h = 1; h < sim_nhosts(c); h++) {
		char pre[128];
		snprintf(pre, sizeof pre, "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\%s\\", sim_host_name(c, h));
		path_join(p, dir, esx_name[h]);
		char *y = slurp(p, NULL);
		ck_assert_ptr_nonnull(y);
		ck_assert(!strncmp(y, pre, strlen(pre)));
		free(y);
	}
	path_join(p, dir, esx_name[0]);
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
	/* a minute, or four intervals of a scenario with long ones */
	double iv = fmax(sc->interval, sc->perf_interval);
	double dur = fmax(60, 4 * iv);
	char dbuf[32];
	snprintf(dbuf, sizeof dbuf, "%g", dur);
	char *argv[] = {"simulate", "--scenario", name, "--out", dir, "--duration", dbuf, NULL};
	ck_assert_int_eq(sim_main(7, argv), 0);
	for (int part = 0; part < sc->nparts; part++) {
		struct sim_config *c = calloc(1, sizeof *c);
		build(c, sc->name, part, 1, dur);
		char sub[4096];
		if (sc->nparts > 1)
			path_join(sub, dir, sc->part_dir[part]);
		else
			snprintf(sub, sizeof sub, "%s", dir);
		if (is_hyperv(sc)) {
			ck_assert(exists(sub, "hyperv.csv") && exists(sub, "truth.json"));
			ck_assert(exists(sub, "perfmon.csv") == (strcmp(sc->name, "hyperv-host-only") != 0));
		} else {
			check_capture_dir(sub, c);
		}
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

/* ==== the scenarios for compare, coverage and rules (scenario_next.c) ==== */

/* A column of one of our own captures (every field quoted, no quotes inside fields): its values
 * and the row times in seconds (day-of-month resolution, enough for two days). " " and empty
 * cells are NaN. */
struct series {
	size_t n;
	double *t, *v;
};

static void series_free(struct series *s)
{
	free(s->t);
	free(s->v);
	s->t = s->v = NULL;
	s->n = 0;
}

/* Splits one line (quoted fields) into pointers to the field contents (quotes excluded) and
 * their lengths; returns the number of fields (at most max). */
static size_t split_fields(const char *s, const char *end, const char **f, size_t *len, size_t max)
{
	size_t n = 0;
	while (s < end && n < max) {
		if (*s == '"') {
			const char *q = memchr(s + 1, '"', (size_t)(end - s - 1));
			if (!q)
				q = end;
			f[n] = s + 1;
			len[n++] = (size_t)(q - s - 1);
			s = q + 1;
		} else {
			const char *c = memchr(s, ',', (size_t)(end - s));
			if (!c)
				c = end;
			f[n] = s;
			len[n++] = (size_t)(c - s);
			s = c;
		}
		if (s < end && *s == ',')
			s++;
		else
			break;
	}
	return n;
}

enum { MAX_FIELDS = 8192 };

/* Reads the first column whose header contains needle. Returns false when there is none. */
static bool read_column(const char *path, const char *needle, struct series *out)
{
	memset(out, 0, sizeof *out);
	size_t len;
	char *x = slurp(path, &len);
	ck_assert_ptr_nonnull(x);
	const char **f = malloc(MAX_FIELDS * sizeof *f);
	size_t *fl = malloc(MAX_FIELDS * sizeof *fl);
	ck_assert(f && fl);
	char *e = memchr(x, '\n', len);
	ck_assert_ptr_nonnull(e);
	size_t nf = split_fields(x, e, f, fl, MAX_FIELDS), col = 0;
	size_t nl = strlen(needle);
	for (size_t i = 1; i < nf && !col; i++)
		for (size_t k = 0; k + nl <= fl[i] && !col; k++)
			if (!memcmp(f[i] + k, needle, nl))
				col = i;
	if (col) {
		size_t cap = 1024;
		out->t = malloc(cap * sizeof *out->t);
		out->v = malloc(cap * sizeof *out->v);
		for (char *s = e + 1; s < x + len;) {
			char *le = memchr(s, '\n', (size_t)(x + len - s));
			if (!le)
				le = x + len;
			char *ce = le > s && le[-1] == '\r' ? le - 1 : le;
			size_t n = split_fields(s, ce, f, fl, MAX_FIELDS);
			if (n > col) {
				if (out->n == cap) {
					cap *= 2;
					out->t = realloc(out->t, cap * sizeof *out->t);
					out->v = realloc(out->v, cap * sizeof *out->v);
				}
				int mo, d, y, h, mi;
				double sec;
				ck_assert_int_eq(sscanf(f[0], "%d/%d/%d %d:%d:%lf", &mo, &d, &y, &h, &mi, &sec), 6);
				char num[64];
				size_t k = fl[col] < sizeof num - 1 ? fl[col] : sizeof num - 1;
				memcpy(num, f[col], k);
				num[k] = 0;
				char *end;
				double v = strtod(num, &end);
				out->t[out->n] = d * 86400.0 + h * 3600.0 + mi * 60.0 + sec;
				out->v[out->n] = end == num ? NAN : v;
				out->n++;
			}
			s = le + 1;
		}
	}
	free(f);
	free(fl);
	free(x);
	return col != 0;
}

static double series_mean(const struct series *s, size_t i0, size_t i1)
{
	double sum = 0;
	size_t n = 0;
	for (size_t i = i0; i < i1 && i < s->n; i++)
		if (!isnan(s->v[i]))
			sum += s->v[i], n++;
	return n ? sum / n : NAN;
}

/* Runs the simulator's command line into a fresh directory (caller frees and removes it). */
static char *simulate(const char *scenario, const char *const *extra)
{
	char *dir = tmpdir();
	char *argv[32];
	int argc = 0;
	argv[argc++] = "simulate";
	argv[argc++] = "--scenario";
	argv[argc++] = (char *)(uintptr_t)scenario;
	argv[argc++] = "--out";
	argv[argc++] = dir;
	for (; extra && *extra && argc < 31; extra++)
		argv[argc++] = (char *)(uintptr_t)*extra;
	argv[argc] = NULL;
	ck_assert_int_eq(sim_main(argc, argv), 0);
	return dir;
}

static void done_dir(char *dir)
{
	rm_tree(dir);
	free(dir);
}

static void vh_collect(void *ctx, long gid, const char *text)
{
	(void)gid;
	struct buf *b = ctx;
	buf_printf(b, "%s\n", text);
}

/* The vscsiStats file beside the LSI scenario's captures shows the cap (the data disk's IOs piled in
 * the bucket of 32, none above); after the move to PVSCSI some are issued with more than 32. */
START_TEST(test_vscsistats_file)
{
	static const char *const shortrun[] = {"--duration", "600", NULL};
	const char *const sc[] = {"lsi-guest-queue-cap", "pvscsi-after"};
	for (int k = 0; k < 2; k++) {
		char *dir = simulate(sc[k], shortrun);
		char p[4096];
		path_join(p, dir, "vscsistats.csv");
		struct common_opts co;
		common_opts_init(&co);
		co.quiet = true;
		struct buf b;
		buf_init(&b);
		ck_assert_int_ge(vhist_read(p, &co, vh_collect, &b), 1);
		const char *d = strstr(b.data, "virtual disk 55761:scsi0:1 ");
		ck_assert_msg(d, "%s: got %s", sc[k], b.data);
		const char *end = strchr(d, '\n');
		bool piled = strstr(d, "piled at 32 with none above") && strstr(d, "piled") < end;
		bool above = strstr(d, "not capped at the LSI limit") && strstr(d, "not capped") < end;
		ck_assert_msg(k == 0 ? piled && !above : above && !piled, "%s: %.*s", sc[k], (int)(end - d), d);
		buf_free(&b);
		/* with the esxtop of the same host the disk's worldGroupID names its VM (Group Cpu GID:VM) */
		struct analysis a;
		analysis_init(&a);
		struct analyze_opts o;
		memset(&o, 0, sizeof o);
		analysis_set_opts(&a, &o);
		char e[4096];
		path_join(e, dir, "esxtop.csv");
		ck_assert_int_eq(model_add_capture(&a.m, e, &co), 0);
		ck_assert_int_eq(model_add_capture(&a.m, p, &co), 0);
		analysis_run(&a, &o);
		bool named = false;
		for (size_t i = 0; i < a.ninputs; i++)
			named |= strstr(a.inputs[i].text, "VM SQL01 (worldGroupID 55761 is its Group Cpu id") != NULL &&
				 a.inputs[i].state == IN_AGREED;
		ck_assert(named);
		analysis_free(&a);
		done_dir(dir);
	}
}
END_TEST

/* The backup scenario's vscsiStats tells its 1 MiB reads from OLTP: D:'s (scsi0:1) IOs are almost
 * all above 64 KiB, and the analysis says so (issue 40: "the LSI cap, the PVSCSI after, a backup"). */
START_TEST(test_vscsistats_backup)
{
	static const char *const shortrun[] = {"--duration", "600", NULL};
	char *dir = simulate("backup-large-io", shortrun);
	char p[4096];
	path_join(p, dir, "vscsistats.csv");
	struct common_opts co;
	common_opts_init(&co);
	co.quiet = true;
	struct vh_set s = {0};
	ck_assert_int_ge(vhist_load(p, &co, &s), 1);
	bool seen = false;
	for (size_t i = 0; i < s.n; i++) {
		if (strcmp(s.d[i].target, "scsi0:1") != 0)
			continue;
		seen = true;
		ck_assert_double_ge(vhist_above(&s.d[i].h[VH_LEN], 65536), 0.9);
		struct buf b;
		buf_init(&b);
		vhist_sentence(&s.d[i], &b);
		ck_assert_msg(strstr(b.data, "mostly large IOs, as a backup"), "%s", b.data);
		buf_free(&b);
	}
	ck_assert(seen);
	vhist_free(&s);
	done_dir(dir);
}
END_TEST

static int vdisk_of(const struct sim_config *c, const char *vm, const char *drive)
{
	for (int v = 0; v < c->nvdisk; v++)
		if (!strcmp(c->vdisk[v].drive, drive) && !strcmp(c->vm[c->vdisk[v].vm].name, vm))
			return v;
	ck_abort_msg("no %s on %s", drive, vm);
	return -1;
}

/* What the guest sees for one read of vdisk v now (ms): guest wait, emulation, host. */
static double guest_read_ms(const struct sim_model *m, int v)
{
	const struct sim_vdisk_state *s = &m->vs[v];
	int k = m->cfg->vdisk[v].ctrl;
	return s->wait_ms + m->cs[k].e_ms + s->ecost + s->host_r_ms;
}

/* Per-step observations of one guest disk over a run of the model. */
struct obs {
	size_t n;
	double *t, *x, *lat, *pop;
};

static void observe(struct sim_config *c, const char *vm, const char *drive, struct obs *o)
{
	struct sim_model *m = calloc(1, sizeof *m);
	ck_assert_int_eq(sim_model_init(m, c), 0);
	int v = vdisk_of(c, vm, drive);
	size_t cap = (size_t)(c->duration / c->dt) + 8;
	o->n = 0;
	o->t = malloc(cap * sizeof *o->t);
	o->x = malloc(cap * sizeof *o->x);
	o->lat = malloc(cap * sizeof *o->lat);
	o->pop = malloc(cap * sizeof *o->pop);
	while (m->t < c->duration - 1e-9 && o->n < cap) {
		ck_assert_int_eq(sim_model_step(m), 0);
		o->t[o->n] = m->t / c->duration;
		o->x[o->n] = m->vs[v].x;
		o->lat[o->n] = guest_read_ms(m, v);
		o->pop[o->n] = m->vs[v].pop;
		o->n++;
	}
	sim_model_free(m);
	free(m);
}

static void obs_free(struct obs *o)
{
	free(o->t), free(o->x), free(o->lat), free(o->pop);
}

/* Mean throughput and IO-weighted latency over fractions [a, b] of the run. */
static void obs_window(const struct obs *o, double a, double b, double *x, double *lat)
{
	double sx = 0, sl = 0;
	size_t n = 0;
	for (size_t i = 0; i < o->n; i++) {
		if (o->t[i] < a || o->t[i] > b)
			continue;
		sx += o->x[i];
		sl += o->x[i] * o->lat[i];
		n++;
	}
	*x = n ? sx / n : NAN;
	*lat = sx > 0 ? sl / sx : NAN;
}

static void build_opts(struct sim_config *c, const char *scenario, int part, struct sim_opts *o)
{
	const struct sim_scenario *sc = sim_scenario_find(scenario);
	ck_assert_ptr_nonnull(sc);
	sim_config_build(c, sc, part, o);
}

/* peak-fixed: the busy phase covers --busy-share of the capture; ~140 ms before, ~10 after. */
START_TEST(test_peak_busy_share)
{
	static const double shares[] = {0.10, 0.30, 0.45};
	double share = shares[_i];
	struct sim_config *c = calloc(1, sizeof *c);
	double lat[2], idle[2];
	for (int part = 0; part < 2; part++) {
		struct sim_opts o;
		sim_opts_default(&o);
		o.duration = 3600, o.duration_set = true;
		o.busy_share = share;
		build_opts(c, "peak-fixed", part, &o);
		ck_assert(c->tx.busy && fabs(c->tx.busy_t1 - c->tx.busy_t0 - share) < 1e-9);
		struct obs ob;
		observe(c, "SQL01", "D:", &ob);
		size_t busy = 0;
		for (size_t i = 0; i < ob.n; i++)
			busy += ob.pop[i] > 100;
		double got = (double)busy / (double)ob.n;
		/* the phase ramps over 20 s at each edge (a pool of threads starts and stops) */
		ck_assert_msg(fabs(got - share) < 0.02, "busy share %g, wanted %g", got, share);
		double x;
		obs_window(&ob, 0.21, 0.19 + share, &x, &lat[part]);
		obs_window(&ob, 0.22 + share, 1, &x, &idle[part]);
		obs_free(&ob);
	}
	ck_assert_msg(lat[0] > 110 && lat[0] < 180, "before: busy-phase reads %g ms", lat[0]);
	ck_assert_msg(lat[1] > 5 && lat[1] < 16, "after: busy-phase reads %g ms", lat[1]);
	ck_assert_msg(fabs(idle[0] - idle[1]) < 0.25 * idle[0], "idle reads %g vs %g ms", idle[0], idle[1]);
	free(c);
}
END_TEST

START_TEST(test_peak_missed_has_no_busy_phase)
{
	struct sim_config *c = calloc(1, sizeof *c);
	struct sim_opts o;
	sim_opts_default(&o);
	o.duration = 1800, o.duration_set = true;
	build_opts(c, "peak-missed", 1, &o);
	struct obs ob;
	observe(c, "SQL01", "D:", &ob);
	double xmax = 0;
	for (size_t i = 0; i < ob.n; i++) {
		ck_assert(ob.pop[i] < 10);
		xmax = fmax(xmax, ob.x[i]);
	}
	obs_free(&ob);
	/* before's busy phase runs at ~1,200 IO/s; the after side never gets near it */
	ck_assert_msg(xmax < 900, "after side peaks at %g IO/s", xmax);
	ck_assert_str_eq(c->tx.cmp_outcome, "not_comparable");
	free(c);
}
END_TEST

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* tail-worse: median better, ~14 % of the time far worse. */
START_TEST(test_tail_worse)
{
	struct sim_config *c = calloc(1, sizeof *c);
	double med[2], slow[2];
	for (int part = 0; part < 2; part++) {
		build(c, "tail-worse", part, 2, 3600);
		struct obs ob;
		observe(c, "SQL01", "D:", &ob);
		size_t above = 0;
		double *l = malloc(ob.n * sizeof *l);
		for (size_t i = 0; i < ob.n; i++) {
			l[i] = ob.lat[i];
			above += ob.lat[i] > 50;
		}
		qsort(l, ob.n, sizeof *l, cmp_double);
		med[part] = l[ob.n / 2];
		slow[part] = (double)above / (double)ob.n;
		free(l);
		obs_free(&ob);
	}
	ck_assert_msg(med[1] < med[0] / 4, "median %g -> %g ms", med[0], med[1]);
	ck_assert_msg(slow[0] < 0.01 && slow[1] > 0.11 && slow[1] < 0.16, "time above 50 ms: %g -> %g", slow[0],
		      slow[1]);
	free(c);
}
END_TEST

/* capacity-gain: 2.5x the IO at the same latency; worse-at-equal-load: the same IO, slower;
 * unchanged-pair: the same within noise. Compared in the busy phase (or the whole capture). */
START_TEST(test_pairs_load_and_latency)
{
	static const struct {
		const char *name;
		double a, b, x_lo, x_hi, l_lo, l_hi;
	} k[] = {
		{"capacity-gain", 0.31, 0.59, 2.2, 2.8, 0.85, 1.15},
		{"worse-at-equal-load", 0, 1, 0.88, 1.0, 4, 12},
		{"unchanged-pair", 0.31, 0.59, 0.93, 1.07, 0.93, 1.07},
	};
	struct sim_config *c = calloc(1, sizeof *c);
	double x[2], l[2];
	for (int part = 0; part < 2; part++) {
		build(c, k[_i].name, part, 3, 1800);
		struct obs ob;
		observe(c, "SQL01", "D:", &ob);
		obs_window(&ob, k[_i].a, k[_i].b, &x[part], &l[part]);
		obs_free(&ob);
	}
	double rx = x[1] / x[0], rl = l[1] / l[0];
	ck_assert_msg(rx >= k[_i].x_lo && rx <= k[_i].x_hi, "%s: IO/s %g -> %g", k[_i].name, x[0], x[1]);
	ck_assert_msg(rl >= k[_i].l_lo && rl <= k[_i].l_hi, "%s: read latency %g -> %g ms", k[_i].name, l[0], l[1]);
	free(c);
}
END_TEST

/* --only: the written half is byte for byte the full set's; truth keeps what it can show. */
START_TEST(test_only_halves)
{
	static const char *const base[] = {"--duration", "120", NULL};
	static const char *const e[] = {"--duration", "120", "--only", "esxtop", NULL};
	static const char *const pm[] = {"--duration", "120", "--only", "perfmon", NULL};
	char *full = simulate("lsi-guest-queue-cap", base), *de = simulate("lsi-guest-queue-cap", e),
	     *dp = simulate("lsi-guest-queue-cap", pm);
	char a[PATH_BUF], b[PATH_BUF];
	static const char *const files[] = {"esxtop.csv", "perfmon.csv"};
	for (int i = 0; i < 2; i++) {
		path_join(a, full, files[i]);
		path_join(b, i == 0 ? de : dp, files[i]);
		size_t la, lb;
		char *xa = slurp(a, &la), *xb = slurp(b, &lb);
		ck_assert(xa && xb && la == lb && !memcmp(xa, xb, la));
		free(xa), free(xb);
	}
	ck_assert(!exists(de, "perfmon.csv") && !exists(dp, "esxtop.csv"));
	path_join(a, de, "truth.json");
	char *t = slurp(a, NULL);
	ck_assert(json_valid(t));
	ck_assert_ptr_nonnull(strstr(t, "\"guest\": \"not_assessed\", \"vscsi\": \"not_assessed\", \"world\": \"assessed\""));
	ck_assert_ptr_null(strstr(t, "\"entity\": \"D:\""));     /* the guest's findings cannot be seen */
	ck_assert_ptr_nonnull(strstr(t, "\"captures\": [\"esxtop.csv\"]"));
	free(t);
	path_join(a, dp, "truth.json");
	t = slurp(a, NULL);
	ck_assert(json_valid(t));
	ck_assert_ptr_nonnull(strstr(t, "\"device\": \"not_assessed\""));
	ck_assert_ptr_nonnull(strstr(t, "\"kind\": \"latency.guest_read\""));
	/* the guest queue is above the LSI limit, not pinned at it: confirming the cap and the hidden
	 * queue needs the host's view */
	ck_assert_ptr_null(strstr(t, "\"kind\": \"queue.guest_vscsi_cap\""));
	ck_assert_ptr_null(strstr(t, "\"kind\": \"queue.guest_hidden\""));
	free(t);
	done_dir(full), done_dir(de), done_dir(dp);
}
END_TEST

/* too-short: three samples; the truth says nothing can be assessed. Longer: the findings apply. */
START_TEST(test_too_short)
{
	char *d = simulate("too-short", NULL);
	char p[PATH_BUF];
	path_join(p, d, "esxtop.csv");
	struct series s;
	ck_assert(read_column(p, "Average Driver MilliSec/Command", &s));
	ck_assert_int_le((int)s.n, 4);
	ck_assert_int_ge((int)s.n, 3);
	series_free(&s);
	path_join(p, d, "truth.json");
	char *t = slurp(p, NULL);
	ck_assert_ptr_nonnull(strstr(t, "\"expect\": []"));
	ck_assert_ptr_nonnull(strstr(t, "\"clean\": true"));
	ck_assert_ptr_nonnull(strstr(t, "\"guest\": \"not_assessed\""));
	ck_assert_ptr_nonnull(strstr(t, "\"array\": \"not_assessed\""));
	free(t);
	done_dir(d);
	static const char *const longer[] = {"--duration", "120", NULL};
	d = simulate("too-short", longer);
	path_join(p, d, "truth.json");
	t = slurp(p, NULL);
	ck_assert_ptr_nonnull(strstr(t, "\"kind\": \"latency.device\""));
	ck_assert_ptr_null(strstr(t, "\"clean\""));
	free(t);
	done_dir(d);
}
END_TEST

/* Row indices of a series whose values exceed thr, and the longest run of consecutive ones. */
static size_t above_count(const struct series *s, double thr, size_t *longest)
{
	size_t n = 0, run = 0;
	*longest = 0;
	for (size_t i = 0; i < s->n; i++) {
		bool a = s->v[i] > thr;
		n += a;
		run = a ? run + 1 : 0;
		if (run > *longest)
			*longest = run;
	}
	return n;
}

/* day-stall (shortened to 2 h: the stall moves to the middle): one or two samples over the
 * thresholds, all at the stall; day-incident: every sample of the 20 minutes is over. */
START_TEST(test_day_stall_and_incident)
{
	static const char *const two_h[] = {"--duration", "7200", NULL};
	char *d = simulate("day-stall", two_h);
	char p[PATH_BUF];
	path_join(p, d, "esxtop.csv");
	struct series s;
	ck_assert(read_column(p, "SCSI Device(naa.624a93708c1f4e2b1102000067bf1af7)\\Average Driver MilliSec/Command", &s));
	size_t run, n = above_count(&s, 15, &run);
	ck_assert_msg(n >= 1 && n <= 2, "%zu samples above 15 ms", n);
	for (size_t i = 0; i < s.n; i++)
		if (s.v[i] > 15)
			ck_assert_msg(fabs(s.t[i] - s.t[0] - 3600) < 12, "spike at %g s", s.t[i] - s.t[0]);
	ck_assert(series_mean(&s, 0, s.n) < 5);
	series_free(&s);
	/* 5 s esxtop, 15 s perfmon by default */
	path_join(p, d, "perfmon.csv");
	ck_assert(read_column(p, "LogicalDisk(D:)\\Avg. Disk sec/Read", &s));
	ck_assert(fabs(s.t[2] - s.t[1] - 15.003) < 0.002);
	series_free(&s);
	done_dir(d);

	d = simulate("day-incident", two_h);
	path_join(p, d, "esxtop.csv");
	ck_assert(read_column(p, "SCSI Device(naa.624a93708c1f4e2b1102000067bf1af7)\\Average Driver MilliSec/Command", &s));
	size_t in = 0, in_above = 0, out_above = 0;
	double t0 = 0.4 * 7200;
	for (size_t i = 0; i < s.n; i++) {
		double t = s.t[i] - s.t[0];
		if (t > t0 + 30 && t < t0 + 1170) {
			in++;
			in_above += s.v[i] > 25;
		} else if (t < t0 - 30 || t > t0 + 1230) {
			out_above += s.v[i] > 15;
		}
	}
	ck_assert_msg(in_above >= in * 9 / 10, "%zu of %zu incident samples above 25 ms", in_above, in);
	ck_assert_int_eq((int)out_above, 0);
	series_free(&s);
	path_join(p, d, "truth.json");
	char *t = slurp(p, NULL);
	ck_assert_ptr_nonnull(strstr(t, "\"one_episode\": true"));
	free(t);
	done_dir(d);
}
END_TEST

/* incident-20min-x10 is incident-20min with a longer capture: the common rows are identical. */
START_TEST(test_incident_length_prefix)
{
	static const char *const x2[] = {"--duration", "7200", NULL};
	char *a = simulate("incident-20min", NULL), *b = simulate("incident-20min-x10", x2);
	static const char *const files[] = {"esxtop.csv", "perfmon.csv"};
	for (int i = 0; i < 2; i++) {
		char pa[PATH_BUF], pb[PATH_BUF];
		path_join(pa, a, files[i]);
		path_join(pb, b, files[i]);
		size_t la, lb;
		char *xa = slurp(pa, &la), *xb = slurp(pb, &lb);
		ck_assert(xa && xb && lb > la);
		/* the short capture's last row is cut where its duration ends: compare whole rows */
		ck_assert_msg(!memcmp(xa, xb, la), "%s: the 1 h capture is not a prefix of the longer one", files[i]);
		free(xa), free(xb);
	}
	char pa[PATH_BUF], pb[PATH_BUF];
	path_join(pa, a, "truth.json");
	path_join(pb, b, "truth.json");
	char *ta = slurp(pa, NULL), *tb = slurp(pb, NULL);
	ck_assert_ptr_nonnull(strstr(ta, "\"start\": \"2026-07-27T13:20:00Z\", \"end\": \"2026-07-27T13:40:00Z\""));
	ck_assert_str_eq(strstr(ta, "\"expect\""), strstr(tb, "\"expect\""));
	free(ta), free(tb);
	done_dir(a), done_dir(b);
}
END_TEST

/* flicker: a fifth of the samples above the threshold, the average well below, never five in a
 * row; the guest sees the same. */
START_TEST(test_flicker)
{
	char *d = simulate("flicker", NULL);
	char p[PATH_BUF];
	struct series s;
	size_t run, n;
	path_join(p, d, "esxtop.csv");
	ck_assert(read_column(p, "SCSI Device(naa.624a93708c1f4e2b1102000067bf1af7)\\Average Driver MilliSec/Command", &s));
	n = above_count(&s, 15, &run);
	ck_assert_msg(n > s.n / 8 && run < 5, "DAVG: %zu of %zu above 15 ms, longest run %zu", n, s.n, run);
	ck_assert(series_mean(&s, 0, s.n) < 12);
	series_free(&s);
	path_join(p, d, "perfmon.csv");
	ck_assert(read_column(p, "LogicalDisk(D:)\\Avg. Disk sec/Read", &s));
	n = above_count(&s, 0.020, &run);
	ck_assert_msg(n > s.n / 10 && run < 5, "guest: %zu of %zu above 20 ms, longest run %zu", n, s.n, run);
	ck_assert(series_mean(&s, 1, s.n) < 0.015);
	series_free(&s);
	done_dir(d);
}
END_TEST

/* two-host-lu: the hosts' ACTV on the shared naa sum above the LU's 64 at times, and adaptive
 * queue depth cuts on both hosts at the same moments. */
struct two_host {
	int dev[2];
	double actv[2][2048];
	int n[2];
};

static void two_host_row(void *ctx, const struct sim_model *m, const struct sim_esx *w, double t)
{
	(void)t;
	(void)m;
	struct two_host *k = ctx;
	int h = sim_esx_host(w);
	if (k->n[h] < 2048)
		k->actv[h][k->n[h]++] = sim_esx_last_dev(w, k->dev[h])->actv;
}

START_TEST(test_two_hosts_share_lu)
{
	struct sim_config *c = calloc(1, sizeof *c);
	build(c, "two-host-lu", 0, 1, 1200);
	ck_assert_int_eq(sim_nhosts(c), 2);
	struct two_host *k = calloc(1, sizeof *k);
	k->dev[0] = k->dev[1] = -1;
	for (int d = 0; d < c->ndev; d++)
		if (c->dev[d].lu_group > 0)
			k->dev[c->dev[d].host] = d;
	ck_assert(k->dev[0] >= 0 && k->dev[1] >= 0);
	ck_assert_str_eq(c->dev[k->dev[0]].naa, c->dev[k->dev[1]].naa);
	struct sim_model *m = calloc(1, sizeof *m);
	ck_assert_int_eq(sim_model_init(m, c), 0);
	while (m->t < c->duration)
		ck_assert_int_eq(sim_model_step(m), 0);
	/* halvings: at least 20 per host, most with the other host's within a second */
	double tr[2][512];
	int nr[2] = {0, 0};
	for (size_t i = 0; i < m->nev; i++) {
		if (m->ev[i].kind != SIM_EV_REDUCE)
			continue;
		int h = c->dev[m->ev[i].dev].host;
		if (nr[h] < 512)
			tr[h][nr[h]++] = m->ev[i].t;
	}
	ck_assert_msg(nr[0] >= 20 && nr[1] >= 20, "halvings %d and %d", nr[0], nr[1]);
	int paired = 0;
	for (int i = 0; i < nr[0]; i++)
		for (int j = 0; j < nr[1]; j++)
			if (fabs(tr[0][i] - tr[1][j]) < 1.0) {
				paired++;
				break;
			}
	ck_assert_msg(paired * 10 >= nr[0] * 6, "%d of %d halvings on esx01 have one on esx02 within 1 s", paired,
		      nr[0]);
	sim_model_free(m);
	free(m);
	/* the capture files: both hosts' ACTV, row by row */
	struct sim_hooks hk = {.ctx = k, .on_esx_row = two_host_row};
	char *dir = tmpdir();
	ck_assert_int_eq(sim_run(c, dir, &hk, NULL), 0);
	int n = k->n[0] < k->n[1] ? k->n[0] : k->n[1], over = 0;
	double mx = 0;
	for (int i = 0; i < n; i++) {
		double sum = k->actv[0][i] + k->actv[1][i];
		over += sum > 64;
		mx = fmax(mx, sum);
		ck_assert(k->actv[0][i] <= 64 && k->actv[1][i] <= 64);
	}
	ck_assert_msg(over >= 3, "ACTV sum above 64 in %d rows (max %g)", over, mx);
	ck_assert(exists(dir, "esxtop-esx01.csv") && exists(dir, "esxtop-esx02.csv"));
	for (int h = 0; h < 2; h++) {
		char p[PATH_BUF];
		path_join(p, dir, h ? "vmkernel-esx02.log" : "vmkernel-esx01.log");
		char *x = slurp(p, NULL);
		ck_assert_ptr_nonnull(strstr(x, h ? " esx02 vmkernel: " : " esx01 vmkernel: "));
		ck_assert_ptr_nonnull(strstr(x, "Reduced the queue depth for device naa.624a93708c1f4e2b1102000067bf1af7"));
		ck_assert_ptr_nonnull(strstr(x, "D:0x28"));
		free(x);
	}
	char p[PATH_BUF];
	path_join(p, dir, "truth.json");
	char *t = slurp(p, NULL);
	ck_assert_ptr_nonnull(strstr(t, "\"array\": {\"lu_queue_depth\": 64, \"hosts\": [\"esx01.lab.local\", \"esx02.lab.local\"]}"));
	ck_assert_ptr_nonnull(strstr(t, "\"host\": \"esx02.lab.local\""));
	free(t);
	done_dir(dir);
	free(k);
	free(c);
}
END_TEST

/* sioc-flash: smooth DQLEN steps, no QUEUE FULL, DAVG held near the automatic threshold (a few
 * ms), far above the LU's own baseline. */
START_TEST(test_sioc_flash)
{
	struct sim_config *c = calloc(1, sizeof *c);
	build(c, "sioc-flash", 0, 5, 1200);
	struct sim_model *m = calloc(1, sizeof *m);
	ck_assert_int_eq(sim_model_init(m, c), 0);
	int dev = -1;
	for (int d = 0; d < c->ndev; d++)
		if (c->dev[d].sioc)
			dev = d;
	ck_assert(c->dev[dev].sioc_ms > 2 && c->dev[dev].sioc_ms < 8);
	int prev = c->dev[dev].dqlen, min = prev;
	double base = 0, held = 0;
	int nb = 0, nh = 0;
	while (m->t < c->duration) {
		ck_assert_int_eq(sim_model_step(m), 0);
		int cur = m->ds[dev].dqlen;
		ck_assert_msg(abs(cur - prev) <= prev / 3 + 1, "DQLEN %d -> %d is not smooth", prev, cur);
		ck_assert(!(prev >= 4 && cur <= prev * 6 / 10));   /* never a halving */
		min = cur < min ? cur : min;
		prev = cur;
		double f = m->t / c->duration;
		if (f < 0.24)
			base += m->ds[dev].davg_ms, nb++;
		else if (f > 0.45 && f < 0.78)
			held += m->ds[dev].davg_ms, nh++;
	}
	base /= nb, held /= nh;
	for (size_t i = 0; i < m->nev; i++)
		ck_assert(m->ev[i].kind != SIM_EV_QFULL && m->ev[i].kind != SIM_EV_BUSY && m->ev[i].kind != SIM_EV_REDUCE);
	ck_assert_msg(min < 40, "DQLEN never below %d", min);
	ck_assert_msg(fabs(held / c->dev[dev].sioc_ms - 1) < 0.35, "DAVG %g vs threshold %g", held, c->dev[dev].sioc_ms);
	ck_assert_msg(held > 5 * base && held < 15, "DAVG %g ms, baseline %g ms", held, base);
	sim_model_free(m);
	free(m);
	free(c);
}
END_TEST

/* nfs-datastore / vsan-datastore / nfs-mixed: the disk's latency shows on Virtual Disk (and the
 * NFS volume), and no SCSI device belongs to it. */
START_TEST(test_nas_datastores)
{
	static const char *const d120[] = {"--duration", "300", NULL};
	static const char *const names[] = {"nfs-datastore", "vsan-datastore", "nfs-mixed"};
	char *d = simulate(names[_i], d120);
	char p[PATH_BUF];
	path_join(p, d, "esxtop.csv");
	char *x = slurp(p, NULL);
	char *nl = strchr(x, '\n');
	*nl = 0;
	bool nfs = _i != 1;
	ck_assert((strstr(x, "Physical Disk NFS Volume(NFS_SQL_DATA)\\Average Guest MilliSec/Command") != NULL) == nfs);
	ck_assert_ptr_null(strstr(x, "SCSI Device(NFS_"));
	ck_assert_ptr_null(strstr(x, "vsanDatastore"));
	ck_assert_ptr_null(strstr(x, "NFS Volume(NFS_SQL_DATA)\\Average Driver"));
	/* SQL01's own FC LUNs exist only in the mixed case */
	ck_assert((strstr(x, "SCSI Device(naa.624a93708c1f4e2b1101") != NULL) == (_i == 2));
	free(x);
	struct series s;
	ck_assert(read_column(p, "Virtual Disk(SQL01:scsi0:1)\\Average MilliSec/Read", &s));
	double busy = series_mean(&s, s.n * 3 / 10, s.n * 7 / 10);
	ck_assert_msg(busy > 30 && busy < 55, "Virtual Disk read latency %g ms", busy);
	series_free(&s);
	done_dir(d);
}
END_TEST

/* mixed-intervals: esxtop every 60 s, perfmon every 15 s, the guest clock 0.35 s ahead. */
START_TEST(test_mixed_intervals)
{
	char *d = simulate("mixed-intervals", NULL);
	char p[PATH_BUF];
	struct series e, g;
	path_join(p, d, "esxtop.csv");
	ck_assert(read_column(p, "SCSI Device(naa.624a93708c1f4e2b1102000067bf1af7)\\Average Driver MilliSec/Command", &e));
	path_join(p, d, "perfmon.csv");
	ck_assert(read_column(p, "LogicalDisk(D:)\\Avg. Disk sec/Read", &g));
	ck_assert_int_ge((int)e.n, 115);
	ck_assert_int_ge((int)g.n, 470);
	for (size_t i = 1; i < e.n; i++)
		ck_assert(e.t[i] - e.t[i - 1] >= 30 && e.t[i] - e.t[i - 1] <= 61);
	for (size_t i = 1; i < g.n; i++)
		ck_assert(fabs(g.t[i] - g.t[i - 1] - 15.003) < 0.0015);
	double davg = series_mean(&e, e.n / 4, e.n * 3 / 4);
	ck_assert_msg(davg > 17 && davg < 26, "DAVG %g ms", davg);
	series_free(&e), series_free(&g);
	path_join(p, d, "truth.json");
	char *t = slurp(p, NULL);
	ck_assert_ptr_nonnull(strstr(t, "\"clock_offset_s\": 0.35"));
	ck_assert_ptr_nonnull(strstr(t, "\"intervals\": {\"esxtop\": 60, \"perfmon\": 15}"));
	free(t);
	done_dir(d);
}
END_TEST

/* path-failover: ~220 aborts (ACTV ~40 aborted once a second) in 6 s, two resets, the standby path takes over. */
START_TEST(test_path_failover)
{
	struct sim_config *c = calloc(1, sizeof *c);
	build(c, "path-failover", 0, 1, 600);
	ck_assert(c->all_counters && c->want_vmklog && c->ndevev == 1);
	int dev = c->devev[0].dev;
	struct sim_model *m = calloc(1, sizeof *m);
	ck_assert_int_eq(sim_model_init(m, c), 0);
	double aborts = 0, resets = 0;
	while (m->t < c->duration) {
		ck_assert_int_eq(sim_model_step(m), 0);
		aborts += m->dev_aborts[SIM_STREAM_PERF][dev];
		resets += m->dev_resets[SIM_STREAM_PERF][dev];
		sim_model_reset_acc(m, SIM_STREAM_PERF);
	}
	ck_assert_msg(aborts > 180 && aborts < 300, "%g aborts", aborts);
	ck_assert(resets == 2);
	ck_assert_int_eq(m->ds[dev].path_now, 1);
	int down = 0, sw = 0, ab = 0, rs = 0;
	for (size_t i = 0; i < m->nev; i++) {
		const struct sim_event *e = &m->ev[i];
		down += e->kind == SIM_EV_PATH_DOWN;
		sw += e->kind == SIM_EV_PATH_SWITCH;
		ab += e->kind == SIM_EV_ABORT;
		rs += e->kind == SIM_EV_RESET;
		if (e->kind == SIM_EV_ABORT || e->kind == SIM_EV_RESET)
			ck_assert(e->t >= c->devev[0].t0_s && e->t <= c->devev[0].t1_s);
	}
	ck_assert(down == 1 && sw == 1 && rs == 6 && ab > 30);
	sim_model_free(m);
	free(m);
	char *d = tmpdir();
	ck_assert_int_eq(sim_run(c, d, NULL, NULL), 0);
	char p[PATH_BUF];
	path_join(p, d, "vmkernel.log");
	char *x = slurp(p, NULL);
	ck_assert_ptr_nonnull(strstr(x, "Failed: H:0x5 D:0x0 P:0x0"));
	ck_assert_ptr_nonnull(strstr(x, "failed H:0x8 D:0x0 P:0x0"));
	ck_assert_ptr_nonnull(strstr(x, "Changing active path from vmhba2:C0:T0:L2 to vmhba3:C0:T1:L2"));
	free(x);
	/* esxtop -a: the active path carries the IO before, the standby one after */
	struct series a, b;
	path_join(p, d, "esxtop.csv");
	ck_assert(read_column(p, "Physical Disk Path(vmhba2:C0:T0:L2)\\Commands/sec", &a));
	ck_assert(read_column(p, "Physical Disk Path(vmhba3:C0:T1:L2)\\Commands/sec", &b));
	ck_assert(series_mean(&a, 10, a.n / 2 - 10) > 1000 && series_mean(&b, 10, b.n / 2 - 10) == 0);
	ck_assert(series_mean(&a, a.n / 2 + 10, a.n) == 0 && series_mean(&b, b.n / 2 + 10, b.n) > 1000);
	series_free(&a), series_free(&b);
	ck_assert(read_column(p, "SCSI Device(naa.624a93708c1f4e2b1102000067bf1af7)\\Aborts/sec", &a));
	double sum = 0;
	for (size_t i = 1; i < a.n; i++)
		sum += a.v[i] * (a.t[i] - a.t[i - 1]);
	ck_assert_msg(sum > 150 && sum < 320, "Aborts/sec integrate to %g", sum);
	series_free(&a);
	done_dir(d);
	free(c);
}
END_TEST

/* backup-large-io: 1 MiB reads at ~27 ms; log-disk-slow: E: writes at ~8 ms. */
START_TEST(test_io_size_and_log_disk)
{
	char *d = simulate("backup-large-io", NULL);
	char p[PATH_BUF];
	struct series s;
	path_join(p, d, "perfmon.csv");
	ck_assert(read_column(p, "LogicalDisk(D:)\\Avg. Disk Bytes/Read", &s));
	ck_assert(fabs(series_mean(&s, s.n / 4, s.n * 3 / 4) - 1048576) < 1);
	series_free(&s);
	ck_assert(read_column(p, "LogicalDisk(D:)\\Avg. Disk sec/Read", &s));
	double r = series_mean(&s, s.n / 4, s.n * 3 / 4);
	ck_assert_msg(r > 0.020 && r < 0.035, "backup reads %g s", r);
	series_free(&s);
	done_dir(d);
	d = simulate("log-disk-slow", NULL);
	path_join(p, d, "perfmon.csv");
	ck_assert(read_column(p, "LogicalDisk(E:)\\Avg. Disk sec/Write", &s));
	double w = series_mean(&s, 1, s.n);
	ck_assert_msg(w > 0.0065 && w < 0.0095, "log writes %g s", w);
	series_free(&s);
	ck_assert(read_column(p, "LogicalDisk(E:)\\Avg. Disk Bytes/Write", &s));
	ck_assert(series_mean(&s, 1, s.n) <= 16384);
	series_free(&s);
	done_dir(d);
}
END_TEST

/* perfmon-total-only, perfmon-no-disk and --perfmon-disks pct-time: the disk objects written. */
START_TEST(test_perfmon_disk_subsets)
{
	static const char *const pct[] = {"--duration", "60", "--perfmon-disks", "pct-time", NULL};
	static const char *const d60[] = {"--duration", "60", NULL};
	char *d[3] = {simulate("perfmon-total-only", d60), simulate("perfmon-no-disk", d60),
		      simulate("perfmon-no-disk", pct)};
	for (int i = 0; i < 3; i++) {
		char p[PATH_BUF];
		path_join(p, d[i], "perfmon.csv");
		char *x = slurp(p, NULL);
		*strchr(x, '\n') = 0;
		ck_assert_ptr_null(strstr(x, "PhysicalDisk("));
		ck_assert_ptr_nonnull(strstr(x, "Processor(_Total)\\% Processor Time"));
		if (i == 0) {
			ck_assert_ptr_nonnull(strstr(x, "LogicalDisk(_Total)\\Avg. Disk sec/Read"));
			ck_assert_ptr_null(strstr(x, "LogicalDisk(D:)"));
		} else if (i == 1) {
			ck_assert_ptr_null(strstr(x, "LogicalDisk("));
		} else {
			ck_assert_ptr_nonnull(strstr(x, "LogicalDisk(D:)\\% Disk Time"));
			ck_assert_ptr_null(strstr(x, "Avg. Disk sec/"));
			ck_assert_ptr_null(strstr(x, "Current Disk Queue Length"));
		}
		free(x);
		path_join(p, d[i], "truth.json");
		x = slurp(p, NULL);
		ck_assert(json_valid(x));
		ck_assert_ptr_nonnull(strstr(x, i == 0 ? "\"guest\": \"partial\", \"vscsi\": \"not_assessed\""
						      : "\"guest\": \"not_assessed\", \"vscsi\": \"not_assessed\""));
		ck_assert((strstr(x, "\"entity\": \"_Total\"") != NULL) == (i == 0));
		free(x);
	}
	for (int i = 0; i < 3; i++)
		done_dir(d[i]);
}
END_TEST

/* SQL Server counters follow the model: log flushes are the log disk's writes, a log write wait
 * is the log write plus the CPU hand-offs, a page IO latch wait is a data-file read. */
START_TEST(test_sql_counters_follow_model)
{
	static const char *const d300[] = {"--duration", "300", NULL};
	static const char *const named[] = {"--duration", "60", "--sql-instance", "PROD", NULL};
	char *st = simulate("sql-log-wait-storage", d300), *cpu = simulate("sql-log-wait-cpu", d300),
	     *nm = simulate("healthy", named);
	char p[PATH_BUF];
	struct series lw, ew, fl, ewr, pio, dr;
	path_join(p, st, "perfmon.csv");
	ck_assert(read_column(p, "SQLServer:Wait Statistics(Average wait time (ms))\\Log write waits", &lw));
	ck_assert(read_column(p, "LogicalDisk(E:)\\Avg. Disk sec/Write", &ew));
	ck_assert(read_column(p, "SQLServer:Databases(ETLDB)\\Log Flushes/sec", &fl));
	ck_assert(read_column(p, "LogicalDisk(E:)\\Disk Writes/sec", &ewr));
	ck_assert(read_column(p, "SQLServer:Wait Statistics(Average wait time (ms))\\Page IO latch waits", &pio));
	ck_assert(read_column(p, "LogicalDisk(D:)\\Avg. Disk sec/Read", &dr));
	for (size_t i = 1; i < lw.n; i++) {
		ck_assert(fabs(lw.v[i] - 1000 * ew.v[i]) < 0.5);       /* storage explains it all */
		ck_assert(fabs(fl.v[i] - ewr.v[i]) < 1e-6 * (1 + ewr.v[i]));
		ck_assert(fabs(pio.v[i] - 1000 * dr.v[i]) < 0.5);
	}
	ck_assert(series_mean(&lw, lw.n / 3, lw.n * 2 / 3) > 25);
	series_free(&lw), series_free(&ew), series_free(&fl), series_free(&ewr), series_free(&pio), series_free(&dr);
	path_join(p, cpu, "perfmon.csv");
	ck_assert(read_column(p, "SQLServer:Wait Statistics(Average wait time (ms))\\Log write waits", &lw));
	ck_assert(read_column(p, "LogicalDisk(E:)\\Avg. Disk sec/Write", &ew));
	double wait = series_mean(&lw, 1, lw.n), disk = 1000 * series_mean(&ew, 1, ew.n);
	ck_assert_msg(disk < 1.5 && wait > 5 * disk, "log write waits %g ms, log disk %g ms", wait, disk);
	series_free(&lw), series_free(&ew);
	path_join(p, cpu, "esxtop.csv");
	struct series rdy;
	ck_assert(read_column(p, ":SQL01)\\% Ready", &rdy));
	ck_assert(series_mean(&rdy, 0, rdy.n) > 8 * 12);   /* 8 vCPUs at ~18 % each */
	series_free(&rdy);
	path_join(p, cpu, "truth.json");
	char *t = slurp(p, NULL);
	ck_assert_ptr_nonnull(strstr(t, "\"sql\": {\"symptom\": \"log_flush_wait\", \"storage_explains\": false"));
	free(t);
	path_join(p, nm, "perfmon.csv");
	char *x = slurp(p, NULL);
	*strchr(x, '\n') = 0;
	ck_assert_ptr_nonnull(strstr(x, "\\\\SQL01\\MSSQL$PROD:Buffer Manager\\Page life expectancy"));
	ck_assert_ptr_nonnull(strstr(x, "MSSQL$PROD:SQL Statistics\\Batch Requests/sec"));
	ck_assert_ptr_null(strstr(x, "SQLServer:"));
	free(x);
	done_dir(st), done_dir(cpu), done_dir(nm);
}
END_TEST

/* Little's law on the guest side of the newer scenarios: the instant Current Disk Queue Length
 * averages to the interval's Avg. Disk Queue Length (= transfers/s x sec/transfer). */
START_TEST(test_guest_littles_law)
{
	static const char *const names[] = {"two-host-lu", "nfs-datastore", "sioc-flash", "log-disk-slow"};
	static const char *const d600[] = {"--duration", "600", NULL};
	char *d = simulate(names[_i], d600);
	char p[PATH_BUF];
	path_join(p, d, "perfmon.csv");
	static const char *const drives[] = {"D:", "E:"};
	for (int k = 0; k < 2; k++) {
		char a[96], b[96], cc[96], e[96];
		snprintf(a, sizeof a, "LogicalDisk(%s)\\Current Disk Queue Length", drives[k]);
		snprintf(b, sizeof b, "LogicalDisk(%s)\\Avg. Disk Queue Length", drives[k]);
		snprintf(cc, sizeof cc, "LogicalDisk(%s)\\Disk Transfers/sec", drives[k]);
		snprintf(e, sizeof e, "LogicalDisk(%s)\\Avg. Disk sec/Transfer", drives[k]);
		struct series q, aq, x, l;
		ck_assert(read_column(p, a, &q) && read_column(p, b, &aq) && read_column(p, cc, &x) && read_column(p, e, &l));
		for (size_t i = 1; i < aq.n; i++)
			ck_assert(fabs(aq.v[i] - x.v[i] * l.v[i]) <= 1e-9 + 1e-6 * aq.v[i]);
		double mq = series_mean(&q, 1, q.n), maq = series_mean(&aq, 1, aq.n);
		ck_assert_msg(fabs(mq - maq) <= 0.15 * maq + 4 * sqrt(maq / (double)q.n) + 0.05,
			      "%s %s: Current Disk Queue Length %g vs Avg. Disk Queue Length %g", names[_i], drives[k], mq, maq);
		series_free(&q), series_free(&aq), series_free(&x), series_free(&l);
	}
	done_dir(d);
}
END_TEST

/* Options that do not apply, or do not parse, are usage errors. */
START_TEST(test_new_cli_errors)
{
	char *dir = tmpdir();
	char *a1[] = {"simulate", "--scenario", "healthy", "--out", dir, "--busy-share", "0.3", NULL};
	ck_assert_int_eq(sim_main(7, a1), 2);
	char *a2[] = {"simulate", "--scenario", "peak-fixed", "--out", dir, "--busy-share", "0.95", NULL};
	ck_assert_int_eq(sim_main(7, a2), 2);
	char *a3[] = {"simulate", "--scenario", "healthy", "--out", dir, "--only", "guest", NULL};
	ck_assert_int_eq(sim_main(7, a3), 2);
	char *a4[] = {"simulate", "--scenario", "healthy", "--out", dir, "--perfmon-disks", "some", NULL};
	ck_assert_int_eq(sim_main(7, a4), 2);
	char *a5[] = {"simulate", "--scenario", "healthy", "--out", dir, "--sql-instance", "A$B", NULL};
	ck_assert_int_eq(sim_main(7, a5), 2);
	char *a6[] = {"simulate", "--scenario", "mixed-intervals", "--out", dir, "--duration", "100", NULL};
	ck_assert_int_eq(sim_main(7, a6), 2);   /* 60 s esxtop interval: 100 s is not three of them */
	rm_tree(dir);
	free(dir);
}
END_TEST

/* ---- the Hyper-V node (hyperv.c): its perfmon obeys the layers' arithmetic ---- */

/* A column of hyperv.csv / perfmon.csv by its exact counter path after \\MACHINE\ (must exist). */
static void hv_col(const char *path, const char *ctr, struct series *s)
{
	char needle[512];
	snprintf(needle, sizeof needle, "\\%s\"", ctr);
	/* read_column matches inside the header field; the closing quote anchors the path's end */
	memset(s, 0, sizeof *s);
	size_t len;
	char *x = slurp(path, &len);
	ck_assert_ptr_nonnull(x);
	char *e = memchr(x, '\n', len);
	ck_assert_ptr_nonnull(e);
	*e = 0;
	const char *hit = strstr(x, needle);
	ck_assert_msg(hit != NULL, "%s: no column %s", path, ctr);
	free(x);
	ck_assert(read_column(path, ctr, s));
}

static double hv_sum(const struct series *s, size_t i0, size_t i1)
{
	double t = 0;
	for (size_t i = i0; i < i1 && i < s->n; i++)
		if (!isnan(s->v[i]))
			t += s->v[i];
	return t;
}

/* The VHDX instances in the header of hyperv.csv (caller frees each and the array). */
static size_t hv_instances(const char *path, char ***out)
{
	size_t len, n = 0;
	char *x = slurp(path, &len);
	ck_assert_ptr_nonnull(x);
	char *e = memchr(x, '\n', len);
	*e = 0;
	char **v = calloc(64, sizeof *v);
	const char *key = "Hyper-V Virtual Storage Device(";
	for (const char *p = x; (p = strstr(p, key)) != NULL && n < 64;) {
		p += strlen(key);
		const char *q = strstr(p, ")\\Latency\"");
		const char *nx = strchr(p, '"');
		if (q && nx && q < nx) {
			v[n] = strndup(p, (size_t)(q - p));
			n++;
		}
	}
	free(x);
	*out = v;
	return n;
}

/* Means over the middle of the capture (the scenarios' windows all cover 40-60 %) and over its
 * first tenth (before every window). */
static double hv_mid(const char *path, const char *ctr)
{
	struct series s;
	hv_col(path, ctr, &s);
	double m = series_mean(&s, s.n * 2 / 5, s.n * 3 / 5);
	series_free(&s);
	return m;
}

static double hv_early(const char *path, const char *ctr)
{
	struct series s;
	hv_col(path, ctr, &s);
	double m = series_mean(&s, 1, s.n / 10);
	series_free(&s);
	return m;
}

static void hv_check_vhdx(const char *host, const char *inst)
{
	static const char *const ctr[] = {"Read Operations/Sec", "Write Operations/Sec", "Latency", "Queue Length",
					  "Lower Latency", "Normalized Throughput", "Throughput", "Read Bytes/sec",
					  "Write Bytes/sec", "Lower Queue Length"};
	enum { NC = sizeof ctr / sizeof ctr[0] };
	struct series s[NC];
	char p[512];
	for (int k = 0; k < NC; k++) {
		snprintf(p, sizeof p, "Hyper-V Virtual Storage Device(%s)\\%s", inst, ctr[k]);
		hv_col(host, p, &s[k]);
		ck_assert_uint_eq(s[k].n, s[0].n);
	}
	/* rates and averages have no first sample (" "), the instant queue lengths do */
	ck_assert(isnan(s[0].v[0]) && isnan(s[2].v[0]) && !isnan(s[3].v[0]));
	double little = 0, ql = 0;
	for (size_t i = 1; i < s[0].n; i++) {
		double ops = s[0].v[i] + s[1].v[i];
		ck_assert_msg(s[5].v[i] >= ops * (1 - 1e-9), "%s: normalized %g < ops %g", inst, s[5].v[i], ops);
		ck_assert_msg(s[4].v[i] <= s[2].v[i] + 1e-12, "%s: Lower Latency above Latency", inst);
		ck_assert(fabs(s[6].v[i] - (s[7].v[i] + s[8].v[i])) <= 1e-6 * s[6].v[i] + 1e-6);
		ck_assert(s[9].v[i] <= s[3].v[i]);
		little += ops * s[2].v[i];
		ql += s[3].v[i];
	}
	/* Little's law: Queue Length (instant samples) ~ IOPS x Latency over the run */
	ck_assert_msg(fabs(ql - little) <= 0.10 * little + 4 * sqrt(little) + 2, "%s: sum QL %g vs IOPS x Latency %g",
		      inst, ql, little);
	for (int k = 0; k < NC; k++)
		series_free(&s[k]);
}

static void hv_check_csv(const char *host, const char *vol, char **inst, size_t ninst)
{
	static const char *const op[] = {"Reads/sec", "Writes/sec", "Avg. sec/Read", "Avg. sec/Write"};
	char p[256], prefix[64];
	struct series t[4], d[4], r[4];
	for (int k = 0; k < 4; k++) {
		snprintf(p, sizeof p, "Cluster CSVFS(%s)\\%s", vol, op[k]);
		hv_col(host, p, &t[k]);
		snprintf(p, sizeof p, "Cluster CSVFS Direct IO(%s)\\%s", vol, op[k]);
		hv_col(host, p, &d[k]);
		snprintf(p, sizeof p, "Cluster CSVFS Redirected IO(%s)\\%s", vol, op[k]);
		hv_col(host, p, &r[k]);
	}
	snprintf(prefix, sizeof prefix, "C:-ClusterStorage-%s-", vol);
	struct series vr[16], vw[16];
	size_t nv = 0;
	for (size_t i = 0; i < ninst && nv < 16; i++)
		if (!strncmp(inst[i], prefix, strlen(prefix))) {
			snprintf(p, sizeof p, "Hyper-V Virtual Storage Device(%s)\\Read Operations/Sec", inst[i]);
			hv_col(host, p, &vr[nv]);
			snprintf(p, sizeof p, "Hyper-V Virtual Storage Device(%s)\\Write Operations/Sec", inst[i]);
			hv_col(host, p, &vw[nv]);
			nv++;
		}
	ck_assert_uint_gt(nv, 0);
	for (size_t i = 1; i < t[0].n; i++) {
		double vops = 0;
		for (size_t k = 0; k < nv; k++)
			vops += vr[k].v[i] + vw[k].v[i];
		/* Direct + Redirected = total, and the CSV carries exactly its VHDX files' IO */
		for (int k = 0; k < 2; k++)
			ck_assert_msg(fabs(t[k].v[i] - d[k].v[i] - r[k].v[i]) <= 1e-9 * t[k].v[i] + 1e-9, "%s: direct + "
				      "redirected != total", vol);
		ck_assert_msg(fabs(t[0].v[i] + t[1].v[i] - vops) <= 1e-6 * vops + 1e-6, "%s: CSV ops %g vs VHDX %g", vol,
			      t[0].v[i] + t[1].v[i], vops);
		/* the total's latency is the IO-weighted mean of the two paths */
		for (int k = 0; k < 2; k++)
			if (t[k].v[i] > 0)
				ck_assert(fabs(t[k + 2].v[i] * t[k].v[i] - d[k + 2].v[i] * d[k].v[i] - r[k + 2].v[i] * r[k].v[i]) <=
					  1e-6 * t[k + 2].v[i] * t[k].v[i] + 1e-12);
	}
	for (int k = 0; k < 4; k++)
		series_free(&t[k]), series_free(&d[k]), series_free(&r[k]);
	for (size_t k = 0; k < nv; k++)
		series_free(&vr[k]), series_free(&vw[k]);
}

static const char *const hv_sql_d = "Hyper-V Virtual Storage Device(C:-ClusterStorage-Volume1-SQL01-Virtual Hard Disks-SQL01_D.vhdx)";

static double hv_mid_vsd(const char *host, const char *inst_obj, const char *ctr)
{
	char p[512];
	snprintf(p, sizeof p, "%s\\%s", inst_obj, ctr);
	return hv_mid(host, p);
}

static void hv_check_set(const char *sc, const char *dir, int part)
{
	char host[PATH_BUF], guest[PATH_BUF], truth[PATH_BUF];
	path_join(host, dir, "hyperv.csv");
	path_join(guest, dir, "perfmon.csv");
	path_join(truth, dir, "truth.json");
	size_t len;
	char *x = slurp(host, &len);
	ck_assert_ptr_nonnull(x);
	ck_assert(!strncmp(x, "\"(PDH-CSV 4.0) (Pacific Daylight Time)(420)\",\"\\\\HV01\\", 51));
	char *nl = strchr(x, '\n');
	ck_assert(nl && nl[-1] == '\r' && nl[21] == '.' && nl[25] == '"');  /* "MM/dd/yyyy HH:mm:ss.fff" */
	free(x);
	char *tj = slurp(truth, &len);
	ck_assert_ptr_nonnull(tj);
	ck_assert_msg(json_valid(tj), "%s: truth.json is not valid JSON", sc);
	char **inst;
	size_t ninst = hv_instances(host, &inst);
	ck_assert_uint_ge(ninst, 6);
	bool hyphen = false;
	for (size_t i = 0; i < ninst; i++) {
		hv_check_vhdx(host, inst[i]);
		hyphen = hyphen || strstr(inst[i], "-APP-02-") != NULL;
	}
	ck_assert(hyphen);
	hv_check_csv(host, "Volume1", inst, ninst);
	hv_check_csv(host, "Volume2", inst, ninst);
	/* the host's LUNs: Avg. Disk Queue Length = Transfers x sec/Transfer by definition */
	struct series a, b, q;
	hv_col(host, "PhysicalDisk(2)\\Disk Transfers/sec", &a);
	hv_col(host, "PhysicalDisk(2)\\Avg. Disk sec/Transfer", &b);
	hv_col(host, "PhysicalDisk(2)\\Avg. Disk Queue Length", &q);
	for (size_t i = 1; i < a.n; i++)
		ck_assert(fabs(q.v[i] - a.v[i] * b.v[i]) <= 1e-6 * q.v[i] + 1e-9);
	series_free(&a), series_free(&b), series_free(&q);
	bool has_guest = access(guest, R_OK) == 0;
	ck_assert(has_guest == (strcmp(sc, "hyperv-host-only") != 0));
	const char *sqld = strcmp(sc, "hyperv-move-csv") == 0 && part == 1
				   ? "Hyper-V Virtual Storage Device(C:-ClusterStorage-Volume2-SQL01-Virtual Hard Disks-SQL01_D.vhdx)"
				   : hv_sql_d;
	char p[512];
	if (has_guest) {
		/* the guest's D: does the VHDX's IO (clocks a fraction of a second apart) and waits at
		 * least as long */
		struct series g, r, w, l;
		hv_col(guest, "LogicalDisk(D:)\\Disk Transfers/sec", &g);
		snprintf(p, sizeof p, "%s\\Read Operations/Sec", sqld);
		hv_col(host, p, &r);
		snprintf(p, sizeof p, "%s\\Write Operations/Sec", sqld);
		hv_col(host, p, &w);
		double gs = hv_sum(&g, 1, g.n), hs = hv_sum(&r, 1, r.n) + hv_sum(&w, 1, w.n);
		ck_assert_msg(fabs(gs - hs) <= 0.03 * hs, "%s: guest D: %g IOs vs VHDX %g", sc, gs, hs);
		series_free(&g), series_free(&r), series_free(&w);
		hv_col(guest, "LogicalDisk(D:)\\Avg. Disk sec/Transfer", &g);
		snprintf(p, sizeof p, "%s\\Latency", sqld);
		hv_col(host, p, &l);
		ck_assert(series_mean(&g, 1, g.n) >= series_mean(&l, 1, l.n));
		series_free(&g), series_free(&l);
	}
	/* each scenario's signature, in the middle of its window */
	double lat = hv_mid_vsd(host, sqld, "Latency"), low = hv_mid_vsd(host, sqld, "Lower Latency");
	double disk2 = hv_mid(host, "PhysicalDisk(2)\\Avg. Disk sec/Transfer");
	double wait = hv_mid(host, "Hyper-V Hypervisor Virtual Processor(SQL01:Hv VP 0)\\CPU Wait Time Per Dispatch");
	double wait0 = hv_early(host, "Hyper-V Hypervisor Virtual Processor(SQL01:Hv VP 0)\\CPU Wait Time Per Dispatch");
	ck_assert_msg(wait0 > 6000 && wait0 < 12000, "%s: uncontended dispatch wait %g ns", sc, wait0);
	double gread = has_guest ? hv_mid(guest, "LogicalDisk(D:)\\Avg. Disk sec/Read") : NAN;
	if (!strcmp(sc, "hyperv-qos")) {
		double norm = hv_mid_vsd(host, sqld, "Normalized Throughput");
		ck_assert_msg(fabs(norm - 500) < 15, "qos: normalized %g", norm);
		ck_assert_msg(lat > 0.04 && lat < 0.08 && low < 0.003 && disk2 < 0.003, "qos: %g %g %g", lat, low, disk2);
		ck_assert(hv_mid(host, "Cluster CSVFS(Volume1)\\Avg. sec/Read") < 0.003);
	} else if (!strcmp(sc, "hyperv-csv-redirected")) {
		ck_assert(hv_mid(host, "Cluster CSVFS Direct IO(Volume2)\\Writes/sec") == 0);
		ck_assert(hv_mid(host, "Cluster CSVFS Redirected IO(Volume2)\\Writes/sec") > 50);
		double w = hv_mid(host, "Cluster CSVFS(Volume2)\\Avg. sec/Write");
		ck_assert_msg(w > 0.015 && w < 0.025, "redirected: %g", w);
		ck_assert(hv_mid(host, "PhysicalDisk(3)\\Avg. Disk sec/Transfer") < 0.002);
		ck_assert(hv_early(host, "Cluster CSVFS Redirected IO(Volume2)\\Writes/sec") == 0);
	} else if (!strcmp(sc, "hyperv-noisy-neighbour")) {
		ck_assert_msg(disk2 > 0.03 && disk2 < 0.06, "noisy: Disk 2 %g", disk2);
		const char *app = "Hyper-V Virtual Storage Device(C:-ClusterStorage-Volume1-APP-02-Virtual Hard Disks-APP-02_D.vhdx)";
		double ops = hv_mid_vsd(host, app, "Read Operations/Sec") + hv_mid_vsd(host, app, "Write Operations/Sec");
		ck_assert(ops > 0.8 * hv_mid(host, "PhysicalDisk(2)\\Disk Transfers/sec"));
		ck_assert(lat > 0.02);
	} else if (!strcmp(sc, "hyperv-guest-queueing")) {
		ck_assert_msg(gread > 0.03 && lat < 0.003, "guest queueing: guest %g, VHDX %g", gread, lat);
	} else if (!strcmp(sc, "hyperv-vcpu-wait")) {
		ck_assert_msg(wait > 150000 && wait < 300000, "vcpu: wait %g", wait);
		ck_assert(hv_mid(host, "Hyper-V Hypervisor Logical Processor(_Total)\\% Total Run Time") > 90);
		ck_assert(lat < 0.003 && disk2 < 0.003 && gread > 2 * lat);
	} else if (!strcmp(sc, "hyperv-move-csv")) {
		ck_assert_msg(part == 0 ? gread > 0.015 : gread < 0.003, "move: part %d guest D: %g", part, gread);
		ck_assert((strstr(tj, "\"outcome\": \"improved\"") != NULL) == (part == 1));
	} else {
		ck_assert_msg(lat < 0.003 && disk2 < 0.003 && wait < 20000, "%s: %g %g %g", sc, lat, disk2, wait);
		ck_assert_ptr_nonnull(strstr(tj, "\"clean\": true"));
		if (!has_guest)
			ck_assert_ptr_nonnull(strstr(tj, "\"guest\": \"not_assessed\""));
	}
	free(tj);
	for (size_t i = 0; i < ninst; i++)
		free(inst[i]);
	free(inst);
}

START_TEST(test_hyperv_invariants)
{
	const struct sim_scenario *sc = &sim_scenarios[_i];
	if (!is_hyperv(sc))
		return;
	char seed[16];
	snprintf(seed, sizeof seed, "%d", 1 + _i % 3);
	const char *extra[] = {"--seed", seed, NULL};
	char *dir = simulate(sc->name, extra);
	for (int part = 0; part < sc->nparts; part++) {
		char sub[PATH_BUF];
		if (sc->nparts > 1)
			path_join(sub, dir, sc->part_dir[part]);
		else
			snprintf(sub, sizeof sub, "%s", dir);
		hv_check_set(sc->name, sub, part);
	}
	done_dir(dir);
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
	tcase_add_loop_test_sharded(tc, test_invariants_every_scenario, 0, nsc);
	tcase_add_test_sharded(tc, test_lsi_guest_queue_never_above_32);
	tcase_add_test_sharded(tc, test_pvscsi_after_queue_lower);
	tcase_add_test_sharded(tc, test_aqd_halves_then_climbs_by_one);
	tcase_add_test_sharded(tc, test_dsnro_cap_while_two_worlds);
	tcase_add_test_sharded(tc, test_sioc_smooth_throttle);
	suite_add_tcase(s, tc);
	TCase *tn = tcase_create("next");
	tcase_set_timeout(tn, 240);
	tcase_add_loop_test_sharded(tn, test_peak_busy_share, 0, 3);
	tcase_add_test_sharded(tn, test_peak_missed_has_no_busy_phase);
	tcase_add_test_sharded(tn, test_tail_worse);
	tcase_add_loop_test_sharded(tn, test_pairs_load_and_latency, 0, 3);
	tcase_add_test_sharded(tn, test_only_halves);
	tcase_add_test_sharded(tn, test_too_short);
	tcase_add_test_sharded(tn, test_day_stall_and_incident);
	tcase_add_test_sharded(tn, test_incident_length_prefix);
	tcase_add_test_sharded(tn, test_flicker);
	tcase_add_test_sharded(tn, test_two_hosts_share_lu);
	tcase_add_test_sharded(tn, test_sioc_flash);
	tcase_add_loop_test_sharded(tn, test_nas_datastores, 0, 3);
	tcase_add_test_sharded(tn, test_mixed_intervals);
	tcase_add_test_sharded(tn, test_path_failover);
	tcase_add_test_sharded(tn, test_io_size_and_log_disk);
	tcase_add_test_sharded(tn, test_perfmon_disk_subsets);
	tcase_add_test_sharded(tn, test_sql_counters_follow_model);
	tcase_add_loop_test_sharded(tn, test_guest_littles_law, 0, 4);
	tcase_add_test_sharded(tn, test_new_cli_errors);
	tcase_add_loop_test_sharded(tn, test_hyperv_invariants, 0, nsc);
	suite_add_tcase(s, tn);
	TCase *to = tcase_create("output");
	tcase_set_timeout(to, 120);
	tcase_add_test_sharded(to, test_deterministic_per_seed);
	tcase_add_loop_test_sharded(to, test_scenario_writes_files, 0, nsc);
	tcase_add_test_sharded(to, test_width_exact);
	tcase_add_test_sharded(to, test_gzip_output);
	tcase_add_test_sharded(to, test_cli_usage_errors);
	tcase_add_test_sharded(to, test_partitions_file);
	tcase_add_test_sharded(to, test_vscsistats_file);
	tcase_add_test_sharded(to, test_vscsistats_backup);
	suite_add_tcase(s, to);
	return s;
}
