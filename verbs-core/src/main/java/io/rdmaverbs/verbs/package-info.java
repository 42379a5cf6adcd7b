/**
 * The verbs resource model: typed, {@link java.lang.AutoCloseable} RDMA resources (device context,
 * protection domain, XRC domain, completion channel, CQ, SRQ, QP, MR, address handle, multicast
 * attachment, XRC receive-QP registration, and the connection manager's event channel, id and event) in
 * a dependency graph that knows, before any native call, what would make each close fail.
 */
@NullMarked
package io.rdmaverbs.verbs;

import org.jspecify.annotations.NullMarked;
