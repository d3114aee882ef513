/*
 * librdmacm.so.1 for rocelab0 (issue 25), first cut: every call a program makes fails with
 * EOPNOTSUPP and a log line naming it (rocelab_unsupported), so programs that link rdma_cm but use
 * the verbs (perftest without -R) load and run. The connection manager itself comes next.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT int raccept(void) { rocelab_unsupported("raccept"); return -1; }
EXPORT int rbind(void) { rocelab_unsupported("rbind"); return -1; }
EXPORT int rclose(void) { rocelab_unsupported("rclose"); return -1; }
EXPORT int rconnect(void) { rocelab_unsupported("rconnect"); return -1; }
EXPORT int rdma_accept(void) { rocelab_unsupported("rdma_accept"); return -1; }
EXPORT int rdma_ack_cm_event(void) { rocelab_unsupported("rdma_ack_cm_event"); return -1; }
EXPORT int rdma_bind_addr(void) { rocelab_unsupported("rdma_bind_addr"); return -1; }
EXPORT int rdma_connect(void) { rocelab_unsupported("rdma_connect"); return -1; }
EXPORT int rdma_create_ep(void) { rocelab_unsupported("rdma_create_ep"); return -1; }
EXPORT int rdma_create_id(void) { rocelab_unsupported("rdma_create_id"); return -1; }
EXPORT int rdma_create_qp(void) { rocelab_unsupported("rdma_create_qp"); return -1; }
EXPORT int rdma_create_srq(void) { rocelab_unsupported("rdma_create_srq"); return -1; }
EXPORT int rdma_create_srq_ex(void) { rocelab_unsupported("rdma_create_srq_ex"); return -1; }
EXPORT int rdma_destroy_ep(void) { rocelab_unsupported("rdma_destroy_ep"); return -1; }
EXPORT int rdma_destroy_id(void) { rocelab_unsupported("rdma_destroy_id"); return -1; }
EXPORT int rdma_disconnect(void) { rocelab_unsupported("rdma_disconnect"); return -1; }
EXPORT int rdma_get_cm_event(void) { rocelab_unsupported("rdma_get_cm_event"); return -1; }
EXPORT int rdma_get_request(void) { rocelab_unsupported("rdma_get_request"); return -1; }
EXPORT int rdma_getaddrinfo(void) { rocelab_unsupported("rdma_getaddrinfo"); return -1; }
EXPORT int rdma_join_multicast(void) { rocelab_unsupported("rdma_join_multicast"); return -1; }
EXPORT int rdma_leave_multicast(void) { rocelab_unsupported("rdma_leave_multicast"); return -1; }
EXPORT int rdma_listen(void) { rocelab_unsupported("rdma_listen"); return -1; }
EXPORT int rdma_migrate_id(void) { rocelab_unsupported("rdma_migrate_id"); return -1; }
EXPORT int rdma_notify(void) { rocelab_unsupported("rdma_notify"); return -1; }
EXPORT int rdma_reject(void) { rocelab_unsupported("rdma_reject"); return -1; }
EXPORT int rdma_resolve_addr(void) { rocelab_unsupported("rdma_resolve_addr"); return -1; }
EXPORT int rdma_resolve_route(void) { rocelab_unsupported("rdma_resolve_route"); return -1; }
EXPORT int rdma_set_option(void) { rocelab_unsupported("rdma_set_option"); return -1; }
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
EXPORT int rdma_join_multicast_ex(void) { rocelab_unsupported("rdma_join_multicast_ex"); return -1; }
EXPORT int rdma_establish(void) { rocelab_unsupported("rdma_establish"); return -1; }
EXPORT int rdma_init_qp_attr(void) { rocelab_unsupported("rdma_init_qp_attr"); return -1; }
EXPORT int rdma_get_remote_ece(void) { rocelab_unsupported("rdma_get_remote_ece"); return -1; }
EXPORT int rdma_reject_ece(void) { rocelab_unsupported("rdma_reject_ece"); return -1; }
EXPORT int rdma_set_local_ece(void) { rocelab_unsupported("rdma_set_local_ece"); return -1; }
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
EXPORT void *rdma_create_event_channel(void) { rocelab_unsupported("rdma_create_event_channel"); return NULL; }
EXPORT void *rdma_get_devices(void) { rocelab_unsupported("rdma_get_devices"); return NULL; }
EXPORT void *rdma_create_qp_ex(void) { rocelab_unsupported("rdma_create_qp_ex"); return NULL; }
EXPORT void rdma_destroy_event_channel(void) { }
EXPORT void rdma_freeaddrinfo(void) { }
EXPORT void rdma_free_devices(void) { }
EXPORT void rdma_destroy_qp(void) { }
EXPORT void rdma_destroy_srq(void) { }
EXPORT uint16_t rdma_get_dst_port(void) { return 0; }
EXPORT uint16_t rdma_get_src_port(void) { return 0; }

EXPORT const char *rdma_event_str(int event)
{
	static const char *const text[] = {
		"RDMA_CM_EVENT_ADDR_RESOLVED", "RDMA_CM_EVENT_ADDR_ERROR", "RDMA_CM_EVENT_ROUTE_RESOLVED",
		"RDMA_CM_EVENT_ROUTE_ERROR", "RDMA_CM_EVENT_CONNECT_REQUEST", "RDMA_CM_EVENT_CONNECT_RESPONSE",
		"RDMA_CM_EVENT_CONNECT_ERROR", "RDMA_CM_EVENT_UNREACHABLE", "RDMA_CM_EVENT_REJECTED",
		"RDMA_CM_EVENT_ESTABLISHED", "RDMA_CM_EVENT_DISCONNECTED", "RDMA_CM_EVENT_DEVICE_REMOVAL",
		"RDMA_CM_EVENT_MULTICAST_JOIN", "RDMA_CM_EVENT_MULTICAST_ERROR", "RDMA_CM_EVENT_ADDR_CHANGE",
		"RDMA_CM_EVENT_TIMEWAIT_EXIT",
	};
	return event >= 0 && event < (int)(sizeof(text) / sizeof(text[0])) ? text[event] : "UNKNOWN EVENT";
}

