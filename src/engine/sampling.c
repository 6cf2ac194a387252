/* sampling.c — what the sampling interval lets the analysis say (issue 36). A rule holds for a
 * duration (sustain.seconds, rules_sustain_samples); a capture whose rows are longer than that
 * cannot show an episode shorter than a row, nor a queue that is point-sampled once per row
 * (ACTV, QUED, Current Disk Queue Length), and a finding made of one such row cannot tell how long
 * within the row it lasted. The coverage and the findings say so. */
#include "analysis.h"

#include <math.h>
#include <string.h>

static bool coarse(const struct analysis *a, const struct capture *c)
{
	return !c->failed && c->interval_s > rule_value(&a->rules, R_SUSTAIN_SECONDS);
}

/* A finding that is one coarse row says so. */
static void one_row_notes(struct analysis *a)
{
	for (size_t i = 0; i < a->nf; i++) {
		struct finding *f = &a->f[i];
		if (f->capture < 0 || (size_t)f->capture >= a->m.ncaps)
			continue;
		const struct capture *c = &a->m.caps[f->capture];
		if (!coarse(a, c) || f->sustained_s > 1.5 * c->interval_s || !f->summary)
			continue;
		f->summary =
			afmt(a,
			     "%s; one row of %.0f s: its mean is at least %g times the threshold, and the sampling "
			     "(%.0f s) cannot tell how long within the row",
			     f->summary, c->interval_s, rule_value(&a->rules, R_COARSE_FACTOR), c->interval_s);
	}
}

/* The coverage's sampling line, on the layers each coarse capture assesses. */
static void coverage_lines(struct analysis *a)
{
	for (size_t ci = 0; ci < a->m.ncaps; ci++) {
		const struct capture *c = &a->m.caps[ci];
		if (!coarse(a, c) || !c->format)
			continue;
		const char *line =
			afmt(a,
			     "sampling: %s has one row every %.0f s, longer than the %g s a rule must hold: "
			     "episodes shorter than a row and the point-sampled queues (%s, one instant per "
			     "row) are not assessed; a row far above a latency threshold is a finding that "
			     "says so",
			     c->host ? c->host : "a capture", c->interval_s, rule_value(&a->rules, R_SUSTAIN_SECONDS),
			     c->role == ROLE_HOST ? "ACTV, QUED" : "Current Disk Queue Length");
		for (int l = 0; l < COV_LAYERS; l++) {
			/* said once per capture: on the device layer of a host, the guest layer of a guest */
			bool mine = l == (c->role == ROLE_HOST ? LAYER_DEVICE : LAYER_GUEST);
			struct layer_cov *lc = &a->cov.layer[l];
			if (!mine || lc->status == COV_NOT_ASSESSED || (lc->why && strstr(lc->why, line)))
				continue;
			lc->why = lc->why && *lc->why ? afmt(a, "%s; %s", lc->why, line) : line;
		}
	}
}

void analysis_sampling(struct analysis *a, bool findings)
{
	if (findings)
		one_row_notes(a);
	else
		coverage_lines(a);
}
