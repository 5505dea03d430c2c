// SPDX-License-Identifier: GPL-2.0
/*
 * rw-hint-fix.so: an LD_PRELOAD shim for programs that pass
 * fcntl(F_SET_RW_HINT) a pointer to a 4-byte hint.  The kernel reads a
 * u64 there, so the call fails with EINVAL (Debian 12's RocksDB 7.8 does
 * this).
 * The shim widens the hint; the program itself is unchanged.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdarg.h>
#include <stdint.h>

#define F_SET_RW_HINT_CMD 1036

static int call(const char *name, int fd, int cmd, void *arg)
{
	int (*real)(int, int, ...) = (int (*)(int, int, ...))dlsym(RTLD_NEXT, name);
	uint64_t hint;

	if (cmd == F_SET_RW_HINT_CMD && arg) {
		hint = *(uint32_t *)arg;
		return real(fd, cmd, &hint);
	}
	return real(fd, cmd, arg);
}

#define WRAP(name)						\
int name(int fd, int cmd, ...)					\
{								\
	va_list ap;						\
	void *arg;						\
								\
	va_start(ap, cmd);					\
	arg = va_arg(ap, void *);				\
	va_end(ap);						\
	return call(#name, fd, cmd, arg);			\
}
WRAP(fcntl)
WRAP(fcntl64)
