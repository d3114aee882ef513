/*
 * A stand-in for the core (core.h) that answers from environment variables and counters, so the
 * clocks, /proc/cpuinfo and the TSC (clock.c, cpuinfo.c, tsc.c) can be tested without a host. It
 * lives outside c/core so that it never reaches librocelab: src/clock.test.ts compiles it with
 * those three files into a preload of its own.
 *
 * ROCELAB_STUB_ATTACHED  "0" for a program without a host (everything passes through); else attached
 * ROCELAB_STUB_NOW_PS    the virtual time at start, in ps
 * ROCELAB_STUB_ANY_PS    how far a rocelab_wait_any() moves virtual time, in ps
 * ROCELAB_STUB_MHZ       what rocelab_tsc_mhz() says
 *
 * Single-threaded, like the probe it serves. Every wait is a request, so it tells clock.c
 * (rocelab_note_call), as the real core does on every request.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core.h"

static int attached;
static uint64_t now_ps;
static uint64_t any_step_ps;
static double mhz;
static uint64_t wait_any_calls;
static uint64_t wait_until_calls;

static uint64_t env_u64(const char *name, uint64_t fallback)
{
	const char *v = getenv(name);
	return v != NULL && *v != '\0' ? strtoull(v, NULL, 10) : fallback;
}

/* Before tsc.c's constructor (priority 200), as the channel's is. */
__attribute__((constructor(101))) static void stub_init(void)
{
	const char *a = getenv("ROCELAB_STUB_ATTACHED");
	attached = a == NULL || strcmp(a, "0") != 0;
	now_ps = env_u64("ROCELAB_STUB_NOW_PS", 1000000000000ull);
	any_step_ps = env_u64("ROCELAB_STUB_ANY_PS", 1000000ull);
	const char *m = getenv("ROCELAB_STUB_MHZ");
	mhz = m != NULL ? strtod(m, NULL) : 2345.678;
}

int rocelab_attached(void)
{
	return attached;
}

uint64_t rocelab_now_ps(void)
{
	return now_ps;
}

void rocelab_wait_until_ps(uint64_t ps)
{
	rocelab_note_call();
	wait_until_calls++;
	if (ps > now_ps) now_ps = ps;
}

void rocelab_wait_any(void)
{
	rocelab_note_call();
	wait_any_calls++;
	now_ps += any_step_ps;
}

/* A spin on the clock: the stub's "next thing" comes first, as rocelab_wait_any's does. */
void rocelab_wait_any_until_ps(uint64_t ps)
{
	(void)ps;
	rocelab_wait_any();
}

int rocelab_call(uint32_t type, const void *req, size_t req_len, int fd_out, void *rep, size_t rep_cap, size_t *rep_len)
{
	rocelab_note_call();
	return ENOSYS;
}

void rocelab_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("rocelab: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int rocelab_unsupported(const char *name)
{
	rocelab_log("%s is not supported by rocelab0", name);
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

double rocelab_tsc_mhz(void)
{
	return mhz;
}

/* For the probe (looked up with dlsym): how often the program was given a wait. */
uint64_t rocelab_stub_wait_any_calls(void)
{
	return wait_any_calls;
}

uint64_t rocelab_stub_wait_until_calls(void)
{
	return wait_until_calls;
}
