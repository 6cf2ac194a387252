/* main.c — the iopsy command: dispatches subcommands from one table, installs signal handlers
 * that remove half-written outputs, and maps results to the documented exit codes. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "pdh.h"
#include "cmd_simulate.h"
#include "util.h"

#include "version.h"

struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{.name = "counters", .summary = "list what a capture holds (format, host, span, interval, objects)", .run = cmd_counters},
	{.name = "extract", .summary = "write a narrow CSV of the columns matching a regex", .run = cmd_extract},
	{.name = "analyze", .summary = "say where IO waits: findings with evidence, rule, source and advice", .run = cmd_analyze},
	{.name = "compare", .summary = "prove what a change did: before/after captures matched, with confidence intervals", .run = cmd_compare},
	{.name = "rules", .summary = "print the threshold table with sources", .run = cmd_rules},
	{.name = "batch", .summary = "weekly unattended reports over many capture sets: index, history, mail", .run = cmd_batch},
	{.name = "history", .summary = "list the runs recorded by batch (trends week over week)", .run = cmd_history},
	{.name = "simulate", .summary = "write realistic esxtop/perfmon captures of a scenario, with ground truth", .run = sim_main},
	{0},
};

static void print_help(FILE *fp)
{
	fprintf(fp, "Usage: iopsy COMMAND [OPTIONS] ...\n"
		    "Post-mortem analysis of VMware esxtop batch captures and Windows perfmon CSVs.\n\n"
		    "Commands:\n");
	for (const struct command *c = commands; c->name; c++)
		fprintf(fp, "  %-10s %s\n", c->name, c->summary);
	fprintf(fp, "\nInput formats (probed from the first bytes, or --format): %s.\n"
		    "Inputs may be gzip-compressed; '-' reads stdin. 'iopsy COMMAND --help' for details.\n\n"
		    "Exit codes:\n"
		    "  0  success\n"
		    "  1  findings at or above --fail-on (analysis commands)\n"
		    "  2  usage error (bad option or argument)\n"
		    "  3  unreadable or unrecognised input\n"
		    "  4  system error (out of memory, cannot write output)\n",
		parser_names());
}

static void on_signal(int sig)
{
	afile_cleanup_all();
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGHUP, on_signal);
	signal(SIGPIPE, on_signal); /* a closed pipe ends us quietly, as it does cat */
	signal(SIGXFSZ, SIG_IGN);   /* past ulimit -f a write fails with EFBIG and is reported */
	if (argc < 2) {
		print_help(stderr);
		return EXIT_USAGE;
	}
	const char *cmd = argv[1];
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		if (argc > 2 && strcmp(cmd, "help") == 0) {
			for (const struct command *c = commands; c->name; c++) {
				if (strcmp(c->name, argv[2]) == 0) {
					char *av[] = {argv[2], "--help", NULL};
					return c->run(2, av);
				}
			}
		}
		print_help(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("iopsy %s\n", IOPSY_VERSION);
		return EXIT_OK;
	}
	for (const struct command *c = commands; c->name; c++) {
		if (strcmp(c->name, cmd) == 0) {
			/* getopt prints argv[0] in its messages: make it "iopsy COMMAND" */
			static char name[64];
			snprintf(name, sizeof name, "iopsy %s", c->name);
			argv[1] = name;
			return c->run(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "iopsy: unknown command '%s'\nTry 'iopsy --help'.\n", cmd);
	return EXIT_USAGE;
}
