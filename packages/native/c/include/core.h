/*
 * librocelab's internal contract: what the parts of the device (verbs, rdma_cm, clocks, the TSC,
 * sockets) use of the core, which owns the program's channel to its host's member.
 *
 * A program runs in lockstep with its host: its virtual time stands still while it runs and moves
 * only while it waits (a wait is a request whose reply comes when its condition holds). Every reply
 * carries the host's virtual time, so reading a clock costs no round trip.
 */
#ifndef ROCELAB_CORE_H
#define ROCELAB_CORE_H

#include <stddef.h>
#include <stdint.h>

#include "rocelab_proto.h"

/* 1 when the program runs under a rocelab host (ROCELAB_CHANNEL_FD names its channel), else 0:
 * then every interposed call passes through to libc and the device lists nothing. */
int rocelab_attached(void);

/* The host as its HELLO reply described it (node name, IPv4 address, MAC, MTU, link rate, TSC
 * frequency, index in the pod); NULL when detached. */
const struct rl_hello_rep *rocelab_host(void);

/* The channel's descriptor (a high number, close-on-exec), or -1 when detached: what an interposed
 * close, dup2 or closefrom must leave alone, since a program must not cut itself off its host. */
int rocelab_channel_fd(void);

/* The program's virtual time, in picoseconds (the last reply's, plus the CPU model's charges). */
uint64_t rocelab_now_ps(void);

/* A wait: returns once the host's virtual time has reached `ps` (at once if it has). */
void rocelab_wait_until_ps(uint64_t ps);

/* A wait for anything the program could see: a completion, a CM or socket event, a write into its
 * registered memory, or its own timer. What a program that spins on memory or a clock is given. */
void rocelab_wait_any(void);

/* rocelab_wait_any, ending at virtual instant `ps` at the latest: what a program spinning on its
 * clock is given (it waits for the clock as much as for the fabric). */
void rocelab_wait_any_until_ps(uint64_t ps);

/*
 * One request and its reply (rocelab_proto.h): `req` of `req_len` bytes, with `fd_out` passed
 * along (SCM_RIGHTS) when >= 0; the reply's body goes to `rep` (at most `rep_cap` bytes). Returns
 * the reply's errno (0 = success). Thread-safe: one request at a time per program.
 * `req` is the body: the core puts the rl_hdr before it. `rep` receives what follows the reply's
 * rl_rep_hdr, cut at `rep_cap`; `*rep_len` (when not NULL) is how much was stored. EMSGSIZE for a
 * request over RL_MAX_MESSAGE; ENODEV when detached. A broken channel never returns: the core
 * prints one line on stderr and the program exits 70.
 */
int rocelab_call(uint32_t type, const void *req, size_t req_len, int fd_out, void *rep, size_t rep_cap, size_t *rep_len);

/* Threads (threads.c). The calling thread speaks on `fd` (its own channel) from now on; ENOMEM. */
int rocelab_thread_adopt(int fd);
/* The thread ends: its last word (RL_THREAD_EXIT) on its channel, which is closed. */
void rocelab_thread_release(void);
/* 1 when the calling thread has a channel of its own. */
int rocelab_thread_has_channel(void);
/* A wait until another thread of the program calls rocelab_wake() or ends (`flags` RL_YIELD_SEEN:
 * or anything the program could see happens): what a thread blocked on its own kind does
 * (sem_wait, pthread_join, rdma_get_cm_event), so that virtual time moves and the others run. */
void rocelab_yield(uint32_t flags);
/* Ends every rocelab_yield of the program (after this thread runs on to its next wait). */
void rocelab_wake(void);

/* A line in the program's log on its host (the run result's program log, and stderr under -v). */
void rocelab_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* What every unimplemented call does: logs "NAME is not supported by rocelab0", sets errno and
 * returns EOPNOTSUPP (callers return it, or -1/NULL as the verb's convention says). */
int rocelab_unsupported(const char *name);

/* Registered memory (verbs.c): the page ranges now shared with the host, which only the NIC
 * changes behind the program's back. The spin detector (spin.c) watches reads of them. */
void rocelab_memory_shared(uintptr_t start, uintptr_t end);

/* Told by the core on every request it makes (rocelab_call, and the waits): the program has done
 * something besides reading a clock. clock.c owns the count this resets: a program that reads its
 * clocks (or the TSC) ROCELAB_SPIN_READS times in a row with no request between is given a
 * rocelab_wait_any() on its next read, so a loop that waits for time to pass sees it pass. */
void rocelab_note_call(void);

/* The spin detector's hook: rocelab_call calls it first on every request, before it touches the
 * channel or any buffer (a call leaves counting mode, in which registered pages are PROT_NONE and a
 * syscall on them fails with EFAULT). The detector ignores it for the wait it makes itself. */
void rocelab_spin_note_call(void);

/* SIGILL belongs to tsc.c (it answers the rewritten rdtsc): spin.c's interposed sigaction and
 * signal hand it there. */
struct sigaction;
int rocelab_tsc_keeps(int sig);
int rocelab_tsc_sigaction(int sig, const struct sigaction *act, struct sigaction *old);

/* Accesses to registered memory the spin detector has single-stepped (its counting mode's work):
 * for tests and the program's report. */
uint64_t rocelab_spin_steps(void);

/* The TSC's virtual frequency, in MHz: what /proc/cpuinfo's "cpu MHz" says under rocelab. */
double rocelab_tsc_mhz(void);

#endif
