/*
 * Stand-ins for a provider's data-path ops (struct ibv_context_ops), so that the Java data path
 * (pollCq, postSend, postRecv, postSrqRecv, reqNotifyCq) runs through real native calls on a host
 * without an RDMA device (NativeDataPathTest). Each op records what it was given in a global the
 * test reads back, and fails the way rdma-core's providers do: the errno itself, or -errno.
 *
 * Build: gcc -Wall -Werror -shared -fPIC -o libfake_ops.so fake_ops.c
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
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

/*
 * Fails as providers do, with the errno as its value (ibv_req_notify_cq(3)): EIO when armed for every
 * completion, -EAGAIN (negated, as some providers return it) when for solicited ones only, so that two
 * threads' calls fail two different ways. errno is set to something else: the binding must not read it.
 */
int fake_req_notify_cq_fails(struct ibv_cq *cq, int solicited_only)
{
	(void)cq;
	errno = ENOTTY;
	return solicited_only ? -EAGAIN : EIO;
}

/*
 * Walks the chain as a provider does, recording each WR's wr_id, and returns the errno itself, as
 * rdma-core's own providers do: ENOMEM at the first WR with more than MAX_SGE entries, which bad_wr
 * names (the ones before it count as posted).
 */
uint64_t send_chain_wr_ids[64];
int send_chain_length;

int fake_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	last_send_qp = qp;
	last_send_wr = *wr;
	send_chain_length = 0;
	for (; wr; wr = wr->next) {
		if (wr->num_sge > MAX_SGE) {
			*bad_wr = wr;
			return ENOMEM;
		}
		if (send_chain_length < 64)
			send_chain_wr_ids[send_chain_length] = wr->wr_id;
		send_chain_length++;
		if (send_chain_length == 1)
			memcpy(last_send_sge, wr->sg_list, wr->num_sge * sizeof(struct ibv_sge));
	}
	return 0;
}

/*
 * Walks the chain and returns the errno itself (ibv_post_recv(3)) at the first WR without entries; errno is
 * left as something else, which the binding must not read (it captures none for posts).
 */
int recv_chain_length;

int fake_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void)qp;
	last_recv_wr = *wr;
	recv_chain_length = 0;
	for (; wr; wr = wr->next) {
		if (wr->num_sge == 0) {
			*bad_wr = wr;
			errno = ENOTTY;
			return EINVAL;
		}
		if (recv_chain_length == 0)
			memcpy(last_recv_sge, wr->sg_list, wr->num_sge * sizeof(struct ibv_sge));
		recv_chain_length++;
	}
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
 * An extended CQ (struct ibv_cq_ex) holding two completions, with the polling functions a provider
 * fills in; read_completion_ts stays NULL, as for a CQ created without IBV_WC_EX_WITH_COMPLETION_TIMESTAMP.
 * fake_cq_ex_ended counts end_poll calls.
 */
static int cq_ex_index;
int fake_cq_ex_ended;

static void cq_ex_current(struct ibv_cq_ex *cq)
{
	cq->wr_id = 500 + cq_ex_index;
	cq->status = cq_ex_index == 0 ? IBV_WC_SUCCESS : IBV_WC_WR_FLUSH_ERR;
}

static int fake_start_poll(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	if (attr->comp_mask != 0)
		return EINVAL;
	cq_ex_index = 0;
	cq_ex_current(cq);
	return 0;
}

static int fake_next_poll(struct ibv_cq_ex *cq)
{
	if (++cq_ex_index >= 2)
		return ENOENT;
	cq_ex_current(cq);
	return 0;
}

static void fake_end_poll(struct ibv_cq_ex *cq) { (void)cq; fake_cq_ex_ended++; }
static enum ibv_wc_opcode fake_read_opcode(struct ibv_cq_ex *cq) { (void)cq; return IBV_WC_RECV_RDMA_WITH_IMM; }
static uint32_t fake_read_vendor_err(struct ibv_cq_ex *cq) { (void)cq; return 7; }
static uint32_t fake_read_byte_len(struct ibv_cq_ex *cq) { (void)cq; return 4096 + cq_ex_index; }
static __be32 fake_read_imm_data(struct ibv_cq_ex *cq) { (void)cq; return htonl(0xCAFE0000u + cq_ex_index); }
static uint32_t fake_read_qp_num(struct ibv_cq_ex *cq) { (void)cq; return 0x123456; }
static uint32_t fake_read_src_qp(struct ibv_cq_ex *cq) { (void)cq; return 0x654321; }
static unsigned int fake_read_wc_flags(struct ibv_cq_ex *cq) { (void)cq; return IBV_WC_WITH_IMM; }
static uint32_t fake_read_slid(struct ibv_cq_ex *cq) { (void)cq; return 0xBEEF; }
static uint8_t fake_read_sl(struct ibv_cq_ex *cq) { (void)cq; return 0xF3; }
static uint8_t fake_read_dlid_path_bits(struct ibv_cq_ex *cq) { (void)cq; return 0x7F; }
static uint64_t fake_read_completion_wallclock_ns(struct ibv_cq_ex *cq) { (void)cq; return 0x1122334455667788ULL; }

/* Fills the polling functions of an ibv_cq_ex the Java side allocated (its context and cqe too). */
void fake_fill_cq_ex(struct ibv_cq_ex *cq)
{
	cq->start_poll = fake_start_poll;
	cq->next_poll = fake_next_poll;
	cq->end_poll = fake_end_poll;
	cq->read_opcode = fake_read_opcode;
	cq->read_vendor_err = fake_read_vendor_err;
	cq->read_byte_len = fake_read_byte_len;
	cq->read_imm_data = fake_read_imm_data;
	cq->read_qp_num = fake_read_qp_num;
	cq->read_src_qp = fake_read_src_qp;
	cq->read_wc_flags = fake_read_wc_flags;
	cq->read_slid = fake_read_slid;
	cq->read_sl = fake_read_sl;
	cq->read_dlid_path_bits = fake_read_dlid_path_bits;
	cq->read_completion_ts = NULL;
	cq->read_completion_wallclock_ns = fake_read_completion_wallclock_ns;
}

/*
 * The new post API of a QP (struct ibv_qp_ex): each builder and setter appends what it was given to
 * fake_qp_ex_log, as "name:arg,arg;" text the test reads back, and wr_complete returns fake_qp_ex_rc.
 * wr_rdma_read stays NULL, as for a QP created without IBV_QP_EX_WITH_RDMA_READ.
 */
char fake_qp_ex_log[1024];
int fake_qp_ex_rc;

static void qpx_log(const char *fmt, unsigned long long a, unsigned long long b, unsigned long long c)
{
	size_t used = strlen(fake_qp_ex_log);

	snprintf(fake_qp_ex_log + used, sizeof(fake_qp_ex_log) - used, fmt, a, b, c);
}

static void fake_wr_start(struct ibv_qp_ex *qp) { (void)qp; fake_qp_ex_log[0] = 0; qpx_log("start;", 0, 0, 0); }
static int fake_wr_complete(struct ibv_qp_ex *qp) { (void)qp; qpx_log("complete;", 0, 0, 0); return fake_qp_ex_rc; }
static void fake_wr_abort(struct ibv_qp_ex *qp) { (void)qp; qpx_log("abort;", 0, 0, 0); }
static void fake_wr_send(struct ibv_qp_ex *qp)
{
	qpx_log("send:%llu,%llu;", qp->wr_id, qp->wr_flags, 0);
}
static void fake_wr_send_imm(struct ibv_qp_ex *qp, __be32 imm) { (void)qp; qpx_log("send_imm:%llx;", ntohl(imm), 0, 0); }
static void fake_wr_rdma_write(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t addr)
{
	(void)qp;
	qpx_log("rdma_write:%llx,%llx;", rkey, addr, 0);
}
static void fake_wr_rdma_write_imm(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t addr, __be32 imm)
{
	(void)qp;
	qpx_log("rdma_write_imm:%llx,%llx,%llx;", rkey, addr, ntohl(imm));
}
static void fake_wr_atomic_fetch_add(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t addr, uint64_t add)
{
	(void)qp;
	qpx_log("fetch_add:%llx,%llx,%llu;", rkey, addr, add);
}
static void fake_wr_atomic_cmp_swp(struct ibv_qp_ex *qp, uint32_t rkey, uint64_t addr, uint64_t compare,
				   uint64_t swap)
{
	(void)qp; (void)rkey;
	qpx_log("cmp_swp:%llx,%llu,%llu;", addr, compare, swap);
}
static void fake_wr_set_sge(struct ibv_qp_ex *qp, uint32_t lkey, uint64_t addr, uint32_t length)
{
	(void)qp;
	qpx_log("sge:%llx,%llx,%llu;", lkey, addr, length);
}
static void fake_wr_set_sge_list(struct ibv_qp_ex *qp, size_t n, const struct ibv_sge *sg)
{
	(void)qp;
	for (size_t i = 0; i < n; i++)
		qpx_log("sge_list:%llx,%llx,%llu;", sg[i].lkey, sg[i].addr, sg[i].length);
}
static void fake_wr_set_ud_addr(struct ibv_qp_ex *qp, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	(void)qp;
	qpx_log("ud_addr:%llx,%llx,%llx;", ah != NULL, qpn, qkey);
}
static void fake_wr_set_xrc_srqn(struct ibv_qp_ex *qp, uint32_t srqn) { (void)qp; qpx_log("xrc_srqn:%llu;", srqn, 0, 0); }
static void fake_wr_set_inline_data(struct ibv_qp_ex *qp, void *addr, size_t length)
{
	(void)qp;
	qpx_log("inline:%llu,%llu;", length, ((unsigned char *)addr)[0], 0);
}

void fake_fill_qp_ex(struct ibv_qp_ex *qp)
{
	qp->wr_start = fake_wr_start;
	qp->wr_complete = fake_wr_complete;
	qp->wr_abort = fake_wr_abort;
	qp->wr_send = fake_wr_send;
	qp->wr_send_imm = fake_wr_send_imm;
	qp->wr_rdma_write = fake_wr_rdma_write;
	qp->wr_rdma_write_imm = fake_wr_rdma_write_imm;
	qp->wr_rdma_read = NULL;
	qp->wr_atomic_fetch_add = fake_wr_atomic_fetch_add;
	qp->wr_atomic_cmp_swp = fake_wr_atomic_cmp_swp;
	qp->wr_set_sge = fake_wr_set_sge;
	qp->wr_set_sge_list = fake_wr_set_sge_list;
	qp->wr_set_ud_addr = fake_wr_set_ud_addr;
	qp->wr_set_xrc_srqn = fake_wr_set_xrc_srqn;
	qp->wr_set_inline_data = fake_wr_set_inline_data;
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

int fake_post_recv_watched(struct ibv_qp *qp, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void)qp; (void)bad_wr;
	last_recv_wr.wr_id = wr->wr_id;
	watch();
	return 0;
}

int fake_post_srq_recv_watched(struct ibv_srq *srq, struct ibv_recv_wr *wr, struct ibv_recv_wr **bad_wr)
{
	(void)srq; (void)bad_wr;
	last_recv_wr.wr_id = wr->wr_id;
	watch();
	return 0;
}

int fake_req_notify_cq_watched(struct ibv_cq *cq, int solicited_only)
{
	(void)cq; (void)solicited_only;
	watch();
	return 0;
}

/* A batch of an extended CQ is watched at its start and end: an end after the CQ was declared freed is a
 * batch the destroy did not wait for. */
static int fake_start_poll_watched(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	(void)attr;
	cq->wr_id = 9;
	watch();
	return 0;
}

static int fake_next_poll_watched(struct ibv_cq_ex *cq) { (void)cq; watch(); return ENOENT; }
static void fake_end_poll_watched(struct ibv_cq_ex *cq) { (void)cq; watch(); }

void fake_watch_cq_ex(struct ibv_cq_ex *cq)
{
	cq->start_poll = fake_start_poll_watched;
	cq->next_poll = fake_next_poll_watched;
	cq->end_poll = fake_end_poll_watched;
}

/* A qp_ex session likewise, at wr_start and at wr_complete or wr_abort. */
static void fake_wr_start_watched(struct ibv_qp_ex *qp) { (void)qp; watch(); }
static int fake_wr_complete_watched(struct ibv_qp_ex *qp) { (void)qp; watch(); return 0; }
static void fake_wr_abort_watched(struct ibv_qp_ex *qp) { (void)qp; watch(); }

void fake_watch_qp_ex(struct ibv_qp_ex *qp)
{
	qp->wr_start = fake_wr_start_watched;
	qp->wr_complete = fake_wr_complete_watched;
	qp->wr_abort = fake_wr_abort_watched;
}

/*
 * Open batches and sessions, as the provider sees them: a watched start_poll or wr_start that returned
 * opens one, a watched end_poll, wr_complete or wr_abort closes one. A destroy that returned while this is
 * not 0 left a batch or session running on the freed object.
 */
long watched_open;

static void watch_open(long delta)
{
	__atomic_add_fetch(&watched_open, delta, __ATOMIC_SEQ_CST);
}

static int fake_start_poll_counted(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	int rc = fake_start_poll_watched(cq, attr);

	watch_open(1);
	return rc;
}

static void fake_end_poll_counted(struct ibv_cq_ex *cq) { watch_open(-1); fake_end_poll_watched(cq); }

void fake_count_cq_ex(struct ibv_cq_ex *cq)
{
	fake_watch_cq_ex(cq);
	cq->start_poll = fake_start_poll_counted;
	cq->end_poll = fake_end_poll_counted;
}

static void fake_wr_start_counted(struct ibv_qp_ex *qp) { fake_wr_start_watched(qp); watch_open(1); }
static int fake_wr_complete_counted(struct ibv_qp_ex *qp) { watch_open(-1); return fake_wr_complete_watched(qp); }
static void fake_wr_abort_counted(struct ibv_qp_ex *qp) { watch_open(-1); fake_wr_abort_watched(qp); }

void fake_count_qp_ex(struct ibv_qp_ex *qp)
{
	fake_watch_qp_ex(qp);
	qp->wr_start = fake_wr_start_counted;
	qp->wr_complete = fake_wr_complete_counted;
	qp->wr_abort = fake_wr_abort_counted;
}

/*
 * A provider's locks as rxe and mlx5 take them (rdma-core 44's providers/rxe/rxe.c, providers/mlx5/cq.c and
 * qp.c): start_poll takes the CQ's spinlock and end_poll releases it, so a batch holds it across the caller's
 * code, and poll_cq and req_notify_cq take it for their own call (irdma's req_notify_cq does); wr_start takes
 * the send queue's spinlock until wr_complete or wr_abort, and post_send takes it for its call. A thread that
 * asks for a lock another thread holds across Java code spins here until that thread lets go.
 */
static pthread_spinlock_t fake_cq_lock;
static pthread_spinlock_t fake_sq_lock;

void fake_init_locks(void)
{
	pthread_spin_init(&fake_cq_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&fake_sq_lock, PTHREAD_PROCESS_PRIVATE);
}

static int fake_start_poll_locking(struct ibv_cq_ex *cq, struct ibv_poll_cq_attr *attr)
{
	(void)attr;
	pthread_spin_lock(&fake_cq_lock);
	cq->wr_id = 11;
	cq->status = IBV_WC_SUCCESS;
	return 0;
}

static int fake_next_poll_locking(struct ibv_cq_ex *cq) { (void)cq; return ENOENT; }
static void fake_end_poll_locking(struct ibv_cq_ex *cq) { (void)cq; pthread_spin_unlock(&fake_cq_lock); }

int fake_poll_cq_locking(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc)
{
	(void)cq; (void)num_entries; (void)wc;
	pthread_spin_lock(&fake_cq_lock);
	pthread_spin_unlock(&fake_cq_lock);
	return 0;
}

int fake_req_notify_cq_locking(struct ibv_cq *cq, int solicited_only)
{
	(void)cq; (void)solicited_only;
	pthread_spin_lock(&fake_cq_lock);
	pthread_spin_unlock(&fake_cq_lock);
	return 0;
}

void fake_lock_cq_ex(struct ibv_cq_ex *cq)
{
	cq->start_poll = fake_start_poll_locking;
	cq->next_poll = fake_next_poll_locking;
	cq->end_poll = fake_end_poll_locking;
}

static void fake_wr_start_locking(struct ibv_qp_ex *qp) { (void)qp; pthread_spin_lock(&fake_sq_lock); }
static int fake_wr_complete_locking(struct ibv_qp_ex *qp) { (void)qp; pthread_spin_unlock(&fake_sq_lock); return 0; }
static void fake_wr_abort_locking(struct ibv_qp_ex *qp) { (void)qp; pthread_spin_unlock(&fake_sq_lock); }

int fake_post_send_locking(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad_wr)
{
	(void)qp; (void)wr; (void)bad_wr;
	pthread_spin_lock(&fake_sq_lock);
	pthread_spin_unlock(&fake_sq_lock);
	return 0;
}

void fake_lock_qp_ex(struct ibv_qp_ex *qp)
{
	qp->wr_start = fake_wr_start_locking;
	qp->wr_complete = fake_wr_complete_locking;
	qp->wr_abort = fake_wr_abort_locking;
	qp->wr_send = fake_wr_send;
}

/* wr_set_ud_addr watched, for the race of a session's use of an address handle against the AH's destroy. */
static void fake_wr_set_ud_addr_watched(struct ibv_qp_ex *qp, struct ibv_ah *ah, uint32_t qpn, uint32_t qkey)
{
	(void)qp; (void)ah; (void)qpn; (void)qkey;
	watch();
}

void fake_watch_ud_addr(struct ibv_qp_ex *qp)
{
	qp->wr_set_ud_addr = fake_wr_set_ud_addr_watched;
}
