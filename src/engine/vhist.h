/* vhist.h — evidence from histogram captures (a format whose parser_ops.histograms is set:
 * vscsiStats): the outstanding-IO histogram against the vSCSI per-disk limit, the latency tail and
 * the IO sizes of each virtual disk, said beside the findings (input_said). A histogram has no time
 * axis: the sentences say what it cannot show. */
#ifndef IOPSY_VHIST_H
#define IOPSY_VHIST_H

#include "input.h"

/* Reads the histogram capture path (again: the model kept none of its columns) and hands say one
 * sentence per virtual disk, with its VM's worldGroupID (-1 when none): what its histograms show
 * and what they cannot. Returns the number of disks said, or a negative ERR_*. */
int vhist_read(const char *path, const struct common_opts *co,
	       void (*say)(void *ctx, long gid, const char *text), void *ctx);

#endif
