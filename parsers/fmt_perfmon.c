/* fmt_perfmon.c — the Windows perfmon format module: relog/Data Collector Set/typeperf CSV and TSV,
 * PowerShell Export-Counter, local time with the header's bias. */
#include "pdh.h"

#include <string.h>

static int perfmon_probe(const char *head, size_t n)
{
	size_t lim = n < 4096 ? n : 4096;
	if (memmem(head, lim, "(PDH-CSV 4.0)", 13) || memmem(head, lim, "(PDH-TSV 4.0)", 13))
		return 50;
	if (memmem(head, lim, "(PDH-", 5))
		return 30;
	return 0;
}

static int perfmon_header(const char *cell, size_t len, const struct pdh_options *o, struct pdh_header_info *hi,
			  struct diag *d)
{
	(void)o;
	(void)d;
	pdh_header_parse_bias(cell, len, hi);
	return 0;
}

const struct pdh_format pdh_format_perfmon = {
	.name = "perfmon",
	.summary = "Windows perfmon CSV/TSV (relog, Data Collector Set, typeperf, Export-Counter), local time + bias",
	.probe = perfmon_probe,
	.header = perfmon_header,
	.local_time = true,
	.glitch_values = true,
};
