/* ltime.h — the customer's local time beside UTC in every report: which zone (--tz, else the bias
 * of the first perfmon header, else none), and times written in both. An IANA zone gives each time
 * the offset in force then (DST per time stamp); a perfmon bias is one fixed offset. */
#ifndef IOPSY_LTIME_H
#define IOPSY_LTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "capmodel.h"
#include "tz.h"
#include "util.h"

#define LTIME_MAX_BIASES 8

struct ltime {
	bool known;              /* a local zone is known (else only UTC is shown) */
	struct tz z;             /* a fixed offset, or a shallow copy of --tz (its arrays borrowed) */
	char source[160];        /* "--tz Europe/Berlin", "perfmon header of SQL01 (Pacific Daylight Time)";
	                          * raw header text: escape it */
	/* perfmon headers with different biases (a before side in summer time, an after side in
	 * winter time): z is a zone of its own whose offset changes at the start of each capture with
	 * another bias; its tables live here (so an ltime is not copied once initialised) */
	int64_t ptrans[LTIME_MAX_BIASES];
	uint8_t ptype[LTIME_MAX_BIASES];
	struct tz_type ptypes[LTIME_MAX_BIASES];
};

/* The local zone of the captures of m (and m2 when not NULL, e.g. the after side). Needs no
 * freeing; borrows m->tz. */
void ltime_init(struct ltime *lt, const struct model *m, const struct model *m2);
/* The zone's short name at t: "CEST", "UTC-07:00". static storage of lt or of the zone. */
const char *ltime_abbr(const struct ltime *lt, int64_t t_ms, char buf[16]);
/* Local wall-clock time of t: "2026-07-27 06:04:03" (with_date) or "06:04:03". */
void ltime_local(struct buf *b, const struct ltime *lt, int64_t t_ms, bool with_date);
/* " (local 06:04:03 .. 06:16:00 UTC-07:00)" for a span (the local dates when they differ from
 * the UTC ones); sep between the two times (".." in text, "&ndash;" in HTML); nothing when no zone is
 * known. */
void ltime_span_note(struct buf *b, const struct ltime *lt, int64_t a_ms, int64_t b_ms, const char *sep);
/* "local time UTC-07:00 (perfmon header of SQL01 ...)" or "local time unknown (give --tz)"; raw text. */
void ltime_describe(struct buf *b, const struct ltime *lt);
/* Whether local time and UTC name the same day for t (for dates shown once). */
bool ltime_same_day(const struct ltime *lt, int64_t a_ms, int64_t b_ms);

#endif
