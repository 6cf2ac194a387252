/* html_analysis.c — the HTML report of `iopsy analyze --html` (see html.h): verdict, findings
 * worst first, one chart per finding (gnuplot, charts.c) with the threshold drawn and the window
 * shaded, the IO stack of the affected disks, per-entity summary tables, capture metadata and
 * warnings, and the analysis JSON; the page chrome and the charts machinery are html.c's. Every
 * string that came from a capture passes through html_escape(). */
#include "doc.h"
#include "html_int.h"
#include "html_vhist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "version.h"
#include "view.h"
#include "viewdata.h"

/* Engine text (a finding's summary or advice) for the customer, escaped (doc_customer_text). */
static void esc_words(struct buf *b, const char *s)
{
	struct buf t;
	buf_init(&t);
	doc_customer_text(&t, s);
	esc(b, t.data ? t.data : "");
	buf_free(&t);
}

/* ---- model access ---- */




static const struct capture *cap_of(const struct analysis *a, const struct entity *e) { return &a->m.caps[e->capture]; }

static const struct entity *fentity(const struct analysis *a, const struct finding *f, int m)
{
	struct topo_in ti = analysis_topo(a);
	return finding_entity(&ti, f, m);
}

static const struct entity *vdisk_of(const struct analysis *a, const struct entity *g, const struct diskmap_entry **me)
{
	struct topo_in ti = analysis_topo(a);
	return topology_vdisk_of_guest(&ti, g, me);
}

/* Points of one series of an entity (aligned times). Caller frees. */
static struct chart_point *series_points(const struct analysis *a, const struct entity *e, int m, size_t *n)
{
	*n = 0;
	if (!e || m < 0 || e->series[m] < 0)
		return NULL;
	const struct capture *c = cap_of(a, e);
	const struct dstore *d = &c->ds;
	if (!d->nb)
		return NULL;
	struct chart_point *p = xmalloc(d->nb * sizeof *p);
	size_t s = (size_t)e->series[m];
	for (size_t k = 0; k < d->nb; k++) {
		p[k].t = (double)model_time(&a->m, c, k) / 1000.0;
		p[k].mean = ds_mean(d, s, k);
		p[k].min = ds_min(d, s, k);
		p[k].max = ds_max(d, s, k);
	}
	*n = d->nb;
	return p;
}

/* ---- the IO stack of one disk: guest disk → virtual disk → device → adapter (doc_stacks) ---- */

/* s as an element's text: & < > escaped (quotes need none outside an attribute). */
static void esc_content(struct buf *b, const char *s)
{
	for (; *s; s++)
		if (*s == '&')
			buf_adds(b, "&amp;");
		else if (*s == '<')
			buf_adds(b, "&lt;");
		else if (*s == '>')
			buf_adds(b, "&gt;");
		else
			buf_addc(b, *s);
}

static const char *cell_s(const struct doc_block *t, size_t r, int k)
{
	const struct doc_cell *c = &t->cell[r * (size_t)t->ncols + (size_t)k];
	return c->t == CELL_TEXT ? c->s : NULL;
}

/* An IO stack of the document (ROLE_STACK): a box a tier, top to bottom, then how its layers were
 * matched (how: ROLE_STACK_HOW, or NULL). */
static void stack_render(const struct doc_block *t, const struct doc_block *how, struct buf *b)
{
	buf_adds(b, "<div class=\"stack\">\n");
	for (size_t pos = 0; pos < t->nrows; pos++) {
		const char *state = cell_s(t, pos, SB_STATE), *why = cell_s(t, pos, SB_WHY), *name = cell_s(t, pos, SB_ENTITY);
		int sev = (int)t->cell[pos * (size_t)t->ncols + SB_SEV].v;
		bool waits = strcmp(state, stack_states[SST_WAITS]) == 0;
		const char *cls = !name  ? "absent"
				  : waits ? sev_class(sev > 0 ? sev : SEV_WARNING)
				  : sev >= SEV_WARNING ? "symptom"
						       : "ok";
		if (pos)
			buf_adds(b, "<div class=\"arrow\" aria-hidden=\"true\"><span class=\"ar\"></span></div>\n");
		buf_printf(b, "<div class=\"tier tier-%s\">\n<div class=\"tier-name\">", cls);
		esc(b, cell_s(t, pos, SB_BOX));
		buf_adds(b, "</div><div class=\"tier-role\">");
		esc_content(b, cell_s(t, pos, SB_ROLE));
		buf_adds(b, "</div>\n");
		if (!name) {
			buf_adds(b, "<div class=\"tier-ent muted\">not in the captures</div>");
		} else {
			buf_adds(b, "<div class=\"tier-ent\">");
			entity_label(b, cell_s(t, pos, SB_HOST), name);
			buf_adds(b, "</div><div class=\"figs\">");
			for (int f = 0; f < STACK_FIGS; f++) {
				const char *label = cell_s(t, pos, SB_FIG + 3 * f), *unit = cell_s(t, pos, SB_FIG + 3 * f + 2);
				if (!label)
					continue;
				buf_adds(b, "<span class=\"fig\"><span class=\"fl\">");
				esc(b, label);
				buf_adds(b, "</span> <b>");
				num(b, t->cell[pos * (size_t)t->ncols + (size_t)(SB_FIG + 3 * f + 1)].v);
				buf_adds(b, "</b>");
				if (unit && *unit) {
					buf_addc(b, ' ');
					esc(b, unit);
				}
				buf_adds(b, "</span>");
			}
			buf_adds(b, "</div>");
		}
		buf_adds(b, "\n<div class=\"tier-tag\">");
		if (name && (waits || strcmp(state, stack_states[SST_FELT]) == 0 || strcmp(state, stack_states[SST_NOTE]) == 0)) {
			buf_printf(b, "<span class=\"tag %s\">", waits ? sev_class(sev) : sev >= SEV_WARNING ? "symptom" : "info");
			esc(b, state);
			buf_adds(b, "</span><small>");
			esc(b, why ? why : "");
			buf_adds(b, "</small>");
		} else if (name && strcmp(state, stack_states[SST_OK]) == 0) {
			buf_adds(b, "<span class=\"tag ok\">no wait found</span>");
		} else if (name) {
			buf_adds(b, "<span class=\"tag info\">not assessed</span><small>see what the captures could show</small>");
		}
		buf_adds(b, "</div>\n</div>\n");
	}
	buf_adds(b, "</div>\n");
	if (how && how->nrows) {
		buf_adds(b, "<p class=\"how\">Layers matched: ");
		for (size_t r = 0; r < how->nrows; r++) {
			buf_adds(b, "<span>");
			esc(b, how->cell[r].s);
			buf_adds(b, "</span>");
		}
		buf_adds(b, "</p>\n");
	}
}

/* ---- charts of a finding ---- */

static const char *unit_label(const char *u) { return u && *u ? u : "ratio"; }

/* Host-side latency of the virtual disk mapped to guest disk g, weighted by reads/writes. */
static struct chart_point *host_latency_points(const struct analysis *a, const struct entity *v, size_t *n)
{
	size_t nr, nw, nlr, nlw;
	struct chart_point *r = series_points(a, v, M_READS, &nr), *w = series_points(a, v, M_WRITES, &nw);
	struct chart_point *lr = series_points(a, v, M_VD_LAT_R, &nlr), *lw = series_points(a, v, M_VD_LAT_W, &nlw);
	struct chart_point *out = NULL;
	*n = 0;
	size_t len = lr ? nlr : lw ? nlw : 0;
	if (len) {
		out = xmalloc(len * sizeof *out);
		for (size_t k = 0; k < len; k++) {
			double R = r && k < nr ? r[k].mean : NAN, W = w && k < nw ? w[k].mean : NAN;
			double LR = lr ? lr[k].mean : NAN, LW = lw && k < nlw ? lw[k].mean : NAN;
			double v2;
			if (isnan(R) || isnan(W) || R + W <= 0)
				v2 = !isnan(LR) ? LR : LW;
			else
				v2 = ((isnan(LR) ? 0 : R * LR) + (isnan(LW) ? 0 : W * LW)) / ((isnan(LR) ? 0 : R) + (isnan(LW) ? 0 : W));
			out[k].t = lr ? lr[k].t : lw[k].t;
			out[k].mean = out[k].min = out[k].max = v2;
		}
		*n = len;
	}
	free(r);
	free(w);
	free(lr);
	free(lw);
	return out;
}

/* Builds the chart of finding f. Returns the entity whose capture gives the time axis, or NULL
 * when nothing can be charted. */
static const struct entity *chart_build(const struct analysis *a, const struct finding *f, struct chart *c)
{
	chart_init(c);
	int metrics[MAX_EVIDENCE + 4];
	double thr[MAX_EVIDENCE + 4];
	int nm = 0;
	for (int k = 0; k < f->nev; k++) {
		thr[nm] = f->ev[k].threshold;
		metrics[nm++] = (int)f->ev[k].metric;
	}
	if (!nm) {
		/* findings from logs or partition tables: the entity's own counters for context */
		const struct entity *e = fentity(a, f, -1);
		if (!e)
			return NULL;
		static const int dev[] = {M_DQLEN, M_ACTV, M_QUED, M_DAVG, M_KAVG};
		static const int gst[] = {M_G_LAT_R, M_G_LAT_W, M_G_CDQL, M_G_XFERS};
		const int *l = e->layer == LAYER_GUEST ? gst : dev;
		int ln = e->layer == LAYER_GUEST ? 4 : 5;
		for (int i = 0; i < ln; i++) {
			thr[nm] = NAN;
			metrics[nm++] = l[i];
		}
	}
	const struct entity *axis = NULL;
	const char *units[CHART_MAX_PANELS];
	int nu = 0;
	for (int i = 0; i < nm; i++) {
		const struct entity *e = fentity(a, f, metrics[i]);
		if (!e)
			continue;
		const char *u = unit_label(metric_info[metrics[i]].unit);
		if (!strcmp(u, "commands"))
			u = "IOs"; /* esxtop commands and perfmon IOs share a panel */
		int p = -1;
		for (int k = 0; k < nu; k++)
			if (strcmp(units[k], u) == 0)
				p = k;
		if (p < 0) {
			if (nu == CHART_MAX_PANELS)
				continue;
			p = nu;
			units[nu++] = u;
			snprintf(c->panel[p].ylabel, sizeof c->panel[p].ylabel, "%s", u);
		}
		size_t n;
		struct chart_point *pts = series_points(a, e, metrics[i], &n);
		if (pts && chart_add_series(c, metric_info[metrics[i]].label, p, CS_BAND, 0, pts, n)) {
			if (!axis)
				axis = e;
			if (!isnan(thr[i]) && isnan(c->panel[p].threshold)) {
				c->panel[p].threshold = thr[i];
				if (f->kind == K_Q_GUEST_VSCSI_CAP &&
				    metrics[i] == M_G_CDQL) /* the rule: within 1 of the limit */
					snprintf(c->panel[p].threshold_label, sizeof c->panel[p].threshold_label,
						 "at the per-disk limit (%g IOs): %g or more", thr[i] + 1, thr[i]);
				else
					snprintf(c->panel[p].threshold_label, sizeof c->panel[p].threshold_label,
						 "threshold %g %s", thr[i], strcmp(u, "ratio") ? u : "");
			}
		}
		free(pts);
	}
	if (!axis)
		return NULL;
	/* the guest's view against the host's view of the same virtual disk */
	if (axis->layer == LAYER_GUEST) {
		const struct diskmap_entry *me;
		const struct entity *v = vdisk_of(a, axis, &me);
		for (int p = 0; v && p < c->npanels; p++) {
			if (strcmp(c->panel[p].ylabel, "ms") != 0)
				continue;
			size_t n;
			struct chart_point *pts = host_latency_points(a, v, &n);
			if (pts)
				chart_add_series(c, "host view (esxtop)", p, CS_DASHED, 0, pts, n);
			free(pts);
		}
	}
	const struct capture *cp = cap_of(a, axis);
	c->t0 = (double)(cp->start + cp->clock_offset_ms) / 1000.0;
	c->t1 = (double)(cp->end + cp->clock_offset_ms) / 1000.0;
	if (c->t1 <= c->t0)
		c->t1 = c->t0 + 1;
	if (f->end > f->start) {
		c->shade0 = (double)f->start / 1000.0;
		c->shade1 = (double)f->end / 1000.0;
	}
	return axis;
}

/* The overview chart of entity e (a guest disk or a device): its latency over the whole capture
 * against the rule's warning and critical bands, and its load below. false when it has none. */
static bool overview_chart(const struct analysis *a, const struct entity *e, struct chart *c)
{
	chart_init(c);
	bool guest = e->layer == LAYER_GUEST;
	static const int gm[2] = {M_G_LAT_R, M_G_LAT_W}, dm[2] = {M_DAVG, M_KAVG};
	static const char *const gl[2] = {"reads (Avg. Disk sec/Read)", "writes (Avg. Disk sec/Write)"};
	static const char *const dl[2] = {"device latency, reads and writes (DAVG)", "kernel queueing (KAVG)"};
	for (int k = 0; k < 2; k++) {
		size_t n;
		struct chart_point *pts = series_points(a, e, guest ? gm[k] : dm[k], &n);
		if (pts)
			chart_add_series(c, guest ? gl[k] : dl[k], 0, CS_BAND, 0, pts, n);
		free(pts);
	}
	if (!c->ns)
		return false;
	snprintf(c->panel[0].ylabel, sizeof c->panel[0].ylabel, "ms");
	struct entity_ref who = {.layer = e->layer, .host = e->host, .name = e->name};
	double w = rules_for(&a->rules, guest ? R_GUEST_LAT_WARN : R_DAVG_WARN, &who);
	double cr = rules_for(&a->rules, guest ? R_GUEST_LAT_CRIT : R_DAVG_CRIT, &who);
	c->panel[0].threshold = w;
	snprintf(c->panel[0].threshold_label, sizeof c->panel[0].threshold_label, "warning %g ms", w);
	c->panel[0].threshold2 = cr;
	snprintf(c->panel[0].threshold2_label, sizeof c->panel[0].threshold2_label, "critical %g ms", cr);
	size_t n;
	struct chart_point *pts = series_points(a, e, guest ? M_G_XFERS : M_CMDS, &n);
	if (pts && chart_add_series(c, guest ? "IO/s (Disk Transfers/sec)" : "IO/s (Commands/sec)", 1, CS_LINE, 3, pts, n))
		snprintf(c->panel[1].ylabel, sizeof c->panel[1].ylabel, "IO/s");
	free(pts);
	const struct capture *cp = cap_of(a, e);
	c->t0 = (double)(cp->start + cp->clock_offset_ms) / 1000.0;
	c->t1 = (double)(cp->end + cp->clock_offset_ms) / 1000.0;
	if (c->t1 <= c->t0)
		c->t1 = c->t0 + 1;
	return true;
}

/* A heading that continues the group of numbers before it: "/", "\n" or an en dash. */
static bool ent_cont(const char *h) { return !strcmp(h, "/") || !strcmp(h, "\n") || !strcmp(h, "\xe2\x80\x93"); }

/* A heading of an entities table (ROLE_ENT_GROUP, ROLE_ENT_VMS): "name\nsub" a numbers column, ""
 * an empty one, else a text column. */
static void ent_head(struct buf *b, const char *h)
{
	if (!*h) {
		buf_adds(b, "<th></th>");
		return;
	}
	buf_adds(b, strchr(h, '\n') ? "<th class=\"n\">" : "<th>");
	struct buf seg;
	buf_init(&seg);
	for (const char *p = h;; p++) {
		bool dash = strncmp(p, "\xe2\x80\x93", 3) == 0;
		if (*p && *p != '\n' && !dash) {
			buf_addc(&seg, *p);
			continue;
		}
		if (seg.len)
			esc(b, seg.data);
		buf_reset(&seg);
		if (!*p)
			break;
		buf_adds(b, dash ? "&ndash;" : "<br>");
		p += dash ? 2 : 0;
	}
	buf_free(&seg);
	buf_adds(b, "</th>");
}

/* Row r's cells from column k0 (doc_entity_tables): a group of numbers a cell, its columns joined
 * as their headings say ("/", a line break, an en dash before a cell that is not none); a group
 * with no number at all an en dash. */
static void ent_cells(const struct doc_block *t, size_t r, int k0, struct buf *b)
{
	const struct doc_cell *row = &t->cell[r * (size_t)t->ncols];
	for (int k = k0; k < t->ncols;) {
		const char *h = t->head[k];
		if (!*h) {
			buf_adds(b, "<td></td>");
			k++;
			continue;
		}
		int end = k + 1;
		while (end < t->ncols && ent_cont(t->head[end]))
			end++;
		bool any = false;
		for (int i = k; i < end; i++)
			any |= row[i].t != CELL_NONE;
		buf_adds(b, "<td class=\"n\">");
		if (!any)
			buf_adds(b, "&ndash;");
		for (int i = k; any && i < end; i++) {
			if (i > k && row[i].t == CELL_NONE && strcmp(t->head[i], "/") != 0)
				continue;
			if (i > k)
				buf_adds(b, !strcmp(t->head[i], "/") ? "<span class=\"sep\">/</span>"
					    : !strcmp(t->head[i], "\n") ? "<br>"
									: "&ndash;");
			num(b, row[i].t == CELL_NUM ? row[i].v : NAN);
		}
		buf_adds(b, "</td>");
		k = end;
	}
}

/* The document's entities tables (doc_entity_tables); the idle ones are in the JSON the HTML file
 * embeds, or the PDF carries as an attachment (o->attached), else said to be left out. */
static void entity_tables(const struct doc *d, const struct html_opts *o, struct buf *b)
{
	const struct doc_section *sec = &d->sec[DS_ENTITIES];
	for (size_t i = 0; i < sec->nb; i++) {
		const struct doc_block *t = &sec->b[i];
		if (t->role == ROLE_ENT_IDLE) {
			buf_adds(b, "<p class=\"small muted\">");
			esc(b, t->text);
			buf_adds(b, !o->print	 ? "; all are in the JSON embedded in this file.</p>\n"
				    : o->attached ? "; all are in the JSON attached to this PDF.</p>\n"
						  : ".</p>\n");
		}
		if ((t->role != ROLE_ENT_GROUP && t->role != ROLE_ENT_VMS) || !t->nrows)
			continue;
		bool vms = t->role == ROLE_ENT_VMS;
		buf_adds(b, "<h4>");
		esc(b, t->text);
		if (!vms) {
			buf_adds(b, " &middot; <span class=\"ent\">");
			esc(b, t->cell[0].s);
			buf_adds(b, "</span>");
		}
		buf_adds(b, "</h4>\n<div class=\"tablewrap\"><table class=\"ents\"><thead><tr>");
		for (int k = vms ? 0 : 1; k < t->ncols; k++)
			if (!ent_cont(t->head[k]))
				ent_head(b, t->head[k]);
		buf_adds(b, "</tr></thead><tbody>\n");
		for (size_t r = 0; r < t->nrows; r++) {
			buf_adds(b, "<tr>");
			if (vms) {
				buf_adds(b, "<td class=\"host\">");
				esc(b, t->cell[r * (size_t)t->ncols].s);
				buf_adds(b, "</td>");
			}
			buf_adds(b, "<td class=\"ent\">");
			esc(b, t->cell[r * (size_t)t->ncols + 1].s);
			buf_adds(b, "</td>");
			ent_cells(t, r, 2, b);
			buf_adds(b, "</tr>\n");
		}
		buf_adds(b, "</tbody></table></div>\n");
	}
}

/* The document's finding no: its head (ROLE_FINDING) and its evidence (ROLE_EVIDENCE, NULL). */
static const struct doc_block *fpart(const struct doc *d, size_t no, enum block_role r)
{
	size_t n = 0;
	long at = doc_finding_at(d, no, &n);
	for (size_t i = 0; at >= 0 && i < n; i++)
		if (d->sec[DS_FINDINGS].b[(size_t)at + i].role == r)
			return &d->sec[DS_FINDINGS].b[(size_t)at + i];
	return NULL;
}

/* A head's value k (enum fhead): its text, number or time. */
static const char *fh_s(const struct doc_block *h, int k) { return h->cell[k * 2 + 1].s ? h->cell[k * 2 + 1].s : ""; }
static double fh_v(const struct doc_block *h, int k) { return h->cell[k * 2 + 1].v; }
static int64_t fh_t(const struct doc_block *h, int k) { return h->cell[k * 2 + 1].ms; }

static int fh_sev(const struct doc_block *h)
{
	for (int s = 0; s < 3; s++)
		if (strcmp(severity_names[s], fh_s(h, FH_SEV)) == 0)
			return s;
	return SEV_INFO;
}

/* The title with a capital first letter, escaped. */
static void ftitle(struct buf *b, const struct doc_block *h)
{
	size_t at = b->len;
	esc(b, fh_s(h, FH_TITLE));
	if (b->len > at && b->data[at] >= 'a' && b->data[at] <= 'z')
		b->data[at] = (char)(b->data[at] - 'a' + 'A');
}

static void findings_table(const struct doc *d, const struct ltime *lt, size_t nf, struct buf *b)
{
	if (!nf) {
		buf_adds(b, "<p>No findings: nothing in the captures crosses a threshold for long enough to matter.</p>\n");
		return;
	}
	buf_adds(b, "<div class=\"tablewrap\"><table class=\"findings\"><thead><tr><th>#</th><th>Severity</th><th>Finding</th>"
		    "<th>Where</th><th>When</th><th>Evidence</th></tr></thead><tbody>\n");
	for (size_t i = 1; i <= nf; i++) {
		const struct doc_block *h = fpart(d, i, ROLE_FINDING), *ev = fpart(d, i, ROLE_EVIDENCE);
		int sev = fh_sev(h);
		int64_t t0 = fh_t(h, FH_START), t1 = fh_t(h, FH_END);
		buf_printf(b, "<tr><td>%zu</td><td><span class=\"badge %s\">%s</span></td><td><a href=\"#f%zu\">", i,
			   sev_class(sev), sev_word(sev), i);
		ftitle(b, h);
		buf_printf(b, "</a>%s</td><td class=\"where\">",
			   *fh_s(h, FH_HEUR) ? " <span class=\"heur\">heuristic</span>" : "");
		entity_label(b, fh_s(h, FH_HOST), fh_s(h, FH_ENTITY));
		buf_adds(b, "</td><td style=\"white-space:nowrap\">");
		if (t1 > t0) {
			hhmmss(b, t0);
			buf_adds(b, "&ndash;");
			hhmmss(b, t1);
			buf_adds(b, " UTC");
			if (lt->known) {
				char ab[16];
				buf_adds(b, "<br><span class=\"local\">");
				ltime_local(b, lt, t0, false);
				buf_adds(b, "&ndash;");
				ltime_local(b, lt, t1, false);
				buf_addc(b, ' ');
				esc(b, ltime_abbr(lt, t1, ab));
				buf_adds(b, "</span>");
			}
			buf_adds(b, "<br><span class=\"muted small\">");
			duration(b, fh_v(h, FH_SUSTAINED));
			buf_adds(b, "</span>");
		} else {
			buf_adds(b, "<span class=\"muted\">whole capture</span>");
		}
		buf_adds(b, "</td><td class=\"small\">");
		if (ev && ev->nrows) {
			const struct doc_cell *c = ev->cell; /* the first counter */
			esc(b, c[EV_COUNTER].s);
			buf_adds(b, ": median <b>");
			num(b, c[EV_MEDIAN].v);
			buf_printf(b, "</b> %s", c[EV_UNIT].s);
			if (c[EV_ABOVE].t == CELL_NUM && c[EV_SAMPLES].v > 0)
				buf_printf(b, " (%ld%% of samples above %g)",
					   (long)lround(100.0 * c[EV_ABOVE].v / c[EV_SAMPLES].v), c[EV_THRESHOLD].v);
		} else {
			esc(b, fh_s(h, FH_SUMMARY));
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

int report_finding_png(const struct analysis *a, const struct finding *f, const struct html_opts *o, struct buf *png,
		       struct diag *d)
{
	struct chart c;
	if (!chart_build(a, f, &c)) {
		chart_free(&c);
		return CHARTS_FAILED;
	}
	c.png = true;
	c.width = 760;
	struct chart_opts co = {.gnuplot = o->gnuplot, .keep_dir = NULL, .timeout_s = o->timeout_s};
	struct charts cs;
	struct buf why;
	buf_init(&why);
	int rc = charts_open(&cs, &co, &why);
	if (rc == 0) {
		int number;
		rc = charts_render(&cs, &c, png, &number, &why);
	}
	if (rc < 0 && why.len)
		diag_emit(d, DIAG_WARNING, 0, 0, "the chart of the top finding: %s", why.data);
	buf_free(&why);
	charts_close(&cs);
	chart_free(&c);
	return rc;
}

/* The verdict: its sentence, the counts by severity, what was assessed. */
static void verdict_section(const struct doc *d, const struct html_result *res, int worst, const int *cnt,
			    bool complete, struct buf *out)
{
	buf_printf(out, "<section id=\"verdict\" class=\"verdict %s\">\n<h2>Verdict</h2>\n<p class=\"lead\">",
		   worst >= SEV_WARNING ? sev_class(worst)
		   : !complete          ? "partial"
		   : worst < 0          ? "ok"
					: sev_class(worst));
	const struct doc_section *v = &d->sec[DS_VERDICT];
	esc_words(out, v->nb && v->b[0].text && *v->b[0].text ? v->b[0].text : "No analysis result.");
	buf_adds(out, "</p>\n");
	doc_notices_html(d, out);
	buf_adds(out, "<div class=\"counts\">");
	buf_printf(out, "<div class=\"count crit\"><b>%d</b>critical</div><div class=\"count warn\"><b>%d</b>warning</div>"
			"<div class=\"count info\"><b>%d</b>info</div>",
		   cnt[SEV_CRITICAL], cnt[SEV_WARNING], cnt[SEV_INFO]);
	buf_adds(out, "</div>\n");
	if (res->no_gnuplot)
		buf_adds(out, "<p class=\"notice\"><b>Charts are not included:</b> gnuplot was not found on the machine that made this "
			      "report. Install gnuplot (Debian: <code>gnuplot-nox</code>) and run <code>iopsy analyze --html</code> again.</p>\n");
	doc_html(d, DS_COVERAGE, out);
	buf_adds(out, "</section>\n");
}

/* The IO stack of each disk the analysis shows (the affected ones, else the busiest): the
 * document's stacks (doc_stacks). */
static void stack_section(const struct doc *d, struct buf *out)
{
	const struct doc_section *sec = &d->sec[DS_IOPATH];
	int nch = 0;
	const struct doc_block *first = NULL;
	for (size_t i = 0; i < sec->nb; i++)
		if (sec->b[i].role == ROLE_STACK_HEAD && !nch++)
			first = &sec->b[i];
	buf_adds(out, "<section id=\"stack\">\n");
	buf_printf(out, "<h2>The IO stack of the %s disk%s</h2>\n",
		   first && first->cell[SH_NO * 2 + 1].t == CELL_NUM ? "affected" : "busiest", nch > 1 ? "s" : "");
	if (!nch) {
		buf_adds(out, "<p class=\"muted\">No disk with counters in the captures.</p>\n");
	} else {
		buf_adds(out, "<p class=\"small muted\">From the application down to the array. Figures are medians over the finding's "
			      "window (over the whole capture when there is no finding); a marked layer is where IOs wait.</p>\n");
		for (size_t i = 0; i < sec->nb; i++) {
			const struct doc_block *h = &sec->b[i];
			if (h->role != ROLE_STACK_HEAD || i + 1 >= sec->nb || sec->b[i + 1].role != ROLE_STACK)
				continue;
			buf_adds(out, "<div class=\"stack-block\">\n<p class=\"stack-title\">");
			if (h->cell[SH_NO * 2 + 1].t == CELL_NUM) {
				size_t idx = (size_t)h->cell[SH_NO * 2 + 1].v;
				buf_printf(out, "Finding <a href=\"#f%zu\">%zu</a> &middot; ", idx, idx);
				size_t at = out->len;
				esc(out, h->cell[SH_TITLE * 2 + 1].s);
				if (out->len > at && out->data[at] >= 'a' && out->data[at] <= 'z')
					out->data[at] = (char)(out->data[at] - 'a' + 'A');
				buf_adds(out, " &middot; ");
				entity_label(out, h->cell[SH_HOST * 2 + 1].s, h->cell[SH_ENTITY * 2 + 1].s);
			} else {
				buf_adds(out, "No findings: the busiest disk, for reference");
			}
			buf_adds(out, "</p>\n");
			const struct doc_block *how = i + 2 < sec->nb && sec->b[i + 2].role == ROLE_STACK_HOW ? &sec->b[i + 2] : NULL;
			stack_render(&sec->b[i + 1], how, out);
			buf_adds(out, "</div>\n");
		}
	}
	buf_adds(out, "</section>\n");
}

/* Finding i: its head, summary, chart, evidence, rule and advice. */
static void finding_article(const struct analysis *a, const struct doc *rd, size_t i, const struct html_opts *o,
			    const struct html_result *res, const struct ltime *lt, int max_charts, int *charts_done,
			    struct figs *figs, struct buf *out)
{
	const struct finding *f = &a->f[i];
	const struct doc_block *h = fpart(rd, i + 1, ROLE_FINDING);
	int sev = fh_sev(h);
	int64_t t0 = fh_t(h, FH_START), t1 = fh_t(h, FH_END);
	buf_printf(out, "<article class=\"finding\" id=\"f%zu\">\n<div class=\"finding-head\"><span class=\"num\">%zu</span>"
			"<span class=\"badge %s\">%s</span><h3>",
		   i + 1, i + 1, sev_class(sev), sev_word(sev));
	ftitle(out, h);
	buf_printf(out, "</h3>%s</div>\n<p class=\"where\">",
		   *fh_s(h, FH_HEUR) ? "<span class=\"heur\">heuristic rule</span>" : "");
	entity_label(out, fh_s(h, FH_HOST), fh_s(h, FH_ENTITY));
	buf_printf(out, " &middot; layer: %s", fh_s(h, FH_LAYER));
	if (t1 > t0) {
		buf_adds(out, " &middot; ");
		period_html(out, lt, t0, t1);
		buf_adds(out, " &middot; sustained ");
		duration(out, fh_v(h, FH_SUSTAINED));
	}
	buf_adds(out, "</p>\n<p class=\"summary\">");
	size_t at = out->len;
	esc_words(out, fh_s(h, FH_SUMMARY));
	if (out->len > at && out->data[at] >= 'a' && out->data[at] <= 'z')
		out->data[at] = (char)(out->data[at] - 'a' + 'A');
	buf_adds(out, "</p>\n");
	/* the chart */
	if (res->no_gnuplot && !o->gnuplot_dir) {
		/* said once at the top */
	} else if (*charts_done >= max_charts) {
		buf_printf(out, "<p class=\"nochart\">No chart: only the %d worst findings are charted.</p>\n", max_charts);
	} else {
		struct chart c;
		const struct entity *axis = chart_build(a, f, &c);
		c.ltz = lt->known ? &lt->z : NULL;
		if (!axis) {
			buf_adds(out, "<p class=\"nochart\">No chart: the counters of this finding are not in the captures.</p>\n");
		} else {
			struct buf cap;
			buf_init(&cap);
			buf_adds(&cap, "Counters of ");
			entity_label(&cap, axis->host, axis->name);
			buf_adds(&cap, " from <span class=\"ent\">");
			esc(&cap, cap_of(a, axis)->path);
			buf_adds(&cap, "</span>");
			figs_add(figs, &c, out, i + 1, cap.data);
			(*charts_done)++;
			buf_free(&cap);
		}
		chart_free(&c);
	}
	doc_html_finding_part(rd, i + 1, ROLE_EVIDENCE, out);
	doc_html_finding_part(rd, i + 1, ROLE_RULE, out);
	buf_adds(out, "</article>\n");
}

/* No problem found: the evidence of health, busiest disks and LUNs first. */
static void overview_charts(const struct analysis *a, const struct model *m, const struct ltime *lt, int max_charts,
			    int *charts_done, struct figs *figs, struct buf *out)
{
	/* no problem found: show the evidence of health, busiest disks and LUNs first */
	buf_adds(out, "<h3 id=\"overview\">Overview: latency over time against the bands</h3>\n<p class=\"small muted\">"
		      "Each active guest disk and LUN over the whole capture: the line is the mean, the band its minimum "
		      "to maximum; the dashed lines are the rule's warning and critical latency.</p>\n");
	const struct entity *pick[8];
	int np = 0;
	for (int pass = 0; pass < 2; pass++) {
		int want = pass ? LAYER_DEVICE : LAYER_GUEST, metric = pass ? M_CMDS : M_G_XFERS, got = 0;
		for (int k = 0; k < 3 && np < 6; k++) {
			const struct entity *best = NULL;
			for (size_t i = 0; i < m->nents; i++) {
				const struct entity *e = &m->ents[i];
				if (e->outside)
					continue;
				if ((int)e->layer != want || !entity_active(e, &a->rules) || !entity_sk(e, metric)->n)
					continue;
				bool taken = false;
				for (int j = 0; j < np; j++)
					taken |= pick[j] == e;
				if (!taken && (!best || qs_mean(entity_sk(e, metric)) > qs_mean(entity_sk(best, metric))))
					best = e;
			}
			if (!best)
				break;
			pick[np++] = best;
			got++;
		}
		(void)got;
	}
	for (int k = 0; k < np && *charts_done < max_charts; k++) {
		struct chart c;
		if (overview_chart(a, pick[k], &c)) {
			c.ltz = lt->known ? &lt->z : NULL;
			struct buf cap;
			buf_init(&cap);
			buf_adds(&cap, pick[k]->layer == LAYER_GUEST ? "Guest disk " : "LUN ");
			entity_label(&cap, pick[k]->host, pick[k]->name);
			/* "SQL01 D: — latency", not "SQL01 D:: latency" */
			size_t nl = strlen(pick[k]->name);
			buf_adds(&cap, nl && pick[k]->name[nl - 1] == ':' ? " &mdash; latency" : ": latency");
			buf_adds(&cap, " against the bands, and its load.");
			figs_add(figs, &c, out, 0, cap.data);
			(*charts_done)++;
			buf_free(&cap);
		}
		chart_free(&c);
	}
}

/* The Explore section's series into v (view_free it): not on paper (the PDF keeps its fixed
 * charts), nor with --no-explore. Returns whether the report has the section. */
static bool explore_data(const struct analysis *a, const struct html_opts *o, struct view_data *v)
{
	view_init(v, VIEW_EXPLORE_BUDGET);
	if (o->print || a->opts.no_explore)
		return false;
	view_from_analysis(v, a);
	return v->ns > 0;
}

/* The Explore section (when on) in the customer's zone, the report's; frees v. */
static void explore_html(struct view_data *v, const struct ltime *lt, bool on, struct buf *out)
{
	if (on) {
		struct view_page_opts vo = {.tz = lt->known ? &lt->z : NULL, .version = IOPSY_VERSION, .embed = true};
		view_section(v, &vo, out);
	}
	view_free(v);
}

/* Removes the table of contents' entry id (an id, title pair) from the NULL-ended toc. */
static void toc_drop(const char **toc, const char *id)
{
	size_t i = 0;
	while (toc[i] && strcmp(toc[i], id) != 0)
		i += 2;
	for (; toc[i]; i += 2)
		toc[i] = toc[i + 2], toc[i + 1] = toc[i + 2] ? toc[i + 3] : NULL;
}

/* The table of contents: the sections the report has (the Explore section, the inputs' section
 * only when on). */
static void analysis_toc(struct buf *out, bool explore, bool inputs)
{
	const char *toc[] = {"summary", "Summary", "verdict", "Verdict", "findings", "Findings", "stack", "IO stack",
			     "details", "Evidence and charts", "entities", "Disks and LUNs", "explore", "Explore",
			     "captures", "Captures", "inputs", "Inputs", "methodology", "Methodology", NULL};
	if (!explore)
		toc_drop(toc, "explore");
	if (!inputs)
		toc_drop(toc, "inputs");
	toc_html(out, toc);
}

/* The document head and the page header: hosts, period, captures, the report's date. */
static void head_html(struct buf *out, const struct html_opts *o, const struct model *m, const struct ltime *lt,
		      int64_t t_first, int64_t t_last, bool explore)
{
	buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"iopsy " IOPSY_VERSION "\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
		      "style-src 'unsafe-inline'; img-src data:");
	if (explore) { /* the Explore section's two scripts, by their hashes: no other script runs */
		buf_adds(out, "; script-src ");
		buf_adds(out, view_csp_script);
	}
	buf_adds(out, "\">\n<title>");
	doc_title(out, o, "Storage performance analysis", m);
	buf_adds(out, "</title>\n<style>\n");
	buf_adds(out, css);
	buf_adds(out, "</style>\n");
	print_page_css(out, o, "Where does storage IO wait?");
	if (explore)
		view_style(out);
	buf_adds(out, "</head>\n<body>\n");
	{
		struct buf meta;
		buf_init(&meta);
		buf_adds(&meta, "<span>");
		hosts_line(m, &meta);
		buf_adds(&meta, "</span>");
		if (t_first < t_last) {
			buf_adds(&meta, "<span>");
			period_html(&meta, lt, t_first, t_last);
			buf_adds(&meta, "</span>");
		}
		buf_printf(&meta, "<span>%zu capture%s</span><span>report of ", m->ncaps, m->ncaps == 1 ? "" : "s");
		generated_at(&meta);
		buf_adds(&meta, "</span>");
		page_header(out, o, "storage latency analysis", "Where does storage IO wait?", meta.data);
		buf_free(&meta);
	}
}

/* The top finding's PNG for mail, drawn by the same gnuplot run as the figures (png_no 0: none). */
static void top_png_take(struct charts *cs, int png_no, const struct html_opts *o, struct html_result *res)
{
	if (png_no > 0) {
		charts_run(cs); /* already drawn with the figures when there were any */
		res->top_png = charts_take(cs, png_no, o->top_png, o->top_png_why);
	}
}

int report_html_analysis(const struct analysis *a, const struct html_opts *o, struct buf *out, struct html_result *res,
			 struct diag *d)
{
	memset(res, 0, sizeof *res);
	const struct model *m = &a->m;
	struct chart_opts co = {.gnuplot = o->gnuplot, .keep_dir = o->gnuplot_dir, .timeout_s = o->timeout_s};
	struct charts cs;
	struct buf err;
	buf_init(&err);
	int crc = charts_open(&cs, &co, &err);
	if (o->top_png) { /* no finding: 1; no chart session: why not */
		res->top_png = a->nf && crc != 0 ? crc : 1;
		if (a->nf && crc != 0)
			buf_add(o->top_png_why, err.data ? err.data : "", err.len);
	}
	if (crc == ERR_IO) {
		diag_emit(d, DIAG_ERROR, 0, 0, "%s", err.data);
		buf_free(&err);
		return ERR_IO;
	}
	if (crc == CHARTS_NO_GNUPLOT) {
		res->no_gnuplot = true;
		diag_emit(d, MSG_LEVEL(o), 0, 0, "gnuplot was not found: the report has no charts (install gnuplot-nox, or set IOPSY_GNUPLOT)");
		if (o->require_charts) {
			charts_close(&cs);
			buf_free(&err);
			return CHARTS_NO_GNUPLOT;
		}
	}
	int max_charts = o->max_charts > 0 ? o->max_charts : 40;
	struct notes nt;
	buf_init(&nt.items);
	nt.n = 0;

	int64_t t_first = INT64_MAX, t_last = INT64_MIN;
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *c = &m->caps[i];
		if (c->failed || !c->rows)
			continue;
		if (c->start + c->clock_offset_ms < t_first)
			t_first = c->start + c->clock_offset_ms;
		if (c->end + c->clock_offset_ms > t_last)
			t_last = c->end + c->clock_offset_ms;
	}
	int worst = analysis_worst(a);
	int cnt[3] = {0, 0, 0};
	for (size_t i = 0; i < a->nf; i++)
		cnt[a->f[i].sev]++;

	struct ltime lt;
	ltime_init(&lt, m, NULL);
	struct view_data vd;
	bool explore = explore_data(a, o, &vd);
	/* head */
	head_html(out, o, m, &lt, t_first, t_last, explore);
	struct doc rd;
	doc_of_analysis_only(a, &lt, &rd,
			     1u << DS_SUMMARY | 1u << DS_VERDICT | 1u << DS_COVERAGE | 1u << DS_FINDINGS |
				 1u << DS_IOPATH | 1u << DS_SQL | 1u << DS_ENTITIES | 1u << DS_INPUTS | 1u << DS_METHOD);
	analysis_toc(out, explore, rd.sec[DS_INPUTS].on);
	buf_adds(out, "<main class=\"wrap\">\n");
	rd.links = true;
	doc_html(&rd, DS_SUMMARY, out);

	/* verdict */
	verdict_section(&rd, res, worst, cnt, a->cov.complete, out);

	/* findings table */
	buf_adds(out, "<section id=\"findings\">\n<h2>Findings, worst first</h2>\n");
	findings_table(&rd, &lt, a->nf, out);
	buf_adds(out, "</section>\n");

	/* IO stack */
	stack_section(&rd, out);

	/* per finding: evidence, chart, rule, advice */
	buf_adds(out, "<section id=\"details\">\n<h2>Evidence and charts</h2>\n");
	if (a->nf)
		buf_adds(out, "<p class=\"small muted\">In each chart: <span class=\"legend-key lk-band\"></span>the line is the mean "
			      "of each plotted point and the band its minimum to maximum, so short spikes stay visible; "
			      "<span class=\"legend-key lk-win\"></span>the finding's window; <span class=\"legend-key lk-thr\"></span>the "
			      "rule's threshold. Time axes show UTC and, below it, the customer's local time; guest clocks are aligned to the host.</p>\n");
	else
		buf_adds(out, "<p class=\"muted\">No findings.</p>\n");
	int charts_done = 0;
	struct figs figs;
	figs_init(&figs, &cs, out);
	for (size_t i = 0; i < a->nf; i++) {
		finding_article(a, &rd, i, o, res, &lt, max_charts, &charts_done, &figs, out);
	}
	if (worst < SEV_WARNING && !(res->no_gnuplot && !o->gnuplot_dir)) {
		overview_charts(a, m, &lt, max_charts, &charts_done, &figs, out);
	}
	/* the top finding's PNG for mail: after every SVG (their numbers do not change), drawn by the
	 * same gnuplot run (a process less per report) */
	int png_no = 0;
	if (o->top_png && a->nf && crc == 0) {
		struct chart c;
		if (chart_build(a, &a->f[0], &c)) {
			c.ltz = lt.known ? &lt.z : NULL; /* the local time below UTC, as in the HTML's charts */
			c.png = true;
			c.width = 760;
			png_no = charts_add(&cs, &c);
		} else {
			res->top_png = CHARTS_FAILED;
		}
		chart_free(&c);
	}
	struct figlist fl = {.n = 0};
	figlist_take(&fl, &figs);
	figs_finish(&figs, out, o, res, &nt, d);
	top_png_take(&cs, png_no, o, res);
	buf_adds(out, "</section>\n");
	html_vhist_analysis(a, &lt, &cs, o, res, &nt, d, out);
	charts_close(&cs);

	/* entities */
	buf_adds(out, "<section id=\"entities\">\n<h2>Disks and LUNs at a glance</h2>\n<p class=\"small muted\">Whole-capture "
		      "distributions of the sampled values (p50 / p95 / p99 / max). Latency in ms; queue figures in outstanding IOs.</p>\n");
	entity_tables(&rd, o, out);
	buf_adds(out, "</section>\n");

	/* SQL Server while the storage waited */
	doc_html(&rd, DS_SQL, out);

	explore_html(&vd, &lt, explore, out);

	if (o->extra_html)
		buf_adds(out, o->extra_html);

	/* captures and warnings */
	buf_adds(out, "<section id=\"captures\">\n<h2>Captures</h2>\n");
	captures_section(a, &lt, out);
	capture_notes(a, &nt);
	if (res->no_gnuplot)
		note_add(&nt, "gnuplot was not found: the report has no charts.");
	if (nt.n) {
		buf_adds(out, "<h4>Warnings</h4>\n<ul class=\"warnings\">\n");
		buf_add(out, nt.items.data, nt.items.len);
		buf_adds(out, "</ul>\n");
	}
	buf_adds(out, "</section>\n");
	doc_html(&rd, DS_INPUTS, out);
	doc_html(&rd, DS_METHOD, out);
	doc_free(&rd);
	appendix_html(out, a, &fl, o, ANALYSIS_SCHEMA_VERSION);
	buf_adds(out, "</main>\n");
	footer_html(out, o);
	/* the data, for tools: json.c escapes < > & so the element cannot be closed early */
	buf_adds(out, "<script type=\"application/json\" id=\"iopsy-data\">");
	struct json j;
	json_init(&j, out, false);
	analysis_json(a, &j);
	buf_adds(out, "</script>\n</body>\n</html>\n");
	buf_free(&nt.items);
	buf_free(&err);
	if (o->require_charts && res->charts_failed)
		return CHARTS_FAILED;
	return 0;
}
