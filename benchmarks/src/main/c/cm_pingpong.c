/*
 * A send/receive round trip over one RC connection made with librdmacm: the C side of
 * io.rdmaverbs.benchmarks.connection.PingPong, with exactly its pattern.
 *
 *   client: post a signaled SEND of SIZE bytes; poll the CQ until both its completion and the
 *           RECV of the reply are in; post the receive again. One round trip.
 *   server: poll until a RECV is in; post the receive again; post the SEND of the reply; poll until its
 *           completion is in. Each empty poll yields the CPU (sched_yield), see await_completions.
 * One receive is posted before the handshake on each side, the QP is 1 WR deep each way with one SGE,
 * one 2-entry CQ for both queues, no inline data; send and receive buffers are one registered region.
 * WARMUP round trips first (untimed), then COUNT timed one by one with CLOCK_MONOTONIC; of each, the
 * time inside ibv_post_send and ibv_post_recv is timed too (post_us: what the posts cost, apart from the
 * wait for the wire and the peer).
 *
 * usage: cm_pingpong server ADDRESS PORT SIZE COUNT WARMUP     (ADDRESS may be fe80::...%eth0)
 *        cm_pingpong client ADDRESS PORT SIZE COUNT WARMUP
 * The client prints one line:
 *   pingpong size SIZE count COUNT mean_us M median_us M p99_us M min_us M post_us M
 */
#define _GNU_SOURCE
#include <sched.h>

#include "cm_common.h"

struct end {
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *mr;
	char *buf;	/* [0, size): receive buffer; [size, 2 size): send buffer */
	uint32_t size;
	struct ibv_sge recv_sge, send_sge;
	struct ibv_recv_wr recv_wr;
	struct ibv_send_wr send_wr;
	int sends, recvs;	/* completions polled, not yet waited for */
};

static void open_end(struct end *e, struct rdma_cm_id *id, uint32_t size)
{
	struct ibv_qp_init_attr attr;

	e->id = id;
	e->size = size;
	e->sends = 0;
	e->recvs = 0;
	e->pd = ibv_alloc_pd(id->verbs);
	if (!e->pd)
		die("ibv_alloc_pd");
	e->cq = ibv_create_cq(id->verbs, 2, NULL, NULL, 0);
	if (!e->cq)
		die("ibv_create_cq");
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = e->cq;
	attr.recv_cq = e->cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = 1;
	attr.cap.max_recv_wr = 1;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, e->pd, &attr))
		die("rdma_create_qp");
	e->buf = aligned_alloc(4096, ((2 * (size_t)size + 4095) / 4096) * 4096);
	if (!e->buf)
		die("aligned_alloc");
	memset(e->buf, 0, 2 * (size_t)size);
	e->mr = ibv_reg_mr(e->pd, e->buf, 2 * (size_t)size, IBV_ACCESS_LOCAL_WRITE);
	if (!e->mr)
		die("ibv_reg_mr");

	e->recv_sge = (struct ibv_sge){ .addr = (uintptr_t)e->buf, .length = size, .lkey = e->mr->lkey };
	e->recv_wr = (struct ibv_recv_wr){ .wr_id = 0, .sg_list = &e->recv_sge, .num_sge = 1 };
	e->send_sge = (struct ibv_sge){ .addr = (uintptr_t)(e->buf + size), .length = size, .lkey = e->mr->lkey };
	e->send_wr = (struct ibv_send_wr){ .wr_id = 1, .sg_list = &e->send_sge, .num_sge = 1,
					   .opcode = IBV_WR_SEND, .send_flags = IBV_SEND_SIGNALED };
}

static void post_recv(struct end *e)
{
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(e->id->qp, &e->recv_wr, &bad))
		die("ibv_post_recv");
}

static void post_send(struct end *e)
{
	struct ibv_send_wr *bad;

	if (ibv_post_send(e->id->qp, &e->send_wr, &bad))
		die("ibv_post_send");
}

/*
 * Polls until `want_sends` send and `want_recvs` receive completions are in, matched by opcode (one
 * that arrives ahead of its wait is kept for it); each must be a success. An empty poll yields the CPU, so that
 * in a one-vCPU guest a waiting side never keeps soft-RoCE's deferred packet work off the only CPU.
 * (The first round trip stalls on rxe with or without the yield: docs/performance.md, section 7.)
 */
static void await_completions(struct end *e, int want_sends, int want_recvs)
{
	struct ibv_wc wc[2];

	while (e->sends < want_sends || e->recvs < want_recvs) {
		int n = ibv_poll_cq(e->cq, 2, wc);

		if (n < 0)
			die("ibv_poll_cq");
		if (n == 0)
			sched_yield();
		for (int i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				fprintf(stderr, "cm_pingpong: completion %s\n", ibv_wc_status_str(wc[i].status));
				exit(1);
			}
			if (wc[i].opcode == IBV_WC_RECV)
				e->recvs++;
			else
				e->sends++;
		}
	}
	e->sends -= want_sends;
	e->recvs -= want_recvs;
}

static void close_end(struct end *e)
{
	rdma_destroy_qp(e->id);
	ibv_dereg_mr(e->mr);
	ibv_destroy_cq(e->cq);
	ibv_dealloc_pd(e->pd);
	free(e->buf);
}

static struct rdma_conn_param params(void)
{
	/* As the project's CmConnectionParams.defaults(), which rping uses too. */
	return (struct rdma_conn_param){ .responder_resources = 1, .initiator_depth = 1, .retry_count = 7,
					 .rnr_retry_count = 7 };
}

static void serve(struct rdma_event_channel *ch, struct rdma_addrinfo *rai, uint32_t size, long rounds)
{
	struct rdma_cm_id *listen_id;
	struct rdma_cm_event *event;
	struct rdma_conn_param p = params();
	struct end e;

	listen_id = cm_listen(ch, rai);
	event = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	open_end(&e, event->id, size);
	rdma_ack_cm_event(event);
	post_recv(&e);
	if (rdma_accept(e.id, &p))
		die("rdma_accept");
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ESTABLISHED));
	fprintf(stderr, "cm_pingpong: server connected\n");

	for (long i = 0; i < rounds; i++) {
		await_completions(&e, 0, 1);
		post_recv(&e);
		post_send(&e);
		await_completions(&e, 1, 0);
	}
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_DISCONNECTED));
	rdma_disconnect(e.id);
	close_end(&e);
	rdma_destroy_id(e.id);
	rdma_destroy_id(listen_id);
}

static void client(struct rdma_event_channel *ch, struct rdma_addrinfo *rai, uint32_t size, long count,
		   long warmup)
{
	struct rdma_cm_id *id;
	struct rdma_conn_param p = params();
	struct end e;
	uint64_t *rtt, sum = 0, posts = 0;

	rtt = calloc((size_t)count, sizeof(*rtt));
	if (!rtt)
		die("calloc");
	id = cm_resolve(ch, rai);
	open_end(&e, id, size);
	post_recv(&e);
	if (rdma_connect(id, &p))
		die("rdma_connect");
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ESTABLISHED));
	fprintf(stderr, "cm_pingpong: client connected\n");

	for (long i = 0; i < warmup + count; i++) {
		uint64_t t0 = now_ns(), t1, t2, t3;

		post_send(&e);
		t1 = now_ns();
		await_completions(&e, 1, 1);
		t2 = now_ns();
		post_recv(&e);
		t3 = now_ns();
		if (i >= warmup) {
			rtt[i - warmup] = t3 - t0;
			posts += (t1 - t0) + (t3 - t2);
		}
	}
	rdma_disconnect(id);
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_DISCONNECTED));
	close_end(&e);
	rdma_destroy_id(id);

	for (long i = 0; i < count; i++)
		sum += rtt[i];
	qsort(rtt, (size_t)count, sizeof(*rtt), cmp_u64);
	printf("pingpong size %u count %ld mean_us %.2f median_us %.2f p99_us %.2f min_us %.2f post_us %.2f\n",
	       size, count, sum / 1e3 / count, rtt[count / 2] / 1e3, rtt[(count * 99) / 100] / 1e3, rtt[0] / 1e3,
	       posts / 1e3 / count);
	free(rtt);
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo *rai;
	struct rdma_event_channel *ch;
	int server;
	long size, count, warmup;

	if (argc != 7 || (strcmp(argv[1], "server") && strcmp(argv[1], "client"))) {
		fprintf(stderr, "usage: cm_pingpong server|client ADDRESS PORT SIZE COUNT WARMUP\n");
		return 2;
	}
	server = !strcmp(argv[1], "server");
	size = atol(argv[4]);
	count = atol(argv[5]);
	warmup = atol(argv[6]);
	if (size < 1 || count < 1 || warmup < 0) {
		fprintf(stderr, "cm_pingpong: SIZE and COUNT must be positive, WARMUP not negative\n");
		return 2;
	}
	rai = cm_addrinfo(argv[2], argv[3], server);
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	if (server)
		serve(ch, rai, (uint32_t)size, warmup + count);
	else
		client(ch, rai, (uint32_t)size, count, warmup);
	rdma_destroy_event_channel(ch);
	rdma_freeaddrinfo(rai);
	return 0;
}
