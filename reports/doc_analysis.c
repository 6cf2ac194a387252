/* doc_analysis.c — the generated sections of an analysis report, built once into the document
 * (doc.h): what the captures said about the consultant's inputs, the disk map, the overridden
 * rules, coverage, the IO path, SQL Server, the busiest entities and the methodology appendix. */
#include "doc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "summary.h"

/* "guest disks 4, virtual disks 4, ..." of the per-layer counts n (nothing when all are 0). */
static void layer_counts(const long *n, struct buf *out)
{
	static const char *const what[LAYER_COUNT][2] = {
		{"guest disk", "guest disks"}, {"virtual disk", "virtual disks"}, {"world", "worlds"},
		{"device", "devices"},         {"adapter", "adapters"},           {"array", "arrays"},
		{"VM", "VMs"},                 {"SQL Server object", "SQL Server objects"}, {"path", "paths"},
		{"volume", "volumes"}};
	int k = 0;
	for (int l = 0; l < LAYER_COUNT; l++)
		if (n[l])
			buf_printf(out, "%s%ld %s", k++ ? ", " : "", n[l], what[l][n[l] != 1]);
	if (!k)
		buf_adds(out, "nothing");
}

/* The window and the selection of an analysis as sentences, unescaped (each writer escapes). */
static void workflow_sentences(const struct analysis *a, struct buf *win, struct buf *sel)
{
	if (a->window.on) {
		buf_adds(win, "Window: ");
		twin_describe(&a->window, win, NULL);
		buf_adds(win, "; only its rows were read.");
	}
	if (ef_on(a->m.filter)) {
		const struct ent_filter *f = a->m.filter;
		buf_adds(sel, "Selection: ");
		ef_options_text(f, sel);
		buf_adds(sel, ": kept ");
		layer_counts(f->kept, sel);
		buf_adds(sel, "; left out ");
		layer_counts(f->dropped, sel);
		buf_adds(sel, !f->devices_unlinked ? "."
			      : analysis_hyperv(a)
				  ? "; a Hyper-V host capture keeps all its host disks and volumes (perfmon does "
				    "not count a VM's IO per disk)."
				  : "; an esxtop capture without per-world columns keeps all its devices (it "
				    "does not show which VM drives them).");
		if (a->nshared) {
			buf_adds(sel, " Shared with VMs outside the selection (their per-world IO over the capture): ");
			for (size_t i = 0; i < a->nshared && i < 8; i++)
				buf_printf(sel, "%s%s uses %s (%.0f%% of its commands)", i ? "; " : "", a->shared[i].vm,
					   a->shared[i].device, 100 * a->shared[i].share);
			buf_adds(sel, a->nshared > 8 ? "; ..." : ".");
		}
	}
}

void doc_workflow(struct doc *d, const struct analysis *a, const char *side)
{
	struct buf w, s;
	buf_init(&w);
	buf_init(&s);
	workflow_sentences(a, &w, &s);
	if (w.len || s.len) {
		/* a block of its own (a side's notices do not join the other side's) */
		struct doc_block *b = doc_block(d, DS_SUMMARY, BLK_KV, ROLE_NOTICE, 2);
		b->text = side ? xstrdup(side) : NULL;
		if (w.len) {
			doc_row(b);
			doc_cell_text(b, "Window");
			doc_cell_text(b, w.data);
		}
		if (s.len) {
			doc_row(b);
			doc_cell_text(b, "Selection");
			doc_cell_text(b, s.data);
		}
	}
	buf_free(&w);
	buf_free(&s);
}

void doc_summary(struct doc *d, const struct exec_summary *es)
{
	struct doc_section *sec = &d->sec[DS_SUMMARY];
	sec->on = true;
	sec->tone = es->tone;
	if (es->headline) {
		doc_para(d, DS_SUMMARY, "%s", es->headline);
		sec->b[sec->nb - 1].role = ROLE_HEADLINE;
	}
	struct doc_block *l = doc_block(d, DS_SUMMARY, BLK_LIST, ROLE_LEAD, 1);
	for (int i = 0; i < es->nsentences; i++) {
		doc_row(l);
		doc_cell_text(l, es->sentence[i]);
	}
	if (d->lt) { /* how times are said (the HTML summary's foot) */
		struct buf t;
		buf_init(&t);
		buf_adds(&t, "Times are UTC");
		if (d->lt->known) {
			buf_adds(&t, ", with the customer's ");
			ltime_describe(&t, d->lt);
		} else {
			buf_adds(&t, "; the customer's local time is not known");
		}
		buf_addc(&t, '.');
		struct doc_block *f = doc_block(d, DS_SUMMARY, BLK_PARA, ROLE_FOOT, 1);
		f->text = t.data;
	}
	if (!es->nactions)
		return;
	static const char *const head[] = {"action", "expected effect", "findings", "why", NULL};
	struct doc_block *t = doc_table(d, DS_ACTIONS, NULL, head);
	t->role = ROLE_ACTIONS;
	struct buf w;
	buf_init(&w);
	for (int i = 0; i < es->nactions; i++) {
		const struct action *ac = &es->act[i];
		buf_reset(&w);
		for (int k = 0; k < ac->nwhy; k++)
			buf_printf(&w, "%s%zu", k ? ", " : "", ac->why[k]);
		doc_row(t);
		doc_cell_text(t, ac->what);
		doc_cell_text(t, ac->effect);
		doc_cell_text(t, w.data ? w.data : "");
		doc_cell_text(t, ac->because);
	}
	buf_free(&w);
}

static void summary_sec(const struct analysis *a, struct doc *d)
{
	struct ltime own;
	const struct ltime *lt = d->lt;
	if (!lt) {
		ltime_init(&own, &a->m, NULL);
		lt = &own;
	}
	struct exec_summary es;
	summary_of_analysis(a, lt, &es);
	doc_workflow(d, a, NULL);
	doc_summary(d, &es);
	summary_free(&es);
}

void doc_compare_summary(const struct compare *c, struct doc *d)
{
	struct ltime own;
	const struct ltime *lt = d->lt;
	if (!lt) {
		ltime_init(&own, &c->side[CMP_AFTER].m, &c->side[CMP_BEFORE].m);
		lt = &own;
	}
	struct exec_summary es;
	summary_of_compare(c, lt, &es);
	doc_summary(d, &es);
	summary_free(&es);
	for (int s = 0; s < 2; s++)
		doc_workflow(d, &c->side[s], cmp_side_names[s]);
	doc_para(d, DS_VERDICT, "%s", c->detail ? c->detail : "");
}

void doc_finding(struct doc *d, const struct finding *f, size_t no)
{
	static const char *const keys[FH_COUNT] = {"finding", "severity", "rule id", "title", "host", "entity", "layer",
						   "heuristic", "start", "end", "sustained (s)", "summary"};
	struct doc_block *h = doc_block(d, DS_FINDINGS, BLK_KV, ROLE_FINDING, 2);
	for (int k = 0; k < FH_COUNT; k++) {
		doc_row(h);
		doc_cell_text(h, keys[k]);
		switch (k) {
		case FH_NO: doc_cell_num(h, (double)no); break;
		case FH_SEV: doc_cell_text(h, severity_names[f->sev]); break;
		case FH_ID: doc_cell_text(h, kinds[f->kind].name); break;
		case FH_TITLE: doc_cell_text(h, kinds[f->kind].title); break;
		case FH_HOST: doc_cell_text(h, f->host ? f->host : ""); break;
		case FH_ENTITY: doc_cell_text(h, f->entity); break;
		case FH_LAYER: doc_cell_text(h, layer_names[f->layer]); break;
		case FH_HEUR: doc_cell_text(h, f->heuristic ? "heuristic" : ""); break;
		case FH_START: doc_cell_time(h, f->start); break;
		case FH_END: doc_cell_time(h, f->end); break;
		case FH_SUSTAINED: doc_cell_num(h, f->sustained_s); break;
		default: doc_cell_text(h, f->summary); break;
		}
	}
	if (f->nsub > 1) {
		static const char *const eh[] = {"start", "end", NULL};
		struct doc_block *e = doc_table(d, DS_FINDINGS, "one episode of several windows", eh);
		e->role = ROLE_EPISODE;
		for (int k = 0; k < f->nsub; k++) {
			doc_row(e);
			doc_cell_time(e, f->sub[k].start);
			doc_cell_time(e, f->sub[k].end);
		}
	}
	static const char *const evh[] = {"counter", "unit",    "min",   "median",    "p95",
					  "max",     "samples", "above", "threshold", NULL};
	struct doc_block *t = doc_table(d, DS_FINDINGS, NULL, evh);
	t->role = ROLE_EVIDENCE;
	for (int k = 0; k < f->nev; k++) {
		const struct evidence *ev = &f->ev[k];
		doc_row(t);
		doc_cell_text(t, metric_info[ev->metric].label);
		doc_cell_text(t, metric_info[ev->metric].unit);
		doc_cell_num(t, ev->min);
		doc_cell_num(t, ev->median);
		doc_cell_num(t, ev->p95);
		doc_cell_num(t, ev->max);
		doc_cell_num(t, (double)ev->samples);
		if (ev->above >= 0)
			doc_cell_num(t, (double)ev->above);
		else
			doc_cell_none(t);
		doc_cell_num(t, ev->threshold);
	}
	if (f->nev) { /* the figure: the evidence's counters over the capture */
		struct buf c;
		buf_init(&c);
		for (int k = 0; k < f->nev; k++)
			buf_printf(&c, "%s%s", k ? (k + 1 == f->nev ? " and " : ", ") : "",
				   metric_info[f->ev[k].metric].label);
		buf_adds(&c, " over the capture, the finding's window shaded");
		struct doc_block *g = doc_block(d, DS_FINDINGS, BLK_PARA, ROLE_FIGURE, 1);
		g->text = c.data;
	}
	struct doc_block *r = doc_block(d, DS_FINDINGS, BLK_KV, ROLE_RULE, 2);
	const char *kv[4][2] = {
	    {"Load on the LUN", f->load}, {"Rule", f->rule}, {"Source", f->source}, {"Advice", f->advice}};
	for (int k = 0; k < 4; k++) {
		if (!kv[k][1] || (k != 1 && k != 2 && !*kv[k][1]))
			continue;
		doc_row(r);
		doc_cell_text(r, kv[k][0]);
		doc_cell_text(r, kv[k][1]);
	}
}

long doc_finding_at(const struct doc *d, size_t no, size_t *n)
{
	const struct doc_section *s = &d->sec[DS_FINDINGS];
	size_t seen = 0, i = 0;
	for (; i < s->nb && seen < no; i++)
		seen += s->b[i].role == ROLE_FINDING;
	if (seen < no || !i)
		return -1;
	size_t at = i - 1;
	for (*n = 1; at + *n < s->nb && s->b[at + *n].role != ROLE_FINDING; (*n)++)
		;
	return (long)at;
}

/* What a capture could not give, as paragraphs of the captures section: values read as missing
 * because they were impossible, and the columns past the entity cap. */
static void captures_notes(const struct analysis *a, struct doc *d)
{
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (!c->failed && c->impossible)
			doc_para(d, DS_CAPTURES,
				 "%s: %ld impossible value%s read as missing (outside the counter's "
				 "physical range; each warned at its line).",
				 c->path, c->impossible, c->impossible == 1 ? "" : "s");
	}
	for (size_t i = 0; i < a->m.ncaps; i++) {
		char what[160];
		long cols = model_over_cap_text(&a->m, i, what, sizeof what);
		if (cols)
			doc_para(d, DS_CAPTURES,
				 "%s has more than %d entities of one kind: %ld column%s of %s not read, "
				 "those layers not assessed.",
				 a->m.caps[i].path, MODEL_MAX_ENTITIES, cols, cols == 1 ? "" : "s", what);
	}
}

/* The clock of capture c as every report says it: guest clock minus host clock (its times are
 * shifted by the opposite), given or estimated; "" as recorded. */
static void clock_sentence(const struct capture *c, struct buf *b)
{
	if (!c->clock_offset_ms && !c->offset_estimated)
		return;
	buf_printf(b, "guest clock %+.1f s off the host's", 0.0 - (double)c->clock_offset_ms / 1000.0 + 0.0);
	if (c->offset_estimated)
		buf_printf(b, " (estimated from IOPS, r = %.2f%s)", c->offset_confidence,
			   c->clock_offset_ms ? "" : ", none applied");
	else
		buf_adds(b, " (as given)");
}

void doc_captures(struct doc *d, const struct analysis *a, const char *side)
{
	static const char *const head[CC_COUNT + 1] = {"file",  "state",   "format",   "compression",
						       "host",  "start",   "end",      "interval (s)",
						       "rows",  "columns", "warnings", "rows outside the window",
						       "clock", NULL};
	static const char *const ph[CP_COUNT + 1] = {
	    "capture",    "file",      "start",         "end",         "rows",     "gap (s)", "rows overlapping",
	    "first line", "last line", "overlap start", "overlap end", "warnings", NULL};
	struct doc_block *t = doc_table(d, DS_CAPTURES, side, head);
	t->role = ROLE_CAPTURES;
	struct buf k;
	buf_init(&k);
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		doc_row(t);
		doc_cell_text(t, c->path);
		doc_cell_text(t, c->failed ? "could not be read" : "");
		if (c->failed) {
			for (int n = CC_FORMAT; n < CC_COUNT; n++)
				doc_cell_none(t);
			continue;
		}
		doc_cell_text(t, c->format);
		doc_cell_text(t, c->gzip ? "gzip" : "");
		doc_cell_text(t, c->host ? c->host : "?");
		const struct parser_ops *fo = parser_find(c->format);
		bool hist = fo && fo->histograms; /* its rows are snapshots: no time axis, no interval */
		if (hist) {
			doc_cell_none(t);
			doc_cell_none(t);
			doc_cell_none(t);
		} else {
			doc_cell_time(t, c->start + c->clock_offset_ms);
			doc_cell_time(t, c->end + c->clock_offset_ms);
			doc_cell_num(t, c->interval_s);
		}
		doc_cell_num(t, (double)c->rows);
		doc_cell_num(t, (double)c->columns);
		doc_cell_num(t, (double)c->warnings);
		if (a->window.on)
			doc_cell_num(t, (double)c->outside_rows);
		else
			doc_cell_none(t);
		buf_reset(&k);
		if (hist)
			buf_adds(&k, "histograms, no time axis");
		else
			clock_sentence(c, &k);
		doc_cell_text(t, k.data ? k.data : "");
	}
	buf_free(&k);
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (c->failed || c->nparts < 2)
			continue;
		struct doc_block *p = doc_table(d, DS_CAPTURES, NULL, ph);
		p->role = ROLE_PARTS;
		for (size_t n = 0; n < c->nparts; n++) {
			const struct capture_part *cp = &c->parts[n];
			doc_row(p);
			doc_cell_num(p, (double)i);
			doc_cell_text(p, cp->path);
			if (cp->rows) {
				doc_cell_time(p, cp->start + c->clock_offset_ms);
				doc_cell_time(p, cp->end + c->clock_offset_ms);
			} else {
				doc_cell_none(p);
				doc_cell_none(p);
			}
			doc_cell_num(p, (double)cp->rows);
			if (n && cp->gap && cp->rows)
				doc_cell_num(p, (double)cp->gap_ms / 1000.0);
			else
				doc_cell_none(p);
			doc_cell_num(p, (double)cp->overlap_rows);
			doc_cell_num(p, (double)cp->overlap_line0);
			doc_cell_num(p, (double)cp->overlap_line1);
			doc_cell_time(p, cp->overlap_t0 + c->clock_offset_ms);
			doc_cell_time(p, cp->overlap_t1 + c->clock_offset_ms);
			doc_cell_num(p, (double)cp->warnings);
		}
	}
	captures_notes(a, d);
}

static void captures_of(const struct analysis *a, struct doc *d)
{
	doc_captures(d, a, NULL);
}

static void findings_sec(const struct analysis *a, struct doc *d)
{
	d->sec[DS_FINDINGS].on = true;
	for (size_t i = 0; i < a->nf; i++)
		doc_finding(d, &a->f[i], i + 1);
}

static void verdict_sec(const struct analysis *a, struct doc *d)
{
	doc_para(d, DS_VERDICT, "%s", a->verdict ? a->verdict : "");
}

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

static void inputs_of(const struct analysis *a, struct doc *d)
{
	inputs_sec(a, NULL, d);
}

static void diskmap_sec(const struct analysis *a, struct doc *d)
{
	if (!a->nmap)
		return;
	doc_note(d, DS_DISKMAP, "guest disk = virtual disk");
	static const char *const head[] = {"guest", "guest disk", "virtual disk", "how", NULL};
	struct doc_block *t = doc_table(d, DS_DISKMAP, NULL, head);
	t->role = ROLE_DISKMAP;
	for (size_t i = 0; i < a->nmap; i++) {
		const struct diskmap_entry *m = &a->map[i];
		char r[64] = "the disk map file";
		if (m->automatic)
			snprintf(r, sizeof r, "found by correlating IOPS, r = %.2f", m->correlation);
		doc_row(t);
		doc_cell_text(t, m->guest_host ? m->guest_host : "");
		doc_cell_text(t, m->guest_disk);
		doc_cell_text(t, m->vdisk);
		doc_cell_text(t, r);
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
	d->hyperv = analysis_hyperv(a);
	const char *const *lw = cov_layer_words_by[d->hyperv];
	static const char *const head[] = {"layer", "status", "assessed", "present", "why", NULL};
	struct doc_block *t = doc_table(d, DS_COVERAGE, NULL, head);
	t->role = ROLE_COVERAGE;
	if (ef_on(a->m.filter)) {
		struct buf o;
		buf_init(&o);
		ef_options_text(a->m.filter, &o);
		t->text = o.data;
	}
	for (int l = 0; l < COV_LAYERS; l++) {
		const struct layer_cov *lc = &a->cov.layer[l];
		doc_row(t);
		doc_cell_text(t, lw[l]);
		doc_cell_text(t, cov_status_words[lc->status]);
		doc_cell_num(t, (double)lc->assessed);
		doc_cell_num(t, (double)lc->total);
		doc_cell_text(t, lc->why ? lc->why : "");
	}
	if (a->cov.link_why) { /* the guest and host captures do not go together (check_link) */
		doc_row(t);
		doc_cell_text(t, "link");
		doc_cell_text(t, cov_status_words[COV_NOT_ASSESSED]);
		doc_cell_num(t, 0);
		doc_cell_num(t, 0);
		static const char said[] = "The guest<->host link is not assessed: ";
		const char *why = a->cov.link_why;
		doc_cell_text(t, strncmp(why, said, sizeof said - 1) == 0 ? why + sizeof said - 1 : why);
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
	if (!said && !np && model_over_cap(&a->m, v->dev->capture, LAYER_PATH)) {
		doc_item(d, DS_IOPATH, "paths: past the entity cap (not read): no path is judged");
		return;
	}
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
		buf_adds(&l,
			 model_over_cap(&a->m, v->v->capture, LAYER_WORLD)
			     ? "   [its per-world IO is past the entity cap (not read), and no LUN's IOPS follow it]"
			     : "   [no per-world IO columns, and no LUN's IOPS follow it]");
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
	for (size_t i = 0; i < g->nvol; i++) {
		const struct iop_volume *x = &g->vol[i];
		struct buf l;
		buf_init(&l);
		for (size_t k = 0; k < x->nmem; k++)
			buf_printf(&l, "%s%s", k ? ", " : "", x->mem[k]->name);
		doc_item(d, DS_IOPATH, "volume %s%s%s over %s   [%s: %s]", x->vol->host ? x->vol->host : "",
			 x->vol->host ? " " : "", x->vol->name, l.data ? l.data : "",
			 x->link.how == LINK_ID ? "fact" : "guess", x->link.why);
		buf_free(&l);
	}
	doc_wrap(d, DS_IOPATH);
	doc_stacks(a, d);
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

/* Every entity with an IO rate, its whole-capture figures as numbers (ROLE_ENTITIES, for the
 * workbook); the section stays as the labelled table left it (off when no entity is active). */
static void entities_figures(const struct analysis *a, struct doc *d)
{
	static const char *const head[EC_COUNT + 1] = {"layer",
						       "host",
						       "entity",
						       "active",
						       "IO rate p50",
						       "p95",
						       "max",
						       "latency",
						       "p50",
						       "p95",
						       "p99",
						       "max",
						       "second latency",
						       "p50",
						       "p95",
						       "p99",
						       "max",
						       "queue",
						       "p50",
						       "p95",
						       "max",
						       "IO rate unit",
						       "latency unit",
						       "second latency unit",
						       "queue unit",
						       NULL};
	bool on = d->sec[DS_ENTITIES].on;
	struct doc_block *t = doc_table(d, DS_ENTITIES, NULL, head);
	t->role = ROLE_ENTITIES;
	d->sec[DS_ENTITIES].on = on;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		struct ent_metrics em;
		entity_metrics(a, e, &em);
		if (e->outside || em.io < 0 || !entity_sk(e, em.io)->n)
			continue;
		doc_row(t);
		doc_cell_text(t, layer_names[e->layer]);
		doc_cell_text(t, e->host ? e->host : "");
		doc_cell_text(t, e->name);
		doc_cell_text(t, entity_active(e, &a->rules) ? "yes" : "no");
		const struct qsketch *s = entity_sk(e, em.io);
		doc_cell_num(t, qs_quantile(s, 0.5));
		doc_cell_num(t, qs_quantile(s, 0.95));
		doc_cell_num(t, s->max);
		const int ms[2] = {em.lat, em.lat2};
		for (int k = 0; k < 2; k++) {
			bool has = ms[k] >= 0 && entity_sk(e, ms[k])->n;
			if (has || (!k && ms[k] >= 0)) /* the first latency's counter is named even without values */
				doc_cell_text(t, metric_info[ms[k]].label);
			else
				doc_cell_none(t);
			const struct qsketch *l = has ? entity_sk(e, ms[k]) : NULL;
			const double v[4] = {l ? qs_quantile(l, 0.5) : 0, l ? qs_quantile(l, 0.95) : 0,
					     l ? qs_quantile(l, 0.99) : 0, l ? l->max : 0};
			for (int q = 0; q < 4; q++)
				if (l)
					doc_cell_num(t, v[q]);
				else
					doc_cell_none(t);
		}
		bool hq = em.q >= 0 && entity_sk(e, em.q)->n;
		if (hq) {
			doc_cell_text(t, metric_info[em.q].label);
			doc_cell_num(t, qs_quantile(entity_sk(e, em.q), 0.5));
			doc_cell_num(t, qs_quantile(entity_sk(e, em.q), 0.95));
			doc_cell_num(t, entity_sk(e, em.q)->max);
		} else {
			for (int q = 0; q < 4; q++)
				doc_cell_none(t);
		}
		const int us[4] = {em.io, em.lat, em.lat2, em.q};
		for (int k = 0; k < 4; k++)
			doc_cell_text(t, us[k] >= 0 ? metric_info[us[k]].unit : "");
	}
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
	entities_figures(a, d);
	doc_entity_tables(a, d);
}

/* The methodology appendix: how the analysis reads the captures and applies its rules, and what
 * the counters it used mean, each with its public source (the project's doc/domain.md,
 * doc/hyperv-domain.md and doc/rules-sources.md cite them; a report names no project file). */
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
	doc_para(
	    d, DS_METHOD,
	    "Clocks and windows. Times are UTC with the customer's local time beside them; a guest's clock is "
	    "aligned to the host's by the offset given with the analysis or by the lag that best correlates mapped "
	    "IOPS; an analysis can be restricted to a time window, and the coverage table says what could be assessed.");
	/* the terms of the captures this report read: esxtop's, a Windows guest's perfmon, Hyper-V's */
	bool esx = false, win = false, hv = false;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const char *f = a->m.caps[i].format ? a->m.caps[i].format : "";
		esx |= strcmp(f, "esxtop") == 0;
		win |= strcmp(f, "perfmon") == 0 || strcmp(f, "hyperv") == 0;
		hv |= strcmp(f, "hyperv") == 0;
	}
	static const char *const head[] = {"term", "meaning", "source", NULL};
	struct doc_block *t = NULL;
	enum { ESX, WIN, HV };
	static const struct {
		int of;
		const char *term, *meaning, *source;
	} g[] = {
	    {ESX, "GAVG", "guest latency per command as ESXi sees it: DAVG + KAVG",
	     "VMware, Interpreting esxtop Statistics §4.2.2 (latency statistics)"},
	    {ESX, "DAVG", "device latency: below the HBA, to the array and back",
	     "VMware, Interpreting esxtop Statistics §4.2.2"},
	    {ESX, "KAVG", "time in the VMkernel; QAVG, the queue wait, is part of it",
	     "VMware, Interpreting esxtop Statistics §4.2.2"},
	    {ESX, "DQLEN", "the LUN queue depth the host allows now (lowered by adaptive queue depth or SIOC)",
	     "VMware, Interpreting esxtop Statistics §4.2.3 (queue statistics); VMware KB 1008113 (adaptive queue depth)"},
	    {ESX, "ACTV / QUED",
	     "commands at the device / waiting in the VMkernel for a queue slot; QUED > 0 means IOs wait "
	     "in the kernel",
	     "VMware, Interpreting esxtop Statistics §4.2.3"},
	    {ESX, "AQLEN", "the adapter's queue depth (only with esxtop -a)",
	     "VMware, Interpreting esxtop Statistics §4.2.3"},
	    {ESX, "DSNRO",
	     "Disk.SchedNumReqOutstanding: caps a LUN's outstanding IO when more than one VM is active on it",
	     "VMware vSphere Storage documentation (Disk.SchedNumReqOutstanding); VMware KB 1008113"},
	    {ESX, "vSCSI per-disk queue",
	     "LSI Logic SAS: 32 per disk; PVSCSI: 64 per disk by default, 254 with MaxQueueDepth",
	     "VMware KB 2053145 (PVSCSI queue depths)"},
	    {WIN, "Avg. Disk sec/Transfer", "perfmon's latency of a disk (seconds in the capture; ms here)",
	     "Microsoft documentation, LogicalDisk and PhysicalDisk performance counters; PAL thresholds"},
	    {WIN, "Current Disk Queue Length", "IOs outstanding on a disk at the sample (instantaneous)",
	     "Microsoft documentation, LogicalDisk and PhysicalDisk performance counters"},
	    {HV, "VHDX Latency", "Hyper-V Virtual Storage Device latency of a virtual disk file",
	     "Microsoft Docs, Detecting bottlenecks in a virtualized environment"},
	    {HV, "CPU Wait Time Per Dispatch",
	     "how long a Hyper-V virtual processor waits to be scheduled (CPU contention)",
	     "Microsoft Docs, Detecting bottlenecks in a virtualized environment"},
	};
	for (size_t i = 0; i < sizeof g / sizeof g[0]; i++) {
		if (!(g[i].of == ESX ? esx : g[i].of == WIN ? win : hv))
			continue;
		if (!t) /* no capture read: no term to explain */
			t = doc_table(d, DS_METHOD, "Glossary", head);
		doc_row(t);
		doc_cell_text(t, g[i].term);
		doc_cell_text(t, g[i].meaning);
		doc_cell_text(t, g[i].source);
	}
	doc_para(
	    d, DS_METHOD,
	    "Sources. Each term's and each finding's source is named beside it: VMware's and Microsoft's documentation "
	    "and knowledge base articles, and the thresholds of the PAL (Performance Analysis of Logs) tool; a rule "
	    "marked derived is reasoned from those.");
}

void doc_of_analysis_only(const struct analysis *a, const struct ltime *lt, struct doc *d, unsigned mask)
{
	static void (*const build[DS_COUNT])(const struct analysis *, struct doc *) = {
	    [DS_SUMMARY] = summary_sec,  [DS_VERDICT] = verdict_sec,   [DS_FINDINGS] = findings_sec,
	    [DS_CAPTURES] = captures_of, [DS_INPUTS] = inputs_of,      [DS_DISKMAP] = diskmap_sec,
	    [DS_RULES] = rules_sec,      [DS_COVERAGE] = coverage_sec, [DS_IOPATH] = iopath_sec,
	    [DS_SQL] = sql_sec,          [DS_ENTITIES] = entities_sec, [DS_METHOD] = method_sec,
	    [DS_HIST] = doc_vhist_analysis,
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
	doc_para(
	    d, DS_METHOD,
	    "How the two periods were compared. Each side is analysed as iopsy analyze would, and its entities are "
	    "matched across the sides by their stable names (naa ids, vmhba names, VM:scsiC:T, guest disks by host "
	    "and drive; a match map for renamed ones). Per entity and counter the comparison judges the tail (p95, "
	    "p99), the time above each latency band of the rules and the busy phase of each side; the median is "
	    "reported as the typical IO and does not decide. The whole capture's tail and time above a band decide "
	    "only when both sides spend comparable shares of their time busy, so a longer or shorter capture or "
	    "window alone cannot make a change.");
	doc_para(d, DS_METHOD,
		 "Each figure has a %.0f %% interval from a circular block bootstrap (%u resamples, seed %llu; block "
		 "lengths by the Politis-White rule, idle and busy values resampled separately). A figure is improved or "
		 "regressed only when its whole interval lies beyond the material change of %g %%; latency at equal load "
		 "compares the sides within IOPS bins, so more or less work alone does not read as a change.",
		 c->o.confidence * 100, c->o.resamples, (unsigned long long)c->o.seed, c->o.material_pct);
}

static void cmp_captures(const struct compare *c, struct doc *d)
{
	doc_captures(d, &c->side[0], "before");
	doc_captures(d, &c->side[1], "after");
}

static void cmp_inputs(const struct compare *c, struct doc *d)
{
	inputs_sec(&c->side[0], "before", d);
	inputs_sec(&c->side[1], "after", d);
}

/* The comparison's methodology, then the glossary of the analyses'. */
static void cmp_method(const struct compare *c, struct doc *d)
{
	compare_method_sec(c, d);
	struct doc a;
	doc_init(&a, d->lt);
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

/* A comparison's sections: one builder each (its summary and verdict are doc_compare_summary's). */
void doc_of_compare(const struct compare *c, const struct ltime *lt, struct doc *d)
{
	static void (*const build[])(const struct compare *, struct doc *) = {
	    cmp_captures, cmp_inputs, doc_vhist_compare, doc_compare_rules, doc_compare_findings, cmp_method,
	};
	doc_init(d, lt);
	for (size_t i = 0; i < sizeof build / sizeof build[0]; i++)
		build[i](c, d);
}
