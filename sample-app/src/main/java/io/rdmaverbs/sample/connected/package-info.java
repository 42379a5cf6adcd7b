/**
 * The connected mode: a listener {@code echo} whose {@code @RdmaEndpoint} answers every request on the
 * route {@code echo} with its own payload, and a peer {@code echo} that connects to it from
 * {@code application.yml} alone; {@code POST /rdma/connected/echo} sends requests with a CRC32 each
 * through the {@code RdmaTemplate} and checks the echoes; {@code POST /rdma/connected/echo/one-sided} has
 * each side read the other's exported region with RDMA READ ({@code OneSidedExchange} on the peer's side,
 * {@code RegionEndpoint} on the listener's).
 */
@NullMarked
package io.rdmaverbs.sample.connected;

import org.jspecify.annotations.NullMarked;
