/* verdict.c — the verdict paragraph of an analysis: where IO waits, root causes first (the kind
 * table's verdict places, in cause order), every critical finding reflected, and what the
 * captures could not show stated — an all-clear only for the layers that were assessed. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "analysis.h"

/* A warning or critical finding of a kind of place p exists (a symptom a memory cause explains
 * names no place: its cause does). */
static bool has_place(const struct analysis *a, enum verdict_place p)
{
	for (size_t i = 0; i < a->nf; i++)
		if (kinds[a->f[i].kind].place == p && a->f[i].sev >= SEV_WARNING && !a->f[i].explained_by)
			return true;
	return false;
}

/* The finding that names place p: of the kind first in the place's order that has one. */
/* Whether finding f is about a VM whose guest was captured (a VM's CPU finding named like a
 * guest capture's machine): the one the verdict names first among its equals. */
static bool of_captured_guest(const struct analysis *a, const struct finding *f)
{
	return f->layer == LAYER_VM && analysis_guest_captured(a, f->entity);
}

static const struct finding *first_in_place(const struct analysis *a, enum verdict_place p)
{
	const struct finding *best = NULL;
	for (size_t i = 0; i < a->nf; i++) {
		const struct kind_info *k = &kinds[a->f[i].kind];
		if (k->place != p || a->f[i].explained_by)
			continue;
		if (!best || k->place_order < kinds[best->kind].place_order ||
		    (k->place_order == kinds[best->kind].place_order && a->f[i].sev == best->sev &&
		     of_captured_guest(a, &a->f[i]) && !of_captured_guest(a, best)))
			best = &a->f[i];
	}
	return best;
}

/* Guest and host captures that do not overlap in time cannot be correlated: usually a perfmon
 * file without its time-zone bias. Says so in b. */
static void overlap_note(const struct analysis *a, struct buf *b)
{
	int64_t g0 = INT64_MAX, g1 = INT64_MIN, h0 = INT64_MAX, h1 = INT64_MIN;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		const struct capture *c = &a->m.caps[i];
		if (c->failed || !c->rows || !c->format)
			continue;
		bool guest = c->role == ROLE_GUEST;
		int64_t s = c->start + c->clock_offset_ms, e = c->end + c->clock_offset_ms;
		if (guest) {
			g0 = s < g0 ? s : g0;
			g1 = e > g1 ? e : g1;
		} else {
			h0 = s < h0 ? s : h0;
			h1 = e > h1 ? e : h1;
		}
	}
	if (g0 == INT64_MAX || h0 == INT64_MAX || (g0 <= h1 && h0 <= g1) || a->link_note)
		return; /* the link check says it (check_link) */
	double gap_h = (double)(g0 > h1 ? g0 - h1 : h0 - g1) / 3600000.0;
	buf_printf(b, " The guest (perfmon) and host (esxtop) captures do not overlap in time (%.1f h apart): "
		      "nothing could be correlated between them. If they cover the same incident, the perfmon "
		      "time zone is wrong: give --tz (non-English Windows truncates the bias in the header).", gap_h);
}

#define layer_words cov_layer_words

/* "guest, device and array" of the layers whose status is st (mask: which layers). */
static int layer_list(const struct analysis *a, enum cov_status st, bool all_but, struct buf *b)
{
	int n = 0, total = 0;
	for (int l = 0; l < COV_LAYERS; l++)
		total += (a->cov.layer[l].status == st) != all_but;
	for (int l = 0; l < COV_LAYERS; l++) {
		if ((a->cov.layer[l].status == st) == all_but)
			continue;
		n++;
		buf_adds(b, n == 1 ? "" : n == total ? " and " : ", ");
		buf_adds(b, layer_words[l]);
	}
	return n;
}

/* Where a guest disk's wait may be when only its perfmon is given: a VM's guest (its counters or a
 * hypervisor's capture show it is one) or a Windows host. */
static const char *alone_words(const struct analysis *a, const struct finding *f)
{
	if (f->capture >= 0 && !model_guest_is_vm(&a->m, (size_t)f->capture))
		return "from Windows' counters alone it cannot be told whether at its controller, its disks or the array "
		       "behind them";
	return "from the guest alone it cannot be told whether in the guest's queue to the virtual controller, in the "
	       "host or in the array";
}

/* What could not be assessed, each reason once, with what to add. */
static void coverage_note(const struct analysis *a, struct buf *b)
{
	const struct coverage *c = &a->cov;
	bool no_guest = c->layer[LAYER_GUEST].reason == COVR_NO_CAPTURE;
	bool no_host = c->layer[LAYER_DEVICE].reason == COVR_NO_CAPTURE;
	bool hv = analysis_hyperv(a);
	if (no_guest)
		buf_adds(b, hv ? " The guest was not captured, so its own latency and the IOs waiting inside it cannot be "
				 "seen: add the guest's perfmon of the same period."
			       : " The guest was not captured, so its own latency and guest-side queueing (the vSCSI "
				 "per-disk limit) cannot be seen: add the guest's perfmon of the same period.");
	bool vm = false; /* a perfmon that shows it is a VM's (VMware Tools, Hyper-V integration counters) */
	for (size_t i = 0; i < a->m.ncaps; i++)
		vm |= !a->m.caps[i].failed && a->m.caps[i].role == ROLE_GUEST && model_guest_is_vm(&a->m, i);
	if (no_host && vm)
		buf_adds(b, " No host capture was given, so the layers below the guest (the hypervisor's queues, "
			    "device, adapter, array) are not assessed: add the host's capture of the same period "
			    "(esxtop on VMware, the host's perfmon on Hyper-V).");
	else if (no_host && no_guest) /* histograms alone (vscsiStats): no capture over time */
		buf_adds(b, " No host capture was given either, so no layer is assessed over time: add the host's "
			    "capture of the same period (esxtop on VMware).");
	else if (no_host)
		buf_adds(
		    b, " The perfmon shows no sign of being a VM's (no VMware Tools or Hyper-V guest counters), so it "
		       "was read as a Windows host's own disks; only what Windows sees is assessed. If it is a VM, "
		       "add its hypervisor's capture of the same period (esxtop on VMware, the host's perfmon on "
		       "Hyper-V) for the layers below it.");
	/* the other reasons, grouped by their sentence */
	bool done[COV_LAYERS] = {false};
	if (hv && c->layer[LAYER_WORLD].reason == COVR_NO_COUNTER && c->layer[LAYER_ADAPTER].reason == COVR_NO_COUNTER &&
	    c->layer[LAYER_ARRAY].reason == COVR_NO_COUNTER) {
		/* what no Hyper-V host's perfmon shows, said once (the coverage gives each layer's reason) */
		done[LAYER_WORLD] = done[LAYER_ADAPTER] = done[LAYER_ARRAY] = true;
		buf_adds(b, " A Hyper-V host's perfmon counts this node only and does not show the HBAs and MPIO paths, or "
			    "the array apart from the host disk's latency: the other cluster nodes' IO to the same disks, "
			    "the paths and the array are not assessed.");
	}
	for (int l = 0; l < COV_LAYERS; l++) {
		const struct layer_cov *lc = &c->layer[l];
		if (lc->status == COV_ASSESSED || done[l] || lc->reason == COVR_NO_CAPTURE)
			continue;
		buf_adds(b, lc->status == COV_PARTIAL ? " Partly assessed: " : " Not assessed: ");
		int n = 0;
		for (int k = l; k < COV_LAYERS; k++) {
			const struct layer_cov *o = &c->layer[k];
			if (done[k] || o->status != lc->status || o->reason == COVR_NO_CAPTURE || strcmp(o->why, lc->why) != 0)
				continue;
			done[k] = true;
			buf_printf(b, "%s%s", n++ ? ", " : "", layer_words[k]);
		}
		buf_printf(b, " (%s).", lc->why);
	}
}

/* Critical findings the places do not name (a misaligned partition, aborts and resets): root
 * causes, stated first, each once per kind and entity. */
static int root_causes(const struct analysis *a, struct buf *b)
{
	int n = 0;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *f = &a->f[i];
		if (f->sev != SEV_CRITICAL || kinds[f->kind].place != VP_NONE)
			continue;
		bool dup = false;
		for (size_t k = 0; k < i && !dup; k++)
			dup = a->f[k].kind == f->kind && strcmp(a->f[k].entity, f->entity) == 0 && a->f[k].sev == SEV_CRITICAL;
		if (dup)
			continue;
		const char *t = kinds[f->kind].title;
		buf_printf(b, "%s%c%s (%s%s%s — %s).", n ? " " : "", t[0] >= 'a' && t[0] <= 'z' ? t[0] - 'a' + 'A' : t[0], t + 1,
			   f->host ? f->host : "", f->host ? " " : "", f->entity, f->summary);
		n++;
	}
	return n;
}

/* The causes that are not the storage's, first: memory (a guest's paging, a host's swapping), the
 * VM's CPU. Returns how many were said. */
static int not_storage(const struct analysis *a, struct buf *b, bool mem, bool cpu)
{
	int said = 0;
	if (mem) {
		const struct finding *f = first_in_place(a, VP_MEMORY);
		bool sql = false;
		for (size_t i = 0; i < a->m.nents && !sql; i++)
			sql = a->m.ents[i].layer == LAYER_SQL && a->m.ents[i].host &&
			      strcasecmp(a->m.ents[i].host, f->entity) == 0;
		if (f->kind == K_MEM_GUEST_PAGING)
			buf_printf(b, "for memory, not storage: %s; the disk IO is the paging: give it memory%s",
				   f->summary, sql ? " or cap SQL Server's max server memory" : "");
		else
			buf_printf(
			    b,
			    "for memory, not storage: on %s, %s; the VM stalls on swapped pages and its IO completions "
			    "wait with it",
			    f->host ? f->host : "its host", f->summary);
		said++;
	}
	if (cpu) {
		const struct finding *f = first_in_place(a, VP_CPU);
		buf_printf(b, "%sfor CPU, not storage: %s — %s; IO completions wait for a virtual CPU to run",
			   said ? "; and " : "", f->entity, f->summary);
		said++;
	}
	return said;
}

/* The verdict's words when only guest latency names a place: where the slowest guest disk's time
 * goes, as far as the captures tell. */
static void guest_latency_words(struct analysis *a, struct buf *b, bool have_host)
{
	const struct finding *f = first_in_place(a, VP_GUEST_LATENCY);
	struct topo_in ti = analysis_topo(a);
	struct stack st;
	topology_stack_of(&ti, f, &st);
	a->verdict_first = f - a->f;
	a->verdict_where = have_host && st.vdisk ? VW_BELOW_GUEST : VW_UNTOLD;
	double davg = NAN;
	if (f->kind == K_LAT_VOL_MEMBER)
		buf_printf(b, "on one member disk of %s%s%s, not on the whole volume or in the guest: %s",
			   f->host ? f->host : "", f->host ? " " : "", f->entity, f->summary);
	else if (have_host && st.vdisk && below_hba_share(a, f, &st, &davg) >= BELOW_HBA_SHARE) {
		/* no rule fires below it, yet its LUN's device latency is most of the wait */
		a->verdict_where = VW_BELOW_HBA;
		buf_printf(b, "below the HBA, in the array or the fabric: %s%s%s is slow (%s), and its LUN %s "
			       "answers in %.1f ms (DAVG), %.0f%% of that — under the device rule, but where "
			       "the time goes", f->host ? f->host : "", f->host ? " " : "", f->entity, f->summary,
			   st.device->name, davg, 100 * davg / f->ev[0].median);
	} else if (have_host && !st.vdisk)
		buf_printf(b, "on the path of %s%s%s, which is slow (%s); no virtual disk of the host captures "
			       "is tied to it, so whether it waits in the guest's queue to the virtual "
			       "controller, in the host or in the array cannot be told",
			   f->host ? f->host : "", f->host ? " " : "", f->entity, f->summary);
	else if (have_host)
		buf_printf(b, "somewhere below the guest: %s%s%s is slow (%s), and the host captures given do "
			       "not show where",
			   f->host ? f->host : "", f->host ? " " : "", f->entity, f->summary);
	else
		buf_printf(b, "on the path of %s%s%s, which is slow (%s); %s", f->host ? f->host : "",
			   f->host ? " " : "", f->entity, f->summary, alone_words(a, f));
}

void analysis_verdict(struct analysis *a)
{
	struct buf b;
	buf_init(&b);
	size_t readable = 0;
	bool have_host = false;
	for (size_t i = 0; i < a->m.ncaps; i++) {
		readable += !a->m.caps[i].failed;
		have_host |= !a->m.caps[i].failed && a->m.caps[i].format && a->m.caps[i].role == ROLE_HOST;
	}
	a->verdict_where = VW_NOTHING_READ;
	a->verdict_places = 0;
	a->verdict_first = -1;
	if (!readable) {
		a->verdict = arena_strdup(&a->arena, "No capture could be read: nothing was analysed (see the messages above).");
		buf_free(&b);
		return;
	}
	bool guest = has_place(a, VP_GUEST), kernel = has_place(a, VP_KERNEL), throttle = has_place(a, VP_THROTTLE);
	bool array = has_place(a, VP_ARRAY), adapter = has_place(a, VP_ADAPTER), glat = has_place(a, VP_GUEST_LATENCY);
	bool datastore = has_place(a, VP_DATASTORE), cpu = has_place(a, VP_CPU), mem = has_place(a, VP_MEMORY);
	int places = guest + kernel + throttle + array + adapter + datastore + cpu + mem;
	bool warned = false;
	for (size_t i = 0; i < a->nf; i++)
		warned |= a->f[i].sev >= SEV_WARNING;
	int assessed = 0;
	for (int l = 0; l < COV_LAYERS; l++)
		assessed += a->cov.layer[l].status != COV_NOT_ASSESSED;
	if (ef_on(a->m.filter)) {
		/* the verdict speaks of the selection only, and says so */
		buf_adds(&b, "For the selection (");
		ef_options_text(a->m.filter, &b);
		buf_adds(&b, ") only: ");
	}
	int roots = root_causes(a, &b);
	if (roots)
		buf_addc(&b, ' ');
	if (places == 0 && !glat)
		a->verdict_where = VW_NO_WAIT;
	if (places == 0 && !glat && (!warned || roots)) {
		if (a->cov.complete) {
			buf_adds(&b, "No sustained queueing or latency problem: IO does not wait anywhere in the stack for "
				     "longer than brief spikes, at the thresholds in 'iopsy rules'.");
		} else if (!assessed) {
			buf_adds(&b, "Nothing could be assessed, so nothing can be said about where IO waits.");
		} else {
			buf_adds(&b, "No sustained queueing or latency problem in the layers assessed (");
			layer_list(a, COV_NOT_ASSESSED, true, &b);
			buf_adds(&b, "), at the thresholds in 'iopsy rules'; the others are not covered by these captures.");
		}
	} else if (places == 0 && !glat) {
		buf_adds(&b, a->cov.complete ? "No sustained queueing or latency problem; see the remaining findings below."
					     : "No sustained queueing or latency problem in the layers assessed; see the "
					       "remaining findings below.");
	} else {
		buf_adds(&b, "IO waits ");
		int said = 0;
		a->verdict_where = VW_PLACES;
		a->verdict_places = (guest ? 1u << VP_GUEST : 0) | (throttle ? 1u << VP_THROTTLE : 0) |
				    (kernel && !throttle ? 1u << VP_KERNEL : 0) | (adapter ? 1u << VP_ADAPTER : 0) |
				    (array ? 1u << VP_ARRAY : 0) | (datastore ? 1u << VP_DATASTORE : 0) |
				    (cpu ? 1u << VP_CPU : 0) | (mem ? 1u << VP_MEMORY : 0);
		{
			static const enum verdict_place order[] = {VP_MEMORY, VP_CPU,     VP_GUEST, VP_THROTTLE,
								   VP_KERNEL, VP_ADAPTER, VP_ARRAY, VP_DATASTORE};
			for (size_t k = 0; k < sizeof order / sizeof order[0] && a->verdict_first < 0; k++)
				if (a->verdict_places & (1u << order[k]))
					a->verdict_first = first_in_place(a, order[k]) - a->f;
		}
		said += not_storage(a, &b, mem, cpu);
		if (guest) {
			const struct finding *f = first_in_place(a, VP_GUEST);
			buf_printf(&b, "%sin the guest, above the virtual SCSI controller (%s%s%s — %s)", said ? "; and " : "",
				   f->host ? f->host : "", f->host ? " " : "", f->entity, f->summary);
			said++;
		}
		bool hv = analysis_hyperv(a);
		if (throttle) {
			const struct finding *f = first_in_place(a, VP_THROTTLE);
			buf_printf(&b, "%s%s (%s — %s)", said ? "; and " : "",
				   f->kind == K_T_STORAGE_QOS ? "behind a Storage QoS maximum on the VHDX" : "behind throttling of the LUN queue",
				   f->entity, f->summary);
			if (kernel)
				buf_adds(&b, ", so IOs queue in the VMkernel");
			said++;
		}
		if (kernel && !throttle) {
			const struct finding *f = first_in_place(a, VP_KERNEL);
			buf_printf(&b, "%s%s (%s — %s)", said ? "; and " : "",
				   f->kind == K_CSV_REDIRECTED ? "in the Hyper-V host, on a Cluster Shared Volume redirected over the network"
				   : f->kind == K_LAT_VD_ABOVE ? (hv ? "in the Hyper-V host above its disk" : "in the ESXi host above the LUN")
				   : f->kind == K_RSV_CONFLICT ? "behind SCSI reservations of the LUN (VMFS locks), not in the array"
							       : "in the VMkernel device queue",
				   f->entity, f->summary);
			said++;
		}
		if (adapter) {
			const struct finding *f = first_in_place(a, VP_ADAPTER);
			buf_printf(&b, "%s%s (%s — %s)", said ? "; and " : "",
				   f->kind == K_PATH_CHANGE ? "on the path to the LUN"
				   : f->kind == K_LAT_PATH  ? "on one path group inside the adapter (the network or fabric path, not the LUNs)"
				   : f->kind == K_BW_CEILING ? "at the adapter's bandwidth ceiling (bytes, not queues)"
							    : "at the host bus adapter", f->entity, f->summary);
			said++;
		}
		if (array) {
			const struct finding *f = first_in_place(a, VP_ARRAY);
			const char *holds = hv_disk_holder(a, f);
			buf_printf(&b, "%s%s (%s — %s%s)", said ? "; and " : "",
				   f->kind == K_LAT_HOST_DISK ? "at the Hyper-V host's disk or the storage behind it"
							      : "in the array or fabric below the HBA", f->entity, f->summary,
				   holds ? holds : "");
			said++;
		}
		if (datastore) {
			const struct finding *f = first_in_place(a, VP_DATASTORE);
			buf_printf(&b, "%sin the datastore below the VMkernel, which has no SCSI device queue (%s%s%s — %s)",
				   said ? "; and " : "", f->host ? f->host : "", f->host ? " " : "", f->entity, f->summary);
			said++;
		}
		if (!said)
			guest_latency_words(a, &b, have_host);
		buf_addc(&b, '.');
		if (guest && !kernel && !array && !throttle && have_host && a->nmap)
			buf_adds(&b, " The host below is not the bottleneck: fix the guest side first.");
		if ((array || datastore) && !kernel && !guest && !hv)
			buf_adds(&b, " Nothing queues in the VMkernel: deeper queues would not help.");
	}
	coverage_note(a, &b);
	overlap_note(a, &b);
	if (a->link_note)
		buf_printf(&b, " %s", a->link_note);
	if (a->parts_note)
		buf_printf(&b, " %s", a->parts_note);
	if (a->clock_note)
		buf_printf(&b, " %s", a->clock_note);
	a->verdict = arena_strndup(&a->arena, b.data, b.len);
	buf_free(&b);
}
