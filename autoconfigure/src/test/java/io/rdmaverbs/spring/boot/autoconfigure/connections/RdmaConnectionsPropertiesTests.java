package io.rdmaverbs.spring.boot.autoconfigure.connections;

import java.time.Duration;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.connections.ConnectionDeclarations;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

class RdmaConnectionsPropertiesTests {

    private static final String PEER = "rdma.verbs.connections.peers.echo";

    private final ApplicationContextRunner runner = Contexts.simulated()
            .withConfiguration(AutoConfigurations.of(RdmaConnectionsAutoConfiguration.class));

    @Test
    void aPeerDeclaredByItsAddressAloneGetsTheDocumentedDefaults() {
        runner.withPropertyValues(PEER + ".address=fe80::1").run(context -> {
            assertThat(context).hasNotFailed();
            RdmaConnectionsProperties properties = context.getBean(RdmaConnectionsProperties.class);
            ConnectionDeclarations.Peer peer = properties.peers().get("echo");
            assertThat(peer.port()).isEqualTo(7471);
            assertThat(peer.resolveTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(peer.connectTimeout()).isEqualTo(Duration.ofSeconds(5));
            assertThat(peer.required()).isFalse();
            assertThat(peer.heartbeatInterval()).isEqualTo(Duration.ofSeconds(5));
            assertThat(peer.reconnect().maxAttempts()).as("forever").isZero();
            assertThat(peer.reconnect().initialBackoff()).isEqualTo(Duration.ofMillis(200));
            assertThat(peer.circuitBreaker().slidingWindowSize()).isEqualTo(10);
            assertThat(peer.connection().bufferSize()).isEqualTo(DataSize.ofKilobytes(4));
            assertThat(peer.connection().receiveBuffers()).isEqualTo(16);
            assertThat(properties.disconnectTimeout()).isEqualTo(Duration.ofSeconds(2));
            assertThat(properties.listeners()).isEmpty();
        });
    }

    @Test
    void anOutOfRangeValueFailsTheStartupNamingTheProperty() {
        runner.withPropertyValues(PEER + ".address=fe80::1", PEER + ".port=70000",
                PEER + ".connection.send-queue-depth=0").run(context -> {
                    assertThat(context).hasFailed();
                    BindValidationException e = Contexts.causeOf(context.getStartupFailure(),
                            BindValidationException.class);
                    assertThat(e.getValidationErrors().getAllErrors()).hasSize(2);
                    assertThat(e.getMessage()).contains("peers[echo].port", "peers[echo].connection.sendQueueDepth");
                });
    }
}
