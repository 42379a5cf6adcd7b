package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.resources.XrcUnsupportedException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** XRC declared on a device without XRC: suggest a device with it, or RC queue pairs with an SRQ. */
final class XrcUnsupportedFailureAnalyzer extends AbstractFailureAnalyzer<XrcUnsupportedException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, XrcUnsupportedException cause) {
        String device = VerbsProperties.devicePath(cause.deviceKey());
        String description = "The RDMA device " + cause.deviceName() + " (" + device + ") does not support XRC "
                + "(IBV_DEVICE_XRC is not set" + (cause.deviceName().startsWith("rxe") ? "; soft-RoCE never sets it" : "")
                + "), but XRC resources are declared on it: "
                + String.join(", ", cause.properties()) + ".";
        String otherDevice = cause.devicesWithXrc().isEmpty()
                ? "No other device present supports XRC"
                : "Select a device with XRC in " + device + ".name (" + String.join(", ", cause.devicesWithXrc()) + ")";
        String action = otherDevice + "; or replace the XRC resources by RC queue pairs sharing a basic shared "
                + "receive queue (remove the xrc-domains, the srq xrc-domain settings and the xrc-send/xrc-recv queue "
                + "pair types); or, on the simulated provider, give the device the mlx5 profile (rdma.verbs.simulated."
                + "devices." + cause.deviceName() + ".profile=mlx5).";
        return new FailureAnalysis(description, action, cause);
    }
}
