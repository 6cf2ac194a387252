/* vscsi.h — the simulator's vscsiStats file (`vscsiStats -p all -c`), see vscsi.c. */
#ifndef IOPSY_SIM_VSCSI_H
#define IOPSY_SIM_VSCSI_H

#include "model.h"

struct sim_vh_h {
	double n[64];            /* IOs per bucket (fractional while accumulating) */
	double min, max, sum, cnt;
};
struct sim_vh {
	struct {
		struct sim_vh_h oio, lat, len;
	} d[SIM_MAX_VDISK];
};

/* Adds one model step's IOs of every virtual disk (call after sim_model_step). */
void sim_vh_step(struct sim_vh *vh, const struct sim_config *c, const struct sim_model *m);
/* Writes the histograms of the disks that did IO to path. Returns 0 or a negative ERR_*. */
int sim_write_vscsistats(const struct sim_config *c, const struct sim_vh *vh, const char *path);

#endif
