/* fieldscan_x86.h — helpers shared by the x86_64 field scanners (included by each per-ISA file,
 * so they are compiled for that file's instruction set). */
#ifndef IOPSY_FIELDSCAN_X86_H
#define IOPSY_FIELDSCAN_X86_H

#include <immintrin.h>
#include <stdint.h>

/* bit i = XOR of bits 0..i: a carry-less multiply by all ones. */
static inline uint64_t fs_prefix_xor_clmul(uint64_t x)
{
	__m128i v = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0);
	return (uint64_t)_mm_cvtsi128_si64(v);
}

#endif
