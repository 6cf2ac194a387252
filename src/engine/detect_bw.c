/* detect_bw.c — an adapter at its bandwidth ceiling (bandwidth.ceiling): its MB/s in one direction
 * flat at the link's data rate, or flat at a plateau, while its latency rises — the outstanding IO
 * grows and the bytes do not (Little's law). The link rate is the one vmkernel.log says the FC link
 * came up at (a fact, with its line), else the rule's (adapter.link_mbps) when set for the adapter;
 * otherwise the plateau is compared with the nominal Fibre Channel rates and said to be a guess, or
 * only a plateau (doc/rules-sources.md, "Bandwidth ceilings"). */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MIB_PER_MB (1000000.0 / 1048576.0) /* esxtop's MBytes are MiB; link rates are decimal MB */
/* [derived] Without a link rate, the plateau: the samples within 80 % of the 95th percentile of MB/s,
 * and over a window the rate held flat — its 90th percentile within 1.25 x its 10th (a link at its
 * rate still varies by a few percent from one sample to the next with the mix of sizes). */
#define BW_PLATEAU 0.8
#define BW_FLAT 1.25

/* The nominal FC data rates per direction (MB/s) and their names. */
static const struct {
	double mbps;
	const char *name;
} fc_rates[] = {{100, "1GFC"},	 {200, "2GFC"},	  {400, "4GFC"},   {800, "8GFC"},
		{1200, "10GFC"}, {1600, "16GFC"}, {3200, "32GFC"}, {6400, "64GFC"}};

/* The nominal rate a plateau of mib MiB/s is at (85-105 %: framing, MiB vs MB), -1 none. */
static int nominal_rate(double mib)
{
	double mb = mib / MIB_PER_MB;
	for (size_t i = 0; i < sizeof fc_rates / sizeof fc_rates[0]; i++)
		if (mb >= 0.85 * fc_rates[i].mbps && mb <= 1.05 * fc_rates[i].mbps)
			return (int)i;
	return -1;
}

/* The fc_rates index of a link speed in Gbps (8 -> 8GFC), -1 when not one of them. */
static int rate_of_gbps(double gbps)
{
	for (size_t i = 0; i < sizeof fc_rates / sizeof fc_rates[0]; i++)
		if (fabs(atof(fc_rates[i].name) - gbps) < 1e-9)
			return (int)i;
	return -1;
}

/* Host names x and y name the same host: equal up to their first dot, case aside ("esx01" is
 * "esx01.lab.local"). */
static bool same_host(const char *x, const char *y)
{
	size_t nx = strcspn(x, "."), ny = strcspn(y, ".");
	return nx == ny && strncasecmp(x, y, nx) == 0;
}

/* The link-up line of vmkernel.log that tells adapter A's speed (issue 36): its adapter's last one at
 * or before the end of A's capture, from a log of A's host — a forwarded line naming it, or a host's
 * own log (lines naming no host) when the captures are of one ESXi host, so which host the log is of
 * is not guessed. NULL when none. */
static const struct vmk_link *log_link(const struct analysis *a, const struct entity *A)
{
	if (!a->have_vmk || !a->vmk.nlinks)
		return NULL;
	const struct capture *c = cap_of(a, A);
	const char *one = NULL;
	bool several = false;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *x = &a->m.caps[i];
		if (x->failed || x->role != ROLE_HOST || model_hyperv(&a->m, i) || !x->host)
			continue;
		several |= one && !same_host(one, x->host);
		one = one ? one : x->host;
	}
	const struct vmk_link *best = NULL;
	for (size_t i = 0; i < a->vmk.nlinks; i++) {
		const struct vmk_link *k = &a->vmk.links[i];
		if (strcmp(k->adapter, A->name) != 0 || k->t > c->end || rate_of_gbps(k->gbps) < 0)
			continue;
		if (k->host ? !(A->host && same_host(k->host, A->host)) : several)
			continue;
		if (!best || k->t >= best->t)
			best = k;
	}
	return best;
}

/* Where the link rate came from, for the finding's sentence. */
struct bw_link {
	double mib;                /* the link's MiB/s per direction, 0 not known */
	const struct vmk_link *lk; /* the vmkernel.log line that said it, NULL: the rule's */
	int rate;                  /* its fc_rates index (the log's), -1 */
};

struct bw_series {
	double *dir, *lat; /* the busier direction's MiB/s, the latency (DAVG, else GAVG) */
	double *kib; /* KiB per command (both directions) */
	signed char *act;
	bool writes; /* the busier direction over the capture is writes */
};

static void bw_read(const struct analysis *a, const struct capture *c, const struct entity *A, struct bw_series *s)
{
	size_t nb = c->ds.nb;
	s->dir = xmalloc((nb ? nb : 1) * sizeof *s->dir);
	s->lat = xmalloc((nb ? nb : 1) * sizeof *s->lat);
	s->kib = xmalloc((nb ? nb : 1) * sizeof *s->kib);
	s->act = cond_alloc(c);
	double sr = 0, sw = 0;
	for (size_t k = 0; k < nb; k++) {
		double r = val(c, A, M_MBR, k), w = val(c, A, M_MBW, k);
		sr += isnan(r) ? 0 : r;
		sw += isnan(w) ? 0 : w;
	}
	s->writes = sw > sr;
	for (size_t k = 0; k < nb; k++) {
		s->dir[k] = val(c, A, s->writes ? M_MBW : M_MBR, k);
		double d = val(c, A, M_DAVG, k);
		s->lat[k] = isnan(d) ? val(c, A, M_GAVG, k) : d;
		double x = val(c, A, M_CMDS, k), r = val(c, A, M_MBR, k), w = val(c, A, M_MBW, k);
		s->kib[k] = x > 0 ? ((isnan(r) ? 0 : r) + (isnan(w) ? 0 : w)) * 1024 / x : NAN;
		s->act[k] = !isnan(x) && x >= RV(R_ACTIVE_IOPS) && !isnan(s->dir[k]) && !isnan(s->lat[k]);
	}
}

static void bw_free(struct bw_series *s)
{
	free(s->dir);
	free(s->lat);
	free(s->kib);
	free(s->act);
}

static double bw_quantile_at(const struct bw_series *s, const double *v, size_t k0, size_t k1, double q, double below,
			     double kib, long *n);

/* Quantile q of v over the active buckets in [k0, k1] (and, with below > 0, those under it). */
static double bw_quantile(const struct bw_series *s, const double *v, size_t k0, size_t k1, double q, double below,
			  long *n)
{
	return bw_quantile_at(s, v, k0, k1, q, below, NAN, n);
}

/* ... and, with kib a number, only the buckets whose KiB per command is within 1.5 x of it. */
static double bw_quantile_at(const struct bw_series *s, const double *v, size_t k0, size_t k1, double q, double below,
			     double kib, long *n)
{
	struct qsketch qs;
	qs_init(&qs);
	long m = 0;
	for (size_t k = k0; k <= k1; k++)
		if (s->act[k] && (below <= 0 || s->dir[k] < below) &&
		    (isnan(kib) || (s->kib[k] >= kib / 1.5 && s->kib[k] <= kib * 1.5))) {
			qs_add(&qs, v[k]);
			m++;
		}
	double r = qs_quantile(&qs, q);
	qs_free(&qs);
	if (n)
		*n = m;
	return r;
}

/* The sentence naming the link's rate read from vmkernel.log (a fact, with its file and line). */
static const char *log_rate(struct analysis *a, const struct entity *A, const struct bw_link *L)
{
	const struct vmk_link *k = L->lk;
	const char *file = k->file >= 0 && (size_t)k->file < a->vmk.nfiles && a->vmk.files[k->file].path
				   ? a->vmk.files[k->file].path
			   : a->opts.vmklog ? a->opts.vmklog
					    : "vmkernel.log";
	double rule = RVE(A, R_ADP_LINK_MBPS);
	return afmt(a,
		    "its link's data rate (%s: %g MB/s per direction = %.0f MiB/s), read from %s line %ld (%s: %s "
		    "link up at %g Gbps)%s",
		    fc_rates[L->rate].name, fc_rates[L->rate].mbps, L->mib, file, k->line, k->driver, k->adapter,
		    k->gbps,
		    rule > 0 && fabs(rule - fc_rates[L->rate].mbps) > 0.5
			? afmt(a, "; adapter.link_mbps = %g is not used: the log says what the link negotiated", rule)
			: "");
}

static void bw_finding(struct analysis *a, const struct entity *A, const struct bw_series *s, const struct win *w,
		       const struct bw_link *L, double base)
{
	const struct capture *c = cap_of(a, A);
	double link_mib = L->mib;
	double p10 = bw_quantile(s, s->dir, w->k0, w->k1, 0.1, 0, NULL);
	double med = bw_quantile(s, s->dir, w->k0, w->k1, 0.5, 0, NULL);
	double p90 = bw_quantile(s, s->dir, w->k0, w->k1, 0.9, 0, NULL);
	if (!(link_mib > 0) && !(p90 <= BW_FLAT * p10))
		return; /* not flat: a plateau needs the rate held */
	double lat = bw_quantile(s, s->lat, w->k0, w->k1, 0.5, 0, NULL);
	int nom = link_mib > 0 ? L->rate : nominal_rate(med);
	double x = win_median(c, A, M_CMDS, w->k0, w->k1);
	double kib = x > 0 ? med * 1024 / x : NAN;
	/* a plateau at no known rate with small IOs is a rate of commands (the array's), not of bytes */
	if (!(link_mib > 0) && nom < 0 && !large_io(a, A, kib * 1024))
		return;
	/* a link rate guessed from the plateau alone, with no samples of the same IO size at a lower rate
	 * to show the latency rose with the bytes, is a guess: information, never a warning */
	bool known = link_mib > 0 || (nom >= 0 && !isnan(base));
	enum severity sev = known ? (lat > RVE(A, R_DAVG_CRIT) ? SEV_CRITICAL : SEV_WARNING) : SEV_INFO;
	int mdir = s->writes ? M_MBW : M_MBR;
	const struct ev_spec ev[] = {{mdir, link_mib > 0 ? RVE(A, R_BW_CEILING_PCT) / 100 * link_mib : NAN},
				     {M_DAVG, NAN},
				     {M_ACTV, NAN},
				     {M_CMDS, NAN},
				     EV_END};
	struct finding *f = window_finding(a, K_BW_CEILING, sev, LAYER_ADAPTER, A, w, ev);
	const char *dir = s->writes ? "written" : "read";
	const char *rate = "a plateau at no nominal FC rate: the capture does not show the link's speed, so what sets "
			   "it (the link, the HBA's PCIe slot, the array port or the array) is not told";
	if (L->lk)
		rate = log_rate(a, A, L);
	else if (link_mib > 0)
		rate = afmt(a, "its link's data rate (%g MB/s per direction, adapter.link_mbps = %.0f MiB/s)",
			    RVE(A, R_ADP_LINK_MBPS), link_mib);
	else if (nom >= 0)
		rate = afmt(a,
			    "the data rate of %s (%g MB/s per direction = %.0f MiB/s), a guess: the capture does not "
			    "show the link's speed",
			    fc_rates[nom].name, fc_rates[nom].mbps, fc_rates[nom].mbps * MIB_PER_MB);
	f->summary =
		afmt(a,
		     "%s moves %.0f MiB/s %s (p10-p90 %.0f-%.0f%s), flat at %s, while its latency rises to %.1f ms "
		     "(%s): more IO outstanding, no more bytes — a bandwidth ceiling, not a queue",
		     A->name, med, dir, p10, p90, isnan(kib) ? "" : afmt(a, ", %.0f KiB per command", kib), rate, lat,
		     isnan(base) ? "no samples of that IO size below half that rate to compare; above the device band "
				   "for its size"
				 : afmt(a, "%.1f ms below half that rate at the same IO size", base));
	f->heuristic = !(link_mib > 0);
	f->rule = afmt(
		a,
		"an adapter's MB/s in one direction at >= %g%% of its link's rate (the speed vmkernel.log says its FC "
		"link came up at, else adapter.link_mbps; or, neither known, flat (p90 <= 1.25 x "
		"p10) within 80%% of its 95th percentile), with latency >= %g x its latency below half of it at the "
		"same IO size (within 1.5 x; without "
		"such samples, above the device band for the size), sustained",
		RVE(A, R_BW_CEILING_PCT), RVE(A, R_BW_LAT_RISE));
	f->source = "[fcia, infostor 2010] FC data rates 100-1600 MB/s per direction; [pci-sig] PCIe lane rates; "
		    "[qlogic qla2xxx, emulex lpfc] the drivers' link-up lines with the negotiated speed; "
		    "[derived] at a ceiling latency = outstanding IO x bytes per IO / rate (doc/rules-sources.md)";
	/* the next HBA speed: 10GFC is an inter-switch and FCoE rate, not the step after 8GFC */
	int up = nom >= 0 ? nom + 1 : -1;
	if (up >= 0 && up < (int)(sizeof fc_rates / sizeof fc_rates[0]) && strcmp(fc_rates[up].name, "10GFC") == 0)
		up++;
	if (up >= (int)(sizeof fc_rates / sizeof fc_rates[0]))
		up = -1;
	f->advice = afmt(a,
			 "The bytes are the limit, not the queues: deeper queues only add latency. Spread the IO over "
			 "more links or HBAs (more active paths with round robin, another HBA or array port), use a "
			 "faster link (%s), or move fewer bytes (compression, backups and exports outside the busy "
			 "hours, indexes that read less). Check the HBA's negotiated speed and its PCIe slot.",
			 up >= 0 ? afmt(a, "%s instead of %s", fc_rates[up].name, fc_rates[nom].name)
				 : "a higher FC speed or more Ethernet bandwidth for iSCSI/NFS");
}

static void bw_adapter(struct analysis *a, const struct entity *A)
{
	const struct capture *c = cap_of(a, A);
	if (!c->ds.nb || (!has(A, M_MBR) && !has(A, M_MBW)) || (!has(A, M_DAVG) && !has(A, M_GAVG)))
		return;
	struct bw_series s;
	bw_read(a, c, A, &s);
	size_t last = c->ds.nb - 1;
	struct bw_link L = {.lk = log_link(a, A), .rate = -1};
	if (L.lk)
		L.rate = rate_of_gbps(L.lk->gbps);
	L.mib = (L.lk ? fc_rates[L.rate].mbps : RVE(A, R_ADP_LINK_MBPS)) * MIB_PER_MB;
	double link_mib = L.mib;
	double level = link_mib > 0 ? RVE(A, R_BW_CEILING_PCT) / 100 * link_mib
				    : BW_PLATEAU * bw_quantile(&s, s.dir, 0, last, 0.95, 0, NULL);
	if (!(level > 1)) {
		bw_free(&s);
		return;
	}
	/* the latency below half the rate at the plateau's IO size: latency grows with the size of
	 * the IO, so only the same sizes tell a rise */
	struct qsketch qk;
	qs_init(&qk);
	for (size_t k = 0; k <= last; k++)
		if (s.act[k] && s.dir[k] >= level)
			qs_add(&qk, s.kib[k]);
	double kp = qs_quantile(&qk, 0.5);
	qs_free(&qk);
	long nbase = 0;
	double half = 0.5 * level / (link_mib > 0 ? RVE(A, R_BW_CEILING_PCT) / 100 : BW_PLATEAU);
	double base = bw_quantile_at(&s, s.lat, 0, last, 0.5, half, kp, &nbase);
	if (nbase < 5)
		base = NAN;
	/* without that, the latency must be bad for the size: the device band (large IOs: their own) */
	double band =
		large_io(a, A, kp * 1024) ? fmax(RVE(A, R_DAVG_WARN), RVE(A, R_GUEST_LARGE_WARN)) : RVE(A, R_DAVG_WARN);
	signed char *cond = cond_alloc(c);
	for (size_t k = 0; k <= last; k++)
		cond[k] = s.act[k] && s.dir[k] >= level &&
			  (isnan(base) ? s.lat[k] > band
				       : s.lat[k] >= RVE(A, R_BW_LAT_RISE) * base && s.lat[k] >= base + 1);
	struct win w[MAXW];
	size_t n = find_windows(&a->rules, c, cond, A->series[M_CMDS], w, MAXW);
	free(cond);
	for (size_t j = 0; j < n; j++)
		bw_finding(a, A, &s, &w[j], &L, base);
	bw_free(&s);
}

void det_bandwidth(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++)
		if (a->m.ents[i].layer == LAYER_ADAPTER && !model_hyperv(&a->m, a->m.ents[i].capture))
			bw_adapter(a, &a->m.ents[i]);
}
