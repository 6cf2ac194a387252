/* compare.c — the before/after comparison (see compare.h): the comparison's life cycle and its
 * run (match, busy phases, statistics, verdict: compare_match.c, compare_busy.c, compare_stats.c,
 * compare_verdict.c), and the per-side series the charts read; the names and the metric table
 * are in compare_data.c. */
#include "compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
	free(c->vd);
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
	cmp_vhist(c);
}
