package io.rdmaverbs.spring.boot.autoconfigure;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.rdmaverbs.spring.boot.autoconfigure.endpoint.VerbsEndpointAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.events.VerbsAsyncEventsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.health.VerbsHealthContributorAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.info.VerbsInfoContributorAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.leaks.VerbsLeakDetectionAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.metrics.VerbsMetricsAutoConfiguration;
import io.rdmaverbs.spring.boot.autoconfigure.resilience.VerbsCircuitBreakerAutoConfiguration;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.VerbsResource;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** Context runners and declarations the tests share. */
public final class Contexts {

    /**
     * One rxe device with a PD, a channel, two CQs (one on the channel), a basic SRQ, an RC QP receiving
     * through the SRQ, and a memory region.
     */
    public static final String[] FULL = {
            "rdma.verbs.devices.main.name=rxe0",
            "rdma.verbs.devices.main.protection-domains=pd0",
            "rdma.verbs.devices.main.completion-channels=events",
            "rdma.verbs.devices.main.completion-queues.cq0.entries=64",
            "rdma.verbs.devices.main.completion-queues.cq0.channel=events",
            "rdma.verbs.devices.main.completion-queues.cq1.entries=64",
            "rdma.verbs.devices.main.shared-receive-queues.srq0.protection-domain=pd0",
            "rdma.verbs.devices.main.queue-pairs.qp0.protection-domain=pd0",
            "rdma.verbs.devices.main.queue-pairs.qp0.send-cq=cq0",
            "rdma.verbs.devices.main.queue-pairs.qp0.recv-cq=cq1",
            "rdma.verbs.devices.main.queue-pairs.qp0.srq=srq0",
            "rdma.verbs.devices.main.memory-regions.buf.protection-domain=pd0",
            "rdma.verbs.devices.main.memory-regions.buf.size=64KB" };

    /** The order the teardown releases {@link #FULL} in: dependents first, newest first among siblings. */
    public static final List<String> FULL_RELEASE_ORDER = List.of("qp0", "srq0", "cq1", "cq0", "events", "buf", "pd0",
            "main");

    private Contexts() {
    }

    /** Every auto-configuration of the module, on the simulated provider. */
    public static ApplicationContextRunner simulated() {
        return all().withPropertyValues("rdma.verbs.provider=simulated");
    }

    /** Every auto-configuration of the module, on the default provider. */
    public static ApplicationContextRunner all() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(VerbsAutoConfiguration.class,
                        VerbsAsyncEventsAutoConfiguration.class, VerbsCircuitBreakerAutoConfiguration.class,
                        VerbsHealthContributorAutoConfiguration.class, VerbsEndpointAutoConfiguration.class,
                        VerbsMetricsAutoConfiguration.class, VerbsLeakDetectionAutoConfiguration.class,
                        VerbsInfoContributorAutoConfiguration.class));
    }

    /** The first throwable of type {@code type} in the cause chain of {@code failure}. */
    public static <T extends Throwable> T causeOf(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        throw new AssertionError("no " + type.getSimpleName() + " in the causes of " + failure, failure);
    }

    /** A listener bean that records the names of the resources closed, in order. */
    public static final class ClosedResources implements VerbsListener {

        private final List<String> names = new CopyOnWriteArrayList<>();

        @Override
        public void closed(VerbsResource resource) {
            names.add(resource.name());
        }

        public List<String> names() {
            return new ArrayList<>(names);
        }
    }
}
