/* partitions.c — wmic partition output parser (see partitions.h). Columns are located from the
 * header line, so any column order works; names with spaces are sliced by position. */
#include "partitions.h"

#include <stdlib.h>
#include <string.h>

#include "source.h"

enum { COL_BLOCK, COL_INDEX, COL_NAME, COL_OFFSET, NCOL };
static const char *const col_names[NCOL] = {"BlockSize", "Index", "Name", "StartingOffset"};

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

int partitions_parse(struct partitions *ps, const char *text, size_t len, struct diag *d)
{
	memset(ps, 0, sizeof *ps);
	arena_init(&ps->arena);
	long pos[NCOL];
	bool have_header = false;
	size_t cap = 0;
	long line = 0;
	size_t i = 0;
	int order[NCOL];
	while (i < len) {
		size_t s = i;
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;
		i = e + 1;
		line++;
		while (e > s && (text[e - 1] == '\r' || text[e - 1] == ' '))
			e--;
		if (e == s)
			continue;
		const char *l = text + s;
		size_t n = e - s;
		if (!have_header) {
			if (!memmem(l, n, "StartingOffset", 14))
				continue;
			bool ok = true;
			for (int c = 0; c < NCOL; c++) {
				const char *p = memmem(l, n, col_names[c], strlen(col_names[c]));
				if (!p && c != COL_BLOCK && c != COL_INDEX)
					ok = false;
				pos[c] = p ? (long)(p - l) : -1;
			}
			if (!ok) {
				diag_emit(d, DIAG_ERROR, line, 0, "partition header needs Name and StartingOffset columns");
				return ERR_FORMAT;
			}
			/* columns sorted by position, to know where each one ends */
			for (int c = 0; c < NCOL; c++)
				order[c] = c;
			for (int a = 0; a < NCOL; a++)
				for (int b = a + 1; b < NCOL; b++)
					if (pos[order[b]] < pos[order[a]]) {
						int t = order[a];
						order[a] = order[b];
						order[b] = t;
					}
			have_header = true;
			continue;
		}
		const char *field[NCOL];
		size_t flen[NCOL];
		for (int k = 0; k < NCOL; k++) {
			int c = order[k];
			if (pos[c] < 0) {
				field[c] = "";
				flen[c] = 0;
				continue;
			}
			long start = pos[c], end = (long)n;
			for (int q = k + 1; q < NCOL; q++)
				if (pos[order[q]] >= 0) {
					end = pos[order[q]];
					break;
				}
			if (start > (long)n)
				start = (long)n;
			if (end > (long)n)
				end = (long)n;
			field[c] = l + start;
			flen[c] = (size_t)(end - start);
			while (flen[c] && field[c][flen[c] - 1] == ' ')
				flen[c]--;
		}
		long long off, bs = 0, idx = 0;
		if (!parse_ll(field[COL_OFFSET], flen[COL_OFFSET], &off)) {
			diag_emit(d, DIAG_WARNING, line, pos[COL_OFFSET] + 1, "no StartingOffset number; line skipped");
			continue;
		}
		if (pos[COL_BLOCK] >= 0)
			parse_ll(field[COL_BLOCK], flen[COL_BLOCK], &bs);
		if (pos[COL_INDEX] >= 0)
			parse_ll(field[COL_INDEX], flen[COL_INDEX], &idx);
		if (ps->n == cap) {
			cap = cap ? cap * 2 : 16;
			ps->p = xrealloc(ps->p, cap * sizeof *ps->p);
		}
		struct partition *p = &ps->p[ps->n++];
		p->name = arena_strndup(&ps->arena, field[COL_NAME], flen[COL_NAME]);
		p->offset = off;
		p->block_size = bs;
		p->index = (int)idx;
		p->line = line;
		p->disk = -1;
		const char *dn = strstr(p->name, "Disk #");
		if (dn)
			p->disk = (int)strtol(dn + 6, NULL, 10);
	}
	if (!have_header) {
		diag_emit(d, DIAG_ERROR, 0, 0,
			  "no 'StartingOffset' header: expected the output of 'wmic partition get BlockSize, "
			  "StartingOffset, Name, Index'");
		return ERR_FORMAT;
	}
	return 0;
}

int partitions_read(struct partitions *ps, const char *path, struct diag *d)
{
	struct source src;
	int rc = source_open(&src, path, d);
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
