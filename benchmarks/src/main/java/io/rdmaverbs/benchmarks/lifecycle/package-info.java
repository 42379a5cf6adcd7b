/**
 * Create/destroy pairs (PD, CQ, RC QP, 64 KiB MR) at three Java levels, the counterpart of
 * {@code src/main/c/lifecycle.c}: on rxe0 in the soft-RoCE guest, and on the host over the fake provider.
 */
package io.rdmaverbs.benchmarks.lifecycle;
