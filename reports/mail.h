/* mail.h — MIME messages for the weekly reports: an HTML body with PNG images by cid:, a
 * plain-text alternative, HTML reports attached. Header fields built from capture data are
 * stripped of CR/LF and RFC 2047-encoded, so no header can be injected. Delivery is the batch
 * layer's (src/batch/deliver.h). */
#ifndef IOPSY_MAIL_H
#define IOPSY_MAIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* An image or attachment holds its bytes (data, len) or names the file they are read from when
 * the message is built (path, data NULL): a message written to a file then holds one piece of
 * one file at a time. */
struct mail_image {
	char *cid;                  /* without <> */
	char *data;
	size_t len;
	char *path;
};

struct mail_attachment {
	char *filename;             /* ASCII, sanitised by the caller */
	const char *content_type;
	char *data;
	size_t len;
	char *path;
};

struct mail_msg {
	const char *from;
	char **to;
	size_t nto;
	const char *subject;        /* UTF-8 (or bytes: invalid bytes become '?') */
	const char *html, *text;
	struct mail_image *img;
	size_t nimg;
	struct mail_attachment *att;
	size_t natt;
	const char *date;           /* RFC 5322 date; NULL = now */
	unsigned long long seed;    /* boundary / Message-ID uniqueness */
};

/* true when a is a plain address "local@domain" without spaces, quotes, angle brackets or
 * control characters, not starting with '-' (what we accept on the command line and in
 * manifests). */
bool mail_address_valid(const char *a);
/* Appends "Name: value\r\n" with value cleaned (CR/LF → space) and encoded as RFC 2047 UTF-8
 * base64 words (folded) when it is not plain printable ASCII. */
void mail_header(struct buf *out, const char *name, const char *value);
/* Appends "Name: a@x, b@y\r\n" for address headers: never encoded words (RFC 2047 forbids them in
 * addresses), folded before an address that would take a line past 78 characters. Addresses that
 * are not mail_address_valid are left out (none reaches here: they are refused or dropped
 * before). */
void mail_address_header(struct buf *out, const char *name, char *const *addr, size_t n);
/* Builds the whole RFC 5322/MIME message (CRLF line ends), appended to out (caller-owned).
 * Returns 0, or ERR_IO when a part's file could not be read (that part is then empty). */
int mail_build(const struct mail_msg *m, struct buf *out);
/* The same message written to fp, one piece at a time. 0 or ERR_IO (a file or a write failed). */
int mail_write(const struct mail_msg *m, FILE *fp);
/* What n bytes of a part take once base64-encoded in lines of 76 (without the part's headers). */
size_t mail_encoded_size(size_t n);
/* Frees the images and attachments of m (their strings, data and paths are owned by m). */
void mail_free_parts(struct mail_msg *m);

#endif
