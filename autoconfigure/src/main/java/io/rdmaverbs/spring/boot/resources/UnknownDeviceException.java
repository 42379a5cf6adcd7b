package io.rdmaverbs.spring.boot.resources;

import java.util.List;

import io.rdmaverbs.verbs.attr.DeviceInfo;

/** A declared device is not among those the provider sees. */
public final class UnknownDeviceException extends RuntimeException {

    private final String deviceKey;
    private final String property;
    private final String wanted;
    private final String provider;
    private final List<DeviceInfo> present;

    UnknownDeviceException(String deviceKey, String property, String wanted, String provider,
            List<DeviceInfo> present) {
        super("no RDMA device matches " + property + "=" + wanted + " on the " + provider
                + " provider; devices present: "
                + (present.isEmpty() ? "none" : present.stream().map(DeviceInfo::name).toList()));
        this.deviceKey = deviceKey;
        this.property = property;
        this.wanted = wanted;
        this.provider = provider;
        this.present = List.copyOf(present);
    }

    /** The key of the device declaration. */
    public String deviceKey() {
        return deviceKey;
    }

    /** The property that selects the device ({@code ...name} or {@code ...guid}). */
    public String property() {
        return property;
    }

    /** The name or GUID asked for. */
    public String wanted() {
        return wanted;
    }

    /** The provider's name: native or simulated. */
    public String provider() {
        return provider;
    }

    /** The devices the provider sees. */
    public List<DeviceInfo> present() {
        return present;
    }
}
