package io.rdmaverbs.sample.connected;

import java.util.List;

/**
 * What {@code POST /rdma/connected/echo} did.
 *
 * @param peer the peer's name
 * @param sent messages sent
 * @param echoed echoes received
 * @param checksumMismatches echoes whose CRC32 differed from the message's
 * @param errors what went wrong, one line per failed message
 */
public record EchoRun(String peer, int sent, int echoed, int checksumMismatches, List<String> errors) {
}
