/* fuzz_path.c — libFuzzer harness for the counter-path splitter (pdh_split_path), the header's
 * zone/bias cell (pdh_header_parse_bias and each format module's header hook) and the probes.
 * Checks: parts are substrings in order, the bias stays within a day, the zone is terminated. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "pdh.h"

static bool is_part(const char *part, const char *s, size_t n)
{
	size_t k = strlen(part);
	return k <= n && (k == 0 || memmem(s, n, part, k) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct arena a;
	arena_init(&a);
	struct pdh_path p;
	pdh_split_path(s, size, &p, &a);
	FUZZ_CHECK(p.counter != NULL);
	if (p.ok) {
		FUZZ_CHECK(p.host && p.object && p.object[0]);
		FUZZ_CHECK(size >= 2 && s[0] == '\\' && s[1] == '\\');
		FUZZ_CHECK(is_part(p.host, s, size) && is_part(p.object, s, size) && is_part(p.counter, s, size));
		FUZZ_CHECK(strlen(p.host) + strlen(p.object) + strlen(p.counter) +
				   (p.instance ? strlen(p.instance) + 2 : 0) + 4 <= size);
		FUZZ_CHECK(strchr(p.host, '\\') == NULL || memchr(p.host, '\\', strlen(p.host)) == NULL);
		FUZZ_CHECK(strchr(p.counter, '\\') == NULL);
		if (p.instance)
			FUZZ_CHECK(is_part(p.instance, s, size));
	} else if (memchr(s, '\0', size) == NULL) {
		FUZZ_CHECK(strlen(p.counter) == size && memcmp(p.counter, s, size) == 0);
	}
	arena_free(&a);

	struct pdh_header_info hi;
	memset(&hi, 0x55, sizeof hi);
	pdh_header_parse_bias(s, size, &hi);
	FUZZ_CHECK(memchr(hi.zone, '\0', sizeof hi.zone) != NULL);
	FUZZ_CHECK(hi.bias_min >= -24 * 60 && hi.bias_min <= 24 * 60);
	struct diag d;
	struct buf msgs;
	buf_init(&msgs);
	fuzz_diag(&d, &msgs, -1);
	struct pdh_options o = {.max_warnings = -1};
	for (size_t i = 0; parsers[i]; i++) {
		int c = parsers[i]->probe(s, size);
		FUZZ_CHECK(c >= 0 && c <= 100);
		memset(&hi, 0x55, sizeof hi);
		int rc = parsers[i]->header(s, size, &o, &hi, &d);
		FUZZ_CHECK(rc == 0 || rc == ERR_FORMAT);
		FUZZ_CHECK(memchr(hi.zone, '\0', sizeof hi.zone) != NULL);
	}
	buf_free(&msgs);
	return 0;
}
