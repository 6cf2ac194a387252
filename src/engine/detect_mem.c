/* detect_mem.c — memory as the cause of storage symptoms: a Windows guest that pages hard (its
 * disk IO is the paging), an ESXi host that swaps a VM's memory (the VM stalls, its IO completions
 * wait); and which disk findings they explain (analysis_mem_explains), which then become their
 * symptoms, as the CPU's do (detect_cpu.c). Sources: doc/rules-sources.md, "Memory". */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The io-path entity of capture ci named name with metric m (a machine's memory), or NULL. */
static const struct entity *mem_ent(const struct analysis *a, size_t ci, const char *name, int m)
{
	for (size_t i = 0; i < a->m.naux; i++) {
		const struct entity *e = &a->m.aux[i];
		if (e->capture == ci && e->layer == LAYER_VM && e->series[m] >= 0 && strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;
}

/* The SQL Server instance entity of machine host in capture ci (Page life expectancy), or NULL. */
static const struct entity *sql_instance(const struct analysis *a, size_t ci, const char *host, int m)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->capture == ci && e->layer == LAYER_SQL && e->series[m] >= 0 && e->host && host &&
		    strcasecmp(e->host, host) == 0 &&
		    !strchr(e->name + (strncmp(e->name, "MSSQL$", 6) == 0 ? 6 : 0), ':'))
			return e;
	}
	return NULL;
}

/* ---- a Windows guest that pages hard ---- */

/* Windows reads pages from disk (Memory\Pages Input/sec, else Pages/sec) above
 * memory.guest.pages_input.warning_per_s while its Available MBytes are under
 * memory.guest.available_mb, sustained: it pages hard [ms NT4 Resource Kit ch. 12]. Not judged
 * without Available MBytes (hard faults on mapped files are no memory shortage by themselves). */
void det_guest_paging(struct analysis *a)
{
	for (size_t ci = 0; ci < a->m.ncaps; ci++) {
		const struct capture *c = &a->m.caps[ci];
		if (c->failed || c->role != ROLE_GUEST)
			continue;
		const struct entity *e = mem_ent(a, ci, "_Total", M_MEM_AVAIL_MB);
		if (!e || (!has(e, M_MEM_PAGES_IN) && !has(e, M_MEM_PAGES)))
			continue;
		int pm = has(e, M_MEM_PAGES_IN) ? M_MEM_PAGES_IN : M_MEM_PAGES;
		double avail = RVE(e, R_MEM_AVAIL_MB), warn = RVE(e, R_MEM_PAGES_IN_WARN),
		       crit = RVE(e, R_MEM_PAGES_IN_CRIT);
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++) {
			double av = val(c, e, M_MEM_AVAIL_MB, k), pg = val(c, e, pm, k);
			cond[k] = !isnan(av) && !isnan(pg) && av < avail && pg > warn;
		}
		struct win w[MAXW];
		size_t nw = find_windows(&a->rules, c, cond, e->series[pm], w, MAXW);
		free(cond);
		const char *host = e->host ? e->host : c->host ? c->host : "the guest";
		const struct entity *ple = sql_instance(a, ci, e->host, M_SQL_PLE);
		const struct entity *grants = sql_instance(a, ci, e->host, M_SQL_GRANTS_PENDING);
		for (size_t j = 0; j < nw; j++) {
			double pg = win_median(c, e, pm, w[j].k0, w[j].k1),
			       av = win_median(c, e, M_MEM_AVAIL_MB, w[j].k0, w[j].k1);
			double pf = win_median(c, e, M_MEM_PF_USAGE, w[j].k0, w[j].k1);
			struct finding *f = finding_new(a, K_MEM_GUEST_PAGING, pg > crit ? SEV_CRITICAL : SEV_WARNING,
							LAYER_GUEST, host, NULL);
			f->capture = (long)ci;
			set_window(f, c, &w[j]);
			evidence_add(f, c, e, pm, w[j].k0, w[j].k1, warn);
			evidence_add(f, c, e, M_MEM_AVAIL_MB, w[j].k0, w[j].k1, avail);
			if (has(e, M_MEM_PF_USAGE))
				evidence_add(f, c, e, M_MEM_PF_USAGE, w[j].k0, w[j].k1, NAN);
			if (ple)
				evidence_add(f, c, ple, M_SQL_PLE, w[j].k0, w[j].k1, NAN);
			if (grants)
				evidence_add(f, c, grants, M_SQL_GRANTS_PENDING, w[j].k0, w[j].k1, NAN);
			double pl = ple ? win_median(c, ple, M_SQL_PLE, w[j].k0, w[j].k1) : NAN;
			f->summary =
			    afmt(a, "%s pages hard: %s %.0f/s (median) while only %.0f MB of memory is available%s%s",
				 host, pm == M_MEM_PAGES_IN ? "Pages Input/sec" : "Pages/sec", pg, av,
				 isnan(pf) ? "" : afmt(a, ", the page file %.0f%% used", pf),
				 isnan(pl) ? "" : afmt(a, ", SQL Server's page life expectancy %.0f s", pl));
			f->rule = afmt(
			    a, "%s > %g pages/s (warning) / > %g (critical) while Available MBytes < %g, sustained",
			    pm == M_MEM_PAGES_IN ? "Pages Input/sec" : "Pages/sec (no Pages Input/sec in the capture)",
			    warn, crit, avail);
			f->source =
			    "[ms NT4 Resource Kit ch. 12] a sustained rate of hard page faults is the best "
			    "indicator of a memory bottleneck; [pal] Available MBytes under 10% of physical memory";
			f->advice = afmt(
			    a,
			    "Give %s memory, or cap what takes it%s: its disks carry its paging, and storage "
			    "changes would only make the paging faster.",
			    host,
			    ple || grants ? " (SQL Server's max server memory, leaving the operating system a few GB)"
					  : "");
		}
	}
}

/* ---- an ESXi host that swaps a VM ---- */

/* Whether VM v's storage is in the analysis: a virtual disk of it in v's capture ("VM:scsi0:1"), or
 * its guest's perfmon. A VM with neither has no storage symptom for its memory to explain. */
static bool vm_with_storage(const struct analysis *a, const struct entity *v)
{
	if (analysis_guest_captured(a, v->name))
		return true;
	size_t n = strlen(v->name);
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *d = &a->m.ents[i];
		if (d->layer == LAYER_VSCSI && d->capture == v->capture && strncmp(d->name, v->name, n) == 0 &&
		    d->name[n] == ':')
			return true;
	}
	return false;
}

/* A VM's Group Cpu % Swap Wait per vCPU (the group's over its vCPU worlds; the group's figure when
 * the capture does not count them) above memory.swap_wait.warning_pct, or its swap-in rate (Group
 * Memory SWR/s) above memory.swap_in.mb_per_s, sustained: the host swaps its memory and the VM
 * waits for the pages [vmw Interpreting esxtop Statistics]. Judged for the VMs whose storage the
 * analysis has (vm_with_storage). */
void det_host_swap(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *v = &a->m.ents[i];
		if (v->layer != LAYER_VM || v->outside || (!has(v, M_SWPWT) && !has(v, M_VM_SWAP_R)) ||
		    !vm_with_storage(a, v))
			continue;
		int n = model_vm_vcpus(&a->m, v->capture, v->name);
		double per = n >= 1 ? n : 1;
		double warn = RVE(v, R_MEM_SWPWT_WARN), crit = RVE(v, R_MEM_SWPWT_CRIT),
		       swin = RVE(v, R_MEM_SWAP_IN_MBPS);
		const struct capture *c = cap_of(a, v);
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++) {
			double s = val(c, v, M_SWPWT, k) / per, r = val(c, v, M_VM_SWAP_R, k);
			cond[k] = (!isnan(s) && s > warn) || (!isnan(r) && r > swin);
		}
		struct win w[MAXW];
		size_t nw =
		    find_windows(&a->rules, c, cond, v->series[has(v, M_SWPWT) ? M_SWPWT : M_VM_SWAP_R], w, MAXW);
		free(cond);
		const struct entity *hm = mem_ent(a, v->capture, "_Total", M_HMEM_FREE_MB);
		for (size_t j = 0; j < nw; j++) {
			double s = win_median(c, v, M_SWPWT, w[j].k0, w[j].k1) / per,
			       r = win_median(c, v, M_VM_SWAP_R, w[j].k0, w[j].k1);
			double fr = hm ? win_median(c, hm, M_HMEM_FREE_MB, w[j].k0, w[j].k1) : NAN;
			double bl = win_median(c, v, M_VM_BALLOON, w[j].k0, w[j].k1);
			const struct ev_spec ev[] = {
			    {M_SWPWT, warn * per}, {M_VM_SWAP_R, swin}, {M_VM_BALLOON, NAN}, EV_END};
			struct finding *f =
			    window_finding(a, K_MEM_HOST_SWAP, !isnan(s) && s > crit ? SEV_CRITICAL : SEV_WARNING,
					   LAYER_VM, v, &w[j], ev);
			if (hm)
				evidence_add(f, c, hm, M_HMEM_FREE_MB, w[j].k0, w[j].k1, NAN);
			if (hm && has(hm, M_HMEM_STATE))
				evidence_add(f, c, hm, M_HMEM_STATE, w[j].k0, w[j].k1, NAN);
			f->summary =
			    afmt(a, "the host swaps %s's memory and the VM waits for it: %s%s%s%s", v->name,
				 isnan(s) ? "" : afmt(a, "%%SWPWT %.1f%%%s (median)", s, n >= 1 ? " per vCPU" : ""),
				 isnan(r) ? "" : afmt(a, "%sswap-in %.1f MB/s", isnan(s) ? "" : ", ", r),
				 !isnan(bl) && bl >= 1 ? afmt(a, ", balloon %.0f MB", bl) : "",
				 isnan(fr) ? "" : afmt(a, ", the host's free memory %.0f MB", fr));
			f->rule = afmt(
			    a,
			    "%%SWPWT%s > %g%% (warning) / > %g%% (critical), or swap-in (SWR/s) > %g MB/s, sustained",
			    n >= 1 ? " per vCPU" : "", warn, crit, swin);
			f->source =
			    "[vmw Interpreting esxtop Statistics] %SWPWT: the time a world waits for the VMkernel to "
			    "swap memory in; SWR/s the swap-in rate; practitioner esxtop tables: %SWPWT > 5, SWR/s > 1";
			f->advice =
			    afmt(a,
				 "Stop the host from swapping %s: reserve its memory (a full memory reservation for a "
				 "SQL Server VM), remove a memory limit, move VMs off the host or add memory; while "
				 "it waits for swapped pages its IO completions wait too, and storage changes will not "
				 "help.",
				 v->name);
		}
	}
}

/* ---- which disk findings memory explains ---- */

/* Pearson r of two metrics of two entities of capture c over buckets k0..k1 (NaN: too few). */
static double bucket_r(const struct capture *c, const struct entity *x, int mx, const struct entity *y, int my,
		       size_t k0, size_t k1)
{
	double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
	size_t n = 0;
	for (size_t k = k0; k <= k1 && k < c->ds.nb; k++) {
		double u = val(c, x, mx, k), v = val(c, y, my, k);
		if (isnan(u) || isnan(v))
			continue;
		sx += u, sy += v, sxx += u * u, syy += v * v, sxy += u * v;
		n++;
	}
	if (n < 5)
		return NAN;
	double vx = sxx - sx * sx / (double)n, vy = syy - sy * sy / (double)n;
	return vx > 0 && vy > 0 ? (sxy - sx * sy / (double)n) / sqrt(vx * vy) : NAN;
}

/* Whether guest disk g carries machine's paging during finding p: the page file is on it (a Paging
 * File instance names its drive), or, when no page file is named, its reads follow the paging
 * rate (r >= 0.7 over the finding's time). */
static bool paging_disk(const struct analysis *a, const struct finding *p, const struct entity *g)
{
	size_t ci = (size_t)p->capture;
	bool named = false;
	for (size_t i = 0; i < a->m.naux; i++) {
		const struct entity *e = &a->m.aux[i];
		if (e->capture != ci || e->layer != LAYER_VM || !has(e, M_MEM_PF_USAGE) ||
		    strcmp(e->name, "_Total") == 0)
			continue;
		named = true;
		if (strcasecmp(e->name, g->name) == 0 ||
		    (strlen(g->name) > 2 && strncasecmp(e->name, g->name, 2) == 0 && g->name[2] == '\\'))
			return true;
	}
	if (named || g->capture != ci)
		return false;
	const struct entity *m = mem_ent(a, ci, "_Total", M_MEM_AVAIL_MB);
	const struct capture *c = &a->m.caps[ci];
	int pm = m && has(m, M_MEM_PAGES_IN) ? M_MEM_PAGES_IN : M_MEM_PAGES;
	if (!m || !has(m, pm))
		return false;
	int gm = has(g, M_G_READS) ? M_G_READS : M_G_XFERS;
	double r = bucket_r(c, m, pm, g, gm, bucket_of(c, p->start - c->clock_offset_ms),
			    bucket_of(c, p->end - c->clock_offset_ms));
	return !isnan(r) && r >= 0.7;
}

static bool overlap(const struct finding *x, const struct finding *y)
{
	return x->start <= y->end && y->start <= x->end;
}

static bool guest_symptom(enum kind k)
{
	return k == K_LAT_GUEST_READ || k == K_LAT_GUEST_WRITE || k == K_Q_GUEST_HIDDEN;
}

/* Marks s explained by cause p (machine: the guest that pages, the VM that is swapped). */
static void explain(struct analysis *a, struct finding *s, struct finding *p, const char *machine, const char *why)
{
	s->explained_by = (int)p->kind + 1;
	s->explained_machine = arena_strdup(&a->arena, machine);
	s->advice = why;
	if (s->kind == K_Q_GUEST_HIDDEN) {
		s->sev = SEV_INFO;
		s->summary =
		    afmt(a, "%s — explained by %s", s->summary,
			 p->kind == K_MEM_GUEST_PAGING ? "the guest's paging" : "the host swapping the VM's memory");
	}
	if (s->sev > p->sev) /* a cause is as severe as what it explains */
		p->sev = s->sev;
}

/* The disk findings of the guest that pages on its paging disks, and those on their stacks below
 * (virtual disk, LUN) at the same time. */
static void paging_explains(struct analysis *a, struct finding *p, const struct topo_in *ti)
{
	const char *m = p->entity;
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *g = &a->f[i];
		if (!guest_symptom(g->kind) || g->explained_by || !g->host || strcasecmp(g->host, m) != 0 ||
		    !overlap(g, p))
			continue;
		const struct entity *ge = finding_entity(ti, g, -1);
		if (!ge || ge->layer != LAYER_GUEST || !paging_disk(a, p, ge))
			continue;
		explain(
		    a, g, p, m,
		    afmt(
			a,
			"This disk's IO is %s's paging (see the memory.guest_paging finding: %s): follow that "
			"finding's advice; the storage is not the cause.",
			m, p->summary));
		struct stack st;
		topology_stack(ti, ge, &st);
		for (size_t k = 0; k < a->nf; k++) {
			struct finding *h = &a->f[k];
			if (h->explained_by || !overlap(h, p) || kinds[h->kind].place == VP_MEMORY ||
			    kinds[h->kind].place == VP_CPU)
				continue;
			const struct entity *he = finding_entity(ti, h, -1);
			if (!he || (he != st.vdisk && he != st.device))
				continue;
			explain(
			    a, h, p, m,
			    afmt(a,
				 "The load here is %s's paging to %s (see the memory.guest_paging finding): it goes "
				 "when the guest stops paging; follow that finding's advice before changing the "
				 "storage.",
				 m, ge->name));
		}
	}
}

/* The guest disk findings of the VM the host swaps, at the same time. */
static void swap_explains(struct analysis *a, struct finding *p)
{
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *g = &a->f[i];
		if (!guest_symptom(g->kind) || g->explained_by || !g->host || strcasecmp(g->host, p->entity) != 0 ||
		    !overlap(g, p))
			continue;
		explain(
		    a, g, p, p->entity,
		    afmt(
			a,
			"%s stalls while the ESXi host swaps its memory in (see the memory.host_swap finding: %s): the "
			"IO completes in the host and waits for the VM to run — memory, not a storage queue. Follow "
			"that finding's advice.",
			p->entity, p->summary));
	}
}

void analysis_mem_explains(struct analysis *a)
{
	struct topo_in ti = analysis_topo(a);
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *p = &a->f[i];
		if (p->kind == K_MEM_GUEST_PAGING && p->capture >= 0)
			paging_explains(a, p, &ti);
		else if (p->kind == K_MEM_HOST_SWAP)
			swap_explains(a, p);
	}
}
