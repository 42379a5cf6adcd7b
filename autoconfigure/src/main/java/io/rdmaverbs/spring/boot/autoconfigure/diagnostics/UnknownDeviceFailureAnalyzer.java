package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import java.util.stream.Collectors;

import io.rdmaverbs.spring.boot.resources.UnknownDeviceException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** A declared device does not exist: list those that do, and name the property to change. */
final class UnknownDeviceFailureAnalyzer extends AbstractFailureAnalyzer<UnknownDeviceException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, UnknownDeviceException cause) {
        String present = cause.present().stream().map(d -> d.name() + " (GUID " + d.guidHex() + ")")
                .collect(Collectors.joining(", "));
        String description = cause.property() + " selects the RDMA device '" + cause.wanted() + "', but the "
                + cause.provider() + " provider has no such device. Devices present: "
                + (present.isEmpty() ? "none" : present) + ".";
        boolean byGuid = cause.property().endsWith(".guid");
        boolean simulated = cause.provider().equals("simulated");
        String action;
        if (!cause.present().isEmpty()) {
            action = "Change " + cause.property() + " to one of: " + cause.present().stream()
                    .map(d -> byGuid ? d.guidHex() + " (" + d.name() + ")" : d.name())
                    .collect(Collectors.joining(", "))
                    + (simulated && !byGuid ? ", or simulate it with rdma.verbs.simulated.devices." + cause.wanted()
                            + ".profile=rxe (or mlx5)" : "") + ".";
        } else if (simulated) {
            action = "Declare the device with rdma.verbs.simulated.devices." + cause.wanted()
                    + ".profile=rxe (or mlx5).";
        } else {
            action = "No RDMA device is present on this machine: create a soft-RoCE device (rdma link add rxe0 type "
                    + "rxe netdev <interface>), or set rdma.verbs.provider=simulated to run without RDMA hardware.";
        }
        return new FailureAnalysis(description, action, cause);
    }
}
