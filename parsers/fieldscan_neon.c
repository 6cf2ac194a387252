/* fieldscan_neon.c — the field scanner for aarch64 Advanced SIMD (four 16-byte compares per block,
 * bit masks by pairwise adds, prefix-XOR by shifts); empty on other architectures. */
#include "fieldscan.h"

#if defined(__aarch64__)
#include <arm_neon.h>
#include <string.h>

#include "fieldscan_shift.h"

static inline uint64_t fs_bits(uint8x16_t a, uint8x16_t b, uint8x16_t c, uint8x16_t d)
{
	static const uint8_t w[16] = {1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128};
	const uint8x16_t bits = vld1q_u8(w);
	uint8x16_t s0 = vpaddq_u8(vandq_u8(a, bits), vandq_u8(b, bits));
	uint8x16_t s1 = vpaddq_u8(vandq_u8(c, bits), vandq_u8(d, bits));
	s0 = vpaddq_u8(s0, s1);
	s0 = vpaddq_u8(s0, s0);
	return vgetq_lane_u64(vreinterpretq_u64_u8(s0), 0);
}

static inline void fs_masks(const char *p, char delim, uint64_t *q, uint64_t *d)
{
	const uint8_t *u = (const uint8_t *)p;
	uint8x16_t x0 = vld1q_u8(u), x1 = vld1q_u8(u + 16), x2 = vld1q_u8(u + 32), x3 = vld1q_u8(u + 48);
	const uint8x16_t vq = vdupq_n_u8('"'), vd = vdupq_n_u8((uint8_t)delim);
	*q = fs_bits(vceqq_u8(x0, vq), vceqq_u8(x1, vq), vceqq_u8(x2, vq), vceqq_u8(x3, vq));
	*d = fs_bits(vceqq_u8(x0, vd), vceqq_u8(x1, vd), vceqq_u8(x2, vd), vceqq_u8(x3, vd));
}

#define fs_prefix_xor fs_prefix_xor_shift
#define FS_NAME fieldscan_scan_neon
#include "fieldscan_impl.h"
#endif
