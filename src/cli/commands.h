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
int cmd_view(int argc, char **argv);
/* `iopsy simulate`; argv[0] is "simulate". Returns an exit code (0 ok, 2 usage, 4 system error). */
int sim_main(int argc, char **argv);

/* Each command's --help text, appended to out. */
void counters_help(struct buf *out);
void extract_help(struct buf *out);
void view_help(struct buf *out);
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
	OPT_THREADS,
	OPT_COMMON_END
};
#define COMMON_LONG_OPTS                                                                               \
	{"format", required_argument, NULL, OPT_FORMAT}, {"tz", required_argument, NULL, OPT_TZ},        \
		{"max-warnings", required_argument, NULL, OPT_MAX_WARNINGS},                             \
		{"quiet", no_argument, NULL, 'q'}, {"help", no_argument, NULL, 'h'},                     \
		{"threads", required_argument, NULL, OPT_THREADS}

/* The common options' rows after --format, whose row help_common (helpgen.h) writes from parsers[]. */
#define COMMON_HELP_REST                                                                               \
	"  --tz ZONE           the customer's time zone: an IANA name (Europe/Berlin, DST per time\n" \
	"                      stamp) or an offset (+09:00, -0500, UTC); reports show times in it\n"  \
	"                      beside UTC, and perfmon local time without a header bias is read in\n" \
	"                      it (default: the perfmon bias, else UTC)\n"                           \
	"  --max-warnings N    warnings shown per file before they are only counted (default 20,\n"  \
	"                      -1 = all)\n"                                                            \
	"  --threads N         threads reading each capture (default: auto = two on an uncompressed\n" \
	"                      capture of 16 MB or more when there are two CPUs; 1 = one; the\n"    \
	"                      environment variable IOPSY_THREADS sets the default); the output\n"   \
	"                      is the same with any N\n"                                             \
	"  -q, --quiet         no progress line on stderr\n"                                          \
	"  -h, --help          this help\n"

/* The deliverable's options of analyze and compare (cmd_common.c): --pdf/--xlsx PATH (aliases
 * of --report pdf=/xlsx=), the paper, the engagement fields and logo, path redaction. */
enum {
	OPT_PDF = 1100,
	OPT_XLSX,
	OPT_PAPER,
	OPT_REQUIRE_PDF,
	OPT_TITLE,
	OPT_CUSTOMER,
	OPT_PREPARED_BY,
	OPT_LOGO,
	OPT_REDACT_PATHS,
};
#define DELIV_LONG_OPTS                                                                                \
	{"pdf", required_argument, NULL, OPT_PDF}, {"xlsx", required_argument, NULL, OPT_XLSX},          \
		{"paper", required_argument, NULL, OPT_PAPER},                                           \
		{"require-pdf", no_argument, NULL, OPT_REQUIRE_PDF},                                     \
		{"title", required_argument, NULL, OPT_TITLE},                                           \
		{"customer", required_argument, NULL, OPT_CUSTOMER},                                     \
		{"prepared-by", required_argument, NULL, OPT_PREPARED_BY},                               \
		{"logo", required_argument, NULL, OPT_LOGO},                                             \
		{"redact-paths", no_argument, NULL, OPT_REDACT_PATHS}
#define DELIV_HELP                                                                                     \
	"  --pdf PATH                write the report as PDF (the HTML's print layout, by headless\n"     \
	"                            Chromium; without Chromium a warning and no PDF)\n"                 \
	"  --paper a4|letter         the PDF's and the print layout's page size (default a4)\n"         \
	"  --require-pdf             fail (exit 4, no PDF) when the PDF cannot be made\n"               \
	"  --xlsx PATH               write an Excel workbook: summary, findings with evidence,\n"       \
	"                            entities and the series behind each finding, real date-times\n"    \
	"  --title TEXT              the report's title (default: the question it answers)\n"          \
	"  --customer TEXT           the customer or engagement, on the title and in the footer\n"     \
	"  --prepared-by TEXT        the consultant or company that prepared the report\n"             \
	"  --logo FILE               a PNG or SVG logo (at most 512 KiB) embedded in the report\n"     \
	"  --redact-paths            show capture files by their base name only\n"
struct report_brand;
struct cli_outputs;
struct deliv_opts {
	const char *paper, *logo;
	bool redact, require_pdf;
	struct report_brand *brand; /* allocated by deliv_opt; NULL when no field was given */
};
struct report_opts;
struct model;
struct analysis;
/* Handles a deliverable option: 1 when c was one, 0 when not, EXIT_USAGE (printed) when bad. */
int deliv_opt(int c, const char *arg, struct deliv_opts *d, struct cli_outputs *outs, const char *cmd);
/* Loads the logo and hands everything to the reporters. Returns EXIT_OK or EXIT_USAGE/EXIT_INPUT
 * (printed). */
int deliv_finish(struct deliv_opts *d, struct report_opts *ro, const char *cmd);
/* The file names the reports of a show (analysis_display_paths): as given, relative to the
 * working directory when an absolute path lies below it, or the base name with redact. */
void deliv_paths(struct analysis *a, bool redact);
void deliv_free(struct deliv_opts *d);
/* A --paper value (analyze, compare, batch): 0, or EXIT_USAGE (printed) when it is not a4 or
 * letter (html_paper_known). */
int cli_paper(const char *cmd, const char *arg);

/* The consultant's workflow options (cli_flow.c): a time window (--from/--to; compare also per
 * side) and entity filters (--host/--vm/--disk). Codes are >= 1200. */
enum { OPT_FROM = 1200, OPT_TO, OPT_FHOST, OPT_FVM, OPT_FDISK };
/* counters' and extract's window (analyze and compare take it from the table of analysis options) */
#define WINDOW_LONG_OPTS {"from", required_argument, NULL, OPT_FROM}, {"to", required_argument, NULL, OPT_TO}
#define FILTER_LONG_OPTS                                                                               \
	{"host", required_argument, NULL, OPT_FHOST}, {"vm", required_argument, NULL, OPT_FVM},          \
		{"disk", required_argument, NULL, OPT_FDISK}
#define WINDOW_HELP                                                                                    \
	"  --from TIME, --to TIME    read only the rows of this window (both ends included): ISO with Z\n" \
	"                            or an offset (2026-07-27T20:00:00Z), or the captures' local time\n"  \
	"                            (13:00, 2026-07-27 13:00): in the --tz zone when given, else on the\n" \
	"                            clock of the first perfmon given, else esxtop's UTC; a time alone\n" \
	"                            is on the day the first capture starts\n"
#define FILTER_HELP                                                                                    \
	"  --host REGEX              only the ESXi hosts that match (PCRE2, case-insensitive, like\n"     \
	"                            --match); --host, --vm and --disk repeat, a pattern that matches\n" \
	"                            nothing is an error (exit 2)\n"                                      \
	"  --vm REGEX                only the VMs that match: their guest disks and SQL Server, virtual\n" \
	"                            disks, CPU, and the devices their worlds issue IO to (adapters stay)\n" \
	"  --disk REGEX              only the disks that match: guest disks (D:, E:\\SQLDATA), virtual\n" \
	"                            disks (SQL01:scsi0:1), devices (naa...)\n"
struct twin_spec;
struct twin;
struct ent_filter;
/* Handles a workflow option: --from/--to into sp[0] (counters, extract, validated by the table's
 * rows; NULL: not taken — analyze and compare take the window from the table itself), the
 * filters into f (NULL: not taken). Returns 1 if c was one, 0 if not,
 * ERR_USAGE (message printed) when its argument is bad. */
int cli_flow_opt(const char *cmd, int c, const char *arg, struct twin_spec *sp, struct ent_filter *f);
/* Resolves sp over the captures paths[n] and puts it into co; a repeated or missing local time
 * is said on stderr. Returns EXIT_OK or EXIT_USAGE (message printed). */
int cli_window(const char *cmd, const struct twin_spec *sp, char *const *paths, size_t n, struct common_opts *co,
	       struct twin *w);
/* After the captures are read: a filter pattern that matched nothing, or filters that left
 * nothing, is an error (printed). EXIT_OK or EXIT_USAGE. */
int cli_filter_check(const char *cmd, const struct ent_filter *f, const char *whose);

/* The analysis options of the table (src/engine/anopts.h) as long options: a row's plain option
 * has the code OPT_ANOPT + 4 * row, its --before- and --after- options + 1 and + 2. */
enum { OPT_ANOPT = 1300 };
/* Copies src's long options (up to its {0}) to dst[n...]; returns the new n (at most cap - 1:
 * room is kept for the end row, which is written). */
size_t cli_longopts_add(struct option *dst, size_t n, size_t cap, const struct option *src);
/* Appends the table's rows that flags take (ANF_ANALYZE: analyze's; ANF_COMPARE | ANF_SIDED:
 * compare's, plain and per side) in table order; returns the new n, the end row written. */
size_t cli_anopt_longopts(struct option *dst, size_t n, size_t cap, unsigned flags);
struct an_values;
/* Handles an analysis option of the table into v[0..nv-1] (a plain option into every one, a
 * --before-/--after- option into v[0]/v[1]). Returns 1 if c was one, 0 if not, ERR_USAGE
 * (printed: "--NAME needs WANT, not 'ARG'") when its value is bad. */
int cli_anopt(const char *cmd, int c, const char *arg, struct an_values *v, size_t nv);

/* common_opts_init, then the CLI's sink (stderr) and progress meter, and IOPSY_THREADS. */
void cli_opts_init(struct common_opts *co);
/* A --threads value: "auto" or 0 (auto), or 1 to MTREAD_MAX_THREADS. 0 or ERR_USAGE. */
int cli_parse_threads(const char *s, int *threads);
/* Reads a --rules file into r (iopsy rules, a comparison's own bands; an analysis's rules go
 * through analysis_load_input); messages on stderr. 0 or ERR_*. */
struct rules;
struct analysis;
int cli_load_rules(struct rules *r, const char *path);
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
/* getopt_long for command cmd with long options matched by their whole name only: an
 * abbreviation (--form for --format) is an unknown option, not a silent match. An unknown option,
 * a missing value or a value given to a flag is printed as "iopsy CMD: ..." (with "did you mean
 * --X?" when an option is close) and returned as '?'; otherwise it returns what getopt_long does.
 * getopt's own messages are off (opterr = 0). */
int cli_getopt(int argc, char *const *argv, const char *shortopts, const struct option *longopts, const char *cmd);
/* Prints "iopsy CMD: unknown option 'TOKEN'" with the closest of longopts' names. */
void cli_unknown_option(const char *cmd, const char *token, const struct option *longopts);
/* After cli_getopt has printed its message: "Try 'iopsy CMD --help'." and EXIT_USAGE. */
int usage_hint(const char *cmd);
/* Prints "iopsy CMD: msg" + "try 'iopsy CMD --help'" and returns EXIT_USAGE. */
int usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
