package io.rdmaverbs.benchmarks.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.connection.Connection;
import io.rdmaverbs.verbs.connection.ConnectionListener;
import io.rdmaverbs.verbs.connection.Connections;
import io.rdmaverbs.verbs.connection.InboundMessage;
import io.rdmaverbs.verbs.connection.ListenSpec;
import io.rdmaverbs.verbs.connection.Message;
import io.rdmaverbs.verbs.connection.SessionEnd;
import io.rdmaverbs.verbs.connection.SessionSpec;

/**
 * The serving side of {@link SessionBench}: one listener whose sessions' handler (on the connection's lane,
 * the default) counts every one-way message, answers every plain request with as many bytes from a
 * region registered on the connection (a zero-copy reply), and answers a request with the header
 * {@code bench: mark} with what this JVM spent since the previous mark ({@link ThreadUse.Interval}), per
 * message handled in between. Serves until its first connection ends.
 */
final class SessionBenchServer {

    static final String MARK_HEADER = "bench";
    static final String MARK = "mark";
    private static final int REPLY_BYTES = 64 << 10;

    private final AtomicLong messages = new AtomicLong();
    private final ConcurrentHashMap<Connection, Replies> replies = new ConcurrentHashMap<>();
    private volatile ThreadUse.Interval markedAt = ThreadUse.Interval.start(null);
    private volatile long messagesAtMark;

    /** A region of the connection for replies, and the last reply made from it (one per request size). */
    private static final class Replies {
        final MemoryRegion region;
        Message last = Message.empty();

        Replies(MemoryRegion region) {
            this.region = region;
        }

        Message of(long length) {
            Message m = last;
            if (m.length() != length) {
                m = Message.of(region.segment().asSlice(0, Math.min(length, region.length())));
                last = m;
            }
            return m;
        }
    }

    /**
     * Listens on {@code address}, completes {@code listening}, and returns once the first connection ended
     * (printing its session's statistics).
     */
    void serve(Verbs verbs, InetSocketAddress address, CompletableFuture<Void> listening) throws Exception {
        CompletableFuture<Connection> first = new CompletableFuture<>();
        SessionSpec session = SessionSpec.defaults().handler(this::handle).maxMessageSize(SessionBench.MAX_MESSAGE);
        try (Connections cm = Connections.on(verbs, "sessbench-server");
                ConnectionListener listener = cm.listen(ListenSpec.on(address).backlog(1)
                        .connection(SessionBench.connectionSpec()).session(session), request -> {
                            Connection c = request.accept();
                            replies.put(c, new Replies(c.allocateMemory(REPLY_BYTES,
                                    EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ))));
                            first.complete(c);
                        })) {
            System.out.println("listening on " + listener.address());
            listening.complete(null);
            Connection c = first.get(10, TimeUnit.MINUTES);
            SessionEnd end = c.session().closeFuture().get(1, TimeUnit.HOURS);
            System.out.println("session ended: " + end.reason() + "; " + c.session().statistics());
            c.close(Duration.ofSeconds(10));
        }
    }

    private void handle(InboundMessage m) {
        if (!m.isRequest()) {
            messages.incrementAndGet();
            return;
        }
        if (MARK.equals(m.message().header(MARK_HEADER))) {
            m.reply(Message.of(mark(deviceOf(m.session().connection()))));
            return;
        }
        messages.incrementAndGet();
        m.reply(replies.get(m.session().connection()).of(m.message().length()));
    }

    /** The device a connection's id is bound to (rxe1 on the guests' wire). */
    static String deviceOf(Connection c) {
        var context = c.cmId().context();
        return context == null ? "" : context.device().name();
    }

    /** What was spent since the last mark, per message handled since: a line of ThreadUse's words. */
    private String mark(String device) {
        long n = messages.get();
        long handled = n - messagesAtMark;
        String line = "server_msgs " + handled + " " + markedAt.perMessage("server", handled);
        markedAt = ThreadUse.Interval.start(device);
        messagesAtMark = n;
        System.out.println("mark " + line);
        return line;
    }
}
