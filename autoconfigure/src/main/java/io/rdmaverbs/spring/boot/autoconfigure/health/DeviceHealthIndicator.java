package io.rdmaverbs.spring.boot.autoconfigure.health;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import io.rdmaverbs.spring.boot.autoconfigure.descriptor.StuckReferenceDescriptor;
import io.rdmaverbs.verbs.AsyncEvent;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.PortAttributes;
import io.rdmaverbs.verbs.attr.PortState;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * The health of one device context: DOWN when its port is not active, when the device had a fatal
 * event, or when the context is closed; UP otherwise. Stuck references are details, not a failure:
 * {@code stuckReferences} lists every release that would fail, hang or leak if attempted now (a CQ
 * still on its channel, QPs on an XRC domain, a multicast attachment...), and {@code teardownBlockers}
 * the subset a dependency-ordered shutdown cannot resolve by itself (leases, unacknowledged CQ events).
 * The device serves traffic perfectly well meanwhile, and an orchestrator must not restart the
 * application for them.
 */
final class DeviceHealthIndicator implements HealthIndicator {

    private final Verbs verbs;
    private final DeviceContext context;
    private final int port;
    private final DeviceState state;

    DeviceHealthIndicator(Verbs verbs, DeviceContext context, int port, DeviceState state) {
        this.verbs = verbs;
        this.context = context;
        this.port = port;
        this.state = state;
    }

    /** What the health indicator learns from the other parts of the starter, each of which may be absent. */
    interface DeviceState {

        Optional<AsyncEvent> fatalEvent(DeviceContext context);

        /** The circuit breaker's state, e.g. CLOSED, or empty without Resilience4j's circuit breaker. */
        Optional<String> circuitBreaker(DeviceContext context);
    }

    @Override
    public Health health() {
        Health.Builder health = Health.up()
                .withDetail("device", context.device().name())
                .withDetail("guid", context.device().guidHex())
                .withDetail("port", port);
        if (!context.isOpen()) {
            return health.down().withDetail("reason", "the device context is closed").build();
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
        List<StuckReferenceDescriptor> stuck = new ArrayList<>();
        List<StuckReferenceDescriptor> blockers = new ArrayList<>();
        for (VerbsResource r : resources) {
            for (StuckReference s : r.stuckReferences()) {
                StuckReferenceDescriptor d = StuckReferenceDescriptor.of(s);
                stuck.add(d);
                if (StuckReferenceDescriptor.holdsUpTheTeardown(s)) {
                    blockers.add(d);
                }
            }
        }
        health.withDetail("stuckReferences", stuck);
        health.withDetail("teardownBlockers", blockers);
        if (!reasons.isEmpty()) {
            health.down().withDetail("reason", String.join("; ", reasons));
        }
        return health.build();
    }

    private List<VerbsResource> resourcesOf(DeviceContext ctx) {
        return verbs.resources().stream().filter(r -> r.context() == ctx).toList();
    }

    private static Map<String, Integer> countsByKind(List<VerbsResource> resources) {
        Map<String, Integer> counts = new TreeMap<>();
        resources.forEach(r -> counts.merge(r.kind().name(), 1, Integer::sum));
        return counts;
    }
}
