/* deliver.h — the mail of a batch run: the index to --mail-to and each set with recipients its
 * own message, each carrying the bodies (batch_out.h), the sets' charts inline and their reports
 * attached; delivered through libcurl's SMTP client, a sendmail-like program (an argv, never a
 * shell) or written as .eml files. A message that is not delivered stays as an .eml file, so no
 * report is lost. */
#ifndef IOPSY_DELIVER_H
#define IOPSY_DELIVER_H

#include "batch_opts.h"
#include "batchres.h"

/* 0 when url may be given to --smtp: smtp:// or smtps://, no user info (a password there is seen
 * by every user of the machine in ps, and lands in shell histories and job scripts; credentials
 * come from IOPSY_SMTP_USER and IOPSY_SMTP_PASSWORD). Otherwise ERR_USAGE with the reason in why
 * (caller-owned), which never repeats the URL. */
int deliver_url_check(const char *url, struct buf *why);
/* Warnings about the mail settings before the run starts (credentials over plain smtp://). */
void batch_mail_check(const struct batch_opts *o, struct diag *d);
/* Makes and delivers every message of the run, all within o->mail_timeout_s, each within
 * o->mail_max_size (reports past it linked with o->report_url, or named by path). Replaces the
 * .eml files an earlier run left in DIR/mail. Messages through d. Returns 0, or ERR_IO when a
 * message could not be delivered or written (its .eml is kept when it could be written). */
int batch_mail(const struct batch *b, const struct run_info *ri, const struct batch_opts *o, struct diag *d);

#endif
