/* helpgen.h — --help and the man page's lists printed from the tables that know them: the
 * analysis options (anopts[]), the input formats (parsers[]), the reports (reporters[]) and the
 * finding kinds (kinds[]), as curl's docs/cmdline-opts and git's parse-options do. `make man`
 * rewrites the generated regions of doc/iopsy.1 and tests/check_registry.c fails when the
 * committed page differs from what this generates. */
#ifndef IOPSY_HELPGEN_H
#define IOPSY_HELPGEN_H

#include <stdbool.h>

#include "util.h"

/* The column the option texts of analyze's and compare's --help start in. */
#define HELP_COL 28

/* One option row: "  OPT" then text from column col, wrapped at 96 columns; an OPT too long for
 * its column puts the text on the next line. */
void help_opt(struct buf *b, int col, const char *opt, const char *text);
/* A command's own options: rows {opt, text}, ended by a row whose opt is NULL. */
struct help_row {
	const char *opt;
	const char *text;
};
void help_rows(struct buf *b, int col, const struct help_row *rows);
/* The rows of anopts[] that flags take: ANF_ANALYZE gives analyze's "--NAME ARG" rows; ANF_COMPARE
 * gives compare's, each row for both sides and, when ANF_SIDED, "--before-NAME ARG,
 * --after-NAME ARG" for one side. skip (NULL-terminated, may be NULL) names rows left out. */
void help_anopts(struct buf *b, unsigned flags, const char *const *skip);
/* The --report rows of analyze (what 0) or compare (1), from reporters[]. */
void help_reports(struct buf *b, int what);
/* The common options of every reading command (--format from parsers[], --tz, --max-warnings,
 * --threads, --quiet, --help), with their text from column col. */
void help_common(struct buf *b, int col);

/* The generated regions of the man page: a region starts with a line
 * `.\" generated: NAME (make man)` and ends with `.\" end generated`; NAME is one of kinds,
 * formats, analyze-reports, compare-reports, analysis-options. Writes page with
 * every region's body regenerated into out. Returns the number of regions, or -1 when a region
 * is unknown or not closed (*why says which, static). */
int man_regenerate(const char *page, size_t len, struct buf *out, const char **why);

#endif
