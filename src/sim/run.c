/* run.c — drives the model step by step and samples it on two clocks, as the real tools do:
 * esxtop every --interval seconds with a small positive drift (its own collection time), so that
 * whole-second stamps sometimes skip a second, and perfmon on the guest's clock with millisecond
 * stamps. Side files are written after the run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out.h"
#include "run.h"
#include "util.h"

void sim_opts_default(struct sim_opts *o)
{
	memset(o, 0, sizeof *o);
	o->seed = 1;
	o->duration = 1200;
	o->interval = 2;
	o->width = 0;
	/* 2026-07-27T13:00:00Z */
	o->start_ms = (days_from_civil(2026, 7, 27) * 86400 + 13 * 3600) * 1000LL;
}

void sim_config_build(struct sim_config *c, const struct sim_scenario *sc, int part, const struct sim_opts *o)
{
	memset(c, 0, sizeof *c);
	snprintf(c->scenario, sizeof c->scenario, "%s", sc->name);
	c->seed = o->seed;
	c->part = part;
	if (sc->nparts > 1)
		snprintf(c->part_name, sizeof c->part_name, "%s", sc->part_dir[part]);
	/* The second capture of a pair is taken the next day at the same time. */
	c->start_ms = o->start_ms + (int64_t)part * 86400000LL;
	c->duration = o->duration;
	c->interval = o->interval;
	c->dt = o->interval >= 1 ? 0.1 : o->interval / 10;
	c->width = o->width;
	c->gzip = o->gzip;
	c->all_counters = o->all_counters;
	sc->build(c, part);
	/* The guest clock runs a little off the host's (seeded, within +-2 s). */
	struct sim_rng r;
	sim_rng_seed(&r, o->seed, 13 + 16 * (uint64_t)part);
	for (int i = 0; i < c->nvm; i++)
		c->vm[i].clock_offset_s = floor((sim_rng_uniform(&r) * 4 - 2) * 1000) / 1000;
}

static int join(char *out, size_t n, const char *dir, const char *name)
{
	int k = snprintf(out, n, "%s/%s", dir, name);
	return k > 0 && (size_t)k < n ? 0 : ERR_USAGE;
}

int sim_run(const struct sim_config *c, const char *dir, const struct sim_hooks *hooks, struct sim_result *res)
{
	struct sim_result dummy;
	if (!res)
		res = &dummy;
	memset(res, 0, sizeof *res);
	const char **failed_file = &res->failed_file;
	static char path[4096];
	struct sim_model *m = calloc(1, sizeof *m);
	if (!m)
		return ERR_NOMEM;
	int rc = sim_model_init(m, c);
	struct sim_esx *esx = NULL;
	struct sim_perf *perf = NULL;
	int guest = -1;
	for (int i = 0; i < c->nvm && guest < 0; i++)
		if (c->vm[i].guest[0])
			guest = i;
	*failed_file = c->gzip ? "esxtop.csv.gz" : "esxtop.csv";
	if (!rc)
		rc = join(path, sizeof path, dir, *failed_file);
	if (!rc)
		rc = sim_esx_open(&esx, c, m, path);
	if (!rc)
		res->esx_columns = sim_esx_columns(esx);
	if (!rc && guest >= 0) {
		*failed_file = c->gzip ? "perfmon.csv.gz" : "perfmon.csv";
		rc = join(path, sizeof path, dir, *failed_file);
		if (!rc)
			rc = sim_perf_open(&perf, c, m, guest, path);
	}
	struct sim_rng jit;
	sim_rng_seed(&jit, c->seed, 17 + 16 * (uint64_t)c->part);
	/* esxtop starts at a fraction of a second past the minute; perfmon a little later. */
	double next_esx = c->interval + 0.2 + 0.6 * sim_rng_uniform(&jit);
	double next_perf = 0.3 + 0.6 * sim_rng_uniform(&jit);
	bool perf_first = true;
	while (!rc && m->t < c->duration - 1e-9) {
		rc = sim_model_step(m);
		if (rc)
			break;
		if (hooks && hooks->on_step)
			hooks->on_step(hooks->ctx, m);
		if (m->t >= next_esx - 1e-9) {
			*failed_file = c->gzip ? "esxtop.csv.gz" : "esxtop.csv";
			/* Stamp with the scheduled sample time: the step grid must not show in the stamps. */
			rc = sim_esx_row(esx, next_esx);
			res->esx_rows++;
			if (hooks && hooks->on_esx_row)
				hooks->on_esx_row(hooks->ctx, m, esx, next_esx);
			sim_model_reset_acc(m, SIM_STREAM_ESX);
			/* Collection takes esxtop 30-110 ms per sample; rarely a sample comes early. */
			double step = c->interval + 0.03 + 0.08 * sim_rng_uniform(&jit);
			if (sim_rng_uniform(&jit) < 0.003)
				step = c->interval / 2;
			next_esx += step;
		}
		if (perf && m->t >= next_perf - 1e-9) {
			*failed_file = c->gzip ? "perfmon.csv.gz" : "perfmon.csv";
			if (!rc)
				rc = sim_perf_row(perf, next_perf, perf_first);
			res->perf_rows++;
			perf_first = false;
			sim_model_reset_acc(m, SIM_STREAM_PERF);
			next_perf += c->interval + 0.003;
		}
	}
	if (esx) {
		*failed_file = c->gzip ? "esxtop.csv.gz" : "esxtop.csv";
		int r2 = sim_esx_close(esx, rc == 0);
		rc = rc ? rc : r2;
	}
	if (perf) {
		int r2 = sim_perf_close(perf, rc == 0);
		if (!rc && r2)
			*failed_file = c->gzip ? "perfmon.csv.gz" : "perfmon.csv";
		rc = rc ? rc : r2;
	}
	if (!rc && c->want_vmklog) {
		*failed_file = "vmkernel.log";
		rc = join(path, sizeof path, dir, *failed_file);
		if (!rc)
			rc = sim_write_vmklog(c, m, path);
	}
	if (!rc && c->want_partitions && guest >= 0) {
		*failed_file = "partitions.txt";
		rc = join(path, sizeof path, dir, *failed_file);
		if (!rc)
			rc = sim_write_partitions(c, guest, path);
	}
	if (!rc) {
		*failed_file = "disks.map";
		rc = join(path, sizeof path, dir, *failed_file);
		if (!rc)
			rc = sim_write_disks_map(c, path);
	}
	if (!rc) {
		*failed_file = "truth.json";
		rc = join(path, sizeof path, dir, *failed_file);
		if (!rc)
			rc = sim_write_truth(c, path);
	}
	sim_model_free(m);
	free(m);
	return rc;
}
