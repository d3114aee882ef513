/*
 * Prints the compiler's layout of every struct in rocelab_proto.h as JSON
 * ({"rl_hdr": {"size": 8, "offsets": {"type": 0, "len": 4}}, ...}), for proto.test.ts to compare
 * with proto.ts's table.
 */
#include <stddef.h>
#include <stdio.h>

#include "rocelab_proto.h"

static int first_struct = 1, first_field;

static void open_struct(const char *name, size_t size) {
	printf("%s\n  \"%s\": {\"size\": %zu, \"offsets\": {", first_struct ? "{" : ",", name, size);
	first_struct = 0;
	first_field = 1;
}

static void field(const char *name, size_t offset) {
	printf("%s\"%s\": %zu", first_field ? "" : ", ", name, offset);
	first_field = 0;
}

#define S(s) open_struct(#s, sizeof(struct s))
#define F(s, f) field(#f, offsetof(struct s, f))
#define END() printf("}}")

int main(void) {
	S(rl_hdr); F(rl_hdr, type); F(rl_hdr, len); END();
	S(rl_rep_hdr); F(rl_rep_hdr, type); F(rl_rep_hdr, err); F(rl_rep_hdr, now_ps); END();
	S(rl_handle); F(rl_handle, handle); F(rl_handle, pad); END();
	S(rl_time); F(rl_time, ps); END();
	S(rl_hello); F(rl_hello, version); F(rl_hello, pid); END();
	S(rl_hello_rep); F(rl_hello_rep, ip); F(rl_hello_rep, mtu); F(rl_hello_rep, mac); F(rl_hello_rep, link_bps); F(rl_hello_rep, tsc_khz); F(rl_hello_rep, host_index); F(rl_hello_rep, node); END();
	S(rl_reg_mr); F(rl_reg_mr, addr); F(rl_reg_mr, length); F(rl_reg_mr, map_start); F(rl_reg_mr, map_length); F(rl_reg_mr, access); F(rl_reg_mr, pad); F(rl_reg_mr, iova); END();
	S(rl_exit); F(rl_exit, code); F(rl_exit, signal); F(rl_exit, error); END();
	S(rl_async_event); F(rl_async_event, event_type); F(rl_async_event, element); END();
	S(rl_reg_mr_rep); F(rl_reg_mr_rep, handle); F(rl_reg_mr_rep, lkey); F(rl_reg_mr_rep, rkey); F(rl_reg_mr_rep, pad); END();
	S(rl_create_cq); F(rl_create_cq, cqe); F(rl_create_cq, channel); END();
	S(rl_poll_cq); F(rl_poll_cq, cq); F(rl_poll_cq, max); END();
	S(rl_poll_cq_rep); F(rl_poll_cq_rep, n); F(rl_poll_cq_rep, pad); END();
	S(rl_wc); F(rl_wc, wr_id); F(rl_wc, status); F(rl_wc, opcode); F(rl_wc, byte_len); F(rl_wc, imm_data); F(rl_wc, qp_num); F(rl_wc, src_qp); F(rl_wc, wc_flags); F(rl_wc, vendor_err); END();
	S(rl_req_notify); F(rl_req_notify, cq); F(rl_req_notify, solicited_only); END();
	S(rl_create_qp); F(rl_create_qp, qp_type); F(rl_create_qp, send_cq); F(rl_create_qp, recv_cq); F(rl_create_qp, srq); F(rl_create_qp, max_send_wr); F(rl_create_qp, max_recv_wr);
	F(rl_create_qp, max_send_sge); F(rl_create_qp, max_recv_sge); F(rl_create_qp, max_inline_data); F(rl_create_qp, sq_sig_all); END();
	S(rl_create_qp_rep); F(rl_create_qp_rep, qpn); F(rl_create_qp_rep, pad); END();
	S(rl_qp_attr); F(rl_qp_attr, qpn); F(rl_qp_attr, mask); F(rl_qp_attr, qp_state); F(rl_qp_attr, path_mtu); F(rl_qp_attr, dest_qp_num); F(rl_qp_attr, rq_psn); F(rl_qp_attr, sq_psn);
	F(rl_qp_attr, qp_access_flags); F(rl_qp_attr, dest_ip); F(rl_qp_attr, sl); F(rl_qp_attr, traffic_class); F(rl_qp_attr, max_rd_atomic); F(rl_qp_attr, max_dest_rd_atomic);
	F(rl_qp_attr, min_rnr_timer); F(rl_qp_attr, timeout); F(rl_qp_attr, retry_cnt); F(rl_qp_attr, rnr_retry); F(rl_qp_attr, pad); END();
	S(rl_post); F(rl_post, qpn); F(rl_post, n); END();
	S(rl_post_rep); F(rl_post_rep, posted); F(rl_post_rep, pad); END();
	S(rl_sge); F(rl_sge, addr); F(rl_sge, length); F(rl_sge, lkey); END();
	S(rl_send_wr); F(rl_send_wr, wr_id); F(rl_send_wr, opcode); F(rl_send_wr, send_flags); F(rl_send_wr, imm_data); F(rl_send_wr, num_sge); F(rl_send_wr, remote_addr); F(rl_send_wr, rkey);
	F(rl_send_wr, inline_len); F(rl_send_wr, compare_add); F(rl_send_wr, swap); F(rl_send_wr, sg_list); END();
	S(rl_recv_wr); F(rl_recv_wr, wr_id); F(rl_recv_wr, num_sge); F(rl_recv_wr, pad); F(rl_recv_wr, sg_list); END();
	S(rl_create_srq); F(rl_create_srq, max_wr); F(rl_create_srq, max_sge); END();
	printf("\n}\n");
	return 0;
}
