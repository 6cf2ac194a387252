/* fuzz_vmklog.c — libFuzzer harness for the vmkernel.log event parser (vmklog_parse). Checks:
 * events stay within VMK_MAX_EVENTS, point at real lines, and carry a device name; link-up lines
 * name an adapter and a speed; the one file's counts are the log's. */
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
	for (size_t i = 0; i < log.nlinks; i++) { /* FC link-up lines: an adapter, a speed, a real line */
		FUZZ_CHECK(log.links[i].adapter != NULL && strncmp(log.links[i].adapter, "vmhba", 5) == 0);
		FUZZ_CHECK(log.links[i].gbps >= 1 && log.links[i].gbps <= 128);
		FUZZ_CHECK(log.links[i].line >= 1 && log.links[i].line <= log.lines);
	}
	FUZZ_CHECK(log.nfiles == 1 && log.files[0].lines == log.lines && log.files[0].events == log.n);
	vmklog_free(&log);
	buf_free(&msgs);
	return 0;
}
