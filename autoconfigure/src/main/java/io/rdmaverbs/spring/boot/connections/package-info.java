/**
 * Connections over the RDMA connection manager ({@code rdma_cm(7)}) as Spring beans: the listeners and
 * peers declared under {@code rdma.verbs.connections}, each connection's verbs-core {@code Session}
 * (messages and requests an application sends and receives), reconnects with Resilience4j and
 * application events. Their health is in {@code io.rdmaverbs.spring.boot.health}, their meters in
 * {@code .metrics}, their retries and circuit breakers in {@code .resilience}, beside the verbs' own. Built on
 * verbs-core's {@code io.rdmaverbs.verbs.connection}; the wiring is in
 * {@code io.rdmaverbs.spring.boot.autoconfigure.connections}.
 */
@NullMarked
package io.rdmaverbs.spring.boot.connections;

import org.jspecify.annotations.NullMarked;
