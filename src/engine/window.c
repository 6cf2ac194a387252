/* window.c — --from/--to: parsing the bounds and resolving them to UTC over the reference
 * capture's clock (see window.h). */
#include "window.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "tz.h"

#define DAY_MS (86400LL * 1000)

static bool digits(const char **s, int n, int *v)
{
	int x = 0;
	for (int i = 0; i < n; i++) {
		if ((*s)[i] < '0' || (*s)[i] > '9')
			return false;
		x = x * 10 + ((*s)[i] - '0');
	}
	*s += n;
	*v = x;
	return true;
}

/* "HH:MM[:SS[.fff]]" (the hour may be one digit) → ms since midnight. */
static bool parse_clock(const char **s, int64_t *ms)
{
	int h, mi, se = 0, frac = 0;
	if ((*s)[0] >= '0' && (*s)[0] <= '9' && (*s)[1] == ':') {
		h = (*s)[0] - '0';
		*s += 1;
	} else if (!digits(s, 2, &h)) {
		return false;
	}
	if (**s != ':')
		return false;
	(*s)++;
	if (!digits(s, 2, &mi))
		return false;
	if (**s == ':') {
		(*s)++;
		if (!digits(s, 2, &se))
			return false;
		if (**s == '.') {
			(*s)++;
			int k = 0;
			while (**s >= '0' && **s <= '9') {
				if (k < 3)
					frac = frac * 10 + (**s - '0');
				k++;
				(*s)++;
			}
			if (!k)
				return false;
			for (; k < 3; k++)
				frac *= 10;
		}
	}
	if (h > 23 || mi > 59 || se > 59)
		return false;
	*ms = ((int64_t)h * 3600 + mi * 60 + se) * 1000 + frac;
	return true;
}

int twin_parse(const char *s, struct twin_bound *b, const char **why)
{
	memset(b, 0, sizeof *b);
	b->text = s;
	const char *p = s;
	int64_t day = 0, clock = 0;
	int y, mo, d;
	*why = "expected a time (13:00, 13:00:30), a date and time (2026-07-27 13:00) or an ISO time with a zone "
	       "(2026-07-27T13:00:00Z, ...+02:00)";
	if (strlen(p) >= 10 && p[4] == '-' && p[7] == '-') {
		if (!digits(&p, 4, &y) || *p++ != '-' || !digits(&p, 2, &mo) || *p++ != '-' || !digits(&p, 2, &d))
			return ERR_USAGE;
		if (!date_valid(y, mo, d)) { /* 2026-02-29 is no day, not 1 March */
			*why = "no such date";
			return ERR_USAGE;
		}
		b->dated = true;
		day = days_from_civil(y, (unsigned)mo, (unsigned)d) * DAY_MS;
		if (*p == 'T' || *p == ' ') {
			p++;
			if (!parse_clock(&p, &clock))
				return ERR_USAGE;
		}
	} else if (!parse_clock(&p, &clock)) {
		return ERR_USAGE;
	}
	if (*p == 'Z' || *p == '+' || *p == '-') {
		int off = 0;
		if (*p == 'Z') {
			p++;
		} else {
			int sign = *p++ == '-' ? -1 : 1, hh, mm = 0;
			if (!digits(&p, 2, &hh))
				return ERR_USAGE;
			if (*p == ':')
				p++;
			if (*p && !digits(&p, 2, &mm))
				return ERR_USAGE;
			if (hh > 14 || mm > 59) {
				*why = "a UTC offset is at most 14 hours";
				return ERR_USAGE;
			}
			off = sign * (hh * 60 + mm);
		}
		if (!b->dated) {
			*why = "a time with a zone needs its date (2026-07-27T13:00:00Z)";
			return ERR_USAGE;
		}
		b->zoned = true;
		b->ms = day + clock - (int64_t)off * 60000;
	} else {
		b->ms = b->dated ? day + clock : clock;
	}
	if (*p)
		return ERR_USAGE;
	b->set = true;
	return 0;
}

bool twin_given(const struct twin_spec *sp)
{
	return sp->b[TW_FROM].set || sp->b[TW_TO].set;
}

/* The reference clock: runs of rows with one offset (utc − local) in file order. */
struct seg {
	int64_t l0, l1, off;
};
struct clockmap {
	struct seg *s;
	size_t n;
	int64_t first_local;
};

static void seg_add(struct clockmap *cm, int64_t local, int64_t utc)
{
	int64_t off = utc - local;
	struct seg *c = cm->n ? &cm->s[cm->n - 1] : NULL;
	if (c && c->off == off && local >= c->l1) {
		c->l1 = local;
		return;
	}
	cm->s = xrealloc(cm->s, (cm->n + 1) * sizeof *cm->s);
	cm->s[cm->n++] = (struct seg){local, local, off};
}

/* Reads the time stamps of path into cm until its local clock is 2 h past stop_local (the end of
 * a repeated hour is then behind it; INT64_MAX: all). Returns 1 for a guest (local time) capture,
 * 0 for a host one, -1 when it cannot be read or has no row. */
static int scan_clock(const char *path, const struct common_opts *co, struct clockmap *cm, int64_t stop_local)
{
	struct common_opts q = *co;
	q.sink = (struct diag_sink){0};
	q.progress = NULL;
	q.win_on = false;
	q.quiet = true;
	q.max_warnings = 0;
	struct input in;
	if (input_open(&in, path, &q) < 0)
		return -1;
	size_t nc = reader_ncols(in.r);
	bool *want = xcalloc(nc ? nc : 1, sizeof *want);
	reader_select(in.r, want);
	free(want);
	int guest = reader_format(in.r)->role == ROLE_GUEST;
	struct pdh_row row;
	bool first = true;
	while (reader_next(in.r, &row) == 1) {
		if (first)
			cm->first_local = row.local_ms;
		first = false;
		seg_add(cm, row.local_ms, row.t_ms);
		if (stop_local != INT64_MAX && row.local_ms > stop_local + 2 * 3600 * 1000)
			break;
	}
	input_close(&in);
	return first ? -1 : guest;
}

/* UTC of local wall-clock time L on the reference clock; notes a repeated or missing time. */
static int64_t to_utc(const struct clockmap *cm, int64_t L, char *note, size_t cap, const char *text, int *off_min)
{
	size_t hit = cm->n, again = cm->n;
	for (size_t i = 0; i < cm->n; i++) {
		if (L >= cm->s[i].l0 && L <= cm->s[i].l1) {
			if (hit == cm->n)
				hit = i;
			else if (again == cm->n && cm->s[i].off != cm->s[hit].off)
				again = i;
		}
	}
	/* a clock that went back (autumn) repeats the local times just after the change, whether or
	 * not the capture's rows reach the second one */
	for (size_t i = 1; i < cm->n && again == cm->n; i++) {
		int64_t back = cm->s[i].off - cm->s[i - 1].off;
		if (back > 0 && L >= cm->s[i].l0 && L < cm->s[i].l0 + back && L <= cm->s[i - 1].l1 && hit < cm->n)
			again = i;
	}
	if (hit < cm->n) {
		*off_min = (int)(-cm->s[hit].off / 60000);
		if (again < cm->n)
			snprintf(note, cap, "%s occurs twice in the reference capture (its clock went back, end of daylight "
				 "saving time?): the first is used; give an ISO time with its UTC offset for the second", text);
		return L + cm->s[hit].off;
	}
	/* between runs, before the first or after the last */
	size_t next = cm->n;
	for (size_t i = 0; i < cm->n && next == cm->n; i++)
		if (cm->s[i].l0 > L)
			next = i;
	if (next == cm->n) {
		*off_min = (int)(-cm->s[cm->n - 1].off / 60000);
		return L + cm->s[cm->n - 1].off;
	}
	if (next == 0) {
		*off_min = (int)(-cm->s[0].off / 60000);
		return L + cm->s[0].off;
	}
	const struct seg *a = &cm->s[next - 1], *b = &cm->s[next];
	int64_t u = L + a->off;
	*off_min = (int)(-a->off / 60000);
	if (a->off != b->off && u >= b->l0 + b->off) {
		/* the clock jumped over L (start of daylight saving time): the moment it jumped */
		snprintf(note, cap, "%s does not exist in the reference capture (its clock jumped forward, start of "
			 "daylight saving time?): the moment of the jump is used", text);
		*off_min = (int)(-b->off / 60000);
		return b->l0 + b->off;
	}
	return u;
}

/* The window's zoneless bounds read in zone z (the first capture starts at UTC u0); zoned bounds
 * as given. A local time the zone repeats is its first occurrence, one it skips the moment of the
 * jump, each noted. */
static int zone_window(const struct twin_spec *sp, const struct tz *z, int64_t u0, struct twin *w, struct diag *d)
{
	w->zone = z->name;
	w->ref = NULL;
	int64_t l0 = u0 + (int64_t)tz_offset_at(z, u0 / 1000, NULL) * 1000;
	int64_t day = l0 - ((l0 % DAY_MS) + DAY_MS) % DAY_MS;
	int64_t L[2] = {0, 0};
	for (int k = 0; k < 2; k++)
		if (sp->b[k].set && !sp->b[k].zoned)
			L[k] = sp->b[k].dated ? sp->b[k].ms : day + sp->b[k].ms;
	if (sp->b[0].set && sp->b[1].set && !sp->b[0].zoned && !sp->b[1].zoned && !sp->b[0].dated && !sp->b[1].dated &&
	    L[1] < L[0])
		L[1] += DAY_MS; /* 22:00 .. 02:00: across midnight */
	for (int k = 0; k < 2; k++) {
		if (!sp->b[k].set)
			continue;
		if (sp->b[k].zoned) {
			if (k == TW_FROM)
				w->from = sp->b[k].ms;
			else
				w->to = sp->b[k].ms;
			continue;
		}
		int64_t ls = L[k] / 1000;
		int32_t oa = tz_offset_at(z, ls - 86400, NULL), ob = tz_offset_at(z, ls + 86400, NULL);
		bool va = tz_offset_at(z, ls - oa, NULL) == oa, vb = tz_offset_at(z, ls - ob, NULL) == ob;
		int64_t u = tz_local_to_utc_ms(z, L[k], INT64_MIN);
		if (oa != ob && va && vb)
			snprintf(w->note[k], sizeof w->note[k], "%.30s occurs twice in %.40s (the clock goes back, end of DST): "
				 "the first is used; give an ISO time with its UTC offset for the second",
				 sp->b[k].text, z->name);
		else if (oa != ob && !va && !vb) {
			snprintf(w->note[k], sizeof w->note[k], "%.30s does not exist in %.40s (the clock jumps forward, start "
				 "of DST): the moment of the jump is used", sp->b[k].text, z->name);
			/* as said: the first second at the new offset, between L read at either offset */
			int64_t lo = ls - (ob > oa ? ob : oa), hi = ls - (ob > oa ? oa : ob);
			while (hi - lo > 1) {
				int64_t mid = lo + (hi - lo) / 2;
				if (tz_offset_at(z, mid, NULL) == ob)
					hi = mid;
				else
					lo = mid;
			}
			u = hi * 1000;
		}
		w->offset_min[k] = tz_offset_at(z, u / 1000, NULL) / 60;
		if (k == TW_FROM)
			w->from = u;
		else
			w->to = u;
	}
	if (w->from > w->to) {
		char a[32], b[32];
		time_format_iso(w->from, true, a);
		time_format_iso(w->to, true, b);
		diag_emit(d, DIAG_PLAIN, 0, 0, "the window ends before it starts (%s .. %s, read in --tz %s)", a, b, z->name);
		return ERR_USAGE;
	}
	return 0;
}

int twin_resolve(const struct twin_spec *sp, char *const *paths, size_t n, const struct common_opts *co,
		 struct twin *w, struct diag *d)
{
	memset(w, 0, sizeof *w);
	w->from = INT64_MIN;
	w->to = INT64_MAX;
	if (!twin_given(sp))
		return 0;
	w->on = true;
	for (int k = 0; k < 2; k++)
		w->text[k] = sp->b[k].set ? sp->b[k].text : NULL;
	bool local = (sp->b[0].set && !sp->b[0].zoned) || (sp->b[1].set && !sp->b[1].zoned);
	struct clockmap cm = {0};
	if (local) {
		/* the reference: the first perfmon file, else the first esxtop one */
		const char *host_ref = NULL;
		int64_t first_local = 0, host_first = 0;
		for (size_t i = 0; i < n && !w->ref; i++) {
			if (strcmp(paths[i], "-") == 0)
				continue;
			struct clockmap t = {0};
			int g = scan_clock(paths[i], co, &t, 0);
			free(t.s);
			if (g == 1) {
				w->ref = paths[i];
				first_local = t.first_local;
			} else if (g == 0 && !host_ref) {
				host_ref = paths[i];
				host_first = t.first_local;
			}
		}
		if (!w->ref) {
			w->ref = host_ref;
			first_local = host_first;
		}
		if (w->ref && co->tz) {
			/* --tz names the customer's zone: its local times are the window's (the reports show
			 * them), on the day the first capture starts there */
			struct clockmap t = {0};
			int g = scan_clock(w->ref, co, &t, 0);
			int64_t u0 = g >= 0 && t.n ? t.s[0].l0 + t.s[0].off : 0;
			free(t.s);
			return zone_window(sp, co->tz, u0, w, d);
		}
		if (!w->ref) {
			const char *t = sp->b[0].set && !sp->b[0].zoned ? sp->b[0].text : sp->b[1].text;
			diag_emit(d, DIAG_PLAIN, 0, 0,
				  "'%s' is a local time, read on the clock of the captures, but no capture file could be read "
				  "for it (stdin is not read twice): give the time as ISO with Z or a UTC offset", t);
			return ERR_USAGE;
		}
		/* the day of the capture, then the whole span needed */
		int64_t stop = INT64_MIN;
		int64_t day = first_local - ((first_local % DAY_MS) + DAY_MS) % DAY_MS;
		int64_t L[2] = {0, 0};
		for (int k = 0; k < 2; k++) {
			if (!sp->b[k].set || sp->b[k].zoned)
				continue;
			L[k] = sp->b[k].dated ? sp->b[k].ms : day + sp->b[k].ms;
		}
		if (sp->b[0].set && sp->b[1].set && !sp->b[0].zoned && !sp->b[1].zoned && !sp->b[0].dated &&
		    !sp->b[1].dated && L[1] < L[0])
			L[1] += DAY_MS; /* 22:00 .. 02:00: across midnight */
		for (int k = 0; k < 2; k++)
			if (sp->b[k].set && !sp->b[k].zoned && L[k] > stop)
				stop = L[k];
		if (scan_clock(w->ref, co, &cm, stop) < 0 || !cm.n) {
			free(cm.s);
			diag_emit(d, DIAG_PLAIN, 0, 0, "%s has no row to read the local time of --from/--to on", w->ref);
			return ERR_USAGE;
		}
		for (int k = 0; k < 2; k++) {
			if (!sp->b[k].set || sp->b[k].zoned)
				continue;
			int64_t u = to_utc(&cm, L[k], w->note[k], sizeof w->note[k], sp->b[k].text, &w->offset_min[k]);
			if (k == TW_FROM)
				w->from = u;
			else
				w->to = u;
		}
		free(cm.s);
	}
	if (sp->b[0].set && sp->b[0].zoned)
		w->from = sp->b[0].ms;
	if (sp->b[1].set && sp->b[1].zoned)
		w->to = sp->b[1].ms;
	if (w->from > w->to) {
		char a[32], b[32];
		time_format_iso(w->from, true, a);
		time_format_iso(w->to, true, b);
		diag_emit(d, DIAG_PLAIN, 0, 0, "the window is empty: --from %s%s%s%s is after --to %s%s%s%s", sp->b[0].text,
			  sp->b[0].zoned ? "" : " (", sp->b[0].zoned ? "" : a, sp->b[0].zoned ? "" : ")", sp->b[1].text,
			  sp->b[1].zoned ? "" : " (", sp->b[1].zoned ? "" : b, sp->b[1].zoned ? "" : ")");
		return ERR_USAGE;
	}
	return 0;
}

void twin_apply(const struct twin *w, struct common_opts *co)
{
	co->win_on = w->on;
	co->win_from = w->from;
	co->win_to = w->to;
}

static void offset_text(struct buf *b, int off)
{
	int a = off < 0 ? -off : off;
	buf_printf(b, "UTC%c%02d:%02d", off < 0 ? '-' : '+', a / 60, a % 60);
}

void twin_describe(const struct twin *w, struct buf *b, void (*esc)(struct buf *b, const char *s))
{
	char s[32];
	if (w->from == INT64_MIN) {
		buf_adds(b, "(start)");
	} else {
		time_format_iso(w->from, true, s);
		buf_adds(b, s);
	}
	buf_adds(b, " .. ");
	if (w->to == INT64_MAX) {
		buf_adds(b, "(end)");
	} else {
		time_format_iso(w->to, true, s);
		buf_adds(b, s);
	}
	buf_adds(b, " (given as");
	const char *const opt[2] = {" from ", " to "};
	for (int k = 0; k < 2; k++) {
		if (!w->text[k])
			continue;
		buf_adds(b, opt[k]);
		if (esc)
			esc(b, w->text[k]);
		else
			buf_adds(b, w->text[k]);
	}
	if (w->ref || w->zone) {
		buf_adds(b, w->ref ? ", the local time of " : ", the local time of --tz ");
		if (esc)
			esc(b, w->ref ? w->ref : w->zone);
		else
			buf_adds(b, w->ref ? w->ref : w->zone);
		buf_adds(b, ": ");
		int k = w->text[0] ? 0 : 1;
		offset_text(b, w->offset_min[k]);
		if (w->text[0] && w->text[1] && w->offset_min[0] != w->offset_min[1]) {
			buf_adds(b, " .. ");
			offset_text(b, w->offset_min[1]);
		}
	}
	buf_adds(b, ")");
}
