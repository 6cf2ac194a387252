/* fuzz_common.h — helpers shared by the libFuzzer harnesses: a diagnostics sink that keeps the
 * text (so messages are formatted, checked and then dropped), and an abort-with-reason check. */
#ifndef IOPSY_FUZZ_COMMON_H
#define IOPSY_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* An oracle failure: libFuzzer records the input as a crash. */
#define FUZZ_CHECK(cond)                                                                              \
	do {                                                                                              \
		if (!(cond)) {                                                                            \
			fprintf(stderr, "fuzz check failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);   \
			abort();                                                                          \
		}                                                                                         \
	} while (0)

/* Diagnostics go into a buffer; every message must be valid UTF-8 without raw control bytes
 * (they reach terminals and logs), so the sink checks that too. */
static inline void fuzz_sink(void *ctx, enum diag_level lvl, const char *msg)
{
	(void)lvl;
	struct buf *b = ctx;
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++)
		FUZZ_CHECK(*p >= 0x20 && *p != 0x7f);
	FUZZ_CHECK(utf8_valid(msg, strlen(msg)));
	if (b) {
		buf_adds(b, msg);
		buf_addc(b, '\n');
	}
}

static inline void fuzz_diag(struct diag *d, struct buf *msgs, long max_warnings)
{
	diag_init(d, "fuzz.csv", max_warnings);
	d->sink = (struct diag_sink){.fn = fuzz_sink, .ctx = msgs};
}

#endif
