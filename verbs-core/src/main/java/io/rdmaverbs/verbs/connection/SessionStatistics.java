package io.rdmaverbs.verbs.connection;

import java.util.concurrent.atomic.LongAdder;

/**
 * What one {@link Session} has done since it started, counted as it happens (the counters only grow).
 * {@link #lateReplies()} are replies that came after their request timed out: dropped, never handed to
 * another request. {@link #creditFrames()} are the explicit CREDIT frames this side sent (grants
 * otherwise travel in every frame's header); many of them mean the peer sends much more than this side.
 */
public final class SessionStatistics {

    private final LongAdder messagesSent = new LongAdder();
    private final LongAdder bytesSent = new LongAdder();
    private final LongAdder messagesReceived = new LongAdder();
    private final LongAdder bytesReceived = new LongAdder();
    private final LongAdder requestsSent = new LongAdder();
    private final LongAdder repliesReceived = new LongAdder();
    private final LongAdder errorRepliesReceived = new LongAdder();
    private final LongAdder lateReplies = new LongAdder();
    private final LongAdder requestTimeouts = new LongAdder();
    private final LongAdder creditFrames = new LongAdder();
    private final LongAdder keepalives = new LongAdder();
    private final LongAdder largeSent = new LongAdder();
    private final LongAdder largeReceived = new LongAdder();

    SessionStatistics() {
    }

    /** Messages, requests and replies posted (one-way messages and both ends of request/reply). */
    public long messagesSent() {
        return messagesSent.sum();
    }

    /** Bytes of payload sent, eagerly or by rendezvous. */
    public long bytesSent() {
        return bytesSent.sum();
    }

    public long messagesReceived() {
        return messagesReceived.sum();
    }

    public long bytesReceived() {
        return bytesReceived.sum();
    }

    public long requestsSent() {
        return requestsSent.sum();
    }

    public long repliesReceived() {
        return repliesReceived.sum();
    }

    public long errorRepliesReceived() {
        return errorRepliesReceived.sum();
    }

    public long lateReplies() {
        return lateReplies.sum();
    }

    public long requestTimeouts() {
        return requestTimeouts.sum();
    }

    public long creditFrames() {
        return creditFrames.sum();
    }

    public long keepalives() {
        return keepalives.sum();
    }

    /** Messages sent by rendezvous (larger than the peer's receive buffers). */
    public long largeMessagesSent() {
        return largeSent.sum();
    }

    public long largeMessagesReceived() {
        return largeReceived.sum();
    }

    void framePosted(FrameKind kind, long wireBytes) {
        switch (kind) {
            case CREDIT -> creditFrames.increment();
            case KEEPALIVE -> keepalives.increment();
            case REQUEST -> requestsSent.increment();
            default -> {
                // Counted where the message is known (sent, large sent).
            }
        }
    }

    void sent(long payloadBytes, boolean large) {
        messagesSent.increment();
        bytesSent.add(payloadBytes);
        if (large) {
            largeSent.increment();
        }
    }

    void received(long payloadBytes, boolean large) {
        messagesReceived.increment();
        bytesReceived.add(payloadBytes);
        if (large) {
            largeReceived.increment();
        }
    }

    void reply(boolean error) {
        (error ? errorRepliesReceived : repliesReceived).increment();
    }

    void lateReply() {
        lateReplies.increment();
    }

    void timedOut() {
        requestTimeouts.increment();
    }

    void largeRequest() {
        requestsSent.increment();
    }

    @Override
    public String toString() {
        return "sent " + messagesSent() + " (" + bytesSent() + " B), received " + messagesReceived() + " ("
                + bytesReceived() + " B), late replies " + lateReplies() + ", credit frames " + creditFrames();
    }
}
