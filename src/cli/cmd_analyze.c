/* cmd_analyze.c — `iopsy analyze CAPTURE...` and `iopsy rules`. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "anopts.h"
#include "json_out.h"
#include "text.h"
#include "commands.h"
#include "html.h"
#include "reporter.h"
#include "window.h"
#include "helpgen.h"

static const char analyze_intro[] =
	"Usage: iopsy analyze [OPTIONS] CAPTURE...\n"
	"Read esxtop and perfmon captures of one incident (any mix, several hosts and guests), align\n"
	"their clocks, and say where IO waits: the verdict first, then findings worst first with\n"
	"evidence, the rule and its source, and advice. CAPTURE may be gzip-compressed; '-' is stdin.\n"
	"\n";

static const struct help_row analyze_rows[] = {
	{"--json PATH", "write the JSON result (schema_version 3) to PATH ('-' = stdout, then the text summary is "
			"not printed unless --text is given)"},
	{"--text PATH", "write the text summary to PATH instead of stdout"},
	{"--html PATH", "write the self-contained HTML report to PATH (charts by gnuplot; '-' = stdout, then the "
			"text summary is not printed unless --text)"},
	{NULL, NULL},
};

static const struct help_row analyze_charts_rows[] = {
	{"--gnuplot-dir DIR", "keep each chart's data and gnuplot script in DIR (created if missing) to restyle it; "
			      "an existing DIR/style.gp is used"},
	{"--require-charts", "fail (exit 4, no HTML written) when gnuplot is missing or a chart cannot be drawn"},
	{"--fail-on LEVEL", "exit 1 when a finding is at least LEVEL (warning|critical)"},
	{NULL, NULL},
};

void analyze_help(struct buf *out)
{
	buf_adds(out, analyze_intro);
	help_anopts(out, ANF_ANALYZE, NULL);
	help_rows(out, HELP_COL, analyze_rows);
	help_reports(out, 0);
	buf_adds(out, DELIV_HELP);
	help_rows(out, HELP_COL, analyze_charts_rows);
	buf_adds(out, FILTER_HELP);
	help_common(out, 22);
	buf_adds(out, "\nExit codes: 0 ok, 1 findings at or above --fail-on, 2 usage, 3 an input could not be read\n"
		      "(the others are still analysed), 4 system error. 1 wins over 3 (the findings stay visible to\n"
		      "cron, the input error is on stderr), 4 over both. With no readable capture only the errors\n"
		      "are printed. No report may be written over an input (exit 2).\n");
}

enum {
	OPT_JSON = OPT_COMMON_END + 1,
	OPT_TEXT,
	OPT_FAILON,
	OPT_HTML,
	OPT_GNUPLOT_DIR,
	OPT_REQUIRE_CHARTS,
	OPT_REPORT,
};

static int analyze_run(int argc, char **argv, struct ent_filter *filt);

/* A capture that could not be read: its exit code, if worse (ctx: the exit code). */
static void capture_done(void *ctx, size_t i, int rc)
{
	(void)i;
	int *ret = ctx;
	if (rc < 0 && exit_code_for(rc) > *ret)
		*ret = exit_code_for(rc);
}

int cmd_analyze(int argc, char **argv)
{
	struct ent_filter filt;
	ef_init(&filt);
	int rc = analyze_run(argc, argv, &filt);
	ef_free(&filt);
	return rc;
}

static int analyze_run(int argc, char **argv, struct ent_filter *filt)
{
	/* the analysis options of the table (anopts.h), then analyze's own */
	static const struct option own[] = {{"json", required_argument, NULL, OPT_JSON},
					    {"text", required_argument, NULL, OPT_TEXT},
					    {"fail-on", required_argument, NULL, OPT_FAILON},
					    {"html", required_argument, NULL, OPT_HTML},
					    {"gnuplot-dir", required_argument, NULL, OPT_GNUPLOT_DIR},
					    {"require-charts", no_argument, NULL, OPT_REQUIRE_CHARTS},
					    {"report", required_argument, NULL, OPT_REPORT},
					    FILTER_LONG_OPTS,
					    COMMON_LONG_OPTS,
					    DELIV_LONG_OPTS,
					    {0}};
	struct option opts[96];
	size_t nopts = cli_anopt_longopts(opts, 0, sizeof opts / sizeof opts[0], ANF_ANALYZE);
	cli_longopts_add(opts, nopts, sizeof opts / sizeof opts[0], own);
	struct deliv_opts dv = {0};
	struct common_opts co;
	cli_opts_init(&co);
	struct an_values av;
	memset(&av, 0, sizeof av);
	struct cli_outputs outs = {.what = 0};
	struct report_opts ro;
	report_opts_init(&ro);
	struct html_opts *ho = &ro.html;
	int fail_on = -1;
	int c;
	optind = 0;
	while ((c = cli_getopt(argc, argv, "qh", opts, "analyze")) != -1) {
		int k = common_opt(c, optarg, &co);
		if (!k)
			k = cli_flow_opt("analyze", c, optarg, NULL, filt);
		if (!k)
			k = cli_anopt("analyze", c, optarg, &av, 1);
		if (k < 0)
			return EXIT_USAGE;
		if (k)
			continue;
		if ((k = deliv_opt(c, optarg, &dv, &outs, "analyze")) != 0) {
			if (k == EXIT_USAGE)
				return deliv_free(&dv), EXIT_USAGE;
			continue;
		}
		switch (c) {
		case OPT_JSON:
		case OPT_TEXT:
		case OPT_HTML:
			if (cli_output_add(&outs, "analyze", c == OPT_JSON ? "json" : c == OPT_TEXT ? "text" : "html", optarg))
				return EXIT_USAGE;
			break;
		case OPT_REPORT:
			if (cli_output_parse(&outs, "analyze", optarg))
				return EXIT_USAGE;
			break;
		case OPT_FAILON:
			if (strcmp(optarg, "warning") == 0)
				fail_on = SEV_WARNING;
			else if (strcmp(optarg, "critical") == 0)
				fail_on = SEV_CRITICAL;
			else /* info is refused: an info finding is no reason to fail a run (help, man page) */
				return usage_error("analyze", "--fail-on takes warning or critical, not '%s'", optarg);
			break;
		case OPT_GNUPLOT_DIR: ho->gnuplot_dir = optarg; break;
		case OPT_REQUIRE_CHARTS: ho->require_charts = true; break;
		case 'h': return cli_print_help(analyze_help);
		default: return usage_hint("analyze");
		}
	}
	/* the reports name the files analyze was given (the last --vmkernel-log for its notes) */
	struct analyze_opts ao = av.ao;
	ao.vmklog = av.nvmklog ? av.vmklog[av.nvmklog - 1] : NULL;
	ao.partitions = av.partitions;
	ao.map = av.map;
	ao.rules = av.rules;
	if (optind >= argc)
		return usage_error("analyze", "no capture file given");
	int stdin_uses = 0;
	for (int i = optind; i < argc; i++)
		stdin_uses += strcmp(argv[i], "-") == 0;
	if (stdin_uses > 1)
		return usage_error("analyze", "'-' (stdin) can be given only once");
	if (cli_outputs_finish(&outs, "analyze"))
		return EXIT_USAGE;
	if ((ho->gnuplot_dir || ho->require_charts) && !cli_outputs_has(&outs, "html"))
		return usage_error("analyze", "--gnuplot-dir and --require-charts go with --html");
	{
		/* no report may overwrite an input: the captures, logs, partition tables, map, rules */
		char **in = xcalloc((size_t)(argc - optind) + av.nvmklog + 4, sizeof *in);
		int nin = 0;
		for (int i = optind; i < argc; i++)
			in[nin++] = argv[i];
		for (size_t i = 0; i < av.nvmklog; i++)
			in[nin++] = (char *)(uintptr_t)av.vmklog[i];
		in[nin++] = (char *)(uintptr_t)ao.partitions;
		in[nin++] = (char *)(uintptr_t)ao.map;
		in[nin++] = (char *)(uintptr_t)ao.rules;
		in[nin++] = (char *)(uintptr_t)dv.logo;
		int bad = cli_outputs_not_inputs(&outs, "analyze", in, nin);
		free(in);
		if (bad)
			return EXIT_USAGE;
	}

	int drc = deliv_finish(&dv, &ro, "analyze");
	if (drc)
		return deliv_free(&dv), drc;
	struct twin tw;
	struct twin_spec win = {{av.win[0], av.win[1]}};
	if (cli_window("analyze", &win, argv + optind, (size_t)(argc - optind), &co, &tw))
		return deliv_free(&dv), EXIT_USAGE;
	struct analysis a;
	analysis_init(&a);
	a.sink = diag_stderr();
	a.window = tw;
	a.m.filter = ef_on(filt) ? filt : NULL;
	int ret = EXIT_OK;
	/* the inputs (anopts.h's loader): the rules and the map are premises (exit 2, or 3 for an
	 * unreadable rules file, before anything is read), a log or partitions file that cannot be
	 * read is an input error (exit 3, the rest is analysed) */
	struct an_load how = {.sink = diag_stderr(), .max_warnings = co.max_warnings};
	if (ao.rules) {
		int rrc = analysis_load_input(&a, AN_IN_RULES, ao.rules, &how);
		if (rrc < 0) {
			analysis_free(&a);
			deliv_free(&dv);
			return rrc == ERR_IO ? EXIT_INPUT : EXIT_USAGE;
		}
	}
	if (ao.map && analysis_load_input(&a, AN_IN_MAP, ao.map, &how) < 0) {
		ret = EXIT_USAGE;
		goto out;
	}
	if (analysis_load_side_files(&a, &av, &how) < 0)
		ret = EXIT_INPUT;
	analysis_set_opts(&a, &ao);
	struct an_capture_hooks hooks = {.done = capture_done, .ctx = &ret};
	analysis_load_captures(&a, argv + optind, (size_t)(argc - optind), &co, &hooks);
	if (cli_filter_check("analyze", a.m.filter, NULL)) {
		ret = EXIT_USAGE;
		goto out;
	}
	analysis_run(&a, &ao);
	size_t readable = 0;
	for (size_t i = 0; i < a.m.ncaps; i++)
		readable += !a.m.caps[i].failed;
	if (!readable)
		goto out; /* only the errors: no report of nothing */
	deliv_paths(&a, dv.redact);
	int w = cli_outputs_write(&outs, "analyze", &a, &ro);
	if (w > ret)
		ret = w;
	/* findings at --fail-on win over an input error (exit 3), so that cron sees them; a system
	 * error (4) wins over both */
	if (ret != EXIT_SYSTEM && fail_on >= 0 && analysis_worst(&a) >= fail_on)
		ret = EXIT_FINDINGS;
out:
	analysis_free(&a);
	deliv_free(&dv);
	return ret;
}

static const char rules_help_text[] =
	"Usage: iopsy rules [--rules FILE]\n"
	"Print the effective threshold table: name = value, unit, what it means and its source; with\n"
	"--rules FILE the values in force, then the file's sections. The output is itself a valid rules\n"
	"file.\n"
	"\n"
	"A rules file has 'name = value' lines, the value optionally with the rule's unit ('= 10 ms',\n"
	"'= 95 %'); '#' starts a comment. Values are checked against their unit (a percentage 0-100, a\n"
	"fraction 0-1, a count a whole number >= 1, nothing negative, no other unit), and a warning\n"
	"threshold may not exceed its critical one in any section; errors are FILE:LINE:COL (exit 2).\n"
	"A section header applies the lines after it only to what it names:\n"
	"  [host NAME]               an ESXi host's or a guest machine's entities\n"
	"  [vm NAME]                 the VM's guest disks and virtual disks (NAME:scsi0:1)\n"
	"  [disk NAME]               a guest disk (drive, mount point) on any guest, or a virtual disk\n"
	"  [disk HOST NAME]          ... on that host only\n"
	"  [device NAME]             a SCSI device (naa...) or an adapter (vmhbaN)\n"
	"  [global]                  back to the global lines\n"
	"The most specific wins: disk or device, then vm, then host, then global. Rules marked\n"
	"'global only' apply to the whole analysis and cannot be set in a section. Example:\n"
	"  [disk SQL01 L:]\n"
	"  guest.latency.warning_ms = 5 ms\n";

void rules_help(struct buf *out)
{
	buf_adds(out, rules_help_text);
}

int cmd_rules(int argc, char **argv)
{
	static const struct option opts[] = {{"rules", required_argument, NULL, 'r'}, {"help", no_argument, NULL, 'h'}, {0}};
	const char *path = NULL;
	int c;
	optind = 0;
	while ((c = cli_getopt(argc, argv, "r:h", opts, "rules")) != -1) {
		switch (c) {
		case 'r': path = optarg; break;
		case 'h': return cli_print_help(rules_help);
		default: return usage_hint("rules");
		}
	}
	if (optind < argc)
		return usage_error("rules", "unexpected argument '%s'", argv[optind]);
	struct rules rl;
	rules_init(&rl);
	int rrc = path ? cli_load_rules(&rl, path) : 0;
	if (rrc < 0)
		return rrc == ERR_IO ? EXIT_INPUT : EXIT_USAGE;
	struct buf b;
	buf_init(&b);
	rules_print(&rl, &b);
	int ret = fwrite(b.data, 1, b.len, stdout) == b.len && fflush(stdout) == 0 ? EXIT_OK : EXIT_SYSTEM;
	buf_free(&b);
	return ret;
}
