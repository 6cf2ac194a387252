/* brand.c — the report's engagement fields and logo (see brand.h). */
#include "brand.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void base64_append(struct buf *out, const void *data, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	const unsigned char *p = data;
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		char q[4] = {t[v >> 18 & 63], t[v >> 12 & 63], i + 1 < n ? t[v >> 6 & 63] : '=', i + 2 < n ? t[v & 63] : '='};
		buf_add(out, q, 4);
	}
}

static bool has_ci(const unsigned char *d, size_t n, const char *needle)
{
	size_t k = strlen(needle);
	for (size_t i = 0; i + k <= n; i++)
		if (strncasecmp((const char *)d + i, needle, k) == 0)
			return true;
	return false;
}

int brand_logo_mem(struct report_brand *b, const void *data, size_t n, struct buf *why)
{
	const unsigned char *d = data;
	if (n > BRAND_LOGO_MAX) {
		buf_printf(why, "the logo has %zu bytes, more than %d KiB", n, BRAND_LOGO_MAX / 1024);
		return ERR_LIMIT;
	}
	static const unsigned char png_sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
	const char *mime = NULL;
	if (n >= 24 && memcmp(d, png_sig, 8) == 0 && memcmp(d + 12, "IHDR", 4) == 0) {
		unsigned long w = (unsigned long)d[16] << 24 | (unsigned long)d[17] << 16 | (unsigned long)d[18] << 8 | d[19];
		unsigned long h = (unsigned long)d[20] << 24 | (unsigned long)d[21] << 16 | (unsigned long)d[22] << 8 | d[23];
		if (!w || !h || w > 4096 || h > 4096) {
			buf_printf(why, "the PNG is %lu x %lu pixels (at most 4096 x 4096)", w, h);
			return ERR_FORMAT;
		}
		mime = "image/png";
	} else {
		/* an SVG: text with an <svg root, no DTD (entity expansion), shown only through <img> */
		size_t i = 0;
		if (n >= 3 && d[0] == 0xef && d[1] == 0xbb && d[2] == 0xbf)
			i = 3;
		while (i < n && (d[i] == ' ' || d[i] == '\t' || d[i] == '\r' || d[i] == '\n'))
			i++;
		if (memchr(d, '\0', n) || i >= n || d[i] != '<' || !has_ci(d, n, "<svg")) {
			buf_adds(why, "the logo is neither a PNG nor an SVG file");
			return ERR_FORMAT;
		}
		if (has_ci(d, n, "<!DOCTYPE") || has_ci(d, n, "<!ENTITY")) {
			buf_adds(why, "the SVG logo has a DOCTYPE or entities (not accepted)");
			return ERR_FORMAT;
		}
		mime = "image/svg+xml";
	}
	free(b->logo);
	b->logo = xmalloc(n ? n : 1);
	memcpy(b->logo, d, n);
	b->logo_len = n;
	b->logo_mime = mime;
	return 0;
}

int brand_logo_load(struct report_brand *b, const char *path, struct buf *why)
{
	char e[160];
	FILE *f = fopen_regular(path, e, sizeof e); /* a FIFO is never opened: it would wait */
	if (!f) {
		buf_printf(why, "cannot open the logo: %s", e);
		return ERR_IO;
	}
	struct buf d;
	buf_init(&d);
	char chunk[8192];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
		buf_add(&d, chunk, n);
		if (d.len > BRAND_LOGO_MAX)
			break;
	}
	bool err = ferror(f);
	fclose(f);
	int rc;
	if (err) {
		buf_adds(why, "cannot read the logo");
		rc = ERR_IO;
	} else {
		rc = brand_logo_mem(b, d.data, d.len, why);
	}
	buf_free(&d);
	return rc;
}

void brand_free(struct report_brand *b)
{
	free(b->logo);
	b->logo = NULL;
	b->logo_len = 0;
	b->logo_mime = NULL;
}

void brand_logo_html(const struct report_brand *b, struct buf *out)
{
	if (!b || !b->logo_mime || !b->logo)
		return;
	buf_printf(out, "<img class=\"logo\" alt=\"\" src=\"data:%s;base64,", b->logo_mime);
	base64_append(out, b->logo, b->logo_len);
	buf_adds(out, "\">");
}
