package io.rdmaverbs.spring.boot.resources;

import java.util.List;

import io.rdmaverbs.verbs.ResourceKind;

import org.jspecify.annotations.Nullable;

/**
 * A declaration refers to a resource that is not declared on the same device, or to one of the
 * wrong kind.
 */
public final class DanglingReferenceException extends RuntimeException {

    private final String deviceKey;
    private final String property;
    private final String name;
    private final ResourceKind expected;
    private final List<String> candidates;
    private final @Nullable ResourceKind actual;
    private final @Nullable String declaredOnDevice;

    DanglingReferenceException(String deviceKey, String property, String name, ResourceKind expected,
            List<String> candidates, @Nullable ResourceKind actual, @Nullable String declaredOnDevice) {
        super(message(property, name, expected, candidates, actual, declaredOnDevice));
        this.deviceKey = deviceKey;
        this.property = property;
        this.name = name;
        this.expected = expected;
        this.candidates = List.copyOf(candidates);
        this.actual = actual;
        this.declaredOnDevice = declaredOnDevice;
    }

    private static String message(String property, String name, ResourceKind expected, List<String> candidates,
            @Nullable ResourceKind actual, @Nullable String declaredOnDevice) {
        String wanted = CheckedDeclarations.label(expected);
        StringBuilder sb = new StringBuilder(property).append(" refers to '").append(name).append("', ");
        if (actual != null) {
            sb.append("which is a ").append(CheckedDeclarations.label(actual)).append(", not a ").append(wanted);
        } else if (declaredOnDevice != null) {
            sb.append("which is declared on device '").append(declaredOnDevice)
                    .append("': a resource can only use resources of its own device");
        } else {
            sb.append("but no ").append(wanted).append(" of that name is declared on its device");
        }
        return sb.append(candidates.isEmpty() ? "; no " + wanted + " is declared there"
                : "; the " + wanted + "s declared there are " + candidates).toString();
    }

    /** The key of the device the referring resource is declared on. */
    public String deviceKey() {
        return deviceKey;
    }

    /** The property holding the reference. */
    public String property() {
        return property;
    }

    /** The name referred to. */
    public String name() {
        return name;
    }

    /** The kind of resource the property must name. */
    public ResourceKind expected() {
        return expected;
    }

    /** The names of the resources of the expected kind on the same device. */
    public List<String> candidates() {
        return candidates;
    }

    /** The kind of the resource of that name, when one exists but of another kind. */
    public @Nullable ResourceKind actual() {
        return actual;
    }

    /** The device key under which the name is declared, when it is declared on another device. */
    public @Nullable String declaredOnDevice() {
        return declaredOnDevice;
    }
}
