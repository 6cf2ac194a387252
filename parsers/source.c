/* source.c — file/stdin/gzip/memory byte streams with encoding normalisation (see source.h).
 * gzip is inflated (ISA-L when built with it, else zlib) by a second thread into a bounded ring
 * of buffers while the caller parses the previous ones. */
#include "source.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_ISAL
#include <isa-l/igzip_lib.h>
#endif

/* A memory source is implemented as a pipe-free reader over a borrowed buffer. */
struct memsrc {
	const unsigned char *data;
	size_t len, pos;
};

/* Pipes and gzip files. gzip is inflated here rather than with gzread(): the bomb check needs the
 * compressed bytes consumed, and gzoffset() cannot tell them on a pipe (it asks lseek). The first
 * bytes are looked at here; gzip then goes to a struct gzpipe, other pipes pass through. */
#define ZSRC_IN (1u << 17)
struct gzpipe;
struct zsrc {
	z_stream z;              /* only next_in/avail_in: the pass-through's buffer */
	bool eof;                /* no more bytes from the fd */
	int64_t in_total;        /* bytes read from the fd */
	struct gzpipe *gz;       /* gzip: the inflating thread and its ring */
	unsigned char in[ZSRC_IN];
};

/* ---- gzip: an inflate engine (ISA-L or zlib) run by a producer thread ---- */

#define GZ_SLOTS 4               /* ring of decompressed buffers between the two threads */
#define GZ_SLOT (1u << 20)

struct gzslot {
	unsigned char *data;
	size_t len, pos;
	int64_t in_off;          /* compressed bytes consumed when the slot was filled */
	int rc;                  /* after the data: 0, or the ERR_* that ends the stream (msg) */
	bool end;                /* after the data: the end of the gzip data */
	char msg[200];
};

struct gzpipe {
	int fd;
	bool regular;            /* a regular file: read() never blocks, no poll needed */
	/* producer side (the thread, or the caller when no thread could be started) */
	unsigned char in[ZSRC_IN];
	unsigned char *next_in;
	size_t avail_in;
	bool eof, member_end, done, failed;
	int64_t in_total;
	bool use_isal;
	z_stream z;
	bool z_ready;
#ifdef HAVE_ISAL
	struct inflate_state *is;
#endif
	/* the ring */
	pthread_mutex_t mu;
	pthread_cond_t cv;       /* a slot was published or released, or stop */
	struct gzslot slot[GZ_SLOTS];
	unsigned head, tail, count; /* producer fills slot[head]; consumer reads slot[tail] */
	bool stop;
	int wake[2];             /* written on stop: ends a poll() waiting on a pipe */
	pthread_t th;
	bool threaded, sync_ready;
	/* consumer side */
	int64_t cons_off;        /* in_off of the slot being read */
};

static void gz_fail(struct gzslot *sl, int rc, const char *fmt, const char *arg)
{
	sl->rc = rc;
	snprintf(sl->msg, sizeof sl->msg, fmt, arg);
}

/* Reads more compressed bytes (keeping the unread ones): 0; 1 when stopped; 2 when a pipe has
 * nothing yet and the slot already holds data (publish it first: a reader waits for it); or
 * ERR_IO with the message in sl. */
static int gz_fill(struct gzpipe *g, struct gzslot *sl)
{
	if (g->avail_in && g->next_in != g->in)
		memmove(g->in, g->next_in, g->avail_in);
	g->next_in = g->in;
	if (!g->regular && g->threaded) {
		/* a pipe may stay silent: wait for it or for a stop, whichever comes first */
		struct pollfd pf[2] = {{.fd = g->fd, .events = POLLIN}, {.fd = g->wake[0], .events = POLLIN}};
		for (int timeout = sl->len ? 0 : -1;;) {
			int k = poll(pf, 2, timeout);
			if (k > 0 && (pf[1].revents & POLLIN))
				return 1;
			if (k > 0)
				break;
			if (k == 0)
				return 2;
			if (errno != EINTR)
				break; /* let read() report it */
		}
	}
	for (;;) {
		ssize_t r = read(g->fd, g->in + g->avail_in, ZSRC_IN - g->avail_in);
		if (r >= 0) {
			if (r == 0)
				g->eof = true;
			g->in_total += r;
			g->avail_in += (size_t)r;
			return 0;
		}
		if (errno != EINTR) {
			gz_fail(sl, ERR_IO, "read error: %s", strerror(errno));
			return ERR_IO;
		}
	}
}

/* Starts (or restarts, for the next member) the engine. */
static int gz_engine_start(struct gzpipe *g, struct gzslot *sl)
{
#ifdef HAVE_ISAL
	if (g->use_isal) {
		if (!g->is) {
			g->is = malloc(sizeof *g->is);
			if (!g->is) {
				gz_fail(sl, ERR_NOMEM, "%s", "out of memory");
				return ERR_NOMEM;
			}
			isal_inflate_init(g->is);
		} else {
			isal_inflate_reset(g->is);
		}
		g->is->crc_flag = ISAL_GZIP;
		return 0;
	}
#endif
	if (!g->z_ready) {
		if (inflateInit2(&g->z, 15 + 16) != Z_OK) {
			gz_fail(sl, ERR_NOMEM, "%s", "out of memory");
			return ERR_NOMEM;
		}
		g->z_ready = true;
	} else {
		inflateReset(&g->z);
	}
	return 0;
}

#ifdef HAVE_ISAL
static const char *isal_error(int e)
{
	switch (e) {
	case ISAL_INVALID_BLOCK: return "invalid block type";
	case ISAL_INVALID_SYMBOL: return "invalid code";
	case ISAL_INVALID_LOOKBACK: return "invalid distance too far back";
	case ISAL_INVALID_WRAPPER: return "incorrect header check";
	case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
	case ISAL_INCORRECT_CHECKSUM: return "incorrect data check";
	case ISAL_NEED_DICT: return "need dictionary";
	default: return "compressed data error";
	}
}
#endif

/* One engine call over the buffered input into out: bytes made, *member_end when a member (its
 * trailer checked) ended; on corrupt data sl->rc and its message are set as well. */
static long gz_engine_run(struct gzpipe *g, unsigned char *out, size_t n, bool *member_end, struct gzslot *sl)
{
	*member_end = false;
#ifdef HAVE_ISAL
	if (g->use_isal) {
		struct inflate_state *is = g->is;
		is->next_in = g->next_in;
		is->avail_in = (uint32_t)g->avail_in;
		is->next_out = out;
		is->avail_out = (uint32_t)n;
		int e = isal_inflate(is);
		size_t got = n - is->avail_out;
		g->next_in = is->next_in;
		g->avail_in = is->avail_in;
		if (e < 0 || e == ISAL_NEED_DICT)
			gz_fail(sl, ERR_IO, "corrupt gzip data: %s", isal_error(e));
		else
			*member_end = is->block_state == ISAL_BLOCK_FINISH;
		return (long)got;
	}
#endif
	g->z.next_in = g->next_in;
	g->z.avail_in = (unsigned)g->avail_in;
	g->z.next_out = out;
	g->z.avail_out = (unsigned)n;
	int zr = inflate(&g->z, Z_NO_FLUSH);
	size_t got = n - g->z.avail_out;
	g->next_in = g->z.next_in;
	g->avail_in = g->z.avail_in;
	if (zr == Z_STREAM_END) {
		*member_end = true;
	} else if (zr != Z_OK && zr != Z_BUF_ERROR) {
		gz_fail(sl, zr == Z_MEM_ERROR ? ERR_NOMEM : ERR_IO, "corrupt gzip data: %s",
			zr == Z_MEM_ERROR ? "out of memory" : g->z.msg ? g->z.msg : "compressed data error");
	}
	return (long)got;
}

/* Fills one slot with decompressed bytes: up to GZ_SLOT, or less before the end or an error
 * (then sl->end / sl->rc). Returns 1 when stopped, else 0. Same stream rules as gzip: members
 * concatenate, bytes after the last member that are not gzip magic are ignored. */
static int gz_produce(struct gzpipe *g, struct gzslot *sl)
{
	sl->len = sl->pos = 0;
	sl->rc = 0;
	sl->end = false;
	sl->msg[0] = '\0';
	while (sl->len < GZ_SLOT) {
		if (g->done) {
			sl->end = true;
			break;
		}
		if (g->member_end) {
			/* another member follows only if the next bytes are gzip magic */
			int rc = 0;
			while (g->avail_in < 2 && !g->eof && (rc = gz_fill(g, sl)) == 0)
				;
			if (rc == 1)
				return 1;
			if (rc != 0)
				break;
			if (g->avail_in < 2 || g->next_in[0] != 0x1f || g->next_in[1] != 0x8b) {
				g->done = true;
				continue;
			}
			if (gz_engine_start(g, sl) < 0)
				break;
			g->member_end = false;
		}
		if (g->avail_in == 0 && !g->eof) {
			int rc = gz_fill(g, sl);
			if (rc == 1)
				return 1;
			if (rc != 0)
				break;
		}
		bool mend;
		long got = gz_engine_run(g, sl->data + sl->len, GZ_SLOT - sl->len, &mend, sl);
		if (sl->rc)
			break; /* what the failing call made may be garbage decoded as deflate: dropped */
		sl->len += (size_t)got;
		if (mend)
			g->member_end = true;
		else if (got == 0 && g->avail_in == 0 && g->eof) {
			gz_fail(sl, ERR_IO, "%s", "corrupt gzip data: unexpected end of file");
			break;
		}
	}
	sl->in_off = g->in_total - (int64_t)g->avail_in;
	if (sl->rc)
		g->failed = true;
	return 0;
}

static void *gz_thread(void *arg)
{
	struct gzpipe *g = arg;
	pthread_mutex_lock(&g->mu);
	for (;;) {
		while (g->count == GZ_SLOTS && !g->stop)
			pthread_cond_wait(&g->cv, &g->mu);
		if (g->stop)
			break;
		struct gzslot *sl = &g->slot[g->head];
		pthread_mutex_unlock(&g->mu);
		int stopped = gz_produce(g, sl);
		pthread_mutex_lock(&g->mu);
		if (stopped)
			break;
		g->head = (g->head + 1) % GZ_SLOTS;
		g->count++;
		pthread_cond_broadcast(&g->cv);
		if (sl->end || sl->rc)
			break;
	}
	pthread_mutex_unlock(&g->mu);
	return NULL;
}

/* Takes over the fd and the bytes already read; starts the inflating thread (or, when none can
 * be started, inflates in the caller's reads). NULL when out of memory. */
static struct gzpipe *gz_start(struct source *s, struct zsrc *zs)
{
	struct gzpipe *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	for (int i = 0; i < GZ_SLOTS; i++) {
		g->slot[i].data = malloc(GZ_SLOT);
		if (!g->slot[i].data) {
			for (int k = 0; k < i; k++)
				free(g->slot[k].data);
			free(g);
			return NULL;
		}
	}
	g->fd = s->fd;
	struct stat st;
	g->regular = fstat(s->fd, &st) == 0 && S_ISREG(st.st_mode);
	memcpy(g->in, zs->z.next_in, zs->z.avail_in);
	g->next_in = g->in;
	g->avail_in = zs->z.avail_in;
	g->eof = zs->eof;
	g->in_total = zs->in_total;
	g->cons_off = zs->in_total - (int64_t)zs->z.avail_in;
	g->wake[0] = g->wake[1] = -1;
#ifdef HAVE_ISAL
	const char *eng = getenv("IOPSY_INFLATE"); /* "zlib": tests compare the two engines */
	g->use_isal = !(eng && strcmp(eng, "zlib") == 0);
#endif
	struct gzslot *sl = &g->slot[0];
	if (gz_engine_start(g, sl) < 0) {
		g->failed = true; /* reported by the first read */
		g->count = 1;
		sl->len = 0;
		return g;
	}
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->sync_ready = true;
	const char *thr = getenv("IOPSY_INFLATE_THREAD"); /* "0": inflate in the reading thread */
	if (!(thr && strcmp(thr, "0") == 0) && (g->regular || pipe2(g->wake, O_CLOEXEC) == 0)) {
		/* the thread takes no signals: they stay with the main thread, as without it */
		sigset_t all, old;
		sigfillset(&all);
		pthread_sigmask(SIG_SETMASK, &all, &old);
		g->threaded = true;
		if (pthread_create(&g->th, NULL, gz_thread, g) != 0)
			g->threaded = false;
		pthread_sigmask(SIG_SETMASK, &old, NULL);
	}
	return g;
}

/* Decompressed bytes: > 0, 0 at the end, or ERR_* (message in d). */
static long gz_read(struct gzpipe *g, unsigned char *out, size_t n, struct diag *d)
{
	for (;;) {
		struct gzslot *sl;
		if (g->threaded) {
			pthread_mutex_lock(&g->mu);
			while (g->count == 0)
				pthread_cond_wait(&g->cv, &g->mu);
			sl = &g->slot[g->tail];
			pthread_mutex_unlock(&g->mu);
		} else {
			sl = &g->slot[g->tail];
			if (g->count == 0) {
				if (gz_produce(g, sl) != 0)
					return 0;
				g->count = 1;
			}
		}
		g->cons_off = sl->in_off;
		if (sl->pos < sl->len) {
			size_t k = sl->len - sl->pos < n ? sl->len - sl->pos : n;
			memcpy(out, sl->data + sl->pos, k);
			sl->pos += k;
			return (long)k;
		}
		if (sl->rc) {
			diag_emit(d, DIAG_ERROR, 0, 0, "%s", sl->msg[0] ? sl->msg : "out of memory");
			return sl->rc;
		}
		if (sl->end)
			return 0;
		if (g->threaded) {
			pthread_mutex_lock(&g->mu);
			g->tail = (g->tail + 1) % GZ_SLOTS;
			g->count--;
			pthread_cond_broadcast(&g->cv);
			pthread_mutex_unlock(&g->mu);
		} else {
			g->count = 0;
		}
	}
}

/* Stops the thread (wherever it waits) and frees everything. */
static void gz_free(struct gzpipe *g)
{
	if (!g)
		return;
	if (g->threaded) {
		pthread_mutex_lock(&g->mu);
		g->stop = true;
		pthread_cond_broadcast(&g->cv);
		pthread_mutex_unlock(&g->mu);
		if (g->wake[1] >= 0) {
			ssize_t w;
			do
				w = write(g->wake[1], "x", 1);
			while (w < 0 && errno == EINTR);
		}
		pthread_join(g->th, NULL);
	}
	if (g->sync_ready) {
		pthread_mutex_destroy(&g->mu);
		pthread_cond_destroy(&g->cv);
	}
	if (g->wake[0] >= 0)
		close(g->wake[0]);
	if (g->wake[1] >= 0)
		close(g->wake[1]);
	if (g->z_ready)
		inflateEnd(&g->z);
#ifdef HAVE_ISAL
	free(g->is);
#endif
	for (int i = 0; i < GZ_SLOTS; i++)
		free(g->slot[i].data);
	free(g);
}

static int source_open_any(struct source *s, const char *path, bool regular, struct diag *d)
{
	memset(s, 0, sizeof *s);
	s->name = path;
	s->total = -1;
	if (regular) {
		char why[160];
		s->fd = open_regular(path, why, sizeof why);
		if (s->fd < 0) {
			diag_emit(d, DIAG_ERROR, 0, 0, "cannot open: %s", why);
			return ERR_IO;
		}
	} else if (strcmp(path, "-") == 0) {
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

int source_open(struct source *s, const char *path, struct diag *d)
{
	return source_open_any(s, path, false, d);
}

int source_open_regular(struct source *s, const char *path, struct diag *d)
{
	return source_open_any(s, path, true, d);
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
		zs->gz = gz_start(s, zs);
		if (!zs->gz)
			return ERR_NOMEM;
		zs->z.avail_in = 0;
		s->gzip = true;
	}
	return 0;
}

/* Decompressed (or passed-through) bytes from a pipe or gzip file: > 0, 0 at the end, or ERR_IO. */
static long zsrc_read(struct source *s, unsigned char *out, size_t n, struct diag *d)
{
	struct zsrc *zs = s->z;
	if (zs->gz)
		return gz_read(zs->gz, out, n, d);
	/* pass-through: the bytes looked at first, then the fd */
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

bool source_never_blocks(const struct source *s)
{
	return !s->is_stdin && (is_mem(s) || s->total >= 0);
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
	if (zs->gz)
		return zs->gz->cons_off;
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
	if (s->peek_pos < s->peek_len) {
		size_t g = s->peek_len - s->peek_pos < n ? s->peek_len - s->peek_pos : n;
		memcpy(out, s->peek + s->peek_pos, g);
		s->peek_pos += g;
		return (long)g;
	}
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

long source_peek(struct source *s, size_t n, const char **head, struct diag *d)
{
	if (!s->peek) {
		char *b = xmalloc(n + 1);
		size_t len = 0;
		while (len < n) {
			long k = source_read(s, b + len, n - len, d);
			if (k < 0) {
				free(b);
				return k;
			}
			if (k == 0)
				break;
			len += (size_t)k;
		}
		b[len] = '\0';
		s->peek = b;
		s->peek_len = len;
		s->peek_pos = 0;
	}
	*head = s->peek;
	return (long)s->peek_len;
}

void source_close(struct source *s)
{
	free(s->peek);
	free(s->mem);
	if (s->z) {
		struct zsrc *zs = s->z;
		gz_free(zs->gz);
		free(zs);
	}
	if (!s->is_stdin && s->fd >= 0 && !s->mem)
		close(s->fd);
	free(s->raw);
	memset(s, 0, sizeof *s);
	s->fd = -1; /* a second close must not close stdin */
}
