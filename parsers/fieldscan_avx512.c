/* fieldscan_avx512.c — the field scanner for AVX-512BW (one 64-byte compare to a mask register per
 * block) with PCLMULQDQ prefix-XOR; built with -mavx512f -mavx512bw -mpclmul -mpopcnt and only
 * called when the CPU and the OS support them. */
#include "fieldscan.h"

#if defined(__x86_64__)
#include <string.h>

#include "fieldscan_x86.h"

static inline void fs_masks(const char *p, char delim, uint64_t *q, uint64_t *d)
{
	__m512i x = _mm512_loadu_si512((const void *)p);
	*q = (uint64_t)_mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8('"'));
	*d = (uint64_t)_mm512_cmpeq_epi8_mask(x, _mm512_set1_epi8(delim));
}

#define fs_prefix_xor fs_prefix_xor_clmul
#define FS_NAME fieldscan_scan_avx512
#include "fieldscan_impl.h"
#endif
