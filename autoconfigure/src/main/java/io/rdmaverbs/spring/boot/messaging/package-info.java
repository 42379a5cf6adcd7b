/**
 * Spring's messaging conventions on RDMA connections (docs/messaging.md): {@link RdmaEndpoint} classes
 * whose {@link RdmaMessageMapping} methods take the messages of a declared listener, routed by the
 * {@value RdmaMessageHeaders#ROUTE} header; {@link RdmaTemplate} for the declared peers, by name; error
 * replies and the {@link RdmaErrorHandler} of one-way messages. Plain library types: the
 * auto-configuration in {@code io.rdmaverbs.spring.boot.autoconfigure.messaging} only wires them.
 */
@NullMarked
package io.rdmaverbs.spring.boot.messaging;

import org.jspecify.annotations.NullMarked;
