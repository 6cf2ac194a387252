/* input.c — opening captures: source, reader, diagnostics and progress hooks (see input.h). */
#include "input.h"

#include <stdlib.h>
#include <string.h>

void common_opts_init(struct common_opts *co)
{
	memset(co, 0, sizeof *co);
	co->max_warnings = 20;
}

int parse_tz(const char *s, int *bias_min)
{
	if (strncmp(s, "UTC", 3) == 0 || strncmp(s, "GMT", 3) == 0)
		s += 3;
	if (!*s || strcmp(s, "Z") == 0) {
		*bias_min = 0;
		return 0;
	}
	int sign;
	if (*s == '+')
		sign = 1;
	else if (*s == '-')
		sign = -1;
	else
		return ERR_USAGE;
	s++;
	int h = 0, m = 0, nd = 0;
	while (*s >= '0' && *s <= '9' && nd < 2) {
		h = h * 10 + (*s++ - '0');
		nd++;
	}
	if (nd == 0)
		return ERR_USAGE;
	if (*s == ':')
		s++;
	if (*s) {
		if (!(s[0] >= '0' && s[0] <= '5' && s[1] >= '0' && s[1] <= '9' && !s[2]))
			return ERR_USAGE;
		m = (s[0] - '0') * 10 + (s[1] - '0');
	}
	if (h > 14)
		return ERR_USAGE;
	/* local = UTC + offset  ⇒  UTC = local − offset ⇒ bias = −offset */
	*bias_min = -sign * (h * 60 + m);
	return 0;
}

static void progress_end(struct input *in)
{
	if (in->pg && in->ph->done)
		in->ph->done(in->pg);
	in->pg = NULL;
}

/* Opens the reader over an opened source (progress hooks, format options); closes the source on
 * error. */
static int open_reader(struct input *in, const struct common_opts *co)
{
	in->ph = co->progress;
	if (in->ph && in->ph->start) {
		in->pg = in->ph->start(in->ph->ctx, in->diag.file, !co->quiet);
		if (in->pg) {
			in->src.progress = in->ph->update;
			in->src.progress_ctx = in->pg;
		}
	}
	struct pdh_options o = {
		.format = co->format,
		.tz_bias_min = co->tz_bias_min,
		.tz_given = co->tz_given,
		.tz = co->tz,
		.max_warnings = co->max_warnings,
		.threads = co->threads,
		.win_on = co->win_on,
		.win_from = co->win_from,
		.win_to = co->win_to,
	};
	int rc = reader_open(&in->r, &in->src, &o, &in->diag);
	if (rc < 0) {
		progress_end(in);
		source_close(&in->src);
		return rc;
	}
	return 0;
}

int input_open(struct input *in, const char *path, const struct common_opts *co)
{
	memset(in, 0, sizeof *in);
	in->path = path;
	diag_init(&in->diag, strcmp(path, "-") == 0 ? "(stdin)" : path, co->max_warnings);
	in->diag.sink = co->sink;
	int rc = source_open(&in->src, path, &in->diag);
	if (rc < 0)
		return rc;
	return open_reader(in, co);
}

int input_open_mem(struct input *in, const char *name, const void *data, size_t len, const struct common_opts *co)
{
	memset(in, 0, sizeof *in);
	in->path = name;
	diag_init(&in->diag, name, co->max_warnings);
	in->diag.sink = co->sink;
	int rc = source_open_mem(&in->src, name, data, len, &in->diag);
	if (rc < 0)
		return rc;
	return open_reader(in, co);
}

void input_close(struct input *in)
{
	progress_end(in);
	diag_finish(&in->diag);
	reader_close(in->r);
	in->r = NULL;
	source_close(&in->src);
}
