/* prng.c — xoshiro256** (Blackman & Vigna) with splitmix64 seeding, and splitmix64 as a stream
 * of its own (see prng.h). */
#include "prng.h"

#include <math.h>

void prng_seed(struct prng *r, uint64_t seed, uint64_t stream)
{
	uint64_t x = seed ^ (stream * 0xD1B54A32D192ED03ull);
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t prng_next(struct prng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double prng_uniform(struct prng *r)
{
	return (double)(prng_next(r) >> 11) * 0x1.0p-53;
}

uint32_t prng_below(struct prng *r, uint32_t n)
{
	return n ? (uint32_t)(((prng_next(r) >> 32) * (uint64_t)n) >> 32) : 0;
}

double prng_normal(struct prng *r)
{
	/* Box-Muller; the second deviate is dropped to keep the generator state trivially copyable. */
	double u1 = prng_uniform(r), u2 = prng_uniform(r);
	if (u1 < 1e-300)
		u1 = 1e-300;
	return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

double prng_poisson(struct prng *r, double mean)
{
	if (!(mean > 0))
		return 0;
	if (mean > 40) {
		double v = floor(mean + sqrt(mean) * prng_normal(r) + 0.5);
		return v < 0 ? 0 : v;
	}
	double limit = exp(-mean), p = 1.0;
	double k = -1;
	do {
		k++;
		p *= prng_uniform(r);
	} while (p > limit);
	return k;
}
