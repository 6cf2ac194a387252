/* pdh.c — the shared PDH-CSV/TSV reader: line framing, junk/BOM/line-end handling, libcsv
 * tokenising, header resolution, row validation and time conversion (see pdh.h). */
#include "pdh.h"

#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fieldscan.h"
#include "mtread.h"

#define PDH_MAX_JUNK_LINES 1000
#define PDH_MAX_FIELD (256u << 20)   /* a single field longer than this is a runaway quote */
#define PDH_CHUNK (1u << 20)
#define PDH_TAIL 16              /* spare bytes after the data in the line buffer */
/* A line longer than this is damage (a runaway quote, binary data), not a record: real header
 * lines are 1-10 MB (100,000 columns), rows well under 1 MB. Bounds the line buffer. */
#define PDH_MAX_LINE (64u << 20)
/* Columns kept from a header: 10x the widest captures seen (100,000+ on big hosts). Each costs
 * about 140 bytes across the reader and the commands, so a header of commas cannot take GBs. */
#define PDH_MAX_COLUMNS 1000000u
/* --threads auto: an uncompressed file this big or bigger is read by mtread_auto_threads()
 * threads (a smaller one is done before the threads would pay; gzip input already inflates in a
 * thread of its own). Chunks of about PDH_MT_CHUNK_ROWS rows, within the bounds. */
#define PDH_MT_AUTO_MIN (16u << 20)
#define PDH_MT_CHUNK_ROWS 8
#define PDH_MT_CHUNK_MIN (512u << 10)
#define PDH_MT_CHUNK_MAX (4u << 20)

struct hfield {
	const char *s;
	size_t n;
};

struct pdh_reader {
	struct reader base;      /* first: a struct reader * is this reader (base.ops = fmt) */
	struct source *src;
	struct diag *d;
	struct pdh_options opt;
	const struct parser_ops *fmt;
	struct pdh_header_info hi;
	struct arena arena;
	struct csv_parser csv;
	bool csv_ready;
	char term;               /* line terminator: '\n' or '\r' (CR-only files) */
	bool tsv, excel;
	/* input */
	char *buf;
	size_t cap, start, end, scanned;
	bool eof, last_unterminated;
	bool skipping;           /* discarding the rest of an over-long line */
	long line_no;            /* number of the last line handed out */
	/* header */
	long header_line;
	struct hfield *hf;
	size_t nhf, hf_cap, nhf_over;
	size_t nfields;          /* fields per data row */
	struct pdh_column *cols;
	size_t ncols;
	bool glue;
	bool in_header;
	bool open_quote;         /* the current record ended inside a quote */
	/* current row */
	size_t field;
	bool row_started, row_done;
	long row_line, cur_line;
	size_t row_fields;
	unsigned char *want;     /* per field */
	struct buf rowbuf;
	size_t *off, *len;       /* per field: text at text_base + off */
	double *val;             /* per field, when row_vals: the number read by a thread (mtread.h:
	                          * NaN empty, +inf not a number) */
	bool row_vals;
	const char *text_base;   /* rowbuf.data (libcsv rows) or the line itself (fast rows) */
	struct fieldscan_plan plan;
	bool plan_ready;
	struct fieldscan_span *spans; /* per plan.wanted */
	char ts[64];
	size_t ts_len;
	bool ts_long;
	/* rows read by threads (pdh_next): NULL = this thread reads */
	struct mtread *mt;
	bool mt_tried;
	void (*progress)(void *ctx, int64_t done, int64_t total); /* the source's, while mt reads */
	void *progress_ctx;
	/* time */
	int64_t prev_t, prev_local, last_gap;
	int fatal;               /* an error found in a row that ends the capture (ERR_*) */
	bool have_prev;
	int64_t shift_ms;
	bool first_row_seen;
	struct pdh_stats st;
};


void pdh_header_parse_bias(const char *cell, size_t len, struct pdh_header_info *hi)
{
	/* "(PDH-CSV 4.0) (Pacific Standard Time)(480)": zone between the 2nd '(' and its ')',
	 * bias = the integer in the last "(...)" when it closes the cell. */
	hi->bias_known = false;
	hi->bias_min = 0;
	hi->zone[0] = '\0';
	while (len && (cell[len - 1] == ' '))
		len--;
	const char *p = memchr(cell, ')', len);
	if (!p)
		return;
	const char *rest = p + 1, *end = cell + len;
	while (rest < end && *rest == ' ')
		rest++;
	if (rest < end && *rest == '(') {
		const char *z = rest + 1;
		const char *zc = memchr(z, ')', (size_t)(end - z));
		if (zc) {
			size_t zn = (size_t)(zc - z);
			if (zn >= sizeof hi->zone)
				zn = sizeof hi->zone - 1;
			/* printable ASCII only: Windows writes English zone names (non-English ones are cut
			 * at the first non-ASCII byte), and reports print the zone as it is */
			for (size_t i = 0; i < zn; i++)
				hi->zone[i] = z[i] >= 0x20 && z[i] < 0x7f ? z[i] : '?';
			hi->zone[zn] = '\0';
			rest = zc + 1;
			if (rest < end && *rest == '(' && end[-1] == ')') {
				const char *q = rest + 1;
				bool neg = false;
				if (q < end - 1 && *q == '-') {
					neg = true;
					q++;
				}
				long v = 0;
				int nd = 0;
				while (q < end - 1 && *q >= '0' && *q <= '9' && nd < 6) {
					v = v * 10 + (*q - '0');
					q++;
					nd++;
				}
				if (nd > 0 && q == end - 1 && v <= 24 * 60) {
					hi->bias_min = (int)(neg ? -v : v);
					hi->bias_known = true;
				}
			}
		}
	}
}

/* ---- path splitting ---- */

void pdh_split_path(const char *s, size_t n, struct pdh_path *p, struct arena *a)
{
	memset(p, 0, sizeof *p);
	if (n < 3 || s[0] != '\\' || s[1] != '\\') {
		p->counter = arena_strndup(a, s, n);
		return;
	}
	const char *h = s + 2, *end = s + n;
	const char *hs = memchr(h, '\\', (size_t)(end - h));
	const char *last = n > 3 ? memrchr(h + 1, '\\', (size_t)(end - h - 1)) : NULL;
	if (!hs || !last || last <= hs || last == end - 1) {
		p->counter = arena_strndup(a, s, n);
		return;
	}
	const char *m = hs + 1, *me = last;
	const char *paren = memchr(m, '(', (size_t)(me - m));
	const char *close = paren && me - paren > 1 ? memrchr(paren + 1, ')', (size_t)(me - paren - 1)) : NULL;
	const char *oe = paren && close ? paren : me;
	/* "\\host\\counter": no object, so not a path (as pdh.h says) */
	bool ok = oe > m && m[0] != '\0';
	/* one copy of the name; each part is ended in place by a NUL over the separator after it */
	char *c = arena_strndup(a, s, n);
	if (!ok) {
		p->counter = c;
		return;
	}
	p->host = c + 2;
	c[hs - s] = '\0';
	p->counter = c + (last + 1 - s);
	p->object = c + (m - s);
	c[oe - s] = '\0';
	if (paren && close) {
		p->instance = c + (paren + 1 - s);
		c[close - s] = '\0';
	}
	p->ok = true;
}

/* ---- time ---- */

static bool digits(const char **s, const char *e, int min, int max, int *v)
{
	int x = 0, k = 0;
	while (*s < e && k < max && **s >= '0' && **s <= '9') {
		x = x * 10 + (**s - '0');
		(*s)++;
		k++;
	}
	*v = x;
	return k >= min;
}

int pdh_parse_time(const char *s, size_t n, int64_t *t_ms)
{
	const char *e = s + n;
	while (s < e && *s == ' ')
		s++;
	while (e > s && e[-1] == ' ')
		e--;
	int mo, d, y, h, mi, se = 0, ms = 0;
	if (!digits(&s, e, 1, 2, &mo) || s >= e || *s++ != '/' || !digits(&s, e, 1, 2, &d) || s >= e ||
	    *s++ != '/' || !digits(&s, e, 4, 4, &y) || s >= e || *s++ != ' ')
		return ERR_FORMAT;
	if (!digits(&s, e, 1, 2, &h) || s >= e || *s++ != ':' || !digits(&s, e, 2, 2, &mi))
		return ERR_FORMAT;
	if (s < e && *s == ':') {
		s++;
		if (!digits(&s, e, 2, 2, &se))
			return ERR_FORMAT;
		if (s < e && *s == '.') {
			s++;
			int k = 0, frac = 0;
			while (s < e && *s >= '0' && *s <= '9') {
				if (k < 3)
					frac = frac * 10 + (*s - '0');
				k++;
				s++;
			}
			if (k == 0)
				return ERR_FORMAT;
			for (; k < 3; k++)
				frac *= 10;
			ms = frac;
		}
	}
	if (s != e)
		return ERR_FORMAT;
	if (!date_valid(y, mo, d) || h > 23 || mi > 59 || se > 60 || y < 1970)
		return ERR_FORMAT;
	*t_ms = (days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + se) * 1000 + ms;
	return 0;
}

/* ---- libcsv plumbing ---- */

static void *capped_realloc(void *p, size_t n)
{
	if (n > PDH_MAX_FIELD)
		return NULL;
	return realloc(p, n);
}

static void header_add(struct pdh_reader *r, const char *s, size_t n)
{
	if (r->nhf > PDH_MAX_COLUMNS) { /* counted, not kept: pdh_open reports it */
		r->nhf_over++;
		return;
	}
	if (r->nhf == r->hf_cap) {
		r->hf_cap = r->hf_cap ? r->hf_cap * 2 : 1024;
		r->hf = xrealloc(r->hf, r->hf_cap * sizeof *r->hf);
	}
	r->hf[r->nhf].s = arena_strndup(&r->arena, s, n);
	r->hf[r->nhf].n = n;
	r->nhf++;
}

static void store(struct pdh_reader *r, const char *s, size_t n)
{
	if (r->in_header) {
		header_add(r, s, n);
		r->field++;
		return;
	}
	size_t f = r->field++;
	if (f == 0) {
		r->ts_long = n >= sizeof r->ts;
		if (r->ts_long)
			n = sizeof r->ts - 1;
		memcpy(r->ts, s, n);
		r->ts[n] = '\0';
		r->ts_len = n;
	} else if (f < r->nfields && r->want[f]) {
		r->off[f] = r->rowbuf.len;
		r->len[f] = n;
		buf_add(&r->rowbuf, s, n);
	}
}

static void cb_field(void *s, size_t n, void *ctx)
{
	struct pdh_reader *r = ctx;
	const char *p = s ? s : "";
	if (!r->row_started) {
		r->row_started = true;
		r->row_line = r->cur_line;
		r->field = 0;
		buf_reset(&r->rowbuf);
	}
	/* esxtop -a on 6.x: an unquoted padded field glued to the next quoted one
	 * (`   -"\\h\PCPU Power State(PCPU 1)\%C-State C0"`, data `    73.1"8.93"`). libcsv hands
	 * the pair over as one field with literal quotes: split it back into two. */
	if ((r->in_header || r->glue) && n > 1) {
		const char *q = memchr(p, '"', n);
		if (q && q != p && p[n - 1] == '"' && q < p + n - 1) {
			if (r->in_header)
				r->glue = true;
			const char *a = p, *ae = q;
			while (a < ae && *a == ' ')
				a++;
			while (ae > a && ae[-1] == ' ')
				ae--;
			store(r, a, (size_t)(ae - a));
			store(r, q + 1, (size_t)(p + n - 1 - (q + 1)));
			return;
		}
	}
	store(r, p, n);
}

static void cb_row(int c, void *ctx)
{
	(void)c;
	struct pdh_reader *r = ctx;
	if (!r->row_started)
		return;
	r->row_done = true;
	r->row_fields = r->field;
	r->row_started = false;
	r->text_base = r->rowbuf.data;
	r->row_vals = false;
}

/* libcsv ends a record at CR or LF by default; the reader frames lines itself and feeds one line
 * at a time followed by its own terminator, so a stray CR (or LF in a CR-only file) inside a line
 * stays data, as the fast scanner keeps it, instead of silently splitting the row in two. */
static int term_lf(unsigned char c)
{
	return c == '\n';
}

static int term_cr(unsigned char c)
{
	return c == '\r';
}

static bool is_blank(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] != ' ' && s[i] != '\t')
			return false;
	return true;
}

/* ---- line framing ---- */

static int fill(struct pdh_reader *r)
{
	if (r->start > 0 && (r->start == r->end || r->start > r->cap / 2 || r->end + PDH_TAIL >= r->cap)) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->scanned -= r->start;
		r->start = 0;
	}
	/* PDH_TAIL spare bytes always stay free past the data: fast_row's sentinel, and the word-wide
	 * quote search may look up to 7 bytes past it (they are zeroed: never uninitialised). */
	if (r->end + PDH_TAIL >= r->cap) {
		r->cap *= 2;
		r->buf = xrealloc(r->buf, r->cap);
	}
	long k = source_read(r->src, r->buf + r->end, r->cap - r->end - PDH_TAIL, r->d);
	if (k < 0)
		return (int)k;
	if (k == 0)
		r->eof = true;
	r->end += (size_t)k;
	memset(r->buf + r->end, 0, PDH_TAIL);
	return 0;
}

/* Hands out the next line (without its terminator). 1 = line, 0 = end, < 0 = error. */
static int read_line(struct pdh_reader *r, char **line, size_t *len)
{
	for (;;) {
		if (r->scanned < r->start)
			r->scanned = r->start;
		char *p = memchr(r->buf + r->scanned, r->term, r->end - r->scanned);
		if (p && r->skipping) {
			r->start = r->scanned = (size_t)(p - r->buf) + 1;
			r->skipping = false;
			r->line_no++;
			r->st.skipped_rows++;
			diag_emit(r->d, DIAG_WARNING, r->line_no, 0,
				  "line longer than %u MiB (a runaway quote or binary data?); skipped", PDH_MAX_LINE >> 20);
			continue;
		}
		if (p) {
			*line = r->buf + r->start;
			*len = (size_t)(p - *line);
			r->start = (size_t)(p - r->buf) + 1;
			r->scanned = r->start;
			if (r->term == '\n' && *len && (*line)[*len - 1] == '\r')
				(*len)--;
			r->line_no++;
			return 1;
		}
		r->scanned = r->end;
		if (r->eof && r->skipping) {
			r->skipping = false;
			r->line_no++;
			r->st.skipped_rows++;
			diag_emit(r->d, DIAG_WARNING, r->line_no, 0,
				  "last line longer than %u MiB and never ends (a runaway quote or binary data?); skipped",
				  PDH_MAX_LINE >> 20);
			return 0;
		}
		if (r->eof) {
			if (r->end > r->start) {
				*line = r->buf + r->start;
				*len = r->end - r->start;
				r->start = r->scanned = r->end;
				r->line_no++;
				r->last_unterminated = true;
				return 1;
			}
			return 0;
		}
		if (r->end - r->start + PDH_TAIL >= PDH_MAX_LINE) {
			if (!r->want) { /* still looking for the header: nothing to keep */
				diag_emit(r->d, DIAG_ERROR, r->line_no + 1, 0,
					  "line longer than %u MiB while looking for the PDH-CSV header (real headers are a "
					  "few MB); not a capture this tool reads",
					  PDH_MAX_LINE >> 20);
				return ERR_LIMIT;
			}
			r->skipping = true;
			r->start = r->scanned = r->end;
		}
		int rc = fill(r);
		if (rc < 0)
			return rc;
	}
}

static int feed(struct pdh_reader *r, const char *line, size_t len)
{
	r->cur_line = r->line_no;
	if (csv_parse(&r->csv, line, len, cb_field, cb_row, r) != len ||
	    csv_parse(&r->csv, &r->term, 1, cb_field, cb_row, r) != 1) {
		int e = csv_error(&r->csv);
		if (e == CSV_ENOMEM || e == CSV_ETOOBIG) {
			diag_emit(r->d, DIAG_ERROR, r->line_no, 0,
				  "a field grows beyond %u MiB (unterminated quote starting at line %ld?)",
				  PDH_MAX_FIELD >> 20, r->row_line);
			return ERR_LIMIT;
		}
		diag_emit(r->d, DIAG_ERROR, r->line_no, 0, "CSV error: %s", csv_strerror(e));
		return ERR_FORMAT;
	}
	return 0;
}

static void mt_stop(struct pdh_reader *r);

/* ---- open ---- */

static bool is_header_line(const char *s, size_t n)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	if (n && *s == '"') {
		s++;
		n--;
	}
	return n >= 5 && memcmp(s, "(PDH-", 5) == 0;
}

/* Decides the line terminator from the first bytes: CR-only files (old Mac / some Excel saves)
 * are framed on '\r'; everything else on '\n' with a trailing '\r' dropped. The line ends seen in
 * the first buffer vote: a junk line with progress CRs before the header (stderr of resxtop or
 * ssh mixed in with &>) must not turn an LF file into one unreadable CR-framed line. */
static int detect_terminator(struct pdh_reader *r)
{
	size_t from = r->start, lf = 0, cr = 0;
	for (;;) {
		/* a CR as the last byte read may be half a CRLF: look at it again after the next read */
		size_t stop = r->end;
		if (!r->eof && stop > from && r->buf[stop - 1] == '\r')
			stop--;
		/* (memchr, not a loop over every byte: the first buffer is 1 MiB, a header up to 64) */
		for (const char *p = r->buf + from, *e = r->buf + stop; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
			lf++;
		for (const char *p = r->buf + from, *e = r->buf + stop; (p = memchr(p, '\r', (size_t)(e - p))) != NULL; p++)
			if (p + 1 == r->buf + r->end || p[1] != '\n')
				cr++;
		from = stop;
		if (lf + cr > 0) {
			r->term = cr > lf ? '\r' : '\n';
			return 0;
		}
		/* no line end yet: LF, and read_line applies the line limit to this first line */
		if (r->eof || r->end - r->start + PDH_TAIL >= PDH_MAX_LINE) {
			r->term = '\n';
			return 0;
		}
		int rc = fill(r);
		if (rc < 0)
			return rc;
	}
}

/* Data Collector Sets may add their description as a last header column whose values are always
 * " " (doc/domain.md §8); a last column whose name is not a counter path but which holds numbers is a
 * counter all the same. The header is read before the rows, so this looks ahead at the first data
 * lines without consuming them: PDH_PEEK_ROWS lines (the first row of a rate counter is " ", so
 * one is not enough), reading more only while less than PDH_PEEK_BYTES are buffered after the
 * header. Only whole lines with the header's field count are judged. Returns 1 when the last
 * field of one of them is a number, 0 when none is (all blank, text, or no whole line), or a
 * negative ERR_* from the source (message in d). */
#define PDH_PEEK_ROWS 16
#define PDH_PEEK_BYTES (4u << 20)

static int last_field_has_numbers(struct pdh_reader *r)
{
	const char delim = r->tsv ? '\t' : ',';
	size_t at = 0; /* offset from r->start of the next line to look at (fill may move the data) */
	for (int rows = 0; rows < PDH_PEEK_ROWS;) {
		const char *base = r->buf + r->start;
		size_t avail = r->end - r->start;
		const char *nl = at < avail ? memchr(base + at, r->term, avail - at) : NULL;
		if (!nl) {
			if (r->eof || avail >= PDH_PEEK_BYTES)
				return 0;
			int rc = fill(r);
			if (rc < 0)
				return rc;
			continue;
		}
		const char *l = base + at;
		size_t n = (size_t)(nl - l);
		at += n + 1;
		if (r->term == '\n' && n && l[n - 1] == '\r')
			n--;
		if (n == 0 || is_blank(l, n))
			continue;
		rows++;
		size_t nf = 1, last = 0;
		bool quoted = false;
		for (size_t i = 0; i < n; i++) {
			if (l[i] == '"')
				quoted = !quoted;
			else if (l[i] == delim && !quoted) {
				nf++;
				last = i + 1;
			}
		}
		if (quoted || nf != r->nhf)
			continue;
		const char *v = l + last;
		size_t vn = n - last;
		while (vn && *v == ' ') {
			v++;
			vn--;
		}
		while (vn && v[vn - 1] == ' ')
			vn--;
		if (vn >= 2 && v[0] == '"' && v[vn - 1] == '"') {
			v++;
			vn -= 2;
		}
		double x;
		if (vn && parse_number(v, vn, &x))
			return 1;
	}
	return 0;
}

bool pdh_head_line(const char *head, size_t n, const char **line, size_t *len)
{
	const char *p = head, *end = head + n;
	for (long k = 0; p < end && k <= PDH_MAX_JUNK_LINES; k++) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t l = (size_t)((nl ? nl : end) - p);
		if (is_header_line(p, l)) {
			*line = p;
			*len = l && p[l - 1] == '\r' ? l - 1 : l;
			return true;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return false;
}

bool pdh_head_host(const char *head, size_t n, char *host, size_t cap)
{
	const char *line;
	size_t len;
	if (!pdh_head_line(head, n, &line, &len))
		return false;
	const char *bs = memmem(line, len, "\\\\", 2);
	if (!bs)
		return false;
	bs += 2;
	size_t rest = len - (size_t)(bs - line), k = 0;
	while (k < rest && !strchr("\\\"\r\n,", bs[k]))
		k++;
	if (!k || k >= cap || k == rest || bs[k] != '\\')
		return false;
	memcpy(host, bs, k);
	host[k] = '\0';
	return true;
}

/* The header's names with bidirectional control characters shown as U+FFFD (arena copies,
 * neutralised in place), each column warned at its line. */
static void header_bidi(struct pdh_reader *r, struct diag *d)
{
	for (size_t i = 0; i < r->nhf; i++)
		if (utf8_bidi_neutralise((char *)(uintptr_t)r->hf[i].s, r->hf[i].n))
			diag_emit(d, DIAG_WARNING, r->header_line, (long)i + 1,
				  "bidirectional control characters in the header's names: shown as U+FFFD");
}

/* The header through the field scanner (fieldscan.h) instead of libcsv: a multi-MB line of
 * 10,000-100,000 quoted names cost libcsv ~35 instructions per byte. The scanner frames exactly as
 * libcsv does (with the glued-field split the header always gets) whenever it accepts the line;
 * when it does not, this returns 0 and the header goes to libcsv as before. One pass counts the
 * fields, a second finds them all; the line is copied into the arena once and each name is
 * terminated in place (the byte after a field's text is a quote, a blank or a delimiter, never
 * another field's text). Returns 1 when the header was read. */
static int header_fast(struct pdh_reader *r, const char *line, size_t len)
{
	if (r->opt.no_fast_path || len > UINT32_MAX - 1)
		return 0;
	const char delim = r->tsv ? '\t' : ',';
	const unsigned char first = 1;
	struct fieldscan_plan p;
	if (fieldscan_plan_init(&p, &first, 1, delim, false) < 0)
		return 0;
	struct fieldscan_span sp0;
	size_t nf = 0;
	bool glue = false, ok = fieldscan_line(&p, line, len, &sp0, &nf);
	if (!ok) { /* esxtop -a: a glued field in the header; the rows then have it too */
		p.glue = true;
		ok = glue = fieldscan_line(&p, line, len, &sp0, &nf);
	}
	fieldscan_plan_free(&p);
	if (!ok || nf == 0)
		return 0;
	if (nf > (size_t)PDH_MAX_COLUMNS + 1) { /* as header_add counts them: pdh_open reports it */
		r->nhf = (size_t)PDH_MAX_COLUMNS + 1;
		r->nhf_over = nf - r->nhf;
		r->glue = glue;
		return 1;
	}
	unsigned char *want = xmalloc(nf);
	memset(want, 1, nf);
	struct fieldscan_span *sp = xmalloc(nf * sizeof *sp);
	size_t nf2 = 0;
	ok = fieldscan_plan_init(&p, want, nf, delim, glue) == 0;
	free(want);
	if (ok) {
		ok = fieldscan_line(&p, line, len, sp, &nf2) && nf2 == nf;
		fieldscan_plan_free(&p);
	}
	if (!ok) {
		free(sp);
		return 0;
	}
	char *copy = arena_strndup(&r->arena, line, len);
	free(r->hf);
	r->hf = xmalloc(nf * sizeof *r->hf);
	r->hf_cap = nf;
	for (size_t i = 0; i < nf; i++) {
		copy[sp[i].off + sp[i].len] = '\0';
		r->hf[i].s = copy + sp[i].off;
		r->hf[i].n = sp[i].len;
	}
	r->nhf = nf;
	r->glue = glue;
	free(sp);
	return 1;
}

const char *pdh_blg_hint(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	if (n < 4 || strcasecmp(path + n - 4, ".blg") != 0)
		return NULL;
	return "binary perfmon log: convert it with 'relog FILE.blg -f csv -o FILE.csv'";
}

/* The format the reader reads: the one reader_open probed, the one --format names (a header
 * that contradicts it is said), or, for a direct caller, the table's probe of the header line. */
static int choose_format(struct pdh_reader *r, const struct pdh_options *o, const char *line, size_t len)
{
	if (o->probed) {
		r->fmt = o->probed; /* reader_open probed the head: this reader only reads */
	} else if (o->format && strcmp(o->format, "auto") != 0) {
		r->fmt = parser_find(o->format);
		if (r->fmt && r->fmt->open != pdh_rd_open)
			r->fmt = NULL; /* a format with its own reader (parser_register): not this framing */
		if (!r->fmt) {
			diag_emit(r->d, DIAG_ERROR, 0, 0, "unknown format '%s' (formats: %s)", o->format,
				  parser_names());
			return ERR_USAGE;
		}
		/* a forced format the header contradicts is read as asked, but said: the forced probe
		 * sees nothing while another sees its format, or another is certain (its own objects)
		 * where the forced one only recognises the PDH framing */
		int conf, forced = r->fmt->probe(line, len);
		const struct parser_ops *seen = parser_probe(line, len, &conf);
		if (seen && seen != r->fmt && conf > forced && (forced == 0 || conf >= 90))
			diag_emit(r->d, DIAG_WARNING, r->header_line, 0,
				  "the header looks like %s, read as %s as --format says", seen->name, r->fmt->name);
	} else { /* pdh_open called directly (tests), or a head no format recognised: the table says */
		int conf;
		r->fmt = parser_probe(line, len, &conf);
		if (!r->fmt || conf == 0) {
			diag_emit(r->d, DIAG_ERROR, r->header_line, 0, "cannot detect the capture format (formats: %s)",
				  parser_names());
			return ERR_FORMAT;
		}
	}
	return 0;
}

int pdh_open(struct pdh_reader **out, struct source *src, const struct pdh_options *o, struct diag *d)
{
	*out = NULL;
	struct pdh_reader *r = xcalloc(1, sizeof *r);
	r->src = src;
	r->d = d;
	r->opt = *o;
	arena_init(&r->arena);
	buf_init(&r->rowbuf);
	r->cap = PDH_CHUNK;
	r->buf = xmalloc(r->cap);
	int rc = fill(r);
	if (rc < 0)
		goto fail;
	if (r->end == 0 && r->eof) {
		diag_emit(d, DIAG_ERROR, 0, 0, "empty file: no PDH-CSV header (expected an esxtop -b or perfmon CSV)");
		rc = ERR_FORMAT;
		goto fail;
	}
	if (memchr(r->buf, '\0', r->end < 4096 ? r->end : 4096)) {
		const char *blg = pdh_blg_hint(src->name);
		if (blg)
			diag_emit(d, DIAG_ERROR, 0, 0, "%s", blg);
		else
			diag_emit(d, DIAG_ERROR, 0, 0,
				  "binary data (NUL bytes) where a CSV text header should be; not an esxtop or perfmon CSV");
		rc = ERR_FORMAT;
		goto fail;
	}
	if ((rc = detect_terminator(r)) < 0)
		goto fail;

	/* Find the header, skipping junk lines (resxtop banners, stderr mixed in). */
	char *line;
	size_t len;
	for (;;) {
		rc = read_line(r, &line, &len);
		if (rc < 0)
			goto fail;
		if (rc == 0 || r->st.junk_lines >= PDH_MAX_JUNK_LINES) {
			const char *blg = pdh_blg_hint(src->name);
			if (blg)
				diag_emit(d, DIAG_ERROR, 0, 0, "%s", blg);
			else
				diag_emit(d, DIAG_ERROR, 0, 0,
					  "no \"(PDH-CSV 4.0)\" header in the first %ld lines; not a capture this tool "
					  "reads (formats: %s)", r->line_no, parser_names());
			rc = ERR_FORMAT;
			goto fail;
		}
		if (is_header_line(line, len))
			break;
		if (len > 0 || r->line_no == 1)
			r->st.junk_lines++;
	}
	r->header_line = r->line_no;
	if (r->st.junk_lines)
		diag_emit(d, DIAG_WARNING, r->header_line, 0, "skipped %ld line%s before the PDH-CSV header",
			  r->st.junk_lines, r->st.junk_lines == 1 ? "" : "s");
	{
		const char *q = line;
		while (*q == ' ' || *q == '\t')
			q++;
		r->excel = *q != '"';
		r->tsv = len > 9 && memmem(line, len < 64 ? len : 64, "PDH-TSV", 7) != NULL;
	}
	rc = choose_format(r, o, line, len);
	if (rc < 0)
		goto fail;
	if (csv_init(&r->csv, 0) != 0) {
		rc = ERR_NOMEM;
		goto fail;
	}
	r->csv_ready = true;
	csv_set_realloc_func(&r->csv, capped_realloc);
	csv_set_blk_size(&r->csv, 1 << 16);
	csv_set_term_func(&r->csv, r->term == '\r' ? term_cr : term_lf);
	if (r->tsv)
		csv_set_delim(&r->csv, '\t');
	r->in_header = true;
	if (!header_fast(r, line, len)) {
		rc = feed(r, line, len);
		if (rc < 0)
			goto fail;
		if (!r->row_done) {
			/* PDH-CSV never has a newline inside a field: a line is a record. */
			diag_emit(d, DIAG_ERROR, r->header_line, 0, "unterminated quote in the header line");
			rc = ERR_FORMAT;
			goto fail;
		}
	}
	r->row_done = false;
	r->in_header = false;
	if (r->nhf_over) {
		diag_emit(d, DIAG_ERROR, r->header_line, 0,
			  "the header has %zu columns, more than the %u this tool reads (captures have up to a few "
			  "100,000); is this a capture?", r->nhf + r->nhf_over - 1, PDH_MAX_COLUMNS);
		rc = ERR_LIMIT;
		goto fail;
	}
	if (r->nhf < 1) {
		diag_emit(d, DIAG_ERROR, r->header_line, 0, "empty header");
		rc = ERR_FORMAT;
		goto fail;
	}
	header_bidi(r, d);
	rc = r->fmt->header(r->hf[0].s, r->hf[0].n, o, &r->hi, d);
	if (rc < 0)
		goto fail;
	if (!r->hi.bias_known) {
		r->hi.bias_min = o->tz_given ? o->tz_bias_min : 0;
		if (r->fmt->local_time)
			diag_emit(d, DIAG_WARNING, r->header_line, 1,
				  "header has no time-zone bias (non-English Windows truncates it, typeperf omits it); "
				  "%s", o->tz_given ? "using --tz" : "assuming UTC, give --tz to correct");
	}
	r->nfields = r->nhf;
	size_t last = r->nhf; /* exclusive end of counter fields */
	if (last > 1 && r->hf[last - 1].n == 0) {
		last--; /* esxtop: every line ends with a comma */
	} else if (last > 1 && r->fmt->local_time && !(r->hf[last - 1].n >= 2 && r->hf[last - 1].s[0] == '\\' &&
							 r->hf[last - 1].s[1] == '\\')) {
		/* a Data Collector Set description, unless its values are numbers */
		rc = last_field_has_numbers(r);
		if (rc < 0)
			goto fail;
		if (rc == 0) {
			diag_emit(d, DIAG_NOTE, r->header_line, (long)last,
				  "last header column is not a counter path (a Data Collector Set description); ignored");
			last--;
		}
	}
	r->ncols = last - 1;
	r->cols = xcalloc(r->ncols ? r->ncols : 1, sizeof *r->cols);
	for (size_t i = 0; i < r->ncols; i++) {
		struct pdh_column *c = &r->cols[i];
		c->name = r->hf[i + 1].s;
		c->name_len = r->hf[i + 1].n;
		c->field = (long)i + 2;
		pdh_split_path(c->name, c->name_len, &c->path, &r->arena);
	}
	if (r->excel)
		diag_emit(d, DIAG_WARNING, r->header_line, 0,
			  "quotes are missing: the file looks re-saved by a spreadsheet (Excel); large values may "
			  "have lost precision (e.g. 2.20E+12)");
	free(r->hf);
	r->hf = NULL;
	r->want = xcalloc(r->nfields, 1);
	r->off = xcalloc(r->nfields, sizeof *r->off);
	r->len = xcalloc(r->nfields, sizeof *r->len);
	for (size_t f = 1; f < r->nfields; f++)
		r->want[f] = 1;
	r->base.ops = r->fmt;
	*out = r;
	return 0;
fail:
	pdh_close(r);
	return rc;
}

void pdh_close(struct pdh_reader *r)
{
	if (!r)
		return;
	mt_stop(r);
	if (r->csv_ready)
		csv_free(&r->csv);
	arena_free(&r->arena);
	buf_free(&r->rowbuf);
	free(r->buf);
	free(r->hf);
	free(r->cols);
	free(r->want);
	free(r->off);
	free(r->len);
	free(r->val);
	if (r->plan_ready)
		fieldscan_plan_free(&r->plan);
	free(r->spans);
	free(r);
}

const struct parser_ops *pdh_parser(const struct pdh_reader *r) { return r->fmt; }
const struct pdh_header_info *pdh_header_info(const struct pdh_reader *r) { return &r->hi; }
size_t pdh_ncols(const struct pdh_reader *r) { return r->ncols; }
const struct pdh_column *pdh_column(const struct pdh_reader *r, size_t i) { return &r->cols[i]; }
long pdh_header_line(const struct pdh_reader *r) { return r->header_line; }
bool pdh_is_tsv(const struct pdh_reader *r) { return r->tsv; }
bool pdh_is_excel(const struct pdh_reader *r) { return r->excel; }
const struct pdh_stats *pdh_stats(const struct pdh_reader *r) { return &r->st; }

/* The reader half of parser_ops (PDH_READER): a struct reader * is a struct pdh_reader *. */
#define PR(rd) ((struct pdh_reader *)(rd))
#define CPR(rd) ((const struct pdh_reader *)(rd))
int pdh_rd_open(struct reader **out, struct source *src, const struct pdh_options *o, struct diag *d)
{
	struct pdh_reader *r;
	int rc = pdh_open(&r, src, o, d);
	*out = rc < 0 ? NULL : &r->base;
	return rc;
}
size_t pdh_rd_ncols(const struct reader *r) { return CPR(r)->ncols; }
const struct pdh_column *pdh_rd_column(const struct reader *r, size_t i) { return &CPR(r)->cols[i]; }
void pdh_rd_facts(const struct reader *rd, struct reader_facts *f)
{
	const struct pdh_reader *r = CPR(rd);
	f->hi = r->hi;
	f->header_line = r->header_line;
	f->tsv = r->tsv;
	f->excel = r->excel;
}
void pdh_rd_select(struct reader *r, const bool *want) { pdh_select(PR(r), want); }
int pdh_rd_next(struct reader *r, struct pdh_row *row) { return pdh_next(PR(r), row); }
bool pdh_rd_value(struct reader *r, size_t i, double *v) { return pdh_value(PR(r), i, v); }
const char *pdh_rd_text(const struct reader *r, size_t i, size_t *len) { return pdh_text(CPR(r), i, len); }
const struct pdh_stats *pdh_rd_stats(const struct reader *r) { return &CPR(r)->st; }
void pdh_rd_close(struct reader *r) { pdh_close(PR(r)); }

void pdh_select(struct pdh_reader *r, const bool *want)
{
	for (size_t i = 0; i < r->ncols; i++)
		r->want[r->cols[i].field - 1] = want ? want[i] : 1;
	if (r->plan_ready) { /* the field scanner's plan is made from want at the first row */
		fieldscan_plan_free(&r->plan);
		r->plan_ready = false;
		free(r->spans);
		r->spans = NULL;
	}
}

/* ---- rows ---- */

/* A DST change at the row of UTC time t and local time local: recorded for the reports' local
 * time (pdh_stats.dst_*). */
static void dst_note(struct pdh_reader *r, int64_t t, int64_t local)
{
	if (r->st.ndst < PDH_MAX_DST) {
		r->st.dst_at[r->st.ndst] = t;
		r->st.dst_off_min[r->st.ndst] = (int)((local - t) / 60000);
		r->st.ndst++;
	}
}

static bool accept_row(struct pdh_reader *r, struct pdh_row *row)
{
	bool open_quote = r->open_quote;
	r->open_quote = false;
	if (r->row_fields != r->nfields || open_quote) {
		r->st.skipped_rows++;
		if (r->last_unterminated && r->row_fields <= r->nfields)
			diag_emit(r->d, DIAG_WARNING, r->row_line, 0,
				  "truncated last line (%zu of %zu fields%s, no end of line; capture cut short?); row skipped",
				  r->row_fields, r->nfields, open_quote ? ", open quote" : "");
		else if (open_quote)
			diag_emit(r->d, DIAG_WARNING, r->row_line, 0,
				  "unterminated quote (a quote opens and never closes on this line); row skipped");
		else
			diag_emit(r->d, DIAG_WARNING, r->row_line, 0, "row has %zu fields, the header has %zu; row skipped",
				  r->row_fields, r->nfields);
		return false;
	}
	int64_t t;
	if (r->ts_long || pdh_parse_time(r->ts, r->ts_len, &t) < 0) {
		struct buf b;
		buf_init(&b);
		buf_add_text_escaped(&b, r->ts, r->ts_len);
		r->st.skipped_rows++;
		diag_emit(r->d, DIAG_WARNING, r->row_line, 1,
			  "bad time stamp \"%s%s\" (expected MM/DD/YYYY HH:MM:SS); row skipped", b.data,
			  r->ts_long ? "..." : "");
		buf_free(&b);
		return false;
	}
	int64_t local = t;
	if (r->opt.tz && !r->opt.tz->fixed && !r->hi.bias_known && r->fmt->local_time)
		t = tz_local_to_utc_ms(r->opt.tz, local, r->have_prev ? r->prev_t : INT64_MIN) + r->shift_ms;
	else
		t += (int64_t)r->hi.bias_min * 60000 + r->shift_ms;
	row->discontinuity = false;
	int64_t gap = r->have_prev ? t - r->prev_t : 0;
	int local_hour = (int)((local / 3600000) % 24), prev_hour = (int)((r->prev_local / 3600000) % 24);
	if (r->have_prev && r->fmt->local_time && prev_hour == 1 && local_hour == 3 && gap > 3600 * 1000 &&
	    gap - 3600 * 1000 <= (r->last_gap > 60000 ? 2 * r->last_gap : 120000)) {
		/* spring: the wall clock jumps from 02:00 to 03:00 while the header's bias stays the
		 * winter one, so later rows would be an hour late in UTC */
		r->shift_ms -= 3600 * 1000;
		t -= 3600 * 1000;
		gap -= 3600 * 1000;
		r->st.dst_shifts++;
		dst_note(r, t, local);
		row->discontinuity = true;
		diag_emit(r->d, DIAG_WARNING, r->row_line, 1,
			  "local time jumps from 01:xx to 03:xx (start of daylight saving time?): this and later rows "
			  "shifted by -60 min so UTC stays continuous");
	}
	if (r->excel && r->have_prev && t == r->prev_t && ++r->st.same_time >= 2) {
		diag_emit(r->d, DIAG_ERROR, r->row_line, 1,
			  "several rows share the time stamp \"%s\": the spreadsheet that re-saved this file cut the "
			  "seconds, so the rows cannot be placed in time; export the original CSV again", r->ts);
		r->fatal = ERR_FORMAT;
		return false;
	}
	if (r->have_prev && t < r->prev_t) {
		int64_t back = r->prev_t - t;
		row->discontinuity = true;
		if (r->fmt->local_time && back >= 3000 * 1000 && back <= 3660 * 1000) {
			r->shift_ms += 3600 * 1000;
			t += 3600 * 1000;
			r->st.dst_shifts++;
			dst_note(r, t, local);
			diag_emit(r->d, DIAG_WARNING, r->row_line, 1,
				  "local time goes back %lld min (end of daylight saving time?): this and later rows "
				  "shifted by +60 min so UTC stays in order", (long long)(back / 60000));
		} else {
			r->st.backwards++;
			char a[32], b2[32];
			time_format_iso(r->prev_t, true, a);
			time_format_iso(t, true, b2);
			diag_emit(r->d, DIAG_WARNING, r->row_line, 1,
				  "time goes backwards (%s after %s); rows kept in file order, discontinuity marked", b2, a);
		}
	} else if (r->have_prev && t - r->prev_t > 366LL * 86400 * 1000) {
		row->discontinuity = true;
		diag_emit(r->d, DIAG_WARNING, r->row_line, 1, "time jumps forward by more than a year; discontinuity marked");
	}
	if (r->have_prev)
		r->last_gap = t - r->prev_t;
	r->prev_t = t;
	r->prev_local = local;
	r->have_prev = true;
	row->t_ms = t;
	row->local_ms = local;
	row->line = r->row_line;
	r->st.rows++;
	return true;
}

/* Fast path for the common, well-formed line (every field either quoted without embedded quotes
 * or unquoted without quotes, and the -a glued field): the field scanner (fieldscan.h) finds the
 * selected fields without visiting the others, and their text stays in the line buffer, which
 * holds until the next read. libcsv stays the reference: anything unusual (escaped quotes, a quote
 * in an unquoted field, an open quote, spaces before a quote) makes this return false and the line
 * goes to libcsv, which handles every case. The differential tests in check_pdh.c and the fuzzers
 * hold the two equal, for every dispatch level. */
static bool fast_plan(struct pdh_reader *r)
{
	if (!r->plan_ready) {
		if (fieldscan_plan_init(&r->plan, r->want, r->nfields, r->tsv ? '\t' : ',', r->glue) < 0)
			return false;
		r->plan_ready = true;
		r->spans = xcalloc(r->plan.nwanted, sizeof *r->spans);
	}
	return true;
}

/* The row of a line the field scanner took (spans of the plan's fields, nf fields). */
static void fast_apply(struct pdh_reader *r, const char *line, const struct fieldscan_span *sp, size_t nf,
		       const double *vals)
{
	const uint32_t *w = r->plan.wanted;
	size_t n = sp[0].len;
	r->ts_long = n >= sizeof r->ts;
	if (r->ts_long)
		n = sizeof r->ts - 1;
	memcpy(r->ts, line + sp[0].off, n);
	r->ts[n] = '\0';
	r->ts_len = n;
	if (vals) {
		for (size_t i = 1; i < r->plan.nwanted && w[i] < nf; i++) {
			r->off[w[i]] = sp[i].off;
			r->len[w[i]] = sp[i].len;
			r->val[w[i]] = vals[i];
		}
	} else {
		for (size_t i = 1; i < r->plan.nwanted && w[i] < nf; i++) {
			r->off[w[i]] = sp[i].off;
			r->len[w[i]] = sp[i].len;
		}
	}
	r->row_vals = vals != NULL;
	r->text_base = line;
	r->row_line = r->line_no;
	r->row_fields = nf;
	r->row_done = true;
}

static bool fast_row(struct pdh_reader *r, char *line, size_t len)
{
	if (!fast_plan(r))
		return false;
	size_t nf;
	if (!fieldscan_line(&r->plan, line, len, r->spans, &nf))
		return false;
	fast_apply(r, line, r->spans, nf, NULL);
	return true;
}

/* ---- rows read by threads (mtread.h) ---- */

/* mtread's input: what the header left in the buffer, then the source. */
static long mt_pull(void *ctx, char *out, size_t n, struct diag *d)
{
	struct pdh_reader *r = ctx;
	if (r->start < r->end) {
		size_t k = r->end - r->start < n ? r->end - r->start : n;
		memcpy(out, r->buf + r->start, k);
		r->start += k;
		return (long)k;
	}
	if (r->buf) {
		/* drained: the chunks hold the lines from here on, and the line buffer (as big as the
		 * header, tens of MB for 300,000 columns) goes; mt_rest makes a new one if needed */
		free(r->buf);
		r->buf = NULL;
		r->cap = r->start = r->end = r->scanned = 0;
	}
	if (r->eof)
		return 0;
	long k = source_read(r->src, out, n, d);
	if (k == 0)
		r->eof = true;
	return k;
}

static int64_t mt_pos(void *ctx)
{
	const struct pdh_reader *r = ctx;
	return source_offset(r->src);
}

static void mt_progress(void *ctx, int64_t pos)
{
	struct pdh_reader *r = ctx;
	r->progress(r->progress_ctx, pos, r->src->total);
}

static void mt_stop(struct pdh_reader *r)
{
	if (!r->mt)
		return;
	mtread_close(r->mt);
	r->mt = NULL;
	r->src->progress = r->progress;
	r->src->progress_ctx = r->progress_ctx;
}

/* At the first row: threads when asked for (or, on auto, for a big uncompressed file), the
 * source is a file (a thread is never stuck in a read), and the fast path is on. */
static void mt_start(struct pdh_reader *r)
{
	r->mt_tried = true;
	int n = r->opt.threads;
	if (n == 0)
		n = r->src->plain && r->src->total >= (int64_t)PDH_MT_AUTO_MIN ? mtread_auto_threads() : 1;
	if (n < 2 || r->opt.no_fast_path || !source_never_blocks(r->src) || !fast_plan(r))
		return;
	/* about PDH_MT_CHUNK_ROWS rows a chunk, from the first row's length */
	size_t row = 0;
	const char *nl = r->end > r->start ? memchr(r->buf + r->start, r->term, r->end - r->start) : NULL;
	row = nl ? (size_t)(nl - (r->buf + r->start)) + 1 : r->end - r->start;
	size_t chunk = row * PDH_MT_CHUNK_ROWS;
	chunk = chunk < PDH_MT_CHUNK_MIN ? PDH_MT_CHUNK_MIN : chunk > PDH_MT_CHUNK_MAX ? PDH_MT_CHUNK_MAX : chunk;
	/* rows of a MiB and more (150,000 columns and more): a chunk of about one row, not two or
	 * three, as each of its rows also takes 16 bytes per column in spans and values (a chunk
	 * ends at the first line end after its size) */
	if (row >= PDH_MT_CHUNK_MAX / 4)
		chunk = row - row / 16;
	/* tests: small chunks put chunk ends everywhere in small files */
	const char *env = getenv("IOPSY_THREAD_CHUNK");
	if (env && *env) {
		char *end;
		unsigned long long v = strtoull(env, &end, 10);
		if (!*end && v >= 1 && v <= PDH_MT_CHUNK_MAX)
			chunk = (size_t)v;
	}
	struct mtread_opts o = {.threads = n, .chunk = chunk, .term = r->term, .plan = &r->plan, .values = true};
	if (!r->val)
		r->val = xcalloc(r->nfields, sizeof *r->val);
	struct mtread_src src = {.pull = mt_pull, .pos = mt_pos, .progress = r->src->progress ? mt_progress : NULL, .ctx = r};
	/* a reading thread must not call the caller's meter: mtread calls it on this thread (set
	 * before the threads start, which read the source at once) */
	r->progress = r->src->progress;
	r->progress_ctx = r->src->progress_ctx;
	r->src->progress = NULL;
	if (mtread_open(&r->mt, &o, &src, r->d) < 0) { /* no thread: one reads */
		r->src->progress = r->progress;
		r->src->progress_ctx = r->progress_ctx;
	}
}

/* A line too long for chunks: the rest of the input goes back to the one-thread reader. */
static void mt_rest(struct pdh_reader *r)
{
	size_t n;
	const char *rest = mtread_rest(r->mt, &n);
	if (r->cap < n + PDH_TAIL + 1) {
		r->cap = n + PDH_TAIL + 1;
		r->buf = xrealloc(r->buf, r->cap);
	}
	memcpy(r->buf, rest, n);
	r->start = r->scanned = 0;
	r->end = n;
	memset(r->buf + r->end, 0, PDH_TAIL);
	mt_stop(r);
}

int pdh_next(struct pdh_reader *r, struct pdh_row *row)
{
	if (!r->mt_tried)
		mt_start(r);
	for (;;) {
		char *line;
		size_t len;
		int rc;
		struct mtread_line ml;
		bool scanned = false;
		if (r->mt) {
			rc = mtread_next(r->mt, &ml);
			if (rc == MTREAD_REST) {
				mt_rest(r);
				continue;
			}
			if (rc <= 0)
				return rc;
			line = ml.s;
			len = ml.len;
			r->line_no++;
			if (ml.unterminated)
				r->last_unterminated = true;
			if (ml.blank)
				continue;
			scanned = true;
		} else {
			rc = read_line(r, &line, &len);
			if (rc <= 0)
				return rc;
			if (len == 0 || is_blank(line, len))
				continue; /* blank lines are not records (libcsv reports none for them either) */
		}
		bool fast = false;
		if (scanned && ml.fast) {
			fast_apply(r, line, ml.spans, ml.nfields, ml.values);
			fast = true;
		} else if (!scanned && !r->opt.no_fast_path) {
			fast = fast_row(r, line, len);
		}
		if (!fast) {
			rc = feed(r, line, len);
			if (rc < 0)
				return rc;
			if (!r->row_done) {
				/* An open quote at the end of the line (also in its first field, before
				 * any field was handed over). PDH-CSV never has a newline inside a field,
				 * so the record ends here: flushing it keeps one damaged line from
				 * swallowing the next ones or leaving libcsv mid-record. */
				if (csv_fini(&r->csv, cb_field, cb_row, r) != 0) {
					diag_emit(r->d, DIAG_ERROR, r->line_no, 0, "CSV error");
					return ERR_FORMAT;
				}
				r->open_quote = r->row_done;
			}
		}
		if (r->row_done) {
			r->row_done = false;
			if (r->excel && !r->first_row_seen && r->row_fields != r->nfields) {
				diag_emit(r->d, DIAG_ERROR, r->row_line, 0,
					  "the file was re-saved by a spreadsheet without quotes and its first row has %zu "
					  "fields for %zu header columns (commas inside counter names?); the columns cannot "
					  "be told apart — export the original CSV again with relog",
					  r->row_fields, r->nfields);
				return ERR_FORMAT;
			}
			r->first_row_seen = true;
			if (accept_row(r, row)) {
				/* the time window: every row is read, only those inside it are handed out */
				if (!r->st.have_t || row->t_ms < r->st.t_min)
					r->st.t_min = row->t_ms;
				if (!r->st.have_t || row->t_ms > r->st.t_max)
					r->st.t_max = row->t_ms;
				r->st.have_t = true;
				if (!r->opt.win_on || (row->t_ms >= r->opt.win_from && row->t_ms <= r->opt.win_to))
					return 1;
				r->st.outside++;
				r->st.rows--;
				continue;
			}
			if (r->fatal)
				return r->fatal;
		}
	}
}

const char *pdh_text(const struct pdh_reader *r, size_t i, size_t *len)
{
	size_t f = (size_t)r->cols[i].field - 1;
	if (!r->want[f]) {
		*len = 0;
		return "";
	}
	*len = r->len[f];
	return r->text_base ? r->text_base + r->off[f] : "";
}

bool pdh_value(struct pdh_reader *r, size_t i, double *v)
{
	if (r->row_vals) { /* read by a thread already; a value that is not a number is warned below */
		size_t f = (size_t)r->cols[i].field - 1;
		double x = r->val[f];
		if (!r->want[f] || isnan(x))
			return false;
		if (!isinf(x)) {
			if (r->fmt->glitch_values && (x == 4294967295.0 || x == 18446744073709551615.0)) {
				r->st.glitches++;
				return false;
			}
			*v = x;
			return true;
		}
	}
	size_t n;
	const char *s = pdh_text(r, i, &n);
	if (n == 0 || is_blank(s, n))
		return false;
	if (!parse_number(s, n, v)) {
		struct buf b;
		buf_init(&b);
		buf_add_text_escaped(&b, s, n > 40 ? 40 : n);
		struct buf c;
		buf_init(&c);
		buf_add_text_escaped(&c, r->cols[i].name, r->cols[i].name_len);
		r->st.nonnumeric++;
		diag_emit(r->d, DIAG_WARNING, r->row_line, r->cols[i].field,
			  "non-numeric value \"%s%s\" in %s; read as missing", b.data, n > 40 ? "..." : "", c.data);
		buf_free(&b);
		buf_free(&c);
		return false;
	}
	if (r->fmt->glitch_values && (*v == 4294967295.0 || *v == 18446744073709551615.0)) {
		r->st.glitches++;
		return false;
	}
	return true;
}
