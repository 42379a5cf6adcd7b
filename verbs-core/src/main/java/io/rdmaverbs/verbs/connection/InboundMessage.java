package io.rdmaverbs.verbs.connection;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A message or request a {@link Session} received, as its {@link MessageHandler} sees it.
 *
 * <p>The payload is read where it landed: in a receive buffer of the connection (or, for a large message,
 * the region it was read into), valid while the handler runs and on the handler's thread only; afterwards
 * the buffer takes the next message, and a use of the payload fails with {@code IllegalStateException}.
 * Take what the handler needs ({@link Message#toByteArray()}) before it returns.
 *
 * <p>A request is answered once, with {@link #reply} or {@link #replyError}, from the handler or later
 * from any thread; a handler that throws on a request answers it with an error naming the exception.
 */
public final class InboundMessage {

    private final Session session;
    private final boolean request;
    private final long correlation;
    private final Message message;
    private final AtomicBoolean answered = new AtomicBoolean();

    InboundMessage(Session session, boolean request, long correlation, Message message) {
        this.session = session;
        this.request = request;
        this.correlation = correlation;
        this.message = message;
    }

    /** The session it came on: its connection, its peer, and where a reply goes. */
    public Session session() {
        return session;
    }

    /** Whether the sender waits for a reply. */
    public boolean isRequest() {
        return request;
    }

    /** The request's correlation id (0 for a one-way message): what the reply carries back. */
    public long correlationId() {
        return correlation;
    }

    public Message message() {
        return message;
    }

    public Map<String, String> headers() {
        return message.headers();
    }

    /** A copy of the payload. */
    public byte[] toByteArray() {
        return message.toByteArray();
    }

    /** Whether the request was answered (or the message is one-way and needs no answer). */
    public boolean isAnswered() {
        return !request || answered.get();
    }

    /**
     * Answers the request with {@code reply}; the future completes once it is sent.
     *
     * @throws IllegalStateException for a one-way message, or a request already answered
     */
    public CompletableFuture<Void> reply(Message reply) {
        Objects.requireNonNull(reply, "reply");
        claim("reply to");
        return session.sendReply(correlation, reply);
    }

    /** {@link #reply(Message)} with these bytes. */
    public CompletableFuture<Void> reply(byte[] reply) {
        return reply(Message.of(reply));
    }

    /**
     * Answers the request with an error: the requester's future fails with a {@link RemoteErrorException}
     * of this type and message (and these extra headers).
     */
    public CompletableFuture<Void> replyError(String type, String errorMessage, Map<String, String> headers) {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(errorMessage, "errorMessage");
        claim("answer");
        return session.sendError(correlation, type, errorMessage, headers);
    }

    public CompletableFuture<Void> replyError(String type, String errorMessage) {
        return replyError(type, errorMessage, Map.of());
    }

    /** Claims the one answer; false when it was given already. Used where the handler's exception answers. */
    boolean claimQuietly() {
        return request && answered.compareAndSet(false, true);
    }

    private void claim(String what) {
        if (!request) {
            throw new IllegalStateException("cannot " + what + " a one-way message on " + session);
        }
        if (!answered.compareAndSet(false, true)) {
            throw new IllegalStateException("request " + correlation + " on " + session + " was answered already");
        }
    }

    @Override
    public String toString() {
        return (request ? "request " + correlation : "message") + " on " + session + ": " + message;
    }
}
