package io.rdmaverbs.sample;

import java.util.Map;

import io.rdmaverbs.sample.exchange.Borrowers;
import io.rdmaverbs.sample.exchange.LoopbackExchange;
import io.rdmaverbs.verbs.scenario.KernelResources;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On a real device (the soft-RoCE guest, {@code -Drdma.verbs.native-tests=true}): the sample's Spring
 * context with the {@code native} profile does real traffic, is left with a lease and an unacknowledged
 * completion event, and closes; afterwards the kernel ({@code rdma resource show}) holds nothing for this
 * process. The check runs while the JVM lives, because a process exit would release everything anyway.
 */
@EnabledIfSystemProperty(named = "rdma.verbs.native-tests", matches = "true")
class NativeShutdownLeakTest {

    @Test
    void theKernelHoldsNothingOfThisProcessAfterTheContextCloses() {
        Map<String, Integer> before = KernelResources.ofThisProcess();
        assertThat(before).as("rdma resource show works here").containsKeys("pd", "cq", "qp", "mr");

        ConfigurableApplicationContext context = new SpringApplicationBuilder(SampleApplication.class)
                .profiles("native")
                .run("--server.port=0", "--rdma.verbs.teardown.timeout=1s");
        try {
            LoopbackExchange loopback = context.getBean(LoopbackExchange.class);
            assertThat(loopback.exchange("over rxe0").received()).isEqualTo("over rxe0");
            context.getBean(Borrowers.class).borrow("pd", "leak-test");
            loopback.exchangeLeavingOneEventUnacknowledged("left unacknowledged");

            Map<String, Integer> running = KernelResources.ofThisProcess();
            assertThat(running.get("pd")).as("the kernel sees the PD").isEqualTo(before.get("pd") + 1);
            assertThat(running.get("qp")).as("the kernel sees both QPs").isEqualTo(before.get("qp") + 2);
            assertThat(running.get("cq")).isEqualTo(before.get("cq") + 1);
            assertThat(running.get("mr")).isEqualTo(before.get("mr") + 1);
        } finally {
            context.close();
        }
        assertThat(KernelResources.ofThisProcess()).as("kernel objects of this process after the context closed")
                .isEqualTo(before);
    }
}
