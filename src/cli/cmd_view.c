/* cmd_view.c — `iopsy view CAPTURE... [--match REGEX] [-o FILE.html]`: one self-contained HTML
 * page to look at any counter (reports/view.h): a counter tree with a regex search, stacked
 * charts on one synchronised time axis, the analysis's findings shaded on the timeline. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "anopts.h"
#include "iopath.h"
#include "commands.h"
#include "helpgen.h"
#include "match.h"
#include "version.h"
#include "view.h"
#include "viewdata.h"
#include "window.h"

enum { OPT_BUDGET = 1500, OPT_NO_ANALYSIS };

static const struct help_row view_rows[] = {
	{"-m, --match REGEX", "the columns to put in the page, by their full counter path (PCRE2, case-insensitive, "
			      "like extract; default: the storage, CPU and memory objects of esxtop and perfmon)"},
	{"-o, --output PATH", "the page (default view.html; '-' writes stdout), written to a temporary name and "
			      "renamed when complete"},
	{"--budget N", "numbers the page holds over all its series (default 2000000): each series is kept as at "
		       "most N / 2 / series buckets with the minimum and maximum of their samples (64 to 32768 "
		       "buckets); past that, series are dropped and the page says so"},
	{"--no-analysis", "no findings on the timeline (the analysis is not run)"},
	{NULL, NULL},
};

void view_help(struct buf *out)
{
	buf_adds(out, "Usage: iopsy view [OPTIONS] CAPTURE... [--match REGEX] [-o FILE.html]\n"
		      "Write one self-contained HTML page (works offline; no request leaves it) to look at any\n"
		      "counter: a tree of object, counter and instance with a regex search, stacked charts with\n"
		      "one synchronised time axis (drag to zoom, reset, a log scale, the values under the cursor\n"
		      "with local time and UTC), the analysis's findings shaded on the timeline (a click opens\n"
		      "the series of its evidence), presets (a LUN's IO stack, a LUN's load by VM, a VM's CPU)\n"
		      "and the IO path as a second tree. Every series is downsampled while it is read, keeping\n"
		      "each bucket's minimum and maximum, so a short stall stays visible zoomed out.\n"
		      "\n");
	help_rows(out, 22, view_rows);
	buf_adds(out, WINDOW_HELP);
	help_common(out, 22);
}

static const char *shown(int slot, const char *s)
{
	static struct buf b[2];
	buf_reset(&b[slot]);
	buf_add_text_escaped(&b[slot], s ? s : "", s ? strlen(s) : 0);
	return b[slot].data ? b[slot].data : "";
}

/* The analysis on the same captures: its findings as the page shades them, its IO path graph. */
static void add_findings(struct view_data *v, char *const *paths, size_t n, const struct common_opts *co,
			 const struct twin *tw)
{
	struct analysis a;
	analysis_init(&a);
	a.sink.fn = NULL; /* the captures' messages were said while the series were read */
	a.window = *tw;
	struct common_opts qco = *co;
	qco.sink.fn = NULL;
	qco.progress = NULL;
	struct analyze_opts ao;
	memset(&ao, 0, sizeof ao);
	analysis_set_opts(&a, &ao);
	analysis_load_captures(&a, paths, n, &qco, NULL);
	analysis_run(&a, &ao);
	view_add_analysis(v, &a);
	analysis_free(&a);
}

struct view_args {
	const char *pattern, *outpath;
	long budget;
	bool analysis;
};

static int parse_args(int argc, char **argv, struct view_args *va, struct common_opts *co, struct twin_spec *win)
{
	static const struct option opts[] = {{"match", required_argument, NULL, 'm'},
					     {"output", required_argument, NULL, 'o'},
					     {"budget", required_argument, NULL, OPT_BUDGET},
					     {"no-analysis", no_argument, NULL, OPT_NO_ANALYSIS},
					     WINDOW_LONG_OPTS,
					     COMMON_LONG_OPTS,
					     {0}};
	int c;
	optind = 0;
	while ((c = cli_getopt(argc, argv, "m:o:qh", opts, "view")) != -1) {
		int k = common_opt(c, optarg, co);
		if (!k)
			k = cli_flow_opt("view", c, optarg, win, NULL);
		if (k < 0)
			return EXIT_USAGE;
		if (k)
			continue;
		char *end;
		switch (c) {
		case 'm': va->pattern = optarg; break;
		case 'o': va->outpath = optarg; break;
		case OPT_BUDGET:
			errno = 0;
			va->budget = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || va->budget < 2 * VIEW_MIN_BUCKETS ||
			    va->budget > 100000000L)
				return usage_error("view", "--budget takes a number from %d to 100000000, not '%s'",
						   2 * VIEW_MIN_BUCKETS, optarg);
			break;
		case OPT_NO_ANALYSIS: va->analysis = false; break;
		case 'h': return cli_print_help(view_help) == EXIT_OK ? -1 : EXIT_SYSTEM;
		default: return usage_hint("view");
		}
	}
	if (optind >= argc)
		return usage_error("view", "no capture file given");
	return EXIT_OK;
}

/* Opens the captures and adds their matching series; an unreadable one is said and skipped. */
static int read_captures(struct view_data *v, struct input *ins, bool *opened, char *const *paths, size_t n,
			 struct matcher *m, const struct common_opts *co, int *ret)
{
	struct diag md;
	cli_option_diag(&md, "iopsy view", "--match");
	for (size_t i = 0; i < n; i++) {
		int rc = input_open(&ins[i], paths[i], co);
		if (rc < 0) {
			*ret = exit_code_for(rc);
			continue;
		}
		opened[i] = true;
		if (view_add_capture(v, &ins[i], paths[i], m, &md) < 0)
			return EXIT_USAGE;
	}
	return EXIT_OK;
}

int cmd_view(int argc, char **argv)
{
	struct common_opts co;
	cli_opts_init(&co);
	struct view_args va = {.pattern = view_default_match, .outpath = "view.html", .budget = VIEW_BUDGET_DEFAULT,
			       .analysis = true};
	struct twin_spec win[3];
	memset(win, 0, sizeof win);
	int pr = parse_args(argc, argv, &va, &co, win);
	if (pr)
		return pr < 0 ? EXIT_OK : pr;
	char *const *paths = argv + optind;
	size_t n = (size_t)(argc - optind);
	struct twin tw;
	if (cli_window("view", &win[0], paths, n, &co, &tw))
		return EXIT_USAGE;
	if (cli_output_not_input("view", "-o ", va.outpath, paths, (int)n))
		return EXIT_USAGE;
	struct diag md;
	cli_option_diag(&md, "iopsy view", "--match");
	struct matcher *m = matcher_new(va.pattern, true, &md);
	if (!m)
		return usage_hint("view");
	struct view_data v;
	view_init(&v, va.budget);
	struct input *ins = xcalloc(n, sizeof *ins);
	bool *opened = xcalloc(n, sizeof *opened);
	int ret = EXIT_OK;
	int r = read_captures(&v, ins, opened, paths, n, m, &co, &ret);
	size_t ci = 0;
	if (r) {
		ret = r;
		goto out;
	}
	if (v.ncaps == 0)
		goto out; /* every capture unreadable: said above, exit 3 */
	if (v.ns == 0) {
		fprintf(stderr, "iopsy view: no column matches '%s' (list them with 'iopsy counters')\n",
			shown(0, va.pattern));
		ret = EXIT_USAGE;
		goto out;
	}
	/* the opened inputs, in the order of v.caps */
	struct input *cin = xcalloc(v.ncaps, sizeof *cin);
	for (size_t i = 0; i < n; i++)
		if (opened[i])
			cin[ci++] = ins[i];
	view_plan(&v, cin);
	for (size_t i = 0; i < v.ncaps; i++) {
		int rr = view_read(&v, i, &cin[i]);
		if (rr < 0 && exit_code_for(rr) > ret)
			ret = exit_code_for(rr);
	}
	free(cin);
	for (size_t i = 0; i < n; i++)
		if (opened[i])
			input_close(&ins[i]), opened[i] = false;
	if (v.dropped)
		fprintf(stderr, "iopsy view: %zu of %zu series dropped to fit --budget %ld (the page says so); narrow "
				"--match or raise --budget\n", v.dropped, v.ns, v.budget);
	bool stdin_used = false;
	for (size_t i = 0; i < n; i++)
		stdin_used |= strcmp(paths[i], "-") == 0;
	if (va.analysis && !stdin_used)
		add_findings(&v, paths, n, &co, &tw);
	else if (va.analysis && !co.quiet)
		fprintf(stderr, "iopsy view: no findings in the page: the analysis reads the captures again, and "
				"stdin ('-') cannot be read twice\n");
	struct buf page;
	buf_init(&page);
	struct view_page_opts po = {.tz = co.tz, .version = IOPSY_VERSION};
	view_page(&v, &po, &page);
	int w = write_output("view", va.outpath, &page);
	if (w > ret)
		ret = w;
	buf_free(&page);
out:
	for (size_t i = 0; i < n; i++)
		if (opened[i])
			input_close(&ins[i]);
	free(ins);
	free(opened);
	view_free(&v);
	matcher_free(m);
	return ret;
}
