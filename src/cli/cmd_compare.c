/* cmd_compare.c — `iopsy compare --before CAPTURE... --after CAPTURE...`: proves what a change
 * (e.g. LSI Logic SAS -> PVSCSI) did, from the captures of the two periods. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "anopts.h"
#include "compare.h"
#include "json_out.h"
#include "text.h"
#include "html.h"
#include "reporter.h"
#include "window.h"
#include "helpgen.h"

static const char compare_intro[] =
	"Usage: iopsy compare --before CAPTURE... --after CAPTURE... [OPTIONS]\n"
	"Compare the captures of two periods (before and after a change): each side is analysed as\n"
	"'iopsy analyze' would; entities are matched across the sides (naa ids, vmhba names,\n"
	"VM:scsiC:T, guest disks by host and drive; world IDs do not matter); per entity and metric the\n"
	"report compares the median, the tail (p95, p99), the time above each band of the rules and the\n"
	"same over each side's busy phase, each with a block-bootstrap confidence interval. It starts\n"
	"with the outcome - improved / regressed / mixed / unchanged / not comparable (the after side\n"
	"has no busy period like the before side's) - and the figures that prove it. Queues are judged\n"
	"per unit of load; latency is also compared at equal load (IOPS bins) and against outstanding\n"
	"IO; findings are gone, still present, new, or not assessed on the side that lacked the input.\n"
	"CAPTURE may be gzip-compressed; '-' (stdin) may be given once.\n"
	"\n";

static const struct help_row compare_rows[] = {
	{"--before CAPTURE...", "captures of the period before the change (at least one)"},
	{"--after CAPTURE...", "captures of the period after the change (at least one)"},
	{"--match-map FILE", "entities renamed by the change, 'BEFORE = AFTER' per line, each '[HOST\\]NAME' (e.g. "
			     "'SQL01:scsi0:1 = SQL01:scsi1:0', 'SQL01\\D: = SQL01\\G:', 'naa.600a...01 = "
			     "naa.600a...02'); '#' comments"},
	{"--text PATH", "write the text report to PATH instead of stdout"},
	{"--json PATH", "write the JSON result (schema_version 2, doc/compare-json.md) to PATH ('-' = stdout, then "
			"no text unless --text is given)"},
	{"--html PATH", "write the self-contained HTML report (before/after latency CDFs, time-of-day overlays, "
			"latency vs IOPS) to PATH"},
	{NULL, NULL},
};

static const struct help_row compare_stat_rows[] = {
	{"--gnuplot-dir DIR", "keep the charts' data and gnuplot scripts in DIR (to restyle them)"},
	{"--require-charts", "no gnuplot, or a chart that fails, is an error (exit 4)"},
	{"--resamples N", "bootstrap resamples (default 1000, 100..100000)"},
	{"--seed N", "bootstrap seed (default 1; same inputs and seed, same output)"},
	{"--confidence P", "confidence level of the intervals (default 0.95)"},
	{"--material-pct P", "smallest relative change of a median that gets a verdict (default 10)"},
	{"--rules FILE", "threshold overrides, 'name = value' lines (see 'iopsy rules'): both sides' analyses and "
			 "the comparison's own bands"},
	{"--fail-on OUTCOME", "exit 1 when the outcome is regressed (regressed), or regressed or mixed (mixed): for "
			      "CI-style use"},
	{NULL, NULL},
};

void compare_help(struct buf *out)
{
	buf_adds(out, compare_intro);
	help_rows(out, HELP_COL, compare_rows);
	help_reports(out, 1);
	buf_adds(out, DELIV_HELP);
	help_rows(out, HELP_COL, compare_stat_rows);
	help_anopts(out, ANF_COMPARE, NULL);
	buf_adds(out, FILTER_HELP "                            (both sides: a pattern must match on each)\n");
	help_common(out, 22);
	buf_adds(out, "\nExit codes: 0 ok, 1 the outcome is at --fail-on, 2 usage, 3 an input could not be read (the\n"
		      "rest is still compared), 4 system error.\n");
}

enum {
	OPT_BEFORE = OPT_COMMON_END + 1,
	OPT_AFTER,
	OPT_MATCH_MAP,
	OPT_TEXT,
	OPT_JSON,
	OPT_RESAMPLES,
	OPT_SEED,
	OPT_CONFIDENCE,
	OPT_MATERIAL,
	OPT_RULES,
	OPT_HTML,
	OPT_GNUPLOT_DIR,
	OPT_REQUIRE_CHARTS,
	OPT_REPORT,
	OPT_FAILON,
};

/* compare's own options before the table's (anopts.h) and after them: the order "did you mean"
 * lists them in */
static const struct option own_head[] = {{"before", required_argument, NULL, OPT_BEFORE},
					 {"after", required_argument, NULL, OPT_AFTER},
					 {"match-map", required_argument, NULL, OPT_MATCH_MAP},
					 {"text", required_argument, NULL, OPT_TEXT},
					 {"json", required_argument, NULL, OPT_JSON},
					 {"resamples", required_argument, NULL, OPT_RESAMPLES},
					 {"seed", required_argument, NULL, OPT_SEED},
					 {"confidence", required_argument, NULL, OPT_CONFIDENCE},
					 {"material-pct", required_argument, NULL, OPT_MATERIAL},
					 {"rules", required_argument, NULL, OPT_RULES},
					 {0}};
static const struct option own_tail[] = {{"html", required_argument, NULL, OPT_HTML},
					 {"gnuplot-dir", required_argument, NULL, OPT_GNUPLOT_DIR},
					 {"require-charts", no_argument, NULL, OPT_REQUIRE_CHARTS},
					 {"report", required_argument, NULL, OPT_REPORT},
					 {"fail-on", required_argument, NULL, OPT_FAILON},
					 FILTER_LONG_OPTS,
					 {"format", required_argument, NULL, OPT_FORMAT},
					 {"tz", required_argument, NULL, OPT_TZ},
					 {"max-warnings", required_argument, NULL, OPT_MAX_WARNINGS},
					 {"quiet", no_argument, NULL, 'q'},
					 {"help", no_argument, NULL, 'h'},
					 DELIV_LONG_OPTS,
					 {0}};
static struct option opts[112];

static void build_opts(void)
{
	size_t n = cli_longopts_add(opts, 0, sizeof opts / sizeof opts[0], own_head);
	n = cli_anopt_longopts(opts, n, sizeof opts / sizeof opts[0], ANF_COMPARE | ANF_SIDED);
	cli_longopts_add(opts, n, sizeof opts / sizeof opts[0], own_tail);
}

/* The option an argument like "--before" or "--json=x" names (its whole name: options are not
 * abbreviated), or NULL. */
static const struct option *long_opt(const char *arg)
{
	const char *name = arg + 2;
	size_t n = strcspn(name, "=");
	for (const struct option *o = opts; o->name; o++)
		if (strlen(o->name) == n && strncmp(o->name, name, n) == 0)
			return o;
	return NULL;
}

struct lists {
	char **cap[2];
	int ncap[2];
	char **rest;
	int nrest;
};

/* GNU getopt would move the captures after --before/--after away from their option: split them
 * off first. Returns 0 or EXIT_USAGE (message printed). */
static int split_args(int argc, char **argv, struct lists *l)
{
	int side = -1;
	l->rest[l->nrest++] = argv[0];
	for (int i = 1; i < argc; i++) {
		char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			if (side < 0 && i + 1 < argc)
				return usage_error("compare", "'%s' is not after --before or --after", argv[i + 1]);
			for (i++; i < argc; i++)
				l->cap[side][l->ncap[side]++] = argv[i];
			break;
		}
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			const struct option *o = long_opt(a);
			if (!o) {
				cli_unknown_option("compare", a, opts);
				return usage_hint("compare");
			}
			bool eq = strchr(a, '=') != NULL;
			if (o && (o->val == OPT_BEFORE || o->val == OPT_AFTER)) {
				side = o->val == OPT_BEFORE ? 0 : 1;
				if (eq)
					l->cap[side][l->ncap[side]++] = strchr(a, '=') + 1;
				continue;
			}
			side = -1;
			l->rest[l->nrest++] = a;
			if (o && o->has_arg == required_argument && !eq && i + 1 < argc)
				l->rest[l->nrest++] = argv[++i];
			continue;
		}
		if (a[0] == '-' && a[1]) {
			side = -1;
			l->rest[l->nrest++] = a;
			continue;
		}
		if (side < 0)
			return usage_error("compare", "'%s': captures follow --before or --after", a);
		l->cap[side][l->ncap[side]++] = a;
	}
	l->rest[l->nrest] = NULL;
	return 0;
}

static bool parse_ulong(const char *s, unsigned long long lo, unsigned long long hi, unsigned long long *v)
{
	char *end;
	errno = 0;
	if (*s == '-' || *s == '+')
		return false;
	unsigned long long x = strtoull(s, &end, 10);
	if (errno || end == s || *end || x < lo || x > hi)
		return false;
	*v = x;
	return true;
}

/* A capture that could not be read: its exit code, if worse (ctx: the exit code). */
static void capture_done(void *ctx, size_t i, int rc)
{
	(void)i;
	int *ret = ctx;
	if (rc < 0 && exit_code_for(rc) > *ret)
		*ret = exit_code_for(rc);
}

int cmd_compare(int argc, char **argv)
{
	build_opts();
	struct lists l;
	memset(&l, 0, sizeof l);
	size_t n = (size_t)argc + 1;
	l.cap[0] = xcalloc(n, sizeof *l.cap[0]);
	l.cap[1] = xcalloc(n, sizeof *l.cap[1]);
	l.rest = xcalloc(n, sizeof *l.rest);
	int ret = split_args(argc, argv, &l);
	struct common_opts co;
	cli_opts_init(&co);
	struct compare_opts o;
	compare_opts_init(&o);
	const char *map_path = NULL, *rules_path = NULL;
	struct cli_outputs outs = {.what = 1};
	struct report_opts ro;
	report_opts_init(&ro);
	struct html_opts *ho = &ro.html;
	struct an_values av[2]; /* the table's options of each side */
	memset(av, 0, sizeof av);
	int fail_on = -1; /* CO_REGRESSED: regressed; CO_MIXED: regressed or mixed */
	struct compare c;
	compare_init(&c);
	struct buf err;
	buf_init(&err);
	struct deliv_opts dv = {0};
	struct ent_filter filt[2];
	ef_init(&filt[0]);
	ef_init(&filt[1]);
	if (ret)
		goto out;
	int ch;
	optind = 0;
	while ((ch = cli_getopt(l.nrest, l.rest, "qh", opts, "compare")) != -1) {
		int k = common_opt(ch, optarg, &co);
		if (!k)
			k = cli_flow_opt("compare", ch, optarg, NULL, &filt[0]);
		if (!k)
			k = cli_anopt("compare", ch, optarg, av, 2);
		if (k < 0) {
			ret = EXIT_USAGE;
			goto out;
		}
		if (k)
			continue;
		if ((k = deliv_opt(ch, optarg, &dv, &outs, "compare")) != 0) {
			if (k == EXIT_USAGE) {
				ret = EXIT_USAGE;
				goto out;
			}
			continue;
		}
		unsigned long long u;
		double d;
		switch (ch) {
		case OPT_MATCH_MAP: map_path = optarg; break;
		case OPT_TEXT:
		case OPT_JSON:
		case OPT_HTML:
			if (cli_output_add(&outs, "compare", ch == OPT_JSON ? "json" : ch == OPT_TEXT ? "text" : "html", optarg)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_REPORT:
			if (cli_output_parse(&outs, "compare", optarg)) {
				ret = EXIT_USAGE;
				goto out;
			}
			break;
		case OPT_GNUPLOT_DIR: ho->gnuplot_dir = optarg; break;
		case OPT_REQUIRE_CHARTS: ho->require_charts = true; break;
		case OPT_RESAMPLES:
			if (!parse_ulong(optarg, 100, 100000, &u)) {
				ret = usage_error("compare", "--resamples needs a number from 100 to 100000, not '%s'", optarg);
				goto out;
			}
			o.resamples = (unsigned)u;
			break;
		case OPT_SEED:
			if (!parse_ulong(optarg, 0, UINT64_MAX, &u)) {
				ret = usage_error("compare", "--seed needs a non-negative integer, not '%s'", optarg);
				goto out;
			}
			o.seed = u;
			break;
		case OPT_CONFIDENCE:
			if (!parse_number(optarg, strlen(optarg), &d) || d < 0.5 || d > 0.999) {
				ret = usage_error("compare", "--confidence needs a level from 0.5 to 0.999, not '%s'", optarg);
				goto out;
			}
			o.confidence = d;
			break;
		case OPT_MATERIAL:
			if (!parse_number(optarg, strlen(optarg), &d) || d < 0 || d > 1000) {
				ret = usage_error("compare", "--material-pct needs a percentage from 0 to 1000, not '%s'", optarg);
				goto out;
			}
			o.material_pct = d;
			break;
		case OPT_RULES: rules_path = optarg; break;
		case OPT_FAILON:
			if (strcmp(optarg, "regressed") == 0) {
				fail_on = CO_REGRESSED;
			} else if (strcmp(optarg, "mixed") == 0) {
				fail_on = CO_MIXED;
			} else {
				ret = usage_error("compare", "--fail-on takes regressed or mixed, not '%s'", optarg);
				goto out;
			}
			break;
		case 'h':
			ret = cli_print_help(compare_help);
			goto out;
		default: ret = usage_hint("compare"); goto out;
		}
	}
	const char *side_rules[2] = {av[0].rules, av[1].rules};
	const struct anopt *offset_row = anopt_find("clock-offset", ANF_SIDED);
	for (int s = 0; s < 2; s++) {
		o.ao[s] = av[s].ao; /* the options alone: a side's reports name no side file (as before) */
		if (offset_row && (av[s].own >> (offset_row - anopts) & 1)) /* its warning names the side's option */
			o.ao[s].clock_offset_from = s ? "--after-clock-offset" : "--before-clock-offset";
	}
	if (optind < l.nrest) {
		ret = usage_error("compare", "'%s': captures follow --before or --after", l.rest[optind]);
		goto out;
	}
	if (!l.ncap[0] || !l.ncap[1]) {
		ret = usage_error("compare", "no capture given %s", !l.ncap[0] ? "with --before" : "with --after");
		goto out;
	}
	if (cli_outputs_finish(&outs, "compare")) {
		ret = EXIT_USAGE;
		goto out;
	}
	int stdin_uses = 0;
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < l.ncap[s]; i++)
			stdin_uses += strcmp(l.cap[s][i], "-") == 0;
	if (stdin_uses > 1) {
		ret = usage_error("compare", "'-' (stdin) can be given only once");
		goto out;
	}
	if ((ret = deliv_finish(&dv, &ro, "compare")) != 0)
		goto out;
	int rrc = rules_path ? cli_load_rules(&c.rules, rules_path) : 0;
	c.side[0].rules = c.side[1].rules = c.rules;
	/* each side's inputs (anopts.h's loader) */
	struct an_load how = {.sink = diag_stderr(), .max_warnings = co.max_warnings};
	for (int s = 0; s < 2 && rrc >= 0; s++) /* a side's own file on top of --rules */
		rrc = side_rules[s] ? analysis_load_input(&c.side[s], AN_IN_RULES, side_rules[s], &how) : 0;
	if (rrc < 0) {
		ret = rrc == ERR_IO ? EXIT_INPUT : EXIT_USAGE;
		goto out;
	}
	if (map_path) {
		struct diag d;
		diag_init(&d, map_path, -1);
		d.sink = diag_stderr();
		struct matchmap mm;
		int mrc = matchmap_read(&mm, map_path, &d);
		if (mrc == 0)
			compare_use_matchmap(&c, &mm);
		matchmap_free(&mm);
		if (mrc < 0) {
			ret = EXIT_USAGE;
			goto out;
		}
	}
	for (int s = 0; s < 2; s++) {
		if (av[s].map && analysis_load_input(&c.side[s], AN_IN_MAP, av[s].map, &how) < 0) {
			ret = EXIT_USAGE;
			goto out;
		}
	}
	for (int s = 0; s < 2; s++) {
		if (analysis_load_side_files(&c.side[s], &av[s], &how) < 0 && EXIT_INPUT > ret)
			ret = EXIT_INPUT;
	}
	for (int s = 0; s < 2; s++) {
		analysis_set_opts(&c.side[s], &o.ao[s]);
		c.side[s].sink = diag_stderr();
	}
	/* each side's window (its own bounds over --from/--to) and the filters, on both sides */
	struct common_opts sco[2] = {co, co};
	for (int s = 0; s < 2; s++) {
		struct twin_spec sp = {{av[s].win[0], av[s].win[1]}}; /* its own bounds over --from/--to */
		if (cli_window("compare", &sp, l.cap[s], (size_t)l.ncap[s], &sco[s], &c.side[s].window)) {
			ret = EXIT_USAGE;
			goto out;
		}
	}
	if (ef_on(&filt[0])) {
		struct diag fd;
		cli_option_diag(&fd, "iopsy compare", "--host/--vm/--disk");
		ef_free(&filt[1]);
		if (ef_copy(&filt[1], &filt[0], &fd) < 0) {
			ret = EXIT_USAGE;
			goto out;
		}
		c.side[0].m.filter = &filt[0];
		c.side[1].m.filter = &filt[1];
	}
	struct an_capture_hooks hooks = {.done = capture_done, .ctx = &ret};
	for (int s = 0; s < 2; s++)
		analysis_load_captures(&c.side[s], l.cap[s], (size_t)l.ncap[s], &sco[s], &hooks);
	if (cli_filter_check("compare", c.side[0].m.filter, "the before captures") |
	    cli_filter_check("compare", c.side[1].m.filter, "the after captures")) {
		ret = EXIT_USAGE;
		goto out;
	}
	struct diag cd;
	diag_init(&cd, NULL, -1);
	cd.prefix = "iopsy compare";
	cd.sink = diag_stderr();
	compare_run(&c, &o, &cd);
	for (int s = 0; s < 2; s++)
		deliv_paths(&c.side[s], dv.redact);
	{ /* the comparison's own rules (the before side's, for the bands) */
		char cwd[4096];
		rules_display_paths(&c.rules, dv.redact, getcwd(cwd, sizeof cwd) ? cwd : NULL);
	}
	int w = cli_outputs_write(&outs, "compare", &c, &ro);
	if (w > ret)
		ret = w;
	/* CI use: a regression (or, with mixed, any regression) fails the run */
	if (ret == EXIT_OK && fail_on >= 0 &&
	    (c.sum.outcome == CO_REGRESSED || (fail_on == CO_MIXED && c.sum.outcome == CO_MIXED)))
		ret = EXIT_FINDINGS;
out:
	deliv_free(&dv);
	compare_free(&c);
	ef_free(&filt[0]);
	ef_free(&filt[1]);
	buf_free(&err);
	free(l.cap[0]);
	free(l.cap[1]);
	free(l.rest);
	return ret;
}
