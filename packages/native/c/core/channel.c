/*
 * The program's end of its channel to its host (issue 25; the protocol is rocelab_proto.h).
 *
 * A constructor finds the channel (ROCELAB_CHANNEL_FD), moves it out of the program's way and says
 * HELLO; every request after that is one packet out and one packet back. The main thread speaks
 * on that channel (under a mutex, for threads that have none); a thread started through the
 * interposed pthread_create (threads.c) speaks on a channel of its own, so the host can tell which
 * threads wait and resume them one at a time. Without ROCELAB_CHANNEL_FD the program is detached and the core
 * answers from the real clock.
 *
 * The channel's own I/O goes through raw system calls: other parts of librocelab interpose libc's
 * socket, clock and descriptor calls, and the channel must never pass through them (a socket
 * interposer that asked the host would re-enter rocelab_call and deadlock on its mutex).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core.h"
#include "rocelab_proto.h"

/* Where the channel is moved: high, so that a program's own descriptors (and dup2 onto 3..9, as
 * shells and test harnesses do) do not collide with it. */
#define CHANNEL_FD_TARGET 1023
/* What a program exits with when its host is gone: EX_SOFTWARE, distinct from the usual 0/1/2. */
#define EXIT_NO_HOST 70

static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int chan = -1;
static struct rl_hello_rep host;
static uint64_t last_now_ps; /* the last reply's now_ps; read without the lock (atomics) */
static unsigned char rx[RL_MAX_MESSAGE]; /* under `lock` */
/* A thread started through the interposed pthread_create (threads.c) speaks on a channel of its
 * own: its requests need no lock, and the host sees which of the program's threads is waiting. */
static __thread int tchan = -1;
static __thread unsigned char *trx;

static void say(const char *text) {
	size_t len = strlen(text);
	while (len > 0) {
		long n = syscall(SYS_write, 2, text, len);
		if (n < 0 && errno == EINTR) continue;
		if (n <= 0) return;
		text += n;
		len -= (size_t)n;
	}
}

/* The host is gone or spoke nonsense: a program must never run on without it (its virtual time
 * would stop meaning anything), so it says why in one line and exits at once. */
static void __attribute__((noreturn, format(printf, 1, 2))) lost(const char *fmt, ...) {
	char line[512];
	int n = snprintf(line, sizeof line, "rocelab: %s (pid %d): ", program_invocation_short_name, (int)getpid());
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof line) vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
	va_end(ap);
	size_t len = strlen(line);
	snprintf(line + len, sizeof line - len, "; exiting %d: a program cannot run without its host\n", EXIT_NO_HOST);
	say(line);
	_exit(EXIT_NO_HOST);
}

static uint64_t real_now_ps(void) {
	struct timespec ts;
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) * 1000u;
}

/* One packet out on `ch` (with `fd` when >= 0), one packet back into `buf`; returns its length. */
static size_t exchange(int ch, unsigned char *buf, const struct iovec *iov, int iovcnt, int fd) {
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} out;
	struct msghdr msg = { .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)iovcnt };
	if (fd >= 0) {
		memset(&out, 0, sizeof out);
		msg.msg_control = out.buf;
		msg.msg_controllen = sizeof out.buf;
		struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof fd);
	}
	long n;
	do n = syscall(SYS_sendmsg, ch, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0) lost("the channel to its host broke while sending (%s)", strerror(errno));

	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 4)];
	} in;
	struct iovec riov = { .iov_base = buf, .iov_len = RL_MAX_MESSAGE };
	struct msghdr rmsg = { .msg_iov = &riov, .msg_iovlen = 1, .msg_control = in.buf, .msg_controllen = sizeof in.buf };
	do n = syscall(SYS_recvmsg, ch, &rmsg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0) lost("the channel to its host broke while waiting for a reply (%s)", strerror(errno));
	if (n == 0) lost("its host closed the channel");
	/* No reply carries a descriptor: one that came anyway is closed, not leaked into the program. */
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&rmsg); c != NULL; c = CMSG_NXTHDR(&rmsg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
		for (size_t i = 0; i < (c->cmsg_len - CMSG_LEN(0)) / sizeof(int); i++) {
			int d;
			memcpy(&d, CMSG_DATA(c) + i * sizeof(int), sizeof d);
			syscall(SYS_close, d);
		}
	}
	if (rmsg.msg_flags & MSG_TRUNC) lost("its host sent a reply over %d bytes (RL_MAX_MESSAGE)", RL_MAX_MESSAGE);
	return (size_t)n;
}

/* Sends `type` + body on `ch` and checks the reply's header (received into `rx_buf`); the caller
 * holds `lock` when `ch` is the program's main channel. */
static int call_on(int ch, unsigned char *rx_buf, uint32_t type, const void *req, size_t req_len, int fd_out, void *rep, size_t rep_cap, size_t *rep_len) {
	struct rl_hdr hdr = { .type = type, .len = (uint32_t)(sizeof hdr + req_len) };
	struct iovec iov[2] = { { .iov_base = &hdr, .iov_len = sizeof hdr }, { .iov_base = (void *)req, .iov_len = req_len } };
	size_t n = exchange(ch, rx_buf, iov, req_len > 0 ? 2 : 1, fd_out);
	struct rl_rep_hdr rh;
	if (n < sizeof rh) lost("its host sent a reply of %zu bytes, shorter than a reply header (%zu)", n, sizeof rh);
	memcpy(&rh, rx_buf, sizeof rh);
	if (rh.type != type) lost("its host answered request type %u with a reply of type %u (expected one reply per request, in order)", type, rh.type);
	uint64_t before = __atomic_load_n(&last_now_ps, __ATOMIC_RELAXED);
	if (rh.now_ps < before) lost("its host's virtual time went back from %llu ps to %llu ps", (unsigned long long)before, (unsigned long long)rh.now_ps);
	__atomic_store_n(&last_now_ps, rh.now_ps, __ATOMIC_RELAXED);
	size_t body = n - sizeof rh;
	size_t take = body < rep_cap ? body : rep_cap;
	if (take > 0 && rep != NULL) memcpy(rep, rx_buf + sizeof rh, take);
	if (rep_len != NULL) *rep_len = rep != NULL ? take : 0;
	return rh.err;
}

/* A fork's child must not speak on its parent's channel (their packets would interleave): it runs
 * detached. Its copy of the descriptor is closed; the parent's stays. */
static void forked_child(void) {
	if (chan >= 0) syscall(SYS_close, chan);
	chan = -1;
	if (tchan >= 0) syscall(SYS_close, tchan);
	tchan = -1;
	pthread_mutex_init(&lock, NULL);
}

static int move_high(int fd) {
	struct rlimit rl;
	long target = CHANNEL_FD_TARGET;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur - 1 < target) target = (long)rl.rlim_cur - 1;
	if (target <= fd) {
		if (syscall(SYS_fcntl, fd, F_SETFD, FD_CLOEXEC) != 0) lost("ROCELAB_CHANNEL_FD=%d: fcntl: %s", fd, strerror(errno));
		return fd;
	}
	long high = syscall(SYS_fcntl, fd, F_DUPFD_CLOEXEC, target);
	if (high < 0) lost("ROCELAB_CHANNEL_FD=%d: cannot move the channel to a high descriptor (%s)", fd, strerror(errno));
	syscall(SYS_close, fd);
	return (int)high;
}

static void setup(void) {
	const char *s = getenv("ROCELAB_CHANNEL_FD");
	if (s == NULL || *s == '\0') return;
	char *end;
	errno = 0;
	long fd = strtol(s, &end, 10);
	if (errno != 0 || *end != '\0' || fd < 0 || fd > 65535) lost("ROCELAB_CHANNEL_FD=%s: expected the number of the channel's descriptor", s);
	int type = 0;
	socklen_t tlen = sizeof type;
	if (syscall(SYS_getsockopt, (int)fd, SOL_SOCKET, SO_TYPE, &type, &tlen) != 0 || type != SOCK_SEQPACKET)
		lost("ROCELAB_CHANNEL_FD=%ld: expected an open SOCK_SEQPACKET socket (the channel its host passed), got %s", fd, type != 0 ? "another kind of socket" : strerror(errno));
	chan = move_high((int)fd);
	/* Programs it starts (a shell, a helper) run detached instead of taking fd 3 for a channel. */
	unsetenv("ROCELAB_CHANNEL_FD");
	pthread_atfork(NULL, NULL, forked_child);

	struct rl_hello hello = { .version = RL_PROTO_VERSION, .pid = (uint32_t)getpid() };
	size_t got = 0;
	int err = call_on(chan, rx, RL_HELLO, &hello, sizeof hello, -1, &host, sizeof host, &got);
	if (err != 0) lost("its host refused HELLO for protocol version %d (%s)", RL_PROTO_VERSION, strerror(err));
	if (got != sizeof host) lost("its host's HELLO reply has %zu bytes (expected %zu)", got, sizeof host);
	host.node[RL_NODE_NAME - 1] = '\0';
}

static inline void ensure(void) {
	pthread_once(&once, setup);
}

/* Early, so that HELLO goes first; librocelab's other parts call ensure() and need no order. */
__attribute__((constructor(101))) static void rocelab_channel_init(void) {
	ensure();
}

int rocelab_attached(void) {
	ensure();
	return chan >= 0;
}

int rocelab_channel_fd(void) {
	ensure();
	return chan;
}

const struct rl_hello_rep *rocelab_host(void) {
	ensure();
	return chan >= 0 ? &host : NULL;
}

int rocelab_call(uint32_t type, const void *req, size_t req_len, int fd_out, void *rep, size_t rep_cap, size_t *rep_len) {
	ensure();
	if (rep_len != NULL) *rep_len = 0;
	if (chan < 0) return ENODEV;
	if (req_len > RL_MAX_MESSAGE - sizeof(struct rl_hdr)) return EMSGSIZE;
	/* The spin detector first (it leaves counting mode, unprotecting the pages a request may name),
	 * then the clocks' count of reads with nothing else between. */
	rocelab_spin_note_call();
	rocelab_note_call();
	if (tchan >= 0) return call_on(tchan, trx, type, req, req_len, fd_out, rep, rep_cap, rep_len);
	pthread_mutex_lock(&lock);
	int err = call_on(chan, rx, type, req, req_len, fd_out, rep, rep_cap, rep_len);
	pthread_mutex_unlock(&lock);
	return err;
}

int rocelab_thread_adopt(int fd) {
	trx = malloc(RL_MAX_MESSAGE);
	if (trx == NULL) return ENOMEM;
	tchan = fd;
	return 0;
}

void rocelab_thread_release(void) {
	if (tchan < 0) return;
	/* The thread's last word, never answered: the host marks it ended and wakes its joiners. */
	struct rl_hdr hdr = { .type = RL_THREAD_EXIT, .len = sizeof hdr };
	struct iovec iov = { .iov_base = &hdr, .iov_len = sizeof hdr };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	long n;
	do n = syscall(SYS_sendmsg, tchan, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	syscall(SYS_close, tchan);
	tchan = -1;
	free(trx);
	trx = NULL;
}

int rocelab_thread_has_channel(void) {
	return tchan >= 0;
}

uint64_t rocelab_now_ps(void) {
	ensure();
	return chan >= 0 ? __atomic_load_n(&last_now_ps, __ATOMIC_RELAXED) : real_now_ps();
}

void rocelab_wait_until_ps(uint64_t ps) {
	ensure();
	if (chan < 0) {
		struct timespec at = { .tv_sec = (time_t)(ps / 1000000000000u), .tv_nsec = (long)(ps / 1000u % 1000000000u) };
		while (syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL) != 0 && errno == EINTR) {}
		return;
	}
	/* Virtual time stands still while the program runs, so an instant already reached needs no
	 * round trip. */
	if (ps <= __atomic_load_n(&last_now_ps, __ATOMIC_RELAXED)) return;
	struct rl_time t = { .ps = ps };
	int err = rocelab_call(RL_SLEEP_UNTIL, &t, sizeof t, -1, NULL, 0, NULL);
	if (err != 0) lost("its host refused a wait until %llu ps (%s)", (unsigned long long)ps, strerror(err));
}

void rocelab_wait_any(void) {
	ensure();
	if (chan < 0) {
		syscall(SYS_sched_yield);
		return;
	}
	int err = rocelab_call(RL_WAIT_ANY, NULL, 0, -1, NULL, 0, NULL);
	if (err != 0) lost("its host refused a wait (%s)", strerror(err));
}

void rocelab_wait_any_until_ps(uint64_t ps) {
	ensure();
	if (chan < 0) {
		syscall(SYS_sched_yield);
		return;
	}
	struct rl_time t = { .ps = ps };
	int err = rocelab_call(RL_WAIT_ANY, &t, sizeof t, -1, NULL, 0, NULL);
	if (err != 0) lost("its host refused a wait (%s)", strerror(err));
}

void rocelab_log(const char *fmt, ...) {
	ensure();
	if (chan < 0) return;
	char text[4096];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	if (n < 0) return;
	size_t len = (size_t)n < sizeof text ? (size_t)n : sizeof text - 1;
	while (len > 0 && text[len - 1] == '\n') len--;
	rocelab_call(RL_LOG, text, len, -1, NULL, 0, NULL);
}

int rocelab_unsupported(const char *name) {
	ensure();
	if (chan >= 0) {
		rocelab_log("%s is not supported by rocelab0", name);
		rocelab_call(RL_UNSUPPORTED, name, strnlen(name, 256), -1, NULL, 0, NULL);
	}
	errno = EOPNOTSUPP;
	return EOPNOTSUPP;
}

double rocelab_tsc_mhz(void) {
	ensure();
	return chan >= 0 && host.tsc_khz != 0 ? host.tsc_khz / 1000.0 : 2000.0;
}
