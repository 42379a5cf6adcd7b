package io.rdmaverbs.verbs.attr;

/** {@code enum ibv_send_flags}, as bit values to OR together. */
public final class SendFlag {
    public static final int FENCE = 1;
    public static final int SIGNALED = 1 << 1;
    public static final int SOLICITED = 1 << 2;
    public static final int INLINE = 1 << 3;

    private SendFlag() {
    }
}
