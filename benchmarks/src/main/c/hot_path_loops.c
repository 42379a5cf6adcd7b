/*
 * The C side of the hot-path comparison: what a C program pays for the same verbs on the same
 * objects. Each loop calls the static-inline verb of <infiniband/verbs.h> (ibv_poll_cq,
 * ibv_req_notify_cq, ibv_post_send, ibv_post_recv), which loads obj->context->ops.<op> and calls
 * it, exactly as compiled C code does; the objects are the ones the Java side created through the
 * project's API in libfakeverbs.so (fake_last_cq, fake_last_qp).
 *
 * The JMH benchmark CLoop downcalls each loop once per invocation and divides by the iteration
 * count, so the C figure comes out of the same JMH run, statistics and machine state as the Java
 * ones; hot_path_bench.c times the same loops with clock_gettime as a cross-check.
 *
 * Built into its own library (not into libfakeverbs.so) so that the compiler cannot see the ops
 * it calls: the call stays indirect, as it is against a real provider.
 */
#include <string.h>
#include <infiniband/verbs.h>

#define MAX_BATCH 16

long c_poll_cq(struct ibv_cq *cq, int batch, long iterations)
{
	struct ibv_wc wc[MAX_BATCH];
	long found = 0;

	if (batch > MAX_BATCH)
		return -1;
	for (long i = 0; i < iterations; i++)
		found += ibv_poll_cq(cq, batch, wc);
	return found;
}

long c_req_notify_cq(struct ibv_cq *cq, long iterations)
{
	long failed = 0;

	for (long i = 0; i < iterations; i++)
		failed += ibv_req_notify_cq(cq, 0) != 0;
	return failed;
}

/* One signaled SEND of 64 bytes at addr, as the Java side's SendRequest.single(mr, 0, 64). */
long c_post_send(struct ibv_qp *qp, void *addr, unsigned int lkey, long iterations)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = 64, .lkey = lkey };
	struct ibv_send_wr wr, *bad_wr;
	long failed = 0;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	for (long i = 0; i < iterations; i++)
		failed += ibv_post_send(qp, &wr, &bad_wr) != 0;
	return failed;
}

long c_post_recv(struct ibv_qp *qp, void *addr, unsigned int lkey, long iterations)
{
	struct ibv_sge sge = { .addr = (uintptr_t)addr, .length = 64, .lkey = lkey };
	struct ibv_recv_wr wr, *bad_wr;
	long failed = 0;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	for (long i = 0; i < iterations; i++)
		failed += ibv_post_recv(qp, &wr, &bad_wr) != 0;
	return failed;
}

/*
 * A chain of `length` signaled SENDs (receives) of 64 bytes each, linked through next and posted in
 * one call, as the Java side's SendBatch (ReceiveBatch) of the same shape: the C per-WR figure.
 */
#define MAX_CHAIN 64

long c_post_send_chain(struct ibv_qp *qp, void *addr, unsigned int lkey, int length, long iterations)
{
	struct ibv_sge sge[MAX_CHAIN];
	struct ibv_send_wr wr[MAX_CHAIN], *bad_wr;
	long failed = 0;

	if (length < 1 || length > MAX_CHAIN)
		return -1;
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < length; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)addr, .length = 64, .lkey = lkey };
		wr[i].wr_id = i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = IBV_WR_SEND;
		wr[i].send_flags = IBV_SEND_SIGNALED;
		wr[i].next = i + 1 < length ? &wr[i + 1] : NULL;
	}
	for (long i = 0; i < iterations; i++)
		failed += ibv_post_send(qp, wr, &bad_wr) != 0;
	return failed;
}

long c_post_recv_chain(struct ibv_qp *qp, void *addr, unsigned int lkey, int length, long iterations)
{
	struct ibv_sge sge[MAX_CHAIN];
	struct ibv_recv_wr wr[MAX_CHAIN], *bad_wr;
	long failed = 0;

	if (length < 1 || length > MAX_CHAIN)
		return -1;
	memset(wr, 0, sizeof(wr));
	for (int i = 0; i < length; i++) {
		sge[i] = (struct ibv_sge){ .addr = (uintptr_t)addr, .length = 64, .lkey = lkey };
		wr[i].wr_id = i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i + 1 < length ? &wr[i + 1] : NULL;
	}
	for (long i = 0; i < iterations; i++)
		failed += ibv_post_recv(qp, wr, &bad_wr) != 0;
	return failed;
}

/* The op pointers themselves, for the raw-downcall benchmark (RawDowncall). */
void *c_poll_cq_op(struct ibv_cq *cq) { return (void *)cq->context->ops.poll_cq; }
void *c_req_notify_cq_op(struct ibv_cq *cq) { return (void *)cq->context->ops.req_notify_cq; }
void *c_post_send_op(struct ibv_qp *qp) { return (void *)qp->context->ops.post_send; }
void *c_post_recv_op(struct ibv_qp *qp) { return (void *)qp->context->ops.post_recv; }

/*
 * The request structs RawDowncall posts, filled in memory the Java side allocated (so that it can
 * choose the memory's arena): the same one-SGE SEND and receive as above.
 */
void c_fill_send_wr(struct ibv_send_wr *wr, struct ibv_sge *sge, void *addr, unsigned int lkey)
{
	memset(wr, 0, sizeof(*wr));
	*sge = (struct ibv_sge){ .addr = (uintptr_t)addr, .length = 64, .lkey = lkey };
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
}

void c_fill_recv_wr(struct ibv_recv_wr *wr, struct ibv_sge *sge, void *addr, unsigned int lkey)
{
	memset(wr, 0, sizeof(*wr));
	*sge = (struct ibv_sge){ .addr = (uintptr_t)addr, .length = 64, .lkey = lkey };
	wr->sg_list = sge;
	wr->num_sge = 1;
}

/* Compile-time proof that RawDowncall's layout of one request block is big enough. */
_Static_assert(sizeof(struct ibv_send_wr) <= 192 && sizeof(struct ibv_recv_wr) <= 192,
	       "RawDowncall.REQUEST_SGE offset");
_Static_assert(16 * sizeof(struct ibv_wc) <= 1024, "RawDowncall.COMPLETIONS size");
