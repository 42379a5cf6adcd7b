package io.rdmaverbs.spring.boot.endpoint;

import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;

import io.rdmaverbs.spring.boot.descriptor.ClosePlanDescriptor;
import io.rdmaverbs.spring.boot.descriptor.ConnectionDescriptor;
import io.rdmaverbs.spring.boot.descriptor.LeaseDescriptor;
import io.rdmaverbs.spring.boot.descriptor.ResourceNode;
import io.rdmaverbs.spring.boot.descriptor.StuckReferenceDescriptor;
import io.rdmaverbs.spring.boot.teardown.TeardownPolicy;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.StuckReference;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.connection.Connections;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SanitizingFunction;
import org.springframework.boot.actuate.endpoint.Show;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code verbs} endpoint: the live resource graph, every stuck reference, and the plan the
 * teardown would follow now under the configured policy; or the same for one resource, selected by
 * id or name ({@code /actuator/verbs/{resource}}). Over HTTP, {@code ?format=mermaid} or
 * {@code ?format=dot} draws the graph instead.
 *
 * <p>Where each lease was taken (thread name and stack frames) is shown as {@code showValues} allows,
 * the convention of {@code /actuator/env}: {@link Show#NEVER} masks it, {@link Show#ALWAYS} shows it
 * through the {@link SanitizingFunction}s, {@link Show#WHEN_AUTHORIZED} shows it over JMX and, over
 * HTTP, to an authorized user ({@link VerbsEndpointWebExtension}).
 */
@Endpoint(id = "verbs")
public final class VerbsEndpoint {

    private final Verbs verbs;
    private final TeardownPolicy policy;
    private final LeaseOrigins origins;
    private final Show showValues;
    private final Supplier<List<Connections>> connectionManagers;

    public VerbsEndpoint(Verbs verbs, TeardownPolicy policy, Iterable<SanitizingFunction> sanitizingFunctions,
            Show showValues) {
        this(verbs, policy, sanitizingFunctions, showValues, List::of);
    }

    /**
     * @param connectionManagers the connection managers whose listeners and connections to list
     */
    public VerbsEndpoint(Verbs verbs, TeardownPolicy policy, Iterable<SanitizingFunction> sanitizingFunctions,
            Show showValues, Supplier<List<Connections>> connectionManagers) {
        this.connectionManagers = connectionManagers;
        this.verbs = verbs;
        this.policy = policy;
        this.origins = new LeaseOrigins(sanitizingFunctions);
        this.showValues = showValues;
    }

    @ReadOperation
    public VerbsGraph graph() {
        return graph(showValues.isShown(true));
    }

    /** The graph, with where leases were taken shown or masked. */
    public VerbsGraph graph(boolean showUnsanitized) {
        Function<Lease, LeaseDescriptor> leases = origins.describer(showUnsanitized);
        List<VerbsResource> all = verbs.resources();
        List<StuckReference> stuck = verbs.stuckReferences();
        return new VerbsGraph(verbs.provider().name(), policy.name(),
                all.stream().filter(DeviceContext.class::isInstance).map(r -> ResourceNode.of(r, leases)).toList(),
                stuck.stream().map(s -> StuckReferenceDescriptor.of(s, leases)).toList(),
                stuck.stream().filter(StuckReferenceDescriptor::holdsUpTheTeardown)
                        .map(s -> StuckReferenceDescriptor.of(s, leases)).toList(),
                ClosePlanDescriptor.of(verbs.planClose(policy.closePolicy()), leases), connections(leases));
    }

    private List<ConnectionDescriptor> connections(Function<Lease, LeaseDescriptor> leases) {
        return connectionManagers.get().stream().flatMap(cm -> java.util.stream.Stream.concat(
                cm.listeners().stream().map(l -> ConnectionDescriptor.of(l, leases)),
                cm.connections().stream().map(c -> ConnectionDescriptor.of(c, leases)))).toList();
    }

    @ReadOperation
    public @Nullable ResourceReport resource(@Selector String resource) {
        return resource(resource, showValues.isShown(true));
    }

    /** One resource, with where leases were taken shown or masked; null when there is none. */
    public @Nullable ResourceReport resource(String resource, boolean showUnsanitized) {
        Function<Lease, LeaseDescriptor> leases = origins.describer(showUnsanitized);
        return find(resource).map(r -> new ResourceReport(ResourceNode.of(r, leases),
                r.stuckReferences().stream().map(s -> StuckReferenceDescriptor.of(s, leases)).toList(),
                ClosePlanDescriptor.of(verbs.planClose(List.of(r), policy.closePolicy()), leases))).orElse(null);
    }

    /** The graph drawn in {@code format}. */
    public String render(GraphFormat format) {
        return GraphRendering.render(verbs.resources(), format);
    }

    private Optional<VerbsResource> find(String idOrName) {
        try {
            Optional<VerbsResource> byId = verbs.find(Long.parseLong(idOrName));
            if (byId.isPresent()) {
                return byId;
            }
        } catch (NumberFormatException e) {
            // Not an id: a name.
        }
        return verbs.resources().stream().filter(r -> r.name().equals(idOrName)).findFirst();
    }

    /**
     * The whole graph.
     *
     * @param provider the provider: native or simulated
     * @param teardownPolicy the policy the close plan is for
     * @param resources each open device context with the resources created in it
     * @param stuckReferences every release that would fail, hang or leak if attempted now
     * @param teardownBlockers those held from outside the graph (leases, unacknowledged completion
     *     events), which a dependency-ordered teardown cannot resolve by itself
     * @param closePlan what the teardown would do now
     * @param connections the listeners and connections of the connection managers, with their resources
     */
    public record VerbsGraph(String provider, String teardownPolicy, List<ResourceNode> resources,
            List<StuckReferenceDescriptor> stuckReferences, List<StuckReferenceDescriptor> teardownBlockers,
            ClosePlanDescriptor closePlan, List<ConnectionDescriptor> connections)
            implements OperationResponseBody {
    }

    /**
     * One resource.
     *
     * @param resource the resource with what was created in it
     * @param stuckReferences everything that holds it, its dependents included
     * @param closePlan what closing it (and, for cascade, its dependents) would do now
     */
    public record ResourceReport(ResourceNode resource, List<StuckReferenceDescriptor> stuckReferences,
            ClosePlanDescriptor closePlan) implements OperationResponseBody {
    }
}
