/* summary.c — the executive summary and the recommended actions (see summary.h). The actions are
 * the findings' advice said as one step each: findings of one cause on one machine share a step
 * (a VM's disks on LSI Logic SAS are one move to PVSCSI), a symptom (guest latency) joins the
 * step of its cause on the same machine, and the steps keep the order of their worst finding. */
#include "summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"

static char *fmtx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *fmtx(const char *fmt, ...)
{
	struct buf b;
	buf_init(&b);
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return b.data ? b.data : xstrdup("");
}

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

/* SQL Server's first wait without a storage cause (sqlimpact.h); with measured, the first whose
 * disk the captures time, so that the storage is cleared (a wait on a disk the captures do not tie
 * or time clears nothing). NULL when none. */
static const struct sql_symptom *sql_symptom(const struct analysis *a, bool measured)
{
	for (size_t i = 0; a->sql && i < a->sql->n; i++)
		for (size_t k = 0; k < a->sql->in[i].nsym; k++)
			if (!measured || (a->sql->in[i].sym[k].disk && !isnan(a->sql->in[i].sym[k].disk_ms)))
				return &a->sql->in[i].sym[k];
	return NULL;
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
		bool hv = false;
		for (size_t i = 0; i < m->ncaps && !role; i++)
			hv |= !m->caps[i].failed && m->caps[i].role == ROLE_HOST && model_hyperv(m, i);
		buf_printf(b, "%s%s%s ", said++ ? " and " : "", role ? "the Windows guest" : hv ? "the Hyper-V host" : "the ESXi host",
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

static void entity_words(struct buf *b, const struct finding *f)
{
	if (f->host && *f->host) {
		buf_adds(b, f->host);
		buf_addc(b, ' ');
	}
	buf_adds(b, f->entity ? f->entity : "");
}

/* ---- actions ---- */

enum act_key {
	AK_PVSCSI, AK_GUEST_PATH, AK_DEVICE_QUEUE, AK_ADAPTER, AK_ARRAY, AK_QFULL, AK_SIOC, AK_DSNRO, AK_SPLIT, AK_ALIGN,
	AK_PATHS, AK_DATASTORE, AK_HBA, AK_PATH_RESTORE, AK_CPU, AK_VD_ABOVE, AK_QOS, AK_CSV_REDIRECTED, AK_HOST_DISK,
	AK_SYMPTOM, AK_COUNT
};

static enum act_key key_of(const struct analysis *a, const struct finding *f)
{
	switch (f->kind) {
	case K_Q_GUEST_VSCSI_CAP: return AK_PVSCSI;
	case K_Q_GUEST_HIDDEN:
		/* the same machine pinned at the vSCSI limit: one move to PVSCSI fixes both */
		for (size_t i = 0; i < a->nf; i++)
			if (a->f[i].kind == K_Q_GUEST_VSCSI_CAP && a->f[i].host && f->host && strcmp(a->f[i].host, f->host) == 0)
				return AK_PVSCSI;
		return AK_GUEST_PATH;
	case K_LAT_KERNEL:
	case K_Q_DEVICE_SATURATED: return AK_DEVICE_QUEUE;
	case K_Q_ADAPTER_SATURATED: return AK_ADAPTER;
	case K_LAT_DEVICE: return AK_ARRAY;
	case K_Q_ARRAY_OVERCOMMIT:
	case K_T_AQD:
	case K_SCSI_QUEUE_FULL: return AK_QFULL;
	case K_T_SIOC: return AK_SIOC;
	case K_T_DSNRO: return AK_DSNRO;
	case K_IO_SPLIT: return AK_SPLIT;
	case K_ALIGN_MISALIGNED: return AK_ALIGN;
	case K_ERR_ABORTS_RESETS: return AK_PATHS;
	case K_LAT_DATASTORE: return AK_DATASTORE;
	case K_LAT_HBA: return AK_HBA;
	case K_CPU_CONTENTION: return AK_CPU;
	case K_LAT_VD_ABOVE: return AK_VD_ABOVE;
	case K_T_STORAGE_QOS: return AK_QOS;
	case K_CSV_REDIRECTED: return AK_CSV_REDIRECTED;
	case K_LAT_HOST_DISK: return AK_HOST_DISK;
	case K_PATH_CHANGE: return f->sev >= SEV_WARNING ? AK_PATH_RESTORE : AK_SYMPTOM;
	default: return AK_SYMPTOM;
	}
}

/* The scope an action is said for: the machine for guest-side steps, the entity otherwise. */
static bool same_scope(const struct analysis *a, enum act_key k, const struct finding *x, const struct finding *y)
{
	/* the array's QUEUE FULL is the LU's, whichever hosts see it (a finding may name several
	 * hosts sharing the LU): one action per LU, naming all of them */
	if (k == AK_QFULL)
		return x->entity && y->entity && strcmp(x->entity, y->entity) == 0;
	bool hosts = (!x->host && !y->host) || (x->host && y->host && strcmp(x->host, y->host) == 0);
	if (k != AK_PVSCSI && k != AK_GUEST_PATH && k != AK_SYMPTOM && k != AK_SPLIT && k != AK_ALIGN)
		hosts = !x->host || !y->host || strcmp(x->host, y->host) == 0; /* vmkernel.log names no host */
	if (k == AK_PVSCSI || k == AK_GUEST_PATH || k == AK_SYMPTOM || k == AK_SPLIT || k == AK_ALIGN)
		return hosts;
	if (k == AK_CPU && x->layer == LAYER_VM && y->layer == LAYER_VM && x->capture == y->capture && x->capture >= 0 &&
	    x->kind == K_CPU_CONTENTION && y->kind == K_CPU_CONTENTION && x->entity && y->entity &&
	    strcmp(x->entity, y->entity) != 0 && x->host && y->host && strcmp(x->host, y->host) == 0)
		return model_hyperv(&a->m, (size_t)x->capture); /* a Hyper-V host's VMs: one action for the host */
	return hosts && x->entity && y->entity && strcmp(x->entity, y->entity) == 0;
}

/* The guest disk of finding g had IOs queued: its evidence's median Current Disk Queue Length
 * (any of its findings of key k on f's machine) is at least one IO. A disk without that counter
 * counts as busy. */
static bool disk_busy(const struct analysis *a, enum act_key k, const struct finding *f, const struct finding *g)
{
	bool measured = false;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *x = &a->f[i];
		if (key_of(a, x) != k || !same_scope(a, k, f, x) || !x->entity || strcmp(x->entity, g->entity) != 0)
			continue;
		for (int e = 0; e < x->nev; e++)
			if (x->ev[e].metric == M_G_CDQL && !isnan(x->ev[e].median)) {
				if (x->ev[e].median >= 1)
					return true;
				measured = true;
			}
	}
	return !measured;
}

/* The disks (entities) of the findings of key k on f's machine: "D:, E:"; for a move to PVSCSI
 * only the busy ones (an idle boot disk gains nothing from it), all when none is. */
static void disks_of(const struct analysis *a, enum act_key k, const struct finding *f, struct buf *b)
{
	int n = 0;
	bool any_busy = false;
	for (size_t i = 0; k == AK_PVSCSI && i < a->nf && !any_busy; i++)
		any_busy = key_of(a, &a->f[i]) == k && same_scope(a, k, f, &a->f[i]) && a->f[i].entity &&
			   disk_busy(a, k, f, &a->f[i]);
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *g = &a->f[i];
		if (key_of(a, g) != k || !same_scope(a, k, f, g) || !g->entity)
			continue;
		if (any_busy && !disk_busy(a, k, f, g))
			continue;
		bool dup = false;
		for (size_t j = 0; j < i; j++)
			dup |= key_of(a, &a->f[j]) == k && same_scope(a, k, f, &a->f[j]) && a->f[j].entity &&
			       strcmp(a->f[j].entity, g->entity) == 0;
		if (dup)
			continue;
		buf_printf(b, "%s%s", n++ ? ", " : "", g->entity);
	}
}

static double ev_median(const struct finding *f, enum metric m)
{
	for (int k = 0; k < f->nev; k++)
		if (f->ev[k].metric == m)
			return f->ev[k].median;
	return NAN;
}

/* The hosts of the findings of key k in f's scope, each once, in finding order ("esx01, esx02"; a
 * finding's host may itself be such a list). */
static void hosts_of(const struct analysis *a, enum act_key k, const struct finding *f, struct buf *b)
{
	int n = 0;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *g = &a->f[i];
		if (key_of(a, g) != k || !same_scope(a, k, f, g) || !g->host || !*g->host)
			continue;
		for (const char *p = g->host; *p;) {
			size_t len = strcspn(p, ",");
			struct buf one;
			buf_init(&one);
			buf_add(&one, p, len);
			p += len;
			while (*p == ',' || *p == ' ')
				p++;
			bool dup = !one.len;
			/* said already: the list holds it between separators */
			for (const char *q = b->data; !dup && q && *q;) {
				size_t l2 = strcspn(q, ",");
				dup = l2 == one.len && strncmp(q, one.data, l2) == 0;
				q += l2;
				while (*q == ',' || *q == ' ')
					q++;
			}
			if (!dup)
				buf_printf(b, "%s%s", n++ ? ", " : "", one.data);
			buf_free(&one);
		}
	}
}

static void action_text(const struct analysis *a, enum act_key k, const struct finding *f, struct action *ac)
{
	struct buf who, ds;
	buf_init(&who);
	buf_init(&ds);
	buf_adds(&who, f->entity ? f->entity : "");
	if (k == AK_QFULL && f->layer != LAYER_GUEST && f->layer != LAYER_VSCSI) {
		struct buf hs;
		buf_init(&hs);
		hosts_of(a, k, f, &hs);
		if (hs.len)
			buf_printf(&who, " on host%s %s", strchr(hs.data, ',') ? "s" : "", hs.data);
		buf_free(&hs);
	} else if (f->host && *f->host && f->layer != LAYER_GUEST && f->layer != LAYER_VSCSI)
		buf_printf(&who, " on host %s", f->host);
	disks_of(a, k, f, &ds);
	const char *host = f->host && *f->host ? f->host : "the VM";
	const char *ent = who.data ? who.data : "";
	const char *disks = ds.data ? ds.data : "";
	switch (k) {
	case AK_PVSCSI:
		ac->what = fmtx("Move the busy disks of %s (%s) from the LSI Logic SAS controller to VMware Paravirtual "
				"(PVSCSI), ideally one controller per busy disk.", host, disks);
		ac->effect = fmtx("The per-disk queue grows from 32 to 64 IOs (254 with MaxQueueDepth), so IOs stop waiting "
				  "inside the VM and its disk latency falls toward what the host sees; then check that the "
				  "LUN queue and the array absorb the deeper queue.");
		break;
	case AK_GUEST_PATH:
		ac->what = fmtx("Check the IO path inside %s (%s): the virtual controller type and its busiest disk, guest "
				"CPU, and filter drivers such as antivirus or backup agents.", host, disks);
		ac->effect = fmtx("Removes the time IOs spend inside the VM before they reach the host, which the host "
				  "does not see.");
		break;
	case AK_DEVICE_QUEUE: {
		double davg = ev_median(f, M_DAVG);
		if (f->done) {
			/* the capture shows the queue depth raised and the queueing ended */
			ac->what = fmtx("Keep the queue depth of LUN %s where it was raised during the capture: the queueing "
					"ended with it (see the queue depth change finding).", ent);
			ac->effect = fmtx("Nothing more to raise; check that the array's latency (DAVG) stays low at the "
					  "higher load.");
			break;
		}
		if (f->driver && f->victims) {
			/* a neighbour fills the LUN: separate the workloads first */
			ac->what = fmtx("Separate %s from %s on LUN %s: move one of them to another LUN, or give %s its own "
					"LUN (%s issues %.0f%% of the LUN's commands while %s waits).", f->victims, f->driver, ent,
					f->victim_vdisk ? f->victim_vdisk : f->victims, f->driver, 100 * f->driver_share,
					f->victims);
			ac->effect = fmtx("%s no longer waits behind %s's IO in the LUN's queue; a deeper queue alone would let "
					  "%s take more of it.", f->victims, f->driver, f->driver);
			break;
		}
		if (!isnan(davg) && davg >= 10)
			ac->what = fmtx("Spread the busy virtual disks of LUN %s over more LUNs (the array answers slowly, so "
					"a deeper queue would not help).", ent);
		else
			ac->what = fmtx("Raise the queue depth of LUN %s (the HBA driver's per-LUN depth, DQLEN) or spread "
					"its busy virtual disks over more LUNs.", ent);
		ac->effect = fmtx("IOs stop queueing in the ESXi kernel (KAVG back near 0 ms); do this only while the "
				  "array's latency (DAVG) stays under 10 ms.");
		break;
	}
	case AK_ADAPTER:
		if (f->done) {
			ac->what = fmtx("Keep the queue depth of adapter %s where it was raised during the capture: the "
					"queueing ended with it.", ent);
			ac->effect = fmtx("Nothing more to raise.");
			break;
		}
		ac->what = fmtx("Spread the LUNs of adapter %s over more HBAs or paths, or raise the adapter queue depth.", ent);
		ac->effect = fmtx("The host stops queueing IOs at the adapter shared by all its LUNs.");
		break;
	case AK_ARRAY:
		if (f->nondata) {
			ac->what = fmtx("Find what sends LUN %s its non-read/write commands while it is slow (UNMAP space "
					"reclamation, ATS, XCOPY/WRITE SAME: esxtop's VAAI statistics, the VMFS6 reclamation "
					"settings, guest TRIM) and reschedule or throttle it.", ent);
			ac->effect = fmtx("The LUN answers as fast as without them; queue depths and the array's data path are not "
					  "the problem.");
			break;
		}
		ac->what = fmtx("Ask the storage team to check the array behind LUN %s: its service time (DAVG) is high.", ent);
		ac->effect = fmtx("Lower latency for every VM on that LUN; do not raise queue depths while the array is slow "
				  "(deeper queues make it worse).");
		break;
	case AK_QFULL:
		ac->what = fmtx("Ask the storage team why the array returns QUEUE FULL for %s, and lower the outstanding IO "
				"per LU (queue depths, busy VMs per LUN) to what the array port accepts.", ent);
		ac->effect = strstr(ent, " on hosts ")
				     ? fmtx("The hosts stop halving their queue depth and waiting for it to climb back.")
				     : fmtx("The host stops halving its queue depth and waiting for it to climb back.");
		break;
	case AK_SIOC:
		ac->what = fmtx("Review the other workloads on the datastore of %s and its Storage I/O Control threshold and "
				"shares.", ent);
		ac->effect = fmtx("SIOC stops throttling the queue of this host's VMs.");
		break;
	case AK_DSNRO:
		if (f->driver && f->victims)
			ac->what = fmtx("Place %s and %s on separate LUNs (%s issues %.0f%% of the commands of %s), or raise "
					"Disk.SchedNumReqOutstanding (DSNRO) of %s to its queue depth.", f->driver, f->victims,
					f->driver, 100 * f->driver_share, ent, ent);
		else
			ac->what = fmtx("Raise Disk.SchedNumReqOutstanding (DSNRO) of %s to its queue depth, or place the busy VMs "
					"on separate LUNs.", ent);
		ac->effect = fmtx("The LUN's queue is no longer capped at 32 IOs while several VMs are active.");
		break;
	case AK_SPLIT:
		ac->what = fmtx("Check the IO size and fragmentation of %s (%s): Windows splits its IOs.", host, disks);
		ac->effect = fmtx("Fewer, larger back-end IOs for the same work.");
		break;
	case AK_ALIGN:
		ac->what = fmtx("Move the data of %s (%s) to a new partition aligned at 1 MiB.", host, disks);
		ac->effect = fmtx("One back-end IO per guest IO instead of two; lower latency under load.");
		break;
	case AK_PATHS:
		ac->what = fmtx("Check the paths, the HBA and the fabric of %s: commands were aborted or reset.", ent);
		ac->effect = fmtx("No more IOs lost to aborts and resets (each costs seconds).");
		break;
	case AK_QOS:
		ac->what = fmtx("Raise or remove the Storage QoS maximum on %s (Get-VMHardDiskDrive, Get-StorageQosPolicy): "
				"it holds the disk at about %.0f normalized IOPS while the storage below has room.", ent,
				ev_median(f, M_HV_NIOPS));
		ac->effect = fmtx("The VHDX answers at its storage's latency again (Lower Latency); the volume and the LUN need "
				  "no change.");
		break;
	case AK_CSV_REDIRECTED:
		ac->what = fmtx("End the redirected mode of Cluster Shared Volume %s (Get-ClusterSharedVolumeState "
				"gives the reason: a backup snapshot, a manual redirect, lost storage paths, ReFS, BitLocker).",
				ent);
		ac->effect = fmtx("Its VHDX files' IO goes straight to the LUN instead of over the network to the "
				  "coordinator node.");
		break;
	case AK_HOST_DISK:
		if (f->driver && f->victims)
			ac->what = fmtx("Cap %s with a Storage QoS maximum or move its VHDX to another volume: it issues %.0f%% "
					"of the IO on host disk %s while %s waits.", f->driver, 100 * f->driver_share, ent,
					f->victims);
		else
			ac->what = fmtx("Ask the storage team to check the LUN behind host disk %s (its latency is high), and "
					"spread the busy VHDX files over more volumes.", ent);
		ac->effect = fmtx("Lower latency for every VHDX on that disk.");
		break;
	case AK_VD_ABOVE:
		if (model_hyperv(&a->m, f->capture >= 0 ? (size_t)f->capture : SIZE_MAX)) {
			ac->what = fmtx("Check VHDX %s for a checkpoint chain (delete or merge the checkpoints), a dynamic or "
					"differencing disk growing (convert it to fixed) and host filter drivers: the storage "
					"below it answers fast.", ent);
			ac->effect = fmtx("The VHDX answers at its storage's latency again.");
			break;
		}
		ac->what = fmtx("Check virtual disk %s for snapshots (consolidate or delete them), CBT-based backup or "
				"replication running at this time and IO filters on it: its LUN answers fast.", ent);
		ac->effect = fmtx("The disk answers at its LUN's latency again; nothing to change on the LUN or the array.");
		break;
	case AK_CPU:
		if (model_hyperv(&a->m, f->capture >= 0 ? (size_t)f->capture : SIZE_MAX)) {
			/* one action for the host: its VMs that wait, the ones that run most named */
			struct buf vms, busy;
			buf_init(&vms);
			buf_init(&busy);
			int n = 0;
			double host_run = NAN;
			const struct finding *top[2] = {NULL, NULL};
			for (size_t i = 0; i < a->nf; i++) {
				const struct finding *g = &a->f[i];
				if (g->kind != K_CPU_CONTENTION || g->sev < SEV_WARNING || g->capture != f->capture)
					continue;
				buf_printf(&vms, "%s%s", n++ ? ", " : "", g->entity);
				double run = ev_median(g, M_HV_VP_RUN), lp = ev_median(g, M_HV_LP_RUN);
				host_run = isnan(host_run) ? lp : host_run;
				for (int t = 0; t < 2; t++)
					if (!isnan(run) && (!top[t] || run > ev_median(top[t], M_HV_VP_RUN))) {
						if (t == 0)
							top[1] = top[0];
						top[t] = g;
						break;
					}
			}
			for (int t = 0; t < 2 && n > 2; t++)
				if (top[t])
					buf_printf(&busy, "%s%s %.0f%%", t ? ", " : "", top[t]->entity, ev_median(top[t], M_HV_VP_RUN));
			char lp[64] = "";
			if (!isnan(host_run))
				snprintf(lp, sizeof lp, " (its logical processors %.0f%% busy)", host_run);
			if (n > 1)
				ac->what = fmtx("Give the Hyper-V host %s CPU time for its VMs: the virtual processors of %s wait for "
						"a logical processor%s. Move or cap the VMs that run most%s%s%s (Live Migration; "
						"Set-VMProcessor -Maximum / -RelativeWeight), reduce vCPU over-commit or add hosts.",
						f->host ? f->host : "", vms.data, lp, busy.len ? " (% Guest Run Time: " : "",
						busy.len ? busy.data : "", busy.len ? ")" : "");
			else
				ac->what = fmtx("Give the virtual processors of %s CPU time: move VMs off its Hyper-V host or "
						"add hosts, reduce vCPU over-commit, check its processor limit and weight "
						"(Set-VMProcessor).", ent);
			buf_free(&vms);
			buf_free(&busy);
			ac->effect = fmtx("IO completions and everything else in the VMs stop waiting for a logical processor; "
					  "storage changes would not help.");
			break;
		}
		ac->what = fmtx("Give the vCPUs of %s CPU time on its host: fewer vCPUs for it or its neighbours (co-stop), "
				"move VMs off the host or add CPU capacity (ready), remove a CPU limit.", ent);
		ac->effect = fmtx("IO completions and everything else in the VM stop waiting for a physical CPU; storage "
				  "changes would not help.");
		break;
	case AK_HBA:
		ac->what = fmtx("Check the HBA %s, its cable and SFP and its fabric switch port (error counters), and take its "
				"paths out of service until it is repaired: its paths are slow while the other adapters' are "
				"fast.", ent);
		ac->effect = fmtx("IO to the LUNs behind it is served at the healthy adapter's latency; no change to the "
				  "array or the LUNs is needed.");
		break;
	case AK_PATH_RESTORE:
		ac->what = fmtx("Restore the optimised path of LUN %s: its IO moved to a slower path during the capture.", ent);
		ac->effect = fmtx("The LUN's latency returns to what it was before the path change.");
		break;
	case AK_DATASTORE:
		ac->what = fmtx("Ask the storage team to check the datastore of %s: its latency is high.", ent);
		ac->effect = fmtx("Lower latency for the VMs on that datastore.");
		break;
	default: {
		bool host_side = false;
		for (size_t i = 0; i < a->m.ncaps; i++)
			host_side |= !a->m.caps[i].failed && a->m.caps[i].role == ROLE_HOST;
		if (host_side && a->verdict_where == VW_BELOW_HBA)
			ac->what = fmtx("Ask the storage team why the LUN of %s (%s) answers slowly: the time is spent below "
					"the ESXi host's HBA (the array's write cache, replication, the LUN's load or the "
					"fabric), though under the device rule.", host, disks);
		else if (host_side && a->verdict_where == VW_UNTOLD)
			ac->what = fmtx("Tie the slow disks of %s (%s) to their virtual disks (per-disk LogicalDisk counters in "
					"perfmon, or a --map line), so the captures can show where their IO waits.", host, disks);
		else if (host_side)
			ac->what = fmtx("Find where the IO of %s (%s) waits below the VM: the host captures show no queue "
					"there, so check the datastore and the array with the storage team.", host, disks);
		else
			ac->what = fmtx("Capture the host of %s at the same time as perfmon (esxtop on VMware, the host's own "
					"perfmon on Hyper-V), to see where its IO waits (%s).", host, disks);
		ac->effect = a->verdict_where == VW_BELOW_HBA
				     ? fmtx("The guest's latency falls with the LUN's; nothing in the VM or the host would shorten it.")
				     : fmtx("Tells which layer to fix; the guest's latency alone cannot.");
		break;
	}
	}
	struct buf bc;
	buf_init(&bc);
	buf_adds(&bc, kinds[f->kind].title);
	buf_adds(&bc, " on ");
	entity_words(&bc, f);
	ac->because = bc.data;
	buf_free(&who);
	buf_free(&ds);
}

/* Whether cause g is on the IO stack of symptom f's disk (its virtual disk, a Hyper-V VHDX's
 * volume, LUN or adapter). */
static bool on_stack(const struct topo_in *ti, const struct finding *f, const struct finding *g)
{
	struct stack st;
	topology_stack(ti, finding_entity(ti, f, -1), &st);
	const struct entity *e = finding_entity(ti, g, -1);
	return e && (e == st.vdisk || e == st.device || e == st.adapter || e == st.volume);
}

static void actions_of_analysis(const struct analysis *a, struct exec_summary *s)
{
	int lead[SUMMARY_MAX_ACTIONS];
	enum act_key keys[SUMMARY_MAX_ACTIONS];
	/* causes first (each finding's step) — what sets a LUN's queue depth (the array's QUEUE FULL,
	 * SIOC, DSNRO) before the queue it sets —, then symptoms join a cause on their machine or
	 * their disk's stack */
	struct topo_in ti = analysis_topo(a);
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < a->nf; i++) {
			const struct finding *f = &a->f[i];
			if (f->sev < SEV_WARNING && pass < 2)
				continue;
			enum act_key k = key_of(a, f);
			bool sets_depth = k == AK_QFULL || k == AK_SIOC || k == AK_DSNRO;
			if ((k == AK_SYMPTOM) != (pass == 2) || (pass == 0 && !sets_depth) || (pass == 1 && sets_depth))
				continue;
			int hit = -1;
			for (int j = 0; j < s->nactions && hit < 0; j++) {
				const struct finding *g = &a->f[lead[j]];
				if (keys[j] == k && same_scope(a, k, f, g))
					hit = j;
				/* a full device queue while the array returns QUEUE FULL is its consequence:
				 * a deeper queue would make it worse */
				if (hit < 0 && k == AK_DEVICE_QUEUE && keys[j] == AK_QFULL && same_scope(a, AK_QFULL, f, g))
					hit = j;
				/* ... as is one that SIOC or DSNRO holds down: raising DQLEN has no effect */
				if (hit < 0 && k == AK_DEVICE_QUEUE && (keys[j] == AK_SIOC || keys[j] == AK_DSNRO) &&
				    same_scope(a, keys[j], f, g))
					hit = j;
				/* a symptom joins the cause on the same machine, or on its disk's stack below */
				if (hit < 0 && k == AK_SYMPTOM && keys[j] != AK_SYMPTOM && f->host && g->host &&
				    strcmp(f->host, g->host) == 0 && (keys[j] == AK_PVSCSI || keys[j] == AK_GUEST_PATH))
					hit = j;
				if (hit < 0 && k == AK_SYMPTOM && keys[j] != AK_SYMPTOM && on_stack(&ti, f, g))
					hit = j;
				/* ... or the CPU action of its own VM (the guest's wait is the CPU's) */
				for (size_t c = 0; hit < 0 && k == AK_SYMPTOM && keys[j] == AK_CPU && f->host && c < a->nf; c++)
					if (a->f[c].kind == K_CPU_CONTENTION && a->f[c].sev >= SEV_WARNING &&
					    strcasecmp(a->f[c].entity, f->host) == 0 && same_scope(a, AK_CPU, &a->f[c], g))
						hit = j;
			}
			if (hit >= 0) {
				struct action *ac = &s->act[hit];
				if (ac->nwhy < SUMMARY_MAX_WHY)
					ac->why[ac->nwhy++] = i + 1;
				continue;
			}
			if (s->nactions == SUMMARY_MAX_ACTIONS || f->sev < SEV_WARNING)
				continue;
			struct action *ac = &s->act[s->nactions];
			memset(ac, 0, sizeof *ac);
			action_text(a, k, f, ac);
			ac->why[ac->nwhy++] = i + 1;
			lead[s->nactions] = (int)i;
			keys[s->nactions] = k;
			s->nactions++;
		}
	}
	/* an action said twice is one: the later joins the first with its findings */
	for (int j = 0; j < s->nactions; j++)
		for (int i = j + 1; i < s->nactions;) {
			struct action *x = &s->act[j], *y = &s->act[i];
			if (!x->what || !y->what || strcmp(x->what, y->what) != 0) {
				i++;
				continue;
			}
			for (int w = 0; w < y->nwhy && x->nwhy < SUMMARY_MAX_WHY; w++)
				x->why[x->nwhy++] = y->why[w];
			free(y->what);
			free(y->effect);
			free(y->because);
			memmove(y, y + 1, (size_t)(s->nactions - i - 1) * sizeof *y);
			s->nactions--;
		}
	/* findings are worst first; keep that order, and the why lists ascending */
	for (int j = 0; j < s->nactions; j++) {
		struct action *ac = &s->act[j];
		for (int x = 1; x < ac->nwhy; x++)
			for (int y = x; y > 0 && ac->why[y] < ac->why[y - 1]; y--) {
				size_t t = ac->why[y];
				ac->why[y] = ac->why[y - 1];
				ac->why[y - 1] = t;
			}
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

void summary_of_analysis(const struct analysis *a, const struct ltime *lt, struct exec_summary *s)
{
	memset(s, 0, sizeof *s);
	const struct model *m = &a->m;
	int64_t t0, t1;
	span_of(m, &t0, &t1);
	s->tone = analysis_worst(a);
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
	const struct finding *mf = main_finding(a);
	/* the headline says what the verdict says (where IO waits, or that it cannot be told) */
	const struct finding *vf = a->verdict_first >= 0 && (size_t)a->verdict_first < a->nf ? &a->f[a->verdict_first] : NULL;
	bool sql = a->sql && a->sql->n;
	if (mf && mf->sev >= SEV_WARNING) {
		struct buf h;
		buf_init(&h);
		if (a->verdict_where == VW_PLACES && vf && kinds[vf->kind].place == VP_CPU) {
			buf_printf(&h, "The %s waits for CPU, not for storage: its %s", sql ? "SQL Server VM" : "VM",
				   analysis_hyperv(a) ? "virtual processors wait for a logical processor of the Hyper-V host"
						      : "vCPUs wait for a physical CPU of the ESXi host");
		} else if (a->verdict_where == VW_PLACES && vf && vf->kind == K_LAT_VD_ABOVE) {
			buf_adds(&h, analysis_hyperv(a) ? "Storage IO waits in the Hyper-V host above its disk, on one VHDX (a "
							  "checkpoint, a dynamic or differencing disk, a filter)"
							: "Storage IO waits in the ESXi host above the LUN, on one virtual disk (a snapshot, "
							  "CBT or an IO filter)");
		} else if (a->verdict_where == VW_PLACES && vf) {
			buf_printf(&h, "Storage IO waits %s", kinds[vf->kind].place == VP_DATASTORE
								   ? "in the datastore below the ESXi host"
								   : where_words(vf->kind, sql, analysis_hyperv(a)));
		} else if (a->verdict_where == VW_BELOW_HBA && vf) {
			buf_adds(&h, "Storage IO is slow on ");
			entity_words(&h, vf);
			buf_adds(&h, "; most of its time is spent below the ESXi host's HBA, in the array or the fabric");
		} else if ((a->verdict_where == VW_BELOW_GUEST || a->verdict_where == VW_UNTOLD) && vf) {
			buf_adds(&h, "Storage IO is slow on ");
			entity_words(&h, vf);
			buf_adds(&h, a->verdict_where == VW_BELOW_GUEST ? "; it waits below the guest, and these captures do not show where"
								  : "; where it waits cannot be told from these captures");
		} else {
			/* findings to act on, but no IO wait in the stack (a misaligned partition, errors) */
			buf_adds(&h, "No IO wait found in the stack; to act on: ");
			const char *t = kinds[mf->kind].title;
			buf_addc(&h, t[0] >= 'A' && t[0] <= 'Z' && !(t[1] >= 'A' && t[1] <= 'Z') ? (char)(t[0] - 'A' + 'a') : t[0]);
			buf_adds(&h, t + 1);
			buf_adds(&h, " on ");
			entity_words(&h, mf);
		}
		s->headline = h.data;
		buf_adds(&b, "The worst: ");
		buf_adds(&b, kinds[mf->kind].title);
		buf_adds(&b, " on ");
		entity_words(&b, mf);
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
			buf_printf(&b, "; the guest felt it as %s latency of ", gl->kind == K_LAT_GUEST_READ ? "read" : "write");
			fmt_num(&b, gl->ev[0].median, "-");
			buf_printf(&b, " %s (median) on ", metric_info[gl->ev[0].metric].unit);
			entity_words(&b, gl);
			buf_adds(&b, ", where under 20 ms is acceptable");
		}
		buf_adds(&b, ".");
		add_sentence(s, b.data);
		buf_init(&b);
		/* the layers below the wait that were fine */
		int box = kinds[mf->kind].box;
		bool below_ok = box <= BOX_VSCSI;
		for (size_t i = 0; i < a->nf && below_ok; i++)
			below_ok = a->f[i].sev < SEV_WARNING || kinds[a->f[i].kind].box <= BOX_VSCSI || kinds[a->f[i].kind].box == BOX_BY_LAYER;
		if (below_ok && a->verdict_where == VW_PLACES && a->verdict_places == (1u << VP_GUEST) &&
		    a->cov.layer[LAYER_DEVICE].status != COV_NOT_ASSESSED &&
		    a->cov.layer[LAYER_ARRAY].status != COV_NOT_ASSESSED)
			add_sentence(s, fmtx(analysis_hyperv(a) ? "The Hyper-V host and its disks were not the bottleneck: their "
								  "latency stayed within the rules, so the fix is inside the VM."
								: "The ESXi host, its storage adapter and the array were not the "
								  "bottleneck: their queues and latency stayed within the rules, so "
								  "the fix is inside the VM."));
	} else {
		int assessed = 0;
		for (int l = 0; l < COV_LAYERS; l++)
			assessed += a->cov.layer[l].status != COV_NOT_ASSESSED;
		if (!assessed) {
			/* no all-clear: nothing was judged (too short, no counters) */
			s->headline = fmtx("Nothing could be assessed");
			buf_printf(&b, "No layer could be judged (%s), so these captures neither show a problem nor clear one",
				   a->cov.layer[0].why && *a->cov.layer[0].why ? a->cov.layer[0].why : "see the coverage");
		} else {
			s->headline = fmtx(a->cov.complete ? "No storage bottleneck found"
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
		const struct sql_symptom *sy = sql_symptom(a, true);
		/* else a SQL Server wait on a disk the captures do not time */
		const struct sql_symptom *su = sy ? NULL : sql_symptom(a, false);
		if (su)
			add_sentence(s, fmtx("SQL Server waited, though: %s", su->text));
		if (sy) {
			/* the storage is fine but SQL Server waits: the one thing to act on */
			free(s->headline);
			s->headline = fmtx("No storage bottleneck found, but SQL Server waits for something else");
			add_sentence(s, fmtx("But SQL Server waited without a storage cause: %s", sy->text));
		} else if (a->nf) {
			add_sentence(s, fmtx("%zu note%s of information only.", a->nf, a->nf == 1 ? " is" : "s are"));
		}
	}
	/* what the captures could not show, and what the selection left out */
	int nna = 0, nfl = 0;
	struct buf fl;
	buf_init(&fl);
	const char *const *lw = analysis_hyperv(a) ? hv_layer_words : layer_words;
	for (int l = 0; l < COV_LAYERS; l++) {
		if (a->cov.layer[l].status != COV_NOT_ASSESSED)
			continue;
		if (a->cov.layer[l].reason == COVR_FILTERED)
			buf_printf(&fl, "%s%s", nfl++ ? ", " : "", lw[l]);
		else
			buf_printf(&b, "%s%s", nna++ ? ", " : "", lw[l]);
	}
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
		if (a->cov.complete)
			add_sentence(s, fmtx("The captures show every layer from Windows down to the array."));
	}
	actions_of_analysis(a, s);
	const struct sql_symptom *sy = sql_symptom(a, true);
	if (sy && s->nactions < SUMMARY_MAX_ACTIONS) {
		struct action *ac = &s->act[s->nactions++];
		memset(ac, 0, sizeof *ac);
		if (sy->cpu_cause && isnan(sy->ready_vcpu) && !isnan(sy->cpu_wait_us))
			ac->what = fmtx("Look outside the storage for SQL Server's %s: the VM's virtual processors wait for a "
					"logical processor (CPU Wait Time Per Dispatch %.0f µs) — check the Hyper-V host's CPU "
					"over-commit, the VM's processor count and limits.",
					sy->role == SQLR_LOG ? "log write waits" : "page IO latch waits", sy->cpu_wait_us);
		else if (sy->cpu_cause)
			ac->what = fmtx("Look outside the storage for SQL Server's %s: the VM's vCPUs wait for a physical CPU "
					"(%%RDY %.1f%% per vCPU) — check the host's CPU over-commit, the VM's vCPU count and CPU "
					"limits.", sy->role == SQLR_LOG ? "log write waits" : "page IO latch waits", sy->ready_vcpu);
		else
			ac->what = fmtx("Look outside the storage for SQL Server's %s (CPU, memory, the instance's own waits).",
					sy->role == SQLR_LOG ? "log write waits" : "page IO latch waits");
		ac->effect = fmtx("Storage changes would not shorten these waits: the disk answers within its target.");
		ac->because = fmtx("SQL Server's wait counters against the disk's latency (SQL SERVER section)");
	}
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
	s->headline = fmtx("%s", cmp_outcome_words[sm->outcome]);
	if (c->headline)
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
	if (sm->findings_compared && sm->outcome == CO_NOT_COMPARABLE) {
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
		add_sentence(s, fmtx("SQL Server, %s", c->sql[0].text));
	if (sm->capacity_gain)
		add_sentence(s, fmtx("The after side did materially more work in its busy phase at no worse latency: a capacity "
				     "gain."));
	if (sm->outcome == CO_NOT_COMPARABLE && sm->outcome_why)
		add_sentence(s, fmtx("The captures cannot show a fix: %s.", sm->outcome_why));
	buf_free(&b);
	/* what to do next */
	if (sm->outcome == CO_NOT_COMPARABLE) {
		struct action *ac = &s->act[s->nactions++];
		memset(ac, 0, sizeof *ac);
		ac->what = fmtx("Capture the after side again during a busy period like the before side's (the same batch or "
				"ETL window), then compare again.");
		ac->effect = fmtx("Shows whether the change fixed the slow period; this pair cannot.");
		ac->because = fmtx("the after capture has no busy phase like the before capture's");
	}
	struct exec_summary after;
	summary_of_analysis(&c->side[CMP_AFTER], lt, &after);
	for (int i = 0; i < after.nactions && s->nactions < SUMMARY_MAX_ACTIONS; i++) {
		s->act[s->nactions] = after.act[i];
		s->act[s->nactions].nwhy = 0; /* finding numbers belong to the after side's own report */
		char *bc = s->act[s->nactions].because;
		s->act[s->nactions].because = fmtx("after the change: %s", bc);
		free(bc);
		after.act[i].what = after.act[i].effect = after.act[i].because = NULL;
		s->nactions++;
	}
	for (int i = 0; i < after.nactions; i++) {
		free(after.act[i].what);
		free(after.act[i].effect);
		free(after.act[i].because);
	}
	after.nactions = 0;
	summary_free(&after);
	if (!s->nactions && (sm->outcome == CO_IMPROVED || sm->outcome == CO_UNCHANGED)) {
		struct action *ac = &s->act[s->nactions++];
		memset(ac, 0, sizeof *ac);
		ac->what = fmtx(sm->outcome == CO_IMPROVED ? "Keep the change, and capture the next busy period (month-end, the "
							      "nightly batch) the same way to confirm it holds."
							    : "Look elsewhere for the slow period: this change did not move its latency.");
		ac->effect = fmtx(sm->outcome == CO_IMPROVED ? "Confirms the improvement under the heaviest load."
							     : "Avoids more changes of the same kind that cannot help.");
		ac->because = fmtx("the outcome: %s", cmp_outcome_words[sm->outcome]);
	}
}
