package io.rdmaverbs.spring.boot.autoconfigure.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.CloseRefusedException;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.VerbsResource;

import org.springframework.beans.factory.ObjectProvider;

/**
 * Counters of what happens to the graph:
 * <ul>
 * <li>{@code rdma.verbs.async.events} by {@code device} and {@code type};</li>
 * <li>{@code rdma.verbs.close.failures} by {@code kind} and {@code errno}: release verbs that failed natively;</li>
 * <li>{@code rdma.verbs.close.refusals} by {@code kind}: strict closes refused before any native call.</li>
 * </ul>
 * The registry is looked up on the first event, so that attaching this listener to the graph does not
 * create the meter registry early.
 */
public final class VerbsEventMetrics implements VerbsListener {

    private final ObjectProvider<MeterRegistry> registry;

    public VerbsEventMetrics(ObjectProvider<MeterRegistry> registry) {
        this.registry = registry;
    }

    @Override
    public void asyncEvent(AsyncEvent event) {
        registry.ifAvailable(r -> r.counter("rdma.verbs.async.events", "device", event.context().device(), "type",
                event.type().name()).increment());
    }

    @Override
    public void closeFailed(VerbsResource resource, VerbsException failure) {
        Errno errno = failure.errno();
        registry.ifAvailable(r -> r.counter("rdma.verbs.close.failures", "kind", resource.kind().name(), "errno",
                errno == null ? "none" : errno.name()).increment());
    }

    @Override
    public void closeRefused(VerbsResource resource, CloseRefusedException refusal) {
        registry.ifAvailable(r -> r.counter("rdma.verbs.close.refusals", "kind", resource.kind().name()).increment());
    }
}
