/* source.c — file/stdin/gzip/memory byte streams with encoding normalisation (see source.h). */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

/* A memory source is implemented as a pipe-free reader over a borrowed buffer. */
struct memsrc {
	const unsigned char *data;
	size_t len, pos;
};

/* Pipes and gzip files. gzip is inflated here rather than with gzread(): the bomb check needs the
 * compressed bytes consumed, and gzoffset() cannot tell them on a pipe (it asks lseek). */
#define ZSRC_IN (1u << 17)
struct zsrc {
	z_stream z;
	bool inflating;          /* inflateInit2 done */
	bool eof;                /* no more bytes from the fd */
	bool member_end;         /* a gzip member ended: another may follow */
	bool done;               /* end of the gzip data (trailing bytes are ignored, as gzip does) */
	int64_t in_total;        /* bytes read from the fd */
	unsigned char in[ZSRC_IN];
};

int source_open(struct source *s, const char *path, struct diag *d)
{
	memset(s, 0, sizeof *s);
	s->name = path;
	s->total = -1;
	if (strcmp(path, "-") == 0) {
		s->fd = 0;
		s->is_stdin = true;
	} else {
		s->fd = open(path, O_RDONLY | O_CLOEXEC);
		if (s->fd < 0) {
			diag_emit(d, DIAG_ERROR, 0, 0, "cannot open: %s", strerror(errno));
			return ERR_IO;
		}
	}
	struct stat st;
	if (fstat(s->fd, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			diag_emit(d, DIAG_ERROR, 0, 0, "is a directory, not a capture file");
			if (!s->is_stdin)
				close(s->fd);
			return ERR_IO;
		}
		if (S_ISREG(st.st_mode))
			s->total = st.st_size;
	}
	/* A regular file that is not gzip is read with plain read(): zlib's transparent mode would
	 * copy every byte once more through its own buffer. Pipes and gzip go through zlib. */
	if (s->total >= 0 && !s->is_stdin) {
		unsigned char magic[2];
		if (pread(s->fd, magic, 2, 0) != 2 || magic[0] != 0x1f || magic[1] != 0x8b) {
			s->plain = true;
			return 0;
		}
	}
	/* a pipe, stdin or a gzip file: the first read looks at the magic bytes */
	s->z = xcalloc(1, sizeof(struct zsrc));
	return 0;
}

int source_open_mem(struct source *s, const char *name, const void *data, size_t len, struct diag *d)
{
	(void)d;
	memset(s, 0, sizeof *s);
	s->name = name;
	s->fd = -1;
	s->total = (int64_t)len;
	struct memsrc *m = xcalloc(1, sizeof *m);
	m->data = data;
	m->len = len;
	s->mem = m;
	return 0;
}

static bool is_mem(const struct source *s)
{
	return s->mem != NULL;
}

/* Appends up to the free space of z->in from the fd; 0 at end of input, or ERR_IO. */
static int zsrc_fill(struct source *s, struct zsrc *zs, struct diag *d)
{
	size_t have = zs->z.avail_in;
	if (have && zs->z.next_in != zs->in)
		memmove(zs->in, zs->z.next_in, have);
	zs->z.next_in = zs->in;
	for (;;) {
		ssize_t r = read(s->fd, zs->in + have, ZSRC_IN - have);
		if (r >= 0) {
			if (r == 0)
				zs->eof = true;
			zs->in_total += r;
			zs->z.avail_in = (unsigned)(have + (size_t)r);
			return 0;
		}
		if (errno != EINTR) {
			diag_emit(d, DIAG_ERROR, 0, 0, "read error: %s", strerror(errno));
			return ERR_IO;
		}
	}
}

/* Looks at the first two bytes: gzip magic starts inflating, anything else passes through. */
static int zsrc_detect(struct source *s, struct diag *d)
{
	struct zsrc *zs = s->z;
	while (zs->z.avail_in < 2 && !zs->eof) {
		int rc = zsrc_fill(s, zs, d);
		if (rc < 0)
			return rc;
	}
	if (zs->z.avail_in >= 2 && zs->in[0] == 0x1f && zs->in[1] == 0x8b) {
		if (inflateInit2(&zs->z, 15 + 16) != Z_OK)
			return ERR_NOMEM;
		zs->inflating = true;
		s->gzip = true;
	}
	return 0;
}

/* Decompressed (or passed-through) bytes from a pipe or gzip file: > 0, 0 at the end, or ERR_IO. */
static long zsrc_read(struct source *s, unsigned char *out, size_t n, struct diag *d)
{
	struct zsrc *zs = s->z;
	if (!zs->inflating) { /* pass-through: the bytes looked at first, then the fd */
		if (zs->z.avail_in == 0 && !zs->eof) {
			int rc = zsrc_fill(s, zs, d);
			if (rc < 0)
				return rc;
		}
		size_t k = zs->z.avail_in < n ? zs->z.avail_in : n;
		memcpy(out, zs->z.next_in, k);
		zs->z.next_in += k;
		zs->z.avail_in -= (unsigned)k;
		return (long)k;
	}
	while (!zs->done) {
		if (zs->member_end) {
			/* another member follows only if the next bytes are gzip magic */
			while (zs->z.avail_in < 2 && !zs->eof) {
				int rc = zsrc_fill(s, zs, d);
				if (rc < 0)
					return rc;
			}
			if (zs->z.avail_in < 2 || zs->z.next_in[0] != 0x1f || zs->z.next_in[1] != 0x8b) {
				zs->done = true;
				break;
			}
			inflateReset(&zs->z);
			zs->member_end = false;
		}
		if (zs->z.avail_in == 0 && !zs->eof) {
			int rc = zsrc_fill(s, zs, d);
			if (rc < 0)
				return rc;
		}
		zs->z.next_out = out;
		zs->z.avail_out = (unsigned)n;
		int zr = inflate(&zs->z, Z_NO_FLUSH);
		size_t got = n - zs->z.avail_out;
		if (zr == Z_STREAM_END)
			zs->member_end = true;
		else if (zr != Z_OK && zr != Z_BUF_ERROR) {
			diag_emit(d, DIAG_ERROR, 0, 0, "corrupt gzip data: %s",
				  zr == Z_MEM_ERROR ? "out of memory" : zs->z.msg ? zs->z.msg : "compressed data error");
			return ERR_IO;
		} else if (got == 0 && zs->z.avail_in == 0 && zs->eof) {
			diag_emit(d, DIAG_ERROR, 0, 0, "corrupt gzip data: unexpected end of file");
			return ERR_IO;
		}
		if (got > 0)
			return (long)got;
	}
	return 0;
}

/* Raw (decompressed, undecoded) bytes. Memory sources are plain bytes (no gzip). */
static long raw_read(struct source *s, unsigned char *out, size_t n, struct diag *d)
{
	if (is_mem(s)) {
		struct memsrc *m = s->mem;
		size_t k = m->len - m->pos;
		if (k > n)
			k = n;
		memcpy(out, m->data + m->pos, k);
		m->pos += k;
		return (long)k;
	}
	if (n > (1u << 30))
		n = 1u << 30;
	if (s->plain) {
		for (;;) {
			ssize_t r = read(s->fd, out, n);
			if (r >= 0) {
				s->plain_off += r;
				return (long)r;
			}
			if (errno != EINTR) {
				diag_emit(d, DIAG_ERROR, 0, 0, "read error: %s", strerror(errno));
				return ERR_IO;
			}
		}
	}
	return zsrc_read(s, out, n, d);
}

int64_t source_offset(const struct source *s)
{
	if (is_mem(s))
		return (int64_t)((const struct memsrc *)s->mem)->pos;
	if (s->plain)
		return s->plain_off;
	if (!s->z)
		return 0;
	const struct zsrc *zs = s->z;
	return zs->in_total - (int64_t)zs->z.avail_in;
}

static void put_utf8(unsigned cp, char *out, size_t *o)
{
	if (cp < 0x80) {
		out[(*o)++] = (char)cp;
	} else if (cp < 0x800) {
		out[(*o)++] = (char)(0xc0 | (cp >> 6));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	} else if (cp < 0x10000) {
		out[(*o)++] = (char)(0xe0 | (cp >> 12));
		out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	} else {
		out[(*o)++] = (char)(0xf0 | (cp >> 18));
		out[(*o)++] = (char)(0x80 | ((cp >> 12) & 0x3f));
		out[(*o)++] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[(*o)++] = (char)(0x80 | (cp & 0x3f));
	}
}

/* Converts staged UTF-16 code units to UTF-8 into out (capacity n >= 8). Unpaired surrogates
 * become U+FFFD so the output is always valid UTF-8. */
static long utf16_decode(struct source *s, char *out, size_t n, struct diag *d)
{
	size_t o = 0;
	for (;;) {
		if (s->raw_len < 2 && !s->raw_eof) {
			if (s->raw_cap < 65536) {
				s->raw = xrealloc(s->raw, 65536);
				s->raw_cap = 65536;
			}
			long k = raw_read(s, s->raw + s->raw_len, s->raw_cap - s->raw_len, d);
			if (k < 0)
				return k;
			if (k == 0)
				s->raw_eof = true;
			s->raw_len += (size_t)k;
		}
		size_t i = 0;
		while (i + 1 < s->raw_len && o + 8 <= n) {
			unsigned u = s->enc == SOURCE_UTF16LE ? (unsigned)(s->raw[i] | (s->raw[i + 1] << 8))
							      : (unsigned)((s->raw[i] << 8) | s->raw[i + 1]);
			i += 2;
			if (s->pending_hi) {
				if (u >= 0xdc00 && u <= 0xdfff) {
					put_utf8(0x10000 + ((s->pending_hi - 0xd800) << 10) + (u - 0xdc00), out, &o);
					s->pending_hi = 0;
					continue;
				}
				put_utf8(0xfffd, out, &o);
				s->pending_hi = 0;
			}
			if (u >= 0xd800 && u <= 0xdbff)
				s->pending_hi = u;
			else if (u >= 0xdc00 && u <= 0xdfff)
				put_utf8(0xfffd, out, &o);
			else
				put_utf8(u, out, &o);
		}
		memmove(s->raw, s->raw + i, s->raw_len - i);
		s->raw_len -= i;
		if (o > 0 || o + 8 > n)
			return (long)o;
		if (s->raw_eof) {
			if (s->pending_hi) {
				put_utf8(0xfffd, out, &o);
				s->pending_hi = 0;
			}
			if (s->raw_len == 1) {
				diag_emit(d, DIAG_WARNING, 0, 0, "UTF-16 input ends with half a character; ignored");
				s->raw_len = 0;
			}
			return (long)o;
		}
	}
}

/* Hands out at most n of the k bytes in tmp and keeps the rest for the next read. */
static long give(struct source *s, const char *tmp, size_t k, char *out, size_t n)
{
	size_t g = k < n ? k : n;
	memcpy(out, tmp, g);
	memmove(s->spill, tmp + g, k - g);
	s->spill_len = (unsigned char)(k - g);
	s->spill_pos = 0;
	return (long)g;
}

/* utf16_decode needs room for one whole character: a smaller read decodes into a scratch
 * buffer and spills what does not fit (a 0 here would be taken for the end of the input). */
static long utf16_read(struct source *s, char *out, size_t n, struct diag *d)
{
	if (n >= 8)
		return utf16_decode(s, out, n, d);
	char tmp[8];
	long k = utf16_decode(s, tmp, sizeof tmp, d);
	if (k <= 0)
		return k;
	return give(s, tmp, (size_t)k, out, n);
}

long source_read(struct source *s, char *out, size_t n, struct diag *d)
{
	if (s->err)
		return s->err;
	if (n == 0)
		return 0;
	long k;
	if (s->spill_pos < s->spill_len) {
		k = give(s, s->spill + s->spill_pos, (size_t)(s->spill_len - s->spill_pos), out, n);
		s->bytes_out += (uint64_t)k;
		return k;
	}
	if (!s->started) {
		s->started = true;
		if (s->z) {
			int rc = zsrc_detect(s, d);
			if (rc < 0)
				return s->err = rc;
		}
		unsigned char head[4];
		size_t hl = 0;
		while (hl < 4) {
			long r = raw_read(s, head + hl, 4 - hl, d);
			if (r < 0)
				return s->err = (int)r;
			if (r == 0)
				break;
			hl += (size_t)r;
		}
		size_t skip = 0;
		if (hl >= 3 && head[0] == 0xef && head[1] == 0xbb && head[2] == 0xbf) {
			s->enc = SOURCE_UTF8_BOM;
			skip = 3;
		} else if (hl >= 2 && head[0] == 0xff && head[1] == 0xfe) {
			s->enc = SOURCE_UTF16LE;
			skip = 2;
		} else if (hl >= 2 && head[0] == 0xfe && head[1] == 0xff) {
			s->enc = SOURCE_UTF16BE;
			skip = 2;
		} else if (hl >= 2 && head[0] == '"' && head[1] == 0 ) {
			/* UTF-16LE without BOM: starts with a quote followed by NUL */
			s->enc = SOURCE_UTF16LE;
		}
		if (s->enc == SOURCE_UTF16LE || s->enc == SOURCE_UTF16BE) {
			s->raw = xmalloc(65536);
			s->raw_cap = 65536;
			s->raw_len = hl - skip;
			memcpy(s->raw, head + skip, s->raw_len);
			k = utf16_read(s, out, n, d);
		} else {
			size_t keep = hl - skip;
			k = give(s, (const char *)head + skip, keep, out, n);
			if ((size_t)k < n && hl == 4) {
				long r = raw_read(s, (unsigned char *)out + keep, n - keep, d);
				if (r < 0)
					return s->err = (int)r;
				k += r;
			}
		}
	} else if (s->enc == SOURCE_UTF16LE || s->enc == SOURCE_UTF16BE) {
		k = utf16_read(s, out, n, d);
	} else {
		k = raw_read(s, (unsigned char *)out, n, d);
	}
	if (k < 0)
		return s->err = (int)k;
	s->bytes_out += (uint64_t)k;
	if (s->gzip && s->bytes_out > SOURCE_BOMB_MIN_BYTES) {
		int64_t in = source_offset(s);
		if (in > 0 && s->bytes_out / (uint64_t)in > SOURCE_BOMB_RATIO) {
			diag_emit(d, DIAG_ERROR, 0, 0,
				  "gzip data expands more than %d:1 (%llu bytes from %lld); refusing a likely gzip bomb",
				  SOURCE_BOMB_RATIO, (unsigned long long)s->bytes_out, (long long)in);
			return s->err = ERR_LIMIT;
		}
	}
	if (s->progress)
		s->progress(s->progress_ctx, source_offset(s), s->total);
	return k;
}

void source_close(struct source *s)
{
	free(s->mem);
	if (s->z) {
		struct zsrc *zs = s->z;
		if (zs->inflating)
			inflateEnd(&zs->z);
		free(zs);
	}
	if (!s->is_stdin && s->fd >= 0 && !s->mem)
		close(s->fd);
	free(s->raw);
	memset(s, 0, sizeof *s);
	s->fd = -1; /* a second close must not close stdin */
}
