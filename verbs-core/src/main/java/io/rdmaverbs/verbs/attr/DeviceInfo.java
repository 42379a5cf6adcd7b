package io.rdmaverbs.verbs.attr;

import java.util.HexFormat;

/**
 * One entry of {@code ibv_get_device_list}: what can be learned about a device without opening it.
 *
 * @param name kernel device name, e.g. {@code rxe0} or {@code mlx5_0}
 * @param guid node GUID in host byte order ({@code be64toh(ibv_get_device_guid(dev))})
 * @param nodeType {@code ibv_node_type}
 */
public record DeviceInfo(String name, long guid, NodeType nodeType) {

    /** The GUID as {@code ibv_devices} prints it: 16 lower-case hex digits. */
    public String guidHex() {
        return HexFormat.of().toHexDigits(guid);
    }

    /** Parses a GUID written as hex digits, with or without colons ({@code 0002:c903:0001:2345}). */
    public static long parseGuid(String text) {
        String digits = text.replace(":", "").replace("0x", "").trim();
        if (digits.isEmpty() || digits.length() > 16) {
            throw new IllegalArgumentException("not a GUID (up to 16 hex digits): '" + text + "'");
        }
        return Long.parseUnsignedLong(digits, 16);
    }
}
