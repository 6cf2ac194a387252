/* actions.c — the recommended actions (see actions.h): the findings' advice said as one step
 * each. Findings of one cause on one machine share a step (a VM's disks on LSI Logic SAS are one
 * move to PVSCSI), a symptom (guest latency) joins the step of its cause on the same machine, and
 * the steps keep the order of their worst finding. Each step's words are its builder's (act_ops). */
#include "actions.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void finding_entity_words(struct buf *b, const struct finding *f)
{
	if (f->host && *f->host) {
		buf_adds(b, f->host);
		buf_addc(b, ' ');
	}
	buf_adds(b, f->entity ? f->entity : "");
}

const struct sql_symptom *actions_sql_symptom(const struct analysis *a, bool measured)
{
	for (size_t i = 0; a->sql && i < a->sql->n; i++)
		for (size_t k = 0; k < a->sql->in[i].nsym; k++)
			if (!measured || (a->sql->in[i].sym[k].disk && !isnan(a->sql->in[i].sym[k].disk_ms)))
				return &a->sql->in[i].sym[k];
	return NULL;
}

/* The scope a step is said for: SCOPE_ENTITY the finding's entity (on one host, or on any when a
 * finding names none: vmkernel.log names no host), SCOPE_MACHINE the machine (a guest's disks),
 * SCOPE_LU the entity whichever hosts see it (a finding may name several hosts sharing the LU). */
enum act_scope { SCOPE_ENTITY, SCOPE_MACHINE, SCOPE_LU };

struct act_ctx {
	const struct analysis *a;
	const struct finding *f;     /* the step's first finding */
	const char *ent;             /* its entity, "on host(s) ..." for a host-side one */
	const char *host;            /* its machine, "the VM" when it names none */
	const char *disks;           /* the disks of the step's findings (disks_of) */
};

struct act_op {
	void (*build)(const struct act_ctx *x, struct action *ac); /* what and effect */
	enum act_scope scope;
	bool sets_depth;             /* sets a LUN's queue depth: placed before the queue it sets */
};
static const struct act_op act_ops[ACT_COUNT];

/* f's step: its kind's, refined by the other findings. */
static enum action_key key_of(const struct analysis *a, const struct finding *f)
{
	enum action_key k = kinds[f->kind].action;
	if (f->explained_by)
		return ACT_SYMPTOM; /* its memory cause's step (detect_mem.c) */
	if (f->kind == K_Q_GUEST_HIDDEN) {
		/* the same machine pinned at the vSCSI limit: one move to PVSCSI fixes both */
		for (size_t i = 0; i < a->nf; i++)
			if (a->f[i].kind == K_Q_GUEST_VSCSI_CAP && a->f[i].host && f->host && strcmp(a->f[i].host, f->host) == 0)
				return ACT_PVSCSI;
	}
	if (f->kind == K_PATH_CHANGE && f->sev < SEV_WARNING)
		return ACT_SYMPTOM;
	return k == ACT_UNSET ? ACT_SYMPTOM : k;
}

/* Whether findings x and y are in one scope for a step of key k. */
static bool same_scope(const struct analysis *a, enum action_key k, const struct finding *x, const struct finding *y)
{
	/* the array's QUEUE FULL is the LU's, whichever hosts see it: one action per LU, naming all
	 * of them */
	if (act_ops[k].scope == SCOPE_LU)
		return x->entity && y->entity && strcmp(x->entity, y->entity) == 0;
	if (act_ops[k].scope == SCOPE_MACHINE)
		return (!x->host && !y->host) || (x->host && y->host && strcmp(x->host, y->host) == 0);
	bool hosts = !x->host || !y->host || strcmp(x->host, y->host) == 0; /* vmkernel.log names no host */
	if (k == ACT_CPU && x->layer == LAYER_VM && y->layer == LAYER_VM && x->capture == y->capture && x->capture >= 0 &&
	    x->kind == K_CPU_CONTENTION && y->kind == K_CPU_CONTENTION && x->entity && y->entity &&
	    strcmp(x->entity, y->entity) != 0 && x->host && y->host && strcmp(x->host, y->host) == 0)
		return model_hyperv(&a->m, (size_t)x->capture); /* a Hyper-V host's VMs: one action for the host */
	return hosts && x->entity && y->entity && strcmp(x->entity, y->entity) == 0;
}

/* The guest disk of finding g had IOs queued: its evidence's median Current Disk Queue Length
 * (any of its findings of key k on f's machine) is at least one IO. A disk without that counter
 * counts as busy. */
static bool disk_busy(const struct analysis *a, enum action_key k, const struct finding *f, const struct finding *g)
{
	bool measured = false;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *x = &a->f[i];
		if (key_of(a, x) != k || !same_scope(a, k, f, x) || !x->entity || strcmp(x->entity, g->entity) != 0)
			continue;
		for (int e = 0; e < x->nev; e++)
			if (x->ev[e].metric == M_G_CDQL && !isnan(x->ev[e].median)) {
				if (x->ev[e].median >= 1)
					return true;
				measured = true;
			}
	}
	return !measured;
}

/* The disks (entities) of the findings of key k on f's machine: "D:, E:"; for a move to PVSCSI
 * only the busy ones (an idle boot disk gains nothing from it), all when none is. */
static void disks_of(const struct analysis *a, enum action_key k, const struct finding *f, struct buf *b)
{
	int n = 0;
	bool any_busy = false;
	for (size_t i = 0; k == ACT_PVSCSI && i < a->nf && !any_busy; i++)
		any_busy = key_of(a, &a->f[i]) == k && same_scope(a, k, f, &a->f[i]) && a->f[i].entity &&
			   disk_busy(a, k, f, &a->f[i]);
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *g = &a->f[i];
		if (key_of(a, g) != k || !same_scope(a, k, f, g) || !g->entity)
			continue;
		if (any_busy && !disk_busy(a, k, f, g))
			continue;
		bool dup = false;
		for (size_t j = 0; j < i; j++)
			dup |= key_of(a, &a->f[j]) == k && same_scope(a, k, f, &a->f[j]) && a->f[j].entity &&
			       strcmp(a->f[j].entity, g->entity) == 0;
		if (dup)
			continue;
		buf_printf(b, "%s%s", n++ ? ", " : "", g->entity);
	}
}

static double ev_median(const struct finding *f, enum metric m)
{
	for (int k = 0; k < f->nev; k++)
		if (f->ev[k].metric == m)
			return f->ev[k].median;
	return NAN;
}

/* The hosts of the findings of key k in f's scope, each once, in finding order ("esx01, esx02"; a
 * finding's host may itself be such a list). */
static void hosts_of(const struct analysis *a, enum action_key k, const struct finding *f, struct buf *b)
{
	int n = 0;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *g = &a->f[i];
		if (key_of(a, g) != k || !same_scope(a, k, f, g) || !g->host || !*g->host)
			continue;
		for (const char *p = g->host; *p;) {
			size_t len = strcspn(p, ",");
			struct buf one;
			buf_init(&one);
			buf_add(&one, p, len);
			p += len;
			while (*p == ',' || *p == ' ')
				p++;
			bool dup = !one.len;
			/* said already: the list holds it between separators */
			for (const char *q = b->data; !dup && q && *q;) {
				size_t l2 = strcspn(q, ",");
				dup = l2 == one.len && strncmp(q, one.data, l2) == 0;
				q += l2;
				while (*q == ',' || *q == ' ')
					q++;
			}
			if (!dup)
				buf_printf(b, "%s%s", n++ ? ", " : "", one.data);
			buf_free(&one);
		}
	}
}

/* The controller the vSCSI-cap findings of x's step show (VC_UNKNOWN when none does, or when its
 * disks show different ones). */
static enum vctrl step_ctrl(const struct act_ctx *x)
{
	const struct analysis *a = x->a;
	enum vctrl k = VC_UNKNOWN;
	bool any = false;
	for (size_t i = 0; i < a->nf; i++) {
		const struct finding *g = &a->f[i];
		if (g->kind != K_Q_GUEST_VSCSI_CAP || !same_scope(a, ACT_PVSCSI, x->f, g))
			continue;
		if (any && g->ctrl != k)
			return VC_UNKNOWN;
		k = g->ctrl;
		any = true;
	}
	return k;
}

/* Worded from the controller the captures show: never "move to PVSCSI" for a disk on PVSCSI, never
 * "from LSI Logic SAS" for one whose controller they do not tell. */
static void act_pvscsi(const struct act_ctx *x, struct action *ac)
{
	const char *host = x->host;
	const char *disks = x->disks;
	switch (step_ctrl(x)) {
	case VC_LSI:
	case VC_SATA:
		ac->what = xprintf("Move the busy disks of %s (%s) from the %s controller to VMware Paravirtual "
				   "(PVSCSI), ideally one controller per busy disk.", host, disks,
				   step_ctrl(x) == VC_LSI ? "LSI Logic SAS" : "SATA");
		ac->effect = xprintf("The per-disk queue grows from 32 to 64 IOs (254 with MaxQueueDepth), so IOs stop "
				     "waiting inside the VM and its disk latency falls toward what the host sees; then "
				     "check that the LUN queue and the array absorb the deeper queue.");
		break;
	case VC_PVSCSI:
		ac->what =
		    xprintf("Raise the PVSCSI queue of the busy disks of %s (%s): MaxQueueDepth 254 per disk and "
			    "RequestRingPages 32 per adapter (1024 IOs), or spread them over more PVSCSI "
			    "controllers.",
			    host, disks);
		ac->effect =
		    xprintf("The per-disk queue grows from PVSCSI's default 64 to 254 IOs, so IOs stop waiting "
			    "inside the VM; then check that the LUN queue and the array absorb the deeper queue.");
		break;
	case VC_PVSCSI_RAISED:
		ac->what = xprintf("Spread the busy disks of %s (%s) over more virtual disks and PVSCSI controllers: "
				   "their queue depth is already raised.", host, disks);
		ac->effect = xprintf("Each controller and virtual disk brings its own queues, so fewer IOs wait inside "
				     "the VM.");
		break;
	default:
		ac->what =
		    xprintf("Check the virtual controller of the busy disks of %s (%s) - the captures do not "
			    "show it: if it is LSI Logic SAS, move them to VMware Paravirtual (PVSCSI); if it is "
			    "PVSCSI, raise MaxQueueDepth to 254.",
			    host, disks);
		ac->effect = xprintf("The per-disk queue grows from 32 (LSI Logic SAS) or 64 (PVSCSI's default) to up "
				     "to 254 IOs, so IOs stop waiting inside the VM; then check that the LUN queue and "
				     "the array absorb the deeper queue.");
		break;
	}
}

static void act_guest_path(const struct act_ctx *x, struct action *ac)
{
	const char *host = x->host;
	const char *disks = x->disks;
	ac->what = xprintf("Check the IO path inside %s (%s): the virtual controller type and its busiest disk, guest "
			"CPU, and filter drivers such as antivirus or backup agents.", host, disks);
	ac->effect = xprintf("Removes the time IOs spend inside the VM before they reach the host, which the host "
			  "does not see.");
}

/* The name two VMs share (capmodel.c split_vm_names) when a world of one of them does IO to
 * device d, else NULL. */
static const char *twin_vm_on(const struct analysis *a, const struct entity *d)
{
	for (size_t i = 0; i < a->iop.nw; i++) {
		const struct iop_world *w = &a->iop.w[i];
		if (w->dev == d && w->vm && strstr(w->vm, " (group "))
			return a->m.caps[d->capture].ambiguous_first;
	}
	return NULL;
}

static void act_device_queue(const struct act_ctx *x, struct action *ac)
{
	const struct finding *f = x->f;
	const char *ent = x->ent;
	double davg = ev_median(f, M_DAVG);
	if (f->done) {
		/* the capture shows the queue depth raised and the queueing ended */
		ac->what = xprintf("Keep the queue depth of LUN %s where it was raised during the capture: the queueing "
				"ended with it (see the queue depth change finding).", ent);
		ac->effect = xprintf("Nothing more to raise; check that the array's latency (DAVG) stays low at the "
				  "higher load.");
		return;
	}
	if (f->driver && f->victims) {
		/* a neighbour fills the LUN: separate the workloads first */
		ac->what = xprintf("Separate %s from %s on LUN %s: move one of them to another LUN, or give %s its own "
				"LUN (%s issues %.0f%% of the LUN's commands while %s waits).", f->victims, f->driver, ent,
				f->victim_vdisk ? f->victim_vdisk : f->victims, f->driver, 100 * f->driver_share,
				f->victims);
		ac->effect = xprintf("%s no longer waits behind %s's IO in the LUN's queue; a deeper queue alone would let "
				  "%s take more of it.", f->victims, f->driver, f->driver);
		return;
	}
	const char *twin = f->ent >= 0 ? twin_vm_on(x->a, &x->a->m.ents[f->ent]) : NULL;
	if (twin) {
		/* two VMs of one name do IO to the LUN: nothing is advised from what one name merges */
		ac->what =
		    xprintf("Find which VMs fill LUN %s before changing its queue depth: two VMs named %s do IO to "
			    "it (%s) and their virtual disks, named by the VM's name, cannot be told apart.",
			    ent, twin, "told apart by group id");
		ac->effect = xprintf("Tells a neighbour filling the queue (separate the workloads) from a queue too "
				  "shallow for one VM (raise DQLEN).");
		return;
	}
	if (f->ent >= 0 && model_over_cap(&x->a->m, x->a->m.ents[f->ent].capture, LAYER_WORLD)) {
		/* which VMs fill the queue is past the entity cap: no queue advice from a partial graph */
		ac->what =
		    xprintf("Find which VMs fill LUN %s before changing its queue depth: the capture's per-world IO "
			    "is past the entity cap and was not read (capture fewer devices or worlds).",
			    ent);
		ac->effect = xprintf("Tells a neighbour filling the queue (separate the workloads) from a queue too "
				  "shallow for one VM (raise DQLEN).");
		return;
	}
	if (!isnan(davg) && davg >= 10)
		ac->what = xprintf("Spread the busy virtual disks of LUN %s over more LUNs (the array answers slowly, so "
				"a deeper queue would not help).", ent);
	else
		ac->what = xprintf("Raise the queue depth of LUN %s (the HBA driver's per-LUN depth, DQLEN) or spread "
				"its busy virtual disks over more LUNs.", ent);
	ac->effect = xprintf("IOs stop queueing in the ESXi kernel (KAVG back near 0 ms); do this only while the "
			  "array's latency (DAVG) stays under 10 ms.");
}

static void act_adapter(const struct act_ctx *x, struct action *ac)
{
	const struct finding *f = x->f;
	const char *ent = x->ent;
	if (f->done) {
		ac->what = xprintf("Keep the queue depth of adapter %s where it was raised during the capture: the "
				"queueing ended with it.", ent);
		ac->effect = xprintf("Nothing more to raise.");
		return;
	}
	ac->what = xprintf("Spread the LUNs of adapter %s over more HBAs or paths, or raise the adapter queue depth.", ent);
	ac->effect = xprintf("The host stops queueing IOs at the adapter shared by all its LUNs.");
}

static void act_array(const struct act_ctx *x, struct action *ac)
{
	const struct finding *f = x->f;
	const char *ent = x->ent;
	if (f->nondata) {
		ac->what = xprintf("Find what sends LUN %s its non-read/write commands while it is slow (UNMAP space "
				"reclamation, ATS, XCOPY/WRITE SAME: esxtop's VAAI statistics, the VMFS6 reclamation "
				"settings, guest TRIM) and reschedule or throttle it.", ent);
		ac->effect = xprintf("The LUN answers as fast as without them; queue depths and the array's data path are not "
				  "the problem.");
		return;
	}
	ac->what = xprintf("Ask the storage team to check the array behind LUN %s: its service time (DAVG) is high.", ent);
	ac->effect = xprintf("Lower latency for every VM on that LUN; do not raise queue depths while the array is slow "
			  "(deeper queues make it worse).");
}

static void act_qfull(const struct act_ctx *x, struct action *ac)
{
	const char *ent = x->ent;
	ac->what = xprintf("Ask the storage team why the array returns QUEUE FULL for %s, and lower the outstanding IO "
			"per LU (queue depths, busy VMs per LUN) to what the array port accepts.", ent);
	ac->effect = strstr(ent, " on hosts ")
			     ? xprintf("The hosts stop halving their queue depth and waiting for it to climb back.")
			     : xprintf("The host stops halving its queue depth and waiting for it to climb back.");
}

static void act_sioc(const struct act_ctx *x, struct action *ac)
{
	const char *ent = x->ent;
	ac->what = xprintf("Review the other workloads on the datastore of %s and its Storage I/O Control threshold and "
			"shares.", ent);
	ac->effect = xprintf("SIOC stops throttling the queue of this host's VMs.");
}

static void act_dsnro(const struct act_ctx *x, struct action *ac)
{
	const struct finding *f = x->f;
	const char *ent = x->ent;
	if (f->driver && f->victims)
		ac->what = xprintf("Place %s and %s on separate LUNs (%s issues %.0f%% of the commands of %s), or raise "
				"Disk.SchedNumReqOutstanding (DSNRO) of %s to its queue depth.", f->driver, f->victims,
				f->driver, 100 * f->driver_share, ent, ent);
	else
		ac->what = xprintf("Raise Disk.SchedNumReqOutstanding (DSNRO) of %s to its queue depth, or place the busy VMs "
				"on separate LUNs.", ent);
	ac->effect = xprintf("The LUN's queue is no longer capped at 32 IOs while several VMs are active.");
}

static void act_split(const struct act_ctx *x, struct action *ac)
{
	const char *host = x->host;
	const char *disks = x->disks;
	ac->what = xprintf("Check the IO size and fragmentation of %s (%s): Windows splits its IOs.", host, disks);
	ac->effect = xprintf("Fewer, larger back-end IOs for the same work.");
}

static void act_align(const struct act_ctx *x, struct action *ac)
{
	const char *host = x->host;
	const char *disks = x->disks;
	ac->what = xprintf("Move the data of %s (%s) to a new partition aligned at 1 MiB.", host, disks);
	ac->effect = xprintf("One back-end IO per guest IO instead of two; lower latency under load.");
}

static void act_paths(const struct act_ctx *x, struct action *ac)
{
	const char *ent = x->ent;
	ac->what = xprintf("Check the paths, the HBA and the fabric of %s: commands were aborted or reset.", ent);
	ac->effect = xprintf("No more IOs lost to aborts and resets (each costs seconds).");
}

static void act_qos(const struct act_ctx *x, struct action *ac)
{
	const struct finding *f = x->f;
	const char *ent = x->ent;
	ac->what = xprintf("Raise or remove the Storage QoS maximum on %s (Get-VMHardDiskDrive, Get-StorageQosPolicy): "
			"it holds the disk at about %.0f normalized IOPS while the storage below has room.", ent,
			ev_median(f, M_HV_NIOPS));
	ac->effect = xprintf("The VHDX answers at its storage's latency again (Lower Latency); the volume and the LUN need "
			  "no change.");
}

static void act_csv_redirected(const struct act_ctx *x, struct action *ac)
{
	const char *ent = x->ent;
	ac->what = xprintf("End the redirected mode of Cluster Shared Volume %s (Get-ClusterSharedVolumeState "
			"gives the reason: a backup snapshot, a manual redirect, lost storage paths, ReFS, BitLocker).",
			ent);
	ac->effect = xprintf("Its VHDX files' IO goes straight to the LUN instead of over the network to the "
			  "coordinator node.");
}

static void act_host_disk(const struct act_ctx *x, struct action *ac)
{
	const struct finding *f = x->f;
	const char *ent = x->ent;
	if (f->driver && f->victims)
		ac->what = xprintf("Cap %s with a Storage QoS maximum or move its VHDX to another volume: it issues %.0f%% "
				"of the IO on host disk %s while %s waits.", f->driver, 100 * f->driver_share, ent,
				f->victims);
	else
		ac->what = xprintf("Ask the storage team to check the LUN behind host disk %s (its latency is high), and "
				"spread the busy VHDX files over more volumes.", ent);
	ac->effect = xprintf("Lower latency for every VHDX on that disk.");
}

static void act_vd_above(const struct act_ctx *x, struct action *ac)
{
	const struct analysis *a = x->a;
	const struct finding *f = x->f;
	const char *ent = x->ent;
	if (model_hyperv(&a->m, f->capture >= 0 ? (size_t)f->capture : SIZE_MAX)) {
		ac->what = xprintf("Check VHDX %s for a checkpoint chain (delete or merge the checkpoints), a dynamic or "
				"differencing disk growing (convert it to fixed) and host filter drivers: the storage "
				"below it answers fast.", ent);
		ac->effect = xprintf("The VHDX answers at its storage's latency again.");
		return;
	}
	ac->what = xprintf("Check virtual disk %s for snapshots (consolidate or delete them), CBT-based backup or "
			"replication running at this time and IO filters on it: its LUN answers fast.", ent);
	ac->effect = xprintf("The disk answers at its LUN's latency again; nothing to change on the LUN or the array.");
}

static void act_cpu(const struct act_ctx *x, struct action *ac)
{
	const struct analysis *a = x->a;
	const struct finding *f = x->f;
	const char *ent = x->ent;
	if (model_hyperv(&a->m, f->capture >= 0 ? (size_t)f->capture : SIZE_MAX)) {
		/* one action for the host: its VMs that wait, the ones that run most named */
		struct buf vms, busy;
		buf_init(&vms);
		buf_init(&busy);
		int n = 0;
		double host_run = NAN;
		const struct finding *top[2] = {NULL, NULL};
		for (size_t i = 0; i < a->nf; i++) {
			const struct finding *g = &a->f[i];
			if (g->kind != K_CPU_CONTENTION || g->sev < SEV_WARNING || g->capture != f->capture)
				continue;
			buf_printf(&vms, "%s%s", n++ ? ", " : "", g->entity);
			double run = ev_median(g, M_HV_VP_RUN), lp = ev_median(g, M_HV_LP_RUN);
			host_run = isnan(host_run) ? lp : host_run;
			for (int t = 0; t < 2; t++)
				if (!isnan(run) && (!top[t] || run > ev_median(top[t], M_HV_VP_RUN))) {
					if (t == 0)
						top[1] = top[0];
					top[t] = g;
					break;
				}
		}
		for (int t = 0; t < 2 && n > 2; t++)
			if (top[t])
				buf_printf(&busy, "%s%s %.0f%%", t ? ", " : "", top[t]->entity, ev_median(top[t], M_HV_VP_RUN));
		char lp[64] = "";
		if (!isnan(host_run))
			snprintf(lp, sizeof lp, " (its logical processors %.0f%% busy)", host_run);
		if (n > 1)
			ac->what = xprintf("Give the Hyper-V host %s CPU time for its VMs: the virtual processors of %s wait for "
					"a logical processor%s. Move or cap the VMs that run most%s%s%s (Live Migration; "
					"Set-VMProcessor -Maximum / -RelativeWeight), reduce vCPU over-commit or add hosts.",
					f->host ? f->host : "", vms.data, lp, busy.len ? " (% Guest Run Time: " : "",
					busy.len ? busy.data : "", busy.len ? ")" : "");
		else
			ac->what = xprintf("Give the virtual processors of %s CPU time: move VMs off its Hyper-V host or "
					"add hosts, reduce vCPU over-commit, check its processor limit and weight "
					"(Set-VMProcessor).", ent);
		buf_free(&vms);
		buf_free(&busy);
		ac->effect = xprintf("IO completions and everything else in the VMs stop waiting for a logical processor; "
				  "storage changes would not help.");
		return;
	}
	ac->what = xprintf("Give the vCPUs of %s CPU time on its host: fewer vCPUs for it or its neighbours (co-stop), "
			"move VMs off the host or add CPU capacity (ready), remove a CPU limit.", ent);
	ac->effect = xprintf("IO completions and everything else in the VM stop waiting for a physical CPU; storage "
			  "changes would not help.");
}

/* Memory (detect_mem.c): the guest that pages, the VM its host swaps. */
static void act_memory(const struct act_ctx *x, struct action *ac)
{
	const struct analysis *a = x->a;
	const struct finding *f = x->f;
	if (f->kind == K_MEM_GUEST_PAGING) {
		bool sql = false;
		for (size_t i = 0; i < a->m.nents && !sql; i++)
			sql = a->m.ents[i].layer == LAYER_SQL && a->m.ents[i].host &&
			      strcasecmp(a->m.ents[i].host, f->entity) == 0;
		ac->what = xprintf("Give %s more memory%s: it pages hard, and the disk IO it waits for is the paging.",
				   f->entity,
				   sql ? ", or cap SQL Server's max server memory so that Windows keeps a few GB" : "");
		ac->effect =
		    xprintf("The paging IO stops, and with it the disk latency it causes; storage changes would only "
			    "make the paging faster.");
		return;
	}
	ac->what = xprintf("Stop the ESXi host%s%s from swapping %s's memory: reserve the VM's memory, remove a memory "
			   "limit, move VMs off the host or add memory.",
			   f->host ? " " : "", f->host ? f->host : "", f->entity);
	ac->effect =
	    xprintf("The VM stops stalling on swapped pages and its IO completions stop waiting with it; storage "
		    "changes would not help.");
}

static void act_hba(const struct act_ctx *x, struct action *ac)
{
	const char *ent = x->ent;
	ac->what = xprintf("Check the HBA %s, its cable and SFP and its fabric switch port (error counters), and take its "
			"paths out of service until it is repaired: its paths are slow while the other adapters' are "
			"fast.", ent);
	ac->effect = xprintf("IO to the LUNs behind it is served at the healthy adapter's latency; no change to the "
			  "array or the LUNs is needed.");
}

static void act_path_group(const struct act_ctx *x, struct action *ac)
{
	ac->what = xprintf("Check the network or fabric path of %s (for software iSCSI its bound vmknic, uplink, switch "
			   "port and MTU; else the link or array port it reaches) and take its paths out of service until "
			   "it is repaired: its paths are slow while the adapter's other paths to the same LUNs are fast.",
			   x->ent);
	ac->effect = xprintf("IO to those LUNs is served at the healthy paths' latency; no change to the array, the LUNs "
			     "or the queue depths is needed.");
}

static void act_bandwidth(const struct act_ctx *x, struct action *ac)
{
	ac->what = xprintf("Give %s more bandwidth or send it fewer bytes: spread the IO over more links or HBAs, use a "
			   "faster link, or move fewer bytes (compression, large reads outside the busy hours). Not deeper "
			   "queues: its MB/s is flat at its ceiling while the latency rises.",
			   x->ent);
	ac->effect = xprintf("The same bytes move with less waiting; the large transfers finish sooner.");
}

static void act_reservation(const struct act_ctx *x, struct action *ac)
{
	ac->what = xprintf("Stop the hosts taking turns to reserve LUN %s: stagger the snapshot and backup jobs on its "
			   "datastore, make sure VMFS locks use VAAI ATS, and put fewer VMs on the LUN. Not the array, "
			   "not the queue depths.", x->ent);
	ac->effect = xprintf("The LUN's IO no longer stalls while another host holds it for VMFS metadata.");
}

static void act_vol_member(const struct act_ctx *x, struct action *ac)
{
	ac->what = xprintf("Check the one slow member disk of volume %s (its virtual disk, and that disk's "
			   "datastore or LUN): the volume's other disks answer fast, so neither the volume's layout, "
			   "the guest nor its controller queue is the cause.",
			   x->ent);
	ac->effect = xprintf("The volume answers at its healthy members' latency: every IO striped onto the slow disk "
			     "stops waiting for it.");
}

static void act_path_restore(const struct act_ctx *x, struct action *ac)
{
	const char *ent = x->ent;
	ac->what = xprintf("Restore the optimised path of LUN %s: its IO moved to a slower path during the capture.", ent);
	ac->effect = xprintf("The LUN's latency returns to what it was before the path change.");
}

static void act_datastore(const struct act_ctx *x, struct action *ac)
{
	const char *ent = x->ent;
	ac->what = xprintf("Ask the storage team to check the datastore of %s: its latency is high.", ent);
	ac->effect = xprintf("Lower latency for the VMs on that datastore.");
}

static void act_symptom(const struct act_ctx *x, struct action *ac)
{
	const struct analysis *a = x->a;
	const char *host = x->host;
	const char *disks = x->disks;
	bool host_side = false;
	for (size_t i = 0; i < a->m.ncaps; i++)
		host_side |= !a->m.caps[i].failed && a->m.caps[i].role == ROLE_HOST;
	if (host_side && a->link_note)
		/* the guest's capture does not belong with the host's (check_link): no mapping can help */
		ac->what =
		    xprintf("Capture %s's perfmon and %s over the same period (the slow disks: %s): the guest capture "
			    "given does not belong with the host capture, so where its IO waits cannot be told.",
			    host, analysis_hyperv(a) ? "its Hyper-V host's perfmon" : "its ESXi host's esxtop", disks);
	else if (host_side && a->verdict_where == VW_BELOW_HBA)
		ac->what = xprintf("Ask the storage team why the LUN of %s (%s) answers slowly: the time is spent below "
				"the ESXi host's HBA (the array's write cache, replication, the LUN's load or the "
				"fabric), though under the device rule.", host, disks);
	else if (host_side && a->verdict_where == VW_UNTOLD)
		ac->what = xprintf("Tie the slow disks of %s (%s) to their virtual disks (per-disk LogicalDisk counters in "
				"perfmon, or a --map line), so the captures can show where their IO waits.", host, disks);
	else if (host_side)
		ac->what = xprintf("Find where the IO of %s (%s) waits below the VM: the host captures show no queue "
				"there, so check the datastore and the array with the storage team.", host, disks);
	else if (x->f->capture >= 0 && !model_guest_is_vm(&a->m, (size_t)x->f->capture))
		ac->what =
		    xprintf("Look below Windows on %s for where its IO waits (%s): its storage controller and "
			    "driver, its disks or the array behind them. If %s is a VM (its perfmon shows no sign of "
			    "it), capture its hypervisor at the same time instead.",
			    host, disks, host);
	else
		ac->what = xprintf("Capture the host of %s at the same time as perfmon (esxtop on VMware, the host's own "
				"perfmon on Hyper-V), to see where its IO waits (%s).", host, disks);
	ac->effect =
	    a->verdict_where == VW_BELOW_HBA
		? xprintf("The guest's latency falls with the LUN's; nothing in the VM or the host would shorten it.")
		: xprintf("Tells which layer to fix; %s latency alone cannot.",
			  x->f->capture >= 0 && !model_guest_is_vm(&a->m, (size_t)x->f->capture) ? "Windows'"
												 : "the guest's");
}

static const struct act_op act_ops[ACT_COUNT] = {
	[ACT_UNSET] = {.build = act_symptom, .scope = SCOPE_MACHINE},
	[ACT_SYMPTOM] = {.build = act_symptom, .scope = SCOPE_MACHINE},
	[ACT_PVSCSI] = {.build = act_pvscsi, .scope = SCOPE_MACHINE},
	[ACT_GUEST_PATH] = {.build = act_guest_path, .scope = SCOPE_MACHINE},
	[ACT_DEVICE_QUEUE] = {.build = act_device_queue},
	[ACT_ADAPTER] = {.build = act_adapter},
	[ACT_ARRAY] = {.build = act_array},
	[ACT_QFULL] = {.build = act_qfull, .scope = SCOPE_LU, .sets_depth = true},
	[ACT_SIOC] = {.build = act_sioc, .sets_depth = true},
	[ACT_DSNRO] = {.build = act_dsnro, .sets_depth = true},
	[ACT_SPLIT] = {.build = act_split, .scope = SCOPE_MACHINE},
	[ACT_ALIGN] = {.build = act_align, .scope = SCOPE_MACHINE},
	[ACT_PATHS] = {.build = act_paths},
	[ACT_DATASTORE] = {.build = act_datastore},
	[ACT_HBA] = {.build = act_hba},
	[ACT_PATH_RESTORE] = {.build = act_path_restore},
	[ACT_CPU] = {.build = act_cpu},
	[ACT_VD_ABOVE] = {.build = act_vd_above},
	[ACT_QOS] = {.build = act_qos},
	[ACT_CSV_REDIRECTED] = {.build = act_csv_redirected},
	[ACT_HOST_DISK] = {.build = act_host_disk},
	[ACT_MEMORY] = {.build = act_memory},
	[ACT_PATH_GROUP] = {.build = act_path_group},
	[ACT_BANDWIDTH] = {.build = act_bandwidth},
	[ACT_RESERVATION] = {.build = act_reservation},
	[ACT_VOL_MEMBER] = {.build = act_vol_member},
};

/* The step of key k led by finding f: its words (act_ops) and the finding it is because of. */
static void action_text(const struct analysis *a, enum action_key k, const struct finding *f, struct action *ac)
{
	struct buf who, ds;
	buf_init(&who);
	buf_init(&ds);
	buf_adds(&who, f->entity ? f->entity : "");
	if (k == ACT_QFULL && f->layer != LAYER_GUEST && f->layer != LAYER_VSCSI) {
		struct buf hs;
		buf_init(&hs);
		hosts_of(a, k, f, &hs);
		if (hs.len)
			buf_printf(&who, " on host%s %s", strchr(hs.data, ',') ? "s" : "", hs.data);
		buf_free(&hs);
	} else if (f->host && *f->host && f->layer != LAYER_GUEST && f->layer != LAYER_VSCSI)
		buf_printf(&who, " on host %s", f->host);
	disks_of(a, k, f, &ds);
	struct act_ctx x = {.a = a, .f = f, .ent = who.data ? who.data : "",
			    .host = f->host && *f->host ? f->host : "the VM", .disks = ds.data ? ds.data : ""};
	act_ops[k].build(&x, ac);
	struct buf bc;
	buf_init(&bc);
	buf_adds(&bc, kinds[f->kind].title);
	buf_adds(&bc, " on ");
	finding_entity_words(&bc, f);
	ac->because = bc.data;
	buf_free(&who);
	buf_free(&ds);
}

/* Whether cause g is on the IO stack of symptom f's disk (its virtual disk, a Hyper-V VHDX's
 * volume, LUN or adapter). */
static bool on_stack(const struct topo_in *ti, const struct finding *f, const struct finding *g)
{
	struct stack st;
	topology_stack(ti, finding_entity(ti, f, -1), &st);
	const struct entity *e = finding_entity(ti, g, -1);
	return e && (e == st.vdisk || e == st.device || e == st.adapter || e == st.volume);
}

/* The steps taken so far: the first finding and the key of each. */
struct steps {
	struct action_list *l;
	int lead[ACTIONS_MAX];
	enum action_key keys[ACTIONS_MAX];
};

/* The step that finding f (key k) joins, or -1. */
static int joined_step(const struct analysis *a, const struct topo_in *ti, const struct steps *st,
		       const struct finding *f, enum action_key k)
{
	for (int j = 0; j < st->l->n; j++) {
		const struct finding *g = &a->f[st->lead[j]];
		enum action_key kj = st->keys[j];
		if (kj == k && same_scope(a, k, f, g))
			return j;
		/* a full device queue while the array returns QUEUE FULL is its consequence: a deeper
		 * queue would make it worse; as is one that SIOC or DSNRO holds down: raising DQLEN has
		 * no effect */
		if (k == ACT_DEVICE_QUEUE && act_ops[kj].sets_depth && same_scope(a, kj, f, g))
			return j;
		if (k != ACT_SYMPTOM || kj == ACT_SYMPTOM)
			continue;
		/* a symptom of a memory cause joins that cause's step */
		if (f->explained_by) {
			if (kj == ACT_MEMORY && g->kind == (enum kind)(f->explained_by - 1) && f->explained_machine &&
			    strcasecmp(f->explained_machine, g->entity) == 0)
				return j;
			continue;
		}
		/* a symptom joins the cause on the same machine, or on its disk's stack below */
		if (f->host && g->host && strcmp(f->host, g->host) == 0 && (kj == ACT_PVSCSI || kj == ACT_GUEST_PATH))
			return j;
		if (on_stack(ti, f, g))
			return j;
		/* ... or the CPU action of its own VM (the guest's wait is the CPU's) */
		for (size_t c = 0; kj == ACT_CPU && f->host && c < a->nf; c++)
			if (a->f[c].kind == K_CPU_CONTENTION && a->f[c].sev >= SEV_WARNING &&
			    strcasecmp(a->f[c].entity, f->host) == 0 && same_scope(a, ACT_CPU, &a->f[c], g))
				return j;
	}
	return -1;
}

/* Causes first (each finding's step) — what sets a LUN's queue depth (the array's QUEUE FULL,
 * SIOC, DSNRO) before the queue it sets —, then symptoms join a cause on their machine or their
 * disk's stack. */
static void steps_of_findings(const struct analysis *a, struct steps *st)
{
	struct action_list *l = st->l;
	struct topo_in ti = analysis_topo(a);
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < a->nf; i++) {
			const struct finding *f = &a->f[i];
			if (f->sev < SEV_WARNING && pass < 2)
				continue;
			enum action_key k = key_of(a, f);
			bool sets_depth = act_ops[k].sets_depth;
			if ((k == ACT_SYMPTOM) != (pass == 2) || (pass == 0 && !sets_depth) || (pass == 1 && sets_depth))
				continue;
			int hit = joined_step(a, &ti, st, f, k);
			if (hit >= 0) {
				struct action *ac = &l->act[hit];
				if (ac->nwhy < ACTION_MAX_WHY)
					ac->why[ac->nwhy++] = i + 1;
				continue;
			}
			if (l->n == ACTIONS_MAX || f->sev < SEV_WARNING)
				continue;
			struct action *ac = &l->act[l->n];
			memset(ac, 0, sizeof *ac);
			action_text(a, k, f, ac);
			ac->why[ac->nwhy++] = i + 1;
			st->lead[l->n] = (int)i;
			st->keys[l->n] = k;
			l->n++;
		}
	}
}

static void action_free(struct action *ac)
{
	free(ac->what);
	free(ac->effect);
	free(ac->because);
	memset(ac, 0, sizeof *ac);
}

/* An action said twice is one: the later joins the first with its findings; the why lists
 * ascending (findings are worst first: the steps keep that order). */
static void merge_said_twice(struct action_list *l)
{
	for (int j = 0; j < l->n; j++)
		for (int i = j + 1; i < l->n;) {
			struct action *x = &l->act[j], *y = &l->act[i];
			if (!x->what || !y->what || strcmp(x->what, y->what) != 0) {
				i++;
				continue;
			}
			for (int w = 0; w < y->nwhy && x->nwhy < ACTION_MAX_WHY; w++)
				x->why[x->nwhy++] = y->why[w];
			action_free(y);
			memmove(y, y + 1, (size_t)(l->n - i - 1) * sizeof *y);
			l->n--;
		}
	for (int j = 0; j < l->n; j++) {
		struct action *ac = &l->act[j];
		for (int x = 1; x < ac->nwhy; x++)
			for (int y = x; y > 0 && ac->why[y] < ac->why[y - 1]; y--) {
				size_t t = ac->why[y];
				ac->why[y] = ac->why[y - 1];
				ac->why[y - 1] = t;
			}
	}
}

/* The storage is fine but SQL Server waits: the one thing to act on. */
static void sql_step(const struct analysis *a, struct action_list *l)
{
	const struct sql_symptom *sy = actions_sql_symptom(a, true);
	if (!sy || l->n >= ACTIONS_MAX)
		return;
	struct action *ac = &l->act[l->n++];
	memset(ac, 0, sizeof *ac);
	const char *waits = sy->role == SQLR_LOG ? "log write waits" : "page IO latch waits";
	if (sy->cpu_cause && isnan(sy->ready_vcpu) && !isnan(sy->cpu_wait_us))
		ac->what = xprintf("Look outside the storage for SQL Server's %s: the VM's virtual processors wait for a "
				"logical processor (CPU Wait Time Per Dispatch %.0f µs) — check the Hyper-V host's CPU "
				"over-commit, the VM's processor count and limits.", waits, sy->cpu_wait_us);
	else if (sy->cpu_cause)
		ac->what = xprintf("Look outside the storage for SQL Server's %s: the VM's vCPUs wait for a physical CPU "
				"(%%RDY %.1f%% per vCPU) — check the host's CPU over-commit, the VM's vCPU count and CPU "
				"limits.", waits, sy->ready_vcpu);
	else
		ac->what = xprintf("Look outside the storage for SQL Server's %s (CPU, memory, the instance's own waits).", waits);
	ac->effect = xprintf("Storage changes would not shorten these waits: the disk answers within its target.");
	ac->because = xprintf("SQL Server's wait counters against the disk's latency (SQL SERVER section)");
}

void actions_of(const struct analysis *a, struct action_list *l)
{
	memset(l, 0, sizeof *l);
	struct steps st = {.l = l};
	steps_of_findings(a, &st);
	merge_said_twice(l);
	sql_step(a, l);
}

void actions_free(struct action_list *l)
{
	for (int i = 0; i < l->n; i++)
		action_free(&l->act[i]);
	l->n = 0;
}

static struct action *add_step(struct action_list *l)
{
	if (l->n >= ACTIONS_MAX)
		return NULL;
	struct action *ac = &l->act[l->n++];
	memset(ac, 0, sizeof *ac);
	return ac;
}

/* The verdict's own advice (compare_verdict.c): latency below the guest rose as the change pushed
 * more IO down, and the array is what to check before raising queue depths further. */
static void moved_down_step(const struct cmp_summary *sm, struct action_list *l)
{
	struct action *ac;
	if (!sm->moved_down || !(ac = add_step(l)))
		return;
	ac->what = xprintf("Check the array behind %s before raising queue depths further.", sm->moved_down);
	ac->effect = xprintf("Keeps the gain inside the VM from turning into latency at the array; deeper queues would "
			  "make a slow array worse.");
	ac->because = xprintf("the verdict: latency below the guest rose while the guest's fell, as the deeper guest "
			   "queue now pushes more IO down (the bottleneck moved down a layer)");
}

/* What the outcome advises when nothing else is to do, or when the change gained capacity. */
static void outcome_step(const struct cmp_summary *sm, struct action_list *l, bool others)
{
	bool gain = sm->capacity_gain && sm->outcome == CO_UNCHANGED;
	struct action *ac;
	if ((others && !gain) || (sm->outcome != CO_IMPROVED && sm->outcome != CO_UNCHANGED) || !(ac = add_step(l)))
		return;
	if (gain) {
		/* the same latency at materially more work is a gain, not a change that did nothing */
		ac->what = xprintf("Keep the change: the after side did materially more work in its busy phase at no worse "
				"latency (a capacity gain); if a slow period is what it was meant to fix, look elsewhere "
				"for its cause.");
		ac->effect = xprintf("Keeps the capacity the change gave; more changes of the same kind would not lower the "
				  "latency.");
		ac->because = xprintf("the outcome: %s, with a capacity gain", cmp_outcome_words[sm->outcome]);
		return;
	}
	ac->what = xprintf(sm->outcome == CO_IMPROVED ? "Keep the change, and capture the next busy period (month-end, the "
						      "nightly batch) the same way to confirm it holds."
						    : "Look elsewhere for the slow period: this change did not move its latency.");
	ac->effect = xprintf(sm->outcome == CO_IMPROVED ? "Confirms the improvement under the heaviest load."
						     : "Avoids more changes of the same kind that cannot help.");
	ac->because = xprintf("the outcome: %s", cmp_outcome_words[sm->outcome]);
}

void compare_actions_of(const struct compare *c, struct action_list *l)
{
	memset(l, 0, sizeof *l);
	const struct cmp_summary *sm = &c->sum;
	struct action *ac;
	if (sm->outcome == CO_NOT_COMPARABLE && sm->nc_action && (ac = add_step(l))) {
		ac->what = xprintf("%s", sm->nc_action);
		ac->effect = xprintf("Shows whether the change fixed the slow period; this pair cannot.");
		ac->because = xprintf("%s", sm->outcome_why ? sm->outcome_why : "the sides cannot be compared");
	} else if (sm->outcome == CO_NOT_COMPARABLE && (ac = add_step(l))) {
		ac->what = xprintf("Capture the after side again during a busy period like the before side's (the same batch or "
				"ETL window), then compare again.");
		ac->effect = xprintf("Shows whether the change fixed the slow period; this pair cannot.");
		ac->because = xprintf("%s", sm->outcome_why && sm->head[0] == NULL
						  ? sm->outcome_why
						  : "the after capture has no busy phase like the before capture's");
	}
	/* an improvement: keeping the change comes first, what to watch after it */
	if (sm->outcome == CO_IMPROVED)
		outcome_step(sm, l, false);
	moved_down_step(sm, l);
	/* the after side's own steps */
	struct action_list after;
	actions_of(&c->side[CMP_AFTER], &after);
	int others = 0;
	for (int i = 0; i < after.n && (ac = add_step(l)); i++, others++) {
		*ac = after.act[i];
		ac->nwhy = 0; /* finding numbers belong to the after side's own report */
		ac->because = xprintf("after the change: %s", after.act[i].because);
		free(after.act[i].because);
		memset(&after.act[i], 0, sizeof after.act[i]);
	}
	actions_free(&after);
	if (sm->outcome != CO_IMPROVED)
		outcome_step(sm, l, others > 0);
}
