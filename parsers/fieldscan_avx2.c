/* fieldscan_avx2.c — the field scanner for AVX2 (two 32-byte compares per block) with PCLMULQDQ
 * prefix-XOR; built with -mavx2 -mpclmul -mpopcnt and only called when the CPU has them. */
#include "fieldscan.h"

#if defined(__x86_64__)
#include <string.h>

#include "fieldscan_x86.h"

static inline void fs_masks(const char *p, char delim, uint64_t *q, uint64_t *d)
{
	const __m256i vq = _mm256_set1_epi8('"'), vd = _mm256_set1_epi8(delim);
	__m256i lo = _mm256_loadu_si256((const __m256i *)(const void *)p);
	__m256i hi = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
	*q = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, vq)) |
	     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, vq)) << 32;
	*d = (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(lo, vd)) |
	     (uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_cmpeq_epi8(hi, vd)) << 32;
}

#define fs_prefix_xor fs_prefix_xor_clmul
#define FS_NAME fieldscan_scan_avx2
#include "fieldscan_impl.h"
#endif
