/* check_batch.c — batch pieces: set-name sanitising, discovery (folders, manifests, errors with
 * file:line), mail headers that cannot be injected, MIME structure, and the history database
 * (migration, recording, the previous run for trends, a failed write leaving it intact). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "batch_out.h"
#include "batchres.h"
#include "commands.h"
#include "compare.h"
#include "json.h"
#include "discover.h"
#include "hdb.h"
#include "history.h"
#include "mail.h"
#include "result.h"
#include "runner.h"
#include "shard.h"
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

/* A diag whose messages land in b, as the CLI's would on stderr. */
static struct diag buf_diag(struct buf *b)
{
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = "iopsy batch";
	d.sink = (struct diag_sink){.fn = diag_sink_buf, .ctx = b};
	return d;
}

static const char esx[] = "\"(PDH-CSV 4.0) (UTC)(0)\",\"\\\\h\\Memory\\Free MBytes\",\n\"07/27/2026 13:10:00\",\"5\",\n";

/* batch --out creates its folder like mkdir -p: a week's folder under a year's that does not
 * exist yet (it failed with exit 4) */
START_TEST(out_folder_created_with_parents)
{
	put("in/a/esxtop.csv", esx);
	char in[128], out[160], index[200];
	snprintf(in, sizeof in, "%s/in", dir);
	snprintf(out, sizeof out, "%s/reports/2026/W48", dir);
	char *argv[] = {"iopsy batch", in, "--out", out, "-j", "1", "--quiet", NULL};
	int rc = cmd_batch(7, argv);
	ck_assert_msg(rc == EXIT_OK || rc == EXIT_INPUT, "batch exited %d", rc);
	snprintf(index, sizeof index, "%s/index.html", out);
	ck_assert_int_eq(access(index, R_OK), 0);
	/* a file where a parent should be is a system error */
	put("file", "x");
	snprintf(out, sizeof out, "%s/file/sub", dir);
	char *argv2[] = {"iopsy batch", in, "--out", out, "-j", "1", "--quiet", NULL};
	ck_assert_int_eq(cmd_batch(7, argv2), EXIT_SYSTEM);
}
END_TEST

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
	struct diag d = buf_diag(&err);
	ck_assert_int_eq(batch_discover(&b, in, &d), 0);
	ck_assert_uint_eq(b.nsets, 3);
	ck_assert_str_eq(b.sets[0].name, "a");
	ck_assert(b.sets[0].paired);
	ck_assert_str_eq(b.sets[1].dir, "b_set");
	/* nothing silently dropped: the docx and the sub-folder are listed as not used */
	int ignored = 0, captures = 0;
	struct bfile *own;
	const struct bfile *f1 = bset_files(&b.sets[1], &own); /* from the run's list store */
	ck_assert(b.sets[1].stored && !b.sets[1].files);
	for (size_t i = 0; i < b.sets[1].nfiles; i++) {
		ignored += f1[i].role == BF_IGNORED && f1[i].note;
		captures += f1[i].role == BF_CAPTURE;
	}
	bfiles_free(own, b.sets[1].nfiles);
	ck_assert_int_eq(ignored, 2);
	ck_assert_int_eq(captures, 1);
	ck_assert_str_eq(b.sets[2].name, "loose");
	batch_free(&b);
	buf_free(&err);
}
END_TEST

/* A set's files are classified by the format table's probes (parser_probe, as reader_open does):
 * a vscsiStats file (no "(PDH-" in it) beside the esxtop is a capture of the set (issue 40). */
START_TEST(discover_by_the_formats_probes)
{
	put("in/s/esxtop.csv", esx);
	put("in/s/vscsistats.csv",
	    "Histogram: number of outstanding IOs when a new IO is issued,virtual machine worldGroupID,55761,"
	    "virtual disk handleID,8193 (scsi0:1)\nmin,1\nmax,32\nmean,30\ncount,10\nFrequency,Histogram Bucket Limit\n"
	    "0,1\n0,2\n0,4\n0,6\n0,8\n0,12\n0,16\n0,20\n0,24\n0,28\n10,32\n0,64\n0,64\n");
	put("in/s/notes.txt", "Histograms were taken at 13:00 (not one)\n");
	char in[128];
	snprintf(in, sizeof in, "%s/in", dir);
	struct batch b;
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	ck_assert_int_eq(batch_discover(&b, in, &d), 0);
	ck_assert_uint_eq(b.nsets, 1);
	struct bfile *own;
	const struct bfile *f = bset_files(&b.sets[0], &own);
	int vs = -1, notes = -1;
	for (size_t i = 0; i < b.sets[0].nfiles; i++) {
		if (strstr(f[i].path, "vscsistats.csv"))
			vs = f[i].role;
		if (strstr(f[i].path, "notes.txt"))
			notes = f[i].role;
	}
	bfiles_free(own, b.sets[0].nfiles);
	ck_assert_int_eq(vs, BF_CAPTURE);
	ck_assert_int_eq(notes, BF_IGNORED);
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
			      "bogus = 1\nfiles\narray-queue-dept = 64\n");
	char m[128];
	snprintf(m, sizeof m, "%s/m/manifest.txt", dir);
	struct batch b;
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	ck_assert_int_eq(batch_discover(&b, m, &d), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.txt:11:1: error: unknown key 'bogus'"));
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.txt:12:1: error: expected 'key = value'"));
	/* a mistyped key names the key meant */
	ck_assert_ptr_nonnull(strstr(err.data, "manifest.txt:13:1: error: unknown key 'array-queue-dept'; did you mean "
					       "array-queue-depth? (files, before,"));
	ck_assert_ptr_null(strstr(err.data, "'bogus'; did you mean"));
	ck_assert_uint_eq(b.nsets, 3);
	ck_assert_uint_eq(b.sets[0].nfiles, 2);
	ck_assert_uint_eq(b.sets[0].nmail, 2);
	ck_assert_str_eq(b.sets[0].mail_to[1], "ops@example.com");
	ck_assert_str_eq(b.sets[1].dir, "_._.._etc");
	ck_assert_ptr_nonnull(strstr(b.sets[1].discovery_error, "matches no file"));
	ck_assert(b.sets[2].paired);
	/* a set with a wrong line fails rather than run without what the line asked for */
	ck_assert_ptr_nonnull(b.sets[2].discovery_error);
	ck_assert_ptr_nonnull(strstr(b.sets[2].discovery_error, "'bogus' ("));
	ck_assert_ptr_nonnull(strstr(b.sets[2].discovery_error, ":11) is not a manifest key"));
	batch_free(&b);
	buf_free(&err);
}
END_TEST

/* A manifest's map/partitions/vmkernel-log key forces its files' role even when their head is none
 * the sniffer knows (a map named sql01.txt); a folder's Hyper-V map (VHDX paths) is sniffed as a
 * map. */
START_TEST(discover_forced_roles)
{
	put("f/esx.csv", esx);
	put("f/sql01.txt", "SQL01\\D: = C:\\ClusterStorage\\Volume1\\SQL01\\SQL01_D.vhdx\n");
	put("f/notes.txt", "what the customer said\n");
	put("f/m.ini", "[set hv]\nfiles = esx.csv\nmap = notes.txt\n[set two]\nfiles = esx.csv sql01.txt\n");
	char m[128];
	snprintf(m, sizeof m, "%s/f/m.ini", dir);
	struct batch b;
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	ck_assert_int_eq(batch_discover(&b, m, &d), 0);
	ck_assert_uint_eq(b.nsets, 2);
	ck_assert_uint_eq(b.sets[0].nfiles, 2);
	struct bfile *own0, *own1;
	const struct bfile *f0 = bset_files(&b.sets[0], &own0), *f1 = bset_files(&b.sets[1], &own1);
	ck_assert_int_eq(f0[1].role, BF_MAP); /* the key says so */
	ck_assert_ptr_null(f0[1].note);
	ck_assert_int_eq(f1[1].role, BF_MAP); /* sniffed: a VHDX map */
	bfiles_free(own0, b.sets[0].nfiles);
	bfiles_free(own1, b.sets[1].nfiles);
	batch_free(&b);
	buf_free(&err);
}
END_TEST

/* Issue 28: a manifest saved with a UTF-8 BOM or as UTF-16 (Notepad) is read like a UTF-8 one;
 * a section line that is not '[set NAME]' is an error at its column and a failed set of its own
 * (its lines are never dropped, nor given to the set before). */
START_TEST(discover_manifest_encodings_and_sections)
{
	put("e/caps/esx1.csv", esx);
	const char *text = "[set SQL01]\nfiles = caps/esx1.csv\n";
	char m[160];
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct batch b;
	for (int enc = 0; enc < 3; enc++) {
		snprintf(m, sizeof m, "%s/e/manifest%d.ini", dir, enc);
		FILE *fp = fopen(m, "wb");
		ck_assert_ptr_nonnull(fp);
		if (enc == 0)
			fputs("\xEF\xBB\xBF", fp);
		if (enc == 1)
			fputs("\xFF\xFE", fp);
		for (const char *c = text; *c; c++) {
			if (enc == 0) {
				fputc(*c, fp);
			} else if (enc == 1) { /* UTF-16LE with its BOM */
				fputc(*c, fp);
				fputc(0, fp);
			} else { /* UTF-16BE without one */
				fputc(0, fp);
				fputc(*c, fp);
			}
		}
		fclose(fp);
		buf_reset(&err);
		ck_assert_msg(batch_discover(&b, m, &d) == 0, "encoding %d: %s", enc, err.data ? err.data : "");
		ck_assert_uint_eq(b.nsets, 1);
		ck_assert_str_eq(b.sets[0].name, "SQL01");
		ck_assert_uint_eq(b.sets[0].nfiles, 1);
		ck_assert_ptr_null(b.sets[0].discovery_error);
		batch_free(&b);
	}
	put("e/sections.ini", "[set good]\nfiles = caps/esx1.csv\n  [Set SQL02]\nfiles = caps/esx1.csv\n[set]\n"
			      "files = caps/esx1.csv\n[set  ]\n[sets X\n");
	snprintf(m, sizeof m, "%s/e/sections.ini", dir);
	buf_reset(&err);
	ck_assert_int_eq(batch_discover(&b, m, &d), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.data, "sections.ini:3:3: error: expected '[set NAME]'"));
	ck_assert_ptr_nonnull(strstr(err.data, "sections.ini:5:1: error: expected '[set NAME]'"));
	ck_assert_ptr_nonnull(strstr(err.data, "sections.ini:7:1: error"));
	ck_assert_ptr_nonnull(strstr(err.data, "sections.ini:8:1: error"));
	ck_assert_ptr_null(strstr(err.data, "must come first"));
	ck_assert_uint_eq(b.nsets, 5);
	ck_assert_str_eq(b.sets[0].name, "good");
	ck_assert_uint_eq(b.sets[0].nfiles, 1); /* the next section's files are not the set's before */
	ck_assert_ptr_null(b.sets[0].discovery_error);
	ck_assert_str_eq(b.sets[1].name, "SQL02");
	ck_assert_ptr_nonnull(strstr(b.sets[1].discovery_error, "section line '[Set SQL02]' ("));
	ck_assert_ptr_nonnull(strstr(b.sets[1].discovery_error, "sections.ini:3:3) is not '[set NAME]'"));
	ck_assert_str_eq(b.sets[2].name, "manifest line 5");
	ck_assert_ptr_nonnull(b.sets[2].discovery_error);
	ck_assert_str_eq(b.sets[4].name, "sets X");
	ck_assert_str_eq(b.sets[3].name, "manifest line 7");
	ck_assert_ptr_nonnull(b.sets[4].discovery_error);
	batch_free(&b);
	buf_free(&err);
}
END_TEST

/* Issue 28: a set's key depends on its own name only: "dup set" and "dup_set" get the same keys
 * whichever comes first, and the exact name keeps its key whether the other is there or not. */
START_TEST(set_keys_are_stable)
{
	const char *orders[3][3] = {{"dup_set", NULL}, {"dup_set", "dup set", NULL}, {"dup set", "dup_set", NULL}};
	char *dup_set_key = NULL, *dup_space_key = NULL;
	for (int o = 0; o < 3; o++) {
		struct batch b;
		memset(&b, 0, sizeof b);
		for (int i = 0; orders[o][i]; i++) {
			b.sets = xrealloc(b.sets, (b.nsets + 1) * sizeof *b.sets);
			memset(&b.sets[b.nsets], 0, sizeof *b.sets);
			b.sets[b.nsets++].name = xstrdup(orders[o][i]);
		}
		batch_assign_keys(&b);
		for (size_t i = 0; i < b.nsets; i++) {
			if (strcmp(b.sets[i].name, "dup_set") == 0)
				ck_assert_str_eq(b.sets[i].dir, "dup_set");
			if (strcmp(b.sets[i].name, "dup set") == 0) {
				if (!dup_space_key)
					dup_space_key = xstrdup(b.sets[i].dir);
				ck_assert_str_eq(b.sets[i].dir, dup_space_key);
				ck_assert_int_eq(strncmp(b.sets[i].dir, "dup_set-", 8), 0);
				ck_assert_uint_eq(strlen(b.sets[i].dir), 16);
			}
		}
		batch_free(&b);
	}
	free(dup_set_key);
	free(dup_space_key);
}
END_TEST

/* Issue 28 (low): 2026-02-29 is no day (it was read as 1 March); 2028-02-29 is one. A report key
 * given twice is warned; a title is bounded. */
/* A flag row of the analysis option table as a manifest key (no-explore): yes/true/1 sets it,
 * no/false/0 leaves it off, anything else is an error at the value that fails its set. */
START_TEST(manifest_flag_key)
{
	put("f/caps/esx1.csv", esx);
	put("f/m.ini", "[set a]\nfiles = caps/esx1.csv\nno-explore = yes\n[set b]\nfiles = caps/esx1.csv\n"
		       "no-explore = No\n[set c]\nfiles = caps/esx1.csv\nno-explore = maybe\n[set d]\nfiles = caps/esx1.csv\n");
	char m[160];
	snprintf(m, sizeof m, "%s/f/m.ini", dir);
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct batch b;
	ck_assert_int_eq(batch_discover(&b, m, &d), ERR_FORMAT);
	ck_assert_uint_eq(b.nsets, 4);
	ck_assert(b.sets[0].opts.av[0].ao.no_explore && !b.sets[0].discovery_error);
	ck_assert(!b.sets[1].opts.av[0].ao.no_explore && !b.sets[1].discovery_error);
	ck_assert_ptr_nonnull(strstr(err.data, "m.ini:9:14: error: no-explore = 'maybe': yes or no"));
	ck_assert_ptr_nonnull(b.sets[2].discovery_error);
	ck_assert(!b.sets[3].opts.av[0].ao.no_explore && !b.sets[3].discovery_error);
	batch_free(&b);
	buf_free(&err);
}
END_TEST

START_TEST(manifest_no_such_date)
{
	put("d/caps/esx1.csv", esx);
	put("d/m.ini", "[set a]\nfiles = caps/esx1.csv\nfrom = 2026-02-29 10:00\n[set b]\nfiles = caps/esx1.csv\n"
		       "from = 2028-02-29 10:00\n");
	char m[160];
	snprintf(m, sizeof m, "%s/d/m.ini", dir);
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct batch b;
	ck_assert_int_eq(batch_discover(&b, m, &d), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.data, "m.ini:3:8: error"));
	ck_assert_ptr_nonnull(strstr(err.data, "no such date"));
	ck_assert_ptr_nonnull(b.sets[0].discovery_error);
	ck_assert_ptr_null(b.sets[1].discovery_error);
	batch_free(&b);
	/* a report key given twice is warned (the later is used); a title past 200 bytes fails its set */
	char longt[400];
	memset(longt, 'T', sizeof longt - 1);
	longt[sizeof longt - 1] = '\0';
	char text[600];
	snprintf(text, sizeof text, "[set a]\nfiles = caps/esx1.csv\ntitle = one\ntitle = two\n[set b]\nfiles = caps/esx1.csv\n"
				    "title = %s\n", longt);
	put("d/t.ini", text);
	snprintf(m, sizeof m, "%s/d/t.ini", dir);
	buf_reset(&err);
	ck_assert_int_eq(batch_discover(&b, m, &d), ERR_FORMAT);
	ck_assert_ptr_nonnull(strstr(err.data, "t.ini:4:1: warning: 'title' is given twice in set a"));
	ck_assert_str_eq(b.sets[0].title, "two");
	ck_assert_ptr_null(b.sets[0].discovery_error);
	ck_assert_ptr_nonnull(strstr(err.data, "t.ini:7:9: error: 'title' is 399 bytes long"));
	ck_assert_ptr_nonnull(b.sets[1].discovery_error);
	int64_t t;
	ck_assert_int_eq(time_parse_iso("2026-02-29T10:00:00Z", &t), ERR_FORMAT);
	ck_assert_int_eq(time_parse_iso("2028-02-29T10:00:00Z", &t), 0);
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
	/* issue 28 (low): bidi controls never reach a subject */
	buf_init(&b);
	mail_header(&b, "Subject", "set \xe2\x80\xaegnp.exe ok \xe2\x81\xa6x");
	ck_assert_ptr_null(strstr(b.data, "=?"));
	ck_assert_str_eq(b.data, "Subject: set ?gnp.exe ok ?x\r\n");
	buf_free(&b);
	/* issue 28: a long To: is folded, never encoded words (invalid for addresses) */
	char *to[60];
	for (int i = 0; i < 60; i++) {
		char a[64];
		snprintf(a, sizeof a, "storage-team-%02d@example.com", i);
		to[i] = strdup(a);
	}
	buf_init(&b);
	mail_address_header(&b, "To", to, 60);
	ck_assert_ptr_null(strstr(b.data, "=?"));
	ck_assert_int_eq(strncmp(b.data, "To: storage-team-00@example.com, storage-team-01@example.com,\r\n ", 64), 0);
	for (int i = 0; i < 60; i++) {
		ck_assert_ptr_nonnull(strstr(b.data, to[i]));
		free(to[i]);
	}
	for (const char *l = b.data; *l;) {
		const char *e = strstr(l, "\r\n");
		ck_assert_ptr_nonnull(e);
		ck_assert_int_le(e - l, 78);
		l = e + 2;
	}
	buf_free(&b);
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

/* A set with its result in memory: one critical finding of kind (or none) and one key figure. */
/* A message written to a file from attachment files, 57 KiB at a time, is byte for byte the
 * message built from the same bytes in memory. */
START_TEST(mime_streamed_from_files)
{
	size_t n = 200001; /* not a multiple of 57, past several chunks */
	char *data = xmalloc(n);
	for (size_t i = 0; i < n; i++)
		data[i] = (char)(i * 7919 % 251);
	char path[256], out[256];
	snprintf(path, sizeof path, "%s/report.html", dir);
	snprintf(out, sizeof out, "%s/m.eml", dir);
	FILE *fp = fopen(path, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(data, 1, n, fp), n);
	fclose(fp);
	char *to[] = {"a@example.com"};
	struct mail_attachment mem = {.filename = "x-report.html", .content_type = "text/html", .data = data, .len = n};
	struct mail_attachment file = {.filename = "x-report.html", .content_type = "text/html", .path = path};
	struct mail_msg m = {.from = "iopsy@example.com", .to = to, .nto = 1, .subject = "s", .html = "<p>x</p>", .text = "x",
			     .att = &mem, .natt = 1, .date = "Sun, 29 Nov 2026 19:00:00 +0000", .seed = 7};
	struct buf a;
	buf_init(&a);
	ck_assert_int_eq(mail_build(&m, &a), 0);
	m.att = &file;
	fp = fopen(out, "wb");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(mail_write(&m, fp), 0);
	fclose(fp);
	fp = fopen(out, "rb");
	struct buf b;
	buf_init(&b);
	char chunk[8192];
	size_t k;
	while ((k = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, k);
	fclose(fp);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert(memcmp(a.data, b.data, a.len) == 0);
	/* the size estimate the budget uses is exact for the body of a part */
	static const char disp[] = "filename=\"x-report.html\"\r\n\r\n";
	const char *body = strstr(a.data, disp) + strlen(disp);
	const char *end = strstr(body, "--=_iopsy_mixed");
	ck_assert_uint_eq((size_t)(end - body), mail_encoded_size(n));
	/* a file that went away is an error, not a silent empty part */
	unlink(path);
	fp = fopen(out, "wb");
	ck_assert_int_eq(mail_write(&m, fp), ERR_IO);
	fclose(fp);
	buf_free(&a);
	buf_free(&b);
	free(data);
}
END_TEST

static struct bset *fake_set(struct batch *b, const char *name, int kind, double p95)
{
	b->sets = realloc(b->sets, (b->nsets + 1) * sizeof *b->sets);
	struct bset *s = &b->sets[b->nsets++];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->dir = batch_sanitize(name);
	s->res = xcalloc(1, sizeof *s->res);
	struct bresult *r = s->res;
	bresult_init(r);
	r->status = BS_OK;
	r->have_span = true;
	time_parse_iso("2026-07-27T13:00:00Z", &r->span_start);
	r->span_end = r->span_start + 600000;
	if (kind >= 0) {
		r->f = xcalloc(1, sizeof *r->f);
		r->nf = 1;
		r->f->kind = (enum kind)kind;
		r->f->sev = SEV_CRITICAL;
		r->f->layer = LAYER_VSCSI;
		r->f->entity = xstrdup("D:");
		r->f->host = xstrdup("SQL01");
		r->f->start = r->span_start + 240000;
		r->f->end = r->span_start + 960000;
		r->f->summary = xstrdup("queue at 32");
	}
	r->st = xcalloc(1, sizeof *r->st);
	r->nst = 1;
	r->st->layer = LAYER_GUEST;
	r->st->metric = M_G_LAT_R;
	r->st->entity = xstrdup("D:");
	r->st->host = xstrdup("SQL01");
	r->st->p95 = p95;
	r->st->p50 = r->st->p99 = r->st->max = r->st->mean = p95;
	r->st->samples = 100;
	bset_take_outcome(s, r);
	return s;
}

/* issue 24: a before/after set carries its comparison's outcome and headline into summary.json,
 * the index and the mail, coloured by the outcome: a regressed set whose after side has no
 * finding ("clean") is never green. */
START_TEST(outcome_in_index)
{
	struct batch b;
	memset(&b, 0, sizeof b);
	static const struct {
		const char *name;
		int outcome;
		const char *color;
	} sets[] = {{"worse", CO_REGRESSED, "#b91c1c"}, {"better", CO_IMPROVED, "#15803d"}, {"same", CO_UNCHANGED, "#475569"}};
	for (size_t i = 0; i < 3; i++) {
		struct bset *s = fake_set(&b, sets[i].name, -1, 10);
		s->paired = true;
		s->res->outcome = sets[i].outcome;
		s->res->verdict = xstrdup("thirty lines of detail");
		char h[64];
		snprintf(h, sizeof h, "%s: the headline of %s.", cmp_outcome_words[sets[i].outcome], sets[i].name);
		s->res->headline = xstrdup(h);
		bset_take_outcome(s, s->res);
	}
	struct run_info ri = {.started = "2026-12-02T06:00:00Z", .input = "/in", .input_kind = "folder"};
	struct buf idx;
	buf_init(&idx);
	batch_index_html(&b, &ri, &idx);
	for (size_t i = 0; i < 3; i++) {
		char want[128];
		snprintf(want, sizeof want, "background:%s\">%s</span>", sets[i].color, cmp_outcome_names[sets[i].outcome]);
		const char *row = strstr(idx.data, sets[i].name);
		ck_assert_ptr_nonnull(row);
		const char *end = strstr(row, "</tr>");
		const char *badge = strstr(row, want);
		ck_assert_msg(badge && badge < end, "%s: no %s badge", sets[i].name, want);
		ck_assert_ptr_nonnull(strstr(row, "the headline of"));
		if (sets[i].outcome == CO_REGRESSED) {
			const char *green = strstr(row, "#15803d");
			ck_assert_msg(!green || green > end, "a regressed set shows green");
		}
	}
	/* the regressed set is listed before the clean ones */
	ck_assert(strstr(idx.data, "worse") < strstr(idx.data, "better"));
	ck_assert_ptr_null(strstr(idx.data, "thirty lines"));
	struct buf js;
	buf_init(&js);
	struct json j;
	json_init(&j, &js, false);
	batch_summary_json(&b, &ri, &j);
	ck_assert_ptr_nonnull(strstr(js.data, "\"outcome\":\"regressed\",\"headline\":\"Regressed: the headline of worse.\""));
	struct buf mail;
	buf_init(&mail);
	size_t all[3] = {0, 1, 2};
	batch_mail_text(&b, &ri, all, 3, NULL, 0, &mail);
	ck_assert_ptr_nonnull(strstr(mail.data, "[regressed] worse\n  Regressed: the headline of worse."));
	buf_free(&idx);
	buf_free(&js);
	buf_free(&mail);
	batch_free(&b);
}
END_TEST

/* The index counts each set once, a comparison by its outcome (an improved set whose after side
 * has no finding is not "clean"), and its failed count is summary.json's sets_failed (failed or
 * partial, as the exit status counts them). */
START_TEST(index_counts_agree)
{
	struct batch b;
	memset(&b, 0, sizeof b);
	struct bset *s = fake_set(&b, "dead", -1, 10);
	s->res->status = BS_FAILED;
	bset_take_outcome(s, s->res);
	s = fake_set(&b, "half", K_LAT_DEVICE, 10);
	s->res->status = BS_PARTIAL;
	bset_take_outcome(s, s->res);
	s = fake_set(&b, "moved", -1, 10);
	s->paired = true;
	s->res->outcome = CO_IMPROVED;
	bset_take_outcome(s, s->res);
	fake_set(&b, "quiet", -1, 10);
	ck_assert_int_eq(batch_sets_failed(&b), 2);
	struct run_info ri = {.started = "2026-12-02T06:00:00Z", .input = "/in", .input_kind = "folder"};
	struct buf idx, js;
	buf_init(&idx);
	buf_init(&js);
	batch_index_html(&b, &ri, &idx);
	ck_assert_msg(strstr(idx.data, "4 sets: 2 failed (1 of them partial); analyses: 0 critical, 0 warning, 0 incomplete, "
				       "1 clean; comparisons: 1 improved"),
		      "%s", idx.data);
	struct json j;
	json_init(&j, &js, false);
	batch_summary_json(&b, &ri, &j);
	ck_assert_ptr_nonnull(strstr(js.data, "\"sets_failed\":2"));
	buf_free(&idx);
	buf_free(&js);
	batch_free(&b);
}
END_TEST

START_TEST(history_roundtrip)
{
	char db[128];
	snprintf(db, sizeof db, "%s/h.sqlite", dir);
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct history *h;
	ck_assert_int_eq(history_open(&h, db, true, 0, &d), 0);
	struct batch b;
	memset(&b, 0, sizeof b);
	fake_set(&b, "SQL01 weekly", K_Q_GUEST_VSCSI_CAP, 150);
	fake_set(&b, "quiet", -1, 3);
	ck_assert_int_eq(history_record(h, "2026-11-22T06:00:00Z", "/in", NULL, &b, &d), 0);
	history_close(h);
	/* a second week: the set's previous run is found with its figures and findings */
	ck_assert_int_eq(history_open(&h, db, false, 0, &d), 0);
	struct batch b2;
	memset(&b2, 0, sizeof b2);
	struct bset *s = fake_set(&b2, "SQL01 weekly", -1, 6);
	struct bprev prev;
	ck_assert_int_eq(history_previous(h, s, NULL, &prev, &d), 0);
	ck_assert(prev.have);
	ck_assert_str_eq(prev.started, "2026-11-22T06:00:00Z");
	ck_assert_uint_eq(prev.nf, 1);
	ck_assert_int_eq(prev.f[0].kind, K_Q_GUEST_VSCSI_CAP);
	ck_assert_int_eq(prev.f[0].sev, SEV_CRITICAL);
	ck_assert_uint_eq(prev.nst, 1);
	ck_assert(prev.st[0].p95 == 150);
	trend_compute(s->res, &prev);
	const struct btrend *t = &s->res->trend;
	ck_assert(t->have_previous);
	ck_assert(t->n_new == 0 && t->n_still == 0 && t->n_resolved == 1); /* resolved */
	ck_assert_uint_eq(t->nresolved, 1);
	ck_assert_int_eq(t->resolved[0].kind, K_Q_GUEST_VSCSI_CAP);
	ck_assert_uint_eq(t->nfig, 1);
	ck_assert(t->fig[0].have_before && t->fig[0].before == 150 && t->fig[0].trend == FT_DOWN);
	bprev_free(&prev);
	struct buf out;
	buf_init(&out);
	ck_assert_int_eq(history_list(h, NULL, false, &out, &d), 0);
	ck_assert_ptr_nonnull(strstr(out.data, "schema version"));
	ck_assert_ptr_nonnull(strstr(out.data, "SQL01 weekly"));
	buf_free(&out);
	history_close(h);
	batch_free(&b);
	batch_free(&b2);
	buf_free(&err);
}
END_TEST

/* iopsy history: a set's status is its state (worst finding, a comparison's outcome), not the
 * worker's "ok"; figures are numbers ("1334.27", "13"), never "1.33e+03"; --json lists the same */
START_TEST(history_list_states)
{
	char db[128];
	snprintf(db, sizeof db, "%s/hs.sqlite", dir);
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct history *h;
	ck_assert_int_eq(history_open(&h, db, true, 0, &d), 0);
	struct batch b;
	memset(&b, 0, sizeof b);
	struct bset *s = fake_set(&b, "crit", K_Q_GUEST_VSCSI_CAP, 1334.27);
	s->res->st->max = 13;
	s = fake_set(&b, "moved", -1, 3);
	s->paired = true;
	s->res->outcome = CO_IMPROVED;
	bset_take_outcome(s, s->res);
	fake_set(&b, "quiet", -1, 3);
	ck_assert_int_eq(history_record(h, "2026-11-22T06:00:00Z", "/in", NULL, &b, &d), 0);
	struct buf out;
	buf_init(&out);
	ck_assert_int_eq(history_list(h, NULL, false, &out, &d), 0);
	ck_assert_msg(strstr(out.data, "crit                           critical       critical"), "%s", out.data);
	ck_assert_msg(strstr(out.data, "moved                          improved "), "%s", out.data);
	ck_assert_msg(strstr(out.data, "quiet                          ok "), "%s", out.data);
	buf_reset(&out);
	ck_assert_int_eq(history_list(h, "crit", false, &out, &d), 0);
	ck_assert_msg(strstr(out.data, " 1334.27 / 1334.27 / 13\n"), "%s", out.data);
	ck_assert_ptr_null(strstr(out.data, "e+"));
	buf_reset(&out);
	ck_assert_int_eq(history_list(h, "crit", true, &out, &d), 0);
	ck_assert_msg(strstr(out.data, "\"state\": \"critical\",\n      \"status\": \"ok\""), "%s", out.data);
	ck_assert_ptr_nonnull(strstr(out.data, "\"kind\": \"queue.guest_vscsi_cap\""));
	ck_assert_ptr_nonnull(strstr(out.data, "\"p95\": 1334.27"));
	buf_free(&out);
	history_close(h);
	batch_free(&b);
	buf_free(&err);
}
END_TEST

START_TEST(history_unwritable_keeps_db)
{
	char db[128];
	snprintf(db, sizeof db, "%s/h.sqlite", dir);
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct history *h;
	ck_assert_int_eq(history_open(&h, db, true, 0, &d), 0);
	struct batch b;
	memset(&b, 0, sizeof b);
	fake_set(&b, "one", K_LAT_DEVICE, 10);
	ck_assert_int_eq(history_record(h, "2026-11-22T06:00:00Z", "/in", NULL, &b, &d), 0);
	history_close(h);
	/* a newer schema than this binary: refused, file untouched */
	char cmd[512];
	snprintf(cmd, sizeof cmd, "cp '%s' '%s.v9' && sqlite3 '%s.v9' 'PRAGMA user_version = 9' 2>/dev/null", db, db, db);
	if (system(cmd) == 0) {
		char v9[160];
		snprintf(v9, sizeof v9, "%s.v9", db);
		ck_assert_int_eq(history_open(&h, v9, false, 0, &d), ERR_FORMAT);
		ck_assert_ptr_nonnull(strstr(err.data, "newer than this iopsy"));
	}
	/* a read-only database: recording fails cleanly, earlier runs stay */
	if (geteuid() != 0) {
		chmod(db, 0444);
		ck_assert_int_eq(history_open(&h, db, false, 0, &d), 0);
		ck_assert_int_lt(history_record(h, "2026-11-29T06:00:00Z", "/in", NULL, &b, &d), 0);
		history_close(h);
		chmod(db, 0644);
	}
	ck_assert_int_eq(history_open(&h, db, false, 0, &d), 0);
	struct bset *s = &b.sets[0];
	struct bprev prev;
	ck_assert_int_eq(history_previous(h, s, NULL, &prev, &d), 0);
	ck_assert(prev.have);
	bprev_free(&prev);
	history_close(h);
	batch_free(&b);
	buf_free(&err);
}
END_TEST

/* The one trend function: new, still present and resolved findings, distinct by kind, entity
 * and host; figures within 5% unchanged; without a previous run every finding is new. */
START_TEST(trend_one_function)
{
	struct batch b;
	memset(&b, 0, sizeof b);
	struct bset *s = fake_set(&b, "x", K_LAT_DEVICE, 10.2);
	struct bresult *r = s->res;
	trend_compute(r, NULL);
	ck_assert(!r->trend.have_previous && r->trend.n_new == 1 && r->trend.state[0] == TS_FIRST_RUN);
	ck_assert_int_eq(r->trend.fig[0].trend, FT_NEW);
	struct bprev p;
	memset(&p, 0, sizeof p);
	p.have = true;
	p.started = xstrdup("2026-11-22T06:00:00Z");
	p.capture = xstrdup("");
	p.f = xcalloc(3, sizeof *p.f);
	p.nf = 3;
	for (int i = 0; i < 3; i++) {
		p.f[i] = r->f[0];
		p.f[i].entity = xstrdup(i == 2 ? "E:" : "D:");
		p.f[i].host = xstrdup("SQL01");
		p.f[i].summary = xstrdup("old");
	}
	p.st = xcalloc(1, sizeof *p.st);
	p.nst = 1;
	p.st[0] = r->st[0];
	p.st[0].entity = xstrdup("D:");
	p.st[0].host = NULL; /* the history keeps "" for none: the same host */
	free(r->st[0].host);
	r->st[0].host = NULL;
	p.st[0].p95 = 10;
	trend_compute(r, &p);
	const struct btrend *t = &r->trend;
	ck_assert(t->have_previous && t->state[0] == TS_STILL);
	ck_assert(t->n_new == 0 && t->n_still == 1 && t->n_resolved == 1);
	ck_assert_str_eq(t->resolved[0].entity, "E:");
	ck_assert(t->fig[0].trend == FT_UNCHANGED && t->nunchanged == 1);
	bprev_free(&p);
	batch_free(&b);
}
END_TEST

/* The result record: what the worker writes the parent reads back exactly; anything else (cut
 * short, a byte changed, another run, another version, an id out of its table) is refused whole. */
START_TEST(record_roundtrip_and_validation)
{
	struct batch b;
	memset(&b, 0, sizeof b);
	struct bset *s = fake_set(&b, "SQL01", K_Q_GUEST_VSCSI_CAP, 150);
	struct bresult *r = s->res;
	r->status = BS_PARTIAL;
	r->error = xstrdup("x.csv: unreadable");
	r->verdict = xstrdup("IO waits in the guest");
	r->warnings = 7;
	r->notes = xcalloc(1, sizeof *r->notes);
	r->nnotes = 1;
	r->notes[0].note = xstrdup("left out");
	trend_compute(r, NULL);
	struct buf enc;
	buf_init(&enc);
	result_encode(r, 0x1234abcdULL, &enc);
	struct bresult o;
	const char *why = NULL;
	ck_assert_int_eq(result_decode(enc.data, enc.len, 0x1234abcdULL, 1, &o, &why), 0);
	ck_assert_int_eq(o.outcome, -1); /* an analysis: no comparison outcome */
	ck_assert_ptr_null(o.headline);
	bresult_free(&o);
	r->outcome = CO_REGRESSED;
	r->headline = xstrdup("Regressed: SQL01 D: reads p95 5 -> 50 ms.");
	buf_free(&enc);
	buf_init(&enc);
	result_encode(r, 0x1234abcdULL, &enc);
	ck_assert_int_eq(result_decode(enc.data, enc.len, 0x1234abcdULL, 1, &o, &why), 0);
	ck_assert_int_eq(o.outcome, CO_REGRESSED);
	ck_assert_str_eq(o.headline, "Regressed: SQL01 D: reads p95 5 -> 50 ms.");
	ck_assert_int_eq(o.status, BS_PARTIAL);
	ck_assert_str_eq(o.error, "x.csv: unreadable");
	ck_assert_str_eq(o.verdict, "IO waits in the guest");
	ck_assert_int_eq(o.warnings, 7);
	ck_assert(o.have_span && o.span_start == r->span_start && o.span_end == r->span_end);
	ck_assert_uint_eq(o.nf, 1);
	ck_assert_int_eq(o.f[0].kind, K_Q_GUEST_VSCSI_CAP);
	ck_assert_int_eq(o.f[0].sev, SEV_CRITICAL);
	ck_assert_int_eq(o.f[0].layer, LAYER_VSCSI);
	ck_assert_str_eq(o.f[0].host, "SQL01");
	ck_assert_uint_eq(o.nst, 1);
	ck_assert_int_eq(o.st[0].metric, M_G_LAT_R);
	ck_assert(o.st[0].p95 == 150);
	ck_assert(o.trend.n_new == 1 && o.trend.nfig == 1 && o.trend.state[0] == TS_FIRST_RUN);
	ck_assert_uint_eq(o.nnotes, 1);
	ck_assert_str_eq(o.notes[0].note, "left out");
	bresult_free(&o);
	/* another run's record is stale: refused */
	ck_assert_int_eq(result_decode(enc.data, enc.len, 0x1234abceULL, 1, &o, &why), ERR_FORMAT);
	ck_assert_str_eq(why, "a result record of another run");
	/* every truncation and every single changed byte is refused */
	for (size_t n = 0; n < enc.len; n++)
		ck_assert_int_eq(result_decode(enc.data, n, 0x1234abcdULL, 1, &o, &why), ERR_FORMAT);
	for (size_t i = 0; i < enc.len; i++) {
		enc.data[i] ^= 0x5a;
		ck_assert_msg(result_decode(enc.data, enc.len, 0x1234abcdULL, 1, &o, &why) == ERR_FORMAT, "byte %zu", i);
		enc.data[i] ^= 0x5a;
	}
	/* a note about a file the set does not have */
	ck_assert_int_eq(result_decode(enc.data, enc.len, 0x1234abcdULL, 0, &o, &why), ERR_FORMAT);
	/* trailing bytes */
	buf_addc(&enc, 0);
	ck_assert_int_eq(result_decode(enc.data, enc.len, 0x1234abcdULL, 1, &o, &why), ERR_FORMAT);
	buf_free(&enc);
	/* a kind id past the kind table, with a valid checksum: refused by its range check */
	r->f[0].kind = (enum kind)K_COUNT;
	buf_init(&enc);
	result_encode(r, 1, &enc);
	ck_assert_int_eq(result_decode(enc.data, enc.len, 1, 1, &o, &why), ERR_FORMAT);
	ck_assert_str_eq(why, "a finding kind is not in the kind table");
	r->f[0].kind = K_Q_GUEST_VSCSI_CAP;
	buf_free(&enc);
	/* through the file: written atomically, read back */
	ck_assert_int_eq(result_write(dir, r, 99), 0);
	ck_assert_int_eq(result_read(dir, 99, 1, &o, &why), 0);
	ck_assert_int_eq(o.status, BS_PARTIAL);
	bresult_free(&o);
	ck_assert_int_eq(result_read(dir, 98, 1, &o, &why), ERR_FORMAT);
	batch_free(&b);
}
END_TEST

/* ---- the runner: a set's result is this run's, or the set is failed ---- */

/* Workers that misbehave in each way a real one can. */
static int odd_worker(const struct bset *s, const char *setdir, const struct bprev *prev, const struct batch_opts *o,
		      uint64_t run_id)
{
	(void)prev;
	(void)o;
	struct bresult r;
	bresult_init(&r);
	r.status = BS_OK;
	r.verdict = xstrdup("fine");
	if (strcmp(s->name, "dies") == 0)
		_exit(EXIT_SYSTEM); /* out of memory before its record, as die_nomem does */
	if (strcmp(s->name, "crashes") == 0)
		raise(SIGKILL); /* as the OOM killer does (ASan would catch a SIGSEGV and exit 1) */
	if (strcmp(s->name, "hangs") == 0)
		pause();
	if (strcmp(s->name, "lies") == 0) {
		result_write(setdir, &r, run_id); /* an "ok" record, then a failing exit */
		_exit(3);
	}
	if (strcmp(s->name, "stale") == 0)
		result_write(setdir, &r, run_id + 1); /* a record of another run */
	else
		result_write(setdir, &r, run_id);
	bresult_free(&r);
	return 0;
}

static struct bset *bare_set(struct batch *b, const char *name)
{
	b->sets = realloc(b->sets, (b->nsets + 1) * sizeof *b->sets);
	struct bset *s = &b->sets[b->nsets++];
	memset(s, 0, sizeof *s);
	s->name = xstrdup(name);
	s->dir = xstrdup(name);
	s->worst = -1;
	return s;
}

START_TEST(runner_results_are_this_runs)
{
	struct batch b;
	memset(&b, 0, sizeof b);
	const char *names[] = {"ok", "dies", "crashes", "hangs", "lies", "stale"};
	for (size_t i = 0; i < 6; i++)
		bare_set(&b, names[i]);
	uint64_t run = 0x5eed;
	/* last week's results are in every set's folder, "ok, 0 findings", even with this run's id */
	struct bresult old;
	bresult_init(&old);
	old.status = BS_OK;
	old.verdict = xstrdup("last week");
	for (size_t i = 0; i < 6; i++) {
		char p[256];
		snprintf(p, sizeof p, "%s/%s", dir, names[i]);
		mkdir(p, 0755);
		ck_assert_int_eq(result_write(p, &old, run), 0);
	}
	bresult_free(&old);
	struct batch_opts o;
	memset(&o, 0, sizeof o);
	o.out = dir;
	o.jobs = 3;
	o.set_timeout_s = 2;
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct batch_loader loader;
	batch_run(&b, &o, run, NULL, odd_worker, &loader, &d);
	ck_assert_int_eq(b.sets[0].status, BS_OK);
	ck_assert(b.sets[0].has_record);
	struct bresult tmp;
	const struct bresult *r = batch_result(&b, 0, &tmp);
	ck_assert_str_eq(r->verdict, "fine");
	if (r == &tmp)
		bresult_free(&tmp);
	for (size_t i = 1; i < 6; i++) {
		const struct bset *s = &b.sets[i];
		ck_assert_msg(s->status == BS_FAILED && !s->has_record, "set %s: status %d", s->name, s->status);
		r = batch_result(&b, i, &tmp);
		ck_assert_ptr_null(r->verdict); /* never last week's */
		if (r == &tmp)
			bresult_free(&tmp);
		char p[256];
		snprintf(p, sizeof p, "%s/%s/.result", dir, s->name);
		ck_assert_msg(access(p, F_OK) != 0, "set %s: a record that is not this run's stays", s->name);
	}
	ck_assert(b.sets[1].system_error); /* exit 4: out of memory or not writable */
	ck_assert_ptr_nonnull(strstr(b.sets[2].error, "crashed (signal 9)"));
	ck_assert_ptr_nonnull(strstr(b.sets[3].error, "did not finish within 2 s"));
	ck_assert_ptr_nonnull(strstr(b.sets[4].error, "exit status 3"));
	ck_assert_ptr_nonnull(strstr(b.sets[5].error, "another run"));
	batch_free(&b);
	buf_free(&err);
}
END_TEST

/* ---- discovery: names the run writes, FIFOs, devices ---- */

START_TEST(discover_reserved_and_special_files)
{
	put("in/index.html/esxtop.csv", esx);
	put("in/Summary.JSON/esxtop.csv", esx);
	put("in/mail/esxtop.csv", esx);
	put("in/sql01/esxtop.csv", esx);
	put("in/SQL01.csv", esx);
	char p[256];
	snprintf(p, sizeof p, "%s/in/sql01/pipe.csv", dir);
	ck_assert_int_eq(mkfifo(p, 0644), 0);
	snprintf(p, sizeof p, "%s/in/sql01/null.csv", dir);
	ck_assert_int_eq(symlink("/dev/null", p), 0);
	char in[128];
	snprintf(in, sizeof in, "%s/in", dir);
	struct batch b;
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	ck_assert_int_eq(batch_discover(&b, in, &d), 0);
	ck_assert_uint_eq(b.nsets, 5);
	/* issue 28: of sql01/ and SQL01.csv the bytewise first exact name keeps its key, the other gets
	 * the hash of its own name (FNV-1a 64 of "sql01", low 32 bits) */
	const char *want[] = {"Summary.JSON-2", "index.html-2", "mail-2", "sql01-65362f84", "SQL01"};
	for (size_t i = 0; i < 5; i++)
		ck_assert_msg(strcmp(b.sets[i].dir, want[i]) == 0, "set %zu: %s, expected %s", i, b.sets[i].dir, want[i]);
	const struct bset *s = &b.sets[3];
	int fifo = 0, dev = 0;
	struct bfile *own;
	const struct bfile *fl = bset_files(s, &own);
	for (size_t i = 0; i < s->nfiles; i++) {
		const struct bfile *f = &fl[i];
		fifo += f->role == BF_IGNORED && f->note && strstr(f->note, "a FIFO") != NULL;
		dev += f->role == BF_IGNORED && f->note && strstr(f->note, "a character device") != NULL;
	}
	bfiles_free(own, s->nfiles);
	ck_assert_int_eq(fifo, 1);
	ck_assert_int_eq(dev, 1);
	batch_free(&b);
	buf_free(&err);
	ck_assert(!mail_address_valid("-oQ/tmp/x@example.com"));
	ck_assert(mail_address_valid("o-q@example.com"));
}
END_TEST

/* ---- history: sets keyed by their folder names, version 1 migrated, errors said once ---- */

START_TEST(history_keys_and_migration)
{
	char db[128], cmd[4096];
	snprintf(db, sizeof db, "%s/v1.sqlite", dir);
	/* a version-1 history whose run has names that sanitise alike */
	snprintf(cmd, sizeof cmd,
		 "sqlite3 '%s' \"CREATE TABLE runs(id INTEGER PRIMARY KEY, started TEXT NOT NULL, input TEXT NOT NULL, "
		 "tool_version TEXT NOT NULL); CREATE TABLE sets(run_id INTEGER NOT NULL, name TEXT NOT NULL, status TEXT NOT NULL, "
		 "error TEXT, capture_start TEXT, capture_end TEXT, worst TEXT, findings INTEGER NOT NULL, verdict TEXT, "
		 "PRIMARY KEY(run_id, name)); CREATE TABLE stats(run_id INTEGER NOT NULL, set_name TEXT NOT NULL, layer TEXT NOT "
		 "NULL, entity TEXT NOT NULL, host TEXT NOT NULL, metric TEXT NOT NULL, p50 REAL, p95 REAL, p99 REAL, max REAL, "
		 "mean REAL, samples INTEGER); CREATE TABLE findings(run_id INTEGER NOT NULL, set_name TEXT NOT NULL, kind TEXT "
		 "NOT NULL, severity TEXT NOT NULL, layer TEXT NOT NULL, entity TEXT NOT NULL, host TEXT NOT NULL, start TEXT, "
		 "end TEXT, summary TEXT); INSERT INTO runs VALUES(1, '2026-11-22T06:00:00Z', '/in', 'x'); INSERT INTO sets "
		 "VALUES(1, 'a b', 'ok', NULL, NULL, NULL, 'critical', 1, 'v'), (1, 'a_b', 'ok', NULL, NULL, NULL, NULL, 0, 'v'); "
		 "INSERT INTO findings VALUES(1, 'a b', 'latency.device', 'critical', 'device', 'naa.1', 'h', "
		 "'2026-11-22T06:00:00Z', '2026-11-22T06:10:00Z', 's'); PRAGMA user_version = 1;\" 2>/dev/null",
		 db);
	ck_assert_int_eq(system(cmd), 0); /* the sqlite3 shell is a test dependency (make deps-test) */
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct history *h;
	ck_assert_int_eq(history_open(&h, db, false, 0, &d), 0);
	struct batch b;
	memset(&b, 0, sizeof b);
	fake_set(&b, "a b", -1, 1);
	fake_set(&b, "a_b", -1, 1);
	struct bset *s1 = &b.sets[0], *s2 = &b.sets[1]; /* (fake_set moves the array) */
	free(s2->dir);
	s2->dir = xstrdup("a_b-2");
	struct bprev p;
	ck_assert_int_eq(history_previous(h, s1, NULL, &p, &d), 0);
	ck_assert(p.have && p.nf == 1 && p.f[0].kind == K_LAT_DEVICE); /* "a b" became a_b */
	bprev_free(&p);
	ck_assert_int_eq(history_previous(h, s2, NULL, &p, &d), 0);
	ck_assert(p.have && p.nf == 0); /* "a_b" became a_b-2 */
	bprev_free(&p);
	/* two sets of one name in a run: both recorded */
	free(s2->name);
	s2->name = xstrdup("a b");
	ck_assert_int_eq(history_record(h, "2026-11-29T06:00:00Z", "/in", NULL, &b, &d), 0);
	history_close(h);
	/* a broken history: the first failed lookup is said, the next ones are not */
	snprintf(cmd, sizeof cmd, "sqlite3 '%s' 'DROP TABLE stats' 2>/dev/null", db);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_int_eq(history_open(&h, db, false, 0, &d), 0);
	buf_reset(&err);
	for (int i = 0; i < 5; i++) {
		ck_assert_int_lt(history_previous(h, s1, NULL, &p, &d), 0);
		bprev_free(&p);
	}
	int lines = 0;
	for (const char *c = err.data; c && *c; c++)
		lines += *c == '\n';
	ck_assert_int_eq(lines, 2); /* the error, and which sets have no trend */
	history_close(h);
	batch_free(&b);
	buf_free(&err);
}
END_TEST


/* The documented shard assignment (FNV-1a 64 of the key mod N), --shard and --run-id parsing. */
START_TEST(shard_assignment)
{
	ck_assert(shard_fnv1a64("", 0) == 0xcbf29ce484222325ull);
	ck_assert(shard_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cull);
	ck_assert(shard_fnv1a64("foobar", 6) == 0x85944171f73967e8ull);
	ck_assert_uint_eq(shard_of("foobar", 7), (unsigned)(0x85944171f73967e8ull % 7));
	size_t count[3] = {0};
	for (int i = 0; i < 300; i++) {
		char k[16];
		snprintf(k, sizeof k, "set-%d", i);
		unsigned a = shard_of(k, 3);
		ck_assert_uint_lt(a, 3);
		ck_assert_uint_eq(a, shard_of(k, 3)); /* stable */
		count[a]++;
	}
	for (int i = 0; i < 3; i++)
		ck_assert_uint_gt(count[i], 70); /* spread */
	unsigned k, n;
	ck_assert_int_eq(shard_parse("0/3", &k, &n), 0);
	ck_assert(k == 0 && n == 3);
	ck_assert_int_eq(shard_parse("2/3", &k, &n), 0);
	ck_assert(k == 2 && n == 3);
	ck_assert_int_eq(shard_parse("0/1", &k, &n), 0);
	const char *bad[] = {"3/3", "1", "/3", "1/", "-1/3", "0/0", "1/-3", " 0/3", "0/3 ", "0/100001", "1/2/3", "a/3", "99999999/1"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(shard_parse(bad[i], &k, &n) == ERR_USAGE, "--shard %s accepted", bad[i]);
	ck_assert(run_id_valid("a") && run_id_valid("2026-W48_1:x+y@z.1") && run_id_valid("12345"));
	char longid[RUN_ID_MAX + 2];
	memset(longid, 'x', sizeof longid - 1);
	longid[sizeof longid - 1] = '\0';
	const char *badid[] = {"", "-x", "a b", "a/b", "a\nb", "a'b", "$(x)", longid};
	for (size_t i = 0; i < sizeof badid / sizeof badid[0]; i++)
		ck_assert_msg(!run_id_valid(badid[i]), "--run-id %s accepted", badid[i]);
	longid[RUN_ID_MAX] = '\0';
	ck_assert(run_id_valid(longid));
	ck_assert(run_id_number("w1") != run_id_number("w2"));
	ck_assert(run_id_number("w1") == run_id_number("w1"));
}
END_TEST

/* The run's markers: the first shard makes .run, the others join it; another N is refused,
 * another run id replaces it only once it is finished; a shard's end marker is read back for its
 * run only. */
START_TEST(shard_markers)
{
	struct buf why;
	buf_init(&why);
	char *started = NULL;
	unsigned n = 0;
	ck_assert_int_eq(run_marker_read(dir, "r1", &n, &started), ERR_IO);
	ck_assert_int_eq(run_marker_join(dir, "r1", 3, "2026-11-30T06:00:00Z", &started, &why), 0);
	ck_assert_str_eq(started, "2026-11-30T06:00:00Z");
	free(started);
	ck_assert_int_eq(run_marker_join(dir, "r1", 3, "2026-11-30T06:05:00Z", &started, &why), 0);
	ck_assert_str_eq(started, "2026-11-30T06:00:00Z"); /* the first shard's start */
	free(started);
	ck_assert_int_eq(run_marker_join(dir, "r1", 4, "2026-11-30T06:05:00Z", &started, &why), ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(why.data, "started with 3 shards, not 4"));
	ck_assert_ptr_null(started);
	ck_assert_int_eq(run_marker_read(dir, "r1", &n, &started), 0);
	ck_assert(n == 3 && strcmp(started, "2026-11-30T06:00:00Z") == 0);
	free(started);
	ck_assert_int_eq(run_marker_read(dir, "r2", &n, &started), ERR_IO);
	/* issue 28: another run id never takes over a run that has not finished ... */
	buf_reset(&why);
	ck_assert_int_eq(run_marker_join(dir, "r2", 2, "2026-12-07T06:00:00Z", &started, &why), ERR_USAGE);
	ck_assert_ptr_nonnull(strstr(why.data, "belongs to run r1"));
	ck_assert_ptr_null(started);
	ck_assert_int_eq(run_marker_read(dir, "r1", &n, &started), 0);
	free(started);
	/* ... and takes over one whose finish step marked it finished (a finish step of another id
	 * marks nothing) */
	ck_assert_int_eq(run_marker_finish(dir, "r2", "2026-11-30T07:00:00Z"), ERR_IO);
	ck_assert_int_eq(run_marker_finish(dir, "r1", "2026-11-30T07:00:00Z"), 0);
	ck_assert_int_eq(run_marker_read(dir, "r1", &n, &started), 0); /* still read as r1's */
	ck_assert(n == 3 && strcmp(started, "2026-11-30T06:00:00Z") == 0);
	free(started);
	ck_assert_int_eq(run_marker_join(dir, "r2", 2, "2026-12-07T06:00:00Z", &started, &why), 0);
	ck_assert_str_eq(started, "2026-12-07T06:00:00Z"); /* last week's finished marker replaced */
	free(started);
	ck_assert_int_eq(run_marker_read(dir, "r1", &n, &started), ERR_IO);
	/* not a marker at all: replaced too */
	put(".run", "garbage\n");
	ck_assert_int_eq(run_marker_join(dir, "r3", 2, "2026-12-14T06:00:00Z", &started, &why), 0);
	free(started);
	uint64_t fp = 0;
	ck_assert_int_eq(shard_marker_read(dir, "r3", 1, 2, &fp), ERR_IO);
	ck_assert_int_eq(shard_marker_write(dir, "r3", 1, 2, 0x0123456789abcdefull, 7), 0);
	ck_assert_int_eq(shard_marker_read(dir, "r3", 1, 2, &fp), 0);
	ck_assert(fp == 0x0123456789abcdefull);
	ck_assert_int_eq(shard_marker_read(dir, "r4", 1, 2, &fp), ERR_IO);
	ck_assert_int_eq(shard_marker_read(dir, "r3", 0, 2, &fp), ERR_IO);
	char p[256];
	snprintf(p, sizeof p, "%s/.shard-1-of-2", dir);
	struct stat st;
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0644);
	run_markers_remove(dir);
	ck_assert_int_ne(stat(p, &st), 0);
	ck_assert_int_eq(run_marker_read(dir, "r3", &n, &started), ERR_IO);
	buf_free(&why);
}
END_TEST

/* A history URI with a password is refused before anything is opened; files and URIs without
 * one pass. */
START_TEST(history_uri_password)
{
	struct buf why;
	buf_init(&why);
	ck_assert_int_eq(hdb_uri_check("/srv/reports/history.sqlite", &why), 0);
	ck_assert_int_eq(hdb_uri_check("postgresql://iopsy@db.example.com:5432/iopsy?sslmode=require", &why), 0);
	ck_assert_int_eq(hdb_uri_check("postgresql:///iopsy?host=/tmp/x&user=iopsy", &why), 0);
	ck_assert(hdb_is_uri("postgres://h/db") && hdb_is_uri("postgresql://h/db") && !hdb_is_uri("postgresql.sqlite"));
	const char *bad[] = {"postgresql://iopsy:secret@db.example.com/iopsy", "postgres://u:p@/db",
			     "postgresql://db.example.com/iopsy?password=secret", "postgresql://h/db?sslmode=disable&password=x"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		buf_reset(&why);
		ck_assert_msg(hdb_uri_check(bad[i], &why) == ERR_USAGE, "%s accepted", bad[i]);
		ck_assert_ptr_nonnull(strstr(why.data, "password"));
	}
	struct hdb *db;
	buf_reset(&why);
	ck_assert_int_eq(hdb_open(&db, "postgresql://u:p@localhost/db", true, 0, &why), ERR_IO);
	ck_assert_ptr_nonnull(strstr(why.data, "holds a password"));
	buf_free(&why);
}
END_TEST

/* A run id recorded again replaces that run's rows (its finish step run twice). */
START_TEST(history_run_key_replaces)
{
	char db[128];
	snprintf(db, sizeof db, "%s/h.sqlite", dir);
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct history *h;
	ck_assert_int_eq(history_open(&h, db, true, 0, &d), 0);
	struct batch b;
	memset(&b, 0, sizeof b);
	fake_set(&b, "a", 2, 1);
	fake_set(&b, "b", -1, 1);
	ck_assert_int_eq(history_record(h, "2026-11-22T06:00:00Z", "/in", "w47", &b, &d), 0);
	ck_assert_int_eq(history_record(h, "2026-11-29T06:00:00Z", "/in", "w48", &b, &d), 0);
	ck_assert_int_eq(history_record(h, "2026-11-29T07:00:00Z", "/in", "w48", &b, &d), 0);
	ck_assert_int_eq(history_record(h, "2026-11-29T08:00:00Z", "/in", NULL, &b, &d), 0);
	ck_assert_int_eq(history_record(h, "2026-11-29T09:00:00Z", "/in", NULL, &b, &d), 0);
	struct buf out;
	buf_init(&out);
	ck_assert_int_eq(history_list(h, NULL, false, &out, &d), 0);
	int w48 = 0, rows = 0;
	for (const char *l = strchr(out.data, '\n'); l && l[1]; l = strchr(l + 1, '\n')) {
		rows++;
		w48 += strncmp(l + 1, "2     2026-11-29T07:00:00Z", 26) == 0;
	}
	ck_assert_int_eq(rows, 1 + 4 * 2); /* the header line, then 4 runs of 2 sets */
	ck_assert_int_eq(w48, 2);          /* run 2 kept its id, with the second recording's start */
	ck_assert_ptr_null(strstr(out.data, "2026-11-29T06:00:00Z"));
	buf_free(&out);
	history_close(h);
	batch_free(&b);
	buf_free(&err);
}
END_TEST

/* Issue 28: a run recorded again under its run id (a rerun, shards resubmitted after the finish
 * step) compares with the run before it, never with its own earlier attempt; a rerun of an older
 * week compares with the week before that one. */
START_TEST(history_previous_skips_the_run_being_recorded)
{
	char db[128];
	snprintf(db, sizeof db, "%s/h.sqlite", dir);
	struct buf err;
	buf_init(&err);
	struct diag d = buf_diag(&err);
	struct history *h;
	ck_assert_int_eq(history_open(&h, db, true, 0, &d), 0);
	struct batch b;
	memset(&b, 0, sizeof b);
	struct bset *s = fake_set(&b, "a", 2, 1);
	ck_assert_int_eq(history_record(h, "2026-11-22T06:00:00Z", "/in", "W1", &b, &d), 0);
	ck_assert_int_eq(history_record(h, "2026-11-29T06:00:00Z", "/in", "W2", &b, &d), 0);
	struct bprev p;
	ck_assert_int_eq(history_previous(h, s, "W2", &p, &d), 0);
	ck_assert(p.have && !p.unavailable);
	ck_assert_str_eq(p.started, "2026-11-22T06:00:00Z"); /* W1, not W2's first attempt */
	bprev_free(&p);
	ck_assert_int_eq(history_previous(h, s, "W1", &p, &d), 0);
	ck_assert(!p.have); /* nothing before W1 */
	bprev_free(&p);
	ck_assert_int_eq(history_previous(h, s, "W3", &p, &d), 0); /* a new id: the latest */
	ck_assert(p.have);
	ck_assert_str_eq(p.started, "2026-11-29T06:00:00Z");
	bprev_free(&p);
	ck_assert_int_eq(history_previous(h, s, NULL, &p, &d), 0);
	ck_assert(p.have);
	ck_assert_str_eq(p.started, "2026-11-29T06:00:00Z");
	bprev_free(&p);
	history_close(h);
	/* a history that cannot be read: the previous run is unavailable, not absent */
	FILE *fp = fopen(db, "r+b");
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(fseek(fp, 100, SEEK_SET), 0);
	for (int i = 0; i < 8000; i++)
		fputc(0x5a, fp);
	fclose(fp);
	if (history_open(&h, db, false, 0, &d) == 0) {
		ck_assert_int_lt(history_previous(h, s, "W3", &p, &d), 0);
		ck_assert(p.unavailable && !p.have);
		trend_compute(s->res, &p);
		ck_assert(s->res->trend.unavailable && !s->res->trend.have_previous);
		bprev_free(&p);
		history_close(h);
	}
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
	tcase_add_test(tc, out_folder_created_with_parents);
	tcase_add_test(tc, discover_folder);
	tcase_add_test(tc, discover_manifest);
	tcase_add_test(tc, discover_by_the_formats_probes);
	tcase_add_test(tc, discover_forced_roles);
	tcase_add_test(tc, discover_manifest_encodings_and_sections);
	tcase_add_test(tc, set_keys_are_stable);
	tcase_add_test(tc, manifest_no_such_date);
	tcase_add_test(tc, manifest_flag_key);
	tcase_add_test(tc, mail_headers);
	tcase_add_test(tc, mime_structure);
	tcase_add_test(tc, mime_streamed_from_files);
	tcase_add_test(tc, history_roundtrip);
	tcase_add_test(tc, history_list_states);
	tcase_add_test(tc, history_unwritable_keeps_db);
	tcase_add_test(tc, trend_one_function);
	tcase_add_test(tc, record_roundtrip_and_validation);
	tcase_add_test(tc, outcome_in_index);
	tcase_add_test(tc, index_counts_agree);
	tcase_add_test(tc, runner_results_are_this_runs);
	tcase_add_test(tc, discover_reserved_and_special_files);
	tcase_add_test(tc, history_keys_and_migration);
	tcase_add_test(tc, shard_assignment);
	tcase_add_test(tc, shard_markers);
	tcase_add_test(tc, history_uri_password);
	tcase_add_test(tc, history_run_key_replaces);
	tcase_add_test(tc, history_previous_skips_the_run_being_recorded);
	suite_add_tcase(s, tc);
	return s;
}
