package io.rdmaverbs.spring.boot.descriptor;

import java.time.Instant;
import java.util.List;

import io.rdmaverbs.verbs.RemoteExport;
import io.rdmaverbs.verbs.ResourceRef;

/**
 * A memory region exported to a connection's peer, for JSON: what the peer may reach, and since when.
 *
 * @param region the exported region
 * @param exportId the export's number on its connection
 * @param holder the connection and its peer
 * @param rkey the rkey the peer was given, in hex
 * @param offset where the exported slice starts in the region
 * @param length its length
 * @param access READ, WRITE, ATOMIC
 * @param since when it was exported
 */
public record RemoteExportDescriptor(ResourceRef region, long exportId, String holder, String rkey, long offset,
        long length, List<String> access, Instant since) {

    public static RemoteExportDescriptor of(RemoteExport e) {
        return new RemoteExportDescriptor(e.region(), e.id(), e.holder(), "0x" + Integer.toHexString(e.rkey()),
                e.offset(), e.length(), e.access().stream().map(Enum::name).sorted().toList(), e.since());
    }
}
