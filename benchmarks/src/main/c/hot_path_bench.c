/*
 * Cross-check of the C figures JMH reports for CLoop: the same loops, from the same library
 * (libhotpathloops.so, so the same machine code at the same alignment), on objects of the same fake
 * provider (libfakeverbs.so, linked directly), timed with clock_gettime instead of JMH. Prints one
 * line per verb and measurement, "<verb> <ns/op>", after one warm-up round.
 *
 * usage: hot_path_bench [iterations per measurement, default 100000000] [measurements, default 5]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <infiniband/verbs.h>

#undef ibv_get_device_list
#undef ibv_reg_mr
struct ibv_device **ibv_get_device_list(int *num_devices);
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);

long c_poll_cq(struct ibv_cq *cq, int batch, long iterations);
long c_req_notify_cq(struct ibv_cq *cq, long iterations);
long c_post_send(struct ibv_qp *qp, void *addr, unsigned int lkey, long iterations);
long c_post_recv(struct ibv_qp *qp, void *addr, unsigned int lkey, long iterations);

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000000L;
	int rounds = argc > 2 ? atoi(argv[2]) : 5;
	struct ibv_device **list = ibv_get_device_list(NULL);
	struct ibv_context *ctx = ibv_open_device(list[0]);
	struct ibv_pd *pd = ibv_alloc_pd(ctx);
	struct ibv_cq *cq = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	struct ibv_qp_init_attr attr = {
		.send_cq = cq, .recv_cq = cq, .qp_type = IBV_QPT_RC,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &attr);
	static char buffer[4096];
	struct ibv_mr *mr = ibv_reg_mr(pd, buffer, sizeof(buffer), IBV_ACCESS_LOCAL_WRITE);
	long sink = 0;

	for (int round = -1; round < rounds; round++) {
		/* Round -1 warms up and is not printed. */
		double t0 = now_ns();
		sink += c_poll_cq(cq, 1, n);
		double t1 = now_ns();
		sink += c_poll_cq(cq, 16, n);
		double t2 = now_ns();
		sink += c_req_notify_cq(cq, n);
		double t3 = now_ns();
		sink += c_post_send(qp, buffer, mr->lkey, n);
		double t4 = now_ns();
		sink += c_post_recv(qp, buffer, mr->lkey, n);
		double t5 = now_ns();
		if (round < 0)
			continue;
		printf("poll1 %.3f\npoll16 %.3f\nreqNotify %.3f\npostSend %.3f\npostRecv %.3f\n",
		       (t1 - t0) / n, (t2 - t1) / n, (t3 - t2) / n, (t4 - t3) / n, (t5 - t4) / n);
	}
	ibv_dereg_mr(mr);
	ibv_destroy_qp(qp);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return sink != 0;
}
