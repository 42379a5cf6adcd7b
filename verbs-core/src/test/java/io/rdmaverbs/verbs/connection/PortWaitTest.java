package io.rdmaverbs.verbs.connection;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.attr.PortState;
import io.rdmaverbs.verbs.provider.simulated.DeviceProfile;
import io.rdmaverbs.verbs.provider.simulated.SimulatedNetwork;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link PortWait}: a connection lost with its port down is released only once the port is ACTIVE again
 * (a DREQ sent on a down port reaches nobody, and on rxe with Linux 6.12 leaves the device's GSI QP in
 * ERR), and never held back longer than its bound, its owner's stop or its manager's close.
 */
class PortWaitTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private final SimulatedNetwork network = SimulatedNetwork.create();
    private final SimulatedProvider serverHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe0"));
    private final SimulatedProvider clientHost = SimulatedProvider.on(network, DeviceProfile.rxe("rxe1"));
    private final Verbs serverVerbs = Verbs.using(serverHost);
    private final Verbs clientVerbs = Verbs.using(clientHost);
    private final Connections server = Connections.on(serverVerbs, "server");
    private final Connections client = Connections.on(clientVerbs, "client");
    private final InetAddress serverIp = serverHost.addresses("rxe0").getFirst();
    private Connection connection;

    @BeforeEach
    void connect() throws Exception {
        CompletableFuture<Connection> accepted = new CompletableFuture<>();
        ConnectionListener listener = server.listen(ListenSpec.on(new InetSocketAddress(serverIp, 0)).raw(),
                request -> accepted.complete(request.accept()));
        connection = client.connect(ConnectSpec.to(listener.address()).raw());
        assertThat(accepted.get(5, TimeUnit.SECONDS).awaitState(ConnectionState.CONNECTED, WAIT)).isTrue();
    }

    @AfterEach
    void closeAll() {
        clientHost.setPortState("rxe1", 1, PortState.ACTIVE);
        client.close();
        server.close();
        clientVerbs.close();
        serverVerbs.close();
    }

    @Test
    void aPortThatIsActiveHoldsNothingBack() {
        long started = System.nanoTime();

        assertThat(PortWait.untilActive(connection, WAIT, () -> false)).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(1));
    }

    @Test
    void aPortThatIsDownHoldsTheReleaseUntilItIsActiveAgain() throws Exception {
        clientHost.setPortState("rxe1", 1, PortState.DOWN);
        CompletableFuture<Optional<PortWait.Held>> wait = CompletableFuture
                .supplyAsync(() -> PortWait.untilActive(connection, WAIT, () -> false));

        Thread.sleep(500);
        assertThat(wait).as("held while the port is down").isNotDone();
        clientHost.setPortState("rxe1", 1, PortState.ACTIVE);

        PortWait.Held held = wait.get(5, TimeUnit.SECONDS).orElseThrow();
        assertThat(held.outcome()).isEqualTo(PortWait.Outcome.ACTIVE);
        assertThat(held.waited()).isGreaterThanOrEqualTo(Duration.ofMillis(500));
        assertThat(held).hasToString("port 1 of rxe1 was down: released once it was ACTIVE again after "
                + held.waited().toMillis() + " ms");
    }

    @Test
    void aPortThatStaysDownIsWaitedForNoLongerThanTheBound() {
        clientHost.setPortState("rxe1", 1, PortState.DOWN);

        PortWait.Held held = PortWait.untilActive(connection, Duration.ofMillis(300), () -> false).orElseThrow();

        assertThat(held.outcome()).isEqualTo(PortWait.Outcome.STILL_DOWN);
        assertThat(held.waited()).isBetween(Duration.ofMillis(300), Duration.ofSeconds(2));
    }

    @Test
    void theOwnersStopEndsTheWait() throws Exception {
        clientHost.setPortState("rxe1", 1, PortState.DOWN);
        AtomicBoolean stopping = new AtomicBoolean();
        CompletableFuture<Optional<PortWait.Held>> wait = CompletableFuture
                .supplyAsync(() -> PortWait.untilActive(connection, WAIT, stopping::get));

        Thread.sleep(300);
        stopping.set(true);

        assertThat(wait.get(2, TimeUnit.SECONDS).orElseThrow().outcome()).isEqualTo(PortWait.Outcome.STOPPING);
    }

    @Test
    void theManagersCloseEndsTheWait() throws Exception {
        clientHost.setPortState("rxe1", 1, PortState.DOWN);
        CompletableFuture<Optional<PortWait.Held>> wait = CompletableFuture
                .supplyAsync(() -> PortWait.untilActive(connection, WAIT, () -> false));

        Thread.sleep(300);
        client.close(Duration.ofMillis(500));

        assertThat(wait.get(2, TimeUnit.SECONDS).orElseThrow().outcome()).isIn(PortWait.Outcome.STOPPING,
                PortWait.Outcome.NOT_QUERYABLE);
    }
}
