package io.rdmaverbs.spring.boot.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;

import io.rdmaverbs.spring.boot.resources.Declarations;
import io.rdmaverbs.spring.boot.resources.Declarations.Device;
import io.rdmaverbs.spring.boot.resources.Declarations.Qp;
import io.rdmaverbs.spring.boot.teardown.TeardownPolicy;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.attr.QpType;
import org.junit.jupiter.api.Test;

import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.bind.validation.BindValidationException;
import org.springframework.boot.context.properties.source.MapConfigurationPropertySource;
import org.springframework.util.unit.DataSize;

import static org.assertj.core.api.Assertions.assertThat;

class VerbsPropertiesTests {

    @Test
    void everySettingHasADefault() {
        VerbsProperties p = bind(Map.of());
        assertThat(p.provider()).isEqualTo(VerbsProperties.Provider.NATIVE);
        assertThat(p.nativeProvider().libraryPath()).isNull();
        assertThat(p.simulated().devices()).containsOnlyKeys("rxe0");
        assertThat(p.simulated().devices().get("rxe0").profile()).isEqualTo(VerbsProperties.SimulatedProfile.RXE);
        assertThat(p.devices()).isEmpty();
        assertThat(p.teardown().policy()).isEqualTo(TeardownPolicy.STRICT);
        assertThat(p.teardown().timeout()).isEqualTo(Duration.ofSeconds(10));
        assertThat(p.teardown().retry()).isEqualTo(new VerbsProperties.Retry(50, Duration.ofMillis(50), 2.0,
                Duration.ofSeconds(1)));
        assertThat(p.asyncEvents().enabled()).isTrue();
        assertThat(p.circuitBreaker())
                .isEqualTo(new VerbsProperties.CircuitBreaker(50, 20, 10, Duration.ofSeconds(30), 3));
    }

    @Test
    void declarationsHaveDefaultsForEverythingButTheirReferences() {
        VerbsProperties p = bind(Map.of(
                "rdma.verbs.devices.main.protection-domains", "pd0",
                "rdma.verbs.devices.main.completion-queues.cq0.channel", "",
                "rdma.verbs.devices.main.shared-receive-queues.srq0.protection-domain", "pd0",
                "rdma.verbs.devices.main.queue-pairs.qp0.protection-domain", "pd0",
                "rdma.verbs.devices.main.memory-regions.mr0.size", "1MB",
                "rdma.verbs.devices.main.xrc-domains.x.file", "/tmp/x"));
        Device main = p.devices().get("main");
        assertThat(main.name()).isNull();
        assertThat(main.port()).isEqualTo(1);
        assertThat(main.completionQueues().get("cq0")).isEqualTo(new Declarations.Cq(256, "", 0));
        assertThat(main.sharedReceiveQueues().get("srq0"))
                .isEqualTo(new Declarations.Srq("pd0", 256, 1, 0, null, null));
        assertThat(main.queuePairs().get("qp0"))
                .isEqualTo(new Qp(QpType.RC, "pd0", null, null, null, null, 64, 64, 1, 1, 0, true));
        assertThat(main.memoryRegions().get("mr0").access()).containsExactly(AccessFlag.LOCAL_WRITE);
        assertThat(main.memoryRegions().get("mr0").size()).isEqualTo(DataSize.ofMegabytes(1));
        assertThat(main.xrcDomains().get("x")).isEqualTo(new Declarations.Xrcd(Path.of("/tmp/x"), true, false));
        assertThat(main.completionChannels()).isEmpty();
    }

    @Test
    void bindsTheWholeTreeFromRelaxedNames() {
        VerbsProperties p = bind(Map.ofEntries(
                Map.entry("rdma.verbs.provider", "simulated"),
                Map.entry("rdma.verbs.native.library-path", "/opt/rdma/libibverbs.so.1"),
                Map.entry("rdma.verbs.simulated.devices.mlx5_0.profile", "mlx5"),
                Map.entry("rdma.verbs.devices.hca.guid", "0c42:a103:0000:1234"),
                Map.entry("rdma.verbs.devices.hca.port", "2"),
                Map.entry("rdma.verbs.devices.hca.completion-channels[0]", "events"),
                Map.entry("rdma.verbs.devices.hca.queue-pairs.sender.type", "xrc-send"),
                Map.entry("rdma.verbs.devices.hca.queue-pairs.sender.max-inline-data", "128"),
                Map.entry("rdma.verbs.devices.hca.queue-pairs.sender.signal-all", "false"),
                Map.entry("rdma.verbs.devices.hca.memory-regions.buf.access", "local-write,remote-read,REMOTE_WRITE"),
                Map.entry("rdma.verbs.devices.hca.memory-regions.buf.size", "2MB"),
                Map.entry("rdma.verbs.teardown.policy", "cascade"),
                Map.entry("rdma.verbs.teardown.timeout", "3s"),
                Map.entry("rdma.verbs.teardown.retry.max-attempts", "7"),
                Map.entry("rdma.verbs.teardown.retry.multiplier", "1.5"),
                Map.entry("rdma.verbs.async-events.enabled", "false"),
                Map.entry("rdma.verbs.circuit-breaker.wait-duration-in-open-state", "1m")));
        assertThat(p.provider()).isEqualTo(VerbsProperties.Provider.SIMULATED);
        assertThat(p.nativeProvider().libraryPath()).isEqualTo(Path.of("/opt/rdma/libibverbs.so.1"));
        assertThat(p.simulated().devices()).containsOnlyKeys("mlx5_0");
        assertThat(p.simulated().devices().get("mlx5_0").profile()).isEqualTo(VerbsProperties.SimulatedProfile.MLX5);
        Device hca = p.devices().get("hca");
        assertThat(hca.guid()).isEqualTo("0c42:a103:0000:1234");
        assertThat(hca.port()).isEqualTo(2);
        assertThat(hca.completionChannels()).isEqualTo(List.of("events"));
        Qp sender = hca.queuePairs().get("sender");
        assertThat(sender.type()).isEqualTo(QpType.XRC_SEND);
        assertThat(sender.maxInlineData()).isEqualTo(128);
        assertThat(sender.signalAll()).isFalse();
        assertThat(hca.memoryRegions().get("buf").access())
                .isEqualTo(EnumSet.of(AccessFlag.LOCAL_WRITE, AccessFlag.REMOTE_READ, AccessFlag.REMOTE_WRITE));
        assertThat(p.teardown().policy()).isEqualTo(TeardownPolicy.CASCADE);
        assertThat(p.teardown().timeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(p.teardown().retry().maxAttempts()).isEqualTo(7);
        assertThat(p.teardown().retry().multiplier()).isEqualTo(1.5);
        assertThat(p.asyncEvents().enabled()).isFalse();
        assertThat(p.circuitBreaker().waitDurationInOpenState()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void rejectsAnEmptyCompletionQueueNamingTheProperty() {
        assertRejected("devices[main].completionQueues[cq0].entries",
                "rdma.verbs.devices.main.completion-queues.cq0.entries=0");
    }

    @Test
    void rejectsANegativeCompletionVector() {
        assertRejected("devices[main].completionQueues[cq0].compVector",
                "rdma.verbs.devices.main.completion-queues.cq0.comp-vector=-1");
    }

    @Test
    void rejectsAMemoryRegionWithoutASize() {
        assertRejected("devices[main].memoryRegions[buf].size",
                "rdma.verbs.devices.main.memory-regions.buf.protection-domain=pd0");
    }

    @Test
    void rejectsAPortBelowOne() {
        assertRejected("devices[main].port",
                "rdma.verbs.devices.main.port=0");
    }

    @Test
    void rejectsABackoffThatShrinks() {
        assertRejected("teardown.retry.multiplier",
                "rdma.verbs.teardown.retry.multiplier=0.5");
    }

    @Test
    void rejectsAnSrqWithoutRoomForWorkRequests() {
        assertRejected("devices[main].sharedReceiveQueues[srq0].maxWr",
                "rdma.verbs.devices.main.shared-receive-queues.srq0.protection-domain=pd0",
                "rdma.verbs.devices.main.shared-receive-queues.srq0.max-wr=0");
    }

    private static void assertRejected(String field, String... properties) {
        Contexts.simulated()
                .withPropertyValues("rdma.verbs.devices.main.name=rxe0",
                        "rdma.verbs.devices.main.protection-domains=pd0")
                .withPropertyValues(properties)
                .run(context -> {
                    assertThat(context).hasFailed();
                    BindValidationException failure = Contexts.causeOf(context.getStartupFailure(),
                            BindValidationException.class);
                    assertThat(failure.getValidationErrors().getAllErrors())
                            .anySatisfy(e -> assertThat(e.getCodes())
                                    .anySatisfy(code -> assertThat(code).contains(field)));
                });
    }

    private static VerbsProperties bind(Map<String, String> properties) {
        return new Binder(new MapConfigurationPropertySource(properties)).bindOrCreate(VerbsProperties.PREFIX,
                VerbsProperties.class);
    }
}
