/* compare_data.c — what every part of the comparison reads (see compare.h, compare_int.h): the
 * names of sides, kinds, verdicts, reasons and outcomes, the metric table, and a pair's entities
 * and merged sketch. It sits below compare.c and its parts (compare_match.c, compare_busy.c,
 * compare_stats.c, compare_verdict.c), which call it and which it does not call. */
#include "compare_int.h"

const char *const cmp_side_names[2] = {"before", "after"};
const char *const cmp_kind_names[5] = {"latency", "queue", "penalty", "work", "occupancy"};
const char *const cmp_verdict_names[CV_COUNT] = {"improved", "regressed",    "unchanged", "higher",
						 "lower",    "not_assessed", "mixed",     "not_comparable"};
const char *const cmp_fstatus_names[FD_COUNT] = {"gone", "still_present", "new", "not_assessed_after", "not_assessed_before"};
const char *const cmp_fstatus_words[FD_COUNT] = {"gone", "still present", "new", "not assessed after",
						 "not assessed before"};
const char *const cmp_reason_names[CR_COUNT] = {NULL,
						"interval_contains_zero",
						"below_material_pct",
						"below_floor",
						"no_values_before",
						"no_values_after",
						"too_few_values",
						"idle_both_sides",
						"idle_one_side",
						"no_interval",
						"interval_degenerate",
						"too_few_values_for_quantile",
						"not_comparable",
						"changed_with_the_load",
						"more_load"};
const char *const cmp_outcome_names[CO_COUNT] = {"improved", "regressed", "mixed", "unchanged", "not_comparable"};
const char *const cmp_outcome_words[CO_COUNT] = {"Improved", "Regressed", "Mixed", "Unchanged", "Not comparable"};

#define NO {-1, -1}
#define T1(a) {a, -1}
#define T2(a, b) {a, b}
#define OUT_DEV {M_ACTV, M_QUED}

/* Floors: the smallest change of a quantile that matters in practice — 1 ms for guest latency,
 * 0.5 ms for host latency, 0.05 ms for KAVG (its warning level is 0.1 ms), for queues (judged per
 * unit of load: the wait per IO, Little's law) 1 ms in the guest and 0.05 ms for QUED (QAVG is
 * part of KAVG), 5 IO/s for IOPS (active.min_iops), 1 MB/s, one command of ACTV and DQLEN, 5
 * points of %USD, 1 split/s, 1 point of %Ready. */
const struct cmp_metric_spec cmp_metrics[] = {
	{LAYER_GUEST, M_G_LAT_R, CK_LATENCY, 1.0, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_G_XFERS, {M_G_CDQL, -1}},
	{LAYER_GUEST, M_G_LAT_W, CK_LATENCY, 1.0, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_G_XFERS, {M_G_CDQL, -1}},
	{LAYER_GUEST, M_G_CDQL, CK_QUEUE, 1.0, T2(R_VSCSI_LSI, R_VSCSI_PVSCSI), M_G_XFERS, NO},
	{LAYER_GUEST, M_G_XFERS, CK_WORK, 5.0, NO, M_G_XFERS, NO},
	{LAYER_GUEST, M_G_MBPS, CK_WORK, 1.0, NO, M_G_XFERS, NO},
	{LAYER_GUEST, M_G_SPLIT, CK_PENALTY, 1.0, T1(R_SPLIT_PER_S), M_G_XFERS, NO},
	{LAYER_VSCSI, M_VD_LAT_R, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, NO},
	{LAYER_VSCSI, M_VD_LAT_W, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, NO},
	{LAYER_VSCSI, M_HV_LAT, CK_LATENCY, 0.5, T2(R_HV_VHDX_WARN, R_GUEST_LAT_CRIT), M_CMDS, NO}, /* a Hyper-V VHDX */
	{LAYER_VSCSI, M_CMDS, CK_WORK, 5.0, NO, M_CMDS, NO},
	{LAYER_VSCSI, M_MBR, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_VSCSI, M_MBW, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_DAVG, CK_LATENCY, 0.5, T2(R_DAVG_WARN, R_DAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_DEVICE, M_KAVG, CK_LATENCY, 0.05, T2(R_KAVG_WARN, R_KAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_DEVICE, M_GAVG, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, OUT_DEV},
	{LAYER_DEVICE, M_H_LAT_R, CK_LATENCY, 0.5, T2(R_HV_DISK_WARN, R_HV_DISK_CRIT), M_CMDS, NO}, /* a Hyper-V host disk */
	{LAYER_DEVICE, M_H_LAT_W, CK_LATENCY, 0.5, T2(R_HV_DISK_WARN, R_HV_DISK_CRIT), M_CMDS, NO},
	{LAYER_DEVICE, M_ACTV, CK_OCCUPANCY, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_QUED, CK_QUEUE, 0.05, T1(R_DEV_SAT_QUED), M_CMDS, NO},
	{LAYER_DEVICE, M_USD, CK_OCCUPANCY, 5.0, T1(R_DEV_SAT_USD), M_CMDS, NO},
	{LAYER_DEVICE, M_DQLEN, CK_OCCUPANCY, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_CMDS, CK_WORK, 5.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_MBR, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_MBW, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_DEVICE, M_SPLIT, CK_PENALTY, 1.0, T1(R_SPLIT_PER_S), M_CMDS, NO},
	{LAYER_ADAPTER, M_DAVG, CK_LATENCY, 0.5, T2(R_DAVG_WARN, R_DAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_ADAPTER, M_KAVG, CK_LATENCY, 0.05, T2(R_KAVG_WARN, R_KAVG_CRIT), M_CMDS, OUT_DEV},
	{LAYER_ADAPTER, M_GAVG, CK_LATENCY, 0.5, T2(R_GUEST_LAT_WARN, R_GUEST_LAT_CRIT), M_CMDS, OUT_DEV},
	{LAYER_ADAPTER, M_ACTV, CK_OCCUPANCY, 1.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_QUED, CK_QUEUE, 0.05, T1(R_DEV_SAT_QUED), M_CMDS, NO},
	{LAYER_ADAPTER, M_CMDS, CK_WORK, 5.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_MBR, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_MBW, CK_WORK, 1.0, NO, M_CMDS, NO},
	{LAYER_ADAPTER, M_SPLIT, CK_PENALTY, 1.0, T1(R_SPLIT_PER_S), M_CMDS, NO},
	{LAYER_VM, M_RDY, CK_PENALTY, 1.0, NO, -1, NO},
	{LAYER_VM, M_HV_CPU_WAIT, CK_PENALTY, 5.0, T2(R_HV_CPU_WAIT_WARN, R_HV_CPU_WAIT_CRIT), -1, NO},
};
const size_t cmp_nmetrics = sizeof cmp_metrics / sizeof cmp_metrics[0];


bool cmp_kind_lower_is_better(enum cmp_kind k)
{
	return k == CK_LATENCY || k == CK_QUEUE || k == CK_PENALTY;
}

const struct entity *cmp_ent(const struct compare *c, const struct cmp_pair *p, int s, size_t k)
{
	return &c->side[s].m.ents[p->ents[s][k]];
}

void compare_sketch(const struct compare *c, const struct cmp_pair *p, enum cmp_side s, enum metric m, struct qsketch *out)
{
	qs_init(out);
	for (size_t i = 0; i < p->nents[s]; i++)
		qs_merge(out, entity_sk(cmp_ent(c, p, s, i), m));
}
