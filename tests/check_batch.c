/* check_batch.c — batch pieces: set-name sanitising, discovery (folders, manifests, errors with
 * file:line), mail headers that cannot be injected, MIME structure, and the history database
 * (migration, recording, the previous run for trends, a failed write leaving it intact). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch.h"
#include "history.h"
#include "mail.h"
#include "suites.h"

static char dir[64];

static void setup(void)
{
	snprintf(dir, sizeof dir, "/tmp/iopsy-batch-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
}

static void put(const char *rel, const char *text)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, rel);
	for (char *c = p + strlen(dir) + 1; *c; c++)
		if (*c == '/') {
			*c = '\0';
			mkdir(p, 0755);
			*c = '/';
		}
	FILE *fp = fopen(p, "w");
	ck_assert_ptr_nonnull(fp);
	fputs(text, fp);
	fclose(fp);
}

static const char esx[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Memory\\Free MBytes\",\n\"07/27/2026 13:10:00\",\"5\",\n";

START_TEST(sanitize)
{
	const char *in[] = {"SQL01 weekly", "../../etc/passwd", "/abs/path", "..", ".", "", "a\r\nBcc: x@y",
			    "naïve", "ok-name_1.2", ".hidden"};
	const char *out[] = {"SQL01_weekly", "_._.._etc_passwd", "_abs_path", "_.", "_", "set", "a_Bcc_x_y",
			     "na_ve", "ok-name_1.2", "_hidden"};
	for (size_t i = 0; i < sizeof in / sizeof in[0]; i++) {
		char *s = batch_sanitize(in[i]);
		ck_assert_msg(strcmp(s, out[i]) == 0, "'%s' -> '%s', expected '%s'", in[i], s, out[i]);
		ck_assert(!strchr(s, '/') && strcmp(s, "..") != 0 && s[0] != '.');
		free(s);
	}
	char longname[300];
	memset(longname, 'x', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	char *s = batch_sanitize(longname);
	ck_assert_uint_le(strlen(s), 80);
	free(s);
}
END_TEST

START_TEST(discover_folder)
{
	put("in/b set/esxtop.csv", esx);
	put("in/b set/notes.docx", "binary-ish notes");
	put("in/b set/deeper/x.csv", esx);
	put("in/a/before/e.csv", esx);
	put("in/a/after/e.csv", esx);
	put("in/loose.csv", esx);
	char in[128];
	snprintf(in, sizeof in, "%s/in", dir);
	struct batch b;
	struct buf err;
	buf_init(&err);
	ck_assert_int_eq(batch_discover(&b, in, &err), 0);
	ck_assert_uint_eq(b.nsets, 3);
	ck_assert_str_eq(b.sets[0].name, "a");
	ck_assert(b.sets[0].paired);
	ck_assert_str_eq(b.sets[1].dir, "b_set");
	/* nothing silently dropped: the docx and the sub-folder are listed as not used */
	int ignored = 0, captures = 0;
	for (size_t i = 0; i < b.sets[1].nfiles; i++) {
		ignored += b.sets[1].files[i].role == BF_IGNORED && b.sets[1].files[i].note;
		captures += b.sets[1].files[i].role == BF_CAPTURE;
	}
	ck_assert_int_eq(ignored, 2);
	ck_assert_int_eq(captures, 1);
	ck_assert_str_eq(b.sets[2].name, "loose");
	batch_free(&b);
	buf_free(&err);
}
END_TEST

START_TEST(discover_manifest)
{
	put("m/caps/esx1.csv", esx);
	put("m/caps/esx2.csv", esx);
	put("m/old.csv", esx);
	put("m/new.csv", esx);
	put("m/manifest.txt", "# weekly\n[set SQL01 weekly]\nfiles = caps/*.csv\nmail-to = dba@example.com, ops@example.com\n"
			      "\n[set ../../etc]\nfiles = nothing-*.csv\n[set pair]\nbefore = old.csv\nafter = new.csv\n"
			      "bogus = 1\nfiles\n");
	char m[128];
	snprintf(m, sizeof m, "%s/m/manifest.txt", dir);
	struct batch b;
	struct buf err;
	buf_init(&err);
	ck_assert_int_eq(batch_discover(&b, m, &err), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.txt:11:1: error: unknown key 'bogus'"));
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.txt:12:1: error: expected 'key = value'"));
	ck_assert_uint_eq(b.nsets, 3);
	ck_assert_uint_eq(b.sets[0].nfiles, 2);
	ck_assert_uint_eq(b.sets[0].nmail, 2);
	ck_assert_str_eq(b.sets[0].mail_to[1], "ops@example.com");
	ck_assert_str_eq(b.sets[1].dir, "_._.._etc");
	ck_assert_ptr_nonnull(strstr(b.sets[1].discovery_error, "matches no file"));
	ck_assert(b.sets[2].paired);
	ck_assert_ptr_null(b.sets[2].discovery_error);
	batch_free(&b);
	buf_free(&err);
}
END_TEST

START_TEST(mail_headers)
{
	struct buf b;
	buf_init(&b);
	mail_header(&b, "Subject", "report: ok");
	ck_assert_str_eq(b.data, "Subject: report: ok\r\n");
	buf_reset(&b);
	mail_header(&b, "Subject", "set x\r\nBcc: victim@example.com");
	/* one header line: CR/LF cannot start a new header */
	ck_assert_str_eq(b.data, "Subject: set x  Bcc: victim@example.com\r\n");
	buf_reset(&b);
	mail_header(&b, "Subject", "Datentr\xc3\xa4ger \xe4 =?x?=");
	ck_assert_ptr_nonnull(strstr(b.data, "=?UTF-8?B?"));
	ck_assert_ptr_null(strstr(b.data + 9, "\r\nBcc"));
	ck_assert(!strchr(b.data, '\xe4'));
	buf_free(&b);
	ck_assert(mail_address_valid("dba@example.com"));
	ck_assert(!mail_address_valid("dba@example.com\r\nBcc: x@y"));
	ck_assert(!mail_address_valid("<dba@example.com>"));
	ck_assert(!mail_address_valid("no-at-sign"));
	ck_assert(!mail_address_valid("a b@c"));
}
END_TEST

START_TEST(mime_structure)
{
	char *to[] = {"a@example.com"};
	struct mail_image img = {.cid = "chart-1@iopsy", .data = "\x89PNG....", .len = 8};
	struct mail_attachment att = {.filename = "x-report.html", .content_type = "text/html; charset=utf-8",
				      .data = "<html></html>", .len = 13};
	struct mail_msg m = {.from = "iopsy@example.com", .to = to, .nto = 1, .subject = "s", .html = "<p>x<img src=\"cid:chart-1@iopsy\"></p>",
			     .text = "x", .img = &img, .nimg = 1, .att = &att, .natt = 1, .date = "Sun, 29 Nov 2026 19:00:00 +0000",
			     .seed = 42};
	struct buf b;
	buf_init(&b);
	mail_build(&m, &b);
	const char *parts[] = {"multipart/mixed", "multipart/related", "multipart/alternative", "text/plain",
			       "text/html", "Content-ID: <chart-1@iopsy>", "Content-Disposition: attachment; filename=\"x-report.html\"",
			       "MIME-Version: 1.0", "Message-ID: <iopsy."};
	for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
		ck_assert_msg(strstr(b.data, parts[i]) != NULL, "missing %s", parts[i]);
	for (size_t i = 1; i < b.len; i++)
		if (b.data[i] == '\n')
			ck_assert_int_eq(b.data[i - 1], '\r');
	buf_free(&b);
}
END_TEST

static struct bset *fake_set(struct batch *b, const char *name, const char *kind, double p95)
{
	b->sets = realloc(b->sets, (b->nsets + 1) * sizeof *b->sets);
	struct bset *s = &b->sets[b->nsets++];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->dir = batch_sanitize(name);
	s->status = BS_OK;
	s->worst = kind ? 2 : -1;
	s->capture_start = xstrdup("2026-07-27T13:00:00Z");
	if (kind) {
		s->f = xcalloc(1, sizeof *s->f);
		s->nf = 1;
		s->f->kind = xstrdup(kind);
		s->f->severity = xstrdup("critical");
		s->f->layer = xstrdup("vscsi");
		s->f->entity = xstrdup("D:");
		s->f->host = xstrdup("SQL01");
		s->f->start = xstrdup("2026-07-27T13:04:00Z");
		s->f->end = xstrdup("2026-07-27T13:16:00Z");
		s->f->summary = xstrdup("queue at 32");
	}
	s->stats = xcalloc(1, sizeof *s->stats);
	s->nstats = 1;
	s->stats->layer = xstrdup("guest");
	s->stats->entity = xstrdup("D:");
	s->stats->host = xstrdup("SQL01");
	s->stats->metric = xstrdup("guest_read_ms");
	s->stats->p95 = p95;
	s->stats->p50 = s->stats->p99 = s->stats->max = s->stats->mean = p95;
	s->stats->samples = 100;
	return s;
}

START_TEST(history_roundtrip)
{
	char db[128];
	snprintf(db, sizeof db, "%s/h.sqlite", dir);
	struct buf err;
	buf_init(&err);
	struct history *h;
	ck_assert_int_eq(history_open(&h, db, true, &err), 0);
	struct batch b;
	memset(&b, 0, sizeof b);
	fake_set(&b, "SQL01 weekly", "queue.guest_vscsi_cap", 150);
	fake_set(&b, "quiet", NULL, 3);
	ck_assert_int_eq(history_record(h, "2026-11-22T06:00:00Z", "/in", &b, &err), 0);
	history_close(h);
	/* a second week: the set's previous run is found with its figures and findings */
	ck_assert_int_eq(history_open(&h, db, false, &err), 0);
	struct batch b2;
	memset(&b2, 0, sizeof b2);
	struct bset *s = fake_set(&b2, "SQL01 weekly", NULL, 6);
	ck_assert_int_eq(history_previous(h, s, &err), 0);
	ck_assert(s->trend.have_previous);
	ck_assert_str_eq(s->trend.previous_started, "2026-11-22T06:00:00Z");
	ck_assert_uint_eq(s->trend.nprev_f, 1);
	ck_assert_str_eq(s->trend.prev_f[0].kind, "queue.guest_vscsi_cap");
	double prev;
	ck_assert_int_eq(trend_figure_change(s, &s->stats[0], &prev), 1);
	ck_assert(prev == 150);
	long n[3];
	trend_finding_counts(s, n);
	ck_assert(n[0] == 0 && n[1] == 0 && n[2] == 1); /* resolved */
	struct buf out;
	buf_init(&out);
	ck_assert_int_eq(history_list(h, NULL, &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "schema version 1"));
	ck_assert_ptr_nonnull(strstr(out.data, "SQL01 weekly"));
	buf_free(&out);
	history_close(h);
	batch_free(&b);
	batch_free(&b2);
	buf_free(&err);
}
END_TEST

START_TEST(history_unwritable_keeps_db)
{
	char db[128];
	snprintf(db, sizeof db, "%s/h.sqlite", dir);
	struct buf err;
	buf_init(&err);
	struct history *h;
	ck_assert_int_eq(history_open(&h, db, true, &err), 0);
	struct batch b;
	memset(&b, 0, sizeof b);
	fake_set(&b, "one", "latency.device", 10);
	ck_assert_int_eq(history_record(h, "2026-11-22T06:00:00Z", "/in", &b, &err), 0);
	history_close(h);
	/* a newer schema than this binary: refused, file untouched */
	char cmd[512];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s.v9' && sqlite3 '%s.v9' 'PRAGMA user_version = 9' 2>/dev/null", db, db, db);
	if (system(cmd) == 0) {
		char v9[160];
		snprintf(v9, sizeof v9, "%s.v9", db);
		ck_assert_int_eq(history_open(&h, v9, false, &err), ERR_FORMAT);
		ck_assert_ptr_nonnull(strstr(err.data, "newer than this iopsy"));
	}
	/* a read-only database: recording fails cleanly, earlier runs stay */
	if (geteuid() != 0) {
		chmod(db, 0444);
		ck_assert_int_eq(history_open(&h, db, false, &err), 0);
		ck_assert_int_lt(history_record(h, "2026-11-29T06:00:00Z", "/in", &b, &err), 0);
		history_close(h);
		chmod(db, 0644);
	}
	ck_assert_int_eq(history_open(&h, db, false, &err), 0);
	struct bset *s = &b.sets[0];
	ck_assert_int_eq(history_previous(h, s, &err), 0);
	ck_assert(s->trend.have_previous);
	history_close(h);
	batch_free(&b);
	buf_free(&err);
}
END_TEST

Suite *batch_suite(void)
{
	Suite *s = suite_create("batch");
	TCase *tc = tcase_create("parts");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, sanitize);
	tcase_add_test(tc, discover_folder);
	tcase_add_test(tc, discover_manifest);
	tcase_add_test(tc, mail_headers);
	tcase_add_test(tc, mime_structure);
	tcase_add_test(tc, history_roundtrip);
	tcase_add_test(tc, history_unwritable_keeps_db);
	suite_add_tcase(s, tc);
	return s;
}
