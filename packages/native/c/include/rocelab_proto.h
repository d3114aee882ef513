/*
 * The channel between a native program and its host's member (issue 25): one AF_UNIX
 * SOCK_SEQPACKET socket per program, inherited as ROCELAB_CHANNEL_FD. Every message is one packet,
 * little-endian, fixed-layout structs (mirrored field for field in packages/native/src/proto.ts).
 *
 * The program asks, the host answers: exactly one reply per request, in order. A request that
 * waits (poll of an empty CQ, a CQ event, a CM event, a socket read, a sleep, a spin on memory) is
 * answered when its condition holds, after the host's virtual time moved on; every other request is
 * answered at once, at the same virtual instant. Every reply carries that instant.
 *
 * Memory is the program's own: a registered buffer's pages are moved onto a memfd (same address,
 * same bytes, MAP_SHARED) whose descriptor travels with REG_MR (SCM_RIGHTS), and the host maps the
 * same file, so the NIC reads and writes the program's bytes in place.
 */
#ifndef ROCELAB_PROTO_H
#define ROCELAB_PROTO_H

#include <stdint.h>

#define RL_PROTO_VERSION 1
#define RL_MAX_MESSAGE 65536
#define RL_MAX_SGE 4
#define RL_MAX_INLINE 1024
#define RL_NODE_NAME 64

enum rl_type {
	RL_HELLO = 1,       /* rl_hello -> rl_hello_rep */
	RL_LOG = 2,         /* text (not NUL-terminated) -> nothing but the header */
	RL_UNSUPPORTED = 3, /* text: the call's name; counted in the program's report */
	RL_EXIT = 4,        /* rl_exit, from rocelab-launch once the program ended: never answered */

	RL_REG_MR = 10,   /* rl_reg_mr + the memfd -> rl_reg_mr_rep */
	RL_DEREG_MR = 11, /* rl_handle */

	RL_CREATE_CQ = 20,      /* rl_create_cq -> rl_handle */
	RL_DESTROY_CQ = 21,     /* rl_handle */
	RL_POLL_CQ = 22,        /* rl_poll_cq -> rl_poll_cq_rep + n x rl_wc. An empty CQ is a wait for anything (rocelab_wait_any) */
	RL_REQ_NOTIFY_CQ = 23,  /* rl_req_notify */
	RL_GET_CQ_EVENT = 24,   /* rl_handle (channel) -> rl_handle (cq): a wait */
	RL_CREATE_CHANNEL = 25, /* -> rl_handle */

	RL_CREATE_QP = 30,  /* rl_create_qp -> rl_create_qp_rep */
	RL_MODIFY_QP = 31,  /* rl_qp_attr */
	RL_QUERY_QP = 32,   /* rl_handle (qpn) -> rl_qp_attr */
	RL_DESTROY_QP = 33, /* rl_handle (qpn) */
	RL_POST_SEND = 34,  /* rl_post + n x (rl_send_wr, inline bytes padded to 8) -> rl_post_rep */
	RL_POST_RECV = 35,  /* rl_post + n x rl_recv_wr -> rl_post_rep */
	RL_CREATE_SRQ = 36, /* rl_create_srq -> rl_handle */
	RL_POST_SRQ_RECV = 37, /* rl_post (qpn = srq handle) + n x rl_recv_wr -> rl_post_rep */
	RL_DESTROY_SRQ = 38,   /* rl_handle */

	RL_GET_ASYNC_EVENT = 26, /* -> rl_async_event: a wait */

	RL_SLEEP_UNTIL = 40, /* rl_time: a wait until that virtual instant */
	RL_WAIT_ANY = 41,    /* a wait for the next thing the program could see; with an rl_time, until that instant at the latest */

	/* Threads (threads.c): each thread the program starts speaks on a channel of its own, and the
	 * host resumes one thread of a program at a time (see program-host.ts). */
	RL_THREAD_NEW = 42,   /* + the host's end of a new SOCK_SEQPACKET pair -> rl_handle (the thread's index) */
	RL_THREAD_START = 43, /* a new thread's first request, on its channel: answered when the host resumes it */
	RL_THREAD_EXIT = 44,  /* a thread's last word on its channel: never answered */
	RL_THREAD_YIELD = 45, /* rl_handle (flags: RL_YIELD_*) : a wait until another thread says RL_THREAD_WAKE or ends */
	RL_THREAD_WAKE = 46,  /* ends every RL_THREAD_YIELD of the program (a semaphore posted, an rdma_cm event queued) */

	/* 50..69: sockets to pod addresses (sockets.c); 70..99: rdma_cm (rdmacm.c). */
};

/* RL_THREAD_YIELD flags */
#define RL_YIELD_SEEN 1u /* also ends at the next thing the program could see (a socket's news, a completion) */

struct rl_hdr {
	uint32_t type;
	uint32_t len; /* of the whole packet, header included */
};

struct rl_rep_hdr {
	uint32_t type;  /* the request's */
	int32_t err;    /* 0, or a positive errno */
	uint64_t now_ps; /* the host's virtual time when it answered */
};

struct rl_handle {
	uint32_t handle;
	uint32_t pad;
};

struct rl_time {
	uint64_t ps;
};

struct rl_hello {
	uint32_t version;
	uint32_t pid;
};

struct rl_hello_rep {
	uint32_t ip;        /* the host's IPv4 address, host order: GID index 0 is ::ffff:ip */
	uint32_t mtu;       /* the port's active MTU (IBV_MTU_* enum value) */
	uint64_t mac;       /* low 48 bits */
	uint64_t link_bps;  /* the host link's rate */
	uint32_t tsc_khz;   /* the TSC's virtual frequency */
	uint32_t host_index; /* the host's index in the pod (QP numbers and rkeys are derived from it) */
	char node[RL_NODE_NAME];
};

struct rl_exit {
	int32_t code;   /* the exit status, or -1 when a signal ended it */
	int32_t signal; /* that signal, or 0 */
	char error[200]; /* why it could not run at all (exec failed), or empty */
};

struct rl_reg_mr {
	uint64_t addr;       /* what the program registered */
	uint64_t length;
	uint64_t map_start;  /* the page-aligned range the memfd covers (file offset 0 = map_start) */
	uint64_t map_length;
	uint32_t access;     /* IBV_ACCESS_* */
	uint32_t pad;
	uint64_t iova;       /* the address remote peers name (ibv_reg_mr_iova2; = addr otherwise) */
};

struct rl_reg_mr_rep {
	uint32_t handle;
	uint32_t lkey;
	uint32_t rkey;
	uint32_t pad;
};

struct rl_create_cq {
	uint32_t cqe;
	uint32_t channel; /* 0: none */
};

struct rl_poll_cq {
	uint32_t cq;
	uint32_t max; /* at most (RL_MAX_MESSAGE - headers) / sizeof(struct rl_wc) */
};

struct rl_poll_cq_rep {
	uint32_t n;
	uint32_t pad;
};

struct rl_wc { /* struct ibv_wc's fields */
	uint64_t wr_id;
	uint32_t status;   /* enum ibv_wc_status */
	uint32_t opcode;   /* enum ibv_wc_opcode */
	uint32_t byte_len;
	uint32_t imm_data; /* network order, as ibv_wc carries it */
	uint32_t qp_num;
	uint32_t src_qp;
	uint32_t wc_flags; /* IBV_WC_WITH_IMM, ... */
	uint32_t vendor_err;
};

struct rl_req_notify {
	uint32_t cq;
	uint32_t solicited_only;
};

struct rl_create_qp {
	uint32_t qp_type; /* IBV_QPT_RC (UD: EOPNOTSUPP for now) */
	uint32_t send_cq;
	uint32_t recv_cq;
	uint32_t srq; /* 0: none */
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	uint32_t sq_sig_all;
};

struct rl_create_qp_rep {
	uint32_t qpn;
	uint32_t pad;
};

struct rl_qp_attr { /* what ibv_modify_qp may change, and ibv_query_qp reads */
	uint32_t qpn;
	uint32_t mask;      /* IBV_QP_* */
	uint32_t qp_state;  /* enum ibv_qp_state */
	uint32_t path_mtu;  /* enum ibv_mtu */
	uint32_t dest_qp_num;
	uint32_t rq_psn;
	uint32_t sq_psn;
	uint32_t qp_access_flags;
	uint32_t dest_ip;   /* from ah_attr.grh.dgid (::ffff:a.b.c.d) or the pod's address for the dlid */
	uint32_t sl;
	uint32_t traffic_class;
	uint32_t max_rd_atomic;
	uint32_t max_dest_rd_atomic;
	uint32_t min_rnr_timer;
	uint32_t timeout;
	uint32_t retry_cnt;
	uint32_t rnr_retry;
	uint32_t pad;
};

struct rl_post {
	uint32_t qpn;
	uint32_t n;
};

struct rl_post_rep {
	uint32_t posted; /* how many were taken; with err != 0, the first refused is the next */
	uint32_t pad;
};

struct rl_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

struct rl_send_wr {
	uint64_t wr_id;
	uint32_t opcode;     /* enum ibv_wr_opcode */
	uint32_t send_flags; /* IBV_SEND_* */
	uint32_t imm_data;   /* network order */
	uint32_t num_sge;
	uint64_t remote_addr;
	uint32_t rkey;
	uint32_t inline_len; /* IBV_SEND_INLINE: the bytes follow, padded to 8; the sges are not kept */
	uint64_t compare_add;
	uint64_t swap;
	struct rl_sge sg_list[RL_MAX_SGE];
};

struct rl_recv_wr {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t pad;
	struct rl_sge sg_list[RL_MAX_SGE];
};

struct rl_async_event {
	uint32_t event_type; /* enum ibv_event_type */
	uint32_t element;    /* the QP number, CQ or SRQ handle it is about */
};

struct rl_create_srq {
	uint32_t max_wr;
	uint32_t max_sge;
};

#endif
