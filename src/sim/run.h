/* run.h — builds a scenario configuration from the command-line options and runs it into a
 * directory; the seam the tests use to watch the model while it writes. */
#ifndef IOPSY_SIM_RUN_H
#define IOPSY_SIM_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "capture.h"
#include "model.h"
#include "scenario.h"

struct sim_opts {
	uint64_t seed;
	int64_t start_ms;
	double duration, interval;
	int width;
	bool gzip, all_counters;
	/* given on the command line (else the scenario's default, if it has one) */
	bool duration_set, interval_set, width_set, perf_interval_set;
	double perf_interval;           /* --perfmon-interval */
	enum sim_only only;             /* --only */
	enum sim_pdisks perf_disks;     /* --perfmon-disks */
	bool sql_counters;              /* --sql-counters */
	char sql_instance[32];          /* --sql-instance (implies --sql-counters) */
	double busy_share;              /* --busy-share; 0 = the scenario's default */
};

/* Observers called during sim_run (any may be NULL). */
struct sim_hooks {
	void *ctx;
	void (*on_step)(void *ctx, const struct sim_model *m);
	void (*on_esx_row)(void *ctx, const struct sim_model *m, const struct sim_esx *w, double t);
};

/* What a run produced (for diagnostics and tests). */
struct sim_result {
	const char *failed_file;   /* file being written when an error happened */
	long esx_columns, esx_rows, perf_rows;  /* esx_rows: over all hosts */
	long esx_rows_host[SIM_MAX_HOST];
	char failed_buf[128];
};

void sim_opts_default(struct sim_opts *o);
/* Fills c for part `part` of sc (scenario name, options, topology, truth). */
void sim_config_build(struct sim_config *c, const struct sim_scenario *sc, int part, const struct sim_opts *o);
/* Runs the model for c and writes the capture set into dir (which must exist). Returns 0 or a
 * negative ERR_* code with errno meaningful for ERR_IO; res (caller-owned, may be NULL) tells which
 * file failed and how big the captures are. */
int sim_run(const struct sim_config *c, const char *dir, const struct sim_hooks *hooks, struct sim_result *res);

#endif
