/* fmt_vscsistats.c — VMware vscsiStats histograms (`vscsiStats -p all [-c]`, or one -p type): the
 * CSV form and the default text form, one or several virtual disks per file, several snapshots
 * (prints between resets) concatenated.
 *
 * A histogram has no time axis, so the reader interface carries it as a table (the choice recorded
 * in doc/architecture.md): each histogram of a virtual disk gives columns
 * "vscsiStats <kind>(<worldGroupID>:<scsiC:T>)\<field>" with the fields min, max, mean, count and
 * one per bucket as vscsiStats prints its limit ("<= 4096", the last "> 524288": a bucket holds the
 * IOs up to and including its limit, above the previous one). Row k is the k-th snapshot of every
 * histogram; its time stamp is k ms after 1970-01-01 (the file has no clock; the reader's facts say
 * so). The engine reads it through reader_* like any capture.
 *
 * Bad histograms (truncated: no min/max/mean/count or no overflow bucket; bucket counts that do not
 * add up to count; a kind this reader does not know; limits that differ from the disk's first
 * snapshot) are warned about at file:line and skipped; the rest is read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

#define VS_MAX_BYTES (256u << 20) /* a print of every VM's disks is a few MB at most */
#define VS_MAX_BUCKETS 64

/* The histograms vscsiStats prints: its title (after "Histogram: ") → a short kind name. */
static const struct {
	const char *title, *kind;
} vs_kinds[] = {
	{"IO lengths of commands", "ioLength"},
	{"IO lengths of Read commands", "ioLengthReads"},
	{"IO lengths of Write commands", "ioLengthWrites"},
	{"distance (in LBNs) between successive commands", "seekDistance"},
	{"distance (in LBNs) between successive Read commands", "seekDistanceReads"},
	{"distance (in LBNs) between successive Write commands", "seekDistanceWrites"},
	{"distance (in LBNs) between each command from the closest of previous 16", "seekDistanceLast16"},
	{"latency of IOs in Microseconds (us)", "latency"},
	{"latency of Read IOs in Microseconds (us)", "latencyReads"},
	{"latency of Write IOs in Microseconds (us)", "latencyWrites"},
	{"number of outstanding IOs when a new IO is issued", "outstandingIOs"},
	{"number of outstanding Read IOs when a new Read IO is issued", "outstandingIOsReads"},
	{"number of outstanding Write IOs when a new Write IO is issued", "outstandingIOsWrites"},
	{"latency of IO interarrival time in Microseconds (us)", "interarrival"},
	{"latency of IO interarrival time for Reads in Microseconds (us)", "interarrivalReads"},
	{"latency of IO interarrival time for Writes in Microseconds (us)", "interarrivalWrites"},
};
#define VS_NKINDS (sizeof vs_kinds / sizeof vs_kinds[0])

/* One histogram as read from the file. */
struct vs_histo {
	int kind;
	char disk[96];           /* "2099979:scsi0:0" */
	long line;
	double head[4];          /* min, max, mean, count */
	int nhead;               /* how many of them were read (bit i: head[i]) */
	int nb;
	double freq[VS_MAX_BUCKETS], limit[VS_MAX_BUCKETS];
	bool gt;                 /* the last bucket is the overflow (> limit) */
};

/* A (kind, disk) series: its first column and bucket limits, and how many snapshots it has. */
struct vs_series {
	int kind;
	char disk[96];
	size_t col0;
	int nb;
	double limit[VS_MAX_BUCKETS];
	long nsnap;
};

struct vs_reader {
	struct reader base;      /* first (parser.h) */
	struct arena a;
	struct pdh_column *cols;
	size_t ncols, cap;
	struct vs_series *ser;
	size_t nser, ser_cap;
	double *vals;            /* nrows × ncols, NaN = missing */
	long nrows, rows_cap;
	long *row_line;
	long row;                /* the current row (next), -1 before the first */
	struct pdh_stats st;
	struct diag *d;
	char text[40];
};

#define VR(r) ((struct vs_reader *)(r))
#define CVR(r) ((const struct vs_reader *)(r))

/* ---- probing: "Histogram: <a title vscsiStats prints>" near the top ---- */

static int vs_probe(const char *head, size_t n)
{
	const char *p = head, *end = head + (n < 65536 ? n : 65536);
	for (int k = 0; p < end && k < 50; k++) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
			p++;
		if ((size_t)(end - p) > 11 && memcmp(p, "Histogram: ", 11) == 0) {
			for (size_t i = 0; i < VS_NKINDS; i++) {
				size_t t = strlen(vs_kinds[i].title);
				if ((size_t)(end - p) > 11 + t && memcmp(p + 11, vs_kinds[i].title, t) == 0)
					return memmem(p, (size_t)(end - p), "worldGroupID", 12) ? 95 : 60;
			}
			return 40;
		}
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			break;
		p = nl + 1;
	}
	return 0;
}

/* ---- the title line: kind and disk ---- */

/* "Histogram: TITLE,virtual machine worldGroupID,GID,virtual disk handleID,HID (scsi0:0)" or
 * "Histogram: TITLE for virtual machine worldGroupID : GID, virtual disk handleID : HID (scsi0:0) {".
 * Sets *kind (-1: not one this reader knows) and disk. */
static void vs_title(const char *l, size_t n, int *kind, char *disk, size_t cap)
{
	*kind = -1;
	l += 11;
	n -= 11;
	for (size_t i = 0; i < VS_NKINDS; i++) {
		size_t t = strlen(vs_kinds[i].title);
		if (n >= t && memcmp(l, vs_kinds[i].title, t) == 0 && (n == t || l[t] == ',' || l[t] == ' ')) {
			*kind = (int)i;
			break;
		}
	}
	char line[512];
	class_copy(line, sizeof line, l, n);
	long gid = -1, hid = -1;
	const char *g = strstr(line, "worldGroupID"), *h = strstr(line, "handleID");
	if (g)
		gid = strtol(g + 12 + strspn(g + 12, " :,"), NULL, 10);
	if (h)
		hid = strtol(h + 8 + strspn(h + 8, " :,"), NULL, 10);
	const char *sc = h ? strstr(h, "(scsi") : NULL;
	char tgt[32] = "";
	if (sc) {
		size_t k = strcspn(sc + 1, ")");
		class_copy(tgt, sizeof tgt, sc + 1, k);
	}
	if (tgt[0])
		snprintf(disk, cap, "%ld:%s", gid, tgt);
	else
		snprintf(disk, cap, "%ld:handle%ld", gid, hid);
}

/* ---- one histogram's body lines ---- */

static bool vs_num(const char *s, double *v)
{
	char *e;
	while (*s == ' ' || *s == '\t')
		s++;
	*v = strtod(s, &e);
	if (e == s)
		return false;
	while (*e == ' ' || *e == '\t' || *e == '\r')
		e++;
	return *e == '\0';
}

/* A body line of either form into h; false when the line is not one (the histogram ends). */
static bool vs_body(struct vs_histo *h, char *l)
{
	static const char *const heads[] = {"min", "max", "mean", "count"};
	while (*l == ' ' || *l == '\t')
		l++;
	for (int i = 0; i < 4; i++) {
		size_t k = strlen(heads[i]);
		if (strncmp(l, heads[i], k) == 0 && (l[k] == ',' || l[k] == ' ' || l[k] == ':')) {
			const char *v = l + k + strspn(l + k, " :,");
			if (!vs_num(v, &h->head[i]))
				return false;
			h->nhead |= 1 << i;
			return true;
		}
	}
	if (strncmp(l, "Frequency", 9) == 0 || strcmp(l, "{") == 0 || strcmp(l, "{\r") == 0)
		return true;
	double f, lim;
	bool gt = false;
	char *c = strchr(l, ',');
	if (c) { /* CSV: "freq,limit" */
		*c = '\0';
		if (!vs_num(l, &f) || !vs_num(c + 1, &lim))
			return false;
		gt = h->nb > 0 && lim == h->limit[h->nb - 1];
	} else { /* text: "freq   (<=   limit)" or "freq   (>   limit)" */
		char *p = strchr(l, '(');
		if (!p)
			return false;
		*p = '\0';
		p++;
		if (p[0] == '<' && p[1] == '=')
			p += 2;
		else if (p[0] == '>')
			p++, gt = true;
		else
			return false;
		char *q = strchr(p, ')');
		if (q)
			*q = '\0';
		if (!vs_num(l, &f) || !vs_num(p, &lim))
			return false;
	}
	if (h->gt || h->nb == VS_MAX_BUCKETS)
		return false;
	h->freq[h->nb] = f;
	h->limit[h->nb++] = lim;
	h->gt = gt;
	return true;
}

/* ---- the table ---- */

static void vs_add_col(struct vs_reader *r, const char *kind, const char *disk, const char *field)
{
	if (r->ncols == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 64;
		r->cols = xrealloc(r->cols, r->cap * sizeof *r->cols);
	}
	char name[256];
	int n = snprintf(name, sizeof name, "vscsiStats %s(%s)\\%s", kind, disk, field);
	struct pdh_column *c = &r->cols[r->ncols];
	c->name = arena_strndup(&r->a, name, (size_t)n);
	c->name_len = (size_t)n;
	c->field = (long)r->ncols + 2;
	c->path.ok = true;
	c->path.host = NULL; /* vscsiStats names no host */
	char obj[64];
	snprintf(obj, sizeof obj, "vscsiStats %s", kind);
	c->path.object = arena_strndup(&r->a, obj, strlen(obj));
	c->path.instance = arena_strndup(&r->a, disk, strlen(disk));
	c->path.counter = arena_strndup(&r->a, field, strlen(field));
	r->ncols++;
}

static struct vs_series *vs_series_of(struct vs_reader *r, const struct vs_histo *h)
{
	for (size_t i = 0; i < r->nser; i++)
		if (r->ser[i].kind == h->kind && strcmp(r->ser[i].disk, h->disk) == 0)
			return &r->ser[i];
	if (r->nser == r->ser_cap) {
		r->ser_cap = r->ser_cap ? r->ser_cap * 2 : 16;
		r->ser = xrealloc(r->ser, r->ser_cap * sizeof *r->ser);
	}
	struct vs_series *s = &r->ser[r->nser++];
	memset(s, 0, sizeof *s);
	s->kind = h->kind;
	memcpy(s->disk, h->disk, sizeof s->disk);
	s->col0 = r->ncols;
	s->nb = h->nb;
	memcpy(s->limit, h->limit, sizeof s->limit);
	static const char *const heads[] = {"min", "max", "mean", "count"};
	for (int i = 0; i < 4; i++)
		vs_add_col(r, vs_kinds[h->kind].kind, h->disk, heads[i]);
	for (int b = 0; b < h->nb; b++) {
		char f[48];
		snprintf(f, sizeof f, "%s %.17g", b == h->nb - 1 ? ">" : "<=", h->limit[b]);
		vs_add_col(r, vs_kinds[h->kind].kind, h->disk, f);
	}
	return s;
}

/* Snapshots are kept as (series, snapshot, values) until the columns are all known. */
struct vs_cell {
	size_t ser;
	long snap, line;
	double v[4 + VS_MAX_BUCKETS];
};

/* Checks a finished histogram; a good one is appended to cells. */
static void vs_finish(struct vs_reader *r, struct vs_histo *h, struct vs_cell **cells, size_t *nc, size_t *cc)
{
	if (h->kind < 0)
		return;
	const char *why = NULL;
	double sum = 0;
	for (int b = 0; b < h->nb; b++)
		sum += h->freq[b];
	if (h->nhead != 15 || h->nb < 2 || !h->gt)
		why = "truncated (min, max, mean, count and buckets up to the overflow one '>' expected)";
	else if (sum != h->head[3])
		why = "its bucket counts do not add up to its count";
	struct vs_series *s = NULL;
	if (!why) {
		s = vs_series_of(r, h);
		if (s->nb != h->nb || memcmp(s->limit, h->limit, (size_t)h->nb * sizeof h->limit[0]) != 0)
			why = "its bucket limits differ from the first snapshot of this disk's histogram";
	}
	if (why) {
		diag_emit(r->d, DIAG_WARNING, h->line, 0, "vscsiStats %s histogram of %s skipped: %s (count %.17g, "
			  "buckets sum to %.17g)", vs_kinds[h->kind].kind, h->disk, why, h->head[3], sum);
		r->st.skipped_rows++;
		return;
	}
	if (*nc == *cc) {
		*cc = *cc ? *cc * 2 : 64;
		*cells = xrealloc(*cells, *cc * sizeof **cells);
	}
	struct vs_cell *c = &(*cells)[(*nc)++];
	c->ser = (size_t)(s - r->ser);
	c->snap = s->nsnap++;
	c->line = h->line;
	memcpy(c->v, h->head, sizeof h->head);
	memcpy(c->v + 4, h->freq, (size_t)h->nb * sizeof h->freq[0]);
}

/* Reads all of src (the files are small) into a NUL-terminated buffer. */
static char *vs_slurp(struct source *src, size_t *len, struct diag *d, int *rc)
{
	size_t cap = 1 << 16, n = 0;
	char *b = xmalloc(cap + 1);
	for (;;) {
		if (n == cap) {
			if (cap >= VS_MAX_BYTES) {
				diag_emit(d, DIAG_ERROR, 0, 0, "vscsiStats output larger than %u MiB: not read",
					  VS_MAX_BYTES >> 20);
				*rc = ERR_LIMIT;
				free(b);
				return NULL;
			}
			cap *= 2;
			b = xrealloc(b, cap + 1);
		}
		long k = source_read(src, b + n, cap - n, d);
		if (k < 0) {
			*rc = (int)k;
			free(b);
			return NULL;
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	b[n] = '\0';
	*len = n;
	return b;
}

/* Every line: a title starts a histogram, body lines fill it, anything else ends it (warned). */
static void vs_parse(struct vs_reader *r, char *b, size_t len, struct vs_cell **cells, size_t *nc)
{
	size_t cc = 0;
	struct vs_histo h = {.kind = -1};
	bool open = false;
	long line = 0;
	for (char *p = b, *end = b + len; p < end; line++) {
		char *nl = memchr(p, '\n', (size_t)(end - p));
		char *l = p;
		p = nl ? nl + 1 : end;
		if (nl)
			*nl = '\0';
		size_t n = strlen(l);
		while (n && (l[n - 1] == '\r' || l[n - 1] == ' '))
			l[--n] = '\0';
		char *t = l + strspn(l, " \t");
		if (strncmp(t, "Histogram: ", 11) == 0) {
			if (open)
				vs_finish(r, &h, cells, nc, &cc);
			memset(&h, 0, sizeof h);
			h.line = line + 1;
			vs_title(t, strlen(t), &h.kind, h.disk, sizeof h.disk);
			if (h.kind < 0) {
				diag_emit(r->d, DIAG_WARNING, h.line, 0,
					  "a vscsiStats histogram of a kind this tool does not know: skipped");
				r->st.skipped_rows++;
			}
			open = true;
			continue;
		}
		if (!*t || *t == '}' || (open && h.kind < 0))
			continue;
		if (open && vs_body(&h, t))
			continue;
		r->st.junk_lines++;
		diag_emit(r->d, DIAG_WARNING, line + 1, 0, "not a line of a vscsiStats histogram: skipped");
		if (open)
			vs_finish(r, &h, cells, nc, &cc);
		open = false;
	}
	if (open)
		vs_finish(r, &h, cells, nc, &cc);
}

static int vs_open(struct reader **out, struct source *src, const struct pdh_options *o, struct diag *d)
{
	(void)o;
	*out = NULL;
	int rc = 0;
	size_t len;
	char *b = vs_slurp(src, &len, d, &rc);
	if (!b)
		return rc;
	struct vs_reader *r = xcalloc(1, sizeof *r);
	r->base.ops = &parser_vscsistats;
	r->d = d;
	r->row = -1;
	arena_init(&r->a);
	struct vs_cell *cells = NULL;
	size_t nc = 0;
	vs_parse(r, b, len, &cells, &nc);
	free(b);
	if (!nc) {
		diag_emit(d, DIAG_ERROR, 0, 0, "no complete vscsiStats histogram in the file");
		free(cells);
		parser_vscsistats.close(&r->base);
		return ERR_FORMAT;
	}
	for (size_t i = 0; i < nc; i++)
		if (cells[i].snap + 1 > r->nrows)
			r->nrows = cells[i].snap + 1;
	r->vals = xmalloc((size_t)r->nrows * r->ncols * sizeof *r->vals);
	for (size_t i = 0; i < (size_t)r->nrows * r->ncols; i++)
		r->vals[i] = NAN;
	r->row_line = xcalloc((size_t)r->nrows, sizeof *r->row_line);
	for (size_t i = 0; i < nc; i++) {
		const struct vs_cell *c = &cells[i];
		const struct vs_series *s = &r->ser[c->ser];
		memcpy(r->vals + (size_t)c->snap * r->ncols + s->col0, c->v, (size_t)(4 + s->nb) * sizeof c->v[0]);
		if (!r->row_line[c->snap] || c->line < r->row_line[c->snap])
			r->row_line[c->snap] = c->line;
	}
	free(cells);
	*out = &r->base;
	return 0;
}

static size_t vs_ncols(const struct reader *r) { return CVR(r)->ncols; }
static const struct pdh_column *vs_column(const struct reader *r, size_t i) { return &CVR(r)->cols[i]; }

static void vs_facts(const struct reader *r, struct reader_facts *f)
{
	(void)r;
	memset(f, 0, sizeof *f);
	f->hi.bias_known = true;
	snprintf(f->hi.zone, sizeof f->hi.zone, "none (histograms: row k is the k-th snapshot)");
	f->header_line = 1;
}

static void vs_select(struct reader *r, const bool *want)
{
	(void)r;
	(void)want; /* the table is in memory: every column stays readable */
}

static int vs_next(struct reader *rd, struct pdh_row *row)
{
	struct vs_reader *r = VR(rd);
	if (r->row + 1 >= r->nrows)
		return 0;
	r->row++;
	memset(row, 0, sizeof *row);
	row->t_ms = row->local_ms = r->row;
	row->line = r->row_line[r->row];
	r->st.rows++;
	if (!r->st.have_t)
		r->st.t_min = r->row;
	r->st.have_t = true;
	r->st.t_max = r->row;
	return 1;
}

static bool vs_value(struct reader *rd, size_t i, double *v)
{
	const struct vs_reader *r = CVR(rd);
	if (r->row < 0 || i >= r->ncols)
		return false;
	double x = r->vals[(size_t)r->row * r->ncols + i];
	if (isnan(x))
		return false;
	*v = x;
	return true;
}

static const char *vs_text(const struct reader *rd, size_t i, size_t *len)
{
	struct vs_reader *r = VR((struct reader *)(uintptr_t)rd);
	double v;
	if (!vs_value(&r->base, i, &v)) {
		*len = 0;
		return "";
	}
	int n = snprintf(r->text, sizeof r->text, "%.17g", v);
	*len = (size_t)n;
	return r->text;
}

static const struct pdh_stats *vs_stats(const struct reader *r) { return &CVR(r)->st; }

static void vs_close(struct reader *rd)
{
	struct vs_reader *r = VR(rd);
	if (!r)
		return;
	arena_free(&r->a);
	free(r->cols);
	free(r->ser);
	free(r->vals);
	free(r->row_line);
	free(r);
}

static int vs_header(const char *cell, size_t len, const struct pdh_options *o, struct pdh_header_info *hi,
		     struct diag *d)
{
	(void)cell;
	(void)len;
	(void)o;
	(void)d;
	memset(hi, 0, sizeof *hi); /* no time zone, no bias: the file has no clock */
	hi->bias_known = true;
	hi->bias_min = 0;
	return 0;
}

/* The histograms are not time series: the capture model keeps none of their columns (counters and
 * extract read them through the reader). */
static int vs_classify(const struct pdh_path *p, struct counter_class *out)
{
	(void)p;
	class_init(out);
	return -1;
}

const struct parser_ops parser_vscsistats = {
	.name = "vscsistats",
	.summary = "VMware vscsiStats histograms (vscsiStats -p all [-c]) per virtual disk, snapshots concatenated",
	.sample = "Histogram: IO lengths of commands,virtual machine worldGroupID,2099979,virtual disk handleID,"
		  "8194 (scsi0:0)\nmin,512\nmax,4096\nmean,2304\ncount,2\nFrequency,Histogram Bucket Limit\n1,512\n"
		  "1,4096\n0,4096\n",
	.role = ROLE_HOST,
	.probe = vs_probe,
	.header = vs_header,
	.histograms = true,
	.classify = vs_classify,
	.open = vs_open,
	.ncols = vs_ncols,
	.column = vs_column,
	.facts = vs_facts,
	.select = vs_select,
	.next = vs_next,
	.value = vs_value,
	.text = vs_text,
	.stats = vs_stats,
	.close = vs_close,
};
