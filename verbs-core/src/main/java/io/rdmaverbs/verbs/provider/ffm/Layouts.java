package io.rdmaverbs.verbs.provider.ffm;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SequenceLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** The C scalar types of {@code verbs.h} as value layouts; {@link Field} finds members in the structs built from them. */
final class Layouts {

    static final ValueLayout.OfByte U8 = JAVA_BYTE;
    static final ValueLayout.OfShort U16 = JAVA_SHORT;
    static final ValueLayout.OfInt U32 = JAVA_INT;
    static final ValueLayout.OfInt C_INT = JAVA_INT;
    /** C enums are {@code int}-sized on the supported ABIs. */
    static final ValueLayout.OfInt C_ENUM = JAVA_INT;
    static final ValueLayout.OfLong U64 = JAVA_LONG;
    static final ValueLayout.OfLong SIZE_T = JAVA_LONG;

    /** {@code __be32} and {@code __be64}: reading through these converts to host order. */
    static final ValueLayout.OfInt BE32 = JAVA_INT.withOrder(ByteOrder.BIG_ENDIAN);
    static final ValueLayout.OfLong BE64 = JAVA_LONG.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * {@code union ibv_gid}: 16 bytes in network order, aligned as its {@code __be64} halves are, which
     * makes {@code ibv_global_route}, {@code ibv_ah_attr} and {@code ibv_qp_attr} 8-byte aligned.
     */
    static final SequenceLayout GID = MemoryLayout.sequenceLayout(16, JAVA_BYTE).withByteAlignment(8);

    /*
     * glibc's pthread types are opaque to us but sit in the middle of ibv_context, ibv_cq, ibv_qp and
     * ibv_srq, so their size decides every later offset. x86_64 and aarch64 are the two ABIs the
     * provider accepts (see Platform); the ABI test checks these sizes against the host's header.
     */
    static final SequenceLayout PTHREAD_MUTEX_T =
            MemoryLayout.sequenceLayout(Platform.isAarch64() ? 48 : 40, JAVA_BYTE);
    static final SequenceLayout PTHREAD_COND_T = MemoryLayout.sequenceLayout(48, JAVA_BYTE);

    private Layouts() {
    }

    static SequenceLayout chars(long length) {
        return MemoryLayout.sequenceLayout(length, JAVA_BYTE);
    }

    /** A NUL-terminated string of at most {@code max} bytes, e.g. {@code ibv_device_attr.fw_ver}. */
    static String cString(MemorySegment pointer, int max) {
        MemorySegment bytes = pointer.byteSize() >= max ? pointer : pointer.reinterpret(max);
        int length = 0;
        while (length < max && bytes.get(JAVA_BYTE, length) != 0) {
            length++;
        }
        return new String(bytes.asSlice(0, length).toArray(JAVA_BYTE), StandardCharsets.UTF_8);
    }
}
