/* compare_out.c — a before/after comparison as text (verdict first, then the table grouped by
 * entity, latency at equal load, findings gone/new) and as JSON (doc/compare-json.md). */
#include "compare_out.h"

#include <math.h>
#include <string.h>

#include "analysis_out.h"
#include "fmt.h"
#include "version.h"

#define LABEL_W 40

#define esc fmt_esc
#define share fmt_share
static void pct(struct buf *b, double v) { fmt_pct(b, v, "n/a"); }
static void duration(struct buf *b, double s) { fmt_duration(b, s, true); }
static void text_num(struct buf *b, double v) { fmt_num(b, v, "-"); }

static void pad(struct buf *b, size_t from, size_t width)
{
	size_t used = b->len - from;
	do
		buf_addc(b, ' ');
	while (++used < width);
}

static void quad(struct buf *b, const struct cmp_stats *s)
{
	if (!s->samples) {
		buf_adds(b, "-");
		return;
	}
	text_num(b, s->p50);
	buf_addc(b, '/');
	text_num(b, s->p95);
	buf_addc(b, '/');
	text_num(b, s->p99);
	buf_addc(b, '/');
	text_num(b, s->max);
}

static const char *verdict_word(const struct cmp_row *r)
{
	if (r->verdict == CV_HIGHER)
		return r->spec->kind == CK_WORK ? "more work" : "higher";
	if (r->verdict == CV_LOWER)
		return r->spec->kind == CK_WORK ? "less work" : "lower";
	if (r->verdict == CV_NOT_ASSESSED)
		return "not assessed";
	return cmp_verdict_names[r->verdict];
}

/* A short reason for an unchanged or not-assessed verdict. */
static void reason_text(struct buf *b, enum cmp_reason r, const struct cmp_metric_spec *sp, double material_pct)
{
	switch (r) {
	case CR_CI_HAS_ZERO: buf_adds(b, " (interval contains 0)"); break;
	case CR_BELOW_PCT: buf_printf(b, " (< %g%%)", material_pct); break;
	case CR_BELOW_FLOOR:
		buf_printf(b, " (< %g %s)", sp->floor, metric_info[sp->metric].unit);
		break;
	case CR_NO_BEFORE: buf_adds(b, " (no values before)"); break;
	case CR_NO_AFTER: buf_adds(b, " (no values after)"); break;
	case CR_FEW_VALUES: buf_adds(b, " (too few values)"); break;
	case CR_IDLE_BOTH: buf_adds(b, " (idle on both sides)"); break;
	case CR_IDLE_ONE: buf_adds(b, " (idle on one side: latency not judged)"); break;
	case CR_NO_INTERVAL: buf_adds(b, " (no interval)"); break;
	default: break;
	}
}

static void captures_text(const struct model *m, const char *side, struct buf *out)
{
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *c = &m->caps[i];
		buf_printf(out, "  %-7s ", side);
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
		buf_printf(out, ", %s .. %s, %g s interval, %ld rows", s, e, c->interval_s, c->rows);
		if (c->warnings)
			buf_printf(out, ", %ld warning%s", c->warnings, c->warnings == 1 ? "" : "s");
		buf_addc(out, '\n');
	}
}

static bool pair_shown(const struct cmp_pair *p)
{
	if (p->layer == LAYER_VM)
		return p->vm_with_disks;
	return p->active[0] || p->active[1];
}

static void pair_head(const struct cmp_pair *p, struct buf *out)
{
	char l[512];
	buf_printf(out, "\n%s ", layer_names[p->layer]);
	esc(out, compare_pair_label(p, CMP_BEFORE, l, sizeof l));
	if (p->mapped || (p->name[0] && p->name[1] && strcmp(p->name[0], p->name[1]) != 0)) {
		buf_adds(out, " -> ");
		esc(out, compare_pair_label(p, CMP_AFTER, l, sizeof l));
		if (p->mapped)
			buf_adds(out, " (--match-map)");
	}
	if (p->by_name) {
		buf_adds(out, " (host ");
		esc(out, p->host[0]);
		buf_adds(out, " -> ");
		esc(out, p->host[1]);
		buf_addc(out, ')');
	}
	if (!isnan(p->load_mean[0]) || !isnan(p->load_mean[1])) {
		buf_adds(out, "  (mean ");
		text_num(out, p->load_mean[0]);
		buf_adds(out, " -> ");
		text_num(out, p->load_mean[1]);
		buf_adds(out, " IO/s)");
	}
	buf_addc(out, '\n');
}

static void row_text(const struct compare *c, const struct cmp_row *r, struct buf *out)
{
	const struct metric_info *mi = &metric_info[r->spec->metric];
	size_t s0 = out->len;
	buf_printf(out, "  %s", mi->label);
	if (*mi->unit)
		buf_printf(out, " (%s)", mi->unit);
	pad(out, s0, LABEL_W);
	size_t s1 = out->len;
	quad(out, &r->s[0]);
	pad(out, s1, 24);
	size_t s2 = out->len;
	quad(out, &r->s[1]);
	pad(out, s2, 24);
	size_t s3 = out->len;
	if (isnan(r->change_pct) && !isnan(r->diff)) {
		buf_adds(out, r->diff >= 0 ? "+" : "");
		text_num(out, r->diff);
	} else {
		pct(out, r->change_pct);
	}
	pad(out, s3, 8);
	size_t s4 = out->len;
	if (!isnan(r->ci[0])) {
		pct(out, r->ci[0]);
		buf_adds(out, " .. ");
		pct(out, r->ci[1]);
	} else if (!isnan(r->ci_diff[0])) {
		text_num(out, r->ci_diff[0]);
		buf_adds(out, " .. ");
		text_num(out, r->ci_diff[1]);
	} else {
		buf_adds(out, "-");
	}
	pad(out, s4, 20);
	buf_adds(out, verdict_word(r));
	reason_text(out, r->reason, r->spec, c->o.material_pct);
	buf_addc(out, '\n');
	/* thresholds */
	bool any = false;
	for (int t = 0; t < CMP_MAX_THR; t++) {
		if (r->spec->thr[t] < 0)
			continue;
		buf_adds(out, any ? "; " : "      time ");
		any = true;
		buf_printf(out, "%s %g %s: ", r->spec->kind == CK_LATENCY ? ">" : ">=", rule_value(&c->rules, (enum rule_id)r->spec->thr[t]),
			   mi->unit);
		share(out, r->s[0].over[t]);
		buf_adds(out, " -> ");
		share(out, r->s[1].over[t]);
	}
	if (any)
		buf_addc(out, '\n');
	if (r->has_lm && r->verdict != CV_NOT_ASSESSED) {
		const struct cmp_loadmatch *lm = &r->lm;
		if (lm->comparable) {
			buf_printf(out, "      at equal load (%d IOPS bin%s, ", lm->bins, lm->bins == 1 ? "" : "s");
			text_num(out, lm->load_lo);
			buf_adds(out, "-");
			text_num(out, lm->load_hi);
			buf_adds(out, " IO/s): ");
			pct(out, lm->change_pct);
			buf_adds(out, " (");
			pct(out, lm->ci[0]);
			buf_adds(out, " .. ");
			pct(out, lm->ci[1]);
			buf_printf(out, ") %s", cmp_verdict_names[lm->verdict]);
			reason_text(out, lm->reason, r->spec, c->o.material_pct);
			buf_addc(out, '\n');
		} else {
			buf_printf(out, "      at equal load: not comparable (%s)\n", lm->note ? lm->note : "");
		}
	}
}

static const struct cmp_loadbins *bins_of(const struct compare *c, size_t row)
{
	for (size_t i = 0; i < c->nlb; i++)
		if (c->lb[i].row == row)
			return &c->lb[i];
	return NULL;
}

static void loadbins_text(const struct compare *c, struct buf *out)
{
	bool head = false;
	size_t omitted = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		const struct cmp_pair *p = &c->pairs[r->pair];
		const struct cmp_loadbins *lb = bins_of(c, i);
		if (!lb || r->verdict == CV_NOT_ASSESSED || !pair_shown(p))
			continue;
		/* the guest's latency, and any latency whose verdict changed; the rest is in the JSON */
		bool changed = r->verdict == CV_IMPROVED || r->verdict == CV_REGRESSED || r->lm.verdict == CV_IMPROVED ||
			       r->lm.verdict == CV_REGRESSED;
		if (p->layer != LAYER_GUEST && !changed) {
			omitted++;
			continue;
		}
		if (!head) {
			buf_printf(out, "\nLATENCY AT EQUAL LOAD (IOPS bins x%g wide; matched: >= %d values on both sides; active: "
					"IOPS >= %g)\n",
				   CMP_BIN_RATIO, CMP_BIN_MIN, rule_value(&c->rules, R_ACTIVE_IOPS));
			head = true;
		}
		char l[512];
		buf_printf(out, "  %s ", layer_names[p->layer]);
		esc(out, compare_pair_label(p, CMP_AFTER, l, sizeof l));
		buf_printf(out, " %s vs %s: IOPS p50 ", metric_info[r->spec->metric].label,
			   metric_info[r->spec->load].label);
		text_num(out, lb->load_p50[0]);
		buf_adds(out, " -> ");
		text_num(out, lb->load_p50[1]);
		buf_adds(out, ", p95 ");
		text_num(out, lb->load_p95[0]);
		buf_adds(out, " -> ");
		text_num(out, lb->load_p95[1]);
		buf_adds(out, " IO/s; ");
		const struct cmp_loadmatch *lm = &r->lm;
		if (lm->bins) {
			buf_printf(out, "%d matched bin%s hold ", lm->bins, lm->bins == 1 ? "" : "s");
			share(out, lm->coverage[0]);
			buf_adds(out, " / ");
			share(out, lm->coverage[1]);
			buf_adds(out, " of the active samples");
		} else {
			buf_adds(out, "no matched bin");
		}
		if (!lm->comparable)
			buf_adds(out, ": load differs too much to compare");
		buf_addc(out, '\n');
		for (size_t k = 0; k < lb->nbins; k++) {
			const struct cmp_bin *b = &lb->bins[k];
			if (!b->matched)
				continue;
			buf_adds(out, "    ");
			text_num(out, b->lo);
			buf_adds(out, "-");
			text_num(out, b->hi);
			buf_printf(out, " IO/s: n %zu / %zu, p50 ", b->n[0], b->n[1]);
			text_num(out, b->p50[0]);
			buf_adds(out, " -> ");
			text_num(out, b->p50[1]);
			buf_adds(out, ", p95 ");
			text_num(out, b->p95[0]);
			buf_adds(out, " -> ");
			text_num(out, b->p95[1]);
			buf_printf(out, " %s\n", metric_info[r->spec->metric].unit);
		}
		if (lb->has_slope) {
			buf_adds(out, "    vs outstanding IO: ");
			text_num(out, lb->slope[0]);
			buf_adds(out, " -> ");
			text_num(out, lb->slope[1]);
			buf_adds(out, " ms per outstanding IO (");
			pct(out, lb->slope_change_pct);
			buf_adds(out, ", ");
			pct(out, lb->slope_ci[0]);
			buf_adds(out, " .. ");
			pct(out, lb->slope_ci[1]);
			buf_adds(out, ")\n");
		}
	}
	if (omitted)
		buf_printf(out, "%s  (%zu host-side latency comparisons without a change not listed; see load_bins in --json)\n",
			   head ? "" : "\nLATENCY AT EQUAL LOAD\n", omitted);
}

static void findings_text(const struct compare *c, struct buf *out)
{
	buf_adds(out, "\nFINDINGS (before -> after)\n");
	if (!c->sum.findings_compared) {
		buf_adds(out, "  not compared: a side has no readable capture\n");
		return;
	}
	if (!c->nfd) {
		buf_adds(out, "  none on either side\n");
		return;
	}
	static const enum cmp_fstatus order[3] = {CF_GONE, CF_NEW, CF_STILL};
	for (int o = 0; o < 3; o++) {
		for (size_t k = 0; k < c->nfd; k++) {
			const struct cmp_fdiff *f = &c->fd[k];
			if (f->status != order[o])
				continue;
			size_t s0 = out->len;
			buf_printf(out, "  %s", f->status == CF_GONE ? "gone" : f->status == CF_NEW ? "NEW" : "still present");
			pad(out, s0, 17);
			s0 = out->len;
			buf_adds(out, kinds[f->kind].name);
			pad(out, s0, 31);
			s0 = out->len;
			if (f->host) {
				esc(out, f->host);
				buf_addc(out, ' ');
			}
			esc(out, f->entity);
			pad(out, s0, 24);
			for (int s = 0; s < 2; s++) {
				buf_printf(out, "%s%s: ", s ? "; " : "", cmp_side_names[s]);
				if (!f->count[s]) {
					buf_adds(out, "-");
					continue;
				}
				buf_printf(out, "%d %s (", f->count[s], severity_names[f->worst[s]]);
				duration(out, f->sustained_s[s]);
				buf_addc(out, ')');
			}
			buf_printf(out, "  [%s]\n", f->title);
		}
	}
}

static void only_text(const struct compare *c, struct buf *out)
{
	for (int s = 0; s < 2; s++) {
		size_t n = 0, idle = 0;
		for (size_t i = 0; i < c->npairs; i++) {
			const struct cmp_pair *p = &c->pairs[i];
			if (!p->name[s] || p->name[!s])
				continue;
			if (!pair_shown(p)) {
				idle++;
				continue;
			}
			if (!n++)
				buf_printf(out, "\nONLY %s (not compared)\n", s ? "AFTER" : "BEFORE");
			char l[512];
			buf_printf(out, "  %-8s ", layer_names[p->layer]);
			esc(out, compare_pair_label(p, (enum cmp_side)s, l, sizeof l));
			if (p->host[s] && p->layer != LAYER_GUEST) {
				buf_adds(out, " (");
				esc(out, p->host[s]);
				buf_addc(out, ')');
			}
			if (!isnan(p->load_mean[s])) {
				buf_adds(out, "  mean ");
				text_num(out, p->load_mean[s]);
				buf_adds(out, " IO/s");
			}
			buf_addc(out, '\n');
		}
		if (idle)
			buf_printf(out, "%s  (%zu idle entit%s only %s not listed; see --json)\n",
				   n ? "" : s ? "\nONLY AFTER (not compared)\n" : "\nONLY BEFORE (not compared)\n", idle,
				   idle == 1 ? "y" : "ies", cmp_side_names[s]);
	}
}

void compare_text(const struct compare *c, struct buf *out)
{
	const struct cmp_summary *s = &c->sum;
	buf_printf(out, "iopsy compare: %zu capture%s before, %zu after; %zu comparisons (%d improved, %d regressed, "
			"%d unchanged, %d more, %d less, %d not assessed)\n\n",
		   c->side[0].m.ncaps, c->side[0].m.ncaps == 1 ? "" : "s", c->side[1].m.ncaps, c->nrows,
		   s->verdicts[CV_IMPROVED], s->verdicts[CV_REGRESSED], s->verdicts[CV_UNCHANGED], s->verdicts[CV_HIGHER],
		   s->verdicts[CV_LOWER], s->verdicts[CV_NOT_ASSESSED]);
	buf_adds(out, "VERDICT\n");
	text_wrap(out, "  ", c->verdict ? c->verdict : "", 100);
	buf_adds(out, "\nCAPTURES\n");
	captures_text(&c->side[0].m, "before", out);
	captures_text(&c->side[1].m, "after", out);
	buf_printf(out, "\nCOMPARISONS (change of the median, %.0f%% block bootstrap interval, %u resamples, "
			"seed %llu;\n  a verdict needs the interval to exclude 0 and a change of at least %g%% and the "
			"metric's floor)\n",
		   c->o.confidence * 100, c->o.resamples, (unsigned long long)c->o.seed, c->o.material_pct);
	size_t s0 = out->len;
	buf_adds(out, "  metric");
	pad(out, s0, LABEL_W);
	s0 = out->len;
	buf_adds(out, "before p50/p95/p99/max");
	pad(out, s0, 24);
	s0 = out->len;
	buf_adds(out, "after p50/p95/p99/max");
	pad(out, s0, 24);
	s0 = out->len;
	buf_adds(out, "change");
	pad(out, s0, 8);
	s0 = out->len;
	buf_printf(out, "%.0f%% interval", c->o.confidence * 100);
	pad(out, s0, 20);
	buf_adds(out, "verdict\n");
	size_t hidden = 0, zero = 0;
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if (!p->name[0] || !p->name[1] || !p->nrows)
			continue;
		if (!pair_shown(p)) {
			hidden++;
			continue;
		}
		pair_head(p, out);
		for (size_t r = p->first_row; r < p->first_row + p->nrows; r++) {
			const struct cmp_row *row = &c->rows[r];
			if (row->s[0].max == 0 && row->s[1].max == 0) {
				zero++;
				continue;
			}
			row_text(c, row, out);
		}
	}
	if (hidden || zero)
		buf_printf(out, "\n  (not shown, see --json: %zu idle entities and VMs without virtual disks, %zu metrics "
				"that are 0 throughout on both sides)\n",
			   hidden, zero);
	loadbins_text(c, out);
	findings_text(c, out);
	only_text(c, out);
}

/* ---- JSON ---- */

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
	json_key(j, "before");
	stats_json(r, 0, j);
	json_key(j, "after");
	stats_json(r, 1, j);
	json_key(j, "diff");
	json_num(j, r->diff);
	json_key(j, "ci_diff");
	interval_json(j, r->ci_diff);
	json_key(j, "change_pct");
	json_num(j, r->change_pct);
	json_key(j, "ci");
	interval_json(j, r->ci);
	json_key(j, "floor");
	json_num(j, r->spec->floor);
	json_key(j, "verdict");
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

void compare_json(const struct compare *c, struct json *j)
{
	const struct cmp_summary *s = &c->sum;
	json_obj_begin(j);
	json_key(j, "schema_version");
	json_int(j, COMPARE_SCHEMA_VERSION);
	json_key(j, "tool");
	json_obj_begin(j);
	json_key(j, "name");
	json_str(j, "iopsy");
	json_key(j, "version");
	json_str(j, IOPSY_VERSION);
	json_obj_end(j);
	json_key(j, "verdict");
	json_str(j, c->verdict);
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
	json_key(j, "load_not_comparable");
	json_int(j, s->load_not_comparable);
	json_key(j, "findings_gone");
	json_int(j, s->findings[CF_GONE]);
	json_key(j, "findings_still_present");
	json_int(j, s->findings[CF_STILL]);
	json_key(j, "findings_new");
	json_int(j, s->findings[CF_NEW]);
	json_key(j, "findings_compared");
	json_bool(j, s->findings_compared);
	json_key(j, "bottleneck");
	json_str(j, s->bottleneck > 0 ? "moved_down" : s->bottleneck < 0 ? "moved_up" : NULL);
	json_obj_end(j);
	json_key(j, "method");
	json_obj_begin(j);
	json_key(j, "statistic");
	json_str(j, "median of the downsampled series (bucket means)");
	json_key(j, "bootstrap");
	json_str(j, "circular block bootstrap, Politis-White block length, stratified by load regime, percentile interval");
	json_key(j, "resamples");
	json_int(j, c->o.resamples);
	json_key(j, "seed");
	json_int(j, (long long)c->o.seed);
	json_key(j, "confidence");
	json_num(j, c->o.confidence);
	json_key(j, "material_pct");
	json_num(j, c->o.material_pct);
	json_key(j, "bin_ratio");
	json_num(j, CMP_BIN_RATIO);
	json_key(j, "bin_min_values");
	json_int(j, CMP_BIN_MIN);
	json_key(j, "min_coverage");
	json_num(j, CMP_MIN_COVERAGE);
	json_key(j, "active_min_iops");
	json_num(j, rule_value(&c->rules, R_ACTIVE_IOPS));
	json_obj_end(j);
	json_key(j, "before");
	captures_json(&c->side[0].m, j);
	json_key(j, "after");
	captures_json(&c->side[1].m, j);
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
	json_key(j, "findings_diff");
	json_arr_begin(j);
	for (size_t k = 0; k < c->nfd; k++) {
		const struct cmp_fdiff *f = &c->fd[k];
		json_obj_begin(j);
		json_key(j, "kind");
		json_str(j, kinds[f->kind].name);
		json_key(j, "title");
		json_str(j, f->title);
		json_key(j, "layer");
		json_str(j, layer_names[f->layer]);
		json_key(j, "entity");
		json_str(j, f->entity);
		json_key(j, "host");
		json_str(j, f->host);
		json_key(j, "status");
		json_str(j, cmp_fstatus_names[f->status]);
		for (int sd = 0; sd < 2; sd++) {
			json_key(j, cmp_side_names[sd]);
			json_obj_begin(j);
			json_key(j, "count");
			json_int(j, f->count[sd]);
			json_key(j, "worst_severity");
			json_str(j, f->worst[sd] >= 0 ? severity_names[f->worst[sd]] : NULL);
			json_key(j, "sustained_s");
			json_num(j, round(f->sustained_s[sd] * 10) / 10);
			json_obj_end(j);
		}
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_end(j);
}
