/* vmklog.h — the vmkernel.log lines that matter for storage queueing (PCRE2, keyed on the D:
 * status field: 0x28 TASK SET FULL, 0x8 BUSY; the H: host status of failed commands, 0x5 ABORT,
 * 0x8 RESET, in the ScsiDeviceIO and NMP line shapes; "last error status ... repeated N times";
 * "Reduced the queue depth"; "performance has deteriorated"; NMP path changes and ALUA path
 * states). Plain or gzip; bounded: events beyond VMK_MAX_EVENTS are only counted. */
#ifndef IOPSY_VMKLOG_H
#define IOPSY_VMKLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum vmk_kind {
	VMK_QFULL, VMK_BUSY, VMK_FAILED, VMK_REDUCE, VMK_DETERIORATE, VMK_IMPROVE,
	VMK_REPEAT,      /* "last error status from device X repeated N times" with no earlier error of X
	                  * in the log to repeat (one that has one takes its kind, with repeat set) */
	VMK_PATH,        /* NMP: the active path changed ("Changing active path from A to B"), a path
	                  * marked dead, a device "state in doubt" or awaiting a path failover */
	VMK_ALUA,        /* an ALUA (SATP) path state: AO, ANO, STANDBY, UNAVAILABLE, TRANSITIONING */
	VMK_RSV_LONG,    /* "Long VMFS rsv time on 'DATASTORE' (held for N msecs)": a VMFS metadata
	                  * reservation held long (device: the datastore's name; value: ms) */
};
#define VMK_MAX_EVENTS 200000

struct vmk_event {
	int64_t t;               /* UTC ms */
	enum vmk_kind kind;
	const char *device;      /* arena */
	const char *host;        /* the host a syslog-forwarded line names ("<ts> esx01 vmkernel:"),
	                          * NULL for a host's own log, whose lines name none (arena) */
	double value;            /* REDUCE: new depth; DETERIORATE: new latency in µs */
	unsigned host_status, dev_status;
	long count;              /* commands the line stands for: 1, or N of "repeated N times" */
	bool repeat;             /* a "repeated N times" line: kind and status are those of the
	                          * device's previous error in the log */
	const char *path;        /* the path the line names ("vmhba2:C0:T0:L5"), NULL if none (arena);
	                          * VMK_PATH with an active path change: the new path */
	const char *state;       /* VMK_PATH / VMK_ALUA: the state or change the line says ("dead",
	                          * "in doubt", "failover", "from vmhba2:C0:T0:L5", "STANDBY") (arena) */
	long line;
	int opcode;              /* VMK_FAILED/QFULL/BUSY: the failed command's SCSI opcode (0x89 COMPARE AND
	                          * WRITE, 0x28 READ(10), 0x2a WRITE(10)...), -1 when the line has none */
	int file;                /* the log it was read from: index in vmk_log.files */
};

/* An FC adapter's link coming up at a speed (issue 36): qlnativefc's "vmhbaN(...): LOOP UP detected
 * (16 Gbps)" and lpfc's "vmhbaN 1303 Link Up Event x.. received Data: x.. x.. x<speed code>". They
 * hold until the next one, so they are kept whatever their time (not trimmed to the captures). */
struct vmk_link {
	int64_t t;               /* UTC ms */
	const char *adapter;     /* "vmhba2" (arena) */
	const char *host;        /* a syslog-forwarded line's host, NULL for a host's own log (arena) */
	const char *driver;      /* "qlnativefc" or "lpfc" (static) */
	double gbps;             /* the nominal FC speed the line says (1, 2, 4, 8, 10, 16, 32, 64) */
	long line;
	int file;
};

/* One log read (vmklog_read, or each vmklog_append): its own counts, for the report's inputs. */
struct vmk_file {
	const char *path;        /* as given (arena), NULL for text parsed from memory */
	long lines, unparsed_time, unknown, unknown_line;
	const char *unknown_example; /* arena */
	size_t events, links, dropped;
};

struct vmk_log {
	struct vmk_event *ev;
	size_t n, cap, dropped;
	long lines, unparsed_time;
	long unknown;            /* lines naming a device or path that no family reads (issue 36) */
	long unknown_line;       /* the first of them, and its text (arena, shortened), NULL none */
	const char *unknown_example;
	struct vmk_link *links;  /* in the order read, by file */
	size_t nlinks, caplinks;
	struct vmk_file *files;  /* one per log read (lines, unknown... above are their sums) */
	size_t nfiles;
	struct arena arena;
};

/* Reads path ("-" = stdin) as the log's only file. Returns 0 or ERR_IO/ERR_FORMAT (message through d). */
int vmklog_read(struct vmk_log *log, const char *path, struct diag *d);
/* Reads one more log (a rotated vmkernel.0.gz, another host's log) into an already read log;
 * events stay ordered by time. Returns 0 or a negative ERR_*. */
int vmklog_append(struct vmk_log *log, const char *path, struct diag *d);
/* Parses text already in memory (tests). */
int vmklog_parse(struct vmk_log *log, const char *text, size_t len, struct diag *d);
void vmklog_free(struct vmk_log *log);
const char *vmk_kind_name(enum vmk_kind k);
/* A SCSI opcode's name ("COMPARE AND WRITE (the VMFS ATS heartbeat)" for 0x89), NULL when not
 * one of the IO and locking commands. */
const char *vmk_opcode_name(int op);

#endif
