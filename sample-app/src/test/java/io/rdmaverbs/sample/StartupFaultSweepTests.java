package io.rdmaverbs.sample;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.rdmaverbs.spring.boot.autoconfigure.VerbsProperties;
import io.rdmaverbs.spring.boot.resources.CheckedDeclarations;
import io.rdmaverbs.spring.boot.resources.DeclaredResourceCreationException;
import io.rdmaverbs.spring.boot.test.autoconfigure.SimulatedFaults;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.provider.simulated.ResourceCounts;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;

import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.core.env.Environment;
import org.springframework.core.env.StandardEnvironment;
import org.springframework.core.io.support.SpringFactoriesLoader;
import org.springframework.core.io.support.SpringFactoriesLoader.ArgumentResolver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * The sample's startup with a fault at each create verb in turn, in the manner of SQLite's fault tests:
 * one clean start counts the creates ({@code FaultPlan.callsByVerb()}), then one start per create with that
 * call failing with ENOMEM. Each must fail with the failure analyzer's text naming the declared resource,
 * the verb and the errno, and leave the simulated device holding nothing, with no async-event reader left.
 */
class StartupFaultSweepTests {

    /** The verbs that create a kernel object; the startup makes no other creates. */
    private static final List<String> CREATE_VERBS = List.of("ibv_open_device", "ibv_alloc_pd", "ibv_open_xrcd",
            "ibv_create_comp_channel", "ibv_create_cq", "ibv_create_srq_ex", "ibv_create_qp_ex", "ibv_open_qp",
            "ibv_reg_mr", "ibv_create_ah");
    private static final String DEVICE = "mlx5_0";
    private static final String DECLARED = "rdma.verbs.devices.hca";

    /**
     * The readers of contexts other test classes keep cached in this JVM (same thread names) are not
     * this sweep's: only threads that were not running before it count.
     */
    private static final java.util.Set<Thread> BEFORE = java.util.Set.copyOf(Thread.getAllStackTraces().keySet());

    @Test
    void aFaultAtEachCreateOfTheStartupFailsItNamingTheResourceAndLeavesNothingOpen() {
        SimulatedFaults counting = SimulatedFaults.none();
        Map<String, Long> creates = new TreeMap<>();
        List<String> declared;
        try (ConfigurableApplicationContext clean = start(counting)) {
            counting.provider().faults().callsByVerb().forEach((verb, calls) -> {
                if (CREATE_VERBS.contains(verb)) {
                    creates.put(verb, calls);
                }
            });
            declared = CheckedDeclarations.of(clean.getBean(VerbsProperties.class).devices()).inCreationOrder().stream()
                    .map(CheckedDeclarations.Declaration::property).toList();
        }
        assertNothingLeft(counting.provider(), "the clean start");

        List<String> failedAt = new ArrayList<>();
        creates.forEach((verb, calls) -> {
            for (int nth = 1; nth <= calls; nth++) {
                int call = nth;
                SimulatedFaults faults = SimulatedFaults.planning(plan -> plan.failCall(verb, call, Errno.ENOMEM));
                String point = verb + " #" + call;
                Throwable failure = catchThrowable(() -> start(faults).close());
                assertThat(failure).as("the startup with %s failing", point).isNotNull();
                FailureAnalysis analysis = analysis(failure);
                assertThat(analysis).as("the failure analysis of the startup with %s failing", point).isNotNull();
                DeclaredResourceCreationException declaredFailure = declaredFailure(failure);
                assertThat(analysis.getDescription()).as(point)
                        .startsWith("The RDMA " + declaredFailure.kind() + " '" + declaredFailure.key() + "' declared at "
                                + declaredFailure.property() + " could not be created: " + verb + " on ")
                        .contains("failed with ENOMEM (12)");
                assertThat(analysis.getAction()).as(point).startsWith("The device or the kernel has no room for it: "
                        + "lower the values declared at " + declaredFailure.property());
                assertThat(faults.provider().faults().injected()).as(point).hasSize(1);
                assertNothingLeft(faults.provider(), "the startup with " + point + " failing");
                failedAt.add(declaredFailure.property());
            }
        });
        assertThat(failedAt).as("the declared resource each injection point failed")
                .containsExactlyInAnyOrderElementsOf(declared)
                .allSatisfy(property -> assertThat(property).startsWith(DECLARED));
        System.out.println("fault sweep spring-startup: " + failedAt.size() + " injection points");
    }

    private static ConfigurableApplicationContext start(SimulatedFaults faults) {
        return new SpringApplicationBuilder(SampleApplication.class).initializers(faults)
                // Without the connected mode: its creates (the connections' PDs, CQs, MRs) happen after the
                // startup, on other threads, and librdmacm's own context stays open for the process's life.
                .run("--server.port=0", "--spring.main.banner-mode=off", "--rdma.verbs.connections.enabled=false");
    }

    private static void assertNothingLeft(SimulatedProvider provider, String after) {
        ResourceCounts counts = provider.resourceCounts(DEVICE);
        assertThat(counts.objects()).as("kernel objects on %s after %s: %s", DEVICE, after, counts).isZero();
        assertThat(counts.contexts()).as("open contexts on %s after %s", DEVICE, after).isZero();
        assertThat(provider.leakedObjects()).as("objects leaked by a close after %s", after).isEmpty();
        assertThat(Thread.getAllStackTraces().keySet()).as("async-event readers alive after %s", after)
                .noneMatch(t -> t.isAlive() && t.getName().startsWith("rdma-verbs-async-") && !BEFORE.contains(t));
    }

    /** What Spring Boot prints: the analysis of the first failure analyzer that explains the failure. */
    private static @Nullable FailureAnalysis analysis(Throwable failure) {
        ArgumentResolver arguments = ArgumentResolver.of(BeanFactory.class, new DefaultListableBeanFactory())
                .and(Environment.class, new StandardEnvironment());
        for (FailureAnalyzer analyzer : SpringFactoriesLoader.forDefaultResourceLocation()
                .load(FailureAnalyzer.class, arguments)) {
            FailureAnalysis analysis = analyzer.analyze(failure);
            if (analysis != null) {
                return analysis;
            }
        }
        return null;
    }

    private static DeclaredResourceCreationException declaredFailure(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof DeclaredResourceCreationException declared) {
                return declared;
            }
        }
        throw new AssertionError("the startup failed, but not at a declared resource", failure);
    }
}
