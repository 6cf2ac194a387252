/* partitions.h — partition offsets as `wmic partition get BlockSize, StartingOffset, Name, Index`
 * prints them: its fixed-width table, the same with the padding collapsed to single spaces (copied
 * through a mail or a ticket), /format:csv and /format:list (Key=Value blocks); often UTF-16LE
 * with CRLF or CRCRLF when redirected to a file. */
#ifndef IOPSY_PARTITIONS_H
#define IOPSY_PARTITIONS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct partition {
	const char *name;        /* "Disk #1, Partition #0" (arena) */
	long long offset, block_size;
	int index, disk;         /* disk -1 when the name has no "Disk #N" */
	const char *system;      /* the machine it is on (SystemName, or /format:csv's Node), NULL when
	                          * the listing does not say (arena) */
	long line;               /* of the table row, or of the record's first Key=Value line */
};

struct partitions {
	struct partition *p;
	size_t n;
	const char *system;      /* the first partition's machine, NULL when none names one */
	struct arena arena;
};

/* Reads path; returns 0 or ERR_IO/ERR_FORMAT with messages (file:line) through d. A line or
 * record that is not a partition is warned about and skipped; ERR_FORMAT when there is no header
 * (or Key=Value line) or when not one partition could be read. ps is the caller's to free with
 * partitions_free, also on error. */
int partitions_read(struct partitions *ps, const char *path, struct diag *d);
int partitions_parse(struct partitions *ps, const char *text, size_t len, struct diag *d);
void partitions_free(struct partitions *ps);

#endif
