/*
 * Prints every clock a program can read, and what a short sleep and a spin on a clock do to it,
 * one "key=value" line each (read by packages/native/src/clock.test.ts). Run it under librocelab
 * (or the test's stub core) to see them virtual, or alone to see them real.
 *
 * The core's virtual time is looked up with dlsym, so the probe also runs without rocelab (then
 * the "now_ps" lines say "none"). With CLOCK_PROBE_LIB set to a shared object that defines
 * `uint64_t lib_rdtsc(void)`, it also dlopens that object and reads the TSC through it.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdlib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* The spin loops give up here, so a broken spin rule shows as a number instead of a hang. */
#define SPIN_BOUND 100000

static uint64_t (*now_ps_fn)(void);
static uint64_t (*wait_any_calls_fn)(void);

static void print_now(const char *key)
{
	if (now_ps_fn == NULL) printf("%s=none\n", key);
	else printf("%s=%llu\n", key, (unsigned long long)now_ps_fn());
}

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static uint64_t rdtscp(uint32_t *aux)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(*aux));
	return (uint64_t)hi << 32 | lo;
}

static unsigned long long ns(clockid_t id)
{
	struct timespec ts;
	if (clock_gettime(id, &ts) != 0) return 0;
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* The cpu MHz lines as perftest's proc_get_cpu_mhz parses them, through fopen. */
static void cpuinfo_fopen(void)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];
	int lines = 0, same = 1;
	double first = 0;
	char text[64] = "";
	while (f != NULL && fgets(line, sizeof line, f) != NULL) {
		double m;
		if (sscanf(line, "cpu MHz : %lf", &m) != 1) continue;
		if (lines == 0) {
			first = m;
			sscanf(strchr(line, ':') + 1, " %63s", text);
		} else if (m != first) {
			same = 0;
		}
		lines++;
	}
	if (f != NULL) fclose(f);
	printf("cpuinfo_mhz=%.3f\ncpuinfo_mhz_text=%s\ncpuinfo_mhz_lines=%d\ncpuinfo_mhz_all_same=%d\n", first, text, lines, same);
}

/* The same through open and read, which glibc's fopen does not use. */
static void cpuinfo_open(void)
{
	static char buf[1 << 20];
	int fd = open("/proc/cpuinfo", O_RDONLY);
	ssize_t n = 0, got;
	while (fd >= 0 && n < (ssize_t)sizeof buf - 1 && (got = read(fd, buf + n, sizeof buf - 1 - (size_t)n)) > 0) n += got;
	buf[n] = '\0';
	if (fd >= 0) close(fd);
	const char *p = strstr(buf, "cpu MHz");
	double m = 0;
	if (p != NULL) sscanf(strchr(p, ':') + 1, "%lf", &m);
	printf("cpuinfo_open_mhz=%.3f\n", m);
}

static void sleep_delta(const char *key, int (*sleeper)(void))
{
	uint64_t before = now_ps_fn != NULL ? now_ps_fn() : 0;
	unsigned long long mono = ns(CLOCK_MONOTONIC);
	int rc = sleeper();
	unsigned long long mono_after = ns(CLOCK_MONOTONIC);
	uint64_t after = now_ps_fn != NULL ? now_ps_fn() : 0;
	printf("%s_rc=%d\n%s_ps=%llu\n%s_mono_ns=%llu\n", key, rc, key, (unsigned long long)(after - before), key, mono_after - mono);
}

static int do_nanosleep(void)
{
	struct timespec ts = {0, 3000};
	return nanosleep(&ts, NULL);
}

static int do_usleep(void)
{
	return usleep(3);
}

static int do_clock_nanosleep(void)
{
	struct timespec ts = {0, 3000};
	return clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
}

static int do_clock_nanosleep_abs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_nsec += 3000;
	if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
	return clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

static int do_clock_nanosleep_abs_realtime(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 3000;
	if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
	return clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL);
}

/* Reads until the reading changes: how many reads it took (the spin rule's count, plus one). */
static void spin(const char *key, int tsc)
{
	usleep(1); /* a request: the spin rule's count starts again */
	uint64_t calls = wait_any_calls_fn != NULL ? wait_any_calls_fn() : 0;
	unsigned long long first = tsc ? rdtsc() : ns(CLOCK_MONOTONIC), v = first;
	int reads = 1;
	while (v == first && reads < SPIN_BOUND) {
		v = tsc ? rdtsc() : ns(CLOCK_MONOTONIC);
		reads++;
	}
	uint64_t calls_after = wait_any_calls_fn != NULL ? wait_any_calls_fn() : 0;
	printf("%s_reads=%d\n%s_wait_any=%llu\n%s_step=%llu\n", key, reads, key, (unsigned long long)(calls_after - calls), key, v - first);
}

/* The program's own SIGILL handler, for a real ud2: rocelab must keep it and call it. */
static sigjmp_buf trapped;

static void own_sigill(int sig)
{
	siglongjmp(trapped, 1);
}

static void own_handler(void)
{
	struct sigaction act = {.sa_handler = own_sigill}, old;
	sigemptyset(&act.sa_mask);
	int rc = sigaction(SIGILL, &act, &old);
	int caught = 0;
	if (sigsetjmp(trapped, 1) == 0) __builtin_trap();
	else caught = 1;
	/* And the TSC still reads virtual time with the program's handler in place. */
	unsigned long long tsc = rdtsc();
	printf("own_sigill_rc=%d\nown_sigill_caught=%d\nown_sigill_rdtsc=%llu\n", rc, caught, tsc);
	sigaction(SIGILL, &old, NULL);
}

/* With every signal blocked (as many threads run), a TSC read must still be answered. */
static void blocked_signals(void)
{
	sigset_t all, old;
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	unsigned long long tsc = rdtsc();
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("blocked_rdtsc=%llu\n", tsc);
}

static void through_dlopen(void)
{
	const char *path = getenv("CLOCK_PROBE_LIB");
	if (path == NULL) return;
	void *lib = dlopen(path, RTLD_NOW);
	uint64_t (*fn)(void) = lib != NULL ? (uint64_t (*)(void))dlsym(lib, "lib_rdtsc") : NULL;
	if (fn == NULL) {
		printf("dlopen_error=%s\n", dlerror());
		return;
	}
	print_now("dlopen_now_ps");
	printf("dlopen_rdtsc=%llu\n", (unsigned long long)fn());
	dlclose(lib);
}

int main(void)
{
	now_ps_fn = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "rocelab_now_ps");
	wait_any_calls_fn = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "rocelab_stub_wait_any_calls");

	print_now("now_ps");
	uint32_t aux = 12345;
	unsigned long long tsc = rdtsc();
	unsigned long long tscp = rdtscp(&aux);
	printf("rdtsc=%llu\nrdtscp=%llu\nrdtscp_aux=%u\n", tsc, tscp, aux);

	struct timespec res;
	clock_getres(CLOCK_MONOTONIC, &res);
	struct timeval tv;
	gettimeofday(&tv, NULL);
	time_t t = time(NULL);
	printf("realtime_ns=%llu\nmonotonic_ns=%llu\nboottime_ns=%llu\nmonotonic_raw_ns=%llu\nprocess_cpu_ns=%llu\n", ns(CLOCK_REALTIME), ns(CLOCK_MONOTONIC), ns(CLOCK_BOOTTIME), ns(CLOCK_MONOTONIC_RAW), ns(CLOCK_PROCESS_CPUTIME_ID));
	printf("gettimeofday_us=%llu\ntime_s=%lld\nres_ns=%ld\n", (unsigned long long)tv.tv_sec * 1000000ull + (unsigned long long)tv.tv_usec, (long long)t, res.tv_nsec);

	cpuinfo_fopen();
	cpuinfo_open();

	sleep_delta("nanosleep", do_nanosleep);
	sleep_delta("usleep", do_usleep);
	sleep_delta("clock_nanosleep", do_clock_nanosleep);
	sleep_delta("clock_nanosleep_abs", do_clock_nanosleep_abs);
	sleep_delta("clock_nanosleep_abs_realtime", do_clock_nanosleep_abs_realtime);

	own_handler();
	blocked_signals();
	through_dlopen();

	spin("spin_clock", 0);
	spin("spin_tsc", 1);
	print_now("end_ps");
	return 0;
}
