/* fuzz_rules.c — libFuzzer harness for the --rules file loader (rules_load_text). Checks: every
 * value stays a finite non-negative number, every error line names the file, and the table
 * prints. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "rules.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	rules_reset();
	struct buf err;
	buf_init(&err);
	int rc = rules_load_text("fuzz.rules", (const char *)data, size, &err);
	FUZZ_CHECK(rc == 0 || rc == ERR_FORMAT);
	if (rc < 0)
		FUZZ_CHECK(err.len > 0 && strncmp(err.data, "iopsy: fuzz.rules:", 18) == 0);
	else
		FUZZ_CHECK(err.len == 0);
	for (int r = 0; r < R_COUNT; r++)
		FUZZ_CHECK(isfinite(rules[r].value) && rules[r].value >= 0);
	struct buf out;
	buf_init(&out);
	rules_print(&out);
	FUZZ_CHECK(out.len > 0);
	buf_free(&out);
	buf_free(&err);
	return 0;
}
