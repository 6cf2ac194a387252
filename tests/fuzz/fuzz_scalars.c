/* fuzz_scalars.c — libFuzzer harness for the time stamp and number parsers: pdh_parse_time,
 * time_parse_iso/time_format_iso and parse_number. Oracles: an accepted PDH time survives the
 * ISO round trip to the millisecond; an accepted number is finite and equals strtod's reading. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "pdh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	/* PDH time stamps: the input as is (not NUL-terminated: ASan sees any over-read). */
	int64_t t;
	if (pdh_parse_time(s, size, &t) == 0) {
		FUZZ_CHECK(t >= 0);
		char iso[32];
		time_format_iso(t, true, iso);
		int64_t back;
		if (t > 253402300799999LL) /* 12/31/9999 23:59:60 is past the last formattable time */
			FUZZ_CHECK(strcmp(iso, "invalid-time") == 0);
		else
			FUZZ_CHECK(time_parse_iso(iso, &back) == 0 && back == t);
	}
	/* ISO time stamps and numbers take NUL-terminated / bounded copies. */
	char *z = malloc(size + 1);
	FUZZ_CHECK(z);
	memcpy(z, data, size);
	z[size] = '\0';
	if (time_parse_iso(z, &t) == 0) {
		char iso[32];
		time_format_iso(t, true, iso);
		FUZZ_CHECK(strlen(iso) < 32);
	}
	/* any 64-bit time formats without overflow or garbage */
	if (size >= 8) {
		int64_t any;
		memcpy(&any, data, 8);
		char iso[32];
		time_format_iso(any, true, iso);
		FUZZ_CHECK(strlen(iso) < 32);
		int64_t back;
		if (strcmp(iso, "invalid-time") != 0)
			FUZZ_CHECK(time_parse_iso(iso, &back) == 0 && back == any);
	}
	double v;
	if (parse_number(s, size, &v)) {
		FUZZ_CHECK(isfinite(v));
		FUZZ_CHECK(memchr(z, '\0', size) == NULL);
		char *end;
		double w = strtod(z, &end);
		FUZZ_CHECK(v == w);
	}
	free(z);
	return 0;
}
