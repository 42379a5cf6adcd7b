package io.rdmaverbs.spring.boot.descriptor;

import java.util.List;
import java.util.Map;
import java.util.function.Function;

import io.rdmaverbs.verbs.CompletionChannel;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.SharedReceiveQueue;
import io.rdmaverbs.verbs.VerbsResource;

/**
 * A resource and the subtree it contains, for JSON. A resource is nested under the resource it was
 * created in (a QP under its PD, a CQ under its context, an XRC SRQ under its XRC domain); all of its
 * parents are listed in {@code parents}.
 *
 * @param id the graph-unique id
 * @param kind what it is
 * @param name its name (its bean name, for a declared resource)
 * @param device the device it lives on
 * @param details attributes (entries, QP number, lkey...)
 * @param parents every resource it was created from
 * @param leases the leases held on it
 * @param dependents the resources created in it
 */
public record ResourceNode(long id, String kind, String name, String device, Map<String, Object> details,
        List<ResourceRef> parents, List<LeaseDescriptor> leases, List<ResourceNode> dependents) {

    /** {@code resource} with everything created in it. */
    public static ResourceNode of(VerbsResource resource) {
        return of(resource, LeaseDescriptor::of);
    }

    /** {@code resource} with everything created in it, each lease described by {@code leases}. */
    public static ResourceNode of(VerbsResource resource, Function<Lease, LeaseDescriptor> leases) {
        ResourceRef ref = resource.ref();
        return new ResourceNode(ref.id(), ref.kind().name(), ref.name(), ref.device(), resource.details(),
                resource.parents().stream().map(VerbsResource::ref).toList(),
                resource.leases().stream().map(leases).toList(),
                resource.dependents().stream().filter(d -> container(d) == resource).map(d -> of(d, leases))
                        .toList());
    }

    /**
     * The resource {@code resource} was created in: its last parent that contains rather than serves
     * it (CQs, channels and SRQs are used by a resource, not containers of it); a context's roots have
     * none of those and hang under the context.
     */
    public static VerbsResource container(VerbsResource resource) {
        List<VerbsResource> parents = resource.parents();
        for (VerbsResource p : parents.reversed()) {
            if (!(p instanceof CompletionQueue || p instanceof CompletionChannel || p instanceof SharedReceiveQueue)) {
                return p;
            }
        }
        return parents.isEmpty() ? resource : parents.getFirst();
    }
}
