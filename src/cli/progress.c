/* progress.c — the stderr progress line and diagnostics sink of the CLI (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

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

static void *hook_start(void *ctx, const char *name, bool enabled)
{
	(void)ctx;
	struct progress *p = xmalloc(sizeof *p);
	progress_init(p, name, enabled);
	return p;
}

static void hook_done(void *state)
{
	progress_done(state);
	free(state);
}

const struct progress_hooks progress_stderr_hooks = {
	.start = hook_start,
	.update = progress_update,
	.done = hook_done,
};

void status_line(void *ctx, const char *line)
{
	bool *shown = ctx;
	if (!line) {
		if (*shown)
			fputs("\r\033[K", stderr);
		*shown = false;
		return;
	}
	fputs(line, stderr);
	fflush(stderr);
	*shown = true;
}

struct diag_sink diag_stderr(void)
{
	return (struct diag_sink){.fn = diag_sink_file, .ctx = stderr};
}
