/*
 * The host's end of a native program's channel (issue 25): the few system calls Node has no API
 * for. A SOCK_SEQPACKET socketpair (one request or reply per packet, descriptors passed with
 * SCM_RIGHTS), a blocking receive bounded by a timeout, a blocking send, and a MAP_SHARED mapping
 * of a program's memfd exposed as an ArrayBuffer.
 *
 * Blocking is the point: the program runs in lockstep with the host's engine, which must not move
 * virtual time (or run anything else) while the program computes, so the host waits in recv().
 *
 * Errors are thrown as Error with `code` set to the errno's name ('ETIMEDOUT', 'EPIPE', ...).
 */
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHECK(env, call)                                                              \
	do {                                                                              \
		if ((call) != napi_ok) {                                                      \
			throw_status((env), #call);                                               \
			return NULL;                                                              \
		}                                                                             \
	} while (0)

/* Throws the pending N-API error (if the failing call set none, a generic one). */
static void throw_status(napi_env env, const char *what) {
	bool pending = false;
	if (napi_is_exception_pending(env, &pending) == napi_ok && pending) return;
	const napi_extended_error_info *info = NULL;
	char text[256];
	napi_get_last_error_info(env, &info);
	snprintf(text, sizeof text, "rocelab_native: %s failed: %s", what, info != NULL && info->error_message != NULL ? info->error_message : "unknown N-API error");
	napi_throw_error(env, NULL, text);
}

static const char *errno_code(int err) {
	const char *name = strerrorname_np(err);
	return name != NULL ? name : "EUNKNOWN";
}

/* Throws `rocelab_native.OP(fd N): strerror (CODE)` with err.code = CODE. */
static void *throw_errno(napi_env env, const char *op, int fd, int err) {
	char text[256];
	snprintf(text, sizeof text, "rocelab_native.%s(fd %d): %s (%s)", op, fd, strerror(err), errno_code(err));
	napi_throw_error(env, errno_code(err), text);
	return NULL;
}

static void *throw_type(napi_env env, const char *text) {
	napi_throw_type_error(env, NULL, text);
	return NULL;
}

/* Reads `argc` arguments; throws a TypeError naming the function when fewer were given. */
static int get_args(napi_env env, napi_callback_info info, size_t argc, napi_value *argv, const char *usage) {
	size_t n = argc;
	if (napi_get_cb_info(env, info, &n, argv, NULL, NULL) != napi_ok) {
		throw_status(env, "napi_get_cb_info");
		return -1;
	}
	if (n < argc) {
		throw_type(env, usage);
		return -1;
	}
	return 0;
}

static int get_int(napi_env env, napi_value v, int64_t *out, const char *usage) {
	napi_valuetype t;
	if (napi_typeof(env, v, &t) != napi_ok || t != napi_number || napi_get_value_int64(env, v, out) != napi_ok) {
		throw_type(env, usage);
		return -1;
	}
	return 0;
}

static int get_fd(napi_env env, napi_value v, int *fd, const char *usage) {
	int64_t x;
	if (get_int(env, v, &x, usage) != 0) return -1;
	if (x < 0 || x > INT32_MAX) {
		throw_type(env, usage);
		return -1;
	}
	*fd = (int)x;
	return 0;
}

static int get_bytes(napi_env env, napi_value v, uint8_t **data, size_t *len, const char *usage) {
	bool is = false;
	napi_typedarray_type type;
	void *base = NULL;
	if (napi_is_typedarray(env, v, &is) != napi_ok || !is || napi_get_typedarray_info(env, v, &type, len, &base, NULL, NULL) != napi_ok || type != napi_uint8_array) {
		throw_type(env, usage);
		return -1;
	}
	*data = base;
	return 0;
}

static napi_value make_int(napi_env env, int64_t x) {
	napi_value v;
	return napi_create_int64(env, x, &v) == napi_ok ? v : NULL;
}

/* socketpair(): [hostFd, childFd]. The host's end is close-on-exec so that no other child inherits
 * it; the child's end is not, since spawn() hands it over as fd 3 (the parent then closes it). */
static napi_value js_socketpair(napi_env env, napi_callback_info info) {
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) return throw_errno(env, "socketpair", -1, errno);
	if (fcntl(sv[1], F_SETFD, 0) != 0) {
		int err = errno;
		close(sv[0]);
		close(sv[1]);
		return throw_errno(env, "socketpair", sv[1], err);
	}
	napi_value arr, a, b;
	if (napi_create_array_with_length(env, 2, &arr) != napi_ok || (a = make_int(env, sv[0])) == NULL || (b = make_int(env, sv[1])) == NULL ||
	    napi_set_element(env, arr, 0, a) != napi_ok || napi_set_element(env, arr, 1, b) != napi_ok) {
		close(sv[0]);
		close(sv[1]);
		throw_status(env, "socketpair result");
		return NULL;
	}
	return arr;
}

static int64_t monotonic_ms(void) {
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* recv(fd, buffer, timeoutMs): {bytes, fd}. Waits at most timeoutMs (< 0: no limit) for a packet;
 * bytes 0 means the peer closed its end. A descriptor that came with the packet (SCM_RIGHTS) is
 * returned close-on-exec and owned by the caller; fd is -1 when none came. */
static napi_value js_recv(napi_env env, napi_callback_info info) {
	static const char usage[] = "rocelab_native.recv(fd, buffer, timeoutMs): expected a descriptor, a Uint8Array and a number of milliseconds";
	napi_value argv[3];
	int fd;
	uint8_t *data;
	size_t cap;
	int64_t timeout_ms;
	if (get_args(env, info, 3, argv, usage) != 0 || get_fd(env, argv[0], &fd, usage) != 0 || get_bytes(env, argv[1], &data, &cap, usage) != 0 ||
	    get_int(env, argv[2], &timeout_ms, usage) != 0)
		return NULL;

	int64_t deadline = timeout_ms >= 0 ? monotonic_ms() + timeout_ms : -1;
	for (;;) {
		int wait = -1;
		if (deadline >= 0) {
			int64_t left = deadline - monotonic_ms();
			wait = left <= 0 ? 0 : left > INT32_MAX ? INT32_MAX : (int)left;
		}
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, wait);
		if (r < 0 && errno == EINTR) continue;
		if (r < 0) return throw_errno(env, "recv", fd, errno);
		if (r == 0) {
			char text[160];
			snprintf(text, sizeof text, "rocelab_native.recv(fd %d): no packet within %lld ms (ETIMEDOUT)", fd, (long long)timeout_ms);
			napi_throw_error(env, "ETIMEDOUT", text);
			return NULL;
		}
		break;
	}

	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int) * 4)];
	} control;
	struct iovec iov = { .iov_base = data, .iov_len = cap };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf, .msg_controllen = sizeof control.buf };
	ssize_t n;
	do n = recvmsg(fd, &msg, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	while (n < 0 && errno == EINTR);
	if (n < 0) return throw_errno(env, "recv", fd, errno);

	/* Keep the first descriptor; a peer that sent more gets the rest closed rather than leaked. */
	int got = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) continue;
		size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < count; i++) {
			int d;
			memcpy(&d, CMSG_DATA(c) + i * sizeof(int), sizeof d);
			if (got < 0) got = d;
			else close(d);
		}
	}
	if (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) {
		if (got >= 0) close(got);
		char text[200];
		snprintf(text, sizeof text, "rocelab_native.recv(fd %d): a packet larger than the %zu-byte buffer (or with too many descriptors) was cut (EMSGSIZE)", fd, cap);
		napi_throw_error(env, "EMSGSIZE", text);
		return NULL;
	}

	napi_value obj, bytes, rfd;
	if (napi_create_object(env, &obj) != napi_ok || (bytes = make_int(env, n)) == NULL || (rfd = make_int(env, got)) == NULL ||
	    napi_set_named_property(env, obj, "bytes", bytes) != napi_ok || napi_set_named_property(env, obj, "fd", rfd) != napi_ok) {
		if (got >= 0) close(got);
		throw_status(env, "recv result");
		return NULL;
	}
	return obj;
}

/* send(fd, buffer): the whole buffer as one packet. MSG_NOSIGNAL: a program that died is an EPIPE
 * error for the host to handle, never a SIGPIPE that would kill the host. */
static napi_value js_send(napi_env env, napi_callback_info info) {
	static const char usage[] = "rocelab_native.send(fd, buffer): expected a descriptor and a Uint8Array";
	napi_value argv[2];
	int fd;
	uint8_t *data;
	size_t len;
	if (get_args(env, info, 2, argv, usage) != 0 || get_fd(env, argv[0], &fd, usage) != 0 || get_bytes(env, argv[1], &data, &len, usage) != 0) return NULL;
	ssize_t n;
	do n = send(fd, data, len, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0) return throw_errno(env, "send", fd, errno);
	if ((size_t)n != len) return throw_errno(env, "send", fd, EMSGSIZE); /* SEQPACKET sends all or nothing */
	return NULL;
}

static void unmap(napi_env env, void *data, void *hint) {
	munmap(data, (size_t)(uintptr_t)hint);
}

/* mapShared(fd, length): an ArrayBuffer over a MAP_SHARED mapping of the file, so that what the
 * host writes is what the program reads, in place. Takes the descriptor (closes it, whatever
 * happens); the mapping goes when the ArrayBuffer is collected. */
static napi_value js_map_shared(napi_env env, napi_callback_info info) {
	static const char usage[] = "rocelab_native.mapShared(fd, length): expected a descriptor and a length in bytes > 0";
	napi_value argv[2];
	int fd;
	int64_t length;
	if (get_args(env, info, 2, argv, usage) != 0 || get_fd(env, argv[0], &fd, usage) != 0) return NULL;
	int bad = get_int(env, argv[1], &length, usage) != 0;
	if (!bad && (length <= 0 || (uint64_t)length > SIZE_MAX)) {
		throw_type(env, usage);
		bad = 1;
	}
	if (bad) {
		close(fd);
		return NULL;
	}
	void *p = mmap(NULL, (size_t)length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	int err = errno;
	close(fd);
	if (p == MAP_FAILED) return throw_errno(env, "mapShared", fd, err);
	napi_value ab;
	if (napi_create_external_arraybuffer(env, p, (size_t)length, unmap, (void *)(uintptr_t)length, &ab) != napi_ok) {
		munmap(p, (size_t)length);
		throw_status(env, "napi_create_external_arraybuffer");
		return NULL;
	}
	return ab;
}

static napi_value js_close(napi_env env, napi_callback_info info) {
	static const char usage[] = "rocelab_native.close(fd): expected a descriptor";
	napi_value argv[1];
	int fd;
	if (get_args(env, info, 1, argv, usage) != 0 || get_fd(env, argv[0], &fd, usage) != 0) return NULL;
	/* Linux releases the descriptor even when close() reports EINTR: never retry. */
	if (close(fd) != 0 && errno != EINTR) return throw_errno(env, "close", fd, errno);
	return NULL;
}

static napi_value init(napi_env env, napi_value exports) {
	napi_property_descriptor props[] = {
		{ "socketpair", NULL, js_socketpair, NULL, NULL, NULL, napi_enumerable, NULL },
		{ "recv", NULL, js_recv, NULL, NULL, NULL, napi_enumerable, NULL },
		{ "send", NULL, js_send, NULL, NULL, NULL, napi_enumerable, NULL },
		{ "mapShared", NULL, js_map_shared, NULL, NULL, NULL, napi_enumerable, NULL },
		{ "close", NULL, js_close, NULL, NULL, NULL, napi_enumerable, NULL },
	};
	CHECK(env, napi_define_properties(env, exports, sizeof props / sizeof props[0], props));
	return exports;
}

NAPI_MODULE(rocelab_native, init)
