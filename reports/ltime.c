/* ltime.c — local time beside UTC (see ltime.h). */
#include "ltime.h"

#include <stdio.h>
#include <string.h>

static bool from_model(struct ltime *lt, const struct model *m)
{
	if (!m)
		return false;
	if (m->tz) {
		lt->known = true;
		lt->z = *m->tz;
		snprintf(lt->source, sizeof lt->source, "--tz");
		return true;
	}
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *c = &m->caps[i];
		if (c->failed || !c->bias_known)
			continue;
		lt->known = true;
		tz_fixed(&lt->z, -c->bias_min * 60, NULL);
		snprintf(lt->source, sizeof lt->source, "the perfmon header of %s%s%s%s", c->host ? c->host : "the guest",
			 c->zone ? " (" : "", c->zone ? c->zone : "", c->zone ? ")" : "");
		return true;
	}
	return false;
}

void ltime_init(struct ltime *lt, const struct model *m, const struct model *m2)
{
	memset(lt, 0, sizeof *lt);
	if (!from_model(lt, m))
		from_model(lt, m2);
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
