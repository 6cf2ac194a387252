/* mail.h — MIME messages for the weekly reports (HTML body with PNG images by cid:, a plain-text
 * alternative, HTML reports attached) and their delivery: libcurl's SMTP client, a sendmail-style
 * program run with an argv (never a shell), or .eml files. Header fields built from capture data
 * are stripped of CR/LF and RFC 2047-encoded, so no header can be injected. */
#ifndef IOPSY_MAIL_H
#define IOPSY_MAIL_H

#include <stdbool.h>
#include <stddef.h>

#include "util.h"

struct mail_image {
	char *cid;                  /* without <> */
	char *data;
	size_t len;
};

struct mail_attachment {
	char *filename;             /* ASCII, sanitised by the caller */
	const char *content_type;
	char *data;
	size_t len;
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
 * control characters (what we accept on the command line and in manifests). */
bool mail_address_valid(const char *a);
/* Appends "Name: value\r\n" with value cleaned (CR/LF → space) and encoded as RFC 2047 UTF-8
 * base64 words (folded) when it is not plain printable ASCII. */
void mail_header(struct buf *out, const char *name, const char *value);
/* Builds the whole RFC 5322/MIME message (CRLF line ends). */
void mail_build(const struct mail_msg *m, struct buf *out);
/* Sends through an SMTP URL (smtp://host:port or smtps://...); credentials from the environment
 * variables IOPSY_SMTP_USER and IOPSY_SMTP_PASSWORD. Returns 0 or ERR_IO (reason in err). */
int mail_send_smtp(const char *url, bool starttls, const struct mail_msg *m, const struct buf *msg, struct buf *err);
/* Runs cmd (split on blanks, no shell) with the recipients appended, message on stdin. */
int mail_send_program(const char *cmd, const struct mail_msg *m, const struct buf *msg, struct buf *err);
void mail_free_parts(struct mail_msg *m);

#endif
