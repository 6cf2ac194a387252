/* fuzz_source.c — libFuzzer harness for the byte source's encoding layer (BOM sniffing, UTF-16LE/BE
 * to UTF-8) over a memory buffer. Oracles: the decoded text does not depend on how the caller
 * slices its reads (sizes 1..64 chosen by the input against one big read), end of input is
 * reported only at the end, and UTF-16 input always decodes to valid UTF-8. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "source.h"

static void read_all(const uint8_t *data, size_t size, const uint8_t *sizes, size_t nsizes, struct buf *out,
		     enum source_encoding *enc)
{
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	fuzz_diag(&d, &msgs, -1);
	struct source s;
	source_open_mem(&s, "fuzz.txt", data, size, &d);
	char chunk[1 << 16];
	size_t i = 0;
	long k;
	for (;;) {
		size_t n = nsizes ? (size_t)(sizes[i++ % nsizes] % 64) + 1 : sizeof chunk;
		k = source_read(&s, chunk, n, &d);
		FUZZ_CHECK(k >= -5 && k <= (long)n);
		if (k <= 0)
			break;
		buf_add(out, chunk, (size_t)k);
	}
	FUZZ_CHECK(k == 0);
	*enc = s.enc;
	source_close(&s);
	buf_free(&msgs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t nsizes = data[0] % 8 + 1;
	if (size < 1 + nsizes)
		return 0;
	const uint8_t *sizes = data + 1;
	data += 1 + nsizes;
	size -= 1 + nsizes;
	struct buf whole, sliced;
	buf_init(&whole);
	buf_init(&sliced);
	enum source_encoding e1, e2;
	read_all(data, size, NULL, 0, &whole, &e1);
	read_all(data, size, sizes, nsizes, &sliced, &e2);
	FUZZ_CHECK(e1 == e2);
	FUZZ_CHECK(whole.len == sliced.len);
	FUZZ_CHECK(whole.len == 0 || memcmp(whole.data, sliced.data, whole.len) == 0);
	if (e1 == SOURCE_UTF16LE || e1 == SOURCE_UTF16BE)
		FUZZ_CHECK(utf8_valid(whole.data ? whole.data : "", whole.len));
	else
		FUZZ_CHECK(whole.len + 3 >= size);
	buf_free(&whole);
	buf_free(&sliced);
	return 0;
}
