/*
 * The program's clocks and sleeps, in virtual time (issue 25, "Virtual time").
 *
 * Under a rocelab host every clock reads the host's virtual time: MONOTONIC, MONOTONIC_RAW, the
 * COARSE clocks, BOOTTIME and their ALARM twins read it as it is; REALTIME (and TAI, as on a
 * kernel whose TAI offset was never set) read ROCELAB_EPOCH_SEC plus it. The CPU-time clocks
 * (PROCESS_CPUTIME, THREAD_CPUTIME, and any other process's or thread's from
 * clock_getcpuclockid) read it too: a program's own computation costs no virtual time, so the only
 * CPU time it can be shown that agrees with its other clocks is the time it has been running.
 * Every clock's resolution is 1 ns. A sleep is a wait until its virtual deadline; a sleep that is
 * already over (nanosleep of 0, a deadline in the past) is a clock read, so a loop of them makes
 * progress by the spin rule (vtime.h).
 *
 * Without a host (rocelab_attached() is 0) every call goes to the next definition (libc's).
 *
 * Not covered: libc's own reads (pthread_cond_timedwait, sem_timedwait, and the timeouts of poll,
 * select and epoll are computed or waited in the kernel's real time), timers (timer_create,
 * alarm, setitimer, timerfd), and a clock read by a direct system call or through the vDSO's
 * symbols looked up by hand.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "vtime.h"

/* 2026-01-01T00:00:00Z: REALTIME at virtual time 0, the same in every run. */
#define ROCELAB_EPOCH_SEC 1767225600ull
#define PS_PER_NS 1000ull
#define PS_PER_US 1000000ull
#define PS_PER_SEC 1000000000000ull
#define NS_PER_SEC 1000000000ull

/* Reads since the core's last request: process-wide, so it counts the same whichever thread reads. */
static _Atomic uint32_t reads_since_call;
/* Requests since the last clock-spin wait: that wait's own request and the note after it make 2, so
 * 2 means nothing else happened between two spin waits: the program is still only watching its clock. */
static _Atomic uint32_t calls_since_spin_wait = 2;
/* How long a clock-spin wait may last with nothing happening: 1 us, doubled for each spin wait in a
 * row up to 1 ms, back to 1 us after any other request. A loop that waits for the clock to reach an
 * instant (perftest's calibration, a sleep written as a spin) gets there in a few dozen waits; one
 * that spins while it waits for the fabric wakes at the next thing it could see. */
#define SPIN_QUANTUM_MIN_PS (1ull * PS_PER_US)
#define SPIN_QUANTUM_MAX_PS (1000ull * PS_PER_US)
static uint64_t spin_quantum_ps = SPIN_QUANTUM_MIN_PS;

void rocelab_note_call(void)
{
	atomic_store_explicit(&reads_since_call, 0, memory_order_relaxed);
	atomic_fetch_add_explicit(&calls_since_spin_wait, 1, memory_order_relaxed);
}

void rocelab_clock_read(void)
{
	if (atomic_fetch_add_explicit(&reads_since_call, 1, memory_order_relaxed) < ROCELAB_SPIN_READS) return;
	if (atomic_load_explicit(&calls_since_spin_wait, memory_order_relaxed) <= 2)
		spin_quantum_ps = spin_quantum_ps * 2 > SPIN_QUANTUM_MAX_PS ? SPIN_QUANTUM_MAX_PS : spin_quantum_ps * 2;
	else
		spin_quantum_ps = SPIN_QUANTUM_MIN_PS;
	atomic_store_explicit(&calls_since_spin_wait, 0, memory_order_relaxed);
	rocelab_wait_any_until_ps(rocelab_now_ps() + spin_quantum_ps);
	rocelab_note_call();
}

#define REAL(ret, name, params) \
	static ret(*real_##name) params; \
	static ret(*next_##name(void)) params \
	{ \
		if (real_##name == NULL) real_##name = (ret(*) params)dlsym(RTLD_NEXT, #name); \
		return real_##name; \
	}

REAL(int, clock_gettime, (clockid_t, struct timespec *))
REAL(int, clock_getres, (clockid_t, struct timespec *))
REAL(int, gettimeofday, (struct timeval *, void *))
REAL(time_t, time, (time_t *))
REAL(clock_t, clock, (void))
REAL(int, timespec_get, (struct timespec *, int))
REAL(int, nanosleep, (const struct timespec *, struct timespec *))
REAL(int, clock_nanosleep, (clockid_t, int, const struct timespec *, struct timespec *))
REAL(int, usleep, (useconds_t))
REAL(unsigned int, sleep, (unsigned int))

enum clock_kind { CLOCK_BAD, CLOCK_VIRTUAL, CLOCK_WALL, CLOCK_CPU };

static enum clock_kind kind_of(clockid_t id)
{
	/* Negative ids are another process's or thread's CPU-time clock (clock_getcpuclockid). */
	if (id < 0) return CLOCK_CPU;
	switch (id) {
	case CLOCK_REALTIME:
	case CLOCK_REALTIME_COARSE:
	case CLOCK_REALTIME_ALARM:
	case CLOCK_TAI:
		return CLOCK_WALL;
	case CLOCK_MONOTONIC:
	case CLOCK_MONOTONIC_RAW:
	case CLOCK_MONOTONIC_COARSE:
	case CLOCK_BOOTTIME:
	case CLOCK_BOOTTIME_ALARM:
		return CLOCK_VIRTUAL;
	case CLOCK_PROCESS_CPUTIME_ID:
	case CLOCK_THREAD_CPUTIME_ID:
		return CLOCK_CPU;
	default:
		return CLOCK_BAD;
	}
}

/* A clock's reading at virtual time `ps`. Not in ps since 1970: that overflows 64 bits (2^64 ps is
 * 213 days), so REALTIME's epoch is added in seconds. */
static void to_timespec(enum clock_kind kind, uint64_t ps, struct timespec *ts)
{
	ts->tv_sec = (time_t)(ps / PS_PER_SEC + (kind == CLOCK_WALL ? ROCELAB_EPOCH_SEC : 0));
	ts->tv_nsec = (long)(ps % PS_PER_SEC / PS_PER_NS);
}

static int valid_timespec(const struct timespec *ts)
{
	return ts->tv_sec >= 0 && ts->tv_nsec >= 0 && (uint64_t)ts->tv_nsec < NS_PER_SEC;
}

/* A duration, or a reading of a clock of `kind` as virtual time, in picoseconds, saturating: a
 * deadline past 2^64 ps (213 days) is never, and one before REALTIME's epoch is virtual time 0. */
static uint64_t timespec_ps(enum clock_kind kind, const struct timespec *ts)
{
	uint64_t sec = (uint64_t)ts->tv_sec;
	if (kind == CLOCK_WALL) {
		if (sec < ROCELAB_EPOCH_SEC) return 0;
		sec -= ROCELAB_EPOCH_SEC;
	}
	if (sec >= UINT64_MAX / PS_PER_SEC) return UINT64_MAX;
	return sec * PS_PER_SEC + (uint64_t)ts->tv_nsec * PS_PER_NS;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

static uint64_t read_now(void)
{
	rocelab_clock_read();
	return rocelab_now_ps();
}

/* A sleep until virtual `deadline_ps`: a wait, or a clock read when the deadline has passed. */
static void sleep_until(uint64_t deadline_ps)
{
	if (deadline_ps <= rocelab_now_ps()) {
		rocelab_clock_read();
		return;
	}
	rocelab_wait_until_ps(deadline_ps);
	rocelab_note_call();
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
	if (!rocelab_attached()) return next_clock_gettime()(id, ts);
	enum clock_kind kind = kind_of(id);
	if (kind == CLOCK_BAD) {
		errno = EINVAL;
		return -1;
	}
	to_timespec(kind, read_now(), ts);
	return 0;
}

int clock_getres(clockid_t id, struct timespec *res)
{
	if (!rocelab_attached()) return next_clock_getres()(id, res);
	if (kind_of(id) == CLOCK_BAD) {
		errno = EINVAL;
		return -1;
	}
	if (res != NULL) {
		res->tv_sec = 0;
		res->tv_nsec = 1;
	}
	return 0;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnonnull-compare"
int gettimeofday(struct timeval *tv, void *tz)
{
	if (!rocelab_attached()) return next_gettimeofday()(tv, tz);
	struct timespec ts;
	to_timespec(CLOCK_WALL, read_now(), &ts);
	if (tv != NULL) {
		tv->tv_sec = ts.tv_sec;
		tv->tv_usec = (suseconds_t)(ts.tv_nsec / 1000);
	}
	if (tz != NULL) {
		/* struct timezone: minutes west of Greenwich, DST kind; UTC has neither. */
		int *fields = tz;
		fields[0] = 0;
		fields[1] = 0;
	}
	return 0;
}
#pragma GCC diagnostic pop

time_t time(time_t *out)
{
	if (!rocelab_attached()) return next_time()(out);
	struct timespec ts;
	to_timespec(CLOCK_WALL, read_now(), &ts);
	if (out != NULL) *out = ts.tv_sec;
	return ts.tv_sec;
}

/* clock() is the process's CPU time, in CLOCKS_PER_SEC (10^6 on POSIX) units. */
clock_t clock(void)
{
	if (!rocelab_attached()) return next_clock()();
	return (clock_t)(read_now() / (PS_PER_SEC / CLOCKS_PER_SEC));
}

int timespec_get(struct timespec *ts, int base)
{
	if (!rocelab_attached()) return next_timespec_get()(ts, base);
	if (base != TIME_UTC) return 0;
	to_timespec(CLOCK_WALL, read_now(), ts);
	return base;
}

int nanosleep(const struct timespec *req, struct timespec *rem)
{
	if (!rocelab_attached()) return next_nanosleep()(req, rem);
	if (req == NULL || !valid_timespec(req)) {
		errno = EINVAL;
		return -1;
	}
	sleep_until(add_sat(rocelab_now_ps(), timespec_ps(CLOCK_VIRTUAL, req)));
	if (rem != NULL) rem->tv_sec = 0, rem->tv_nsec = 0;
	return 0;
}

/* Returns the error number itself, as POSIX says (not -1 and errno). */
int clock_nanosleep(clockid_t id, int flags, const struct timespec *req, struct timespec *rem)
{
	if (!rocelab_attached()) return next_clock_nanosleep()(id, flags, req, rem);
	enum clock_kind kind = kind_of(id);
	if (kind == CLOCK_BAD || id == CLOCK_THREAD_CPUTIME_ID || req == NULL || !valid_timespec(req)) return EINVAL;
	uint64_t deadline;
	if (flags & TIMER_ABSTIME) {
		deadline = timespec_ps(kind, req);
	} else {
		deadline = add_sat(rocelab_now_ps(), timespec_ps(CLOCK_VIRTUAL, req));
		if (rem != NULL) rem->tv_sec = 0, rem->tv_nsec = 0;
	}
	sleep_until(deadline);
	return 0;
}

int usleep(useconds_t usec)
{
	if (!rocelab_attached()) return next_usleep()(usec);
	sleep_until(add_sat(rocelab_now_ps(), (uint64_t)usec * PS_PER_US));
	return 0;
}

unsigned int sleep(unsigned int sec)
{
	if (!rocelab_attached()) return next_sleep()(sec);
	sleep_until(add_sat(rocelab_now_ps(), (uint64_t)sec * PS_PER_SEC));
	return 0;
}
