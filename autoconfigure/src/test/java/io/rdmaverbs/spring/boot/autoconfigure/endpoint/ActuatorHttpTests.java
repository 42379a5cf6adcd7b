package io.rdmaverbs.spring.boot.autoconfigure.endpoint;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import io.rdmaverbs.spring.boot.autoconfigure.Traffic;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.Lease;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/** The health contributor and the endpoint over real HTTP, on the simulated provider. */
@SpringBootTest(webEnvironment = WebEnvironment.RANDOM_PORT, classes = ActuatorHttpTests.Application.class,
        properties = { "management.endpoints.web.exposure.include=health,verbs,info",
                "management.endpoint.health.status.order=down,out-of-service,leak-suspected,up,unknown",
                "management.endpoint.health.show-details=always", "rdma.verbs.teardown.timeout=1s",
                "spring.config.import=classpath:traffic.properties", "rdma.verbs.provider=simulated" })
class ActuatorHttpTests {

    private final HttpClient http = HttpClient.newHttpClient();

    @LocalServerPort
    private int port;

    @Autowired
    private ApplicationContext context;

    @Autowired
    @Qualifier("target")
    private MemoryRegion target;

    @Test
    void idleHealthIsUpListsNothingToAttendToAndOnlyCountsTheStructuralReferences() throws Exception {
        DocumentContext health = json(get("/actuator/health/rdmaVerbs"), 200);
        assertThat(health.read("$.status", String.class)).isEqualTo("UP");
        Map<String, Object> main = health.read("$.components.main.details");
        assertThat(main).containsEntry("device", "rxe0").containsEntry("port", 1).containsEntry("portState", "ACTIVE")
                .containsEntry("linkLayer", "ETHERNET").containsEntry("circuitBreaker", "CLOSED");
        assertThat(health.<Map<String, Object>>read("$.components.main.details.resources"))
                .containsEntry("QUEUE_PAIR", 2)
                .containsEntry("MEMORY_REGION", 2).containsEntry("DEVICE_CONTEXT", 1);
        // A context with its PD, a PD with its QPs, a channel with its CQ: structure, not a problem.
        assertThat(health.<List<Object>>read("$.components.main.details.stuckReferences")).isEmpty();
        List<Object> structural = json(get("/actuator/verbs"), 200)
                .read("$.stuckReferences[?(@.cause == 'DEPENDENT_RESOURCE')]");
        assertThat(structural).isNotEmpty();
        assertThat(health.read("$.components.main.details.structuralReferences", Integer.class))
                .isEqualTo(structural.size());
        assertThat(health.<Map<String, Object>>read("$.components.main.details")).doesNotContainKey("suspectedLeaks");
    }

    @Test
    void healthShowsALeaseWithItsHolderAndStackAndStaysUp() throws Exception {
        try (Lease lease = target.lease("replicator")) {
            DocumentContext health = json(get("/actuator/health/rdmaVerbs"), 200);
            assertThat(health.read("$.status", String.class)).isEqualTo("UP");
            String stuck = "$.components.main.details.stuckReferences[0]";
            assertThat(health.read(stuck + ".resource.name", String.class)).isEqualTo("target");
            assertThat(health.read(stuck + ".verb", String.class)).isEqualTo("ibv_dereg_mr");
            assertThat(health.read(stuck + ".consequence", String.class)).isEqualTo("BREAKS_LEASE");
            assertThat(health.read(stuck + ".cause", String.class)).isEqualTo("LEASE");
            assertThat(health.read(stuck + ".lease.holder", String.class)).isEqualTo("replicator");
            assertThat(health.read(stuck + ".lease.since", String.class)).isEqualTo(lease.since().toString());
            assertThat(health.read(stuck + ".lease.stack[0]", String.class))
                    .contains(ActuatorHttpTests.class.getName() + ".healthShowsALeaseWithItsHolderAndStackAndStaysUp");
        }
        assertThat(json(get("/actuator/health/rdmaVerbs"), 200)
                .<List<Object>>read("$.components.main.details.stuckReferences")).isEmpty();
    }

    @Test
    void endpointMasksWhereALeaseWasTakenByDefault() throws Exception {
        try (Lease lease = target.lease("replicator")) {
            DocumentContext verbs = json(get("/actuator/verbs/target"), 200);
            assertThat(verbs.read("$.resource.leases[0].holder", String.class)).isEqualTo("replicator");
            assertThat(verbs.read("$.resource.leases[0].since", String.class)).isEqualTo(lease.since().toString());
            assertThat(verbs.read("$.resource.leases[0].thread", String.class)).isEqualTo("******");
            assertThat(verbs.<List<Object>>read("$.resource.leases[0].stack")).containsExactly("******");
            assertThat(verbs.read("$.stuckReferences[?(@.cause == 'LEASE')].lease.thread", List.class))
                    .containsExactly("******");
        }
    }

    @Test
    void infoShowsTheProviderAndTheDevices() throws Exception {
        DocumentContext info = json(get("/actuator/info"), 200);
        assertThat(info.read("$.rdmaVerbs.provider", String.class)).isEqualTo("simulated");
        assertThat(info.<List<Object>>read("$.rdmaVerbs.devices[*].name")).containsExactly("rxe0");
        assertThat(info.read("$.rdmaVerbs.devices[0].guid", String.class)).hasSize(16);
        assertThat(info.<Map<String, Object>>read("$.rdmaVerbs")).doesNotContainKey("library");
    }

    @Test
    void healthAndEndpointShowACompletionQueueWithAnUnacknowledgedEventFromRealTraffic() throws Exception {
        CompletionQueue cq = Traffic.leaveOneEventUnacknowledged(context);
        try {
            DocumentContext health = json(get("/actuator/health/rdmaVerbs"), 200);
            assertThat(health.read("$.status", String.class)).as("no leak detection: the status stays").isEqualTo("UP");
            String stuck = "$.components.main.details.stuckReferences[?(@.cause == 'UNACKNOWLEDGED_CQ_EVENTS')]";
            assertThat(health.<List<Object>>read(stuck + ".resource.name")).containsExactly("cq0");
            assertThat(health.<List<Object>>read(stuck + ".consequence")).containsExactly("BLOCKS_FOREVER");
            // Nothing else can release it: closing the channel first is impossible while the CQ lives.
            assertThat(health.<List<java.util.Map<String, Object>>>read(stuck))
                    .singleElement().satisfies(ref -> assertThat(ref.get("blocker")).isNull());
            DocumentContext graph = json(get("/actuator/verbs"), 200);
            assertThat(graph.read("$.closePlan.blocked", Boolean.class)).as("the whole-graph strict plan").isTrue();
            DocumentContext verbs = json(get("/actuator/verbs/cq0"), 200);
            assertThat(verbs.read("$.resource.details.unacknowledgedEvents", Integer.class)).isEqualTo(1);
            assertThat(verbs.<List<Object>>read("$.stuckReferences[*].cause")).contains("UNACKNOWLEDGED_CQ_EVENTS",
                    "DEPENDENT_RESOURCE");
            assertThat(verbs.read("$.closePlan.blocked", Boolean.class)).isTrue();
        } finally {
            cq.acknowledgeEvents(1);
        }
    }

    @Test
    void endpointShowsTheGraphAsATreeWithTheClosePlan() throws Exception {
        DocumentContext verbs = json(get("/actuator/verbs"), 200);
        assertThat(verbs.read("$.provider", String.class)).isEqualTo("simulated");
        assertThat(verbs.read("$.teardownPolicy", String.class)).isEqualTo("STRICT");
        assertThat(verbs.<List<Object>>read("$.resources[*].name")).containsExactly("main");
        assertThat(verbs.read("$.resources[0].kind", String.class)).isEqualTo("DEVICE_CONTEXT");
        assertThat(verbs.read("$.resources[0].details.device", String.class)).isEqualTo("rxe0");
        assertThat(verbs.<List<Object>>read("$.resources[0].dependents[*].name"))
                .containsExactly("pd0", "events", "cq0");
        assertThat(verbs.<List<Object>>read("$.resources[0].dependents[0].dependents[*].name"))
                .containsExactly("a", "b", "source", "target");
        assertThat(verbs.<List<Object>>read("$.resources[0].dependents[0].dependents[0].parents[*].name"))
                .containsExactly("main", "pd0", "cq0");
        assertThat(verbs.<List<Object>>read("$.teardownBlockers")).isEmpty();
        assertThat(verbs.<List<Object>>read("$.stuckReferences[*].resource.name")).contains("pd0", "cq0", "events");
        assertThat(verbs.read("$.closePlan.policy", String.class)).isEqualTo("STRICT");
        assertThat(verbs.read("$.closePlan.blocked", Boolean.class)).isFalse();
        assertThat(verbs.<List<Object>>read("$.closePlan.steps[*].resource.name"))
                .containsExactly("b", "a", "cq0", "events", "target", "source", "pd0", "main");
        assertThat(verbs.read("$.closePlan.steps[0].verb", String.class)).isEqualTo("ibv_destroy_qp");
        assertThat(verbs.read("$.closePlan.steps[7].order", Integer.class)).isEqualTo(8);
    }

    @Test
    void endpointShowsABlockedPlanWhileALeaseIsHeld() throws Exception {
        Lease lease = target.lease("replicator");
        try {
            DocumentContext verbs = json(get("/actuator/verbs"), 200);
            assertThat(verbs.read("$.closePlan.blocked", Boolean.class)).isTrue();
            assertThat(verbs.read("$.closePlan.blockers[0].lease.holder", String.class)).isEqualTo("replicator");
            assertThat(verbs.read("$.teardownBlockers[0].resource.name", String.class)).isEqualTo("target");
            assertThat(verbs.read("$.resources[0].dependents[0].dependents[3].leases[0].holder", String.class))
                    .isEqualTo("replicator");
        } finally {
            lease.close();
        }
    }

    @Test
    void endpointSelectsOneResourceByNameOrId() throws Exception {
        DocumentContext byName = json(get("/actuator/verbs/pd0"), 200);
        assertThat(byName.read("$.resource.kind", String.class)).isEqualTo("PROTECTION_DOMAIN");
        assertThat(byName.<List<Object>>read("$.resource.dependents[*].name")).containsExactly("a", "b", "source",
                "target");
        assertThat(byName.<List<Object>>read("$.closePlan.steps[*].resource.name")).containsExactly("pd0");
        assertThat(byName.read("$.closePlan.blocked", Boolean.class)).isTrue();
        assertThat(byName.<List<Object>>read("$.stuckReferences[*].cause")).containsOnly("DEPENDENT_RESOURCE");

        long id = context.getBean("pd0", ProtectionDomain.class).id();
        assertThat(json(get("/actuator/verbs/" + id), 200).read("$.resource.name", String.class)).isEqualTo("pd0");
        assertThat(get("/actuator/verbs/nothing-like-it").statusCode()).isEqualTo(404);
    }

    @Test
    void endpointDrawsTheGraphForPeople() throws Exception {
        HttpResponse<String> mermaid = get("/actuator/verbs?format=mermaid");
        assertThat(mermaid.statusCode()).isEqualTo(200);
        assertThat(mermaid.headers().firstValue("Content-Type")).hasValueSatisfying(t -> assertThat(t)
                .startsWith("text/plain"));
        assertThat(mermaid.body()).startsWith("flowchart TD").contains("[\"pd pd0<br/>#", " --> n", " -.-> n");
        HttpResponse<String> dot = get("/actuator/verbs?format=dot");
        assertThat(dot.body()).startsWith("digraph verbs {").contains("label=\"qp a\\n#").endsWith("}\n");
        HttpResponse<String> unknown = get("/actuator/verbs?format=svg");
        assertThat(unknown.statusCode()).isEqualTo(400);
        assertThat(unknown.body()).contains("unknown format 'svg'", "mermaid", "dot");
    }

    private HttpResponse<String> get(String path) throws Exception {
        HttpRequest request = HttpRequest.newBuilder(URI.create("http://localhost:" + port + path)).GET().build();
        return http.send(request, HttpResponse.BodyHandlers.ofString());
    }

    private static DocumentContext json(HttpResponse<String> response, int status) {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        return JsonPath.parse(response.body());
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
    }
}
