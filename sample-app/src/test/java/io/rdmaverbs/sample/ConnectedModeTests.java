package io.rdmaverbs.sample;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import io.rdmaverbs.spring.boot.connections.PeerState;
import io.rdmaverbs.spring.boot.connections.RdmaListener;
import io.rdmaverbs.spring.boot.connections.RdmaPeer;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.assertj.core.api.InstanceOfAssertFactories;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

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
 * simulated connection manager), {@code POST /rdma/connected/echo} checks every echo's CRC32,
 * {@code POST /rdma/connected/echo/one-sided} reads each side's exported region from the other, and the
 * health shows both.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
class ConnectedModeTests {

    @LocalServerPort
    int port;

    @Autowired
    @Qualifier("echo")
    RdmaPeer peer;

    @Autowired
    RdmaListener listener;

    @Autowired
    VerbsProvider provider;

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
    void fourMessagesOf16MiBGoByRendezvousAndComeBackIntact() throws InterruptedException {
        assertThat(peer.awaitConnected(Duration.ofSeconds(10))).isTrue();
        long before = peer.session().orElseThrow().statistics().largeMessagesSent();

        Map<String, Object> run = client().post().uri("/rdma/connected/echo?count=4&size=16777216").retrieve()
                .body(new ParameterizedTypeReference<>() { });

        assertThat(run).containsEntry("sent", 4).containsEntry("echoed", 4).containsEntry("checksumMismatches", 0)
                .containsEntry("errors", List.of());
        assertThat(peer.session().orElseThrow().statistics().largeMessagesSent() - before).isEqualTo(4);
    }

    @ParameterizedTest
    @ValueSource(ints = { 0, 1, 3 * 1024 * 1024 + 5 })
    void eachSideReadsTheOthersExportedRegionAndNoRegionIsLeftAfterTheCall(int size) throws InterruptedException {
        assertThat(peer.awaitConnected(Duration.ofSeconds(10))).isTrue();
        int regionsBefore = quietMemoryRegions();

        String query = size == 0 ? "" : "?size=" + size;
        Map<String, Object> run = client().post().uri("/rdma/connected/echo/one-sided" + query).retrieve()
                .body(new ParameterizedTypeReference<>() { });

        int bytes = size == 0 ? 1 << 20 : size;
        assertThat(run).containsEntry("peer", "echo").containsEntry("bytes", bytes).containsEntry("ok", true)
                .containsEntry("errors", List.of()).containsKey("totalMicros");
        for (String read : List.of("listenerRead", "peerRead")) {
            assertThat(run).extractingByKey(read).asInstanceOf(InstanceOfAssertFactories.MAP)
                    .containsEntry("ok", true).containsKeys("crc32", "readCrc32", "micros")
                    .satisfies(r -> assertThat(r.get("readCrc32")).isEqualTo(r.get("crc32")));
        }
        assertThat(((Map<?, ?>) run.get("listenerRead")).get("crc32"))
                .as("the two regions hold different patterns")
                .isNotEqualTo(((Map<?, ?>) run.get("peerRead")).get("crc32"));
        assertThat(memoryRegions()).as("MRs on the device after the call").isEqualTo(regionsBefore);
        assertThat(peer.session().orElseThrow().exports()).isEmpty();
        assertThat(peer.session().orElseThrow().remoteRegions()).isEmpty();
        assertThat(listener.sessions()).allSatisfy(s -> {
            assertThat(s.exports()).isEmpty();
            assertThat(s.remoteRegions()).isEmpty();
        });
    }

    @Test
    void aOneSidedSizeOutsideTheLimitsIsABadRequest() throws InterruptedException {
        assertThat(peer.awaitConnected(Duration.ofSeconds(10))).isTrue();
        for (int size : new int[] { -1, 16 * 1024 * 1024 + 1 }) {
            ResponseEntity<String> response = client().post().uri("/rdma/connected/echo/one-sided?size=" + size)
                    .retrieve().onStatus(s -> true, (request, r) -> { }).toEntity(String.class);
            assertThat(response.getStatusCode().value()).isEqualTo(400);
            assertThat(response.getBody()).contains("size must be 1 to 16777216 bytes, was " + size);
        }
    }

    /** The MRs the simulated device holds, as {@code rdma resource show mr} counts them on a real one. */
    private int memoryRegions() {
        return ((SimulatedProvider) provider).resourceCounts("mlx5_0").mrs();
    }

    /**
     * {@link #memoryRegions()} once it holds still for 200 ms: a rendezvous of an earlier test deregisters its
     * regions after its reply has come.
     */
    private int quietMemoryRegions() throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        int last = memoryRegions();
        while (System.nanoTime() < deadline) {
            Thread.sleep(200);
            int now = memoryRegions();
            if (now == last) {
                return now;
            }
            last = now;
        }
        throw new AssertionError("the device's MR count did not settle within 10 s: " + last);
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
