/* check_registry.c — the tables (input formats, finding kinds and their detectors, analysis options,
 * reporters, commands) are complete and consistent, and --help, doc/iopsy.1 and
 * doc/analyze-json.md name every entry, so that tables and docs cannot drift apart. Also: the
 * Markdown writer keeps hostile names inert. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis.h"
#include "anopts.h"
#include "discover.h"
#include "commands.h"
#include "helpgen.h"
#include "parser.h"
#include "reporter.h"
#include "suites.h"

static char *slurp(const char *rel)
{
	const char *top = getenv("IOPSY_SRCDIR");
	char p[1024];
	snprintf(p, sizeof p, "%s/%s", top ? top : ".", rel);
	FILE *fp = fopen(p, "rb");
	ck_assert_msg(fp != NULL, "cannot open %s", p);
	struct buf b;
	buf_init(&b);
	char chunk[4096];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	fclose(fp);
	return b.data;
}

/* A character that continues a name: "csv" is not a token of "OUT.csv", nor "from" of
 * "\-\-before\-from". */
static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

/* Whether word occurs as a whole token in [s, e): the byte before it is not part of a name (or
 * ends a font escape \fB \fI \fR \fP), nor is the byte after it (a '.' or '\-' followed by more
 * of a name continues it). */
static bool has_token(const char *s, const char *e, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = s; p + n <= e; p++) {
		if (memcmp(p, word, n) != 0)
			continue;
		bool font = p - s >= 3 && p[-3] == '\\' && p[-2] == 'f';
		bool before = p == s || font || !(name_char(p[-1]) || (p[-1] == '.' && p - s >= 2 && name_char(p[-2])));
		const char *q = p + n;
		bool more = q < e && (name_char(*q) || (*q == '.' && q + 1 < e && name_char(q[1])) ||
				      (*q == '\\' && q + 1 < e && q[1] == '-'));
		if (before && !more)
			return true;
	}
	return false;
}

/* Whether the man page names word as a token in its section ".SH SECTION" (NULL: anywhere). In
 * a man page '-' is written '\-'; both spellings count. */
static bool man_in(const char *man, const char *section, const char *word)
{
	const char *s = man, *e = man + strlen(man);
	if (section) {
		char head[64];
		snprintf(head, sizeof head, "\n.SH %s\n", section);
		s = strstr(man, head);
		if (!s)
			return false;
		s += strlen(head);
		const char *next = strstr(s, "\n.SH ");
		if (next)
			e = next;
	}
	if (has_token(s, e, word))
		return true;
	struct buf b;
	buf_init(&b);
	for (const char *p = word; *p; p++) {
		if (*p == '-')
			buf_addc(&b, '\\');
		buf_addc(&b, *p);
	}
	bool ok = has_token(s, e, b.data);
	buf_free(&b);
	return ok;
}

static char *help_of(const char *cmd)
{
	struct buf b;
	buf_init(&b);
	if (!cmd) {
		cli_main_help(&b);
		return b.data;
	}
	for (const struct command *c = commands; c->name; c++)
		if (strcmp(c->name, cmd) == 0 && c->help)
			c->help(&b);
	ck_assert_msg(b.len > 0, "no help for %s", cmd);
	return b.data;
}

/* The row of option opt in a --help text: the line that starts with "  " opt followed by a blank
 * or its end, and its continuation lines (those that start with a blank past column 2), as a
 * string the caller frees; NULL when help has no such row. The options' rows are generated from
 * the tables (src/cli/helpgen.c), so the checks below look for rows, not for tokens in prose. */
static char *help_row(const char *help, const char *opt)
{
	size_t n = strlen(opt);
	for (const char *p = help; p && *p;) {
		const char *nl = strchr(p, '\n');
		if (strncmp(p, "  ", 2) == 0 && strncmp(p + 2, opt, n) == 0 && (p[2 + n] == ' ' || p[2 + n] == '\n')) {
			const char *e = nl ? nl + 1 : p + strlen(p);
			while (*e && strncmp(e, "   ", 3) == 0 && e[3] == ' ') {
				const char *en = strchr(e, '\n');
				e = en ? en + 1 : e + strlen(e);
			}
			struct buf b;
			buf_init(&b);
			buf_add(&b, p, (size_t)(e - p));
			buf_addc(&b, 0);
			return b.data;
		}
		p = nl ? nl + 1 : NULL;
	}
	return NULL;
}

/* The committed man page is what `make man` writes: its generated regions (the finding kinds, the
 * input formats, the reports, the analysis options) equal the tables' rows now. */
START_TEST(man_page_generated)
{
	char *man = slurp("doc/iopsy.1");
	struct buf out;
	buf_init(&out);
	const char *why = NULL;
	int n = man_regenerate(man, strlen(man), &out, &why);
	ck_assert_msg(n >= 4, "doc/iopsy.1: %d generated regions (%s)", n, why ? why : "fewer than 4");
	buf_addc(&out, 0);
	ck_assert_msg(strcmp(out.data, man) == 0, "doc/iopsy.1 differs from what 'make man' generates from the tables: "
						    "run make man and commit it");
	/* a region that is not closed, or of an unknown name, is refused */
	struct buf junk;
	buf_init(&junk);
	const char *open_only = ".\\\" generated: kinds (make man)\nold\n";
	ck_assert_int_eq(man_regenerate(open_only, strlen(open_only), &junk, &why), -1);
	buf_free(&junk);
	buf_init(&junk);
	const char *unknown = ".\\\" generated: nosuch (make man)\n.\\\" end generated\n";
	ck_assert_int_eq(man_regenerate(unknown, strlen(unknown), &junk, &why), -1);
	buf_free(&junk);
	buf_free(&out);
	free(man);
}
END_TEST

/* The matcher the checks below use: a name counts only as a whole token in its section. */
START_TEST(man_tokens)
{
	const char *man = ".TH T 1\n.SH COMMANDS\n.BI \\-o \" OUT.csv\"\n\\-\\-before\\-from, \\fBmd\\fR, latency.device.\n"
			  ".SH COMMON OPTIONS\n.BI \\-\\-format \" NAME\"\n";
	ck_assert(!man_in(man, "COMMANDS", "csv"));               /* OUT.csv: not the report csv */
	ck_assert(!man_in(man, "COMMANDS", "--before"));          /* a longer option */
	ck_assert(!man_in(man, "COMMANDS", "from"));
	ck_assert(man_in(man, "COMMANDS", "--before-from"));
	ck_assert(man_in(man, "COMMANDS", "md"));                 /* in a font escape */
	ck_assert(man_in(man, "COMMANDS", "latency.device"));     /* at a sentence's end */
	ck_assert(!man_in(man, "COMMANDS", "latency"));
	ck_assert(!man_in(man, "COMMANDS", "--format"));          /* another section */
	ck_assert(man_in(man, "COMMON OPTIONS", "--format"));
	ck_assert(!man_in(man, "NO SUCH SECTION", "md"));
}
END_TEST

START_TEST(formats_table)
{
	char *man = slurp("doc/iopsy.1"), *main_help = help_of(NULL), *an = help_of("analyze");
	size_t n = 0;
	for (size_t i = 0; parsers[i]; i++, n++) {
		const struct parser_ops *p = parsers[i];
		ck_assert_ptr_nonnull(p->name);
		ck_assert_ptr_nonnull(p->summary);
		ck_assert(p->probe && p->header && p->classify && p->open && p->ncols && p->column && p->facts && p->select &&
			  p->next && p->value && p->text && p->stats && p->close);
		ck_assert_ptr_eq(parser_find(p->name), p);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(parsers[k]->name, p->name);
		const char *ifl = strstr(main_help, "Input formats");
		ck_assert_msg(ifl && has_token(ifl, ifl + strcspn(ifl, "\n"), p->name), "iopsy --help does not list format %s",
			      p->name);
		char *row = help_row(an, "--format");
		ck_assert_msg(row && has_token(row, row + strlen(row), p->name), "analyze --help's --format row lacks %s",
			      p->name);
		free(row);
		ck_assert_msg(man_in(man, "COMMON OPTIONS", p->name), "doc/iopsy.1 does not name format %s under COMMON OPTIONS", p->name);
		/* auto-detection lives in the table: the row's probe wins on its own sample, every other
		 * row's probe is less sure of it, and the host operation (when any) finds the sample's host */
		ck_assert_msg(p->sample && *p->sample, "format %s has no sample", p->name);
		int conf, own = p->probe(p->sample, strlen(p->sample));
		ck_assert_msg(own > 0 && parser_probe(p->sample, strlen(p->sample), &conf) == p && conf == own,
			      "format %s: its probe does not win on its own sample", p->name);
		for (size_t k = 0; parsers[k]; k++)
			if (k != i)
				ck_assert_msg(parsers[k]->probe(p->sample, strlen(p->sample)) < own, "format %s's probe is as sure "
					      "of %s's sample as %s's own", parsers[k]->name, p->name, p->name);
		char host[64];
		if (p->host)
			ck_assert_msg(p->host(p->sample, strlen(p->sample), host, sizeof host), "format %s: no host in its sample",
				      p->name);
	}
	ck_assert_uint_ge(n, 2);
	ck_assert_ptr_null(parser_find("nmon"));
	free(man);
	free(main_help);
	free(an);
}
END_TEST

START_TEST(kinds_table)
{
	char *man = slurp("doc/iopsy.1"), *json = slurp("doc/analyze-json.md");
	for (int k = 0; k < K_COUNT; k++) {
		const struct kind_info *ki = &kinds[k];
		ck_assert_msg(ki->name && ki->title && *ki->title, "kind %d has no name or title", k);
		ck_assert_int_eq(kind_find(ki->name), k);
		for (int j = 0; j < k; j++)
			ck_assert_str_ne(kinds[j].name, ki->name);
		ck_assert(ki->cause_rank >= 0 && ki->cause_rank <= 3);
		ck_assert(ki->box == BOX_BY_LAYER || (ki->box >= 0 && ki->box < BOX_COUNT));
		int detectors_of = 0;
		for (const struct detector *d = detectors; d->title; d++)
			detectors_of += d->kind == (enum kind)k;
		ck_assert_msg(detectors_of >= 1, "kind %s has no detector", ki->name);
		ck_assert_msg(strstr(json, ki->name), "doc/analyze-json.md does not list kind %s", ki->name);
		ck_assert_msg(man_in(man, "COMMANDS", ki->name), "doc/iopsy.1 does not list kind %s under COMMANDS", ki->name);
	}
	for (const struct detector *d = detectors; d->title; d++) {
		ck_assert((int)d->kind >= 0 && d->kind < K_COUNT);
		ck_assert_msg((d->run != NULL) != (d->stream != NULL && d->window != NULL), "detector %s: run, or stream and window",
			      d->title);
	}
	ck_assert_int_eq(kind_find("no.such_kind"), -1);
	free(man);
	free(json);
}
END_TEST

START_TEST(reporters_table)
{
	char *man = slurp("doc/iopsy.1"), *an = help_of("analyze"), *cmp = help_of("compare");
	for (size_t i = 0; reporters[i]; i++) {
		const struct reporter *r = reporters[i];
		ck_assert(r->name && r->ext && r->summary);
		ck_assert(r->analysis || r->compare || r->inventory || r->batch);
		ck_assert_ptr_eq(reporter_find(r->name), r);
		for (size_t k = 0; k < i; k++)
			ck_assert_str_ne(reporters[k]->name, r->name);
		for (int w = 0; w < 2; w++) {
			if (!(w ? r->compare != NULL : r->analysis != NULL))
				continue;
			char *reports = help_row(w ? cmp : an, "--report"), want[96];
			ck_assert_ptr_nonnull(reports);
			snprintf(want, sizeof want, "\n%*s%-5s ", HELP_COL + 2, "", r->name);
			ck_assert_msg(strstr(reports, want), "%s --help's --report row does not list report %s",
				      w ? "compare" : "analyze", r->name);
			free(reports);
		}
		ck_assert_msg(man_in(man, "COMMANDS", r->name), "doc/iopsy.1 does not name report %s under COMMANDS", r->name);
	}
	ck_assert_ptr_nonnull(strstr(reporter_names(0), "md"));
	ck_assert_ptr_null(reporter_find("docx"));
	free(man);
	free(an);
	free(cmp);
}
END_TEST

START_TEST(commands_table)
{
	char *man = slurp("doc/iopsy.1"), *main_help = help_of(NULL);
	for (const struct command *c = commands; c->name; c++) {
		ck_assert(c->run && c->summary);
		ck_assert_msg(strstr(main_help, c->name), "iopsy --help does not list %s", c->name);
		ck_assert_msg(man_in(man, "COMMANDS", c->name), "doc/iopsy.1 does not document command %s under COMMANDS", c->name);
	}
	free(man);
	free(main_help);
}
END_TEST

/* A name from a capture cannot make Markdown: no raw HTML, link, table cell or heading. */
START_TEST(markdown_names_inert)
{
	struct analysis a;
	analysis_init(&a);
	struct finding *f = finding_new(&a, K_LAT_DEVICE, SEV_WARNING, LAYER_DEVICE,
					"naa.1|</td><script>x</script>[a](http://e.example)`*_", "# host\nnext");
	f->summary = "evil | [link](x) <img src=x>";
	f->rule = f->source = f->advice = "";
	a.verdict = "## not a heading";
	struct report_opts ro;
	report_opts_init(&ro);
	struct buf out;
	buf_init(&out);
	ck_assert_int_eq(reporter_find("md")->analysis(&a, &ro, &out), 0);
	/* no raw HTML: every '<' that could open a tag is backslash-escaped (Markdown escaping, not
	 * HTML entities, which Markdown would show as "&lt;") */
	for (const char *q = strchr(out.data, '<'); q; q = strchr(q + 1, '<'))
		ck_assert_msg(!(isalpha((unsigned char)q[1]) || q[1] == '/' || q[1] == '!' || q[1] == '?') ||
				      (q > out.data && q[-1] == '\\'),
			      "raw HTML in: %s", out.data);
	ck_assert_ptr_null(strstr(out.data, "&lt;"));
	for (const char *q = strstr(out.data, "]("); q; q = strstr(q + 1, "]("))
		ck_assert_msg(q > out.data && q[-1] == '\\', "an unescaped link in: %s", out.data);
	ck_assert_ptr_nonnull(strstr(out.data, "naa.1\\|\\</td>\\<script>x\\</script>\\[a\\](http://e.example)\\`\\*\\_"));
	ck_assert_ptr_nonnull(strstr(out.data, "\\<img src=x>"));
	ck_assert_ptr_nonnull(strstr(out.data, "\\# host next")); /* the line end folded, the heading mark escaped */
	ck_assert_ptr_nonnull(strstr(out.data, "**Verdict.** \\## not a heading"));
	buf_free(&out);
	analysis_free(&a);
}
END_TEST

/* The rules file's sections and the per-side rules options are in --help and the man page. */
START_TEST(rules_documented)
{
	char *man = slurp("doc/iopsy.1"), *rh = help_of("rules"), *cmp = help_of("compare"), *an = help_of("analyze");
	for (int k = 0; k < SCOPE_COUNT; k++) {
		char head[32];
		snprintf(head, sizeof head, "[%s", rule_scope_names[k]);
		ck_assert_msg(strstr(rh, head), "rules --help does not show section %s", head);
		ck_assert_msg(man_in(man, "RULES FILES", head), "doc/iopsy.1 does not show section %s under RULES FILES", head);
	}
	for (const char *const *o = (const char *const[]){"--before-rules", "--after-rules", NULL}; *o; o++) {
		ck_assert_msg(strstr(cmp, *o), "compare --help does not list %s", *o);
		ck_assert_msg(man_in(man, "COMMANDS", *o), "doc/iopsy.1 does not document %s", *o);
	}
	ck_assert(strstr(an, "--rules") && man_in(man, "COMMANDS", "--rules"));
	free(man);
	free(rh);
	free(cmp);
	free(an);
}
END_TEST

/* --threads: in the --help of every command that reads captures, and in the man page with its
 * environment variable. */
START_TEST(threads_documented)
{
	char *man = slurp("doc/iopsy.1");
	for (const char *const *c = (const char *const[]){"counters", "extract", "analyze", "compare", NULL}; *c; c++) {
		char *h = help_of(*c);
		ck_assert_msg(strstr(h, "--threads N") && strstr(h, "IOPSY_THREADS"), "%s --help does not document --threads", *c);
		free(h);
	}
	ck_assert_msg(man_in(man, "COMMON OPTIONS", "--threads") && man_in(man, "COMMON OPTIONS", "IOPSY_THREADS") &&
			      man_in(man, "COMMON OPTIONS", "IOPSY_THREAD_CHUNK"),
		      "doc/iopsy.1 does not document --threads and its environment variables");
	free(man);
}
END_TEST

/* The workflow options (time window, filters) are in each command's --help and in the man page,
 * and the man page has the sections that explain them. */
START_TEST(workflow_documented)
{
	char *man = slurp("doc/iopsy.1");
	static const struct {
		const char *cmd;
		const char *const opts[10];
	} t[] = {
		{"analyze", {"--from", "--to", "--host", "--vm", "--disk", NULL}},
		{"compare", {"--from", "--to", "--before-from", "--before-to", "--after-from", "--after-to", "--host", "--vm", "--disk", NULL}},
		{"counters", {"--from", "--to", NULL}},
		{"extract", {"--from", "--to", NULL}},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char *h = help_of(t[i].cmd);
		for (size_t k = 0; t[i].opts[k]; k++) {
			ck_assert_msg(strstr(h, t[i].opts[k]), "%s --help does not list %s", t[i].cmd, t[i].opts[k]);
			ck_assert_msg(man_in(man, "COMMANDS", t[i].opts[k]), "doc/iopsy.1 does not document %s under COMMANDS", t[i].opts[k]);
		}
		free(h);
	}
	for (const char *const *sec = (const char *const[]){".SH TIME WINDOWS", ".SH FILTERS", ".SH SEVERAL FILES OF ONE HOST",
							   ".SH SQL SERVER", NULL}; *sec; sec++)
		ck_assert_msg(strstr(man, *sec), "doc/iopsy.1 has no section %s", *sec + 4);
	/* the manifest keys and the SQL Server counters are named where users look */
	char *batch = slurp("doc/batch.md"), *readme = slurp("README.md");
	for (const char *const *k = (const char *const[]){"rules", "tz", "array-queue-depth", "clock-offset", "from", "to",
							  "before-from", "after-to", "host", "vm", "disk", NULL}; *k; k++) {
		char key[48];
		snprintf(key, sizeof key, "\n%s = ", *k);
		ck_assert_msg(strstr(batch, key), "doc/batch.md shows no manifest key %s", *k);
	}
	for (const char *const *c = (const char *const[]){"Log Flush Wait Time", "Page IO latch waits", "Log write waits",
							  "Batch Requests/sec", "Page life expectancy", "MSSQL$", NULL}; *c; c++) {
		ck_assert_msg(man_in(man, "SQL SERVER", *c), "doc/iopsy.1 does not name %s under SQL SERVER", *c);
		ck_assert_msg(strstr(readme, *c), "README.md does not name %s", *c);
	}
	free(batch);
	free(readme);
	free(man);
}
END_TEST

/* The sharded-run options and the PostgreSQL history are in batch --help, the man page and
 * doc/batch.md; history --help names both kinds of history. */
START_TEST(batch_sharding_documented)
{
	char *man = slurp("doc/iopsy.1"), *md = slurp("doc/batch.md"), *bh = help_of("batch"), *hh = help_of("history");
	for (const char *const *o = (const char *const[]){"--shard", "--finish", "--run-id", "postgresql://", NULL}; *o; o++) {
		ck_assert_msg(strstr(bh, *o), "batch --help does not list %s", *o);
		ck_assert_msg(man_in(man, "COMMANDS", *o), "doc/iopsy.1 does not document %s", *o);
		ck_assert_msg(strstr(md, *o), "doc/batch.md does not document %s", *o);
	}
	ck_assert(strstr(hh, "postgresql://") && strstr(hh, "PGPASSFILE"));
	ck_assert(strstr(md, "FNV-1a") && strstr(md, "SLURM_ARRAY_TASK_ID") && strstr(md, "JOB_COMPLETION_INDEX"));
	free(man);
	free(md);
	free(bh);
	free(hh);
}
END_TEST

/* Every long option of every command's --help is documented in the man page (COMMANDS or COMMON
 * OPTIONS), and the environment the program reads is under ENVIRONMENT. */
START_TEST(help_options_in_man)
{
	char *man = slurp("doc/iopsy.1");
	for (const struct command *c = commands; c->name; c++) {
		char *h = help_of(c->name);
		for (const char *p = strstr(h, "--"); p; p = strstr(p + 2, "--")) {
			if (p > h && (name_char(p[-1]) || p[-1] == '\''))
				continue;
			char opt[64];
			size_t n = 2;
			while (n < sizeof opt - 1 && name_char(p[n]))
				n++;
			if (n < 4 || !(p[2] >= 'a' && p[2] <= 'z'))
				continue;
			memcpy(opt, p, n);
			opt[n] = '\0';
			ck_assert_msg(man_in(man, "COMMANDS", opt) || man_in(man, "COMMON OPTIONS", opt),
				      "%s --help has %s, doc/iopsy.1 does not document it", c->name, opt);
		}
		free(h);
	}
	for (const char *const *e = (const char *const[]){"IOPSY_GNUPLOT", "IOPSY_CHROMIUM", "SOURCE_DATE_EPOCH", "IOPSY_THREADS",
							  "IOPSY_THREAD_CHUNK", "IOPSY_SMTP_USER", "TZDIR", NULL}; *e; e++)
		ck_assert_msg(man_in(man, "ENVIRONMENT", *e), "doc/iopsy.1 has no %s under ENVIRONMENT", *e);
	/* examples of the two analysis commands */
	ck_assert(man_in(man, "EXAMPLES", "analyze") && man_in(man, "EXAMPLES", "compare"));
	free(man);
}
END_TEST

/* The table of analysis options (anopts.h): its rows are well formed, and each is documented
 * where its users look — "--NAME ARG" in analyze --help (ANF_ANALYZE) and compare --help
 * (ANF_COMPARE; ANF_SIDED as --before-NAME and --after-NAME), each of these options under
 * COMMANDS in doc/iopsy.1, and a manifest row (ANF_MANIFEST) in doc/batch.md (a "NAME = " line
 * of an example and `NAME`) and in the manifest's unknown-key message — all matched as tokens. */
START_TEST(anopts_table)
{
	char *man = slurp("doc/iopsy.1"), *md = slurp("doc/batch.md"), *an = help_of("analyze"), *cmp = help_of("compare");
	/* the manifest's message about an unknown key lists the keys */
	char dir[] = "/tmp/iopsy-reg-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char mpath[64];
	snprintf(mpath, sizeof mpath, "%s/m.ini", dir);
	FILE *fp = fopen(mpath, "w");
	ck_assert_ptr_nonnull(fp);
	fputs("[set a]\nfiles = x.csv\nno-such-key = 1\n", fp);
	fclose(fp);
	struct buf err;
	buf_init(&err);
	struct batch b;
	batch_discover(&b, mpath, DIAG_INTO(&err));
	batch_free(&b);
	remove(mpath);
	rmdir(dir);
	const char *keys = err.data ? strstr(err.data, "unknown key") : NULL;
	ck_assert_ptr_nonnull(keys);
	size_t n = 0;
	for (const struct anopt *o = anopts; o->name; o++, n++) {
		ck_assert_msg(o->help && *o->help, "row %s has no help", o->name);
		ck_assert_msg(o->flags & (ANF_ANALYZE | ANF_COMPARE | ANF_SIDED | ANF_MANIFEST), "row %s: nobody takes it", o->name);
		ck_assert_msg(!(o->flags & ANF_MANIFEST_SIDED) || (o->flags & ANF_MANIFEST), "row %s: sided in the manifest only", o->name);
		ck_assert_msg((o->type == ANT_FLAG) == (o->arg == NULL), "row %s: a value name exactly when it takes a value", o->name);
		ck_assert_msg(o->type == ANT_FLAG || (o->want && *o->want), "row %s: no text of a good value", o->name);
		ck_assert_msg((o->type == ANT_PATH || o->type == ANT_PATHS) == (o->input != AN_IN_NONE), "row %s: a file row names its input", o->name);
		if (o->type == ANT_INT || o->type == ANT_DOUBLE)
			ck_assert_msg(o->min < o->max, "row %s: no range", o->name);
		ck_assert_msg(o->type != ANT_PATHS || o->given, "row %s: a repeated row needs its count", o->name);
		ck_assert_msg(o->off < sizeof(struct an_values) && o->given < sizeof(struct an_values),
			      "row %s: its field is outside struct an_values", o->name);
		ck_assert_ptr_eq(anopt_find(o->name, 0), o);
		for (const struct anopt *p = anopts; p < o; p++)
			ck_assert_str_ne(p->name, o->name);
		/* the options it is, and the --help that must show each */
		struct {
			unsigned flag;
			const char *prefix;
			const char *help, *cmd;
		} uses[] = {{ANF_ANALYZE, "", an, "analyze"}, {ANF_COMPARE, "", cmp, "compare"},
			    {ANF_SIDED, "before-", cmp, "compare"}, {ANF_SIDED, "after-", cmp, "compare"}};
		for (size_t u = 0; u < sizeof uses / sizeof uses[0]; u++) {
			if (!(o->flags & uses[u].flag))
				continue;
			char opt[80], with_arg[200];
			snprintf(opt, sizeof opt, "--%s%s", uses[u].prefix, o->name);
			snprintf(with_arg, sizeof with_arg, "%s%s%s", opt, o->arg ? " " : "", o->arg ? o->arg : "");
			if (uses[u].flag == ANF_SIDED) /* one row for both sides: "--before-NAME ARG, --after-NAME ARG" */
				snprintf(with_arg, sizeof with_arg, "--before-%s%s%s, --after-%s%s%s", o->name, o->arg ? " " : "",
					 o->arg ? o->arg : "", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
			char *row = help_row(uses[u].help, with_arg);
			ck_assert_msg(row, "%s --help has no row %s", uses[u].cmd, with_arg);
			free(row);
			ck_assert_msg(man_in(man, "COMMANDS", opt), "doc/iopsy.1 does not document %s under COMMANDS", opt);
		}
		for (int k = 0; k < 3; k++) { /* the manifest's key NAME, and before-NAME / after-NAME for a sided row */
			if (!(o->flags & (k ? ANF_MANIFEST_SIDED : ANF_MANIFEST)))
				continue;
			char key[64], line[80], quoted[80];
			snprintf(key, sizeof key, "%s%s", k == 0 ? "" : k == 1 ? "before-" : "after-", o->name);
			snprintf(line, sizeof line, "\n%s = ", key);
			snprintf(quoted, sizeof quoted, "`%s`", key);
			ck_assert_msg(strstr(md, line) && strstr(md, quoted), "doc/batch.md does not show manifest key %s", key);
			ck_assert_msg(has_token(keys, keys + strlen(keys), key), "the manifest's unknown-key message does not list %s", key);
		}
	}
	ck_assert_uint_ge(n, 9);
	ck_assert_uint_le(n, ANOPT_MAX_ROWS);
	ck_assert_ptr_null(anopt_find("array-queue-depth", ANF_SIDED)); /* flags select */
	buf_free(&err);
	free(man);
	free(md);
	free(an);
	free(cmp);
}
END_TEST

/* The table's validator: ranges, whole numbers, flags, repeated files. */
START_TEST(anopts_values)
{
	struct an_values v;
	memset(&v, 0, sizeof v);
	const struct anopt *aqd = anopt_find("array-queue-depth", 0), *off = anopt_find("clock-offset", 0),
			   *nce = anopt_find("no-clock-estimate", 0), *vmk = anopt_find("vmkernel-log", 0);
	ck_assert(aqd && off && nce && vmk);
	ck_assert_int_eq(anopt_set(aqd, "64", &v, NULL), 0);
	ck_assert_int_eq(v.ao.array_queue_depth, 64);
	for (const char *const *bad = (const char *const[]){"0", "1000001", "6.5", "", "many", "99999999999999999999", NULL}; *bad; bad++)
		ck_assert_msg(anopt_set(aqd, *bad, &v, NULL) == ANOPT_BAD, "array-queue-depth took '%s'", *bad);
	ck_assert_int_eq(v.ao.array_queue_depth, 64);
	ck_assert(!v.ao.clock_offset_given);
	ck_assert_int_eq(anopt_set(off, "-2.5", &v, NULL), 0);
	ck_assert(v.ao.clock_offset_given && v.ao.clock_offset_s == -2.5);
	ck_assert_int_eq(anopt_set(off, "172801", &v, NULL), ANOPT_BAD);
	ck_assert_int_eq(anopt_set(nce, NULL, &v, NULL), 0);
	ck_assert(v.ao.no_auto_offset);
	for (int i = 0; i < ANOPT_MAX_FILES; i++)
		ck_assert_int_eq(anopt_set(vmk, "vmkernel.log", &v, NULL), 0);
	ck_assert_uint_eq(v.nvmklog, ANOPT_MAX_FILES);
	ck_assert_int_eq(anopt_set(vmk, "one-more.log", &v, NULL), ANOPT_TOO_MANY);
	/* a window bound: the window parser's reason */
	const struct anopt *from = anopt_find("from", 0);
	const char *why = NULL;
	ck_assert_int_eq(anopt_set(from, "1pm", &v, &why), ANOPT_BAD);
	ck_assert_ptr_nonnull(strstr(why, "expected a time"));
	ck_assert_int_eq(anopt_set(from, "13:00", &v, &why), 0);
	ck_assert(v.win[0].set && !v.win[1].set);
	/* a side's own rows over the values of both sides */
	struct an_values both, side;
	memset(&both, 0, sizeof both);
	memset(&side, 0, sizeof side);
	ck_assert_int_eq(anopt_set(aqd, "8", &both, NULL) | anopt_set(off, "3", &both, NULL), 0);
	ck_assert_int_eq(anopt_set(off, "-1", &side, NULL) | anopt_set(aqd, "99", &side, NULL), 0);
	side.own = 1ull << (off - anopts); /* the side gave its clock offset only */
	anopt_overlay(&both, &side);
	ck_assert(both.ao.clock_offset_s == -1 && both.ao.clock_offset_given && both.ao.array_queue_depth == 8);
}
END_TEST

Suite *registry_suite(void)
{
	Suite *s = suite_create("registry");
	TCase *t = tcase_create("tables");
	tcase_add_test(t, man_page_generated);
	tcase_add_test(t, man_tokens);
	tcase_add_test(t, formats_table);
	tcase_add_test(t, kinds_table);
	tcase_add_test(t, reporters_table);
	tcase_add_test(t, commands_table);
	tcase_add_test(t, threads_documented);
	tcase_add_test(t, markdown_names_inert);
	tcase_add_test(t, rules_documented);
	tcase_add_test(t, workflow_documented);
	tcase_add_test(t, batch_sharding_documented);
	tcase_add_test(t, help_options_in_man);
	tcase_add_test(t, anopts_table);
	tcase_add_test(t, anopts_values);
	suite_add_tcase(s, t);
	return s;
}
