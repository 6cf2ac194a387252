/* html.c — the HTML report of `iopsy analyze --html`: verdict, findings worst first, one chart per
 * finding (gnuplot, charts.c) with the threshold drawn and the window shaded, the IO stack of the
 * affected disks, per-entity summary tables, capture metadata and warnings, and the analysis JSON.
 * Every string that came from a capture passes through html_escape(). */
#include "html.h"
#include "text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "json_out.h"
#include "text.h"
#include "compare.h"
#include "json_out.h"
#include "text.h"
#include "fmt.h"
#include "json.h"
#include "rules_out.h"
#include "ltime.h"
#include "summary.h"

#include "version.h"

/* ---- escaping and formatting ---- */

/* With --require-charts a chart that cannot be drawn is an error, else a warning. */
#define MSG_LEVEL(o) ((o)->require_charts ? DIAG_ERROR : DIAG_WARNING)


static void esc(struct buf *b, const char *s) { html_escape(b, s); }

/* The window and the selection an analysis was read with, as notices (nothing when neither). */
static void workflow_notices(const struct analysis *a, struct buf *out)
{
	struct buf ws[2];
	buf_init(&ws[0]);
	buf_init(&ws[1]);
	workflow_sentences(a, &ws[0], &ws[1]);
	for (int k = 0; k < 2; k++) {
		if (ws[k].len) {
			buf_adds(out, "<p class=\"notice\">");
			esc(out, ws[k].data);
			buf_adds(out, "</p>\n");
		}
		buf_free(&ws[k]);
	}
}
static void num(struct buf *b, double v) { fmt_num2(b, v, "&ndash;"); }
static void pct(struct buf *b, double v) { fmt_pct(b, v, "&ndash;"); }
static void duration(struct buf *b, double s) { fmt_duration(b, s, false); }
#define when fmt_when
#define hhmmss fmt_hhmmss
#define same_day fmt_same_day


/* A round axis end at or above v (1, 2, 2.5, 5 x 10^k). */
static double nice_axis(double v)
{
	if (!(v > 0) || !isfinite(v))
		return 1;
	double e = pow(10, floor(log10(v * 1.04)));
	static const double steps[] = {1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
	for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++)
		if (steps[i] * e >= v * 1.04)
			return steps[i] * e;
	return 10 * e;
}





static const char *sev_class(int sev) { return sev == SEV_CRITICAL ? "crit" : sev == SEV_WARNING ? "warn" : "info"; }
static const char *sev_word(int sev) { return sev == SEV_CRITICAL ? "Critical" : sev == SEV_WARNING ? "Warning" : "Info"; }

static const char *kind_title(enum kind k) { return kinds[k].title; }

/* The kind's title with a capital first letter, escaped. */
static void title(struct buf *b, enum kind kind)
{
	const char *t = kind_title(kind);
	size_t at = b->len;
	esc(b, t);
	if (b->len > at && b->data[at] >= 'a' && b->data[at] <= 'z')
		b->data[at] = (char)(b->data[at] - 'a' + 'A');
}

/* "SQL01 D:" / "naa.6…" with its host in a muted span */
static void entity_label(struct buf *b, const char *host, const char *name)
{
	if (host && *host) {
		buf_adds(b, "<span class=\"host\">");
		esc(b, host);
		buf_adds(b, "</span> ");
	}
	buf_adds(b, "<span class=\"ent\">");
	esc(b, name);
	buf_adds(b, "</span>");
}

/* " (local 06:03:59 &ndash; 06:15:54 UTC-07:00)" in a muted span; nothing without a zone. */
static void local_span(struct buf *b, const struct ltime *lt, int64_t t0, int64_t t1)
{
	if (!lt->known)
		return;
	struct buf t;
	buf_init(&t);
	ltime_span_note(&t, lt, t0, t1, "-");
	buf_adds(b, "<span class=\"local\">");
	esc(b, t.data);
	buf_adds(b, "</span>");
	buf_free(&t);
}

/* A period in UTC with its local time: "2026-07-27 13:00:05 &ndash; 13:19:56 UTC (local ...)". */
static void period_html(struct buf *b, const struct ltime *lt, int64_t t0, int64_t t1)
{
	fmt_when(b, t0);
	buf_adds(b, " &ndash; ");
	if (fmt_same_day(t0, t1))
		fmt_hhmmss(b, t1);
	else
		fmt_when(b, t1);
	buf_adds(b, " UTC");
	local_span(b, lt, t0, t1);
}

/* The page header: logo, kicker, title, then customer, prepared by, hosts and the periods. */
static void page_header(struct buf *out, const struct html_opts *o, const char *kicker, const char *title,
			const char *meta_html)
{
	const struct report_brand *br = o->brand;
	buf_adds(out, "<header class=\"top\"><div class=\"wrap\">\n");
	if (br && br->logo)
		brand_logo_html(br, out);
	buf_adds(out, "<p class=\"kicker\">");
	buf_adds(out, kicker);
	buf_adds(out, "</p>\n");
	if (br && br->customer) {
		buf_adds(out, "<p class=\"customer\">");
		esc(out, br->customer);
		buf_adds(out, "</p>\n");
	}
	buf_adds(out, "<h1>");
	if (br && br->title)
		esc(out, br->title);
	else
		buf_adds(out, title);
	buf_adds(out, "</h1>\n<p class=\"meta\">");
	if (br && br->prepared_by) {
		buf_adds(out, "<span>prepared by ");
		esc(out, br->prepared_by);
		buf_adds(out, "</span>");
	}
	buf_adds(out, meta_html);
	buf_adds(out, "</p>\n</div></header>\n");
}

/* The executive summary: the headline, the sentences, the recommended actions in order. Findings
 * are linked when link is set (an analysis report). */
static void summary_html(struct buf *out, const struct exec_summary *es, bool link, const struct ltime *lt)
{
	const char *tone = es->tone >= SEV_WARNING ? sev_class(es->tone) : "ok";
	buf_printf(out, "<section id=\"summary\" class=\"summary verdict %s\">\n<h2>Summary</h2>\n", tone);
	if (es->headline) {
		buf_adds(out, "<p class=\"headline\">");
		esc(out, es->headline);
		buf_adds(out, "</p>\n");
	}
	buf_adds(out, "<p class=\"lead\">");
	for (int i = 0; i < es->nsentences; i++) {
		if (i)
			buf_addc(out, ' ');
		esc(out, es->sentence[i]);
	}
	buf_adds(out, "</p>\n");
	if (es->nactions) {
		buf_adds(out, "<h3>Recommended actions, in this order</h3>\n<ol class=\"actions\">\n");
		for (int i = 0; i < es->nactions; i++) {
			const struct action *ac = &es->act[i];
			buf_adds(out, "<li><p class=\"what\">");
			esc(out, ac->what);
			buf_adds(out, "</p><p class=\"effect\"><b>Expected effect:</b> ");
			esc(out, ac->effect);
			buf_adds(out, "</p><p class=\"why\"><b>Why:</b> ");
			if (ac->nwhy && link) {
				buf_printf(out, "finding%s ", ac->nwhy > 1 ? "s" : "");
				for (int k = 0; k < ac->nwhy; k++)
					buf_printf(out, "%s<a href=\"#f%zu\">%zu</a>", k ? ", " : "", ac->why[k], ac->why[k]);
				buf_adds(out, " &mdash; ");
			}
			esc(out, ac->because);
			buf_adds(out, "</p></li>\n");
		}
		buf_adds(out, "</ol>\n");
	}
	buf_adds(out, "<p class=\"small muted\">Times are UTC");
	if (lt->known) {
		struct buf t;
		buf_init(&t);
		buf_adds(&t, ", with the customer's ");
		ltime_describe(&t, lt);
		esc(out, t.data);
		buf_free(&t);
	} else {
		buf_adds(out, "; the customer's local time is not known (give <code>--tz</code>)");
	}
	buf_adds(out, ".</p>\n</section>\n");
}

static void generated_at(struct buf *b);

/* s as the text of a CSS string: control characters and bad UTF-8 as \xNN (fmt_esc), then every
 * ASCII character but letters, digits and spaces as a CSS escape ("\3C "), so no text can end
 * the string, the rule or the <style> element. */
static void css_text(struct buf *out, const char *s)
{
	struct buf e;
	buf_init(&e);
	fmt_esc(&e, s ? s : "");
	for (const unsigned char *p = (const unsigned char *)(e.data ? e.data : ""); *p; p++) {
		if (*p >= 0x80 || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == ' ')
			buf_addc(out, (char)*p);
		else
			buf_printf(out, "\\%X ", *p);
	}
	buf_free(&e);
}

/* The print page: A4 or US Letter (--paper), and on every page a running footer — the customer
 * and the report's title, the report's date, "Page N of M" — in the page's margin boxes. */
static void print_page_css(struct buf *out, const struct html_opts *o, const char *title)
{
	const struct report_brand *br = o->brand;
	bool letter = o->paper && strcasecmp(o->paper, "letter") == 0; /* html_paper_known's other one: A4 */
	buf_printf(out, "<style>@media print{@page{size:%s;margin:14mm 12mm 16mm;", letter ? "letter" : "A4");
	static const char box[] = "font:7.5pt -apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#64748b";
	buf_adds(out, "@bottom-left{content:\"");
	if (br && br->customer && *br->customer) {
		css_text(out, br->customer);
		buf_adds(out, " \\B7  ");
	}
	css_text(out, br && br->title && *br->title ? br->title : title);
	buf_printf(out, "\";%s}@bottom-center{content:\"", box);
	struct buf d;
	buf_init(&d);
	generated_at(&d);
	css_text(out, d.data);
	buf_free(&d);
	buf_printf(out, "\";%s}@bottom-right{content:\"Page \" counter(page) \" of \" counter(pages);%s}}}</style>\n", box,
		   box);
}

/* The footer: who prepared the report for whom, and the tool. */
static void footer_html(struct buf *out, const struct html_opts *o)
{
	const struct report_brand *br = o->brand;
	buf_adds(out, "<footer class=\"wrap\">");
	if (br && br->prepared_by) {
		buf_adds(out, "Prepared by ");
		esc(out, br->prepared_by);
		if (br->customer) {
			buf_adds(out, " for ");
			esc(out, br->customer);
		}
		buf_adds(out, " &middot; ");
	} else if (br && br->customer) {
		buf_adds(out, "Prepared for ");
		esc(out, br->customer);
		buf_adds(out, " &middot; ");
	}
	buf_adds(out, "analysis by iopsy " IOPSY_VERSION " from the captures listed above.</footer>\n");
}

/* Engine text (a finding's summary or advice) for the customer: a rule id it names
 * ("queue.guest_vscsi_cap") said as the finding's title; the ids are in the appendix. */
static void esc_words(struct buf *b, const char *s)
{
	if (!s)
		return;
	struct buf t;
	buf_init(&t);
	buf_adds(&t, s);
	for (int k = 0; k < K_COUNT; k++) {
		const char *id = kinds[k].name;
		size_t n = strlen(id);
		char *p;
		while (t.data && (p = strstr(t.data, id)) != NULL) {
			struct buf u;
			buf_init(&u);
			buf_add(&u, t.data, (size_t)(p - t.data));
			buf_printf(&u, "\"%s\"", kinds[k].title);
			buf_adds(&u, p + n);
			buf_free(&t);
			t = u;
		}
	}
	esc(b, t.data);
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

/* Median of bucket means and the largest bucket max of metric m of e within [t0, t1] (aligned ms;
 * the whole capture when t0 >= t1). */
static void win_stat(const struct analysis *a, const struct entity *e, int m, int64_t t0, int64_t t1, double *med,
		     double *mx)
{
	*med = *mx = NAN;
	if (!e || e->series[m] < 0)
		return;
	const struct capture *c = cap_of(a, e);
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



/* ---- the IO stack of one disk: guest disk → virtual disk → device → adapter ---- */









static void fig(struct buf *b, const char *label, double v, const char *unit)
{
	if (isnan(v))
		return;
	buf_adds(b, "<span class=\"fig\"><span class=\"fl\">");
	buf_adds(b, label);
	buf_adds(b, "</span> <b>");
	num(b, v);
	buf_adds(b, "</b>");
	if (unit && *unit) {
		buf_addc(b, ' ');
		buf_adds(b, unit);
	}
	buf_adds(b, "</span>");
}

/* What the captures could show, a row per layer. */
static void coverage_html(const struct analysis *a, struct buf *out)
{
	static const char *const vmw[COV_LAYERS] = {"Guest OS", "Virtual SCSI", "Per-VM world queue",
						    "VMkernel device queue", "Host bus adapter", "Array / LUN"};
	static const char *const hv[COV_LAYERS] = {"Guest OS", "VHDX (Hyper-V storage)", "Other cluster nodes",
						   "Host disk", "Host bus adapter / MPIO", "Array / LUN"};
	const char *const *names = analysis_hyperv(a) ? hv : vmw;
	buf_adds(out, "<h3>What these captures could show</h3>\n<table class=\"cov\"><tr><th>Layer</th><th>Status</th>"
		      "<th>Why</th></tr>\n");
	for (int l = 0; l < COV_LAYERS; l++) {
		const struct layer_cov *lc = &a->cov.layer[l];
		buf_printf(out, "<tr><td>%s</td><td class=\"st%s\">%s</td><td>", names[l],
			   lc->status == COV_ASSESSED ? "" : lc->status == COV_PARTIAL ? " pa" : " na",
			   lc->status == COV_ASSESSED ? "assessed" : lc->status == COV_PARTIAL ? "partly assessed" : "not assessed");
		esc(out, lc->why);
		buf_adds(out, "</td></tr>\n");
	}
	buf_adds(out, "</table>\n");
}

/* A box can say "no wait found" only when its layer and its entity were assessed. */
static bool box_assessed(const struct analysis *a, int box, const struct entity *e)
{
	static const enum layer layer_of[BOX_COUNT] = {LAYER_GUEST, LAYER_VSCSI, LAYER_DEVICE, LAYER_ADAPTER, LAYER_ARRAY};
	/* a Hyper-V host disk's box is judged on the host disks (perfmon has no array layer) */
	enum layer l = box == BOX_ARRAY && model_hyperv(&a->m, e->capture) ? LAYER_DEVICE : layer_of[box];
	return a->cov.layer[l].status != COV_NOT_ASSESSED &&
	       coverage_entity_assessed(&a->cov, (size_t)(e - a->m.ents));
}

static void stack_render(const struct analysis *a, const struct stack *ch, const struct finding *anchor, struct buf *b)
{
	int64_t t0 = anchor && anchor->end > anchor->start ? anchor->start : 0;
	int64_t t1 = anchor && anchor->end > anchor->start ? anchor->end : 0;
	struct box_state st[BOX_COUNT];
	struct topo_in ti = analysis_topo(a);
	topology_boxes(&ti, ch, st);
	int sev[BOX_COUNT];
	bool waits[BOX_COUNT];
	const char *why[BOX_COUNT];
	for (int i = 0; i < BOX_COUNT; i++) {
		sev[i] = st[i].sev;
		waits[i] = st[i].waits;
		why[i] = st[i].why >= 0 ? kind_title((enum kind)st[i].why) : NULL;
	}
	bool hv = ch->vdisk && model_hyperv(&a->m, ch->vdisk->capture);
	static const char *const vmw_names[BOX_COUNT] = {"Guest OS", "Virtual SCSI", "VMkernel device queue",
							 "Host bus adapter", "Array / LUN"};
	static const char *const vmw_roles[BOX_COUNT] = {
		"the Windows disk SQL Server uses (perfmon)",
		"per-disk queue to the hypervisor: LSI Logic SAS 32, PVSCSI 64 (up to 254)",
		"the LUN's queue in ESXi: DQLEN slots, the rest wait (QUED, KAVG)",
		"the HBA's queue, shared by its LUNs (AQLEN)",
		"service time below the HBA: fabric and array (DAVG)",
	};
	static const char *const hv_names[BOX_COUNT] = {"Guest OS", "VHDX", "Hyper-V host storage", "Host bus adapter / MPIO",
							"Host disk / LUN"};
	static const char *const hv_roles[BOX_COUNT] = {
		"the Windows disk SQL Server uses (perfmon)",
		"the virtual hard disk at the host's storage VSP: Latency, where Storage QoS applies",
		"the Cluster Shared Volume or volume below the VHDX (direct or redirected IO)",
		"not in perfmon (MPIO path health is WMI)",
		"the host disk's latency: the host's queue and the array below it",
	};
	const char *const *names = hv ? hv_names : vmw_names, *const *roles = hv ? hv_roles : vmw_roles;
	const struct entity *ents[BOX_COUNT] = {ch->guest, ch->vdisk, ch->device, ch->adapter, ch->device};
	if (hv)
		ents[BOX_KERNEL] = ch->volume; /* the host storage between the VHDX and its disk: its volume */
	buf_adds(b, "<div class=\"stack\">\n");
	for (int i = 0; i < BOX_COUNT; i++) {
		const struct entity *e = ents[i];
		const char *cls = waits[i] ? sev_class(sev[i] > 0 ? sev[i] : SEV_WARNING) : sev[i] >= SEV_WARNING ? "symptom" : "ok";
		if (!e)
			cls = "absent";
		if (i)
			buf_adds(b, "<div class=\"arrow\" aria-hidden=\"true\"><span class=\"ar\"></span></div>\n");
		buf_printf(b, "<div class=\"tier tier-%s\">\n<div class=\"tier-name\">%s</div><div class=\"tier-role\">%s</div>\n",
			   cls, names[i], roles[i]);
		if (!e) {
			buf_adds(b, "<div class=\"tier-ent muted\">not in the captures</div>");
		} else {
			buf_adds(b, "<div class=\"tier-ent\">");
			entity_label(b, e->host, e->name);
			buf_adds(b, "</div><div class=\"figs\">");
			double m, x;
			switch (i) {
			case BOX_GUEST:
				win_stat(a, e, M_G_LAT_R, t0, t1, &m, &x);
				fig(b, "read", m, "ms");
				win_stat(a, e, M_G_LAT_W, t0, t1, &m, &x);
				fig(b, "write", m, "ms");
				win_stat(a, e, M_G_CDQL, t0, t1, &m, &x);
				fig(b, "queue", m, "IOs");
				win_stat(a, e, M_G_XFERS, t0, t1, &m, &x);
				fig(b, "load", m, "IO/s");
				break;
			case BOX_VSCSI:
				if (hv) {
					win_stat(a, e, M_HV_LAT, t0, t1, &m, &x);
					fig(b, "latency", m, "ms");
					win_stat(a, e, M_HV_LOWER_LAT, t0, t1, &m, &x);
					fig(b, "below", m, "ms");
					win_stat(a, e, M_CMDS, t0, t1, &m, &x);
					fig(b, "load", m, "IO/s");
					break;
				}
				win_stat(a, e, M_VD_LAT_R, t0, t1, &m, &x);
				fig(b, "read", m, "ms");
				win_stat(a, e, M_VD_LAT_W, t0, t1, &m, &x);
				fig(b, "write", m, "ms");
				win_stat(a, e, M_CMDS, t0, t1, &m, &x);
				fig(b, "load", m, "IO/s");
				break;
			case BOX_KERNEL:
				if (hv) {
					win_stat(a, e, M_H_LAT_R, t0, t1, &m, &x);
					fig(b, "read", m, "ms");
					win_stat(a, e, M_H_LAT_W, t0, t1, &m, &x);
					fig(b, "write", m, "ms");
					win_stat(a, e, M_CSV_REDIR_R, t0, t1, &m, &x);
					double rw = m;
					win_stat(a, e, M_CSV_REDIR_W, t0, t1, &m, &x);
					fig(b, "redirected", isnan(rw) && isnan(m) ? NAN : (isnan(rw) ? 0 : rw) + (isnan(m) ? 0 : m), "IO/s");
					break;
				}
				win_stat(a, e, M_KAVG, t0, t1, &m, &x);
				fig(b, "KAVG", m, "ms");
				win_stat(a, e, M_ACTV, t0, t1, &m, &x);
				fig(b, "ACTV", m, "");
				win_stat(a, e, M_DQLEN, t0, t1, &m, &x);
				fig(b, "DQLEN", m, "");
				win_stat(a, e, M_QUED, t0, t1, &m, &x);
				fig(b, "QUED", m, "");
				break;
			case BOX_ADAPTER:
				win_stat(a, e, M_ACTV, t0, t1, &m, &x);
				fig(b, "ACTV", m, "");
				win_stat(a, e, M_AQLEN, t0, t1, &m, &x);
				fig(b, "AQLEN", m, "");
				win_stat(a, e, M_CMDS, t0, t1, &m, &x);
				fig(b, "load", m, "IO/s");
				break;
			case BOX_ARRAY:
				if (hv) {
					win_stat(a, e, M_H_LAT_R, t0, t1, &m, &x);
					fig(b, "read", m, "ms");
					win_stat(a, e, M_H_LAT_W, t0, t1, &m, &x);
					fig(b, "write", m, "ms");
					break;
				}
				win_stat(a, e, M_DAVG, t0, t1, &m, &x);
				fig(b, "DAVG", m, "ms");
				fig(b, "max", x, "ms");
				break;
			default: break;
			}
			buf_adds(b, "</div>");
		}
		buf_adds(b, "\n<div class=\"tier-tag\">");
		if (e && waits[i])
			buf_printf(b, "<span class=\"tag %s\">IO waits here</span><small>%s</small>", sev_class(sev[i]), why[i]);
		else if (e && sev[i] >= SEV_WARNING)
			buf_printf(b, "<span class=\"tag symptom\">latency felt here</span><small>%s</small>", why[i]);
		else if (e && sev[i] == SEV_INFO)
			buf_printf(b, "<span class=\"tag info\">note</span><small>%s</small>", why[i]);
		else if (e && box_assessed(a, i, e))
			buf_adds(b, "<span class=\"tag ok\">no wait found</span>");
		else if (e)
			buf_adds(b, "<span class=\"tag info\">not assessed</span><small>see what the captures could show</small>");
		buf_adds(b, "</div>\n</div>\n");
	}
	buf_adds(b, "</div>\n");
	/* how the layers were tied together */
	struct buf how;
	buf_init(&how);
	if (ch->guest && ch->vdisk && ch->map) {
		if (ch->map->automatic)
			buf_printf(&how, "<span>guest disk = virtual disk by IOPS correlation (r = %.2f)</span>", ch->map->correlation);
		else
			buf_adds(&how, "<span>guest disk = virtual disk from the --map file</span>");
	}
	if (ch->vdisk && ch->device && ch->l_dev.why) {
		buf_printf(&how, "<span>virtual disk on this LUN: %s, ", ch->l_dev.how == LINK_ID ? "a fact" : "a guess");
		esc(&how, ch->l_dev.why);
		buf_adds(&how, "</span>");
	} else if (ch->vdisk && !ch->device && ch->back == BACK_NOT_SHOWN && ch->l_dev.why) {
		buf_adds(&how, "<span>virtual disk on no SCSI device of the capture: ");
		esc(&how, ch->l_dev.why);
		buf_adds(&how, "</span>");
	}
	if (ch->device && ch->adapter && ch->l_adp.why) {
		buf_printf(&how, "<span>LUN behind this adapter: %s, ", ch->l_adp.how == LINK_ID ? "a fact" : "a guess");
		esc(&how, ch->l_adp.why);
		buf_adds(&how, "</span>");
	}
	if (how.len) {
		buf_adds(b, "<p class=\"how\">Layers matched: ");
		buf_add(b, how.data, how.len);
		buf_adds(b, "</p>\n");
	}
	buf_free(&how);
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
				snprintf(c->panel[p].threshold_label, sizeof c->panel[p].threshold_label, "threshold %g %s", thr[i],
					 strcmp(u, "ratio") ? u : "");
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

/* ---- sections ---- */

static const char css[] =
	":root{--ink:#1c2433;--muted:#5d6779;--faint:#8a93a3;--line:#dfe3ea;--bg:#f4f5f7;--card:#fff;"
	"--accent:#1f3a5f;--crit:#b42318;--crit-bg:#fdeceb;--warn:#9a5b00;--warn-bg:#fff4e0;--info:#1f5fa8;"
	"--info-bg:#e9f1fb;--ok:#2f6f44;--ok-bg:#e8f4ec;--mono:ui-monospace,SFMono-Regular,Menlo,Consolas,"
	"'DejaVu Sans Mono',monospace;--sans:system-ui,-apple-system,'Segoe UI',Roboto,'Helvetica Neue',Arial,"
	"'DejaVu Sans',sans-serif}\n"
	"*{box-sizing:border-box}\n"
	"html{-webkit-text-size-adjust:100%}\n"
	"body{margin:0;background:var(--bg);color:var(--ink);font:15px/1.55 var(--sans)}\n"
	".wrap{max-width:1120px;margin:0 auto;padding:0 28px}\n"
	"header.top{background:var(--accent);color:#fff;padding:30px 0 26px}\n"
	"header.top .kicker{text-transform:uppercase;letter-spacing:.12em;font-size:12px;opacity:.75;margin:0 0 6px}\n"
	"header.top h1{margin:0;font-size:28px;font-weight:600;letter-spacing:-.01em}\n"
	"header.top .meta{margin:10px 0 0;font-size:14px;opacity:.88}\n"
	"header.top .meta span+span:before{content:'\\00b7';margin:0 .6em;opacity:.7}\n"
	"nav.toc{background:#fff;border-bottom:1px solid var(--line);font-size:13.5px}\n"
	"nav.toc .wrap{display:flex;flex-wrap:wrap;gap:4px 22px;padding-top:10px;padding-bottom:10px}\n"
	"nav.toc a{color:var(--muted);text-decoration:none}nav.toc a:hover{color:var(--accent)}\n"
	"main{padding:8px 0 40px}\n"
	"section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:22px 26px;margin:20px 0}\n"
	"h2{font-size:20px;margin:0 0 14px;color:var(--accent);font-weight:600}\n"
	"h3{font-size:16.5px;margin:0;font-weight:600}\n"
	"h4{font-size:13px;margin:18px 0 6px;color:var(--muted);text-transform:uppercase;letter-spacing:.05em}\n"
	"p{margin:.4em 0 .8em}\n"
	".muted{color:var(--muted)}.small{font-size:13px}\n"
	".lead{font-size:17px;line-height:1.55;margin:0}\n"
	".verdict{border-left:6px solid var(--ok)}\n"
	".verdict.crit{border-left-color:var(--crit)}.verdict.warn{border-left-color:#d98a00}.verdict.info{border-left-color:var(--info)}\n"
	".verdict.partial{border-left-color:#8a94a6}\n"
	"table.cov td.st{white-space:nowrap;font-weight:600}table.cov td.st.na{color:#8a2d2d}table.cov td.st.pa{color:#8a5a00}\n"
	".counts{display:flex;gap:10px;flex-wrap:wrap;margin:16px 0 0}\n"
	".count{border:1px solid var(--line);border-radius:8px;padding:8px 14px;min-width:110px}\n"
	".count b{display:block;font-size:22px;line-height:1.2}\n"
	".count.crit b{color:var(--crit)}.count.warn b{color:var(--warn)}.count.info b{color:var(--info)}\n"
	".notice{border-radius:8px;padding:10px 14px;margin:14px 0 0;background:var(--warn-bg);color:#6b4200;font-size:14px}\n"
	"table{border-collapse:collapse;width:100%;font-size:13.5px}\n"
	"th,td{padding:7px 9px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\n"
	"thead th{font-weight:600;color:var(--muted);font-size:11.5px;text-transform:uppercase;letter-spacing:.04em;"
	"border-bottom:2px solid var(--line);white-space:nowrap}\n"
	"tbody tr:last-child td{border-bottom:none}\n"
	"td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}\n"
	"td.n .sep{color:var(--faint);margin:0 .25em}\n"
	".ent{font-family:var(--mono);font-size:.92em;overflow-wrap:anywhere}\n"
	".host{color:var(--muted)}\n"
	".badge{display:inline-block;padding:1px 9px;border-radius:999px;font-size:12px;font-weight:600;white-space:nowrap;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".badge.crit{background:var(--crit-bg);color:var(--crit)}.badge.warn{background:var(--warn-bg);color:var(--warn)}"
	".badge.info{background:var(--info-bg);color:var(--info)}\n"
	".heur{font-size:11.5px;color:var(--muted);border:1px solid var(--line);border-radius:999px;padding:0 7px;margin-left:4px;white-space:nowrap}\n"
	"table.findings td:first-child{color:var(--faint);width:2.2em}\n"
	"table.findings td.where{min-width:9em}\n"
	"table.findings a{color:inherit;text-decoration:none}table.findings a:hover{text-decoration:underline}\n"
	".finding{border-top:1px solid var(--line);padding:22px 0 8px}\n"
	".finding:first-of-type{border-top:none;padding-top:4px}\n"
	".finding-head{display:flex;gap:12px;align-items:baseline;flex-wrap:wrap}\n"
	".finding-head .num{color:var(--faint);font-weight:600}\n"
	".finding .where{margin:4px 0 8px;color:var(--muted);font-size:14px}\n"
	".finding .summary{font-size:15.5px}\n"
	"dl.rule{display:grid;grid-template-columns:88px 1fr;gap:6px 14px;margin:12px 0 0;font-size:14px}\n"
	"dl.rule dt{color:var(--muted);font-weight:600}dl.rule dd{margin:0}\n"
	"dl.rule dd.advice{background:var(--info-bg);border-radius:6px;padding:8px 12px}\n"
	"figure.chart{margin:14px 0 6px;border:1px solid var(--line);border-radius:8px;padding:10px 10px 6px;background:#fff;"
	"break-inside:avoid;page-break-inside:avoid}\n"
	"figure.chart svg{display:block;width:100%;height:auto}\n"
	"figure.chart svg [font-family]{font-family:var(--sans)}\n"
	"figure.chart figcaption{font-size:12.5px;color:var(--muted);margin:6px 4px 2px}\n"
	".nochart{font-size:13px;color:var(--muted);font-style:italic;margin:10px 0}\n"
	".legend-key{display:inline-block;width:22px;height:10px;vertical-align:middle;margin:0 4px 0 10px;border-radius:2px}\n"
	".lk-win{background:#fdf0d9}.lk-thr{height:2px;background:repeating-linear-gradient(90deg,#b42318 0 6px,transparent 6px 10px)}.lk-band{background:rgba(31,95,168,.18);border-top:2px solid #1f5fa8}\n"
	".stack-block{margin:0 0 22px}.stack-block:last-child{margin-bottom:0}\n"
	".stack-title{font-size:14px;margin:0 0 8px;color:var(--muted)}\n"
	".stack{display:grid;grid-template-columns:1fr 18px 1fr 18px 1fr 18px 1fr 18px 1fr;align-items:stretch}\n"
	".arrow{display:flex;align-items:center;justify-content:center;color:var(--faint);font-size:15px}\n"
	".tier{display:flex;flex-direction:column;border:1px solid var(--line);border-top:5px solid #c9d1dc;border-radius:8px;"
	"padding:10px 11px;background:#fff;min-width:0;-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".tier-name{font-weight:650;font-size:14px;line-height:1.25}\n"
	".tier-role{color:var(--faint);font-size:11.5px;line-height:1.3;margin:2px 0 8px;min-height:3.9em}\n"
	".tier-ent{font-size:12.5px;line-height:1.35;margin-bottom:6px;overflow-wrap:anywhere}\n"
	".tier-ent .host{display:block;font-size:11.5px}\n"
	".figs{display:flex;flex-direction:column;font-size:13px;line-height:1.45}\n"
	".fig .fl{color:var(--muted);display:inline-block;min-width:3.6em}.fig b{font-variant-numeric:tabular-nums}\n"
	".tier-tag{margin-top:auto;padding-top:9px;font-size:11px;color:var(--muted);line-height:1.3}\n"
	".tier-tag small{display:block;margin-top:3px;font-size:11px}\n"
	".tag{display:inline-block;font-weight:700;font-size:11.5px;padding:2px 9px;border-radius:999px;white-space:nowrap;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".tag.crit{background:var(--crit);color:#fff}.tag.warn{background:#d98a00;color:#fff}.tag.info{background:var(--info-bg);color:var(--info)}"
	".tag.symptom{background:var(--warn-bg);color:var(--warn)}.tag.ok{background:var(--ok-bg);color:var(--ok)}\n"
	".tier-crit{border-color:#f1b8b2;border-top-color:var(--crit);background:var(--crit-bg)}\n"
	".tier-warn{border-color:#f3d29a;border-top-color:#d98a00;background:var(--warn-bg)}\n"
	".tier-symptom{border-top-color:#e8b86a}\n"
	".tier-ok{border-top-color:#8fc3a1}\n"
	".tier-absent{border-style:dashed;border-top-style:solid;background:#fafbfc}\n"
	".tier-absent .tier-name{color:var(--muted)}\n"
	"p.how{font-size:11.5px;color:var(--faint);margin:8px 0 0}p.how span+span:before{content:'\\00b7';margin:0 .5em}\n"
	".tablewrap{overflow-x:auto}\n"
	"ul.warnings{margin:0;padding-left:20px}ul.warnings li{margin:4px 0}\n"
	"footer{color:var(--faint);font-size:12.5px;padding:0 0 40px}\n"
	"header.top .customer{margin:0 0 4px;font-size:16px;font-weight:600;opacity:.95}\n"
	"header.top img.logo{float:right;max-height:64px;max-width:220px;margin:0 0 8px 18px;background:#fff;border-radius:6px;padding:4px}\n"
	".summary .headline{font-size:20px;font-weight:650;margin:0 0 10px}\n"
	".summary h3{margin:18px 0 8px}\n"
	"ol.actions{margin:0;padding-left:22px}ol.actions li{margin:0 0 12px}ol.actions p{margin:0 0 3px}\n"
	"ol.actions .what{font-weight:600}ol.actions .effect,ol.actions .why{font-size:14px}ol.actions .why{color:var(--muted)}\n"
	".local{color:var(--muted);font-size:.92em}td .local{white-space:nowrap}\n"
	".ar{display:inline-block;position:relative;width:12px;height:2px;background:var(--faint);"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".ar:after{content:'';position:absolute;right:-3px;top:-4px;border-left:7px solid var(--faint);border-top:5px solid transparent;"
	"border-bottom:5px solid transparent}\n"
	"table.refs td{font-size:12.5px}\n"
	"@media (max-width:860px){.stack{grid-template-columns:1fr}.arrow{height:16px}.arrow .ar{transform:rotate(90deg)}"
	".tier-role{min-height:0}}\n"
	"@media print{\n"
	"  @page{size:A4;margin:14mm 12mm}\n"
	"  body{background:#fff;font-size:10pt}\n"
	"  .wrap{max-width:none;padding:0}\n"
	"  header.top{background:#fff;color:var(--ink);padding:0 0 10pt;border-bottom:2px solid var(--accent)}\n"
	"  header.top .kicker{color:var(--accent);opacity:1}\n"
	"  nav.toc{display:none}\n"
	"  section{border:none;border-radius:0;padding:0;margin:16pt 0}\n"
	"  h2{break-after:avoid;page-break-after:avoid}\n"
	"  #stack,#details,#charts{break-before:page;page-break-before:always}\n"
	"  .finding-head,.finding .where{break-after:avoid;page-break-after:avoid}\n"
	"  .stack-block,.count,tr,dl.rule{break-inside:avoid;page-break-inside:avoid}\n"
	"  .stack{grid-template-columns:1fr 10px 1fr 10px 1fr 10px 1fr 10px 1fr}.tier{padding:6px 7px}\n"
	"  .tier-role{font-size:7.5pt}.figs{font-size:8.5pt}.tier-ent{font-size:8pt}\n"
	"  a{color:inherit;text-decoration:none}\n"
	"  .tablewrap{overflow:visible}\n"
	"  table{font-size:8.5pt}th,td{padding:4px 5px}\n"

	"  #summary{border:none;border-left:5px solid var(--ok);padding-left:12pt}\n"
	"  #summary.crit{border-left-color:var(--crit)}#summary.warn{border-left-color:#d98a00}\n"
	"  section.verdict{padding-left:10pt}\n"
	"  .summary .headline{font-size:15pt}.lead{font-size:11pt}ol.actions li{break-inside:avoid}\n"
	"  .ent{overflow-wrap:break-word;word-break:normal;hyphens:none}.host{white-space:nowrap}\n"
	"  .stack{grid-template-columns:1fr}.arrow{height:14px}.arrow .ar{transform:rotate(90deg)}\n"
	"  .tier{display:grid;grid-template-columns:30% 30% 1fr 20%;grid-template-areas:'name ent figs tag' 'role ent figs tag';"
	"column-gap:10px;padding:6px 9px}\n"
	"  .tier-name{grid-area:name}.tier-role{grid-area:role;min-height:0;margin:0}.tier-ent{grid-area:ent;font-size:8.5pt}"
	".figs{grid-area:figs;flex-direction:row;flex-wrap:wrap;gap:0 12px}.tier-tag{grid-area:tag;margin:0;padding:0}\n"
	"  appendix,#appendix{break-before:page;page-break-before:always}\n"
	"  header.top img.logo{max-height:48px}\n"
	"}\n";

static void triple(struct buf *b, const struct qsketch *q, const double *ps, int n, bool with_max)
{
	buf_adds(b, "<td class=\"n\">");
	if (!q->n) {
		buf_adds(b, "&ndash;</td>");
		return;
	}
	for (int i = 0; i < n; i++) {
		if (i)
			buf_adds(b, "<span class=\"sep\">/</span>");
		num(b, qs_quantile(q, ps[i]));
	}
	if (with_max) {
		buf_adds(b, "<span class=\"sep\">/</span>");
		num(b, q->max);
	}
	buf_adds(b, "</td>");
}

static bool same_host(const char *x, const char *y) { return (!x && !y) || (x && y && strcmp(x, y) == 0); }

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
		if (e->layer == LAYER_VSCSI && strncmp(e->name, vm->name, n) == 0 && strncmp(e->name + n, ":scsi", 5) == 0)
			return true;
	}
	return false;
}

static const double P3[] = {0.5, 0.95, 0.99};
static const double P2[] = {0.5, 0.95};

static void entity_tables(const struct analysis *a, struct buf *b)
{
	const struct model *m = &a->m;
	size_t idle = 0;
	static const struct {
		enum layer l;
		const char *title, *cols;
	} groups[] = {
		{LAYER_GUEST, "Guest disks (perfmon)",
		 "<th>Disk</th><th class=\"n\">IO/s<br>p50 / p95 / max</th><th class=\"n\">MB/s<br>p50 / p95</th>"
		 "<th class=\"n\">Read ms<br>p50 / p95 / p99 / max</th><th class=\"n\">Write ms<br>p50 / p95 / p99 / max</th>"
		 "<th class=\"n\">Current queue<br>p50 / p95 / max</th>"},
		{LAYER_VSCSI, "Virtual disks (esxtop)",
		 "<th>Virtual disk</th><th class=\"n\">IO/s<br>p50 / p95 / max</th><th class=\"n\">MB/s<br>read / write, mean</th>"
		 "<th class=\"n\">Read ms<br>p50 / p95 / p99 / max</th><th class=\"n\">Write ms<br>p50 / p95 / p99 / max</th><th></th>"},
		{LAYER_DEVICE, "Devices / LUNs (esxtop)",
		 "<th>Device</th><th class=\"n\">IO/s<br>p50 / p95 / max</th><th class=\"n\">MB/s<br>read / write, mean</th>"
		 "<th class=\"n\">DAVG ms<br>p50 / p95 / p99 / max</th><th class=\"n\">KAVG ms<br>p50 / p95 / p99 / max</th>"
		 "<th class=\"n\">ACTV / QUED p95<br>DQLEN min&ndash;max</th>"},
		{LAYER_ADAPTER, "Adapters (esxtop)",
		 "<th>Adapter</th><th class=\"n\">IO/s<br>p50 / p95 / max</th><th class=\"n\">MB/s<br>read / write, mean</th>"
		 "<th class=\"n\">DAVG ms<br>p50 / p95 / p99 / max</th><th class=\"n\">KAVG ms<br>p50 / p95 / p99 / max</th>"
		 "<th class=\"n\">ACTV / QUED p95<br>AQLEN max</th>"},
	};
	for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
	    for (size_t h = 0; h < m->nents; h++) {
		/* one table per host: h is the first entity of its host in this layer */
		const struct entity *he = &m->ents[h];
		if (he->layer != groups[g].l)
			continue;
		bool seen = false;
		for (size_t k = 0; k < h && !seen; k++)
			seen = m->ents[k].layer == groups[g].l && same_host(m->ents[k].host, he->host);
		if (seen)
			continue;
		size_t shown = 0;
		for (size_t i = h; i < m->nents; i++) {
			const struct entity *e = &m->ents[i];
			if (e->layer != groups[g].l || !same_host(e->host, he->host))
				continue;
			if (!entity_active(e, &a->rules)) {
				idle++;
				continue;
			}
			bool ehv = model_hyperv(m, e->capture) && (e->layer == LAYER_VSCSI || e->layer == LAYER_DEVICE);
			if (!shown++) {
				buf_printf(b, "<h4>%s &middot; <span class=\"ent\">",
					   !ehv ? groups[g].title : e->layer == LAYER_VSCSI ? "VHDX files (Hyper-V host)" : "Host disks (Hyper-V host)");
				esc(b, he->host ? he->host : "unknown host");
				buf_printf(b, "</span></h4>\n<div class=\"tablewrap\"><table class=\"ents\"><thead><tr>%s</tr></thead><tbody>\n",
					   !ehv ? groups[g].cols
					   : e->layer == LAYER_VSCSI
						   ? "<th>VHDX</th><th class=\"n\">IO/s<br>p50 / p95 / max</th><th class=\"n\">MB/s<br>read / write, mean</th>"
						     "<th class=\"n\">Latency ms<br>p50 / p95 / p99 / max</th><th class=\"n\">Lower latency ms<br>p50 / p95 / p99 / max</th>"
						     "<th class=\"n\">Normalized IOPS<br>p50 / p95</th>"
						   : "<th>Host disk</th><th class=\"n\">IO/s<br>p50 / p95 / max</th><th class=\"n\">MB/s<br>read / write, mean</th>"
						     "<th class=\"n\">Read ms<br>p50 / p95 / p99 / max</th><th class=\"n\">Write ms<br>p50 / p95 / p99 / max</th>"
						     "<th class=\"n\">Current queue<br>p50 / p95 / max</th>");
			}
			buf_adds(b, "<tr><td class=\"ent\">");
			esc(b, e->name);
			buf_adds(b, "</td>");
			triple(b, entity_sk(e, e->layer == LAYER_GUEST ? M_G_XFERS : M_CMDS), P2, 2, true);
			if (e->layer == LAYER_GUEST) {
				triple(b, entity_sk(e, M_G_MBPS), P2, 2, false);
				triple(b, entity_sk(e, M_G_LAT_R), P3, 3, true);
				triple(b, entity_sk(e, M_G_LAT_W), P3, 3, true);
				triple(b, entity_sk(e, M_G_CDQL), P2, 2, true);
			} else {
				buf_adds(b, "<td class=\"n\">");
				num(b, entity_mean(e, M_MBR));
				buf_adds(b, "<span class=\"sep\">/</span>");
				num(b, entity_mean(e, M_MBW));
				buf_adds(b, "</td>");
				if (ehv) {
					bool v = e->layer == LAYER_VSCSI;
					triple(b, entity_sk(e, v ? M_HV_LAT : M_H_LAT_R), P3, 3, true);
					triple(b, entity_sk(e, v ? M_HV_LOWER_LAT : M_H_LAT_W), P3, 3, true);
					triple(b, entity_sk(e, v ? M_HV_NIOPS : M_H_CDQL), P2, 2, !v);
				} else if (e->layer == LAYER_VSCSI) {
					triple(b, entity_sk(e, M_VD_LAT_R), P3, 3, true);
					triple(b, entity_sk(e, M_VD_LAT_W), P3, 3, true);
					buf_adds(b, "<td></td>");
				} else {
					triple(b, entity_sk(e, M_DAVG), P3, 3, true);
					triple(b, entity_sk(e, M_KAVG), P3, 3, true);
					buf_adds(b, "<td class=\"n\">");
					num(b, entity_sk(e, M_ACTV)->n ? qs_quantile(entity_sk(e, M_ACTV), 0.95) : NAN);
					buf_adds(b, "<span class=\"sep\">/</span>");
					num(b, entity_sk(e, M_QUED)->n ? qs_quantile(entity_sk(e, M_QUED), 0.95) : NAN);
					buf_adds(b, "<br>");
					if (e->layer == LAYER_DEVICE) {
						if (entity_sk(e, M_DQLEN)->n) {
							num(b, entity_sk(e, M_DQLEN)->min);
							if (entity_sk(e, M_DQLEN)->max != entity_sk(e, M_DQLEN)->min) {
								buf_adds(b, "&ndash;");
								num(b, entity_sk(e, M_DQLEN)->max);
							}
						} else {
							buf_adds(b, "&ndash;");
						}
					} else {
						num(b, entity_sk(e, M_AQLEN)->n ? entity_sk(e, M_AQLEN)->max : NAN);
					}
					buf_adds(b, "</td>");
				}
			}
			buf_adds(b, "</tr>\n");
		}
		if (shown)
			buf_adds(b, "</tbody></table></div>\n");
	    }
	}
	/* VMs: CPU ready */
	size_t vms = 0;
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->outside)
			continue;
		if (e->layer != LAYER_VM || !entity_sk(e, M_RDY)->n || !vm_relevant(m, e))
			continue;
		if (!vms++)
			buf_adds(b, "<h4>Virtual machines with disks in the captures (esxtop CPU)</h4>\n<div class=\"tablewrap\">"
				    "<table class=\"ents\"><thead><tr><th>Host</th><th>VM</th><th class=\"n\">CPU %Ready<br>p50 / p95 / p99 / max</th>"
				    "</tr></thead><tbody>\n");
		buf_adds(b, "<tr><td class=\"host\">");
		esc(b, e->host);
		buf_adds(b, "</td><td class=\"ent\">");
		esc(b, e->name);
		buf_adds(b, "</td>");
		triple(b, entity_sk(e, M_RDY), P3, 3, true);
		buf_adds(b, "</tr>\n");
	}
	if (vms)
		buf_adds(b, "</tbody></table></div>\n");
	if (idle)
		buf_printf(b, "<p class=\"small muted\">%zu idle entit%s (below %g IO/s on average) not shown; all are in the "
			      "embedded JSON.</p>\n", idle, idle == 1 ? "y" : "ies", rule_value(&a->rules, R_ACTIVE_IOPS));
}

/* A capture's clock offset as --clock-offset takes it: guest clock minus host clock, seconds
 * (clock_offset_ms is what is added to its times: the opposite). */
static double guest_minus_host(const struct capture *c) { return 0.0 - (double)c->clock_offset_ms / 1000.0 + 0.0; }

static void captures_section(const struct analysis *a, const struct ltime *lt, struct buf *b)
{
	const struct model *m = &a->m;
	buf_adds(b, "<div class=\"tablewrap\"><table><thead><tr><th>File</th><th>Format</th><th>Host</th><th>Period</th>"
		    "<th class=\"n\">Interval</th><th class=\"n\">Rows</th><th class=\"n\">Columns</th><th class=\"n\">Warnings</th>"
		    "<th>Clock</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *c = &m->caps[i];
		buf_adds(b, "<tr><td class=\"ent\">");
		esc(b, c->path);
		buf_adds(b, "</td>");
		if (c->failed) {
			buf_adds(b, "<td colspan=\"8\"><span class=\"badge crit\">unreadable</span> the file could not be read or its "
				    "format was not recognised</td></tr>\n");
			continue;
		}
		buf_adds(b, "<td>");
		esc(b, c->format);
		buf_adds(b, c->gzip ? " (gzip)" : "");
		buf_adds(b, "</td><td class=\"ent\">");
		esc(b, c->host ? c->host : "?");
		buf_adds(b, "</td><td>");
		if (c->rows)
			period_html(b, lt, c->start + c->clock_offset_ms, c->end + c->clock_offset_ms);
		buf_adds(b, "</td><td class=\"n\">");
		if (c->rows > 1)
			buf_printf(b, "%g s", c->interval_s);
		buf_printf(b, "</td><td class=\"n\">%ld</td><td class=\"n\">%ld</td><td class=\"n\">%ld%s</td><td>", c->rows, c->columns,
			   c->warnings, c->skipped_rows ? "" : "");
		/* as the text report and --clock-offset say it: guest clock minus host clock (the times
		 * are shifted by its opposite, clock_offset_ms) */
		if (c->offset_estimated)
			buf_printf(b, "guest %+.1f s off the host, estimated from IOPS (r = %.2f)%s", guest_minus_host(c),
				   c->offset_confidence, c->clock_offset_ms ? "" : ", none applied");
		else if (c->clock_offset_ms)
			buf_printf(b, "guest %+.1f s off the host (--clock-offset)", guest_minus_host(c));
		else
			buf_adds(b, "as recorded");
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
	if (a->nmap) {
		buf_adds(b, "<h4>Guest disk to virtual disk mapping</h4>\n<div class=\"tablewrap\"><table><thead><tr><th>Guest</th>"
			    "<th>Disk</th><th>Virtual disk</th><th>How</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < a->nmap; i++) {
			const struct diskmap_entry *d = &a->map[i];
			buf_adds(b, "<tr><td class=\"ent\">");
			esc(b, d->guest_host ? d->guest_host : "");
			buf_adds(b, "</td><td class=\"ent\">");
			esc(b, d->guest_disk);
			buf_adds(b, "</td><td class=\"ent\">");
			esc(b, d->vdisk);
			buf_adds(b, "</td><td>");
			if (d->automatic)
				buf_printf(b, "IOPS correlation, r = %.2f", d->correlation);
			else
				buf_adds(b, "--map file");
			buf_adds(b, "</td></tr>\n");
		}
		buf_adds(b, "</tbody></table></div>\n");
	}
	if (a->have_vmk || a->have_parts)
		buf_printf(b, "<p class=\"small muted\">Also read: %s%s%s.</p>\n", a->have_vmk ? "vmkernel.log" : "",
			   a->have_vmk && a->have_parts ? ", " : "", a->have_parts ? "partition offsets" : "");
	rules_out_lines(&a->rules, b, "<h4>Rules overridden</h4>\n<ul class=\"rules\">\n", "<li>", "</li>\n", "</ul>\n", esc);
}

/* Report-level warnings collected while rendering. */
struct notes {
	struct buf items;   /* <li>…</li> */
	size_t n;
};

static void note_add(struct notes *n, const char *html)
{
	buf_adds(&n->items, "<li>");
	buf_adds(&n->items, html);
	buf_adds(&n->items, "</li>\n");
	n->n++;
}

static void capture_notes(const struct analysis *a, struct notes *nt)
{
	struct buf t;
	buf_init(&t);
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		buf_reset(&t);
		if (c->failed) {
			buf_adds(&t, "<span class=\"ent\">");
			esc(&t, c->path);
			buf_adds(&t, "</span> could not be read; its counters are missing from this report.");
			note_add(nt, t.data);
			continue;
		}
		if (c->warnings || c->skipped_rows) {
			buf_adds(&t, "<span class=\"ent\">");
			esc(&t, c->path);
			buf_printf(&t, "</span>: %ld warning%s while reading", c->warnings, c->warnings == 1 ? "" : "s");
			if (c->skipped_rows)
				buf_printf(&t, ", %ld row%s skipped", c->skipped_rows, c->skipped_rows == 1 ? "" : "s");
			buf_adds(&t, " (the messages are printed by <code>iopsy analyze</code> on stderr).");
			note_add(nt, t.data);
		}
		if (c->offset_estimated && c->clock_offset_ms) {
			buf_adds(&t, "");
			buf_reset(&t);
			buf_adds(&t, "The clock of <span class=\"ent\">");
			esc(&t, c->host);
			buf_printf(&t, "</span> is %+.1f s off the host's (guest minus host), estimated by correlating IOPS "
				       "(r = %.2f); its times are shifted by %+.1f s to match the host. Give "
				       "<code>--clock-offset</code> if the real offset is known.",
				   guest_minus_host(c), c->offset_confidence, (double)c->clock_offset_ms / 1000.0 + 0.0);
			note_add(nt, t.data);
		}
	}
	bool autom = false;
	for (size_t i = 0; i < a->nmap; i++)
		autom |= a->map[i].automatic;
	if (autom)
		note_add(nt, "Guest disks were matched to virtual disks by correlating their IOPS; confirm the matches with a "
			     "<code>--map</code> file (the table above lists them).");
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (e->outside)
			continue;
		if (e->dq_dropped) {
			buf_reset(&t);
			buf_printf(&t, "Queue depth changes of <span class=\"ent\">");
			esc(&t, e->name);
			buf_printf(&t, "</span>: %zu beyond the first %d were not kept.", e->dq_dropped, DQ_MAX_EVENTS);
			note_add(nt, t.data);
		}
	}
	buf_free(&t);
}

static void findings_table(const struct analysis *a, const struct ltime *lt, struct buf *b)
{
	if (!a->nf) {
		buf_adds(b, "<p>No findings: nothing in the captures crosses a threshold for long enough to matter.</p>\n");
		return;
	}
	buf_adds(b, "<div class=\"tablewrap\"><table class=\"findings\"><thead><tr><th>#</th><th>Severity</th><th>Finding</th>"
		    "<th>Where</th><th>When</th><th>Evidence</th></tr></thead><tbody>\n");
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		buf_printf(b, "<tr><td>%zu</td><td><span class=\"badge %s\">%s</span></td><td><a href=\"#f%zu\">", i + 1,
			   sev_class(f->sev), sev_word(f->sev), i + 1);
		title(b, f->kind);
		buf_printf(b, "</a>%s</td><td class=\"where\">", f->heuristic ? " <span class=\"heur\">heuristic</span>" : "");
		entity_label(b, f->host, f->entity);
		buf_adds(b, "</td><td style=\"white-space:nowrap\">");
		if (f->end > f->start) {
			hhmmss(b, f->start);
			buf_adds(b, "&ndash;");
			hhmmss(b, f->end);
			buf_adds(b, " UTC");
			if (lt->known) {
				char ab[16];
				buf_adds(b, "<br><span class=\"local\">");
				ltime_local(b, lt, f->start, false);
				buf_adds(b, "&ndash;");
				ltime_local(b, lt, f->end, false);
				buf_addc(b, ' ');
				esc(b, ltime_abbr(lt, f->end, ab));
				buf_adds(b, "</span>");
			}
			buf_adds(b, "<br><span class=\"muted small\">");
			duration(b, f->sustained_s);
			buf_adds(b, "</span>");
		} else {
			buf_adds(b, "<span class=\"muted\">whole capture</span>");
		}
		buf_adds(b, "</td><td class=\"small\">");
		if (f->nev) {
			const struct evidence *ev = &f->ev[0];
			esc(b, metric_info[ev->metric].label);
			buf_adds(b, ": median <b>");
			num(b, ev->median);
			buf_printf(b, "</b> %s", metric_info[ev->metric].unit);
			if (ev->above >= 0 && ev->samples)
				buf_printf(b, " (%ld%% of samples above %g)", (long)lround(100.0 * (double)ev->above / (double)ev->samples),
					   ev->threshold);
		} else {
			esc(b, f->summary);
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

static void evidence_table(const struct finding *f, struct buf *b)
{
	if (!f->nev)
		return;
	buf_adds(b, "<div class=\"tablewrap\"><table class=\"evidence\"><thead><tr><th>Counter</th><th class=\"n\">Min</th>"
		    "<th class=\"n\">Median</th><th class=\"n\">p95</th><th class=\"n\">Max</th><th>Unit</th><th class=\"n\">Samples</th>"
		    "<th class=\"n\">Above threshold</th></tr></thead><tbody>\n");
	for (int k = 0; k < f->nev; k++) {
		const struct evidence *ev = &f->ev[k];
		buf_adds(b, "<tr><td>");
		esc(b, metric_info[ev->metric].label);
		buf_adds(b, "</td><td class=\"n\">");
		num(b, ev->min);
		buf_adds(b, "</td><td class=\"n\">");
		num(b, ev->median);
		buf_adds(b, "</td><td class=\"n\">");
		num(b, ev->p95);
		buf_adds(b, "</td><td class=\"n\">");
		num(b, ev->max);
		buf_adds(b, "</td><td>");
		esc(b, metric_info[ev->metric].unit);
		buf_printf(b, "</td><td class=\"n\">%ld</td><td class=\"n\">", ev->samples);
		if (ev->above >= 0) {
			buf_printf(b, "%ld", ev->above);
			buf_adds(b, " <span class=\"muted\">(&gt; ");
			num(b, ev->threshold);
			buf_adds(b, ")</span>");
		} else {
			buf_adds(b, "<span class=\"muted\">&ndash;</span>");
		}
		buf_adds(b, "</td></tr>\n");
	}
	buf_adds(b, "</tbody></table></div>\n");
}

/* The document's <title> (the PDF's title too): --title when given, else "what – hosts". */
static void hosts_line(const struct model *m, struct buf *b);
static void doc_title(struct buf *out, const struct html_opts *o, const char *what, const struct model *m)
{
	if (o->brand && o->brand->title && *o->brand->title) {
		esc(out, o->brand->title);
		return;
	}
	buf_printf(out, "%s &ndash; ", what);
	hosts_line(m, out);
}

static void generated_at(struct buf *b)
{
	/* SOURCE_DATE_EPOCH makes reports reproducible (reproducible-builds.org convention) */
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	double v;
	int64_t t;
	if (sde && parse_number(sde, strlen(sde), &v) && v >= 0 && v < 1e11)
		t = (int64_t)v * 1000;
	else
		t = (int64_t)time(NULL) * 1000;
	when(b, t);
	buf_adds(b, " UTC");
}

/* Distinct capture hosts, escaped, joined by " · ". */
static void hosts_line(const struct model *m, struct buf *b)
{
	int shown = 0;
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *c = &m->caps[i];
		if (c->failed || !c->host)
			continue;
		bool dup = false;
		for (size_t k = 0; k < i; k++)
			dup |= m->caps[k].host && !m->caps[k].failed && strcmp(m->caps[k].host, c->host) == 0;
		if (dup)
			continue;
		if (shown++)
			buf_adds(b, ", ");
		esc(b, c->host);
	}
	if (!shown)
		buf_adds(b, "no readable capture");
}

/* ---- charts: added while a section is written, drawn by one gnuplot process, spliced in ---- */

/* Where a chart goes in the section being written, and what its figure says. */
struct fig {
	size_t at;               /* offset in out */
	int no;                  /* chart number */
	size_t finding;          /* 1-based finding of an analysis report; 0 in a comparison */
	char *caption;           /* the figcaption's HTML after "Figure N. " */
};

struct figs {
	struct charts *cs;
	size_t start;            /* where the section starts in out */
	struct fig *f;
	size_t n, cap;
};

static void figs_init(struct figs *fs, struct charts *cs, const struct buf *out)
{
	memset(fs, 0, sizeof *fs);
	fs->cs = cs;
	fs->start = out->len;
}

/* Adds chart c, whose figure goes at the end of out as it is now. */
static void figs_add(struct figs *fs, const struct chart *c, const struct buf *out, size_t finding, const char *caption_html)
{
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? 2 * fs->cap : 16;
		fs->f = xrealloc(fs->f, fs->cap * sizeof *fs->f);
	}
	struct fig *f = &fs->f[fs->n++];
	f->at = out->len;
	f->no = charts_add(fs->cs, c);
	f->finding = finding;
	f->caption = xstrdup(caption_html);
}

/* The figure of one chart, or why there is none; failures become warnings and notes. */
static void fig_html(struct figs *fs, const struct fig *f, const struct html_opts *o, struct html_result *res,
		     struct notes *nt, struct diag *d, struct buf *out)
{
	struct buf svg, err;
	buf_init(&svg);
	buf_init(&err);
	int no = f->no;
	int rc = charts_take(fs->cs, no, &svg, &err);
	if (rc == 0) {
		res->charts++;
		buf_printf(out, "<figure class=\"chart\" id=\"chart-%d\">\n", no);
		buf_add(out, svg.data, svg.len);
		buf_printf(out, "<figcaption>Figure %d. %s", no, f->caption);
		buf_adds(out, "</figcaption>\n</figure>\n");
	} else if (rc == CHARTS_NO_GNUPLOT) {
		buf_printf(out, "<p class=\"nochart\">No chart: gnuplot is not installed; its data and script are in the gnuplot "
				"folder as chart-%02d.dat and chart-%02d.gp.</p>\n", no, no);
	} else {
		res->charts_failed++;
		struct buf t;
		buf_init(&t);
		if (f->finding) {
			diag_emit(d, MSG_LEVEL(o), 0, 0, "chart %d (finding %zu) could not be drawn: %s", no, f->finding,
				  err.data ? err.data : "");
			buf_printf(&t, "The chart of finding %zu could not be drawn: ", f->finding);
		} else {
			diag_emit(d, MSG_LEVEL(o), 0, 0, "chart %d could not be drawn: %s", no, err.data ? err.data : "");
			buf_printf(&t, "Chart %d could not be drawn: ", no);
		}
		esc(&t, err.data);
		note_add(nt, t.data);
		buf_free(&t);
		buf_adds(out, "<p class=\"nochart\">No chart: gnuplot failed (see the warnings at the end).</p>\n");
	}
	buf_free(&svg);
	buf_free(&err);
}

/* Draws the section's charts (one gnuplot process) and puts each figure in its place. */
static void figs_finish(struct figs *fs, struct buf *out, const struct html_opts *o, struct html_result *res,
			struct notes *nt, struct diag *d)
{
	if (fs->n) {
		charts_run(fs->cs);
		struct buf tail;
		buf_init(&tail);
		buf_add(&tail, out->data + fs->start, out->len - fs->start);
		out->len = fs->start;
		size_t prev = 0;
		for (size_t i = 0; i < fs->n; i++) {
			size_t at = fs->f[i].at - fs->start;
			buf_add(out, tail.data + prev, at - prev);
			prev = at;
			fig_html(fs, &fs->f[i], o, res, nt, d, out);
			free(fs->f[i].caption);
		}
		buf_add(out, tail.data + prev, tail.len - prev);
		buf_free(&tail);
	}
	free(fs->f);
	memset(fs, 0, sizeof *fs);
}

/* Which figure shows which finding (0: a comparison chart), kept for the appendix. */
struct figlist {
	int no[256];
	size_t finding[256];
	size_t n;
};

static void figlist_take(struct figlist *fl, const struct figs *fs)
{
	for (size_t i = 0; i < fs->n && fl->n < sizeof fl->no / sizeof fl->no[0]; i++) {
		fl->no[fl->n] = fs->f[i].no;
		fl->finding[fl->n++] = fs->f[i].finding;
	}
}

/* The appendix: what the main text leaves out for the customer but a colleague needs to check it —
 * each finding's rule id, rule and source, the chart files of --gnuplot-dir, the embedded JSON. */
static void appendix_html(struct buf *out, const struct analysis *a, const struct figlist *fl, const struct html_opts *o,
			  const char *json_doc)
{
	buf_adds(out, "<section id=\"appendix\" class=\"appendix\">\n<h2>Appendix: technical references</h2>\n");
	if (a && a->nf) {
		buf_adds(out, "<div class=\"tablewrap\"><table class=\"refs\"><thead><tr><th>#</th><th>Finding</th><th>Rule id</th>"
			      "<th>Rule</th><th>Source</th></tr></thead><tbody>\n");
		for (size_t i = 0; i < a->nf; i++) {
			const struct finding *f = &a->f[i];
			buf_printf(out, "<tr><td><a href=\"#f%zu\">%zu</a></td><td>", i + 1, i + 1);
			title(out, f->kind);
			buf_adds(out, "</td><td class=\"ent\">");
			esc(out, kinds[f->kind].name);
			buf_adds(out, "</td><td class=\"small\">");
			esc(out, f->rule);
			buf_adds(out, "</td><td class=\"small\">");
			esc(out, f->source);
			buf_adds(out, "</td></tr>\n");
		}
		buf_adds(out, "</tbody></table></div>\n");
	}
	if (fl->n && o->gnuplot_dir) {
		buf_adds(out, "<h4>Chart files (--gnuplot-dir)</h4>\n<ul class=\"refs\">\n");
		for (size_t i = 0; i < fl->n; i++) {
			buf_printf(out, "<li>Figure %d", fl->no[i]);
			if (fl->finding[i])
				buf_printf(out, " (finding %zu)", fl->finding[i]);
			buf_printf(out, ": <span class=\"ent\">chart-%02d.gp</span>, <span class=\"ent\">chart-%02d.dat</span>, "
					"<span class=\"ent\">chart-%02d.svg</span></li>\n", fl->no[i], fl->no[i], fl->no[i]);
		}
		buf_adds(out, "</ul>\n<p class=\"small muted\">Restyle a chart: edit its script or <code>style.gp</code> in that "
			      "folder and run <code>gnuplot chart-NN.gp</code> there.</p>\n");
	}
	buf_printf(out, "<p class=\"small muted\">Made by iopsy " IOPSY_VERSION ". Thresholds and their sources: <code>iopsy "
			"rules</code>. The %s is embedded in this file as JSON (element <code>#iopsy-data</code>, %s).</p>\n"
			"</section>\n", a ? "analysis" : "comparison", json_doc);
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
	/* head */
	buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"iopsy " IOPSY_VERSION "\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
		      "<title>");
	doc_title(out, o, "Storage performance analysis", m);
	buf_adds(out, "</title>\n<style>\n");
	buf_adds(out, css);
	buf_adds(out, "</style>\n");
	print_page_css(out, o, "Where does storage IO wait?");
	buf_adds(out, "</head>\n<body>\n");
	{
		struct buf meta;
		buf_init(&meta);
		buf_adds(&meta, "<span>");
		hosts_line(m, &meta);
		buf_adds(&meta, "</span>");
		if (t_first < t_last) {
			buf_adds(&meta, "<span>");
			period_html(&meta, &lt, t_first, t_last);
			buf_adds(&meta, "</span>");
		}
		buf_printf(&meta, "<span>%zu capture%s</span><span>report of ", m->ncaps, m->ncaps == 1 ? "" : "s");
		generated_at(&meta);
		buf_adds(&meta, "</span>");
		page_header(out, o, "storage latency analysis", "Where does storage IO wait?", meta.data);
		buf_free(&meta);
	}
	buf_adds(out, "<nav class=\"toc\"><div class=\"wrap\"><a href=\"#summary\">Summary</a><a href=\"#verdict\">Verdict</a>"
		      "<a href=\"#findings\">Findings</a><a href=\"#stack\">IO stack</a><a href=\"#details\">Evidence and charts</a>"
		      "<a href=\"#entities\">Disks and LUNs</a><a href=\"#captures\">Captures</a><a href=\"#appendix\">Appendix</a>"
		      "</div></nav>\n<main class=\"wrap\">\n");
	{
		struct exec_summary es;
		summary_of_analysis(a, &lt, &es);
		summary_html(out, &es, true, &lt);
		summary_free(&es);
	}

	/* verdict */
	buf_printf(out, "<section id=\"verdict\" class=\"verdict %s\">\n<h2>Verdict</h2>\n<p class=\"lead\">",
		   worst >= SEV_WARNING ? sev_class(worst) : !a->cov.complete ? "partial" : worst < 0 ? "ok" : sev_class(worst));
	esc(out, a->verdict ? a->verdict : "No analysis result.");
	buf_adds(out, "</p>\n");
	workflow_notices(a, out);
	buf_adds(out, "<div class=\"counts\">");
	buf_printf(out, "<div class=\"count crit\"><b>%d</b>critical</div><div class=\"count warn\"><b>%d</b>warning</div>"
			"<div class=\"count info\"><b>%d</b>info</div>",
		   cnt[SEV_CRITICAL], cnt[SEV_WARNING], cnt[SEV_INFO]);
	buf_adds(out, "</div>\n");
	if (res->no_gnuplot)
		buf_adds(out, "<p class=\"notice\"><b>Charts are not included:</b> gnuplot was not found on the machine that made this "
			      "report. Install gnuplot (Debian: <code>gnuplot-nox</code>) and run <code>iopsy analyze --html</code> again.</p>\n");
	coverage_html(a, out);
	buf_adds(out, "</section>\n");

	/* findings table */
	buf_adds(out, "<section id=\"findings\">\n<h2>Findings, worst first</h2>\n");
	findings_table(a, &lt, out);
	buf_adds(out, "</section>\n");

	/* IO stack */
	buf_adds(out, "<section id=\"stack\">\n");
	int nch = (int)a->nshown;
	buf_printf(out, "<h2>The IO stack of the %s disk%s</h2>\n", nch && a->shown[0].anchor ? "affected" : "busiest",
		   nch > 1 ? "s" : "");
	if (!nch) {
		buf_adds(out, "<p class=\"muted\">No disk with counters in the captures.</p>\n");
	} else {
		buf_adds(out, "<p class=\"small muted\">From the application down to the array. Figures are medians over the finding's "
			      "window (over the whole capture when there is no finding); a marked layer is where IOs wait.</p>\n");
		for (int k = 0; k < nch; k++) {
			buf_adds(out, "<div class=\"stack-block\">\n<p class=\"stack-title\">");
			const struct finding *anchor = a->shown[k].anchor;
			if (anchor) {
				size_t idx = (size_t)(anchor - a->f) + 1;
				buf_printf(out, "Finding <a href=\"#f%zu\">%zu</a> &middot; ", idx, idx);
				title(out, anchor->kind);
				buf_adds(out, " &middot; ");
				entity_label(out, anchor->host, anchor->entity);
			} else {
				buf_adds(out, "No findings: the busiest disk, for reference");
			}
			buf_adds(out, "</p>\n");
			stack_render(a, &a->shown[k].s, anchor, out);
			buf_adds(out, "</div>\n");
		}
	}
	buf_adds(out, "</section>\n");

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
		const struct finding *f = &a->f[i];
		buf_printf(out, "<article class=\"finding\" id=\"f%zu\">\n<div class=\"finding-head\"><span class=\"num\">%zu</span>"
				"<span class=\"badge %s\">%s</span><h3>",
			   i + 1, i + 1, sev_class(f->sev), sev_word(f->sev));
		title(out, f->kind);
		buf_printf(out, "</h3>%s</div>\n<p class=\"where\">", f->heuristic ? "<span class=\"heur\">heuristic rule</span>" : "");
		entity_label(out, f->host, f->entity);
		buf_printf(out, " &middot; layer: %s", layer_names[f->layer]);
		if (f->end > f->start) {
			buf_adds(out, " &middot; ");
			period_html(out, &lt, f->start, f->end);
			buf_adds(out, " &middot; sustained ");
			duration(out, f->sustained_s);
		}
		buf_adds(out, "</p>\n<p class=\"summary\">");
		size_t at = out->len;
		esc_words(out, f->summary);
		if (out->len > at && out->data[at] >= 'a' && out->data[at] <= 'z')
			out->data[at] = (char)(out->data[at] - 'a' + 'A');
		buf_adds(out, "</p>\n");
		/* the chart */
		if (res->no_gnuplot && !o->gnuplot_dir) {
			/* said once at the top */
		} else if (charts_done >= max_charts) {
			buf_printf(out, "<p class=\"nochart\">No chart: only the %d worst findings are charted.</p>\n", max_charts);
		} else {
			struct chart c;
			const struct entity *axis = chart_build(a, f, &c);
			c.ltz = lt.known ? &lt.z : NULL;
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
				figs_add(&figs, &c, out, i + 1, cap.data);
				charts_done++;
				buf_free(&cap);
			}
			chart_free(&c);
		}
		evidence_table(f, out);
		buf_adds(out, "<dl class=\"rule\">");
		if (f->load) {
			buf_adds(out, "<dt>Load on the LUN</dt><dd>");
			esc(out, f->load);
			buf_adds(out, "</dd>");
		}
		buf_adds(out, "<dt>Rule</dt><dd>");
		esc(out, f->rule);
		buf_adds(out, "</dd><dt>Source</dt><dd>");
		esc(out, f->source);
		buf_adds(out, "</dd>");
		if (f->advice && *f->advice) {
			buf_adds(out, "<dt>Advice</dt><dd class=\"advice\">");
			esc_words(out, f->advice);
			buf_adds(out, "</dd>");
		}
		buf_adds(out, "</dl>\n</article>\n");
	}
	if (worst < SEV_WARNING && !(res->no_gnuplot && !o->gnuplot_dir)) {
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
		for (int k = 0; k < np && charts_done < max_charts; k++) {
			struct chart c;
			if (overview_chart(a, pick[k], &c)) {
				c.ltz = lt.known ? &lt.z : NULL;
				struct buf cap;
				buf_init(&cap);
				buf_adds(&cap, pick[k]->layer == LAYER_GUEST ? "Guest disk " : "LUN ");
				entity_label(&cap, pick[k]->host, pick[k]->name);
				buf_adds(&cap, ": latency against the bands, and its load.");
				figs_add(&figs, &c, out, 0, cap.data);
				charts_done++;
				buf_free(&cap);
			}
			chart_free(&c);
		}
	}
	/* the top finding's PNG for mail: after every SVG (their numbers do not change), drawn by the
	 * same gnuplot run (a process less per report) */
	int png_no = 0;
	if (o->top_png && a->nf && crc == 0) {
		struct chart c;
		if (chart_build(a, &a->f[0], &c)) {
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
	if (png_no > 0) {
		charts_run(&cs); /* already drawn with the figures when there were any */
		res->top_png = charts_take(&cs, png_no, o->top_png, o->top_png_why);
	}
	buf_adds(out, "</section>\n");
	charts_close(&cs);

	/* entities */
	buf_adds(out, "<section id=\"entities\">\n<h2>Disks and LUNs at a glance</h2>\n<p class=\"small muted\">Whole-capture "
		      "distributions of the sampled values (p50 / p95 / p99 / max). Latency in ms; queue figures in outstanding IOs.</p>\n");
	entity_tables(a, out);
	buf_adds(out, "</section>\n");

	/* SQL Server while the storage waited */
	for (size_t i = 0; a->sql && i < a->sql->n; i++) {
		const struct sql_instance *si = &a->sql->in[i];
		if (!i)
			buf_adds(out, "<section id=\"sql\">\n<h2>SQL Server while the storage waited</h2>\n");
		buf_adds(out, "<p>");
		esc(out, si->summary);
		buf_adds(out, "</p>\n<ul>\n");
		for (size_t k = 0; k < si->nplace; k++) {
			buf_adds(out, "<li>");
			esc(out, si->place[k].text);
			buf_adds(out, "</li>\n");
		}
		for (size_t k = 0; k < si->nep; k++) {
			buf_adds(out, "<li>");
			esc(out, si->ep[k].text);
			buf_adds(out, "</li>\n");
		}
		for (size_t k = 0; k < si->nsym; k++) {
			buf_adds(out, "<li><b>Without a storage cause:</b> ");
			esc(out, si->sym[k].text);
			buf_adds(out, "</li>\n");
		}
		buf_adds(out, "</ul>\n");
		if (i + 1 == a->sql->n)
			buf_adds(out, "</section>\n");
	}

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
	appendix_html(out, a, &fl, o, "schema_version 3, doc/analyze-json.md");
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


/* ==== the before/after report (compare --html) ==== */

static const char *cv_class(enum cmp_verdict v)
{
	switch (v) {
	case CV_IMPROVED: return "good";
	case CV_REGRESSED: return "bad";
	case CV_MIXED: return "mixed";
	case CV_HIGHER: case CV_LOWER: return "work";
	case CV_NOT_ASSESSED: case CV_NOT_COMPARABLE: return "na";
	default: return "same";
	}
}

static const char *cv_word(const struct cmp_row *r, enum cmp_verdict v)
{
	switch (v) {
	case CV_IMPROVED: return "improved";
	case CV_REGRESSED: return "regressed";
	case CV_MIXED: return "mixed";
	case CV_HIGHER: return r->spec->kind == CK_WORK ? "more work" : "higher";
	case CV_LOWER: return r->spec->kind == CK_WORK ? "less work" : "lower";
	case CV_NOT_ASSESSED: return "not assessed";
	case CV_NOT_COMPARABLE: return "not comparable";
	default: return "unchanged";
	}
}

static const char *const co_class[CO_COUNT] = {"good", "bad", "mixed", "same", "na"};


static void pair_label(struct buf *b, const struct cmp_pair *p)
{
	char t[512];
	compare_pair_label(p, p->name[CMP_AFTER] ? CMP_AFTER : CMP_BEFORE, t, sizeof t);
	buf_adds(b, "<span class=\"ent\">");
	esc(b, t);
	buf_adds(b, "</span>");
	if (p->name[0] && p->name[1] && strcmp(p->name[0], p->name[1]) != 0) {
		compare_pair_label(p, CMP_BEFORE, t, sizeof t);
		buf_adds(b, " <span class=\"muted small\">(before: <span class=\"ent\">");
		esc(b, t);
		buf_adds(b, "</span>)</span>");
	}
}

static void stats_cell(struct buf *b, const struct cmp_stats *st, bool with_max)
{
	buf_adds(b, "<td class=\"n\">");
	if (!st->samples || isnan(st->p50)) {
		buf_adds(b, "&ndash;</td>");
		return;
	}
	num(b, st->p50);
	buf_adds(b, "<span class=\"sep\">/</span>");
	num(b, st->p95);
	buf_adds(b, "<span class=\"sep\">/</span>");
	num(b, st->p99);
	if (with_max) {
		buf_adds(b, "<span class=\"sep\">/</span>");
		num(b, st->max);
	}
	buf_adds(b, "</td>");
}

static void verdict_badge(struct buf *b, const struct cmp_row *r, enum cmp_verdict v)
{
	buf_printf(b, "<span class=\"cv %s\">%s</span>", cv_class(v), cv_word(r, v));
}

static bool row_material(const struct cmp_row *r)
{
	return r->verdict == CV_IMPROVED || r->verdict == CV_REGRESSED || r->verdict == CV_MIXED || r->verdict == CV_HIGHER ||
	       r->verdict == CV_LOWER || r->verdict == CV_NOT_COMPARABLE ||
	       (r->has_lm && r->lm.comparable && (r->lm.verdict == CV_IMPROVED || r->lm.verdict == CV_REGRESSED));
}

/* The figures that decided a row: "p95 &minus;93%, time &gt; 50 ms 10% &rarr; 0%, busy median &minus;93%". */
static void deciding_cell(const struct compare *c, const struct cmp_row *r, struct buf *b)
{
	static const char *const name[CF_COUNT] = {"median", "p95", "p99", "time &gt; ", "time &gt; ",
						   "busy median", "busy p95", "busy p99", "busy time &gt; ", "busy time &gt; "};
	buf_adds(b, "<td class=\"small\">");
	int n = 0;
	for (int f = 0; f < CF_COUNT; f++) {
		const struct cmp_figure *g = &r->fig[f];
		if (!g->used || !g->decides || (g->verdict != CV_IMPROVED && g->verdict != CV_REGRESSED && g->verdict != CV_HIGHER &&
						 g->verdict != CV_LOWER))
			continue;
		if (n++)
			buf_adds(b, "<br>");
		buf_printf(b, "<span class=\"%s\">%s", g->verdict == CV_IMPROVED ? "dgood" : g->verdict == CV_REGRESSED ? "dbad" : "",
			   name[f]);
		if (cmp_fig_is_share((enum cmp_fig)f)) {
			int t = f == CF_OVER0 || f == CF_BUSY_OVER0 ? 0 : 1;
			num(b, rule_value(&c->rules, (enum rule_id)r->spec->thr[t]));
			buf_printf(b, " %s ", metric_info[r->spec->metric].unit);
			fmt_share(b, g->v[0]);
			buf_adds(b, " &rarr; ");
			fmt_share(b, g->v[1]);
		} else {
			buf_addc(b, ' ');
			num(b, g->v[0]);
			buf_adds(b, " &rarr; ");
			num(b, g->v[1]);
			buf_adds(b, " <span class=\"muted\">(");
			pct(b, g->change_pct);
			buf_adds(b, ")</span>");
		}
		buf_adds(b, "</span>");
		if (n == 3)
			break;
	}
	if (!n)
		buf_adds(b, r->verdict == CV_NOT_COMPARABLE ? "<span class=\"muted\">the after side's busy phase does not reach the "
							       "before side's load</span>"
							     : "<span class=\"muted\">&ndash;</span>");
	buf_adds(b, "</td>");
}

static bool pair_shown(const struct cmp_pair *p)
{
	return (p->active[0] || p->active[1]) && (p->layer != LAYER_VM || p->vm_with_disks);
}

/* The larger mean IOPS of a pair's two sides; guest disks first at equal load (what the application sees). */
static double pair_load(const struct cmp_pair *p)
{
	double v = fmax(isnan(p->load_mean[0]) ? 0 : p->load_mean[0], isnan(p->load_mean[1]) ? 0 : p->load_mean[1]);
	return v * (p->layer == LAYER_GUEST ? 1.5 : 1);
}

static void equal_load_cell(struct buf *b, const struct cmp_row *r)
{
	buf_adds(b, "<td class=\"small\">");
	if (r->has_lm) {
		if (r->lm.comparable) {
			pct(b, r->lm.change_pct);
			buf_adds(b, " <span class=\"muted\">[");
			pct(b, r->lm.ci[0]);
			buf_adds(b, " .. ");
			pct(b, r->lm.ci[1]);
			buf_adds(b, "]</span> ");
			verdict_badge(b, r, r->lm.verdict);
			buf_printf(b, "<br><span class=\"muted\">%d bins, ", r->lm.bins);
			num(b, r->lm.load_lo);
			buf_adds(b, "&ndash;");
			num(b, r->lm.load_hi);
			buf_adds(b, " IO/s</span>");
		} else {
			buf_adds(b, "<span class=\"muted\">not comparable");
			if (r->lm.note) {
				buf_adds(b, ": ");
				esc(b, r->lm.note);
			}
			buf_adds(b, "</span>");
		}
	}
	buf_adds(b, "</td>");
}

static void comparison_row(const struct compare *c, const struct cmp_row *r, struct buf *b, bool with_entity)
{
	const struct cmp_pair *p = &c->pairs[r->pair];
	buf_adds(b, "<tr>");
	if (with_entity) {
		buf_adds(b, "<td>");
		pair_label(b, p);
		if (!isnan(p->load_mean[0]) || !isnan(p->load_mean[1])) {
			buf_adds(b, "<br><span class=\"muted small\">");
			num(b, p->load_mean[0]);
			buf_adds(b, " &rarr; ");
			num(b, p->load_mean[1]);
			buf_adds(b, " IO/s</span>");
		}
		buf_adds(b, "</td>");
	}
	buf_printf(b, "<td>%s <span class=\"muted small\">%s</span></td>", metric_info[r->spec->metric].label,
		   metric_info[r->spec->metric].unit);
	stats_cell(b, &r->s[CMP_BEFORE], !with_entity);
	stats_cell(b, &r->s[CMP_AFTER], !with_entity);
	buf_adds(b, "<td class=\"n\"><b>");
	pct(b, r->change_pct);
	buf_adds(b, "</b><br><span class=\"muted small\">");
	if (!isnan(r->ci[0])) {
		pct(b, r->ci[0]);
		buf_adds(b, " .. ");
		pct(b, r->ci[1]);
	}
	buf_adds(b, "</span></td>");
	deciding_cell(c, r, b);
	buf_adds(b, "<td>");
	verdict_badge(b, r, r->verdict);
	if (r->decisive && r->verdict != CV_NOT_ASSESSED)
		buf_adds(b, " <span class=\"muted small\" title=\"decides the outcome\">&#9733;</span>");
	buf_adds(b, "</td>");
	equal_load_cell(b, r);
	buf_adds(b, "</tr>\n");
}

/* Time of day (s since midnight UTC) of aligned ms t. */
static double tod(int64_t t)
{
	int64_t d = t % 86400000;
	if (d < 0)
		d += 86400000;
	return (double)d / 1000.0;
}

static struct chart_point *side_series(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric m,
				       bool time_of_day, size_t *n)
{
	*n = 0;
	size_t cnt = compare_series(c, p, s, m, NULL, 0);
	if (!cnt)
		return NULL;
	struct cmp_point *cp = xmalloc(cnt * sizeof *cp);
	compare_series(c, p, s, m, cp, cnt);
	struct chart_point *pt = xmalloc((2 * cnt + 1) * sizeof *pt);
	size_t o = 0;
	for (size_t i = 0; i < cnt; i++) {
		double x = time_of_day ? tod(cp[i].t) : (double)cp[i].t / 1000.0;
		if (o && x < pt[o - 1].t) { /* a new capture or midnight: break the line */
			pt[o] = (struct chart_point){pt[o - 1].t, NAN, NAN, NAN};
			o++;
		}
		pt[o] = (struct chart_point){x, cp[i].mean, cp[i].min, cp[i].max};
		o++;
	}
	free(cp);
	*n = o;
	return pt;
}

static const char *const side_label[2] = {"before", "after"};

/* The legend of a side: "before (reads)" for read latency, so a printed chart says what it shows. */
static const char *side_legend(enum metric m, int s)
{
	static const char *const rd[2] = {"before (reads)", "after (reads)"}, *const wr[2] = {"before (writes)", "after (writes)"};
	const char *l = metric_info[m].label;
	size_t n = strlen(l);
	if (n >= 4 && strcasecmp(l + n - 4, "Read") == 0)
		return rd[s];
	if (n >= 5 && strcasecmp(l + n - 5, "Write") == 0)
		return wr[s];
	return side_label[s];
}

/* CDF of metric m on both sides (x: value, y: % of samples at or below). */
static bool cdf_chart(const struct compare *c, const struct cmp_pair *p, enum metric m, struct chart *ch)
{
	chart_init(ch);
	ch->width = 540;
	ch->panel_height = 230;
	ch->xnumeric = true;
	snprintf(ch->panel[0].ylabel, sizeof ch->panel[0].ylabel, "%% of samples <= x");
	ch->panel[0].ymax = 100;
	double lo = INFINITY, hi = 0;
	struct chart_point pts[2][210];
	size_t np[2] = {0, 0};
	for (int s = 0; s < 2; s++) {
		struct qsketch q;
		compare_sketch(c, p, (enum cmp_side)s, m, &q);
		if (q.n) {
			for (int i = 1; i <= 202; i++) {
				double pr = i <= 199 ? i / 200.0 : i == 200 ? 0.995 : i == 201 ? 0.999 : 1.0;
				double x = i == 202 ? q.max : qs_quantile(&q, pr);
				if (isnan(x))
					continue;
				pts[s][np[s]++] = (struct chart_point){x, pr * 100, pr * 100, pr * 100};
				if (x > 0 && x < lo)
					lo = x;
				if (x > hi)
					hi = x;
			}
		}
		qs_free(&q);
	}
	if (!np[0] && !np[1])
		return false;
	ch->xlog = lo < INFINITY && hi / lo > 20;
	if (ch->xlog) {
		ch->t0 = pow(10, floor(log10(lo)));
		ch->t1 = pow(10, ceil(log10(hi)));
		for (int s = 0; s < 2; s++) /* log axis: values <= 0 cannot be drawn */
			for (size_t i = 0; i < np[s]; i++)
				if (pts[s][i].t <= 0)
					pts[s][i].t = ch->t0;
	} else {
		ch->t0 = 0;
		ch->t1 = nice_axis(hi);
	}
	snprintf(ch->xlabel, sizeof ch->xlabel, "%s%s", metric_info[m].unit, ch->xlog ? " (log scale)" : "");
	for (int s = 0; s < 2; s++)
		if (np[s])
			chart_add_series(ch, side_legend(m, s), 0, CS_LINE, s ? CHART_AFTER : CHART_BEFORE, pts[s], np[s]);
	return ch->ns > 0;
}

/* Latency (my) against IOPS (mx), both sides. */
static bool scatter_chart(const struct compare *c, const struct cmp_pair *p, enum metric mx, enum metric my, struct chart *ch)
{
	chart_init(ch);
	ch->width = 540;
	ch->panel_height = 230;
	ch->xnumeric = true;
	snprintf(ch->panel[0].ylabel, sizeof ch->panel[0].ylabel, "%s", metric_info[my].unit);
	snprintf(ch->xlabel, sizeof ch->xlabel, "%s", metric_info[mx].unit);
	double hi = 0;
	for (int s = 0; s < 2; s++) {
		size_t n = compare_xy(c, p, (enum cmp_side)s, mx, my, NULL, NULL, 0);
		if (!n)
			continue;
		double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y);
		compare_xy(c, p, (enum cmp_side)s, mx, my, x, y, n);
		for (size_t i = 0; i < n; i++)
			if (x[i] > hi)
				hi = x[i];
		chart_add_scatter(ch, side_legend(my, s), 0, s ? CHART_AFTER : CHART_BEFORE, x, y, n);
		free(x);
		free(y);
	}
	ch->t0 = 0;
	ch->t1 = nice_axis(hi);
	return ch->ns > 0;
}

/* Time-of-day overlay of metric m (and the load, when given) on both sides. */
static bool overlay_chart(const struct compare *c, const struct cmp_pair *p, enum metric m, int load, struct chart *ch)
{
	chart_init(ch);
	ch->panel_height = 150;
	double lo = INFINITY, hi = -INFINITY;
	const int ms[2] = {(int)m, load};
	for (int k = 0; k < 2; k++) {
		if (ms[k] < 0)
			continue;
		int panel = ch->npanels;
		bool any = false;
		for (int s = 0; s < 2; s++) {
			size_t n;
			struct chart_point *pt = side_series(c, p, (enum cmp_side)s, (enum metric)ms[k], true, &n);
			for (size_t i = 0; i < n; i++) {
				if (isnan(pt[i].mean))
					continue;
				lo = fmin(lo, pt[i].t);
				hi = fmax(hi, pt[i].t);
			}
			if (pt && chart_add_series(ch, k ? side_label[s] : side_legend(m, s), panel, CS_BAND,
						   s ? CHART_AFTER : CHART_BEFORE, pt, n))
				any = true;
			free(pt);
		}
		if (any)
			snprintf(ch->panel[panel].ylabel, sizeof ch->panel[panel].ylabel, "%s", metric_info[ms[k]].unit);
	}
	if (!ch->ns)
		return false;
	ch->t0 = lo;
	ch->t1 = hi > lo ? hi : lo + 60;
	return true;
}

/* Metric m over each side's busy phase (its longest busy stretch), against the minutes since
 * that stretch began: the two busy periods side by side, whatever their time of day. */
static bool busy_chart(const struct compare *c, const struct cmp_pair *p, enum metric m, struct chart *ch)
{
	chart_init(ch);
	ch->panel_height = 170;
	ch->xnumeric = true;
	snprintf(ch->xlabel, sizeof ch->xlabel, "minutes into the busy phase");
	snprintf(ch->panel[0].ylabel, sizeof ch->panel[0].ylabel, "%s", metric_info[m].unit);
	double hi = 0;
	for (int s = 0; s < 2; s++) {
		const struct cmp_busy *bz = &p->busy[s];
		if (!bz->has || !(bz->end > bz->start))
			continue;
		size_t cnt = compare_series(c, p, (enum cmp_side)s, m, NULL, 0);
		if (!cnt)
			continue;
		struct cmp_point *cp = xmalloc(cnt * sizeof *cp);
		compare_series(c, p, (enum cmp_side)s, m, cp, cnt);
		struct chart_point *pt = xmalloc(cnt * sizeof *pt);
		size_t n = 0;
		for (size_t i = 0; i < cnt; i++) {
			if (cp[i].t < bz->start || cp[i].t > bz->end)
				continue;
			double x = (double)(cp[i].t - bz->start) / 60000.0;
			pt[n++] = (struct chart_point){x, cp[i].busy ? cp[i].mean : NAN, cp[i].min, cp[i].max};
			hi = fmax(hi, x);
		}
		if (n)
			chart_add_series(ch, side_legend(m, s), 0, CS_BAND, s ? CHART_AFTER : CHART_BEFORE, pt, n);
		free(pt);
		free(cp);
	}
	if (!ch->ns)
		return false;
	ch->t0 = 0;
	ch->t1 = hi > 0 ? hi : 1;
	return true;
}

static void bins_table(const struct compare *c, size_t row, struct buf *b)
{
	for (size_t i = 0; i < c->nlb; i++) {
		const struct cmp_loadbins *lb = &c->lb[i];
		if (lb->row != row || !lb->nbins)
			continue;
		const struct cmp_row *r = &c->rows[row];
		buf_printf(b, "<h4>%s at equal load (median per IOPS bin)</h4>\n", metric_info[r->spec->metric].label);
		buf_adds(b, "<div class=\"tablewrap\"><table class=\"bins\"><thead><tr><th class=\"n\">IO/s</th><th class=\"n\">Samples<br>"
			    "before / after</th><th class=\"n\">p50 before</th><th class=\"n\">p50 after</th><th class=\"n\">p95 before</th>"
			    "<th class=\"n\">p95 after</th><th>Compared</th></tr></thead><tbody>\n");
		size_t only_n[2] = {0, 0};
		double only_lo[2] = {INFINITY, INFINITY}, only_hi[2] = {0, 0};
		for (size_t k = 0; k < lb->nbins; k++) {
			const struct cmp_bin *bn = &lb->bins[k];
			if (!bn->n[0] || !bn->n[1]) { /* load seen on one side only: summarised below */
				int sd = bn->n[0] ? 0 : 1;
				only_n[sd] += bn->n[sd];
				only_lo[sd] = fmin(only_lo[sd], bn->lo);
				only_hi[sd] = fmax(only_hi[sd], bn->hi);
				continue;
			}
			buf_printf(b, "<tr%s><td class=\"n\">", bn->matched ? "" : " class=\"unmatched\"");
			num(b, bn->lo);
			buf_adds(b, "&ndash;");
			num(b, bn->hi);
			buf_printf(b, "</td><td class=\"n\">%zu / %zu</td><td class=\"n\">", bn->n[0], bn->n[1]);
			num(b, bn->p50[0]);
			buf_adds(b, "</td><td class=\"n\">");
			num(b, bn->p50[1]);
			buf_adds(b, "</td><td class=\"n\">");
			num(b, bn->p95[0]);
			buf_adds(b, "</td><td class=\"n\">");
			num(b, bn->p95[1]);
			buf_printf(b, "</td><td>%s</td></tr>\n", bn->matched ? "yes" : "<span class=\"muted\">too few samples on a side</span>");
		}
		buf_adds(b, "</tbody></table></div>\n");
		for (int sd = 0; sd < 2; sd++) {
			if (!only_n[sd])
				continue;
			buf_printf(b, "<p class=\"small muted\">Load seen only %s, between ", side_label[sd]);
			num(b, only_lo[sd]);
			buf_adds(b, " and ");
			num(b, only_hi[sd]);
			buf_printf(b, " IO/s (%zu sample%s), not comparable at equal load.</p>\n", only_n[sd], only_n[sd] == 1 ? "" : "s");
		}
		if (lb->has_slope) {
			buf_adds(b, "<p class=\"small muted\">Latency per outstanding IO (least-squares slope): before ");
			num(b, lb->slope[0]);
			buf_adds(b, " ms, after ");
			num(b, lb->slope[1]);
			buf_adds(b, " ms per IO");
			if (!isnan(lb->slope_change_pct)) {
				buf_adds(b, " (");
				pct(b, lb->slope_change_pct);
				buf_adds(b, ")");
			}
			buf_adds(b, ".</p>\n");
		}
	}
}

static const char compare_css[] =
	".cv{display:inline-block;font-size:12px;font-weight:600;padding:1px 9px;border-radius:999px;white-space:nowrap;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".cv.good{background:var(--ok-bg);color:var(--ok)}.cv.bad{background:var(--crit-bg);color:var(--crit)}"
	".cv.work{background:var(--info-bg);color:var(--info)}.cv.same{background:#eef0f3;color:var(--muted)}"
	".cv.na{color:var(--faint)}\n"
	".fs{display:inline-block;font-size:12px;font-weight:600;padding:1px 9px;border-radius:999px;white-space:nowrap;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".fs.gone{background:var(--ok-bg);color:var(--ok)}.fs.new{background:var(--crit-bg);color:var(--crit)}"
	".fs.still{background:var(--warn-bg);color:var(--warn)}\n"
	".count.good b{color:var(--ok)}.count.bad b{color:var(--crit)}.count.work b{color:var(--info)}\n"
	".pairgrid{display:grid;grid-template-columns:1fr 1fr;gap:14px}\n"
	".pairgrid figure.chart{margin:0}\n"
	".chartset{border-top:1px solid var(--line);padding:20px 0 6px}.chartset:first-of-type{border-top:none;padding-top:4px}\n"
	".key-before,.key-after{display:inline-block;width:24px;height:0;vertical-align:middle;margin:0 5px 0 8px;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact}\n"
	".key-before{border-top:4px dashed #d55e00}.key-after{border-top:3px solid #08306b}\n"
	".cv.mixed{background:var(--warn-bg);color:var(--warn)}.fs.na{background:#eef0f3;color:var(--muted)}\n"
	".dgood{color:var(--ok)}.dbad{color:var(--crit)}\n"
	".outcome{display:inline-block;font-size:22px;font-weight:700;padding:2px 16px;border-radius:8px;margin:0 0 10px;"
	"-webkit-print-color-adjust:exact;print-color-adjust:exact;border:2px solid currentColor}\n"
	".outcome.good{color:var(--ok);background:var(--ok-bg)}.outcome.bad{color:var(--crit);background:var(--crit-bg)}"
	".outcome.mixed{color:var(--warn);background:var(--warn-bg)}.outcome.same{color:var(--muted);background:#eef0f3}"
	".outcome.na{color:#5d4a00;background:var(--warn-bg)}\n"
	".headline{font-size:19px;line-height:1.5;font-weight:600;margin:0 0 12px}\n"
	".verdict.bad{border-left-color:var(--crit)}.verdict.mixed{border-left-color:#d98a00}.verdict.same{border-left-color:#8a94a6}"
	".verdict.na{border-left-color:#d98a00}\n"
	"tr.group td{background:#f7f8fa;font-weight:600;border-bottom:1px solid var(--line)}\n"
	"tr.unmatched td{color:var(--faint)}\n"
	"@media (max-width:860px){.pairgrid{grid-template-columns:1fr}}\n"
	"@media print{.pairgrid{grid-template-columns:1fr 1fr}.chartset{break-inside:auto}"
	".chartset h3,.chartset p.where{break-after:avoid;page-break-after:avoid}}\n";

static void side_period(const struct analysis *a, const struct ltime *lt, struct buf *b)
{
	int64_t t0 = INT64_MAX, t1 = INT64_MIN;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *cp = &a->m.caps[i];
		if (cp->failed || !cp->rows)
			continue;
		if (cp->start + cp->clock_offset_ms < t0)
			t0 = cp->start + cp->clock_offset_ms;
		if (cp->end + cp->clock_offset_ms > t1)
			t1 = cp->end + cp->clock_offset_ms;
	}
	if (t0 >= t1) {
		buf_adds(b, "no readable capture");
		return;
	}
	period_html(b, lt, t0, t1);
}

int report_html_compare(const struct compare *c, const struct html_opts *o, struct buf *out, struct html_result *res,
			struct diag *d)
{
	memset(res, 0, sizeof *res);
	struct chart_opts co = {.gnuplot = o->gnuplot, .keep_dir = o->gnuplot_dir, .timeout_s = o->timeout_s};
	struct charts cs;
	struct buf err;
	buf_init(&err);
	int crc = charts_open(&cs, &co, &err);
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
	struct notes nt;
	buf_init(&nt.items);
	nt.n = 0;
	struct ltime lt;
	ltime_init(&lt, &c->side[CMP_AFTER].m, &c->side[CMP_BEFORE].m);

	buf_adds(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		      "<meta name=\"generator\" content=\"iopsy " IOPSY_VERSION "\">\n"
		      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; img-src data:\">\n"
		      "<title>");
	doc_title(out, o, "Before and after", &c->side[CMP_AFTER].m);
	buf_adds(out, "</title>\n<style>\n");
	buf_adds(out, css);
	buf_adds(out, compare_css);
	buf_adds(out, "</style>\n");
	print_page_css(out, o, "What did the change do?");
	buf_adds(out, "</head>\n<body>\n");
	{
		struct buf meta;
		buf_init(&meta);
		buf_adds(&meta, "<span>");
		hosts_line(&c->side[CMP_AFTER].m, &meta);
		buf_adds(&meta, "</span><span>before: ");
		side_period(&c->side[CMP_BEFORE], &lt, &meta);
		buf_adds(&meta, "</span><span>after: ");
		side_period(&c->side[CMP_AFTER], &lt, &meta);
		buf_adds(&meta, "</span><span>report of ");
		generated_at(&meta);
		buf_adds(&meta, "</span>");
		page_header(out, o, "before and after", "What did the change do?", meta.data);
		buf_free(&meta);
	}
	buf_adds(out, "<nav class=\"toc\"><div class=\"wrap\"><a href=\"#summary\">Summary</a><a href=\"#verdict\">Verdict</a>"
		      "<a href=\"#findings\">Findings</a><a href=\"#key\">Key changes</a><a href=\"#charts\">Charts</a>"
		      "<a href=\"#all\">All comparisons</a><a href=\"#captures\">Captures</a><a href=\"#appendix\">Appendix</a>"
		      "</div></nav>\n<main class=\"wrap\">\n");
	{
		struct exec_summary es;
		summary_of_compare(c, &lt, &es);
		summary_html(out, &es, false, &lt);
		summary_free(&es);
	}

	/* the outcome and the headline first: what a manager reads in ten seconds */
	const struct cmp_summary *sm = &c->sum;
	const char *vcls = sm->outcome == CO_IMPROVED && sm->findings[FD_NEW] ? "mixed" : co_class[sm->outcome];
	if (sm->outcome == CO_IMPROVED && !sm->findings[FD_NEW])
		vcls = "ok";
	buf_printf(out, "<section id=\"verdict\" class=\"verdict %s\">\n<h2>Verdict</h2>\n", vcls);
	buf_printf(out, "<p><span class=\"outcome %s\">%s%s</span></p>\n<p class=\"headline\">", co_class[sm->outcome],
		   cmp_outcome_words[sm->outcome], sm->capacity_gain ? " &middot; capacity gain" : "");
	esc(out, c->headline ? c->headline : "No comparison result.");
	buf_adds(out, "</p>\n<p class=\"lead small\">");
	esc(out, c->detail ? c->detail : "");
	buf_adds(out, "</p>\n");
	for (size_t i = 0; i < c->nsql; i++) {
		buf_adds(out, "<p class=\"lead small\"><b>SQL Server:</b> ");
		esc(out, c->sql[i].text);
		buf_adds(out, "</p>\n");
	}
	buf_adds(out, "<div class=\"counts\">");
	buf_printf(out, "<div class=\"count good\"><b>%d</b>improved</div><div class=\"count bad\"><b>%d</b>regressed</div>"
			"<div class=\"count\"><b>%d</b>mixed</div><div class=\"count\"><b>%d</b>unchanged</div>"
			"<div class=\"count\"><b>%d</b>not comparable</div><div class=\"count work\"><b>%d</b>more / less work</div>"
			"<div class=\"count good\"><b>%d</b>findings gone</div><div class=\"count bad\"><b>%d</b>new findings</div>",
		   sm->verdicts[CV_IMPROVED], sm->verdicts[CV_REGRESSED], sm->verdicts[CV_MIXED], sm->verdicts[CV_UNCHANGED],
		   sm->verdicts[CV_NOT_COMPARABLE], sm->verdicts[CV_HIGHER] + sm->verdicts[CV_LOWER], sm->findings[FD_GONE],
		   sm->findings[FD_NEW]);
	buf_adds(out, "</div>\n");
	buf_printf(out, "<p class=\"small muted\">The outcome reads the latency at the top of each IO stack (&#9733;): a row is "
			"improved when its tail (p95, p99), its time above a band of the rules or its busy phase improved with a "
			"whole %.0f%% block-bootstrap interval (%u resamples) beyond the material change (%g%% and the metric's "
			"floor) that does not degenerate, and nothing regressed; regressed the other way, mixed when both. The median is the typical IO "
			"and does not decide. A fix is only called when the after side's busy phase reaches the before side's "
			"load (half its IOPS or its outstanding IO); latency is also compared at equal load (IOPS bins).</p>\n",
		   c->o.confidence * 100, c->o.resamples, c->o.material_pct);
	if (res->no_gnuplot)
		buf_adds(out, "<p class=\"notice\"><b>Charts are not included:</b> gnuplot was not found on the machine that made this "
			      "report. Install gnuplot (Debian: <code>gnuplot-nox</code>) and run <code>iopsy compare --html</code> again.</p>\n");
	buf_adds(out, "</section>\n");

	/* findings before and after */
	buf_adds(out, "<section id=\"findings\">\n<h2>Findings before and after</h2>\n");
	if (!c->nfd) {
		buf_adds(out, "<p>No findings on either side.</p>\n");
	} else {
		buf_adds(out, "<div class=\"tablewrap\"><table><thead><tr><th>Status</th><th>Finding</th><th>Where</th>"
			      "<th>Before</th><th>After</th></tr></thead><tbody>\n");
		static const char *const fcls[FD_COUNT] = {"gone", "still", "new", "na", "na"};
		static const char *const fword[FD_COUNT] = {"gone", "still present", "new", "not assessed after", "not assessed before"};
		for (int pass = 0; pass < FD_COUNT; pass++) {
			const enum cmp_fstatus order[FD_COUNT] = {FD_NEW, FD_STILL, FD_GONE, FD_NOT_ASSESSED_AFTER, FD_NOT_ASSESSED_BEFORE};
			for (size_t i = 0; i < c->nfd; i++) {
				const struct cmp_fdiff *f = &c->fd[i];
				if (f->status != order[pass])
					continue;
				buf_printf(out, "<tr><td><span class=\"fs %s\">%s</span></td><td>", fcls[f->status], fword[f->status]);
				title(out, f->kind);
				if (f->why) {
					buf_adds(out, "<br><span class=\"muted small\">");
					esc(out, f->why);
					buf_adds(out, "</span>");
				}
				buf_adds(out, "</td><td>");
				entity_label(out, f->host, f->entity);
				for (int s = 0; s < 2; s++) {
					buf_adds(out, "<td>");
					if (f->count[s] > 0 && f->worst[s] >= 0)
						buf_printf(out, "<span class=\"badge %s\">%s</span> <span class=\"muted small\">%d window%s, ",
							   sev_class(f->worst[s]), sev_word(f->worst[s]), f->count[s], f->count[s] == 1 ? "" : "s");
					if (f->count[s] > 0) {
						duration(out, f->sustained_s[s]);
						buf_adds(out, "</span>");
					} else {
						buf_adds(out, "<span class=\"muted\">&ndash;</span>");
					}
					buf_adds(out, "</td>");
				}
				buf_adds(out, "</tr>\n");
			}
		}
		buf_adds(out, "</tbody></table></div>\n");
	}
	buf_adds(out, "</section>\n");

	/* key changes */
	buf_adds(out, "<section id=\"key\">\n<h2>Key changes</h2>\n<p class=\"small muted\">Material changes of latency, "
		      "queueing (per unit of load) and penalties; changes in the amount of work are in <a href=\"#all\">all "
		      "comparisons</a>. Figures are p50 / p95 / p99 of every sample; &ldquo;median&rdquo; is the change of the "
		      "typical IO with its interval; &ldquo;deciding figures&rdquo; are those that moved materially; &ldquo;at "
		      "equal load&rdquo; compares latency within matched IOPS bins.</p>\n");
	size_t nkey = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		if (!row_material(r) || !pair_shown(&c->pairs[r->pair]) || !cmp_kind_lower_is_better(r->spec->kind))
			continue;
		if (!nkey++)
			buf_adds(out, "<div class=\"tablewrap\"><table class=\"cmp\"><thead><tr><th>Entity</th><th>Metric</th>"
				      "<th class=\"n\">Before<br>p50 / p95 / p99</th><th class=\"n\">After<br>p50 / p95 / p99</th>"
				      "<th class=\"n\">Median<br>interval</th><th>Deciding figures</th><th>Outcome</th><th>At equal load</th>"
				      "</tr></thead><tbody>\n");
		comparison_row(c, r, out, true);
	}
	if (nkey)
		buf_adds(out, "</tbody></table></div>\n");
	else
		buf_adds(out, "<p>No material change: every comparison is unchanged or could not be assessed.</p>\n");
	buf_adds(out, "</section>\n");

	/* charts: the entities whose latency changed (or, without any, the busiest) */
	buf_adds(out, "<section id=\"charts\">\n<h2>Charts</h2>\n<p class=\"small muted\"><span class=\"key-before\"></span>before "
		      "(vermillion, dashed and thicker, open dots)<span class=\"key-after\"></span>after (dark blue, solid, filled dots). "
		      "Distribution: the share of samples at or below each latency (a curve further left is faster). Busy phase: "
		      "each side's busy period from its own start, line = mean, band = min to max. Time of day: both days on "
		      "one clock. Latency against load: one dot per plotted sample.</p>\n");
	size_t charted = 0;
	struct figs figs;
	figs_init(&figs, &cs, out);
	/* busiest first: the disks the workload lives on */
	size_t *order = xmalloc((c->npairs ? c->npairs : 1) * sizeof *order);
	for (size_t i = 0; i < c->npairs; i++)
		order[i] = i;
	for (size_t i = 1; i < c->npairs; i++)
		for (size_t k = i; k > 0 && pair_load(&c->pairs[order[k]]) > pair_load(&c->pairs[order[k - 1]]); k--) {
			size_t t = order[k];
			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (int pass = 0; pass < 2 && !charted; pass++) {
		for (size_t oi = 0; oi < c->npairs && charted < 4; oi++) {
			const struct cmp_pair *p = &c->pairs[order[oi]];
			if (!p->name[0] || !p->name[1] || !pair_shown(p))
				continue;
			const struct cmp_row *lead = NULL;
			for (size_t k = p->first_row; k < p->first_row + p->nrows && !lead; k++) {
				const struct cmp_row *r = &c->rows[k];
				if (r->spec->kind != CK_LATENCY)
					continue;
				if (pass == 1 ? r->verdict != CV_NOT_ASSESSED : row_material(r))
					lead = r;
			}
			if (!lead)
				continue;
			charted++;
			enum metric m = lead->spec->metric;
			buf_adds(out, "<div class=\"chartset\">\n<h3>");
			pair_label(out, p);
			buf_printf(out, " &middot; %s</h3>\n<p class=\"where\">%s layer &middot; mean load ", metric_info[m].label,
				   layer_names[p->layer]);
			num(out, p->load_mean[0]);
			buf_adds(out, " &rarr; ");
			num(out, p->load_mean[1]);
			buf_adds(out, " IO/s &middot; p95 ");
			num(out, lead->s[0].p95);
			buf_adds(out, " &rarr; ");
			num(out, lead->s[1].p95);
			buf_printf(out, " %s &middot; median ", metric_info[m].unit);
			num(out, lead->s[0].p50);
			buf_adds(out, " &rarr; ");
			num(out, lead->s[1].p50);
			buf_printf(out, " %s ", metric_info[m].unit);
			verdict_badge(out, lead, lead->verdict);
			buf_adds(out, "</p>\n");
			if (res->no_gnuplot && !o->gnuplot_dir)
				continue;
			struct buf cap;
			buf_init(&cap);
			struct chart ch;
			buf_adds(out, "<div class=\"pairgrid\">\n");
			if (cdf_chart(c, p, m, &ch)) {
				buf_reset(&cap);
				buf_printf(&cap, "Distribution of %s, before and after.", metric_info[m].label);
				figs_add(&figs, &ch, out, 0, cap.data);
			}
			chart_free(&ch);
			if (lead->spec->load >= 0 && scatter_chart(c, p, (enum metric)lead->spec->load, m, &ch)) {
				buf_reset(&cap);
				buf_printf(&cap, "%s against %s.", metric_info[m].label, metric_info[lead->spec->load].label);
				figs_add(&figs, &ch, out, 0, cap.data);
			}
			chart_free(&ch);
			buf_adds(out, "</div>\n");
			if ((p->busy[0].distinct || p->busy[1].distinct) && busy_chart(c, p, m, &ch)) {
				buf_reset(&cap);
				buf_printf(&cap, "%s during the busy phase of each side, from its start.", metric_info[m].label);
				figs_add(&figs, &ch, out, 0, cap.data);
			}
			chart_free(&ch);
			if (overlay_chart(c, p, m, lead->spec->load, &ch)) {
				ch.time_of_day = true;
				ch.ltz = lt.known ? &lt.z : NULL;
				for (size_t k = 0; k < c->side[CMP_AFTER].m.ncaps; k++)
					if (!c->side[CMP_AFTER].m.caps[k].failed && c->side[CMP_AFTER].m.caps[k].rows) {
						ch.tod_ref_s = c->side[CMP_AFTER].m.caps[k].start / 1000;
						break;
					}
				buf_reset(&cap);
				buf_printf(&cap, "%s%s%s by time of day, both days on one clock.", metric_info[m].label,
					   lead->spec->load >= 0 ? " and " : "", lead->spec->load >= 0 ? metric_info[lead->spec->load].label : "");
				figs_add(&figs, &ch, out, 0, cap.data);
			}
			chart_free(&ch);
			buf_free(&cap);
			bins_table(c, (size_t)(lead - c->rows), out);
			buf_adds(out, "</div>\n");
		}
	}
	free(order);
	struct figlist fl = {.n = 0};
	figlist_take(&fl, &figs);
	figs_finish(&figs, out, o, res, &nt, d);
	if (!charted)
		buf_adds(out, "<p class=\"muted\">No entity with latency on both sides.</p>\n");
	buf_adds(out, "</section>\n");
	charts_close(&cs);

	/* all comparisons */
	buf_adds(out, "<section id=\"all\">\n<h2>All comparisons</h2>\n<div class=\"tablewrap\"><table class=\"cmp\"><thead><tr>"
		      "<th>Metric</th><th class=\"n\">Before<br>p50 / p95 / p99 / max</th><th class=\"n\">After<br>p50 / p95 / p99 / max</th>"
		      "<th class=\"n\">Median<br>interval</th><th>Deciding figures</th><th>Outcome</th><th>At equal load</th></tr>"
		      "</thead><tbody>\n");
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if (!p->name[0] || !p->name[1] || !pair_shown(p) || !p->nrows)
			continue;
		buf_adds(out, "<tr class=\"group\"><td colspan=\"7\">");
		pair_label(out, p);
		buf_printf(out, " <span class=\"muted small\">%s &middot; mean ", layer_names[p->layer]);
		num(out, p->load_mean[0]);
		buf_adds(out, " &rarr; ");
		num(out, p->load_mean[1]);
		buf_adds(out, " IO/s</span></td></tr>\n");
		for (size_t k = p->first_row; k < p->first_row + p->nrows; k++)
			comparison_row(c, &c->rows[k], out, false);
	}
	buf_adds(out, "</tbody></table></div>\n");
	/* one side only */
	size_t one = 0;
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if ((p->name[0] && p->name[1]) || (p->layer == LAYER_VM && !p->vm_with_disks))
			continue;
		if (!one++)
			buf_adds(out, "<h4>On one side only</h4>\n<div class=\"tablewrap\"><table><thead><tr><th>Entity</th><th>Layer</th>"
				      "<th>Present</th><th class=\"n\">Mean IO/s</th></tr></thead><tbody>\n");
		int sd = p->name[0] ? 0 : 1;
		buf_adds(out, "<tr><td>");
		pair_label(out, p);
		buf_printf(out, "</td><td>%s</td><td>%s only</td><td class=\"n\">", layer_names[p->layer], side_label[sd]);
		num(out, p->load_mean[sd]);
		buf_adds(out, "</td></tr>\n");
	}
	if (one)
		buf_adds(out, "</tbody></table></div>\n");
	buf_adds(out, "</section>\n");

	/* captures */
	buf_adds(out, "<section id=\"captures\">\n<h2>Captures</h2>\n");
	for (int s = 0; s < 2; s++) {
		buf_printf(out, "<h4>%s</h4>\n", s ? "After" : "Before");
		captures_section(&c->side[s], &lt, out);
		capture_notes(&c->side[s], &nt);
		workflow_notices(&c->side[s], out);
	}
	if (res->no_gnuplot)
		note_add(&nt, "gnuplot was not found: the report has no charts.");
	if (nt.n) {
		buf_adds(out, "<h4>Warnings</h4>\n<ul class=\"warnings\">\n");
		buf_add(out, nt.items.data, nt.items.len);
		buf_adds(out, "</ul>\n");
	}
	buf_adds(out, "</section>\n");
	if (o->extra_html)
		buf_adds(out, o->extra_html);
	appendix_html(out, NULL, &fl, o, "doc/compare-json.md");
	buf_adds(out, "</main>\n");
	footer_html(out, o);
	buf_adds(out, "<script type=\"application/json\" id=\"iopsy-data\">");
	struct json j;
	json_init(&j, out, false);
	compare_json(c, &j);
	buf_adds(out, "</script>\n</body>\n</html>\n");
	buf_free(&nt.items);
	buf_free(&err);
	if (o->require_charts && res->charts_failed)
		return CHARTS_FAILED;
	return 0;
}

bool html_paper_known(const char *name)
{
	return strcasecmp(name, "a4") == 0 || strcasecmp(name, "letter") == 0;
}
