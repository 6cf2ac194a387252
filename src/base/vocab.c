/* vocab.c — names, labels and units of the layers and metrics (see vocab.h). */
#include "vocab.h"

#include <ctype.h>
#include <string.h>

const char *const layer_names[LAYER_COUNT] = {"guest", "vscsi", "world", "device", "adapter", "array", "vm", "sql", "path", "volume"};

const struct metric_info metric_info[M_COUNT] = {
	[M_DAVG] = {"davg_ms", "DAVG (device latency)", "ms"},
	[M_KAVG] = {"kavg_ms", "KAVG (VMkernel latency)", "ms"},
	[M_GAVG] = {"gavg_ms", "GAVG (guest-visible latency)", "ms"},
	[M_QAVG] = {"qavg_ms", "QAVG (kernel queue wait)", "ms"},
	[M_DAVG_R] = {"davg_read_ms", "DAVG reads", "ms"},
	[M_DAVG_W] = {"davg_write_ms", "DAVG writes", "ms"},
	[M_KAVG_R] = {"kavg_read_ms", "KAVG reads", "ms"},
	[M_KAVG_W] = {"kavg_write_ms", "KAVG writes", "ms"},
	[M_GAVG_R] = {"gavg_read_ms", "GAVG reads", "ms"},
	[M_GAVG_W] = {"gavg_write_ms", "GAVG writes", "ms"},
	[M_ACTV] = {"actv", "ACTV (active commands)", "commands"},
	[M_QUED] = {"qued", "QUED (queued in VMkernel)", "commands"},
	[M_DQLEN] = {"dqlen", "DQLEN (device queue depth)", "commands"},
	[M_USD] = {"usd_pct", "%USD (ACTV/DQLEN)", "%"},
	[M_LOAD] = {"load", "LOAD ((ACTV+QUED)/DQLEN)", ""},
	[M_AQLEN] = {"aqlen", "AQLEN (adapter queue depth)", "commands"},
	[M_WQLEN] = {"wqlen", "WQLEN (world queue depth)", "commands"},
	[M_CMDS] = {"iops", "Commands/s", "IO/s"},
	[M_READS] = {"reads_per_s", "Reads/s", "IO/s"},
	[M_WRITES] = {"writes_per_s", "Writes/s", "IO/s"},
	[M_MBR] = {"mb_read_per_s", "MB read/s", "MB/s"},
	[M_MBW] = {"mb_written_per_s", "MB written/s", "MB/s"},
	[M_RESV] = {"reserves_per_s", "Reserves/s (SCSI reservations)", "/s"},
	[M_CONS] = {"conflicts_per_s", "Conflicts/s (reservation conflicts)", "/s"},
	[M_ABRTS] = {"aborts_per_s", "Aborts/s", "/s"},
	[M_RESETS] = {"resets_per_s", "Resets/s", "/s"},
	[M_FAILED] = {"failed_per_s", "Failed commands/s", "/s"},
	[M_SPLIT] = {"split_per_s", "Split commands/s", "/s"},
	[M_WORLDS] = {"active_worlds", "active worlds (VMs issuing IO)", "worlds"},
	[M_VD_LAT_R] = {"vdisk_read_ms", "virtual disk read latency", "ms"},
	[M_VD_LAT_W] = {"vdisk_write_ms", "virtual disk write latency", "ms"},
	[M_G_LAT_R] = {"guest_read_ms", "Avg. Disk sec/Read", "ms"},
	[M_G_LAT_W] = {"guest_write_ms", "Avg. Disk sec/Write", "ms"},
	[M_G_LAT_T] = {"guest_transfer_ms", "Avg. Disk sec/Transfer", "ms"},
	[M_G_CDQL] = {"guest_current_queue", "Current Disk Queue Length", "IOs"},
	[M_G_ADQL] = {"guest_avg_queue", "Avg. Disk Queue Length", "IOs"},
	[M_G_XFERS] = {"guest_iops", "Disk Transfers/sec", "IO/s"},
	[M_G_READS] = {"guest_reads_per_s", "Disk Reads/sec", "IO/s"},
	[M_G_WRITES] = {"guest_writes_per_s", "Disk Writes/sec", "IO/s"},
	[M_G_MBPS] = {"guest_mb_per_s", "Disk Bytes/sec", "MB/s"},
	[M_G_SPLIT] = {"guest_split_per_s", "Split IO/Sec", "/s"},
	[M_G_BPT] = {"guest_bytes_per_io", "Avg. Disk Bytes/Transfer", "bytes"},
	[M_G_BPR] = {"guest_bytes_per_read", "Avg. Disk Bytes/Read", "bytes"},
	[M_G_BPW] = {"guest_bytes_per_write", "Avg. Disk Bytes/Write", "bytes"},
	[M_RDY] = {"cpu_ready_pct", "CPU %Ready", "%"},
	[M_CSTP] = {"cpu_costop_pct", "CPU %CoStop", "%"},
	[M_MLMTD] = {"cpu_max_limited_pct", "CPU %Max Limited", "%"},
	[M_SWPWT] = {"cpu_swap_wait_pct", "CPU %Swap Wait", "%"},
	[M_SQL_PLE] = {"sql_page_life_expectancy_s", "Page life expectancy", "s"},
	[M_SQL_BATCH] = {"sql_batch_requests_per_s", "Batch Requests/sec", "/s"},
	[M_SQL_PAGE_READS] = {"sql_page_reads_per_s", "Page reads/sec", "pages/s"},
	[M_SQL_FLUSH_WAIT_MS] = {"sql_log_flush_wait_ms_per_s", "Log Flush Wait Time", "ms/s"},
	[M_SQL_FLUSH_WAITS] = {"sql_log_flush_waits_per_s", "Log Flush Waits/sec", "/s"},
	[M_SQL_FLUSHES] = {"sql_log_flushes_per_s", "Log Flushes/sec", "/s"},
	[M_SQL_LOG_MBPS] = {"sql_log_mb_flushed_per_s", "Log Bytes Flushed/sec", "MB/s"},
	[M_SQL_PIO_AVG] = {"sql_page_io_latch_wait_ms", "Page IO latch waits: Average wait time (ms)", "ms"},
	[M_SQL_PIO_PROG] = {"sql_page_io_latch_waiting", "Page IO latch waits: Waits in progress", "waits"},
	[M_SQL_PIO_CUM] = {"sql_page_io_latch_wait_ms_per_s", "Page IO latch waits: Cumulative wait time (ms) per second", "ms/s"},
	[M_SQL_PIO_START] = {"sql_page_io_latch_waits_per_s", "Page IO latch waits: Waits started per second", "/s"},
	[M_SQL_LW_AVG] = {"sql_log_write_wait_ms", "Log write waits: Average wait time (ms)", "ms"},
	[M_SQL_LW_PROG] = {"sql_log_write_waiting", "Log write waits: Waits in progress", "waits"},
	[M_SQL_LW_CUM] = {"sql_log_write_wait_ms_per_s", "Log write waits: Cumulative wait time (ms) per second", "ms/s"},
	[M_SQL_LW_START] = {"sql_log_write_waits_per_s", "Log write waits: Waits started per second", "/s"},
	[M_HV_LAT] = {"vhdx_latency_ms", "VHDX Latency (at the storage VSP)", "ms"},
	[M_HV_QL] = {"vhdx_queue", "VHDX Queue Length", "IOs"},
	[M_HV_LOWER_LAT] = {"vhdx_lower_latency_ms", "VHDX Lower Latency (the storage below)", "ms"},
	[M_HV_LOWER_QL] = {"vhdx_lower_queue", "VHDX Lower Queue Length", "IOs"},
	[M_HV_NIOPS] = {"normalized_iops", "normalized IOPS (8 KiB units, Storage QoS)", "IO/s"},
	[M_CSV_REDIR_R] = {"redirected_reads_per_s", "CSV redirected reads/s", "IO/s"},
	[M_CSV_REDIR_W] = {"redirected_writes_per_s", "CSV redirected writes/s", "IO/s"},
	[M_HV_CPU_WAIT] = {"vp_cpu_wait_us", "CPU Wait Time Per Dispatch (mean of the VPs)", "µs"},
	[M_HV_VP_RUN] = {"vp_guest_run_pct", "% Guest Run Time (mean of the VPs)", "%"},
	[M_HV_LP_RUN] = {"lp_total_run_pct", "host logical processors % Total Run Time", "%"},
	[M_H_LAT_R] = {"host_read_ms", "host Avg. sec/Read (disk or CSV)", "ms"},
	[M_H_LAT_W] = {"host_write_ms", "host Avg. sec/Write (disk or CSV)", "ms"},
	[M_H_LAT_T] = {"host_transfer_ms", "host Avg. Disk sec/Transfer", "ms"},
	[M_H_CDQL] = {"host_current_queue", "host Current Disk Queue Length", "IOs"},
	[M_H_ADQL] = {"host_avg_queue", "host Avg. Disk Queue Length", "IOs"},
	[M_MEM_AVAIL_MB] = {"mem_available_mb", "Available MBytes", "MB"},
	[M_MEM_PAGES] = {"mem_pages_per_s", "Pages/sec", "pages/s"},
	[M_MEM_PAGES_IN] = {"mem_pages_input_per_s", "Pages Input/sec (hard faults read from disk)", "pages/s"},
	[M_MEM_PF_USAGE] = {"paging_file_usage_pct", "Paging File % Usage", "%"},
	[M_SQL_GRANTS_PENDING] = {"sql_memory_grants_pending", "Memory Grants Pending", "queries"},
	[M_HMEM_FREE_MB] = {"host_mem_free_mb", "ESXi host free memory (Memory Free MBytes)", "MB"},
	[M_HMEM_STATE] = {"host_mem_state", "ESXi host memory state (0 high; higher is tighter: clear, soft, hard, low)", ""},
	[M_HMEM_SWAP_R] = {"host_swap_read_mb_per_s", "ESXi host swap read", "MB/s"},
	[M_HMEM_SWAP_W] = {"host_swap_write_mb_per_s", "ESXi host swap write", "MB/s"},
	[M_HMEM_BALLOON] = {"host_balloon_mb", "ESXi host balloon (Memctl Current MBytes)", "MB"},
	[M_VM_SWAP_R] = {"vm_swap_in_mb_per_s", "VM swap-in (SWR/s)", "MB/s"},
	[M_VM_SWAP_W] = {"vm_swap_out_mb_per_s", "VM swap-out (SWW/s)", "MB/s"},
	[M_VM_SWAPPED] = {"vm_swapped_mb", "VM memory swapped (SWCUR)", "MB"},
	[M_VM_BALLOON] = {"vm_balloon_mb", "VM balloon (MCTLSZ)", "MB"},
};

static const char *const vd_buses[] = {"scsi", "nvme", "sata", "ide"};

/* Whether s is "<bus>C:T" to its end. */
static const char *bus_at(const char *s)
{
	for (size_t b = 0; b < sizeof vd_buses / sizeof vd_buses[0]; b++) {
		size_t n = strlen(vd_buses[b]);
		if (strncmp(s, vd_buses[b], n) != 0)
			continue;
		const char *p = s + n;
		if (!isdigit((unsigned char)*p))
			continue;
		while (isdigit((unsigned char)*p))
			p++;
		if (*p++ != ':' || !isdigit((unsigned char)*p))
			continue;
		while (isdigit((unsigned char)*p))
			p++;
		if (!*p)
			return vd_buses[b];
	}
	return NULL;
}

const char *vdisk_ctrl(const char *name)
{
	if (!name)
		return NULL;
	for (const char *q = strrchr(name, ':'); q && q > name; q--)
		if (*q == ':' && bus_at(q + 1))
			return q;
	return NULL;
}

const char *vdisk_bus(const char *name)
{
	const char *c = vdisk_ctrl(name);
	return c ? bus_at(c + 1) : NULL;
}
