/* detect_cpu.c — CPU scheduling: a VM's vCPUs waiting for a physical CPU, and whether that explains
 * a storage finding (analysis_cpu_explains). */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- CPU scheduling: a VM's vCPUs waiting for a physical CPU ---- */

/* esxtop's Group Cpu %RDY and %CSTP are summed over the VM's worlds: per vCPU they are divided by
 * its vCPU count (its vmx-vcpu worlds in the Vcpu columns). Sustained above cpu.ready.* or
 * cpu.costop.warning_pct per vCPU, a finding on the VM; %MLMTD (a CPU limit) and %SWPWT (host
 * swapping) are said when present. Without the vCPU count nothing is judged (a 16-vCPU VM at 1.5%
 * per vCPU sums to 24%). */
void det_cpu_contention(struct analysis *a)
{
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *v = &a->m.ents[i];
		if (v->layer != LAYER_VM || v->series[M_RDY] < 0 || v->outside)
			continue;
		int n = model_vm_vcpus(&a->m, v->capture, v->name);
		if (n < 1)
			continue;
		double warn = RVE(v, R_CPU_RDY_WARN), crit = RVE(v, R_CPU_RDY_CRIT), cwarn = RVE(v, R_CPU_CSTP_WARN);
		const struct capture *c = cap_of(a, v);
		signed char *cond = cond_alloc(c);
		for (size_t k = 0; k < c->ds.nb; k++) {
			double r = val(c, v, M_RDY, k) / n, s = val(c, v, M_CSTP, k) / n;
			cond[k] = (!isnan(r) && r > warn) || (!isnan(s) && s > cwarn);
		}
		struct win w[MAXW];
		size_t nw = find_windows(&a->rules, c, cond, v->series[M_RDY], w, MAXW);
		free(cond);
		for (size_t j = 0; j < nw; j++) {
			double r = win_median(c, v, M_RDY, w[j].k0, w[j].k1) / n, s = win_median(c, v, M_CSTP, w[j].k0, w[j].k1) / n;
			double lim = win_median(c, v, M_MLMTD, w[j].k0, w[j].k1) / n, sw = win_median(c, v, M_SWPWT, w[j].k0, w[j].k1);
			const struct ev_spec ev[] = {{M_RDY, warn * n}, {M_CSTP, cwarn * n}, {M_MLMTD, NAN}, {M_SWPWT, NAN}, EV_END};
			struct finding *f = window_finding(a, K_CPU_CONTENTION, r > crit ? SEV_CRITICAL : SEV_WARNING, LAYER_VM, v,
							   &w[j], ev);
			f->summary = afmt(a, "%s's vCPUs wait for a physical CPU: %%RDY %.1f%% per vCPU (median; the group's %.0f%% over "
					     "%d vCPUs)%s%s%s", v->name, r, r * n, n,
					  isnan(s) ? "" : afmt(a, ", %%CSTP %.1f%% per vCPU", s),
					  !isnan(lim) && lim >= 1 ? afmt(a, ", %%MLMTD %.1f%%: a CPU limit holds it back", lim) : "",
					  !isnan(sw) && sw >= 1 ? afmt(a, ", %%SWPWT %.1f%%: the host swaps its memory", sw) : "");
			f->rule = afmt(a, "%%RDY per vCPU > %g%% (warning) / > %g%% (critical), or %%CSTP per vCPU > %g%%, sustained; "
					  "per vCPU = the Group Cpu figure over the VM's vCPU worlds", warn, crit, cwarn);
			f->source = "[vmw KB 1017926] high %RDY / %CSTP: the VM waits for CPU (check %MLMTD for a limit); "
				    "[vmw KB 2002181] ready per vCPU: < 5% no issue, 10% significant";
			f->advice = afmt(a, "Give %s's vCPUs CPU time: fewer vCPUs for it or its neighbours when %%CSTP is high "
					    "(co-scheduling), move VMs off the host or raise its CPU capacity when %%RDY is, remove "
					    "a CPU limit (%%MLMTD), and check the host's CPU load; storage changes will not help "
					    "while IO completions wait for a vCPU.", v->name);
		}
	}
}

/* A guest disk's wait the host does not see, while its VM waits for CPU: its virtual disk answers
 * under cpu.host_fast_ms and under a third of the guest's latency, the VM's cpu.contention overlaps
 * it — the IO completion waits for the vCPU, not in a queue. queue.guest_hidden is then explained
 * (information), a guest latency finding keeps its severity with the CPU as its cause. */
void analysis_cpu_explains(struct analysis *a)
{
	struct topo_in ti = analysis_topo(a);
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *g = &a->f[i];
		bool hidden = g->kind == K_Q_GUEST_HIDDEN;
		if ((!hidden && g->kind != K_LAT_GUEST_READ && g->kind != K_LAT_GUEST_WRITE) || !g->host || g->sev < SEV_WARNING)
			continue;
		const struct finding *cpu = NULL;
		for (size_t k = 0; k < a->nf && !cpu; k++) {
			const struct finding *f = &a->f[k];
			int64_t lo = f->start > g->start ? f->start : g->start, hi = f->end < g->end ? f->end : g->end;
			if (f->kind == K_CPU_CONTENTION && f->sev >= SEV_WARNING && strcasecmp(f->entity, g->host) == 0 &&
			    hi - lo >= (g->end - g->start) / 2)
				cpu = f;
		}
		if (!cpu)
			continue;
		struct stack st;
		topology_stack_of(&ti, g, &st);
		if (!st.vdisk)
			continue;
		double r = iop_window_mean(&a->m, st.vdisk, M_VD_LAT_R, g->start, g->end);
		double w = iop_window_mean(&a->m, st.vdisk, M_VD_LAT_W, g->start, g->end);
		if (isnan(r) && isnan(w))
			r = iop_window_mean(&a->m, st.vdisk, M_HV_LAT, g->start, g->end); /* a VHDX */
		double host = isnan(r) ? w : isnan(w) ? r : r > w ? r : w, guest = g->nev ? g->ev[0].median : NAN;
		if (isnan(host) || host >= RVE(st.vdisk, R_CPU_HOST_FAST_MS) || (!isnan(guest) && host >= guest / 3))
			continue;
		g->advice = afmt(a, "The host answers this disk in %.1f ms (its virtual disk, %s) while %s's vCPUs wait for a "
				    "physical CPU (%s): the IO completes in the host and waits for a vCPU to be run — CPU "
				    "scheduling, not a storage queue. Follow the cpu.contention finding's advice.",
				 host, st.vdisk->name, cpu->entity, cpu->summary);
		if (hidden) {
			g->sev = SEV_INFO;
			g->summary = afmt(a, "%s — explained by CPU scheduling: the VM's vCPUs waited for a physical CPU then", g->summary);
		}
	}
}
