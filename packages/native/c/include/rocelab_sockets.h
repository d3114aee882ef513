/*
 * Sockets to pod addresses (issue 25): the messages 50..69 of the program's channel
 * (rocelab_proto.h), mirrored field for field in packages/native/src/sockets-proto.ts.
 *
 * A pod socket is an AF_INET SOCK_STREAM socket that listens, or connects to a pod host's address.
 * Its bytes travel through the emulated fabric as TCP segments between the hosts' stacks
 * (packages/host/src/streams.ts), in virtual time; the program's descriptor is a real socket that
 * is never bound or connected, so descriptor numbers and close() behave. Addresses are IPv4 in
 * host byte order; ports too.
 *
 * A blocking accept, connect, recv or send (the send buffer full) and a poll that finds nothing
 * are waits: the host answers when the condition holds, after virtual time moved on. A poll's
 * timeout is a virtual deadline.
 */
#ifndef ROCELAB_SOCKETS_H
#define ROCELAB_SOCKETS_H

#include <stdint.h>

enum rl_sock_type {
	RL_SOCK_LISTEN = 50,   /* rl_sock_listen -> rl_sock_rep (the listener, its bound address) */
	RL_SOCK_CONNECT = 51,  /* rl_sock_connect -> rl_sock_rep (the socket, its local address; flags) */
	RL_SOCK_ACCEPT = 52,   /* rl_sock_accept -> rl_sock_rep (the new socket, the peer's address) */
	RL_SOCK_SEND = 53,     /* rl_sock_io + len bytes -> rl_sock_count (bytes taken, >= 1 unless err) */
	RL_SOCK_RECV = 54,     /* rl_sock_io (len: at most) -> rl_sock_count + n bytes (n = 0: end of file) */
	RL_SOCK_SHUTDOWN = 55, /* rl_sock_shutdown */
	RL_SOCK_CLOSE = 56,    /* rl_sock_close */
	RL_SOCK_POLL = 57,     /* rl_sock_poll + n x rl_sock_pollfd -> rl_sock_count (ready) + n x rl_sock_pollfd */
	RL_SOCK_NAME = 58,     /* rl_sock_name -> rl_sock_rep (the local or the peer's address) */
	RL_SOCK_ERROR = 59,    /* rl_sock_close (the socket) -> rl_sock_count (its pending errno, cleared: SO_ERROR) */
};

/* The most bytes one SEND or RECV carries (a message is at most RL_MAX_MESSAGE). */
#define RL_SOCK_MAX_IO 65000

/* rl_sock_rep.flags */
#define RL_SOCK_PASSTHROUGH 1u /* CONNECT: not a pod address; the program's real connect() goes ahead */
#define RL_SOCK_INPROGRESS 2u  /* CONNECT (nonblock): started; poll for POLLOUT, then SO_ERROR */

/* rl_sock_pollfd events and revents: poll(2)'s values. */
#define RL_POLLIN 0x001
#define RL_POLLOUT 0x004
#define RL_POLLERR 0x008
#define RL_POLLHUP 0x010
#define RL_POLLNVAL 0x020
#define RL_POLLRDHUP 0x2000

/* RL_SOCK_POLL timeout_ps: wait without a deadline. */
#define RL_SOCK_FOREVER UINT64_MAX

struct rl_sock_listen {
	uint32_t ip;      /* 0 (INADDR_ANY) or the host's own address */
	uint32_t port;    /* 0: an ephemeral port */
	uint32_t backlog; /* accepted and ignored: the queue is unbounded */
	uint32_t pad;
};

struct rl_sock_connect {
	uint32_t bind_ip;   /* what the program bound the socket to (0: nothing) */
	uint32_t bind_port;
	uint32_t ip;        /* the destination */
	uint32_t port;
	uint32_t nonblock;  /* 1: answer at once with RL_SOCK_INPROGRESS */
	uint32_t pad;
};

struct rl_sock_rep {
	uint32_t sock; /* the host's name for the socket (never 0) */
	uint32_t ip;
	uint32_t port;
	uint32_t flags; /* RL_SOCK_* */
};

struct rl_sock_accept {
	uint32_t sock;
	uint32_t nonblock; /* 1: EAGAIN instead of a wait */
};

struct rl_sock_io {
	uint32_t sock;
	uint32_t len;
	uint32_t nonblock; /* 1: EAGAIN instead of a wait */
	uint32_t pad;
};

struct rl_sock_count {
	uint32_t n;
	uint32_t pad;
};

struct rl_sock_shutdown {
	uint32_t sock;
	uint32_t how; /* SHUT_RD 0, SHUT_WR 1, SHUT_RDWR 2 */
};

struct rl_sock_close {
	uint32_t sock;
	uint32_t pad;
};

struct rl_sock_poll {
	uint32_t n;
	uint32_t pad;
	uint64_t timeout_ps; /* 0: answer at once; RL_SOCK_FOREVER: no deadline */
};

struct rl_sock_pollfd {
	uint32_t sock;
	uint16_t events;
	uint16_t revents;
};

struct rl_sock_name {
	uint32_t sock;
	uint32_t peer; /* 0: the local address (getsockname), 1: the peer's (getpeername) */
};

/* The layout sockets-proto.ts assumes. */
_Static_assert(sizeof(struct rl_sock_listen) == 16, "rl_sock_listen");
_Static_assert(sizeof(struct rl_sock_connect) == 24, "rl_sock_connect");
_Static_assert(sizeof(struct rl_sock_rep) == 16, "rl_sock_rep");
_Static_assert(sizeof(struct rl_sock_accept) == 8, "rl_sock_accept");
_Static_assert(sizeof(struct rl_sock_io) == 16, "rl_sock_io");
_Static_assert(sizeof(struct rl_sock_count) == 8, "rl_sock_count");
_Static_assert(sizeof(struct rl_sock_shutdown) == 8, "rl_sock_shutdown");
_Static_assert(sizeof(struct rl_sock_close) == 8, "rl_sock_close");
_Static_assert(sizeof(struct rl_sock_poll) == 16, "rl_sock_poll");
_Static_assert(sizeof(struct rl_sock_pollfd) == 8, "rl_sock_pollfd");
_Static_assert(sizeof(struct rl_sock_name) == 8, "rl_sock_name");

#endif
