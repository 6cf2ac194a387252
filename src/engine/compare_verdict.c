/* compare_verdict.c — what a comparison concludes: findings gone / still present / new (each
 * side's analysis, entity names translated through the matching) and the verdict paragraph. */
#include "compare_int.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- findings ---- */

/* The after-side name of a before-side finding's entity (renamed through --match-map, or on
 * another host after the VM moved). */
static void translate(const struct compare *c, const struct finding *f, const char **entity, const char **host)
{
	*entity = f->entity;
	*host = f->host;
	for (size_t i = 0; i < c->npairs; i++) {
		const struct cmp_pair *p = &c->pairs[i];
		if (!(p->mapped || p->by_name) || !p->name[0] || !p->name[1] || strcmp(p->name[0], f->entity) != 0 ||
		    !cmp_host_same(p->host[0], f->host))
			continue;
		*entity = p->name[1];
		*host = p->host[1];
		if (p->layer == f->layer)
			return;
	}
}

void cmp_findings_diff(struct compare *c)
{
	for (int s = 0; s < 2; s++) {
		const struct analysis *a = &c->side[s];
		for (size_t i = 0; i < a->nf; i++) {
			const struct finding *f = &a->f[i];
			const char *e = f->entity, *h = f->host;
			if (s == 0)
				translate(c, f, &e, &h);
			size_t k = 0;
			for (; k < c->nfd; k++)
				if (c->fd[k].kind == f->kind && strcmp(c->fd[k].entity, e) == 0 && cmp_host_same(c->fd[k].host, h))
					break;
			if (k == c->nfd) {
				c->fd = xrealloc(c->fd, (c->nfd + 1) * sizeof *c->fd);
				struct cmp_fdiff *d = &c->fd[c->nfd++];
				memset(d, 0, sizeof *d);
				d->kind = f->kind;
				d->title = kinds[f->kind].title;
				d->layer = f->layer;
				d->entity = e;
				d->host = h;
				d->worst[0] = d->worst[1] = -1;
			}
			struct cmp_fdiff *d = &c->fd[k];
			d->count[s]++;
			if ((int)f->sev > d->worst[s])
				d->worst[s] = (int)f->sev;
			d->sustained_s[s] += f->sustained_s;
			if (s == 1) {
				d->entity = f->entity;
				d->host = f->host;
			}
		}
	}
	for (size_t k = 0; k < c->nfd; k++) {
		struct cmp_fdiff *d = &c->fd[k];
		d->status = d->count[0] && d->count[1] ? CF_STILL : d->count[0] ? CF_GONE : CF_NEW;
	}
}

/* ---- verdict paragraph ---- */

static void fnum(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "-");
	else if (fabs(v) >= 1000)
		buf_printf(b, "%.0f", v);
	else if (fabs(v) >= 100 || v == floor(v))
		buf_printf(b, "%.0f", v);
	else if (fabs(v) >= 10)
		buf_printf(b, "%.1f", v);
	else
		buf_printf(b, "%.2g", v);
}

static void fpct(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "n/a");
	else if (fabs(v) >= 10)
		buf_printf(b, "%+.0f%%", v);
	else
		buf_printf(b, "%+.1f%%", v);
}

static const char *entity_label(const struct compare *c, const struct cmp_row *r, char *out, size_t cap)
{
	return compare_pair_label(&c->pairs[r->pair], CMP_AFTER, out, cap);
}

/* "SQL01 D: Avg. Disk sec/Read -95% (median 119 -> 6.4 ms, 95% CI -96% .. -94%)" */
static void describe_row(const struct compare *c, const struct cmp_row *r, struct buf *b)
{
	char l[512];
	buf_printf(b, "%s %s ", entity_label(c, r, l, sizeof l), metric_info[r->spec->metric].label);
	fpct(b, r->change_pct);
	buf_adds(b, " (median ");
	fnum(b, r->s[0].median);
	buf_adds(b, " -> ");
	fnum(b, r->s[1].median);
	buf_printf(b, " %s, %.0f%% CI ", metric_info[r->spec->metric].unit, c->o.confidence * 100);
	if (!isnan(r->ci[0])) {
		fpct(b, r->ci[0]);
		buf_adds(b, " .. ");
		fpct(b, r->ci[1]);
	} else {
		fnum(b, r->ci_diff[0]);
		buf_adds(b, " .. ");
		fnum(b, r->ci_diff[1]);
		buf_printf(b, " %s", metric_info[r->spec->metric].unit);
	}
	/* a regression that vanishes at equal load comes with the extra work (DOMAIN 6) */
	if (r->verdict == CV_REGRESSED && r->has_lm && r->lm.comparable && r->lm.verdict == CV_UNCHANGED)
		buf_adds(b, "; unchanged at equal load, so it comes with the higher load");
	buf_addc(b, ')');
}

static double pair_load(const struct cmp_pair *p)
{
	double l = 0;
	for (int s = 0; s < 2; s++)
		if (!isnan(p->load_mean[s]))
			l += p->load_mean[s];
	return l;
}

/* Upper layers first (what the guest sees), then the busiest entity, then table order (reads
 * before writes). */
static int row_rank_cmp(const struct compare *c, const struct cmp_row *a, const struct cmp_row *b)
{
	const struct cmp_pair *pa = &c->pairs[a->pair], *pb = &c->pairs[b->pair];
	int ra = cmp_layer_rank(pa->layer), rb = cmp_layer_rank(pb->layer);
	if (ra != rb)
		return ra - rb;
	if (a->pair != b->pair) {
		double la = pair_load(pa), lb = pair_load(pb);
		if (la != lb)
			return la > lb ? -1 : 1;
		return a->pair < b->pair ? -1 : 1;
	}
	return (a->spec > b->spec) - (a->spec < b->spec);
}

/* Up to max latency rows with verdict v, the most telling first (upper layers, larger changes). */
static size_t top_rows(const struct compare *c, enum cmp_verdict v, bool latency_only, const struct cmp_row **out, size_t max)
{
	size_t n = 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		if (r->verdict != v || (latency_only && r->spec->kind != CK_LATENCY))
			continue;
		size_t k = n < max ? n++ : max;
		if (k == max) {
			if (row_rank_cmp(c, r, out[max - 1]) >= 0)
				continue;
			k = max - 1;
		}
		while (k > 0 && row_rank_cmp(c, r, out[k - 1]) < 0) {
			out[k] = out[k - 1];
			k--;
		}
		out[k] = r;
	}
	return n;
}

static const struct cmp_row *find_row(const struct compare *c, size_t pair, enum metric m)
{
	const struct cmp_pair *p = &c->pairs[pair];
	for (size_t i = p->first_row; i < p->first_row + p->nrows; i++)
		if (c->rows[i].spec->metric == m)
			return &c->rows[i];
	return NULL;
}

static bool is_symptom(enum kind k)
{
	return kinds[k].place == VP_GUEST_LATENCY;
}

/* "title (HOST e1, e2): status" groups: places of waiting first, then symptoms (guest latency),
 * each in detector order; entities sorted by host and name. */
static void list_findings(const struct compare *c, enum cmp_fstatus st, struct buf *b, int *groups)
{
	size_t *ix = xmalloc((c->nfd ? c->nfd : 1) * sizeof *ix);
	for (int pass = 0; pass < 2; pass++) {
		for (int kd = 0; kd < K_COUNT; kd++) {
			const struct kind_info *d = &kinds[kd];
			if (is_symptom((enum kind)kd) != (pass == 1))
				continue;
			size_t n = 0;
			for (size_t k = 0; k < c->nfd; k++) {
				const struct cmp_fdiff *f = &c->fd[k];
				if (f->status != st || f->kind != (enum kind)kd)
					continue;
				size_t j = n++;
				for (; j > 0; j--) {
					const struct cmp_fdiff *g = &c->fd[ix[j - 1]];
					int o = strcmp(g->host ? g->host : "", f->host ? f->host : "");
					if (o < 0 || (o == 0 && strcmp(g->entity, f->entity) <= 0))
						break;
					ix[j] = ix[j - 1];
				}
				ix[j] = k;
			}
			if (!n)
				continue;
			buf_printf(b, "%s%s (", *groups ? "; " : "", d->title);
			(*groups)++;
			const char *last = NULL;
			for (size_t i = 0; i < n; i++) {
				const struct cmp_fdiff *f = &c->fd[ix[i]];
				if (i)
					buf_adds(b, ", ");
				bool show_host = f->host && (f->layer == LAYER_GUEST || f->layer == LAYER_VSCSI);
				if (show_host && (!last || !cmp_host_same(last, f->host)))
					buf_printf(b, "%s ", f->host);
				last = show_host ? f->host : NULL;
				buf_adds(b, f->entity);
			}
			buf_printf(b, "): %s", st == CF_GONE ? "gone" : st == CF_NEW ? "new" : "still present");
		}
	}
	free(ix);
}

static const struct cmp_loadbins *bins_of_row(const struct compare *c, const struct cmp_row *r)
{
	for (size_t i = 0; i < c->nlb; i++)
		if (&c->rows[c->lb[i].row] == r)
			return &c->lb[i];
	return NULL;
}

int cmp_readable_caps(const struct model *m)
{
	int n = 0;
	for (size_t i = 0; i < m->ncaps; i++)
		n += !m->caps[i].failed;
	return n;
}

/* The LSI -> PVSCSI shape: the guest's latency improved and only layers below it got worse. */
static bool guest_better_host_worse(const struct compare *c, const struct cmp_row *const *imp, size_t ni,
				    const struct cmp_row *const *reg, size_t nr)
{
	bool guest = false;
	for (size_t i = 0; i < ni; i++)
		guest |= c->pairs[imp[i]->pair].layer == LAYER_GUEST;
	for (size_t i = 0; i < nr; i++)
		if (c->pairs[reg[i]->pair].layer == LAYER_GUEST)
			return false;
	return guest;
}

void cmp_summarise(struct compare *c)
{
	struct cmp_summary *s = &c->sum;
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < c->nrows; i++) {
		const struct cmp_row *r = &c->rows[i];
		s->verdicts[r->verdict]++;
		if (r->spec->kind == CK_LATENCY) {
			s->latency[r->verdict]++;
			if (r->has_lm && !r->lm.comparable && r->verdict != CV_NOT_ASSESSED)
				s->load_not_comparable++;
		}
	}
	for (size_t k = 0; k < c->nfd; k++)
		s->findings[c->fd[k].status]++;
	s->findings_compared = cmp_readable_caps(&c->side[0].m) && cmp_readable_caps(&c->side[1].m);
	/* where the places of waiting went: the topmost layer of gone vs new findings */
	int top_gone = 99, top_new = 99;
	for (size_t k = 0; k < c->nfd; k++) {
		const struct cmp_fdiff *f = &c->fd[k];
		if (is_symptom(f->kind) || f->layer == LAYER_VM)
			continue;
		int r = cmp_layer_rank(f->layer);
		if (f->status == CF_GONE && r < top_gone)
			top_gone = r;
		if (f->status == CF_NEW && r < top_new)
			top_new = r;
	}
	if (top_gone < 99 && top_new < 99)
		s->bottleneck = top_new > top_gone ? 1 : top_new < top_gone ? -1 : 0;

	struct buf b;
	buf_init(&b);
	const struct cmp_row *imp[3], *reg[3];
	size_t ni = top_rows(c, CV_IMPROVED, true, imp, 3), nr = top_rows(c, CV_REGRESSED, true, reg, 3);
	double conf = c->o.confidence * 100;
	if (ni && !nr)
		buf_adds(&b, "After the change IO waits less: ");
	else if (nr && !ni)
		buf_adds(&b, "After the change IO waits longer: ");
	else if (ni && nr && guest_better_host_worse(c, imp, ni, reg, nr))
		buf_adds(&b, "After the change the guest waits far less (what the application feels), while latency "
			     "below the guest rose. Better: ");
	else if (ni && nr)
		buf_adds(&b, "Mixed result: latency improved in places and regressed in others. Better: ");
	if (ni) {
		for (size_t i = 0; i < ni; i++) {
			if (i)
				buf_adds(&b, "; ");
			describe_row(c, imp[i], &b);
		}
		buf_addc(&b, '.');
	}
	if (nr) {
		buf_adds(&b, ni ? " Worse: " : "");
		for (size_t i = 0; i < nr; i++) {
			if (i)
				buf_adds(&b, "; ");
			describe_row(c, reg[i], &b);
		}
		buf_addc(&b, '.');
	}
	int readable[2] = {cmp_readable_caps(&c->side[0].m), cmp_readable_caps(&c->side[1].m)};
	if (!readable[0] || !readable[1]) {
		buf_printf(&b, "Nothing to compare: no capture of the %s side could be read.",
			   !readable[0] && !readable[1] ? "before or the after" : !readable[0] ? "before" : "after");
	} else if (!ni && !nr) {
		if (s->latency[CV_UNCHANGED])
			buf_printf(&b, "No material change in latency: every assessed latency comparison (%d) is unchanged "
				       "(the %.0f%% interval of the median difference contains 0, or the change is below "
				       "%g%% or its absolute floor).",
				   s->latency[CV_UNCHANGED], conf, c->o.material_pct);
		else
			buf_adds(&b, "No latency could be compared: no busy entity has latency values on both sides.");
	}
	/* the work done, for the headline entity */
	const struct cmp_row *head = ni ? imp[0] : nr ? reg[0] : NULL;
	if (head) {
		const struct cmp_pair *p = &c->pairs[head->pair];
		const struct cmp_metric_spec *sp = head->spec;
		const struct cmp_row *io = sp->load >= 0 ? find_row(c, head->pair, (enum metric)sp->load) : NULL;
		if (io && io->verdict != CV_NOT_ASSESSED && io->s[0].median > 0) {
			char l[512];
			compare_pair_label(p, CMP_AFTER, l, sizeof l);
			bool more = io->verdict == CV_HIGHER, less = io->verdict == CV_LOWER;
			buf_printf(&b, " The after side did %s (%s, median ", more ? "more work" : less ? "less work" : "about the same work", l);
			fnum(&b, io->s[0].median);
			buf_adds(&b, " -> ");
			fnum(&b, io->s[1].median);
			buf_adds(&b, " IO/s");
			if (more || less)
				buf_printf(&b, ", %.1fx", io->s[1].median / io->s[0].median);
			buf_addc(&b, ')');
			if ((more && head->verdict == CV_IMPROVED) || (less && head->verdict == CV_REGRESSED))
				buf_printf(&b, ": %s latency at %s load, so the amount of work does not explain the change.",
					   head->verdict == CV_IMPROVED ? "lower" : "higher", more ? "higher" : "lower");
			else if (more || less)
				buf_adds(&b, ", which may explain part of the change: see latency at equal load.");
			else
				buf_addc(&b, '.');
			const struct cmp_loadbins *lb = bins_of_row(c, head);
			if (head->has_lm && lb) {
				const struct cmp_loadmatch *lm = &head->lm;
				if (lm->comparable) {
					buf_printf(&b, " At equal load (%d IOPS bin%s, ", lm->bins, lm->bins == 1 ? "" : "s");
					fnum(&b, lm->load_lo);
					buf_adds(&b, "-");
					fnum(&b, lm->load_hi);
					buf_adds(&b, " IO/s");
					if (lm->load_hi <= lb->load_p50[0] && lm->load_hi <= lb->load_p50[1]) {
						buf_adds(&b, ", below both sides' median load of ");
						fnum(&b, lb->load_p50[0]);
						buf_adds(&b, " and ");
						fnum(&b, lb->load_p50[1]);
						buf_adds(&b, " IO/s");
					}
					buf_adds(&b, ") the change is ");
					fpct(&b, lm->change_pct);
					buf_printf(&b, " (%.0f%% CI ", conf);
					fpct(&b, lm->ci[0]);
					buf_adds(&b, " .. ");
					fpct(&b, lm->ci[1]);
					buf_printf(&b, "): %s", cmp_verdict_names[lm->verdict]);
					if (lm->reason == CR_BELOW_FLOOR)
						buf_printf(&b, " (the difference is below the %g ms floor)", sp->floor);
					else if (lm->reason == CR_BELOW_PCT)
						buf_printf(&b, " (less than %g%%)", c->o.material_pct);
					if (lm->verdict == CV_UNCHANGED && head->verdict != CV_UNCHANGED &&
					    lm->load_hi <= lb->load_p50[0] && lm->load_hi <= lb->load_p50[1])
						buf_adds(&b, " - the difference is made at the higher loads, where the two sides "
							     "do not overlap");
					buf_addc(&b, '.');
				} else {
					buf_printf(&b, " The load differs too much to compare latency at equal load (%s).", lm->note);
				}
			}
		}
	}
	/* findings */
	if (!readable[0] || !readable[1]) {
		buf_adds(&b, " Findings cannot be compared without a readable capture of each side.");
	} else if (c->nfd) {
		buf_adds(&b, " Findings: ");
		int groups = 0;
		list_findings(c, CF_GONE, &b, &groups);
		list_findings(c, CF_NEW, &b, &groups);
		if (s->bottleneck > 0)
			buf_adds(&b, " - the bottleneck moved down a layer");
		else if (s->bottleneck < 0)
			buf_adds(&b, " - the bottleneck moved up a layer");
		if (!s->findings[CF_NEW] && s->findings[CF_GONE])
			buf_printf(&b, "%sno new finding", groups ? "; " : "");
		list_findings(c, CF_STILL, &b, &groups);
		buf_addc(&b, '.');
	} else {
		buf_adds(&b, " No findings on either side.");
	}
	/* DOMAIN.md 6: device latency does not improve by itself and may rise as deeper guest queues
	 * push more IO down */
	bool guest_better = false;
	for (size_t i = 0; i < c->nrows; i++)
		if (c->rows[i].verdict == CV_IMPROVED && c->pairs[c->rows[i].pair].layer == LAYER_GUEST &&
		    c->rows[i].spec->kind == CK_LATENCY)
			guest_better = true;
	if (guest_better) {
		for (size_t i = 0; i < c->nrows; i++) {
			const struct cmp_row *r = &c->rows[i];
			if (r->verdict == CV_REGRESSED && r->spec->kind == CK_LATENCY &&
			    (c->pairs[r->pair].layer == LAYER_DEVICE || c->pairs[r->pair].layer == LAYER_ADAPTER)) {
				buf_adds(&b, " Device latency rose while the guest's fell: ");
				describe_row(c, r, &b);
				buf_adds(&b, " - the deeper guest queue now pushes more IO down to the device and array; "
					     "check the array before raising queue depths further.");
				if (!s->bottleneck)
					s->bottleneck = 1;
				break;
			}
		}
	}
	bool guest = false;
	for (size_t i = 0; i < c->npairs && !guest; i++)
		guest = c->pairs[i].layer == LAYER_GUEST;
	if (!guest && readable[0] && readable[1])
		buf_adds(&b, " Only host captures were compared: IOs waiting inside the guest, above the virtual SCSI "
			     "controller, do not show in esxtop - add the guests' perfmon captures of both periods.");
	int assessed = 0;
	for (int v = 0; v < CV_COUNT; v++)
		if (v != CV_NOT_ASSESSED)
			assessed += s->verdicts[v];
	buf_printf(&b, " Of %d assessed comparisons: %d improved, %d regressed, %d unchanged, %d more/%d less "
		       "(work or queue occupancy, neither better nor worse); %d not assessed.",
		   assessed, s->verdicts[CV_IMPROVED], s->verdicts[CV_REGRESSED], s->verdicts[CV_UNCHANGED],
		   s->verdicts[CV_HIGHER], s->verdicts[CV_LOWER], s->verdicts[CV_NOT_ASSESSED]);
	c->verdict = arena_strndup(&c->arena, b.data ? b.data : "", b.len);
	buf_free(&b);
}
