package io.rdmaverbs.spring.boot.test.autoconfigure.pausing;

import java.time.Duration;
import java.util.EnumSet;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties.SimulatedProfile;
import io.rdmaverbs.spring.boot.events.AsyncEventReaders;
import io.rdmaverbs.spring.boot.teardown.VerbsTeardown;
import io.rdmaverbs.spring.boot.test.autoconfigure.SimulatedVerbs;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.SendRequest;
import io.rdmaverbs.verbs.attr.WorkCompletions;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.AddressVector;
import io.rdmaverbs.verbs.attr.Mtu;
import io.rdmaverbs.verbs.attr.QpState;
import io.rdmaverbs.verbs.attr.SendOpcode;
import io.rdmaverbs.verbs.attr.WcStatus;
import org.junit.jupiter.api.ClassOrderer;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestClassOrder;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ConfigurableApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Spring Framework 7's test context cache pauses a cached context when the suite switches to another
 * one ({@code SmartLifecycle.isPauseable()}) and restarts it when a later class uses it again. A pause
 * is no shutdown: the declared resources of a paused context must be open and carry traffic after the
 * switch back, and what did pause (the async-event readers) must run again. Three device settings, visited in the order rxe, mlx5, two devices, rxe, mlx5.
 */
@TestClassOrder(ClassOrderer.OrderAnnotation.class)
class PausedContextsTests {

    /** {@code traffic.properties} declares two RC QPs, a and b, to RDMA-write between; each class names the device. */
    private static final String TRAFFIC = "spring.config.import=classpath:traffic.properties";

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class Application {
    }

    @Nested
    @Order(1)
    @SpringBootTest(classes = Application.class, properties = { TRAFFIC, "rdma.verbs.devices.main.name=rxe0" })
    @SimulatedVerbs
    class OnRxe extends QueuePairsCarryTraffic {
    }

    @Nested
    @Order(2)
    @SpringBootTest(classes = Application.class, properties = { TRAFFIC, "rdma.verbs.devices.main.name=mlx5_0" })
    @SimulatedVerbs(@SimulatedVerbs.Device(name = "mlx5_0", profile = SimulatedProfile.MLX5))
    class OnMlx5 extends QueuePairsCarryTraffic {
    }

    @Nested
    @Order(3)
    @SpringBootTest(classes = Application.class, properties = { TRAFFIC, "rdma.verbs.devices.main.name=rxe1" })
    @SimulatedVerbs({ @SimulatedVerbs.Device(name = "mlx5_1", profile = SimulatedProfile.MLX5),
            @SimulatedVerbs.Device(name = "rxe1") })
    class OnTwoDevices extends QueuePairsCarryTraffic {
    }

    @Nested
    @Order(4)
    @SpringBootTest(classes = Application.class, properties = { TRAFFIC, "rdma.verbs.devices.main.name=rxe0" })
    @SimulatedVerbs
    class OnRxeAfterItWasPaused extends QueuePairsCarryTraffic {
    }

    @Nested
    @Order(5)
    @SpringBootTest(classes = Application.class, properties = { TRAFFIC, "rdma.verbs.devices.main.name=mlx5_0" })
    @SimulatedVerbs(@SimulatedVerbs.Device(name = "mlx5_0", profile = SimulatedProfile.MLX5))
    class OnMlx5AfterItWasPaused extends QueuePairsCarryTraffic {
    }

    /** What every visit checks, the first one and each one after a pause. */
    abstract static class QueuePairsCarryTraffic {

        @Autowired
        ConfigurableApplicationContext context;

        @Test
        void declaredQueuePairsAreOpenAndCompleteAnRdmaWrite() {
            assertThat(context.isRunning()).as("the context was restarted after its pause").isTrue();
            QueuePair a = context.getBean("a", QueuePair.class);
            QueuePair b = context.getBean("b", QueuePair.class);
            assertThat(a.isOpen()).as("qp 'a'").isTrue();
            assertThat(b.isOpen()).as("qp 'b'").isTrue();
            assertThat(context.getBean(VerbsTeardown.class).report()).as("teardown report").isEmpty();
            assertThat(context.getBean(AsyncEventReaders.class).activeReaders())
                    .as("async-event readers, paused with the context and started again").isPositive();
            if (a.state() == QpState.RESET) {
                connect(context.getBean("main", DeviceContext.class), a, b);
            }
            assertThat(a.state()).isEqualTo(QpState.RTS);
            assertThat(rdmaWrite(a, context.getBean("cq0", CompletionQueue.class),
                    context.getBean("source", MemoryRegion.class), context.getBean("target", MemoryRegion.class)))
                    .isEqualTo(WcStatus.SUCCESS);
        }

        private static void connect(DeviceContext ctx, QueuePair a, QueuePair b) {
            AddressVector self = AddressVector.roce(1, ctx.queryGid(1, 0), 0);
            EnumSet<AccessFlag> access = EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_WRITE);
            a.toInit(1, access);
            b.toInit(1, access);
            a.toReadyToReceive(self, b.qpNum(), 0, Mtu.MTU_1024);
            b.toReadyToReceive(self, a.qpNum(), 0, Mtu.MTU_1024);
            a.toReadyToSend(0);
            b.toReadyToSend(0);
        }

        private static WcStatus rdmaWrite(QueuePair a, CompletionQueue cq, MemoryRegion source, MemoryRegion target) {
            try (SendRequest write = a.newSendRequest(1).wrId(7).opcode(SendOpcode.RDMA_WRITE).single(source, 0, 64)
                    .remote(target.address(), target.rkey());
                    WorkCompletions wc = cq.newWorkCompletions(4)) {
                a.postSend(write);
                long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
                while (System.nanoTime() < deadline) {
                    if (cq.poll(wc) > 0) {
                        assertThat(wc.wrId(0)).isEqualTo(7);
                        return wc.status(0);
                    }
                    Thread.onSpinWait();
                }
                throw new AssertionError("no completion for the RDMA write within 5 s");
            }
        }
    }
}
