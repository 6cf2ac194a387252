/* html_int.h — private to html.c, html_analysis.c and html_compare.c: the escaping and number
 * helpers, the notes and figures of a report being written, and the page chrome html.c writes
 * for both reports. */
#ifndef IOPSY_HTML_INT_H
#define IOPSY_HTML_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "html.h"
#include "compare.h"
#include "fmt.h"
#include "json.h"
#include "json_out.h"
#include "ltime.h"
#include "rules_out.h"
#include "summary.h"
#include "doc.h"
#include "text.h"

/* With --require-charts a chart that cannot be drawn is an error, else a warning. */
#define MSG_LEVEL(o) ((o)->require_charts ? DIAG_ERROR : DIAG_WARNING)

static inline void esc(struct buf *b, const char *s) { html_escape(b, s); }

static inline void num(struct buf *b, double v) { fmt_num2(b, v, "&ndash;"); }

static inline void duration(struct buf *b, double s) { fmt_duration(b, s, false); }
#define when fmt_when
#define hhmmss fmt_hhmmss
#define same_day fmt_same_day

static inline const char *sev_class(int sev) { return sev == SEV_CRITICAL ? "crit" : sev == SEV_WARNING ? "warn" : "info"; }
static inline const char *sev_word(int sev) { return severity_titles[sev]; }

static inline const char *kind_title(enum kind k) { return kinds[k].title; }

/* Report-level warnings collected while rendering. */
struct notes {
	struct buf items;   /* <li>…</li> */
	size_t n;
};

/* Where a chart goes in the section being written, and what its figure says. */
struct fig {
	size_t at;               /* offset in out */
	int no;                  /* chart number */
	size_t finding;          /* 1-based finding of an analysis report; 0 in a comparison */
	char *caption;           /* the figcaption's HTML after "Figure N. " */
};

struct figs {
	struct charts *cs;
	size_t start;            /* where the section starts in out */
	struct fig *f;
	size_t n, cap;
};

/* Which figure shows which finding (0: a comparison chart), kept for the appendix. */
struct figlist {
	int no[256];
	size_t finding[256];
	size_t n;
};

extern const char css[];
void workflow_notices(const struct analysis *a, struct buf *out);
void title(struct buf *b, enum kind kind);
void entity_label(struct buf *b, const char *host, const char *name);
void period_html(struct buf *b, const struct ltime *lt, int64_t t0, int64_t t1);
void page_header(struct buf *out, const struct html_opts *o, const char *kicker, const char *title,
		 const char *meta_html);
void summary_html(struct buf *out, const struct exec_summary *es, bool link, const struct ltime *lt);
void print_page_css(struct buf *out, const struct html_opts *o, const char *title);
void toc_html(struct buf *out, const char *const *items);
void footer_html(struct buf *out, const struct html_opts *o);
void captures_section(const struct analysis *a, const struct ltime *lt, struct buf *b);
void note_add(struct notes *n, const char *html);
void capture_notes(const struct analysis *a, struct notes *nt);
void doc_title(struct buf *out, const struct html_opts *o, const char *what, const struct model *m);
void generated_at(struct buf *b);
void hosts_line(const struct model *m, struct buf *b);
void figs_init(struct figs *fs, struct charts *cs, const struct buf *out);
void figs_add(struct figs *fs, const struct chart *c, const struct buf *out, size_t finding, const char *caption_html);
void figs_finish(struct figs *fs, struct buf *out, const struct html_opts *o, struct html_result *res,
		 struct notes *nt, struct diag *d);
void figlist_take(struct figlist *fl, const struct figs *fs);
void appendix_html(struct buf *out, const struct analysis *a, const struct figlist *fl, const struct html_opts *o,
		   int schema_version);

#endif
