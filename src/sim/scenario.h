/* scenario.h — the registry of simulator scenarios: each builds a host configuration (topology,
 * workloads, array behaviour) and the ground truth a correct analysis must find. */
#ifndef IOPSY_SIM_SCENARIO_H
#define IOPSY_SIM_SCENARIO_H

#include "model.h"

struct sim_scenario {
	const char *name;
	const char *summary;                  /* one line for --list */
	int nparts;                           /* 1, or 2 for a before/after pair */
	const char *part_dir[2];              /* subfolder per part when nparts == 2 */
	/* Fills the topology, workloads and truth of part `part` into c, whose run options (seed,
	 * start, duration, interval, width, flags) are already set. May force flags on. */
	void (*build)(struct sim_config *c, int part);
	/* Defaults for options not given on the command line (0 = the global default; width 1 =
	 * the essential columns only, no filler). */
	double duration, interval, perf_interval;
	int width;
	bool busy_share;                      /* accepts --busy-share */
};

/* NULL-name-terminated table. */
extern const struct sim_scenario sim_scenarios[];
/* Borrowed pointer into the table, or NULL. */
const struct sim_scenario *sim_scenario_find(const char *name);

#endif
