/* cmd_common.c — option handling shared by the subcommands (see commands.h). */
#include "commands.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "html.h"
#include "reporter.h"
#include "mtread.h"
#include "pdh.h"
#include "brand.h"
#include "capmodel.h"
#include "suggest.h"
#include "anopts.h"
#include <unistd.h>

void cli_opts_init(struct common_opts *co)
{
	common_opts_init(co);
	co->sink = diag_stderr();
	co->progress = &progress_stderr_hooks;
	/* IOPSY_THREADS: the default of --threads (the tests run everything with 1 and with 2) */
	const char *env = getenv("IOPSY_THREADS");
	if (env && *env)
		(void)cli_parse_threads(env, &co->threads);
}

int cli_parse_threads(const char *s, int *threads)
{
	if (strcmp(s, "auto") == 0) {
		*threads = 0;
		return 0;
	}
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < 0 || v > MTREAD_MAX_THREADS)
		return ERR_USAGE;
	*threads = (int)v;
	return 0;
}

struct diag *cli_option_diag(struct diag *d, const char *cmd_prefix, const char *option)
{
	diag_init(d, option, -1);
	d->prefix = cmd_prefix;
	d->sink = diag_stderr();
	return d;
}

int cli_load_rules(struct rules *r, const char *path)
{
	struct diag d;
	diag_init(&d, path, -1);
	d.sink = diag_stderr();
	return rules_load(r, path, &d);
}

int usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "iopsy %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry 'iopsy %s --help'.\n", cmd);
	return EXIT_USAGE;
}

void cli_unknown_option(const char *cmd, const char *token, const struct option *longopts)
{
	const char *names[256];
	size_t n = 0;
	for (const struct option *o = longopts; o->name && n < sizeof names / sizeof names[0]; o++)
		names[n++] = o->name;
	struct buf b;
	buf_init(&b);
	buf_printf(&b, "iopsy %s: unknown option '%s'", cmd, token);
	size_t dashes = token[0] == '-' ? token[1] == '-' ? 2 : 1 : 0;
	if (dashes && token[dashes]) {
		char word[128];
		size_t wl = strcspn(token + dashes, "=");
		if (wl >= sizeof word)
			wl = sizeof word - 1;
		memcpy(word, token + dashes, wl);
		word[wl] = '\0';
		for (size_t i = 0; dashes == 2 && i < n; i++) {
			if (strlen(names[i]) > wl && strncmp(names[i], word, wl) == 0) {
				buf_adds(&b, " (long options are not abbreviated)");
				break;
			}
		}
		suggest_append(&b, word, "--", names, n);
	}
	fprintf(stderr, "%s\n", b.data);
	buf_free(&b);
}

int cli_getopt(int argc, char *const *argv, const char *shortopts, const struct option *longopts, const char *cmd)
{
	/* a leading ':' tells a missing value from an unknown option */
	char so[64];
	size_t lead = shortopts[0] == '+' || shortopts[0] == '-';
	snprintf(so, sizeof so, "%.*s:%s", (int)lead, shortopts, shortopts + lead);
	opterr = 0;
	int li = -1;
	int c = getopt_long(argc, argv, so, longopts, &li);
	if (c == -1)
		return -1;
	if (c != '?' && c != ':') {
		if (li < 0)
			return c;
		/* the word typed: the element before optind, or the one before it when the value was
		 * a separate argument */
		const struct option *o = &longopts[li];
		const char *tok = o->has_arg == required_argument && optarg && optind >= 2 && optarg == argv[optind - 1]
					  ? argv[optind - 2] : argv[optind - 1];
		size_t n = strcspn(tok + 2, "=");
		if (strncmp(tok, "--", 2) == 0 && strlen(o->name) == n && strncmp(tok + 2, o->name, n) == 0)
			return c;
		cli_unknown_option(cmd, tok, longopts);
		return '?';
	}
	const char *tok = optind >= 1 && optind <= argc ? argv[optind - 1] : "";
	if (strncmp(tok, "--", 2) == 0 && tok[2]) {
		size_t n = strcspn(tok + 2, "=");
		const struct option *o = NULL;
		for (const struct option *k = longopts; k->name; k++)
			if (strlen(k->name) == n && strncmp(tok + 2, k->name, n) == 0)
				o = k;
		if (!o)
			cli_unknown_option(cmd, tok, longopts);
		else if (c == ':')
			fprintf(stderr, "iopsy %s: option '--%s' needs a value\n", cmd, o->name);
		else
			fprintf(stderr, "iopsy %s: option '--%s' takes no value\n", cmd, o->name);
	} else if (c == ':') {
		fprintf(stderr, "iopsy %s: option '-%c' needs a value\n", cmd, optopt);
	} else if (optopt && optind < argc && argv[optind][0] == '-' && argv[optind][1] == optopt && argv[optind][2]) {
		/* -from: a long option with one dash (getopt stopped at its first letter, optind still
		 * on it): the closest long options, if any */
		cli_unknown_option(cmd, argv[optind], longopts);
	} else {
		fprintf(stderr, "iopsy %s: unknown option '-%c'\n", cmd, optopt);
	}
	return '?';
}

int usage_hint(const char *cmd)
{
	fprintf(stderr, "Try 'iopsy %s --help'.\n", cmd);
	return EXIT_USAGE;
}

int common_opt(int c, const char *arg, struct common_opts *co)
{
	switch (c) {
	case OPT_FORMAT:
		if (strcmp(arg, "auto") != 0 && !parser_find(arg)) {
			const char *names[16] = {"auto"};
			size_t n = 1;
			for (size_t i = 0; parsers[i] && n < sizeof names / sizeof names[0]; i++)
				names[n++] = parsers[i]->name;
			struct buf b;
			buf_init(&b);
			bool close = suggest_append(&b, arg, NULL, names, n);
			fprintf(stderr, "iopsy: unknown format '%s'%s (formats: auto, %s)\n", arg, close ? b.data : "",
				parser_names());
			buf_free(&b);
			return ERR_USAGE;
		}
		co->format = strcmp(arg, "auto") == 0 ? NULL : arg;
		return 1;
	case OPT_TZ: {
		static struct tz given; /* the one --tz of this process */
		struct buf why;
		buf_init(&why);
		tz_free(&given);
		if (tz_parse(&given, arg, &why) < 0) {
			fprintf(stderr, "iopsy: bad --tz '%s': %s (use an offset like +09:00, -0500 or UTC, or a zone "
					"name like Europe/Berlin)\n", arg, why.data ? why.data : "");
			buf_free(&why);
			return ERR_USAGE;
		}
		buf_free(&why);
		co->tz_bias_min = given.fixed ? -given.off / 60 : 0;
		co->tz = &given;
		co->tz_given = true;
		return 1;
	}
	case OPT_MAX_WARNINGS: {
		char *end;
		errno = 0;
		long v = strtol(arg, &end, 10);
		if (errno || *end || end == arg || v < -1) {
			fprintf(stderr, "iopsy: bad --max-warnings '%s' (a number, -1 = unlimited)\n", arg);
			return ERR_USAGE;
		}
		co->max_warnings = v;
		return 1;
	}
	case 'q':
		co->quiet = true;
		return 1;
	case OPT_THREADS:
		if (cli_parse_threads(arg, &co->threads) < 0) {
			fprintf(stderr, "iopsy: bad --threads '%s' (a number from 1 to %d, or 0 or auto)\n", arg,
				MTREAD_MAX_THREADS);
			return ERR_USAGE;
		}
		return 1;
	default:
		return 0;
	}
}

int write_output(const char *cmd, const char *path, const struct buf *b)
{
	const char *what;
	if (afile_write_all(path, b->data, b->len, &what) < 0) {
		fprintf(stderr, "iopsy %s: %s %s: %s\n", cmd, what, path, strerror(errno));
		return EXIT_SYSTEM;
	}
	return EXIT_OK;
}

int cli_output_add(struct cli_outputs *o, const char *cmd, const char *name, const char *path)
{
	const struct reporter *r = reporter_find(name);
	if (!r || !(o->what == 0 ? r->analysis != NULL : r->compare != NULL))
		return usage_error(cmd, "no report '%s' (reports: %s)", name, reporter_names(o->what));
	if (!*path)
		return usage_error(cmd, "report '%s' needs a file name ('-' = stdout)", name);
	if (o->n >= CLI_MAX_OUTPUTS)
		return usage_error(cmd, "at most %d reports", CLI_MAX_OUTPUTS);
	o->v[o->n].r = r;
	o->v[o->n].path = path;
	o->n++;
	return 0;
}

int cli_output_parse(struct cli_outputs *o, const char *cmd, const char *arg)
{
	const char *eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return usage_error(cmd, "--report takes NAME=PATH (reports: %s), not '%s'", reporter_names(o->what), arg);
	char name[32];
	size_t n = (size_t)(eq - arg) < sizeof name - 1 ? (size_t)(eq - arg) : sizeof name - 1;
	memcpy(name, arg, n);
	name[n] = '\0';
	return cli_output_add(o, cmd, name, eq + 1);
}

bool cli_outputs_has(const struct cli_outputs *o, const char *name)
{
	for (int i = 0; i < o->n; i++)
		if (strcmp(o->v[i].r->name, name) == 0)
			return true;
	return false;
}

int cli_output_not_input(const char *cmd, const char *opt, const char *path, char *const *inputs, int ninputs)
{
	struct stat so;
	if (!path || strcmp(path, "-") == 0 || stat(path, &so) != 0 || !S_ISREG(so.st_mode))
		return 0;
	for (int i = 0; i < ninputs; i++) {
		struct stat si;
		if (!inputs[i])
			continue;
		/* standard input: the file it reads when it is one (analyze - < cap.csv) */
		bool std_in = strcmp(inputs[i], "-") == 0;
		if ((std_in ? fstat(0, &si) == 0 && S_ISREG(si.st_mode) : stat(inputs[i], &si) == 0) &&
		    si.st_dev == so.st_dev && si.st_ino == so.st_ino)
			return usage_error(cmd, "%s%s is the input %s: iopsy never overwrites an input", opt, path,
					   std_in ? "read on standard input" : inputs[i]);
	}
	return 0;
}

int cli_outputs_not_inputs(const struct cli_outputs *o, const char *cmd, char *const *inputs, int ninputs)
{
	for (int i = 0; i < o->n; i++) {
		char opt[48];
		snprintf(opt, sizeof opt, "--report %s=", o->v[i].r->name);
		if (cli_output_not_input(cmd, opt, o->v[i].path, inputs, ninputs))
			return EXIT_USAGE;
	}
	return 0;
}

int cli_outputs_finish(struct cli_outputs *o, const char *cmd)
{
	int to_stdout = 0;
	for (int i = 0; i < o->n; i++)
		to_stdout += strcmp(o->v[i].path, "-") == 0;
	if (to_stdout > 1)
		return usage_error(cmd, "only one report can write to stdout ('-'): --json, --html, --text, --pdf, --xlsx or a --report");
	for (int i = 0; i < o->n; i++)
		for (int k = i + 1; k < o->n; k++) {
			/* two reports to one file: the second would replace the first */
			struct stat a, b;
			const char *p = o->v[i].path, *q = o->v[k].path;
			if (strcmp(p, "-") != 0 && (strcmp(p, q) == 0 || (stat(p, &a) == 0 && stat(q, &b) == 0 &&
								       a.st_dev == b.st_dev && a.st_ino == b.st_ino)))
				return usage_error(cmd,
						   "the %s and %s reports both write to %s: give each its own file",
						   o->v[i].r->name, o->v[k].r->name, q);
		}
	if (!to_stdout && !cli_outputs_has(o, "text"))
		return cli_output_add(o, cmd, "text", "-");
	return 0;
}

int cli_outputs_write(const struct cli_outputs *o, const char *cmd, const void *model, struct report_opts *ro)
{
	char prefix[64];
	snprintf(prefix, sizeof prefix, "iopsy %s", cmd);
	struct diag d;
	diag_init(&d, NULL, -1);
	d.prefix = prefix;
	d.sink = diag_stderr();
	ro->d = &d;
	int ret = EXIT_OK;
	struct buf out;
	buf_init(&out);
	for (int i = 0; i < o->n; i++) {
		const struct reporter *r = o->v[i].r;
		buf_reset(&out);
		int rc = o->what == 0 ? r->analysis(model, ro, &out) : r->compare(model, ro, &out);
		int w;
		if (rc == REPORT_SKIPPED) {
			continue; /* said why already (a PDF without Chromium) */
		} else if (rc < 0) {
			if (rc == PDF_NO_CHROMIUM || rc == PDF_FAILED)
				fprintf(stderr, "iopsy %s: --require-pdf: no PDF written\n", cmd);
			else if (rc != ERR_IO)
				fprintf(stderr, "iopsy %s: --require-charts: no %s report written\n", cmd,
					strcmp(r->name, "html") == 0 ? "HTML" : r->name);
			w = EXIT_SYSTEM;
		} else {
			w = write_output(cmd, o->v[i].path, &out);
		}
		if (w > ret)
			ret = w;
	}
	buf_free(&out);
	ro->d = NULL;
	return ret;
}

const char *cli_report_help(int what)
{
	static char help[2][1024];
	char *h = help[what ? 1 : 0];
	if (!h[0]) {
		size_t o = 0;
		int k = snprintf(h, sizeof help[0], "  --report NAME=PATH        write the report NAME to PATH ('-' = stdout); NAME is\n");
		o = k > 0 ? (size_t)k : 0;
		for (size_t i = 0; reporters[i] && o < sizeof help[0]; i++) {
			const struct reporter *r = reporters[i];
			if (!(what ? r->compare != NULL : r->analysis != NULL))
				continue;
			k = snprintf(h + o, sizeof help[0] - o, "                              %-5s %s\n", r->name, r->summary);
			if (k > 0)
				o += (size_t)k;
		}
	}
	return h;
}

/* ---- the deliverable's options ---- */

static struct report_brand *brand_of(struct deliv_opts *d)
{
	if (!d->brand)
		d->brand = xcalloc(1, sizeof *d->brand);
	return d->brand;
}

int cli_paper(const char *cmd, const char *arg)
{
	return html_paper_known(arg) ? 0 : usage_error(cmd, "--paper takes a4 or letter, not '%s'", arg);
}

/* Engagement text: one line, at most 200 bytes (it goes on a title page). */
static int brand_text(const char *cmd, const char *opt, const char *arg)
{
	if (!*arg || strlen(arg) > 200)
		return usage_error(cmd, "%s needs a text of 1 to 200 bytes", opt);
	return 0;
}

int deliv_opt(int c, const char *arg, struct deliv_opts *d, struct cli_outputs *outs, const char *cmd)
{
	switch (c) {
	case OPT_PDF: return cli_output_add(outs, cmd, "pdf", arg) ? EXIT_USAGE : 1;
	case OPT_XLSX: return cli_output_add(outs, cmd, "xlsx", arg) ? EXIT_USAGE : 1;
	case OPT_PAPER:
		if (cli_paper(cmd, arg))
			return EXIT_USAGE;
		d->paper = arg;
		return 1;
	case OPT_REQUIRE_PDF: d->require_pdf = true; return 1;
	case OPT_TITLE:
		if (brand_text(cmd, "--title", arg))
			return EXIT_USAGE;
		brand_of(d)->title = arg;
		return 1;
	case OPT_CUSTOMER:
		if (brand_text(cmd, "--customer", arg))
			return EXIT_USAGE;
		brand_of(d)->customer = arg;
		return 1;
	case OPT_PREPARED_BY:
		if (brand_text(cmd, "--prepared-by", arg))
			return EXIT_USAGE;
		brand_of(d)->prepared_by = arg;
		return 1;
	case OPT_LOGO: d->logo = arg; return 1;
	case OPT_REDACT_PATHS: d->redact = true; return 1;
	default: return 0;
	}
}

int deliv_finish(struct deliv_opts *d, struct report_opts *ro, const char *cmd)
{
	if (d->logo) {
		struct buf why;
		buf_init(&why);
		int rc = brand_logo_load(brand_of(d), d->logo, &why);
		if (rc < 0) {
			fprintf(stderr, "iopsy %s: --logo %s: %s\n", cmd, d->logo, why.data ? why.data : "");
			buf_free(&why);
			/* a bad option: nothing was analysed (exit 3 means the other inputs were) */
			return EXIT_USAGE;
		}
		buf_free(&why);
	}
	ro->html.brand = d->brand;
	ro->html.paper = d->paper;
	ro->pdf.require = d->require_pdf;
	return EXIT_OK;
}

void deliv_paths(struct analysis *a, bool redact)
{
	char cwd[4096];
	analysis_display_paths(a, redact, getcwd(cwd, sizeof cwd) ? cwd : NULL);
}

void deliv_free(struct deliv_opts *d)
{
	if (d->brand) {
		brand_free(d->brand);
		free(d->brand);
		d->brand = NULL;
	}
}

/* ---- the analysis options of the table (anopts.h) ---- */

size_t cli_longopts_add(struct option *dst, size_t n, size_t cap, const struct option *src)
{
	for (const struct option *o = src; o->name && n + 1 < cap; o++)
		dst[n++] = *o;
	dst[n] = (struct option){0};
	return n;
}

/* The option name of row i with prefix k (0 none, 1 before-, 2 after-); static storage. */
static const char *anopt_name(size_t i, int k)
{
	static char names[64][2][48];
	if (k == 0 || i >= sizeof names / sizeof names[0])
		return anopts[i].name;
	char *s = names[i][k - 1];
	if (!s[0])
		snprintf(s, sizeof names[0][0], "%s-%s", k == 1 ? "before" : "after", anopts[i].name);
	return s;
}

size_t cli_anopt_longopts(struct option *dst, size_t n, size_t cap, unsigned flags)
{
	for (size_t i = 0; anopts[i].name; i++) {
		const struct anopt *o = &anopts[i];
		int has = o->type == ANT_FLAG ? no_argument : required_argument;
		for (int k = 0; k < 3 && n + 1 < cap; k++) {
			bool take = k == 0 ? (o->flags & flags & (ANF_ANALYZE | ANF_COMPARE)) != 0
					   : (o->flags & flags & ANF_SIDED) != 0;
			if (take)
				dst[n++] = (struct option){anopt_name(i, k), has, NULL, OPT_ANOPT + 4 * (int)i + k};
		}
	}
	dst[n] = (struct option){0};
	return n;
}

int cli_anopt(const char *cmd, int c, const char *arg, struct an_values *v, size_t nv)
{
	size_t nrows = 0;
	while (anopts[nrows].name)
		nrows++;
	if (c < OPT_ANOPT || c >= OPT_ANOPT + 4 * (int)nrows)
		return 0;
	size_t i = (size_t)(c - OPT_ANOPT) / 4;
	int k = (c - OPT_ANOPT) % 4;
	for (size_t s = 0; s < nv; s++) {
		if (k ? s != (size_t)k - 1 : i < 64 && (v[s].own >> i & 1))
			continue; /* a side's own option wins over the plain one, in any order */
		if (k && i < 64)
			v[s].own |= 1ull << i;
		const char *why;
		int rc = anopt_set(&anopts[i], arg, &v[s], &why);
		if (rc == ANOPT_TOO_MANY)
			return usage_error(cmd, "at most %d --%s files", ANOPT_MAX_FILES, anopt_name(i, k)), ERR_USAGE;
		if (rc < 0 && anopts[i].type == ANT_TIME) { /* the window parser says what is wrong */
			struct buf b;
			buf_init(&b);
			buf_add_text_escaped(&b, arg, strlen(arg));
			usage_error(cmd, "--%s '%s': %s", anopt_name(i, k), b.data, why);
			buf_free(&b);
			return ERR_USAGE;
		}
		if (rc < 0)
			return usage_error(cmd, "--%s needs %s, not '%s'", anopt_name(i, k), why, arg), ERR_USAGE;
	}
	return 1;
}
