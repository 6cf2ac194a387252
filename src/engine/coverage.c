/* coverage.c — what an analysis could assess (see coverage.h). A layer is assessed when its
 * captures are there, carry the counters its rules read, last at least as long as the sustain
 * rule needs, and at least one of its entities did real work; idle entities of an assessed layer
 * are not held against it (an idle disk has no latency to judge). */
#include "coverage.h"

#include <stdlib.h>
#include <string.h>

const char *const cov_status_names[3] = {"assessed", "partial", "not_assessed"};
const char *const cov_status_words[3] = {"assessed", "partly assessed", "not assessed"};
const char *const cov_layer_words_by[2][COV_LAYERS] = {{"guest", "vSCSI", "world", "device", "adapter", "array"},
							{"guest", "VHDX", "nodes", "disk", "HBA/MPIO", "array"}};
const char *const cov_layer_titles[2][COV_LAYERS] = {
    {"Guest OS", "Virtual SCSI", "Per-VM world queue", "VMkernel device queue", "Host bus adapter", "Array / LUN"},
    {"Guest OS", "VHDX (Hyper-V storage)", "Other cluster nodes", "Host disk", "Host bus adapter / MPIO",
     "Array / LUN"}};
const char *const cov_reason_names[COVR_COUNT] = {"", "no_capture", "no_counter", "total_only", "too_short",
						"idle", "some_entities", "no_adapter_queue_depth", "not_scsi",
						"outside_selection", "over_cap"};

static bool has(const struct entity *e, int m) { return e->series[m] >= 0 && entity_sk(e, m)->n > 0; }

static bool too_short(const struct capture *c, const struct rules *r)
{
	double span = (double)(c->end - c->start) / 1000.0 + c->interval_s;
	return c->rows < rules_sustain_samples(r, c->interval_s) || span < rule_value(r, R_SUSTAIN_SECONDS);
}

static bool active(const struct entity *e, const struct rules *r)
{
	int io = e->layer == LAYER_GUEST ? M_G_XFERS : M_CMDS;
	if (e->series[io] < 0 && e->layer == LAYER_GUEST && e->series[M_G_READS] >= 0)
		io = M_G_READS;
	if (e->series[io] < 0)
		return true; /* no rate counter: judged on what it has */
	return entity_sk(e, io)->n && qs_mean(entity_sk(e, io)) >= rule_value(r, R_ACTIVE_IOPS);
}

/* What a layer's rules read of an entity. */
static bool measured(const struct entity *e, enum layer l)
{
	switch (l) {
	case LAYER_GUEST: return has(e, M_G_LAT_R) || has(e, M_G_LAT_W) || has(e, M_G_LAT_T);
	case LAYER_VSCSI:
		return e->layer == LAYER_GUEST ? has(e, M_G_CDQL) : has(e, M_VD_LAT_R) || has(e, M_VD_LAT_W) || has(e, M_HV_LAT);
	case LAYER_WORLD: return has(e, M_WORLDS);
	case LAYER_DEVICE:
		return has(e, M_DAVG) || has(e, M_KAVG) || has(e, M_QUED) || has(e, M_ACTV) || has(e, M_H_LAT_R) ||
		       has(e, M_H_LAT_W) || has(e, M_H_LAT_T); /* a Hyper-V host disk: Windows's latency */
	case LAYER_ADAPTER: return has(e, M_ACTV) || has(e, M_QUED);
	case LAYER_ARRAY: return has(e, M_DAVG) || (e->nfs && has(e, M_GAVG));
	default: return false;
	}
}

/* The entities a layer is judged on: guest disks for the guest and (their queue) the vSCSI layer,
 * devices for the world, device and array layers, adapters for the adapter layer. */
static bool judged_on(const struct entity *e, enum layer l)
{
	switch (l) {
	case LAYER_GUEST:
	case LAYER_VSCSI: return e->layer == LAYER_GUEST;
	case LAYER_WORLD:
	case LAYER_DEVICE: return e->layer == LAYER_DEVICE && !e->nfs; /* an NFS volume has no device queue */
	case LAYER_ARRAY: return e->layer == LAYER_DEVICE;
	case LAYER_ADAPTER: return e->layer == LAYER_ADAPTER;
	default: return false;
	}
}

/* A capture with no time series to assess: unreadable, or histograms (vscsiStats: the analysis says
 * them beside the findings). */
static bool no_series(const struct capture *cp)
{
	const struct parser_ops *fo = cp->format ? parser_find(cp->format) : NULL;
	return cp->failed || !cp->format || (fo && fo->histograms);
}

static void set(struct layer_cov *l, enum cov_status s, enum cov_reason r, const char *why)
{
	l->status = s;
	l->reason = r;
	l->why = why;
}

/* The host layers of Hyper-V host captures (doc/hyperv.md): the vSCSI layer is the VHDX (its
 * Latency at the storage VSP, where Storage QoS applies), the device layer the host disks; a
 * Hyper-V host has no per-world IO, and perfmon shows no HBA, MPIO path or array apart from the
 * host disk's latency. */
static void hyperv_layers(const struct cov_in *in, struct coverage *c, bool host_long)
{
	static const enum layer judged[2] = {LAYER_VSCSI, LAYER_DEVICE};
	for (int j = 0; j < 2; j++) {
		struct layer_cov *lc = &c->layer[judged[j]];
		size_t total = 0, counted = 0, measured_n = 0;
		for (size_t i = 0; i < in->m->nents; i++) {
			const struct entity *e = &in->m->ents[i];
			if (e->outside || e->layer != judged[j] || !model_hyperv(in->m, e->capture))
				continue;
			total++;
			if (!measured(e, judged[j]))
				continue;
			measured_n++;
			counted += active(e, in->r);
		}
		lc->total = total;
		lc->assessed = counted;
		if (!host_long)
			set(lc, COV_NOT_ASSESSED, COVR_TOO_SHORT, "the capture is shorter than the sustain rule needs "
								  "(sustain.samples, sustain.seconds)");
		else if (!measured_n)
			set(lc, COV_NOT_ASSESSED, COVR_NO_COUNTER, j == 0 ? "the Hyper-V host capture has no Hyper-V Virtual "
									  "Storage Device latency (the VHDX layer)"
									: "the Hyper-V host capture has no PhysicalDisk latency");
		else if (!counted)
			set(lc, COV_NOT_ASSESSED, COVR_IDLE, "idle: no entity did IO above active.min_iops");
		else if (measured_n < total)
			set(lc, COV_PARTIAL, COVR_SOME, "some entities have no counter for this layer");
		else
			set(lc, COV_ASSESSED, COVR_OK, j == 0 ? "the VHDX files (Hyper-V Virtual Storage Device)" : "the host disks");
	}
	static const enum layer none[3] = {LAYER_WORLD, LAYER_ADAPTER, LAYER_ARRAY};
	for (int j = 0; j < 3; j++)
		c->layer[none[j]].total = c->layer[none[j]].assessed = 0; /* no entity of those layers */
	set(&c->layer[LAYER_WORLD], COV_NOT_ASSESSED, COVR_NO_COUNTER,
	    "perfmon counts this node only: the other cluster nodes' IO to the same disks is not in the capture "
	    "(capture every node that uses them)");
	set(&c->layer[LAYER_ADAPTER], COV_NOT_ASSESSED, COVR_NO_COUNTER,
	    "perfmon shows no host bus adapter or MPIO path (their health is in WMI, MPIO_DISK_HEALTH_INFO)");
	set(&c->layer[LAYER_ARRAY], COV_NOT_ASSESSED, COVR_NO_COUNTER,
	    "perfmon sees the array only through the host disk's latency, which also holds the host's own queue");
}

/* Why layer l is not (fully) assessed when a capture dropped the entities it is judged on past
 * MODEL_MAX_ENTITIES (paths: the adapter layer's paths), NULL when none was dropped. */
static const char *over_cap_why(struct coverage *c, const struct model *m, enum layer l)
{
	static const enum layer dropped[COV_LAYERS][3] = {
		[LAYER_GUEST] = {LAYER_GUEST, LAYER_GUEST, LAYER_GUEST},
		[LAYER_VSCSI] = {LAYER_GUEST, LAYER_VSCSI, LAYER_VSCSI},
		[LAYER_WORLD] = {LAYER_WORLD, LAYER_DEVICE, LAYER_DEVICE},
		[LAYER_DEVICE] = {LAYER_DEVICE, LAYER_DEVICE, LAYER_DEVICE},
		[LAYER_ADAPTER] = {LAYER_ADAPTER, LAYER_PATH, LAYER_PATH},
		[LAYER_ARRAY] = {LAYER_DEVICE, LAYER_DEVICE, LAYER_DEVICE}};
	char what[160];
	bool any = false;
	for (int k = 0; k < 3; k++)
		any |= model_over_cap(m, SIZE_MAX, dropped[l][k]);
	if (!any)
		return NULL;
	model_over_cap_text(m, SIZE_MAX, what, sizeof what);
	return arena_printf(&c->arena, "more than %d entities of one kind in a capture: its %s past the cap were not "
				       "read, and nothing is concluded from the rest", MODEL_MAX_ENTITIES, what);
}

/* Where other virtual disks judged are, of which nfs on an NFS volume, unknown on no LUN the
 * capture ties them to, elsewhere on no SCSI device of it. */
static const char *backing_where(const struct model *m, int other, int nfs, int unknown, int elsewhere)
{
	if (nfs == other)
		return "on an NFS volume";
	if (unknown == other && model_over_cap(m, SIZE_MAX, LAYER_WORLD))
		return "on a LUN the capture cannot tell (the per-world IO that ties disks to LUNs is past the entity cap, "
		       "not read)";
	if (unknown == other)
		return "on no LUN the capture identifies";
	return elsewhere == other ? "on no SCSI device of the capture"
				  : "on an NFS volume or on no LUN the capture identifies";
}

/* The layers judged on entities a capture dropped past the entity cap: that reason first of all
 * (the adapter layer is partial when only paths were dropped). */
static void over_cap_layers(struct coverage *c, const struct model *m)
{
	for (int l = 0; l < COV_LAYERS; l++) {
		const char *capped = over_cap_why(c, m, (enum layer)l);
		bool partial = l == LAYER_ADAPTER && !model_over_cap(m, SIZE_MAX, LAYER_ADAPTER);
		if (capped)
			set(&c->layer[l], partial ? COV_PARTIAL : COV_NOT_ASSESSED, COVR_OVER_CAP, capped);
	}
}

void coverage_build(const struct cov_in *in, struct coverage *c)
{
	memset(c, 0, sizeof *c);
	arena_init(&c->arena);
	const struct model *m = in->m;
	const struct rules *r = in->r;
	bool guest_cap = false, host_cap = false, guest_long = false, host_long = false, aggregate_only = false;
	bool any_vdisk = false, any_device = false, any_aqlen = false, any_adapter = false;
	bool hv_host = false, hv_only = false, vmw_host = false; /* Hyper-V host captures only */
	for (size_t i = 0; i < m->ncaps; i++) {
		const struct capture *cp = &m->caps[i];
		if (no_series(cp))
			continue;
		bool longer = !too_short(cp, r);
		if (cp->role == ROLE_GUEST) {
			guest_cap = true;
			guest_long |= longer;
		} else {
			host_cap = true;
			host_long |= longer;
			hv_host = model_hyperv(m, i);
			hv_only = !vmw_host && hv_host;
			vmw_host |= !hv_host;
		}
	}
	c->ents = xcalloc(m->nents ? m->nents : 1, sizeof *c->ents);
	size_t nguest = 0, naggr = 0;
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->outside)
			continue;
		if (e->layer == LAYER_VSCSI)
			any_vdisk = true;
		if (e->layer == LAYER_DEVICE)
			any_device = true;
		if (e->layer == LAYER_ADAPTER) {
			any_adapter = true;
			any_aqlen |= has(e, M_AQLEN);
		}
		if (e->layer == LAYER_GUEST) {
			nguest++;
			naggr += e->aggregate;
		}
		if (e->layer != LAYER_GUEST && e->layer != LAYER_VSCSI && e->layer != LAYER_DEVICE && e->layer != LAYER_ADAPTER)
			continue;
		struct ent_cov *ec = &c->ents[c->nents++];
		ec->ent = i;
		enum layer judged = e->layer == LAYER_VSCSI ? LAYER_VSCSI : e->layer;
		if (too_short(&m->caps[e->capture], r))
			ec->status = COV_NOT_ASSESSED, ec->reason = COVR_TOO_SHORT;
		else if (!measured(e, judged))
			ec->status = COV_NOT_ASSESSED, ec->reason = COVR_NO_COUNTER;
		else if (!active(e, r))
			ec->status = COV_NOT_ASSESSED, ec->reason = COVR_IDLE;
		else
			ec->status = e->aggregate ? COV_PARTIAL : COV_ASSESSED, ec->reason = e->aggregate ? COVR_TOTAL_ONLY : COVR_OK;
	}
	aggregate_only = nguest > 0 && naggr == nguest;
	/* the selection: a layer whose entities the filters all left out is not assessed for it */
	const struct ent_filter *f = ef_on(in->filter) ? in->filter : NULL;
	bool devs_dropped = f && f->dropped[LAYER_DEVICE] > 0;
	const char *sel_why = NULL;
	if (f) {
		struct buf o;
		buf_init(&o);
		ef_options_text(f, &o);
		sel_why = arena_printf(&c->arena, "outside the selection (%s)", o.data);
		buf_free(&o);
	}
	for (int l = 0; l < COV_LAYERS; l++) {
		struct layer_cov *lc = &c->layer[l];
		bool guest_side = l == LAYER_GUEST || l == LAYER_VSCSI;
		size_t idle = 0, counted = 0, measured_n = 0;
		for (size_t i = 0; i < m->nents; i++) {
			const struct entity *e = &m->ents[i];
			if (e->outside)
				continue;
			if (!judged_on(e, (enum layer)l))
				continue;
			lc->total++;
			if (too_short(&m->caps[e->capture], r))
				continue;
			if (!measured(e, (enum layer)l))
				continue;
			measured_n++;
			if (!active(e, r)) {
				idle++;
				continue;
			}
			counted++;
		}
		lc->assessed = counted;
		enum layer judged_layer = guest_side ? LAYER_GUEST : l == LAYER_ADAPTER ? LAYER_ADAPTER : LAYER_DEVICE;
		if (f && lc->total == 0 && f->dropped[judged_layer] > 0) {
			set(lc, COV_NOT_ASSESSED, COVR_FILTERED, sel_why);
		} else if (guest_side && !guest_cap) {
			set(lc, COV_NOT_ASSESSED, COVR_NO_CAPTURE,
			    l == LAYER_GUEST ? "no guest capture (perfmon): the guest's own view of latency is not assessed"
					     : "no guest capture (perfmon): esxtop cannot see guest-side queueing (the vSCSI "
					       "per-disk limit)");
		} else if (!guest_side && !host_cap) {
			set(lc, COV_NOT_ASSESSED, COVR_NO_CAPTURE, "no host capture (esxtop, or a Hyper-V host's perfmon)");
		} else if (guest_side ? !guest_long : !host_long) {
			set(lc, COV_NOT_ASSESSED, COVR_TOO_SHORT,
			    arena_strdup(&c->arena, "the capture is shorter than the sustain rule needs (sustain.samples, "
						    "sustain.seconds)"));
		} else if (guest_side && nguest == 0) {
			set(lc, COV_NOT_ASSESSED, COVR_NO_COUNTER,
			    l == LAYER_GUEST ? "the perfmon has no disk latency counter (Avg. Disk sec/Read, /Write)"
					     : "the perfmon has no Current Disk Queue Length");
		} else if (guest_side && aggregate_only && l == LAYER_VSCSI) {
			set(lc, COV_NOT_ASSESSED, COVR_TOTAL_ONLY,
			    "only _Total in the perfmon: the per-disk queue to the vSCSI controller cannot be seen");
		} else if (!guest_side && l != LAYER_WORLD && !any_device && any_vdisk && !devs_dropped) {
			set(lc, COV_NOT_ASSESSED, COVR_NO_SCSI,
			    "the capture has no SCSI device behind the virtual disks: the host-side evidence is the "
			    "virtual disk's latency");
		} else if (!guest_side && in->vd_n > 0 && in->vd_scsi < in->vd_n && !devs_dropped) {
			/* the disks judged are (partly) on NFS or vSAN: no LUN, adapter or worlds for them; the
			 * array is seen through an NFS volume's latency (array and network together) */
			bool none = in->vd_scsi == 0 && (l != LAYER_ARRAY || in->vd_nfs == 0);
			int other = in->vd_n - in->vd_scsi;
			const char *them = other == 1 ? "it" : "them";
			const char *what = l == LAYER_ARRAY ? (in->vd_nfs ? "an NFS volume's latency is seen, not where in the "
									    "server or network it arises"
								      : arena_printf(&c->arena, "no device latency for %s", them))
							    : arena_printf(&c->arena, "no SCSI device, adapter or per-world queue for %s", them);
			int nfs = in->vd_nfs, unknown = in->vd_unknown, elsewhere = other - nfs - unknown;
			const char *where = backing_where(m, other, nfs, unknown, elsewhere);
			set(lc, none ? COV_NOT_ASSESSED : COV_PARTIAL, COVR_NO_SCSI,
			    arena_printf(&c->arena, "%d of %d virtual disk%s judged (%s%s) %s %s: %s", other,
					 in->vd_n, in->vd_n == 1 ? "" : "s", in->vd_other ? in->vd_other : "",
					 other > 1 ? ", ..." : "", other == 1 ? "is" : "are", where, what));
		} else if (measured_n == 0) {
			set(lc, COV_NOT_ASSESSED, COVR_NO_COUNTER,
			    l == LAYER_GUEST     ? "the perfmon has no disk latency counter (Avg. Disk sec/Read, /Write)"
			    : l == LAYER_VSCSI   ? "the perfmon has no Current Disk Queue Length"
			    : l == LAYER_WORLD   ? "no Per-Device-Per-World counters in the esxtop capture (DSNRO is not judged)"
			    : l == LAYER_ADAPTER ? (any_adapter ? "the adapters have no queue counters" : "no adapter counters")
						 : "no device latency counters in the esxtop capture");
		} else if (counted == 0 && idle > 0) {
			set(lc, COV_NOT_ASSESSED, COVR_IDLE, "idle: no entity did IO above active.min_iops");
		} else if (l == LAYER_GUEST && aggregate_only) {
			set(lc, COV_PARTIAL, COVR_TOTAL_ONLY, "only _Total in the perfmon: the guest as a whole, no per-disk view");
		} else if (l == LAYER_ADAPTER && !any_aqlen) {
			/* queueing at the adapter shows without -a; only saturation against AQLEN needs it */
			set(lc, COV_ASSESSED, COVR_NO_AQLEN,
			    "no Adapter Q Depth (esxtop -a): queueing at the adapter shows, saturation against AQLEN cannot");
		} else if (counted + idle < lc->total) {
			set(lc, COV_PARTIAL, COVR_SOME, "some entities have no counter for this layer");
		} else {
			set(lc, COV_ASSESSED, COVR_OK, "");
		}
	}
	if (hv_only)
		hyperv_layers(in, c, host_long);
	over_cap_layers(c, m);
	c->complete = true;
	for (int l = 0; l < COV_LAYERS; l++)
		c->complete &= c->layer[l].status == COV_ASSESSED;
}

bool coverage_entity_assessed(const struct coverage *c, size_t i)
{
	for (size_t k = 0; k < c->nents; k++)
		if (c->ents[k].ent == i)
			return c->ents[k].status != COV_NOT_ASSESSED;
	return true;
}

void coverage_free(struct coverage *c)
{
	free(c->ents);
	arena_free(&c->arena);
	memset(c, 0, sizeof *c);
}
