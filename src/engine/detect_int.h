/* detect_int.h — private to the detectors (detect.c and detect_*.c): windows, evidence specs, the
 * rule macros of the stream conditions and the small helpers every family uses; the shared helpers
 * of detect_ev.c; and each family's stream rules and entry points, which the table in detect.c
 * names. */
#ifndef IOPSY_DETECT_INT_H
#define IOPSY_DETECT_INT_H

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis.h"

struct win {
	size_t k0, k1;
	long true_samples;
};

static inline double val(const struct capture *c, const struct entity *e, int metric, size_t k)
{
	if (!e || e->series[metric] < 0)
		return NAN;
	return ds_mean(&c->ds, (size_t)e->series[metric], k);
}

static inline bool active(const struct rules *R, const struct capture *c, const struct entity *e, int iops_metric, size_t k)
{
	double v = val(c, e, iops_metric, k);
	return isnan(v) || v >= rule_value(R, R_ACTIVE_IOPS);
}

#define MAXW 64

static inline const struct capture *cap_of(const struct analysis *a, const struct entity *e)
{
	return &a->m.caps[e->capture];
}

static inline signed char *cond_alloc(const struct capture *c)
{
	return xcalloc(c->ds.nb ? c->ds.nb : 1, 1);
}

/* Evidence of a finding: a metric and its threshold (NaN = context only); lists end with EV_END. */
struct ev_spec {
	int metric;
	double thr;
};
#define EV_END {-1, 0}

/* The rules' view of an entity (rules.h knows no model): a guest disk belongs to the VM its guest
 * machine is, a virtual disk to the VM its name starts with ("SQL01:scsi0:1"). */
static inline struct entity_ref ref_of(const struct entity *e)
{
	struct entity_ref w = {.layer = e->layer, .host = e->host, .name = e->name};
	if (e->layer == LAYER_GUEST) {
		w.vm = e->host;
	} else if (e->layer == LAYER_VSCSI) {
		w.vm = e->name;
		w.vm_len = strcspn(e->name, ":");
	} else if (e->layer == LAYER_VM) {
		w.vm = e->name;
	}
	return w;
}

/* The value of rule id in force for e: a section of the rules file may set it for e's disk,
 * device, VM or host. Called on every row, so a rule no section sets costs a load. */
static inline double rule_of_entity(const struct rules *r, const struct entity *e, enum rule_id id)
{
	if (!r->scoped[id])
		return r->v[id];
	struct entity_ref w = ref_of(e);
	return rules_for(r, id, &w);
}

/* Rules and values in the stream conditions: RV is a rule of the whole analysis (activity),
 * RVE(e, id) the value for entity e, which every finding about one entity uses. */
#define RV(id) rule_value(&a->rules, (id))
#define RVE(e, id) rule_of_entity(&a->rules, (e), (id))
#define CUR(e, met) entity_cur(&a->m, (e), (met))

static inline bool has(const struct entity *e, int m) { return e->series[m] >= 0; }

/* Doing IO at this row (a missing rate, as in the first perfmon row, counts as active). */
static inline bool active_now(const struct analysis *a, const struct entity *e, int iops)
{
	double v = CUR(e, iops);
	return isnan(v) || v >= RV(R_ACTIVE_IOPS);
}

static inline double thr_nan(const struct analysis *a, const struct entity *e, int k)
{
	(void)a, (void)e, (void)k;
	return NAN;
}

/* The median of evidence metric m over the episode (NaN when it is not in the evidence). */
static inline double ev_median(const struct swin *w, int m)
{
	for (int k = 0; k < w->nev; k++)
		if ((int)w->ev[k].metric == m)
			return w->ev[k].median;
	return NAN;
}

#define LARGE_IO_MARGIN 1.1 /* [derived] bytes per command from rates: 10 % above the boundary */

/* Large IOs take longer to transfer: above guest.large_io.kib a command is judged by the guest's
 * large-IO band (PAL: 35 ms above 64 KiB) — the same allowance at the device and virtual disk as
 * in the guest, so a backup's 1 MiB reads at 25 ms are not an array problem. The device judges
 * an episode by its bytes per command (MBREAD/s + MBWRTN/s over Commands/s, esxtop's MB are
 * MiB) over the episode, not row by row: sizes near the boundary would cut it into pieces. */
static inline bool large_io(const struct analysis *a, const struct entity *e, double bytes)
{
	/* an average from MB/s rounded to 0.01: 64 KiB commands come out a little above 64 KiB */
	return bytes > LARGE_IO_MARGIN * RVE(e, R_GUEST_LARGE_KIB) * 1024;
}

/* Whether a vmkernel.log event can be host's: a forwarded line names its host ("esx01" for
 * esx01.lab.local: the first labels compared); a host's own log names none and counts for any. */
static inline bool vmk_on_host(const struct vmk_event *ev, const char *host)
{
	if (!ev->host || !host)
		return true;
	size_t a = strcspn(ev->host, "."), b = strcspn(host, ".");
	return strcasecmp(ev->host, host) == 0 || (a == b && strncasecmp(ev->host, host, a) == 0);
}

static inline size_t bucket_of(const struct capture *c, int64_t t)
{
	size_t lo = 0, hi = c->ds.nb;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (c->ds.t1[mid] < t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < c->ds.nb ? lo : (c->ds.nb ? c->ds.nb - 1 : 0);
}

/* detect_ev.c */
size_t find_windows(const struct rules *R, const struct capture *c, const signed char *cond, int series,
		    struct win *out, size_t max);
void evidence_add(struct finding *f, const struct capture *c, const struct entity *e, int metric,
		  size_t k0, size_t k1, double threshold);
double win_median(const struct capture *c, const struct entity *e, int metric, size_t k0, size_t k1);
void set_window(struct finding *f, const struct capture *c, const struct win *w);
struct finding *window_finding(struct analysis *a, enum kind kind, enum severity sev, enum layer l,
			       const struct entity *e, const struct win *w, const struct ev_spec *ev);
struct finding *episode_finding(struct analysis *a, const struct swin *w, enum severity sev, enum layer l);
struct entity *mapped_vdisk(struct analysis *a, const struct entity *g, const struct diskmap_entry **me);
double value_at(const struct analysis *a, const struct entity *e, int metric, int64_t t);
double vdisk_latency_at(const struct analysis *a, const struct entity *v, int64_t t);
double guest_latency_at(const struct capture *c, const struct entity *g, size_t k);

/* detect_guest.c */
extern const struct stream_rule sr_guest_read;
extern const struct stream_rule sr_guest_write;
extern const struct stream_rule sr_guest_log_write;
void guest_latency_window(struct analysis *a, const struct swin *w);
void guest_log_window(struct analysis *a, const struct swin *w);
extern const struct stream_rule sr_split_guest;
extern const struct stream_rule sr_split_device;
extern const struct stream_rule sr_split_adapter;
void split_window(struct analysis *a, const struct swin *w);
extern const struct stream_rule sr_guest_vscsi_cap;
void guest_vscsi_window(struct analysis *a, const struct swin *w);
extern const struct stream_rule sr_guest_hidden;
void guest_hidden_window(struct analysis *a, const struct swin *w);
void det_alignment(struct analysis *a);

/* detect_device.c */
extern const struct stream_rule sr_device_latency;
void device_latency_window(struct analysis *a, const struct swin *w);
extern const struct stream_rule sr_kernel_kavg;
extern const struct stream_rule sr_kernel_qavg;
void kernel_latency_window(struct analysis *a, const struct swin *w);
extern const struct stream_rule sr_device_saturated;
void device_saturated_window(struct analysis *a, const struct swin *w);
extern const struct stream_rule sr_adapter_saturated;
void adapter_saturated_window(struct analysis *a, const struct swin *w);
extern const struct stream_rule sr_array_overcommit_dev;
extern const struct stream_rule sr_array_overcommit_guest;
void array_overcommit_window(struct analysis *a, const struct swin *w);
extern const struct stream_rule sr_errors_dev;
extern const struct stream_rule sr_errors_adp;
extern const struct stream_rule sr_failed_dev;
void errors_window(struct analysis *a, const struct swin *w);

/* detect_throttle.c */
extern const struct stream_rule sr_dsnro;
void dsnro_window(struct analysis *a, const struct swin *w);
void det_aqd(struct analysis *a);
void det_sioc(struct analysis *a);
void det_qdepth_steps(struct analysis *a);

/* detect_log.c */
void det_queue_full(struct analysis *a);
void det_vmk_failures(struct analysis *a);

/* detect_path.c */
void det_datastore_latency(struct analysis *a);
void det_shared_lu(struct analysis *a);
void det_hba_latency(struct analysis *a);
void det_hba_by_adapters(struct analysis *a);
void det_path_change(struct analysis *a);
void det_vdisk_above_device(struct analysis *a);

/* detect_pathgrp.c */
void det_path_group(struct analysis *a);
/* detect_bw.c */
void det_bandwidth(struct analysis *a);
/* detect_rsv.c */
void det_reservations(struct analysis *a);
/* detect_volume.c */
void det_volume_member(struct analysis *a);

/* detect_cpu.c */
void det_cpu_contention(struct analysis *a);

/* detect_mem.c */
void det_guest_paging(struct analysis *a);
void det_host_swap(struct analysis *a);

/* detect_hyperv.c */
void det_hv_host_disk(struct analysis *a);
void det_hv_vhdx(struct analysis *a);
void det_hv_csv_redirected(struct analysis *a);
void det_hv_cpu_wait(struct analysis *a);

#endif
