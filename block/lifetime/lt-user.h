/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the few kernel helpers the lifetime core uses,
 * so that lt-track.c and lt-plan.c also build as plain C programs for
 * tests and benchmarks.  Only what the core needs; nothing more.
 */
#ifndef _LT_USER_H
#define _LT_USER_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT64_TYPE__ s64;

#define U8_MAX		((u8)~0U)
#define U16_MAX		((u16)~0U)
#define U32_MAX		((u32)~0U)
#define U64_MAX		((u64)~0ULL)

#define GFP_KERNEL	0
#define __GFP_NOWARN	0

/* Like the kernel's: no allocation over INT_MAX bytes, ever. */
static inline void *kvcalloc(size_t n, size_t size, int gfp)
{
	(void)gfp;
	if (size && n > (size_t)__INT_MAX__ / size)
		return NULL;
	return calloc(n, size);
}

static inline void kvfree(const void *p)
{
	free((void *)p);
}

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define BIT(n)		(1UL << (n))
#define BIT_ULL(n)	(1ULL << (n))
#define DIV_ROUND_UP(n, d) ({ __auto_type __d = (d);			\
			    ((n) + __d - 1) / __d; })
#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))
#define WRITE_ONCE(x, v)	((x) = (v))	/* one thread in userspace */
#define READ_ONCE(x)		(x)
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)

#define min(a, b) ({ __auto_type __a = (a); __auto_type __b = (b);	\
		     __a < __b ? __a : __b; })
#define max(a, b) ({ __auto_type __a = (a); __auto_type __b = (b);	\
		     __a > __b ? __a : __b; })

#define GOLDEN_RATIO_64	0x61C8864680B583EBull

static inline u32 hash_64(u64 val, unsigned int bits)
{
	return val * GOLDEN_RATIO_64 >> (64 - bits);
}

static inline unsigned int hweight16(unsigned int w)
{
	return __builtin_popcount(w & 0xffff);
}

/* Position of the most significant set bit, 1-based; 0 for 0. */
static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline bool is_power_of_2(unsigned long n)
{
	return n && !(n & (n - 1));
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 mul_u64_u32_shr(u64 a, u32 mul, unsigned int shift)
{
	return (u64)(((__uint128_t)a * mul) >> shift);
}

static inline u64 mul_u64_u32_div(u64 a, u32 mul, u32 divisor)
{
	return (u64)(((__uint128_t)a * mul) / divisor);
}

#endif /* _LT_USER_H */
