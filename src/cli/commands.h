/* commands.h — the subcommands and the option handling they share. Each returns an exit code. */
#ifndef IOPSY_COMMANDS_H
#define IOPSY_COMMANDS_H

#include <getopt.h>
#include <stdbool.h>

#include "input.h"
#include "progress.h"

int cmd_counters(int argc, char **argv);
int cmd_extract(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_rules(int argc, char **argv);
int cmd_batch(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_compare(int argc, char **argv);
/* `iopsy simulate`; argv[0] is "simulate". Returns an exit code (0 ok, 2 usage, 4 system error). */
int sim_main(int argc, char **argv);

/* Each command's --help text, appended to out. */
void counters_help(struct buf *out);
void extract_help(struct buf *out);
void analyze_help(struct buf *out);
void compare_help(struct buf *out);
void rules_help(struct buf *out);
void sim_help(struct buf *out);
void batch_help_out(struct buf *out);
void history_help_out(struct buf *out);

struct command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);
	void (*help)(struct buf *out);   /* NULL: the command prints its own */
};
/* The subcommands, ended by a row without a name. */
extern const struct command commands[];
/* `iopsy --help`: the commands and the input formats. */
void cli_main_help(struct buf *out);
/* Writes help's text to stdout; EXIT_OK or EXIT_SYSTEM. */
int cli_print_help(void (*help)(struct buf *out));

/* Long options every reading command accepts; codes are >= 1000. */
enum {
	OPT_FORMAT = 1000,
	OPT_TZ,
	OPT_MAX_WARNINGS,
	OPT_QUIET,
	OPT_HELP,
	OPT_COMMON_END
};
#define COMMON_LONG_OPTS                                                                               \
	{"format", required_argument, NULL, OPT_FORMAT}, {"tz", required_argument, NULL, OPT_TZ},        \
		{"max-warnings", required_argument, NULL, OPT_MAX_WARNINGS},                             \
		{"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'}

#define COMMON_HELP                                                                                    \
	"  --format NAME       force the input format (auto, esxtop, perfmon; default: probe)\n"      \
	"  --tz OFFSET         UTC offset of perfmon local time when the header has no bias\n"        \
	"                      (e.g. +09:00, -0500, UTC; default UTC)\n"                              \
	"  --max-warnings N    warnings shown per file before they are only counted (default 20,\n"  \
	"                      -1 = all)\n"                                                            \
	"  -q, --quiet         no progress line on stderr\n"                                          \
	"  -h, --help          this help\n"

/* common_opts_init, then the CLI's sink (stderr) and progress meter. */
void cli_opts_init(struct common_opts *co);
/* Reads a --rules file into r / a --map file into a; messages on stderr. 0 or ERR_*. */
struct rules;
struct analysis;
int cli_load_rules(struct rules *r, const char *path);
int cli_load_diskmap(struct analysis *a, const char *path);
/* A diag for a command's own messages about OPTION ("iopsy CMD: OPTION: ..."), on stderr. */
struct diag *cli_option_diag(struct diag *d, const char *cmd_prefix, const char *option);
/* Handles a common option; returns 1 if c was one, 0 if not, ERR_USAGE (message printed) if its
 * argument is bad. */
int common_opt(int c, const char *arg, struct common_opts *co);
/* Writes b to path ('-' = stdout) through a temporary file renamed when complete; errors are
 * printed as "iopsy CMD: ..." and returned as EXIT_SYSTEM. */
int write_output(const char *cmd, const char *path, const struct buf *b);
/* The reports a command writes: --report NAME=PATH (any reporter of the table), --json/--text/
 * --html PATH as aliases. At most one goes to stdout ('-'); without one, the text report does. */
#define CLI_MAX_OUTPUTS 16
struct cli_outputs {
	struct {
		const struct reporter *r;
		const char *path;
	} v[CLI_MAX_OUTPUTS];
	int n;
	int what;                 /* 0 analysis, 1 comparison (reporter_names) */
};
struct reporter;
struct report_opts;
/* Adds reporter name → path. Returns 0 or a usage error (printed) as EXIT_USAGE. */
int cli_output_add(struct cli_outputs *o, const char *cmd, const char *name, const char *path);
/* --report NAME=PATH. Same returns. */
int cli_output_parse(struct cli_outputs *o, const char *cmd, const char *arg);
/* Checks that at most one writes to stdout and adds the default text report. */
int cli_outputs_finish(struct cli_outputs *o, const char *cmd);
/* true when a report of that name was asked for. */
bool cli_outputs_has(const struct cli_outputs *o, const char *name);
/* Renders model (an analysis or a comparison) with every requested reporter and writes each
 * through a temporary file; messages as "iopsy CMD: ...". Returns the worst exit code. */
int cli_outputs_write(const struct cli_outputs *o, const char *cmd, const void *model, struct report_opts *ro);
/* Refuses (usage error, printed) an output path that is one of the inputs (the same file): a
 * report never overwrites a capture or a side file. Returns 0 or EXIT_USAGE. */
int cli_outputs_not_inputs(const struct cli_outputs *o, const char *cmd, char *const *inputs, int ninputs);
/* The same for one output path (extract -o). */
int cli_output_not_input(const char *cmd, const char *opt, const char *path, char *const *inputs, int ninputs);
/* Usage lines of --report for --help, from the reporter table (static storage). */
const char *cli_report_help(int what);
/* After getopt has printed its own message: "Try 'iopsy CMD --help'." and EXIT_USAGE. */
int usage_hint(const char *cmd);
/* Prints "iopsy CMD: msg" + "try 'iopsy CMD --help'" and returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
