/* iopath_int.h — private to iopath.c and iopath_calc.c: the sums of a Pearson r. */
#ifndef IOPSY_IOPATH_INT_H
#define IOPSY_IOPATH_INT_H

#include <math.h>

#include "iopath.h"

/* Sums for a Pearson r over pairs of values (NaN pairs left out). */
struct corr_acc {
	double sx, sy, sxx, syy, sxy;
	size_t n;
};

static inline void acc_add(struct corr_acc *c, double u, double v)
{
	if (isnan(u) || isnan(v))
		return;
	c->sx += u;
	c->sy += v;
	c->sxx += u * u;
	c->syy += v * v;
	c->sxy += u * v;
	c->n++;
}

/* r, NaN with fewer than 8 pairs or no variance on a side. */
static inline double acc_r(const struct corr_acc *c)
{
	if (c->n < 8)
		return NAN;
	double n = (double)c->n;
	double cov = c->sxy - c->sx * c->sy / n, vx = c->sxx - c->sx * c->sx / n, vy = c->syy - c->sy * c->sy / n;
	if (vx <= 1e-12 * (c->sxx + 1) || vy <= 1e-12 * (c->syy + 1))
		return NAN;
	return cov / sqrt(vx * vy);
}

#endif
