/* iopath_hv.c — the IO path graph of a Hyper-V host (doc/hyperv.md: how the layers are tied): VHDX → volume → host
 * disk, each edge with how it is known.
 * - VHDX → volume: the instance is the file's path with '\' written '-'
 *   ("C:-ClusterStorage-Volume1-SQL01-Virtual Hard Disks-SQL01_D.vhdx"), so a Cluster Shared
 *   Volume's name (Cluster CSVFS(Volume1)) or an SMB share's (\\server\share) at its start is
 *   read from the capture: a fact. The path cannot be split on '-' (names contain '-'), so only
 *   known prefixes are matched [doc/hyperv-domain.md §2].
 * - volume → host disk: no counter names a CSV's disk (disk numbers differ per node), so the
 *   volume's IOPS are correlated with each host disk's: a guess, with its r. A VHDX on a drive
 *   letter ("D:-Hyper-V-...") is on the host disk PhysicalDisk names by that letter: a fact.
 * - VHDX → VM: the path's folders often carry the VM's name; a virtual processor's VM name found
 *   as a whole component of the path is a hint, said as such. */
#include "iopath.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define HV_R_LINK 0.8

const char *iop_vhdx_plain(const char *s)
{
	return strncmp(s, "--?-", 4) == 0 ? s + 4 : s; /* \\?\C:\... */
}

const char *iop_vhdx_file(const char *vhdx)
{
	const char *p = NULL;
	for (const char *q = vhdx; (q = strcasestr(q, "Virtual Hard Disks-")) != NULL; q++)
		p = q + 19;
	return p && *p ? p : vhdx;
}


/* c is a separator of path components as Hyper-V writes them ('-' for '\'), or an end. */
static bool edge(char c) { return c == '-' || c == '_' || c == '.' || c == ' ' || c == '\0'; }

/* The VM (a virtual processor's, in capture ci) whose name is a whole component of the path. */
static const char *vm_of_path(const struct model *m, size_t ci, const char *path)
{
	const char *best = NULL;
	size_t bl = 0, pl = strlen(path);
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->capture != ci || e->layer != LAYER_VM)
			continue;
		size_t n = strlen(e->name);
		if (!n || n <= bl || n > pl)
			continue;
		for (const char *q = path; (q = strcasestr(q, e->name)) != NULL; q++) {
			if ((q == path || q[-1] == '-') && edge(q[n])) {
				best = e->name;
				bl = n;
				break;
			}
		}
	}
	return best;
}

/* The host disk whose IOPS follow e's best (r >= HV_R_LINK, carrying at least 90% of them). */
static const struct entity *disk_by_corr(const struct model *m, const struct entity *e, double *r_out)
{
	const struct entity *best = NULL;
	bool flat = false;
	double br = HV_R_LINK, em = entity_mean(e, M_CMDS);
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *d = &m->ents[i];
		if (d->layer != LAYER_DEVICE || d->capture != e->capture)
			continue;
		double dm = entity_mean(d, M_CMDS);
		if (isnan(dm) || isnan(em) || dm < 0.9 * em)
			continue;
		double r = iop_pearson(m, e, M_CMDS, d, M_CMDS);
		bool f = isnan(r) && fabs(dm - em) <= 0.1 * em + 0.5; /* flat series: the rates must agree */
		if (f)
			r = HV_R_LINK;
		if (!isnan(r) && r >= br && (!f || !best)) {
			br = r;
			best = d;
			flat = f;
		}
	}
	*r_out = best && !flat ? br : NAN;
	return best;
}

/* The key a volume's VHDX paths start with: "C:-ClusterStorage-Volume1-" for a CSV, the share
 * with '\' as '-' ("--server-share-") for an SMB share. */
static void vol_key(const char *vol, char *out, size_t cap)
{
	if (vol[0] == '\\') {
		size_t o = 0;
		for (const char *q = vol; *q && o + 2 < cap; q++)
			out[o++] = *q == '\\' ? '-' : *q;
		if (o && out[o - 1] != '-')
			out[o++] = '-';
		out[o] = '\0';
	} else {
		snprintf(out, cap, "C:-ClusterStorage-%s-", vol);
	}
}

void iopath_hv_vdisk(struct iopath *g, const struct model *m, struct iop_vdisk *d)
{
	const struct entity *v = d->v;
	size_t ci = v->capture;
	const char *path = iop_vhdx_plain(v->name);
	d->link = d->vol_link = (struct io_link){LINK_NONE, NAN, NULL};
	d->back = BACK_UNKNOWN;
	d->vm = vm_of_path(m, ci, path);
	size_t best = 0;
	for (size_t i = 0; i < m->nents; i++) {
		const struct entity *e = &m->ents[i];
		if (e->capture != ci || e->layer != LAYER_VOLUME)
			continue;
		char key[300];
		vol_key(e->name, key, sizeof key);
		size_t kl = strlen(key);
		if (kl > best && strncasecmp(path, key, kl) == 0) {
			best = kl;
			d->vol = e;
			d->vol_link = (struct io_link){LINK_ID, NAN, iop_astr(&g->arena, "its path is on %s%s", e->name[0] == '\\' ? "the SMB share " : "C:\\ClusterStorage\\", e->name)};
		}
	}
	bool csv_path = strncasecmp(path, "C:-ClusterStorage-", 18) == 0;
	if (!csv_path && isalpha((unsigned char)path[0]) && path[1] == ':' && path[2] == '-') {
		/* a local volume: the host disk PhysicalDisk names by its letter */
		char drive[3] = {(char)toupper((unsigned char)path[0]), ':', '\0'};
		const struct entity *disk = iop_find_in(m, ci, LAYER_DEVICE, drive);
		if (disk) {
			d->dev = disk;
			d->back = BACK_LUN;
			d->link = (struct io_link){LINK_ID, NAN, iop_astr(&g->arena, "its path is on drive %s, which PhysicalDisk names", drive)};
		}
		return;
	}
	/* a volume's disk is the volume's, not each VHDX's: the first VHDX on it correlated it */
	for (const struct iop_vdisk *o = g->vd; d->vol && o < d; o++)
		if (o->vol == d->vol) {
			d->dev = o->dev;
			d->back = o->back;
			d->link = o->link;
			return;
		}
	double r = NAN;
	const struct entity *from = d->vol ? d->vol : v;
	const struct entity *disk = from->series[M_CMDS] >= 0 ? disk_by_corr(m, from, &r) : NULL;
	if (!disk)
		return;
	d->dev = disk;
	d->back = BACK_LUN;
	const char *how = isnan(r) ? "equal, both flat" : iop_astr(&g->arena, "r = %.2f", r);
	d->link = (struct io_link){LINK_CORR, r, d->vol ? iop_astr(&g->arena, "%s's IOPS follow %s's (%s); no counter names a "
							  "CSV's disk", disk->name, d->vol->name, how)
						: iop_astr(&g->arena, "%s's IOPS follow the VHDX's (%s)", disk->name, how)};
}

size_t iopath_hv_load(const struct iopath *g, const struct model *m, const struct entity *e, int64_t t0, int64_t t1,
		      struct iop_share *out, size_t max, struct arena *a)
{
	if (!g || !e || !max)
		return 0;
	struct iop_shares h;
	iop_shares_init(&h, g->nvd);
	for (size_t i = 0; i < g->nvd; i++) {
		const struct iop_vdisk *d = &g->vd[i];
		if (e->layer == LAYER_VOLUME ? d->vol != e : d->dev != e)
			continue;
		double c = iop_window_mean(m, d->v, M_CMDS, t0, t1);
		if (isnan(c))
			continue;
		const char *file = iop_vhdx_file(d->v->name);
		iop_shares_add(&h, d->vm ? iop_astr(a, "%s (%s)", d->vm, file) : arena_strdup(a, file), d->v, d->vm != NULL,
			       e->layer == LAYER_VOLUME ? d->vol_link.how : d->link.how, c, iop_window_mean(m, d->v, M_HV_QL, t0, t1),
			       iop_window_mean(m, d->v, M_MBR, t0, t1), iop_window_mean(m, d->v, M_MBW, t0, t1));
	}
	return iop_shares_done(&h, out, max);
}
