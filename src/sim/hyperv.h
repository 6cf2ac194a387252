/* hyperv.h — the simulated Hyper-V host (doc/simulate.md "Hyper-V scenarios"): VMs whose VHDX files
 * sit on two Cluster Shared Volumes, each on its own LUN, solved per time step like the ESXi model
 * (closed thread pools against a latency-dependent LUN queue) and written as the host's perfmon
 * (hyperv.csv) and the SQL Server guest's (perfmon.csv), with truth.json. */
#ifndef IOPSY_SIM_HYPERV_H
#define IOPSY_SIM_HYPERV_H

#include "model.h"

/* Which host a Hyper-V scenario runs (sim_config.hyperv; 0 is the ESXi model). */
enum sim_hv {
	SIM_HV_NONE,
	SIM_HV_HEALTHY,
	SIM_HV_QOS,
	SIM_HV_CSV_REDIRECTED,
	SIM_HV_NOISY,
	SIM_HV_GUEST_QUEUE,
	SIM_HV_VCPU_WAIT,
	SIM_HV_HOST_ONLY,
	SIM_HV_MOVE_CSV,
};

/* Scenario builders for the table in scenario.c: set c->hyperv and the truth. */
void sim_hv_build_healthy(struct sim_config *c, int part);
void sim_hv_build_qos(struct sim_config *c, int part);
void sim_hv_build_csv_redirected(struct sim_config *c, int part);
void sim_hv_build_noisy(struct sim_config *c, int part);
void sim_hv_build_guest_queue(struct sim_config *c, int part);
void sim_hv_build_vcpu_wait(struct sim_config *c, int part);
void sim_hv_build_host_only(struct sim_config *c, int part);
void sim_hv_build_move_csv(struct sim_config *c, int part);

/* What a Hyper-V run wrote (run.c copies it into its struct sim_result). */
struct sim_hv_result {
	const char *failed_file;   /* file being written when an error happened (static string) */
	long host_columns;         /* hyperv.csv columns including the timestamp */
	long host_rows, guest_rows;
};

/* Runs the Hyper-V host of c into dir: hyperv.csv[.gz], perfmon.csv[.gz] (unless the scenario has
 * no guest capture), disks.map where the scenario wants one, truth.json. Returns 0 or a negative
 * ERR_* code (errno meaningful for ERR_IO); res (caller-owned) says what was written. */
int sim_hv_run(const struct sim_config *c, const char *dir, struct sim_hv_result *res);

#endif
