package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.autoconfigure.connections.RdmaConnectionsAutoConfiguration;
import io.rdmaverbs.spring.boot.connections.RdmaMessageHandler;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/** Startup failures of {@code rdma.verbs.connections}, as the failure analysis prints them. */
class ConnectionFailureAnalyzersTests {

    private static final String LISTENER = "rdma.verbs.connections.listeners.echo";
    private static final String PEER = "rdma.verbs.connections.peers.echo";

    private final ApplicationContextRunner runner = Contexts.simulated()
            .withConfiguration(AutoConfigurations.of(RdmaConnectionsAutoConfiguration.class));

    private final ApplicationContextRunner withHandler = runner.withBean("echo", RdmaMessageHandler.class,
            () -> message -> message.reply(message.toByteArray()));

    @Test
    void aHostNameAsAddressIsRefusedNamingTheProperty() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues(PEER + ".address=listener.example.org"));
        assertThat(analysis.getDescription()).contains(PEER + ".address", "'listener.example.org'",
                "not an IP address literal");
        assertThat(analysis.getAction()).contains("host names are not resolved");
    }

    @Test
    void aScopeNamingAnInterfaceThisHostLacksIsRefused() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues(PEER + ".address=fe80::1%nosuchif0"));
        assertThat(analysis.getDescription()).contains(PEER + ".address", "'nosuchif0'",
                "which this host does not have");
    }

    @Test
    void aPeerWithoutAddressIsRefused() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues(PEER + ".port=7471"));
        assertThat(analysis.getDescription()).contains(PEER + ".address", "no address is set");
    }

    @Test
    void aListenerWithNeitherAddressNorDeviceIsRefused() {
        FailureAnalysis analysis = analyze(withHandler.withPropertyValues(LISTENER + ".port=7471"));
        assertThat(analysis.getDescription()).contains(LISTENER, "neither address nor device");
        assertThat(analysis.getAction()).contains(LISTENER + ".address", LISTENER + ".device");
    }

    @Test
    void aListenerOnADeviceThatDoesNotExistIsRefused() {
        FailureAnalysis analysis = analyze(withHandler.withPropertyValues(LISTENER + ".device=mlx5_9"));
        assertThat(analysis.getDescription()).contains(LISTENER + ".device", "'mlx5_9'");
    }

    @Test
    void aListenerWithoutHandlerBeanIsRefused() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues(LISTENER + ".device=rxe0"));
        assertThat(analysis.getDescription()).contains(LISTENER + ".handler", "no RdmaMessageHandler bean");
    }

    @Test
    void aListenerWithTwoCandidateHandlersMustNameOne() {
        FailureAnalysis analysis = analyze(withHandler.withBean("other", RdmaMessageHandler.class,
                () -> message -> { }).withPropertyValues(LISTENER + ".device=rxe0"));
        assertThat(analysis.getDescription()).contains(LISTENER + ".handler", "2 RdmaMessageHandler beans",
                "echo", "other");
    }

    @Test
    void aReceiveQueueShallowerThanItsBuffersIsRefused() {
        FailureAnalysis analysis = analyze(withHandler.withPropertyValues(LISTENER + ".device=rxe0",
                LISTENER + ".connection.receive-buffers=32", LISTENER + ".connection.receive-queue-depth=16"));
        assertThat(analysis.getDescription()).contains(LISTENER + ".connection.receive-queue-depth", "32");
    }

    @Test
    void aRequiredPeerThatCannotConnectFailsTheStartupSayingWhatToDo() {
        FailureAnalysis analysis = analyze(runner.withPropertyValues(PEER + ".address=fe80::dead:beef",
                PEER + ".required=true", PEER + ".resolve-timeout=200ms", PEER + ".connect-timeout=200ms"));
        assertThat(analysis.getDescription()).contains("RDMA peer 'echo'", "[fe80:0:0:0:0:0:dead:beef]:7471",
                "was not connected within");
        assertThat(analysis.getAction()).contains(PEER + ".required=false");
    }

    @Test
    void aListenerPortAlreadyInUseFailsTheStartupNamingTheVerbAndErrno() {
        ApplicationContextRunner twoOnOnePort = withHandler.withPropertyValues(LISTENER + ".device=rxe0",
                "rdma.verbs.connections.listeners.again.device=rxe0",
                "rdma.verbs.connections.listeners.again.handler=echo");
        twoOnOnePort.run(context -> assertThat(context.getStartupFailure()).isNotNull()
                .hasStackTraceContaining("EADDRINUSE").hasStackTraceContaining("rdma_bind_addr"));
    }

    private static FailureAnalysis analyze(ApplicationContextRunner runner) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.run(context -> {
            assertThat(context).hasFailed();
            Throwable failure = context.getStartupFailure();
            FailureAnalysis a = new InvalidConnectionSettingFailureAnalyzer().analyze(failure);
            analysis[0] = a != null ? a : new RequiredPeerUnavailableFailureAnalyzer().analyze(failure);
        });
        assertThat(analysis[0]).as("the analysis of the startup failure").isNotNull();
        return analysis[0];
    }
}
