package io.rdmaverbs.spring.boot.autoconfigure.connections;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;
import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations.Listener;
import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations.Peer;

import jakarta.validation.Valid;
import jakarta.validation.constraints.NotNull;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.validation.annotation.Validated;

/**
 * Connections over the RDMA connection manager: listeners that accept connections from other hosts and
 * peers that connect to them. Each listener and each peer becomes a bean ({@code <name>RdmaListener},
 * {@code <name>RdmaPeer}, qualified by its name); a listener and a peer may share a name.
 *
 * @param enabled Whether to create the declared listeners and peers.
 * @param listeners Listeners, by name.
 * @param peers Peers this application connects to, by name.
 * @param disconnectTimeout How long the connections' shutdown takes at most: it waits that long, for all
 *     connections together, for their RDMA_CM_EVENT_DISCONNECTED after rdma_disconnect before their
 *     resources are released anyway.
 * @param eventLog File to append the connections' events to as JSON lines, one object a line: each
 *     connection's start and end, what the shutdown disconnected and released, and the verbs teardown's
 *     outcome. None when unset.
 */
@ConfigurationProperties(ConnectionDeclarations.PREFIX)
@Validated
public record RdmaConnectionsProperties(@DefaultValue("true") boolean enabled, Map<String, @Valid Listener> listeners, Map<String, @Valid Peer> peers,
        @DefaultValue("2s") @NotNull Duration disconnectTimeout, @Nullable Path eventLog) {

    public RdmaConnectionsProperties {
        listeners = listeners == null ? Map.of() : listeners;
        peers = peers == null ? Map.of() : peers;
    }
}
