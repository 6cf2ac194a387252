/* rng.h — the simulator's own deterministic PRNG (xoshiro256** seeded by splitmix64), so that a
 * given --seed gives byte-identical output on every platform and libc. */
#ifndef IOPSY_SIM_RNG_H
#define IOPSY_SIM_RNG_H

#include <stdint.h>

struct sim_rng {
	uint64_t s[4];
};

/* Seeds the generator; different stream numbers give independent sequences for one seed. */
void sim_rng_seed(struct sim_rng *r, uint64_t seed, uint64_t stream);
uint64_t sim_rng_next(struct sim_rng *r);
/* Uniform in [0, 1). */
double sim_rng_uniform(struct sim_rng *r);
/* Standard normal deviate. */
double sim_rng_normal(struct sim_rng *r);
/* Poisson deviate with the given mean (normal approximation above 40); returns a count >= 0. */
double sim_rng_poisson(struct sim_rng *r, double mean);
/* Uniform integer in [0, n). */
uint32_t sim_rng_below(struct sim_rng *r, uint32_t n);

#endif
