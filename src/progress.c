/* progress.c — stderr progress line (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void progress_init(struct progress *p, const char *name, bool enabled)
{
	p->on = enabled && isatty(2);
	p->shown = false;
	p->name = name;
	p->t0 = p->last = now_seconds();
}

void progress_update(void *ctx, int64_t done, int64_t total)
{
	struct progress *p = ctx;
	if (!p->on)
		return;
	double t = now_seconds();
	if (t - p->last < 0.25 || t - p->t0 < 0.5)
		return;
	p->last = t;
	double el = t - p->t0, mb = (double)done / 1e6, rate = el > 0 ? mb / el : 0;
	struct buf b;
	buf_init(&b);
	buf_adds(&b, "\riopsy: ");
	buf_add_text_escaped(&b, p->name, __builtin_strlen(p->name));
	if (total > 0) {
		double left = rate > 0 ? ((double)total / 1e6 - mb) / rate : 0;
		buf_printf(&b, "  %.1f of %.1f MB (%.0f%%)  %.1f MB/s  %d:%02d left\033[K", mb, (double)total / 1e6,
			   100.0 * (double)done / (double)total, rate, (int)left / 60, (int)left % 60);
	} else {
		buf_printf(&b, "  %.1f MB  %.1f MB/s  %d:%02d elapsed\033[K", mb, rate, (int)el / 60, (int)el % 60);
	}
	fputs(b.data, stderr);
	fflush(stderr);
	buf_free(&b);
	p->shown = true;
}

void progress_done(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		fflush(stderr);
	}
	p->shown = false;
}
