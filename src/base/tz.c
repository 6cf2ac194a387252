/* tz.c — fixed offsets and IANA zones from TZif files (RFC 8536), see tz.h. */
#include "tz.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "suggest.h"

void tz_fixed(struct tz *z, int32_t off_s, const char *name)
{
	memset(z, 0, sizeof *z);
	z->fixed = true;
	z->off = off_s;
	if (name) {
		snprintf(z->name, sizeof z->name, "%s", name);
	} else {
		int32_t a = off_s < 0 ? -off_s : off_s;
		if (a % 3600 == 0)
			snprintf(z->name, sizeof z->name, "UTC%c%02d:00", off_s < 0 ? '-' : '+', (int)(a / 3600));
		else
			snprintf(z->name, sizeof z->name, "UTC%c%02d:%02d", off_s < 0 ? '-' : '+', (int)(a / 3600),
				 (int)(a % 3600 / 60));
		if (!off_s)
			snprintf(z->name, sizeof z->name, "UTC");
	}
}

void tz_free(struct tz *z)
{
	free(z->trans);
	free(z->trans_type);
	free(z->types);
	z->trans = NULL;
	z->trans_type = NULL;
	z->types = NULL;
	z->ntrans = z->ntypes = 0;
}

/* ---- calendar ---- */

static int64_t year_of_days(int64_t z)
{
	z += 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	int64_t doe = z - era * 146097;
	int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = yoe + era * 400;
	int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	int64_t mp = (5 * doy + 2) / 153;
	int m = (int)(mp < 10 ? mp + 3 : mp - 9);
	return y + (m <= 2);
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int64_t floordiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }

/* Seconds since the epoch of local midnight of the rule date in year y, plus its time. */
static int64_t rule_local(const struct tz_rule_date *rd, int64_t y)
{
	int64_t day;
	if (rd->kind == 'J') {
		day = days_from_civil(y, 1, 1) + rd->d - 1;
		if (is_leap(y) && rd->d >= 60)
			day++;
	} else if (rd->kind == 'D') {
		day = days_from_civil(y, 1, 1) + rd->d;
	} else {
		int64_t first = days_from_civil(y, (unsigned)rd->m, 1);
		int wd = (int)((first + 4) % 7); /* 1970-01-01 was a Thursday */
		if (wd < 0)
			wd += 7;
		int64_t d = first + ((rd->d - wd + 7) % 7) + 7 * (rd->w - 1);
		static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
		int len = mdays[rd->m - 1] + (rd->m == 2 && is_leap(y));
		while (rd->w == 5 && d >= first + len)
			d -= 7;
		day = d;
	}
	return day * 86400 + rd->time;
}

static int32_t rule_offset(const struct tz_rule *r, int64_t t, const char **abbr)
{
	if (!r->has_dst) {
		if (abbr)
			*abbr = r->std_abbr;
		return r->std_off;
	}
	int64_t y = year_of_days(floordiv(t + r->std_off, 86400));
	int64_t s = rule_local(&r->start, y) - r->std_off; /* the change to DST, in standard time */
	int64_t e = rule_local(&r->end, y) - r->dst_off;   /* the change back, in daylight time */
	bool dst = s < e ? (t >= s && t < e) : !(t >= e && t < s);
	if (abbr)
		*abbr = dst ? r->dst_abbr : r->std_abbr;
	return dst ? r->dst_off : r->std_off;
}

/* ---- POSIX TZ strings ---- */

static const char *parse_abbr(const char *s, char out[16])
{
	size_t n = 0;
	if (*s == '<') {
		s++;
		while (*s && *s != '>') {
			if (n < 15)
				out[n++] = *s;
			s++;
		}
		if (*s != '>')
			return NULL;
		s++;
	} else {
		while ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')) {
			if (n < 15)
				out[n++] = *s;
			s++;
		}
		if (n < 3)
			return NULL;
	}
	out[n] = '\0';
	return s;
}

/* [+-]hh[:mm[:ss]] into seconds; max_h bounds the hours. */
static const char *parse_hms(const char *s, int32_t *v, int max_h)
{
	int sign = 1;
	if (*s == '+' || *s == '-')
		sign = *s++ == '-' ? -1 : 1;
	if (!(*s >= '0' && *s <= '9'))
		return NULL;
	int h = 0, m = 0, sec = 0;
	while (*s >= '0' && *s <= '9' && h <= max_h)
		h = h * 10 + (*s++ - '0');
	if (h > max_h)
		return NULL;
	if (*s == ':') {
		s++;
		if (!(s[0] >= '0' && s[0] <= '9'))
			return NULL;
		m = *s++ - '0';
		if (*s >= '0' && *s <= '9')
			m = m * 10 + (*s++ - '0');
		if (*s == ':') {
			s++;
			if (!(s[0] >= '0' && s[0] <= '9'))
				return NULL;
			sec = *s++ - '0';
			if (*s >= '0' && *s <= '9')
				sec = sec * 10 + (*s++ - '0');
		}
	}
	*v = sign * (h * 3600 + m * 60 + sec);
	return s;
}

static const char *parse_num(const char *s, int *v, int lo, int hi)
{
	if (!(*s >= '0' && *s <= '9'))
		return NULL;
	int n = 0;
	while (*s >= '0' && *s <= '9' && n <= hi)
		n = n * 10 + (*s++ - '0');
	if (n < lo || n > hi)
		return NULL;
	*v = n;
	return s;
}

static const char *parse_date(const char *s, struct tz_rule_date *rd)
{
	memset(rd, 0, sizeof *rd);
	if (*s == 'M') {
		rd->kind = 'M';
		if (!(s = parse_num(s + 1, &rd->m, 1, 12)) || *s++ != '.' || !(s = parse_num(s, &rd->w, 1, 5)) || *s++ != '.' ||
		    !(s = parse_num(s, &rd->d, 0, 6)))
			return NULL;
	} else if (*s == 'J') {
		rd->kind = 'J';
		if (!(s = parse_num(s + 1, &rd->d, 1, 365)))
			return NULL;
	} else {
		rd->kind = 'D';
		if (!(s = parse_num(s, &rd->d, 0, 365)))
			return NULL;
	}
	rd->time = 7200;
	if (*s == '/' && !(s = parse_hms(s + 1, &rd->time, 167)))
		return NULL;
	return s;
}

int tz_rule_parse(struct tz_rule *r, const char *s)
{
	memset(r, 0, sizeof *r);
	int32_t off;
	if (!(s = parse_abbr(s, r->std_abbr)) || !(s = parse_hms(s, &off, 24)))
		return ERR_FORMAT;
	r->std_off = -off; /* POSIX counts west of UTC as positive */
	if (*s) {
		r->has_dst = true;
		if (!(s = parse_abbr(s, r->dst_abbr)))
			return ERR_FORMAT;
		r->dst_off = r->std_off + 3600;
		if (*s && *s != ',') {
			if (!(s = parse_hms(s, &off, 24)))
				return ERR_FORMAT;
			r->dst_off = -off;
		}
		if (*s != ',') /* no rule given: the US rules POSIX assumes are not guessed here */
			return ERR_FORMAT;
		if (!(s = parse_date(s + 1, &r->start)) || *s++ != ',' || !(s = parse_date(s, &r->end)) || *s)
			return ERR_FORMAT;
	}
	r->valid = true;
	return 0;
}

/* ---- TZif ---- */

static int64_t be(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v = v << 8 | p[i];
	if (n == 4)
		return (int32_t)(uint32_t)v;
	return (int64_t)v;
}

int tz_load_mem(struct tz *z, const char *name, const unsigned char *d, size_t len)
{
	memset(z, 0, sizeof *z);
	snprintf(z->name, sizeof z->name, "%s", name);
	size_t at = 0;
	int tsize = 4;
	for (int pass = 0; pass < 2; pass++) {
		if (len - at < 44 || memcmp(d + at, "TZif", 4) != 0)
			return ERR_FORMAT;
		char version = (char)d[at + 4];
		int64_t cnt[6];
		for (int i = 0; i < 6; i++)
			cnt[i] = be(d + at + 20 + 4 * i, 4);
		for (int i = 0; i < 6; i++)
			if (cnt[i] < 0 || cnt[i] > 100000)
				return ERR_FORMAT;
		size_t isut = (size_t)cnt[0], isstd = (size_t)cnt[1], leap = (size_t)cnt[2], timecnt = (size_t)cnt[3],
		       typecnt = (size_t)cnt[4], charcnt = (size_t)cnt[5];
		size_t body = timecnt * (size_t)tsize + timecnt + typecnt * 6 + charcnt + leap * (size_t)(tsize + 4) + isstd + isut;
		at += 44;
		if (len - at < body || typecnt == 0)
			return ERR_FORMAT;
		if (pass == 0 && version >= '2') {
			at += body; /* skip the 32-bit data: the 64-bit block follows */
			tsize = 8;
			continue;
		}
		const unsigned char *p = d + at;
		tz_free(z);
		z->trans = xcalloc(timecnt ? timecnt : 1, sizeof *z->trans);
		z->trans_type = xcalloc(timecnt ? timecnt : 1, 1);
		z->types = xcalloc(typecnt, sizeof *z->types);
		z->ntrans = timecnt;
		z->ntypes = typecnt;
		for (size_t i = 0; i < timecnt; i++)
			z->trans[i] = be(p + i * (size_t)tsize, tsize);
		p += timecnt * (size_t)tsize;
		for (size_t i = 0; i < timecnt; i++) {
			z->trans_type[i] = p[i];
			if (p[i] >= typecnt)
				return tz_free(z), ERR_FORMAT;
		}
		p += timecnt;
		const unsigned char *chars = p + typecnt * 6;
		for (size_t i = 0; i < typecnt; i++) {
			z->types[i].off = (int32_t)be(p + 6 * i, 4);
			z->types[i].isdst = p[6 * i + 4] != 0;
			size_t ai = p[6 * i + 5];
			size_t n = 0;
			while (ai + n < charcnt && chars[ai + n] && n < sizeof z->types[i].abbr - 1)
				n++;
			if (ai < charcnt)
				memcpy(z->types[i].abbr, chars + ai, n);
			z->types[i].abbr[n] = '\0';
			if (z->types[i].off < -26 * 3600 || z->types[i].off > 26 * 3600)
				return tz_free(z), ERR_FORMAT;
		}
		at += body;
		/* the footer: "\n<POSIX TZ>\n" */
		if (tsize == 8 && at < len && d[at] == '\n') {
			size_t e = at + 1;
			while (e < len && d[e] != '\n')
				e++;
			if (e < len && e - at - 1 < 64) {
				char s[64];
				memcpy(s, d + at + 1, e - at - 1);
				s[e - at - 1] = '\0';
				if (s[0] && tz_rule_parse(&z->rule, s) < 0)
					memset(&z->rule, 0, sizeof z->rule);
			}
		}
		return 0;
	}
	return ERR_FORMAT;
}

static bool name_ok(const char *s)
{
	if (!*s || *s == '/' || strlen(s) > 100 || strstr(s, ".."))
		return false;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_' || *p == '+' ||
		      *p == '-' || *p == '/'))
			return false;
	return true;
}

struct zone_list {
	char **v;
	size_t n, cap;
};

/* Collects the zone names below dir/rel (at most three levels, the posix/ and right/ copies and
 * the tables such as zone.tab left out): the candidates of "did you mean". */
static void zone_walk(const char *dir, const char *rel, int depth, struct zone_list *l)
{
	struct buf path;
	buf_init(&path);
	buf_printf(&path, "%s%s%s", dir, *rel ? "/" : "", rel);
	DIR *d = opendir(path.data);
	buf_free(&path);
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d)) != NULL && l->n < 10000) {
		const char *nm = e->d_name;
		if (nm[0] < 'A' || nm[0] > 'Z' || strchr(nm, '.'))
			continue; /* ., .., zone.tab, iso3166.tab, leapseconds, posixrules, right, posix */
		struct buf r;
		buf_init(&r);
		buf_printf(&r, "%s%s%s", rel, *rel ? "/" : "", nm);
		struct buf full;
		buf_init(&full);
		buf_printf(&full, "%s/%s", dir, r.data);
		struct stat st;
		if (stat(full.data, &st) == 0) {
			if (S_ISDIR(st.st_mode) && depth < 3) {
				zone_walk(dir, r.data, depth + 1, l);
			} else if (S_ISREG(st.st_mode)) {
				if (l->n == l->cap) {
					l->cap = l->cap ? 2 * l->cap : 512;
					l->v = xrealloc(l->v, l->cap * sizeof *l->v);
				}
				l->v[l->n++] = xstrdup(r.data);
			}
		}
		buf_free(&full);
		buf_free(&r);
	}
	closedir(d);
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* why += "unknown time zone; did you mean X?" from the zones in dir; "no time-zone database"
 * when dir itself is missing. */
static void zone_unknown(const char *dir, const char *name, int err, struct buf *why)
{
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		buf_printf(why, "no time-zone database in %s (Debian: install tzdata, or set TZDIR)", dir);
		return;
	}
	if (err != ENOENT && err != ENOTDIR) {
		buf_printf(why, "cannot read the zone in %s: %s", dir, strerror(err));
		return;
	}
	buf_adds(why, "unknown time zone");
	struct zone_list l = {0};
	zone_walk(dir, "", 0, &l);
	if (l.n)
		qsort(l.v, l.n, sizeof *l.v, cmp_str); /* readdir's order is the file system's */
	suggest_append(why, name, NULL, (const char *const *)l.v, l.n);
	for (size_t i = 0; i < l.n; i++)
		free(l.v[i]);
	free(l.v);
}

int tz_load(struct tz *z, const char *name, struct buf *why)
{
	memset(z, 0, sizeof *z);
	if (!name_ok(name)) {
		buf_adds(why, "not a time-zone name");
		return ERR_USAGE;
	}
	const char *dir = getenv("TZDIR");
	if (!dir || !*dir)
		dir = "/usr/share/zoneinfo";
	struct buf path;
	buf_init(&path);
	buf_printf(&path, "%s/%s", dir, name);
	FILE *f = fopen(path.data, "rb");
	if (!f) {
		zone_unknown(dir, name, errno, why);
		buf_free(&path);
		return ERR_USAGE;
	}
	buf_free(&path);
	struct buf data;
	buf_init(&data);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0 && data.len < (1u << 20))
		buf_add(&data, chunk, n);
	bool err = ferror(f);
	fclose(f);
	int rc = err ? ERR_FORMAT : tz_load_mem(z, name, (const unsigned char *)data.data, data.len);
	buf_free(&data);
	if (rc < 0)
		buf_adds(why, "not a time-zone file (TZif)");
	return rc;
}

int tz_parse(struct tz *z, const char *s, struct buf *why)
{
	/* a fixed offset: "UTC", "Z", "+05:30", "-0800", "UTC-8" */
	const char *p = s;
	if (!*s) {
		buf_adds(why, "empty: give a zone (Europe/Paris) or an offset like +09:00");
		return ERR_USAGE;
	}
	if (strncmp(p, "UTC", 3) == 0 || strncmp(p, "GMT", 3) == 0)
		p += 3;
	if (!*p || strcmp(p, "Z") == 0) {
		tz_fixed(z, 0, NULL);
		return 0;
	}
	if (*p == '+' || *p == '-') {
		int32_t v;
		const char *e = parse_hms(p, &v, 14);
		/* clocks run from 12 hours behind UTC to 14 ahead (Kiribati): past 14 hours is no clock's */
		if (e && !*e && v % 60 == 0 && (v > 14 * 3600 || v < -14 * 3600)) {
			buf_adds(why, "more than 14 hours from UTC: no clock has that offset");
			return ERR_USAGE;
		}
		if (e && !*e && v % 60 == 0) {
			/* "-0800": hhmm without a colon */
			tz_fixed(z, v, NULL);
			return 0;
		}
		int sign = *p == '-' ? -1 : 1;
		const char *q = p + 1;
		if (strlen(q) == 4 && q[0] >= '0' && q[0] <= '1' && q[1] >= '0' && q[1] <= '9' && q[2] >= '0' && q[2] <= '5' &&
		    q[3] >= '0' && q[3] <= '9') {
			int h = (q[0] - '0') * 10 + (q[1] - '0'), m = (q[2] - '0') * 10 + (q[3] - '0');
			if (h * 60 + m <= 14 * 60) {
				tz_fixed(z, sign * (h * 3600 + m * 60), NULL);
				return 0;
			}
		}
		buf_adds(why, "not an offset like +09:00 or -0500");
		return ERR_USAGE;
	}
	return tz_load(z, s, why);
}

int32_t tz_offset_at(const struct tz *z, int64_t t, const char **abbr)
{
	if (abbr)
		*abbr = "";
	if (z->fixed || !z->ntypes)
		return z->off;
	if (!z->ntrans || t < z->trans[0]) {
		/* before the first transition: the first standard-time type (RFC 8536: type 0) */
		if (abbr)
			*abbr = z->types[0].abbr;
		return z->types[0].off;
	}
	if (t >= z->trans[z->ntrans - 1] && z->rule.valid)
		return rule_offset(&z->rule, t, abbr);
	size_t lo = 0, hi = z->ntrans; /* the last transition at or before t */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (z->trans[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	const struct tz_type *ty = &z->types[z->trans_type[lo]];
	if (abbr)
		*abbr = ty->abbr;
	return ty->off;
}

int64_t tz_local_to_utc_ms(const struct tz *z, int64_t local_ms, int64_t after_ms)
{
	if (z->fixed)
		return local_ms - (int64_t)z->off * 1000;
	int64_t ls = floordiv(local_ms, 1000);
	int64_t frac = local_ms - ls * 1000;
	/* the offsets in force a day either side: a local time maps to UTC with one of them */
	int32_t oa = tz_offset_at(z, ls - 86400, NULL), ob = tz_offset_at(z, ls + 86400, NULL);
	int64_t ua = ls - oa, ub = ls - ob;
	bool va = tz_offset_at(z, ua, NULL) == oa, vb = tz_offset_at(z, ub, NULL) == ob;
	int64_t u;
	if (va && vb && ua != ub) {
		int64_t first = ua < ub ? ua : ub, second = ua < ub ? ub : ua;
		u = after_ms != INT64_MIN && first * 1000 + frac < after_ms ? second : first;
	} else if (va) {
		u = ua;
	} else if (vb) {
		u = ub;
	} else {
		u = ua; /* skipped by the change to DST: the offset before it */
	}
	return u * 1000 + frac;
}
