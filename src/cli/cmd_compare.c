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
	{"--allow-reversed", "compare sides whose before captures are later than the after ones (else that is "
			     "reported and the exit code is 2)"},
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
	buf_adds(out, "\nExit codes: 0 ok, 1 the outcome is at --fail-on, 2 usage (and sides in reverse time order\n"
		      "without --allow-reversed), 3 an input could not be read (the rest is still compared), 4 system\n"
		      "error.\n");
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
	OPT_ALLOW_REVERSED,
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
					 {"allow-reversed", no_argument, NULL, OPT_ALLOW_REVERSED},
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

/* Everything one run of compare holds: the arguments split per side, the options read, the
 * comparison. */
struct cmp_cli {
	struct lists l;
	struct common_opts co;
	struct compare_opts o;
	const char *map_path, *rules_path;
	struct cli_outputs outs;
	struct report_opts ro;
	struct an_values av[2]; /* the table's options of each side */
	int fail_on;            /* CO_REGRESSED: regressed; CO_MIXED: regressed or mixed */
	bool allow_reversed;    /* --allow-reversed */
	struct compare c;
	struct deliv_opts dv;
	struct ent_filter filt[2];
};

/* compare's own option ch (after the shared tables had their turn). Returns 0 to go on, or 1 when
 * the run stops with *ret (usage error, or --help printed). */
static int own_opt(struct cmp_cli *x, int ch, int *ret)
{
	unsigned long long u;
	double d;
	switch (ch) {
	case OPT_MATCH_MAP: x->map_path = optarg; break;
	case OPT_TEXT:
	case OPT_JSON:
	case OPT_HTML:
		if (cli_output_add(&x->outs, "compare", ch == OPT_JSON ? "json" : ch == OPT_TEXT ? "text" : "html",
				   optarg))
			return *ret = EXIT_USAGE, 1;
		break;
	case OPT_REPORT:
		if (cli_output_parse(&x->outs, "compare", optarg))
			return *ret = EXIT_USAGE, 1;
		break;
	case OPT_GNUPLOT_DIR: x->ro.html.gnuplot_dir = optarg; break;
	case OPT_REQUIRE_CHARTS: x->ro.html.require_charts = true; break;
	case OPT_RESAMPLES:
		if (!parse_ulong(optarg, 100, 100000, &u))
			return *ret = usage_error("compare", "--resamples needs a number from 100 to 100000, not '%s'",
						  optarg),
			       1;
		x->o.resamples = (unsigned)u;
		break;
	case OPT_SEED:
		if (!parse_ulong(optarg, 0, UINT64_MAX, &u))
			return *ret = usage_error("compare", "--seed needs a non-negative integer, not '%s'", optarg),
			       1;
		x->o.seed = u;
		break;
	case OPT_CONFIDENCE:
		if (!parse_number(optarg, strlen(optarg), &d) || d < 0.5 || d > 0.999)
			return *ret = usage_error("compare", "--confidence needs a level from 0.5 to 0.999, not '%s'",
						  optarg),
			       1;
		x->o.confidence = d;
		break;
	case OPT_MATERIAL:
		if (!parse_number(optarg, strlen(optarg), &d) || d < 0 || d > 1000)
			return *ret = usage_error("compare",
						  "--material-pct needs a percentage from 0 to 1000, not '%s'", optarg),
			       1;
		x->o.material_pct = d;
		break;
	case OPT_RULES: x->rules_path = optarg; break;
	case OPT_FAILON:
		if (strcmp(optarg, "regressed") == 0)
			x->fail_on = CO_REGRESSED;
		else if (strcmp(optarg, "mixed") == 0)
			x->fail_on = CO_MIXED;
		else
			return *ret = usage_error("compare", "--fail-on takes regressed or mixed, not '%s'", optarg), 1;
		break;
	case OPT_ALLOW_REVERSED: x->allow_reversed = true; break;
	case 'h': *ret = cli_print_help(compare_help); return 1;
	default: *ret = usage_hint("compare"); return 1;
	}
	return 0;
}

/* The options (getopt over what split_args left) and their checks. Returns 0 or the exit code. */
static int read_opts(struct cmp_cli *x)
{
	int ch, ret = 0;
	optind = 0;
	while ((ch = cli_getopt(x->l.nrest, x->l.rest, "qh", opts, "compare")) != -1) {
		int k = common_opt(ch, optarg, &x->co);
		if (!k)
			k = cli_flow_opt("compare", ch, optarg, NULL, &x->filt[0]);
		if (!k)
			k = cli_anopt("compare", ch, optarg, x->av, 2);
		if (k < 0)
			return EXIT_USAGE;
		if (k)
			continue;
		if ((k = deliv_opt(ch, optarg, &x->dv, &x->outs, "compare")) != 0) {
			if (k == EXIT_USAGE)
				return EXIT_USAGE;
			continue;
		}
		if (own_opt(x, ch, &ret))
			return ret ? ret : -1;
	}
	const struct anopt *offset_row = anopt_find("clock-offset", ANF_SIDED);
	for (int s = 0; s < 2; s++) {
		x->o.ao[s] = x->av[s].ao; /* the options alone: a side's reports name no side file (as before) */
		if (offset_row && (x->av[s].own >> (offset_row - anopts) & 1)) /* its warning names the side's option */
			x->o.ao[s].clock_offset_from = s ? "--after-clock-offset" : "--before-clock-offset";
	}
	if (optind < x->l.nrest)
		return usage_error("compare", "'%s': captures follow --before or --after", x->l.rest[optind]);
	if (!x->l.ncap[0] || !x->l.ncap[1])
		return usage_error("compare", "no capture given %s", !x->l.ncap[0] ? "with --before" : "with --after");
	if (cli_outputs_finish(&x->outs, "compare"))
		return EXIT_USAGE;
	int stdin_uses = 0;
	for (int s = 0; s < 2; s++)
		for (int i = 0; i < x->l.ncap[s]; i++)
			stdin_uses += strcmp(x->l.cap[s][i], "-") == 0;
	if (stdin_uses > 1)
		return usage_error("compare", "'-' (stdin) can be given only once");
	return deliv_finish(&x->dv, &x->ro, "compare");
}

/* The rules, the match map and each side's own input files. Returns 0 or the exit code (a side
 * file that could not be read: EXIT_INPUT in *soft, the run goes on). */
static int load_inputs(struct cmp_cli *x, struct an_load *how, int *soft)
{
	struct compare *c = &x->c;
	int rrc = x->rules_path ? cli_load_rules(&c->rules, x->rules_path) : 0;
	c->side[0].rules = c->side[1].rules = c->rules;
	for (int s = 0; s < 2 && rrc >= 0; s++) /* a side's own file on top of --rules */
		rrc = x->av[s].rules ? analysis_load_input(&c->side[s], AN_IN_RULES, x->av[s].rules, how) : 0;
	if (rrc < 0)
		return rrc == ERR_IO ? EXIT_INPUT : EXIT_USAGE;
	if (x->map_path) {
		struct diag d;
		diag_init(&d, x->map_path, -1);
		d.sink = diag_stderr();
		struct matchmap mm;
		int mrc = matchmap_read(&mm, x->map_path, &d);
		if (mrc == 0)
			compare_use_matchmap(c, &mm);
		matchmap_free(&mm);
		if (mrc < 0)
			return EXIT_USAGE;
	}
	for (int s = 0; s < 2; s++)
		if (x->av[s].map && analysis_load_input(&c->side[s], AN_IN_MAP, x->av[s].map, how) < 0)
			return EXIT_USAGE;
	for (int s = 0; s < 2; s++)
		if (analysis_load_side_files(&c->side[s], &x->av[s], how) < 0 && EXIT_INPUT > *soft)
			*soft = EXIT_INPUT;
	for (int s = 0; s < 2; s++) {
		analysis_set_opts(&c->side[s], &x->o.ao[s]);
		c->side[s].sink = diag_stderr();
	}
	return 0;
}

/* Each side's window (its own bounds over --from/--to) and the filters, on both sides; then the
 * captures. Returns 0 or the exit code (a capture not read: its code in *soft). */
static int load_sides(struct cmp_cli *x, int *soft)
{
	struct compare *c = &x->c;
	struct common_opts sco[2] = {x->co, x->co};
	for (int s = 0; s < 2; s++) {
		struct twin_spec sp = {{x->av[s].win[0], x->av[s].win[1]}}; /* its own bounds over --from/--to */
		if (cli_window("compare", &sp, x->l.cap[s], (size_t)x->l.ncap[s], &sco[s], &c->side[s].window))
			return EXIT_USAGE;
	}
	if (ef_on(&x->filt[0])) {
		struct diag fd;
		cli_option_diag(&fd, "iopsy compare", "--host/--vm/--disk");
		ef_free(&x->filt[1]);
		if (ef_copy(&x->filt[1], &x->filt[0], &fd) < 0)
			return EXIT_USAGE;
		c->side[0].m.filter = &x->filt[0];
		c->side[1].m.filter = &x->filt[1];
	}
	struct an_capture_hooks hooks = {.done = capture_done, .ctx = soft};
	for (int s = 0; s < 2; s++)
		analysis_load_captures(&c->side[s], x->l.cap[s], (size_t)x->l.ncap[s], &sco[s], &hooks);
	if (cli_filter_check("compare", c->side[0].m.filter, "the before captures") |
	    cli_filter_check("compare", c->side[1].m.filter, "the after captures"))
		return EXIT_USAGE;
	return 0;
}

/* Compare, write the outputs; ret is the exit code so far. Returns the run's exit code. */
static int run_and_write(struct cmp_cli *x, int ret)
{
	struct compare *c = &x->c;
	struct diag cd;
	diag_init(&cd, NULL, -1);
	cd.prefix = "iopsy compare";
	cd.sink = diag_stderr();
	compare_run(c, &x->o, &cd);
	for (int s = 0; s < 2; s++)
		deliv_paths(&c->side[s], x->dv.redact);
	{ /* the comparison's own rules (the before side's, for the bands) */
		char cwd[4096];
		rules_display_paths(&c->rules, x->dv.redact, getcwd(cwd, sizeof cwd) ? cwd : NULL);
	}
	int w = cli_outputs_write(&x->outs, "compare", c, &x->ro);
	if (w > ret)
		ret = w;
	if (c->sum.reversed) { /* the reports say so in their first line; the run fails unless it was meant */
		fprintf(stderr, "iopsy compare: %s: the sides look reversed (%s)\n",
			x->allow_reversed ? "warning" : "error", c->sum.reversed_text);
		if (!x->allow_reversed) {
			fprintf(stderr, "iopsy compare: give the earlier captures with --before, or --allow-reversed "
					"to compare them in this order\n");
			return EXIT_USAGE;
		}
	}
	/* CI use: a regression (or, with mixed, any regression) fails the run */
	if (ret == EXIT_OK && x->fail_on >= 0 &&
	    (c->sum.outcome == CO_REGRESSED || (x->fail_on == CO_MIXED && c->sum.outcome == CO_MIXED)))
		ret = EXIT_FINDINGS;
	return ret;
}

int cmd_compare(int argc, char **argv)
{
	build_opts();
	struct cmp_cli *x = xcalloc(1, sizeof *x);
	size_t n = (size_t)argc + 1;
	x->l.cap[0] = xcalloc(n, sizeof *x->l.cap[0]);
	x->l.cap[1] = xcalloc(n, sizeof *x->l.cap[1]);
	x->l.rest = xcalloc(n, sizeof *x->l.rest);
	int ret = split_args(argc, argv, &x->l);
	cli_opts_init(&x->co);
	compare_opts_init(&x->o);
	x->outs = (struct cli_outputs){.what = 1};
	report_opts_init(&x->ro);
	x->fail_on = -1;
	compare_init(&x->c);
	ef_init(&x->filt[0]);
	ef_init(&x->filt[1]);
	if (ret)
		goto out;
	if ((ret = read_opts(x)) != 0) {
		if (ret < 0) /* --help printed */
			ret = 0;
		goto out;
	}
	struct an_load how = {.sink = diag_stderr(), .max_warnings = x->co.max_warnings};
	int soft = 0;
	if ((ret = load_inputs(x, &how, &soft)) != 0 || (ret = load_sides(x, &soft)) != 0)
		goto out;
	ret = run_and_write(x, soft);
out:
	deliv_free(&x->dv);
	compare_free(&x->c);
	ef_free(&x->filt[0]);
	ef_free(&x->filt[1]);
	free(x->l.cap[0]);
	free(x->l.cap[1]);
	free(x->l.rest);
	free(x);
	return ret;
}
