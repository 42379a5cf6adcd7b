package io.rdmaverbs.spring.boot.teardown;

import java.util.EnumSet;

import io.rdmaverbs.spring.boot.autoconfigure.Contexts;
import io.rdmaverbs.spring.boot.autoconfigure.Contexts.ClosedResources;
import io.rdmaverbs.verbs.CompletionQueue;
import io.rdmaverbs.verbs.CompletionQueueSpec;
import io.rdmaverbs.verbs.DeviceContext;
import io.rdmaverbs.verbs.MemoryRegion;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.QueuePair;
import io.rdmaverbs.verbs.ResourceRef;
import io.rdmaverbs.verbs.SharedReceiveQueue;
import io.rdmaverbs.verbs.Verbs;
import io.rdmaverbs.verbs.VerbsListener;
import io.rdmaverbs.verbs.VerbsResource;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;

class ContextLifecycleTests {

    @Test
    void fullContextCreatesEveryDeclaredResourceThenReleasesThemInExactOrderLeavingNothingOpen() {
        ClosedResources closed = new ClosedResources();
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withBean(ClosedResources.class, () -> closed)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    Verbs verbs = context.getBean(Verbs.class);
                    SimulatedProvider provider = (SimulatedProvider) context.getBean(VerbsProvider.class);
                    VerbsTeardown teardown = context.getBean(VerbsTeardown.class);
                    assertThat(verbs.resources()).extracting(VerbsResource::name)
                            .containsExactly("main", "pd0", "events", "cq0", "cq1", "srq0", "qp0", "buf");
                    assertThat(context.getBean("qp0", QueuePair.class).srq())
                            .isSameAs(context.getBean("srq0", SharedReceiveQueue.class));
                    assertThat(context.getBean("buf", MemoryRegion.class).length()).isEqualTo(64 * 1024);
                    assertThat(context.getBean("cq0", CompletionQueue.class).channel()).isNotNull();
                    assertThat(provider.resourceCounts("rxe0").objects()).isEqualTo(7);

                    context.close();

                    assertThat(closed.names()).containsExactlyElementsOf(Contexts.FULL_RELEASE_ORDER);
                    TeardownReport report = teardown.report().orElseThrow();
                    assertThat(report.closed()).extracting(ResourceRef::name)
                            .containsExactlyElementsOf(Contexts.FULL_RELEASE_ORDER);
                    assertThat(report.isComplete()).isTrue();
                    assertThat(report.drained()).isTrue();
                    assertThat(verbs.resources()).isEmpty();
                    assertThat(provider.resourceCounts("rxe0").objects()).isZero();
                    assertThat(provider.resourceCounts("rxe0").contexts()).isZero();
                    assertThat(provider.leakedObjects()).isEmpty();
                });
    }

    @Test
    void aListenerBeanThrowingFromClosedDoesNotStopTheTeardown() {
        ClosedResources closed = new ClosedResources();
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withBean("throwingListener", VerbsListener.class, () -> new VerbsListener() {
                    @Override
                    public void closed(VerbsResource resource) {
                        throw new IllegalStateException("listener bug");
                    }
                })
                .withBean(ClosedResources.class, () -> closed)
                .run(context -> {
                    Verbs verbs = context.getBean(Verbs.class);
                    SimulatedProvider provider = (SimulatedProvider) context.getBean(VerbsProvider.class);
                    VerbsTeardown teardown = context.getBean(VerbsTeardown.class);

                    context.close();

                    assertThat(closed.names()).containsExactlyElementsOf(Contexts.FULL_RELEASE_ORDER);
                    assertThat(teardown.report().orElseThrow().isComplete()).isTrue();
                    assertThat(verbs.resources()).isEmpty();
                    assertThat(provider.resourceCounts("rxe0").objects()).isZero();
                });
    }

    @Test
    void resourcesCreatedAtRunTimeUnderDeclaredBeansAreReleasedBeforeTheirParents() {
        ClosedResources closed = new ClosedResources();
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withBean(ClosedResources.class, () -> closed)
                .withUserConfiguration(RuntimeChildren.class)
                .run(context -> {
                    Verbs verbs = context.getBean(Verbs.class);
                    SimulatedProvider provider = (SimulatedProvider) context.getBean(VerbsProvider.class);
                    assertThat(verbs.resources()).extracting(VerbsResource::name)
                            .contains("runtime-cq", "runtime-pd", "runtime-mr");

                    context.close();

                    assertThat(closed.names()).containsSubsequence("runtime-cq", "main")
                            .containsSubsequence("runtime-pd", "main")
                            .containsSubsequence("runtime-mr", "pd0", "main");
                    assertThat(verbs.resources()).isEmpty();
                    assertThat(provider.resourceCounts("rxe0").objects()).isZero();
                });
    }

    @Test
    void declaredResourcesAreInjectableByTypeAndByQualifier() {
        Contexts.simulated()
                .withPropertyValues(Contexts.FULL)
                .withPropertyValues("rdma.verbs.devices.main.protection-domains=pd0,pd1")
                .withUserConfiguration(QualifiedInjection.class)
                .run(context -> {
                    assertThat(context).getBeans(ProtectionDomain.class).containsOnlyKeys("pd0", "pd1");
                    assertThat(context).getBean(DeviceContext.class).extracting(DeviceContext::name).isEqualTo("main");
                    assertThat(context.getBean("pd1", ProtectionDomain.class).name()).isEqualTo("pd1");
                    assertThat(context.getBean("pd1", ProtectionDomain.class).context())
                            .isSameAs(context.getBean("main"));
                    assertThat(context.getBean(Injected.class).pd.name()).isEqualTo("pd1");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class RuntimeChildren {

        @Bean
        String runtimeChildren(DeviceContext main, @Qualifier("pd0") ProtectionDomain pd0) {
            main.allocateProtectionDomain("runtime-pd");
            main.createCompletionQueue(CompletionQueueSpec.of(16), "runtime-cq");
            pd0.allocateMemory(8192, EnumSet.of(AccessFlag.LOCAL_WRITE), "runtime-mr");
            return "created";
        }
    }

    record Injected(ProtectionDomain pd) {
    }

    @Configuration(proxyBeanMethods = false)
    static class QualifiedInjection {

        @Bean
        Injected injected(@Qualifier("pd1") ProtectionDomain pd) {
            return new Injected(pd);
        }
    }
}
