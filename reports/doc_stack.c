/* doc_stack.c — the IO stacks and the entities tables of an analysis as the report document's
 * blocks (doc.h): each stack the reports draw (analysis.shown) a head, a box a row with its state,
 * the finding that marks it and the medians over the finding's window, and how its layers were
 * matched; the entities a table per layer and host with their whole-capture distributions, the
 * VMs' CPU ready, and how many idle entities are left out. The HTML draws them as its IO-stack
 * picture and its entities tables; the text and Markdown say the IO path and the labelled
 * entities table of doc_analysis.c instead. */
#include "doc.h"

#include <math.h>
#include <string.h>

#include "topology.h"

/* Median of bucket means and the largest bucket max of metric m of e within [t0, t1] (aligned ms;
 * the whole capture when t0 >= t1). */
static void win_stat(const struct analysis *a, const struct entity *e, int m, int64_t t0, int64_t t1, double *med,
		     double *mx)
{
	*med = *mx = NAN;
	if (!e || e->series[m] < 0)
		return;
	const struct capture *c = &a->m.caps[e->capture];
	struct qsketch q;
	qs_init(&q);
	size_t s = (size_t)e->series[m];
	for (size_t k = 0; k < c->ds.nb; k++) {
		int64_t t = model_time(&a->m, c, k);
		if (t0 < t1 && (t < t0 || t > t1))
			continue;
		double v = ds_mean(&c->ds, s, k);
		if (isnan(v))
			continue;
		qs_add(&q, v);
		double x = ds_max(&c->ds, s, k);
		if (isnan(*mx) || x > *mx)
			*mx = x;
	}
	if (q.n)
		*med = qs_quantile(&q, 0.5);
	qs_free(&q);
}

/* A box can say "no wait found" only when its layer and its entity were assessed. */
static bool box_assessed(const struct analysis *a, int box, const struct entity *e)
{
	static const enum layer layer_of[BOX_COUNT] = {LAYER_GUEST, LAYER_VSCSI, LAYER_DEVICE, LAYER_ADAPTER,
						       LAYER_ARRAY};
	/* a Hyper-V host disk's box is judged on the host disks (perfmon has no array layer) */
	enum layer l = box == BOX_ARRAY && model_hyperv(&a->m, e->capture) ? LAYER_DEVICE : layer_of[box];
	return a->cov.layer[l].status != COV_NOT_ASSESSED && coverage_entity_assessed(&a->cov, (size_t)(e - a->m.ents));
}

/* The figures each box shows (label, metric, unit), by box, VMware's and Hyper-V's; a metric of
 * FIG_REDIR is the CSV's redirected reads and writes together, FIG_MAX the DAVG's largest. */
enum { FIG_NONE = -1, FIG_REDIR = -2, FIG_MAX = -3 };
struct box_fig {
	const char *label;
	int m;
	const char *unit;
};
static const struct box_fig box_figs[2][BOX_COUNT][STACK_FIGS] = {
    {
	[BOX_GUEST] = {{"read", M_G_LAT_R, "ms"},
		       {"write", M_G_LAT_W, "ms"},
		       {"queue", M_G_CDQL, "IOs"},
		       {"load", M_G_XFERS, "IO/s"}},
	[BOX_VSCSI] =
	    {{"read", M_VD_LAT_R, "ms"}, {"write", M_VD_LAT_W, "ms"}, {"load", M_CMDS, "IO/s"}, {NULL, FIG_NONE, NULL}},
	[BOX_KERNEL] = {{"KAVG", M_KAVG, "ms"}, {"ACTV", M_ACTV, ""}, {"DQLEN", M_DQLEN, ""}, {"QUED", M_QUED, ""}},
	[BOX_ADAPTER] =
	    {{"ACTV", M_ACTV, ""}, {"AQLEN", M_AQLEN, ""}, {"load", M_CMDS, "IO/s"}, {NULL, FIG_NONE, NULL}},
	[BOX_ARRAY] = {{"DAVG", M_DAVG, "ms"}, {"max", FIG_MAX, "ms"}, {NULL, FIG_NONE, NULL}, {NULL, FIG_NONE, NULL}},
    },
    {
	[BOX_GUEST] = {{"read", M_G_LAT_R, "ms"},
		       {"write", M_G_LAT_W, "ms"},
		       {"queue", M_G_CDQL, "IOs"},
		       {"load", M_G_XFERS, "IO/s"}},
	[BOX_VSCSI] = {{"latency", M_HV_LAT, "ms"},
		       {"below", M_HV_LOWER_LAT, "ms"},
		       {"load", M_CMDS, "IO/s"},
		       {NULL, FIG_NONE, NULL}},
	[BOX_KERNEL] = {{"read", M_H_LAT_R, "ms"},
			{"write", M_H_LAT_W, "ms"},
			{"redirected", FIG_REDIR, "IO/s"},
			{NULL, FIG_NONE, NULL}},
	[BOX_ADAPTER] =
	    {{"ACTV", M_ACTV, ""}, {"AQLEN", M_AQLEN, ""}, {"load", M_CMDS, "IO/s"}, {NULL, FIG_NONE, NULL}},
	[BOX_ARRAY] =
	    {{"read", M_H_LAT_R, "ms"}, {"write", M_H_LAT_W, "ms"}, {NULL, FIG_NONE, NULL}, {NULL, FIG_NONE, NULL}},
    },
};

/* The figure f of box i over [t0, t1]: NAN when the entity has none. */
static double box_fig_value(const struct analysis *a, const struct entity *e, const struct box_fig *f, int64_t t0,
			    int64_t t1)
{
	double m = NAN, x = NAN;
	if (f->m == FIG_MAX) {
		win_stat(a, e, M_DAVG, t0, t1, &m, &x);
		return x;
	}
	if (f->m == FIG_REDIR) {
		win_stat(a, e, M_CSV_REDIR_R, t0, t1, &m, &x);
		double rw = m;
		win_stat(a, e, M_CSV_REDIR_W, t0, t1, &m, &x);
		return isnan(rw) && isnan(m) ? NAN : (isnan(rw) ? 0 : rw) + (isnan(m) ? 0 : m);
	}
	win_stat(a, e, f->m, t0, t1, &m, &x);
	return m;
}

/* The roles of the boxes, VMware's and Hyper-V's. */
static const char *const box_roles[2][BOX_COUNT] = {
    {
	"the Windows disk SQL Server uses (perfmon)",
	"per-disk queue to the hypervisor: LSI Logic SAS 32, PVSCSI 64 (up to 254)",
	"the LUN's queue in ESXi: DQLEN slots, the rest wait (QUED, KAVG)",
	"the HBA's queue, shared by its LUNs (AQLEN)",
	"service time below the HBA: fabric and array (DAVG)",
    },
    {
	"the Windows disk SQL Server uses (perfmon)",
	"the virtual hard disk at the host's storage VSP: Latency, where Storage QoS applies",
	"the Cluster Shared Volume or volume below the VHDX (direct or redirected IO)",
	"below the host disk: not in perfmon (MPIO path health is WMI)",
	"the host disk's latency: the host's queue, its paths and the array below it",
    },
};

const char *const stack_states[SST_COUNT] = {
    [SST_ABSENT] = "not in the captures", [SST_WAITS] = "IO waits here",
    [SST_FELT] = "latency felt here",     [SST_NOTE] = "note",
    [SST_OK] = "no wait found",           [SST_NOT_ASSESSED] = "not assessed",
};

/* How stack ch's layers were tied together: a list item a link (ROLE_STACK_HOW). */
static void stack_how(const struct stack *ch, struct doc *d)
{
	struct doc_block *l = doc_block(d, DS_IOPATH, BLK_LIST, ROLE_STACK_HOW, 1);
	struct buf t;
	buf_init(&t);
	if (ch->guest && ch->vdisk && ch->map) {
		if (ch->map->automatic)
			buf_printf(&t, "guest disk = virtual disk by IOPS correlation (r = %.2f)",
				   ch->map->correlation);
		else
			buf_adds(&t, "guest disk = virtual disk from the disk map file");
		doc_row(l);
		doc_cell_text(l, t.data);
	}
	buf_reset(&t);
	if (ch->vdisk && ch->device && ch->l_dev.why)
		buf_printf(&t, "virtual disk on this LUN: %s, %s", ch->l_dev.how == LINK_ID ? "a fact" : "a guess",
			   ch->l_dev.why);
	else if (ch->vdisk && !ch->device && ch->back == BACK_NOT_SHOWN && ch->l_dev.why)
		buf_printf(&t, "virtual disk on no SCSI device of the capture: %s", ch->l_dev.why);
	if (t.len) {
		doc_row(l);
		doc_cell_text(l, t.data);
	}
	buf_reset(&t);
	if (ch->device && ch->adapter && ch->l_adp.why) {
		buf_printf(&t, "LUN behind this adapter: %s, %s", ch->l_adp.how == LINK_ID ? "a fact" : "a guess",
			   ch->l_adp.why);
		doc_row(l);
		doc_cell_text(l, t.data);
	}
	buf_free(&t);
}

/* Stack k of a->shown: its head (ROLE_STACK_HEAD), its boxes top to bottom (ROLE_STACK), how its
 * layers were matched (ROLE_STACK_HOW). */
static void stack_blocks(const struct analysis *a, size_t k, struct doc *d)
{
	const struct stack *ch = &a->shown[k].s;
	const struct finding *anchor = a->shown[k].anchor;
	struct doc_block *h = doc_block(d, DS_IOPATH, BLK_KV, ROLE_STACK_HEAD, 2);
	static const char *const keys[SH_COUNT] = {"finding", "title", "host", "entity"};
	for (int r = 0; r < SH_COUNT; r++) {
		doc_row(h);
		doc_cell_text(h, keys[r]);
		if (!anchor)
			doc_cell_none(h);
		else if (r == SH_NO)
			doc_cell_num(h, (double)(anchor - a->f) + 1);
		else
			doc_cell_text(h, r == SH_TITLE  ? kinds[anchor->kind].title
					 : r == SH_HOST ? anchor->host
							: anchor->entity);
	}
	int64_t t0 = anchor && anchor->end > anchor->start ? anchor->start : 0;
	int64_t t1 = anchor && anchor->end > anchor->start ? anchor->end : 0;
	struct box_state st[BOX_COUNT];
	struct topo_in ti = analysis_topo(a);
	topology_boxes(&ti, ch, st);
	bool hv = ch->vdisk && model_hyperv(&a->m, ch->vdisk->capture);
	const struct entity *ents[BOX_COUNT] = {ch->guest, ch->vdisk, ch->device, ch->adapter, ch->device};
	if (hv)
		ents[BOX_KERNEL] = ch->volume; /* the host storage between the VHDX and its disk: its volume */
	/* top to bottom: on Hyper-V the host disk (PhysicalDisk) is measured above MPIO and the HBA */
	static const int order[2][BOX_COUNT] = {{BOX_GUEST, BOX_VSCSI, BOX_KERNEL, BOX_ADAPTER, BOX_ARRAY},
						{BOX_GUEST, BOX_VSCSI, BOX_KERNEL, BOX_ARRAY, BOX_ADAPTER}};
	static const char *const head[SB_COUNT + 1] = {
	    "box",    "role",  "state", "severity", "why",   "host", "entity", "figure", "value", "unit",
	    "figure", "value", "unit",  "figure",   "value", "unit", "figure", "value",  "unit",  NULL};
	struct doc_block *t = doc_table(d, DS_IOPATH, NULL, head);
	t->role = ROLE_STACK;
	for (int pos = 0; pos < BOX_COUNT; pos++) {
		int i = order[hv][pos];
		const struct entity *e = ents[i];
		enum stack_state s = !e                         ? SST_ABSENT
				     : st[i].waits              ? SST_WAITS
				     : st[i].sev >= SEV_WARNING ? SST_FELT
				     : st[i].sev == SEV_INFO    ? SST_NOTE
				     : box_assessed(a, i, e)    ? SST_OK
								: SST_NOT_ASSESSED;
		doc_row(t);
		doc_cell_text(t, stack_box_names[hv][i]);
		doc_cell_text(t, box_roles[hv][i]);
		doc_cell_text(t, stack_states[s]);
		doc_cell_num(t, st[i].sev);
		if (st[i].why >= 0)
			doc_cell_text(t, kinds[st[i].why].title);
		else
			doc_cell_none(t);
		if (e && e->host)
			doc_cell_text(t, e->host);
		else
			doc_cell_none(t);
		if (e)
			doc_cell_text(t, e->name);
		else
			doc_cell_none(t);
		for (int f = 0; f < STACK_FIGS; f++) {
			const struct box_fig *bf = &box_figs[hv][i][f];
			double v = e && bf->label ? box_fig_value(a, e, bf, t0, t1) : NAN;
			if (isnan(v)) {
				doc_cell_none(t);
				doc_cell_none(t);
				doc_cell_none(t);
				continue;
			}
			doc_cell_text(t, bf->label);
			doc_cell_num(t, v);
			doc_cell_text(t, bf->unit);
		}
	}
	stack_how(ch, d);
}

void doc_stacks(const struct analysis *a, struct doc *d)
{
	bool on = d->sec[DS_IOPATH].on; /* the picture's blocks alone do not make the text's section */
	for (size_t k = 0; k < a->nshown; k++)
		stack_blocks(a, k, d);
	d->sec[DS_IOPATH].on = on;
}

/* ---- the entities tables: one per layer and host, then the VMs' CPU ready ---- */

static bool same_host(const char *x, const char *y)
{
	return (!x && !y) || (x && y && strcmp(x, y) == 0);
}

/* A VM worth listing: it owns a virtual disk in the captures, or it waited for CPU noticeably. */
static bool vm_relevant(const struct model *m, const struct entity *vm)
{
	if (entity_sk(vm, M_RDY)->n && qs_quantile(entity_sk(vm, M_RDY), 0.95) >= 5)
		return true;
	size_t n = strlen(vm->name);
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->outside)
			continue;
		if (e->layer == LAYER_VSCSI && strncmp(e->name, vm->name, n) == 0 && vdisk_ctrl(e->name) == e->name + n)
			return true;
	}
	return false;
}

/* The quantiles p[0..n-1] of m (and its max): a cell each, none at all when m has no samples. */
static void quantiles(struct doc_block *t, const struct entity *e, int m, int n, bool with_max)
{
	static const double ps[] = {0.5, 0.95, 0.99};
	const struct qsketch *q = entity_sk(e, m);
	for (int i = 0; i < n + with_max; i++)
		if (!q->n)
			doc_cell_none(t);
		else
			doc_cell_num(t, i < n ? qs_quantile(q, ps[i]) : q->max);
}

/* The headings of each table (ROLE_ENT_GROUP): a group's first column "name\nsub", its next ones
 * "/" (drawn "a / b"), "\n" (on the next line) or "–" (a range: left out when the cell is none);
 * "" an empty column. */
#define G3 "/", "/"
#define G4 "/", "/", "/"
enum { ENT_GUEST, ENT_VSCSI, ENT_DEVICE, ENT_ADAPTER, ENT_VHDX, ENT_HOSTDISK, ENT_GROUPS };
static const char *const ent_heads[ENT_GROUPS][20] = {
    [ENT_GUEST] = {"host", "Disk", "IO/s\np50 / p95 / max", G3, "MB/s\np50 / p95", "/",
		   "Read ms\np50 / p95 / p99 / max", G4, "Write ms\np50 / p95 / p99 / max", G4,
		   "Current queue\np50 / p95 / max", G3, NULL},
    [ENT_VSCSI] = {"host", "Virtual disk", "IO/s\np50 / p95 / max", G3, "MB/s\nread / write, mean", "/",
		   "Read ms\np50 / p95 / p99 / max", G4, "Write ms\np50 / p95 / p99 / max", G4, "", NULL},
    [ENT_DEVICE] = {"host", "Device", "IO/s\np50 / p95 / max", G3, "MB/s\nread / write, mean", "/",
		    "DAVG ms\np50 / p95 / p99 / max", G4, "KAVG ms\np50 / p95 / p99 / max", G4,
		    "ACTV / QUED p95\nDQLEN min\xe2\x80\x93max", "/", "\n", "\xe2\x80\x93", NULL},
    [ENT_ADAPTER] = {"host", "Adapter", "IO/s\np50 / p95 / max", G3, "MB/s\nread / write, mean", "/",
		     "DAVG ms\np50 / p95 / p99 / max", G4, "KAVG ms\np50 / p95 / p99 / max", G4,
		     "ACTV / QUED p95\nAQLEN max", "/", "\n", NULL},
    [ENT_VHDX] = {"host", "VHDX", "IO/s\np50 / p95 / max", G3, "MB/s\nread / write, mean", "/",
		  "Latency ms\np50 / p95 / p99 / max", G4, "Lower latency ms\np50 / p95 / p99 / max", G4,
		  "Normalized IOPS\np50 / p95", "/", NULL},
    [ENT_HOSTDISK] = {"host", "Host disk", "IO/s\np50 / p95 / max", G3, "MB/s\nread / write, mean", "/",
		      "Read ms\np50 / p95 / p99 / max", G4, "Write ms\np50 / p95 / p99 / max", G4,
		      "Current queue\np50 / p95 / max", G3, NULL},
};
static const char *const ent_titles[ENT_GROUPS] = {"Guest disks (perfmon)",     "Virtual disks (esxtop)",
						   "Devices / LUNs (esxtop)",   "Adapters (esxtop)",
						   "VHDX files (Hyper-V host)", "Host disks (Hyper-V host)"};

/* Entity e's row of its table (g: its ENT_ group). */
static void ent_row(struct doc_block *t, const struct entity *e, int g, const char *host)
{
	doc_row(t);
	doc_cell_text(t, host);
	doc_cell_text(t, e->name);
	quantiles(t, e, e->layer == LAYER_GUEST ? M_G_XFERS : M_CMDS, 2, true);
	if (g == ENT_GUEST) {
		quantiles(t, e, M_G_MBPS, 2, false);
		quantiles(t, e, M_G_LAT_R, 3, true);
		quantiles(t, e, M_G_LAT_W, 3, true);
		quantiles(t, e, M_G_CDQL, 2, true);
		return;
	}
	doc_cell_num(t, entity_mean(e, M_MBR));
	doc_cell_num(t, entity_mean(e, M_MBW));
	if (g == ENT_VHDX || g == ENT_HOSTDISK) {
		bool v = g == ENT_VHDX;
		quantiles(t, e, v ? M_HV_LAT : M_H_LAT_R, 3, true);
		quantiles(t, e, v ? M_HV_LOWER_LAT : M_H_LAT_W, 3, true);
		quantiles(t, e, v ? M_HV_NIOPS : M_H_CDQL, 2, !v);
		return;
	}
	if (g == ENT_VSCSI) {
		quantiles(t, e, M_VD_LAT_R, 3, true);
		quantiles(t, e, M_VD_LAT_W, 3, true);
		doc_cell_none(t);
		return;
	}
	quantiles(t, e, M_DAVG, 3, true);
	quantiles(t, e, M_KAVG, 3, true);
	doc_cell_num(t, entity_sk(e, M_ACTV)->n ? qs_quantile(entity_sk(e, M_ACTV), 0.95) : NAN);
	doc_cell_num(t, entity_sk(e, M_QUED)->n ? qs_quantile(entity_sk(e, M_QUED), 0.95) : NAN);
	const struct qsketch *q = entity_sk(e, g == ENT_DEVICE ? M_DQLEN : M_AQLEN);
	if (g == ENT_ADAPTER) {
		doc_cell_num(t, q->n ? q->max : NAN);
		return;
	}
	doc_cell_num(t, q->n ? q->min : NAN);
	if (q->n && q->max != q->min)
		doc_cell_num(t, q->max);
	else
		doc_cell_none(t);
}

/* The active entities of layer l on the host of entity h (the first of its host in l), a table
 * per kind of entity (a Hyper-V host's VHDX files and host disks have their own); *idle counts
 * the inactive ones. */
static void ent_host_tables(const struct analysis *a, size_t h, size_t *idle, struct doc *d)
{
	const struct model *m = &a->m;
	const struct entity *he = &m->ents[h];
	struct doc_block *t = NULL;
	for (size_t i = h; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->layer != he->layer || !same_host(e->host, he->host))
			continue;
		if (!entity_active(e, &a->rules)) {
			(*idle)++;
			continue;
		}
		bool ehv = model_hyperv(m, e->capture) && (e->layer == LAYER_VSCSI || e->layer == LAYER_DEVICE);
		int g = e->layer == LAYER_GUEST    ? ENT_GUEST
			: e->layer == LAYER_VSCSI  ? (ehv ? ENT_VHDX : ENT_VSCSI)
			: e->layer == LAYER_DEVICE ? (ehv ? ENT_HOSTDISK : ENT_DEVICE)
						   : ENT_ADAPTER;
		if (!t) { /* the first active entity names the table */
			t = doc_table(d, DS_ENTITIES, ent_titles[g], ent_heads[g]);
			t->role = ROLE_ENT_GROUP;
		}
		ent_row(t, e, g, he->host ? he->host : "unknown host");
	}
}

/* The VMs with disks in the captures, or that waited for CPU, with their CPU ready. */
static void ent_vms(const struct analysis *a, struct doc *d)
{
	static const char *const head[] = {"Host", "VM", "CPU %Ready\np50 / p95 / p99 / max", G4, NULL};
	struct doc_block *t = NULL;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->outside || e->layer != LAYER_VM || !entity_sk(e, M_RDY)->n || !vm_relevant(&a->m, e))
			continue;
		if (!t) {
			t = doc_table(d, DS_ENTITIES, "Virtual machines with disks in the captures (esxtop CPU)", head);
			t->role = ROLE_ENT_VMS;
		}
		doc_row(t);
		doc_cell_text(t, e->host);
		doc_cell_text(t, e->name);
		quantiles(t, e, M_RDY, 3, true);
	}
}

void doc_entity_tables(const struct analysis *a, struct doc *d)
{
	bool on = d->sec[DS_ENTITIES].on; /* the HTML's tables alone do not make the text's section */
	const struct model *m = &a->m;
	static const enum layer layers[] = {LAYER_GUEST, LAYER_VSCSI, LAYER_DEVICE, LAYER_ADAPTER};
	size_t idle = 0;
	for (size_t g = 0; g < sizeof layers / sizeof layers[0]; g++)
		for (size_t h = 0; h < m->nents; h++) {
			/* one table per host: h is the first entity of its host in this layer */
			const struct entity *he = &m->ents[h];
			if (he->layer != layers[g])
				continue;
			bool seen = false;
			for (size_t k = 0; k < h && !seen; k++)
				seen = m->ents[k].layer == layers[g] && same_host(m->ents[k].host, he->host);
			if (!seen)
				ent_host_tables(a, h, &idle, d);
		}
	ent_vms(a, d);
	if (idle) {
		struct doc_block *b = doc_block(d, DS_ENTITIES, BLK_PARA, ROLE_ENT_IDLE, 1);
		b->text = xprintf("%zu idle entit%s (below %g IO/s on average) not shown", idle,
				  idle == 1 ? "y" : "ies", rule_value(&a->rules, R_ACTIVE_IOPS));
	}
	d->sec[DS_ENTITIES].on = on;
}
