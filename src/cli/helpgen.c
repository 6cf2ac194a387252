/* helpgen.c — --help rows and the man page's lists from the tables (see helpgen.h). */
#include "helpgen.h"

#include <string.h>

#include "anopts.h"
#include "commands.h"
#include "kinds.h"
#include "parser.h"
#include "reporter.h"

#define HELP_WIDTH 96

void help_opt(struct buf *b, int col, const char *opt, const char *text)
{
	int at = (int)strlen(opt) + 2;
	buf_printf(b, "  %s", opt);
	if (at >= col) {
		buf_addc(b, '\n');
		at = 0;
	}
	const char *p = text;
	while (*p) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		/* the words that fit from col to HELP_WIDTH (at least one) */
		const char *end = p, *brk = NULL;
		int w = col;
		while (*end && (w < HELP_WIDTH || !brk)) {
			if (*end == ' ')
				brk = end;
			end++;
			w++;
		}
		if (!*end)
			brk = end;
		else if (!brk)
			brk = end;
		buf_printf(b, "%*s%.*s\n", col - at, "", (int)(brk - p), p);
		at = 0;
		p = brk;
	}
	if (!*text)
		buf_addc(b, '\n');
}

void help_rows(struct buf *b, int col, const struct help_row *rows)
{
	for (; rows->opt; rows++)
		help_opt(b, col, rows->opt, rows->text);
}

static bool skipped(const char *name, const char *const *skip)
{
	for (; skip && *skip; skip++)
		if (strcmp(*skip, name) == 0)
			return true;
	return false;
}

void help_anopts(struct buf *b, unsigned flags, const char *const *skip)
{
	char opt[160], text[600];
	for (const struct anopt *o = anopts; o->name; o++) {
		if (skipped(o->name, skip))
			continue;
		const char *arg = o->arg ? o->arg : "", *sp = o->arg ? " " : "";
		if (flags & ANF_ANALYZE) {
			if (!(o->flags & ANF_ANALYZE))
				continue;
			snprintf(opt, sizeof opt, "--%s%s%s", o->name, sp, arg);
			help_opt(b, HELP_COL, opt, o->help);
			continue;
		}
		if (o->flags & ANF_COMPARE) {
			snprintf(opt, sizeof opt, "--%s%s%s", o->name, sp, arg);
			snprintf(text, sizeof text, "%s (both sides)", o->help);
			help_opt(b, HELP_COL, opt, text);
		}
		if (o->flags & ANF_SIDED) {
			snprintf(opt, sizeof opt, "--before-%s%s%s, --after-%s%s%s", o->name, sp, arg, o->name, sp, arg);
			if (o->flags & ANF_COMPARE)
				snprintf(text, sizeof text, "the same for one side (it wins over --%s there)", o->name);
			else
				snprintf(text, sizeof text, "%s (for one side)", o->help);
			help_opt(b, HELP_COL, opt, text);
		}
	}
}

void help_reports(struct buf *b, int what)
{
	help_opt(b, HELP_COL, "--report NAME=PATH", "write the report NAME to PATH ('-' = stdout); NAME is");
	char row[200];
	for (size_t i = 0; reporters[i]; i++) {
		const struct reporter *r = reporters[i];
		if (!(what ? r->compare != NULL : r->analysis != NULL))
			continue;
		snprintf(row, sizeof row, "%*s%-5s", HELP_COL, "", r->name);
		help_opt(b, HELP_COL + 8, row, r->summary);
	}
}

void help_common(struct buf *b, int col)
{
	char text[300];
	snprintf(text, sizeof text, "force the input format (auto, %s; default: probe)", parser_names());
	help_opt(b, col, "--format NAME", text);
	buf_adds(b, COMMON_HELP_REST);
}

/* ---- the man page ---- */

/* s with roff's special characters made literal: '-' as \-, '\' as \e, a leading '.' or '\''. */
static void roff(struct buf *b, const char *s)
{
	if (*s == '.' || *s == '\'')
		buf_adds(b, "\\&");
	for (; *s; s++) {
		if (*s == '-')
			buf_adds(b, "\\-");
		else if (*s == '\\')
			buf_adds(b, "\\e");
		else
			buf_addc(b, *s);
	}
}

/* text as roff lines broken at blanks before 96 columns, without the last newline */
static void roff_wrapped(struct buf *b, const char *text)
{
	const char *p = text;
	while (*p) {
		const char *end = p, *brk = NULL;
		while (*end && (end - p < HELP_WIDTH || !brk)) {
			if (*end == ' ')
				brk = end;
			end++;
		}
		if (!*end || !brk)
			brk = end;
		char line[1024];
		snprintf(line, sizeof line, "%.*s", (int)(brk - p), p);
		roff(b, line);
		p = brk;
		while (*p == ' ')
			p++;
		if (*p)
			buf_addc(b, '\n');
	}
}

/* names as a sentence's list, "a, b, c.", wrapped before 96 columns */
static void man_list(struct buf *b, const char *const *names, size_t n)
{
	size_t col = 0;
	for (size_t i = 0; i < n; i++) {
		size_t w = strlen(names[i]) + 1;
		if (col && col + 1 + w > HELP_WIDTH) {
			buf_addc(b, '\n');
			col = 0;
		} else if (col) {
			buf_addc(b, ' ');
			col++;
		}
		roff(b, names[i]);
		buf_addc(b, i + 1 < n ? ',' : '.');
		col += w;
	}
	buf_addc(b, '\n');
}

static void man_kinds(struct buf *b)
{
	const char *names[K_COUNT];
	for (int k = 0; k < K_COUNT; k++)
		names[k] = kinds[k].name;
	buf_adds(b, "Finding kinds:\n");
	man_list(b, names, K_COUNT);
}

static void man_formats(struct buf *b)
{
	buf_adds(b, ".BR auto \" (default)");
	for (size_t i = 0; parsers[i]; i++) {
		buf_adds(b, i ? ", \" " : ", \" ");
		roff(b, parsers[i]->name);
		buf_adds(b, parsers[i + 1] ? "" : "\n");
	}
}

static void man_reports(struct buf *b, int what)
{
	buf_adds(b, "The reports are:\n.RS\n");
	for (size_t i = 0; reporters[i]; i++) {
		const struct reporter *r = reporters[i];
		if (!(what ? r->compare != NULL : r->analysis != NULL))
			continue;
		buf_adds(b, ".TP\n.B ");
		roff(b, r->name);
		buf_addc(b, '\n');
		roff(b, r->summary);
		buf_adds(b, ".\n");
	}
	buf_adds(b, ".RE\n");
}

static void man_opt_name(struct buf *b, const char *pre, const struct anopt *o)
{
	buf_adds(b, o->arg ? ".BI \\-\\-" : ".B \\-\\-");
	roff(b, pre);
	roff(b, o->name);
	if (o->arg) {
		buf_adds(b, " \" ");
		roff(b, o->arg);
		buf_addc(b, '"');
	}
	buf_addc(b, '\n');
}

/* one .TP row per option of the table: its forms, its text, and who takes it */
static void man_options(struct buf *b)
{
	for (const struct anopt *o = anopts; o->name; o++) {
		buf_adds(b, ".TP\n");
		bool plain = o->flags & (ANF_ANALYZE | ANF_COMPARE), sided = o->flags & ANF_SIDED;
		if (plain)
			man_opt_name(b, "", o);
		if (sided) {
			if (plain)
				buf_adds(b, ".PD 0\n.TP\n");
			man_opt_name(b, "before-", o);
			buf_adds(b, ".PD 0\n.TP\n");
			man_opt_name(b, "after-", o);
			buf_adds(b, ".PD\n");
		}
		roff_wrapped(b, o->help);
		buf_adds(b, ".\nTaken by:");
		const char *sep = " ";
		if (o->flags & ANF_ANALYZE) {
			buf_adds(b, " analyze");
			sep = ", ";
		}
		if (o->flags & ANF_COMPARE) {
			buf_printf(b, "%scompare (both sides)", sep);
			sep = ", ";
		}
		if (sided) {
			buf_printf(b, "%scompare per side", sep);
			sep = ", ";
		}
		if (o->flags & ANF_MANIFEST) {
			buf_printf(b, "%sthe batch manifest (", sep);
			roff(b, o->name);
			if (o->flags & ANF_MANIFEST_SIDED) {
				buf_adds(b, ", before\\-");
				roff(b, o->name);
				buf_adds(b, ", after\\-");
				roff(b, o->name);
			}
			buf_adds(b, ")");
		}
		buf_adds(b, ".\n");
	}
}

static const struct {
	const char *name;
	void (*gen)(struct buf *b);
} regions[] = {
	{"kinds", man_kinds},
	{"formats", man_formats},
};

static void gen_region(struct buf *b, const char *name, size_t n, int *known)
{
	*known = 1;
	for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++)
		if (strlen(regions[i].name) == n && strncmp(regions[i].name, name, n) == 0) {
			regions[i].gen(b);
			return;
		}
	if (n == 15 && strncmp(name, "analyze-reports", n) == 0)
		man_reports(b, 0);
	else if (n == 15 && strncmp(name, "compare-reports", n) == 0)
		man_reports(b, 1);
	else if (n == 16 && strncmp(name, "analysis-options", n) == 0)
		man_options(b);
	else
		*known = 0;
}

int man_regenerate(const char *page, size_t len, struct buf *out, const char **why)
{
	static const char open[] = ".\\\" generated: ", close[] = ".\\\" end generated\n";
	const char *p = page, *end = page + len;
	int n = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *eol = nl ? nl + 1 : end;
		buf_add(out, p, (size_t)(eol - p));
		if ((size_t)(eol - p) > sizeof open - 1 && strncmp(p, open, sizeof open - 1) == 0) {
			const char *name = p + sizeof open - 1, *ne = name;
			while (ne < eol && *ne != ' ' && *ne != '\n')
				ne++;
			int known;
			gen_region(out, name, (size_t)(ne - name), &known);
			if (!known) {
				*why = "a generated region of an unknown name";
				return -1;
			}
			/* skip the old body up to the closing line, which is kept */
			const char *q = eol;
			while (q < end && !(strncmp(q, close, sizeof close - 1) == 0 && (q == page || q[-1] == '\n'))) {
				const char *qn = memchr(q, '\n', (size_t)(end - q));
				q = qn ? qn + 1 : end;
			}
			if (q >= end) {
				*why = "a generated region without its closing line";
				return -1;
			}
			eol = q;
			n++;
		}
		p = eol;
	}
	return n;
}
