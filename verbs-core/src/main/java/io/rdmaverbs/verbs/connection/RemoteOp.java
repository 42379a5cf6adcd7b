package io.rdmaverbs.verbs.connection;

import java.util.function.Consumer;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;

/**
 * One RDMA READ, WRITE or atomic a {@link Session} posts (a chunk of a rendezvous read, or a one-sided
 * operation through a {@code RemoteRegion}): the local side of it in a region of the connection's PD,
 * the remote address and rkey, and what to do with its completion's status (called on the completion
 * loop's thread).
 *
 * @param opcode RDMA_READ, RDMA_WRITE, ATOMIC_CMP_AND_SWP or ATOMIC_FETCH_AND_ADD
 * @param local the region the data goes to or comes from (8 bytes for an atomic's old value)
 * @param localOffset where in it
 * @param length bytes (8 for an atomic)
 * @param remoteAddress the peer's address
 * @param rkey the peer region's rkey
 * @param compareAdd the atomic's compare (CAS) or add (FAA) operand
 * @param swap the CAS's swap operand
 * @param done told the completion's status
 */
record RemoteOp(SendOpcode opcode, MemoryRegion local, long localOffset, int length, long remoteAddress, int rkey,
        long compareAdd, long swap, Consumer<WcStatus> done) {

    static RemoteOp read(MemoryRegion local, long localOffset, int length, long remoteAddress, int rkey,
            Consumer<WcStatus> done) {
        return new RemoteOp(SendOpcode.RDMA_READ, local, localOffset, length, remoteAddress, rkey, 0, 0, done);
    }

    static RemoteOp write(MemoryRegion local, long localOffset, int length, long remoteAddress, int rkey,
            Consumer<WcStatus> done) {
        return new RemoteOp(SendOpcode.RDMA_WRITE, local, localOffset, length, remoteAddress, rkey, 0, 0, done);
    }

    /**
     * Whether the operation uses one of the responder's read/atomic resources: READs and atomics do, and at
     * most the connection's {@code initiator_depth} of them are outstanding ({@code rdma_connect(3)}).
     */
    boolean usesReadResources() {
        return opcode != SendOpcode.RDMA_WRITE;
    }

    boolean isAtomic() {
        return opcode == SendOpcode.ATOMIC_CMP_AND_SWP || opcode == SendOpcode.ATOMIC_FETCH_AND_ADD;
    }
}
