package io.rdmaverbs.verbs.provider.ffm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The CM's private data: a pointer and a {@code uint8_t} length. Events own theirs only until
 * {@code rdma_ack_cm_event(3)}, so it is copied to the heap while the event is held.
 */
final class PrivateData {

    private PrivateData() {
    }

    static byte[] copy(MemorySegment data, byte length) {
        int n = Byte.toUnsignedInt(length);
        if (n == 0 || data.equals(MemorySegment.NULL)) {
            return new byte[0];
        }
        return data.reinterpret(n).toArray(ValueLayout.JAVA_BYTE);
    }
}
