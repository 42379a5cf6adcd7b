/*
 * A stand-in for libibverbs.so.1 with one device, "fake0", whose data-path ops do next to nothing:
 * poll_cq finds an empty CQ, req_notify_cq accepts, post_send and post_recv walk the chain reading
 * every WR and SGE (as a provider copying them into its queue does) and accept it. Loaded by the
 * project's own NativeVerbsProvider (-Dio.rdmaverbs.verbs.library=.../libfakeverbs.so), it lets the
 * hot-path benchmarks run the binding unchanged, from Verbs.openDevice down to the op pointers, on
 * a host without RDMA, so that what is measured is the binding's cost and nothing else.
 *
 * The control path (open, alloc_pd, create_cq, create_qp, reg_mr and their releases) only builds
 * zeroed objects with the fields the binding reads, laid out by the real <infiniband/verbs.h>. The
 * extended ops of struct verbs_context are left NULL: the verbs behind them fail with EOPNOTSUPP,
 * as with a provider that lacks them.
 *
 * The C baseline (hot_path_loops.c) finds the CQ and QP the Java side created through
 * fake_last_cq / fake_last_qp and calls the same ops through the same struct pointers.
 *
 * Benchmark fixture only: built into benchmarks/target by the benchmarks module, never shipped.
 */
#include <endian.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <infiniband/verbs.h>

/* verbs.h wraps these in macros; the library exports the plain symbols. */
#undef ibv_get_device_list
#undef ibv_reg_mr

#define FAKE_GUID 0x0002c90300fa4e00ULL

struct ibv_cq *fake_last_cq;
struct ibv_qp *fake_last_qp;

static struct ibv_device device = {
	.node_type = IBV_NODE_CA,
	.transport_type = IBV_TRANSPORT_IB,
	.name = "fake0",
	.dev_name = "uverbs0",
};

static uint32_t next_qp_num = 0x100;
static uint32_t next_key = 0x1000;

/* ---- the data path: the binding's cost is all that is left ---------------------------------- */

static int poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	(void)cq; (void)num_entries; (void)wc;
	return 0;
}

static int req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq; (void)solicited_only;
	return 0;
}

/*
 * The posts walk the chain and read every WR and SGE, as a provider's post path does when it copies
 * them into WQEs, so that a chain's per-WR cost shows (BatchCalls). What they read is summed into
 * fake_posted, so that the compiler cannot drop the reads.
 */
volatile uint64_t fake_posted;

static int post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	uint64_t sum = 0;

	(void)qp; (void)bad_wr;
	for (; wr; wr = wr->next) {
		sum += wr->wr_id + (uint64_t)wr->opcode + wr->send_flags + wr->imm_data + wr->wr.rdma.remote_addr;
		for (int i = 0; i < wr->num_sge; i++)
			sum += wr->sg_list[i].addr + wr->sg_list[i].length + wr->sg_list[i].lkey;
	}
	fake_posted += sum;
	return 0;
}

static int post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	uint64_t sum = 0;

	(void)qp; (void)bad_wr;
	for (; wr; wr = wr->next) {
		sum += wr->wr_id;
		for (int i = 0; i < wr->num_sge; i++)
			sum += wr->sg_list[i].addr + wr->sg_list[i].length + wr->sg_list[i].lkey;
	}
	fake_posted += sum;
	return 0;
}

static int post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void)srq; (void)wr; (void)bad_wr;
	return 0;
}

/* ---- devices ----------------------------------------------------------------------------------- */

struct ibv_device **ibv_get_device_list(int *num_devices)
{
	struct ibv_device **list = calloc(2, sizeof(*list));

	if (!list) {
		errno = ENOMEM;
		return NULL;
	}
	list[0] = &device;
	if (num_devices)
		*num_devices = 1;
	return list;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

__be64 ibv_get_device_guid(struct ibv_device *dev)
{
	(void)dev;
	return htobe64(FAKE_GUID);
}

struct ibv_context *ibv_open_device(struct ibv_device *dev)
{
	struct verbs_context *vctx = calloc(1, sizeof(*vctx));

	if (!vctx) {
		errno = ENOMEM;
		return NULL;
	}
	/* The binding makes async_fd non-blocking and polls it: it must be a real descriptor. */
	int fd = eventfd(0, EFD_CLOEXEC);
	if (fd < 0) {
		free(vctx);
		return NULL;
	}
	vctx->sz = sizeof(*vctx);
	vctx->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	vctx->context.device = dev;
	vctx->context.cmd_fd = -1;
	vctx->context.async_fd = fd;
	vctx->context.num_comp_vectors = 1;
	vctx->context.ops.poll_cq = poll_cq;
	vctx->context.ops.req_notify_cq = req_notify_cq;
	vctx->context.ops.post_send = post_send;
	vctx->context.ops.post_recv = post_recv;
	vctx->context.ops.post_srq_recv = post_srq_recv;
	return &vctx->context;
}

int ibv_close_device(struct ibv_context *context)
{
	struct verbs_context *vctx = verbs_get_ctx(context);

	close(context->async_fd);
	free(vctx);
	return 0;
}

int ibv_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	strcpy(attr->fw_ver, "0.0.0");
	attr->node_guid = htobe64(FAKE_GUID);
	attr->sys_image_guid = htobe64(FAKE_GUID);
	attr->max_mr_size = UINT64_MAX;
	attr->page_size_cap = 0xfffff000;
	attr->max_qp = 1 << 20;
	attr->max_qp_wr = 1 << 14;
	attr->max_sge = 32;
	attr->max_cq = 1 << 20;
	attr->max_cqe = (1 << 16) - 1;
	attr->max_mr = 1 << 19;
	attr->max_pd = 1 << 20;
	attr->max_qp_rd_atom = 128;
	attr->max_qp_init_rd_atom = 128;
	attr->max_ah = 1 << 15;
	attr->max_srq = 1 << 16;
	attr->max_srq_wr = 1 << 14;
	attr->max_srq_sge = 27;
	attr->phys_port_cnt = 1;
	(void)context;
	return 0;
}

/* ---- the control path: zeroed objects with what the binding reads ------------------------------- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *context)
{
	struct ibv_pd *pd = calloc(1, sizeof(*pd));

	if (!pd) {
		errno = ENOMEM;
		return NULL;
	}
	pd->context = context;
	return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
	free(pd);
	return 0;
}

struct ibv_cq *ibv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector)
{
	struct ibv_cq *cq = calloc(1, sizeof(*cq));

	(void)comp_vector;
	if (!cq) {
		errno = ENOMEM;
		return NULL;
	}
	cq->context = context;
	cq->channel = channel;
	cq->cq_context = cq_context;
	cq->cqe = cqe;
	fake_last_cq = cq;
	return cq;
}

int ibv_destroy_cq(struct ibv_cq *cq)
{
	if (fake_last_cq == cq)
		fake_last_cq = NULL;
	free(cq);
	return 0;
}

struct ibv_qp *ibv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *attr)
{
	struct ibv_qp *qp = calloc(1, sizeof(*qp));

	if (!qp) {
		errno = ENOMEM;
		return NULL;
	}
	qp->context = pd->context;
	qp->pd = pd;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_type = attr->qp_type;
	qp->state = IBV_QPS_RESET;
	qp->qp_num = next_qp_num++;
	fake_last_qp = qp;
	return qp;
}

int ibv_destroy_qp(struct ibv_qp *qp)
{
	if (fake_last_qp == qp)
		fake_last_qp = NULL;
	free(qp);
	return 0;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	struct ibv_mr *mr = calloc(1, sizeof(*mr));

	(void)access;
	if (!mr) {
		errno = ENOMEM;
		return NULL;
	}
	mr->context = pd->context;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->lkey = next_key;
	mr->rkey = next_key;
	next_key++;
	return mr;
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
	free(mr);
	return 0;
}
