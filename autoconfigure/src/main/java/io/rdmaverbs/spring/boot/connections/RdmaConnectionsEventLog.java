package io.rdmaverbs.spring.boot.connections;

import java.io.IOException;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;

import io.rdmaverbs.spring.boot.teardown.TeardownReport;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.connection.ConnectionCloseReport;
import io.rdmaverbs.verbs.connection.Session;
import io.rdmaverbs.verbs.connection.ShutdownReport;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.json.JsonWriter;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.event.SmartApplicationListener;

/**
 * The connections' events as JSON lines ({@code rdma.verbs.connections.event-log}): one object a line,
 * appended and flushed as it happens, so that a tool or a test reads what happened as data instead of
 * matching log wording, also from a process that was killed. Every object has {@code time} (ISO-8601)
 * and {@code event}; the connection's owner is {@code "listener": name} or {@code "peer": name}, the
 * connection {@code "connection": "cm/conn-3"}, addresses are {@code "[fe80::...%eth0]:7471"}.
 * <ul>
 * <li>{@code started} ({@code pid}): this process opened the log;</li>
 * <li>{@code accepted}, {@code connected} ({@code attempt}, {@code setupMs}): a connection began;</li>
 * <li>{@code down} (a peer's), {@code ended} (a listener's) with {@code reason}, {@code byPeer} and
 * {@code failedCompletions}: a connection ended by itself, the other side's disconnect or a failed work
 * request ({@code SessionEnd});</li>
 * <li>the shutdown, verbs-core's {@code ShutdownReport} in its order: {@code stopped-listening}
 * ({@code address}, {@code requestsRejected}, {@code connected}), {@code stopped-connecting}
 * ({@code address}, {@code connected}), then per connection {@code disconnected} ({@code disconnect}:
 * {@code BY_THIS_SIDE}, {@code BY_PEER}, {@code NOT_CONNECTED} or {@code FAILED}; {@code afterMs}, null when
 * no RDMA_CM_EVENT_DISCONNECTED came in time; {@code disconnectFailure}) and {@code released}
 * ({@code flushed}, {@code flushComplete}, {@code closed} in order, {@code left}), then
 * {@code channel-closed} ({@code tookMs}, {@code connectsAborted}, the manager's channels {@code closed},
 * {@code failures});</li>
 * <li>{@code teardown}: the verbs teardown after it ({@code policy}, {@code tookMs}, {@code closed},
 * {@code left}).</li>
 * </ul>
 * Each connection that began has one end: its {@code down} or {@code ended}, or the shutdown's
 * {@code disconnected} (a lost one whose release the shutdown overtook has both, the second
 * {@code NOT_CONNECTED} or {@code BY_PEER}). A write that fails is logged once and the application carries on.
 */
public final class RdmaConnectionsEventLog implements SmartApplicationListener, SmartLifecycle, AutoCloseable {

    /** Stops after the verbs teardown, whose report is its last line. */
    public static final int PHASE = VerbsTeardown.PHASE - 1;

    private static final Log logger = LogFactory.getLog(RdmaConnectionsEventLog.class.getPackageName());
    private static final JsonWriter<Map<String, @Nullable Object>> JSON = JsonWriter
            .<Map<String, @Nullable Object>>standard().withNewLineAtEnd();

    private final Path file;
    private final Writer out;
    private final Supplier<Optional<TeardownReport>> teardown;
    private volatile boolean running;
    private boolean failed;

    /**
     * Opens {@code file} for appending (created if missing) and writes {@code started}.
     *
     * @param teardown the verbs teardown's report once it ran, empty without one
     * @throws InvalidConnectionSettingException if the file cannot be opened
     */
    public RdmaConnectionsEventLog(Path file, Supplier<Optional<TeardownReport>> teardown) {
        this.file = file;
        this.teardown = teardown;
        try {
            this.out = Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException e) {
            throw new InvalidConnectionSettingException(ConnectionDeclarations.PREFIX + ".event-log",
                    "cannot open " + file + " for appending (" + e + ")", "Name a file in a writable directory");
        }
        write(record("started").with("pid", ProcessHandle.current().pid()));
    }

    /** The file it appends to. */
    public Path file() {
        return file;
    }

    @Override
    public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
        return RdmaConnectionEvent.class.isAssignableFrom(eventType)
                || RdmaConnectionsStoppedEvent.class.isAssignableFrom(eventType);
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        switch (event) {
            case RdmaConnectionAcceptedEvent e -> write(record("accepted").with("listener", e.name())
                    .connection(e.session(), e.remoteAddress()));
            case RdmaPeerConnectedEvent e -> write(record("connected").with("peer", e.name())
                    .connection(e.session(), e.remoteAddress()).with("attempt", e.attempt())
                    .millis("setupMs", e.setup()));
            case RdmaConnectionLostEvent e -> {
                boolean peer = e instanceof RdmaPeerDownEvent;
                write(record(peer ? "down" : "ended").with(peer ? "peer" : "listener", e.name())
                        .connection(e.session(), e.remoteAddress()).with("reason", e.reason())
                        .with("byPeer", e.end().byPeer()).with("failedCompletions", e.failedCompletions()));
            }
            case RdmaConnectionsStoppedEvent e -> shutdown(e);
            default -> {
            }
        }
    }

    /** From verbs-core's report, phase by phase, each connection named after its listener or peer. */
    private void shutdown(RdmaConnectionsStoppedEvent stop) {
        ShutdownReport report = stop.report();
        List<ConnectionCloseReport> closed = report.connections();
        for (ShutdownReport.ListenerStop l : report.listeners()) {
            String name = stop.listenerName(l.listener());
            write(record("stopped-listening").with("listener", name).address("address", l.address())
                    .with("requestsRejected", l.requestsRejected())
                    .with("connected", closed.stream().anyMatch(c -> owns(stop, c, "listener", name))));
        }
        for (RdmaPeer peer : stop.peers()) {
            write(record("stopped-connecting").with("peer", peer.name()).address("address", peer.remoteAddress())
                    .with("connected", closed.stream().anyMatch(c -> owns(stop, c, "peer", peer.name()))));
        }
        for (ConnectionCloseReport c : closed) {
            write(record("disconnected").owner(stop, c).with("connection", c.connection()).address("remote", c.peer())
                    .with("disconnect", c.disconnect().name()).millis("afterMs", c.disconnectedAfter())
                    .with("disconnectFailure", c.disconnectFailure()));
        }
        for (ConnectionCloseReport c : closed) {
            write(record("released").owner(stop, c).with("connection", c.connection())
                    .with("flushed", c.flushedWorkRequests()).with("flushComplete", c.flushComplete())
                    .with("closed", resources(c.released().closed()))
                    .with("left", c.released().left().stream().map(l -> leftover(l.resource(), l.reason())).toList()));
        }
        write(record("channel-closed").millis("tookMs", report.took()).with("connectsAborted", report.connectsAborted())
                .with("closed", resources(report.channels())).with("failures", report.failures()));
    }

    private static boolean owns(RdmaConnectionsStoppedEvent stop, ConnectionCloseReport c, String kind, String name) {
        return stop.owner(c.connection()).filter(o -> o.kind().equals(kind) && o.name().equals(name)).isPresent();
    }

    private void teardown(TeardownReport report) {
        write(record("teardown").with("policy", report.policy().name().toLowerCase(Locale.ROOT))
                .millis("tookMs", report.took()).with("closed", report.closed().size())
                .with("left", report.left().stream().map(l -> leftover(l.resource(), l.reason())).toList()));
    }

    private static List<Map<String, Object>> resources(List<ResourceRef> refs) {
        return refs.stream().map(RdmaConnectionsEventLog::resource).toList();
    }

    private static Map<String, Object> resource(ResourceRef ref) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("verb", ref.releaseVerb());
        m.put("kind", ref.kind().shortName());
        m.put("name", ref.name());
        m.put("id", ref.id());
        m.put("device", ref.device());
        return m;
    }

    private static Map<String, Object> leftover(ResourceRef ref, String reason) {
        Map<String, Object> m = resource(ref);
        m.put("reason", reason);
        return m;
    }

    private static Line record(String event) {
        return new Line().with("time", Instant.now().toString()).with("event", event);
    }

    private synchronized void write(Line line) {
        try {
            JSON.write(line.fields, out);
            out.flush();
        } catch (IOException e) {
            if (!failed) {
                failed = true;
                logger.warn("RDMA connections: cannot write the event log " + file + "; later events are lost", e);
            }
        }
    }

    /** Not before every bean exists; nothing to start, the events come on their own. */
    @Override
    public void start() {
        running = true;
    }

    /** The verbs teardown has run (the phase above this one): its report is the last line. */
    @Override
    public void stop() {
        running = false;
        teardown.get().ifPresent(this::teardown);
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public synchronized void close() throws IOException {
        out.close();
    }

    /** One object, its keys in the order written. */
    private static final class Line {

        private final Map<String, @Nullable Object> fields = new LinkedHashMap<>();

        Line with(String key, @Nullable Object value) {
            fields.put(key, value);
            return this;
        }

        /** {@code "listener": name} or {@code "peer": name}; {@code "connection": null} for one nobody declared. */
        Line owner(RdmaConnectionsStoppedEvent stop, ConnectionCloseReport c) {
            return stop.owner(c.connection()).map(o -> with(o.kind(), o.name())).orElseGet(() -> this);
        }

        Line connection(Session session, InetSocketAddress remote) {
            return with("connection", session.connection().name()).address("remote", remote);
        }

        Line address(String key, @Nullable InetSocketAddress address) {
            return with(key, address == null ? null : RdmaPeer.format(address));
        }

        Line millis(String key, @Nullable Duration duration) {
            return with(key, duration == null ? null : duration.toMillis());
        }
    }
}
