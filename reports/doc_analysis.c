/* doc_analysis.c — the generated sections of an analysis report, built once into the document
 * (doc.h): what the captures said about the consultant's inputs, the disk map, the overridden
 * rules, coverage, the IO path, SQL Server, the busiest entities and the methodology appendix. */
#include "doc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fmt.h"

/* side: NULL for an analysis, "before"/"after" for a side of a comparison (its own table). */
static void inputs_sec(const struct analysis *a, const char *side, struct doc *d)
{
	if (!a->ninputs)
		return;
	static const char *const head[] = {"input", "given", "what the captures said", "status", NULL};
	char cap[128];
	snprintf(cap, sizeof cap, "Each option and file given for %s%s, with what the captures said about it.",
		 side ? "the side " : "this analysis", side ? side : "");
	struct doc_block *t = doc_table(d, DS_INPUTS, cap, head);
	struct buf g;
	buf_init(&g);
	for (size_t i = 0; i < a->ninputs; i++) {
		const struct input_said *in = &a->inputs[i];
		buf_reset(&g);
		if (in->file)
			buf_adds(&g, in->file);
		if (in->file && in->line)
			buf_printf(&g, ":%ld", in->line);
		doc_row(t);
		doc_cell_text(t, in->option);
		doc_cell_text(t, g.data ? g.data : "");
		doc_cell_text(t, in->text);
		doc_cell_text(t, input_state_names[in->state]);
	}
	buf_free(&g);
	if (a->inputs_more)
		doc_para(d, DS_INPUTS, "%zu more line%s of the same inputs were checked as the ones above; the warnings on "
				       "standard error list each.", a->inputs_more, a->inputs_more == 1 ? "" : "s");
}

/* The captures read, a row each (side: NULL, or "before"/"after" for a comparison's side). */
static void captures_sec(const struct analysis *a, const char *side, struct doc *d)
{
	static const char *const head[] = {"file", "format", "host", "start", "end", "rows", NULL};
	char cap[64];
	snprintf(cap, sizeof cap, "The captures %s%s", side ? "of the side " : "read", side ? side : "");
	struct doc_block *t = doc_table(d, DS_CAPTURES, side ? cap : NULL, head);
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		doc_row(t);
		doc_cell_text(t, c->path);
		if (c->failed) {
			doc_cell_text(t, "could not be read");
			continue;
		}
		doc_cell_text(t, c->format);
		doc_cell_text(t, c->host ? c->host : "?");
		doc_cell_time(t, c->start + c->clock_offset_ms);
		doc_cell_time(t, c->end + c->clock_offset_ms);
		doc_cell_num(t, (double)c->rows);
	}
}

static void inputs_of(const struct analysis *a, struct doc *d)
{
	inputs_sec(a, NULL, d);
}

static void diskmap_sec(const struct analysis *a, struct doc *d)
{
	if (!a->nmap)
		return;
	doc_note(d, DS_DISKMAP, "guest disk = virtual disk");
	for (size_t i = 0; i < a->nmap; i++) {
		const struct diskmap_entry *m = &a->map[i];
		char r[64] = "";
		if (m->automatic)
			snprintf(r, sizeof r, "   (found by correlating IOPS, r = %.2f)", m->correlation);
		doc_item(d, DS_DISKMAP, "%s%s%s = %s%s", m->guest_host ? m->guest_host : "", m->guest_host ? "\\" : "",
			 m->guest_disk, m->vdisk, r);
	}
}

static void rules_sec(const struct analysis *a, struct doc *d)
{
	struct rule_override o[RULES_MAX_OVERRIDES];
	size_t n = rules_overrides(&a->rules, o, RULES_MAX_OVERRIDES);
	struct buf line;
	buf_init(&line);
	for (size_t i = 0; i < n && i < RULES_MAX_OVERRIDES; i++) {
		buf_reset(&line);
		rules_override_text(&a->rules, &o[i], &line);
		doc_item(d, DS_RULES, "%s", line.data);
	}
	buf_free(&line);
}

static void coverage_sec(const struct analysis *a, struct doc *d)
{
	static const char *const lw[COV_LAYERS] = {"guest", "vSCSI", "world", "device", "adapter", "array"};
	static const char *const head[] = {"layer", "status", "assessed", "present", "why", NULL};
	struct doc_block *t = doc_table(d, DS_COVERAGE, NULL, head);
	for (int l = 0; l < COV_LAYERS; l++) {
		const struct layer_cov *lc = &a->cov.layer[l];
		doc_row(t);
		doc_cell_text(t, lw[l]);
		doc_cell_text(t, lc->status == COV_ASSESSED ? "assessed" : lc->status == COV_PARTIAL ? "partly assessed" : "not assessed");
		doc_cell_num(t, (double)lc->assessed);
		doc_cell_num(t, (double)lc->total);
		doc_cell_text(t, lc->why ? lc->why : "");
	}
}

/* The paths of d's LUN, once per LUN: "paths: vmhba2:C0:T0:L1 100%, vmhba3:C0:T1:L1 idle [...]". */
static void paths_item(const struct analysis *a, size_t i, struct doc *d)
{
	const struct iopath *g = &a->iop;
	const struct iop_vdisk *v = &g->vd[i];
	double act = rule_value(&a->rules, R_ACTIVE_IOPS);
	bool said = false;
	for (size_t k = 0; k < i && !said; k++)
		said = g->vd[k].dev == v->dev && g->vd[k].back == BACK_LUN && !isnan(entity_mean(g->vd[k].v, M_CMDS)) &&
		       entity_mean(g->vd[k].v, M_CMDS) >= act;
	const struct iop_path *p[16];
	size_t np = iopath_device_paths(g, v->dev, p, 16);
	if (said || !np)
		return;
	struct buf l;
	buf_init(&l);
	buf_adds(&l, "paths: ");
	double tot = 0;
	for (size_t k = 0; k < np && k < 16; k++) {
		double x = entity_mean(p[k]->p, M_CMDS);
		tot += isnan(x) ? 0 : x;
	}
	for (size_t k = 0; k < np && k < 16; k++) {
		double x = entity_mean(p[k]->p, M_CMDS);
		buf_adds(&l, k ? ", " : "");
		buf_adds(&l, p[k]->p->name);
		buf_addc(&l, ' ');
		if (tot > 0 && !isnan(x) && x >= 0.005 * tot)
			fmt_share(&l, x / tot);
		else
			buf_adds(&l, "idle");
	}
	buf_printf(&l, "   [%s: %s; adapters from the path names]", p[0]->link.how == LINK_ID ? "fact" : "guess",
		   p[0]->link.why);
	doc_item_at(d, DS_IOPATH, 1, "%s", l.data);
	buf_free(&l);
}

/* A VHDX's line: VHDX -> volume -> host disk, each link with how it is known. */
static void hv_item(const struct iop_vdisk *v, struct doc *d)
{
	struct buf l;
	buf_init(&l);
	buf_adds(&l, v->v->name);
	if (v->vm)
		buf_printf(&l, " (VM %s, from its path)", v->vm);
	buf_adds(&l, " -> ");
	if (v->vol)
		buf_printf(&l, "%s [fact: %s] -> ", v->vol->name, v->vol_link.why);
	if (v->dev)
		buf_printf(&l, "%s [%s: %s]", v->dev->name, v->link.how == LINK_ID ? "fact" : "guess", v->link.why);
	else
		buf_adds(&l, v->vol ? "host disk not identified [no host disk's IOPS follow the volume's]"
				    : "host disk not identified [no volume in the path, no host disk's IOPS follow it]");
	doc_item(d, DS_IOPATH, "%s", l.data);
	buf_free(&l);
}

/* A virtual disk's line: "vd = LUN   [fact: ...]", then its LUN's paths. */
static void vd_item(const struct analysis *a, size_t i, struct doc *d)
{
	const struct iop_vdisk *v = &a->iop.vd[i];
	struct buf l;
	buf_init(&l);
	buf_printf(&l, "%s = ", v->v->name);
	switch (v->back) {
	case BACK_LUN: case BACK_NFS: buf_printf(&l, "%s%s", v->back == BACK_NFS ? "NFS volume " : "", v->dev->name); break;
	case BACK_NOT_SHOWN: buf_adds(&l, "no SCSI device of the capture"); break;
	default: buf_adds(&l, "not identified"); break;
	}
	if (v->link.why)
		buf_printf(&l, "   [%s: %s]", v->link.how == LINK_ID ? "fact" : "guess", v->link.why);
	else if (v->back == BACK_UNKNOWN)
		buf_adds(&l, "   [no per-world IO columns, and no LUN's IOPS follow it]");
	doc_item(d, DS_IOPATH, "%s", l.data);
	buf_free(&l);
	if (v->dev && v->back == BACK_LUN)
		paths_item(a, i, d);
}

/* The active virtual disks (VHDX files) and how each reaches its LUN (host disk), those on a
 * finding's LUN first, at most IOPATH_DOC_MAX (a big host has hundreds; JSON has all). */
static void iopath_sec(const struct analysis *a, struct doc *d)
{
	const struct iopath *g = &a->iop;
	double act = rule_value(&a->rules, R_ACTIVE_IOPS);
	enum { IOPATH_DOC_MAX = 12 };
	size_t shown = 0, more = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < g->nvd; i++) {
			const struct iop_vdisk *v = &g->vd[i];
			double c = entity_mean(v->v, M_CMDS);
			if (isnan(c) || c < act || v->v->outside)
				continue;
			bool hot = false;
			for (size_t k = 0; k < a->nf && !hot; k++)
				hot = a->f[k].sev >= SEV_WARNING && a->f[k].ent >= 0 &&
				      (&a->m.ents[a->f[k].ent] == v->v || (v->dev && &a->m.ents[a->f[k].ent] == v->dev));
			if (hot != (pass == 0))
				continue;
			if (shown == IOPATH_DOC_MAX) {
				more++;
				continue;
			}
			bool hv = model_hyperv(&a->m, v->v->capture);
			if (!shown++)
				doc_note(d, DS_IOPATH, hv ? "VHDX -> volume -> host disk; fact: read from the capture's names, guess: from IOPS"
							  : "virtual disk = LUN; fact: read from the capture's names, guess: from IOPS");
			if (hv)
				hv_item(v, d);
			else
				vd_item(a, i, d);
		}
	if (more)
		doc_item(d, DS_IOPATH, "(%zu more virtual disk%s: see --json, io_path)", more, more == 1 ? "" : "s");
	doc_wrap(d, DS_IOPATH);
}

static void sql_sec(const struct analysis *a, struct doc *d)
{
	for (size_t i = 0; a->sql && i < a->sql->n; i++) {
		const struct sql_instance *si = &a->sql->in[i];
		doc_para(d, DS_SQL, "%s", si->summary);
		for (size_t k = 0; k < si->nplace; k++)
			doc_kv(d, DS_SQL, "Files", "%s", si->place[k].text);
		if (!si->nplace)
			doc_kv(d, DS_SQL, "Files", "no database's files are tied to a disk (the capture has no Log Bytes "
					    "Flushed/sec or Page reads/sec that follows one, and no --map database line)");
		for (size_t k = 0; k < si->nep; k++)
			doc_kv(d, DS_SQL, "During a storage episode", "%s", si->ep[k].text);
		for (size_t k = 0; k < si->nsym; k++)
			doc_kv(d, DS_SQL, "Without a storage cause", "%s", si->sym[k].text);
		if (!si->nep && !si->nsym)
			doc_kv(d, DS_SQL, "Episodes", "no storage episode on its disks and no SQL Server wait above its target.");
	}
}

void entity_metrics(const struct analysis *a, const struct entity *e, struct ent_metrics *em)
{
	*em = (struct ent_metrics){-1, -1, -1, -1};
	switch (e->layer) {
	case LAYER_GUEST: *em = (struct ent_metrics){M_G_XFERS, M_G_LAT_R, M_G_LAT_W, M_G_CDQL}; break;
	case LAYER_VSCSI: *em = (struct ent_metrics){M_CMDS, M_VD_LAT_R, M_VD_LAT_W, -1}; break;
	case LAYER_DEVICE: case LAYER_ADAPTER: *em = (struct ent_metrics){M_CMDS, M_DAVG, M_KAVG, M_ACTV}; break;
	default: return;
	}
	if (model_hyperv(&a->m, e->capture) && e->layer == LAYER_VSCSI)
		*em = (struct ent_metrics){M_CMDS, M_HV_LAT, M_HV_LOWER_LAT, -1}; /* a VHDX */
	else if (model_hyperv(&a->m, e->capture) && e->layer == LAYER_DEVICE)
		*em = (struct ent_metrics){M_CMDS, M_H_LAT_R, M_H_LAT_W, M_H_CDQL}; /* a host disk */
}

/* "12 / 30 / 41" (p50 / p95 / max), "" when m has no samples. */
static void triple(const struct entity *e, int m, struct buf *b)
{
	buf_reset(b);
	if (m < 0 || !entity_sk(e, m)->n)
		return;
	buf_printf(b, "%s ", metric_info[m].name);
	fmt_num(b, qs_quantile(entity_sk(e, m), 0.5), "-");
	buf_adds(b, "/");
	fmt_num(b, qs_quantile(entity_sk(e, m), 0.95), "-");
	buf_adds(b, "/");
	fmt_num(b, entity_sk(e, m)->max, "-");
}

static void entities_sec(const struct analysis *a, struct doc *d)
{
	static const char *const head[] = {"layer", "entity", "IO rate", "latency", "second latency", "queue", "MB/s read",
					   "MB/s written", NULL};
	struct doc_block *t = NULL;
	struct buf v, n;
	buf_init(&v);
	buf_init(&n);
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		struct ent_metrics em;
		entity_metrics(a, e, &em);
		if (e->outside || em.io < 0 || !entity_sk(e, em.io)->n ||
		    qs_mean(entity_sk(e, em.io)) < rule_value(&a->rules, R_ACTIVE_IOPS))
			continue;
		if (!t) {
			t = doc_table(d, DS_ENTITIES, "Active entities: whole-capture p50/p95/max of each counter "
						      "(latency in ms, queues in outstanding IOs, throughput in MB/s; a "
						      "guest disk's is reads and writes together).", head);
			t->labelled = true;
		}
		doc_row(t);
		doc_cell_text(t, layer_names[e->layer]);
		buf_reset(&n);
		if (e->host && e->layer == LAYER_GUEST)
			buf_printf(&n, "%s ", e->host);
		buf_adds(&n, e->name);
		doc_cell_text(t, n.data);
		/* throughput: a guest disk's perfmon has bytes per second in both directions together */
		int mbr = e->layer == LAYER_GUEST ? M_G_MBPS : M_MBR, mbw = e->layer == LAYER_GUEST ? -1 : M_MBW;
		const int ms[6] = {em.io, em.lat, em.lat2, em.q, mbr, mbw};
		for (int k = 0; k < 6; k++) {
			triple(e, ms[k], &v);
			if (v.len)
				doc_cell_text(t, v.data);
			else
				doc_cell_none(t);
		}
	}
	buf_free(&v);
	buf_free(&n);
}

/* The methodology appendix: how the analysis reads the captures and applies its rules, and what
 * the counters mean (doc/domain.md, doc/hyperv-domain.md and doc/rules-sources.md give the
 * sources; every rule's source is also in `iopsy rules`). */
static void method_sec(const struct analysis *a, struct doc *d)
{
	doc_para(d, DS_METHOD,
		 "How this report was made. iopsy reads every row of each capture (esxtop batch CSV from the ESXi host, "
		 "perfmon CSV from the Windows guest or the Hyper-V host, converted from BLG with relog) and computes, for "
		 "each disk, LUN, adapter and path, the distribution of every counter (exact quantiles for short captures, "
		 "a log-bucket quantile sketch of about 1 %% relative error otherwise). A rule fires when a counter stays above its "
		 "threshold for the rule's sustained time; the finding's window is that stretch, and its evidence gives the "
		 "minimum, median, p95 and maximum over it. Findings marked heuristic rest on a derived rule rather than a "
		 "documented limit. Severity follows the rule's warning and critical thresholds; causes (throttling, queue "
		 "limits, over-commit) rank before the latency they explain.");
	doc_para(d, DS_METHOD,
		 "How each link is known. A link between layers read from the capture's own identifiers (a VM's world "
		 "named by its Vcpu, a path name that carries its device, a VHDX path that names its volume) is a fact; a "
		 "link found by correlating IOPS series is a guess, and the report gives its correlation r. Layers the "
		 "captures do not show (the array behind the HBA, other hosts on a shared LUN, other cluster nodes) are "
		 "said to be not assessed, never assumed healthy.");
	doc_para(d, DS_METHOD,
		 "Clocks and windows. Times are UTC with the customer's local time beside them; a guest's clock is "
		 "aligned to the host's by --clock-offset or by the lag that best correlates mapped IOPS; --from/--to "
		 "restrict the analysis to a window, and the coverage table says what could be assessed.");
	static const char *const head[] = {"term", "meaning", "source", NULL};
	struct doc_block *t = doc_table(d, DS_METHOD, "Glossary", head);
	static const char *const g[][3] = {
		{"GAVG", "guest latency per command as ESXi sees it: DAVG + KAVG", "[vmw] doc/domain.md (latency split)"},
		{"DAVG", "device latency: below the HBA, to the array and back", "[vmw] doc/domain.md (latency split)"},
		{"KAVG", "time in the VMkernel; QAVG, the queue wait, is part of it", "[vmw] doc/domain.md (latency split)"},
		{"DQLEN", "the LUN queue depth the host allows now (lowered by adaptive queue depth or SIOC)",
		 "[vmw] doc/domain.md; KB 1008113 (adaptive queue depth)"},
		{"ACTV / QUED", "commands at the device / waiting in the VMkernel for a queue slot; QUED > 0 means IOs wait in "
				"the kernel", "[vmw] doc/domain.md"},
		{"AQLEN", "the adapter's queue depth (only with esxtop -a)", "[vmw] doc/domain.md"},
		{"DSNRO", "Disk.SchedNumReqOutstanding: caps a LUN's outstanding IO when more than one VM is active on it",
		 "[vmw] doc/domain.md"},
		{"vSCSI per-disk queue", "LSI Logic SAS: 32 per disk; PVSCSI: 64 per disk by default, 254 with MaxQueueDepth",
		 "[seed][vmw] KB 2053145, doc/domain.md"},
		{"Avg. Disk sec/Transfer", "perfmon's latency of a guest disk (seconds in the capture; ms here)",
		 "[ms][pal] doc/domain.md"},
		{"Current Disk Queue Length", "IOs outstanding on a guest disk at the sample (instantaneous)", "[ms] doc/domain.md"},
		{"VHDX Latency", "Hyper-V Virtual Storage Device latency of a virtual disk file", "[ms] doc/hyperv-domain.md"},
		{"CPU Wait Time Per Dispatch", "how long a Hyper-V virtual processor waits to be scheduled (CPU contention)",
		 "[ms] doc/hyperv-domain.md"},
	};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
		doc_row(t);
		doc_cell_text(t, g[i][0]);
		doc_cell_text(t, g[i][1]);
		doc_cell_text(t, g[i][2]);
	}
	doc_para(d, DS_METHOD,
		 "Sources: [vmw] VMware/Broadcom documentation and knowledge base, [ms] Microsoft documentation, [pal] the "
		 "PAL tool's thresholds, [seed] the project's reference material, [derived] reasoned from those. The "
		 "project's doc/domain.md, doc/hyperv-domain.md and doc/rules-sources.md cite each; `iopsy rules` prints "
		 "every threshold in force with its source.");
	(void)a;
}

void doc_of_analysis_only(const struct analysis *a, const struct ltime *lt, struct doc *d, unsigned mask)
{
	static void (*const build[DS_COUNT])(const struct analysis *, struct doc *) = {
		[DS_INPUTS] = inputs_of, [DS_DISKMAP] = diskmap_sec, [DS_RULES] = rules_sec, [DS_COVERAGE] = coverage_sec,
		[DS_IOPATH] = iopath_sec, [DS_SQL] = sql_sec, [DS_ENTITIES] = entities_sec, [DS_METHOD] = method_sec,
	};
	doc_init(d, lt);
	for (int s = 0; s < DS_COUNT; s++)
		if (build[s] && (mask & (1u << s)))
			build[s](a, d);
}

void doc_of_analysis(const struct analysis *a, const struct ltime *lt, struct doc *d)
{
	doc_of_analysis_only(a, lt, d, ~0u);
}

/* A comparison's methodology: how the sides are judged (doc/compare-json.md has the whole). */
static void compare_method_sec(const struct compare *c, struct doc *d)
{
	doc_para(d, DS_METHOD,
		 "How the two periods were compared. Each side is analysed as iopsy analyze would, and its entities are "
		 "matched across the sides by their stable names (naa ids, vmhba names, VM:scsiC:T, guest disks by host "
		 "and drive; --match-map for renamed ones). Per entity and counter the comparison judges the tail (p95, "
		 "p99), the time above each latency band of the rules and the busy phase of each side; the median is "
		 "reported as the typical IO and does not decide. The whole capture's tail and time above a band decide "
		 "only when both sides spend comparable shares of their time busy, so a longer or shorter capture or "
		 "window alone cannot make a change.");
	doc_para(d, DS_METHOD,
		 "Each figure has a %.0f %% interval from a circular block bootstrap (%u resamples, seed %llu; block "
		 "lengths by the Politis-White rule, idle and busy values resampled separately). A figure is improved or "
		 "regressed only when its whole interval lies beyond the material change of %g %%; latency at equal load "
		 "compares the sides within IOPS bins, so more or less work alone does not read as a change. The "
		 "method and its tests are in doc/compare-json.md.",
		 c->o.confidence * 100, c->o.resamples, (unsigned long long)c->o.seed, c->o.material_pct);
}

void doc_of_compare(const struct compare *c, const struct ltime *lt, struct doc *d)
{
	doc_init(d, lt);
	captures_sec(&c->side[0], "before", d);
	captures_sec(&c->side[1], "after", d);
	inputs_sec(&c->side[0], "before", d);
	inputs_sec(&c->side[1], "after", d);
	compare_method_sec(c, d);
	struct doc a;
	doc_init(&a, lt);
	method_sec(&c->side[0], &a); /* the glossary: the analyses' own */
	for (size_t i = 0; i < a.sec[DS_METHOD].nb; i++)
		if (a.sec[DS_METHOD].b[i].t == BLK_TABLE) {
			struct doc_section *m = &d->sec[DS_METHOD];
			if (m->nb == m->cap) {
				m->cap = m->cap * 2 + 2;
				m->b = xrealloc(m->b, m->cap * sizeof *m->b);
			}
			m->b[m->nb++] = a.sec[DS_METHOD].b[i]; /* moved: a keeps none of it */
			a.sec[DS_METHOD].b[i] = (struct doc_block){.t = BLK_PARA};
		}
	doc_free(&a);
}
