/*
 * /proc/cpuinfo with the virtual TSC's frequency (issue 25, "Virtual time").
 *
 * perftest converts TSC cycles to microseconds by the "cpu MHz" it reads from /proc/cpuinfo
 * (proc_get_cpu_mhz in its src/get_clock.c: fopen, then sscanf "cpu MHz : %lf" on every line), and
 * cross-checks it against a regression of rdtsc over gettimeofday (sample_get_cpu_mhz), taking the
 * sample when they differ by more than 2 %. Both must therefore be the virtual TSC's MHz: tsc.c
 * makes the sample agree, and this file makes the text agree, so perftest's figures are the same on
 * every machine. Under a host, opening /proc/cpuinfo for reading gives a memfd holding the real
 * file's text with every "cpu MHz" value replaced by rocelab_tsc_mhz() printed "%.3f", as the
 * kernel prints it.
 *
 * glibc's fopen opens the file without going through open's PLT entry, so fopen and fopen64 are
 * interposed as well as open, open64, openat and their _FORTIFY_SOURCE forms. Only the literal
 * path "/proc/cpuinfo" is recognised (not "/proc/self/../cpuinfo", nor openat relative to an open
 * "/proc"), and a read by a direct system call sees the real file.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"

#define CPUINFO "/proc/cpuinfo"
#define MHZ_KEY "cpu MHz"

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef FILE *(*fopen_fn)(const char *, const char *);
typedef int (*open2_fn)(const char *, int);
typedef int (*openat2_fn)(int, const char *, int);

/* libc's definition of `name`, looked up once (a statement expression: one cache per call site). */
#define NEXT(type, name) \
	({ \
		static __typeof__(type) fn_; \
		if (fn_ == NULL) fn_ = (type)dlsym(RTLD_NEXT, name); \
		fn_; \
	})

/* The whole of a file too small to stat (procfs reports size 0), NUL-terminated; NULL on failure. */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 16384, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (buf == NULL) return NULL;
		if (cap - n < 4096) {
			char *grown = realloc(buf, cap * 2);
			if (grown == NULL) break;
			buf = grown;
			cap *= 2;
		}
		ssize_t got = read(fd, buf + n, cap - n - 1);
		if (got < 0 && errno == EINTR) continue;
		if (got < 0) break;
		if (got == 0) {
			buf[n] = '\0';
			*len = n;
			return buf;
		}
		n += (size_t)got;
	}
	free(buf);
	return NULL;
}

/* Writes `text` with each "cpu MHz<blanks>: value" line's value replaced; returns bytes written. */
static size_t rewrite(const char *text, size_t len, char *out, const char *mhz)
{
	size_t o = 0;
	const char *line = text, *end = text + len;
	while (line < end) {
		const char *eol = memchr(line, '\n', (size_t)(end - line));
		const char *stop = eol == NULL ? end : eol;
		const char *colon = memchr(line, ':', (size_t)(stop - line));
		if (colon != NULL && (size_t)(stop - line) > strlen(MHZ_KEY) && memcmp(line, MHZ_KEY, strlen(MHZ_KEY)) == 0) {
			size_t keep = (size_t)(colon + 1 - line);
			memcpy(out + o, line, keep);
			o += keep;
			o += (size_t)sprintf(out + o, " %s", mhz);
		} else {
			memcpy(out + o, line, (size_t)(stop - line));
			o += (size_t)(stop - line);
		}
		if (eol != NULL) out[o++] = '\n';
		line = stop + 1;
	}
	return o;
}

/* A memfd with the rewritten text, positioned at its start; -1 (errno set) on failure. */
static int virtual_cpuinfo(int oflags)
{
	int real = NEXT(open_fn, "open")(CPUINFO, O_RDONLY | O_CLOEXEC);
	if (real < 0) return -1;
	size_t len = 0;
	char *text = slurp(real, &len);
	close(real);
	if (text == NULL) {
		errno = ENOMEM;
		return -1;
	}
	char mhz[64];
	snprintf(mhz, sizeof mhz, "%.3f", rocelab_tsc_mhz());
	/* Each line grows by at most the value's width plus the space before it. */
	size_t lines = 1;
	for (size_t i = 0; i < len; i++) lines += text[i] == '\n';
	char *out = malloc(len + lines * (strlen(mhz) + 1) + 1);
	int fd = memfd_create("cpuinfo", (oflags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
	if (out == NULL || fd < 0) {
		free(text);
		free(out);
		if (fd >= 0) close(fd);
		errno = ENOMEM;
		return -1;
	}
	size_t n = rewrite(text, len, out, mhz);
	free(text);
	size_t done = 0;
	while (done < n) {
		ssize_t w = write(fd, out + done, n - done);
		if (w < 0 && errno == EINTR) continue;
		if (w <= 0) break;
		done += (size_t)w;
	}
	free(out);
	if (done < n || lseek(fd, 0, SEEK_SET) != 0) {
		close(fd);
		errno = EIO;
		return -1;
	}
	return fd;
}

static int is_cpuinfo_read(const char *path, int oflags)
{
	return path != NULL && (oflags & O_ACCMODE) == O_RDONLY && strcmp(path, CPUINFO) == 0 && rocelab_attached();
}

static int is_cpuinfo_read_at(int dirfd, const char *path, int oflags)
{
	return path != NULL && (dirfd == AT_FDCWD || path[0] == '/') && is_cpuinfo_read(path, oflags);
}

static int creates(int oflags)
{
	return (oflags & O_CREAT) || (oflags & O_TMPFILE) == O_TMPFILE;
}

int open(const char *path, int oflags, ...)
{
	if (is_cpuinfo_read(path, oflags)) return virtual_cpuinfo(oflags);
	mode_t mode = 0;
	if (creates(oflags)) {
		va_list ap;
		va_start(ap, oflags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return NEXT(open_fn, "open")(path, oflags, mode);
}

int open64(const char *path, int oflags, ...)
{
	if (is_cpuinfo_read(path, oflags)) return virtual_cpuinfo(oflags);
	mode_t mode = 0;
	if (creates(oflags)) {
		va_list ap;
		va_start(ap, oflags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return NEXT(open_fn, "open64")(path, oflags, mode);
}

int openat(int dirfd, const char *path, int oflags, ...)
{
	if (is_cpuinfo_read_at(dirfd, path, oflags)) return virtual_cpuinfo(oflags);
	mode_t mode = 0;
	if (creates(oflags)) {
		va_list ap;
		va_start(ap, oflags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return NEXT(openat_fn, "openat")(dirfd, path, oflags, mode);
}

int openat64(int dirfd, const char *path, int oflags, ...)
{
	if (is_cpuinfo_read_at(dirfd, path, oflags)) return virtual_cpuinfo(oflags);
	mode_t mode = 0;
	if (creates(oflags)) {
		va_list ap;
		va_start(ap, oflags);
		mode = va_arg(ap, mode_t);
		va_end(ap);
	}
	return NEXT(openat_fn, "openat64")(dirfd, path, oflags, mode);
}

/* What -D_FORTIFY_SOURCE compiles open(path, flags) into when no mode is given. */
int __open_2(const char *path, int oflags)
{
	if (is_cpuinfo_read(path, oflags)) return virtual_cpuinfo(oflags);
	return NEXT(open2_fn, "__open_2")(path, oflags);
}

int __open64_2(const char *path, int oflags)
{
	if (is_cpuinfo_read(path, oflags)) return virtual_cpuinfo(oflags);
	return NEXT(open2_fn, "__open64_2")(path, oflags);
}

int __openat_2(int dirfd, const char *path, int oflags)
{
	if (is_cpuinfo_read_at(dirfd, path, oflags)) return virtual_cpuinfo(oflags);
	return NEXT(openat2_fn, "__openat_2")(dirfd, path, oflags);
}

int __openat64_2(int dirfd, const char *path, int oflags)
{
	if (is_cpuinfo_read_at(dirfd, path, oflags)) return virtual_cpuinfo(oflags);
	return NEXT(openat2_fn, "__openat64_2")(dirfd, path, oflags);
}

/* fopen's mode: "r", with glibc's extra letters ("e" = O_CLOEXEC, "m", "c", "b") after it. */
static int fopen_flags(const char *mode)
{
	if (mode == NULL || mode[0] != 'r' || strchr(mode, '+') != NULL) return O_RDWR;
	return O_RDONLY | (strchr(mode, 'e') != NULL ? O_CLOEXEC : 0);
}

static FILE *fopen_cpuinfo(const char *mode)
{
	int fd = virtual_cpuinfo(fopen_flags(mode));
	if (fd < 0) return NULL;
	FILE *f = fdopen(fd, "r");
	if (f == NULL) close(fd);
	return f;
}

FILE *fopen(const char *path, const char *mode)
{
	if (is_cpuinfo_read(path, fopen_flags(mode))) return fopen_cpuinfo(mode);
	return NEXT(fopen_fn, "fopen")(path, mode);
}

FILE *fopen64(const char *path, const char *mode)
{
	if (is_cpuinfo_read(path, fopen_flags(mode))) return fopen_cpuinfo(mode);
	return NEXT(fopen_fn, "fopen64")(path, mode);
}
