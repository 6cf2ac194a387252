/* util.c — checked allocation, arena, byte buffer, diagnostics, atomic files, time and
 * number helpers shared by every module. */
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void die_nomem(size_t n)
{
	static const char msg[] = "iopsy: error: out of memory\n";
	(void)n;
	if (write(2, msg, sizeof msg - 1) < 0) {
		/* nothing more we can do */
	}
	_Exit(EXIT_SYSTEM);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die_nomem(n);
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		die_nomem(n * m);
	return p;
}

void *xgrow(void *p, size_t n, size_t size)
{
	if (n && (n & (n - 1)))
		return p; /* room left: the capacity is the next power of two */
	return xrealloc(p, (n ? 2 * n : 1) * size);
}

void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		die_nomem(n);
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xvprintf(const char *fmt, va_list ap)
{
	struct buf b;
	buf_init(&b);
	buf_vprintf(&b, fmt, ap);
	return b.data ? b.data : xstrdup("");
}

char *xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvprintf(fmt, ap);
	va_end(ap);
	return s;
}

/* ---- arena ---- */

struct arena_block {
	struct arena_block *next;
	size_t cap, used;
	_Alignas(8) unsigned char data[];
};

void arena_init(struct arena *a)
{
	a->head = NULL;
	a->used_total = 0;
}

/* n bytes rounded up to 8, not cleared. */
static char *arena_take(struct arena *a, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	struct arena_block *b = a->head;
	if (!b || b->cap - b->used < n) {
		size_t cap = n > 60000 ? n : 65536 - sizeof *b;
		b = xmalloc(sizeof *b + cap);
		b->cap = cap;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	char *p = (char *)(b->data + b->used);
	b->used += n;
	a->used_total += n;
	return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
	void *p = arena_take(a, n);
	memset(p, 0, (n + 7) & ~(size_t)7);
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	/* every byte is written: the copy, then NULs up to the 8-byte boundary */
	char *p = arena_take(a, n + 1);
	memcpy(p, s, n);
	memset(p + n, 0, ((n + 1 + 7) & ~(size_t)7) - n);
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

void arena_free(struct arena *a)
{
	struct arena_block *b = a->head;
	while (b) {
		struct arena_block *n = b->next;
		free(b);
		b = n;
	}
	a->head = NULL;
	a->used_total = 0;
}

/* ---- buf ---- */

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = b->cap = 0;
}

void buf_reserve(struct buf *b, size_t extra)
{
	if (b->len + extra + 1 <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + extra + 1)
		cap *= 2;
	b->data = xrealloc(b->data, cap);
	b->cap = cap;
}

void buf_add(struct buf *b, const void *p, size_t n)
{
	buf_reserve(b, n);
	if (n)
		memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void buf_addc(struct buf *b, char c)
{
	buf_reserve(b, 1);
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	/* print into the room there is; only when it does not fit, make room and print again */
	size_t room = b->cap > b->len ? b->cap - b->len : 0;
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(room ? b->data + b->len : NULL, room, fmt, ap2);
	va_end(ap2);
	if (n < 0) {
		if (b->data)
			b->data[b->len] = '\0';
		return;
	}
	if ((size_t)n >= room) {
		buf_reserve(b, (size_t)n);
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	}
	b->len += (size_t)n;
}

char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	struct buf b;
	buf_init(&b);
	buf_vprintf(&b, fmt, ap);
	char *s = arena_strndup(a, b.data ? b.data : "", b.len);
	buf_free(&b);
	return s;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return s;
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void buf_reset(struct buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
}

void buf_free(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

/* ---- diagnostics ---- */

void diag_init(struct diag *d, const char *file, long max_warnings)
{
	memset(d, 0, sizeof *d);
	d->file = file;
	d->max_warnings = max_warnings;
}

void diag_sink_file(void *ctx, enum diag_level lvl, const char *msg)
{
	(void)lvl;
	FILE *fp = ctx;
	fputs(msg, fp);
	fputc('\n', fp);
}

void diag_sink_buf(void *ctx, enum diag_level lvl, const char *msg)
{
	(void)lvl;
	struct buf *b = ctx;
	buf_adds(b, msg);
	buf_addc(b, '\n');
}

void diag_emit(struct diag *d, enum diag_level lvl, long line, long col, const char *fmt, ...)
{
	if (!d)
		return; /* a caller that wants no messages (report_opts.d NULL: "NULL drops") */
	if (lvl == DIAG_WARNING) {
		d->warnings++;
		if (d->max_warnings >= 0 && d->warnings > d->max_warnings) {
			d->suppressed++;
			return;
		}
	} else if (lvl == DIAG_ERROR) {
		d->errors++;
		if (d->cap_errors && d->max_warnings >= 0 && d->errors + d->warnings > d->max_warnings) {
			d->suppressed++;
			return;
		}
	}
	struct buf b;
	buf_init(&b);
	buf_adds(&b, d->prefix ? d->prefix : "iopsy");
	buf_adds(&b, ": ");
	if (d->file) {
		buf_add_text_escaped(&b, d->file, strlen(d->file));
		if (line > 0)
			buf_printf(&b, ":%ld", line);
		if (line > 0 && col > 0)
			buf_printf(&b, ":%ld", col);
		buf_adds(&b, ": ");
	}
	buf_adds(&b, lvl == DIAG_ERROR ? "error: " : lvl == DIAG_WARNING ? "warning: " : lvl == DIAG_NOTE ? "note: " : "");
	va_list ap;
	va_start(ap, fmt);
	buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (d->sink.fn)
		d->sink.fn(d->sink.ctx, lvl, b.data);
	buf_free(&b);
}

void diag_finish(struct diag *d)
{
	if (d->suppressed > 0) {
		long n = d->suppressed;
		d->suppressed = 0;
		long saved = d->max_warnings;
		d->max_warnings = -1;
		d->warnings--; /* the summary itself is not a warning of the file */
		diag_emit(d, DIAG_NOTE, 0, 0, "%ld more %s%s suppressed (raise --max-warnings to see them)",
			  n, d->cap_errors ? "message" : "warning", n == 1 ? "" : "s");
		d->warnings++;
		d->max_warnings = saved;
	}
}

/* ---- atomic files ---- */

static struct afile *open_afiles;

int afile_open(struct afile *af, const char *path)
{
	memset(af, 0, sizeof *af);
	if (strcmp(path, "-") == 0) {
		af->fp = stdout;
		af->is_stdout = true;
		af->path = xstrdup("-");
		return 0;
	}
	/* Devices and FIFOs (/dev/null, /dev/stdout, a pipe) are written in place: renaming a
	 * temporary over them would replace the device with a regular file. */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		af->fp = fopen(path, "w");
		if (!af->fp)
			return ERR_IO;
		af->path = xstrdup(path);
		af->in_place = true;
		return 0;
	}
	size_t n = strlen(path);
	af->path = xstrdup(path);
	af->tmp = xmalloc(n + 16);
	memcpy(af->tmp, path, n);
	memcpy(af->tmp + n, ".tmp.XXXXXX", 12);
	int fd = mkstemp(af->tmp);
	if (fd < 0) {
		int e = errno;
		free(af->path);
		free(af->tmp);
		af->path = af->tmp = NULL;
		errno = e;
		return ERR_IO;
	}
	af->fp = fdopen(fd, "w");
	if (!af->fp) {
		int e = errno;
		close(fd);
		unlink(af->tmp);
		free(af->path);
		free(af->tmp);
		af->path = af->tmp = NULL;
		errno = e;
		return ERR_IO;
	}
	/* mkstemp creates 0600; reports are meant to be shared like any other output file.
	 * (umask() is process-wide and racy under threads, so use a fixed 0644.) */
	if (fchmod(fd, 0644) != 0) {
		/* keep 0600: not fatal */
	}
	af->next_open = open_afiles;
	open_afiles = af;
	return 0;
}

static void afile_unregister(struct afile *af)
{
	for (struct afile **pp = &open_afiles; *pp; pp = &(*pp)->next_open) {
		if (*pp == af) {
			*pp = af->next_open;
			break;
		}
	}
}

int afile_commit(struct afile *af)
{
	int rc = 0;
	if (af->is_stdout) {
		if (fflush(stdout) != 0 || ferror(stdout))
			rc = ERR_IO;
		free(af->path);
		af->path = NULL;
		return rc;
	}
	if (af->in_place) {
		if (ferror(af->fp))
			rc = ERR_IO;
		if (fclose(af->fp) != 0)
			rc = ERR_IO;
		af->fp = NULL;
		free(af->path);
		af->path = NULL;
		return rc;
	}
	int e = 0;
	if (ferror(af->fp))
		e = EIO;
	if (fclose(af->fp) != 0 && !e)
		e = errno ? errno : EIO;
	af->fp = NULL;
	if (!e && rename(af->tmp, af->path) != 0)
		e = errno;
	afile_unregister(af);
	if (e) {
		unlink(af->tmp);
		rc = ERR_IO;
	}
	free(af->path);
	free(af->tmp);
	af->path = af->tmp = NULL;
	errno = e;
	return rc;
}

void afile_abort(struct afile *af)
{
	if (!af->path)
		return;
	if (af->is_stdout) {
		fflush(stdout);
	} else if (af->in_place) {
		fclose(af->fp);
	} else {
		if (af->fp)
			fclose(af->fp);
		unlink(af->tmp);
		afile_unregister(af);
		free(af->tmp);
	}
	free(af->path);
	af->fp = NULL;
	af->path = af->tmp = NULL;
}

/* The helper process group and scratch folder of the running step (one at a time: PDF or
 * charts), for a signal handler (issue 38: SIGTERM to analyze --pdf left Chromium and its
 * folder behind). */
static volatile pid_t scratch_pgid;
static char scratch_dir[4096];
static volatile sig_atomic_t scratch_dir_set;

void scratch_register(pid_t pgid, const char *dir)
{
	if (dir) {
		scratch_dir_set = 0;
		snprintf(scratch_dir, sizeof scratch_dir, "%s", dir);
		scratch_dir_set = strlen(dir) < sizeof scratch_dir;
	}
	if (pgid >= 0)
		scratch_pgid = pgid;
}

void scratch_unregister(void)
{
	scratch_pgid = 0;
	scratch_dir_set = 0;
}

/* Removes what the folder fd holds (then closes it), with system calls only (no malloc): a
 * Chromium profile is a few levels deep. */
static void rm_under(int fd, int depth)
{
	char b[4096];
	for (;;) {
		long n = syscall(SYS_getdents64, fd, b, sizeof b);
		if (n <= 0)
			break;
		for (long off = 0; off < n;) {
			struct {
				uint64_t ino;
				int64_t off;
				unsigned short reclen;
				unsigned char type;
				char name[];
			} *e = (void *)(b + off);
			off += e->reclen;
			if (!strcmp(e->name, ".") || !strcmp(e->name, ".."))
				continue;
			if (unlinkat(fd, e->name, 0) == 0 || depth >= 16)
				continue;
			int sub = openat(fd, e->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub >= 0) {
				rm_under(sub, depth + 1);
				unlinkat(fd, e->name, AT_REMOVEDIR);
			}
		}
	}
	close(fd);
}

void afile_cleanup_all(void)
{
	for (struct afile *af = open_afiles; af; af = af->next_open)
		if (af->tmp)
			unlink(af->tmp);
	if (scratch_pgid > 0)
		kill(-scratch_pgid, SIGKILL);
	if (scratch_dir_set) {
		int fd = open(scratch_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0) {
			rm_under(fd, 0);
			rmdir(scratch_dir);
		}
	}
}

/* ---- time ---- */

bool date_valid(int y, int mo, int d)
{
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	if (mo < 1 || mo > 12 || d < 1)
		return false;
	bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
	return d <= mdays[mo - 1] + (mo == 2 && leap);
}

/* Howard Hinnant's days_from_civil: proleptic Gregorian date → days since 1970-01-01. */
int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
	z += 719468;
	const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
	const unsigned doe = (unsigned)(z - era * 146097);
	const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	const int64_t yy = (int64_t)yoe + era * 400;
	const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	const unsigned mp = (5 * doy + 2) / 153;
	*d = doy - (153 * mp + 2) / 5 + 1;
	*m = mp < 10 ? mp + 3 : mp - 9;
	*y = yy + (*m <= 2);
}

void time_format_iso(int64_t t_ms, bool with_ms, char out[32])
{
	/* years 0000..9999 only: outside, the arithmetic below could overflow */
	if (t_ms < -62167219200000LL || t_ms > 253402300799999LL) {
		snprintf(out, 32, "%s", "invalid-time");
		return;
	}
	int64_t secs = t_ms >= 0 ? t_ms / 1000 : -((-t_ms + 999) / 1000);
	int ms = (int)(t_ms - secs * 1000);
	int64_t days = secs >= 0 ? secs / 86400 : -((-secs + 86399) / 86400);
	int64_t rem = secs - days * 86400;
	int64_t y;
	unsigned m, d;
	civil_from_days(days, &y, &m, &d);
	if (y < 0 || y > 9999) {
		snprintf(out, 32, "%s", "invalid-time");
		return;
	}
	unsigned hh = (unsigned)(rem / 3600) % 24u, mi = (unsigned)(rem / 60 % 60), ss = (unsigned)(rem % 60);
	unsigned yy = (unsigned)y % 10000u, mm = m % 13u, dd = d % 32u, mss = (unsigned)ms % 1000u;
	if (with_ms && ms)
		snprintf(out, 32, "%04u-%02u-%02uT%02u:%02u:%02u.%03uZ", yy, mm, dd, hh, mi, ss, mss);
	else
		snprintf(out, 32, "%04u-%02u-%02uT%02u:%02u:%02uZ", yy, mm, dd, hh, mi, ss);
}

static bool take_int(const char **s, int digits, int *v)
{
	int x = 0;
	for (int i = 0; i < digits; i++) {
		char c = (*s)[i];
		if (c < '0' || c > '9')
			return false;
		x = x * 10 + (c - '0');
	}
	*s += digits;
	*v = x;
	return true;
}

int time_parse_iso(const char *s, int64_t *t_ms)
{
	int y, mo, d, h, mi, se, ms = 0;
	if (!take_int(&s, 4, &y) || *s++ != '-' || !take_int(&s, 2, &mo) || *s++ != '-' ||
	    !take_int(&s, 2, &d) || (*s != 'T' && *s != ' '))
		return ERR_FORMAT;
	s++;
	if (!take_int(&s, 2, &h) || *s++ != ':' || !take_int(&s, 2, &mi))
		return ERR_FORMAT;
	se = 0;
	if (*s == ':') {
		s++;
		if (!take_int(&s, 2, &se))
			return ERR_FORMAT;
		if (*s == '.') {
			s++;
			int k = 0, frac = 0;
			while (*s >= '0' && *s <= '9') {
				if (k < 3)
					frac = frac * 10 + (*s - '0');
				k++;
				s++;
			}
			while (k < 3) {
				frac *= 10;
				k++;
			}
			ms = frac;
		}
	}
	if (*s == 'Z')
		s++;
	if (*s)
		return ERR_FORMAT;
	if (!date_valid(y, mo, d) || h > 23 || mi > 59 || se > 60)
		return ERR_FORMAT;
	*t_ms = ((days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400) + h * 3600 + mi * 60 + se) * 1000 + ms;
	return 0;
}

/* ---- text ---- */

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t len;
	unsigned cp;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		cp = c & 0x07;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return len;
}

bool utf8_valid(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	while (i < n) {
		size_t k = utf8_seq(p + i, n - i);
		if (!k)
			return false;
		i += k;
	}
	return true;
}

size_t utf8_bidi_neutralise(char *s, size_t n)
{
	size_t k = 0;
	unsigned char *p = (unsigned char *)s;
	for (size_t i = 0; i + 2 < n; i++) {
		bool bidi = p[i] == 0xe2 && ((p[i + 1] == 0x80 && (p[i + 2] == 0x8e || p[i + 2] == 0x8f ||
								   (p[i + 2] >= 0xaa && p[i + 2] <= 0xae))) ||
					     (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9));
		if (!bidi)
			continue;
		p[i] = 0xef, p[i + 1] = 0xbf, p[i + 2] = 0xbd; /* U+FFFD, the same 3 bytes */
		i += 2;
		k++;
	}
	return k;
}

void buf_add_text_escaped(struct buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;
	buf_add(b, "", 0); /* b->data is a string even when s is empty (callers print it with %s) */
	while (i < n) {
		size_t k = utf8_seq(p + i, n - i);
		if (k == 1 && (p[i] < 0x20 || p[i] == 0x7f))
			k = 0;
		if (k) {
			buf_add(b, p + i, k);
			i += k;
		} else {
			buf_printf(b, "\\x%02X", p[i]);
			i++;
		}
	}
}

bool parse_number(const char *s, size_t n, double *v)
{
	while (n && (*s == ' ' || *s == '\t')) {
		s++;
		n--;
	}
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (!n || n > 64)
		return false;
	/* Fast path: plain decimal like 1234.5678 (the vast majority of esxtop cells). */
	const char *p = s, *e = s + n;
	bool neg = false;
	if (*p == '-' || *p == '+') {
		neg = *p == '-';
		p++;
	}
	uint64_t ip = 0;
	int nd = 0;
	while (p < e && *p >= '0' && *p <= '9' && nd < 18) {
		ip = ip * 10 + (uint64_t)(*p - '0');
		p++;
		nd++;
	}
	if (nd > 0 && nd < 18) {
		if (p == e) {
			*v = neg ? -(double)ip : (double)ip;
			return true;
		}
		if (*p == '.') {
			const char *q = p + 1;
			uint64_t fp = 0;
			int fd = 0;
			while (q < e && *q >= '0' && *q <= '9' && fd < 15) {
				fp = fp * 10 + (uint64_t)(*q - '0');
				q++;
				fd++;
			}
			if (q == e && nd + fd <= 15) {
				static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8,
							     1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
				double x = (double)(ip * (uint64_t)p10[fd] + fp) / p10[fd];
				*v = neg ? -x : x;
				return true;
			}
		}
	}
	/* General path: strtod on a NUL-terminated copy, in the C locale by construction of input. */
	char tmp[72];
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	char *end;
	errno = 0;
	double x = strtod(tmp, &end);
	if (end != tmp + n || !isfinite(x))
		return false;
	/* strtod accepts hex floats and "inf"/"nan": restrict to decimal syntax. */
	for (size_t i = 0; i < n; i++) {
		char c = tmp[i];
		if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'))
			return false;
	}
	*v = x;
	return true;
}

int exit_code_for(int err)
{
	switch (err) {
	case 0: return EXIT_OK;
	case ERR_USAGE: return EXIT_USAGE;
	case ERR_NOMEM: return EXIT_SYSTEM;
	case ERR_IO:
	case ERR_FORMAT:
	case ERR_LIMIT: return EXIT_INPUT;
	default: return EXIT_SYSTEM;
	}
}

double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int afile_write_all(const char *path, const void *data, size_t n, const char **what)
{
	struct afile af;
	if (afile_open(&af, path) < 0) {
		*what = "cannot create";
		return ERR_IO;
	}
	if (n && fwrite(data, 1, n, af.fp) != n) {
		int e = errno;
		afile_abort(&af);
		errno = e;
		*what = "write error on";
		return ERR_IO;
	}
	if (afile_commit(&af) < 0) {
		*what = "cannot write";
		return ERR_IO;
	}
	return 0;
}

size_t vm_name_core(const char *s, size_t n)
{
	/* " (" + 36 characters of hex digits and dashes + ")" */
	if (n < 40 || s[n - 1] != ')' || s[n - 38] != '(' || s[n - 39] != ' ')
		return n;
	for (size_t i = n - 37; i < n - 1; i++) {
		char c = s[i];
		bool hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
		if (!hex && c != '-')
			return n;
	}
	return n - 39;
}

int open_regular(const char *path, char *why, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		snprintf(why, cap, "%s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) != 0) {
		snprintf(why, cap, "%s", strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(why, cap, "%s, not a regular file%s",
			 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a folder" : S_ISCHR(st.st_mode) ? "a character device"
			 : S_ISBLK(st.st_mode) ? "a block device" : S_ISSOCK(st.st_mode) ? "a socket" : "a special file",
			 S_ISFIFO(st.st_mode) ? " (it would wait for a writer)" : "");
		close(fd);
		errno = EINVAL;
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

FILE *fopen_regular(const char *path, char *why, size_t cap)
{
	int fd = open_regular(path, why, cap);
	if (fd < 0)
		return NULL;
	FILE *f = fdopen(fd, "rb");
	if (!f) {
		snprintf(why, cap, "%s", strerror(errno));
		close(fd);
	}
	return f;
}

int dir_make(const char *path)
{
	size_t n = strlen(path);
	if (n == 0) {
		errno = ENOENT;
		return ERR_IO;
	}
	char *p = xstrdup(path);
	for (char *c = p + 1; *c; c++) {
		if (*c != '/' || c[-1] == '/')
			continue;
		*c = '\0';
		if (mkdir(p, 0755) != 0 && errno != EEXIST) {
			free(p);
			return ERR_IO;
		}
		*c = '/';
	}
	int rc = 0;
	if (mkdir(p, 0755) != 0) {
		struct stat st;
		if (errno != EEXIST)
			rc = ERR_IO;
		else if (stat(p, &st) != 0 || !S_ISDIR(st.st_mode)) {
			errno = ENOTDIR;
			rc = ERR_IO;
		}
	}
	free(p);
	return rc;
}
