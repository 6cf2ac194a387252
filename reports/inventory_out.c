/* inventory_out.c — renders struct inventory as text or JSON (see inventory_out.h). */
#include "inventory_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define TEXT_MAX_INSTANCES 12

static void add_esc(struct buf *b, const char *s)
{
	buf_add_text_escaped(b, s, strlen(s));
}

static void fmt_duration(struct buf *b, int64_t ms)
{
	long s = (long)(ms / 1000);
	if (s >= 86400)
		buf_printf(b, "%ldd ", s / 86400);
	if (s >= 3600)
		buf_printf(b, "%ldh ", s / 3600 % 24);
	if (s >= 60)
		buf_printf(b, "%ldm ", s / 60 % 60);
	buf_printf(b, "%lds", s % 60);
}

static void fmt_secs(struct buf *b, double s)
{
	char t[48];
	snprintf(t, sizeof t, "%.3f", s);
	size_t n = strlen(t);
	while (n && t[n - 1] == '0')
		t[--n] = '\0';
	if (n && t[n - 1] == '.')
		t[--n] = '\0';
	buf_printf(b, "%s s", t);
}

static bool same_counters(const struct inv_instance *a, const struct inv_instance *b)
{
	if (a->ncounters != b->ncounters)
		return false;
	for (size_t i = 0; i < a->ncounters; i++)
		if (strcmp(a->counters[i], b->counters[i]) != 0)
			return false;
	return true;
}

void inventory_text(const struct inventory *inv, struct buf *out)
{
	buf_adds(out, "file       ");
	add_esc(out, inv->path);
	buf_printf(out, "\nformat     %s%s%s%s\n", inv->format, inv->tsv ? " (TSV)" : "", inv->gzip ? " (gzip)" : "",
		   inv->excel ? " (re-saved by a spreadsheet)" : "");
	buf_adds(out, "host       ");
	add_esc(out, inv->host ? inv->host : "(none)");
	for (size_t i = 0; i < inv->nhosts; i++) {
		if (inv->hosts[i] == inv->host || strcmp(inv->hosts[i], inv->host) == 0)
			continue;
		buf_adds(out, i ? ", " : " (also ");
		add_esc(out, inv->hosts[i]);
	}
	buf_adds(out, inv->nhosts > 1 ? ")\n" : "\n");
	buf_printf(out, "time zone  %s%s%s (UTC = local %+d min)\n", inv->zone[0] ? "" : "",
		   inv->zone[0] ? inv->zone : "unknown", inv->bias_known ? "" : ", no bias in header",
		   inv->bias_min);
	if (inv->rows > 0) {
		char a[32], b[32];
		time_format_iso(inv->start, true, a);
		time_format_iso(inv->end, true, b);
		buf_printf(out, "time span  %s .. %s (", a, b);
		fmt_duration(out, inv->end - inv->start);
		buf_adds(out, ")\ninterval   ");
		fmt_secs(out, inv->interval_median_s);
		buf_printf(out, " median, jitter %.3g s (", inv->interval_jitter_s);
		for (size_t i = 0; i < inv->ntop; i++) {
			if (i)
				buf_adds(out, ", ");
			fmt_secs(out, (double)inv->top[i].ms / 1000.0);
			buf_printf(out, " x%ld", inv->top[i].count);
		}
		buf_adds(out, ")\n");
	} else {
		buf_adds(out, "time span  (no data rows)\n");
	}
	buf_printf(out, "rows       %ld", inv->rows);
	if (inv->skipped_rows)
		buf_printf(out, " (%ld skipped)", inv->skipped_rows);
	if (inv->backwards)
		buf_printf(out, " (time goes backwards %ld time%s)", inv->backwards, inv->backwards == 1 ? "" : "s");
	buf_printf(out, "\ncolumns    %zu", inv->columns);
	if (inv->matched != inv->columns)
		buf_printf(out, " (%zu matched)", inv->matched);
	buf_printf(out, "\nobjects    %zu\n", inv->nobjs);
	for (size_t i = 0; i < inv->nobjs; i++) {
		const struct inv_object *o = &inv->objs[i];
		buf_addc(out, '\n');
		add_esc(out, o->name[0] ? o->name : "(columns that are not counter paths)");
		buf_printf(out, ": %zu instance%s, %zu counter%s, %zu column%s\n", o->ninst, o->ninst == 1 ? "" : "s",
			   o->ncounters, o->ncounters == 1 ? "" : "s", o->ncols, o->ncols == 1 ? "" : "s");
		/* instances with identical counter sets are listed together */
		bool *done = xcalloc(o->ninst, sizeof *done);
		for (size_t k = 0; k < o->ninst; k++) {
			if (done[k])
				continue;
			size_t group = 0;
			buf_adds(out, "  ");
			for (size_t q = k; q < o->ninst; q++) {
				if (done[q] || !same_counters(&o->inst[k], &o->inst[q]))
					continue;
				done[q] = true;
				if (group < TEXT_MAX_INSTANCES) {
					if (group)
						buf_adds(out, ", ");
					add_esc(out, o->inst[q].name ? o->inst[q].name : "(no instance)");
				}
				group++;
			}
			if (group > TEXT_MAX_INSTANCES)
				buf_printf(out, " and %zu more", group - TEXT_MAX_INSTANCES);
			buf_printf(out, " [%zu instance%s x %zu counter%s]\n", group, group == 1 ? "" : "s",
				   o->inst[k].ncounters, o->inst[k].ncounters == 1 ? "" : "s");
			buf_adds(out, "    ");
			for (size_t c = 0; c < o->inst[k].ncounters; c++) {
				if (c)
					buf_adds(out, " | ");
				add_esc(out, o->inst[k].counters[c]);
			}
			buf_addc(out, '\n');
		}
		free(done);
	}
}

void inventory_json(const struct inventory *inv, struct json *j)
{
	char t[32];
	json_obj_begin(j);
	json_key(j, "path");
	json_str(j, inv->path);
	json_key(j, "format");
	json_str(j, inv->format);
	json_key(j, "gzip");
	json_bool(j, inv->gzip);
	json_key(j, "tsv");
	json_bool(j, inv->tsv);
	json_key(j, "host");
	json_str(j, inv->host);
	json_key(j, "hosts");
	json_arr_begin(j);
	for (size_t i = 0; i < inv->nhosts; i++)
		json_str(j, inv->hosts[i]);
	json_arr_end(j);
	json_key(j, "time_zone");
	json_str(j, inv->zone[0] ? inv->zone : NULL);
	json_key(j, "bias_min");
	json_int(j, inv->bias_min);
	json_key(j, "bias_in_header");
	json_bool(j, inv->bias_known);
	json_key(j, "start");
	if (inv->rows) {
		time_format_iso(inv->start, true, t);
		json_str(j, t);
	} else {
		json_null(j);
	}
	json_key(j, "end");
	if (inv->rows) {
		time_format_iso(inv->end, true, t);
		json_str(j, t);
	} else {
		json_null(j);
	}
	json_key(j, "interval_s");
	json_num(j, inv->rows > 1 ? inv->interval_median_s : NAN);
	json_key(j, "interval_jitter_s");
	json_num(j, inv->rows > 1 ? inv->interval_jitter_s : NAN);
	json_key(j, "intervals");
	json_arr_begin(j);
	for (size_t i = 0; i < inv->ntop; i++) {
		json_obj_begin(j);
		json_key(j, "s");
		json_num(j, (double)inv->top[i].ms / 1000.0);
		json_key(j, "count");
		json_int(j, inv->top[i].count);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "rows");
	json_int(j, inv->rows);
	json_key(j, "skipped_rows");
	json_int(j, inv->skipped_rows);
	json_key(j, "time_backwards");
	json_int(j, inv->backwards);
	json_key(j, "columns");
	json_int(j, (long long)inv->columns);
	json_key(j, "matched_columns");
	json_int(j, (long long)inv->matched);
	json_key(j, "warnings");
	json_int(j, inv->warnings);
	json_key(j, "objects");
	json_arr_begin(j);
	for (size_t i = 0; i < inv->nobjs; i++) {
		const struct inv_object *o = &inv->objs[i];
		json_obj_begin(j);
		json_key(j, "name");
		json_str(j, o->name);
		json_key(j, "columns");
		json_int(j, (long long)o->ncols);
		json_key(j, "instance_count");
		json_int(j, (long long)o->ninst);
		json_key(j, "counter_count");
		json_int(j, (long long)o->ncounters);
		json_key(j, "instances");
		json_arr_begin(j);
		for (size_t k = 0; k < o->ninst; k++) {
			json_obj_begin(j);
			json_key(j, "name");
			json_str(j, o->inst[k].name);
			json_key(j, "counters");
			json_arr_begin(j);
			for (size_t c = 0; c < o->inst[k].ncounters; c++)
				json_str(j, o->inst[k].counters[c]);
			json_arr_end(j);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}
