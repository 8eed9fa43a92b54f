/* An LD_PRELOAD shim that makes the storage under one directory fail on demand, for the storage-fault tests:
 * while the file named by SPUR_IO_FAULT_TRIGGER exists, fsync/fdatasync (SPUR_IO_FAULT_MODE=fsync) or the writes
 * themselves (=write) of files whose path contains SPUR_IO_FAULT_DIR (e.g. `/state/`) fail with EIO, as a dying disk's would. Everything else
 * passes through to the C library.
 * Built by the test with: gcc -shared -fPIC -o io_faults.so io_faults.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static int failing(int fd, const char *mode)
{
	const char *trigger = getenv("SPUR_IO_FAULT_TRIGGER");
	const char *dir = getenv("SPUR_IO_FAULT_DIR");
	const char *want = getenv("SPUR_IO_FAULT_MODE");
	char link[64], target[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (!trigger || !dir || !want || strcmp(want, mode) != 0)
		return 0;
	if (stat(trigger, &st) != 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	return strstr(target, dir) != NULL;
}

typedef int (*sync_fn)(int);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);

#define REAL(name, type) static type real_##name; if (!real_##name) real_##name = (type)dlsym(RTLD_NEXT, #name)

int fsync(int fd)
{
	REAL(fsync, sync_fn);
	if (failing(fd, "fsync")) {
		errno = EIO;
		return -1;
	}
	return real_fsync(fd);
}

int fdatasync(int fd)
{
	REAL(fdatasync, sync_fn);
	if (failing(fd, "fsync")) {
		errno = EIO;
		return -1;
	}
	return real_fdatasync(fd);
}

ssize_t write(int fd, const void *buf, size_t count)
{
	REAL(write, write_fn);
	if (failing(fd, "write")) {
		errno = EIO;
		return -1;
	}
	return real_write(fd, buf, count);
}

ssize_t pwrite64(int fd, const void *buf, size_t count, off_t offset)
{
	REAL(pwrite64, pwrite_fn);
	if (failing(fd, "write")) {
		errno = EIO;
		return -1;
	}
	return real_pwrite64(fd, buf, count, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	REAL(writev, writev_fn);
	if (failing(fd, "write")) {
		errno = EIO;
		return -1;
	}
	return real_writev(fd, iov, iovcnt);
}
