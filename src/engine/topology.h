/* topology.h — the IO stack of each affected disk: guest disk → virtual disk (vSCSI) → device
 * (LUN, with its VMkernel queue) → adapter → array, computed once per analysis (analysis_run) for
 * the entities the findings name and for the busiest disk, and read by every output. Links come
 * from the disk map (the user's --map or the IOPS correlation of analysis.c) and, below the virtual
 * disk, from IOPS correlation within the host capture, each link with its evidence. */
#ifndef IOPSY_TOPOLOGY_H
#define IOPSY_TOPOLOGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capmodel.h"
#include "finding.h"
#include "iopath.h"
#include "kinds.h"

/* What topology reads: the model, the disk map and the findings (borrowed from an analysis). */
struct topo_in {
	const struct model *m;
	const struct diskmap_entry *map;
	size_t nmap;
	const struct finding *f;
	size_t nf;
	const struct iopath *iop;        /* the IO path graph; NULL: links by IOPS correlation only */
	bool timed;                      /* a virtual disk linked over time (spans) is taken on the */
	int64_t t0, t1;                  /* device it was on over most of [t0, t1] (aligned UTC ms) */
};

/* Links below the virtual disk are made by IOPS correlation within one capture, at these r: a
 * virtual disk and its LUN carry the same IOs (0.8); a LUN and its adapter share the adapter with
 * the other LUNs (0.7). Separate from analysis.c's guest↔virtual-disk mapping threshold (0.7),
 * which correlates two captures. */
#define TOPO_R_VDISK_DEVICE 0.8
#define TOPO_R_DEVICE_ADAPTER 0.7

/* One disk's stack; NULL where a layer is not in the captures (borrowed from the model). */
struct stack {
	const struct entity *guest, *vdisk, *device, *adapter;
	const struct diskmap_entry *map; /* the guest ↔ virtual disk link used, NULL when none */
	double r_dev, r_adp;             /* IOPS correlations of the lower links; NaN when not linked so */
	struct io_link l_dev, l_adp;     /* how the virtual disk's device and the device's adapter are
	                                  * known (LINK_NONE: not linked) */
	enum vd_backing back;            /* what carries the virtual disk (the graph's, BACK_UNKNOWN
	                                  * without one) */
	const struct entity *adapter2;   /* a second adapter the device's paths use, NULL */
	const struct entity *volume;     /* a Hyper-V VHDX's volume (CSV, SMB share), NULL */
};

/* What the findings on a stack say about each box (enum stack_box). */
struct box_state {
	int sev;                         /* worst severity of a finding drawn in the box, -1 none */
	bool waits;                      /* a warning or worse says IO waits here */
	int why;                         /* the kind that says so (enum kind), -1 none */
};

/* The stack of the disk e belongs to (all NULL when e is not a disk layer). */
void topology_stack(const struct topo_in *a, const struct entity *e, struct stack *out);
/* The stack of finding f's disk over f's time: a virtual disk that moved to another LUN inside the
 * capture (struct iop_span) is on the one it was on then. */
void topology_stack_of(const struct topo_in *a, const struct finding *f, struct stack *out);
/* Fills st[BOX_COUNT] from the findings on s. */
void topology_boxes(const struct topo_in *a, const struct stack *s, struct box_state st[BOX_COUNT]);
/* The entity finding f is about that has metric m (any metric when m < 0), or NULL. */
const struct entity *finding_entity(const struct topo_in *a, const struct finding *f, int m);
/* The virtual disk the disk map gives guest disk g, or NULL (*me: the map line). */
const struct entity *topology_vdisk_of_guest(const struct topo_in *a, const struct entity *g,
					     const struct diskmap_entry **me);

/* The stacks an analysis shows (computed by topology_build in analysis_run): the distinct
 * stacks of up to TOPO_MAX_SHOWN worst findings (warnings and worse when there are any), each
 * with the finding it was drawn for; or, without such a finding, the busiest disk's (anchor
 * NULL). */
#define TOPO_MAX_SHOWN 3
struct shown_stack {
	struct stack s;
	const struct finding *anchor;    /* NULL: the busiest disk, for reference */
};
/* Fills shown[TOPO_MAX_SHOWN] (findings sorted worst first); returns how many. */
size_t topology_build(const struct topo_in *a, struct shown_stack shown[TOPO_MAX_SHOWN]);

#endif
