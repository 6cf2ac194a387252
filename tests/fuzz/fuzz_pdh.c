/* fuzz_pdh.c — libFuzzer harness for the PDH-CSV reader with each format module: source_open_mem
 * + pdh_open + pdh_next + pdh_value/pdh_text. The first byte chooses the format (auto, esxtop,
 * perfmon), no_fast_path, the warning cap, a --tz fallback and differential mode; the second the
 * selected columns. In differential mode the same input runs through libcsv alone and through the
 * fast line scanner at every dispatch level this machine has (fieldscan.h), and rows, times,
 * values, texts and messages must be identical. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fieldscan.h"
#include "fuzz_common.h"
#include "pdh.h"
#include "source.h"

#define MAX_ROWS 256
#define MAX_COLS 32

struct result {
	int open_rc, next_rc;
	size_t nrows, ncols;
	uint64_t hash;           /* over times, lines, discontinuities, values and texts */
	struct buf msgs;
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
	return h;
}

static void run(const uint8_t *data, size_t size, const struct pdh_options *o, uint8_t sel, struct result *res)
{
	memset(res, 0, sizeof *res);
	buf_init(&res->msgs);
	struct diag d;
	fuzz_diag(&d, &res->msgs, o->max_warnings);
	struct source src;
	source_open_mem(&src, "fuzz.csv", data, size, &d);
	struct pdh_reader *r;
	res->open_rc = pdh_open(&r, &src, o, &d);
	if (res->open_rc < 0) {
		FUZZ_CHECK(r == NULL);
		FUZZ_CHECK(d.errors > 0); /* every failure says why */
		source_close(&src);
		return;
	}
	size_t n = pdh_ncols(r);
	res->ncols = n;
	bool *want = calloc(n ? n : 1, sizeof *want);
	FUZZ_CHECK(want);
	for (size_t i = 0; i < n; i++) {
		const struct pdh_column *c = pdh_column(r, i);
		FUZZ_CHECK(c->name && c->path.counter);
		FUZZ_CHECK(c->field == (long)i + 2);
		want[i] = sel == 0 || (sel >> (i % 8)) & 1;
	}
	pdh_select(r, sel == 0 ? NULL : want);
	struct pdh_row row;
	int rc;
	uint64_t h = 0;
	int64_t prev = INT64_MIN;
	while ((rc = pdh_next(r, &row)) == 1) {
		FUZZ_CHECK(row.line > pdh_header_line(r));
		if (prev != INT64_MIN && row.t_ms < prev)
			FUZZ_CHECK(row.discontinuity);
		prev = row.t_ms;
		h = mix(h, (uint64_t)row.t_ms);
		h = mix(h, (uint64_t)row.line);
		h = mix(h, row.discontinuity);
		if (res->nrows < MAX_ROWS) {
			for (size_t i = 0; i < n && i < MAX_COLS; i++) {
				size_t tl;
				const char *t = pdh_text(r, i, &tl);
				FUZZ_CHECK(t != NULL);
				if (!want[i] && sel != 0)
					FUZZ_CHECK(tl == 0);
				for (size_t k = 0; k < tl; k++)
					h = mix(h, (unsigned char)t[k]);
				double v;
				if (pdh_value(r, i, &v)) {
					FUZZ_CHECK(isfinite(v));
					uint64_t bits;
					memcpy(&bits, &v, sizeof bits);
					h = mix(h, bits);
				} else {
					h = mix(h, 7);
				}
			}
		}
		res->nrows++;
	}
	res->next_rc = rc;
	if (rc < 0)
		FUZZ_CHECK(d.errors > 0);
	const struct pdh_stats *st = pdh_stats(r);
	FUZZ_CHECK(st->rows == (long)res->nrows);
	res->hash = h;
	diag_finish(&d);
	free(want);
	pdh_close(r);
	source_close(&src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	static const char *const formats[] = {NULL, "esxtop", "perfmon", "auto"};
	uint8_t ctl = data[0], sel = data[1];
	data += 2;
	size -= 2;
	struct pdh_options o = {
		.format = formats[ctl & 3],
		.no_fast_path = ctl & 4,
		.max_warnings = (ctl & 8) ? -1 : 3,
		.tz_given = ctl & 16,
		.tz_bias_min = (ctl & 32) ? -330 : 480,
	};
	struct result a, b;
	if (!(ctl & 0x80)) {
		run(data, size, &o, sel, &a);
		buf_free(&a.msgs);
		return 0;
	}
	o.no_fast_path = true;
	run(data, size, &o, sel, &a);
	o.no_fast_path = false;
	for (int l = 0; l < FIELDSCAN_NLEVELS; l++) {
		if (!fieldscan_set_default_level((enum fieldscan_level)l))
			continue;
		run(data, size, &o, sel, &b);
		FUZZ_CHECK(a.open_rc == b.open_rc);
		FUZZ_CHECK(a.next_rc == b.next_rc);
		FUZZ_CHECK(a.nrows == b.nrows);
		FUZZ_CHECK(a.hash == b.hash);
		FUZZ_CHECK(strcmp(a.msgs.data ? a.msgs.data : "", b.msgs.data ? b.msgs.data : "") == 0);
		buf_free(&b.msgs);
	}
	fieldscan_set_default_level(fieldscan_level_best());
	buf_free(&a.msgs);
	return 0;
}
