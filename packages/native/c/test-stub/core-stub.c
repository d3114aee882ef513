#include <dlfcn.h>
#include <signal.h>
/*
 * A stand-in for the core (core.h) for tests of the spin detector without a host: compiled with
 * spin.c and a test program into one executable (packages/native/src/spin.test.ts). Never part of
 * librocelab.so.
 *
 * Virtual time is the number of waits made so far (rocelab_now_ps), and the NIC is one pending
 * write: rocelab_stub_land() names a byte (through a second mapping of the registered pages, as the
 * host maps them), a value and the wait at which it lands. Every request, waits included, passes
 * rocelab_spin_note_call() first, as the core's rocelab_call does.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "core.h"

void rocelab_spin_note_call(void);

/* Waits with nothing left to land: the detector is waiting in a loop, which a test must see fail. */
#define STUB_MAX_IDLE_WAITS 1000

static uint64_t waits;
static volatile char *land_at;
static char land_value;
static uint64_t land_wait;
static uint64_t idle_waits;

void rocelab_stub_land(volatile char *where, char value, unsigned at_wait)
{
	land_at = where;
	land_value = value;
	land_wait = at_wait;
}

int rocelab_attached(void) { return 1; }

/* Without tsc.c, SIGILL is nobody's: spin.c's sigaction passes it to libc. */
int rocelab_tsc_keeps(int sig) { (void)sig; return 0; }
int rocelab_tsc_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	int (*real)(int, const struct sigaction *, struct sigaction *) = (int (*)(int, const struct sigaction *, struct sigaction *))dlsym(RTLD_NEXT, "sigaction");
	return real(sig, act, old);
}

uint64_t rocelab_now_ps(void) { return waits; }

int rocelab_call(uint32_t type, const void *req, size_t req_len, int fd_out, void *rep, size_t rep_cap, size_t *rep_len)
{
	rocelab_spin_note_call();
	if (rep_len)
		*rep_len = 0;
	return 0;
}

void rocelab_wait_any(void)
{
	rocelab_call(41, NULL, 0, -1, NULL, 0, NULL);
	waits++;
	if (land_at && waits == land_wait) {
		*land_at = land_value;
		land_at = NULL;
		idle_waits = 0;
		return;
	}
	if (++idle_waits > STUB_MAX_IDLE_WAITS) {
		static const char text[] = "core-stub: 1000 waits with nothing to land: the spin detector waits in a loop\n";
		write(2, text, sizeof(text) - 1);
		_exit(3);
	}
}

void rocelab_wait_until_ps(uint64_t ps)
{
	while (waits < ps)
		rocelab_wait_any();
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
	return EOPNOTSUPP;
}

const struct rl_hello_rep *rocelab_host(void) { return NULL; }

double rocelab_tsc_mhz(void) { return 1000.0; }
