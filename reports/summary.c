/* summary.c — the executive summary and the recommended actions (see summary.h). The actions are
 * the engine's (src/engine/actions.h): this file only says the sentences around them. */
#include "summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "actions.h"
#include "fmt.h"

/* "20 minutes", "2.5 hours", "3 days": a length a manager reads. */
static void plain_duration(struct buf *b, double sec)
{
	if (sec < 90)
		buf_printf(b, "%.0f second%s", sec, lround(sec) == 1 ? "" : "s");
	else if (sec < 90 * 60)
		buf_printf(b, "%ld minute%s", lround(sec / 60), lround(sec / 60) == 1 ? "" : "s");
	else if (sec < 48 * 3600)
		buf_printf(b, "%.1f hours", sec / 3600);
	else
		buf_printf(b, "%.1f days", sec / 86400);
}

static void add_sentence(struct exec_summary *s, char *t)
{
	if (s->nsentences < SUMMARY_MAX_SENTENCES)
		s->sentence[s->nsentences++] = t;
	else
		free(t);
}

void summary_free(struct exec_summary *s)
{
	free(s->headline);
	for (int i = 0; i < s->nsentences; i++)
		free(s->sentence[i]);
	for (int i = 0; i < s->nactions; i++) {
		free(s->act[i].what);
		free(s->act[i].effect);
		free(s->act[i].because);
	}
	memset(s, 0, sizeof *s);
}

/* What SQL Server's own counters say it felt (sqlimpact.h): the worst storage episode that explains
 * its log flush waits and the worst that explains its page IO latch waits, appended to b as "; SQL
 * Server felt it: ...". false (nothing added) when no episode explains a SQL Server wait. */
/* The band the guest latency finding g was judged by, as said beside its figure: the general
 * bands' (its evidence's threshold), or a transaction log's target — said as a guess when only
 * the disk's IO mix made it a log disk. */
static void felt_band(struct buf *b, const struct finding *g)
{
	double band = g->ev[0].threshold;
	if (isnan(band))
		return;
	if (!g->rule || !strstr(g->rule, "transaction log band"))
		buf_printf(b, ", where under %g ms is acceptable", band);
	else if (g->heuristic)
		buf_printf(b, ", above the %g ms a transaction log should take if it is one (a guess from its IO mix)",
			   band);
	else
		buf_printf(b, ", against the %g ms target of its transaction log", band);
}

static bool sql_felt(const struct analysis *a, struct buf *b)
{
	if (!a->sql)
		return false;
	const struct sql_episode *best[2] = {NULL, NULL};
	const struct sql_instance *in[2] = {NULL, NULL};
	for (size_t i = 0; i < a->sql->n; i++) {
		const struct sql_instance *si = &a->sql->in[i];
		for (size_t k = 0; k < si->nep; k++) {
			const struct sql_episode *ep = &si->ep[k];
			int r = ep->role == SQLR_LOG ? 0 : 1;
			double v = r == 0 ? ep->during.flush_wait_ms : ep->during.pageio_ms;
			if (ep->explains != 1 || !ep->disk || isnan(v))
				continue;
			double w = best[r] ? (r == 0 ? best[r]->during.flush_wait_ms : best[r]->during.pageio_ms) : -1;
			if (v > w)
				best[r] = ep, in[r] = si;
		}
	}
	if (!best[0] && !best[1])
		return false;
	buf_adds(b, "; SQL Server felt it");
	if (in[0] && in[1] && in[0] != in[1])
		in[0] = NULL; /* two instances: each part names its own */
	const struct sql_instance *one = best[0] ? in[0] ? in[0] : NULL : in[1];
	if (one && one->host)
		buf_printf(b, " (%s, %s)", one->host, one->label ? one->label : one->name);
	buf_adds(b, ":");
	for (int r = 0; r < 2; r++) {
		const struct sql_episode *ep = best[r];
		if (!ep)
			continue;
		double v = r == 0 ? ep->during.flush_wait_ms : ep->during.pageio_ms;
		double o = r == 0 ? ep->outside.flush_wait_ms : ep->outside.pageio_ms;
		buf_adds(b, r && best[0] ? " and" : "");
		buf_adds(b, r == 0 ? " its log flushes waited " : " its page reads waited ");
		fmt_num(b, v, "-");
		buf_printf(b, " ms per wait while %s was slow", ep->disk->name);
		if (!isnan(o)) {
			buf_adds(b, " (");
			fmt_num(b, o, "-");
			buf_adds(b, " ms the rest of the time)");
		}
	}
	return true;
}

static const char *const month_names[12] = {"January", "February", "March",     "April",   "May",      "June",
					     "July",    "August",   "September", "October", "November", "December"};

/* "27 July 2026" from the "2026-07-27..." that starts iso; nothing when iso is not a date. */
static void date_words(struct buf *b, const char *iso)
{
	int y = 0, mo = 1, day = 1;
	if (iso && sscanf(iso, "%d-%d-%d", &y, &mo, &day) == 3 && mo >= 1 && mo <= 12)
		buf_printf(b, "%d %s %d", day, month_names[mo - 1], y);
}

/* t's date and clock time, local (lt) or UTC (lt NULL): "2026-07-27 06:00:00". */
static void stamp(struct buf *b, const struct ltime *lt, int64_t t)
{
	if (lt)
		ltime_local(b, lt, t, true);
	else
		fmt_when(b, t);
}

/* From t0 to t1 on one clock (local lt, UTC with lt NULL), w characters of each clock time:
 * "06:00 to 06:20" on one day, "27 July 2026 22:00 to 29 July 2026 14:45" over several; z0, when
 * not NULL, follows the start's time. Whether the ends are on two dates. */
static bool clock_span(struct buf *b, const struct ltime *lt, int64_t t0, int64_t t1, int w, const char *z0)
{
	struct buf d0, d1;
	buf_init(&d0);
	buf_init(&d1);
	stamp(&d0, lt, t0);
	stamp(&d1, lt, t1);
	bool days = d0.len < 11 || d1.len < 11 || strncmp(d0.data, d1.data, 10) != 0;
	if (days) {
		date_words(b, d0.data);
		buf_addc(b, ' ');
	}
	buf_printf(b, "%.*s%s%s to ", w, d0.len > 11 ? d0.data + 11 : "", z0 ? " " : "", z0 ? z0 : "");
	if (days) {
		date_words(b, d1.data);
		buf_addc(b, ' ');
	}
	buf_printf(b, "%.*s", w, d1.len > 11 ? d1.data + 11 : "");
	buf_free(&d0);
	buf_free(&d1);
	return days;
}

/* "on 27 July 2026, 06:00 to 06:20 local time (UTC-07:00; 13:00 to 13:20 UTC)"; without a zone
 * only UTC. A period over several days names both dates: "from 27 July 2026 22:00 to 29 July 2026
 * 14:45 UTC"; the UTC clock names its dates when they differ from each other. */
static void period_words(struct buf *b, const struct ltime *lt, int64_t t0, int64_t t1)
{
	bool secs = t1 - t0 < 120000; /* under two minutes: the seconds tell start from end */
	int w = secs ? 8 : 5;
	struct buf x;
	buf_init(&x);
	if (lt->known) {
		char ab0[16], ab1[16];
		const char *z0 = ltime_abbr(lt, t0, ab0), *z1 = ltime_abbr(lt, t1, ab1);
		bool change = strcmp(z0, z1) != 0; /* DST (or another capture's bias) in between: each end its own */
		bool days = clock_span(&x, lt, t0, t1, w, change ? z0 : NULL);
		if (days)
			buf_printf(b, "from %s", x.data);
		else {
			struct buf d;
			buf_init(&d);
			stamp(&d, lt, t0);
			buf_adds(b, "on ");
			date_words(b, d.data);
			buf_printf(b, ", %s", x.data);
			buf_free(&d);
		}
		if (change)
			buf_printf(b, " %s local time (", z1);
		else
			buf_printf(b, " local time (%s; ", z1);
		buf_reset(&x);
		clock_span(&x, NULL, t0, t1, w, NULL);
		buf_printf(b, "%s UTC)", x.data);
	} else {
		bool days = clock_span(&x, NULL, t0, t1, w, NULL);
		if (days)
			buf_printf(b, "from %s UTC", x.data);
		else {
			struct buf d;
			buf_init(&d);
			stamp(&d, NULL, t0);
			buf_adds(b, "on ");
			date_words(b, d.data);
			buf_printf(b, ", %s UTC", x.data);
			buf_free(&d);
		}
	}
	buf_free(&x);
}

static void span_of(const struct model *m, int64_t *t0, int64_t *t1)
{
	*t0 = INT64_MAX;
	*t1 = INT64_MIN;
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *c = &m->caps[i];
		if (c->failed || !c->rows)
			continue;
		if (c->start + c->clock_offset_ms < *t0)
			*t0 = c->start + c->clock_offset_ms;
		if (c->end + c->clock_offset_ms > *t1)
			*t1 = c->end + c->clock_offset_ms;
	}
}

/* Up to SPAN_PARTS periods the captures cover apart from each other (no capture in two), in time
 * order; the last holds the rest when there are more. The number of periods (0: no capture). */
#define SPAN_PARTS 4
struct span {
	int64_t t0, t1;
};

static int spans_apart(const struct model *m, struct span *p)
{
	int n = 0;
	int64_t after = INT64_MIN; /* the captures that start after this time are not placed yet */
	for (;;) {
		/* the earliest capture not placed yet starts a period; every capture it reaches joins */
		int64_t t0 = INT64_MAX, t1 = INT64_MIN;
		for (size_t i = 0; i < m->ncaps; i++) {
			const struct capture *c = &m->caps[i];
			int64_t s = c->start + c->clock_offset_ms;
			if (!c->failed && c->rows && s > after && s < t0)
				t0 = s, t1 = c->end + c->clock_offset_ms;
		}
		if (t0 == INT64_MAX)
			return n;
		for (bool grew = true; grew;) {
			grew = false;
			for (size_t i = 0; i < m->ncaps; i++) {
				const struct capture *c = &m->caps[i];
				int64_t s = c->start + c->clock_offset_ms, e = c->end + c->clock_offset_ms;
				if (!c->failed && c->rows && s >= t0 && s <= t1 && e > t1)
					t1 = e, grew = true;
			}
		}
		if (n < SPAN_PARTS)
			p[n++] = (struct span){t0, t1};
		else
			p[SPAN_PARTS - 1].t1 = t1;
		after = t1;
	}
}

/* "the ESXi host esx01 and the Windows guest SQL01" (up to three names of each), of the captures
 * that start within t0..t1. */
static void machines_in(struct buf *b, const struct model *m, int64_t t0, int64_t t1)
{
	int said = 0;
	for (int role = 0; role < 2; role++) {
		const char *names[4];
		int n = 0, more = 0;
		for (size_t i = 0; i < m->ncaps; i++) {
			const struct capture *c = &m->caps[i];
			int64_t cs = c->start + c->clock_offset_ms;
			if (c->failed || !c->host || (int)c->role != (role ? ROLE_GUEST : ROLE_HOST) || cs < t0 || cs > t1)
				continue;
			bool dup = false;
			for (int k = 0; k < n; k++)
				dup |= strcmp(names[k], c->host) == 0;
			if (dup)
				continue;
			if (n < 3)
				names[n++] = c->host;
			else
				more = 1;
		}
		if (!n)
			continue;
		bool hv = false, vm = false;
		for (size_t i = 0; i < m->ncaps && !role; i++)
			hv |= !m->caps[i].failed && m->caps[i].role == ROLE_HOST && model_hyperv(m, i);
		/* a perfmon is a guest's only when it shows it is a VM's, or a hypervisor's capture is with it */
		for (size_t i = 0; i < m->ncaps && role; i++)
			vm |= !m->caps[i].failed && m->caps[i].role == ROLE_GUEST && model_guest_is_vm(m, i);
		buf_printf(b, "%s%s%s ", said++ ? " and " : "",
			   role ? (vm ? "the Windows guest" : "the Windows host")
			   : hv ? "the Hyper-V host"
				: "the ESXi host",
			   n > 1 ? "s" : "");
		for (int k = 0; k < n; k++)
			buf_printf(b, "%s%s", k ? ", " : "", names[k]);
		if (more)
			buf_adds(b, " and others");
	}
	if (!said)
		buf_adds(b, "machines the captures do not name");
}

static void machines(struct buf *b, const struct model *m)
{
	machines_in(b, m, INT64_MIN, INT64_MAX);
}

/* The engine's steps (actions.h) become the summary's: it owns their text from here. */
static void take_actions(struct exec_summary *s, struct action_list *l)
{
	for (int i = 0; i < l->n; i++)
		s->act[s->nactions++] = l->act[i];
	l->n = 0;
}

/* Where IO waits, said for a manager, by the box of the kind. */
static const char *where_words(enum kind k, bool sql, bool hv)
{
	if (k == K_T_STORAGE_QOS)
		return "behind a Storage QoS maximum on its virtual hard disk (VHDX) in the Hyper-V host";
	if (k == K_CSV_REDIRECTED)
		return "in the Hyper-V host: a Cluster Shared Volume's IO is redirected over the network";
	if (hv && (kinds[k].box == BOX_VSCSI || kinds[k].box == BOX_GUEST))
		return sql ? "inside the SQL Server VM, above the Hyper-V host" : "inside the VM, above the Hyper-V host";
	if (hv && kinds[k].box == BOX_ARRAY)
		return "at the Hyper-V host's disk (a LUN, or a Storage Spaces virtual disk) or the storage behind it";
	switch (kinds[k].box) {
	case BOX_GUEST: return sql ? "inside the SQL Server VM" : "inside the VM";
	case BOX_VSCSI: return sql ? "inside the SQL Server VM, at its virtual disk controller"
				   : "inside the VM, at its virtual disk controller";
	case BOX_KERNEL: return "in the ESXi host's queue for the storage LUN";
	case BOX_ADAPTER: return "at the ESXi host's storage adapter (HBA)";
	case BOX_ARRAY: return "in the storage array or the fabric to it";
	default: return "in the storage path";
	}
}

/* The finding that says where IO waits: the worst of those that wait, by cause rank. */
static const struct finding *main_finding(const struct analysis *a)
{
	const struct finding *best = NULL;
	int worst = analysis_worst(a);
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		if ((int)f->sev != worst)
			continue;
		if (!best || (kinds[f->kind].waits && !kinds[best->kind].waits) ||
		    (kinds[f->kind].waits == kinds[best->kind].waits && kinds[f->kind].cause_rank < kinds[best->kind].cause_rank) ||
		    (f->kind == best->kind && f->layer == LAYER_VM && analysis_guest_captured(a, f->entity) &&
		     !analysis_guest_captured(a, best->entity)))
			best = f; /* among VMs alike, the one whose guest was captured: the customer's */
	}
	return best;
}

static const char *const hv_layer_words[COV_LAYERS] = {"the Windows guest", "the VHDX files",
						       "the other cluster nodes' IO to the same disks", "the host disks",
						       "the host's HBAs and MPIO paths", "the array behind the host disks"};
static const char *const layer_words[COV_LAYERS] = {"the Windows guest", "the virtual SCSI controller",
						    "the per-VM queue", "the ESXi device queue",
						    "the host's storage adapter", "the array"};

/* The layers the captures could not show into b, those the selection left out into fl (counts in
 * *nna, *nfl). A perfmon alone that shows no sign of being a VM's is a Windows host, whose layers
 * below are not a hypervisor's: said once. */
static void layers_not_shown(const struct analysis *a, struct buf *b, struct buf *fl, int *nna, int *nfl)
{
	static const char *const win_layer_words[2] = {"Windows' disks", "what lies below Windows (its controller, "
							 "disks or array; a hypervisor's layers if it is a VM)"};
	bool win_host = true;
	for (size_t i = 0; i < a->m.ncaps; i++)
		win_host &= a->m.caps[i].failed || (a->m.caps[i].role == ROLE_GUEST && !model_guest_is_vm(&a->m, i));
	const char *const *lw = analysis_hyperv(a) ? hv_layer_words : win_host ? win_layer_words : layer_words;
	for (int l = 0; l < COV_LAYERS; l++) {
		if (a->cov.layer[l].status != COV_NOT_ASSESSED)
			continue;
		if (win_host && l > 1) {
			if (!strstr(b->data ? b->data : "", win_layer_words[1]))
				buf_printf(b, "%s%s", (*nna)++ ? ", " : "", win_layer_words[1]);
			continue;
		}
		if (a->cov.layer[l].reason == COVR_FILTERED)
			buf_printf(fl, "%s%s", (*nfl)++ ? ", " : "", lw[l]);
		else
			buf_printf(b, "%s%s", (*nna)++ ? ", " : "", lw[l]);
	}
}

/* The headline when the verdict's first place is not the storage's: memory (a guest's paging, the
 * host swapping the VM) or the VM's CPU. */
static void not_storage_headline(const struct analysis *a, const struct finding *vf, bool sql, struct buf *h)
{
	if (vf->kind == K_MEM_GUEST_PAGING)
		buf_printf(h, "%s waits for memory, not for storage: it pages hard, and its disk IO is the paging",
			   vf->entity);
	else if (vf->kind == K_MEM_HOST_SWAP)
		buf_printf(h, "The %s waits for memory, not for storage: the ESXi host swaps %s's memory",
			   sql ? "SQL Server VM" : "VM", vf->entity);
	else
		buf_printf(h, "The %s waits for CPU, not for storage: its %s", sql ? "SQL Server VM" : "VM",
			   analysis_hyperv(a) ? "virtual processors wait for a logical processor of the Hyper-V host"
					      : "vCPUs wait for a physical CPU of the ESXi host");
}

/* The first sentence: what the captures (or the window) cover, when, from which machines. */
static void period_sentence(const struct analysis *a, const struct ltime *lt, struct exec_summary *s)
{
	const struct model *m = &a->m;
	int64_t t0, t1;
	span_of(m, &t0, &t1);
	struct buf b;
	buf_init(&b);
	struct span parts[SPAN_PARTS];
	int nparts = t0 < t1 ? spans_apart(m, parts) : 0;
	if (nparts > 1) {
		/* one span over captures that share no time would be a wrong statement */
		buf_adds(&b, a->window.on ? "In the window analysed (--from/--to) the captures do not overlap in time: they cover "
					  : "The captures do not overlap in time: they cover ");
		for (int k = 0; k < nparts && k < SPAN_PARTS - 1; k++) {
			buf_adds(&b, k == 0 ? "" : k == nparts - 1 ? "; and " : "; ");
			plain_duration(&b, (double)(parts[k].t1 - parts[k].t0) / 1000.0);
			buf_addc(&b, ' ');
			period_words(&b, lt, parts[k].t0, parts[k].t1);
			buf_adds(&b, ", from ");
			machines_in(&b, m, parts[k].t0, parts[k].t1);
		}
		if (nparts == SPAN_PARTS)
			buf_adds(&b, "; and other periods");
		if (ef_on(m->filter)) {
			buf_adds(&b, "; for the selection ");
			ef_options_text(m->filter, &b);
			buf_adds(&b, " only");
		}
		buf_adds(&b, ".");
		add_sentence(s, b.data);
		buf_init(&b);
	} else if (t0 < t1) {
		buf_adds(&b, a->window.on ? "The window analysed (--from/--to) covers " : "The captures cover ");
		plain_duration(&b, (double)(t1 - t0) / 1000.0);
		buf_addc(&b, ' ');
		period_words(&b, lt, t0, t1);
		buf_adds(&b, ", from ");
		machines(&b, m);
		if (ef_on(m->filter)) {
			buf_adds(&b, ", for the selection ");
			ef_options_text(m->filter, &b);
			buf_adds(&b, " only");
		}
		buf_adds(&b, ".");
		add_sentence(s, b.data);
		buf_init(&b);
	}
	buf_free(&b);
}

/* A warning or worse: the headline (where IO waits, as the verdict says), the worst finding, the
 * count and what the application felt, and the layers below the wait that were fine. */
static void found_sentences(const struct analysis *a, const struct ltime *lt, const struct finding *mf,
			    struct exec_summary *s)
{
	const struct finding *vf = a->verdict_first >= 0 && (size_t)a->verdict_first < a->nf ? &a->f[a->verdict_first] : NULL;
	bool sql = a->sql && a->sql->n;
	struct buf b;
	buf_init(&b);
	struct buf h;
	buf_init(&h);
	if (a->verdict_where == VW_PLACES && vf &&
	    (kinds[vf->kind].place == VP_MEMORY || kinds[vf->kind].place == VP_CPU)) {
		not_storage_headline(a, vf, sql, &h);
	} else if (a->verdict_where == VW_PLACES && vf && vf->kind == K_LAT_VD_ABOVE) {
		buf_adds(&h, analysis_hyperv(a)
				 ? "Storage IO waits in the Hyper-V host above its disk, on one VHDX (a "
				   "checkpoint, a dynamic or differencing disk, a filter)"
				 : "Storage IO waits in the ESXi host above the LUN, on one virtual disk (a snapshot, "
				   "CBT or an IO filter)");
	} else if (a->verdict_where == VW_PLACES && vf) {
		buf_printf(&h, "Storage IO waits %s", kinds[vf->kind].place == VP_DATASTORE
							   ? "in the datastore below the ESXi host"
							   : where_words(vf->kind, sql, analysis_hyperv(a)));
	} else if (a->verdict_where == VW_BELOW_HBA && vf) {
		buf_adds(&h, "Storage IO is slow on ");
		finding_entity_words(&h, vf);
		buf_adds(&h, "; most of its time is spent below the ESXi host's HBA, in the array or the fabric");
	} else if ((a->verdict_where == VW_BELOW_GUEST || a->verdict_where == VW_UNTOLD) && vf) {
		buf_adds(&h, "Storage IO is slow on ");
		finding_entity_words(&h, vf);
		buf_adds(&h, a->verdict_where == VW_BELOW_GUEST
				 ? "; it waits below the guest, and these captures do not show where"
				 : "; where it waits cannot be told from these captures");
	} else {
		/* findings to act on, but no IO wait in the stack (a misaligned partition, errors) */
		buf_adds(&h, "No IO wait found in the stack; to act on: ");
		const char *t = kinds[mf->kind].title;
		buf_addc(&h,
			 t[0] >= 'A' && t[0] <= 'Z' && !(t[1] >= 'A' && t[1] <= 'Z') ? (char)(t[0] - 'A' + 'a') : t[0]);
		buf_adds(&h, t + 1);
		buf_adds(&h, " on ");
		finding_entity_words(&h, mf);
	}
	s->headline = h.data;
	buf_adds(&b, "The worst: ");
	buf_adds(&b, kinds[mf->kind].title);
	buf_adds(&b, " on ");
	finding_entity_words(&b, mf);
	buf_adds(&b, " for ");
	plain_duration(&b, mf->sustained_s);
	if (mf->end > mf->start && lt->known) {
		struct buf x;
		buf_init(&x);
		ltime_local(&x, lt, mf->start, false);
		buf_printf(&b, " from %.5s local time", x.data);
		buf_free(&x);
	}
	if (mf->nev) {
		const struct evidence *ev = &mf->ev[0];
		buf_printf(&b, ", %s at a median of ", metric_info[ev->metric].label);
		fmt_num(&b, ev->median, "-");
		buf_printf(&b, " %s", metric_info[ev->metric].unit);
		if (!isnan(ev->threshold)) {
			buf_adds(&b, " against the rule's threshold of ");
			fmt_num(&b, ev->threshold, "-");
		}
	}
	buf_adds(&b, ".");
	add_sentence(s, b.data);
	buf_init(&b);
	int crit = 0, warn = 0;
	for (size_t i = 0; i < a->nf; i++)
		crit += a->f[i].sev == SEV_CRITICAL, warn += a->f[i].sev == SEV_WARNING;
	/* what the application felt: the worst guest latency */
	const struct finding *gl = NULL;
	for (size_t i = 0; i < a->nf && !gl; i++)
		if (a->f[i].kind == K_LAT_GUEST_READ || a->f[i].kind == K_LAT_GUEST_WRITE)
			gl = &a->f[i];
	buf_printf(&b, "In all there %s %zu finding%s (%d critical, %d warning%s)", a->nf == 1 ? "is" : "are", a->nf,
		   a->nf == 1 ? "" : "s", crit, warn, warn == 1 ? "" : "s");
	if (!sql_felt(a, &b) && gl && gl->nev) {
		buf_printf(&b, "; %s felt it as %s latency of ",
			   gl->capture >= 0 && !model_guest_is_vm(&a->m, (size_t)gl->capture) ? "Windows" : "the guest",
			   gl->kind == K_LAT_GUEST_READ ? "read" : "write");
		fmt_num(&b, gl->ev[0].median, "-");
		buf_printf(&b, " %s (median) on ", metric_info[gl->ev[0].metric].unit);
		finding_entity_words(&b, gl);
		felt_band(&b, gl);
	}
	buf_adds(&b, ".");
	add_sentence(s, b.data);
	buf_init(&b);
	/* the layers below the wait that were fine */
	int box = kinds[mf->kind].box;
	bool below_ok = box <= BOX_VSCSI;
	for (size_t i = 0; i < a->nf && below_ok; i++)
		below_ok = a->f[i].sev < SEV_WARNING || kinds[a->f[i].kind].box <= BOX_VSCSI ||
			   kinds[a->f[i].kind].box == BOX_BY_LAYER;
	if (below_ok && a->verdict_where == VW_PLACES && a->verdict_places == (1u << VP_GUEST) &&
	    a->cov.layer[LAYER_DEVICE].status != COV_NOT_ASSESSED &&
	    a->cov.layer[LAYER_ARRAY].status != COV_NOT_ASSESSED)
		add_sentence(s, xprintf(analysis_hyperv(a)
					    ? "The Hyper-V host and its disks were not the bottleneck: their "
					      "latency stayed within the rules, so the fix is inside the VM."
					    : "The ESXi host, its storage adapter and the array were not the "
					      "bottleneck: their queues and latency stayed within the rules, so "
					      "the fix is inside the VM."));
	buf_free(&b);
}

/* Nothing to warn of: no all-clear where nothing was judged, the busiest disk's figures, and a
 * SQL Server wait without a storage cause when there is one. */
static void clear_sentences(const struct analysis *a, struct exec_summary *s)
{
	struct buf b;
	buf_init(&b);
	int assessed = 0;
	for (int l = 0; l < COV_LAYERS; l++)
		assessed += a->cov.layer[l].status != COV_NOT_ASSESSED;
	if (!assessed) {
		/* no all-clear: nothing was judged (too short, no counters) */
		s->headline = xprintf("Nothing could be assessed");
		buf_printf(&b, "No layer could be judged (%s), so these captures neither show a problem nor clear one",
			   a->cov.layer[0].why && *a->cov.layer[0].why ? a->cov.layer[0].why : "see the coverage");
	} else {
		s->headline = xprintf(a->cov.complete ? "No storage bottleneck found"
						  : "No storage bottleneck found in what the captures show");
		buf_adds(&b, "Latency and queues stayed within the rules at every layer the captures cover");
	}
	if (a->nshown && !a->shown[0].anchor && a->shown[0].s.guest) {
		const struct entity *g = a->shown[0].s.guest;
		buf_adds(&b, "; the busiest disk, ");
		if (g->host) {
			buf_adds(&b, g->host);
			buf_addc(&b, ' ');
		}
		buf_adds(&b, g->name);
		if (entity_sk(g, M_G_XFERS)->n) {
			buf_adds(&b, ", did ");
			fmt_num(&b, qs_quantile(entity_sk(g, M_G_XFERS), 0.5), "-");
			buf_adds(&b, " IO/s");
		}
		if (entity_sk(g, M_G_LAT_R)->n) {
			buf_adds(&b, " with reads at ");
			fmt_num(&b, qs_quantile(entity_sk(g, M_G_LAT_R), 0.5), "-");
			buf_adds(&b, " ms (median, p95 ");
			fmt_num(&b, qs_quantile(entity_sk(g, M_G_LAT_R), 0.95), "-");
			buf_adds(&b, " ms)");
		}
	}
	buf_adds(&b, ".");
	add_sentence(s, b.data);
	buf_init(&b);
	const struct sql_symptom *sy = actions_sql_symptom(a, true);
	/* else a SQL Server wait on a disk the captures do not time */
	const struct sql_symptom *su = sy ? NULL : actions_sql_symptom(a, false);
	if (su)
		add_sentence(s, xprintf("SQL Server waited, though: %s", su->text));
	if (sy) {
		/* the storage is fine but SQL Server waits: the one thing to act on */
		free(s->headline);
		s->headline = xprintf("No storage bottleneck found, but SQL Server waits for something else");
		add_sentence(s, xprintf("But SQL Server waited without a storage cause: %s", sy->text));
	} else if (a->nf) {
		add_sentence(s, xprintf("%zu note%s of information only.", a->nf, a->nf == 1 ? " is" : "s are"));
	}
	buf_free(&b);
}

/* The last sentence: what the captures could not show and what the selection left out. */
static void coverage_sentence(const struct analysis *a, struct exec_summary *s)
{
	struct buf b;
	buf_init(&b);
	/* what the captures could not show, and what the selection left out */
	int nna = 0, nfl = 0;
	struct buf fl;
	buf_init(&fl);
	layers_not_shown(a, &b, &fl, &nna, &nfl);
	if (nna || nfl) {
		struct buf t;
		buf_init(&t);
		if (nfl && nna)
			buf_printf(&t, "The selection leaves out %s; these captures could not show %s, so no finding there does "
				       "not mean no problem there.", fl.data, b.data);
		else if (nfl)
			buf_printf(&t, "The selection leaves out %s: not analysed.", fl.data);
		else
			buf_printf(&t, "These captures could not show %s, so no finding there does not mean no problem there.",
				   b.data);
		buf_free(&b);
		buf_free(&fl);
		add_sentence(s, t.data);
	} else {
		buf_free(&fl);
		buf_free(&b);
		if (a->cov.complete) /* every layer, and the guest tied to the host (check_link) */
			add_sentence(s, xprintf("The captures show every layer from Windows down to the array."));
	}
	if (a->cov.link_why)
		add_sentence(s, xprintf("%s", a->cov.link_why));
}

void summary_of_analysis(const struct analysis *a, const struct ltime *lt, struct exec_summary *s)
{
	memset(s, 0, sizeof *s);
	s->tone = analysis_worst(a);
	period_sentence(a, lt, s);
	const struct finding *mf = main_finding(a);
	if (mf && mf->sev >= SEV_WARNING)
		found_sentences(a, lt, mf, s);
	else
		clear_sentences(a, s);
	coverage_sentence(a, s);
	struct action_list l;
	actions_of(a, &l);
	take_actions(s, &l);
}

/* The engine's headline with its UTC clock times ("(13:04-13:15)") said in both zones:
 * "(13:04-13:15 UTC, 06:04-06:15 local)"; the offset is the one at the start of m's captures. */
static char *local_clock_note(const char *h, const struct ltime *lt, const struct model *m)
{
	struct buf b;
	buf_init(&b);
	int64_t t0, t1;
	span_of(m, &t0, &t1);
	int32_t off = lt->known && t0 < t1 ? tz_offset_at(&lt->z, t0 / 1000, NULL) : 0;
	for (const char *p = h; *p; p++) {
		int a, bb, c, d;
		char close;
		if (lt->known && p[0] == '(' && strlen(p) >= 13 && p[3] == ':' && p[6] == '-' && p[9] == ':' &&
		    sscanf(p, "(%2d:%2d-%2d:%2d%c", &a, &bb, &c, &d, &close) == 5 && close == ')') {
			int l0 = ((a * 60 + bb + off / 60) % 1440 + 1440) % 1440, l1 = ((c * 60 + d + off / 60) % 1440 + 1440) % 1440;
			buf_printf(&b, "(%02d:%02d-%02d:%02d UTC, %02d:%02d-%02d:%02d local)", a, bb, c, d, l0 / 60, l0 % 60, l1 / 60,
				   l1 % 60);
			p += 12;
			continue;
		}
		buf_addc(&b, *p);
	}
	return b.data ? b.data : xstrdup("");
}

void summary_of_compare(const struct compare *c, const struct ltime *lt, struct exec_summary *s)
{
	memset(s, 0, sizeof *s);
	const struct cmp_summary *sm = &c->sum;
	s->tone = sm->outcome == CO_IMPROVED ? -1 : sm->outcome == CO_REGRESSED ? SEV_CRITICAL : SEV_WARNING;
	/* sides given the wrong way round: said before anything else (the engine's headline starts so) */
	s->headline = xprintf("%s", sm->reversed ? "Sides reversed" : cmp_outcome_words[sm->outcome]);
	/* the outcome in one short sentence with the work done; the proof (the headline) is the verdict's */
	if (c->lead)
		add_sentence(s, xprintf("%s", c->lead));
	else if (c->headline)
		add_sentence(s, local_clock_note(c->headline, lt, &c->side[CMP_BEFORE].m));
	struct buf b;
	buf_init(&b);
	int64_t t0, t1;
	for (int side = 0; side < 2; side++) {
		span_of(&c->side[side].m, &t0, &t1);
		if (t0 >= t1)
			continue;
		buf_adds(&b, side ? "; after: " : "Before: ");
		plain_duration(&b, (double)(t1 - t0) / 1000.0);
		if (c->side[side].window.on)
			buf_adds(&b, " (its --from/--to window)");
		buf_addc(&b, ' ');
		period_words(&b, lt, t0, t1);
	}
	if (b.len) {
		const struct ent_filter *f = c->side[CMP_BEFORE].m.filter;
		if (ef_on(f)) {
			/* both sides are read with the same selection */
			buf_adds(&b, "; for the selection ");
			ef_options_text(f, &b);
			buf_adds(&b, " only");
		}
		buf_adds(&b, ".");
		add_sentence(s, b.data);
		buf_init(&b);
	}
	if (sm->findings_compared && sm->outcome == CO_NOT_COMPARABLE && sm->nc_action) {
		/* sides of different kinds of capture: their findings are of different layers */
	} else if (sm->findings_compared && sm->outcome == CO_NOT_COMPARABLE) {
		/* an after side without the busy period cannot show the before side's findings gone */
		buf_printf(&b, "Findings: %d before, %d after; the after side did not see the load they came with, so "
			       "they are not shown to be gone.", sm->findings[FD_GONE] + sm->findings[FD_STILL],
			   sm->findings[FD_STILL] + sm->findings[FD_NEW]);
		add_sentence(s, b.data);
		buf_init(&b);
	} else if (sm->findings_compared) {
		buf_printf(&b, "Findings: %d gone, %d still present, %d new.", sm->findings[FD_GONE], sm->findings[FD_STILL],
			   sm->findings[FD_NEW]);
		add_sentence(s, b.data);
		buf_init(&b);
	}
	/* the business side of the change, from SQL Server's own counters (the first instance) */
	if (c->nsql && c->sql[0].text)
		add_sentence(s, xprintf("SQL Server, %s", c->sql[0].text));
	if (sm->capacity_gain)
		add_sentence(s, xprintf("The after side did materially more work in its busy phase at no worse latency: a capacity "
				     "gain."));
	if (sm->outcome == CO_NOT_COMPARABLE && sm->outcome_why)
		add_sentence(s, xprintf("The captures cannot show a fix: %s.", sm->outcome_why));
	buf_free(&b);
	/* what to do next */
	struct action_list l;
	compare_actions_of(c, &l);
	take_actions(s, &l);
}
