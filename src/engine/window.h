/* window.h — the time window of --from/--to: the bounds as the user writes them (an instant with
 * Z or a UTC offset, or a wall-clock time with or without a date) and their resolution to one UTC
 * interval for all the captures of an analysis (or of one side of a comparison). A bound without
 * a zone is read in the local time of the reference capture: the first perfmon capture given (a
 * Windows clock), else the first esxtop capture (esxtop writes UTC). A bound without a date is on
 * the day that capture starts; a --to earlier than a --from on the same day is the next day. DST:
 * the reference's own time stamps say which local times repeat (autumn) or do not exist (spring);
 * a repeated time is its first occurrence, a missing one the moment the clock jumped, each said in
 * a note. The capture readers then hand out only the rows inside (common_opts.win_*). */
#ifndef IOPSY_WINDOW_H
#define IOPSY_WINDOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "input.h"
#include "util.h"

enum { TW_FROM, TW_TO };

/* One bound as given. */
struct twin_bound {
	bool set;
	bool zoned;              /* Z or +HH:MM: an instant (ms is UTC) */
	bool dated;              /* has a date; ms is the local wall clock as ms since the epoch */
	int64_t ms;              /* undated: ms since local midnight */
	const char *text;        /* as given (borrowed) */
};
struct twin_spec {
	struct twin_bound b[2];  /* TW_FROM, TW_TO */
};

/* Parses a --from/--to value: "13:00", "13:00:30", "2026-07-27", "2026-07-27 13:00[:SS[.fff]]",
 * "2026-07-27T13:00:00Z", "...+02:00" / "-0700" / "+02". Returns 0, or ERR_USAGE with the reason in
 * *why (static). s is borrowed. */
int twin_parse(const char *s, struct twin_bound *b, const char **why);
/* Whether a bound is set. */
bool twin_given(const struct twin_spec *sp);

/* A resolved window. */
struct twin {
	bool on;
	int64_t from, to;        /* UTC ms; INT64_MIN / INT64_MAX when that bound is open */
	const char *text[2];     /* the bounds as given, NULL when not (borrowed) */
	const char *ref;         /* the capture whose clock read a zoneless bound (borrowed), NULL */
	const char *zone;        /* ... or the --tz zone that did ("Europe/Berlin"; borrowed), NULL */
	int offset_min[2];       /* that clock's UTC offset at each bound (local − UTC, minutes) */
	char note[2][200];       /* a repeated or missing local time, "" when none */
};

/* Resolves sp over the captures paths[n] ('-' is not read: a zoneless bound then needs another
 * capture as a file). Files are opened with co's format and --tz and no messages. Returns 0 (w
 * off when no bound is set), or ERR_USAGE with the reason through d (no readable reference for a
 * zoneless bound, an empty window). */
int twin_resolve(const struct twin_spec *sp, char *const *paths, size_t n, const struct common_opts *co,
		 struct twin *w, struct diag *d);
/* Puts the window into co (rows outside it are not handed out). */
void twin_apply(const struct twin *w, struct common_opts *co);
/* "2026-07-27T20:00:00Z .. 2026-07-27T22:00:00Z (given as from 13:00 to 15:00, the local time of X:
 * UTC-07:00)"
 * appended to b; a NULL esc appends names as they are, else through esc (the writer's escaping). */
void twin_describe(const struct twin *w, struct buf *b, void (*esc)(struct buf *b, const char *s));

#endif
