/* prng.h — the project's one random number generator, deterministic on every platform and libc
 * (never rand()): xoshiro256** (Blackman & Vigna) seeded by splitmix64, for the simulator; and
 * splitmix64 itself as a light stream from one 64-bit state, for the bootstrap's resampling. Same
 * seed, same numbers. */
#ifndef IOPSY_PRNG_H
#define IOPSY_PRNG_H

#include <stddef.h>
#include <stdint.h>

/* The next value of the splitmix64 stream whose state is *x. (Inline: the bootstrap draws
 * hundreds of millions of them.) */
static inline uint64_t splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return z ^ (z >> 31);
}
/* A uniform index in [0, n) from the splitmix64 stream *x (53 bits of precision). */
static inline size_t splitmix_index(uint64_t *x, size_t n)
{
	return (size_t)((double)(splitmix64(x) >> 11) * 0x1.0p-53 * (double)n);
}

struct prng {
	uint64_t s[4];
};
/* Seeds r; different stream numbers give independent sequences for one seed. */
void prng_seed(struct prng *r, uint64_t seed, uint64_t stream);
uint64_t prng_next(struct prng *r);
/* Uniform in [0, 1). */
double prng_uniform(struct prng *r);
/* Uniform integer in [0, n). */
uint32_t prng_below(struct prng *r, uint32_t n);
/* Standard normal deviate (Box-Muller, one of the pair). */
double prng_normal(struct prng *r);
/* Poisson deviate with the given mean (normal approximation above 40); a count >= 0. */
double prng_poisson(struct prng *r, double mean);

#endif
