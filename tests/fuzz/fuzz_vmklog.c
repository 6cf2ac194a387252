/* fuzz_vmklog.c — libFuzzer harness for the vmkernel.log event parser (vmklog_parse). Checks:
 * events stay within VMK_MAX_EVENTS, point at real lines, and carry a device name. */
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"
#include "vmklog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	fuzz_diag(&d, &msgs, -1);
	struct vmk_log log;
	int rc = vmklog_parse(&log, (const char *)data, size, &d);
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(log.n <= VMK_MAX_EVENTS);
	for (size_t i = 0; i < log.n; i++) {
		FUZZ_CHECK(log.ev[i].device != NULL);
		FUZZ_CHECK(log.ev[i].line >= 1 && log.ev[i].line <= log.lines);
		FUZZ_CHECK(vmk_kind_name(log.ev[i].kind)[0] != '?');
	}
	vmklog_free(&log);
	buf_free(&msgs);
	return 0;
}
