package io.rdmaverbs.verbs.attr;

import java.nio.ByteBuffer;
import java.util.HexFormat;

/**
 * {@code union ibv_gid}: 128 bits in network byte order, held as two big-endian halves so that the
 * record compares by value. RoCE v2 GIDs are IPv6 addresses; index 0 of a soft-RoCE port is the
 * IPv6 link-local address of its netdev.
 */
public record Gid(long subnetPrefix, long interfaceId) {

    public static final Gid ZERO = new Gid(0, 0);

    public static Gid of(byte[] raw) {
        if (raw.length != 16) {
            throw new IllegalArgumentException("a GID is 16 bytes, got " + raw.length);
        }
        ByteBuffer b = ByteBuffer.wrap(raw);
        return new Gid(b.getLong(), b.getLong());
    }

    /** Parses the {@code ibv_devinfo -v} / IPv6 form: eight groups of four hex digits. */
    public static Gid parse(String text) {
        String[] groups = text.trim().split(":");
        if (groups.length != 8) {
            throw new IllegalArgumentException("a GID is written as 8 groups of 4 hex digits: '" + text + "'");
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 8; i++) {
            long g = Long.parseLong(groups[i], 16);
            if (g < 0 || g > 0xffff) {
                throw new IllegalArgumentException("GID group out of range in '" + text + "'");
            }
            if (i < 4) {
                hi = (hi << 16) | g;
            } else {
                lo = (lo << 16) | g;
            }
        }
        return new Gid(hi, lo);
    }

    public byte[] toBytes() {
        return ByteBuffer.allocate(16).putLong(subnetPrefix).putLong(interfaceId).array();
    }

    public boolean isZero() {
        return subnetPrefix == 0 && interfaceId == 0;
    }

    /** {@code fe80::/64}: the only kind of GID this project's soft-RoCE setup uses. */
    public boolean isIpv6LinkLocal() {
        return subnetPrefix == 0xfe80_0000_0000_0000L;
    }

    /** A multicast GID ({@code ff00::/8}), the only kind {@code ibv_attach_mcast} accepts. */
    public boolean isMulticast() {
        return (subnetPrefix >>> 56) == 0xff;
    }

    @Override
    public String toString() {
        String hex = HexFormat.of().toHexDigits(subnetPrefix) + HexFormat.of().toHexDigits(interfaceId);
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 32; i += 4) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(hex, i, i + 4);
        }
        return sb.toString();
    }
}
