/* fieldscan_shift.h — prefix-XOR by shifts, for scanners built without a carry-less multiply. */
#ifndef IOPSY_FIELDSCAN_SHIFT_H
#define IOPSY_FIELDSCAN_SHIFT_H

#include <stdint.h>

static inline uint64_t fs_prefix_xor_shift(uint64_t x)
{
	x ^= x << 1;
	x ^= x << 2;
	x ^= x << 4;
	x ^= x << 8;
	x ^= x << 16;
	x ^= x << 32;
	return x;
}

#endif
