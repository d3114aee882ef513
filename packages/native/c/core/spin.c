/*
 * The spin detector (issue 25): turns a program's spin on its registered memory into waits, so that
 * virtual time moves for programs that never call in while they wait for a peer's RDMA WRITE
 * (perftest's ib_write_lat: `while (*poll_buf != (char)rcnt ...)` in run_iter_lat_write; Derecho's
 * SST polls the same way).
 *
 * A program runs in lockstep with its host: its virtual time moves only while it waits in a call
 * (core.h). A registered buffer's pages are a MAP_SHARED memfd the host maps too (verbs.c's
 * share_pages, which reports each range through rocelab_memory_shared), so an incoming WRITE lands
 * in them without the program calling anything. The detector watches reads of those pages:
 *
 * Normal mode. Registered pages are left read-write, so the program runs at full speed and its
 * syscalls on them work. A timer on the process's CPU-time clock (timer_create on
 * CLOCK_PROCESS_CPUTIME_ID, delivering SPIN_TIMER_SIGNAL, a real-time signal, so alarm(), SIGALRM,
 * ITIMER_REAL and ITIMER_PROF stay the program's: perftest's duration mode uses alarm()) ticks every
 * SPIN_ENTRY_NS of CPU time. rocelab_spin_note_call (called by the core's rocelab_call on every
 * request) bumps a call generation; a tick that finds the generation unchanged since the previous
 * tick enters counting mode. Entry therefore comes after 10 to 20 ms of the program's CPU time with
 * no call, not on every call's timer restart: the hot path of a call is one atomic increment.
 *
 * Counting mode. Every shared range is PROT_NONE. A SIGSEGV (SEGV_ACCERR) inside a shared range is
 * an access to registered memory: the handler unprotects that page and sets the trap flag (TF) in
 * the interrupted context, so the access executes exactly once; the SIGTRAP after it re-protects
 * the page and clears TF. Each thread counts consecutive accesses to the same address (the fault's
 * si_addr) with no call in between (by any thread); at SPIN_ACCESSES the thread is spinning on memory
 * and the handler calls rocelab_wait_any() (a wait for the next thing the program could see, such
 * as a WRITE landing in its memory), then counts again from zero, still in counting mode. The wait
 * is made before the access executes, so the access reads what the wait brought.
 * Any call (other than that wait itself) leaves counting mode: every range goes back to read-write.
 *
 * Faults that are not ours. A SIGSEGV outside the shared ranges (or SEGV_MAPERR: the range was
 * unmapped), a SIGTRAP that is not the end of our single step, and a SPIN_TIMER_SIGNAL that is not
 * our timer's go to the program's own handler, or get the default action (a fault re-executes under
 * SIG_DFL and dumps core; other signals are re-raised): a real crash is never swallowed.
 * sigaction, signal, bsd_signal and sysv_signal are interposed for SIGSEGV, SIGTRAP and
 * SPIN_TIMER_SIGNAL: the program's handler is kept here (and reported back as the old action), ours
 * stays installed and chains to it with its mask and flags (SA_SIGINFO, SA_RESETHAND, SA_NODEFER).
 *
 * Threads. The counting state (the address, the count, the pages of a step in flight) is per thread;
 * the protection is process-wide. A multi-threaded program gets: no lost or doubled access (another
 * thread touching a page while it is unprotected for one thread's step is merely not counted), a
 * spin detected in whichever thread spins, and counting mode left when any thread calls in: a
 * program whose other threads keep calling never enters it, and then needs no detector. A thread
 * that blocks SPIN_TIMER_SIGNAL, SIGSEGV or SIGTRAP is not watched (a blocked SIGSEGV or SIGTRAP
 * from a fault kills the process, as it would without rocelab). The CPU clock is the whole
 * process's, and Linux (>= 6.4) delivers its signal to the thread that is running.
 *
 * Limits (SPIN.md says them to users): a syscall on registered memory in counting mode fails with
 * EFAULT (the kernel does not fault, it refuses); entry is time-based, so the instant a spin is
 * first taken as one can differ between runs (the waits it makes do not: they are counted in
 * accesses); a program that computes for more than 10 ms and re-reads one registered address
 * SPIN_ACCESSES times without a call is taken as spinning; in counting mode every access to
 * registered memory costs two signals (a page copied with `rep movsb` costs two per byte); a program
 * that changes the protection of its registered pages itself finds them read-write again when
 * counting mode ends. x86-64 only (the trap flag); elsewhere the detector does nothing.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "core.h"

#define EXPORT __attribute__((visibility("default")))

/*
 * Consecutive reads of one registered address, with no call in between, that make a spin. A spin
 * loop reaches it in a few milliseconds of signals (two per read); larger means fewer programs
 * that merely re-read a flag while computing are taken as spinning (and handed a wait, which moves
 * their virtual time), smaller means less real time burnt per detected spin.
 */
#define SPIN_ACCESSES 1000u

/* CPU time with no call before the pages are protected: long against a call's cost, so a program
 * that calls in regularly (polling a CQ) never pays for the detector, short against a test's time. */
#define SPIN_ENTRY_NS 10000000L

/* The CPU timer's signal: a real-time one, away from SIGRTMIN where programs start theirs. */
#define SPIN_TIMER_SIGNAL (SIGRTMAX - 4)

/* The x86 trap flag: the CPU raises a debug exception (SIGTRAP, TRAP_TRACE) after one instruction. */
#define EFLAGS_TF 0x100L

/* Pages one instruction may touch during its step (a string move whose source and destination
 * both straddle a page boundary touches four). */
#define STEP_PAGES 8

/* Faults at one address, each after its page was made read-write, that make it a fault of the
 * program's own (an instruction fetch from a registered page, which is not executable): far more
 * than another thread's re-protections can cause in one step. */
#define REFAULTS 64

/* Registered ranges: verbs.c never gives pages back, so the list only grows. Read by the signal
 * handlers without a lock: a slot is written before `n_ranges` publishes it. */
#define MAX_RANGES 1024

struct range {
	uintptr_t start, end;
};
static struct range ranges[MAX_RANGES];
static unsigned n_ranges;
static pthread_mutex_t ranges_lock = PTHREAD_MUTEX_INITIALIZER;

static int counting;          /* 1 while the ranges are PROT_NONE */
static uint64_t calls;        /* the call generation: one per rocelab call */
static uint64_t tick_calls;   /* `calls` at the previous tick (the timer handler's own) */
static uint64_t steps_total;  /* accesses single-stepped, for tests and reports */
static uintptr_t page_mask;

struct spin_thread {
	uintptr_t addr;    /* the address of the current run of accesses */
	uint64_t gen;      /* `calls` when it began */
	unsigned count;    /* its length */
	unsigned n_step;   /* pages unprotected for the step in flight (0: none) */
	uintptr_t step[STEP_PAGES];
	int in_wait;       /* inside our own rocelab_wait_any: its call is not the program's */
	uintptr_t again_addr; /* a fault made again after unprotecting its page, */
	uint64_t again_gen;   /* the call generation then, */
	unsigned again;       /* and how many times in a row: past REFAULTS it is a real fault */
};
static __thread struct spin_thread me __attribute__((tls_model("initial-exec")));

/* ------------------------------------------------------------ the program's signal actions */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);
static sigaction_fn real_sigaction;

enum { SLOT_SEGV, SLOT_TRAP, SLOT_TIMER, SLOTS };
static struct sigaction program[SLOTS]; /* what the program installed (or had) for each */
static int installed;                   /* our handlers are in place: `program` is authoritative */
static int actions_lock;

static int slot_of(int sig)
{
	if (sig == SIGSEGV)
		return SLOT_SEGV;
	if (sig == SIGTRAP)
		return SLOT_TRAP;
	if (sig == SPIN_TIMER_SIGNAL)
		return SLOT_TIMER;
	return -1;
}

static void lock_actions(void)
{
	while (__atomic_exchange_n(&actions_lock, 1, __ATOMIC_ACQUIRE))
		sched_yield();
}

/* For the handlers: the lock's holder may be the very code a signal interrupted (on this thread),
 * so a handler gives up waiting and reads the actions as they are. Returns whether it holds it. */
static bool lock_actions_bounded(void)
{
	for (int i = 0; i < 1000; i++) {
		if (!__atomic_exchange_n(&actions_lock, 1, __ATOMIC_ACQUIRE))
			return true;
		sched_yield();
	}
	return false;
}

static void unlock_actions(void)
{
	__atomic_store_n(&actions_lock, 0, __ATOMIC_RELEASE);
}

static sigaction_fn resolve_sigaction(void)
{
	if (!real_sigaction)
		real_sigaction = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
	return real_sigaction;
}

EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	/* One interposed sigaction for the core: SIGILL is the TSC's (tsc.c), the rest the detector's. */
	if (sig == SIGILL)
		return rocelab_tsc_sigaction(sig, act, old);
	sigaction_fn real = resolve_sigaction();
	int slot = slot_of(sig);
	if (slot < 0)
		return real(sig, act, old);
	/* Copies outside the lock, so a bad pointer faults where no handler waits for the lock. */
	struct sigaction want, had;
	if (act)
		want = *act;
	lock_actions();
	if (!__atomic_load_n(&installed, __ATOMIC_ACQUIRE)) {
		int rc = real(sig, act ? &want : NULL, &had);
		unlock_actions();
		if (rc == 0 && old)
			*old = had;
		return rc;
	}
	had = program[slot];
	if (act)
		program[slot] = want;
	unlock_actions();
	if (old)
		*old = had;
	return 0;
}

/* signal()'s flavours set their action through libc's internal sigaction, past the interposition
 * above: each is redone here for our signals, with glibc's flags for it. */
static sighandler_t set_handler(int sig, sighandler_t handler, int flags, bool mask_self)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));
	act.sa_handler = handler;
	act.sa_flags = flags;
	sigemptyset(&act.sa_mask);
	if (mask_self)
		sigaddset(&act.sa_mask, sig);
	if (sigaction(sig, &act, &old) != 0)
		return SIG_ERR;
	return old.sa_handler;
}

static sighandler_t pass_signal(const char *name, int sig, sighandler_t handler)
{
	signal_fn real = (signal_fn)dlsym(RTLD_NEXT, name);
	if (!real) {
		errno = ENOSYS;
		return SIG_ERR;
	}
	return real(sig, handler);
}

EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	if (!rocelab_tsc_keeps(sig) && (slot_of(sig) < 0 || !__atomic_load_n(&installed, __ATOMIC_ACQUIRE)))
		return pass_signal("signal", sig, handler);
	return set_handler(sig, handler, SA_RESTART, true);
}

EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	if (!rocelab_tsc_keeps(sig) && (slot_of(sig) < 0 || !__atomic_load_n(&installed, __ATOMIC_ACQUIRE)))
		return pass_signal("bsd_signal", sig, handler);
	return set_handler(sig, handler, SA_RESTART, true);
}

EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	if (!rocelab_tsc_keeps(sig) && (slot_of(sig) < 0 || !__atomic_load_n(&installed, __ATOMIC_ACQUIRE)))
		return pass_signal("sysv_signal", sig, handler);
	return set_handler(sig, handler, SA_RESETHAND | SA_NODEFER, false);
}

/* The fault or signal is not ours: what the program asked for, or what the kernel would do. */
static void chain(int sig, siginfo_t *si, void *uc)
{
	int slot = slot_of(sig);
	bool locked = lock_actions_bounded();
	struct sigaction act = program[slot];
	if (act.sa_flags & SA_RESETHAND) {
		memset(&program[slot], 0, sizeof(program[slot]));
		program[slot].sa_handler = SIG_DFL;
	}
	if (locked)
		unlock_actions();
	bool from_fault = si->si_code > 0 && sig != SPIN_TIMER_SIGNAL; /* the kernel's, for an instruction */
	if (act.sa_handler == SIG_IGN && !from_fault)
		return;
	if (act.sa_handler == SIG_DFL || act.sa_handler == SIG_IGN) {
		/* Default action, so the exit status and the core dump are the real ones. A faulting
		 * instruction faults again on return; anything else is raised again. */
		struct sigaction dfl;
		memset(&dfl, 0, sizeof(dfl));
		dfl.sa_handler = SIG_DFL;
		sigemptyset(&dfl.sa_mask);
		real_sigaction(sig, &dfl, NULL);
		if (sig == SIGSEGV && from_fault)
			return;
		sigset_t unblock;
		sigemptyset(&unblock);
		sigaddset(&unblock, sig);
		pthread_sigmask(SIG_UNBLOCK, &unblock, NULL);
		raise(sig);
		return;
	}
	sigset_t mask = act.sa_mask, saved;
	if (!(act.sa_flags & SA_NODEFER))
		sigaddset(&mask, sig);
	pthread_sigmask(SIG_BLOCK, &mask, &saved);
	if (act.sa_flags & SA_SIGINFO)
		act.sa_sigaction(sig, si, uc);
	else
		act.sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &saved, NULL);
}

/* ------------------------------------------------------------------ protection */

static void protect_all(int prot)
{
	unsigned n = __atomic_load_n(&n_ranges, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		mprotect((void *)ranges[i].start, ranges[i].end - ranges[i].start, prot);
}

static bool shared(uintptr_t addr)
{
	unsigned n = __atomic_load_n(&n_ranges, __ATOMIC_ACQUIRE);
	for (unsigned i = 0; i < n; i++)
		if (addr >= ranges[i].start && addr < ranges[i].end)
			return true;
	return false;
}

/* Counting mode on. A call racing with it may have just left it: then it is left again, so the
 * pages are never PROT_NONE outside counting mode once both are done. */
static void enter_counting(void)
{
	__atomic_store_n(&counting, 1, __ATOMIC_SEQ_CST);
	protect_all(PROT_NONE);
	if (!__atomic_load_n(&counting, __ATOMIC_SEQ_CST))
		protect_all(PROT_READ | PROT_WRITE);
}

EXPORT void rocelab_spin_note_call(void)
{
	if (me.in_wait)
		return;
	__atomic_fetch_add(&calls, 1, __ATOMIC_SEQ_CST);
	if (__atomic_exchange_n(&counting, 0, __ATOMIC_SEQ_CST))
		protect_all(PROT_READ | PROT_WRITE);
}

EXPORT uint64_t rocelab_spin_steps(void)
{
	return __atomic_load_n(&steps_total, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ the handlers */

#if defined(__x86_64__)

static void on_segv(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t addr = (uintptr_t)si->si_addr;
	if (si->si_code != SEGV_ACCERR || !shared(addr)) {
		chain(sig, si, ucv);
		return;
	}
	uintptr_t page = addr & page_mask;
	uint64_t gen = __atomic_load_n(&calls, __ATOMIC_SEQ_CST);
	if (addr == me.again_addr && gen == me.again_gen) {
		if (++me.again > REFAULTS) {
			me.again_addr = 0;
			chain(sig, si, ucv);
			return;
		}
	} else {
		me.again_addr = addr;
		me.again_gen = gen;
		me.again = 0;
	}
	if (!__atomic_load_n(&counting, __ATOMIC_SEQ_CST)) {
		/* A protection left by counting mode's last moment (enter_counting racing a call, or a
		 * step's re-protection): it is gone now, so the access is simply made again. */
		mprotect((void *)page, ~page_mask + 1, PROT_READ | PROT_WRITE);
		return;
	}
	if (me.n_step == 0) {
		if (addr != me.addr || gen != me.gen) {
			me.addr = addr;
			me.gen = gen;
			me.count = 0;
		}
		if (++me.count >= SPIN_ACCESSES) {
			me.in_wait = 1;
			rocelab_wait_any();
			me.in_wait = 0;
			me.count = 0;
		}
	}
	bool listed = false;
	for (unsigned i = 0; i < me.n_step; i++)
		listed |= me.step[i] == page;
	if (!listed && me.n_step < STEP_PAGES)
		me.step[me.n_step++] = page;
	mprotect((void *)page, ~page_mask + 1, PROT_READ | PROT_WRITE);
	uc->uc_mcontext.gregs[REG_EFL] |= EFLAGS_TF;
	__atomic_fetch_add(&steps_total, 1, __ATOMIC_RELAXED);
}

static void on_trap(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	if (me.n_step == 0 || si->si_code != TRAP_TRACE) {
		chain(sig, si, ucv);
		return;
	}
	uc->uc_mcontext.gregs[REG_EFL] &= ~EFLAGS_TF;
	unsigned n = me.n_step;
	me.n_step = 0;
	me.again_addr = 0;
	if (!__atomic_load_n(&counting, __ATOMIC_SEQ_CST))
		return;
	for (unsigned i = 0; i < n; i++)
		mprotect((void *)me.step[i], ~page_mask + 1, PROT_NONE);
	/* As in enter_counting: a call that left counting mode meanwhile must not find these pages
	 * protected after it. */
	if (!__atomic_load_n(&counting, __ATOMIC_SEQ_CST))
		for (unsigned i = 0; i < n; i++)
			mprotect((void *)me.step[i], ~page_mask + 1, PROT_READ | PROT_WRITE);
}

static void on_tick(int sig, siginfo_t *si, void *ucv)
{
	if (si->si_code != SI_TIMER || si->si_value.sival_ptr != (void *)&tick_calls) {
		chain(sig, si, ucv);
		return;
	}
	uint64_t now = __atomic_load_n(&calls, __ATOMIC_SEQ_CST);
	if (now != tick_calls) {
		tick_calls = now;
		return;
	}
	if (!__atomic_load_n(&counting, __ATOMIC_SEQ_CST))
		enter_counting();
}

static void start_timer(void)
{
	struct sigevent ev;
	memset(&ev, 0, sizeof(ev));
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SPIN_TIMER_SIGNAL;
	ev.sigev_value.sival_ptr = &tick_calls;
	timer_t timer;
	if (timer_create(CLOCK_PROCESS_CPUTIME_ID, &ev, &timer) != 0) {
		rocelab_log("spin detector: timer_create(CLOCK_PROCESS_CPUTIME_ID) failed (%s): a spin on registered memory will not be detected", strerror(errno));
		return;
	}
	struct itimerspec every = { .it_interval = { 0, SPIN_ENTRY_NS }, .it_value = { 0, SPIN_ENTRY_NS } };
	timer_settime(timer, 0, &every, NULL);
}

/* CPU timers are not inherited: a forked child that registers nothing new still has its pages. */
static void after_fork_child(void)
{
	me.n_step = 0;
	start_timer();
}

static void install(int sig, void (*handler)(int, siginfo_t *, void *))
{
	struct sigaction act;
	memset(&act, 0, sizeof(act));
	act.sa_sigaction = handler;
	/* SA_ONSTACK: a program that handles stack overflow on its own stack keeps doing so. */
	act.sa_flags = SA_SIGINFO | SA_RESTART | SA_NODEFER | SA_ONSTACK;
	sigemptyset(&act.sa_mask);
	resolve_sigaction()(sig, &act, &program[slot_of(sig)]);
}

static void start(void)
{
	page_mask = ~(uintptr_t)(sysconf(_SC_PAGESIZE) - 1);
	lock_actions();
	install(SIGSEGV, on_segv);
	install(SIGTRAP, on_trap);
	install(SPIN_TIMER_SIGNAL, on_tick);
	__atomic_store_n(&installed, 1, __ATOMIC_RELEASE);
	unlock_actions();
	start_timer();
	pthread_atfork(NULL, NULL, after_fork_child);
}

#else

static void start(void)
{
	rocelab_log("spin detector: not available on this architecture (it single-steps with x86's trap flag): a spin on registered memory will not be detected");
}

#endif

static bool on_own_stack(uintptr_t start_addr, uintptr_t end_addr)
{
	pthread_attr_t attr;
	void *base;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &attr) != 0)
		return false;
	int rc = pthread_attr_getstack(&attr, &base, &size);
	pthread_attr_destroy(&attr);
	return rc == 0 && start_addr < (uintptr_t)base + size && end_addr > (uintptr_t)base;
}

EXPORT void rocelab_memory_shared(uintptr_t start_addr, uintptr_t end_addr)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, start);
	if (on_own_stack(start_addr, end_addr)) {
		rocelab_log("spin detector: registered memory [0x%lx, 0x%lx) is on the thread's stack, which cannot be protected (the kernel needs it for the signal): a spin on it will not be detected", (unsigned long)start_addr, (unsigned long)end_addr);
		return;
	}
	pthread_mutex_lock(&ranges_lock);
	unsigned n = n_ranges;
	if (n == MAX_RANGES) {
		pthread_mutex_unlock(&ranges_lock);
		rocelab_log("spin detector: more than %d registered ranges: a spin on [0x%lx, 0x%lx) will not be detected", MAX_RANGES, (unsigned long)start_addr, (unsigned long)end_addr);
		return;
	}
	/* Published unprotected: the REG_MR call that follows leaves counting mode if it is on. */
	ranges[n].start = start_addr;
	ranges[n].end = end_addr;
	__atomic_store_n(&n_ranges, n + 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ranges_lock);
}
