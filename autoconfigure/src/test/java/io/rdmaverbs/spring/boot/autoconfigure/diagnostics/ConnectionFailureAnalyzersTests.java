package io.rdmaverbs.spring.boot.autoconfigure.diagnostics;

import java.time.Duration;
import java.util.Objects;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.autoconfigure.connections.RdmaConnectionsAutoConfiguration;
import io.rdmaverbs.spring.boot.connections.RdmaMessageHandler;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Startup failures of {@code rdma.verbs.connections}, as the failure analysis prints them. */
class ConnectionFailureAnalyzersTests {

    private static final String LISTENER = "rdma.verbs.connections.listeners.echo";
    private static final String PEER = "rdma.verbs.connections.peers.echo";
    /** rxe0's link-local address on the simulated provider: fe80:: and its GUID. */
    private static final String RXE0 = "fe80:0:0:0:a81f:aeff:fee9:9992";

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
    void aSecondListenerOnTheSamePortNamesThePortPropertyAndTheListenerThatHasIt() {
        SimulatedProvider provider = SimulatedProvider.of(DeviceProfile.rxe("rxe0"));
        FailureAnalysis analysis = analyze(withHandler.withBean(VerbsProvider.class, () -> provider)
                .withPropertyValues(LISTENER + ".device=rxe0", "rdma.verbs.connections.listeners.again.device=rxe0"));
        assertThat(analysis.getDescription()).startsWith("RDMA listener 'echo' could not listen on [" + RXE0 + "]:7471: "
                + "rdma_bind_addr on ").contains("failed with EADDRINUSE (98)");
        assertThat(analysis.getAction()).isEqualTo("The listener 'again' of this application listens on that port "
                + "already: give " + LISTENER + ".port another value, or 0 to let the connection manager pick a free "
                + "port.");
        // The listener 'again' had started: nothing of the failed startup is left, its listening id included.
        assertThat(provider.liveCmIds()).as("CM ids left by the failed startup").isZero();
    }

    @Test
    void aListenerOnAnAddressThisHostDoesNotHaveNamesTheAddressProperty() {
        FailureAnalysis analysis = analyze(withHandler.withPropertyValues(LISTENER + ".address=fe80::dead:beef"));
        assertThat(analysis.getDescription()).startsWith("RDMA listener 'echo' could not listen on "
                + "[fe80:0:0:0:0:0:dead:beef]:7471: rdma_bind_addr on ").contains("failed with EADDRNOTAVAIL (99)");
        assertThat(analysis.getAction()).isEqualTo("No RDMA device of this host has that address: set "
                + LISTENER + ".address to an address of one (ip -6 addr show dev <its netdev>; rdma link names the "
                + "netdev), or replace it by " + LISTENER + ".device=<device name> to listen on the device's "
                + "link-local address.");
    }

    /** What Spring Boot prints: the analysis of the first registered analyzer that knows the failure. */
    private static FailureAnalysis analyze(ApplicationContextRunner runner) {
        FailureAnalysis[] analysis = new FailureAnalysis[1];
        runner.run(context -> {
            assertThat(context).hasFailed();
            ArgumentResolver resolver = ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                    .and(Environment.class, new StandardEnvironment());
            analysis[0] = SpringFactoriesLoader.forDefaultResourceLocation().load(FailureAnalyzer.class, resolver)
                    .stream().map(a -> a.analyze(context.getStartupFailure())).filter(Objects::nonNull).findFirst()
                    .orElse(null);
        });
        assertThat(analysis[0]).as("the analysis of the startup failure").isNotNull();
        return analysis[0];
    }
}
