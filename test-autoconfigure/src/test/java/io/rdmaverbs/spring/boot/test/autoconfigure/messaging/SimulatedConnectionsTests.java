package io.rdmaverbs.spring.boot.test.autoconfigure.messaging;

import java.time.Duration;
import io.rdmaverbs.spring.boot.connections.PeerState;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.spring.boot.messaging.EndpointInvocation;
import io.rdmaverbs.spring.boot.messaging.RdmaEndpoint;
import io.rdmaverbs.spring.boot.messaging.RdmaMessageMapping;
import io.rdmaverbs.spring.boot.messaging.RdmaRemoteEndpointException;
import io.rdmaverbs.spring.boot.messaging.RdmaTemplate;
import io.rdmaverbs.spring.boot.test.autoconfigure.RdmaEndpointTestHarness;
import io.rdmaverbs.spring.boot.test.autoconfigure.SimulatedConnections;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Import;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SimulatedConnections} on a {@code @SpringBootTest} with no connection in its configuration: the
 * listeners and peers it names are up when the test starts, and the harness shows what the endpoints got.
 */
@SpringBootTest(classes = SimulatedConnectionsTests.Application.class)
@SimulatedConnections({ "orders", "audit" })
class SimulatedConnectionsTests {

    record Order(String item, int quantity) {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({ Orders.class, Audit.class })
    static class Application {
    }

    @RdmaEndpoint("orders")
    static class Orders {

        @RdmaMessageMapping("place")
        String place(Order order) {
            if (order.quantity() < 1) {
                throw new IllegalArgumentException("no quantity");
            }
            return "placed " + order.quantity() + " x " + order.item();
        }
    }

    @RdmaEndpoint("audit")
    static class Audit {

        @RdmaMessageMapping
        void record(String line) {
        }
    }

    @Autowired
    RdmaTemplate template;

    @Autowired
    RdmaEndpointTestHarness harness;

    @Autowired
    @Qualifier("orders")
    RdmaPeer orders;

    @BeforeEach
    void forgetEarlierCalls() {
        harness.reset();
    }

    @Test
    void eachNameIsAListenerAndAPeerConnectedToItBeforeTheTestStarts() {
        assertThat(orders.state()).isEqualTo(PeerState.CONNECTED);
        assertThat(template.peer("audit").state()).isEqualTo(PeerState.CONNECTED);
        assertThat(orders.remoteAddress().getPort()).isEqualTo(7471);
        assertThat(template.peer("audit").remoteAddress().getPort()).isEqualTo(7472);
    }

    @Test
    void theHarnessShowsWhatAnEndpointReceivedAndReturned() throws InterruptedException {
        String reply = template.convertSendAndReceive("orders", "place", new Order("disk", 2), String.class);

        EndpointInvocation call = harness.awaitInvocation("orders", "place", Duration.ofSeconds(10));
        assertThat(reply).isEqualTo("placed 2 x disk");
        assertThat(call.payload()).isEqualTo(new Order("disk", 2));
        assertThat(call.result()).isEqualTo("placed 2 x disk");
        assertThat(call.request()).isTrue();
        assertThat(call.message().header("content-type")).isEqualTo("application/json");
    }

    @Test
    void theHarnessShowsAOneWayMessageAndWhatAnEndpointThrew() throws InterruptedException {
        template.convertAndSend("audit", "line 1");
        assertThatThrownBy(() -> template.convertSendAndReceive("orders", "place", new Order("disk", 0), String.class))
                .isInstanceOf(RdmaRemoteEndpointException.class);

        assertThat(harness.awaitInvocation("audit", "", Duration.ofSeconds(10)).payload()).isEqualTo("line 1");
        assertThat(harness.awaitInvocation("orders", "place", Duration.ofSeconds(10)).error())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("no quantity");
    }

    @Test
    void waitingForACallThatNeverComesFailsListingTheCallsSoFar() {
        template.convertAndSend("audit", "line 2");

        assertThatThrownBy(() -> harness.awaitInvocation("orders", "cancel", Duration.ofMillis(300)))
                .isInstanceOf(AssertionError.class).hasMessageContaining("route 'cancel' within 300 ms");
    }
}
