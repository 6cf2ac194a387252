/* compare_sql.c — SQL Server before and after a change: the instances of both sides' SQL impact
 * (sqlimpact.h) matched by machine and instance, their figures side by side with the change, in
 * one sentence ("SQL01, default instance: Batch Requests/sec 512 -> 716 (+40 %), log flush wait
 * 18.9 -> 1.2 ms per wait (-94 %), ..."). Means over each side's capture: the work done and the
 * waits paid for it. */
#include "compare_int.h"

#include <math.h>
#include <string.h>

const char *const cmp_sql_fig_names[CSQL_COUNT] = {"batch_requests_per_s", "log_flush_wait_ms", "log_write_wait_ms",
						   "page_io_latch_wait_ms", "page_life_expectancy_s"};
static const char *const fig_label[CSQL_COUNT] = {"Batch Requests/sec", "log flush wait", "Log write waits",
						  "Page IO latch waits", "Page life expectancy"};
static const char *const fig_unit[CSQL_COUNT] = {"", " ms", " ms", " ms", " s"};

static void figs_of(const struct sql_instance *si, double *f)
{
	f[CSQL_BATCH] = si->all.batch;
	f[CSQL_FLUSH] = si->all.flush_wait_ms;
	f[CSQL_LOGWRITE] = si->all.log_write_ms;
	f[CSQL_PAGEIO] = si->all.pageio_ms;
	f[CSQL_PLE] = si->all.ple_median;
}

static void num(struct buf *b, double v)
{
	buf_printf(b, v >= 100 ? "%.0f" : v >= 10 ? "%.1f" : "%.2g", v);
}

/* What the memory and read-wait figures mean when they move materially (--material-pct): Page life
 * expectancy is how long a page stays in the buffer pool (doc/domain.md, SQL Server); Page IO latch
 * waits are the time queries wait for data pages read from disk. */
static void sql_comment(const struct compare *c, const struct cmp_sql *q, struct buf *t)
{
	double m = c->o.material_pct;
	double ple = q->change_pct[CSQL_PLE], pio = q->change_pct[CSQL_PAGEIO], work = q->change_pct[CSQL_BATCH];
	if (!isnan(pio) && fabs(pio) >= m)
		buf_printf(t, " Page IO latch waits (queries waiting for data pages read from disk) %s %.0f%%: the "
			      "queries' read waits follow the disks' latency.", pio < 0 ? "fell" : "rose", fabs(pio));
	if (isnan(ple) || fabs(ple) < m)
		return;
	if (ple < 0) {
		buf_printf(t, " Page life expectancy fell %.0f%%: pages leave the buffer pool sooner", -ple);
		if (!isnan(work) && work >= m)
			buf_printf(t, " as the instance does more work (Batch Requests/sec %+.0f%%)", work);
		buf_adds(t, "; that is memory turnover, not a storage symptom - if it stays low, check the instance's "
			    "memory (max server memory, the VM's RAM).");
	} else {
		buf_printf(t, " Page life expectancy rose %.0f%%: pages stay in the buffer pool longer.", ple);
	}
}

void cmp_sql_compare(struct compare *c)
{
	c->nsql = 0;
	const struct sql_report *r0 = c->side[0].sql, *r1 = c->side[1].sql;
	if (!r0 || !r1)
		return;
	for (size_t i = 0; i < r0->n && c->nsql < CMP_MAX_SQL; i++) {
		const struct sql_instance *a = &r0->in[i], *b = NULL;
		for (size_t k = 0; k < r1->n && !b; k++)
			if (cmp_host_same(a->host, r1->in[k].host) && strcmp(a->name, r1->in[k].name) == 0)
				b = &r1->in[k];
		if (!b)
			continue;
		struct cmp_sql *q = &c->sql[c->nsql++];
		memset(q, 0, sizeof *q);
		q->host = a->host;
		q->name = a->name;
		q->label = a->label;
		figs_of(a, q->fig[0]);
		figs_of(b, q->fig[1]);
		struct buf t;
		buf_init(&t);
		buf_printf(&t, "%s, %s:", a->host, a->label);
		int n = 0;
		for (int f = 0; f < CSQL_COUNT; f++) {
			double x = q->fig[0][f], y = q->fig[1][f];
			q->change_pct[f] = !isnan(x) && !isnan(y) && x > 0 ? 100 * (y - x) / x : NAN;
			if (isnan(x) || isnan(y))
				continue;
			buf_printf(&t, "%s %s ", n++ ? "," : "", fig_label[f]);
			num(&t, x);
			buf_adds(&t, " -> ");
			num(&t, y);
			buf_printf(&t, "%s%s", fig_unit[f], f == CSQL_FLUSH ? " per wait" : "");
			if (!isnan(q->change_pct[f]))
				buf_printf(&t, " (%+.0f%%)", q->change_pct[f]);
		}
		if (!n)
			buf_adds(&t, " no figure on both sides");
		/* the business outcome in a few words: more or less work, at lower or higher waits */
		double work = q->change_pct[CSQL_BATCH];
		double wait = !isnan(q->change_pct[CSQL_FLUSH]) ? q->change_pct[CSQL_FLUSH] : q->change_pct[CSQL_LOGWRITE];
		if (!isnan(work) && !isnan(wait) && fabs(work) >= 10 && fabs(wait) >= 10)
			buf_printf(&t, ": %s work at %s log waits", work > 0 ? "more" : "less", wait < 0 ? "lower" : "higher");
		else if (!isnan(wait) && fabs(wait) >= 10)
			buf_printf(&t, ": log waits %s", wait < 0 ? "lower" : "higher");
		buf_addc(&t, '.');
		q->text = arena_strndup(&c->arena, t.data, t.len);
		buf_reset(&t);
		sql_comment(c, q, &t);
		q->comment = t.len ? arena_strndup(&c->arena, t.data + 1, t.len - 1) : NULL;
		buf_free(&t);
	}
}
