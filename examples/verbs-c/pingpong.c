/*
 * pingpong: an RC ping-pong on plain libibverbs, written as for a real RoCE NIC.
 *
 *   pingpong server                   answers every ping of one client
 *   pingpong client SERVER [ROUNDS]   sends ROUNDS pings (8), prints each round trip
 *
 * A ping is an RDMA WRITE of a message into the peer's buffer, then a SEND of a small notice:
 * RC executes a QP's requests in order, so when the notice arrives the message is in memory.
 * The server answers each ping with a pong the same way. The two QPs learn about each other
 * (QPN, PSN, GID, buffer address, rkey) over a TCP connection, as ibv_rc_pingpong does.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <infiniband/verbs.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define PORT "18515" /* ibv_rc_pingpong's */
#define MSG_MAX 256
/* Everything the NIC touches, in one registration: the peer WRITEs into inbox, we WRITE from outbox. */
struct buffers { char inbox[MSG_MAX], outbox[MSG_MAX]; uint32_t notice_in, notice_out; };
/* What each side tells the other before the first ping, in network byte order. */
struct peer { uint32_t qpn, psn, rkey, rounds; uint64_t addr; uint8_t gid[16]; };

static void fail(const char *fmt, ...)
{
	int err = errno; /* for %m */
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "pingpong: ");
	errno = err;
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static double now_us(void) /* virtual time under rocelab */
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

/* The out-of-band exchange: the client (host) connects to the server's (NULL) port. */
static int tcp_connect(const char *host)
{
	struct addrinfo hints = {.ai_family = AF_INET, .ai_socktype = SOCK_STREAM, .ai_flags = host ? 0 : AI_PASSIVE}, *ai;
	int err = getaddrinfo(host, PORT, &hints, &ai);
	if (err)
		fail("cannot resolve %s: %s", host ? host : "*", gai_strerror(err));
	int fd = socket(ai->ai_family, ai->ai_socktype, 0), one = 1;
	if (fd < 0)
		fail("socket: %m");
	if (host && connect(fd, ai->ai_addr, ai->ai_addrlen))
		fail("cannot connect to %s port %s: %m", host, PORT);
	if (!host) {
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 1))
			fail("cannot listen on port %s: %m", PORT);
		int conn = accept(fd, NULL, NULL);
		if (conn < 0)
			fail("accept: %m");
		close(fd);
		fd = conn;
	}
	freeaddrinfo(ai);
	return fd;
}

static struct peer exchange(int fd, struct peer mine)
{
	struct peer theirs;
	if (send(fd, &mine, sizeof mine, 0) != sizeof mine || recv(fd, &theirs, sizeof theirs, MSG_WAITALL) != sizeof theirs)
		fail("the peer closed the connection during the exchange");
	return theirs;
}

/* Polls until `recvs` receive and `sends` send completions have arrived, in whatever order. */
static void await_completions(struct ibv_cq *cq, int recvs, int sends)
{
	while (recvs > 0 || sends > 0) {
		struct ibv_wc wc;
		int n = ibv_poll_cq(cq, 1, &wc); /* under rocelab an empty poll waits for virtual time to pass */
		if (n < 0)
			fail("ibv_poll_cq failed");
		if (n == 0)
			continue;
		if (wc.status != IBV_WC_SUCCESS)
			fail("a %s failed: %s", wc.opcode & IBV_WC_RECV ? "receive" : "send", ibv_wc_status_str(wc.status));
		if (wc.opcode & IBV_WC_RECV) recvs--; else sends--;
	}
}

static void post_recv(struct ibv_qp *qp, struct ibv_mr *mr, struct buffers *b)
{
	struct ibv_sge sge = {.addr = (uintptr_t)&b->notice_in, .length = sizeof b->notice_in, .lkey = mr->lkey};
	struct ibv_recv_wr wr = {.sg_list = &sge, .num_sge = 1}, *bad;
	if (ibv_post_recv(qp, &wr, &bad))
		fail("ibv_post_recv: %m");
}

/* WRITE the outbox into the peer's inbox (unsignaled), then SEND its length (signaled): one post. */
static void post_message(struct ibv_qp *qp, struct ibv_mr *mr, struct buffers *b, const struct peer *to)
{
	uint32_t len = strlen(b->outbox) + 1;
	b->notice_out = htonl(len);
	struct ibv_sge data = {.addr = (uintptr_t)b->outbox, .length = len, .lkey = mr->lkey};
	struct ibv_sge note = {.addr = (uintptr_t)&b->notice_out, .length = sizeof b->notice_out, .lkey = mr->lkey};
	struct ibv_send_wr send = {.sg_list = &note, .num_sge = 1, .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED};
	struct ibv_send_wr write = {.next = &send, .sg_list = &data, .num_sge = 1, .opcode = IBV_WR_RDMA_WRITE,
		.wr.rdma = {.remote_addr = be64toh(to->addr), .rkey = ntohl(to->rkey)}}, *bad;
	if (ibv_post_send(qp, &write, &bad))
		fail("ibv_post_send: %m");
}

int main(int argc, char **argv)
{
	int server = argc == 2 && !strcmp(argv[1], "server");
	if (!server && !((argc == 3 || argc == 4) && !strcmp(argv[1], "client")))
		fail("usage: pingpong server | pingpong client SERVER [ROUNDS]");
	int rounds = argc == 4 ? atoi(argv[3]) : 8;
	if (rounds < 1)
		fail("ROUNDS must be a positive number, not %s", argv[3]);

	/* The verbs objects, in the order the verbs need them. */
	int ndev;
	struct ibv_device **devs = ibv_get_device_list(&ndev);
	if (!devs || ndev == 0)
		fail("no RDMA device found");
	struct ibv_context *ctx = ibv_open_device(devs[0]);
	if (!ctx)
		fail("cannot open %s: %m", ibv_get_device_name(devs[0]));
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct buffers *b = calloc(1, sizeof *b);
	struct ibv_mr *mr = pd && b ? ibv_reg_mr(pd, b, sizeof *b, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE) : NULL;
	struct ibv_cq *cq = ibv_create_cq(ctx, 8, NULL, NULL, 0);
	struct ibv_qp_init_attr init = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = {.max_send_wr = 4, .max_recv_wr = 2, .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp *qp = mr && cq ? ibv_create_qp(pd, &init) : NULL;
	union ibv_gid gid;
	if (!qp || ibv_query_gid(ctx, 1, 0, &gid)) /* RoCE: GID index 0 carries the host's IP */
		fail("cannot set up PD, MR, CQ and QP on %s: %m", ibv_get_device_name(devs[0]));
	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .port_num = 1, .qp_access_flags = IBV_ACCESS_REMOTE_WRITE};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		fail("cannot move the QP to INIT: %m");
	post_recv(qp, mr, b); /* in INIT already: the peer may SEND as soon as both reach RTS */

	srand48(getpid() * time(NULL)); /* a random first PSN, as usual; rocelab makes both virtual */
	struct peer mine = {.qpn = htonl(qp->qp_num), .psn = htonl(lrand48() & 0xffffff), .rkey = htonl(mr->rkey),
		.rounds = htonl(rounds), .addr = htobe64((uintptr_t)b->inbox)};
	memcpy(mine.gid, gid.raw, 16);
	int fd = tcp_connect(server ? NULL : argv[2]);
	struct peer peer = exchange(fd, mine);
	if (server)
		rounds = ntohl(peer.rounds);

	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTR, .path_mtu = IBV_MTU_1024, .dest_qp_num = ntohl(peer.qpn),
		.rq_psn = ntohl(peer.psn), .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
		.ah_attr = {.is_global = 1, .port_num = 1, .grh = {.hop_limit = 64, .sgid_index = 0}}};
	memcpy(a.ah_attr.grh.dgid.raw, peer.gid, 16); /* RoCE routes by the GRH: the peer's GID is its IP */
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		fail("cannot move the QP to RTR: %m");
	a = (struct ibv_qp_attr){.qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7, .sq_psn = ntohl(mine.psn), .max_rd_atomic = 1};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		fail("cannot move the QP to RTS: %m");
	char gidtext[INET6_ADDRSTRLEN];
	inet_ntop(AF_INET6, peer.gid, gidtext, sizeof gidtext);
	printf("%s: QP 0x%06x connected to QP 0x%06x at %s\n", argv[1], qp->qp_num, ntohl(peer.qpn), gidtext);

	double min = 1e30, max = 0, sum = 0;
	for (int i = 1; i <= rounds; i++) {
		if (server) {
			await_completions(cq, 1, 0); /* the ping's notice: its message is already in the inbox */
			if (i == rounds)
				printf("server: round %d: got \"%s\" (%u bytes)\n", i, b->inbox, ntohl(b->notice_in));
			post_recv(qp, mr, b);
			snprintf(b->outbox, MSG_MAX, "pong %d from the server", i);
			post_message(qp, mr, b, &peer);
			await_completions(cq, 0, 1);
			continue;
		}
		snprintf(b->outbox, MSG_MAX, "ping %d from the client", i);
		double t0 = now_us();
		post_message(qp, mr, b, &peer);
		await_completions(cq, 1, 1); /* our SEND (acknowledged) and the pong's notice */
		double rtt = now_us() - t0;
		min = rtt < min ? rtt : min;
		max = rtt > max ? rtt : max;
		sum += rtt;
		printf("client: round %d: %.3f us, got \"%s\" (%u bytes)\n", i, rtt, b->inbox, ntohl(b->notice_in));
		post_recv(qp, mr, b);
	}
	if (!server)
		printf("client: %d round trips: min %.3f us, avg %.3f us, max %.3f us\n", rounds, min, sum / rounds, max);

	/* Tell the peer we are done before tearing down, so neither destroys a QP the other still uses. */
	char done = 1;
	if (send(fd, &done, 1, 0) != 1 || recv(fd, &done, 1, MSG_WAITALL) != 1)
		fail("the peer closed the connection before the end");
	close(fd);
	if (ibv_destroy_qp(qp) || ibv_destroy_cq(cq) || ibv_dereg_mr(mr) || ibv_dealloc_pd(pd) || ibv_close_device(ctx))
		fail("teardown failed: %m");
	ibv_free_device_list(devs);
	free(b);
	return 0;
}
