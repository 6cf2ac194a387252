/* cmd_batch.c — the options of `iopsy batch INPUT --out DIR` (weekly unattended reports, history,
 * mail: the run itself is src/batch/batch.h) and of `iopsy history --db PATH [--set NAME]`. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "batch.h"
#include "commands.h"
#include "helpgen.h"
#include "deliver.h"
#include "hdb.h"
#include "history.h"
#include "mail.h"
#include "progress.h"
#include "shard.h"

static const char batch_help[] =
	"Usage: iopsy batch INPUT --out DIR [OPTIONS]\n"
	"Analyse every capture set of INPUT unattended: a folder with one sub-folder per set (every\n"
	"esxtop/perfmon/vmkernel.log/partitions/map file in it, .gz included; before/ and after/\n"
	"sub-folders make a comparison; loose files are a set each), or a manifest file (see\n"
	"doc/batch.md). Writes DIR/<set>/report.html, report.json, report.txt, messages.txt (and\n"
	"report.pdf with --pdf), then\n"
	"DIR/index.html (worst first) and DIR/summary.json, records the run in the history database\n"
	"and shows the trend against the previous run of each set. A set that fails is listed with\n"
	"its error and the run goes on. A manifest's set may carry what differs per customer: rules,\n"
	"tz, array-queue-depth, map, clock-offset, from/to (before-from ... after-to), host/vm/disk\n"
	"(one pattern a line); an unknown key or a bad value is an error at MANIFEST:LINE:COL.\n"
	"\n"
	"  -o, --out DIR           output folder (created; reports are replaced atomically)\n"
	"  --pdf                   also report.pdf per set (headless Chromium, a second or two of CPU\n"
	"                          per set), attached to the mail instead of the HTML\n"
	"  --paper a4|letter       the PDFs' page size (default a4)\n"
	"  -j, --jobs N            sets analysed in parallel (default: the number of cores); with as\n"
	"                          many sets as cores, --threads auto reads each set with one thread\n"
	"  --history PATH|URI      the history: a SQLite file (default DIR/history.sqlite) or a\n"
	"                          PostgreSQL database, postgresql://[user@]host[:port]/db (password\n"
	"                          from PGPASSFILE or ~/.pgpass, never in the URI)\n"
	"  --history-timeout SECONDS  how long the history may keep the run waiting (default 30):\n"
	"                          PostgreSQL's connect, each statement and lock wait, SQLite's lock\n"
	"                          wait; past it the run goes on without trends (exit 4)\n"
	"  --shard K/N             analyse only the sets of shard K of N (K from 0, as\n"
	"                          SLURM_ARRAY_TASK_ID and JOB_COMPLETION_INDEX count): reports and\n"
	"                          result records into the shared DIR, no index, history or mail\n"
	"  --finish                after every shard: read the results of the run from DIR, record\n"
	"                          it in the history, write the index and summary, send the mail\n"
	"  --run-id ID             the run's id, the same for its shards and finish step (required\n"
	"                          with --shard and --finish; A-Z a-z 0-9 . _ : + @ -)\n"
	"  --mail-to ADDR          send the index to ADDR (repeat or comma-separate)\n"
	"  --mail-from ADDR        sender (default iopsy@localhost)\n"
	"  --subject TEXT          subject prefix (default 'iopsy storage report')\n"
	"  --smtp URL              deliver with SMTP, e.g. smtp://relay:25 (credentials from\n"
	"                          IOPSY_SMTP_USER / IOPSY_SMTP_PASSWORD, never the command line)\n"
	"  --smtp-starttls         require STARTTLS\n"
	"  --sendmail CMD          deliver by running CMD (no shell) with the recipients appended\n"
	"  --eml DIR               write the messages as .eml files instead of sending\n"
	"  --mail-max-size SIZE    a message's size budget (default 10M; K, M, G suffixes): reports\n"
	"                          past it are linked (--report-url) or named by path, never cut\n"
	"  --report-url BASE       link reports that do not fit as BASE/<set>/report.html\n"
	"  --mail-timeout SECONDS  total deadline of all mail delivery (default 120); what is not\n"
	"                          delivered by then stays in DIR/mail/ as .eml\n"
	"  --set-timeout SECONDS   a set's worker is stopped past this (default 1800)\n"
	"  --set-memory MB         a set reads no more captures once its worker holds MB (default\n"
	"                          256); the rest are listed as not used\n"
	"  --fail-on LEVEL         exit 1 when a set has a finding at LEVEL (warning|critical) or above\n"
	;
static const char batch_help_exit[] =
	"\nExit codes: 0 all sets analysed, 1 a set has critical findings with --fail-on, 2 usage,\n"
	"3 some sets failed (they are in the index with their error), 4 system error (output or\n"
	"history not writable, or mail not delivered: the .eml files are kept in DIR/mail/).\n"
	"A shard exits 0 once its sets' results are in DIR (failed sets too: --finish reports them),\n"
	"2 on usage, 4 when DIR or a record could not be written.\n";

void batch_help_out(struct buf *out)
{
	buf_adds(out, batch_help);
	help_common(out, 22);
	buf_adds(out, batch_help_exit);
}

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
	OPT_MAIL_MAX_SIZE,
	OPT_REPORT_URL,
	OPT_MAIL_TIMEOUT,
	OPT_SET_TIMEOUT,
	OPT_SET_MEMORY,
	OPT_SHARD,
	OPT_FINISH,
	OPT_RUN_ID,
	OPT_BPDF,
	OPT_BPAPER,
	OPT_HISTORY_TIMEOUT,
};

/* Every message of a batch run reaches stderr through here: names from customer files (set
 * folders, capture file names, manifest keys) may hold terminal escapes or invalid UTF-8, so
 * control characters and invalid bytes are written as \xNN. Already escaped text stays as is. */
static void sink_escaped(void *ctx, enum diag_level lvl, const char *msg)
{
	(void)ctx;
	(void)lvl;
	struct buf b;
	buf_init(&b);
	buf_add_text_escaped(&b, msg, strlen(msg));
	buf_addc(&b, '\n');
	fputs(b.data, stderr);
	buf_free(&b);
}

/* A size with an optional K, M or G suffix (powers of 1024). */
static int parse_size(const char *arg, size_t *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	double mul = 1;
	if (*end == 'k' || *end == 'K')
		mul = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		mul = 1024 * 1024, end++;
	else if (*end == 'g' || *end == 'G')
		mul = 1024.0 * 1024 * 1024, end++;
	if (*end == 'B' || *end == 'b')
		end++;
	if (errno || end == arg || *end || !(v * mul >= 4096) || v * mul > 1e12)
		return ERR_USAGE;
	*out = (size_t)(v * mul);
	return 0;
}

static int parse_seconds(const char *arg, long lo, long hi, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < lo || v > hi)
		return ERR_USAGE;
	*out = v;
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

struct recipients {
	char **to;
	size_t n;
};

/* One option of batch (not a common one) into o: 0, EXIT_USAGE, or 1 when it is no batch option. */
static int batch_opt(int c, struct batch_opts *o, struct recipients *rcpt, int *fail_on)
{
	char *end;
	switch (c) {
	case 'o': o->out = optarg; break;
	case 'j': {
		errno = 0;
		long v = strtol(optarg, &end, 10);
		if (errno || *end || v < 1 || v > 256)
			return usage_error("batch", "--jobs needs a number from 1 to 256, not '%s'", optarg);
		o->jobs = (int)v;
		break;
	}
	case OPT_HISTORY: o->history = optarg; break;
	case OPT_HISTORY_TIMEOUT: {
		long v;
		if (parse_seconds(optarg, 2, 86400, &v) < 0)
			return usage_error("batch", "--history-timeout takes a number of seconds from 2 to 86400");
		o->history_timeout_s = (int)v;
		break;
	}
	case OPT_MAIL_TO:
		add_recipients(&rcpt->to, &rcpt->n, optarg);
		o->mail_to = rcpt->to;
		o->nmail = rcpt->n;
		break;
	case OPT_MAIL_FROM: o->mail_from = optarg; break;
	case OPT_SUBJECT: o->subject = optarg; break;
	case OPT_SMTP: o->smtp = optarg; break;
	case OPT_STARTTLS: o->smtp_starttls = true; break;
	case OPT_SENDMAIL: o->sendmail = optarg; break;
	case OPT_EML: o->eml_dir = optarg; break;
	case OPT_MAIL_MAX_SIZE:
		if (parse_size(optarg, &o->mail_max_size) < 0)
			return usage_error("batch", "--mail-max-size takes a size of at least 4K, like 10M or 500K");
		break;
	case OPT_REPORT_URL: {
		bool ok = strncmp(optarg, "https://", 8) == 0 || strncmp(optarg, "http://", 7) == 0;
		for (const unsigned char *u = (const unsigned char *)optarg; ok && *u; u++)
			ok = *u > ' ' && *u < 0x7f && !strchr("\"<>\\^`{|}", *u);
		if (!ok)
			return usage_error("batch",
					   "--report-url takes an http:// or https:// URL without spaces or quotes");
		o->report_url = optarg;
		break;
	}
	case OPT_MAIL_TIMEOUT:
	case OPT_SET_TIMEOUT: {
		long v;
		if (parse_seconds(optarg, 1, 7 * 86400, &v) < 0)
			return usage_error("batch", "--%s takes a number of seconds from 1 to 604800",
					   c == OPT_MAIL_TIMEOUT ? "mail-timeout" : "set-timeout");
		*(c == OPT_MAIL_TIMEOUT ? &o->mail_timeout_s : &o->set_timeout_s) = (int)v;
		break;
	}
	case OPT_SET_MEMORY: {
		long v;
		if (parse_seconds(optarg, 16, 1 << 20, &v) < 0)
			return usage_error("batch", "--set-memory takes a number of MB from 16 to 1048576");
		o->set_memory_mb = v;
		break;
	}
	case OPT_SHARD:
		if (shard_parse(optarg, &o->shard_k, &o->shard_n) < 0)
			return usage_error("batch", "--shard takes K/N with N from 1 to %d and K from 0 to N-1 (the "
						    "shards of 3 are 0/3, 1/3 and 2/3)", SHARD_MAX);
		break;
	case OPT_FINISH: o->finish = true; break;
	case OPT_BPDF: o->pdf = true; break;
	case OPT_BPAPER:
		if (cli_paper("batch", optarg))
			return EXIT_USAGE;
		o->paper = optarg;
		break;
	case OPT_RUN_ID:
		if (!run_id_valid(optarg))
			return usage_error("batch",
					   "--run-id takes 1 to %d characters of A-Z a-z 0-9 . _ : + @ - (not "
					   "starting with -), e.g. the Slurm job id or a time stamp",
					   RUN_ID_MAX);
		o->run_id = optarg;
		break;
	case OPT_FAIL_ON:
		if (strcmp(optarg, "warning") == 0)
			*fail_on = 1;
		else if (strcmp(optarg, "critical") == 0)
			*fail_on = 2;
		else
			return usage_error("batch", "--fail-on takes warning or critical, not '%s'", optarg);
		break;
	default: return 1;
	}
	return 0;
}

/* The options as a whole, then the run. */
static int batch_checked(struct batch_opts *o, int argc, char **argv, int fail_on)
{
	long nproc = sysconf(_SC_NPROCESSORS_ONLN);
	if (optind >= argc)
		return usage_error("batch", "no INPUT folder or manifest given");
	if (argc - optind > 1)
		return usage_error("batch", "one INPUT at a time");
	if (!o->out)
		return usage_error("batch", "--out DIR is required");
	o->input = argv[optind];
	/* --threads auto: the sets already run in parallel; a set's reader gets two threads only when
	 * fewer sets than cores run at once */
	if (o->co.threads == 0 && o->jobs >= (nproc > 0 ? nproc : 1))
		o->co.threads = 1;
	for (size_t i = 0; i < o->nmail; i++) {
		if (!mail_address_valid(o->mail_to[i])) {
			struct buf e;
			buf_init(&e);
			buf_add_text_escaped(&e, o->mail_to[i], strlen(o->mail_to[i]));
			usage_error("batch", "not a plain mail address: '%s'", e.data);
			buf_free(&e);
			return EXIT_USAGE;
		}
	}
	/* always: recipients may come from a manifest only, and the sender reaches the Message-ID and
	 * SMTP's MAIL FROM */
	if (!mail_address_valid(o->mail_from)) {
		struct buf e;
		buf_init(&e);
		buf_add_text_escaped(&e, o->mail_from, strlen(o->mail_from));
		usage_error("batch", "--mail-from: not a plain mail address: '%s'", e.data);
		buf_free(&e);
		return EXIT_USAGE;
	}
	if (o->shard_n && o->finish)
		return usage_error("batch",
				   "--shard and --finish are two steps: each shard runs with --shard K/N, then "
				   "one --finish");
	if ((o->shard_n || o->finish) && !o->run_id)
		return usage_error("batch",
				   "%s needs --run-id ID, the same for every shard and the finish step of the run",
				   o->finish ? "--finish" : "--shard");
	if (o->history) {
		struct buf why;
		buf_init(&why);
		if (hdb_uri_check(o->history, &why) < 0) {
			usage_error("batch", "--history: %s", why.data);
			buf_free(&why);
			return EXIT_USAGE;
		}
		buf_free(&why);
	}
	if (o->smtp) {
		struct buf why;
		buf_init(&why);
		if (deliver_url_check(o->smtp, &why) < 0) {
			usage_error("batch", "%s", why.data);
			buf_free(&why);
			return EXIT_USAGE;
		}
		buf_free(&why);
	}

	o->fail_on = fail_on;
	return batch_execute(o);
}


static int run_batch(int argc, char **argv, struct recipients *rcpt)
{
	static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
					     {"jobs", required_argument, NULL, 'j'},
					     {"history", required_argument, NULL, OPT_HISTORY},
					     {"history-timeout", required_argument, NULL, OPT_HISTORY_TIMEOUT},
					     {"mail-to", required_argument, NULL, OPT_MAIL_TO},
					     {"mail-from", required_argument, NULL, OPT_MAIL_FROM},
					     {"subject", required_argument, NULL, OPT_SUBJECT},
					     {"smtp", required_argument, NULL, OPT_SMTP},
					     {"smtp-starttls", no_argument, NULL, OPT_STARTTLS},
					     {"sendmail", required_argument, NULL, OPT_SENDMAIL},
					     {"eml", required_argument, NULL, OPT_EML},
					     {"fail-on", required_argument, NULL, OPT_FAIL_ON},
					     {"mail-max-size", required_argument, NULL, OPT_MAIL_MAX_SIZE},
					     {"report-url", required_argument, NULL, OPT_REPORT_URL},
					     {"mail-timeout", required_argument, NULL, OPT_MAIL_TIMEOUT},
					     {"set-timeout", required_argument, NULL, OPT_SET_TIMEOUT},
					     {"set-memory", required_argument, NULL, OPT_SET_MEMORY},
					     {"shard", required_argument, NULL, OPT_SHARD},
					     {"finish", no_argument, NULL, OPT_FINISH},
					     {"run-id", required_argument, NULL, OPT_RUN_ID},
					     {"pdf", no_argument, NULL, OPT_BPDF},
					     {"paper", required_argument, NULL, OPT_BPAPER},
					     COMMON_LONG_OPTS,
					     {0}};
	struct batch_opts o;
	memset(&o, 0, sizeof o);
	cli_opts_init(&o.co);
	o.co.sink = (struct diag_sink){.fn = sink_escaped, .ctx = NULL};
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
	while ((c = cli_getopt(argc, argv, "o:j:qh", opts, "batch")) != -1) {
		if (c == 'q') {
			o.quiet = true;
			continue;
		}
		int k = common_opt(c, optarg, &o.co);
		if (k < 0)
			return EXIT_USAGE;
		if (k)
			continue;
		if (c == 'h') {
			return cli_print_help(batch_help_out);
		}
		int r = batch_opt(c, &o, rcpt, &fail_on);
		if (r == 1)
			return usage_hint("batch");
		if (r)
			return r;
	}
	return batch_checked(&o, argc, argv, fail_on);
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
	"Usage: iopsy history --db PATH|URI [--set NAME] [--json]\n"
	"List the runs recorded by 'iopsy batch' (sets, status, worst finding, capture start, run id);\n"
	"with --set, also that set's findings and key figures per run. A set's status is a comparison's\n"
	"outcome, else failed, critical, warning (its worst finding), partial or ok. The history is a\n"
	"SQLite file or a PostgreSQL database (postgresql://[user@]host[:port]/db; the password from\n"
	"PGPASSFILE or ~/.pgpass, never in the URI).\n"
	"  --json    the same as JSON on stdout (doc/history-json.md)\n";

void history_help_out(struct buf *out)
{
	buf_adds(out, history_help);
}

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
					     {"set", required_argument, NULL, 's'},
					     {"json", no_argument, NULL, 'j'},
					     {"help", no_argument, NULL, 'h'},
					     {0}};
	const char *db = NULL, *set = NULL;
	bool as_json = false;
	int c;
	optind = 0;
	while ((c = cli_getopt(argc, argv, "d:s:h", opts, "history")) != -1) {
		switch (c) {
		case 'j': as_json = true; break;
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
	struct buf out;
	buf_init(&out);
	struct diag d;
	diag_init(&d, NULL, -1);
	d.sink = diag_stderr();
	struct history *h;
	struct buf why;
	buf_init(&why);
	if (hdb_uri_check(db, &why) < 0) {
		usage_error("history", "--db: %s", why.data);
		buf_free(&why);
		return EXIT_USAGE;
	}
	buf_free(&why);
	if (!hdb_is_uri(db) && access(db, R_OK) != 0) {
		fprintf(stderr, "iopsy history: %s: %s\n", db, strerror(errno));
		return EXIT_INPUT;
	}
	/* opening migrates an older schema in place */
	if (history_open(&h, db, false, 0, &d) < 0)
		return EXIT_INPUT;
	int ret = history_list(h, set, as_json, &out, &d) < 0 ? EXIT_INPUT : EXIT_OK;
	if (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
		fprintf(stderr, "iopsy history: write error on stdout: %s\n", strerror(errno));
		ret = EXIT_SYSTEM;
	}
	history_close(h);
	buf_free(&out);
	return ret;
}
