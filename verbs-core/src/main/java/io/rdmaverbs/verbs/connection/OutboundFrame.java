package io.rdmaverbs.verbs.connection;

import java.lang.foreign.MemorySegment;
import java.util.concurrent.CompletableFuture;

import io.rdmaverbs.verbs.MemoryRegion;

import org.jspecify.annotations.Nullable;

/**
 * One frame a {@link Session} sends, waiting in its {@link Outbox} for a credit, a send slot and room in
 * the send queue, and the future of whoever sent it.
 *
 * <p>{@code payload} is copied into the send slot after the header, unless {@code source} is the region it
 * lies in: then the SEND gathers the header from the slot and the payload from the region, without a
 * copy. A RENDEZVOUS frame carries a {@link RendezvousDescriptor} instead, and its future completes when
 * the peer says it read the message (RENDEZVOUS_DONE), not when the SEND completes.
 */
final class OutboundFrame {

    final FrameKind kind;
    final int flags;
    final long correlation;
    final Message message;
    final @Nullable MemoryRegion source;
    final @Nullable RendezvousDescriptor descriptor;
    final CompletableFuture<Void> sent;

    private OutboundFrame(FrameKind kind, int flags, long correlation, Message message, @Nullable MemoryRegion source,
            @Nullable RendezvousDescriptor descriptor, CompletableFuture<Void> sent) {
        this.kind = kind;
        this.flags = flags;
        this.correlation = correlation;
        this.message = message;
        this.source = source;
        this.descriptor = descriptor;
        this.sent = sent;
    }

    static OutboundFrame eager(FrameKind kind, long correlation, Message message, @Nullable MemoryRegion source) {
        return new OutboundFrame(kind, 0, correlation, message, source, null, new CompletableFuture<>());
    }

    /** A frame of headers only (CREDIT, KEEPALIVE, RENDEZVOUS_DONE, REVOKE...): nobody waits for it. */
    static OutboundFrame control(FrameKind kind, int flags, long correlation, Message message) {
        return new OutboundFrame(kind, flags, correlation, message, null, null, new CompletableFuture<>());
    }

    static OutboundFrame rendezvous(long transfer, Message headersOnly, RendezvousDescriptor descriptor,
            CompletableFuture<Void> read) {
        return new OutboundFrame(FrameKind.RENDEZVOUS, 0, transfer, headersOnly, null, descriptor, read);
    }

    /** Bytes of the SEND: header, application headers, and the payload or descriptor. */
    long wireBytes() {
        return FrameHeader.BYTES + FrameHeader.headersSize(message.headers()) + inlineBytes();
    }

    /** Bytes after the headers: the descriptor of a RENDEZVOUS, else the payload. */
    long inlineBytes() {
        return descriptor != null ? RendezvousDescriptor.BYTES : message.length();
    }

    /** Whether the payload goes from its own region rather than through the send slot. */
    boolean zeroCopy() {
        return source != null && message.length() > 0;
    }

    MemorySegment payload() {
        return message.payload();
    }

    /** Whether the frame may use the credit kept for CREDIT frames (only a CREDIT may). */
    boolean mayUseReserve() {
        return kind == FrameKind.CREDIT;
    }

    /** Whether the frame's future completes with its SEND (a RENDEZVOUS completes later, on its DONE). */
    boolean completesOnSend() {
        return kind != FrameKind.RENDEZVOUS;
    }
}
