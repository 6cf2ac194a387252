/* batchres.c — the batch run's data: names, freeing, and the week-over-week trend of a set against
 * its previous run (see batchres.h). */
#include "batchres.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const bfile_role_names[5] = {"capture", "vmkernel-log", "partitions", "map", "ignored"};
const char *const bstatus_names[4] = {"pending", "ok", "partial", "failed"};

const struct key_metric key_metrics[] = {
	{LAYER_GUEST, M_G_LAT_R}, {LAYER_GUEST, M_G_LAT_W}, {LAYER_GUEST, M_G_CDQL}, {LAYER_GUEST, M_G_XFERS},
	{LAYER_VSCSI, M_VD_LAT_R}, {LAYER_VSCSI, M_VD_LAT_W}, {LAYER_VSCSI, M_CMDS},
	{LAYER_DEVICE, M_DAVG}, {LAYER_DEVICE, M_KAVG}, {LAYER_DEVICE, M_QUED}, {LAYER_DEVICE, M_ACTV},
	{LAYER_DEVICE, M_CMDS}, {LAYER_ADAPTER, M_ACTV},
};
const size_t nkey_metrics = sizeof key_metrics / sizeof key_metrics[0];

static void free_findings(struct bfinding *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].kind);
		free(f[i].severity);
		free(f[i].layer);
		free(f[i].entity);
		free(f[i].host);
		free(f[i].start);
		free(f[i].end);
		free(f[i].summary);
	}
	free(f);
}

static void free_stats(struct bstat *st, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(st[i].layer);
		free(st[i].entity);
		free(st[i].host);
		free(st[i].metric);
	}
	free(st);
}

void batch_free(struct batch *b)
{
	for (size_t i = 0; i < b->nsets; i++) {
		struct bset *s = &b->sets[i];
		free(s->name);
		free(s->dir);
		for (size_t k = 0; k < s->nfiles; k++) {
			free(s->files[k].path);
			free(s->files[k].note);
		}
		free(s->files);
		for (size_t k = 0; k < s->nmail; k++)
			free(s->mail_to[k]);
		free(s->mail_to);
		free(s->discovery_error);
		free(s->error);
		free(s->verdict);
		free(s->capture_start);
		free(s->capture_end);
		free_findings(s->f, s->nf);
		free_stats(s->stats, s->nstats);
		free(s->trend.previous_started);
		free(s->trend.previous_capture);
		free_stats(s->trend.prev_stats, s->trend.nprev_stats);
		free_findings(s->trend.prev_f, s->trend.nprev_f);
	}
	free(b->sets);
	free(b->input_kind);
	memset(b, 0, sizeof *b);
}

/* ---- trends ---- */

int trend_figure_change(const struct bset *s, const struct bstat *cur, double *prev_p95)
{
	for (size_t i = 0; i < s->trend.nprev_stats; i++) {
		const struct bstat *p = &s->trend.prev_stats[i];
		if (strcmp(p->layer, cur->layer) == 0 && strcmp(p->entity, cur->entity) == 0 &&
		    strcmp(p->host, cur->host) == 0 && strcmp(p->metric, cur->metric) == 0) {
			*prev_p95 = p->p95;
			return 1;
		}
	}
	return 0;
}

static bool same_finding(const struct bfinding *a, const struct bfinding *b)
{
	return strcmp(a->kind, b->kind) == 0 && strcmp(a->entity, b->entity) == 0 && strcmp(a->host, b->host) == 0;
}

bool trend_finding_is_new(const struct bset *s, const struct bfinding *f)
{
	for (size_t i = 0; i < s->trend.nprev_f; i++)
		if (same_finding(&s->trend.prev_f[i], f))
			return false;
	return true;
}

void trend_finding_counts(const struct bset *s, long n[3])
{
	n[0] = n[1] = n[2] = 0;
	for (size_t i = 0; i < s->nf; i++) {
		bool dup = false;
		for (size_t k = 0; k < i; k++)
			dup |= same_finding(&s->f[k], &s->f[i]);
		if (!dup)
			n[trend_finding_is_new(s, &s->f[i]) ? 0 : 1]++;
	}
	for (size_t i = 0; i < s->trend.nprev_f; i++) {
		bool dup = false, still = false;
		for (size_t k = 0; k < i; k++)
			dup |= same_finding(&s->trend.prev_f[k], &s->trend.prev_f[i]);
		for (size_t k = 0; k < s->nf; k++)
			still |= same_finding(&s->f[k], &s->trend.prev_f[i]);
		if (!dup && !still)
			n[2]++;
	}
}

/* ---- trend of the current analysis against the previous run ---- */

static bool is_unchanged(double now, double before)
{
	double d = fabs(now - before);
	return d <= fmax(0.05 * fabs(before), 0.05);
}

size_t batch_trend_rows(const struct analysis *a, const struct bset *s, struct trend_row **out)
{
	struct trend_row *r = NULL;
	size_t n = 0;
	for (size_t i = 0; i < a->m.nents; i++) {
		const struct entity *e = &a->m.ents[i];
		if (!entity_active(e, &a->rules))
			continue;
		for (size_t k = 0; k < nkey_metrics; k++) {
			if (key_metrics[k].layer != e->layer || !e->sk[key_metrics[k].metric].n)
				continue;
			struct bstat cur = {.layer = (char *)(uintptr_t)layer_names[e->layer],
					    .entity = (char *)(uintptr_t)e->name,
					    .host = (char *)(uintptr_t)(e->host ? e->host : ""),
					    .metric = (char *)(uintptr_t)metric_info[key_metrics[k].metric].name};
			r = xrealloc(r, (n + 1) * sizeof *r);
			struct trend_row *t = &r[n++];
			t->e = e;
			t->m = key_metrics[k].metric;
			t->now = qs_quantile(&e->sk[t->m], 0.95);
			t->have_before = trend_figure_change(s, &cur, &t->before) && !isnan(t->before);
			t->change_pct = t->have_before && t->before != 0 ? 100 * (t->now - t->before) / t->before : NAN;
			t->unchanged = t->have_before && is_unchanged(t->now, t->before);
		}
	}
	*out = r;
	return n;
}

