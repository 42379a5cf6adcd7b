package io.rdmaverbs.sample;

import java.util.Map;

import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.core.ParameterizedTypeReference;
import org.springframework.http.ResponseEntity;
import org.springframework.web.client.RestClient;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The connected mode while the peer's listener is unreachable: the application starts anyway, the echo
 * answers 503 with the peer's state and error, and the health is 200 with the peer DEGRADED.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
        properties = { "rdma.verbs.connections.peers.echo.address=fe80::dead:beef",
                "rdma.verbs.connections.peers.echo.resolve-timeout=100ms" })
class ConnectedModePeerDownTests {

    @LocalServerPort
    int port;

    @Test
    void theEchoAnswers503WithThePeersStateWhileItIsNotConnected() {
        ResponseEntity<Map<String, Object>> response = client().post().uri("/rdma/connected/echo?count=3&size=64")
                .retrieve().onStatus(s -> true, (request, r) -> { })
                .toEntity(new ParameterizedTypeReference<>() { });

        assertThat(response.getStatusCode().value()).isEqualTo(503);
        assertThat(response.getBody()).containsEntry("peer", "echo").containsKeys("state", "error");
        assertThat((String) response.getBody().get("error")).contains("RDMA peer 'echo' is not connected");
    }

    @Test
    void healthStays200WithTheOptionalPeerDegraded() {
        ResponseEntity<Map<String, Object>> health = client().get().uri("/actuator/health/rdmaConnections")
                .retrieve().onStatus(s -> true, (request, r) -> { })
                .toEntity(new ParameterizedTypeReference<>() { });

        assertThat(health.getStatusCode().value()).isEqualTo(200);
        @SuppressWarnings("unchecked")
        Map<String, Map<String, Object>> components = (Map<String, Map<String, Object>>) health.getBody()
                .get("components");
        assertThat(components.get("peer-echo").get("status")).isEqualTo("DEGRADED");
        @SuppressWarnings("unchecked")
        Map<String, Object> details = (Map<String, Object>) components.get("peer-echo").get("details");
        assertThat(details.get("state")).isIn("NEW", "CONNECTING", "DOWN");
        assertThat(details).containsKeys("attempts", "peerAddress", "since");
    }

    private RestClient client() {
        return RestClient.create("http://localhost:" + port);
    }
}
