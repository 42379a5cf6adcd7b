package io.rdmaverbs.verbs.connection;

import java.lang.System.Logger.Level;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.WcStatus;

import org.jspecify.annotations.Nullable;

/**
 * The messages of a {@link Session} larger than the peer's receive buffers, by rendezvous as UCX and MPI
 * implementations send them: the sender posts a RENDEZVOUS frame describing the message where it lies
 * (address, rkey, length), the receiver reads it into a region of its own with RDMA READs of at most
 * {@link Session#READ_CHUNK} bytes (at most the connection's {@code initiator_depth} in flight), says
 * RENDEZVOUS_DONE, and hands it on in arrival order. The sender's future completes on that DONE: until then
 * the peer may still be reading its memory.
 *
 * <p>A payload in a region of the connection's PD that allows REMOTE_READ is read where it is; any other is
 * copied once into a region registered for the transfer and deregistered after it. A transfer the session's
 * end interrupts fails on both sides with the reason, and every region it registered is deregistered.
 */
final class LargeTransfers {

    private static final System.Logger LOG = System.getLogger(LargeTransfers.class.getName());
    private static final long REFUSED = 1;

    /** A large message this side offered, until the peer's DONE. */
    private record Offered(CompletableFuture<Void> done, @Nullable MemoryRegion copy, long correlation) {
    }

    /** A large message the peer offered, being read. */
    private final class Reading {
        final long transfer;
        final RendezvousDescriptor descriptor;
        final Map<String, String> headers;
        final Deliveries.@Nullable Place place;
        final AtomicInteger chunksLeft;
        volatile @Nullable MemoryRegion region;
        volatile boolean failed;

        Reading(long transfer, RendezvousDescriptor descriptor, Map<String, String> headers,
                Deliveries.@Nullable Place place) {
            this.transfer = transfer;
            this.descriptor = descriptor;
            this.headers = headers;
            this.place = place;
            this.chunksLeft = new AtomicInteger((int) ((descriptor.length() + Session.READ_CHUNK - 1) / Session.READ_CHUNK));
        }
    }

    private final Session session;
    private final Connection connection;
    private final Outbox outbox;
    private final Executor workers;
    private final AtomicLong transfers = new AtomicLong();
    private final Map<Long, Offered> offered = new ConcurrentHashMap<>();
    private final Map<Long, Reading> reading = new ConcurrentHashMap<>();

    LargeTransfers(Session session, Connection connection, Outbox outbox, Executor workers) {
        this.session = session;
        this.connection = connection;
        this.outbox = outbox;
        this.workers = workers;
    }

    // ---- sending ----------------------------------------------------------------------------------

    /** Offers {@code message} by rendezvous; the future completes when the peer has read it. */
    CompletableFuture<Void> send(FrameKind kind, long correlation, Message message, @Nullable MemoryRegion source) {
        MemoryRegion from = source != null && source.access().contains(AccessFlag.REMOTE_READ) ? source : null;
        MemoryRegion copy = null;
        long address;
        if (from != null) {
            address = message.payload().address();
        } else {
            copy = connection.protectionDomain().allocateMemory(message.length(),
                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ), session.name() + "/large-out");
            MemorySegment.copy(message.payload(), 0, copy.segment(), 0, message.length());
            from = copy;
            address = copy.address();
        }
        long transfer = transfers.incrementAndGet();
        CompletableFuture<Void> done = new CompletableFuture<>();
        MemoryRegion toFree = copy;
        offered.put(transfer, new Offered(done, copy, kind == FrameKind.REPLY ? 0 : correlation));
        done.whenComplete((v, e) -> {
            offered.remove(transfer);
            deregister(toFree);
        });
        RendezvousDescriptor d = new RendezvousDescriptor(address, from.rkey(), kind, message.length(), correlation);
        OutboundFrame frame = OutboundFrame.rendezvous(transfer, Message.empty().withHeaders(message.headers()), d, done);
        outbox.submit(frame);
        return done;
    }

    /** The peer's DONE for {@code transfer}: read, or refused with {@code refusal}. */
    void done(long transfer, @Nullable String refusal) {
        Offered o = offered.get(transfer);
        if (o == null) {
            LOG.log(Level.DEBUG, () -> session.name() + ": RENDEZVOUS_DONE for transfer " + transfer + ", which is not "
                    + "in flight");
            return;
        }
        if (refusal == null) {
            o.done().complete(null);
            return;
        }
        RuntimeException why = new RemoteErrorException(session.name(), Map.of(RemoteErrorException.TYPE_HEADER,
                "message-refused", RemoteErrorException.MESSAGE_HEADER, refusal));
        o.done().completeExceptionally(why);
        session.largeRefused(o.correlation(), why);
    }

    // ---- receiving --------------------------------------------------------------------------------

    /**
     * The peer offers a large message (on the loop thread): refused when larger than this side's maximum;
     * else its region is registered and the READs posted off the loop thread, since registering megabytes
     * takes long.
     */
    void offered(long transfer, RendezvousDescriptor d, Map<String, String> headers, Deliveries.@Nullable Place place) {
        long max = session.spec().maxMessageSize();
        if (d.length() > max || d.length() < 1) {
            refuse(transfer, place, "a message of " + d.length() + " bytes is larger than this side's max message size "
                    + max);
            return;
        }
        Reading r = new Reading(transfer, d, headers, place);
        reading.put(transfer, r);
        try {
            workers.execute(() -> startReading(r));
        } catch (RejectedExecutionException closing) {
            fail(r);
        }
    }

    private void startReading(Reading r) {
        if (session.hasEnded()) {
            fail(r);   // ended while queued: no region of megabytes for reads that could only flush
            return;
        }
        MemoryRegion region;
        try {
            region = connection.protectionDomain().allocateMemory(r.descriptor.length(), EnumSet.of(AccessFlag.LOCAL_WRITE),
                    session.name() + "/large-in");
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, () -> session.name() + ": no region for a message of " + r.descriptor.length()
                    + " bytes", e);
            reading.remove(r.transfer);
            refuse(r.transfer, r.place, "this side could not register " + r.descriptor.length() + " bytes: "
                    + e.getMessage());
            return;
        }
        r.region = region;
        long length = r.descriptor.length();
        try {
            for (long off = 0; off < length; off += Session.READ_CHUNK) {
                int n = (int) Math.min(Session.READ_CHUNK, length - off);
                outbox.submit(RemoteOp.read(region, off, n, r.descriptor.address() + off, r.descriptor.rkey(),
                        status -> chunkRead(r, status)));
            }
        } catch (RuntimeException ended) {
            fail(r);
        }
    }

    private void chunkRead(Reading r, WcStatus status) {
        if (status != WcStatus.SUCCESS) {
            if (!r.failed) {
                r.failed = true;
                fail(r);
            }
            return;
        }
        if (r.chunksLeft.decrementAndGet() > 0 || r.failed) {
            return;
        }
        reading.remove(r.transfer);
        outbox.submit(OutboundFrame.control(FrameKind.RENDEZVOUS_DONE, 0, r.transfer, Message.empty()));
        MemoryRegion region = java.util.Objects.requireNonNull(r.region);
        RendezvousDescriptor d = r.descriptor;
        MemorySegment payload = region.segment().asSlice(0, d.length());
        if (d.carried() == FrameKind.REPLY) {
            Message reply = Message.received(payload, r.headers).detached();
            deregister(region);
            session.largeReply(d.correlation(), reply);
            return;
        }
        Deliveries.Place place = java.util.Objects.requireNonNull(r.place);
        session.deliveriesReady(place, () -> session.deliver(d.carried() == FrameKind.REQUEST, d.correlation(), payload, region, r.headers, true,
                () -> deregister(region)));
    }

    private void refuse(long transfer, Deliveries.@Nullable Place place, String why) {
        if (place != null) {
            session.deliveriesSkip(place);
        }
        byte[] text = why.getBytes(StandardCharsets.UTF_8);
        outbox.submit(OutboundFrame.control(FrameKind.RENDEZVOUS_DONE, (int) REFUSED, transfer, Message.of(text)));
    }

    private void fail(Reading r) {
        reading.remove(r.transfer);
        if (r.place != null) {
            session.deliveriesSkip(r.place);
        }
        deregister(r.region);
    }

    // ---- the end ----------------------------------------------------------------------------------

    /** The session ended: every offered transfer fails with {@code why}; reads in flight flush. */
    void failAll(RuntimeException why) {
        for (Offered o : List.copyOf(offered.values())) {
            o.done().completeExceptionally(why);
        }
    }

    /** The release: every region a transfer still holds is deregistered. */
    void releaseAll() {
        for (Reading r : new ArrayList<>(reading.values())) {
            fail(r);
        }
        for (Offered o : List.copyOf(offered.values())) {
            deregister(o.copy());
        }
    }

    private void deregister(@Nullable MemoryRegion region) {
        connection.deregisterQuietly(region);
    }

    int inFlight() {
        return offered.size() + reading.size();
    }
}
