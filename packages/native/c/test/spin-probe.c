/*
 * The spin detector's test program (packages/native/src/spin.test.ts links it with
 * core/spin.c and test-stub/core-stub.c): one page registered as verbs.c registers it (a
 * MAP_SHARED memfd, reported through rocelab_memory_shared) and a second mapping of it that plays
 * the NIC. `npm run build` builds it alone too (c/test), where it only says how to link it.
 *
 *   spin-probe spin N   spins on the page's last byte until the NIC's write at wait N, calls in,
 *                       then spins until a second write two waits later: "round1 waits=N", ...
 *   spin-probe memcpy   copies the page over and over in counting mode: "waits=0" if not taken
 *                       as a spin
 *   spin-probe null     dereferences NULL in counting mode: must die of SIGSEGV
 *   spin-probe handler  its own SIGSEGV (sigaction) and SIGTRAP (signal) handlers get their faults,
 *                       and a spin is still detected
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core.h"
#include "rocelab_proto.h"

/* Weak: resolved only when linked with spin.c and the stub. */
void rocelab_stub_land(volatile char *where, char value, unsigned at_wait);
#pragma weak rocelab_memory_shared
#pragma weak rocelab_spin_steps
#pragma weak rocelab_now_ps
#pragma weak rocelab_call
#pragma weak rocelab_stub_land

/* Copies of the page before the test gives up waiting for counting mode (~seconds of CPU). */
#define MAX_COPIES 2000000

static long page;
static char *buf;           /* the registered page, as the program sees it */
static volatile char *nic;  /* the same page, as the host maps it */

static void share(void)
{
	page = sysconf(_SC_PAGESIZE);
	int fd = memfd_create("spin-probe", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, page) != 0) {
		perror("spin-probe: memfd");
		exit(2);
	}
	buf = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	nic = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (buf == MAP_FAILED || nic == MAP_FAILED) {
		perror("spin-probe: mmap");
		exit(2);
	}
	for (long i = 0; i < page; i++)
		buf[i] = (char)(i * 7 + 3);
	buf[page - 1] = 0;
	rocelab_memory_shared((uintptr_t)buf, (uintptr_t)buf + (uintptr_t)page);
}

static void spin_until(char value)
{
	while (*(volatile char *)(buf + page - 1) != value)
		;
}

/* Copies the page until the detector has stepped `steps` accesses: counting mode was entered. */
static int copy_until_counting(uint64_t steps)
{
	static char copy[65536];
	for (long n = 0; n < MAX_COPIES; n++) {
		memcpy(copy, buf, (size_t)page);
		if (memcmp(copy, (const char *)nic, (size_t)page) != 0) {
			fprintf(stderr, "spin-probe: the copy differs from the page\n");
			return 1;
		}
		if (rocelab_spin_steps() >= steps)
			return 0;
	}
	fprintf(stderr, "spin-probe: %d copies and only %llu accesses stepped: counting mode never came\n", MAX_COPIES, (unsigned long long)rocelab_spin_steps());
	return 1;
}

static int spin(unsigned n)
{
	rocelab_stub_land(nic + page - 1, 1, n);
	spin_until(1);
	printf("round1 waits=%llu\n", (unsigned long long)rocelab_now_ps());
	rocelab_call(RL_LOG, "x", 1, -1, NULL, 0, NULL);
	rocelab_stub_land(nic + page - 1, 2, n + 2);
	spin_until(2);
	printf("round2 waits=%llu steps>=%d %s\n", (unsigned long long)rocelab_now_ps(), 2000, rocelab_spin_steps() >= 2000 ? "yes" : "no");
	return 0;
}

static sigjmp_buf back;
static volatile sig_atomic_t segv_seen, trap_seen;
static volatile void *segv_addr = (void *)1;

static void own_segv(int sig, siginfo_t *si, void *uc)
{
	segv_seen++;
	segv_addr = si->si_addr;
	siglongjmp(back, 1);
}

static void own_trap(int sig)
{
	trap_seen++;
}

static int handler(void)
{
	struct sigaction act, old;
	memset(&act, 0, sizeof(act));
	act.sa_sigaction = own_segv;
	act.sa_flags = SA_SIGINFO;
	sigemptyset(&act.sa_mask);
	/* Before the detector starts (it starts at the first registration), so it must take it over. */
	sigaction(SIGSEGV, &act, NULL);
	share();
	sigaction(SIGSEGV, NULL, &old);
	if (old.sa_sigaction != own_segv) {
		fprintf(stderr, "spin-probe: sigaction reports another SIGSEGV handler than the program's\n");
		return 1;
	}
	if (signal(SIGTRAP, own_trap) != SIG_DFL) {
		fprintf(stderr, "spin-probe: signal(SIGTRAP) reports an old handler other than SIG_DFL\n");
		return 1;
	}
	if (copy_until_counting(1) != 0)
		return 1;
	if (sigsetjmp(back, 1) == 0)
		*(volatile int *)NULL = 1;
	__asm__ volatile("int3");
	rocelab_stub_land(nic + page - 1, 1, 2);
	spin_until(1);
	printf("segv=%d addr=%p trap=%d waits=%llu\n", (int)segv_seen, (void *)segv_addr, (int)trap_seen, (unsigned long long)rocelab_now_ps());
	return 0;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!rocelab_memory_shared || !rocelab_stub_land) {
		fprintf(stderr, "spin-probe: link it with core/spin.c and test-stub/core-stub.c (packages/native/src/spin.test.ts does)\n");
		return 2;
	}
	const char *mode = argc > 1 ? argv[1] : "";
	if (strcmp(mode, "spin") == 0 && argc > 2) {
		share();
		return spin((unsigned)atoi(argv[2]));
	}
	if (strcmp(mode, "memcpy") == 0) {
		share();
		if (copy_until_counting(3000) != 0)
			return 1;
		printf("waits=%llu\n", (unsigned long long)rocelab_now_ps());
		return 0;
	}
	if (strcmp(mode, "null") == 0) {
		share();
		if (copy_until_counting(1) != 0)
			return 1;
		*(volatile int *)NULL = 1;
		return 0;
	}
	if (strcmp(mode, "handler") == 0)
		return handler();
	fprintf(stderr, "spin-probe: unknown mode '%s': expected spin N, memcpy, null or handler\n", mode);
	return 2;
}
