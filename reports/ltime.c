/* ltime.c — local time beside UTC (see ltime.h). */
#include "ltime.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One perfmon capture's bias from its start on, or a DST change its clock made (aligned UTC,
 * seconds); bias_min as in the header (UTC = local + bias). */
struct pbias {
	int64_t start;
	int bias_min;
	const struct capture *c;
};

static void biases_of(const struct model *m, struct pbias *pb, size_t *n, size_t cap)
{
	for (size_t i = 0; m && i < m->ncaps && *n < cap; i++) {
		const struct capture *c = &m->caps[i];
		if (c->failed || !c->bias_known || !c->rows)
			continue;
		pb[(*n)++] = (struct pbias){(c->start + c->clock_offset_ms) / 1000, c->bias_min, c};
		/* the clock went back or jumped inside the file: its local time changes offset there */
		for (int k = 0; k < c->ndst && *n < cap; k++)
			pb[(*n)++] = (struct pbias){(c->dst_at[k] + c->clock_offset_ms) / 1000, -c->dst_off_min[k], c};
	}
}

static int pbias_cmp(const void *a, const void *b)
{
	const struct pbias *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void off_name(char *out, size_t n, int32_t off)
{
	int32_t a = off < 0 ? -off : off;
	if (!off)
		snprintf(out, n, "UTC");
	else
		snprintf(out, n, "UTC%c%02d:%02d", off < 0 ? '-' : '+', (int)(a / 3600) % 100, (int)(a % 3600 / 60));
}

/* The perfmon headers' biases of m and m2 in time order: one fixed offset when they agree, else a
 * zone that changes offset at the start of each capture with another bias (each time is shown in
 * the offset its own capture's clock used). */
static bool from_biases(struct ltime *lt, const struct model *m, const struct model *m2)
{
	struct pbias pb[128];
	size_t n = 0;
	biases_of(m, pb, &n, 64);
	biases_of(m2, pb, &n, 128);
	if (!n)
		return false;
	qsort(pb, n, sizeof pb[0], pbias_cmp);
	lt->known = true;
	const struct capture *c = pb[0].c;
	size_t nt = 0; /* transitions: a capture whose bias differs from the one before it */
	for (size_t i = 1; i < n; i++)
		nt += pb[i].bias_min != pb[i - 1].bias_min;
	if (!nt || nt >= LTIME_MAX_BIASES) {
		tz_fixed(&lt->z, -pb[0].bias_min * 60, NULL);
		snprintf(lt->source, sizeof lt->source, "the perfmon header of %s%s%s%s", c->host ? c->host : "the guest",
			 c->zone ? " (" : "", c->zone ? c->zone : "", c->zone ? ")" : "");
		return true;
	}
	memset(&lt->z, 0, sizeof lt->z);
	size_t k = 0;
	lt->ptypes[0].off = -pb[0].bias_min * 60;
	off_name(lt->ptypes[0].abbr, sizeof lt->ptypes[0].abbr, lt->ptypes[0].off);
	struct buf names;
	buf_init(&names);
	buf_adds(&names, lt->ptypes[0].abbr);
	for (size_t i = 1; i < n; i++) {
		if (pb[i].bias_min == pb[i - 1].bias_min)
			continue;
		k++;
		lt->ptypes[k].off = -pb[i].bias_min * 60;
		off_name(lt->ptypes[k].abbr, sizeof lt->ptypes[k].abbr, lt->ptypes[k].off);
		lt->ptrans[k - 1] = pb[i].start;
		lt->ptype[k - 1] = (uint8_t)k;
		buf_printf(&names, ", then %s", lt->ptypes[k].abbr);
	}
	lt->z.types = lt->ptypes;
	lt->z.ntypes = k + 1;
	lt->z.trans = lt->ptrans;
	lt->z.trans_type = lt->ptype;
	lt->z.ntrans = k;
	snprintf(lt->z.name, sizeof lt->z.name, "%s", names.data);
	buf_free(&names);
	snprintf(lt->source, sizeof lt->source, "the perfmon clock of %s: each capture in its header's bias, and "
		 "the offset changed where its clock did (DST)", c->host ? c->host : "the guest");
	return true;
}

static bool from_tz(struct ltime *lt, const struct model *m)
{
	if (!m || !m->tz)
		return false;
	lt->known = true;
	lt->z = *m->tz;
	snprintf(lt->source, sizeof lt->source, "--tz");
	return true;
}

void ltime_init(struct ltime *lt, const struct model *m, const struct model *m2)
{
	memset(lt, 0, sizeof *lt);
	if (!from_tz(lt, m) && !from_tz(lt, m2))
		from_biases(lt, m, m2);
}

const char *ltime_abbr(const struct ltime *lt, int64_t t_ms, char buf[16])
{
	const char *ab = "";
	int32_t off = tz_offset_at(&lt->z, t_ms / 1000, &ab);
	/* numeric abbreviations ("+03") and fixed offsets: UTC+03:00 */
	if (ab && ((ab[0] >= 'A' && ab[0] <= 'Z') && strlen(ab) < 16))
		return ab;
	int32_t a = off < 0 ? -off : off;
	if (!off)
		snprintf(buf, 16, "UTC");
	else
		snprintf(buf, 16, "UTC%c%02d:%02d", off < 0 ? '-' : '+', (int)(a / 3600) % 100, (int)(a % 3600 / 60));
	return buf;
}

void ltime_local(struct buf *b, const struct ltime *lt, int64_t t_ms, bool with_date)
{
	int64_t l = t_ms + (int64_t)tz_offset_at(&lt->z, t_ms / 1000, NULL) * 1000;
	char s[32];
	time_format_iso(l, false, s);
	s[19] = '\0';
	if (with_date) {
		s[10] = ' ';
		buf_adds(b, s);
	} else {
		buf_adds(b, s + 11);
	}
}

static bool local_same_day(const struct ltime *lt, int64_t a, int64_t b)
{
	struct buf x, y;
	buf_init(&x);
	buf_init(&y);
	ltime_local(&x, lt, a, true);
	ltime_local(&y, lt, b, true);
	bool same = strncmp(x.data, y.data, 10) == 0;
	buf_free(&x);
	buf_free(&y);
	return same;
}

bool ltime_same_day(const struct ltime *lt, int64_t a, int64_t b)
{
	char x[32], y[32];
	time_format_iso(a, false, x);
	int64_t l = a + (int64_t)tz_offset_at(&lt->z, a / 1000, NULL) * 1000;
	time_format_iso(l, false, y);
	(void)b;
	return strncmp(x, y, 10) == 0;
}

void ltime_span_note(struct buf *b, const struct ltime *lt, int64_t a, int64_t e, const char *sep)
{
	if (!lt->known)
		return;
	char ab1[16], ab2[16];
	const char *z1 = ltime_abbr(lt, a, ab1), *z2 = ltime_abbr(lt, e, ab2);
	bool dates = !ltime_same_day(lt, a, a) || !local_same_day(lt, a, e);
	buf_adds(b, " (local ");
	ltime_local(b, lt, a, dates);
	if (strcmp(z1, z2) != 0) {
		buf_addc(b, ' ');
		buf_adds(b, z1);
	}
	buf_printf(b, " %s ", sep);
	ltime_local(b, lt, e, dates && !local_same_day(lt, a, e));
	buf_addc(b, ' ');
	buf_adds(b, z2);
	buf_addc(b, ')');
}

void ltime_describe(struct buf *b, const struct ltime *lt)
{
	if (!lt->known) {
		buf_adds(b, "local time unknown (no perfmon header bias; give --tz)");
		return;
	}
	buf_printf(b, "local time %s, from %s", lt->z.name, lt->source);
}
