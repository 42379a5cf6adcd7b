package io.rdmaverbs.spring.boot.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.rdmaverbs.spring.boot.descriptor.StuckReferenceDescriptor;
import io.rdmaverbs.spring.boot.leaks.SuspectedLeak;
import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.PortState;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;

/**
 * The health of one device context, for a person: DOWN when its port is not active, when the device had
 * a fatal event, or when the context is closed; {@link #LEAK_SUSPECTED} when leak detection found a lease
 * or an unacknowledged completion event held past its threshold; UP otherwise. Any other failure of the
 * check is DOWN with the exception as its reason ({@link AbstractHealthIndicator}).
 *
 * <p>{@code stuckReferences} lists only what needs someone's attention before a shutdown: what is held
 * from outside the graph, leases and unacknowledged CQ events, which no dependency-ordered teardown can
 * resolve until their holder lets go. Every other stuck reference names a resource of the graph that
 * the teardown releases first (a context with its PD open, a PD with its QPs, a QP with its multicast
 * attachment, an XRC domain with its receive QP): the structure of every healthy graph, only counted
 * as {@code structuralReferences}. The full list stays on the {@code verbs} endpoint. None of these make the device DOWN: it serves traffic
 * perfectly well meanwhile, and an orchestrator must not restart the application for them.
 */
public final class DeviceHealthIndicator extends AbstractHealthIndicator {

    /**
     * A lease or a completion event held past the leak-detection threshold. Not in Spring Boot's default
     * status order: add it to {@code management.endpoint.health.status.order} (and a code to
     * {@code .http-mapping}) for it to reach the aggregate status.
     */
    public static final Status LEAK_SUSPECTED = new Status("LEAK_SUSPECTED",
            "a lease or a completion event is held past the leak-detection threshold");

    private static final ResourceKind[] KINDS = ResourceKind.values();

    private final Verbs verbs;
    private final DeviceContext context;
    private final int port;
    private final DeviceState state;

    public DeviceHealthIndicator(Verbs verbs, DeviceContext context, int port, DeviceState state) {
        super(e -> "health check of " + context.ref() + " failed");
        this.verbs = verbs;
        this.context = context;
        this.port = port;
        this.state = state;
    }

    /** What the health indicator learns from the other parts of the starter, each of which may be absent. */
    public interface DeviceState {

        Optional<AsyncEvent> fatalEvent(DeviceContext context);

        /** The circuit breaker's state, e.g. CLOSED, or empty without Resilience4j's circuit breaker. */
        Optional<String> circuitBreaker(DeviceContext context);

        /** The holds on {@code resources} past the leak-detection threshold; none when detection is off. */
        List<SuspectedLeak> suspectedLeaks(List<VerbsResource> resources);
    }

    @Override
    protected void doHealthCheck(Health.Builder health) {
        health.up().withDetail("device", context.device().name())
                .withDetail("guid", context.device().guidHex())
                .withDetail("port", port);
        if (!context.isOpen()) {
            health.down().withDetail("reason", "the device context is closed");
            return;
        }
        List<String> reasons = new ArrayList<>();
        try {
            PortAttributes attributes = context.queryPort(port);
            health.withDetail("portState", attributes.state().name())
                    .withDetail("linkLayer", attributes.linkLayer().name());
            if (attributes.state() != PortState.ACTIVE && attributes.state() != PortState.ACTIVE_DEFER) {
                reasons.add("port " + port + " is " + attributes.state());
            }
        } catch (VerbsException | IllegalStateException e) {
            reasons.add("ibv_query_port failed: " + e.getMessage());
        }
        state.fatalEvent(context).ifPresent(e -> reasons.add("the device had a fatal event at " + e.at()
                + "; close the context and open the device again"));
        state.circuitBreaker(context).ifPresent(s -> health.withDetail("circuitBreaker", s));
        List<VerbsResource> resources = resourcesOf(context);
        health.withDetail("resources", countsByKind(resources));
        List<StuckReferenceDescriptor> attention = new ArrayList<>();
        int structural = 0;
        for (VerbsResource r : resources) {
            int held = r.stuckReferenceCount();
            if (held == r.dependentCount()) {
                // Held by its dependents alone: structure, which is counted, not worded (a context has one
                // for every resource of the device).
                structural += held;
                continue;
            }
            for (StuckReference s : r.stuckReferences()) {
                if (StuckReferenceDescriptor.holdsUpTheTeardown(s)) {
                    attention.add(StuckReferenceDescriptor.of(s));
                } else {
                    structural++;
                }
            }
        }
        health.withDetail("stuckReferences", attention).withDetail("structuralReferences", structural);
        List<SuspectedLeak> leaks = state.suspectedLeaks(resources);
        if (!leaks.isEmpty()) {
            health.withDetail("suspectedLeaks", leaks.stream().map(SuspectedLeak::message).toList());
        }
        if (!reasons.isEmpty()) {
            health.down().withDetail("reason", String.join("; ", reasons));
        } else if (!leaks.isEmpty()) {
            health.status(LEAK_SUSPECTED);
        }
    }

    private List<VerbsResource> resourcesOf(DeviceContext ctx) {
        return verbs.resources().stream().filter(r -> r.context() == ctx).toList();
    }

    private static Map<String, Integer> countsByKind(List<VerbsResource> resources) {
        int[] byKind = new int[KINDS.length];
        resources.forEach(r -> byKind[r.kind().ordinal()]++);
        Map<String, Integer> counts = new TreeMap<>();
        for (ResourceKind kind : KINDS) {
            if (byKind[kind.ordinal()] > 0) {
                counts.put(kind.name(), byKind[kind.ordinal()]);
            }
        }
        return counts;
    }
}
