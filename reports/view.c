/* view.c — the page of `iopsy view` (see view.h). */
#include "view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

/* A JSON string: quoted, escaped by json_escape, then '<' '>' '&' as \u escapes so nothing in it
 * can close the data element or start markup. */
static void jstr(struct buf *b, const char *s)
{
	struct buf t;
	buf_init(&t);
	json_escape(&t, s ? s : "", s ? strlen(s) : 0);
	buf_addc(b, '"');
	for (size_t i = 0; i < t.len; i++) {
		char c = t.data[i];
		if (c == '<')
			buf_adds(b, "\\u003c");
		else if (c == '>')
			buf_adds(b, "\\u003e");
		else if (c == '&')
			buf_adds(b, "\\u0026");
		else
			buf_addc(b, c);
	}
	buf_addc(b, '"');
	buf_free(&t);
}

/* A value with the precision a chart shows: 4 significant digits, whole numbers from 10,000. */
static void jnum(struct buf *b, double x)
{
	if (!isfinite(x)) {
		buf_adds(b, "null");
		return;
	}
	char t[40];
	if (fabs(x) >= 1e4 && fabs(x) < 1e15)
		snprintf(t, sizeof t, "%.0f", x);
	else
		snprintf(t, sizeof t, "%.4g", x);
	buf_adds(b, strcmp(t, "-0") == 0 ? "0" : t);
}

/* The customer's offset from UTC at t (seconds) and the zone's name. */
static int32_t local_offset(const struct view_data *v, const struct view_page_opts *o, int64_t t_ms,
			    const char **name)
{
	if (o && o->tz) {
		*name = o->tz->name;
		return tz_offset_at(o->tz, t_ms / 1000, NULL);
	}
	for (size_t i = 0; i < v->ncaps; i++)
		if (v->caps[i].bias_known) {
			*name = "the perfmon header's bias";
			return -v->caps[i].bias_min * 60;
		}
	*name = "UTC";
	return 0;
}

static void json_caps(const struct view_data *v, struct buf *b)
{
	buf_adds(b, "\"caps\":[");
	for (size_t i = 0; i < v->ncaps; i++) {
		const struct view_cap *c = &v->caps[i];
		buf_adds(b, i ? ",{\"file\":" : "{\"file\":");
		jstr(b, c->file);
		buf_adds(b, ",\"format\":");
		jstr(b, c->format);
		buf_printf(b, ",\"rows\":%ld,\"per\":%ld,\"t\":[", c->rows, c->w);
		for (size_t k = 0; k < c->nb; k++) {
			if (k)
				buf_addc(b, ',');
			int64_t t = c->t[k];
			if (t % 1000)
				buf_printf(b, "%lld.%03lld", (long long)(t / 1000), (long long)(t % 1000));
			else
				buf_printf(b, "%lld", (long long)(t / 1000));
		}
		buf_adds(b, "]}");
	}
	buf_addc(b, ']');
}

static void json_series(const struct view_data *v, struct buf *b)
{
	buf_adds(b, ",\"series\":[");
	bool first = true;
	for (size_t i = 0; i < v->ns; i++) {
		const struct view_series *s = &v->s[i];
		if (!s->kept)
			continue;
		const struct view_cap *c = &v->caps[s->cap];
		buf_printf(b, "%s{\"c\":%zu,\"o\":", first ? "" : ",", s->cap);
		first = false;
		jstr(b, s->object);
		buf_adds(b, ",\"k\":");
		jstr(b, s->counter);
		buf_adds(b, ",\"i\":");
		jstr(b, s->instance);
		buf_adds(b, ",\"u\":");
		jstr(b, s->unit);
		if (*s->metric) {
			buf_adds(b, ",\"m\":");
			jstr(b, s->metric);
			buf_adds(b, ",\"e\":");
			jstr(b, s->entity);
		}
		buf_adds(b, ",\"lo\":[");
		for (size_t k = 0; k < c->nb; k++) {
			if (k)
				buf_addc(b, ',');
			jnum(b, s->lo[k]);
		}
		buf_addc(b, ']');
		if (c->w > 1) { /* one sample per bucket: the maximum is the minimum */
			buf_adds(b, ",\"hi\":[");
			for (size_t k = 0; k < c->nb; k++) {
				if (k)
					buf_addc(b, ',');
				jnum(b, s->hi[k]);
			}
			buf_addc(b, ']');
		}
		buf_addc(b, '}');
	}
	buf_addc(b, ']');
}

static void json_findings(const struct view_data *v, struct buf *b)
{
	buf_adds(b, ",\"findings\":[");
	for (size_t i = 0; i < v->nf; i++) {
		const struct view_finding *f = &v->f[i];
		buf_printf(b, "%s{\"s\":%.3f,\"e\":%.3f,\"sev\":", i ? "," : "", (double)f->start / 1000.0,
			   (double)f->end / 1000.0);
		jstr(b, f->sev);
		buf_adds(b, ",\"kind\":");
		jstr(b, f->kind);
		buf_adds(b, ",\"title\":");
		jstr(b, f->title);
		buf_adds(b, ",\"ent\":");
		jstr(b, f->entity);
		buf_adds(b, ",\"ev\":[");
		for (int k = 0; k < 5 && f->ev[k]; k++) {
			if (k)
				buf_addc(b, ',');
			jstr(b, f->ev[k]);
		}
		buf_adds(b, "]}");
	}
	buf_addc(b, ']');
}

static void json_links(const struct view_data *v, struct buf *b)
{
	buf_adds(b, ",\"links\":[");
	for (size_t i = 0; i < v->nl; i++) {
		const struct view_link *l = &v->l[i];
		buf_adds(b, i ? ",{\"a\":" : "{\"a\":");
		jstr(b, l->from);
		buf_adds(b, ",\"b\":");
		jstr(b, l->to);
		buf_adds(b, ",\"k\":");
		jstr(b, l->kind);
		buf_adds(b, ",\"how\":");
		jstr(b, l->how);
		buf_addc(b, '}');
	}
	buf_addc(b, ']');
}

void view_json(const struct view_data *v, const struct view_page_opts *o, struct buf *b)
{
	int64_t t0 = 0;
	for (size_t i = 0; i < v->ncaps; i++)
		if (v->caps[i].nb && (!t0 || v->caps[i].t[0] < t0))
			t0 = v->caps[i].t[0];
	const char *zone;
	int32_t off = local_offset(v, o, t0, &zone);
	size_t kept = 0;
	for (size_t i = 0; i < v->ns; i++)
		kept += v->s[i].kept;
	buf_adds(b, o && o->embed ? "{\"v\":1,\"embed\":true,\"tool\":" : "{\"v\":1,\"tool\":");
	jstr(b, o && o->version ? o->version : "");
	buf_adds(b, ",\"tz\":{\"name\":");
	jstr(b, zone);
	buf_printf(b, ",\"off\":%ld},\"budget\":%ld,\"buckets\":%zu,\"matched\":%zu,\"kept\":%zu,\"dropped\":%zu,",
		   (long)off, v->budget, v->buckets, v->ns, kept, v->dropped);
	json_caps(v, b);
	json_series(v, b);
	json_findings(v, b);
	json_links(v, b);
	buf_adds(b, "}");
}

/* The explorer: the counter tree and its search, the presets, the findings and the IO path on the
 * side; the charts, their tools and the cursor readout beside them. Every id is prefixed "v-" (the
 * script's $()), so the explorer can sit in a report whose own ids it must not take. */
static const char explorer[] =
	"<div id=\"v-msg\" hidden></div>\n"
	"<div id=\"v-main\"><nav id=\"v-side\">\n"
	"<input id=\"v-q\" type=\"search\" placeholder=\"regex over object\\counter(instance)\" spellcheck=\"false\">"
	"<div id=\"v-qcount\"></div><div id=\"v-tree\"></div>\n"
	"<div id=\"v-presets\" hidden><h2>Presets</h2><select id=\"v-preset\"></select> "
	"<button id=\"v-gopreset\" type=\"button\">Show</button></div>\n"
	"<h2>Findings</h2><div id=\"v-findings\"></div>\n"
	"<div id=\"v-iop\" hidden><h2>IO path</h2><div id=\"v-iotree\"></div></div></nav>\n"
	"<div id=\"v-pane\"><div id=\"v-bar\"><button id=\"v-newc\" type=\"button\">New chart</button>"
	"<button id=\"v-reset\" type=\"button\">Reset zoom</button>"
	"<label><input type=\"checkbox\" id=\"v-log\"> log scale</label>"
	"<span id=\"v-readout\"></span></div>\n"
	"<p id=\"v-hint\">Pick a counter in the tree (+ adds it to the active chart), or a finding. "
	"Drag across a chart to zoom; every chart follows.</p>\n"
	"<div id=\"v-charts\"></div></div></div>\n";

/* The data element (id), then uPlot and the page's script. */
static void data_and_scripts(const struct view_data *v, const struct view_page_opts *o, const char *id,
			     struct buf *b)
{
	buf_printf(b, "<script type=\"application/json\" id=\"%s\">", id);
	view_json(v, o, b);
	buf_adds(b, "</script>\n<script>");
	buf_adds(b, view_uplot_js);
	buf_adds(b, "</script>\n<script>");
	buf_adds(b, view_app_js);
	buf_adds(b, "</script>\n");
}

void view_style(struct buf *b)
{
	buf_adds(b, "<style>");
	buf_adds(b, view_uplot_css);
	buf_addc(b, '\n');
	buf_adds(b, view_app_css);
	buf_adds(b, "</style>\n");
}

void view_page(const struct view_data *v, const struct view_page_opts *o, struct buf *b)
{
	buf_adds(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		    "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src ");
	buf_adds(b, view_csp_script);
	buf_adds(b, "; style-src ");
	buf_adds(b, view_csp_style);
	buf_adds(b, "; img-src data:; base-uri 'none'; form-action 'none'\">\n"
		    "<meta name=\"viewport\" content=\"width=device-width\">\n"
		    "<title>iopsy view</title>\n");
	view_style(b);
	buf_adds(b, "</head>\n<body class=\"vpage\">\n<div id=\"v-root\">\n"
		    "<header id=\"v-top\"><h1>iopsy view</h1><span id=\"v-sum\"></span></header>\n");
	buf_adds(b, explorer);
	buf_adds(b, "</div>\n");
	data_and_scripts(v, o, "iopsy-data", b);
	buf_adds(b, "</body></html>\n");
}

void view_section(const struct view_data *v, const struct view_page_opts *o, struct buf *b)
{
	size_t kept = 0;
	for (size_t i = 0; i < v->ns; i++)
		kept += v->s[i].kept;
	buf_adds(b, "<section id=\"explore\">\n<h2>Explore</h2>\n<p class=\"small muted\">");
	long per = 1;
	for (size_t i = 0; i < v->ncaps; i++)
		if (v->caps[i].w > per)
			per = v->caps[i].w;
	buf_printf(b, "Every counter the analysis read for the entities it analysed (those its findings name, "
		      "then the active disks, LUNs, adapters and paths, the VMs that own them and SQL Server): "
		      "%zu series", kept);
	if (per > 1)
		buf_printf(b, ", each as at most %zu buckets of up to %ld samples that keep their minimum and "
			      "maximum, so a short stall stays visible", v->buckets, per);
	else
		buf_adds(b, ", every sample");
	if (v->flat)
		buf_printf(b, " (%zu more were zero throughout and are left out)", v->flat);
	buf_adds(b, ". The findings are shaded on the timeline. Pick a counter in the tree or a finding; drag "
		    "across a chart to zoom. <code>iopsy view</code> on the captures shows any of their columns; "
		    "<code>--no-explore</code> leaves this section out.</p>\n");
	buf_adds(b, "<div id=\"v-root\">\n<p id=\"v-sum\" class=\"small muted\"></p>\n");
	buf_adds(b, explorer);
	buf_adds(b, "</div>\n");
	data_and_scripts(v, o, "iopsy-view-data", b);
	buf_adds(b, "</section>\n");
}
