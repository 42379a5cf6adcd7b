package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import java.util.List;
import java.util.Optional;

import io.rdmaverbs.spring.boot.autoconfigure.descriptor.ClosePlanDescriptor;
import io.rdmaverbs.spring.boot.autoconfigure.descriptor.ResourceNode;
import io.rdmaverbs.spring.boot.autoconfigure.descriptor.StuckReferenceDescriptor;
import io.rdmaverbs.spring.boot.teardown.TeardownPolicy;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsResource;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;

/**
 * The {@code verbs} endpoint: the live resource graph, every stuck reference, and the plan the
 * teardown would follow now under the configured policy; or the same for one resource, selected by
 * id or name ({@code /actuator/verbs/{resource}}). Over HTTP, {@code ?format=mermaid} or
 * {@code ?format=dot} draws the graph instead.
 */
@Endpoint(id = "verbs")
public final class VerbsEndpoint {

    private final Verbs verbs;
    private final TeardownPolicy policy;

    public VerbsEndpoint(Verbs verbs, TeardownPolicy policy) {
        this.verbs = verbs;
        this.policy = policy;
    }

    @ReadOperation
    public VerbsGraph graph() {
        List<VerbsResource> all = verbs.resources();
        List<io.rdmaverbs.verbs.StuckReference> stuck = verbs.stuckReferences();
        return new VerbsGraph(verbs.provider().name(), policy.name(),
                all.stream().filter(DeviceContext.class::isInstance).map(ResourceNode::of).toList(),
                stuck.stream().map(StuckReferenceDescriptor::of).toList(),
                stuck.stream().filter(StuckReferenceDescriptor::holdsUpTheTeardown).map(StuckReferenceDescriptor::of)
                        .toList(),
                ClosePlanDescriptor.of(verbs.planClose(policy.closePolicy())));
    }

    @ReadOperation
    public @Nullable ResourceReport resource(@Selector String resource) {
        return find(resource).map(r -> new ResourceReport(ResourceNode.of(r),
                r.stuckReferences().stream().map(StuckReferenceDescriptor::of).toList(),
                ClosePlanDescriptor.of(verbs.planClose(List.of(r), policy.closePolicy())))).orElse(null);
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
     */
    public record VerbsGraph(String provider, String teardownPolicy, List<ResourceNode> resources,
            List<StuckReferenceDescriptor> stuckReferences, List<StuckReferenceDescriptor> teardownBlockers,
            ClosePlanDescriptor closePlan)
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
