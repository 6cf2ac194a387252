/* capture.h — writers of the files a consultant receives, fed by the model as it runs:
 * the esxtop batch CSV (host), the perfmon relog CSV (guest), and the side files (vmkernel.log,
 * partitions.txt, disks.map, truth.json) written after the run. */
#ifndef IOPSY_SIM_CAPTURE_H
#define IOPSY_SIM_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "model.h"

struct sim_esx;
struct sim_perf;

/* Lays out the columns of ESXi host `host` (header written at once) and opens PATH atomically
 * (PATH NULL: simulated, not written). Returns 0, ERR_IO or ERR_NOMEM; *out is caller-owned and
 * released by sim_esx_close. */
int sim_esx_open(struct sim_esx **out, const struct sim_config *c, struct sim_model *m, int host, const char *path);
/* The host index the writer was opened for. */
int sim_esx_host(const struct sim_esx *w);
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

/* The guest whose perfmon is written: the first VM with a guest name (PATH NULL: not written). */
int sim_perf_open(struct sim_perf **out, const struct sim_config *c, struct sim_model *m, int vm, const char *path);
int sim_perf_row(struct sim_perf *w, double t, bool first);
int sim_perf_close(struct sim_perf *w, bool commit);

/* The LogicalDisk/PhysicalDisk counters perfmon.c writes, in relog's order (a few indexes named
 * for other writers), and the values of one disk from its interval accumulator: rates per second,
 * latencies in seconds, queue lengths by Little's law, % Idle Time from idle_s (o has SIM_PM_NDISK
 * slots; Current Disk Queue Length and free space are left to the caller). */
enum { SIM_PM_FREE_PCT = 0, SIM_PM_FREE_MB = 1, SIM_PM_CDQL = 2, SIM_PM_SEC_T = 9, SIM_PM_XFER = 12,
       SIM_PM_SPLIT = 22, SIM_PM_NDISK = 23 };
extern const char *const sim_pm_disk_counters[SIM_PM_NDISK];
void sim_pm_disk_values(const struct sim_acc *a, double secs, double *o);
/* US Pacific daylight saving time at utc_ms (perfmon's bias: 420 then, else 480). */
bool sim_us_dst(int64_t utc_ms);

/* File names of host h's esxtop capture and vmkernel.log: esxtop.csv[.gz] and vmkernel.log for
 * one host, esxtop-<host>.csv[.gz] and vmkernel-<host>.log (short host name) for several. */
void sim_capture_name(const struct sim_config *c, int h, char *out, size_t n);
void sim_vmklog_name(const struct sim_config *c, int h, char *out, size_t n);

/* Side files; each returns 0 or ERR_IO/ERR_NOMEM. */
/* vmkernel.log of ESXi host `host`: the events of its devices plus benign noise. */
int sim_write_vmklog(const struct sim_config *c, const struct sim_model *m, int host, const char *path);
int sim_write_partitions(const struct sim_config *c, int vm, const char *path);
int sim_write_disks_map(const struct sim_config *c, const char *path);
int sim_write_truth(const struct sim_config *c, const char *path);
/* What each layer's coverage is for this capture set: "assessed", "partial" or "not_assessed"
 * (SIM_LAYER_* order), before the scenario's overrides. Strings are static. */
void sim_coverage(const struct sim_config *c, const char *out[SIM_NLAYER]);

#endif
