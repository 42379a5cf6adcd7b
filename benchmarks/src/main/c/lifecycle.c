/*
 * The C side of the lifecycle comparison on a real device (soft-RoCE rxe0 in the qemu guest): the
 * same create/destroy pairs the Java benchmark lifecycle.Lifecycle makes through the project, with
 * the same arguments, timed the way JMH times them (AverageTime: warm-up iterations, then
 * measurement iterations of a fixed length, each reporting elapsed / operations).
 *
 *   pd  ibv_alloc_pd + ibv_dealloc_pd
 *   cq  ibv_create_cq(256 entries, no channel, vector 0) + ibv_destroy_cq
 *   qp  ibv_create_qp(RC, 64/64 WRs, 1/1 SGE, sq_sig_all, on one PD and CQ) + ibv_destroy_qp
 *   mr  ibv_reg_mr(64 KiB, page-aligned, LOCAL_WRITE|REMOTE_WRITE|REMOTE_READ) + ibv_dereg_mr
 *
 * usage: lifecycle [device=rxe0] [warm-up iterations=2] [measurement iterations=5] [iteration ms=1000]
 * Prints "<op> <iteration> <ns/op> <ops>" per measurement iteration; exits 1 on any failed verb.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <infiniband/verbs.h>

#define MR_SIZE (64 * 1024)

/* The layout lifecycle.RawPairs writes by hand. */
_Static_assert(sizeof(struct ibv_qp_init_attr) == 64, "RawPairs.QP_INIT_ATTR_SIZE");
_Static_assert(offsetof(struct ibv_qp_init_attr, send_cq) == 8, "RawPairs.SEND_CQ");
_Static_assert(offsetof(struct ibv_qp_init_attr, recv_cq) == 16, "RawPairs.RECV_CQ");
_Static_assert(offsetof(struct ibv_qp_init_attr, cap) == 32, "RawPairs.CAP");
_Static_assert(offsetof(struct ibv_qp_init_attr, qp_type) == 52, "RawPairs.QP_TYPE");
_Static_assert(offsetof(struct ibv_qp_init_attr, sq_sig_all) == 56, "RawPairs.SQ_SIG_ALL");
_Static_assert(IBV_QPT_RC == 2, "RawPairs.IBV_QPT_RC");

static struct ibv_context *ctx;
static struct ibv_pd *pd;
static struct ibv_cq *cq;
static void *buffer;

static double now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e9 + t.tv_nsec;
}

static void fail(const char *verb, int err)
{
	fprintf(stderr, "lifecycle: %s failed: %s\n", verb, strerror(err));
	exit(1);
}

static void pd_pair(void)
{
	struct ibv_pd *p = ibv_alloc_pd(ctx);
	int rc;

	if (!p)
		fail("ibv_alloc_pd", errno);
	if ((rc = ibv_dealloc_pd(p)))
		fail("ibv_dealloc_pd", rc);
}

static void cq_pair(void)
{
	struct ibv_cq *c = ibv_create_cq(ctx, 256, NULL, NULL, 0);
	int rc;

	if (!c)
		fail("ibv_create_cq", errno);
	if ((rc = ibv_destroy_cq(c)))
		fail("ibv_destroy_cq", rc);
}

static void qp_pair(void)
{
	struct ibv_qp_init_attr attr = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = { .max_send_wr = 64, .max_recv_wr = 64, .max_send_sge = 1, .max_recv_sge = 1 },
		.qp_type = IBV_QPT_RC,
		.sq_sig_all = 1,
	};
	struct ibv_qp *q = ibv_create_qp(pd, &attr);
	int rc;

	if (!q)
		fail("ibv_create_qp", errno);
	if ((rc = ibv_destroy_qp(q)))
		fail("ibv_destroy_qp", rc);
}

static void mr_pair(void)
{
	struct ibv_mr *m = ibv_reg_mr(pd, buffer, MR_SIZE,
				      IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	int rc;

	if (!m)
		fail("ibv_reg_mr", errno);
	if ((rc = ibv_dereg_mr(m)))
		fail("ibv_dereg_mr", rc);
}

static void measure(const char *name, void (*pair)(void), int warmups, int iterations, double length_ns)
{
	for (int i = -warmups; i < iterations; i++) {
		double start = now_ns(), end;
		long ops = 0;

		do {
			pair();
			ops++;
			end = now_ns();
		} while (end - start < length_ns);
		if (i >= 0)
			printf("%s %d %.1f %ld\n", name, i + 1, (end - start) / ops, ops);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	const char *name = argc > 1 ? argv[1] : "rxe0";
	int warmups = argc > 2 ? atoi(argv[2]) : 2;
	int iterations = argc > 3 ? atoi(argv[3]) : 5;
	double length_ns = (argc > 4 ? atof(argv[4]) : 1000) * 1e6;
	struct ibv_device **list = ibv_get_device_list(NULL);

	for (int i = 0; list && list[i]; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			ctx = ibv_open_device(list[i]);
	if (!ctx) {
		fprintf(stderr, "lifecycle: no device %s\n", name);
		return 1;
	}
	if (!(pd = ibv_alloc_pd(ctx)))
		fail("ibv_alloc_pd", errno);
	if (!(cq = ibv_create_cq(ctx, 256, NULL, NULL, 0)))
		fail("ibv_create_cq", errno);
	if (posix_memalign(&buffer, 4096, MR_SIZE))
		fail("posix_memalign", ENOMEM);
	memset(buffer, 0, MR_SIZE);

	measure("pd", pd_pair, warmups, iterations, length_ns);
	measure("cq", cq_pair, warmups, iterations, length_ns);
	measure("qp", qp_pair, warmups, iterations, length_ns);
	measure("mr", mr_pair, warmups, iterations, length_ns);

	free(buffer);
	ibv_destroy_cq(cq);
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
	return 0;
}
