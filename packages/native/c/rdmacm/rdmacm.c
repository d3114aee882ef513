/*
 * librdmacm.so.1 for rocelab0 (issue 25): the connection manager, in the program.
 *
 * The connection exchange travels through the emulated fabric, over the pod's byte streams that
 * sockets use (sockets.c): an rdma_cm id's rdma_connect opens a pod TCP connection to the peer's
 * address on the rdma_cm port itself (rdma_cm port P is TCP port P: the port the server
 * rdma_listen()s on), and sends a REQ (its QP number, starting PSN, responder resources, initiator
 * depth, private data). The listener's side turns it into RDMA_CM_EVENT_CONNECT_REQUEST on a new
 * id; rdma_accept moves its QP to RTR and RTS (ibv_modify_qp, our verbs) and answers REP; the
 * active side moves its QP likewise, answers RTU and both get ESTABLISHED. rdma_disconnect moves
 * the QP to ERR (its receives flush) and sends DREQ; the peer answers DREP and both get
 * DISCONNECTED. A connection that closes (the peer destroyed its id or exited) is DISCONNECTED too.
 * So the exchange costs the fabric's time and shows in the trace and in --pcap, like perftest's.
 *
 * Address and route resolution are immediate: the source is the host's own address, a route is
 * the fabric's. rdma_get_cm_event polls its ids' sockets and, finding nothing, waits at the host
 * (rocelab_yield with RL_YIELD_SEEN) until a socket has news or another thread queued an event, so
 * virtual time moves while a CM thread waits. Ids without a channel (rdma_create_ep) are
 * synchronous, as in rdma-core: each call waits for its own event.
 *
 * Limits: IPv4 (AF_INET) and RDMA_PS_TCP with RC QPs only; no UD, multicast, SRQ via rdma_cm,
 * rsockets or ECE (they fail with EOPNOTSUPP and a log line); the event channel's descriptor never
 * becomes readable (a program that polls it instead of calling rdma_get_cm_event waits forever);
 * rdma_cm ports and the program's own TCP ports share one space per host.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "core.h"

#define EXPORT __attribute__((visibility("default")))

/* The exchange's messages: one fixed-size record each way, little-endian. */
#define CM_MAGIC 0x524c434du /* "RLCM" */
#define CM_PDATA 224 /* the most private data a REQ carries (IB CM: 56 in a REQ, 196 in a REP; RoCE more) */

enum cm_type { CM_REQ = 1, CM_REP = 2, CM_RTU = 3, CM_REJ = 4, CM_DREQ = 5, CM_DREP = 6 };

struct cm_msg {
	uint32_t magic;
	uint32_t type;
	uint32_t qpn;
	uint32_t psn;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
	uint32_t pdata_len;
	uint8_t pdata[CM_PDATA];
};

enum cm_state {
	ST_IDLE,
	ST_ADDR,       /* address resolved */
	ST_ROUTE,      /* route resolved */
	ST_LISTEN,
	ST_CONNECTING, /* REQ sent, waiting for REP */
	ST_REQ_RCVD,   /* a listener's new id: REQ received, not yet accepted */
	ST_REP_RCVD,   /* REP received on an id without a QP: rdma_establish sends RTU */
	ST_ACCEPTING,  /* REP sent, waiting for RTU */
	ST_CONNECTED,
	ST_DISC_SENT,  /* DREQ sent, waiting for DREP */
	ST_DISC_RCVD,  /* DREQ received (DREP sent) */
	ST_DISCONNECTED,
};

struct cm_channel;

struct cm_id {
	struct rdma_cm_id id; /* first: the program's pointer */
	struct cm_channel *chan;
	struct cm_id *next; /* on chan's list */
	int sync;
	enum cm_state state;
	int sock; /* the pod socket: the listener, or the connection; -1 */
	struct ibv_qp_init_attr *qp_init_attr; /* rdma_create_ep passive: what rdma_get_request creates */
	int own_cqs;
	uint32_t qpn; /* the QP number the exchange names (id->qp's, or conn_param->qp_num) */
	uint32_t psn;
	uint32_t peer_qpn;
	uint32_t peer_psn;
	uint8_t responder_resources;
	uint8_t initiator_depth;
	uint8_t retry_count;
	uint8_t rnr_retry_count;
};

struct cm_event {
	struct rdma_cm_event e; /* first: the program's pointer */
	struct cm_event *next;
	uint8_t pdata[CM_PDATA];
};

struct cm_channel {
	struct rdma_event_channel ch; /* first: the program's pointer */
	int private_; /* made for a synchronous id: destroyed with it */
	struct cm_id *ids;
	struct cm_event *head, *tail;
};

/* Lists and queues; never held across a wait (the host resumes one thread at a time). */
static pthread_mutex_t cm_lock = PTHREAD_MUTEX_INITIALIZER;
static struct ibv_context *device_ctx;
static struct ibv_pd *default_pd;

static int fail(int err) {
	errno = err;
	return -1;
}

/* The one device, opened once for every id (rdma_get_devices lists it). */
static struct ibv_context *device(void) {
	pthread_mutex_lock(&cm_lock);
	if (device_ctx == NULL) {
		int n = 0;
		struct ibv_device **list = ibv_get_device_list(&n);
		if (list != NULL && n > 0) device_ctx = ibv_open_device(list[0]);
		if (list != NULL) ibv_free_device_list(list);
	}
	pthread_mutex_unlock(&cm_lock);
	return device_ctx;
}

static struct ibv_pd *pd_of_device(void) {
	struct ibv_context *ctx = device();
	if (ctx == NULL) return NULL;
	pthread_mutex_lock(&cm_lock);
	if (default_pd == NULL) default_pd = ibv_alloc_pd(ctx);
	pthread_mutex_unlock(&cm_lock);
	return default_pd;
}

static struct cm_id *priv(struct rdma_cm_id *id) {
	return (struct cm_id *)id;
}

static uint32_t ip_of(const struct sockaddr *sa) {
	return ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);
}

static uint16_t port_of(const struct sockaddr *sa) {
	return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

static void set_sin(struct sockaddr_in *sin, uint32_t ip, uint16_t port) {
	memset(sin, 0, sizeof *sin);
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(ip);
	sin->sin_port = htons(port);
}

/* A deterministic starting PSN (what ibv_rc_pingpong draws at random), chosen when the id is
 * made: a program that moves its own QP (rdma_init_qp_attr) before rdma_accept needs it then. */
static uint32_t next_psn_seed;
static uint32_t psn_for(uint32_t seed) {
	return (seed * 2654435761u) & 0xffffffu;
}

/* ---- channels and events ---------------------------------------------------------------- */

static struct cm_channel *new_channel(int private_) {
	struct cm_channel *c = calloc(1, sizeof *c);
	if (c == NULL) return NULL;
	/* A real descriptor (programs keep it, some set O_NONBLOCK on it); it never becomes readable. */
	c->ch.fd = eventfd(0, EFD_CLOEXEC);
	if (c->ch.fd < 0) {
		free(c);
		return NULL;
	}
	c->private_ = private_;
	return c;
}

static void attach(struct cm_id *p, struct cm_channel *c) {
	pthread_mutex_lock(&cm_lock);
	p->chan = c;
	p->id.channel = &c->ch;
	p->next = c->ids;
	c->ids = p;
	pthread_mutex_unlock(&cm_lock);
}

static void detach(struct cm_id *p) {
	pthread_mutex_lock(&cm_lock);
	struct cm_channel *c = p->chan;
	if (c != NULL) {
		for (struct cm_id **at = &c->ids; *at != NULL; at = &(*at)->next) {
			if (*at == p) {
				*at = p->next;
				break;
			}
		}
	}
	p->chan = NULL;
	p->next = NULL;
	pthread_mutex_unlock(&cm_lock);
}

/* Queues an event for `p` on its channel and wakes a thread waiting in rdma_get_cm_event. */
static void queue(struct cm_id *p, struct cm_id *listen, enum rdma_cm_event_type type, int status, const struct cm_msg *m) {
	struct cm_event *ev = calloc(1, sizeof *ev);
	if (ev == NULL) {
		rocelab_log("rdma_cm: out of memory queueing %s: the event is lost", rdma_event_str(type));
		return;
	}
	ev->e.id = &p->id;
	ev->e.listen_id = listen != NULL ? &listen->id : NULL;
	ev->e.event = type;
	ev->e.status = status;
	if (m != NULL) {
		struct rdma_conn_param *c = &ev->e.param.conn;
		uint32_t len = m->pdata_len < CM_PDATA ? m->pdata_len : CM_PDATA;
		memcpy(ev->pdata, m->pdata, len);
		c->private_data = len > 0 ? ev->pdata : NULL;
		c->private_data_len = (uint8_t)(len > 255 ? 255 : len);
		/* The peer's initiator depth is what this side must answer as responder, and back. */
		c->responder_resources = m->initiator_depth;
		c->initiator_depth = m->responder_resources;
		c->retry_count = m->retry_count;
		c->rnr_retry_count = m->rnr_retry_count;
		c->qp_num = m->qpn;
	}
	pthread_mutex_lock(&cm_lock);
	struct cm_channel *c = p->chan;
	if (c == NULL) {
		pthread_mutex_unlock(&cm_lock);
		free(ev);
		return;
	}
	if (c->tail != NULL) c->tail->next = ev;
	else c->head = ev;
	c->tail = ev;
	pthread_mutex_unlock(&cm_lock);
	rocelab_wake();
}

static int send_msg(struct cm_id *p, uint32_t type, const void *pdata, size_t pdata_len) {
	if (p->sock < 0) return ENOTCONN;
	struct cm_msg m = { .magic = CM_MAGIC, .type = type, .qpn = p->qpn, .psn = p->psn, .responder_resources = p->responder_resources, .initiator_depth = p->initiator_depth, .retry_count = p->retry_count, .rnr_retry_count = p->rnr_retry_count };
	if (pdata_len > CM_PDATA) return EINVAL;
	if (pdata != NULL && pdata_len > 0) memcpy(m.pdata, pdata, pdata_len);
	m.pdata_len = (uint32_t)pdata_len;
	ssize_t n = send(p->sock, &m, sizeof m, 0);
	return n == (ssize_t)sizeof m ? 0 : (n < 0 ? errno : EIO);
}

static void close_sock(struct cm_id *p) {
	if (p->sock >= 0) close(p->sock);
	p->sock = -1;
}

/* ---- QP attributes ----------------------------------------------------------------------- */

static enum ibv_mtu active_mtu(void) {
	struct ibv_port_attr attr;
	struct ibv_context *ctx = device();
	if (ctx == NULL || ibv_query_port(ctx, 1, &attr) != 0) return IBV_MTU_1024;
	return attr.active_mtu;
}

static uint32_t peer_ip(struct cm_id *p) {
	return ip_of(&p->id.route.addr.dst_addr);
}

EXPORT int rdma_init_qp_attr(struct rdma_cm_id *id, struct ibv_qp_attr *attr, int *mask)
{
	struct cm_id *p = priv(id);
	enum ibv_qp_state want = attr->qp_state;
	memset(attr, 0, sizeof *attr);
	attr->qp_state = want;
	switch (want) {
	case IBV_QPS_INIT:
		attr->pkey_index = 0;
		attr->port_num = 1;
		attr->qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
		*mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS;
		return 0;
	case IBV_QPS_RTR: {
		if (p->state < ST_CONNECTING) return fail(EINVAL);
		attr->path_mtu = active_mtu();
		attr->dest_qp_num = p->peer_qpn;
		attr->rq_psn = p->peer_psn;
		attr->max_dest_rd_atomic = p->responder_resources > 0 ? p->responder_resources : 1;
		attr->min_rnr_timer = 12;
		attr->ah_attr.is_global = 1;
		attr->ah_attr.port_num = 1;
		attr->ah_attr.grh.hop_limit = 64;
		attr->ah_attr.grh.sgid_index = 0;
		uint32_t ip = htonl(peer_ip(p));
		memset(attr->ah_attr.grh.dgid.raw, 0, 10);
		attr->ah_attr.grh.dgid.raw[10] = 0xff;
		attr->ah_attr.grh.dgid.raw[11] = 0xff;
		memcpy(&attr->ah_attr.grh.dgid.raw[12], &ip, 4);
		*mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		return 0;
	}
	case IBV_QPS_RTS:
		if (p->state < ST_CONNECTING) return fail(EINVAL);
		attr->timeout = 14;
		attr->retry_cnt = p->retry_count;
		attr->rnr_retry = p->rnr_retry_count;
		attr->sq_psn = p->psn;
		attr->max_rd_atomic = p->initiator_depth > 0 ? p->initiator_depth : 1;
		*mask = IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC;
		return 0;
	case IBV_QPS_ERR:
	case IBV_QPS_RESET:
		*mask = IBV_QP_STATE;
		return 0;
	default:
		return fail(EINVAL);
	}
}

static int move_qp(struct cm_id *p, enum ibv_qp_state to) {
	struct ibv_qp_attr attr = { .qp_state = to };
	int mask = 0;
	if (rdma_init_qp_attr(&p->id, &attr, &mask) != 0) return errno;
	return ibv_modify_qp(p->id.qp, &attr, mask);
}

/* RTR then RTS, from what the peer sent. */
static int connect_qp(struct cm_id *p) {
	int err = move_qp(p, IBV_QPS_RTR);
	if (err == 0) err = move_qp(p, IBV_QPS_RTS);
	if (err != 0) rocelab_log("rdma_cm: moving QP %u to RTR/RTS for peer QP %u failed (%s)", p->qpn, p->peer_qpn, strerror(err));
	return err;
}

/* ---- the exchange, as rdma_get_cm_event finds it on the sockets --------------------------- */

static struct cm_id *new_id(struct cm_channel *c, void *context, enum rdma_port_space ps, enum ibv_qp_type qp_type, int sync);

/* A listener's socket is readable: a connection, whose REQ becomes a new id's CONNECT_REQUEST. */
static void on_listener(struct cm_id *l) {
	struct sockaddr_in peer;
	socklen_t len = sizeof peer;
	int fd = accept(l->sock, (struct sockaddr *)&peer, &len);
	if (fd < 0) return;
	struct cm_msg m;
	ssize_t n = recv(fd, &m, sizeof m, MSG_WAITALL);
	if (n != (ssize_t)sizeof m || m.magic != CM_MAGIC || m.type != CM_REQ) {
		rocelab_log("rdma_cm: a connection to port %u sent no REQ (%zd bytes): closed", port_of(&l->id.route.addr.src_addr), n);
		close(fd);
		return;
	}
	struct cm_channel *c = l->chan;
	int sync = l->sync;
	if (sync) c = new_channel(1); /* rdma-core migrates a synchronous listener's new ids to channels of their own */
	struct cm_id *p = c != NULL ? new_id(c, l->id.context, l->id.ps, l->id.qp_type, sync) : NULL;
	if (p == NULL) {
		close(fd);
		return;
	}
	p->sock = fd;
	p->state = ST_REQ_RCVD;
	p->id.verbs = device();
	p->id.port_num = 1;
	p->id.route.addr.src_sin = l->id.route.addr.src_sin;
	if (p->id.route.addr.src_sin.sin_addr.s_addr == 0) p->id.route.addr.src_sin.sin_addr.s_addr = htonl(rocelab_host()->ip);
	p->id.route.addr.dst_sin = peer;
	p->peer_qpn = m.qpn;
	p->peer_psn = m.psn;
	p->responder_resources = m.initiator_depth;
	p->initiator_depth = m.responder_resources;
	p->retry_count = m.retry_count;
	p->rnr_retry_count = m.rnr_retry_count;
	/* The event belongs to the listener's channel. */
	struct cm_channel *own = p->chan;
	p->chan = l->chan;
	queue(p, l, RDMA_CM_EVENT_CONNECT_REQUEST, 0, &m);
	p->chan = own;
}

/* A connection's socket is readable: the peer's next message, or its end. */
static void on_connection(struct cm_id *p) {
	struct cm_msg m;
	ssize_t n = recv(p->sock, &m, sizeof m, MSG_WAITALL);
	if (n != (ssize_t)sizeof m || m.magic != CM_MAGIC) {
		/* The peer closed (destroyed its id, or exited): the connection is over. */
		close_sock(p);
		switch (p->state) {
		case ST_CONNECTING:
			p->state = ST_IDLE;
			queue(p, NULL, RDMA_CM_EVENT_UNREACHABLE, -ECONNRESET, NULL);
			break;
		case ST_ACCEPTING:
		case ST_REP_RCVD:
		case ST_REQ_RCVD:
			p->state = ST_IDLE;
			queue(p, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -ECONNRESET, NULL);
			break;
		case ST_CONNECTED:
		case ST_DISC_SENT:
			p->state = ST_DISCONNECTED;
			queue(p, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
			break;
		default:
			break;
		}
		return;
	}
	switch (m.type) {
	case CM_REP:
		if (p->state != ST_CONNECTING) break;
		p->peer_qpn = m.qpn;
		p->peer_psn = m.psn;
		if (p->id.qp == NULL) {
			p->state = ST_REP_RCVD;
			queue(p, NULL, RDMA_CM_EVENT_CONNECT_RESPONSE, 0, &m);
			break;
		}
		if (connect_qp(p) != 0) {
			send_msg(p, CM_REJ, NULL, 0);
			close_sock(p);
			p->state = ST_IDLE;
			queue(p, NULL, RDMA_CM_EVENT_CONNECT_ERROR, -EINVAL, NULL);
			break;
		}
		send_msg(p, CM_RTU, NULL, 0);
		p->state = ST_CONNECTED;
		queue(p, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, &m);
		break;
	case CM_RTU:
		if (p->state != ST_ACCEPTING) break;
		p->state = ST_CONNECTED;
		queue(p, NULL, RDMA_CM_EVENT_ESTABLISHED, 0, &m);
		break;
	case CM_REJ:
		if (p->state != ST_CONNECTING && p->state != ST_ACCEPTING) break;
		close_sock(p);
		p->state = ST_IDLE;
		/* IB_CM_REJ_CONSUMER_DEFINED, as rdma_reject's peer sees it. */
		queue(p, NULL, RDMA_CM_EVENT_REJECTED, 28, &m);
		break;
	case CM_DREQ:
		if (p->state == ST_CONNECTED) {
			send_msg(p, CM_DREP, NULL, 0);
			p->state = ST_DISC_RCVD;
			queue(p, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
		} else if (p->state == ST_DISC_SENT) {
			send_msg(p, CM_DREP, NULL, 0);
			p->state = ST_DISCONNECTED;
			queue(p, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
		}
		break;
	case CM_DREP:
		if (p->state == ST_DISC_SENT) {
			p->state = ST_DISCONNECTED;
			queue(p, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
		}
		break;
	default:
		rocelab_log("rdma_cm: message type %u from the peer of QP %u is not known: ignored", m.type, p->qpn);
	}
}

/* Looks at the sockets of `c`'s ids once, without waiting, and turns what came into events. */
static void pump(struct cm_channel *c) {
	struct cm_id *ids[256];
	struct pollfd fds[256];
	nfds_t n = 0;
	pthread_mutex_lock(&cm_lock);
	for (struct cm_id *p = c->ids; p != NULL && n < 256; p = p->next) {
		if (p->sock < 0) continue;
		ids[n] = p;
		fds[n] = (struct pollfd){ .fd = p->sock, .events = POLLIN };
		n++;
	}
	pthread_mutex_unlock(&cm_lock);
	if (n == 0 || poll(fds, n, 0) <= 0) return;
	/* Oldest id first (the list is newest first): the order events are queued in is the program's. */
	for (nfds_t i = n; i-- > 0;) {
		if ((fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
		if (ids[i]->state == ST_LISTEN) on_listener(ids[i]);
		else on_connection(ids[i]);
	}
}

static struct cm_event *pop(struct cm_channel *c) {
	pthread_mutex_lock(&cm_lock);
	struct cm_event *ev = c->head;
	if (ev != NULL) {
		c->head = ev->next;
		if (c->head == NULL) c->tail = NULL;
		ev->next = NULL;
	}
	pthread_mutex_unlock(&cm_lock);
	return ev;
}

EXPORT int rdma_get_cm_event(struct rdma_event_channel *channel, struct rdma_cm_event **event)
{
	if (channel == NULL || event == NULL) return fail(EINVAL);
	struct cm_channel *c = (struct cm_channel *)channel;
	int nonblock = (fcntl(channel->fd, F_GETFL) & O_NONBLOCK) != 0;
	for (;;) {
		struct cm_event *ev = pop(c);
		if (ev == NULL) {
			pump(c);
			ev = pop(c);
		}
		if (ev != NULL) {
			*event = &ev->e;
			return 0;
		}
		if (nonblock) return fail(EAGAIN);
		/* A wait: until a socket has news or another thread queued an event (rdma_connect, rdma_resolve_addr). */
		rocelab_yield(RL_YIELD_SEEN);
	}
}

EXPORT int rdma_ack_cm_event(struct rdma_cm_event *event)
{
	if (event == NULL) return fail(EINVAL);
	free((struct cm_event *)event);
	return 0;
}

/* rdma-core's ucma_complete: a synchronous id waits for its own event, and fails with its status. */
static int complete(struct cm_id *p) {
	if (!p->sync) return 0;
	if (p->id.event != NULL) {
		rdma_ack_cm_event(p->id.event);
		p->id.event = NULL;
	}
	if (rdma_get_cm_event(p->id.channel, &p->id.event) != 0) return -1;
	int status = p->id.event->status;
	if (status == 0) return 0;
	if (p->id.event->event == RDMA_CM_EVENT_REJECTED) return fail(ECONNREFUSED);
	return fail(status < 0 ? -status : status);
}

/* ---- ids ----------------------------------------------------------------------------------- */

static struct cm_id *new_id(struct cm_channel *c, void *context, enum rdma_port_space ps, enum ibv_qp_type qp_type, int sync) {
	struct cm_id *p = calloc(1, sizeof *p);
	if (p == NULL) return NULL;
	p->id.context = context;
	p->id.ps = ps;
	p->id.qp_type = qp_type;
	p->id.verbs = device();
	p->id.port_num = 1;
	p->sock = -1;
	p->sync = sync;
	p->psn = psn_for(__atomic_add_fetch(&next_psn_seed, 1, __ATOMIC_RELAXED) ^ (rocelab_host() != NULL ? rocelab_host()->ip : 0));
	p->retry_count = 7;
	p->rnr_retry_count = 7;
	p->responder_resources = 1;
	p->initiator_depth = 1;
	attach(p, c);
	return p;
}

EXPORT struct rdma_event_channel *rdma_create_event_channel(void)
{
	if (!rocelab_attached()) {
		errno = ENODEV;
		return NULL;
	}
	struct cm_channel *c = new_channel(0);
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	return &c->ch;
}

EXPORT void rdma_destroy_event_channel(struct rdma_event_channel *channel)
{
	if (channel == NULL) return;
	struct cm_channel *c = (struct cm_channel *)channel;
	struct cm_event *ev;
	while ((ev = pop(c)) != NULL) free(ev);
	close(c->ch.fd);
	free(c);
}

EXPORT int rdma_create_id(struct rdma_event_channel *channel, struct rdma_cm_id **id, void *context, enum rdma_port_space ps)
{
	if (id == NULL) return fail(EINVAL);
	if (!rocelab_attached() || device() == NULL) return fail(ENODEV);
	if (ps != RDMA_PS_TCP && ps != RDMA_PS_IB) {
		rocelab_unsupported("rdma_create_id (a port space other than RDMA_PS_TCP)");
		return -1;
	}
	struct cm_channel *c = channel != NULL ? (struct cm_channel *)channel : new_channel(1);
	if (c == NULL) return fail(ENOMEM);
	struct cm_id *p = new_id(c, context, ps, IBV_QPT_RC, channel == NULL);
	if (p == NULL) return fail(ENOMEM);
	*id = &p->id;
	return 0;
}

EXPORT int rdma_destroy_id(struct rdma_cm_id *id)
{
	if (id == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	close_sock(p);
	struct cm_channel *c = p->chan;
	if (id->event != NULL) rdma_ack_cm_event(id->event);
	detach(p);
	if (c != NULL) {
		/* Events still queued for it go with it. */
		pthread_mutex_lock(&cm_lock);
		struct cm_event **at = &c->head, *last = NULL;
		while (*at != NULL) {
			if ((*at)->e.id == id) {
				struct cm_event *gone = *at;
				*at = gone->next;
				free(gone);
			} else {
				last = *at;
				at = &(*at)->next;
			}
		}
		c->tail = last;
		pthread_mutex_unlock(&cm_lock);
		if (c->private_) rdma_destroy_event_channel(&c->ch);
	}
	free(p->qp_init_attr);
	free(p);
	return 0;
}

EXPORT int rdma_migrate_id(struct rdma_cm_id *id, struct rdma_event_channel *channel)
{
	struct cm_id *p = priv(id);
	struct cm_channel *old = p->chan;
	struct cm_channel *c = channel != NULL ? (struct cm_channel *)channel : new_channel(1);
	if (c == NULL) return fail(ENOMEM);
	detach(p);
	attach(p, c);
	p->sync = channel == NULL;
	if (old != NULL && old->private_ && old->ids == NULL) rdma_destroy_event_channel(&old->ch);
	return 0;
}

EXPORT int rdma_bind_addr(struct rdma_cm_id *id, struct sockaddr *addr)
{
	if (id == NULL || addr == NULL) return fail(EINVAL);
	if (addr->sa_family != AF_INET) {
		rocelab_unsupported("rdma_bind_addr (an address other than AF_INET)");
		return fail(EAFNOSUPPORT);
	}
	memcpy(&id->route.addr.src_sin, addr, sizeof(struct sockaddr_in));
	id->verbs = device();
	id->port_num = 1;
	return 0;
}

EXPORT int rdma_resolve_addr(struct rdma_cm_id *id, struct sockaddr *src, struct sockaddr *dst, int timeout_ms)
{
	(void)timeout_ms;
	if (id == NULL || dst == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	if (dst->sa_family != AF_INET || (src != NULL && src->sa_family != AF_INET)) {
		rocelab_unsupported("rdma_resolve_addr (an address other than AF_INET)");
		return fail(EAFNOSUPPORT);
	}
	if (src != NULL) memcpy(&id->route.addr.src_sin, src, sizeof(struct sockaddr_in));
	/* The source is the host's own address: the one GID of rocelab0. */
	if (id->route.addr.src_sin.sin_addr.s_addr == 0) set_sin(&id->route.addr.src_sin, rocelab_host()->ip, port_of(&id->route.addr.src_addr));
	memcpy(&id->route.addr.dst_sin, dst, sizeof(struct sockaddr_in));
	id->verbs = device();
	id->port_num = 1;
	p->state = ST_ADDR;
	queue(p, NULL, RDMA_CM_EVENT_ADDR_RESOLVED, 0, NULL);
	return complete(p);
}

EXPORT int rdma_resolve_route(struct rdma_cm_id *id, int timeout_ms)
{
	(void)timeout_ms;
	if (id == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	if (p->state != ST_ADDR) return fail(EINVAL);
	p->state = ST_ROUTE;
	queue(p, NULL, RDMA_CM_EVENT_ROUTE_RESOLVED, 0, NULL);
	return complete(p);
}

EXPORT int rdma_listen(struct rdma_cm_id *id, int backlog)
{
	if (id == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	if (p->state == ST_LISTEN) return 0;
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) return -1;
	struct sockaddr_in at = id->route.addr.src_sin;
	at.sin_family = AF_INET;
	if (bind(fd, (struct sockaddr *)&at, sizeof at) != 0 || listen(fd, backlog) != 0) {
		int err = errno;
		close(fd);
		rocelab_log("rdma_cm: rdma_listen on port %u failed (%s)", port_of((struct sockaddr *)&at), strerror(err));
		return fail(err);
	}
	socklen_t len = sizeof at;
	if (getsockname(fd, (struct sockaddr *)&at, &len) == 0) id->route.addr.src_sin.sin_port = at.sin_port;
	p->sock = fd;
	p->state = ST_LISTEN;
	/* A CM thread already waiting in rdma_get_cm_event looks again, at this listener too. */
	rocelab_wake();
	return 0;
}

static uint32_t qpn_for(struct cm_id *p, const struct rdma_conn_param *param) {
	return p->id.qp != NULL ? p->id.qp->qp_num : (param != NULL ? param->qp_num : 0);
}

EXPORT int rdma_connect(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	if (id == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	if (p->state != ST_ROUTE) return fail(EINVAL);
	if (id->qp == NULL && param == NULL) return fail(EINVAL);
	p->qpn = qpn_for(p, param);
	if (param != NULL) {
		p->responder_resources = param->responder_resources;
		p->initiator_depth = param->initiator_depth;
		p->retry_count = param->retry_count;
		p->rnr_retry_count = param->rnr_retry_count;
	}
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0) return -1;
	/* A wait, until a program on the peer listens on the port (a client never races its server). */
	if (connect(fd, &id->route.addr.dst_addr, sizeof(struct sockaddr_in)) != 0) {
		int err = errno;
		close(fd);
		rocelab_log("rdma_cm: rdma_connect to %s port %u failed (%s)", inet_ntoa(id->route.addr.dst_sin.sin_addr), port_of(&id->route.addr.dst_addr), strerror(err));
		p->state = ST_IDLE;
		queue(p, NULL, RDMA_CM_EVENT_UNREACHABLE, -err, NULL);
		return complete(p);
	}
	p->sock = fd;
	p->state = ST_CONNECTING;
	int err = send_msg(p, CM_REQ, param != NULL ? param->private_data : NULL, param != NULL && param->private_data != NULL ? param->private_data_len : 0);
	if (err != 0) {
		close_sock(p);
		p->state = ST_ROUTE;
		return fail(err);
	}
	/* A CM thread waiting in rdma_get_cm_event looks again, at this socket too. */
	rocelab_wake();
	return complete(p);
}

EXPORT int rdma_accept(struct rdma_cm_id *id, struct rdma_conn_param *param)
{
	if (id == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	if (p->state != ST_REQ_RCVD) return fail(EINVAL);
	if (id->qp == NULL && param == NULL) return fail(EINVAL);
	p->qpn = qpn_for(p, param);
	if (param != NULL) {
		if (param->responder_resources != RDMA_MAX_RESP_RES) p->responder_resources = param->responder_resources;
		if (param->initiator_depth != RDMA_MAX_INIT_DEPTH) p->initiator_depth = param->initiator_depth;
		p->rnr_retry_count = param->rnr_retry_count;
	}
	if (id->qp != NULL) {
		int err = connect_qp(p);
		if (err != 0) return fail(err);
	}
	int err = send_msg(p, CM_REP, param != NULL ? param->private_data : NULL, param != NULL && param->private_data != NULL ? param->private_data_len : 0);
	if (err != 0) return fail(err);
	p->state = ST_ACCEPTING;
	rocelab_wake();
	return complete(p);
}

EXPORT int rdma_establish(struct rdma_cm_id *id)
{
	if (id == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	if (id->qp != NULL || p->state != ST_REP_RCVD) return fail(EINVAL);
	int err = send_msg(p, CM_RTU, NULL, 0);
	if (err != 0) return fail(err);
	p->state = ST_CONNECTED;
	return 0;
}

EXPORT int rdma_reject(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len)
{
	if (id == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	if (p->state != ST_REQ_RCVD) return fail(EINVAL);
	send_msg(p, CM_REJ, private_data, private_data_len);
	close_sock(p);
	p->state = ST_IDLE;
	return 0;
}

EXPORT int rdma_disconnect(struct rdma_cm_id *id)
{
	if (id == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	/* rdma-core moves the QP to ERR first: its posted receives flush. */
	if (id->qp != NULL) {
		struct ibv_qp_attr attr = { .qp_state = IBV_QPS_ERR };
		ibv_modify_qp(id->qp, &attr, IBV_QP_STATE);
	}
	switch (p->state) {
	case ST_CONNECTED:
	case ST_ACCEPTING:
	case ST_REP_RCVD:
		if (send_msg(p, CM_DREQ, NULL, 0) != 0) {
			close_sock(p);
			p->state = ST_DISCONNECTED;
			queue(p, NULL, RDMA_CM_EVENT_DISCONNECTED, 0, NULL);
		} else {
			p->state = ST_DISC_SENT;
			rocelab_wake();
		}
		return complete(p);
	case ST_DISC_RCVD:
		/* The peer went first: its DISCONNECTED was this side's event already. */
		p->state = ST_DISCONNECTED;
		return 0;
	default:
		return fail(EINVAL);
	}
}

EXPORT int rdma_notify(struct rdma_cm_id *id, enum ibv_event_type event)
{
	(void)id;
	(void)event;
	return 0;
}

/* Options change nothing that rocelab0 models (TOS, reuse of addresses, ACK timeouts): accepted. */
EXPORT int rdma_set_option(struct rdma_cm_id *id, int level, int optname, void *optval, size_t optlen)
{
	(void)id;
	(void)optval;
	(void)optlen;
	rocelab_log("rdma_cm: rdma_set_option(level %d, option %d) accepted and ignored", level, optname);
	return 0;
}

EXPORT uint16_t rdma_get_src_port(struct rdma_cm_id *id)
{
	return id->route.addr.src_sin.sin_port;
}

EXPORT uint16_t rdma_get_dst_port(struct rdma_cm_id *id)
{
	return id->route.addr.dst_sin.sin_port;
}

EXPORT struct ibv_context **rdma_get_devices(int *num_devices)
{
	struct ibv_context *ctx = rocelab_attached() ? device() : NULL;
	struct ibv_context **list = calloc(2, sizeof *list);
	if (list == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (ctx != NULL) list[0] = ctx;
	if (num_devices != NULL) *num_devices = ctx != NULL ? 1 : 0;
	return list;
}

EXPORT void rdma_free_devices(struct ibv_context **list)
{
	free(list);
}

/* ---- QPs ----------------------------------------------------------------------------------- */

static void destroy_cqs(struct cm_id *p) {
	if (!p->own_cqs) return;
	if (p->id.send_cq != NULL && p->id.send_cq != p->id.recv_cq) ibv_destroy_cq(p->id.send_cq);
	if (p->id.recv_cq != NULL) ibv_destroy_cq(p->id.recv_cq);
	if (p->id.send_cq_channel != NULL && p->id.send_cq_channel != p->id.recv_cq_channel) ibv_destroy_comp_channel(p->id.send_cq_channel);
	if (p->id.recv_cq_channel != NULL) ibv_destroy_comp_channel(p->id.recv_cq_channel);
	p->id.send_cq = p->id.recv_cq = NULL;
	p->id.send_cq_channel = p->id.recv_cq_channel = NULL;
	p->own_cqs = 0;
}

/* rdma-core's ucma_create_cqs: a completion channel and a CQ each for sends and receives. */
static int create_cqs(struct cm_id *p, uint32_t send_size, uint32_t recv_size) {
	struct ibv_context *ctx = device();
	p->own_cqs = 1;
	p->id.recv_cq_channel = ibv_create_comp_channel(ctx);
	p->id.recv_cq = p->id.recv_cq_channel != NULL ? ibv_create_cq(ctx, recv_size > 0 ? (int)recv_size : 1, &p->id, p->id.recv_cq_channel, 0) : NULL;
	p->id.send_cq_channel = ibv_create_comp_channel(ctx);
	p->id.send_cq = p->id.send_cq_channel != NULL ? ibv_create_cq(ctx, send_size > 0 ? (int)send_size : 1, &p->id, p->id.send_cq_channel, 0) : NULL;
	if (p->id.recv_cq == NULL || p->id.send_cq == NULL) {
		destroy_cqs(p);
		return ENOMEM;
	}
	return 0;
}

EXPORT int rdma_create_qp_ex(struct rdma_cm_id *id, struct ibv_qp_init_attr_ex *attr)
{
	if (id == NULL || attr == NULL) return fail(EINVAL);
	struct cm_id *p = priv(id);
	if (id->qp != NULL) return fail(EINVAL);
	if (attr->qp_type != IBV_QPT_RC) {
		rocelab_unsupported("rdma_create_qp (a QP type other than RC)");
		return -1;
	}
	struct ibv_pd *pd = (attr->comp_mask & IBV_QP_INIT_ATTR_PD) && attr->pd != NULL ? attr->pd : id->pd != NULL ? id->pd : pd_of_device();
	if (pd == NULL) return fail(ENOMEM);
	int made = 0;
	if (attr->send_cq == NULL || attr->recv_cq == NULL) {
		int err = create_cqs(p, attr->cap.max_send_wr, attr->cap.max_recv_wr);
		if (err != 0) return fail(err);
		made = 1;
		if (attr->send_cq == NULL) attr->send_cq = id->send_cq;
		if (attr->recv_cq == NULL) attr->recv_cq = id->recv_cq;
	}
	struct ibv_qp_init_attr init = { .qp_context = attr->qp_context, .send_cq = attr->send_cq, .recv_cq = attr->recv_cq, .srq = attr->srq, .cap = attr->cap, .qp_type = attr->qp_type, .sq_sig_all = attr->sq_sig_all };
	struct ibv_qp *qp = ibv_create_qp(pd, &init);
	if (qp == NULL) {
		int err = errno;
		if (made) destroy_cqs(p);
		return fail(err);
	}
	attr->cap = init.cap;
	id->qp = qp;
	id->pd = pd;
	p->qpn = qp->qp_num;
	int err = move_qp(p, IBV_QPS_INIT);
	if (err != 0) {
		ibv_destroy_qp(qp);
		id->qp = NULL;
		if (made) destroy_cqs(p);
		return fail(err);
	}
	return 0;
}

EXPORT int rdma_create_qp(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	if (qp_init_attr == NULL) return fail(EINVAL);
	struct ibv_qp_init_attr_ex ex;
	memset(&ex, 0, sizeof ex);
	memcpy(&ex, qp_init_attr, sizeof *qp_init_attr);
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd != NULL ? pd : id->pd;
	int r = rdma_create_qp_ex(id, &ex);
	memcpy(qp_init_attr, &ex, sizeof *qp_init_attr);
	return r;
}

EXPORT void rdma_destroy_qp(struct rdma_cm_id *id)
{
	if (id == NULL || id->qp == NULL) return;
	ibv_destroy_qp(id->qp);
	id->qp = NULL;
	destroy_cqs(priv(id));
}

/* ---- the synchronous API (rdma_server, rdma_client) ------------------------------------- */

EXPORT int rdma_create_ep(struct rdma_cm_id **id, struct rdma_addrinfo *res, struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr)
{
	if (id == NULL || res == NULL) return fail(EINVAL);
	struct rdma_cm_id *cm;
	if (rdma_create_id(NULL, &cm, NULL, (enum rdma_port_space)res->ai_port_space) != 0) return -1;
	struct cm_id *p = priv(cm);
	p->id.qp_type = (enum ibv_qp_type)res->ai_qp_type;
	if (res->ai_flags & RAI_PASSIVE) {
		if (res->ai_src_addr != NULL && rdma_bind_addr(cm, res->ai_src_addr) != 0) goto err;
		cm->pd = pd;
		if (qp_init_attr != NULL) {
			p->qp_init_attr = malloc(sizeof *qp_init_attr);
			if (p->qp_init_attr == NULL) {
				errno = ENOMEM;
				goto err;
			}
			*p->qp_init_attr = *qp_init_attr;
			p->qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		}
		*id = cm;
		return 0;
	}
	if (rdma_resolve_addr(cm, res->ai_src_addr, res->ai_dst_addr, 2000) != 0) goto err;
	if (rdma_resolve_route(cm, 2000) != 0) goto err;
	if (qp_init_attr != NULL) {
		qp_init_attr->qp_type = (enum ibv_qp_type)res->ai_qp_type;
		if (rdma_create_qp(cm, pd, qp_init_attr) != 0) goto err;
	}
	*id = cm;
	return 0;
err: {
	int err = errno;
	rdma_destroy_ep(cm);
	errno = err;
	return -1;
}
}

EXPORT void rdma_destroy_ep(struct rdma_cm_id *id)
{
	if (id == NULL) return;
	if (id->qp != NULL) rdma_destroy_qp(id);
	rdma_destroy_id(id);
}

EXPORT int rdma_get_request(struct rdma_cm_id *listen, struct rdma_cm_id **id)
{
	if (listen == NULL || id == NULL) return fail(EINVAL);
	struct cm_id *l = priv(listen);
	if (!l->sync) return fail(EINVAL);
	if (listen->event != NULL) {
		rdma_ack_cm_event(listen->event);
		listen->event = NULL;
	}
	struct rdma_cm_event *event;
	if (rdma_get_cm_event(listen->channel, &event) != 0) return -1;
	int err = 0;
	if (event->event == RDMA_CM_EVENT_REJECTED) err = ECONNREFUSED;
	else if (event->status != 0) err = event->status < 0 ? -event->status : event->status;
	else if (event->event != RDMA_CM_EVENT_CONNECT_REQUEST) err = EINVAL;
	else if (l->qp_init_attr != NULL) {
		struct ibv_qp_init_attr attr = *l->qp_init_attr;
		if (rdma_create_qp(event->id, listen->pd, &attr) != 0) err = errno;
	}
	if (err != 0) {
		listen->event = event;
		return fail(err);
	}
	*id = event->id;
	(*id)->event = event;
	return 0;
}

/* ---- addresses ----------------------------------------------------------------------------- */

/* Numeric IPv4 addresses, and names the system resolver knows (pod host names where rocelab makes them resolvable). */
static int lookup(const char *node, uint32_t *ip) {
	struct in_addr a;
	if (inet_pton(AF_INET, node, &a) == 1) {
		*ip = ntohl(a.s_addr);
		return 0;
	}
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM }, *res = NULL;
	int r = getaddrinfo(node, NULL, &hints, &res);
	if (r != 0) return r;
	*ip = ntohl(((struct sockaddr_in *)res->ai_addr)->sin_addr.s_addr);
	freeaddrinfo(res);
	return 0;
}

static struct sockaddr *new_sin(uint32_t ip, uint16_t port) {
	struct sockaddr_in *sin = malloc(sizeof *sin);
	if (sin != NULL) set_sin(sin, ip, port);
	return (struct sockaddr *)sin;
}

EXPORT int rdma_getaddrinfo(const char *node, const char *service, const struct rdma_addrinfo *hints, struct rdma_addrinfo **res)
{
	if (res == NULL || (node == NULL && service == NULL)) return EAI_NONAME;
	if (hints != NULL && hints->ai_family != 0 && hints->ai_family != AF_INET) return EAI_FAMILY;
	long port = 0;
	if (service != NULL) {
		char *end;
		port = strtol(service, &end, 10);
		if (*service == '\0' || *end != '\0' || port < 0 || port > 65535) return EAI_SERVICE;
	}
	int passive = hints != NULL && (hints->ai_flags & RAI_PASSIVE) != 0;
	uint32_t ip = 0;
	if (node != NULL) {
		int r = lookup(node, &ip);
		if (r != 0) return r;
	} else if (!passive) {
		return EAI_NONAME;
	}
	struct rdma_addrinfo *ai = calloc(1, sizeof *ai);
	if (ai == NULL) return EAI_MEMORY;
	ai->ai_flags = hints != NULL ? hints->ai_flags : 0;
	ai->ai_family = AF_INET;
	ai->ai_port_space = hints != NULL && hints->ai_port_space != 0 ? hints->ai_port_space : RDMA_PS_TCP;
	ai->ai_qp_type = hints != NULL && hints->ai_qp_type != 0 ? hints->ai_qp_type : IBV_QPT_RC;
	struct sockaddr *addr = new_sin(ip, (uint16_t)port);
	if (addr == NULL) {
		free(ai);
		return EAI_MEMORY;
	}
	if (passive) {
		ai->ai_src_addr = addr;
		ai->ai_src_len = sizeof(struct sockaddr_in);
	} else {
		ai->ai_dst_addr = addr;
		ai->ai_dst_len = sizeof(struct sockaddr_in);
		if (hints != NULL && hints->ai_src_addr != NULL && hints->ai_src_addr->sa_family == AF_INET) {
			ai->ai_src_addr = new_sin(ip_of(hints->ai_src_addr), port_of(hints->ai_src_addr));
			ai->ai_src_len = ai->ai_src_addr != NULL ? sizeof(struct sockaddr_in) : 0;
		}
	}
	*res = ai;
	return 0;
}

EXPORT void rdma_freeaddrinfo(struct rdma_addrinfo *res)
{
	while (res != NULL) {
		struct rdma_addrinfo *next = res->ai_next;
		free(res->ai_src_addr);
		free(res->ai_dst_addr);
		free(res->ai_src_canonname);
		free(res->ai_dst_canonname);
		free(res->ai_route);
		free(res->ai_connect);
		free(res);
		res = next;
	}
}

EXPORT const char *rdma_event_str(enum rdma_cm_event_type event)
{
	static const char *const text[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR", "RDMA_CM_EVENT_ROUTE_RESOLVED",
		"RDMA_CM_EVENT_ROUTE_ERROR", "RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE", "RDMA_CM_EVENT_REJECTED",
		"RDMA_CM_EVENT_ESTABLISHED", "RDMA_CM_EVENT_DISCONNECTED", "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR", "RDMA_CM_EVENT_ADDR_CHANGE",
		"RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};
	return (int)event >= 0 && (int)event < (int)(sizeof(text) / sizeof(text[0])) ? text[event] : "UNKNOWN EVENT";
}

/* ---- not supported: rsockets, multicast, SRQs through rdma_cm, ECE ------------------------ */

EXPORT void rdma_destroy_srq(struct rdma_cm_id *id) { (void)id; }
EXPORT int raccept(void) { rocelab_unsupported("raccept"); return -1; }
EXPORT int rbind(void) { rocelab_unsupported("rbind"); return -1; }
EXPORT int rclose(void) { rocelab_unsupported("rclose"); return -1; }
EXPORT int rconnect(void) { rocelab_unsupported("rconnect"); return -1; }
EXPORT int rdma_create_srq(struct rdma_cm_id *id, struct ibv_pd *pd, struct ibv_srq_init_attr *attr) { (void)id; (void)pd; (void)attr; rocelab_unsupported("rdma_create_srq"); return -1; }
EXPORT int rdma_create_srq_ex(struct rdma_cm_id *id, struct ibv_srq_init_attr_ex *attr) { (void)id; (void)attr; rocelab_unsupported("rdma_create_srq_ex"); return -1; }
EXPORT int rdma_join_multicast(struct rdma_cm_id *id, struct sockaddr *addr, void *context) { (void)id; (void)addr; (void)context; rocelab_unsupported("rdma_join_multicast"); return -1; }
EXPORT int rdma_leave_multicast(struct rdma_cm_id *id, struct sockaddr *addr) { (void)id; (void)addr; rocelab_unsupported("rdma_leave_multicast"); return -1; }
EXPORT int rfcntl(void) { rocelab_unsupported("rfcntl"); return -1; }
EXPORT int rgetpeername(void) { rocelab_unsupported("rgetpeername"); return -1; }
EXPORT int rgetsockname(void) { rocelab_unsupported("rgetsockname"); return -1; }
EXPORT int rgetsockopt(void) { rocelab_unsupported("rgetsockopt"); return -1; }
EXPORT int riounmap(void) { rocelab_unsupported("riounmap"); return -1; }
EXPORT int rlisten(void) { rocelab_unsupported("rlisten"); return -1; }
EXPORT int rpoll(void) { rocelab_unsupported("rpoll"); return -1; }
EXPORT int rselect(void) { rocelab_unsupported("rselect"); return -1; }
EXPORT int rsetsockopt(void) { rocelab_unsupported("rsetsockopt"); return -1; }
EXPORT int rshutdown(void) { rocelab_unsupported("rshutdown"); return -1; }
EXPORT int rsocket(void) { rocelab_unsupported("rsocket"); return -1; }
EXPORT int rdma_join_multicast_ex(struct rdma_cm_id *id, struct rdma_cm_join_mc_attr_ex *attr, void *context) { (void)id; (void)attr; (void)context; rocelab_unsupported("rdma_join_multicast_ex"); return -1; }
EXPORT int rdma_get_remote_ece(struct rdma_cm_id *id, struct ibv_ece *ece) { (void)id; (void)ece; rocelab_unsupported("rdma_get_remote_ece"); return -1; }
EXPORT int rdma_reject_ece(struct rdma_cm_id *id, const void *private_data, uint8_t private_data_len) { (void)id; (void)private_data; (void)private_data_len; rocelab_unsupported("rdma_reject_ece"); return -1; }
EXPORT int rdma_set_local_ece(struct rdma_cm_id *id, struct ibv_ece *ece) { (void)id; (void)ece; rocelab_unsupported("rdma_set_local_ece"); return -1; }
EXPORT ssize_t rread(void) { rocelab_unsupported("rread"); return -1; }
EXPORT ssize_t rreadv(void) { rocelab_unsupported("rreadv"); return -1; }
EXPORT ssize_t rrecv(void) { rocelab_unsupported("rrecv"); return -1; }
EXPORT ssize_t rrecvfrom(void) { rocelab_unsupported("rrecvfrom"); return -1; }
EXPORT ssize_t rrecvmsg(void) { rocelab_unsupported("rrecvmsg"); return -1; }
EXPORT ssize_t rsend(void) { rocelab_unsupported("rsend"); return -1; }
EXPORT ssize_t rsendmsg(void) { rocelab_unsupported("rsendmsg"); return -1; }
EXPORT ssize_t rsendto(void) { rocelab_unsupported("rsendto"); return -1; }
EXPORT ssize_t rwrite(void) { rocelab_unsupported("rwrite"); return -1; }
EXPORT ssize_t rwritev(void) { rocelab_unsupported("rwritev"); return -1; }
EXPORT ssize_t riowrite(void) { rocelab_unsupported("riowrite"); return -1; }
EXPORT ssize_t riomap(void) { rocelab_unsupported("riomap"); return -1; }
