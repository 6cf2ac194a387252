/* hv_holder.c — what a slow Hyper-V host disk holds, for the verdict (issue 36): the VHDX that
 * sends it most of its IO (iopath_hv_load), its VM, the volume its path names, the guest disk
 * mapped to it, and the SQL Server log that waits when that guest disk is the log's. */
#include "analysis.h"

#include <string.h>

const char *hv_disk_holder(struct analysis *a, const struct finding *f)
{
	if (f->kind != K_LAT_HOST_DISK || f->ent < 0 || f->driver)
		return NULL; /* a neighbour that drives the disk is named by the finding already */
	const struct entity *e = &a->m.ents[f->ent];
	struct iop_share sh[IOP_MAX_SHARES];
	size_t n = iopath_hv_load(&a->iop, &a->m, e, f->start, f->end, sh, IOP_MAX_SHARES, &a->arena);
	if (!n || !sh[0].one || !(sh[0].share >= 0.5))
		return NULL;
	const struct entity *v = sh[0].one;
	const struct iop_vdisk *vd = iopath_vdisk(&a->iop, v);
	const char *vol = vd && vd->vol ? vd->vol->name : NULL;
	const char *file = iop_vhdx_file(v->name);
	/* the guest disk mapped to the VHDX, and whether its slow writes are a SQL Server log's */
	const char *gd = NULL, *gh = NULL;
	for (size_t i = 0; i < a->nmap && !gd; i++)
		if (a->map[i].vdisk && strcmp(a->map[i].vdisk, v->name) == 0) {
			gd = a->map[i].guest_disk;
			gh = a->map[i].guest_host;
		}
	bool log = false;
	for (size_t i = 0; gd && i < a->nf && !log; i++) {
		const struct finding *g = &a->f[i];
		log = g->kind == K_LAT_GUEST_WRITE && g->entity && strcmp(g->entity, gd) == 0 && g->summary &&
		      strstr(g->summary, "log") != NULL && g->start <= f->end && f->start <= g->end;
	}
	return afmt(
		a, "; it holds %s%s%s (%.0f%% of its IO from this node; the IO path says how each link is known)%s%s",
		vd && vd->vm ? afmt(a, "%s's ", vd->vm) : "", file, vol ? afmt(a, " on %s", vol) : "",
		100 * sh[0].share, gd ? afmt(a, ", mapped to the guest's %s%s%s", gh ? gh : "", gh ? " " : "", gd) : "",
		log ? " — the transaction log's writes wait there, so SQL Server's log flushes wait with them" : "");
}
