/* anopts.h — the one table of analysis options (in the manner of curl's option table): each row
 * is an option of one analysis that `analyze`, `compare` (for both sides, or one side with a
 * --before-/--after- prefix) and a batch manifest's set take — its name, argument and range,
 * where its value lands, who takes it and its help — with the one validator they all call, and
 * the one loader of an analysis's inputs (rules, disk map, vmkernel.log, partitions, captures).
 * A new analysis option is a row here, its consumer, and its docs (tests/check_registry.c walks
 * the table against --help, doc/iopsy.1 and doc/batch.md). */
#ifndef IOPSY_ANOPTS_H
#define IOPSY_ANOPTS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"
#include "window.h"

enum anopt_type {
	ANT_INT,                 /* a whole number in [min, max] */
	ANT_DOUBLE,              /* a number in [min, max] */
	ANT_FLAG,                /* no value: sets a bool */
	ANT_PATH,                /* a file; given again, the later one is used */
	ANT_PATHS,               /* a file; repeated for more, at most ANOPT_MAX_FILES */
	ANT_TIME,                /* a bound of the time window (twin_parse): a struct twin_bound */
};

/* Who takes a row. */
enum {
	ANF_ANALYZE = 1u << 0,   /* iopsy analyze --NAME */
	ANF_COMPARE = 1u << 1,   /* iopsy compare --NAME, for both sides */
	ANF_SIDED = 1u << 2,     /* iopsy compare --before-NAME / --after-NAME, for one side */
	ANF_MANIFEST = 1u << 3,  /* a manifest key NAME (a comparison's both sides) */
	ANF_MANIFEST_SIDED = 1u << 4, /* manifest keys before-NAME / after-NAME, for one side */
};

/* The input file a row names, for the loader (and the manifest's file roles). */
enum an_input { AN_IN_NONE, AN_IN_RULES, AN_IN_MAP, AN_IN_VMKLOG, AN_IN_PARTITIONS };

#define ANOPT_MAX_FILES 32

/* What the rows land in: one analysis's options and its input files besides the captures
 * (strings borrowed: argv, or the manifest's set). */
struct an_values {
	struct analyze_opts ao;
	const char *rules, *map, *partitions;
	const char *vmklog[ANOPT_MAX_FILES];
	size_t nvmklog;
	struct twin_bound win[2];  /* --from, --to (TW_FROM, TW_TO) */
	unsigned long long own;  /* a side's values: the rows (1 << index) its own option set
	                          * (--before-/--after-NAME), which the plain --NAME then leaves */
};

struct anopt {
	const char *name;        /* the long option without "--", and the manifest key */
	const char *arg;         /* the value's name in --help ("N", "SEC", "FILE"); NULL for a flag */
	enum anopt_type type;
	double min, max;         /* ANT_INT, ANT_DOUBLE: the range, both included */
	size_t off;              /* the field in struct an_values (int, double, bool, const char *,
	                          * struct twin_bound, or for ANT_PATHS the first of ANOPT_MAX_FILES) */
	size_t given;            /* ANT_INT/ANT_DOUBLE: a bool set when given; ANT_PATHS: the size_t
	                          * count; 0 none (offset 0 is never one of these) */
	enum an_input input;     /* the file it names, AN_IN_NONE for a value */
	unsigned flags;          /* ANF_* */
	const char *want;        /* what a good value is, for errors: "a positive number" */
	const char *help;        /* what it means, one line (each command's --help words it for its
	                          * use; check_registry holds them to the table) */
};

/* The rows, ended by one without a name. */
extern const struct anopt anopts[];

/* The row named name that flags allow (any of them; 0: any row), or NULL. */
const struct anopt *anopt_find(const char *name, unsigned flags);

#define ANOPT_MAX_ROWS 64     /* an_values.own has a bit per row */

enum { ANOPT_BAD = -1, ANOPT_TOO_MANY = -2 };
/* Sets row o's value from val (NULL for a flag, or a manifest's yes/true/1 or no/false/0 for it)
 * into v. Returns 0, ANOPT_BAD (val is not o->want;
 * *why, when why is not NULL, says why: o->want, or the window parser's reason, static) or
 * ANOPT_TOO_MANY (an ANT_PATHS row given more than ANOPT_MAX_FILES times). val is borrowed for
 * path and time rows: it must outlive v. */
int anopt_set(const struct anopt *o, const char *val, struct an_values *v, const char **why);
/* The values of one side: dst (the values for both sides) with the rows side set itself
 * (side->own) taken from side. */
void anopt_overlay(struct an_values *dst, const struct an_values *side);

/* ---- the one loader of an analysis's inputs (analyze, each side of compare, a batch set) ---- */

/* Where the loader's messages go. */
struct an_load {
	struct diag_sink sink;
	const char *prefix;      /* the messages' program part, NULL = "iopsy" */
	long max_warnings;       /* per vmkernel.log and partitions file (< 0: all) */
};

/* Reads one input file into a: a rules file on top of a->rules, a disk map's lines (its good
 * lines even when some are wrong), a vmkernel.log merged with those read before, a partitions
 * file (the first readable one counts: with one read already, this one is skipped and 0
 * returned). Messages carry the file and its line. Returns 0 or the reader's negative ERR_*. */
int analysis_load_input(struct analysis *a, enum an_input in, const char *path, const struct an_load *how);
/* v's vmkernel.logs (merged in time order) and partitions file. Returns 0, or ERR_IO when one
 * could not be read (the others are). */
int analysis_load_side_files(struct analysis *a, const struct an_values *v, const struct an_load *how);

/* What the capture loader asks its caller: whether capture i (of paths) may be read now (NULL:
 * all are), and what reading it gave (0 or ERR_*; NULL: nothing). */
struct an_capture_hooks {
	bool (*may_read)(void *ctx, size_t i);
	void (*done)(void *ctx, size_t i, int rc);
	void *ctx;
};
/* Reads the captures paths[0..n-1] into a's model, one host's files together in time order
 * (capture_order), with co's format, window, zone and sink. Returns how many were read. */
size_t analysis_load_captures(struct analysis *a, char *const *paths, size_t n, const struct common_opts *co,
			      const struct an_capture_hooks *h);

#endif
