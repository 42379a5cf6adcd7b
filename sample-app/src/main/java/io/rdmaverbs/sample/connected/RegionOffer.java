package io.rdmaverbs.sample.connected;

/**
 * The JSON messages of the one-sided exchange, route {@code one-sided}: the peer's request carries the key of
 * the region it exported and that region's CRC32; the listener's reply its read of it and the key and CRC32
 * of its own region. Keys are {@code RemoteKey.toByteArray()} (base64 in the JSON).
 */
final class RegionOffer {

    private RegionOffer() {
    }

    /**
     * @param key the peer's export, READ only
     * @param crc32 of the peer's region
     */
    record Request(byte[] key, long crc32) {
    }

    /**
     * @param read the listener's read of the peer's region
     * @param key the listener's export, READ only, the same size; the peer hands it back on
     *     {@code one-sided-release} once read
     * @param crc32 of the listener's region
     */
    record Reply(OneSidedRun.Read read, byte[] key, long crc32) {
    }
}
