/* extract.c — the narrow CSV of `iopsy extract` (see extract.h). */
#include "extract.h"

#include <stdlib.h>
#include <string.h>

#include "parser.h"

static void csv_quote(struct buf *b, const char *s, size_t n)
{
	buf_addc(b, '"');
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '"')
			buf_addc(b, '"');
		buf_addc(b, s[i]);
	}
	buf_addc(b, '"');
}

long extract_select(struct input *in, struct matcher *m, size_t **sel, struct diag *d)
{
	size_t n = reader_ncols(in->r);
	bool *want = xcalloc(n ? n : 1, sizeof *want);
	*sel = xmalloc((n ? n : 1) * sizeof **sel);
	long nsel = 0;
	for (size_t i = 0; i < n; i++) {
		const struct pdh_column *col = reader_column(in->r, i);
		int k = matcher_match(m, col->name, col->name_len, d);
		if (k < 0) {
			free(want);
			return ERR_LIMIT;
		}
		if (k) {
			want[i] = true;
			(*sel)[nsel++] = i;
		}
	}
	if (nsel)
		reader_select(in->r, want);
	free(want);
	return nsel;
}

int extract_write(struct input *in, const size_t *sel, size_t nsel, FILE *fp, bool *write_failed, long *rows)
{
	return extract_write_time(in, sel, nsel, fp, write_failed, rows, XT_ISO, NULL);
}

int extract_write_time(struct input *in, const size_t *sel, size_t nsel, FILE *fp, bool *write_failed, long *rows,
		       enum extract_time tf, const struct tz *tz)
{
	*write_failed = false;
	*rows = 0;
	const struct parser_ops *ops = reader_format(in->r);
	struct reader_facts rf;
	reader_facts(in->r, &rf);
	const struct pdh_header_info *hi = &rf.hi;
	struct tz fixed;
	if (tf == XT_LOCAL && !tz) {
		if (!(ops->local_time && hi->bias_known))
			return ERR_USAGE;
		tz_fixed(&fixed, -hi->bias_min * 60, NULL);
		tz = &fixed;
	}
	struct buf line;
	buf_init(&line);
	if (tf == XT_ISO)
		buf_adds(&line, "\"time\"");
	else if (tf == XT_EXCEL)
		buf_adds(&line, "\"time (UTC)\"");
	else
		buf_printf(&line, "\"time (local, %s)\"", tz->name);
	for (size_t k = 0; k < nsel; k++) {
		const struct pdh_column *col = reader_column(in->r, sel[k]);
		buf_addc(&line, ',');
		csv_quote(&line, col->name, col->name_len);
	}
	buf_addc(&line, '\n');
	struct pdh_row row;
	int r;
	int rc = 0;
	while ((r = ops->next(in->r, &row)) == 1) {
		char t[32];
		int64_t tt = tf == XT_LOCAL ? row.t_ms + (int64_t)tz_offset_at(tz, row.t_ms / 1000, NULL) * 1000 : row.t_ms;
		time_format_iso(tt, true, t);
		if (tf != XT_ISO) { /* "2026-07-27 13:00:00.644": what spreadsheets read as a date-time */
			t[10] = ' ';
			char *z = strchr(t, 'Z');
			if (z)
				*z = '\0';
		}
		buf_adds(&line, t);
		for (size_t k = 0; k < nsel; k++) {
			double v;
			buf_addc(&line, ',');
			if (ops->value(in->r, sel[k], &v)) {
				size_t tl;
				const char *tx = ops->text(in->r, sel[k], &tl);
				while (tl && *tx == ' ')
					tx++, tl--;
				while (tl && tx[tl - 1] == ' ')
					tl--;
				buf_add(&line, tx, tl);
			}
		}
		buf_addc(&line, '\n');
		(*rows)++;
		if (line.len >= (1u << 16)) {
			if (fwrite(line.data, 1, line.len, fp) != line.len) {
				*write_failed = true;
				break;
			}
			buf_reset(&line);
		}
	}
	/* no data row: not even the header (the caller reports the capture as unreadable) */
	if (!*write_failed && *rows && line.len && fwrite(line.data, 1, line.len, fp) != line.len)
		*write_failed = true;
	buf_free(&line);
	if (r < 0)
		rc = r;
	return rc;
}
