/* run.c — drives the model step by step and samples it on two clocks, as the real tools do:
 * esxtop every --interval seconds with a small positive drift (its own collection time), so that
 * whole-second stamps sometimes skip a second, and perfmon on the guest's clock with millisecond
 * stamps. Side files are written after the run. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hyperv.h"
#include "out.h"
#include "run.h"
#include "util.h"
#include "vscsi.h"

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

/* Is an expected finding visible in what is written? Guest entities (drives, _Total) need the
 * perfmon with per-disk counters (_Total: at least the _Total instance), the hidden guest queue
 * and the vSCSI cap need both captures, QUEUE FULL comes from vmkernel.log (written either way), the rest from
 * esxtop. */
static bool expect_visible(const struct sim_config *c, const struct sim_expect *e)
{
	size_t n = strlen(e->entity);
	bool total = strcmp(e->entity, "_Total") == 0;
	bool guest = total || (n > 0 && e->entity[n - 1] == ':');
	bool esx = c->only != SIM_ONLY_PERFMON;
	bool perf = c->only != SIM_ONLY_ESXTOP &&
		    (c->perf_disks == SIM_PDISKS_ALL || (total && c->perf_disks == SIM_PDISKS_TOTAL));
	if (strcmp(e->kind, "scsi.queue_full") == 0)
		return c->want_vmklog;
	/* the guest queue of the LSI cases is above the limit, not pinned at it: only the host's view
	 * confirms the cap */
	if (strcmp(e->kind, "queue.guest_hidden") == 0 || strcmp(e->kind, "queue.guest_vscsi_cap") == 0)
		return esx && perf;
	return guest ? perf : esx;
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
	c->duration = o->duration_set || sc->duration <= 0 ? o->duration : sc->duration;
	c->interval = o->interval_set || sc->interval <= 0 ? o->interval : sc->interval;
	c->dt = c->interval >= 1 ? 0.1 : c->interval / 10;
	c->width = o->width_set || sc->width <= 0 ? o->width : sc->width;
	c->perf_interval = o->perf_interval_set ? o->perf_interval : sc->perf_interval > 0 ? sc->perf_interval : c->interval;
	c->gzip = o->gzip;
	c->all_counters = o->all_counters;
	c->only = o->only;
	c->perf_disks = o->perf_disks;
	c->sql_counters = o->sql_counters || o->sql_instance[0];
	snprintf(c->sql_instance, sizeof c->sql_instance, "%s", o->sql_instance);
	c->busy_share = o->busy_share;
	c->tx.clean = c->tx.one_episode = c->tx.capacity_gain = c->tx.moved_down = c->tx.sql_storage = -1;
	sc->build(c, part);
	/* The guest clock runs a little off the host's (seeded, within +-2 s). */
	struct prng r;
	prng_seed(&r, o->seed, 13 + 16 * (uint64_t)part);
	for (int i = 0; i < c->nvm; i++) {
		double off = floor((prng_uniform(&r) * 4 - 2) * 1000) / 1000;
		if (!c->vm[i].clock_fixed)
			c->vm[i].clock_offset_s = off;
	}
	/* Half a capture set, or a perfmon without per-disk counters: what can still be seen. */
	if (c->only != SIM_ONLY_ALL || c->perf_disks != SIM_PDISKS_ALL) {
		c->tx.coverage = true;
		int k = 0;
		for (int i = 0; i < c->nexpect; i++)
			if (expect_visible(c, &c->expect[i]))
				c->expect[k++] = c->expect[i];
		c->nexpect = k;
	}
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
	if (c->hyperv) {
		struct sim_hv_result hr;
		int hrc = sim_hv_run(c, dir, &hr);
		res->failed_file = hr.failed_file;
		res->esx_columns = hr.host_columns;
		res->esx_rows = res->esx_rows_host[0] = hr.host_rows;
		res->perf_rows = hr.guest_rows;
		return hrc;
	}
	const char **failed_file = &res->failed_file;
	static char path[4096];
	struct sim_model *m = calloc(1, sizeof *m);
	if (!m)
		return ERR_NOMEM;
	int rc = sim_model_init(m, c);
	int nh = sim_nhosts(c);
	struct sim_esx *esx[SIM_MAX_HOST] = {NULL};
	char esx_name[SIM_MAX_HOST][96];
	struct sim_perf *perf = NULL;
	int guest = -1;
	for (int i = 0; i < c->nvm && guest < 0; i++)
		if (c->vm[i].guest[0])
			guest = i;
	/* --only: the other capture is still simulated (same model, same random draws), not written */
	for (int h = 0; !rc && h < nh; h++) {
		sim_capture_name(c, h, esx_name[h], sizeof esx_name[h]);
		snprintf(res->failed_buf, sizeof res->failed_buf, "%.95s", esx_name[h]);
		*failed_file = res->failed_buf;
		rc = join(path, sizeof path, dir, esx_name[h]);
		if (!rc)
			rc = sim_esx_open(&esx[h], c, m, h, c->only == SIM_ONLY_PERFMON ? NULL : path);
	}
	if (!rc)
		res->esx_columns = sim_esx_columns(esx[0]);
	if (!rc && guest >= 0) {
		*failed_file = c->gzip ? "perfmon.csv.gz" : "perfmon.csv";
		rc = join(path, sizeof path, dir, *failed_file);
		if (!rc)
			rc = sim_perf_open(&perf, c, m, guest, c->only == SIM_ONLY_ESXTOP ? NULL : path);
	}
	struct prng jit, jit_h[SIM_MAX_HOST];
	prng_seed(&jit, c->seed, 17 + 16 * (uint64_t)c->part);
	/* esxtop starts at a fraction of a second past the minute; perfmon a little later. */
	double next_esx[SIM_MAX_HOST];
	next_esx[0] = c->interval + 0.2 + 0.6 * prng_uniform(&jit);
	double next_perf = 0.3 + 0.6 * prng_uniform(&jit);
	/* a second host's esxtop runs on its own clock */
	for (int h = 1; h < nh; h++) {
		prng_seed(&jit_h[h], c->seed, 17 + 16 * (uint64_t)c->part + 1000 * (uint64_t)h);
		next_esx[h] = c->interval + 0.2 + 0.6 * prng_uniform(&jit_h[h]);
	}
	bool perf_first = true;
	struct sim_vh *vh = c->want_vscsistats ? xcalloc(1, sizeof *vh) : NULL;
	while (!rc && m->t < c->duration - 1e-9) {
		rc = sim_model_step(m);
		if (rc)
			break;
		if (vh)
			sim_vh_step(vh, c, m);
		if (hooks && hooks->on_step)
			hooks->on_step(hooks->ctx, m);
		for (int h = 0; !rc && h < nh; h++) {
			if (m->t < next_esx[h] - 1e-9)
				continue;
			struct prng *jr = h == 0 ? &jit : &jit_h[h];
			snprintf(res->failed_buf, sizeof res->failed_buf, "%.95s", esx_name[h]);
			*failed_file = res->failed_buf;
			/* Stamp with the scheduled sample time: the step grid must not show in the stamps. */
			rc = sim_esx_row(esx[h], next_esx[h]);
			res->esx_rows++;
			res->esx_rows_host[h]++;
			if (hooks && hooks->on_esx_row)
				hooks->on_esx_row(hooks->ctx, m, esx[h], next_esx[h]);
			sim_model_reset_acc(m, sim_esx_stream(h));
			/* Collection takes esxtop 30-110 ms per sample; rarely a sample comes early. */
			double step = c->interval + 0.03 + 0.08 * prng_uniform(jr);
			if (prng_uniform(jr) < 0.003)
				step = c->interval / 2;
			next_esx[h] += step;
		}
		if (perf && m->t >= next_perf - 1e-9) {
			*failed_file = c->gzip ? "perfmon.csv.gz" : "perfmon.csv";
			if (!rc)
				rc = sim_perf_row(perf, next_perf, perf_first);
			res->perf_rows++;
			perf_first = false;
			sim_model_reset_acc(m, SIM_STREAM_PERF);
			next_perf += c->perf_interval + 0.003;
		}
	}
	for (int h = 0; h < nh; h++) {
		if (!esx[h])
			continue;
		snprintf(res->failed_buf, sizeof res->failed_buf, "%.95s", esx_name[h]);
		*failed_file = res->failed_buf;
		int r2 = sim_esx_close(esx[h], rc == 0);
		rc = rc ? rc : r2;
	}
	if (perf) {
		int r2 = sim_perf_close(perf, rc == 0);
		if (!rc && r2)
			*failed_file = c->gzip ? "perfmon.csv.gz" : "perfmon.csv";
		rc = rc ? rc : r2;
	}
	for (int h = 0; !rc && c->want_vmklog && h < nh; h++) {
		sim_vmklog_name(c, h, res->failed_buf, sizeof res->failed_buf);
		*failed_file = res->failed_buf;
		rc = join(path, sizeof path, dir, res->failed_buf);
		if (!rc)
			rc = sim_write_vmklog(c, m, h, path);
	}
	if (!rc && c->want_partitions && guest >= 0) {
		*failed_file = "partitions.txt";
		rc = join(path, sizeof path, dir, *failed_file);
		if (!rc)
			rc = sim_write_partitions(c, guest, path);
	}
	if (!rc && vh) {
		*failed_file = "vscsistats.csv";
		rc = join(path, sizeof path, dir, *failed_file);
		if (!rc)
			rc = sim_write_vscsistats(c, vh, path);
	}
	free(vh);
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
