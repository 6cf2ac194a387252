/* source.h — a byte stream from a file, stdin or a gzip file, decoded to UTF-8-compatible bytes:
 * gzip detected by magic bytes and inflated with zlib (members concatenated as gzip allows),
 * UTF-8 BOM stripped, UTF-16LE (with BOM)
 * converted to UTF-8. ANSI code-page text passes through unchanged, as bytes. */
#ifndef IOPSY_SOURCE_H
#define IOPSY_SOURCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "util.h"

/* Decompressed bytes are capped at this ratio to the compressed bytes once past
 * SOURCE_BOMB_MIN_BYTES (a gzip bomb gives a clear error instead of hours of work), for files
 * and pipes alike. See doc/limits.md. */
#define SOURCE_BOMB_RATIO 1000
#define SOURCE_BOMB_MIN_BYTES (256ull << 20)

enum source_encoding { SOURCE_BYTES, SOURCE_UTF8_BOM, SOURCE_UTF16LE, SOURCE_UTF16BE };

struct source {
	const char *name;           /* for messages (borrowed) */
	void *z;                    /* struct zsrc: pipes and gzip files (gzip inflated here) */
	void *mem;                  /* in-memory source state, NULL for files */
	int fd;
	bool is_stdin, gzip;
	bool plain;                 /* a regular uncompressed file read with read() */
	int64_t plain_off;
	int64_t total;              /* size of the (compressed) file, -1 when unknown */
	uint64_t bytes_out;         /* decoded bytes delivered */
	enum source_encoding enc;
	bool started;
	unsigned char *raw;         /* UTF-16 staging */
	size_t raw_len, raw_cap;
	unsigned pending_hi;        /* pending UTF-16 high surrogate, 0 if none */
	bool raw_eof;
	char spill[8];              /* decoded bytes that did not fit a small read */
	unsigned char spill_len, spill_pos;
	int err;                    /* sticky ERR_* */
	char *peek;                 /* the head source_peek read, handed out again first (stdin and
	                             * gzip cannot be re-read) */
	size_t peek_len, peek_pos;
	/* Optional progress hook, called after each read with compressed bytes consumed. */
	void (*progress)(void *ctx, int64_t done, int64_t total);
	void *progress_ctx;
};

/* Opens PATH ("-" = stdin). Returns 0, or ERR_IO with a message in d. */
int source_open(struct source *s, const char *path, struct diag *d);
/* The same for a side file (vmkernel.log, partitions): only a regular file is opened (a FIFO
 * would wait for a writer); "-" is not stdin. */
int source_open_regular(struct source *s, const char *path, struct diag *d);
/* Opens an in-memory buffer (borrowed; must outlive the source), for tests and fuzzing. */
int source_open_mem(struct source *s, const char *name, const void *data, size_t len, struct diag *d);
/* Reads up to n (>= 1) decoded bytes. Returns bytes read, 0 only at the end, or a negative ERR_*
 * (message in d). */
long source_read(struct source *s, char *out, size_t n, struct diag *d);
/* Reads the first n decoded bytes (fewer at the end of the input) and keeps them: the reads that
 * follow hand them out again first, so a format can be probed on the head of stdin or a gzip file
 * and the winner still reads from the first byte. Call before any source_read. Sets *head (owned by
 * the source, valid until source_close) and returns its length, or a negative ERR_* (message in d). */
long source_peek(struct source *s, size_t n, const char **head, struct diag *d);
/* True when a read never waits for a writer (a regular file, gzip'd or not, or memory; not
 * stdin or a pipe): a thread blocked in it can always be joined. */
bool source_never_blocks(const struct source *s);
/* Compressed bytes consumed so far (for progress). */
int64_t source_offset(const struct source *s);
void source_close(struct source *s);

#endif
