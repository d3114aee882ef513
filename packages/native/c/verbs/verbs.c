/*
 * libibverbs.so.1 for the rocelab0 device (issue 25): what an unmodified verbs program links, with
 * rdma-core's symbol versions (libibverbs.map), so Debian's perftest and ibverbs-utils load it
 * through LD_LIBRARY_PATH in place of rdma-core's.
 *
 * Every object lives in the host's member (the emulated NIC): this library keeps the structs the
 * program sees (their layouts are verbs.h's, which the program was compiled against) and turns each
 * verb into one request on the program's channel (core.h, rocelab_proto.h). The data path is not
 * here either: a registered buffer's pages are shared with the host (rl_reg below), so the NIC
 * reads and writes the program's memory in place.
 *
 * Under no host (no ROCELAB_CHANNEL_FD) the device list is empty, as on a machine without RDMA.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <infiniband/verbs.h>

#include "core.h"
#include "rocelab_proto.h"

#undef ibv_reg_mr
#undef ibv_reg_mr_iova
#undef ibv_query_port
#undef ibv_get_device_list

#define EXPORT __attribute__((visibility("default")))

/* The pieces of rdma-core's private ABI the ibverbs utilities use (IBVERBS_PRIVATE_34). */
enum ibv_gid_type_sysfs { IBV_GID_TYPE_SYSFS_IB_ROCE_V1 = 0, IBV_GID_TYPE_SYSFS_ROCE_V2 = 1 };
struct _compat_ibv_port_attr;

static struct ibv_device rl_device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = "rocelab0",
	.dev_name = "uverbs0",
	.dev_path = "/sys/class/infiniband_verbs/uverbs0",
	.ibdev_path = "/sys/class/infiniband/rocelab0",
};

/* The GUIDs are the host's MAC as an EUI-64, as mlx5 makes them for RoCE. */
static __be64 rl_guid(void)
{
	const struct rl_hello_rep *h = rocelab_host();
	uint64_t mac = h ? h->mac : 0;
	uint64_t eui = ((mac >> 24) & 0xffffff) << 40 | 0xfffeULL << 24 | (mac & 0xffffff);
	eui ^= 1ULL << 57; /* the universal/local bit */
	return htobe64(eui);
}

/* GID index 0: the host's IPv4 address, IPv4-mapped (RoCEv2). */
static void rl_gid(union ibv_gid *gid)
{
	const struct rl_hello_rep *h = rocelab_host();
	memset(gid, 0, sizeof(*gid));
	gid->raw[10] = 0xff;
	gid->raw[11] = 0xff;
	uint32_t ip = htonl(h ? h->ip : 0);
	memcpy(&gid->raw[12], &ip, 4);
}

static int fail(int err)
{
	errno = err;
	return err;
}

/* A request whose reply carries no body: returns 0 or a positive errno (errno set too). */
static int call0(uint32_t type, const void *req, size_t len)
{
	int err = rocelab_call(type, req, len, -1, NULL, 0, NULL);
	return err ? fail(err) : 0;
}

/* ---------------------------------------------------------------- devices */

EXPORT struct ibv_device **ibv_get_device_list(int *num)
{
	struct ibv_device **list = calloc(2, sizeof(*list));
	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	int n = 0;
	if (rocelab_attached() && rocelab_host() != NULL)
		list[n++] = &rl_device;
	if (num)
		*num = n;
	return list;
}

EXPORT void ibv_free_device_list(struct ibv_device **list) { free(list); }
EXPORT const char *ibv_get_device_name(struct ibv_device *device) { return device->name; }
EXPORT __be64 ibv_get_device_guid(struct ibv_device *device) { return rl_guid(); }
EXPORT int ibv_get_device_index(struct ibv_device *device) { return 0; }

static int rl_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc);
static int rl_req_notify_cq(struct ibv_cq *cq, int solicited_only);
static int rl_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad);
static int rl_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
static int rl_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad);
static int rl_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr, size_t len);
static int rl_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input, struct ibv_device_attr_ex *attr, size_t size);

EXPORT struct ibv_context *ibv_open_device(struct ibv_device *device)
{
	if (device != &rl_device || !rocelab_attached()) {
		errno = ENODEV;
		return NULL;
	}
	struct verbs_context *v = calloc(1, sizeof(*v));
	if (!v) {
		errno = ENOMEM;
		return NULL;
	}
	v->sz = sizeof(*v);
	v->query_port = rl_query_port;
	v->query_device_ex = rl_query_device_ex;
	struct ibv_context *ctx = &v->context;
	ctx->device = device;
	ctx->abi_compat = __VERBS_ABI_IS_EXTENDED;
	ctx->ops.poll_cq = rl_poll_cq;
	ctx->ops.req_notify_cq = rl_req_notify_cq;
	ctx->ops.post_send = rl_post_send;
	ctx->ops.post_recv = rl_post_recv;
	ctx->ops.post_srq_recv = rl_post_srq_recv;
	/* Descriptors a program may hold or poll: they never become readable (events come through the
	 * verbs that wait for them). */
	ctx->cmd_fd = eventfd(0, EFD_CLOEXEC);
	ctx->async_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ctx->num_comp_vectors = 1;
	pthread_mutex_init(&ctx->mutex, NULL);
	return ctx;
}

EXPORT int ibv_close_device(struct ibv_context *ctx)
{
	close(ctx->cmd_fd);
	close(ctx->async_fd);
	free(verbs_get_ctx(ctx));
	return 0;
}

static void fill_device_attr(struct ibv_device_attr *a)
{
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "rocelab-1");
	a->node_guid = rl_guid();
	a->sys_image_guid = rl_guid();
	a->max_mr_size = 1ULL << 40;
	a->page_size_cap = 0xfffff000;
	a->vendor_id = 0; /* not a vendor's: programs take their generic paths */
	a->vendor_part_id = 0;
	a->hw_ver = 1;
	a->max_qp = 1 << 10;
	a->max_qp_wr = 1 << 15;
	a->device_cap_flags = IBV_DEVICE_RC_RNR_NAK_GEN | IBV_DEVICE_PORT_ACTIVE_EVENT | IBV_DEVICE_SRQ_RESIZE;
	a->max_sge = RL_MAX_SGE;
	a->max_sge_rd = RL_MAX_SGE;
	a->max_cq = 1 << 12;
	a->max_cqe = (1 << 22) - 1;
	a->max_mr = 1 << 12;
	a->max_pd = 1 << 12;
	a->max_qp_rd_atom = 16;
	a->max_ee_rd_atom = 0;
	a->max_res_rd_atom = 16 << 10;
	a->max_qp_init_rd_atom = 16;
	a->atomic_cap = IBV_ATOMIC_HCA;
	a->max_srq = 1 << 10;
	a->max_srq_wr = 1 << 15;
	a->max_srq_sge = RL_MAX_SGE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 16;
	a->phys_port_cnt = 1;
}

EXPORT int ibv_query_device(struct ibv_context *ctx, struct ibv_device_attr *attr)
{
	fill_device_attr(attr);
	return 0;
}

static int rl_query_device_ex(struct ibv_context *ctx, const struct ibv_query_device_ex_input *input, struct ibv_device_attr_ex *attr, size_t size)
{
	if (input && input->comp_mask)
		return EINVAL;
	if (size < sizeof(attr->orig_attr))
		return EINVAL;
	memset(attr, 0, size);
	fill_device_attr(&attr->orig_attr);
	return 0;
}

/* A port's width and speed codes for the host link's rate: 4X (code 2) or 1X (1) lanes of SDR 2.5
 * Gb/s (1), DDR 5 (2), QDR 10 (4), FDR 14 (16), EDR 25 (32), HDR 50 (64) or NDR 100 (128), the
 * first that makes the rate exactly; 4X EDR otherwise. */
static void link_speed(uint64_t bps, uint8_t *width, uint8_t *speed)
{
	static const struct { uint64_t lane; uint8_t code; } lanes[] = {
		{2500000000ULL, 1}, {5000000000ULL, 2}, {10000000000ULL, 4}, {14000000000ULL, 16},
		{25000000000ULL, 32}, {50000000000ULL, 64}, {100000000000ULL, 128},
	};
	static const struct { unsigned n; uint8_t code; } widths[] = {{4, 2}, {1, 1}};
	for (unsigned w = 0; w < 2; w++)
		for (unsigned l = 0; l < sizeof(lanes) / sizeof(lanes[0]); l++)
			if (lanes[l].lane * widths[w].n == bps) {
				*width = widths[w].code;
				*speed = lanes[l].code;
				return;
			}
	*width = 2;
	*speed = 32;
}

static int rl_query_port(struct ibv_context *ctx, uint8_t port, struct ibv_port_attr *attr, size_t len)
{
	if (port != 1)
		return EINVAL;
	const struct rl_hello_rep *h = rocelab_host();
	struct ibv_port_attr a;
	memset(&a, 0, sizeof(a));
	a.state = IBV_PORT_ACTIVE;
	a.max_mtu = IBV_MTU_4096;
	a.active_mtu = h ? (enum ibv_mtu)h->mtu : IBV_MTU_1024;
	a.gid_tbl_len = 1;
	a.port_cap_flags = IBV_PORT_CM_SUP;
	a.max_msg_sz = 1U << 31;
	a.pkey_tbl_len = 1;
	a.max_vl_num = 4;
	link_speed(h ? h->link_bps : 100000000000ULL, &a.active_width, &a.active_speed);
	a.phys_state = 5; /* LinkUp */
	a.link_layer = IBV_LINK_LAYER_ETHERNET;
	memcpy(attr, &a, len < sizeof(a) ? len : sizeof(a));
	return 0;
}

/* The symbol programs built against older headers call (and the inline's fallback). */
EXPORT int ibv_query_port(struct ibv_context *ctx, uint8_t port, struct _compat_ibv_port_attr *attr)
{
	return rl_query_port(ctx, port, (struct ibv_port_attr *)attr, sizeof(struct ibv_port_attr));
}

EXPORT int ibv_query_gid(struct ibv_context *ctx, uint8_t port, int index, union ibv_gid *gid)
{
	if (port != 1 || index != 0)
		return fail(EINVAL);
	rl_gid(gid);
	return 0;
}

EXPORT int ibv_query_gid_type(struct ibv_context *ctx, uint8_t port, unsigned int index, enum ibv_gid_type_sysfs *type)
{
	if (port != 1 || index != 0)
		return fail(EINVAL);
	*type = IBV_GID_TYPE_SYSFS_ROCE_V2;
	return 0;
}

EXPORT int _ibv_query_gid_ex(struct ibv_context *ctx, uint32_t port, uint32_t index, struct ibv_gid_entry *entry, uint32_t flags, size_t size)
{
	if (port != 1 || index != 0 || flags != 0)
		return fail(EINVAL);
	struct ibv_gid_entry e;
	memset(&e, 0, sizeof(e));
	rl_gid(&e.gid);
	e.gid_index = 0;
	e.port_num = 1;
	e.gid_type = IBV_GID_TYPE_ROCE_V2;
	memcpy(entry, &e, size < sizeof(e) ? size : sizeof(e));
	return 0;
}

EXPORT ssize_t _ibv_query_gid_table(struct ibv_context *ctx, struct ibv_gid_entry *entries, size_t max, uint32_t flags, size_t size)
{
	if (max < 1)
		return -EINVAL;
	int err = _ibv_query_gid_ex(ctx, 1, 0, entries, flags, size);
	return err ? -err : 1;
}

EXPORT int ibv_query_pkey(struct ibv_context *ctx, uint8_t port, int index, __be16 *pkey)
{
	if (port != 1 || index != 0)
		return fail(EINVAL);
	*pkey = htons(0xffff);
	return 0;
}

EXPORT int ibv_get_pkey_index(struct ibv_context *ctx, uint8_t port, __be16 pkey)
{
	return pkey == htons(0xffff) ? 0 : -1;
}

/* rdma-core's sysfs helpers: rocelab0 has no sysfs; what the utilities read there they go without. */
EXPORT int ibv_read_sysfs_file(const char *dir, const char *file, char *buf, size_t size) { return -1; }
EXPORT int ibv_read_ibdev_sysfs_file(char *buf, size_t size, const char *fmt, ...) { return -1; }
EXPORT int ibv_get_sysfs_path(char *buf, size_t size) { return -1; }
EXPORT int ibv_fork_init(void) { return 0; }
EXPORT int ibv_dontfork_range(void *base, size_t size) { return 0; }
EXPORT int ibv_dofork_range(void *base, size_t size) { return 0; }
EXPORT enum ibv_fork_status ibv_is_fork_initialized(void) { return IBV_FORK_DISABLED; }

/* ---------------------------------------------------------------- PD, MR */

EXPORT struct ibv_pd *ibv_alloc_pd(struct ibv_context *ctx)
{
	static uint32_t next = 1;
	struct ibv_pd *pd = calloc(1, sizeof(*pd));
	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->context = ctx;
	pd->handle = __atomic_fetch_add(&next, 1, __ATOMIC_RELAXED);
	return pd;
}

EXPORT int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

/*
 * The pages of each registration, moved onto a memfd the host maps too. A registration inside
 * pages already moved reuses their file; one that partly overlaps them is refused (moving the union
 * would leave the host's earlier view on the old file).
 */
struct rl_pages {
	uintptr_t start, end;
	int fd;
	int users;
	struct rl_pages *next;
};
static struct rl_pages *pages;
static pthread_mutex_t pages_lock = PTHREAD_MUTEX_INITIALIZER;

struct rl_mr {
	struct ibv_mr mr;
	struct rl_pages *pages;
};

static struct rl_pages *share_pages(uintptr_t start, uintptr_t end, int *err)
{
	for (struct rl_pages *p = pages; p; p = p->next) {
		if (start >= p->start && end <= p->end) {
			p->users++;
			return p;
		}
		if (start < p->end && end > p->start) {
			*err = EINVAL;
			rocelab_log("ibv_reg_mr: [0x%lx, 0x%lx) partly overlaps the registered pages [0x%lx, 0x%lx): rocelab0 shares whole registrations or ranges inside them only", (unsigned long)start, (unsigned long)end, (unsigned long)p->start, (unsigned long)p->end);
			return NULL;
		}
	}
	size_t len = end - start;
	int fd = memfd_create("rocelab-mr", MFD_CLOEXEC);
	if (fd < 0) {
		*err = errno;
		return NULL;
	}
	/* The file takes the pages' bytes as they are now, then replaces them at the same address. */
	if (ftruncate(fd, (off_t)len) != 0) {
		*err = errno;
		close(fd);
		return NULL;
	}
	for (size_t done = 0; done < len;) {
		ssize_t n = pwrite(fd, (const void *)(start + done), len - done, (off_t)done);
		if (n <= 0) {
			*err = n < 0 ? errno : EFAULT;
			close(fd);
			return NULL;
		}
		done += (size_t)n;
	}
	if (mmap((void *)start, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) == MAP_FAILED) {
		*err = errno;
		close(fd);
		return NULL;
	}
	rocelab_memory_shared(start, end);
	struct rl_pages *p = calloc(1, sizeof(*p));
	p->start = start;
	p->end = end;
	p->fd = fd;
	p->users = 1;
	p->next = pages;
	pages = p;
	return p;
}

static struct ibv_mr *rl_reg(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	if (length == 0 || addr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t start = (uintptr_t)addr & ~(uintptr_t)(page - 1);
	uintptr_t end = ((uintptr_t)addr + length + (uintptr_t)page - 1) & ~(uintptr_t)(page - 1);
	int err = 0;
	pthread_mutex_lock(&pages_lock);
	struct rl_pages *p = share_pages(start, end, &err);
	pthread_mutex_unlock(&pages_lock);
	if (!p) {
		errno = err;
		return NULL;
	}
	struct rl_reg_mr req = {
		.addr = (uintptr_t)addr,
		.length = length,
		.map_start = p->start,
		.map_length = p->end - p->start,
		.access = access,
		.iova = iova,
	};
	struct rl_reg_mr_rep rep;
	err = rocelab_call(RL_REG_MR, &req, sizeof(req), p->fd, &rep, sizeof(rep), NULL);
	if (err) {
		errno = err;
		return NULL;
	}
	struct rl_mr *m = calloc(1, sizeof(*m));
	m->mr.context = pd->context;
	m->mr.pd = pd;
	m->mr.addr = addr;
	m->mr.length = length;
	m->mr.handle = rep.handle;
	m->mr.lkey = rep.lkey;
	m->mr.rkey = rep.rkey;
	m->pages = p;
	return &m->mr;
}

EXPORT struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return rl_reg(pd, addr, length, (uintptr_t)addr, (unsigned int)access);
}

EXPORT struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access)
{
	return rl_reg(pd, addr, length, iova, (unsigned int)access);
}

EXPORT struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access)
{
	return rl_reg(pd, addr, length, iova, access);
}

EXPORT int ibv_dereg_mr(struct ibv_mr *mr)
{
	struct rl_handle req = {.handle = mr->handle};
	int err = call0(RL_DEREG_MR, &req, sizeof(req));
	if (err)
		return err;
	/* The pages stay on their file: the program's bytes are there, and unmapping them would take
	 * its memory away. */
	struct rl_mr *m = (struct rl_mr *)mr;
	pthread_mutex_lock(&pages_lock);
	m->pages->users--;
	pthread_mutex_unlock(&pages_lock);
	free(m);
	return 0;
}

EXPORT int ibv_rereg_mr(struct ibv_mr *mr, int flags, struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return rocelab_unsupported("ibv_rereg_mr");
}

/* ---------------------------------------------------------------- CQ and completion channels */

EXPORT struct ibv_comp_channel *ibv_create_comp_channel(struct ibv_context *ctx)
{
	struct rl_handle rep;
	int err = rocelab_call(RL_CREATE_CHANNEL, NULL, 0, -1, &rep, sizeof(rep), NULL);
	if (err) {
		errno = err;
		return NULL;
	}
	struct ibv_comp_channel *ch = calloc(1, sizeof(*ch));
	ch->context = ctx;
	/* Its descriptor never becomes readable: a program waits for events with ibv_get_cq_event. */
	ch->fd = eventfd(0, EFD_CLOEXEC);
	ch->refcnt = (int)rep.handle; /* the host's handle: refcnt is the one field rdma-core keeps to itself */
	return ch;
}

EXPORT int ibv_destroy_comp_channel(struct ibv_comp_channel *ch)
{
	close(ch->fd);
	free(ch);
	return 0;
}

EXPORT struct ibv_cq *ibv_create_cq(struct ibv_context *ctx, int cqe, void *cq_context, struct ibv_comp_channel *channel, int comp_vector)
{
	if (cqe < 1) {
		errno = EINVAL;
		return NULL;
	}
	struct rl_create_cq req = {.cqe = (uint32_t)cqe, .channel = channel ? (uint32_t)channel->refcnt : 0};
	struct rl_handle rep;
	int err = rocelab_call(RL_CREATE_CQ, &req, sizeof(req), -1, &rep, sizeof(rep), NULL);
	if (err) {
		errno = err;
		return NULL;
	}
	struct ibv_cq *cq = calloc(1, sizeof(*cq));
	cq->context = ctx;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->handle = rep.handle;
	cq->cqe = cqe;
	pthread_mutex_init(&cq->mutex, NULL);
	pthread_cond_init(&cq->cond, NULL);
	return cq;
}

EXPORT int ibv_resize_cq(struct ibv_cq *cq, int cqe) { return rocelab_unsupported("ibv_resize_cq"); }

EXPORT int ibv_destroy_cq(struct ibv_cq *cq)
{
	struct rl_handle req = {.handle = cq->handle};
	int err = call0(RL_DESTROY_CQ, &req, sizeof(req));
	if (err)
		return err;
	free(cq);
	return 0;
}

/* The CQs a program made, by the host's handle: what ibv_get_cq_event hands back. */
#define MAX_CQS 4096
static struct ibv_cq *cq_by_handle[MAX_CQS];

static int rl_poll_cq(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	if (n <= 0)
		return 0;
	enum { MAX_WC = (RL_MAX_MESSAGE - 64) / sizeof(struct rl_wc) };
	struct rl_poll_cq req = {.cq = cq->handle, .max = (uint32_t)(n < MAX_WC ? n : MAX_WC)};
	static __thread struct {
		struct rl_poll_cq_rep rep;
		struct rl_wc wc[MAX_WC];
	} out;
	int err = rocelab_call(RL_POLL_CQ, &req, sizeof(req), -1, &out, sizeof(out), NULL);
	if (err) {
		errno = err;
		return -1;
	}
	for (uint32_t i = 0; i < out.rep.n; i++) {
		const struct rl_wc *w = &out.wc[i];
		memset(&wc[i], 0, sizeof(wc[i]));
		wc[i].wr_id = w->wr_id;
		wc[i].status = (enum ibv_wc_status)w->status;
		wc[i].opcode = (enum ibv_wc_opcode)w->opcode;
		wc[i].vendor_err = w->vendor_err;
		wc[i].byte_len = w->byte_len;
		wc[i].imm_data = w->imm_data;
		wc[i].qp_num = w->qp_num;
		wc[i].src_qp = w->src_qp;
		wc[i].wc_flags = w->wc_flags;
	}
	return (int)out.rep.n;
}

static int rl_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	if ((uint32_t)cq->handle < MAX_CQS)
		cq_by_handle[cq->handle] = cq;
	struct rl_req_notify req = {.cq = cq->handle, .solicited_only = (uint32_t)solicited_only};
	return call0(RL_REQ_NOTIFY_CQ, &req, sizeof(req));
}

EXPORT int ibv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context)
{
	struct rl_handle req = {.handle = (uint32_t)channel->refcnt};
	struct rl_handle rep;
	int err = rocelab_call(RL_GET_CQ_EVENT, &req, sizeof(req), -1, &rep, sizeof(rep), NULL);
	if (err) {
		errno = err;
		return -1;
	}
	struct ibv_cq *c = rep.handle < MAX_CQS ? cq_by_handle[rep.handle] : NULL;
	if (!c) {
		errno = EIO;
		return -1;
	}
	*cq = c;
	*cq_context = c->cq_context;
	return 0;
}

EXPORT void ibv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_mutex_unlock(&cq->mutex);
}

/* ---------------------------------------------------------------- async events */

EXPORT int ibv_get_async_event(struct ibv_context *ctx, struct ibv_async_event *event)
{
	struct rl_async_event rep;
	int err = rocelab_call(RL_GET_ASYNC_EVENT, NULL, 0, -1, &rep, sizeof(rep), NULL);
	if (err)
		return fail(err);
	memset(event, 0, sizeof(*event));
	event->event_type = (enum ibv_event_type)rep.event_type;
	event->element.port_num = (int)rep.element;
	return 0;
}

EXPORT void ibv_ack_async_event(struct ibv_async_event *event) {}

/* ---------------------------------------------------------------- SRQ */

struct rl_srq {
	struct ibv_srq srq;
	uint32_t max_wr, max_sge;
};

EXPORT struct ibv_srq *ibv_create_srq(struct ibv_pd *pd, struct ibv_srq_init_attr *attr)
{
	struct rl_create_srq req = {.max_wr = attr->attr.max_wr, .max_sge = attr->attr.max_sge};
	if (req.max_sge > RL_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	struct rl_handle rep;
	int err = rocelab_call(RL_CREATE_SRQ, &req, sizeof(req), -1, &rep, sizeof(rep), NULL);
	if (err) {
		errno = err;
		return NULL;
	}
	struct rl_srq *s = calloc(1, sizeof(*s));
	s->srq.context = pd->context;
	s->srq.srq_context = attr->srq_context;
	s->srq.pd = pd;
	s->srq.handle = rep.handle;
	s->max_wr = req.max_wr;
	s->max_sge = req.max_sge;
	pthread_mutex_init(&s->srq.mutex, NULL);
	pthread_cond_init(&s->srq.cond, NULL);
	return &s->srq;
}

EXPORT int ibv_modify_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr, int mask)
{
	/* The limit event (IBV_SRQ_LIMIT) is the one thing programs set; rocelab0 never raises it. */
	if (mask & ~IBV_SRQ_LIMIT)
		return rocelab_unsupported("ibv_modify_srq (resize)");
	return 0;
}

EXPORT int ibv_query_srq(struct ibv_srq *srq, struct ibv_srq_attr *attr)
{
	struct rl_srq *s = (struct rl_srq *)srq;
	attr->max_wr = s->max_wr;
	attr->max_sge = s->max_sge;
	attr->srq_limit = 0;
	return 0;
}

EXPORT int ibv_destroy_srq(struct ibv_srq *srq)
{
	struct rl_handle req = {.handle = srq->handle};
	int err = call0(RL_DESTROY_SRQ, &req, sizeof(req));
	if (err)
		return err;
	free(srq);
	return 0;
}

/* ---------------------------------------------------------------- QP */

struct rl_qp {
	struct ibv_qp qp;
	struct ibv_qp_cap cap;
	int sq_sig_all;
	struct ibv_qp_attr attr; /* what the program set, for ibv_query_qp */
};

EXPORT struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
	if (init->qp_type != IBV_QPT_RC) {
		rocelab_unsupported(init->qp_type == IBV_QPT_UD ? "ibv_create_qp (UD)" : init->qp_type == IBV_QPT_UC ? "ibv_create_qp (UC)" : "ibv_create_qp (this QP type)");
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (init->cap.max_send_sge > RL_MAX_SGE || init->cap.max_recv_sge > RL_MAX_SGE || init->cap.max_inline_data > RL_MAX_INLINE) {
		rocelab_log("ibv_create_qp: rocelab0 takes at most %d SGEs and %d inline bytes per work request", RL_MAX_SGE, RL_MAX_INLINE);
		errno = EINVAL;
		return NULL;
	}
	struct rl_create_qp req = {
		.qp_type = init->qp_type,
		.send_cq = init->send_cq->handle,
		.recv_cq = init->recv_cq->handle,
		.srq = init->srq ? init->srq->handle : 0,
		.max_send_wr = init->cap.max_send_wr,
		.max_recv_wr = init->cap.max_recv_wr,
		.max_send_sge = init->cap.max_send_sge,
		.max_recv_sge = init->cap.max_recv_sge,
		.max_inline_data = init->cap.max_inline_data,
		.sq_sig_all = (uint32_t)init->sq_sig_all,
	};
	struct rl_create_qp_rep rep;
	int err = rocelab_call(RL_CREATE_QP, &req, sizeof(req), -1, &rep, sizeof(rep), NULL);
	if (err) {
		errno = err;
		return NULL;
	}
	struct rl_qp *q = calloc(1, sizeof(*q));
	q->qp.context = pd->context;
	q->qp.qp_context = init->qp_context;
	q->qp.pd = pd;
	q->qp.send_cq = init->send_cq;
	q->qp.recv_cq = init->recv_cq;
	q->qp.srq = init->srq;
	q->qp.handle = rep.qpn;
	q->qp.qp_num = rep.qpn;
	q->qp.state = IBV_QPS_RESET;
	q->qp.qp_type = init->qp_type;
	pthread_mutex_init(&q->qp.mutex, NULL);
	pthread_cond_init(&q->qp.cond, NULL);
	q->cap = init->cap;
	q->sq_sig_all = init->sq_sig_all;
	/* Remember the CQs so that ibv_get_cq_event can name them. */
	if (init->send_cq->handle < MAX_CQS)
		cq_by_handle[init->send_cq->handle] = init->send_cq;
	if (init->recv_cq->handle < MAX_CQS)
		cq_by_handle[init->recv_cq->handle] = init->recv_cq;
	return &q->qp;
}

EXPORT struct ibv_qp_ex *ibv_qp_to_qp_ex(struct ibv_qp *qp)
{
	/* rocelab0 has no extended QPs (ibv_wr_* posting): programs then post with ibv_post_send. */
	rocelab_unsupported("ibv_qp_to_qp_ex");
	return NULL;
}

/* The destination's IPv4 address from an address vector: RoCE needs its GRH (an IPv4-mapped GID). */
static int dest_ip(const struct ibv_ah_attr *ah, uint32_t *ip)
{
	if (!ah->is_global) {
		rocelab_log("ibv_modify_qp: the address vector has no GRH: RoCE addresses a peer by its GID (ibv_rc_pingpong: -g 0)");
		return EINVAL;
	}
	const uint8_t *g = ah->grh.dgid.raw;
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (memcmp(g, mapped, 12) != 0) {
		rocelab_log("ibv_modify_qp: the destination GID is not an IPv4-mapped address (::ffff:a.b.c.d), the only kind rocelab0 has");
		return EINVAL;
	}
	uint32_t be;
	memcpy(&be, g + 12, 4);
	*ip = ntohl(be);
	return 0;
}

EXPORT int ibv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	struct rl_qp *q = (struct rl_qp *)qp;
	struct rl_qp_attr req = {.qpn = qp->qp_num, .mask = (uint32_t)mask};
	if (mask & IBV_QP_STATE)
		req.qp_state = attr->qp_state;
	if (mask & IBV_QP_PATH_MTU)
		req.path_mtu = attr->path_mtu;
	if (mask & IBV_QP_DEST_QPN)
		req.dest_qp_num = attr->dest_qp_num;
	if (mask & IBV_QP_RQ_PSN)
		req.rq_psn = attr->rq_psn;
	if (mask & IBV_QP_SQ_PSN)
		req.sq_psn = attr->sq_psn;
	if (mask & IBV_QP_ACCESS_FLAGS)
		req.qp_access_flags = attr->qp_access_flags;
	if (mask & IBV_QP_AV) {
		int err = dest_ip(&attr->ah_attr, &req.dest_ip);
		if (err)
			return fail(err);
		req.sl = attr->ah_attr.sl;
		req.traffic_class = attr->ah_attr.grh.traffic_class;
	}
	if (mask & IBV_QP_MAX_QP_RD_ATOMIC)
		req.max_rd_atomic = attr->max_rd_atomic;
	if (mask & IBV_QP_MAX_DEST_RD_ATOMIC)
		req.max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IBV_QP_MIN_RNR_TIMER)
		req.min_rnr_timer = attr->min_rnr_timer;
	if (mask & IBV_QP_TIMEOUT)
		req.timeout = attr->timeout;
	if (mask & IBV_QP_RETRY_CNT)
		req.retry_cnt = attr->retry_cnt;
	if (mask & IBV_QP_RNR_RETRY)
		req.rnr_retry = attr->rnr_retry;
	int err = call0(RL_MODIFY_QP, &req, sizeof(req));
	if (err)
		return err;
	if (mask & IBV_QP_STATE)
		qp->state = attr->qp_state;
	/* Keep what was set, for ibv_query_qp (the host keeps the state machine). */
	struct ibv_qp_attr *k = &q->attr;
#define KEEP(bit, field) if (mask & (bit)) k->field = attr->field
	KEEP(IBV_QP_STATE, qp_state);
	KEEP(IBV_QP_PATH_MTU, path_mtu);
	KEEP(IBV_QP_DEST_QPN, dest_qp_num);
	KEEP(IBV_QP_RQ_PSN, rq_psn);
	KEEP(IBV_QP_SQ_PSN, sq_psn);
	KEEP(IBV_QP_ACCESS_FLAGS, qp_access_flags);
	KEEP(IBV_QP_AV, ah_attr);
	KEEP(IBV_QP_PKEY_INDEX, pkey_index);
	KEEP(IBV_QP_PORT, port_num);
	KEEP(IBV_QP_MAX_QP_RD_ATOMIC, max_rd_atomic);
	KEEP(IBV_QP_MAX_DEST_RD_ATOMIC, max_dest_rd_atomic);
	KEEP(IBV_QP_MIN_RNR_TIMER, min_rnr_timer);
	KEEP(IBV_QP_TIMEOUT, timeout);
	KEEP(IBV_QP_RETRY_CNT, retry_cnt);
	KEEP(IBV_QP_RNR_RETRY, rnr_retry);
#undef KEEP
	return 0;
}

EXPORT int ibv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask, struct ibv_qp_init_attr *init)
{
	struct rl_qp *q = (struct rl_qp *)qp;
	struct rl_handle req = {.handle = qp->qp_num};
	struct rl_qp_attr rep;
	int err = rocelab_call(RL_QUERY_QP, &req, sizeof(req), -1, &rep, sizeof(rep), NULL);
	if (err)
		return fail(err);
	*attr = q->attr;
	attr->qp_state = (enum ibv_qp_state)rep.qp_state;
	attr->cur_qp_state = attr->qp_state;
	attr->sq_psn = rep.sq_psn;
	attr->rq_psn = rep.rq_psn;
	attr->cap = q->cap;
	qp->state = attr->qp_state;
	if (init) {
		memset(init, 0, sizeof(*init));
		init->qp_context = qp->qp_context;
		init->send_cq = qp->send_cq;
		init->recv_cq = qp->recv_cq;
		init->srq = qp->srq;
		init->cap = q->cap;
		init->qp_type = qp->qp_type;
		init->sq_sig_all = q->sq_sig_all;
	}
	return 0;
}

EXPORT int ibv_destroy_qp(struct ibv_qp *qp)
{
	struct rl_handle req = {.handle = qp->qp_num};
	int err = call0(RL_DESTROY_QP, &req, sizeof(req));
	if (err)
		return err;
	free(qp);
	return 0;
}

/* ---------------------------------------------------------------- posting */

static __thread uint8_t post_buf[RL_MAX_MESSAGE];

static int rl_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	while (wr) {
		struct rl_post *head = (struct rl_post *)post_buf;
		size_t used = sizeof(*head);
		struct ibv_send_wr *first = wr;
		head->qpn = qp->qp_num;
		head->n = 0;
		for (; wr; wr = wr->next) {
			if (wr->num_sge < 0 || wr->num_sge > RL_MAX_SGE) {
				*bad = wr;
				return fail(EINVAL);
			}
			size_t inline_len = 0;
			if (wr->send_flags & IBV_SEND_INLINE)
				for (int i = 0; i < wr->num_sge; i++)
					inline_len += wr->sg_list[i].length;
			if (inline_len > RL_MAX_INLINE) {
				*bad = wr;
				return fail(EINVAL);
			}
			size_t need = sizeof(struct rl_send_wr) + ((inline_len + 7) & ~(size_t)7);
			if (used + need > sizeof(post_buf))
				break;
			struct rl_send_wr *w = (struct rl_send_wr *)(post_buf + used);
			memset(w, 0, sizeof(*w));
			w->wr_id = wr->wr_id;
			w->opcode = wr->opcode;
			w->send_flags = wr->send_flags;
			w->imm_data = wr->imm_data;
			w->num_sge = (uint32_t)wr->num_sge;
			if (wr->opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr->opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
				w->remote_addr = wr->wr.atomic.remote_addr;
				w->rkey = wr->wr.atomic.rkey;
				w->compare_add = wr->wr.atomic.compare_add;
				w->swap = wr->wr.atomic.swap;
			} else {
				w->remote_addr = wr->wr.rdma.remote_addr;
				w->rkey = wr->wr.rdma.rkey;
			}
			for (int i = 0; i < wr->num_sge; i++) {
				w->sg_list[i].addr = wr->sg_list[i].addr;
				w->sg_list[i].length = wr->sg_list[i].length;
				w->sg_list[i].lkey = wr->sg_list[i].lkey;
			}
			/* Inline data is the program's bytes now, as the NIC copies them at the post. */
			w->inline_len = (uint32_t)inline_len;
			uint8_t *data = (uint8_t *)(w + 1);
			for (int i = 0; i < wr->num_sge && inline_len; i++) {
				memcpy(data, (const void *)(uintptr_t)wr->sg_list[i].addr, wr->sg_list[i].length);
				data += wr->sg_list[i].length;
			}
			used += need;
			head->n++;
		}
		if (head->n == 0) {
			*bad = wr;
			return fail(EINVAL);
		}
		struct rl_post_rep rep;
		int err = rocelab_call(RL_POST_SEND, post_buf, used, -1, &rep, sizeof(rep), NULL);
		if (err) {
			struct ibv_send_wr *b = first;
			for (uint32_t i = 0; i < rep.posted && b; i++)
				b = b->next;
			*bad = b;
			return fail(err);
		}
	}
	return 0;
}

static int post_recv_to(uint32_t type, uint32_t target, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	while (wr) {
		struct rl_post *head = (struct rl_post *)post_buf;
		size_t used = sizeof(*head);
		struct ibv_recv_wr *first = wr;
		head->qpn = target;
		head->n = 0;
		for (; wr && used + sizeof(struct rl_recv_wr) <= sizeof(post_buf); wr = wr->next) {
			if (wr->num_sge < 0 || wr->num_sge > RL_MAX_SGE) {
				*bad = wr;
				return fail(EINVAL);
			}
			struct rl_recv_wr *w = (struct rl_recv_wr *)(post_buf + used);
			memset(w, 0, sizeof(*w));
			w->wr_id = wr->wr_id;
			w->num_sge = (uint32_t)wr->num_sge;
			for (int i = 0; i < wr->num_sge; i++) {
				w->sg_list[i].addr = wr->sg_list[i].addr;
				w->sg_list[i].length = wr->sg_list[i].length;
				w->sg_list[i].lkey = wr->sg_list[i].lkey;
			}
			used += sizeof(*w);
			head->n++;
		}
		struct rl_post_rep rep;
		int err = rocelab_call(type, post_buf, used, -1, &rep, sizeof(rep), NULL);
		if (err) {
			struct ibv_recv_wr *b = first;
			for (uint32_t i = 0; i < rep.posted && b; i++)
				b = b->next;
			*bad = b;
			return fail(err);
		}
	}
	return 0;
}

static int rl_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return post_recv_to(RL_POST_RECV, qp->qp_num, wr, bad);
}

static int rl_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad)
{
	return post_recv_to(RL_POST_SRQ_RECV, srq->handle, wr, bad);
}

/* ---------------------------------------------------------------- address handles (UD) */

EXPORT struct ibv_ah *ibv_create_ah(struct ibv_pd *pd, struct ibv_ah_attr *attr)
{
	rocelab_unsupported("ibv_create_ah");
	errno = EOPNOTSUPP;
	return NULL;
}

EXPORT int ibv_destroy_ah(struct ibv_ah *ah) { return rocelab_unsupported("ibv_destroy_ah"); }

EXPORT struct ibv_ah *ibv_create_ah_from_wc(struct ibv_pd *pd, struct ibv_wc *wc, struct ibv_grh *grh, uint8_t port)
{
	rocelab_unsupported("ibv_create_ah_from_wc");
	errno = EOPNOTSUPP;
	return NULL;
}

EXPORT int ibv_init_ah_from_wc(struct ibv_context *ctx, uint8_t port, struct ibv_wc *wc, struct ibv_grh *grh, struct ibv_ah_attr *ah)
{
	return rocelab_unsupported("ibv_init_ah_from_wc");
}

EXPORT int ibv_attach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid) { return rocelab_unsupported("ibv_attach_mcast"); }
EXPORT int ibv_detach_mcast(struct ibv_qp *qp, const union ibv_gid *gid, uint16_t lid) { return rocelab_unsupported("ibv_detach_mcast"); }

EXPORT int ibv_resolve_eth_l2_from_gid(struct ibv_context *ctx, struct ibv_ah_attr *attr, uint8_t eth_mac[6], uint16_t *vid)
{
	return rocelab_unsupported("ibv_resolve_eth_l2_from_gid");
}

EXPORT int ibv_query_ece(struct ibv_qp *qp, struct ibv_ece *ece) { return rocelab_unsupported("ibv_query_ece"); }
EXPORT int ibv_set_ece(struct ibv_qp *qp, struct ibv_ece *ece) { return rocelab_unsupported("ibv_set_ece"); }

EXPORT struct ibv_context *ibv_import_device(int cmd_fd)
{
	rocelab_unsupported("ibv_import_device");
	errno = EOPNOTSUPP;
	return NULL;
}

EXPORT struct ibv_mr *ibv_reg_dmabuf_mr(struct ibv_pd *pd, uint64_t offset, size_t length, uint64_t iova, int fd, int access)
{
	rocelab_unsupported("ibv_reg_dmabuf_mr");
	errno = EOPNOTSUPP;
	return NULL;
}

EXPORT int ibv_query_qp_data_in_order(struct ibv_qp *qp, enum ibv_wr_opcode op, uint32_t flags) { return 0; }

/* ---------------------------------------------------------------- strings and rates */

EXPORT const char *ibv_wc_status_str(enum ibv_wc_status status)
{
	static const char *const text[] = {
		[IBV_WC_SUCCESS] = "success",
		[IBV_WC_LOC_LEN_ERR] = "local length error",
		[IBV_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IBV_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IBV_WC_LOC_PROT_ERR] = "local protection error",
		[IBV_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IBV_WC_MW_BIND_ERR] = "memory management operation error",
		[IBV_WC_BAD_RESP_ERR] = "bad response error",
		[IBV_WC_LOC_ACCESS_ERR] = "local access error",
		[IBV_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IBV_WC_REM_ACCESS_ERR] = "remote access error",
		[IBV_WC_REM_OP_ERR] = "remote operation error",
		[IBV_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IBV_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IBV_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IBV_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IBV_WC_REM_ABORT_ERR] = "aborted error",
		[IBV_WC_INV_EECN_ERR] = "invalid EE context number",
		[IBV_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IBV_WC_FATAL_ERR] = "fatal error",
		[IBV_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IBV_WC_GENERAL_ERR] = "general error",
	};
	if ((unsigned)status < sizeof(text) / sizeof(text[0]) && text[status])
		return text[status];
	return "unknown";
}

EXPORT const char *ibv_node_type_str(enum ibv_node_type t)
{
	switch (t) {
	case IBV_NODE_CA: return "InfiniBand channel adapter";
	case IBV_NODE_SWITCH: return "InfiniBand switch";
	case IBV_NODE_ROUTER: return "InfiniBand router";
	case IBV_NODE_RNIC: return "iWARP NIC";
	default: return "unknown";
	}
}

EXPORT const char *ibv_port_state_str(enum ibv_port_state s)
{
	static const char *const text[] = {"PORT_NOP", "PORT_DOWN", "PORT_INIT", "PORT_ARMED", "PORT_ACTIVE", "PORT_ACTIVE_DEFER"};
	return (unsigned)s < 6 ? text[s] : "unknown";
}

EXPORT const char *ibv_event_type_str(enum ibv_event_type e)
{
	switch (e) {
	case IBV_EVENT_CQ_ERR: return "CQ error";
	case IBV_EVENT_QP_FATAL: return "local work queue catastrophic error";
	case IBV_EVENT_QP_REQ_ERR: return "invalid request local work queue error";
	case IBV_EVENT_QP_ACCESS_ERR: return "local access violation work queue error";
	case IBV_EVENT_COMM_EST: return "communication established";
	case IBV_EVENT_SQ_DRAINED: return "send queue drained";
	case IBV_EVENT_PATH_MIG: return "path migrated";
	case IBV_EVENT_PATH_MIG_ERR: return "path migration request error";
	case IBV_EVENT_DEVICE_FATAL: return "local catastrophic error";
	case IBV_EVENT_PORT_ACTIVE: return "port active";
	case IBV_EVENT_PORT_ERR: return "port error";
	case IBV_EVENT_LID_CHANGE: return "LID change";
	case IBV_EVENT_PKEY_CHANGE: return "P_Key change";
	case IBV_EVENT_SM_CHANGE: return "SM change";
	case IBV_EVENT_SRQ_ERR: return "SRQ catastrophic error";
	case IBV_EVENT_SRQ_LIMIT_REACHED: return "SRQ limit reached";
	case IBV_EVENT_QP_LAST_WQE_REACHED: return "last WQE reached";
	case IBV_EVENT_CLIENT_REREGISTER: return "client reregistration";
	case IBV_EVENT_GID_CHANGE: return "GID table change";
	case IBV_EVENT_WQ_FATAL: return "WQ fatal";
	default: return "unknown";
	}
}

EXPORT int ibv_rate_to_mult(enum ibv_rate rate)
{
	switch (rate) {
	case IBV_RATE_2_5_GBPS: return 1;
	case IBV_RATE_5_GBPS: return 2;
	case IBV_RATE_10_GBPS: return 4;
	case IBV_RATE_20_GBPS: return 8;
	case IBV_RATE_30_GBPS: return 12;
	case IBV_RATE_40_GBPS: return 16;
	case IBV_RATE_60_GBPS: return 24;
	case IBV_RATE_80_GBPS: return 32;
	case IBV_RATE_120_GBPS: return 48;
	default: return -1;
	}
}

EXPORT enum ibv_rate mult_to_ibv_rate(int mult)
{
	switch (mult) {
	case 1: return IBV_RATE_2_5_GBPS;
	case 2: return IBV_RATE_5_GBPS;
	case 4: return IBV_RATE_10_GBPS;
	case 8: return IBV_RATE_20_GBPS;
	case 12: return IBV_RATE_30_GBPS;
	case 16: return IBV_RATE_40_GBPS;
	case 24: return IBV_RATE_60_GBPS;
	case 32: return IBV_RATE_80_GBPS;
	case 48: return IBV_RATE_120_GBPS;
	default: return IBV_RATE_MAX;
	}
}

EXPORT int ibv_rate_to_mbps(enum ibv_rate rate)
{
	switch (rate) {
	case IBV_RATE_2_5_GBPS: return 2500;
	case IBV_RATE_5_GBPS: return 5000;
	case IBV_RATE_10_GBPS: return 10000;
	case IBV_RATE_20_GBPS: return 20000;
	case IBV_RATE_25_GBPS: return 25000;
	case IBV_RATE_40_GBPS: return 40000;
	case IBV_RATE_50_GBPS: return 50000;
	case IBV_RATE_100_GBPS: return 100000;
	case IBV_RATE_200_GBPS: return 200000;
	case IBV_RATE_400_GBPS: return 400000;
	default: return -1;
	}
}

EXPORT enum ibv_rate mbps_to_ibv_rate(int mbps)
{
	switch (mbps) {
	case 2500: return IBV_RATE_2_5_GBPS;
	case 5000: return IBV_RATE_5_GBPS;
	case 10000: return IBV_RATE_10_GBPS;
	case 20000: return IBV_RATE_20_GBPS;
	case 25000: return IBV_RATE_25_GBPS;
	case 40000: return IBV_RATE_40_GBPS;
	case 50000: return IBV_RATE_50_GBPS;
	case 100000: return IBV_RATE_100_GBPS;
	case 200000: return IBV_RATE_200_GBPS;
	case 400000: return IBV_RATE_400_GBPS;
	default: return IBV_RATE_MAX;
	}
}

/* rdma-core's provider registration: no provider is ever loaded here. */
EXPORT void ibv_register_driver(const char *name, void *init) {}
