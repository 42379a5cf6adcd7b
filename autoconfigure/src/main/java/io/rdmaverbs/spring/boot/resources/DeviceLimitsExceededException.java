package io.rdmaverbs.spring.boot.resources;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Declared values exceed what the opened device reports ({@code ibv_query_device}): entries above
 * {@code max_cqe}, a completion vector beyond {@code num_comp_vectors}, and so on. Checked right after
 * the device is opened, before anything is created on it.
 */
public final class DeviceLimitsExceededException extends RuntimeException {

    /**
     * One value over a limit.
     *
     * @param property the property holding the value
     * @param value the declared value
     * @param limit the largest value allowed
     * @param limitName what the device calls the limit, e.g. {@code max_cqe}
     */
    public record Violation(String property, long value, long limit, String limitName) {

        @Override
        public String toString() {
            return property + " is " + value + ", but the device allows at most " + limit + " (" + limitName + ")";
        }
    }

    private final String deviceKey;
    private final String deviceName;
    private final List<Violation> violations;

    DeviceLimitsExceededException(String deviceKey, String deviceName, List<Violation> violations) {
        super("the declarations on device " + deviceName + " exceed its limits: "
                + violations.stream().map(Violation::toString).collect(Collectors.joining("; ")));
        this.deviceKey = deviceKey;
        this.deviceName = deviceName;
        this.violations = List.copyOf(violations);
    }

    public String deviceKey() {
        return deviceKey;
    }

    public String deviceName() {
        return deviceName;
    }

    public List<Violation> violations() {
        return violations;
    }
}
