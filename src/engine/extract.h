/* extract.h — `iopsy extract`: the columns of a capture that match a pattern, streamed as a
 * narrow CSV (ISO-8601 UTC time, then the cells as the capture wrote them; missing ones empty). */
#ifndef IOPSY_EXTRACT_H
#define IOPSY_EXTRACT_H

#include <stdio.h>

#include "input.h"
#include "match.h"

/* The columns of in whose counter path m matches: their indices into sel (caller frees *sel).
 * Returns how many, or ERR_LIMIT when the pattern gave up (said through d). */
long extract_select(struct input *in, struct matcher *m, size_t **sel, struct diag *d);
/* Streams the header and every row of the selected columns to fp (nothing when no row is
 * complete). Returns 0, or the reader's error (the rows before it were written); *write_failed
 * (errno set) when a write to fp failed, which stops it; *rows the data rows written. */
int extract_write(struct input *in, const size_t *sel, size_t nsel, FILE *fp, bool *write_failed, long *rows);
/* How the time column is written: ISO-8601 UTC ("2026-07-27T13:00:00.644Z"), a form spreadsheets
 * parse as a date-time ("2026-07-27 13:00:00.644", UTC), or that form in local time: the zone
 * tz, else the capture's perfmon bias. */
enum extract_time { XT_ISO, XT_EXCEL, XT_LOCAL };
/* extract_write with the time format; tz may be NULL. XT_LOCAL without a zone (tz NULL and no
 * header bias) returns ERR_USAGE before writing anything. */
int extract_write_time(struct input *in, const size_t *sel, size_t nsel, FILE *fp, bool *write_failed, long *rows,
		       enum extract_time tf, const struct tz *tz);

#endif
