package io.rdmaverbs.verbs.connection;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

import io.rdmaverbs.verbs.attr.RemoteAccess;

/**
 * The peer's way to a slice of memory this side exported ({@link Session#export}), as opaque bytes the
 * application carries to the peer in any message (UCX's {@code ucp_rkey_pack}): the peer turns them into a
 * {@link io.rdmaverbs.verbs.RemoteRegion} with {@link Session#remoteRegion(byte[])}. Nobody copies an
 * address and an rkey by hand, so nobody sends the lkey where the rkey belongs.
 *
 * <p>The key is valid on the one connection it was exported on: it carries the session nonces of both its
 * sides (exchanged in the hello), and a session refuses a key whose nonces are not its own and its peer's.
 * Packed, big-endian, {@value #BYTES} bytes:
 *
 * <pre>
 *  0  u32  magic 'RVRK'
 *  4  u8   key version (1)
 *  5  u8   access: bit 0 READ, bit 1 WRITE, bit 2 ATOMIC
 *  6  u16  the exporter's session nonce
 *  8  u16  the importer's session nonce (the exporter's peer's)
 * 10  u16  reserved, 0
 * 12  u32  rkey
 * 16  u64  export id
 * 24  u64  address of the first exported byte in the exporter's memory
 * 32  u64  length in bytes
 * </pre>
 */
public final class RemoteKey {

    public static final int BYTES = 40;
    static final int MAGIC = 0x5256524B;
    static final int VERSION = 1;

    private final long exportId;
    private final long address;
    private final long length;
    private final int rkey;
    private final Set<RemoteAccess> access;
    private final int exporterNonce;
    private final int importerNonce;

    RemoteKey(long exportId, long address, long length, int rkey, Set<RemoteAccess> access, int exporterNonce,
            int importerNonce) {
        this.exportId = exportId;
        this.address = address;
        this.length = length;
        this.rkey = rkey;
        this.access = Collections.unmodifiableSet(EnumSet.copyOf(access));
        this.exporterNonce = exporterNonce;
        this.importerNonce = importerNonce;
    }

    /**
     * The key packed in {@code bytes}.
     *
     * @throws IllegalArgumentException when they are not a remote key of this version
     */
    public static RemoteKey unpack(byte[] bytes) {
        if (bytes.length != BYTES) {
            throw new IllegalArgumentException("a remote key is " + BYTES + " bytes, got " + bytes.length);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes);
        int magic = b.getInt();
        int version = Byte.toUnsignedInt(b.get());
        if (magic != MAGIC || version != VERSION) {
            throw new IllegalArgumentException("not a remote key of version " + VERSION + " (magic 0x"
                    + Integer.toHexString(magic) + ", version " + version + "): pass the bytes RemoteKey.toByteArray() "
                    + "gave the exporter");
        }
        Set<RemoteAccess> access = RemoteAccess.of(Byte.toUnsignedInt(b.get()));
        int exporter = Short.toUnsignedInt(b.getShort());
        int importer = Short.toUnsignedInt(b.getShort());
        b.getShort();
        int rkey = b.getInt();
        long exportId = b.getLong();
        long address = b.getLong();
        long length = b.getLong();
        if (access.isEmpty() || length < 1) {
            throw new IllegalArgumentException("a remote key of export " + exportId + " with access " + access
                    + " and " + length + " bytes: no export has those");
        }
        return new RemoteKey(exportId, address, length, rkey, access, exporter, importer);
    }

    /**
     * Refuses the key unless it was exported to the side whose session nonce is {@code localNonce} by its
     * peer, whose nonce is {@code peerNonce}: a key of another session, or this side's own.
     */
    void requireExportedTo(String session, int localNonce, int peerNonce) {
        if (exporterNonce == peerNonce && importerNonce == localNonce) {
            return;
        }
        if (exporterNonce == localNonce && importerNonce == peerNonce) {
            throw new IllegalArgumentException(session + ": " + this + " was exported by this side; send it to the peer, "
                    + "which opens it with Session.remoteRegion");
        }
        throw new IllegalArgumentException(session + ": " + this + " was exported on another session (its nonces 0x"
                + Integer.toHexString(exporterNonce) + "/0x" + Integer.toHexString(importerNonce) + ", this session's 0x"
                + Integer.toHexString(peerNonce) + "/0x" + Integer.toHexString(localNonce) + "): a key is valid on the "
                + "connection it was exported on only");
    }

    /** The packed key, to send to the peer. */
    public byte[] toByteArray() {
        return ByteBuffer.allocate(BYTES).putInt(MAGIC).put((byte) VERSION).put((byte) RemoteAccess.mask(access))
                .putShort((short) exporterNonce).putShort((short) importerNonce).putShort((short) 0).putInt(rkey)
                .putLong(exportId).putLong(address).putLong(length).array();
    }

    /** The exporter's number for the export, unique on its connection. */
    public long exportId() {
        return exportId;
    }

    public long length() {
        return length;
    }

    public Set<RemoteAccess> access() {
        return access;
    }

    long address() {
        return address;
    }

    int rkey() {
        return rkey;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RemoteKey k && Arrays.equals(toByteArray(), k.toByteArray());
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(toByteArray());
    }

    /** Says what it opens, not where: the address and rkey stay opaque. */
    @Override
    public String toString() {
        return "remote key of export " + exportId + " (" + length + " bytes, " + access + ")";
    }
}
