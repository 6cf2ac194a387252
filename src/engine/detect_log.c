/* detect_log.c — the vmkernel.log detectors: its events weighed against the captures, QUEUE FULL /
 * BUSY, failed commands with a host status (fabric / HBA trouble). */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- vmkernel.log events weighed against the captures ---- */

/* What the host captures show of device dev (on host, NULL = any) around [t0, t1] (log times,
 * UTC ms): a log event counts toward a cause only with a symptom there — DAVG above the device
 * rule, commands queued with KAVG above its rule, a DQLEN change, aborts, resets or failed
 * commands. A log line alone is context: two BUSY answers over a healthy capture are not the
 * array's queue overflowing. */
struct log_symptom {
	int state;                       /* 1 a symptom, 0 a capture covers the time and shows none,
	                                  * -1 no capture has the device then */
	const char *what;                /* the symptom, or what the capture shows instead (arena) */
};

static struct log_symptom capture_symptom(struct analysis *a, const char *dev, const char *host, int64_t t0, int64_t t1)
{
	struct log_symptom r = {-1, NULL};
	double davg_max = -1, qued_max = -1, kavg_max = -1, err_max = -1;
	bool covered = false;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->layer != LAYER_DEVICE || strcmp(e->name, dev) != 0)
			continue;
		struct vmk_event hx = {.host = host};
		if (host && e->host && !vmk_on_host(&hx, e->host))
			continue;
		const struct capture *c = cap_of(a, e);
		if (c->failed || !c->ds.nb)
			continue;
		int64_t iv = (int64_t)(c->interval_s * 1000);
		int64_t lo = t0 - 60000 - iv - c->clock_offset_ms, hi = t1 + 60000 + iv - c->clock_offset_ms;
		if (hi < c->ds.t0[0] || lo > c->ds.t1[c->ds.nb - 1])
			continue;
		covered = true;
		for (size_t k = bucket_of(c, lo); k < c->ds.nb && c->ds.t0[k] <= hi; k++) {
			if (c->ds.t1[k] < lo)
				continue;
			double d = e->series[M_DAVG] >= 0 ? ds_max(&c->ds, (size_t)e->series[M_DAVG], k) : NAN;
			if (!isnan(d) && active(&a->rules, c, e, M_CMDS, k)) {
				davg_max = fmax(davg_max, d);
				if (d > RVE(e, R_DAVG_WARN) && r.state < 1) {
					r.state = 1;
					r.what = afmt(a, "DAVG %.1f ms (above %g)", d, RVE(e, R_DAVG_WARN));
				}
			}
			double q = e->series[M_QUED] >= 0 ? ds_max(&c->ds, (size_t)e->series[M_QUED], k) : NAN;
			double kv = e->series[M_KAVG] >= 0 ? ds_max(&c->ds, (size_t)e->series[M_KAVG], k) : NAN;
			qued_max = isnan(q) ? qued_max : fmax(qued_max, q);
			kavg_max = isnan(kv) ? kavg_max : fmax(kavg_max, kv);
			if (q >= RVE(e, R_DEV_SAT_QUED) && kv > RVE(e, R_KAVG_WARN) && r.state < 1) {
				r.state = 1;
				r.what = afmt(a, "%.0f command%s queued in the VMkernel (KAVG %.2f ms)", q, q == 1 ? "" : "s", kv);
			}
			const int em[3] = {M_ABRTS, M_RESETS, M_FAILED};
			for (int j = 0; j < 3; j++) {
				double x = e->series[em[j]] >= 0 ? ds_max(&c->ds, (size_t)e->series[em[j]], k) : NAN;
				err_max = isnan(x) ? err_max : fmax(err_max, x);
				if (x > 0 && j < 2 && r.state < 1) {
					r.state = 1;
					r.what = afmt(a, "%s %.1f/s in the capture", j == 0 ? "aborts" : "resets", x);
				}
			}
		}
		for (size_t q = 0; q < e->ndq && r.state < 1; q++)
			if (e->dq[q].t >= lo && e->dq[q].t <= hi) {
				r.state = 1;
				r.what = afmt(a, "DQLEN %.0f -> %.0f", (double)e->dq[q].from, (double)e->dq[q].to);
			}
	}
	if (r.state < 1 && covered) {
		r.state = 0;
		struct buf b;
		buf_init(&b);
		buf_adds(&b, "the host capture shows no symptom then");
		if (davg_max >= 0)
			buf_printf(&b, ": DAVG at most %.1f ms", davg_max);
		if (qued_max >= 0)
			buf_printf(&b, "%s%.0f queued at most", davg_max >= 0 ? ", " : ": ", qued_max);
		buf_adds(&b, ", DQLEN unchanged");
		r.what = arena_strdup(&a->arena, b.data);
		buf_free(&b);
	} else if (r.state < 0) {
		r.what = "no host capture has this device at that time";
	}
	return r;
}

/* How many path and ALUA events the log has for dev within [t0, t1] (and the first's text). */
static long vmk_path_events(const struct analysis *a, const char *dev, const char *host, int64_t t0, int64_t t1,
			    const struct vmk_event **first)
{
	long n = 0;
	*first = NULL;
	for (size_t i = 0; a->have_vmk && i < a->vmk.n; i++) {
		const struct vmk_event *e = &a->vmk.ev[i];
		if ((e->kind == VMK_PATH || e->kind == VMK_ALUA) && e->t >= t0 && e->t <= t1 &&
		    (strcmp(e->device, dev) == 0 || !*e->device) && vmk_on_host(e, host)) {
			if (!n)
				*first = e;
			n++;
		}
	}
	return n;
}

/* The SCSI host status names (H:0x..): the VMkernel's host-side codes, numbered as Linux's DID_*
 * ([vmw] "Understanding SCSI host-side NMP errors/conditions", referenced from Broadcom KB 338435). */
static const char *host_status_name(unsigned h)
{
	static const char *const names[] = {"OK", "NO_CONNECT", "BUS_BUSY", "TIMEOUT", "BAD_TARGET", "ABORT",
					    "PARITY", "ERROR", "RESET", "BAD_INTR"};
	return h < sizeof names / sizeof names[0] ? names[h] : "other";
}

/* The failed commands' opcodes over event i's device until t1: "; the commands: COMPARE AND WRITE
 * (0x89 ...) 12, WRITE(10) (0x2a) 3", NULL when no line names one. */
static const char *failed_opcodes(struct analysis *a, size_t i, int64_t t1)
{
	int op[8];
	long cnt[8];
	int nop = 0;
	const struct vmk_event *e0 = &a->vmk.ev[i];
	for (size_t j = i; j < a->vmk.n && a->vmk.ev[j].t <= t1; j++) {
		const struct vmk_event *e = &a->vmk.ev[j];
		if (e->kind != VMK_FAILED || !e->host_status || e->opcode < 0 || strcmp(e->device, e0->device) != 0)
			continue;
		int k = 0;
		while (k < nop && op[k] != e->opcode)
			k++;
		if (k == nop && nop < 8) {
			op[nop] = e->opcode;
			cnt[nop++] = 0;
		}
		if (k < nop)
			cnt[k] += e->count;
	}
	if (!nop)
		return NULL;
	struct buf b;
	buf_init(&b);
	buf_adds(&b, "; the commands: ");
	for (int k = 0; k < nop; k++) {
		const char *nm = vmk_opcode_name(op[k]);
		buf_printf(&b, "%s%s%s0x%02x%s %ld", k ? ", " : "", nm ? nm : "", nm ? " (" : "opcode ", op[k], nm ? ")" : "",
			   cnt[k]);
	}
	const char *r = afmt(a, "%s", b.data);
	buf_free(&b);
	return r;
}

/* ---- vmkernel.log event windows ---- */

static bool is_qfull(const struct vmk_event *e)
{
	return e->kind == VMK_QFULL || e->kind == VMK_BUSY;
}

static bool is_host_failure(const struct vmk_event *e)
{
	/* H:0x2/0x5/0x7/0x8 and the like point to the fabric or the HBA; D:0x2 CHECK CONDITION
	 * alone is routine */
	return e->kind == VMK_FAILED && e->host_status != 0;
}

/* Groups the events of event i's device that match keep and are less than the rule's gap apart
 * (the log is in time order): marks them done, sets the window, returns how many. */
static long vmk_window(const struct analysis *a, size_t i, bool (*keep)(const struct vmk_event *), bool *done,
		       int64_t *t0, int64_t *t1)
{
	const struct vmk_event *e0 = &a->vmk.ev[i];
	int64_t gap = (int64_t)(rule_value(&a->rules, R_QFULL_GAP_S) * 1000);
	long n = 0;
	*t0 = *t1 = e0->t;
	for (size_t j = i; j < a->vmk.n; j++) {
		const struct vmk_event *e = &a->vmk.ev[j];
		if (!keep(e) || strcmp(e->device, e0->device) != 0)
			continue;
		if (e->t > *t1 + gap)
			break;
		done[j] = true;
		n += e->count;
		if (e->t > *t1)
			*t1 = e->t;
	}
	return n;
}

/* ---- vmkernel.log QUEUE FULL / BUSY ---- */

void det_queue_full(struct analysis *a)
{
	if (!a->have_vmk || !a->vmk.n)
		return;
	bool *done = xcalloc(a->vmk.n, sizeof *done);
	for (size_t i = 0; i < a->vmk.n; i++) {
		const struct vmk_event *e0 = &a->vmk.ev[i];
		if (done[i] || !is_qfull(e0))
			continue;
		int64_t t0, t1;
		vmk_window(a, i, is_qfull, done, &t0, &t1);
		/* the host's reductions follow the last QUEUE FULL: count them up to one gap later */
		int64_t until = t1 + (int64_t)(rule_value(&a->rules, R_QFULL_GAP_S) * 1000);
		long qf = 0, busy = 0, reduce = 0;
		struct buf hosts; /* the hosts the array refused, from forwarded logs */
		buf_init(&hosts);
		int nhosts = 0;
		for (size_t j = i; j < a->vmk.n && a->vmk.ev[j].t <= until; j++) {
			const struct vmk_event *e = &a->vmk.ev[j];
			if (strcmp(e->device, e0->device) != 0)
				continue;
			qf += e->kind == VMK_QFULL ? e->count : 0;
			busy += e->kind == VMK_BUSY ? e->count : 0;
			reduce += e->kind == VMK_REDUCE;
			if (e->host && is_qfull(e)) {
				bool seen = false;
				for (size_t k = i; k < j && !seen; k++)
					seen = is_qfull(&a->vmk.ev[k]) && a->vmk.ev[k].host && strcmp(a->vmk.ev[k].device, e0->device) == 0 &&
					       strcasecmp(a->vmk.ev[k].host, e->host) == 0;
				if (!seen) {
					buf_printf(&hosts, "%s%s", nhosts ? ", " : "", e->host);
					nhosts++;
				}
			}
		}
		struct log_symptom sym = capture_symptom(a, e0->device, e0->host, t0, t1);
		struct finding *f = finding_new(a, K_SCSI_QUEUE_FULL,
						sym.state < 1 ? SEV_INFO : qf + busy >= 10 ? SEV_CRITICAL : SEV_WARNING,
						LAYER_ARRAY, e0->device, NULL);
		f->start = t0;
		f->end = t1;
		f->sustained_s = (double)(t1 - t0) / 1000.0;
		f->summary = afmt(a, "the array answered QUEUE FULL %ld time%s and BUSY %ld time%s (vmkernel.log%s)%s", qf,
				  qf == 1 ? "" : "s", busy, busy == 1 ? "" : "s",
				  nhosts > 1 ? afmt(a, " of %d hosts: %s", nhosts, hosts.data) : nhosts ? afmt(a, " of %s", hosts.data) : "",
				  reduce ? afmt(a, "; the host%s reduced the queue depth %ld time%s", nhosts > 1 ? "s" : "", reduce,
						reduce == 1 ? "" : "s")
					 : "");
		buf_free(&hosts);
		f->summary = afmt(a, "%s; %s%s", f->summary, sym.state == 1 ? "in the host capture at that time: " : "context only: ",
				  sym.what);
		f->rule = afmt(a, "vmkernel.log lines with D:0x28 (TASK SET FULL) or D:0x8 (BUSY) for the device (a "
				  "\"repeated N times\" line counts N), grouped when less than %g s apart; a cause only with a "
				  "symptom in the host capture within a minute (DAVG > device.davg.warning_ms, commands "
				  "queued with KAVG > kernel.kavg.warning_ms, a DQLEN change, aborts or resets), else context",
			       rule_value(&a->rules, R_QFULL_GAP_S));
		f->source = "[vmw KB 1008113] SCSI device status 0x28 TASK SET FULL, 0x8 BUSY; the D: field, not the Cmd "
			    "opcode; [derived] a log line is evidence of a cause only where the capture shows its effect";
		if (sym.state < 1)
			f->advice = afmt(a, "Listed as context: the array refused a few commands, but the capture shows no "
					    "latency, queueing or queue-depth cut at that time, so it is not why IO waited. "
					    "Watch for it recurring under load.");
		else
			f->advice = afmt(a, "The array's port or LU queue overflowed: reduce the outstanding IO the hosts "
					    "send (LUN queue depth × LUNs × hosts ≤ array port queue [seed]), spread LUNs over "
					    "ports, and check adaptive queue depth (Disk.QFullSampleSize) is enabled.");
	}
	free(done);
}

/* ---- vmkernel.log failed commands with a host status (fabric / HBA trouble) ---- */

void det_vmk_failures(struct analysis *a)
{
	if (!a->have_vmk || !a->vmk.n)
		return;
	bool *done = xcalloc(a->vmk.n, sizeof *done);
	for (size_t i = 0; i < a->vmk.n; i++) {
		const struct vmk_event *e0 = &a->vmk.ev[i];
		if (done[i] || !is_host_failure(e0))
			continue;
		int64_t t0, t1;
		long n = vmk_window(a, i, is_host_failure, done, &t0, &t1);
		/* by host status: aborts (0x5), resets (0x8), the others */
		long by[3] = {0, 0, 0};
		unsigned other = 0;
		for (size_t j = i; j < a->vmk.n && a->vmk.ev[j].t <= t1; j++) {
			const struct vmk_event *e = &a->vmk.ev[j];
			if (!is_host_failure(e) || strcmp(e->device, e0->device) != 0)
				continue;
			int slot = e->host_status == 0x5 ? 0 : e->host_status == 0x8 ? 1 : 2;
			by[slot] += e->count;
			if (slot == 2 && !other)
				other = e->host_status;
		}
		/* the same failover seen in esxtop's counters is one finding: that one says the log agrees */
		bool seen = false;
		for (size_t k = 0; k < a->nf && !seen; k++) {
			const struct finding *g = &a->f[k];
			seen = g->kind == K_ERR_ABORTS_RESETS && g->capture >= 0 && strcmp(g->entity, e0->device) == 0 &&
			       g->start <= t1 + 60000 && t0 <= g->end + 60000;
		}
		if (seen)
			continue;
		struct log_symptom sym = capture_symptom(a, e0->device, e0->host, t0, t1);
		bool cause = n >= 3 && sym.state == 1;
		struct finding *f = finding_new(a, K_ERR_ABORTS_RESETS, !cause ? SEV_INFO : n >= 10 ? SEV_CRITICAL : SEV_WARNING,
						LAYER_DEVICE, e0->device, NULL);
		f->start = t0;
		f->end = t1;
		f->sustained_s = (double)(t1 - t0) / 1000.0;
		struct buf st;
		buf_init(&st);
		if (by[0])
			buf_printf(&st, "%ld aborted (H:0x5 ABORT)", by[0]);
		if (by[1])
			buf_printf(&st, "%s%ld reset (H:0x8 RESET)", st.len ? ", " : "", by[1]);
		if (by[2])
			buf_printf(&st, "%s%ld other (H:0x%x %s%s)", st.len ? ", " : "", by[2], other, host_status_name(other),
				   by[2] > 1 ? " and others" : "");
		const struct vmk_event *pe;
		long np = vmk_path_events(a, e0->device, e0->host, t0 - 60000, t1 + 60000, &pe);
		const char *ops = failed_opcodes(a, i, t1);
		f->summary = afmt(a, "%ld command%s failed with a host status in vmkernel.log (%s%s): the fabric, the HBA or "
				     "the path dropped or aborted them%s; %s%s",
				  n, n == 1 ? "" : "s", st.data, ops ? ops : "", np ? afmt(a, "; %ld path or ALUA state change%s in the log "
									   "then (first: %s %s)", np, np == 1 ? "" : "s",
									   pe->path ? pe->path : e0->device,
									   pe->state ? pe->state : vmk_kind_name(pe->kind))
								: "",
				  sym.state == 1 ? "in the host capture at that time: " : "context only: ",
				  n < 3 && sym.state == 1 ? afmt(a, "%s (fewer than 3 failures)", sym.what) : sym.what);
		buf_free(&st);
		f->rule = afmt(a, "at least 3 vmkernel.log failures with a non-zero H: status for the device (a \"repeated "
				  "N times\" line counts N), less than %g s apart, with a symptom in the host capture within a "
				  "minute (DAVG, queueing, a DQLEN change, aborts or resets); else context",
			       rule_value(&a->rules, R_QFULL_GAP_S));
		f->source = "[vmw] host status H:0x2/0x5/0x7/0x8 points to fabric/HBA trouble, not queue full; [vmw] "
			    "host-side NMP codes 0x5 ABORT, 0x8 RESET (Broadcom KB 338435, KB 321364: the failover sequence)";
		if (!cause)
			f->advice = afmt(a, "Listed as context: the capture shows no effect at that time. If it recurs, check "
					    "the paths (esxcli storage core path list) and the HBA's and switch port's errors.");
		else
			f->advice = afmt(a, "Check the HBA and the fabric at these times: switch port errors, path failovers "
					    "(esxcli storage core path list), HBA firmware and driver; these are not solved by "
					    "queue depths.");
	}
	free(done);
}
