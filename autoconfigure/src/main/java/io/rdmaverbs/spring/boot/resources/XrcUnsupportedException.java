package io.rdmaverbs.spring.boot.resources;

import java.util.List;


/**
 * XRC resources are declared on a device that does not advertise {@code IBV_DEVICE_XRC} (soft-RoCE
 * never does), so {@code ibv_open_xrcd} would fail with EOPNOTSUPP.
 */
public final class XrcUnsupportedException extends RuntimeException {

    private final String deviceKey;
    private final String deviceName;
    private final List<String> properties;
    private final List<String> devicesWithXrc;

    XrcUnsupportedException(String deviceKey, String deviceName, List<String> properties,
            List<String> devicesWithXrc) {
        super("device " + deviceName + " (" + Declarations.devicePath(deviceKey)
                + ") has no XRC support (IBV_DEVICE_XRC), but XRC resources are declared on it: "
                + String.join(", ", properties));
        this.deviceKey = deviceKey;
        this.deviceName = deviceName;
        this.properties = List.copyOf(properties);
        this.devicesWithXrc = List.copyOf(devicesWithXrc);
    }

    public String deviceKey() {
        return deviceKey;
    }

    /** The kernel name of the device. */
    public String deviceName() {
        return deviceName;
    }

    /** The declarations that need XRC. */
    public List<String> properties() {
        return properties;
    }

    /** The devices the provider sees that do support XRC. */
    public List<String> devicesWithXrc() {
        return devicesWithXrc;
    }
}
