/* fieldscan_sse2.c — the field scanner for the x86_64 baseline (SSE2: four 16-byte compares per
 * block, prefix-XOR by shifts since PCLMULQDQ is not part of the baseline). */
#include "fieldscan.h"

#if defined(__x86_64__)
#include <emmintrin.h>
#include <string.h>

#include "fieldscan_shift.h"

static inline void fs_masks(const char *p, char delim, uint64_t *q, uint64_t *d)
{
	const __m128i vq = _mm_set1_epi8('"'), vd = _mm_set1_epi8(delim);
	uint64_t mq = 0, md = 0;
	for (int i = 0; i < 4; i++) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
		mq |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vq)) << (16 * i);
		md |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, vd)) << (16 * i);
	}
	*q = mq;
	*d = md;
}

#define fs_prefix_xor fs_prefix_xor_shift
#define FS_NAME fieldscan_scan_sse2
#include "fieldscan_impl.h"
#endif
