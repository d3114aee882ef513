/*
 * Sockets to pod addresses (issue 25): a program's TCP to other pod hosts (perftest's and
 * ibv_rc_pingpong's exchange of QP numbers, addresses and rkeys) goes through the emulated fabric
 * as frames, in virtual time, so it is deterministic and the same in one process and across them.
 *
 * Every AF_INET SOCK_STREAM socket a program opens under rocelab is a candidate: its descriptor is
 * a real socket (so descriptor numbers, close and fcntl behave) that is never bound or connected.
 * It becomes a pod socket when it listens (every listener is one: a program listens for its peers)
 * or connects to a pod host's address; from then on its operations are requests RL_SOCK_* to the
 * host (rocelab_sockets.h), and a blocking accept, connect, read or poll is a wait that the host
 * answers when the condition holds, after virtual time moved on. A connect to any other address
 * passes through to the real socket (the host says RL_SOCK_PASSTHROUGH): that traffic is outside
 * rocelab's control and is not reproducible.
 *
 * Limits: a poll or select that mixes pod sockets with other descriptors checks the others
 * without waiting, and then waits for the pod sockets only; dup/dup2 of a pod socket, MSG_PEEK,
 * MSG_OOB, sendmsg/recvmsg and SIGPIPE are not supported (a write after shutdown is EPIPE, no
 * signal); descriptors from 4096 up are never pod sockets.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core.h"
#include "rocelab_sockets.h"

#define MAX_FD 4096

struct psock {
	uint8_t candidate; /* an AF_INET stream socket rocelab may take over */
	uint8_t pod;       /* taken over: `sock` names it at the host */
	uint8_t nonblock;
	uint8_t bound;
	uint32_t sock;
	uint32_t bind_ip; /* host order */
	uint32_t bind_port;
};

static struct psock table[MAX_FD];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

#define REAL(ret, name, args)                                             \
	static ret(*real_##name) args;                                        \
	static ret(*get_##name(void)) args {                                  \
		if (real_##name == NULL) real_##name = (ret(*) args)dlsym(RTLD_NEXT, #name); \
		return real_##name;                                               \
	}

REAL(int, socket, (int, int, int))
REAL(int, bind, (int, const struct sockaddr *, socklen_t))
REAL(int, listen, (int, int))
REAL(int, connect, (int, const struct sockaddr *, socklen_t))
REAL(int, accept, (int, struct sockaddr *, socklen_t *))
REAL(int, accept4, (int, struct sockaddr *, socklen_t *, int))
REAL(ssize_t, read, (int, void *, size_t))
REAL(ssize_t, write, (int, const void *, size_t))
REAL(ssize_t, recv, (int, void *, size_t, int))
REAL(ssize_t, send, (int, const void *, size_t, int))
REAL(ssize_t, recvfrom, (int, void *, size_t, int, struct sockaddr *, socklen_t *))
REAL(ssize_t, sendto, (int, const void *, size_t, int, const struct sockaddr *, socklen_t))
REAL(ssize_t, readv, (int, const struct iovec *, int))
REAL(ssize_t, writev, (int, const struct iovec *, int))
REAL(int, close, (int))
REAL(int, shutdown, (int, int))
REAL(int, poll, (struct pollfd *, nfds_t, int))
REAL(int, select, (int, fd_set *, fd_set *, fd_set *, struct timeval *))
REAL(int, getsockname, (int, struct sockaddr *, socklen_t *))
REAL(int, getpeername, (int, struct sockaddr *, socklen_t *))
REAL(int, setsockopt, (int, int, int, const void *, socklen_t))
REAL(int, getsockopt, (int, int, int, void *, socklen_t *))
REAL(int, fcntl, (int, int, ...))

/* The entry of a pod socket, or NULL (the common case: every other descriptor). */
static struct psock *pod_of(int fd) {
	if (fd < 0 || fd >= MAX_FD || !table[fd].pod || !rocelab_attached()) return NULL;
	return &table[fd];
}

static struct psock *candidate_of(int fd) {
	if (fd < 0 || fd >= MAX_FD || !table[fd].candidate || !rocelab_attached()) return NULL;
	return &table[fd];
}

static void forget(int fd) {
	if (fd < 0 || fd >= MAX_FD) return;
	pthread_mutex_lock(&table_lock);
	memset(&table[fd], 0, sizeof table[fd]);
	pthread_mutex_unlock(&table_lock);
}

static void adopt(int fd, uint32_t sock, int nonblock) {
	pthread_mutex_lock(&table_lock);
	table[fd] = (struct psock){ .candidate = 1, .pod = 1, .nonblock = (uint8_t)(nonblock != 0), .sock = sock };
	pthread_mutex_unlock(&table_lock);
}

/* errno from a host's answer; -1 when it is not 0. */
static int fail(int err) {
	errno = err;
	return -1;
}

static void fill_addr(struct sockaddr *addr, socklen_t *len, uint32_t ip, uint32_t port) {
	if (addr == NULL || len == NULL) return;
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port), .sin_addr.s_addr = htonl(ip) };
	socklen_t n = *len < sizeof in ? *len : (socklen_t)sizeof in;
	memcpy(addr, &in, n);
	*len = sizeof in;
}

int socket(int domain, int type, int protocol) {
	int fd = get_socket()(domain, type, protocol);
	if (fd < 0 || !rocelab_attached()) return fd;
	int base = type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (domain == AF_INET && base == SOCK_STREAM && (protocol == 0 || protocol == IPPROTO_TCP)) {
		if (fd >= MAX_FD) {
			rocelab_log("socket: descriptor %d is past %d: it stays a real socket (not reproducible)", fd, MAX_FD);
			return fd;
		}
		pthread_mutex_lock(&table_lock);
		table[fd] = (struct psock){ .candidate = 1, .nonblock = (uint8_t)((type & SOCK_NONBLOCK) != 0) };
		pthread_mutex_unlock(&table_lock);
	}
	return fd;
}

int bind(int fd, const struct sockaddr *addr, socklen_t len) {
	struct psock *p = candidate_of(fd);
	if (p == NULL) return get_bind()(fd, addr, len);
	if (p->pod) return fail(EINVAL);
	if (addr == NULL || len < sizeof(struct sockaddr_in) || addr->sa_family != AF_INET) return fail(EINVAL);
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
	/* Checked when the socket listens or connects (EADDRNOTAVAIL, EADDRINUSE there). */
	p->bind_ip = ntohl(in->sin_addr.s_addr);
	p->bind_port = ntohs(in->sin_port);
	p->bound = 1;
	return 0;
}

int listen(int fd, int backlog) {
	struct psock *p = candidate_of(fd);
	if (p == NULL) return get_listen()(fd, backlog);
	if (p->pod) return 0;
	struct rl_sock_listen req = { .ip = p->bind_ip, .port = p->bind_port, .backlog = backlog < 0 ? 0u : (uint32_t)backlog };
	struct rl_sock_rep rep;
	int err = rocelab_call(RL_SOCK_LISTEN, &req, sizeof req, -1, &rep, sizeof rep, NULL);
	if (err != 0) return fail(err);
	p->pod = 1;
	p->sock = rep.sock;
	p->bind_port = rep.port;
	return 0;
}

int connect(int fd, const struct sockaddr *addr, socklen_t len) {
	struct psock *p = candidate_of(fd);
	if (p == NULL || addr == NULL || addr->sa_family != AF_INET || len < sizeof(struct sockaddr_in)) return get_connect()(fd, addr, len);
	if (p->pod) return fail(EISCONN);
	const struct sockaddr_in *in = (const struct sockaddr_in *)addr;
	struct rl_sock_connect req = { .bind_ip = p->bind_ip, .bind_port = p->bind_port, .ip = ntohl(in->sin_addr.s_addr), .port = ntohs(in->sin_port), .nonblock = p->nonblock };
	struct rl_sock_rep rep = { 0 };
	int err = rocelab_call(RL_SOCK_CONNECT, &req, sizeof req, -1, &rep, sizeof rep, NULL);
	if (err == 0 && (rep.flags & RL_SOCK_PASSTHROUGH) != 0) {
		struct sockaddr_in local = { .sin_family = AF_INET, .sin_port = htons((uint16_t)p->bind_port), .sin_addr.s_addr = htonl(p->bind_ip) };
		int bound = p->bound;
		forget(fd);
		if (bound && get_bind()(fd, (struct sockaddr *)&local, sizeof local) != 0) return -1;
		return get_connect()(fd, addr, len);
	}
	if (rep.sock != 0) {
		/* The socket is the program's whether the connect worked or not, until it closes it. */
		p->sock = rep.sock;
		p->pod = 1;
		p->bind_port = rep.port;
	}
	if (err != 0) return fail(err);
	if ((rep.flags & RL_SOCK_INPROGRESS) != 0) return fail(EINPROGRESS);
	return 0;
}

static int pod_accept(struct psock *p, struct sockaddr *addr, socklen_t *len, int flags) {
	struct rl_sock_accept req = { .sock = p->sock, .nonblock = p->nonblock };
	struct rl_sock_rep rep;
	int err = rocelab_call(RL_SOCK_ACCEPT, &req, sizeof req, -1, &rep, sizeof rep, NULL);
	if (err != 0) return fail(err);
	/* A real descriptor for it, never bound or connected. */
	int fd = get_socket()(AF_INET, SOCK_STREAM | (flags & (SOCK_NONBLOCK | SOCK_CLOEXEC)), 0);
	if (fd < 0 || fd >= MAX_FD) {
		struct rl_sock_close c = { .sock = rep.sock };
		rocelab_call(RL_SOCK_CLOSE, &c, sizeof c, -1, NULL, 0, NULL);
		if (fd >= 0) get_close()(fd);
		return fail(fd < 0 ? errno : EMFILE);
	}
	adopt(fd, rep.sock, flags & SOCK_NONBLOCK);
	fill_addr(addr, len, rep.ip, rep.port);
	return fd;
}

int accept(int fd, struct sockaddr *addr, socklen_t *len) {
	struct psock *p = pod_of(fd);
	return p == NULL ? get_accept()(fd, addr, len) : pod_accept(p, addr, len, 0);
}

int accept4(int fd, struct sockaddr *addr, socklen_t *len, int flags) {
	struct psock *p = pod_of(fd);
	return p == NULL ? get_accept4()(fd, addr, len, flags) : pod_accept(p, addr, len, flags);
}

/* One RECV: at most RL_SOCK_MAX_IO bytes; 0 at end of file. */
static ssize_t pod_recv_once(struct psock *p, void *buf, size_t len, int nonblock) {
	size_t want = len < RL_SOCK_MAX_IO ? len : RL_SOCK_MAX_IO;
	struct rl_sock_io req = { .sock = p->sock, .len = (uint32_t)want, .nonblock = (uint32_t)nonblock };
	size_t cap = sizeof(struct rl_sock_count) + want, got = 0;
	uint8_t *rep = malloc(cap);
	if (rep == NULL) return fail(ENOMEM);
	int err = rocelab_call(RL_SOCK_RECV, &req, sizeof req, -1, rep, cap, &got);
	if (err != 0) {
		free(rep);
		return fail(err);
	}
	uint32_t n = ((struct rl_sock_count *)rep)->n;
	if (n > want || sizeof(struct rl_sock_count) + n > got) n = 0;
	memcpy(buf, rep + sizeof(struct rl_sock_count), n);
	free(rep);
	return (ssize_t)n;
}

static ssize_t pod_recv(struct psock *p, void *buf, size_t len, int flags) {
	if ((flags & (MSG_PEEK | MSG_OOB)) != 0) {
		rocelab_unsupported((flags & MSG_PEEK) != 0 ? "recv(MSG_PEEK) on a pod socket" : "recv(MSG_OOB) on a pod socket");
		return -1;
	}
	int nonblock = p->nonblock || (flags & MSG_DONTWAIT) != 0;
	if (len == 0) return 0;
	if ((flags & MSG_WAITALL) == 0 || nonblock) return pod_recv_once(p, buf, len, nonblock);
	size_t done = 0;
	while (done < len) {
		ssize_t n = pod_recv_once(p, (uint8_t *)buf + done, len - done, 0);
		if (n < 0) return done > 0 ? (ssize_t)done : -1;
		if (n == 0) break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

/* A blocking send takes everything (in RL_SOCK_MAX_IO pieces, waiting for room); a nonblocking one what fits now. */
static ssize_t pod_send(struct psock *p, const void *buf, size_t len, int flags) {
	int nonblock = p->nonblock || (flags & MSG_DONTWAIT) != 0;
	size_t done = 0;
	uint8_t *req = malloc(sizeof(struct rl_sock_io) + (len < RL_SOCK_MAX_IO ? len : RL_SOCK_MAX_IO));
	if (req == NULL) return fail(ENOMEM);
	do {
		size_t piece = len - done < RL_SOCK_MAX_IO ? len - done : RL_SOCK_MAX_IO;
		struct rl_sock_io io = { .sock = p->sock, .len = (uint32_t)piece, .nonblock = (uint32_t)nonblock };
		memcpy(req, &io, sizeof io);
		memcpy(req + sizeof io, (const uint8_t *)buf + done, piece);
		struct rl_sock_count rep = { 0 };
		int err = rocelab_call(RL_SOCK_SEND, req, sizeof io + piece, -1, &rep, sizeof rep, NULL);
		if (err != 0) {
			free(req);
			return done > 0 ? (ssize_t)done : fail(err);
		}
		done += rep.n;
		if (nonblock && rep.n < piece) break;
	} while (done < len);
	free(req);
	return (ssize_t)done;
}

ssize_t read(int fd, void *buf, size_t len) {
	struct psock *p = pod_of(fd);
	return p == NULL ? get_read()(fd, buf, len) : pod_recv(p, buf, len, 0);
}

ssize_t write(int fd, const void *buf, size_t len) {
	struct psock *p = pod_of(fd);
	return p == NULL ? get_write()(fd, buf, len) : pod_send(p, buf, len, 0);
}

ssize_t recv(int fd, void *buf, size_t len, int flags) {
	struct psock *p = pod_of(fd);
	return p == NULL ? get_recv()(fd, buf, len, flags) : pod_recv(p, buf, len, flags);
}

ssize_t send(int fd, const void *buf, size_t len, int flags) {
	struct psock *p = pod_of(fd);
	return p == NULL ? get_send()(fd, buf, len, flags) : pod_send(p, buf, len, flags);
}

ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr, socklen_t *alen) {
	struct psock *p = pod_of(fd);
	if (p == NULL) return get_recvfrom()(fd, buf, len, flags, addr, alen);
	if (alen != NULL) *alen = 0; /* a connected stream says nothing of the source */
	return pod_recv(p, buf, len, flags);
}

ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr, socklen_t alen) {
	struct psock *p = pod_of(fd);
	return p == NULL ? get_sendto()(fd, buf, len, flags, addr, alen) : pod_send(p, buf, len, flags);
}

ssize_t readv(int fd, const struct iovec *iov, int n) {
	struct psock *p = pod_of(fd);
	if (p == NULL) return get_readv()(fd, iov, n);
	size_t total = 0;
	for (int i = 0; i < n; i++) total += iov[i].iov_len;
	uint8_t *tmp = malloc(total > 0 ? total : 1);
	if (tmp == NULL) return fail(ENOMEM);
	ssize_t got = pod_recv(p, tmp, total, 0);
	for (ssize_t at = 0, i = 0; got > 0 && at < got; i++) {
		size_t part = iov[i].iov_len < (size_t)(got - at) ? iov[i].iov_len : (size_t)(got - at);
		memcpy(iov[i].iov_base, tmp + at, part);
		at += (ssize_t)part;
	}
	free(tmp);
	return got;
}

ssize_t writev(int fd, const struct iovec *iov, int n) {
	struct psock *p = pod_of(fd);
	if (p == NULL) return get_writev()(fd, iov, n);
	size_t total = 0;
	for (int i = 0; i < n; i++) total += iov[i].iov_len;
	uint8_t *tmp = malloc(total > 0 ? total : 1);
	if (tmp == NULL) return fail(ENOMEM);
	for (size_t at = 0, i = 0; at < total; i++) {
		memcpy(tmp + at, iov[i].iov_base, iov[i].iov_len);
		at += iov[i].iov_len;
	}
	ssize_t sent = pod_send(p, tmp, total, 0);
	free(tmp);
	return sent;
}

int close(int fd) {
	/* The channel to the host is not the program's to close (it would cut itself off). */
	if (rocelab_attached() && fd == rocelab_channel_fd()) return fail(EBADF);
	struct psock *p = pod_of(fd);
	if (p != NULL) {
		struct rl_sock_close req = { .sock = p->sock };
		rocelab_call(RL_SOCK_CLOSE, &req, sizeof req, -1, NULL, 0, NULL);
	}
	if (fd >= 0 && fd < MAX_FD && table[fd].candidate) forget(fd);
	return get_close()(fd);
}

int shutdown(int fd, int how) {
	struct psock *p = pod_of(fd);
	if (p == NULL) return get_shutdown()(fd, how);
	struct rl_sock_shutdown req = { .sock = p->sock, .how = (uint32_t)how };
	int err = rocelab_call(RL_SOCK_SHUTDOWN, &req, sizeof req, -1, NULL, 0, NULL);
	return err == 0 ? 0 : fail(err);
}

/* The pod sockets of `fds` polled at the host; `timeout_ps` 0 answers at once. Fills their revents; how many are ready. */
static int pod_poll(struct pollfd *fds, nfds_t n, uint64_t timeout_ps) {
	uint32_t count = 0;
	for (nfds_t i = 0; i < n; i++) count += pod_of(fds[i].fd) != NULL;
	size_t len = sizeof(struct rl_sock_poll) + count * sizeof(struct rl_sock_pollfd);
	uint8_t *req = malloc(len);
	uint8_t *rep = malloc(sizeof(struct rl_sock_count) + count * sizeof(struct rl_sock_pollfd));
	if (req == NULL || rep == NULL) {
		free(req);
		free(rep);
		return fail(ENOMEM);
	}
	struct rl_sock_poll head = { .n = count, .timeout_ps = timeout_ps };
	memcpy(req, &head, sizeof head);
	struct rl_sock_pollfd *out = (struct rl_sock_pollfd *)(req + sizeof head);
	for (nfds_t i = 0, k = 0; i < n; i++) {
		struct psock *p = pod_of(fds[i].fd);
		if (p != NULL) out[k++] = (struct rl_sock_pollfd){ .sock = p->sock, .events = (uint16_t)fds[i].events };
	}
	int err = rocelab_call(RL_SOCK_POLL, req, len, -1, rep, sizeof(struct rl_sock_count) + count * sizeof(struct rl_sock_pollfd), NULL);
	int ready = 0;
	if (err == 0) {
		const struct rl_sock_pollfd *in = (const struct rl_sock_pollfd *)(rep + sizeof(struct rl_sock_count));
		for (nfds_t i = 0, k = 0; i < n; i++) {
			if (pod_of(fds[i].fd) == NULL) continue;
			fds[i].revents = (short)in[k++].revents;
			ready += fds[i].revents != 0;
		}
	}
	free(req);
	free(rep);
	return err == 0 ? ready : fail(err);
}

int poll(struct pollfd *fds, nfds_t n, int timeout_ms) {
	int pods = 0, others = 0;
	for (nfds_t i = 0; i < n; i++) {
		if (pod_of(fds[i].fd) != NULL) pods++;
		else if (fds[i].fd >= 0) others++;
	}
	if (pods == 0) return get_poll()(fds, n, timeout_ms);
	int ready_others = 0;
	if (others > 0) {
		/* The other descriptors are looked at without waiting: only the pod sockets can wake a wait. */
		struct pollfd *copy = malloc(n * sizeof *copy);
		if (copy == NULL) return fail(ENOMEM);
		for (nfds_t i = 0; i < n; i++) copy[i] = (struct pollfd){ .fd = pod_of(fds[i].fd) != NULL ? -1 : fds[i].fd, .events = fds[i].events };
		ready_others = get_poll()(copy, n, 0);
		for (nfds_t i = 0; i < n; i++) if (pod_of(fds[i].fd) == NULL) fds[i].revents = copy[i].revents;
		free(copy);
		if (ready_others < 0) return -1;
	}
	uint64_t timeout_ps = ready_others > 0 || timeout_ms == 0 ? 0 : timeout_ms < 0 ? RL_SOCK_FOREVER : (uint64_t)timeout_ms * 1000000000ull;
	int ready = pod_poll(fds, n, timeout_ps);
	return ready < 0 ? -1 : ready + ready_others;
}

int select(int nfds, fd_set *rd, fd_set *wr, fd_set *ex, struct timeval *tv) {
	int pods = 0;
	for (int fd = 0; fd < nfds && fd < MAX_FD; fd++) if (pod_of(fd) != NULL && ((rd != NULL && FD_ISSET(fd, rd)) || (wr != NULL && FD_ISSET(fd, wr)))) pods++;
	if (pods == 0) return get_select()(nfds, rd, wr, ex, tv);
	struct pollfd *fds = calloc((size_t)nfds, sizeof *fds);
	if (fds == NULL) return fail(ENOMEM);
	nfds_t n = 0;
	for (int fd = 0; fd < nfds; fd++) {
		short ev = (short)((rd != NULL && FD_ISSET(fd, rd) ? POLLIN : 0) | (wr != NULL && FD_ISSET(fd, wr) ? POLLOUT : 0) | (ex != NULL && FD_ISSET(fd, ex) ? POLLPRI : 0));
		if (ev != 0) fds[n++] = (struct pollfd){ .fd = fd, .events = ev };
	}
	int timeout_ms = tv == NULL ? -1 : (int)(tv->tv_sec * 1000 + tv->tv_usec / 1000);
	int r = poll(fds, n, timeout_ms);
	if (r >= 0) {
		r = 0;
		if (rd != NULL) FD_ZERO(rd);
		if (wr != NULL) FD_ZERO(wr);
		if (ex != NULL) FD_ZERO(ex);
		for (nfds_t i = 0; i < n; i++) {
			if (rd != NULL && (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) && (fds[i].events & POLLIN)) FD_SET(fds[i].fd, rd), r++;
			if (wr != NULL && (fds[i].revents & (POLLOUT | POLLERR)) && (fds[i].events & POLLOUT)) FD_SET(fds[i].fd, wr), r++;
			if (ex != NULL && (fds[i].revents & POLLPRI)) FD_SET(fds[i].fd, ex), r++;
		}
		if (tv != NULL) tv->tv_sec = 0, tv->tv_usec = 0;
	}
	free(fds);
	return r;
}

static int pod_name(struct psock *p, int peer, struct sockaddr *addr, socklen_t *len) {
	struct rl_sock_name req = { .sock = p->sock, .peer = (uint32_t)peer };
	struct rl_sock_rep rep;
	int err = rocelab_call(RL_SOCK_NAME, &req, sizeof req, -1, &rep, sizeof rep, NULL);
	if (err != 0) return fail(err);
	fill_addr(addr, len, rep.ip, rep.port);
	return 0;
}

int getsockname(int fd, struct sockaddr *addr, socklen_t *len) {
	struct psock *p = candidate_of(fd);
	if (p == NULL) return get_getsockname()(fd, addr, len);
	if (p->pod) return pod_name(p, 0, addr, len);
	fill_addr(addr, len, p->bind_ip, p->bind_port);
	return 0;
}

int getpeername(int fd, struct sockaddr *addr, socklen_t *len) {
	struct psock *p = pod_of(fd);
	return p == NULL ? get_getpeername()(fd, addr, len) : pod_name(p, 1, addr, len);
}

int setsockopt(int fd, int level, int name, const void *value, socklen_t len) {
	struct psock *p = candidate_of(fd);
	if (p == NULL) return get_setsockopt()(fd, level, name, value, len);
	/* SO_REUSEADDR, TCP_NODELAY, buffer sizes, keepalives: nothing to do here. The real socket
	 * takes them too, for a candidate whose connect may yet pass through. */
	if (!p->pod) get_setsockopt()(fd, level, name, value, len);
	return 0;
}

int getsockopt(int fd, int level, int name, void *value, socklen_t *len) {
	struct psock *p = pod_of(fd);
	if (p == NULL || level != SOL_SOCKET || name != SO_ERROR || value == NULL || len == NULL || *len < sizeof(int)) return get_getsockopt()(fd, level, name, value, len);
	struct rl_sock_close req = { .sock = p->sock };
	struct rl_sock_count rep = { 0 };
	int err = rocelab_call(RL_SOCK_ERROR, &req, sizeof req, -1, &rep, sizeof rep, NULL);
	if (err != 0) return fail(err);
	*(int *)value = (int)rep.n;
	*len = sizeof(int);
	return 0;
}

/* O_NONBLOCK on a candidate or pod socket is remembered (and set on the real descriptor too). */
static int do_fcntl(int fd, int cmd, long arg) {
	int r = get_fcntl()(fd, cmd, arg);
	struct psock *p = candidate_of(fd);
	if (r == 0 && p != NULL && cmd == F_SETFL) p->nonblock = (uint8_t)((arg & O_NONBLOCK) != 0);
	return r;
}

int fcntl(int fd, int cmd, ...) {
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long); /* every fcntl argument is an int, a long or a pointer: one register */
	va_end(ap);
	return do_fcntl(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...) {
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	return do_fcntl(fd, cmd, arg);
}
