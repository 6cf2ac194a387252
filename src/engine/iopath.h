/* iopath.h — the IO path graph of an analysis, built once (analysis_run, before the detectors)
 * from the capture's own evidence and read by the topology, the detectors, the verdict and the
 * writers: VM → its worlds (esxtop Vcpu(GID:VM:WID:WORLD)), world → device (Physical Disk
 * Per-Device-Per-World(DEVICE-WID)), virtual disk → device, device → paths → adapters (Physical
 * Disk Path(vmhbaN:C:T:L)). Every edge says how it is known: from the capture's identifiers (a
 * fact), from correlating IOPS (a guess, with its r), or not at all (doc/io-path.md). */
#ifndef IOPSY_IOPATH_H
#define IOPSY_IOPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capmodel.h"

enum link_how {
	LINK_NONE,               /* not known */
	LINK_ID,                 /* read from the capture's identifiers */
	LINK_CORR,               /* inferred from IOPS correlation (r) */
};
extern const char *const link_how_names[3]; /* "none", "identifiers", "correlation" */

struct io_link {
	enum link_how how;
	double r;                /* LINK_CORR: the correlation; NaN otherwise */
	const char *why;         /* one clause saying how (arena), NULL for LINK_NONE */
};

/* What carries a virtual disk's IO. */
enum vd_backing {
	BACK_UNKNOWN,            /* nothing in the capture ties it, nor shows it is elsewhere */
	BACK_LUN,                /* a SCSI device of the capture */
	BACK_NFS,                /* an NFS volume of the capture */
	BACK_NOT_SHOWN,          /* the capture shows it on none of its SCSI devices: its VM's worlds
	                          * issue no matching IO to any of them, or it has no SCSI device */
};

struct iop_world {           /* one world's IO to one device */
	const struct entity *w;  /* model aux entity "naa...-WID" */
	const struct entity *dev; /* the device (model ents), NULL when not in the capture */
	const char *vm;          /* its VM, NULL when not known */
	struct io_link vm_link;
};

/* A stretch of the capture over which one device (through one world, or the device's own IO)
 * carries a virtual disk's commands times amp: before and after a Storage vMotion or SDRS move the
 * disk is on two LUNs; while a snapshot, an IO filter or CBT runs, its LUN gets amp back-end
 * commands per virtual-disk command. Found by the shape of the IOPS per time segment (a guess). */
struct iop_span {
	size_t k0, k1;           /* buckets of the disk's capture, inclusive */
	int64_t t0, t1;          /* aligned UTC ms of those buckets */
	const struct entity *dev;
	const struct iop_world *world; /* NULL when matched by the device's own IOPS */
	double amp;              /* commands to the device per virtual-disk command over the span */
	double r;                /* Pearson r of the two IOPS series over the span, NaN when flat */
};
/* An amplification this large, sustained over a span, is itself evidence of a snapshot, an IO
 * filter or CBT on the disk [derived; the 1.3 bar of det_vdisk_above_device]. */
#define IOP_AMP_EVIDENCE 1.3

struct iop_vdisk {
	const struct entity *v;
	const char *vm;          /* the VM part of "SQL01:scsi0:1" (arena) */
	enum vd_backing back;
	const struct entity *dev; /* BACK_LUN / BACK_NFS (with spans: the device of the longest) */
	const struct iop_world *world; /* the world whose IO to dev carries it, NULL when not by world */
	struct io_link link;     /* how dev is known (BACK_NOT_SHOWN: why it is on none) */
	struct iop_span *span;   /* nspan >= 1 when the link changes over time (arena), else NULL */
	size_t nspan;
	bool by_spans;           /* tied by its spans alone (no whole-capture match); else spans, when
	                          * there are, are evidence of an amplification on its one world */
	/* a Hyper-V VHDX (vm: the VM whose name its path has as a folder or file name, NULL none):
	 * the volume holding it (the Cluster Shared Volume or SMB share its path names) and how */
	const struct entity *vol;
	struct io_link vol_link;
};

struct iop_path {
	const struct entity *p;  /* model aux entity */
	const char *adapter;     /* "vmhba2" (arena) */
	const struct entity *adp; /* the adapter entity, NULL when the capture has none of that name */
	int lun;                 /* the L of C:T:L, -1 when the name has none */
	const struct entity *dev;
	struct io_link link;     /* how dev is known */
};

/* A guest volume over several disks and its member disks: a dynamic spanned or striped volume
 * whose disks the capture lists with its letter (perfmon "2 G:" .. "5 G:": a fact), or a volume
 * (a Storage Spaces virtual disk, "6 F:") whose letterless disks ("1" .. "4") carry its IO by their
 * IOPS (a guess, with the lowest r of its members). doc/io-path.md, "Volumes over several disks". */
#define IOP_MAX_MEMBERS 32
struct iop_volume {
	const struct entity *vol;
	const struct entity *mem[IOP_MAX_MEMBERS];
	size_t nmem;
	struct io_link link;
};

struct iopath {
	struct iop_volume *vol;
	size_t nvol;
	struct iop_world *w;
	size_t nw;
	struct iop_vdisk *vd;
	size_t nvd;
	struct iop_path *p;
	size_t np;
	struct arena arena;
};

/* Internal (iopath_vol.c): the guest volumes over several disks of m. */
void iopath_volumes(struct iopath *g, const struct model *m);
/* The volume record of guest volume e, or of the volume guest disk e is a member of (member: NULL or
 * set to whether e is a member); NULL when e is neither (g NULL: none). */
const struct iop_volume *iopath_volume_of(const struct iopath *g, const struct entity *e, bool *member);
/* Builds g from m (g zeroed or freed before). */
void iopath_build(struct iopath *g, const struct model *m);
void iopath_free(struct iopath *g);
/* The graph's record of virtual disk v, NULL when none (g NULL: none). */
const struct iop_vdisk *iopath_vdisk(const struct iopath *g, const struct entity *v);
/* The device carrying d over most of [t0, t1] (aligned UTC ms): its span's, or d->dev when it has
 * no spans or none overlaps; *sp (may be NULL) gets that span or NULL. */
const struct entity *iopath_vdisk_dev_in(const struct iop_vdisk *d, int64_t t0, int64_t t1, const struct iop_span **sp);
/* The span of d covering bucket k, NULL when none (or d has no spans). */
const struct iop_span *iopath_vdisk_span_at(const struct iop_vdisk *d, size_t k);
/* Internal (iopath_span.c): ties the virtual disks no whole-capture match tied to devices by time
 * segments (struct iop_span), with their amplification. */
void iopath_spans(struct iopath *g, const struct model *m);
/* The paths of device d (up to max into out); returns how many there are. */
size_t iopath_device_paths(const struct iopath *g, const struct entity *d, const struct iop_path **out, size_t max);

/* The load on device d over [t0, t1] (aligned UTC ms) from its worlds' IO, by VM (worlds of one VM
 * summed; a world whose VM is not known by its id), busiest first. */
struct iop_share {
	const char *who;         /* the VM's name, or "world 2098765" (arena) */
	bool is_vm;
	enum link_how how;       /* how the world's VM is known */
	double cmds, share;      /* commands/s, and the share of the worlds' commands */
	double actv_share, mb_share; /* shares of outstanding commands and of bytes; NaN when the
	                          * capture has no such per-world counter */
	const struct entity *one; /* the one entity the share is of (a Hyper-V VHDX), NULL when it
	                          * sums several (a VM's worlds) */
};
#define IOP_MAX_SHARES 8
/* Returns how many (at most max) into out; 0 when the capture has no per-world IO for d. */
size_t iopath_device_load(const struct iopath *g, const struct model *m, const struct entity *d, int64_t t0, int64_t t1,
			  struct iop_share *out, size_t max, struct arena *a);

/* Mean of metric mt of e over the buckets of its capture that overlap [t0, t1] (aligned UTC ms);
 * NaN when none has a value. */
double iop_window_mean(const struct model *m, const struct entity *e, int mt, int64_t t0, int64_t t1);
/* Pearson r of two series of one capture over its buckets; NaN with fewer than 8 pairs or no
 * variance. */
double iop_pearson(const struct model *m, const struct entity *x, int mx, const struct entity *y, int my);
/* The Hyper-V part of the graph (iopath_hv.c): each VHDX of a Hyper-V host capture → its volume
 * (the path names it: a fact) → its host disk (a drive letter: a fact; a CSV's LUN: IOPS
 * correlation, a guess), and the VM its path names. d->v is set; fills the rest. */
void iopath_hv_vdisk(struct iopath *g, const struct model *m, struct iop_vdisk *d);
/* The VHDX files on host disk or volume e, with their share of its IO over [t0, t1] (commands/s of
 * each VHDX tied to it), busiest first, like iopath_device_load; who = the VHDX's VM when its path
 * names one, else the file name. */
size_t iopath_hv_load(const struct iopath *g, const struct model *m, const struct entity *e, int64_t t0, int64_t t1,
		      struct iop_share *out, size_t max, struct arena *a);
/* The file name of a VHDX instance ("C:-ClusterStorage-Volume1-SQL01-Virtual Hard
 * Disks-SQL01_D.vhdx" → "SQL01_D.vhdx"): what follows the last "Virtual Hard Disks-" (Hyper-V's
 * default folder), else the whole instance — names contain '-', so the path is never split on it.
 * Points into vhdx. */
const char *iop_vhdx_file(const char *vhdx);
/* A VHDX instance without the "\\?\" prefix perfmon writes as "--?-" (points into vhdx). */
const char *iop_vhdx_plain(const char *vhdx);

/* Internal to the graph's files: the shares of a device's or volume's load (iopath_device_load,
 * iopath_hv_load): init for up to cap contributors, add each (summed by who; q: its outstanding
 * IOs, mbr/mbw its MB/s, NaN when not counted), done sorts them busiest first into out (at most
 * max) and frees; it returns 0 when nothing was counted. */
struct iop_shares {
	struct iop_share *s;
	double *q, *mb;
	size_t n;
	double tot, tot_q, tot_mb;
	bool have_q, have_mb;
};
void iop_shares_init(struct iop_shares *h, size_t cap);
void iop_shares_add(struct iop_shares *h, const char *who, const struct entity *src, bool is_vm, enum link_how how,
		    double c, double q, double mbr, double mbw);
size_t iop_shares_done(struct iop_shares *h, struct iop_share *out, size_t max);
/* Internal to the graph's files: printf into the arena; the entity of layer l named name in
 * capture ci, NULL when none. */
const char *iop_astr(struct arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const struct entity *iop_find_in(const struct model *m, size_t ci, enum layer l, const char *name);

/* The VM a virtual disk's name gives ("SQL01:scsi0:1" → "SQL01"), into out. */
void iop_vdisk_vm(const char *vdisk, char *out, size_t cap);

#endif
