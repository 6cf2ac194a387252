/* out.c — atomic, optionally gzip-compressed output files and the number/time formatting the
 * simulated captures need. A 20,000-column esxtop row is formatted with sim_fmt_fixed2, which is
 * several times faster than snprintf and locale-independent. */
#include "out.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ZBUF_SIZE (256 * 1024)

int sim_out_open(struct sim_out *o, const char *path, bool gz)
{
	memset(o, 0, sizeof *o);
	if (!path) {
		o->discard = o->open = true;
		return 0;
	}
	if (afile_open(&o->af, path) != 0)
		return ERR_IO;
	o->open = true;
	o->gz = gz;
	if (gz) {
		o->zbuf = malloc(ZBUF_SIZE);
		/* windowBits 15 + 16: a gzip member, as `gzip` writes, so `zcat` and the parsers read it. */
		if (!o->zbuf || deflateInit2(&o->zs, 3, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			free(o->zbuf);
			o->zbuf = NULL;
			afile_abort(&o->af);
			o->open = false;
			return ERR_NOMEM;
		}
	}
	return 0;
}

static void deflate_some(struct sim_out *o, int flush)
{
	int rc;
	do {
		o->zs.next_out = o->zbuf;
		o->zs.avail_out = ZBUF_SIZE;
		rc = deflate(&o->zs, flush);
		if (rc == Z_STREAM_ERROR) {
			o->err = ERR_IO;
			return;
		}
		size_t have = ZBUF_SIZE - o->zs.avail_out;
		if (have && fwrite(o->zbuf, 1, have, o->af.fp) != have) {
			o->err = ERR_IO;
			return;
		}
	} while (o->zs.avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
}

void sim_out_write(struct sim_out *o, const void *p, size_t n)
{
	if (o->err || !n || o->discard)
		return;
	if (!o->gz) {
		if (fwrite(p, 1, n, o->af.fp) != n)
			o->err = ERR_IO;
		return;
	}
	const unsigned char *s = p;
	while (n && !o->err) {
		/* zlib counts in uInt: feed at most 1 GiB at a time. */
		size_t chunk = n > (1u << 30) ? (1u << 30) : n;
		o->zs.next_in = (unsigned char *)(uintptr_t)s;
		o->zs.avail_in = (uInt)chunk;
		deflate_some(o, Z_NO_FLUSH);
		s += chunk;
		n -= chunk;
	}
}

void sim_out_puts(struct sim_out *o, const char *s)
{
	sim_out_write(o, s, strlen(s));
}

int sim_out_commit(struct sim_out *o)
{
	if (!o->open)
		return ERR_IO;
	if (o->discard) {
		o->open = false;
		return 0;
	}
	if (o->gz) {
		if (!o->err)
			deflate_some(o, Z_FINISH);
		deflateEnd(&o->zs);
		free(o->zbuf);
		o->zbuf = NULL;
	}
	o->open = false;
	if (o->err) {
		afile_abort(&o->af);
		errno = EIO;
		return o->err;
	}
	return afile_commit(&o->af);
}

void sim_out_abort(struct sim_out *o)
{
	if (!o->open)
		return;
	if (o->discard) {
		o->open = false;
		return;
	}
	if (o->gz) {
		deflateEnd(&o->zs);
		free(o->zbuf);
		o->zbuf = NULL;
	}
	afile_abort(&o->af);
	o->open = false;
}

bool sim_line_reserve(struct sim_line *l, size_t n)
{
	if (l->len + n <= l->cap)
		return true;
	size_t cap = l->cap ? l->cap : 4096;
	while (cap < l->len + n)
		cap *= 2;
	char *p = realloc(l->p, cap);
	if (!p)
		return false;
	l->p = p;
	l->cap = cap;
	return true;
}

void sim_line_free(struct sim_line *l)
{
	free(l->p);
	l->p = NULL;
	l->len = l->cap = 0;
}

static size_t fmt_u64(char *dst, uint64_t u)
{
	char tmp[24];
	size_t n = 0;
	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	for (size_t i = 0; i < n; i++)
		dst[i] = tmp[n - 1 - i];
	return n;
}

size_t sim_fmt_fixed2(char *dst, double v)
{
	if (isnan(v))
		return 0;
	if (!(fabs(v) < 1e15)) {
		int n = snprintf(dst, 32, "%.2f", v);
		return n > 0 ? (size_t)n : 0;
	}
	size_t k = 0;
	double r = floor(fabs(v) * 100.0 + 0.5);
	if (v < 0 && r > 0)
		dst[k++] = '-';
	uint64_t u = (uint64_t)r;
	k += fmt_u64(dst + k, u / 100);
	dst[k++] = '.';
	dst[k++] = (char)('0' + (u % 100) / 10);
	dst[k++] = (char)('0' + u % 10);
	return k;
}

size_t sim_fmt_int(char *dst, double v)
{
	if (isnan(v))
		return 0;
	double r = floor(fabs(v) + 0.5);
	size_t k = 0;
	if (v < 0 && r > 0)
		dst[k++] = '-';
	if (!(r < 1e18)) {
		int n = snprintf(dst + k, 32, "%.0f", r);
		return n > 0 ? k + (size_t)n : 0;
	}
	return k + fmt_u64(dst + k, (uint64_t)r);
}

size_t sim_fmt_pdh(char *dst, size_t n, double v)
{
	if (isnan(v) || n < 32)
		return 0;
	if (v == 0) {
		dst[0] = '0';
		return 1;
	}
	/* relog prints %.17g-like digits, and Windows' CRT writes three-digit exponents. */
	char tmp[40];
	int len = snprintf(tmp, sizeof tmp, "%.17g", v);
	if (len <= 0 || (size_t)len >= sizeof tmp)
		return 0;
	char *e = strchr(tmp, 'e');
	if (!e) {
		memcpy(dst, tmp, (size_t)len);
		return (size_t)len;
	}
	size_t mant = (size_t)(e - tmp);
	memcpy(dst, tmp, mant);
	size_t k = mant;
	dst[k++] = 'e';
	const char *p = e + 1;
	char sign = '+';
	if (*p == '-' || *p == '+')
		sign = *p++;
	dst[k++] = sign;
	size_t digits = strlen(p);
	for (size_t i = digits; i < 3; i++)
		dst[k++] = '0';
	memcpy(dst + k, p, digits);
	return k + digits;
}

void sim_time_split(int64_t t_ms, struct sim_tm *tm)
{
	int64_t secs = t_ms >= 0 ? t_ms / 1000 : -((-t_ms + 999) / 1000);
	tm->ms = (int)(t_ms - secs * 1000);
	int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
	int64_t rem = secs - days * 86400;
	tm->hour = (int)(rem / 3600);
	tm->min = (int)(rem / 60 % 60);
	tm->sec = (int)(rem % 60);
	/* civil_from_days (H. Hinnant) */
	int64_t z = days + 719468;
	int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	unsigned doe = (unsigned)(z - era * 146097);
	unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	int64_t y = (int64_t)yoe + era * 400;
	unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	unsigned mp = (5 * doy + 2) / 153;
	tm->day = (int)(doy - (153 * mp + 2) / 5 + 1);
	tm->mon = (int)(mp < 10 ? mp + 3 : mp - 9);
	tm->year = (int)(y + (tm->mon <= 2));
}
