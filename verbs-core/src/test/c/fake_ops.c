/*
 * Stand-ins for a provider's data-path ops (struct ibv_context_ops), so that the Java data path
 * (pollCq, postSend, postRecv, postSrqRecv, reqNotifyCq) runs through real native calls on a host
 * without an RDMA device (NativeDataPathTest). Each op records what it was given in a global the
 * test reads back, and answers the way providers do: errno, -errno, or -1 with errno set.
 *
 * Build: gcc -Wall -Werror -shared -fPIC -o libfake_ops.so fake_ops.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>

#define MAX_SGE 8

/* What the last post_send saw: the request, a copy of its SGEs, and the QP it was posted on. */
struct ibv_send_wr last_send_wr;
struct ibv_sge last_send_sge[MAX_SGE];
struct ibv_qp *last_send_qp;
/* The same for post_recv and post_srq_recv. */
struct ibv_recv_wr last_recv_wr;
struct ibv_sge last_recv_sge[MAX_SGE];
/* What the last req_notify_cq and poll_cq were asked. */
int last_solicited_only = -1;
int last_poll_entries = -1;

int fake_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	int n = num_entries < 2 ? num_entries : 2;

	(void)cq;
	last_poll_entries = num_entries;
	for (int i = 0; i < n; i++) {
		memset(&wc[i], 0, sizeof(wc[i]));
		wc[i].wr_id = 1000 + i;
		wc[i].status = i == 0 ? IBV_WC_SUCCESS : IBV_WC_REM_ACCESS_ERR;
		wc[i].opcode = i == 0 ? IBV_WC_RECV : IBV_WC_RDMA_WRITE;
		wc[i].vendor_err = i;
		wc[i].byte_len = 4096 + i;
		wc[i].imm_data = htonl(0xCAFE0000u + i);
		wc[i].qp_num = 0x123456;
		wc[i].src_qp = 0x654321;
		wc[i].wc_flags = IBV_WC_WITH_IMM | IBV_WC_GRH;
		wc[i].pkey_index = 0xFFFF;
		wc[i].slid = 0xBEEF;
	}
	return n;
}

/* A CQ in error: providers report it with a negative count and no errno. */
int fake_poll_cq_error(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	(void)cq; (void)num_entries; (void)wc;
	return -2;
}

int fake_req_notify_cq(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	last_solicited_only = solicited_only;
	return 0;
}

/* Returns the errno itself, as rdma-core's own providers do: ENOMEM when more than MAX_SGE. */
int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	last_send_qp = qp;
	last_send_wr = *wr;
	if (wr->num_sge > MAX_SGE) {
		*bad_wr = wr;
		return ENOMEM;
	}
	memcpy(last_send_sge, wr->sg_list, wr->num_sge * sizeof(struct ibv_sge));
	return 0;
}

/* Returns -1 with errno set, as some providers do. */
int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void)qp;
	last_recv_wr = *wr;
	if (wr->num_sge == 0) {
		*bad_wr = wr;
		errno = EINVAL;
		return -1;
	}
	memcpy(last_recv_sge, wr->sg_list, wr->num_sge * sizeof(struct ibv_sge));
	return 0;
}

/* Returns -errno, as some providers do. */
int fake_post_srq_recv(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void)srq;
	last_recv_wr = *wr;
	*bad_wr = wr;
	return -EBUSY;
}

/*
 * For the race tests (CallGuardRaceTest): ops that stay inside for a while, as a provider's op that
 * reads a CQE or writes a WQE does, and count every call that was inside while the test had declared
 * the object it touches freed (at entry or at exit). A guard that let a call in after the destroy or
 * close began, or did not wait for one in flight, shows up in watched_calls_while_freed.
 */
int watched_object_freed;
long watched_calls;
long watched_calls_while_freed;

static void watch(void)
{
	int freed = __atomic_load_n(&watched_object_freed, __ATOMIC_SEQ_CST);

	__atomic_add_fetch(&watched_calls, 1, __ATOMIC_SEQ_CST);
	for (volatile int i = 0; i < 20000; i++)
		;
	if (freed || __atomic_load_n(&watched_object_freed, __ATOMIC_SEQ_CST))
		__atomic_add_fetch(&watched_calls_while_freed, 1, __ATOMIC_SEQ_CST);
}

int fake_poll_cq_watched(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	(void)cq; (void)num_entries;
	wc[0].wr_id = 7;
	watch();
	return 0;
}

int fake_post_send_watched(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	(void)qp; (void)bad_wr;
	last_send_wr.wr_id = wr->wr_id;
	watch();
	return 0;
}
