/* fuzz_fieldscan.c — libFuzzer harness for the field scanner's dispatch levels: every level this
 * machine has must take or refuse exactly the lines the scalar reference does, with the same field
 * count and the same span for every wanted field (the reader-level harness fuzz_pdh holds the
 * scalar path equal to libcsv). The first byte chooses the delimiter, the glue mode and the wanted
 * fields; the rest is the line. Reads past the line are caught by ASan (libFuzzer's buffer is
 * exactly the input's size). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fieldscan.h"
#include "fuzz_common.h"

#define NF 512

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t ctl = data[0];
	const char *line = (const char *)data + 1;
	size_t len = size - 1;
	/* the line as a heap copy of its exact size, so any over-read is an ASan report */
	char *copy = malloc(len ? len : 1);
	FUZZ_CHECK(copy);
	memcpy(copy, line, len);
	unsigned char want[NF];
	for (size_t f = 0; f < NF; f++) {
		switch (ctl >> 2 & 7) {
		case 0: want[f] = 1; break;
		case 1: want[f] = f % 2; break;
		case 2: want[f] = f % 3 == 1; break;
		case 3: want[f] = f == 1 || f == 2 || f == 9; break;
		case 4: want[f] = f % 17 == 5; break;
		case 5: want[f] = f > 3; break;
		case 6: want[f] = 0; break;
		default: want[f] = (f * 2654435761u >> 7) & 1; break;
		}
	}
	struct fieldscan_plan plan;
	FUZZ_CHECK(fieldscan_plan_init(&plan, want, (ctl & 0x20) ? 4 : NF, (ctl & 1) ? '\t' : ',', ctl & 2) == 0);
	static struct fieldscan_span a[NF + 1], b[NF + 1];
	size_t na = 0, nb = 0;
	FUZZ_CHECK(fieldscan_plan_set_level(&plan, FIELDSCAN_SCALAR));
	bool oka = fieldscan_line(&plan, copy, len, a, &na);
	if (oka)
		for (size_t i = 0; i < plan.nwanted && plan.wanted[i] < na; i++)
			FUZZ_CHECK((size_t)a[i].off + a[i].len <= len);
	for (int l = FIELDSCAN_SCALAR + 1; l < FIELDSCAN_NLEVELS; l++) {
		if (!fieldscan_plan_set_level(&plan, (enum fieldscan_level)l))
			continue;
		memset(b, 0xa5, sizeof b);
		bool okb = fieldscan_line(&plan, copy, len, b, &nb);
		FUZZ_CHECK(oka == okb);
		if (!oka)
			continue;
		FUZZ_CHECK(na == nb);
		for (size_t i = 0; i < plan.nwanted && plan.wanted[i] < na; i++)
			FUZZ_CHECK(a[i].off == b[i].off && a[i].len == b[i].len);
	}
	fieldscan_plan_free(&plan);
	free(copy);
	return 0;
}
