/* doc_compare.c — a comparison's own sections as the report document's blocks (doc.h): the
 * findings before and after (a row per finding with each side's windows, worst severity and time
 * held) and each side's overridden rules. doc_of_compare (doc_analysis.c) calls each builder of
 * its table; a new section of a comparison is one builder there and its blocks. */
#include "doc.h"



void doc_compare_findings(const struct compare *c, struct doc *d)
{
	static const char *const head[FDC_COUNT + 1] = {"status",
							"status code",
							"rule id",
							"finding",
							"kind",
							"why not assessed",
							"host",
							"entity",
							"windows before",
							"worst before",
							"worst before code",
							"sustained before (s)",
							"windows after",
							"worst after",
							"worst after code",
							"sustained after (s)",
							"layer",
							NULL};
	const char *cap = !c->sum.findings_compared ? "not compared: a side has no readable capture"
			  : !c->nfd                 ? "none on either side"
						    : NULL;
	struct doc_block *t = doc_table(d, DS_FINDINGS, cap, head);
	t->role = ROLE_FDIFF;
	for (size_t i = 0; i < c->nfd; i++) {
		const struct cmp_fdiff *f = &c->fd[i];
		doc_row(t);
		doc_cell_text(t, cmp_fstatus_words[f->status]);
		doc_cell_num(t, f->status);
		doc_cell_text(t, kinds[f->kind].name);
		doc_cell_text(t, f->title);
		doc_cell_text(t, kinds[f->kind].title);
		if (f->why)
			doc_cell_text(t, f->why);
		else
			doc_cell_none(t);
		if (f->host)
			doc_cell_text(t, f->host);
		else
			doc_cell_none(t);
		doc_cell_text(t, f->entity);
		for (int s = 0; s < 2; s++) {
			doc_cell_num(t, f->count[s]);
			if (f->worst[s] >= 0)
				doc_cell_text(t, severity_names[f->worst[s]]);
			else
				doc_cell_none(t);
			doc_cell_num(t, f->worst[s]);
			doc_cell_num(t, f->sustained_s[s]);
		}
		doc_cell_text(t, layer_names[f->layer]);
	}
}

void doc_compare_rules(const struct compare *c, struct doc *d)
{
	for (int s = 0; s < 2; s++) {
		struct rule_override o[RULES_MAX_OVERRIDES];
		size_t n = rules_overrides(&c->side[s].rules, o, RULES_MAX_OVERRIDES);
		if (!n)
			continue;
		struct doc_block *b = doc_block(d, DS_RULES, BLK_LIST, ROLE_SIDE_RULES, 1);
		b->text = xstrdup(cmp_side_names[s]);
		struct buf line;
		buf_init(&line);
		for (size_t i = 0; i < n && i < RULES_MAX_OVERRIDES; i++) {
			buf_reset(&line);
			rules_override_text(&c->side[s].rules, &o[i], &line);
			doc_row(b);
			doc_cell_text(b, line.data);
		}
		buf_free(&line);
	}
}

/* ---- how the writers lay them out (text and Markdown; the HTML's is html_compare.c's) ---- */

static const struct doc_cell *fcell(const struct doc_block *t, size_t r, int k)
{
	return &t->cell[r * (size_t)t->ncols + (size_t)k];
}

const char *doc_fdiff_s(const struct doc_block *t, size_t r, int k)
{
	const struct doc_cell *c = fcell(t, r, k);
	return c->t == CELL_TEXT ? c->s : NULL;
}

double doc_fdiff_v(const struct doc_block *t, size_t r, int k) { return fcell(t, r, k)->v; }

const struct doc_block *doc_role(const struct doc *d, enum doc_sec s, enum block_role r)
{
	for (size_t i = 0; i < d->sec[s].nb; i++)
		if (d->sec[s].b[i].role == r)
			return &d->sec[s].b[i];
	return NULL;
}
