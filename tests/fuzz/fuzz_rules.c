/* fuzz_rules.c — libFuzzer harness for the --rules file loader (rules_load_text). Checks: every
 * value stays a finite non-negative number, every error line names the file, and the table
 * prints; a file that loads says at most warnings. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "rules.h"

static void to_buf(void *ctx, enum diag_level lvl, const char *msg)
{
	(void)lvl;
	buf_adds(ctx, msg);
	buf_addc(ctx, '\n');
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rules r;
	rules_init(&r);
	struct buf err;
	buf_init(&err);
	struct diag d;
	diag_init(&d, "fuzz.rules", -1);
	d.sink = (struct diag_sink){.fn = to_buf, .ctx = &err};
	int rc = rules_load_text(&r, (const char *)data, size, &d);
	FUZZ_CHECK(rc == 0 || rc == ERR_FORMAT);
	if (rc < 0)
		FUZZ_CHECK(err.len > 0 && strncmp(err.data, "iopsy: fuzz.rules:", 18) == 0);
	else /* loaded: at most warnings (a value set twice), each naming the file and line */
		FUZZ_CHECK(err.len == 0 || (strncmp(err.data, "iopsy: fuzz.rules:", 18) == 0 && strstr(err.data, ": warning: ") &&
					    !strstr(err.data, ": error: ")));
	for (int i = 0; i < R_COUNT; i++)
		FUZZ_CHECK(isfinite(r.v[i]) && r.v[i] >= 0);
	struct buf out;
	buf_init(&out);
	rules_print(&r, &out);
	FUZZ_CHECK(out.len > 0);
	buf_free(&out);
	buf_free(&err);
	return 0;
}
