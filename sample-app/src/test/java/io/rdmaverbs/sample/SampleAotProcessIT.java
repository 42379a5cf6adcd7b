package io.rdmaverbs.sample;

import java.time.Duration;
import java.util.List;

import com.jayway.jsonpath.DocumentContext;
import com.jayway.jsonpath.JsonPath;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged sample started with the bean definitions {@code spring-boot:process-aot} generated at
 * build time ({@code -Dspring.aot.enabled=true}): every declared resource is a bean, the settings of
 * the declarations are still read at startup, the connected mode's endpoint answers the template, and its
 * shutdown leaves nothing open.
 */
class SampleAotProcessIT {

    /** Every key application-simulated.yml declares. */
    private static final List<String> DECLARED = List.of("hca", "pd", "events", "xrcd", "cq", "xrc-cq", "xrc-srq",
            "requester", "responder", "xrc-target", "xrc-initiator", "buffers");

    private SampleProcess sample;

    @AfterEach
    void killIfStillRunning() {
        if (sample != null) {
            sample.close();
        }
    }

    @Test
    void aheadOfTimeProcessedSampleCreatesEveryDeclaredResourceReadsTheirSettingsAtStartupAndReleasesThem()
            throws Exception {
        sample = SampleProcess.start("sample-aot-process.log", List.of("-Dspring.aot.enabled=true"),
                "--rdma.verbs.teardown.timeout=2s", "--rdma.verbs.devices.hca.completion-queues.cq.entries=512");
        assertThat(sample.output()).as("Boot's start-up line").contains("Starting AOT-processed SampleApplication");

        DocumentContext graph = JsonPath.parse(sample.get("/actuator/verbs", 200));
        assertThat(graph.<List<String>>read("$..name")).as("names in /actuator/verbs").containsAll(DECLARED);
        // 256 at build time; the device rounds what it is asked for up (ibv_create_cq(3): "at least").
        assertThat(graph.<List<Integer>>read("$..[?(@.name == 'cq')].details.entries"))
                .as("entries of cq, given at startup, not at build time").singleElement()
                .satisfies(entries -> assertThat(entries).isGreaterThanOrEqualTo(512));
        assertThat(sample.get("/rdma/exchange?message=hello-aot", 200)).contains("\"received\":\"hello-aot\"");
        // The connected mode: the @RdmaEndpoint registered by its post-processor from the generated bean
        // definitions, called through the RdmaTemplate, large messages included.
        long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
        while (sample.request("POST", "/rdma/connected/echo?count=1&size=64", Duration.ofSeconds(5)).statusCode() == 503
                && System.nanoTime() < deadline) {
            Thread.sleep(100); // the peer connects in the background
        }
        String echoed = sample.post("/rdma/connected/echo?count=20&size=1024", 200);
        assertThat(echoed).contains("\"echoed\":20", "\"checksumMismatches\":0");
        assertThat(sample.post("/rdma/connected/echo?count=2&size=70000", 200)).contains("\"echoed\":2");

        Duration took = sample.terminate(Duration.ofSeconds(30));

        String output = sample.output();
        assertThat(output).contains("RDMA verbs teardown (cascade", "left 0",
                "simulated device mlx5_0 holds no objects after shutdown");
        String released = output.substring(output.indexOf("RDMA verbs teardown"));
        assertThat(DECLARED).as("declared resources the teardown released")
                .allMatch(key -> released.contains(" '" + key + "'"));
        assertThat(output).doesNotContain("left open:", "was left open", "still holds objects");
        System.out.println("AOT-processed sample stopped " + took.toMillis() + " ms after SIGTERM");
    }

    @Test
    void aheadOfTimeProcessedSampleLeavesToTheStrictTeardownWhatItLeftOpenWithoutClosingItAgainOnDestroy()
            throws Exception {
        sample = SampleProcess.start("sample-aot-strict.log", List.of("-Dspring.aot.enabled=true"),
                "--rdma.verbs.teardown.timeout=1s", "--rdma.verbs.teardown.policy=strict");
        sample.post("/rdma/stuck/lease?resource=pd&holder=aot-borrower", 200);

        sample.terminate(Duration.ofSeconds(30));

        String output = sample.output();
        assertThat(output).contains("RDMA verbs teardown (strict", "left open:", "aot-borrower");
        // A bean definition written as code must keep "no destroy method": the inferred close() of an
        // AutoCloseable would try again, and fail, on each resource the strict teardown left.
        assertThat(output).doesNotContain("Invocation of close method failed", "Invocation of destroy method");
    }
}
