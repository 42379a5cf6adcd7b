package io.rdmaverbs.sample.connected;

import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * What {@code POST /rdma/connected/{peer}/one-sided} did: each side read the other's exported region with
 * RDMA READ and checked its CRC32; both regions were revoked and deregistered, both handles closed, before
 * the response.
 *
 * @param peer the peer's name
 * @param bytes the size of each region
 * @param listenerRead the listener's (host A's) read of this side's region, as it reported it; null when it
 *     did not answer
 * @param peerRead this side's read of the listener's region; null when it did not get that far
 * @param ok whether both reads returned the exporter's bytes
 * @param totalMicros the whole exchange: register, export, both reads, revocations and deregistrations
 * @param errors what went wrong
 */
public record OneSidedRun(String peer, int bytes, @Nullable Read listenerRead, @Nullable Read peerRead, boolean ok,
        long totalMicros, List<String> errors) {

    /**
     * One side's RDMA READ of the other's region.
     *
     * @param crc32 the CRC32 the exporter computed over what it put in its region
     * @param readCrc32 the CRC32 of what the reader read
     * @param ok whether they are the same
     * @param micros how long the read took, from posting to its completion (in chunks of at most 1 MiB)
     */
    public record Read(long crc32, long readCrc32, boolean ok, long micros) {

        static Read of(long crc32, long readCrc32, long nanos) {
            return new Read(crc32, readCrc32, crc32 == readCrc32, nanos / 1_000);
        }
    }
}
