package io.rdmaverbs.spring.boot.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AsyncEventType;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Counters of what happens to the graph:
 * <ul>
 * <li>{@code rdma.verbs.async.events} by {@code device} and {@code type};</li>
 * <li>{@code rdma.verbs.close.failures} by {@code kind} and {@code errno}: release verbs that failed natively;</li>
 * <li>{@code rdma.verbs.close.refusals} by {@code kind}: strict closes refused before any native call.</li>
 * </ul>
 * {@link VerbsMetrics} registers them all at zero up front; this listener increments them. The registry is
 * looked up on the first event, so that attaching this listener to the graph does not create the meter
 * registry early.
 */
public final class VerbsEventMetrics implements VerbsListener {

    private final ObjectProvider<MeterRegistry> registry;

    public VerbsEventMetrics(ObjectProvider<MeterRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public void asyncEvent(AsyncEvent event) {
        registry.ifAvailable(r -> asyncEvents(r, event.context().device(), event.type()).increment());
    }

    @Override
    public void closeFailed(VerbsResource resource, VerbsException failure) {
        Errno errno = failure.errno();
        registry.ifAvailable(r -> closeFailures(r, resource.kind(), errno == null ? "none" : errno.name()).increment());
    }

    @Override
    public void closeRefused(VerbsResource resource, CloseRefusedException refusal) {
        registry.ifAvailable(r -> closeRefusals(r, resource.kind()).increment());
    }

    static Counter asyncEvents(MeterRegistry registry, String device, AsyncEventType type) {
        return Counter.builder("rdma.verbs.async.events").description("Asynchronous events read from a device context")
                .baseUnit("events").tag("device", device).tag("type", type.name()).register(registry);
    }

    static Counter closeFailures(MeterRegistry registry, ResourceKind kind, String errno) {
        return Counter.builder("rdma.verbs.close.failures").description("Release verbs that failed natively")
                .baseUnit("failures").tag("kind", kind.name()).tag("errno", errno).register(registry);
    }

    static Counter closeRefusals(MeterRegistry registry, ResourceKind kind) {
        return Counter.builder("rdma.verbs.close.refusals")
                .description("Strict closes refused before any native call, because something still holds the resource")
                .baseUnit("refusals").tag("kind", kind.name()).register(registry);
    }
}
