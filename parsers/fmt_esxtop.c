/* fmt_esxtop.c — the esxtop/resxtop batch-mode format module (`esxtop -b [-a]`). */
#include "pdh.h"

#include <string.h>

static int esxtop_probe(const char *head, size_t n)
{
	static const char sig[] = "(PDH-CSV 4.0) (UTC)(0)";
	const char *p = memmem(head, n < 4096 ? n : 4096, sig, sizeof sig - 1);
	if (!p)
		return 0;
	/* Objects only esxtop writes make it certain. */
	static const char *const objs[] = {"\\Physical Cpu(", "\\Memory\\", "\\Group Cpu(", "\\Vcpu(",
					   "\\Physical Disk", "\\Virtual Disk(", "\\Interrupt Cookie(", NULL};
	size_t lim = n < (1u << 20) ? n : (1u << 20);
	for (size_t i = 0; objs[i]; i++)
		if (memmem(head, lim, objs[i], strlen(objs[i])))
			return 95;
	return 70;
}

static int esxtop_header(const char *cell, size_t len, const struct pdh_options *o, struct pdh_header_info *hi,
			 struct diag *d)
{
	(void)o;
	(void)d;
	pdh_header_parse_bias(cell, len, hi);
	if (!hi->bias_known) {
		/* esxtop always writes UTC */
		hi->bias_known = true;
		hi->bias_min = 0;
		memcpy(hi->zone, "UTC", 4);
	}
	return 0;
}

const struct pdh_format pdh_format_esxtop = {
	.name = "esxtop",
	.summary = "VMware esxtop/resxtop batch CSV (esxtop -b [-a]), UTC time stamps",
	.probe = esxtop_probe,
	.header = esxtop_header,
	.local_time = false,
	.glitch_values = false,
};
