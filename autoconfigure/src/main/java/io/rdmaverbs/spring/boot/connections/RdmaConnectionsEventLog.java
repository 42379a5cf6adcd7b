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

import io.rdmaverbs.spring.boot.connections.ConnectionsShutdownReport.Departure;
import io.rdmaverbs.spring.boot.connections.ConnectionsShutdownReport.Role;
import io.rdmaverbs.spring.boot.connections.ConnectionsShutdownReport.Stopped;
import io.rdmaverbs.spring.boot.teardown.TeardownReport;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.verbs.ResourceRef;
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
 * <li>{@code down} (a peer's), {@code ended} (a listener's) with {@code reason} and
 * {@code failedCompletions}: a connection ended by itself, the other side's disconnect or a failed work
 * request;</li>
 * <li>the shutdown, in its order: {@code stopped-listening}, {@code stopped-connecting} (each with
 * {@code address}, {@code connected}), then per connection {@code disconnected} ({@code state},
 * {@code afterMs}, null when no RDMA_CM_EVENT_DISCONNECTED came in time, {@code disconnectFailure}) and
 * {@code released} ({@code flushed}, {@code closed} in order, {@code left}), then {@code channel-closed}
 * ({@code tookMs});</li>
 * <li>{@code teardown}: the verbs teardown after it ({@code policy}, {@code tookMs}, {@code closed},
 * {@code left}).</li>
 * </ul>
 * A connection the shutdown did not release has its {@code down} or {@code ended}: each one that began has
 * exactly one end. A write that fails is logged once and the application carries on.
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
            case RdmaConnectionAcceptedEvent e -> write(record("accepted").owner(Role.LISTENER, e.name())
                    .connection(e.session()));
            case RdmaPeerConnectedEvent e -> write(record("connected").owner(Role.PEER, e.name())
                    .connection(e.session()).with("attempt", e.attempt()).millis("setupMs", e.setup()));
            case RdmaConnectionLostEvent e -> {
                boolean peer = e instanceof RdmaPeerDownEvent;
                write(record(peer ? "down" : "ended").owner(peer ? Role.PEER : Role.LISTENER, e.name())
                        .connection(e.session()).with("reason", e.reason())
                        .with("failedCompletions", e.failedCompletions()));
            }
            case RdmaConnectionsStoppedEvent e -> shutdown(e.report());
            default -> {
            }
        }
    }

    private void shutdown(ConnectionsShutdownReport report) {
        for (Stopped s : report.stopped()) {
            write(record(s.role() == Role.LISTENER ? "stopped-listening" : "stopped-connecting")
                    .owner(s.role(), s.name()).address("address", s.address()).with("connected", s.connected()));
        }
        for (Departure d : report.departures()) {
            write(record("disconnected").owner(d.role(), d.name()).with("connection", d.connection())
                    .address("remote", d.remote()).with("state", d.state().name())
                    .millis("afterMs", d.disconnectedAfter()).with("disconnectFailure", d.disconnectFailure()));
        }
        for (Departure d : report.departures()) {
            write(record("released").owner(d.role(), d.name()).with("connection", d.connection())
                    .with("flushed", d.flushed()).with("closed", resources(d.release().closed()))
                    .with("left", d.release().left().stream()
                            .map(l -> leftover(l.resource(), l.reason())).toList()));
        }
        write(record("channel-closed").millis("tookMs", report.took()));
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

        Line owner(Role role, String name) {
            return with(role == Role.LISTENER ? "listener" : "peer", name);
        }

        Line connection(RdmaSession session) {
            return with("connection", session.connection().name()).address("remote", session.peerAddress());
        }

        Line address(String key, @Nullable InetSocketAddress address) {
            return with(key, address == null ? null : RdmaPeer.format(address));
        }

        Line millis(String key, @Nullable Duration duration) {
            return with(key, duration == null ? null : duration.toMillis());
        }
    }
}
