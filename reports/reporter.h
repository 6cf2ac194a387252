/* reporter.h — the output formats: one table of reporters (doc/architecture.md, "The tables"). A
 * reporter renders a model — an analysis, a comparison, a capture inventory or a batch run — into
 * a buffer; what it cannot render is NULL. Callers pick one by name (--report NAME=PATH, with
 * --json/--text/--html as aliases) and write the buffer; reporters never compute analysis, they
 * read the model. Adding a format is one file and one row here. */
#ifndef IOPSY_REPORTER_H
#define IOPSY_REPORTER_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "batchres.h"
#include "compare.h"
#include "doc.h"
#include "html.h"
#include "inventory.h"
#include "json.h"
#include "pdf.h"
#include "util.h"

/* What a caller adds to a report, and what a reporter tells back. */
struct report_opts {
	struct html_opts html;            /* the HTML writer's charts (gnuplot) and extra section */
	/* extra sections of a batch set's report (its week-over-week trend); NULL = none */
	void (*json_extra)(void *ctx, struct json *j);
	void (*text_extra)(void *ctx, struct buf *out);
	void *extra_ctx;
	struct diag *d;                   /* the reporter's messages (a chart that failed); NULL drops */
	struct html_result res;           /* filled by the HTML writer */
	size_t index, count;              /* inventories: this file's place among count files; call
	                                   * with the same out each time (it may be reset between) */
	struct json js;                   /* the JSON writer's state across those calls */
	struct pdf_opts pdf;              /* the PDF writer's renderer (Chromium) */
};

/* A writer's "nothing to write" (a PDF without Chromium and without --require-pdf: the warning is
 * given, the other reports are written). */
#define REPORT_SKIPPED 1

struct reporter {
	const char *name;                 /* "text", "json", "html", "md" */
	const char *ext;                  /* file extension: "txt", "json", ... */
	const char *summary;              /* one line for --help */
	enum doc_writer doc;              /* how its analysis and comparison mark the document's
	                                   * sections (doc.h); DW_PRINT: those of print_of */
	const struct reporter *print_of;  /* DW_PRINT: the reporter whose report this one prints */
	/* Each appends to out and returns 0, REPORT_SKIPPED, or a negative code: ERR_IO,
	 * CHARTS_NO_GNUPLOT or CHARTS_FAILED (HTML with --require-charts: out is then incomplete),
	 * PDF_NO_CHROMIUM or PDF_FAILED (PDF with --require-pdf). */
	int (*analysis)(const struct analysis *a, struct report_opts *o, struct buf *out);
	int (*compare)(const struct compare *c, struct report_opts *o, struct buf *out);
	int (*inventory)(const struct inventory *inv, struct report_opts *o, struct buf *out);
	int (*batch)(const struct batch *b, const struct run_info *ri, struct report_opts *o, struct buf *out);
};

/* All reporters, NULL-terminated. */
extern const struct reporter *const reporters[];
/* The reporter called name, or NULL. */
const struct reporter *reporter_find(const char *name);
/* "text, json, html, md" — the names of those that render what (0 analysis, 1 compare,
 * 2 inventory, 3 batch); static storage. */
const char *reporter_names(int what);
/* Ends a stream of inventories (the JSON array of several files). */
void report_inventory_end(const struct reporter *r, struct report_opts *o, struct buf *out);
/* Options with nothing added. */
void report_opts_init(struct report_opts *o);

#endif
