/**
 * The connected mode: a listener {@code echo} that sends every message back, and a peer {@code echo}
 * that connects to it from {@code application.yml} alone; {@code POST /rdma/connected/echo} sends
 * messages with a CRC32 each and checks the echoes.
 */
@NullMarked
package io.rdmaverbs.sample.connected;

import org.jspecify.annotations.NullMarked;
