/* build.h — the building blocks of simulator scenarios (see build.c): topology, workloads and
 * truth entries, shared by the scenario files. Every function writes into the caller's config;
 * pointers returned point into it (borrowed). */
#ifndef IOPSY_SIM_BUILD_H
#define IOPSY_SIM_BUILD_H

#include <stdbool.h>
#include <stddef.h>

#include "sim/model.h"

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

#endif
