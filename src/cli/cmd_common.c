/* cmd_common.c — option handling shared by the subcommands (see commands.h). */
#include "commands.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "pdh.h"

void cli_opts_init(struct common_opts *co)
{
	common_opts_init(co);
	co->sink = diag_stderr();
	co->progress = &progress_stderr_hooks;
}

int cli_load_rules(struct rules *r, const char *path)
{
	struct diag d;
	diag_init(&d, path, -1);
	d.sink = diag_stderr();
	return rules_load(r, path, &d);
}

int cli_load_diskmap(struct analysis *a, const char *path)
{
	struct diag d;
	diag_init(&d, path, -1);
	d.sink = diag_stderr();
	struct diskmap dm;
	int rc = diskmap_read(&dm, path, &d);
	if (rc == 0)
		analysis_use_diskmap(a, &dm);
	diskmap_free(&dm);
	return rc;
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "iopsy %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'iopsy %s --help'.\n", cmd);
	return EXIT_USAGE;
}

int usage_hint(const char *cmd)
{
	fprintf(stderr, "Try 'iopsy %s --help'.\n", cmd);
	return EXIT_USAGE;
}

int common_opt(int c, const char *arg, struct common_opts *co)
{
	switch (c) {
	case OPT_FORMAT:
		if (strcmp(arg, "auto") != 0 && !parser_find(arg)) {
			fprintf(stderr, "iopsy: unknown format '%s' (formats: auto, %s)\n", arg, parser_names());
			return ERR_USAGE;
		}
		co->format = strcmp(arg, "auto") == 0 ? NULL : arg;
		return 1;
	case OPT_TZ:
		if (parse_tz(arg, &co->tz_bias_min) < 0) {
			fprintf(stderr, "iopsy: bad --tz '%s' (use an offset like +09:00, -0500 or UTC)\n", arg);
			return ERR_USAGE;
		}
		co->tz_given = true;
		return 1;
	case OPT_MAX_WARNINGS: {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < -1) {
			fprintf(stderr, "iopsy: bad --max-warnings '%s' (a number, -1 = unlimited)\n", arg);
			return ERR_USAGE;
		}
		co->max_warnings = v;
		return 1;
	}
	case 'q':
		co->quiet = true;
		return 1;
	default:
		return 0;
	}
}

int write_output(const char *cmd, const char *path, const struct buf *b)
{
	const char *what;
	if (afile_write_all(path, b->data, b->len, &what) < 0) {
		fprintf(stderr, "iopsy %s: %s %s: %s\n", cmd, what, path, strerror(errno));
		return EXIT_SYSTEM;
	}
	return EXIT_OK;
}

int write_html_report(const char *cmd, const char *path, const struct html_opts *ho,
		      int (*render)(const void *model, const struct html_opts *o, struct buf *out, struct html_result *res,
				    struct buf *msg),
		      const void *model)
{
	struct html_result res;
	struct buf msg, out;
	buf_init(&msg);
	buf_init(&out);
	int rc = render(model, ho, &out, &res, &msg);
	for (const char *p = msg.data ? msg.data : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		fprintf(stderr, "iopsy %s: %s: %.*s\n", cmd, rc < 0 ? "error" : "warning", (int)n, p);
		p += n + (nl != NULL);
	}
	buf_free(&msg);
	int ret;
	if (rc < 0) {
		if (rc != ERR_IO)
			fprintf(stderr, "iopsy %s: --require-charts: no HTML report written\n", cmd);
		ret = EXIT_SYSTEM;
	} else {
		ret = write_output(cmd, path, &out);
	}
	buf_free(&out);
	return ret;
}
