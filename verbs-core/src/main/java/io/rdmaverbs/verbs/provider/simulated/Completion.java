package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.attr.WcOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;

/** One {@code struct ibv_wc} waiting in a simulated CQ. {@code immediate} is in host byte order. */
record Completion(long wrId, WcStatus status, WcOpcode opcode, int byteLength, int immediate, int qpNum,
        int sourceQp, int flags, int sourceLid) {

    /** An error (or flush) completion: the kernel leaves opcode and length zero (observed on rxe). */
    static Completion failed(long wrId, WcStatus status, int qpNum) {
        return new Completion(wrId, status, WcOpcode.SEND, 0, 0, qpNum, 0, 0, 0);
    }
}
