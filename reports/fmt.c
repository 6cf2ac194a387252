/* fmt.c — shared formatting of the writers (see fmt.h). */
#include "fmt.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void fmt_esc(struct buf *b, const char *s)
{
	if (s)
		buf_add_text_escaped(b, s, strlen(s));
}

void html_escape(struct buf *b, const char *s)
{
	if (!s)
		return;
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;
	while (i < n) {
		unsigned char c = p[i];
		if (c < 0x80) {
			switch (c) {
			case '&': buf_adds(b, "&amp;"); break;
			case '<': buf_adds(b, "&lt;"); break;
			case '>': buf_adds(b, "&gt;"); break;
			case '"': buf_adds(b, "&quot;"); break;
			case '\'': buf_adds(b, "&#39;"); break;
			default:
				if (c < 0x20 || c == 0x7f)
					buf_printf(b, "\\x%02X", c);
				else
					buf_addc(b, (char)c);
			}
			i++;
			continue;
		}
		size_t k = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (k && i + k <= n && utf8_valid(s + i, k)) {
			buf_add(b, s + i, k);
			i += k;
		} else {
			buf_printf(b, "\\x%02X", c);
			i++;
		}
	}
}

void fmt_num(struct buf *b, double v, const char *nan_text)
{
	if (isnan(v))
		buf_adds(b, nan_text);
	else if (fabs(v) >= 100 || v == floor(v))
		buf_printf(b, "%.0f", v);
	else if (fabs(v) >= 10)
		buf_printf(b, "%.1f", v);
	else
		buf_printf(b, "%.2g", v);
}

void fmt_num2(struct buf *b, double v, const char *nan_text)
{
	if (isnan(v))
		buf_adds(b, nan_text);
	else if (fabs(v) >= 100 || v == floor(v))
		buf_printf(b, "%.0f", v);
	else if (fabs(v) >= 10)
		buf_printf(b, "%.1f", v);
	else if (fabs(v) >= 0.1)
		buf_printf(b, "%.2f", v);
	else
		buf_printf(b, "%.2g", v);
}

void fmt_pct(struct buf *b, double v, const char *nan_text)
{
	if (isnan(v))
		buf_adds(b, nan_text);
	else if (fabs(v) >= 10)
		buf_printf(b, "%+.0f%%", v);
	else
		buf_printf(b, "%+.1f%%", v);
}

void fmt_share(struct buf *b, double v)
{
	if (isnan(v))
		buf_adds(b, "-");
	else if (v > 0 && v < 0.005)
		buf_adds(b, "<1%");
	else if (v < 1 && v > 0.995)
		buf_adds(b, ">99%");
	else
		buf_printf(b, "%.0f%%", v * 100);
}

void fmt_duration(struct buf *b, double s, bool with_seconds)
{
	long x = lround(s);
	if (x >= 3600 && with_seconds)
		buf_printf(b, "%ldh %02ldm %02lds", x / 3600, x / 60 % 60, x % 60);
	else if (x >= 3600)
		buf_printf(b, "%ldh %02ldm", x / 3600, x / 60 % 60);
	else if (x >= 60)
		buf_printf(b, "%ldm %02lds", x / 60, x % 60);
	else
		buf_printf(b, "%lds", x);
}

void fmt_when(struct buf *b, int64_t t)
{
	char s[32];
	time_format_iso(t, false, s);
	char *z = strchr(s, 'Z');
	if (z)
		*z = '\0';
	char *T = strchr(s, 'T');
	if (T)
		*T = ' ';
	buf_adds(b, s);
}

void fmt_hhmmss(struct buf *b, int64_t t)
{
	char s[32];
	time_format_iso(t, false, s);
	char *T = strchr(s, 'T');
	char *z = strchr(s, 'Z');
	if (T && z) {
		*z = '\0';
		buf_adds(b, T + 1);
	} else {
		buf_adds(b, s);
	}
}

bool fmt_same_day(int64_t a, int64_t b)
{
	char x[32], y[32];
	time_format_iso(a, false, x);
	time_format_iso(b, false, y);
	return strncmp(x, y, 10) == 0;
}

/* Appends text wrapped at width; the first line starts with indent (e.g. "   rule: "), the next
 * ones with as many spaces. */
void text_wrap(struct buf *b, const char *indent, const char *text, size_t width)
{
	struct buf t;
	buf_init(&t);
	fmt_esc(&t, text);
	const char *p = t.data ? t.data : "";
	size_t ind = strlen(indent);
	bool first = true;
	while (*p) {
		if (first)
			buf_adds(b, indent);
		else
			buf_printf(b, "%*s", (int)ind, "");
		first = false;
		size_t n = strlen(p);
		if (n + ind <= width) {
			buf_adds(b, p);
			buf_addc(b, '\n');
			break;
		}
		size_t cut = width - ind;
		while (cut > 0 && p[cut] != ' ')
			cut--;
		if (cut == 0)
			cut = width - ind;
		buf_add(b, p, cut);
		buf_addc(b, '\n');
		p += cut;
		while (*p == ' ')
			p++;
	}
	buf_free(&t);
}

/* Whether the '&' at p starts a character reference ("&amp;", "&#62;", "&#x3E;"), which Markdown
 * would decode. */
static bool entity_at(const char *p)
{
	const char *q = p + 1;
	if (*q == '#')
		q++;
	const char *name = q;
	while ((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9'))
		q++;
	return q > name && *q == ';';
}

/* Text as Markdown that renders as itself (fmt.h): control characters and bad
 * UTF-8 as \xNN, line ends as spaces, the ASCII punctuation that means something inline
 * backslash-escaped (links, emphasis, code, table cells, strike-through, backslashes), '<' only
 * where it could open raw HTML or an autolink (before a letter, '/', '!' or '?') and '&' only where it
 * would be a character reference — "->", ">= 31" and "a < b" stay as they are —, and a start that
 * would make a heading, a list, a quote or a thematic break escaped too. */
void md_escape(struct buf *b, const char *s)
{
	if (!s)
		return;
	struct buf t;
	buf_init(&t);
	for (const char *p = s; *p; p++)
		buf_addc(&t, *p == '\n' || *p == '\r' ? ' ' : *p);
	struct buf e;
	buf_init(&e);
	fmt_esc(&e, t.data ? t.data : "");
	const char *p0 = e.data ? e.data : "";
	const char *list_mark = NULL; /* "1." or "1)" at the start: an ordered list item */
	if (*p0 == '#' || *p0 == '+' || *p0 == '-' || *p0 == '=' || *p0 == '>')
		buf_addc(b, '\\');
	else if (*p0 >= '0' && *p0 <= '9') {
		const char *q = p0;
		while (*q >= '0' && *q <= '9')
			q++;
		if (*q == '.' || *q == ')')
			list_mark = q;
	}
	for (const char *p = p0; *p; p++) {
		char n = p[1];
		switch (*p) {
		case '<':
			if ((n >= 'a' && n <= 'z') || (n >= 'A' && n <= 'Z') || n == '/' || n == '!' || n == '?')
				buf_addc(b, '\\');
			buf_addc(b, '<');
			break;
		case '&':
			if (entity_at(p))
				buf_addc(b, '\\');
			buf_addc(b, '&');
			break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '|': case '~':
			buf_addc(b, '\\');
			buf_addc(b, *p);
			break;
		default:
			if (p == list_mark)
				buf_addc(b, '\\');
			buf_addc(b, *p);
		}
	}
	buf_free(&e);
	buf_free(&t);
}
