/* fieldscan.c — the field scanner's plan, run-time dispatch (chosen once) and the portable scalar
 * implementation, which walks the line byte by byte as the reader's fast path always did and is
 * the reference the SIMD levels are tested against (see fieldscan.h). */
#include "fieldscan.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* ---- scalar reference ---- */

bool fieldscan_scan_scalar(const struct fieldscan_plan *pl, const char *line, size_t len,
			   struct fieldscan_span *spans, size_t *nfields)
{
	const char *p = line, *const e = line + len;
	const char delim = pl->delim;
	const uint32_t *w = pl->wanted;
	size_t wi = 0, f = 0;
	bool glued = false;
	for (;;) {
		const char *s, *se;
		if (p < e && *p == '"') {
			const char *q = memchr(p + 1, '"', (size_t)(e - p - 1));
			if (!q || (q + 1 < e && q[1] != delim))
				return false;
			/* after a glued part libcsv is still in the unquoted field, which the next
			 * delimiter ends even between these quotes */
			if (glued && memchr(p + 1, delim, (size_t)(q - p - 1)))
				return false;
			glued = false;
			s = p + 1;
			se = q;
			p = q + 1;
		} else {
			const char *q = p;
			while (q < e && *q != '"' && *q != delim)
				q++;
			s = p;
			se = q;
			p = q;
			while (s < se && (*s == ' ' || *s == '\t'))
				s++;
			if (q < e && *q == '"') {
				/* esxtop -a: `   73.1"8.93"` is the field 73.1 and then the quoted one; with
				 * only blanks before the quote libcsv reads a quoted field instead */
				if (!pl->glue || s == se)
					return false;
				glued = true;
				while (se > s && se[-1] == ' ')
					se--;
			} else {
				while (se > s && (se[-1] == ' ' || se[-1] == '\t'))
					se--;
			}
		}
		if (f == w[wi]) {
			spans[wi].off = (uint32_t)(s - line);
			spans[wi].len = (uint32_t)(se - s);
			wi++;
		}
		f++;
		if (glued)
			continue; /* p is at the quote that starts the next field */
		if (p >= e)
			break;
		p++; /* the delimiter */
		if (p == e) { /* a trailing delimiter ends with an empty field, as libcsv reports it */
			if (f == w[wi]) {
				spans[wi].off = (uint32_t)len;
				spans[wi].len = 0;
			}
			f++;
			break;
		}
	}
	*nfields = f;
	return true;
}

/* ---- dispatch ---- */

static const char *const level_names[FIELDSCAN_NLEVELS] = {
	[FIELDSCAN_SCALAR] = "scalar", [FIELDSCAN_SSE2] = "sse2", [FIELDSCAN_AVX2] = "avx2",
	[FIELDSCAN_AVX512] = "avx512", [FIELDSCAN_NEON] = "neon",
};

static fieldscan_fn *const level_fns[FIELDSCAN_NLEVELS] = {
	[FIELDSCAN_SCALAR] = fieldscan_scan_scalar,
#if defined(__x86_64__)
	[FIELDSCAN_SSE2] = fieldscan_scan_sse2,
	[FIELDSCAN_AVX2] = fieldscan_scan_avx2,
	[FIELDSCAN_AVX512] = fieldscan_scan_avx512,
#endif
#if defined(__aarch64__)
	[FIELDSCAN_NEON] = fieldscan_scan_neon,
#endif
};

const char *fieldscan_level_name(enum fieldscan_level l)
{
	return (unsigned)l < FIELDSCAN_NLEVELS ? level_names[l] : "?";
}

static bool cpu_has(enum fieldscan_level l)
{
	switch (l) {
	case FIELDSCAN_SCALAR:
		return true;
#if defined(__x86_64__)
	case FIELDSCAN_SSE2:
		return true;
	case FIELDSCAN_AVX2:
		return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul") &&
		       __builtin_cpu_supports("popcnt");
	case FIELDSCAN_AVX512:
		return __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512f") &&
		       __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("popcnt");
#endif
#if defined(__aarch64__)
	case FIELDSCAN_NEON:
		return true; /* Advanced SIMD is part of the aarch64 base */
#endif
	default:
		return false;
	}
}

static unsigned char avail[FIELDSCAN_NLEVELS]; /* 0 unknown, 1 no, 2 yes */

bool fieldscan_level_available(enum fieldscan_level l)
{
	if ((unsigned)l >= FIELDSCAN_NLEVELS || !level_fns[l])
		return false;
	if (!avail[l]) {
#if defined(__x86_64__)
		__builtin_cpu_init();
#endif
		avail[l] = cpu_has(l) ? 2 : 1;
	}
	return avail[l] == 2;
}

enum fieldscan_level fieldscan_level_best(void)
{
	static int best = -1;
	if (best < 0) {
		int b = FIELDSCAN_SCALAR;
		for (int l = FIELDSCAN_NLEVELS - 1; l > FIELDSCAN_SCALAR; l--)
			if (fieldscan_level_available((enum fieldscan_level)l)) {
				b = l;
				break;
			}
		best = b;
	}
	return (enum fieldscan_level)best;
}

static int forced = -1; /* fieldscan_set_default_level */

/* The level for new plans: IOPSY_FIELDSCAN when it names an available level, else the best. */
static enum fieldscan_level default_level(void)
{
	static int chosen = -1;
	if (forced >= 0)
		return (enum fieldscan_level)forced;
	if (chosen < 0) {
		int c = (int)fieldscan_level_best();
		const char *env = getenv("IOPSY_FIELDSCAN");
		if (env && *env)
			for (int l = 0; l < FIELDSCAN_NLEVELS; l++)
				if (strcmp(env, level_names[l]) == 0 && fieldscan_level_available((enum fieldscan_level)l))
					c = l;
		chosen = c;
	}
	return (enum fieldscan_level)chosen;
}

bool fieldscan_set_default_level(enum fieldscan_level l)
{
	if (!fieldscan_level_available(l))
		return false;
	(void)default_level(); /* read the environment first so it cannot override this later */
	forced = (int)l;
	return true;
}

/* ---- plan ---- */

int fieldscan_plan_init(struct fieldscan_plan *p, const unsigned char *want, size_t nfields, char delim, bool glue)
{
	memset(p, 0, sizeof *p);
	size_t n = 1;
	for (size_t f = 1; f < nfields; f++)
		n += want[f] != 0;
	p->wanted = malloc((n + 1) * sizeof *p->wanted);
	if (!p->wanted)
		return ERR_NOMEM;
	size_t k = 0;
	p->wanted[k++] = 0;
	for (size_t f = 1; f < nfields; f++)
		if (want[f])
			p->wanted[k++] = (uint32_t)f;
	p->wanted[k] = UINT32_MAX;
	p->nwanted = n;
	p->delim = delim;
	p->glue = glue;
	p->level = default_level();
	p->scan = level_fns[p->level];
	return 0;
}

void fieldscan_plan_free(struct fieldscan_plan *p)
{
	free(p->wanted);
	memset(p, 0, sizeof *p);
}

bool fieldscan_plan_set_level(struct fieldscan_plan *p, enum fieldscan_level l)
{
	if (!fieldscan_level_available(l))
		return false;
	p->level = l;
	p->scan = level_fns[l];
	return true;
}
