/**
 * Connections over the RDMA connection manager ({@code rdma_cm(7)}), built on the resource graph's CM
 * objects alone: {@link io.rdmaverbs.verbs.connection.Connections} owns one event channel and the thread
 * that reads it, {@link io.rdmaverbs.verbs.connection.Connections#listen listens} and
 * {@link io.rdmaverbs.verbs.connection.Connections#connect connects}; a
 * {@link io.rdmaverbs.verbs.connection.Connection} owns its CM id, PD, CQ, QP and registered buffers, all
 * ordinary graph resources.
 *
 * <pre>{@code
 * try (Connections cm = Connections.on(verbs)) {
 *     ConnectionListener listener = cm.listen(ListenSpec.on(address).backlog(16), request -> request.accept());
 *     Connection c = cm.connect(ConnectSpec.to(listener.address()).timeout(Duration.ofSeconds(2)));
 *     ...
 * }
 * }</pre>
 */
@NullMarked
package io.rdmaverbs.verbs.connection;

import org.jspecify.annotations.NullMarked;
