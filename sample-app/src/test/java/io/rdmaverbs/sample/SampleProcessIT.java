package io.rdmaverbs.sample;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The packaged application as a user runs it: {@code java -jar}, real HTTP calls, then SIGTERM. It must
 * exit within a bound with the JVM's status for SIGTERM (143), log its teardown children first, and
 * leave nothing open, although a lease and an unacknowledged completion event were left on purpose.
 */
class SampleProcessIT {

    /** Teardown timeout 2 s plus start-up of the shutdown hooks; far below a hang. */
    private static final Duration EXIT_BOUND = Duration.ofSeconds(30);

    private SampleProcess sample;

    @AfterEach
    void killIfStillRunning() {
        if (sample != null) {
            sample.close();
        }
    }

    @Test
    void runsExchangesReportsStuckReferencesAndShutsDownCleanlyOnSigterm() throws Exception {
        sample = SampleProcess.start("sample-process.log", List.of(), "--rdma.verbs.teardown.timeout=2s");

        String rc = sample.get("/rdma/exchange?message=hello-rc", 200);
        assertThat(rc).contains("\"received\":\"hello-rc\"", "\"sendStatus\":\"SUCCESS\"",
                "\"receiveStatus\":\"SUCCESS\"", "\"acknowledged\":true");
        String xrc = sample.get("/rdma/xrc?message=hello-xrc", 200);
        assertThat(xrc).contains("\"transport\":\"XRC\"", "\"received\":\"hello-xrc\"");

        String health = sample.get("/actuator/health/rdmaVerbs", 200);
        // Idle: the structure (a PD with its QPs...) is only counted; nothing needs attention.
        assertThat(health).contains("\"status\":\"UP\"", "\"stuckReferences\":[]", "\"structuralReferences\":")
                .doesNotContain("ibv_destroy_comp_channel");

        sample.post("/rdma/stuck/lease?resource=pd&holder=e2e-borrower", 200);
        sample.post("/rdma/stuck/unacknowledged-event", 200);
        String stuck = sample.get("/actuator/health/rdmaVerbs", 200);
        assertThat(stuck).contains("\"status\":\"UP\"", "\"holder\":\"e2e-borrower\"", "UNACKNOWLEDGED_CQ_EVENTS",
                "BLOCKS_FOREVER");
        assertThat(sample.get("/actuator/verbs?format=mermaid", 200)).startsWith("flowchart");

        Duration took = sample.terminate(EXIT_BOUND);

        String output = sample.output();
        assertThat(output).contains("RDMA verbs teardown (cascade", "left 0", "cleared first (cascade):",
                "revoked: pd 'pd'", "acknowledged: cq 'cq'", "simulated device mlx5_0 holds no objects after shutdown");
        assertThat(output).doesNotContain("left open:", "still holds objects");
        int requester = output.indexOf("ibv_destroy_qp qp 'requester'");
        int cq = output.indexOf("ibv_destroy_cq cq 'cq'");
        int channel = output.indexOf("ibv_destroy_comp_channel channel 'events'");
        int target = output.indexOf("ibv_destroy_qp qp 'xrc-target'");
        int xrcd = output.indexOf("ibv_close_xrcd xrcd 'xrcd'");
        int mr = output.indexOf("ibv_dereg_mr mr 'buffers'");
        int pd = output.indexOf("ibv_dealloc_pd pd 'pd'");
        int device = output.indexOf("ibv_close_device ctx 'hca'");
        assertThat(List.of(requester, cq, channel, target, xrcd, mr, pd, device)).doesNotContain(-1);
        assertThat(requester).as("QP before its CQ").isLessThan(cq);
        assertThat(cq).as("CQ before its channel").isLessThan(channel);
        assertThat(target).as("XRC receive QP before its domain").isLessThan(xrcd);
        assertThat(mr).as("MR before its PD").isLessThan(pd);
        assertThat(Math.max(channel, pd)).as("everything before the device").isLessThan(device);
        System.out.println("sample stopped " + took.toMillis() + " ms after SIGTERM");
    }
}
