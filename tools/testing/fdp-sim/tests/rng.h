/* SPDX-License-Identifier: GPL-2.0 */
/* The tests' random numbers: xorshift64, seeded by setting rng. */
#ifndef FDPSIM_TEST_RNG_H
#define FDPSIM_TEST_RNG_H

#include <stdint.h>

static uint64_t rng = 88172645463325252ull;

static inline uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

#endif /* FDPSIM_TEST_RNG_H */
