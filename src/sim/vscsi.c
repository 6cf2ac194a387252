/* vscsi.c — the vscsiStats file the simulator writes beside the captures of the scenarios where it
 * tells something (the LSI cap, the PVSCSI after): `vscsiStats -p all -c` for the VMs' virtual
 * disks, one snapshot over the whole run. The histograms are built from the model's per-step means
 * (every IO of a step gets the step's vSCSI outstanding count, vSCSI latency and the load's IO
 * sizes), not from single IOs: their shape follows the model, their tails are those of the means. */
#include "vscsi.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "out.h"

/* The bucket limits vscsiStats prints (ESXi 6.x-8.x); the last bucket repeats the last limit and
 * holds what is above it. */
static const double oio_lim[] = {1, 2, 4, 6, 8, 12, 16, 20, 24, 28, 32, 64};
static const double lat_lim[] = {1, 10, 100, 500, 1000, 5000, 15000, 30000, 50000, 100000};
static const double len_lim[] = {512,   1024,  2048,  4095,  4096,   8191,   8192,   16383, 16384,
				 32768, 49152, 65535, 65536, 81920, 131072, 262144, 524288};
#define NOIO (sizeof oio_lim / sizeof oio_lim[0])
#define NLAT (sizeof lat_lim / sizeof lat_lim[0])
#define NLEN (sizeof len_lim / sizeof len_lim[0])

static void add(struct sim_vh_h *h, const double *lim, size_t nl, double x, double n)
{
	if (n <= 0)
		return;
	size_t b = 0;
	while (b < nl && x > lim[b])
		b++;
	h->n[b] += n;
	h->sum += x * n;
	if (h->cnt == 0 || x < h->min)
		h->min = x;
	if (x > h->max)
		h->max = x;
	h->cnt += n;
}

void sim_vh_step(struct sim_vh *vh, const struct sim_config *c, const struct sim_model *m)
{
	for (int v = 0; v < c->nvdisk && v < SIM_MAX_VDISK; v++) {
		const struct sim_vdisk_state *s = &m->vs[v];
		const struct sim_load *l = &c->vdisk[v].load;
		double n = s->x * c->dt;
		if (n <= 0)
			continue;
		double oio = s->vscsi_out < 1 ? 1 : round(s->vscsi_out);
		add(&vh->d[v].oio, oio_lim, NOIO, oio, n);
		add(&vh->d[v].lat, lat_lim, NLAT, round(s->rslot_ms * 1000), n);
		add(&vh->d[v].len, len_lim, NLEN, l->read_kib * 1024, n * l->read_frac);
		add(&vh->d[v].len, len_lim, NLEN, l->write_kib * 1024, n * (1 - l->read_frac));
	}
}

static void put(struct sim_out *o, const char *title, int gid, int v, int bus, int tgt, const struct sim_vh_h *h,
		const double *lim, size_t nl)
{
	char line[512];
	double cnt = 0, r[64];
	for (size_t b = 0; b <= nl; b++)
		cnt += r[b] = round(h->n[b]);
	int k = snprintf(line, sizeof line,
			 "Histogram: %s,virtual machine worldGroupID,%d,virtual disk handleID,%d (scsi%d:%d)\n"
			 "min,%.0f\nmax,%.0f\nmean,%.0f\ncount,%.0f\nFrequency,Histogram Bucket Limit\n",
			 title, gid, 8192 + v, bus, tgt, h->min, h->max, h->cnt > 0 ? h->sum / h->cnt : 0, cnt);
	sim_out_write(o, line, (size_t)k);
	for (size_t b = 0; b <= nl; b++) {
		k = snprintf(line, sizeof line, "%.0f,%.0f\n", r[b], lim[b < nl ? b : nl - 1]);
		sim_out_write(o, line, (size_t)k);
	}
}

int sim_write_vscsistats(const struct sim_config *c, const struct sim_vh *vh, const char *path)
{
	struct sim_out o;
	int rc = sim_out_open(&o, path, false);
	if (rc)
		return rc;
	for (int v = 0; v < c->nvdisk && v < SIM_MAX_VDISK; v++) {
		const struct sim_vdisk *vd = &c->vdisk[v];
		int gid = c->vm[vd->vm].gid, bus = c->ctrl[vd->ctrl].bus;
		if (vh->d[v].oio.cnt <= 0)
			continue;
		put(&o, "IO lengths of commands", gid, v, bus, vd->target, &vh->d[v].len, len_lim, NLEN);
		put(&o, "latency of IOs in Microseconds (us)", gid, v, bus, vd->target, &vh->d[v].lat, lat_lim, NLAT);
		put(&o, "number of outstanding IOs when a new IO is issued", gid, v, bus, vd->target, &vh->d[v].oio,
		    oio_lim, NOIO);
	}
	return sim_out_commit(&o);
}
