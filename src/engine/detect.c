/* detect.c — the detectors: each reads the capture model and writes findings with evidence, the
 * rule and its source, and advice that depends on the other evidence. Conditions are evaluated on
 * the aligned downsampled series and must be sustained (rules sustain.*), never single spikes.
 * This file is the table (analysis.h); the detectors are in detect_guest.c, detect_device.c,
 * detect_throttle.c, detect_log.c, detect_path.c, detect_cpu.c and detect_hyperv.c, what they
 * share in detect_ev.c and detect_int.h. */
#include "detect_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const struct detector detectors[] = {
	{.kind = K_LAT_GUEST_READ, .title = "guest read latency", .stream = &sr_guest_read, .window = guest_latency_window},
	{.kind = K_LAT_GUEST_WRITE, .title = "guest write latency", .stream = &sr_guest_write, .window = guest_latency_window},
	{.kind = K_LAT_GUEST_WRITE, .title = "log disk write latency (log target)", .stream = &sr_guest_log_write,
	 .window = guest_log_window},
	{.kind = K_LAT_DEVICE, .title = "device latency (DAVG)", .stream = &sr_device_latency, .window = device_latency_window},
	{.kind = K_LAT_KERNEL, .title = "VMkernel latency or queueing (KAVG)", .stream = &sr_kernel_kavg, .window = kernel_latency_window},
	{.kind = K_LAT_KERNEL, .title = "VMkernel queueing (QAVG, no KAVG in the capture)", .stream = &sr_kernel_qavg,
	 .window = kernel_latency_window},
	{.kind = K_Q_DEVICE_SATURATED, .title = "device queue saturated", .stream = &sr_device_saturated,
	 .window = device_saturated_window},
	{.kind = K_Q_ADAPTER_SATURATED, .title = "adapter queue saturated", .stream = &sr_adapter_saturated,
	 .window = adapter_saturated_window},
	{.kind = K_Q_GUEST_VSCSI_CAP, .title = "guest queue at the vSCSI per-disk limit", .stream = &sr_guest_vscsi_cap,
	 .window = guest_vscsi_window},
	{.kind = K_Q_GUEST_HIDDEN, .title = "IOs waiting inside the guest", .stream = &sr_guest_hidden,
	 .window = guest_hidden_window},
	{.kind = K_Q_ARRAY_OVERCOMMIT, .title = "outstanding IO at the LU above the array LU queue",
	 .stream = &sr_array_overcommit_dev, .window = array_overcommit_window},
	{.kind = K_Q_ARRAY_OVERCOMMIT, .title = "guest queue above the array LU queue", .stream = &sr_array_overcommit_guest,
	 .window = array_overcommit_window},
	{.kind = K_T_AQD, .title = "adaptive queue depth (QUEUE FULL throttling)", .run = det_aqd},
	{.kind = K_T_SIOC, .title = "Storage I/O Control throttling", .run = det_sioc},
	{.kind = K_T_DSNRO, .title = "DSNRO cap with several active VMs", .stream = &sr_dsnro, .window = dsnro_window},
	{.kind = K_IO_SPLIT, .title = "split IO in the guest", .stream = &sr_split_guest, .window = split_window},
	{.kind = K_IO_SPLIT, .title = "split commands at a device", .stream = &sr_split_device, .window = split_window},
	{.kind = K_IO_SPLIT, .title = "split commands at an adapter", .stream = &sr_split_adapter, .window = split_window},
	{.kind = K_ALIGN_MISALIGNED, .title = "misaligned partition", .run = det_alignment},
	{.kind = K_ERR_ABORTS_RESETS, .title = "aborts and resets at a device", .stream = &sr_errors_dev,
	 .window = errors_window},
	{.kind = K_ERR_ABORTS_RESETS, .title = "aborts and resets at an adapter", .stream = &sr_errors_adp,
	 .window = errors_window},
	{.kind = K_ERR_ABORTS_RESETS, .title = "failed commands at a device, sustained", .stream = &sr_failed_dev,
	 .window = errors_window},
	{.kind = K_LAT_DATASTORE, .title = "latency of a virtual disk on no SCSI device the capture shows",
	 .run = det_datastore_latency},
	{.kind = K_SCSI_QUEUE_FULL, .title = "QUEUE FULL / BUSY in vmkernel.log", .run = det_queue_full},
	{.kind = K_ERR_ABORTS_RESETS, .title = "failed commands with a host status in vmkernel.log", .run = det_vmk_failures},
	{.kind = K_CFG_QDEPTH, .title = "a DQLEN or AQLEN step inside the capture", .run = det_qdepth_steps},
	{.kind = K_Q_ARRAY_OVERCOMMIT, .title = "one LU from several hosts: their outstanding IO summed", .run = det_shared_lu},
	{.kind = K_LAT_HBA, .title = "one HBA's paths slow while the other adapters' are fast", .run = det_hba_latency},
	{.kind = K_LAT_HBA, .title = "one HBA's LUNs slow together, without path columns", .run = det_hba_by_adapters},
	{.kind = K_PATH_CHANGE, .title = "a device's IO moved to another path", .run = det_path_change},
	{.kind = K_CPU_CONTENTION, .title = "a VM's vCPUs waiting for a physical CPU", .run = det_cpu_contention},
	{.kind = K_LAT_VD_ABOVE, .title = "latency added above its LUN for one virtual disk", .run = det_vdisk_above_device},
	{.kind = K_LAT_HOST_DISK, .title = "a Hyper-V host disk's latency", .run = det_hv_host_disk},
	{.kind = K_T_STORAGE_QOS, .title = "a VHDX held at a Storage QoS maximum (or slow above its storage)", .run = det_hv_vhdx},
	{.kind = K_CSV_REDIRECTED, .title = "a Cluster Shared Volume's IO redirected over the network", .run = det_hv_csv_redirected},
	{.kind = K_CPU_CONTENTION, .title = "a Hyper-V VM's virtual processors waiting for a logical processor", .run = det_hv_cpu_wait},
	{.kind = K_LAT_PATH, .title = "one channel or target of an adapter slow while its sibling paths are fast",
	 .run = det_path_group},
	{.kind = K_BW_CEILING, .title = "an adapter at its bandwidth ceiling", .run = det_bandwidth},
	{.kind = K_RSV_CONFLICT, .title = "SCSI reservation contention on a LUN", .run = det_reservations},
	{.title = NULL},
};
