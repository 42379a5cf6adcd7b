package io.rdmaverbs.spring.boot.autoconfigure.connections;

import java.time.Duration;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A startup that fails while the listener and peer beans are created, before the connections' lifecycle
 * ever ran, still closes the connection manager: its event loop thread does not outlive the context.
 */
class FailedStartupTests {

    @Test
    void aPeerBeanThatCannotBeCreatedLeavesNoEventLoopThreadBehind() {
        long before = eventLoops();
        Contexts.simulated().withConfiguration(AutoConfigurations.of(RdmaConnectionsAutoConfiguration.class))
                .withPropertyValues("rdma.verbs.connections.peers.echo.address=listener.example.org")
                .run(context -> assertThat(context).hasFailed());

        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(eventLoops())
                .as("threads rdma-cm-events-* of live connection managers").isEqualTo(before));
    }

    private static long eventLoops() {
        return Thread.getAllStackTraces().keySet().stream().filter(t -> t.getName().startsWith("rdma-cm-events-"))
                .count();
    }
}
