/* analysis_out.c — the analysis as text (readable summary: verdict first, findings worst first with
 * evidence) and as JSON (schema_version 1, doc/analyze-json.md). */
#include "analysis_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fmt.h"
#include "version.h"

#define esc fmt_esc
static void duration(struct buf *b, double s) { fmt_duration(b, s, true); }
static void text_num(struct buf *b, double v) { fmt_num(b, v, "-"); }





void analysis_text(const struct analysis *a, struct buf *out)
{
	const struct model *m = &a->m;
	int crit = 0, warn = 0, info = 0;
	for (size_t i = 0; i < a->nf; i++)
		a->f[i].sev == SEV_CRITICAL ? crit++ : a->f[i].sev == SEV_WARNING ? warn++ : info++;
	buf_printf(out, "iopsy analyze: %zu capture%s, %zu finding%s (%d critical, %d warning, %d info)\n\n", m->ncaps,
		   m->ncaps == 1 ? "" : "s", a->nf, a->nf == 1 ? "" : "s", crit, warn, info);
	buf_adds(out, "VERDICT\n");
	text_wrap(out, "  ", a->verdict ? a->verdict : "", 100);
	buf_adds(out, "\nCAPTURES\n");
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *c = &m->caps[i];
		buf_adds(out, "  ");
		esc(out, c->path);
		if (c->failed) {
			buf_adds(out, ": could not be read (see the messages above)\n");
			continue;
		}
		char s[32], e[32];
		time_format_iso(c->start + c->clock_offset_ms, false, s);
		time_format_iso(c->end + c->clock_offset_ms, false, e);
		buf_printf(out, ": %s, host ", c->format);
		esc(out, c->host ? c->host : "?");
		buf_printf(out, ", %s .. %s, %g s interval, %ld rows, %ld columns", s, e, c->interval_s, c->rows, c->columns);
		if (c->warnings)
			buf_printf(out, ", %ld warning%s", c->warnings, c->warnings == 1 ? "" : "s");
		if (c->clock_offset_ms || c->offset_estimated) {
			/* shown as the user gives it: guest clock minus host clock */
			buf_printf(out, ", guest clock %+.1f s off the host's", 0.0 - (double)c->clock_offset_ms / 1000.0 + 0.0);
			if (c->offset_estimated)
				buf_printf(out, " (estimated from IOPS, r = %.2f%s)", c->offset_confidence,
					   c->clock_offset_ms ? "" : ", none applied");
			else
				buf_adds(out, " (--clock-offset)");
		}
		buf_addc(out, '\n');
	}
	if (a->nmap) {
		buf_adds(out, "\nDISK MAPPING (guest disk = virtual disk)\n");
		for (size_t i = 0; i < a->nmap; i++) {
			buf_adds(out, "  ");
			if (a->map[i].guest_host) {
				esc(out, a->map[i].guest_host);
				buf_addc(out, '\\');
			}
			esc(out, a->map[i].guest_disk);
			buf_adds(out, " = ");
			esc(out, a->map[i].vdisk);
			if (a->map[i].automatic)
				buf_printf(out, "   (found by correlating IOPS, r = %.2f)", a->map[i].correlation);
			buf_addc(out, '\n');
		}
	}
	buf_printf(out, "\nFINDINGS%s\n", a->nf ? " (worst first)" : "");
	if (!a->nf)
		buf_adds(out, "  none\n");
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		char s[32], e[32];
		time_format_iso(f->start, false, s);
		time_format_iso(f->end, false, e);
		buf_printf(out, "\n%zu. %s  %s  ", i + 1, f->sev == SEV_CRITICAL ? "CRITICAL" : f->sev == SEV_WARNING ? "WARNING" : "INFO",
			   kinds[f->kind].name);
		if (f->host) {
			esc(out, f->host);
			buf_addc(out, ' ');
		}
		esc(out, f->entity);
		buf_printf(out, "  [%s]%s\n", layer_names[f->layer], f->heuristic ? "  (heuristic)" : "");
		buf_printf(out, "   %s .. %s (", s, e);
		duration(out, f->sustained_s);
		buf_adds(out, ")\n");
		text_wrap(out, "   ", f->summary, 100);
		for (int k = 0; k < f->nev; k++) {
			const struct evidence *ev = &f->ev[k];
			buf_printf(out, "   %s %s: min ", k ? "        " : "evidence", ev->label);
			text_num(out, ev->min);
			buf_adds(out, ", median ");
			text_num(out, ev->median);
			buf_adds(out, ", p95 ");
			text_num(out, ev->p95);
			buf_adds(out, ", max ");
			text_num(out, ev->max);
			buf_printf(out, " %s", ev->unit);
			if (ev->above >= 0)
				buf_printf(out, "; %ld of %ld samples above %g", ev->above, ev->samples, ev->threshold);
			else
				buf_printf(out, "; %ld samples", ev->samples);
			buf_addc(out, '\n');
		}
		text_wrap(out, "   rule: ", f->rule, 100);
		text_wrap(out, "   source: ", f->source, 100);
		if (f->advice && *f->advice)
			text_wrap(out, "   advice: ", f->advice, 100);
	}
	/* busiest entities */
	buf_adds(out, "\nENTITIES (p50 / p95 / max)\n");
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		int lat = -1, io = -1, q = -1;
		switch (e->layer) {
		case LAYER_DEVICE: lat = M_DAVG; io = M_CMDS; q = M_ACTV; break;
		case LAYER_ADAPTER: lat = M_DAVG; io = M_CMDS; q = M_ACTV; break;
		case LAYER_VSCSI: lat = M_VD_LAT_R; io = M_CMDS; break;
		case LAYER_GUEST: lat = M_G_LAT_R; io = M_G_XFERS; q = M_G_CDQL; break;
		default: continue;
		}
		if (!e->sk[io].n || qs_mean(&e->sk[io]) < rule_value(&a->rules, R_ACTIVE_IOPS))
			continue;
		buf_printf(out, "  %-7s ", layer_names[e->layer]);
		if (e->host && e->layer == LAYER_GUEST) {
			esc(out, e->host);
			buf_addc(out, ' ');
		}
		esc(out, e->name);
		const int ms[3] = {io, lat, q};
		for (int k = 0; k < 3; k++) {
			if (ms[k] < 0 || !e->sk[ms[k]].n)
				continue;
			buf_printf(out, "  %s ", metric_info[ms[k]].name);
			text_num(out, qs_quantile(&e->sk[ms[k]], 0.5));
			buf_adds(out, "/");
			text_num(out, qs_quantile(&e->sk[ms[k]], 0.95));
			buf_adds(out, "/");
			text_num(out, e->sk[ms[k]].max);
		}
		if (e->layer == LAYER_GUEST && e->sk[M_G_LAT_W].n) {
			buf_adds(out, "  guest_write_ms ");
			text_num(out, qs_quantile(&e->sk[M_G_LAT_W], 0.5));
			buf_adds(out, "/");
			text_num(out, qs_quantile(&e->sk[M_G_LAT_W], 0.95));
			buf_adds(out, "/");
			text_num(out, e->sk[M_G_LAT_W].max);
		}
		buf_addc(out, '\n');
	}
}

static void iso(struct json *j, int64_t t)
{
	char s[32];
	time_format_iso(t, false, s);
	json_str(j, s);
}

void finding_json(const struct finding *f, struct json *j)
{
	json_obj_begin(j);
	json_key(j, "kind");
	json_str(j, kinds[f->kind].name);
	json_key(j, "severity");
	json_str(j, severity_names[f->sev]);
	json_key(j, "layer");
	json_str(j, layer_names[f->layer]);
	json_key(j, "entity");
	json_str(j, f->entity);
	json_key(j, "host");
	json_str(j, f->host);
	json_key(j, "start");
	iso(j, f->start);
	json_key(j, "end");
	iso(j, f->end);
	json_key(j, "sustained_s");
	json_num(j, round(f->sustained_s * 10) / 10);
	json_key(j, "summary");
	json_str(j, f->summary);
	json_key(j, "evidence");
	json_arr_begin(j);
	for (int k = 0; k < f->nev; k++) {
		const struct evidence *ev = &f->ev[k];
		json_obj_begin(j);
		json_key(j, "metric");
		json_str(j, ev->key);
		json_key(j, "label");
		json_str(j, ev->label);
		json_key(j, "unit");
		json_str(j, ev->unit);
		json_key(j, "min");
		json_num(j, ev->min);
		json_key(j, "median");
		json_num(j, ev->median);
		json_key(j, "p95");
		json_num(j, ev->p95);
		json_key(j, "max");
		json_num(j, ev->max);
		json_key(j, "samples");
		json_int(j, ev->samples);
		json_key(j, "samples_above");
		if (ev->above >= 0)
			json_int(j, ev->above);
		else
			json_null(j);
		json_key(j, "threshold");
		json_num(j, ev->threshold);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "rule");
	json_obj_begin(j);
	json_key(j, "text");
	json_str(j, f->rule);
	json_key(j, "source");
	json_str(j, f->source);
	json_key(j, "heuristic");
	json_bool(j, f->heuristic);
	json_obj_end(j);
	json_key(j, "advice");
	json_str(j, f->advice);
	json_obj_end(j);
}

void captures_json(const struct model *m, struct json *j)
{
	json_arr_begin(j);
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *c = &m->caps[i];
		json_obj_begin(j);
		json_key(j, "path");
		json_str(j, c->path);
		json_key(j, "format");
		json_str(j, c->format);
		json_key(j, "host");
		json_str(j, c->host);
		json_key(j, "start");
		if (c->failed || !c->rows)
			json_null(j);
		else
			iso(j, c->start + c->clock_offset_ms);
		json_key(j, "end");
		if (c->failed || !c->rows)
			json_null(j);
		else
			iso(j, c->end + c->clock_offset_ms);
		json_key(j, "interval_s");
		json_num(j, c->rows > 1 ? c->interval_s : NAN);
		json_key(j, "rows");
		json_int(j, c->rows);
		json_key(j, "columns");
		json_int(j, c->columns);
		json_key(j, "warnings");
		json_int(j, c->warnings);
		json_key(j, "skipped_rows");
		json_int(j, c->skipped_rows);
		json_key(j, "clock_offset_s");
		json_num(j, (double)c->clock_offset_ms / 1000.0);
		json_key(j, "clock_offset_estimated");
		json_bool(j, c->offset_estimated);
		json_key(j, "clock_offset_confidence");
		json_num(j, c->offset_estimated ? c->offset_confidence : NAN);
		json_key(j, "error");
		json_str(j, c->failed ? "unreadable or unrecognised input" : NULL);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void entities_json(const struct model *m, struct json *j)
{
	json_arr_begin(j);
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		bool any = false;
		for (int k = 0; k < M_COUNT; k++)
			any |= e->sk[k].n > 0;
		if (!any)
			continue;
		json_obj_begin(j);
		json_key(j, "layer");
		json_str(j, layer_names[e->layer]);
		json_key(j, "name");
		json_str(j, e->name);
		json_key(j, "host");
		json_str(j, e->host);
		json_key(j, "capture");
		json_int(j, (long long)e->capture);
		json_key(j, "metrics");
		json_obj_begin(j);
		for (int k = 0; k < M_COUNT; k++) {
			const struct qsketch *q = &e->sk[k];
			if (!q->n)
				continue;
			json_key(j, metric_info[k].name);
			json_obj_begin(j);
			json_key(j, "unit");
			json_str(j, metric_info[k].unit);
			json_key(j, "mean");
			json_num(j, qs_mean(q));
			json_key(j, "p50");
			json_num(j, qs_quantile(q, 0.5));
			json_key(j, "p95");
			json_num(j, qs_quantile(q, 0.95));
			json_key(j, "p99");
			json_num(j, qs_quantile(q, 0.99));
			json_key(j, "max");
			json_num(j, q->max);
			json_key(j, "samples");
			json_int(j, (long long)q->n);
			json_obj_end(j);
		}
		json_obj_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void analysis_json(const struct analysis *a, struct json *j)
{
	analysis_json_ex(a, j, NULL, NULL);
}

void analysis_json_ex(const struct analysis *a, struct json *j, void (*extra)(void *ctx, struct json *j), void *ctx)
{
	json_obj_begin(j);
	json_key(j, "schema_version");
	json_int(j, ANALYSIS_SCHEMA_VERSION);
	json_key(j, "tool");
	json_obj_begin(j);
	json_key(j, "name");
	json_str(j, "iopsy");
	json_key(j, "version");
	json_str(j, IOPSY_VERSION);
	json_obj_end(j);
	json_key(j, "verdict");
	json_str(j, a->verdict);
	json_key(j, "summary");
	json_obj_begin(j);
	int c[3] = {0, 0, 0};
	for (size_t i = 0; i < a->nf; i++)
		c[a->f[i].sev]++;
	json_key(j, "findings");
	json_int(j, (long long)a->nf);
	json_key(j, "critical");
	json_int(j, c[SEV_CRITICAL]);
	json_key(j, "warning");
	json_int(j, c[SEV_WARNING]);
	json_key(j, "info");
	json_int(j, c[SEV_INFO]);
	json_obj_end(j);
	json_key(j, "captures");
	captures_json(&a->m, j);
	json_key(j, "disk_map");
	json_arr_begin(j);
	for (size_t i = 0; i < a->nmap; i++) {
		json_obj_begin(j);
		json_key(j, "guest_host");
		json_str(j, a->map[i].guest_host);
		json_key(j, "guest_disk");
		json_str(j, a->map[i].guest_disk);
		json_key(j, "virtual_disk");
		json_str(j, a->map[i].vdisk);
		json_key(j, "automatic");
		json_bool(j, a->map[i].automatic);
		json_key(j, "correlation");
		json_num(j, a->map[i].automatic ? a->map[i].correlation : NAN);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "entities");
	entities_json(&a->m, j);
	json_key(j, "findings");
	json_arr_begin(j);
	for (size_t i = 0; i < a->nf; i++)
		finding_json(&a->f[i], j);
	json_arr_end(j);
	if (extra)
		extra(ctx, j);
	json_obj_end(j);
}
