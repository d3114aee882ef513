/*
 * A verbs program that needs no connection exchange (the device's own test): on rocelab0 a host's
 * first QP number and first rkey are known in advance, and the buffer sits at a fixed address, so
 * two copies can talk given only the peer's address and QP number on the command line.
 *
 *   verbs-fixed server PEER_IP PEER_QPN     waits for a WRITE with immediate, answers with a SEND
 *   verbs-fixed client PEER_IP PEER_QPN     WRITEs "hello from the client" with immediate 0x1234,
 *                                           then waits for the server's SEND and READs it back
 *
 * It prints what it sees and the virtual time of each step (gettimeofday is virtual here).
 */
#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>

#define BUF ((void *)0x7e0000000000ULL)
#define BUF_SIZE 8192
#define FIRST_RKEY 0x15a

/* Microseconds since the program started (gettimeofday is virtual under rocelab). */
static double now_us(void)
{
	static double start = -1;
	struct timeval tv;
	gettimeofday(&tv, NULL);
	double t = (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
	if (start < 0)
		start = t;
	return t - start;
}

static void die(const char *what)
{
	perror(what);
	exit(1);
}

static struct ibv_wc wait_one(struct ibv_cq *cq)
{
	struct ibv_wc wc;
	int n;
	while ((n = ibv_poll_cq(cq, 1, &wc)) == 0)
		;
	if (n < 0)
		die("ibv_poll_cq");
	if (wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "completion failed: %s\n", ibv_wc_status_str(wc.status));
		exit(1);
	}
	return wc;
}

int main(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: %s server|client PEER_IP PEER_QPN\n", argv[0]);
		return 2;
	}
	int server = strcmp(argv[1], "server") == 0;
	struct in_addr peer;
	if (inet_pton(AF_INET, argv[2], &peer) != 1)
		die("peer address");
	uint32_t peer_qpn = (uint32_t)strtoul(argv[3], NULL, 0);

	int n;
	struct ibv_device **devs = ibv_get_device_list(&n);
	if (!devs || n == 0) {
		fprintf(stderr, "no RDMA device\n");
		return 1;
	}
	struct ibv_context *ctx = ibv_open_device(devs[0]);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	char *buf = mmap(BUF, BUF_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (buf != BUF)
		die("mmap at the fixed address");
	struct ibv_mr *mr = ibv_reg_mr(pd, buf, BUF_SIZE, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (!mr)
		die("ibv_reg_mr");
	struct ibv_cq *cq = ibv_create_cq(ctx, 16, NULL, NULL, 0);
	struct ibv_qp_init_attr init = {.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC, .cap = {.max_send_wr = 8, .max_recv_wr = 8, .max_send_sge = 1, .max_recv_sge = 1}};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);
	if (!qp)
		die("ibv_create_qp");
	now_us();
	printf("%s: qpn 0x%x rkey 0x%x buffer %p\n", argv[1], qp->qp_num, mr->rkey, (void *)buf);

	struct ibv_qp_attr a = {.qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = 1, .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ};
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS))
		die("INIT");
	struct ibv_sge rsge = {.addr = (uintptr_t)buf + 4096, .length = 256, .lkey = mr->lkey};
	struct ibv_recv_wr rwr = {.wr_id = 7, .sg_list = &rsge, .num_sge = 1}, *bad_r;
	if (ibv_post_recv(qp, &rwr, &bad_r) || ibv_post_recv(qp, &rwr, &bad_r))
		die("ibv_post_recv");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_1024;
	a.dest_qp_num = peer_qpn;
	a.rq_psn = 100;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.is_global = 1;
	a.ah_attr.grh.dgid.raw[10] = 0xff;
	a.ah_attr.grh.dgid.raw[11] = 0xff;
	memcpy(&a.ah_attr.grh.dgid.raw[12], &peer, 4);
	a.ah_attr.grh.hop_limit = 64;
	a.ah_attr.port_num = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER))
		die("RTR");
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.sq_psn = 100;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		die("RTS");

	struct ibv_send_wr wr = {0}, *bad;
	struct ibv_sge sge = {.lkey = mr->lkey};
	if (server) {
		struct ibv_wc wc = wait_one(cq);
		printf("server: %.3f us: %s of %u bytes, immediate 0x%x: \"%s\"\n", now_us(), wc.opcode == IBV_WC_RECV_RDMA_WITH_IMM ? "WRITE with immediate" : "?", wc.byte_len, ntohl(wc.imm_data), buf);
		strcpy(buf + 64, "hello back from the server");
		sge.addr = (uintptr_t)buf + 64;
		sge.length = (uint32_t)strlen(buf + 64) + 1;
		wr.opcode = IBV_WR_SEND;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr_id = 2;
		if (ibv_post_send(qp, &wr, &bad))
			die("ibv_post_send SEND");
		wc = wait_one(cq);
		printf("server: %.3f us: SEND completed\n", now_us());
		/* The client READs our reply back: keep the memory registered until it says goodbye. */
		wc = wait_one(cq);
		printf("server: %.3f us: goodbye, immediate 0x%x\n", now_us(), ntohl(wc.imm_data));
	} else {
		double t0 = now_us();
		strcpy(buf, "hello from the client");
		sge.addr = (uintptr_t)buf;
		sge.length = (uint32_t)strlen(buf) + 1;
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.imm_data = htonl(0x1234);
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.wr.rdma.remote_addr = (uintptr_t)BUF;
		wr.wr.rdma.rkey = FIRST_RKEY;
		if (ibv_post_send(qp, &wr, &bad))
			die("ibv_post_send WRITE");
		struct ibv_wc wc = wait_one(cq);
		printf("client: %.3f us: WRITE completed after %.3f us\n", now_us(), now_us() - t0);
		wc = wait_one(cq);
		printf("client: %.3f us: received %u bytes: \"%s\"\n", now_us(), wc.byte_len, buf + 4096);
		/* READ the server's reply back from its memory, into ours. */
		sge.addr = (uintptr_t)buf + 2048;
		sge.length = 27;
		wr.opcode = IBV_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = (uintptr_t)BUF + 64;
		if (ibv_post_send(qp, &wr, &bad))
			die("ibv_post_send READ");
		wc = wait_one(cq);
		printf("client: %.3f us: READ %u bytes: \"%s\"\n", now_us(), wc.byte_len, buf + 2048);
		wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
		wr.imm_data = htonl(0xb7e);
		sge.length = 0;
		wr.num_sge = 0;
		if (ibv_post_send(qp, &wr, &bad))
			die("ibv_post_send goodbye");
		wc = wait_one(cq);
		printf("client: %.3f us: goodbye sent\n", now_us());
	}
	ibv_destroy_qp(qp);
	ibv_dereg_mr(mr);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(devs);
	return 0;
}
