/* memcap.h — captures built in memory for the unit suites: an esxtop or perfmon CSV whose columns
 * are counter paths with a value function per row, read through the parsers like a file. */
#ifndef IOPSY_MEMCAP_H
#define IOPSY_MEMCAP_H

#include <math.h>
#include <stdio.h>

#include "util.h"

struct mcol {
	const char *path;                  /* after \\HOST\ : "Physical Disk SCSI Device(naa.1)\\Commands/sec" */
	double (*fn)(int row, const double *arg); /* NaN: an empty cell */
	double arg[4];
};

/* konst: arg[0]; pulse: arg[1] for rows in [arg[2], arg[3]), else arg[0]; wave: arg[0] +
 * arg[1]*sin(row/arg[2]) (arg[2] > 0), a load that varies so IOPS series correlate. */
static inline double mc_konst(int row, const double *a) { (void)row; return a[0]; }
static inline double mc_pulse(int row, const double *a) { return row >= a[2] && row < a[3] ? a[1] : a[0]; }
static inline double mc_wave(int row, const double *a) { return a[0] + a[1] * sin((double)row / a[2]); }

/* Appends a capture of rows rows, interval_s apart from 2026-07-27 13:00:00, to out (reset first).
 * perfmon: a relog CSV with bias 0 and " " for NaN; else an esxtop -b CSV (trailing comma). */
static inline void memcap(struct buf *out, bool perfmon, const char *host, const struct mcol *c, int ncols, int rows,
			  int interval_s)
{
	buf_reset(out);
	buf_adds(out, perfmon ? "\"(PDH-CSV 4.0) (Coordinated Universal Time)(0)\"" : "\"(PDH-CSV 4.0) (UTC)(0)\"");
	for (int k = 0; k < ncols; k++)
		buf_printf(out, ",\"\\\\%s\\%s\"", host, c[k].path);
	buf_adds(out, perfmon ? "\r\n" : ",\n");
	for (int r = 0; r < rows; r++) {
		int s = r * interval_s;
		buf_printf(out, perfmon ? "\"07/27/2026 %02d:%02d:%02d.000\"" : "\"07/27/2026 %02d:%02d:%02d\"", 13 + s / 3600,
			   s / 60 % 60, s % 60);
		for (int k = 0; k < ncols; k++) {
			double v = c[k].fn(r, c[k].arg);
			if (isnan(v))
				buf_adds(out, perfmon ? ",\" \"" : ",\"\"");
			else
				buf_printf(out, ",\"%.6g\"", v);
		}
		buf_adds(out, perfmon ? "\r\n" : ",\n");
	}
}

#endif
