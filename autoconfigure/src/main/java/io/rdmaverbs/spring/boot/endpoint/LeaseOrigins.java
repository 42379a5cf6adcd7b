package io.rdmaverbs.spring.boot.endpoint;

import java.util.List;
import java.util.function.Function;

import io.rdmaverbs.spring.boot.descriptor.LeaseDescriptor;
import io.rdmaverbs.verbs.Lease;

import org.springframework.boot.actuate.endpoint.SanitizableData;
import org.springframework.boot.actuate.endpoint.Sanitizer;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;

/**
 * Where a lease was taken (its thread's name and its stack frames) is application internals, shown
 * as {@code /actuator/env} shows values: masked ({@value SanitizableData#SANITIZED_VALUE}) unless shown,
 * and when shown, passed through the application's {@link SanitizingFunction}s under the keys
 * {@code lease.thread} and {@code lease.stack}. Holder, time and duration are always shown: they are
 * what the borrower chose to say about itself.
 */
final class LeaseOrigins {

    static final String THREAD_KEY = "lease.thread";
    static final String STACK_KEY = "lease.stack";

    private final Sanitizer sanitizer;

    LeaseOrigins(Iterable<SanitizingFunction> sanitizingFunctions) {
        this.sanitizer = new Sanitizer(sanitizingFunctions);
    }

    /** Describes leases with their origin shown ({@code show}) or masked. */
    Function<Lease, LeaseDescriptor> describer(boolean show) {
        return lease -> {
            LeaseDescriptor full = LeaseDescriptor.of(lease);
            return new LeaseDescriptor(full.holder(), String.valueOf(sanitize(THREAD_KEY, full.thread(), show)),
                    full.since(), full.heldForMillis(), stack(full.stack(), show));
        };
    }

    private List<String> stack(List<String> frames, boolean show) {
        if (frames.isEmpty()) {
            return frames;
        }
        Object sanitized = sanitize(STACK_KEY, frames, show);
        if (sanitized instanceof List<?> list) {
            return list.stream().map(String::valueOf).toList();
        }
        return List.of(String.valueOf(sanitized));
    }

    private Object sanitize(String key, Object value, boolean show) {
        Object sanitized = sanitizer.sanitize(new SanitizableData(null, key, value), show);
        return sanitized == null ? SanitizableData.SANITIZED_VALUE : sanitized;
    }
}
