package io.rdmaverbs.verbs.attr;

import java.util.EnumSet;
import java.util.Set;

/**
 * What a peer may do with memory exported to it: the one-sided operations of an RC connection, each
 * allowed by one of the region's {@link AccessFlag}s ({@code ibv_reg_mr(3)}).
 */
public enum RemoteAccess {
    /** RDMA READ from the region. */
    READ(AccessFlag.REMOTE_READ, 1),
    /** RDMA WRITE into the region. */
    WRITE(AccessFlag.REMOTE_WRITE, 1 << 1),
    /** Compare-and-swap and fetch-and-add on 8-byte aligned words of the region. */
    ATOMIC(AccessFlag.REMOTE_ATOMIC, 1 << 2);

    private final AccessFlag flag;
    private final int bit;

    RemoteAccess(AccessFlag flag, int bit) {
        this.flag = flag;
        this.bit = bit;
    }

    /** The region access flag that allows it. */
    public AccessFlag accessFlag() {
        return flag;
    }

    /** Its bit in a packed access set (a remote key's). */
    public int bit() {
        return bit;
    }

    public static int mask(Set<RemoteAccess> access) {
        int m = 0;
        for (RemoteAccess a : access) {
            m |= a.bit;
        }
        return m;
    }

    /** The access set of {@code mask}; bits this version does not know are ignored. */
    public static Set<RemoteAccess> of(int mask) {
        EnumSet<RemoteAccess> set = EnumSet.noneOf(RemoteAccess.class);
        for (RemoteAccess a : values()) {
            if ((mask & a.bit) != 0) {
                set.add(a);
            }
        }
        return set;
    }
}
