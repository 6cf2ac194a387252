/* cmd_extract.c — `iopsy extract FILE --match REGEX [-o OUT.csv]`: a narrow CSV of the matched
 * columns with ISO-8601 UTC time stamps (for spreadsheets that stop at 16,384 columns). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "helpgen.h"
#include "extract.h"
#include "match.h"
#include "pdh.h"
#include "window.h"

static const char extract_help_text[] =
	"Usage: iopsy extract [OPTIONS] FILE --match REGEX [-o OUT.csv]\n"
	"Write a narrow CSV of the columns whose full counter path matches REGEX (PCRE2,\n"
	"case-insensitive): first column the ISO-8601 UTC time, then one column per match; missing\n"
	"samples are empty cells. FILE may be gzip-compressed; '-' is stdin. The output is written\n"
	"to a temporary name and renamed when complete; '-' or no -o writes stdout.\n"
	"\n"
	"  -m, --match REGEX   columns to keep (required)\n"
	"  -o, --output PATH   output file (default stdout)\n"
	"  --time-format FMT   the time column: iso (2026-07-27T13:00:00.644Z, the default), excel\n"
	"                      (2026-07-27 13:00:00.644 UTC, read by spreadsheets as a date-time) or\n"
	"                      local (the same in local time: --tz, else the perfmon header's bias)\n"
	WINDOW_HELP;

void extract_help(struct buf *out)
{
	buf_adds(out, extract_help_text);
	help_common(out, 22);
}

/* A name from the command line or a capture, as the terminal may show it: control characters
 * and invalid UTF-8 as \\xNN (an escape sequence in a file name never reaches the terminal).
 * Returns a static buffer's text, valid until the next call with the same slot. */
static const char *shown(int slot, const char *s)
{
	static struct buf b[2];
	buf_reset(&b[slot]);
	buf_add_text_escaped(&b[slot], s ? s : "", s ? strlen(s) : 0);
	return b[slot].data ? b[slot].data : "";
}

int cmd_extract(int argc, char **argv)
{
	static const struct option opts[] = {{"match", required_argument, NULL, 'm'},
					     {"output", required_argument, NULL, 'o'},
					     {"time-format", required_argument, NULL, 't'},
					     WINDOW_LONG_OPTS,
					     COMMON_LONG_OPTS,
					     {0}};
	struct common_opts co;
	cli_opts_init(&co);
	const char *pattern = NULL, *outpath = "-";
	enum extract_time tf = XT_ISO;
	struct twin_spec win[3];
	memset(win, 0, sizeof win);
	int c;
	optind = 0;
	while ((c = cli_getopt(argc, argv, "m:o:qh", opts, "extract")) != -1) {
		int k = common_opt(c, optarg, &co);
		if (!k)
			k = cli_flow_opt("extract", c, optarg, win, NULL);
		if (k < 0)
			return EXIT_USAGE;
		if (k)
			continue;
		switch (c) {
		case 'm': pattern = optarg; break;
		case 'o': outpath = optarg; break;
		case 't':
			if (strcmp(optarg, "iso") == 0)
				tf = XT_ISO;
			else if (strcmp(optarg, "excel") == 0)
				tf = XT_EXCEL;
			else if (strcmp(optarg, "local") == 0)
				tf = XT_LOCAL;
			else
				return usage_error("extract", "--time-format takes iso, excel or local, not '%s'", optarg);
			break;
		case 'h': return cli_print_help(extract_help);
		default: return usage_hint("extract");
		}
	}
	if (optind >= argc)
		return usage_error("extract", "no capture file given");
	if (argc - optind > 1)
		return usage_error("extract", "one capture file at a time (got %d)", argc - optind);
	if (!pattern)
		return usage_error("extract", "--match REGEX is required (see 'iopsy counters FILE' for names)");
	struct twin tw;
	if (cli_window("extract", &win[0], argv + optind, 1, &co, &tw))
		return EXIT_USAGE;
	struct diag md;
	cli_option_diag(&md, "iopsy extract", "--match");
	struct matcher *m = matcher_new(pattern, true, &md);
	if (!m)
		return usage_hint("extract");
	struct input in;
	int rc = input_open(&in, argv[optind], &co);
	if (rc < 0) {
		matcher_free(m);
		return exit_code_for(rc);
	}
	size_t *sel = NULL;
	int ret = EXIT_OK;
	long nsel = extract_select(&in, m, &sel, &md);
	if (nsel < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (nsel == 0) {
		fprintf(stderr, "iopsy extract: no column of %s matches '%s' (list them with 'iopsy counters')\n",
			shown(0, in.diag.file), shown(1, pattern));
		ret = EXIT_USAGE;
		goto out;
	}
	if (cli_output_not_input("extract", "-o ", outpath, argv + optind, 1)) {
		ret = EXIT_USAGE;
		goto out;
	}
	struct afile af;
	if (afile_open(&af, outpath) < 0) {
		fprintf(stderr, "iopsy extract: cannot create %s: %s\n", shown(0, outpath), strerror(errno));
		ret = EXIT_SYSTEM;
		goto out;
	}
	bool werr;
	long rows;
	int r = extract_write_time(&in, sel, (size_t)nsel, af.fp, &werr, &rows, tf, co.tz);
	if (r == ERR_USAGE) {
		afile_abort(&af);
		fprintf(stderr, "iopsy extract: --time-format local: %s has no time-zone bias; give --tz\n", shown(0, in.diag.file));
		ret = EXIT_USAGE;
		goto out;
	}
	if (!werr && rows == 0) {
		/* every row rejected (or none): an input error, and no file */
		if (r >= 0) {
			struct diag d;
			diag_init(&d, in.diag.file, 0);
			d.sink = diag_stderr();
			if (reader_stats(in.r)->outside)
				diag_emit(&d, DIAG_ERROR, 0, 0, "no row in the time window (--from/--to): %ld rows outside it",
					  reader_stats(in.r)->outside);
			else
				diag_emit(&d, DIAG_ERROR, 0, 0, "no complete data row: nothing to extract");
		}
		afile_abort(&af);
		ret = r < 0 ? exit_code_for(r) : reader_stats(in.r)->outside ? EXIT_USAGE : EXIT_INPUT;
	} else if (werr) {
		fprintf(stderr, "iopsy extract: write error on %s: %s\n", shown(0, outpath), strerror(errno));
		afile_abort(&af);
		ret = EXIT_SYSTEM;
	} else if (r < 0 && !af.is_stdout && !af.in_place) {
		/* an output file is the whole export or none: the first rows alone would pass for the
		 * capture with a script that misses the exit code */
		afile_abort(&af);
		fprintf(stderr, "iopsy extract: %s not written: the input failed after %ld row%s (above); a partial export "
				"is not kept\n", shown(0, outpath), rows, rows == 1 ? "" : "s");
		ret = exit_code_for(r);
	} else {
		if (r < 0)
			ret = exit_code_for(r); /* to stdout or a FIFO the rows are already out: the exit code says */
		if (afile_commit(&af) < 0) {
			fprintf(stderr, "iopsy extract: cannot write %s: %s\n", shown(0, outpath), strerror(errno));
			ret = EXIT_SYSTEM;
		}
	}
out:
	input_close(&in);
	free(sel);
	matcher_free(m);
	return ret;
}
