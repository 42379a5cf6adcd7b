package io.rdmaverbs.spring.boot.metrics;

import java.util.function.ToDoubleFunction;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AsyncEventType;
import io.rdmaverbs.verbs.attr.DeviceInfo;

/**
 * Gauges of the resource graph, read from it at each scrape:
 * <ul>
 * <li>{@code rdma.verbs.resources} by {@code device} and {@code kind}: live resources;</li>
 * <li>{@code rdma.verbs.stuck.references} by {@code cause}: what would make a release fail, hang or leak now;</li>
 * <li>{@code rdma.verbs.cq.unacknowledged.events} by {@code device}: completion events not yet
 * acknowledged (a CQ with any cannot be destroyed).</li>
 * </ul>
 * It also registers every counter of {@link VerbsEventMetrics} at zero, so that a dashboard or an alert
 * finds them before the first event: async events for each device and event type, refusals for each
 * kind, and native close failures for each kind with {@code EBUSY} (the errno the release verbs
 * document, e.g. ibv_dealloc_pd(3)); a failure with another errno adds its series when it happens.
 */
public final class VerbsMetrics implements MeterBinder {

    private final Verbs verbs;

    public VerbsMetrics(Verbs verbs) {
        this.verbs = verbs;
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (ResourceKind kind : ResourceKind.values()) {
            VerbsEventMetrics.closeRefusals(registry, kind);
            VerbsEventMetrics.closeFailures(registry, kind, Errno.EBUSY.name());
        }
        for (DeviceInfo device : verbs.devices()) {
            String name = device.name();
            for (AsyncEventType type : AsyncEventType.values()) {
                VerbsEventMetrics.asyncEvents(registry, name, type);
            }
            for (ResourceKind kind : ResourceKind.values()) {
                gauge(registry, "rdma.verbs.resources", "Live RDMA resources", v -> count(v, name, kind), "resources")
                        .tag("device", name).tag("kind", kind.name()).register(registry);
            }
            gauge(registry, "rdma.verbs.cq.unacknowledged.events",
                    "Completion events taken from a channel and not acknowledged", v -> unacknowledged(v, name),
                    "events").tag("device", name).register(registry);
        }
        for (StuckReference.Cause cause : StuckReference.Cause.values()) {
            gauge(registry, "rdma.verbs.stuck.references",
                    "References that would make a release fail, block, leak or break a lease now",
                    v -> v.stuckReferences().stream().filter(s -> s.cause() == cause).count(), "references")
                    .tag("cause", cause.name()).register(registry);
        }
    }

    private Gauge.Builder<Verbs> gauge(MeterRegistry registry, String name, String description,
            ToDoubleFunction<Verbs> value, String unit) {
        return Gauge.builder(name, verbs, value).description(description).baseUnit(unit);
    }

    private static double count(Verbs verbs, String device, ResourceKind kind) {
        return verbs.resources().stream().filter(r -> r.kind() == kind && onDevice(r, device)).count();
    }

    private static double unacknowledged(Verbs verbs, String device) {
        return verbs.resources().stream()
                .filter(r -> r instanceof CompletionQueue && onDevice(r, device))
                .mapToInt(r -> ((CompletionQueue) r).unacknowledgedEvents())
                .sum();
    }

    private static boolean onDevice(VerbsResource r, String device) {
        return r.ref().device().equals(device);
    }
}
