package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ReceiveRequest;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.attr.SendFlag;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;

import org.jspecify.annotations.Nullable;

/**
 * Everything a {@link Session} posts, under one lock, so that what is on the wire is in the order it was
 * submitted and no budget is ever overdrawn:
 * <ul>
 * <li><b>credits</b>: receive buffers the peer has posted for this side's SENDs. A SEND is posted only
 *     with a credit, so the peer never meets an empty receive queue (no RNR NAK on the wire). The last
 *     credit is kept for a CREDIT frame, which is what lets a side whose peer has run dry grant it more
 *     (see {@link #reposted}).</li>
 * <li><b>send slots</b>: registered buffers that hold a frame's header (and its payload, when copied)
 *     until its SEND completes.</li>
 * <li><b>the send queue</b>: work requests outstanding, SENDs and READ/WRITE/atomics alike, at most the
 *     QP's {@code max_send_wr}; READs and atomics at most the connection's {@code initiator_depth}.</li>
 * </ul>
 * What cannot be posted now waits in FIFO order and is posted as completions and grants come back, on the
 * completion loop's thread.
 *
 * <p>Receives are posted again here too, under the same lock: a buffer is granted to the peer only after
 * it is posted, and each frame sent carries the grants made since the last one.
 */
final class Outbox {

    private final ReentrantLock lock = new ReentrantLock();
    private final Session session;
    private final QueuePair qp;
    private final ConnectionBuffers buffers;
    private final MemoryRegion slots;
    private final SendRequest send;
    private final ReceiveRequest receive;
    private final int maxInline;
    /** The send slots' buffers, sliced once: a post takes its slot's without making a segment. */
    private final MemorySegment[] slotBuffers;
    /** The free send slots, a stack of indexes (no boxing: a slot index can be past the Integer cache). */
    private final int[] freeSlots;
    private int freeCount;
    private final @Nullable OutboundFrame[] inFlight;
    private final ArrayDeque<OutboundFrame> waitingFrames = new ArrayDeque<>();
    private final ArrayDeque<RemoteOp> waitingOps = new ArrayDeque<>();
    private final Map<Long, RemoteOp> opsInFlight = new java.util.HashMap<>();
    /** Work requests posted and not completed: the flush of a close waits for 0. */
    private final AtomicInteger outstanding = new AtomicInteger();
    private final int readResources;
    private int credits;
    private int sendQueueFree;
    private int readsInFlight;
    private int grant;
    private int grantTriggers;
    private int grantThreshold = 1;
    private int sequence;
    private long opIds;
    private long lastPostNanos = System.nanoTime();
    private boolean started;
    private @Nullable RuntimeException closed;

    Outbox(Session session, QueuePair qp, ConnectionBuffers buffers, int readResources) {
        this.session = session;
        this.qp = qp;
        this.buffers = buffers;
        this.slots = buffers.region();
        int sge = Math.min(2, qp.capabilities().maxSendSge());
        this.send = qp.newSendRequest(sge);
        this.receive = qp.newReceiveRequest(1);
        this.maxInline = qp.capabilities().maxInlineData();
        this.readResources = Math.max(1, readResources);
        int slotCount = Math.min(buffers.sendCount(), qp.capabilities().maxSendWr());
        this.inFlight = new OutboundFrame[buffers.sendCount()];
        this.slotBuffers = new MemorySegment[slotCount];
        this.freeSlots = new int[slotCount];
        for (int i = slotCount - 1; i >= 0; i--) {
            slotBuffers[i] = buffers.sendBuffer(i);
            freeSlots[freeCount++] = i;
        }
        this.sendQueueFree = qp.capabilities().maxSendWr();
    }

    // ---- receives ---------------------------------------------------------------------------------

    /** Posts every receive buffer, before the handshake: the credits the hello announces. */
    void postInitialReceives() {
        lock.lock();
        try {
            for (int i = 0; i < buffers.receiveCount(); i++) {
                postReceive(i);
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Posts receive buffer {@code index} again and grants it to the peer with the next frame. When
     * {@code triggering} receipts (anything but a CREDIT) have made the grant reach the threshold and no
     * frame is about to carry it, a CREDIT frame is sent: a CREDIT never triggers one in return, so they
     * cannot ping-pong, and every trigger comes with the peer's own grants, which give back the credit a
     * CREDIT used.
     */
    void reposted(int index, boolean triggering) {
        lock.lock();
        try {
            if (closed != null) {
                return;
            }
            postReceive(index);
            grant++;
            if (triggering) {
                grantTriggers++;
            }
            if (grantTriggers >= grantThreshold && started) {
                drain();
                if (grantTriggers >= grantThreshold && waitingFrames.isEmpty()) {
                    OutboundFrame credit = OutboundFrame.control(FrameKind.CREDIT, 0, 0, Message.empty());
                    if (canPost(credit)) {
                        post(credit);
                    }
                }
            }
        } finally {
            lock.unlock();
        }
    }

    private void postReceive(int index) {
        receive.wrId(WrIds.of(WrIds.RECEIVE, index)).single(slots, buffers.receiveOffset(index), buffers.receiveSize());
        outstanding.incrementAndGet();
        try {
            qp.postReceive(receive);
        } catch (RuntimeException e) {
            outstanding.decrementAndGet();
            throw e;
        }
    }

    // ---- frames -----------------------------------------------------------------------------------

    /** The handshake is done: the peer posted {@code peerReceives} buffers for this side. */
    void start(int peerReceives) {
        lock.lock();
        try {
            // Added, not set: grants that came in frames before ESTABLISHED was handled are the peer's too.
            credits += peerReceives;
            grantThreshold = Math.max(1, (buffers.receiveCount() - 1) / 2);
            started = true;
            drain();
        } finally {
            lock.unlock();
        }
    }

    /** Posts {@code frame} now if it can be, else queues it behind those waiting; fails it once closed. */
    void submit(OutboundFrame frame) {
        lock.lock();
        try {
            RuntimeException why = closed;
            if (why != null) {
                frame.sent.completeExceptionally(why);
                return;
            }
            if (started && waitingFrames.isEmpty() && canPost(frame)) {
                post(frame);
            } else {
                waitingFrames.add(frame);
            }
        } finally {
            lock.unlock();
        }
    }

    /** Posts {@code op} now if the send queue and the read resources allow, else queues it. */
    void submit(RemoteOp op) {
        lock.lock();
        try {
            RuntimeException why = closed;
            if (why != null) {
                throw why;
            }
            if (waitingOps.isEmpty() && canPost(op)) {
                post(op);
            } else {
                waitingOps.add(op);
            }
        } finally {
            lock.unlock();
        }
    }

    /** The peer granted {@code n} more receive buffers (a frame's header said so). */
    void granted(int n) {
        if (n == 0) {
            return;
        }
        lock.lock();
        try {
            credits += n;
            drain();
        } finally {
            lock.unlock();
        }
    }

    /** A KEEPALIVE when nothing was posted for {@code idleNanos} and a data credit is free. */
    void keepalive(long idleNanos) {
        lock.lock();
        try {
            if (closed == null && started && waitingFrames.isEmpty() && System.nanoTime() - lastPostNanos >= idleNanos) {
                OutboundFrame k = OutboundFrame.control(FrameKind.KEEPALIVE, 0, 0, Message.empty());
                if (canPost(k)) {
                    post(k);
                }
            }
        } finally {
            lock.unlock();
        }
    }

    /** The eager limit: the largest SEND the peer's receive buffers and this side's slots both hold. */
    long eagerLimit(int peerReceiveSize) {
        return Math.min(peerReceiveSize, buffers.sendSize());
    }

    // ---- completions, on the loop thread ----------------------------------------------------------

    /** The SEND from {@code slot} completed with {@code status}. */
    void sendCompleted(int slot, WcStatus status) {
        outstanding.decrementAndGet();
        OutboundFrame frame;
        lock.lock();
        try {
            frame = inFlight[slot];
            inFlight[slot] = null;
            freeSlots[freeCount++] = slot;
            sendQueueFree++;
            drain();
        } finally {
            lock.unlock();
        }
        if (frame == null) {
            return;
        }
        if (status != WcStatus.SUCCESS) {
            frame.sent.completeExceptionally(session.closedBecause("the " + frame.kind + " completed with "
                    + status.name()));
        } else if (frame.completesOnSend()) {
            frame.sent.complete(null);
        }
    }

    /** The READ, WRITE or atomic {@code id} completed with {@code status}. */
    void opCompleted(long id, WcStatus status) {
        outstanding.decrementAndGet();
        RemoteOp op;
        lock.lock();
        try {
            op = opsInFlight.remove(id);
            sendQueueFree++;
            if (op != null && op.usesReadResources()) {
                readsInFlight--;
            }
            drain();
        } finally {
            lock.unlock();
        }
        if (op != null) {
            op.done().accept(status);
        }
    }

    /** A receive completed (successfully or flushed): one work request fewer outstanding. */
    void receiveCompleted() {
        outstanding.decrementAndGet();
    }

    int outstanding() {
        return outstanding.get();
    }

    // ---- close ------------------------------------------------------------------------------------

    /**
     * Refuses everything from now on with {@code why}, and fails what was waiting. What is in flight
     * completes (or is flushed) and fails with its own completion.
     */
    List<OutboundFrame> close(RuntimeException why) {
        List<OutboundFrame> failed;
        List<RemoteOp> dropped;
        lock.lock();
        try {
            if (closed != null) {
                return List.of();
            }
            closed = why;
            failed = new ArrayList<>(waitingFrames);
            waitingFrames.clear();
            dropped = new ArrayList<>(waitingOps);
            waitingOps.clear();
        } finally {
            lock.unlock();
        }
        for (OutboundFrame f : failed) {
            f.sent.completeExceptionally(why);
        }
        for (RemoteOp op : dropped) {
            op.done().accept(WcStatus.WR_FLUSH_ERR);
        }
        return failed;
    }

    /** Frees the requests; called once the QP is in error and nothing is posted any more. */
    void release() {
        lock.lock();
        try {
            send.close();
            receive.close();
        } finally {
            lock.unlock();
        }
    }

    // ---- posting, under the lock ------------------------------------------------------------------

    private void drain() {
        if (closed != null) {
            return;
        }
        while (!waitingOps.isEmpty() && canPost(waitingOps.peekFirst())) {
            post(waitingOps.pollFirst());
        }
        while (started && !waitingFrames.isEmpty() && canPost(waitingFrames.peekFirst())) {
            post(waitingFrames.pollFirst());
        }
    }

    private boolean canPost(OutboundFrame frame) {
        return freeCount > 0 && sendQueueFree > 0 && credits > (frame.mayUseReserve() ? 0 : 1);
    }

    private boolean canPost(RemoteOp op) {
        return sendQueueFree > 0 && (!op.usesReadResources() || readsInFlight < readResources);
    }

    private void post(OutboundFrame frame) {
        int slot = freeSlots[--freeCount];
        MemorySegment buffer = slotBuffers[slot];
        int granted = Math.min(grant, FrameHeader.MAX_CREDITS);
        int headers = FrameHeader.headersSize(frame.message.headers());
        long length = frame.descriptor != null ? frame.descriptor.length() : frame.message.length();
        FrameHeader.write(buffer, frame.kind, frame.flags, granted, length, frame.correlation, headers, sequence);
        FrameHeader.writeHeaders(buffer, FrameHeader.BYTES, frame.message.headers());
        long inlineAt = FrameHeader.BYTES + headers;
        int flags = SendFlag.SIGNALED;
        send.clear().wrId(WrIds.of(WrIds.SEND, slot)).opcode(SendOpcode.SEND);
        if (frame.descriptor != null) {
            frame.descriptor.write(buffer, inlineAt);
            send.single(slots, buffers.sendOffset(slot), (int) (inlineAt + RendezvousDescriptor.BYTES));
        } else if (frame.zeroCopy()) {
            MemoryRegion source = java.util.Objects.requireNonNull(frame.source);
            send.segment(0, slots, buffers.sendOffset(slot), (int) inlineAt)
                    .segment(1, source, frame.payload().address() - source.address(), (int) frame.message.length())
                    .segments(2);
        } else {
            MemorySegment.copy(frame.payload(), 0, buffer, inlineAt, frame.message.length());
            int bytes = (int) (inlineAt + frame.message.length());
            send.single(slots, buffers.sendOffset(slot), bytes);
            if (bytes <= maxInline) {
                flags |= SendFlag.INLINE;
            }
        }
        send.flags(flags);
        inFlight[slot] = frame;
        outstanding.incrementAndGet();
        try {
            qp.postSend(send);
        } catch (RuntimeException e) {
            outstanding.decrementAndGet();
            inFlight[slot] = null;
            freeSlots[freeCount++] = slot;
            frame.sent.completeExceptionally(e);
            return;
        }
        credits--;
        sendQueueFree--;
        sequence++;
        grant -= granted;
        grantTriggers = 0;
        lastPostNanos = System.nanoTime();
        session.statistics().framePosted(frame.kind, frame.wireBytes());
    }

    private void post(RemoteOp op) {
        long id = ++opIds;
        send.clear().wrId(WrIds.of(WrIds.ONE_SIDED, id)).opcode(op.opcode()).flags(SendFlag.SIGNALED)
                .single(op.local(), op.localOffset(), op.length());
        if (op.isAtomic()) {
            send.atomic(op.remoteAddress(), op.rkey(), op.compareAdd(), op.swap());
        } else {
            send.remote(op.remoteAddress(), op.rkey());
        }
        opsInFlight.put(id, op);
        outstanding.incrementAndGet();
        try {
            qp.postSend(send);
        } catch (RuntimeException e) {
            outstanding.decrementAndGet();
            opsInFlight.remove(id);
            op.done().accept(WcStatus.GENERAL_ERR);
            return;
        }
        sendQueueFree--;
        if (op.usesReadResources()) {
            readsInFlight++;
        }
        lastPostNanos = System.nanoTime();
    }
}
