/**
 * Micrometer Observations of messaging on RDMA connections: {@code rdma.messaging.send},
 * {@code rdma.messaging.request} on the sending side, {@code rdma.messaging.handle} on the receiving one,
 * with the trace context carried in the message headers.
 */
@NullMarked
package io.rdmaverbs.spring.boot.messaging.observation;

import org.jspecify.annotations.NullMarked;
