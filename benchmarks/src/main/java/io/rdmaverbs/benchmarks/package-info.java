/**
 * JMH benchmarks of rdma-verbs against C; the method and the numbers are in {@code docs/performance.md}.
 * Not {@code @NullMarked}: JMH state fields are filled in {@code @Setup}, not by constructors.
 */
package io.rdmaverbs.benchmarks;
