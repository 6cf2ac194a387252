/* build.h — the building blocks of simulator scenarios (see build.c): topology, workloads and
 * truth entries, shared by the scenario files. Every function writes into the caller's config;
 * pointers returned point into it (borrowed). */
#ifndef IOPSY_SIM_BUILD_H
#define IOPSY_SIM_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "model.h"

/* Array presets: service per 8 KiB read/write, per-KiB cost, parallelism behind the LU. */
enum sc_array { SC_ARRAY_FLASH, SC_ARRAY_HYBRID, SC_ARRAY_SLOW };

/* The common host: a local boot device on vmhba0, two FC HBAs (vmhba2, vmhba3). */
struct sc_host {
	int hba0, hba2, hba3;
};

/* SQL Server VM with C: (OS), D: (data), E: (log), F: (tempdb), each on its own LUN. */
struct sc_sql {
	int vm, ctrl;
	struct sim_vdisk *c, *d, *e, *f;
	int dev_c, dev_d, dev_e, dev_f;
};

/* Bounded copy that tolerates overlapping storage. */
void sc_copy_str(char *dst, size_t n, const char *src);
/* Each add_* returns the index of the new entity (adapter, device, VM, controller). */
int sc_add_adapter(struct sim_config *c, const char *name, int aqlen, bool local);
int sc_add_dev(struct sim_config *c, int adapter, int lun, enum sc_array kind);
int sc_add_local_boot(struct sim_config *c, int adapter);
int sc_add_vm(struct sim_config *c, const char *name, const char *guest, int vcpus);
int sc_add_ctrl(struct sim_config *c, int vm, int bus, enum sim_ctrl_kind kind);
struct sim_vdisk *sc_add_vdisk(struct sim_config *c, int vm, int ctrl, int target, int dev, const char *drive,
			       int disk_no, double size_gb);
void sc_set_load(struct sim_vdisk *v, double pop, double think_ms, double read_frac, double rkib, double wkib);
void sc_add_phase(struct sim_vdisk *v, double t0, double t1, double pop, double think_ms);
void sc_add_bg_phase(struct sim_dev *d, double t0, double t1, double mult);
/* Truth: an expected finding over [t0, t1] (fractions of the duration); host is for guest entities. */
void sc_expect(struct sim_config *c, const char *kind, const char *entity, const char *host, double t0, double t1);
/* sc_absent(c, "kind", ..., NULL): kinds that must not be reported. */
void sc_absent(struct sim_config *c, ...);
void sc_absent_all(struct sim_config *c);
/* Kinds whose cause only their own scenarios produce. */
void sc_absent_unrelated(struct sim_config *c);
struct sc_host sc_host_base(struct sim_config *c);
/* A bystander VM on its own LUN: light IO, no perfmon, a name with spaces and parentheses. */
void sc_bystander(struct sim_config *c, struct sc_host *h);
struct sc_sql sc_sql_vm(struct sim_config *c, struct sc_host *h, const char *name, enum sim_ctrl_kind kind,
			enum sc_array data_array, int lun0);

/* Newer scenarios: a phase at absolute seconds; an array service-time phase (fractions); an
 * expected finding at absolute seconds; a device event; a second ESXi host; an NFS or vSAN
 * datastore (device of that kind named by the datastore). */
void sc_add_phase_abs(struct sim_vdisk *v, double t0_s, double t1_s, double pop, double think_ms);
void sc_add_svc_phase(struct sim_dev *d, double t0, double t1, double mult, double par_mult);
void sc_expect_abs(struct sim_config *c, const char *kind, const char *entity, const char *host, double t0_s,
		   double t1_s);
int sc_add_devev(struct sim_config *c, int dev, enum sim_devev_kind kind, double t0_s, double t1_s, double add_ms);
void sc_add_host(struct sim_config *c, const char *name);
int sc_add_nas(struct sim_config *c, const char *datastore, enum sim_dev_kind kind, enum sc_array array);

/* The newer scenarios (scenario_next.c), listed in scenario.c's table. */
void sc_build_peak_fixed(struct sim_config *c, int part);
void sc_build_peak_missed(struct sim_config *c, int part);
void sc_build_tail_worse(struct sim_config *c, int part);
void sc_build_capacity_gain(struct sim_config *c, int part);
void sc_build_worse_equal_load(struct sim_config *c, int part);
void sc_build_unchanged_pair(struct sim_config *c, int part);
void sc_build_length_pair(struct sim_config *c, int part);
void sc_build_window_pair(struct sim_config *c, int part);
void sc_build_rw_trade(struct sim_config *c, int part);
void sc_build_too_short(struct sim_config *c, int part);
void sc_build_day_stall(struct sim_config *c, int part);
void sc_build_day_incident(struct sim_config *c, int part);
void sc_build_incident(struct sim_config *c, int part);
void sc_build_flicker(struct sim_config *c, int part);
void sc_build_two_host_lu(struct sim_config *c, int part);
void sc_build_sioc_flash(struct sim_config *c, int part);
void sc_build_nfs(struct sim_config *c, int part);
void sc_build_vsan(struct sim_config *c, int part);
void sc_build_nfs_mixed(struct sim_config *c, int part);
void sc_build_alua_failover(struct sim_config *c, int part);
void sc_build_slow_hba(struct sim_config *c, int part);
void sc_build_mixed_intervals(struct sim_config *c, int part);
void sc_build_path_failover(struct sim_config *c, int part);
void sc_build_backup_large_io(struct sim_config *c, int part);
void sc_build_queue_depth_raised(struct sim_config *c, int part);
void sc_build_unmap_storm(struct sim_config *c, int part);
void sc_build_log_disk_slow(struct sim_config *c, int part);
void sc_build_total_only(struct sim_config *c, int part);
void sc_build_no_disk_counters(struct sim_config *c, int part);
void sc_build_sql_log_cpu(struct sim_config *c, int part);
void sc_build_sql_log_storage(struct sim_config *c, int part);
void sc_build_storage_vmotion(struct sim_config *c, int part);
void sc_build_snapshot_amplification(struct sim_config *c, int part);
void sc_build_alua_failover_guessed(struct sim_config *c, int part);
void sc_build_guest_paging(struct sim_config *c, int part);
void sc_build_host_swap(struct sim_config *c, int part);
void sc_build_perfmon_other_day(struct sim_config *c, int part);
/* scenario_h36.c (issue 36) */
void sc_build_iscsi_vmknic(struct sim_config *c, int part);
void sc_build_hba_line_rate(struct sim_config *c, int part);
void sc_build_oltp_470(struct sim_config *c, int part);
void sc_build_coarse_300(struct sim_config *c, int part);
void sc_build_vnvme(struct sim_config *c, int part);
void sc_build_reservation_storm(struct sim_config *c, int part);
void sc_build_striped_slow_member(struct sim_config *c, int part);
void sc_build_spaces_slow_member(struct sim_config *c, int part);
void sc_build_striped_healthy(struct sim_config *c, int part);

#endif
