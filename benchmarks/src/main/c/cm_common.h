/*
 * What the librdmacm benchmarks (cm_pingpong.c, cm_perf.c) share: failing with the call's errno, the
 * monotonic clock, the CM events they wait for one by one, and their two ends of a connection: the
 * listener (bind, listen for one) and the active id (address and route resolved, 2 s each, as rping).
 * Each program includes it once; every error names the program (program_invocation_short_name).
 */
#ifndef CM_COMMON_H
#define CM_COMMON_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/rdma_cma.h>

static void die(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what, strerror(errno));
	exit(1);
}

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static struct rdma_cm_event *expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type)
{
	struct rdma_cm_event *event;

	if (rdma_get_cm_event(ch, &event))
		die("rdma_get_cm_event");
	if (event->event != type) {
		fprintf(stderr, "%s: expected %s, got %s (status %d)\n", program_invocation_short_name,
			rdma_event_str(type), rdma_event_str(event->event), event->status);
		exit(1);
	}
	return event;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* ADDRESS and PORT as rdma_getaddrinfo(3) takes them (fe80::...%eth0 works), passive for a server. */
static struct rdma_addrinfo *cm_addrinfo(const char *address, const char *port, int passive)
{
	struct rdma_addrinfo hints, *rai;

	memset(&hints, 0, sizeof(hints));
	hints.ai_port_space = RDMA_PS_TCP;
	if (passive)
		hints.ai_flags = RAI_PASSIVE;
	if (rdma_getaddrinfo(address, port, &hints, &rai)) {
		fprintf(stderr, "%s: rdma_getaddrinfo %s port %s failed\n", program_invocation_short_name, address, port);
		exit(1);
	}
	return rai;
}

/* A listener for one connection on the address, saying "listening" on stdout once it is up. */
static struct rdma_cm_id *cm_listen(struct rdma_event_channel *ch, struct rdma_addrinfo *rai)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_bind_addr(id, rai->ai_src_addr))
		die("rdma_bind_addr");
	if (rdma_listen(id, 1))
		die("rdma_listen");
	printf("listening\n");
	fflush(stdout);
	return id;
}

/* An id whose address and route to the server are resolved, ready for its QP and rdma_connect. */
static struct rdma_cm_id *cm_resolve(struct rdma_event_channel *ch, struct rdma_addrinfo *rai)
{
	struct rdma_cm_id *id;

	if (rdma_create_id(ch, &id, NULL, RDMA_PS_TCP))
		die("rdma_create_id");
	if (rdma_resolve_addr(id, NULL, rai->ai_dst_addr, 2000))
		die("rdma_resolve_addr");
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ADDR_RESOLVED));
	if (rdma_resolve_route(id, 2000))
		die("rdma_resolve_route");
	rdma_ack_cm_event(expect(ch, RDMA_CM_EVENT_ROUTE_RESOLVED));
	return id;
}

#endif
