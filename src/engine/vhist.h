/* vhist.h — evidence from histogram captures (a format whose parser_ops.histograms is set:
 * vscsiStats): per virtual disk, the outstanding-IO histogram against the vSCSI per-disk limit, the
 * latency tail and the IO sizes, said beside the findings (input_said), kept by the analysis for
 * the reports (struct analysis.hist: tables and charts) and compared before/after by compare
 * (compare_vhist.c). A histogram has no time axis: the sentences say what it cannot show. */
#ifndef IOPSY_VHIST_H
#define IOPSY_VHIST_H

#include "input.h"
#include "util.h"

#define VH_MAX_B 64
/* The per-disk limit of the LSI Logic (SAS/parallel) virtual controller: 32 outstanding IOs per disk
 * [seed] (doc/domain.md, the vSCSI table). */
#define VH_LSI_PER_DISK 32
/* PVSCSI's default per-disk queue depth: 64 (MaxQueueDepth raises it to 254) [seed][vmw KB 2053145]. */
#define VH_PVSCSI_PER_DISK 64

/* The histograms iopsy reads of a disk (all IOs; the reads/writes variants are listed by counters). */
enum vh_kind { VH_OIO, VH_LAT, VH_LEN, VH_NKIND };
extern const char *const vh_kind_names[VH_NKIND];  /* the reader's: "outstandingIOs", "latency", "ioLength" */
extern const char *const vh_kind_titles[VH_NKIND]; /* "outstanding IOs when an IO was issued", ... */
extern const char *const vh_kind_units[VH_NKIND];  /* the bucket limits' unit: "IOs", "us", "bytes" */

/* One histogram summed over the file's snapshots: bucket b holds the IOs above lim[b - 1] up to
 * lim[b] (<=), or above lim[b] when gt[b] (the overflow bucket). count 0: not in the file. */
struct vh_hist {
	int nb;
	double lim[VH_MAX_B], n[VH_MAX_B];
	bool gt[VH_MAX_B];
	double count, max;
};

struct vh_disk {
	char disk[64];           /* "worldGroupID:scsiC:T" as the file names it */
	char target[32];         /* "scsiC:T" */
	long gid;                /* worldGroupID (-1 when not a number) */
	char vm[128];            /* the VM another capture names for gid (esxtop Group Cpu): "" none */
	const char *vm_cap;      /* that capture's path (borrowed), NULL */
	const char *path;        /* the vscsiStats file (borrowed) */
	struct vh_hist h[VH_NKIND];
};

struct vh_set {
	struct vh_disk *d;
	size_t n;
};

/* Reads the histogram capture path (again: the model kept none of its columns) and appends its
 * disks to out (path borrowed: it must outlive out). Returns the number of disks added, or a
 * negative ERR_*. */
int vhist_load(const char *path, const struct common_opts *co, struct vh_set *out);
void vhist_free(struct vh_set *s);

/* Share (0..1) of the IOs in buckets whose lower edge is at or above lo. */
double vhist_above(const struct vh_hist *h, double lo);
/* Share (0..1) of the IOs in the bucket whose limit is lim (not the overflow), its lower edge in
 * *lo (the previous limit + 1 for counts); 0 when there is none. */
double vhist_in_bucket(const struct vh_hist *h, double lim, double *lo);
/* Whether the outstanding-IO histogram is piled at the LSI limit (most IOs in its bucket, none
 * above) or shows IOs above it (-1 neither, 0 piled, 1 above). */
int vhist_cap_state(const struct vh_hist *oio);
/* Whether most IOs of the outstanding-IO histogram are in the bucket of 64 (33-64) with none above:
 * the PVSCSI per-disk default holding them. */
bool vhist_pvscsi_pile(const struct vh_hist *oio);
/* A bucket's label as vscsiStats prints it ("<= 32", "> 64"); limits of latency in ms. */
void vhist_bucket_label(const struct vh_hist *h, enum vh_kind k, int b, struct buf *out);
/* A disk's name for people: "VM SQL01 scsi0:1" when named, else "worldGroupID 55761 scsi0:1". */
void vhist_disk_name(const struct vh_disk *d, struct buf *out);
/* What the disk's histograms show and what they cannot (one sentence, raw). */
void vhist_sentence(const struct vh_disk *d, struct buf *out);

/* vhist_load, then say one sentence per disk with its worldGroupID. Returns the number of disks
 * said, or a negative ERR_*. */
int vhist_read(const char *path, const struct common_opts *co,
	       void (*say)(void *ctx, long gid, const char *text), void *ctx);

#endif
