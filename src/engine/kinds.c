/* kinds.c — the finding kinds (see kinds.h). Titles are the detectors' wording; the place order
 * decides which finding the verdict quotes for its place. */
#include "kinds.h"

#include <string.h>

const char *const stack_box_names[2][BOX_COUNT] = {
	{"Guest OS", "Virtual SCSI", "VMkernel device queue", "Host bus adapter", "Array / LUN"},
	{"Guest OS", "VHDX", "Hyper-V host storage", "MPIO / host bus adapter", "Host disk"}};

const struct kind_info kinds[K_COUNT] = {
	[K_LAT_GUEST_READ] = {.name = "latency.guest_read", .title = "guest read latency", .layer = LAYER_GUEST,
			      .box = BOX_GUEST, .waits = false, .cause_rank = 3, .place = VP_GUEST_LATENCY, .place_order = 0, .action = ACT_SYMPTOM},
	[K_LAT_GUEST_WRITE] = {.name = "latency.guest_write", .title = "guest write latency", .layer = LAYER_GUEST,
			       .box = BOX_GUEST, .waits = false, .cause_rank = 3, .place = VP_GUEST_LATENCY, .place_order = 1, .action = ACT_SYMPTOM},
	[K_LAT_DEVICE] = {.name = "latency.device", .title = "device latency (DAVG)", .layer = LAYER_DEVICE,
			  .box = BOX_ARRAY, .waits = true, .cause_rank = 3, .place = VP_ARRAY, .place_order = 0, .action = ACT_ARRAY},
	[K_LAT_KERNEL] = {.name = "latency.kernel", .title = "VMkernel queueing (KAVG/QAVG)", .layer = LAYER_DEVICE,
			  .box = BOX_KERNEL, .waits = true, .cause_rank = 3, .place = VP_KERNEL, .place_order = 2, .action = ACT_DEVICE_QUEUE},
	[K_Q_DEVICE_SATURATED] = {.name = "queue.device_saturated", .title = "device queue saturated",
				  .layer = LAYER_DEVICE, .box = BOX_KERNEL, .waits = true, .cause_rank = 1,
				  .place = VP_KERNEL, .place_order = 0, .action = ACT_DEVICE_QUEUE},
	[K_Q_ADAPTER_SATURATED] = {.name = "queue.adapter_saturated", .title = "adapter queue saturated",
				   .layer = LAYER_ADAPTER, .box = BOX_ADAPTER, .waits = true, .cause_rank = 1,
				   .place = VP_ADAPTER, .place_order = 0, .action = ACT_ADAPTER},
	[K_Q_GUEST_VSCSI_CAP] = {.name = "queue.guest_vscsi_cap", .title = "guest queue at the vSCSI per-disk limit",
				 .layer = LAYER_VSCSI, .box = BOX_VSCSI, .waits = true, .cause_rank = 0,
				 .place = VP_GUEST, .place_order = 0, .action = ACT_PVSCSI},
	[K_Q_GUEST_HIDDEN] = {.name = "queue.guest_hidden", .title = "IOs waiting inside the guest", .layer = LAYER_GUEST,
			      .box = BOX_VSCSI, .waits = true, .cause_rank = 1, .place = VP_GUEST, .place_order = 1, .action = ACT_GUEST_PATH},
	[K_Q_ARRAY_OVERCOMMIT] = {.name = "queue.array_overcommit", .title = "outstanding IO above the array LU queue",
				  .layer = LAYER_ARRAY, .box = BOX_ARRAY, .waits = true, .cause_rank = 0,
				  .place = VP_ARRAY, .place_order = 1, .action = ACT_QFULL},
	[K_T_AQD] = {.name = "throttle.adaptive_queue_depth", .title = "adaptive queue depth (QUEUE FULL throttling)",
		     .layer = LAYER_DEVICE, .box = BOX_KERNEL, .waits = true, .cause_rank = 0, .place = VP_THROTTLE,
		     .place_order = 0, .action = ACT_QFULL},
	[K_T_SIOC] = {.name = "throttle.sioc", .title = "Storage I/O Control throttling", .layer = LAYER_DEVICE,
		      .box = BOX_KERNEL, .waits = true, .cause_rank = 0, .place = VP_THROTTLE, .place_order = 1, .action = ACT_SIOC},
	[K_T_DSNRO] = {.name = "throttle.dsnro", .title = "DSNRO cap with several active VMs", .layer = LAYER_DEVICE,
		       .box = BOX_KERNEL, .waits = true, .cause_rank = 0, .place = VP_KERNEL, .place_order = 1, .action = ACT_DSNRO},
	[K_IO_SPLIT] = {.name = "io.split", .title = "split IO", .layer = LAYER_GUEST, .box = BOX_BY_LAYER,
			.waits = false, .cause_rank = 2, .place = VP_NONE, .action = ACT_SPLIT},
	[K_ALIGN_MISALIGNED] = {.name = "align.partition_misaligned", .title = "misaligned partition",
				.layer = LAYER_GUEST, .box = BOX_ARRAY, .waits = false, .cause_rank = 0, .place = VP_NONE, .action = ACT_ALIGN},
	[K_ERR_ABORTS_RESETS] = {.name = "errors.aborts_resets", .title = "aborts, resets and failed commands",
				 .layer = LAYER_DEVICE, .box = BOX_ARRAY, .waits = false, .cause_rank = 0,
				 .place = VP_NONE, .action = ACT_PATHS},
	[K_SCSI_QUEUE_FULL] = {.name = "scsi.queue_full", .title = "QUEUE FULL / BUSY in vmkernel.log",
			       .layer = LAYER_ARRAY, .box = BOX_ARRAY, .waits = true, .cause_rank = 0,
			       .place = VP_THROTTLE, .place_order = 2, .action = ACT_QFULL},
	[K_LAT_DATASTORE] = {.name = "latency.datastore", .title = "datastore latency of a virtual disk on no SCSI device the capture shows",
			     .layer = LAYER_ARRAY, .box = BOX_ARRAY, .waits = true, .cause_rank = 3,
			     .place = VP_DATASTORE, .place_order = 0, .action = ACT_DATASTORE},
	[K_LAT_HBA] = {.name = "latency.hba", .title = "one HBA's paths slow while the other adapters' are fast",
		       .layer = LAYER_ADAPTER, .box = BOX_ADAPTER, .waits = true, .cause_rank = 0, .place = VP_ADAPTER,
		       .place_order = 0, .action = ACT_HBA},
	[K_PATH_CHANGE] = {.name = "path.change", .title = "a device's IO moved to another path", .layer = LAYER_DEVICE,
			   .box = BOX_ADAPTER, .waits = true, .cause_rank = 0, .place = VP_ADAPTER, .place_order = 1, .action = ACT_PATH_RESTORE},
	[K_LAT_VD_ABOVE] = {.name = "latency.vdisk_above_device",
			     .title = "latency added above its LUN for one virtual disk (snapshot, CBT, IO filter)",
			     .layer = LAYER_VSCSI, .box = BOX_KERNEL, .waits = true, .cause_rank = 1, .place = VP_KERNEL,
			     .place_order = 3, .action = ACT_VD_ABOVE},
	[K_CPU_CONTENTION] = {.name = "cpu.contention", .title = "a VM's virtual CPUs wait for a physical CPU (ready, co-stop, wait per dispatch)",
			      .layer = LAYER_VM, .box = BOX_GUEST, .waits = true, .cause_rank = 0, .place = VP_CPU,
			      .place_order = 0, .action = ACT_CPU},
	[K_CFG_QDEPTH] = {.name = "config.queue_depth_change", .title = "queue depth changed during the capture",
			  .layer = LAYER_DEVICE, .box = BOX_BY_LAYER, .waits = false, .cause_rank = 2, .place = VP_NONE, .action = ACT_SYMPTOM},
	/* Hyper-V hosts (doc/hyperv.md) */
	[K_T_STORAGE_QOS] = {.name = "throttle.storage_qos", .title = "a VHDX held at a Storage QoS maximum",
			     .layer = LAYER_VSCSI, .box = BOX_VSCSI, .waits = true, .cause_rank = 0, .place = VP_THROTTLE,
			     .place_order = 0, .action = ACT_QOS},
	[K_CSV_REDIRECTED] = {.name = "csv.redirected", .title = "a Cluster Shared Volume's IO redirected over the network",
			      .layer = LAYER_VOLUME, .box = BOX_KERNEL, .waits = true, .cause_rank = 0, .place = VP_KERNEL,
			      .place_order = 0, .action = ACT_CSV_REDIRECTED},
	[K_LAT_HOST_DISK] = {.name = "latency.host_disk", .title = "host disk latency (Hyper-V host)", .layer = LAYER_DEVICE,
			     .box = BOX_ARRAY, .waits = true, .cause_rank = 3, .place = VP_ARRAY, .place_order = 2, .action = ACT_HOST_DISK},
	/* memory (detect_mem.c): the disk findings they explain are their symptoms */
	[K_MEM_GUEST_PAGING] = {.name = "memory.guest_paging", .title = "the guest pages hard: little available memory, pages read from disk",
				.layer = LAYER_GUEST, .box = BOX_GUEST, .waits = true, .cause_rank = 0, .place = VP_MEMORY,
				.place_order = 0, .action = ACT_MEMORY},
	[K_MEM_HOST_SWAP] = {.name = "memory.host_swap", .title = "the ESXi host swaps a VM's memory and the VM waits for it",
			     .layer = LAYER_VM, .box = BOX_GUEST, .waits = true, .cause_rank = 0, .place = VP_MEMORY,
			     .place_order = 1, .action = ACT_MEMORY},
	/* paths of one adapter (detect_pathgrp.c) */
	[K_LAT_PATH] = {.name = "latency.path", .title = "one channel or target of an adapter slow while its sibling paths are fast",
			.layer = LAYER_ADAPTER, .box = BOX_ADAPTER, .waits = true, .cause_rank = 0, .place = VP_ADAPTER,
			.place_order = 0, .action = ACT_PATH_GROUP},
	[K_BW_CEILING] = {.name = "bandwidth.ceiling", .title = "an adapter at its bandwidth ceiling (MB/s flat, latency rising)",
			  .layer = LAYER_ADAPTER, .box = BOX_ADAPTER, .waits = true, .cause_rank = 0, .place = VP_ADAPTER,
			  .place_order = 2, .action = ACT_BANDWIDTH},
	[K_RSV_CONFLICT] = {.name = "scsi.reservation_conflict", .title = "SCSI reservation contention on a LUN (VMFS locks)",
			    .layer = LAYER_DEVICE, .box = BOX_KERNEL, .waits = true, .cause_rank = 0, .place = VP_KERNEL,
			    .place_order = 4, .action = ACT_RESERVATION},
	/* volumes over several disks (detect_volume.c) */
	[K_LAT_VOL_MEMBER] = {.name = "latency.volume_member",
			      .title = "a guest volume over several disks slow because one member disk is",
			      .layer = LAYER_GUEST, .box = BOX_GUEST, .waits = false, .cause_rank = 0,
			      .place = VP_GUEST_LATENCY, .place_order = -1, .action = ACT_VOL_MEMBER},
};

int kind_find(const char *name)
{
	for (int k = 0; k < K_COUNT; k++)
		if (strcmp(kinds[k].name, name) == 0)
			return k;
	return -1;
}
