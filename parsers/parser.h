/* parser.h — the input formats: one table of parser_ops (name, summary, host/guest role, probe,
 * header, classify and the reader), the reader interface the engine reads every capture through
 * (struct reader, reader_*), and the types every format and reader share: counter paths, columns,
 * header facts, reader options, rows and counts. */
#ifndef IOPSY_PARSER_H
#define IOPSY_PARSER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "source.h"
#include "tz.h"
#include "util.h"
#include "vocab.h"

/* A counter path split as doc/domain.md §7 says: host = up to the first '\' after "\\";
 * counter = after the last '\'; object = the middle up to its first '('; instance = from there
 * to the last ')'. All strings are arena-owned; instance is NULL when the path has none.
 * ok = false when the text is not a counter path (then only counter = the whole text). */
struct pdh_path {
	const char *host, *object, *instance, *counter;
	bool ok;
};

struct pdh_column {
	const char *name;       /* header text as in the file (arena-owned, may be non-UTF-8) */
	size_t name_len;
	struct pdh_path path;
	long field;             /* 1-based CSV field number (the time stamp is field 1) */
};

/* What a format reads from the header's first cell. */
struct pdh_header_info {
	int bias_min;            /* UTC = local + bias */
	bool bias_known;
	char zone[96];
};
struct pdh_options {
	const char *format;      /* NULL or "auto" = probe; else a format name */
	int tz_bias_min;         /* fallback bias when the header has none (--tz); UTC = local + bias */
	bool tz_given;
	const struct tz *tz;     /* --tz as an IANA zone (borrowed): perfmon local times without a
	                          * header bias get the offset in force at each time stamp */
	long max_warnings;       /* per file; < 0 unlimited */
	bool no_fast_path;       /* tests: send every line through libcsv */
	int threads;             /* threads reading the rows (mtread.h): 0 = auto (two for an
	                          * uncompressed file of PDH_MT_AUTO_MIN bytes and more, when there
	                          * are two CPUs), 1 = the caller's only */
	/* A time window (--from/--to, resolved to UTC by the engine): rows whose time stamp is
	 * outside [win_from, win_to] are read (the DST and order checks see them) but not handed
	 * out; pdh_stats counts them. */
	bool win_on;
	int64_t win_from, win_to;
	/* The format reader_open probed from the head (parser_probe); its reader reads it as given and
	 * probes nothing. NULL when the caller opens a reader directly. */
	const struct parser_ops *probed;
};

struct pdh_row {
	int64_t t_ms;            /* UTC */
	int64_t local_ms;        /* the wall clock the file wrote (t_ms minus bias and DST shifts) */
	long line;               /* line where the row starts */
	bool discontinuity;      /* time went backwards or jumped here */
};

/* Counters for summaries (reader_stats). */
#define PDH_MAX_DST 8
struct pdh_stats {
	long rows, skipped_rows, junk_lines, glitches, nonnumeric, backwards, dst_shifts, same_time;
	long outside;            /* rows outside the time window (pdh_options.win_*), not handed out */
	/* the DST changes found in a local-time file (the clock jumped or went back): from the UTC
	 * time dst_at[k] on, its local time is UTC + dst_off_min[k] minutes (the first PDH_MAX_DST) */
	int ndst;
	int64_t dst_at[PDH_MAX_DST];
	int dst_off_min[PDH_MAX_DST];
	bool have_t;
	int64_t t_min, t_max;    /* UTC span of every row read, the window's outside ones too */
};

/* What a reader found in the file's head besides the columns. */
struct reader_facts {
	struct pdh_header_info hi; /* the header's first cell (parser_ops.header) */
	long header_line;        /* line of the header (warnings about the columns point there) */
	bool tsv, excel;         /* framing: tab-separated; re-saved by Excel */
};

/* An opened capture. A reader's own state begins with this (the PDH reader's struct pdh_reader,
 * a test's in-memory table); everything else about it is reached through ops, which is the
 * format that reads it (probed or given): the engine reads a capture only through the reader_*
 * calls below, never through a format's internals. */
struct reader {
	const struct parser_ops *ops;
};

/* A capture's role: a host capture (esxtop) sees the hypervisor's layers, a guest capture
 * (perfmon) the Windows disks. The engine decides host vs guest by this, never by a name. */
enum parser_role { ROLE_HOST, ROLE_GUEST };
extern const char *const parser_role_names[2]; /* "host", "guest" */

/* What classify makes of a counter column: the layer, entity and metric it measures, the scale to
 * the metric's unit (perfmon seconds → ms), and the format's extra knowledge about the entity. */
struct counter_class {
	enum layer layer;
	int metric;              /* enum metric */
	double scale;
	char entity[256];        /* "naa.…", "vmhba2", "SQL01:scsi0:1", "D:", VM name */
	char parent[256];        /* a per-world column: the device the world drives; "" otherwise */
	int pass;                /* columns are resolved in pass order (0 first): the preferred source of
	                          * an (entity, metric) wins when two columns give it */
	bool aggregate;          /* the instance is the aggregate of the others (perfmon _Total): the
	                          * engine keeps it only when the capture has no per-instance column */
	bool nfs;                /* a device that is an NFS datastore (esxtop "Physical Disk NFS
	                          * Volume"): no VMkernel device queue, no DAVG/KAVG, only the latency
	                          * the VMs see (Average Guest MilliSec) and rates */
	int disk_no;             /* a Windows disk number this column names ("1 D:"), -1 when none */
	char disk_drive[4];      /* and its first drive letter ("D:") */
	char disk_letters[28];   /* every drive letter it names, upper case without colons ("1 D: E:" -> "DE") */
	unsigned char combine;   /* several columns give this (entity, metric), all to be combined:
	                          * COMBINE_FIRST (the first wins, the others are duplicates),
	                          * COMBINE_SUM, COMBINE_MEAN (of the values a row has): a Hyper-V VM's
	                          * virtual processors are one VM */
};
enum { COMBINE_FIRST, COMBINE_SUM, COMBINE_MEAN };

/* One input format (doc/architecture.md, "The tables"). reader_open probes every row on the head
 * of a file and opens the winner's reader. The PDH-CSV/TSV formats (esxtop, perfmon, hyperv) share
 * the PDH reader (pdh.h); a format with another framing brings its own (fmt_vscsistats.c,
 * tests/check_reader.c). A new format is one file and one row of parsers[]. Strings are static. */
struct parser_ops {
	const char *name;
	const char *summary;
	/* The head of a small file of this format: the registry test (tests/check_registry.c) checks
	 * that this row's probe wins on it over every other row's. */
	const char *sample;
	enum parser_role role;
	/* Confidence 0..100 that the head of a file (decoded bytes, up to PARSER_HEAD, NUL-terminated)
	 * is this format. */
	int (*probe)(const char *head, size_t len);
	/* Optional (NULL: the format names no host): the host a capture of this format names, from the
	 * same head, into host (cap bytes); false when the head names none. The engine orders and
	 * groups captures by it (capture_order), never by sniffing a format's text itself. */
	bool (*host)(const char *head, size_t len, char *host, size_t cap);
	/* Interprets the first header cell; fills hi. Returns 0 or ERR_FORMAT with a message in d. */
	int (*header)(const char *cell, size_t len, const struct pdh_options *o, struct pdh_header_info *hi,
		      struct diag *d);
	/* Local-time files: detect a repeated DST hour and shift later rows by +1 h. */
	bool local_time;
	/* Its columns are histograms, not time series (vscsiStats: object "vscsiStats KIND", instance
	 * the disk, counters min/max/mean/count and "<= L"/"> L" buckets, row k the k-th snapshot):
	 * the analysis reads them as evidence (src/engine/vhist.h), the capture model keeps none. */
	bool histograms;
	/* Treat 4294967295 (2^32-1) and 2^64-1 as a counter glitch (missing). */
	bool glitch_values;
	/* Counter path → layer, entity, metric, scale. Returns the metric, or -1 when the column is
	 * not one the capture model keeps. */
	int (*classify)(const struct pdh_path *p, struct counter_class *out);
	/* Optional (NULL: none): one pass over all the columns of an opened capture, before any
	 * classify, for what a column's name alone cannot tell. It sets skip[i] (reader_ncols(r)
	 * entries, all false on entry) for the columns classify would take that the rest of the
	 * header shows are not what their names say; the capture model calls it once per capture
	 * and leaves those columns out. esxtop: a Group Cpu is a VM only when the capture shows a
	 * VMX world in it, so the % Ready of system groups (system, helper, hostd, ...) is skipped. */
	void (*prepare)(const struct reader *r, bool *skip);
	/* Optional (NULL: the format names no worlds): the world a column names, for --vm to find
	 * the devices a VM drives. A world of a VM (esxtop Vcpu(GID:VM:WID:WORLD)) gives its id and
	 * the VM's name in vm; a per-world IO column (Per-Device-Per-World(DEVICE-WID)) its id and
	 * vm = "". Returns false for other columns. */
	bool (*world_of)(const struct pdh_path *p, long *wid, char *vm, size_t vmcap);
	/* Optional (NULL: none): a VM's group column (esxtop Group Cpu(GID:VM)): the group id (the
	 * worldGroupID vscsiStats names) and the VM's name in vm. False for other columns. */
	bool (*group_of)(const struct pdh_path *p, long *gid, char *vm, size_t vmcap);
	/* The reader (pdh.h: PDH_READER fills them for the PDH-CSV family). open reads the head of
	 * src (borrowed, must outlive the reader) up to the first row: 0, or ERR_FORMAT/ERR_IO/
	 * ERR_LIMIT with a message in d; *out is freed with close. The rest as reader_* below. */
	int (*open)(struct reader **out, struct source *src, const struct pdh_options *o, struct diag *d);
	size_t (*ncols)(const struct reader *r);
	const struct pdh_column *(*column)(const struct reader *r, size_t i);
	void (*facts)(const struct reader *r, struct reader_facts *f);
	void (*select)(struct reader *r, const bool *want);
	int (*next)(struct reader *r, struct pdh_row *row);
	bool (*value)(struct reader *r, size_t i, double *v);
	const char *(*text)(const struct reader *r, size_t i, size_t *len);
	const struct pdh_stats *(*stats)(const struct reader *r);
	void (*close)(struct reader *r);
};

extern const struct parser_ops parser_esxtop;
extern const struct parser_ops parser_perfmon;
extern const struct parser_ops parser_hyperv;
extern const struct parser_ops parser_vscsistats;
/* All formats, NULL-terminated (names in --help and errors come from here). */
extern const struct parser_ops *const parsers[];
/* Bytes of a file's head the formats are probed on. */
#define PARSER_HEAD (1u << 20)
/* The table's format most confident that head is its own (*conf its confidence), or NULL when
 * none is (every probe said 0). */
const struct parser_ops *parser_probe(const char *head, size_t len, int *conf);
/* The format named name, or NULL. */
const struct parser_ops *parser_find(const char *name);
/* "esxtop, perfmon" (static storage). */
const char *parser_names(void);
/* A format outside the table (the hook a test reader uses; not thread-safe, call before reading):
 * parser_find and --format find it, probing and parser_names do not. Returns 0, or ERR_LIMIT
 * when PARSER_MAX_EXTRA are registered. */
#define PARSER_MAX_EXTRA 4
int parser_register(const struct parser_ops *ops);

/* ---- reading a capture: the engine's only way in ---- */

/* Opens a reader over src: the format o->format names (its open), or, when none is named, the
 * format parser_probe finds on the head of src (source_peek: stdin and gzip too, the bytes are
 * read again by the winner). A head no format recognises, or an unknown name, goes to the first
 * row's reader, whose errors say what a capture should look like (empty, binary, no header). */
int reader_open(struct reader **out, struct source *src, const struct pdh_options *o, struct diag *d);
/* The format reading r (its classify, role, ...). */
static inline const struct parser_ops *reader_format(const struct reader *r) { return r->ops; }
/* Counter columns (the time stamp is none of them) and column i of them. */
static inline size_t reader_ncols(const struct reader *r) { return r->ops->ncols(r); }
static inline const struct pdh_column *reader_column(const struct reader *r, size_t i) { return r->ops->column(r, i); }
static inline void reader_facts(const struct reader *r, struct reader_facts *f) { r->ops->facts(r, f); }
/* Chooses which columns next() keeps (want[ncols]); NULL keeps all. Call before the first row. */
static inline void reader_select(struct reader *r, const bool *want) { r->ops->select(r, want); }
/* Next complete row: 1, 0 at end of input, or a negative ERR_* (message in the open's diag). */
static inline int reader_next(struct reader *r, struct pdh_row *row) { return r->ops->next(r, row); }
/* Value of selected column i in the current row: true with *v, false when missing. */
static inline bool reader_value(struct reader *r, size_t i, double *v) { return r->ops->value(r, i, v); }
/* Raw text of selected column i in the current row (borrowed until the next reader_next). */
static inline const char *reader_text(const struct reader *r, size_t i, size_t *len) { return r->ops->text(r, i, len); }
/* Rows read, skipped, outside the window, DST changes, time span: final after the last row. */
static inline const struct pdh_stats *reader_stats(const struct reader *r) { return r->ops->stats(r); }
/* NULL is a no-op. */
static inline void reader_close(struct reader *r)
{
	if (r)
		r->ops->close(r);
}

/* ---- helpers for the format modules' classify ---- */

/* A format's counter names → metric and scale; tables end with a NULL counter. */
struct counter_map {
	const char *counter;
	int metric;
	double scale;
};
/* The metric of counter in t (setting *scale), or -1. */
int counter_lookup(const struct counter_map *t, const char *counter, bool caseless, double *scale);
/* Copies n bytes of s into out (cap bytes, truncated, NUL-terminated). */
void class_copy(char *out, size_t cap, const char *s, size_t n);
/* An empty class: no metric, scale 1, pass 0, no disk number. */
void class_init(struct counter_class *c);

#endif
