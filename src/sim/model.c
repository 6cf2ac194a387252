/* model.c — one time step of the simulated IO stack.
 *
 * Service times (sub-millisecond to tens of ms) are far shorter than a step (0.1 s), so each step is
 * solved as a quasi-static equilibrium instead of moving individual IOs: every guest disk is a
 * closed thread pool (population P, think time Z) whose throughput is x = P / (slot + Z), capped by
 * the vSCSI per-disk limit L (x <= L / slot); each LUN is a processor-sharing server whose latency
 * grows as 1/(1 - utilisation), capped at DQLEN active commands (excess waits in the VMkernel, which
 * is what KAVG/QAVG measure); an LSI controller adds a single emulation server whose queue is
 * invisible to esxtop; an HBA caps the sum of active commands at AQLEN. Every quantity is then a
 * time average that obeys Little's law by construction (outstanding = rate × latency); counts are
 * Poisson draws around the rates and point samples add counting noise. Queue-depth controllers
 * (AQD, SIOC, DSNRO) change DQLEN between steps, the way the VMkernel does. */
#include "model.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"


const char *const sim_layer_names[SIM_NLAYER] = {"guest", "vscsi", "world", "device", "adapter", "array"};

const char *sim_host_name(const struct sim_config *c, int h)
{
	return h <= 0 ? c->host : c->host_extra[h - 1];
}

int sim_nhosts(const struct sim_config *c)
{
	return c->nhost > 1 ? c->nhost : 1;
}

int sim_esx_stream(int h)
{
	return h == 0 ? SIM_STREAM_ESX : SIM_STREAM_ESX2;
}

int sim_dev_adapter(const struct sim_model *m, int d)
{
	const struct sim_dev *dc = &m->cfg->dev[d];
	return m->ds[d].path_now ? dc->standby_adapter : dc->adapter;
}

/* A wait in SQL Server ends with the waiting thread runnable again; on a VM whose vCPUs are
 * descheduled a share r of the time, each of the ~3 hand-offs of a log flush (log writer issues,
 * completion routine, committer resumes) finds its vCPU descheduled with probability r and then
 * waits half a 30 ms scheduling stretch on average [derived]. */
/* The wait a VM's IO completion adds while the ESXi host swaps its memory: the VM stalls on
 * swapped pages (% Swap Wait), its IOs complete in the host and wait for the VM to run. */
double sim_swap_stall_ms(const struct sim_config *c, int vm, double t)
{
	const struct sim_vm *v = &c->vm[vm];
	double f = c->duration > 0 ? t / c->duration : 0;
	return v->swap_t1 > v->swap_t0 && f >= v->swap_t0 && f < v->swap_t1 ? v->swap_stall_ms : 0;
}

double sim_cpu_delay_ms(const struct sim_vm *vm)
{
	double r = vm->ready_pct > 0 ? vm->ready_pct / 100.0 : 0.004;
	return 3 * r * 15.0;
}


/* Guest disk-stack cost above storport (ms): perfmon latency floor. */
#define GUEST_G0_MS 0.03
/* Ramp length at phase edges (s): thread pools start and stop over tens of seconds. */
#define PHASE_RAMP_S 20.0

static double phase_weight(const struct sim_phase *p, double t, double duration)
{
	double a = p->abs_s ? p->t0 : p->t0 * duration, b = p->abs_s ? p->t1 : p->t1 * duration;
	double ramp = PHASE_RAMP_S;
	if (ramp > (b - a) / 4)
		ramp = (b - a) / 4;
	if (t < a || t > b)
		return 0;
	if (ramp <= 0)
		return 1;
	double w = 1;
	if (t < a + ramp)
		w = (t - a) / ramp;
	if (t > b - ramp && (b - t) / ramp < w)
		w = (b - t) / ramp;
	return w;
}

void sim_load_at(const struct sim_load *l, double t, double duration, double *pop, double *think_ms)
{
	double p = l->pop, z = l->think_ms;
	for (int i = 0; i < l->nphase; i++) {
		double w = phase_weight(&l->phase[i], t, duration);
		if (w > 0) {
			p = p + w * (l->phase[i].pop - p);
			/* Interpolate think time in log space: it spans orders of magnitude. */
			z = exp(log(z) + w * (log(l->phase[i].think_ms) - log(z)));
		}
	}
	*pop = p;
	*think_ms = z;
}

bool sim_vm_off(const struct sim_config *c, int vm, double t)
{
	return c->vm[vm].powered_off_at <= 1.0 && t >= c->vm[vm].powered_off_at * c->duration;
}

static double cost_for(const struct sim_dev *d, double kib, bool write)
{
	double s0 = write ? d->s0_w : d->s0_r;
	return s0 + (kib > 8 ? (kib - 8) * d->t_kib : 0);
}

int sim_model_init(struct sim_model *m, const struct sim_config *c)
{
	memset(m, 0, sizeof *m);
	m->cfg = c;
	prng_seed(&m->rng, c->seed, 1 + 16 * (uint64_t)c->part);
	prng_seed(&m->srng, c->seed, 2 + 16 * (uint64_t)c->part);
	prng_seed(&m->xrng, c->seed, 3 + 16 * (uint64_t)c->part);
	m->nstream = sim_nhosts(c) > 1 ? SIM_NSTREAM : SIM_STREAM_PERF + 1;
	for (int i = 0; i < c->nctrl; i++) {
		m->cs[i].scale = 1;
		if (c->ctrl[i].serial)
			m->nserial++;
	}
	for (int v = 0; v < c->nvdisk; v++) {
		const struct sim_vdisk *vd = &c->vdisk[v];
		const struct sim_dev *d = &c->dev[vd->dev];
		struct sim_vdisk_state *s = &m->vs[v];
		double fr = vd->load.read_frac;
		s->ur = cost_for(d, vd->load.read_kib, false) * vd->misalign;
		s->uw = cost_for(d, vd->load.write_kib, true) * vd->misalign;
		s->ucost = fr * s->ur + (1 - fr) * s->uw;
		double kib = fr * vd->load.read_kib + (1 - fr) * vd->load.write_kib;
		s->ecost = c->ctrl[vd->ctrl].e0_ms + kib * c->ctrl[vd->ctrl].e_kib_ms;
		m->dev_v[vd->dev][m->dev_nv[vd->dev]++] = v;
		m->vdev[v] = vd->dev;
		m->ctrl_v[vd->ctrl][m->ctrl_nv[vd->ctrl]++] = v;
	}
	for (int i = 0; i < c->ndev; i++) {
		struct sim_dev_state *ds = &m->ds[i];
		ds->dqlen = ds->cap = ds->aqd_depth = c->dev[i].dqlen;
		ds->sioc_w = ds->sioc_bg_w = c->dev[i].dqlen;
		ds->sioc_next = 4.0;
		ds->r_ms = c->dev[i].s0_r + c->dev[i].k0;
		if (c->dev[i].spike_add_ms > 0)
			ds->spike_next = c->dev[i].spike_gap_lo_s * prng_uniform(&m->xrng);
	}
	return 0;
}

void sim_model_free(struct sim_model *m)
{
	free(m->ev);
	m->ev = NULL;
	m->nev = m->cap_ev = 0;
}

void sim_model_reset_acc(struct sim_model *m, int stream)
{
	memset(m->acc[stream], 0, sizeof m->acc[stream]);
	memset(m->dev_failed[stream], 0, sizeof m->dev_failed[stream]);
	memset(m->dev_aborts[stream], 0, sizeof m->dev_aborts[stream]);
	memset(m->dev_resets[stream], 0, sizeof m->dev_resets[stream]);
}

static int add_event(struct sim_model *m, const struct sim_event *e)
{
	if (m->nev == m->cap_ev) {
		size_t n = m->cap_ev ? m->cap_ev * 2 : 256;
		struct sim_event *p = realloc(m->ev, n * sizeof *p);
		if (!p)
			return ERR_NOMEM;
		m->ev = p;
		m->cap_ev = n;
	}
	m->ev[m->nev++] = *e;
	return 0;
}

/* ---- the quasi-static solution of one step ---- */

static double vdisk_rate(const struct sim_model *m, int v, double rslot_ms)
{
	const struct sim_vdisk_state *s = &m->vs[v];
	if (s->pop <= 0)
		return 0;
	double rs = rslot_ms * 1e-3, z = s->think_ms * 1e-3;
	double x = s->pop / (rs + z);
	int c = m->cfg->vdisk[v].ctrl;
	double cap = m->cfg->ctrl[c].disk_limit * m->cs[c].scale;
	if (x * rs > cap)
		x = cap / rs;
	return x;
}

double sim_vdisk_amp(const struct sim_vdisk *v, double t, double *add_ms)
{
	bool on = v->amp > 1 && t >= v->amp_t0_s && t < v->amp_t1_s;
	if (add_ms)
		*add_ms = on ? v->amp_add_ms : 0;
	return on ? v->amp : 1;
}

/* The time an IO of disk v holds its vSCSI slot: emulation, the host's latency at its device and
 * what a snapshot's redo log adds above the device. */
static double slot_ms(const struct sim_model *m, int v, double host_ms)
{
	int c = m->cfg->vdisk[v].ctrl;
	double add;
	sim_vdisk_amp(&m->cfg->vdisk[v], m->t, &add);
	return m->cs[c].e_ms + m->vs[v].ecost + host_ms + add;
}

/* A Storage vMotion: from its time on, the disk's IO goes to the other device. */
static void move_disks(struct sim_model *m)
{
	const struct sim_config *c = m->cfg;
	for (int v = 0; v < c->nvdisk; v++) {
		const struct sim_vdisk *vd = &c->vdisk[v];
		int to = vd->move_dev - 1, from = m->vdev[v];
		if (vd->move_dev <= 0 || m->t < vd->move_at_s || from == to || to >= c->ndev)
			continue;
		int o = 0;
		for (int i = 0; i < m->dev_nv[from]; i++)
			if (m->dev_v[from][i] != v)
				m->dev_v[from][o++] = m->dev_v[from][i];
		m->dev_nv[from] = o;
		m->dev_v[to][m->dev_nv[to]++] = v;
		m->vdev[v] = to;
	}
}

struct dev_eval {
	double x, util, davg, act, w;
};

/* Extra latency every command of device d pays: stalls and spikes, and for an array LU shared
 * by several hosts, the time commands bounced with QUEUE FULL spend being retried. */
static double dev_extra_ms(const struct sim_model *m, int d)
{
	const struct sim_dev *dc = &m->cfg->dev[d];
	return m->ds[d].add_ms + (dc->lu_group > 0 ? m->lu_b_ms[dc->lu_group] : 0);
}

static double bg_cost(const struct sim_dev *d)
{
	return d->bg_read_frac * cost_for(d, d->bg_kib, false) + (1 - d->bg_read_frac) * cost_for(d, d->bg_kib, true);
}

static void dev_eval(const struct sim_model *m, int d, double r_ms, struct dev_eval *e)
{
	const struct sim_dev *dc = &m->cfg->dev[d];
	double x = 0, w = 0;
	for (int i = 0; i < m->dev_nv[d]; i++) {
		int v = m->dev_v[d][i];
		double xv = vdisk_rate(m, v, slot_ms(m, v, r_ms));
		x += xv;
		w += xv * m->vs[v].ucost;
	}
	double mult = m->ds[d].svc_mult > 0 ? m->ds[d].svc_mult : 1;
	w *= mult;
	/* An LU shared by several hosts is one processor-sharing server: the others' work counts. */
	double other = 0;
	if (dc->lu_group > 0)
		for (int k = 0; k < m->cfg->ndev; k++)
			if (k != d && m->cfg->dev[k].lu_group == dc->lu_group)
				other += m->ds[k].w_cur;
	double par = m->ds[d].par_mult > 0 ? dc->parallel * m->ds[d].par_mult : dc->parallel;
	double util = (w + other + m->ds[d].x_bg * bg_cost(dc) * mult) / 1000.0 / par;
	double u = x > 0 ? w / x : dc->s0_r;
	e->x = x;
	e->w = w;
	e->util = util;
	e->davg = (util < 0.999 ? u / (1 - util) : 1e9) + dev_extra_ms(m, d);
	e->act = x * e->davg / 1000.0;
}

struct dev_ctx {
	const struct sim_model *m;
	int d;
};

static bool dev_too_small(void *ctx, double r)
{
	const struct dev_ctx *k = ctx;
	const struct sim_model *m = k->m;
	struct dev_eval e;
	dev_eval(m, k->d, r, &e);
	double qa = m->cfg->dev[k->d].kind == SIM_DEV_SCSI ? m->as[sim_dev_adapter(m, k->d)].qa_ms : 0;
	return e.util >= 0.999 || e.act > m->ds[k->d].cap + 1e-9 || r < e.davg + m->cfg->dev[k->d].k0 + qa;
}

/* Smallest v in [lo_min, hi_max] for which too_small(v) is false (geometric bisection, warm start). */
static double solve_geo(bool (*too_small)(void *, double), void *ctx, double guess, double lo_min, double hi_max,
			double tol)
{
	if (!(guess > lo_min))
		guess = lo_min * 4;
	double lo = guess / 2, hi = guess * 2;
	if (lo < lo_min)
		lo = lo_min;
	if (hi > hi_max)
		hi = hi_max;
	while (lo > lo_min && !too_small(ctx, lo)) {
		hi = lo;
		lo = lo / 8 < lo_min ? lo_min : lo / 8;
	}
	if (!too_small(ctx, lo))
		return lo;
	while (hi < hi_max && too_small(ctx, hi)) {
		lo = hi;
		hi = hi * 8 > hi_max ? hi_max : hi * 8;
	}
	for (int i = 0; i < 60 && hi > lo * (1 + tol); i++) {
		double mid = sqrt(lo * hi);
		if (too_small(ctx, mid))
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}

static void dev_solve(struct sim_model *m, int d)
{
	struct dev_ctx k = {m, d};
	m->ds[d].r_ms = solve_geo(dev_too_small, &k, m->ds[d].r_ms, 1e-3, 1e7, 1e-6);
	if (m->cfg->dev[d].lu_group > 0) {
		struct dev_eval e;
		dev_eval(m, d, m->ds[d].r_ms, &e);
		m->ds[d].w_cur = e.w;
	}
}

/* ---- an array LU shared by several hosts ----
 * The LU holds at most lu_qdepth commands; the hosts together may issue more (each up to its own
 * DQLEN). The excess is answered QUEUE FULL and retried by the driver, so from the host it is
 * still an active command, and the retry time is part of DAVG (driver time). The retry time b
 * is the smallest for which the commands in the array fit the LU queue — like the HBA's wait. */

static int lu_leader(const struct sim_config *c, int g)
{
	for (int d = 0; d < c->ndev; d++)
		if (c->dev[d].lu_group == g)
			return d;
	return -1;
}

static void lu_group_solve(struct sim_model *m, int g)
{
	for (int it = 0; it < 3; it++)
		for (int d = 0; d < m->cfg->ndev; d++)
			if (m->cfg->dev[d].lu_group == g)
				dev_solve(m, d);
}

static double lu_in_array(const struct sim_model *m, int g)
{
	double n = 0;
	for (int d = 0; d < m->cfg->ndev; d++) {
		if (m->cfg->dev[d].lu_group != g)
			continue;
		struct dev_eval e;
		dev_eval(m, d, m->ds[d].r_ms, &e);
		n += e.x * (e.davg - dev_extra_ms(m, d)) / 1000.0 + m->ds[d].bg_out;
	}
	return n;
}

struct lu_ctx {
	struct sim_model *m;
	int g;
	double n;
};

static bool lu_too_small(void *ctx, double b)
{
	struct lu_ctx *k = ctx;
	k->m->lu_b_ms[k->g] = b;
	lu_group_solve(k->m, k->g);
	return lu_in_array(k->m, k->g) > k->n + 1e-6;
}

static void lu_solve(struct sim_model *m, int g)
{
	int lead = lu_leader(m->cfg, g);
	double prev = m->lu_b_ms[g];
	struct lu_ctx k = {m, g, m->cfg->dev[lead].lu_qdepth};
	m->lu_b_ms[g] = 0;
	lu_group_solve(m, g);
	if (lu_in_array(m, g) <= k.n + 1e-6)
		return;
	double b = solve_geo(lu_too_small, &k, prev > 0 ? prev : 0.5, 1e-4, 1e7, 1e-4);
	m->lu_b_ms[g] = b;
	lu_group_solve(m, g);
}

struct ctrl_ctx {
	struct sim_model *m;
	int c;
};

static bool ctrl_too_small(void *ctx, double wq)
{
	struct ctrl_ctx *k = ctx;
	struct sim_model *m = k->m;
	double save = m->cs[k->c].e_ms, rho = 0, xs = 0;
	m->cs[k->c].e_ms = wq;
	for (int i = 0; i < m->ctrl_nv[k->c]; i++) {
		int v = m->ctrl_v[k->c][i];
		int d = m->vdev[v];
		double x = vdisk_rate(m, v, slot_ms(m, v, m->ds[d].r_ms));
		rho += x * m->vs[v].ecost / 1000.0;
		xs += x;
	}
	m->cs[k->c].e_ms = save;
	if (rho >= 0.999)
		return true;
	double emean = xs > 0 ? rho * 1000.0 / xs : 0;
	return wq < rho / (1 - rho) * emean;
}

static void ctrl_solve(struct sim_model *m, int c)
{
	struct ctrl_ctx k = {m, c};
	double wq = solve_geo(ctrl_too_small, &k, m->cs[c].e_ms, 1e-5, 1e7, 1e-6);
	m->cs[c].e_ms = wq <= 1e-5 ? 0 : wq;
}

struct adapter_ctx {
	struct sim_model *m;
	int a;
};

static double adapter_act(struct sim_model *m, int a)
{
	double sum = 0;
	for (int d = 0; d < m->cfg->ndev; d++) {
		if (m->cfg->dev[d].kind != SIM_DEV_SCSI || sim_dev_adapter(m, d) != a)
			continue;
		dev_solve(m, d);
		struct dev_eval e;
		dev_eval(m, d, m->ds[d].r_ms, &e);
		sum += e.act;
	}
	return sum;
}

static bool adapter_too_small(void *ctx, double qa)
{
	struct adapter_ctx *k = ctx;
	k->m->as[k->a].qa_ms = qa;
	return adapter_act(k->m, k->a) > k->m->cfg->adapter[k->a].aqlen + 1e-6;
}

static void adapter_solve(struct sim_model *m, int a)
{
	double prev = m->as[a].qa_ms;
	m->as[a].qa_ms = 0;
	if (adapter_act(m, a) <= m->cfg->adapter[a].aqlen + 1e-6)
		return;
	struct adapter_ctx k = {m, a};
	double qa = solve_geo(adapter_too_small, &k, prev > 0 ? prev : 0.5, 1e-4, 1e7, 1e-4);
	m->as[a].qa_ms = qa;
	adapter_act(m, a);
}

/* ---- controllers acting between steps ---- */

/* Newer scenarios' device behaviour: array service phases (a cache that stops hitting), one
 * service wobble for an LU shared by hosts, latency spike trains, stalls and path failovers. */
static void update_device_events(struct sim_model *m)
{
	const struct sim_config *c = m->cfg;
	for (int d = 0; d < c->ndev; d++) {
		const struct sim_dev *dc = &c->dev[d];
		struct sim_dev_state *ds = &m->ds[d];
		if (dc->lu_group > 0) {
			int lead = lu_leader(c, dc->lu_group);
			if (lead != d)
				ds->svc_mult = m->ds[lead].svc_mult;
		}
		if (dc->nsvc_phase > 0) {
			double lm = 0, lp = 0;
			for (int i = 0; i < dc->nsvc_phase; i++) {
				double w = phase_weight(&dc->svc_phase[i], m->t, c->duration);
				if (w > 0) {
					lm += w * log(dc->svc_phase[i].pop);
					lp += w * log(dc->svc_phase[i].think_ms);
				}
			}
			ds->svc_mult *= exp(lm);
			ds->par_mult = exp(lp);
		}
		double add = 0;
		if (dc->spike_add_ms > 0) {
			if (m->t >= ds->spike_next) {
				ds->spike_t0 = ds->spike_next;
				ds->spike_t1 = ds->spike_t0 + dc->spike_len_s;
				ds->spike_next = ds->spike_t0 + dc->spike_gap_lo_s +
						 (dc->spike_gap_hi_s - dc->spike_gap_lo_s) * prng_uniform(&m->xrng);
			}
			if (m->t >= ds->spike_t0 && m->t < ds->spike_t1)
				add += dc->spike_add_ms;
		}
		for (int i = 0; i < c->ndevev; i++) {
			const struct sim_dev_event *ev = &c->devev[i];
			if (ev->dev == d && ev->kind != SIM_DEVEV_DQLEN && m->t >= ev->t0_s && m->t < ev->t1_s)
				add += ev->add_ms;
		}
		/* round robin over two channels, one slow: half the commands take the slow one */
		if (dc->chan1_add_ms > 0 && m->t >= dc->chan1_t0 * c->duration && m->t < dc->chan1_t1 * c->duration)
			add += dc->chan1_add_ms / 2;
		ds->add_ms = add;
	}
}

static void update_workload(struct sim_model *m)
{
	const struct sim_config *c = m->cfg;
	double dt = c->dt, tau = 4.0;
	double keep = exp(-dt / tau), kick = sqrt(1 - keep * keep);
	for (int v = 0; v < c->nvdisk; v++) {
		struct sim_vdisk_state *s = &m->vs[v];
		const struct sim_vdisk *vd = &c->vdisk[v];
		double pop, z;
		sim_load_at(&vd->load, m->t, c->duration, &pop, &z);
		s->wob = s->wob * keep + kick * prng_normal(&m->rng);
		s->pop = sim_vm_off(c, vd->vm, m->t) ? 0 : pop;
		s->think_ms = z * exp(vd->load.wobble * s->wob);
		/* a CPU-starved guest issues its next IO later: the thread waits for its vCPU */
		if (c->vm[vd->vm].ready_pct > 0)
			s->think_ms += sim_cpu_delay_ms(&c->vm[vd->vm]);
		s->think_ms += sim_swap_stall_ms(c, vd->vm, m->t);
	}
	/* Array service time wanders by ~12 % over a second or two (cache hit ratio, back-end
	 * work): without it saturated queues would be unrealistically flat. */
	double skeep = exp(-dt / 1.5), skick = sqrt(1 - skeep * skeep);
	for (int d = 0; d < c->ndev; d++) {
		struct sim_dev_state *ds = &m->ds[d];
		ds->svc_wob = ds->svc_wob * skeep + skick * prng_normal(&m->rng);
		ds->svc_mult = exp(0.12 * ds->svc_wob);
	}
	update_device_events(m);
	for (int d = 0; d < c->ndev; d++) {
		const struct sim_dev *dc = &c->dev[d];
		struct sim_dev_state *ds = &m->ds[d];
		if (dc->bg_iops <= 0) {
			ds->x_bg = 0;
			continue;
		}
		double mult = 1;
		for (int i = 0; i < dc->nbg_phase; i++) {
			double w = phase_weight(&dc->bg_phase[i], m->t, c->duration);
			if (w > 0)
				mult = mult + w * (dc->bg_phase[i].pop - mult);
		}
		ds->bg_wob = ds->bg_wob * keep + kick * prng_normal(&m->rng);
		double x = dc->bg_iops * mult * exp(0.12 * ds->bg_wob);
		double bc = bg_cost(dc);
		/* Other hosts cannot push the LU past 95 % busy on their own. */
		if (x * bc / 1000.0 / dc->parallel > 0.95)
			x = 0.95 * dc->parallel * 1000.0 / bc;
		if (dc->sioc) {
			double davg_bg = bc / (1 - (ds->util < 0.99 ? ds->util : 0.99));
			/* The other hosts' window limits their rate through the latency they see; smooth
			 * it, as their own IO completions would, instead of reacting to one step. */
			double lim = ds->sioc_bg_w / (davg_bg / 1000.0);
			ds->bg_lim = ds->bg_lim > 0 ? ds->bg_lim + dt / 3.0 * (lim - ds->bg_lim) : lim;
			if (x > ds->bg_lim)
				x = ds->bg_lim;
		}
		ds->x_bg = x;
	}
}

static void update_dqlen(struct sim_model *m)
{
	const struct sim_config *c = m->cfg;
	for (int d = 0; d < c->ndev; d++) {
		const struct sim_dev *dc = &c->dev[d];
		struct sim_dev_state *ds = &m->ds[d];
		int e = dc->dqlen;
		for (int i = 0; i < c->ndevev; i++) /* the administrator's change of the LUN queue depth */
			if (c->devev[i].dev == d && c->devev[i].kind == SIM_DEVEV_DQLEN && m->t >= c->devev[i].t0_s)
				e = (int)c->devev[i].add_ms;
		if (dc->aqd && ds->aqd_depth < e)
			e = ds->aqd_depth;
		if (dc->sioc) {
			int w = (int)floor(ds->sioc_w + 0.5);
			if (w < e)
				e = w;
		} else if (dc->dsnro > 0 && ds->active_worlds >= 2 && dc->dsnro < e) {
			e = dc->dsnro;
		}
		if (e < 1)
			e = 1;
		ds->dqlen = e;
		ds->cap = e;
		if (dc->array_qdepth > 0) {
			int accept = (int)floor(dc->array_qdepth - ds->bg_out);
			if (accept < 1)
				accept = 1;
			if (accept < ds->cap)
				ds->cap = accept;
		}
	}
}

/* A path failover (KB 1027963's sequence, FC flavour): the active path dies; commands hang on it
 * and are aborted (H:0x5) and retried about once a second; the HBA resets the LUN twice (H:0x8
 * for the commands in flight); then the path selection policy activates the standby path. */
static int failover_step(struct sim_model *m, const struct sim_dev_event *ev, double t)
{
	if (ev->kind != SIM_DEVEV_FAILOVER)
		return 0;
	const struct sim_config *c = m->cfg;
	double dt = c->dt;
	int d = ev->dev;
	struct sim_dev_state *ds = &m->ds[d];
	const int vm = m->dev_nv[d] ? c->vdisk[m->dev_v[d][0]].vm : -1;
	if (t > ev->t0_s && t <= ev->t1_s) {
		if (!ds->failing) {
			ds->failing = true;
			struct sim_event e = {.t = ev->t0_s + 0.002, .dev = d, .vm = -1, .kind = SIM_EV_PATH_DOWN};
			if (add_event(m, &e))
				return ERR_NOMEM;
		}
		double ab = prng_poisson(&m->xrng, ds->act * dt / 1.0);
		for (int s = 0; s < m->nstream; s++)
			m->dev_aborts[s][d] += ab;
		/* NMP throttles its log: about one abort in four is written */
		for (int i = 0; i < (int)ab; i++) {
			if (prng_uniform(&m->xrng) >= 0.25)
				continue;
			struct sim_event e = {.t = t - dt * prng_uniform(&m->xrng), .dev = d, .vm = vm,
					      .kind = SIM_EV_ABORT, .rw = prng_uniform(&m->xrng) < 0.5};
			if (add_event(m, &e))
				return ERR_NOMEM;
		}
		for (int k = 1; k <= 2; k++) {
			double tr = ev->t0_s + 2.0 * k;
			if (tr > t - dt && tr <= t && tr < ev->t1_s) {
				for (int s = 0; s < m->nstream; s++)
					m->dev_resets[s][d] += 1;
				for (int i = 0; i < 3; i++) {
					struct sim_event e = {.t = tr + 0.001 * (i + 1), .dev = d, .vm = vm, .kind = SIM_EV_RESET,
							      .rw = i == 1};
					if (add_event(m, &e))
						return ERR_NOMEM;
				}
			}
		}
	} else if (ds->failing && t > ev->t1_s) {
		ds->failing = false;
		ds->path_now = 1;
		struct sim_event e = {.t = ev->t1_s + 0.004, .dev = d, .vm = -1, .kind = SIM_EV_PATH_SWITCH};
		if (add_event(m, &e))
			return ERR_NOMEM;
	}
	return 0;
}

static int after_step(struct sim_model *m)
{
	const struct sim_config *c = m->cfg;
	double dt = c->dt, t = m->t + dt;
	for (int d = 0; d < c->ndev; d++) {
		const struct sim_dev *dc = &c->dev[d];
		struct sim_dev_state *ds = &m->ds[d];
		double bc = bg_cost(dc);
		ds->bg_out = ds->x_bg * (ds->util < 0.999 ? bc / (1 - ds->util) : bc * 1000) / 1000.0;
		/* QUEUE FULL: the host tries to keep min(DQLEN, demand) commands at the LU, the array
		 * accepts only what its LU queue has left after the other hosts. */
		ds->qfull = 0;
		if (dc->array_qdepth > 0) {
			double attempted = ds->act + ds->qued;
			if (attempted > ds->dqlen)
				attempted = ds->dqlen;
			double excess = attempted - (dc->array_qdepth - ds->bg_out);
			if (excess > 0.5)
				ds->qfull = prng_poisson(&m->rng, excess * dt * 40.0);
		}
		if (dc->lu_group > 0) {
			/* commands retrying against the full LU: each retry (every ~2.5 ms, the driver requeues
			 * at once) is answered QUEUE FULL, so every host with bounced commands collects its
			 * QFullSampleSize within the same tenth of a second and cuts at the same moment */
			double bounced = ds->x * m->lu_b_ms[dc->lu_group] / 1000.0;
			if (bounced > 0.2)
				ds->qfull = prng_poisson(&m->xrng, bounced * dt * 400.0);
		}
		for (int s = 0; s < m->nstream; s++)
			m->dev_failed[s][d] += ds->qfull;
		if (dc->aqd) {
			if (ds->qfull > 0) {
				ds->aqd_qfull += ds->qfull;
				ds->aqd_good = 0;
				struct sim_event ev = {.t = t - dt * prng_uniform(&m->rng), .dev = d, .vm = -1};
				int nlog = ds->qfull > 1 ? 2 : 1;
				for (int i = 0; i < nlog; i++) {
					ev.kind = prng_uniform(&m->rng) < 0.15 ? SIM_EV_BUSY : SIM_EV_QFULL;
					ev.rw = prng_uniform(&m->rng) < 0.5;
					ev.vm = m->dev_nv[d] ? c->vdisk[m->dev_v[d][prng_below(&m->rng, (uint32_t)m->dev_nv[d])]].vm : -1;
					if (add_event(m, &ev))
						return ERR_NOMEM;
					ev.t += 0.001 + 0.01 * prng_uniform(&m->rng);
				}
				if (ds->aqd_qfull >= dc->aqd_sample) {
					int nd = ds->aqd_depth / 2;
					if (nd < dc->aqd_floor)
						nd = dc->aqd_floor;
					if (nd < ds->aqd_depth) {
						struct sim_event r = {.t = ev.t + 0.002, .dev = d, .vm = -1, .kind = SIM_EV_REDUCE, .a = nd};
						if (add_event(m, &r))
							return ERR_NOMEM;
					}
					ds->aqd_depth = nd;
					ds->aqd_qfull = 0;
				}
			} else {
				ds->aqd_good += ds->x * dt;
				while (ds->aqd_good >= dc->aqd_batch) {
					ds->aqd_good -= dc->aqd_batch;
					ds->aqd_qfull = 0;
					if (ds->aqd_depth < dc->dqlen)
						ds->aqd_depth++;
				}
			}
		}
		if (dc->sioc) {
			/* PARDA (Gulati et al., FAST'09): w <- (1-g) w + g (L_thr / L * w + beta), every 4 s,
			 * on the datastore-wide latency, which is the same array latency for every host. */
			if (ds->x > 0 || ds->x_bg > 0) {
				ds->sioc_sum += ds->davg_ms * dt;
				ds->sioc_n += dt;
			}
			if (t >= ds->sioc_next) {
				ds->sioc_next += 4.0;
				if (ds->sioc_n > 0) {
					double lat = ds->sioc_sum / ds->sioc_n;
					ds->sioc_lat = ds->sioc_lat > 0 ? 0.5 * ds->sioc_lat + 0.5 * lat : lat;
					double g = 0.4, ratio = dc->sioc_ms / (ds->sioc_lat > 0.01 ? ds->sioc_lat : 0.01);
					/* each update moves the window by at most 20 %: SIOC's steps are gradual */
					double nw = (1 - g) * ds->sioc_w + g * (ratio * ds->sioc_w + dc->sioc_beta);
					double nb = (1 - g) * ds->sioc_bg_w + g * (ratio * ds->sioc_bg_w + dc->sioc_bg_beta);
					ds->sioc_w = fmax(0.8 * ds->sioc_w, fmin(1.2 * ds->sioc_w, nw));
					ds->sioc_bg_w = fmax(0.8 * ds->sioc_bg_w, fmin(1.2 * ds->sioc_bg_w, nb));
					double hi = dc->dqlen;
					ds->sioc_w = ds->sioc_w < 4 ? 4 : ds->sioc_w > hi ? hi : ds->sioc_w;
					ds->sioc_bg_w = ds->sioc_bg_w < 4 ? 4 : ds->sioc_bg_w > 2 * hi ? 2 * hi : ds->sioc_bg_w;
				}
				ds->sioc_sum = ds->sioc_n = 0;
			}
		}
		/* vmkernel "performance has deteriorated / improved" (ScsiDeviceIO), on a slow average. */
		if (ds->x > 1 && !dc->local && dc->kind == SIM_DEV_SCSI) {
			if (ds->lat_slow <= 0)
				ds->lat_slow = ds->davg_ms;
			double k = dt / 120.0;
			if (!ds->deteriorated && ds->davg_ms > 15 && ds->davg_ms > 8 * ds->lat_slow) {
				struct sim_event ev = {.t = t, .dev = d, .vm = -1, .kind = SIM_EV_DETERIORATE,
					.a = ds->lat_slow * 1000, .b = ds->davg_ms * 1000};
				if (add_event(m, &ev))
					return ERR_NOMEM;
				ds->deteriorated = true;
			} else if (ds->deteriorated && ds->davg_ms < 2 * ds->lat_slow) {
				struct sim_event ev = {.t = t, .dev = d, .vm = -1, .kind = SIM_EV_IMPROVE,
					.a = ds->lat_slow * 1000, .b = ds->davg_ms * 1000};
				if (add_event(m, &ev))
					return ERR_NOMEM;
				ds->deteriorated = false;
			}
			ds->lat_slow += k * (ds->davg_ms - ds->lat_slow);
		}
	}
	for (int i = 0; i < c->ndevev; i++) {
		int rc = failover_step(m, &c->devev[i], t);
		if (rc)
			return rc;
	}
	/* DSNRO applies while more than one VM (world) keeps IO outstanding on the LUN. */
	for (int d = 0; d < c->ndev; d++) {
		int active = 0;
		for (int vm = 0; vm < c->nvm; vm++) {
			double x = 0;
			for (int i = 0; i < m->dev_nv[d]; i++) {
				int v = m->dev_v[d][i];
				if (c->vdisk[v].vm == vm)
					x += m->vs[v].ewma_x;
			}
			if (x > 20)
				active++;
		}
		m->ds[d].active_worlds = active;
	}
	return 0;
}

int sim_model_step(struct sim_model *m)
{
	const struct sim_config *c = m->cfg;
	double dt = c->dt;
	move_disks(m);
	update_workload(m);
	update_dqlen(m);

	/* Gauss-Seidel between the LUNs, the LSI emulation servers and the HBAs; warm-started from
	 * the previous step, which is close because the workload changes slowly. */
	int iters = m->nserial ? 6 : 1;
	for (int it = 0; it < iters; it++) {
		for (int d = 0; d < c->ndev; d++)
			dev_solve(m, d);
		for (int k = 0; k < c->nctrl; k++)
			if (c->ctrl[k].serial)
				ctrl_solve(m, k);
	}
	for (int d = 0; d < c->ndev; d++)
		if (c->dev[d].lu_group > 0 && lu_leader(c, c->dev[d].lu_group) == d)
			lu_solve(m, c->dev[d].lu_group);
	for (int a = 0; a < c->nadapter; a++)
		adapter_solve(m, a);
	/* Controller-wide vSCSI limit (LSI 128 / PVSCSI 256): shrink every disk's share. */
	for (int k = 0; k < c->nctrl; k++) {
		double occ = 0;
		for (int i = 0; i < m->ctrl_nv[k]; i++) {
			int v = m->ctrl_v[k][i];
			occ += vdisk_rate(m, v, slot_ms(m, v, m->ds[m->vdev[v]].r_ms)) *
			       slot_ms(m, v, m->ds[m->vdev[v]].r_ms) / 1000.0;
		}
		double lim = c->ctrl[k].adapter_limit;
		if (occ > lim)
			m->cs[k].scale *= lim / occ;
		else if (m->cs[k].scale < 1)
			m->cs[k].scale = fmin(1, m->cs[k].scale * 1.05);
	}

	/* Derive the state every output reads. */
	for (int a = 0; a < c->nadapter; a++)
		m->as[a].act = m->as[a].qued = 0;
	for (int d = 0; d < c->ndev; d++) {
		const struct sim_dev *dc = &c->dev[d];
		struct sim_dev_state *ds = &m->ds[d];
		struct dev_eval e;
		dev_eval(m, d, ds->r_ms, &e);
		ds->x = e.x;
		ds->util = e.util;
		ds->davg_ms = e.davg;
		ds->act = e.act;
		ds->qwait_ms = ds->r_ms - e.davg - dc->k0;
		if (ds->qwait_ms < 0)
			ds->qwait_ms = 0;
		ds->qued = e.x * ds->qwait_ms / 1000.0;
		if (dc->kind == SIM_DEV_SCSI) {
			int ad = sim_dev_adapter(m, d);
			double qa = m->as[ad].qa_ms;
			m->as[ad].act += ds->act;
			m->as[ad].qued += e.x * (qa < ds->qwait_ms ? qa : ds->qwait_ms) / 1000.0;
		}
		double extra = dev_extra_ms(m, d);
		double onem = e.util < 0.999 ? 1 - e.util : 0.001;
		double xa_act = 0, xa_qued = 0; /* what a snapshot's extra back-end commands add */
		for (int i = 0; i < m->dev_nv[d]; i++) {
			int v = m->dev_v[d][i];
			struct sim_vdisk_state *s = &m->vs[v];
			const struct sim_vdisk *vd = &c->vdisk[v];
			double rs = slot_ms(m, v, ds->r_ms);
			s->x = vdisk_rate(m, v, rs);
			s->rslot_ms = rs;
			double mult = ds->svc_mult > 0 ? ds->svc_mult : 1;
			s->davg_r_ms = s->ur * mult / onem + extra;
			s->davg_w_ms = s->uw * mult / onem + extra;
			s->host_r_ms = ds->r_ms - e.davg + s->davg_r_ms;
			s->host_w_ms = ds->r_ms - e.davg + s->davg_w_ms;
			s->vscsi_out = s->x * rs / 1000.0;
			double lim = c->ctrl[vd->ctrl].disk_limit * m->cs[vd->ctrl].scale;
			s->capped = s->pop > 0 && s->vscsi_out >= lim * (1 - 1e-6);
			s->wait_ms = 0;
			if (s->capped && s->x > 0) {
				s->wait_ms = (s->pop - s->x * s->think_ms / 1000.0) / s->x * 1000.0 - rs;
				if (s->wait_ms < 0)
					s->wait_ms = 0;
			}
			s->guest_out = s->x * (rs + s->wait_ms) / 1000.0;
			/* a snapshot's back-end commands hold device slots too (Little: amp x rate x DAVG) */
			double amp = sim_vdisk_amp(vd, m->t, NULL);
			s->act = amp * s->x * e.davg / 1000.0;
			s->qued = amp * s->x * ds->qwait_ms / 1000.0;
			xa_act += (amp - 1) * s->x * e.davg / 1000.0;
			xa_qued += (amp - 1) * s->x * ds->qwait_ms / 1000.0;
			if (s->vscsi_out > m->max_vscsi[v])
				m->max_vscsi[v] = s->vscsi_out;
			double ka = 1 - exp(-dt / 2.0);
			s->ewma_x += ka * (s->x - s->ewma_x);
		}
		ds->act += xa_act;
		ds->qued += xa_qued;
		if (dc->kind == SIM_DEV_SCSI)
			m->as[sim_dev_adapter(m, d)].act += xa_act;
	}

	/* Count completions and accumulate interval sums for both output clocks. */
	for (int v = 0; v < c->nvdisk; v++) {
		struct sim_vdisk_state *s = &m->vs[v];
		const struct sim_vdisk *vd = &c->vdisk[v];
		const struct sim_dev_state *ds = &m->ds[m->vdev[v]];
		double fr = vd->load.read_frac;
		double add, amp = sim_vdisk_amp(vd, m->t, &add);
		double nr = prng_poisson(&m->rng, s->x * fr * dt);
		double nw = prng_poisson(&m->rng, s->x * (1 - fr) * dt);
		double n = nr + nw;
		double split = vd->split_frac > 0 ? prng_poisson(&m->rng, n * vd->split_frac) : 0;
		double vsplit = vd->vsplit_frac > 0 ? prng_poisson(&m->rng, n * vd->vsplit_frac) : 0;
		double kavg = ds->r_ms - ds->davg_ms;
		double emu = m->cs[vd->ctrl].e_ms + s->ecost, stall = sim_swap_stall_ms(c, vd->vm, m->t);
		for (int st = 0; st < m->nstream; st++) {
			struct sim_acc *a = &m->acc[st][v];
			a->time_s += dt;
			a->rd += nr;
			a->wr += nw;
			a->brd += nr * vd->load.read_kib * 1024.0;
			a->bwr += nw * vd->load.write_kib * 1024.0;
			a->davg_r += nr * s->davg_r_ms;
			a->davg_w += nw * s->davg_w_ms;
			a->kavg_r += nr * kavg;
			a->kavg_w += nw * kavg;
			a->qavg_r += nr * ds->qwait_ms;
			a->qavg_w += nw * ds->qwait_ms;
			a->glat_r += nr * (s->wait_ms + emu + s->host_r_ms + add + GUEST_G0_MS + stall);
			a->glat_w += nw * (s->wait_ms + emu + s->host_w_ms + add + GUEST_G0_MS + stall);
			a->bk += n * amp;
			a->above_r += nr * add;
			a->above_w += nw * add;
			a->split += split;
			a->vsplit += vsplit;
			a->idle_s += dt * exp(-s->guest_out);
		}
	}
	int rc = after_step(m);
	m->t += dt;
	m->step++;
	return rc;
}

/* ---- point samples ---- */

void sim_model_sample_dev(struct sim_model *m, int d, int *actv, int *qued)
{
	const struct sim_dev_state *ds = &m->ds[d];
	double a = ds->act, q = ds->qued;
	int cap = ds->cap < ds->dqlen ? ds->cap : ds->dqlen;
	if (q < 0.5) {
		/* Unsaturated: the number in service fluctuates like an M/G/inf population. */
		int k = (int)prng_poisson(&m->srng, a + q);
		*actv = k < cap ? k : cap;
		*qued = k - *actv;
	} else {
		int k = a >= cap - 0.5 ? cap : (int)prng_poisson(&m->srng, a);
		*actv = k < cap ? k : cap;
		double qn = floor(q + sqrt(q) * 0.5 * prng_normal(&m->srng) + 0.5);
		*qued = qn < 0 ? 0 : (int)qn;
	}
}

int sim_model_sample_guest(struct sim_model *m, int v)
{
	const struct sim_vdisk_state *s = &m->vs[v];
	double n = s->guest_out;
	int k;
	if (s->capped) {
		double q = floor(n + sqrt(n) * 0.4 * prng_normal(&m->srng) + 0.5);
		int lo = (int)floor(s->vscsi_out + 0.5);
		k = q < lo ? lo : (int)q;
	} else {
		k = (int)prng_poisson(&m->srng, n);
	}
	int hi = (int)ceil(s->pop);
	if (k > hi)
		k = hi;
	return k < 0 ? 0 : k;
}
