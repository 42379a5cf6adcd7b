package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import java.util.stream.Collectors;

import io.rdmaverbs.spring.boot.resources.DeviceLimitsExceededException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/** Declared values beyond the device's limits: every one of them, with the limit to respect. */
final class DeviceLimitsFailureAnalyzer extends AbstractFailureAnalyzer<DeviceLimitsExceededException> {

    @Override
    protected FailureAnalysis analyze(Throwable rootFailure, DeviceLimitsExceededException cause) {
        String description = "The RDMA resources declared on device " + cause.deviceName()
                + " exceed what it reports (ibv_query_device):" + cause.violations().stream()
                        .map(v -> "\n\t- " + v).collect(Collectors.joining());
        String action = "Lower " + cause.violations().stream()
                .map(v -> v.property() + " to at most " + v.limit())
                .collect(Collectors.joining(", ")) + ", or select a device with larger limits.";
        return new FailureAnalysis(description, action, cause);
    }
}
