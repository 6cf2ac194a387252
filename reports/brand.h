/* brand.h — the engagement on a deliverable report: its title, the customer, who prepared it and a
 * logo. All of it is the consultant's input but treated like capture text: escaped wherever it is
 * written. The logo is checked (PNG or SVG, at most BRAND_LOGO_MAX bytes, a sane size) and only ever
 * embedded as an <img> data URI, so an SVG's scripts and external references cannot run or load. */
#ifndef IOPSY_BRAND_H
#define IOPSY_BRAND_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

#define BRAND_LOGO_MAX (512 * 1024)

struct report_brand {
	const char *title;        /* NULL: the report's own title */
	const char *customer;     /* NULL: none */
	const char *prepared_by;  /* NULL: none */
	const char *logo_mime;    /* "image/png" or "image/svg+xml"; NULL: no logo */
	unsigned char *logo;      /* the file's bytes (owned: brand_free) */
	size_t logo_len;
};

/* Reads the logo at path into b. Returns 0, ERR_IO (cannot read), ERR_LIMIT (too large) or
 * ERR_FORMAT (neither a PNG nor an SVG, an absurd PNG size, an SVG with a DOCTYPE or entities),
 * the reason appended to why. */
int brand_logo_load(struct report_brand *b, const char *path, struct buf *why);
/* The same from bytes in memory (copied). */
int brand_logo_mem(struct report_brand *b, const void *data, size_t n, struct buf *why);
void brand_free(struct report_brand *b);
/* <img class="logo" alt="" src="data:MIME;base64,..."> or nothing. */
void brand_logo_html(const struct report_brand *b, struct buf *out);
/* Appends n bytes as base64 (one line). */
void base64_append(struct buf *out, const void *data, size_t n);

#endif
