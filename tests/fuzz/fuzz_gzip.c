/* fuzz_gzip.c — libFuzzer harness for file input through zlib: the bytes go into a memfd that is
 * opened by path (/proc/self/fd/N) like any capture, then read by the PDH reader, the vmkernel.log
 * reader or the partitions reader. The first byte chooses the reader and whether the rest is
 * gzip-compressed here first (to reach the parsers through gzip) or used raw (to fuzz the gzip
 * header, trailer and deflate stream themselves, including concatenated and truncated members). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#include "fuzz_common.h"
#include "partitions.h"
#include "pdh.h"
#include "source.h"
#include "vmklog.h"

static int memfd = -1;
static char path[64];

static bool put(const void *p, size_t n)
{
	if (ftruncate(memfd, 0) != 0 || pwrite(memfd, p, n, 0) != (ssize_t)n)
		return false;
	return true;
}

static void read_pdh(uint8_t ctl)
{
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	fuzz_diag(&d, &msgs, 5);
	struct source src;
	if (source_open(&src, path, &d) < 0) {
		buf_free(&msgs);
		return;
	}
	struct pdh_options o = {.max_warnings = 5, .no_fast_path = ctl & 8};
	struct pdh_reader *r;
	if (pdh_open(&r, &src, &o, &d) == 0) {
		struct pdh_row row;
		size_t n = pdh_ncols(r);
		int rc;
		while ((rc = pdh_next(r, &row)) == 1)
			for (size_t i = 0; i < n && i < 16; i++) {
				double v;
				(void)pdh_value(r, i, &v);
			}
		if (rc < 0)
			FUZZ_CHECK(d.errors > 0);
		pdh_close(r);
	} else {
		FUZZ_CHECK(d.errors > 0);
	}
	source_close(&src);
	buf_free(&msgs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (memfd < 0) {
		memfd = memfd_create("fuzz-gzip", 0);
		FUZZ_CHECK(memfd >= 0);
		snprintf(path, sizeof path, "/proc/self/fd/%d", memfd);
	}
	uint8_t ctl = data[0];
	data++;
	size--;
	if (ctl & 1) {
		/* compress here: gzip wrapper (windowBits 15 + 16) */
		z_stream z;
		memset(&z, 0, sizeof z);
		FUZZ_CHECK(deflateInit2(&z, (ctl >> 4) & 9, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
		size_t cap = deflateBound(&z, size) + 64;
		unsigned char *out = malloc(cap);
		FUZZ_CHECK(out);
		z.next_in = (unsigned char *)(uintptr_t)data;
		z.avail_in = (unsigned)size;
		z.next_out = out;
		z.avail_out = (unsigned)cap;
		FUZZ_CHECK(deflate(&z, Z_FINISH) == Z_STREAM_END);
		size_t n = cap - z.avail_out;
		deflateEnd(&z);
		/* ctl bit 1: cut the compressed stream short (a capture copied half way) */
		if ((ctl & 2) && n > 12)
			n = n * 2 / 3;
		FUZZ_CHECK(put(out, n));
		free(out);
	} else {
		FUZZ_CHECK(put(data, size));
	}
	struct buf msgs;
	buf_init(&msgs);
	struct diag d;
	fuzz_diag(&d, &msgs, 5);
	switch ((ctl >> 2) & 3) {
	case 0:
	case 1:
		read_pdh(ctl);
		break;
	case 2: {
		struct vmk_log log;
		if (vmklog_read(&log, path, &d) == 0)
			FUZZ_CHECK(log.n <= VMK_MAX_EVENTS);
		vmklog_free(&log);
		break;
	}
	case 3: {
		struct partitions ps;
		(void)partitions_read(&ps, path, &d);
		partitions_free(&ps);
		break;
	}
	}
	buf_free(&msgs);
	return 0;
}
