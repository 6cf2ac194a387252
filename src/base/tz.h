/* tz.h — time zones: a fixed UTC offset or an IANA zone read from the system's time-zone database
 * (TZif files under $TZDIR or /usr/share/zoneinfo, with their POSIX TZ footer rule for times
 * after the last transition). The rules are a value: no TZ variable, no tzset(), no global state,
 * so parsers in threads and reports can convert any time stamp with its own offset (DST handled
 * per time stamp). */
#ifndef IOPSY_TZ_H
#define IOPSY_TZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* A POSIX TZ rule ("CET-1CEST,M3.5.0,M10.5.0/3"): standard and daylight offsets (seconds east of
 * UTC) and the two change dates. */
struct tz_rule_date {
	char kind;               /* 'M' month.week.day, 'J' Julian day 1..365 without Feb 29, 'D' day 0..365 */
	int m, w, d;             /* M: month 1..12, week 1..5, weekday 0..6; J/D: d */
	int32_t time;            /* seconds after local midnight the change happens */
};
struct tz_rule {
	bool valid;
	int32_t std_off, dst_off;
	bool has_dst;
	char std_abbr[16], dst_abbr[16];
	struct tz_rule_date start, end;
};

struct tz_type {
	int32_t off;             /* seconds east of UTC */
	bool isdst;
	char abbr[16];
};

struct tz {
	char name[128];          /* "Europe/Berlin", "UTC+02:00" */
	bool fixed;              /* a fixed offset: off only */
	int32_t off;
	/* an IANA zone */
	int64_t *trans;          /* transition times (UTC seconds), ascending */
	uint8_t *trans_type;     /* type index of each */
	size_t ntrans;
	struct tz_type *types;
	size_t ntypes;
	struct tz_rule rule;     /* after the last transition */
};

/* A fixed offset of off_s seconds east of UTC, named name (NULL: "UTC+HH:MM"). */
void tz_fixed(struct tz *z, int32_t off_s, const char *name);
/* Loads the IANA zone name ("Europe/Berlin") from $TZDIR or /usr/share/zoneinfo. Names with "..",
 * a leading '/' or characters outside [A-Za-z0-9_+-/] are refused. Returns 0, ERR_USAGE (no such
 * zone: the reason appended to why) or ERR_FORMAT (the file is not TZif). Free with tz_free. */
int tz_load(struct tz *z, const char *name, struct buf *why);
/* The same from the bytes of a TZif file (tests). */
int tz_load_mem(struct tz *z, const char *name, const unsigned char *data, size_t len);
/* A --tz value: "UTC", "+05:30", "-0800", "UTC-8" (fixed) or an IANA name. Same returns. */
int tz_parse(struct tz *z, const char *s, struct buf *why);
void tz_free(struct tz *z);

/* The offset (seconds east of UTC) in force at UTC time t_s; abbr (may be NULL) gets the zone's
 * abbreviation then ("CEST"; "" for a fixed offset), static storage of z. */
int32_t tz_offset_at(const struct tz *z, int64_t t_s, const char **abbr);
/* The UTC time (ms) of the local wall-clock time local_ms. A time that exists twice (the hour
 * repeated when DST ends) is the first one unless that is before after_ms (the previous row), then
 * the second; a time that does not exist (skipped when DST starts) uses the offset before the
 * change. after_ms = INT64_MIN: no previous row. */
int64_t tz_local_to_utc_ms(const struct tz *z, int64_t local_ms, int64_t after_ms);
/* Parses a POSIX TZ rule string into r. Returns 0 or ERR_FORMAT. (Exposed for tests.) */
int tz_rule_parse(struct tz_rule *r, const char *s);

#endif
