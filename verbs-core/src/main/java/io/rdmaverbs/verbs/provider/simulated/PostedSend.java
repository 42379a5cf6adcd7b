package io.rdmaverbs.verbs.provider.simulated;

import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;

import org.jspecify.annotations.Nullable;

/**
 * A send WR as the send queue holds it: a copy of the caller's reusable {@link SimSendWr} at post time.
 * Inline data is captured at post time, as libibverbs copies it into the WQE.
 */
record PostedSend(long wrId, SendOpcode opcode, int flags, long[] addresses, int[] lengths, int[] lkeys,
        byte @Nullable [] inlineData, int immediate, long remoteAddress, int rkey, long compareAdd, long swap,
        @Nullable SimAh ah, int remoteQpn, int remoteQkey, int xrcRemoteSrqNum) {

    long length() {
        if (inlineData != null) {
            return inlineData.length;
        }
        long total = 0;
        for (int length : lengths) {
            total += Integer.toUnsignedLong(length);
        }
        return total;
    }

    boolean signaled(boolean signalAll) {
        return signalAll || (flags & SendFlag.SIGNALED) != 0;
    }

    boolean solicited() {
        return (flags & SendFlag.SOLICITED) != 0;
    }
}
