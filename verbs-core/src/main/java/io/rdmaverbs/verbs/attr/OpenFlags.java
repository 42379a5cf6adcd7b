package io.rdmaverbs.verbs.attr;

/** The {@code open(2)} flags {@code ibv_open_xrcd} understands in {@code ibv_xrcd_init_attr.oflags}. */
public final class OpenFlags {
    /** {@code O_CREAT}: create the XRC domain for the inode if it does not exist yet. */
    public static final int CREATE = 0100;
    /** {@code O_EXCL}: with {@link #CREATE}, fail when a domain for the inode already exists. */
    public static final int EXCLUSIVE = 0200;

    private OpenFlags() {
    }
}
