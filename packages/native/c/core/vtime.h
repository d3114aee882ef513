/*
 * What the clock interposition (clock.c) shares with the TSC's emulation (tsc.c): both are clock
 * reads, and both count toward the spin rule.
 */
#ifndef ROCELAB_VTIME_H
#define ROCELAB_VTIME_H

#include <stdint.h>

/*
 * Consecutive clock reads with no request to the host between them after which the next read is
 * a rocelab_wait_any(). A program's virtual time stands still while it computes, so a loop that
 * polls a clock for time to pass (perftest's sample_get_cpu_mhz spins on gettimeofday for 10 ms)
 * would spin forever at one instant. It is a count, not a time, so the instant the wait happens is
 * the same on every run. 1000 leaves room for a program that reads a clock many times per
 * operation (perftest reads the TSC twice per iteration, never 1000 times between two verbs) and
 * costs a looping program about 1000 function calls per step of virtual time.
 */
#define ROCELAB_SPIN_READS 1000u

/* One clock read: counts toward the spin rule, and is a rocelab_wait_any() when it completes a run
 * of ROCELAB_SPIN_READS reads. Call it before reading rocelab_now_ps(). */
void rocelab_clock_read(void);

/* Virtual TSC at `now_ps`: now_ps x MHz / 10^6 with the MHz that /proc/cpuinfo shows (to 1 kHz,
 * as "%.3f" prints it), in integers, so it is monotonic in now_ps and the same on every machine. */
uint64_t rocelab_tsc_at(uint64_t now_ps);

#endif
