package io.rdmaverbs.spring.boot.autoconfigure.connections;

import java.time.Duration;

import io.rdmaverbs.spring.boot.autoconfigure.connections.Hosts.Host;
import io.rdmaverbs.spring.boot.connections.RdmaListener;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.verbs.ResourceKind;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.PortState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A connection that ends while its port is down (a link cut) keeps its CM id until the port is ACTIVE
 * again: its release sends a DREQ, which could reach nobody before, and on soft-RoCE with Linux 6.12
 * such a failed send leaves the device's GSI QP in error, so that it never sends a CM message again
 * (docs/softroce.md, "Two kernels").
 */
@ExtendWith(OutputCaptureExtension.class)
class PortDownReleaseTests {

    private static final Duration WAIT = Duration.ofSeconds(10);

    private final Hosts hosts = new Hosts();
    private final Host a = hosts.host("rxe0");
    private final Host b = hosts.host("rxe1");

    @Test
    void anAcceptedConnectionLostWhileItsPortIsDownIsReleasedOnceThePortIsBack(CapturedOutput output) {
        a.echoListener().run(listenerSide -> {
            Verbs verbs = listenerSide.getBean(Verbs.class);
            acceptedThenLostWithThePortDown(listenerSide);

            await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> connectionIds(verbs) == 1);

            a.provider().setPortState("rxe0", 1, PortState.ACTIVE);
            await().atMost(WAIT).until(() -> connectionIds(verbs) == 0);
            assertThat(output.getOut()).containsPattern("RDMA listener 'echo' connection from \\[[^]]+]:\\d+ ended "
                    + "while port 1 of rxe0 was down: released once it was ACTIVE again after \\d+ ms");
        });
    }

    @Test
    void aPeersConnectionLostWhileItsPortIsDownIsReleasedOnceThePortIsBack(CapturedOutput output) {
        b.echoPeer(a).run(peerSide -> {
            Verbs verbs = peerSide.getBean(Verbs.class);
            RdmaPeer peer = peer(peerSide);
            String[] lost = new String[1];
            a.echoListener().run(listenerSide -> {
                assertThat(peer.awaitConnected(WAIT)).isTrue();
                lost[0] = peer.session().orElseThrow().connection().name();
                b.provider().setPortState("rxe1", 1, PortState.DOWN);
            });
            await().atMost(WAIT).until(() -> peer.lastError() != null);

            await().during(Duration.ofMillis(500)).atMost(WAIT).until(() -> hasId(verbs, lost[0]));

            b.provider().setPortState("rxe1", 1, PortState.ACTIVE);
            await().atMost(WAIT).until(() -> !hasId(verbs, lost[0]));
            assertThat(output.getOut()).containsPattern("RDMA peer 'echo' connection to \\[[^]]+]:7471 ended while "
                    + "port 1 of rxe1 was down: released once it was ACTIVE again after \\d+ ms");
        });
    }

    @Test
    void aConnectionLostWithItsPortUpIsReleasedAtOnce() {
        a.echoListener().run(listenerSide -> {
            Verbs verbs = listenerSide.getBean(Verbs.class);
            RdmaListener listener = listenerSide.getBean(RdmaListener.class);
            b.echoPeer(a).run(peerSide -> {
                assertThat(peer(peerSide).awaitConnected(WAIT)).isTrue();
                await().atMost(WAIT).until(() -> listener.sessions().size() == 1);
            });
            await().atMost(Duration.ofSeconds(3)).until(() -> connectionIds(verbs) == 0);
        });
    }

    @Test
    void aListenerStoppingWhileItsPortIsDownReleasesTheLostConnectionWithoutWaiting(CapturedOutput output) {
        a.echoListener().run(listenerSide -> {
            acceptedThenLostWithThePortDown(listenerSide);
            long started = System.nanoTime();

            listenerSide.close();

            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
            await().atMost(WAIT).untilAsserted(() -> assertThat(output.getOut())
                    .contains("was down: released once it was still down as it stops"));
        });
    }

    /** b's peer connects to a's listener; a's port goes down; b's context stops, which ends a's connection. */
    private void acceptedThenLostWithThePortDown(ConfigurableApplicationContext listenerSide) {
        RdmaListener listener = listenerSide.getBean(RdmaListener.class);
        b.echoPeer(a).run(peerSide -> {
            assertThat(peer(peerSide).awaitConnected(WAIT)).isTrue();
            await().atMost(WAIT).until(() -> listener.sessions().size() == 1);
            a.provider().setPortState("rxe0", 1, PortState.DOWN);
        });
        await().atMost(WAIT).until(() -> listener.sessions().isEmpty());
    }

    /** The CM ids of accepted connections still in the graph (the listening id is not one). */
    private static long connectionIds(Verbs verbs) {
        return verbs.resources().stream()
                .filter(r -> r.kind() == ResourceKind.CM_ID && r.name().contains("/conn-")).count();
    }

    private static boolean hasId(Verbs verbs, String name) {
        return verbs.resources().stream().anyMatch(r -> r.kind() == ResourceKind.CM_ID && r.name().equals(name));
    }

    private static RdmaPeer peer(ConfigurableApplicationContext context) {
        return context.getBean(RdmaPeer.class);
    }
}
