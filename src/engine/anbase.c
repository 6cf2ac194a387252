/* anbase.c — the analysis's small helpers that the detectors, the verdict, the shared-resource
 * and SQL views use as well as analysis.c (declared in analysis.h): the finding allocator, the
 * arena printf, the topology input, the clock and Hyper-V questions, the share below the HBA.
 * They sit below analysis.c so that no engine module calls back into the one that calls it. */
#include "analysis.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>
#include <strings.h>

const char *const severity_names[3] = {"info", "warning", "critical"};
const char *const severity_upper[3] = {"INFO", "WARNING", "CRITICAL"};
const char *const severity_titles[3] = {"Info", "Warning", "Critical"};

const char *afmt(struct analysis *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = arena_vprintf(&a->arena, fmt, ap);
	va_end(ap);
	return s;
}

const char *const input_state_names[IN_STATES] = {"applied", "agreed", "contradicted", "named nothing",
						   "not applied"};

void input_said(struct analysis *a, const char *option, const char *file, long line, enum input_state st,
		const char *fmt, ...)
{
	if (a->ninputs >= ANALYSIS_MAX_INPUTS) {
		a->inputs_more++;
		return;
	}
	if (!a->inputs)
		a->inputs = xcalloc(ANALYSIS_MAX_INPUTS, sizeof *a->inputs);
	va_list ap;
	va_start(ap, fmt);
	char *t = arena_vprintf(&a->arena, fmt, ap);
	va_end(ap);
	a->inputs[a->ninputs++] = (struct input_said){option, file ? arena_strdup(&a->arena, file) : NULL, line, st, t};
}

struct finding *finding_new(struct analysis *a, enum kind kind, enum severity sev, enum layer l,
			    const char *entity, const char *host)
{
	if (a->nf == a->capf) {
		a->capf = a->capf ? a->capf * 2 : 32;
		a->f = xrealloc(a->f, a->capf * sizeof *a->f);
	}
	struct finding *f = &a->f[a->nf++];
	memset(f, 0, sizeof *f);
	f->kind = kind;
	f->sev = sev;
	f->layer = l;
	f->entity = arena_strdup(&a->arena, entity);
	f->host = host ? arena_strdup(&a->arena, host) : NULL;
	f->capture = -1;
	f->ent = -1;
	f->advice = "";
	f->driver_share = NAN;
	return f;
}

struct topo_in analysis_topo(const struct analysis *a)
{
	return (struct topo_in){.m = &a->m, .map = a->map, .nmap = a->nmap, .f = a->f, .nf = a->nf, .iop = &a->iop};
}

bool analysis_clock_untrusted(const struct analysis *a, size_t capture)
{
	return a->clock_untrusted && capture < a->m.ncaps && a->clock_untrusted[capture];
}

double below_hba_share(const struct analysis *a, const struct finding *f, const struct stack *st, double *davg)
{
	*davg = NAN;
	const struct entity *d = st->device;
	if (!d || d->nfs || d->series[M_DAVG] < 0 || !f->nev || !(f->ev[0].median > 0))
		return NAN;
	const struct capture *c = &a->m.caps[d->capture];
	double sum = 0;
	long n = 0;
	for (size_t k = 0; k < c->ds.nb; k++) {
		int64_t t = model_time(&a->m, c, k);
		if (t < f->start || t > f->end)
			continue;
		double v = ds_mean(&c->ds, (size_t)d->series[M_DAVG], k);
		if (!isnan(v))
			sum += v, n++;
	}
	if (!n)
		return NAN;
	*davg = sum / (double)n;
	return *davg / f->ev[0].median;
}

bool analysis_hyperv(const struct analysis *a)
{
	bool hv = false;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (c->failed || !c->format || c->role != ROLE_HOST)
			continue;
		if (!model_hyperv(&a->m, i))
			return false;
		hv = true;
	}
	return hv;
}

bool analysis_guest_captured(const struct analysis *a, const char *name)
{
	for (size_t i = 0; name && i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (!c->failed && c->role == ROLE_GUEST && c->host && strcasecmp(c->host, name) == 0)
			return true;
	}
	return false;
}
