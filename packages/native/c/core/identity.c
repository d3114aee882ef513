/*
 * What else a program reads that differs from run to run (issue 25): its process ID and the
 * kernel's random bytes. perftest and ibv_rc_pingpong seed their PSNs with srand48(getpid() *
 * time(NULL)); under rocelab both are virtual, so the same pod prints the same PSNs every run.
 *
 * getpid() is the host's virtual PID for the program (ROCELAB_PID: stable across runs, unique in
 * the pod); getrandom() and getentropy() draw from a stream seeded by the run's seed, the host and
 * the program (ROCELAB_RANDOM_SEED), splitmix64. Not covered: /dev/urandom read as a file, the
 * RDRAND instruction, addresses chosen by ASLR (a program that prints a pointer prints another).
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "core.h"

#define EXPORT __attribute__((visibility("default")))

static pid_t virtual_pid = -1;
static uint64_t random_state;
static int random_seeded;

__attribute__((constructor(150))) static void identity_init(void)
{
	if (!rocelab_attached())
		return;
	const char *pid = getenv("ROCELAB_PID");
	if (pid && *pid)
		virtual_pid = (pid_t)atoi(pid);
	const char *seed = getenv("ROCELAB_RANDOM_SEED");
	if (seed && *seed) {
		random_state = strtoull(seed, NULL, 0);
		random_seeded = 1;
	}
}

EXPORT pid_t getpid(void)
{
	if (virtual_pid > 0)
		return virtual_pid;
	return (pid_t)syscall(SYS_getpid);
}

static uint64_t splitmix64(void)
{
	uint64_t z = (random_state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

EXPORT ssize_t getrandom(void *buf, size_t len, unsigned int flags)
{
	if (!random_seeded)
		return syscall(SYS_getrandom, buf, len, flags);
	uint8_t *out = buf;
	for (size_t i = 0; i < len; i += 8) {
		uint64_t r = splitmix64();
		memcpy(out + i, &r, len - i < 8 ? len - i : 8);
	}
	return (ssize_t)len;
}

EXPORT int getentropy(void *buf, size_t len)
{
	if (len > 256) {
		errno = EIO;
		return -1;
	}
	return getrandom(buf, len, 0) == (ssize_t)len ? 0 : -1;
}
