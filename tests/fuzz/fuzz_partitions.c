/* fuzz_partitions.c — libFuzzer harness for the wmic partition parser: partitions_parse on the
 * bytes as they are, or (first byte odd) after decoding through a memory source as
 * partitions_read would (UTF-16LE with or without BOM is how these files usually arrive). */
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "partitions.h"
#include "source.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t ctl = data[0];
	data++;
	size--;
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	fuzz_diag(&d, &msgs, -1);
	struct buf text;
	buf_init(&text);
	if (ctl & 1) {
		struct source src;
		source_open_mem(&src, "fuzz.txt", data, size, &d);
		char chunk[4096];
		long k;
		while ((k = source_read(&src, chunk, sizeof chunk, &d)) > 0)
			buf_add(&text, chunk, (size_t)k);
		FUZZ_CHECK(k == 0);
		source_close(&src);
	} else {
		buf_add(&text, data, size);
	}
	struct partitions ps;
	int rc = partitions_parse(&ps, text.data, text.len, &d);
	FUZZ_CHECK(rc == 0 || rc == ERR_FORMAT);
	for (size_t i = 0; i < ps.n; i++) {
		FUZZ_CHECK(ps.p[i].name != NULL);
		FUZZ_CHECK(ps.p[i].offset >= 0 && ps.p[i].block_size >= 0);
		FUZZ_CHECK(ps.p[i].line >= 1);
	}
	partitions_free(&ps);
	buf_free(&text);
	buf_free(&msgs);
	return 0;
}
