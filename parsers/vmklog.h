/* vmklog.h — the vmkernel.log lines that matter for storage queueing (PCRE2, keyed on the D:
 * status field: 0x28 TASK SET FULL, 0x8 BUSY; "Reduced the queue depth"; "performance has
 * deteriorated"). Plain or gzip; bounded: events beyond VMK_MAX_EVENTS are only counted. */
#ifndef IOPSY_VMKLOG_H
#define IOPSY_VMKLOG_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

enum vmk_kind { VMK_QFULL, VMK_BUSY, VMK_FAILED, VMK_REDUCE, VMK_DETERIORATE, VMK_IMPROVE };
#define VMK_MAX_EVENTS 200000

struct vmk_event {
	int64_t t;               /* UTC ms */
	enum vmk_kind kind;
	const char *device;      /* arena */
	const char *host;        /* the host a syslog-forwarded line names ("<ts> esx01 vmkernel:"),
	                          * NULL for a host's own log, whose lines name none (arena) */
	double value;            /* REDUCE: new depth; DETERIORATE: new latency in µs */
	unsigned host_status, dev_status;
	long line;
};

struct vmk_log {
	struct vmk_event *ev;
	size_t n, cap, dropped;
	long lines, unparsed_time;
	struct arena arena;
};

/* Reads path ("-" = stdin). Returns 0 or ERR_IO/ERR_FORMAT (message through d). */
int vmklog_read(struct vmk_log *log, const char *path, struct diag *d);
/* Reads one more log (a rotated vmkernel.0.gz, another host's log) into an already read log;
 * events stay ordered by time. Returns 0 or a negative ERR_*. */
int vmklog_append(struct vmk_log *log, const char *path, struct diag *d);
/* Parses text already in memory (tests). */
int vmklog_parse(struct vmk_log *log, const char *text, size_t len, struct diag *d);
void vmklog_free(struct vmk_log *log);
const char *vmk_kind_name(enum vmk_kind k);

#endif
