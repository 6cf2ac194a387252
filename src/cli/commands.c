/* commands.c — the table of subcommands (name, summary, entry point, help text) and the main
 * help, which lists the commands and the input formats from their tables. */
#include "commands.h"

#include "parser.h"

const struct command commands[] = {
	{.name = "counters", .summary = "list what a capture holds (format, host, span, interval, objects)",
	 .run = cmd_counters, .help = counters_help},
	{.name = "extract", .summary = "write a narrow CSV of the columns matching a regex", .run = cmd_extract,
	 .help = extract_help},
	{.name = "view", .summary = "write an offline HTML page to chart any counter, findings on the timeline",
	 .run = cmd_view, .help = view_help},
	{.name = "analyze", .summary = "say where IO waits: findings with evidence, rule, source and advice",
	 .run = cmd_analyze, .help = analyze_help},
	{.name = "compare", .summary = "prove what a change did: before/after captures matched, with confidence intervals",
	 .run = cmd_compare, .help = compare_help},
	{.name = "rules", .summary = "print the threshold table with sources", .run = cmd_rules, .help = rules_help},
	{.name = "batch", .summary = "weekly unattended reports over many capture sets: index, history, mail",
	 .run = cmd_batch, .help = batch_help_out},
	{.name = "history", .summary = "list the runs recorded by batch (trends week over week)", .run = cmd_history,
	 .help = history_help_out},
	{.name = "simulate", .summary = "write realistic esxtop/perfmon captures of a scenario, with ground truth",
	 .run = sim_main, .help = sim_help},
	{0},
};

void cli_main_help(struct buf *b)
{
	buf_adds(b, "Usage: iopsy COMMAND [OPTIONS] ...\n"
		    "Post-mortem analysis of VMware esxtop batch captures and Windows perfmon CSVs (guests and\n"
		    "Hyper-V hosts).\n\n"
		    "Commands:\n");
	for (const struct command *c = commands; c->name; c++)
		buf_printf(b, "  %-10s %s\n", c->name, c->summary);
	buf_printf(b, "\nInput formats (probed from the first bytes, or --format): %s.\n"
		      "Inputs may be gzip-compressed; '-' reads stdin. 'iopsy COMMAND --help' for details.\n\n"
		      "Exit codes:\n"
		      "  0  success\n"
		      "  1  findings at or above --fail-on (analysis commands)\n"
		      "  2  usage error (bad option or argument)\n"
		      "  3  unreadable or unrecognised input\n"
		      "  4  system error (out of memory, cannot write output)\n",
		   parser_names());
}

int cli_print_help(void (*help)(struct buf *out))
{
	struct buf b;
	buf_init(&b);
	help(&b);
	int ok = fwrite(b.data, 1, b.len, stdout) == b.len && fflush(stdout) == 0;
	buf_free(&b);
	return ok ? EXIT_OK : EXIT_SYSTEM;
}
