/* compare.c — the before/after comparison (see compare.h): the metric table, the comparison's
 * life cycle and its run (match, busy phases, statistics, verdict: compare_match.c,
 * compare_busy.c, compare_stats.c, compare_verdict.c), and the per-side series the charts read. */
#include "compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *const cmp_side_names[2] = {"before", "after"};
const char *const cmp_kind_names[5] = {"latency", "queue", "penalty", "work", "occupancy"};
const char *const cmp_verdict_names[CV_COUNT] = {"improved", "regressed",    "unchanged", "higher",
						 "lower",    "not_assessed", "mixed",     "not_comparable"};
const char *const cmp_fstatus_names[FD_COUNT] = {"gone", "still_present", "new", "not_assessed_after", "not_assessed_before"};
const char *const cmp_reason_names[CR_COUNT] = {NULL,
						"interval_contains_zero",
						"below_material_pct",
						"below_floor",
						"no_values_before",
						"no_values_after",
						"too_few_values",
						"idle_both_sides",
						"idle_one_side",
						"no_interval",
						"interval_degenerate",
						"too_few_values_for_quantile",
						"not_comparable",
						"changed_with_the_load"};
const char *const cmp_outcome_names[CO_COUNT] = {"improved", "regressed", "mixed", "unchanged", "not_comparable"};
const char *const cmp_outcome_words[CO_COUNT] = {"Improved", "Regressed", "Mixed", "Unchanged", "Not comparable"};

#define NO {-1, -1}
#define T1(a) {a, -1}
#define T2(a, b) {a, b}
#define OUT_DEV {M_ACTV, M_QUED}

/* Floors: the smallest change of a quantile that matters in practice — 1 ms for guest latency,
 * 0.5 ms for host latency, 0.05 ms for KAVG (its warning level is 0.1 ms), for queues (judged per
 * unit of load: the wait per IO, Little's law) 1 ms in the guest and 0.05 ms for QUED (QAVG is
 * part of KAVG), 5 IO/s for IOPS (active.min_iops), 1 MB/s, one command of ACTV and DQLEN, 5
 * points of %USD, 1 split/s, 1 point of %Ready. */
const struct cmp_metric_spec cmp_metrics[] = {
	{LAYER_GUEST, M_G_LAT_R, CK_LATENCY, 1.0, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_G_XFERS, {M_G_CDQL, -1}},
	{LAYER_GUEST, M_G_LAT_W, CK_LATENCY, 1.0, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_G_XFERS, {M_G_CDQL, -1}},
	{LAYER_GUEST, M_G_CDQL, CK_QUEUE, 1.0, T2(R_VSCSI_LSI, R_VSCSI_PVSCSI), M_G_XFERS, NO},
	{LAYER_GUEST, M_G_XFERS, CK_WORK, 5.0, NO, M_G_XFERS, NO},
	{LAYER_GUEST, M_G_MBPS, CK_WORK, 1.0, NO, M_G_XFERS, NO},
	{LAYER_GUEST, M_G_SPLIT, CK_PENALTY, 1.0, T1(R_SPLIT_PER_S), M_G_XFERS, NO},
	{LAYER_VSCSI, M_VD_LAT_R, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, NO},
	{LAYER_VSCSI, M_VD_LAT_W, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, NO},
	{LAYER_VSCSI, M_HV_LAT, CK_LATENCY, 0.5, T2(R_HV_VHDX_WARN, R_GUEST_LAT_CRIT), M_CMDS, NO}, /* a Hyper-V VHDX */
	{LAYER_VSCSI, M_CMDS, CK_WORK, 5.0, NO, M_CMDS, NO},
	{LAYER_VSCSI, M_MBR, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_VSCSI, M_MBW, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_DAVG, CK_LATENCY, 0.5, T2(R_DAVG_WARN, R_DAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_DEVICE, M_KAVG, CK_LATENCY, 0.05, T2(R_KAVG_WARN, R_KAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_DEVICE, M_GAVG, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, OUT_DEV},
	{LAYER_DEVICE, M_H_LAT_R, CK_LATENCY, 0.5, T2(R_HV_DISK_WARN, R_HV_DISK_CRIT), M_CMDS, NO}, /* a Hyper-V host disk */
	{LAYER_DEVICE, M_H_LAT_W, CK_LATENCY, 0.5, T2(R_HV_DISK_WARN, R_HV_DISK_CRIT), M_CMDS, NO},
	{LAYER_DEVICE, M_ACTV, CK_OCCUPANCY, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_QUED, CK_QUEUE, 0.05, T1(R_DEV_SAT_QUED), M_CMDS, NO},
	{LAYER_DEVICE, M_USD, CK_OCCUPANCY, 5.0, T1(R_DEV_SAT_USD), M_CMDS, NO},
	{LAYER_DEVICE, M_DQLEN, CK_OCCUPANCY, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_CMDS, CK_WORK, 5.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_MBR, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_MBW, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_SPLIT, CK_PENALTY, 1.0, T1(R_SPLIT_PER_S), M_CMDS, NO},
	{LAYER_ADAPTER, M_DAVG, CK_LATENCY, 0.5, T2(R_DAVG_WARN, R_DAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_ADAPTER, M_KAVG, CK_LATENCY, 0.05, T2(R_KAVG_WARN, R_KAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_ADAPTER, M_GAVG, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, OUT_DEV},
	{LAYER_ADAPTER, M_ACTV, CK_OCCUPANCY, 1.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_QUED, CK_QUEUE, 0.05, T1(R_DEV_SAT_QUED), M_CMDS, NO},
	{LAYER_ADAPTER, M_CMDS, CK_WORK, 5.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_MBR, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_MBW, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_SPLIT, CK_PENALTY, 1.0, T1(R_SPLIT_PER_S), M_CMDS, NO},
	{LAYER_VM, M_RDY, CK_PENALTY, 1.0, NO, -1, NO},
	{LAYER_VM, M_HV_CPU_WAIT, CK_PENALTY, 5.0, T2(R_HV_CPU_WAIT_WARN, R_HV_CPU_WAIT_CRIT), -1, NO},
};
const size_t cmp_nmetrics = sizeof cmp_metrics / sizeof cmp_metrics[0];


bool cmp_kind_lower_is_better(enum cmp_kind k)
{
	return k == CK_LATENCY || k == CK_QUEUE || k == CK_PENALTY;
}

void compare_opts_init(struct compare_opts *o)
{
	memset(o, 0, sizeof *o);
	o->resamples = 1000;
	o->seed = 1;
	o->confidence = 0.95;
	o->material_pct = 10;
}

void compare_init(struct compare *c)
{
	memset(c, 0, sizeof *c);
	analysis_init(&c->side[0]);
	analysis_init(&c->side[1]);
	arena_init(&c->arena);
	compare_opts_init(&c->o);
	rules_init(&c->rules);
}

void compare_free(struct compare *c)
{
	analysis_free(&c->side[0]);
	analysis_free(&c->side[1]);
	free(c->map);
	free(c->pairs);
	free(c->rows);
	free(c->lb);
	free(c->fd);
	arena_free(&c->arena);
	memset(c, 0, sizeof *c);
}

int compare_add_capture(struct compare *c, enum cmp_side s, const char *path, const struct common_opts *co)
{
	return model_add_capture(&c->side[s].m, path, co);
}

/* ---- --match-map ---- */

void compare_use_matchmap(struct compare *c, const struct matchmap *mm)
{
	for (size_t i = 0; i < mm->n; i++) {
		struct cmp_mapline ml;
		memset(&ml, 0, sizeof ml);
		for (int s = 0; s < 2; s++) {
			ml.host[s] = mm->l[i].host[s] ? arena_strdup(&c->arena, mm->l[i].host[s]) : NULL;
			ml.name[s] = arena_strdup(&c->arena, mm->l[i].name[s]);
		}
		ml.line = mm->l[i].line;
		c->map = xrealloc(c->map, (c->nmap + 1) * sizeof *c->map);
		c->map[c->nmap++] = ml;
	}
}

/* ---- series access ---- */

const struct entity *cmp_ent(const struct compare *c, const struct cmp_pair *p, int s, size_t k)
{
	return &c->side[s].m.ents[p->ents[s][k]];
}

size_t compare_series(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric m,
		      struct cmp_point *out, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nents[s]; i++) {
		const struct entity *e = cmp_ent(c, p, s, i);
		if (e->series[m] < 0)
			continue;
		const struct capture *cp = &c->side[s].m.caps[e->capture];
		for (size_t k = 0; k < cp->ds.nb; k++) {
			double v = ds_mean(&cp->ds, (size_t)e->series[m], k);
			if (isnan(v))
				continue;
			if (n < cap) {
				out[n].t = model_time(&c->side[s].m, cp, k);
				out[n].mean = v;
				out[n].min = ds_min(&cp->ds, (size_t)e->series[m], k);
				out[n].max = ds_max(&cp->ds, (size_t)e->series[m], k);
				out[n].busy = cmp_bucket_busy(c, p, s, e, k);
			}
			n++;
		}
	}
	return n;
}

size_t compare_xy(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric mx, enum metric my,
		  double *x, double *y, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < p->nents[s]; i++) {
		const struct entity *e = cmp_ent(c, p, s, i);
		if (e->series[mx] < 0 || e->series[my] < 0)
			continue;
		const struct capture *cp = &c->side[s].m.caps[e->capture];
		for (size_t k = 0; k < cp->ds.nb; k++) {
			double a = ds_mean(&cp->ds, (size_t)e->series[mx], k), b = ds_mean(&cp->ds, (size_t)e->series[my], k);
			if (isnan(a) || isnan(b))
				continue;
			if (n < cap) {
				x[n] = a;
				y[n] = b;
			}
			n++;
		}
	}
	return n;
}

void compare_sketch(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric m, struct qsketch *out)
{
	qs_init(out);
	for (size_t i = 0; i < p->nents[s]; i++)
		qs_merge(out, entity_sk(cmp_ent(c, p, s, i), m));
}

void compare_run(struct compare *c, const struct compare_opts *o, struct diag *d)
{
	c->o = *o;
	if (c->o.resamples < 100)
		c->o.resamples = 100;
	if (!(c->o.confidence > 0 && c->o.confidence < 1))
		c->o.confidence = 0.95;
	for (int s = 0; s < 2; s++)
		analysis_run(&c->side[s], &c->o.ao[s]);
	cmp_match(c, d);
	cmp_build_rows(c);
	cmp_decide_rows(c);
	if (cmp_readable_caps(&c->side[0].m) && cmp_readable_caps(&c->side[1].m))
		cmp_findings_diff(c);
	cmp_summarise(c);
	cmp_sql_compare(c);
}
