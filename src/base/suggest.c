/* suggest.c — "did you mean ...?": the optimal-string-alignment distance and the closest names of
 * a list (see suggest.h). */
#include "suggest.h"

#include <string.h>

#define SUGGEST_MAXLEN 255
#define SUGGEST_MAXOUT 4

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

size_t suggest_distance(const char *a, const char *b)
{
	size_t n = strlen(a), m = strlen(b);
	if (n > SUGGEST_MAXLEN)
		n = SUGGEST_MAXLEN;
	if (m > SUGGEST_MAXLEN)
		m = SUGGEST_MAXLEN;
	/* three rows of the dynamic-programming table: i-2, i-1, i */
	size_t r[3][SUGGEST_MAXLEN + 1];
	for (size_t j = 0; j <= m; j++)
		r[0][j] = j;
	size_t *pp = r[2], *p = r[0], *cur = r[1];
	for (size_t i = 1; i <= n; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			size_t cost = lower((unsigned char)a[i - 1]) != lower((unsigned char)b[j - 1]);
			size_t d = p[j - 1] + cost;
			if (p[j] + 1 < d)
				d = p[j] + 1;
			if (cur[j - 1] + 1 < d)
				d = cur[j - 1] + 1;
			if (i > 1 && j > 1 && lower((unsigned char)a[i - 1]) == lower((unsigned char)b[j - 2]) &&
			    lower((unsigned char)a[i - 2]) == lower((unsigned char)b[j - 1]) && pp[j - 2] + 1 < d)
				d = pp[j - 2] + 1;
			cur[j] = d;
		}
		size_t *t = pp;
		pp = p;
		p = cur;
		cur = t;
	}
	return p[m];
}

static bool is_prefix(const char *word, const char *s)
{
	size_t n = strlen(word);
	if (n == 0 || n >= strlen(s))
		return false;
	for (size_t i = 0; i < n; i++)
		if (lower((unsigned char)word[i]) != lower((unsigned char)s[i]))
			return false;
	return true;
}

size_t suggest_closest(const char *word, const char *const *cand, size_t ncand, size_t *idx, size_t nidx)
{
	size_t len = strlen(word);
	if (len == 0 || nidx == 0)
		return 0;
	size_t limit = len <= 3 ? 1 : 2;
	size_t best = 3, nout = 0;
	for (size_t i = 0; i < ncand; i++) {
		if (!cand[i])
			continue;
		size_t d = suggest_distance(word, cand[i]);
		bool pre = is_prefix(word, cand[i]);
		if (pre && d > 2)
			d = 2;
		if ((d > limit && !(pre && d <= 2)) || d > best)
			continue;
		if (d < best) {
			best = d;
			nout = 0;
		}
		if (nout < nidx)
			idx[nout++] = i;
	}
	return nout;
}

bool suggest_append(struct buf *b, const char *word, const char *prefix, const char *const *cand, size_t ncand)
{
	size_t idx[SUGGEST_MAXOUT];
	size_t n = suggest_closest(word, cand, ncand, idx, SUGGEST_MAXOUT);
	if (!n)
		return false;
	buf_adds(b, "; did you mean ");
	for (size_t i = 0; i < n; i++) {
		if (i)
			buf_adds(b, i + 1 == n ? " or " : ", ");
		buf_printf(b, "%s%s", prefix ? prefix : "", cand[idx[i]]);
	}
	buf_addc(b, '?');
	return true;
}
