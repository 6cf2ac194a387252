/* util.h — small shared building blocks: checked allocation, an arena, a growable byte
 * buffer, diagnostics sinks, atomic output files and time formatting. */
#ifndef IOPSY_UTIL_H
#define IOPSY_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

/* Exit codes (documented in iopsy.1 and --help). */
enum exit_code {
	EXIT_OK = 0,
	EXIT_FINDINGS = 1, /* findings at or above --fail-on */
	EXIT_USAGE = 2,
	EXIT_INPUT = 3,    /* unreadable or unrecognised input */
	EXIT_SYSTEM = 4,   /* out of memory, write error, ... */
};

/* Error codes returned by library functions (negative). */
enum err_code {
	ERR_NONE = 0,
	ERR_NOMEM = -1,
	ERR_IO = -2,      /* read or write failure (errno meaningful) */
	ERR_FORMAT = -3,  /* input is not what it should be */
	ERR_USAGE = -4,   /* bad argument */
	ERR_LIMIT = -5,   /* a documented safety limit was reached */
};

/* Allocation that never returns NULL: on failure prints and aborts the process with EXIT_SYSTEM.
 * Used for small bookkeeping where recovery is not meaningful. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
/* Room for element n of an array of n elements of size bytes that grows only through here:
 * doubled when n is 0 or a power of two, so appending n elements costs O(n) copying (realloc of
 * n + 1 each time is quadratic where realloc moves, as under ASan). Never NULL. */
void *xgrow(void *p, size_t n, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* A formatted string on the heap (never NULL; free it). */
char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvprintf(const char *fmt, va_list ap);
char *xstrndup(const char *s, size_t n);

/* Arena: many small allocations freed at once. */
struct arena_block;
struct arena {
	struct arena_block *head;
	size_t used_total;
};
void arena_init(struct arena *a);
void *arena_alloc(struct arena *a, size_t n);               /* 8-byte aligned, zeroed */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
/* printf into the arena */
char *arena_printf(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void arena_free(struct arena *a);

/* Growable byte buffer, always NUL-terminated. */
struct buf {
	char *data;
	size_t len, cap;
};
void buf_init(struct buf *b);
void buf_reserve(struct buf *b, size_t extra);
void buf_add(struct buf *b, const void *p, size_t n);
void buf_addc(struct buf *b, char c);
void buf_adds(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(struct buf *b, const char *fmt, va_list ap);
void buf_reset(struct buf *b);
void buf_free(struct buf *b);

/* Diagnostics. Library code reports through a caller-owned struct diag; the sink decides where
 * the text goes (stderr in main, a buffer in tests). Warnings are capped per diag (max_warnings);
 * diag_finish() reports how many were suppressed. */
/* DIAG_PLAIN: a message of its own wording, without a level word ("iopsy compare: match map
 * line 3: ..."). */
enum diag_level { DIAG_NOTE, DIAG_WARNING, DIAG_ERROR, DIAG_PLAIN };
/* Where messages go: fn(ctx, level, one message without its newline). fn NULL drops them. */
struct diag_sink {
	void (*fn)(void *ctx, enum diag_level lvl, const char *msg);
	void *ctx;
};
struct diag {
	const char *prefix;          /* the program part, NULL = "iopsy" ("iopsy analyze" for a
	                              * command's own messages) (borrowed) */
	const char *file;            /* name shown in messages, NULL = none (borrowed) */
	long max_warnings;           /* < 0: unlimited */
	bool cap_errors;             /* errors count against max_warnings too (a file of a million bad
	                              * lines is refused after the first few) */
	long warnings, errors, suppressed;
	struct diag_sink sink;
};
/* No sink: set d->sink before the first message. */
void diag_init(struct diag *d, const char *file, long max_warnings);
/* line/col 0 = unknown. Message is formatted as "PREFIX: FILE:LINE:COL: level: text". */
void diag_emit(struct diag *d, enum diag_level lvl, long line, long col, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));
void diag_finish(struct diag *d);
/* Sink that writes the message and a newline to the FILE * passed as ctx (the CLI passes stderr). */
void diag_sink_file(void *ctx, enum diag_level lvl, const char *msg);
/* Sink that appends messages (one per line) to a struct buf passed as ctx. */
void diag_sink_buf(void *ctx, enum diag_level lvl, const char *msg);

/* Atomic output: writes go to PATH.tmp.XXXXXX in the same directory; afile_commit() fsyncs-less
 * renames it over PATH; afile_abort() removes it. PATH "-" writes to stdout (commit flushes).
 * Open temporaries are registered so a signal handler can remove them (afile_cleanup_all). */
struct afile {
	FILE *fp;
	char *path, *tmp;
	bool is_stdout;
	bool in_place;          /* a device or FIFO, written directly */
	struct afile *next_open;
};
int afile_open(struct afile *af, const char *path);   /* 0 or ERR_IO (errno set) */
int afile_commit(struct afile *af);                   /* 0 or ERR_IO; the temp is removed on error */
void afile_abort(struct afile *af);
void afile_cleanup_all(void);                         /* async-signal-safe: system calls only */
/* The running helper's process group (pgid > 0; < 0: unchanged) and scratch folder (NULL:
 * unchanged) that afile_cleanup_all kills and removes on a signal; unregister when done. */
void scratch_register(pid_t pgid, const char *dir);
void scratch_unregister(void);
/* Writes n bytes to path atomically. 0, or ERR_IO with errno set and *what naming the step that
 * failed ("cannot create", "write error on", "cannot write") for the caller's message. */
int afile_write_all(const char *path, const void *data, size_t n, const char **what);

/* mkdir -p: creates the folder path and every missing parent (mode 0755, less the umask); an
 * existing folder is fine. 0, or ERR_IO with errno set (ENOTDIR when path or a parent is a file). */
int dir_make(const char *path);

/* Opens path for reading only when it is a regular file: a FIFO would wait for a writer (forever,
 * in an unattended run), a device might never end. The open itself never waits (O_NONBLOCK,
 * cleared once the file is known to be regular). Returns the fd (O_CLOEXEC), or -1 with the
 * reason in why ("No such file or directory", "a FIFO, not a regular file (it would wait for a
 * writer)", ...). */
int open_regular(const char *path, char *why, size_t cap);
/* The same as a stdio stream ("rb"); NULL with the reason in why. */
FILE *fopen_regular(const char *path, char *why, size_t cap);

/* Time: milliseconds since the Unix epoch, UTC. */
/* Formats as 2026-07-27T13:10:00Z (adds .mmm when ms != 0 and with_ms). out must hold 32 bytes. */
void time_format_iso(int64_t t_ms, bool with_ms, char out[32]);
/* Parses 2026-07-27T13:10:00Z / 2026-07-27 13:10:00 (UTC assumed); returns 0 or ERR_FORMAT. */
int time_parse_iso(const char *s, int64_t *t_ms);
int64_t days_from_civil(int64_t y, unsigned m, unsigned d);
/* Whether y-mo-d is a day of the Gregorian calendar (2026-02-29 is not; 2028-02-29 is). */
bool date_valid(int y, int mo, int d);

/* Escape bytes for a terminal line: printable UTF-8 kept, control characters and invalid UTF-8
 * bytes written as \xNN. */
/* Bidi controls (U+200E/F, U+202A-E, U+2066-9) in s[0..n) replaced in place by U+FFFD (the
 * same length): from a capture's names they would reorder what a reader of any report sees
 * around them (issue 38). Returns how many. */
size_t utf8_bidi_neutralise(char *s, size_t n);
void buf_add_text_escaped(struct buf *b, const char *s, size_t n);
bool utf8_valid(const char *s, size_t n);

/* Number parsing: the whole of [s, s+n) (surrounding spaces allowed) must be a finite C-locale
 * number; returns true and sets *v, else false. Accepts exponents (9.03e-005). */
bool parse_number(const char *s, size_t n, double *v);
/* The length of a VM name without the " (UUID)" esxtop may append ("APP02 (104c07ff-3663-44fb-9d89-
 * a563c801611c)" → 5): n when it has none. */
size_t vm_name_core(const char *s, size_t n);

/* Maps a library error (ERR_*) to the documented exit code. */
int exit_code_for(int err);
/* Monotonic clock in seconds (durations, progress). */
double now_seconds(void);

#endif
