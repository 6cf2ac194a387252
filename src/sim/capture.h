/* capture.h — writers of the files a consultant receives, fed by the model as it runs:
 * the esxtop batch CSV (host), the perfmon relog CSV (guest), and the side files (vmkernel.log,
 * partitions.txt, disks.map, truth.json) written after the run. */
#ifndef IOPSY_SIM_CAPTURE_H
#define IOPSY_SIM_CAPTURE_H

#include <stdbool.h>

#include "model.h"

struct sim_esx;
struct sim_perf;

/* Lays out the columns (header written at once) and opens PATH atomically. Returns 0,
 * ERR_IO or ERR_NOMEM; *out is caller-owned and released by sim_esx_close. */
int sim_esx_open(struct sim_esx **out, const struct sim_config *c, struct sim_model *m, const char *path);
/* Number of columns including the timestamp (not counting the trailing empty field). */
long sim_esx_columns(const struct sim_esx *w);
/* Writes one row for the interval that ends at t seconds (the model's SIM_STREAM_ESX
 * accumulators hold it). Returns 0 or the first write error. */
int sim_esx_row(struct sim_esx *w, double t);
/* Commits (commit = true) or discards the file and frees w. Returns 0 or ERR_IO. */
int sim_esx_close(struct sim_esx *w, bool commit);

/* Last esxtop values of the storage counters, exposed for the tests: per device. */
struct sim_esx_dev_row {
	double dqlen, actv, qued, cmds, davg, kavg, gavg, qavg, usd, load;
};
const struct sim_esx_dev_row *sim_esx_last_dev(const struct sim_esx *w, int dev);

/* The guest whose perfmon is written: the first VM with a guest name. */
int sim_perf_open(struct sim_perf **out, const struct sim_config *c, struct sim_model *m, int vm, const char *path);
int sim_perf_row(struct sim_perf *w, double t, bool first);
int sim_perf_close(struct sim_perf *w, bool commit);

/* Side files; each returns 0 or ERR_IO/ERR_NOMEM. */
int sim_write_vmklog(const struct sim_config *c, const struct sim_model *m, const char *path);
int sim_write_partitions(const struct sim_config *c, int vm, const char *path);
int sim_write_disks_map(const struct sim_config *c, const char *path);
int sim_write_truth(const struct sim_config *c, const char *path);

#endif
