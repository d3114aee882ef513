/*
 * A program for channel.test.ts: talks to its host through the core (core.h) the way the device's
 * libraries do, and prints what it saw, one `key=value` per line.
 *
 *   channel-probe basic   HELLO's facts, a log line, a wait until 5 us, the virtual times
 *   channel-probe mr      a memfd holding "hello" registered (RL_REG_MR); prints what it holds after
 *   channel-probe hang    waits forever without asking anything (the host's timeout, kill)
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core.h"
#include "rocelab_proto.h"

static int basic(void) {
	printf("attached=%d\n", rocelab_attached());
	const struct rl_hello_rep *h = rocelab_host();
	if (h != NULL) printf("node=%s ip=%08x mac=%012" PRIx64 " mtu=%u link_bps=%" PRIu64 " host_index=%u\n", h->node, h->ip, h->mac, h->mtu, h->link_bps, h->host_index);
	else printf("host=none\n");
	printf("tsc_mhz=%.3f\n", rocelab_tsc_mhz());
	if (!rocelab_attached()) return 0;
	printf("start_ps=%" PRIu64 "\n", rocelab_now_ps());
	rocelab_log("probe %d says hello\n", 42);
	rocelab_wait_until_ps(5000000);
	printf("after_sleep_ps=%" PRIu64 "\n", rocelab_now_ps());
	/* Already reached: no request goes out. */
	rocelab_wait_until_ps(1000);
	printf("after_past_sleep_ps=%" PRIu64 "\n", rocelab_now_ps());
	printf("unsupported=%d\n", rocelab_unsupported("ibv_probe_thing"));
	return 0;
}

static int mr(void) {
	long page = sysconf(_SC_PAGESIZE);
	int fd = memfd_create("probe-mr", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, page) != 0) return perror("memfd"), 1;
	char *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) return perror("mmap"), 1;
	strcpy(p, "hello");
	struct rl_reg_mr req = { .addr = (uintptr_t)p, .length = 6, .map_start = (uintptr_t)p, .map_length = (uint64_t)page, .access = 1 };
	struct rl_reg_mr_rep rep;
	size_t len = 0;
	int err = rocelab_call(RL_REG_MR, &req, sizeof req, fd, &rep, sizeof rep, &len);
	close(fd);
	printf("reg_mr err=%d len=%zu handle=%u lkey=%u rkey=%u\n", err, len, rep.handle, rep.lkey, rep.rkey);
	printf("sees=%s\n", p);
	printf("now_ps=%" PRIu64 "\n", rocelab_now_ps());
	return 0;
}

int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IOLBF, 0);
	const char *mode = argc > 1 ? argv[1] : "basic";
	if (strcmp(mode, "basic") == 0) return basic();
	if (strcmp(mode, "mr") == 0) return mr();
	if (strcmp(mode, "hang") == 0) {
		printf("hanging\n");
		/* A raw wait that nothing in librocelab interposes: no request, no exit. */
		for (;;) syscall(SYS_pause);
	}
	fprintf(stderr, "channel-probe: expected a mode basic, mr or hang, got %s\n", mode);
	return 2;
}
