package io.rdmaverbs.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.rdmaverbs.spring.boot.connections.PeerState;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connected mode of the embedded default, over HTTP as the two-host run drives it: the peer
 * {@code echo} connects to the listener {@code echo} of the same JVM (a loopback connection through the
 * simulated connection manager), {@code POST /rdma/connected/echo} checks every echo's CRC32, and the
 * health shows both.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConnectedModeTests {

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("echo")
    RdmaPeer peer;

    @Test
    void echoesEveryMessageWithItsChecksumIntact() throws InterruptedException {
        assertThat(peer.awaitConnected(Duration.ofSeconds(10))).as("connected: %s", peer.lastError()).isTrue();

        Map<String, Object> run = client().post().uri("/rdma/connected/echo?count=50&size=1024").retrieve()
                .body(new ParameterizedTypeReference<>() { });

        assertThat(run).containsEntry("peer", "echo").containsEntry("sent", 50).containsEntry("echoed", 50)
                .containsEntry("checksumMismatches", 0).containsEntry("errors", List.of());
    }

    @Test
    void healthShowsTheConnectedPeerAndTheListenersOpenConnection() throws InterruptedException {
        assertThat(peer.awaitConnected(Duration.ofSeconds(10))).isTrue();
        assertThat(peer.state()).isEqualTo(PeerState.CONNECTED);

        ResponseEntity<Map<String, Object>> health = client().get().uri("/actuator/health/rdmaConnections")
                .retrieve().toEntity(new ParameterizedTypeReference<>() { });

        assertThat(health.getStatusCode().value()).isEqualTo(200);
        assertThat(health.getBody()).extractingByKey("components").satisfies(components -> {
            @SuppressWarnings("unchecked")
            Map<String, Map<String, Object>> c = (Map<String, Map<String, Object>>) components;
            assertThat(c.get("peer-echo").get("status")).isEqualTo("UP");
            assertThat(c.get("peer-echo").get("details")).asInstanceOf(
                    org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("state", "CONNECTED")
                    .containsKeys("peerAddress", "since", "attempts", "breaker");
            assertThat(c.get("listener-echo").get("details")).asInstanceOf(
                    org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry("port", 7471)
                    .containsEntry("openConnections", 1);
        });
    }

    @Test
    void thePeersCircuitBreakerStateIsServedByTheMetricsEndpoint() throws InterruptedException {
        assertThat(peer.awaitConnected(Duration.ofSeconds(10))).isTrue();

        ResponseEntity<Map<String, Object>> closed = client().get()
                .uri("/actuator/metrics/resilience4j.circuitbreaker.state?tag=name:rdma-peer-echo&tag=state:closed")
                .retrieve().onStatus(s -> true, (request, r) -> { })
                .toEntity(new ParameterizedTypeReference<>() { });

        assertThat(closed.getStatusCode().value()).as("GET /actuator/metrics/resilience4j.circuitbreaker.state for "
                + "the peer's breaker").isEqualTo(200);
        assertThat(closed.getBody()).extractingByKey("measurements").asInstanceOf(
                org.assertj.core.api.InstanceOfAssertFactories.LIST).singleElement()
                .isEqualTo(Map.of("statistic", "VALUE", "value", 1.0));
    }

    @Test
    void messagesLargerThanTheBuffersGoByRendezvousAndComeBackIntact() throws InterruptedException {
        assertThat(peer.awaitConnected(Duration.ofSeconds(10))).isTrue();

        Map<String, Object> run = client().post().uri("/rdma/connected/echo?count=3&size=70000").retrieve()
                .body(new ParameterizedTypeReference<>() { });

        assertThat(run).containsEntry("sent", 3).containsEntry("echoed", 3).containsEntry("checksumMismatches", 0);
        assertThat(peer.session().orElseThrow().statistics().largeMessagesSent()).isGreaterThanOrEqualTo(3);
    }

    @Test
    void aMessageLargerThanTheMaxMessageSizeIsABadRequest() throws InterruptedException {
        assertThat(peer.awaitConnected(Duration.ofSeconds(10))).isTrue();
        ResponseEntity<String> response = client().post().uri("/rdma/connected/echo?count=1&size=" + (64 * 1024 * 1024 + 1))
                .retrieve().onStatus(s -> true, (request, r) -> { }).toEntity(String.class);
        assertThat(response.getStatusCode().value()).isEqualTo(400);
    }

    private RestClient client() {
        return RestClient.create("http://localhost:" + port);
    }
}
