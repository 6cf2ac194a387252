/* cmd_common.c — option handling shared by the subcommands (see commands.h). */
#include "commands.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pdh.h"

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

int common_opt(int c, const char *arg, struct common_opts *co)
{
	switch (c) {
	case OPT_FORMAT:
		if (strcmp(arg, "auto") != 0 && !pdh_format_find(arg)) {
			fprintf(stderr, "iopsy: unknown format '%s' (formats: auto, %s)\n", arg, pdh_format_names());
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
