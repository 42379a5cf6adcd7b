package io.rdmaverbs.sample.connected;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import io.rdmaverbs.spring.boot.messaging.ConditionalOnRdmaListener;
import io.rdmaverbs.spring.boot.messaging.RdmaEndpoint;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageMapping;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.connection.RemoteKey;
import io.rdmaverbs.verbs.connection.Session;

import org.springframework.stereotype.Component;

/**
 * The listener's side of the one-sided exchange ({@link OneSidedExchange} is the peer's): on
 * {@code one-sided} it reads the peer's exported region with RDMA READ into a region of its own connection,
 * checks the CRC32, fills that region with its own pattern and exports it back; on
 * {@code one-sided-release} it closes that region, which revokes the export and deregisters it. A region
 * whose release never comes goes with its connection.
 */
@Component
@RdmaEndpoint("echo")
@ConditionalOnRdmaListener("echo")
class RegionEndpoint {

    /** The most one exchange registers on each side. */
    static final int MAX_BYTES = 16 << 20;
    static final Set<AccessFlag> EXPORTABLE = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ);

    /** The regions exported and not yet released, by their key (which names the connection too). */
    private final Map<RemoteKey, MemoryRegion> offered = new ConcurrentHashMap<>();

    @RdmaMessageMapping("one-sided")
    RegionOffer.Reply offer(RegionOffer.Request request, Session session) throws Exception {
        MemoryRegion mine = null;
        try (RemoteRegion theirs = session.remoteRegion(request.key())) {
            if (theirs.length() > MAX_BYTES) {
                throw new IllegalArgumentException("a region of " + theirs.length() + " bytes: at most " + MAX_BYTES);
            }
            mine = session.connection().allocateMemory(theirs.length(), EXPORTABLE);
            long started = System.nanoTime();
            OneSidedExchange.complete(theirs.read(0, mine.segment()));    // into registered memory: in place
            OneSidedRun.Read read = OneSidedRun.Read.of(request.crc32(), RegionPattern.crc32(mine.segment()),
                    System.nanoTime() - started);
            long crc = RegionPattern.fill(mine.segment(), RegionPattern.LISTENER_SEED);
            RemoteKey key = session.export(mine, EnumSet.of(RemoteAccess.READ));
            MemoryRegion exported = mine;
            offered.put(key, exported);
            session.closeFuture().whenComplete((end, e) -> offered.remove(key, exported));
            mine = null;
            return new RegionOffer.Reply(read, key.toByteArray(), crc);
        } finally {
            if (mine != null) {
                mine.close(ClosePolicy.CASCADE);
            }
        }
    }

    @RdmaMessageMapping("one-sided-release")
    void release(RemoteKey key) {
        MemoryRegion region = offered.remove(key);
        if (region == null) {
            throw new IllegalArgumentException(key + " is not exported here (released already, or its connection "
                    + "ended)");
        }
        region.close(ClosePolicy.CASCADE);
    }

    /** How many regions are exported and not released: what a test looks at. */
    int outstanding() {
        return offered.size();
    }
}
