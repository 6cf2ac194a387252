/* partitions.c — wmic partition output parser (see partitions.h). Three shapes: the fixed-width
 * table wmic prints (columns located from the header line, any order, names with spaces sliced by
 * position); the same table after its padding was collapsed to single spaces, or wmic's
 * /format:csv (read by tokens: every known column but Name is one token, so Name is what is left
 * between them); and /format:list (blocks of Key=Value lines separated by blank lines). */
#include "partitions.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "source.h"

/* SystemName: the machine wmic ran on (a table or /format:list with it asked for, `list full`);
 * Node: the same, first column of /format:csv */
enum { COL_BLOCK, COL_INDEX, COL_NAME, COL_OFFSET, COL_SYSTEM, COL_NODE, NCOL };
static const char *const col_names[NCOL] = {"BlockSize", "Index", "Name", "StartingOffset", "SystemName", "Node"};

/* Columns of a table header: wmic `get *` prints about 35; more is not a header. */
#define PART_MAX_COLS 64

static bool parse_ll(const char *s, size_t n, long long *v)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n || n > 18) /* 18 digits always fit a long long; no disk is 10^18 bytes */
		return false;
	long long x = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		x = x * 10 + (s[i] - '0');
	}
	*v = x;
	return true;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t';
}

static void trim(const char **s, size_t *n)
{
	while (*n && is_space(**s)) {
		(*s)++;
		(*n)--;
	}
	while (*n && is_space((*s)[*n - 1]))
		(*n)--;
}

/* A wmic property name: a letter, then letters and digits. */
static bool is_ident(const char *s, size_t n)
{
	if (!n || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
		return false;
	for (size_t i = 1; i < n; i++)
		if (!((s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')))
			return false;
	return true;
}

static int known_col(const char *s, size_t n)
{
	for (int c = 0; c < NCOL; c++)
		if (strlen(col_names[c]) == n && strncasecmp(col_names[c], s, n) == 0)
			return c;
	return -1;
}

/* A table header: its columns in order, where each starts, which known column it is. */
struct table {
	size_t ncols;
	long start[PART_MAX_COLS];
	int kind[PART_MAX_COLS];     /* COL_* or -1 for a column this parser does not use */
	int at[NCOL];                /* column number of each known column, -1 when absent */
	char delim;                  /* ' ' (runs of blanks) or ',' (/format:csv) */
	bool fixed;                  /* wmic's padding is intact: slice rows by position */
};

/* Reads l as a table header: property names separated by blanks (or by commas, /format:csv),
 * one of them StartingOffset. false when it is not one (the echoed command line, text). */
static bool table_header(const char *l, size_t n, struct table *t)
{
	memset(t, 0, sizeof *t);
	for (int c = 0; c < NCOL; c++)
		t->at[c] = -1;
	t->delim = memchr(l, ',', n) ? ',' : ' ';
	t->fixed = t->delim == ' ';
	size_t i = 0;
	while (i < n) {
		size_t s = i;
		if (t->delim == ',') {
			const char *c = memchr(l + i, ',', n - i);
			i = c ? (size_t)(c - l) : n;
		} else {
			while (i < n && is_space(l[i]))
				i++;
			s = i;
			while (i < n && !is_space(l[i]))
				i++;
		}
		const char *w = l + s;
		size_t wn = i - s;
		trim(&w, &wn);
		if (!is_ident(w, wn) || t->ncols == PART_MAX_COLS)
			return false;
		int k = known_col(w, wn);
		if (k >= 0 && t->at[k] >= 0)
			return false;
		if (k >= 0)
			t->at[k] = (int)t->ncols;
		t->kind[t->ncols] = k;
		t->start[t->ncols] = (long)(w - l);
		t->ncols++;
		if (t->delim == ',')
			i++; /* past the comma */
		if (t->delim == ' ' && i < n) {
			/* wmic pads every column with at least two spaces: anything else (one space,
			 * tabs) is a copy whose positions no longer hold */
			size_t g = i;
			while (g < n && l[g] == ' ')
				g++;
			if (g - i < 2 || (g < n && l[g] == '\t'))
				t->fixed = false;
		}
	}
	return t->at[COL_OFFSET] >= 0;
}

struct row {
	const char *f[NCOL];
	size_t n[NCOL];
};

/* Slices a row at the header's positions. */
static void row_fixed(const struct table *t, const char *l, size_t n, struct row *r)
{
	for (size_t c = 0; c < t->ncols; c++) {
		int k = t->kind[c];
		if (k < 0)
			continue;
		long s = t->start[c], e = c + 1 < t->ncols ? t->start[c + 1] : (long)n;
		if (s > (long)n)
			s = (long)n;
		if (e > (long)n)
			e = (long)n;
		r->f[k] = l + s;
		r->n[k] = (size_t)(e - s);
		trim(&r->f[k], &r->n[k]);
	}
}

/* Splits a row into tokens (runs of non-blanks, or comma-separated fields): each column but Name
 * takes one, those before Name from the left, those after it from the right, and Name is the text
 * in between (spaces and commas as they are). false when there are too few tokens, or too many
 * for a table without Name. */
static bool row_tokens(const struct table *t, const char *l, size_t n, struct row *r)
{
	size_t name = t->at[COL_NAME] >= 0 ? (size_t)t->at[COL_NAME] : t->ncols;
	size_t i = 0, e = n;
	for (size_t c = 0; c < name; c++) {
		size_t s;
		if (t->delim == ',') {
			const char *q = memchr(l + i, ',', n - i);
			if (!q && c + 1 < t->ncols)
				return false;
			s = i;
			i = q ? (size_t)(q - l) : n;
		} else {
			while (i < n && is_space(l[i]))
				i++;
			if (i == n)
				return false;
			s = i;
			while (i < n && !is_space(l[i]))
				i++;
		}
		if (t->kind[c] >= 0) {
			r->f[t->kind[c]] = l + s;
			r->n[t->kind[c]] = i - s;
		}
		if (t->delim == ',' && i < n)
			i++;
	}
	if (name == t->ncols) { /* no Name column: the tokens must be used up */
		const char *rest = l + i;
		size_t rn = n - i;
		trim(&rest, &rn);
		return rn == 0;
	}
	for (size_t c = t->ncols - 1; c > name; c--) {
		size_t s;
		if (t->delim == ',') {
			const char *q = NULL;
			for (size_t k = e; k > i; k--)
				if (l[k - 1] == ',') {
					q = l + k - 1;
					break;
				}
			if (!q)
				return false;
			s = (size_t)(q - l) + 1;
			if (t->kind[c] >= 0) {
				r->f[t->kind[c]] = l + s;
				r->n[t->kind[c]] = e - s;
			}
			e = (size_t)(q - l);
		} else {
			while (e > i && is_space(l[e - 1]))
				e--;
			if (e == i)
				return false;
			size_t end = e;
			while (e > i && !is_space(l[e - 1]))
				e--;
			s = e;
			if (t->kind[c] >= 0) {
				r->f[t->kind[c]] = l + s;
				r->n[t->kind[c]] = end - s;
			}
		}
	}
	r->f[COL_NAME] = l + i;
	r->n[COL_NAME] = e - i;
	trim(&r->f[COL_NAME], &r->n[COL_NAME]);
	for (int k = 0; k < NCOL; k++)
		if (r->f[k])
			trim(&r->f[k], &r->n[k]);
	return r->n[COL_NAME] > 0;
}

/* Checks a row's numbers: -1 when it is a partition (BlockSize and Index may be empty or absent:
 * 0), else the COL_* that is wrong, or BAD_SHAPE; bad_what[] says how. */
enum { BAD_SHAPE = NCOL };
static const char *const bad_what[NCOL + 1] = {
	[COL_BLOCK] = "BlockSize is not a number",
	[COL_INDEX] = "Index is not a number",
	[COL_NAME] = "no Name",
	[COL_OFFSET] = "no StartingOffset number",
	[COL_SYSTEM] = "no SystemName",
	[COL_NODE] = "no Node",
	[BAD_SHAPE] = "fewer fields than the header has columns",
};

static int row_check(const struct row *r, long long *off, long long *bs, long long *idx)
{
	*bs = *idx = 0;
	if (!r->f[COL_OFFSET] || !parse_ll(r->f[COL_OFFSET], r->n[COL_OFFSET], off))
		return COL_OFFSET;
	if (r->n[COL_BLOCK] && !parse_ll(r->f[COL_BLOCK], r->n[COL_BLOCK], bs))
		return COL_BLOCK;
	if (r->n[COL_INDEX] && !parse_ll(r->f[COL_INDEX], r->n[COL_INDEX], idx))
		return COL_INDEX;
	return -1;
}

static void add_partition(struct partitions *ps, size_t *cap, const struct row *r, long long off, long long bs,
			  long long idx, long line)
{
	const char *name = r->f[COL_NAME];
	size_t name_len = r->n[COL_NAME];
	if (ps->n == *cap) {
		*cap = *cap ? *cap * 2 : 16;
		ps->p = xrealloc(ps->p, *cap * sizeof *ps->p);
	}
	struct partition *p = &ps->p[ps->n++];
	p->name = arena_strndup(&ps->arena, name ? name : "", name ? name_len : 0);
	p->offset = off;
	p->block_size = bs;
	p->index = idx > 0x7fffffff ? 0x7fffffff : (int)idx;
	p->line = line;
	p->disk = -1;
	int sc = r->n[COL_SYSTEM] ? COL_SYSTEM : r->n[COL_NODE] ? COL_NODE : -1;
	p->system = sc >= 0 ? arena_strndup(&ps->arena, r->f[sc], r->n[sc]) : NULL;
	if (p->system && !ps->system)
		ps->system = p->system;
	const char *dn = strstr(p->name, "Disk #");
	if (dn) {
		long v = strtol(dn + 6, NULL, 10);
		p->disk = v >= 0 && v <= 0x7fffffff ? (int)v : -1;
	}
}

/* A /format:list record being read: each known key's value and line. */
struct record {
	struct row r;
	long key_line[NCOL];
	long line;                   /* first line of the record, 0 = none open */
};

/* Ends the record: a partition, or a warning at the line that is wrong. */
static void record_flush(struct partitions *ps, size_t *cap, struct record *rec, long *records, struct diag *d)
{
	if (!rec->line)
		return;
	(*records)++;
	long long off, bs, idx;
	const char *why = NULL;
	long at = rec->line;
	int bad;
	if (!rec->r.f[COL_OFFSET]) {
		why = "no StartingOffset= line";
	} else if (!rec->r.f[COL_NAME]) {
		why = "no Name= line";
	} else if ((bad = row_check(&rec->r, &off, &bs, &idx)) >= 0) {
		why = bad_what[bad];
		at = rec->key_line[bad];
	}
	if (why)
		diag_emit(d, DIAG_WARNING, at, 0, "partition record (from line %ld): %s; record skipped", rec->line, why);
	else
		add_partition(ps, cap, &rec->r, off, bs, idx, rec->line);
	memset(rec, 0, sizeof *rec);
}

/* Reads l as "Key=Value" (blanks around either allowed). */
static bool key_value(const char *l, size_t n, const char **k, size_t *kn, const char **v, size_t *vn)
{
	const char *eq = memchr(l, '=', n);
	if (!eq)
		return false;
	*k = l;
	*kn = (size_t)(eq - l);
	trim(k, kn);
	*v = eq + 1;
	*vn = (size_t)(l + n - *v);
	trim(v, vn);
	return is_ident(*k, *kn);
}

int partitions_parse(struct partitions *ps, const char *text, size_t len, struct diag *d)
{
	memset(ps, 0, sizeof *ps);
	arena_init(&ps->arena);
	enum { SEEK, TABLE, LIST } mode = SEEK;
	struct table t;
	struct record rec;
	memset(&rec, 0, sizeof rec);
	size_t cap = 0;
	long line = 0, rows = 0, records = 0;
	size_t i = 0;
	while (i < len) {
		size_t s = i;
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		i = e + 1;
		line++;
		/* CRLF, and wmic's CRCRLF when its UTF-16 output went through a text-mode copy */
		while (e > s && (text[e - 1] == '\r' || is_space(text[e - 1])))
			e--;
		const char *l = text + s;
		size_t n = e - s;
		bool blank = true;
		for (size_t k = 0; k < n && blank; k++)
			blank = is_space(l[k]);
		if (mode == LIST) {
			const char *k, *v;
			size_t kn, vn;
			if (blank) {
				record_flush(ps, &cap, &rec, &records, d);
			} else if (key_value(l, n, &k, &kn, &v, &vn)) {
				int c = known_col(k, kn);
				if (c >= 0 && rec.r.f[c]) /* a key again: the blank line between records was lost */
					record_flush(ps, &cap, &rec, &records, d);
				if (!rec.line)
					rec.line = line;
				if (c >= 0) {
					rec.r.f[c] = v;
					rec.r.n[c] = vn;
					rec.key_line[c] = line;
				}
			} else {
				diag_emit(d, DIAG_WARNING, line, 0, "not a Key=Value line in wmic /format:list output; ignored");
			}
			continue;
		}
		if (blank)
			continue;
		if (mode == SEEK) {
			const char *k, *v;
			size_t kn, vn;
			if (key_value(l, n, &k, &kn, &v, &vn)) {
				mode = LIST;
				rec.line = line;
				int c = known_col(k, kn);
				if (c >= 0) {
					rec.r.f[c] = v;
					rec.r.n[c] = vn;
					rec.key_line[c] = line;
				}
			} else if (table_header(l, n, &t)) {
				if (t.at[COL_NAME] < 0) {
					diag_emit(d, DIAG_ERROR, line, 0, "partition header needs Name and StartingOffset columns");
					return ERR_FORMAT;
				}
				mode = TABLE;
			}
			continue; /* lines before the header (the command, a prompt) are not partitions */
		}
		rows++;
		struct row r;
		memset(&r, 0, sizeof r);
		long long off, bs, idx;
		int bad = COL_OFFSET;
		if (t.fixed) {
			row_fixed(&t, l, n, &r);
			bad = row_check(&r, &off, &bs, &idx);
		}
		if (bad >= 0) { /* collapsed padding, a hand-edited line, /format:csv: by tokens */
			struct row r2;
			memset(&r2, 0, sizeof r2);
			int bad2 = row_tokens(&t, l, n, &r2) ? row_check(&r2, &off, &bs, &idx) : BAD_SHAPE;
			if (bad2 < 0 || !t.fixed) {
				bad = bad2;
				r = r2;
			}
		}
		if (bad >= 0) {
			long col = t.fixed && bad < NCOL && t.at[bad] >= 0 ? t.start[t.at[bad]] + 1 : 0;
			diag_emit(d, DIAG_WARNING, line, col, "%s; line skipped", bad_what[bad]);
			continue;
		}
		add_partition(ps, &cap, &r, off, bs, idx, line);
	}
	if (mode == LIST)
		record_flush(ps, &cap, &rec, &records, d);
	if (mode == SEEK) {
		bool nul = len && memchr(text, '\0', len) != NULL;
		diag_emit(d, DIAG_ERROR, 0, 0,
			  "no 'StartingOffset' header: expected the output of 'wmic partition get BlockSize, "
			  "StartingOffset, Name, Index' (a table, or Key=Value lines with /format:list)%s",
			  nul ? "; the file holds NUL bytes: UTF-16 without its byte-order mark? save it again as "
				"UTF-16 (Unicode) or UTF-8" : "");
		return ERR_FORMAT;
	}
	if (ps->n == 0) {
		if (mode == LIST)
			diag_emit(d, DIAG_ERROR, 0, 0,
				  "none of the %ld wmic /format:list record%s is a partition with Name and StartingOffset: "
				  "nothing to check for alignment",
				  records, records == 1 ? "" : "s");
		else if (rows)
			diag_emit(d, DIAG_ERROR, 0, 0,
				  "none of the %ld line%s after the header could be read as a partition: nothing to check "
				  "for alignment",
				  rows, rows == 1 ? "" : "s");
		else
			diag_emit(d, DIAG_ERROR, 0, 0, "no partition lines after the header: nothing to check for alignment");
		return ERR_FORMAT;
	}
	return 0;
}

int partitions_read(struct partitions *ps, const char *path, struct diag *d)
{
	struct source src;
	int rc = source_open_regular(&src, path, d);
	if (rc < 0) {
		memset(ps, 0, sizeof *ps);
		arena_init(&ps->arena);
		return rc;
	}
	struct buf b;
	buf_init(&b);
	char chunk[8192];
	long k;
	while ((k = source_read(&src, chunk, sizeof chunk, d)) > 0) {
		buf_add(&b, chunk, (size_t)k);
		if (b.len > (16u << 20)) {
			diag_emit(d, DIAG_ERROR, 0, 0, "partitions file larger than 16 MiB");
			k = ERR_LIMIT;
			break;
		}
	}
	source_close(&src);
	if (k < 0) {
		buf_free(&b);
		memset(ps, 0, sizeof *ps);
		arena_init(&ps->arena);
		return (int)k;
	}
	rc = partitions_parse(ps, b.data ? b.data : "", b.len, d);
	buf_free(&b);
	return rc;
}

void partitions_free(struct partitions *ps)
{
	free(ps->p);
	arena_free(&ps->arena);
	memset(ps, 0, sizeof *ps);
}
