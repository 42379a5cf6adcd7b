package io.rdmaverbs.verbs.connection;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;

import io.rdmaverbs.verbs.ResourceRef;

import org.jspecify.annotations.Nullable;

/**
 * What {@link Connections#close(Duration)} did, phase by phase: the listeners that stopped listening (and
 * the requests they rejected), the connects it aborted, each connection's close (who disconnected, when
 * DISCONNECTED came, what flushed, what was released), and what failed.
 *
 * @param manager the connection manager's name
 * @param took how long the whole stop took
 * @param listeners the listeners, in the order they stopped
 * @param connectsAborted connects that were still in progress
 * @param connections each connection's close, in the order they were released
 * @param channels the manager's own channels, released last: its completion loops' completion channels,
 *        then the CM event channel
 * @param failures what went wrong outside the connections' own reports (a listener's or a channel's close)
 */
public record ShutdownReport(String manager, Duration took, List<ListenerStop> listeners, int connectsAborted,
        List<ConnectionCloseReport> connections, List<ResourceRef> channels, List<String> failures) {

    public ShutdownReport {
        listeners = List.copyOf(listeners);
        connections = List.copyOf(connections);
        channels = List.copyOf(channels);
        failures = List.copyOf(failures);
    }

    /**
     * One listener's stop.
     *
     * @param listener its id's name
     * @param address where it listened
     * @param requestsRejected requests that were neither accepted nor rejected, rejected now
     */
    public record ListenerStop(String listener, @Nullable InetSocketAddress address, int requestsRejected) {
    }

    /** Whether everything was released and nothing failed. */
    public boolean isComplete() {
        return failures.isEmpty() && connections.stream().allMatch(ConnectionCloseReport::isComplete);
    }
}
