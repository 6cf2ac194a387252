/* cmd_counters.c — `iopsy counters FILE...`: what a capture holds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "helpgen.h"
#include "inventory.h"
#include "reporter.h"
#include "json.h"
#include "window.h"

static const char counters_help_text[] =
	"Usage: iopsy counters [OPTIONS] FILE...\n"
	"List what each capture holds: format, host, time span, interval (median and jitter), rows,\n"
	"columns, then objects -> instances -> counters. FILE may be gzip-compressed; '-' is stdin.\n"
	"\n"
	"  -m, --match REGEX   only columns whose full counter path matches (PCRE2, case-insensitive)\n"
	"  --json              JSON instead of text (one object per file; an array for several files)\n"
	WINDOW_HELP;

void counters_help(struct buf *out)
{
	buf_adds(out, counters_help_text);
	help_common(out, 22);
}

int cmd_counters(int argc, char **argv)
{
	static const struct option opts[] = {
		{"match", required_argument, NULL, 'm'}, {"json", no_argument, NULL, 'j'}, WINDOW_LONG_OPTS, COMMON_LONG_OPTS, {0}};
	struct common_opts co;
	cli_opts_init(&co);
	const char *pattern = NULL;
	bool json = false;
	struct twin_spec win[3];
	memset(win, 0, sizeof win);
	int c;
	optind = 0;
	while ((c = cli_getopt(argc, argv, "m:qh", opts, "counters")) != -1) {
		int k = common_opt(c, optarg, &co);
		if (!k)
			k = cli_flow_opt("counters", c, optarg, win, NULL);
		if (k < 0)
			return EXIT_USAGE;
		if (k)
			continue;
		switch (c) {
		case 'm': pattern = optarg; break;
		case 'j': json = true; break;
		case 'h': return cli_print_help(counters_help);
		default: return usage_hint("counters");
		}
	}
	if (optind >= argc)
		return usage_error("counters", "no capture file given");
	struct twin tw;
	if (cli_window("counters", &win[0], argv + optind, (size_t)(argc - optind), &co, &tw))
		return EXIT_USAGE;
	struct matcher *m = NULL;
	struct diag md;
	cli_option_diag(&md, "iopsy counters", "--match");
	if (pattern) {
		m = matcher_new(pattern, true, &md);
		if (!m)
			return usage_hint("counters");
	}
	int worst = EXIT_OK;
	int nfiles = argc - optind;
	struct buf out;
	buf_init(&out);
	const struct reporter *w = reporter_find(json ? "json" : "text");
	struct report_opts ro;
	report_opts_init(&ro);
	ro.count = (size_t)nfiles;
	for (int i = optind; i < argc; i++) {
		struct input in;
		int rc = input_open(&in, argv[i], &co);
		if (rc < 0) {
			int e = exit_code_for(rc);
			if (e > worst)
				worst = e;
			continue;
		}
		struct inventory inv;
		rc = inventory_build(&inv, &in, m, &md);
		input_close(&in);
		inv.warnings = in.diag.warnings;
		inv.windowed = co.win_on;
		if (rc < 0) {
			int e = exit_code_for(rc);
			if (e > worst)
				worst = e;
		}
		if (rc >= 0 || inv.columns) {
			ro.index = (size_t)(i - optind);
			w->inventory(&inv, &ro, &out);
		}
		inventory_free(&inv);
		if (fwrite(out.data ? out.data : "", 1, out.len, stdout) != out.len) {
			worst = EXIT_SYSTEM;
			break;
		}
		buf_reset(&out);
	}
	report_inventory_end(w, &ro, &out);
	if (fwrite(out.data ? out.data : "", 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "iopsy counters: write error on stdout\n");
		worst = EXIT_SYSTEM;
	}
	buf_free(&out);
	matcher_free(m);
	return worst;
}
