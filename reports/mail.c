/* mail.c — MIME messages: addresses, header encoding, the multipart body (see mail.h). */
#include "mail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

bool mail_address_valid(const char *a)
{
	if (!a || !*a || strlen(a) > 254)
		return false;
	const char *at = strchr(a, '@');
	if (!at || at == a || !at[1] || strchr(at + 1, '@'))
		return false;
	/* never an option of a sendmail-like program, whatever argv it ends up in */
	if (a[0] == '-')
		return false;
	for (const unsigned char *p = (const unsigned char *)a; *p; p++)
		if (*p <= ' ' || *p >= 0x7f || strchr("<>()[]\\,;:\"", *p))
			return false;
	return true;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static void base64(struct buf *out, const unsigned char *p, size_t n, bool lines)
{
	size_t col = 0;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		char q[4] = {b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=', i + 2 < n ? b64[v & 63] : '='};
		buf_add(out, q, 4);
		col += 4;
		if (lines && col >= 76) {
			buf_add(out, "\r\n", 2);
			col = 0;
		}
	}
	if (lines && col)
		buf_add(out, "\r\n", 2);
}

/* Valid UTF-8 sequence length at p (1..4), 0 when invalid. */
static size_t u8len(const unsigned char *p, size_t n)
{
	size_t k = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 : *p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
	if (!k || k > n)
		return 0;
	return utf8_valid((const char *)p, k) ? k : 0;
}

void mail_header(struct buf *out, const char *name, const char *value)
{
	/* clean: CR, LF and other controls become spaces; invalid UTF-8 bytes become '?' */
	struct buf v;
	buf_init(&v);
	const unsigned char *p = (const unsigned char *)(value ? value : "");
	size_t n = strlen((const char *)p);
	bool ascii = true;
	for (size_t i = 0; i < n;) {
		size_t k = u8len(p + i, n - i);
		if (k == 0) {
			buf_addc(&v, '?');
			i++;
			continue;
		}
		if (k == 1 && (p[i] < 0x20 || p[i] == 0x7f)) {
			buf_addc(&v, ' ');
		} else if (k == 3 && p[i] == 0xe2 && ((p[i + 1] == 0x80 && (p[i + 2] == 0x8e || p[i + 2] == 0x8f ||
									       (p[i + 2] >= 0xaa && p[i + 2] <= 0xae))) ||
						      (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9))) {
			/* bidi controls (U+200E/F, U+202A-E, U+2066-9) would reorder the subject as shown:
			 * "report: ok" could read as something else */
			buf_addc(&v, '?');
		} else {
			if (k > 1)
				ascii = false;
			buf_add(&v, p + i, k);
		}
		i += k;
	}
	/* encoded words also protect '=?' look-alikes and over-long lines */
	if (ascii && !strstr(v.data ? v.data : "", "=?") && v.len < 900) {
		buf_printf(out, "%s: %s\r\n", name, v.data ? v.data : "");
	} else {
		buf_printf(out, "%s:", name);
		const unsigned char *q = (const unsigned char *)(v.data ? v.data : "");
		size_t m = v.len, i = 0;
		while (i < m) {
			/* up to 45 bytes per word, never splitting a character */
			size_t take = 0;
			while (i + take < m) {
				size_t k = u8len(q + i + take, m - i - take);
				if (!k)
					k = 1;
				if (take + k > 45)
					break;
				take += k;
			}
			buf_adds(out, " =?UTF-8?B?");
			base64(out, q + i, take, false);
			buf_adds(out, "?=\r\n");
			i += take;
		}
		if (m == 0)
			buf_adds(out, "\r\n");
	}
	buf_free(&v);
}

void mail_address_header(struct buf *out, const char *name, char *const *addr, size_t n)
{
	size_t col = strlen(name) + 1;
	buf_printf(out, "%s:", name);
	bool first = true;
	for (size_t i = 0; i < n; i++) {
		if (!mail_address_valid(addr[i]))
			continue;
		size_t len = strlen(addr[i]);
		if (!first) {
			buf_addc(out, ',');
			col++;
		}
		if (!first && col + 1 + len > 78) {
			buf_adds(out, "\r\n");
			col = 0;
		}
		buf_addc(out, ' ');
		buf_adds(out, addr[i]);
		col += 1 + len;
		first = false;
	}
	buf_adds(out, "\r\n");
}

static void boundary(char *b, size_t cap, const char *tag, unsigned long long seed)
{
	snprintf(b, cap, "=_iopsy_%s_%016llx", tag, seed * 0x9e3779b97f4a7c15ull + (unsigned long long)cap);
}

/* Where the message goes: out (a buffer), or fp with out as the staging buffer flushed after
 * each piece, so a message to a file holds one piece of an attachment at a time. */
struct sink {
	struct buf *out;
	FILE *fp;
	int err;
};

static void flush(struct sink *k)
{
	if (!k->fp || !k->out->len)
		return;
	if (!k->err && fwrite(k->out->data, 1, k->out->len, k->fp) != k->out->len)
		k->err = ERR_IO;
	buf_reset(k->out);
}

/* A part's body: data, or the file at path read 57 KiB at a time (a multiple of 57 bytes, so
 * the base64 lines of 76 characters come out as from one piece). */
static void part_body(struct sink *k, const char *data, size_t len, const char *path)
{
	if (data || !path) {
		base64(k->out, (const unsigned char *)(data ? data : ""), data ? len : 0, true);
		flush(k);
		return;
	}
	FILE *in = fopen(path, "rb");
	if (!in) {
		k->err = ERR_IO;
		return;
	}
	unsigned char *chunk = xmalloc(57 * 1024);
	size_t n;
	while ((n = fread(chunk, 1, 57 * 1024, in)) > 0) {
		base64(k->out, chunk, n, true);
		flush(k);
	}
	if (ferror(in))
		k->err = ERR_IO;
	fclose(in);
	free(chunk);
}

static void build(const struct mail_msg *m, struct sink *k)
{
	struct buf *out = k->out;
	char bm[64], br[64], ba[64];
	boundary(bm, sizeof bm, "mixed", m->seed);
	boundary(br, sizeof br, "related", m->seed + 1);
	boundary(ba, sizeof ba, "alt", m->seed + 2);
	char date[64];
	if (m->date) {
		snprintf(date, sizeof date, "%s", m->date);
	} else {
		time_t t = time(NULL);
		struct tm tm;
		gmtime_r(&t, &tm);
		static const char *const days[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
		static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
						   "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
		snprintf(date, sizeof date, "%s, %02d %s %04d %02d:%02d:%02d +0000", days[tm.tm_wday % 7], tm.tm_mday,
			 mon[tm.tm_mon % 12], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
	}
	mail_header(out, "From", m->from);
	mail_address_header(out, "To", m->to, m->nto);
	mail_header(out, "Subject", m->subject);
	mail_header(out, "Date", date);
	const char *dom = m->from ? strchr(m->from, '@') : NULL;
	buf_printf(out, "Message-ID: <iopsy.%016llx@%s>\r\n", m->seed, dom ? dom + 1 : "localhost");
	buf_adds(out, "MIME-Version: 1.0\r\nX-Mailer: iopsy\r\n");
	buf_printf(out, "Content-Type: multipart/mixed; boundary=\"%s\"\r\n\r\n", bm);
	buf_adds(out, "This is a MIME message: the report is in its HTML and text parts.\r\n");
	/* related: alternative + images */
	buf_printf(out, "--%s\r\nContent-Type: multipart/related; boundary=\"%s\"; type=\"multipart/alternative\"\r\n\r\n", bm, br);
	buf_printf(out, "--%s\r\nContent-Type: multipart/alternative; boundary=\"%s\"\r\n\r\n", br, ba);
	buf_printf(out, "--%s\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n", ba);
	part_body(k, m->text ? m->text : "", m->text ? strlen(m->text) : 0, NULL);
	buf_printf(out, "--%s\r\nContent-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n", ba);
	part_body(k, m->html ? m->html : "", m->html ? strlen(m->html) : 0, NULL);
	buf_printf(out, "--%s--\r\n", ba);
	for (size_t i = 0; i < m->nimg; i++) {
		buf_printf(out, "--%s\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n"
				"Content-ID: <%s>\r\nContent-Disposition: inline; filename=\"chart-%zu.png\"\r\n\r\n",
			   br, m->img[i].cid, i + 1);
		part_body(k, m->img[i].data, m->img[i].len, m->img[i].path);
	}
	buf_printf(out, "--%s--\r\n", br);
	for (size_t i = 0; i < m->natt; i++) {
		buf_printf(out, "--%s\r\nContent-Type: %s; name=\"%s\"\r\nContent-Transfer-Encoding: base64\r\n"
				"Content-Disposition: attachment; filename=\"%s\"\r\n\r\n",
			   bm, m->att[i].content_type, m->att[i].filename, m->att[i].filename);
		part_body(k, m->att[i].data, m->att[i].len, m->att[i].path);
	}
	buf_printf(out, "--%s--\r\n", bm);
	flush(k);
}

int mail_build(const struct mail_msg *m, struct buf *out)
{
	struct sink k = {.out = out};
	build(m, &k);
	return k.err;
}

int mail_write(const struct mail_msg *m, FILE *fp)
{
	struct buf staging;
	buf_init(&staging);
	struct sink k = {.out = &staging, .fp = fp};
	build(m, &k);
	buf_free(&staging);
	return k.err;
}

size_t mail_encoded_size(size_t n)
{
	size_t chars = 4 * ((n + 2) / 3);
	return chars + 2 * ((chars + 75) / 76);
}

void mail_free_parts(struct mail_msg *m)
{
	for (size_t i = 0; i < m->nimg; i++) {
		free(m->img[i].cid);
		free(m->img[i].data);
		free(m->img[i].path);
	}
	free(m->img);
	for (size_t i = 0; i < m->natt; i++) {
		free(m->att[i].filename);
		free(m->att[i].data);
		free(m->att[i].path);
	}
	free(m->att);
	m->img = NULL;
	m->att = NULL;
	m->nimg = m->natt = 0;
}
