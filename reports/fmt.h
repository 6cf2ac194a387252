/* fmt.h — the formatting every writer shares: escaping for a terminal and for HTML, numbers,
 * changes and shares in percent, durations and UTC times, and word-wrapped text. One place, so
 * that text, HTML, Markdown and mail say the same figure the same way. */
#ifndef IOPSY_FMT_H
#define IOPSY_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* s (NULL: nothing) with control characters and invalid UTF-8 as \xNN, for terminals and text files. */
void fmt_esc(struct buf *b, const char *s);
/* s escaped for HTML text and attribute values: & < > " ' as entities; control characters and
 * bytes that are not valid UTF-8 as the visible text \xNN. NULL appends nothing. */
void html_escape(struct buf *b, const char *s);

/* A figure with the digits it deserves: 123, 12.3, 1.2, 0.012; NaN as nan_text. */
void fmt_num(struct buf *b, double v, const char *nan_text);
/* The same with two decimals between 0.1 and 10 (HTML tables: 1.25 ms). */
void fmt_num2(struct buf *b, double v, const char *nan_text);
/* A signed change in percent: +12%, -3.5%; NaN as nan_text. */
void fmt_pct(struct buf *b, double v, const char *nan_text);
/* A share 0..1 as percent: 37%, <1%, >99%; NaN as "-". */
void fmt_share(struct buf *b, double v);
/* 45s, 3m 05s, 1h 02m 03s (with_seconds) or 1h 02m. */
void fmt_duration(struct buf *b, double s, bool with_seconds);
/* "2026-07-27 13:04:03" / "13:04:03" (UTC). */
void fmt_when(struct buf *b, int64_t t_ms);
void fmt_hhmmss(struct buf *b, int64_t t_ms);
/* Both times on the same UTC day. */
bool fmt_same_day(int64_t a_ms, int64_t b_ms);
/* text escaped (fmt_esc) and wrapped at width; the first line starts with indent (e.g.
 * "   rule: "), the next ones with as many spaces. */
void text_wrap(struct buf *b, const char *indent, const char *text, size_t width);

/* Text from a capture as Markdown that renders as itself: no link, image, emphasis, code, table
 * cell, raw HTML, character reference or block structure can come from it. */
void md_escape(struct buf *b, const char *s);

#endif
