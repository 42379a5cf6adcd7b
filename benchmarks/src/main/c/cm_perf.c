/*
 * perftest's ib_send_bw, ib_write_bw, ib_read_bw and ib_send_lat (perftest 4.5-0.17, Debian 12's), in
 * their default patterns, over one RC connection made with librdmacm on any address rdma_getaddrinfo
 * takes: the twin that runs where Debian's perftest cannot. Its -R (rdma_cm) path resolves the server
 * with getaddrinfo(AF_INET) only, so an IPv6 link-local address fails before any verb is called
 * ("Problem in resolving basic address and port"; docs/performance.md, section 8). The C side of
 * io.rdmaverbs.benchmarks.connection.SessionBench.
 *
 * What is perftest's here, from its defaults for a device it does not know (rxe): one QP, no inline
 * data, a send CQ and a receive CQ, every WR from (or into) one buffer of SIZE bytes, neither queue
 * deeper than ITERS, and the CQ moderation cq_mod: one send in 100 signaled (and the last), every one
 * above 8 KiB, never more than tx_depth;
 *   send_bw  client: SENDs of SIZE, at most tx_depth 128 outstanding, polled 16 at a time; server:
 *            rx_depth 512 receives posted, each posted again as its completion is polled while fewer
 *            than ITERS were posted, until ITERS are in.
 *   write_bw / read_bw  client: RDMA WRITEs / READs of SIZE into / from the server's buffer (address and
 *            rkey from the accept's private data), the same window and moderation; initiator_depth and
 *            responder_resources are the device's max_qp_rd_atom for reads (perftest's out_reads), 1
 *            otherwise. The server does nothing but wait.
 *   send_lat ping-pong, tx_depth 1 (so cq_mod 1: every SEND signaled and polled for): the client posts a
 *            SEND and polls for the reply's RECV, the server polls for the RECV and answers; the latency
 *            of iteration i is half the time between the client's posts i and i+1, as perftest reports
 *            it (t_typical is the median).
 * Empty polls spin, as perftest's; with WAIT "yield" each empty poll calls sched_yield instead (as
 * cm_pingpong does), so that in a one-vCPU guest the poller does not keep soft-RoCE's deferred packet
 * work (tasklets, ksoftirqd) off the only CPU: what that costs perftest there is the difference. Bandwidth is SIZE x ITERS over the time from the first post to the
 * last completion (perftest's "BW average"), in MiB/s (2^20 bytes). Each side also reports its process
 * CPU time (getrusage) per message, the figure SessionBench gives for Java.
 *
 * usage: cm_perf server ADDRESS PORT TEST SIZE ITERS [WAIT]   (ADDRESS may be fe80::...%eth0)
 *        cm_perf client ADDRESS PORT TEST SIZE ITERS [WAIT]
 * TEST: send_bw | write_bw | read_bw | send_lat; WAIT: spin (the default) | yield. The client prints one line:
 *   perf TEST size S iters N seconds T MiB_per_s B msgs_per_s M cpu_us_per_msg C
 *   perf send_lat size S iters N t_min_us M t_typical_us M t_avg_us M t_99_us M t_max_us M cpu_us_per_msg C
 * and the server its own, starting "perf_server".
 */
#define _GNU_SOURCE
#include <endian.h>
#include <sched.h>
#include <sys/resource.h>

#include "cm_common.h"

enum test { SEND_BW, WRITE_BW, READ_BW, SEND_LAT };

#define TX_DEPTH_BW 128
#define RX_DEPTH_SEND 512
#define CQ_MOD 100
#define CQ_MOD_SIZE_LIMIT 8192
#define POLL_BATCH 16

/* Whether an empty poll yields the CPU (WAIT "yield") instead of spinning. */
static int yield_on_empty;

static uint64_t cpu_ns(void)
{
	struct rusage u;

	getrusage(RUSAGE_SELF, &u);
	return ((uint64_t)u.ru_utime.tv_sec + (uint64_t)u.ru_stime.tv_sec) * 1000000000u +
	       ((uint64_t)u.ru_utime.tv_usec + (uint64_t)u.ru_stime.tv_usec) * 1000u;
}

/* The server's buffer, as the accept's private data carries it (big-endian). */
struct remote {
	uint64_t addr;
	uint32_t rkey;
	uint32_t size;
};

struct end {
	enum test test;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *send_cq, *recv_cq;
	struct ibv_mr *mr;
	char *buf;
	uint32_t size;
	int tx_depth, rx_depth, cq_mod, out_reads;
	long iters;
	struct ibv_sge sge, recv_sge;
	struct ibv_send_wr wr;
	struct ibv_recv_wr recv_wr;
};

static int is_send(enum test t)
{
	return t == SEND_BW || t == SEND_LAT;
}

/* perftest's out_reads: the device's max_qp_rd_atom for a read test, else 1. */
static int out_reads(struct rdma_cm_id *id, enum test test)
{
	struct ibv_device_attr attr;

	if (test != READ_BW)
		return 1;
	if (ibv_query_device(id->verbs, &attr))
		die("ibv_query_device");
	return attr.max_qp_rd_atom < 255 ? attr.max_qp_rd_atom : 255;
}

static void open_end(struct end *e, struct rdma_cm_id *id, enum test test, uint32_t size, long iters)
{
	struct ibv_qp_init_attr attr;
	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;

	e->test = test;
	e->id = id;
	e->size = size;
	e->iters = iters;
	/* perftest's force_dependecies: neither depth above the iterations. */
	e->tx_depth = test == SEND_LAT ? 1 : (iters < TX_DEPTH_BW ? (int)iters : TX_DEPTH_BW);
	e->rx_depth = is_send(test) ? (iters < RX_DEPTH_SEND ? (int)iters : RX_DEPTH_SEND) : 1;
	e->cq_mod = size > CQ_MOD_SIZE_LIMIT ? 1 : CQ_MOD;
	if (e->cq_mod > e->tx_depth)
		e->cq_mod = e->tx_depth;
	e->out_reads = out_reads(id, test);
	e->pd = ibv_alloc_pd(id->verbs);
	if (!e->pd)
		die("ibv_alloc_pd");
	e->send_cq = ibv_create_cq(id->verbs, e->tx_depth, NULL, NULL, 0);
	e->recv_cq = ibv_create_cq(id->verbs, e->rx_depth, NULL, NULL, 0);
	if (!e->send_cq || !e->recv_cq)
		die("ibv_create_cq");
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = e->send_cq;
	attr.recv_cq = e->recv_cq;
	attr.qp_type = IBV_QPT_RC;
	attr.cap.max_send_wr = (uint32_t)e->tx_depth;
	attr.cap.max_recv_wr = (uint32_t)e->rx_depth;
	attr.cap.max_send_sge = 1;
	attr.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, e->pd, &attr))
		die("rdma_create_qp");
	e->buf = aligned_alloc(4096, (((size_t)size + 4095) / 4096) * 4096);
	if (!e->buf)
		die("aligned_alloc");
	memset(e->buf, 1, size);
	e->mr = ibv_reg_mr(e->pd, e->buf, size, access);
	if (!e->mr)
		die("ibv_reg_mr");
	e->sge = (struct ibv_sge){ .addr = (uintptr_t)e->buf, .length = size, .lkey = e->mr->lkey };
	e->recv_sge = e->sge;
	e->recv_wr = (struct ibv_recv_wr){ .wr_id = 0, .sg_list = &e->recv_sge, .num_sge = 1 };
	e->wr = (struct ibv_send_wr){ .sg_list = &e->sge, .num_sge = 1,
				      .opcode = test == WRITE_BW ? IBV_WR_RDMA_WRITE
					      : test == READ_BW ? IBV_WR_RDMA_READ : IBV_WR_SEND };
}

static void post_recv(struct end *e)
{
	struct ibv_recv_wr *bad;

	if (ibv_post_recv(e->id->qp, &e->recv_wr, &bad))
		die("ibv_post_recv");
}

static void post_send(struct end *e, uint64_t wr_id, int signaled)
{
	struct ibv_send_wr *bad;

	e->wr.wr_id = wr_id;
	e->wr.send_flags = signaled ? IBV_SEND_SIGNALED : 0;
	if (ibv_post_send(e->id->qp, &e->wr, &bad))
		die("ibv_post_send");
}

static int poll(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int got = ibv_poll_cq(cq, n, wc);

	if (got < 0)
		die("ibv_poll_cq");
	if (got == 0 && yield_on_empty)
		sched_yield();
	for (int i = 0; i < got; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			fprintf(stderr, "cm_perf: completion %s (wr_id %llu)\n", ibv_wc_status_str(wc[i].status),
				(unsigned long long)wc[i].wr_id);
			exit(1);
		}
	}
	return got;
}

static void close_end(struct end *e)
{
	rdma_destroy_qp(e->id);
	ibv_dereg_mr(e->mr);
	ibv_destroy_cq(e->send_cq);
	ibv_destroy_cq(e->recv_cq);
	ibv_dealloc_pd(e->pd);
	free(e->buf);
}

static struct rdma_conn_param params(struct end *e, const void *data, uint8_t len)
{
	return (struct rdma_conn_param){ .responder_resources = (uint8_t)e->out_reads,
					 .initiator_depth = (uint8_t)e->out_reads, .retry_count = 7,
					 .rnr_retry_count = 7, .private_data = data, .private_data_len = len };
}

/*
 * The bandwidth loop of the client (perftest's run_iter_bw): post while fewer than tx_depth are
 * outstanding, one in cq_mod signaled and the last; a completion of WR i completes every WR up to i.
 */
static uint64_t run_bw(struct end *e, uint64_t *t_first)
{
	struct ibv_wc wc[POLL_BATCH];
	long posted = 0, completed = 0;

	*t_first = now_ns();
	while (completed < e->iters) {
		while (posted < e->iters && posted - completed < e->tx_depth) {
			post_send(e, (uint64_t)posted, posted % e->cq_mod == e->cq_mod - 1 || posted == e->iters - 1);
			posted++;
		}
		int n = poll(e->send_cq, POLL_BATCH, wc);

		for (int i = 0; i < n; i++)
			completed = (long)wc[i].wr_id + 1;
	}
	return now_ns();
}

/* The server of send_bw (perftest's run_iter_bw_server): post each receive again while fewer than ITERS were posted. */
static void serve_send_bw(struct end *e)
{
	struct ibv_wc wc[POLL_BATCH];
	long received = 0, posted = e->rx_depth;
	uint64_t t0 = 0, c0 = cpu_ns();

	while (received < e->iters) {
		int n = poll(e->recv_cq, POLL_BATCH, wc);

		if (n > 0 && t0 == 0)
			t0 = now_ns();
		for (int i = 0; i < n; i++) {
			received++;
			if (posted < e->iters) {
				post_recv(e);
				posted++;
			}
		}
	}
	double s = (now_ns() - t0) / 1e9;

	printf("perf_server send_bw size %u iters %ld seconds %.3f MiB_per_s %.3f msgs_per_s %.1f cpu_us_per_msg %.2f\n",
	       e->size, e->iters, s, (double)e->size * e->iters / s / (1 << 20), e->iters / s,
	       (cpu_ns() - c0) / 1e3 / e->iters);
}

/*
 * One side of send_lat (perftest's run_iter_lat_send): wait for the peer's message (the client not before
 * its first send), post the receive again while more are due, then send; every cq_mod-th send (and the
 * last) is signaled and waited for. The client keeps the time of each post.
 */
static void run_lat(struct end *e, int client, uint64_t *posted_at)
{
	struct ibv_wc wc;
	long sent = 0, received = 0;

	while (sent < e->iters || received < e->iters) {
		if (received < e->iters && !(client && sent < 1)) {
			while (poll(e->recv_cq, 1, &wc) == 0)
				;
			received++;
			if (received + e->rx_depth <= e->iters)
				post_recv(e);
		}
		if (sent < e->iters) {
			int signaled = (sent + 1) % e->cq_mod == 0 || sent + 1 == e->iters;

			if (posted_at)
				posted_at[sent] = now_ns();
			post_send(e, (uint64_t)sent, signaled);
			sent++;
			if (signaled)
				while (poll(e->send_cq, 1, &wc) == 0)
					;
		}
	}
}

static void report_lat(struct end *e, uint64_t *posted_at, uint64_t cpu)
{
	long n = e->iters - 1;
	uint64_t *half = calloc((size_t)n, sizeof(*half)), sum = 0;

	if (!half)
		die("calloc");
	for (long i = 0; i < n; i++) {
		half[i] = (posted_at[i + 1] - posted_at[i]) / 2;
		sum += half[i];
	}
	qsort(half, (size_t)n, sizeof(*half), cmp_u64);
	printf("perf send_lat size %u iters %ld t_min_us %.2f t_typical_us %.2f t_avg_us %.2f t_99_us %.2f t_max_us %.2f "
	       "cpu_us_per_msg %.2f\n", e->size, e->iters, half[0] / 1e3, half[n / 2] / 1e3, sum / 1e3 / n,
	       half[(n * 99) / 100] / 1e3, half[n - 1] / 1e3, cpu / 1e3 / e->iters);
	free(half);
}

static const char *names[] = { "send_bw", "write_bw", "read_bw", "send_lat" };

static void serve(struct rdma_event_channel *ch, struct rdma_addrinfo *rai, enum test test, uint32_t size,
		  long iters)
{
	struct rdma_cm_id *listen_id;
	struct rdma_cm_event *event;
	struct rdma_conn_param p;
	struct remote r;
	struct end e;

	listen_id = cm_listen(ch, rai);
	event = expect(ch, RDMA_CM_EVENT_CONNECT_REQUEST);
	open_end(&e, event->id, test, size, iters);
	rdma_ack_cm_event(event);
	if (is_send(test))
		for (int i = 0; i < e.rx_depth; i++)
			post_recv(&e);
	r = (struct remote){ .addr = htobe64((uintptr_t)e.buf), .rkey = htobe32(e.mr->rkey), .size = htobe32(size) };
	p = params(&e, &r, sizeof(r));
	if (rdma_accept(e.id, &p))
		die("rdma_accept");
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ESTABLISHED));
	fprintf(stderr, "cm_perf: server connected (%s, out_reads %d)\n", names[test], e.out_reads);

	if (test == SEND_BW) {
		serve_send_bw(&e);
	} else if (test == SEND_LAT) {
		uint64_t c0 = cpu_ns();

		run_lat(&e, 0, NULL);
		printf("perf_server send_lat size %u iters %ld cpu_us_per_msg %.2f\n", size, iters,
		       (cpu_ns() - c0) / 1e3 / iters);
	}
	fflush(stdout);
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_DISCONNECTED));
	rdma_disconnect(e.id);
	close_end(&e);
	rdma_destroy_id(e.id);
	rdma_destroy_id(listen_id);
}

static void client(struct rdma_event_channel *ch, struct rdma_addrinfo *rai, enum test test, uint32_t size,
		   long iters)
{
	struct rdma_cm_id *id;
	struct rdma_cm_event *event;
	struct rdma_conn_param p;
	struct remote r;
	struct end e;

	id = cm_resolve(ch, rai);
	open_end(&e, id, test, size, iters);
	if (is_send(test))
		for (int i = 0; i < e.rx_depth; i++)
			post_recv(&e);
	p = params(&e, NULL, 0);
	if (rdma_connect(id, &p))
		die("rdma_connect");
	event = expect(ch, RDMA_CM_EVENT_ESTABLISHED);
	if (event->param.conn.private_data_len < sizeof(r)) {
		fprintf(stderr, "cm_perf: the accept carried %u bytes of private data, not the server's buffer\n",
			event->param.conn.private_data_len);
		exit(1);
	}
	memcpy(&r, event->param.conn.private_data, sizeof(r));
	rdma_ack_cm_event(event);
	e.wr.wr.rdma.remote_addr = be64toh(r.addr);
	e.wr.wr.rdma.rkey = be32toh(r.rkey);
	fprintf(stderr, "cm_perf: client connected (%s, tx_depth %d, out_reads %d)\n", names[test], e.tx_depth,
		e.out_reads);

	uint64_t c0 = cpu_ns();

	if (test == SEND_LAT) {
		uint64_t *posted_at = calloc((size_t)iters, sizeof(*posted_at));

		if (!posted_at)
			die("calloc");
		run_lat(&e, 1, posted_at);
		report_lat(&e, posted_at, cpu_ns() - c0);
		free(posted_at);
	} else {
		uint64_t t0, t1 = run_bw(&e, &t0);
		double s = (t1 - t0) / 1e9;

		printf("perf %s size %u iters %ld seconds %.3f MiB_per_s %.3f msgs_per_s %.1f cpu_us_per_msg %.2f\n",
		       names[test], size, iters, s, (double)size * iters / s / (1 << 20), iters / s,
		       (cpu_ns() - c0) / 1e3 / iters);
	}
	fflush(stdout);
	rdma_disconnect(id);
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_DISCONNECTED));
	close_end(&e);
	rdma_destroy_id(id);
}

int main(int argc, char **argv)
{
	struct rdma_addrinfo *rai;
	struct rdma_event_channel *ch;
	int server, test = -1;
	long size, iters;

	if (argc == 7 || argc == 8)
		for (int i = 0; i < 4; i++)
			if (!strcmp(argv[4], names[i]))
				test = i;
	if ((argc != 7 && argc != 8) || (strcmp(argv[1], "server") && strcmp(argv[1], "client")) || test < 0 ||
	    (argc == 8 && strcmp(argv[7], "spin") && strcmp(argv[7], "yield"))) {
		fprintf(stderr, "usage: cm_perf server|client ADDRESS PORT send_bw|write_bw|read_bw|send_lat SIZE ITERS "
			"[spin|yield]\n");
		return 2;
	}
	yield_on_empty = argc == 8 && !strcmp(argv[7], "yield");
	server = !strcmp(argv[1], "server");
	size = atol(argv[5]);
	iters = atol(argv[6]);
	if (size < 1 || size > (1L << 30) || iters < 2) {
		fprintf(stderr, "cm_perf: SIZE must be 1..2^30, ITERS at least 2\n");
		return 2;
	}
	rai = cm_addrinfo(argv[2], argv[3], server);
	ch = rdma_create_event_channel();
	if (!ch)
		die("rdma_create_event_channel");
	if (server)
		serve(ch, rai, (enum test)test, (uint32_t)size, iters);
	else
		client(ch, rai, (enum test)test, (uint32_t)size, iters);
	rdma_destroy_event_channel(ch);
	rdma_freeaddrinfo(rai);
	return 0;
}
