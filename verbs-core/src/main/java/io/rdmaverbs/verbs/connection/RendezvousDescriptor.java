package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Where the receiver of a RENDEZVOUS frame reads the large message from, and what the message is, after
 * the frame's application headers, big-endian:
 *
 * <pre>
 *  0  u64  address of the source in the sender's memory
 *  8  u32  rkey of the source's region (valid for this connection's QP only)
 * 12  u8   kind of the message carried: MESSAGE, REQUEST or REPLY ({@link FrameKind})
 * 13  u8[3] reserved, 0
 * 16  u64  length in bytes
 * 24  u64  correlation id of the request or reply carried; 0 for a one-way message
 * </pre>
 *
 * @param address the source's address
 * @param rkey the source region's rkey
 * @param carried the kind of the message
 * @param length the message's length
 * @param correlation the request's correlation id, for a REQUEST or REPLY
 */
record RendezvousDescriptor(long address, int rkey, FrameKind carried, long length, long correlation) {

    static final int BYTES = 32;

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    void write(MemorySegment to, long offset) {
        to.set(U64, offset, address);
        to.set(U32, offset + 8, rkey);
        to.set(ValueLayout.JAVA_BYTE, offset + 12, carried.code);
        to.set(ValueLayout.JAVA_BYTE, offset + 13, (byte) 0);
        to.set(ValueLayout.JAVA_SHORT_UNALIGNED, offset + 14, (short) 0);
        to.set(U64, offset + 16, length);
        to.set(U64, offset + 24, correlation);
    }

    /**
     * The descriptor at {@code offset}.
     *
     * @throws ProtocolException when it carries a kind no large message can be
     */
    static RendezvousDescriptor read(MemorySegment from, long offset) {
        FrameKind carried = FrameKind.of(from.get(ValueLayout.JAVA_BYTE, offset + 12));
        if (carried != FrameKind.MESSAGE && carried != FrameKind.REQUEST && carried != FrameKind.REPLY) {
            throw new ProtocolException("a RENDEZVOUS descriptor carrying " + carried + ", not a MESSAGE, REQUEST or REPLY");
        }
        return new RendezvousDescriptor(from.get(U64, offset), from.get(U32, offset + 8), carried,
                from.get(U64, offset + 16), from.get(U64, offset + 24));
    }
}
