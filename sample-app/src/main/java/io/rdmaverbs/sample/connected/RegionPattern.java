package io.rdmaverbs.sample.connected;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.SplittableRandom;
import java.util.zip.CRC32;

/**
 * The bytes each side of the one-sided exchange puts in the region it exports, and their CRC32: pseudo-random
 * from a seed, so that the two sides' regions differ and a read that lands short, twice or shifted shows.
 */
final class RegionPattern {

    /** The peer's (host B's) region. */
    static final long PEER_SEED = 0x0B5EED;
    /** The listener's (host A's) region. */
    static final long LISTENER_SEED = 0x0A5EED;

    private RegionPattern() {
    }

    /** Fills {@code region} from {@code seed}; its CRC32. */
    static long fill(MemorySegment region, long seed) {
        SplittableRandom random = new SplittableRandom(seed ^ region.byteSize());
        long words = region.byteSize() / Long.BYTES;
        for (long i = 0; i < words; i++) {
            region.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, random.nextLong());
        }
        for (long i = words * Long.BYTES; i < region.byteSize(); i++) {
            region.set(ValueLayout.JAVA_BYTE, i, (byte) random.nextInt());
        }
        return crc32(region);
    }

    static long crc32(MemorySegment region) {
        CRC32 crc = new CRC32();
        crc.update(region.asByteBuffer());
        return crc.getValue();
    }
}
