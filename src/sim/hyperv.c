/* hyperv.c — a Hyper-V cluster node (HV01) as its perfmon shows it (the Hyper-V domain brief,
 * doc/hyperv-domain.md; doc/simulate.md "Hyper-V scenarios"). IO goes VHDX (storage VSP, Storage QoS) -> CSVFS
 * (direct, or redirected over SMB to the coordinator node) -> LUN (an M/M/c-like service centre).
 * Each step of 0.5 s is solved quasi-statically: every VHDX is a closed pool of threads; for each
 * LUN the queue wait W is the fixed point of W = wait(utilisation(X(W))). Storage QoS caps a VHDX's
 * normalized IOPS and its wait shows in the VHDX Latency only; a guest-side limit on outstanding
 * IOs and vCPU dispatch waits show in the guest's latency only. */
#include "hyperv.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "capture.h"
#include "kinds.h"
#include "out.h"
#include "util.h"

enum { HV_MAX_VM = 6, HV_MAX_VHDX = 12, HV_NCSV = 2, HV_NLUN = 3, HV_MAX_VP = 48, HV_NLP = 16, HV_NSTREAM = 2 };
enum { HV_HOST, HV_GUEST };    /* accumulator streams: the host's perfmon clock, the guest's */

static const double DT = 0.5;          /* step (s) */
static const double CSV_OVH_MS = 0.05; /* CSVFS direct IO above the LUN */
static const double VSP_OVH_MS = 0.03; /* storage VSP above CSVFS */

struct hv_vm {
	char name[32];
	int nvp;
	double demand, busy_demand, t0, t1;  /* CPU per VP (fraction), and in [t0, t1) of the duration */
};

struct hv_vhdx {
	int vm, csv;
	char inst[SIM_NAME];   /* perfmon instance: the path with '\' written '-' */
	char drive[4];         /* guest drive of the guest VM's disks, else "" */
	struct sim_load load;
	double qos_max, qos_t0, qos_t1;   /* Storage QoS maximum (normalized IOPS) while in [t0, t1) */
	double glimit;                     /* guest-side outstanding limit (0 = none below the pool) */
	double size_gb, free_pct, flush_per_s;
};

struct hv_csv {
	char name[16];
	int lun;
	double redir_t0, redir_t1;   /* file-system redirected on this node in [t0, t1) (fractions) */
	double rtt_ms;               /* SMB round trip to the coordinator node */
};

struct hv_lun {
	char inst[16];               /* PhysicalDisk instance */
	double s0_r, s0_w, t_kib, parallel;
	double bg_iops, bg_kib;      /* other nodes' IO on the LUN (not in this node's counters) */
	double bg_busy, bg_t0, bg_t1;/* bg_iops multiplier while in [t0, t1) */
	double trickle;              /* this node's own small IO (boot disk, CSV metadata), IOPS */
	double size_gb;
};

struct hv_state {
	double wob, qos_jit, x, sr, sw, lr, lw, hr, hw, gr, gw, qhost, qlow, qguest, nfac;
};

struct hv_acc {
	double time_s;
	double rd[HV_MAX_VHDX], wr[HV_MAX_VHDX], brd[HV_MAX_VHDX], bwr[HV_MAX_VHDX], norm[HV_MAX_VHDX];
	double hlat_r[HV_MAX_VHDX], hlat_w[HV_MAX_VHDX], llat[HV_MAX_VHDX];
	double qhost[HV_MAX_VHDX], qlow[HV_MAX_VHDX];   /* time integrals, for the instant samples' means */
	struct sim_acc guest[HV_MAX_VHDX];                /* the guest's view of each disk */
	/* CSVFS: [csv][0 direct, 1 redirected] */
	double c_rd[HV_NCSV][2], c_wr[HV_NCSV][2], c_brd[HV_NCSV][2], c_bwr[HV_NCSV][2];
	double c_lat_r[HV_NCSV][2], c_lat_w[HV_NCSV][2];
	struct sim_acc lun[HV_NLUN];
	double vm_run[HV_MAX_VM], wait_ns, lp_util, cpu_guest;
};

struct hv {
	const struct sim_config *c;
	int nvm, nvhdx, guest_vm;    /* guest_vm: the VM whose perfmon is written, -1 = none */
	bool want_map;
	struct hv_vm vm[HV_MAX_VM];
	struct hv_vhdx vh[HV_MAX_VHDX];
	struct hv_csv csv[HV_NCSV];
	struct hv_lun lun[HV_NLUN];
	struct hv_state st[HV_MAX_VHDX];
	double lun_w[HV_NLUN], lun_q[HV_NLUN], lun_wob[HV_NLUN], rtt_wob;
	double cpu_d, wait_ns;       /* demand / LPs, dispatch wait this step */
	struct prng rng, srng;
	struct hv_acc acc[HV_NSTREAM];
	double flush_cum[HV_MAX_VHDX];
	double t;
};

/* ---- topology ---- */

static int add_vm(struct hv *h, const char *name, int nvp, double demand)
{
	struct hv_vm *v = &h->vm[h->nvm];
	snprintf(v->name, sizeof v->name, "%s", name);
	v->nvp = nvp;
	v->demand = v->busy_demand = demand;
	v->t0 = v->t1 = 0;
	return h->nvm++;
}

/* A VHDX at C:\ClusterStorage\<csv>\<folder>\Virtual Hard Disks\<file>, folder = the VM's name
 * (prefix "Hyper-V\" when hv_folder). */
static struct hv_vhdx *add_vhdx(struct hv *h, int vm, int csv, const char *file, bool hv_folder, const char *drive,
				double pop, double think_ms, double read_frac, double rkib, double wkib)
{
	char cname[16], vname[32];
	snprintf(cname, sizeof cname, "%s", h->csv[csv].name);
	snprintf(vname, sizeof vname, "%s", h->vm[vm].name);
	struct hv_vhdx *d = &h->vh[h->nvhdx++];
	memset(d, 0, sizeof *d);
	d->vm = vm;
	d->csv = csv;
	snprintf(d->inst, sizeof d->inst, "C:-ClusterStorage-%s-%s%s-Virtual Hard Disks-%s", cname,
		 hv_folder ? "Hyper-V-" : "", vname, file);
	snprintf(d->drive, sizeof d->drive, "%s", drive ? drive : "");
	d->load.pop = pop;
	d->load.think_ms = think_ms;
	d->load.read_frac = read_frac;
	d->load.read_kib = rkib;
	d->load.write_kib = wkib;
	d->load.wobble = 0.25;
	d->size_gb = 200;
	d->free_pct = 40;
	d->flush_per_s = 0.4;
	return d;
}

static void add_phase(struct hv_vhdx *d, double t0, double t1, double pop, double think_ms)
{
	if (d->load.nphase < SIM_MAX_PHASE)
		d->load.phase[d->load.nphase++] = (struct sim_phase){.t0 = t0, .t1 = t1, .pop = pop, .think_ms = think_ms};
}

static void lun_flash(struct hv_lun *l, const char *inst)
{
	snprintf(l->inst, sizeof l->inst, "%s", inst);
	l->s0_r = 0.9, l->s0_w = 0.6, l->t_kib = 0.012, l->parallel = 16;
	l->bg_iops = 300, l->bg_kib = 16, l->bg_busy = 1;
	l->trickle = 3;
	l->size_gb = 2048;
}

/* The common node: SQL01 (C: D: L:), APP-02 (a hyphen in its folder) and WEB03 (under a
 * "Hyper-V" folder) on Volume1 (Disk 2) and Volume2 (Disk 3); boot disk 0 C:. sql_d_csv: the CSV
 * holding SQL01_D.vhdx. Returns the index of SQL01_D. */
static int node_base(struct hv *h, int sql_d_csv)
{
	snprintf(h->csv[0].name, sizeof h->csv[0].name, "Volume1");
	snprintf(h->csv[1].name, sizeof h->csv[1].name, "Volume2");
	for (int i = 0; i < HV_NCSV; i++) {
		h->csv[i].lun = i + 1;
		h->csv[i].redir_t0 = h->csv[i].redir_t1 = -1;
		h->csv[i].rtt_ms = 17;
	}
	struct hv_lun *boot = &h->lun[0];
	snprintf(boot->inst, sizeof boot->inst, "0 C:");
	boot->s0_r = 0.25, boot->s0_w = 0.15, boot->t_kib = 0.004, boot->parallel = 4;
	boot->trickle = 9, boot->bg_busy = 1, boot->size_gb = 446;
	lun_flash(&h->lun[1], "2");
	lun_flash(&h->lun[2], "3");
	int sql = add_vm(h, "SQL01", 8, 0.32);
	int app = add_vm(h, "APP-02", 4, 0.22);
	int web = add_vm(h, "WEB03", 2, 0.12);
	h->guest_vm = sql;
	struct hv_vhdx *d = add_vhdx(h, sql, 0, "SQL01_C.vhdx", false, "C:", 1, 90, 0.4, 16, 8);
	d->size_gb = 127, d->free_pct = 35;
	/* OLTP: 8 KiB pages, ~75 % reads, ~2,000 IOPS */
	d = add_vhdx(h, sql, sql_d_csv, "SQL01_D.vhdx", false, "D:", 14, 5.8, 0.75, 8, 8);
	d->size_gb = 1024, d->free_pct = 28, d->flush_per_s = 0.02;
	int sql_d = h->nvhdx - 1;
	/* the log writer: sequential writes, a couple outstanding */
	d = add_vhdx(h, sql, 1, "SQL01_L.vhdx", false, "L:", 2, 3.2, 0.02, 60, 12);
	d->size_gb = 256, d->free_pct = 60, d->flush_per_s = 0.02;
	add_vhdx(h, app, 0, "APP-02_C.vhdx", false, NULL, 1, 70, 0.5, 16, 8);
	add_vhdx(h, app, 0, "APP-02_D.vhdx", false, NULL, 4, 18, 0.6, 32, 32);
	add_vhdx(h, web, 1, "WEB03_C.vhdx", true, NULL, 2, 40, 0.7, 8, 8);
	return sql_d;
}

/* The VHDX whose instance ends in file (-1 if none). */
static int find_vhdx(const struct hv *h, const char *file)
{
	for (int i = 0; i < h->nvhdx; i++) {
		size_t n = strlen(h->vh[i].inst), k = strlen(file);
		if (n >= k && strcmp(h->vh[i].inst + n - k, file) == 0)
			return i;
	}
	return -1;
}

static void topo(struct hv *h, const struct sim_config *c)
{
	memset(h, 0, sizeof *h);
	h->c = c;
	int sd;
	switch ((enum sim_hv)c->hyperv) {
	case SIM_HV_QOS:
		sd = node_base(h, 0);
		/* the busy phase wants ~3,000 IOPS; the policy allows 500 normalized IOPS */
		add_phase(&h->vh[sd], 1.0 / 3, 2.0 / 3, 36, 10);
		h->vh[sd].qos_max = 500, h->vh[sd].qos_t0 = 1.0 / 3, h->vh[sd].qos_t1 = 2.0 / 3;
		break;
	case SIM_HV_CSV_REDIRECTED:
		sd = node_base(h, 0);
		h->csv[1].redir_t0 = 0.25, h->csv[1].redir_t1 = 0.75;
		/* a busier Volume2 than the base: the log plus a reporting disk of SQL01 */
		h->vh[find_vhdx(h, "SQL01_L.vhdx")].load.pop = 3;
		break;
	case SIM_HV_NOISY: {
		sd = node_base(h, 0);
		/* APP-02's batch: 64 KiB reads and writes, a deep pool, no think time to speak of */
		int a = find_vhdx(h, "APP-02_D.vhdx");
		add_phase(&h->vh[a], 0.3, 0.7, 84, 0.5);
		h->vh[a].load.read_kib = h->vh[a].load.write_kib = 64;
		/* Disk 2: a hybrid LUN, far less parallel than flash */
		h->lun[1].s0_r = 1.6, h->lun[1].s0_w = 1.0, h->lun[1].t_kib = 0.05, h->lun[1].parallel = 8;
		break;
	}
	case SIM_HV_GUEST_QUEUE:
		sd = node_base(h, 0);
		/* a filter driver in SQL01 (backup agent, encryption) lets 4 IOs through at a time */
		add_phase(&h->vh[sd], 0.25, 0.75, 170, 8);
		h->vh[sd].glimit = 4;
		h->want_map = true;
		break;
	case SIM_HV_VCPU_WAIT: {
		sd = node_base(h, 0);
		int b = add_vm(h, "BATCH05", 8, 0.05), v = add_vm(h, "VDI06", 8, 0.05);
		h->vm[b].busy_demand = 0.97, h->vm[b].t0 = 0.3, h->vm[b].t1 = 0.7;
		h->vm[v].busy_demand = 0.92, h->vm[v].t0 = 0.3, h->vm[v].t1 = 0.7;
		h->vm[0].busy_demand = 0.45, h->vm[0].t0 = 0.3, h->vm[0].t1 = 0.7;
		add_vhdx(h, b, 1, "BATCH05_C.vhdx", false, NULL, 1, 60, 0.5, 16, 16);
		add_vhdx(h, v, 1, "VDI06_C.vhdx", true, NULL, 1, 50, 0.6, 8, 8);
		break;
	}
	case SIM_HV_HOST_ONLY:
		sd = node_base(h, 0);
		add_phase(&h->vh[sd], 0.3, 0.7, 18, 5.8);
		h->guest_vm = -1;
		break;
	case SIM_HV_MOVE_CSV:
		sd = node_base(h, c->part == 0 ? 0 : 1);
		/* Volume1's LUN: a capacity tier (reads ~22 ms from disk, writes into the cache) that
		 * the other nodes' VMs keep ~60 % busy; Volume2's is the quiet flash LUN */
		h->lun[1].s0_r = 22, h->lun[1].s0_w = 6, h->lun[1].t_kib = 0.05, h->lun[1].parallel = 48;
		h->lun[1].bg_iops = 1200, h->lun[1].bg_kib = 32;
		break;
	case SIM_HV_HEALTHY:
	case SIM_HV_NONE:
	default:
		sd = node_base(h, 0);
		add_phase(&h->vh[sd], 0.3, 0.7, 18, 5.8);
		break;
	}
	(void)sd;
}

/* ---- the model ---- */

static bool in_window(double t, double dur, double t0, double t1)
{
	return t0 >= 0 && t >= t0 * dur && t < t1 * dur;
}

/* Normalized IOs per IO (Storage QoS: each 8 KiB or part of it counts one). */
static double norm_factor(const struct sim_load *l)
{
	return l->read_frac * ceil(l->read_kib / 8) + (1 - l->read_frac) * ceil(l->write_kib / 8);
}

/* Queue wait of an M/M/c centre (Sakasegawa's approximation), ms. */
static double mmc_wait(double s_ms, double rho, double c)
{
	if (rho <= 0)
		return 0;
	if (rho > 0.999)
		rho = 0.999;
	return s_ms * pow(rho, sqrt(2 * (c + 1)) - 1) / (c * (1 - rho));
}

/* Guest-side delay per IO from vCPU dispatch waits: the completion interrupt, the storport DPC
 * and the waiting thread each wait to be dispatched, about twenty dispatches per IO [derived]. */
static double cpu_delay_ms(double wait_ns)
{
	return 20 * wait_ns / 1e6;
}

/* Solves VHDX v for a LUN queue wait W (ms); returns its IOPS and fills its state. */
static double vhdx_solve(struct hv *h, int v, double W, double lun_mult, double rtt)
{
	const struct hv_vhdx *d = &h->vh[v];
	struct hv_state *s = &h->st[v];
	const struct sim_config *c = h->c;
	const struct hv_csv *cs = &h->csv[d->csv];
	const struct hv_lun *l = &h->lun[cs->lun];
	double pop, z;
	sim_load_at(&d->load, h->t, c->duration, &pop, &z);
	z *= exp(d->load.wobble * s->wob);
	double rf = d->load.read_frac;
	s->sr = (l->s0_r + l->t_kib * d->load.read_kib) * lun_mult;
	s->sw = (l->s0_w + l->t_kib * d->load.write_kib) * lun_mult;
	double up = CSV_OVH_MS + (in_window(h->t, c->duration, cs->redir_t0, cs->redir_t1) ? rtt : 0);
	s->lr = s->sr + W + up;
	s->lw = s->sw + W + up;
	double r0 = rf * s->lr + (1 - rf) * s->lw + VSP_OVH_MS;
	double gx = cpu_delay_ms(h->wait_ns);
	double xd = pop > 0 ? 1000 * pop / (r0 + gx + z) : 0;
	s->nfac = norm_factor(&d->load);
	double xq = d->qos_max > 0 && in_window(h->t, c->duration, d->qos_t0, d->qos_t1)
			    ? d->qos_max * (1 + 0.01 * s->qos_jit) / s->nfac : INFINITY;
	double xl = d->glimit > 0 ? 1000 * d->glimit / (r0 + gx) : INFINITY;
	double x = fmin(xd, fmin(xq, xl));
	double wq = 0, wg = 0;
	if (x < xd && x > 0) {
		double e = 1000 * pop / x - (r0 + gx + z);
		e = e > 0 ? e : 0;
		if (xq <= xl) {
			wq = e;
			if (d->glimit > 0 && x * (r0 + wq + gx) / 1000 > d->glimit)
				wq = fmax(0, 1000 * d->glimit / x - r0 - gx);
			wg = e - wq;
		} else {
			wg = e;
		}
	}
	s->x = x;
	s->hr = s->lr + VSP_OVH_MS + wq;
	s->hw = s->lw + VSP_OVH_MS + wq;
	s->gr = s->hr + gx + wg;
	s->gw = s->hw + gx + wg;
	s->qhost = x * (rf * s->hr + (1 - rf) * s->hw) / 1000;
	s->qlow = x * (rf * s->lr + (1 - rf) * s->lw) / 1000;
	s->qguest = x * (rf * s->gr + (1 - rf) * s->gw) / 1000;
	return x;
}

/* Work (busy servers) the LUN gets for wait W, and its mean service time. */
static double lun_work(struct hv *h, int lu, double W, double mult, double rtt, double bg, double *smean)
{
	double work = 0, n = 0;
	for (int v = 0; v < h->nvhdx; v++) {
		if (h->csv[h->vh[v].csv].lun != lu)
			continue;
		double x = vhdx_solve(h, v, W, mult, rtt), rf = h->vh[v].load.read_frac;
		work += x * (rf * h->st[v].sr + (1 - rf) * h->st[v].sw);
		n += x;
	}
	const struct hv_lun *l = &h->lun[lu];
	double sb = (0.5 * (l->s0_r + l->s0_w) + l->t_kib * l->bg_kib) * mult;
	work += (bg + l->trickle) * sb;
	n += bg + l->trickle;
	*smean = n > 0 ? work / n : l->s0_r;
	return work / 1000;
}

static void cpu_step(struct hv *h)
{
	const struct sim_config *c = h->c;
	double d = 0.4;   /* the root partition */
	for (int i = 0; i < h->nvm; i++) {
		const struct hv_vm *v = &h->vm[i];
		d += v->nvp * (in_window(h->t, c->duration, v->t0, v->t1) ? v->busy_demand : v->demand);
	}
	h->cpu_d = d / HV_NLP;
	/* ~8 us per dispatch uncontended [serverfault 675991]; it grows with the run queue and
	 * steeply once the VPs want more than the LPs have */
	double rho = fmin(h->cpu_d, 0.95);
	double w = 8000 + 4000 * rho * rho / (1 - rho) + 600000 * fmax(0, h->cpu_d - 0.95);
	h->wait_ns = w * (1 + 0.05 * prng_normal(&h->rng));
}

static void step(struct hv *h)
{
	const struct sim_config *c = h->c;
	double keep = exp(-DT / 30), kick = sqrt(1 - keep * keep);
	for (int v = 0; v < h->nvhdx; v++) {
		h->st[v].wob = h->st[v].wob * keep + kick * prng_normal(&h->rng);
		h->st[v].qos_jit = prng_normal(&h->rng);
	}
	double skeep = exp(-DT / 2), skick = sqrt(1 - skeep * skeep);
	for (int l = 0; l < HV_NLUN; l++)
		h->lun_wob[l] = h->lun_wob[l] * skeep + skick * prng_normal(&h->rng);
	h->rtt_wob = h->rtt_wob * skeep + skick * prng_normal(&h->rng);
	cpu_step(h);
	for (int lu = 0; lu < HV_NLUN; lu++) {
		const struct hv_lun *L = &h->lun[lu];
		double mult = exp(0.10 * h->lun_wob[lu]);
		double rtt = 0;
		for (int k = 0; k < HV_NCSV; k++)
			if (h->csv[k].lun == lu)
				rtt = h->csv[k].rtt_ms * exp(0.2 * h->rtt_wob);
		double bg = L->bg_iops * (in_window(h->t, c->duration, L->bg_t0, L->bg_t1) ? L->bg_busy : 1) *
			    exp(0.15 * h->lun_wob[lu]);
		/* fixed point of W = wait(rho(W)): wait(rho(W)) - W falls as W grows */
		double lo = 0, hi = 20000, sm;
		for (int it = 0; it < 48; it++) {
			double mid = 0.5 * (lo + hi);
			double rho = lun_work(h, lu, mid, mult, rtt, bg, &sm) / L->parallel;
			if (mmc_wait(sm, rho, L->parallel) > mid)
				lo = mid;
			else
				hi = mid;
		}
		h->lun_w[lu] = 0.5 * (lo + hi);
		lun_work(h, lu, h->lun_w[lu], mult, rtt, bg, &sm);
		/* this node's outstanding IO at the LUN: its direct IO and its trickle */
		double q = L->trickle * exp(0.3 * h->lun_wob[lu]) * (L->s0_r + h->lun_w[lu]) / 1000;
		for (int v = 0; v < h->nvhdx; v++) {
			const struct hv_csv *cs = &h->csv[h->vh[v].csv];
			if (cs->lun != lu || in_window(h->t, c->duration, cs->redir_t0, cs->redir_t1))
				continue;
			double rf = h->vh[v].load.read_frac;
			q += h->st[v].x * (rf * (h->st[v].sr + h->lun_w[lu]) + (1 - rf) * (h->st[v].sw + h->lun_w[lu])) / 1000;
		}
		h->lun_q[lu] = q;
	}
	h->t += DT;
	/* accumulate both clocks */
	for (int k = 0; k < HV_NSTREAM; k++) {
		struct hv_acc *a = &h->acc[k];
		a->time_s += DT;
		for (int v = 0; v < h->nvhdx; v++) {
			const struct hv_vhdx *d = &h->vh[v];
			const struct hv_state *s = &h->st[v];
			int ci = d->csv, lu = h->csv[ci].lun;
			bool red = in_window(h->t - DT, c->duration, h->csv[ci].redir_t0, h->csv[ci].redir_t1);
			double rf = d->load.read_frac, nr = s->x * rf * DT, nw = s->x * (1 - rf) * DT;
			a->rd[v] += nr, a->wr[v] += nw;
			a->brd[v] += nr * d->load.read_kib * 1024, a->bwr[v] += nw * d->load.write_kib * 1024;
			a->norm[v] += s->x * s->nfac * DT;
			a->hlat_r[v] += nr * s->hr, a->hlat_w[v] += nw * s->hw;
			a->llat[v] += nr * s->lr + nw * s->lw;
			a->qhost[v] += s->qhost * DT, a->qlow[v] += s->qlow * DT;
			struct sim_acc *g = &a->guest[v];
			g->time_s += DT;
			g->rd += nr, g->wr += nw, g->brd += nr * d->load.read_kib * 1024, g->bwr += nw * d->load.write_kib * 1024;
			g->glat_r += nr * s->gr, g->glat_w += nw * s->gw;
			g->idle_s += DT * exp(-s->qguest);
			int m = red ? 1 : 0;
			a->c_rd[ci][m] += nr, a->c_wr[ci][m] += nw;
			a->c_brd[ci][m] += nr * d->load.read_kib * 1024, a->c_bwr[ci][m] += nw * d->load.write_kib * 1024;
			a->c_lat_r[ci][m] += nr * s->lr, a->c_lat_w[ci][m] += nw * s->lw;
			if (!red) {
				struct sim_acc *u = &a->lun[lu];
				u->rd += nr, u->wr += nw;
				u->brd += nr * d->load.read_kib * 1024, u->bwr += nw * d->load.write_kib * 1024;
				u->glat_r += nr * (s->sr + h->lun_w[lu]), u->glat_w += nw * (s->sw + h->lun_w[lu]);
			}
		}
		for (int lu = 0; lu < HV_NLUN; lu++) {
			const struct hv_lun *L = &h->lun[lu];
			struct sim_acc *u = &a->lun[lu];
			/* the trickle: 4 KiB, two thirds writes (logs, CSV metadata) */
			double n = L->trickle * DT * exp(0.3 * h->lun_wob[lu]);
			u->rd += n / 3, u->wr += 2 * n / 3;
			u->brd += n / 3 * 4096, u->bwr += 2 * n / 3 * 4096;
			u->glat_r += n / 3 * (L->s0_r + h->lun_w[lu]), u->glat_w += 2 * n / 3 * (L->s0_w + h->lun_w[lu]);
			u->idle_s += DT * exp(-h->lun_q[lu]);
			u->time_s += DT;
		}
		double over = h->cpu_d > 0.99 ? 0.99 / h->cpu_d : 1;
		for (int i = 0; i < h->nvm; i++) {
			const struct hv_vm *vm = &h->vm[i];
			double dm = in_window(h->t - DT, c->duration, vm->t0, vm->t1) ? vm->busy_demand : vm->demand;
			a->vm_run[i] += DT * dm * over;
		}
		a->wait_ns += DT * h->wait_ns;
		a->lp_util += DT * fmin(h->cpu_d, 0.99);
	}
}

/* ---- writers ---- */

enum hv_obj { O_CSVFS, O_CSV_DIRECT, O_CSV_REDIR, O_LP, O_VP, O_VSD, O_MEM, O_PDISK, O_PROC, O_LDISK };

static const char *const vsd_ctr[] = {"Read Operations/Sec", "Write Operations/Sec", "Read Bytes/sec",
	"Write Bytes/sec", "Latency", "Queue Length", "Lower Latency", "Lower Queue Length", "Normalized Throughput",
	"Throughput", "Error Count", "Flush Count"};
enum { VSD_ROPS, VSD_WOPS, VSD_RB, VSD_WB, VSD_LAT, VSD_QL, VSD_LLAT, VSD_LQL, VSD_NORM, VSD_TPUT, VSD_ERR, VSD_FLUSH,
       VSD_N };
static const char *const csv_ctr[] = {"Reads/sec", "Writes/sec", "Read Bytes/sec", "Write Bytes/sec",
	"Avg. sec/Read", "Avg. sec/Write", "Avg. Read Queue Length", "Avg. Write Queue Length"};
enum { CSV_R, CSV_W, CSV_RB, CSV_WB, CSV_SR, CSV_SW, CSV_RQ, CSV_WQ, CSV_N };
/* the Direct IO and Redirected IO objects carry these of csv_ctr */
static const int csv_split_ctr[] = {CSV_R, CSV_W, CSV_SR, CSV_SW};
static const char *const lp_ctr[] = {"% Total Run Time", "% Guest Run Time", "% Hypervisor Run Time"};
static const char *const vp_ctr[] = {"% Guest Run Time", "% Total Run Time", "CPU Wait Time Per Dispatch"};

struct hcol {
	unsigned char obj, ctr;
	short inst, sub;    /* entity index; sub = VP number */
	bool instant;
};

struct hv_writer {
	struct sim_out out;
	struct hcol *cols;
	size_t ncols, cap;
	struct sim_line head;
	const char *machine;
	bool ok;
};

static void w_add(struct hv_writer *w, int obj, int inst, int sub, int ctr, bool instant, const char *path)
{
	if (!w->ok)
		return;
	if (w->ncols == w->cap) {
		size_t n = w->cap ? 2 * w->cap : 256;
		struct hcol *p = realloc(w->cols, n * sizeof *p);
		if (!p) {
			w->ok = false;
			return;
		}
		w->cols = p, w->cap = n;
	}
	w->cols[w->ncols++] = (struct hcol){(unsigned char)obj, (unsigned char)ctr, (short)inst, (short)sub, instant};
	size_t lp = strlen(path), lm = strlen(w->machine);
	if (!sim_line_reserve(&w->head, lp + lm + 8)) {
		w->ok = false;
		return;
	}
	char *p = w->head.p + w->head.len;
	memcpy(p, ",\"\\\\", 4), p += 4;
	memcpy(p, w->machine, lm), p += lm;
	*p++ = '\\';
	memcpy(p, path, lp), p += lp;
	*p++ = '"';
	w->head.len = (size_t)(p - w->head.p);
}

static int bias_of(int64_t utc_ms)
{
	return sim_us_dst(utc_ms) ? 420 : 480;
}

static void w_begin(struct hv_writer *w, const struct sim_config *c, const char *machine)
{
	memset(w, 0, sizeof *w);
	w->machine = machine;
	w->ok = true;
	bool dst = sim_us_dst(c->start_ms);
	char buf[96];
	int n = snprintf(buf, sizeof buf, "\"(PDH-CSV 4.0) (%s)(%d)\"", dst ? "Pacific Daylight Time" : "Pacific Standard Time",
			 bias_of(c->start_ms));
	w->ok = n > 0 && sim_line_reserve(&w->head, (size_t)n);
	if (w->ok) {
		memcpy(w->head.p, buf, (size_t)n);
		w->head.len = (size_t)n;
	}
}

static int w_open(struct hv_writer *w, const struct sim_config *c, const char *path)
{
	if (!w->ok || !sim_line_reserve(&w->head, 2))
		return ERR_NOMEM;
	w->head.p[w->head.len++] = '\r';
	w->head.p[w->head.len++] = '\n';
	int rc = sim_out_open(&w->out, path, c->gzip);
	if (!rc)
		sim_out_write(&w->out, w->head.p, w->head.len);
	sim_line_free(&w->head);
	return rc;
}

static void w_stamp(struct hv_writer *w, const struct sim_config *c, double t, double offset_s)
{
	int64_t utc = c->start_ms + (int64_t)floor(t * 1000.0) + (int64_t)floor(offset_s * 1000);
	struct sim_tm tm;
	sim_time_split(utc - (int64_t)bias_of(utc) * 60000, &tm);
	char cell[64];
	int n = snprintf(cell, sizeof cell, "\"%02d/%02d/%04d %02d:%02d:%02d.%03d\"", tm.mon, tm.day, tm.year, tm.hour,
			 tm.min, tm.sec, tm.ms);
	if (n > 0)
		sim_out_write(&w->out, cell, (size_t)n);
}

static void w_val(struct hv_writer *w, double v, bool blank)
{
	if (blank) {
		sim_out_write(&w->out, ",\" \"", 4);
		return;
	}
	char num[48];
	size_t len = sim_fmt_pdh(num, sizeof num, v);
	sim_out_write(&w->out, ",\"", 2);
	sim_out_write(&w->out, num, len);
	sim_out_write(&w->out, "\"", 1);
}

static void w_free(struct hv_writer *w)
{
	free(w->cols);
	sim_line_free(&w->head);
}

static void host_columns(struct hv_writer *w, const struct hv *h)
{
	char p[512];
	static const int csv_obj[] = {O_CSVFS, O_CSV_DIRECT, O_CSV_REDIR};
	static const char *const csv_name[] = {"Cluster CSVFS", "Cluster CSVFS Direct IO", "Cluster CSVFS Redirected IO"};
	for (int o = 0; o < 3; o++)
		for (int k = 0; k < HV_NCSV; k++) {
			int n = o == 0 ? CSV_N : 4;
			for (int i = 0; i < n; i++) {
				int ctr = o == 0 ? i : csv_split_ctr[i];
				snprintf(p, sizeof p, "%s(%s)\\%s", csv_name[o], h->csv[k].name, csv_ctr[ctr]);
				w_add(w, csv_obj[o], k, 0, ctr, false, p);
			}
		}
	for (int l = 0; l <= HV_NLP; l++)
		for (int i = 0; i < 3; i++) {
			if (l < HV_NLP)
				snprintf(p, sizeof p, "Hyper-V Hypervisor Logical Processor(Hv LP %d)\\%s", l, lp_ctr[i]);
			else
				snprintf(p, sizeof p, "Hyper-V Hypervisor Logical Processor(_Total)\\%s", lp_ctr[i]);
			w_add(w, O_LP, l, 0, i, false, p);
		}
	for (int v = 0; v < h->nvm; v++)
		for (int n = 0; n < h->vm[v].nvp; n++)
			for (int i = 0; i < 3; i++) {
				snprintf(p, sizeof p, "Hyper-V Hypervisor Virtual Processor(%s:Hv VP %d)\\%s", h->vm[v].name, n,
					 vp_ctr[i]);
				w_add(w, O_VP, v, n, i, false, p);
			}
	for (int v = 0; v < h->nvhdx; v++)
		for (int i = 0; i < VSD_N; i++) {
			snprintf(p, sizeof p, "Hyper-V Virtual Storage Device(%s)\\%s", h->vh[v].inst, vsd_ctr[i]);
			w_add(w, O_VSD, v, 0, i, i == VSD_QL || i == VSD_LQL || i == VSD_ERR || i == VSD_FLUSH, p);
		}
	w_add(w, O_MEM, 0, 0, 0, true, "Memory\\Available MBytes");
	for (int l = 0; l <= HV_NLUN; l++)
		for (int k = SIM_PM_CDQL; k < SIM_PM_NDISK; k++) {
			snprintf(p, sizeof p, "PhysicalDisk(%s)\\%s", l < HV_NLUN ? h->lun[l].inst : "_Total", sim_pm_disk_counters[k]);
			w_add(w, O_PDISK, l, 0, k, k == SIM_PM_CDQL, p);
		}
	w_add(w, O_PROC, 0, 0, 0, false, "Processor(_Total)\\% Processor Time");
}

static void guest_columns(struct hv_writer *w, const struct hv *h, int *gd, int ngd)
{
	char p[256];
	for (int i = 0; i <= ngd; i++)
		for (int k = 0; k < SIM_PM_NDISK; k++) {
			snprintf(p, sizeof p, "LogicalDisk(%s)\\%s", i < ngd ? h->vh[gd[i]].drive : "_Total", sim_pm_disk_counters[k]);
			w_add(w, O_LDISK, i, 0, k, k <= SIM_PM_CDQL, p);
		}
	w_add(w, O_MEM, 0, 0, 0, true, "Memory\\Available MBytes");
	for (int i = 0; i <= ngd; i++)
		for (int k = SIM_PM_CDQL; k < SIM_PM_NDISK; k++) {
			if (i < ngd)
				snprintf(p, sizeof p, "PhysicalDisk(%d %s)\\%s", i, h->vh[gd[i]].drive, sim_pm_disk_counters[k]);
			else
				snprintf(p, sizeof p, "PhysicalDisk(_Total)\\%s", sim_pm_disk_counters[k]);
			w_add(w, O_PDISK, i, 0, k, k == SIM_PM_CDQL, p);
		}
	w_add(w, O_PROC, 0, 0, 0, false, "Processor(_Total)\\% Processor Time");
}

static double clamp(double v, double lo, double hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* One row of hyperv.csv for the interval that ends at t. */
static int host_row(struct hv_writer *w, struct hv *h, double t, bool first)
{
	const struct hv_acc *a = &h->acc[HV_HOST];
	double secs = a->time_s > 0 ? a->time_s : 1;
	double vsd[HV_MAX_VHDX][VSD_N];
	for (int v = 0; v < h->nvhdx; v++) {
		double n = a->rd[v] + a->wr[v];
		double *o = vsd[v];
		o[VSD_ROPS] = a->rd[v] / secs, o[VSD_WOPS] = a->wr[v] / secs;
		o[VSD_RB] = a->brd[v] / secs, o[VSD_WB] = a->bwr[v] / secs;
		o[VSD_LAT] = n > 0 ? (a->hlat_r[v] + a->hlat_w[v]) / n / 1000 : 0;
		o[VSD_LLAT] = n > 0 ? a->llat[v] / n / 1000 : 0;
		/* instant samples of the outstanding IO (Poisson around the interval's mean) */
		o[VSD_QL] = prng_poisson(&h->srng, a->qhost[v] / secs);
		/* of those, each is below the VSP (not waiting for its QoS turn) with probability qlow/qhost */
		double pl = a->qhost[v] > 0 ? a->qlow[v] / a->qhost[v] : 0, lq = 0;
		for (int q = 0; q < (int)o[VSD_QL]; q++)
			lq += prng_uniform(&h->srng) < pl;
		o[VSD_LQL] = lq;
		o[VSD_NORM] = a->norm[v] / secs;
		o[VSD_TPUT] = (a->brd[v] + a->bwr[v]) / secs;
		o[VSD_ERR] = 0;
		h->flush_cum[v] += prng_poisson(&h->srng, h->vh[v].flush_per_s * secs);
		o[VSD_FLUSH] = h->flush_cum[v];
	}
	double csv[HV_NCSV][3][CSV_N];
	for (int k = 0; k < HV_NCSV; k++) {
		for (int m = 0; m < 3; m++) {
			double rd = 0, wr = 0, brd = 0, bwr = 0, lr = 0, lw = 0;
			for (int s = 0; s < 2; s++) {
				if (m != 0 && s != m - 1)
					continue;
				rd += a->c_rd[k][s], wr += a->c_wr[k][s], brd += a->c_brd[k][s], bwr += a->c_bwr[k][s];
				lr += a->c_lat_r[k][s], lw += a->c_lat_w[k][s];
			}
			double *o = csv[k][m];
			o[CSV_R] = rd / secs, o[CSV_W] = wr / secs, o[CSV_RB] = brd / secs, o[CSV_WB] = bwr / secs;
			o[CSV_SR] = rd > 0 ? lr / rd / 1000 : 0, o[CSV_SW] = wr > 0 ? lw / wr / 1000 : 0;
			o[CSV_RQ] = lr / 1000 / secs, o[CSV_WQ] = lw / 1000 / secs;
		}
	}
	double pd[HV_NLUN + 1][SIM_PM_NDISK];
	struct sim_acc tot = {0};
	int cdql = 0;
	for (int l = 0; l < HV_NLUN; l++) {
		const struct sim_acc *u = &a->lun[l];
		sim_pm_disk_values(u, secs, pd[l]);
		int q = (int)prng_poisson(&h->srng, h->lun_q[l]);
		pd[l][SIM_PM_CDQL] = q;
		cdql += q;
		tot.rd += u->rd, tot.wr += u->wr, tot.brd += u->brd, tot.bwr += u->bwr;
		tot.glat_r += u->glat_r, tot.glat_w += u->glat_w, tot.idle_s += u->idle_s / HV_NLUN;
	}
	sim_pm_disk_values(&tot, secs, pd[HV_NLUN]);
	pd[HV_NLUN][SIM_PM_CDQL] = cdql;
	/* CPU: per-LP and per-VP values spread around the interval's means; _Total = their mean */
	double util = a->lp_util / secs * 100, lp[HV_NLP + 1][3], sum[3] = {0};
	for (int l = 0; l < HV_NLP; l++) {
		double tr = clamp(util * (1 + 0.06 * prng_normal(&h->srng)), 0.5, 100);
		double hyp = clamp(tr * (0.05 + 0.01 * prng_uniform(&h->srng)), 0, tr);
		lp[l][0] = tr, lp[l][1] = tr - hyp, lp[l][2] = hyp;
		for (int i = 0; i < 3; i++)
			sum[i] += lp[l][i];
	}
	for (int i = 0; i < 3; i++)
		lp[HV_NLP][i] = sum[i] / HV_NLP;
	double wait = a->wait_ns / secs;
	w_stamp(w, h->c, t, 0);
	for (size_t i = 0; i < w->ncols; i++) {
		const struct hcol *k = &w->cols[i];
		double v = 0;
		switch (k->obj) {
		case O_CSVFS:
		case O_CSV_DIRECT:
		case O_CSV_REDIR:
			v = csv[k->inst][k->obj - O_CSVFS][k->ctr];
			break;
		case O_LP:
			v = lp[k->inst][k->ctr];
			break;
		case O_VP: {
			double run = a->vm_run[k->inst] / secs * 100;
			double tr = clamp(run * (1 + 0.08 * prng_normal(&h->srng)), 0.1, 100);
			v = k->ctr == 0 ? tr * 0.93 : k->ctr == 1 ? tr : fmax(1000, wait * (1 + 0.1 * prng_normal(&h->srng)));
			break;
		}
		case O_VSD:
			v = vsd[k->inst][k->ctr];
			break;
		case O_MEM:
			v = floor(41000 + 900 * prng_uniform(&h->srng));
			break;
		case O_PDISK:
			v = pd[k->inst][k->ctr];
			break;
		case O_PROC:
			v = clamp(4 + 1.5 * prng_normal(&h->srng), 0.5, 100);
			break;
		default:
			break;
		}
		w_val(w, v, first && !k->instant);
	}
	sim_out_write(&w->out, "\r\n", 2);
	return w->out.err;
}

/* One row of the guest's perfmon.csv. */
static int guest_row(struct hv_writer *w, struct hv *h, const int *gd, int ngd, double t, bool first, double offset_s)
{
	const struct hv_acc *a = &h->acc[HV_GUEST];
	double secs = a->time_s > 0 ? a->time_s : 1;
	double ld[HV_MAX_VHDX + 1][SIM_PM_NDISK];
	struct sim_acc tot = {0};
	double size = 0, freemb = 0;
	int cdql = 0;
	for (int i = 0; i < ngd; i++) {
		const struct hv_vhdx *d = &h->vh[gd[i]];
		const struct sim_acc *g = &a->guest[gd[i]];
		sim_pm_disk_values(g, secs, ld[i]);
		int q = (int)prng_poisson(&h->srng, h->st[gd[i]].qguest);
		ld[i][SIM_PM_CDQL] = q;
		cdql += q;
		double fm = d->size_gb * 1024 * d->free_pct / 100;
		ld[i][SIM_PM_FREE_MB] = floor(fm);
		ld[i][SIM_PM_FREE_PCT] = d->free_pct;
		size += d->size_gb * 1024, freemb += fm;
		tot.rd += g->rd, tot.wr += g->wr, tot.brd += g->brd, tot.bwr += g->bwr;
		tot.glat_r += g->glat_r, tot.glat_w += g->glat_w, tot.idle_s += g->idle_s / ngd;
	}
	sim_pm_disk_values(&tot, secs, ld[ngd]);
	ld[ngd][SIM_PM_CDQL] = cdql;
	ld[ngd][SIM_PM_FREE_MB] = floor(freemb);
	ld[ngd][SIM_PM_FREE_PCT] = size > 0 ? 100 * freemb / size : 0;
	double run = a->vm_run[h->guest_vm] / secs;
	const struct hv_vm *vm = &h->vm[h->guest_vm];
	double dem = run > 0 ? run : vm->demand;
	w_stamp(w, h->c, t, offset_s);
	for (size_t i = 0; i < w->ncols; i++) {
		const struct hcol *k = &w->cols[i];
		double v = 0;
		if (k->obj == O_LDISK || k->obj == O_PDISK)
			v = ld[k->inst][k->ctr];
		else if (k->obj == O_MEM)
			v = floor(5200 + 300 * prng_uniform(&h->srng));
		else if (k->obj == O_PROC)
			v = clamp(100 * dem * (1 + 0.05 * prng_normal(&h->srng)), 0.5, 100);
		w_val(w, v, first && !k->instant);
	}
	sim_out_write(&w->out, "\r\n", 2);
	return w->out.err;
}

static void reset_acc(struct hv *h, int k)
{
	memset(&h->acc[k], 0, sizeof h->acc[k]);
}

static int join(char *out, size_t n, const char *dir, const char *name)
{
	int k = snprintf(out, n, "%s/%s", dir, name);
	return k > 0 && (size_t)k < n ? 0 : ERR_USAGE;
}

static int write_map(const struct hv *h, const char *path)
{
	struct sim_out o;
	int rc = sim_out_open(&o, path, false);
	if (rc)
		return rc;
	sim_out_puts(&o, "# guest disk = virtual disk (GUESTHOST\\DRIVE = VHDX instance), written by iopsy simulate\n");
	char line[512];
	for (int v = 0; v < h->nvhdx; v++) {
		if (h->vh[v].vm != h->guest_vm || !h->vh[v].drive[0])
			continue;
		int n = snprintf(line, sizeof line, "%s\\%s = %s\n", h->vm[h->guest_vm].name, h->vh[v].drive, h->vh[v].inst);
		if (n > 0)
			sim_out_write(&o, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
	}
	return sim_out_commit(&o);
}

int sim_hv_run(const struct sim_config *c, const char *dir, struct sim_hv_result *res)
{
	memset(res, 0, sizeof *res);
	static char path[4096];
	struct hv *h = calloc(1, sizeof *h);
	if (!h)
		return ERR_NOMEM;
	topo(h, c);
	prng_seed(&h->rng, c->seed, 2001 + 16 * (uint64_t)c->part);
	prng_seed(&h->srng, c->seed, 2002 + 16 * (uint64_t)c->part);
	struct prng jit;
	prng_seed(&jit, c->seed, 2003 + 16 * (uint64_t)c->part);
	for (int v = 0; v < h->nvhdx; v++)
		h->st[v].wob = prng_normal(&h->rng);
	/* the guest's clock: within half a second of the host's */
	double offset = floor((prng_uniform(&jit) - 0.5) * 1000) / 1000;
	int gd[HV_MAX_VHDX], ngd = 0;
	for (int v = 0; h->guest_vm >= 0 && v < h->nvhdx; v++)
		if (h->vh[v].vm == h->guest_vm && h->vh[v].drive[0])
			gd[ngd++] = v;
	struct hv_writer hw, gw;
	w_begin(&hw, c, "HV01");
	w_begin(&gw, c, h->guest_vm >= 0 ? h->vm[h->guest_vm].name : "");
	host_columns(&hw, h);
	res->host_columns = (long)hw.ncols + 1;
	res->failed_file = c->gzip ? "hyperv.csv.gz" : "hyperv.csv";
	int rc = join(path, sizeof path, dir, res->failed_file);
	if (!rc)
		rc = w_open(&hw, c, path);
	bool guest = !rc && h->guest_vm >= 0;
	if (guest) {
		guest_columns(&gw, h, gd, ngd);
		res->failed_file = c->gzip ? "perfmon.csv.gz" : "perfmon.csv";
		rc = join(path, sizeof path, dir, res->failed_file);
		if (!rc)
			rc = w_open(&gw, c, path);
		if (rc)
			guest = false;
	}
	double next_h = c->interval + 0.3 + 0.6 * prng_uniform(&jit);
	double next_g = c->perf_interval + 0.2 + 0.7 * prng_uniform(&jit);
	bool first_h = true, first_g = true;
	while (!rc && h->t < c->duration - 1e-9) {
		step(h);
		if (h->t >= next_h - 1e-9) {
			res->failed_file = c->gzip ? "hyperv.csv.gz" : "hyperv.csv";
			rc = host_row(&hw, h, next_h, first_h);
			first_h = false;
			res->host_rows++;
			reset_acc(h, HV_HOST);
			next_h += c->interval + 0.003;
		}
		if (!rc && guest && h->t >= next_g - 1e-9) {
			res->failed_file = c->gzip ? "perfmon.csv.gz" : "perfmon.csv";
			rc = guest_row(&gw, h, gd, ngd, next_g, first_g, offset);
			first_g = false;
			res->guest_rows++;
			reset_acc(h, HV_GUEST);
			next_g += c->perf_interval + 0.003;
		}
	}
	int r2 = rc ? (sim_out_abort(&hw.out), 0) : sim_out_commit(&hw.out);
	if (!rc && r2)
		res->failed_file = c->gzip ? "hyperv.csv.gz" : "hyperv.csv";
	rc = rc ? rc : r2;
	if (guest) {
		r2 = rc ? (sim_out_abort(&gw.out), 0) : sim_out_commit(&gw.out);
		if (!rc && r2)
			res->failed_file = c->gzip ? "perfmon.csv.gz" : "perfmon.csv";
		rc = rc ? rc : r2;
	}
	w_free(&hw);
	w_free(&gw);
	if (!rc && h->want_map) {
		res->failed_file = "disks.map";
		rc = join(path, sizeof path, dir, res->failed_file);
		if (!rc)
			rc = write_map(h, path);
	}
	if (!rc) {
		res->failed_file = "truth.json";
		rc = join(path, sizeof path, dir, res->failed_file);
		if (!rc)
			rc = sim_write_truth(c, path);
	}
	free(h);
	return rc;
}

/* ---- truth ---- */

static const char *const hv_kinds[] = {"throttle.storage_qos", "csv.redirected", "latency.host_disk",
				       "queue.guest_hidden", "cpu.contention"};

/* Absent: the Hyper-V kinds but `except` (NULL = all of them) and the VMware-only kinds. Kinds the
 * engine's table lacks are kept by name. */
static void hv_absent(struct sim_config *c, const char *except, const char *except2)
{
	for (size_t i = 0; i < sizeof hv_kinds / sizeof hv_kinds[0]; i++) {
		if ((except && !strcmp(hv_kinds[i], except)) || (except2 && !strcmp(hv_kinds[i], except2)))
			continue;
		int k = kind_find(hv_kinds[i]);
		if (k >= 0)
			c->absent |= UINT64_C(1) << k;
		if (c->nabsent_names < SIM_MAX_EXPECT)
			c->absent_names[c->nabsent_names++] = hv_kinds[i];
	}
	sc_absent_unrelated(c);
	sc_absent(c, "latency.device", "latency.kernel", "queue.device_saturated", "queue.guest_vscsi_cap",
		  "latency.datastore", "latency.hba", "path.change", "latency.vdisk_above_device", "config.queue_depth_change",
		  NULL);
}

static void hv_common(struct sim_config *c, enum sim_hv kind)
{
	c->hyperv = kind;
	/* --only and --perfmon-disks are the ESXi set's: both Hyper-V captures are written whole */
	c->only = SIM_ONLY_ALL;
	c->perf_disks = SIM_PDISKS_ALL;
	snprintf(c->host, sizeof c->host, "HV01");
	c->pcpus = HV_NLP;
}

void sim_hv_build_healthy(struct sim_config *c, int part)
{
	(void)part;
	hv_common(c, SIM_HV_HEALTHY);
	sc_absent_all(c);
	hv_absent(c, NULL, NULL);
	c->tx.clean = 1;
}

static const char *sql_d_inst(int csv)
{
	return csv == 0 ? "C:-ClusterStorage-Volume1-SQL01-Virtual Hard Disks-SQL01_D.vhdx"
			: "C:-ClusterStorage-Volume2-SQL01-Virtual Hard Disks-SQL01_D.vhdx";
}

void sim_hv_build_qos(struct sim_config *c, int part)
{
	(void)part;
	hv_common(c, SIM_HV_QOS);
	sc_expect(c, "throttle.storage_qos", sql_d_inst(0), NULL, 1.0 / 3, 2.0 / 3);
	hv_absent(c, "throttle.storage_qos", NULL);
}

void sim_hv_build_csv_redirected(struct sim_config *c, int part)
{
	(void)part;
	hv_common(c, SIM_HV_CSV_REDIRECTED);
	sc_expect(c, "csv.redirected", "Volume2", NULL, 0.25, 0.75);
	hv_absent(c, "csv.redirected", NULL);
}

void sim_hv_build_noisy(struct sim_config *c, int part)
{
	(void)part;
	hv_common(c, SIM_HV_NOISY);
	sc_expect(c, "latency.host_disk", "Disk 2", NULL, 0.3, 0.7);
	snprintf(c->expect[c->nexpect - 1].neighbour, SIM_NAME, "%s",
		 "C:-ClusterStorage-Volume1-APP-02-Virtual Hard Disks-APP-02_D.vhdx");
	hv_absent(c, "latency.host_disk", NULL);
}

void sim_hv_build_guest_queue(struct sim_config *c, int part)
{
	(void)part;
	hv_common(c, SIM_HV_GUEST_QUEUE);
	sc_expect(c, "queue.guest_hidden", "D:", "SQL01", 0.25, 0.75);
	sc_expect(c, "latency.guest_read", "D:", "SQL01", 0.25, 0.75);
	hv_absent(c, "queue.guest_hidden", NULL);
}

void sim_hv_build_vcpu_wait(struct sim_config *c, int part)
{
	(void)part;
	hv_common(c, SIM_HV_VCPU_WAIT);
	sc_expect(c, "cpu.contention", "SQL01", NULL, 0.3, 0.7);
	/* the guest's wait the host does not see may be said, as information explained by the CPU
	 * (doc/analyze-json.md cpu.contention), so queue.guest_hidden is not forbidden */
	hv_absent(c, "cpu.contention", "queue.guest_hidden");
}

void sim_hv_build_host_only(struct sim_config *c, int part)
{
	(void)part;
	hv_common(c, SIM_HV_HOST_ONLY);
	sc_absent_all(c);
	hv_absent(c, NULL, NULL);
	c->tx.clean = 1;
	c->tx.coverage = true;
	static const char *const cov[SIM_NLAYER] = {"not_assessed", "assessed", "not_assessed", "assessed",
						    "not_assessed", "not_assessed"};
	for (int k = 0; k < SIM_NLAYER; k++)
		c->tx.cov_override[k] = cov[k];
}

void sim_hv_build_move_csv(struct sim_config *c, int part)
{
	hv_common(c, SIM_HV_MOVE_CSV);
	if (part == 0) {
		/* before: SQL01's D: reads ~25 ms on Volume1's busy LUN */
		sc_expect(c, "latency.guest_read", "D:", "SQL01", 0.0, 1.0);
		/* latency.host_disk on Disk 2 is neither required nor forbidden before: its load comes
		 * from the other nodes, which this node's capture cannot show */
		hv_absent(c, "latency.host_disk", NULL);
		return;
	}
	/* after: Disk 2 (Volume1's LUN) stays as busy from the other nodes as before, so its latency
	 * may still be found, though SQL01 no longer uses it */
	hv_absent(c, "latency.host_disk", NULL);
	/* (SQL01's C: stays on Volume1, so guest latency findings are not forbidden either: the pair's
	 * outcome, improved on D:, is what the after side shows) */
	c->tx.cmp_outcome = "improved";
	c->tx.cmp_why = "the same OLTP thread pool on SQL01_D.vhdx: on Volume1, a capacity-tier LUN the other nodes keep "
			"busy, guest D: reads ~23 ms at ~560 IOPS; after moving the VHDX to Volume2 (a quiet flash LUN) "
			"~1.2 ms at ~2,000 IOPS: more work done, faster";
}
