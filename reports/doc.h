/* doc.h — the report document: the sections of an analysis report as blocks (paragraphs,
 * key/value lines, lists and tables of typed cells), built once from the analysis and drawn by
 * every writer through its renderer here (text, Markdown, HTML, JSON) or in xlsx.c (a sheet).
 * The registry doc_secs[] names every section of the analysis report and how each writer marks
 * it (its heading, its HTML id, its JSON key, its sheet): tests/check_doc.c renders a capture set
 * that fills every section through every writer and finds each mark. Sections a writer still
 * draws by hand (the findings with their charts, the IO stacks) are listed there too, so the one
 * table says what every report holds. Text in blocks is raw (names from captures are in it); each
 * renderer escapes it. */
#ifndef IOPSY_DOC_H
#define IOPSY_DOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "compare.h"
#include "json.h"
#include "ltime.h"
#include "util.h"

enum doc_sec {
	DS_SUMMARY,
	DS_ACTIONS,
	DS_VERDICT,
	DS_COVERAGE,
	DS_FINDINGS,
	DS_IOPATH,
	DS_SQL,
	DS_ENTITIES,
	DS_CAPTURES,
	DS_INPUTS,
	DS_RULES,
	DS_DISKMAP,
	DS_METHOD,
	DS_HIST,        /* vscsiStats histograms of virtual disks (doc_vhist.c) */
	DS_COUNT
};

/* The sections of a comparison's report: its summary and actions, the verdict (the outcome, its
 * detail, SQL Server), the findings before and after, each side's captures, inputs and overridden
 * rules, the methodology. */
enum { COMPARE_SECS = 8 };
extern const enum doc_sec compare_secs[COMPARE_SECS];

/* The ways a report marks the document's sections; each reporter of reporters[] says which is its
 * own (struct reporter.doc), so tests/check_doc.c finds every section in every writer's report.
 * DW_PRINT: the reporter prints another's report (the PDF prints the HTML): the sections are
 * that one's. A new writer adds its column here and its marks to doc_secs[]. */
enum doc_writer { DW_NONE, DW_TEXT, DW_MD, DW_HTML, DW_JSON, DW_SHEET, DW_PRINT, DW_COUNT };

/* How each writer marks a section: the text heading, the Markdown heading line, the HTML element
 * id, the JSON key, the xlsx sheet name. */
struct doc_sec_info {
	const char *title;    /* "Inputs and overrides" (Markdown, HTML headings) */
	const char *text;     /* "INPUTS AND OVERRIDES" (the text report's heading, at a line start) */
	const char *md;       /* the Markdown mark */
	const char *html;     /* the HTML id */
	const char *json;     /* the JSON key */
	const char *sheet;    /* the xlsx sheet name */
};
/* The mark of section s in the reports of writer w (NULL for DW_NONE, DW_PRINT). */
const char *doc_mark(enum doc_sec s, enum doc_writer w);
extern const struct doc_sec_info doc_secs[DS_COUNT];

enum cell_type { CELL_NONE, CELL_TEXT, CELL_NUM, CELL_TIME };
struct doc_cell {
	enum cell_type t;
	char *s;      /* CELL_TEXT (owned) */
	double v;     /* CELL_NUM */
	int64_t ms;   /* CELL_TIME: UTC ms */
};

enum block_type { BLK_PARA, BLK_KV, BLK_LIST, BLK_TABLE };
/* What a block is, where a writer lays it out its own way (the summary's headline beside its
 * sentences, the actions as numbered steps, coverage a row per layer); ROLE_NONE: the block's type
 * says how it is drawn. */
enum block_role {
	ROLE_NONE,
	ROLE_HEADLINE,  /* BLK_PARA: the summary's one line */
	ROLE_LEAD,      /* BLK_LIST: the summary's sentences, said as one paragraph */
	ROLE_NOTICE,    /* BLK_KV: what an analysis was read with ("Window", "Selection"); the block's
	                 * text: the side of a comparison ("before", "after") or NULL */
	ROLE_ACTIONS,   /* BLK_TABLE: action, expected effect, findings ("1, 2"; "" none), why */
	ROLE_COVERAGE,  /* BLK_TABLE: a row per layer (COV_LAYERS, in order): layer, status, assessed,
	                 * present, why; the caption: the selection it is of, or NULL */
	ROLE_FOOT,      /* BLK_PARA: a small note at the section's end (HTML only: how times are said) */
	ROLE_FINDING,   /* BLK_KV: a finding's head, its rows in enum fhead's order */
	ROLE_EPISODE,   /* BLK_TABLE: the windows of a finding held over several (start, end) */
	ROLE_EVIDENCE,  /* BLK_TABLE: counter, unit, min, median, p95, max, samples, above, threshold */
	ROLE_RULE,      /* BLK_KV: "Load on the LUN" (when said), "Rule", "Source", "Advice" (when any) */
	ROLE_FIGURE,    /* BLK_PARA: a finding's chart: drawn in the HTML, PDF and workbook, its caption
	                 * elsewhere ("Current Disk Queue Length, Avg. Disk sec/Read over the capture") */
	ROLE_DISKMAP,   /* BLK_TABLE: guest host, guest disk, virtual disk, how (r = correlation or "")
	                 * of each mapping line */
	ROLE_ENTITIES,  /* BLK_TABLE: every entity with an IO rate, its figures as numbers (enum entcol);
	                 * drawn by the workbook, left out by the renderers of text (the labelled table
	                 * before it is theirs) */
	ROLE_CAPTURES,  /* BLK_TABLE: a capture a row, enum capcol's columns; the caption: its side or NULL */
	ROLE_PARTS,     /* BLK_TABLE: the files merged into the capture of row CP_OF of the table before */
	ROLE_HIST,      /* BLK_TABLE: a histogram (vscsiStats): bucket, then IOs and share (%) of one side
	                 * or of before and after (enum hcol); a chart in the HTML and PDF when one can be
	                 * drawn (doc_html_charted), the table elsewhere */
	ROLE_STACK_HEAD, /* BLK_KV: an IO stack's finding (enum stackhead's rows; values none without one) */
	ROLE_STACK,     /* BLK_TABLE: its boxes top to bottom (enum stackbox's columns) */
	ROLE_STACK_HOW, /* BLK_LIST: how its layers were matched, an item a link */
	ROLE_ENT_GROUP, /* BLK_TABLE: the entities of one layer and host (enum entgroup's columns; the
	                 * caption: the layer's title); a heading "name\nsub" starts a group of columns
	                 * drawn as one ("IO/s" over "p50 / p95 / max"), an empty heading continues it */
	ROLE_ENT_VMS,   /* BLK_TABLE: the VMs with disks in the captures and their CPU ready */
	ROLE_ENT_IDLE,  /* BLK_PARA: how many idle entities are not shown (the text: the count) */
	ROLE_FDIFF,     /* BLK_TABLE: a comparison's findings before and after (enum fdcol's columns, in
	                 * the comparison's order); the caption: why there is no row, or NULL */
	ROLE_SIDE_RULES, /* BLK_LIST: one side's overridden rules; the block's text: its side */
};
/* A histogram's columns (ROLE_HIST): the bucket as vscsiStats prints it, then per side shown its IOs
 * and their share in percent (3 columns: one side; 5: before and after). */
enum hcol { HC_BUCKET, HC_IOS, HC_SHARE, HC_IOS2, HC_SHARE2 };
/* A comparison's finding (ROLE_FDIFF): its status (cmp_fstatus_words) and its enum cmp_fstatus as
 * a number, the rule id, the finding's title, the kind's title, why it was not assessed on a side
 * (none), host (none), entity; each side's windows, worst severity (severity_names; none), the
 * severity as a number (-1 none) and the time held (s); its layer (layer_names). */
enum fdcol { FDC_STATUS, FDC_STATUS_CODE, FDC_ID, FDC_TITLE, FDC_KIND, FDC_WHY, FDC_HOST, FDC_ENTITY, FDC_SIDE,
	     FDC_LAYER = FDC_SIDE + 8, FDC_COUNT };
enum { FDC_WINDOWS, FDC_WORST, FDC_WORST_CODE, FDC_SUSTAINED }; /* + FDC_SIDE + 4 * side */

/* The blocks a writer lays out its own way only (the workbook's entity figures, the HTML's IO-stack
 * picture and entities tables): the generic renderers (doc_text, doc_md, doc_html, doc_json and
 * the workbook's document sheets) leave them out. */
bool doc_role_apart(enum block_role r);
/* An IO stack's head (ROLE_STACK_HEAD): the finding's number, its title, host, entity. */
enum stackhead { SH_NO, SH_TITLE, SH_HOST, SH_ENTITY, SH_COUNT };
/* A box of an IO stack (ROLE_STACK): its name, its role, its state (stack_states), the severity of
 * its finding (a number, -1 none), the finding's title (none), the entity's host and name (none:
 * not in the captures), then STACK_FIGS figures of label, median over the finding's window (the
 * whole capture without one) and unit (none: no figure). */
enum { STACK_FIGS = 4 };
enum stackbox { SB_BOX, SB_ROLE, SB_STATE, SB_SEV, SB_WHY, SB_HOST, SB_ENTITY, SB_FIG,
		SB_COUNT = SB_FIG + 3 * STACK_FIGS };
enum stack_state { SST_ABSENT, SST_WAITS, SST_FELT, SST_NOTE, SST_OK, SST_NOT_ASSESSED, SST_COUNT };
extern const char *const stack_states[SST_COUNT];
/* The rows of a finding's head (ROLE_FINDING): number, severity (severity_names), rule id, title,
 * host ("" none), entity, layer (layer_names), heuristic ("heuristic" or ""), start and end (times),
 * sustained (s), summary. */
enum fhead { FH_NO, FH_SEV, FH_ID, FH_TITLE, FH_HOST, FH_ENTITY, FH_LAYER, FH_HEUR, FH_START, FH_END, FH_SUSTAINED,
	     FH_SUMMARY, FH_COUNT };
/* A capture's columns (ROLE_CAPTURES): the file, "could not be read" or "", its format, "gzip" or
 * "", host, first and last row (times, with its clock offset), interval (s), rows, columns,
 * warnings, rows outside the window (none without one), the clock sentence ("" as recorded). */
enum capcol { CC_FILE, CC_FAILED, CC_FORMAT, CC_GZIP, CC_HOST, CC_START, CC_END, CC_INTERVAL, CC_ROWS, CC_COLUMNS,
	      CC_WARNINGS, CC_OUTSIDE, CC_CLOCK, CC_COUNT };
/* An entity's figures (ROLE_ENTITIES): layer, host, entity, active ("yes"/"no"), IO rate p50, p95,
 * max; latency counter, p50, p95, p99, max; second latency counter, p50, p95, p99, max; queue
 * counter, p50, p95, max; then the units of the IO rate, latency, second latency and queue. */
enum entcol {
	EC_LAYER,
	EC_HOST,
	EC_NAME,
	EC_ACTIVE,
	EC_IO,
	EC_LAT = EC_IO + 3,
	EC_LAT2 = EC_LAT + 5,
	EC_Q = EC_LAT2 + 5,
	EC_UNITS = EC_Q + 4,
	EC_COUNT = EC_UNITS + 4
};
/* A merged file's columns (ROLE_PARTS). */
enum { CP_OF, CP_FILE, CP_START, CP_END, CP_ROWS, CP_GAP, CP_OVERLAP, CP_LINE0, CP_LINE1, CP_OV0, CP_OV1, CP_WARNINGS,
       CP_COUNT };
enum { EV_COUNTER, EV_UNIT, EV_MIN, EV_MEDIAN, EV_P95, EV_MAX, EV_SAMPLES, EV_ABOVE, EV_THRESHOLD, EV_COUNT };

struct doc_block {
	enum block_type t;
	enum block_role role;
	char *text;             /* BLK_PARA; a table's caption (owned, may be NULL) */
	int ncols;              /* BLK_TABLE: columns; BLK_KV 2; BLK_LIST 1 */
	char **head;            /* BLK_TABLE: column headings (owned) */
	struct doc_cell *cell;  /* nrows * ncols, row-major */
	size_t nrows, cap;
	int col;                /* the next cell of the last row */
	bool wrap;              /* BLK_LIST: the text report wraps its items at 100 columns (else a
	                         * line an item, as grep wants a rule or a mapping) */
	bool labelled;          /* BLK_TABLE: each cell says what it is ("iops 12/30/41"): a text
	                         * line a row gives the cells alone */
	bool probe;             /* its texts end in DOC_PROBE (doc_probe) */
};

struct doc_section {
	bool on;                /* the section has content */
	int tone;               /* DS_SUMMARY: -1 nothing found, else the worst severity (colours it) */
	char *note;             /* said beside the heading ("guest disk = virtual disk"), NULL */
	struct doc_block *b;
	size_t nb, cap;
};

struct doc {
	struct doc_section sec[DS_COUNT];
	const struct ltime *lt;  /* times' local clock (borrowed) */
	bool links;              /* findings are anchors of the report (#f1): actions link to them */
	bool hyperv;             /* the layers are Hyper-V's (coverage's layer names) */
};

void doc_init(struct doc *d, const struct ltime *lt);
/* A test's probe (tests/check_doc.c counts the section x writer pairs drawn from the document):
 * while s >= 0, every text put into a block of section s (paragraphs, captions, headings, text
 * cells, list items, key/value values, the section's note) ends in DOC_PROBE, so a report that
 * shows the mark drew that section from the document. -1: off (the default). */
#define DOC_PROBE "Docprobe7"
void doc_probe(int s);
void doc_free(struct doc *d);

/* Building. Each call turns the section on. */
/* A new block of s (never joined to the one before), of type t and role r. */
struct doc_block *doc_block(struct doc *d, enum doc_sec s, enum block_type t, enum block_role r, int ncols);
void doc_para(struct doc *d, enum doc_sec s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A key: value line; consecutive ones form one block. */
void doc_kv(struct doc *d, enum doc_sec s, const char *key, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* A list item; consecutive ones form one list. doc_item_at nests it depth levels under the item
 * before (its cell keeps the depth in v). */
void doc_item(struct doc *d, enum doc_sec s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void doc_item_at(struct doc *d, enum doc_sec s, int depth, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The last block of s wraps in text (struct doc_block.wrap). */
void doc_wrap(struct doc *d, enum doc_sec s);
/* What the heading says beside the title. */
void doc_note(struct doc *d, enum doc_sec s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A table with these column headings (NULL-terminated) and an optional caption. */
struct doc_block *doc_table(struct doc *d, enum doc_sec s, const char *caption, const char *const *head);
/* Appends a row; then one cell per column, in order. */
void doc_row(struct doc_block *t);
void doc_cell_text(struct doc_block *t, const char *s);
void doc_cell_num(struct doc_block *t, double v);
void doc_cell_time(struct doc_block *t, int64_t ms);
void doc_cell_none(struct doc_block *t);

/* The summary (DS_SUMMARY: the headline, the sentences, es->tone) and the recommended actions
 * (DS_ACTIONS) of an executive summary (summary.h); the strings are copied. */
struct exec_summary;
void doc_summary(struct doc *d, const struct exec_summary *es);
/* A comparison's summary and actions (summary_of_compare, in d->lt's local time) and each side's
 * notices. */
void doc_compare_summary(const struct compare *c, struct doc *d);
/* The window and the selection a was read with, as an ROLE_NOTICE block of DS_SUMMARY (side: NULL,
 * or "before"/"after"); nothing when neither was given. */
void doc_workflow(struct doc *d, const struct analysis *a, const char *side);
/* The notices of d (doc_workflow) as each writer says them: text a wrapped line each (side: as
 * "  before  " in front); Markdown a paragraph each ("**Before.** "); HTML a notice each. Nothing
 * when there is none. */
void doc_notices_text(const struct doc *d, struct buf *out);
void doc_notices_md(const struct doc *d, struct buf *out);
void doc_notices_html(const struct doc *d, struct buf *out);

/* The captures of a into DS_CAPTURES (ROLE_CAPTURES, and ROLE_PARTS for a capture merged from
 * files); side: NULL, or "before"/"after" (the table's caption). */
void doc_captures(struct doc *d, const struct analysis *a, const char *side);

/* Finding no (1-based) f of an analysis into DS_FINDINGS: its head, its episode's windows, its
 * evidence, its rule, source and advice. */
void doc_finding(struct doc *d, const struct finding *f, size_t no);
/* The blocks of finding no (1-based) in d's DS_FINDINGS: the index of its head block, its count of
 * blocks in *n; -1 when there is none. */
long doc_finding_at(const struct doc *d, size_t no, size_t *n);

/* Finding no's evidence table (ROLE_EVIDENCE) or its rule, source and advice (ROLE_RULE) as the
 * HTML report draws them inside the finding's article. */
void doc_html_finding_part(const struct doc *d, size_t no, enum block_role r, struct buf *out);

/* s for the customer, raw: a rule id it names ("queue.guest_vscsi_cap") said as the finding's
 * title in quotes (the ids are in the appendix). */
void doc_customer_text(struct buf *b, const char *s);

/* The analysis report's generated sections: the summary and actions, the verdict, inputs and
 * overrides, the disk map, the overridden rules, coverage, the IO path, SQL Server, the entities
 * and the methodology appendix. */
void doc_of_analysis(const struct analysis *a, const struct ltime *lt, struct doc *d);
/* Only the sections of mask (1u << DS_x each): a writer that draws two of them builds two. */
void doc_of_analysis_only(const struct analysis *a, const struct ltime *lt, struct doc *d, unsigned mask);
/* A comparison's: each side's inputs and overrides, and the comparison's methodology with the
 * glossary. */
void doc_of_compare(const struct compare *c, const struct ltime *lt, struct doc *d);
/* DS_HIST (doc_vhist.c): an analysis's histograms (each virtual disk's sentence and a table per
 * histogram), and a comparison's (what moved per disk, tables of before and after). */
void doc_vhist_analysis(const struct analysis *a, struct doc *d);
void doc_vhist_compare(const struct compare *c, struct doc *d);

/* The IO stacks the reports draw (a->shown) into DS_IOPATH (ROLE_STACK_HEAD, ROLE_STACK,
 * ROLE_STACK_HOW each); they alone do not turn the section on. */
void doc_stacks(const struct analysis *a, struct doc *d);

/* The HTML's entities tables into DS_ENTITIES: a table per layer and host of its active entities
 * (ROLE_ENT_GROUP), the VMs (ROLE_ENT_VMS), how many idle ones are not shown (ROLE_ENT_IDLE); they
 * alone do not turn the section on. */
void doc_entity_tables(const struct analysis *a, struct doc *d);

/* A comparison's findings before and after (DS_FINDINGS, ROLE_FDIFF) and each side's overridden
 * rules (DS_RULES, ROLE_SIDE_RULES): builders of doc_of_compare. */
void doc_compare_findings(const struct compare *c, struct doc *d);
void doc_compare_rules(const struct compare *c, struct doc *d);
/* The first block of section s with role r, or NULL; a cell of table t as text (NULL unless text)
 * and as a number. */
const struct doc_block *doc_role(const struct doc *d, enum doc_sec s, enum block_role r);
const char *doc_fdiff_s(const struct doc_block *t, size_t r, int k);
double doc_fdiff_v(const struct doc_block *t, size_t r, int k);

/* The counters an entities table shows for e: its IO rate, its (read or device) latency, its
 * second latency (write, kernel or lower), its queue; -1 where the layer has none. One choice for
 * every writer. */
struct ent_metrics {
	int io, lat, lat2, q;
};
void entity_metrics(const struct analysis *a, const struct entity *e, struct ent_metrics *em);

/* Renderers of one section. Nothing is written for a section that is off. */
void doc_text(const struct doc *d, enum doc_sec s, struct buf *out);
void doc_md(const struct doc *d, enum doc_sec s, struct buf *out);
void doc_html(const struct doc *d, enum doc_sec s, struct buf *out);
/* doc_html with a chart for each ROLE_HIST table: chart(ctx, table, out) appends the figure and
 * returns 0; returns 1 for the table inside a closed <details> (past the charts a report draws), or
 * < 0 for the table (no gnuplot). */
typedef int (*doc_chart_fn)(void *ctx, const struct doc_block *t, struct buf *out);
void doc_html_charted(const struct doc *d, enum doc_sec s, struct buf *out, doc_chart_fn chart, void *ctx);
/* The summary's paragraph as text and Markdown say it: the headline (unless the first sentence
 * begins with it), then the sentences; raw. */
void doc_summary_para(const struct doc *d, struct buf *out);
/* The section as the JSON key of doc_secs[] and an array of its blocks:
 * {"type": "paragraph", "text"} | {"type": "key_value", "items": [{"key", "value"}]} |
 * {"type": "list", "items": [...]} | {"type": "table", "caption", "columns", "rows": [[...]]}
 * (cells: string, number, ISO time or null). */
void doc_json(const struct doc *d, enum doc_sec s, struct json *j);

/* A cell as plain text (numbers as fmt_num, times ISO UTC), for writers without types. */
void doc_cell_str(const struct doc *d, const struct doc_cell *c, struct buf *out);

#endif
