package io.rdmaverbs.spring.boot.descriptor;

import java.util.List;

import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.ResourceRef;

/**
 * A handle this side holds on memory a connection's peer exported, for JSON.
 *
 * @param handle the graph resource
 * @param exportId the peer's number for the export
 * @param length the exported length
 * @param access what the peer allows: READ, WRITE, ATOMIC
 * @param operationsInFlight RDMA operations posted through it and not completed
 */
public record RemoteRegionDescriptor(ResourceRef handle, long exportId, long length, List<String> access,
        int operationsInFlight) {

    public static RemoteRegionDescriptor of(RemoteRegion r) {
        return new RemoteRegionDescriptor(r.ref(), r.target().exportId(), r.length(),
                r.access().stream().map(Enum::name).sorted().toList(), r.operationsInFlight());
    }
}
