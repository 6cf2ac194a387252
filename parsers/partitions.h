/* partitions.h — partition offsets as `wmic partition get BlockSize, StartingOffset, Name, Index`
 * prints them (fixed-width columns, often UTF-16LE when redirected to a file). */
#ifndef IOPSY_PARTITIONS_H
#define IOPSY_PARTITIONS_H

#include <stddef.h>
#include <stdint.h>

#include "util.h"

struct partition {
	const char *name;        /* "Disk #1, Partition #0" (arena) */
	long long offset, block_size;
	int index, disk;         /* disk -1 when the name has no "Disk #N" */
	long line;
};

struct partitions {
	struct partition *p;
	size_t n;
	struct arena arena;
};

/* Reads path; returns 0 or ERR_IO/ERR_FORMAT with messages (file:line) through d. */
int partitions_read(struct partitions *ps, const char *path, struct diag *d);
int partitions_parse(struct partitions *ps, const char *text, size_t len, struct diag *d);
void partitions_free(struct partitions *ps);

#endif
