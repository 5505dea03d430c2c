// SPDX-License-Identifier: GPL-2.0
/*
 * rw-hint-by-name.so: an LD_PRELOAD shim that gives each file a program
 * opens for writing a lifetime hint by its name, for programs that set
 * none (MariaDB's InnoDB, whose redo log, doublewrite buffer and
 * tablespaces live as long as their kinds, not as long as their writer).
 *
 * RW_HINT_MAP lists PATTERN=HINT pairs separated by colons; PATTERN is an
 * fnmatch(3) pattern matched against the file's base name, the first
 * match wins, and HINT is one of none, short, medium, long or extreme:
 *
 *   RW_HINT_MAP='ib_logfile*=short:ibdata*=medium:*.ibd=long'
 *
 * The hint is set with fcntl(F_SET_RW_HINT) on the new descriptor, which
 * sets it on the inode; a failure is ignored, as a program's own hint
 * would be.  Files opened read-only, and names that match nothing, are
 * left alone.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define F_SET_RW_HINT_CMD 1036
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

typedef int (*fcntl_fn)(int fd, int cmd, ...);
typedef int (*open_fn)(const char *path, int flags, ...);
typedef int (*openat_fn)(int dirfd, const char *path, int flags, ...);

static const char *const hints[] = { "none", "short", "medium", "long", "extreme" };

/* The hint (RWH_WRITE_LIFE_*) for PATH, or 0 for none. */
static uint64_t hint_of(const char *path)
{
	const char *map = getenv("RW_HINT_MAP"), *base = strrchr(path, '/');
	char pat[256];
	size_t i, n;

	base = base ? base + 1 : path;
	while (map && *map) {
		const char *end = strchr(map, ':'), *eq = strchr(map, '=');

		n = end ? (size_t)(end - map) : strlen(map);
		if (eq && eq < map + n && (size_t)(eq - map) < sizeof(pat)) {
			memcpy(pat, map, eq - map);
			pat[eq - map] = 0;
			if (!fnmatch(pat, base, 0)) {
				for (i = 0; i < ARRAY_SIZE(hints); i++)
					if (strlen(hints[i]) == (size_t)(map + n - eq - 1) &&
					    !strncmp(eq + 1, hints[i], map + n - eq - 1))
						return i + 1;	/* RWH_WRITE_LIFE_NONE is 1 */
				return 0;
			}
		}
		map += n + (end ? 1 : 0);
	}
	return 0;
}

static int hinted(int fd, const char *path, int flags)
{
	fcntl_fn real_fcntl;
	uint64_t h;

	if (fd < 0 || (flags & O_ACCMODE) == O_RDONLY)
		return fd;
	h = hint_of(path);
	if (h) {
		real_fcntl = (fcntl_fn)dlsym(RTLD_NEXT, "fcntl");
		if (real_fcntl)
			real_fcntl(fd, F_SET_RW_HINT_CMD, &h);
	}
	return fd;
}

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0;
}

#define WRAP_OPEN(name)							\
int name(const char *path, int flags, ...)				\
{									\
	open_fn real = (open_fn)dlsym(RTLD_NEXT, #name);		\
	va_list ap;							\
	mode_t mode;							\
									\
	va_start(ap, flags);						\
	mode = mode_arg(flags, ap);					\
	va_end(ap);							\
	return hinted(real(path, flags, mode), path, flags);		\
}

WRAP_OPEN(open)
WRAP_OPEN(open64)

#define WRAP_OPENAT(name)						\
int name(int dirfd, const char *path, int flags, ...)			\
{									\
	openat_fn real = (openat_fn)dlsym(RTLD_NEXT, #name);		\
	va_list ap;							\
	mode_t mode;							\
									\
	va_start(ap, flags);						\
	mode = mode_arg(flags, ap);					\
	va_end(ap);							\
	return hinted(real(dirfd, path, flags, mode), path, flags);	\
}

WRAP_OPENAT(openat)
WRAP_OPENAT(openat64)
