package io.rdmaverbs.spring.boot.test.autoconfigure;

import java.util.EnumSet;
import java.util.List;

import io.rdmaverbs.spring.boot.resources.DeclaredResourceCreationException;
import io.rdmaverbs.verbs.ProtectionDomain;
import io.rdmaverbs.verbs.attr.AccessFlag;
import io.rdmaverbs.verbs.error.Errno;
import io.rdmaverbs.verbs.error.VerbsException;
import io.rdmaverbs.verbs.provider.VerbsProvider;
import io.rdmaverbs.verbs.provider.simulated.FaultPlan;
import io.rdmaverbs.verbs.provider.simulated.InjectedFault;
import io.rdmaverbs.verbs.provider.simulated.SimulatedProvider;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.test.context.TestContextManager;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.catchThrowable;

/** {@link InjectFault} on a {@code @SpringBootTest}: faults planned before the context starts. */
@SpringBootTest(classes = TestApplication.class, properties = { "rdma.verbs.devices.hca.name=rxe0",
        "rdma.verbs.devices.hca.protection-domains=pd" })
@SimulatedVerbs
@InjectFault(verb = "ibv_reg_mr", nth = 1, errno = "ENOMEM")
class InjectFaultTests {

    @Autowired
    private ProtectionDomain pd;

    @Autowired
    private FaultPlan faults;

    @Autowired
    private VerbsProvider provider;

    @Test
    void theFirstCallOfTheVerbFailsWithTheErrnoAndTheNextSucceeds() {
        assertThatExceptionOfType(VerbsException.class)
                .isThrownBy(() -> pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), "first"))
                .satisfies(e -> assertThat(e.verb()).isEqualTo("ibv_reg_mr"))
                .satisfies(e -> assertThat(e.errno()).isEqualTo(Errno.ENOMEM));
        assertThat(pd.allocateMemory(4096, EnumSet.of(AccessFlag.LOCAL_WRITE), "second").isOpen()).isTrue();
        assertThat(faults.injected()).extracting(InjectedFault::verb).containsExactly("ibv_reg_mr");
    }

    @Test
    void theFaultPlanBeanIsTheSimulatedProvidersOwn() {
        assertThat(faults).isSameAs(((SimulatedProvider) provider).faults());
        assertThat(faults.callsByVerb()).containsEntry("ibv_open_device", 1L).containsEntry("ibv_alloc_pd", 1L);
    }

    @Test
    void aFaultAtACreateOfTheStartupFailsTheStartupNamingTheDeclaredResource() {
        Throwable failure = catchThrowable(() -> new TestContextManager(CompletionQueueCannotBeCreated.class)
                .prepareTestInstance(new CompletionQueueCannotBeCreated()));
        assertThat(failure).hasMessageContaining("Failed to load ApplicationContext");
        DeclaredResourceCreationException cause = causeOf(failure);
        assertThat(cause.property()).isEqualTo("rdma.verbs.devices.hca.completion-queues.cq");
        assertThat(cause.verbFailure().verb()).isEqualTo("ibv_create_cq");
        assertThat(cause.verbFailure().errno()).isEqualTo(Errno.EINVAL);
    }

    @Test
    void testClassesWithOtherFaultsGetOtherContexts() {
        SimulatedVerbsContextCustomizerFactory factory = new SimulatedVerbsContextCustomizerFactory();
        assertThat(factory.createContextCustomizer(InjectFaultTests.class, List.of()))
                .isEqualTo(factory.createContextCustomizer(SameFault.class, List.of()))
                .isNotEqualTo(factory.createContextCustomizer(SimulatedVerbsTests.Default.class, List.of()))
                .isNotEqualTo(factory.createContextCustomizer(CompletionQueueCannotBeCreated.class, List.of()));
    }

    @Test
    void anErrnoNameThatDoesNotExistIsRefusedBeforeTheContextStarts() {
        assertThatIllegalArgumentException()
                .isThrownBy(() -> new SimulatedVerbsContextCustomizerFactory()
                        .createContextCustomizer(MisspeltErrno.class, List.of()))
                .withMessageContaining("'ENOMEN', which is none of [EPERM, ");
    }

    private static DeclaredResourceCreationException causeOf(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof DeclaredResourceCreationException declared) {
                return declared;
            }
        }
        throw new AssertionError("no DeclaredResourceCreationException in the causes of " + failure, failure);
    }

    @SimulatedVerbs
    @InjectFault(verb = "ibv_reg_mr", nth = 1, errno = "ENOMEM")
    static class SameFault {
    }

    @SimulatedVerbs
    @InjectFault(verb = "ibv_reg_mr", errno = "ENOMEN")
    static class MisspeltErrno {
    }

    @SpringBootTest(classes = TestApplication.class, properties = { "rdma.verbs.devices.hca.name=rxe0",
            "rdma.verbs.devices.hca.completion-queues.cq.entries=16" })
    @SimulatedVerbs
    @InjectFault(verb = "ibv_create_cq", errno = "EINVAL")
    static class CompletionQueueCannotBeCreated {
    }
}
