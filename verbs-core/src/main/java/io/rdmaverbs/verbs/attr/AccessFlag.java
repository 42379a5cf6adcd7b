package io.rdmaverbs.verbs.attr;

import java.util.EnumSet;
import java.util.Set;

/** {@code enum ibv_access_flags}, for memory regions and QP remote access. */
public enum AccessFlag {
    LOCAL_WRITE(1), REMOTE_WRITE(1 << 1), REMOTE_READ(1 << 2), REMOTE_ATOMIC(1 << 3), MW_BIND(1 << 4),
    ZERO_BASED(1 << 5), ON_DEMAND(1 << 6);

    private final int bit;

    AccessFlag(int bit) {
        this.bit = bit;
    }

    public int bit() {
        return bit;
    }

    public static int mask(Set<AccessFlag> flags) {
        int m = 0;
        for (AccessFlag f : flags) {
            m |= f.bit;
        }
        return m;
    }

    public static EnumSet<AccessFlag> of(int mask) {
        EnumSet<AccessFlag> set = EnumSet.noneOf(AccessFlag.class);
        for (AccessFlag f : values()) {
            if ((mask & f.bit) != 0) {
                set.add(f);
            }
        }
        return set;
    }
}
