/* cmd_batch.c — `iopsy batch INPUT --out DIR` (weekly unattended reports, history, mail) and
 * `iopsy history --db PATH [--set NAME]`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "batch_out.h"
#include "commands.h"
#include "history.h"
#include "json.h"
#include "mail.h"
#include "progress.h"

static const char batch_help[] =
	"Usage: iopsy batch INPUT --out DIR [OPTIONS]\n"
	"Analyse every capture set of INPUT unattended: a folder with one sub-folder per set (every\n"
	"esxtop/perfmon/vmkernel.log/partitions/map file in it, .gz included; before/ and after/\n"
	"sub-folders make a comparison; loose files are a set each), or a manifest file (see\n"
	"doc/batch.md). Writes DIR/<set>/report.html, report.json, report.txt, messages.txt, then\n"
	"DIR/index.html (worst first) and DIR/summary.json, records the run in the history database\n"
	"and shows the trend against the previous run of each set. A set that fails is listed with\n"
	"its error and the run goes on.\n"
	"\n"
	"  -o, --out DIR           output folder (created; reports are replaced atomically)\n"
	"  -j, --jobs N            sets analysed in parallel (default: the number of cores)\n"
	"  --history PATH          SQLite history (default DIR/history.sqlite)\n"
	"  --mail-to ADDR          send the index to ADDR (repeat or comma-separate)\n"
	"  --mail-from ADDR        sender (default iopsy@localhost)\n"
	"  --subject TEXT          subject prefix (default 'iopsy storage report')\n"
	"  --smtp URL              deliver with SMTP, e.g. smtp://relay:25 (credentials from\n"
	"                          IOPSY_SMTP_USER / IOPSY_SMTP_PASSWORD, never the command line)\n"
	"  --smtp-starttls         require STARTTLS\n"
	"  --sendmail CMD          deliver by running CMD (no shell) with the recipients appended\n"
	"  --eml DIR               write the messages as .eml files instead of sending\n"
	"  --fail-on LEVEL         exit 1 when a set has a finding at LEVEL (warning|critical) or above\n"
	COMMON_HELP
	"\nExit codes: 0 all sets analysed, 1 a set has critical findings with --fail-on, 2 usage,\n"
	"3 some sets failed (they are in the index with their error), 4 system error (output or\n"
	"history not writable, or mail not delivered: the .eml files are kept in DIR/mail/).\n";

enum {
	OPT_OUT = OPT_COMMON_END + 1,
	OPT_HISTORY,
	OPT_MAIL_TO,
	OPT_MAIL_FROM,
	OPT_SUBJECT,
	OPT_SMTP,
	OPT_STARTTLS,
	OPT_SENDMAIL,
	OPT_EML,
	OPT_FAIL_ON,
};


static int slurp(const char *path, char **data, size_t *len)
{
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return ERR_IO;
	struct buf b;
	buf_init(&b);
	char chunk[65536];
	size_t n;
	while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0)
		buf_add(&b, chunk, n);
	int bad = ferror(fp);
	fclose(fp);
	if (bad) {
		buf_free(&b);
		return ERR_IO;
	}
	*data = b.data ? b.data : xstrdup("");
	*len = b.len;
	return 0;
}

static void add_recipients(char ***to, size_t *n, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL;
	for (char *t = strtok_r(copy, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
		*to = xrealloc(*to, (*n + 1) * sizeof **to);
		(*to)[(*n)++] = xstrdup(t);
	}
	free(copy);
}

/* One message: the sets it covers, its recipients; HTML body + text + each set's report attached
 * + each set's chart.png inline. Delivery failures leave the .eml in DIR/mail/. */
static int deliver(const struct batch *b, const struct run_info *ri, const struct batch_opts *o, const size_t *sets,
		   size_t nsets, char **to, size_t nto, const char *subject, unsigned long long seed, const char *emlname)
{
	struct mail_msg m;
	memset(&m, 0, sizeof m);
	m.from = o->mail_from;
	m.to = to;
	m.nto = nto;
	m.subject = subject;
	m.seed = seed;
	char **cids = xcalloc(nsets ? nsets : 1, sizeof *cids);
	for (size_t i = 0; i < nsets; i++) {
		const struct bset *s = &b->sets[sets[i]];
		struct buf p;
		buf_init(&p);
		buf_printf(&p, "%s/%s/chart.png", o->out, s->dir);
		char *data;
		size_t len;
		if (slurp(p.data, &data, &len) == 0 && len > 8) {
			m.img = xrealloc(m.img, (m.nimg + 1) * sizeof *m.img);
			struct buf cid;
			buf_init(&cid);
			buf_printf(&cid, "chart-%zu.%016llx@iopsy", i + 1, seed);
			m.img[m.nimg].cid = cid.data;
			m.img[m.nimg].data = data;
			m.img[m.nimg].len = len;
			cids[i] = m.img[m.nimg].cid;
			m.nimg++;
		} else if (len <= 8 && data) {
			free(data);
		}
		buf_reset(&p);
		buf_printf(&p, "%s/%s/report.html", o->out, s->dir);
		if (slurp(p.data, &data, &len) == 0) {
			m.att = xrealloc(m.att, (m.natt + 1) * sizeof *m.att);
			struct buf fn;
			buf_init(&fn);
			buf_printf(&fn, "%s-report.html", s->dir);
			m.att[m.natt].filename = fn.data;
			m.att[m.natt].content_type = "text/html; charset=utf-8";
			m.att[m.natt].data = data;
			m.att[m.natt].len = len;
			m.natt++;
		}
		buf_free(&p);
	}
	struct buf html, text, msg, err;
	buf_init(&html);
	buf_init(&text);
	buf_init(&msg);
	buf_init(&err);
	batch_mail_html(b, ri, sets, nsets, cids, &html);
	batch_mail_text(b, ri, sets, nsets, &text);
	m.html = html.data;
	m.text = text.data;
	mail_build(&m, &msg);
	int rc = 0;
	struct buf path;
	buf_init(&path);
	if (o->eml_dir) {
		if (mkdir(o->eml_dir, 0755) != 0 && errno != EEXIST)
			fprintf(stderr, "iopsy batch: cannot create %s: %s\n", o->eml_dir, strerror(errno));
		buf_printf(&path, "%s/%s.eml", o->eml_dir, emlname);
	} else {
		buf_printf(&path, "%s/mail", o->out);
		if (mkdir(path.data, 0755) != 0 && errno != EEXIST)
			fprintf(stderr, "iopsy batch: cannot create %s: %s\n", path.data, strerror(errno));
		buf_printf(&path, "/%s.eml", emlname);
	}
	if (o->eml_dir || (!o->smtp && !o->sendmail)) {
		rc = write_output("batch", path.data, &msg) == EXIT_OK ? 0 : ERR_IO;
	} else {
		if (o->smtp)
			rc = mail_send_smtp(o->smtp, o->smtp_starttls, &m, &msg, &err);
		else
			rc = mail_send_program(o->sendmail, &m, &msg, &err);
		if (rc < 0) {
			fprintf(stderr, "iopsy batch: mail not delivered: %s; the message is kept in %s\n", err.data, path.data);
			write_output("batch", path.data, &msg);
		}
	}
	buf_free(&path);
	buf_free(&html);
	buf_free(&text);
	buf_free(&msg);
	buf_free(&err);
	free(cids);
	mail_free_parts(&m);
	return rc;
}

static char *iso_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	char t[32];
	time_format_iso((int64_t)ts.tv_sec * 1000, false, t);
	return xstrdup(t);
}

struct recipients {
	char **to;
	size_t n;
};

static int run_batch(int argc, char **argv, struct recipients *rcpt)
{
	static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
					     {"jobs", required_argument, NULL, 'j'},
					     {"history", required_argument, NULL, OPT_HISTORY},
					     {"mail-to", required_argument, NULL, OPT_MAIL_TO},
					     {"mail-from", required_argument, NULL, OPT_MAIL_FROM},
					     {"subject", required_argument, NULL, OPT_SUBJECT},
					     {"smtp", required_argument, NULL, OPT_SMTP},
					     {"smtp-starttls", no_argument, NULL, OPT_STARTTLS},
					     {"sendmail", required_argument, NULL, OPT_SENDMAIL},
					     {"eml", required_argument, NULL, OPT_EML},
					     {"fail-on", required_argument, NULL, OPT_FAIL_ON},
					     COMMON_LONG_OPTS,
					     {0}};
	struct batch_opts o;
	memset(&o, 0, sizeof o);
	cli_opts_init(&o.co);
	o.co.quiet = true; /* per-file progress lines would interleave: the batch shows its own */
	o.co.progress = NULL;
	static bool status_shown;
	o.status = status_line;
	o.status_ctx = &status_shown;
	o.mail_from = "iopsy@localhost";
	long nproc = sysconf(_SC_NPROCESSORS_ONLN);
	o.jobs = nproc > 0 ? (int)nproc : 1;
	int fail_on = -1;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "o:j:qh", opts, NULL)) != -1) {
		if (c == 'q') {
			o.quiet = true;
			continue;
		}
		int k = common_opt(c, optarg, &o.co);
		if (k < 0)
			return EXIT_USAGE;
		if (k)
			continue;
		char *end;
		switch (c) {
		case 'o': o.out = optarg; break;
		case 'j': {
			errno = 0;
			long v = strtol(optarg, &end, 10);
			if (errno || *end || v < 1 || v > 256)
				return usage_error("batch", "--jobs needs a number from 1 to 256, not '%s'", optarg);
			o.jobs = (int)v;
			break;
		}
		case OPT_HISTORY: o.history = optarg; break;
		case OPT_MAIL_TO:
			add_recipients(&rcpt->to, &rcpt->n, optarg);
			o.mail_to = rcpt->to;
			o.nmail = rcpt->n;
			break;
		case OPT_MAIL_FROM: o.mail_from = optarg; break;
		case OPT_SUBJECT: o.subject = optarg; break;
		case OPT_SMTP: o.smtp = optarg; break;
		case OPT_STARTTLS: o.smtp_starttls = true; break;
		case OPT_SENDMAIL: o.sendmail = optarg; break;
		case OPT_EML: o.eml_dir = optarg; break;
		case OPT_FAIL_ON:
			if (strcmp(optarg, "warning") == 0)
				fail_on = 1;
			else if (strcmp(optarg, "critical") == 0)
				fail_on = 2;
			else
				return usage_error("batch", "--fail-on takes warning or critical");
			break;
		case 'h': fputs(batch_help, stdout); return EXIT_OK;
		default: return usage_hint("batch");
		}
	}
	if (optind >= argc)
		return usage_error("batch", "no INPUT folder or manifest given");
	if (argc - optind > 1)
		return usage_error("batch", "one INPUT at a time");
	if (!o.out)
		return usage_error("batch", "--out DIR is required");
	o.input = argv[optind];
	int ret = EXIT_OK;
	for (size_t i = 0; i < o.nmail; i++) {
		if (!mail_address_valid(o.mail_to[i])) {
			struct buf e;
			buf_init(&e);
			buf_add_text_escaped(&e, o.mail_to[i], strlen(o.mail_to[i]));
			usage_error("batch", "not a plain mail address: '%s'", e.data);
			buf_free(&e);
			return EXIT_USAGE;
		}
	}
	if ((o.nmail || o.eml_dir) && !mail_address_valid(o.mail_from))
		return usage_error("batch", "not a plain mail address: '%s'", o.mail_from);
	if (o.smtp && strncmp(o.smtp, "smtp://", 7) != 0 && strncmp(o.smtp, "smtps://", 8) != 0)
		return usage_error("batch", "--smtp takes an smtp:// or smtps:// URL");

	struct buf err;
	buf_init(&err);
	struct batch b;
	int rc = batch_discover(&b, o.input, &err);
	if (err.len)
		fputs(err.data, stderr);
	if (rc == ERR_IO) {
		buf_free(&err);
		batch_free(&b);
		return EXIT_INPUT;
	}
	if (rc < 0)
		ret = EXIT_INPUT; /* manifest errors: the valid sets still run */
	for (size_t i = 0; i < b.nsets; i++)
		for (size_t k = 0; k < b.sets[i].nmail; k++)
			if (!mail_address_valid(b.sets[i].mail_to[k])) {
				fprintf(stderr, "iopsy batch: set %s: not a plain mail address '%s'; ignored\n", b.sets[i].dir,
					b.sets[i].mail_to[k]);
				b.sets[i].mail_to[k][0] = '\0';
			}
	if (o.eml_dir || o.smtp || o.sendmail) {
		size_t any = o.nmail;
		for (size_t i = 0; i < b.nsets; i++)
			any += b.sets[i].nmail;
		if (!any)
			fprintf(stderr, "iopsy batch: --eml/--smtp/--sendmail without any recipient (--mail-to, or "
					"mail-to in a manifest): no message will be made\n");
	}
	struct stat st;
	if (mkdir(o.out, 0755) != 0 && errno != EEXIST) {
		fprintf(stderr, "iopsy batch: cannot create %s: %s\n", o.out, strerror(errno));
		buf_free(&err);
		batch_free(&b);
		return EXIT_SYSTEM;
	}
	if (stat(o.out, &st) != 0 || !S_ISDIR(st.st_mode) || access(o.out, W_OK) != 0) {
		fprintf(stderr, "iopsy batch: %s is not a writable folder\n", o.out);
		buf_free(&err);
		batch_free(&b);
		return EXIT_SYSTEM;
	}
	char *started = iso_now();
	o.started = started;
	struct buf hp;
	buf_init(&hp);
	if (o.history)
		buf_adds(&hp, o.history);
	else
		buf_printf(&hp, "%s/history.sqlite", o.out);
	struct history *h = NULL;
	buf_reset(&err);
	if (history_open(&h, hp.data, true, &err) < 0) {
		fputs(err.data, stderr);
		fprintf(stderr, "iopsy batch: running without history (no trends, nothing recorded)\n");
		ret = EXIT_SYSTEM;
	} else {
		for (size_t i = 0; i < b.nsets; i++)
			if (history_previous(h, &b.sets[i], &err) < 0)
				fputs(err.data, stderr);
	}
	double t0 = now_seconds();
	batch_run(&b, &o);
	struct run_info ri = {.started = started, .input = o.input, .input_kind = b.input_kind, .history = hp.data, .out = o.out,
			      .seconds = now_seconds() - t0};
	/* index and summary */
	struct buf out;
	buf_init(&out);
	batch_index_html(&b, &ri, &out);
	struct buf p;
	buf_init(&p);
	buf_printf(&p, "%s/index.html", o.out);
	if (write_output("batch", p.data, &out) != EXIT_OK)
		ret = EXIT_SYSTEM;
	buf_reset(&out);
	struct json j;
	json_init(&j, &out, true);
	batch_summary_json(&b, &ri, &j);
	buf_addc(&out, '\n');
	buf_reset(&p);
	buf_printf(&p, "%s/summary.json", o.out);
	if (write_output("batch", p.data, &out) != EXIT_OK)
		ret = EXIT_SYSTEM;
	buf_free(&out);
	buf_free(&p);
	if (h) {
		buf_reset(&err);
		if (history_record(h, started, o.input, &b, &err) < 0) {
			fputs(err.data, stderr);
			ret = EXIT_SYSTEM;
		}
		history_close(h);
	}
	/* mail: the index to --mail-to, each set with recipients its own message */
	size_t *order = batch_order(&b);
	unsigned long long seed = (unsigned long long)time(NULL) * 1000003ull;
	if (o.nmail) {
		int crit = 0, failed = 0;
		for (size_t i = 0; i < b.nsets; i++) {
			crit += b.sets[i].worst == 2;
			failed += b.sets[i].status == BS_FAILED;
		}
		struct buf subj;
		buf_init(&subj);
		buf_printf(&subj, "%s: %zu set%s, %d critical, %d failed", o.subject ? o.subject : "iopsy storage report",
			   b.nsets, b.nsets == 1 ? "" : "s", crit, failed);
		if (deliver(&b, &ri, &o, order, b.nsets, o.mail_to, o.nmail, subj.data, seed, "index") < 0)
			ret = EXIT_SYSTEM;
		buf_free(&subj);
	}
	for (size_t i = 0; i < b.nsets; i++) {
		struct bset *s = &b.sets[i];
		char **to = NULL;
		size_t nto = 0;
		for (size_t k = 0; k < s->nmail; k++)
			if (s->mail_to[k][0]) {
				to = xrealloc(to, (nto + 1) * sizeof *to);
				to[nto++] = s->mail_to[k];
			}
		if (nto) {
			struct buf subj, name;
			buf_init(&subj);
			buf_init(&name);
			buf_printf(&subj, "%s: %s: %s", o.subject ? o.subject : "iopsy storage report", s->name,
				   s->status == BS_FAILED ? "failed" : s->worst == 2 ? "critical" : s->worst == 1 ? "warning" : "clean");
			buf_printf(&name, "set-%s", s->dir);
			if (deliver(&b, &ri, &o, &i, 1, to, nto, subj.data, seed + i + 1, name.data) < 0)
				ret = EXIT_SYSTEM;
			buf_free(&subj);
			buf_free(&name);
		}
		free(to);
	}
	free(order);
	/* exit code and a short account on stderr */
	long failed = 0, worst = -1;
	for (size_t i = 0; i < b.nsets; i++) {
		const struct bset *s = &b.sets[i];
		if (s->status == BS_FAILED || s->status == BS_PARTIAL) {
			failed++;
			fprintf(stderr, "iopsy batch: set %s %s: %s\n", s->dir, bstatus_names[s->status],
				s->error ? s->error : "see messages.txt");
		}
		if (s->worst > worst)
			worst = s->worst;
	}
	if (!o.quiet)
		fprintf(stderr, "iopsy batch: %zu set%s, %ld failed, index in %s/index.html\n", b.nsets,
			b.nsets == 1 ? "" : "s", failed, o.out);
	if (ret == EXIT_OK && failed)
		ret = EXIT_INPUT;
	if (ret == EXIT_OK && fail_on > 0 && worst >= fail_on)
		ret = EXIT_FINDINGS;
	free(started);
	buf_free(&hp);
	buf_free(&err);
	batch_free(&b);
	return ret;
}

int cmd_batch(int argc, char **argv)
{
	struct recipients r = {NULL, 0};
	int rc = run_batch(argc, argv, &r);
	for (size_t i = 0; i < r.n; i++)
		free(r.to[i]);
	free(r.to);
	return rc;
}

static const char history_help[] =
	"Usage: iopsy history --db PATH [--set NAME]\n"
	"List the runs recorded by 'iopsy batch' (sets, status, worst finding, capture start); with\n"
	"--set, also that set's findings and key figures per run.\n";

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
					     {"set", required_argument, NULL, 's'},
					     {"help", no_argument, NULL, 'h'},
					     {0}};
	const char *db = NULL, *set = NULL;
	int c;
	optind = 0;
	while ((c = getopt_long(argc, argv, "d:s:h", opts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 's': set = optarg; break;
		case 'h': fputs(history_help, stdout); return EXIT_OK;
		default: return usage_hint("history");
		}
	}
	if (!db)
		return usage_error("history", "--db PATH is required");
	if (optind < argc)
		return usage_error("history", "unexpected argument '%s'", argv[optind]);
	struct buf err, out;
	buf_init(&err);
	buf_init(&out);
	struct history *h;
	if (access(db, R_OK) != 0) {
		fprintf(stderr, "iopsy history: %s: %s\n", db, strerror(errno));
		return EXIT_INPUT;
	}
	/* opening migrates an older schema in place */
	if (history_open(&h, db, false, &err) < 0) {
		fputs(err.data, stderr);
		buf_free(&err);
		return EXIT_INPUT;
	}
	int ret = history_list(h, set, &out, &err) < 0 ? EXIT_INPUT : EXIT_OK;
	if (err.len)
		fputs(err.data, stderr);
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "iopsy history: write error on stdout: %s\n", strerror(errno));
		ret = EXIT_SYSTEM;
	}
	history_close(h);
	buf_free(&err);
	buf_free(&out);
	return ret;
}
