/**
 * The connected mode: a listener {@code echo} whose {@code @RdmaEndpoint} answers every request on the
 * route {@code echo} with its own payload, and a peer {@code echo} that connects to it from
 * {@code application.yml} alone; {@code POST /rdma/connected/echo} sends requests with a CRC32 each
 * through the {@code RdmaTemplate} and checks the echoes.
 */
@NullMarked
package io.rdmaverbs.sample.connected;

import org.jspecify.annotations.NullMarked;
