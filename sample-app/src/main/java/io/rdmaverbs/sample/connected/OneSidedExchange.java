package io.rdmaverbs.sample.connected;

import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.spring.boot.connections.RdmaPeerUnavailableException;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;
import io.rdmaverbs.verbs.ClosePolicy;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.RemoteRegion;
import io.rdmaverbs.verbs.attr.RemoteAccess;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.RemoteKey;
import io.rdmaverbs.verbs.connection.Session;

import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.stereotype.Service;

/**
 * The peer's side of the one-sided exchange ({@link RegionEndpoint} is the listener's), both ways over one
 * connection: this side registers a region on its connection, fills it with its pattern and exports it
 * READ only; the request on route {@code one-sided} carries the key, and the listener reads the region with
 * RDMA READ, checks it and answers with the key of a region of its own. This side revokes its export, reads
 * the listener's region into its own, checks it, closes the handle and asks the listener on
 * {@code one-sided-release} to close its region (a cascade close: revoke, then deregister); then it
 * deregisters its own. Every region and handle of the exchange is gone when it returns, failed or not.
 */
@Service
public class OneSidedExchange {

    /** Whatever fails, the exchange ends within about this per step. */
    private static final Duration STEP_WAIT = Duration.ofSeconds(30);

    /** Absent when no connection is declared (or {@code rdma.verbs.connections.enabled=false}). */
    private final ObjectProvider<RdmaTemplate> templates;

    OneSidedExchange(ObjectProvider<RdmaTemplate> templates) {
        this.templates = templates;
    }

    /**
     * @throws RdmaPeerUnavailableException when the peer is not connected
     * @throws IllegalArgumentException for no such peer, or a size outside 1 byte .. 16 MiB
     */
    public OneSidedRun exchange(String name, int size) {
        RdmaTemplate template = templates.getIfAvailable();
        if (template == null) {
            throw new IllegalArgumentException("no RDMA peer '" + name + "' is declared (no connection is)");
        }
        RdmaPeer peer = template.peer(name);
        if (size < 1 || size > RegionEndpoint.MAX_BYTES) {
            throw new IllegalArgumentException("size must be 1 to " + RegionEndpoint.MAX_BYTES + " bytes, was " + size);
        }
        Session session = peer.connectedSession();
        List<String> errors = new ArrayList<>();
        OneSidedRun.Read listenerRead = null;
        OneSidedRun.Read peerRead = null;
        long started = System.nanoTime();
        MemoryRegion mine = session.connection().allocateMemory(size, RegionEndpoint.EXPORTABLE);
        RemoteKey theirKey = null;
        try {
            long crc = RegionPattern.fill(mine.segment(), RegionPattern.PEER_SEED);
            RemoteKey myKey = session.export(mine, EnumSet.of(RemoteAccess.READ));
            RegionOffer.Reply reply = template.convertSendAndReceive(name, "one-sided",
                    new RegionOffer.Request(myKey.toByteArray(), crc), RegionOffer.Reply.class, STEP_WAIT);
            listenerRead = reply.read();
            theirKey = RemoteKey.unpack(reply.key());
            // The listener is done with this side's region, which takes its pattern next.
            session.revoke(myKey);
            try (RemoteRegion theirs = template.remoteRegion(name, theirKey)) {
                if (theirs.length() != size) {
                    throw new IllegalStateException("the listener exported " + theirs.length() + " bytes, not " + size);
                }
                long readStarted = System.nanoTime();
                complete(theirs.read(0, mine.segment()));
                peerRead = OneSidedRun.Read.of(reply.crc32(), RegionPattern.crc32(mine.segment()),
                        System.nanoTime() - readStarted);
            }
        } catch (RdmaPeerUnavailableException e) {
            if (listenerRead == null) {
                throw e;
            }
            errors.add(e.getMessage());
        } catch (Exception e) {
            errors.add(e.getClass().getSimpleName() + ": " + e.getMessage());
        } finally {
            release(template, name, theirKey, errors);
            mine.close(ClosePolicy.CASCADE);
        }
        boolean ok = errors.isEmpty() && listenerRead != null && listenerRead.ok() && peerRead != null && peerRead.ok();
        return new OneSidedRun(name, size, listenerRead, peerRead, ok, (System.nanoTime() - started) / 1_000,
                List.copyOf(errors));
    }

    /** Asks the listener to close its region; a connection that ended took it already. */
    private static void release(RdmaTemplate template, String name, @Nullable RemoteKey key, List<String> errors) {
        if (key == null) {
            return;
        }
        try {
            template.convertSendAndReceive(name, "one-sided-release", key, Message.class, STEP_WAIT);
        } catch (RuntimeException e) {
            errors.add("release: " + e.getMessage());
        }
    }

    /** Waits for one operation of a remote region; its failure as it is. */
    static void complete(CompletableFuture<?> operation) throws Exception {
        try {
            operation.get(STEP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof Exception cause ? cause : e;
        } catch (TimeoutException e) {
            throw new TimeoutException("an RDMA READ did not complete within " + STEP_WAIT.toSeconds() + " s");
        }
    }
}
