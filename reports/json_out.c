/* json_out.c — the JSON writer: the analysis (schema in doc/analyze-json.md), the comparison
 * (doc/compare-json.md) and the capture inventory, all through the one JSON writer (json.h). */
#include "json_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "doc.h"
#include "ltime.h"
#include "rules_out.h"
#include "summary.h"
#include "version.h"

/* ---- analysis ---- */
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
	json_key(j, "windows");
	json_arr_begin(j);
	for (int k = 0; k < (f->nsub > 1 ? f->nsub : 1); k++) {
		json_obj_begin_flat(j);
		json_key(j, "start");
		iso(j, f->nsub > 1 ? f->sub[k].start : f->start);
		json_key(j, "end");
		iso(j, f->nsub > 1 ? f->sub[k].end : f->end);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "summary");
	json_str(j, f->summary);
	json_key(j, "evidence");
	json_arr_begin(j);
	for (int k = 0; k < f->nev; k++) {
		const struct evidence *ev = &f->ev[k];
		json_obj_begin(j);
		json_key(j, "metric");
		json_str(j, metric_info[ev->metric].name);
		json_key(j, "label");
		json_str(j, metric_info[ev->metric].label);
		json_key(j, "unit");
		json_str(j, metric_info[ev->metric].unit);
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
	if (f->explained_by) {
		/* a symptom of a memory cause (detect_mem.c): the cause's kind and machine */
		json_key(j, "explained_by");
		json_obj_begin(j);
		json_key(j, "kind");
		json_str(j, kinds[f->explained_by - 1].name);
		json_key(j, "machine");
		json_str(j, f->explained_machine ? f->explained_machine : "");
		json_obj_end(j);
	}
	if (f->load) {
		json_key(j, "load");
		json_str(j, f->load);
	}
	if (f->driver) {
		json_key(j, "neighbour");
		json_obj_begin(j);
		json_key(j, "driver");
		json_str(j, f->driver);
		json_key(j, "share");
		json_num(j, f->driver_share);
		json_key(j, "victims");
		json_str(j, f->victims);
		json_key(j, "victim_virtual_disk");
		json_str(j, f->victim_vdisk);
		json_obj_end(j);
	}
	json_obj_end(j);
}

static void link_json_as(const char *key, const struct io_link *l, struct json *j)
{
	json_key(j, key);
	json_obj_begin(j);
	json_key(j, "how");
	json_str(j, link_how_names[l->how]);
	json_key(j, "r");
	json_num(j, l->r);
	json_key(j, "why");
	json_str(j, l->why);
	json_obj_end(j);
}

static void link_json(const struct io_link *l, struct json *j) { link_json_as("link", l, j); }

/* The guest volumes over several disks (only when the captures have one): each volume, its member
 * disks and how they are known. */
static void volumes_json(const struct iopath *g, struct json *j)
{
	json_key(j, "volumes");
	json_arr_begin(j);
	for (size_t i = 0; i < g->nvol; i++) {
		const struct iop_volume *x = &g->vol[i];
		json_obj_begin(j);
		json_key(j, "name");
		json_str(j, x->vol->name);
		json_key(j, "host");
		json_str(j, x->vol->host);
		json_key(j, "members");
		json_arr_begin(j);
		for (size_t k = 0; k < x->nmem; k++)
			json_str(j, x->mem[k]->name);
		json_arr_end(j);
		link_json(&x->link, j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* The IO path graph: each virtual disk's backing and each path's device, with how it is known. */
static void iopath_json(const struct analysis *a, struct json *j)
{
	static const char *const back[] = {"unknown", "lun", "nfs", "not_shown"};
	const struct iopath *g = &a->iop;
	json_key(j, "io_path");
	json_obj_begin(j);
	json_key(j, "virtual_disks");
	json_arr_begin(j);
	for (size_t i = 0; i < g->nvd; i++) {
		const struct iop_vdisk *d = &g->vd[i];
		if (!entity_sk(d->v, M_CMDS)->n || d->v->outside)
			continue;
		json_obj_begin(j);
		json_key(j, "name");
		json_str(j, d->v->name);
		json_key(j, "host");
		json_str(j, d->v->host);
		json_key(j, "vm");
		json_str(j, d->vm);
		json_key(j, "backing");
		json_str(j, back[d->back]);
		json_key(j, "device");
		json_str(j, d->dev ? d->dev->name : NULL);
		link_json(&d->link, j);
		if (model_hyperv(&a->m, d->v->capture)) {
			/* a Hyper-V VHDX: the VM is read from its path, the volume from its path's start */
			json_key(j, "vm_from");
			json_str(j, d->vm ? "path" : NULL);
			json_key(j, "volume");
			if (d->vol) {
				json_obj_begin(j);
				json_key(j, "name");
				json_str(j, d->vol->name);
				link_json(&d->vol_link, j);
				json_obj_end(j);
			} else {
				json_null(j);
			}
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "paths");
	json_arr_begin(j);
	for (size_t i = 0; i < g->np; i++) {
		const struct iop_path *p = &g->p[i];
		json_obj_begin(j);
		json_key(j, "name");
		json_str(j, p->p->name);
		json_key(j, "host");
		json_str(j, p->p->host);
		json_key(j, "adapter");
		json_str(j, p->adapter);
		json_key(j, "device");
		json_str(j, p->dev ? p->dev->name : NULL);
		json_key(j, "commands_per_s");
		json_num(j, entity_mean(p->p, M_CMDS));
		link_json(&p->link, j);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "worlds");
	json_arr_begin(j);
	for (size_t i = 0; i < g->nw; i++) {
		const struct iop_world *w = &g->w[i];
		json_obj_begin(j);
		json_key(j, "world");
		json_int(j, w->w->wid);
		json_key(j, "device");
		json_str(j, w->w->device);
		json_key(j, "vm");
		json_str(j, w->vm);
		json_key(j, "vm_link");
		json_str(j, link_how_names[w->vm_link.how]);
		json_key(j, "commands_per_s");
		json_num(j, entity_mean(w->w, M_CMDS));
		json_obj_end(j);
	}
	json_arr_end(j);
	if (g->nvol)
		volumes_json(g, j);
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
		if (c->windowed) {
			json_key(j, "rows_outside_window");
			json_int(j, c->outside_rows);
		}
		if (c->impossible) {
			json_key(j, "impossible_values");
			json_int(j, c->impossible);
		}
		char capped[160];
		long ncap = model_over_cap_text(m, i, capped, sizeof capped);
		if (ncap) {
			json_key(j, "over_cap_columns");
			json_int(j, ncap);
			json_key(j, "over_cap_layers");
			json_arr_begin(j);
			for (int l = 0; l < LAYER_COUNT; l++)
				if (c->over_cap[l])
					json_str(j, layer_names[l]);
			json_arr_end(j);
		}
		json_key(j, "clock_offset_s");
		json_num(j, (double)c->clock_offset_ms / 1000.0);
		json_key(j, "clock_offset_estimated");
		json_bool(j, c->offset_estimated);
		json_key(j, "clock_offset_confidence");
		json_num(j, c->offset_estimated ? c->offset_confidence : NAN);
		json_key(j, "error");
		json_str(j, c->failed ? "unreadable or unrecognised input" : NULL);
		if (c->nparts >= 2) {
			/* several files of one host, merged (doc/analyze-json.md) */
			json_key(j, "files");
			json_arr_begin(j);
			for (size_t k = 0; k < c->nparts; k++) {
				const struct capture_part *p = &c->parts[k];
				json_obj_begin(j);
				json_key(j, "path");
				json_str(j, p->path);
				json_key(j, "start");
				if (p->rows)
					iso(j, p->start + c->clock_offset_ms);
				else
					json_null(j);
				json_key(j, "end");
				if (p->rows)
					iso(j, p->end + c->clock_offset_ms);
				else
					json_null(j);
				json_key(j, "rows");
				json_int(j, p->rows);
				json_key(j, "gap_before_s");
				json_num(j, k ? (double)p->gap_ms / 1000.0 : NAN);
				json_key(j, "gap_marked");
				json_bool(j, p->gap);
				json_key(j, "overlap_rows");
				json_int(j, p->overlap_rows);
				json_key(j, "overlap_lines");
				if (p->overlap_rows) {
					json_arr_begin(j);
					json_int(j, p->overlap_line0);
					json_int(j, p->overlap_line1);
					json_arr_end(j);
				} else {
					json_null(j);
				}
				json_key(j, "warnings");
				json_int(j, p->warnings);
				json_obj_end(j);
			}
			json_arr_end(j);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

void entities_json(const struct model *m, struct json *j)
{
	json_arr_begin(j);
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->outside)
			continue;
		if (e->layer == LAYER_SQL)
			continue; /* SQL Server's figures are in "sql" */
		bool any = false;
		for (int k = 0; k < M_COUNT; k++)
			any |= entity_sk(e, k)->n > 0;
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
			const struct qsketch *q = entity_sk(e, k);
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

static const char *const cov_layer_keys[COV_LAYERS] = {"guest", "vscsi", "world", "device", "adapter", "array"};

/* What could be assessed: per layer, then the disk-layer entities that were not (idle ones
 * only counted). */
static void coverage_json(const struct analysis *a, struct json *j)
{
	const struct coverage *c = &a->cov;
	json_obj_begin(j);
	json_key(j, "complete");
	json_bool(j, c->complete);
	json_key(j, "guest_host_link_not_assessed");
	json_str(j, c->link_why);
	json_key(j, "layers");
	json_arr_begin(j);
	for (int l = 0; l < COV_LAYERS; l++) {
		const struct layer_cov *lc = &c->layer[l];
		json_obj_begin_flat(j);
		json_key(j, "layer");
		json_str(j, cov_layer_keys[l]);
		json_key(j, "status");
		json_str(j, cov_status_names[lc->status]);
		json_key(j, "reason");
		json_str(j, lc->reason ? cov_reason_names[lc->reason] : NULL);
		json_key(j, "why");
		json_str(j, lc->why && *lc->why ? lc->why : NULL);
		json_key(j, "assessed");
		json_int(j, (long long)lc->assessed);
		json_key(j, "entities");
		json_int(j, (long long)lc->total);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "not_assessed");
	json_arr_begin(j);
	size_t idle = 0;
	for (size_t i = 0; i < c->nents; i++) {
		const struct ent_cov *ec = &c->ents[i];
		if (ec->status == COV_ASSESSED)
			continue;
		if (ec->reason == COVR_IDLE) {
			idle++;
			continue;
		}
		const struct entity *e = &a->m.ents[ec->ent];
		json_obj_begin_flat(j);
		json_key(j, "layer");
		json_str(j, layer_names[e->layer]);
		json_key(j, "entity");
		json_str(j, e->name);
		json_key(j, "host");
		json_str(j, e->host);
		json_key(j, "status");
		json_str(j, cov_status_names[ec->status]);
		json_key(j, "reason");
		json_str(j, cov_reason_names[ec->reason]);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "idle_entities");
	json_int(j, (long long)idle);
	json_obj_end(j);
}

void workflow_json(const struct analysis *a, struct json *j)
{
	if (a->window.on) {
		const struct twin *w = &a->window;
		json_key(j, "window");
		json_obj_begin(j);
		json_key(j, "from");
		if (w->from == INT64_MIN)
			json_null(j);
		else
			iso(j, w->from);
		json_key(j, "to");
		if (w->to == INT64_MAX)
			json_null(j);
		else
			iso(j, w->to);
		json_key(j, "from_given");
		json_str(j, w->text[TW_FROM]);
		json_key(j, "to_given");
		json_str(j, w->text[TW_TO]);
		json_key(j, "local_time_of");
		json_str(j, w->ref);
		json_key(j, "utc_offset_min");
		if (w->ref) {
			json_arr_begin(j);
			json_int(j, w->offset_min[0]);
			json_int(j, w->offset_min[1]);
			json_arr_end(j);
		} else {
			json_null(j);
		}
		json_key(j, "notes");
		json_arr_begin(j);
		for (int k = 0; k < 2; k++)
			if (w->note[k][0])
				json_str(j, w->note[k]);
		json_arr_end(j);
		json_obj_end(j);
	}
	if (ef_on(a->m.filter)) {
		const struct ent_filter *f = a->m.filter;
		static const char *const keys[EF_KINDS] = {"host", "vm", "disk"};
		json_key(j, "selection");
		json_obj_begin(j);
		for (int k = 0; k < EF_KINDS; k++) {
			json_key(j, keys[k]);
			json_arr_begin(j);
			for (int i = 0; i < f->n[k]; i++)
				json_str(j, f->p[k][i].text);
			json_arr_end(j);
		}
		for (int w = 0; w < 2; w++) {
			json_key(j, w ? "left_out" : "kept");
			json_obj_begin(j);
			for (int l = 0; l < LAYER_COUNT; l++) {
				long n = w ? f->dropped[l] : f->kept[l];
				if (!n)
					continue;
				json_key(j, layer_names[l]);
				json_int(j, n);
			}
			json_obj_end(j);
		}
		json_key(j, "devices_unlinked");
		json_bool(j, f->devices_unlinked);
		json_key(j, "shared_with");
		json_arr_begin(j);
		for (size_t i = 0; i < a->nshared; i++) {
			json_obj_begin(j);
			json_key(j, "device");
			json_str(j, a->shared[i].device);
			json_key(j, "vm");
			json_str(j, a->shared[i].vm);
			json_key(j, "share");
			json_num(j, a->shared[i].share);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
}

static void sql_figs_json(const struct sql_figs *f, struct json *j)
{
	json_obj_begin(j);
	json_key(j, "batch_requests_per_s");
	json_num(j, f->batch);
	json_key(j, "log_flush_wait_ms");
	json_num(j, f->flush_wait_ms);
	json_key(j, "log_write_wait_ms");
	json_num(j, f->log_write_ms);
	json_key(j, "page_io_latch_wait_ms");
	json_num(j, f->pageio_ms);
	json_key(j, "page_life_expectancy_s");
	json_num(j, f->ple_median);
	json_key(j, "page_life_expectancy_min_s");
	json_num(j, f->ple_min);
	json_key(j, "disk_latency_ms");
	json_num(j, f->disk_ms);
	json_key(j, "buckets");
	json_int(j, f->buckets);
	json_obj_end(j);
}

/* "sql": what SQL Server did while the storage waited (only when the captures have its counters). */
void sql_json(const struct sql_report *r, struct json *j)
{
	if (!r || !r->n)
		return;
	json_key(j, "sql");
	json_arr_begin(j);
	for (size_t i = 0; i < r->n; i++) {
		const struct sql_instance *si = &r->in[i];
		json_obj_begin(j);
		json_key(j, "host");
		json_str(j, si->host);
		json_key(j, "instance");
		json_str(j, si->name);
		json_key(j, "summary");
		json_str(j, si->summary);
		json_key(j, "figures");
		sql_figs_json(&si->all, j);
		json_key(j, "files");
		json_arr_begin(j);
		for (size_t k = 0; k < si->nplace; k++) {
			const struct sql_place *p = &si->place[k];
			json_obj_begin(j);
			json_key(j, "role");
			json_str(j, sql_role_names[p->role]);
			json_key(j, "database");
			json_str(j, p->db);
			json_key(j, "disk");
			json_str(j, p->disk ? p->disk->name : NULL);
			json_key(j, "how");
			json_str(j, p->disk ? sql_how_names[p->how] : sql_how_names[SQLH_NONE]);
			json_key(j, "correlation");
			json_num(j, p->how == SQLH_EVIDENCE ? p->r : NAN);
			json_key(j, "share");
			json_num(j, p->how == SQLH_EVIDENCE ? p->share : NAN);
			json_key(j, "map_line");
			if (p->map_line)
				json_int(j, p->map_line);
			else
				json_null(j);
			json_key(j, "text");
			json_str(j, p->text);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_key(j, "episodes");
		json_arr_begin(j);
		for (size_t k = 0; k < si->nep; k++) {
			const struct sql_episode *e = &si->ep[k];
			json_obj_begin(j);
			json_key(j, "disk");
			json_str(j, e->disk->name);
			json_key(j, "role");
			json_str(j, sql_role_names[e->role]);
			json_key(j, "start");
			iso(j, e->start);
			json_key(j, "end");
			iso(j, e->end);
			json_key(j, "severity");
			json_str(j, severity_names[e->sev]);
			json_key(j, "kinds");
			json_str(j, e->kinds);
			json_key(j, "during");
			sql_figs_json(&e->during, j);
			json_key(j, "outside");
			sql_figs_json(&e->outside, j);
			json_key(j, "storage_explains");
			if (e->explains < 0)
				json_null(j);
			else
				json_bool(j, e->explains == 1);
			json_key(j, "disk_share_of_wait");
			json_num(j, e->share);
			json_key(j, "text");
			json_str(j, e->text);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_key(j, "waits_without_storage_cause");
		json_arr_begin(j);
		for (size_t k = 0; k < si->nsym; k++) {
			const struct sql_symptom *y = &si->sym[k];
			json_obj_begin(j);
			json_key(j, "wait");
			json_str(j, y->role == SQLR_LOG ? "log_write" : "page_io_latch");
			json_key(j, "start");
			iso(j, y->start);
			json_key(j, "end");
			iso(j, y->end);
			json_key(j, "held_s");
			json_num(j, y->held_s);
			json_key(j, "wait_ms");
			json_num(j, y->sql_ms);
			json_key(j, "disk");
			json_str(j, y->disk ? y->disk->name : NULL);
			json_key(j, "disk_latency_ms");
			json_num(j, y->disk_ms);
			json_key(j, "cpu_ready_pct");
			json_num(j, y->ready_pct);
			json_key(j, "cpu_ready_per_vcpu_pct");
			json_num(j, y->ready_vcpu);
			json_key(j, "cpu_costop_per_vcpu_pct");
			json_num(j, y->costop_vcpu);
			json_key(j, "cpu_wait_per_dispatch_us");
			json_num(j, y->cpu_wait_us);
			json_key(j, "cpu_is_a_cause");
			json_bool(j, y->cpu_cause);
			json_key(j, "text");
			json_str(j, y->text);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* The recommended actions, as every report gives them (the document's, doc_summary): what to do,
 * its effect and the findings (1-based, as in findings[]) that justify it. */
static void actions_json(const struct doc *d, struct json *j)
{
	json_key(j, "actions");
	json_arr_begin(j);
	const struct doc_block *t = doc_role(d, DS_ACTIONS, ROLE_ACTIONS);
	for (size_t i = 0; t && i < t->nrows; i++) {
		json_obj_begin(j);
		json_key(j, "what");
		json_str(j, doc_fdiff_s(t, i, 0));
		json_key(j, "effect");
		json_str(j, doc_fdiff_s(t, i, 1));
		json_key(j, "because");
		json_str(j, doc_fdiff_s(t, i, 3));
		json_key(j, "findings");
		json_arr_begin(j);
		for (const char *p = doc_fdiff_s(t, i, 2); p && *p;) { /* "1, 2" */
			char *end;
			long long no = strtoll(p, &end, 10);
			if (end == p)
				break;
			json_int(j, no);
			p = end + strspn(end, ", ");
		}
		json_arr_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* What the captures said about each input given (analysis.h, struct input_said). */
static void inputs_arr(const struct analysis *a, struct json *j)
{
	json_arr_begin(j);
	for (size_t i = 0; i < a->ninputs; i++) {
		const struct input_said *in = &a->inputs[i];
		json_obj_begin_flat(j);
		json_key(j, "option");
		json_str(j, in->option);
		json_key(j, "file");
		json_str(j, in->file);
		json_key(j, "line");
		if (in->line)
			json_int(j, in->line);
		else
			json_null(j);
		json_key(j, "status");
		json_str(j, input_state_names[in->state]);
		json_key(j, "said");
		json_str(j, in->text);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void inputs_json(const struct analysis *a, struct json *j)
{
	if (!a->ninputs)
		return;
	json_key(j, "inputs");
	inputs_arr(a, j);
	if (a->inputs_more) {
		json_key(j, "inputs_more");
		json_int(j, (long long)a->inputs_more);
	}
}

static void ent_ref_json(struct json *j, const char *key, const struct entity *e)
{
	json_key(j, key);
	if (!e) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "name");
	json_str(j, e->name);
	json_key(j, "host");
	json_str(j, e->host);
	json_obj_end(j);
}

/* The IO stacks the reports draw (topology.h): for each finding's disk (worst first) and the
 * busiest disk, its layers top to bottom, how each link is known, and what each box of the
 * picture says (the worst severity drawn there, whether IO waits there and the kind that says so). */
static void stacks_json(const struct analysis *a, struct json *j)
{
	static const char *const box_key[BOX_COUNT] = {"guest", "vscsi", "kernel", "adapter", "array"};
	struct topo_in ti = analysis_topo(a);
	struct shown_stack shown[TOPO_MAX_SHOWN];
	size_t n = topology_build(&ti, shown);
	json_key(j, "io_stacks");
	json_arr_begin(j);
	for (size_t i = 0; i < n; i++) {
		const struct stack *st = &shown[i].s;
		json_obj_begin(j);
		json_key(j, "finding");
		if (shown[i].anchor)
			json_int(j, (long long)(shown[i].anchor - a->f) + 1);
		else
			json_null(j);
		ent_ref_json(j, "guest_disk", st->guest);
		ent_ref_json(j, "virtual_disk", st->vdisk);
		json_key(j, "guest_link");
		if (st->map) {
			json_obj_begin(j);
			json_key(j, "how");
			json_str(j, st->map->automatic ? "correlation" : "map");
			json_key(j, "r");
			json_num(j, st->map->automatic ? st->map->correlation : NAN);
			json_obj_end(j);
		} else {
			json_null(j);
		}
		ent_ref_json(j, "volume", st->volume);
		ent_ref_json(j, "device", st->device);
		link_json_as("device_link", &st->l_dev, j);
		ent_ref_json(j, "adapter", st->adapter);
		link_json_as("adapter_link", &st->l_adp, j);
		struct box_state b[BOX_COUNT];
		topology_boxes(&ti, st, b);
		json_key(j, "boxes");
		json_obj_begin(j);
		for (int k = 0; k < BOX_COUNT; k++) {
			json_key(j, box_key[k]);
			json_obj_begin(j);
			json_key(j, "severity");
			json_str(j, b[k].sev >= 0 ? severity_names[b[k].sev] : NULL);
			json_key(j, "waits");
			json_bool(j, b[k].waits);
			json_key(j, "kind");
			json_str(j, b[k].why >= 0 ? kinds[b[k].why].name : NULL);
			json_obj_end(j);
		}
		json_obj_end(j);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void json_head(struct json *j, int schema_version)
{
	json_obj_begin(j);
	json_key(j, "schema_version");
	json_int(j, schema_version);
	json_key(j, "tool");
	json_obj_begin(j);
	json_key(j, "name");
	json_str(j, "iopsy");
	json_key(j, "version");
	json_str(j, IOPSY_VERSION);
	json_obj_end(j);
}

void analysis_json_ex(const struct analysis *a, struct json *j, void (*extra)(void *ctx, struct json *j), void *ctx)
{
	json_head(j, ANALYSIS_SCHEMA_VERSION);
	/* the sections the document model builds (doc.h): the verdict's sentence, the actions, the
	 * methodology as blocks, the histograms */
	struct ltime lt;
	ltime_init(&lt, &a->m, NULL);
	struct doc d;
	doc_of_analysis_only(a, &lt, &d, 1u << DS_SUMMARY | 1u << DS_VERDICT | 1u << DS_METHOD | 1u << DS_HIST);
	json_key(j, "verdict");
	json_str(j, a->verdict && d.sec[DS_VERDICT].nb ? d.sec[DS_VERDICT].b[0].text : NULL);
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
	json_key(j, "coverage");
	coverage_json(a, j);
	json_key(j, "captures");
	captures_json(&a->m, j);
	workflow_json(a, j);
	rules_out_json(&a->rules, "rules_overridden", j);
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
	iopath_json(a, j);
	json_key(j, "entities");
	entities_json(&a->m, j);
	json_key(j, "findings");
	json_arr_begin(j);
	for (size_t i = 0; i < a->nf; i++)
		finding_json(&a->f[i], j);
	json_arr_end(j);
	actions_json(&d, j);
	stacks_json(a, j);
	inputs_json(a, j);
	doc_json(&d, DS_METHOD, j);
	doc_json(&d, DS_HIST, j);
	doc_free(&d);
	sql_json(a->sql, j);
	if (extra)
		extra(ctx, j);
	json_obj_end(j);
}

/* ---- comparison ---- */
static void stats_json(const struct cmp_row *r, int s, struct json *j)
{
	const struct cmp_stats *st = &r->s[s];
	json_obj_begin(j);
	json_key(j, "p50");
	json_num(j, st->p50);
	json_key(j, "p95");
	json_num(j, st->p95);
	json_key(j, "p99");
	json_num(j, st->p99);
	json_key(j, "max");
	json_num(j, st->max);
	json_key(j, "mean");
	json_num(j, st->mean);
	json_key(j, "over_threshold_share");
	json_arr_begin(j);
	for (int t = 0; t < CMP_MAX_THR; t++)
		if (r->spec->thr[t] >= 0)
			json_num(j, st->over[t]);
	json_arr_end(j);
	json_key(j, "samples");
	json_int(j, st->samples);
	json_key(j, "series_values");
	json_int(j, (long long)st->values);
	json_key(j, "series_median");
	json_num(j, st->median);
	json_key(j, "block_length");
	json_int(j, (long long)st->block);
	json_key(j, "strata");
	json_int(j, (long long)st->strata);
	json_obj_end(j);
}

static void interval_json(struct json *j, const double ci[2])
{
	if (isnan(ci[0]) || isnan(ci[1])) {
		json_null(j);
		return;
	}
	json_arr_begin(j);
	json_num(j, ci[0]);
	json_num(j, ci[1]);
	json_arr_end(j);
}

static void pair_ids_json(const struct cmp_pair *p, struct json *j)
{
	const char *e = p->name[0] ? p->name[0] : p->name[1];
	const char *h = p->name[0] ? p->host[0] : p->host[1];
	json_key(j, "entity");
	json_str(j, e);
	json_key(j, "host");
	json_str(j, h);
	json_key(j, "layer");
	json_str(j, layer_names[p->layer]);
}

static void busy_json(const struct cmp_busy *b, struct json *j)
{
	if (!b->has) {
		json_null(j);
		return;
	}
	json_obj_begin(j);
	json_key(j, "measure");
	json_str(j, b->measure);
	json_key(j, "from");
	json_str(j, b->from);
	json_key(j, "distinct");
	json_bool(j, b->distinct);
	json_key(j, "threshold");
	json_num(j, b->cut);
	json_key(j, "buckets");
	json_int(j, (long long)b->values);
	json_key(j, "busy_buckets");
	json_int(j, (long long)b->busy);
	json_key(j, "share");
	json_num(j, b->share);
	json_key(j, "start");
	if (b->end > b->start)
		iso(j, b->start);
	else
		json_null(j);
	json_key(j, "end");
	if (b->end > b->start)
		iso(j, b->end);
	else
		json_null(j);
	json_key(j, "iops_p50");
	json_num(j, b->iops);
	json_key(j, "outstanding_p50");
	json_num(j, b->outstanding);
	json_key(j, "bucket_s");
	json_num(j, b->bucket_s);
	json_key(j, "edge");
	json_bool(j, b->edge);
	json_obj_end(j);
}

static void row_json(const struct compare *c, const struct cmp_row *r, struct json *j)
{
	const struct cmp_pair *p = &c->pairs[r->pair];
	const struct metric_info *mi = &metric_info[r->spec->metric];
	json_obj_begin(j);
	pair_ids_json(p, j);
	json_key(j, "entity_after");
	json_str(j, p->name[1]);
	json_key(j, "host_after");
	json_str(j, p->host[1]);
	json_key(j, "metric");
	json_str(j, mi->name);
	json_key(j, "label");
	json_str(j, mi->label);
	json_key(j, "unit");
	json_str(j, mi->unit);
	json_key(j, "kind");
	json_str(j, cmp_kind_names[r->spec->kind]);
	json_key(j, "lower_is_better");
	json_bool(j, cmp_kind_lower_is_better(r->spec->kind));
	json_key(j, "thresholds");
	json_arr_begin(j);
	for (int t = 0; t < CMP_MAX_THR; t++) {
		if (r->spec->thr[t] < 0)
			continue;
		json_obj_begin(j);
		json_key(j, "rule");
		json_str(j, rule_table[r->spec->thr[t]].name);
		json_key(j, "value");
		json_num(j, rule_value(&c->rules, (enum rule_id)r->spec->thr[t]));
		json_key(j, "above");
		json_str(j, r->spec->kind == CK_LATENCY ? ">" : ">=");
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "per_unit_of_load");
	json_bool(j, r->per_load);
	json_key(j, "decisive");
	json_bool(j, r->decisive);
	json_key(j, "before");
	stats_json(r, 0, j);
	json_key(j, "after");
	stats_json(r, 1, j);
	json_key(j, "busy");
	json_obj_begin(j);
	for (int s = 0; s < 2; s++) {
		json_key(j, cmp_side_names[s]);
		busy_json(&p->busy[s], j);
	}
	json_key(j, "comparable");
	json_bool(j, p->comparable);
	json_key(j, "before_missing");
	json_bool(j, p->before_missing);
	json_key(j, "shares_comparable");
	json_bool(j, p->shares_comparable);
	json_key(j, "widths_comparable");
	json_bool(j, p->widths_comparable);
	json_obj_end(j);
	json_key(j, "floor");
	json_num(j, r->spec->floor);
	json_key(j, "figures");
	json_arr_begin(j);
	for (int f = 0; f < CF_COUNT; f++) {
		const struct cmp_figure *g = &r->fig[f];
		if (!g->used)
			continue;
		bool share = cmp_fig_is_share((enum cmp_fig)f);
		json_obj_begin(j);
		json_key(j, "figure");
		json_str(j, cmp_fig_names[f]);
		json_key(j, "threshold");
		if (share)
			json_num(j, rule_value(&c->rules, (enum rule_id)r->spec->thr[f == CF_OVER0 || f == CF_BUSY_OVER0 ? 0 : 1]));
		else
			json_null(j);
		json_key(j, "decides");
		json_bool(j, g->decides);
		json_key(j, "before");
		json_num(j, g->v[0]);
		json_key(j, "after");
		json_num(j, g->v[1]);
		json_key(j, "diff");
		json_num(j, g->diff);
		json_key(j, "ci_diff");
		interval_json(j, g->ci_diff);
		json_key(j, "change_pct");
		json_num(j, g->change_pct);
		json_key(j, "ci");
		interval_json(j, g->ci);
		json_key(j, "verdict");
		json_str(j, cmp_verdict_names[g->verdict]);
		json_key(j, "reason");
		json_str(j, cmp_reason_names[g->reason]);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_key(j, "outcome");
	json_str(j, cmp_verdict_names[r->verdict]);
	json_key(j, "reason");
	json_str(j, cmp_reason_names[r->reason]);
	json_key(j, "load_matched");
	if (!r->has_lm) {
		json_null(j);
	} else {
		const struct cmp_loadmatch *lm = &r->lm;
		json_obj_begin(j);
		json_key(j, "load_metric");
		json_str(j, metric_info[r->spec->load].name);
		json_key(j, "comparable");
		json_bool(j, lm->comparable);
		json_key(j, "busy_only");
		json_bool(j, lm->busy_only);
		json_key(j, "note");
		json_str(j, lm->note);
		json_key(j, "bins");
		json_int(j, lm->bins);
		json_key(j, "load_range");
		double rg[2] = {lm->load_lo, lm->load_hi};
		interval_json(j, rg);
		json_key(j, "coverage");
		json_arr_begin(j);
		json_num(j, lm->coverage[0]);
		json_num(j, lm->coverage[1]);
		json_arr_end(j);
		json_key(j, "diff");
		json_num(j, lm->diff);
		json_key(j, "ci_diff");
		interval_json(j, lm->ci_diff);
		json_key(j, "change_pct");
		json_num(j, lm->change_pct);
		json_key(j, "ci");
		interval_json(j, lm->ci);
		json_key(j, "verdict");
		json_str(j, cmp_verdict_names[lm->verdict]);
		json_key(j, "reason");
		json_str(j, cmp_reason_names[lm->reason]);
		json_obj_end(j);
	}
	json_obj_end(j);
}

static void loadbins_json(const struct compare *c, struct json *j)
{
	json_arr_begin(j);
	for (size_t i = 0; i < c->nlb; i++) {
		const struct cmp_loadbins *lb = &c->lb[i];
		const struct cmp_row *r = &c->rows[lb->row];
		const struct cmp_pair *p = &c->pairs[r->pair];
		json_obj_begin(j);
		pair_ids_json(p, j);
		json_key(j, "metric");
		json_str(j, metric_info[r->spec->metric].name);
		json_key(j, "load_metric");
		json_str(j, metric_info[r->spec->load].name);
		json_key(j, "active_values");
		json_arr_begin(j);
		json_int(j, (long long)lb->active[0]);
		json_int(j, (long long)lb->active[1]);
		json_arr_end(j);
		json_key(j, "load_p50");
		json_arr_begin(j);
		json_num(j, lb->load_p50[0]);
		json_num(j, lb->load_p50[1]);
		json_arr_end(j);
		json_key(j, "load_p95");
		json_arr_begin(j);
		json_num(j, lb->load_p95[0]);
		json_num(j, lb->load_p95[1]);
		json_arr_end(j);
		json_key(j, "comparable");
		json_bool(j, r->lm.comparable);
		json_key(j, "bins");
		json_arr_begin(j);
		for (size_t k = 0; k < lb->nbins; k++) {
			const struct cmp_bin *b = &lb->bins[k];
			json_obj_begin(j);
			json_key(j, "lo");
			json_num(j, b->lo);
			json_key(j, "hi");
			json_num(j, b->hi);
			json_key(j, "matched");
			json_bool(j, b->matched);
			for (int s = 0; s < 2; s++) {
				json_key(j, cmp_side_names[s]);
				json_obj_begin(j);
				json_key(j, "n");
				json_int(j, (long long)b->n[s]);
				json_key(j, "p50");
				json_num(j, b->p50[s]);
				json_key(j, "p95");
				json_num(j, b->p95[s]);
				json_obj_end(j);
			}
			json_obj_end(j);
		}
		json_arr_end(j);
		json_key(j, "vs_outstanding");
		if (!lb->has_slope) {
			json_null(j);
		} else {
			json_obj_begin(j);
			json_key(j, "outstanding_metric");
			json_str(j, r->spec->out[1] >= 0 ? "actv+qued" : metric_info[r->spec->out[0]].name);
			json_key(j, "slope_ms_per_io");
			json_arr_begin(j);
			json_num(j, lb->slope[0]);
			json_num(j, lb->slope[1]);
			json_arr_end(j);
			json_key(j, "values");
			json_arr_begin(j);
			json_int(j, (long long)lb->slope_n[0]);
			json_int(j, (long long)lb->slope_n[1]);
			json_arr_end(j);
			json_key(j, "change_pct");
			json_num(j, lb->slope_change_pct);
			json_key(j, "ci");
			interval_json(j, lb->slope_ci);
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void only_json(const struct compare *c, int s, struct json *j)
{
	json_arr_begin(j);
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if (!p->name[s] || p->name[!s])
			continue;
		json_obj_begin(j);
		pair_ids_json(p, j);
		json_key(j, "mean_iops");
		json_num(j, p->load_mean[s]);
		json_key(j, "active");
		json_bool(j, p->active[s]);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void findings_json(const struct analysis *a, struct json *j)
{
	json_arr_begin(j);
	for (size_t i = 0; i < a->nf; i++)
		finding_json(&a->f[i], j);
	json_arr_end(j);
}

static void cmp_summary_json(const struct compare *c, struct json *j)
{
	const struct cmp_summary *s = &c->sum;
	json_key(j, "summary");
	json_obj_begin(j);
	json_key(j, "comparisons");
	json_int(j, (long long)c->nrows);
	for (int v = 0; v < CV_COUNT; v++) {
		json_key(j, cmp_verdict_names[v]);
		json_int(j, s->verdicts[v]);
	}
	json_key(j, "latency");
	json_obj_begin(j);
	for (int v = 0; v < CV_COUNT; v++) {
		json_key(j, cmp_verdict_names[v]);
		json_int(j, s->latency[v]);
	}
	json_obj_end(j);
	json_key(j, "decisive");
	json_obj_begin(j);
	for (int v = 0; v < CV_COUNT; v++) {
		if (v == CV_HIGHER || v == CV_LOWER)
			continue;
		json_key(j, cmp_verdict_names[v]);
		json_int(j, s->decisive[v]);
	}
	json_obj_end(j);
	json_key(j, "headline_rows");
	json_arr_begin(j);
	for (int k = 0; k < 2; k++)
		if (s->head[k] && (k == 0 || s->head[1] != s->head[0]))
			json_int(j, (long long)(s->head[k] - c->rows));
	json_arr_end(j);
	json_key(j, "not_comparable_why");
	json_str(j, s->outcome == CO_NOT_COMPARABLE && !s->head[0] ? s->outcome_why : NULL);
	json_key(j, "load_not_comparable");
	json_int(j, s->load_not_comparable);
	json_key(j, "findings_gone");
	json_int(j, s->findings[FD_GONE]);
	json_key(j, "findings_still_present");
	json_int(j, s->findings[FD_STILL]);
	json_key(j, "findings_new");
	json_int(j, s->findings[FD_NEW]);
	json_key(j, "findings_not_assessed_after");
	json_int(j, s->findings[FD_NOT_ASSESSED_AFTER]);
	json_key(j, "findings_not_assessed_before");
	json_int(j, s->findings[FD_NOT_ASSESSED_BEFORE]);
	json_key(j, "findings_compared");
	json_bool(j, s->findings_compared);
	json_key(j, "bottleneck");
	json_str(j, s->bottleneck > 0 ? "moved_down" : s->bottleneck < 0 ? "moved_up" : NULL);
	json_obj_end(j);
}

static void cmp_method_json(const struct compare *c, struct json *j)
{
	json_key(j, "method");
	json_obj_begin(j);
	json_key(j, "statistics");
	json_str(j, "median, p95, p99 and the share of time above each band of the rules, over every value and over the "
		    "busy phase, of the downsampled series (bucket means); queues per unit of load (queue / IOPS)");
	json_key(j, "bootstrap");
	json_str(j, "circular block bootstrap, Politis-White block length, idle and busy phases resampled separately, "
		    "one set of resamples for every figure of a row, percentile interval");
	json_key(j, "busy_phase");
	json_str(j, "the upper group of Otsu's split of log outstanding IO (IOPS x latency) when it is clearly bimodal, "
		    "else every bucket with IOPS >= active.min_iops");
	json_key(j, "resamples");
	json_int(j, c->o.resamples);
	json_key(j, "seed");
	json_int(j, (long long)c->o.seed);
	json_key(j, "confidence");
	json_num(j, c->o.confidence);
	json_key(j, "material_pct");
	json_num(j, c->o.material_pct);
	json_key(j, "share_floor");
	json_num(j, CMP_SHARE_FLOOR);
	json_key(j, "tail_min_values");
	json_int(j, CMP_TAIL_MIN);
	json_key(j, "busy_min_share");
	json_num(j, CMP_BUSY_MIN_SHARE);
	json_key(j, "regime_ratio");
	json_num(j, CMP_REGIME_RATIO);
	json_key(j, "regime_eta");
	json_num(j, CMP_REGIME_ETA);
	json_key(j, "comparable_ratio");
	json_num(j, CMP_COMPARABLE_RATIO);
	json_key(j, "bin_ratio");
	json_num(j, CMP_BIN_RATIO);
	json_key(j, "bin_min_values");
	json_int(j, CMP_BIN_MIN);
	json_key(j, "bin_min_share");
	json_num(j, CMP_BIN_SHARE);
	json_key(j, "min_coverage");
	json_num(j, CMP_MIN_COVERAGE);
	json_key(j, "active_min_iops");
	json_num(j, rule_value(&c->rules, R_ACTIVE_IOPS));
	json_obj_end(j);
}

static void cmp_sql_json(const struct compare *c, struct json *j)
{
	if (c->nsql) {
		/* SQL Server before and after (doc/compare-json.md) */
		json_key(j, "sql");
		json_arr_begin(j);
		for (size_t i = 0; i < c->nsql; i++) {
			const struct cmp_sql *q = &c->sql[i];
			json_obj_begin(j);
			json_key(j, "host");
			json_str(j, q->host);
			json_key(j, "instance");
			json_str(j, q->name);
			for (int sd = 0; sd < 3; sd++) {
				json_key(j, sd == 2 ? "change_pct" : cmp_side_names[sd]);
				json_obj_begin(j);
				for (int f = 0; f < CSQL_COUNT; f++) {
					json_key(j, cmp_sql_fig_names[f]);
					json_num(j, sd == 2 ? q->change_pct[f] : q->fig[sd][f]);
				}
				json_obj_end(j);
			}
			json_key(j, "text");
			json_str(j, q->text);
			json_key(j, "comment");
			json_str(j, q->comment);
			json_obj_end(j);
		}
		json_arr_end(j);
	}
}

static void cmp_matchmap_json(const struct compare *c, struct json *j)
{
	json_key(j, "match_map");
	json_arr_begin(j);
	for (size_t i = 0; i < c->nmap; i++) {
		const struct cmp_mapline *ml = &c->map[i];
		json_obj_begin(j);
		json_key(j, "line");
		json_int(j, ml->line);
		json_key(j, "before");
		json_str(j, ml->name[0]);
		json_key(j, "before_host");
		json_str(j, ml->host[0]);
		json_key(j, "after");
		json_str(j, ml->name[1]);
		json_key(j, "after_host");
		json_str(j, ml->host[1]);
		json_key(j, "pairs");
		json_int(j, ml->used);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* The findings before and after (the document's, doc_compare_findings). */
static void cmp_fdiff_json(const struct doc *d, struct json *j)
{
	json_key(j, "findings_diff");
	json_arr_begin(j);
	const struct doc_block *t = doc_role(d, DS_FINDINGS, ROLE_FDIFF);
	for (size_t k = 0; t && k < t->nrows; k++) {
		json_obj_begin(j);
		json_key(j, "kind");
		json_str(j, doc_fdiff_s(t, k, FDC_ID));
		json_key(j, "title");
		json_str(j, doc_fdiff_s(t, k, FDC_TITLE));
		json_key(j, "layer");
		json_str(j, doc_fdiff_s(t, k, FDC_LAYER));
		json_key(j, "entity");
		json_str(j, doc_fdiff_s(t, k, FDC_ENTITY));
		json_key(j, "host");
		json_str(j, doc_fdiff_s(t, k, FDC_HOST));
		json_key(j, "status");
		json_str(j, cmp_fstatus_names[(int)doc_fdiff_v(t, k, FDC_STATUS_CODE)]);
		json_key(j, "why");
		json_str(j, doc_fdiff_s(t, k, FDC_WHY));
		for (int sd = 0; sd < 2; sd++) {
			int at = FDC_SIDE + 4 * sd;
			json_key(j, cmp_side_names[sd]);
			json_obj_begin(j);
			json_key(j, "count");
			json_int(j, (long long)doc_fdiff_v(t, k, at + FDC_WINDOWS));
			json_key(j, "worst_severity");
			json_str(j, doc_fdiff_s(t, k, at + FDC_WORST));
			json_key(j, "sustained_s");
			json_num(j, round(doc_fdiff_v(t, k, at + FDC_SUSTAINED) * 10) / 10);
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* One side's figures of a virtual disk's histograms (doc/compare-json.md, vscsi_disks). */
static void vdisk_side_json(const struct vh_disk *d, struct json *j)
{
	if (!d) {
		json_null(j);
		return;
	}
	const struct vh_hist *o = &d->h[VH_OIO], *l = &d->h[VH_LAT], *z = &d->h[VH_LEN];
	double lo;
	json_obj_begin(j);
	json_key(j, "world_group_id");
	json_int(j, d->gid);
	json_key(j, "disk");
	json_str(j, d->target);
	json_key(j, "vm");
	d->vm[0] ? json_str(j, d->vm) : json_null(j);
	json_key(j, "ios");
	json_num(j, o->count > 0 ? o->count : l->count > 0 ? l->count : z->count);
	json_key(j, "outstanding");
	if (o->count > 0) {
		json_obj_begin(j);
		json_key(j, "max");
		json_num(j, o->max);
		json_key(j, "share_at_lsi_limit");
		json_num(j, vhist_in_bucket(o, VH_LSI_PER_DISK, &lo));
		json_key(j, "share_above_lsi_limit");
		json_num(j, vhist_above(o, VH_LSI_PER_DISK));
		json_key(j, "piled_at");
		int st = vhist_cap_state(o);
		if (st == 0 || vhist_pvscsi_pile(o))
			json_int(j, st == 0 ? VH_LSI_PER_DISK : VH_PVSCSI_PER_DISK);
		else
			json_null(j);
		json_obj_end(j);
	} else {
		json_null(j);
	}
	json_key(j, "latency_share_above_ms");
	if (l->count > 0) {
		static const int band[] = {5, 15, 30, 50};
		json_obj_begin(j);
		for (size_t k = 0; k < sizeof band / sizeof band[0]; k++) {
			char key[8];
			snprintf(key, sizeof key, "%d", band[k]);
			json_key(j, key);
			json_num(j, vhist_above(l, band[k] * 1000.0));
		}
		json_obj_end(j);
	} else {
		json_null(j);
	}
	json_key(j, "io_share_4k_or_less");
	json_num(j, z->count > 0 ? 1 - vhist_above(z, 4096) : NAN);
	json_key(j, "io_share_above_64k");
	json_num(j, z->count > 0 ? vhist_above(z, 65536) : NAN);
	json_obj_end(j);
}

/* The virtual disks with vscsiStats histograms, each side's figures and what moved. */
static void vdisks_json(const struct compare *c, struct json *j)
{
	if (!c->nvd)
		return;
	json_key(j, "vscsi_disks");
	json_arr_begin(j);
	struct buf n;
	buf_init(&n);
	for (size_t i = 0; i < c->nvd; i++) {
		const struct cmp_vdisk *v = &c->vd[i];
		buf_reset(&n);
		cmp_vdisk_name(v, &n);
		json_obj_begin(j);
		json_key(j, "name");
		json_str(j, n.data);
		json_key(j, "tied_by");
		v->tie ? json_str(j, v->tie) : json_null(j);
		json_key(j, "guess");
		json_bool(j, v->guess);
		json_key(j, "before");
		vdisk_side_json(v->d[0], j);
		json_key(j, "after");
		vdisk_side_json(v->d[1], j);
		json_key(j, "text");
		json_str(j, v->text);
		json_obj_end(j);
	}
	json_arr_end(j);
	buf_free(&n);
	json_key(j, "vscsi_note");
	c->vd_note ? json_str(j, c->vd_note) : json_null(j);
}

void compare_json(const struct compare *c, struct json *j)
{
	const struct cmp_summary *s = &c->sum;
	json_head(j, COMPARE_SCHEMA_VERSION);
	json_key(j, "outcome");
	json_str(j, cmp_outcome_names[s->outcome]);
	json_key(j, "capacity_gain");
	json_bool(j, s->capacity_gain);
	json_key(j, "headline");
	json_str(j, c->headline);
	json_key(j, "verdict");
	json_str(j, c->verdict);
	cmp_summary_json(c, j);
	cmp_method_json(c, j);
	json_key(j, "before");
	captures_json(&c->side[0].m, j);
	json_key(j, "after");
	captures_json(&c->side[1].m, j);
	cmp_sql_json(c, j);
	if (c->side[0].window.on || c->side[1].window.on || ef_on(c->side[0].m.filter)) {
		/* each side's window and selection (doc/compare-json.md) */
		json_key(j, "workflow");
		json_obj_begin(j);
		for (int sd = 0; sd < 2; sd++) {
			json_key(j, cmp_side_names[sd]);
			json_obj_begin(j);
			workflow_json(&c->side[sd], j);
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	rules_out_json(&c->side[0].rules, "rules_overridden_before", j);
	rules_out_json(&c->side[1].rules, "rules_overridden_after", j);
	cmp_matchmap_json(c, j);
	json_key(j, "comparisons");
	json_arr_begin(j);
	for (size_t i = 0; i < c->nrows; i++)
		row_json(c, &c->rows[i], j);
	json_arr_end(j);
	json_key(j, "load_bins");
	loadbins_json(c, j);
	json_key(j, "only_before");
	only_json(c, 0, j);
	json_key(j, "only_after");
	only_json(c, 1, j);
	json_key(j, "findings_before");
	findings_json(&c->side[0], j);
	json_key(j, "findings_after");
	findings_json(&c->side[1], j);
	{
		struct doc d;
		doc_of_compare(c, NULL, &d);
		cmp_fdiff_json(&d, j);
		vdisks_json(c, j);
		/* each side's, as analyze's inputs[] (doc/analyze-json.md) */
		if (c->side[0].ninputs || c->side[1].ninputs) {
			json_key(j, "inputs");
			json_obj_begin(j);
			for (int sd = 0; sd < 2; sd++) {
				json_key(j, sd ? "after" : "before");
				inputs_arr(&c->side[sd], j);
			}
			json_obj_end(j);
		}
		doc_json(&d, DS_METHOD, j);
		doc_json(&d, DS_HIST, j);
		doc_free(&d);
	}
	json_obj_end(j);
}

/* ---- inventory ---- */
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
	if (inv->windowed) {
		json_key(j, "rows_outside_window");
		json_int(j, inv->outside);
	}
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
